use std::collections::BTreeSet;

use proptest::prelude::*;

use super::*;
use crate::json::{Dialect, Limits, parse};

fn tool(text: &str) -> Object {
    parse(text, Dialect::Json, &Limits::default())
        .unwrap()
        .as_object()
        .unwrap()
        .clone()
}

const FIXTURE: &str = r#"{
  "name": "search_issues",
  "title": "Search issues",
  "description": "Search issues by text.\nReturns at most 50 results.",
  "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer", "default": 50}}, "required": ["q"]},
  "annotations": {"readOnlyHint": true, "openWorldHint": true},
  "execution": {"taskSupport": "forbidden"},
  "x-vendor": {"tier": 2},
  "_meta": {"com.example/trace": "abc"}
}"#;

#[test]
fn pins_the_digests_of_a_fixture() {
    let digest = ToolDigest::of(&tool(FIXTURE), &FingerprintOptions::default());
    let canonical = crate::json::canonical::to_canonical_vec(&hashed_definition(
        &tool(FIXTURE),
        &FingerprintOptions::default(),
    ));
    insta::assert_snapshot!(String::from_utf8(canonical).unwrap());
    insta::assert_debug_snapshot!(digest);
    // What a scan computes is the same digest, and what an approval computes the same fields.
    assert_eq!(
        tool_digest(&tool(FIXTURE), &FingerprintOptions::default()),
        digest.digest
    );
    let options = FingerprintOptions::default();
    let fields = with_canonical(&tool(FIXTURE), &options, |bytes, members| {
        field_digests(options.algorithm, bytes, members)
    });
    assert_eq!(fields, digest.fields);
}

#[test]
fn sha512_is_labelled_and_longer() {
    let options = FingerprintOptions {
        algorithm: Algorithm::Sha512,
        ..FingerprintOptions::default()
    };
    let digest = ToolDigest::of(&tool(FIXTURE), &options).digest.to_string();
    assert!(digest.starts_with("sha512:"));
    assert_eq!(digest.len(), "sha512:".len() + 128);
}

#[test]
fn meta_and_excluded_fields_do_not_count() {
    let base = ToolDigest::of(&tool(FIXTURE), &FingerprintOptions::default());
    let other_meta = FIXTURE.replace("\"abc\"", "\"xyz\"");
    assert_eq!(
        ToolDigest::of(&tool(&other_meta), &FingerprintOptions::default()),
        base
    );

    let no_annotations = FingerprintOptions {
        exclude: BTreeSet::from(["annotations".to_string()]),
        ..FingerprintOptions::default()
    };
    let a = ToolDigest::of(&tool(FIXTURE), &no_annotations);
    let b = ToolDigest::of(
        &tool(&FIXTURE.replace("\"readOnlyHint\": true", "\"readOnlyHint\": false")),
        &no_annotations,
    );
    assert_eq!(a, b);
    assert!(a.fields.get("annotations").is_none());
    assert_ne!(a.digest, base.digest);
}

#[test]
fn field_digests_name_what_changed() {
    let base = ToolDigest::of(&tool(FIXTURE), &FingerprintOptions::default());
    let changed = ToolDigest::of(
        &tool(&FIXTURE.replace("at most 50", "at most 51")),
        &FingerprintOptions::default(),
    );
    let differing: Vec<&str> = base
        .fields
        .keys()
        .filter(|k| base.fields.get(k) != changed.fields.get(k))
        .collect();
    assert_eq!(differing, ["description"]);
    let vendor = ToolDigest::of(
        &tool(&FIXTURE.replace("\"tier\": 2", "\"tier\": 3")),
        &FingerprintOptions::default(),
    );
    assert_ne!(vendor.fields.get(REST), base.fields.get(REST));
}

#[test]
fn number_spelling_does_not_matter() {
    let a = tool(r#"{"name":"t","inputSchema":{"maximum":1,"minimum":0.5}}"#);
    let b = tool(r#"{"name":"t","inputSchema":{"maximum":1.0e0,"minimum":5E-1}}"#);
    let options = FingerprintOptions::default();
    assert_eq!(ToolDigest::of(&a, &options), ToolDigest::of(&b, &options));
    let big = tool(r#"{"name":"t","inputSchema":{"maximum":9007199254740993}}"#);
    let rounded = tool(r#"{"name":"t","inputSchema":{"maximum":9007199254740992}}"#);
    assert_ne!(
        ToolDigest::of(&big, &options),
        ToolDigest::of(&rounded, &options)
    );
}

/// A JSON value small enough to shrink well, rich enough to cover every node kind.
/// A server digest is the digest of the canonical object of its tools' names and digests:
/// names that sort otherwise by bytes than canonically (UTF-16), that need escaping, given
/// twice (the last counts), and digests kept as text.
#[test]
fn a_server_digest_hashes_the_canonical_object_of_its_tools() {
    let d = DigestText::parse;
    let tools = [
        ("b", d("sha256:00")),
        ("\u{ff61}", d(&written(Algorithm::Sha256, &[1; 32]))),
        ("\u{10000}", d("SHA256:X")),
        ("a \"quoted\"\n", d("sha256:\"")),
        ("b", d(&written(Algorithm::Sha256, &[2; 32]))),
        ("é", d("")),
    ];
    let object = Object::from_pairs(
        tools
            .iter()
            .map(|(name, digest)| (*name, Node::string(digest.to_string()))),
    );
    for algorithm in [Algorithm::Sha256, Algorithm::Sha512] {
        let direct = server_digest(algorithm, tools.iter().map(|(n, d)| (*n, d)));
        assert_eq!(
            direct,
            node_digest(algorithm, &Node::object(object.clone()))
        );
    }
    assert_eq!(
        server_digest(Algorithm::Sha256, []),
        node_digest(Algorithm::Sha256, &Node::object(Object::default()))
    );
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i32>().prop_map(|n| serde_json::json!(n)),
        "[a-z \u{200b}\u{e0041}é中😀\"\\\\\n]{0,8}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            prop::collection::btree_map("[a-zA-Z_]{1,6}", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Serialises with object keys in reverse order and random-ish whitespace.
fn write_reordered(value: &serde_json::Value, out: &mut String, spaced: bool) {
    let gap = if spaced { " \n\t" } else { "" };
    match value {
        serde_json::Value::Object(map) => {
            out.push('{');
            let mut first = true;
            for (k, v) in map.iter().rev() {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(gap);
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push_str(gap);
                out.push(':');
                write_reordered(v, out, spaced);
            }
            out.push_str(gap);
            out.push('}');
        }
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(gap);
                write_reordered(v, out, spaced);
            }
            out.push(']');
        }
        serde_json::Value::Number(n) if spaced => {
            // Same value, other spelling.
            out.push_str(&format!("{n}.0e0"));
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

fn tool_with(extra: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({"name": "t", "description": "d", "inputSchema": extra})
}

fn digest_of_text(text: &str) -> ToolDigest {
    ToolDigest::of(&tool(text), &FingerprintOptions::default())
}

/// Every string in the value, in traversal order.
fn strings(value: &serde_json::Value, out: &mut Vec<serde_json::Value>) {
    match value {
        serde_json::Value::String(_) => out.push(value.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Applies `edit` to the `n`th string of the value (in traversal order).
fn edit_nth_string(
    value: &mut serde_json::Value,
    n: &mut usize,
    edit: &dyn Fn(&str) -> String,
) -> bool {
    match value {
        serde_json::Value::String(s) => {
            if *n == 0 {
                *s = edit(s);
                return true;
            }
            *n -= 1;
            false
        }
        serde_json::Value::Array(items) => items.iter_mut().any(|v| edit_nth_string(v, n, edit)),
        serde_json::Value::Object(map) => map.values_mut().any(|v| edit_nth_string(v, n, edit)),
        _ => false,
    }
}

proptest! {
    #[test]
    fn key_order_whitespace_and_number_spelling_never_change_a_digest(extra in json_value()) {
        let value = tool_with(&extra);
        let plain = serde_json::to_string(&value).unwrap();
        let mut reordered = String::new();
        write_reordered(&value, &mut reordered, true);
        prop_assert_eq!(digest_of_text(&plain), digest_of_text(&reordered));
    }

    #[test]
    fn tool_order_never_changes_a_server_digest(names in prop::collection::btree_set("[a-z]{1,6}", 1..6)) {
        let pairs: Vec<(String, DigestText)> = names.iter().map(|n| (n.clone(), DigestText::parse(&format!("sha256:{n}")))).collect();
        let forward = server_digest(Algorithm::Sha256, pairs.iter().map(|(a, b)| (a.as_str(), b)));
        let backward = server_digest(Algorithm::Sha256, pairs.iter().rev().map(|(a, b)| (a.as_str(), b)));
        prop_assert_eq!(forward, backward);
    }

    #[test]
    fn any_one_character_change_in_any_string_changes_the_digest(
        extra in json_value(),
        pick in any::<prop::sample::Index>(),
        insert in prop_oneof![Just('\u{200b}'), Just('\u{e0041}'), Just('x'), Just('\u{202e}'), Just(' ')],
    ) {
        let value = tool_with(&extra);
        let mut all = Vec::new();
        strings(&value, &mut all);
        let n = pick.index(all.len());
        let mut changed = value.clone();
        let mut counter = n;
        // Insert the character before a chosen char (or at the end): always a one-character change.
        let at = pick.index(64);
        let edited = edit_nth_string(&mut changed, &mut counter, &|s| {
            let cut = s.char_indices().map(|(i, _)| i).nth(at).unwrap_or(s.len());
            format!("{}{insert}{}", &s[..cut], &s[cut..])
        });
        prop_assert!(edited);
        let before = digest_of_text(&serde_json::to_string(&value).unwrap());
        let after = digest_of_text(&serde_json::to_string(&changed).unwrap());
        prop_assert_ne!(before.digest, after.digest);
    }
}

/// Comparing a hash with a stored digest says what writing it and comparing the strings would.
#[test]
fn comparing_a_digest_agrees_with_writing_it() {
    let hash = [0x0f, 0xa0, 0x5b];
    let exact = written(Algorithm::Sha256, &hash);
    assert_eq!(exact, "sha256:0fa05b");
    assert!(is_written(Algorithm::Sha256, &hash, &exact));
    for other in [
        exact.to_uppercase(),
        "sha512:0fa05b".to_string(),
        "sha256:0fa05".to_string(),
        "sha256:0fa05b0".to_string(),
        "sha256:0fa05c".to_string(),
        "sha2560fa05b".to_string(),
        String::new(),
    ] {
        assert!(!is_written(Algorithm::Sha256, &hash, &other), "{other}");
    }
}
