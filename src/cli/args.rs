//! Flags shared by the explorer and the headless commands.

use super::UsageError;
use super::config::{Config, ConfigError, Problem};
use clap::{Arg, Args, Command, ValueEnum};
use simtui_engine::analysis::method::Method;
use simtui_engine::index::Params;
use simtui_engine::sketch::minhash::SketchKind;
use simtui_engine::sketch::simhash::fingerprint::{SimHasher, Weight, default_max_distance};
use simtui_engine::source::{Corpus, WalkOptions};
use simtui_engine::source::{InputFormat, InputOptions, SgmlText};
use simtui_engine::storage::Budget;
use simtui_engine::text::{Language, TextOptions, Unit};
use std::path::PathBuf;

// The value enums have no doc comments on their variants: clap would print them as a
// long "Possible values" block; each flag's help says what the values mean instead.

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UnitArg {
    // Unicode words.
    Word,
    // Grapheme clusters, white space collapsed.
    Char,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SketchArg {
    // Classic MinHash: b·r hash functions per shingle.
    Minhash,
    // One-permutation hashing with optimal densification: one hash per shingle.
    Oph,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SgmlTextArg {
    // The <TITLE>, a blank line, then the <BODY>.
    #[value(name = "title+body")]
    TitleBody,
    // The <BODY> alone.
    Body,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputFormatArg {
    // By extension, per file.
    Auto,
    // One plain-text document per file.
    Text,
    // JSON Lines: one document per line.
    Jsonl,
    // Reuters-21578 SGML: one document per <REUTERS> article.
    Sgml,
    // Parquet: one document per row.
    Parquet,
}

/// The help heading of [`IndexArgs`]' flags. It also marks the flags whose defaults the
/// config file's `[index]` section sets: every command that flattens `IndexArgs` takes
/// them. (Set per flag: a struct-wide heading would run on into the flags after it.)
pub const INDEX_HEADING: &str = "Indexing options";

/// How the corpus is read and indexed.
#[derive(Args, Clone, Debug)]
pub struct IndexArgs {
    /// Tokens per shingle
    #[arg(help_heading = INDEX_HEADING, short = 'k', long = "k", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub k: u32,
    /// What a token is: word or char (a grapheme)
    ///
    /// word: Unicode words (UAX #29), lowercased unless --keep-case. char: grapheme
    /// clusters, each run of white space collapsed to one space.
    #[arg(help_heading = INDEX_HEADING, long, value_enum, default_value_t = UnitArg::Word, hide_possible_values = true)]
    pub unit: UnitArg,
    /// Keep letter case (default: lowercase)
    #[arg(help_heading = INDEX_HEADING, long)]
    pub keep_case: bool,
    /// Drop stop words (bare: English; =LANG: LANG's)
    ///
    /// A bare --stopwords drops the built-in English list. --stopwords=LANG drops NLTK's
    /// list of LANG, by name or ISO 639-1 code: albanian, arabic, azerbaijani, basque,
    /// belarusian, bengali, catalan, chinese, danish, dutch, english, finnish, french,
    /// german, greek, hebrew, hungarian, indonesian, italian, kazakh, nepali, norwegian,
    /// portuguese, romanian, russian, slovenian, spanish, swedish, tajik, tamil, turkish,
    /// uzbek. none: keep them. Words only, matched after lowercasing (unless
    /// --keep-case), before stemming.
    #[arg(help_heading = INDEX_HEADING, long, value_name = "LANG", num_args = 0..=1, require_equals = true, default_value = "none", default_missing_value = "english", value_parser = stopword_language)]
    pub stopwords: LangChoice,
    /// Reduce words to their Snowball stems in LANG
    ///
    /// The Snowball stemmers: arabic, danish, dutch, english (Porter's second
    /// algorithm), finnish, french, german, greek, hungarian, italian, norwegian,
    /// portuguese, romanian, russian, spanish, swedish, tamil, turkish, by name or ISO
    /// 639-1 code. none: no stemming. Words only, after stop words are dropped.
    #[arg(help_heading = INDEX_HEADING, long, value_name = "LANG", default_value = "none", value_parser = stem_language)]
    pub stem: LangChoice,
    /// Drop words that hold a digit, or no letter (e.g. 1987, B2B, 3.5)
    ///
    /// As the studies of Reuters-21578 clean their text (the tm package's removeNumbers):
    /// a word with any digit, or without any letter, is not a token. Words only.
    #[arg(help_heading = INDEX_HEADING, long)]
    pub letters_only: bool,
    /// LSH bands (b)
    #[arg(help_heading = INDEX_HEADING, short = 'b', long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub bands: u32,
    /// Rows per band (r); b·r MinHash functions are computed
    #[arg(help_heading = INDEX_HEADING, short = 'r', long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub rows: u32,
    /// Seed of the MinHash functions
    #[arg(help_heading = INDEX_HEADING, long, default_value_t = 1)]
    pub seed: u64,
    /// The sketch: oph (one hash per shingle) or minhash
    ///
    /// oph: one-permutation hashing with optimal densification, one hash per shingle, with
    /// classic MinHash's estimator and S-curve (the default: the same recall at a third of
    /// the sketching time). minhash: classic MinHash, b·r hash functions per shingle.
    #[arg(help_heading = INDEX_HEADING, long, value_enum, default_value_t = SketchArg::Oph, hide_possible_values = true)]
    pub sketch: SketchArg,
    /// Include hidden files and folders (and .git and the like)
    #[arg(help_heading = INDEX_HEADING, long)]
    pub hidden: bool,
    /// Follow symbolic links (loops are detected and skipped)
    #[arg(help_heading = INDEX_HEADING, long)]
    pub follow: bool,
    /// Skip files and records over this many bytes
    ///
    /// Files larger than this are skipped (counted as too large), and so are records of
    /// JSON Lines and SGML files larger than this.
    #[arg(help_heading = INDEX_HEADING, long, default_value_t = 32 << 20)]
    pub max_bytes: u64,
    /// Only files with these extensions, comma-separated (e.g. txt,md)
    #[arg(help_heading = INDEX_HEADING, long, value_delimiter = ',')]
    pub ext: Option<Vec<String>>,
    /// Files' format: auto, text, jsonl, sgml or parquet
    ///
    /// auto: by extension, per file: .jsonl and .ndjson are JSON Lines, .sgm and .sgml
    /// Reuters SGML, either maybe compressed (.gz, .zst), .parquet Parquet; anything else
    /// is text. text: one document per file. jsonl: one per line. sgml: one per <REUTERS>
    /// article. parquet: one per row.
    #[arg(help_heading = INDEX_HEADING, long, value_enum, value_name = "FORMAT", default_value_t = InputFormatArg::Auto, hide_possible_values = true)]
    pub input_format: InputFormatArg,
    /// The JSON Lines or Parquet field of the text
    #[arg(help_heading = INDEX_HEADING, long, value_name = "NAME", default_value = "text")]
    pub text_field: String,
    /// The JSON Lines field, Parquet column or SGML attribute holding the id
    ///
    /// A JSON Lines field or Parquet column (a string or number), or an attribute of
    /// SGML's <REUTERS> element (e.g. OLDID). [default: FILE:LINE for JSON Lines, FILE:ROW
    /// for Parquet, NEWID for SGML]
    #[arg(help_heading = INDEX_HEADING, long, value_name = "NAME")]
    pub id_field: Option<String>,
    /// The JSON Lines or Parquet field holding a document's title
    ///
    /// The title names a document in the explorer's list, the diff and the removal list.
    /// Without it a document's title is its first non-empty line; an SGML article's is
    /// its <TITLE>.
    #[arg(help_heading = INDEX_HEADING, long, value_name = "NAME")]
    pub title_field: Option<String>,
    /// Metadata to keep, comma-separated: fields, SGML elements
    ///
    /// JSON Lines or Parquet fields, or SGML elements (DATE, PLACES, TOPICS, ...) or else
    /// attributes of <REUTERS> (LEWISSPLIT). Shown in the diff's header for both sides
    /// (values that differ marked), written in exports and removal lists, and usable by
    /// --keep field:NAME. Added to the usual fields (see --no-default-meta).
    #[arg(help_heading = INDEX_HEADING, long, value_name = "NAMES", value_delimiter = ',')]
    pub meta_field: Vec<String>,
    /// Only --meta-field's fields, not the usual dates
    ///
    /// Without it, an SGML article keeps its DATE and PLACES, and a JSON Lines record or a
    /// Parquet row its date, timestamp, created_at, published, url and source fields
    /// (those it has): the explorer's diff shows them, as two reports alike word for word
    /// are often of different days. With it, --meta-field replaces them.
    #[arg(help_heading = INDEX_HEADING, long)]
    pub no_default_meta: bool,
    /// An SGML article's text: title+body (default) or body
    ///
    /// title+body: the <TITLE>, a blank line and the <BODY> (an article with a title and
    /// no body is its title). body: the <BODY> alone, as the Reuters-21578 studies read
    /// it (two reports under one routine headline are compared by what they say; an
    /// article without a body is skipped).
    #[arg(help_heading = INDEX_HEADING, long, value_enum, value_name = "TEXT", default_value_t = SgmlTextArg::TitleBody, hide_default_value = true, hide_possible_values = true)]
    pub sgml_text: SgmlTextArg,
    /// Skip documents with fewer words than this
    ///
    /// Words are counted after tokenising and dropping stop words; such documents are
    /// counted as too short.
    #[arg(help_heading = INDEX_HEADING, long, value_name = "N", default_value_t = 0)]
    pub min_words: u64,
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
            input: InputOptions {
                format: match self.input_format {
                    InputFormatArg::Auto => InputFormat::Auto,
                    InputFormatArg::Text => InputFormat::Text,
                    InputFormatArg::Jsonl => InputFormat::Jsonl,
                    InputFormatArg::Sgml => InputFormat::Sgml,
                    InputFormatArg::Parquet => InputFormat::Parquet,
                },
                text_field: self.text_field.clone(),
                id_field: self.id_field.clone(),
                title_field: self.title_field.clone(),
                meta_fields: self.meta_field.clone(),
                default_meta: !self.no_default_meta,
                sgml_text: match self.sgml_text {
                    SgmlTextArg::TitleBody => SgmlText::TitleBody,
                    SgmlTextArg::Body => SgmlText::Body,
                },
            },
            memory: u64::MAX,
        }
    }

    /// The files under `roots`, as these flags say to walk them; a root that cannot be
    /// walked is a usage error.
    pub fn walk(&self, roots: &[PathBuf]) -> Result<Corpus, UsageError> {
        self.walk_within(roots, u64::MAX)
    }

    /// [`IndexArgs::walk`] in a run limited to `memory` bytes (see
    /// [`WalkOptions::memory`]).
    pub fn walk_within(&self, roots: &[PathBuf], memory: u64) -> Result<Corpus, UsageError> {
        let opts = WalkOptions {
            memory,
            ..self.walk_options()
        };
        Corpus::walk(roots, &opts).map_err(|e| UsageError(e.to_string()))
    }

    /// Checks what clap cannot check field by field: b·r hash functions at most
    /// [`MAX_FUNCTIONS`].
    pub fn check(&self) -> Result<(), UsageError> {
        check_banding(self.bands as usize, self.rows as usize, "--bands × --rows")
    }

    pub fn params(&self) -> Params {
        Params {
            text: TextOptions {
                unit: match self.unit {
                    UnitArg::Word => Unit::Word,
                    UnitArg::Char => Unit::Char,
                },
                keep_case: self.keep_case,
                stopwords: self.stopwords.0,
                stem: self.stem.0,
                letters_only: self.letters_only,
            },
            k: self.k as usize,
            seed: self.seed,
            sketch: match self.sketch {
                SketchArg::Minhash => SketchKind::MinHash,
                SketchArg::Oph => SketchKind::Oph,
            },
            num_perm: (self.bands * self.rows) as usize,
            max_bytes: self.max_bytes,
            min_words: self.min_words,
        }
    }
}

/// A language chosen for `--stopwords` or `--stem`, or none (`none`, to turn off what
/// the config file turns on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LangChoice(pub Option<Language>);

/// A language by name or ISO code, or `none`.
fn language_choice(s: &str, what: &str, langs: &[Language]) -> Result<LangChoice, String> {
    if matches!(s.trim().to_lowercase().as_str(), "none" | "off") {
        return Ok(LangChoice(None));
    }
    match Language::parse(s).filter(|l| langs.contains(l)) {
        Some(l) => Ok(LangChoice(Some(l))),
        None => {
            let names: Vec<&str> = langs.iter().map(|l| l.name()).collect();
            Err(format!(
                "no {what} for {s:?}; one of: {}, or none",
                names.join(", ")
            ))
        }
    }
}

fn stopword_language(s: &str) -> Result<LangChoice, String> {
    let all: Vec<Language> = Language::all().collect();
    language_choice(s, "stop-word list", &all)
}

fn stem_language(s: &str) -> Result<LangChoice, String> {
    let stemmed: Vec<Language> = Language::stemmed().collect();
    language_choice(s, "Snowball stemmer", &stemmed)
}

/// The most hash functions (b·r) any command computes: 4,096 × 4 bytes a content is
/// 16 KB, already 16 GB for a million contents. Past it the curve is as steep as anyone
/// needs; the limit keeps a typo (4096 × 256) from asking for a million functions.
pub const MAX_FUNCTIONS: usize = 4096;

/// A usage error when `bands × rows` is over [`MAX_FUNCTIONS`]; `what` names the flags.
pub fn check_banding(bands: usize, rows: usize, what: &str) -> Result<(), UsageError> {
    let n = bands.saturating_mul(rows);
    if n > MAX_FUNCTIONS {
        return Err(UsageError(format!(
            "{what} = {bands} × {rows} = {n} hash functions; at most {MAX_FUNCTIONS} (fewer rows or bands give the same threshold: see `simtui curve --threshold T`)"
        )));
    }
    Ok(())
}

/// Paths to index: at least one.
#[derive(Args, Clone, Debug)]
pub struct PathArgs {
    /// Folders and files to index
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Makes the config file's `[index]` settings the defaults of the flags they name, in
/// the root command and every subcommand. A flag on the command line still wins: clap
/// takes a default only when the flag is absent (its value source is then "default").
/// Each value goes through the flag's own parser first, so the file accepts exactly
/// what the command line does and a bad value is reported at its line.
pub fn with_config_defaults(cmd: Command, config: &Config) -> Result<Command, ConfigError> {
    let mut problems = Vec::new();
    let cmd = apply_defaults(cmd, config, &mut problems);
    if problems.is_empty() {
        return Ok(cmd);
    }
    // Several commands share a flag, and so its problem.
    problems.sort_by_key(|p: &Problem| p.line);
    problems.dedup();
    Err(ConfigError {
        path: config.path.clone().unwrap_or_default(),
        problems,
    })
}

/// The problems [`with_config_defaults`] would find, for reporting them together with
/// the config file's own.
pub fn flag_problems(cmd: &Command, config: &Config) -> Vec<Problem> {
    let mut problems = Vec::new();
    apply_defaults(cmd.clone(), config, &mut problems);
    problems
}

fn apply_defaults(mut cmd: Command, config: &Config, problems: &mut Vec<Problem>) -> Command {
    let mut set = Vec::new();
    for arg in cmd.get_arguments() {
        let Some(d) = config.default_for(arg.get_id().as_str()) else {
            continue;
        };
        if !takes_config(d.key, arg) {
            continue;
        }
        match check_value(arg, &d.value) {
            Ok(()) => set.push((arg.get_id().clone(), d.value.clone())),
            Err(message) => problems.push(Problem {
                line: d.line,
                key: Some(format!("index.{}", d.key)),
                message,
            }),
        }
    }
    for (id, value) in set {
        cmd = cmd.mut_arg(id, |a| a.default_value(value));
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(name, |sub| apply_defaults(sub, config, problems));
    }
    cmd
}

/// Whether the config setting `key` gives `arg` its default.
fn takes_config(key: &str, arg: &Arg) -> bool {
    match key {
        // Every --threshold that has a default (pairs, eval), but not curve's: there a
        // threshold switches from drawing a curve to recommending a banding.
        "threshold" => !arg.get_default_values().is_empty(),
        // MemoryArgs' flags, also set in the `[index]` section.
        "memory" | "tmp_dir" => arg.get_help_heading() == Some(MEMORY_HEADING),
        // The flags of IndexArgs, and not a flag of the same name elsewhere (gen --seed
        // seeds the corpus, not the hash functions).
        _ => arg.get_help_heading() == Some(INDEX_HEADING),
    }
}

/// Runs `value` through `arg`'s parser, as if it were given on the command line.
fn check_value(arg: &Arg, value: &str) -> Result<(), String> {
    use clap::error::{ContextKind, ContextValue};
    let probe = Command::new("config").no_binary_name(true).arg(
        Arg::new("value")
            .long("value")
            .value_parser(arg.get_value_parser().clone()),
    );
    let Err(e) = probe.try_get_matches_from([format!("--value={value}")]) else {
        return Ok(());
    };
    if let Some(ContextValue::Strings(valid)) = e.get(ContextKind::ValidValue) {
        return Err(format!(
            "expected one of {}, found {value:?}",
            valid.join(", ")
        ));
    }
    Err(match std::error::Error::source(&e) {
        Some(why) => format!("invalid value {value}: {why}"),
        None => format!("invalid value {value}"),
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    // MinHash signatures banded by LSH.
    Minhash,
    // Weighted SimHash fingerprints in permuted block tables.
    Simhash,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WeightArg {
    // Term frequency.
    Tf,
    // Term frequency × inverse document frequency over the corpus.
    Idf,
}

impl WeightArg {
    pub fn weight(arg: Option<WeightArg>) -> Weight {
        match arg {
            Some(WeightArg::Tf) => Weight::Tf,
            // Idf by default: with tf, the words every document uses pull all
            // fingerprints together (unrelated documents ~8.5 of 64 bits apart), so any
            // distance that finds near-duplicates also makes millions of candidates.
            None | Some(WeightArg::Idf) => Weight::Idf,
        }
    }
}

/// How candidate pairs are found: `--method`, and SimHash's `--bits`, `--weight` and
/// `--max-distance`.
#[derive(Args, Clone, Debug)]
pub struct MethodArgs {
    /// How candidates are found: minhash or simhash
    ///
    /// minhash: MinHash signatures banded by LSH (--bands, --rows). simhash: weighted
    /// SimHash fingerprints at most --max-distance bits apart (--bits, --weight).
    #[arg(long, value_enum, default_value_t = MethodArg::Minhash, hide_possible_values = true)]
    pub method: MethodArg,
    /// SimHash fingerprint width in bits: 8, 16, 32, 64 or 128 [default: 64]
    #[arg(long, value_parser = bits_parser(), hide_possible_values = true)]
    pub bits: Option<u32>,
    /// SimHash token weights: tf or idf [default: idf]
    ///
    /// tf: term frequency. idf: term frequency × inverse document frequency over the
    /// corpus, so that words in every document stop pulling all fingerprints together.
    #[arg(long, value_enum, hide_possible_values = true)]
    pub weight: Option<WeightArg>,
    /// SimHash: the largest Hamming distance of a candidate pair
    ///
    /// [default: 3 of 64 bits and 6 of 128 with tf weights, 10 and 20 with idf; the
    /// same fraction of narrower fingerprints, rounded: 0, 1, 1 of 8, 16, 32 bits with
    /// tf, 1, 2, 5 with idf]
    #[arg(long, value_name = "D")]
    pub max_distance: Option<u32>,
}

/// A SimHash width (8, 16, 32, 64 or 128), as a number.
pub fn bits_parser() -> impl clap::builder::TypedValueParser<Value = u32> {
    use clap::builder::TypedValueParser;
    use simtui_engine::sketch::simhash::fingerprint::WIDTHS;
    clap::builder::PossibleValuesParser::new(WIDTHS.map(|b| b.to_string()))
        .map(|s| s.parse::<u32>().expect("one of WIDTHS"))
}

impl MethodArgs {
    /// The engine's method, checked: SimHash flags only with `--method simhash`, and a
    /// distance below half the bits (beyond it any two fingerprints are as close by chance).
    pub fn method(&self, index: &IndexArgs) -> Result<Method, crate::output::error::UsageError> {
        match self.method {
            MethodArg::Minhash => {
                if self.bits.is_some() || self.weight.is_some() || self.max_distance.is_some() {
                    return Err(crate::output::error::UsageError(
                        "--bits, --weight and --max-distance are for --method simhash".into(),
                    ));
                }
                Ok(Method::MinHash {
                    bands: index.bands as usize,
                    rows: index.rows as usize,
                })
            }
            MethodArg::Simhash => {
                let bits = self.bits.unwrap_or(64);
                let weight = WeightArg::weight(self.weight);
                let max_distance = self
                    .max_distance
                    .unwrap_or(default_max_distance(bits, weight));
                if max_distance >= bits / 2 {
                    return Err(crate::output::error::UsageError(format!(
                        "--max-distance must be below {} for {bits}-bit fingerprints, got {max_distance}",
                        bits / 2
                    )));
                }
                Ok(Method::SimHash {
                    hasher: SimHasher::new(bits, index.seed, weight),
                    max_distance,
                })
            }
        }
    }

    /// The index parameters for the method: SimHash computes no MinHash signatures.
    pub fn params(&self, index: &IndexArgs) -> Params {
        let mut params = index.params();
        if self.method == MethodArg::Simhash {
            params.num_perm = 0;
        }
        params
    }
}

/// The help heading of [`MemoryArgs`]' flags (the config file's `[index]` section sets
/// the defaults of `--memory` and `--tmp-dir` too).
pub const MEMORY_HEADING: &str = "Memory and progress";

/// How much memory a run may use, where what does not fit goes, and whether progress is
/// drawn: every command that indexes takes them (one group, so a new command adds one
/// line).
#[derive(Args, Clone, Debug, Default)]
pub struct MemoryArgs {
    /// Memory to use, e.g. 2G; past it, work spills to temporary files
    ///
    /// The index (shingle sets, signatures) and the search's work (band keys, sorts)
    /// keep within it; what does not fit goes to temporary files, with the same output.
    /// A number of bytes, or with K, M, G or T (powers of 1024). [default: a quarter of
    /// the machine's memory]
    #[arg(help_heading = MEMORY_HEADING, long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<u64>,
    /// Folder for temporary files [default: the system's]
    ///
    /// Work past --memory goes there (files the system removes when simtui ends,
    /// however it ends), never into the corpus.
    #[arg(help_heading = MEMORY_HEADING, long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,
    /// Draw no progress bars on stderr
    ///
    /// Long runs draw per-stage progress on stderr when it is a terminal, after a second.
    #[arg(help_heading = MEMORY_HEADING, short = 'q', long)]
    pub quiet: bool,
}

impl MemoryArgs {
    /// The memory budget: `--memory`, else a quarter of the machine's (no limit when the
    /// machine's is unknown).
    pub fn budget(&self) -> Budget {
        let bytes = self
            .memory
            .or_else(|| simtui_engine::storage::memory::physical().map(|m| m / 4))
            .unwrap_or(u64::MAX);
        Budget::new(bytes, self.tmp_dir.clone())
    }

    /// The run's progress (bars on a terminal, `-vv` stage times) and memory budget,
    /// the flags checked first: what a command calls before it indexes.
    pub fn run(&self) -> Result<crate::output::progress::Run, UsageError> {
        self.check()?;
        Ok(crate::output::progress::Run::start(
            self.budget(),
            self.quiet,
        ))
    }

    /// Checks what clap cannot: the temporary folder is a folder.
    pub fn check(&self) -> Result<(), UsageError> {
        match &self.tmp_dir {
            Some(dir) if !dir.is_dir() => Err(UsageError(format!(
                "--tmp-dir {}: not a folder",
                dir.display()
            ))),
            _ => Ok(()),
        }
    }
}

/// A size in bytes: a number, maybe with a point, and K, M, G or T (powers of 1024;
/// "KB", "KiB" and lowercase too).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(format!("{text:?}: a size like 512M or 2G")),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?}: a size like 512M or 2G"))?;
    let bytes = value * scale as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("{text:?}: too large"));
    }
    Ok(bytes as u64)
}
