//! What a pointer names in a JSON text, found without building the text's tree: every value
//! off the pointer's path is stepped over. `check` frees each file's tree once that file's own
//! checks have run; what a later check reports in the file (a name collision, a drifted field)
//! is located, and a drifted tool read again, this way.
//!
//! The text must be one that [`super::parse`] accepted as JSON (no comments): values are
//! skipped by balancing brackets outside strings, and only the value found is ever parsed.
//! Resolution follows [`super::pointer`]: the last member with a key, a decimal array index.

use super::pointer::array_index;
use super::{Dialect, Limits, Pointer, Span, parse_value_at, raw_string_end};

/// Where a pointer's value sits, and the key that leads to it (`None` for the root and array
/// elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    pub key: Option<Span>,
    pub value: Span,
}

/// The value `pointer` names in `text`; `None` when it names nothing.
pub fn seek(text: &str, pointer: &Pointer) -> Option<Found> {
    let bytes = text.as_bytes();
    let mut at = skip_ws(bytes, if text.starts_with('\u{FEFF}') { 3 } else { 0 });
    let mut key = None;
    for token in pointer.tokens() {
        let (next_key, value) = match bytes.get(at)? {
            b'{' => member(text, at, &token)?,
            b'[' => (None, element(bytes, at, array_index(&token)?)?),
            _ => return None,
        };
        key = next_key;
        at = value;
    }
    Some(Found {
        key,
        value: Span {
            start: at,
            end: value_end(bytes, at)?,
        },
    })
}

/// The key span and value offset of the last member named `token` of the object at `open`.
fn member(text: &str, open: usize, token: &str) -> Option<(Option<Span>, usize)> {
    let bytes = text.as_bytes();
    let mut found = None;
    let mut at = skip_ws(bytes, open + 1);
    if bytes.get(at) == Some(&b'}') {
        return None;
    }
    loop {
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key = Span {
            start: at,
            end: raw_string_end(bytes, at)?,
        };
        at = skip_ws(bytes, key.end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let value = skip_ws(bytes, at + 1);
        if key_is(text, key, token)? {
            found = Some((Some(key), value));
        }
        at = skip_ws(bytes, value_end(bytes, value)?);
        match bytes.get(at)? {
            b',' => at = skip_ws(bytes, at + 1),
            b'}' => return found,
            _ => return None,
        }
    }
}

/// Whether the key literal at `key` decodes to `token`: compared raw unless it has escapes.
fn key_is(text: &str, key: Span, token: &str) -> Option<bool> {
    let raw = text.get(key.start + 1..key.end - 1)?;
    if !raw.contains('\\') {
        return Some(raw == token);
    }
    let decoded = parse_value_at(text, key, Dialect::Json, &Limits::default(), None).ok()?;
    Some(decoded.as_str()? == token)
}

/// The offset of element `index` of the array at `open`.
fn element(bytes: &[u8], open: usize, index: usize) -> Option<usize> {
    let mut at = skip_ws(bytes, open + 1);
    if bytes.get(at) == Some(&b']') {
        return None;
    }
    for _ in 0..index {
        at = skip_ws(bytes, value_end(bytes, at)?);
        if bytes.get(at) != Some(&b',') {
            return None;
        }
        at = skip_ws(bytes, at + 1);
    }
    Some(at)
}

/// The offset just past the value that starts at `start`.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    match bytes.get(start)? {
        b'"' => raw_string_end(bytes, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = start;
            loop {
                match bytes.get(at)? {
                    b'"' => {
                        at = raw_string_end(bytes, at)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        _ => {
            let len = bytes
                .get(start..)?
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                .unwrap_or(bytes.len() - start);
            Some(start + len)
        }
    }
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::json::pointer::{resolve, resolve_key_span};

    /// Whatever the tree resolves a pointer to, seeking finds at the same spans; and what the
    /// tree does not resolve, seeking does not find.
    #[test]
    fn finds_what_the_tree_resolves() {
        let text = "\u{FEFF} {\"tools\": [ {\"name\": \"a\", \"x\": {\"}\": \"]\\\"{\"}, \"n\": -1.5e3},\n\
            {\"name\":\"b\",\"description\":\"d\",\"name\":\"b2\", \"a/b\": [true, null, [1, [2]]],\
            \"t~\": {}, \"\\u0065\": 7, \"\": []}], \"k\": \"v\" }";
        let root = parse(text, Dialect::Json, &Limits::default()).unwrap();
        let pointers = [
            "",
            "/tools",
            "/tools/0",
            "/tools/0/name",
            "/tools/0/x",
            "/tools/0/x/}",
            "/tools/0/n",
            "/tools/1",
            "/tools/1/name",
            "/tools/1/description",
            "/tools/1/a~1b",
            "/tools/1/a~1b/2/1/0",
            "/tools/1/t~0",
            "/tools/1/e",
            "/tools/1/",
            "/k",
            // Nothing there:
            "/tools/2",
            "/tools/01",
            "/tools/-",
            "/tools/0/name/0",
            "/nope",
            "/k/0",
            "/tools/1/a~1b/3",
            "/tools/1//0",
        ];
        for pointer in pointers {
            let p = Pointer::parse(pointer).unwrap();
            let want = resolve(&root, &p).map(|node| Found {
                key: resolve_key_span(&root, &p),
                value: node.span,
            });
            assert_eq!(seek(text, &p), want, "{pointer}");
        }
        assert!(seek(text, &Pointer::parse("/tools/1/name").unwrap()).is_some());
    }

    #[test]
    fn malformed_or_truncated_text_finds_nothing() {
        let p = Pointer::parse("/a/1").unwrap();
        for text in [
            "",
            "{",
            "{\"a\": [",
            "{\"a\" [1, 2]}",
            "{\"a\": [1 2]}",
            "[1, 2]",
            "{\"a\": \"x",
            "{a: [1, 2]}",
            "{\"a\": [1, {]",
        ] {
            assert_eq!(seek(text, &p), None, "{text}");
        }
    }
}
