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

/// The bits set, ascending. Zero words are passed over eight at a time: the literal gate lists
/// a 111-word set (the builtin table's 7k match sets) for every string, nearly all of it zero,
/// and making an iterator for each word took 1.2k instructions a string.
pub fn ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    const BLOCK: usize = 8;
    words
        .chunks(BLOCK)
        .enumerate()
        .filter(|(_, block)| block.iter().fold(0, |any, &word| any | word) != 0)
        .flat_map(|(b, block)| {
            block
                .iter()
                .enumerate()
                .flat_map(move |(i, &word)| ones_in_word(b * BLOCK + i, word))
        })
}

/// How many words a bit set on the stack holds at most (see [`with_zeroed`]).
const STACK_WORDS: usize = 128;

/// Calls `f` with a bit set of `bits` bits, all clear: on the stack when it fits (8192 bits),
/// as most do; an allocation costs as much as the work of a short string.
pub fn with_zeroed<R>(bits: usize, f: impl FnOnce(&mut [u64]) -> R) -> R {
    let words = bits.div_ceil(64);
    let mut on_stack = [0u64; STACK_WORDS];
    match on_stack.get_mut(..words) {
        Some(set) => f(set),
        None => f(&mut vec![0; words]),
    }
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

    /// Listing passes over blocks of zero words and still finds bits at a block's edges and in
    /// a last, partial block.
    #[test]
    fn lists_bits_across_blocks_of_words() {
        let mut words = [0u64; 20];
        let bits = [0, 7 * 64 + 63, 8 * 64, 16 * 64 + 5, 19 * 64 + 63];
        for i in bits {
            insert(&mut words, i);
        }
        assert_eq!(ones(&words).collect::<Vec<_>>(), bits);
        assert_eq!(ones(&[0; 20]).count(), 0);
    }

    /// A set is clear and as long as asked, on the stack or past it.
    #[test]
    fn zeroed_sets_of_any_size() {
        for bits in [1, 64, 65, STACK_WORDS * 64, STACK_WORDS * 64 + 1, 20_000] {
            let (len, clear) = with_zeroed(bits, |set| (set.len(), set.iter().all(|&w| w == 0)));
            assert_eq!(len, bits.div_ceil(64));
            assert!(clear);
        }
    }
}
