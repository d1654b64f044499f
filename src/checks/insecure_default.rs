//! `insecure-default`: a boolean parameter whose `default` (or `const`) turns a safeguard off:
//! `verify_tls: false`, `strict_host_key_checking: false`, `auto_approve: true`,
//! `skip_confirmation: true`. An agent that leaves the parameter out, as agents do with
//! parameters the user never mentioned, makes every call without the safeguard.

use super::name_words::NameWords;
use super::{Check, Context, Draft};
use crate::finding::Location;
use crate::json::walk::{each_object, pointer};
use crate::json::{Node, Pointer};

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
    // Preset to say the user already confirmed: the agent never asks.
    &["confirmed"],
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
                let from = tool.pointer.key("inputSchema");
                for (at, name, key, value) in presets_turning_safeguards_off(schema, &from) {
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

/// Every property below `schema` (through `properties`, `$defs`, `items`, `anyOf`… alike)
/// whose preset boolean turns a safeguard off: the pointer to the preset below `from`, the
/// property's name, `default` or `const`, and the value.
fn presets_turning_safeguards_off<'a>(
    schema: &'a Node,
    from: &Pointer,
) -> Vec<(Pointer, &'a str, &'static str, bool)> {
    let mut found = Vec::new();
    each_object(schema, &mut |path, object| {
        let Some(properties) = object.get("properties").and_then(Node::as_object) else {
            return;
        };
        for member in properties.iter_unique() {
            for key in ["default", "const"] {
                if let Some(value) = member.value.get(key).and_then(Node::as_bool)
                    && turns_safeguard_off(&member.key, value)
                {
                    let at = pointer(from.clone(), path)
                        .key("properties")
                        .key(&member.key)
                        .key(key);
                    found.push((at, member.key.as_str(), key, value));
                }
            }
        }
    });
    found
}

/// Whether presetting parameter `name` to `value` turns a safeguard off.
fn turns_safeguard_off(name: &str, value: bool) -> bool {
    let words = NameWords::of(name);
    if value {
        WAIVERS
            .iter()
            .any(|waiver| waiver.iter().all(|w| words.has(w)))
    } else {
        let strict_checking = words.has("strict") && words.has_any(&["host", "key", "checking"]);
        (words.has_any(SAFEGUARD_WORDS) || strict_checking) && !words.has_any(NEGATING_WORDS)
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
            ("confirmed", true, true),
            ("allow_insecure", true, true),
            // The safe way round.
            ("verify_tls", true, false),
            ("skip_verify", false, false),
            ("auto_approve", false, false),
            ("confirmed", false, false),
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
