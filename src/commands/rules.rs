//! `mcp-scan rules list | explain ID`.

use std::fmt::Write;

use crate::cli::{Env, RulesCommand};
use crate::error::Error;

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
    }
    super::emit(&out, None)?;
    Ok(0)
}
