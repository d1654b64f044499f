//! Report renderers. Each takes the finished [`Report`]; none decides the exit code.

pub mod json;
pub mod paint;
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
}

/// "1 server", "2 servers": counts in messages read as English.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
