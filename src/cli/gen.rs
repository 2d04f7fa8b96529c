//! `simtui gen`: writes a synthetic corpus with planted near-duplicates and its truth file,
//! of pseudo-words or of real English sentences.

use crate::output::error::UsageError;
use anyhow::Result;
use simtui_gen::{GenOptions, Text};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Generate a synthetic corpus with planted near-duplicates, and the list of planted pairs.
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// Folder to create (it must not exist, or be empty)
    pub out: PathBuf,

    /// Number of documents
    #[arg(long, default_value_t = 1000)]
    pub docs: usize,

    /// Random seed: the same seed, the same corpus
    ///
    /// The same seed (and flags) give the same corpus on every machine.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,

    /// Mean number of words per document
    ///
    /// Lengths vary from half to one and a half times this.
    #[arg(long, default_value_t = 300)]
    pub words: usize,

    /// Fraction of planted near-duplicates, 0 to 1
    ///
    /// The fraction of the documents that are planted near-duplicates of an earlier one.
    #[arg(long, default_value_t = 0.2)]
    pub dup_fraction: f64,

    /// Vocabulary size (Zipf-distributed words)
    ///
    /// Words are drawn from it with a Zipf distribution. Unused with --text english.
    #[arg(long, default_value_t = 30000)]
    pub vocab: usize,

    /// What documents are made of: words or english
    ///
    /// words: pronounceable pseudo-words ("Lam mal, sut, win cairgie"). english: real
    /// sentences of Jane Austen's Pride and Prejudice, Persuasion and Northanger Abbey
    /// (public domain, compiled into simtui), runs of consecutive sentences from random
    /// places; the planted edits and the truth file are the same.
    #[arg(long, value_enum, default_value_t = TextArg::Words, hide_possible_values = true)]
    pub text: TextArg,

    /// How documents are written: text or jsonl
    ///
    /// text: one file per document, in folders of 1,000. jsonl: JSON Lines files of
    /// 100,000 documents ({"id", "text"}; read them with --id-field id), made and written
    /// a chunk at a time: for corpora larger than memory.
    #[arg(long, value_enum, default_value_t = GenFormat::Text, hide_possible_values = true)]
    pub format: GenFormat,

    /// Where to write the planted pairs [default: <OUT>.truth.jsonl]
    ///
    /// As JSON Lines. [default: <OUT>.truth.jsonl, next to OUT, never inside it]
    #[arg(long, value_name = "FILE")]
    pub truth: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TextArg {
    // Pseudo-words.
    Words,
    // Sentences of public-domain novels.
    English,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GenFormat {
    // One file per document.
    Text,
    // JSON Lines files, written as they are made.
    Jsonl,
}

pub fn run(args: &GenArgs) -> Result<()> {
    let usage = |m: String| -> anyhow::Error { UsageError(m).into() };
    for (flag, n) in [
        ("--docs", args.docs),
        ("--words", args.words),
        ("--vocab", args.vocab),
    ] {
        if n == 0 {
            return Err(usage(format!("{flag} must be at least 1")));
        }
    }
    super::check_similarity("--dup-fraction", args.dup_fraction)?;
    let truth = match &args.truth {
        Some(t) => t.clone(),
        None => default_truth_path(&args.out)?,
    };
    // Before generating: a bad OUT or truth path is an input error (exit 2), found at once.
    (crate::output::guard::Paths::new().output("OUT", args.out.as_path()))
        .output("--truth", truth.as_path())
        .check()?;
    let created = !args.out.exists();
    let truth_existed = truth.exists();
    prepare_out(&args.out, &truth)?;
    let generated = generate(args, &truth);
    if generated.is_err() {
        // OUT was new or empty: what is in it now is this run's, and so is a new truth
        // file. A failed run leaves neither.
        if created {
            let _ = std::fs::remove_dir_all(&args.out);
        } else if let Ok(entries) = std::fs::read_dir(&args.out) {
            for e in entries.flatten() {
                let p = e.path();
                let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
            }
        }
        if !truth_existed {
            let _ = std::fs::remove_file(&truth);
        }
    }
    generated
}

/// Generates the corpus into OUT (checked and created) and the planted pairs into
/// `truth`, and says what was written.
fn generate(args: &GenArgs, truth: &Path) -> Result<()> {
    let start = Instant::now();
    let opts = GenOptions {
        docs: args.docs,
        seed: args.seed,
        words: args.words,
        dup_fraction: args.dup_fraction,
        vocab: args.vocab,
        text: match args.text {
            TextArg::Words => Text::Words,
            TextArg::English => Text::English,
        },
    };
    if args.format == GenFormat::Jsonl {
        let (bytes, planted) = simtui_gen::write_jsonl(&opts, &args.out, truth)?;
        crate::output::diag::say(format_args!(
            "generated {} docs ({bytes} bytes of JSON Lines) in {} and {planted} planted pairs in {} ({:.2} s)",
            args.docs,
            args.out.display(),
            truth.display(),
            start.elapsed().as_secs_f64()
        ));
        return Ok(());
    }
    let g = simtui_gen::generate(&opts);
    simtui_gen::write(&g, &args.out, truth)?;
    let bytes: usize = g.docs.iter().map(|d| d.text.len()).sum();
    crate::output::diag::say(format_args!(
        "generated {} docs ({} bytes) in {} and {} planted pairs in {} ({:.2} s)",
        g.docs.len(),
        bytes,
        args.out.display(),
        g.truth.len(),
        truth.display(),
        start.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// `<OUT>.truth.jsonl`, a sibling of the corpus folder (never inside it).
fn default_truth_path(out: &Path) -> Result<PathBuf, UsageError> {
    let name = out.file_name().ok_or_else(|| {
        UsageError(format!(
            "cannot name a truth file after {}; pass --truth FILE",
            out.display()
        ))
    })?;
    let mut file = OsString::from(name);
    file.push(".truth.jsonl");
    Ok(out.with_file_name(file))
}

/// Checks OUT as [`simtui_gen::write`] will (a new or empty folder) and creates it, and
/// checks that the truth file is not a folder, so that these input errors exit 2 with
/// nothing written. Failures while writing the documents remain run failures (exit 1).
fn prepare_out(out: &Path, truth: &Path) -> Result<(), UsageError> {
    if out.exists() {
        if !out.is_dir() {
            return Err(UsageError(format!(
                "{} exists and is not a folder",
                out.display()
            )));
        }
        let mut entries = std::fs::read_dir(out)
            .map_err(|e| UsageError(format!("cannot read {}: {e}", out.display())))?;
        if entries.next().is_some() {
            return Err(UsageError(format!(
                "{} exists and is not empty; refusing to write a corpus into it (choose a new folder)",
                out.display()
            )));
        }
    }
    if truth.is_dir() {
        return Err(UsageError(format!(
            "truth file {} is a folder",
            truth.display()
        )));
    }
    std::fs::create_dir_all(out)
        .map_err(|e| UsageError(format!("cannot create {}: {e}", out.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_file_sits_next_to_the_corpus() {
        let t = |p: &str| default_truth_path(Path::new(p)).unwrap();
        assert_eq!(t("corpus"), Path::new("corpus.truth.jsonl"));
        assert_eq!(t("data/corpus/"), Path::new("data/corpus.truth.jsonl"));
        assert_eq!(t("/tmp/c"), Path::new("/tmp/c.truth.jsonl"));
        assert!(default_truth_path(Path::new("..")).is_err());
        assert!(default_truth_path(Path::new("/")).is_err());
    }
}
