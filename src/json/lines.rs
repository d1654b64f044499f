//! Byte offsets to 1-based line and column positions for diagnostics.
//!
//! Lines break at `\n`; a `\r` right before it belongs to the terminator.
//! A lone `\r` is not a line break (JSON treats it as plain whitespace).
//! The text always has at least one line, and text ending in `\n` has an
//! empty last line after it.
//!
//! A UTF-8 BOM at the very start counts towards `column_byte` (it is in the
//! bytes) but not towards `column` / `column_utf16`, because editors hide it
//! and their cursor columns start after it. For the same reason
//! [`LineIndex::line_text`] leaves it out of line 1.

const BOM: &str = "\u{FEFF}";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset at which each line starts; never empty, first entry 0.
    line_starts: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based, in Unicode scalar values; a tab is one column.
    pub column: usize,
    /// 1-based, in UTF-16 code units (LSP clients and JavaScript tools).
    pub column_utf16: usize,
    /// 1-based, in bytes from the line start.
    pub column_byte: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        // Vectorised: a pretty-printed file has a line every 30 bytes or so, and nearly every
        // file of a large scan has a finding.
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { line_starts }
    }

    /// The position of `offset`, clamped to `text.len()` and rounded down to
    /// a character boundary so any offset is accepted.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = char_floor(text, offset);
        let line = self
            .line_starts
            .partition_point(|&start| start <= offset)
            .max(1);
        let line_start = self.line_starts.get(line - 1).copied().unwrap_or(0);
        in_line(text, line, line_start, offset)
    }

    /// Line `line` (1-based) without its terminator; `""` when out of range.
    pub fn line_text<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let Some(&start) = line.checked_sub(1).and_then(|i| self.line_starts.get(i)) else {
            return "";
        };
        let content = match self.line_starts.get(line) {
            Some(&next) => {
                let with_lf = text.get(start..next - 1).unwrap_or_default();
                with_lf.strip_suffix('\r').unwrap_or(with_lf)
            }
            None => text.get(start..).unwrap_or_default(),
        };
        if start == 0 {
            content.strip_prefix(BOM).unwrap_or(content)
        } else {
            content
        }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
}

/// `offset` clamped to `text.len()` and rounded down to a character boundary, so that a position
/// can be asked for any offset.
fn char_floor(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The position of `offset` (a character boundary) on line `line`, which starts at `line_start`.
fn in_line(text: &str, line: usize, line_start: usize, offset: usize) -> Position {
    let before = text.get(line_start..offset).unwrap_or_default();
    let visible = if line_start == 0 {
        before.strip_prefix(BOM).unwrap_or(before)
    } else {
        before
    };
    Position {
        line,
        column: visible.chars().count() + 1,
        column_utf16: visible.encode_utf16().count() + 1,
        column_byte: before.len() + 1,
    }
}

/// How many `\n` are in `bytes`: summed in bytes 64 at a time, which vectorises. Stopping at
/// each of the 8M line breaks of the 100k bench corpus, or counting them one by one into a
/// `usize`, was 4.4% of a one-thread load of its snapshots with every name placed; this, 0.8%.
fn count_newlines(bytes: &[u8]) -> usize {
    let chunks = bytes.chunks_exact(64);
    let rest = chunks.remainder();
    let in_chunks: usize = chunks
        .map(|chunk| usize::from(chunk.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>()))
        .sum();
    in_chunks + rest.iter().filter(|&&b| b == b'\n').count()
}

/// [`LineIndex::position`] for offsets asked in ascending order, without an index: each call
/// counts the line breaks from the offset before it, so placing every tool name of a snapshot
/// (they come in the order of the text) is one pass over the text and no allocation. An offset
/// before the last one counts again from the start.
#[derive(Clone, Copy, Debug)]
pub struct LineCursor {
    /// The last offset asked for, the line it is on, and where that line starts.
    offset: usize,
    line: usize,
    line_start: usize,
}

impl Default for LineCursor {
    /// At the start of the text.
    fn default() -> LineCursor {
        LineCursor {
            offset: 0,
            line: 1,
            line_start: 0,
        }
    }
}

impl LineCursor {
    pub fn position(&mut self, text: &str, offset: usize) -> Position {
        let offset = char_floor(text, offset);
        if offset < self.offset {
            *self = LineCursor::default();
        }
        let skipped = text.as_bytes().get(self.offset..offset).unwrap_or_default();
        self.line += count_newlines(skipped);
        if let Some(last) = memchr::memrchr(b'\n', skipped) {
            self.line_start = self.offset + last + 1;
        }
        self.offset = offset;
        in_line(text, self.line, self.line_start, offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: usize, column: usize, column_utf16: usize, column_byte: usize) -> Position {
        Position {
            line,
            column,
            column_utf16,
            column_byte,
        }
    }

    #[test]
    fn positions() {
        let cases: [(&str, usize, Position); 18] = [
            ("", 0, pos(1, 1, 1, 1)),
            ("", 5, pos(1, 1, 1, 1)),
            ("abc", 1, pos(1, 2, 2, 2)),
            ("abc", 3, pos(1, 4, 4, 4)),
            ("abc", 99, pos(1, 4, 4, 4)),
            ("a\nb", 1, pos(1, 2, 2, 2)),
            ("a\nb", 2, pos(2, 1, 1, 1)),
            ("a\r\nb", 1, pos(1, 2, 2, 2)),
            ("a\r\nb", 3, pos(2, 1, 1, 1)),
            ("a\n", 2, pos(2, 1, 1, 1)),
            ("a\rb", 2, pos(1, 3, 3, 3)),
            ("\tx", 1, pos(1, 2, 2, 2)),
            ("é中😀x", 9, pos(1, 4, 5, 10)),
            // Offsets inside a character round down to its start.
            ("é中😀x", 7, pos(1, 3, 3, 6)),
            ("\u{FEFF}ab", 0, pos(1, 1, 1, 1)),
            ("\u{FEFF}ab", 3, pos(1, 1, 1, 4)),
            ("\u{FEFF}ab", 4, pos(1, 2, 2, 5)),
            ("\u{FEFF}a\n\u{FEFF}b", 8, pos(2, 2, 2, 4)),
        ];
        for (text, offset, expected) in cases {
            let index = LineIndex::new(text);
            assert_eq!(
                index.position(text, offset),
                expected,
                "{text:?} @ {offset}"
            );
            assert_eq!(
                LineCursor::default().position(text, offset),
                expected,
                "{text:?} @ {offset}"
            );
        }
    }

    /// A cursor asked for every offset of a text, forwards, backwards and skipping about,
    /// answers as the index does.
    #[test]
    fn a_cursor_answers_as_the_index_in_any_order() {
        // Long enough for line breaks to be counted 64 bytes at a time.
        let text = &format!(
            "{BOM}{}",
            "{\n  \"a\": \"é中\",\r\n\n  \"b\": \"😀\"\r}\n".repeat(6)
        );
        let index = LineIndex::new(text);
        let forwards: Vec<usize> = (0..=text.len() + 1).collect();
        let backwards: Vec<usize> = forwards.iter().rev().copied().collect();
        let skipping: Vec<usize> = forwards.iter().map(|i| i * 7 % forwards.len()).collect();
        for order in [forwards, backwards, skipping] {
            let mut cursor = LineCursor::default();
            for offset in order {
                assert_eq!(
                    cursor.position(text, offset),
                    index.position(text, offset),
                    "@ {offset}"
                );
            }
        }
    }

    #[test]
    fn line_texts() {
        let text = "\u{FEFF}one\r\ntwo\n\nfour\r";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        let lines: Vec<&str> = (0..=5).map(|l| index.line_text(text, l)).collect();
        assert_eq!(lines, ["", "one", "two", "", "four\r", ""]);
        let trailing = "a\n";
        let index = LineIndex::new(trailing);
        assert_eq!(index.line_count(), 2);
        assert_eq!(index.line_text(trailing, 2), "");
        assert_eq!(LineIndex::new("").line_count(), 1);
        assert_eq!(LineIndex::new("").line_text("", 1), "");
    }
}
