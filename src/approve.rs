//! What `mcp-scan lock` does to the lock: approve the scanned servers' current definitions, all
//! of them or only the servers and tools named on the command line.
//!
//! A tool whose content is unchanged keeps its entry (same approval stamps), and a server none
//! of whose approved tools changed keeps its baseline, so re-running `lock` never touches an
//! up-to-date file. A changed server gets baselineVersion + 1, the previous baseline moves into
//! its history, and the new baseline names the tools it changed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rayon::prelude::*;

use crate::error::Error;
use crate::fingerprint::{FingerprintOptions, with_canonical};
use crate::lock::{
    ApprovalKind, Baseline, Lock, LockedServer, LockedTool, Status, ToolApproval, tools_digest,
};
use crate::state::{Approvable, ServerState};

pub struct Approval<'a> {
    pub who: &'a str,
    pub now: &'a str,
    /// Approve only what this names (`--server`, `--tool`); `None` approves everything scanned
    /// and drops servers that are no longer scanned.
    pub only: Option<&'a Selection>,
    /// Trust on first use: tools a bulk approval adds are recorded as approved automatically.
    pub auto_approve_new: bool,
}

/// The servers and tools named on the command line: a whole server (`--server NAME`) or some of
/// its tools (`--tool SERVER/TOOL`).
#[derive(Debug, Default)]
pub struct Selection {
    servers: BTreeMap<String, Scope>,
}

#[derive(Debug)]
enum Scope {
    Server,
    Tools(BTreeSet<String>),
}

impl Selection {
    /// `tools` are `SERVER/TOOL`; a server named whole takes precedence over its tools.
    pub fn parse(servers: &[String], tools: &[String]) -> Result<Selection, Error> {
        let mut selection = Selection::default();
        for spec in tools {
            let Some((server, tool)) = spec
                .split_once('/')
                .filter(|(s, t)| !s.is_empty() && !t.is_empty())
            else {
                return Err(Error::new(format!(
                    "`--tool {spec}`: expected SERVER/TOOL, e.g. weather/get_forecast"
                )));
            };
            let scope = selection
                .servers
                .entry(server.to_string())
                .or_insert_with(|| Scope::Tools(BTreeSet::new()));
            if let Scope::Tools(names) = scope {
                names.insert(tool.to_string());
            }
        }
        for server in servers {
            selection.servers.insert(server.clone(), Scope::Server);
        }
        Ok(selection)
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    pub fn names_server(&self, server: &str) -> bool {
        self.servers.contains_key(server)
    }

    /// Every name must exist: a server among the scanned ones, a tool among the scanned or the
    /// approved tools of its server (approving a tool that is gone removes it).
    fn validate(&self, states: &[ServerState<'_>], lock: &Lock) -> Result<(), Error> {
        for (server, scope) in &self.servers {
            let Some(state) = states.iter().find(|s| &s.server.name == server) else {
                return Err(Error::new(format!(
                    "no scanned snapshot provides server `{server}`"
                )));
            };
            if let Scope::Tools(tools) = scope {
                let locked = lock.servers.get(server);
                for tool in tools {
                    let known = state.tools.contains_key(tool.as_str())
                        || locked.is_some_and(|l| l.tools.contains_key(tool));
                    if !known {
                        return Err(Error::new(format!(
                            "server `{server}` has no tool `{tool}`, scanned or approved"
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// `states` are fingerprinted with `options` (the new settings); `old_states`, with the old
/// lock's settings, decide whether a tool's content changed.
pub fn approve(
    old: Option<&Lock>,
    states: &[ServerState<'_>],
    old_states: &[ServerState<'_>],
    options: &FingerprintOptions,
    approval: &Approval<'_>,
) -> Result<Lock, Error> {
    // The new lock is built beside the old one (which the caller still compares it with), and
    // only what is carried over unchanged is copied: cloning a 100k-tool lock took 0.24 s, and
    // each server's tools again 0.21 s, all of it replaced by the approval.
    let empty = Lock::empty(options.clone());
    let old = old.unwrap_or(&empty);
    let rehash = old.fingerprint != *options;
    if rehash && approval.only.is_some() {
        return Err(Error::new(
            "the fingerprint settings differ from the lock's: run `mcp-scan lock` without --server or --tool to re-hash every server",
        ));
    }
    let mut lock = Lock {
        fingerprint: options.clone(),
        servers: BTreeMap::new(),
        prompts: old.prompts.clone(),
        launch: old.launch.clone(),
    };
    // Approving everything keeps exactly the servers scanned; a selection keeps the servers it
    // does not name as they are.
    if let Some(only) = approval.only {
        only.validate(states, old)?;
        lock.servers = old
            .servers
            .iter()
            .filter(|(name, _)| !only.servers.contains_key(*name))
            .map(|(name, server)| (name.clone(), server.clone()))
            .collect();
    }
    let mut work = Vec::new();
    for (state, old_state) in states.iter().zip(old_states) {
        let name = &state.server.name;
        let scope = match approval.only {
            None => None,
            Some(only) => match only.servers.get(name) {
                Some(scope) => Some(scope),
                None => continue,
            },
        };
        work.push((old.servers.get(name), state, old_state, scope));
    }
    // Each server on its own, in parallel: approving copies every scanned definition.
    let approved: Vec<(String, LockedServer)> = work
        .into_par_iter()
        .map(|(previous, state, old_state, scope)| {
            let entry = approve_server(previous, state, old_state, scope, options, approval);
            (state.server.name.clone(), entry)
        })
        .collect();
    lock.servers.extend(approved);
    Ok(lock)
}

/// Approves the tools of one server that `scope` covers (all when `None`), leaving its other
/// approved tools as they are.
fn approve_server(
    previous: Option<&LockedServer>,
    state: &ServerState<'_>,
    old_state: &ServerState<'_>,
    scope: Option<&Scope>,
    options: &FingerprintOptions,
    approval: &Approval<'_>,
) -> LockedServer {
    let in_scope = |tool: &str| match scope {
        None | Some(Scope::Server) => true,
        Some(Scope::Tools(names)) => names.contains(tool),
    };
    let old_tools = previous.map(|p| &p.tools);
    // The approved tools out of scope stay as they are; those in scope are approved afresh
    // (or dropped, when no longer scanned).
    let mut tools: BTreeMap<String, LockedTool> = old_tools
        .into_iter()
        .flatten()
        .filter(|(name, _)| !in_scope(name))
        .map(|(name, tool)| (name.clone(), tool.clone()))
        .collect();
    // Named on the command line: someone approved it by name, never merely on first use.
    let named = scope.is_some();
    let names: BTreeSet<&str> = old_tools
        .into_iter()
        .flat_map(|tools| tools.keys().map(String::as_str))
        .chain(state.tools.keys().copied())
        .filter(|name| in_scope(name))
        .collect();
    let mut changed = Vec::new();
    for name in names {
        let before = old_tools.and_then(|tools| tools.get(name));
        let Some(current) = state.tools.get(name) else {
            if before.is_some() {
                changed.push(name.to_string());
            }
            continue;
        };
        let old_digest = old_state.tools.get(name).map(|t| t.digest);
        let unchanged = before.is_some_and(|b| Some(&b.digest) == old_digest);
        let stamp = if unchanged {
            before.and_then(|b| b.approval.clone())
        } else {
            let kind = if before.is_none() && !named && approval.auto_approve_new {
                ApprovalKind::Auto
            } else {
                ApprovalKind::Explicit
            };
            Some(ToolApproval {
                // Locks written before tools recorded approvals do not know: from now on.
                first_seen: before
                    .and_then(|b| b.approval.as_ref())
                    .map_or_else(|| Arc::from(approval.now), |a| Arc::clone(&a.first_seen)),
                approved_at: Arc::from(approval.now),
                approved_by: Arc::from(approval.who),
                kind,
            })
        };
        if !unchanged {
            changed.push(name.to_string());
        }
        // What the lock stores beside the digest: the field digests (only an approval needs
        // them, so a scan does not compute them) and the definition. From the pass that took
        // the digest when the states were fingerprinted for an approval, else from a pass of
        // their own.
        let taken = current
            .approvable
            .and_then(|cell| cell.lock().ok().and_then(|mut cell| cell.take()));
        let Some(Approvable { fields, definition }) = taken.or_else(|| {
            // Always found: states hold only tools whose pointer led to an object, in a text
            // that does not change.
            let object = current.object()?;
            Some(with_canonical(&object, options, |bytes, members| {
                Approvable::of(
                    options.algorithm,
                    bytes,
                    members,
                    current.digest,
                    before,
                    None,
                )
            }))
        }) else {
            continue;
        };
        let locked = LockedTool {
            digest: current.digest.clone(),
            fields,
            definition,
            approval: stamp,
        };
        tools.insert(name.to_string(), locked);
    }
    let hash = tools_digest(options.algorithm, &tools);
    match previous {
        Some(previous) if changed.is_empty() => LockedServer {
            status: previous.status,
            baseline: Baseline {
                hash,
                ..previous.baseline.clone()
            },
            captured_at: previous.captured_at.clone(),
            history: previous.history.clone(),
            tools,
        },
        Some(previous) => LockedServer {
            captured_at: captured_at(state, approval),
            ..previous.advance(
                options.algorithm,
                tools,
                changed,
                approval.who,
                approval.now,
            )
        },
        None => LockedServer {
            status: Status::Verified,
            baseline: Baseline {
                version: 1,
                hash,
                approved_at: approval.now.to_string(),
                approved_by: approval.who.to_string(),
                changed: Vec::new(),
            },
            captured_at: captured_at(state, approval),
            history: Vec::new(),
            tools,
        },
    }
}

fn captured_at(state: &ServerState<'_>, approval: &Approval<'_>) -> String {
    state
        .server
        .captured_at
        .clone()
        .unwrap_or_else(|| approval.now.to_string())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::input::from_text;
    use crate::json::Limits;
    use crate::json::canonical::to_canonical_vec;
    use crate::lock::Definition;
    use crate::state::{fingerprint_all, fingerprint_for_approval, server_states};

    /// What approving stores is the same whether it comes from the pass that took each
    /// digest (`lock` approving everything) or from a pass of the approval's own (a selection).
    #[test]
    fn approvals_from_the_fingerprint_pass_match_their_own_pass() {
        let text = r#"{"tools": [
            {"name": "b", "description": "Second.", "inputSchema": {"type": "object"},
             "annotations": {"readOnlyHint": true}, "x-extra": [1, "two"]},
            {"name": "a", "title": "A", "description": "First \u00e9.",
             "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
        ]}"#;
        let inputs = from_text(
            Path::new("t.json"),
            text.to_string(),
            "s",
            &Limits::default(),
        )
        .unwrap();
        let options = FingerprintOptions::default();
        let approval = Approval {
            who: "test",
            now: "2026-01-01T00:00:00Z",
            only: None,
            auto_approve_new: true,
        };
        let lock_from = |fingerprints| {
            let states = server_states(&inputs, fingerprints);
            approve(None, &states, &states, &options, &approval)
                .unwrap()
                .render()
        };
        let prepared = fingerprint_for_approval(&inputs, &options, None, None);
        let separate = fingerprint_all(&inputs, &options);
        let rendered = lock_from(&prepared);
        assert_eq!(rendered, lock_from(&separate));
        assert!(rendered.contains("\"x-extra\""), "{rendered}");
        // Taken once: approving again from the same fingerprints computes its own.
        assert_eq!(lock_from(&prepared), rendered);

        // Refreshing a lock: a definition it stores as exactly the bytes approved is kept
        // from it, not copied; one it stores otherwise is written anew.
        let edited = rendered.replacen("Second.", "Second!", 1);
        let (previous, _) = Lock::parse(Path::new("mcp.lock"), edited).unwrap();
        let refreshed = fingerprint_for_approval(&inputs, &options, Some(&previous), None);
        let states = server_states(&inputs, &refreshed);
        let new = approve(Some(&previous), &states, &states, &options, &approval).unwrap();
        let tools = &new.servers["s"].tools;
        assert!(matches!(tools["a"].definition, Definition::Kept(_)));
        assert!(matches!(tools["b"].definition, Definition::Canonical(_)));
        // Field digests too, when they are the same (here for both tools: the edit is in the
        // stored definition, not in its digests).
        let stored = &previous.servers["s"].tools;
        assert!(tools["a"].fields.shared_with(&stored["a"].fields));
        assert!(tools["b"].fields.shared_with(&stored["b"].fields));
        let (other, _) = Lock::parse(
            Path::new("mcp.lock"),
            rendered.replacen(
                "\"description\": \"sha256:",
                "\"description\": \"sha256:0",
                1,
            ),
        )
        .unwrap();
        let refreshed = fingerprint_for_approval(&inputs, &options, Some(&other), None);
        let states = server_states(&inputs, &refreshed);
        let again = approve(Some(&other), &states, &states, &options, &approval).unwrap();
        let shared = |name: &str| {
            again.servers["s"].tools[name]
                .fields
                .shared_with(&other.servers["s"].tools[name].fields)
        };
        assert_eq!((shared("a"), shared("b")), (false, true), "{rendered}");
        let states = server_states(&inputs, &separate);
        let fresh = approve(None, &states, &states, &options, &approval).unwrap();
        for name in ["a", "b"] {
            let want = fresh.servers["s"].tools[name].definition.written();
            assert_eq!(tools[name].definition.written(), want);
            // The edited digest is not taken over: it is computed again.
            let fields = &fresh.servers["s"].tools[name].fields;
            assert_eq!(again.servers["s"].tools[name].fields, *fields);
        }

        // A lock written otherwise (here on one line) holds the same definitions, but not as
        // the lock writes them: each is written anew, and the refreshed lock is as written.
        let tree = crate::json::parse(&rendered, crate::json::Dialect::Json, &Limits::default());
        let one_line = String::from_utf8(to_canonical_vec(&tree.unwrap())).unwrap();
        let (other, _) = Lock::parse(Path::new("mcp.lock"), one_line).unwrap();
        let refreshed = fingerprint_for_approval(&inputs, &options, Some(&other), None);
        let states = server_states(&inputs, &refreshed);
        let again = approve(Some(&other), &states, &states, &options, &approval).unwrap();
        for tool in again.servers["s"].tools.values() {
            assert!(matches!(tool.definition, Definition::Canonical(_)));
        }
        assert_eq!(again.render(), rendered);
    }
}
