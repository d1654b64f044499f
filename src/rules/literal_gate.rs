//! The first stage of the pattern prefilter: words a pattern cannot match without.
//!
//! Most patterns are phrases: `(ignore|disregard) ... (previous|prior) ... instructions`. Any
//! match contains one of `ignore`/`disregard`, one of `previous`/`prior`, and `instruction`. Each
//! such set of literals is a *clause*; a pattern is a candidate for a string only when every one
//! of its clauses has a literal in the string. One Aho-Corasick automaton finds every literal of
//! every pattern in a single pass, and builds in a millisecond or two, where the lazy DFA over
//! the same patterns spent most of a small scan building its states. So patterns with clauses
//! skip the DFA altogether, and the rule's own regex confirms each candidate.
//!
//! The clauses are read off the pattern's syntax tree, for every string the pattern can match
//! case-insensitively (as every rule pattern is compiled), on any text:
//!
//! - a character stands for its case-folding orbit, as the regex crate folds it: `i` for `i` and
//!   `I`, `s` for `s`, `S` and `ſ`. The automaton ignores ASCII case, so ASCII letters are kept
//!   lowercase and only the other members of an orbit become literals of their own. Every
//!   letter is folded, even under `(?-i)`: that only widens;
//! - a bracketed class of at most [`MAX_CLASS`] characters expands into one literal each;
//! - a run of such pieces in sequence multiplies out, up to [`MAX_LITERALS`] literals;
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
//! Dropping a clause, or never finding one, only widens the prefilter. A pattern with no clause
//! at all (`[A-Za-z0-9+/]{40,}`) is not gated here; the lazy DFA of the later stage runs it.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use aho_corasick::automaton::Automaton;
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Anchored, MatchKind};
use regex_syntax::ast::{self, Ast};
use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

use super::background::Background;
use super::bit_set;
use super::dense_dfa::DenseDfa;

/// The largest class expanded into literals (after ASCII case is folded away).
const MAX_CLASS: usize = 4;
/// The most literals one clause may have.
const MAX_LITERALS: usize = 64;
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

/// Every string of `a` followed by one of `b`; `a` back past [`MAX_LITERALS`].
fn product(mut a: Clause, b: &Clause) -> Result<Clause, Clause> {
    if a.len().saturating_mul(b.len()) > MAX_LITERALS {
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

/// `c` and every character it case-folds to, as literals (ASCII letters lowercase).
fn orbit(c: char) -> Clause {
    static ASCII: OnceLock<Vec<Clause>> = OnceLock::new();
    if c.is_ascii() {
        let table =
            ASCII.get_or_init(|| (0..128u8).map(|b| unicode_orbit(char::from(b))).collect());
        if let Some(orbit) = table.get(c as usize) {
            return orbit.clone();
        }
    }
    unicode_orbit(c)
}

fn unicode_orbit(c: char) -> Clause {
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

/// Which patterns' clauses all have a literal in a string.
#[derive(Debug)]
pub struct LiteralGate {
    /// Quick to build (2–3 ms, on the second core while the run reads its inputs): runs the
    /// first strings of every scan. `None` if it could not be built: every gated pattern is
    /// then a candidate (slower, same findings).
    nfa: Background<Option<NFA>>,
    /// The NFA unrolled into a table: nearly twice as fast to run and ten milliseconds to
    /// build, so built once a scan has run [`DENSE_AFTER_BYTES`] through the NFA (by the
    /// thread that crosses the mark, while the others go on with the NFA): a small scan never
    /// pays for it. `None` if it could not be built.
    dense: OnceLock<Option<DenseGate>>,
    /// Bytes run through the NFA so far.
    scanned: AtomicUsize,
    /// Every literal, numbered as the automata number them.
    literals: Arc<Vec<Vec<u8>>>,
    /// The clauses each literal is in.
    literal_clauses: LiteralClauses,
    /// The pattern of each clause.
    clause_patterns: Vec<usize>,
    /// Each pattern's clauses (empty: not gated). Clauses are numbered pattern by pattern.
    pattern_clauses: Vec<Range<usize>>,
}

/// The clauses each literal is in: a bitset of `words` words per literal, bit `c` for clause
/// `c`, laid end to end so that marking a literal's clauses is a few ORs over one cache line.
#[derive(Debug)]
struct LiteralClauses {
    words: usize,
    masks: Vec<u64>,
}

impl LiteralClauses {
    /// From each literal's clauses, given the number of clauses.
    fn new(owners: &[Vec<usize>], clauses: usize) -> LiteralClauses {
        let words = clauses.div_ceil(64);
        let mut masks = vec![0; owners.len() * words];
        for (literal, owners) in owners.iter().enumerate() {
            if let Some(mask) = masks.get_mut(literal * words..(literal + 1) * words) {
                for &clause in owners {
                    bit_set::insert(mask, clause);
                }
            }
        }
        LiteralClauses { words, masks }
    }

    fn of(&self, literal: usize) -> &[u64] {
        let start = literal * self.words;
        self.masks.get(start..start + self.words).unwrap_or(&[])
    }

    /// The clauses of each group of literals: the union of its literals'.
    fn of_groups<'g>(&self, groups: impl Iterator<Item = &'g [usize]>) -> LiteralClauses {
        let mut masks = Vec::new();
        for group in groups {
            let start = masks.len();
            masks.resize(start + self.words, 0);
            for &literal in group {
                for (word, bits) in masks.iter_mut().skip(start).zip(self.of(literal)) {
                    *word |= bits;
                }
            }
        }
        LiteralClauses {
            words: self.words,
            masks,
        }
    }
}

/// The dense table of the gate's literals, and the clauses each of its match sets is in.
#[derive(Debug)]
struct DenseGate {
    dfa: DenseDfa,
    set_clauses: LiteralClauses,
}

impl DenseGate {
    fn new(nfa: &NFA, literals: &[Vec<u8>], literal_clauses: &LiteralClauses) -> Option<DenseGate> {
        let dfa = DenseDfa::new(nfa, literals)?;
        let set_clauses =
            literal_clauses.of_groups((0..=dfa.match_sets()).map(|set| dfa.patterns_of(set)));
        Some(DenseGate { dfa, set_clauses })
    }

    fn clauses_in(&self, haystack: &[u8]) -> ClauseHits {
        let mut hits = ClauseHits::default();
        self.dfa
            .match_sets_in(haystack, |set| hits.mark(self.set_clauses.of(set)));
        hits
    }
}

/// The clauses a string has a literal of, bit `c` for clause `c`: ORing in each literal's
/// clauses as it is found is cheaper than collecting the literals (one every ten bytes or so of
/// prose), then sorting them, deduplicating them and mapping them to clauses. Empty until the
/// first literal: most strings have none.
#[derive(Debug, Default)]
struct ClauseHits(Vec<u64>);

impl ClauseHits {
    fn mark(&mut self, clauses: &[u64]) {
        if self.0.is_empty() {
            self.0.extend_from_slice(clauses);
        } else {
            for (word, bits) in self.0.iter_mut().zip(clauses) {
                *word |= bits;
            }
        }
    }

    fn contains(&self, clause: usize) -> bool {
        bit_set::contains(&self.0, clause)
    }

    /// The clauses marked, ascending.
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        bit_set::ones(&self.0)
    }
}

/// See [`LiteralGate::dense`]: with the clauses' bookkeeping, the NFA takes about 11 ms per MB
/// of text and the table 6 ms.
const DENSE_AFTER_BYTES: usize = 4 << 20;

// The NFA lists at each match state every literal that ends there (`Standard` semantics),
// which `each_literal_in` walks and the dense table copies: a clause's literal may sit inside or
// across another's, and must be found all the same.
fn nfa(literals: &[Vec<u8>]) -> Option<NFA> {
    NFA::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(literals)
        .ok()
}

/// Calls `found` with every literal that ends somewhere in `haystack` (some more than once),
/// walking the automaton a byte at a time. Strings hold about one literal per ten bytes, and the
/// iterator of overlapping matches spent a quarter of its time starting over after each.
fn each_literal_in(
    automaton: &impl Automaton,
    haystack: &[u8],
    mut found: impl FnMut(usize),
) -> Option<()> {
    let mut state = automaton.start_state(Anchored::No).ok()?;
    for &byte in haystack {
        state = automaton.next_state(Anchored::No, state, byte);
        if automaton.is_special(state) && automaton.is_match(state) {
            for i in 0..automaton.match_len(state) {
                found(automaton.match_pattern(state, i).as_usize());
            }
        }
    }
    Some(())
}

impl LiteralGate {
    /// The gate over `patterns`, each given by its clauses.
    pub fn new(patterns: &[Vec<Clause>]) -> LiteralGate {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut literal_ids: std::collections::HashMap<&[u8], usize> = Default::default();
        let mut literal_clauses: Vec<Vec<usize>> = Vec::new();
        let mut clause_patterns = Vec::new();
        let mut pattern_clauses = Vec::new();
        for (pattern, clauses) in patterns.iter().enumerate() {
            let first = clause_patterns.len();
            for clause in clauses {
                let id = clause_patterns.len();
                clause_patterns.push(pattern);
                for literal in clause {
                    let next = literals.len();
                    let literal_id = *literal_ids.entry(literal.as_slice()).or_insert(next);
                    if literal_id == next {
                        literals.push(literal.clone());
                        literal_clauses.push(Vec::new());
                    }
                    if let Some(owners) = literal_clauses.get_mut(literal_id) {
                        owners.push(id);
                    }
                }
            }
            pattern_clauses.push(first..clause_patterns.len());
        }
        let literal_clauses = LiteralClauses::new(&literal_clauses, clause_patterns.len());
        let literals = Arc::new(literals);
        let nfa = {
            let literals = Arc::clone(&literals);
            Background::spawn("rule-literals", move || nfa(&literals))
        };
        LiteralGate {
            nfa,
            dense: OnceLock::new(),
            scanned: AtomicUsize::new(0),
            literals,
            literal_clauses,
            clause_patterns,
            pattern_clauses,
        }
    }

    fn nfa(&self) -> Option<&NFA> {
        self.nfa.get(|| nfa(&self.literals)).as_ref()
    }

    fn dense(&self) -> Option<&DenseGate> {
        self.dense
            .get_or_init(|| DenseGate::new(self.nfa()?, &self.literals, &self.literal_clauses))
            .as_ref()
    }

    /// The dense table, once the scan has run [`DENSE_AFTER_BYTES`] through the NFA (counting
    /// the next `len` bytes).
    fn dense_for(&self, len: usize) -> Option<&DenseGate> {
        match self.dense.get() {
            Some(built) => built.as_ref(),
            None => {
                let before = self.scanned.fetch_add(len, Ordering::Relaxed);
                if before < DENSE_AFTER_BYTES && before.saturating_add(len) >= DENSE_AFTER_BYTES {
                    self.dense()
                } else {
                    None
                }
            }
        }
    }

    /// The clauses with a literal in `haystack`, by whichever automaton is ready; `None` when
    /// none could be built.
    fn clauses_in(&self, haystack: &[u8]) -> Option<ClauseHits> {
        match self.dense_for(haystack.len()) {
            Some(dense) => Some(dense.clauses_in(haystack)),
            None => self.clauses_by(self.nfa()?, haystack),
        }
    }

    fn clauses_by(&self, automaton: &impl Automaton, haystack: &[u8]) -> Option<ClauseHits> {
        let mut hits = ClauseHits::default();
        each_literal_in(automaton, haystack, |literal| {
            hits.mark(self.literal_clauses.of(literal));
        })?;
        Some(hits)
    }

    /// Whether pattern `i` has clauses (else the gate says nothing about it).
    pub fn gates(&self, pattern: usize) -> bool {
        self.pattern_clauses
            .get(pattern)
            .is_some_and(|clauses| !clauses.is_empty())
    }

    /// The gated patterns whose every clause has a literal in `haystack`, ascending.
    pub fn candidates(&self, haystack: &[u8]) -> Vec<usize> {
        match self.clauses_in(haystack) {
            Some(hits) => self.candidates_among(&hits),
            None => (0..self.pattern_clauses.len())
                .filter(|&pattern| self.gates(pattern))
                .collect(),
        }
    }

    /// The gated patterns whose every clause is in `hits`, ascending (clauses are numbered
    /// pattern by pattern, so a pattern is looked at from its first clause).
    fn candidates_among(&self, hits: &ClauseHits) -> Vec<usize> {
        hits.iter()
            .filter_map(|clause| {
                let pattern = *self.clause_patterns.get(clause)?;
                let clauses = self.pattern_clauses.get(pattern)?;
                (clauses.start == clause && clauses.clone().all(|c| hits.contains(c)))
                    .then_some(pattern)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Catalogue, Kind};

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
        let cases: [(&str, &[&[&str]]); 14] = [
            // Runs end where a part is not exact; a Unicode fold adds its own literal.
            (r"\bignore\s+all\b", &[&["ignore"], &["all"]]),
            (
                r"ask(\s+me)?\s+first",
                &[
                    &["ask", "as\u{212a}", "aſk", "aſ\u{212a}"],
                    &["first", "firſt"],
                ],
            ),
            // An alternation is one clause, exact while small.
            (
                r"(send|post)\s+to",
                &[&["post", "poſt", "send", "ſend"], &["to"]],
            ),
            // A branch without a clause leaves the alternation without one.
            (r"(secret|\w+)key", &[&["key", "\u{212a}ey"]]),
            // A branch's strongest clause: longest, then rarest (`-e` over `nc`).
            (r"mkfifo|\bnc\s+-e\b", &[&["-e", "mkfifo", "m\u{212a}fifo"]]),
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

    /// The gate may only widen: wherever a builtin pattern matches one of its rule's examples
    /// (as written, in upper case, or with the letters that fold to ASCII ones), the gate lets
    /// the pattern through.
    #[test]
    fn the_gate_passes_whatever_its_pattern_matches() {
        let catalogue = Catalogue::builtin().unwrap();
        let rules: Vec<_> = catalogue
            .rules()
            .iter()
            .filter(|r| r.kind == Kind::Pattern)
            .collect();
        let patterns: Vec<&String> = rules.iter().flat_map(|r| &r.patterns).collect();
        let gate = LiteralGate::new(&patterns.iter().map(|p| clauses(p)).collect::<Vec<_>>());
        let (nfa, dense) = (gate.nfa().unwrap(), gate.dense().unwrap());
        let mut checked = 0;
        for rule in rules {
            let examples = rule.examples.as_ref().unwrap();
            for pattern in &rule.patterns {
                let i = patterns.iter().position(|p| *p == pattern).unwrap();
                let regex = regex::RegexBuilder::new(pattern)
                    .case_insensitive(true)
                    .build()
                    .unwrap();
                for example in examples.must_match.iter().chain(&examples.no_match) {
                    let variants = [
                        example.clone(),
                        example.to_uppercase(),
                        example.replace('s', "ſ").replace('k', "\u{212a}"),
                    ];
                    for text in variants.iter().filter(|t| regex.is_match(t)) {
                        checked += 1;
                        let found = [
                            gate.clauses_by(nfa, text.as_bytes()).unwrap(),
                            dense.clauses_in(text.as_bytes()),
                        ];
                        for hits in found {
                            let passed = gate.candidates_among(&hits);
                            assert!(
                                !gate.gates(i) || passed.contains(&i),
                                "{}: {pattern} on {text:?}",
                                rule.id
                            );
                        }
                    }
                }
            }
        }
        assert!(checked > 100, "only {checked} matches checked");
    }

    /// Past [`DENSE_AFTER_BYTES`] the gate builds and runs its dense table, with the same
    /// answers.
    #[test]
    fn the_dense_table_takes_over_with_the_same_answers() {
        let gate = LiteralGate::new(&[clauses(r"ignore\s+previous")]);
        let filler = "x".repeat(DENSE_AFTER_BYTES);
        assert!(gate.dense.get().is_none());
        assert_eq!(gate.candidates(filler.as_bytes()), Vec::<usize>::new());
        assert!(gate.dense.get().is_some_and(Option::is_some));
        assert_eq!(gate.candidates(b"Ignore PREVIOUS"), [0]);
        assert_eq!(gate.candidates(b"ignore"), Vec::<usize>::new());
    }

    #[test]
    fn a_pattern_passes_when_every_clause_has_a_literal() {
        let gate = LiteralGate::new(&[
            clauses(r"ignore\s+previous"),
            clauses(r"[ \t]{80,}\S"),
            clauses(r"\w+"),
        ]);
        assert!(gate.gates(0) && gate.gates(1) && !gate.gates(2));
        assert_eq!(gate.candidates(b"IGNORE the PREVIOUS"), [0]);
        assert_eq!(gate.candidates(b"ignore this"), Vec::<usize>::new());
        // Overlapping literals are all found: `previous` inside `ignoreprevious`, and six
        // blanks in a row (as many copies of `[ \t]` as fit in a clause) at every offset.
        assert_eq!(gate.candidates(b"ignoreprevious \t     x"), [0, 1]);
        assert_eq!(gate.candidates(b"ignore previous     x"), [0]);
        assert_eq!(gate.candidates(b""), Vec::<usize>::new());
    }

    /// Literals that end at the same byte (one a suffix of the other) are all found, by the
    /// NFA and the dense table.
    #[test]
    fn finds_every_literal_that_ends_at_a_byte() {
        let gate = LiteralGate::new(&[clauses(r"previous"), clauses(r"vious\s+stuff")]);
        let haystack = b"Previous stuff";
        let nfa = gate.clauses_by(gate.nfa().unwrap(), haystack).unwrap();
        let dense = gate.dense().unwrap().clauses_in(haystack);
        for hits in [nfa, dense] {
            assert_eq!(gate.candidates_among(&hits), [0, 1]);
        }
    }
}
