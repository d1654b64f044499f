//! What a change to `mcp.lock` approves: two lockfiles compared server by server and tool by
//! tool (PR review mode, `mcp-scan diff --base`). Pure data; `commands::diff` renders it.

use std::collections::BTreeSet;

use crate::lock::{Lock, LockedServer, LockedTool, Status};

pub enum ServerChange<'a> {
    Added(&'a str, &'a LockedServer),
    Removed(&'a str, &'a LockedServer),
    Changed {
        name: &'a str,
        old: &'a LockedServer,
        new: &'a LockedServer,
        tools: Vec<ToolChange<'a>>,
    },
}

pub enum ToolChange<'a> {
    Added(&'a str, &'a LockedTool),
    Removed(&'a str, &'a LockedTool),
    Changed {
        name: &'a str,
        old: &'a LockedTool,
        new: &'a LockedTool,
        /// Top-level fields whose digest differs, in name order.
        fields: Vec<String>,
    },
}

/// Every server whose approval differs between `base` and `head`, in name order.
pub fn compare<'a>(base: &'a Lock, head: &'a Lock) -> Vec<ServerChange<'a>> {
    let mut changes = Vec::new();
    let names: BTreeSet<&String> = base.servers.keys().chain(head.servers.keys()).collect();
    for name in names {
        match (base.servers.get(name), head.servers.get(name)) {
            (None, Some(new)) => changes.push(ServerChange::Added(name, new)),
            (Some(old), None) => changes.push(ServerChange::Removed(name, old)),
            (Some(old), Some(new)) => {
                let tools = compare_tools(old, new);
                if !tools.is_empty() || old.status != new.status {
                    changes.push(ServerChange::Changed {
                        name,
                        old,
                        new,
                        tools,
                    });
                }
            }
            (None, None) => {}
        }
    }
    changes
}

fn compare_tools<'a>(old: &'a LockedServer, new: &'a LockedServer) -> Vec<ToolChange<'a>> {
    let names: BTreeSet<&String> = old.tools.keys().chain(new.tools.keys()).collect();
    let mut changes = Vec::new();
    for name in names {
        match (old.tools.get(name), new.tools.get(name)) {
            (None, Some(tool)) => changes.push(ToolChange::Added(name, tool)),
            (Some(tool), None) => changes.push(ToolChange::Removed(name, tool)),
            (Some(o), Some(n)) if o.digest != n.digest => {
                let keys: BTreeSet<&str> = o.fields.keys().chain(n.fields.keys()).collect();
                let fields = keys
                    .into_iter()
                    .filter(|k| o.fields.get(k) != n.fields.get(k))
                    .map(|k| k.to_string())
                    .collect();
                changes.push(ToolChange::Changed {
                    name,
                    old: o,
                    new: n,
                    fields,
                });
            }
            _ => {}
        }
    }
    changes
}

/// The (server, tool) definitions a change newly approves: every tool of an added server, and
/// the added and changed tools of a changed one. These are what a reviewer must read.
pub fn approved<'a>(changes: &[ServerChange<'a>]) -> BTreeSet<(&'a str, &'a str)> {
    let mut approved = BTreeSet::new();
    for change in changes {
        match change {
            ServerChange::Added(name, server) => {
                approved.extend(server.tools.keys().map(|tool| (*name, tool.as_str())));
            }
            ServerChange::Changed { name, tools, .. } => {
                approved.extend(tools.iter().filter_map(|tool| match tool {
                    ToolChange::Added(tool, _) | ToolChange::Changed { name: tool, .. } => {
                        Some((*name, *tool))
                    }
                    ToolChange::Removed(..) => None,
                }));
            }
            ServerChange::Removed(..) => {}
        }
    }
    approved
}

pub fn status_change(old: &LockedServer, new: &LockedServer) -> Option<(Status, Status)> {
    (old.status != new.status).then_some((old.status, new.status))
}
