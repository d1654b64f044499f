//! Command-line interface: argument definitions and dispatch. Exit codes: 0 clean, 1 findings at
//! or above `--fail-on` (or an out-of-date lock with `lock --check`), 2 usage, config or input
//! error. The exit code never depends on the output format.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::byte_size::ByteSize;
use crate::commands;
use crate::config::{Config, FailOn};
use crate::error::Error;
use crate::lock_merge::Prefer;
use crate::render::Format;
use crate::render::paint::Paint;
use crate::rules::Catalogue;

#[derive(Parser, Debug)]
#[command(
    name = "mcp-scan",
    version,
    about = "Offline scanner and CI linter for MCP tool definitions"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: Global,
}

#[derive(Args, Debug)]
pub struct Global {
    /// Config file (default: mcp-scan.yaml in the working directory, if present); for `record`,
    /// an MCP client config
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ignore mcp-scan.yaml even if present
    #[arg(long, global = true, conflicts_with = "config")]
    pub no_config: bool,
    /// When to colour output
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Say more: list skipped files
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Also load the pattern rules under DIR (`<category>/<id>.yaml`; repeatable)
    #[arg(long = "rules", global = true, value_name = "DIR")]
    pub rules_dirs: Vec<PathBuf>,
    /// Refuse input files larger than SIZE (e.g. 64M, 1G; default 64MiB or `limits.max_file_size`)
    #[arg(long, global = true, value_name = "SIZE", value_parser = ByteSize::parse)]
    pub max_file_size: Option<ByteSize>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Scan snapshots: drift against mcp.lock and every enabled rule
    Check(CheckArgs),
    /// Approve the scanned definitions: write or refresh mcp.lock
    Lock(LockArgs),
    /// Show what `mcp-scan lock` would change in mcp.lock
    Diff(DiffArgs),
    /// Show the servers and tools approved in mcp.lock
    Show(ShowArgs),
    /// List and explain the rules
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Start the stdio servers of MCP client configs and record their tools as snapshots
    Record(RecordArgs),
}

#[derive(Args, Debug)]
pub struct LockFileArg {
    /// The lockfile (default: `lock` from the config, else mcp.lock)
    #[arg(long, value_name = "FILE")]
    pub lock: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Snapshot files or directories (default: `paths` from the config, else .)
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub lock: LockFileArg,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to FILE instead of standard output
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit 1 when a finding is at or above this severity: info, low, medium, high, critical, none
    #[arg(long, value_name = "SEVERITY", value_parser = FailOn::parse)]
    pub fail_on: Option<FailOn>,
    /// Every server must be approved: an unbaselined server is a high finding
    #[arg(long)]
    pub strict: bool,
    /// Read one tools/list response (or result) from standard input instead of PATHS; needs
    /// --server
    #[arg(long, conflicts_with = "paths", requires = "server")]
    pub stdin: bool,
    /// With --stdin: the server the response came from (its baseline in the lock)
    #[arg(long, value_name = "NAME", requires = "stdin")]
    pub server: Option<String>,
}

#[derive(Args, Debug)]
pub struct LockArgs {
    /// Snapshot files or directories (default: `paths` from the config, else .)
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub lock: LockFileArg,
    /// Do not write: exit 1 if the lock is out of date
    #[arg(long)]
    pub check: bool,
    /// Approve only this server (repeatable); others keep their baseline
    #[arg(long, value_name = "NAME")]
    pub server: Vec<String>,
    /// Approve only this tool's current definition: adds, updates or removes it (repeatable);
    /// the server's other tools keep their approval
    #[arg(long, value_name = "SERVER/TOOL")]
    pub tool: Vec<String>,
    /// Print what is being approved, field by field, before writing
    #[arg(long)]
    pub show_diff: bool,
    /// Show what is being approved and ask before writing (needs a terminal)
    #[arg(long, conflicts_with = "check")]
    pub interactive: bool,
    /// Quarantine this server: every check fails on it until released
    #[arg(long, value_name = "NAME", conflicts_with_all = ["release", "check", "server", "tool"])]
    pub quarantine: Option<String>,
    /// Release a quarantined server
    #[arg(long, value_name = "NAME", conflicts_with_all = ["check", "server", "tool"])]
    pub release: Option<String>,
    /// Merge another lockfile into this one; conflicting definitions are an error unless
    /// --prefer says which side wins
    #[arg(long, value_name = "OTHER_LOCK", conflicts_with_all = ["paths", "server", "tool", "quarantine", "release", "reset"])]
    pub import: Option<PathBuf>,
    /// With --import: which definition wins a conflict
    #[arg(
        long,
        value_enum,
        value_name = "SIDE",
        requires = "import",
        conflicts_with = "replace"
    )]
    pub prefer: Option<Prefer>,
    /// With --import: take the other lockfile whole, replacing this one
    #[arg(long, requires = "import")]
    pub replace: bool,
    /// Start a fresh lock from the scanned snapshots, keeping a timestamped backup of the old one
    #[arg(long, conflicts_with_all = ["server", "tool", "quarantine", "release", "check"])]
    pub reset: bool,
    /// Who approves (default: git user.email, else $USER)
    #[arg(long, value_name = "WHO")]
    pub approved_by: Option<String>,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// Snapshot files or directories (default: `paths` from the config, else .)
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub lock: LockFileArg,
    /// PR review: compare the lock with this older one instead of the snapshots. A path, or
    /// REV:PATH read with `git show` (e.g. origin/main:mcp.lock)
    #[arg(long, value_name = "OLD_LOCK", conflicts_with = "paths")]
    pub base: Option<String>,
    /// With --base: exit 1 when a content rule finds something at or above this severity in an
    /// approved definition (default: `fail_on` from the config, else high)
    #[arg(long, value_name = "SEVERITY", value_parser = FailOn::parse, requires = "base")]
    pub fail_on: Option<FailOn>,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    pub lock: LockFileArg,
    /// List every tool: digest, first seen, last approved, by whom and how
    #[arg(long)]
    pub detailed: bool,
    /// Only servers and tools whose name contains TEXT (case-insensitive)
    #[arg(long, value_name = "TEXT")]
    pub search: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    pub format: ShowFormat,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    #[default]
    Text,
    /// Every server and tool, whatever --detailed says
    Json,
}

#[derive(Args, Debug)]
pub struct RecordArgs {
    /// MCP client configs (`.mcp.json`, `.vscode/mcp.json`, …). The global `--config FILE` names
    /// one too. Default: the well-known config files in the working directory
    #[arg(value_name = "CONFIG")]
    pub configs: Vec<PathBuf>,
    /// Record only this server (repeatable)
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
    /// Directory for the snapshots (`<server>.json`) and server logs (`<server>.log`)
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Seconds each server gets to start and list its tools (at most a day)
    #[arg(long, value_name = "SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub timeout: u64,
    /// The most a server may write to stdout, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    pub max_bytes: usize,
}

#[derive(Subcommand, Debug)]
pub enum RulesCommand {
    /// List every rule: id, category, severity, confidence
    List,
    /// Print a rule's documentation
    Explain {
        /// The rule id
        id: String,
    },
    /// Validate a rule pack and run every rule's examples; exit 1 on any failure
    Test {
        /// The pack: `<category>/<id>.yaml` files
        dir: PathBuf,
    },
}

/// What every command needs: the rule catalogue, the config and how to paint.
pub struct Env {
    pub catalogue: Catalogue,
    pub config: Config,
    pub paint: Paint,
    pub verbose: bool,
}

impl Env {
    pub fn paths(&self, given: &[PathBuf]) -> Vec<PathBuf> {
        if !given.is_empty() {
            given.to_vec()
        } else if !self.config.paths.is_empty() {
            self.config.paths.clone()
        } else {
            vec![PathBuf::from(".")]
        }
    }

    /// The lockfile path, and whether the user named it (then it must exist for `check`).
    pub fn lock_path(&self, given: &LockFileArg) -> (PathBuf, bool) {
        match (&given.lock, &self.config.lock) {
            (Some(path), _) | (None, Some(path)) => (path.clone(), true),
            (None, None) => (PathBuf::from("mcp.lock"), false),
        }
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(errors) => {
            for error in errors {
                eprintln!("error: {error}");
            }
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<u8, Vec<Error>> {
    // `record` reads no mcp-scan.yaml: its `--config` names an MCP client config.
    let mut config = if cli.global.no_config || matches!(cli.command, Command::Record(_)) {
        Config::default()
    } else {
        Config::read(cli.global.config.as_deref()).map_err(|e| vec![e])?
    };
    config.limits.max_file_size = cli.global.max_file_size.or(config.limits.max_file_size);
    let mut rules_dirs = cli.global.rules_dirs.clone();
    rules_dirs.extend(config.rules_dirs.iter().cloned());
    let catalogue = Catalogue::with_user_rules(&rules_dirs).map_err(|e| vec![e])?;
    if let Some(path) = &config.path {
        config.validate(path, &catalogue).map_err(|e| vec![e])?;
    }
    let writes_to_terminal = match &cli.command {
        Command::Check(args) => args.output.is_none(),
        _ => true,
    } && std::io::stdout().is_terminal();
    let paint = Paint {
        enabled: match cli.global.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                writes_to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        },
    };
    let env = Env {
        catalogue,
        config,
        paint,
        verbose: cli.global.verbose,
    };
    let result = match cli.command {
        Command::Check(args) => commands::check::run(&env, &args),
        Command::Lock(args) => commands::lock::run(&env, &args),
        Command::Diff(args) => commands::diff::run(&env, &args),
        Command::Show(args) => commands::show::run(&env, &args).map_err(|e| vec![e]),
        Command::Rules(command) => commands::rules::run(&env, &command).map_err(|e| vec![e]),
        Command::Record(args) => commands::record::run(cli.global.config.as_deref(), &args),
    };
    // The process ends next, and the kernel takes its pages back whole: freeing the catalogue
    // (its automata and the regexes the run compiled) piece by piece was 3% of the
    // instructions of a run that finds nothing to scan.
    std::mem::forget(env);
    result
}
