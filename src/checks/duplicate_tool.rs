//! `duplicate-tool-name`: one server lists the same tool name more than once.

use std::collections::BTreeMap;

use super::{Check, Context, Draft};
use crate::finding::Location;

pub struct DuplicateToolName;

impl Check for DuplicateToolName {
    fn rules(&self) -> &'static [&'static str] {
        &["duplicate-tool-name"]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        for server in &cx.inputs.servers {
            let mut by_name: BTreeMap<&str, Vec<Location>> = BTreeMap::new();
            for tool in &server.tools {
                by_name
                    .entry(tool.name.as_str())
                    .or_default()
                    .push(Location::new(server.source, tool.pointer.key("name")));
            }
            for (name, mut places) in by_name {
                let count = places.len();
                let Some(last) = places.pop().filter(|_| count > 1) else {
                    continue;
                };
                let mut draft = Draft::new(
                    "duplicate-tool-name",
                    last,
                    format!(
                        "tool `{name}` is listed {count} times by server `{}`; clients disagree on which definition wins (mcp-scan fingerprints the last)",
                        server.name
                    ),
                )
                .server(&server.name)
                .tool(name);
                for earlier in places {
                    draft = draft.related(earlier);
                }
                out.push(draft);
            }
        }
    }
}
