//! The MCP client side of a recording: `initialize`, `notifications/initialized`, then
//! `tools/list` page by page, over any [`Connection`] (stdio in `stdio.rs`, Streamable HTTP in
//! `http.rs`).
//!
//! Hand-written rather than rmcp: rmcp parses tools into a struct that drops unknown fields
//! (`execution`, vendor keys), which would make recordings lose exactly what the fingerprint must
//! see, and it pulls in tokio and ~50 crates. Here every message is read with mcp-scan's own
//! parser, so each tool is kept as the server sent it.
//!
//! The 2026-07-28 `server/discover` flow is not used: every server seen so far still answers
//! `initialize` (2025-11-25 and older), and probing `discover` first costs a full timeout on
//! servers that ignore unknown methods.

use std::time::Instant;

use serde_json::json;

use crate::json::{Dialect, Limits, Node, parse};

/// The version mcp-scan asks for; a server may answer with any it prefers from [`KNOWN`].
pub const REQUESTED_VERSION: &str = "2025-11-25";
const KNOWN: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub deadline: Instant,
    pub max_pages: usize,
    /// Everything the server sends (stdout, or HTTP response bodies) counts towards this.
    pub max_bytes: usize,
}

/// One way of exchanging JSON-RPC messages with a server.
pub trait Connection {
    /// Sends a request and waits for its result, answering the server's own requests meanwhile
    /// (see [`handle`]).
    fn request(
        &mut self,
        budget: &Budget,
        id: u64,
        method: &str,
        params: serde_json::Value,
    ) -> Result<Node, String>;

    fn notify(&mut self, budget: &Budget, method: &str) -> Result<(), String>;

    /// Told the protocol version once `initialize` has settled it (HTTP sends it on every
    /// later request).
    fn negotiated(&mut self, _version: &str) {}
}

pub struct Captured {
    pub protocol_version: String,
    pub server_info: Option<Node>,
    pub tools: Vec<Node>,
}

pub fn capture(server: &mut impl Connection, budget: &Budget) -> Result<Captured, String> {
    let init = server.request(
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
    server.negotiated(&protocol_version);
    server.notify(budget, "notifications/initialized")?;

    let mut tools = Vec::new();
    let mut cursors: Vec<String> = Vec::new();
    for page in 1..=budget.max_pages {
        let params = match cursors.last() {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let id = u64::try_from(page).unwrap_or(u64::MAX).saturating_add(1);
        let result = server.request(budget, id, "tools/list", params)?;
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

/// What a message read while waiting for the answer to request `id` means.
pub enum Handled {
    /// The server's own request, and the reply to send it.
    Reply(serde_json::Value),
    /// A notification, or an answer to something else.
    Ignore,
    /// The answer to request `id`.
    Answer(Result<Node, String>),
}

pub fn handle(message: &Node, id: u64, method: &str) -> Handled {
    if let Some(server_method) = message.get("method").and_then(Node::as_str) {
        return match message.get("id") {
            Some(request_id) => Handled::Reply(reply(request_id, server_method)),
            None => Handled::Ignore,
        };
    }
    if message.get("id").and_then(Node::as_u64) != Some(id) {
        return Handled::Ignore;
    }
    if let Some(error) = message.get("error") {
        let code = error
            .get("code")
            .and_then(Node::as_number)
            .map_or("?", |n| n.raw());
        let text = error.get("message").and_then(Node::as_str).unwrap_or("");
        return Handled::Answer(Err(format!("`{method}` failed: error {code}: {text}")));
    }
    Handled::Answer(
        message
            .get("result")
            .filter(|r| r.as_object().is_some())
            .cloned()
            .ok_or_else(|| format!("the answer to `{method}` has no `result` object")),
    )
}

/// A server may ask the client things (`ping`, `roots/list`, sampling); a recorder offers no
/// capabilities, so it answers `ping` and declines the rest, as the spec expects.
fn reply(id: &Node, method: &str) -> serde_json::Value {
    let id =
        serde_json::from_slice::<serde_json::Value>(&crate::json::canonical::to_canonical_vec(id))
            .unwrap_or(serde_json::Value::Null);
    if method == "ping" {
        json!({"jsonrpc": "2.0", "id": id, "result": {}})
    } else {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "mcp-scan record does not support this request"}})
    }
}

/// Parses one JSON-RPC message; `place` says where a non-message came from in the error.
pub fn parse_message(text: &str, place: &str) -> Result<Node, String> {
    parse(text.trim_end(), Dialect::Json, &Limits::default())
        .ok()
        .filter(|m| m.get("jsonrpc").is_some())
        .ok_or_else(|| {
            format!(
                "the server wrote something other than JSON-RPC {place}: `{}`",
                excerpt(text)
            )
        })
}

/// The start of a text, for error messages: enough to recognise it, never a whole dump.
fn excerpt(text: &str) -> String {
    let text = text.trim_end();
    let cut: String = text.chars().take(80).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}
