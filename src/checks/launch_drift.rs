//! Drift of configured servers' launch specs against the `launch` section of mcp.lock: a
//! changed command, argument, package version, URL or env reference is reported like a changed
//! tool, since the approved tools came from the approved launch.

use super::{Baseline, BaselineCheck, Context, Draft};
use crate::clients::launch::{first_definitions, locked};
use crate::config::Posture;
use crate::finding::{Location, Severity};
use crate::lock::Lock;

pub struct LaunchDrift;

impl BaselineCheck for LaunchDrift {
    fn rules(&self) -> &'static [&'static str] {
        &["launch-changed", "launch-unpinned"]
    }

    fn run(&self, cx: &Context<'_>, base: &Baseline<'_>, out: &mut Vec<Draft>) {
        // Without a lock nothing is approved yet; `server-unbaselined` already says so.
        let Some(lock) = base.lock else {
            return;
        };
        for (name, (input, server)) in first_definitions(&cx.inputs.configs) {
            let here = Location::new(input.source, server.pointer.clone()).key();
            let now = locked(server, lock.lock.fingerprint.algorithm);
            match lock.lock.launch.get(name) {
                Some(pinned) if pinned.digest == now.digest => {}
                Some(pinned) => {
                    let what = if pinned.runs == now.runs {
                        String::new()
                    } else {
                        format!(" (approved: `{}`, now: `{}`)", pinned.runs, now.runs)
                    };
                    out.push(
                        Draft::new(
                            "launch-changed",
                            here,
                            format!(
                                "server `{name}` is launched differently than approved in mcp.lock{what}; review it, record it, then run `mcp-scan lock`"
                            ),
                        )
                        .server(name)
                        .related(Location::new(lock.source, Lock::launch_pointer(name)).key()),
                    );
                }
                None => {
                    let mut draft = Draft::new(
                        "launch-unpinned",
                        here,
                        format!(
                            "server `{name}` (`{}`) has no approved launch spec in mcp.lock; run `mcp-scan lock` with this config among its inputs",
                            now.runs
                        ),
                    )
                    .server(name);
                    if cx.posture == Posture::Strict {
                        draft = draft.severity(Severity::High);
                    }
                    out.push(draft);
                }
            }
        }
    }
}
