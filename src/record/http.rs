//! The Streamable HTTP [`Connection`] (MCP 2025-03-26 and later): every message is POSTed to
//! the server's URL; a request is answered with one `application/json` message or with a
//! `text/event-stream` whose `data:` events carry messages until the answer arrives.
//!
//! The client is `ureq`: blocking (the recorder talks to one server at a time, so an async
//! runtime would buy nothing), small, maintained, and TLS through rustls with bundled roots,
//! so `https://` works without system OpenSSL.

use std::io::{BufRead, BufReader, Read};
use std::time::Instant;

use serde_json::json;
use ureq::http::Response;

use super::session::{Budget, Connection, Handled, handle, parse_message};
use crate::json::Node;

const SESSION_HEADER: &str = "Mcp-Session-Id";
const VERSION_HEADER: &str = "MCP-Protocol-Version";
const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";

pub struct HttpServer {
    agent: ureq::Agent,
    url: String,
    /// From the config, references expanded: sent, never written anywhere.
    headers: Vec<(String, String)>,
    session_id: Option<String>,
    protocol_version: Option<String>,
    /// Bytes of response bodies read so far, against [`Budget::max_bytes`].
    used: usize,
}

impl HttpServer {
    pub fn new(url: String, headers: Vec<(String, String)>) -> HttpServer {
        let agent = ureq::Agent::config_builder()
            // Statuses are reported by the recorder, with what they mean for MCP.
            .http_status_as_error(false)
            // A redirected POST would silently change method or drop the body.
            .max_redirects(0)
            .user_agent(concat!("mcp-scan/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        HttpServer {
            agent,
            url,
            headers,
            session_id: None,
            protocol_version: None,
            used: 0,
        }
    }

    /// Ends the session (a `DELETE`, as the transport asks of a client that is done); a server
    /// may refuse it, which changes nothing for the recording.
    pub fn close(self, deadline: Instant) {
        let Some(session) = &self.session_id else {
            return;
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let mut request = self.agent.delete(&self.url).header(SESSION_HEADER, session);
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let _ = request
            .config()
            .timeout_global(Some(left.min(std::time::Duration::from_secs(1))))
            .build()
            .call();
    }

    fn post(
        &self,
        budget: &Budget,
        message: &serde_json::Value,
        method: &str,
    ) -> Result<Response<ureq::Body>, String> {
        let left = budget.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out(method));
        }
        let mut request = self
            .agent
            .post(&self.url)
            .header("Accept", format!("{JSON}, {EVENT_STREAM}"))
            .header("Content-Type", JSON);
        if let Some(session) = &self.session_id {
            request = request.header(SESSION_HEADER, session);
        }
        if let Some(version) = &self.protocol_version {
            request = request.header(VERSION_HEADER, version);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        request
            .config()
            .timeout_global(Some(left))
            .build()
            .send(message.to_string())
            .map_err(|e| failed(method, e))
    }

    /// Reads the rest of a body, within what is left of the byte budget.
    fn read_body(
        &mut self,
        reader: &mut impl BufRead,
        budget: &Budget,
        method: &str,
    ) -> Result<String, String> {
        let mut text = String::new();
        let allowance = self.allowance(budget);
        reader
            .take(allowance)
            .read_to_string(&mut text)
            .map_err(|e| read_failed(method, e))?;
        self.spend(text.len(), budget)?;
        Ok(text)
    }

    fn allowance(&self, budget: &Budget) -> u64 {
        // One byte over the budget tells "exactly at the limit" from "over it".
        u64::try_from(budget.max_bytes.saturating_sub(self.used))
            .unwrap_or(u64::MAX)
            .saturating_add(1)
    }

    fn spend(&mut self, bytes: usize, budget: &Budget) -> Result<(), String> {
        self.used = self.used.saturating_add(bytes);
        if self.used > budget.max_bytes {
            return Err(format!(
                "the server sent more than {} bytes (the limit)",
                budget.max_bytes
            ));
        }
        Ok(())
    }

    fn reply(&self, budget: &Budget, reply: &serde_json::Value) -> Result<(), String> {
        self.post(budget, reply, "a reply to the server's request")
            .map(drop)
    }
}

impl Connection for HttpServer {
    fn request(
        &mut self,
        budget: &Budget,
        id: u64,
        method: &str,
        params: serde_json::Value,
    ) -> Result<Node, String> {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.post(budget, &message, method)?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) || status == 202 || status == 204 {
            return Err(unexpected_status(method, status, self.session_id.is_some()));
        }
        if self.session_id.is_none() {
            self.session_id = response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
        }
        let content_type = response
            .headers()
            .get("Content-Type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let mut reader = BufReader::new(response.into_body().into_reader());
        match mime(&content_type).as_str() {
            JSON => {
                let text = self.read_body(&mut reader, budget, method)?;
                match handle(&parse_message(&text, "in its HTTP response")?, id, method) {
                    Handled::Answer(answer) => answer,
                    _ => Err(format!(
                        "the server answered `{method}` with a JSON message that is not its response"
                    )),
                }
            }
            EVENT_STREAM => loop {
                let Some(data) = self.next_event(&mut reader, budget, method)? else {
                    return Err(format!(
                        "the server's event stream ended before it answered `{method}`"
                    ));
                };
                match handle(&parse_message(&data, "in its event stream")?, id, method) {
                    Handled::Reply(reply) => self.reply(budget, &reply)?,
                    Handled::Ignore => {}
                    Handled::Answer(answer) => return answer,
                }
            },
            _ => Err(format!(
                "the server answered `{method}` with content type `{content_type}`, not {JSON} or {EVENT_STREAM}"
            )),
        }
    }

    fn notify(&mut self, budget: &Budget, method: &str) -> Result<(), String> {
        let response = self.post(budget, &json!({"jsonrpc": "2.0", "method": method}), method)?;
        let status = response.status().as_u16();
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(unexpected_status(method, status, self.session_id.is_some()))
        }
    }

    /// Over HTTP a server from before 2026-07-28 answers an unknown method at once (a JSON-RPC
    /// error, or a 4xx status), so the probe costs one round trip.
    const PROBES_DISCOVER: bool = true;

    fn negotiated(&mut self, version: &str) {
        self.protocol_version = Some(version.to_string());
    }
}

impl HttpServer {
    /// The data of the next event that has any, or `None` at the end of the stream.
    fn next_event(
        &mut self,
        reader: &mut impl BufRead,
        budget: &Budget,
        method: &str,
    ) -> Result<Option<String>, String> {
        let mut data: Option<String> = None;
        loop {
            let mut line = Vec::new();
            let read = reader
                .take(self.allowance(budget))
                .read_until(b'\n', &mut line)
                .map_err(|e| read_failed(method, e))?;
            self.spend(read, budget)?;
            if read == 0 {
                return Ok(data);
            }
            let line = String::from_utf8(line)
                .map_err(|_| "the server sent an event that is not UTF-8".to_string())?;
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if data.is_some() {
                    return Ok(data);
                }
                continue;
            }
            // `event:`, `id:`, `retry:` and `:` comments do not matter to a recorder.
            if let Some(value) = line.strip_prefix("data:") {
                let value = value.strip_prefix(' ').unwrap_or(value);
                match &mut data {
                    Some(text) => {
                        text.push('\n');
                        text.push_str(value);
                    }
                    None => data = Some(value.to_string()),
                }
            }
        }
    }
}

/// `text/event-stream; charset=utf-8` → `text/event-stream`.
fn mime(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

fn timed_out(method: &str) -> String {
    format!("no answer to `{method}` before the timeout")
}

fn failed(method: &str, error: ureq::Error) -> String {
    match error {
        ureq::Error::Timeout(_) => timed_out(method),
        other => format!("cannot send `{method}`: {other}"),
    }
}

fn read_failed(method: &str, error: std::io::Error) -> String {
    match ureq::Error::from(error) {
        ureq::Error::Timeout(_) => timed_out(method),
        other => format!("cannot read the answer to `{method}`: {other}"),
    }
}

fn unexpected_status(method: &str, status: u16, in_session: bool) -> String {
    let hint = match status {
        202 | 204 => " with no message",
        404 if in_session => " (its session ended)",
        404 | 405 if method == "initialize" => {
            " (it may speak only the older HTTP+SSE transport, which `record` does not)"
        }
        401 | 403 => " (check the `headers` its config sends)",
        300..=399 => " (a redirect: put the final URL in the config)",
        _ => "",
    };
    format!("the server answered `{method}` with HTTP status {status}{hint}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(max_bytes: usize) -> Budget {
        Budget {
            deadline: Instant::now(),
            max_pages: 1,
            max_bytes,
        }
    }

    #[test]
    fn events_are_read_by_their_data_lines() {
        let stream = ": comment\r\n\r\nevent: message\r\nid: 1\r\ndata: {\"a\":\r\ndata:1}\r\n\r\nretry: 5\n\ndata: x";
        let mut server = HttpServer::new(String::new(), Vec::new());
        let mut reader = stream.as_bytes();
        let budget = budget(1000);
        let mut next = || server.next_event(&mut reader, &budget, "m");
        assert_eq!(next(), Ok(Some("{\"a\":\n1}".to_string())));
        assert_eq!(next(), Ok(Some("x".to_string())));
        assert_eq!(next(), Ok(None));
    }

    #[test]
    fn events_count_against_the_byte_budget() {
        let mut server = HttpServer::new(String::new(), Vec::new());
        let mut reader = "data: 0123456789\n\n".as_bytes();
        assert_eq!(
            server.next_event(&mut reader, &budget(10), "m"),
            Err("the server sent more than 10 bytes (the limit)".to_string())
        );
    }

    #[test]
    fn mimes() {
        assert_eq!(mime("Text/Event-Stream; charset=utf-8"), EVENT_STREAM);
        assert_eq!(mime(""), "");
    }
}
