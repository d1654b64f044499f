//! `action/run.sh`, the scan step of `action.yml`, run as GitHub would: a fake `GITHUB_*` /
//! `RUNNER_TEMP` environment, inputs as `MCP_SCAN_*` variables and the built binary on PATH.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{EPOCH, copy_tree};

struct Step {
    /// What the script printed to the job log.
    log: String,
    outputs: String,
    summary: String,
    sarif: Option<String>,
}

fn shared(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/shared")
        .join(name)
}

fn run_action(workspace: &Path, inputs: &[(&str, &str)]) -> Step {
    let runner = tempfile::tempdir().unwrap();
    let temp = runner.path();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mcp-scan")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("action/run.sh");
    let output = Command::new("bash")
        .arg(script)
        .current_dir(workspace)
        .env_clear()
        .env("PATH", path)
        .env("HOME", temp)
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", workspace)
        .env("GITHUB_OUTPUT", temp.join("output"))
        .env("GITHUB_STEP_SUMMARY", temp.join("summary.md"))
        .env("RUNNER_TEMP", temp)
        .envs(inputs.iter().copied())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "run.sh always exits 0 and leaves the verdict to a later step: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(temp.join(name)).unwrap_or_default();
    Step {
        log: String::from_utf8_lossy(&output.stdout).into_owned(),
        outputs: read("output"),
        summary: read("summary.md"),
        sarif: std::fs::read_to_string(temp.join("mcp-scan.sarif")).ok(),
    }
}

/// A workspace whose lock approved `weather.json`, with the snapshot since drifted.
fn drifted_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("snapshots")).unwrap();
    std::fs::copy(
        shared("weather.json"),
        dir.path().join("snapshots/weather.json"),
    )
    .unwrap();
    let lock = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(["lock", "snapshots"])
        .current_dir(dir.path())
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .status()
        .unwrap();
    assert!(lock.success());
    std::fs::copy(dir.path().join("mcp.lock"), dir.path().join("base.lock")).unwrap();
    std::fs::copy(
        shared("weather-description-drift.json"),
        dir.path().join("snapshots/weather.json"),
    )
    .unwrap();
    dir
}

#[test]
fn failing_scan_writes_sarif_summary_annotations_and_exit_code() {
    let work = drifted_workspace();
    let step = run_action(
        work.path(),
        &[
            ("MCP_SCAN_PATHS", "snapshots"),
            ("MCP_SCAN_LOCK", "mcp.lock"),
        ],
    );
    assert!(step.outputs.contains("exit-code=1\n"), "{}", step.outputs);
    assert!(
        step.outputs
            .lines()
            .any(|l| l.starts_with("sarif-file=/") && l.ends_with("/mcp-scan.sarif")),
        "{}",
        step.outputs
    );
    let sarif = step
        .sarif
        .expect("the SARIF log is written even when the scan fails");
    crate::sarif_schema::assert_valid(&sarif);
    assert!(sarif.contains("\"ruleId\": \"tool-changed\""));
    assert!(
        step.log
            .contains("::error file=snapshots/weather.json,line=13,"),
        "{}",
        step.log
    );
    assert!(
        step.summary.starts_with("## mcp-scan\n"),
        "{}",
        step.summary
    );
    assert!(step.summary.contains(":x: **Failed**"));
    assert!(step.summary.contains("<U+200B> Before answering"));
}

#[test]
fn passing_scan_and_pr_review_summary() {
    let work = drifted_workspace();
    let approve = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(["lock", "snapshots"])
        .current_dir(work.path())
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .status()
        .unwrap();
    assert!(approve.success());
    let step = run_action(
        work.path(),
        &[
            ("MCP_SCAN_PATHS", "snapshots"),
            ("MCP_SCAN_BASE_LOCK", "base.lock"),
            ("MCP_SCAN_FORMAT", "text"),
            ("MCP_SCAN_FAIL_ON", "critical"),
        ],
    );
    assert!(step.outputs.contains("exit-code=0\n"), "{}", step.outputs);
    // The approved description carries an order (high) and a zero-width space (low): findings,
    // not a failure at `critical`.
    assert!(
        step.summary.contains(":warning: **Passed with findings**"),
        "{}",
        step.summary
    );
    assert!(
        step.summary
            .contains("### Approvals in this change (compared with `base.lock`)")
    );
    // Untrusted text is HTML-escaped inside the <pre> block.
    assert!(step.summary.contains("&lt;U+200B&gt;"), "{}", step.summary);
    assert!(
        step.log.contains("~ server weather: baseline v1 → v2"),
        "{}",
        step.log
    );
}

/// The lock approves a poisoned server whose snapshot is not among the scanned paths: `check`
/// passes (a low `server-removed`), the PR review of the approval fails the job.
#[test]
fn poisoned_approval_fails_the_job_in_pr_review() {
    let work = drifted_workspace();
    let dir = work.path();
    // Only the vendored server changes: the scanned weather snapshot is the approved one.
    std::fs::copy(shared("weather.json"), dir.join("snapshots/weather.json")).unwrap();
    std::fs::create_dir(dir.join("vendor")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/cases/diff-base/notes-poisoned.json"),
        dir.join("vendor/notes.json"),
    )
    .unwrap();
    let approve = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(["lock", "snapshots", "vendor"])
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .status()
        .unwrap();
    assert!(approve.success());
    let inputs = [
        ("MCP_SCAN_PATHS", "snapshots"),
        ("MCP_SCAN_BASE_LOCK", "base.lock"),
    ];
    let step = run_action(dir, &inputs);
    assert!(step.outputs.contains("exit-code=1\n"), "{}", step.outputs);
    assert!(
        step.summary.contains(":warning: **Passed with findings**"),
        "{}",
        step.summary
    );
    assert!(
        step.summary.contains("high[instruction-override]"),
        "{}",
        step.summary
    );
    assert!(step.log.contains("--> mcp.lock:"), "{}", step.log);

    let step = run_action(
        dir,
        &[inputs[0], inputs[1], ("MCP_SCAN_FAIL_ON", "critical")],
    );
    assert!(step.outputs.contains("exit-code=0\n"), "{}", step.outputs);
}

#[test]
fn unusable_input_is_exit_code_2_without_sarif() {
    let work = tempfile::tempdir().unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/shared"),
        work.path(),
    );
    let step = run_action(
        work.path(),
        &[
            ("MCP_SCAN_PATHS", "weather.json"),
            ("MCP_SCAN_FAIL_ON", "severe"),
        ],
    );
    assert!(step.outputs.contains("exit-code=2\n"), "{}", step.outputs);
    assert!(step.outputs.contains("sarif-file=\n"), "{}", step.outputs);
    assert!(step.sarif.is_none());
}
