//! Span mapping: for every string literal and every range of its decoded text on character
//! boundaries, `raw_span` gives a span inside the literal, on character boundaries of the source,
//! whose raw text decodes to something containing the decoded range; and every offset has a
//! line/column.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_scan::json::escape_map::raw_span;
use mcp_scan::json::lines::LineIndex;
use mcp_scan::json::{Dialect, Limits, Node, Span, Value, parse};

/// Strings longer than this are checked at a sample of boundaries (all pairs would be quadratic).
const ALL_PAIRS_UP_TO: usize = 24;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = LineIndex::new(text);
    for offset in 0..=text.len() + 1 {
        let _ = lines.position(text, offset);
    }
    let Ok(root) = parse(text, Dialect::Json, &Limits::default()) else {
        return;
    };
    let mut strings = Vec::new();
    collect_strings(&root, &mut strings);
    for (decoded, literal) in strings {
        check_literal(text, &decoded, literal);
    }
});

fn collect_strings(node: &Node, out: &mut Vec<(String, Span)>) {
    match &node.value {
        Value::String(s) => out.push((s.clone(), node.span)),
        Value::Array(items) => items.iter().for_each(|item| collect_strings(item, out)),
        Value::Object(object) => {
            for member in &object.members {
                out.push((member.key.clone(), member.key_span));
                collect_strings(&member.value, out);
            }
        }
        _ => {}
    }
}

fn check_literal(source: &str, decoded: &str, literal: Span) {
    let mut bounds: Vec<usize> = (0..=decoded.len())
        .filter(|&i| decoded.is_char_boundary(i))
        .collect();
    if bounds.len() > ALL_PAIRS_UP_TO {
        let step = bounds.len() / ALL_PAIRS_UP_TO;
        bounds = bounds
            .into_iter()
            .step_by(step)
            .chain([decoded.len()])
            .collect();
    }
    for (i, &start) in bounds.iter().enumerate() {
        for &end in &bounds[i..] {
            let span = raw_span(source, literal, start..end)
                .unwrap_or_else(|| panic!("no span for {start}..{end} of {decoded:?}"));
            assert!(
                literal.start < span.start && span.start <= span.end && span.end < literal.end,
                "{span:?} outside {literal:?}"
            );
            let raw = source
                .get(span.start..span.end)
                .expect("on character boundaries");
            let reparsed = parse(&format!("\"{raw}\""), Dialect::Json, &Limits::default())
                .unwrap_or_else(|e| panic!("{raw:?} is not a whole string fragment: {e}"));
            let widened = reparsed.as_str().expect("a string");
            assert!(
                widened.contains(&decoded[start..end]),
                "{raw:?} decodes to {widened:?}, missing {:?}",
                &decoded[start..end]
            );
        }
    }
}
