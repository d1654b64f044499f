//! Prose where clients show nothing: in an annotation beside the standard hints, in a
//! top-level tool field the spec does not define, or as a parameter's `default`, `const` or
//! `enum` value. Clients render a tool's title and description; the hints are booleans they act
//! on, and preset values are filled in. A sentence in `annotations["x-usage"]` or a tool's
//! `"x-agent-notes"` is read by whatever passes the whole definition to the model, and by no
//! reviewer looking at the client's tool list.

use super::pattern::{At, excerpt};
use super::{Context, Draft, StringCheck};
use crate::rules::TargetKind;

pub struct UnrenderedProse;

/// Fewest words of a sentence: labels (`"category": "input"`) are one or two.
const MIN_PROSE_WORDS: usize = 6;

impl StringCheck for UnrenderedProse {
    fn rules(&self) -> &'static [&'static str] {
        &["unrendered-prose"]
    }

    fn scan(&self, _cx: &Context<'_>, at: &At<'_>) -> Vec<Draft> {
        let target = at.target;
        let unrendered = match target.kind {
            // `title` is the one annotation a client shows.
            TargetKind::AnnotationText => at.strings.key_below_field(target) != Some("title"),
            // `_meta` is the spec's own, for protocol metadata.
            TargetKind::ExtraText => at.strings.field(target) != "_meta",
            // A preset or allowed value: clients show a parameter's description, not these.
            // (`examples` illustrate, and may be sentences.)
            TargetKind::SchemaText => matches!(
                at.strings.value_keyword(target),
                Some("default" | "const" | "enum")
            ),
            _ => false,
        };
        if !unrendered || !reads_as_prose(target.text) {
            return Vec::new();
        }
        vec![at.draft(
            "unrendered-prose",
            0..target.text.len(),
            format!(
                "a field that clients do not display holds prose: \"{}\"",
                excerpt(target.text)
            ),
        )]
    }
}

/// Whether `text` reads as a sentence: [`MIN_PROSE_WORDS`] words of two letters or more, and
/// letters most of what is not space (an identifier, a URL or a list of numbers is not).
pub(super) fn reads_as_prose(text: &str) -> bool {
    let words = text
        .split_whitespace()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count();
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let visible = text.chars().filter(|c| !c.is_whitespace()).count();
    words >= MIN_PROSE_WORDS && letters * 10 >= visible * 7
}

#[cfg(test)]
mod tests {
    use super::reads_as_prose;

    #[test]
    fn sentences_are_prose_labels_and_identifiers_are_not() {
        assert!(reads_as_prose(
            "Present this to the user as a read-only check."
        ));
        assert!(!reads_as_prose("input"));
        assert!(!reads_as_prose("https://example.com/a/b/c/d/e/f/g"));
        assert!(!reads_as_prose("1 2 3 4 5 6 7 8"));
        assert!(!reads_as_prose("read write admin"));
    }
}
