//! `--format sarif`: a SARIF 2.1.0 log shaped for GitHub code scanning.
//!
//! This is the only module that knows serde-sarif, so swapping it for a hand-written model later
//! touches one file. Columns are UTF-16 code units (`columnKind`), URIs are relative to
//! `%SRCROOT%` (the directory mcp-scan ran in), and `partialFingerprints` carry the finding's
//! line-independent fingerprint so alerts survive reformatting.

use std::collections::BTreeMap;
use std::io::Write;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Value, json};
use serde_sarif::sarif::{
    ArtifactLocation, Location as SarifLocation, LogicalLocation, Message,
    MultiformatMessageString, PhysicalLocation, PropertyBag, Region, ReportingConfiguration,
    ReportingDescriptor, Result as SarifResult, ResultLevel, Run, SCHEMA_URL, Sarif, Suppression,
    Tool, ToolComponent, Version,
};

use crate::config::Config;
use crate::finding::{Confidence, Finding, Location, Severity};
use crate::rules::{Catalogue, Rule};
use crate::scan::Report;
use crate::source::Sources;

/// The base every relative URI is resolved against.
const SRCROOT: &str = "%SRCROOT%";
/// The key under which `partialFingerprints` carries [`Finding::fingerprint`].
const FINGERPRINT_KEY: &str = "mcp-scan/v1";

/// A rule as this run applies it: config may change its severity.
pub struct EnabledRule<'a> {
    pub rule: &'a Rule,
    pub severity: Severity,
}

/// Every rule the config leaves on, in catalogue (id) order, so `ruleIndex` is stable.
pub fn enabled_rules<'a>(catalogue: &'a Catalogue, config: &Config) -> Vec<EnabledRule<'a>> {
    catalogue
        .rules()
        .iter()
        .filter(|rule| config.rule_enabled(&rule.id))
        .map(|rule| EnabledRule {
            rule,
            severity: config.rule_severity(&rule.id).unwrap_or(rule.severity),
        })
        .collect()
}

/// Writes the SARIF log of `report` to `out` as it is printed: a large scan's log (700 MB for
/// 1M tools) is never all in memory, nor joined.
pub fn write(
    report: &Report,
    rules: &[EnabledRule<'_>],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let driver = ToolComponent::builder()
        .name("mcp-scan")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .rules(rules.iter().map(descriptor).collect::<Vec<_>>())
        .build();
    // No `uri` for the root: it would put the runner's absolute path in the log, and consumers
    // (GitHub among them) resolve relative URIs against the checkout anyway.
    let base = ArtifactLocation::builder()
        .description(
            Message::builder()
                .text("The directory mcp-scan ran in (the repository root in CI).")
                .build(),
        )
        .build();
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(Vec::new())
        .column_kind(json!("utf16CodeUnits"))
        .original_uri_base_ids(BTreeMap::from([(SRCROOT.to_string(), base)]))
        .build();
    let log = Sarif::builder()
        .schema(SCHEMA_URL)
        .version(json!(Version::V2_1_0.to_string()))
        .runs(vec![run])
        .build();
    let empty = serde_json::to_string_pretty(&log).unwrap_or_default();
    write_spliced(
        &empty,
        report.findings.len(),
        |i| {
            report.findings.get(i).map_or_else(
                || Ok(Vec::new()),
                |f| printed_result(&result(f, rules, &report.sources)),
            )
        },
        out,
    )?;
    out.write_all(b"\n")
}

/// How many results are printed at once, in parallel, before they are written.
const BATCH: usize = 4096;

/// Writes `log` (printed with no results) with `count` results spliced in, result `i` as
/// `print(i)` gives it: each result is printed on its own, in parallel a batch at a time
/// (printing a large scan's log whole was a serial step of most of a second per 100k tools).
fn write_spliced(
    log: &str,
    count: usize,
    print: impl Fn(usize) -> std::io::Result<Vec<u8>> + Sync,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let Some((before, after)) = log.split_once(EMPTY_RESULTS).filter(|_| count > 0) else {
        return out.write_all(log.as_bytes());
    };
    writeln!(out, "{before}\"results\": [")?;
    for start in (0..count).step_by(BATCH) {
        let batch: Vec<Vec<u8>> = (start..count.min(start + BATCH))
            .into_par_iter()
            .map(&print)
            .collect::<std::io::Result<_>>()?;
        for (i, printed) in (start..).zip(batch) {
            out.write_all(&printed)?;
            out.write_all(if i + 1 < count { b",\n" } else { b"\n" })?;
        }
    }
    write!(out, "{RUN_MEMBER_INDENT}]{after}")
}

/// Where the log's one run keeps its results, as printed with none, and how deep they sit.
const EMPTY_RESULTS: &str = "\"results\": []";
const RUN_MEMBER_INDENT: &str = "      ";
const RESULT_INDENT: &str = "        ";

/// One result printed as it is inside the log: pretty, every line indented to its depth.
fn printed_result(result: &impl Serialize) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(RESULT_INDENT.as_bytes());
    let mut printer = serde_json::Serializer::with_formatter(&mut out, IndentedPretty::default());
    // Fails only for a map key that is not a string (SARIF's never are): an error, not half a
    // result in the log.
    result.serialize(&mut printer)?;
    Ok(out)
}

/// serde_json's pretty printer (two spaces a level), with every line after the first starting
/// at [`RESULT_INDENT`]: printing a result alone and then indenting its lines was a second pass
/// over every result (80 MB of them at 100k tools).
#[derive(Default)]
struct IndentedPretty {
    depth: usize,
    has_value: bool,
}

impl IndentedPretty {
    /// A newline and the indent of the current depth.
    fn new_line(&self, out: &mut (impl Write + ?Sized)) -> std::io::Result<()> {
        const LINE_STARTS: &[u8] = b"\n                                                  ";
        let width = 1 + RESULT_INDENT.len() + 2 * self.depth;
        match LINE_STARTS.get(..width) {
            Some(line_start) => out.write_all(line_start),
            None => {
                out.write_all(b"\n")?;
                out.write_all(" ".repeat(width - 1).as_bytes())
            }
        }
    }

    /// An array or object begins, one level deeper.
    fn open(&mut self, out: &mut (impl Write + ?Sized), bracket: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        out.write_all(bracket)
    }

    /// It ends: on a line of its own, back at its level, unless it is empty.
    fn close(&mut self, out: &mut (impl Write + ?Sized), bracket: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.new_line(out)?;
        }
        out.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for IndentedPretty {
    fn begin_array<W: Write + ?Sized>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.open(out, b"[")
    }

    fn end_array<W: Write + ?Sized>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.close(out, b"]")
    }

    fn begin_array_value<W: Write + ?Sized>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if !first {
            out.write_all(b",")?;
        }
        self.new_line(out)
    }

    fn end_array_value<W: Write + ?Sized>(&mut self, _out: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: Write + ?Sized>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.open(out, b"{")
    }

    fn end_object<W: Write + ?Sized>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.close(out, b"}")
    }

    fn begin_object_key<W: Write + ?Sized>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.begin_array_value(out, first)
    }

    fn begin_object_value<W: Write + ?Sized>(&mut self, out: &mut W) -> std::io::Result<()> {
        out.write_all(b": ")
    }

    fn end_object_value<W: Write + ?Sized>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.end_array_value(out)
    }
}

fn descriptor(enabled: &EnabledRule<'_>) -> ReportingDescriptor {
    let rule = enabled.rule;
    let mut extra = BTreeMap::new();
    if let Some(score) = security_severity(enabled.severity) {
        extra.insert("security-severity".to_string(), json!(score));
    }
    extra.insert("precision".to_string(), json!(precision(rule.confidence)));
    ReportingDescriptor::builder()
        .id(rule.id.as_str())
        .name(pascal_case(&rule.id))
        .short_description(text(&rule.name))
        .full_description(text(&full_description(rule)))
        .help(
            MultiformatMessageString::builder()
                .text(rule.help.as_str())
                .markdown(rule.help.as_str())
                .build(),
        )
        .default_configuration(
            ReportingConfiguration::builder()
                .level(json!(level(enabled.severity)))
                .build(),
        )
        .properties(
            PropertyBag::builder()
                .tags(vec![
                    "security".to_string(),
                    rule.category.as_str().to_string(),
                ])
                .additional_properties(extra)
                .build(),
        )
        .build()
}

fn result(f: &Finding, rules: &[EnabledRule<'_>], sources: &Sources) -> SarifResult {
    let mut primary = location(&f.location, sources);
    let logical = match (&f.server, &f.tool) {
        (Some(server), Some(tool)) => Some((tool.as_str(), format!("{server}/{tool}"))),
        (Some(server), None) => Some((server.as_str(), server.clone())),
        _ => None,
    };
    if let Some((name, qualified)) = logical {
        primary.logical_locations = Some(vec![
            LogicalLocation::builder()
                .name(name)
                .fully_qualified_name(qualified)
                .build(),
        ]);
    }
    let related: Vec<SarifLocation> = f
        .related
        .iter()
        .zip(1..)
        .map(|(r, id)| {
            let mut related = location(r, sources);
            related.id = Some(id);
            related
        })
        .collect();
    let rule_index = rules
        .iter()
        .position(|r| r.rule.id == f.rule)
        .and_then(|i| i64::try_from(i).ok());
    let mut result = SarifResult::builder()
        .rule_id(f.rule.as_str())
        .level(level(f.severity))
        .message(Message::builder().text(f.message.as_str()).build())
        .locations(vec![primary])
        .partial_fingerprints(BTreeMap::from([(
            FINGERPRINT_KEY.to_string(),
            f.fingerprint.clone(),
        )]))
        .build();
    result.rule_index = rule_index;
    if !related.is_empty() {
        result.related_locations = Some(related);
    }
    if let Some(reason) = &f.suppressed {
        result.suppressions = Some(vec![
            Suppression::builder()
                .kind(json!("external"))
                .status(json!("accepted"))
                .justification(reason.as_str())
                .build(),
        ]);
    }
    result
}

fn location(loc: &Location, sources: &Sources) -> SarifLocation {
    let path = sources
        .get(loc.source)
        .map(|s| s.display_path())
        .unwrap_or_default();
    let artifact = if path.starts_with('/') {
        ArtifactLocation::builder()
            .uri(format!("file://{}", encode_uri_path(&path)))
            .build()
    } else {
        ArtifactLocation::builder()
            .uri(encode_uri_path(&path))
            .uri_base_id(SRCROOT)
            .build()
    };
    let mut physical = PhysicalLocation::builder()
        .artifact_location(artifact)
        .build();
    physical.region = loc.span.map(|s| {
        let mut region = Region::builder()
            .start_line(to_i64(s.line))
            .start_column(to_i64(s.column_utf16))
            .end_line(to_i64(s.end_line))
            .end_column(to_i64(s.end_column_utf16))
            .byte_offset(to_i64(s.start_byte))
            .build();
        region.byte_length = Some(to_i64(s.end_byte.saturating_sub(s.start_byte)));
        region
    });
    let mut location = SarifLocation::builder().physical_location(physical).build();
    if !loc.pointer.as_str().is_empty() {
        let mut properties = BTreeMap::new();
        properties.insert("jsonPointer".to_string(), Value::from(loc.pointer.as_str()));
        location.properties = Some(
            PropertyBag::builder()
                .additional_properties(properties)
                .build(),
        );
    }
    location
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn text(s: &str) -> MultiformatMessageString {
    MultiformatMessageString::builder().text(s).build()
}

/// GitHub shows `level` for the alert; critical and high block, medium warns, the rest notes.
fn level(severity: Severity) -> ResultLevel {
    match severity {
        Severity::Critical | Severity::High => ResultLevel::Error,
        Severity::Medium => ResultLevel::Warning,
        Severity::Low | Severity::Info => ResultLevel::Note,
    }
}

/// GitHub's bands: >9.0 critical, 7.0–8.9 high, 4.0–6.9 medium, 0.1–3.9 low. Values sit well
/// inside each band; info has none, so GitHub does not rank it as a security alert.
fn security_severity(severity: Severity) -> Option<&'static str> {
    match severity {
        Severity::Critical => Some("9.5"),
        Severity::High => Some("8.0"),
        Severity::Medium => Some("5.5"),
        Severity::Low => Some("2.0"),
        Severity::Info => None,
    }
}

fn precision(confidence: Confidence) -> &'static str {
    confidence.as_str()
}

/// The first paragraph of the rule's "What it does" section (or of its help), as plain text.
fn full_description(rule: &Rule) -> String {
    let paragraph: Vec<&str> = rule
        .help
        .lines()
        .skip_while(|l| l.trim().is_empty() || l.starts_with('#'))
        .take_while(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::trim)
        .collect();
    if paragraph.is_empty() {
        rule.name.clone()
    } else {
        paragraph.join(" ")
    }
}

/// `tool-changed` → `ToolChanged`: SARIF's `name` is an identifier, the sentence goes in
/// `shortDescription`.
fn pascal_case(id: &str) -> String {
    id.split(['-', '_'])
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// Percent-encodes everything but RFC 3986 unreserved characters and `/`, so paths with spaces
/// or non-ASCII names are valid URI references.
fn encode_uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splicing results printed one by one gives what printing the whole log gives.
    #[test]
    fn spliced_results_print_as_the_whole_log_would() {
        let log = |results: Vec<SarifResult>| {
            let run = Run::builder()
                .tool(
                    Tool::builder()
                        .driver(ToolComponent::builder().name("t").build())
                        .build(),
                )
                .results(results)
                .build();
            Sarif::builder()
                .version(json!("2.1.0"))
                .runs(vec![run])
                .build()
        };
        let result = |i: i64| {
            let mut r = SarifResult::builder()
                .rule_id(format!("rule-{i}"))
                .message(Message::builder().text("a \"results\": [] b\nc").build())
                .build();
            r.rule_index = Some(i);
            r
        };
        for n in [0, 1, 2, BATCH + 1] {
            let results: Vec<SarifResult> = (0..n as i64).map(result).collect();
            let empty = serde_json::to_string_pretty(&log(Vec::new())).unwrap();
            let whole = serde_json::to_string_pretty(&log(results.clone())).unwrap();
            let mut out = Vec::new();
            write_spliced(&empty, n, |i| printed_result(&results[i]), &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), whole, "{n} results");
        }
    }

    /// Any value, nested past the indents the printer keeps ready, prints as the pretty
    /// printer prints it with every line indented.
    #[test]
    fn printed_like_the_pretty_printer_indented() {
        let mut deep = json!({"a": [], "b": {}, "c": [1, {"d": "x\ny"}]});
        for depth in 0..30 {
            deep = json!({ "level": depth, "inner": [deep, []] });
        }
        let pretty = serde_json::to_string_pretty(&deep).unwrap();
        let indented: Vec<String> = pretty
            .lines()
            .map(|line| format!("{RESULT_INDENT}{line}"))
            .collect();
        let printed = String::from_utf8(printed_result(&deep).unwrap()).unwrap();
        assert_eq!(printed, indented.join("\n"));
    }

    #[test]
    fn helpers() {
        assert_eq!(pascal_case("duplicate-tool-name"), "DuplicateToolName");
        assert_eq!(encode_uri_path("a b/ü.json"), "a%20b/%C3%BC.json");
        assert_eq!(encode_uri_path(".vscode/mcp.json"), ".vscode/mcp.json");
        let levels: Vec<_> = Severity::ALL
            .iter()
            .map(|s| level(*s).to_string())
            .collect();
        assert_eq!(levels, ["note", "note", "warning", "error", "error"]);
        let scores: Vec<_> = Severity::ALL
            .iter()
            .map(|s| security_severity(*s))
            .collect();
        assert_eq!(
            scores,
            [None, Some("2.0"), Some("5.5"), Some("8.0"), Some("9.5")]
        );
    }
}
