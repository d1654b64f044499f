//! The first stage of the pattern prefilter: one pass over a string finds every literal of
//! every pattern's clauses (see [`super::clauses`]), and a pattern is a candidate only when each
//! of its clauses has a literal in the string: for a sentence-bound pattern (see
//! [`super::sentences`]), in one sentence of it, which the same walk tells apart. One
//! Aho-Corasick automaton finds them, and builds in a millisecond or two, where the lazy DFA
//! over the same patterns spent most of a small scan building its states. So patterns with clauses skip the DFA altogether, and the rule's own
//! regex confirms each candidate. A pattern with no clause at all (`[A-Za-z0-9+/]{40,}`) is not
//! gated here; the lazy DFA of the later stage runs it.
//!
//! The builtin rules' literals come with their dense table, built by `build.rs`: a run whose
//! literals are all among them (every run without rule packs of its own) builds no automaton.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use aho_corasick::Anchored;
use aho_corasick::automaton::Automaton;
use aho_corasick::nfa::contiguous::NFA;

use foldhash::HashMap;

use super::background::Background;
use super::bit_set;
use super::dense_dfa::{DenseDfa, literal_nfa};
use super::embedded;
use super::{Gating, sentences};

/// Which patterns' clauses all have a literal in a string.
#[derive(Debug)]
pub struct LiteralGate {
    automata: Automata,
    /// The clauses each literal is in.
    literal_clauses: ClauseLists,
    /// The pattern of each clause.
    clause_patterns: Vec<usize>,
    /// Each pattern's clauses (empty: not gated). Clauses are numbered pattern by pattern.
    pattern_clauses: Vec<Range<usize>>,
    /// Where the gated patterns' clauses lie in each word of a clause bit set.
    word_patterns: Vec<WordPatterns>,
    /// Which patterns no match of which leaves a sentence (see [`sentences`]).
    sentence_bound: Vec<bool>,
}

/// A gated pattern that may match a haystack, and the part of the haystack where a match of it
/// would lie.
pub type Candidate = (usize, Range<usize>);

/// The longest string whose sentences the gate tells apart: the walk that does keeps a log of
/// two bytes per byte of the string, which for a 64 MiB description would be 128 MiB. A longer
/// string is a candidate for a sentence-bound pattern as a whole (only wider). Descriptions
/// run to a few KB.
const MAX_SENTENCE_WALK: usize = 1 << 16;

/// What finds the literals.
#[derive(Debug)]
enum Automata {
    /// The builtin rules' table, numbering literals as [`embedded::GATE_LITERALS`] lists them;
    /// it also finds literals no pattern of the run has (a rule turned off), which mark no
    /// clause.
    Embedded(Box<DenseGate>),
    /// Built for this run's literals.
    Built(Box<Built>),
}

#[derive(Debug)]
struct Built {
    /// Quicker to build than the table (about 10 ms for the builtin rules' 4.4k literals, on a
    /// thread of its own while the run reads its inputs): runs the first strings of a scan.
    /// `None` if it could not be built: every gated pattern is then a candidate (slower, same
    /// findings).
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
}

/// The clauses each literal is in: a list per literal, end to end. A literal is in two
/// clauses on average; as bit sets of every clause (the builtin rules have 2113) they took
/// 700 KB to build for every run (when there were 1312), and a small scan's page faults.
#[derive(Debug)]
struct ClauseLists {
    /// How many clauses there are.
    clauses: usize,
    /// Where each literal's list starts in `lists`, and where the last one ends.
    starts: Vec<usize>,
    lists: Vec<usize>,
}

impl ClauseLists {
    /// From every (literal, clause) pair, in the order clauses are numbered, given how many
    /// literals and clauses there are: each literal's list keeps that order. Counted, then
    /// placed: a list per literal, grown push by push, took 0.6M more instructions at every
    /// start-up.
    fn new(owners: Vec<(usize, usize)>, literals: usize, clauses: usize) -> ClauseLists {
        let mut starts = vec![0; literals + 1];
        for &(literal, _) in &owners {
            if let Some(count) = starts.get_mut(literal + 1) {
                *count += 1;
            }
        }
        let mut total = 0;
        for start in &mut starts {
            total += *start;
            *start = total;
        }
        let mut next = starts.clone();
        let mut lists = vec![0; owners.len()];
        for (literal, clause) in owners {
            if let Some(at) = next.get_mut(literal)
                && let Some(slot) = lists.get_mut(*at)
            {
                *slot = clause;
                *at += 1;
            }
        }
        ClauseLists {
            clauses,
            starts,
            lists,
        }
    }

    fn of(&self, literal: usize) -> &[usize] {
        match (self.starts.get(literal), self.starts.get(literal + 1)) {
            (Some(&start), Some(&end)) => self.lists.get(start..end).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// The clauses each match set of a dense table is in, as a bit set of every clause per set,
/// end to end: a string reaches a few dozen sets, and ORing in a set's bits was 2% faster over
/// a scan than marking its clauses one by one from lists.
#[derive(Debug)]
struct SetClauses {
    words: usize,
    masks: Vec<u64>,
}

impl SetClauses {
    /// The union of the clauses of each set's literals.
    fn new<'s>(
        sets: impl ExactSizeIterator<Item = &'s [usize]>,
        literals: &ClauseLists,
    ) -> SetClauses {
        let words = literals.clauses.div_ceil(64);
        let mut masks = vec![0; sets.len() * words];
        for (set, mask) in sets.zip(masks.chunks_exact_mut(words.max(1))) {
            for &literal in set {
                for &clause in literals.of(literal) {
                    bit_set::insert(mask, clause);
                }
            }
        }
        SetClauses { words, masks }
    }

    fn of(&self, set: usize) -> &[u64] {
        let start = set * self.words;
        self.masks.get(start..start + self.words).unwrap_or(&[])
    }
}

/// The dense table of the gate's literals, and the clauses each of its match sets is in.
#[derive(Debug)]
struct DenseGate {
    dfa: DenseDfa,
    set_clauses: SetClauses,
}

impl DenseGate {
    fn new(dfa: DenseDfa, literal_clauses: &ClauseLists) -> DenseGate {
        let set_clauses = SetClauses::new(
            (0..dfa.match_sets() + 1).map(|set| dfa.patterns_of(set)),
            literal_clauses,
        );
        DenseGate { dfa, set_clauses }
    }

    /// [`embedded::GATE_TABLE`]; `None` when the build could not make it.
    fn embedded(literal_clauses: &ClauseLists) -> Option<DenseGate> {
        let dfa = DenseDfa::from_parts(
            embedded::GATE_CLASSES,
            embedded::GATE_TABLE,
            embedded::GATE_MATCH_OF,
            embedded::GATE_MATCH_SETS,
            embedded::GATE_LITERALS
                .iter()
                .map(|l| l.len())
                .max()
                .unwrap_or(0),
        )?;
        Some(DenseGate::new(dfa, literal_clauses))
    }

    /// The clauses of `sets`, the match sets a string reaches (none of them 0), as many
    /// times as it reaches each.
    fn clauses_of(&self, sets: &[u16]) -> ClauseHits {
        let mut hits = ClauseHits::default();
        if sets.len() <= FEW_SETS {
            for &set in sets {
                hits.mark_all(self.set_clauses.of(usize::from(set)));
            }
        } else {
            bit_set::with_zeroed(self.dfa.match_sets() + 1, |marked| {
                for &set in sets {
                    let set = usize::from(set);
                    if !bit_set::contains(marked, set) {
                        bit_set::insert(marked, set);
                        hits.mark_all(self.set_clauses.of(set));
                    }
                }
            });
        }
        hits
    }

    /// The clauses of the match sets reached in `haystack`.
    fn clauses_in(&self, haystack: &[u8]) -> ClauseHits {
        if haystack.len() > FEW_SETS_LEN {
            let mut hits = ClauseHits::default();
            self.dfa
                .match_sets_in(haystack, |set| hits.mark_all(self.set_clauses.of(set)));
            return hits;
        }
        let (sets, _) =
            DenseDfa::sets_by_part(self.dfa.sets_at_each_byte(haystack), [haystack.len()]);
        self.clauses_of(&sets)
    }
}

/// The clauses a string has a literal of, bit `c` for clause `c`: marking each literal's
/// clauses as it is found is cheaper than collecting the literals (one every four bytes or so of
/// prose), then sorting them, deduplicating them and mapping them to clauses. Empty until the
/// first literal: most strings have none.
#[derive(Debug, Default)]
struct ClauseHits(Vec<u64>);

impl ClauseHits {
    /// Marks the clauses of `bits`.
    fn mark_all(&mut self, bits: &[u64]) {
        if self.0.is_empty() {
            self.0.extend_from_slice(bits);
        } else {
            for (word, bits) in self.0.iter_mut().zip(bits) {
                *word |= bits;
            }
        }
    }

    /// Marks the clauses in `found`, one literal's list in `lists`.
    fn mark(&mut self, found: &[usize], lists: &ClauseLists) {
        if self.0.is_empty() && !found.is_empty() {
            self.0.resize(lists.clauses.div_ceil(64), 0);
        }
        for &clause in found {
            bit_set::insert(&mut self.0, clause);
        }
    }

    fn contains(&self, clause: usize) -> bool {
        bit_set::contains(&self.0, clause)
    }
}

/// Up to how many match sets a string's clauses are marked from each set as the walk reached
/// it, a set that came again marked again: fewer ORs of a set's clauses (34 words for the
/// builtin rules) than the bit set of every match set that tells repeats apart costs (111
/// words, cleared, and for a string without periods listed). Most strings are short property
/// descriptions and values.
const FEW_SETS: usize = 16;

/// The longest string without periods whose sets are logged and marked from the log, not from
/// the bit set. The 10k corpus's strings reach a set every four bytes or so, a third of them
/// repeats; whether this was 64 or 160 bytes moved the gate's time over them by 1%.
const FEW_SETS_LEN: usize = 10 * FEW_SETS;

/// See [`Built::dense`]: with the clauses' bookkeeping, the NFA takes about 11 ms per MB
/// of text and the table 6 ms.
const DENSE_AFTER_BYTES: usize = 4 << 20;

/// Calls `found` with every literal that ends somewhere in `haystack` (some more than once),
/// walking the automaton a byte at a time. Strings hold about one literal per four bytes, and the
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

/// Whether `haystack` holds `ſ` or the Kelvin sign, the two characters that a case-insensitive
/// pattern reads as the ASCII letters `s` and `k`. The clauses leave them out (they would
/// double the literals of every word with an `s` or a `k`), so such a string, rare outside an
/// attempt to slip past the gate, goes to every pattern. Non-ASCII bytes are rare in most
/// strings, and an ASCII string is passed over with one look for a byte of either.
pub(super) fn folds_to_ascii_letter(haystack: &[u8]) -> bool {
    memchr::memchr2(0xC5, 0xE2, haystack).is_some()
        && (memchr::memmem::find(haystack, "ſ".as_bytes()).is_some()
            || memchr::memmem::find(haystack, "\u{212a}".as_bytes()).is_some())
}

impl Built {
    /// Starts building the NFA of `literals` on a thread of its own.
    fn new(literals: Vec<Vec<u8>>) -> Built {
        let literals = Arc::new(literals);
        let nfa = {
            let literals = Arc::clone(&literals);
            Background::spawn("rule-literals", move || literal_nfa(&literals))
        };
        Built {
            nfa,
            dense: OnceLock::new(),
            scanned: AtomicUsize::new(0),
            literals,
        }
    }

    fn nfa(&self) -> Option<&NFA> {
        self.nfa.get(|| literal_nfa(&self.literals)).as_ref()
    }

    fn dense(&self, literal_clauses: &ClauseLists) -> Option<&DenseGate> {
        self.dense
            .get_or_init(|| {
                let dfa = DenseDfa::new(self.nfa()?, &self.literals)?;
                Some(DenseGate::new(dfa, literal_clauses))
            })
            .as_ref()
    }

    /// The dense table, once the scan has run [`DENSE_AFTER_BYTES`] through the NFA (counting
    /// the next `len` bytes).
    fn dense_for(&self, len: usize, literal_clauses: &ClauseLists) -> Option<&DenseGate> {
        match self.dense.get() {
            Some(built) => built.as_ref(),
            None => {
                let before = self.scanned.fetch_add(len, Ordering::Relaxed);
                if before < DENSE_AFTER_BYTES && before.saturating_add(len) >= DENSE_AFTER_BYTES {
                    self.dense(literal_clauses)
                } else {
                    None
                }
            }
        }
    }
}

impl LiteralGate {
    /// The gate over `patterns`.
    pub fn new(patterns: &[Gating]) -> LiteralGate {
        LiteralGate::with_table(patterns, true)
    }

    /// The gate over `patterns`, with the builtin table when `may_embed` and it has every
    /// literal of them.
    fn with_table(patterns: &[Gating], may_embed: bool) -> LiteralGate {
        // The builtin literals first, numbered as the embedded table numbers them; a literal
        // they lack is numbered after them.
        let mut literals: Vec<&[u8]> = embedded::GATE_LITERALS.to_vec();
        let mut literal_ids: HashMap<&[u8], usize> = literals
            .iter()
            .enumerate()
            .map(|(id, &literal)| (literal, id))
            .collect();
        // Each (literal, clause) pair, listed per literal below.
        let mut owners: Vec<(usize, usize)> = Vec::new();
        let mut clause_patterns = Vec::new();
        let mut pattern_clauses = Vec::new();
        for (pattern, gating) in patterns.iter().enumerate() {
            let first = clause_patterns.len();
            for clause in &gating.clauses {
                let id = clause_patterns.len();
                clause_patterns.push(pattern);
                for literal in clause {
                    let literal_id = *literal_ids.entry(literal).or_insert_with(|| {
                        literals.push(literal);
                        literals.len() - 1
                    });
                    owners.push((literal_id, id));
                }
            }
            pattern_clauses.push(first..clause_patterns.len());
        }
        let embedded = may_embed && literals.len() == embedded::GATE_LITERALS.len();
        let word_patterns = WordPatterns::of(&pattern_clauses, clause_patterns.len());
        let literal_clauses = ClauseLists::new(owners, literals.len(), clause_patterns.len());
        let automata = match embedded
            .then(|| DenseGate::embedded(&literal_clauses))
            .flatten()
        {
            Some(table) => Automata::Embedded(Box::new(table)),
            None => Automata::Built(Box::new(Built::new(
                literals.into_iter().map(<[u8]>::to_vec).collect(),
            ))),
        };
        LiteralGate {
            automata,
            literal_clauses,
            clause_patterns,
            pattern_clauses,
            word_patterns,
            sentence_bound: patterns.iter().map(|g| g.sentence_bound).collect(),
        }
    }

    /// The dense table, when it is ready for a haystack of `len` bytes (see
    /// [`Built::dense_for`]).
    fn table_for(&self, len: usize) -> Option<&DenseGate> {
        match &self.automata {
            Automata::Embedded(table) => Some(table),
            Automata::Built(built) => built.dense_for(len, &self.literal_clauses),
        }
    }

    fn clauses_by(&self, automaton: &impl Automaton, haystack: &[u8]) -> Option<ClauseHits> {
        let mut hits = ClauseHits::default();
        each_literal_in(automaton, haystack, |literal| {
            hits.mark(self.literal_clauses.of(literal), &self.literal_clauses);
        })?;
        Some(hits)
    }

    /// Whether pattern `i` has clauses (else the gate says nothing about it).
    pub fn gates(&self, pattern: usize) -> bool {
        self.pattern_clauses
            .get(pattern)
            .is_some_and(|clauses| !clauses.is_empty())
    }

    /// The gated patterns whose every clause has a literal in `haystack` (for a
    /// sentence-bound pattern, in one sentence), ascending, each with where its match would
    /// lie: the whole haystack, or for a sentence-bound pattern, from the start of the first
    /// sentence that has all its clauses to the end of the last.
    pub fn candidates(&self, haystack: &[u8]) -> Vec<Candidate> {
        let whole = || 0..haystack.len();
        // Checked before the walk: its literals would not decide for such a string.
        if folds_to_ascii_letter(haystack) {
            return self.every_gated(whole());
        }
        let hits = match self.table_for(haystack.len()) {
            Some(table)
                if haystack.len() <= MAX_SENTENCE_WALK && sentences::has_periods(haystack) =>
            {
                return self.candidates_by_sentence(table, haystack);
            }
            Some(table) => Some(table.clauses_in(haystack)),
            // Only the first bytes of a run with literals of its own come here; the NFA tells
            // no sentences apart, so a sentence-bound pattern gets the whole string (wider).
            None => match &self.automata {
                Automata::Built(built) => {
                    built.nfa().and_then(|nfa| self.clauses_by(nfa, haystack))
                }
                Automata::Embedded(_) => None,
            },
        };
        match hits {
            Some(hits) => self
                .candidates_among(&hits)
                .into_iter()
                .map(|p| (p, whole()))
                .collect(),
            None => self.every_gated(whole()),
        }
    }

    /// Every gated pattern, in `within`.
    fn every_gated(&self, within: Range<usize>) -> Vec<Candidate> {
        (0..self.pattern_clauses.len())
            .filter(|&pattern| self.gates(pattern))
            .map(|pattern| (pattern, within.clone()))
            .collect()
    }

    /// [`LiteralGate::candidates`] for a haystack of several sentences, by the dense table.
    fn candidates_by_sentence(&self, table: &DenseGate, haystack: &[u8]) -> Vec<Candidate> {
        let sentences: Vec<Range<usize>> = sentences::sentences(haystack).collect();
        // Each sentence is walked with the period after it, so that the walk covers every
        // byte: a literal that holds a period (no sentence-bound pattern has one) counts for
        // the sentence it ends in.
        let ends = sentences.iter().map(|s| (s.end + 1).min(haystack.len()));
        let (sets, sentence_ends) =
            DenseDfa::sets_by_part(table.dfa.sets_at_each_byte(haystack), ends);
        let whole = table.clauses_of(&sets);
        let (bound, free): (Vec<usize>, Vec<usize>) = self
            .candidates_among(&whole)
            .into_iter()
            .partition(|&p| self.sentence_bound.get(p) == Some(&true));
        let mut candidates: Vec<Candidate> =
            free.into_iter().map(|p| (p, 0..haystack.len())).collect();
        if bound.is_empty() {
            return candidates;
        }
        // Each bound pattern's first and last sentence with all its clauses. A sentence
        // reaches a dozen match sets or so, so each clause is looked up in their bits rather
        // than every clause of the sentence marked (34 words a set for the builtin rules).
        let mut spans: Vec<Option<Range<usize>>> = vec![None; bound.len()];
        let mut from = 0;
        for (sentence, &to) in sentences.iter().zip(&sentence_ends) {
            let group = sets.get(from..to).unwrap_or(&[]);
            from = to;
            if group.is_empty() {
                continue;
            }
            let hit = |clause: usize| {
                group
                    .iter()
                    .any(|&set| bit_set::contains(table.set_clauses.of(usize::from(set)), clause))
            };
            for (&pattern, span) in bound.iter().zip(&mut spans) {
                if self.has_every_clause(pattern, hit) {
                    let start = span.as_ref().map_or(sentence.start, |s| s.start);
                    *span = Some(start..sentence.end);
                }
            }
        }
        candidates.extend(
            bound
                .into_iter()
                .zip(spans)
                .filter_map(|(p, span)| Some((p, span?))),
        );
        candidates.sort_unstable_by_key(|&(p, _)| p);
        candidates
    }

    /// Whether `hit` holds for every clause of `pattern`.
    fn has_every_clause(&self, pattern: usize, hit: impl FnMut(usize) -> bool) -> bool {
        self.pattern_clauses
            .get(pattern)
            .is_some_and(|clauses| clauses.clone().all(hit))
    }

    /// The gated patterns whose every clause is in `hits`, ascending.
    fn candidates_among(&self, hits: &ClauseHits) -> Vec<usize> {
        let mut found = Vec::new();
        for (i, (&hit, word)) in hits.0.iter().zip(&self.word_patterns).enumerate() {
            for after in bit_set::ones_in_word(i, word.every_clause_in(hit)) {
                found.extend(self.clause_patterns.get(after - 1));
            }
            for first in bit_set::ones_in_word(i, hit & word.other_firsts) {
                found.extend(
                    self.clause_patterns
                        .get(first)
                        .filter(|&&p| self.has_every_clause(p, |c| hits.contains(c))),
                );
            }
        }
        found
    }
}

/// The gated patterns whose clauses (numbered pattern by pattern, so each pattern's are a run of
/// bits) lie in one word of a clause bit set, split into two sets, every other pattern in each,
/// so that no two patterns of a set are next to each other; and the first clauses of the
/// patterns that start in the word and reach its last bit or past it (the last pattern of the
/// word, if any).
///
/// A long string hits hundreds of clauses, and ten or so patterns' first clauses; testing each
/// of those patterns' clauses one by one took a sixth of the gate's time.
#[derive(Debug, Default, Clone)]
struct WordPatterns {
    /// Each set's patterns' clauses.
    clauses: [u64; 2],
    /// Their first clauses.
    firsts: [u64; 2],
    /// The bit after each one's last clause.
    afters: [u64; 2],
    /// The first clause of the pattern that reaches the word's last bit or goes past it, whose
    /// clauses are tested one by one.
    other_firsts: u64,
}

impl WordPatterns {
    /// For each word of a bit set of `clauses` clauses, given each pattern's clauses.
    fn of(pattern_clauses: &[Range<usize>], clauses: usize) -> Vec<WordPatterns> {
        let mut words = vec![WordPatterns::default(); clauses.div_ceil(64)];
        let runs = pattern_clauses.iter().filter(|c| !c.is_empty());
        for (n, run) in runs.enumerate() {
            let (word, first) = (run.start / 64, run.start % 64);
            let Some(at) = words.get_mut(word) else {
                continue;
            };
            if first + run.len() >= 64 {
                at.other_firsts |= 1 << first;
                continue;
            }
            let set = n % 2;
            if let (Some(clauses), Some(firsts), Some(afters)) = (
                at.clauses.get_mut(set),
                at.firsts.get_mut(set),
                at.afters.get_mut(set),
            ) {
                *clauses |= ((1 << run.len()) - 1) << first;
                *firsts |= 1 << first;
                *afters |= 1 << (first + run.len());
            }
        }
        words
    }

    /// The bit after the last clause of each pattern of the word whose clauses are all in
    /// `hit`. A pattern's clauses, all hit, are a run of ones: adding its first bit carries
    /// through the run into the bit after it, which is 0 with the other set's clauses cleared
    /// (a clause not hit stops the carry short of it).
    fn every_clause_in(&self, hit: u64) -> u64 {
        let set = |k: usize| {
            let (clauses, firsts, afters) = (self.clauses[k], self.firsts[k], self.afters[k]);
            ((hit & clauses) + firsts) & afters
        };
        set(0) | set(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::clauses::clauses;
    use crate::rules::{Catalogue, Kind};

    impl LiteralGate {
        /// The candidates' patterns alone.
        fn patterns_in(&self, haystack: &[u8]) -> Vec<usize> {
            self.candidates(haystack)
                .into_iter()
                .map(|(p, _)| p)
                .collect()
        }

        fn built(&self) -> &Built {
            match &self.automata {
                Automata::Built(built) => built,
                Automata::Embedded(_) => panic!("the gate has the builtin table"),
            }
        }

        /// The dense table of a gate that built its own, built now.
        fn dense(&self) -> &DenseGate {
            self.built().dense(&self.literal_clauses).unwrap()
        }
    }

    /// The table `build.rs` embedded is the one the library builds over the same literals, and
    /// they are every literal of the builtin patterns.
    #[test]
    fn the_embedded_table_is_the_builtin_literals_own() {
        let literals: Vec<Vec<u8>> = embedded::GATE_LITERALS.iter().map(|l| l.to_vec()).collect();
        let built = DenseDfa::of_literals(&literals).unwrap();
        let encoded = built.encode();
        assert_eq!(encoded.classes, embedded::GATE_CLASSES);
        assert!(encoded.table == embedded::GATE_TABLE, "the tables differ");
        assert_eq!(encoded.match_of, embedded::GATE_MATCH_OF);
        let embedded_sets: Vec<Vec<usize>> = embedded::GATE_MATCH_SETS
            .iter()
            .map(|set| set.iter().map(|&p| p as usize).collect())
            .collect();
        assert_eq!(encoded.match_sets, embedded_sets);
        let catalogue = Catalogue::builtin().unwrap();
        let mut wanted: Vec<Vec<u8>> = catalogue
            .rules()
            .iter()
            .flat_map(|r| &r.patterns)
            .flat_map(|p| clauses(p))
            .flatten()
            .collect();
        wanted.sort();
        wanted.dedup();
        assert_eq!(wanted, literals);
    }

    /// A rule pack's literal the builtin table lacks makes the gate build its own automata.
    #[test]
    fn a_new_literal_builds_the_gate_its_own_automata() {
        let builtin = LiteralGate::new(&[Gating::read(r"ignore\s+previous")]);
        assert!(matches!(builtin.automata, Automata::Embedded(_)));
        assert_eq!(builtin.patterns_in(b"IGNORE all previous"), [0]);
        let own = LiteralGate::new(&[Gating::read(r"zqxjv\s+previous")]);
        assert!(matches!(own.automata, Automata::Built(_)));
        assert_eq!(own.patterns_in(b"ZQXJV previous"), [0]);
        assert_eq!(own.patterns_in(b"ignore previous"), Vec::<usize>::new());
    }

    /// The gate may only widen: wherever a builtin pattern matches one of its rule's examples
    /// (as written, in upper case, or with the letters that fold to ASCII ones), the gate lets
    /// the pattern through, and the part of the text it gives holds the match, the example
    /// alone or among other sentences.
    #[test]
    fn the_gate_passes_whatever_its_pattern_matches() {
        let catalogue = Catalogue::builtin().unwrap();
        let rules: Vec<_> = catalogue
            .rules()
            .iter()
            .filter(|r| r.kind == Kind::Pattern)
            .collect();
        let patterns: Vec<&String> = rules.iter().flat_map(|r| &r.patterns).collect();
        let gating: Vec<Gating> = patterns.iter().map(|p| Gating::read(p)).collect();
        let embedded = LiteralGate::new(&gating);
        let Automata::Embedded(table) = &embedded.automata else {
            panic!("the builtin rules' gate builds its own automata");
        };
        let gate = LiteralGate::with_table(&gating, false);
        let (nfa, dense) = (gate.built().nfa().unwrap(), gate.dense());
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
                        if folds_to_ascii_letter(text.as_bytes()) {
                            assert!(
                                gate.patterns_in(text.as_bytes()).contains(&i) || !gate.gates(i)
                            );
                            continue;
                        }
                        let found = [
                            (&gate, gate.clauses_by(nfa, text.as_bytes()).unwrap()),
                            (&gate, dense.clauses_in(text.as_bytes())),
                            (&embedded, table.clauses_in(text.as_bytes())),
                        ];
                        for (gate, hits) in found {
                            let passed = gate.candidates_among(&hits);
                            assert!(
                                !gate.gates(i) || passed.contains(&i),
                                "{}: {pattern} on {text:?}",
                                rule.id
                            );
                        }
                        let among = format!("See the docs. {text}. Then stop, v1.2 is old.");
                        for text in [text, &among] {
                            let Some(found) = regex.find(text) else {
                                continue;
                            };
                            let within = embedded.candidates(text.as_bytes());
                            assert!(
                                !embedded.gates(i)
                                    || within.iter().any(|(p, r)| *p == i
                                        && r.start <= found.start()
                                        && found.end() <= r.end),
                                "{}: {pattern} on {text:?}: {within:?}",
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
        let gate = LiteralGate::with_table(&[Gating::read(r"ignore\s+previous")], false);
        let filler = "x".repeat(DENSE_AFTER_BYTES);
        assert!(gate.built().dense.get().is_none());
        assert_eq!(gate.patterns_in(filler.as_bytes()), Vec::<usize>::new());
        assert!(gate.built().dense.get().is_some_and(Option::is_some));
        assert_eq!(gate.patterns_in(b"Ignore PREVIOUS"), [0]);
        assert_eq!(gate.patterns_in(b"ignore"), Vec::<usize>::new());
    }

    /// A string's clauses, marked from each set as the walk reached it, are the ones the bit
    /// set of match sets gives; short or long, with periods or without, the gate lets the same
    /// patterns through.
    #[test]
    fn short_and_long_strings_mark_the_same_clauses() {
        let gate = LiteralGate::with_table(
            &[
                Gating::read(r"ignore\s+previous"),
                Gating::read(r"send\s+to"),
            ],
            false,
        );
        let table = gate.dense();
        let short = b"ignore previous, ignore it, send to";
        let (sets, _) = DenseDfa::sets_by_part(table.dfa.sets_at_each_byte(short), [short.len()]);
        assert!(sets.len() > 1 && sets.len() < FEW_SETS);
        // The same sets, each come again past `FEW_SETS`: told apart by the bit set.
        let repeated: Vec<u16> = sets.iter().cycle().take(FEW_SETS + 1).copied().collect();
        let few = table.clauses_of(&sets).0;
        assert_eq!(table.clauses_of(&repeated).0, few);
        assert!(few.iter().any(|&w| w != 0));
        let long = [short.as_slice(), &[b' '; FEW_SETS_LEN]].concat();
        for text in [short.as_slice(), &long] {
            assert_eq!(table.clauses_in(text).0, few);
            assert_eq!(gate.patterns_in(text), [0, 1]);
            let with_period = [text, b". x"].concat();
            assert_eq!(gate.patterns_in(&with_period), [0, 1]);
        }
    }

    /// Whatever clauses are hit, the patterns found with every clause hit are the ones a test
    /// of each clause finds, ascending: patterns of one clause and of several, next to each
    /// other, reaching a word's last bit, across two words and longer than a word.
    #[test]
    fn patterns_with_every_clause_hit_are_found_word_by_word() {
        let lens = [1, 3, 1, 1, 2, 50, 4, 2, 0, 1, 70, 3, 1, 61, 2];
        let mut pattern_clauses = Vec::new();
        let mut next = 0;
        for len in lens {
            pattern_clauses.push(next..next + len);
            next += len;
        }
        let mut gate = LiteralGate::with_table(&[], false);
        gate.word_patterns = WordPatterns::of(&pattern_clauses, next);
        gate.clause_patterns = (0..next)
            .map(|c| pattern_clauses.iter().position(|r| r.contains(&c)).unwrap())
            .collect();
        gate.pattern_clauses = pattern_clauses.clone();
        assert!(gate.word_patterns.iter().any(|w| w.other_firsts != 0));
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for round in 0..2000 {
            let mut hits = ClauseHits(vec![0; next.div_ceil(64)]);
            for clause in 0..next {
                // xorshift: dense hits in some rounds, sparse in others.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if state % 10 < round % 11 {
                    bit_set::insert(&mut hits.0, clause);
                }
            }
            let want: Vec<usize> = (0..lens.len())
                .filter(|&p| {
                    !pattern_clauses[p].is_empty()
                        && pattern_clauses[p].clone().all(|c| hits.contains(c))
                })
                .collect();
            assert_eq!(gate.candidates_among(&hits), want, "round {round}");
        }
    }

    #[test]
    fn a_pattern_passes_when_every_clause_has_a_literal() {
        let gate = LiteralGate::new(&[
            Gating::read(r"ignore\s+previous"),
            Gating::read(r"[ \t]{80,}\S"),
            Gating::read(r"\w+"),
        ]);
        assert!(gate.gates(0) && gate.gates(1) && !gate.gates(2));
        assert_eq!(gate.patterns_in(b"IGNORE the PREVIOUS"), [0]);
        assert_eq!(gate.patterns_in(b"ignore this"), Vec::<usize>::new());
        // Overlapping literals are all found: `previous` inside `ignoreprevious`, and five
        // blanks in a row (as many copies of `[ \t]` as fit in a run) at every offset.
        assert_eq!(gate.patterns_in(b"ignoreprevious \t   x"), [0, 1]);
        assert_eq!(gate.patterns_in(b"ignore previous    x"), [0]);
        assert_eq!(gate.patterns_in(b""), Vec::<usize>::new());
    }

    /// A sentence-bound pattern is a candidate only where one sentence has all its clauses,
    /// from the first such sentence to the last; another pattern wherever its clauses are.
    #[test]
    fn a_sentence_bound_pattern_needs_its_clauses_in_one_sentence() {
        let patterns = [
            Gating::read(r"ignore\s+previous"),
            Gating::read(r"ignore.+previous"),
        ];
        assert!(patterns[0].sentence_bound && !patterns[1].sentence_bound);
        let gate = LiteralGate::new(&patterns);
        assert!(matches!(gate.automata, Automata::Embedded(_)));
        let text = "Ignore it. Then previous ones.";
        assert_eq!(gate.candidates(text.as_bytes()), [(1, 0..text.len())]);
        let text = "Intro. Ignore previous. Middle. ignore the previous. End";
        assert_eq!(
            gate.candidates(text.as_bytes()),
            [(0, 6..51), (1, 0..text.len())]
        );
        // Without a period, or by the NFA a rule pack's own literals start with (which sees
        // no sentences), the whole text.
        let text = "ignore the previous";
        assert_eq!(gate.candidates(text.as_bytes()), [(0, 0..19), (1, 0..19)]);
        let own = LiteralGate::new(&[Gating::read(r"zqxjv\s+previous")]);
        let text = "zqxjv. previous";
        assert_eq!(own.candidates(text.as_bytes()), [(0, 0..text.len())]);
        // Nor past the longest string whose sentences the walk keeps apart.
        let long = format!(
            "Ignore it. {}Then previous ones.",
            "x ".repeat(MAX_SENTENCE_WALK)
        );
        assert_eq!(
            gate.candidates(long.as_bytes()),
            [(0, 0..long.len()), (1, 0..long.len())]
        );
    }

    /// Literals that end at the same byte (one a suffix of the other) are all found, by the
    /// NFA and the dense table.
    #[test]
    fn finds_every_literal_that_ends_at_a_byte() {
        let gate = LiteralGate::with_table(
            &[Gating::read(r"previous"), Gating::read(r"vious\s+stuff")],
            false,
        );
        let haystack = b"Previous stuff";
        let nfa = gate
            .clauses_by(gate.built().nfa().unwrap(), haystack)
            .unwrap();
        let dense = gate.dense().clauses_in(haystack);
        for hits in [nfa, dense] {
            assert_eq!(gate.candidates_among(&hits), [0, 1]);
        }
    }
}
