//! `--format json`: a stable, versioned document. Later versions add fields, never rename.

use serde::Serialize;

use crate::finding::{Finding, Severity};
use crate::scan::Report;
use crate::source::Sources;

pub const VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    findings: Vec<JsonFinding<'a>>,
    summary: JsonSummary,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: &'a str,
    category: &'a str,
    severity: &'a str,
    confidence: &'a str,
    message: &'a str,
    server: Option<&'a str>,
    tool: Option<&'a str>,
    field: Option<&'a str>,
    location: JsonLocation,
    related: Vec<JsonLocation>,
    fingerprint: &'a str,
    /// Present when an `ignore` entry in the config matched; such findings never fail a run.
    #[serde(skip_serializing_if = "Option::is_none")]
    suppressed: Option<Suppression<'a>>,
    /// On drift findings: an event for a SIEM (see `drift_event`).
    #[serde(skip_serializing_if = "Option::is_none")]
    event: Option<JsonEvent<'a>>,
}

#[derive(Serialize)]
struct JsonEvent<'a> {
    server: Option<&'a str>,
    previous_digest: Option<&'a str>,
    current_digest: Option<&'a str>,
    baseline_version: Option<u64>,
    changed: &'a [String],
    added: &'a [String],
    removed: &'a [String],
    action: &'static str,
}

#[derive(Serialize)]
struct Suppression<'a> {
    reason: &'a str,
}

#[derive(Serialize)]
struct JsonLocation {
    path: String,
    pointer: String,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
}

#[derive(Serialize)]
struct JsonSummary {
    files: usize,
    servers: usize,
    tools: usize,
    findings: usize,
    suppressed: usize,
    by_severity: BySeverity,
    fail_on: &'static str,
    failed: bool,
    skipped: Vec<JsonSkipped>,
}

#[derive(Serialize)]
struct BySeverity {
    critical: usize,
    high: usize,
    medium: usize,
    low: usize,
    info: usize,
}

#[derive(Serialize)]
struct JsonSkipped {
    path: String,
    reason: String,
}

fn location(sources: &Sources, loc: &crate::finding::Location) -> JsonLocation {
    let path = sources
        .get(loc.source)
        .map(|s| s.display_path())
        .unwrap_or_default();
    JsonLocation {
        path,
        pointer: loc.pointer.to_string(),
        line: loc.span.map(|s| s.line),
        column: loc.span.map(|s| s.column),
        end_line: loc.span.map(|s| s.end_line),
        end_column: loc.span.map(|s| s.end_column),
    }
}

fn finding<'a>(f: &'a Finding, sources: &Sources) -> JsonFinding<'a> {
    JsonFinding {
        rule: &f.rule,
        category: f.category.as_str(),
        severity: f.severity.as_str(),
        confidence: f.confidence.as_str(),
        message: &f.message,
        server: f.server.as_deref(),
        tool: f.tool.as_deref(),
        field: f.field.as_deref(),
        location: location(sources, &f.location),
        related: f.related.iter().map(|r| location(sources, r)).collect(),
        fingerprint: &f.fingerprint,
        suppressed: f.suppressed.as_deref().map(|reason| Suppression { reason }),
        event: f.event.as_ref().map(|e| JsonEvent {
            server: e.server.as_deref(),
            previous_digest: e.previous_digest.as_deref(),
            current_digest: e.current_digest.as_deref(),
            baseline_version: e.baseline_version,
            changed: &e.changed,
            added: &e.added,
            removed: &e.removed,
            action: e.action.as_str(),
        }),
    }
}

pub fn render(report: &Report) -> String {
    let s = &report.summary;
    let doc = Document {
        version: VERSION,
        findings: report
            .findings
            .iter()
            .map(|f| finding(f, &report.sources))
            .collect(),
        summary: JsonSummary {
            files: s.files,
            servers: s.servers,
            tools: s.tools,
            findings: report.active().count(),
            suppressed: report.suppressed_count(),
            by_severity: BySeverity {
                critical: report.count(Severity::Critical),
                high: report.count(Severity::High),
                medium: report.count(Severity::Medium),
                low: report.count(Severity::Low),
                info: report.count(Severity::Info),
            },
            fail_on: s.fail_on.0.map_or("none", Severity::as_str),
            failed: report.exit_code() == 1,
            skipped: s
                .skipped
                .iter()
                .map(|k| JsonSkipped {
                    path: crate::source::display_path(&k.path),
                    reason: k.reason.clone(),
                })
                .collect(),
        },
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}
