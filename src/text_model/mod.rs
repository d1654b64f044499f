//! A linear model that scores how much a sentence of tool text reads like an order injected
//! for the agent: logistic regression over the sentence's words and pairs of words
//! ([`features`]), trained ([`train`]) on tool definitions written for the project
//! (`testdata/train/`), whose injected sentences are marked.
//!
//! Why a model beside the pattern rules: a pattern names a phrasing, and every round of
//! patterns written from one corpus's misses moved the next unseen corpus by a few points
//! (README, "Detection quality"). A model weighs every word it has seen in injected and in
//! honest sentences, so a reworded order that keeps some of its words (the user, silently,
//! every request, a copy to an address) still scores. Its weights are a file of text,
//! [`WEIGHTS`], one feature a line, so a reviewer can read what it learned.

pub mod features;
pub mod train;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

/// The builtin model, written by `cargo run --release --example train_text_model`.
pub const WEIGHTS: &str = include_str!("weights.tsv");

/// A sentence is reported when the model's log-odds that it is injected reach this: chosen,
/// with the fitting options, for no more than a few honest tools flagged among the real
/// servers of `bench/real_servers` and the dev corpora (README, "Detection quality"). Raised
/// from 2.5 when the training data grew from 16 files to 23: that model flagged 9 honest
/// real-server tools at 2.5 and 6 at 3.0, where the 16 files' model flagged 3 at 2.5.
pub const THRESHOLD: f32 = 3.0;

/// Feature weights, by [`features::feature_hash`], with each feature's name for messages.
#[derive(Debug)]
pub struct Model {
    bias: f32,
    weights: HashMap<u64, (f32, &'static str), BuildHasherDefault<FeatureHasher>>,
}

/// The hasher of the weights table: its keys are already 64-bit hashes of the features, so
/// they are used as they are instead of being hashed again (two look-ups a word, on every
/// sentence of every tool).
#[derive(Default)]
struct FeatureHasher(u64);

impl Hasher for FeatureHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// What scoring a sentence reuses from the last: the word being read, and the features found
/// in the model so far with their weights (a feature counts once however often it occurs).
#[derive(Default)]
pub struct Scratch {
    word: String,
    found: Vec<(u64, f32)>,
}

impl Scratch {
    /// The features of the last sentence scored that the model knows, for
    /// [`Model::strongest`].
    pub fn found(&self) -> Vec<u64> {
        self.found.iter().map(|&(hash, _)| hash).collect()
    }
}

impl Model {
    /// The builtin model ([`WEIGHTS`]), parsed on first use.
    pub fn builtin() -> &'static Model {
        static MODEL: LazyLock<Model> = LazyLock::new(|| {
            // The tests parse the same text, so this cannot fail in a build that passed them.
            Model::parse(WEIGHTS).unwrap_or(Model {
                bias: f32::NEG_INFINITY,
                weights: HashMap::default(),
            })
        });
        &MODEL
    }

    /// Reads a weights file: `#` comments, a `bias` line, then `weight<TAB>feature` lines.
    pub fn parse(text: &'static str) -> Result<Model, String> {
        let mut bias = None;
        let mut weights = HashMap::default();
        for (number, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let bad = || {
                format!(
                    "weights line {}: expected `weight<TAB>feature`: {line:?}",
                    number + 1
                )
            };
            let (weight, feature) = line.split_once('\t').ok_or_else(bad)?;
            if weight == "bias" {
                bias = Some(feature.parse::<f32>().map_err(|_| bad())?);
                continue;
            }
            let weight: f32 = weight.parse().map_err(|_| bad())?;
            weights.insert(features::feature_hash(feature), (weight, feature));
        }
        Ok(Model {
            bias: bias.ok_or("weights: no `bias` line")?,
            weights,
        })
    }

    /// The log-odds that a sentence with these features (hashes, each once) is injected.
    pub fn log_odds(&self, features: &[u64]) -> f32 {
        self.bias
            + features
                .iter()
                .filter_map(|f| self.weights.get(f))
                .map(|(weight, _)| weight)
                .sum::<f32>()
    }

    /// The log-odds of `sentence` (`first`: its string's first sentence), read in one pass:
    /// each word and pair ([`features::for_each_feature`]) is looked up once, as it is read,
    /// and those the model knows are kept with their weights (in `scratch.found`, for
    /// [`Self::strongest`]); no string is allocated per word nor per sentence. This runs on
    /// every sentence of every tool.
    pub fn score(&self, sentence: &str, first: bool, scratch: &mut Scratch) -> f32 {
        let Scratch { word, found } = scratch;
        found.clear();
        features::for_each_feature(sentence, first, word, |hash| {
            if let Some(&(weight, _)) = self.weights.get(&hash) {
                found.push((hash, weight));
            }
        });
        // Each feature once, however often it occurs: sorted rather than searched for as it
        // comes, which is quadratic in a long sentence (most of its words are in the model).
        // Summed in the order of their hashes, as `log_odds` sums them.
        found.sort_unstable_by_key(|&(hash, _)| hash);
        found.dedup_by_key(|&mut (hash, _)| hash);
        self.bias + found.iter().map(|&(_, weight)| weight).sum::<f32>()
    }

    /// The `n` features that raise the score most, strongest first: what a finding quotes.
    pub fn strongest(&self, features: &[u64], n: usize) -> Vec<&'static str> {
        let mut found: Vec<(f32, &'static str)> = features
            .iter()
            .filter_map(|f| self.weights.get(f))
            .filter(|(weight, _)| *weight > 0.0)
            .copied()
            .collect();
        found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        found.into_iter().take(n).map(|(_, name)| name).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_weights_parse() {
        let model = Model::parse(WEIGHTS).unwrap();
        assert!(model.bias.is_finite());
        assert!(model.weights.len() > 100);
    }

    #[test]
    fn bad_weights_name_the_line() {
        assert_eq!(
            Model::parse("bias\t-1\nx y\n").unwrap_err(),
            "weights line 2: expected `weight<TAB>feature`: \"x y\""
        );
        assert_eq!(
            Model::parse("0.5\tword\n").unwrap_err(),
            "weights: no `bias` line"
        );
    }

    #[test]
    fn scores_add_the_weights_of_the_features_present() {
        let model = Model::parse("bias\t-1\n2\tsilently\n0.5\tthe user\n-3\tsend\n").unwrap();
        let score = |s: &str| model.log_odds(&features::of_sentence(s, false));
        assert_eq!(score("Do it silently for the user."), 1.5);
        assert_eq!(score("Send it silently."), -2.0);
        let strongest = model.strongest(&features::of_sentence("silently, the user", false), 3);
        assert_eq!(strongest, ["silently", "the user"]);
    }

    #[test]
    fn scoring_in_one_pass_gives_the_log_odds_of_the_features() {
        let model = Model::parse("bias\t-1\n2\tsilently\n0.5\tthe user\n-3\tsend\n0.25\t<first>\n")
            .unwrap();
        let mut scratch = Scratch::default();
        for (sentence, first) in [
            ("Do it silently for the user, silently.", false),
            ("Send the user the user's file.", true),
            ("Nothing known here", true),
        ] {
            let expected = model.log_odds(&features::of_sentence(sentence, first));
            assert_eq!(
                model.score(sentence, first, &mut scratch),
                expected,
                "{sentence}"
            );
        }
        // A feature that occurs twice counts once, and is kept once.
        model.score("silently silently", false, &mut scratch);
        assert_eq!(model.strongest(&scratch.found(), 3), ["silently"]);
    }

    /// The one-pass scorer gives every sentence of the training data the sum of its features'
    /// weights, to the bit.
    #[test]
    fn the_builtin_model_scores_every_training_sentence_as_its_features_sum() {
        let model = Model::builtin();
        let mut scratch = Scratch::default();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/train");
        let rows = train::load_rows(&dir).unwrap();
        let mut scored = 0;
        for (_, row) in &rows {
            for text in train::texts_of_tool(&row["tool"]) {
                for (index, range) in crate::prose::sentences(text).enumerate() {
                    let sentence = &text[range];
                    let expected = model.log_odds(&features::of_sentence(sentence, index == 0));
                    let score = model.score(sentence, index == 0, &mut scratch);
                    assert_eq!(score, expected, "{sentence}");
                    scored += 1;
                }
            }
        }
        assert!(scored > 10_000);
    }
}
