//! The benchmark's floor: read every `.json` file under a directory and SHA-256 it, in
//! parallel over files (rayon: `RAYON_NUM_THREADS=1` for one thread), with the same `sha2`
//! crate mcp-scan hashes with (it uses the CPU's SHA extensions where there are any; coreutils'
//! `sha256sum` does not, and is several times slower).
//!
//! ```sh
//! cargo run --release --example floor -- target/bench-corpus/100000/snapshots
//! ```
//!
//! Prints the number of files, their bytes and one digest over all of theirs (so the work
//! cannot be skipped); exits 2 when a file cannot be read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: floor DIRECTORY");
        return ExitCode::from(2);
    };
    match floor(&dir) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("floor: {e}");
            ExitCode::from(2)
        }
    }
}

/// Reads and hashes every `.json` file under `dir`; what was hashed, as one line.
fn floor(dir: &Path) -> Result<String, String> {
    let mut files: Vec<PathBuf> = Vec::new();
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.map_err(|e| e.to_string())?;
        if entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "json") {
            files.push(entry.into_path());
        }
    }
    files.sort();
    let hashed: Vec<(usize, [u8; 32])> = files
        .par_iter()
        .map(|path| {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok((bytes.len(), Sha256::digest(&bytes).into()))
        })
        .collect::<Result<_, String>>()?;
    let mut all = Sha256::new();
    for (_, digest) in &hashed {
        all.update(digest);
    }
    let bytes: usize = hashed.iter().map(|(len, _)| len).sum();
    let digest: String = all.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!(
        "{} files, {bytes} bytes, sha256 of digests {digest}",
        hashed.len()
    ))
}
