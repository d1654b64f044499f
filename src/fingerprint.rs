//! Tool and server digests. A compatibility promise: scheme `c14n-v1` (see `json::canonical`).
//!
//! - Tool digest: the hash of the canonical bytes of the whole tool object minus `_meta` and
//!   any fields the user excluded (e.g. `annotations`).
//! - Field digests: one per present field among [`FIELDS`], plus `rest` for every other hashed
//!   field together, so a finding can say *which* part changed.
//! - Server digest: the hash of the canonical object `{tool name: tool digest, …}`.
//!
//! Every digest is written `<algorithm>:<lowercase hex>`, so the algorithm can change without
//! ambiguity.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io::Write;
use std::ops::Range;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256, Sha512};

use crate::json::canonical::{
    MemberBytes, canonical_unique, write_canonical, write_canonical_members, write_string_into,
};
use crate::json::{Node, Object};

pub const SCHEME: &str = crate::json::canonical::SCHEME;

/// Fields with their own digest, in the order reports list them.
pub const FIELDS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// The field digest that covers every hashed field not in [`FIELDS`].
pub const REST: &str = "rest";

/// Never hashed: `_meta` is transport and UI metadata that servers may change freely.
pub const ALWAYS_EXCLUDED: &str = "_meta";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    #[default]
    Sha256,
    Sha512,
}

impl Algorithm {
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha512 => "sha512",
        }
    }

    pub fn parse(s: &str) -> Option<Algorithm> {
        match s {
            "sha256" => Some(Algorithm::Sha256),
            "sha512" => Some(Algorithm::Sha512),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FingerprintOptions {
    pub algorithm: Algorithm,
    /// Top-level tool fields left out of every digest, besides `_meta`.
    pub exclude: BTreeSet<String>,
}

impl FingerprintOptions {
    pub fn hashes_field(&self, key: &str) -> bool {
        key != ALWAYS_EXCLUDED && !self.exclude.contains(key)
    }
}

mod field_digests;
pub use field_digests::{DigestText, FieldDigests};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolDigest {
    pub digest: DigestText,
    pub fields: FieldDigests,
}

/// Streams canonical bytes straight into the hash: no intermediate buffer per tool.
struct HashWriter<D: Digest>(D);

impl<D: Digest> Write for HashWriter<D> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The two lowercase hex digits of `b`.
fn hex_pair(b: u8) -> [u8; 2] {
    [
        HEX_DIGITS[usize::from(b >> 4)],
        HEX_DIGITS[usize::from(b & 0xf)],
    ]
}

/// `algorithm:hex`, in one allocation: a run writes several of these for each tool.
fn written(algorithm: Algorithm, hash: &[u8]) -> String {
    let name = algorithm.as_str();
    let mut out = String::with_capacity(name.len() + 1 + hash.len() * 2);
    out.push_str(name);
    out.push(':');
    out.extend(hash.iter().flat_map(|&b| hex_pair(b)).map(char::from));
    out
}

/// Whether `stored` is exactly what [`written`] makes of `hash`, without writing it: verifying
/// a lock compares six digests for each of its tools.
fn is_written(algorithm: Algorithm, hash: &[u8], stored: &str) -> bool {
    let Some(hex) = stored
        .strip_prefix(algorithm.as_str())
        .and_then(|rest| rest.strip_prefix(':'))
    else {
        return false;
    };
    hex.len() == hash.len() * 2
        && hash
            .iter()
            .zip(hex.as_bytes().chunks_exact(2))
            .all(|(&b, pair)| pair == hex_pair(b))
}

/// Hashes whatever `write` feeds it and hands the hash to `done`. Writing into a hasher cannot
/// fail, so the io::Result is moot.
fn hash_with<T>(
    algorithm: Algorithm,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    done: impl FnOnce(&[u8]) -> T,
) -> T {
    match algorithm {
        Algorithm::Sha256 => {
            let mut w = HashWriter(Sha256::new());
            let _ = write(&mut w);
            done(&w.0.finalize())
        }
        Algorithm::Sha512 => {
            let mut w = HashWriter(Sha512::new());
            let _ = write(&mut w);
            done(&w.0.finalize())
        }
    }
}

/// The digest of whatever `write` feeds the hasher, written `algorithm:hex`.
fn digest_with(
    algorithm: Algorithm,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> String {
    hash_with(algorithm, write, |hash| written(algorithm, hash))
}

/// The digest of raw bytes (a tool's canonical bytes, a pinned prompt file), in the
/// `algorithm:hex` form, held as [`DigestText`]: a run keeps one for every tool.
pub fn bytes_digest(algorithm: Algorithm, bytes: &[u8]) -> DigestText {
    hash_with(
        algorithm,
        |w| w.write_all(bytes),
        |hash| DigestText::of_hash(algorithm, hash),
    )
}

/// Whether the digest of `bytes` is `stored`, without writing it.
pub fn bytes_digest_is(algorithm: Algorithm, bytes: &[u8], stored: &str) -> bool {
    hash_with(
        algorithm,
        |w| w.write_all(bytes),
        |hash| is_written(algorithm, hash, stored),
    )
}

pub fn node_digest(algorithm: Algorithm, node: &Node) -> String {
    digest_with(algorithm, |w| write_canonical(node, &mut WriteRef(w)))
}

/// Adapts `&mut dyn Write` to the generic writer the canonical module takes.
struct WriteRef<'a>(&'a mut dyn Write);

impl Write for WriteRef<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The tool's digest alone: what drift and shadowing compare. A scan needs no field digests
/// (drift names changed fields from the trees), so it computes none: only an approval, which
/// stores them, asks for them (see `approve`).
pub fn tool_digest(tool: &Object, options: &FingerprintOptions) -> DigestText {
    with_canonical(tool, options, |bytes, _| {
        bytes_digest(options.algorithm, bytes)
    })
}

impl ToolDigest {
    /// The tool's digest and its field digests.
    pub fn of(tool: &Object, options: &FingerprintOptions) -> ToolDigest {
        let algorithm = options.algorithm;
        with_canonical(tool, options, |bytes, members| ToolDigest {
            digest: bytes_digest(algorithm, bytes),
            fields: field_digests(algorithm, bytes, members),
        })
    }
}

/// Calls `f` with the canonical bytes of the hashed fields of `tool`, and where each member
/// sits in them.
pub fn with_canonical<T>(
    tool: &Object,
    options: &FingerprintOptions,
    f: impl FnOnce(&[u8], &[MemberBytes<'_>]) -> T,
) -> T {
    thread_local! {
        /// The canonical bytes of the tool being hashed, reused from tool to tool.
        static CANONICAL: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    let keep = |key: &str| options.hashes_field(key);
    CANONICAL.with_borrow_mut(|bytes| {
        bytes.clear();
        let members = write_canonical_members(tool, &keep, bytes);
        f(bytes, &members)
    })
}

/// The field digests of a tool from its canonical bytes and where each member sits in them.
pub fn field_digests(
    algorithm: Algorithm,
    canonical: &[u8],
    members: &[MemberBytes<'_>],
) -> FieldDigests {
    let mut fields = Vec::new();
    each_field_hash(algorithm, canonical, members, |field, hash| {
        fields.push((
            CompactString::const_new(field),
            DigestText::of_hash(algorithm, hash),
        ));
        true
    });
    fields.into_iter().collect()
}

/// Whether the field digests of a tool (from its canonical bytes and where each member sits in
/// them) are exactly `stored`, a lock's `fields` object, without writing them.
pub fn field_digests_are(
    algorithm: Algorithm,
    canonical: &[u8],
    members: &[MemberBytes<'_>],
    stored: &Object,
) -> bool {
    let mut count = 0;
    let all_equal = each_field_hash(algorithm, canonical, members, |field, hash| {
        count += 1;
        stored
            .get(field)
            .and_then(Node::as_str)
            .is_some_and(|digest| is_written(algorithm, hash, digest))
    });
    all_equal && count == stored.iter_unique().count()
}

/// Calls `found` with the hash of each field digest, in [`FIELDS`] order then `rest`, while it
/// returns true; whether it always did. A member's value bytes are that value's canonical
/// bytes, and the other members, in order, make the canonical object `rest` hashes.
fn each_field_hash(
    algorithm: Algorithm,
    canonical: &[u8],
    members: &[MemberBytes<'_>],
    mut found: impl FnMut(&'static str, &[u8]) -> bool,
) -> bool {
    let slice = |range: &Range<usize>| canonical.get(range.clone()).unwrap_or_default();
    for field in FIELDS {
        if let Some(member) = members.iter().find(|m| m.key == field) {
            let value = slice(&member.value);
            if !hash_with(algorithm, |w| w.write_all(value), |hash| found(field, hash)) {
                return false;
            }
        }
    }
    let rest: Vec<_> = members
        .iter()
        .filter(|m| !FIELDS.contains(&m.key))
        .collect();
    rest.is_empty()
        || hash_with(
            algorithm,
            |w| {
                w.write_all(b"{")?;
                for (i, member) in rest.iter().enumerate() {
                    if i > 0 {
                        w.write_all(b",")?;
                    }
                    w.write_all(slice(&member.member))?;
                }
                w.write_all(b"}")
            },
            |hash| found(REST, hash),
        )
}

/// The tool as it is hashed and stored in the lock: every field but the excluded ones.
pub fn hashed_definition(tool: &Object, options: &FingerprintOptions) -> Node {
    let mut out = Object::default();
    for member in tool.iter_unique() {
        if options.hashes_field(&member.key) {
            out.insert(member.key.clone(), member.value.clone());
        }
    }
    Node::object(out)
}

/// Order-independent: the tools are keyed by name in a canonical (sorted) object.
pub fn server_digest<'a>(
    algorithm: Algorithm,
    tools: impl IntoIterator<Item = (&'a str, &'a DigestText)>,
) -> String {
    // The canonical bytes of the object of names to digests, written directly: every server
    // has one, computed for its state and again for its baseline.
    let tools = canonical_unique(tools.into_iter().collect(), |(name, _)| name);
    let mut canonical = vec![b'{'];
    for (i, (name, digest)) in tools.into_iter().enumerate() {
        if i > 0 {
            canonical.push(b',');
        }
        write_string_into(name, &mut canonical);
        canonical.push(b':');
        digest.write_json(&mut canonical);
    }
    canonical.push(b'}');
    digest_with(algorithm, |w| w.write_all(&canonical))
}

#[cfg(test)]
mod tests;
