//! `mcp-scan diff`: what `mcp-scan lock` would change in mcp.lock, tool by tool, with word diffs
//! of changed text. With `--base OLD_LOCK` (PR review), what the lock itself approves compared
//! with an older lock, which `git show` may read from another revision (besides `record`, the
//! only place mcp-scan starts a process), and the content rules' findings in what it approves.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli::{DiffArgs, Env};
use crate::config::FailOn;
use crate::error::Error;
use crate::input::Inputs;
use crate::json::Object;
use crate::lock::Lock;
use crate::lock_diff::{ServerChange, ToolChange, approved, status_change};
use crate::render::count;
use crate::render::paint::Paint;
use crate::render::text::{Excerpts, finding_block, finding_counts};
use crate::render::word_diff::word_diff;
use crate::scan::{Report, load_inputs, load_lock, screen};
use crate::schema_diff::widenings;
use crate::source::{SourceFile, display_path};
use crate::state::{ServerDelta, ToolDelta, compare, fingerprint_all, server_states};

pub fn run(env: &Env, args: &DiffArgs) -> Result<u8, Vec<Error>> {
    if let Some(base) = &args.base {
        return review(env, args, base).map_err(|e| vec![e]);
    }
    let (lock_path, lock_required) = env.lock_path(&args.lock);
    let lock = load_lock(&lock_path, lock_required, env.config.limits.max_file_size())
        .map_err(|e| vec![e])?
        .map(|(lock, _)| lock);
    let inputs = load_inputs(
        &env.paths(&args.paths),
        std::slice::from_ref(&lock_path),
        false,
        env.config.limits.max_file_size(),
    )?;
    let options = lock.as_ref().map_or_else(
        || env.config.fingerprint_options(),
        |l| l.fingerprint.clone(),
    );
    let fingerprints = fingerprint_all(&inputs, &options);
    let states = server_states(&inputs, &fingerprints);
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
                    "{} server {name}: new, {}",
                    paint.added("+"),
                    count(state.tools.len(), "tool")
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
                            before,
                            after,
                            fields,
                        } => {
                            let _ = writeln!(out, "    ~ {}: {}", t.tool.name, fields.join(", "));
                            field_diffs(
                                &mut out,
                                fields,
                                before.as_object(),
                                after.as_deref(),
                                paint,
                            );
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

/// For each changed field: a word diff of text, or the ways a new `inputSchema` widens the old.
fn field_diffs(
    out: &mut String,
    fields: &[String],
    before: Option<&Object>,
    after: Option<&Object>,
    paint: Paint,
) {
    for field in fields {
        let old = before.and_then(|b| b.get(field));
        let new = after.and_then(|a| a.get(field));
        if let (Some(o), Some(n)) = (old.and_then(|v| v.as_str()), new.and_then(|v| v.as_str())) {
            let _ = writeln!(out, "        {field}: {}", word_diff(o, n, paint));
        } else if let (Some(o), Some(n), "inputSchema") = (old, new, field.as_str()) {
            for widening in widenings(o, n) {
                let _ = writeln!(out, "        widens: {widening}");
            }
        }
    }
}

/// PR review mode: every approval the current lock makes relative to `base`, then the content
/// rules' findings in the approved definitions. Exit 1 when one is at or above `--fail-on`.
fn review(env: &Env, args: &DiffArgs, base: &str) -> Result<u8, Error> {
    let (lock_path, _) = env.lock_path(&args.lock);
    let (head, head_file) = load_lock(&lock_path, true, env.config.limits.max_file_size())?
        .ok_or_else(|| Error::in_file(&lock_path, "the lockfile does not exist"))?;
    let (label, text) = read_base(base)?;
    let (base_lock, _) = Lock::parse(&label, text)?;
    let paint = env.paint;
    let changes = crate::lock_diff::compare(&base_lock, &head);
    let fail_on = args.fail_on.or(env.config.fail_on).unwrap_or_default();
    let report = screen_approved(env, head_file, &head, &changes, fail_on);
    let mut out = format!(
        "{} compared with {}: the approvals this change makes\n",
        display_path(&lock_path),
        display_path(&label)
    );
    approvals(&mut out, &changes, paint);
    let _ = match changes.len() {
        0 => writeln!(out, "no approvals changed"),
        n => writeln!(out, "{n} server(s) with changed approvals"),
    };
    if report.summary.tools > 0 {
        out.push('\n');
        let excerpts = Excerpts::of(&report.sources, report.active());
        for finding in report.active() {
            finding_block(&mut out, finding, &excerpts, paint);
        }
        let _ = write!(
            out,
            "content rules over {}: {}",
            count(report.summary.tools, "approved tool definition"),
            finding_counts(&report, paint)
        );
        let _ = match report.suppressed_count() {
            0 => writeln!(out),
            n => writeln!(out, "; {n} suppressed by ignores"),
        };
    }
    super::emit(&out, None)?;
    Ok(report.exit_code())
}

/// Every approval in `changes`, tool by tool with field diffs: also what `lock --show-diff`
/// prints before it writes.
pub fn approvals(out: &mut String, changes: &[ServerChange<'_>], paint: Paint) {
    for change in changes {
        match change {
            ServerChange::Added(name, server) => {
                let _ = writeln!(
                    out,
                    "{} server {name}: newly approved (v{}), {}",
                    paint.added("+"),
                    server.baseline.version,
                    count(server.tools.len(), "tool")
                );
                for (tool, locked) in &server.tools {
                    added_tool(out, tool, locked.definition.node().as_object(), paint);
                }
            }
            ServerChange::Removed(name, _) => {
                let _ = writeln!(
                    out,
                    "{} server {name}: approval removed",
                    paint.removed("-")
                );
            }
            ServerChange::Changed {
                name,
                old,
                new,
                tools,
            } => {
                let _ = writeln!(
                    out,
                    "~ server {name}: baseline v{} → v{}",
                    old.baseline.version, new.baseline.version
                );
                if let Some((from, to)) = status_change(old, new) {
                    let _ = writeln!(out, "    status: {} → {}", from.as_str(), to.as_str());
                }
                for tool in tools {
                    match tool {
                        ToolChange::Added(tool, locked) => {
                            added_tool(out, tool, locked.definition.node().as_object(), paint);
                        }
                        ToolChange::Removed(tool, _) => {
                            let _ = writeln!(out, "    {} {tool}", paint.removed("-"));
                        }
                        ToolChange::Changed {
                            name: tool,
                            old,
                            new,
                            fields,
                        } => {
                            let _ = writeln!(out, "    ~ {tool}: {}", fields.join(", "));
                            field_diffs(
                                out,
                                fields,
                                old.definition.node().as_object(),
                                new.definition.node().as_object(),
                                paint,
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The content rules (pattern rules, hidden content, contradictory annotations) over the
/// definitions `changes` approves, read from the lockfile itself: a PR that updates snapshots
/// and lock together is still screened, and each finding points into the stored definition.
fn screen_approved(
    env: &Env,
    head_file: SourceFile,
    head: &Lock,
    changes: &[ServerChange<'_>],
    fail_on: FailOn,
) -> Report {
    let approved = approved(changes);
    let mut inputs = Inputs::from_lockfile(head_file, head);
    for server in &mut inputs.servers {
        server
            .tools
            .retain(|tool| approved.contains(&(server.name.as_str(), tool.name.as_str())));
    }
    inputs.servers.retain(|server| !server.tools.is_empty());
    screen(inputs, &env.config, fail_on, &env.catalogue)
}

/// A newly approved tool, with its description (invisible characters shown) so the reviewer
/// reads what the model will read.
fn added_tool(out: &mut String, tool: &str, definition: Option<&Object>, paint: Paint) {
    let _ = writeln!(out, "    {} {tool}", paint.added("+"));
    if let Some(description) = definition.and_then(|d| d.get("description")?.as_str()) {
        let _ = writeln!(
            out,
            "        description: {}",
            crate::unicode::make_visible(description)
        );
    }
}

/// The old lock's text and a label for messages: `spec` is a file, or else `REV:PATH`, read with
/// `git show` (an existing file wins, so a path containing `:` still works).
fn read_base(spec: &str) -> Result<(PathBuf, String), Error> {
    let path = Path::new(spec);
    if path.is_file() || !spec.contains(':') {
        return Ok((path.to_path_buf(), crate::input::read_text(path)?));
    }
    // `--end-of-options`: a spec starting with `-` is a revision, never an option to git.
    let output = Command::new("git")
        .args(["show", "--end-of-options", spec])
        .output()
        .map_err(|e| Error::new(format!("cannot run `git show {spec}`: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(
            Error::new(format!("`git show {spec}` failed: {}", stderr.trim()))
                .with_help("pass REV:PATH with a revision that has the lockfile, or a file path"),
        );
    }
    let text = String::from_utf8(output.stdout).map_err(|_| {
        Error::new(format!(
            "`git show {spec}`: the lockfile is not valid UTF-8"
        ))
    })?;
    Ok((PathBuf::from(spec), text))
}
