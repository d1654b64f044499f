//! `contradictory-annotations`: a tool whose name says it deletes, sends or changes something
//! claims to be read-only, or carries a title that reads as a look-up. Clients auto-approve
//! read-only tools, and show the title in place of the name, so either skips the confirmation
//! the user would otherwise see, or has the user confirm something else.

use super::name_words::NameWords;
use super::pattern::excerpt;
use super::{Check, Context, Draft};
use crate::finding::Location;
use crate::json::Node;

pub struct ContradictoryAnnotations;

/// Name words that mean the tool destroys or removes something.
const DESTRUCTIVE_WORDS: &[&str] = &[
    "delete",
    "remove",
    "drop",
    "destroy",
    "purge",
    "erase",
    "wipe",
    "truncate",
    "kill",
    "terminate",
    "uninstall",
    "revoke",
    "rm",
    "shred",
    "overwrite",
];

/// Name words that mean the tool changes something or acts outside: sends, pays, publishes,
/// grants, creates. Only read so when the name has no [`READING_WORDS`] (`check_update`).
const ACTING_WORDS: &[&str] = &[
    "send",
    "transfer",
    "wire",
    "pay",
    "payout",
    "post",
    "publish",
    "broadcast",
    "forward",
    "push",
    "email",
    "sms",
    "tweet",
    "deploy",
    "cancel",
    "refund",
    "charge",
    "withdraw",
    "chmod",
    "chown",
    "grant",
    "invite",
    "share",
    "buy",
    "sell",
    "trade",
    "mint",
    "merge",
    "upload",
    "install",
    "create",
    "update",
    "write",
    "set",
    "move",
    "rename",
    "reset",
    "restart",
    "disable",
    "enable",
];

/// Words that mean a look-up: a name with one of these may only read, and a title with one
/// (and no acting word) reads as a look-up.
const READING_WORDS: &[&str] = &[
    "get",
    "list",
    "show",
    "view",
    "read",
    "check",
    "preview",
    "inspect",
    "search",
    "find",
    "fetch",
    "lookup",
    "look",
    "status",
    "describe",
    "retrieve",
    "query",
    "count",
    "browse",
    "explore",
    "peek",
    "info",
    "draft",
    "dry",
    "simulate",
    "estimate",
    "quote",
    "validate",
    "verify",
    "summarize",
    "explain",
    "calculate",
    "compute",
    "track",
    "analyze",
    "analyse",
    "test",
];

impl Check for ContradictoryAnnotations {
    fn rules(&self) -> &'static [&'static str] {
        &["contradictory-annotations"]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        for server in &cx.inputs.servers {
            for tool in &server.tools {
                let Some(word) = action_word(&tool.name) else {
                    continue;
                };
                let object = cx.inputs.tool_object(server, tool);
                let annotations = object.and_then(|o| o.get("annotations"));
                let draft = |at, message| {
                    Draft::new(
                        "contradictory-annotations",
                        Location::new(server.source, at),
                        message,
                    )
                    .server(&server.name)
                    .tool(&tool.name)
                };
                if annotations
                    .and_then(|a| a.get("readOnlyHint"))
                    .and_then(Node::as_bool)
                    == Some(true)
                {
                    out.push(
                        draft(
                            tool.pointer.key("annotations").key("readOnlyHint"),
                            format!(
                                "tool `{}` claims `readOnlyHint: true` but its name says it will {word}; clients may run it without asking",
                                tool.name
                            ),
                        )
                        .field("annotations"),
                    );
                }
                // The title clients show in place of the name: the annotations', else the
                // tool's own.
                let title = annotations
                    .and_then(|a| a.get("title"))
                    .and_then(Node::as_str)
                    .map(|t| {
                        (
                            t,
                            tool.pointer.key("annotations").key("title"),
                            "annotations",
                        )
                    })
                    .or_else(|| {
                        object
                            .and_then(|o| o.get("title"))
                            .and_then(Node::as_str)
                            .map(|t| (t, tool.pointer.key("title"), "title"))
                    });
                if let Some((title, at, field)) = title.filter(|(t, _, _)| reads_as_look_up(t)) {
                    out.push(
                        draft(
                            at,
                            format!(
                                "tool `{}` is titled \"{}\", which reads as a look-up, but its name says it will {word}; the user may approve it as something it is not",
                                tool.name,
                                excerpt(title)
                            ),
                        )
                        .field(field),
                    );
                }
            }
        }
    }
}

/// The word of `name` that says the tool destroys or changes something, if any.
fn action_word(name: &str) -> Option<&'static str> {
    let words = NameWords::of(name);
    words.first_of(DESTRUCTIVE_WORDS).or_else(|| {
        words
            .first_of(ACTING_WORDS)
            .filter(|_| !words.has_any(READING_WORDS))
    })
}

/// A title with a look-up word and no word that destroys or changes something.
fn reads_as_look_up(title: &str) -> bool {
    let words = NameWords::of(title);
    words.has_any(READING_WORDS)
        && !words.has_any(DESTRUCTIVE_WORDS)
        && !words.has_any(ACTING_WORDS)
}

#[cfg(test)]
mod tests {
    use super::{action_word, reads_as_look_up};

    #[test]
    fn names_that_destroy_or_act() {
        let cases = [
            ("delete_file", Some("delete")),
            ("removeUser", Some("remove")),
            ("db.drop-table", Some("drop")),
            ("send_wire", Some("send")),
            ("create_forwarding_rule", Some("create")),
            ("force_push", Some("push")),
            // A look-up word makes an acting word a noun or an object: not a destructive one.
            ("check_update", None),
            ("get_share_link", None),
            ("list_deleted_items", None),
            ("dropdown_values", None),
            ("get_weather", None),
        ];
        for (name, want) in cases {
            assert_eq!(action_word(name), want, "{name}");
        }
    }

    #[test]
    fn titles_that_read_as_look_ups() {
        for (title, look_up) in [
            ("Check balance", true),
            ("git status", true),
            ("Preview SMS", true),
            ("Send message", false),
            ("Create or search index", false),
            ("Weather", false),
        ] {
            assert_eq!(reads_as_look_up(title), look_up, "{title}");
        }
    }
}
