//! What `mcp-scan lock` does to the lock: approve the scanned servers' current definitions.
//!
//! A server whose content is unchanged keeps its entry byte for byte (same version, same
//! timestamps), so re-running `lock` never touches an up-to-date file. A changed server gets
//! baselineVersion + 1, the previous baseline moves into its history, and the approval is
//! stamped with who and when.

use std::collections::BTreeMap;

use crate::error::Error;
use crate::fingerprint::{FingerprintOptions, hashed_definition};
use crate::lock::{Baseline, HISTORY_LEN, Lock, LockedServer, LockedTool, Status};
use crate::state::ServerState;

pub struct Approval<'a> {
    pub who: &'a str,
    pub now: &'a str,
    /// Approve only these servers (`--server`); `None` approves everything scanned and drops
    /// servers that are no longer scanned.
    pub only: Option<&'a [String]>,
}

/// `states` are fingerprinted with `options` (the new settings); `old_states`, with the old
/// lock's settings, decide whether a server's content changed.
pub fn approve(
    old: Option<&Lock>,
    states: &[ServerState<'_>],
    old_states: &[ServerState<'_>],
    options: &FingerprintOptions,
    approval: &Approval<'_>,
) -> Result<Lock, Error> {
    let mut lock = match old {
        Some(old) => old.clone(),
        None => Lock::empty(options.clone()),
    };
    let rehash = lock.fingerprint != *options;
    if rehash && approval.only.is_some() {
        return Err(Error::new(
            "the fingerprint settings differ from the lock's: run `mcp-scan lock` without --server to re-hash every server",
        ));
    }
    lock.fingerprint = options.clone();
    if let Some(only) = approval.only {
        for name in only {
            if !states.iter().any(|s| &s.server.name == name) {
                return Err(Error::new(format!(
                    "no scanned snapshot provides server `{name}`"
                )));
            }
        }
    } else {
        lock.servers
            .retain(|name, _| states.iter().any(|s| &s.server.name == name));
    }
    for (state, old_state) in states.iter().zip(old_states) {
        let name = &state.server.name;
        if approval.only.is_some_and(|only| !only.contains(name)) {
            continue;
        }
        let tools: BTreeMap<String, LockedTool> = state
            .tools
            .iter()
            .map(|(tool_name, t)| {
                let locked = LockedTool {
                    digest: t.digest.digest.clone(),
                    fields: t.digest.fields.clone(),
                    definition: hashed_definition(t.object, options),
                };
                (tool_name.to_string(), locked)
            })
            .collect();
        let entry = match lock.servers.remove(name) {
            Some(previous) if previous.baseline.hash == old_state.digest => LockedServer {
                baseline: Baseline {
                    hash: state.digest.clone(),
                    ..previous.baseline
                },
                tools,
                ..previous
            },
            Some(previous) => {
                let mut history = vec![previous.baseline.clone()];
                history.extend(previous.history);
                history.truncate(HISTORY_LEN);
                LockedServer {
                    status: previous.status,
                    history,
                    ..approved(previous.baseline.version + 1, state, approval, tools)
                }
            }
            None => approved(1, state, approval, tools),
        };
        lock.servers.insert(name.clone(), entry);
    }
    Ok(lock)
}

/// A server entry approving `state` now, as baseline `version`, with no history.
fn approved(
    version: u64,
    state: &ServerState<'_>,
    approval: &Approval<'_>,
    tools: BTreeMap<String, LockedTool>,
) -> LockedServer {
    LockedServer {
        status: Status::Verified,
        baseline: Baseline {
            version,
            hash: state.digest.clone(),
            approved_at: approval.now.to_string(),
            approved_by: approval.who.to_string(),
        },
        captured_at: state
            .server
            .captured_at
            .clone()
            .unwrap_or_else(|| approval.now.to_string()),
        history: Vec::new(),
        tools,
    }
}
