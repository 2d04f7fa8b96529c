//! `simtui index`: save an index to a file, and `--index FILE` for the commands that
//! search one (pairs, query, clusters, the explorer). doc/index-format.md describes the
//! file; `simtui_engine::store` opens and updates it.

use super::args::{IndexArgs, MethodArgs, PathArgs};
use crate::output::error::UsageError;
use crate::output::error::store_error;
use crate::output::guard::Paths;
use clap::Args;
use simtui_engine::analysis::method::{Engine, Method};
use simtui_engine::index::{Index, IndexBuilder, Keep};
use simtui_engine::progress::Progress;
use simtui_engine::sketch::simhash::fingerprints::Fingerprints;
use simtui_engine::source::{Corpus, SkipReason};
use simtui_engine::storage::Budget;
use simtui_engine::store::{self, Mode, Opened, Request};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct IndexCmdArgs {
    #[command(flatten)]
    pub paths: PathArgs,
    #[command(flatten)]
    pub index: IndexArgs,
    /// The index file to write, or to bring up to date
    ///
    /// [default: PATH/.simtui-index when PATH is one folder]
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub memory: super::args::MemoryArgs,
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

pub fn run(args: &IndexCmdArgs) -> anyhow::Result<()> {
    let roots = &args.paths.paths;
    let file = match &args.output {
        Some(f) => f.clone(),
        None => match roots.as_slice() {
            [root] if root.is_dir() => root.join(store::AUTO_NAME),
            _ => {
                return Err(UsageError(
                    "-o FILE is needed unless PATH is one folder (then PATH/.simtui-index)".into(),
                )
                .into());
            }
        },
    };
    args.index.check()?;
    let what = if args.output.is_some() {
        "-o"
    } else {
        "the index"
    };
    Paths::new()
        .inputs("the input", roots)
        .index(what, file.as_path())
        .check()?;
    let t = Instant::now();
    let progress = args.memory.run()?;
    let opened = open(
        Request {
            file: file.clone(),
            roots: roots.clone(),
            walk: args.index.walk_options(),
            params: args.index.params(),
            mode: Mode::Create,
        },
        &progress,
    )?;
    progress.finish();
    let index = &opened.index;
    let budget = progress.budget();
    if budget.is_limited() && index.held() > budget.bytes {
        // Not out of core: the saved index is merged and encoded in memory.
        crate::output::diag::say(format_args!(
            "simtui index: the index took {} in memory, over --memory {}: `simtui index` builds and writes it in memory",
            crate::output::progress::human(index.held()),
            crate::output::progress::human(budget.bytes)
        ));
    }
    let docs = index.docs().len();
    let r = &opened.report;
    let bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    let per_doc = if docs > 0 { bytes / docs as u64 } else { 0 };
    let what = if r.written { "written" } else { "up to date" };
    crate::output::diag::say(format_args!(
        "simtui index: {} {what}: {docs} documents, {} skipped, {bytes} bytes ({per_doc} per document); \
         {} files unchanged, {} changed, {} added, {} deleted; {:.2} s",
        file.display(),
        index.skipped().len(),
        r.unchanged + r.touched,
        r.changed,
        r.added,
        r.deleted,
        t.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// Says on stderr when a saved index, which is read into memory whole, holds more than
/// `--memory`: its searches keep to the limit, the index itself cannot.
pub fn say_if_over(index: &Index, budget: &Budget) {
    if budget.is_limited() && index.held() > budget.bytes {
        crate::output::diag::say(format_args!(
            "simtui: the saved index takes {} in memory, over --memory {}: a saved index is read whole (build it anew, without --index, to keep within the limit)",
            crate::output::progress::human(index.held()),
            crate::output::progress::human(budget.bytes)
        ));
    }
}

/// Opens a saved index, saying on stderr what the user should know.
fn open(req: Request, progress: &dyn Progress) -> anyhow::Result<Opened> {
    let opened = store::open(&req, progress).map_err(store_error)?;
    let r = &opened.report;
    if let Some(why) = &r.rebuilt {
        crate::output::diag::say(format_args!(
            "simtui: index {}: {why}; rebuilt",
            req.file.display()
        ));
    }
    if let Some(e) = &r.write_error {
        crate::output::diag::say(format_args!(
            "simtui: index {}: not updated: {e}",
            req.file.display()
        ));
    }
    crate::output::diag::note(1, r.summary(&req.file));
    for s in opened.index.skipped() {
        crate::output::diag::note(1, format_args!("skipped {s}"));
    }
    Ok(opened)
}

/// The engine for a command: from the saved index when there is one (`--index`, or
/// found in the folder), else built from the corpus. Returns the walk time too (with a
/// saved index: the time to open and update it). Skipped files are noted at `-v`.
/// `keep`: what an index built here keeps of the corpus (a command that only finds pairs
/// or clusters needs no shingle sets in memory).
pub fn engine(
    roots: &[PathBuf],
    store_args: &StoreArgs,
    index: &IndexArgs,
    method_args: &MethodArgs,
    (budget, keep): (&Budget, Keep),
    progress: &dyn Progress,
) -> anyhow::Result<(Engine, Duration)> {
    index.check()?;
    let (engine, walk) = open_engine(
        roots,
        store_args,
        index,
        method_args,
        (budget, keep),
        progress,
    )?;
    if let Some(warning) = check_id_field(&engine.index, index)? {
        crate::output::diag::note(0, warning);
    }
    // -vv: where the index's memory goes.
    let parts: Vec<String> = engine
        .index
        .held_by_part()
        .iter()
        .map(|(what, n)| format!("{what} {}", crate::output::progress::human(*n)))
        .collect();
    crate::output::diag::note(2, format_args!("index memory: {}", parts.join(", ")));
    if let Some(why) = why_no_document(&engine.index, index) {
        crate::output::diag::note(0, why);
    }
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

/// The engine of [`engine`], from a saved index or built.
fn open_engine(
    roots: &[PathBuf],
    store_args: &StoreArgs,
    index: &IndexArgs,
    method_args: &MethodArgs,
    (budget, keep): (&Budget, Keep),
    progress: &dyn Progress,
) -> anyhow::Result<(Engine, Duration)> {
    let method = method_args.method(index)?;
    let t = Instant::now();
    let Some(file) = store_args.file(roots) else {
        let corpus =
            Corpus::walk(roots, &index.walk_options()).map_err(|e| UsageError(e.to_string()))?;
        let walk = t.elapsed();
        let params = method_args.params(index);
        let builder = IndexBuilder::new(&params).keep(keep).budget(budget);
        let engine = Engine::build(builder, method, corpus, progress)?;
        for s in engine.index.skipped() {
            crate::output::diag::note(1, format_args!("skipped {s}"));
        }
        return Ok((engine, walk));
    };
    let opened = open(
        Request {
            file,
            roots: roots.to_vec(),
            walk: index.walk_options(),
            params: index.params(),
            mode: Mode::Open,
        },
        progress,
    )?;
    let walk = t.elapsed();
    say_if_over(&opened.index, budget);
    let opened_index = opened.index.with_budget(budget.clone());
    let opened_index = match method {
        Method::MinHash { .. } => opened_index,
        // SimHash fingerprints are not saved: they are computed from the text.
        Method::SimHash { hasher, .. } => {
            let fps = Fingerprints::from_index(&opened_index, hasher, progress)?;
            opened_index.with_fingerprints(fps)
        }
    };
    Ok((
        Engine {
            index: std::sync::Arc::new(opened_index),
            method,
        },
        walk,
    ))
}
