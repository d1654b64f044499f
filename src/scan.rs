//! The engine behind `check`: load, fingerprint, run every check, then turn drafts into
//! findings (rule metadata, config, ignores, spans, fingerprints) in a deterministic order.

use std::path::PathBuf;

use foldhash::HashMap;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::byte_size::ByteSize;
use crate::checks::{self, Baseline, Context, Draft, LockInUse};
use crate::config::{Config, DriftAction, FailOn, Posture};
use crate::drift_event;
use crate::error::Error;
use crate::finding::{Category, Finding, Location, Severity};
use crate::input::{self, Inputs, LoadOptions, PerFile, Skipped};
use crate::json::{Limits, Pointer};
use crate::locate::locate_all;
use crate::lock::Lock;
use crate::prompts;
use crate::rules::Catalogue;
use crate::source::{SourceFile, Sources};
use crate::state::{Fingerprints, ServerState, fingerprint_all, server_states};

/// Builtin rules the engine itself reports (not a check): they are about the run's config.
pub const ENGINE_RULES: &[&str] = &["unused-ignore"];

pub struct ScanOptions {
    pub paths: Vec<PathBuf>,
    pub lock_path: PathBuf,
    /// The user named the lockfile: then it must exist.
    pub lock_required: bool,
    pub config: Config,
    pub posture: Posture,
    pub fail_on: FailOn,
}

pub struct Report {
    pub findings: Vec<Finding>,
    pub sources: Sources,
    pub summary: Summary,
}

pub struct Summary {
    /// Input files that held servers (the lockfile and config are not counted).
    pub files: usize,
    pub servers: usize,
    pub tools: usize,
    pub skipped: Vec<Skipped>,
    pub fail_on: FailOn,
    pub drift_action: DriftAction,
}

impl Summary {
    /// Whether an active finding fails the run: at or above `--fail-on`, unless it is drift and
    /// drift only alerts (a quarantined server fails regardless: quarantine is an explicit hold).
    pub fn fails(&self, f: &Finding) -> bool {
        let alert_only = self.drift_action == DriftAction::Alert
            && f.category == Category::Drift
            && f.rule != "server-quarantined";
        self.fail_on.fails(f.severity) && !alert_only
    }
}

impl Report {
    /// Findings that count: not suppressed by an ignore.
    pub fn active(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.suppressed.is_none())
    }

    pub fn suppressed_count(&self) -> usize {
        self.findings.len() - self.active().count()
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.active().filter(|f| f.severity == severity).count()
    }

    /// 1 when any active finding is at or above `--fail-on`, else 0. Never depends on the format.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.active().any(|f| self.summary.fails(f)))
    }
}

/// Loads the lockfile, if any, as a source of the run.
pub fn load_lock(
    path: &std::path::Path,
    required: bool,
    max_file_size: ByteSize,
) -> Result<Option<(Lock, SourceFile)>, Error> {
    required_lock(path, required, Lock::load_within(path, max_file_size)?)
}

/// [`load_lock`], read as a stream and keeping none of its text (see [`Lock::stream_within`]):
/// for a run that reads the lock but never writes it.
pub fn stream_lock(
    path: &std::path::Path,
    required: bool,
    max_file_size: ByteSize,
) -> Result<Option<(Lock, SourceFile)>, Error> {
    required_lock(path, required, Lock::stream_within(path, max_file_size)?)
}

/// [`stream_lock`] for a scan (see [`Lock::stream_for_scan`]).
pub fn stream_lock_for_scan(
    path: &std::path::Path,
    required: bool,
    max_file_size: ByteSize,
) -> Result<Option<(Lock, SourceFile)>, Error> {
    required_lock(path, required, Lock::stream_for_scan(path, max_file_size)?)
}

fn required_lock(
    path: &std::path::Path,
    required: bool,
    loaded: Option<(Lock, SourceFile)>,
) -> Result<Option<(Lock, SourceFile)>, Error> {
    match loaded {
        Some(loaded) => Ok(Some(loaded)),
        None if required => Err(missing_lock(path)),
        None => Ok(None),
    }
}

/// The lock's errors that reading it would meet before its first byte (missing when required,
/// not a regular file, over the size cap), found before the inputs are read: a run reads both
/// at once, and waits for the inputs even when the lock fails.
fn lock_readable(
    path: &std::path::Path,
    required: bool,
    max_file_size: ByteSize,
) -> Result<(), Error> {
    match path.exists() {
        true => input::open_within(path, max_file_size).map(drop),
        false if required => Err(missing_lock(path)),
        false => Ok(()),
    }
}

fn missing_lock(path: &std::path::Path) -> Error {
    Error::in_file(path, "the lockfile does not exist").with_help("create it with `mcp-scan lock`")
}

/// Loads every path; "no tools at all" is an error: a scan that checked nothing is not clean.
/// `scanning` is true for a scan (`check`): it accepts lockfiles, and client configs alone, as
/// inputs, and it places tool names as it reads them, for its findings on names.
pub fn load_inputs(
    paths: &[PathBuf],
    exclude: &[PathBuf],
    scanning: bool,
    max_file_size: ByteSize,
) -> Result<Inputs, Vec<Error>> {
    load_inputs_each(paths, exclude, scanning, max_file_size, |_| ()).map(|(i, _)| i)
}

/// [`load_inputs`], with `each` run on every file as it is read (see [`input::load_each`]).
pub fn load_inputs_each<T: Send>(
    paths: &[PathBuf],
    exclude: &[PathBuf],
    scanning: bool,
    max_file_size: ByteSize,
    each: impl Fn(&mut Inputs) -> T + Sync,
) -> Result<(Inputs, PerFile<T>), Vec<Error>> {
    let (inputs, per_file) = input::load_each(
        paths,
        &LoadOptions {
            exclude,
            limits: Limits::default(),
            max_file_size,
            accept_lockfiles: scanning,
            place_names: scanning,
        },
        each,
    )?;
    // For `check` (the command that accepts every kind of input) a client config alone is
    // something to check; `lock` and `diff` need tools.
    let configs_checked = scanning && !inputs.configs.is_empty();
    if inputs.tool_count() == 0 && !configs_checked {
        let shown: Vec<String> = paths
            .iter()
            .map(|p| crate::source::display_path(p))
            .collect();
        return Err(vec![
            Error::new(format!("no tools found under {}", shown.join(", ")))
                .with_help("pass the files or directories that hold tools/list snapshots (JSON)"),
        ]);
    }
    Ok((inputs, per_file))
}

pub fn scan(options: &ScanOptions, catalogue: &Catalogue) -> Result<Report, Vec<Error>> {
    crate::checks::warm_up_in_background();
    lock_readable(
        &options.lock_path,
        options.lock_required,
        options.config.limits.max_file_size(),
    )
    .map_err(|e| vec![e])?;
    // The lock is the largest file: read it while the inputs load and go through every check
    // that needs no lock.
    let (lock, checked) = rayon::join(
        || {
            stream_lock_for_scan(
                &options.lock_path,
                options.lock_required,
                options.config.limits.max_file_size(),
            )
        },
        || {
            let (inputs, per_file) = load_inputs_each(
                &options.paths,
                std::slice::from_ref(&options.lock_path),
                true,
                options.config.limits.max_file_size(),
                |file| check_file(file, options, catalogue),
            )?;
            let (fingerprints, drafts) = check_across_files(&inputs, per_file, options, catalogue);
            Ok::<_, Vec<Error>>((inputs, fingerprints, drafts))
        },
    );
    let lock = lock.map_err(|e| vec![e])?;
    let (inputs, fingerprints, drafts) = checked?;
    scan_checked(inputs, fingerprints, drafts, lock, options, catalogue)
}

/// The engine over inputs already loaded (from files, or from memory: `check --stdin` and
/// [`crate::embed`]); `options.paths` and `options.lock_path` are not read.
pub fn scan_loaded(
    inputs: Inputs,
    lock: Option<(Lock, SourceFile)>,
    options: &ScanOptions,
    catalogue: &Catalogue,
) -> Result<Report, Vec<Error>> {
    let (fingerprints, drafts) = check_inputs(&inputs, options, catalogue);
    scan_checked(inputs, fingerprints, drafts, lock, options, catalogue)
}

/// Fingerprints the inputs under the config's options, then runs every check of the inputs
/// alone over them.
fn check_inputs(
    inputs: &Inputs,
    options: &ScanOptions,
    catalogue: &Catalogue,
) -> (Fingerprints, Vec<Draft>) {
    let fingerprints = fingerprint_all(inputs, &options.config.fingerprint_options());
    let drafts = {
        let states = server_states(inputs, &fingerprints);
        checks::run_of_inputs(&context(inputs, &states, options, catalogue))
    };
    (fingerprints, drafts)
}

/// Fingerprints one file's tools and runs the checks that read one file at a time, with
/// their findings located while the file's tree is in memory; then frees the tree and the
/// text, so that a run holds the files being read rather than every file (a tree takes about
/// twice its text).
fn check_file(file: &mut Inputs, options: &ScanOptions, catalogue: &Catalogue) -> FileChecked {
    let fingerprints = fingerprint_all(file, &options.config.fingerprint_options());
    let mut drafts = checks::run_of_files(&context(file, &[], options, catalogue));
    locate_all(
        &file.sources,
        drafts.iter_mut().flat_map(Draft::locations_mut).collect(),
    );
    file.free_snapshots();
    FileChecked {
        fingerprints,
        drafts,
    }
}

/// What [`check_file`] leaves of a file: its tools' digests and its findings, located.
struct FileChecked {
    fingerprints: Fingerprints,
    drafts: Vec<Draft>,
}

/// Gathers what [`check_file`] left of every file (each file's findings move to the id its
/// source has in `inputs`), then runs the checks that compare files.
fn check_across_files(
    inputs: &Inputs,
    per_file: PerFile<FileChecked>,
    options: &ScanOptions,
    catalogue: &Catalogue,
) -> (Fingerprints, Vec<Draft>) {
    let mut drafts = Vec::new();
    let mut parts = Vec::with_capacity(per_file.len());
    for (source, checked) in per_file {
        drafts.extend(checked.drafts.into_iter().map(|d| d.moved_to(source)));
        parts.push(checked.fingerprints);
    }
    let fingerprints = Fingerprints::concat(&options.config.fingerprint_options(), parts);
    let states = server_states(inputs, &fingerprints);
    drafts.extend(checks::run_across_files(&context(
        inputs, &states, options, catalogue,
    )));
    drop(states);
    (fingerprints, drafts)
}

fn context<'a>(
    inputs: &'a Inputs,
    states: &'a [ServerState<'a>],
    options: &'a ScanOptions,
    catalogue: &'a Catalogue,
) -> Context<'a> {
    Context {
        inputs,
        states,
        posture: options.posture,
        catalogue,
        config: &options.config,
    }
}

/// The rest of the engine, once the checks of the inputs alone have given `drafts`.
fn scan_checked(
    mut inputs: Inputs,
    fingerprints: Fingerprints,
    mut drafts: Vec<Draft>,
    lock: Option<(Lock, SourceFile)>,
    options: &ScanOptions,
    catalogue: &Catalogue,
) -> Result<Report, Vec<Error>> {
    let input_files = inputs.sources.len();
    let lock = lock.map(|(lock, file)| LockInUse {
        lock,
        source: inputs.sources.add(file),
    });
    // Compare with the options the lock was written with, so a changed config setting is not
    // mistaken for drift (the next `mcp-scan lock` rewrites the digests).
    let lock_fingerprints = lock
        .as_ref()
        .map(|l| &l.lock.fingerprint)
        .filter(|&o| *o != fingerprints.options)
        .map(|o| fingerprint_all(&inputs, o));
    let compared_fingerprints = lock_fingerprints.as_ref().unwrap_or(&fingerprints);
    inputs.prompts = prompts::load(
        &options.config.prompts,
        compared_fingerprints.options.algorithm,
        &mut inputs.sources,
    )
    .map_err(|e| vec![e])?;
    let states = server_states(&inputs, &fingerprints);
    let lock_states = lock_fingerprints
        .as_ref()
        .map(|f| server_states(&inputs, f));
    let compared = lock_states.as_deref().unwrap_or(&states);
    let baseline = Baseline {
        states: compared,
        lock: lock.as_ref(),
        options: &compared_fingerprints.options,
    };
    drafts.extend(checks::run_against_baseline(
        &context(&inputs, &states, options, catalogue),
        &baseline,
    ));
    let summary = Summary {
        files: input_files,
        servers: inputs.servers.len(),
        tools: inputs.tool_count(),
        skipped: inputs.skipped.clone(),
        fail_on: options.fail_on,
        drift_action: options.config.drift.action,
    };
    let mut ignore_used = vec![false; options.config.ignore.len()];
    let mut findings = finalize_all(
        drafts,
        &states,
        &options.config,
        catalogue,
        &mut ignore_used,
    );
    drift_event::attach(
        &mut findings,
        compared,
        lock.as_ref().map(|l| &l.lock),
        &compared_fingerprints.options,
        |f| f.suppressed.is_none() && summary.fails(f),
    );
    drop(lock_states);
    drop(states);
    let mut sources = inputs.sources;
    // Findings own what they report from here on; the lock model, the digests and the tool
    // references are freed beside locating, sorting and rendering.
    crate::background::free(
        "free-scan",
        (lock, fingerprints, lock_fingerprints, inputs.servers),
    );
    if let Some(config_path) = &options.config.path {
        let unused: Vec<usize> = ignore_used
            .iter()
            .enumerate()
            .filter(|(_, used)| !**used)
            .map(|(i, _)| i)
            .collect();
        if !unused.is_empty() {
            let text = std::fs::read_to_string(config_path).unwrap_or_default();
            let source = sources.add(SourceFile::new(config_path.clone(), text, None));
            for i in unused {
                let Some(ignore) = options.config.ignore.get(i) else {
                    continue;
                };
                let mut scope = vec![format!("rule `{}`", ignore.rule)];
                scope.extend(ignore.server.as_ref().map(|s| format!("server `{s}`")));
                scope.extend(ignore.tool.as_ref().map(|t| format!("tool `{t}`")));
                let draft = Draft::new(
                    "unused-ignore",
                    Location::new(source, Pointer::root().key("ignore").index(i)),
                    format!(
                        "ignore entry {} ({}) matched no finding",
                        i + 1,
                        scope.join(", ")
                    ),
                );
                findings.extend(finalize(draft, None, &options.config, catalogue));
            }
        }
    }
    locate_and_sort(&sources, &mut findings);
    Ok(Report {
        findings,
        sources,
        summary,
    })
}

/// PR review (`diff --base`): the content checks alone over `inputs`, the definitions a lock
/// change approves, with the config's rule settings and ignores. No drift (the lock under review
/// is the baseline) and no unused-ignore (an ignore may be meant for findings `check` reports).
pub fn screen(inputs: Inputs, config: &Config, fail_on: FailOn, catalogue: &Catalogue) -> Report {
    let fingerprints = fingerprint_all(&inputs, &config.fingerprint_options());
    let states = server_states(&inputs, &fingerprints);
    let cx = Context {
        inputs: &inputs,
        states: &states,
        posture: config.posture,
        catalogue,
        config,
    };
    let drafts = checks::run_content(&cx);
    let mut findings = finalize_all(drafts, &states, config, catalogue, &mut []);
    drop(states);
    let summary = Summary {
        files: inputs.sources.len(),
        servers: inputs.servers.len(),
        tools: inputs.tool_count(),
        skipped: inputs.skipped,
        fail_on,
        drift_action: config.drift.action,
    };
    locate_and_sort(&inputs.sources, &mut findings);
    Report {
        findings,
        sources: inputs.sources,
        summary,
    }
}

/// Every draft through [`finalize`] (in parallel), fingerprinted relative to its tool's
/// pointer; marks in `ignore_used` each ignore that matched a finding.
fn finalize_all(
    drafts: Vec<Draft>,
    states: &[ServerState<'_>],
    config: &Config,
    catalogue: &Catalogue,
    ignore_used: &mut [bool],
) -> Vec<Finding> {
    // Indexed once: a linear search per draft is servers × findings on a large scan. A state
    // holds the tools whose pointer leads to an object, the last listing of a name.
    let tools: HashMap<(&str, &str), &Pointer> = states
        .iter()
        .flat_map(|state| {
            state
                .tools
                .iter()
                .map(|(name, tool)| ((state.server.name.as_str(), *name), &tool.tool.pointer))
        })
        .collect();
    let findings: Vec<Finding> = drafts
        .into_par_iter()
        .filter_map(|draft| {
            let anchor = match (&draft.server, &draft.tool) {
                (Some(s), Some(t)) => tools.get(&(s.as_str(), t.as_str())).copied(),
                _ => None,
            };
            finalize(draft, anchor, config, catalogue)
        })
        .collect();
    mark_used_ignores(&findings, config, ignore_used);
    findings
}

/// Marks each ignore that matches one of `findings` (whether or not an earlier ignore
/// suppressed it first).
fn mark_used_ignores(findings: &[Finding], config: &Config, ignore_used: &mut [bool]) {
    for (ignore, used) in config.ignore.iter().zip(ignore_used) {
        *used = *used
            || findings
                .iter()
                .any(|f| ignore.matches(&f.rule, f.server.as_deref(), f.tool.as_deref()));
    }
}

/// Resolves every location to a span, then orders findings by file and position.
fn locate_and_sort(sources: &Sources, findings: &mut [Finding]) {
    // Those of each file's own checks were located before its tree was freed.
    locate_all(
        sources,
        findings
            .iter_mut()
            .flat_map(Finding::locations_mut)
            .collect(),
    );
    findings.par_sort_by(|a, b| {
        (
            a.location.source,
            a.location.span.map(|s| s.start_byte),
            &a.rule,
            &a.message,
        )
            .cmp(&(
                b.location.source,
                b.location.span.map(|s| s.start_byte),
                &b.rule,
                &b.message,
            ))
    });
}

/// Stamps rule metadata and config onto a draft; `None` when the rule is disabled.
fn finalize(
    draft: Draft,
    tool_pointer: Option<&Pointer>,
    config: &Config,
    catalogue: &Catalogue,
) -> Option<Finding> {
    if !config.rule_enabled(&draft.rule) {
        return None;
    }
    let rule = catalogue.get(&draft.rule)?;
    let severity = config
        .rule_severity(&draft.rule)
        .or(draft.severity)
        .unwrap_or(rule.severity);
    let mut suppressed = None;
    for ignore in &config.ignore {
        if ignore.matches(&draft.rule, draft.server.as_deref(), draft.tool.as_deref()) {
            suppressed.get_or_insert_with(|| ignore.reason.clone());
        }
    }
    let fingerprint = fingerprint(&draft, tool_pointer);
    Some(Finding {
        rule: rule.id.clone(),
        category: rule.category,
        severity,
        confidence: rule.confidence,
        message: draft.message,
        server: draft.server,
        tool: draft.tool,
        field: draft.field,
        location: draft.location,
        related: draft.related,
        change: draft.change,
        suppressed,
        fingerprint,
        event: None,
    })
}

/// Stable across reformatting and reordering: rule, server, tool, the pointer relative to the
/// tool (so moving a tool within its file keeps it) and the field, never a line number.
fn fingerprint(draft: &Draft, tool_pointer: Option<&Pointer>) -> String {
    let pointer = draft.location.pointer.as_str();
    let relative = tool_pointer
        .and_then(|t| pointer.strip_prefix(t.as_str()))
        .unwrap_or(pointer);
    let mut hasher = Sha256::new();
    for part in [
        "v1",
        &draft.rule,
        draft.server.as_deref().unwrap_or(""),
        draft.tool.as_deref().unwrap_or(""),
        relative,
        draft.field.as_deref().unwrap_or(""),
    ] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    let digest = hasher.finalize();
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceId;

    /// After `check`, no snapshot's tree or text is left in memory: each file's own checks ran
    /// while it was read, and drift and shadowing read the file again. A stage that reaches for
    /// every tool's tree again would hold twice the snapshots' size until the report is written.
    #[test]
    fn a_check_keeps_no_snapshot_tree_or_text() {
        let options = ScanOptions {
            paths: vec!["testdata/example/snapshots".into()],
            lock_path: "testdata/example/mcp.lock".into(),
            lock_required: true,
            config: Config::default(),
            posture: Posture::default(),
            fail_on: FailOn::default(),
        };
        let catalogue = Catalogue::builtin().unwrap();
        let report = scan(&options, &catalogue).unwrap();
        let rules: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
        // Located in the tree (a pattern rule), and after it was freed (drift).
        assert!(rules.contains(&"tool-changed"), "{rules:?}");
        assert!(rules.contains(&"sensitive-file-order"), "{rules:?}");
        assert!(report.findings.iter().all(|f| f.location.span.is_some()));
        for id in 0..report.summary.files {
            let source = report.sources.get(SourceId(id)).unwrap();
            assert!(source.tree_freed(), "{}", source.display_path());
            assert!(source.text_freed(), "{}", source.display_path());
        }
        report.sources.changed().unwrap();
    }

    /// A scan places every tool name as it reads the file; `lock` and `diff` place none (a
    /// placement is 64 bytes a tool that only a scan's findings use).
    #[test]
    fn only_a_scan_places_tool_names() {
        let paths = ["testdata/example/snapshots".into()];
        for scanning in [true, false] {
            let inputs = load_inputs(&paths, &[], scanning, ByteSize(1 << 20)).unwrap();
            let tools: Vec<&crate::input::ToolRef> =
                inputs.servers.iter().flat_map(|s| &s.tools).collect();
            assert!(!tools.is_empty());
            for tool in tools {
                assert_eq!(tool.name_span.is_some(), scanning, "{}", tool.name);
            }
        }
    }
}
