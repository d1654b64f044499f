//! Hazards in how an MCP client config launches or reaches a server: unpinned packages, literal
//! secrets, plain HTTP, shell wrappers and Gemini's `trust: true`. Each finding points at the
//! offending value in the config file.

use super::{Check, Context, Draft};
use crate::clients::package::{shell_wrapper, unpinned};
use crate::clients::reference::has_reference;
use crate::clients::{ConfiguredServer, Entry, Transport};
use crate::finding::Location;
use crate::input::ConfigInput;

pub struct ConfigHazards;

impl Check for ConfigHazards {
    fn rules(&self) -> &'static [&'static str] {
        &[
            "unpinned-package",
            "literal-secret",
            "plaintext-http",
            "shell-wrapper",
            "trusted-server",
        ]
    }

    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>) {
        for input in &cx.inputs.configs {
            for server in &input.config.servers {
                launch_hazards(input, server, out);
                for (entry, what) in server
                    .env
                    .iter()
                    .map(|e| (e, "env"))
                    .chain(server.headers.iter().map(|h| (h, "header")))
                {
                    if looks_like_literal_secret(entry) {
                        out.push(
                            Draft::new(
                                "literal-secret",
                                Location::new(input.source, entry.value.pointer.clone()),
                                format!(
                                    "{what} `{}` of server `{}` holds a literal secret; use a reference such as `${{{}}}` instead",
                                    entry.name,
                                    server.name,
                                    env_name(&entry.name)
                                ),
                            )
                            .server(&server.name),
                        );
                    }
                }
                if server.trust {
                    out.push(
                        Draft::new(
                            "trusted-server",
                            Location::new(input.source, server.pointer.key("trust")),
                            format!(
                                "server `{}` is trusted: its tool calls run without asking for confirmation",
                                server.name
                            ),
                        )
                        .server(&server.name),
                    );
                }
            }
        }
    }
}

fn launch_hazards(input: &ConfigInput, server: &ConfiguredServer, out: &mut Vec<Draft>) {
    let at = |pointer: &crate::json::Pointer| Location::new(input.source, pointer.clone());
    match &server.transport {
        Transport::Stdio { command, args, .. } => {
            let words: Vec<&str> = args.iter().map(|a| a.value.as_str()).collect();
            if let Some(problem) = unpinned(&command.value, &words)
                && let Some(arg) = args.get(problem.arg)
            {
                out.push(
                    Draft::new(
                        "unpinned-package",
                        at(&arg.pointer),
                        format!("server `{}`: {}", server.name, problem.reason),
                    )
                    .server(&server.name),
                );
            }
            if let Some(flag) = shell_wrapper(&command.value, &words).and_then(|i| args.get(i)) {
                out.push(
                    Draft::new(
                        "shell-wrapper",
                        at(&command.pointer),
                        format!(
                            "server `{}` is started through `{} {}`: the real command is a shell string that other checks cannot see into",
                            server.name, command.value, flag.value
                        ),
                    )
                    .server(&server.name),
                );
            }
        }
        Transport::Remote { url } => {
            if let Some(host) = plain_http_host(&url.value) {
                out.push(
                    Draft::new(
                        "plaintext-http",
                        at(&url.pointer),
                        format!(
                            "server `{}` is reached over plain HTTP at `{host}`: anyone on the path can read and rewrite its tool definitions",
                            server.name
                        ),
                    )
                    .server(&server.name),
                );
            }
        }
    }
}

/// The host of an `http://` URL that is not loopback; `None` for HTTPS, loopback, and hosts
/// that come from a reference (unknown until launch).
fn plain_http_host(url: &str) -> Option<&str> {
    let rest = url
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("http://"))
        .and_then(|_| url.get(7..))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    };
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host.to_ascii_lowercase().ends_with(".localhost");
    (!loopback && !host.is_empty() && !has_reference(host)).then_some(host)
}

/// Name fragments of variables and headers that carry credentials.
const SECRET_NAMES: [&str; 10] = [
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
    "AUTHORIZATION",
    "COOKIE",
];

/// Prefixes of well-known token formats (GitHub, OpenAI/Stripe, Slack, AWS, GitLab, Google, npm).
const TOKEN_PREFIXES: [&str; 12] = [
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "github_pat_",
    "sk-",
    "sk_live_",
    "xoxb-",
    "xoxp-",
    "AKIA",
    "glpat-",
    "npm_",
];

fn looks_like_literal_secret(entry: &Entry) -> bool {
    let value = entry.value.value.trim();
    if value.is_empty() || has_reference(value) || is_placeholder(value) {
        return false;
    }
    let name = entry.name.to_ascii_uppercase().replace('-', "_");
    let secret_name = SECRET_NAMES.iter().any(|s| name.contains(s))
        || name.ends_with("_KEY")
        || name.ends_with("_PAT");
    let token = value
        .split_whitespace()
        .last()
        .is_some_and(|v| v.len() >= 16 && TOKEN_PREFIXES.iter().any(|p| v.starts_with(p)));
    secret_name || token
}

/// `<your-token>`, `YOUR_API_KEY`, `changeme`: documentation placeholders, not secrets.
fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    (value.starts_with('<') && value.ends_with('>'))
        || lower.contains("your")
        || lower == "changeme"
        || lower.chars().all(|c| c == 'x' || c == '*' || c == '.')
}

/// A header name as an environment variable name for the suggestion: `X-Api-Key` → `X_API_KEY`.
fn env_name(name: &str) -> String {
    name.to_ascii_uppercase().replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clients::Located;
    use crate::json::Pointer;

    fn entry(name: &str, value: &str) -> Entry {
        Entry {
            name: name.to_string(),
            value: Located {
                value: value.to_string(),
                pointer: Pointer::root(),
            },
        }
    }

    #[test]
    fn literal_secrets() {
        for (name, value) in [
            ("GITHUB_TOKEN", "abc123"),
            ("Authorization", "Bearer abc.def"),
            ("OPENAI_API_KEY", "sk-proj-aaaaaaaaaaaaaaaaaaaa"),
            ("ANYTHING", "ghp_aaaaaaaaaaaaaaaaaaaaaaaa"),
            ("X-Api-Key", "k123"),
        ] {
            assert!(
                looks_like_literal_secret(&entry(name, value)),
                "{name}={value}"
            );
        }
        for (name, value) in [
            ("GITHUB_TOKEN", "${GITHUB_TOKEN}"),
            ("GITHUB_TOKEN", "${env:GITHUB_TOKEN}"),
            ("Authorization", "Bearer ${input:token}"),
            ("API_KEY", "<your-api-key>"),
            ("API_KEY", "YOUR_API_KEY"),
            ("API_KEY", ""),
            ("LOG_LEVEL", "debug"),
            ("TOKEN_LIMIT_HINT", "$LIMIT"),
        ] {
            assert!(
                !looks_like_literal_secret(&entry(name, value)),
                "{name}={value}"
            );
        }
    }

    #[test]
    fn plain_http_hosts() {
        let cases = [
            ("http://mcp.example.com/sse", Some("mcp.example.com")),
            ("HTTP://user:pw@10.0.0.5:8080/mcp", Some("10.0.0.5")),
            ("http://[2001:db8::1]:80/", Some("2001:db8::1")),
            ("http://localhost:3000/mcp", None),
            ("http://127.0.0.1/mcp", None),
            ("http://[::1]:8080", None),
            ("http://app.localhost/", None),
            ("https://mcp.example.com", None),
            ("http://${HOST}/mcp", None),
        ];
        for (url, want) in cases {
            assert_eq!(plain_http_host(url), want, "{url}");
        }
    }
}
