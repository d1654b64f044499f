//! `duplicate-json-key`: an object in an input file repeats a key. Parsers disagree on which
//! occurrence wins (serde_json and most JavaScript take the last, some the first), so a reviewer
//! and an agent can read different descriptions from the same file.

use rayon::prelude::*;

use super::{Check, Context, Draft};
use crate::finding::{Location, Target};
use crate::input::Server;
use crate::json::Pointer;
use crate::json::walk::{each_object, pointer};
use crate::source::SourceId;

pub struct DuplicateJsonKey;

impl Check for DuplicateJsonKey {
    fn rules(&self) -> &'static [&'static str] {
        &["duplicate-json-key"]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        // A lockfile holds several servers in one source, listed together: walk each file once.
        let mut sources: Vec<SourceId> = cx.inputs.servers.iter().map(|s| s.source).collect();
        sources.dedup();
        out.par_extend(sources.into_par_iter().flat_map_iter(|source| {
            let mut drafts = Vec::new();
            let Some(root) = cx.inputs.sources.get(source).and_then(|s| s.root()) else {
                return drafts;
            };
            let mut duplicates = Vec::new();
            each_object(root, &mut |path, object| {
                for (key, occurrences) in object.duplicate_keys() {
                    duplicates.push((pointer(Pointer::root(), path).key(key), key, occurrences.len()));
                }
            });
            for (at, key, count) in duplicates {
                let mut draft = Draft::new(
                    "duplicate-json-key",
                    Location::new(source, at.clone()).key(),
                    format!(
                        "key `{key}` appears {count} times in one object; parsers disagree on which value wins (this is the last, the one serde_json and JavaScript use)"
                    ),
                );
                for n in 0..count - 1 {
                    let mut earlier = Location::new(source, at.clone());
                    earlier.target = Target::KeyOccurrence(n);
                    draft = draft.related(earlier);
                }
                drafts.push(attribute(cx, draft, &at));
            }
            drafts
        }));
    }
}

/// Names the server and tool the duplicate sits in, when it is inside a tool.
fn attribute(cx: &Context<'_>, mut draft: Draft, at: &Pointer) -> Draft {
    let source = draft.location.source;
    let owner = cx
        .inputs
        .servers
        .iter()
        .filter(|s| s.source == source)
        .flat_map(|s: &Server| s.tools.iter().map(move |t| (s, t)))
        .find(|(_, t)| at.starts_with(&t.pointer));
    match owner {
        Some((server, tool)) => {
            draft = draft.server(&server.name).tool(&tool.name);
            if let Some(field) = at
                .as_str()
                .strip_prefix(tool.pointer.as_str())
                .and_then(|rest| rest.split('/').nth(1))
            {
                draft = draft.field(field);
            }
            draft
        }
        None => draft,
    }
}
