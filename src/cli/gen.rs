//! `simtui gen`: write a synthetic corpus with planted near-duplicates, and its truth file.

use clap::Args;
use simtui::generator::{GenOptions, generate, write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct GenArgs {
    /// Folder to create (must not exist, or be empty)
    pub out: PathBuf,
    /// Number of documents
    #[arg(long, default_value_t = 1000)]
    pub docs: usize,
    /// Seed: the same seed gives the same corpus on every machine
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Mean words per document
    #[arg(long, default_value_t = 300)]
    pub words: usize,
    /// Fraction of documents that are planted near-duplicates of another
    #[arg(long, default_value_t = 0.2)]
    pub dup_fraction: f64,
    /// Vocabulary size
    #[arg(long, default_value_t = 30_000)]
    pub vocab: usize,
    /// Truth file of planted pairs, JSON Lines (default: <OUT>.truth.jsonl beside the folder)
    #[arg(long)]
    pub truth: Option<PathBuf>,
}

pub fn run(args: &GenArgs) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&args.dup_fraction) || args.vocab == 0 || args.words == 0 {
        return Err(super::UsageError(
            "--dup-fraction must be in [0, 1]; --vocab and --words at least 1".into(),
        )
        .into());
    }
    let truth = args.truth.clone().unwrap_or_else(|| {
        let mut name = args.out.file_name().unwrap_or_default().to_os_string();
        name.push(".truth.jsonl");
        args.out.with_file_name(name)
    });
    let g = generate(&GenOptions {
        docs: args.docs,
        seed: args.seed,
        words: args.words,
        dup_fraction: args.dup_fraction,
        vocab: args.vocab,
    });
    write(&g, &args.out, &truth)?;
    let bytes: usize = g.docs.iter().map(|d| d.text.len()).sum();
    eprintln!(
        "simtui gen: {} documents ({:.1} MB) in {}, {} planted pairs in {}",
        g.docs.len(),
        bytes as f64 / 1e6,
        args.out.display(),
        g.truth.len(),
        truth.display()
    );
    Ok(())
}
