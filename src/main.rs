//! The `simtui` binary: the explorer and the headless commands over the engine.

mod cli;
mod input;
mod output;
mod tui;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Explore near-duplicate documents: MinHash, LSH and exact Jaccard, in your terminal.
#[derive(Parser, Debug)]
#[command(name = "simtui", version)]
// Examples and exit codes are added by cli::help, for every command in one place.
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Folders and files to explore (none: a built-in demo corpus)
    #[arg(value_name = "PATH")]
    paths: Vec<std::path::PathBuf>,
    #[command(flatten)]
    index: cli::args::IndexArgs,
    #[command(flatten)]
    store: cli::corpus::StoreArgs,
    #[command(flatten)]
    explorer: cli::explorer::ExplorerArgs,
    #[command(flatten)]
    global: cli::startup::GlobalArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print every near-duplicate pair of a corpus
    Pairs(cli::pairs::PairsArgs),
    /// Print the LSH S-curve, or recommend bands and rows for a threshold
    Curve(cli::curve::CurveArgs),
    /// Measure recall and precision of LSH against the exact pairs or a truth file
    Eval(cli::eval::EvalArgs),
    /// Write a synthetic corpus with planted near-duplicates, and its truth file
    Gen(cli::generate::GenArgs),
    /// Print the nearest neighbours of documents of a corpus, or of files outside it
    Query(cli::query::QueryArgs),
    /// Group near-duplicates into clusters, each with the document to keep
    Clusters(cli::clusters::ClustersArgs),
    /// Write the corpus without its near-duplicates, and what was removed
    Dedup(cli::dedup::DedupArgs),
    /// Save the index of a corpus to a file, or bring a saved one up to date
    Index(cli::index_cmd::IndexCmdArgs),
    /// Print the similarity matrix of a few documents
    Matrix(cli::matrix::MatrixArgs),
    /// Write each document's band keys, signature and shingles for another engine
    Sketch(cli::sketch::SketchArgs),
    /// Print two documents side by side, their differences marked
    Diff(cli::diff::DiffArgs),
    /// Print each document's SimHash fingerprint in hexadecimal
    Fingerprint(cli::fingerprint::FingerprintArgs),
    /// Print a shell completion script: bash, zsh, fish, powershell or elvish
    Completions(cli::completions::CompletionsArgs),
    /// Print the man page (roff), simtui's or a command's
    Man(cli::man::ManArgs),
    /// Print a default config file, or the path of the one in use, or check it
    Config(cli::config_cmd::ConfigArgs),
}

fn main() -> ExitCode {
    // The command line, with the config file's values as defaults (cli::startup).
    let (cli, startup) = match cli::startup::parse::<Cli>(cli::help::command::<Cli>()) {
        Ok(parsed) => parsed,
        Err(e) => return cli::exit_code(Err(e.into())),
    };
    // The config file read is an input: no output of the run may replace it.
    if let Some(config) = &startup.config.path {
        output::guard::set_config(config);
    }
    let result = match &cli.command {
        Some(Command::Pairs(a)) => cli::pairs::run(a, &startup),
        Some(Command::Curve(a)) => cli::curve::run(a),
        Some(Command::Eval(a)) => cli::eval::run(a, &startup),
        Some(Command::Gen(a)) => cli::generate::run(a),
        Some(Command::Query(a)) => cli::query::run(a),
        Some(Command::Clusters(a)) => cli::clusters::run(a, &startup),
        Some(Command::Dedup(a)) => cli::dedup::run(a, &startup),
        Some(Command::Matrix(a)) => cli::matrix::run(a, &startup),
        Some(Command::Sketch(a)) => cli::sketch::run(a),
        Some(Command::Fingerprint(a)) => cli::fingerprint::run(a),
        Some(Command::Diff(a)) => cli::diff::run(a),
        Some(Command::Index(a)) => cli::index_cmd::run(a),
        Some(Command::Completions(a)) => cli::completions::run(a, cli::help::command::<Cli>()),
        Some(Command::Man(a)) => cli::man::run(a, cli::help::command::<Cli>()),
        Some(Command::Config(a)) => cli::config_cmd::run(a, &startup, cli::help::command::<Cli>()),
        None => cli::explorer::run(&cli.paths, &cli.index, &cli.store, &cli.explorer, &startup),
    };
    // The local copies of inputs read from object stores.
    simtui_engine::source::object::clear();
    cli::exit_code(result)
}
