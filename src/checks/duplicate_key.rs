//! `duplicate-json-key`: an object in an input file repeats a key. Parsers disagree on which
//! occurrence wins (serde_json and most JavaScript take the last, some the first), so a reviewer
//! and an agent can read different descriptions from the same file.

use rayon::prelude::*;

use super::{Check, Context, Draft};
use crate::finding::{Location, Target};
use crate::input::Server;
use crate::json::{Node, Pointer, Value};
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
            walk(root, &mut Vec::new(), &mut |path, key, count| {
                let at = pointer(path).key(key);
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
            });
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

/// One step of the path from the root to the node being walked.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn pointer(path: &[Step<'_>]) -> Pointer {
    path.iter().fold(Pointer::root(), |at, step| match step {
        Step::Key(key) => at.key(key),
        Step::Index(i) => at.index(*i),
    })
}

/// Every object with a repeated key, depth first. The path is kept as borrowed steps and only
/// turned into a pointer for a report: building a pointer per node was most of the walk.
fn walk<'a>(
    node: &'a Node,
    path: &mut Vec<Step<'a>>,
    report: &mut impl FnMut(&[Step<'a>], &str, usize),
) {
    match &node.value {
        Value::Object(object) => {
            for (key, occurrences) in object.duplicate_keys() {
                report(path, key, occurrences.len());
            }
            for member in object.iter_unique() {
                path.push(Step::Key(&member.key));
                walk(&member.value, path, report);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                walk(item, path, report);
                path.pop();
            }
        }
        _ => {}
    }
}
