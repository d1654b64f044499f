//! `mcp-scan lock`: approve the scanned definitions into mcp.lock, check that it is up to date,
//! or quarantine and release servers.

use crate::approve::{Approval, approve};
use crate::approver::approver;
use crate::cli::{Env, LockArgs};
use crate::clients::launch;
use crate::clock;
use crate::error::Error;
use crate::fingerprint::Algorithm;
use crate::input::ConfigInput;
use crate::lock::{Lock, Status, WriteGuard};
use crate::prompts;
use crate::render::count;
use crate::scan::{load_inputs, load_lock};
use crate::source::display_path;
use crate::state::server_states;

pub fn run(env: &Env, args: &LockArgs) -> Result<u8, Vec<Error>> {
    let (lock_path, _) = env.lock_path(&args.lock);
    let shown = display_path(&lock_path);
    let _guard = WriteGuard::acquire(&lock_path).map_err(|e| vec![e])?;
    if let Some((name, status)) = args
        .quarantine
        .as_ref()
        .map(|n| (n, Status::Quarantined))
        .or(args.release.as_ref().map(|n| (n, Status::Verified)))
    {
        return set_status(&lock_path, name, status).map_err(|e| vec![e]);
    }
    let old = load_lock(&lock_path, false)
        .map_err(|e| vec![e])?
        .map(|(lock, _)| lock);
    let inputs = load_inputs(
        &env.paths(&args.paths),
        std::slice::from_ref(&lock_path),
        false,
        env.config.limits.max_file_size(),
    )?;
    let options = env.config.fingerprint_options();
    let states = server_states(&inputs, &options);
    let old_options = old.as_ref().map_or(&options, |l| &l.fingerprint);
    let old_states = if *old_options == options {
        None
    } else {
        Some(server_states(&inputs, old_options))
    };
    let who = approver(args.approved_by.as_deref());
    let now = clock::now().map_err(|e| vec![e])?;
    let approval = Approval {
        who: &who,
        now: &now,
        only: (!args.server.is_empty()).then_some(args.server.as_slice()),
    };
    let mut new = approve(
        old.as_ref(),
        &states,
        old_states.as_deref().unwrap_or(&states),
        &options,
        &approval,
    )
    .map_err(|e| vec![e])?;
    // Approving some servers (`--server`) leaves the pinned prompts as they were.
    if approval.only.is_none() {
        new.prompts = prompts::pin(&env.config.prompts, options.algorithm).map_err(|e| vec![e])?;
    }
    pin_launch_specs(&mut new, &inputs.configs, approval.only, options.algorithm);
    let up_to_date = old.as_ref().is_some_and(|old| old.render() == new.render());
    if args.check {
        if up_to_date {
            eprintln!("{shown} is up to date");
            return Ok(0);
        }
        eprintln!("{shown} is out of date: review with `mcp-scan diff`, then run `mcp-scan lock`");
        return Ok(1);
    }
    let written = new.write(&lock_path).map_err(|e| vec![e])?;
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
    Ok(0)
}

/// Pins the launch specs of the scanned client configs. A run that scanned no config leaves the
/// section alone (the configs usually live outside the snapshot directory); `--server` updates
/// only the servers it names.
fn pin_launch_specs(
    lock: &mut Lock,
    configs: &[ConfigInput],
    only: Option<&[String]>,
    algorithm: Algorithm,
) {
    if configs.is_empty() {
        return;
    }
    match only {
        None => lock.launch = launch::pin(configs, algorithm),
        Some(names) => {
            for (name, (_, server)) in launch::first_definitions(configs) {
                if names.iter().any(|n| n == name) {
                    lock.launch
                        .insert(name.to_string(), launch::locked(server, algorithm));
                }
            }
        }
    }
}

fn set_status(path: &std::path::Path, name: &str, status: Status) -> Result<u8, Error> {
    let Some((mut lock, _)) = Lock::load(path)? else {
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
