//! Writing a file so that readers see the old content or the new, never half of either.

use std::io::Write;
use std::path::Path;

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
    // Most pieces are a few kilobytes: buffered, they go out in few system calls.
    let mut out = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
    for piece in pieces {
        out.write_all(piece.as_ref())?;
    }
    out.flush()?;
    drop(out);
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(true)
}

/// Whether `pieces`, one after the other, are exactly `bytes`.
pub fn same_bytes(pieces: &[impl AsRef<[u8]>], bytes: &[u8]) -> bool {
    let mut rest = bytes;
    for piece in pieces {
        match rest.strip_prefix(piece.as_ref()) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}
