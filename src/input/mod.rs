//! Loading what a run scans: walk the paths, read and parse every file once (in parallel), and
//! turn snapshots (and lockfiles given as inputs) into servers with their tools. MCP client
//! configs met on the way (by their well-known names, or an `mcpServers` key) are kept too, for
//! the config checks.

mod discover;
mod read;
pub mod snapshot;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::byte_size::ByteSize;
use crate::clients::{self, ClientConfig, ClientKind};
use crate::decode::Decoder;
use crate::error::Error;
use crate::json::{Dialect, Limits, Object, Pointer, parse};
use crate::lock::Lock;
use crate::source::{SourceFile, SourceId, Sources};
pub use discover::{Candidate, Discovered, discover};
pub use read::{DEFAULT_MAX_FILE_SIZE, read_bytes, read_text, read_text_within};
use snapshot::{Shape, SnapshotKind, classify};

/// One server as loaded: its tools are pointers into the source's parsed document.
#[derive(Debug)]
pub struct Server {
    pub name: String,
    pub source: SourceId,
    pub origin: Origin,
    /// The snapshot's `capturedAt`, when it has one.
    pub captured_at: Option<String>,
    /// Where the snapshot names its server, when it does (its `server` field).
    pub server_field: Option<Pointer>,
    pub tools: Vec<ToolRef>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Snapshot(SnapshotKind),
    /// A lockfile given as an input: its stored definitions are scanned.
    Lockfile,
}

#[derive(Clone, Debug)]
pub struct ToolRef {
    pub name: String,
    pub pointer: Pointer,
}

/// A file that holds no snapshot (valid JSON of another kind), or a `*.json` entry of a walk that
/// was not read (a FIFO, a symlink leading out of the tree); reported with `-v` and in the JSON
/// summary.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// An MCP client config that was read, and the source its pointers resolve in.
#[derive(Debug)]
pub struct ConfigInput {
    pub source: SourceId,
    pub config: ClientConfig,
}

pub struct Inputs {
    pub sources: Sources,
    pub servers: Vec<Server>,
    pub skipped: Vec<Skipped>,
    pub configs: Vec<ConfigInput>,
    /// Prompt files named by the config's `prompts`; filled in by `check`.
    pub prompts: Vec<crate::prompts::PromptFile>,
}

impl Inputs {
    pub fn tool_count(&self) -> usize {
        self.servers.iter().map(|s| s.tools.len()).sum()
    }

    /// The tool object a reference points at.
    pub fn tool_object(&self, server: &Server, tool: &ToolRef) -> Option<&Object> {
        self.sources
            .get(server.source)?
            .root
            .as_ref()?
            .pointer(&tool.pointer)?
            .as_object()
    }
}

pub struct LoadOptions<'a> {
    /// Files never to read as inputs (the lockfile in use, when a directory walk meets it).
    pub exclude: &'a [PathBuf],
    pub limits: Limits,
    /// Larger files are an error, found from their metadata before anything is read.
    pub max_file_size: ByteSize,
    /// Whether a lockfile may be given as an input (`check` yes, `lock` no).
    pub accept_lockfiles: bool,
}

/// What one file turned into, before servers are named and checked for clashes.
enum Loaded {
    Snapshot(snapshot::SnapshotShape),
    Lockfile(Lock),
    ClientConfig(ClientConfig),
    Skipped(String),
}

pub fn load(paths: &[PathBuf], options: &LoadOptions<'_>) -> Result<Inputs, Vec<Error>> {
    let Discovered {
        candidates,
        skipped,
    } = discover(paths, options.exclude).map_err(|e| vec![e])?;
    let results: Vec<Result<(SourceFile, Loaded), Error>> = candidates
        .par_iter()
        .map(|candidate| load_file(candidate, options))
        .collect();

    let mut errors = Vec::new();
    let mut inputs = Inputs {
        sources: Sources::default(),
        servers: Vec::new(),
        skipped,
        configs: Vec::new(),
        prompts: Vec::new(),
    };
    // Which file first claimed each server name, to name both files on a clash.
    let mut claimed: BTreeMap<String, PathBuf> = BTreeMap::new();
    for result in results {
        let (file, loaded) = match result {
            Ok(ok) => ok,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let path = file.path.clone();
        let servers = match loaded {
            Loaded::Skipped(reason) => {
                inputs.skipped.push(Skipped { path, reason });
                continue;
            }
            Loaded::ClientConfig(config) => {
                let source = inputs.sources.add(file);
                inputs.configs.push(ConfigInput { source, config });
                continue;
            }
            Loaded::Snapshot(shape) => {
                let (name, server_field) = match shape.server {
                    Some((name, pointer)) => (name, Some(pointer)),
                    None => (file_stem(&path), None),
                };
                let source = inputs.sources.add(file);
                vec![Server {
                    name,
                    source,
                    origin: Origin::Snapshot(shape.kind),
                    captured_at: shape.captured_at,
                    server_field,
                    tools: shape
                        .tools
                        .into_iter()
                        .map(|t| ToolRef {
                            name: t.name,
                            pointer: t.pointer,
                        })
                        .collect(),
                }]
            }
            Loaded::Lockfile(lock) => {
                let source = inputs.sources.add(file);
                lock.servers
                    .iter()
                    .map(|(name, server)| Server {
                        name: name.clone(),
                        source,
                        origin: Origin::Lockfile,
                        captured_at: Some(server.captured_at.clone()),
                        server_field: None,
                        tools: server
                            .tools
                            .keys()
                            .map(|tool| ToolRef {
                                name: tool.clone(),
                                pointer: Lock::definition_pointer(name, tool),
                            })
                            .collect(),
                    })
                    .collect()
            }
        };
        for server in servers {
            if let Some(first) = claimed.get(&server.name) {
                errors.push(
                    Error::new(format!(
                        "server `{}` is defined twice: in {} and in {}",
                        server.name,
                        crate::source::display_path(first),
                        crate::source::display_path(&path),
                    ))
                    .with_help("give one snapshot a distinct `server` field, or rename the file"),
                );
                continue;
            }
            claimed.insert(server.name.clone(), path.clone());
            inputs.servers.push(server);
        }
    }
    inputs.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    if errors.is_empty() {
        Ok(inputs)
    } else {
        Err(errors)
    }
}

fn load_file(
    candidate: &Candidate,
    options: &LoadOptions<'_>,
) -> Result<(SourceFile, Loaded), Error> {
    let path = &candidate.path;
    let text = read_text_within(path, options.max_file_size)?;
    let client = clients::detect(path);
    let dialect = client.map_or(Dialect::Json, ClientKind::dialect);
    let root = parse(&text, dialect, &options.limits)
        .map_err(|e| Error::at_offset(path, &text, e.offset, e.message))?;
    let decoder = Decoder::new(path, &text);
    let client = client.or_else(|| root.get("mcpServers").map(|_| ClientKind::Generic));
    let loaded = if let Some(kind) = client {
        Loaded::ClientConfig(clients::from_node(&root, kind, &decoder)?)
    } else if Lock::is_lockfile(&root) {
        if !options.accept_lockfiles {
            return Err(Error::in_file(
                path,
                "a lockfile cannot be an input here: pass snapshot files",
            ));
        }
        Loaded::Lockfile(Lock::from_node(&root, &decoder)?)
    } else {
        match classify(&root, &decoder)? {
            Shape::Snapshot(shape) => Loaded::Snapshot(shape),
            Shape::NotSnapshot(reason) if candidate.explicit => {
                return Err(Error::in_file(
                    path,
                    format!("not an MCP tools/list snapshot: {reason}"),
                ));
            }
            Shape::NotSnapshot(reason) => Loaded::Skipped(reason),
        }
    };
    Ok((SourceFile::new(path.clone(), text, Some(root)), loaded))
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string_lossy().into_owned())
}
