//! `check`, `lock`, `diff` (without `--base REV:path`) and `show` never start a process and never
//! touch the network: they run with no program on PATH and every proxy pointing at a closed port,
//! where either would fail, and the source starts processes only where it must.

use std::path::Path;

use crate::common::run_with_env;

#[test]
fn offline_commands_need_no_program_and_no_network() {
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/shared/weather.json"),
        dir.path().join("weather.json"),
    )
    .unwrap();
    let path = empty.path().to_str().unwrap();
    // Port 9 (discard) on loopback: nothing listens, so any proxied request fails at once.
    let proxy = "http://127.0.0.1:9";
    let env = [
        ("PATH", path),
        ("http_proxy", proxy),
        ("https_proxy", proxy),
        ("HTTP_PROXY", proxy),
        ("HTTPS_PROXY", proxy),
        ("ALL_PROXY", proxy),
        ("GIT_DIR", path),
    ];
    for args in [
        &["lock", "weather.json"][..],
        &["check", "weather.json"],
        &["diff", "weather.json"],
        &["show"],
        &["check", "weather.json", "--format", "sarif"],
    ] {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let out = run_with_env(dir.path(), &args, &env);
        assert_eq!(
            out.code, 0,
            "mcp-scan {args:?}: {}{}",
            out.stdout, out.stderr
        );
    }
}

/// Processes are started by `record` (it runs the servers) and by `diff --base REV:path` (`git
/// show`), nowhere else.
#[test]
fn only_record_and_the_git_base_helper_start_processes() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let allowed = relative.starts_with("record/") || relative == "commands/diff.rs";
        if !allowed && (text.contains("Command::new") || text.contains("process::Command")) {
            offenders.push(relative);
        }
    }
    assert!(offenders.is_empty(), "processes started in {offenders:?}");
}
