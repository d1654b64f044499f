//! Shadowing: tools of different servers that an agent can mistake for each other, and
//! descriptions that give orders about another server's tools.
//!
//! Every comparison goes through a hash index (exact name, look-alike skeleton, client-renamed
//! name), so a workspace of 100k tools costs a linear pass, never a pairwise one.

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

/// Words that make a sentence an order to the agent rather than a mention.
const INSTRUCTION_CUES: &str = r"(?i)\b(must|always|never|instead|before|after|should|do not|don't|redirect|override|replace|ignore|use|call|send|deprecated|disabled)\b";

struct Entry<'a> {
    server: &'a str,
    source: SourceId,
    state: &'a ToolState<'a>,
}

impl Entry<'_> {
    fn location(&self) -> Location {
        Location::new(self.source, self.state.tool.pointer.key("name"))
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
        let truncation_candidates = truncation_candidates(&all_entries);
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
    let Ok(cue) = Regex::new(INSTRUCTION_CUES) else {
        return;
    };
    let servers: HashMap<&str, &ServerState<'_>> =
        states.iter().map(|s| (s.server.name.as_str(), s)).collect();
    let tools: Vec<(&ServerState<'_>, &ToolState<'_>)> = states
        .iter()
        .flat_map(|state| state.tools.values().map(move |tool| (state, tool)))
        .collect();
    let lengths = NameLengths::new(exact.keys().chain(servers.keys()).copied());
    out.par_extend(tools.par_iter().filter_map(|(state, tool)| {
        let description = tool.object.get("description").and_then(|d| d.as_str())?;
        for (start, word) in words(description)
            .into_iter()
            .filter(|(_, w)| lengths.may_match(w))
        {
            let others: Vec<&str> = match exact.get(word) {
                Some(entries) if !state.tools.contains_key(word) => {
                    entries.iter().map(|e| e.server).collect()
                }
                _ if word != state.server.name && servers.contains_key(word) => vec![word],
                _ => continue,
            };
            let sentence = sentence_around(description, start);
            if !cue.is_match(sentence) {
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
            if let Some(other) = exact.get(word).and_then(|e| e.first()) {
                draft = draft.related(other.location());
            }
            return Some(draft);
        }
        None
    }));
}

/// The lengths that tool and server names have. Descriptions are mostly ordinary words, and one
/// look at a word's length turns most of them away before any hashing.
struct NameLengths {
    /// Bit `n` for a name of `n` bytes, below 128.
    short: u128,
    long: HashSet<usize>,
}

impl NameLengths {
    fn new<'a>(names: impl Iterator<Item = &'a str>) -> NameLengths {
        let mut lengths = NameLengths {
            short: 0,
            long: HashSet::default(),
        };
        for name in names {
            match name.len() {
                n @ 0..128 => lengths.short |= 1 << n,
                n => {
                    lengths.long.insert(n);
                }
            }
        }
        lengths
    }

    /// False only when no name is as long as `word`.
    fn may_match(&self, word: &str) -> bool {
        match word.len() {
            n @ 0..128 => self.short & (1 << n) != 0,
            n => self.long.contains(&n),
        }
    }
}

/// Identifier-like words (at least 3 characters) with their byte offsets. ASCII text (most
/// descriptions) is split over bytes, without decoding characters.
fn words(text: &str) -> Vec<(usize, &str)> {
    if !text.is_ascii() {
        return words_by_chars(text);
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
    let mut out = Vec::new();
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
        // ASCII text splits at character boundaries.
        out.extend(text.get(start..i).and_then(|piece| word(text, piece)));
    }
    out
}

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
            'а' | 'А' | 'α' | 'Α' => 'a',
            'в' | 'В' | 'β' | 'Β' => 'b',
            'с' | 'С' | 'ϲ' => 'c',
            'ԁ' => 'd',
            'е' | 'Е' | 'ε' | 'Ε' => 'e',
            'һ' | 'Н' | 'Η' => 'h',
            'і' | 'І' | 'ι' | 'Ι' | 'ӏ' | 'Ӏ' | '1' | '|' | 'l' | 'L' => 'l',
            'ј' | 'Ј' => 'j',
            'к' | 'К' | 'κ' | 'Κ' => 'k',
            'М' | 'Μ' => 'm',
            'п' | 'ν' | 'Ν' => 'n',
            'о' | 'О' | 'ο' | 'Ο' | '0' => 'o',
            'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
            'ѕ' | 'Ѕ' => 's',
            'т' | 'Т' | 'τ' | 'Τ' => 't',
            'υ' => 'u',
            'х' | 'Х' | 'χ' | 'Χ' => 'x',
            'у' | 'У' | 'γ' => 'y',
            'Ζ' => 'z',
            c => c.to_lowercase().next().unwrap_or(c),
        };
        out.push(mapped);
    }
    // Two-letter look-alikes last, once every letter is Latin.
    out.replace("rn", "m").replace("vv", "w")
}

/// The entries truncation can make collide with another name: names longer than the limit,
/// and names that are the truncation of one. Two names within the limit stay apart, so most
/// workspaces have none to group.
fn truncation_candidates<'e, 'a>(entries: &[&'e Entry<'a>]) -> Vec<&'e Entry<'a>> {
    let is_long = |e: &Entry<'_>| e.state.tool.name.chars().nth(CLIENT_NAME_LIMIT).is_some();
    let prefixes: HashSet<String> = entries
        .iter()
        .filter(|e| is_long(e))
        .map(|e| truncated(&e.state.tool.name))
        .collect();
    if prefixes.is_empty() {
        return Vec::new();
    }
    entries
        .iter()
        .filter(|e| is_long(e) || prefixes.contains(e.state.tool.name.as_str()))
        .copied()
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
    }

    #[test]
    fn name_lengths_turn_away_only_words_no_name_is_as_long_as() {
        let long = "x".repeat(200);
        let lengths = NameLengths::new(["send_email", "git", long.as_str()].into_iter());
        for word in ["send_email", "read_files", "abc", long.as_str()] {
            assert!(lengths.may_match(word), "{word}");
        }
        for word in ["send", "a_longer_word", &"y".repeat(127), &"y".repeat(201)] {
            assert!(!lengths.may_match(word), "{word}");
        }
    }

    #[test]
    fn finds_the_sentence() {
        let text = "Lists files. Always use list_all instead of ls! Done";
        let at = text.find("list_all").unwrap();
        assert_eq!(
            sentence_around(text, at),
            " Always use list_all instead of ls"
        );
        let got: Vec<&str> = words("Use `send_email`, not x.y_z.")
            .into_iter()
            .map(|(_, w)| w)
            .collect();
        assert_eq!(got, ["Use", "send_email", "not", "x.y_z"]);
        // ASCII text is split over bytes, exactly as over characters.
        for text in [
            "Use `send_email`, not x.y_z.",
            "a-b_c.d...e\n\tfoo(bar)=baz;qux",
            "...",
            "",
        ] {
            assert_eq!(words(text), words_by_chars(text), "{text:?}");
        }
        let got: Vec<&str> = words("Nutze «send_email» — für café.")
            .into_iter()
            .map(|(_, w)| w)
            .collect();
        assert_eq!(got, ["Nutze", "send_email", "für", "café"]);
    }
}
