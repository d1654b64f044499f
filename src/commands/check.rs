//! `mcp-scan check`: scan, report, exit 1 on findings at or above `--fail-on`.

use std::io::Read;
use std::path::Path;

use crate::cli::{CheckArgs, Env};
use crate::config::{Config, Posture};
use crate::embed::verify;
use crate::error::Error;
use crate::render::{self, Format};
use crate::scan::{Report, ScanOptions, scan, stream_lock_for_scan};

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
    let report = match (&args.server, args.stdin) {
        (Some(server), true) => from_stdin(&options, server, &env.catalogue)?,
        _ => scan(&options, &env.catalogue)?,
    };
    let output = args.output.as_deref();
    let text = match args.format {
        Format::Text => render::text::render(&report, env.paint, env.verbose),
        Format::Json => render::json::render(&report),
        Format::Github => render::github::render(&report),
        Format::Markdown => render::markdown::render(&report),
        Format::Sarif => {
            // Written as it is printed, and reads no file: checked before the first byte.
            report.sources.changed().map_err(|e| vec![e])?;
            let rules = render::sarif::enabled_rules(&env.catalogue, &env.config);
            super::emit_with(output, |out| render::sarif::write(&report, &rules, out))
                .map_err(|e| vec![e])?;
            return Ok(finish(report));
        }
    };
    // Locating and rendering read freed files again: each must still be what was checked.
    report.sources.changed().map_err(|e| vec![e])?;
    super::emit(&text, output).map_err(|e| vec![e])?;
    Ok(finish(report))
}

/// The exit code of a run whose report was written.
fn finish(report: Report) -> u8 {
    let code = report.exit_code();
    // The process ends next: freeing a large scan's millions of tree nodes one by one takes
    // longer than the kernel takes to reclaim the pages (a tenth of a second per 10k tools).
    std::mem::forget(report);
    code
}

/// `--stdin --server NAME`: one tools/list response read from standard input, verified against
/// that server's baseline (a proxy calls this once per response).
fn from_stdin(
    options: &ScanOptions,
    server: &str,
    catalogue: &crate::rules::Catalogue,
) -> Result<Report, Vec<Error>> {
    let label = Path::new("<stdin>");
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| vec![Error::in_file(label, format!("cannot read: {e}"))])?;
    let lock = stream_lock_for_scan(
        &options.lock_path,
        options.lock_required,
        options.config.limits.max_file_size(),
    )
    .map_err(|e| vec![e])?;
    let config = Config {
        posture: options.posture,
        fail_on: Some(options.fail_on),
        ..options.config.clone()
    };
    verify(lock, server, label, text, &config, catalogue).map_err(|e| vec![e])
}
