//! Reading one file that an attacker may control: only regular files, never more than the size
//! cap, and never blocking. The cap is checked from the open file's metadata before a byte is
//! read, so a 2 GB file costs nothing, and the read itself stops one byte past the cap in case
//! the file grows meanwhile.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::byte_size::ByteSize;
use crate::error::Error;

/// Large enough for any real `tools/list` (the biggest public servers are well under 1 MiB),
/// small enough that a hostile file cannot exhaust a CI runner's memory.
pub const DEFAULT_MAX_FILE_SIZE: ByteSize = ByteSize(64 << 20);

/// Reads a file as UTF-8 under the default cap, with the line and column of the first invalid
/// byte when it is not UTF-8.
pub fn read_text(path: &Path) -> Result<String, Error> {
    read_text_within(path, DEFAULT_MAX_FILE_SIZE)
}

/// [`read_text`] under the cap `max` (`--max-file-size`, config `limits.max_file_size`).
pub fn read_text_within(path: &Path, max: ByteSize) -> Result<String, Error> {
    String::from_utf8(read_bytes(path, max)?).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.into_bytes();
        let prefix = String::from_utf8_lossy(bytes.get(..valid).unwrap_or_default()).into_owned();
        Error::at_offset(path, &prefix, valid, "the file is not valid UTF-8")
    })
}

pub fn read_bytes(path: &Path, max: ByteSize) -> Result<Vec<u8>, Error> {
    let cannot = |e: std::io::Error| cannot_read(path, e);
    let (file, len) = open_within(path, max)?;
    let mut bytes = read_large_in_parallel(&file, len)
        .unwrap_or_else(|| Vec::with_capacity(usize::try_from(len).unwrap_or(0)));
    // From where the parallel read stopped (or the start): to the end, whatever the file holds
    // by now, one byte past the cap at most.
    let read = bytes.len() as u64;
    let mut rest = &file;
    if read > 0 {
        rest.seek(SeekFrom::Start(read)).map_err(cannot)?;
    }
    rest.take(max.0.saturating_add(1).saturating_sub(read))
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > max.0 {
        return Err(too_large(path, bytes.len() as u64, max));
    }
    Ok(bytes)
}

/// Opens a regular file no larger than `max` (by its metadata) for reading, with its length;
/// whoever reads it stops one byte past the cap, in case it grows meanwhile.
pub fn open_within(path: &Path, max: ByteSize) -> Result<(File, u64), Error> {
    let cannot = |e: std::io::Error| cannot_read(path, e);
    let file = open_nonblocking(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta.file_type()));
    }
    if meta.len() > max.0 {
        return Err(too_large(path, meta.len(), max));
    }
    Ok((file, meta.len()))
}

pub fn cannot_read(path: &Path, e: std::io::Error) -> Error {
    Error::in_file(path, format!("cannot read: {e}"))
}

/// Files this large (a large workspace's lockfile: 370 MB for 100k tools) are read by every
/// thread at once, a piece each: one thread copying from the page cache into fresh pages was
/// a serial half second of loading a 100k-tool lock.
const PARALLEL_READ_MIN: u64 = 32 << 20;
const PARALLEL_READ_PIECE: usize = 8 << 20;

/// The first `len` bytes of `file`, read in pieces in parallel; `None` for a smaller file, on
/// a platform without positioned reads, or when a piece cannot be read (the file shrank): the
/// caller then reads it from the start, one piece after the other.
fn read_large_in_parallel(file: &File, len: u64) -> Option<Vec<u8>> {
    #[cfg(unix)]
    {
        use rayon::prelude::*;
        use std::os::unix::fs::FileExt;
        if len < PARALLEL_READ_MIN {
            return None;
        }
        let mut bytes = vec![0; usize::try_from(len).ok()?];
        bytes
            .par_chunks_mut(PARALLEL_READ_PIECE)
            .enumerate()
            .try_for_each(|(i, piece)| file.read_exact_at(piece, (i * PARALLEL_READ_PIECE) as u64))
            .ok()?;
        Some(bytes)
    }
    #[cfg(not(unix))]
    {
        let _ = (file, len);
        None
    }
}

/// Opening a FIFO for reading blocks until a writer appears; with `O_NONBLOCK` it returns at
/// once and the metadata check rejects it. A path checked at discovery can still be swapped for
/// a FIFO before it is opened, so the check belongs here. Regular files ignore the flag.
pub(super) fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

pub fn not_regular(path: &Path, kind: &std::fs::FileType) -> Error {
    Error::in_file(
        path,
        format!(
            "not a regular file ({}): not read",
            describe_file_type(kind)
        ),
    )
}

/// What a non-regular file is, in words.
pub fn describe_file_type(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symlink"
    } else {
        "an unknown kind of file"
    }
}

pub fn too_large(path: &Path, size: u64, max: ByteSize) -> Error {
    Error::in_file(
        path,
        format!("the file is {size} bytes, over the {max} limit: not read"),
    )
    .with_help(
        "raise the limit with `--max-file-size SIZE` or `limits: {max_file_size: SIZE}` in mcp-scan.yaml, if the file is genuine",
    )
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A file over the parallel read's threshold, whose last piece is a short one, reads back
    /// byte for byte; so does a small one.
    #[test]
    fn large_files_read_in_pieces_come_back_whole() {
        for len in [10, PARALLEL_READ_MIN as usize + PARALLEL_READ_PIECE / 2 + 7] {
            let content: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(&content).unwrap();
            let read = read_bytes(file.path(), ByteSize(len as u64)).unwrap();
            assert!(read == content, "{len} bytes");
            let error = read_bytes(file.path(), ByteSize(len as u64 - 1)).unwrap_err();
            assert!(error.to_string().contains("over the"), "{error}");
        }
    }
}
