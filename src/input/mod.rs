//! Loading what a run scans: walk the paths, read and parse every file once (in parallel), and
//! turn snapshots (and lockfiles given as inputs) into servers with their tools. MCP client
//! configs met on the way (by their well-known names, or an `mcpServers` key) are kept too, for
//! the config checks.

mod discover;
mod read;
mod read_ahead;
pub mod snapshot;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::byte_size::ByteSize;
use crate::clients::{self, ClientConfig, ClientKind};
use crate::decode::Decoder;
use crate::error::Error;
use crate::json::{Dialect, Limits, Object, Pointer, Span, parse};
use crate::lock::Lock;
use crate::source::{SourceFile, SourceId, Sources};
pub use discover::{Candidate, Discovered, discover};
pub use read::{
    DEFAULT_MAX_FILE_SIZE, cannot_read, open_within, read_bytes, read_text, read_text_within,
    too_large,
};
use snapshot::{Shape, SnapshotKind, classify};

/// One server as loaded: its tools are pointers into the source's parsed document.
#[derive(Debug)]
pub struct Server {
    pub name: String,
    pub source: SourceId,
    pub origin: Origin,
    /// The snapshot's `capturedAt`, when it has one.
    pub captured_at: Option<String>,
    /// Where the snapshot names its server, when it does (its `server` field).
    pub server_field: Option<Pointer>,
    pub tools: Vec<ToolRef>,
}

impl Server {
    fn from_snapshot(name: String, source: SourceId, shape: snapshot::SnapshotShape) -> Server {
        Server {
            name,
            source,
            origin: Origin::Snapshot(shape.kind),
            captured_at: shape.captured_at,
            server_field: shape.server.map(|(_, pointer)| pointer),
            tools: shape.tools,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Snapshot(SnapshotKind),
    /// A lockfile given as an input: its stored definitions are scanned.
    Lockfile,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ToolRef {
    pub name: String,
    pub pointer: Pointer,
    /// Where the tool's object sits in the source text (`None` for a lockfile given as an
    /// input): a check across files parses the tool alone from there once the file's tree is
    /// freed, rather than stepping through the file to it.
    pub span: Option<Span>,
    /// Where the tool's `name` string sits in the source text, placed as the file was read by
    /// a scan (see [`LoadOptions::place_names`]; `None` otherwise, and for a lockfile given as an
    /// input): a finding on the name needs the file neither parsed nor read again.
    pub name_span: Option<Box<crate::finding::Span>>,
    /// Where the tool's `description` string sits in the source text, when it has one: a
    /// check across files reads it from there once the file's tree is freed.
    pub description_span: Option<Span>,
}

/// A file that holds no snapshot (valid JSON of another kind), or a `*.json` entry of a walk that
/// was not read (a FIFO, a symlink leading out of the tree); reported with `-v` and in the JSON
/// summary.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// An MCP client config that was read, and the source its pointers resolve in.
#[derive(Debug)]
pub struct ConfigInput {
    pub source: SourceId,
    pub config: ClientConfig,
}

#[derive(Default)]
pub struct Inputs {
    pub sources: Sources,
    pub servers: Vec<Server>,
    pub skipped: Vec<Skipped>,
    pub configs: Vec<ConfigInput>,
    /// Prompt files named by the config's `prompts`; filled in by `check`.
    pub prompts: Vec<crate::prompts::PromptFile>,
}

impl Inputs {
    /// A lockfile already read and parsed (`diff --base`), as if it had been given as an input.
    pub fn from_lockfile(file: SourceFile, lock: &Lock) -> Inputs {
        let mut sources = Sources::default();
        let servers = lock_servers(lock, sources.add(file));
        Inputs {
            sources,
            servers,
            skipped: Vec::new(),
            configs: Vec::new(),
            prompts: Vec::new(),
        }
    }

    /// Frees the trees and texts of these inputs' snapshots and lockfiles once what needs them
    /// whole has run (see [`crate::source::SourceFile::free_text`]): what is asked of them
    /// later reads the file again. Client configs keep theirs: the checks across files read
    /// them, and they need not be JSON, so could not be parsed again.
    pub fn free_snapshots(&mut self) {
        let configs: Vec<SourceId> = self.configs.iter().map(|c| c.source).collect();
        for id in self.servers.iter().map(|s| s.source) {
            if !configs.contains(&id)
                && let Some(source) = self.sources.get_mut(id)
            {
                source.free_text();
            }
        }
    }

    pub fn tool_count(&self) -> usize {
        self.servers.iter().map(|s| s.tools.len()).sum()
    }

    /// Every (server, tool) pair, for work that runs in parallel over tools.
    pub fn all_tools(&self) -> Vec<(&Server, &ToolRef)> {
        self.servers
            .iter()
            .flat_map(|s| s.tools.iter().map(move |t| (s, t)))
            .collect()
    }

    /// The tool object a reference points at.
    pub fn tool_object(&self, server: &Server, tool: &ToolRef) -> Option<&Object> {
        self.sources
            .get(server.source)?
            .root()?
            .pointer(&tool.pointer)?
            .as_object()
    }
}

pub struct LoadOptions<'a> {
    /// Files never to read as inputs (the lockfile in use, when a directory walk meets it).
    pub exclude: &'a [PathBuf],
    pub limits: Limits,
    /// Larger files are an error, found from their metadata before anything is read.
    pub max_file_size: ByteSize,
    /// Whether a lockfile may be given as an input (`check` yes, `lock` no).
    pub accept_lockfiles: bool,
    /// Whether each tool's name is placed in lines and columns as its file is read (`check`,
    /// whose findings on names would otherwise read nearly every file again). Other runs
    /// report on no name, and a placement is 64 bytes a tool: at 1M tools, the peak of a
    /// `lock` run, close to the 2 GB target, grew by 60–90 MB with one for every tool.
    pub place_names: bool,
}

/// What one file turned into, before servers are named and checked for clashes.
enum Loaded {
    Snapshot(snapshot::SnapshotShape),
    Lockfile(Lock),
    ClientConfig(ClientConfig),
    Skipped(String),
}

pub fn load(paths: &[PathBuf], options: &LoadOptions<'_>) -> Result<Inputs, Vec<Error>> {
    load_each(paths, options, |_| ()).map(|(inputs, _)| inputs)
}

/// What a per-file step gave for each file, with the id of the file's source in the merged
/// inputs.
pub type PerFile<T> = Vec<(SourceId, T)>;

/// [`load`], calling `each` on every file as soon as it is read, in parallel, with the file
/// as inputs of its own (its source is `SourceId(0)` there): work that needs only one file's
/// tree can run, and free it, before the next file is read. Returns what `each` gave for every
/// file that holds a source, with the id that source has in the merged inputs, in that order.
pub fn load_each<T: Send>(
    paths: &[PathBuf],
    options: &LoadOptions<'_>,
    each: impl Fn(&mut Inputs) -> T + Sync,
) -> Result<(Inputs, PerFile<T>), Vec<Error>> {
    let Discovered {
        candidates,
        skipped,
    } = discover(paths, options.exclude).map_err(|e| vec![e])?;
    read_ahead::read_ahead(
        candidates.iter().map(|c| c.path.clone()).collect(),
        rayon::current_num_threads(),
    );
    let results: Vec<Result<(Inputs, T), Error>> = candidates
        .par_iter()
        .map(|candidate| {
            let mut file = load_file(candidate, options)?;
            let out = each(&mut file);
            Ok((file, out))
        })
        .collect();

    let mut errors = Vec::new();
    let mut inputs = Inputs {
        skipped,
        ..Inputs::default()
    };
    let mut outputs = Vec::new();
    // Which file first claimed each server name, to name both files on a clash.
    let mut claimed: BTreeMap<String, PathBuf> = BTreeMap::new();
    for result in results {
        let (file, out) = match result {
            Ok(ok) => ok,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let Inputs {
            sources,
            servers,
            skipped,
            configs,
            prompts: _,
        } = file;
        inputs.skipped.extend(skipped);
        let Some(path) = sources.get(SourceId(0)).map(|f| f.path.clone()) else {
            continue;
        };
        let source = inputs.sources.append(sources);
        outputs.push((source, out));
        inputs
            .configs
            .extend(configs.into_iter().map(|c| ConfigInput { source, ..c }));
        for server in servers {
            if let Some(first) = claimed.get(&server.name) {
                errors.push(
                    Error::new(format!(
                        "server `{}` is defined twice: in {} and in {}",
                        server.name,
                        crate::source::display_path(first),
                        crate::source::display_path(&path),
                    ))
                    .with_help("give one snapshot a distinct `server` field, or rename the file"),
                );
                continue;
            }
            claimed.insert(server.name.clone(), path.clone());
            inputs.servers.push(Server { source, ..server });
        }
    }
    inputs.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    if errors.is_empty() {
        Ok((inputs, outputs))
    } else {
        Err(errors)
    }
}

/// A lockfile's servers: each tool points at its stored definition, so that is what is scanned.
fn lock_servers(lock: &Lock, source: SourceId) -> Vec<Server> {
    lock.servers
        .iter()
        .map(|(name, server)| Server {
            name: name.clone(),
            source,
            origin: Origin::Lockfile,
            captured_at: Some(server.captured_at.clone()),
            server_field: None,
            tools: server
                .tools
                .keys()
                .map(|tool| ToolRef {
                    name: tool.clone(),
                    pointer: Lock::definition_pointer(name, tool),
                    // Not kept for a lockfile given as an input (rare): once its tree is
                    // freed, asking for a name or description parses the lockfile again.
                    span: None,
                    name_span: None,
                    description_span: None,
                })
                .collect(),
        })
        .collect()
}

/// One file as inputs of its own: its source is `SourceId(0)`, or there is none when the
/// file was skipped.
fn load_file(candidate: &Candidate, options: &LoadOptions<'_>) -> Result<Inputs, Error> {
    let path = &candidate.path;
    let text = read_text_within(path, options.max_file_size)?;
    let client = clients::detect(path);
    let dialect = client.map_or(Dialect::Json, ClientKind::dialect);
    let root = parse(&text, dialect, &options.limits)
        .map_err(|e| Error::at_offset(path, &text, e.offset, e.message))?;
    let decoder = match options.place_names {
        true => Decoder::placing(path, &text),
        false => Decoder::new(path, &text),
    };
    let client = client.or_else(|| root.get("mcpServers").map(|_| ClientKind::Generic));
    let loaded = if let Some(kind) = client {
        Loaded::ClientConfig(clients::from_node(&root, kind, &decoder)?)
    } else if Lock::is_lockfile(&root) {
        if !options.accept_lockfiles {
            return Err(Error::in_file(
                path,
                "a lockfile cannot be an input here: pass snapshot files",
            ));
        }
        Loaded::Lockfile(Lock::from_node(&root, &decoder)?)
    } else {
        match classify(&root, &decoder)? {
            Shape::Snapshot(shape) => Loaded::Snapshot(shape),
            Shape::NotSnapshot(reason) if candidate.explicit => {
                return Err(Error::in_file(
                    path,
                    format!("not an MCP tools/list snapshot: {reason}"),
                ));
            }
            Shape::NotSnapshot(reason) => Loaded::Skipped(reason),
        }
    };
    let mut inputs = Inputs::default();
    let source = SourceId(0);
    match loaded {
        Loaded::Skipped(reason) => {
            inputs.skipped.push(Skipped {
                path: path.clone(),
                reason,
            });
            return Ok(inputs);
        }
        Loaded::ClientConfig(config) => inputs.configs.push(ConfigInput { source, config }),
        Loaded::Snapshot(shape) => {
            let name = match &shape.server {
                Some((name, _)) => name.clone(),
                None => file_stem(path),
            };
            inputs
                .servers
                .push(Server::from_snapshot(name, source, shape));
        }
        Loaded::Lockfile(lock) => inputs.servers = lock_servers(&lock, source),
    }
    inputs
        .sources
        .add(SourceFile::read_from(path.clone(), text, Some(root)));
    Ok(inputs)
}

/// One `tools/list` response or result held in memory (standard input, a gateway's live
/// traffic) as the tools of `server`; `label` names it in locations (e.g. `<stdin>`).
pub fn from_text(
    label: &Path,
    text: String,
    server: &str,
    limits: &Limits,
) -> Result<Inputs, Error> {
    let root = parse(&text, Dialect::Json, limits)
        .map_err(|e| Error::at_offset(label, &text, e.offset, e.message))?;
    let shape = match classify(&root, &Decoder::placing(label, &text))? {
        Shape::Snapshot(shape) => shape,
        Shape::NotSnapshot(reason) => {
            return Err(Error::in_file(
                label,
                format!("not an MCP tools/list response: {reason}"),
            ));
        }
    };
    let mut sources = Sources::default();
    let source = sources.add(SourceFile::new(label.to_path_buf(), text, Some(root)));
    Ok(Inputs {
        servers: vec![Server::from_snapshot(server.to_string(), source, shape)],
        sources,
        skipped: Vec::new(),
        configs: Vec::new(),
        prompts: Vec::new(),
    })
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string_lossy().into_owned())
}
