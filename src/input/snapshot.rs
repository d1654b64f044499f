//! Recognising the shapes a recorded `tools/list` can take, and finding the tools inside.
//!
//! Accepted shapes:
//! - a JSON-RPC response `{"jsonrpc":"2.0","id":…,"result":{"tools":[…],"nextCursor":…}}`;
//! - a bare result `{"tools":[…]}`;
//! - mcp-scan's recording format: a bare result with provenance (`server`, `serverInfo`,
//!   `protocolVersion`, `capturedAt`);
//! - a bare array of tools `[{"name":…}, …]`;
//! - an array of pages, each a response or a bare result.
//!
//! Tools are never parsed into a struct: the tool object stays a JSON node with every field,
//! known or not, and is referred to by its pointer.

use super::ToolRef;
use crate::decode::{Decoder, article};
use crate::error::Error;
use crate::json::{Node, Object, Pointer};

/// What a parsed JSON file turned out to be.
#[derive(Debug, PartialEq)]
pub enum Shape {
    Snapshot(SnapshotShape),
    /// Valid JSON that is no snapshot (a `package.json` next to the snapshots): skipped, and said so.
    NotSnapshot(String),
}

#[derive(Debug, PartialEq)]
pub struct SnapshotShape {
    pub kind: SnapshotKind,
    /// The snapshot's own `server` field and where it is.
    pub server: Option<(String, Pointer)>,
    pub captured_at: Option<String>,
    pub tools: Vec<ToolRef>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotKind {
    JsonRpcResponse,
    BareResult,
    Recording,
    BareArray,
    Pages,
}

impl SnapshotKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SnapshotKind::JsonRpcResponse => "JSON-RPC response",
            SnapshotKind::BareResult => "tools/list result",
            SnapshotKind::Recording => "mcp-scan recording",
            SnapshotKind::BareArray => "array of tools",
            SnapshotKind::Pages => "array of pages",
        }
    }
}

/// Keys that mark mcp-scan's recording format (besides `tools`).
const RECORDING_KEYS: [&str; 4] = ["server", "serverInfo", "protocolVersion", "capturedAt"];

pub fn classify(root: &Node, decoder: &Decoder<'_>) -> Result<Shape, Error> {
    match root.as_object() {
        Some(obj) => classify_object(root, obj, decoder),
        None => match root.as_array() {
            Some(items) => classify_array(items, decoder),
            None => Ok(Shape::NotSnapshot(format!(
                "the top level is {}, not an object or an array",
                article(root)
            ))),
        },
    }
}

fn classify_object(root: &Node, obj: &Object, decoder: &Decoder<'_>) -> Result<Shape, Error> {
    if obj.get("jsonrpc").is_some() || obj.get("result").is_some() || obj.get("error").is_some() {
        let mut tools = Vec::new();
        read_response(root, obj, &Pointer::root(), decoder, &mut tools)?;
        return Ok(Shape::Snapshot(SnapshotShape {
            kind: SnapshotKind::JsonRpcResponse,
            server: None,
            captured_at: None,
            tools,
        }));
    }
    if obj.get("tools").is_none() {
        return Ok(Shape::NotSnapshot(
            "it has no `tools`, `result` or `jsonrpc` key".to_string(),
        ));
    }
    let recording = RECORDING_KEYS.iter().any(|k| obj.get(k).is_some());
    let server = match obj.get("server") {
        Some(node) => {
            let name = decoder.string(node, "`server`")?;
            if name.is_empty() {
                return Err(decoder.error(node, "`server` must not be empty"));
            }
            Some((name.to_string(), Pointer::root().key("server")))
        }
        None => None,
    };
    let captured_at = match obj.get("capturedAt") {
        Some(node) => Some(decoder.string(node, "`capturedAt`")?.to_string()),
        None => None,
    };
    let mut tools = Vec::new();
    read_result(root, obj, &Pointer::root(), decoder, &mut tools)?;
    Ok(Shape::Snapshot(SnapshotShape {
        kind: if recording {
            SnapshotKind::Recording
        } else {
            SnapshotKind::BareResult
        },
        server,
        captured_at,
        tools,
    }))
}

fn classify_array(items: &[Node], decoder: &Decoder<'_>) -> Result<Shape, Error> {
    // An array is pages when its first element looks like a response or result, tools otherwise;
    // every element must then agree, so a half-recognised file is an error, never half-read.
    let pages = items
        .first()
        .and_then(Node::as_object)
        .is_some_and(|first| {
            first.get("tools").is_some()
                || first.get("result").is_some()
                || first.get("jsonrpc").is_some()
        });
    let mut tools = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let pointer = Pointer::root().index(i);
        if pages {
            let what = format!("page {i}");
            let obj = decoder.object(item, &what)?;
            if obj.get("tools").is_some() {
                read_result(item, obj, &pointer, decoder, &mut tools)?;
            } else {
                read_response(item, obj, &pointer, decoder, &mut tools)?;
            }
        } else {
            tools.push(read_tool(item, pointer, decoder)?);
        }
    }
    Ok(Shape::Snapshot(SnapshotShape {
        kind: if pages {
            SnapshotKind::Pages
        } else {
            SnapshotKind::BareArray
        },
        server: None,
        captured_at: None,
        tools,
    }))
}

fn read_response(
    node: &Node,
    obj: &Object,
    pointer: &Pointer,
    decoder: &Decoder<'_>,
    tools: &mut Vec<ToolRef>,
) -> Result<(), Error> {
    if let Some(error) = obj.get("error") {
        let detail = error
            .as_object()
            .map(|e| {
                let code = e
                    .get("code")
                    .and_then(Node::as_number)
                    .map(|n| n.raw().to_string());
                let message = e.get("message").and_then(Node::as_str).unwrap_or("");
                format!(" (code {}: {message})", code.unwrap_or_else(|| "?".into()))
            })
            .unwrap_or_default();
        return Err(decoder.error(
            error,
            format!("this is a JSON-RPC error response{detail}, not a tools/list result"),
        ));
    }
    let result = decoder.required(node, obj, "result", "the JSON-RPC response")?;
    let result_obj = decoder.object(result, "`result`")?;
    read_result(result, result_obj, &pointer.key("result"), decoder, tools)
}

fn read_result(
    node: &Node,
    obj: &Object,
    pointer: &Pointer,
    decoder: &Decoder<'_>,
    tools: &mut Vec<ToolRef>,
) -> Result<(), Error> {
    let list = decoder.required(node, obj, "tools", "the tools/list result")?;
    let list = decoder.array(list, "`tools`")?;
    let tools_pointer = pointer.key("tools");
    tools.reserve(list.len());
    for (i, tool) in list.iter().enumerate() {
        tools.push(read_tool(tool, tools_pointer.index(i), decoder)?);
    }
    Ok(())
}

fn read_tool(node: &Node, pointer: Pointer, decoder: &Decoder<'_>) -> Result<ToolRef, Error> {
    let obj = decoder.object(node, &format!("the tool at `{pointer}`"))?;
    let name_node = decoder.required(node, obj, "name", &format!("the tool at `{pointer}`"))?;
    let name = decoder.string(name_node, "a tool's `name`")?;
    Ok(ToolRef {
        name: name.to_string(),
        pointer,
        span: Some(node.span),
        name_span: decoder.place(name_node),
        description_span: obj
            .get("description")
            .filter(|d| d.as_str().is_some())
            .map(|d| d.span),
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::json::{Dialect, Limits, Span, parse};

    fn shape(text: &str) -> Result<Shape, String> {
        let root = parse(text, Dialect::Json, &Limits::default()).map_err(|e| e.message)?;
        classify(&root, &Decoder::placing(Path::new("s.json"), text)).map_err(|e| e.to_string())
    }

    fn tools_of(text: &str) -> (SnapshotKind, Vec<String>) {
        match shape(text) {
            Ok(Shape::Snapshot(s)) => (
                s.kind,
                s.tools
                    .iter()
                    .map(|t| format!("{}@{}", t.name, t.pointer))
                    .collect(),
            ),
            other => panic!("not a snapshot: {other:?}"),
        }
    }

    #[test]
    fn recognises_every_shape() {
        let cases: &[(&str, SnapshotKind, &[&str])] = &[
            (
                r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}],"nextCursor":"x"}}"#,
                SnapshotKind::JsonRpcResponse,
                &["a@/result/tools/0"],
            ),
            (
                r#"{"tools":[{"name":"a"},{"name":"b"}]}"#,
                SnapshotKind::BareResult,
                &["a@/tools/0", "b@/tools/1"],
            ),
            (
                r#"{"server":"s","capturedAt":"2026-01-01T00:00:00Z","tools":[{"name":"a"}]}"#,
                SnapshotKind::Recording,
                &["a@/tools/0"],
            ),
            (r#"[{"name":"a"}]"#, SnapshotKind::BareArray, &["a@/0"]),
            (
                r#"[{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}},{"tools":[{"name":"b"}]}]"#,
                SnapshotKind::Pages,
                &["a@/0/result/tools/0", "b@/1/tools/0"],
            ),
        ];
        for (text, kind, tools) in cases {
            let (got_kind, got_tools) = tools_of(text);
            assert_eq!(got_kind, *kind, "{text}");
            assert_eq!(got_tools, *tools, "{text}");
        }
    }

    #[test]
    fn records_where_each_tool_its_name_and_description_sit() {
        let text =
            r#"{"tools":[{"description":"Reads \"x\".","name":"read"},{"name":"b\u0061d"}]}"#;
        let Ok(Shape::Snapshot(snapshot)) = shape(text) else {
            panic!("not a snapshot");
        };
        let at = |span: Option<Span>| span.and_then(|s| text.get(s.start..s.end));
        let placed = |span: Option<&crate::finding::Span>| {
            span.and_then(|s| text.get(s.start_byte..s.end_byte))
        };
        let spans: Vec<_> = snapshot
            .tools
            .iter()
            .map(|t| {
                (
                    at(t.span),
                    placed(t.name_span.as_deref()),
                    at(t.description_span),
                )
            })
            .collect();
        assert_eq!(
            spans,
            [
                (
                    Some(r#"{"description":"Reads \"x\".","name":"read"}"#),
                    Some(r#""read""#),
                    Some(r#""Reads \"x\".""#)
                ),
                (Some(r#"{"name":"b\u0061d"}"#), Some(r#""b\u0061d""#), None),
            ]
        );
    }

    /// Names are placed in lines and columns as the file is read, page after page.
    #[test]
    fn places_each_tool_name_in_lines_and_columns() {
        let text = "[\n {\"tools\": [\n  {\"name\": \"a\"},\n  {\"title\": \"é\", \"name\": \"bé\"}\n ]},\n {\"tools\": [{\"name\": \"c\"}]}\n]\n";
        let Ok(Shape::Snapshot(snapshot)) = shape(text) else {
            panic!("not a snapshot");
        };
        let placed: Vec<_> = snapshot
            .tools
            .iter()
            .filter_map(|t| t.name_span.as_deref())
            .map(|s| (s.line, s.column, s.end_line, s.end_column))
            .collect();
        assert_eq!(placed, [(3, 12, 3, 15), (4, 26, 4, 30), (6, 22, 6, 25)]);
    }

    #[test]
    fn rejects_malformed_snapshots_with_positions() {
        let cases = [
            (
                r#"{"tools":{}}"#,
                "s.json:1:10: `tools` must be an array, found an object",
            ),
            (
                r#"{"tools":[{"title":"x"}]}"#,
                "s.json:1:11: the tool at `/tools/0` has no `name`",
            ),
            (
                r#"{"tools":[{"name":7}]}"#,
                "s.json:1:19: a tool's `name` must be a string, found a number",
            ),
            (
                r#"{"tools":["x"]}"#,
                "s.json:1:11: the tool at `/tools/0` must be an object, found a string",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
                "s.json:1:33: this is a JSON-RPC error response (code -32601: Method not found), not a tools/list result",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1}"#,
                "s.json:1:1: the JSON-RPC response has no `result`",
            ),
            (
                r#"{"server":3,"tools":[]}"#,
                "s.json:1:11: `server` must be a string, found a number",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(shape(text).unwrap_err(), want, "{text}");
        }
    }

    #[test]
    fn other_json_is_not_a_snapshot() {
        assert!(matches!(
            shape(r#"{"name":"pkg"}"#),
            Ok(Shape::NotSnapshot(_))
        ));
        assert!(matches!(shape(r#""text""#), Ok(Shape::NotSnapshot(_))));
    }
}
