//! The second stage of the pattern prefilter, for the patterns the literal gate cannot decide
//! (those with no word they need, like `[ \t]{80,}\S`): their prefilter pieces
//! ([`super::prefilter`]) in one lazy DFA set for ASCII text and one for any text
//! ([`super::dfa_set`]). A pattern is a candidate when all its pieces match.
//!
//! Before either runs, each pattern's required bytes ([`super::required_bytes`]) are counted:
//! the sets run only when some pattern has them all, and only such patterns are candidates.
//!
//! The ASCII set compiles at once (it needs no Unicode tables, and most text is ASCII); the
//! Unicode set compiles on a thread of its own from the start, and the first string with a
//! non-ASCII character waits for it.

use super::background::Background;
use super::dfa_set::{DfaSet, Text};
use super::prefilter;
use super::required_bytes::{has_required, required_bytes};

/// The combined set of every piece.
const SET_SIZE_LIMIT: usize = 256 << 20;

#[derive(Debug)]
pub struct PieceSets {
    /// How many pieces each pattern of the whole rule set has here (0: none, the gate decides
    /// it): it is a candidate when that many of them matched.
    piece_counts: Vec<usize>,
    /// The pattern behind each piece.
    piece_owners: Vec<usize>,
    /// Each pattern run here, ascending, with the bytes it needs: looked at for every string,
    /// so the patterns the gate decides are not in it.
    required: Vec<(usize, Vec<(u8, usize)>)>,
    /// For ASCII text. A piece that needs Unicode is an empty (always matching) piece here, so
    /// its rule's own regex decides.
    ascii: DfaSet,
    /// For any other text; `None` if it exceeds the size limit, and then every pattern is a
    /// candidate (slower, same findings).
    unicode: Background<Option<DfaSet>>,
    /// The patterns, to compile the Unicode set here when no thread could be started.
    patterns: Vec<Option<String>>,
}

impl PieceSets {
    /// The sets over the patterns given (`None` for a pattern decided elsewhere, keeping every
    /// pattern's index); `None` when there are none to run.
    pub fn new(patterns: Vec<Option<String>>) -> Result<Option<PieceSets>, String> {
        if patterns.iter().all(Option::is_none) {
            return Ok(None);
        }
        let mut piece_counts = Vec::with_capacity(patterns.len());
        let mut piece_owners = Vec::new();
        let mut ascii_pieces: Vec<String> = Vec::new();
        for (i, pattern) in patterns.iter().enumerate() {
            let pieces = match pattern {
                Some(pattern) => prefilter::pieces(pattern, Text::Ascii),
                None => Vec::new(),
            };
            piece_counts.push(pieces.len());
            piece_owners.extend(std::iter::repeat_n(i, pieces.len()));
            ascii_pieces.extend(pieces);
        }
        let required = patterns
            .iter()
            .enumerate()
            .filter_map(|(i, p)| Some((i, required_bytes(p.as_deref()?))))
            .collect();
        let unicode = {
            let patterns = patterns.clone();
            Background::spawn("unicode-rules", move || build_unicode_set(&patterns))
        };
        let ascii = match DfaSet::new(&ascii_pieces, Text::Ascii, SET_SIZE_LIMIT) {
            Ok(set) => set,
            Err(_) => {
                // The slow path, only when some piece needs Unicode (a `\p{..}` class, say):
                // find which by parsing alone (compiling is the costly part).
                let ascii_only: Vec<&str> = ascii_pieces
                    .iter()
                    .map(|p| if parses_as_ascii(p) { p.as_str() } else { "" })
                    .collect();
                DfaSet::new(&ascii_only, Text::Ascii, SET_SIZE_LIMIT)?
            }
        };
        Ok(Some(PieceSets {
            piece_counts,
            piece_owners,
            required,
            ascii,
            unicode,
            patterns,
        }))
    }

    fn unicode(&self) -> Option<&DfaSet> {
        self.unicode
            .get(|| build_unicode_set(&self.patterns))
            .as_ref()
    }

    /// The patterns whose required bytes are all in `text` and whose pieces all match
    /// somewhere in it, ascending.
    pub fn candidates(&self, text: &str) -> Vec<usize> {
        // Ascending, and empty (so nothing is allocated) for nearly every string.
        let possible: Vec<usize> = self
            .required
            .iter()
            .filter(|(_, required)| has_required(text.as_bytes(), required))
            .map(|&(pattern, _)| pattern)
            .collect();
        if possible.is_empty() {
            return possible;
        }
        let hits = if text.is_ascii() {
            self.ascii.matches(text.as_bytes())
        } else {
            match self.unicode() {
                Some(set) => set.matches(text.as_bytes()),
                None => return possible,
            }
        };
        if hits.is_empty() {
            return hits;
        }
        let mut matched = vec![0usize; self.piece_counts.len()];
        for piece in hits {
            if let Some(&pattern) = self.piece_owners.get(piece)
                && let Some(count) = matched.get_mut(pattern)
            {
                *count += 1;
            }
        }
        matched
            .iter()
            .zip(&self.piece_counts)
            .enumerate()
            .filter(|(_, (matched, needed))| **needed > 0 && matched == needed)
            .map(|(pattern, _)| pattern)
            .filter(|pattern| possible.binary_search(pattern).is_ok())
            .collect()
    }
}

fn parses_as_ascii(pattern: &str) -> bool {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .case_insensitive(true)
        .build()
        .parse(pattern)
        .is_ok()
}

/// In the same order as the ASCII set: each pattern has as many pieces for either text.
fn build_unicode_set(patterns: &[Option<String>]) -> Option<DfaSet> {
    let pieces: Vec<String> = patterns
        .iter()
        .flatten()
        .flat_map(|p| prefilter::pieces(p, Text::Unicode))
        .collect();
    DfaSet::new(&pieces, Text::Unicode, SET_SIZE_LIMIT).ok()
}
