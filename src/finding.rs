//! What a check reports: the finding model shared by every check and every renderer.
//!
//! Checks describe *where* with a [`Location`] (a file and a JSON pointer, optionally a byte range
//! inside a decoded string). Only [`crate::locate`] turns those into line/column spans, so no check
//! does offset arithmetic.

use std::fmt;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::json::Pointer;
use crate::source::SourceId;

/// Ordered from least to most severe, so `>=` compares against `--fail-on`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    pub const ALL: [Severity; 5] = [
        Severity::Info,
        Severity::Low,
        Severity::Medium,
        Severity::High,
        Severity::Critical,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|sev| sev.as_str() == s)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Drift,
    Shadowing,
    Poisoning,
    HiddenContent,
    Integrity,
    Config,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Drift => "drift",
            Category::Shadowing => "shadowing",
            Category::Poisoning => "poisoning",
            Category::HiddenContent => "hidden-content",
            Category::Integrity => "integrity",
            Category::Config => "config",
        }
    }
}

/// Which part of a JSON member a location designates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Target {
    /// The value at the pointer (for strings, including the quotes).
    #[default]
    Value,
    /// The key of the member the pointer ends at (a property name, a duplicated key).
    Key,
    /// The key of the n-th (0-based) member with that name, for the earlier occurrences of a
    /// duplicated key (a pointer alone always resolves to the last).
    KeyOccurrence(usize),
}

/// A symbolic location: a file and a JSON pointer. Line and column come later, from `locate`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    pub source: SourceId,
    pub pointer: Pointer,
    pub target: Target,
    /// A byte range inside the decoded string value, e.g. a regex match in a description.
    pub sub: Option<Range<usize>>,
    /// Filled in by [`crate::locate`], or by the check that made the location when the place
    /// is known already (see [`Location::placed`]); `None` when the pointer does not resolve in
    /// a JSON text.
    pub span: Option<Span>,
}

impl Location {
    pub fn new(source: SourceId, pointer: Pointer) -> Location {
        Location {
            source,
            pointer,
            target: Target::Value,
            sub: None,
            span: None,
        }
    }

    /// The location of the value at `pointer`, which was placed at `span` as its file was read
    /// (a tool's name, see [`crate::locate::place`]): [`crate::locate`] then needs neither the
    /// file's tree nor its text. Parsing every file again to locate the bench corpus's name
    /// collisions (29k at 100k tools, in nearly every file) took a tenth of `check`'s CPU, and
    /// reading them again to turn the names' bytes into lines a few percent more.
    pub fn placed(mut self, span: Span) -> Location {
        self.span = Some(span);
        self
    }

    pub fn key(mut self) -> Location {
        self.target = Target::Key;
        self
    }

    pub fn within(mut self, sub: Range<usize>) -> Location {
        self.sub = Some(sub);
        self
    }
}

/// A concrete place in a file: 1-based lines, 1-based columns in Unicode scalar values (and UTF-16
/// code units for SARIF), end exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start_byte: usize,
    pub end_byte: usize,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub column_utf16: usize,
    pub end_column_utf16: usize,
}

/// The text before and after a change, for readable diffs in reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub before: String,
    pub after: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: String,
    pub category: Category,
    pub severity: Severity,
    pub confidence: Confidence,
    pub message: String,
    pub server: Option<String>,
    pub tool: Option<String>,
    /// The tool field concerned (`description`, `inputSchema`, …), when there is one.
    pub field: Option<String>,
    pub location: Location,
    pub related: Vec<Location>,
    pub change: Option<Change>,
    /// Set when a config `ignore` entry matched: the reason given there.
    pub suppressed: Option<String>,
    /// Stable across reformatting: rule, server, tool, pointer and matched text, never line numbers.
    pub fingerprint: String,
    /// For drift findings: the event a SIEM ingests (see [`crate::drift_event`]).
    pub event: Option<crate::drift_event::DriftEvent>,
}

impl Finding {
    /// Where the finding points, then its related locations.
    pub fn locations_mut(&mut self) -> impl Iterator<Item = &mut Location> {
        std::iter::once(&mut self.location).chain(&mut self.related)
    }

    pub fn locations(&self) -> impl Iterator<Item = &Location> {
        std::iter::once(&self.location).chain(&self.related)
    }
}
