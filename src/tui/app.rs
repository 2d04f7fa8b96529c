//! The explorer's state and how it changes. `App::update` applies a user's action and
//! `App::handle` a worker's message; neither draws nor blocks. Work to be done on other
//! threads is queued as commands in `outbox`, which the event loop (or a test) carries out.

use super::diff::{self, DiffModel};
use super::keys::{Action, Context};
use super::options::Settings;
use super::progress::Board;
use super::recall::{self, AllPairs, FoundGroups, Recall};
use super::widgets::layout;
use super::widgets::theme::Theme;
use super::worker::{DiffDoc, Job, Kind, Msg, Output, Work};
use crate::output::diag::Log;
use simtui::corpus::{Corpus, WalkOptions};
use simtui::fingerprints::Fingerprints;
use simtui::index::{Found, Index, Pair, Params};
use simtui::progress::Stage;
use simtui::simhash::{SimHasher, Weight, default_max_distance};
use simtui::text::Unit;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Limits of the tuning keys.
pub const MAX_BANDS: usize = 1024;
pub const MAX_ROWS: usize = 64;
pub const MAX_K: usize = 64;
/// b·r above this needs as many hash functions per content: refuse, unless started so.
pub const MAX_PERMS: usize = 2048;
/// Signatures grow by at least this many functions at a time (fewer rehashes while
/// someone holds a key down).
const PERM_STEP: usize = 32;
/// The k a unit starts at when `u` first switches to it. Five words and nine characters
/// are the usual choices (Leskovec, Rajaraman and Ullman, *Mining of Massive Datasets*,
/// 3.2.3): both make shingles rare enough that sharing one means sharing text. Keeping the
/// word k for characters would match nearly everything (5 characters are under one word).
pub const WORD_K: usize = 5;
pub const CHAR_K: usize = 9;

/// Something for the event loop to do.
pub enum Cmd {
    Spawn(Box<Job>),
    Cancel(Kind),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    Jaccard,
    Estimate,
    Path,
}

impl Sort {
    pub fn name(self) -> &'static str {
        match self {
            Sort::Jaccard => "exact J",
            Sort::Estimate => "estimate",
            Sort::Path => "path",
        }
    }
    fn next(self) -> Sort {
        match self {
            Sort::Jaccard => Sort::Estimate,
            Sort::Estimate => Sort::Path,
            Sort::Path => Sort::Jaccard,
        }
    }
}

/// SimHash in the explorer: 64-bit fingerprints with idf weights (the headless default),
/// candidates at most `max_distance` bits apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimHashSetting {
    pub hasher: SimHasher,
    pub max_distance: u32,
}

impl SimHashSetting {
    pub fn new(seed: u64) -> SimHashSetting {
        let (bits, weight) = (64, Weight::Idf);
        SimHashSetting {
            hasher: SimHasher::new(bits, seed, weight),
            max_distance: default_max_distance(bits, weight),
        }
    }
}

/// SimHash results: the setting and the fingerprints the candidates came from.
pub type SimHashUsed = (SimHashSetting, Arc<Fingerprints>);

/// The pairs of one banding, with the index they refer to.
pub struct Results {
    pub index: Arc<Index>,
    /// Candidates from SimHash instead of LSH banding.
    pub simhash: Option<SimHashUsed>,
    pub found: Arc<Found>,
    pub groups: Arc<FoundGroups>,
    pub bands: usize,
    pub rows: usize,
    /// Generation of the index (bumped by each build; extending keeps it).
    pub generation: u64,
    /// Id of the band job (recall results are matched to it).
    pub id: u64,
}

pub struct ListState {
    /// Position in `visible`.
    pub selected: usize,
    /// First visible row.
    pub offset: usize,
    pub filter: String,
    /// Typing a filter.
    pub editing: bool,
    pub sort: Sort,
    /// Indices into `results.found.pairs`, filtered and sorted.
    pub visible: Vec<u32>,
}

pub struct TuningState {
    pub open: bool,
    /// The similarity s (in hundredths, so steps stay exact) where recall is shown.
    pub s_pct: u32,
    /// The banding before the last change, drawn dimmed.
    pub prev: Option<(usize, usize)>,
}

impl TuningState {
    pub fn s(&self) -> f64 {
        self.s_pct as f64 / 100.0
    }
}

/// The exact all-pairs similarity, when the corpus is small enough.
pub enum AllState {
    Computing {
        generation: u64,
        done: u64,
        total: u64,
    },
    Ready {
        generation: u64,
        all: Arc<AllPairs>,
    },
    Unavailable(String),
}

/// What the diff view shows about one document.
#[derive(Clone, Debug)]
pub struct DocInfo {
    pub id: String,
    pub bytes: u64,
    pub tokens: u64,
    pub shingles: usize,
}

pub struct DiffState {
    pub pair: Pair,
    pub a: DocInfo,
    pub b: DocInfo,
    /// The diff job being waited for.
    pub job: u64,
    pub model: Option<Result<Arc<DiffModel>, String>>,
    pub layout: diff::Layout,
    pub scroll: usize,
}

/// Counts of jobs started, so tests can tell re-banding from re-hashing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Jobs that compute MinHash signatures (builds and extensions).
    pub sketch_jobs: usize,
    pub band_jobs: usize,
    pub index_jobs: usize,
}

pub struct App {
    pub theme: Theme,
    pub mouse: bool,
    pub size: (u16, u16),
    /// The clock the views read (set by the event loop): rendering stays a pure function.
    pub now: Instant,
    /// What is being explored ("the demo corpus", or the paths).
    pub label: String,
    pub(super) roots: Vec<PathBuf>,
    walk: WalkOptions,
    /// The wanted parameters (k, text options) and banding.
    pub params: Params,
    /// The k of the unit not in use, taken back when `u` switches to it (so switching
    /// there and back returns to the same k).
    pub other_k: usize,
    pub bands: usize,
    pub rows: usize,
    max_perms: usize,
    pub corpus: Option<Arc<Corpus>>,
    /// The newest index, which banding uses.
    pub index: Option<Arc<Index>>,
    pub generation: u64,
    /// The pairs on screen.
    pub results: Option<Results>,
    /// The index a running band job works on, its generation and method.
    banding: Option<(Arc<Index>, u64, Option<SimHashUsed>)>,
    /// Bands and verified pairs remembered between band jobs (b and r keys).
    rebander: Arc<std::sync::Mutex<simtui::reband::Rebander>>,
    /// SimHash wanted instead of LSH (`m` switches).
    pub simhash: Option<SimHashSetting>,
    /// Fingerprints of the index of a generation, for SimHash.
    fingerprints: Option<(u64, Arc<Fingerprints>)>,
    /// The generation a running fingerprint job is for.
    fingerprinting: u64,
    /// Hash functions being computed, and for which generation.
    pub extending_to: Option<usize>,
    extend_generation: u64,
    pub all: Option<AllState>,
    /// Recall of the results (by band job id).
    pub recall: Option<(u64, Recall)>,
    /// The band job id a running recall job is for.
    recall_for: u64,
    pub progress: Board,
    jobs: HashMap<Kind, u64>,
    next_id: u64,
    pub outbox: Vec<Cmd>,
    pub list: ListState,
    pub tuning: TuningState,
    pub diff: Option<DiffState>,
    /// Views opened from the list (neighbours, clusters, members, heatmap), the top shown.
    pub stack: Vec<super::views::View>,
    /// The export file name being typed.
    pub prompt: Option<super::export::Prompt>,
    /// Help overlay open, with its scroll.
    pub help: Option<usize>,
    /// A short message for the user (a limit reached, an error), until the next key.
    pub status: Option<String>,
    pub quit: bool,
    /// A fatal error: the event loop ends with it.
    pub fatal: Option<String>,
    /// The fatal error is one the user can fix (exit code 2).
    pub fatal_usage: bool,
    pub counters: Counters,
    /// Time the first index took.
    pub indexed_in: Option<std::time::Duration>,
    /// `--log FILE`: what happens, for the user to read later (never the terminal).
    pub log: Option<Arc<Log>>,
    /// `-v` count: at 2 (`-vv`) the log also says when each job starts.
    pub verbose: u8,
    /// When each job started, and the stages already logged as finished (with a log).
    started: HashMap<u64, Instant>,
    stages_logged: HashSet<(u64, Stage)>,
    /// The saved index the first load opens, if any.
    pub store: Option<super::worker::StoreJob>,
}

impl App {
    pub fn new(
        roots: Vec<PathBuf>,
        walk: WalkOptions,
        params: Params,
        bands: usize,
        rows: usize,
        theme: Theme,
        size: (u16, u16),
    ) -> App {
        let now = Instant::now();
        let label = if roots.is_empty() {
            format!(
                "demo corpus ({} generated documents)",
                super::worker::DEMO_DOCS
            )
        } else {
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let bands = bands.max(1);
        let rows = rows.max(1);
        let mut params = params;
        params.num_perm = params.num_perm.max(bands * rows);
        App {
            theme,
            mouse: false,
            size,
            now,
            label,
            roots,
            walk,
            max_perms: MAX_PERMS.max(bands * rows),
            other_k: match params.text.unit {
                Unit::Word => CHAR_K,
                Unit::Char => WORD_K,
            },
            params,
            bands,
            rows,
            corpus: None,
            index: None,
            generation: 0,
            results: None,
            banding: None,
            rebander: Default::default(),
            simhash: None,
            fingerprints: None,
            fingerprinting: 0,
            extending_to: None,
            extend_generation: 0,
            all: None,
            recall: None,
            recall_for: 0,
            progress: Board::new(now),
            jobs: HashMap::new(),
            next_id: 1,
            outbox: Vec::new(),
            list: ListState {
                selected: 0,
                offset: 0,
                filter: String::new(),
                editing: false,
                sort: Sort::Jaccard,
                visible: Vec::new(),
            },
            tuning: TuningState {
                open: false,
                s_pct: 80,
                prev: None,
            },
            diff: None,
            stack: Vec::new(),
            prompt: None,
            help: None,
            status: None,
            quit: false,
            fatal: None,
            fatal_usage: false,
            counters: Counters::default(),
            indexed_in: None,
            log: None,
            verbose: 0,
            started: HashMap::new(),
            stages_logged: HashSet::new(),
            store: None,
        }
    }

    /// Takes what the explorer's settings say beyond the theme and the keys (which
    /// `tui::run` installs): mouse, log, and the tuning panel's starting similarity.
    pub fn configure(&mut self, settings: &Settings) {
        self.mouse = settings.mouse;
        self.log = settings.log.clone();
        self.verbose = settings.verbose;
        if let Some(t) = settings.threshold.filter(|t| t.is_finite()) {
            self.tuning.s_pct = (t.clamp(0.0, 1.0) * 100.0).round() as u32;
        }
    }

    /// Writes a line to the log, if there is one.
    pub fn log(&self, line: &str) {
        if let Some(log) = &self.log {
            log.write(line);
        }
    }

    /// The log's first lines: what is explored, and with what.
    pub fn log_start(&self) {
        if self.log.is_none() {
            return;
        }
        self.log(&format!("explorer: {}", self.label));
        let p = &self.params;
        self.log(&format!(
            "params: k={} bands={} rows={} hash functions={} seed={} sketch={:?} threshold s={:.2}",
            p.k,
            self.bands,
            self.rows,
            p.num_perm,
            p.seed,
            p.sketch,
            self.tuning.s()
        ));
    }

    /// Seconds since job `id` started, for the log.
    fn took(&self, id: u64) -> f64 {
        self.started
            .get(&id)
            .map_or(0.0, |t| t.elapsed().as_secs_f64())
    }

    pub fn is_demo(&self) -> bool {
        self.roots.is_empty()
    }

    /// Queues the first job: walk (or generate) and index.
    pub fn start(&mut self) {
        self.progress = Board::new(self.now);
        self.progress.walking = Some(self.now);
        self.progress.reset(&Stage::ALL, self.now);
        self.counters.index_jobs += 1;
        self.counters.sketch_jobs += 1;
        self.spawn(Work::Load {
            roots: self.roots.clone(),
            walk: self.walk.clone(),
            params: self.params.clone(),
            store: self.store.clone(),
        });
    }

    pub(super) fn spawn(&mut self, work: Work) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.jobs.insert(work.kind(), id);
        if self.log.is_some() {
            if self.verbose >= 2 {
                self.log(&format!("{:?} job {id} started", work.kind()));
            }
            self.started.insert(id, Instant::now());
        }
        self.outbox.push(Cmd::Spawn(Box::new(Job { id, work })));
        id
    }

    pub(super) fn cancel(&mut self, kind: Kind) {
        if self.jobs.remove(&kind).is_some() {
            self.outbox.push(Cmd::Cancel(kind));
        }
    }

    /// The job is running (and not superseded by another of its kind).
    pub(super) fn job_running(&self, id: u64) -> bool {
        self.jobs.values().any(|&j| j == id)
    }

    pub fn running(&self, kind: Kind) -> bool {
        self.jobs.contains_key(&kind)
    }

    /// Some job is running (the event loop then ticks to animate progress).
    pub fn busy(&self) -> bool {
        !self.jobs.is_empty()
    }

    /// The key table in force.
    pub fn context(&self) -> Context {
        if self.help.is_some() {
            Context::Help
        } else {
            self.view_context()
        }
    }

    /// The view's key table, under the help overlay if it is open.
    pub fn view_context(&self) -> Context {
        if self.diff.is_some() {
            Context::Diff
        } else if self.prompt.is_some() {
            Context::Prompt
        } else if let Some(view) = self.stack.last() {
            view.context()
        } else if self.results.is_none() {
            Context::Loading
        } else if self.list.editing {
            Context::Filter
        } else if self.tuning.open {
            Context::Tuning
        } else {
            Context::List
        }
    }

    /// The results are for other parameters than the wanted ones: anything that changes
    /// the shingles (k, and the text options: unit, case, stop words).
    pub fn stale(&self) -> bool {
        self.results.as_ref().is_some_and(|r| {
            r.index.params.k != self.params.k || r.index.params.text != self.params.text
        })
    }

    /// What a re-index is for, as the STALE marker and the progress line say it:
    /// "k=9 char".
    pub fn shingling(&self) -> String {
        format!("k={} {}", self.params.k, self.params.text.unit.name())
    }

    pub fn rebanding(&self) -> bool {
        self.results.as_ref().is_some_and(|r| {
            let method = r.simhash.as_ref().map(|s| s.0);
            method != self.simhash
                || (method.is_none() && (r.bands, r.rows) != (self.bands, self.rows))
        })
    }

    // ---------------------------------------------------------------------------------
    // Actions

    pub fn update(&mut self, action: Action) {
        if !matches!(action, Action::Resize(..)) {
            self.status = None;
        }
        match action {
            Action::Quit => {
                self.quit = true;
                for kind in self.jobs.keys().copied().collect::<Vec<_>>() {
                    self.cancel(kind);
                }
                return;
            }
            Action::ToggleHelp => {
                self.help = if self.help.is_some() { None } else { Some(0) };
                return;
            }
            Action::Resize(w, h) => {
                self.size = (w, h);
                self.keep_selection_visible();
                self.relayout_diff();
                return;
            }
            _ => {}
        }
        match self.context() {
            Context::Help => self.update_help(action),
            Context::Diff => self.update_diff(action),
            Context::Loading => {}
            Context::Filter => self.update_filter(action),
            Context::List | Context::Tuning => self.update_list(action),
            Context::Prompt => self.update_prompt(action),
            Context::Neighbours | Context::Clusters | Context::Members | Context::Heatmap => {
                self.update_view(action)
            }
        }
    }

    fn update_help(&mut self, action: Action) {
        let max = super::help::max_scroll(self);
        let Some(scroll) = self.help.as_mut() else {
            return;
        };
        match action {
            Action::Back => self.help = None,
            Action::Up | Action::WheelUp => *scroll = scroll.saturating_sub(1),
            Action::Down | Action::WheelDown => *scroll = (*scroll + 1).min(max),
            _ => {}
        }
    }

    fn update_filter(&mut self, action: Action) {
        match action {
            Action::FilterChar(c) => {
                self.list.filter.push(c);
                self.refresh_visible();
            }
            Action::FilterBackspace => {
                self.list.filter.pop();
                self.refresh_visible();
            }
            Action::FilterKeep => self.list.editing = false,
            Action::FilterClear => {
                self.list.editing = false;
                self.list.filter.clear();
                self.refresh_visible();
            }
            Action::Up | Action::Down => self.update_list(action),
            _ => {}
        }
    }

    fn page(&self) -> usize {
        let s = layout::screen(layout::area(self.size));
        let p = layout::pairs(s.body, self.tuning.open, self.filter_shown());
        layout::list_rows(p.list).max(1)
    }

    pub fn filter_shown(&self) -> bool {
        self.list.editing || !self.list.filter.is_empty()
    }

    fn select(&mut self, to: isize) {
        let n = self.list.visible.len();
        self.list.selected = if n == 0 {
            0
        } else {
            to.clamp(0, n as isize - 1) as usize
        };
        self.keep_selection_visible();
    }

    fn keep_selection_visible(&mut self) {
        let rows = self.page();
        let l = &mut self.list;
        if l.selected < l.offset {
            l.offset = l.selected;
        } else if l.selected >= l.offset + rows {
            l.offset = l.selected + 1 - rows;
        }
        // No empty space below the last pair when the list could fill the page.
        let max_offset = l.visible.len().saturating_sub(rows);
        l.offset = l.offset.min(max_offset);
    }

    fn update_list(&mut self, action: Action) {
        let sel = self.list.selected as isize;
        let page = self.page() as isize;
        match action {
            Action::Up => self.select(sel - 1),
            Action::Down => self.select(sel + 1),
            Action::WheelUp => self.select(sel - 3),
            Action::WheelDown => self.select(sel + 3),
            Action::PageUp => self.select(sel - page),
            Action::PageDown => self.select(sel + page),
            Action::Top => self.select(0),
            Action::Bottom => self.select(isize::MAX / 2),
            Action::Open => self.open_diff(),
            Action::Neighbours | Action::NeighboursOther => {
                if let (Some(p), Some(r)) = (self.selected_pair(), &self.results) {
                    let doc = if action == Action::Neighbours {
                        p.a
                    } else {
                        p.b
                    };
                    self.open_neighbours(r.index.clone(), doc);
                }
            }
            Action::Clusters => self.open_clusters(),
            Action::Export => self.start_export(),
            Action::SwitchMethod => self.switch_method(),
            Action::ToggleTuning
            | Action::BandsUp
            | Action::BandsDown
            | Action::RowsUp
            | Action::RowsDown
                if self.simhash.is_some() =>
            {
                self.status = Some("b, r and the S-curve are MinHash's: m switches back".into());
            }
            Action::StartFilter => self.list.editing = true,
            Action::Back if !self.list.filter.is_empty() => {
                self.list.filter.clear();
                self.refresh_visible();
            }
            Action::CycleSort => {
                self.list.sort = self.list.sort.next();
                self.refresh_visible();
            }
            Action::ToggleTuning => {
                self.tuning.open = !self.tuning.open;
                // The dimmed "before" curve compares with where this round of tuning began.
                self.tuning.prev = None;
                self.keep_selection_visible();
            }
            Action::BandsUp => self.set_banding(self.bands + 1, self.rows),
            Action::BandsDown => self.set_banding(self.bands.saturating_sub(1), self.rows),
            Action::RowsUp => self.set_banding(self.bands, self.rows + 1),
            Action::RowsDown => self.set_banding(self.bands, self.rows.saturating_sub(1)),
            Action::ShingleUp => self.set_k(self.params.k + 1),
            Action::ShingleDown => self.set_k(self.params.k.saturating_sub(1)),
            Action::ToggleUnit => self.toggle_unit(),
            Action::SimUp => self.tuning.s_pct = (self.tuning.s_pct + 5).min(100),
            Action::SimDown => self.tuning.s_pct = self.tuning.s_pct.saturating_sub(5),
            _ => {}
        }
    }

    // ---------------------------------------------------------------------------------
    // Tuning

    fn set_banding(&mut self, bands: usize, rows: usize) {
        if bands < 1 || rows < 1 {
            self.status = Some("b and r are at least 1".into());
            return;
        }
        if bands > MAX_BANDS || rows > MAX_ROWS || bands * rows > self.max_perms {
            self.status = Some(format!(
                "limit: b ≤ {MAX_BANDS}, r ≤ {MAX_ROWS}, b·r ≤ {}",
                self.max_perms
            ));
            return;
        }
        // Keep the first curve of this round of tuning as "before".
        if self.tuning.prev.is_none() {
            self.tuning.prev = Some((self.bands, self.rows));
        }
        self.bands = bands;
        self.rows = rows;
        self.log(&format!("re-band requested: bands={bands} rows={rows}"));
        self.request_band();
    }

    fn set_k(&mut self, k: usize) {
        if !(1..=MAX_K).contains(&k) {
            self.status = Some(format!("k is between 1 and {MAX_K}"));
            return;
        }
        self.reindex(k, self.params.text.unit);
    }

    /// `u`: word ↔ character shingles, each with its own k.
    fn toggle_unit(&mut self) {
        let unit = match self.params.text.unit {
            Unit::Word => Unit::Char,
            Unit::Char => Unit::Word,
        };
        let k = self.other_k;
        let was = self.params.k;
        if self.reindex(k, unit) {
            self.other_k = was;
            self.status = Some(format!("{} shingles, k={k}", unit.name()));
        }
    }

    /// Re-indexes the corpus with new shingles in the background. False before the first
    /// load has finished (there is no corpus to re-index yet).
    fn reindex(&mut self, k: usize, unit: Unit) -> bool {
        let Some(corpus) = self.corpus.clone() else {
            return false;
        };
        self.params.k = k;
        self.params.text.unit = unit;
        self.log(&format!("re-index requested: k={k} unit={}", unit.name()));
        self.params.num_perm = (self.bands * self.rows)
            .max(self.index.as_ref().map_or(0, |i| i.num_perm()))
            .next_multiple_of(PERM_STEP);
        // The old results stay on screen (marked stale) until the new index is banded.
        self.cancel(Kind::Extend);
        self.extending_to = None;
        self.cancel(Kind::AllPairs);
        self.progress.reset(&Stage::ALL, self.now);
        self.counters.index_jobs += 1;
        self.counters.sketch_jobs += 1;
        self.spawn(Work::Reindex {
            corpus,
            params: self.params.clone(),
        });
        true
    }

    /// Bands the newest index with the wanted (b, r), computing more hash functions
    /// first if b·r needs them. Banding reuses the stored signatures: nothing is re-hashed.
    fn request_band(&mut self) {
        let Some(index) = self.index.clone() else {
            return;
        };
        let need = self.bands * self.rows;
        if need > index.num_perm() {
            if self.extending_to.is_some_and(|p| p >= need) {
                return; // the running extension covers it
            }
            let perms = need.next_multiple_of(PERM_STEP);
            self.log(&format!(
                "computing more hash functions: {} -> {perms}",
                index.num_perm()
            ));
            self.extending_to = Some(perms);
            self.extend_generation = self.generation;
            self.cancel(Kind::Band);
            self.banding = None;
            self.progress.reset(&[Stage::Sketch], self.now);
            self.counters.sketch_jobs += 1;
            self.spawn(Work::Extend { index, perms });
            return;
        }
        let simhash = match self.simhash {
            None => None,
            Some(setting) => match &self.fingerprints {
                Some((generation, fps))
                    if *generation == self.generation && *fps.hasher() == setting.hasher =>
                {
                    Some((setting, fps.clone()))
                }
                _ => {
                    // Fingerprints first (the texts are read again), then the search.
                    self.cancel(Kind::Band);
                    self.banding = None;
                    self.progress.reset(&[Stage::Sketch], self.now);
                    self.fingerprints = None;
                    self.fingerprinting = self.generation;
                    self.spawn(Work::Fingerprints {
                        index,
                        hasher: setting.hasher,
                    });
                    return;
                }
            },
        };
        self.progress.reset(&[Stage::Band, Stage::Verify], self.now);
        self.banding = Some((index.clone(), self.generation, simhash.clone()));
        self.counters.band_jobs += 1;
        self.spawn(Work::Band {
            index,
            rebander: self.rebander.clone(),
            bands: self.bands,
            rows: self.rows,
            simhash: simhash.map(|(s, fps)| (fps, s.max_distance)),
        });
    }

    /// `m`: MinHash LSH ↔ SimHash.
    fn switch_method(&mut self) {
        self.simhash = match self.simhash {
            Some(_) => None,
            None => Some(SimHashSetting::new(self.params.seed)),
        };
        self.status = Some(match &self.simhash {
            Some(s) => format!(
                "SimHash: {} bits, {} weights, candidates ≤ {} bits apart",
                s.hasher.bits(),
                s.hasher.weight().name(),
                s.max_distance
            ),
            None => format!("MinHash LSH: b={} r={}", self.bands, self.rows),
        });
        self.request_band();
    }

    fn maybe_start_recall(&mut self) {
        let (Some(r), Some(AllState::Ready { generation, all })) = (&self.results, &self.all)
        else {
            return;
        };
        if r.generation != *generation || self.recall.as_ref().is_some_and(|(id, _)| *id == r.id) {
            return;
        }
        let work = Work::Recall {
            all: all.clone(),
            found: r.groups.clone(),
        };
        self.recall_for = r.id;
        self.spawn(work);
    }

    /// Real recall at the chosen s: (found, total), when known for the results on screen.
    pub fn real_recall(&self) -> Option<(usize, usize)> {
        let r = self.results.as_ref()?;
        let (id, rec) = self.recall.as_ref()?;
        let Some(AllState::Ready { generation, all }) = &self.all else {
            return None;
        };
        (*id == r.id && *generation == r.generation).then(|| rec.at(all, self.tuning.s()))
    }

    // ---------------------------------------------------------------------------------
    // The list

    /// Recomputes the visible pairs (filter, sort), keeping the selected pair selected
    /// when it is still there.
    pub fn refresh_visible(&mut self) {
        let keep = self.selected_ids();
        self.refresh_keeping(keep);
    }

    /// The ids of the selected pair: they survive a new banding or index, where the
    /// positions and document numbers do not.
    fn selected_ids(&self) -> Option<(String, String)> {
        let p = self.selected_pair()?;
        let docs = &self.results.as_ref()?.index.docs;
        Some((docs[p.a as usize].id.clone(), docs[p.b as usize].id.clone()))
    }

    fn refresh_keeping(&mut self, keep: Option<(String, String)>) {
        let Some(r) = &self.results else {
            self.list.visible.clear();
            return;
        };
        let (index, pairs) = (&r.index, &r.found.pairs);
        let f = &self.list.filter;
        let mut visible: Vec<u32> = if f.is_empty() {
            (0..pairs.len() as u32).collect()
        } else {
            // Smart case: a filter with capitals is case-sensitive.
            let sensitive = f.chars().any(char::is_uppercase);
            let needle = if sensitive {
                f.clone()
            } else {
                f.to_lowercase()
            };
            let hit: Vec<bool> = index
                .docs
                .iter()
                .map(|d| {
                    if sensitive {
                        d.id.contains(&needle)
                    } else {
                        d.id.to_lowercase().contains(&needle)
                    }
                })
                .collect();
            (0..pairs.len() as u32)
                .filter(|&i| {
                    let p = &pairs[i as usize];
                    hit[p.a as usize] || hit[p.b as usize]
                })
                .collect()
        };
        use rayon::slice::ParallelSliceMut;
        match self.list.sort {
            Sort::Jaccard => {} // the engine's order: J descending, then ids
            Sort::Estimate => visible.par_sort_by(|&x, &y| {
                pairs[y as usize]
                    .estimate
                    .total_cmp(&pairs[x as usize].estimate)
            }),
            Sort::Path => visible.par_sort_by(|&x, &y| {
                let (p, q) = (&pairs[x as usize], &pairs[y as usize]);
                let id = |d: u32| index.docs[d as usize].id.as_str();
                id(p.a).cmp(id(q.a)).then_with(|| id(p.b).cmp(id(q.b)))
            }),
        }
        self.list.visible = visible;
        if let Some((a, b)) = keep
            && let Some(pos) = self.list.visible.iter().position(|&i| {
                let p = &pairs[i as usize];
                index.docs[p.a as usize].id == a && index.docs[p.b as usize].id == b
            })
        {
            self.list.selected = pos;
        }
        let sel = self.list.selected as isize;
        self.select(sel);
    }

    pub fn selected_pair(&self) -> Option<Pair> {
        let r = self.results.as_ref()?;
        let i = *self.list.visible.get(self.list.selected)?;
        r.found.pairs.get(i as usize).copied()
    }

    // ---------------------------------------------------------------------------------
    // The diff

    fn open_diff(&mut self) {
        let (Some(pair), Some(r)) = (self.selected_pair(), &self.results) else {
            return;
        };
        self.open_diff_of(r.index.clone(), pair);
    }

    /// Opens the diff of a pair of documents of an index (the list's, or a view's).
    pub(super) fn open_diff_of(&mut self, index: Arc<Index>, pair: Pair) {
        let info = |d: u32| {
            let doc = &index.docs[d as usize];
            DocInfo {
                id: doc.id.clone(),
                bytes: doc.bytes,
                tokens: doc.tokens,
                shingles: index.shingles.get(doc.group as usize).len(),
            }
        };
        let dd = |d: u32| {
            let doc = &index.docs[d as usize];
            DiffDoc {
                id: doc.id.clone(),
                source: doc.source.clone(),
                bytes: doc.bytes,
            }
        };
        let work = Work::Diff {
            a: dd(pair.a),
            b: dd(pair.b),
            max_bytes: index.params.max_bytes,
        };
        let job = self.spawn(work);
        self.diff = Some(DiffState {
            pair,
            a: info(pair.a),
            b: info(pair.b),
            job,
            model: None,
            layout: diff::Layout::default(),
            scroll: 0,
        });
    }

    /// Width of one diff column (gutter included) for the terminal size.
    pub fn diff_column(&self) -> usize {
        let s = layout::screen(layout::area(self.size));
        layout::diff(s.body).left.width as usize
    }

    fn diff_page(&self) -> usize {
        let s = layout::screen(layout::area(self.size));
        (layout::diff(s.body).left.height as usize).max(1)
    }

    fn relayout_diff(&mut self) {
        let col = self.diff_column();
        let Some(d) = self.diff.as_mut() else { return };
        if let Some(Ok(model)) = &d.model
            && d.layout.column != col
        {
            // Keep the top row's line in view across a re-wrap.
            let top_line = d
                .layout
                .rows
                .get(d.scroll)
                .and_then(|r| r.left.as_ref().and_then(|s| s.line));
            d.layout = diff::layout(model, col);
            d.scroll = top_line
                .and_then(|l| {
                    d.layout
                        .rows
                        .iter()
                        .position(|r| r.left.as_ref().is_some_and(|s| s.line == Some(l)))
                })
                .unwrap_or(0);
        }
        let page = self.diff_page();
        if let Some(d) = self.diff.as_mut() {
            d.scroll = d.scroll.min(d.layout.rows.len().saturating_sub(page));
        }
    }

    fn update_diff(&mut self, action: Action) {
        let page = self.diff_page();
        let Some(d) = self.diff.as_mut() else { return };
        let max = d.layout.rows.len().saturating_sub(page);
        let scroll_to =
            |d: &mut DiffState, to: isize| d.scroll = to.clamp(0, max as isize) as usize;
        let s = d.scroll as isize;
        match action {
            Action::Up => scroll_to(d, s - 1),
            Action::Down => scroll_to(d, s + 1),
            Action::WheelUp => scroll_to(d, s - 3),
            Action::WheelDown => scroll_to(d, s + 3),
            Action::PageUp => scroll_to(d, s - page as isize + 1),
            Action::PageDown => scroll_to(d, s + page as isize - 1),
            Action::Top => scroll_to(d, 0),
            Action::Bottom => scroll_to(d, max as isize),
            Action::NextChange => {
                if let Some(&r) = d.layout.changes.iter().find(|&&r| r > d.scroll) {
                    scroll_to(d, r as isize);
                }
            }
            Action::PrevChange => {
                if let Some(&r) = d.layout.changes.iter().rev().find(|&&r| r < d.scroll) {
                    scroll_to(d, r as isize);
                }
            }
            Action::NextPair | Action::PrevPair => {
                let step = if action == Action::NextPair { 1 } else { -1 };
                if self.step_view_pair(step) {
                    return;
                }
                let to = self.list.selected as isize + step;
                if to < 0 || to as usize >= self.list.visible.len() {
                    self.status = Some(if step > 0 { "last pair" } else { "first pair" }.into());
                    return;
                }
                self.select(to);
                self.open_diff();
            }
            Action::Back => {
                self.diff = None;
                self.cancel(Kind::Diff);
            }
            _ => {}
        }
    }

    // ---------------------------------------------------------------------------------
    // Messages from workers

    fn kind_of(&self, id: u64) -> Option<Kind> {
        self.jobs.iter().find(|(_, j)| **j == id).map(|(k, _)| *k)
    }

    /// Applies a message. Returns false when nothing changed (an unbound key, a mouse
    /// move), so the event loop can skip a redraw.
    pub fn handle(&mut self, msg: Msg) -> bool {
        if self.log.is_none() {
            return self.handle_msg(msg);
        }
        let status = self.status.clone();
        let changed = self.handle_msg(msg);
        if let Some(e) = &self.fatal {
            self.log(&format!("error: {e}"));
        } else if self.status != status
            && let Some(s) = &self.status
        {
            self.log(&format!("shown: {s}"));
        }
        changed
    }

    fn handle_msg(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Input(ev) => match super::keys::map_event(self.context(), &ev, self.mouse) {
                Some(a) => self.update(a),
                None => return false,
            },
            Msg::InputFailed(e) => self.fatal = Some(format!("cannot read the terminal: {e}")),
            // The event loop acts on a signal before the app sees it.
            Msg::Signal => return false,
            Msg::Progress {
                id,
                stage,
                done,
                total,
            } => match self.kind_of(id) {
                Some(Kind::AllPairs) => {
                    if let Some(AllState::Computing {
                        done: d, total: t, ..
                    }) = &mut self.all
                    {
                        *d = done;
                        *t = total;
                    }
                }
                Some(Kind::Index | Kind::Extend | Kind::Fingerprints | Kind::Band) => {
                    if self.log.is_some() && done >= total && self.stages_logged.insert((id, stage))
                    {
                        self.log(&format!(
                            "{} done: {total} in {:.3} s",
                            stage.name(),
                            self.took(id)
                        ));
                    }
                    self.progress.update(stage, done, total, self.now)
                }
                _ => {}
            },
            Msg::Done { id, out } => {
                let Some(kind) = self.kind_of(id) else {
                    return false;
                }; // superseded
                self.jobs.remove(&kind);
                self.log_done(id, &out);
                self.started.remove(&id);
                self.done(id, *out);
            }
            Msg::Cancelled { id } => {
                self.started.remove(&id);
                if let Some(kind) = self.kind_of(id) {
                    self.jobs.remove(&kind);
                }
            }
            Msg::Failed { id, error, usage } => {
                let Some(kind) = self.kind_of(id) else {
                    return false;
                };
                self.jobs.remove(&kind);
                self.log(&format!("{kind:?} job failed after {:.3} s", self.took(id)));
                self.started.remove(&id);
                if kind == Kind::Index && self.results.is_none() {
                    self.fatal = Some(error);
                    self.fatal_usage = usage;
                } else {
                    self.status = Some(error);
                }
            }
            Msg::Crashed { what, message } => {
                self.fatal = Some(format!("internal error: the {what} panicked: {message}"));
            }
        }
        true
    }

    /// A line for the log about a finished job: what it found, and how long it took.
    fn log_done(&self, id: u64, out: &Output) {
        if self.log.is_none() {
            return;
        }
        let t = self.took(id);
        let line = match out {
            Output::Indexed { index, took, .. } => format!(
                "indexed {} documents ({} skipped), k={}, {} hash functions in {:.3} s",
                index.docs.len(),
                index.skipped.len(),
                index.params.k,
                index.num_perm(),
                took.as_secs_f64()
            ),
            Output::Extended(index) => {
                format!("{} hash functions computed in {t:.3} s", index.num_perm())
            }
            Output::Fingerprinted(fps) => format!(
                "{} SimHash fingerprints in {t:.3} s ({} stale)",
                fps.len(),
                fps.stale
            ),
            Output::Banded {
                bands, rows, found, ..
            } => format!(
                "banded b={bands} r={rows}: {} pairs from {} candidates in {t:.3} s",
                found.pairs.len(),
                found.candidates
            ),
            Output::AllPairs(Ok(_)) => format!("exact all-pairs similarity in {t:.3} s"),
            Output::AllPairs(Err(why)) => format!("no exact all-pairs similarity: {why}"),
            Output::Recall(_) => format!("recall measured in {t:.3} s"),
            Output::Neighbours(a) => format!(
                "{} neighbours from {} candidates in {t:.3} s",
                a.neighbours.len(),
                a.candidates
            ),
            Output::Clusters(c) => format!("{} clusters in {t:.3} s", c.len()),
            Output::Heatmap(m) => format!("{0}×{0} heatmap in {t:.3} s", m.n),
            Output::Diff(res) => match &res.model {
                Ok(_) => format!("diff in {t:.3} s"),
                Err(e) => format!("diff failed: {e}"),
            },
        };
        self.log(&line);
    }

    fn done(&mut self, id: u64, out: Output) {
        match out {
            Output::Indexed {
                index,
                corpus,
                took,
            } => {
                if std::env::var("SIMTUI_DEBUG_PANIC").is_ok_and(|v| v == "ui") {
                    panic!("SIMTUI_DEBUG_PANIC=ui: a deliberate panic to test the crash path");
                }
                if let Some(c) = corpus {
                    self.corpus = Some(c);
                }
                self.indexed_in.get_or_insert(took);
                self.generation += 1;
                let index = Arc::new(index);
                self.index = Some(index.clone());
                self.extending_to = None;
                self.all = None;
                self.recall = None;
                if index.docs.len() <= recall::MAX_DOCS {
                    self.all = Some(AllState::Computing {
                        generation: self.generation,
                        done: 0,
                        total: 0,
                    });
                    self.spawn(Work::AllPairs { index });
                } else {
                    self.all = Some(AllState::Unavailable(format!(
                        "over {} documents",
                        super::widgets::fmt::count(recall::MAX_DOCS as u64)
                    )));
                }
                self.request_band();
            }
            Output::Fingerprinted(fps) => {
                if self.fingerprinting == self.generation {
                    self.fingerprints = Some((self.generation, Arc::new(fps)));
                    self.request_band();
                }
            }
            Output::Extended(index) => {
                self.extending_to = None;
                if self.extend_generation == self.generation {
                    self.index = Some(Arc::new(index));
                    self.request_band();
                }
            }
            Output::Banded {
                bands,
                rows,
                found,
                groups,
            } => {
                let Some((index, generation, simhash)) = self.banding.take() else {
                    return;
                };
                let keep = self.selected_ids();
                self.results = Some(Results {
                    index,
                    simhash,
                    found: Arc::new(found),
                    groups: Arc::new(groups),
                    bands,
                    rows,
                    generation,
                    id,
                });
                let t = std::time::Instant::now();
                self.refresh_keeping(keep);
                self.log(&format!(
                    "list refreshed in {:.1} ms",
                    t.elapsed().as_secs_f64() * 1e3
                ));
                self.maybe_start_recall();
            }
            Output::AllPairs(res) => {
                let generation = match &self.all {
                    Some(AllState::Computing { generation, .. }) => *generation,
                    _ => return,
                };
                self.all = Some(match res {
                    Ok(all) => AllState::Ready {
                        generation,
                        all: Arc::new(all),
                    },
                    Err(why) => AllState::Unavailable(why),
                });
                self.maybe_start_recall();
            }
            Output::Recall(rec) => self.recall = Some((self.recall_for, rec)),
            out @ (Output::Neighbours(_) | Output::Clusters(_) | Output::Heatmap(_)) => {
                self.view_done(id, out);
            }
            Output::Diff(res) => {
                let col = self.diff_column();
                let Some(d) = self.diff.as_mut().filter(|d| d.job == id) else {
                    return;
                };
                match res.model {
                    Ok(model) => {
                        d.layout = diff::layout(&model, col);
                        d.model = Some(Ok(Arc::new(model)));
                    }
                    Err(e) => d.model = Some(Err(e)),
                }
                d.scroll = 0;
            }
        }
    }

    /// Drains the queued commands.
    pub fn take_outbox(&mut self) -> Vec<Cmd> {
        std::mem::take(&mut self.outbox)
    }
}
