//! Embeds every rule file under `rules/` into the binary, as JSON, with the prefilter clauses of
//! every pattern in them.
//!
//! `rerun-if-changed` on the directory makes Cargo rescan it, so adding a rule file triggers a
//! rebuild (unlike `include_dir!`). Start-up is most of a pre-commit hook's run on a small
//! repository, so the build does what every run would repeat: it turns each YAML file into JSON
//! (the library reads that into its `Rule` and validates it, as it does a user's YAML; parsing
//! the YAML took 2.6 ms of CPU a run), and works out each pattern's clauses with the library's own code
//! (`src/rules/clauses.rs`: 13 ms a run for 222 patterns).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;

#[path = "src/rules/clauses.rs"]
#[allow(dead_code)] // the build script needs only `clauses`
mod clauses;

/// What the build needs of a rule file besides its text: its patterns.
#[derive(serde::Deserialize)]
struct Patterns {
    #[serde(default)]
    patterns: Vec<String>,
}

/// One rule file as JSON, and its patterns; a file that does not read fails the build.
fn read_rule(path: &Path) -> Result<(String, Vec<String>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let value: serde_json::Value = yaml_serde::from_str(&text).map_err(|e| e.to_string())?;
    let patterns = Patterns::deserialize(&value).map_err(|e| e.to_string())?;
    Ok((value.to_string(), patterns.patterns))
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
        let (json, found) = match read_rule(path) {
            Ok(read) => read,
            Err(e) => {
                println!("cargo::error={}: {e}", path.display());
                continue;
            }
        };
        for pattern in found {
            let found = clauses::clauses(&pattern);
            patterns.insert(pattern, found);
        }
        let relative = path.strip_prefix(&rules_dir).unwrap_or(path);
        let _ = writeln!(
            code,
            "    ({:?}, {json:?}),",
            relative.to_string_lossy().replace('\\', "/"),
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
