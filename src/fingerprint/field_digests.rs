//! A tool's field digests, held small: a run keeps them for every locked tool (and an approval
//! for every scanned one), so at a million tools their form is most of the lock's memory. As a
//! map of strings they took about 900 bytes a tool (a B-tree node and six 71-byte strings); as
//! a sorted slice of names and 32-byte hashes, about 320.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use compact_str::CompactString;

use super::{Algorithm, HEX_DIGITS, hex_pair};

/// A digest as a lock writes it, `algorithm:hex`: held as its 32 bytes when it is a SHA-256
/// written that way (lowercase hex, as mcp-scan writes it), else as its text, so a hand-edited
/// value is kept, compared and written back exactly.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DigestText {
    Sha256([u8; 32]),
    Text(Box<str>),
}

const SHA256_PREFIX: &str = "sha256:";

impl DigestText {
    pub fn parse(text: &str) -> DigestText {
        let bytes = text
            .strip_prefix(SHA256_PREFIX)
            .and_then(|hex| <&[u8; 64]>::try_from(hex.as_bytes()).ok())
            .and_then(|hex| {
                let mut out = [0u8; 32];
                let mut invalid = 0u8;
                for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
                    let (high, low) =
                        (NIBBLES[usize::from(pair[0])], NIBBLES[usize::from(pair[1])]);
                    invalid |= high | low;
                    *byte = (high << 4) | (low & 0xf);
                }
                (invalid & INVALID == 0).then_some(out)
            });
        match bytes {
            Some(bytes) => DigestText::Sha256(bytes),
            None => DigestText::Text(text.into()),
        }
    }

    /// `hash` under `algorithm`, as [`super::written`] writes it.
    pub fn of_hash(algorithm: Algorithm, hash: &[u8]) -> DigestText {
        match (algorithm, <[u8; 32]>::try_from(hash)) {
            (Algorithm::Sha256, Ok(bytes)) => DigestText::Sha256(bytes),
            _ => DigestText::Text(super::written(algorithm, hash).into()),
        }
    }

    /// The digest as a JSON string, quoted (and escaped, if a hand-edited text needs it): a
    /// lock writes seven for each tool, so a SHA-256 is written without the formatter.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            DigestText::Sha256(bytes) => {
                out.push(b'"');
                out.extend_from_slice(&sha256_text(bytes));
                out.push(b'"');
            }
            DigestText::Text(text) => crate::json::canonical::write_string_into(text, out),
        }
    }

    /// Whether this is exactly what [`DigestText::of_hash`] makes of `hash`.
    pub fn is_hash(&self, algorithm: Algorithm, hash: &[u8]) -> bool {
        match self {
            DigestText::Sha256(bytes) => algorithm == Algorithm::Sha256 && bytes[..] == *hash,
            DigestText::Text(text) => super::is_written(algorithm, hash, text),
        }
    }
}

/// Each byte's value as a lowercase hex digit, or [`INVALID`] (uppercase is not how mcp-scan
/// writes digests, so such a digest is kept as text). A lock holds seven digests a tool, read
/// by table rather than by a branch per digit.
const NIBBLES: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 16 {
        table[HEX_DIGITS[i] as usize] = i as u8;
        i += 1;
    }
    table
};
const INVALID: u8 = 0x80;

impl fmt::Display for DigestText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DigestText::Sha256(bytes) => {
                f.write_str(std::str::from_utf8(&sha256_text(bytes)).map_err(|_| fmt::Error)?)
            }
            DigestText::Text(text) => f.write_str(text),
        }
    }
}

/// `sha256:` and the hex of `bytes`, in one piece.
fn sha256_text(bytes: &[u8; 32]) -> [u8; SHA256_PREFIX.len() + 64] {
    let mut text = [0u8; SHA256_PREFIX.len() + 64];
    let (prefix, hex) = text.split_at_mut(SHA256_PREFIX.len());
    prefix.copy_from_slice(SHA256_PREFIX.as_bytes());
    for (pair, &b) in hex.chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&hex_pair(b));
    }
    text
}

/// Shown as its text, as the lock writes it.
impl fmt::Debug for DigestText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string(), f)
    }
}

/// Field digests by field name, sorted by name. Shared when cloned: a refreshed lock's
/// unchanged tools hold the previous lock's (see `state::Approvable::of`).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct FieldDigests(Arc<[(CompactString, DigestText)]>);

impl FieldDigests {
    pub fn get(&self, field: &str) -> Option<&DigestText> {
        let at = self
            .0
            .binary_search_by(|(name, _)| name.as_str().cmp(field));
        at.ok()
            .and_then(|at| self.0.get(at))
            .map(|(_, digest)| digest)
    }

    /// By name, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &DigestText)> {
        self.0.iter().map(|(name, digest)| (name.as_str(), digest))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.iter().map(|(name, _)| name)
    }

    /// Whether these are the very digests `other` holds, not a copy.
    #[cfg(test)]
    pub fn shared_with(&self, other: &FieldDigests) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// A copy with `field`'s digest set to `digest`.
    #[cfg(test)]
    pub fn with(&self, field: &str, digest: &str) -> FieldDigests {
        let others = self.0.iter().cloned();
        let set = std::iter::once((CompactString::from(field), DigestText::parse(digest)));
        others.chain(set).collect()
    }
}

/// Shown as a map of names to digests.
impl fmt::Debug for FieldDigests {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The last digest given for a name wins, as in a map.
impl FromIterator<(CompactString, DigestText)> for FieldDigests {
    fn from_iter<I: IntoIterator<Item = (CompactString, DigestText)>>(iter: I) -> Self {
        let sorted: BTreeMap<CompactString, DigestText> = iter.into_iter().collect();
        FieldDigests(sorted.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Node;
    use crate::json::canonical::to_canonical_vec;

    /// A SHA-256 digest as mcp-scan writes it is held as bytes and written back the same; any
    /// other text is kept as it is; each compares with a hash exactly as its text would.
    #[test]
    fn a_digest_is_written_back_exactly_as_read() {
        let hash: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(37)).collect();
        let written = super::super::written(Algorithm::Sha256, &hash);
        let texts = [
            written.clone(),
            written.to_uppercase(),
            written.replace("sha256:", "SHA256:"),
            format!("{written}0"),
            written.get(..written.len() - 1).unwrap().to_string(),
            "sha256:00".to_string(),
            format!("sha256:{}", "g".repeat(64)),
            format!("sha256:{}", "0".repeat(62) + "é"),
            super::super::written(Algorithm::Sha512, &[7; 64]),
            String::new(),
            "sha256:\"quoted\"\n".to_string(),
        ];
        for text in &texts {
            let digest = DigestText::parse(text);
            assert_eq!(digest.to_string(), *text);
            let mut json = Vec::new();
            digest.write_json(&mut json);
            assert_eq!(
                json,
                to_canonical_vec(&Node::string(text.as_str())),
                "{text}"
            );
            assert_eq!(
                matches!(digest, DigestText::Sha256(_)),
                *text == written,
                "{text}"
            );
            assert_eq!(
                digest.is_hash(Algorithm::Sha256, &hash),
                super::super::is_written(Algorithm::Sha256, &hash, text),
                "{text}"
            );
        }
        assert_eq!(
            DigestText::of_hash(Algorithm::Sha256, &hash),
            DigestText::parse(&written)
        );
        let sha512 = DigestText::of_hash(Algorithm::Sha512, &[7; 64]);
        assert_eq!(sha512.to_string(), texts[8]);
        assert!(sha512.is_hash(Algorithm::Sha512, &[7; 64]));
        assert!(!sha512.is_hash(Algorithm::Sha256, &[7; 32]));
    }

    #[test]
    fn field_digests_are_sorted_and_the_last_given_wins() {
        let d = |s: &str| DigestText::parse(s);
        let fields: FieldDigests = [("name", "a"), ("description", "b"), ("name", "c")]
            .into_iter()
            .map(|(k, v)| (CompactString::from(k), d(v)))
            .collect();
        assert_eq!(fields.keys().collect::<Vec<_>>(), ["description", "name"]);
        assert_eq!(fields.get("name"), Some(&d("c")));
        assert_eq!(fields.get("title"), None);
    }
}
