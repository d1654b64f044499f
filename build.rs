//! Embeds every rule file under `rules/` into the binary.
//!
//! `rerun-if-changed` on the directory makes Cargo rescan it, so adding a rule file triggers a
//! rebuild (unlike `include_dir!`). Parsing happens at run time in the library, keeping the YAML
//! and regex crates out of the build dependencies.

use std::fmt::Write;
use std::path::{Path, PathBuf};

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
    for path in &files {
        let relative = path.strip_prefix(&rules_dir).unwrap_or(path);
        let _ = writeln!(
            code,
            "    ({:?}, include_str!({:?})),",
            relative.to_string_lossy().replace('\\', "/"),
            path.to_string_lossy()
        );
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("builtin_rules.rs");
    if let Err(e) = std::fs::write(&out, code) {
        println!("cargo::error=cannot write {}: {e}", out.display());
    }
}
