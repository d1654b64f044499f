//! Running the real binary in a scratch copy of a case directory, with a pinned environment.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub const EPOCH: &str = "1790000000";

/// Far longer than any run should take (the slowest, in a debug build, take seconds): past it,
/// a run has hung, and the test fails instead of blocking the suite.
const DEADLINE: Duration = Duration::from_secs(300);

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `mcp-scan ARGS` in `dir` with a clock, approver and colour setting that never vary.
pub fn run(dir: &Path, args: &[String]) -> Output {
    run_with_env(dir, args, &[])
}

/// [`run`], with some of the pinned environment overridden.
pub fn run_with_env(dir: &Path, args: &[String], overrides: &[(&str, &str)]) -> Output {
    run_full(dir, args, overrides, None)
}

/// [`run`], with `stdin` as standard input.
pub fn run_with_stdin(dir: &Path, args: &[String], stdin: &[u8]) -> Output {
    run_full(dir, args, &[], Some(stdin))
}

fn run_full(
    dir: &Path,
    args: &[String],
    overrides: &[(&str, &str)],
    stdin: Option<&[u8]>,
) -> Output {
    // Input and output go through files, not pipes, so the deadline below can poll without
    // reader or writer threads.
    let capture = tempfile::tempdir().expect("a temporary directory");
    let (stdout_path, stderr_path) = (capture.path().join("out"), capture.path().join("err"));
    let stdin_path = capture.path().join("in");
    std::fs::write(&stdin_path, stdin.unwrap_or_default()).expect("a stdin file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .env("GIT_AUTHOR_EMAIL", "reviewer@example.com")
        .env("NO_COLOR", "1")
        .env("HOME", dir)
        .envs(overrides.iter().copied())
        .stdin(File::open(&stdin_path).expect("the stdin file"))
        .stdout(File::create(&stdout_path).expect("a capture file"))
        .stderr(File::create(&stderr_path).expect("a capture file"))
        .spawn()
        .expect("the mcp-scan binary runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for mcp-scan") {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("mcp-scan {args:?} hung: killed after {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let code = status
        .code()
        .expect("mcp-scan exited normally, not by a signal");
    assert!(code <= 2, "mcp-scan exited {code}: a crash, not a verdict");
    let read =
        |path: &Path| String::from_utf8_lossy(&std::fs::read(path).expect("captured")).into_owned();
    Output {
        code,
        stdout: read(&stdout_path),
        stderr: read(&stderr_path),
    }
}

/// A fresh copy of `from` (recursively) in a temporary directory.
pub fn scratch_copy(from: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy_tree(from, dir.path());
    dir
}

pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.expect("readable test data");
        let relative = entry.path().strip_prefix(from).expect("inside the tree");
        let target: PathBuf = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("create a directory");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}
