//! `mcp-scan rules list | explain ID | test DIR`.

use std::fmt::Write;

use crate::cli::{Env, RulesCommand};
use crate::error::Error;
use crate::rules::{Catalogue, example_failures, load_dir};

pub fn run(env: &Env, command: &RulesCommand) -> Result<u8, Error> {
    let mut out = String::new();
    match command {
        RulesCommand::List => {
            for rule in env.catalogue.rules() {
                let _ = writeln!(
                    out,
                    "{:<22} {:<14} {:<9} {:<7} {}",
                    rule.id,
                    rule.category.as_str(),
                    rule.severity.as_str(),
                    rule.confidence.as_str(),
                    rule.name
                );
            }
        }
        RulesCommand::Explain { id } => {
            let rule = env.catalogue.get(id).ok_or_else(|| {
                Error::new(format!("unknown rule `{id}`"))
                    .with_help("`mcp-scan rules list` shows every rule id")
            })?;
            let _ = writeln!(out, "# {}: {}\n", rule.id, rule.name);
            let _ = writeln!(
                out,
                "category: {}, default severity: {}, confidence: {}\n",
                rule.category.as_str(),
                rule.severity.as_str(),
                rule.confidence.as_str()
            );
            out.push_str(rule.help.trim_end());
            out.push('\n');
        }
        RulesCommand::Test { dir } => {
            let rules = load_dir(dir)?;
            // The pack must also load next to the builtin rules (no id clashes).
            Catalogue::with_user_rules(std::slice::from_ref(dir))?;
            let failures: Vec<String> = rules.iter().flat_map(example_failures).collect();
            let examples: usize = rules
                .iter()
                .filter_map(|r| r.examples.as_ref())
                .map(|e| e.must_match.len() + e.no_match.len())
                .sum();
            for failure in &failures {
                let _ = writeln!(out, "FAIL {failure}");
            }
            let _ = writeln!(
                out,
                "{} rules, {examples} examples: {}",
                rules.len(),
                if failures.is_empty() {
                    "all pass".to_string()
                } else {
                    format!("{} failed", failures.len())
                }
            );
            super::emit(&out, None)?;
            return Ok(u8::from(!failures.is_empty()));
        }
    }
    super::emit(&out, None)?;
    Ok(0)
}
