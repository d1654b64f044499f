//! `mcp-scan check`: scan, report, exit 1 on findings at or above `--fail-on`.

use crate::cli::{CheckArgs, Env};
use crate::config::Posture;
use crate::error::Error;
use crate::render::{self, Format};
use crate::scan::{ScanOptions, scan};

pub fn run(env: &Env, args: &CheckArgs) -> Result<u8, Vec<Error>> {
    let (lock_path, lock_required) = env.lock_path(&args.lock);
    let options = ScanOptions {
        paths: env.paths(&args.paths),
        lock_path,
        lock_required,
        config: env.config.clone(),
        posture: if args.strict {
            Posture::Strict
        } else {
            env.config.posture
        },
        fail_on: args.fail_on.or(env.config.fail_on).unwrap_or_default(),
    };
    let report = scan(&options, &env.catalogue)?;
    let text = match args.format {
        Format::Text => render::text::render(&report, env.paint, env.verbose),
        Format::Json => render::json::render(&report),
        Format::Sarif => render::sarif::render(
            &report,
            &render::sarif::enabled_rules(&env.catalogue, &env.config),
        ),
        Format::Github => render::github::render(&report),
        Format::Markdown => render::markdown::render(&report),
    };
    super::emit(&text, args.output.as_deref()).map_err(|e| vec![e])?;
    Ok(report.exit_code())
}
