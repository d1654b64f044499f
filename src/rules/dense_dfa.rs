//! A literal automaton unrolled into one dense table, for the literal gate's long scans.
//!
//! `aho-corasick`'s own DFA, walked a byte at a time, asks at every byte whether the state is a
//! match state and, about every four bytes of prose, looks its literals up in a list per state:
//! a branch the CPU mispredicts and two dependent loads. Here every state has the number of its
//! match set (0: none) in an array beside the table, so a walk does the same two loads at every
//! byte and records what it saw in a bit set, without a branch; what the match sets mean is
//! looked up once per string, after the walk. Bytes that no literal holds, in either ASCII case,
//! take every state back to the start, so they share a column; the others have one each, the
//! two cases of an ASCII letter one between them (152 for the builtin rules: 18.3k states of
//! `u16`, a 5.6 MB table).
//!
//! `build.rs` includes this file to build the builtin rules' table at compile time: building
//! it (and the automaton it unrolls) took 10 ms of every run, most of a small scan's start-up.

use std::borrow::Cow;

use foldhash::HashMap;

use aho_corasick::Anchored;
use aho_corasick::MatchKind;
use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::nfa::contiguous::NFA;

use super::bit_set;

/// How many walks [`DenseDfa::walk_lanes`] interleaves.
const LANES: usize = 4;

/// The shortest part of a haystack a lane walks: shorter haystacks are walked in one, as the
/// lanes' set-up (and their head start of [`DenseDfa::longest`] bytes each) would cost more
/// than they save.
const MIN_LANE_LEN: usize = 32;

/// The most bytes [`DenseDfa::match_sets_in`] walks in lanes at once.
const LANES_BLOCK: usize = 1 << 16;

/// The bytes of a table entry: a state's number, so a table has at most 65536 states (the
/// builtin rules' have about 18k; a larger automaton is walked as it is, slower, same answers).
const ENTRY: usize = std::mem::size_of::<u16>();

/// The unanchored, ASCII-case-insensitive automaton of `literals` that a table unrolls.
///
/// It lists at each match state every literal that ends there (`Standard` semantics): a
/// clause's literal may sit inside or across another's, and must be found all the same.
pub fn literal_nfa(literals: &[Vec<u8>]) -> Option<NFA> {
    NFA::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(literals)
        .ok()
}

#[derive(Debug)]
pub struct DenseDfa {
    /// The column of each byte.
    classes: [u8; 256],
    /// How many columns there are.
    columns: usize,
    /// Row by row, one per state, the state each column goes to: little-endian `u16`s, as
    /// `build.rs` embeds them. The start state is 0.
    table: Cow<'static, [u8]>,
    /// The number of each state's match set (0: none).
    match_of: Cow<'static, [u16]>,
    /// What each match set holds (the automaton's pattern numbers), by number; 0 is empty.
    match_sets: Vec<Vec<usize>>,
    /// The longest literal's length: no state is deeper, so a walk that starts this many bytes
    /// before a position is in the same state there as one from the start of the text.
    longest: usize,
}

/// A table as `build.rs` writes it into the binary.
#[allow(dead_code)] // for `build.rs`, which includes this file, and the tests
pub struct Encoded<'t> {
    /// The column of each byte.
    pub classes: [u8; 256],
    /// The rows, as little-endian `u16`s.
    pub table: &'t [u8],
    /// Each state's match set.
    pub match_of: &'t [u16],
    /// Each match set's patterns.
    pub match_sets: &'t [Vec<usize>],
}

impl DenseDfa {
    /// The table of `automaton`, the unanchored, ASCII-case-insensitive automaton of
    /// `literals`; `None` when it has no start state or too many states.
    pub fn new(automaton: &impl Automaton, literals: &[Vec<u8>]) -> Option<DenseDfa> {
        let (classes, representatives) = byte_classes(literals);
        let start = automaton.start_state(Anchored::No).ok()?;
        let mut numbers: HashMap<StateID, u16> = HashMap::from_iter([(start, 0)]);
        let mut states = vec![start];
        let mut table = Vec::new();
        let mut match_of = Vec::new();
        let mut match_sets = vec![Vec::new()];
        // Breadth first from the start, numbering states as they are first reached.
        while let Some(&id) = states.get(match_of.len()) {
            if automaton.is_match(id) {
                match_of.push(u16::try_from(match_sets.len()).ok()?);
                match_sets.push(
                    (0..automaton.match_len(id))
                        .map(|i| automaton.match_pattern(id, i).as_usize())
                        .collect(),
                );
            } else {
                match_of.push(0);
            }
            for &byte in &representatives {
                let target = automaton.next_state(Anchored::No, id, byte);
                let number = match numbers.get(&target) {
                    Some(&number) => number,
                    None => {
                        let number = u16::try_from(states.len()).ok()?;
                        numbers.insert(target, number);
                        states.push(target);
                        number
                    }
                };
                table.extend(number.to_le_bytes());
            }
        }
        Some(DenseDfa {
            classes,
            columns: representatives.len(),
            table: Cow::Owned(table),
            match_of: Cow::Owned(match_of),
            match_sets,
            longest: literals.iter().map(Vec::len).max().unwrap_or(0),
        })
    }

    /// The table of [`literal_nfa`] over `literals`; `None` when it cannot be built.
    #[allow(dead_code)] // for `build.rs`, which includes this file, and the tests
    pub fn of_literals(literals: &[Vec<u8>]) -> Option<DenseDfa> {
        DenseDfa::new(&literal_nfa(literals)?, literals)
    }

    /// A table [`DenseDfa::encode`] wrote (at build time) over literals of at most `longest`
    /// bytes; `None` when the parts do not fit together.
    pub fn from_parts(
        classes: [u8; 256],
        table: &'static [u8],
        match_of: &'static [u16],
        match_sets: &[&[u32]],
        longest: usize,
    ) -> Option<DenseDfa> {
        let columns = usize::from(*classes.iter().max()?) + 1;
        if match_of.is_empty() || table.len() != match_of.len() * columns * ENTRY {
            return None;
        }
        Some(DenseDfa {
            classes,
            columns,
            table: Cow::Borrowed(table),
            match_of: Cow::Borrowed(match_of),
            match_sets: match_sets
                .iter()
                .map(|set| set.iter().map(|&p| p as usize).collect())
                .collect(),
            longest,
        })
    }

    /// The parts [`DenseDfa::from_parts`] reads back.
    #[allow(dead_code)] // for `build.rs`, which includes this file, and the tests
    pub fn encode(&self) -> Encoded<'_> {
        Encoded {
            classes: self.classes,
            table: &self.table,
            match_of: &self.match_of,
            match_sets: &self.match_sets,
        }
    }

    /// How many match sets there are (numbered from 1).
    pub fn match_sets(&self) -> usize {
        self.match_sets.len() - 1
    }

    /// The patterns of match set `set`.
    pub fn patterns_of(&self, set: usize) -> &[usize] {
        self.match_sets.get(set).map_or(&[], Vec::as_slice)
    }

    /// Calls `found` once with each match set reached somewhere in `haystack`, ascending.
    pub fn match_sets_in(&self, haystack: &[u8], found: impl FnMut(usize)) {
        bit_set::with_zeroed(self.match_sets.len(), |seen| {
            if self.lane_len(haystack.len()).is_some() {
                // In blocks, each walked from the longest literal's length before it (as a
                // lane is), so that a long string needs no log of two bytes per byte.
                let mut from = 0;
                while from < haystack.len() {
                    let start = from.saturating_sub(self.longest);
                    let end = from.saturating_add(LANES_BLOCK).min(haystack.len());
                    let sets = self.sets_at_each_byte(haystack.get(start..end).unwrap_or_default());
                    for &set in sets.get(from - start..).unwrap_or_default() {
                        bit_set::insert(seen, usize::from(set));
                    }
                    from = end;
                }
            } else {
                self.walk(haystack, |set| bit_set::insert(seen, usize::from(set)));
            }
            // Set 0 is every byte where no literal ends.
            bit_set::ones(seen)
                .skip_while(|&set| set == 0)
                .for_each(found);
        });
    }

    /// `sets`, the match set of each byte of a haystack, cut into consecutive parts that end at
    /// each of `ends` (ascending, the last the haystack's length): one entry for each byte where
    /// a literal ends (so a set may come more than once), and where each part's entries end.
    pub fn sets_by_part(
        mut sets: Vec<u16>,
        ends: impl IntoIterator<Item = usize>,
    ) -> (Vec<u16>, Vec<usize>) {
        // Compacted without a branch: every byte's set is written at the end, and only a set
        // other than 0 (no literal ends here) moves the end on. Prose reaches a set every four
        // bytes or so, too often and too irregularly for a branch to be predicted.
        let mut part_ends = Vec::new();
        let (mut start, mut len) = (0, 0);
        for end in ends {
            for i in start..end.min(sets.len()) {
                let set = sets.get(i).copied().unwrap_or(0);
                if let Some(slot) = sets.get_mut(len) {
                    *slot = set;
                }
                len += usize::from(set != 0);
            }
            part_ends.push(len);
            start = end;
        }
        sets.truncate(len);
        (sets, part_ends)
    }

    /// The match set of the state the walk over `haystack` is in after each of its bytes.
    pub fn sets_at_each_byte(&self, haystack: &[u8]) -> Vec<u16> {
        let mut sets = vec![0; haystack.len()];
        match self.lane_len(haystack.len()) {
            Some(lane_len) => self.walk_lanes(haystack, lane_len, &mut sets),
            None => {
                let mut slots = sets.iter_mut();
                self.walk(haystack, |set| {
                    if let Some(slot) = slots.next() {
                        *slot = set;
                    }
                });
            }
        }
        sets
    }

    /// How many bytes each of [`LANES`] walks takes of a haystack of `len` bytes, when it is
    /// long enough to be walked in lanes.
    fn lane_len(&self, len: usize) -> Option<usize> {
        let lane_len = len.div_ceil(LANES);
        (lane_len >= MIN_LANE_LEN && lane_len >= self.longest).then_some(lane_len)
    }

    /// [`DenseDfa::sets_at_each_byte`] by [`LANES`] walks at once, each over `lane_len` bytes
    /// of the haystack (the last over what is left). A step is two dependent loads, from a
    /// table too large for the nearest cache, so one walk waits on memory at every byte;
    /// independent walks interleaved wait together. Each walk but the first starts
    /// [`DenseDfa::longest`] bytes before its part, to be in the state a walk from the start
    /// would be in when its part begins.
    fn walk_lanes(&self, haystack: &[u8], lane_len: usize, sets: &mut [u16]) {
        let mut states = [0usize; LANES];
        let warm_from = |lane: usize| (lane * lane_len).saturating_sub(self.longest);
        for step in 0..self.longest {
            for (lane, state) in states.iter_mut().enumerate().skip(1) {
                let byte = haystack.get(warm_from(lane) + step).copied().unwrap_or(0);
                *state = self.step(*state, byte);
            }
        }
        // Every lane but the last is `lane_len` long; the last, up to `LANES - 1` bytes
        // shorter, is walked in step with the others as far as it goes, and they then finish.
        let last_len = haystack.len().saturating_sub((LANES - 1) * lane_len);
        for offset in 0..lane_len {
            for (lane, state) in states.iter_mut().enumerate() {
                if lane == LANES - 1 && offset >= last_len {
                    break;
                }
                let at = lane * lane_len + offset;
                let byte = haystack.get(at).copied().unwrap_or(0);
                *state = self.step(*state, byte);
                if let Some(slot) = sets.get_mut(at) {
                    *slot = self.match_of.get(*state).copied().unwrap_or(0);
                }
            }
        }
    }

    /// Walks `haystack` from the start state, calling `reached` with the match set of every
    /// state it steps into (0 where no literal ends).
    fn walk(&self, haystack: &[u8], mut reached: impl FnMut(u16)) {
        let mut state = 0;
        for &byte in haystack {
            state = self.step(state, byte);
            reached(self.match_of.get(state).copied().unwrap_or(0));
        }
    }

    /// The state `byte` takes `state` to.
    fn step(&self, state: usize, byte: u8) -> usize {
        let class = usize::from(self.classes[usize::from(byte)]);
        self.next(state * self.columns + class)
    }

    /// Entry `i` of the table (0, the start state, past its end: never, for a table built
    /// here).
    fn next(&self, i: usize) -> usize {
        self.table
            .get(i * ENTRY..(i + 1) * ENTRY)
            .and_then(|bytes| bytes.try_into().ok())
            .map_or(0, |bytes| usize::from(u16::from_le_bytes(bytes)))
    }
}

/// The column of each byte, and a byte of each column: one column for every byte that no
/// literal holds in either ASCII case (column 0: each state goes back to the start on them, as no
/// literal goes on with them), one for each other byte, the two cases of an ASCII letter sharing
/// one (the automaton does not tell them apart).
fn byte_classes(literals: &[Vec<u8>]) -> ([u8; 256], Vec<u8>) {
    let mut held = [false; 256];
    for &byte in literals.iter().flatten() {
        if let Some(slot) = held.get_mut(usize::from(byte.to_ascii_lowercase())) {
            *slot = true;
        }
    }
    let mut classes = [0u8; 256];
    // Column 0 is the bytes not held, if any: then at most 255 are held, numbered from 1.
    let mut representatives: Vec<u8> = (0..=255u8)
        .find(|&byte| held.get(usize::from(byte.to_ascii_lowercase())) == Some(&false))
        .into_iter()
        .collect();
    for (byte, class) in (0..=255u8).zip(classes.iter_mut()) {
        if held.get(usize::from(byte)) == Some(&true) && !byte.is_ascii_uppercase() {
            *class = u8::try_from(representatives.len()).unwrap_or(u8::MAX);
            representatives.push(byte);
        }
    }
    for upper in b'A'..=b'Z' {
        let lower = classes
            .get(usize::from(upper.to_ascii_lowercase()))
            .copied();
        if let (Some(slot), Some(lower)) = (classes.get_mut(usize::from(upper)), lower) {
            *slot = lower;
        }
    }
    (classes, representatives)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aho_corasick::MatchKind;
    use aho_corasick::nfa::contiguous::NFA;

    /// The patterns the table finds in `text`, sorted.
    fn found(dfa: &DenseDfa, text: &str) -> Vec<usize> {
        let mut patterns = Vec::new();
        dfa.match_sets_in(text.as_bytes(), |set| {
            patterns.extend_from_slice(dfa.patterns_of(set));
        });
        patterns.sort_unstable();
        patterns.dedup();
        patterns
    }

    /// Every literal that ends anywhere, overlapping or inside another, in any ASCII case, as
    /// the automaton it unrolls finds them; and none that is not there.
    #[test]
    fn finds_what_the_automaton_finds() {
        let literals = ["vious", "previous", "us", "ignore", "é"];
        let nfa = NFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(literals)
            .unwrap();
        let literals: Vec<Vec<u8>> = literals.iter().map(|l| l.as_bytes().to_vec()).collect();
        let dfa = DenseDfa::new(&nfa, &literals).unwrap();
        assert!(dfa.classes.iter().any(|&c| c > 0));
        let cases: [(&str, &[usize]); 5] = [
            ("PREVIOUS", &[0, 1, 2]),
            ("ignorus", &[2]),
            ("", &[]),
            ("caf\u{e9} IGNORE", &[3, 4]),
            ("previou", &[]),
        ];
        for (text, want) in cases {
            assert_eq!(found(&dfa, text), want, "{text:?}");
        }
    }

    /// Walked in lanes, a long haystack gives every byte the set one walk from the start
    /// gives it, with literals across the lanes' edges found, whatever the edges' offsets.
    #[test]
    fn lanes_reach_the_sets_one_walk_reaches() {
        let literals: Vec<Vec<u8>> = ["abcdefghij", "efg", "j", "jab"]
            .map(|l| l.as_bytes().to_vec())
            .into();
        let dfa = DenseDfa::of_literals(&literals).unwrap();
        assert_eq!(dfa.longest, 10);
        for len in [0, 40, 127, 128, 129, 130, 131, 200, 333] {
            let text: Vec<u8> = b"xxabcdefghijab"
                .iter()
                .cycle()
                .take(len)
                .copied()
                .collect();
            let mut one_walk = Vec::new();
            dfa.walk(&text, |set| one_walk.push(set));
            assert_eq!(
                dfa.lane_len(len).is_some(),
                len >= 4 * MIN_LANE_LEN - 3,
                "{len}"
            );
            assert_eq!(dfa.sets_at_each_byte(&text), one_walk, "{len}");
            assert!(one_walk.iter().filter(|&&set| set != 0).count() >= len / 7);
        }
    }

    /// A string longer than a block of lanes reaches the sets one walk reaches: a literal
    /// across a block's edge, and nowhere else, is found.
    #[test]
    fn blocks_of_lanes_find_a_literal_across_their_edge() {
        let literals: Vec<Vec<u8>> = ["abcdefghij", "efg"].map(|l| l.as_bytes().to_vec()).into();
        let dfa = DenseDfa::of_literals(&literals).unwrap();
        for before_edge in [1, 5, 9] {
            let mut text = vec![b'x'; LANES_BLOCK - before_edge];
            text.extend_from_slice(b"abcdefghij");
            text.resize(3 * LANES_BLOCK, b'x');
            let mut one_walk = Vec::new();
            dfa.walk(&text, |set| one_walk.push(usize::from(set)));
            one_walk.sort_unstable();
            one_walk.dedup();
            one_walk.retain(|&set| set != 0);
            assert_eq!(one_walk.len(), 2, "{before_edge}");
            let mut found = Vec::new();
            dfa.match_sets_in(&text, |set| found.push(set));
            assert_eq!(found, one_walk, "{before_edge}");
        }
    }

    /// Walked in parts, each byte's set is logged in the part it ends in, and a literal that
    /// spans two parts is found in the second: the walk goes on from where the first ended.
    #[test]
    fn logs_each_parts_sets_in_one_walk() {
        let literals: Vec<Vec<u8>> = ["ab", "b", "a.b"].map(|l| l.as_bytes().to_vec()).into();
        let dfa = DenseDfa::of_literals(&literals).unwrap();
        let text = b"ab.bxa.b";
        let by_part =
            |ends: &[usize]| DenseDfa::sets_by_part(dfa.sets_at_each_byte(text), ends.to_vec());
        let (sets, ends) = by_part(&[3, 5, text.len()]);
        assert_eq!(ends, [1, 2, 3]);
        let parts: Vec<Vec<usize>> = [0..1, 1..2, 2..3]
            .map(|r| {
                let mut found: Vec<usize> = sets[r]
                    .iter()
                    .flat_map(|&s| dfa.patterns_of(s.into()).to_vec())
                    .collect();
                found.sort_unstable();
                found
            })
            .into();
        // `ab` and `b` in "ab.", `b` in "bx", and `a.b` (with its `b`) in "a.b".
        assert_eq!(parts, [vec![0, 1], vec![1], vec![1, 2]]);
        let (whole, ends) = by_part(&[text.len()]);
        assert_eq!((whole, ends), (sets, vec![3]));
    }
}
