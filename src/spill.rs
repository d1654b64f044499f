//! New definitions kept on disk rather than in memory until the lock is written.
//!
//! A fresh lock of 1M tools approves 1.8 GB of definitions as canonical bytes (3.7 GB as the
//! lock writes them), made as the snapshots are fingerprinted and needed again only when the
//! lock is rendered. Past a budget held in memory, each is appended to an unnamed temporary
//! file beside the lock (gone when the run ends, however it ends) and read back, sealed, as its
//! server is rendered.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::atomic_file::directory_of;
use crate::json::Span;
use crate::on_disk::OnDisk;

/// Up to this many bytes of definitions are held in memory, where holding them costs nothing;
/// past it they go to the file. A fresh lock of 100k tools approves 176 MB of them, all held
/// (held as the lock writes them, 283 MB, 27 MB went to the file).
const HELD_MAX: u64 = 256 << 20;

pub struct Spill {
    dir: PathBuf,
    /// Made when the first definition goes to it; `None` when it cannot be.
    file: OnceLock<Option<Arc<OnDisk>>>,
    /// Where the next definition goes: each writer takes its range, then writes it.
    end: AtomicU64,
    /// The bytes of definitions held in memory so far.
    held: AtomicU64,
}

impl Spill {
    /// A spill in the directory of `lock_path` (the lock is written there, so it has room).
    pub fn beside(lock_path: &Path) -> Spill {
        Spill {
            dir: directory_of(lock_path).to_path_buf(),
            file: OnceLock::new(),
            end: AtomicU64::new(0),
            held: AtomicU64::new(0),
        }
    }

    /// Takes `bytes` onto disk once the definitions held in memory reach [`HELD_MAX`]: the
    /// file and where they are in it; `None` when they are to be held in memory (within the
    /// budget, or when they could not be written).
    pub fn take(&self, bytes: &[u8]) -> Option<(&Arc<OnDisk>, Span)> {
        let len = bytes.len() as u64;
        if self.held.fetch_add(len, Ordering::Relaxed) + len <= HELD_MAX {
            return None;
        }
        self.append(bytes)
    }

    #[cfg(unix)]
    fn append(&self, bytes: &[u8]) -> Option<(&Arc<OnDisk>, Span)> {
        use std::os::unix::fs::FileExt;
        let file = self.file.get_or_init(|| {
            let file = tempfile::tempfile_in(&self.dir).ok()?;
            let label = self.dir.join("(mcp-scan's temporary file)");
            Some(Arc::new(OnDisk::opened(file, label)))
        });
        let file = file.as_ref()?;
        let start = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        file.handle()?.write_all_at(bytes, start).ok()?;
        let start = usize::try_from(start).ok()?;
        let span = Span {
            start,
            end: start + bytes.len(),
        };
        Some((file, span))
    }

    /// Held in memory: an unnamed file is read through the handle every thread shares, which
    /// only unix reads without a shared position.
    #[cfg(not(unix))]
    fn append(&self, _bytes: &[u8]) -> Option<(&Arc<OnDisk>, Span)> {
        None
    }

    /// A spill that holds nothing in memory.
    #[cfg(test)]
    pub fn on_disk_only(lock_path: &Path) -> Spill {
        let spill = Spill::beside(lock_path);
        spill.held.store(HELD_MAX, Ordering::Relaxed);
        spill
    }
}

#[cfg(all(test, unix))]
mod tests {
    use rayon::prelude::*;

    use super::*;
    use crate::on_disk::Sealed;

    /// Appends from many threads at once each read back as written, once the budget for
    /// memory is spent.
    #[test]
    fn reads_back_what_each_append_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("mcp.lock");
        assert!(
            Spill::beside(&lock).take(b"small").is_none(),
            "held in memory"
        );
        let spill = Spill::on_disk_only(&lock);
        let texts: Vec<String> = (0..500)
            .map(|i| format!("{i}:").repeat(i % 37 + 1))
            .collect();
        let spans: Vec<(Arc<OnDisk>, Span)> = texts
            .par_iter()
            .map(|text| {
                let (file, span) = spill.take(text.as_bytes()).unwrap();
                (Arc::clone(file), span)
            })
            .collect();
        for (text, (file, span)) in texts.iter().zip(spans) {
            let read = file.read_at(span, Sealed::of(text.as_bytes()));
            assert_eq!(read.as_deref(), Some(text.as_bytes()));
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "unnamed");
    }
}
