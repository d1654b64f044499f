//! Verifying a stored definition straight from its text, without parsing it into a tree.
//!
//! mcp-scan writes each definition pretty-printed from its canonical form (sorted keys,
//! canonical strings and numbers), so dropping the whitespace around its structural characters
//! gives back the canonical bytes its digest was computed from. When those bytes hash to the
//! stored digest they *are* those canonical bytes (the hash is collision-resistant): so the text
//! is valid JSON (whitespace was dropped only where JSON allows it), its canonical form is
//! itself, and every digest `lock-integrity` compares is the hash of a slice of it: each is
//! compared with the one stored beside it as it is hashed, and none is kept unless one differs.
//! Anything else (a definition edited or written by other means, a digest that does not match,
//! an excluded field, a stored name that differs) is parsed and hashed as a tree instead, which
//! validates it and says what is wrong.

use super::definition::{Beside, DEFINITION_INDENT, Hashed, Verified};
use crate::fingerprint::{
    DigestText, FingerprintOptions, ToolDigest, bytes_digest_is, field_digests, field_digests_are,
};
use crate::json::canonical::{MemberBytes, to_canonical_vec};
use crate::json::{Node, raw_string_end};

/// What the definition `raw` (its text in the lockfile) of tool `tool` hashes to, when its text
/// is as mcp-scan writes it and hashes to the digest stored `beside` it; `None` otherwise.
/// Verified as stored, it is also found pretty when its text is exactly what an approval
/// writes for its canonical bytes (pretty, at [`DEFINITION_INDENT`]).
pub fn verified_from_text(
    raw: &[u8],
    tool: &str,
    beside: &Beside<'_>,
    options: &FingerprintOptions,
    max_depth: usize,
) -> Option<Verified> {
    let Compact { canonical, pretty } = compact(raw, max_depth)?;
    let algorithm = options.algorithm;
    if !bytes_digest_is(algorithm, &canonical, beside.digest) {
        return None;
    }
    let members = top_level_members(&canonical)?;
    // A field the digest leaves out is in the text: the tree says what that means.
    if members.iter().any(|m| !options.hashes_field(m.key)) {
        return None;
    }
    let name = members
        .iter()
        .find(|m| m.key == "name")
        .and_then(|m| canonical.get(m.value.clone()));
    if name != Some(to_canonical_vec(&Node::string(tool)).as_slice()) {
        return None;
    }
    let verified = if beside
        .fields
        .is_some_and(|stored| field_digests_are(algorithm, &canonical, &members, stored))
    {
        Verified::AsStored { pretty }
    } else {
        Verified::Hashed(Some(Box::new(Hashed {
            digest: ToolDigest {
                fields: field_digests(algorithm, &canonical, &members),
                digest: DigestText::parse(beside.digest),
            },
            name: Some(tool.to_string()),
        })))
    };
    Some(verified)
}

/// A definition's text without its whitespace, and whether that whitespace was laid out as
/// the pretty form lays it out.
struct Compact {
    canonical: Vec<u8>,
    pretty: bool,
}

/// `raw` without the whitespace next to a structural character (`{}[],:`) outside strings:
/// the only whitespace JSON allows besides around the whole text. `None` when other whitespace
/// is found (between two tokens, which would glue them together), a string does not end, or
/// the nesting goes deeper than `max_depth`. While every gap between two tokens is the one
/// [`write_pretty_from_canonical`](crate::json::canonical::write_pretty_from_canonical) puts
/// there, each is stepped over whole, as [`Compact::pretty`] expects it.
fn compact(raw: &[u8], max_depth: usize) -> Option<Compact> {
    let structural = |b: u8| matches!(b, b'{' | b'}' | b'[' | b']' | b',' | b':');
    let space = |b: &u8| matches!(b, b' ' | b'\n' | b'\t' | b'\r');
    let mut out = Vec::with_capacity(raw.len());
    let mut depth = 0usize;
    let mut pretty = true;
    // Whether whitespace came right before the token at `i`.
    let mut after_gap = false;
    let mut i = 0;
    while let Some(&b) = raw.get(i) {
        if space(&b) {
            let rest = raw.get(i..)?;
            let before = out.last().copied();
            if pretty && let Some(run) = pretty_gap(rest, before, depth) {
                i += run;
                after_gap = true;
                continue;
            }
            pretty = false;
            let run = rest.iter().position(|b| !space(b)).unwrap_or(rest.len());
            let after = raw.get(i + run).copied();
            if !before.is_some_and(structural) && !after.is_some_and(structural) {
                return None;
            }
            i += run;
            continue;
        }
        if pretty && !after_gap && wants_gap(out.last().copied(), b) {
            pretty = false;
        }
        after_gap = false;
        match b {
            b'"' => {
                let end = raw_string_end(raw, i)?;
                out.extend_from_slice(raw.get(i..end)?);
                i = end;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > max_depth {
                    return None;
                }
            }
            b'}' | b']' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        out.push(b);
        i += 1;
    }
    Some(Compact {
        canonical: out,
        pretty,
    })
}

/// Indentation to compare a pretty line's with: deeper lines are not taken as pretty (the text
/// is then compacted all the same, and only not kept as written).
const SPACES: [u8; 256] = [b' '; 256];

/// The length of the gap at the start of `rest` when it is the whitespace the pretty form puts
/// after `before` (the last byte of the compact text so far), `depth` brackets in: a space
/// after a colon; a line break and indentation after an opening bracket or a comma, and before
/// a closing bracket. `None` for any other gap.
fn pretty_gap(rest: &[u8], before: Option<u8>, depth: usize) -> Option<usize> {
    let closing = |at: usize| matches!(rest.get(at), Some(b'}' | b']'));
    let token = |at: usize| rest.get(at).is_some_and(|b| !b.is_ascii_whitespace());
    let line = |level: usize| {
        let width = 2 * (DEFINITION_INDENT + level);
        (rest.get(1..=width)? == SPACES.get(..width)?).then_some(1 + width)
    };
    let run = match (rest.first()?, before?) {
        (b' ', b':') => 1,
        (b'\n', b'{' | b'[' | b',') => line(depth).filter(|&run| !closing(run))?,
        (b'\n', _) => line(depth.checked_sub(1)?).filter(|&run| closing(run))?,
        _ => return None,
    };
    token(run).then_some(run)
}

/// Whether the pretty form puts whitespace between `before` (the last byte of the compact text
/// so far) and the token `after`: everywhere [`pretty_gap`] takes one, but inside an empty pair
/// of brackets.
fn wants_gap(before: Option<u8>, after: u8) -> bool {
    let closing = matches!(after, b'}' | b']');
    match before {
        Some(b'{' | b'[') => !closing,
        Some(b':' | b',') => true,
        _ => closing,
    }
}

/// Where each member of the compact object `text` is. Keys of canonical text are canonical
/// strings, taken here as they are written between their quotes (the keys compared with them
/// are plain ASCII).
fn top_level_members(text: &[u8]) -> Option<Vec<MemberBytes<'_>>> {
    if text.first() != Some(&b'{') || text.last() != Some(&b'}') {
        return None;
    }
    let mut members = Vec::new();
    let mut i = 1;
    let end = text.len() - 1;
    while i < end {
        if text.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = raw_string_end(text, i)?;
        if text.get(key_end) != Some(&b':') {
            return None;
        }
        // The value runs to the next comma (or the end) outside strings and brackets.
        let mut depth = 0usize;
        let mut j = key_end + 1;
        while j < end {
            match text.get(j)? {
                b'"' => {
                    j = raw_string_end(text, j)?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth = depth.checked_sub(1)?,
                b',' if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        let key = std::str::from_utf8(text.get(i + 1..key_end - 1)?).ok()?;
        members.push(MemberBytes {
            key,
            member: i..j,
            value: key_end + 1..j,
        });
        i = j + 1;
    }
    Some(members)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::bytes_digest;
    use crate::json::canonical::{to_canonical_vec, write_pretty_at};
    use crate::json::{Dialect, Limits, Object, parse};

    fn tree(text: &str) -> Node {
        parse(text, Dialect::Json, &Limits::default()).unwrap()
    }

    /// The lock's `fields` object for `fields`.
    fn fields_object(fields: &crate::fingerprint::FieldDigests) -> Object {
        Object::from_pairs(fields.iter().map(|(k, v)| (k, Node::string(v.to_string()))))
    }

    /// Written as the lock writes it (pretty, five levels deep), the text gives the digests
    /// of the tree: nothing is kept when the field digests stored beside it are exactly those,
    /// and all of them are otherwise.
    #[test]
    fn agrees_with_hashing_the_tree() {
        let options = FingerprintOptions::default();
        let definitions = [
            r#"{"name": "t", "description": "say \"hi\"\n\tthen {stop}, [ok]: done", "inputSchema": {"type": "object", "properties": {"a b": {"enum": [1, 2.50, "x"]}}}, "x-extra": [true, null], "annotations": {}}"#,
            r#"{"name": "t"}"#,
            r#"{"title": "T", "name": "t", "zz": {"nested": [[], {}]}}"#,
        ];
        for text in definitions {
            let node = tree(text);
            let mut written = Vec::new();
            write_pretty_at(&node, 5, &mut written);
            let want = Hashed::of(&node, &options).unwrap();
            let same = fields_object(&want.digest.fields);
            let fields = &want.digest.fields;
            let other = fields.with(fields.keys().next().unwrap(), "sha256:00");
            let extra = fields.with("outputSchema", "sha256:00");
            let (other, extra) = (fields_object(&other), fields_object(&extra));
            for (fields, as_stored) in [
                (Some(&same), true),
                (None, false),
                (Some(&other), false),
                (Some(&extra), false),
            ] {
                let digest = want.digest.digest.to_string();
                let beside = Beside {
                    digest: &digest,
                    fields,
                };
                match verified_from_text(&written, "t", &beside, &options, 250) {
                    Some(Verified::AsStored { pretty }) => assert!(as_stored && pretty, "{text}"),
                    Some(Verified::Hashed(got)) => {
                        assert!(!as_stored, "{text}");
                        assert_eq!(got.as_deref(), Some(&want), "{text}");
                    }
                    None => panic!("not taken: {text}"),
                }
            }
        }
    }

    /// The text is found pretty exactly when it is what the lock writes for its canonical
    /// bytes: any other whitespace (another indentation, a line joined or broken, a space
    /// more or less) compacts to the same bytes, but is not kept as written.
    #[test]
    fn pretty_only_when_laid_out_as_the_lock_writes_it() {
        let text = r#"{"name": "t", "description": "a: {b}, [c]", "inputSchema": {"type": "object", "properties": {"a": {"enum": [1, "x", []]}}, "required": []}, "annotations": {}}"#;
        let node = tree(text);
        let canonical = to_canonical_vec(&node);
        let mut written = Vec::new();
        write_pretty_at(&node, DEFINITION_INDENT, &mut written);
        let written = String::from_utf8(written).unwrap();
        let mut deeper = Vec::new();
        write_pretty_at(&node, DEFINITION_INDENT + 1, &mut deeper);
        let deeper = String::from_utf8(deeper).unwrap();
        let indent = format!("\n{}", " ".repeat(2 * (DEFINITION_INDENT + 1)));
        let variants = [
            written.clone(),
            String::from_utf8(canonical.clone()).unwrap(),
            deeper,
            written.replacen(": ", ":", 1),
            written.replacen(": ", ":  ", 1),
            written.replacen(&indent, &format!("{indent} "), 1),
            written.replacen(&indent, "\n", 1),
            written.replacen(",\n", " ,\n", 1),
            written.replacen("[]", "[ ]", 1),
            written.replacen("{}", "{\n}", 1),
            written.replacen('\n', "\r\n", 1),
            written.replacen(&indent, &indent.replacen(' ', "\t", 1), 1),
            format!("{}\n}}", written.strip_suffix('}').unwrap().trim_end()),
        ];
        for variant in &variants {
            let found = compact(variant.as_bytes(), 250).unwrap();
            assert_eq!(found.canonical, canonical, "{variant}");
            assert_eq!(found.pretty, *variant == written, "{variant}");
        }
    }

    #[test]
    fn anything_else_goes_to_the_tree() {
        let options = FingerprintOptions::default();
        let digest_of = |bytes: &str| bytes_digest(options.algorithm, bytes.as_bytes()).to_string();
        let tree_digest = |text: &str| {
            let hashed = Hashed::of(&tree(text), &options).unwrap();
            hashed.digest.digest.to_string()
        };
        let taken = |text: &str, tool: &str, digest: &str, depth: usize| {
            let beside = Beside {
                digest,
                fields: None,
            };
            verified_from_text(text.as_bytes(), tool, &beside, &options, depth).is_some()
        };
        let good = r#"{"description":"d","name":"t"}"#;
        let digest = tree_digest(good);
        assert!(taken(good, "t", &digest, 250));
        // Keys out of order, a non-canonical escape: not the bytes that were hashed.
        for text in [
            r#"{"name":"t","description":"d"}"#,
            r#"{"description":"\u0064","name":"t"}"#,
        ] {
            assert!(!taken(text, "t", &digest, 250), "{text}");
        }
        // Another tool's name, a digest that does not match, too deep.
        assert!(!taken(good, "u", &digest, 250));
        assert!(!taken(good, "t", "sha256:00", 250));
        assert!(!taken(good, "t", &digest, 0));
        // An excluded field, and glued tokens, even when the hash is theirs.
        let meta = r#"{"_meta":{},"name":"t"}"#;
        assert!(!taken(meta, "t", &digest_of(meta), 250));
        let glued = r#"{"name":"t" ,"x":tr ue}"#;
        assert!(!taken(
            glued,
            "t",
            &digest_of(r#"{"name":"t","x":true}"#),
            250
        ));
    }
}
