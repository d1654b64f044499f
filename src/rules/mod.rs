//! The rule catalogue: every finding's rule id, category, default severity and documentation
//! lives in a YAML file under `rules/<category>/<id>.yaml`, embedded at build time.
//!
//! `kind: builtin` rules are implemented by a check in `crate::checks`; a test keeps the two in
//! sync both ways.

use std::collections::BTreeSet;

use serde::Deserialize;

use crate::error::Error;
use crate::finding::{Category, Confidence, Severity};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/builtin_rules.rs"));
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Builtin,
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
}

#[derive(Clone, Debug)]
pub struct Catalogue {
    rules: Vec<Rule>,
}

impl Catalogue {
    /// The rules shipped in the binary, sorted by id.
    pub fn builtin() -> Result<Catalogue, Error> {
        let mut rules = Vec::new();
        for (path, text) in embedded::BUILTIN_RULES {
            rules.push(parse_rule(path, text)?);
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
        Ok(Catalogue { rules })
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

/// Parses one rule file; `path` is relative to the rules directory (`<category>/<id>.yaml`).
fn parse_rule(path: &str, text: &str) -> Result<Rule, Error> {
    let rule: Rule =
        yaml_serde::from_str(text).map_err(|e| Error::new(format!("rules/{path}: {e}")))?;
    let stem = path
        .rsplit('/')
        .next()
        .and_then(|file| file.strip_suffix(".yaml"))
        .unwrap_or(path);
    if rule.id != stem {
        return Err(Error::new(format!(
            "rules/{path}: the rule id `{}` must equal the file name `{stem}`",
            rule.id
        )));
    }
    let folder = path.split('/').next().unwrap_or_default();
    if folder != rule.category.as_str() {
        return Err(Error::new(format!(
            "rules/{path}: a `{}` rule belongs in rules/{}/",
            rule.category.as_str(),
            rule.category.as_str()
        )));
    }
    Ok(rule)
}

#[cfg(test)]
mod tests {
    use super::*;

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
                    "{:<24} {:<14} {:<9} {:<8} {}\n",
                    r.id,
                    r.category.as_str(),
                    r.severity.as_str(),
                    r.confidence.as_str(),
                    r.name
                )
            })
            .collect();
        insta::assert_snapshot!(table);
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
                "belongs in rules/drift/",
            ),
        ];
        for (path, text, want) in cases {
            let err = parse_rule(path, text).unwrap_err().to_string();
            assert!(err.contains(want), "{err} should contain {want}");
        }
    }
}
