//! The one place where symbolic locations (file + JSON pointer + optional substring) become
//! concrete line/column spans, using the spans recorded by the parse of the same text.

use foldhash::HashMap;
use rayon::prelude::*;

use crate::finding::{Location, Span, Target};
use crate::json::Span as ByteSpan;
use crate::json::escape_map::raw_span;
use crate::json::lines::{LineCursor, Position};
use crate::json::pointer::{resolve_key_span, resolve_nth_key_span};
use crate::json::seek::seek;
use crate::json::{Dialect, Limits, Node, parse};
use crate::source::{Reading, SourceFile, SourceId, Sources};

/// Fills each location's `span`, in parallel over their files; leaves it `None` when the file
/// is not JSON or the pointer does not resolve (a check bug, which tests catch, rather than a
/// reason to fail the run). A file whose text was freed is read again once for all of its
/// locations (see [`SourceFile::free_text`]). In a file whose tree was freed, a lone location is
/// found by stepping through the text, and several by parsing the text once into a tree that
/// is dropped right after, rather than stepping through it again for each (a name that a
/// thousand servers share) or keeping the tree.
pub fn locate_all(sources: &Sources, locations: Vec<&mut Location>) {
    let mut by_source: HashMap<SourceId, Vec<&mut Location>> = HashMap::default();
    // A location placed as its file was read (a tool's name) is located already.
    for location in locations.into_iter().filter(|l| l.span.is_none()) {
        by_source.entry(location.source).or_default().push(location);
    }
    by_source.into_par_iter().for_each(|(id, mut locations)| {
        let Some(source) = sources.get(id) else {
            return;
        };
        let reading = source.reading();
        let tree = (locations.len() > 1 && source.tree_freed())
            .then(|| parse(reading.text(), Dialect::Json, &Limits::default()).ok())
            .flatten();
        for location in &mut locations {
            let bytes = match &tree {
                Some(root) => in_tree(root, &reading, location, location.target),
                None => resolve_bytes(source, &reading, location),
            };
            location.span = bytes.map(|bytes| to_span(&reading, bytes));
        }
    });
}

fn resolve_bytes(
    source: &SourceFile,
    reading: &Reading<'_>,
    location: &Location,
) -> Option<ByteSpan> {
    match (source.parsed_root(), location.target) {
        (Some(root), target) => in_tree(root, reading, location, target),
        // A JSON text whose tree was freed, or never kept (the lockfile): stepped through
        // rather than parsed whole again.
        (None, Target::Key | Target::Value) if source.tree_freed() => {
            let found = seek(reading.text(), &location.pointer)?;
            match location.target {
                Target::Key => found.key,
                _ => within(reading, found.value, location),
            }
        }
        (None, target) => in_tree(source.root()?, reading, location, target),
    }
}

fn in_tree(
    root: &Node,
    reading: &Reading<'_>,
    location: &Location,
    target: Target,
) -> Option<ByteSpan> {
    match target {
        Target::Key => resolve_key_span(root, &location.pointer),
        Target::KeyOccurrence(n) => resolve_nth_key_span(root, &location.pointer, n),
        Target::Value => within(reading, root.pointer(&location.pointer)?.span, location),
    }
}

/// The span of the value at `value`, or of the part of its decoded string the location names.
fn within(reading: &Reading<'_>, value: ByteSpan, location: &Location) -> Option<ByteSpan> {
    match &location.sub {
        Some(sub) => raw_span(reading.text(), value, sub.clone()),
        None => Some(value),
    }
}

fn to_span(reading: &Reading<'_>, bytes: ByteSpan) -> Span {
    let lines = reading.lines();
    let start = lines.position(reading.text(), bytes.start);
    let end = lines.position(reading.text(), bytes.end);
    span_of(bytes, start, end)
}

/// The span of `bytes` in `text`, placed by `cursor`: for what a file's reader knows the place
/// of as it reads (a tool's name), so that a finding there later needs the file neither parsed
/// nor read again. Placing the 29k name collisions of the 100k-tool bench corpus at the end
/// read nearly every file again.
pub fn place(text: &str, cursor: &mut LineCursor, bytes: ByteSpan) -> Span {
    let start = cursor.position(text, bytes.start);
    let end = cursor.position(text, bytes.end);
    span_of(bytes, start, end)
}

fn span_of(bytes: ByteSpan, start: Position, end: Position) -> Span {
    Span {
        start_byte: bytes.start,
        end_byte: bytes.end,
        line: start.line,
        column: start.column,
        end_line: end.line,
        end_column: end.column,
        column_utf16: start.column_utf16,
        end_column_utf16: end.column_utf16,
    }
}

#[cfg(test)]
mod tests {
    use std::ops::Range;
    use std::path::PathBuf;

    use super::*;
    use crate::json::{Dialect, Limits, Pointer, parse};
    use crate::source::SourceId;

    /// What a reviewer's editor shows: (line, column in chars, column in UTF-16) of start and end.
    type Where = ((usize, usize, usize), (usize, usize, usize));
    /// (text, pointer, target, decoded sub-range, expected span)
    type Case = (
        &'static str,
        &'static str,
        Target,
        Option<Range<usize>>,
        Where,
    );

    /// The span in the file's tree; checked to be the same found in the text once the tree is
    /// freed, alone (stepping through the text) and with another location in the same file
    /// (parsing it once for both), and that neither keeps a tree.
    fn locate_in(text: &str, pointer: &str, target: Target, sub: Option<Range<usize>>) -> Where {
        let root = parse(text, Dialect::Json, &Limits::default()).expect("valid JSON");
        let value = root
            .pointer(&Pointer::parse(pointer).expect("pointer"))
            .expect("the pointer resolves")
            .span;
        let mut sources = Sources::default();
        let id: SourceId = sources.add(SourceFile::new(
            PathBuf::from("t.json"),
            text.to_string(),
            Some(root),
        ));
        let mut freed = SourceFile::new(PathBuf::from("t.json"), text.to_string(), None);
        freed.drop_tree();
        let freed_id = sources.add(freed);
        let at = |source| {
            let mut location = Location::new(source, Pointer::parse(pointer).expect("pointer"));
            location.target = target;
            location.sub = sub.clone();
            location
        };
        let mut in_tree = at(id);
        locate_all(&sources, vec![&mut in_tree]);
        let mut alone = at(freed_id);
        locate_all(&sources, vec![&mut alone]);
        let (mut first, mut second) = (at(freed_id), at(freed_id));
        locate_all(&sources, vec![&mut first, &mut second]);
        for other in [&alone, &first, &second] {
            assert_eq!(other.span, in_tree.span, "{text:?} {pointer}");
        }
        // A whole value placed as its file was read, as a snapshot's reader places a tool's
        // name: the same span, which locating leaves alone.
        if target == Target::Value && sub.is_none() {
            let span = place(text, &mut LineCursor::default(), value);
            let mut placed = at(freed_id).placed(span);
            locate_all(&sources, vec![&mut placed]);
            assert_eq!(placed.span, in_tree.span, "{text:?} {pointer}");
            let start = place(
                text,
                &mut LineCursor::default(),
                ByteSpan { start: 0, end: 0 },
            );
            let mut kept = at(freed_id).placed(start);
            locate_all(&sources, vec![&mut kept]);
            assert_eq!(
                kept.span,
                Some(start),
                "a placed location is not located again"
            );
        }
        assert!(sources.get(freed_id).is_some_and(SourceFile::tree_freed));
        let s = in_tree.span.expect("the pointer resolves");
        (
            (s.line, s.column, s.column_utf16),
            (s.end_line, s.end_column, s.end_column_utf16),
        )
    }

    #[test]
    fn spans_of_values_keys_and_substrings() {
        use Target::{Key, Value};
        let cases: &[Case] = &[
            // Plain value and key; the value span includes the quotes.
            (
                r#"{"d": "abc"}"#,
                "/d",
                Value,
                None,
                ((1, 7, 7), (1, 12, 12)),
            ),
            (r#"{"d": "abc"}"#, "/d", Key, None, ((1, 2, 2), (1, 5, 5))),
            // An escape hides "Ignore": the match covers the raw `\u0049gnore`.
            (
                r#"{"d": "x \u0049gnore all"}"#,
                "/d",
                Value,
                Some(2..8),
                ((1, 10, 10), (1, 21, 21)),
            ),
            // `\n` and `\"` are two source characters for one decoded one.
            (
                r#"{"d": "a\nb \"c\""}"#,
                "/d",
                Value,
                Some(2..3),
                ((1, 11, 11), (1, 12, 12)),
            ),
            (
                r#"{"d": "a\nb \"c\""}"#,
                "/d",
                Value,
                Some(4..7),
                ((1, 13, 13), (1, 18, 18)),
            ),
            // A surrogate pair escape is 12 source characters for one emoji.
            (
                r#"{"d": "\ud83d\ude00 run"}"#,
                "/d",
                Value,
                Some(5..8),
                ((1, 21, 21), (1, 24, 24)),
            ),
            // A literal emoji is one char but two UTF-16 units: columns after it differ.
            (
                r#"{"d": "😀 run"}"#,
                "/d",
                Value,
                Some(5..8),
                ((1, 10, 11), (1, 13, 14)),
            ),
            (
                r#"{"😀": "x"}"#,
                "/😀",
                Value,
                None,
                ((1, 7, 8), (1, 10, 11)),
            ),
            // Multi-byte characters before the span: columns count chars, not bytes.
            (
                r#"{"é中": "ab"}"#,
                "/é中",
                Value,
                Some(1..2),
                ((1, 10, 10), (1, 11, 11)),
            ),
            // A tab is one column.
            (
                "{\t\"d\":\t\"ab\"}",
                "/d",
                Value,
                None,
                ((1, 8, 8), (1, 12, 12)),
            ),
            // CRLF line ends: the `\r` never counts as a column.
            (
                "{\r\n  \"a\": 1,\r\n  \"d\": \"xy\"\r\n}\r\n",
                "/d",
                Value,
                None,
                ((3, 8, 8), (3, 12, 12)),
            ),
            (
                "{\r\n  \"d\": \"xy\"\r\n}",
                "/d",
                Key,
                None,
                ((2, 3, 3), (2, 6, 6)),
            ),
            // A BOM is invisible in editors: line 1 columns start after it.
            (
                "\u{FEFF}{\"d\": \"ab\"}",
                "/d",
                Value,
                None,
                ((1, 7, 7), (1, 11, 11)),
            ),
            (
                "\u{FEFF}{\"d\": \"ab\"}",
                "/d",
                Key,
                None,
                ((1, 2, 2), (1, 5, 5)),
            ),
            // A nested array element and a multi-line value.
            (
                "{\"a\": [\n  1,\n  {\"b\": \"z\"}\n]}",
                "/a/1/b",
                Value,
                None,
                ((3, 9, 9), (3, 12, 12)),
            ),
            (
                "{\"a\": [\n  1\n]}",
                "/a",
                Value,
                None,
                ((1, 7, 7), (3, 2, 2)),
            ),
        ];
        for (text, pointer, target, sub, expected) in cases {
            assert_eq!(
                locate_in(text, pointer, *target, sub.clone()),
                *expected,
                "{text:?} {pointer} {target:?} {sub:?}"
            );
        }
    }

    #[test]
    fn unresolvable_pointers_leave_no_span() {
        let text = r#"{"d": "abc"}"#;
        let root = parse(text, Dialect::Json, &Limits::default()).expect("valid JSON");
        let mut sources = Sources::default();
        let id = sources.add(SourceFile::new(
            PathBuf::from("t.json"),
            text.to_string(),
            Some(root),
        ));
        for (pointer, sub) in [("/missing", None), ("/d", Some(2..9))] {
            let mut location = Location::new(id, Pointer::parse(pointer).expect("pointer"));
            location.sub = sub;
            locate_all(&sources, vec![&mut location]);
            assert_eq!(location.span, None, "{pointer}");
        }
    }
}
