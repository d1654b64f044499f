//! The strings of a tool a model reads, each with its target kind and exact JSON pointer.
//!
//! Schemas nest (`properties`, `items`, `anyOf`, `$defs`, …), so the walk is generic: inside a
//! schema, `title`/`description` are text, `default`/`const`/`enum`/`examples` hold values
//! (every string inside is text), the keys of `properties`/`patternProperties` are property
//! names, and every other object or array is walked as a sub-schema.

use crate::json::{Node, Object, Pointer, Value};
use crate::rules::TargetKind;

/// One string of a tool. `is_key`: the string is a property name (point at the key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetString<'t> {
    pub kind: TargetKind,
    pub pointer: Pointer,
    pub text: &'t str,
    pub is_key: bool,
}

/// Every target string of the tool object at `at`, in document order.
pub fn tool_strings<'t>(tool: &'t Object, at: &Pointer) -> Vec<TargetString<'t>> {
    let mut out = Vec::new();
    let mut text = |kind, pointer: Pointer, node: &'t Node| {
        if let Some(text) = node.as_str() {
            out.push(TargetString {
                kind,
                pointer,
                text,
                is_key: false,
            });
        }
    };
    for (key, kind) in [
        ("name", TargetKind::Name),
        ("title", TargetKind::Title),
        ("description", TargetKind::Description),
    ] {
        if let Some(node) = tool.get(key) {
            text(kind, at.key(key), node);
        }
    }
    if let Some(title) = tool.get("annotations").and_then(|a| a.get("title")) {
        text(
            TargetKind::AnnotationTitle,
            at.key("annotations").key("title"),
            title,
        );
    }
    for key in ["inputSchema", "outputSchema"] {
        if let Some(schema) = tool.get(key) {
            walk_schema(schema, at.key(key), &mut out);
        }
    }
    out
}

fn walk_schema<'t>(node: &'t Node, at: Pointer, out: &mut Vec<TargetString<'t>>) {
    match &node.value {
        Value::Object(object) => {
            for member in object.iter_unique() {
                let here = at.key(&member.key);
                match member.key.as_str() {
                    "title" | "description" if member.value.as_str().is_some() => {
                        walk_values(&member.value, here, out);
                    }
                    "default" | "const" | "enum" | "examples" => {
                        walk_values(&member.value, here, out);
                    }
                    "properties" | "patternProperties" => {
                        let Some(properties) = member.value.as_object() else {
                            continue;
                        };
                        for property in properties.iter_unique() {
                            let pointer = here.key(&property.key);
                            out.push(TargetString {
                                kind: TargetKind::PropertyName,
                                pointer: pointer.clone(),
                                text: &property.key,
                                is_key: true,
                            });
                            walk_schema(&property.value, pointer, out);
                        }
                    }
                    _ => walk_schema(&member.value, here, out),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk_schema(item, at.index(i), out);
            }
        }
        _ => {}
    }
}

/// Every string inside a value (`enum: [...]`, an object `default`, …) is schema text.
fn walk_values<'t>(node: &'t Node, at: Pointer, out: &mut Vec<TargetString<'t>>) {
    match &node.value {
        Value::String(text) => out.push(TargetString {
            kind: TargetKind::SchemaText,
            pointer: at,
            text,
            is_key: false,
        }),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk_values(item, at.index(i), out);
            }
        }
        Value::Object(object) => {
            for member in object.iter_unique() {
                walk_values(&member.value, at.key(&member.key), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Dialect, Limits, parse};

    #[test]
    fn walks_every_string_a_model_reads() {
        let text = r#"{"name":"t","title":"T","description":"d","annotations":{"title":"A"},
            "inputSchema":{"type":"object","description":"s",
              "properties":{"path":{"type":"string","default":"x","enum":["a","b"]},
                            "title":{"type":"string","description":"a property called title"}},
              "$defs":{"n":{"anyOf":[{"const":"c"}],"examples":[{"k":"e"}]}}},
            "outputSchema":{"items":{"title":"o"}}}"#;
        let root = parse(text, Dialect::Json, &Limits::default()).unwrap();
        let tool = root.as_object().unwrap();
        let got: Vec<String> = tool_strings(tool, &Pointer::root())
            .iter()
            .map(|s| format!("{} {} {}", s.kind.as_str(), s.pointer, s.text))
            .collect();
        assert_eq!(
            got,
            [
                "name /name t",
                "title /title T",
                "description /description d",
                "annotation-title /annotations/title A",
                "schema-text /inputSchema/description s",
                "property-name /inputSchema/properties/path path",
                "schema-text /inputSchema/properties/path/default x",
                "schema-text /inputSchema/properties/path/enum/0 a",
                "schema-text /inputSchema/properties/path/enum/1 b",
                "property-name /inputSchema/properties/title title",
                "schema-text /inputSchema/properties/title/description a property called title",
                "schema-text /inputSchema/$defs/n/anyOf/0/const c",
                "schema-text /inputSchema/$defs/n/examples/0/k e",
                "schema-text /outputSchema/items/title o",
            ]
        );
    }
}
