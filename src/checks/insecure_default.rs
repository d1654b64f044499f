//! `insecure-default`: a boolean parameter whose `default` (or `const`) turns a safeguard off:
//! `verify_tls: false`, `strict_host_key_checking: false`, `auto_approve: true`,
//! `skip_confirmation: true`. An agent that leaves the parameter out, as agents do with
//! parameters the user never mentioned, makes every call without the safeguard.

use super::name_words::name_words;
use super::{Check, Context, Draft};
use crate::finding::Location;
use crate::json::{Node, Value};

pub struct InsecureDefault;

/// Name words of a safeguard that `false` turns off.
const SAFEGUARD_WORDS: &[&str] = &[
    "verify",
    "verification",
    "tls",
    "ssl",
    "certificate",
    "certificates",
    "cert",
    "sandbox",
    "sandboxed",
    "encrypt",
    "encryption",
];

/// Name words that turn a safeguard's name around (`skip_verify`, `allow_insecure_tls`):
/// then `false` keeps the safeguard.
const NEGATING_WORDS: &[&str] = &[
    "skip",
    "no",
    "disable",
    "insecure",
    "bypass",
    "allow",
    "unsafe",
    "dangerously",
    "ignore",
];

/// Names that `true` makes waive a safeguard: every word of one entry in the name.
const WAIVERS: &[&[&str]] = &[
    &["auto", "approve"],
    &["auto", "confirm"],
    &["auto", "accept"],
    &["skip", "confirm"],
    &["skip", "confirmation"],
    &["skip", "approval"],
    &["skip", "verify"],
    &["skip", "verification"],
    &["skip", "validation"],
    &["no", "verify"],
    &["trust", "all"],
    &["allow", "insecure"],
    &["disable", "tls"],
    &["disable", "ssl"],
    &["disable", "verification"],
    &["disable", "sandbox"],
    &["disable", "safety"],
    &["disable", "auth"],
    &["insecure"],
    &["bypass"],
    &["unsafe"],
    &["dangerously"],
];

impl Check for InsecureDefault {
    fn rules(&self) -> &'static [&'static str] {
        &["insecure-default"]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        for server in &cx.inputs.servers {
            for tool in &server.tools {
                let Some(schema) = cx
                    .inputs
                    .tool_object(server, tool)
                    .and_then(|o| o.get("inputSchema"))
                else {
                    continue;
                };
                let mut path = Vec::new();
                let mut found = Vec::new();
                walk(schema, &mut path, &mut found);
                for (path, name, key, value) in found {
                    let at = path
                        .iter()
                        .fold(tool.pointer.key("inputSchema"), |at, step| match step {
                            Step::Key(k) => at.key(k),
                            Step::Index(i) => at.index(*i),
                        })
                        .key(key);
                    out.push(
                        Draft::new(
                            "insecure-default",
                            Location::new(server.source, at),
                            format!(
                                "parameter `{name}` is preset to `{value}` (its `{key}`), which turns a safeguard off for every call that leaves it out"
                            ),
                        )
                        .server(&server.name)
                        .tool(&tool.name)
                        .field("inputSchema"),
                    );
                }
            }
        }
    }
}

/// One step from the schema down to a property.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// A property found: the path to its schema, its name, `default` or `const`, and the value.
type Found<'a> = (Vec<Step<'a>>, &'a str, &'static str, bool);

/// Every property below `node` (through `properties`, `$defs`, `items`, `anyOf`… alike) whose
/// preset boolean turns a safeguard off. The path is kept as borrowed steps; a pointer is
/// built only for what is found.
fn walk<'a>(node: &'a Node, path: &mut Vec<Step<'a>>, found: &mut Vec<Found<'a>>) {
    match &node.value {
        Value::Object(object) => {
            if let Some(properties) = object.get("properties").and_then(Node::as_object) {
                for member in properties.iter_unique() {
                    let Some(schema) = member.value.as_object() else {
                        continue;
                    };
                    for key in ["default", "const"] {
                        if let Some(value) = schema.get(key).and_then(Node::as_bool)
                            && turns_safeguard_off(&member.key, value)
                        {
                            let mut at = path.clone();
                            at.extend([Step::Key("properties"), Step::Key(&member.key)]);
                            found.push((at, &member.key, key, value));
                        }
                    }
                }
            }
            for member in object.iter_unique() {
                path.push(Step::Key(&member.key));
                walk(&member.value, path, found);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                walk(item, path, found);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Whether presetting parameter `name` to `value` turns a safeguard off.
fn turns_safeguard_off(name: &str, value: bool) -> bool {
    let words = name_words(name);
    let has = |word: &str| words.iter().any(|w| w == word);
    let any = |list: &[&str]| list.iter().any(|w| has(w));
    if value {
        WAIVERS.iter().any(|waiver| waiver.iter().all(|w| has(w)))
    } else {
        let strict_checking = has("strict") && (has("host") || has("key") || has("checking"));
        (any(SAFEGUARD_WORDS) || strict_checking) && !any(NEGATING_WORDS)
    }
}

#[cfg(test)]
mod tests {
    use super::turns_safeguard_off;

    #[test]
    fn safeguards_off_and_waivers_on() {
        let cases = [
            ("verify_tls", false, true),
            ("verifySsl", false, true),
            ("strict_host_key_checking", false, true),
            ("sandbox", false, true),
            ("auto_approve", true, true),
            ("skip_confirmation", true, true),
            ("allow_insecure", true, true),
            // The safe way round.
            ("verify_tls", true, false),
            ("skip_verify", false, false),
            ("auto_approve", false, false),
            ("insecure", false, false),
            // Not safeguards.
            ("url_safe", false, false),
            ("confirm", false, false),
            ("show_signature", false, false),
            ("strict_on_behalf", false, false),
            ("dry_run", false, false),
            ("force", true, false),
        ];
        for (name, value, off) in cases {
            assert_eq!(turns_safeguard_off(name, value), off, "{name}: {value}");
        }
    }
}
