//! `contradictory-annotations`: a tool whose name says it deletes claims to be read-only.
//! Clients auto-approve read-only tools, so a false `readOnlyHint` skips the confirmation the
//! user would otherwise see.

use super::name_words::name_words;
use super::{Check, Context, Draft};
use crate::finding::Location;

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

impl Check for ContradictoryAnnotations {
    fn rules(&self) -> &'static [&'static str] {
        &["contradictory-annotations"]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        for server in &cx.inputs.servers {
            for tool in &server.tools {
                let read_only = cx
                    .inputs
                    .tool_object(server, tool)
                    .and_then(|o| o.get("annotations"))
                    .and_then(|a| a.get("readOnlyHint"))
                    .and_then(|h| h.as_bool());
                let Some(word) = destructive_word(&tool.name).filter(|_| read_only == Some(true))
                else {
                    continue;
                };
                out.push(
                    Draft::new(
                        "contradictory-annotations",
                        Location::new(
                            server.source,
                            tool.pointer.key("annotations").key("readOnlyHint"),
                        ),
                        format!(
                            "tool `{}` claims `readOnlyHint: true` but its name says it will {word}; clients may run it without asking",
                            tool.name
                        ),
                    )
                    .server(&server.name)
                    .tool(&tool.name)
                    .field("annotations"),
                );
            }
        }
    }
}

/// The destructive word among the name's words.
fn destructive_word(name: &str) -> Option<&'static str> {
    let words = name_words(name);
    DESTRUCTIVE_WORDS
        .iter()
        .copied()
        .find(|d| words.iter().any(|w| w == d))
}

#[cfg(test)]
mod tests {
    use super::destructive_word;

    #[test]
    fn splits_names_into_words() {
        let cases = [
            ("delete_file", Some("delete")),
            ("removeUser", Some("remove")),
            ("db.drop-table", Some("drop")),
            ("list_deleted_items", None),
            ("dropdown_values", None),
            ("get_weather", None),
        ];
        for (name, want) in cases {
            assert_eq!(destructive_word(name), want, "{name}");
        }
    }
}
