//! Reading one file that an attacker may control: only regular files, never more than the size
//! cap, and never blocking. The cap is checked from the open file's metadata before a byte is
//! read, so a 2 GB file costs nothing, and the read itself stops one byte past the cap in case
//! the file grows meanwhile.

use std::fs::{File, OpenOptions};
use std::io::Read;
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
    let cannot = |e: std::io::Error| Error::in_file(path, format!("cannot read: {e}"));
    let file = open_nonblocking(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta.file_type()));
    }
    if meta.len() > max.0 {
        return Err(too_large(path, meta.len(), max));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max.0.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > max.0 {
        return Err(too_large(path, bytes.len() as u64, max));
    }
    Ok(bytes)
}

/// Opening a FIFO for reading blocks until a writer appears; with `O_NONBLOCK` it returns at
/// once and the metadata check rejects it. A path checked at discovery can still be swapped for
/// a FIFO before it is opened, so the check belongs here. Regular files ignore the flag.
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
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

fn too_large(path: &Path, size: u64, max: ByteSize) -> Error {
    Error::in_file(
        path,
        format!("the file is {size} bytes, over the {max} limit: not read"),
    )
    .with_help(
        "raise the limit with `--max-file-size SIZE` or `limits: {max_file_size: SIZE}` in mcp-scan.yaml, if the file is genuine",
    )
}
