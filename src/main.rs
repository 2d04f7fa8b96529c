//! The `simtui` binary: the explorer and the headless commands over the engine.

mod cli;
mod tui;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Explore near-duplicate documents: MinHash, LSH and exact Jaccard, in your terminal.
#[derive(Parser, Debug)]
#[command(
    name = "simtui",
    version,
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  simtui                       explore the built-in demo corpus\n  simtui data/                 explore a folder\n  simtui pairs data/ --threshold 0.8 --format jsonl | jq\n  simtui curve --threshold 0.8 --perms 128"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Folders and files to explore (none: a built-in demo corpus)
    #[arg(value_name = "PATH")]
    paths: Vec<std::path::PathBuf>,
    #[command(flatten)]
    index: cli::args::IndexArgs,
    /// Don't capture the mouse (keeps the terminal's text selection; no wheel scrolling)
    #[arg(long)]
    no_mouse: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print every near-duplicate pair of a corpus
    Pairs(cli::pairs::PairsArgs),
    /// Print the LSH S-curve, or recommend bands and rows for a threshold
    Curve(cli::curve::CurveArgs),
    /// Measure recall and precision of LSH against exact all-pairs similarity or a truth file
    Eval(cli::eval::EvalArgs),
    /// Write a synthetic corpus with planted near-duplicates, and its truth file
    Gen(cli::generate::GenArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Pairs(a)) => cli::pairs::run(a),
        Some(Command::Curve(a)) => cli::curve::run(a),
        Some(Command::Eval(a)) => cli::eval::run(a),
        Some(Command::Gen(a)) => cli::generate::run(a),
        None => tui::run(tui::ExploreOptions {
            roots: cli.paths.clone(),
            walk: cli.index.walk_options(),
            params: cli.index.params(),
            bands: cli.index.bands as usize,
            rows: cli.index.rows as usize,
            mouse: !cli.no_mouse,
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("simtui: {e:#}");
            if e.is::<cli::UsageError>() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
