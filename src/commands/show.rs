//! `mcp-scan show`: what mcp.lock approves — a summary, every tool's approval (`--detailed`),
//! filtered by name (`--search`), as text or JSON.

use std::fmt::Write;

use serde::Serialize;

use crate::cli::{Env, ShowArgs, ShowFormat};
use crate::error::Error;
use crate::fingerprint::SCHEME;
use crate::lock::{ApprovalKind, Baseline, Lock, LockedServer, LockedTool, Status};
use crate::render::count;
use crate::scan::stream_lock;
use crate::source::display_path;

pub fn run(env: &Env, args: &ShowArgs) -> Result<u8, Error> {
    let (path, _) = env.lock_path(&args.lock);
    let Some((lock, _)) = stream_lock(&path, true, env.config.limits.max_file_size())? else {
        return Ok(2);
    };
    let location = display_path(&path);
    let shown = select(&lock, args.search.as_deref());
    let text = match args.format {
        ShowFormat::Text => text(env, args, &lock, &location, &shown),
        ShowFormat::Json => json(&lock, &location, &shown),
    };
    super::emit(&text, None)?;
    Ok(0)
}

/// A server and the tools of it that are shown.
struct Shown<'a> {
    name: &'a str,
    server: &'a LockedServer,
    tools: Vec<(&'a str, &'a LockedTool)>,
}

/// Servers whose name matches show every tool; other servers, only their matching tools.
fn select<'a>(lock: &'a Lock, search: Option<&str>) -> Vec<Shown<'a>> {
    let needle = search.map(str::to_lowercase);
    let matches = |name: &str| {
        needle
            .as_deref()
            .is_none_or(|n| name.to_lowercase().contains(n))
    };
    lock.servers
        .iter()
        .filter_map(|(name, server)| {
            let whole = matches(name);
            let tools: Vec<_> = server
                .tools
                .iter()
                .filter(|(tool, _)| whole || matches(tool))
                .map(|(tool, locked)| (tool.as_str(), locked))
                .collect();
            (whole || !tools.is_empty()).then_some(Shown {
                name,
                server,
                tools,
            })
        })
        .collect()
}

/// Tools approved automatically, explicitly, and before locks recorded it.
fn approval_counts(shown: &[Shown<'_>]) -> (usize, usize, usize) {
    let mut counts = (0, 0, 0);
    for (_, tool) in shown.iter().flat_map(|s| &s.tools) {
        match tool.approval.as_ref().map(|a| a.kind) {
            Some(ApprovalKind::Auto) => counts.0 += 1,
            Some(ApprovalKind::Explicit) => counts.1 += 1,
            None => counts.2 += 1,
        }
    }
    counts
}

fn quarantined<'a>(shown: &[Shown<'a>]) -> Vec<&'a str> {
    shown
        .iter()
        .filter(|s| s.server.status == Status::Quarantined)
        .map(|s| s.name)
        .collect()
}

fn text(env: &Env, args: &ShowArgs, lock: &Lock, location: &str, shown: &[Shown<'_>]) -> String {
    let paint = env.paint;
    let mut out = String::new();
    let tool_count: usize = shown.iter().map(|s| s.tools.len()).sum();
    let _ = writeln!(
        out,
        "{}: {}, {} (fingerprint {}/{SCHEME})",
        paint.bold(location),
        count(lock.servers.len(), "server"),
        count(lock.tool_count(), "tool"),
        lock.fingerprint.algorithm.as_str()
    );
    if let Some(search) = &args.search {
        let _ = writeln!(
            out,
            "matching `{search}`: {}, {}",
            count(shown.len(), "server"),
            count(tool_count, "tool")
        );
    }
    let (auto, explicit, unrecorded) = approval_counts(shown);
    let mut approvals = format!("approvals: {auto} auto, {explicit} explicit");
    if unrecorded > 0 {
        let _ = write!(approvals, ", {unrecorded} not recorded (older lock)");
    }
    let _ = writeln!(out, "{approvals}");
    let held = quarantined(shown);
    let _ = writeln!(
        out,
        "quarantined: {}",
        if held.is_empty() {
            "none".to_string()
        } else {
            held.join(", ")
        }
    );
    let width = shown
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        out,
        "{:<width$}  {:<11}  {:>8}  {:>5}  APPROVED",
        "SERVER", "STATUS", "BASELINE", "TOOLS"
    );
    for s in shown {
        let server = s.server;
        let _ = writeln!(
            out,
            "{:<width$}  {:<11}  {:>8}  {:>5}  {} by {}",
            s.name,
            server.status.as_str(),
            format!("v{}", server.baseline.version),
            server.tools.len(),
            server.baseline.approved_at,
            server.baseline.approved_by
        );
        if !args.detailed {
            continue;
        }
        for (tool, locked) in &s.tools {
            let _ = writeln!(out, "  {tool}  {}", paint.dim(&locked.digest.to_string()));
            let stamp = match &locked.approval {
                Some(a) => format!(
                    "first seen {}, approved {} by {} ({})",
                    a.first_seen,
                    a.approved_at,
                    a.approved_by,
                    a.kind.as_str()
                ),
                None => "approval not recorded (older lock)".to_string(),
            };
            let _ = writeln!(out, "    {}", paint.dim(&stamp));
        }
        for earlier in &server.history {
            let mut line = format!(
                "v{} {} by {}",
                earlier.version, earlier.approved_at, earlier.approved_by
            );
            if !earlier.changed.is_empty() {
                let _ = write!(line, ", changed {}", earlier.changed.join(", "));
            }
            let _ = writeln!(out, "  {} {line}", paint.dim("history"));
        }
    }
    out
}

/// `--format json`: a stable shape; later versions add fields, never rename.
#[derive(Serialize)]
struct JsonShow<'a> {
    version: u32,
    lock: &'a str,
    fingerprint: String,
    summary: JsonSummary<'a>,
    servers: Vec<JsonServer<'a>>,
}

#[derive(Serialize)]
struct JsonSummary<'a> {
    servers: usize,
    tools: usize,
    auto: usize,
    explicit: usize,
    not_recorded: usize,
    quarantined: Vec<&'a str>,
}

#[derive(Serialize)]
struct JsonServer<'a> {
    name: &'a str,
    status: &'static str,
    baseline_version: u64,
    baseline_hash: &'a str,
    approved_at: &'a str,
    approved_by: &'a str,
    changed: &'a [String],
    captured_at: &'a str,
    history: Vec<JsonBaseline<'a>>,
    tools: Vec<JsonTool<'a>>,
}

#[derive(Serialize)]
struct JsonBaseline<'a> {
    baseline_version: u64,
    baseline_hash: &'a str,
    approved_at: &'a str,
    approved_by: &'a str,
    changed: &'a [String],
}

#[derive(Serialize)]
struct JsonTool<'a> {
    name: &'a str,
    server: &'a str,
    digest: String,
    first_seen: Option<&'a str>,
    approved_at: Option<&'a str>,
    approved_by: Option<&'a str>,
    approval: Option<&'static str>,
}

fn json_baseline(b: &Baseline) -> JsonBaseline<'_> {
    JsonBaseline {
        baseline_version: b.version,
        baseline_hash: &b.hash,
        approved_at: &b.approved_at,
        approved_by: &b.approved_by,
        changed: &b.changed,
    }
}

fn json(lock: &Lock, location: &str, shown: &[Shown<'_>]) -> String {
    let (auto, explicit, not_recorded) = approval_counts(shown);
    let doc = JsonShow {
        version: 1,
        lock: location,
        fingerprint: format!("{}/{SCHEME}", lock.fingerprint.algorithm.as_str()),
        summary: JsonSummary {
            servers: shown.len(),
            tools: shown.iter().map(|s| s.tools.len()).sum(),
            auto,
            explicit,
            not_recorded,
            quarantined: quarantined(shown),
        },
        servers: shown
            .iter()
            .map(|s| JsonServer {
                name: s.name,
                status: s.server.status.as_str(),
                baseline_version: s.server.baseline.version,
                baseline_hash: &s.server.baseline.hash,
                approved_at: &s.server.baseline.approved_at,
                approved_by: &s.server.baseline.approved_by,
                changed: &s.server.baseline.changed,
                captured_at: &s.server.captured_at,
                history: s.server.history.iter().map(json_baseline).collect(),
                tools: s
                    .tools
                    .iter()
                    .map(|(name, t)| JsonTool {
                        name,
                        server: s.name,
                        digest: t.digest.to_string(),
                        first_seen: t.approval.as_ref().map(|a| &*a.first_seen),
                        approved_at: t.approval.as_ref().map(|a| &*a.approved_at),
                        approved_by: t.approval.as_ref().map(|a| &*a.approved_by),
                        approval: t.approval.as_ref().map(|a| a.kind.as_str()),
                    })
                    .collect(),
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}
