//! Which files a run reads: explicit files always, and under directories every `*.json`, walked
//! in sorted order so that output never depends on the file system's listing order.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::error::Error;

/// Directories that hold other tools' data, never snapshots; walking them only costs time.
const SKIPPED_DIRS: [&str; 3] = [".git", "node_modules", "target"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub path: PathBuf,
    /// Named on the command line: a file that is not a snapshot is then an error, not a skip.
    pub explicit: bool,
}

pub fn discover(paths: &[PathBuf], exclude: &[PathBuf]) -> Result<Vec<Candidate>, Error> {
    let excluded: Vec<PathBuf> = exclude
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let is_excluded = |p: &Path| p.canonicalize().is_ok_and(|c| excluded.contains(&c));
    let mut out = Vec::new();
    for root in paths {
        let meta = std::fs::metadata(root)
            .map_err(|e| Error::in_file(root, format!("cannot read: {e}")))?;
        if !meta.is_dir() {
            out.push(Candidate {
                path: root.clone(),
                explicit: true,
            });
            continue;
        }
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
            if entry.file_type().is_file()
                && path.extension().is_some_and(|ext| ext == "json")
                && !is_excluded(path)
            {
                out.push(Candidate {
                    path: path.to_path_buf(),
                    explicit: false,
                });
            }
        }
    }
    Ok(out)
}
