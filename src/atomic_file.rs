//! Writing a file so that readers see the old content or the new, never half of either, and
//! leaving it untouched when it already holds the new content (its modification time does not
//! move). The content is written as it is produced, so a large file (a lock of 100k tools is
//! 370 MB) is never a whole copy in memory, to write or to compare.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{SyncSender, sync_channel};

use tempfile::NamedTempFile;

/// Buffered writes go out in few system calls: most of what is written comes in pieces of a
/// few kilobytes.
const BUFFER: usize = 1 << 20;

/// The directory a file at `path` is in: `.` for a bare file name.
pub fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to `path` atomically; whether the file changed.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let fill = |out: &mut (dyn Write + Send)| out.write_all(bytes);
    if holds(path, fill)? {
        return Ok(false);
    }
    stage(path, fill)?.persist()?;
    Ok(true)
}

/// A file written in full beside the one it replaces, not yet in its place: dropped, it is
/// deleted.
pub struct Staged {
    tmp: NamedTempFile,
    path: PathBuf,
}

impl Staged {
    /// Renames the staged file over the one it replaces.
    pub fn persist(self) -> io::Result<()> {
        self.tmp.persist(&self.path).map(drop).map_err(|e| e.error)
    }
}

/// Writes what `fill` writes to a temporary file in `path`'s directory and syncs it, ready to
/// take `path`'s place.
pub fn stage(
    path: &Path,
    fill: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<()>,
) -> io::Result<Staged> {
    stage_syncing_every(path, fill, SYNC_EVERY)
}

/// How much is written between two requests to put it on the disk (see [`SyncingBehind`]).
const SYNC_EVERY: u64 = 32 << 20;

fn stage_syncing_every(
    path: &Path,
    fill: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<()>,
    sync_every: u64,
) -> io::Result<Staged> {
    let tmp = tempfile::Builder::new()
        .prefix(".mcp-scan.")
        .tempfile_in(directory_of(path))?;
    let file = tmp.as_file();
    // The scope waits for the syncing thread, which ends when the writer is dropped.
    std::thread::scope(|scope| {
        let mut out = BufWriter::with_capacity(BUFFER, SyncingBehind::new(file, scope, sync_every));
        fill(&mut out)?;
        out.flush()
    })?;
    file.sync_all()?;
    Ok(Staged {
        tmp,
        path: path.to_path_buf(),
    })
}

/// Writes to a file, and each time another `sync_every` bytes are written asks a thread of its
/// own to put what the file holds so far on the disk, while the writing goes on. Written in one
/// go, a 370 MB lock left all of it to the final sync (0.12–0.13 s on the development VM), and
/// the writes took longer too, the dirty pages piling up: in a test writing 370 MB, 0.31–0.35 s
/// of writes and a 0.12–0.13 s sync, against 0.10–0.13 s and 0.02 s syncing behind.
///
/// It sits behind the buffer, which copies every write into itself (vectored ones too: this
/// writer does not claim to take them, which stable Rust cannot say) and hands the file a
/// mebibyte at a time. Handed to the file as they come, in vectored writes of up to 1024
/// pieces (a definition of a few kilobytes, the keys and digests between two), a fresh 100k
/// lock's pieces took twice the system time, on the disk as on tmpfs (0.5 → 1.1 s): the
/// kernel's cost per piece is far above the copy's.
struct SyncingBehind<'scope, 'file> {
    file: &'file File,
    scope: &'scope std::thread::Scope<'scope, 'file>,
    sync_every: u64,
    written: u64,
    next_sync: u64,
    /// Wakes the syncing thread: `None` until the first request (a small file never starts
    /// one), or when it could not be started (the final sync then does it all).
    requests: Option<SyncSender<()>>,
}

impl<'scope, 'file> SyncingBehind<'scope, 'file> {
    fn new(
        file: &'file File,
        scope: &'scope std::thread::Scope<'scope, 'file>,
        sync_every: u64,
    ) -> Self {
        SyncingBehind {
            file,
            scope,
            sync_every,
            written: 0,
            next_sync: sync_every,
            requests: None,
        }
    }

    fn wrote(&mut self, bytes: usize) {
        self.written += bytes as u64;
        if self.written < self.next_sync {
            return;
        }
        self.next_sync = self.written + self.sync_every;
        let requests = match &self.requests {
            Some(requests) => requests,
            None => {
                let (requests, wakes) = sync_channel::<()>(1);
                let file = self.file;
                let started = std::thread::Builder::new()
                    .name("sync-behind".into())
                    .spawn_scoped(self.scope, move || {
                        // A sync that fails here fails again at the final one, which is
                        // reported.
                        for () in wakes {
                            let _ = file.sync_data();
                        }
                    });
                if started.is_err() {
                    return;
                }
                self.requests.insert(requests)
            }
        };
        // Full: a request is waiting already, and its sync will take this stretch too.
        let _ = requests.try_send(());
    }
}

impl Write for SyncingBehind<'_, '_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.file.write(bytes)?;
        self.wrote(written);
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Whether the file at `path` holds exactly what `fill` writes (false when there is no file):
/// compared as it is written, and `fill` is stopped at the first difference.
pub fn holds(
    path: &Path,
    fill: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<()>,
) -> io::Result<bool> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let mut compared = Comparing {
        file: BufReader::with_capacity(BUFFER, file),
        scratch: Vec::new(),
    };
    match fill(&mut compared) {
        Ok(()) => {}
        Err(e) if e.get_ref().is_some_and(|inner| inner.is::<Differs>()) => return Ok(false),
        Err(e) => return Err(e),
    }
    // The file must end where the content does.
    let mut past = [0u8; 1];
    Ok(compared.file.read(&mut past)? == 0)
}

/// A writer that reads the file beside what is written to it, and fails with [`Differs`] at
/// the first byte they disagree on.
struct Comparing {
    file: BufReader<File>,
    scratch: Vec<u8>,
}

/// The error [`Comparing`] stops a write with.
#[derive(Debug)]
struct Differs;

impl std::fmt::Display for Differs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the file differs")
    }
}

impl std::error::Error for Differs {}

impl Write for Comparing {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.scratch.resize(bytes.len(), 0);
        match self.file.read_exact(&mut self.scratch) {
            Ok(()) if self.scratch == bytes => Ok(bytes.len()),
            Err(e) if e.kind() != io::ErrorKind::UnexpectedEof => Err(e),
            _ => Err(io::Error::other(Differs)),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writes<'a>(
        pieces: &'a [&'a str],
    ) -> impl FnOnce(&mut (dyn Write + Send)) -> io::Result<()> + 'a {
        move |out| pieces.iter().try_for_each(|p| out.write_all(p.as_bytes()))
    }

    /// Content given in pieces is compared as one, to the end of the file and no further.
    #[test]
    fn holds_exactly_the_bytes_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        assert!(!holds(&path, writes(&["x"])).unwrap(), "no file");
        std::fs::write(&path, "abcd").unwrap();
        assert!(holds(&path, writes(&["ab", "", "cd"])).unwrap());
        for other in [&["abc"][..], &["abcde"], &["ab", "dc"], &[""]] {
            assert!(!holds(&path, writes(other)).unwrap(), "{other:?}");
        }
        let mut written = 0;
        let stopped = holds(&path, |out| {
            for piece in ["a", "x", "c", "d"] {
                out.write_all(piece.as_bytes())?;
                written += 1;
            }
            Ok(())
        });
        assert!(!stopped.unwrap());
        assert_eq!(written, 1, "stopped at the first difference");
    }

    /// A staged file replaces the old one only when persisted; `write` leaves identical
    /// content alone.
    #[test]
    fn stages_then_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "old").unwrap();
        let staged = stage(&path, writes(&["new"])).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        drop(staged);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "deleted");
        stage(&path, writes(&["ne", "w"]))
            .unwrap()
            .persist()
            .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert!(!write(&path, b"new").unwrap());
        assert!(write(&path, b"newer").unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "newer");
    }

    /// Syncing behind the writes, started partway and asked again and again, leaves the
    /// content as written, by plain and by vectored writes.
    #[test]
    fn content_is_whole_when_synced_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let pieces: Vec<String> = (0..2000).map(|i| format!("piece {i}\n")).collect();
        let staged = stage_syncing_every(
            &path,
            |out| {
                for (i, pair) in pieces.chunks(2).enumerate() {
                    if i % 2 == 0 {
                        out.write_all(pair.concat().as_bytes())?;
                    } else {
                        // Vectored writes, as the lock's renderer makes them, into the buffer.
                        let mut slices: Vec<io::IoSlice<'_>> = pair
                            .iter()
                            .map(|p| io::IoSlice::new(p.as_bytes()))
                            .collect();
                        let mut slices = slices.as_mut_slice();
                        while !slices.is_empty() {
                            let written = out.write_vectored(slices)?;
                            io::IoSlice::advance_slices(&mut slices, written);
                        }
                    }
                    out.flush()?;
                }
                Ok(())
            },
            64,
        );
        staged.unwrap().persist().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), pieces.concat());
    }
}
