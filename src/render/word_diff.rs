//! Word-level diff of two texts, with invisible characters made visible, in the `[-old-]{+new+}`
//! notation of `git diff --word-diff` (coloured when colour is on).

use similar::{ChangeTag, TextDiff};

use super::paint::Paint;
use crate::unicode::make_visible;

/// Unchanged runs longer than this keep only their ends, so a one-word change in a long
/// description stays readable.
const CONTEXT_CHARS: usize = 60;

pub fn word_diff(before: &str, after: &str, paint: Paint) -> String {
    let diff = TextDiff::from_words(before, after);
    // Runs of the same kind are merged, so "{+all +}" rather than "{+all+}{+ +}".
    let mut runs: Vec<(ChangeTag, String)> = Vec::new();
    for change in diff.iter_all_changes() {
        match runs.last_mut() {
            Some((tag, text)) if *tag == change.tag() => text.push_str(change.value()),
            _ => runs.push((change.tag(), change.value().to_string())),
        }
    }
    let mut out = String::new();
    for (tag, text) in runs {
        let text = make_visible(&text);
        match tag {
            ChangeTag::Equal => out.push_str(&elide(&text)),
            ChangeTag::Delete => out.push_str(&paint.removed(&format!("[-{text}-]"))),
            ChangeTag::Insert => out.push_str(&paint.added(&format!("{{+{text}+}}"))),
        }
    }
    out
}

fn elide(text: &str) -> String {
    let count = text.chars().count();
    if count <= CONTEXT_CHARS {
        return text.to_string();
    }
    let half = CONTEXT_CHARS / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_changed_words_and_invisibles() {
        let off = Paint { enabled: false };
        assert_eq!(
            word_diff("Search issues by text", "Search all issues by text", off),
            "Search {+all +}issues by text"
        );
        assert_eq!(
            word_diff("read a file", "read a\u{200b} file", off),
            "read [-a-]{+a<U+200B>+} file"
        );
    }
}
