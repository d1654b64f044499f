//! A locked tool's approved definition, and what verifying it against its digests needs.
//!
//! A lock stores every definition, so it is most of the largest file of a run (370 MB for
//! 100k tools). Reading it builds no tree for them: each server is parsed with its
//! definitions skipped over, then every definition is hashed for `lock-integrity` on its own,
//! in parallel, straight from its text when that is as mcp-scan writes it, else parsed into a
//! tree and dropped; only its place in the text is kept, and what it hashed to only when that
//! differs from the digests stored beside it. The few that a run needs again (a drifted tool's
//! fields, `diff`) are parsed from there.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

use crate::fingerprint::{DigestText, FieldDigests, FingerprintOptions, ToolDigest};
use crate::json::canonical::{Pieces, write_pretty_at, write_pretty_from_canonical};
use crate::json::{Dialect, Limits, Node, Object, Span, parse, parse_value_at};
use crate::on_disk::{OnDisk, Sealed};
use crate::spill::Spill;

#[derive(Clone, Debug)]
pub enum Definition {
    /// Built in code, or not read (a lockfile given as an input, whose tools are read from the
    /// document itself: null).
    Tree(Box<Node>),
    /// A new approval, as the tool's canonical bytes (as hashed), written pretty at
    /// `DEFINITION_INDENT` as the lockfile is rendered: a lock holds every new approval until
    /// it is written, and the canonical bytes are about 60% of the pretty ones (1.76 KB a tool
    /// against 2.8 KB in the bench corpus).
    Canonical(Arc<Approved>),
    /// In a lockfile's text.
    Stored(Arc<Stored>),
    /// A new approval that is exactly a stored definition's text (an unchanged tool,
    /// re-approved), on disk, so that re-approving a large lock does not hold a second copy of
    /// every definition.
    Kept(Arc<Stored>),
}

/// Where a new approval's canonical bytes are: behind one pointer, as a lock of 1M tools and
/// what refreshing it builds hold a definition for each tool several times over (with the
/// spill's place unboxed, a definition took six words, and a 1M refresh 200 MB more).
#[derive(Debug)]
pub enum Approved {
    Held(Box<[u8]>),
    /// Appended to the run's spill (see [`crate::spill`]), past its budget for memory.
    Spilled {
        file: Arc<OnDisk>,
        span: Span,
        sealed: Sealed,
    },
}

impl Approved {
    /// The canonical bytes: empty when they were spilled and the spill no longer holds them
    /// (which the file remembers, see [`OnDisk::changed`]).
    fn canonical(&self) -> Cow<'_, [u8]> {
        match self {
            Approved::Held(bytes) => Cow::Borrowed(bytes),
            Approved::Spilled { file, span, sealed } => {
                Cow::Owned(file.read_at(*span, *sealed).unwrap_or_default())
            }
        }
    }
}

/// How deep a definition sits in the lockfile (`servers.<name>.tools.<name>.definition`).
pub const DEFINITION_INDENT: usize = 5;

#[derive(Debug)]
pub struct Stored {
    text: StoredText,
    /// Nesting allowed inside the definition: what the whole document allows, less the depth
    /// it sits at.
    limits: Limits,
    verified: Verified,
}

#[derive(Debug)]
enum StoredText {
    /// At `span` of a lockfile's text (or of one server's) held in memory.
    Held { text: Arc<String>, span: Span },
    /// At `span` of the lockfile on disk, as `sealed`: a lock read as a stream keeps none of
    /// its definitions, and reads one again where a run needs it (a drifted tool's fields).
    OnDisk {
        file: Arc<OnDisk>,
        span: Span,
        sealed: Sealed,
    },
}

impl Stored {
    /// The definition's text in the lockfile: empty when it is on disk and the file no longer
    /// holds it (which the file remembers, see [`OnDisk::changed`]).
    fn raw(&self) -> Cow<'_, [u8]> {
        match &self.text {
            StoredText::Held { text, span } => Cow::Borrowed(bytes_at(text, *span)),
            StoredText::OnDisk { file, span, sealed } => {
                Cow::Owned(file.read_at(*span, *sealed).unwrap_or_default())
            }
        }
    }
}

/// The stored text of `previous`, when it is exactly `bytes`.
fn stored_as(previous: &Definition, bytes: &[u8]) -> Option<Arc<Stored>> {
    match previous {
        Definition::Stored(stored) | Definition::Kept(stored) if *stored.raw() == *bytes => {
            Some(Arc::clone(stored))
        }
        _ => None,
    }
}

/// The bytes of `text` at `span` (empty if the span is not in it).
fn bytes_at(text: &str, span: Span) -> &[u8] {
    text.as_bytes()
        .get(span.start..span.end)
        .unwrap_or_default()
}

/// What hashing a stored definition found.
#[derive(Debug)]
pub(super) enum Verified {
    /// Exactly the name, digest and field digests stored beside it (found while hashing its
    /// text, see `lock::as_written`, or by [`Definition::settle`]): nothing more to keep, which
    /// is most of a large lock's memory for `lock-integrity`. `pretty`: the text is also
    /// exactly what an approval writes for those canonical bytes (found by `lock::as_written`),
    /// so a tool approved again with that digest can keep it as it is.
    AsStored { pretty: bool },
    /// Anything else: what it hashed to (`None`: not an object).
    /// Boxed: most definitions verify as stored, and a lock keeps one of these for each.
    Hashed(Option<Box<Hashed>>),
}

/// What `lock-integrity` compares with the digests stored beside a definition.
#[derive(Debug)]
pub enum Integrity<'a> {
    /// The definition hashes to exactly them, under the tool's name.
    AsStored,
    Hashed(Cow<'a, Hashed>),
    /// Not an object: nothing to compare.
    NotAnObject,
}

/// The digests a lockfile stores beside a definition (its tool's `digest` and `fields`).
#[derive(Clone, Copy, Debug)]
pub struct Beside<'a> {
    pub digest: &'a str,
    /// `None` when not an object (the lock's decoding says so).
    pub fields: Option<&'a Object>,
}

/// What `lock-integrity` compares with the stored digests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hashed {
    pub digest: ToolDigest,
    /// The definition's own `name`, when it is a string.
    pub name: Option<String>,
}

impl Hashed {
    pub fn of(definition: &Node, options: &FingerprintOptions) -> Option<Hashed> {
        let object = definition.as_object()?;
        Some(Hashed {
            digest: ToolDigest::of(object, options),
            name: object.get("name").and_then(Node::as_str).map(str::to_owned),
        })
    }
}

impl Definition {
    /// The definition of tool `tool` at `span` of `text`, hashed with the lock's `options`:
    /// from the text itself when it is as mcp-scan writes it and matches the digest stored
    /// `beside` it (see `lock::as_written`), else parsed and hashed as a tree; the parse error
    /// (with its offset in `text`) when it is not valid JSON.
    pub fn stored(
        text: &Arc<String>,
        span: Span,
        limits: Limits,
        options: &FingerprintOptions,
        tool: &str,
        beside: Option<Beside<'_>>,
    ) -> Result<Definition, crate::json::ParseError> {
        let as_written = beside.and_then(|beside| {
            let raw = bytes_at(text, span);
            super::as_written::verified_from_text(raw, tool, &beside, options, limits.max_depth)
        });
        let verified = match as_written {
            Some(verified) => verified,
            None => Verified::Hashed(
                Hashed::of(
                    &parse_value_at(text, span, Dialect::Json, &limits, None)?,
                    options,
                )
                .map(Box::new),
            ),
        };
        Ok(Definition::Stored(Arc::new(Stored {
            text: StoredText::Held {
                text: Arc::clone(text),
                span,
            },
            limits,
            verified,
        })))
    }

    /// A stored definition whose text starts `offset` bytes into the lockfile `file` lets go
    /// of it, to be read from the file again where it is needed.
    pub fn leave_on_disk(&mut self, file: &Arc<OnDisk>, offset: usize) {
        let Definition::Stored(stored) = self else {
            return;
        };
        let Some(stored) = Arc::get_mut(stored) else {
            return;
        };
        if let StoredText::Held { text, span } = &stored.text {
            stored.text = StoredText::OnDisk {
                file: Arc::clone(file),
                span: Span {
                    start: offset + span.start,
                    end: offset + span.end,
                },
                sealed: Sealed::of(bytes_at(text, *span)),
            };
        }
    }

    /// Drops what a stored definition hashed to when it is exactly what is stored beside it:
    /// tool `name` with `digest` and `fields` (the common case, and then `lock-integrity` has
    /// nothing to report).
    pub fn settle(&mut self, name: &str, digest: &DigestText, fields: &FieldDigests) {
        let Definition::Stored(stored) = self else {
            return;
        };
        let Some(stored) = Arc::get_mut(stored) else {
            return;
        };
        if let Verified::Hashed(Some(hashed)) = &stored.verified
            && hashed.name.as_deref() == Some(name)
            && hashed.digest.digest == *digest
            && hashed.digest.fields == *fields
        {
            stored.verified = Verified::AsStored { pretty: false };
        }
    }

    /// Whether this is a stored definition that hashes to exactly the name, digest and field
    /// digests stored beside it.
    pub fn verified_as_stored(&self) -> bool {
        matches!(self, Definition::Stored(stored) if matches!(stored.verified, Verified::AsStored { .. }))
    }

    /// A stored definition approved again for a tool whose digest is the one stored beside
    /// it: kept as it is, when its text is exactly what approving the tool would write and
    /// the field digests stored beside it are its own (so the approval can keep those too).
    /// Hashing its text to that digest showed it holds the tool's canonical bytes, so nothing
    /// needs to be written out and compared.
    pub fn kept_unchanged(&self) -> Option<Definition> {
        match self {
            Definition::Stored(stored)
                if matches!(stored.verified, Verified::AsStored { pretty: true }) =>
            {
                Some(Definition::Kept(Arc::clone(stored)))
            }
            _ => None,
        }
    }

    /// An approved definition from its canonical bytes (the tool as hashed: without `_meta`
    /// and excluded fields): the `previous` definition of the tool when that is stored as
    /// exactly what the lockfile would hold for these bytes; else the bytes themselves, held
    /// within `spill`'s budget for memory, past it appended to the spill.
    pub fn approved(
        canonical: &[u8],
        previous: Option<&Definition>,
        spill: Option<&Spill>,
    ) -> Definition {
        thread_local! {
            /// The pretty form, compared with the previous definition.
            static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
        }
        if let Some(previous @ (Definition::Stored(_) | Definition::Kept(_))) = previous {
            let kept = SCRATCH.with_borrow_mut(|scratch| {
                scratch.clear();
                write_pretty_from_canonical(canonical, DEFINITION_INDENT, scratch);
                stored_as(previous, scratch)
            });
            if let Some(stored) = kept {
                return Definition::Kept(stored);
            }
        }
        let spilled = spill.and_then(|spill| spill.take(canonical));
        Definition::Canonical(Arc::new(match spilled {
            Some((file, span)) => Approved::Spilled {
                file: Arc::clone(file),
                span,
                sealed: Sealed::of(canonical),
            },
            None => Approved::Held(Box::from(canonical)),
        }))
    }

    /// The file this definition was read back from (the previous lockfile, or the spill),
    /// when it no longer held it (its [`Definition::written`] bytes were then empty).
    pub fn changed_on_disk(&self) -> Option<&std::path::Path> {
        match self {
            Definition::Stored(stored) | Definition::Kept(stored) => match &stored.text {
                StoredText::OnDisk { file, .. } if file.changed() => Some(file.path()),
                _ => None,
            },
            Definition::Canonical(approved) => match &**approved {
                Approved::Spilled { file, .. } if file.changed() => Some(file.path()),
                _ => None,
            },
            Definition::Tree(_) => None,
        }
    }

    /// Writes the bytes the lockfile holds for this definition, at [`DEFINITION_INDENT`], to
    /// `out`: a new approval straight from its canonical bytes, a kept one as a piece of the
    /// previous lock's text (not copied).
    pub fn write_to<'d>(&'d self, out: &mut Pieces<'d>) {
        match self {
            Definition::Canonical(approved) => {
                let canonical = approved.canonical();
                if !canonical.is_empty() {
                    write_pretty_from_canonical(&canonical, DEFINITION_INDENT, out.bytes_mut());
                }
            }
            Definition::Kept(stored) => out.push_part(stored.raw()),
            Definition::Tree(_) | Definition::Stored(_) => {
                write_pretty_at(&self.node(), DEFINITION_INDENT, out.bytes_mut());
            }
        }
    }

    /// The bytes [`Definition::write_to`] writes, in one piece.
    #[cfg(test)]
    pub fn written(&self) -> Cow<'_, [u8]> {
        let mut pieces = Pieces::default();
        self.write_to(&mut pieces);
        Cow::Owned(pieces.finish().concat())
    }

    /// The definition as a tree: parsed again from the text it is written in, if it is.
    pub fn node(&self) -> Cow<'_, Node> {
        match self {
            Definition::Tree(node) => Cow::Borrowed(node),
            Definition::Canonical(approved) => Cow::Owned(
                // The canonical bytes of a parsed tree, so valid JSON within the limits.
                std::str::from_utf8(&approved.canonical())
                    .ok()
                    .and_then(|text| parse(text, Dialect::Json, &Limits::default()).ok())
                    .unwrap_or_else(Node::null),
            ),
            Definition::Stored(stored) | Definition::Kept(stored) => Cow::Owned(
                // It parsed when the lock was read; the text has not changed since (or the file
                // says it has, and the run fails).
                std::str::from_utf8(&stored.raw())
                    .ok()
                    .and_then(|text| parse(text, Dialect::Json, &stored.limits).ok())
                    .unwrap_or_else(Node::null),
            ),
        }
    }

    /// The digests of the definition under `options`, which for a stored definition must be
    /// the options of the lock it was read from (they were computed when it was read).
    pub fn integrity(&self, options: &FingerprintOptions) -> Integrity<'_> {
        let hashed = match self {
            // A kept definition's stored hashes are the previous lock's, under its options.
            Definition::Tree(_) | Definition::Canonical(_) | Definition::Kept(_) => {
                Hashed::of(&self.node(), options).map(Cow::Owned)
            }
            Definition::Stored(stored) => match &stored.verified {
                Verified::AsStored { .. } => return Integrity::AsStored,
                Verified::Hashed(hashed) => hashed.as_deref().map(Cow::Borrowed),
            },
        };
        hashed.map_or(Integrity::NotAnObject, Integrity::Hashed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored definition keeps what it hashed to unless that is exactly what is stored
    /// beside it, and `lock-integrity` sees the difference either way.
    #[test]
    fn settles_only_on_exactly_the_stored_digests() {
        let options = FingerprintOptions::default();
        let text = Arc::new(r#"{"description":"d","name":"t"}"#.to_string());
        let span = Span {
            start: 0,
            end: text.len(),
        };
        let tree = parse(&text, Dialect::Json, &Limits::default()).unwrap();
        let want = Hashed::of(&tree, &options).unwrap();
        let stored =
            || Definition::stored(&text, span, Limits::default(), &options, "t", None).unwrap();
        let other_fields = want.digest.fields.with("title", "sha256:00");
        let other_digest = DigestText::parse("sha256:00");
        let cases = [
            ("t", &want.digest.digest, &want.digest.fields, true),
            ("u", &want.digest.digest, &want.digest.fields, false),
            ("t", &other_digest, &want.digest.fields, false),
            ("t", &want.digest.digest, &other_fields, false),
        ];
        for (name, digest, fields, as_stored) in cases {
            let mut definition = stored();
            definition.settle(name, digest, fields);
            match definition.integrity(&options) {
                Integrity::AsStored => assert!(as_stored, "{name} {digest}"),
                Integrity::Hashed(hashed) => {
                    assert!(!as_stored, "{name} {digest}");
                    assert_eq!(*hashed, want);
                }
                Integrity::NotAnObject => panic!("an object"),
            }
        }
    }

    /// The canonical bytes of a definition's tree (its spans are in whatever text it was
    /// parsed from).
    fn canonical_of(definition: &Definition) -> Vec<u8> {
        crate::json::canonical::to_canonical_vec(&definition.node())
    }

    /// A lock holds a definition for every tool, and a refresh several: two words each.
    #[test]
    fn a_definition_is_two_words() {
        assert!(std::mem::size_of::<Definition>() <= 2 * std::mem::size_of::<usize>());
    }

    /// Re-approving keeps a stored definition only when it is stored as exactly the bytes the
    /// approval would write; what is written is the same either way.
    #[test]
    fn an_approval_keeps_a_stored_definition_written_as_it_would_be() {
        let options = FingerprintOptions::default();
        let canonical = br#"{"description":"d","name":"t"}"#;
        let fresh = Definition::approved(canonical, None, None);
        assert!(matches!(fresh, Definition::Canonical(_)));
        let as_written = String::from_utf8(fresh.written().into_owned()).unwrap();
        for (text, kept) in [
            (as_written.clone(), true),
            (String::from_utf8(canonical.to_vec()).unwrap(), false),
        ] {
            let text = Arc::new(text);
            let span = Span {
                start: 0,
                end: text.len(),
            };
            let stored =
                Definition::stored(&text, span, Limits::default(), &options, "t", None).unwrap();
            let approved = Definition::approved(canonical, Some(&stored), None);
            assert_eq!(matches!(approved, Definition::Kept(_)), kept, "{text}");
            assert_eq!(approved.written(), fresh.written(), "{text}");
            assert_eq!(canonical_of(&approved), canonical, "{text}");
        }
    }

    /// A new definition appended to a spill is written back as it would be from memory; a
    /// spill edited behind the run's back gives nothing, and says so.
    #[cfg(unix)]
    #[test]
    fn a_spilled_approval_writes_what_memory_would() {
        use std::os::unix::fs::FileExt;
        let canonical = br#"{"description":"d","name":"t"}"#;
        let fresh = Definition::approved(canonical, None, None);
        let dir = tempfile::tempdir().unwrap();
        let within_budget = Spill::beside(&dir.path().join("mcp.lock"));
        let held = Definition::approved(canonical, None, Some(&within_budget));
        assert!(
            matches!(&held, Definition::Canonical(approved) if matches!(**approved, Approved::Held(_)))
        );
        let spill = Spill::on_disk_only(&dir.path().join("mcp.lock"));
        let spilled = Definition::approved(canonical, None, Some(&spill));
        let Definition::Canonical(approved) = &spilled else {
            panic!("an approval");
        };
        let Approved::Spilled { file, .. } = &**approved else {
            panic!("spilled");
        };
        assert_eq!(spilled.written(), fresh.written());
        assert_eq!(canonical_of(&spilled), canonical);
        assert_eq!(canonical_of(&fresh), canonical);
        assert!(spilled.changed_on_disk().is_none());
        file.handle().unwrap().write_all_at(b"[", 0).unwrap();
        assert!(spilled.written().is_empty());
        assert!(spilled.changed_on_disk().is_some());
    }
}
