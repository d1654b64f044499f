//! Drift against `mcp.lock`: tools changed, added or removed; servers unbaselined, removed or
//! quarantined.

use std::collections::BTreeSet;

use super::{Baseline, BaselineCheck, Context, Draft};
use crate::config::Posture;
use crate::finding::{Change, Location, Severity};
use crate::input::Server;
use crate::json::{Node, Pointer};
use crate::lock::{Lock, LockedServer, Status};
use crate::render::count;
use crate::schema_diff::widenings;
use crate::state::{ServerDelta, ServerState, ToolDelta, ToolState, compare};

pub struct Drift;

impl BaselineCheck for Drift {
    fn rules(&self) -> &'static [&'static str] {
        &[
            "tool-changed",
            "tool-added",
            "tool-removed",
            "server-unbaselined",
            "server-removed",
            "server-quarantined",
        ]
    }

    fn run(&self, cx: &Context<'_>, base: &Baseline<'_>, out: &mut Vec<Draft>) {
        let locked_servers = base.lock.map(|l| &l.lock.servers);
        // Trust on first use: new servers and tools are informational until someone asks for
        // every one of them to be approved (the strict posture, or `auto_approve_new: false`).
        let trust_new = cx.posture != Posture::Strict && cx.config.auto_approve_new(cx.posture);
        for state in base.states {
            let server = state.server;
            let locked = locked_servers.and_then(|s| s.get(&server.name));
            if let (Some(locked), Some(lock)) = (locked, base.lock)
                && locked.status == Status::Quarantined
            {
                out.push(
                    Draft::new(
                        "server-quarantined",
                        server_anchor(server),
                        format!(
                            "server `{}` is quarantined in mcp.lock; release it with `mcp-scan lock --release {}` once it is cleared",
                            server.name, server.name
                        ),
                    )
                    .server(&server.name)
                    .related(Location::new(lock.source, Lock::server_pointer(&server.name)).key()),
                );
            }
            match compare(state, locked, base.options) {
                ServerDelta::Same => {}
                ServerDelta::Unbaselined => {
                    let mut draft = Draft::new(
                        "server-unbaselined",
                        server_anchor(server),
                        format!(
                            "server `{}` ({}) has no approved baseline in mcp.lock; review it, then run `mcp-scan lock`",
                            server.name,
                            count(state.tools.len(), "tool")
                        ),
                    )
                    .server(&server.name);
                    if !trust_new {
                        draft = draft.severity(Severity::High);
                    }
                    out.push(draft);
                }
                ServerDelta::Changed(deltas) => {
                    if let (Some(locked), Some(lock)) = (locked, base.lock) {
                        for delta in &deltas {
                            tool_delta(state, locked, lock.source, delta, trust_new, out);
                        }
                    }
                }
            }
        }
        if let Some(lock) = base.lock {
            let scanned: BTreeSet<&str> =
                base.states.iter().map(|s| s.server.name.as_str()).collect();
            for name in lock
                .lock
                .servers
                .keys()
                .filter(|n| !scanned.contains(n.as_str()))
            {
                out.push(
                    Draft::new(
                        "server-removed",
                        Location::new(lock.source, Lock::server_pointer(name)).key(),
                        format!("server `{name}` is approved in mcp.lock but no scanned snapshot provides it"),
                    )
                    .server(name),
                );
            }
        }
    }
}

/// Where a server-level finding points: the snapshot's `server` field, else the whole document.
fn server_anchor(server: &Server) -> Location {
    let pointer = match server.origin {
        crate::input::Origin::Lockfile => Lock::server_pointer(&server.name),
        crate::input::Origin::Snapshot(_) => match &server.server_field {
            Some(p) => p.clone(),
            None => Pointer::root(),
        },
    };
    Location::new(server.source, pointer)
}

fn tool_delta(
    state: &ServerState<'_>,
    locked: &LockedServer,
    lock_source: crate::source::SourceId,
    delta: &ToolDelta<'_, '_>,
    trust_new: bool,
    out: &mut Vec<Draft>,
) {
    let server = state.server;
    let version = locked.baseline.version;
    match delta {
        ToolDelta::Added(tool) => out.push({
            let draft = Draft::new(
                "tool-added",
                Location::new(server.source, tool.tool.pointer.key("name")),
                format!(
                    "tool `{}` is new: server `{}` did not list it in approved baseline v{version}",
                    tool.tool.name, server.name
                ),
            )
            .server(&server.name)
            .tool(&tool.tool.name);
            if trust_new {
                draft
            } else {
                draft.severity(Severity::High)
            }
        }),
        ToolDelta::Removed(name, _) => out.push(
            Draft::new(
                "tool-removed",
                Location::new(lock_source, Lock::tool_pointer(&server.name, name)).key(),
                format!(
                    "tool `{name}` of server `{}` was approved in baseline v{version} but is no longer listed",
                    server.name
                ),
            )
            .server(&server.name)
            .tool(name),
        ),
        ToolDelta::Changed {
            state: tool,
            before,
            after,
            fields,
        } => {
            let Some(before) = before.as_object() else {
                return;
            };
            for field in fields {
                let after = after.as_deref().and_then(|o| o.get(field));
                out.push(field_change(server, tool, before.get(field), after, field, version));
            }
        }
    }
}

fn field_change(
    server: &Server,
    tool: &ToolState<'_>,
    before: Option<&Node>,
    after: Option<&Node>,
    field: &str,
    version: u64,
) -> Draft {
    let name = &tool.tool.name;
    let at = match after {
        Some(_) => tool.tool.pointer.key(field),
        None => tool.tool.pointer.key("name"),
    };
    let message = match (before, after) {
        (None, Some(_)) => {
            format!("tool `{name}` gained `{field}` since approved baseline v{version}")
        }
        (Some(_), None) => {
            format!("tool `{name}` lost `{field}` since approved baseline v{version}")
        }
        (Some(b), Some(a)) if field == "inputSchema" => {
            let widened = widenings(b, a);
            if widened.is_empty() {
                format!(
                    "`inputSchema` of tool `{name}` changed since approved baseline v{version} (it does not widen what the agent sends)"
                )
            } else {
                format!(
                    "`inputSchema` of tool `{name}` changed since approved baseline v{version} and widens what the agent sends: {}",
                    widened.join("; ")
                )
            }
        }
        _ => format!("`{field}` of tool `{name}` changed since approved baseline v{version}"),
    };
    let mut draft = Draft::new("tool-changed", Location::new(server.source, at), message)
        .server(&server.name)
        .tool(name)
        .field(field);
    if let (Some(b), Some(a)) = (before.and_then(Node::as_str), after.and_then(Node::as_str)) {
        draft = draft.change(Change {
            before: b.to_string(),
            after: a.to_string(),
        });
    }
    draft
}
