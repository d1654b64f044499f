//! The one place where symbolic locations (file + JSON pointer + optional substring) become
//! concrete line/column spans, using the spans recorded by the parse of the same text.

use crate::finding::{Location, Span, Target};
use crate::json::Span as ByteSpan;
use crate::json::escape_map::raw_span;
use crate::json::pointer::{resolve_key_span, resolve_nth_key_span};
use crate::source::{SourceFile, Sources};

/// Fills `location.span`; leaves it `None` when the file is not JSON or the pointer does not
/// resolve (a check bug, which tests catch, rather than a reason to fail the run).
pub fn locate(sources: &Sources, location: &mut Location) {
    location.span = resolve(sources, location);
}

fn resolve(sources: &Sources, location: &Location) -> Option<Span> {
    let source = sources.get(location.source)?;
    let root = source.root.as_ref()?;
    let bytes = match location.target {
        Target::Key => resolve_key_span(root, &location.pointer)?,
        Target::KeyOccurrence(n) => resolve_nth_key_span(root, &location.pointer, n)?,
        Target::Value => {
            let node = root.pointer(&location.pointer)?;
            match &location.sub {
                Some(sub) => raw_span(&source.text, node.span, sub.clone())?,
                None => node.span,
            }
        }
    };
    Some(to_span(source, bytes))
}

fn to_span(source: &SourceFile, bytes: ByteSpan) -> Span {
    let lines = source.lines();
    let start = lines.position(&source.text, bytes.start);
    let end = lines.position(&source.text, bytes.end);
    Span {
        start_byte: bytes.start,
        end_byte: bytes.end,
        line: start.line,
        column: start.column,
        end_line: end.line,
        end_column: end.column,
        column_utf16: start.column_utf16,
        end_column_utf16: end.column_utf16,
    }
}
