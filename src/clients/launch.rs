//! A configured server's launch spec, pinned in `mcp.lock` so that a changed command, argument,
//! package version or URL is drift, like a changed tool.
//!
//! The lock keys entries by server name and stores a digest plus a short readable summary
//! (program and package, or scheme and host) — never the command line itself, whose arguments
//! and URL can hold tokens. Literal `env`/`headers` values are hashed as "literal": rotating a
//! secret is not drift, turning a reference into a literal is.

use std::collections::BTreeMap;

use super::package::{packages, program};
use super::reference::has_reference;
use super::{ConfiguredServer, Entry, Transport};
use crate::fingerprint::{Algorithm, node_digest};
use crate::input::ConfigInput;
use crate::json::{Node, Object};
use crate::lock::LockedLaunch;

/// Each server name's definition, from the first config that defines it (configs in the order
/// they were read). Disagreeing definitions are reported by `server-config-conflict`.
pub fn first_definitions(
    configs: &[ConfigInput],
) -> BTreeMap<&str, (&ConfigInput, &ConfiguredServer)> {
    let mut out = BTreeMap::new();
    for input in configs {
        for server in &input.config.servers {
            out.entry(server.name.as_str()).or_insert((input, server));
        }
    }
    out
}

/// The `launch` section of a lock for these configs.
pub fn pin(configs: &[ConfigInput], algorithm: Algorithm) -> BTreeMap<String, LockedLaunch> {
    first_definitions(configs)
        .into_iter()
        .map(|(name, (_, server))| (name.to_string(), locked(server, algorithm)))
        .collect()
}

pub fn locked(server: &ConfiguredServer, algorithm: Algorithm) -> LockedLaunch {
    LockedLaunch {
        digest: node_digest(algorithm, &spec(server)),
        runs: summary(server),
    }
}

fn spec(server: &ConfiguredServer) -> Node {
    let mut obj = Object::new();
    match &server.transport {
        Transport::Stdio { command, args, cwd } => {
            obj.insert("command", Node::string(command.value.clone()));
            obj.insert(
                "args",
                Node::array(args.iter().map(|a| Node::string(a.value.clone())).collect()),
            );
            if let Some(cwd) = cwd {
                obj.insert("cwd", Node::string(cwd.clone()));
            }
        }
        Transport::Remote { url } => obj.insert("url", Node::string(url.value.clone())),
    }
    obj.insert("env", entries(&server.env));
    obj.insert("headers", entries(&server.headers));
    obj.insert("trust", Node::bool(server.trust));
    Node::object(obj)
}

fn entries(entries: &[Entry]) -> Node {
    let mut obj = Object::new();
    for entry in entries {
        let value = &entry.value.value;
        let hashed = if has_reference(value) {
            value.clone()
        } else {
            "literal".to_string()
        };
        obj.insert(entry.name.clone(), Node::string(hashed));
    }
    Node::object(obj)
}

/// `npx @scope/pkg@1.2.3`, `node`, `https://mcp.example.com`: what runs, without anything that
/// could be a secret.
pub fn summary(server: &ConfiguredServer) -> String {
    match &server.transport {
        Transport::Stdio { command, args, .. } => {
            let words: Vec<&str> = args.iter().map(|a| a.value.as_str()).collect();
            let mut out = program(&command.value).to_string();
            for package in packages(&command.value, &words) {
                if let Some(spec) = words.get(package.arg) {
                    out.push(' ');
                    out.push_str(spec);
                }
            }
            out
        }
        Transport::Remote { url } => {
            let (scheme, rest) = url.value.split_once("://").unwrap_or(("", &url.value));
            let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
            let host = authority.rsplit('@').next().unwrap_or(authority);
            format!("{scheme}://{host}")
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::clients::{ClientKind, from_node};
    use crate::decode::Decoder;
    use crate::json::{Dialect, Limits, parse};

    fn servers(text: &str) -> Vec<ConfiguredServer> {
        let root = parse(text, Dialect::Json, &Limits::default()).unwrap();
        from_node(
            &root,
            ClientKind::ClaudeCode,
            &Decoder::new(Path::new("c"), text),
        )
        .unwrap()
        .servers
    }

    #[test]
    fn summaries_leave_out_secrets() {
        let s = servers(
            r#"{"mcpServers": {
                "a": {"command": "/usr/bin/npx", "args": ["-y", "pkg@1.0.0", "--token", "s3cret"]},
                "b": {"url": "https://user:pw@mcp.example.com/v1?key=s3cret"},
                "c": {"command": "node", "args": ["server.js", "--key=s3cret"]}
            }}"#,
        );
        let got: Vec<String> = s.iter().map(summary).collect();
        assert_eq!(got, ["npx pkg@1.0.0", "https://mcp.example.com", "node"]);
    }

    #[test]
    fn digests_follow_the_spec_not_literal_secret_values() {
        let digest = |text: &str| locked(&servers(text)[0], Algorithm::Sha256).digest;
        let base = digest(
            r#"{"mcpServers": {"a": {"command": "npx", "args": ["pkg@1.0.0"], "env": {"T": "one"}}}}"#,
        );
        let rotated = digest(
            r#"{"mcpServers": {"a": {"command": "npx", "args": ["pkg@1.0.0"], "env": {"T": "two"}}}}"#,
        );
        let bumped = digest(
            r#"{"mcpServers": {"a": {"command": "npx", "args": ["pkg@1.0.1"], "env": {"T": "one"}}}}"#,
        );
        let referenced = digest(
            r#"{"mcpServers": {"a": {"command": "npx", "args": ["pkg@1.0.0"], "env": {"T": "${T}"}}}}"#,
        );
        assert_eq!(base, rotated);
        assert_ne!(base, bumped);
        assert_ne!(base, referenced);
    }
}
