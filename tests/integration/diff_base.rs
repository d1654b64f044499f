//! `diff --base REV:PATH` reads the old lock with `git show` (cases cannot run git, so this test
//! builds a throwaway repository).

use std::path::Path;
use std::process::Command;

use crate::common::run;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn base_lock_from_a_git_revision() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/shared");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    std::fs::create_dir(dir.join("snapshots")).unwrap();
    std::fs::copy(
        shared.join("weather.json"),
        dir.join("snapshots/weather.json"),
    )
    .unwrap();
    assert_eq!(run(dir, &args(&["lock", "snapshots"])).code, 0);
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "approve weather"]);
    std::fs::copy(
        shared.join("weather-description-drift.json"),
        dir.join("snapshots/weather.json"),
    )
    .unwrap();
    assert_eq!(run(dir, &args(&["lock", "snapshots"])).code, 0);

    // The drifted description's new order is screened: a high finding, exit 1.
    let out = run(dir, &args(&["diff", "--base", "HEAD:mcp.lock"]));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains("high[cross-tool-precondition]"));
    assert!(out.stdout.contains("mcp.lock compared with HEAD:mcp.lock"));
    assert!(out.stdout.contains("~ server weather: baseline v1 → v2"));
    assert!(
        out.stdout
            .contains("{+precipitation.<U+200B> Before answering")
    );

    let missing = run(dir, &args(&["diff", "--base", "HEAD:nope.lock"]));
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("`git show HEAD:nope.lock` failed"),
        "{}",
        missing.stderr
    );
}
