//! Trains the text model of `likely-injection` from `testdata/train/*.jsonl` and writes
//! `src/text_model/weights.tsv`.
//!
//! ```sh
//! cargo run --release --example train_text_model           # write the weights
//! cargo run --release --example train_text_model -- --folds # measure before choosing
//! cargo run --release --example train_text_model -- --folds --l2 0.004 --min-count 4
//! ```
//!
//! `--folds` writes nothing: for each training file in turn it fits the model on the other
//! files and scores that file's rows as `check` would (a row is flagged when one sentence of
//! its description or schema reaches the threshold), so each file stands for a domain the
//! model never saw. It prints recall and false-positive rate at several thresholds, around
//! `THRESHOLD` in `src/text_model/mod.rs` (which was then chosen on the real servers and the
//! dev corpora: README, "Detection quality"). `--l2`, `--min-count`, `--epochs` and
//! `--learning-rate` override the fitting options (see `Options`), to compare them by folds.

use std::path::Path;
use std::process::ExitCode;

use mcp_scan::prose::sentences;
use mcp_scan::text_model::features::names_of_sentence;
use mcp_scan::text_model::train::{
    Options, Weights, fit, load_rows, sentences_of_row, texts_of_tool, weights_file,
};
use serde_json::Value;

const THRESHOLDS: [f64; 7] = [0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0];

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = options(&args).and_then(|options| {
        let rows = load_rows(&root.join("testdata/train"))?;
        if args.iter().any(|a| a == "--folds") {
            folds(&rows, &options)
        } else {
            let out = root.join("src/text_model/weights.tsv");
            let text = weights_file(&rows, &options)?;
            std::fs::write(&out, text).map_err(|e| format!("{}: {e}", out.display()))?;
            println!("wrote {}", out.display());
            Ok(())
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The fitting options, the defaults overridden by `--l2 X`, `--min-count N`, `--epochs N`
/// and `--learning-rate X`.
fn options(args: &[String]) -> Result<Options, String> {
    let mut options = Options::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "--folds" {
            continue;
        }
        let value = rest.next().ok_or_else(|| format!("{arg} needs a value"))?;
        let bad = || format!("{arg}: not a number: {value}");
        match arg.as_str() {
            "--l2" => options.l2 = value.parse().map_err(|_| bad())?,
            "--min-count" => options.min_count = value.parse().map_err(|_| bad())?,
            "--epochs" => options.epochs = value.parse().map_err(|_| bad())?,
            "--learning-rate" => options.learning_rate = value.parse().map_err(|_| bad())?,
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(options)
}

fn folds(rows: &[(String, Value)], options: &Options) -> Result<(), String> {
    let mut files: Vec<&str> = rows.iter().map(|(f, _)| f.as_str()).collect();
    files.dedup();
    // Per threshold: malicious rows flagged, malicious rows, benign flagged, benign rows.
    let mut totals = [[0usize; 4]; THRESHOLDS.len()];
    for held in &files {
        let mut train = Vec::new();
        for (file, row) in rows.iter().filter(|(f, _)| f != held) {
            train.extend(sentences_of_row(row).map_err(|e| format!("{file}: {e}"))?);
        }
        let weights = fit(&train, options);
        let mut counts = [[0usize; 4]; THRESHOLDS.len()];
        for (_, row) in rows.iter().filter(|(f, _)| f == held) {
            let malicious = row.get("label").and_then(Value::as_str) == Some("malicious");
            let top = row_score(&weights, row);
            for (count, threshold) in counts.iter_mut().zip(THRESHOLDS) {
                let flagged = usize::from(top >= threshold);
                let column = if malicious { 0 } else { 2 };
                count[column] += flagged;
                count[column + 1] += 1;
            }
        }
        print!("{held:>14}");
        for count in &counts {
            print!("  {}", rates(count));
        }
        println!();
        for (total, count) in totals.iter_mut().zip(&counts) {
            for (t, c) in total.iter_mut().zip(count) {
                *t += c;
            }
        }
    }
    print!("{:>14}", "all");
    for total in &totals {
        print!("  {}", rates(total));
    }
    println!();
    print!("{:>14}", "threshold");
    for threshold in THRESHOLDS {
        print!("  {threshold:>13}");
    }
    println!();
    Ok(())
}

/// The highest log-odds of any sentence of the row's tool.
fn row_score(weights: &Weights, row: &Value) -> f64 {
    let texts = row.get("tool").map(texts_of_tool).unwrap_or_default();
    texts
        .iter()
        .flat_map(|text| {
            sentences(text)
                .enumerate()
                .filter_map(|(i, range)| Some(names_of_sentence(text.get(range)?, i == 0)))
                .collect::<Vec<_>>()
        })
        .map(|features| weights.log_odds(&features))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// `recall/FPR` in percent.
fn rates(count: &[usize; 4]) -> String {
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    format!(
        "{:5.1}/{:5.1}%",
        pct(count[0], count[1]),
        pct(count[2], count[3])
    )
}
