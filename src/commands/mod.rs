//! One module per subcommand; each returns the process exit code.

pub mod check;
pub mod diff;
pub mod lock;
pub mod record;
pub mod rules;
pub mod show;

use std::io::Write;
use std::path::Path;

use crate::error::Error;

/// Prints to standard output, or writes `path` when given.
pub fn emit(text: &str, path: Option<&Path>) -> Result<(), Error> {
    match path {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| Error::in_file(path, format!("cannot write the report: {e}"))),
        None => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`mcp-scan check | head`) is not an error worth reporting.
            let _ = stdout.write_all(text.as_bytes());
            let _ = stdout.flush();
            Ok(())
        }
    }
}
