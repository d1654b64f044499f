//! Embeds every rule file under `rules/` into the binary, as JSON, with the prefilter clauses of
//! every pattern in them and whether it is sentence-bound.
//!
//! `rerun-if-changed` on the directory makes Cargo rescan it, so adding a rule file triggers a
//! rebuild (unlike `include_dir!`). Start-up is most of a pre-commit hook's run on a small
//! repository, so the build does what every run would repeat: it turns each YAML file into JSON
//! (the library reads that into its `Rule` and validates it, as it does a user's YAML; parsing
//! the YAML took 2.6 ms of CPU a run), and works out each pattern's clauses with the library's own code
//! (`src/rules/clauses.rs`: 13 ms a run for 222 patterns), and builds the literal gate's dense
//! table over every literal of those clauses (`src/rules/dense_dfa.rs`: 10 ms a run).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;

#[path = "src/rules/clauses.rs"]
#[allow(dead_code)] // the build script needs only `clauses`
mod clauses;

#[path = "src/rules/sentences.rs"]
#[allow(dead_code)] // the build script needs only `sentence_bound`
mod sentences;

#[path = "src/rules/bit_set.rs"]
#[allow(dead_code)]
mod bit_set;

#[path = "src/rules/dense_dfa.rs"]
#[allow(dead_code)] // the build script needs only the table's construction
mod dense_dfa;

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
    code.push_str("/// A pattern's clauses, each a list of literals.\n");
    code.push_str("pub type Clauses = &'static [&'static [&'static [u8]]];\n");
    code.push_str("pub static BUILTIN_GATING: &[(&str, bool, Clauses)] = &[\n");
    for (pattern, found) in &patterns {
        let bound = sentences::sentence_bound(pattern);
        let _ = write!(code, "    ({pattern:?}, {bound}, &[");
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
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    gate_table(&patterns, &out_dir, &mut code);
    let out = out_dir.join("builtin_rules.rs");
    if let Err(e) = std::fs::write(&out, code) {
        println!("cargo::error=cannot write {}: {e}", out.display());
    }
}

/// The literal gate's table over every literal of the builtin clauses, sorted: the table's
/// bytes in `gate_table.bin`, the rest as code. An empty table (the build could not make one)
/// makes every run build its own.
fn gate_table(
    patterns: &BTreeMap<String, Vec<clauses::Clause>>,
    out_dir: &Path,
    code: &mut String,
) {
    let literals: Vec<Vec<u8>> = patterns
        .values()
        .flatten()
        .flatten()
        .cloned()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let table = dense_dfa::DenseDfa::of_literals(&literals);
    let dense_dfa::Encoded {
        classes,
        table: bytes,
        match_of,
        match_sets,
    } = match &table {
        Some(table) => table.encode(),
        None => dense_dfa::Encoded {
            classes: [0; 256],
            table: &[],
            match_of: &[],
            match_sets: &[],
        },
    };
    let path = out_dir.join("gate_table.bin");
    if let Err(e) = std::fs::write(&path, bytes) {
        println!("cargo::error=cannot write {}: {e}", path.display());
    }
    code.push_str("pub static GATE_LITERALS: &[&[u8]] = &[\n");
    for literal in &literals {
        let _ = writeln!(code, "    b\"{}\",", literal.escape_ascii());
    }
    code.push_str("];\n");
    let _ = writeln!(code, "pub static GATE_CLASSES: [u8; 256] = {classes:?};");
    let _ = writeln!(code, "pub static GATE_MATCH_OF: &[u16] = &{match_of:?};");
    code.push_str("pub static GATE_MATCH_SETS: &[&[u32]] = &[\n");
    for set in match_sets {
        let _ = writeln!(code, "    &{set:?},");
    }
    code.push_str("];\n");
    code.push_str(
        "pub static GATE_TABLE: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/gate_table.bin\"));\n",
    );
}
