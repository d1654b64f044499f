//! Errors that stop a run (exit 2): bad input, bad config, bad usage. Findings are not errors.

use std::fmt;
use std::path::Path;

use crate::json::lines::LineIndex;
use crate::source::display_path;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// `path`, `path:line:column`, or nothing for errors that are not about a file.
    pub origin: Option<String>,
    pub message: String,
    pub help: Option<String>,
}

impl Error {
    pub fn new(message: impl Into<String>) -> Error {
        Error {
            origin: None,
            message: message.into(),
            help: None,
        }
    }

    pub fn in_file(path: &Path, message: impl Into<String>) -> Error {
        Error {
            origin: Some(display_path(path)),
            message: message.into(),
            help: None,
        }
    }

    /// An error at a byte offset of `text`, reported as `path:line:column` (1-based, characters).
    pub fn at_offset(path: &Path, text: &str, offset: usize, message: impl Into<String>) -> Error {
        let position = LineIndex::new(text).position(text, offset);
        Error {
            origin: Some(format!(
                "{}:{}:{}",
                display_path(path),
                position.line,
                position.column
            )),
            message: message.into(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Error {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(origin) = &self.origin {
            write!(f, "{origin}: ")?;
        }
        f.write_str(&self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;
