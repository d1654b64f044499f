//! `mcp-scan record`: start the stdio servers of MCP client configs (or reach their remote
//! servers over Streamable HTTP) and write what their `tools/list` returns as snapshots in the
//! recording format, one file per server.
//!
//! This is the only part of mcp-scan that starts processes. Each server gets a clean
//! environment: `PATH` and `HOME` (needed to launch anything) plus exactly the `env` its config
//! gives, with references expanded from mcp-scan's own environment. Expanded values exist only in
//! the child's environment and arguments, or in the HTTP requests; they are redacted from the log
//! and from error messages, and a snapshot that would contain one is not written.

mod http;
mod process;
mod redact;
mod session;
mod stdio;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::clients::reference::{Reference, expand};
use crate::clients::{self, ClientConfig, ConfiguredServer, Located, Transport};
use crate::error::Error;
use crate::json::canonical::to_pretty_string;
use crate::json::{Node, Object};
use http::HttpServer;
use process::{ServerProcess, Spec};
use redact::Redactor;
use session::{Budget, Captured};

/// Looked for, in this order, when no config is named.
pub const WELL_KNOWN_CONFIGS: [&str; 6] = [
    ".mcp.json",
    ".vscode/mcp.json",
    ".cursor/mcp.json",
    ".gemini/settings.json",
    "mcp_config.json",
    "claude_desktop_config.json",
];

/// Enough pages for any real server; a server still paging after this is misbehaving.
pub const MAX_PAGES: usize = 100;

pub struct RecordOptions {
    pub configs: Vec<PathBuf>,
    /// Record only these servers; every server when empty.
    pub servers: Vec<String>,
    pub out: PathBuf,
    pub timeout: Duration,
    pub max_bytes: usize,
}

/// A server picked for recording, with the config it came from.
struct Planned<'a> {
    config_path: &'a Path,
    server: &'a ConfiguredServer,
    file_stem: String,
}

/// Records every selected server; returns how many were recorded. Servers that fail are
/// reported as errors after the others have been tried.
pub fn record(
    options: &RecordOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<usize, Vec<Error>> {
    let configs = load_configs(&options.configs).map_err(|e| vec![e])?;
    let plan = plan(&configs, &options.servers, progress).map_err(|e| vec![e])?;
    std::fs::create_dir_all(&options.out).map_err(|e| {
        vec![Error::in_file(
            &options.out,
            format!("cannot create the output directory: {e}"),
        )]
    })?;
    let mut errors = Vec::new();
    let mut recorded = 0;
    for planned in &plan {
        let name = &planned.server.name;
        progress(&format!("recording `{name}` …"));
        match record_one(planned, options) {
            Ok((tools, path)) => {
                recorded += 1;
                progress(&format!(
                    "recorded `{name}`: {} → {}",
                    crate::render::count(tools, "tool"),
                    crate::source::display_path(&path)
                ));
            }
            Err(message) => {
                let mut error = Error::new(format!("server `{name}`: {message}"));
                let log = log_path(&options.out, &planned.file_stem);
                if log.exists() {
                    error = error.with_help(format!(
                        "its stderr is in {}",
                        crate::source::display_path(&log)
                    ));
                }
                errors.push(error);
            }
        }
    }
    if errors.is_empty() {
        Ok(recorded)
    } else {
        Err(errors)
    }
}

fn load_configs(named: &[PathBuf]) -> Result<Vec<(PathBuf, ClientConfig)>, Error> {
    let paths: Vec<PathBuf> = if named.is_empty() {
        let found: Vec<PathBuf> = WELL_KNOWN_CONFIGS
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.is_file())
            .collect();
        if found.is_empty() {
            return Err(
                Error::new("no MCP client config found in this directory").with_help(format!(
                    "name one with `mcp-scan record --config FILE`; looked for {}",
                    WELL_KNOWN_CONFIGS.join(", ")
                )),
            );
        }
        found
    } else {
        named.to_vec()
    };
    paths
        .into_iter()
        .map(|path| {
            let kind = clients::detect(&path).unwrap_or(clients::ClientKind::Generic);
            Ok((path.clone(), clients::load(&path, kind)?))
        })
        .collect()
}

fn plan<'a>(
    configs: &'a [(PathBuf, ClientConfig)],
    wanted: &[String],
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Planned<'a>>, Error> {
    let mut plan: Vec<Planned<'a>> = Vec::new();
    for (path, config) in configs {
        for server in &config.servers {
            let named = wanted.contains(&server.name);
            if !wanted.is_empty() && !named {
                continue;
            }
            if let Some(first) = plan.iter().find(|p| p.server.name == server.name) {
                // The first definition wins; `check` reports definitions that disagree.
                progress(&format!(
                    "note: `{}` is also defined in {}; recording the one in {}",
                    server.name,
                    crate::source::display_path(path),
                    crate::source::display_path(first.config_path)
                ));
                continue;
            }
            if server.disabled && !named {
                progress(&format!(
                    "skipped `{}`: disabled in its config",
                    server.name
                ));
                continue;
            }
            plan.push(Planned {
                config_path: path,
                server,
                file_stem: file_stem(&server.name),
            });
        }
    }
    if let Some(missing) = wanted.iter().find(|w| {
        !configs
            .iter()
            .any(|(_, c)| c.servers.iter().any(|s| &s.name == *w))
    }) {
        let known: Vec<&str> = configs
            .iter()
            .flat_map(|(_, c)| c.servers.iter().map(|s| s.name.as_str()))
            .collect();
        return Err(Error::new(format!(
            "no configured server is named `{missing}` (configured: {})",
            known.join(", ")
        )));
    }
    for (i, a) in plan.iter().enumerate() {
        if let Some(b) = plan.iter().skip(i + 1).find(|b| b.file_stem == a.file_stem) {
            return Err(Error::new(format!(
                "servers `{}` and `{}` would both be recorded as {}.json",
                a.server.name, b.server.name, a.file_stem
            ))
            .with_help("rename one of them, or record them into separate directories"));
        }
    }
    if plan.is_empty() {
        return Err(Error::new("no server to record in the given configs"));
    }
    Ok(plan)
}

/// A file name for a server name: a hostile name (`../x`, `/etc/passwd`, `.hidden`, NUL) can
/// neither leave the output directory nor hide in it.
pub fn file_stem(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    let safe = safe.trim_start_matches('.');
    if safe.is_empty() {
        "server".to_string()
    } else {
        safe.to_string()
    }
}

fn log_path(out: &Path, stem: &str) -> PathBuf {
    out.join(format!("{stem}.log"))
}

fn record_one(planned: &Planned<'_>, options: &RecordOptions) -> Result<(usize, PathBuf), String> {
    let server = planned.server;
    let budget = Budget {
        deadline: Instant::now() + options.timeout,
        max_pages: MAX_PAGES,
        max_bytes: options.max_bytes,
    };
    let (captured, redactor) = match &server.transport {
        Transport::Stdio { command, args, cwd } => {
            let launch = Launch {
                command,
                args,
                cwd: cwd.as_deref(),
            };
            record_stdio(planned, &launch, options, &budget)?
        }
        Transport::Remote { url } => record_http(planned.config_path, server, url, &budget)?,
    };
    let mut captured = captured?;

    // Sorted by name (stably) so that a server listing its tools in varying order still
    // produces identical bytes; the order never mattered to the fingerprint.
    captured
        .tools
        .sort_by(|a, b| tool_name(a).cmp(tool_name(b)));
    let count = captured.tools.len();
    let mut snapshot = Object::new();
    snapshot.insert("server", Node::string(server.name.clone()));
    if let Some(info) = captured.server_info {
        snapshot.insert("serverInfo", info);
    }
    snapshot.insert("protocolVersion", Node::string(captured.protocol_version));
    snapshot.insert(
        "capturedAt",
        Node::string(crate::clock::now().map_err(|e| e.message)?),
    );
    snapshot.insert("tools", Node::array(captured.tools));
    let mut text = to_pretty_string(&Node::object(snapshot));
    text.push('\n');
    if let Some(secret) = redactor.leaked_in(&text) {
        return Err(format!(
            "its tools/list result contains the value of {secret}; the snapshot was not written"
        ));
    }
    let path = options.out.join(format!("{}.json", planned.file_stem));
    crate::atomic_file::write(&path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok((count, path))
}

type Recorded = (Result<Captured, String>, Redactor);

/// How a stdio server is started, as its config writes it.
struct Launch<'a> {
    command: &'a Located,
    args: &'a [Located],
    cwd: Option<&'a str>,
}

fn record_stdio(
    planned: &Planned<'_>,
    launch: &Launch<'_>,
    options: &RecordOptions,
    budget: &Budget,
) -> Result<Recorded, String> {
    let (spec, secrets) = launch_spec(planned.config_path, planned.server, launch)?;
    let redactor = Redactor::new(secrets);
    let log_file = log_path(&options.out, &planned.file_stem);
    let log = std::fs::File::create(&log_file)
        .map_err(|e| format!("cannot create {}: {e}", log_file.display()))?;
    let mut child = ServerProcess::spawn(&spec, log, redactor.clone(), options.max_bytes)
        .map_err(|e| format!("cannot start `{}`: {e}", spec.program))?;
    let captured = session::capture(&mut child, budget);
    child.shutdown();
    Ok((captured, redactor))
}

/// Over Streamable HTTP there is no process and no log; an error message may quote the URL, so
/// it is redacted like a log.
fn record_http(
    config_path: &Path,
    server: &ConfiguredServer,
    url: &clients::Located,
    budget: &Budget,
) -> Result<Recorded, String> {
    let mut resolve = resolver(config_path);
    let mut secrets = Vec::new();
    let mut headers = Vec::new();
    for entry in &server.headers {
        let value = expand(&entry.value.value, &mut resolve)?;
        secrets.push((format!("header `{}`", entry.name), value.clone()));
        headers.push((entry.name.clone(), value));
    }
    let expanded = expand(&url.value, &mut resolve)?;
    if expanded != url.value {
        secrets.push(("the expanded `url`".to_string(), expanded.clone()));
    }
    if !expanded.starts_with("http://") && !expanded.starts_with("https://") {
        return Err(format!("`{}` is not an http:// or https:// URL", url.value));
    }
    let redactor = Redactor::new(secrets);
    let mut connection = HttpServer::new(expanded, headers);
    let captured = session::capture(&mut connection, budget).map_err(|e| redactor.redact(&e));
    connection.close(budget.deadline);
    Ok((captured, redactor))
}

fn tool_name(tool: &Node) -> &str {
    tool.get("name").and_then(Node::as_str).unwrap_or_default()
}

/// The process to start, with references expanded, and the secrets to keep out of the output.
fn launch_spec(
    config_path: &Path,
    server: &ConfiguredServer,
    launch: &Launch<'_>,
) -> Result<(Spec, Vec<(String, String)>), String> {
    let Launch { command, args, cwd } = launch;
    let project = project_dir(config_path);
    let mut resolve = resolver(config_path);
    let mut env: Vec<(String, String)> = ["PATH", "HOME"]
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
        .collect();
    let mut secrets = Vec::new();
    for entry in &server.env {
        let value = expand(&entry.value.value, &mut resolve)?;
        secrets.push((format!("env `{}`", entry.name), value.clone()));
        env.retain(|(k, _)| k != &entry.name);
        env.push((entry.name.clone(), value));
    }
    let program = expand(&command.value, &mut resolve)?;
    let args = args
        .iter()
        .map(|a| expand(&a.value, &mut resolve))
        .collect::<Result<Vec<_>, _>>()?;
    let cwd = match cwd {
        Some(dir) => project.join(expand(dir, &mut resolve)?),
        None => project,
    };
    Ok((
        Spec {
            program,
            args,
            env,
            cwd,
        },
        secrets,
    ))
}

/// Expands a config's references from mcp-scan's own environment.
fn resolver(config_path: &Path) -> impl FnMut(Reference<'_>) -> Result<String, String> {
    let project = project_dir(config_path);
    let home = std::env::var("HOME").unwrap_or_default();
    move |reference: Reference<'_>| -> Result<String, String> {
        match reference {
            Reference::Env { name, default } => std::env::var(name)
                .ok()
                .or_else(|| default.map(str::to_string))
                .ok_or_else(|| format!("the environment variable `{name}` is not set")),
            Reference::Input(id) => Err(format!(
                "it needs the VS Code input `{id}`, which only the editor can prompt for"
            )),
            Reference::WorkspaceFolder => Ok(project.to_string_lossy().into_owned()),
            Reference::UserHome => Ok(home.clone()),
            Reference::Unknown(inner) => Err(format!("unknown reference `${{{inner}}}`")),
        }
    }
}

/// The folder a client runs servers from: the config's own, or the workspace above `.vscode`,
/// `.cursor` and `.gemini`.
fn project_dir(config_path: &Path) -> PathBuf {
    let dir = match config_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let in_client_folder = dir
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| matches!(n, ".vscode" | ".cursor" | ".gemini"));
    match dir.parent() {
        Some(parent) if in_client_folder && !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ if in_client_folder => PathBuf::from("."),
        _ => dir,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems_stay_inside_the_output_directory() {
        let cases = [
            ("github", "github"),
            ("../../etc/passwd", "_.._etc_passwd"),
            ("/abs", "_abs"),
            (".hidden", "hidden"),
            ("..", "server"),
            ("a\0b", "a_b"),
            ("", "server"),
            ("名前", "__"),
            ("my server.v2", "my_server.v2"),
        ];
        for (name, want) in cases {
            assert_eq!(file_stem(name), want, "{name:?}");
        }
        assert_eq!(file_stem(&"x".repeat(300)).len(), 100);
    }

    #[test]
    fn project_dirs() {
        assert_eq!(
            project_dir(Path::new(".vscode/mcp.json")),
            PathBuf::from(".")
        );
        assert_eq!(
            project_dir(Path::new("a/.gemini/settings.json")),
            PathBuf::from("a")
        );
        assert_eq!(project_dir(Path::new("a/.mcp.json")), PathBuf::from("a"));
        assert_eq!(project_dir(Path::new(".mcp.json")), PathBuf::from("."));
    }
}
