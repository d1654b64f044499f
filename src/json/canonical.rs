//! Canonical JSON bytes, scheme `c14n-v1`, and a sorted pretty printer.
//!
//! The canonical form is a compatibility promise: lockfiles store hashes of
//! these bytes, so any change to it needs a new scheme name.
//!
//! - No whitespace. Literals `true`, `false`, `null`.
//! - Object members are sorted by key, comparing keys as sequences of UTF-16
//!   code units (as JCS / RFC 8785 does), not by Rust string order. With
//!   duplicate keys the last occurrence wins and earlier ones are dropped
//!   (agreeing with serde_json; duplicates are reported elsewhere). Arrays
//!   keep their order.
//! - Strings: `"` and `\` are written `\"` and `\\`; U+0008, U+0009, U+000A,
//!   U+000C, U+000D as `\b \t \n \f \r`; other U+0000–U+001F as `\u00xx`
//!   with lowercase hex; everything else (U+2028/9, DEL, invisible and
//!   non-ASCII characters included) literally as UTF-8. No Unicode
//!   normalisation of any kind, so look-alike strings keep distinct bytes.
//! - Numbers are exact and injective, never rounded through `f64`. The value
//!   zero (`-0`, `0.000`, `0e5`, ...) is `0`. Otherwise leading and trailing
//!   zeros are stripped to give significant digits `s` (n of them) and an
//!   integer k with value = s × 10^k; the scientific exponent is
//!   E = k + n − 1. If −7 < E < 21 the number is written in plain notation:
//!   `s` followed by k zeros when k ≥ 0, else with a decimal point inside `s`
//!   when E ≥ 0, else `0.` then −E−1 zeros then `s`. Otherwise it is written
//!   `d[.ddd]e+E` or `d[.ddd]e-E`. Negative values get a `-` prefix. So `1`,
//!   `1.0`, `1e0`, `10E-1` and `0.1e1` all give `1`; `1e21` gives `1e+21`;
//!   `0.000001` stays `0.000001`; `1e-7` gives `1e-7`; `9007199254740993`
//!   stays exact; `123456789012345678901234567890` gives
//!   `1.2345678901234567890123456789e+29`.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::io::{self, Write};
use std::ops::Range;

use super::number::Decomposed;
use super::{Member, Node, Number, Object, Span, Value};

pub const SCHEME: &str = "c14n-v1";

pub fn write_canonical<W: Write>(node: &Node, w: &mut W) -> io::Result<()> {
    match &node.value {
        Value::Null => w.write_all(b"null"),
        Value::Bool(true) => w.write_all(b"true"),
        Value::Bool(false) => w.write_all(b"false"),
        Value::Number(n) => w.write_all(canonical_number(n).as_bytes()),
        Value::String(s) => write_string_from(s, node.span, w),
        Value::Array(items) => {
            w.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                write_canonical(item, w)?;
            }
            w.write_all(b"]")
        }
        Value::Object(o) => write_canonical_object_filtered(o, &|_| true, w),
    }
}

pub fn to_canonical_vec(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_canonical(node, &mut out);
    out
}

/// Canonical bytes of an object keeping only the top-level members for which `keep(key)` is true.
pub fn write_canonical_object_filtered<W: Write>(
    obj: &Object,
    keep: &dyn Fn(&str) -> bool,
    w: &mut W,
) -> io::Result<()> {
    w.write_all(b"{")?;
    for (i, member) in sorted_unique(obj, keep).into_iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        write_string_from(&member.key, member.key_span, w)?;
        w.write_all(b":")?;
        write_canonical(&member.value, w)?;
    }
    w.write_all(b"}")
}

/// Where one member of an object sits in its canonical bytes.
pub struct MemberBytes<'o> {
    pub key: &'o str,
    /// `"key":value`.
    pub member: Range<usize>,
    pub value: Range<usize>,
}

/// [`write_canonical_object_filtered`] into `out`, also returning where each member is: the
/// canonical bytes of a member's value are those of the value alone, so one pass serves every
/// digest of a tool.
pub fn write_canonical_members<'o>(
    obj: &'o Object,
    keep: &dyn Fn(&str) -> bool,
    out: &mut Vec<u8>,
) -> Vec<MemberBytes<'o>> {
    let members = sorted_unique(obj, keep);
    let mut placed = Vec::with_capacity(members.len());
    out.push(b'{');
    for (i, member) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let start = out.len();
        // Writing into a Vec cannot fail.
        let _ = write_string_from(&member.key, member.key_span, out);
        out.push(b':');
        let value_start = out.len();
        let _ = write_canonical(&member.value, out);
        placed.push(MemberBytes {
            key: &member.key,
            member: start..out.len(),
            value: value_start..out.len(),
        });
    }
    out.push(b'}');
    placed
}

/// Key order of the canonical form: UTF-16 code units, as in RFC 8785.
pub fn compare_keys(a: &str, b: &str) -> Ordering {
    // Byte order equals UTF-16 order unless a character at or above U+E000 meets one above
    // U+FFFF, so the first byte that differs decides when either is ASCII: both strings are at
    // a character's start there, and an ASCII character's code unit is below every other's.
    // Keys are short: this loop was cheaper than a test of both for ASCII and then `memcmp`.
    let (a_bytes, b_bytes) = (a.as_bytes(), b.as_bytes());
    let same = a_bytes
        .iter()
        .zip(b_bytes)
        .take_while(|(x, y)| x == y)
        .count();
    match (a_bytes.get(same), b_bytes.get(same)) {
        (Some(x), Some(y)) if x.is_ascii() || y.is_ascii() => x.cmp(y),
        (Some(_), Some(_)) => a.encode_utf16().cmp(b.encode_utf16()),
        _ => a_bytes.len().cmp(&b_bytes.len()),
    }
}

/// Members in canonical order, each key once (its last occurrence).
fn sorted_unique<'o>(obj: &'o Object, keep: &dyn Fn(&str) -> bool) -> Vec<&'o Member> {
    let members = obj.members.iter().filter(|m| keep(&m.key)).collect();
    canonical_unique(members, |m| &m.key)
}

/// `items` in the canonical order of their keys, each key once (its last occurrence), as an
/// object with those members is written.
pub fn canonical_unique<T>(mut items: Vec<T>, key: impl Fn(&T) -> &str) -> Vec<T> {
    // Stable sort keeps equal keys in the given order, so the last of each run
    // is the last occurrence.
    items.sort_by(|a, b| compare_keys(key(a), key(b)));
    // In place: of a run of equal keys the first slot is kept, holding the last occurrence.
    items.dedup_by(|later, kept| {
        let same = key(later) == key(kept);
        if same {
            std::mem::swap(later, kept);
        }
        same
    });
    items
}

/// A string as the canonical (and pretty) form writes it, quoted and escaped.
pub fn write_string_into(s: &str, w: &mut Vec<u8>) {
    // Writing into a Vec cannot fail.
    let _ = write_string(s, w);
}

/// [`write_string`] for a string parsed from `literal`, its literal in the source: one no
/// longer than its decoded text and its quotes held no escape (each escape is longer than what
/// it stands for), and the parser takes no control character unescaped, so it needs none
/// either. A string built in code has an empty span and is scanned.
fn write_string_from<W: Write>(s: &str, literal: Span, w: &mut W) -> io::Result<()> {
    if literal.len() == s.len() + 2 {
        w.write_all(b"\"")?;
        w.write_all(s.as_bytes())?;
        return w.write_all(b"\"");
    }
    write_string(s, w)
}

fn write_string<W: Write>(s: &str, w: &mut W) -> io::Result<()> {
    w.write_all(b"\"")?;
    let bytes = s.as_bytes();
    let mut run_start = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if !needs_escape(b) {
            i += 1 + clean_prefix(bytes.get(i + 1..).unwrap_or_default());
            continue;
        }
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0c => b"\\f",
            b'\r' => b"\\r",
            _ => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ],
        };
        w.write_all(bytes.get(run_start..i).unwrap_or_default())?;
        w.write_all(escape)?;
        i += 1;
        run_start = i;
    }
    w.write_all(bytes.get(run_start..).unwrap_or_default())?;
    w.write_all(b"\"")
}

fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// How many leading bytes need no escape, eight at a time: tool text is long runs of plain
/// characters, and this scan was the largest single cost of fingerprinting. The same bytes end
/// a run a JSON string literal holds undecoded, so the parser uses it too.
pub(super) fn clean_prefix(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte of the result has its high bit set where `x` has a zero byte (exact for the
    // first zero byte, which is all the scan needs).
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut done = 0;
    for chunk in bytes.chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // Bytes below 0x20: subtracting 0x20 borrows into the high bit (for bytes < 0x80).
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
        let flagged = control
            | zero_bytes(x ^ (ONES * u64::from(b'"')))
            | zero_bytes(x ^ (ONES * u64::from(b'\\')));
        if flagged != 0 {
            return done + (flagged.trailing_zeros() / 8) as usize;
        }
        done += 8;
    }
    done + bytes
        .get(done..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&b| !needs_escape(b))
        .count()
}

const HEX: [u8; 16] = *b"0123456789abcdef";

pub fn canonical_number(n: &Number) -> String {
    let Decomposed::NonZero {
        negative,
        digits,
        exponent: k,
    } = n.decompose()
    else {
        return "0".to_owned();
    };
    let n_digits = i128::try_from(digits.len()).unwrap_or(i128::MAX);
    let e = k + n_digits - 1;
    let mut out = String::with_capacity(digits.len() + 24);
    if negative {
        out.push('-');
    }
    if -7 < e && e < 21 {
        if k >= 0 {
            out.push_str(&digits);
            // 0 <= k <= e < 21, so the conversion cannot fail.
            out.extend(std::iter::repeat_n('0', usize::try_from(k).unwrap_or(0)));
        } else if e >= 0 {
            let point = usize::try_from(e + 1).unwrap_or(0);
            let (int, frac) = digits.split_at_checked(point).unwrap_or((&digits, ""));
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n(
                '0',
                usize::try_from(-e - 1).unwrap_or(0),
            ));
            out.push_str(&digits);
        }
    } else {
        let (first, rest) = digits.split_at_checked(1).unwrap_or((&digits, ""));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push_str(if e < 0 { "e-" } else { "e+" });
        out.push_str(&e.unsigned_abs().to_string());
    }
    out
}

/// Sorted keys, 2-space indent, LF, no trailing newline; strings/numbers as in the canonical form; `{}` / `[]` when empty.
pub fn to_pretty_string(node: &Node) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_pretty(node, 0, &mut out);
    // Only valid UTF-8 is ever written, so the lossy path is never taken.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`to_pretty_string`]'s bytes for a value nested `indent` levels deep: a large document can
/// be rendered in parts (in parallel) and joined with [`write_pretty_pieces`].
pub fn write_pretty_at(node: &Node, indent: usize, w: &mut Vec<u8>) {
    // Writing into a Vec cannot fail.
    let _ = write_pretty(node, indent, w);
}

/// [`write_pretty_at`]'s bytes from the value's canonical bytes instead of its tree: the
/// pretty form is the canonical one with a line break and indentation after each opening
/// bracket and comma and before each closing bracket, and a space after each colon (strings
/// are copied whole). An approval writes a tool's definition this way from the canonical bytes
/// it hashes, instead of sorting the tree's keys a second time.
pub fn write_pretty_from_canonical(canonical: &[u8], indent: usize, w: &mut Vec<u8>) {
    let mut level = indent;
    let mut i = 0;
    while let Some(&b) = canonical.get(i) {
        match b {
            b'"' => {
                let end = super::raw_string_end(canonical, i).unwrap_or(canonical.len());
                w.extend_from_slice(canonical.get(i..end).unwrap_or_default());
                i = end;
                continue;
            }
            b'{' | b'[' if matches!(canonical.get(i + 1), Some(b'}' | b']')) => {
                w.push(b);
                w.push(canonical.get(i + 1).copied().unwrap_or(b));
                i += 2;
                continue;
            }
            b'{' | b'[' => {
                w.push(b);
                level += 1;
                newline(w, level);
            }
            b'}' | b']' => {
                level = level.saturating_sub(1);
                newline(w, level);
                w.push(b);
            }
            b',' => {
                w.push(b',');
                newline(w, level);
            }
            b':' => w.extend_from_slice(b": "),
            _ => w.push(b),
        }
        i += 1;
    }
}

/// A value rendered in parts: bytes from [`write_pretty_at`] at the value's depth, pieces from
/// [`write_pretty_pieces`] at that depth, or an object of such parts (members in any order).
pub enum Pretty<'k> {
    Rendered(Cow<'k, [u8]>),
    Pieces(Vec<Cow<'k, [u8]>>),
    Object(Vec<(Cow<'k, str>, Pretty<'k>)>),
}

/// Rendered parts at least this long stay pieces of their own instead of being copied.
const OWN_PIECE_MIN: usize = 1024;

/// The room [`Pieces::bytes_mut`] leaves: more than a lock's definitions mostly take (2.8 KB
/// in the bench corpus), and the bytes it starts afresh when there is less.
const WRITER_ROOM: usize = 16 * 1024;
const RUN_CAPACITY: usize = 128 * 1024;

/// Bytes to write one after the other: large rendered parts as they are, and the brackets,
/// keys and small parts between them joined.
#[derive(Default)]
pub struct Pieces<'k> {
    pieces: Vec<Cow<'k, [u8]>>,
    /// What follows the last piece, not yet a piece of its own.
    glue: Vec<u8>,
}

impl<'k> Pieces<'k> {
    fn push(&mut self, piece: Cow<'k, [u8]>) {
        if !self.glue.is_empty() {
            self.pieces.push(Cow::Owned(std::mem::take(&mut self.glue)));
        }
        self.pieces.push(piece);
    }

    /// A rendered part: a large one stays a piece of its own, a small one is copied.
    pub fn push_part(&mut self, bytes: Cow<'k, [u8]>) {
        if bytes.len() >= OWN_PIECE_MIN {
            self.push(bytes);
        } else {
            self.push_bytes(&bytes);
        }
    }

    pub fn push_bytes(&mut self, bytes: &[u8]) {
        self.glue.extend_from_slice(bytes);
    }

    /// Where the next bytes go, for a writer of its own (a lock's definition): with room for
    /// most, so that they are rarely grown, and copied, as they are written.
    pub fn bytes_mut(&mut self) -> &mut Vec<u8> {
        if self.glue.capacity() - self.glue.len() < WRITER_ROOM {
            let full = std::mem::replace(&mut self.glue, Vec::with_capacity(RUN_CAPACITY));
            if !full.is_empty() {
                self.pieces.push(Cow::Owned(full));
            }
        }
        &mut self.glue
    }

    pub fn finish(mut self) -> Vec<Cow<'k, [u8]>> {
        if !self.glue.is_empty() {
            self.pieces.push(Cow::Owned(self.glue));
        }
        self.pieces
    }
}

/// The bytes [`to_pretty_string`] gives for the whole value `parts` stands for, nested
/// `indent` levels deep, as pieces: the large rendered parts (a lock's stored definitions) are
/// not copied at all.
pub fn write_pretty_pieces<'k>(parts: Pretty<'k>, indent: usize, out: &mut Pieces<'k>) {
    match parts {
        Pretty::Rendered(bytes) => out.push_part(bytes),
        Pretty::Pieces(pieces) => {
            for piece in pieces {
                out.push_part(piece);
            }
        }
        Pretty::Object(mut members) => {
            members.sort_by(|a, b| compare_keys(&a.0, &b.0));
            write_pretty_members(members, indent, out, |value, out| {
                write_pretty_pieces(value, indent + 1, out);
            });
        }
    }
}

/// Where pretty-printing writes its brackets, commas, indentation and keys.
trait Glue {
    fn glue(&mut self) -> &mut Vec<u8>;
}

impl Glue for Vec<u8> {
    fn glue(&mut self) -> &mut Vec<u8> {
        self
    }
}

impl Glue for Pieces<'_> {
    fn glue(&mut self) -> &mut Vec<u8> {
        &mut self.glue
    }
}

fn write_pretty(node: &Node, indent: usize, w: &mut Vec<u8>) -> io::Result<()> {
    match &node.value {
        Value::Array(items) if !items.is_empty() => {
            w.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.push(b',');
                }
                newline(w, indent + 1);
                write_pretty(item, indent + 1, w)?;
            }
            newline(w, indent);
            w.push(b']');
        }
        Value::Object(o) => write_pretty_object(o, indent, w),
        _ => write_canonical(node, w)?,
    }
    Ok(())
}

fn write_pretty_object(object: &Object, indent: usize, w: &mut Vec<u8>) {
    let members: Vec<(&str, &Node)> = sorted_unique(object, &|_| true)
        .into_iter()
        .map(|member| (member.key.as_str(), &member.value))
        .collect();
    write_pretty_members(members, indent, w, |value, w| {
        // Writing into a Vec cannot fail.
        let _ = write_pretty(value, indent + 1, w);
    });
}

/// A pretty object nested `indent` levels deep whose members' values are written by `write`,
/// one after the other, into `w` after what the layout put there (which `write` may take out
/// and pass on: a lock written as a stream does). Members come in the order given: canonical
/// when sorted with [`compare_keys`].
pub fn write_pretty_object_with<K: AsRef<str>, V>(
    members: impl IntoIterator<Item = (K, V)>,
    indent: usize,
    w: &mut Vec<u8>,
    write: impl FnMut(V, &mut Vec<u8>),
) {
    write_pretty_members(members, indent, w, write);
}

/// [`write_pretty_object_with`] into pieces: `write` may push parts of its own.
pub fn write_pretty_object_pieces<'k, K: AsRef<str>, V>(
    members: impl IntoIterator<Item = (K, V)>,
    indent: usize,
    out: &mut Pieces<'k>,
    write: impl FnMut(V, &mut Pieces<'k>),
) {
    write_pretty_members(members, indent, out, write);
}

/// The layout every pretty object shares: `{}` when empty, else each member (in the order
/// given) on a line of its own one level in; `write` writes a member's value at that level.
fn write_pretty_members<K: AsRef<str>, V, W: Glue>(
    members: impl IntoIterator<Item = (K, V)>,
    indent: usize,
    w: &mut W,
    mut write: impl FnMut(V, &mut W),
) {
    let mut empty = true;
    for (key, value) in members {
        let glue = w.glue();
        glue.push(if empty { b'{' } else { b',' });
        empty = false;
        newline(glue, indent + 1);
        // Writing into a Vec cannot fail.
        let _ = write_string(key.as_ref(), glue);
        glue.extend_from_slice(b": ");
        write(value, w);
    }
    let glue = w.glue();
    if empty {
        glue.extend_from_slice(b"{}");
    } else {
        newline(glue, indent);
        glue.push(b'}');
    }
}

fn newline(w: &mut Vec<u8>, level: usize) {
    w.push(b'\n');
    w.extend(std::iter::repeat_n(b' ', level * 2));
}

#[cfg(test)]
mod tests;
