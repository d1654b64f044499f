//! Scenario tests: each `testdata/cases/<name>/case.yaml` lists steps (run a command, replace
//! a file); the transcript of every step (exit code, stdout, stderr, and any files the case
//! asks to show) is one insta snapshot. Adding a case needs no Rust.

use std::fmt::Write;
use std::path::Path;

use serde::Deserialize;

use crate::common::{run, run_with_stdin, scratch_copy};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// What the case shows, printed at the top of the snapshot.
    about: String,
    #[serde(with = "yaml_serde::with::singleton_map_recursive")]
    steps: Vec<Step>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum Step {
    /// Run `mcp-scan` with these arguments and expect this exit code; `stdin` names a file of
    /// the case to pipe to it.
    Run {
        args: Vec<String>,
        exit: i32,
        #[serde(default)]
        stdin: Option<String>,
    },
    /// Copy a file within the case directory (e.g. a drifted snapshot over the approved one).
    Copy { from: String, to: String },
    /// Copy a file from `testdata/shared/` into the case directory (creating folders).
    Fixture { name: String, to: String },
    /// Delete a file.
    Remove { path: String },
    /// Create an (empty) directory: git cannot store one.
    Mkdir { path: String },
    /// Include a file's content in the transcript.
    Show { path: String },
    /// Make a file unreadable.
    Unreadable { path: String },
}

fn run_case(case_file: &Path) -> String {
    let case: Case = yaml_serde::from_str(&std::fs::read_to_string(case_file).unwrap()).unwrap();
    let work = scratch_copy(case_file.parent().unwrap());
    let dir = work.path();
    let mut transcript = format!("# {}\n", case.about.trim());
    for step in case.steps {
        match step {
            Step::Run { args, exit, stdin } => {
                let out = match &stdin {
                    Some(file) => {
                        run_with_stdin(dir, &args, &std::fs::read(dir.join(file)).unwrap())
                    }
                    None => run(dir, &args),
                };
                let redirect = stdin.map(|f| format!(" < {f}")).unwrap_or_default();
                let _ = write!(
                    transcript,
                    "\n$ mcp-scan {}{redirect}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
                    args.join(" "),
                    out.code,
                    out.stdout,
                    out.stderr
                );
                if args.windows(2).any(|w| w == ["--format", "sarif"]) {
                    crate::sarif_schema::assert_valid(&out.stdout);
                }
                assert_eq!(
                    out.code,
                    exit,
                    "{}: `mcp-scan {}`\n{transcript}",
                    case_file.display(),
                    args.join(" ")
                );
            }
            Step::Copy { from, to } => {
                std::fs::copy(dir.join(&from), dir.join(&to)).unwrap();
                let _ = write!(transcript, "\n$ cp {from} {to}\n");
            }
            Step::Fixture { name, to } => {
                let target = dir.join(&to);
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::copy(shared_dir().join(&name), &target).unwrap();
                let _ = write!(transcript, "\n$ cp shared/{name} {to}\n");
            }
            Step::Mkdir { path } => {
                std::fs::create_dir_all(dir.join(&path)).unwrap();
                let _ = write!(transcript, "\n$ mkdir {path}\n");
            }
            Step::Remove { path } => {
                std::fs::remove_file(dir.join(&path)).unwrap();
                let _ = write!(transcript, "\n$ rm {path}\n");
            }
            Step::Show { path } => {
                let text = std::fs::read_to_string(dir.join(&path)).unwrap();
                let _ = write!(transcript, "\n$ cat {path}\n{text}");
            }
            Step::Unreadable { path } => {
                // A dangling symlink: unreadable for every user, root included, unlike chmod 000.
                let file = dir.join(&path);
                std::fs::remove_file(&file).unwrap();
                std::os::unix::fs::symlink(dir.join("does-not-exist"), &file).unwrap();
                let _ = write!(transcript, "\n$ ln -sf does-not-exist {path}\n");
            }
        }
    }
    transcript
}

fn shared_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/shared")
}

#[test]
fn cases() {
    insta::glob!("../../testdata", "cases/*/case.yaml", |path| {
        let transcript = run_case(path);
        insta::assert_snapshot!(transcript);
    });
}
