//! Drift events: what a SIEM ingests for each drift finding — the server, its approved and
//! current digests, the baseline version, the tools changed, added and removed, and whether
//! the run was blocked or only alerted.
//!
//! Computed once per server from the same comparison the drift check uses, then attached to
//! every drift finding after the engine has decided which findings fail the run.

use std::collections::BTreeMap;

use crate::config::DriftAction;
use crate::finding::{Category, Finding};
use crate::fingerprint::FingerprintOptions;
use crate::lock::Lock;
use crate::state::{ServerDelta, ServerState, ToolDelta, compare};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriftEvent {
    /// `None` for drift that belongs to no server (a pinned prompt file).
    pub server: Option<String>,
    /// The approved baseline's digest; `None` when the server has none.
    pub previous_digest: Option<String>,
    /// The scanned server's digest; `None` when it was not scanned (removed).
    pub current_digest: Option<String>,
    pub baseline_version: Option<u64>,
    pub changed: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// `Block` when the finding fails the run, else `Alert`.
    pub action: DriftAction,
}

/// Gives every drift finding its event; `fails` says whether a finding fails the run.
pub fn attach(
    findings: &mut [Finding],
    states: &[ServerState<'_>],
    lock: Option<&Lock>,
    options: &FingerprintOptions,
    fails: impl Fn(&Finding) -> bool,
) {
    let mut by_server: BTreeMap<String, DriftEvent> = BTreeMap::new();
    let states: BTreeMap<&str, &ServerState<'_>> =
        states.iter().map(|s| (s.server.name.as_str(), s)).collect();
    for finding in findings.iter_mut() {
        if finding.category != Category::Drift {
            continue;
        }
        let action = if fails(finding) {
            DriftAction::Block
        } else {
            DriftAction::Alert
        };
        let base = match &finding.server {
            Some(server) => by_server
                .entry(server.clone())
                .or_insert_with(|| {
                    server_event(server, states.get(server.as_str()).copied(), lock, options)
                })
                .clone(),
            None => DriftEvent {
                server: None,
                previous_digest: None,
                current_digest: None,
                baseline_version: None,
                changed: Vec::new(),
                added: Vec::new(),
                removed: Vec::new(),
                action,
            },
        };
        finding.event = Some(DriftEvent { action, ..base });
    }
}

fn server_event(
    name: &str,
    state: Option<&ServerState<'_>>,
    lock: Option<&Lock>,
    options: &FingerprintOptions,
) -> DriftEvent {
    let locked = lock.and_then(|l| l.servers.get(name));
    let mut event = DriftEvent {
        server: Some(name.to_string()),
        previous_digest: locked.map(|l| l.baseline.hash.clone()),
        current_digest: state.map(|s| s.digest.clone()),
        baseline_version: locked.map(|l| l.baseline.version),
        changed: Vec::new(),
        added: Vec::new(),
        removed: Vec::new(),
        action: DriftAction::Alert,
    };
    match state {
        Some(state) => match compare(state, locked, options) {
            ServerDelta::Same => {}
            ServerDelta::Unbaselined => {
                event.added = state.tools.keys().map(|k| k.to_string()).collect();
            }
            ServerDelta::Changed(deltas) => {
                for delta in &deltas {
                    let list = match delta {
                        ToolDelta::Added(_) => &mut event.added,
                        ToolDelta::Removed(..) => &mut event.removed,
                        ToolDelta::Changed { .. } => &mut event.changed,
                    };
                    list.push(delta.name().to_string());
                }
            }
        },
        None => event.removed = locked.map_or_else(Vec::new, |l| l.tools.keys().cloned().collect()),
    }
    event
}
