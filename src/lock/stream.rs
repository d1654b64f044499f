//! Reading a lockfile as a stream, which is how `check` reads it: the text arrives block by
//! block, each server is parsed and has its definitions hashed (for `lock-integrity`) as soon
//! as its text is complete, and then lets go of it, so a run never holds the whole text (370
//! MB for 100k tools), only what is being read. Its definitions stay in the file and are read
//! again, verified, where the run needs one (a drifted tool's fields).
//!
//! Only a lock that reads cleanly is read this way. Anything wrong with it (not JSON, not a
//! lock, a server that does not decode) sends the run back to reading the file whole
//! ([`Lock::load_within`]), which says exactly what is wrong and where.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use foldhash::HashMap;

use super::split::{ServerText, Splitter};
use super::{Lock, LockedServer, SERVERS, read_fingerprint, read_stored_server};
use crate::byte_size::ByteSize;
use crate::decode::Decoder;
use crate::error::Error;
use crate::fingerprint::{FieldDigests, FingerprintOptions};
use crate::input::{cannot_read, open_within, too_large};
use crate::json::seek::seek;
use crate::json::{Dialect, Limits, Pointer, Span, parse_deferring, parse_value_at};
use crate::on_disk::{OnDisk, SEAL_BLOCK, Sealer};
use crate::source::SourceFile;

/// How much server text may wait for a thread at once. Reading and splitting run ahead of
/// parsing; past this, the reading thread parses the next server itself rather than queue it.
const WAITING_MAX: usize = 64 << 20;

impl Lock {
    /// [`Lock::load_within`], reading the lockfile as a stream and keeping none of its text:
    /// its stored definitions, and its source for locations, are read again from the file
    /// where they are needed.
    pub fn stream_within(path: &Path, max: ByteSize) -> Result<Option<(Lock, SourceFile)>, Error> {
        Lock::stream_keeping(path, max, Kept::Everything)
    }

    /// [`Lock::stream_within`] for a scan, which keeps less: the field digests stored beside a
    /// definition that verified as stored (exactly what its text hashes to) are dropped as each
    /// server is read. A scan compares them with nothing but that hash (`lock-integrity`), and
    /// at 1M tools they were 400 MB of the lock's model. A lock read this way is not written.
    pub fn stream_for_scan(
        path: &Path,
        max: ByteSize,
    ) -> Result<Option<(Lock, SourceFile)>, Error> {
        Lock::stream_keeping(path, max, Kept::ForScan)
    }

    fn stream_keeping(
        path: &Path,
        max: ByteSize,
        kept: Kept,
    ) -> Result<Option<(Lock, SourceFile)>, Error> {
        if !path.exists() {
            return Ok(None);
        }
        match stream(path, max, kept)? {
            Some(loaded) => Ok(Some(loaded)),
            None => Lock::load_within(path, max),
        }
    }
}

/// What a lock read as a stream keeps of each server.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kept {
    Everything,
    /// See [`Lock::stream_for_scan`].
    ForScan,
}

/// The lock at `path`, read as a stream; `None` when it does not read cleanly.
fn stream(path: &Path, max: ByteSize, kept: Kept) -> Result<Option<(Lock, SourceFile)>, Error> {
    let (mut file, len_now) = open_within(path, max)?;
    let on_disk = Arc::new(OnDisk::new(path.to_path_buf()));
    let limits = Limits::default();
    let mut splitter = Splitter::default();
    let mut sealer = Sealer::default();
    // The options the definitions are hashed with: the lock's own, which mcp-scan writes
    // before its servers. Checked against what the whole lock decodes to, at the end.
    let options: OnceLock<FingerprintOptions> = OnceLock::new();
    // Each server read, by where it was hollowed out of the skeleton (`None`: not cleanly).
    let read: Mutex<HashMap<usize, Option<LockedServer>>> = Mutex::default();
    let waiting = AtomicUsize::new(0);
    let reader = ServerReader {
        path,
        limits,
        on_disk: &on_disk,
        kept,
    };
    rayon::scope(|scope| -> Result<(), Error> {
        // As long as the file, when that is less than a block (most locks): one more byte, to
        // see it end.
        let first = usize::try_from(len_now).map_or(SEAL_BLOCK, |len| len.saturating_add(1));
        let mut block = vec![0; first.min(SEAL_BLOCK)];
        let mut len = 0u64;
        loop {
            let n = fill(&mut file, &mut block).map_err(|e| cannot_read(path, e))?;
            if n == 0 {
                return Ok(());
            }
            len += n as u64;
            if len > max.0 {
                return Err(too_large(path, len, max));
            }
            let block = block.get(..n).unwrap_or_default();
            sealer.block(block);
            let servers = splitter.feed(block);
            if servers.is_empty() {
                continue;
            }
            let options = options.get_or_init(|| options_so_far(path, splitter.skeleton_so_far()));
            for server in servers {
                let size = server.text.len();
                let (read, waiting, reader) = (&read, &waiting, &reader);
                let run = move || {
                    let hollow = server.hollow;
                    let server = reader.read(server, options);
                    read.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(hollow, server);
                };
                if waiting.load(Ordering::Relaxed) > WAITING_MAX {
                    run();
                    continue;
                }
                waiting.fetch_add(size, Ordering::Relaxed);
                scope.spawn(move |_| {
                    run();
                    waiting.fetch_sub(size, Ordering::Relaxed);
                });
            }
        }
    })?;
    let Ok(skeleton) = String::from_utf8(splitter.finish()) else {
        return Ok(None);
    };
    let Ok(root) = parse_deferring(&skeleton, Dialect::Json, &limits, Some(SERVERS)) else {
        return Ok(None);
    };
    let skeleton = Arc::new(skeleton);
    let decoder = Decoder::new(path, &skeleton);
    let options = options.into_inner().unwrap_or_default();
    let mut read = read.into_inner().unwrap_or_else(|e| e.into_inner());
    let lock = Lock::decode(&root, &decoder, |member| {
        match read.remove(&member.value.span.start) {
            Some(Some(server)) => Ok(server),
            Some(None) => Err(decoder.error(&member.value, "read again whole")),
            // Not split out (not written as mcp-scan writes it): whole in the skeleton.
            None => read_stored_server(&skeleton, member.value.span, limits, &options, &decoder)
                .map_err(|_| decoder.error(&member.value, "read again whole")),
        }
    });
    match lock {
        Ok(lock) if lock.fingerprint == options => {
            Ok(Some((lock, SourceFile::on_disk(on_disk, sealer.sealed()))))
        }
        _ => Ok(None),
    }
}

/// What reading one server needs.
struct ServerReader<'a> {
    path: &'a Path,
    limits: Limits,
    on_disk: &'a Arc<OnDisk>,
    kept: Kept,
}

impl ServerReader<'_> {
    /// One server, its definitions hashed with `options` and left in the file; `None` when it
    /// does not read cleanly.
    fn read(&self, server: ServerText, options: &FingerprintOptions) -> Option<LockedServer> {
        let text = Arc::new(String::from_utf8(server.text).ok()?);
        let span = Span {
            start: 0,
            end: text.len(),
        };
        let decoder = Decoder::new(self.path, &text);
        let mut locked = read_stored_server(&text, span, self.limits, options, &decoder).ok()?;
        for tool in locked.tools.values_mut() {
            tool.definition.leave_on_disk(self.on_disk, server.offset);
            if self.kept == Kept::ForScan && tool.definition.verified_as_stored() {
                tool.fields = FieldDigests::default();
            }
        }
        Some(locked)
    }
}

/// The lock's fingerprint options, from the part of the document read so far; the defaults
/// when it holds none (they are checked once the whole lock is read).
fn options_so_far(path: &Path, skeleton: &[u8]) -> FingerprintOptions {
    let options = || {
        let text = std::str::from_utf8(skeleton).ok()?;
        let found = seek(text, &Pointer::root().key("fingerprint"))?;
        let node =
            parse_value_at(text, found.value, Dialect::Json, &Limits::default(), None).ok()?;
        read_fingerprint(&node, &Decoder::new(path, text)).ok()
    };
    options().unwrap_or_default()
}

/// Reads into `block` until it holds [`SEAL_BLOCK`] bytes or the file ends (growing it to a
/// block's size if it was smaller); how much was read. Blocks are full but the last, as sealing
/// a text block by block requires.
fn fill(file: &mut File, block: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut filled = 0;
    loop {
        if filled == block.len() {
            if block.len() >= SEAL_BLOCK {
                return Ok(filled);
            }
            block.resize(SEAL_BLOCK, 0);
        }
        match file.read(block.get_mut(filled..).unwrap_or_default()) {
            Ok(0) => return Ok(filled),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::canonical::to_canonical_vec;
    use crate::json::parse;
    use crate::source::Sources;

    const MAX: ByteSize = ByteSize(1 << 30);

    fn example() -> String {
        std::fs::read_to_string("testdata/example/mcp.lock").unwrap()
    }

    /// What a test compares of a lock: the file it renders to (every definition read back)
    /// and what `lock-integrity` finds of each definition.
    fn seen(lock: &Lock) -> (String, Vec<String>) {
        let integrity = lock
            .servers
            .values()
            .flat_map(|s| s.tools.values())
            .map(|t| format!("{:?}", t.definition.integrity(&lock.fingerprint)))
            .collect();
        (lock.render(), integrity)
    }

    /// A lock read as a stream is the lock read whole, whether it is written as mcp-scan
    /// writes it or otherwise: on one line, with the `servers` key spelled with an escape
    /// (not split, read from the skeleton), under other fingerprint options, with a definition
    /// edited by hand; and its source is the file's text.
    #[test]
    fn a_streamed_lock_is_the_lock_read_whole() {
        let pretty = example();
        let one_line = String::from_utf8(to_canonical_vec(
            &parse(&pretty, Dialect::Json, &Limits::default()).unwrap(),
        ))
        .unwrap();
        let variants = [
            pretty.clone(),
            one_line.clone(),
            pretty.replacen("\"servers\": {", "\"serv\\u0065rs\": {", 1),
            pretty.replacen("\"exclude\": []", "\"exclude\": [\"title\"]", 1),
            pretty.replacen("List files and directories", "List every file", 1),
        ];
        // Laid out otherwise inside: a server's closing line five spaces in (the search for
        // its end runs on into the next server's), and an inner object closed four spaces in
        // (the search stops inside the server). The texts cut so are not JSON values, and
        // these locks are read whole, to the same lock.
        let ragged = [
            pretty.replacen("\n    },\n", "\n     },\n", 1),
            pretty.replacen("\n          },\n", "\n    },\n", 1),
        ];
        for text in &ragged {
            assert_ne!(text, &pretty);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.lock");
        for text in variants {
            std::fs::write(&path, &text).unwrap();
            let (whole, _) = Lock::load_within(&path, MAX).unwrap().unwrap();
            let (streamed, source) = Lock::stream_within(&path, MAX).unwrap().unwrap();
            assert_eq!(seen(&streamed), seen(&whole), "{text}");
            // Streamed indeed, not read whole again.
            assert!(source.text_freed());
            assert_eq!(source.text(), text);
            let mut sources = Sources::default();
            sources.add(source);
            sources.changed().unwrap();
        }
        for text in ragged {
            std::fs::write(&path, &text).unwrap();
            let (whole, _) = Lock::load_within(&path, MAX).unwrap().unwrap();
            let (streamed, source) = Lock::stream_within(&path, MAX).unwrap().unwrap();
            assert_eq!(seen(&streamed), seen(&whole), "{text}");
            assert!(!source.text_freed(), "{text}");
        }
    }

    /// Whatever its layout, a lock read as a stream is the lock read whole. The example lock's
    /// tokens are laid out anew 200 times, each gap between them (after `{`, `[`, `,` and
    /// `:`, before `}` and `]`) left empty, a space, or a line break and 0–11 spaces, four
    /// spaces twice as often (a line the split takes for a server's end): some servers split
    /// as mcp-scan writes them, some are cut short or run on and read whole.
    #[test]
    fn a_lock_in_any_layout_streams_as_it_reads_whole() {
        let one_line = String::from_utf8(to_canonical_vec(
            &parse(&example(), Dialect::Json, &Limits::default()).unwrap(),
        ))
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.lock");
        let mut seed = 0x5eed_u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let mut gap = |out: &mut String| match next(16) {
            0..=3 => {}
            4..=5 => out.push(' '),
            6..=8 => out.push_str("\n    "),
            _ => {
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', next(12) as usize));
            }
        };
        let (mut read_as_stream, mut read_whole) = (0, 0);
        for _ in 0..200 {
            let mut text = String::new();
            let (mut in_string, mut escaped) = (false, false);
            for c in one_line.chars() {
                if in_string {
                    text.push(c);
                    (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\');
                    continue;
                }
                if matches!(c, '}' | ']') {
                    gap(&mut text);
                }
                text.push(c);
                in_string = c == '"';
                if matches!(c, '{' | '[' | ',' | ':') {
                    gap(&mut text);
                }
            }
            std::fs::write(&path, &text).unwrap();
            let (whole, _) = Lock::load_within(&path, MAX).unwrap().unwrap();
            let (streamed, source) = Lock::stream_within(&path, MAX).unwrap().unwrap();
            assert_eq!(seen(&streamed), seen(&whole), "{text}");
            if source.text_freed() {
                read_as_stream += 1;
            } else {
                read_whole += 1;
            }
        }
        // Both ways were taken.
        assert!(
            read_as_stream > 0 && read_whole > 0,
            "{read_as_stream} {read_whole}"
        );
    }

    /// A lock read for a scan drops the field digests of the definitions that verified as
    /// stored, and keeps the others (here one edited by hand), which `lock-integrity` compares.
    #[test]
    fn a_lock_read_for_a_scan_keeps_the_field_digests_integrity_compares() {
        let pretty = example();
        let at = pretty.find("\"description\": \"sha256:").unwrap() + 23;
        let edited = format!("{}0{}", &pretty[..at], &pretty[at + 1..]);
        assert_ne!(edited, pretty);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.lock");
        for (text, edits) in [(&pretty, 0), (&edited, 1)] {
            std::fs::write(&path, text).unwrap();
            let (whole, _) = Lock::load_within(&path, MAX).unwrap().unwrap();
            let (scanned, _) = Lock::stream_for_scan(&path, MAX).unwrap().unwrap();
            let (mut dropped, mut kept) = (0, 0);
            for (name, server) in &whole.servers {
                for (tool, stored) in &server.tools {
                    let read = &scanned.servers[name].tools[tool];
                    if stored.definition.verified_as_stored() {
                        assert_eq!(read.fields, FieldDigests::default(), "{tool}");
                        dropped += 1;
                    } else {
                        assert_eq!(read.fields, stored.fields, "{tool}");
                        kept += 1;
                    }
                }
            }
            assert_eq!(kept, edits);
            assert!(dropped > 0);
        }
    }

    /// A lock the stream cannot read cleanly is read whole, and the error is the one reading
    /// it whole gives, at the same line and column.
    #[test]
    fn a_lock_that_does_not_read_cleanly_fails_as_when_read_whole() {
        let pretty = example();
        let broken = [
            pretty.replacen("\"readOnlyHint\": true", "\"readOnlyHint\": tru", 1),
            pretty.replacen("\"baselineVersion\": 1", "\"baselineVersion\": \"1\"", 1),
            pretty.replacen("\"version\": 1", "\"version\": 99", 1),
            pretty.replacen("  \"servers\"", "<<<<<<< ours\n  \"servers\"", 1),
            pretty.get(..pretty.len() / 2).unwrap().to_string(),
            pretty.replacen("List files", "List \u{0} files", 1),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.lock");
        for text in broken {
            assert_ne!(text, pretty);
            std::fs::write(&path, &text).unwrap();
            let whole = Lock::load_within(&path, MAX).map(|_| ()).unwrap_err();
            let streamed = Lock::stream_within(&path, MAX).map(|_| ()).unwrap_err();
            assert_eq!(streamed.to_string(), whole.to_string());
        }
    }

    /// A definition read again from a lockfile edited since is not taken: it reads as nothing,
    /// and the run is told the file changed.
    #[test]
    fn a_definition_read_again_from_a_changed_lock_is_refused() {
        let pretty = example();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.lock");
        std::fs::write(&path, &pretty).unwrap();
        let (lock, source) = Lock::stream_within(&path, MAX).unwrap().unwrap();
        let definition = |lock: &Lock| {
            lock.servers["filesystem"].tools["list_directory"]
                .definition
                .node()
                .into_owned()
        };
        let before = definition(&lock);
        assert_eq!(
            before.get("name").and_then(crate::json::Node::as_str),
            Some("list_directory")
        );
        let mut sources = Sources::default();
        sources.add(source);
        std::fs::write(&path, pretty.replacen("[FILE]", "[FIL!]", 1)).unwrap();
        assert!(definition(&lock).is_null());
        let error = sources.changed().unwrap_err().to_string();
        assert!(error.contains("mcp.lock changed while"), "{error}");
    }
}
