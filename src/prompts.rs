//! Prompt pinning: files an agent loads as instructions (system prompts, `AGENTS.md`, tool
//! definition files) named in the config's `prompts`, pinned by digest in `mcp.lock` so that a
//! changed prompt is drift, like a changed tool.

use std::collections::BTreeMap;
use std::path::PathBuf;

use globset::GlobBuilder;
use walkdir::WalkDir;

use crate::error::Error;
use crate::fingerprint::{Algorithm, bytes_digest};
use crate::input::{DEFAULT_MAX_FILE_SIZE, read_bytes};
use crate::source::{SourceFile, SourceId, Sources, display_path};

/// Directories never searched for prompts: other tools' data.
const SKIPPED_DIRS: [&str; 3] = [".git", "node_modules", "target"];

const WILDCARDS: [char; 4] = ['*', '?', '[', '{'];

/// A prompt file as read by this run.
#[derive(Clone, Debug)]
pub struct PromptFile {
    /// The key in the lock: the path relative to the working directory, forward slashes.
    pub path: String,
    pub source: SourceId,
    pub digest: String,
}

/// Every file the patterns match, sorted and without duplicates. A pattern that matches
/// nothing is an error: a typo must not silently unpin a prompt.
pub fn find(patterns: &[String]) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    for pattern in patterns {
        let before = found.len();
        let base = literal_base(pattern);
        if !pattern.contains(WILDCARDS) {
            if base.is_file() {
                found.push(base);
            }
        } else {
            let matcher = GlobBuilder::new(pattern.trim_start_matches("./"))
                .literal_separator(true)
                .build()
                .map_err(|e| Error::new(format!("invalid `prompts` pattern `{pattern}`: {e}")))?
                .compile_matcher();
            let walker = WalkDir::new(&base)
                .sort_by_file_name()
                .into_iter()
                .filter_entry(|e| {
                    e.depth() == 0 || !SKIPPED_DIRS.iter().any(|d| e.file_name() == *d)
                });
            for entry in walker.filter_map(Result::ok) {
                let relative = display_path(entry.path());
                if entry.file_type().is_file() && matcher.is_match(&relative) {
                    found.push(PathBuf::from(relative));
                }
            }
        }
        if found.len() == before {
            return Err(Error::new(format!(
                "the `prompts` entry `{pattern}` matches no file"
            ))
            .with_help("fix the path or pattern in mcp-scan.yaml (paths are relative to the working directory)"));
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// The directory a pattern's walk starts from: its leading components without wildcards.
fn literal_base(pattern: &str) -> PathBuf {
    let literal: Vec<&str> = pattern
        .trim_start_matches("./")
        .split('/')
        .take_while(|part| !part.contains(WILDCARDS))
        .collect();
    if literal.is_empty() {
        PathBuf::from(".")
    } else {
        PathBuf::from(literal.join("/"))
    }
}

/// Reads and digests every matched prompt, adding each as a source of the run.
pub fn load(
    patterns: &[String],
    algorithm: Algorithm,
    sources: &mut Sources,
) -> Result<Vec<PromptFile>, Error> {
    let mut prompts = Vec::new();
    for path in find(patterns)? {
        let bytes = read_bytes(&path, DEFAULT_MAX_FILE_SIZE)?;
        let digest = bytes_digest(algorithm, &bytes).to_string();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let key = display_path(&path);
        let source = sources.add(SourceFile::new(path, text, None));
        prompts.push(PromptFile {
            path: key,
            source,
            digest,
        });
    }
    Ok(prompts)
}

/// The `prompts` section of a new lock.
pub fn pin(patterns: &[String], algorithm: Algorithm) -> Result<BTreeMap<String, String>, Error> {
    let mut sources = Sources::default();
    Ok(load(patterns, algorithm, &mut sources)?
        .into_iter()
        .map(|p| (p.path, p.digest))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_bases() {
        assert_eq!(literal_base("prompts/**/*.md"), PathBuf::from("prompts"));
        assert_eq!(literal_base("./a/b/c.md"), PathBuf::from("a/b/c.md"));
        assert_eq!(literal_base("*.md"), PathBuf::from("."));
        assert_eq!(literal_base("a/{x,y}.md"), PathBuf::from("a"));
    }
}
