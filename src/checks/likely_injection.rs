//! `likely-injection`: a sentence of tool text that the text model ([`crate::text_model`])
//! scores as an order injected for the agent, though no pattern rule and no `risky-directive`
//! reading reports it.
//!
//! The model weighs every word and pair of words against what it learned from injected and
//! honest sentences, so it reads rewordings the patterns do not name. It is a guess from
//! words, reported at `medium` with `low` confidence, with the words that weighed most.

use super::directive::risky_sentences;
use super::pattern::{At, excerpt, instruction_rule};
use super::{Context, Draft, StringCheck};
use crate::prose::sentences;
use crate::rules::TargetKind;
use crate::text_model::{Model, Scratch, THRESHOLD};

pub struct LikelyInjection;

impl StringCheck for LikelyInjection {
    fn rules(&self) -> &'static [&'static str] {
        &["likely-injection"]
    }

    fn scan(&self, cx: &Context<'_>, at: &At<'_>) -> Vec<Draft> {
        let target = at.target;
        if target.is_key || matches!(target.kind, TargetKind::Name | TargetKind::PropertyName) {
            return Vec::new();
        }
        // Read as it renders, as the pattern rules and `risky-directive` read it.
        let unmarked = at.unmarked.as_ref();
        let read = unmarked.map_or(target.text, |u| u.text.as_str());
        let model = Model::builtin();
        let mut scratch = Scratch::default();
        let scored: Vec<_> = sentences(read)
            .enumerate()
            .filter_map(|(index, sentence)| {
                let odds = model.score(read.get(sentence.clone())?, index == 0, &mut scratch);
                (odds >= THRESHOLD).then(|| (sentence, scratch.found(), odds))
            })
            .collect();
        if scored.is_empty() {
            return Vec::new();
        }
        // What the other readers of a sentence report is not reported again.
        let directives = risky_sentences(read, &at.tool.name);
        scored
            .into_iter()
            .filter(|(sentence, _, _)| {
                !directives
                    .iter()
                    .any(|d| d.start < sentence.end && sentence.start < d.end)
            })
            .filter_map(|(sentence, features, odds)| {
                if instruction_rule(cx, read.get(sentence.clone())?).is_some() {
                    return None;
                }
                let sentence = unmarked.map_or(sentence.clone(), |u| u.original(sentence));
                let words = target.text.get(sentence.clone())?;
                let strongest: Vec<String> = model
                    .strongest(&features, 3)
                    .iter()
                    .map(|f| format!("\"{f}\""))
                    .collect();
                Some(at.draft(
                    "likely-injection",
                    sentence,
                    format!(
                        "tool text reads like an order injected for the agent (model log-odds {odds:.1}; most telling: {}): \"{}\"",
                        strongest.join(", "),
                        excerpt(words)
                    ),
                ))
            })
            .collect()
    }
}
