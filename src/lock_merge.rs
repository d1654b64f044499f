//! `mcp-scan lock --import`: merging another team's lockfile into this one.
//!
//! Approvals are combined tool by tool. The same tool approved with different definitions on the
//! two sides is a conflict: the merge stops and lists every one, unless `--prefer` picks a side.
//! A server whose approved tools change gets a new baseline stamped with who merged it.

use std::collections::{BTreeMap, BTreeSet};

use clap::ValueEnum;

use crate::error::Error;
use crate::fingerprint::Algorithm;
use crate::lock::{Lock, LockedServer, LockedTool, Status};

/// Which lockfile wins a conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Prefer {
    /// The imported lockfile's definition
    Theirs,
    /// This lockfile's definition
    Ours,
}

/// `ours` with `theirs` merged in; `Err` lists every conflict when `prefer` is `None`.
pub fn merge(
    ours: &Lock,
    theirs: &Lock,
    prefer: Option<Prefer>,
    who: &str,
    now: &str,
) -> Result<Lock, Error> {
    if ours.fingerprint != theirs.fingerprint {
        return Err(Error::new(
            "the two lockfiles use different fingerprint settings, so their digests cannot be compared",
        )
        .with_help("re-hash the other lockfile with this config (`mcp-scan lock`), or take it whole with --replace"));
    }
    let mut conflicts = Vec::new();
    let mut merged = ours.clone();
    for (name, their_server) in &theirs.servers {
        let Some(our_server) = ours.servers.get(name) else {
            merged.servers.insert(name.clone(), their_server.clone());
            continue;
        };
        let tools = merge_map(
            &our_server.tools,
            &their_server.tools,
            |a, b| a.digest == b.digest,
            |tool, a, b| {
                format!(
                    "server `{name}`, tool `{tool}`: ours {}, theirs {}",
                    a.digest, b.digest
                )
            },
            prefer,
            &mut conflicts,
        );
        let entry = merge_server(
            our_server,
            their_server,
            tools,
            ours.fingerprint.algorithm,
            who,
            now,
        );
        merged.servers.insert(name.clone(), entry);
    }
    merged.prompts = merge_map(
        &ours.prompts,
        &theirs.prompts,
        |a, b| a == b,
        |path, a, b| format!("prompt `{path}`: ours {a}, theirs {b}"),
        prefer,
        &mut conflicts,
    );
    merged.launch = merge_map(
        &ours.launch,
        &theirs.launch,
        |a, b| a == b,
        |name, a, b| {
            format!(
                "launch spec of `{name}`: ours {} ({}), theirs {} ({})",
                a.digest, a.runs, b.digest, b.runs
            )
        },
        prefer,
        &mut conflicts,
    );
    if conflicts.is_empty() {
        return Ok(merged);
    }
    Err(Error::new(format!(
        "{} conflicting approval(s):\n  {}",
        conflicts.len(),
        conflicts.join("\n  ")
    ))
    .with_help("review both definitions (`mcp-scan diff --base OTHER_LOCK`), then pass --prefer theirs or --prefer ours"))
}

/// The union of two maps; an entry on both sides that `same` rejects is a conflict (recorded
/// with `describe`) unless `prefer` picks a side. Ours stays when nothing is preferred.
fn merge_map<V: Clone>(
    ours: &BTreeMap<String, V>,
    theirs: &BTreeMap<String, V>,
    same: impl Fn(&V, &V) -> bool,
    describe: impl Fn(&str, &V, &V) -> String,
    prefer: Option<Prefer>,
    conflicts: &mut Vec<String>,
) -> BTreeMap<String, V> {
    let mut out = ours.clone();
    for (key, theirs) in theirs {
        match ours.get(key) {
            None => {
                out.insert(key.clone(), theirs.clone());
            }
            Some(ours) if same(ours, theirs) => {}
            Some(ours) => match prefer {
                Some(Prefer::Theirs) => {
                    out.insert(key.clone(), theirs.clone());
                }
                Some(Prefer::Ours) => {}
                None => conflicts.push(describe(key, ours, theirs)),
            },
        }
    }
    out
}

/// Our entry, advanced to a new baseline when the merged tools differ from ours. A server held
/// on either side stays held.
fn merge_server(
    ours: &LockedServer,
    theirs: &LockedServer,
    tools: BTreeMap<String, LockedTool>,
    algorithm: Algorithm,
    who: &str,
    now: &str,
) -> LockedServer {
    let names: BTreeSet<&String> = ours.tools.keys().chain(tools.keys()).collect();
    let changed: Vec<String> = names
        .into_iter()
        .filter(|n| ours.tools.get(*n).map(|t| &t.digest) != tools.get(*n).map(|t| &t.digest))
        .cloned()
        .collect();
    let status = if theirs.status == Status::Quarantined {
        Status::Quarantined
    } else {
        ours.status
    };
    let entry = LockedServer {
        status,
        ..ours.clone()
    };
    if changed.is_empty() {
        return entry;
    }
    entry.advance(algorithm, tools, changed, who, now)
}
