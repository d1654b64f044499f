//! `invalid-input-schema`: every MCP specification version requires a tool's `inputSchema`, a
//! JSON Schema object whose root `type` is `"object"` (arguments are always a JSON object), and
//! an `outputSchema`, where there is one, to be an object. A client that validates the result, as
//! the official TypeScript SDK's does, rejects a `tools/list` result that breaks this, so a server
//! with one such tool loses every tool; a client that does not check passes the agent's arguments
//! unvalidated.

use super::{Check, Context, Draft};
use crate::decode::article;
use crate::finding::Location;
use crate::json::{Node, Object, Pointer};

pub struct InvalidInputSchema;

impl Check for InvalidInputSchema {
    fn rules(&self) -> &'static [&'static str] {
        &["invalid-input-schema"]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        for server in &cx.inputs.servers {
            for tool in &server.tools {
                let Some(object) = cx.inputs.tool_object(server, tool) else {
                    continue;
                };
                for (at, field, problem) in problems(object, &tool.pointer) {
                    out.push(
                        Draft::new(
                            "invalid-input-schema",
                            Location::new(server.source, at),
                            format!("tool `{}`: {problem}", tool.name),
                        )
                        .server(&server.name)
                        .tool(&tool.name)
                        .field(field),
                    );
                }
            }
        }
    }
}

/// What is wrong with the schemas of the tool at `tool`: where, in which field, and what.
fn problems(object: &Object, tool: &Pointer) -> Vec<(Pointer, &'static str, String)> {
    let mut found = Vec::new();
    match object.get("inputSchema") {
        None => found.push((
            tool.key("name"),
            "inputSchema",
            "has no `inputSchema`, which the MCP specification requires (`{\"type\": \"object\"}` for a tool without arguments)".to_string(),
        )),
        Some(schema) => match schema.as_object() {
            None => found.push((
                tool.key("inputSchema"),
                "inputSchema",
                format!(
                    "`inputSchema` is {}, not a JSON Schema object",
                    article(schema)
                ),
            )),
            Some(schema_object) => {
                let at = tool.key("inputSchema");
                match schema_object.get("type") {
                    None => found.push((
                        at,
                        "inputSchema",
                        "`inputSchema` has no `\"type\": \"object\"`, which the MCP specification requires".to_string(),
                    )),
                    Some(kind) if kind.as_str() != Some("object") => found.push((
                        at.key("type"),
                        "inputSchema",
                        format!(
                            "`inputSchema`'s `type` is {}, not `\"object\"`: a tool's arguments are always a JSON object",
                            shown(kind)
                        ),
                    )),
                    Some(_) => {}
                }
            }
        },
    }
    if let Some(output) = object
        .get("outputSchema")
        .filter(|s| s.as_object().is_none())
    {
        found.push((
            tool.key("outputSchema"),
            "outputSchema",
            format!(
                "`outputSchema` is {}, not a JSON Schema object",
                article(output)
            ),
        ));
    }
    found
}

/// A `type` value as a message quotes it: a string in quotes, anything else by its kind.
fn shown(kind: &Node) -> String {
    match kind.as_str() {
        Some(name) => format!("`\"{}\"`", name.escape_debug()),
        None => article(kind),
    }
}

#[cfg(test)]
mod tests {
    use super::problems;
    use crate::json::{Dialect, Limits, Pointer, parse};

    fn problems_of(tool: &str) -> Vec<String> {
        let node = parse(tool, Dialect::Json, &Limits::default()).expect("the test's tool is JSON");
        let object = node.as_object().expect("the test's tool is an object");
        problems(object, &Pointer::root())
            .into_iter()
            .map(|(at, field, problem)| format!("{} {field}: {problem}", at.as_str()))
            .collect()
    }

    #[test]
    fn a_schema_as_the_specification_asks_has_no_problem() {
        for ok in [
            r#"{"name": "a", "inputSchema": {"type": "object"}}"#,
            r#"{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}, "outputSchema": {"type": "array"}}"#,
        ] {
            assert_eq!(problems_of(ok), Vec::<String>::new(), "{ok}");
        }
    }

    #[test]
    fn every_way_a_schema_breaks_the_specification() {
        let cases = [
            (
                r#"{"name": "a"}"#,
                "/name inputSchema: has no `inputSchema`",
            ),
            (
                r#"{"name": "a", "inputSchema": "object"}"#,
                "/inputSchema inputSchema: `inputSchema` is a string",
            ),
            (
                r#"{"name": "a", "inputSchema": {"properties": {}}}"#,
                "/inputSchema inputSchema: `inputSchema` has no `\"type\": \"object\"`",
            ),
            (
                r#"{"name": "a", "inputSchema": {"type": "array"}}"#,
                "/inputSchema/type inputSchema: `inputSchema`'s `type` is `\"array\"`",
            ),
            (
                r#"{"name": "a", "inputSchema": {"type": ["object", "null"]}}"#,
                "/inputSchema/type inputSchema: `inputSchema`'s `type` is an array",
            ),
            (
                r#"{"name": "a", "inputSchema": {"type": "object"}, "outputSchema": true}"#,
                "/outputSchema outputSchema: `outputSchema` is a boolean",
            ),
        ];
        for (tool, want) in cases {
            let found = problems_of(tool);
            assert_eq!(found.len(), 1, "{tool}: {found:?}");
            assert!(found[0].starts_with(want), "{tool}: {found:?}");
        }
    }
}
