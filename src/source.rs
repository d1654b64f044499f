//! The files a run read, kept once so that every finding can point into them.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::error::Error;
use crate::json::seek::seek;
use crate::json::{Dialect, Limits, Node, Pointer, Span, lines::LineIndex, parse, parse_value_at};
use crate::on_disk::{OnDisk, Sealed};

/// Index of a file in [`Sources`]; cheap to copy into every location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceId(pub usize);

pub struct SourceFile {
    /// The path as the user will read it: relative to the working directory when possible.
    pub path: PathBuf,
    text: Text,
    /// The parsed document, for JSON sources; spans are resolved against it.
    root: OnceLock<Option<Node>>,
    lines: OnceLock<LineIndex>,
}

enum Text {
    /// Shared with the lock's stored definitions, which are parsed from it on demand.
    /// `rereadable`: read from `path` as it is, so it may be freed and read again.
    Held { text: Arc<String>, rereadable: bool },
    /// Not in memory: freed once the checks of the file alone have run (a snapshot's text is
    /// most of what a large run would otherwise hold to the end), or never held whole (a
    /// lockfile read as a stream); read again from the file when asked.
    OnDisk { file: Arc<OnDisk>, sealed: Sealed },
}

impl SourceFile {
    /// A text that is not a file's as read from disk (standard input, a revision, a file read
    /// as part of another): kept to the end of the run.
    pub fn new(path: PathBuf, text: String, root: Option<Node>) -> SourceFile {
        SourceFile::holding(path, Arc::new(text), false, OnceLock::from(root))
    }

    /// The text of the file at `path`, exactly as read from it: [`SourceFile::free_text`] may
    /// free it, to be read again where something asks for it.
    pub fn read_from(path: PathBuf, text: String, root: Option<Node>) -> SourceFile {
        SourceFile::holding(path, Arc::new(text), true, OnceLock::from(root))
    }

    /// A JSON source whose tree was not kept (the lockfile: its definitions are moved into the
    /// lock model, and the rest is rarely needed); parsed again if a finding points into it.
    pub fn reparsed_on_demand(path: PathBuf, text: Arc<String>) -> SourceFile {
        SourceFile::holding(path, text, false, OnceLock::new())
    }

    fn holding(
        path: PathBuf,
        text: Arc<String>,
        rereadable: bool,
        root: OnceLock<Option<Node>>,
    ) -> SourceFile {
        SourceFile {
            path,
            text: Text::Held { text, rereadable },
            root,
            lines: OnceLock::new(),
        }
    }

    /// A JSON source whose text is in `file`, as `sealed`, and not in memory (a lockfile read
    /// as a stream); read again and parsed if a finding points into it.
    pub fn on_disk(file: Arc<OnDisk>, sealed: Sealed) -> SourceFile {
        SourceFile {
            path: file.path().to_path_buf(),
            text: Text::OnDisk { file, sealed },
            root: OnceLock::new(),
            lines: OnceLock::new(),
        }
    }

    /// Frees the parsed document of a JSON source once the work that needs every tree is done
    /// (`check` runs each file's own checks right after reading it): a tree takes about twice
    /// its text. The text stays, and [`SourceFile::root`] parses it again if something asks.
    pub fn drop_tree(&mut self) {
        self.root.take();
    }

    /// Frees the tree and, for a file's text as read from it, the text too: what is asked of
    /// it later (a finding's place, a drifted tool, the descriptions the checks across files
    /// read) reads the file again, one file at a time.
    pub fn free_text(&mut self) {
        self.drop_tree();
        if let Text::Held {
            text,
            rereadable: true,
        } = &self.text
        {
            self.text = Text::OnDisk {
                file: Arc::new(OnDisk::new(self.path.clone())),
                sealed: Sealed::of(text.as_bytes()),
            };
            self.lines.take();
        }
    }

    /// The text: borrowed when it is held, else read again from the file. A file that no
    /// longer holds what was read first gives an empty text, and is reported by
    /// [`Sources::changed`]: the run must not report on text it did not check.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.text {
            Text::Held { text, .. } => Cow::Borrowed(text.as_str()),
            Text::OnDisk { file, sealed } => {
                file.read_all(*sealed).map_or(Cow::Borrowed(""), Cow::Owned)
            }
        }
    }

    #[cfg(test)]
    pub fn text_freed(&self) -> bool {
        matches!(self.text, Text::OnDisk { .. })
    }

    /// The parsed document if it is in memory, without parsing it again.
    pub fn parsed_root(&self) -> Option<&Node> {
        self.root.get().and_then(Option::as_ref)
    }

    /// A JSON text whose tree is not in memory (freed, or not kept), which [`SourceFile::root`]
    /// would parse again; not a source that has no tree at all.
    pub fn tree_freed(&self) -> bool {
        self.root.get().is_none()
    }

    /// The value at `pointer` of a JSON source, found by stepping through the text and parsed
    /// alone.
    pub fn value_at_pointer(&self, pointer: &Pointer) -> Option<Node> {
        let text = self.text();
        value_in(&text, seek(&text, pointer)?.value)
    }

    /// The parsed document, for JSON sources.
    pub fn root(&self) -> Option<&Node> {
        self.root
            .get_or_init(|| parse(&self.text(), Dialect::Json, &Limits::default()).ok())
            .as_ref()
    }

    /// The text with its line index, for as long as the caller holds it: a held text's index
    /// is built on first use (most files never carry a finding) and kept; a freed text is read
    /// again and indexed only for that reading.
    pub fn reading(&self) -> Reading<'_> {
        let lines = match &self.text {
            Text::Held { .. } => Lines::Kept(&self.lines),
            Text::OnDisk { .. } => Lines::Transient(OnceLock::new()),
        };
        Reading {
            text: self.text(),
            lines,
        }
    }

    /// Forward slashes on every platform, so reports and SARIF URIs are stable.
    pub fn display_path(&self) -> String {
        display_path(&self.path)
    }
}

/// The one value at `span` of the JSON `text`, parsed alone: how a value of a file whose tree
/// was freed is read without parsing the rest of the file.
pub fn value_in(text: &str, span: Span) -> Option<Node> {
    parse_value_at(text, span, Dialect::Json, &Limits::default(), None).ok()
}

/// Invisible characters in a file name are made visible: a name is attacker-controlled too, and
/// an ANSI escape in it must not reach the terminal through an error message.
pub fn display_path(path: &Path) -> String {
    let s = path.to_string_lossy();
    let s = s.strip_prefix("./").unwrap_or(&s);
    crate::unicode::make_visible(&s.replace('\\', "/"))
}

#[derive(Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    pub fn add(&mut self, file: SourceFile) -> SourceId {
        self.files.push(file);
        SourceId(self.files.len() - 1)
    }

    pub fn get(&self, id: SourceId) -> Option<&SourceFile> {
        self.files.get(id.0)
    }

    pub fn get_mut(&mut self, id: SourceId) -> Option<&mut SourceFile> {
        self.files.get_mut(id.0)
    }

    /// Moves every file of `other` to the end of these, in order; returns the id of the first
    /// (ids in `other` shift by the number of files already here).
    pub fn append(&mut self, other: Sources) -> SourceId {
        let first = SourceId(self.files.len());
        self.files.extend(other.files);
        first
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// An error naming every file whose freed text, read again, was not what was read first
    /// (edited while the run read it); a run that met one must not report.
    pub fn changed(&self) -> Result<(), Error> {
        let changed: Vec<String> = self
            .files
            .iter()
            .filter(|f| matches!(&f.text, Text::OnDisk { file, .. } if file.changed()))
            .map(SourceFile::display_path)
            .collect();
        if changed.is_empty() {
            return Ok(());
        }
        Err(changed_while_read(&changed))
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// A source's text and its lines, read once for several questions (see
/// [`SourceFile::reading`]).
pub struct Reading<'a> {
    text: Cow<'a, str>,
    lines: Lines<'a>,
}

enum Lines<'a> {
    Kept(&'a OnceLock<LineIndex>),
    Transient(OnceLock<LineIndex>),
}

impl Reading<'_> {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn lines(&self) -> &LineIndex {
        let lines = match &self.lines {
            Lines::Kept(lines) => lines,
            Lines::Transient(lines) => lines,
        };
        lines.get_or_init(|| LineIndex::new(&self.text))
    }
}

/// The error for `files` (named as shown) whose text, read again, was not what was read first.
pub fn changed_while_read(files: &[impl AsRef<str>]) -> Error {
    let names: Vec<&str> = files.iter().map(AsRef::as_ref).collect();
    Error::new(format!(
        "{} changed while mcp-scan was reading {}",
        names.join(", "),
        if names.len() == 1 { "it" } else { "them" }
    ))
    .with_help("run mcp-scan again once nothing is writing to the files it scans")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A freed text is read again from its file, and found changed when the file no longer
    /// holds it: same length or not, the run is told rather than given other text.
    #[test]
    fn a_freed_text_is_read_again_and_a_changed_file_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let text = r#"{"tools":[{"name":"a","description":"d"}]}"#;
        let edits = [
            (text, false),
            (r#"{"tools":[{"name":"b","description":"d"}]}"#, true),
            (r#"{"tools":[]}"#, true),
            ("", true),
        ];
        for (now, changed) in edits {
            std::fs::write(&path, text).unwrap();
            let mut sources = Sources::default();
            let root = parse(text, Dialect::Json, &Limits::default()).ok();
            let id = sources.add(SourceFile::read_from(path.clone(), text.into(), root));
            let file = sources.get_mut(id).unwrap();
            file.free_text();
            assert!(file.text_freed() && file.tree_freed());
            std::fs::write(&path, now).unwrap();
            let file = sources.get(id).unwrap();
            let pointer = Pointer::root().key("tools").index(0).key("name");
            let name = file.value_at_pointer(&pointer);
            let read = file.reading();
            if changed {
                assert_eq!(read.text(), "", "{now}");
                assert_eq!(name, None, "{now}");
                let error = sources.changed().unwrap_err().to_string();
                assert!(error.contains("s.json changed while"), "{error}");
            } else {
                assert_eq!(read.text(), text);
                assert_eq!(read.lines().line_text(read.text(), 1), text);
                assert_eq!(
                    name.and_then(|n| n.as_str().map(str::to_owned)),
                    Some("a".into())
                );
                sources.changed().unwrap();
            }
        }
        // A text not read from a file as it is stays held.
        let mut held = SourceFile::new(path, text.into(), None);
        held.free_text();
        assert!(!held.text_freed());
    }
}
