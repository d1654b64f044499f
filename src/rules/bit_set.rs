//! Bit sets as plain slices of words, bit `i` in bit `i % 64` of word `i / 64`: the literal
//! gate's clauses and the match sets its table walk reaches.

/// Sets bit `i`; a bit past the end is not kept.
pub fn insert(words: &mut [u64], i: usize) {
    if let Some(word) = words.get_mut(i / 64) {
        *word |= 1 << (i % 64);
    }
}

pub fn contains(words: &[u64], i: usize) -> bool {
    words
        .get(i / 64)
        .is_some_and(|word| word & (1 << (i % 64)) != 0)
}

/// The bits set, ascending.
pub fn ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words
        .iter()
        .enumerate()
        .flat_map(|(i, &word)| ones_in_word(i, word))
}

/// The bits set in `word`, word `i` of a set, ascending.
pub fn ones_in_word(i: usize, word: u64) -> impl Iterator<Item = usize> {
    let mut rest = word;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let bit = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            i * 64 + bit
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_finds_and_lists_bits_across_words() {
        let mut words = [0u64; 3];
        for i in [0, 63, 64, 130, 192] {
            insert(&mut words, i);
        }
        assert_eq!(ones(&words).collect::<Vec<_>>(), [0, 63, 64, 130]);
        assert!(contains(&words, 63) && contains(&words, 64) && !contains(&words, 1));
        assert!(!contains(&words, 192));
    }
}
