//! A string rewritten for the rules to read (folded look-alikes, Markdown emphasis taken off),
//! that still knows where each of its bytes came from, so that a finding in the rewritten text
//! points at the original.

use std::ops::Range;

pub(super) struct Rewritten {
    pub text: String,
    /// For every byte of `text`, the byte of the original it came from; then the original's
    /// length.
    origin: Vec<usize>,
}

impl Rewritten {
    pub fn with_capacity(len: usize) -> Rewritten {
        Rewritten {
            text: String::with_capacity(len),
            origin: Vec::with_capacity(len + 1),
        }
    }

    /// Appends `c`, which stands for the original's character at byte `from`.
    pub fn push(&mut self, c: char, from: usize) {
        let start = self.text.len();
        self.text.push(c);
        self.origin
            .extend(std::iter::repeat_n(from, self.text.len() - start));
    }

    /// The rewritten text, once every character of an original `original_len` bytes long was
    /// pushed or left out.
    pub fn finish(mut self, original_len: usize) -> Rewritten {
        self.origin.push(original_len);
        self
    }

    /// The original byte range of a range of the rewritten text: from the character the first
    /// byte came from to the end of the one the last byte came from.
    pub fn original(&self, range: Range<usize>) -> Range<usize> {
        let start = self.origin.get(range.start).copied().unwrap_or(0);
        let end = match range
            .end
            .checked_sub(1)
            .and_then(|last| self.origin.get(last))
        {
            Some(&last) => {
                last + self
                    .origin
                    .iter()
                    .copied()
                    .find(|&o| o > last)
                    .map_or(1, |next| next - last)
            }
            None => start,
        };
        start..end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_map_back_over_dropped_and_replaced_characters() {
        let original = "a*b’c";
        let mut rewritten = Rewritten::with_capacity(original.len());
        rewritten.push('a', 0);
        // `*` at 1 left out.
        rewritten.push('b', 2);
        rewritten.push('\'', 3);
        rewritten.push('c', 6);
        let rewritten = rewritten.finish(original.len());
        assert_eq!(rewritten.text, "ab'c");
        assert_eq!(rewritten.original(0..2), 0..3);
        assert_eq!(rewritten.original(2..3), 3..6, "the whole apostrophe");
        assert_eq!(rewritten.original(1..4), 2..7);
        assert_eq!(rewritten.original(0..0), 0..0);
    }
}
