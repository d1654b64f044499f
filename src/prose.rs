//! Prose: where the sentences of a tool's text begin and end, for the checks that read text a
//! sentence at a time (`risky-directive`, `likely-injection`).

use std::ops::Range;

use memchr::{memchr_iter, memchr3_iter};

/// The sentences of `text`, as byte ranges without their surrounding whitespace: a sentence
/// ends at `.`, `!` or `?` followed by whitespace (so `~/.aws/config` and `v1.2` do not end
/// one), and at a line break. Found as the walk asks for them, without allocating: this runs
/// on every string of every tool.
pub fn sentences(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let bytes = text.as_bytes();
    let mut stops = memchr3_iter(b'.', b'!', b'?', bytes)
        .filter(|&i| bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace))
        .peekable();
    let mut breaks = memchr_iter(b'\n', bytes).peekable();
    // The two kinds of end never share a byte, so taking the nearer of the two each time
    // visits them in order.
    let ends = std::iter::from_fn(move || match (stops.peek(), breaks.peek()) {
        (Some(&stop), Some(&line)) if line < stop => breaks.next(),
        (Some(_), _) => stops.next(),
        (None, _) => breaks.next(),
    })
    .map(|i| i + 1)
    .chain(std::iter::once(bytes.len()));
    let mut start = 0;
    ends.filter_map(move |end| {
        let sentence = trimmed(text, start..end);
        start = end;
        sentence
    })
}

/// `range` of `text` without leading and trailing whitespace; `None` if nothing is left.
fn trimmed(text: &str, range: Range<usize>) -> Option<Range<usize>> {
    let part = text.get(range.clone())?;
    let start = range.start + (part.len() - part.trim_start().len());
    let end = range.end - (part.len() - part.trim_end().len());
    (start < end).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_end_at_punctuation_before_space_and_at_line_breaks() {
        let text = "Reads ~/.aws/config. Then v1.2 runs!\nNext?  Done";
        let parts: Vec<&str> = sentences(text).map(|r| &text[r]).collect();
        assert_eq!(
            parts,
            ["Reads ~/.aws/config.", "Then v1.2 runs!", "Next?", "Done"]
        );
        // A line break right after a stop, and lines without one, in either order.
        let text = "One.\nTwo\nThree! Four.\n";
        let parts: Vec<&str> = sentences(text).map(|r| &text[r]).collect();
        assert_eq!(parts, ["One.", "Two", "Three!", "Four."]);
    }
}
