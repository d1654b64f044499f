//! `--format markdown`: a pull-request summary (for `$GITHUB_STEP_SUMMARY` or a PR comment):
//! counts by severity, a table of findings, and a before/after diff of every drifted tool with
//! invisible characters made visible.
//!
//! Tool names and descriptions are untrusted text, so everything from them is escaped (table
//! cells) or fenced (diffs). GitHub rejects a step summary over 1 MiB, so the output stops before
//! [`MAX_BYTES`] with a note saying what was left out.

use std::fmt::Write;

use similar::{ChangeTag, TextDiff};

use super::paint::Paint;
use super::word_diff::word_diff;
use crate::finding::{Change, Finding, Severity};
use crate::scan::Report;
use crate::source::Sources;
use crate::unicode::make_visible;

/// Comfortably under GitHub's 1 MiB step-summary limit, leaving room for other steps' lines.
const MAX_BYTES: usize = 1000 * 1000;

pub fn render(report: &Report) -> String {
    let active: Vec<&Finding> = report.active().collect();
    let mut blocks = Vec::new();
    if !active.is_empty() {
        blocks.push(
            "| Severity | Rule | Server / tool | Location | Message |\n|---|---|---|---|---|\n"
                .to_string(),
        );
        blocks.extend(active.iter().map(|f| row(f, &report.sources)));
    }
    let drifted: Vec<(&Finding, &Change)> = active
        .iter()
        .filter_map(|f| f.change.as_ref().map(|c| (*f, c)))
        .collect();
    if !drifted.is_empty() {
        blocks.push("\n### What changed\n".to_string());
        blocks.extend(drifted.iter().map(|(f, c)| drift(f, c)));
    }
    assemble(header(report), blocks, MAX_BYTES)
}

/// Appends whole blocks while they fit in `max_bytes`, then a note on what was left out.
fn assemble(mut out: String, blocks: Vec<String>, max_bytes: usize) -> String {
    let total = blocks.len();
    for (written, block) in blocks.into_iter().enumerate() {
        // Keep room for the note, whatever it says.
        if out.len() + block.len() + 200 > max_bytes {
            let _ = write!(
                out,
                "\n> [!NOTE]\n> Truncated to stay under GitHub's 1 MiB summary limit: {} of {total} parts left out. The SARIF and JSON outputs have every finding.\n",
                total - written
            );
            return out;
        }
        out.push_str(&block);
    }
    out
}

fn header(report: &Report) -> String {
    let s = &report.summary;
    let active = report.active().count();
    let failed = report.exit_code() == 1;
    let mut out = String::from("## mcp-scan\n\n");
    let verdict = match (failed, active) {
        (true, _) => ":x: **Failed**",
        (false, 0) => ":white_check_mark: **No findings**",
        (false, _) => ":warning: **Passed with findings**",
    };
    let fail_on = s.fail_on.0.map_or("none", Severity::as_str);
    let _ = writeln!(
        out,
        "{verdict}: {active} finding(s) in {} server(s), {} tool(s), {} file(s) (fails on: {fail_on}).\n",
        s.servers, s.tools, s.files
    );
    out.push_str(
        "| Critical | High | Medium | Low | Info | Suppressed |\n|---:|---:|---:|---:|---:|---:|\n",
    );
    let counts: Vec<String> = Severity::ALL
        .iter()
        .rev()
        .map(|sev| report.count(*sev).to_string())
        .collect();
    let _ = writeln!(
        out,
        "| {} | {} |\n",
        counts.join(" | "),
        report.suppressed_count()
    );
    out
}

fn row(f: &Finding, sources: &Sources) -> String {
    let subject = match (&f.server, &f.tool) {
        (Some(server), Some(tool)) => format!("{server} / {tool}"),
        (Some(server), None) => server.clone(),
        _ => String::new(),
    };
    let place = sources
        .get(f.location.source)
        .map(|source| {
            let path = source.display_path();
            match f.location.span {
                Some(span) => format!("{path}:{}:{}", span.line, span.column),
                None => path,
            }
        })
        .unwrap_or_default();
    format!(
        "| {} | `{}` | {} | {} | {} |\n",
        f.severity,
        f.rule,
        cell(&subject),
        code_cell(&place),
        cell(&f.message)
    )
}

/// One drifted field: a line diff of the old and new text, then the word diff that pinpoints
/// the change inside long lines.
fn drift(f: &Finding, change: &Change) -> String {
    let mut title = [f.server.as_deref(), f.tool.as_deref(), f.field.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" / ");
    if title.is_empty() {
        title = f.rule.clone();
    }
    let mut body = String::new();
    let diff = TextDiff::from_lines(&change.before, &change.after);
    for line in diff.iter_all_changes() {
        let sign = match line.tag() {
            ChangeTag::Delete => '-',
            ChangeTag::Insert => '+',
            ChangeTag::Equal => ' ',
        };
        let text = line.value();
        let text = text.strip_suffix('\n').unwrap_or(text);
        let _ = writeln!(body, "{sign} {}", make_visible(text));
    }
    let words = word_diff(&change.before, &change.after, Paint { enabled: false });
    let _ = writeln!(body, "\nword diff: {words}");
    let fence = fence_for(&body);
    format!(
        "\n<details open><summary>{}</summary>\n\n{fence}diff\n{body}{fence}\n\n</details>\n",
        html(&title)
    )
}

/// A code fence longer than any backtick run in `body`, so no content can close it early.
fn fence_for(body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// A table cell: one line, no column breaks, no HTML, invisible characters shown.
fn cell(s: &str) -> String {
    html(&make_visible(s)).replace('|', "\\|")
}

/// A location in a code span (where HTML is inert); a backtick would end it, so it becomes a quote.
fn code_cell(s: &str) -> String {
    if s.is_empty() {
        return String::new();
    }
    format!(
        "`{}`",
        make_visible(s).replace('`', "'").replace('|', "\\|")
    )
}

fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_is_contained() {
        assert_eq!(
            cell("a|b <img src=x>\u{200b}\nz"),
            "a\\|b &lt;img src=x&gt;&lt;U+200B&gt;\\nz"
        );
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("has ```` inside"), "`````");
        assert_eq!(code_cell("a`b|c.json:1:2"), "`a'b\\|c.json:1:2`");
    }

    #[test]
    fn truncates_whole_blocks_with_a_note() {
        let blocks: Vec<String> = (0..100).map(|i| format!("| row {i:03} |\n")).collect();
        let out = assemble("head\n".to_string(), blocks.clone(), 500);
        assert!(out.len() <= 500, "{}", out.len());
        assert!(out.contains("| row 000 |") && !out.contains("| row 099 |"));
        assert!(out.contains("parts left out"));
        let all = assemble("head\n".to_string(), blocks, 10_000);
        assert!(all.contains("| row 099 |") && !all.contains("left out"));
    }
}
