//! Report renderers. Each takes the finished [`Report`]; none decides the exit code.

pub mod github;
pub mod json;
pub mod markdown;
pub mod paint;
pub mod sarif;
pub mod text;
pub mod word_diff;

use clap::ValueEnum;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable, with source excerpts and word diffs.
    #[default]
    Text,
    /// Machine-readable, stable shape (`version: 1`).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands: annotations on the pull request.
    Github,
    /// A pull-request summary, e.g. for `$GITHUB_STEP_SUMMARY`.
    Markdown,
}

/// "1 server", "2 servers": counts in messages read as English.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
