//! The MCP client side of a recording, over stdio: `initialize`, `notifications/initialized`,
//! then `tools/list` page by page.
//!
//! Hand-written rather than rmcp: rmcp parses tools into a struct that drops unknown fields
//! (`execution`, vendor keys), which would make recordings lose exactly what the fingerprint must
//! see, and it pulls in tokio and ~50 crates. Here every message is read with mcp-scan's own
//! parser, so each tool is kept as the server sent it.
//!
//! The 2026-07-28 `server/discover` flow is not used: every server seen so far still answers
//! `initialize` (2025-11-25 and older), and probing `discover` first costs a full timeout on
//! servers that ignore unknown methods.

use std::time::{Duration, Instant};

use serde_json::json;

use super::process::{Event, ServerProcess, Wait};
use crate::json::{Dialect, Limits, Node, parse};

/// The version mcp-scan asks for; a server may answer with any it prefers from [`KNOWN`].
pub const REQUESTED_VERSION: &str = "2025-11-25";
const KNOWN: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub deadline: Instant,
    pub max_pages: usize,
    /// For messages only; the byte cap is enforced by the stdout reader.
    pub max_bytes: usize,
}

pub struct Captured {
    pub protocol_version: String,
    pub server_info: Option<Node>,
    pub tools: Vec<Node>,
}

pub fn capture(server: &mut ServerProcess, budget: &Budget) -> Result<Captured, String> {
    let init = request(
        server,
        budget,
        1,
        "initialize",
        json!({
            "protocolVersion": REQUESTED_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mcp-scan", "version": env!("CARGO_PKG_VERSION")},
        }),
    )?;
    let protocol_version = init
        .get("protocolVersion")
        .and_then(Node::as_str)
        .ok_or("the initialize result has no `protocolVersion` string")?
        .to_string();
    if !KNOWN.contains(&protocol_version.as_str()) {
        return Err(format!(
            "the server chose protocol version `{protocol_version}`, which mcp-scan does not speak (it knows {})",
            KNOWN.join(", ")
        ));
    }
    let server_info = init.get("serverInfo").cloned();
    send(
        server,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )?;

    let mut tools = Vec::new();
    let mut cursors: Vec<String> = Vec::new();
    for page in 1..=budget.max_pages {
        let params = match cursors.last() {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let id = u64::try_from(page).unwrap_or(u64::MAX).saturating_add(1);
        let result = request(server, budget, id, "tools/list", params)?;
        let list = result
            .get("tools")
            .and_then(Node::as_array)
            .ok_or_else(|| format!("page {page} of tools/list has no `tools` array"))?;
        tools.extend(list.iter().cloned());
        // A missing or null `nextCursor` ends the list.
        let Some(next) = result.get("nextCursor").filter(|n| !n.is_null()) else {
            return Ok(Captured {
                protocol_version,
                server_info,
                tools,
            });
        };
        let cursor = next
            .as_str()
            .ok_or_else(|| format!("page {page}: `nextCursor` is not a string"))?;
        if cursors.iter().any(|c| c == cursor) {
            return Err(format!(
                "page {page} of tools/list repeats an earlier cursor: the server would be paged forever"
            ));
        }
        cursors.push(cursor.to_string());
    }
    Err(format!(
        "tools/list still had a next page after {} pages (the limit)",
        budget.max_pages
    ))
}

fn send(server: &mut ServerProcess, message: &serde_json::Value) -> Result<(), String> {
    server
        .send(&message.to_string())
        .map_err(|e| format!("cannot write to the server (it may have exited): {e}"))
}

/// Sends a request and waits for its result, answering the server's own requests meanwhile.
fn request(
    server: &mut ServerProcess,
    budget: &Budget,
    id: u64,
    method: &str,
    params: serde_json::Value,
) -> Result<Node, String> {
    send(
        server,
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )?;
    loop {
        let line = match server.next(budget.deadline) {
            Wait::TimedOut => return Err(format!("no answer to `{method}` before the timeout")),
            Wait::Event(Event::Line(line)) => line,
            Wait::Event(Event::Closed) => {
                let status = server
                    .exit_status(Duration::from_millis(500))
                    .map_or_else(|| "its stdout closed".to_string(), |s| format!("{s}"));
                return Err(format!(
                    "the server exited before answering `{method}` ({status})"
                ));
            }
            Wait::Event(Event::TooLarge) => {
                return Err(format!(
                    "the server wrote more than {} bytes to stdout (the limit)",
                    budget.max_bytes
                ));
            }
            Wait::Event(Event::NotUtf8) => {
                return Err("the server wrote bytes that are not UTF-8 to stdout".to_string());
            }
            Wait::Event(Event::ReadFailed(e)) => {
                return Err(format!("cannot read the server's stdout: {e}"));
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let message = parse(line.trim_end(), Dialect::Json, &Limits::default())
            .ok()
            .filter(|m| m.get("jsonrpc").is_some())
            .ok_or_else(|| {
                format!(
                    "the server wrote something other than JSON-RPC to stdout: `{}`",
                    excerpt(&line)
                )
            })?;
        if let Some(server_method) = message.get("method").and_then(Node::as_str) {
            if let Some(request_id) = message.get("id") {
                answer(server, request_id, server_method)?;
            }
            continue;
        }
        if message.get("id").and_then(Node::as_u64) != Some(id) {
            continue;
        }
        if let Some(error) = message.get("error") {
            let code = error
                .get("code")
                .and_then(Node::as_number)
                .map_or("?", |n| n.raw());
            let text = error.get("message").and_then(Node::as_str).unwrap_or("");
            return Err(format!("`{method}` failed: error {code}: {text}"));
        }
        return message
            .get("result")
            .filter(|r| r.as_object().is_some())
            .cloned()
            .ok_or_else(|| format!("the answer to `{method}` has no `result` object"));
    }
}

/// A server may ask the client things (`ping`, `roots/list`, sampling); a recorder offers no
/// capabilities, so it answers `ping` and declines the rest, as the spec expects.
fn answer(server: &mut ServerProcess, id: &Node, method: &str) -> Result<(), String> {
    let id =
        serde_json::from_slice::<serde_json::Value>(&crate::json::canonical::to_canonical_vec(id))
            .unwrap_or(serde_json::Value::Null);
    let reply = if method == "ping" {
        json!({"jsonrpc": "2.0", "id": id, "result": {}})
    } else {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "mcp-scan record does not support this request"}})
    };
    send(server, &reply)
}

/// The start of a line, for error messages: enough to recognise it, never a whole dump.
fn excerpt(line: &str) -> String {
    let line = line.trim_end();
    let cut: String = line.chars().take(80).collect();
    if cut.len() < line.len() {
        format!("{cut}…")
    } else {
        cut
    }
}
