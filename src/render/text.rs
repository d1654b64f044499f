//! The default human report: one block per finding, rustc-style, with the source line and a
//! caret under the exact span, then a word diff for changed text.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use foldhash::HashMap;
use rayon::prelude::*;

use super::count;
use super::paint::Paint;
use super::word_diff::word_diff;
use crate::finding::{Finding, Location, Severity};
use crate::scan::Report;
use crate::source::{SourceFile, SourceId, Sources};
use crate::unicode::{display_name, make_visible};

/// Source lines longer than this are cut around the span.
const MAX_LINE_CHARS: usize = 120;

pub fn render(report: &Report, paint: Paint, verbose: bool) -> String {
    let mut out = String::new();
    if verbose {
        for skipped in &report.summary.skipped {
            let _ = writeln!(
                out,
                "{} {}: not a snapshot ({})",
                paint.dim("skipped"),
                crate::source::display_path(&skipped.path),
                skipped.reason
            );
        }
    }
    let excerpts = Excerpts::of(&report.sources, report.active());
    for finding in report.active() {
        finding_block(&mut out, finding, &excerpts, paint);
    }
    out.push_str(&summary_line(report, paint));
    out.push('\n');
    out
}

/// The source lines findings point at, each file read (again, if its text was freed) once,
/// in parallel over files, rather than once per finding.
pub struct Excerpts<'a> {
    sources: &'a Sources,
    lines: HashMap<(SourceId, usize), String>,
}

impl<'a> Excerpts<'a> {
    pub fn of<'f>(sources: &'a Sources, findings: impl Iterator<Item = &'f Finding>) -> Self {
        let mut wanted: BTreeMap<SourceId, BTreeSet<usize>> = BTreeMap::new();
        for location in findings.flat_map(Finding::locations) {
            if let Some(span) = location.span {
                wanted.entry(location.source).or_default().insert(span.line);
            }
        }
        let lines = wanted
            .into_par_iter()
            .flat_map_iter(|(id, lines)| {
                let reading = sources.get(id).map(SourceFile::reading);
                lines.into_iter().filter_map(move |line| {
                    let reading = reading.as_ref()?;
                    let text = reading.lines().line_text(reading.text(), line);
                    Some(((id, line), text.to_string()))
                })
            })
            .collect();
        Excerpts { sources, lines }
    }

    /// The text of line `line` (1-based) of file `id`.
    fn line(&self, id: SourceId, line: usize) -> &str {
        self.lines.get(&(id, line)).map_or("", String::as_str)
    }
}

pub fn finding_block(out: &mut String, f: &Finding, excerpts: &Excerpts<'_>, paint: Paint) {
    let label = format!("{}[{}]", f.severity, f.rule);
    let _ = writeln!(
        out,
        "{}: {}",
        paint.severity(f.severity, &label),
        // Messages quote server names, which come from the input.
        paint.bold(&make_visible(&f.message))
    );
    excerpt(out, &f.location, excerpts, paint, None);
    for related in &f.related {
        excerpt(out, related, excerpts, paint, Some("also here"));
    }
    let mut context = Vec::new();
    context.extend(
        f.server
            .as_ref()
            .map(|s| format!("server: {}", display_name(s))),
    );
    context.extend(
        f.tool
            .as_ref()
            .map(|t| format!("tool: {}", display_name(t))),
    );
    context.extend(f.field.as_ref().map(|x| format!("field: {x}")));
    if !context.is_empty() {
        let _ = writeln!(out, "   {} {}", paint.blue("="), context.join(", "));
    }
    if let Some(change) = &f.change {
        let _ = writeln!(
            out,
            "   {} diff: {}",
            paint.blue("="),
            word_diff(&change.before, &change.after, paint)
        );
    }
    out.push('\n');
}

fn excerpt(
    out: &mut String,
    location: &Location,
    excerpts: &Excerpts<'_>,
    paint: Paint,
    note: Option<&str>,
) {
    let Some(source) = excerpts.sources.get(location.source) else {
        return;
    };
    let path = source.display_path();
    let Some(span) = location.span else {
        let pointer = if location.pointer.as_str().is_empty() {
            "/"
        } else {
            location.pointer.as_str()
        };
        let _ = writeln!(out, "  {} {path} ({pointer})", paint.blue("-->"));
        return;
    };
    let _ = writeln!(
        out,
        "  {} {path}:{}:{}",
        paint.blue("-->"),
        span.line,
        span.column
    );
    let line_text = excerpts.line(location.source, span.line);
    let gutter = span.line.to_string();
    let pad = " ".repeat(gutter.len());
    // The caret runs to the end of the span, or of the line when the span continues below.
    let end_column = if span.end_line == span.line {
        span.end_column.max(span.column + 1)
    } else {
        line_text.chars().count() + 1
    };
    let (shown, start, width) = window(line_text, span.column, end_column);
    let _ = writeln!(out, "  {pad} {}", paint.blue("|"));
    let _ = writeln!(out, "  {} {} {shown}", paint.blue(&gutter), paint.blue("|"));
    let carets = "^".repeat(width.max(1));
    let marker = match note {
        Some(note) => format!("{carets} {note}"),
        None => carets,
    };
    let _ = writeln!(
        out,
        "  {pad} {} {}{}",
        paint.blue("|"),
        " ".repeat(start),
        paint.severity(Severity::High, &marker)
    );
}

/// The part of `line` to show, the caret's start within it, and the caret's width (in display
/// columns). Invisible characters are shown as `<U+XXXX>` (and tabs as a space), so what hides in
/// the source is visible in the excerpt, and the caret still lines up.
fn window(line: &str, column: usize, end_column: usize) -> (String, usize, usize) {
    let pieces: Vec<String> = line
        .chars()
        .map(|c| match c {
            '\t' => " ".to_string(),
            c => make_visible(c.encode_utf8(&mut [0; 4])),
        })
        .collect();
    let start = column.saturating_sub(1).min(pieces.len());
    let end = end_column.saturating_sub(1).clamp(start, pieces.len());
    // Show the whole line when it fits; else a window that starts a little before the span.
    let (from, to) = if pieces.len() <= MAX_LINE_CHARS {
        (0, pieces.len())
    } else {
        let from = if start < MAX_LINE_CHARS / 2 {
            0
        } else {
            start - 20
        };
        (from, (from + MAX_LINE_CHARS).min(pieces.len()))
    };
    let width = |range: &[String]| range.iter().map(|p| p.chars().count()).sum::<usize>();
    let mut shown: String = pieces.get(from..to).unwrap_or_default().concat();
    let mut caret_start = width(pieces.get(from..start).unwrap_or_default());
    if from > 0 {
        shown.insert(0, '…');
        caret_start += 1;
    }
    if to < pieces.len() {
        shown.push('…');
    }
    let caret_width = width(
        pieces
            .get(start..end.min(to).max(start))
            .unwrap_or_default(),
    );
    (shown, caret_start, caret_width)
}

fn summary_line(report: &Report, paint: Paint) -> String {
    let s = &report.summary;
    let mut line = format!(
        "{} in {}, {}, {}",
        finding_counts(report, paint),
        count(s.servers, "server"),
        count(s.tools, "tool"),
        count(s.files, "file")
    );
    let suppressed = report.suppressed_count();
    if suppressed > 0 {
        let _ = write!(line, "; {suppressed} suppressed by ignores");
    }
    if !s.skipped.is_empty() {
        let _ = write!(
            line,
            "; {} skipped (-v lists them)",
            count(s.skipped.len(), "non-snapshot JSON file")
        );
    }
    line
}

/// "no findings", or "3 findings (1 high, 2 medium)": active findings only.
pub fn finding_counts(report: &Report, paint: Paint) -> String {
    let mut parts = Vec::new();
    for severity in Severity::ALL.iter().rev() {
        let n = report.count(*severity);
        if n > 0 {
            parts.push(paint.severity(*severity, &format!("{n} {severity}")));
        }
    }
    match report.active().count() {
        0 => "no findings".to_string(),
        n => format!("{} ({})", count(n, "finding"), parts.join(", ")),
    }
}
