//! `mcp-scan show`: what mcp.lock approves.

use std::fmt::Write;

use crate::cli::{Env, ShowArgs};
use crate::error::Error;
use crate::fingerprint::SCHEME;
use crate::render::count;
use crate::scan::load_lock;
use crate::source::display_path;

pub fn run(env: &Env, args: &ShowArgs) -> Result<u8, Error> {
    let (path, _) = env.lock_path(&args.lock);
    let Some((lock, _)) = load_lock(&path, true)? else {
        return Ok(2);
    };
    let paint = env.paint;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {}, {} (fingerprint {}/{SCHEME})",
        paint.bold(&display_path(&path)),
        count(lock.servers.len(), "server"),
        count(lock.tool_count(), "tool"),
        lock.fingerprint.algorithm.as_str()
    );
    let width = lock
        .servers
        .keys()
        .map(|k| k.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        out,
        "{:<width$}  {:<11}  {:>8}  {:>5}  APPROVED",
        "SERVER", "STATUS", "BASELINE", "TOOLS"
    );
    for (name, server) in &lock.servers {
        let _ = writeln!(
            out,
            "{name:<width$}  {:<11}  {:>8}  {:>5}  {} by {}",
            server.status.as_str(),
            format!("v{}", server.baseline.version),
            server.tools.len(),
            server.baseline.approved_at,
            server.baseline.approved_by
        );
        if args.detailed {
            for (tool, locked) in &server.tools {
                let _ = writeln!(out, "  {tool}  {}", paint.dim(&locked.digest));
            }
            for earlier in &server.history {
                let _ = writeln!(
                    out,
                    "  {} v{} {} by {}",
                    paint.dim("history"),
                    earlier.version,
                    earlier.approved_at,
                    earlier.approved_by
                );
            }
        }
    }
    super::emit(&out, None)?;
    Ok(0)
}
