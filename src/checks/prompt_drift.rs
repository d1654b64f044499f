//! Drift of pinned prompt files: changed since `mcp-scan lock`, never pinned, or gone.

use super::{Baseline, BaselineCheck, Context, Draft};
use crate::config::Posture;
use crate::finding::{Location, Severity};
use crate::json::Pointer;
use crate::lock::Lock;

pub struct PromptDrift;

impl BaselineCheck for PromptDrift {
    fn rules(&self) -> &'static [&'static str] {
        &["prompt-changed", "prompt-unpinned", "prompt-missing"]
    }

    fn run(&self, cx: &Context<'_>, base: &Baseline<'_>, out: &mut Vec<Draft>) {
        let pinned = base.lock.map(|l| (&l.lock.prompts, l.source));
        for prompt in &cx.inputs.prompts {
            let here = Location::new(prompt.source, Pointer::root());
            match pinned.and_then(|(p, source)| p.get(&prompt.path).map(|d| (d, source))) {
                Some((digest, _)) if *digest == prompt.digest => {}
                Some((_, lock_source)) => out.push(
                    Draft::new(
                        "prompt-changed",
                        here,
                        format!(
                            "prompt `{}` changed since it was pinned in mcp.lock; review it, then run `mcp-scan lock`",
                            prompt.path
                        ),
                    )
                    .related(Location::new(lock_source, Lock::prompt_pointer(&prompt.path)).key()),
                ),
                None => {
                    let mut draft = Draft::new(
                        "prompt-unpinned",
                        here,
                        format!(
                            "prompt `{}` is not pinned in mcp.lock; review it, then run `mcp-scan lock`",
                            prompt.path
                        ),
                    );
                    if cx.posture == Posture::Strict {
                        draft = draft.severity(Severity::High);
                    }
                    out.push(draft);
                }
            }
        }
        if let Some((pinned, lock_source)) = pinned {
            for path in pinned.keys() {
                if !cx.inputs.prompts.iter().any(|p| &p.path == path) {
                    out.push(Draft::new(
                        "prompt-missing",
                        Location::new(lock_source, Lock::prompt_pointer(path)).key(),
                        format!(
                            "prompt `{path}` is pinned in mcp.lock but was not found among the config's `prompts`"
                        ),
                    ));
                }
            }
        }
    }
}
