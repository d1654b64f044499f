//! `mcp-scan diff`: what `mcp-scan lock` would change in mcp.lock, tool by tool, with word diffs
//! of changed text.

use std::fmt::Write;

use crate::cli::{DiffArgs, Env};
use crate::error::Error;
use crate::render::word_diff::word_diff;
use crate::scan::{load_inputs, load_lock};
use crate::schema_diff::widenings;
use crate::source::display_path;
use crate::state::{ServerDelta, ToolDelta, compare, server_states};

pub fn run(env: &Env, args: &DiffArgs) -> Result<u8, Vec<Error>> {
    let (lock_path, lock_required) = env.lock_path(&args.lock);
    let lock = load_lock(&lock_path, lock_required)
        .map_err(|e| vec![e])?
        .map(|(lock, _)| lock);
    let inputs = load_inputs(
        &env.paths(&args.paths),
        std::slice::from_ref(&lock_path),
        false,
    )?;
    let options = lock.as_ref().map_or_else(
        || env.config.fingerprint_options(),
        |l| l.fingerprint.clone(),
    );
    let states = server_states(&inputs, &options);
    let paint = env.paint;
    let mut out = String::new();
    let mut changes = 0;
    for state in &states {
        let name = &state.server.name;
        let locked = lock.as_ref().and_then(|l| l.servers.get(name));
        match compare(state, locked, &options) {
            ServerDelta::Same => {}
            ServerDelta::Unbaselined => {
                changes += 1;
                let _ = writeln!(
                    out,
                    "{} server {name}: new, {} tools",
                    paint.added("+"),
                    state.tools.len()
                );
                for tool in state.tools.keys() {
                    let _ = writeln!(out, "    {} {tool}", paint.added("+"));
                }
            }
            ServerDelta::Changed(deltas) => {
                changes += 1;
                let version = locked.map_or(0, |l| l.baseline.version);
                let _ = writeln!(
                    out,
                    "~ server {name}: baseline v{version} → v{}",
                    version + 1
                );
                for delta in &deltas {
                    match delta {
                        ToolDelta::Added(t) => {
                            let _ = writeln!(out, "    {} {}", paint.added("+"), t.tool.name);
                        }
                        ToolDelta::Removed(tool, _) => {
                            let _ = writeln!(out, "    {} {tool}", paint.removed("-"));
                        }
                        ToolDelta::Changed {
                            state: t,
                            locked,
                            fields,
                        } => {
                            let _ = writeln!(out, "    ~ {}: {}", t.tool.name, fields.join(", "));
                            let before = locked.definition.as_object();
                            for field in fields {
                                let old = before.and_then(|b| b.get(field));
                                let new = t.object.get(field);
                                if let (Some(o), Some(n)) =
                                    (old.and_then(|v| v.as_str()), new.and_then(|v| v.as_str()))
                                {
                                    let _ = writeln!(
                                        out,
                                        "        {field}: {}",
                                        word_diff(o, n, paint)
                                    );
                                } else if let (Some(o), Some(n), "inputSchema") =
                                    (old, new, field.as_str())
                                {
                                    for widening in widenings(o, n) {
                                        let _ = writeln!(out, "        widens: {widening}");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    if let Some(lock) = &lock {
        for name in lock
            .servers
            .keys()
            .filter(|n| !states.iter().any(|s| &s.server.name == *n))
        {
            changes += 1;
            let _ = writeln!(
                out,
                "{} server {name}: no longer scanned, would be removed",
                paint.removed("-")
            );
        }
    }
    if changes == 0 {
        let _ = writeln!(
            out,
            "{} is up to date with the scanned snapshots",
            display_path(&lock_path)
        );
    }
    super::emit(&out, None).map_err(|e| vec![e])?;
    Ok(0)
}
