//! The explorer's command (`simtui [PATH]...`): its flags, and what it takes from the
//! config file and the global flags, resolved into the settings `tui::run` takes. The one
//! command that imports `tui`.

use super::args::{IndexArgs, MEMORY_HEADING, MemoryArgs, parse_size};
use super::corpus::StoreArgs;
use super::startup::Startup;
use crate::input::removals;
use crate::input::side_input;
use crate::output::colorspec::COLOR_ROLES;
use crate::output::diag::{self, Log};
use crate::output::error::UsageError;
use crate::output::keyspec::ACTIONS;
use crate::tui::{ExploreOptions, KeepList, Settings};
use crate::tui::{PairsFile, Review};
use clap::Args;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Flags of the explorer only (the root command).
#[derive(Args, Clone, Debug)]
pub struct ExplorerArgs {
    /// Don't capture the mouse: the terminal's own text selection works
    ///
    /// Keeps the terminal's text selection; the wheel no longer scrolls the views.
    #[arg(long, overrides_with = "mouse")]
    pub no_mouse: bool,
    /// Capture the mouse, even if the config file says `mouse = false`
    #[arg(long)]
    pub mouse: bool,
    /// Append the explorer's log to FILE (never to the terminal)
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// List a bucket of over N contents (1000) as one row, not its pairs
    ///
    /// A band's bucket of N contents holds N(N-1)/2 candidate pairs (many near-identical
    /// copies of one page): such a bucket is one row of the list, its documents listed on
    /// Enter, its pairs not compared. `simtui pairs --max-bucket N` leaves out the same.
    #[arg(long, value_name = "N", default_value_t = crate::tui::MAX_BUCKET as u64, hide_default_value = true, value_parser = clap::value_parser!(u64).range(2..))]
    pub max_bucket: u64,
    /// Review a removal list (simtui, datatrove, text-dedup) with its corpus
    ///
    /// Pages through each removed document beside the one kept in its place (Enter: side by
    /// side); x marks a removal wrong, and the ids marked are written to a keep-list
    /// (--keep-list, else OUT.keep-list beside the list) that `simtui dedup --keep-list`
    /// honours. Give the corpus and the flags the dedup run had, so that ids match. Also
    /// read: datatrove's folder of .remove files (with --datatrove-tasks) and its
    /// exclusion writer's JSON Lines, and text-dedup's output folder (its clusters.pickle,
    /// or data files with __INDEX__ and __CLUSTER__, Arrow or Parquet); where a list names
    /// no kept document, the most similar one is shown, marked `nearest`.
    #[arg(long, value_name = "FILE")]
    pub review: Option<PathBuf>,
    /// The number of tasks datatrove's reader ran with, for its .remove files
    ///
    /// Datatrove numbers a removed document by its task and its place among the documents
    /// that task read (task r of N reads the sorted files r, r+N, …); N is needed to find
    /// them in the corpus given.
    #[arg(long, value_name = "N", requires = "review", value_parser = clap::value_parser!(u32).range(1..))]
    pub datatrove_tasks: Option<u32>,
    /// Open pairs computed elsewhere (Parquet, JSON Lines, or folders of them)
    ///
    /// A pairs file as `simtui pairs --format parquet|jsonl` writes it (a, b, jaccard,
    /// estimate), or the Spark job's DIR/pairs folder, listed with the J it stores; the
    /// documents are read from the corpus given (Enter: the diff). Give the flags the
    /// pairs were computed with, so that ids match; an id the corpus lacks is said so.
    #[arg(long, value_name = "FILE", conflicts_with = "review")]
    pub pairs: Option<PathBuf>,
    /// The review's keep-list (default: beside the removal list)
    #[arg(long, value_name = "FILE", requires = "review")]
    pub keep_list: Option<PathBuf>,
    /// Memory to use, e.g. 2G; past it, the index spills to temporary files
    ///
    /// The shingle sets and signatures keep within it, as in `simtui pairs --memory`; what
    /// does not fit goes to temporary files, with the same pairs. A number of bytes, or
    /// with K, M, G or T (powers of 1024). [default: a quarter of the machine's memory]
    #[arg(help_heading = MEMORY_HEADING, long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<u64>,
    /// Folder for temporary files [default: the system's]
    ///
    /// Work past --memory goes there (files the system removes when simtui ends,
    /// however it ends), never into the corpus.
    #[arg(help_heading = MEMORY_HEADING, long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,
}

impl ExplorerArgs {
    /// `--memory` and `--tmp-dir` as the commands take them (the explorer draws no
    /// progress bars on stderr).
    fn memory(&self) -> MemoryArgs {
        MemoryArgs {
            memory: self.memory,
            tmp_dir: self.tmp_dir.clone(),
            quiet: true,
        }
    }
}

/// Starts the explorer on `roots` (none: the demo corpus).
pub fn run(
    roots: &[PathBuf],
    index: &IndexArgs,
    store: &StoreArgs,
    args: &ExplorerArgs,
    startup: &Startup,
) -> anyhow::Result<()> {
    index.check()?;
    let memory = args.memory();
    memory.check()?;
    // Before anything is opened (the log) or read: no file the explorer writes may be
    // one it reads, or lie in the corpus.
    let keep_list = args.review.as_deref().map(|list| {
        args.keep_list
            .clone()
            .unwrap_or_else(|| removals::default_keep_list(list))
    });
    let paths = (store.paths(roots))
        .input("--review", args.review.as_deref())
        .input("--pairs", args.pairs.as_deref())
        .output("--keep-list", keep_list.as_deref())
        .output("--log", args.log.as_deref());
    paths.check()?;
    let mut settings = settings(args, startup)?;
    // The starting s (the config's threshold, else 0.8) picks or checks the banding, as
    // -t does: the explorer at s finds what `pairs`, `clusters` and `dedup` find at -t s.
    // The list's title says so; the status line at start only for a configured s.
    let mut index = index.clone();
    let configured = settings.threshold.filter(|t| t.is_finite());
    let t = configured.unwrap_or(crate::tui::DEFAULT_S);
    let flag = match configured {
        Some(_) => format!("threshold {t} (config)"),
        None => format!("s = {t}"),
    };
    let note = super::banding::for_threshold(t, &flag, &mut index, startup.banding_given);
    settings.notice = note
        .filter(|n| configured.is_some() || matches!(n, super::banding::Note::Warning(_)))
        .map(|n| match n {
            super::banding::Note::Chosen(s) => s,
            super::banding::Note::Warning(s) => format!("warning: {s}"),
        });
    let index = &index;
    let review = match (args.review.as_deref(), keep_list) {
        (Some(list), Some(keep_list)) => Some(review(list, keep_list, args.datatrove_tasks)?),
        _ => None,
    };
    // A bad pairs file is a usage error before the terminal is touched.
    let pairs_file = match &args.pairs {
        Some(path) => Some(PairsFile {
            path: path.clone(),
            pairs: Arc::new(crate::input::pairs_file::read(path).map_err(UsageError)?),
        }),
        None => None,
    };
    let budget = memory.budget();
    crate::tui::run(ExploreOptions {
        roots: roots.to_vec(),
        walk: simtui_engine::source::WalkOptions {
            memory: budget.bytes,
            ..index.walk_options()
        },
        params: index.params(),
        bands: index.bands as usize,
        rows: index.rows as usize,
        index_file: store.file(roots),
        review,
        budget,
        pairs_file,
        settings,
        paths,
    })
}

/// Reads the removal list to review and the keep-list it marks (if there is one yet):
/// an unreadable or malformed list is a usage error before the terminal is touched, as
/// is a datatrove `.remove` folder without the number of tasks that numbers it.
fn review(list: &Path, keep_list: PathBuf, tasks: Option<u32>) -> Result<Review, UsageError> {
    let read = crate::input::foreign_removals::read(list).map_err(UsageError)?;
    let by_task = read.removed.iter().any(|x| {
        [&x.id, &x.kept]
            .iter()
            .any(|r| matches!(r, removals::DocRef::Task { .. }))
    });
    if by_task && tasks.is_none() {
        return Err(UsageError(format!(
            "{} is datatrove's .remove folder, which numbers documents by task: give \
             --datatrove-tasks N, the number of tasks its reader ran with",
            list.display()
        )));
    }
    // Not there yet: the review makes it. Else a regular file within a limit
    // (`--keep-list /dev/zero` is an error, not a read without end).
    let kept = match std::fs::symlink_metadata(&keep_list) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Default::default(),
        _ => {
            let limit = side_input::KEEP_LIST_LIMIT;
            let text = side_input::text(&keep_list, limit)
                .map_err(|why| UsageError(side_input::named("the keep-list", &keep_list, &why)))?;
            removals::keep_ids(&text)
        }
    };
    Ok(Review {
        list: list.to_path_buf(),
        format: read.format,
        removed: Arc::new(read.removed),
        tasks,
        keep_list: KeepList::new(keep_list),
        kept,
    })
}

/// Resolves the settings and opens the log. Errors (an unwritable log) come before the
/// terminal is touched, as usage errors.
fn settings(args: &ExplorerArgs, startup: &Startup) -> Result<Settings, UsageError> {
    let config = &startup.config;
    let mouse = if args.no_mouse {
        false
    } else {
        args.mouse || config.mouse.unwrap_or(true)
    };
    let log = match &args.log {
        Some(path) => Some(Arc::new(Log::open(path)?)),
        None => None,
    };
    match &log {
        Some(log) => diag::to_log(log.clone()),
        None => diag::discard(),
    }
    // Checked by the config parser already; asserted so the lists stay the contract.
    debug_assert!(config.colors.keys().all(|r| COLOR_ROLES.contains(r)));
    debug_assert!(config.keys.keys().all(|a| ACTIONS.contains(a)));
    Ok(Settings {
        color: startup.color.for_stdout(),
        mouse,
        log,
        verbose: startup.verbose,
        colors: config.colors.clone(),
        keys: config.keys.clone(),
        threshold: config.threshold(),
        notice: None,
        max_bucket: Some(args.max_bucket as usize),
    })
}
