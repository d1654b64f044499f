//! `lock` killed at any moment leaves a lockfile that still parses: the old one or the new one,
//! never half of either.

use std::process::Command;
use std::time::Duration;

use mcp_scan::lock::Lock;

/// A snapshot big enough that writing its lock takes a few milliseconds.
fn snapshot(variant: usize) -> String {
    let tools: Vec<String> = (0..400)
        .map(|i| {
            format!(
                r#"{{"name":"tool_{i}","description":"{} variant {variant}","inputSchema":{{"type":"object"}}}}"#,
                "Reads and summarises a document. ".repeat(20)
            )
        })
        .collect();
    format!(r#"{{"tools":[{}]}}"#, tools.join(","))
}

#[test]
fn killed_lock_runs_never_leave_a_broken_lockfile() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot_path = dir.path().join("big.json");
    let lock_path = dir.path().join("mcp.lock");
    let lock = |wait_ms: Option<u64>| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
            .args(["lock", "big.json", "--approved-by", "test"])
            .current_dir(dir.path())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        if let Some(ms) = wait_ms {
            std::thread::sleep(Duration::from_millis(ms));
            let _ = child.kill();
        }
        child.wait().unwrap();
    };
    std::fs::write(&snapshot_path, snapshot(0)).unwrap();
    lock(None);
    for round in 1..=40 {
        std::fs::write(&snapshot_path, snapshot(round)).unwrap();
        // Spread the kills over the run: start-up, parsing, hashing, writing, renaming.
        lock(Some((round as u64 * 7) % 60));
        let loaded = Lock::load(&lock_path);
        assert!(
            matches!(loaded, Ok(Some(_))),
            "round {round}: the lockfile does not parse after a kill: {:?}",
            loaded.err()
        );
    }
}
