//! The help's examples and exit codes, kept in one place so they are reviewed together,
//! and a fixed maximum width so `--help` (and its snapshots) read the same everywhere.

use clap::{Command, CommandFactory};

/// Help wraps at the terminal's width, but no wider than this: long lines are hard to
/// read, and tests pin COLUMNS to it.
pub const MAX_WIDTH: usize = 100;

/// The exit codes, for `--help` and the man page.
pub const EXIT_STATUS: &str = "\
0 success; 1 no result where one was required (pairs, query or clusters with\n\
--fail-empty) or a failed run; 2 a usage or input error (a bad flag, a missing path, a bad\n\
config file).";

/// Where defaults come from, for the explorer's `--help` and the man page.
pub const CONFIG_NOTE: &str = "\
--config FILE, else SIMTUI_CONFIG, else $XDG_CONFIG_HOME/simtui/config.toml, else\n\
~/.config/simtui/config.toml sets defaults; flags win over it. `simtui config --default`\n\
prints one with every setting.";

/// Examples per command ("" is the explorer, the root). A command missing here (a new
/// one) keeps whatever after-help it declares itself.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "",
        r"  simtui                                     explore a built-in demo corpus
  simtui data/                               explore a folder
  simtui data/ -k 3 --unit char --log s.log  character 3-shingles, with a log file
  simtui clusters data/ -t 0.9 --dupes        the files a dedup step could remove
  simtui pairs data/ --threshold 0.8 --format jsonl | jq
  simtui index data/                         save data/.simtui-index: later runs read only changes
  simtui curve --threshold 0.8 --perms 128
  simtui completions bash > ~/.local/share/bash-completion/completions/simtui",
    ),
    (
        "pairs",
        r"  simtui pairs data/                          a table on a terminal, JSON Lines when piped
  simtui pairs data/ --threshold 0.8 --format jsonl | jq
  simtui pairs data/ -t 0.9 --format csv > pairs.csv
  simtui pairs data/ --ext txt,md --stats -v  counts, times and skipped files on stderr
  simtui pairs reuters/ --letters-only --stopwords --stem english   cleaned as the R study
  simtui pairs data/ -t 0.95 --fail-empty > /dev/null && echo 'near-duplicates found'",
    ),
    (
        "query",
        r"  simtui query data/ a.txt                    the 10 nearest to data/'s document a.txt
  simtui query data/ new/ --top 3 --format jsonl   each file of new/ against data/
  simtui query data/ draft.txt --exhaustive   fill up from a full scan when LSH finds few
  simtui query data/ a.txt -t 0.5 --rank estimate  J >= 0.5 only, ranked by the estimate
  simtui query data/ a.txt --method simhash   SimHash candidates, with Hamming distances
  simtui query data/ draft.txt --fail-empty > /dev/null || echo 'nothing like it'",
    ),
    (
        "clusters",
        r"  simtui clusters data/ --threshold 0.8       groups of near-duplicates, largest first
  simtui clusters data/ -t 0.9 --dupes -0 | xargs -0 mv -t dupes/   all but one per group
  simtui clusters data/ --keep oldest --format csv > clusters.csv
  simtui clusters data/ -t 0.95 --fail-empty > /dev/null && echo 'duplicates found'",
    ),
    (
        "dedup",
        r"  simtui dedup data.jsonl -o clean.jsonl -t 0.8     the same lines, near-duplicates left out
  simtui dedup data/ -o clean/ -t 0.9 --dry-run       how many would go
  simtui dedup data/ -o clean/ -t 0.8 --keep-list wrong.txt --force   after a review",
    ),
    (
        "matrix",
        r"  simtui matrix a.txt b.txt c.txt             exact Jaccard between every two
  simtui matrix books/ --measure estimate --format csv > m.csv
  simtui matrix books/ --measure simhash --bits 128    Hamming distances",
    ),
    (
        "sketch",
        r"  simtui sketch data/ -o sketches/            each document's band keys, signature and shingles
  simtui sketch data/ -o sk/ -b 32 -r 4 --no-shingles   for another banding, without shingles
  simtui sketch --stdin --id-field id < part.jsonl > part.parquet   a partition through a pipe
  ... | simtui sketch --stdin --format jsonl          JSON Lines out, 64-bit values signed",
    ),
    (
        "diff",
        r"  simtui diff a.txt b.txt                     side by side, changed words coloured
  simtui diff a.txt b.txt --color never --width 120 > d.txt   [-old-] and {+new+} marked
  simtui diff --corpus data/ d000/doc000003.txt d020/doc020366.txt   two documents by id",
    ),
    (
        "fingerprint",
        r"  simtui fingerprint books/ --weight tf --bits 8    8-bit fingerprints, as the books notebook
  simtui fingerprint data/ --format csv > fp.csv     idf-weighted, as pairs --method simhash
  simtui fingerprint a.txt b.txt --weight tf -vv     with each one's 10 heaviest tokens",
    ),
    (
        "index",
        r"  simtui index data/                          writes data/.simtui-index, found there by later runs
  simtui index data/ -o data.idx              anywhere else: then pass --index data.idx
  simtui pairs data/ --index data.idx -t 0.8  re-reads only files changed since, updates data.idx
  simtui data/ --index data.idx               the explorer, from the saved index",
    ),
    (
        "curve",
        r"  simtui curve                                the S-curve of 16 bands x 8 rows
  simtui curve --bands 32 --rows 4            a lower threshold, (1/32)^(1/4) = 0.42
  simtui curve --threshold 0.8 --perms 128    the banding to use for J >= 0.8
  simtui curve --accuracy                     standard error of the estimate by N, measured and theory",
    ),
    (
        "eval",
        r"  simtui eval data/                           recall against exact all-pairs similarity
  simtui eval data/ --sweep -t 0.8            every banding of b x r = 128 functions
  simtui eval corpus/ --truth corpus.truth.jsonl --runs 5",
    ),
    (
        "gen",
        r"  simtui gen corpus --docs 10000 --seed 7     writes corpus/ and corpus.truth.jsonl
  simtui eval corpus --truth corpus.truth.jsonl",
    ),
    (
        "completions",
        r"  simtui completions bash > ~/.local/share/bash-completion/completions/simtui
  simtui completions zsh > ~/.zfunc/_simtui   (with fpath+=~/.zfunc in ~/.zshrc)
  simtui completions fish > ~/.config/fish/completions/simtui.fish
  simtui completions powershell >> $PROFILE",
    ),
    (
        "man",
        r"  simtui man | man -l -                       read it now
  simtui man > ~/.local/share/man/man1/simtui.1
  simtui man pairs > ~/.local/share/man/man1/simtui-pairs.1",
    ),
    (
        "config",
        r"  mkdir -p ~/.config/simtui && simtui config --default > ~/.config/simtui/config.toml
  simtui config --path                        the file in use (it may not exist yet)
  simtui config --check                       read it and name every problem",
    ),
];

/// `T::command()` with the examples, the exit codes and the maximum width.
pub fn command<T: CommandFactory>() -> Command {
    decorate(T::command())
}

fn decorate(cmd: Command) -> Command {
    // The explorer and the commands are two ways to call simtui: say so, as clap would
    // with `args_conflicts_with_subcommands` (cli::startup enforces it instead).
    let usage = format!(
        "{0} [OPTIONS] [PATH]...\n       {0} [OPTIONS] <COMMAND>",
        cmd.get_name()
    );
    let mut cmd = cmd
        .max_term_width(MAX_WIDTH)
        .override_usage(usage)
        .after_help(after_help(""));
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(&name, |sub| {
            let sub = sub.max_term_width(MAX_WIDTH);
            if examples(&name).is_some() {
                sub.after_help(after_help(&name))
            } else {
                sub
            }
        });
    }
    cmd
}

/// The examples of a command ("" for the explorer), if it has some here.
pub fn examples(name: &str) -> Option<&'static str> {
    EXAMPLES.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

fn after_help(name: &str) -> String {
    let examples = examples(name).unwrap_or_default();
    let config = if name.is_empty() {
        format!("\n\nConfig file: {CONFIG_NOTE}")
    } else {
        String::new()
    };
    format!("Examples:\n{examples}{config}\n\nExit status: {EXIT_STATUS}")
}
