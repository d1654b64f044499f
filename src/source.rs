//! The files a run read, kept once so that every finding can point into them.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::json::{Dialect, Limits, Node, Span, lines::LineIndex, parse, parse_value_at};

/// Index of a file in [`Sources`]; cheap to copy into every location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceId(pub usize);

pub struct SourceFile {
    /// The path as the user will read it: relative to the working directory when possible.
    pub path: PathBuf,
    /// Shared with the lock's stored definitions, which are parsed from it on demand.
    pub text: Arc<String>,
    /// The parsed document, for JSON sources; spans are resolved against it.
    root: OnceLock<Option<Node>>,
    lines: OnceLock<LineIndex>,
}

impl SourceFile {
    pub fn new(path: PathBuf, text: String, root: Option<Node>) -> SourceFile {
        SourceFile {
            path,
            text: Arc::new(text),
            root: OnceLock::from(root),
            lines: OnceLock::new(),
        }
    }

    /// A JSON source whose tree was not kept (the lockfile: its definitions are moved into the
    /// lock model, and the rest is rarely needed); parsed again if a finding points into it.
    pub fn reparsed_on_demand(path: PathBuf, text: Arc<String>) -> SourceFile {
        SourceFile {
            path,
            text,
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

    /// The parsed document if it is in memory, without parsing it again.
    pub fn parsed_root(&self) -> Option<&Node> {
        self.root.get().and_then(Option::as_ref)
    }

    /// A JSON text whose tree is not in memory (freed, or not kept), which [`SourceFile::root`]
    /// would parse again; not a source that has no tree at all.
    pub fn tree_freed(&self) -> bool {
        self.root.get().is_none()
    }

    /// The one value at `span` of a JSON source, parsed alone: how a value of a file whose tree
    /// was freed is read without parsing the rest of the file.
    pub fn value_at(&self, span: Span) -> Option<Node> {
        parse_value_at(&self.text, span, Dialect::Json, &Limits::default(), None).ok()
    }

    /// The parsed document, for JSON sources.
    pub fn root(&self) -> Option<&Node> {
        self.root
            .get_or_init(|| parse(&self.text, Dialect::Json, &Limits::default()).ok())
            .as_ref()
    }

    /// Built on first use: most files never carry a finding.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Forward slashes on every platform, so reports and SARIF URIs are stable.
    pub fn display_path(&self) -> String {
        display_path(&self.path)
    }
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

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}
