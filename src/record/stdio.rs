//! The stdio [`Connection`]: one JSON-RPC message per line on the server's stdin and stdout.

use std::time::Duration;

use serde_json::json;

use super::process::{Event, ServerProcess, Wait};
use super::session::{Budget, Connection, Handled, handle, parse_message};
use crate::json::Node;

impl Connection for ServerProcess {
    fn request(
        &mut self,
        budget: &Budget,
        id: u64,
        method: &str,
        params: serde_json::Value,
    ) -> Result<Node, String> {
        send(
            self,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )?;
        loop {
            let line = match self.next(budget.deadline) {
                Wait::TimedOut => {
                    return Err(format!("no answer to `{method}` before the timeout"));
                }
                Wait::Event(Event::Line(line)) => line,
                Wait::Event(Event::Closed) => {
                    let status = self
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
            match handle(&parse_message(&line, "to stdout")?, id, method) {
                Handled::Reply(reply) => send(self, &reply)?,
                Handled::Ignore => {}
                Handled::Answer(answer) => return answer,
            }
        }
    }

    fn notify(&mut self, _budget: &Budget, method: &str) -> Result<(), String> {
        send(self, &json!({"jsonrpc": "2.0", "method": method}))
    }
}

fn send(server: &mut ServerProcess, message: &serde_json::Value) -> Result<(), String> {
    server
        .send(&message.to_string())
        .map_err(|e| format!("cannot write to the server (it may have exited): {e}"))
}
