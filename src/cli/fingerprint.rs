//! `simtui fingerprint`: each document's SimHash fingerprint in hexadecimal, and with
//! `-vv` (or `--heaviest N`) the tokens that weigh most in it.

use super::args::{IndexArgs, PathArgs, WeightArg, bits_parser};
use crate::output::color::Paint;
use crate::output::format::{Format, csv_field, with_stdout};
use clap::Args;
use rayon::prelude::*;
use simtui_engine::index::{Doc, Index};
use simtui_engine::sketch::simhash::fingerprint::{SimHasher, Weight, heaviest_words, hex};
use simtui_engine::sketch::simhash::fingerprints::Fingerprints;
use simtui_engine::source::{self, Entry};
use std::io::{self, Write};

#[derive(Args, Debug)]
pub struct FingerprintArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub index: IndexArgs,
    /// Fingerprint width in bits: 8, 16, 32, 64 or 128
    #[arg(long, value_parser = bits_parser(), hide_possible_values = true, default_value = "64")]
    pub bits: u32,
    /// Token weights: tf or idf [default: idf]
    ///
    /// tf: term frequency. idf: term frequency × inverse document frequency over the
    /// corpus, as `pairs --method simhash` weighs them (the default, so the fingerprints
    /// are those it compares). Over a few documents idf gives the words they all share
    /// weight 0: use tf to fingerprint a handful of texts on their own.
    #[arg(long, value_enum, hide_possible_values = true)]
    pub weight: Option<WeightArg>,
    /// Each document's N heaviest tokens and weights [default: 10 at -vv]
    #[arg(long, value_name = "N")]
    pub heaviest: Option<usize>,
    /// Output format: auto, table, jsonl or csv
    ///
    /// auto: a table on a terminal (coloured as --color says), JSON Lines when piped.
    /// JSON Lines: {"doc", "fingerprint", "bits", "tokens"} and with heaviest tokens
    /// "heaviest": [[token, weight], ...]. CSV: doc,fingerprint,bits,tokens, and a
    /// heaviest column of token:weight separated by spaces.
    #[arg(long, value_enum, default_value_t = Format::Auto, hide_possible_values = true)]
    pub format: Format,
}

/// The tokens listed at `-vv` when --heaviest does not say how many.
const HEAVIEST_AT_VV: usize = 10;

pub fn run(args: &FingerprintArgs) -> anyhow::Result<()> {
    args.index.check()?;
    let corpus = args.index.walk(&args.paths.paths)?;
    let mut params = args.index.params();
    params.num_perm = 0; // fingerprints only: no MinHash
    let weight = WeightArg::weight(args.weight);
    let hasher = SimHasher::new(args.bits, params.seed, weight);
    // -vv: when each stage finishes.
    let progress = crate::output::diag::StageLog::default();
    let index = Index::builder(&params)
        .fingerprints(hasher)
        .build(corpus, &progress)?;
    let fps = index.fingerprints().expect("built with fingerprints");
    for s in index.skipped() {
        crate::output::diag::note(1, format_args!("skipped {s}"));
    }
    let docs = index.docs().len();
    if weight == Weight::Idf && docs < 10 {
        crate::output::diag::note(
            0,
            format_args!(
                "simtui fingerprint: idf weights over {docs} document(s): a word in all of them weighs 0 (--weight tf weighs every word)"
            ),
        );
    }
    let heaviest = args
        .heaviest
        .or((crate::output::diag::level() >= 2).then_some(HEAVIEST_AT_VV));
    let format = args.format.resolve();
    with_stdout(|out| {
        if format == Format::Csv {
            write!(out, "doc,fingerprint,bits,tokens")?;
            if heaviest.is_some() {
                write!(out, ",heaviest")?;
            }
            writeln!(out)?;
        }
        // In batches, so that the texts re-read for the heaviest tokens are not all in
        // memory at once.
        for batch in index.docs().chunks(256) {
            let words: Vec<Option<Vec<(String, f64)>>> = batch
                .par_iter()
                .map(|d| heaviest.map(|n| words_of(&index, fps, d, n)))
                .collect();
            for (d, words) in batch.into_iter().zip(words) {
                let fp = hex(fps.get(d.group), args.bits);
                write_doc(out, format, &d, &fp, args.bits, words.as_deref())?;
            }
        }
        Ok(())
    })?;
    Ok(())
}

/// The heaviest `n` tokens of a document, its text read again (empty if it cannot be).
fn words_of(index: &Index, fps: &Fingerprints, d: &Doc, n: usize) -> Vec<(String, f64)> {
    let entry = Entry {
        id: d.id.clone(),
        source: d.source.clone(),
        bytes: d.bytes,
    };
    match source::read_text(&entry, index.params().max_bytes) {
        Ok(text) => {
            let hasher = fps.hasher();
            heaviest_words(&text, &index.params().text, hasher.weight(), fps.idf(), n)
        }
        Err((reason, _)) => {
            crate::output::diag::note(
                0,
                format_args!(
                    "simtui fingerprint: {}: {} (no tokens listed)",
                    d.id,
                    reason.name()
                ),
            );
            Vec::new()
        }
    }
}

/// A weight as printed: 4 significant decimals at most, no trailing zeros.
fn weight_text(w: f64) -> String {
    let s = format!("{w:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn write_doc(
    out: &mut dyn Write,
    format: Format,
    d: &Doc,
    fp: &str,
    bits: u32,
    words: Option<&[(String, f64)]>,
) -> io::Result<()> {
    match format {
        Format::Jsonl | Format::Auto => {
            let mut obj = serde_json::json!({
                "doc": d.id,
                "fingerprint": fp,
                "bits": bits,
                "tokens": d.tokens,
            });
            if let Some(words) = words {
                obj["heaviest"] = words
                    .iter()
                    .map(|(w, x)| serde_json::json!([w, x]))
                    .collect();
            }
            writeln!(out, "{obj}")
        }
        Format::Csv => {
            write!(out, "{},{fp},{bits},{}", csv_field(&d.id), d.tokens)?;
            if let Some(words) = words {
                let list: Vec<String> = words
                    .iter()
                    .map(|(w, x)| format!("{w}:{}", weight_text(*x)))
                    .collect();
                write!(out, ",{}", csv_field(&list.join(" ")))?;
            }
            writeln!(out)
        }
        Format::Table => {
            let paint = Paint::stdout();
            writeln!(out, "{}  {}", paint.bold(fp), d.id)?;
            if let Some(words) = words {
                let list: Vec<String> = words
                    .iter()
                    .map(|(w, x)| format!("{w} {}", weight_text(*x)))
                    .collect();
                let pad = " ".repeat(fp.len() + 2);
                writeln!(out, "{pad}{}", paint.dim(&list.join(" · ")))?;
            }
            Ok(())
        }
    }
}
