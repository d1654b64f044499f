//! `mcp-scan record` against real servers installed from npm (`tests/npm`, installed by
//! `.ci/run` with `npm ci`) and against a fake server that misbehaves in every way the
//! recorder must survive.

use std::path::{Path, PathBuf};

use crate::common::{Output, run};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Runs `mcp-scan` with a chosen `SOURCE_DATE_EPOCH` (the common runner pins one).
fn run_at(dir: &Path, epoch: &str, list: &[&str]) -> Output {
    crate::common::run_with_env(dir, &args(list), &[("SOURCE_DATE_EPOCH", epoch)])
}

#[test]
fn records_real_npm_servers_then_lock_and_check_succeed() {
    let npm = repo().join("tests/npm/node_modules/@modelcontextprotocol");
    if !npm.is_dir() {
        eprintln!(
            "SKIPPED: real MCP servers are not installed; run `npm ci --prefix tests/npm` (as .ci/run does)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let entry = |pkg: &str| npm.join(pkg).join("dist/index.js").display().to_string();
    let config = serde_json::json!({"mcpServers": {
        "everything": {"command": "node", "args": [entry("server-everything"), "stdio"]},
        "filesystem": {"command": "node", "args": [entry("server-filesystem"), "."]},
    }});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();

    let first = run_at(
        dir.path(),
        "1790000000",
        &["record", "--config", ".mcp.json", "--out", "mcp/snapshots"],
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first.stderr.contains("recorded 2 servers"),
        "{}",
        first.stderr
    );
    let snapshot =
        std::fs::read_to_string(dir.path().join("mcp/snapshots/everything.json")).unwrap();
    assert!(snapshot.contains(r#""server": "everything""#));
    assert!(
        snapshot.contains(r#""capturedAt": "2026-09-21T"#),
        "{snapshot:.300}"
    );
    assert!(
        snapshot.contains(r#""execution""#),
        "unknown tool fields are kept"
    );

    let lock = run(dir.path(), &args(&["lock", "mcp/snapshots"]));
    assert_eq!(lock.code, 0, "{}", lock.stderr);
    let check = run(dir.path(), &args(&["check", "mcp/snapshots"]));
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    assert!(
        check.stdout.contains("no findings in 2 servers"),
        "{}",
        check.stdout
    );
    let locked = std::fs::read(dir.path().join("mcp.lock")).unwrap();

    // Re-recording later changes the capture time, never the lock.
    let again = run_at(
        dir.path(),
        "1800000000",
        &["record", "--out", "mcp/snapshots"],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    let relock = run(dir.path(), &args(&["lock", "mcp/snapshots"]));
    assert_eq!(relock.code, 0, "{}", relock.stderr);
    assert_eq!(std::fs::read(dir.path().join("mcp.lock")).unwrap(), locked);
}

/// Records the fake server in `mode`; returns the run's output and the pids it started.
fn record_fake(mode: &str, extra: &[&str]) -> (Output, Vec<u32>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let script = repo().join("testdata/fake-servers/fake_server.py");
    let pid_file = dir.path().join("pids");
    let config = serde_json::json!({"mcpServers": {"fake": {
        "command": "python3",
        "args": [script.display().to_string(), mode],
        "env": {"PID_FILE": pid_file.display().to_string()},
    }}});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    let mut list = vec!["record", "--out", "out"];
    list.extend(extra);
    if !extra.contains(&"--timeout") {
        list.extend(["--timeout", "5"]);
    }
    let out = run(dir.path(), &args(&list));
    let pids = std::fs::read_to_string(&pid_file)
        .unwrap_or_default()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    (out, pids, dir)
}

/// Gone, or a zombie awaiting a reaper that is not mcp-scan (which has exited).
fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

#[test]
fn misbehaving_servers_fail_clearly_and_leave_no_process() {
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "silent",
            &["--timeout", "1"],
            "no answer to `initialize` before the timeout",
        ),
        (
            "endless-cursor",
            &[],
            "tools/list still had a next page after 100 pages",
        ),
        (
            "repeated-cursor",
            &[],
            "page 2 of tools/list repeats an earlier cursor",
        ),
        (
            "garbage",
            &[],
            "something other than JSON-RPC to stdout: `Server starting on stdio...`",
        ),
        (
            "exit-early",
            &[],
            "the server exited before answering `initialize` (exit status: 3)",
        ),
        (
            "huge",
            &["--max-bytes", "1000000"],
            "more than 1000000 bytes to stdout",
        ),
    ];
    for (mode, extra, want) in cases {
        let started = std::time::Instant::now();
        let (out, pids, dir) = record_fake(mode, extra);
        assert_eq!(out.code, 2, "{mode}: {}", out.stderr);
        assert!(out.stderr.contains(want), "{mode}: {}", out.stderr);
        assert!(
            out.stderr.contains("its stderr is in out/fake.log"),
            "{mode}: {}",
            out.stderr
        );
        assert!(!dir.path().join("out/fake.json").exists(), "{mode}");
        assert!(!pids.is_empty(), "{mode}: the fake server did not start");
        for pid in &pids {
            assert!(
                is_dead(*pid),
                "{mode}: process {pid} outlived the recording"
            );
        }
        assert!(
            started.elapsed().as_secs() < 5,
            "{mode}: took {:?}",
            started.elapsed()
        );
    }
    let (_, _, dir) = record_fake("exit-early", &[]);
    let log = std::fs::read_to_string(dir.path().join("out/fake.log")).unwrap();
    assert_eq!(log, "fatal: missing configuration\n");
}

#[test]
fn a_paginated_server_is_recorded_whole_with_every_field() {
    let (out, pids, dir) = record_fake("good", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let snapshot = std::fs::read_to_string(dir.path().join("out/fake.json")).unwrap();
    insta::assert_snapshot!(snapshot);
    assert!(pids.iter().all(|p| is_dead(*p)));
}

#[test]
fn hostile_names_and_missing_inputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = r#"{"servers": {
        "../../escape": {"command": "python3", "args": ["-c", "pass"]},
        "needs-input": {"command": "x", "env": {"TOKEN": "${input:token}"}},
        "remote": {"type": "http", "url": "http://127.0.0.1:1/mcp"}
    }}"#;
    std::fs::create_dir(dir.path().join(".vscode")).unwrap();
    std::fs::write(dir.path().join(".vscode/mcp.json"), config).unwrap();
    let out = run(
        dir.path(),
        &args(&["record", "--out", "out", "--timeout", "2"]),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    insta::assert_snapshot!(out.stderr);
    let written: Vec<PathBuf> = walkdir::WalkDir::new(dir.path())
        .sort_by_file_name()
        .into_iter()
        .map(|e| {
            e.unwrap()
                .path()
                .strip_prefix(dir.path())
                .unwrap()
                .to_path_buf()
        })
        .filter(|p| p.extension().is_some_and(|e| e == "log" || e == "json"))
        .collect();
    assert_eq!(
        written,
        [
            PathBuf::from(".vscode/mcp.json"),
            PathBuf::from("out/_.._escape.log"),
        ]
    );
}

const TOKEN: &str = "tok_0123456789abcdef";

/// The fake Streamable HTTP server, killed and reaped when dropped (also when a test fails).
struct FakeHttp {
    child: std::process::Child,
    url: String,
}

impl FakeHttp {
    fn start(mode: &str, dir: &Path) -> FakeHttp {
        let port_file = dir.join("port");
        let child = std::process::Command::new("python3")
            .arg(repo().join("testdata/fake-servers/fake_http_server.py"))
            .args([mode, &port_file.display().to_string()])
            .env("FAKE_TOKEN", TOKEN)
            .spawn()
            .unwrap();
        let mut server = FakeHttp {
            child,
            url: String::new(),
        };
        let started = std::time::Instant::now();
        while server.url.is_empty() {
            match std::fs::read_to_string(&port_file) {
                Ok(port) => server.url = format!("http://127.0.0.1:{port}/mcp"),
                Err(_) if started.elapsed().as_secs() < 5 => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => panic!("the fake HTTP server did not start: {e}"),
            }
        }
        server
    }
}

impl Drop for FakeHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Records the fake HTTP server in `mode`, sending `token` as the bearer token.
fn record_http(mode: &str, token: &str, extra: &[&str]) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeHttp::start(mode, dir.path());
    let config = serde_json::json!({"mcpServers": {"remote": {
        "type": "http",
        "url": server.url,
        "headers": {"Authorization": "Bearer ${FAKE_TOKEN}"},
    }}});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).unwrap();
    let mut list = vec!["record", "--out", "out"];
    list.extend(extra);
    let out = crate::common::run_with_env(dir.path(), &args(&list), &[("FAKE_TOKEN", token)]);
    drop(server);
    (out, dir)
}

#[test]
fn streamable_http_servers_are_recorded_from_json_and_event_streams() {
    for (mode, tools) in [
        ("json", &["tool_1"][..]),
        ("sse", &["tool_1"]),
        ("paginate", &["tool_1", "tool_2", "tool_3"]),
        ("modern", &["first", "second"]),
    ] {
        let (out, dir) = record_http(mode, TOKEN, &["--timeout", "5"]);
        assert_eq!(out.code, 0, "{mode}: {}", out.stderr);
        assert!(
            out.stderr.contains("recorded `remote`"),
            "{mode}: {}",
            out.stderr
        );
        let text = std::fs::read_to_string(dir.path().join("out/remote.json")).unwrap();
        let snapshot: serde_json::Value = serde_json::from_str(&text).unwrap();
        let names: Vec<&str> = snapshot["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, tools, "{mode}");
        let (version, server) = if mode == "modern" {
            ("2026-07-28", "fake-modern")
        } else {
            ("2025-06-18", "fake-http")
        };
        assert_eq!(snapshot["protocolVersion"], version, "{mode}");
        assert_eq!(snapshot["serverInfo"]["name"], server, "{mode}");
        assert!(!text.contains(TOKEN), "{mode}: the token leaked");
        assert!(!dir.path().join("out/remote.log").exists(), "{mode}");
    }
}

#[test]
fn misbehaving_http_servers_fail_clearly() {
    let cases: &[(&str, &str, &[&str], &str)] = &[
        (
            "silent",
            TOKEN,
            &["--timeout", "1"],
            "no answer to `initialize` before the timeout",
        ),
        (
            "wrong-type",
            TOKEN,
            &[],
            "answered `initialize` with content type `text/html`, not application/json or text/event-stream",
        ),
        (
            "repeated-cursor",
            TOKEN,
            &[],
            "page 2 of tools/list repeats an earlier cursor",
        ),
        (
            "modern-incomplete",
            TOKEN,
            &[],
            "page 1 of tools/list has `resultType` \"input_required\", not \"complete\"",
        ),
        (
            "json",
            "tok_wrong_9876543210",
            &[],
            "answered `initialize` with HTTP status 401 (check the `headers` its config sends)",
        ),
    ];
    for (mode, token, extra, want) in cases {
        let started = std::time::Instant::now();
        let (out, dir) = record_http(mode, token, extra);
        assert_eq!(out.code, 2, "{mode}: {}", out.stderr);
        assert!(out.stderr.contains(want), "{mode}: {}", out.stderr);
        assert!(!out.stderr.contains(token), "{mode}: the token leaked");
        assert!(!dir.path().join("out/remote.json").exists(), "{mode}");
        assert!(
            started.elapsed().as_secs() < 5,
            "{mode}: took {:?}",
            started.elapsed()
        );
    }
}
