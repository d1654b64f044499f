//! One module per subcommand; each returns the process exit code.

pub mod check;
pub mod diff;
pub mod lock;
pub mod record;
pub mod rules;
pub mod show;

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::Error;

/// Prints to standard output, or writes `path` when given.
pub fn emit(text: &str, path: Option<&Path>) -> Result<(), Error> {
    emit_with(path, |out| out.write_all(text.as_bytes()))
}

/// [`emit`] for output that `write` writes as it goes (a large report is never all in memory).
pub fn emit_with(
    path: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    let buffered = |out: &mut dyn Write| {
        let mut out = BufWriter::with_capacity(1 << 20, out);
        write(&mut out)?;
        out.flush()
    };
    match path {
        Some(path) => std::fs::File::create(path)
            .and_then(|mut file| buffered(&mut file))
            .map_err(|e| Error::in_file(path, format!("cannot write the report: {e}"))),
        None => {
            // A closed pipe (`mcp-scan check | head`) is not an error worth reporting.
            let _ = buffered(&mut std::io::stdout().lock());
            Ok(())
        }
    }
}
