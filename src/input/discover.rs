//! Which files a run reads: explicit files always, and under directories every `*.json`, walked
//! in sorted order so that output never depends on the file system's listing order.
//!
//! A walk reads only what is inside the tree it was given. Symlinked files are followed when
//! their target is inside that tree; a symlink leading out of it is skipped with a note, because
//! a pull request could otherwise point `snapshots/x.json` at a file of the CI runner (a secret,
//! `/proc/self/environ`) and have its content quoted in error messages. Symlinked directories
//! are never followed: that rules out loops and scanning one file twice. FIFOs, sockets and
//! devices are skipped with a note (reading them could block or never end). A path named on the
//! command line is the user's choice and is followed wherever it leads, but it must still be a
//! regular file or a directory.

use std::path::{Path, PathBuf};

use walkdir::{DirEntry, WalkDir};

use super::Skipped;
use super::read::{describe_file_type, not_regular};
use crate::error::Error;

/// Directories that hold other tools' data, never snapshots; walking them only costs time.
const SKIPPED_DIRS: [&str; 3] = [".git", "node_modules", "target"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub path: PathBuf,
    /// Named on the command line: a file that is not a snapshot is then an error, not a skip.
    pub explicit: bool,
}

#[derive(Debug, Default)]
pub struct Discovered {
    pub candidates: Vec<Candidate>,
    /// `*.json` entries of a walk that are not read, and why.
    pub skipped: Vec<Skipped>,
}

pub fn discover(paths: &[PathBuf], exclude: &[PathBuf]) -> Result<Discovered, Error> {
    let excluded: Vec<PathBuf> = exclude
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    // Only a walked file named as an excluded one is, or a symlink (whose target's name may
    // differ), so only those are resolved: resolving a path costs a `readlink` for each of its
    // components, 25k of them for the 5k files of 100k tools before any file was read.
    let is_excluded = |entry: &DirEntry| {
        let path = entry.path();
        let may_be =
            entry.path_is_symlink() || excluded.iter().any(|c| c.file_name() == path.file_name());
        may_be && path.canonicalize().is_ok_and(|c| excluded.contains(&c))
    };
    let mut out = Discovered::default();
    for root in paths {
        let meta = std::fs::metadata(root)
            .map_err(|e| Error::in_file(root, format!("cannot read: {e}")))?;
        if meta.is_file() {
            out.candidates.push(Candidate {
                path: root.clone(),
                explicit: true,
            });
            continue;
        }
        if !meta.is_dir() {
            return Err(not_regular(root, &meta.file_type()));
        }
        let tree = root
            .canonicalize()
            .map_err(|e| Error::in_file(root, format!("cannot read: {e}")))?;
        let walker = WalkDir::new(root)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !(e.file_type().is_dir() && SKIPPED_DIRS.iter().any(|d| e.file_name() == *d))
            });
        for entry in walker {
            let entry = entry.map_err(|e| {
                let path = e.path().unwrap_or(root).to_path_buf();
                Error::in_file(&path, format!("cannot read: {e}"))
            })?;
            let path = entry.path();
            if entry.file_type().is_dir()
                || path.extension().is_none_or(|ext| ext != "json")
                || is_excluded(&entry)
            {
                continue;
            }
            match walked_file(&entry, &tree) {
                Ok(()) => out.candidates.push(Candidate {
                    path: path.to_path_buf(),
                    explicit: false,
                }),
                Err(reason) => out.skipped.push(Skipped {
                    path: path.to_path_buf(),
                    reason,
                }),
            }
        }
    }
    Ok(out)
}

/// Whether a `*.json` entry of a walk under `tree` (canonical) is read, or why not.
fn walked_file(entry: &DirEntry, tree: &Path) -> Result<(), String> {
    let kind = entry.file_type();
    if kind.is_file() {
        return Ok(());
    }
    if !kind.is_symlink() {
        return Err(format!(
            "{}, not a regular file: not read",
            describe_file_type(&kind)
        ));
    }
    let target = entry
        .path()
        .canonicalize()
        .map_err(|e| format!("a symlink that does not resolve ({e}): not followed"))?;
    // The target is not named: where it leads is the runner's business, not the log's.
    if !target.starts_with(tree) {
        return Err("a symlink leading outside the scanned directory: not followed".to_owned());
    }
    let meta = std::fs::metadata(&target)
        .map_err(|e| format!("a symlink whose target cannot be read ({e}): not followed"))?;
    if meta.is_file() {
        Ok(())
    } else {
        Err(format!(
            "a symlink to {}: not followed",
            describe_file_type(&meta.file_type())
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An excluded file is passed over however the walk reaches it: by its own path, or by a
    /// symlink under another name; a file of the same name elsewhere is read.
    #[test]
    fn excluded_files_are_passed_over_by_path_and_by_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        for file in ["a.json", "lock.json", "sub/lock.json"] {
            std::fs::write(root.join(file), "{}").unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("lock.json"), root.join("link.json")).unwrap();
        // Named through a path that resolves to it, as a user may.
        let exclude = [root.join("sub/../lock.json")];
        let found = discover(&[root.to_path_buf()], &exclude).unwrap();
        let names: Vec<String> = found
            .candidates
            .iter()
            .map(|c| c.path.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["a.json", "sub/lock.json"]);
        assert!(found.skipped.is_empty());
    }
}
