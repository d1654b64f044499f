//! What a pattern cannot match without: the clauses of the first stage of the pattern
//! prefilter ([`super::literal_gate`]).
//!
//! Most patterns are phrases: `(ignore|disregard) ... (previous|prior) ... instructions`. Any
//! match contains one of `ignore`/`disregard`, one of `previous`/`prior`, and `instruction`. Each
//! such set of literals is a *clause*; a pattern is a candidate for a string only when every one
//! of its clauses has a literal in the string.
//!
//! The clauses are read off the pattern's syntax tree, for every string the pattern can match
//! case-insensitively (as every rule pattern is compiled), on any text:
//!
//! - a character stands for its case-folding orbit, as the regex crate folds it: `i` for `i` and
//!   `I`, `é` for `é` and `É`. The automaton ignores ASCII case, so ASCII letters are kept
//!   lowercase and only the other members of an orbit become literals of their own; `ſ` and the
//!   Kelvin sign, which fold to `s` and `k`, are left out (a string holding one skips the gate).
//!   Every letter is folded, even under `(?-i)`: that only widens;
//! - a bracketed class of at most [`MAX_CLASS`] characters expands into one literal each;
//! - a run of such pieces in sequence multiplies out, up to [`MAX_RUN_LITERALS`] literals;
//! - anything else (a wide class, an optional part) ends the run and the next part starts a new
//!   one; each run is a clause. A part repeated at least `n` times counts as `n` copies in a row
//!   (as many as fit);
//! - an alternation is one clause: the union of the strongest clause of each branch (so a
//!   branch without a clause leaves the alternation without one);
//! - a clause with a literal of one letter, digit, space or common punctuation (`.`, `-`) is
//!   dropped: it is in nearly every string, so it would turn nothing away and only slow the
//!   automaton down. Other short literals stay: `<` or `as` alone say little, but each clause
//!   narrows the others.
//!
//! Dropping a clause, or never finding one, only widens the prefilter.
//!
//! Only `std` and `regex-syntax`: `build.rs` includes this file to read the builtin patterns'
//! clauses at build time, so that a run does not spend its start-up on them.

use regex_syntax::ast::{self, Ast};
use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

/// The largest class expanded into literals (after ASCII case is folded away).
const MAX_CLASS: usize = 4;
/// The most literals one clause may have. Case-insensitive matching spells every `s` and `k`
/// two ways (`ſ`, the Kelvin sign), so a list of twenty file names can run past a hundred; a
/// clause dropped for size leaves its pattern gated on its commonest words alone (64 dropped
/// the file list of `sensitive-file-order`, which then confirmed 18k candidates at 10k tools).
const MAX_LITERALS: usize = 256;
/// The most literals a run may multiply out to: a run past it stops there, its prefix the
/// literal. Every letter of a word in a cased script other than Latin is two literals
/// (`с`/`С`), so a long Cyrillic word would otherwise be hundreds; five letters say enough.
const MAX_RUN_LITERALS: usize = 32;
/// The most copies of a repeated part a literal spells out.
const MAX_COPIES: u32 = 16;

/// Literals one of which every match contains; ASCII letters lowercase. Sorted, no two alike
/// (see [`set_of`]).
pub type Clause = Vec<Vec<u8>>;

fn set_of(mut literals: Vec<Vec<u8>>) -> Clause {
    literals.sort_unstable();
    literals.dedup();
    literals
}

/// What is known of the strings a part of a pattern can match.
struct Known {
    /// Every string it can match, when they are few.
    exact: Option<Clause>,
    /// Clauses every match of it satisfies.
    clauses: Vec<Clause>,
}

impl Known {
    fn exact(strings: Clause) -> Known {
        Known {
            exact: Some(strings),
            clauses: Vec::new(),
        }
    }

    fn empty_string() -> Known {
        Known::exact(vec![Vec::new()])
    }

    fn inexact(clauses: Vec<Clause>) -> Known {
        Known {
            exact: None,
            clauses,
        }
    }

    /// Its clauses, counting the exact strings as one.
    fn into_clauses(self) -> Vec<Clause> {
        let mut clauses = self.clauses;
        clauses.extend(self.exact);
        clauses.retain(|c| shortest(c) > 0);
        clauses
    }
}

/// The length of the shortest literal (0 for an empty clause, which no string satisfies: such
/// a clause comes only from a part that matches nothing).
fn shortest(clause: &Clause) -> usize {
    clause.iter().map(Vec::len).min().unwrap_or(0)
}

/// The clauses of `pattern`, without those that would turn nothing away (see the module
/// comment); none when the pattern does not parse or has no literal at all.
pub fn clauses(pattern: &str) -> Vec<Clause> {
    let Ok(tree) = ast::parse::Parser::new().parse(pattern) else {
        return Vec::new();
    };
    let mut clauses = known(&tree).into_clauses();
    clauses.retain(|clause| !clause.iter().any(|literal| is_ubiquitous(literal)));
    clauses
}

fn is_ubiquitous(literal: &[u8]) -> bool {
    match literal {
        [b] => {
            b.is_ascii_alphanumeric()
                || b.is_ascii_whitespace()
                || matches!(b, b'.' | b',' | b'-' | b'\'' | b'"')
        }
        _ => false,
    }
}

fn known(node: &Ast) -> Known {
    match node {
        Ast::Empty(_) | Ast::Flags(_) | Ast::Assertion(_) => Known::empty_string(),
        Ast::Literal(literal) if may_be_a_byte(literal) => Known::inexact(Vec::new()),
        Ast::Literal(literal) => Known::exact(orbit(literal.c)),
        Ast::ClassBracketed(class) if !class.negated => {
            class_strings(&class.kind).map_or_else(|| Known::inexact(Vec::new()), Known::exact)
        }
        Ast::Dot(_) | Ast::ClassBracketed(_) | Ast::ClassPerl(_) | Ast::ClassUnicode(_) => {
            Known::inexact(Vec::new())
        }
        Ast::Group(group) => known(&group.ast),
        Ast::Repetition(repetition) => {
            let (min, once) = match &repetition.op.kind {
                ast::RepetitionKind::ZeroOrOne | ast::RepetitionKind::ZeroOrMore => (0, false),
                ast::RepetitionKind::OneOrMore => (1, false),
                ast::RepetitionKind::Range(range) => match *range {
                    ast::RepetitionRange::Exactly(n) => (n, n == 1),
                    ast::RepetitionRange::AtLeast(n) => (n, false),
                    ast::RepetitionRange::Bounded(m, n) => (m, m == 1 && n == 1),
                },
            };
            let sub = known(&repetition.ast);
            if once {
                return sub;
            }
            if min == 0 {
                return Known::inexact(Vec::new());
            }
            // At least `min` times in a row: as many copies of an exact part as fit in a
            // clause (`[ \t]{80,}` needs `   `), or what one repetition needs.
            match sub.exact {
                Some(strings) => {
                    let mut run = strings.clone();
                    // `x{100000}` would otherwise spell out a literal as long as its count.
                    for _ in 1..min.min(MAX_COPIES) {
                        match product(run, &strings) {
                            Ok(longer) => run = longer,
                            Err(run_so_far) => {
                                run = run_so_far;
                                break;
                            }
                        }
                    }
                    Known::inexact(vec![run])
                }
                None => Known::inexact(sub.clauses),
            }
        }
        Ast::Concat(concat) => concat_of(&concat.asts),
        Ast::Alternation(alternation) => alternation_of(&alternation.asts),
    }
}

fn concat_of(parts: &[Ast]) -> Known {
    let mut clauses = Vec::new();
    // The exact strings of the current run of exact parts; while `whole`, of all parts so far.
    let mut run: Clause = vec![Vec::new()];
    let mut whole = true;
    for part in parts {
        let part = known(part);
        clauses.extend(part.clauses);
        match part.exact {
            Some(strings) => match product(run, &strings) {
                Ok(longer) => run = longer,
                Err(run_so_far) => {
                    whole = false;
                    clauses.push(run_so_far);
                    run = strings;
                }
            },
            None => {
                whole = false;
                clauses.push(std::mem::replace(&mut run, vec![Vec::new()]));
            }
        }
    }
    if whole {
        return Known::exact(run);
    }
    clauses.push(run);
    clauses.retain(|c| shortest(c) > 0);
    Known::inexact(clauses)
}

fn alternation_of(branches: &[Ast]) -> Known {
    let branches: Vec<Known> = branches.iter().map(known).collect();
    let exact =
        branches
            .iter()
            .map(|b| b.exact.as_ref())
            .try_fold(Clause::new(), |mut all, strings| {
                all.extend(strings?.iter().cloned());
                (all.len() <= MAX_LITERALS).then_some(all)
            });
    if let Some(strings) = exact {
        return Known::exact(set_of(strings));
    }
    let clause = branches
        .into_iter()
        .map(|b| strongest(b.into_clauses()))
        .try_fold(Clause::new(), |mut all, best| {
            all.extend(best?);
            (all.len() <= MAX_LITERALS).then_some(all)
        });
    Known::inexact(clause.into_iter().map(set_of).collect())
}

/// The strongest clause: the longest shortest literal, then the rarest, then the fewest
/// literals, then the first (the pattern's author put the telling word first more often than
/// not).
fn strongest(clauses: Vec<Clause>) -> Option<Clause> {
    let strength = |c: &Clause| (shortest(c), rarity(c), std::cmp::Reverse(c.len()));
    clauses.into_iter().reduce(|best, next| {
        if strength(&next) > strength(&best) {
            next
        } else {
            best
        }
    })
}

/// How unusual in prose the clause's most usual literal is: its bytes other than letters and
/// spaces (`-e` is rarer than `nc`).
fn rarity(clause: &Clause) -> usize {
    clause
        .iter()
        .map(|literal| {
            literal
                .iter()
                .filter(|b| !b.is_ascii_alphabetic() && **b != b' ')
                .count()
        })
        .min()
        .unwrap_or(0)
}

/// Every string of `a` followed by one of `b`; `a` back past [`MAX_RUN_LITERALS`].
fn product(mut a: Clause, b: &Clause) -> Result<Clause, Clause> {
    if a.len().saturating_mul(b.len()) > MAX_RUN_LITERALS {
        return Err(a);
    }
    if let [suffix] = b.as_slice() {
        // The common case, one character of one orbit: no new strings.
        a.iter_mut().for_each(|x| x.extend_from_slice(suffix));
        return Ok(set_of(a));
    }
    Ok(set_of(
        a.iter()
            .flat_map(|x| b.iter().map(move |y| [x.as_slice(), y].concat()))
            .collect(),
    ))
}

/// The characters of a small bracketed class, each with its orbit; `None` for a wide one.
fn class_strings(set: &ast::ClassSet) -> Option<Clause> {
    let mut strings = Clause::new();
    let ast::ClassSet::Item(item) = set else {
        return None;
    };
    add_item(item, &mut strings).then(|| set_of(strings))
}

/// Adds a class item's characters; false once there are too many (or it is not counted).
fn add_item(item: &ast::ClassSetItem, strings: &mut Clause) -> bool {
    let mut add = |c: char| {
        for literal in orbit(c) {
            if !strings.contains(&literal) {
                strings.push(literal);
            }
        }
        strings.len() <= MAX_CLASS
    };
    match item {
        ast::ClassSetItem::Empty(_) => true,
        ast::ClassSetItem::Literal(literal) => !may_be_a_byte(literal) && add(literal.c),
        ast::ClassSetItem::Range(range) => {
            !may_be_a_byte(&range.start)
                && !may_be_a_byte(&range.end)
                && (range.start.c..=range.end.c).all(add)
        }
        ast::ClassSetItem::Union(union) => union.items.iter().all(|i| add_item(i, strings)),
        _ => false,
    }
}

/// `\xFF` is the byte 0xFF under `(?-u)` but U+00FF otherwise, which are different literals:
/// such an escape gives none.
fn may_be_a_byte(literal: &ast::Literal) -> bool {
    literal.byte().is_some_and(|b| !b.is_ascii())
}

/// `c` and every character it case-folds to, as literals (ASCII letters lowercase). For an
/// ASCII character only its ASCII self: the two other characters that fold to ASCII letters,
/// `ſ` (to `s`) and the Kelvin sign (to `k`), would double a clause's literals for every `s` and
/// `k` in it, and the gate sends every string that holds one of them to all its patterns
/// instead (see [`super::literal_gate::folds_to_ascii_letter`]).
fn orbit(c: char) -> Clause {
    if let Ok(ascii) = u8::try_from(c)
        && ascii.is_ascii()
    {
        return vec![vec![ascii.to_ascii_lowercase()]];
    }
    let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
    class.case_fold_simple();
    set_of(
        class
            .iter()
            .flat_map(|range| range.start()..=range.end())
            .map(|c| c.encode_utf8(&mut [0; 4]).as_bytes().to_ascii_lowercase())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(pattern: &str) -> Vec<Vec<String>> {
        clauses(pattern)
            .iter()
            .map(|c| {
                c.iter()
                    .map(|l| String::from_utf8_lossy(l).into_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn reads_the_words_a_pattern_needs() {
        let cases: [(&str, &[&[&str]]); 15] = [
            // Runs end where a part is not exact; a non-ASCII fold adds its own literal, but
            // not `ſ` or the Kelvin sign (the gate sends strings with those to every pattern).
            (r"\bignore\s+all\b", &[&["ignore"], &["all"]]),
            (r"ask(\s+me)?\s+first", &[&["ask"], &["first"]]),
            (r"\bcafé\b", &[&["cafÉ", "café"]]),
            // An alternation is one clause, exact while small.
            (r"(send|post)\s+to", &[&["post", "send"], &["to"]]),
            // A branch without a clause leaves the alternation without one.
            (r"(secret|\w+)key", &[&["key"]]),
            // A branch's strongest clause: longest, then rarest (`-e` over `nc`).
            (r"mkfifo|\bnc\s+-e\b", &[&["-e", "mkfifo"]]),
            // Small classes multiply out; wide ones and optional parts end the run.
            (r"v[12]\.x[a-z]", &[&["v1.x", "v2.x"]]),
            (r"a[^b]c", &[]),
            // Repeated at least n times: n copies, as many as fit.
            (r"[<>]{2,}", &[&["<<", "<>", "><", ">>"]]),
            (r"(?:ab)*c", &[]),
            (r"x{4000000000}", &[&["xxxxxxxxxxxxxxxx"]]),
            // Ubiquitous literals are dropped, other short ones kept.
            (r"x\s+:\s+y", &[&[":"]]),
            (r"\.\s*,", &[]),
            // A `\xNN` escape past ASCII may be a byte: no literal.
            (r"(?-u:\xFF)abc", &[&["abc"]]),
            // Unparseable: no clause (the rule's compile error is reported elsewhere).
            (r"unbalanced(", &[]),
        ];
        for (pattern, want) in cases {
            let want: Vec<Vec<String>> = want
                .iter()
                .map(|c| c.iter().map(|l| l.to_string()).collect())
                .collect();
            assert_eq!(show(pattern), want, "{pattern}");
        }
    }
}
