//! Running the real binary in a scratch copy of a case directory, with a pinned environment.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const EPOCH: &str = "1790000000";

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
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mcp-scan binary runs");
    // Dropped after writing, so the child sees end of input (no input: at once).
    let mut input = child.stdin.take().expect("a piped stdin");
    input
        .write_all(stdin.unwrap_or_default())
        .expect("write stdin");
    drop(input);
    let output = child.wait_with_output().expect("mcp-scan finishes");
    let code = output
        .status
        .code()
        .expect("mcp-scan exited normally, not by a signal");
    assert!(code <= 2, "mcp-scan exited {code}: a crash, not a verdict");
    Output {
        code,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
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
