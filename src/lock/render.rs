//! Writing a lock: pretty JSON with sorted keys, rendered from the model alone, as a stream.
//!
//! A large lock (370 MB for 100k tools) is never a whole copy in memory: its servers are
//! rendered in parallel a batch at a time, and written out in order, to the file or to a
//! comparison with the file already there, while the next batch renders. Definitions kept
//! from the previous lock are read back from it as their batch is rendered.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, IoSlice, Write};
use std::path::Path;

use rayon::prelude::*;

use super::definition::{DEFINITION_INDENT, Definition};
use super::{
    Baseline, FORMAT_VERSION, GENERATED, GENERATED_KEY, Lock, LockedServer, LockedTool,
    SERVER_INDENT,
};
use crate::atomic_file;
use crate::error::Error;
use crate::fingerprint::{self, DigestText, FieldDigests};
use crate::json::canonical::{
    Pieces, Pretty, compare_keys, write_pretty_at, write_pretty_object_pieces,
    write_pretty_object_with, write_pretty_pieces, write_string_into,
};
use crate::json::{Node, Object};
use crate::source::display_path;

/// How many tools' servers are rendered at once: enough to keep every thread busy, few enough
/// that their definitions (about 3.7 KB each) take a few megabytes.
const BATCH_TOOLS: usize = 4096;

impl Lock {
    /// The exact bytes of the lockfile for this model.
    pub fn render(&self) -> String {
        let mut bytes = Vec::new();
        // Writing into a Vec cannot fail.
        let _ = self.write_to(&mut bytes);
        // Only valid UTF-8 is ever written, so the lossy path is never taken.
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// Writes the lockfile's bytes to `out`, in order, stopping at the first error.
    pub fn write_to(&self, out: &mut (dyn Write + Send)) -> io::Result<()> {
        let mut top: Vec<(&str, Option<Vec<u8>>)> = self
            .rendered_top()
            .into_iter()
            .map(|(key, bytes)| (key, Some(bytes)))
            .collect();
        top.push(("servers", None));
        top.sort_by(|a, b| compare_keys(a.0, b.0));
        let mut servers = ServerStream::new(self, out);
        let mut glue = Vec::new();
        write_pretty_object_with(top, 0, &mut glue, |value, glue| match value {
            Some(bytes) => glue.extend_from_slice(&bytes),
            None => servers.write(glue),
        });
        glue.push(b'\n');
        servers.put(&glue);
        servers.finish()
    }

    /// Whether the file at `path` holds exactly this lock's bytes (false when there is none).
    pub fn is_written_at(&self, path: &Path) -> Result<bool, Error> {
        atomic_file::holds(path, |out| self.write_to(out))
            .map_err(|e| Error::in_file(path, format!("cannot read: {e}")))
    }

    /// Whether this lock renders to exactly the bytes `other` renders to: compared server by
    /// server, in parallel, stopping at the first that differs.
    pub fn renders_as(&self, other: &Lock) -> bool {
        let ours: Vec<_> = self.servers.iter().collect();
        let theirs: Vec<_> = other.servers.iter().collect();
        self.rendered_top() == other.rendered_top()
            && ours.len() == theirs.len()
            && ours
                .par_iter()
                .zip(&theirs)
                .all(|((a_name, a), (b_name, b))| {
                    a_name == b_name && server_pieces(a).concat() == server_pieces(b).concat()
                })
    }

    /// Writes the lock to `path` atomically (a temporary file beside it, then renamed over it),
    /// so a reader never sees half a lock; whether the file changed: a file that already holds
    /// these bytes is left untouched.
    pub fn write(&self, path: &Path) -> Result<bool, Error> {
        if self.is_written_at(path)? {
            return Ok(false);
        }
        self.replace(path)?;
        Ok(true)
    }

    /// [`Lock::write`] for a caller that has just found the file does not hold these bytes
    /// ([`Lock::is_written_at`]): replaces it without comparing again.
    pub fn replace(&self, path: &Path) -> Result<(), Error> {
        let cannot = |e: io::Error| Error::in_file(path, format!("cannot write the lockfile: {e}"));
        let staged = atomic_file::stage(path, |out| self.write_to(out)).map_err(cannot)?;
        // A definition kept from the previous lock was read back from it as it was written:
        // a file edited meanwhile gave no text, and must not be replaced by what was staged.
        if let Some(file) = self.changed_on_disk() {
            return Err(crate::source::changed_while_read(&[display_path(file)]));
        }
        staged.persist().map_err(cannot)
    }

    /// The file a definition was read back from that no longer held it, if any.
    fn changed_on_disk(&self) -> Option<&Path> {
        self.servers
            .values()
            .flat_map(|server| server.tools.values())
            .find_map(|tool| tool.definition.changed_on_disk())
    }

    /// The top-level members other than `servers`, each rendered, in canonical order.
    fn rendered_top(&self) -> Vec<(&'static str, Vec<u8>)> {
        let mut top: Vec<(&str, Vec<u8>)> = self
            .top_members()
            .into_iter()
            .map(|(key, node)| {
                let mut bytes = Vec::new();
                write_pretty_at(&node, 1, &mut bytes);
                (key, bytes)
            })
            .collect();
        top.sort_by(|a, b| compare_keys(a.0, b.0));
        top
    }

    /// The top-level members other than `servers`, in no particular order.
    fn top_members(&self) -> Vec<(&'static str, Node)> {
        let mut fp = Object::default();
        fp.insert("scheme", Node::string(fingerprint::SCHEME));
        fp.insert(
            "algorithm",
            Node::string(self.fingerprint.algorithm.as_str()),
        );
        fp.insert(
            "exclude",
            Node::array(self.fingerprint.exclude.iter().map(Node::string).collect()),
        );
        let mut top = vec![
            (GENERATED_KEY, Node::string(GENERATED)),
            ("version", Node::u64(FORMAT_VERSION)),
            ("fingerprint", Node::object(fp)),
        ];
        // Optional sections appear only when they have entries, so locks without them keep
        // their exact bytes.
        if !self.prompts.is_empty() {
            let mut prompts = Object::default();
            for (path, digest) in &self.prompts {
                let mut entry = Object::default();
                entry.insert("digest", Node::string(digest.clone()));
                prompts.insert(path.clone(), Node::object(entry));
            }
            top.push(("prompts", Node::object(prompts)));
        }
        if !self.launch.is_empty() {
            let mut launch = Object::default();
            for (name, spec) in &self.launch {
                let mut entry = Object::default();
                entry.insert("digest", Node::string(spec.digest.clone()));
                entry.insert("runs", Node::string(spec.runs.clone()));
                launch.insert(name.clone(), Node::object(entry));
            }
            top.push(("launch", Node::object(launch)));
        }
        top
    }
}

/// The servers of a lock being written: rendered a batch at a time, in parallel, and written
/// out in the order of their names, each batch while the next one renders.
struct ServerStream<'l, 'o> {
    /// By name, in canonical order.
    servers: Vec<(&'l str, &'l LockedServer)>,
    out: &'o mut (dyn Write + Send),
    /// The pieces of the servers rendered and not yet laid out, from `batch_start` on.
    batch: Vec<Vec<Cow<'l, [u8]>>>,
    batch_start: usize,
    /// Laid out and not yet written: a batch is written at once, while the next one renders.
    pending: Vec<Cow<'l, [u8]>>,
    /// The first error writing met: nothing more is rendered or written after it.
    failed: Option<io::Error>,
}

impl<'l, 'o> ServerStream<'l, 'o> {
    fn new(lock: &'l Lock, out: &'o mut (dyn Write + Send)) -> Self {
        let servers = in_canonical_order(&lock.servers);
        ServerStream {
            servers,
            out,
            batch: Vec::new(),
            batch_start: 0,
            pending: Vec::new(),
            failed: None,
        }
    }

    /// Writes the `servers` object after `glue`, what the layout has put before it.
    fn write(&mut self, glue: &mut Vec<u8>) {
        let members: Vec<(&str, usize)> = self
            .servers
            .iter()
            .enumerate()
            .map(|(i, (name, _))| (*name, i))
            .collect();
        write_pretty_object_with(members, SERVER_INDENT - 1, glue, |i, glue| {
            let pieces = self.rendered(i);
            self.pending.push(Cow::Owned(std::mem::take(glue)));
            self.pending.extend(pieces);
        });
    }

    /// The pieces of server `i`, rendering its batch first if it is not yet.
    fn rendered(&mut self, i: usize) -> Vec<Cow<'l, [u8]>> {
        if self.failed.is_some() {
            return Vec::new();
        }
        if i < self.batch_start || i >= self.batch_start + self.batch.len() {
            let mut tools = 0;
            let end = self
                .servers
                .iter()
                .skip(i)
                .position(|(_, server)| {
                    tools += server.tools.len();
                    tools >= BATCH_TOOLS
                })
                .map_or(self.servers.len(), |last| i + last + 1);
            // The next batch renders while the last one is written.
            let (out, pending, failed) = (&mut *self.out, &mut self.pending, &mut self.failed);
            let servers = self.servers.get(i..end).unwrap_or_default();
            let ((), batch) = rayon::join(
                || write_pending(out, pending, failed),
                || {
                    servers
                        .par_iter()
                        .map(|(_, server)| server_pieces(server))
                        .collect()
                },
            );
            self.batch = batch;
            self.batch_start = i;
        }
        self.batch
            .get_mut(i - self.batch_start)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn put(&mut self, bytes: &[u8]) {
        self.write_pending();
        if self.failed.is_none()
            && let Err(e) = self.out.write_all(bytes)
        {
            self.failed = Some(e);
        }
    }

    fn write_pending(&mut self) {
        write_pending(self.out, &mut self.pending, &mut self.failed);
    }

    fn finish(mut self) -> io::Result<()> {
        self.write_pending();
        self.failed.map_or(Ok(()), Err)
    }
}

/// Writes what is `pending` to `out` (unless an earlier write `failed`, or this one does), and
/// clears it.
fn write_pending(
    out: &mut (dyn Write + Send),
    pending: &mut Vec<Cow<'_, [u8]>>,
    failed: &mut Option<io::Error>,
) {
    if failed.is_none()
        && let Err(e) = write_all_vectored(out, pending)
    {
        *failed = Some(e);
    }
    pending.clear();
}

/// Writes every piece, in order, through vectored writes (as many pieces a call as the writer
/// takes). The lock's writer copies them into its buffer and hands the file a mebibyte at a
/// time (see `atomic_file::SyncingBehind`).
fn write_all_vectored(out: &mut dyn Write, pieces: &[Cow<'_, [u8]>]) -> io::Result<()> {
    let mut slices: Vec<IoSlice<'_>> = pieces.iter().map(|piece| IoSlice::new(piece)).collect();
    let mut slices = slices.as_mut_slice();
    IoSlice::advance_slices(&mut slices, 0);
    while !slices.is_empty() {
        match out.write_vectored(slices) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A server's bytes in the lockfile, in pieces (definitions are not copied).
fn server_pieces(server: &LockedServer) -> Vec<Cow<'_, [u8]>> {
    let mut pieces = Pieces::default();
    write_pretty_pieces(server_parts(server), SERVER_INDENT, &mut pieces);
    pieces.finish()
}

fn baseline_members(out: &mut Object, baseline: &Baseline) {
    out.insert("baselineVersion", Node::u64(baseline.version));
    out.insert("baselineHash", Node::string(baseline.hash.clone()));
    out.insert("approvedAt", Node::string(baseline.approved_at.clone()));
    out.insert("approvedBy", Node::string(baseline.approved_by.clone()));
    // Only when known, so locks written before approvals recorded it keep their bytes.
    if !baseline.changed.is_empty() {
        out.insert(
            "changed",
            Node::array(baseline.changed.iter().map(Node::string).collect()),
        );
    }
}

/// A server as rendered parts: its own members and each tool's from small trees, and each
/// definition as it writes itself (a new approval from its canonical bytes, held or read back
/// from the spill; a kept one as the previous lock holds it, read back from there).
fn server_parts(server: &LockedServer) -> Pretty<'_> {
    let mut head = Object::default();
    head.insert("status", Node::string(server.status.as_str()));
    baseline_members(&mut head, &server.baseline);
    head.insert("capturedAt", Node::string(server.captured_at.clone()));
    let history = server
        .history
        .iter()
        .map(|b| {
            let mut entry = Object::default();
            baseline_members(&mut entry, b);
            Node::object(entry)
        })
        .collect();
    head.insert("history", Node::array(history));
    let mut members = rendered_members(head, SERVER_INDENT);
    members.push((Cow::Borrowed("tools"), Pretty::Pieces(tools_pieces(server))));
    Pretty::Object(members)
}

/// A map's entries in the order the canonical form writes keys (by UTF-16 code units, not
/// the map's own byte order).
fn in_canonical_order<V>(map: &BTreeMap<String, V>) -> Vec<(&str, &V)> {
    let mut entries: Vec<(&str, &V)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
    entries.sort_by(|a, b| compare_keys(a.0, b.0));
    entries
}

/// How deep a server's tools object is nested, and so each tool's members.
const TOOLS_INDENT: usize = SERVER_INDENT + 1;

/// A server's tools, written straight from the model into pieces: a lock writes one entry for
/// every tool, and building each as parts to sort and lay out was half of rendering a lock.
fn tools_pieces(server: &LockedServer) -> Vec<Cow<'_, [u8]>> {
    let tools = in_canonical_order(&server.tools);
    let mut pieces = Pieces::default();
    write_pretty_object_pieces(tools, TOOLS_INDENT, &mut pieces, |tool, pieces| {
        write_pretty_object_pieces(tool_members(tool), TOOLS_INDENT + 1, pieces, write_member);
    });
    pieces.finish()
}

/// A tool entry's value, as the model holds it.
enum ToolMember<'l> {
    Text(&'l str),
    Digest(&'l DigestText),
    Fields(&'l FieldDigests),
    Definition(&'l Definition),
}

/// A tool entry's members, in canonical order (a test checks it).
fn tool_members(tool: &LockedTool) -> impl Iterator<Item = (&'static str, ToolMember<'_>)> {
    let approval = tool.approval.as_ref();
    [
        (
            "approval",
            approval.map(|a| ToolMember::Text(a.kind.as_str())),
        ),
        (
            "approvedAt",
            approval.map(|a| ToolMember::Text(&a.approved_at)),
        ),
        (
            "approvedBy",
            approval.map(|a| ToolMember::Text(&a.approved_by)),
        ),
        ("definition", Some(ToolMember::Definition(&tool.definition))),
        ("digest", Some(ToolMember::Digest(&tool.digest))),
        ("fields", Some(ToolMember::Fields(&tool.fields))),
        (
            "firstSeen",
            approval.map(|a| ToolMember::Text(&a.first_seen)),
        ),
    ]
    .into_iter()
    .filter_map(|(key, value)| Some((key, value?)))
}

fn write_member<'l>(member: ToolMember<'l>, pieces: &mut Pieces<'l>) {
    match member {
        ToolMember::Text(text) => write_string_into(text, pieces.bytes_mut()),
        ToolMember::Digest(digest) => digest.write_json(pieces.bytes_mut()),
        ToolMember::Fields(fields) => {
            // Kept sorted by name, which is canonical order unless a hand-edited lock named a
            // field outside the Basic Multilingual Plane.
            let mut sorted: Vec<(&str, &DigestText)> = fields.iter().collect();
            if !sorted.is_sorted_by(|a, b| compare_keys(a.0, b.0).is_le()) {
                sorted.sort_by(|a, b| compare_keys(a.0, b.0));
            }
            write_pretty_object_with(sorted, DEFINITION_INDENT, pieces.bytes_mut(), |d, out| {
                d.write_json(out);
            });
        }
        ToolMember::Definition(definition) => definition.write_to(pieces),
    }
}

/// The members of an object nested `indent` levels deep, each value rendered.
fn rendered_members(object: Object, indent: usize) -> Vec<(Cow<'static, str>, Pretty<'static>)> {
    object
        .members
        .into_iter()
        .map(|member| {
            let mut out = Vec::new();
            write_pretty_at(&member.value, indent + 1, &mut out);
            (
                Cow::Owned(member.key.into_string()),
                Pretty::Rendered(out.into()),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::byte_size::ByteSize;
    use crate::json::canonical::{to_canonical_vec, to_pretty_string};
    use crate::json::{Dialect, Limits, parse};
    use crate::lock::{ApprovalKind, ToolApproval};

    /// A lockfile of `servers` servers named as given, each with `tools` tools.
    fn lockfile(names: &[&str], tools: usize) -> String {
        let servers: Vec<String> = names
            .iter()
            .map(|name| {
                let tools: Vec<String> = (0..tools)
                    .map(|t| {
                        format!(
                            r#""t{t}": {{"definition": {{"name": "t{t}", "description": "tool {t} of {name}"}}, "digest": "sha256:00", "fields": {{}}}}"#
                        )
                    })
                    .collect();
                format!(
                    r#""{name}": {{"approvedAt": "2026-01-01T00:00:00Z", "approvedBy": "me", "baselineHash": "sha256:00", "baselineVersion": 1, "capturedAt": "2026-01-01T00:00:00Z", "history": [], "status": "verified", "tools": {{{}}}}}"#,
                    tools.join(", ")
                )
            })
            .collect();
        format!(
            r#"{{"@generated": "x", "fingerprint": {{"algorithm": "sha256", "exclude": [], "scheme": "c14n-v1"}}, "servers": {{{}}}, "version": 1}}"#,
            servers.join(", ")
        )
    }

    fn parsed(text: &str) -> Lock {
        Lock::parse(Path::new("mcp.lock"), text.to_string())
            .unwrap()
            .0
    }

    /// Names whose byte order is not their canonical (UTF-16) order, so the servers' order is
    /// the writer's own.
    const NAMES: [&str; 5] = ["b", "a", "\u{ff61}", "\u{10000}", "é"];

    /// The stream is exactly the whole lock pretty-printed as one tree, across batches (more
    /// tools than one batch holds), with the servers in canonical order.
    #[test]
    fn streams_what_the_tree_pretty_prints() {
        let lock = parsed(&lockfile(&NAMES, BATCH_TOOLS / 2 + 7));
        assert!(lock.tool_count() > 2 * BATCH_TOOLS);
        let rendered = lock.render();
        let tree = parse(&rendered, Dialect::Json, &Limits::default()).unwrap();
        assert_eq!(rendered, to_pretty_string(&tree) + "\n");
        let order: Vec<usize> = NAMES
            .iter()
            .map(|name| rendered.find(&format!("\n    \"{name}\": {{")).unwrap())
            .collect();
        let mut sorted = order.clone();
        sorted.sort_unstable();
        // Canonical order: a, b, é, U+10000 (a surrogate pair, below U+FF61), U+FF61.
        assert_eq!(sorted, [order[1], order[0], order[4], order[3], order[2]]);
    }

    /// A tool entry's members are written in the order given, which must be canonical.
    #[test]
    fn tool_members_come_in_canonical_order() {
        let lock = parsed(&lockfile(&["s"], 1));
        let mut tool = lock.servers["s"].tools["t0"].clone();
        tool.approval = Some(ToolApproval {
            first_seen: "2026-01-01T00:00:00Z".into(),
            approved_at: "2026-01-02T00:00:00Z".into(),
            approved_by: "me".into(),
            kind: ApprovalKind::Explicit,
        });
        let keys: Vec<&str> = tool_members(&tool).map(|(key, _)| key).collect();
        assert_eq!(keys.len(), 7);
        assert!(
            keys.is_sorted_by(|a, b| compare_keys(a, b).is_lt()),
            "{keys:?}"
        );
    }

    /// Pieces are written whole and in order by a writer that takes a few bytes a call, of one
    /// slice or across several, with empty pieces among them.
    #[test]
    fn vectored_writes_write_every_piece_in_order() {
        struct Trickle {
            out: Vec<u8>,
            across: bool,
        }
        impl Write for Trickle {
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                let n = bytes.len().min(3);
                self.out.extend_from_slice(&bytes[..n]);
                Ok(n)
            }
            fn write_vectored(&mut self, slices: &[IoSlice<'_>]) -> io::Result<usize> {
                if !self.across {
                    let first = slices.iter().find(|s| !s.is_empty());
                    return self.write(first.map_or(&[][..], |s| s));
                }
                let joined: Vec<u8> = slices.iter().flat_map(|s| s.iter().copied()).collect();
                let n = joined.len().min(5);
                self.out.extend_from_slice(&joined[..n]);
                Ok(n)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let texts = ["", "ab", "", "", "cdefgh", "i", "", "jklmnopqrstu", ""];
        let pieces: Vec<Cow<'_, [u8]>> =
            texts.iter().map(|t| Cow::Borrowed(t.as_bytes())).collect();
        for across in [false, true] {
            let mut out = Trickle {
                out: Vec::new(),
                across,
            };
            write_all_vectored(&mut out, &pieces).unwrap();
            assert_eq!(out.out, texts.concat().as_bytes());
        }
    }

    /// A lock renders as another when their files would be the same bytes, whatever the
    /// formatting of the file each was read from; any difference in any part says no.
    #[test]
    fn renders_as_compares_what_the_files_would_be() {
        let text = lockfile(&NAMES, 3);
        let lock = parsed(&text);
        let one_line = String::from_utf8(to_canonical_vec(
            &parse(&text, Dialect::Json, &Limits::default()).unwrap(),
        ))
        .unwrap();
        assert!(lock.renders_as(&parsed(&one_line)));
        let others = [
            text.replacen("tool 2 of a", "tool 2 of A", 1),
            text.replacen("\"status\": \"verified\"", "\"status\": \"quarantined\"", 1),
            lockfile(&NAMES[..4], 3),
            lockfile(&NAMES, 2),
            text.replacen("\"exclude\": []", "\"exclude\": [\"title\"]", 1),
        ];
        for other in others {
            assert!(!lock.renders_as(&parsed(&other)), "{other}");
            assert!(!parsed(&other).renders_as(&lock), "{other}");
        }
    }

    /// Writing compares first and leaves a file that holds the lock alone; a file formatted
    /// otherwise is replaced by the lock's own bytes.
    #[test]
    fn writes_only_what_differs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.lock");
        let lock = parsed(&lockfile(&NAMES, 3));
        assert!(!lock.is_written_at(&path).unwrap());
        assert!(lock.write(&path).unwrap());
        assert!(lock.is_written_at(&path).unwrap());
        assert!(!lock.write(&path).unwrap());
        std::fs::write(&path, lockfile(&NAMES, 3)).unwrap();
        assert!(!lock.is_written_at(&path).unwrap());
        assert!(lock.write(&path).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), lock.render());
    }

    /// A lock whose definitions are read back from its file as it is written does not replace
    /// that file when it was edited meanwhile: the staged file would hold nothing for them.
    #[test]
    fn a_lock_read_back_from_a_changed_file_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.lock");
        let lock = parsed(&lockfile(&NAMES, 3));
        lock.write(&path).unwrap();
        let (mut streamed, _) = Lock::stream_within(&path, ByteSize(1 << 30))
            .unwrap()
            .unwrap();
        if let Some(server) = streamed.servers.get_mut("a") {
            server.status = super::super::Status::Quarantined;
        }
        let edited = lock.render().replacen("tool 1 of b", "tool 1 of B", 1);
        std::fs::write(&path, &edited).unwrap();
        let error = streamed.write(&path).unwrap_err().to_string();
        assert!(error.contains("mcp.lock changed while"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
