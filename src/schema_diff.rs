//! Does a changed `inputSchema` widen what the agent is asked to send?
//!
//! Widening is what exfiltration needs: a new property to carry data, a `required` entry dropped
//! so a field becomes optional, an `enum` that accepts new values, a `type` that accepts more,
//! `additionalProperties` opened. Narrowing changes are still drift, just not widening.

use crate::json::canonical::to_canonical_vec;
use crate::json::{Node, Value};

/// Human-readable widenings from `before` to `after`, in schema order; empty when none.
pub fn widenings(before: &Node, after: &Node) -> Vec<String> {
    let mut out = Vec::new();
    walk(before, after, "", &mut out);
    out
}

fn walk(before: &Node, after: &Node, at: &str, out: &mut Vec<String>) {
    let (Some(b), Some(a)) = (before.as_object(), after.as_object()) else {
        return;
    };
    let place = |what: &str| {
        if at.is_empty() {
            what.to_string()
        } else {
            format!("{what} of `{at}`")
        }
    };

    let types_before = types(b.get("type"));
    let types_after = types(a.get("type"));
    if let Some(tb) = &types_before {
        match &types_after {
            None => out.push(format!(
                "{} loosened: `{}` → any",
                place("type"),
                tb.join("|")
            )),
            Some(ta) if ta.iter().any(|t| !accepts(tb, t)) => {
                out.push(format!(
                    "{} loosened: `{}` → `{}`",
                    place("type"),
                    tb.join("|"),
                    ta.join("|")
                ));
            }
            _ => {}
        }
    }

    if let (Some(eb), ea) = (
        b.get("enum").and_then(Node::as_array),
        a.get("enum").and_then(Node::as_array),
    ) {
        match ea {
            None => out.push(format!("{} removed: any value accepted", place("enum"))),
            Some(ea) => {
                let before_values: Vec<Vec<u8>> = eb.iter().map(to_canonical_vec).collect();
                let added: Vec<String> = ea
                    .iter()
                    .filter(|v| !before_values.contains(&to_canonical_vec(v)))
                    .map(|v| String::from_utf8_lossy(&to_canonical_vec(v)).into_owned())
                    .collect();
                if !added.is_empty() {
                    out.push(format!(
                        "{} widened: adds {}",
                        place("enum"),
                        added.join(", ")
                    ));
                }
            }
        }
    }

    let closed = |node: Option<&Node>| matches!(node.map(|n| &n.value), Some(Value::Bool(false)));
    if closed(b.get("additionalProperties")) && !closed(a.get("additionalProperties")) {
        out.push(if at.is_empty() {
            "additionalProperties opened".to_string()
        } else {
            format!("additionalProperties opened on `{at}`")
        });
    }

    let required = |n: Option<&Node>| -> Vec<String> {
        n.and_then(Node::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Node::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let required_after = required(a.get("required"));
    for name in required(b.get("required")) {
        if !required_after.contains(&name) {
            out.push(format!("`{}` no longer required", join(at, &name)));
        }
    }

    let props_before = b.get("properties").and_then(Node::as_object);
    if let Some(props_after) = a.get("properties").and_then(Node::as_object) {
        for member in props_after.iter_unique() {
            let path = join(at, &member.key);
            match props_before.and_then(|p| p.get(&member.key)) {
                None => out.push(format!("property `{path}` added")),
                Some(prev) => walk(prev, &member.value, &path, out),
            }
        }
    }
    if let (Some(ib), Some(ia)) = (b.get("items"), a.get("items")) {
        walk(ib, ia, &join(at, "[]"), out);
    }
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_string()
    } else if name == "[]" {
        format!("{at}[]")
    } else {
        format!("{at}.{name}")
    }
}

/// Whether a schema of `types` already accepts every value of type `t` (`integer` ⊂ `number`).
fn accepts(types: &[String], t: &str) -> bool {
    types
        .iter()
        .any(|x| x == t || (t == "integer" && x == "number"))
}

fn types(node: Option<&Node>) -> Option<Vec<String>> {
    let node = node?;
    match &node.value {
        Value::String(s) => Some(vec![s.to_string()]),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(Node::as_str)
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::widenings;
    use crate::json::{Dialect, Limits, parse};

    fn run(before: &str, after: &str) -> Vec<String> {
        let b = parse(before, Dialect::Json, &Limits::default()).unwrap();
        let a = parse(after, Dialect::Json, &Limits::default()).unwrap();
        widenings(&b, &a)
    }

    #[test]
    fn finds_each_kind_of_widening() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                r#"{"type":"object","properties":{"q":{"type":"string"}}}"#,
                r#"{"type":"object","properties":{"q":{"type":"string"},"notes":{"type":"string"}}}"#,
                &["property `notes` added"],
            ),
            (
                r#"{"type":"object","required":["q","n"]}"#,
                r#"{"type":"object","required":["q"]}"#,
                &["`n` no longer required"],
            ),
            (
                r#"{"properties":{"mode":{"enum":["r","w"]}}}"#,
                r#"{"properties":{"mode":{"enum":["r","w","x"]}}}"#,
                &["enum of `mode` widened: adds \"x\""],
            ),
            (
                r#"{"properties":{"n":{"type":"integer"}}}"#,
                r#"{"properties":{"n":{"type":["integer","string"]}}}"#,
                &["type of `n` loosened: `integer` → `integer|string`"],
            ),
            (
                r#"{"properties":{"n":{"type":"integer"}}}"#,
                r#"{"properties":{"n":{}}}"#,
                &["type of `n` loosened: `integer` → any"],
            ),
            (
                r#"{"type":"object","additionalProperties":false}"#,
                r#"{"type":"object"}"#,
                &["additionalProperties opened"],
            ),
            (
                r#"{"properties":{"o":{"type":"object","additionalProperties":false}}}"#,
                r#"{"properties":{"o":{"type":"object","additionalProperties":true}}}"#,
                &["additionalProperties opened on `o`"],
            ),
            (
                r#"{"properties":{"list":{"items":{"properties":{"a":{}}}}}}"#,
                r#"{"properties":{"list":{"items":{"properties":{"a":{},"b":{}}}}}}"#,
                &["property `list[].b` added"],
            ),
        ];
        for (before, after, want) in cases {
            assert_eq!(run(before, after), *want, "{before} -> {after}");
        }
    }

    #[test]
    fn narrowing_is_not_widening() {
        let cases = [
            (
                r#"{"properties":{"a":{},"b":{}}}"#,
                r#"{"properties":{"a":{}}}"#,
            ),
            (r#"{"required":["a"]}"#, r#"{"required":["a","b"]}"#),
            (
                r#"{"properties":{"m":{"enum":["r","w"]}}}"#,
                r#"{"properties":{"m":{"enum":["r"]}}}"#,
            ),
            (
                r#"{"properties":{"n":{"type":"number"}}}"#,
                r#"{"properties":{"n":{"type":"integer"}}}"#,
            ),
            (
                r#"{"properties":{"q":{"description":"old"}}}"#,
                r#"{"properties":{"q":{"description":"new"}}}"#,
            ),
        ];
        for (before, after) in cases {
            assert!(run(before, after).is_empty(), "{before} -> {after}");
        }
    }
}
