//! The rule catalogue: every finding's rule id, category, default severity and documentation
//! lives in a YAML file under `rules/<category>/<id>.yaml`, embedded at build time.
//!
//! `kind: builtin` rules are implemented by a check in `crate::checks`; a test keeps the two in
//! sync both ways. `kind: pattern` rules are pure data (regexes over the strings a model reads,
//! see [`pattern`]), run by one engine; users add their own with `--rules DIR`.

mod background;
mod bit_set;
mod clauses;
mod dense_dfa;
mod dfa_set;
mod literal_gate;
pub mod pattern;
mod piece_sets;
mod prefilter;
mod required_bytes;
mod sentences;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;

use crate::error::Error;
use crate::finding::{Category, Confidence, Severity};
pub use pattern::{Examples, PatternSet, TargetKind, example_failures};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/builtin_rules.rs"));
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Builtin,
    Pattern,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub kind: Kind,
    pub category: Category,
    pub severity: Severity,
    pub confidence: Confidence,
    /// One line: what the rule finds.
    pub name: String,
    /// Markdown: what it does, why it matters, how to fix it.
    pub help: String,
    /// Pattern rules: the finding's message (the matched text is appended).
    #[serde(default)]
    pub message: Option<String>,
    /// Pattern rules: which strings of a tool the patterns run over.
    #[serde(default)]
    pub targets: Vec<TargetKind>,
    /// Pattern rules: regexes, matched case-insensitively; any one matching is a finding.
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Pattern rules: regexes, matched case-insensitively against the sentence that holds a
    /// match; any one matching excuses the match (the honest use of a phrase the patterns name,
    /// such as a secret masked for the user). The rule still reports a later match that no
    /// `unless` excuses.
    #[serde(default)]
    pub unless: Vec<String>,
    /// Pattern rules: strings that must match and strings that must not (`rules test`).
    #[serde(default)]
    pub examples: Option<Examples>,
}

#[derive(Debug)]
pub struct Catalogue {
    rules: Vec<Rule>,
    /// Every pattern rule compiled once, indexed by target kind.
    patterns: PatternSet,
}

impl Catalogue {
    /// The rules shipped in the binary, sorted by id.
    pub fn builtin() -> Result<Catalogue, Error> {
        Catalogue::from_rules(builtin_rules()?)
    }

    /// The builtin rules plus every user rule pack in `dirs` (`--rules`, config `rules_dirs`).
    pub fn with_user_rules(dirs: &[impl AsRef<Path>]) -> Result<Catalogue, Error> {
        let mut rules = builtin_rules()?;
        for dir in dirs {
            rules.extend(load_dir(dir.as_ref())?);
        }
        Catalogue::from_rules(rules)
    }

    fn from_rules(mut rules: Vec<Rule>) -> Result<Catalogue, Error> {
        rules.sort_by(|a, b| a.id.cmp(&b.id));
        let mut seen = BTreeSet::new();
        for rule in &rules {
            if !seen.insert(rule.id.as_str()) {
                return Err(Error::new(format!(
                    "rule id `{}` is defined twice",
                    rule.id
                )));
            }
        }
        let patterns = PatternSet::new(&rules)?;
        Ok(Catalogue { rules, patterns })
    }

    pub fn patterns(&self) -> &PatternSet {
        &self.patterns
    }

    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules
            .binary_search_by(|r| r.id.as_str().cmp(id))
            .ok()
            .and_then(|i| self.rules.get(i))
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }
}

/// What the prefilter reads off a pattern: the clauses every match satisfies (see
/// [`clauses`]) and whether every match lies within one sentence (see [`sentences`]).
#[derive(Debug, PartialEq, Eq)]
struct Gating {
    /// Each clause's literals: a builtin pattern's borrowed from the binary (copying the 8k
    /// of them took a tenth of a small scan's start-up).
    clauses: Vec<Vec<Cow<'static, [u8]>>>,
    sentence_bound: bool,
}

impl Gating {
    /// What `build.rs` read off `pattern` when it is a builtin rule's, else read now.
    fn of(pattern: &str) -> Gating {
        Gating::builtin(pattern).unwrap_or_else(|| Gating::read(pattern))
    }

    fn read(pattern: &str) -> Gating {
        Gating {
            clauses: clauses::clauses(pattern)
                .into_iter()
                .map(|clause| clause.into_iter().map(Cow::Owned).collect())
                .collect(),
            sentence_bound: sentences::sentence_bound(pattern),
        }
    }

    fn builtin(pattern: &str) -> Option<Gating> {
        let found = embedded::BUILTIN_GATING
            .binary_search_by(|(p, _, _)| (*p).cmp(pattern))
            .ok()?;
        let (_, sentence_bound, clauses) = embedded::BUILTIN_GATING.get(found)?;
        Some(Gating {
            clauses: clauses
                .iter()
                .map(|clause| {
                    clause
                        .iter()
                        .map(|&literal| Cow::Borrowed(literal))
                        .collect()
                })
                .collect(),
            sentence_bound: *sentence_bound,
        })
    }
}

/// The builtin rule files, which `build.rs` turned into JSON, validated as a user's are.
fn builtin_rules() -> Result<Vec<Rule>, Error> {
    embedded::BUILTIN_RULES
        .iter()
        .map(|(path, json)| {
            let path = format!("rules/{path}");
            let rule =
                serde_json::from_str(json).map_err(|e| Error::new(format!("{path}: {e}")))?;
            validate_fields(&path, rule)
        })
        .collect()
}

/// Every `<category>/<id>.yaml` under a user's rule directory, in sorted order.
pub fn load_dir(dir: &Path) -> Result<Vec<Rule>, Error> {
    let mut files: Vec<_> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "yaml"))
        .map(|e| e.into_path())
        .collect();
    if files.is_empty() && !dir.is_dir() {
        return Err(Error::in_file(dir, "the rules directory does not exist"));
    }
    files.sort();
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file)
                .map_err(|e| Error::in_file(file, format!("cannot read the rule: {e}")))?;
            // Name the file as `<dir>/<category>/<id>.yaml` so the folder check below applies.
            let relative = file.strip_prefix(dir).unwrap_or(file);
            let shown = format!(
                "{}/{}",
                crate::source::display_path(dir).trim_end_matches('/'),
                crate::source::display_path(relative)
            );
            parse_rule(&shown, &text)
        })
        .collect()
}

/// Parses and validates one user rule file; `path` ends in `<category>/<id>.yaml`.
pub fn parse_rule(path: &str, text: &str) -> Result<Rule, Error> {
    let rule = yaml_serde::from_str(text).map_err(|e| Error::new(format!("{path}: {e}")))?;
    let rule = validate_fields(path, rule)?;
    pattern::check_compiles(&rule).map_err(|e| Error::new(format!("{path}: {e}")))?;
    Ok(rule)
}

/// Validates everything in a rule file but its regexes; `path` ends in `<category>/<id>.yaml`.
fn validate_fields(path: &str, rule: Rule) -> Result<Rule, Error> {
    let stem = path
        .rsplit('/')
        .next()
        .and_then(|file| file.strip_suffix(".yaml"))
        .unwrap_or(path);
    if rule.id != stem {
        return Err(Error::new(format!(
            "{path}: the rule id `{}` must equal the file name `{stem}`",
            rule.id
        )));
    }
    let folder = path.rsplit('/').nth(1).unwrap_or_default();
    if folder != rule.category.as_str() {
        return Err(Error::new(format!(
            "{path}: a `{}` rule belongs in a `{}/` folder",
            rule.category.as_str(),
            rule.category.as_str()
        )));
    }
    pattern::validate(&rule).map_err(|e| Error::new(format!("{path}: {e}")))?;
    Ok(rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `build.rs` read off each builtin pattern is what the library reads off it now.
    #[test]
    fn builtin_gating_is_the_patterns_own() {
        let catalogue = Catalogue::builtin().unwrap();
        let patterns: Vec<&String> = catalogue.rules().iter().flat_map(|r| &r.patterns).collect();
        assert!(patterns.len() > 100);
        let mut bound = 0;
        for pattern in &patterns {
            let read = Gating::read(pattern);
            bound += usize::from(read.sentence_bound);
            assert_eq!(Gating::builtin(pattern), Some(read), "{pattern}");
        }
        // Most are phrases; some name files (`~/.ssh`) or hosts.
        assert!(
            bound * 4 > patterns.len() * 3,
            "{bound} of {}",
            patterns.len()
        );
        assert_eq!(Gating::builtin(r"not\s+a\s+builtin\s+pattern"), None);
    }

    #[test]
    fn builtin_catalogue_loads() {
        let catalogue = Catalogue::builtin().unwrap();
        assert!(catalogue.get("tool-changed").is_some());
    }

    #[test]
    fn catalogue_is_pinned() {
        let catalogue = Catalogue::builtin().unwrap();
        let table: String = catalogue
            .rules()
            .iter()
            .map(|r| {
                format!(
                    "{:<28} {:<8} {:<14} {:<9} {:<7} {:<55} {}\n",
                    r.id,
                    match r.kind {
                        Kind::Builtin => "builtin",
                        Kind::Pattern => "pattern",
                    },
                    r.category.as_str(),
                    r.severity.as_str(),
                    r.confidence.as_str(),
                    r.targets
                        .iter()
                        .map(|t| t.as_str())
                        .collect::<Vec<_>>()
                        .join(","),
                    r.name
                )
            })
            .collect();
        insta::assert_snapshot!(table);
    }

    /// gitleaks' `config/invalid`: every file under testdata/rules-invalid/ is rejected, and
    /// the message says why.
    #[test]
    fn rejects_invalid_rule_files() {
        insta::glob!("../../testdata", "rules-invalid/*/*.yaml", |path| {
            let text = std::fs::read_to_string(path).unwrap();
            let parts: Vec<&str> = path
                .iter()
                .rev()
                .take(2)
                .filter_map(|p| p.to_str())
                .collect();
            let shown = format!("rules-invalid/{}/{}", parts[1], parts[0]);
            let err = parse_rule(&shown, &text).unwrap_err().to_string();
            insta::assert_snapshot!(err);
        });
    }

    #[test]
    fn rejects_malformed_rule_files() {
        let cases = [
            (
                "drift/x.yaml",
                "id: y\nkind: builtin\ncategory: drift\nseverity: high\nconfidence: high\nname: n\nhelp: h\n",
                "must equal the file name",
            ),
            (
                "drift/x.yaml",
                "id: x\nkind: builtin\ncategory: drift\nseverity: severe\nconfidence: high\nname: n\nhelp: h\n",
                "unknown variant `severe`",
            ),
            (
                "drift/x.yaml",
                "id: x\nkind: builtin\ncategory: drift\nseverity: high\nconfidence: high\nname: n\nhelp: h\nextra: 1\n",
                "unknown field `extra`",
            ),
            (
                "integrity/x.yaml",
                "id: x\nkind: builtin\ncategory: drift\nseverity: high\nconfidence: high\nname: n\nhelp: h\n",
                "belongs in a `drift/` folder",
            ),
        ];
        for (path, text, want) in cases {
            let err = parse_rule(&format!("rules/{path}"), text)
                .unwrap_err()
                .to_string();
            assert!(err.contains(want), "{err} should contain {want}");
        }
    }
}
