//! The engine for `kind: pattern` rules: every target string of every tool through the
//! catalogue's compiled [`PatternSet`](crate::rules::PatternSet), one finding per rule and string
//! with a caret under the match.

use rayon::prelude::*;

use super::targets::{TargetString, tool_strings};
use super::{Context, Draft};
use crate::finding::Location;
use crate::input::{Server, ToolRef};
use crate::unicode::make_visible;

pub fn run(cx: &Context<'_>) -> Vec<Draft> {
    let tools = cx.inputs.all_tools();
    tools
        .par_iter()
        .flat_map_iter(|(server, tool)| scan_tool(cx, server, tool))
        .collect()
}

fn scan_tool(cx: &Context<'_>, server: &Server, tool: &ToolRef) -> Vec<Draft> {
    let Some(object) = cx.inputs.tool_object(server, tool) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for target in tool_strings(object, &tool.pointer) {
        for m in cx.catalogue.patterns().find(target.kind, target.text) {
            let matched = target.text.get(m.range.clone()).unwrap_or_default();
            out.push(
                Draft::new(
                    m.rule.id.clone(),
                    location(server, &target, m.range.clone()),
                    format!("{}: \"{}\"", m.rule.message, excerpt(matched)),
                )
                .server(&server.name)
                .tool(&tool.name)
                .field(&field_of(&target, tool)),
            );
        }
    }
    out
}

/// The string's location, narrowed to the match (a property name is pointed at as a key).
pub(super) fn location(
    server: &Server,
    target: &TargetString<'_>,
    range: std::ops::Range<usize>,
) -> Location {
    let location = Location::new(server.source, target.pointer.clone());
    if target.is_key {
        location.key()
    } else {
        location.within(range)
    }
}

/// The top-level tool field a string belongs to (`description`, `inputSchema`, …).
pub(super) fn field_of(target: &TargetString<'_>, tool: &ToolRef) -> String {
    target
        .pointer
        .as_str()
        .strip_prefix(tool.pointer.as_str())
        .and_then(|rest| rest.split('/').nth(1))
        .unwrap_or_default()
        .to_string()
}

/// The matched text for a message: invisible characters shown, at most 80 characters.
pub(super) fn excerpt(text: &str) -> String {
    let visible = make_visible(text);
    match visible.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &visible[..cut]),
        None => visible,
    }
}
