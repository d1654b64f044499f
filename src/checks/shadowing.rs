//! Shadowing: tools of different servers that an agent can mistake for each other, and
//! descriptions that give orders about another server's tools.
//!
//! Every comparison goes through a hash index (exact name, look-alike skeleton, client-renamed
//! name), so a workspace of 100k tools costs a linear pass, never a pairwise one.

use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::sync::LazyLock;

use foldhash::{HashMap, HashMapExt, HashSet};
use rayon::prelude::*;
use regex::Regex;

use super::{Check, Context, Draft};
use crate::finding::{Location, Severity};
use crate::source::SourceId;
use crate::state::{ServerState, ToolState};

pub struct Shadowing;

/// Clients that prefix and truncate tool names cut at 64 characters (the OpenAI function-name
/// limit), so names that agree on their first 64 characters collide there.
const CLIENT_NAME_LIMIT: usize = 64;

/// Words that make a sentence an order to the agent rather than a mention: compiled for the
/// first sentence that names another server's tool. Most runs have none, and compiling it was
/// 7% of the instructions of a small scan.
static INSTRUCTION_CUES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(must|always|never|instead|before|after|should|do not|don't|redirect|override|replace|ignore|use|call|send|deprecated|disabled)\b").ok()
});

struct Entry<'a> {
    server: &'a str,
    source: SourceId,
    state: &'a ToolState<'a>,
}

impl Entry<'_> {
    fn location(&self) -> Location {
        let location = Location::new(self.source, self.state.tool.pointer.key("name"));
        match self.state.tool.name_span.as_deref() {
            Some(&span) => location.placed(span),
            None => location,
        }
    }
}

impl Check for Shadowing {
    fn rules(&self) -> &'static [&'static str] {
        &[
            "tool-name-collision",
            "tool-name-lookalike",
            "tool-name-renamed-collision",
            "cross-server-reference",
        ]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        if cx.states.len() < 2 {
            return;
        }
        // Entries in server order, so every group below lists its entries in that order.
        let mut exact: HashMap<&str, Vec<Entry<'_>>> = HashMap::new();
        for state in cx.states {
            for (name, tool) in &state.tools {
                exact.entry(name).or_default().push(Entry {
                    server: &state.server.name,
                    source: state.server.source,
                    state: tool,
                });
            }
        }
        let allowed = |entries: &[&Entry<'_>]| {
            let parties: Vec<(&str, &str)> = entries
                .iter()
                .map(|e| (e.server, e.state.tool.name.as_str()))
                .collect();
            cx.config.shadowing.allows(&parties)
        };
        out.par_extend(
            exact
                .par_iter()
                .filter(|(_, entries)| entries.len() > 1)
                .filter_map(|(name, entries)| {
                    let all: Vec<&Entry<'_>> = entries.iter().collect();
                    if allowed(&all) {
                        return None;
                    }
                    let identical = entries
                        .iter()
                        .all(|e| e.state.digest == entries[0].state.digest);
                    let servers: Vec<&str> = entries.iter().map(|e| e.server).collect();
                    let message = if identical {
                        format!(
                            "tool `{name}` is exposed by {} with identical definitions; the agent cannot tell which server it calls",
                            list(&servers)
                        )
                    } else {
                        format!(
                            "tool `{name}` is exposed by {} with different definitions; one can shadow the other",
                            list(&servers)
                        )
                    };
                    let severity = if identical {
                        Severity::Low
                    } else {
                        Severity::Critical
                    };
                    draft("tool-name-collision", &all, message).map(|d| d.severity(severity))
                }),
        );
        let all_entries: Vec<&Entry<'_>> = exact.values().flatten().collect();
        let truncation_candidates = truncation_candidates(&exact);
        for (rule, key, what, entries) in [
            (
                "tool-name-lookalike",
                skeleton as fn(&str) -> String,
                "look alike (case, separators or confusable characters)",
                all_entries.as_slice(),
            ),
            (
                "tool-name-renamed-collision",
                truncated,
                "become the same name when a client truncates tool names to 64 characters",
                truncation_candidates.as_slice(),
            ),
        ] {
            let keys: Vec<String> = entries
                .par_iter()
                .map(|entry| key(&entry.state.tool.name))
                .collect();
            let mut groups: HashMap<&str, Vec<&Entry<'_>>> = HashMap::new();
            for (key, entry) in keys.iter().zip(entries) {
                groups.entry(key).or_default().push(entry);
            }
            out.par_extend(
                groups
                    .into_par_iter()
                    .filter(|(_, entries)| entries.len() > 1)
                    .filter_map(|(_, mut entries)| {
                        let names: HashSet<&str> =
                            entries.iter().map(|e| e.state.tool.name.as_str()).collect();
                        let servers: HashSet<&str> = entries.iter().map(|e| e.server).collect();
                        if names.len() < 2 || servers.len() < 2 {
                            return None;
                        }
                        // By name, then server order (a stable sort keeps the latter).
                        entries.sort_by(|a, b| a.state.tool.name.cmp(&b.state.tool.name));
                        if allowed(&entries) {
                            return None;
                        }
                        let shown: Vec<String> = entries
                            .iter()
                            .map(|e| format!("`{}` ({})", e.state.tool.name, e.server))
                            .collect();
                        let message = format!("tool names {} {what}", shown.join(", "));
                        draft(rule, &entries, message)
                    }),
            );
        }
        cross_references(cx.states, &exact, out);
    }
}

/// A finding on the last entry (in server order), with the others as related locations.
fn draft(rule: &'static str, entries: &[&Entry<'_>], message: String) -> Option<Draft> {
    let (last, others) = entries.split_last()?;
    let mut draft = Draft::new(rule, last.location(), message)
        .server(last.server)
        .tool(&last.state.tool.name)
        .field("name");
    for other in others {
        draft = draft.related(other.location());
    }
    Some(draft)
}

fn list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("servers {} and {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

/// A description sentence that names another server's tool (or another server) and gives an
/// order: "instead of `send_email`, always use …".
fn cross_references(
    states: &[ServerState<'_>],
    exact: &HashMap<&str, Vec<Entry<'_>>>,
    out: &mut Vec<Draft>,
) {
    let servers: HashMap<&str, &ServerState<'_>> =
        states.iter().map(|s| (s.server.name.as_str(), s)).collect();
    let names: Vec<&str> = exact.keys().chain(servers.keys()).copied().collect();
    let names = Names {
        filter: NameFilter::new(&names),
        exact,
        servers,
    };
    // By file: a file whose text was freed is read again once for all of its tools.
    let mut by_file: BTreeMap<SourceId, Vec<(&ServerState<'_>, &ToolState<'_>)>> = BTreeMap::new();
    for state in states {
        let tools = by_file.entry(state.server.source).or_default();
        tools.extend(state.tools.values().map(|tool| (state, tool)));
    }
    let found: Vec<Vec<Draft>> = by_file
        .into_par_iter()
        .map(|(_, tools)| {
            let Some((_, first)) = tools.first() else {
                return Vec::new();
            };
            let text = first.file.text();
            tools
                .iter()
                .filter_map(|(state, tool)| {
                    names.cross_reference(state, tool, &tool.description_in(&text)?)
                })
                .collect()
        })
        .collect();
    out.extend(found.into_iter().flatten());
}

/// Every tool and server name, for [`cross_references`].
struct Names<'a> {
    filter: NameFilter,
    exact: &'a HashMap<&'a str, Vec<Entry<'a>>>,
    servers: HashMap<&'a str, &'a ServerState<'a>>,
}

impl Names<'_> {
    /// The first word of `description` (of `tool`, on `state`'s server) that names another
    /// server's tool, or another server, in a sentence that gives an order.
    fn cross_reference(
        &self,
        state: &ServerState<'_>,
        tool: &ToolState<'_>,
        description: &str,
    ) -> Option<Draft> {
        for (start, word) in candidate_words(description, &self.filter) {
            let others: Vec<&str> = match self.exact.get(word) {
                Some(entries) if !state.tools.contains_key(word) => {
                    entries.iter().map(|e| e.server).collect()
                }
                _ if word != state.server.name && self.servers.contains_key(word) => vec![word],
                _ => continue,
            };
            let sentence = sentence_around(description, start);
            let gives_order = INSTRUCTION_CUES
                .as_ref()
                .is_some_and(|cue| cue.is_match(sentence));
            if !gives_order {
                continue;
            }
            let mut draft = Draft::new(
                "cross-server-reference",
                Location::new(state.server.source, tool.tool.pointer.key("description"))
                    .within(start..start + word.len()),
                format!(
                    "the description gives instructions about `{word}`, which belongs to {}, not to server `{}`",
                    list(&others),
                    state.server.name
                ),
            )
            .server(&state.server.name)
            .tool(&tool.tool.name)
            .field("description");
            if let Some(other) = self.exact.get(word).and_then(|e| e.first()) {
                draft = draft.related(other.location());
            }
            return Some(draft);
        }
        None
    }
}

/// Which words can be a tool or server name: two bits per name, in one word of the table. A
/// description is a hundred-odd ordinary words, each of which used to be collected and looked
/// up in the name maps (100k names do not fit in a cache; this table, 16 bits a name, mostly
/// does). A word with either bit clear is no name; one with both is confirmed by the maps (at
/// 100k tools, one bit a name let 487k words through, none of them a name; two, 98k).
struct NameFilter {
    bits: Vec<u64>,
    /// How far a hash is shifted right to index a word of `bits`.
    shift: u32,
}

impl NameFilter {
    fn new(names: &[&str]) -> NameFilter {
        let len = (names.len() * 16).next_power_of_two().max(1 << 12);
        let mut filter = NameFilter {
            bits: vec![0; len / 64],
            shift: 64 - (len / 64).trailing_zeros(),
        };
        for name in names {
            let (word, bits) = filter.slot(word_hash(name.as_bytes()));
            if let Some(word) = filter.bits.get_mut(word) {
                *word |= bits;
            }
        }
        filter
    }

    /// The word of `bits` a hash falls in (from its top bits, the best mixed), and the two bits
    /// of that word it sets (from its low twelve): a second bit in the same word costs no
    /// second cache miss, and lets through a fraction of the words that are no name.
    fn slot(&self, hash: u64) -> (usize, u64) {
        let word = hash >> self.shift;
        (
            word as usize,
            (1 << (hash & 63)) | (1 << ((hash >> 6) & 63)),
        )
    }

    /// False only when no name hashes to `hash` (a [`word_hash`]).
    fn may_hold(&self, hash: u64) -> bool {
        let (word, bits) = self.slot(hash);
        self.bits.get(word).is_some_and(|w| w & bits == bits)
    }
}

/// A word's hash for the filter: fixed-seeded, so the filter is the same from run to run (only
/// its bits are compared; the maps behind it keep their random seeds).
fn word_hash(bytes: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(0x243f_6a88_85a3_08d3).hash_one(bytes)
}

/// The identifier-like words of `text` (as [`words_by_chars`] splits them) that `filter` may
/// hold, with their byte offsets. ASCII text (most descriptions) is split over bytes, and no
/// word is collected unless the filter lets it through.
fn candidate_words<'t>(text: &'t str, filter: &NameFilter) -> Vec<(usize, &'t str)> {
    let mut words = Vec::new();
    if !text.is_ascii() {
        words = words_by_chars(text);
        words.retain(|(_, w)| filter.may_hold(word_hash(w.as_bytes())));
        return words;
    }
    // A table and an index loop: the closure-per-byte `split` was 4% of a 100k-tool check.
    const IS_WORD: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            table[b] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.');
            b += 1;
        }
        table
    };
    let bytes = text.as_bytes();
    let is_word = |i: usize| bytes.get(i).is_some_and(|&b| IS_WORD[usize::from(b)]);
    let mut i = 0;
    while i < bytes.len() {
        if !is_word(i) {
            i += 1;
            continue;
        }
        let start = i;
        while is_word(i) {
            i += 1;
        }
        if i - start < 3 {
            continue;
        }
        let word = bytes.get(start..i).unwrap_or_default();
        let kept = word.len() - word.iter().rev().take_while(|&&b| b == b'.').count();
        let word = word.get(..kept).unwrap_or_default();
        if filter.may_hold(word_hash(word)) {
            // ASCII text splits at character boundaries.
            words.extend(text.get(start..start + kept).map(|w| (start, w)));
        }
    }
    words
}

/// Identifier-like words (at least 3 characters, trailing dots dropped) with their byte offsets.
fn words_by_chars(text: &str) -> Vec<(usize, &str)> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .filter_map(|w| word(text, w))
        .collect()
}

/// A piece of `text` as a word, when it is long enough.
fn word<'t>(text: &str, piece: &'t str) -> Option<(usize, &'t str)> {
    let start = piece.as_ptr() as usize - text.as_ptr() as usize;
    (piece.len() >= 3).then(|| (start, piece.trim_end_matches('.')))
}

fn sentence_around(text: &str, at: usize) -> &str {
    let ends = ['.', '!', '?', '\n'];
    let start = text
        .get(..at)
        .and_then(|s| s.rfind(ends))
        .map_or(0, |i| i + 1);
    let end = text
        .get(at..)
        .and_then(|s| s.find(ends).map(|i| i + at))
        .unwrap_or(text.len());
    text.get(start..end).unwrap_or(text)
}

/// The UTS #39 idea, restricted to what tool names use: case-folded, separators unified, and
/// Cyrillic/Greek/fullwidth look-alikes and digit-letter confusables mapped to Latin. A small
/// table rather than a crate: tool names are short ASCII-ish identifiers, and the full
/// confusables data (~6k entries) would mostly map scripts no tool name uses.
pub fn skeleton(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let c = match u32::from(c) {
            0xFF01..=0xFF5E => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
            _ => c,
        };
        let mapped = match c {
            '-' | '_' | '.' | ' ' => '_',
            '1' | '|' | 'l' | 'L' => 'l',
            '0' => 'o',
            // No ASCII letter is another script's look-alike.
            c if c.is_ascii() => c.to_ascii_lowercase(),
            c => crate::unicode::latin_lookalike(c)
                .unwrap_or_else(|| c.to_lowercase().next().unwrap_or(c)),
        };
        // Two-letter look-alikes as they complete, once both letters are Latin: what
        // `.replace("rn", "m").replace("vv", "w")` gives, without two more strings a name.
        match (out.chars().next_back(), mapped) {
            (Some('r'), 'n') | (Some('v'), 'v') => {
                out.pop();
                out.push(if mapped == 'n' { 'm' } else { 'w' });
            }
            _ => out.push(mapped),
        }
    }
    out
}

/// The entries truncation can make collide with another name: names longer than the limit,
/// and names that are the truncation of one. Two names within the limit stay apart, so most
/// workspaces have none to group. Names are taken from `exact`'s keys, whose byte lengths sit in
/// its table: a name no longer than the limit in bytes is no longer in characters, so most are
/// never read (reading each tool's name through its entry, a few pointers away, was 45 ms of a
/// 100k-tool check on one thread).
fn truncation_candidates<'e, 'a>(
    exact: &'e HashMap<&'a str, Vec<Entry<'a>>>,
) -> Vec<&'e Entry<'a>> {
    let is_long = |name: &str| {
        name.len() > CLIENT_NAME_LIMIT && name.chars().nth(CLIENT_NAME_LIMIT).is_some()
    };
    let prefixes: HashSet<String> = exact
        .keys()
        .filter(|name| is_long(name))
        .map(|name| truncated(name))
        .collect();
    if prefixes.is_empty() {
        return Vec::new();
    }
    exact
        .iter()
        .filter(|(name, _)| is_long(name) || prefixes.contains(**name))
        .flat_map(|(_, entries)| entries)
        .collect()
}

fn truncated(name: &str) -> String {
    name.chars().take(CLIENT_NAME_LIMIT).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skeletons_fold_look_alikes() {
        let same = [
            ("read_file", "read-file"),
            ("read_file", "Read.File"),
            ("read_file", "rеad_file"), // Cyrillic е
            ("send_mail", "send_rnail"),
            ("paypal", "paypa1"),
        ];
        for (a, b) in same {
            assert_eq!(skeleton(a), skeleton(b), "{a} vs {b}");
        }
        assert_ne!(skeleton("read_file"), skeleton("write_file"));
        // Two-letter look-alikes fold left to right, each letter once, as `str::replace` does.
        for (name, folded) in [
            ("rnn", "mn"),
            ("rrn", "rm"),
            ("vvv", "wv"),
            ("vvvv", "ww"),
            ("RN_VV", "m_w"),
            ("rvvn", "rwn"),
            ("vrnv", "vmv"),
        ] {
            assert_eq!(skeleton(name), folded, "{name}");
        }
    }

    #[test]
    fn the_name_filter_turns_away_most_words_and_never_a_name() {
        let names: Vec<String> = (0..1000).map(|i| format!("tool_{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let filter = NameFilter::new(&names);
        let holds = |w: &str| filter.may_hold(word_hash(w.as_bytes()));
        assert!(names.iter().all(|n| holds(n)));
        // 16 bits a name and two of them set: about one word in fifty gets through.
        let passed = (0..10_000).filter(|i| holds(&format!("word{i}"))).count();
        assert!(passed < 400, "{passed} of 10000 words passed");
    }

    #[test]
    fn finds_the_sentence() {
        let text = "Lists files. Always use list_all instead of ls! Done";
        let at = text.find("list_all").unwrap();
        assert_eq!(
            sentence_around(text, at),
            " Always use list_all instead of ls"
        );
        let words =
            |text| -> Vec<&str> { words_by_chars(text).into_iter().map(|(_, w)| w).collect() };
        assert_eq!(
            words("Use `send_email`, not x.y_z."),
            ["Use", "send_email", "not", "x.y_z"]
        );
        assert_eq!(
            words("Nutze «send_email» — für café."),
            ["Nutze", "send_email", "für", "café"]
        );
    }

    /// Every word the filter holds comes through, at its offset, exactly as `words_by_chars`
    /// splits it (over bytes for ASCII text, over characters otherwise); nothing else does.
    #[test]
    fn candidate_words_are_the_words_the_filter_holds() {
        let texts = [
            "Use `send_email`, not x.y_z.",
            "a-b_c.d...e\n\tfoo(bar)=baz;qux",
            "...",
            "",
            "ab",
            "end with send_email",
            "Nutze «send_email» — für café...",
        ];
        for text in texts {
            let all = words_by_chars(text);
            let every: Vec<&str> = all.iter().map(|(_, w)| *w).collect();
            assert_eq!(
                candidate_words(text, &NameFilter::new(&every)),
                all,
                "{text:?}"
            );
            let some = NameFilter::new(&["send_email", "x.y_z", ""]);
            let got = candidate_words(text, &some);
            for (at, word) in &all {
                if ["send_email", "x.y_z", ""].contains(word) {
                    assert!(got.contains(&(*at, *word)), "{word:?} in {text:?}");
                }
            }
            assert!(got.iter().all(|w| all.contains(w)), "{text:?}");
        }
    }
}
