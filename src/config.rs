//! `mcp-scan.yaml`: posture, failure threshold, paths, fingerprint options, per-rule settings and
//! ignores. Unknown keys are errors (with their line and column): a typo must not silently turn a
//! setting off.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::byte_size::ByteSize;
use crate::error::Error;
use crate::finding::Severity;
use crate::fingerprint::{Algorithm, FingerprintOptions};
use crate::input::{DEFAULT_MAX_FILE_SIZE, read_text};
use crate::rules::Catalogue;

pub const DEFAULT_FILES: [&str; 2] = ["mcp-scan.yaml", "mcp-scan.yml"];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Posture {
    /// Trust on first use: a server without a baseline is informational.
    #[default]
    Discovery,
    /// Every server must be approved: a server without a baseline fails the run.
    Strict,
}

/// `--fail-on` / `fail_on`: a severity, or `none` to never fail on findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailOn(pub Option<Severity>);

impl Default for FailOn {
    fn default() -> FailOn {
        FailOn(Some(Severity::High))
    }
}

impl FailOn {
    pub fn parse(s: &str) -> Result<FailOn, String> {
        match s {
            "none" => Ok(FailOn(None)),
            _ => Severity::parse(s)
                .map(|sev| FailOn(Some(sev)))
                .ok_or_else(|| {
                    format!("`{s}` is not one of info, low, medium, high, critical, none")
                }),
        }
    }

    pub fn fails(self, severity: Severity) -> bool {
        self.0.is_some_and(|threshold| severity >= threshold)
    }
}

impl<'de> Deserialize<'de> for FailOn {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FailOn, D::Error> {
        let s = String::deserialize(d)?;
        FailOn::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub posture: Posture,
    pub fail_on: Option<FailOn>,
    /// Paths scanned when none are given on the command line.
    #[serde(default)]
    pub paths: Vec<PathBuf>,
    /// The lockfile, when not `mcp.lock` in the working directory.
    pub lock: Option<PathBuf>,
    /// Prompt files to pin in the lock (paths or globs, relative to the working directory).
    #[serde(default)]
    pub prompts: Vec<String>,
    #[serde(default)]
    pub fingerprint: FingerprintConfig,
    #[serde(default)]
    pub rules: BTreeMap<String, RuleConfig>,
    #[serde(default)]
    pub ignore: Vec<Ignore>,
    /// Extra pattern-rule packs (`<dir>/<category>/<id>.yaml`), like `--rules DIR`.
    #[serde(default)]
    pub rules_dirs: Vec<PathBuf>,
    #[serde(default)]
    pub shadowing: ShadowingConfig,
    /// Trust on first use for new servers and tools (default: yes in the discovery posture, no
    /// in the strict one). Off, they fail `check` until approved, and `lock` records every
    /// approval as explicit.
    pub auto_approve_new: Option<bool>,
    #[serde(default)]
    pub drift: DriftConfig,
    #[serde(default)]
    pub limits: LimitsConfig,
    /// Where the config was read from, for locating `unused-ignore` findings.
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FingerprintConfig {
    #[serde(default)]
    pub algorithm: Algorithm,
    /// Top-level tool fields left out of fingerprints (e.g. `annotations`); `_meta` always is.
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// Resource limits on what a run reads (`--max-file-size` overrides `max_file_size`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    pub max_file_size: Option<ByteSize>,
}

impl LimitsConfig {
    pub fn max_file_size(&self) -> ByteSize {
        self.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE)
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriftConfig {
    #[serde(default)]
    pub action: DriftAction,
}

/// What drift does to a run: `block` fails it (per `fail_on`), `alert` only reports. A
/// quarantined server fails either way: quarantine is an explicit hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DriftAction {
    Alert,
    #[default]
    Block,
}

impl DriftAction {
    pub fn as_str(self) -> &'static str {
        match self {
            DriftAction::Alert => "alert",
            DriftAction::Block => "block",
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    pub enabled: Option<bool>,
    pub severity: Option<Severity>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShadowingConfig {
    /// Tool-name collisions a reviewer approved: they are not reported.
    #[serde(default)]
    pub allow: Vec<AllowedCollision>,
}

/// One approved collision: `tool` (the name as any of the servers spells it) on these servers
/// (all of them when empty).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowedCollision {
    pub tool: String,
    #[serde(default)]
    pub servers: Vec<String>,
    /// Required, as for ignores: why the collision is fine.
    pub reason: String,
}

impl ShadowingConfig {
    /// Whether a collision between these (server, tool) pairs was approved.
    pub fn allows(&self, parties: &[(&str, &str)]) -> bool {
        self.allow.iter().any(|a| {
            parties.iter().any(|(_, tool)| *tool == a.tool)
                && parties.iter().all(|(server, _)| {
                    a.servers.is_empty() || a.servers.iter().any(|s| s == server)
                })
        })
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ignore {
    pub rule: String,
    pub server: Option<String>,
    pub tool: Option<String>,
    /// Required: a suppression nobody can explain is a finding waiting to be missed.
    pub reason: String,
}

impl Ignore {
    pub fn matches(&self, rule: &str, server: Option<&str>, tool: Option<&str>) -> bool {
        self.rule == rule
            && self.server.as_deref().is_none_or(|s| Some(s) == server)
            && self.tool.as_deref().is_none_or(|t| Some(t) == tool)
    }
}

impl Config {
    /// `--config FILE` if given (must exist), else `mcp-scan.yaml` in the working directory if
    /// present, else defaults.
    pub fn load(explicit: Option<&Path>, catalogue: &Catalogue) -> Result<Config, Error> {
        let config = Config::read(explicit)?;
        if let Some(path) = &config.path {
            config.validate(path, catalogue)?;
        }
        Ok(config)
    }

    /// Like [`Config::load`] without checking rule ids: the config may name rule packs
    /// (`rules_dirs`) that must be loaded before its rule ids can be checked.
    pub fn read(explicit: Option<&Path>) -> Result<Config, Error> {
        let path = match explicit {
            Some(path) => Some(path.to_path_buf()),
            None => DEFAULT_FILES
                .iter()
                .map(PathBuf::from)
                .find(|p| p.is_file()),
        };
        let Some(path) = path else {
            return Ok(Config::default());
        };
        let text = read_text(&path)?;
        let mut config = Config::parse(&text, &path)?;
        config.path = Some(path);
        Ok(config)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Config, Error> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        yaml_serde::from_str(text).map_err(|e| {
            let origin = match e.location() {
                Some(l) => format!(
                    "{}:{}:{}",
                    crate::source::display_path(path),
                    l.line(),
                    l.column()
                ),
                None => crate::source::display_path(path),
            };
            Error {
                origin: Some(origin),
                message: format!("invalid config: {}", strip_location(&e.to_string())),
                help: None,
            }
        })
    }

    pub fn validate(&self, path: &Path, catalogue: &Catalogue) -> Result<(), Error> {
        let unknown_rule = |id: &str| {
            Error::in_file(path, format!("unknown rule `{id}`"))
                .with_help("`mcp-scan rules list` shows every rule id")
        };
        for id in self.rules.keys() {
            if catalogue.get(id).is_none() {
                return Err(unknown_rule(id));
            }
        }
        for ignore in &self.ignore {
            if catalogue.get(&ignore.rule).is_none() {
                return Err(unknown_rule(&ignore.rule));
            }
            if ignore.reason.trim().is_empty() {
                return Err(Error::in_file(
                    path,
                    format!(
                        "the ignore entry for `{}` needs a non-empty `reason`",
                        ignore.rule
                    ),
                ));
            }
        }
        if let Some(allow) = self
            .shadowing
            .allow
            .iter()
            .find(|a| a.reason.trim().is_empty())
        {
            return Err(Error::in_file(
                path,
                format!(
                    "the shadowing allow entry for `{}` needs a non-empty `reason`",
                    allow.tool
                ),
            ));
        }
        if let Some(field) = self
            .fingerprint
            .exclude
            .iter()
            .find(|f| f.as_str() == "name")
        {
            return Err(Error::in_file(
                path,
                format!("`{field}` cannot be excluded from fingerprints"),
            ));
        }
        Ok(())
    }

    pub fn fingerprint_options(&self) -> FingerprintOptions {
        FingerprintOptions {
            algorithm: self.fingerprint.algorithm,
            exclude: self.fingerprint.exclude.iter().cloned().collect(),
        }
    }

    /// `auto_approve_new`, else its default for `posture`.
    pub fn auto_approve_new(&self, posture: Posture) -> bool {
        self.auto_approve_new
            .unwrap_or(posture == Posture::Discovery)
    }

    pub fn rule_enabled(&self, id: &str) -> bool {
        self.rules.get(id).and_then(|r| r.enabled).unwrap_or(true)
    }

    pub fn rule_severity(&self, id: &str) -> Option<Severity> {
        self.rules.get(id).and_then(|r| r.severity)
    }
}

/// yaml_serde appends " at line L column C"; the location is already in the origin.
fn strip_location(message: &str) -> &str {
    message.find(" at line ").map_or(message, |i| &message[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        Config::parse(text, Path::new("mcp-scan.yaml")).map_err(|e| e.to_string())
    }

    #[test]
    fn parses_a_full_config() {
        let config = parse(
            "posture: strict\nfail_on: medium\npaths: [mcp/snapshots]\nfingerprint:\n  algorithm: sha512\n  exclude: [annotations]\nrules:\n  tool-added: { severity: high }\n  tool-removed: { enabled: false }\nignore:\n  - rule: tool-changed\n    server: github\n    reason: vendor update reviewed in PR 12\n",
        )
        .unwrap();
        assert_eq!(config.posture, Posture::Strict);
        assert_eq!(config.fail_on, Some(FailOn(Some(Severity::Medium))));
        assert_eq!(config.fingerprint.algorithm, Algorithm::Sha512);
        assert!(!config.rule_enabled("tool-removed"));
        assert_eq!(config.rule_severity("tool-added"), Some(Severity::High));
        assert!(config.ignore[0].matches("tool-changed", Some("github"), Some("x")));
        assert!(!config.ignore[0].matches("tool-changed", Some("gitlab"), Some("x")));
    }

    #[test]
    fn reports_bad_keys_with_their_position() {
        let cases = [
            (
                "postur: strict\n",
                "mcp-scan.yaml:1:1: invalid config: unknown field `postur`",
            ),
            (
                "posture: strict\nfail_on: severe\n",
                "invalid config: `severe` is not one of",
            ),
            (
                "ignore:\n  - rule: tool-changed\n",
                "mcp-scan.yaml:2:5: invalid config: ignore[0]: missing field `reason`",
            ),
        ];
        for (text, want) in cases {
            let err = parse(text).unwrap_err();
            assert!(err.contains(want), "{err:?} should contain {want:?}");
        }
    }
}
