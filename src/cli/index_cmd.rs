//! `simtui index`: save an index to a file, and `--index FILE` for the commands that
//! search one (pairs, query, clusters, the explorer). doc/index-format.md describes the
//! file; `simtui::store` opens and updates it.

use super::args::{IndexArgs, MethodArgs, PathArgs};
use crate::output::error::UsageError;
use crate::output::error::store_error;
use clap::Args;
use simtui::corpus::Corpus;
use simtui::fingerprints::Fingerprints;
use simtui::method::{Engine, Method};
use simtui::progress::Progress;
use simtui::store::{self, Mode, Opened, Request};
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
    let t = Instant::now();
    let progress = crate::output::diag::StageLog::default();
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
    let index = &opened.index;
    let docs = index.docs.len();
    let r = &opened.report;
    let bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    let per_doc = if docs > 0 { bytes / docs as u64 } else { 0 };
    let what = if r.written { "written" } else { "up to date" };
    eprintln!(
        "simtui index: {} {what}: {docs} documents, {} skipped, {bytes} bytes ({per_doc} per document); \
         {} files unchanged, {} changed, {} added, {} deleted; {:.2} s",
        file.display(),
        index.skipped.len(),
        r.unchanged + r.touched,
        r.changed,
        r.added,
        r.deleted,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Opens a saved index, saying on stderr what the user should know.
fn open(req: Request, progress: &dyn Progress) -> anyhow::Result<Opened> {
    let opened = store::open(&req, progress).map_err(store_error)?;
    let r = &opened.report;
    if let Some(why) = &r.rebuilt {
        eprintln!("simtui: index {}: {why}; rebuilt", req.file.display());
    }
    if let Some(e) = &r.write_error {
        eprintln!("simtui: index {}: not updated: {e}", req.file.display());
    }
    crate::output::diag::note(1, r.summary(&req.file));
    for s in &opened.index.skipped {
        crate::output::diag::note(1, format_args!("skipped {s}"));
    }
    Ok(opened)
}

/// The engine for a command: from the saved index when there is one (`--index`, or
/// found in the folder), else built from the corpus. Returns the walk time too (with a
/// saved index: the time to open and update it). Skipped files are noted at `-v`.
pub fn engine(
    roots: &[PathBuf],
    store_args: &StoreArgs,
    index: &IndexArgs,
    method_args: &MethodArgs,
    progress: &dyn Progress,
) -> anyhow::Result<(Engine, Duration)> {
    let method = method_args.method(index)?;
    let t = Instant::now();
    let Some(file) = store_args.file(roots) else {
        let corpus =
            Corpus::walk(roots, &index.walk_options()).map_err(|e| UsageError(e.to_string()))?;
        let walk = t.elapsed();
        let engine = Engine::build(corpus, &method_args.params(index), method, progress)?;
        for s in &engine.index.skipped {
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
    let fingerprints = match method {
        Method::MinHash { .. } => None,
        // SimHash fingerprints are not saved: they are computed from the text.
        Method::SimHash { hasher, .. } => {
            Some(Fingerprints::from_index(&opened.index, hasher, progress)?)
        }
    };
    Ok((
        Engine {
            index: std::sync::Arc::new(opened.index),
            method,
            fingerprints,
        },
        walk,
    ))
}
