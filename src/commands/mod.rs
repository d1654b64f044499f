//! One module per subcommand; each returns the process exit code.

pub mod check;
pub mod diff;
pub mod lock;
pub mod record;
pub mod rules;
pub mod show;

use std::path::Path;

use crate::error::Error;

/// Prints to standard output, or writes `path` when given.
pub fn emit(text: &str, path: Option<&Path>) -> Result<(), Error> {
    emit_pieces(&[text], path)
}

/// [`emit`] for text in pieces, written one after the other (a large report is never joined).
pub fn emit_pieces(pieces: &[impl AsRef<[u8]>], path: Option<&Path>) -> Result<(), Error> {
    match path {
        Some(path) => std::fs::File::create(path)
            .and_then(|file| crate::pieces::write_all(file, pieces))
            .map_err(|e| Error::in_file(path, format!("cannot write the report: {e}"))),
        None => {
            // A closed pipe (`mcp-scan check | head`) is not an error worth reporting.
            let _ = crate::pieces::write_all(std::io::stdout().lock(), pieces);
            Ok(())
        }
    }
}
