//! Bytes a pattern cannot match without, and how many of each: `(\s*\n){12,}\s*\S` needs
//! twelve newlines. Counting them is one vectorised pass, far cheaper than running the lazy DFA
//! of [`super::piece_sets`] over a string that has too few, which is nearly every string; the
//! DFA runs only where every requirement of some pattern holds.
//!
//! Read off the pattern's syntax tree as the regex crate compiles it (case-insensitive): a
//! literal counts each of its bytes, a class of one ASCII character counts that byte (a letter
//! is a class of two under case folding, so it never counts), a sequence adds up, a repetition
//! multiplies by its lower bound, and an alternation keeps what every branch needs. Anything
//! else needs nothing. So a requirement never asks for more than a match has.

use std::collections::BTreeMap;

use regex_syntax::hir::{Class, Hir, HirKind};

/// Counts stop here: a pattern that needs more of a byte is a candidate wherever this many are.
const MAX_COUNT: usize = 64;

/// `(byte, count)`, ascending by byte; empty when the pattern needs no particular byte (or
/// does not parse: its compile error is reported elsewhere).
pub fn required_bytes(pattern: &str) -> Vec<(u8, usize)> {
    let parsed = regex_syntax::ParserBuilder::new()
        .case_insensitive(true)
        .build()
        .parse(pattern);
    match parsed {
        Ok(hir) => needs(&hir).into_iter().collect(),
        Err(_) => Vec::new(),
    }
}

/// Whether `text` has every byte `required` asks for, as many times.
pub fn has_required(text: &[u8], required: &[(u8, usize)]) -> bool {
    required
        .iter()
        .all(|&(byte, count)| memchr::memchr_iter(byte, text).take(count).count() == count)
}

fn needs(hir: &Hir) -> BTreeMap<u8, usize> {
    match hir.kind() {
        HirKind::Literal(literal) => {
            let mut counts = BTreeMap::new();
            for &byte in literal.0.iter() {
                add(&mut counts, byte, 1);
            }
            counts
        }
        HirKind::Class(class) => single_ascii(class)
            .map(|byte| BTreeMap::from([(byte, 1)]))
            .unwrap_or_default(),
        HirKind::Repetition(repetition) => {
            let times = usize::try_from(repetition.min).unwrap_or(MAX_COUNT);
            needs(&repetition.sub)
                .into_iter()
                .filter(|_| times > 0)
                .map(|(byte, count)| (byte, count.saturating_mul(times).min(MAX_COUNT)))
                .collect()
        }
        HirKind::Capture(capture) => needs(&capture.sub),
        HirKind::Concat(parts) => {
            let mut counts = BTreeMap::new();
            for part in parts {
                for (byte, count) in needs(part) {
                    add(&mut counts, byte, count);
                }
            }
            counts
        }
        HirKind::Alternation(branches) => {
            let mut branches = branches.iter().map(needs);
            let first = branches.next().unwrap_or_default();
            branches.fold(first, |common, branch| {
                common
                    .into_iter()
                    .filter_map(|(byte, count)| Some((byte, count.min(*branch.get(&byte)?))))
                    .collect()
            })
        }
        HirKind::Empty | HirKind::Look(_) => BTreeMap::new(),
    }
}

fn add(counts: &mut BTreeMap<u8, usize>, byte: u8, count: usize) {
    let total = counts.entry(byte).or_insert(0);
    *total = total.saturating_add(count).min(MAX_COUNT);
}

/// The byte a class stands for, when it is one ASCII character.
fn single_ascii(class: &Class) -> Option<u8> {
    let (start, end) = match class {
        Class::Unicode(class) => {
            let [range] = class.ranges() else {
                return None;
            };
            (u32::from(range.start()), u32::from(range.end()))
        }
        Class::Bytes(class) => {
            let [range] = class.ranges() else {
                return None;
            };
            (u32::from(range.start()), u32::from(range.end()))
        }
    };
    if start != end {
        return None;
    }
    u8::try_from(start).ok().filter(u8::is_ascii)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Catalogue, Kind};

    #[test]
    fn reads_the_bytes_a_pattern_needs() {
        let cases: [(&str, &[(u8, usize)]); 9] = [
            (r"(\s*\n){12,}\s*\S", &[(b'\n', 12)]),
            // Letters fold to two-character classes: only the colon counts.
            (r"act\s+as\s*:", &[(b':', 1)]),
            (r"<!--.*-->", &[(b'!', 1), (b'-', 4), (b'<', 1), (b'>', 1)]),
            (r"x|:", &[]),
            (r"(::|:;)", &[(b':', 1)]),
            (r"(::|::;)", &[(b':', 2)]),
            (r"\n{0,5}", &[]),
            (r"\n{4000000000}", &[(b'\n', MAX_COUNT)]),
            (r"unbalanced(", &[]),
        ];
        for (pattern, want) in cases {
            assert_eq!(required_bytes(pattern), want, "{pattern}");
        }
        assert!(has_required(b"a\nb\n", &[(b'\n', 2)]));
        assert!(!has_required(b"a\nb", &[(b'\n', 2)]));
        assert!(has_required(b"anything", &[]));
    }

    /// Wherever a builtin pattern matches one of its rule's examples, the example has the
    /// bytes the pattern requires.
    #[test]
    fn every_match_has_the_required_bytes() {
        let catalogue = Catalogue::builtin().unwrap();
        let mut checked = 0;
        for rule in catalogue.rules().iter().filter(|r| r.kind == Kind::Pattern) {
            let examples = rule.examples.as_ref().unwrap();
            for pattern in &rule.patterns {
                let regex = regex::RegexBuilder::new(pattern)
                    .case_insensitive(true)
                    .build()
                    .unwrap();
                let required = required_bytes(pattern);
                for example in examples.must_match.iter().chain(&examples.no_match) {
                    if let Some(found) = regex.find(example) {
                        checked += 1;
                        assert!(
                            has_required(found.as_str().as_bytes(), &required),
                            "{}: {pattern} on {example:?}",
                            rule.id
                        );
                    }
                }
            }
        }
        assert!(checked > 100, "only {checked} matches checked");
    }
}
