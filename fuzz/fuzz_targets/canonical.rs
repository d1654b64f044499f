//! Canonicalisation: for any input that parses, the digest does not change when object members
//! are reordered (keeping duplicates in their relative order, as "last wins" needs), and the
//! canonical and pretty forms parse back to the same canonical bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_scan::fingerprint::{Algorithm, node_digest};
use mcp_scan::json::canonical::{compare_keys, to_canonical_vec, to_pretty_string};
use mcp_scan::json::{Dialect, Limits, Node, Value, parse};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(root) = parse(text, Dialect::Json, &Limits::default()) else {
        return;
    };
    let canonical = to_canonical_vec(&root);
    let digest = node_digest(Algorithm::Sha256, &root);

    let mut reordered = root.clone();
    reverse_keys(&mut reordered);
    assert_eq!(
        to_canonical_vec(&reordered),
        canonical,
        "reordering changed the bytes"
    );
    assert_eq!(node_digest(Algorithm::Sha256, &reordered), digest);

    let canonical_text = std::str::from_utf8(&canonical).expect("canonical bytes are UTF-8");
    let again = parse(canonical_text, Dialect::Json, &Limits::default())
        .unwrap_or_else(|e| panic!("canonical form does not parse: {e}: {canonical_text}"));
    assert_eq!(
        to_canonical_vec(&again),
        canonical,
        "canonical form is not a fixed point"
    );

    let pretty = to_pretty_string(&root);
    let from_pretty = parse(&pretty, Dialect::Json, &Limits::default())
        .unwrap_or_else(|e| panic!("pretty form does not parse: {e}: {pretty}"));
    assert_eq!(
        to_canonical_vec(&from_pretty),
        canonical,
        "pretty form changed the value"
    );
});

/// Sorts every object's members by key, descending; the sort is stable, so members with the same
/// key keep their order and the last occurrence still wins.
fn reverse_keys(node: &mut Node) {
    match &mut node.value {
        Value::Array(items) => items.iter_mut().for_each(reverse_keys),
        Value::Object(object) => {
            object.members.sort_by(|a, b| compare_keys(&b.key, &a.key));
            for member in &mut object.members {
                reverse_keys(&mut member.value);
            }
        }
        _ => {}
    }
}
