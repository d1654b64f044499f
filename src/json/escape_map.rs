//! Maps byte ranges of a decoded string back to its raw source literal.
//!
//! Detectors search decoded text (so `\u0049gnore` is seen as `Ignore`), but
//! findings must point at the bytes a reviewer sees in the file.

use std::ops::Range;

use super::Span;

/// Maps a byte range of the DECODED string to the raw source bytes of the string literal at `literal`
/// (the span of the literal including its quotes). `\n`, `\"` etc. are 2 raw bytes for 1 decoded byte,
/// `\uXXXX` is 6 raw bytes for 1–3 decoded bytes, a surrogate pair `\uD83D\uDE00` is 12 raw bytes for 4 decoded.
/// A boundary falling inside the decoded bytes of one escape widens to cover the whole escape.
///
/// Boundaries inside a literal multi-byte character widen the same way, so
/// the result always lies on character boundaries of `source`. An empty
/// range on a unit boundary maps to an empty span there. Returns `None` when
/// `literal` is not a well-formed string literal in `source` or the range is
/// reversed or extends past the decoded string.
pub fn raw_span(source: &str, literal: Span, decoded: Range<usize>) -> Option<Span> {
    if decoded.start > decoded.end {
        return None;
    }
    let raw = source.get(literal.start..literal.end)?;
    let content = raw.strip_prefix('"')?.strip_suffix('"')?;
    let content_start = literal.start + 1;
    let bytes = content.as_bytes();
    let mut raw_at = 0;
    let mut decoded_at = 0;
    let mut start = None;
    let mut end = (decoded.end == 0).then_some(content_start);
    while raw_at < bytes.len() && (start.is_none() || end.is_none()) {
        let (raw_len, decoded_len) = unit_at(content, raw_at)?;
        let decoded_end = decoded_at + decoded_len;
        if start.is_none() && decoded.start < decoded_end {
            start = Some(content_start + raw_at);
        }
        if end.is_none() && decoded.end <= decoded_end {
            end = Some(content_start + raw_at + raw_len);
        }
        raw_at += raw_len;
        decoded_at = decoded_end;
    }
    // A range that starts exactly at the end of the decoded string.
    if start.is_none() && decoded.start == decoded_at && raw_at == bytes.len() {
        start = Some(content_start + raw_at);
    }
    Some(Span {
        start: start?,
        end: end?,
    })
}

/// The raw and decoded lengths of the character or escape at `at`.
fn unit_at(content: &str, at: usize) -> Option<(usize, usize)> {
    let bytes = content.as_bytes();
    if bytes.get(at) != Some(&b'\\') {
        let c = content.get(at..)?.chars().next()?;
        return Some((c.len_utf8(), c.len_utf8()));
    }
    if bytes.get(at + 1) != Some(&b'u') {
        return bytes.get(at + 1).map(|_| (2, 1));
    }
    let first = hex4(bytes, at + 2)?;
    if (0xD800..0xDC00).contains(&first) {
        let low = (bytes.get(at + 6) == Some(&b'\\') && bytes.get(at + 7) == Some(&b'u'))
            .then(|| hex4(bytes, at + 8))
            .flatten()
            .filter(|low| (0xDC00..0xE000).contains(low));
        return low.map(|_| (12, 4));
    }
    Some((6, char::from_u32(first)?.len_utf8()))
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Dialect, Limits, Value, parse};

    /// Maps `decoded` within the single string literal `literal_text`, as it
    /// would appear after a two-byte prefix, and returns the raw slice.
    fn map(literal_text: &str, decoded: Range<usize>) -> Option<String> {
        let source = format!("[ {literal_text}]");
        let literal = Span {
            start: 2,
            end: 2 + literal_text.len(),
        };
        let span = raw_span(&source, literal, decoded)?;
        source.get(span.start..span.end).map(str::to_owned)
    }

    #[test]
    fn table() {
        let cases: [(&str, Range<usize>, Option<&str>); 21] = [
            (r#""hello""#, 1..3, Some("el")),
            (r#""hello""#, 0..5, Some("hello")),
            (r#""hello""#, 5..5, Some("")),
            (r#""hello""#, 2..2, Some("")),
            (r#""hello""#, 0..6, None),
            (r#""""#, 0..0, Some("")),
            (r#""héllo""#, 1..3, Some("é")),
            (r#""héllo""#, 2..3, Some("é")),
            (r#""中😀""#, 3..7, Some("😀")),
            (r#""\u0049gnore all""#, 0..6, Some(r"\u0049gnore")),
            (r#""a\nb""#, 1..2, Some(r"\n")),
            (r#""a\nb""#, 0..3, Some(r"a\nb")),
            (r#""say \"hi\"""#, 4..8, Some(r#"\"hi\""#)),
            (r#""x\u00e9y""#, 1..3, Some(r"\u00e9")),
            (r#""x\u00e9y""#, 2..3, Some(r"\u00e9")),
            (r#""x\u00e9y""#, 2..2, Some(r"\u00e9")),
            (r#""a\ud83d\ude00b""#, 1..5, Some(r"\ud83d\ude00")),
            (r#""a\ud83d\ude00b""#, 3..6, Some(r"\ud83d\ude00b")),
            (r#""ab\t""#, 1..3, Some(r"b\t")),
            (r#""ab\t""#, 3..3, Some("")),
            (r#""\u4e2d""#, 1..2, Some(r"\u4e2d")),
        ];
        for (literal, range, expected) in cases {
            assert_eq!(
                map(literal, range.clone()).as_deref(),
                expected,
                "{literal} {range:?}"
            );
        }
    }

    #[test]
    fn rejects_bad_literals() {
        let source = r#"x"ab"y"#;
        assert_eq!(raw_span(source, Span { start: 0, end: 4 }, 0..1), None);
        assert_eq!(raw_span(source, Span { start: 1, end: 9 }, 0..1), None);
        assert_eq!(raw_span(source, Span { start: 2, end: 1 }, 0..0), None);
        let (start, end) = (2, 1);
        assert_eq!(
            raw_span(source, Span { start: 1, end: 5 }, start..end),
            None
        );
        assert_eq!(
            raw_span(r#""\ud800""#, Span { start: 0, end: 8 }, 0..1),
            None
        );
        assert_eq!(
            raw_span(source, Span { start: 1, end: 5 }, 0..2),
            Some(Span { start: 2, end: 4 })
        );
    }

    /// Every single character of a parsed string maps to raw bytes that
    /// decode to exactly that character.
    #[test]
    fn every_character_round_trips() {
        let text = r#"["plain", "é中😀", "\u0049gnore\n\t\"\\\/", "\ud83d\ude00\u200b\u00e9x", "a\u0000b\uFEFF", ""]"#;
        let root = parse(text, Dialect::Json, &Limits::default()).expect("valid");
        let items = root.as_array().expect("array");
        let mut checked = 0;
        for item in items {
            let Value::String(decoded) = &item.value else {
                panic!("strings only");
            };
            for (at, c) in decoded.char_indices() {
                let span = raw_span(text, item.span, at..at + c.len_utf8()).expect("maps");
                let raw = text.get(span.start..span.end).expect("in bounds");
                let reparsed = parse(&format!("\"{raw}\""), Dialect::Json, &Limits::default())
                    .expect("a complete escape or character");
                assert_eq!(reparsed.as_str(), Some(c.to_string().as_str()), "{raw}");
                checked += 1;
            }
        }
        assert_eq!(checked, 27);
    }
}
