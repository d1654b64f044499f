//! The fingerprinted state of every loaded server, and how it differs from the lock.
//!
//! Both `check` (drift findings) and `lock`/`diff` (what approval would change) read the same
//! comparison, so they can never disagree about what changed.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Mutex;

use rayon::prelude::*;

use crate::fingerprint::{
    self, Algorithm, DigestText, FieldDigests, FingerprintOptions, bytes_digest, with_canonical,
};
use crate::input::{Inputs, Server, ToolRef};
use crate::json::canonical::{MemberBytes, to_canonical_vec};
use crate::json::{Node, Object, Value};
use crate::lock::{Definition, Lock, LockedServer, LockedTool};
use crate::source::{SourceFile, value_in};
use crate::spill::Spill;

pub struct ServerState<'a> {
    pub server: &'a Server,
    /// By name; when a name is listed twice, the last listing wins (and is reported elsewhere).
    pub tools: BTreeMap<&'a str, ToolState<'a>>,
    pub digest: String,
}

pub struct ToolState<'a> {
    pub tool: &'a ToolRef,
    /// The file the tool is defined in.
    pub file: &'a SourceFile,
    pub digest: &'a DigestText,
    /// What approving the tool stores besides its digest, when the fingerprints were taken for
    /// an approval ([`fingerprint_for_approval`]): taken by the approval (moved into the new
    /// lock rather than copied; a copy of 100k tools' field digests was 115 MB of peak RSS).
    pub approvable: Option<&'a Mutex<Option<Approvable>>>,
}

impl<'a> ToolState<'a> {
    /// The tool's definition: from its file's tree, or when that was freed (`check` frees each
    /// file's tree after that file's own checks) parsed alone from where it sits in the text
    /// (as its tool records), so only drifted tools and the like pay for it.
    pub fn object(&self) -> Option<Cow<'a, Object>> {
        if self.file.tree_freed() {
            let node = match self.tool.span {
                Some(span) => value_in(&self.file.text(), span),
                None => self.file.value_at_pointer(&self.tool.pointer),
            };
            return match node?.value {
                Value::Object(object) => Some(Cow::Owned(object)),
                _ => None,
            };
        }
        let object = self.file.root()?.pointer(&self.tool.pointer)?.as_object()?;
        Some(Cow::Borrowed(object))
    }

    /// The tool's `description`: from its tree when that is in memory, else decoded from where
    /// it sits in `text`, the file's text (its tool records where), without stepping through
    /// the file. The caller reads the text, once for all the tools of a file whose text was
    /// freed.
    pub fn description_in(&self, text: &str) -> Option<Cow<'a, str>> {
        if self.file.tree_freed()
            && let Some(span) = self.tool.description_span
        {
            return match value_in(text, span)?.value {
                Value::String(s) => Some(Cow::Owned(s.into())),
                _ => None,
            };
        }
        let description = self
            .file
            .root()?
            .pointer(&self.tool.pointer)?
            .get("description")?;
        description.as_str().map(Cow::Borrowed)
    }
}

/// What a lock stores of an approved tool besides its digest, under the options its digest was
/// computed with.
pub struct Approvable {
    pub fields: FieldDigests,
    pub definition: Definition,
}

impl Approvable {
    /// From a tool's canonical bytes, where each member sits in them (see [`with_canonical`])
    /// and their `digest`, and what the previous lock stores for it, if anything: its field
    /// digests, when they are the same, are shared with it rather than held twice (at 1M tools,
    /// 380 MB), and so is its definition (see [`Definition::approved`]). A tool whose digest is
    /// the one stored takes both as they are, when the stored definition allows it (see
    /// [`Definition::kept_unchanged`]): most tools of a lock refreshed.
    pub fn of(
        algorithm: Algorithm,
        canonical: &[u8],
        members: &[MemberBytes<'_>],
        digest: &DigestText,
        previous: Option<&LockedTool>,
        spill: Option<&Spill>,
    ) -> Approvable {
        if let Some(previous) = previous.filter(|p| p.digest == *digest)
            && let Some(definition) = previous.definition.kept_unchanged()
        {
            return Approvable {
                fields: previous.fields.clone(),
                definition,
            };
        }
        let fields = fingerprint::field_digests(algorithm, canonical, members);
        let fields = match previous {
            Some(previous) if previous.fields == fields => previous.fields.clone(),
            _ => fields,
        };
        Approvable {
            fields,
            definition: Definition::approved(canonical, previous.map(|p| &p.definition), spill),
        }
    }
}

/// Every tool's digests under one set of options, in [`Inputs::all_tools`] order. Owned (the
/// states borrow them), so that `check` can fingerprint the inputs while the lockfile loads and
/// build the states once it has.
pub struct Fingerprints {
    pub options: FingerprintOptions,
    /// `None` for a tool whose pointer does not lead to an object.
    digests: Vec<Option<DigestText>>,
    /// Beside `digests`, for an approval; empty otherwise.
    approvables: Vec<Mutex<Option<Approvable>>>,
}

impl Fingerprints {
    /// The digests of several inputs' tools under `options`, one after the other: those of
    /// files fingerprinted one at a time, in the order their inputs were merged.
    pub fn concat(options: &FingerprintOptions, parts: Vec<Fingerprints>) -> Fingerprints {
        let mut digests = Vec::new();
        let mut approvables = Vec::new();
        for part in parts {
            digests.extend(part.digests);
            approvables.extend(part.approvables);
        }
        Fingerprints {
            options: options.clone(),
            digests,
            approvables,
        }
    }
}

/// Fingerprints every tool of every server, in parallel over tools.
pub fn fingerprint_all(inputs: &Inputs, options: &FingerprintOptions) -> Fingerprints {
    let digests = inputs
        .all_tools()
        .par_iter()
        .map(|(server, tool)| {
            let object = inputs.tool_object(server, tool)?;
            Some(fingerprint::tool_digest(object, options))
        })
        .collect();
    Fingerprints {
        options: options.clone(),
        digests,
        approvables: Vec::new(),
    }
}

/// [`fingerprint_all`], and from the same canonical pass over each tool what approving it
/// stores (its field digests and definition): `lock` needs both, and writing a tool's
/// canonical form was a tenth of a fresh lock, twice. Each definition the lock being refreshed
/// (`previous`) stores as exactly the same bytes is kept from there rather than copied; `spill`,
/// if given, may take the others onto disk.
pub fn fingerprint_for_approval(
    inputs: &Inputs,
    options: &FingerprintOptions,
    previous: Option<&Lock>,
    spill: Option<&Spill>,
) -> Fingerprints {
    let algorithm = options.algorithm;
    let (digests, approvables) = inputs
        .all_tools()
        .par_iter()
        .map(|(server, tool)| {
            let Some(object) = inputs.tool_object(server, tool) else {
                return (None, Mutex::new(None));
            };
            let stored = previous.and_then(|lock| lock.tool_of(&server.name, &tool.name));
            with_canonical(object, options, |bytes, members| {
                let digest = bytes_digest(algorithm, bytes);
                let approvable = Approvable::of(algorithm, bytes, members, &digest, stored, spill);
                (Some(digest), Mutex::new(Some(approvable)))
            })
        })
        .unzip();
    Fingerprints {
        options: options.clone(),
        digests,
        approvables,
    }
}

/// The state of every server: its tools by name, with their `fingerprints` (of these
/// `inputs`), and the server's digest.
pub fn server_states<'a>(
    inputs: &'a Inputs,
    fingerprints: &'a Fingerprints,
) -> Vec<ServerState<'a>> {
    let flat = inputs.all_tools();
    let mut states: Vec<ServerState<'a>> = inputs
        .servers
        .iter()
        .map(|server| ServerState {
            server,
            tools: BTreeMap::new(),
            digest: String::new(),
        })
        .collect();
    let mut state_index = 0;
    for (index, ((server, tool), digest)) in flat.into_iter().zip(&fingerprints.digests).enumerate()
    {
        while states
            .get(state_index)
            .is_some_and(|s| !std::ptr::eq(s.server, server))
        {
            state_index += 1;
        }
        // A tool has a digest when its pointer leads to an object.
        if let (Some(state), Some(file), Some(digest)) = (
            states.get_mut(state_index),
            inputs.sources.get(server.source),
            digest,
        ) {
            state.tools.insert(
                tool.name.as_str(),
                ToolState {
                    tool,
                    file,
                    digest,
                    approvable: fingerprints.approvables.get(index),
                },
            );
        }
    }
    states.par_iter_mut().for_each(|state| {
        state.digest = fingerprint::server_digest(
            fingerprints.options.algorithm,
            state.tools.iter().map(|(name, t)| (*name, t.digest)),
        );
    });
    states
}

/// How a server differs from its approved baseline.
pub enum ServerDelta<'s, 'a> {
    /// No baseline in the lock.
    Unbaselined,
    Same,
    Changed(Vec<ToolDelta<'s, 'a>>),
}

pub enum ToolDelta<'s, 'a> {
    Added(&'s ToolState<'a>),
    Removed(&'s str, &'s LockedTool),
    Changed {
        state: &'s ToolState<'a>,
        /// The approved definition and the tool's definition now, each read once here: a
        /// stored definition, and the tool of a file whose tree was freed, are parsed again
        /// from their text to be read.
        before: Cow<'s, Node>,
        after: Option<Cow<'a, Object>>,
        /// Top-level fields whose values differ, in report order.
        fields: Vec<String>,
    },
}

impl ToolDelta<'_, '_> {
    pub fn name(&self) -> &str {
        match self {
            ToolDelta::Added(state) => &state.tool.name,
            ToolDelta::Removed(name, _) => name,
            ToolDelta::Changed { state, .. } => &state.tool.name,
        }
    }
}

/// Compares with `locked`, whose digests were computed with the same options as `state`.
pub fn compare<'s, 'a>(
    state: &'s ServerState<'a>,
    locked: Option<&'s LockedServer>,
    options: &FingerprintOptions,
) -> ServerDelta<'s, 'a> {
    let Some(locked) = locked else {
        return ServerDelta::Unbaselined;
    };
    if locked.baseline.hash == state.digest {
        return ServerDelta::Same;
    }
    let mut deltas = Vec::new();
    for (name, tool) in &state.tools {
        match locked.tools.get(*name) {
            None => deltas.push(ToolDelta::Added(tool)),
            Some(l) if l.digest != *tool.digest => {
                let before = l.definition.node();
                let after = tool.object();
                let fields = match (before.as_object(), after.as_deref()) {
                    (Some(def), Some(current)) => changed_fields(def, current, options),
                    _ => vec![],
                };
                deltas.push(ToolDelta::Changed {
                    state: tool,
                    before,
                    after,
                    fields,
                });
            }
            Some(_) => {}
        }
    }
    for (name, tool) in &locked.tools {
        if !state.tools.contains_key(name.as_str()) {
            deltas.push(ToolDelta::Removed(name, tool));
        }
    }
    deltas.sort_by(|a, b| a.name().cmp(b.name()));
    ServerDelta::Changed(deltas)
}

/// Top-level fields of `current` that differ from the approved `definition`, which holds exactly
/// the hashed fields: known fields first in [`fingerprint::FIELDS`] order, then the rest sorted.
pub fn changed_fields(
    definition: &Object,
    current: &Object,
    options: &FingerprintOptions,
) -> Vec<String> {
    let mut keys: Vec<&str> = definition
        .iter_unique()
        .map(|m| m.key.as_str())
        .chain(current.iter_unique().map(|m| m.key.as_str()))
        .filter(|k| options.hashes_field(k))
        .collect();
    keys.sort_by_key(|k| {
        (
            fingerprint::FIELDS
                .iter()
                .position(|f| f == k)
                .unwrap_or(usize::MAX),
            *k,
        )
    });
    keys.dedup();
    keys.into_iter()
        .filter(|k| definition.get(k).map(to_canonical_vec) != current.get(k).map(to_canonical_vec))
        .map(str::to_string)
        .collect()
}
