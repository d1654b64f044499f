//! Which of many patterns match a string: one forward lazy DFA over all of them.
//!
//! `regex::RegexSet` builds more than a set needs (a reverse automaton, a PikeVM, a bounded
//! backtracker, literal prefilters), each from every pattern; that was most of the start-up of
//! a small scan. Answering "which patterns match anywhere" needs only the forward lazy DFA, so
//! this builds that alone.

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::util::pool::Pool;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind, PatternSet};

/// The lazy DFA's state cache per thread: big enough that a scan of many tools keeps the
/// states it built instead of clearing and rebuilding them.
const CACHE_CAPACITY: usize = 32 << 20;

type CachePool = Pool<Cache, Box<dyn Fn() -> Cache + Send + Sync>>;

pub struct DfaSet {
    dfa: DFA,
    caches: CachePool,
}

impl std::fmt::Debug for DfaSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DfaSet")
            .field("patterns", &self.dfa.pattern_len())
            .finish()
    }
}

/// Which flavour of the patterns to compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Text {
    /// Unicode classes and case folding, over UTF-8 text.
    Unicode,
    /// ASCII classes and case folding, over bytes: only for ASCII text.
    Ascii,
}

impl DfaSet {
    /// Every pattern case-insensitive; `size_limit` bounds the compiled automaton.
    pub fn new<P: AsRef<str>>(
        patterns: &[P],
        text: Text,
        size_limit: usize,
    ) -> Result<DfaSet, String> {
        let unicode = text == Text::Unicode;
        let dfa = DFA::builder()
            .configure(
                DFA::config()
                    .match_kind(MatchKind::All)
                    .cache_capacity(CACHE_CAPACITY),
            )
            .syntax(
                syntax::Config::new()
                    .case_insensitive(true)
                    .unicode(unicode)
                    .utf8(unicode),
            )
            .thompson(
                thompson::Config::new()
                    // Only which patterns match is asked, never where: no empty-match
                    // splitting of code points to guard against.
                    .utf8(false)
                    .nfa_size_limit(Some(size_limit)),
            )
            .build_many(patterns)
            .map_err(|e| e.to_string())?;
        let caches: CachePool = {
            let dfa = dfa.clone();
            Pool::new(Box::new(move || dfa.create_cache()))
        };
        Ok(DfaSet { dfa, caches })
    }

    /// The indexes of the patterns that match somewhere in `haystack`, ascending.
    pub fn matches(&self, haystack: &[u8]) -> Vec<usize> {
        let mut cache = self.caches.get();
        let mut found = PatternSet::new(self.dfa.pattern_len());
        let input = Input::new(haystack);
        match self
            .dfa
            .try_which_overlapping_matches(&mut cache, &input, &mut found)
        {
            Ok(()) => found.iter().map(|p| p.as_usize()).collect(),
            // The DFA gives up only on a quit byte (none is configured) or, when told to, on
            // a thrashing cache (it is not): were it ever to, every pattern is a candidate and
            // each rule's own regex decides.
            Err(_) => (0..self.dfa.pattern_len()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_every_matching_pattern() {
        let set = DfaSet::new(&["ab+c", "b", "^z", "ignore"], Text::Unicode, 1 << 20).unwrap();
        assert_eq!(set.matches(b"xxABBC"), vec![0, 1]);
        assert_eq!(set.matches(b"zz"), vec![2]);
        assert_eq!(set.matches(b"IGNORE"), vec![3]);
        assert!(set.matches(b"nothing here").is_empty());
    }

    #[test]
    fn unicode_folds_where_ascii_does_not() {
        let patterns = ["s", "\\w+é"];
        let unicode = DfaSet::new(&patterns, Text::Unicode, 1 << 20).unwrap();
        let ascii = DfaSet::new(&patterns, Text::Ascii, 1 << 20).unwrap();
        // ſ (long s) folds to s; an accented letter is a word character.
        assert_eq!(unicode.matches("ſ".as_bytes()), vec![0]);
        assert!(ascii.matches("ſ".as_bytes()).is_empty());
        assert_eq!(unicode.matches("àé".as_bytes()), vec![1]);
        assert_eq!(ascii.matches(b"S"), vec![0]);
    }

    #[test]
    fn a_pattern_over_the_size_limit_is_an_error() {
        assert!(DfaSet::new(&["\\w{200}"], Text::Unicode, 1 << 10).is_err());
    }
}
