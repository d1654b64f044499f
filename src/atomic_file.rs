//! Writing a file so that readers see the old content or the new, never half of either.

use std::path::Path;

use crate::pieces::{same_bytes, write_all};

/// Writes `pieces`, one after the other, to a temporary file in `path`'s directory, syncs
/// it, then renames it over `path`. Returns whether the file changed: identical content is
/// left untouched, so its modification time does not move.
pub fn write(path: &Path, pieces: &[impl AsRef<[u8]>]) -> std::io::Result<bool> {
    if std::fs::read(path).is_ok_and(|old| same_bytes(pieces, &old)) {
        return Ok(false);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".mcp-scan.")
        .tempfile_in(dir)?;
    write_all(tmp.as_file_mut(), pieces)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(true)
}
