//! What every command that indexes a corpus takes, and the one way it opens it: walk
//! the corpus and build the index, or open the saved index and bring it up to date;
//! within the memory budget, with progress on stderr, saying there what the user
//! should know (files skipped, a banding chosen for `-t`, a corpus with no document).

use super::args::{IndexArgs, MemoryArgs, MethodArgs};
use super::banding;
use crate::output::error::{UsageError, store_error};
use crate::output::guard::Paths;
use crate::output::progress::Run;
use clap::Args;
use simtui_engine::analysis::method::{Engine, Method};
use simtui_engine::index::{Index, IndexBuilder, Keep, Params};
use simtui_engine::progress::Progress;
use simtui_engine::sketch::simhash::fingerprints::Fingerprints;
use simtui_engine::source::SkipReason;
use simtui_engine::storage::Budget;
use simtui_engine::store::{self, Mode, Opened, Request};
use std::mem::ManuallyDrop;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How a command reads, indexes and searches its corpus, where the corpus's saved index
/// is and how much memory the run may use: the flag groups every command that searches
/// a corpus takes (pairs, clusters, dedup, query), in their order in `--help`.
#[derive(Args, Clone, Debug)]
pub struct CorpusArgs {
    #[command(flatten)]
    pub index: IndexArgs,
    #[command(flatten)]
    pub method: MethodArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

/// A check of an indexed corpus that refuses it for a command.
pub type Refusal = fn(&Index) -> Result<(), UsageError>;

/// What a command opens its corpus for.
pub struct Purpose<'a> {
    /// The command, as stderr names it (`simtui pairs: ...`).
    pub command: &'a str,
    /// `-t`, when it chooses the banding (MinHash without -b/-r) or is checked against it.
    pub threshold: Option<f64>,
    /// -b or -r was given (on the command line or in the config file).
    pub banding_given: bool,
    /// What an index built here keeps of the corpus (a command that only finds pairs or
    /// clusters needs no shingle sets in memory).
    pub keep: Keep,
    /// What the corpus must be for the command, checked once it is indexed and before
    /// anything else is said (`clusters --dupes`: files, not records).
    pub refuse: Option<Refusal>,
}

impl<'a> Purpose<'a> {
    /// A search at `-t threshold`, the banding chosen for it unless -b/-r were given.
    pub fn at(
        command: &'a str,
        threshold: f64,
        startup: &super::startup::Startup,
        keep: Keep,
    ) -> Purpose<'a> {
        Purpose {
            command,
            threshold: Some(threshold),
            banding_given: startup.banding_given,
            keep,
            refuse: None,
        }
    }
}

/// A corpus opened for a command.
pub struct OpenedCorpus {
    /// Never freed: a command opens one corpus and uses it to its end, and then the
    /// process exits, which hands all its memory back at once. Freed one allocation at a
    /// time (every document's id and path, then the allocator consolidating and unmapping)
    /// it took about 8 ms of one core after the output was written: 3 % of `pairs` on
    /// 50,000 files. Its temporary files are anonymous: the exit removes them too.
    pub engine: ManuallyDrop<Engine>,
    /// The run's progress and memory budget.
    pub progress: Run,
    /// The time the walk took (with a saved index: the time to open and update it).
    pub walk: Duration,
    /// The indexing flags in force: the command's, with the banding chosen for `-t`.
    pub index: IndexArgs,
}

impl CorpusArgs {
    /// What clap cannot check flag by flag, before anything else: `-t` in [0, 1], and
    /// b·r within the limit.
    pub fn check(&self, threshold: Option<f64>) -> Result<(), UsageError> {
        if let Some(t) = threshold {
            super::check_similarity("--threshold", t)?;
        }
        self.index.check()
    }

    /// The run's paths for the output check: the corpus at `roots` and the saved index
    /// (which may lie in it); the command adds its own.
    pub fn paths(&self, roots: &[PathBuf]) -> Paths {
        self.store.paths(roots)
    }

    /// Opens the corpus at `roots`, indexed as `index` says (the command's flags, maybe
    /// with fields of its own added): the banding chosen or checked for the purpose's
    /// threshold, the memory budget and progress started, the index built or the saved
    /// one opened; what the banding note says goes to stderr once the corpus is found.
    pub fn open(
        &self,
        roots: &[PathBuf],
        mut index: IndexArgs,
        purpose: Purpose,
    ) -> anyhow::Result<OpenedCorpus> {
        // Said once the corpus is found: a usage error stays the one line on stderr.
        let note = purpose
            .threshold
            .and_then(|t| banding::for_t(self.method.method, t, &mut index, purpose.banding_given));
        // Progress bars, -vv stage times, the memory budget.
        let progress = self.memory.run()?;
        let (engine, walk) = engine(
            roots,
            Some(&self.store),
            &index,
            &self.method,
            (progress.budget(), purpose.keep),
            &progress,
        )?;
        if let Some(refuse) = purpose.refuse {
            refuse(&engine.index)?;
        }
        banding::say(purpose.command, note);
        Ok(OpenedCorpus {
            engine: ManuallyDrop::new(engine),
            progress,
            walk,
            index,
        })
    }
}

/// `--index FILE` / `--no-index`: where a saved index is.
#[derive(Args, Clone, Debug, Default)]
pub struct StoreArgs {
    /// Use the saved index FILE, reading only files changed since
    ///
    /// FILE is made by `simtui index`, or now if missing; files changed since it was saved
    /// are read, and FILE is updated. [default: PATH/.simtui-index if it exists and PATH is
    /// one folder]
    #[arg(long, value_name = "FILE")]
    pub index: Option<PathBuf>,
    /// Don't use PATH/.simtui-index even if it exists
    #[arg(long, conflicts_with = "index")]
    pub no_index: bool,
}

impl StoreArgs {
    /// The index file to use for `roots`, if any: `--index`, else the one found in
    /// the folder (see [`store::auto_file`]), unless `--no-index`.
    pub fn file(&self, roots: &[PathBuf]) -> Option<PathBuf> {
        if self.no_index {
            return None;
        }
        self.index.clone().or_else(|| store::auto_file(roots))
    }

    /// The run's paths as the output check takes them: the corpus given and the saved
    /// index (which may lie in it); the command adds its own.
    pub fn paths(&self, roots: &[PathBuf]) -> Paths {
        Paths::new()
            .inputs("the input", roots)
            .index("--index", self.file(roots).as_deref())
    }
}

/// Says on stderr, once, when what an index holds in memory whatever the budget passes
/// `--memory`: its documents' records, ids and paths and its group tables (its shingle
/// sets and signatures go to files past the budget, a saved index's are read from it).
/// Each part is named with its size. And once more when one document held more than the
/// limit while it was read.
pub fn say_if_over(index: &Index, budget: &Budget) {
    for over in crate::output::memory::all_over(index, budget) {
        crate::output::diag::say(format_args!("simtui: warning: {over}"));
    }
}

/// -vv: where the index's memory goes (what it holds, by part; what is on files is not
/// held).
pub fn note_memory(index: &Index) {
    let parts: Vec<String> = index
        .held_by_part()
        .iter()
        .map(|(what, n)| format!("{what} {}", crate::output::progress::human(*n)))
        .collect();
    crate::output::diag::note(2, format_args!("index memory: {}", parts.join(", ")));
}

/// Opens a saved index, saying on stderr what the user should know. The walk's entries
/// move into the index (no command walks the corpus again): `Opened::corpus` holds only
/// what the walk left out.
pub fn open_store(req: Request, progress: &dyn Progress) -> anyhow::Result<Opened> {
    let opened = store::open_index(&req, progress).map_err(store_error)?;
    let r = &opened.report;
    if let Some(why) = &r.rebuilt {
        crate::output::diag::say(format_args!(
            "simtui: index {}: {why}; rebuilt",
            req.file.display()
        ));
    }
    if let Some(tail) = r.tail_notice(&req.file) {
        crate::output::diag::say(format_args!("simtui: {tail}"));
    }
    if let Some(e) = &r.write_error {
        crate::output::diag::say(format_args!(
            "simtui: index {}: not updated: {e}",
            req.file.display()
        ));
    }
    crate::output::diag::note(1, r.summary(&req.file));
    if let Some(over) = crate::output::memory::records_over(r, &opened.index, &req.budget) {
        crate::output::diag::say(format_args!("simtui: warning: {over}"));
    }
    for s in opened.index.skipped() {
        crate::output::diag::note(1, format_args!("skipped {s}"));
    }
    Ok(opened)
}

/// The engine for a command: from the saved index when there is one (`--index`, or
/// found in the folder; never without `store`), else built from the corpus. Returns the
/// walk time too (with a saved index: the time to open and update it). Skipped files are
/// noted at `-v`, the index's memory at `-vv`; a corpus with no document, or records
/// without `--id-field`, are said.
pub fn engine(
    roots: &[PathBuf],
    store_args: Option<&StoreArgs>,
    index: &IndexArgs,
    method_args: &MethodArgs,
    (budget, keep): (&Budget, Keep),
    progress: &dyn Progress,
) -> anyhow::Result<(Engine, Duration)> {
    index.check()?;
    let method = method_args.method(index)?;
    let file = store_args.and_then(|s| s.file(roots));
    let (engine, walk) = match file {
        Some(file) => saved(roots, file, index, method, (budget, keep), progress)?,
        None => {
            let params = method_args.params(index);
            let built = build(roots, index, &params, method, (budget, keep), progress)?;
            for s in built.0.index.skipped() {
                crate::output::diag::note(1, format_args!("skipped {s}"));
            }
            // A built index holds its documents' records whatever the limit, as a saved
            // one does: said the same way.
            say_if_over(&built.0.index, budget);
            built
        }
    };
    if let Some(warning) = check_id_field(&engine.index, index)? {
        crate::output::diag::note(0, warning);
    }
    note_memory(&engine.index);
    if let Some(why) = why_no_document(&engine.index, index) {
        crate::output::diag::note(0, why);
    }
    Ok((engine, walk))
}

/// Walks `roots` and builds the engine, saying nothing: the one way a command builds an
/// index from its corpus. Returns the walk time too.
pub fn build(
    roots: &[PathBuf],
    index: &IndexArgs,
    params: &Params,
    method: Method,
    (budget, keep): (&Budget, Keep),
    progress: &dyn Progress,
) -> anyhow::Result<(Engine, Duration)> {
    let t = Instant::now();
    let corpus = index.walk_within(roots, budget.bytes)?;
    let walk = t.elapsed();
    let builder = IndexBuilder::new(params).keep(keep).budget(budget);
    Ok((Engine::build(builder, method, corpus, progress)?, walk))
}

/// The engine from the saved index `file`, brought up to date with the corpus, without
/// the labels `keep` leaves out (a saved index has them all).
fn saved(
    roots: &[PathBuf],
    file: PathBuf,
    index: &IndexArgs,
    method: Method,
    (budget, keep): (&Budget, Keep),
    progress: &dyn Progress,
) -> anyhow::Result<(Engine, Duration)> {
    let t = Instant::now();
    let opened = open_store(
        Request {
            file,
            roots: roots.to_vec(),
            walk: index.walk_options(),
            params: index.params(),
            mode: Mode::Open,
            budget: budget.clone(),
            titles: keep.keeps_titles(),
        },
        progress,
    )?;
    let walk = t.elapsed();
    // As opened (labels and all): what opening it held.
    say_if_over(&opened.index, budget);
    let opened_index = opened.index.without_labels(keep);
    let opened_index = opened_index.with_budget(budget.clone());
    let opened_index = match method {
        Method::MinHash { .. } => opened_index,
        // SimHash fingerprints are not saved: they are computed from the text.
        Method::SimHash { hasher, .. } => {
            let fps = Fingerprints::from_index(&opened_index, hasher, progress)?;
            opened_index.with_fingerprints(fps)
        }
    };
    let engine = Engine {
        index: std::sync::Arc::new(opened_index),
        method,
    };
    Ok((engine, walk))
}

/// What `--id-field NAME` found (see [`diag::id_field`](crate::output::diag::id_field)).
pub fn check_id_field(index: &Index, args: &IndexArgs) -> Result<Option<String>, UsageError> {
    crate::output::diag::id_field(index, args.id_field.as_deref())
}

/// Why a corpus has nothing to compare, when it has not: a run that finds nothing says
/// what made it so (a filter, a limit, a format), not only an empty output.
fn why_no_document(index: &Index, args: &IndexArgs) -> Option<String> {
    let s = &index.stats();
    if s.docs > s.empty {
        return None;
    }
    if s.docs > 0 {
        return Some(format!("simtui: no document has a word: {} empty", s.docs));
    }
    if index.skipped().is_empty() {
        let filter = match &args.ext {
            Some(exts) => {
                let shown: Vec<&str> = exts
                    .iter()
                    .map(|e| if e.is_empty() { "''" } else { e.as_str() })
                    .collect();
                format!(" matched --ext {}", shown.join(","))
            }
            None => " was found".to_string(),
        };
        return Some(format!("simtui: no document: no file{filter}"));
    }
    let mut reasons: std::collections::BTreeMap<SkipReason, usize> = Default::default();
    for skip in index.skipped() {
        *reasons.entry(skip.reason).or_default() += 1;
    }
    let said: Vec<String> = reasons
        .iter()
        .map(|(&reason, n)| {
            let hint = match reason {
                SkipReason::TooLarge => format!(" (over --max-bytes {})", args.max_bytes),
                SkipReason::TooShort => format!(" (under --min-words {})", args.min_words),
                SkipReason::BadRecord | SkipReason::NoBody => {
                    let first = index.skipped().iter().find(|s| s.reason == reason);
                    first.map_or(String::new(), |s| format!(" ({})", s.detail))
                }
                _ => String::new(),
            };
            format!("{} {n}{hint}", reason.name())
        })
        .collect();
    Some(format!(
        "simtui: no document: every file or record was skipped: {} (-v lists them)",
        said.join(", ")
    ))
}

/// The start of opening a corpus for MinHash alone (`--against`, `--resume`): the
/// banding chosen or checked for the purpose's threshold (its note said once the corpus
/// is found), progress and the memory budget, the engine's parameters.
pub struct MinHashStart {
    pub note: Option<banding::Note>,
    pub method: Method,
    pub progress: Run,
    pub params: Params,
}

impl CorpusArgs {
    /// [`MinHashStart`] for `index` and `purpose`; another method than MinHash is a usage
    /// error naming `flag`.
    pub fn start_minhash(
        &self,
        index: &mut IndexArgs,
        purpose: &Purpose,
        flag: &str,
    ) -> anyhow::Result<MinHashStart> {
        let note = purpose
            .threshold
            .and_then(|t| banding::for_t(self.method.method, t, index, purpose.banding_given));
        let method = self.method.method(index)?;
        if !matches!(method, Method::MinHash { .. }) {
            return Err(UsageError(format!("{flag} works with --method minhash")).into());
        }
        Ok(MinHashStart {
            note,
            method,
            progress: self.memory.run()?,
            params: self.method.params(index),
        })
    }
}
