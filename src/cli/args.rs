//! Flags shared by the explorer and the headless commands.

use clap::{Args, ValueEnum};
use simtui::corpus::WalkOptions;
use simtui::index::Params;
use simtui::sketch::SketchKind;
use simtui::text::{TextOptions, Unit};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UnitArg {
    /// Unicode words
    Word,
    /// Grapheme clusters, white space collapsed
    Char,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SketchArg {
    /// Classic MinHash: b·r hash functions per shingle
    Minhash,
    /// One-permutation hashing with optimal densification: one hash per shingle
    Oph,
}

/// How the corpus is read and indexed.
#[derive(Args, Clone, Debug)]
pub struct IndexArgs {
    /// Tokens per shingle
    #[arg(short = 'k', long = "k", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub k: u32,
    /// What a token is
    #[arg(long, value_enum, default_value_t = UnitArg::Word)]
    pub unit: UnitArg,
    /// Keep letter case (default: lowercase)
    #[arg(long)]
    pub keep_case: bool,
    /// Drop a built-in list of English stop words
    #[arg(long)]
    pub stopwords: bool,
    /// LSH bands (b)
    #[arg(short = 'b', long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub bands: u32,
    /// Rows per band (r); b·r MinHash functions are computed
    #[arg(short = 'r', long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub rows: u32,
    /// Seed of the MinHash functions
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The sketch that makes the signatures
    #[arg(long, value_enum, default_value_t = SketchArg::Minhash)]
    pub sketch: SketchArg,
    /// Include hidden files and folders (and .git and the like)
    #[arg(long)]
    pub hidden: bool,
    /// Follow symbolic links (loops are detected and skipped)
    #[arg(long)]
    pub follow: bool,
    /// Skip files larger than this many bytes
    #[arg(long, default_value_t = 32 << 20)]
    pub max_bytes: u64,
    /// Only files with these extensions, comma-separated (e.g. txt,md)
    #[arg(long, value_delimiter = ',')]
    pub ext: Option<Vec<String>>,
}

impl IndexArgs {
    pub fn walk_options(&self) -> WalkOptions {
        WalkOptions {
            hidden: self.hidden,
            follow: self.follow,
            max_bytes: self.max_bytes,
            extensions: self.ext.as_ref().map(|v| {
                v.iter()
                    .map(|e| e.trim_start_matches('.').to_lowercase())
                    .collect()
            }),
        }
    }

    pub fn params(&self) -> Params {
        Params {
            text: TextOptions {
                unit: match self.unit {
                    UnitArg::Word => Unit::Word,
                    UnitArg::Char => Unit::Char,
                },
                keep_case: self.keep_case,
                stopwords: self.stopwords,
            },
            k: self.k as usize,
            seed: self.seed,
            sketch: match self.sketch {
                SketchArg::Minhash => SketchKind::MinHash,
                SketchArg::Oph => SketchKind::Oph,
            },
            num_perm: (self.bands * self.rows) as usize,
            max_bytes: self.max_bytes,
        }
    }
}

/// Paths to index: at least one.
#[derive(Args, Clone, Debug)]
pub struct PathArgs {
    /// Folders and files to index
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}
