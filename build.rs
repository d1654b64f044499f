//! Embeds every rule file under `rules/` into the binary, with the prefilter clauses of every
//! pattern in them.
//!
//! `rerun-if-changed` on the directory makes Cargo rescan it, so adding a rule file triggers a
//! rebuild (unlike `include_dir!`). The rules themselves are parsed at run time by the library;
//! only their patterns are read here, to work out their clauses with the library's own code
//! (`src/rules/clauses.rs`): 222 patterns took 13 ms of every run's start-up, more than half of
//! a pre-commit hook's run on a small repository.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

#[path = "src/rules/clauses.rs"]
#[allow(dead_code)] // the build script needs only `clauses`
mod clauses;

/// What the build needs of a rule file: its patterns.
#[derive(serde::Deserialize)]
struct Patterns {
    #[serde(default)]
    patterns: Vec<String>,
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

fn main() {
    println!("cargo::rerun-if-changed=rules");
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let rules_dir = root.join("rules");
    let mut files = Vec::new();
    collect(&rules_dir, &mut files);
    let mut code = String::from("pub static BUILTIN_RULES: &[(&str, &str)] = &[\n");
    let mut patterns = BTreeMap::new();
    for path in &files {
        // A file that does not read is reported, with its name, by the library's own parse.
        if let Some(file) = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| yaml_serde::from_str::<Patterns>(&text).ok())
        {
            for pattern in file.patterns {
                let found = clauses::clauses(&pattern);
                patterns.insert(pattern, found);
            }
        }
        let relative = path.strip_prefix(&rules_dir).unwrap_or(path);
        let _ = writeln!(
            code,
            "    ({:?}, include_str!({:?})),",
            relative.to_string_lossy().replace('\\', "/"),
            path.to_string_lossy()
        );
    }
    code.push_str("];\n");
    // Sorted by pattern, for a binary search.
    code.push_str("pub static BUILTIN_CLAUSES: &[(&str, &[&[&[u8]]])] = &[\n");
    for (pattern, found) in &patterns {
        let _ = write!(code, "    ({pattern:?}, &[");
        for clause in found {
            code.push_str("&[");
            for literal in clause {
                let _ = write!(code, "b\"{}\", ", literal.escape_ascii());
            }
            code.push_str("], ");
        }
        code.push_str("]),\n");
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("builtin_rules.rs");
    if let Err(e) = std::fs::write(&out, code) {
        println!("cargo::error=cannot write {}: {e}", out.display());
    }
}
