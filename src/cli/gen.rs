//! `simtui gen`: writes a synthetic corpus with planted near-duplicates and its truth file.

use anyhow::{Context, Result, ensure};
use simtui::generator::{self, GenOptions};
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

    /// Random seed: the same seed gives the same corpus on every machine
    #[arg(long, default_value_t = 42)]
    pub seed: u64,

    /// Mean number of words per document (lengths vary from half to one and a half times this)
    #[arg(long, default_value_t = 300)]
    pub words: usize,

    /// Fraction of the documents that are planted near-duplicates of an earlier one (0 to 1)
    #[arg(long, default_value_t = 0.2)]
    pub dup_fraction: f64,

    /// Vocabulary size (words are drawn from it with a Zipf distribution)
    #[arg(long, default_value_t = 30000)]
    pub vocab: usize,

    /// Where to write the planted pairs, as JSON Lines [default: <OUT>.truth.jsonl, next to OUT]
    #[arg(long, value_name = "FILE")]
    pub truth: Option<PathBuf>,
}

pub fn run(args: &GenArgs) -> Result<()> {
    ensure!(args.docs >= 1, "--docs must be at least 1");
    ensure!(args.words >= 1, "--words must be at least 1");
    ensure!(args.vocab >= 1, "--vocab must be at least 1");
    ensure!(
        (0.0..=1.0).contains(&args.dup_fraction),
        "--dup-fraction must be between 0 and 1, not {}",
        args.dup_fraction
    );
    let truth = match &args.truth {
        Some(t) => t.clone(),
        None => default_truth_path(&args.out)?,
    };
    let start = Instant::now();
    let g = generator::generate(&GenOptions {
        docs: args.docs,
        seed: args.seed,
        words: args.words,
        dup_fraction: args.dup_fraction,
        vocab: args.vocab,
    });
    generator::write(&g, &args.out, &truth)?;
    let bytes: usize = g.docs.iter().map(|d| d.text.len()).sum();
    eprintln!(
        "generated {} docs ({} bytes) in {} and {} planted pairs in {} ({:.2} s)",
        g.docs.len(),
        bytes,
        args.out.display(),
        g.truth.len(),
        truth.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `<OUT>.truth.jsonl`, a sibling of the corpus folder (never inside it).
fn default_truth_path(out: &Path) -> Result<PathBuf> {
    let name = out.file_name().with_context(|| {
        format!(
            "cannot name a truth file after {}; pass --truth FILE",
            out.display()
        )
    })?;
    let mut file = OsString::from(name);
    file.push(".truth.jsonl");
    Ok(out.with_file_name(file))
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
