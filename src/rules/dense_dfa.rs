//! A literal automaton unrolled into one dense table, for the literal gate's long scans.
//!
//! `aho-corasick`'s own DFA, walked a byte at a time, asks at every byte whether the state is a
//! match state and, about every ten bytes of prose, looks its literals up in a list per state:
//! a branch the CPU mispredicts and two dependent loads. Here each row of the table starts with
//! the number of its state's match set (0: none), so a walk does the same two loads at every
//! byte and records what it saw in a bit set, without a branch; what the match sets mean is
//! looked up once per string, after the walk. Bytes that no literal holds, in either ASCII case,
//! take every state back to the start, so they share a column; the others have one each (about
//! 130 for the built-in rules), which keeps the table near 2 MB.

use foldhash::HashMap;

use aho_corasick::Anchored;
use aho_corasick::automaton::{Automaton, StateID};

use super::bit_set;

/// Tables larger than this many entries (256 MB) are not built: the automaton they unroll is
/// then walked as it is (slower, same answers).
const MAX_ENTRIES: usize = 1 << 26;

#[derive(Debug)]
pub struct DenseDfa {
    /// The column of each byte.
    classes: [u8; 256],
    /// Row by row, each the number of its state's match set then a transition per class (the
    /// index of the target row's first entry).
    table: Vec<u32>,
    /// What each match set holds (the automaton's pattern numbers), by number; 0 is empty.
    match_sets: Vec<Vec<usize>>,
}

impl DenseDfa {
    /// The table of `automaton`, the unanchored, ASCII-case-insensitive automaton of
    /// `literals`; `None` when it has no start state or is too large.
    pub fn new(automaton: &impl Automaton, literals: &[Vec<u8>]) -> Option<DenseDfa> {
        let (classes, representatives) = byte_classes(literals);
        let stride = representatives.len() + 1;
        let start = automaton.start_state(Anchored::No).ok()?;
        let mut rows: HashMap<StateID, usize> = HashMap::from_iter([(start, 0)]);
        let mut states = vec![start];
        let mut table = Vec::new();
        let mut match_sets = vec![Vec::new()];
        // Breadth first from the start: each state's row is `stride` times its number.
        while let Some(&id) = states.get(table.len() / stride) {
            if automaton.is_match(id) {
                table.push(u32::try_from(match_sets.len()).ok()?);
                match_sets.push(
                    (0..automaton.match_len(id))
                        .map(|i| automaton.match_pattern(id, i).as_usize())
                        .collect(),
                );
            } else {
                table.push(0);
            }
            for &byte in &representatives {
                let target = automaton.next_state(Anchored::No, id, byte);
                let row = *rows.entry(target).or_insert_with(|| {
                    states.push(target);
                    (states.len() - 1) * stride
                });
                table.push(u32::try_from(row).ok()?);
            }
            if table.len() > MAX_ENTRIES {
                return None;
            }
        }
        Some(DenseDfa {
            classes,
            table,
            match_sets,
        })
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
    pub fn match_sets_in(&self, haystack: &[u8], mut found: impl FnMut(usize)) {
        // On the stack for up to 2047 match sets (the built-in rules have 1261): this runs once
        // per string, most strings are short, and an allocation costs as much as walking a few
        // dozen bytes.
        let words = self.match_sets.len().div_ceil(64);
        let mut on_stack = [0u64; 32];
        let mut on_heap = Vec::new();
        let seen = match on_stack.get_mut(..words) {
            Some(seen) => seen,
            None => {
                on_heap.resize(words, 0);
                &mut on_heap
            }
        };
        self.walk(haystack, seen);
        // Set 0 is every byte where no literal ends.
        bit_set::ones(seen)
            .skip_while(|&set| set == 0)
            .for_each(&mut found);
    }

    /// Sets bit `s` of `seen` for every match set `s` reached in `haystack`, and bit 0 for every
    /// byte that reaches none.
    fn walk(&self, haystack: &[u8], seen: &mut [u64]) {
        let mut row = 0usize;
        for &byte in haystack {
            let class = usize::from(self.classes[usize::from(byte)]);
            row = self
                .table
                .get(row + 1 + class)
                .map_or(0, |&next| next as usize);
            bit_set::insert(seen, self.table.get(row).map_or(0, |&set| set as usize));
        }
    }
}

/// The column of each byte, and a byte of each column: one column for every byte that no
/// literal holds in either ASCII case (column 0: each state goes back to the start on them, as no
/// literal goes on with them), one for each other byte.
fn byte_classes(literals: &[Vec<u8>]) -> ([u8; 256], Vec<u8>) {
    let mut held = [false; 256];
    for &byte in literals.iter().flatten() {
        for case in [byte.to_ascii_lowercase(), byte.to_ascii_uppercase()] {
            if let Some(slot) = held.get_mut(usize::from(case)) {
                *slot = true;
            }
        }
    }
    let mut classes = [0u8; 256];
    // Column 0 is the bytes not held, if any: then at most 255 are held, numbered from 1.
    let mut representatives: Vec<u8> = (0..=255u8)
        .find(|&byte| held.get(usize::from(byte)) == Some(&false))
        .into_iter()
        .collect();
    for (byte, class) in (0..=255u8).zip(classes.iter_mut()) {
        if held.get(usize::from(byte)) == Some(&true) {
            *class = u8::try_from(representatives.len()).unwrap_or(u8::MAX);
            representatives.push(byte);
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
}
