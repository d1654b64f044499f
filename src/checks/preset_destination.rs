//! `preset-destination`: a parameter that says where something goes (a recipient, a callback,
//! an upload URL) comes with a fixed outside address as its `default` or `const`. An agent
//! that leaves the parameter out, or is told the default is fine, sends the data there.

use super::name_words::NameWords;
use super::pattern::{At, excerpt};
use super::{Context, Draft, StringCheck};

pub struct PresetDestination;

/// Name words that make a parameter the one deciding where data goes on their own.
const DESTINATION_WORDS: &[&str] = &[
    "to",
    "cc",
    "bcc",
    "recipient",
    "recipients",
    "destination",
    "forward",
    "webhook",
    "callback",
    "mirror",
    "payee",
    "wallet",
    "iban",
];

/// Name words that do so beside a word for an address (`upload_url`, `backup_endpoint`).
const SENDING_WORDS: &[&str] = &["upload", "backup", "notify", "report", "sync", "export"];
const ADDRESS_WORDS: &[&str] = &["url", "uri", "endpoint", "address", "email", "host"];

/// Hosts that are placeholders or this machine: a default pointing there sends nothing out.
const LOCAL_HOSTS: &[&str] = &["localhost", "127.0.0.1", "0.0.0.0", "[::1]"];
const PLACEHOLDER_DOMAINS: &[&str] = &["example.com", "example.org", "example.net"];
const PLACEHOLDER_SUFFIXES: &[&str] = &[".example", ".test", ".invalid", ".local", ".localhost"];

impl StringCheck for PresetDestination {
    fn rules(&self) -> &'static [&'static str] {
        &["preset-destination"]
    }

    fn scan(&self, _cx: &Context<'_>, at: &At<'_>) -> Vec<Draft> {
        let Some(property) = at.strings.preset_property(at.target) else {
            return Vec::new();
        };
        let Some(host) = outside_host(at.target.text) else {
            return Vec::new();
        };
        if !names_a_destination(property) {
            return Vec::new();
        }
        vec![at.draft(
            "preset-destination",
            0..at.target.text.len(),
            format!(
                "parameter `{property}` is preset to an outside address ({host}): \"{}\"",
                excerpt(at.target.text)
            ),
        )]
    }
}

/// Whether the property's name (snake, kebab or camel case) says it decides where data goes.
fn names_a_destination(name: &str) -> bool {
    let words = NameWords::of(name);
    words.has_any(DESTINATION_WORDS)
        || (words.has_any(SENDING_WORDS) && words.has_any(ADDRESS_WORDS))
}

/// The host of the first e-mail address or http(s) URL in `value`, unless it is a placeholder
/// or this machine.
fn outside_host(value: &str) -> Option<&str> {
    let host = value.split_whitespace().find_map(|token| {
        let token = token.trim_matches(|c: char| matches!(c, '<' | '>' | '"' | '\'' | ',' | ';'));
        if let Some(rest) = token
            .strip_prefix("https://")
            .or_else(|| token.strip_prefix("http://"))
        {
            rest.split(['/', '?', '#']).next()
        } else {
            token.split_once('@').map(|(_, domain)| domain)
        }
    })?;
    let bare = host.rsplit_once(':').map_or(host, |(name, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) {
            name
        } else {
            host
        }
    });
    let lower = bare.to_ascii_lowercase();
    let placeholder = LOCAL_HOSTS.contains(&lower.as_str())
        || PLACEHOLDER_DOMAINS
            .iter()
            .any(|d| lower == *d || lower.ends_with(&format!(".{d}")))
        || PLACEHOLDER_SUFFIXES.iter().any(|s| lower.ends_with(s));
    let a_host_name = bare.contains('.')
        && bare
            .chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '-');
    (a_host_name && !placeholder).then_some(bare)
}

#[cfg(test)]
mod tests {
    use super::{names_a_destination, outside_host};

    #[test]
    fn destination_names() {
        for name in [
            "to",
            "bcc",
            "reply_to",
            "forwardTo",
            "callback_url",
            "upload-url",
            "backupEndpoint",
            "notify_email",
            "recipients",
        ] {
            assert!(names_a_destination(name), "{name}");
        }
        for name in [
            "base_url",
            "api_endpoint",
            "from",
            "sender",
            "topic",
            "token",
        ] {
            assert!(!names_a_destination(name), "{name}");
        }
    }

    #[test]
    fn outside_hosts_but_not_placeholders() {
        assert_eq!(
            outside_host("https://relay.evil-sync.io/v2/up?x=1"),
            Some("relay.evil-sync.io")
        );
        assert_eq!(outside_host("archive@mail-keep.net"), Some("mail-keep.net"));
        assert_eq!(
            outside_host("Reports <ops@corp-mail.com>"),
            Some("corp-mail.com")
        );
        for value in [
            "https://localhost:8080/callback",
            "http://127.0.0.1/hook",
            "user@example.com",
            "https://hooks.example.org/x",
            "alerts@team.example",
            "primary",
            "not an address",
            "npm:@scope/pkg@1.2.3",
        ] {
            assert_eq!(outside_host(value), None, "{value}");
        }
    }
}
