//! Text a run has let go of and reads again from its file when asked: a snapshot's text once
//! its own checks have run, a lockfile's stored definitions. What is read again must be what
//! was read first; a file edited meanwhile is remembered, and the run fails rather than report
//! on text it did not check (see [`crate::source::Sources::changed`]).

use std::fs::File;
use std::hash::BuildHasher;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, OnceLock};

use crate::byte_size::ByteSize;
use crate::input::read_text_within;
use crate::json::Span;

/// A file whose text is read again on demand.
#[derive(Debug)]
pub struct OnDisk {
    path: PathBuf,
    changed: AtomicBool,
    /// Opened at the first [`OnDisk::read_at`] and kept for the next (a lock's definitions
    /// are read back one by one: opening the file for each was a third of the reading).
    /// `None`: it could not be opened.
    #[cfg_attr(not(unix), allow(dead_code))]
    opened: OnceLock<Option<File>>,
}

impl OnDisk {
    pub fn new(path: PathBuf) -> OnDisk {
        OnDisk {
            path,
            changed: AtomicBool::new(false),
            opened: OnceLock::new(),
        }
    }

    /// A file already open, which may have no name (see [`crate::spill`]): read through
    /// `file`, named `label` in errors.
    #[cfg(unix)]
    pub fn opened(file: File, label: PathBuf) -> OnDisk {
        OnDisk {
            path: label,
            changed: AtomicBool::new(false),
            opened: OnceLock::from(Some(file)),
        }
    }

    /// The handle reads go through, once opened.
    #[cfg(unix)]
    pub fn handle(&self) -> Option<&File> {
        self.opened.get().and_then(Option::as_ref)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a read found the file no longer holding what was read first.
    pub fn changed(&self) -> bool {
        self.changed.load(Ordering::Relaxed)
    }

    /// The whole text, when it is still `sealed`.
    pub fn read_all(&self, sealed: Sealed) -> Option<String> {
        let text = read_text_within(&self.path, ByteSize(sealed.len as u64)).ok();
        self.verified(text.filter(|text| Sealed::of(text.as_bytes()) == sealed))
    }

    /// The bytes at `at`, when they are still `sealed`.
    pub fn read_at(&self, at: Span, sealed: Sealed) -> Option<Vec<u8>> {
        let bytes = self.read_span(at).ok();
        self.verified(bytes.filter(|bytes| Sealed::of(bytes) == sealed))
    }

    /// The bytes at `at`, read through the handle every thread shares.
    #[cfg(unix)]
    fn read_span(&self, at: Span) -> std::io::Result<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let opened = self.opened.get_or_init(|| File::open(&self.path).ok());
        let file = opened.as_ref().ok_or(std::io::ErrorKind::NotFound)?;
        let mut bytes = vec![0; at.end.saturating_sub(at.start)];
        file.read_exact_at(&mut bytes, at.start as u64)?;
        Ok(bytes)
    }

    /// The bytes at `at`, read through a handle of their own (a shared one would share its
    /// position between threads).
    #[cfg(not(unix))]
    fn read_span(&self, at: Span) -> std::io::Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = File::open(&self.path)?;
        file.seek(SeekFrom::Start(at.start as u64))?;
        let mut bytes = vec![0; at.end.saturating_sub(at.start)];
        file.read_exact(&mut bytes)?;
        Ok(bytes)
    }

    fn verified<T>(&self, read: Option<T>) -> Option<T> {
        if read.is_none() {
            self.changed.store(true, Ordering::Relaxed);
        }
        read
    }
}

/// What a text was, to tell whether reading its file again gives the same text: its length
/// and a hash of it under a key drawn at random for the run, so that no file can be written to
/// collide with another on purpose. Hashed block by block (see [`Sealer`]), so that a file read
/// in blocks as it streams in is sealed as its text read whole would be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sealed {
    len: usize,
    hash: u64,
}

impl Sealed {
    pub fn of(bytes: &[u8]) -> Sealed {
        let mut sealer = Sealer::default();
        for block in bytes.chunks(SEAL_BLOCK) {
            sealer.block(block);
        }
        sealer.sealed()
    }
}

/// How many bytes each hash covers: a file read as a stream is read in blocks of this size.
pub const SEAL_BLOCK: usize = 1 << 20;

/// Seals a text given block by block: every block [`SEAL_BLOCK`] bytes long but the last.
#[derive(Default)]
pub struct Sealer {
    len: usize,
    hash: u64,
}

impl Sealer {
    pub fn block(&mut self, block: &[u8]) {
        static KEY: LazyLock<foldhash::quality::RandomState> = LazyLock::new(Default::default);
        self.hash = KEY.hash_one((self.hash, block));
        self.len += block.len();
    }

    pub fn sealed(&self) -> Sealed {
        Sealed {
            len: self.len,
            hash: self.hash,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sealing block by block is sealing the whole; any edit, of the same length or not, breaks
    /// the seal.
    #[test]
    fn a_seal_is_the_same_however_the_text_arrives_and_breaks_on_any_edit() {
        let text: Vec<u8> = (0..SEAL_BLOCK * 2 + 17).map(|i| (i % 251) as u8).collect();
        let mut sealer = Sealer::default();
        for block in text.chunks(SEAL_BLOCK) {
            sealer.block(block);
        }
        assert_eq!(sealer.sealed(), Sealed::of(&text));
        let mut edited = text.clone();
        edited[SEAL_BLOCK + 3] ^= 1;
        assert_ne!(Sealed::of(&edited), Sealed::of(&text));
        assert_ne!(Sealed::of(&text[1..]), Sealed::of(&text));
        assert_ne!(Sealed::of(b"ab"), Sealed::of(b"ba"));
    }

    /// A range is read again as it was, and a file changed meanwhile is remembered.
    #[test]
    fn reads_a_range_again_and_remembers_a_changed_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "0123456789").unwrap();
        let file = OnDisk::new(path.clone());
        let at = Span { start: 2, end: 5 };
        let sealed = Sealed::of(b"234");
        assert_eq!(file.read_at(at, sealed).as_deref(), Some(&b"234"[..]));
        assert!(!file.changed());
        std::fs::write(&path, "01x3456789").unwrap();
        assert_eq!(file.read_at(at, sealed), None);
        assert!(file.changed());
    }
}
