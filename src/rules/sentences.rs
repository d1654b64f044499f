//! Sentence-bound patterns: most rule patterns are phrases that no match of which can hold a
//! period (`[^.\n]{0,60}` gaps, `\s+` between words, `\b` at the ends). Such a match lies
//! within one *sentence*, the text between two periods (or an end of the text), so the
//! prefilter asks for every clause of the pattern within one sentence rather than anywhere in
//! the string, and the pattern's regex runs over those sentences alone.
//!
//! That is exact: a sentence starts after a period or at the start of the text, and a word
//! boundary (`\b` and its kin, the only assertions a sentence-bound pattern may have) sees a
//! non-word character either way; likewise at its end. So the regex finds in the sentences
//! what it finds in the whole text, at the same offsets once shifted.
//!
//! Why it pays: long descriptions hold the common words of many patterns (`id`, `optional`,
//! `is`, `limit`), scattered over different sentences. Over the 10k-tool bench corpus, 28.9k
//! (string, pattern) pairs passed the gate, each confirmed by the pattern's regex over the
//! whole string (a fifth to a quarter of a one-thread `check`); with sentences, 4.8k pairs
//! pass, and their regexes read 2.7 MB.
//!
//! Only `std` and `regex-syntax`: `build.rs` includes this file to read the builtin patterns
//! at build time, as it does [`super::clauses`].

use std::ops::Range;

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// The byte between sentences.
const PERIOD: u8 = b'.';

/// Whether no match of `pattern`, compiled as rule patterns are (case-insensitive, with or
/// without Unicode), can hold a period, and its only assertions are word boundaries. `false`
/// when it does not parse: that only costs the narrowing.
pub fn sentence_bound(pattern: &str) -> bool {
    let parse = |unicode: bool| {
        regex_syntax::ParserBuilder::new()
            .case_insensitive(true)
            .unicode(unicode)
            .utf8(unicode)
            .build()
            .parse(pattern)
            .ok()
    };
    // The ASCII form fails to parse for a pattern that needs Unicode (`\p{..}`): that pattern
    // then always runs in its Unicode form.
    match (parse(true), parse(false)) {
        (Some(unicode), Some(ascii)) => holds_no_period(&unicode) && holds_no_period(&ascii),
        (Some(unicode), None) => holds_no_period(&unicode),
        (None, _) => false,
    }
}

fn holds_no_period(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty => true,
        // A period is one byte in UTF-8, never part of another character's.
        HirKind::Literal(literal) => !literal.0.contains(&PERIOD),
        HirKind::Class(Class::Unicode(class)) => !class
            .ranges()
            .iter()
            .any(|r| r.start() <= char::from(PERIOD) && char::from(PERIOD) <= r.end()),
        HirKind::Class(Class::Bytes(class)) => !class
            .ranges()
            .iter()
            .any(|r| r.start() <= PERIOD && PERIOD <= r.end()),
        HirKind::Look(look) => is_word_boundary(*look),
        HirKind::Repetition(repetition) => holds_no_period(&repetition.sub),
        HirKind::Capture(capture) => holds_no_period(&capture.sub),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => parts.iter().all(holds_no_period),
    }
}

/// Word boundaries see a period and an end of the text alike; line and text anchors do not.
fn is_word_boundary(look: Look) -> bool {
    matches!(
        look,
        Look::WordAscii
            | Look::WordAsciiNegate
            | Look::WordUnicode
            | Look::WordUnicodeNegate
            | Look::WordStartAscii
            | Look::WordEndAscii
            | Look::WordStartUnicode
            | Look::WordEndUnicode
            | Look::WordStartHalfAscii
            | Look::WordEndHalfAscii
            | Look::WordStartHalfUnicode
            | Look::WordEndHalfUnicode
    )
}

/// Whether `text` has more than one sentence.
pub fn has_periods(text: &[u8]) -> bool {
    memchr::memchr(PERIOD, text).is_some()
}

/// The sentences of `text`, in order: the ranges between its periods, periods left out (some
/// empty).
pub fn sentences(text: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let ends = memchr::memchr_iter(PERIOD, text).chain(std::iter::once(text.len()));
    let mut start = 0;
    ends.map(move |end| {
        let sentence = start..end;
        start = end + 1;
        sentence
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_are_sentence_bound_and_what_can_hold_a_period_is_not() {
        let bound = [
            r"\b(ignore|disregard)\s+(all\s+)?previous\s+instructions\b",
            r"\bdo\s+not[^.\n]{0,60}\btell\b",
            r"(\w+\s+){0,3}approval",
            r"\Bfoo\b",
            r"[a-z]+ [0-9]{2,}",
            r"(?-u:\w)+",
            r"\p{Cyrillic}+\s+\p{Greek}",
        ];
        let unbound = [
            r"read\s+~/\.ssh/id_rsa",
            r"contents of .{0,40} file",
            r"[^a-z]+",
            r"\S+@\S+",
            r"\W",
            r"^ignore",
            r"instructions$",
            r"(?m)^ignore",
            r"\Aignore",
            r"[\w.]+",
            r"[[:punct:]]",
            r"(",
        ];
        for pattern in bound {
            assert!(sentence_bound(pattern), "{pattern}");
        }
        for pattern in unbound {
            assert!(!sentence_bound(pattern), "{pattern}");
        }
    }

    #[test]
    fn sentences_are_the_ranges_between_periods() {
        fn split(text: &str) -> Vec<&str> {
            sentences(text.as_bytes())
                .map(|r| text.get(r).unwrap_or("?"))
                .collect()
        }
        assert_eq!(split("One. Two.. Three"), ["One", " Two", "", " Three"]);
        assert_eq!(split("."), ["", ""]);
        assert_eq!(split(""), [""]);
        assert_eq!(split("no period"), ["no period"]);
        assert!(!has_periods(b"no period"));
        assert!(has_periods(b"e.g"));
    }
}
