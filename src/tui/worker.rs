//! Background work: every slow step (walking, indexing, hashing more functions,
//! banding, all-pairs similarity, and the views' own jobs: diffs, neighbours, clusters,
//! heatmaps, exports, the review's nearest documents) runs on its own thread and reports
//! back over one channel, so the UI thread never blocks on the engine or the disk.
//!
//! Each job has a kind; starting a job cancels the running job of the same kind (its
//! result would be stale anyway), and the UI ignores results of jobs it no longer
//! waits for. A panic in a job is caught and reported as [`Msg::Crashed`], which ends
//! the explorer with the terminal restored and a non-zero exit.

use super::recall::{self, AllPairs, FoundGroups, Recall};
use super::rows::{self, Capped};
use crate::output::order;
use simtui_engine::analysis::reband::Rebander;
use simtui_engine::error::Error;
use simtui_engine::index::{Index, Params};
use simtui_engine::progress::{Cancelled, Counted, Progress, Stage};
use simtui_engine::search::found::{Found, Search};
use simtui_engine::sketch::simhash::fingerprint::SimHasher;
use simtui_engine::sketch::simhash::fingerprints::Fingerprints;
use simtui_engine::source::{Corpus, WalkOptions};
use simtui_engine::storage::Budget;
use simtui_gen::{GenOptions, Text, generate};
use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Documents of the built-in demo corpus.
pub const DEMO_DOCS: usize = 2000;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Walking and indexing (the first load, or a rebuild for a new k).
    Index,
    /// Computing more hash functions.
    Extend,
    /// Computing SimHash fingerprints.
    Fingerprints,
    Band,
    AllPairs,
    Recall,
    /// A view's own job, by the name its view gives it ("Diff", "Heatmap").
    Task(&'static str),
}

impl fmt::Debug for Kind {
    /// The name the log and the threads go by ("Band job 3 started", `simtui-band`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Index => "Index",
            Kind::Extend => "Extend",
            Kind::Fingerprints => "Fingerprints",
            Kind::Band => "Band",
            Kind::AllPairs => "AllPairs",
            Kind::Recall => "Recall",
            Kind::Task(name) => name,
        })
    }
}

/// What a view's job runs, on a worker thread.
pub type TaskFn = Box<dyn FnOnce(&dyn Progress) -> Result<Reply, JobError> + Send>;

/// A view's own job: the view that asks for it says what to run (in its own file), and
/// reads the reply. The engine's jobs are [`Work`]'s other variants.
pub struct Task {
    /// The kind's name: one task of a name runs at a time.
    pub name: &'static str,
    pub run: TaskFn,
}

/// What a view's job sends back to the view.
pub struct Reply {
    value: Box<dyn Any + Send>,
    /// The log's line about it: a summary that " in N s" follows, or a whole line.
    log: Option<(String, bool)>,
}

impl Reply {
    /// A result whose log line is `summary`, then the time the job took.
    pub fn timed(value: impl Any + Send, summary: String) -> Reply {
        Reply {
            value: Box::new(value),
            log: Some((summary, true)),
        }
    }

    /// A result whose log line is `line` as it is.
    pub fn said(value: impl Any + Send, line: String) -> Reply {
        Reply {
            value: Box::new(value),
            log: Some((line, false)),
        }
    }

    /// A result the log does not mention.
    pub fn quiet(value: impl Any + Send) -> Reply {
        Reply {
            value: Box::new(value),
            log: None,
        }
    }

    /// The result, if it is a `T` (what the view's task returns).
    pub fn take<T: Any>(self) -> Option<T> {
        self.value.downcast().ok().map(|b| *b)
    }
}

/// A saved index for the first load. Only its header was checked before the terminal
/// was taken; the worker decodes it.
#[derive(Clone)]
pub struct StoreJob {
    pub file: PathBuf,
}

pub enum Work {
    /// Walk the roots (or generate the demo corpus), then index (or open the saved
    /// index and bring it up to date).
    Load {
        roots: Vec<PathBuf>,
        walk: WalkOptions,
        params: Params,
        store: Option<StoreJob>,
        /// The memory the index keeps within (`--memory`).
        budget: Budget,
    },
    Reindex {
        again: Again,
        params: Params,
        budget: Budget,
    },
    /// Signatures of another width, sketch or seed for an index (shingles shared).
    Extend {
        index: Arc<Index>,
        sketch: simtui_engine::sketch::minhash::SketchKind,
        seed: u64,
        perms: usize,
    },
    Band {
        index: Arc<Index>,
        /// What earlier band jobs computed, kept between them.
        rebander: Arc<Mutex<Rebander>>,
        bands: usize,
        rows: usize,
        /// SimHash instead of LSH: the fingerprints and the largest distance.
        simhash: Option<(Arc<Fingerprints>, u32)>,
        /// The documents' natural order (`output::order`), if an earlier band job of the
        /// index found it.
        natural: Option<Arc<Vec<u32>>>,
    },
    /// SimHash fingerprints of an index's groups (the texts are read again).
    Fingerprints {
        index: Arc<Index>,
        hasher: SimHasher,
    },
    /// The exact pairs with J ≥ floor.
    AllPairs {
        index: Arc<Index>,
        floor: f64,
    },
    /// Scores a banding's pairs against all pairs, as `simtui eval` does.
    Recall {
        index: Arc<Index>,
        all: Arc<AllPairs>,
        found: Arc<Found>,
        bands: usize,
        rows: usize,
    },
    Task(Task),
}

impl Work {
    pub fn kind(&self) -> Kind {
        match self {
            Work::Load { .. } | Work::Reindex { .. } => Kind::Index,
            Work::Extend { .. } => Kind::Extend,
            Work::Band { .. } => Kind::Band,
            Work::Fingerprints { .. } => Kind::Fingerprints,
            Work::AllPairs { .. } => Kind::AllPairs,
            Work::Recall { .. } => Kind::Recall,
            Work::Task(task) => Kind::Task(task.name),
        }
    }
}

pub struct Job {
    pub id: u64,
    pub work: Work,
}

/// What a re-index reads: the folders walked again, or the corpus in memory (the demo).
/// A walk of folders is not kept beside the index for it: that was a path and an id
/// a document more (about 45 MB at 200,000 files), and copying it into each build
/// held two of them while the first one was built.
#[derive(Clone)]
pub enum Again {
    Walk {
        roots: Vec<PathBuf>,
        walk: WalkOptions,
    },
    Memory(Arc<Corpus>),
}

impl Again {
    /// The corpus to index: walked now, or a copy of the one in memory (its texts
    /// shared).
    fn corpus(&self) -> Result<Corpus, JobError> {
        match self {
            Again::Walk { roots, walk } => {
                Corpus::walk(roots, walk).map_err(|e| JobError::Failed(e.to_string()))
            }
            Again::Memory(corpus) => Ok((**corpus).clone()),
        }
    }
}

pub enum Output {
    Indexed {
        /// Boxed: the other outputs are a fraction of an index's size.
        index: Box<Index>,
        /// What to read again to re-index (a first load).
        again: Option<Again>,
        took: Duration,
        /// What the user should know about the load (some records lacked `--id-field`).
        notice: Option<String>,
    },
    Extended(Index),
    Fingerprinted(Fingerprints),
    Banded {
        bands: usize,
        rows: usize,
        found: Found,
        /// The search by content the pairs were spelled from (the export streams them).
        search: Box<Search>,
        groups: FoundGroups,
        capped: Vec<Capped>,
        /// Each document's rank in the natural order of ids, which `found` is listed in.
        natural: Arc<Vec<u32>>,
    },
    AllPairs(Result<AllPairs, String>),
    Recall(Recall),
    Task(Reply),
}

impl Output {
    /// A line for the log about a finished job: what it found, and how long it took
    /// (`secs`, since it was asked for); none for a job the log does not mention.
    pub fn log_line(&self, secs: f64) -> Option<String> {
        let t = secs;
        Some(match self {
            Output::Indexed { index, took, .. } => format!(
                "indexed {} documents ({} skipped), k={}, {} hash functions in {:.3} s{}",
                index.docs().len(),
                index.skipped().len(),
                index.params().k,
                index.num_perm(),
                took.as_secs_f64(),
                over_memory(index).map_or(String::new(), |o| format!("; {o}"))
            ),
            Output::Extended(index) => format!(
                "{} {} signatures of {} values in {t:.3} s",
                index.signatures().len(),
                index.params().sketch.name(),
                index.num_perm()
            ),
            Output::Fingerprinted(fps) => format!(
                "{} SimHash fingerprints in {t:.3} s ({} stale)",
                fps.len(),
                fps.stale
            ),
            Output::Banded {
                bands, rows, found, ..
            } => format!(
                "banded b={bands} r={rows}: {} pairs from {} candidates in {t:.3} s",
                found.total_pairs(),
                found.candidates
            ),
            Output::AllPairs(Ok(all)) => format!(
                "exact pairs with J >= {:.2}: {} in {t:.3} s",
                all.floor,
                all.pairs.len()
            ),
            Output::AllPairs(Err(why)) => {
                format!("no exact all-pairs similarity: real recall {why}")
            }
            Output::Recall(_) => format!("recall measured in {t:.3} s"),
            Output::Task(reply) => match &reply.log {
                Some((summary, true)) => format!("{summary} in {t:.3} s"),
                Some((line, false)) => line.clone(),
                None => return None,
            },
        })
    }
}

/// What reaches the UI thread.
pub enum Msg {
    Input(ratatui::crossterm::event::Event),
    /// The terminal's input could not be read.
    InputFailed(String),
    /// SIGINT, SIGTERM or SIGHUP arrived (sent by `kill`, not typed: in raw mode Ctrl-C
    /// is a key). The event loop leaves, restoring the terminal.
    Signal,
    /// SIGTSTP arrived (`kill -TSTP`): suspend as a shell job would.
    Suspend,
    Progress {
        id: u64,
        stage: Stage,
        done: u64,
        total: u64,
    },
    /// A stage of job `id` counts in `counted` from now on (bytes, for reading files of
    /// many documents).
    Counting {
        id: u64,
        stage: Stage,
        counted: Counted,
    },
    Done {
        id: u64,
        out: Box<Output>,
    },
    Cancelled {
        id: u64,
    },
    /// A job failed in a way the user must see (e.g. the corpus vanished).
    Failed {
        id: u64,
        error: String,
        /// The user can fix it (a saved index that cannot be used): if it ends the
        /// explorer, it is a usage error (exit code 2), as it was when checked up front.
        usage: bool,
    },
    /// A job panicked.
    Crashed {
        what: String,
        message: String,
    },
}

/// Forwards engine progress to the UI, at most every 50 ms per stage (plus each stage's
/// end), and tells the engine when the job is cancelled.
pub struct Reporter {
    id: u64,
    tx: Sender<Msg>,
    cancel: Arc<AtomicBool>,
    last: Mutex<[Option<Instant>; 5]>,
}

const REPORT_EVERY: Duration = Duration::from_millis(50);

impl Reporter {
    pub fn new(id: u64, tx: Sender<Msg>, cancel: Arc<AtomicBool>) -> Reporter {
        Reporter {
            id,
            tx,
            cancel,
            last: Mutex::new([None; 5]),
        }
    }
}

impl Progress for Reporter {
    fn update(&self, stage: Stage, done: u64, total: u64) {
        let now = Instant::now();
        {
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            let slot = &mut last[stage as usize];
            if done < total && slot.is_some_and(|t| now.duration_since(t) < REPORT_EVERY) {
                return;
            }
            *slot = Some(now);
        }
        let _ = self.tx.send(Msg::Progress {
            id: self.id,
            stage,
            done,
            total,
        });
    }

    fn counting(&self, stage: Stage, counted: Counted) {
        let _ = self.tx.send(Msg::Counting {
            id: self.id,
            stage,
            counted,
        });
    }

    fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// A debugging hook for the tests of the panic path: `SIMTUI_DEBUG_PANIC=worker` makes
/// the first index job panic.
fn debug_panic(place: &str) {
    if std::env::var("SIMTUI_DEBUG_PANIC").is_ok_and(|v| v == place) {
        panic!("SIMTUI_DEBUG_PANIC={place}: a deliberate panic to test the crash path");
    }
}

/// Does one job. Pure apart from reading files: the tests call it directly.
pub fn execute(work: Work, progress: &dyn Progress) -> Result<Output, JobError> {
    Ok(match work {
        Work::Load {
            roots,
            walk,
            params,
            store: Some(store),
            budget,
        } if !roots.is_empty() => {
            debug_panic("worker");
            let t = Instant::now();
            let id_field = walk.input.id_field.clone();
            let req = simtui_engine::store::Request {
                file: store.file,
                roots,
                walk,
                params,
                mode: simtui_engine::store::Mode::Open,
                budget: budget.clone(),
                titles: true,
            };
            let again = Again::Walk {
                roots: req.roots.clone(),
                walk: req.walk.clone(),
            };
            let opened = simtui_engine::store::open_index(&req, progress)?;
            crate::output::diag::note(1, opened.report.summary(&req.file));
            if let Some(tail) = opened.report.tail_notice(&req.file) {
                crate::output::diag::note(0, tail);
            }
            if let Some(e) = &opened.report.write_error {
                crate::output::diag::note(
                    0,
                    format_args!("index {}: not updated: {e}", req.file.display()),
                );
            }
            let (report, index) = (&opened.report, &opened.index);
            if let Some(over) = crate::output::memory::records_over(report, index, &budget) {
                crate::output::diag::note(0, format_args!("warning: {over}"));
            }
            Output::Indexed {
                notice: id_field_notice(&opened.index, id_field.as_deref())?,
                // Its sets and signatures are read from the file; its searches keep
                // to the budget.
                index: Box::new(opened.index.with_budget(budget)),
                again: Some(again),
                took: t.elapsed(),
            }
        }
        Work::Load {
            roots,
            walk,
            params,
            budget,
            ..
        } => {
            debug_panic("worker");
            let t = Instant::now();
            let again = if roots.is_empty() {
                // Real English (Austen's sentences), so a first look reads as prose.
                let demo = generate(&GenOptions {
                    docs: DEMO_DOCS,
                    text: Text::English,
                    ..Default::default()
                });
                Again::Memory(Arc::new(demo.into_corpus()))
            } else {
                Again::Walk {
                    roots,
                    walk: walk.clone(),
                }
            };
            let corpus = again.corpus()?;
            simtui_engine::progress::check(progress)?;
            // The walk is over: reading starts now.
            progress.update(Stage::Read, 0, corpus.entries.len() as u64);
            let index = Index::builder(&params)
                .budget(&budget)
                .build(corpus, progress)?;
            Output::Indexed {
                notice: id_field_notice(&index, walk.input.id_field.as_deref())?,
                index: Box::new(index),
                again: Some(again),
                took: t.elapsed(),
            }
        }
        Work::Reindex {
            again,
            params,
            budget,
        } => {
            let t = Instant::now();
            let corpus = again.corpus()?;
            simtui_engine::progress::check(progress)?;
            let index = Index::builder(&params)
                .budget(&budget)
                .build(corpus, progress)?;
            Output::Indexed {
                index: Box::new(index),
                again: None,
                took: t.elapsed(),
                notice: None,
            }
        }
        // The original stays in use (on screen, banding) meanwhile: the new index shares
        // its shingle sets rather than copying them (a copy doubled the memory).
        Work::Extend {
            index,
            sketch,
            seed,
            perms,
        } => Output::Extended(index.sketched(sketch, seed, perms, progress)?),
        Work::Fingerprints { index, hasher } => {
            Output::Fingerprinted(Fingerprints::from_index(&index, hasher, progress)?)
        }
        Work::Band {
            index,
            rebander,
            bands,
            rows,
            simhash,
            natural,
        } => {
            // Many copies of a page stay one block, not n² pairs (see `rows`).
            let block = Some(rows::MAX_BLOCK);
            let (mut found, search) = match simhash {
                None => match rebander.lock() {
                    Ok(mut rebander) => rebander.find(&index, bands, rows, 0.0, block, progress)?,
                    // A band job panicked while holding it: band from scratch, with the
                    // same cap on buckets.
                    Err(poisoned) => {
                        let max_bucket = poisoned.get_ref().max_bucket();
                        let search = index.search(bands, rows, 0.0, max_bucket, progress)?;
                        (
                            index.spell_blocked(search.clone(), rows::MAX_BLOCK)?,
                            search,
                        )
                    }
                },
                Some((fps, d)) => {
                    let search = index.search_fingerprints(&fps, d, 0.0, progress)?;
                    (
                        index.spell_blocked(search.clone(), rows::MAX_BLOCK)?,
                        search,
                    )
                }
            };
            // Listed for people: ids in natural order, within each pair and among ties.
            let natural = natural.unwrap_or_else(|| Arc::new(order::natural_rank(&index)));
            order::order_found(&index, &natural, &mut found);
            let groups = recall::found_groups(&index, &found);
            let capped = rows::capped(&index, &found);
            Output::Banded {
                bands,
                rows,
                found,
                search: Box::new(search),
                groups,
                capped,
                natural,
            }
        }
        Work::AllPairs { index, floor } => {
            let job = || recall::all_pairs(&index, floor, progress);
            let all = match background_pool() {
                Some(pool) => pool.install(job),
                None => job(),
            };
            Output::AllPairs(all?)
        }
        Work::Recall {
            index,
            all,
            found,
            bands,
            rows,
        } => Output::Recall(Recall::new(&index, &all, &found, bands, rows)),
        Work::Task(task) => Output::Task((task.run)(progress)?),
    })
}

/// What the index holds past `--memory` (and a document read whole past it), when it
/// does, as the commands warn of it.
pub fn over_memory(index: &Index) -> Option<String> {
    let all = crate::output::memory::all_over(index, index.budget());
    all.into_iter().reduce(|a, b| format!("{a}; {b}"))
}

/// What `--id-field` found, as the commands check it: no record with the field ends the
/// explorer as a usage error; some without it is a notice for the status line.
fn id_field_notice(index: &Index, name: Option<&str>) -> Result<Option<String>, JobError> {
    crate::output::diag::id_field(index, name).map_err(|e| JobError::Usage(e.0))
}

/// Why a job ended without a result.
#[derive(Debug)]
pub enum JobError {
    Cancelled,
    Failed(String),
    /// A failure the user can fix (see [`Msg::Failed`]).
    Usage(String),
}

impl From<Cancelled> for JobError {
    fn from(_: Cancelled) -> Self {
        JobError::Cancelled
    }
}

impl From<Error> for JobError {
    /// A saved index that can't be read or used is the user's to fix.
    fn from(e: Error) -> Self {
        match e {
            Error::Cancelled => JobError::Cancelled,
            Error::IndexFile { .. } | Error::Io { .. } => JobError::Usage(e.to_string()),
            e => JobError::Failed(e.to_string()),
        }
    }
}

struct Running {
    cancel: Arc<AtomicBool>,
}

/// Starts jobs on threads and cancels superseded ones.
pub struct Workers {
    tx: Sender<Msg>,
    running: HashMap<Kind, Running>,
}

impl Workers {
    pub fn new(tx: Sender<Msg>) -> Workers {
        Workers {
            tx,
            running: HashMap::new(),
        }
    }

    pub fn cancel(&mut self, kind: Kind) {
        if let Some(r) = self.running.remove(&kind) {
            r.cancel.store(true, Ordering::Relaxed);
        }
    }

    pub fn cancel_all(&mut self) {
        for (_, r) in self.running.drain() {
            r.cancel.store(true, Ordering::Relaxed);
        }
    }

    pub fn spawn(&mut self, job: Job) -> std::io::Result<()> {
        let kind = job.work.kind();
        self.cancel(kind);
        let cancel = Arc::new(AtomicBool::new(false));
        self.running.insert(
            kind,
            Running {
                cancel: cancel.clone(),
            },
        );
        let tx = self.tx.clone();
        std::thread::Builder::new()
            .name(format!("simtui-{kind:?}").to_lowercase())
            .spawn(move || {
                let id = job.id;
                let reporter = Reporter::new(id, tx.clone(), cancel);
                // A panic must not vanish with its thread: the UI is told, ends, restores
                // the terminal and exits non-zero (the panic hook already printed it).
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    execute(job.work, &reporter)
                }));
                let msg = match result {
                    Ok(Ok(out)) => Msg::Done {
                        id,
                        out: Box::new(out),
                    },
                    Ok(Err(JobError::Cancelled)) => Msg::Cancelled { id },
                    Ok(Err(JobError::Failed(error))) => Msg::Failed {
                        id,
                        error,
                        usage: false,
                    },
                    Ok(Err(JobError::Usage(error))) => Msg::Failed {
                        id,
                        error,
                        usage: true,
                    },
                    Err(payload) => Msg::Crashed {
                        what: format!("{kind:?} job").to_lowercase(),
                        message: panic_message(&payload),
                    },
                };
                let _ = tx.send(msg);
            })?;
        Ok(())
    }
}

/// The pool the exact all-pairs job runs on, apart from rayon's global one. Sharing the
/// global pool, a band job started while the all-pairs job ran queued behind its long
/// tasks (a re-band took 222 ms instead of about 10 at 20,000 documents); on a pool of its
/// own, the system shares the cores between the two. None if no thread could be started
/// (the job then runs on the global pool, as before).
fn background_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("simtui-exact-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

pub fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}
