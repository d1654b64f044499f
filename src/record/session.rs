//! The MCP client side of a recording: `initialize`, `notifications/initialized`, then
//! `tools/list` page by page, over any [`Connection`] (stdio in `stdio.rs`, Streamable HTTP in
//! `http.rs`) — or, for a server that answers the 2026-07-28 `server/discover`, stateless
//! `tools/list` requests that carry the protocol version in `_meta`.
//!
//! Hand-written rather than rmcp: rmcp parses tools into a struct that drops unknown fields
//! (`execution`, vendor keys), which would make recordings lose exactly what the fingerprint must
//! see, and it pulls in tokio and ~50 crates. Here every message is read with mcp-scan's own
//! parser, so each tool is kept as the server sent it.
//!
//! `server/discover` is probed only where [`Connection::PROBES_DISCOVER`] says so (HTTP, where
//! an unknown method gets a quick error or status). Over stdio every server seen so far still
//! answers `initialize` (2025-11-25 and older), and a probe would cost a full wait on servers that
//! ignore unknown methods.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::json::{Dialect, Limits, Node, parse};

/// The version mcp-scan asks for; a server may answer with any it prefers from [`KNOWN`].
pub const REQUESTED_VERSION: &str = "2025-11-25";
const KNOWN: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The stateless revision, spoken after a successful `server/discover`.
const MODERN_VERSION: &str = "2026-07-28";
/// How long `server/discover` may take before the server is treated as one from before it.
const DISCOVER_TIMEOUT: Duration = Duration::from_secs(2);

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

    /// Whether to try `server/discover` before `initialize`: only where an unknown method is
    /// answered at once rather than ignored.
    const PROBES_DISCOVER: bool = false;

    /// Told the protocol version once it is settled (HTTP sends it on every later request).
    fn negotiated(&mut self, _version: &str) {}
}

pub struct Captured {
    pub protocol_version: String,
    pub server_info: Option<Node>,
    pub tools: Vec<Node>,
}

pub fn capture<C: Connection>(server: &mut C, budget: &Budget) -> Result<Captured, String> {
    let discovered = if C::PROBES_DISCOVER {
        discover(server, budget)
    } else {
        None
    };
    let (protocol_version, server_info, meta) = match discovered {
        Some(server_info) => (
            MODERN_VERSION.to_string(),
            server_info,
            Some(request_meta()),
        ),
        None => {
            let (version, info) = initialize(server, budget)?;
            (version, info, None)
        }
    };
    server.negotiated(&protocol_version);
    if meta.is_none() {
        server.notify(budget, "notifications/initialized")?;
    }

    let mut tools = Vec::new();
    let mut cursors: Vec<String> = Vec::new();
    for page in 1..=budget.max_pages {
        let mut params = match cursors.last() {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        if let Some(meta) = &meta {
            params["_meta"] = meta.clone();
        }
        let id = u64::try_from(page).unwrap_or(u64::MAX).saturating_add(1);
        let result = server.request(budget, id, "tools/list", params)?;
        let list = result
            .get("tools")
            .and_then(Node::as_array)
            .ok_or_else(|| format!("page {page} of tools/list has no `tools` array"))?;
        // Older servers send no `resultType`; anything but `complete` is not a tool list.
        if let Some(kind) = result
            .get("resultType")
            .filter(|k| k.as_str() != Some("complete"))
        {
            return Err(format!(
                "page {page} of tools/list has `resultType` {}, not \"complete\"",
                excerpt(&String::from_utf8_lossy(
                    &crate::json::canonical::to_canonical_vec(kind)
                ))
            ));
        }
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

fn client_info() -> serde_json::Value {
    json!({"name": "mcp-scan", "version": env!("CARGO_PKG_VERSION")})
}

/// The 2025-11-25-and-older handshake: the negotiated version and the server's `serverInfo`.
fn initialize(
    server: &mut impl Connection,
    budget: &Budget,
) -> Result<(String, Option<Node>), String> {
    let init = server.request(
        budget,
        1,
        "initialize",
        json!({
            "protocolVersion": REQUESTED_VERSION,
            "capabilities": {},
            "clientInfo": client_info(),
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
    Ok((protocol_version, init.get("serverInfo").cloned()))
}

/// What every 2026-07-28 request carries instead of a handshake.
fn request_meta() -> serde_json::Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": client_info(),
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// `Some(serverInfo)` when the server answers `server/discover` listing 2026-07-28. Any error,
/// a timeout, or a result without that version means "use `initialize`" — the fallback never
/// keys on one error code, and a server that speaks neither fails clearly there.
fn discover(server: &mut impl Connection, budget: &Budget) -> Option<Option<Node>> {
    let probe = Budget {
        deadline: budget.deadline.min(Instant::now() + DISCOVER_TIMEOUT),
        ..*budget
    };
    let result = server
        .request(
            &probe,
            0,
            "server/discover",
            json!({"_meta": request_meta()}),
        )
        .ok()?;
    let speaks_modern = result
        .get("supportedVersions")
        .and_then(Node::as_array)
        .is_some_and(|versions| versions.iter().any(|v| v.as_str() == Some(MODERN_VERSION)));
    speaks_modern.then(|| {
        result
            .get("_meta")
            .and_then(|meta| meta.get("io.modelcontextprotocol/serverInfo"))
            .cloned()
    })
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
