//! MCP client configuration files: which files they are, and the servers they define.
//!
//! Every client stores servers as a JSON object keyed by server name (`mcpServers`, or `servers`
//! for VS Code). The model keeps each value's JSON pointer, so config findings point at the exact
//! place in the file, and keeps `${VAR}` / `${env:VAR}` / `${input:id}` references verbatim: only
//! `record` resolves them, and only into the environment of the process it starts.

pub mod launch;
pub mod package;
pub mod reference;

use std::path::Path;

use crate::decode::Decoder;
use crate::error::Error;
use crate::json::{Dialect, Limits, Node, Pointer, parse};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientKind {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    VsCode,
    Windsurf,
    Gemini,
    /// A file named on the command line that matches no well-known name: read by its content.
    Generic,
}

impl ClientKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ClientKind::ClaudeCode => "Claude Code",
            ClientKind::ClaudeDesktop => "Claude Desktop",
            ClientKind::Cursor => "Cursor",
            ClientKind::VsCode => "VS Code",
            ClientKind::Windsurf => "Windsurf",
            ClientKind::Gemini => "Gemini CLI",
            ClientKind::Generic => "MCP client",
        }
    }

    /// Claude Code and Claude Desktop read strict JSON; the editors and Gemini CLI accept
    /// comments and trailing commas, so a strict parser would reject their valid files.
    pub fn dialect(self) -> Dialect {
        match self {
            ClientKind::ClaudeCode | ClientKind::ClaudeDesktop | ClientKind::Windsurf => {
                Dialect::Json
            }
            _ => Dialect::Jsonc,
        }
    }
}

/// The client a file belongs to, judged by its well-known name (and parent folder).
pub fn detect(path: &Path) -> Option<ClientKind> {
    let name = path.file_name()?.to_str()?;
    let parent = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|p| p.to_str());
    match (parent, name) {
        (_, ".mcp.json") => Some(ClientKind::ClaudeCode),
        (_, "claude_desktop_config.json") => Some(ClientKind::ClaudeDesktop),
        (_, "mcp_config.json") => Some(ClientKind::Windsurf),
        (Some(".vscode"), "mcp.json") => Some(ClientKind::VsCode),
        (Some(".cursor"), "mcp.json") => Some(ClientKind::Cursor),
        (Some(".gemini"), "settings.json") => Some(ClientKind::Gemini),
        _ => None,
    }
}

#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub kind: ClientKind,
    pub servers: Vec<ConfiguredServer>,
}

/// A string from the config and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub value: String,
    pub pointer: Pointer,
}

/// A `name: value` entry of `env` or `headers`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub value: Located,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    Stdio {
        command: Located,
        args: Vec<Located>,
        cwd: Option<String>,
    },
    /// Streamable HTTP or SSE, at `url`, `httpUrl` (Gemini) or `serverUrl` (Windsurf).
    Remote { url: Located },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfiguredServer {
    pub name: String,
    /// The server's object in the config file.
    pub pointer: Pointer,
    pub transport: Transport,
    pub env: Vec<Entry>,
    pub headers: Vec<Entry>,
    /// Gemini CLI's `trust: true`: every tool call runs without confirmation.
    pub trust: bool,
    pub disabled: bool,
}

/// Reads and parses a client config; `kind` comes from [`detect`], else the file is generic.
pub fn load(path: &Path, kind: ClientKind) -> Result<ClientConfig, Error> {
    let text = crate::input::read_text(path)?;
    let root = parse(&text, kind.dialect(), &Limits::default())
        .map_err(|e| Error::at_offset(path, &text, e.offset, e.message))?;
    from_node(&root, kind, &Decoder::new(path, &text))
}

pub fn from_node(root: &Node, kind: ClientKind, d: &Decoder<'_>) -> Result<ClientConfig, Error> {
    let top = d.object(root, "an MCP client config")?;
    // VS Code's own file uses `servers`; every other client, and VS Code's portable `.mcp.json`,
    // `mcpServers`. A generic file may use either.
    let key = match kind {
        ClientKind::VsCode => "servers",
        ClientKind::Generic if top.get("mcpServers").is_none() => "servers",
        _ => "mcpServers",
    };
    let mut servers = Vec::new();
    if let Some(node) = top.get(key) {
        let pointer = Pointer::root().key(key);
        for member in d.object(node, &format!("`{key}`"))?.iter_unique() {
            servers.push(read_server(
                &member.key,
                &member.value,
                pointer.key(&member.key),
                d,
            )?);
        }
    }
    Ok(ClientConfig { kind, servers })
}

const URL_KEYS: [&str; 3] = ["url", "httpUrl", "serverUrl"];

fn read_server(
    name: &str,
    node: &Node,
    pointer: Pointer,
    d: &Decoder<'_>,
) -> Result<ConfiguredServer, Error> {
    let what = format!("server `{name}`");
    let obj = d.object(node, &what)?;
    let located = |key: &str, value: &Node| -> Result<Located, Error> {
        Ok(Located {
            value: d.string(value, &format!("`{key}` of {what}"))?.to_string(),
            pointer: pointer.key(key),
        })
    };
    let url = URL_KEYS
        .iter()
        .find_map(|k| obj.get(k).map(|v| (*k, v)))
        .map(|(k, v)| located(k, v))
        .transpose()?;
    let transport = match (obj.get("command"), url) {
        (Some(command), _) => {
            let mut args = Vec::new();
            if let Some(list) = obj.get("args") {
                for (i, arg) in d
                    .array(list, &format!("`args` of {what}"))?
                    .iter()
                    .enumerate()
                {
                    args.push(Located {
                        value: d.string(arg, "an argument")?.to_string(),
                        pointer: pointer.key("args").index(i),
                    });
                }
            }
            let cwd = match obj.get("cwd") {
                Some(cwd) => Some(d.string(cwd, "`cwd`")?.to_string()),
                None => None,
            };
            Transport::Stdio {
                command: located("command", command)?,
                args,
                cwd,
            }
        }
        (None, Some(url)) => Transport::Remote { url },
        (None, None) => {
            return Err(d.error(
                node,
                format!("{what} has neither a `command` nor a `url`, `httpUrl` or `serverUrl`"),
            ));
        }
    };
    let entries = |key: &str| -> Result<Vec<Entry>, Error> {
        let Some(map) = obj.get(key) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for member in d.object(map, &format!("`{key}` of {what}"))?.iter_unique() {
            out.push(Entry {
                name: member.key.to_string(),
                value: Located {
                    value: d
                        .string(&member.value, &format!("`{key}.{}`", member.key))?
                        .to_string(),
                    pointer: pointer.key(key).key(&member.key),
                },
            });
        }
        Ok(out)
    };
    Ok(ConfiguredServer {
        name: name.to_string(),
        transport,
        env: entries("env")?,
        headers: entries("headers")?,
        trust: obj.get("trust").and_then(Node::as_bool) == Some(true),
        disabled: obj.get("disabled").and_then(Node::as_bool) == Some(true),
        pointer,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn config(kind: ClientKind, text: &str) -> Result<ClientConfig, String> {
        let root = parse(text, kind.dialect(), &Limits::default()).map_err(|e| e.message)?;
        from_node(&root, kind, &Decoder::new(Path::new("c.json"), text)).map_err(|e| e.to_string())
    }

    fn url_of(server: &ConfiguredServer) -> &str {
        match &server.transport {
            Transport::Remote { url } => &url.value,
            Transport::Stdio { .. } => panic!("remote expected"),
        }
    }

    #[test]
    fn detects_clients_by_file_name() {
        let cases = [
            (".mcp.json", Some(ClientKind::ClaudeCode)),
            ("a/.vscode/mcp.json", Some(ClientKind::VsCode)),
            (".cursor/mcp.json", Some(ClientKind::Cursor)),
            (
                "x/claude_desktop_config.json",
                Some(ClientKind::ClaudeDesktop),
            ),
            ("mcp_config.json", Some(ClientKind::Windsurf)),
            (".gemini/settings.json", Some(ClientKind::Gemini)),
            ("settings.json", None),
            ("mcp.json", None),
            ("snapshots/github.json", None),
        ];
        for (path, want) in cases {
            assert_eq!(detect(&PathBuf::from(path)), want, "{path}");
        }
    }

    #[test]
    fn reads_stdio_and_remote_servers_with_pointers() {
        let text = r#"{
          // VS Code allows comments
          "inputs": [{"type": "promptString", "id": "token", "password": true}],
          "servers": {
            "gh": {"type": "stdio", "command": "npx", "args": ["-y", "pkg@1.0.0"],
                   "env": {"TOKEN": "${input:token}"}},
            "remote": {"type": "http", "url": "https://example.com/mcp",
                       "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
          },
        }"#;
        let c = config(ClientKind::VsCode, text).unwrap();
        assert_eq!(c.servers.len(), 2);
        let gh = &c.servers[0];
        assert_eq!(gh.env[0].value.value, "${input:token}");
        assert_eq!(gh.env[0].value.pointer.as_str(), "/servers/gh/env/TOKEN");
        let Transport::Stdio { command, args, .. } = &gh.transport else {
            panic!("stdio expected");
        };
        assert_eq!(command.value, "npx");
        let args: Vec<(&str, &str)> = args
            .iter()
            .map(|a| (a.value.as_str(), a.pointer.as_str()))
            .collect();
        assert_eq!(
            args,
            [
                ("-y", "/servers/gh/args/0"),
                ("pkg@1.0.0", "/servers/gh/args/1")
            ]
        );
        let remote = &c.servers[1];
        assert_eq!(url_of(remote), "https://example.com/mcp");
        assert_eq!(remote.headers[0].value.value, "Bearer ${env:TOKEN}");
    }

    #[test]
    fn reads_every_url_key_and_gemini_trust() {
        let text = r#"{"mcpServers": {
            "w": {"serverUrl": "https://w.example/mcp"},
            "g": {"httpUrl": "https://g.example/mcp", "trust": true},
            "off": {"command": "x", "disabled": true}
        }}"#;
        let c = config(ClientKind::Gemini, text).unwrap();
        assert_eq!(url_of(&c.servers[0]), "https://w.example/mcp");
        assert_eq!(url_of(&c.servers[1]), "https://g.example/mcp");
        assert!(c.servers[1].trust);
        assert!(c.servers[2].disabled);
    }

    #[test]
    fn rejects_malformed_servers_with_positions() {
        let cases = [
            (
                r#"{"mcpServers": []}"#,
                "c.json:1:16: `mcpServers` must be an object",
            ),
            (
                r#"{"mcpServers": {"a": {}}}"#,
                "server `a` has neither a `command`",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "args": [1]}}}"#,
                "c.json:1:48: an argument must be a string",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}"#,
                "`env.K` must be a string",
            ),
        ];
        for (text, want) in cases {
            let err = config(ClientKind::ClaudeCode, text).unwrap_err();
            assert!(err.contains(want), "{err} should contain {want}");
        }
        assert!(config(ClientKind::ClaudeCode, "{// no\n}").is_err());
    }
}
