//! `duplicate-json-key`: an object in an input file repeats a key. Parsers disagree on which
//! occurrence wins (serde_json and most JavaScript take the last, some the first), so a reviewer
//! and an agent can read different descriptions from the same file.

use super::{Check, Context, Draft};
use crate::finding::{Location, Target};
use crate::input::Server;
use crate::json::{Node, Pointer, Value};

pub struct DuplicateJsonKey;

impl Check for DuplicateJsonKey {
    fn rules(&self) -> &'static [&'static str] {
        &["duplicate-json-key"]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        let mut seen = std::collections::BTreeSet::new();
        for server in &cx.inputs.servers {
            // A lockfile holds several servers in one source: walk each file once.
            if !seen.insert(server.source) {
                continue;
            }
            let Some(root) = cx.inputs.sources.get(server.source).and_then(|s| s.root()) else {
                continue;
            };
            walk(root, Pointer::root(), &mut |pointer, key, count| {
                let at = pointer.key(key);
                let mut draft = Draft::new(
                    "duplicate-json-key",
                    Location::new(server.source, at.clone()).key(),
                    format!(
                        "key `{key}` appears {count} times in one object; parsers disagree on which value wins (this is the last, the one serde_json and JavaScript use)"
                    ),
                );
                for n in 0..count - 1 {
                    let mut earlier = Location::new(server.source, at.clone());
                    earlier.target = Target::KeyOccurrence(n);
                    draft = draft.related(earlier);
                }
                out.push(attribute(cx, draft, &at));
            });
        }
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

fn walk(node: &Node, at: Pointer, report: &mut impl FnMut(&Pointer, &str, usize)) {
    match &node.value {
        Value::Object(object) => {
            for (key, occurrences) in object.duplicate_keys() {
                report(&at, key, occurrences.len());
            }
            for member in object.iter_unique() {
                walk(&member.value, at.key(&member.key), report);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, at.index(i), report);
            }
        }
        _ => {}
    }
}
