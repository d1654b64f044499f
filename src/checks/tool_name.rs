//! `invalid-tool-name`: the MCP specification (2025-06-18 and later) asks for tool names of 1 to
//! 128 characters from `A-Z a-z 0-9 _ - .`. Clients reject, rewrite or truncate other names,
//! and a rewritten name can collide with another tool's.

use super::{Check, Context, Draft};
use crate::finding::Location;
use crate::unicode::display_name;

pub struct InvalidToolName;

const MAX_LEN: usize = 128;

impl Check for InvalidToolName {
    fn rules(&self) -> &'static [&'static str] {
        &["invalid-tool-name"]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        for server in &cx.inputs.servers {
            for tool in &server.tools {
                let Some(problem) = problem(&tool.name) else {
                    continue;
                };
                out.push(
                    Draft::new(
                        "invalid-tool-name",
                        Location::new(server.source, tool.pointer.key("name")),
                        format!(
                            "tool name \"{}\" {problem}; the MCP specification allows 1 to {MAX_LEN} characters of A-Z a-z 0-9 _ - .",
                            display_name(&tool.name)
                        ),
                    )
                    .server(&server.name)
                    .tool(&tool.name)
                    .field("name"),
                );
            }
        }
    }
}

fn problem(name: &str) -> Option<String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty() {
        Some("is empty".into())
    } else if name.chars().count() > MAX_LEN {
        Some(format!("is {} characters long", name.chars().count()))
    } else {
        name.chars()
            .find(|c| !allowed(*c))
            .map(|c| format!("contains {:?} (U+{:04X})", c, u32::from(c)))
    }
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn follows_the_spec() {
        for ok in ["get_weather", "a", "fs.read-file", "X1"] {
            assert_eq!(problem(ok), None, "{ok}");
        }
        let long = "a".repeat(129);
        for bad in ["", "get weather", "rеad", "a/b", long.as_str()] {
            assert!(problem(bad).is_some(), "{bad}");
        }
    }
}
