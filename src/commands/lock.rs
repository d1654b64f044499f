//! `mcp-scan lock`: approve the scanned definitions into mcp.lock (all, or some servers and
//! tools), check that it is up to date, import another lock, start afresh, or quarantine and
//! release servers.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use crate::approve::{Approval, Selection, approve};
use crate::approver::approver;
use crate::byte_size::ByteSize;
use crate::cli::{Env, LockArgs};
use crate::clients::launch;
use crate::clock;
use crate::error::Error;
use crate::fingerprint::Algorithm;
use crate::input::{ConfigInput, Inputs};
use crate::lock::{Lock, Status, WriteGuard};
use crate::lock_diff;
use crate::lock_merge::merge;
use crate::prompts;
use crate::render::count;
use crate::render::paint::Paint;
use crate::scan::{load_inputs_each, stream_lock};
use crate::source::display_path;
use crate::spill::Spill;
use crate::state::{Fingerprints, fingerprint_all, fingerprint_for_approval, server_states};

pub fn run(env: &Env, args: &LockArgs) -> Result<u8, Vec<Error>> {
    // Checked first: a CI job must fail fast rather than wait for an answer nobody can give.
    if args.interactive && !std::io::stdin().is_terminal() {
        return Err(vec![
            Error::new("--interactive asks on a terminal, and standard input is not one")
                .with_help("name what to approve instead: `mcp-scan lock --tool SERVER/TOOL`"),
        ]);
    }
    let (lock_path, _) = env.lock_path(&args.lock);
    let shown = display_path(&lock_path);
    let _guard = WriteGuard::acquire(&lock_path).map_err(|e| vec![e])?;
    if let Some((name, status)) = args
        .quarantine
        .as_ref()
        .map(|n| (n, Status::Quarantined))
        .or(args.release.as_ref().map(|n| (n, Status::Verified)))
    {
        return set_status(&lock_path, name, status, env.config.limits.max_file_size())
            .map_err(|e| vec![e]);
    }
    let max_file_size = env.config.limits.max_file_size();
    let selection = Selection::parse(&args.server, &args.tool).map_err(|e| vec![e])?;
    // The previous lock first: the snapshots then keep the definitions it stores rather than
    // hold copies of them (a lock of 1M tools stores 3.7 GB). It is read on every thread.
    let old = stream_lock(&lock_path, false, max_file_size)
        .map_err(|e| vec![e])?
        .map(|(lock, _)| lock);
    let who = approver(args.approved_by.as_deref());
    let now = clock::now().map_err(|e| vec![e])?;
    // What the new lock is compared with: nothing, for a fresh start.
    let base = if args.reset { None } else { old.as_ref() };
    let new = match &args.import {
        Some(other) => {
            imported(old.as_ref(), other, args, &who, &now, max_file_size).map_err(|e| vec![e])?
        }
        None => {
            let every_tool = selection.is_empty();
            let (inputs, prepared) = scanned(env, args, &lock_path, every_tool, old.as_ref())?;
            approved(env, &selection, inputs, prepared, base, &who, &now)?
        }
    };
    // Compared with the file as a stream, the new lock rendered as it is read: the file
    // usually is the new lock's bytes exactly. Only a file formatted some other way is
    // compared by rendering the previous lock, and only when that matters.
    let same_file = old.is_some() && new.is_written_at(&lock_path).map_err(|e| vec![e])?;
    let unchanged = || same_file || old.as_ref().is_some_and(|old| old.renders_as(&new));
    let up_to_date = || base.is_some() && unchanged();
    if args.check {
        let current = up_to_date();
        if current {
            eprintln!("{shown} is up to date");
        } else {
            eprintln!(
                "{shown} is out of date: review with `mcp-scan diff`, then run `mcp-scan lock`"
            );
        }
        // Dropping both models in place was 40 ms of a 100k run's last, one-core stretch.
        crate::background::free("free-locks", (old, new));
        return Ok(if current { 0 } else { 1 });
    }
    if args.show_diff || args.interactive {
        show_approvals(base, &new, env.paint).map_err(|e| vec![e])?;
    }
    if args.interactive && !up_to_date() && !confirm().map_err(|e| vec![e])? {
        eprintln!("not approved: {shown} is unchanged");
        return Ok(0);
    }
    // A reset that changes nothing needs no backup.
    if args.reset
        && !unchanged()
        && let Some(backup) = back_up(&lock_path, &now).map_err(|e| vec![e])?
    {
        eprintln!("backed up the previous lock to {}", display_path(&backup));
    }
    // The directory lock is held: the file is still the one compared above.
    let written = !same_file;
    if written {
        new.replace(&lock_path).map_err(|e| vec![e])?;
    }
    let contents = format!(
        "{}, {}",
        count(new.servers.len(), "server"),
        count(new.tool_count(), "tool")
    );
    if written {
        eprintln!("wrote {shown}: {contents}");
    } else {
        eprintln!("{shown} is up to date: {contents}");
    }
    crate::background::free("free-locks", (old, new));
    Ok(0)
}

/// The snapshots to approve. When every tool is approved, what each stores is taken file by
/// file as it is read, and the file's tree freed (a tree takes twice its text); each definition
/// that the `previous` lock stores as exactly the same bytes is kept from there, and the others
/// go to a spill until the lock is written.
fn scanned(
    env: &Env,
    args: &LockArgs,
    lock_path: &Path,
    every_tool: bool,
    previous: Option<&Lock>,
) -> Result<(Inputs, Option<Fingerprints>), Vec<Error>> {
    let options = env.config.fingerprint_options();
    let spill = Spill::beside(lock_path);
    let (inputs, per_file) = load_inputs_each(
        &env.paths(&args.paths),
        std::slice::from_ref(&lock_path.to_path_buf()),
        false,
        env.config.limits.max_file_size(),
        |file| {
            let prepared = every_tool
                .then(|| fingerprint_for_approval(file, &options, previous, Some(&spill)));
            if prepared.is_some() {
                file.free_snapshots();
            }
            prepared
        },
    )?;
    let parts: Option<Vec<Fingerprints>> = per_file.into_iter().map(|(_, part)| part).collect();
    Ok((
        inputs,
        parts.map(|parts| Fingerprints::concat(&options, parts)),
    ))
}

/// The lock after approving the scanned snapshots (all, or what `--server`/`--tool` name).
fn approved(
    env: &Env,
    selection: &Selection,
    inputs: Inputs,
    prepared: Option<Fingerprints>,
    old: Option<&Lock>,
    who: &str,
    now: &str,
) -> Result<Lock, Vec<Error>> {
    let options = env.config.fingerprint_options();
    let only = (!selection.is_empty()).then_some(selection);
    // Approving every tool: what each stores comes from the pass that took its digest, file
    // by file. A selection approves a few, each in a pass of its own.
    let fingerprints = prepared.unwrap_or_else(|| fingerprint_all(&inputs, &options));
    let states = server_states(&inputs, &fingerprints);
    let old_options = old.map_or(&options, |l| &l.fingerprint);
    let old_fingerprints = (*old_options != options).then(|| fingerprint_all(&inputs, old_options));
    let old_states = old_fingerprints
        .as_ref()
        .map(|fingerprints| server_states(&inputs, fingerprints));
    let approval = Approval {
        who,
        now,
        only,
        auto_approve_new: env.config.auto_approve_new(env.config.posture),
    };
    let mut new = approve(
        old,
        &states,
        old_states.as_deref().unwrap_or(&states),
        &options,
        &approval,
    )
    .map_err(|e| vec![e])?;
    // Approving some servers or tools leaves the pinned prompts as they were.
    if only.is_none() {
        new.prompts = prompts::pin(&env.config.prompts, options.algorithm).map_err(|e| vec![e])?;
    }
    pin_launch_specs(&mut new, &inputs.configs, only, options.algorithm);
    drop(old_states);
    drop(states);
    // A snapshot read again (a changed tool's definition) must be what was approved.
    inputs.sources.changed().map_err(|e| vec![e])?;
    // The new lock owns what it keeps; the snapshots' trees are freed beside rendering and
    // writing it.
    crate::background::free("free-inputs", (inputs, fingerprints, old_fingerprints));
    Ok(new)
}

/// `--import OTHER`: merged into the current lock, or taken whole with `--replace`.
fn imported(
    old: Option<&Lock>,
    other: &Path,
    args: &LockArgs,
    who: &str,
    now: &str,
    max_file_size: ByteSize,
) -> Result<Lock, Error> {
    let Some((theirs, _)) = Lock::load_within(other, max_file_size)? else {
        return Err(Error::in_file(
            other,
            "the lockfile to import does not exist",
        ));
    };
    match old {
        Some(ours) if !args.replace => merge(ours, &theirs, args.prefer, who, now),
        _ => Ok(theirs),
    }
}

/// Prints every approval the new lock makes relative to `old`, as `diff --base` would.
fn show_approvals(old: Option<&Lock>, new: &Lock, paint: Paint) -> Result<(), Error> {
    let empty = Lock::empty(new.fingerprint.clone());
    let changes = lock_diff::compare(old.unwrap_or(&empty), new);
    let mut out = String::new();
    super::diff::approvals(&mut out, &changes, paint);
    if changes.is_empty() {
        out.push_str("nothing new to approve\n");
    }
    super::emit(&out, None)
}

/// Asks on the terminal; anything but yes declines.
fn confirm() -> Result<bool, Error> {
    eprint!("approve these changes? [y/N] ");
    let mut answer = String::new();
    std::io::stdin()
        .read_line(&mut answer)
        .map_err(|e| Error::new(format!("cannot read the answer: {e}")))?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
}

/// Copies the lockfile to `<name>.<timestamp>.bak` next to it (never over an earlier backup);
/// `None` when there is no lockfile yet.
fn back_up(path: &Path, now: &str) -> Result<Option<PathBuf>, Error> {
    if !path.exists() {
        return Ok(None);
    }
    let stamp: String = now.chars().filter(|c| !matches!(c, '-' | ':')).collect();
    let name = path
        .file_name()
        .map_or_else(|| "mcp.lock".into(), |n| n.to_string_lossy().into_owned());
    let mut backup = path.with_file_name(format!("{name}.{stamp}.bak"));
    let mut n = 1;
    while backup.exists() {
        n += 1;
        backup = path.with_file_name(format!("{name}.{stamp}-{n}.bak"));
    }
    std::fs::copy(path, &backup)
        .map_err(|e| Error::in_file(&backup, format!("cannot back up the lockfile: {e}")))?;
    Ok(Some(backup))
}

/// Pins the launch specs of the scanned client configs. A run that scanned no config leaves the
/// section alone (the configs usually live outside the snapshot directory); `--server` updates
/// only the servers it names.
fn pin_launch_specs(
    lock: &mut Lock,
    configs: &[ConfigInput],
    only: Option<&Selection>,
    algorithm: Algorithm,
) {
    if configs.is_empty() {
        return;
    }
    match only {
        None => lock.launch = launch::pin(configs, algorithm),
        Some(selection) => {
            for (name, (_, server)) in launch::first_definitions(configs) {
                if selection.names_server(name) {
                    lock.launch
                        .insert(name.to_string(), launch::locked(server, algorithm));
                }
            }
        }
    }
}

fn set_status(
    path: &std::path::Path,
    name: &str,
    status: Status,
    max_file_size: ByteSize,
) -> Result<u8, Error> {
    let Some((mut lock, _)) = Lock::stream_within(path, max_file_size)? else {
        return Err(Error::in_file(path, "the lockfile does not exist")
            .with_help("create it with `mcp-scan lock`"));
    };
    let Some(server) = lock.servers.get_mut(name) else {
        return Err(Error::in_file(
            path,
            format!("no server `{name}` in the lockfile"),
        ));
    };
    server.status = status;
    lock.write(path)?;
    eprintln!(
        "{}: server `{name}` is now {}",
        display_path(path),
        status.as_str()
    );
    Ok(0)
}
