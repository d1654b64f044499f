//! `--format github`: workflow commands that GitHub Actions turns into annotations on the PR.
//!
//! GitHub keeps at most 10 annotations of each kind per step and silently drops the rest, so each
//! kind stops at [`PER_LEVEL`] and one final notice says how many were left out.

use std::fmt::Write;

use crate::finding::{Finding, Severity};
use crate::scan::Report;
use crate::source::Sources;
use crate::unicode::{display_name, make_visible};

/// One below GitHub's per-step cap, leaving room for the aggregate notice.
const PER_LEVEL: usize = 9;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    fn of(severity: Severity) -> Level {
        match severity {
            Severity::Critical | Severity::High => Level::Error,
            Severity::Medium => Level::Warning,
            Severity::Low | Severity::Info => Level::Notice,
        }
    }

    fn command(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }
}

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let mut shown = [0usize; 3];
    let mut left_out = 0;
    for finding in report.active() {
        let level = Level::of(finding.severity);
        let count = &mut shown[level as usize];
        if *count == PER_LEVEL {
            left_out += 1;
            continue;
        }
        *count += 1;
        annotation(&mut out, level, finding, &report.sources);
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "::notice title={}::{}",
            escape_property("mcp-scan: more findings"),
            escape_data(&format!(
                "{left_out} more finding(s) are not shown as annotations (GitHub shows at most 10 per kind); see the job summary or the code scanning alerts"
            ))
        );
    }
    out
}

fn annotation(out: &mut String, level: Level, f: &Finding, sources: &Sources) {
    let mut properties = Vec::new();
    if let Some(source) = sources.get(f.location.source) {
        properties.push(format!("file={}", escape_property(&source.display_path())));
    }
    if let Some(span) = f.location.span {
        properties.push(format!("line={}", span.line));
        properties.push(format!("endLine={}", span.end_line));
        // GitHub only honours columns on single-line annotations.
        if span.line == span.end_line {
            properties.push(format!("col={}", span.column));
            properties.push(format!("endColumn={}", span.end_column));
        }
    }
    let title = format!("mcp-scan {} [{}]", f.severity, f.rule);
    properties.push(format!("title={}", escape_property(&title)));
    // Messages quote server names, which come from the input.
    let mut message = make_visible(&f.message);
    match (&f.server, &f.tool) {
        (Some(server), Some(tool)) => {
            let (server, tool) = (display_name(server), display_name(tool));
            let _ = write!(message, " (server {server}, tool {tool})");
        }
        (Some(server), None) => {
            let _ = write!(message, " (server {})", display_name(server));
        }
        _ => {}
    }
    let _ = writeln!(
        out,
        "::{} {}::{}",
        level.command(),
        properties.join(","),
        escape_data(&message)
    );
}

/// The message part of a workflow command: `%`, CR and LF would end or corrupt the command.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value additionally must not contain the `:` and `,` that delimit properties.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
