//! `simtui index`: save an index to a file (`--index FILE`, in `corpus`, is how the
//! commands that search one open it). doc/index-format.md describes the file;
//! `simtui_engine::store` opens and updates it.

use super::args::{IndexArgs, PathArgs};
use crate::output::error::UsageError;
use crate::output::guard::Paths;
use clap::Args;
use simtui_engine::store::{self, Mode, Request};
use std::path::PathBuf;
use std::time::Instant;

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
    /// Append PATH's documents to the saved index FILE
    ///
    /// FILE, made by `simtui index`, keeps every document it has (its files are not
    /// looked at: they may be gone) and gains PATH's, indexed now; its shingle sets and
    /// signatures are copied as they are, so the time is that of the new documents and a
    /// copy of FILE. FILE must have been built with the same indexing flags (-k, --unit,
    /// --seed, --sketch, ...; the number of hash functions is FILE's); a file FILE holds
    /// already is refused (`simtui index PATH -o FILE` brings changed files up to date).
    #[arg(long, value_name = "FILE", conflicts_with = "output")]
    pub add: Option<PathBuf>,
    #[command(flatten)]
    pub memory: super::args::MemoryArgs,
}

pub fn run(args: &IndexCmdArgs) -> anyhow::Result<()> {
    let roots = &args.paths.paths;
    if let Some(file) = &args.add {
        return add(args, file);
    }
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
    let budget = progress.budget();
    let opened = super::corpus::open_store(
        Request {
            file: file.clone(),
            roots: roots.clone(),
            walk: args.index.walk_options(),
            params: args.index.params(),
            mode: Mode::Create,
            budget: budget.clone(),
            // It prints none: they are read from the file only if it is written again.
            titles: false,
        },
        &progress,
    )?;
    progress.finish();
    let index = &opened.index;
    super::corpus::say_if_over(index, budget);
    super::corpus::note_memory(index);
    crate::output::diag::note(
        2,
        format_args!("memory: {}", crate::output::progress::stats_line(budget)),
    );
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

/// `simtui index PATH... --add FILE`: PATH's documents added to FILE.
fn add(args: &IndexCmdArgs, file: &std::path::Path) -> anyhow::Result<()> {
    let roots = &args.paths.paths;
    args.index.check()?;
    Paths::new()
        .inputs("the input", roots)
        .index("--add", file)
        .check()?;
    let t = Instant::now();
    let progress = args.memory.run()?;
    let req = Request {
        file: file.to_path_buf(),
        roots: roots.clone(),
        walk: args.index.walk_options(),
        params: args.index.params(),
        mode: Mode::Create,
        budget: progress.budget().clone(),
        titles: true,
    };
    let added = store::add(&req, &progress).map_err(crate::output::error::store_error)?;
    progress.finish();
    if added.cut > 0 {
        crate::output::diag::say(format_args!(
            "simtui index: {}: cut off {} bytes an earlier `--add` left unfinished after its last complete segment",
            file.display(),
            added.cut
        ));
    }
    if added.converted {
        crate::output::diag::say(format_args!(
            "simtui index: {}: converted from index format 5 (written whole once; from now on --add writes only the new documents)",
            file.display()
        ));
    }
    crate::output::diag::say(format_args!(
        "simtui index: {}: {} documents added to {} ({} files, {} skipped{}): {} documents, {} bytes; {:.2} s",
        file.display(),
        added.added,
        added.before,
        added.files,
        added.skipped,
        match added.renamed {
            0 => String::new(),
            n => format!(", {n} renamed ID@FILE as their ids were taken"),
        },
        added.before + added.added,
        added.bytes,
        t.elapsed().as_secs_f64()
    ));
    Ok(())
}
