//! Builtin checks and their registry.
//!
//! A check only says *what* and *where* (a [`Draft`] with a symbolic [`Location`]); the engine
//! stamps the rule's metadata, applies the config (severity overrides, disabled rules, ignores)
//! and resolves line/column spans. A check cannot report under a rule id it did not declare.

mod annotations;
mod config_conflict;
mod config_hazards;
mod directive;
mod drift;
mod duplicate_key;
mod duplicate_tool;
mod hidden;
mod insecure_default;
mod launch_drift;
mod likely_injection;
mod lock_integrity;
mod markup;
mod mention;
mod name_words;
mod pattern;
mod preset_destination;
mod prompt_drift;
mod rewritten;
mod shadowing;
mod targets;
mod tool_name;
mod tool_schema;
mod unrendered;

use std::borrow::Cow;

use rayon::prelude::*;

use crate::config::{Config, Posture};
use crate::finding::{Change, Location, Severity};
use crate::fingerprint::FingerprintOptions;
use crate::input::Inputs;
use crate::lock::Lock;
use crate::rules::Catalogue;
use crate::source::SourceId;
use crate::state::ServerState;

/// The lockfile a run compares against, and where it was read from.
pub struct LockInUse {
    pub lock: Lock,
    pub source: SourceId,
}

/// What every check reads: the inputs, their fingerprints under the config's options, and the
/// rules in force.
pub struct Context<'a> {
    pub inputs: &'a Inputs,
    pub states: &'a [ServerState<'a>],
    pub posture: Posture,
    /// The rules in force, including the user's pattern rules.
    pub catalogue: &'a Catalogue,
    pub config: &'a Config,
}

/// What the checks against the approved baseline read besides: the lockfile, and the
/// fingerprints compared with it.
pub struct Baseline<'a> {
    /// Fingerprinted with the lock's own options, so a changed config setting is not mistaken
    /// for drift: the same states as the context's unless the two differ.
    pub states: &'a [ServerState<'a>],
    pub lock: Option<&'a LockInUse>,
    /// The options the states were fingerprinted with.
    pub options: &'a FingerprintOptions,
}

/// A check of the inputs alone. These run while the lockfile loads: it is the largest file.
pub trait Check: Sync {
    /// Every rule id this check may report; each must have a `kind: builtin` file in `rules/`.
    fn rules(&self) -> &'static [&'static str];
    fn run(&self, cx: &Context<'_>, out: &mut Vec<Draft>);
}

/// A check of each target string of each tool on its own (hidden characters, disguised text).
/// All of them share one walk over the tools' strings with the pattern rules.
trait StringCheck: Sync {
    /// As [`Check::rules`].
    fn rules(&self) -> &'static [&'static str];
    fn scan(&self, cx: &Context<'_>, at: &pattern::At<'_>) -> Vec<Draft>;
}

/// A check against the approved baseline.
pub trait BaselineCheck: Sync {
    /// As [`Check::rules`].
    fn rules(&self) -> &'static [&'static str];
    fn run(&self, cx: &Context<'_>, baseline: &Baseline<'_>, out: &mut Vec<Draft>);
}

/// Every builtin check of the inputs alone that reads one file at a time: these, the `content`
/// checks, and the string checks with the pattern rules. `check` runs them on each file as it
/// is read, then frees the file's tree. Explicit, so a reader sees the list.
fn of_files() -> Vec<Box<dyn Check>> {
    let mut checks: Vec<Box<dyn Check>> = vec![
        Box::new(duplicate_tool::DuplicateToolName),
        Box::new(duplicate_key::DuplicateJsonKey),
        Box::new(tool_name::InvalidToolName),
        Box::new(tool_schema::InvalidInputSchema),
    ];
    checks.extend(content());
    checks
}

/// Every builtin check of the inputs alone that compares files: these run once every file is
/// read, over what each file's tools left behind (names, digests, where descriptions sit), and
/// over the client configs, whose trees are kept.
fn across_files() -> Vec<Box<dyn Check>> {
    vec![
        Box::new(config_hazards::ConfigHazards),
        Box::new(config_conflict::ConfigConflict),
        Box::new(shadowing::Shadowing),
    ]
}

/// Every builtin check against the baseline.
pub fn against_baseline() -> Vec<Box<dyn BaselineCheck>> {
    vec![
        Box::new(drift::Drift),
        Box::new(lock_integrity::LockIntegrity),
        Box::new(prompt_drift::PromptDrift),
        Box::new(launch_drift::LaunchDrift),
    ]
}

/// The checks that judge each tool definition on its own text (no lock, no other tool), with
/// the pattern rules: what `diff --base` runs over the definitions a lock change approves.
fn content() -> Vec<Box<dyn Check>> {
    vec![
        Box::new(annotations::ContradictoryAnnotations),
        Box::new(insecure_default::InsecureDefault),
    ]
}

/// The checks of each string on its own: content checks too, run with the pattern rules.
fn of_strings() -> Vec<Box<dyn StringCheck>> {
    vec![
        Box::new(hidden::HiddenCharacters),
        Box::new(hidden::DisguisedText),
        Box::new(unrendered::UnrenderedProse),
        Box::new(preset_destination::PresetDestination),
        Box::new(directive::RiskyDirective),
        Box::new(likely_injection::LikelyInjection),
    ]
}

/// Starts compiling, on a thread of its own, what the string checks build on first use, so
/// that a small scan does not wait for it once it has read its inputs (a few milliseconds, most
/// of a pre-commit run's spare core). Whichever thread gets there first builds it; the other
/// waits.
pub fn warm_up_in_background() {
    let _detached = std::thread::Builder::new()
        .name("check-warm-up".into())
        .spawn(|| {
            directive::warm_up();
            crate::text_model::Model::builtin();
        });
}

/// Runs every check of the inputs alone, the string checks and the pattern rules, in parallel.
pub fn run_of_inputs(cx: &Context<'_>) -> Vec<Draft> {
    let mut drafts = run_of_files(cx);
    drafts.extend(run_across_files(cx));
    drafts
}

/// Runs the checks that read one file at a time, the string checks and the pattern rules, in
/// parallel: over one file's inputs, or over many.
pub fn run_of_files(cx: &Context<'_>) -> Vec<Draft> {
    run_with_strings(&of_files(), cx)
}

/// Runs the checks that compare files, in parallel.
pub fn run_across_files(cx: &Context<'_>) -> Vec<Draft> {
    run(&across_files(), cx)
}

/// Runs the content checks, the string checks and the pattern rules, in parallel.
pub fn run_content(cx: &Context<'_>) -> Vec<Draft> {
    run_with_strings(&content(), cx)
}

/// Runs `checks`, and beside them the string checks and the pattern rules.
fn run_with_strings(checks: &[Box<dyn Check>], cx: &Context<'_>) -> Vec<Draft> {
    let strings: Vec<Box<dyn StringCheck>> = of_strings()
        .into_iter()
        .filter(|check| in_force(check.rules(), cx.config))
        .collect();
    let (mut drafts, patterns) = rayon::join(|| run(checks, cx), || pattern::run(cx, &strings));
    drafts.extend(patterns);
    drafts
}

/// Whether the config leaves any of a check's rules on. A check with none is not run: the
/// engine would drop everything it reports, and the time it takes is the reason some turn
/// rules off (a pre-commit hook, a registry-wide scan). No check reads another's drafts, so
/// skipping one changes no other finding.
fn in_force(rules: &[&str], config: &Config) -> bool {
    rules.iter().any(|rule| config.rule_enabled(rule))
}

fn run(checks: &[Box<dyn Check>], cx: &Context<'_>) -> Vec<Draft> {
    checks
        .par_iter()
        .filter(|check| in_force(check.rules(), cx.config))
        .flat_map_iter(|check| {
            let mut out = Vec::new();
            check.run(cx, &mut out);
            debug_assert!(out.iter().all(|d| check.rules().contains(&d.rule.as_ref())));
            out
        })
        .collect()
}

/// Runs every check against the baseline, in parallel.
pub fn run_against_baseline(cx: &Context<'_>, baseline: &Baseline<'_>) -> Vec<Draft> {
    against_baseline()
        .par_iter()
        .filter(|check| in_force(check.rules(), cx.config))
        .flat_map_iter(|check| {
            let mut out = Vec::new();
            check.run(cx, baseline, &mut out);
            debug_assert!(out.iter().all(|d| check.rules().contains(&d.rule.as_ref())));
            out
        })
        .collect()
}

/// A finding before the engine has stamped it with rule metadata and config.
#[derive(Clone, Debug)]
pub struct Draft {
    /// A builtin check's own id, or a (possibly user-defined) pattern rule's.
    pub rule: Cow<'static, str>,
    pub location: Location,
    pub message: String,
    /// Overrides the rule's default severity for this finding (e.g. the strict posture).
    pub severity: Option<Severity>,
    pub server: Option<String>,
    pub tool: Option<String>,
    pub field: Option<String>,
    pub related: Vec<Location>,
    pub change: Option<Change>,
}

impl Draft {
    pub fn new(
        rule: impl Into<Cow<'static, str>>,
        location: Location,
        message: impl Into<String>,
    ) -> Draft {
        Draft {
            rule: rule.into(),
            location,
            message: message.into(),
            severity: None,
            server: None,
            tool: None,
            field: None,
            related: Vec::new(),
            change: None,
        }
    }

    pub fn server(mut self, server: &str) -> Draft {
        self.server = Some(server.to_string());
        self
    }

    pub fn tool(mut self, tool: &str) -> Draft {
        self.tool = Some(tool.to_string());
        self
    }

    pub fn field(mut self, field: &str) -> Draft {
        self.field = Some(field.to_string());
        self
    }

    pub fn severity(mut self, severity: Severity) -> Draft {
        self.severity = Some(severity);
        self
    }

    pub fn related(mut self, location: Location) -> Draft {
        self.related.push(location);
        self
    }

    pub fn change(mut self, change: Change) -> Draft {
        self.change = Some(change);
        self
    }

    /// The draft with every location in `source`: a check of one file's inputs reports in that
    /// file alone, which is `SourceId(0)` there and has another id once files are merged.
    pub fn moved_to(mut self, source: SourceId) -> Draft {
        for location in self.locations_mut() {
            location.source = source;
        }
        self
    }

    /// Where the draft points, then its related locations.
    pub fn locations_mut(&mut self) -> impl Iterator<Item = &mut Location> {
        std::iter::once(&mut self.location).chain(&mut self.related)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::{
        Check, Context, Draft, across_files, against_baseline, of_files, of_strings, pattern, run,
    };
    use crate::byte_size::ByteSize;
    use crate::config::{Config, Posture, RuleConfig};
    use crate::finding::Location;
    use crate::json::Pointer;
    use crate::rules::{Catalogue, Kind};
    use crate::source::SourceId;

    /// Reports under its second rule whenever it runs.
    struct Reporter;

    impl Check for Reporter {
        fn rules(&self) -> &'static [&'static str] {
            &["tool-removed", "tool-added"]
        }

        fn run(&self, _: &Context<'_>, out: &mut Vec<Draft>) {
            let at = Location::new(SourceId(0), Pointer::root());
            out.push(Draft::new("tool-added", at, "ran"));
        }
    }

    fn turned_off<'a>(rules: impl IntoIterator<Item = &'a str>) -> Config {
        let mut config = Config::default();
        for rule in rules {
            let off = RuleConfig {
                enabled: Some(false),
                severity: None,
            };
            config.rules.insert(rule.to_string(), off);
        }
        config
    }

    /// Checks and pattern rules whose every rule is turned off do not run; one rule left on
    /// runs its check.
    #[test]
    fn only_checks_with_a_rule_in_force_run() {
        let paths = ["testdata/example/snapshots".into()];
        let inputs = crate::scan::load_inputs(&paths, &[], true, ByteSize(1 << 20)).unwrap();
        let catalogue = Catalogue::builtin().unwrap();
        let patterns = catalogue
            .rules()
            .iter()
            .filter(|r| r.kind == Kind::Pattern)
            .map(|r| r.id.as_str());
        let cases = [
            (Config::default(), 1, true),
            (turned_off(["tool-removed"]), 1, true),
            (turned_off(["tool-removed", "tool-added"]), 0, true),
            (turned_off(patterns), 1, false),
        ];
        for (config, reporter_drafts, pattern_drafts) in cases {
            let cx = Context {
                inputs: &inputs,
                states: &[],
                posture: Posture::default(),
                catalogue: &catalogue,
                config: &config,
            };
            let checks: Vec<Box<dyn Check>> = vec![Box::new(Reporter)];
            assert_eq!(
                run(&checks, &cx).len(),
                reporter_drafts,
                "{:?}",
                config.rules
            );
            let found = pattern::run(&cx, &[]);
            assert_eq!(!found.is_empty(), pattern_drafts, "{found:?}");
        }
    }

    /// zizmor keeps registrations and docs in sync by hand; here a test does it, both ways.
    #[test]
    fn every_builtin_rule_has_exactly_one_check() {
        let catalogue = Catalogue::builtin().unwrap();
        let mut declared = BTreeSet::new();
        let rules = of_files()
            .iter()
            .chain(&across_files())
            .map(|c| c.rules())
            .chain(of_strings().iter().map(|c| c.rules()))
            .chain(against_baseline().iter().map(|c| c.rules()))
            .collect::<Vec<_>>();
        for ids in rules {
            for id in ids {
                assert!(
                    declared.insert(*id),
                    "rule `{id}` is declared by two checks"
                );
                let rule = catalogue
                    .get(id)
                    .unwrap_or_else(|| panic!("rule `{id}` has no file in rules/"));
                assert_eq!(rule.kind, Kind::Builtin, "rule `{id}`");
            }
        }
        for rule in catalogue.rules().iter().filter(|r| r.kind == Kind::Builtin) {
            let engine_rule = crate::scan::ENGINE_RULES.contains(&rule.id.as_str());
            assert!(
                declared.contains(rule.id.as_str()) || engine_rule,
                "rules/{}/{}.yaml has no check",
                rule.category.as_str(),
                rule.id
            );
        }
    }
}
