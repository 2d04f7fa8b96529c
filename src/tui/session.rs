//! What is explored and what the engine made of it: the corpus, the newest index, the
//! pairs on screen and the parameters wanted for the next ones (k, b, r, the method), the
//! exact all-pairs similarity and real recall, and the progress of the work under way.
//!
//! Every view reads it; only its own methods change it, each queueing the jobs it needs
//! (re-band, re-index, sketch the signatures of another width or sketch) and applying their results (`done`).

use super::jobs::Jobs;
use super::log::Logger;
use super::progress::Board;
use super::recall::{self, AllPairs, FoundGroups, Recall};
use super::rows::{self, Capped};
use super::worker::{Again, Kind, Output, StoreJob, Work};
use crate::output::guard::Paths;
use simtui_engine::analysis::eval::Score;
use simtui_engine::analysis::reband::Rebander;
use simtui_engine::index::{Index, Params};
use simtui_engine::progress::{Counted, Stage};
use simtui_engine::search::found::{Found, Search};
use simtui_engine::sketch::minhash::SketchKind;
use simtui_engine::sketch::simhash::fingerprint::{SimHasher, Weight, default_max_distance};
use simtui_engine::sketch::simhash::fingerprints::Fingerprints;
use simtui_engine::source::WalkOptions;
use simtui_engine::storage::Budget;
use simtui_engine::text::Unit;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Limits of the tuning keys.
pub const MAX_BANDS: usize = 1024;
pub const MAX_ROWS: usize = 64;
pub const MAX_K: usize = 64;
/// b·r above this needs as many hash functions per content: refuse, unless started so.
pub const MAX_PERMS: usize = 2048;
/// Signatures of other widths or sketches kept for going back (b then B), at most this
/// many and this much memory: going back then re-bands at once instead of sketching.
const SPARES: usize = 2;
const SPARE_BYTES: usize = 512 << 20;
/// What a spare index holds of its own: its signatures in memory, and under `--memory`
/// its documents and tables too (a re-sketched index has a copy of them; only the
/// shingle sets are shared).
fn spare_bytes(index: &Index, budget: &Budget) -> u64 {
    if budget.is_limited() {
        index
            .held()
            .saturating_sub(index.shingles().heap_bytes() as u64)
    } else {
        index.signatures().heap_bytes() as u64
    }
}

/// The k a unit starts at when `u` first switches to it. Five words and nine characters
/// are the usual choices (Leskovec, Rajaraman and Ullman, *Mining of Massive Datasets*,
/// 3.2.3): both make shingles rare enough that sharing one means sharing text. Keeping the
/// word k for characters would match nearly everything (5 characters are under one word).
pub const WORD_K: usize = 5;
pub const CHAR_K: usize = 9;

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
    /// What `found` was spelled from, by content: the export streams every pair from it.
    pub search: Arc<Search>,
    /// Buckets too big to compare, listed as rows.
    pub capped: Arc<Vec<Capped>>,
    pub groups: Arc<FoundGroups>,
    pub bands: usize,
    pub rows: usize,
    /// Generation of the index (bumped by each build; extending keeps it).
    pub generation: u64,
    /// Each document's rank in the natural order of ids (numbers as numbers): `found` is
    /// listed in it, and the list sorts and exports by it.
    pub natural: Arc<Vec<u32>>,
    /// Id of the band job (recall results are matched to it).
    pub id: u64,
}

/// The exact pairs with J ≥ a floor, for real recall.
pub enum AllState {
    Computing {
        generation: u64,
        /// The similarity the pairs are computed down to.
        floor: f64,
        done: u64,
        total: u64,
    },
    Ready {
        generation: u64,
        all: Arc<AllPairs>,
    },
    Unavailable(String),
}

/// Counts of jobs started, so tests can tell re-banding from re-hashing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Jobs that compute MinHash signatures (builds and extensions).
    pub sketch_jobs: usize,
    pub band_jobs: usize,
    pub index_jobs: usize,
}

/// New pairs replaced those on screen (`old`, none the first time).
pub struct Replaced {
    pub old: Option<Results>,
}

pub struct Session {
    /// What is being explored ("the demo corpus", or the paths).
    label: String,
    roots: Vec<PathBuf>,
    /// The run's inputs and outputs, which the export may not write over or into.
    paths: Paths,
    walk: WalkOptions,
    /// The saved index the first load opens, if any.
    store: Option<StoreJob>,
    /// The wanted parameters (k, text options) and banding.
    params: Params,
    /// The k of the unit not in use, taken back when `u` switches to it (so switching
    /// there and back returns to the same k).
    other_k: usize,
    bands: usize,
    rows: usize,
    max_perms: usize,
    /// What a re-index reads, once the first load is done.
    again: Option<Again>,
    /// The newest index, which banding uses: its signatures are those of the wanted
    /// sketch at width b·r once they are computed (see `request_band`).
    index: Option<Arc<Index>>,
    /// Indexes of the same generation with signatures of other widths or sketches,
    /// newest first (see [`SPARES`]).
    spare: Vec<Arc<Index>>,
    generation: u64,
    /// The pairs on screen.
    results: Option<Results>,
    /// The index a running band job works on, its generation and method.
    banding: Option<(Arc<Index>, u64, Option<SimHashUsed>)>,
    /// The documents' natural order, found by the first band job of a generation.
    natural: Option<(u64, Arc<Vec<u32>>)>,
    /// Bands and verified pairs remembered between band jobs (b and r keys).
    rebander: Arc<Mutex<Rebander>>,
    /// The memory indexes keep within.
    budget: Budget,
    /// SimHash wanted instead of LSH (`m` switches).
    simhash: Option<SimHashSetting>,
    /// Fingerprints of the index of a generation, for SimHash.
    fingerprints: Option<(u64, Arc<Fingerprints>)>,
    /// The generation a running fingerprint job is for.
    fingerprinting: u64,
    /// The signatures being computed (sketch, width), and for which generation.
    sketching: Option<(SketchKind, usize)>,
    sketch_generation: u64,
    all: Option<AllState>,
    /// The similarity the exact pairs are wanted down to (lowered as s is).
    exact_floor: f64,
    /// Recall of the results (by band job id).
    recall: Option<(u64, Recall)>,
    /// The band job id a running recall job is for.
    recall_for: u64,
    progress: Board,
    counters: Counters,
    /// The clock (set by the event loop): progress and the views read it, so that
    /// rendering stays a pure function.
    now: Instant,
    log: Logger,
}

/// What the explorer opens: its folders (none: the demo corpus), how they are walked and
/// indexed, and the banding it starts at.
#[derive(Clone, Debug)]
pub struct Opening {
    pub roots: Vec<PathBuf>,
    pub walk: WalkOptions,
    pub params: Params,
    pub bands: usize,
    pub rows: usize,
}

impl Session {
    pub fn new(open: Opening, log: Logger) -> Session {
        let Opening {
            roots,
            walk,
            params,
            bands,
            rows,
        } = open;
        let now = Instant::now();
        let label = if roots.is_empty() {
            format!(
                "demo corpus ({} documents of Austen's sentences)",
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
        // Exactly b·r, as `simtui pairs -b B -r R` computes: an OPH signature's first
        // b·r bins of a wider one are another sketch.
        params.num_perm = bands * rows;
        Session {
            label,
            paths: Paths::default().inputs("the input", &roots),
            roots,
            walk,
            store: None,
            max_perms: MAX_PERMS.max(bands * rows),
            other_k: match params.text.unit {
                Unit::Word => CHAR_K,
                Unit::Char => WORD_K,
            },
            params,
            bands,
            rows,
            again: None,
            index: None,
            spare: Vec::new(),
            generation: 0,
            results: None,
            banding: None,
            natural: None,
            budget: Budget::unlimited(),
            rebander: Arc::new(Mutex::new(Rebander::with_max_bucket(Some(
                rows::MAX_BUCKET,
            )))),
            simhash: None,
            fingerprints: None,
            fingerprinting: 0,
            sketching: None,
            sketch_generation: 0,
            all: None,
            exact_floor: recall::DEFAULT_FLOOR,
            recall: None,
            recall_for: 0,
            progress: Board::new(now),
            counters: Counters::default(),
            now,
            log,
        }
    }

    // ---------------------------------------------------------------------------------
    // What the views read

    pub fn label(&self) -> &str {
        &self.label
    }

    /// The run's inputs and outputs (see [`Session::set_paths`]).
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    pub fn is_demo(&self) -> bool {
        self.roots.is_empty()
    }

    pub fn store(&self) -> Option<&StoreJob> {
        self.store.as_ref()
    }

    pub fn now(&self) -> Instant {
        self.now
    }

    /// The wanted parameters (the results may be for others: [`Session::stale`]).
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The wanted banding (b, r).
    pub fn banding(&self) -> (usize, usize) {
        (self.bands, self.rows)
    }

    /// SimHash wanted instead of LSH banding.
    pub fn simhash(&self) -> Option<&SimHashSetting> {
        self.simhash.as_ref()
    }

    pub fn index(&self) -> Option<&Arc<Index>> {
        self.index.as_ref()
    }

    pub fn results(&self) -> Option<&Results> {
        self.results.as_ref()
    }

    pub fn all(&self) -> Option<&AllState> {
        self.all.as_ref()
    }

    pub fn progress(&self) -> &Board {
        &self.progress
    }

    #[cfg(test)]
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The results are for other parameters than the wanted ones: anything that changes
    /// the shingles (k, and the text options: unit, case, stop words).
    pub fn stale(&self) -> bool {
        self.results.as_ref().is_some_and(|r| {
            r.index.params().k != self.params.k || r.index.params().text != self.params.text
        })
    }

    /// What a re-index is for, as the STALE marker and the progress line say it:
    /// "k=9 char".
    pub fn shingling(&self) -> String {
        format!("k={} {}", self.params.k, self.params.text.unit.name())
    }

    /// The results on screen are for another banding, method or sketch than the wanted
    /// ones (the new ones are being computed).
    pub fn rebanding(&self) -> bool {
        self.results.as_ref().is_some_and(|r| {
            let method = r.simhash.as_ref().map(|s| s.0);
            let signatures = (r.index.params().sketch, r.index.params().seed);
            method != self.simhash
                || (method.is_none()
                    && ((r.bands, r.rows) != (self.bands, self.rows)
                        || signatures != (self.params.sketch, self.params.seed)))
        })
    }

    /// The results on screen scored against all pairs at similarity `s`, as `simtui
    /// eval` scores them (document pairs; real and S-curve recall), when known.
    pub fn real_recall(&self, s: f64) -> Option<&Score> {
        let r = self.results.as_ref()?;
        let (id, rec) = self.recall.as_ref()?;
        let Some(AllState::Ready { generation, .. }) = &self.all else {
            return None;
        };
        (*id == r.id && *generation == r.generation)
            .then(|| rec.at(s))
            .flatten()
    }

    /// One line about background work after the first load (for the title bar), if any.
    pub fn summary(&self, jobs: &Jobs) -> Option<String> {
        let pct = |stage: Stage| {
            let s = self.progress.get(stage);
            (s.done * 100).checked_div(s.total).unwrap_or(0).min(100)
        };
        // The first stage of the job not finished yet (read and shingle alternate by
        // chunk, so "the latest started" would flicker between them).
        let active = |stages: &[Stage]| {
            stages
                .iter()
                .copied()
                .find(|&s| !self.progress.get(s).finished())
                .unwrap_or(stages[stages.len() - 1])
        };
        if jobs.running(Kind::Index) && self.results.is_some() {
            let s = active(&[Stage::Read, Stage::Shingle, Stage::Sketch]);
            return Some(format!(
                "re-indexing {}: {} {}%",
                self.shingling(),
                s.name(),
                pct(s)
            ));
        }
        if jobs.running(Kind::Extend) {
            let (sketch, n) = self.sketching.unwrap_or((self.params.sketch, 0));
            return Some(format!(
                "sketching {n} {}: {}%",
                sketch.name(),
                pct(Stage::Sketch)
            ));
        }
        if jobs.running(Kind::Band) && self.results.is_some() {
            let s = active(&[Stage::Band, Stage::Verify]);
            return Some(format!("re-banding: {} {}%", s.name(), pct(s)));
        }
        None
    }

    // ---------------------------------------------------------------------------------
    // Changes

    pub fn set_log(&mut self, log: Logger) {
        self.log = log;
    }

    /// The run's inputs and outputs as the command line gave them (the roots, the list
    /// reviewed, the keep-list, the log...): by default, the roots alone.
    pub fn set_paths(&mut self, paths: Paths) {
        self.paths = paths;
    }

    /// The memory indexes keep within (`--memory`): past it they spill to temporary
    /// files, with the same results. Set before the first load.
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
    }

    /// Buckets of more than `max` contents are listed as rows, their pairs not compared
    /// (none: every bucket's pairs are). Set before the first banding.
    pub fn set_max_bucket(&mut self, max: Option<usize>) {
        self.rebander = Arc::new(Mutex::new(Rebander::with_max_bucket(max)));
    }

    pub fn set_now(&mut self, now: Instant) {
        self.now = now;
    }

    pub fn set_store(&mut self, store: Option<StoreJob>) {
        self.store = store;
    }

    /// The field (or SGML attribute) records' ids are read from (`--id-field`), if any.
    pub fn id_field(&self) -> Option<&str> {
        self.walk.input.id_field.as_deref()
    }

    /// The metadata fields read with each document (`--meta-field`), in the order of
    /// each document's values.
    pub fn meta_fields(&self) -> &[String] {
        &self.walk.input.meta_fields
    }

    /// Queues the first job: walk (or generate) and index.
    pub fn start(&mut self, jobs: &mut Jobs) {
        self.progress = Board::new(self.now);
        self.progress.walking = Some(self.now);
        self.progress.reset(&Stage::ALL, self.now);
        self.counters.index_jobs += 1;
        self.counters.sketch_jobs += 1;
        jobs.spawn(Work::Load {
            roots: self.roots.clone(),
            walk: self.walk.clone(),
            params: self.params.clone(),
            store: self.store.clone(),
            budget: self.budget.clone(),
        });
    }

    /// Re-bands with b bands of r rows, or says why not (a limit).
    pub fn set_banding(
        &mut self,
        bands: usize,
        rows: usize,
        jobs: &mut Jobs,
    ) -> Result<(), String> {
        if bands < 1 || rows < 1 {
            return Err("b and r are at least 1".into());
        }
        if bands > MAX_BANDS || rows > MAX_ROWS || bands * rows > self.max_perms {
            return Err(format!(
                "limit: b ≤ {MAX_BANDS}, r ≤ {MAX_ROWS}, b·r ≤ {}",
                self.max_perms
            ));
        }
        self.bands = bands;
        self.rows = rows;
        self.log
            .write(&format!("re-band requested: bands={bands} rows={rows}"));
        self.request_band(jobs);
        Ok(())
    }

    /// Re-indexes with shingles of k tokens, or says why not (a limit).
    pub fn set_k(&mut self, k: usize, jobs: &mut Jobs) -> Result<(), String> {
        if !(1..=MAX_K).contains(&k) {
            return Err(format!("k is between 1 and {MAX_K}"));
        }
        self.reindex(k, self.params.text.unit, jobs);
        Ok(())
    }

    /// `u`: word ↔ character shingles, each with its own k. What to tell the user, once
    /// the re-index is under way.
    pub fn toggle_unit(&mut self, jobs: &mut Jobs) -> Option<String> {
        let unit = match self.params.text.unit {
            Unit::Word => Unit::Char,
            Unit::Char => Unit::Word,
        };
        let k = self.other_k;
        let was = self.params.k;
        if !self.reindex(k, unit, jobs) {
            return None;
        }
        self.other_k = was;
        Some(format!("{} shingles, k={k}", unit.name()))
    }

    /// `m`: MinHash LSH ↔ SimHash. What to tell the user.
    pub fn switch_method(&mut self, jobs: &mut Jobs) -> String {
        self.simhash = match self.simhash {
            Some(_) => None,
            None => Some(SimHashSetting::new(self.params.seed)),
        };
        let status = match &self.simhash {
            Some(s) => format!(
                "SimHash: {} bits, {} weights, candidates ≤ {} bits apart",
                s.hasher.bits(),
                s.hasher.weight().name(),
                s.max_distance
            ),
            None => format!("MinHash LSH: b={} r={}", self.bands, self.rows),
        };
        self.request_band(jobs);
        status
    }

    /// `o`: one-permutation hashing ↔ classic MinHash (signatures computed in the
    /// background, the list meanwhile marked as re-banding). What to tell the user.
    pub fn switch_sketch(&mut self, jobs: &mut Jobs) -> String {
        self.params.sketch = match self.params.sketch {
            SketchKind::Oph => SketchKind::MinHash,
            SketchKind::MinHash => SketchKind::Oph,
        };
        self.log
            .write(&format!("sketch requested: {}", self.params.sketch.name()));
        self.request_band(jobs);
        format!(
            "sketch: {} ({})",
            self.params.sketch.name(),
            match self.params.sketch {
                SketchKind::Oph => "one-permutation hashing, one hash per shingle",
                SketchKind::MinHash => "classic MinHash, b·r hashes per shingle",
            }
        )
    }

    /// Keeps an index whose signatures are no longer in use, for going back to them,
    /// within [`SPARES`] and [`SPARE_BYTES`] (the oldest go first); under `--memory`,
    /// within what the limit leaves beside the index in use and the half of it the
    /// exact pairs do not take (see `recall`), each counted with all it holds of its
    /// own (its documents are a copy: see `spare_bytes`).
    fn keep_spare(&mut self, index: Arc<Index>) {
        if index.num_perm() == 0 {
            return;
        }
        self.spare.insert(0, index);
        self.spare.truncate(SPARES);
        let budget = &self.budget;
        let share = recall::share(budget);
        let exact = match &self.all {
            Some(AllState::Computing { .. }) => share,
            Some(AllState::Ready { all, .. }) => all.pairs.len() as u64 * 16,
            _ => 0,
        };
        let room = match &self.index {
            Some(i) if budget.is_limited() => {
                budget.bytes.saturating_sub(i.held()) + share.saturating_sub(exact)
            }
            _ => SPARE_BYTES as u64,
        }
        .min(SPARE_BYTES as u64);
        let held = |spare: &[Arc<Index>]| spare.iter().map(|i| spare_bytes(i, budget)).sum::<u64>();
        while held(&self.spare) > room {
            self.spare.pop();
        }
    }

    /// Re-indexes the corpus with new shingles in the background. False before the first
    /// load has finished (there is no corpus to re-index yet).
    fn reindex(&mut self, k: usize, unit: Unit, jobs: &mut Jobs) -> bool {
        let Some(again) = self.again.clone() else {
            return false;
        };
        self.params.k = k;
        self.params.text.unit = unit;
        self.log
            .write(&format!("re-index requested: k={k} unit={}", unit.name()));
        self.params.num_perm = self.bands * self.rows;
        // The old results stay on screen (marked stale) until the new index is banded.
        jobs.cancel(Kind::Extend);
        self.sketching = None;
        jobs.cancel(Kind::AllPairs);
        self.progress.reset(&Stage::ALL, self.now);
        self.counters.index_jobs += 1;
        self.counters.sketch_jobs += 1;
        jobs.spawn(Work::Reindex {
            again,
            params: self.params.clone(),
            budget: self.budget.clone(),
        });
        true
    }

    /// Bands the newest index with the wanted (b, r). MinHash LSH bands signatures of
    /// the wanted sketch of exactly b·r values, as `simtui pairs -b B -r R` computes
    /// them, whatever was asked before: those of another width or sketch are taken from
    /// the spares, or computed first (MinHash computes only the functions it lacks; OPH
    /// sketches anew, as its bins depend on their number). Banding reuses what earlier
    /// re-bands of the corpus computed (the [`Rebander`]).
    fn request_band(&mut self, jobs: &mut Jobs) {
        let Some(mut index) = self.index.clone() else {
            return;
        };
        let want = (self.params.sketch, self.bands * self.rows);
        let seed = self.params.seed;
        let have = |i: &Index| (i.params().sketch, i.num_perm());
        let fits = |i: &Index| have(i) == want && i.params().seed == seed;
        if self.simhash.is_none() && !fits(&index) {
            match self.spare.iter().position(|i| fits(i)) {
                Some(i) => {
                    // Whatever is being sketched is no longer wanted.
                    jobs.cancel(Kind::Extend);
                    self.sketching = None;
                    let wanted = self.spare.remove(i);
                    self.index = Some(wanted.clone());
                    self.keep_spare(index);
                    index = wanted;
                }
                None => {
                    if self.sketching == Some(want) {
                        return; // the running job computes them
                    }
                    self.log.write(&format!(
                        "sketching {} {}: {} {} in use",
                        want.1,
                        want.0.name(),
                        index.num_perm(),
                        index.params().sketch.name()
                    ));
                    self.sketching = Some(want);
                    self.sketch_generation = self.generation;
                    jobs.cancel(Kind::Band);
                    self.banding = None;
                    self.progress.reset(&[Stage::Sketch], self.now);
                    self.counters.sketch_jobs += 1;
                    jobs.spawn(Work::Extend {
                        index,
                        sketch: want.0,
                        seed,
                        perms: want.1,
                    });
                    return;
                }
            }
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
                    jobs.cancel(Kind::Band);
                    self.banding = None;
                    self.progress.reset(&[Stage::Sketch], self.now);
                    self.fingerprints = None;
                    self.fingerprinting = self.generation;
                    jobs.spawn(Work::Fingerprints {
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
        let natural = (self.natural.as_ref())
            .filter(|(generation, _)| *generation == self.generation)
            .map(|(_, natural)| natural.clone());
        jobs.spawn(Work::Band {
            index,
            rebander: self.rebander.clone(),
            bands: self.bands,
            rows: self.rows,
            simhash: simhash.map(|(s, fps)| (fps, s.max_distance)),
            natural,
        });
    }

    /// Real recall is wanted at similarity `s`: when the exact pairs are known (or being
    /// computed) down to a higher floor only, they are computed again down to `s`, in the
    /// background (the panel says so meanwhile).
    pub fn want_recall_at(&mut self, s: f64, jobs: &mut Jobs) {
        let floor = recall::floor_for(s);
        if floor >= self.exact_floor {
            return;
        }
        self.exact_floor = floor;
        if self.all.is_some() {
            self.compute_exact(jobs);
        }
    }

    /// Starts computing the exact pairs of the newest index down to the wanted floor.
    fn compute_exact(&mut self, jobs: &mut Jobs) {
        let Some(index) = self.index.clone() else {
            return;
        };
        jobs.cancel(Kind::AllPairs);
        self.recall = None;
        self.all = Some(AllState::Computing {
            generation: self.generation,
            floor: self.exact_floor,
            done: 0,
            total: 0,
        });
        jobs.spawn(Work::AllPairs {
            index,
            floor: self.exact_floor,
        });
    }

    /// Measures real recall for the results on screen, when all pairs are known and it
    /// has not been measured yet.
    pub fn start_recall(&mut self, jobs: &mut Jobs) {
        let (Some(r), Some(AllState::Ready { generation, all })) = (&self.results, &self.all)
        else {
            return;
        };
        if r.generation != *generation || self.recall.as_ref().is_some_and(|(id, _)| *id == r.id) {
            return;
        }
        let work = Work::Recall {
            index: r.index.clone(),
            all: all.clone(),
            found: r.found.clone(),
            bands: r.bands,
            rows: r.rows,
        };
        self.recall_for = r.id;
        jobs.spawn(work);
    }

    // ---------------------------------------------------------------------------------
    // Workers' messages

    /// A progress report of an engine job.
    /// A stage of an engine job counts in bytes (or items) from now on.
    pub fn counting(&mut self, kind: Kind, stage: Stage, counted: Counted) {
        if matches!(
            kind,
            Kind::Index | Kind::Extend | Kind::Fingerprints | Kind::Band
        ) {
            self.progress.stages[stage as usize].bytes = counted == Counted::Bytes;
        }
    }

    pub fn report(&mut self, kind: Kind, stage: Stage, done: u64, total: u64) {
        match kind {
            Kind::AllPairs => {
                if let Some(AllState::Computing {
                    done: d, total: t, ..
                }) = &mut self.all
                {
                    *d = done;
                    *t = total;
                }
            }
            Kind::Index | Kind::Extend | Kind::Fingerprints | Kind::Band => {
                self.progress.update(stage, done, total, self.now)
            }
            _ => {}
        }
    }

    /// Applies an engine job's result. `Some` when new pairs replaced those on screen:
    /// the views showing them are to refresh, and then [`Session::start_recall`].
    pub fn done(&mut self, id: u64, out: Output, jobs: &mut Jobs) -> Option<Replaced> {
        match out {
            Output::Indexed { index, again, .. } => {
                if std::env::var("SIMTUI_DEBUG_PANIC").is_ok_and(|v| v == "ui") {
                    panic!("SIMTUI_DEBUG_PANIC=ui: a deliberate panic to test the crash path");
                }
                if let Some(a) = again {
                    self.again = Some(a);
                }
                self.generation += 1;
                let index = Arc::new(*index);
                self.index = Some(index.clone());
                self.spare.clear();
                self.sketching = None;
                self.all = None;
                self.recall = None;
                self.compute_exact(jobs);
                self.request_band(jobs);
            }
            // Fingerprints of an older index are of no use.
            Output::Fingerprinted(fps) if self.fingerprinting == self.generation => {
                self.fingerprints = Some((self.generation, Arc::new(fps)));
                self.request_band(jobs);
            }
            Output::Extended(index) => {
                self.sketching = None;
                if self.sketch_generation == self.generation {
                    let index = Arc::new(index);
                    let wanted = (self.params.sketch, self.params.seed, self.bands * self.rows);
                    let p = index.params();
                    if (p.sketch, p.seed, index.num_perm()) == wanted {
                        if let Some(old) = self.index.replace(index) {
                            self.keep_spare(old);
                        }
                    } else {
                        self.keep_spare(index);
                    }
                    self.request_band(jobs);
                }
            }
            Output::Banded {
                bands,
                rows,
                found,
                search,
                groups,
                capped,
                natural,
            } => {
                let (index, generation, simhash) = self.banding.take()?;
                self.natural = Some((generation, natural.clone()));
                let old = self.results.replace(Results {
                    index,
                    simhash,
                    found: Arc::new(found),
                    search: Arc::from(search),
                    capped: Arc::new(capped),
                    groups: Arc::new(groups),
                    bands,
                    rows,
                    generation,
                    natural,
                    id,
                });
                return Some(Replaced { old });
            }
            Output::AllPairs(res) => {
                let generation = match &self.all {
                    Some(AllState::Computing {
                        generation, floor, ..
                    }) if !matches!(&res, Ok(all) if all.floor != *floor) => *generation,
                    _ => return None,
                };
                self.all = Some(match res {
                    Ok(all) => AllState::Ready {
                        generation,
                        all: Arc::new(all),
                    },
                    Err(why) => AllState::Unavailable(why),
                });
                self.start_recall(jobs);
            }
            Output::Recall(rec) => self.recall = Some((self.recall_for, rec)),
            _ => {}
        }
        None
    }

    // ---------------------------------------------------------------------------------
    // For the tests: states that are slow or awkward to reach through jobs.

    #[cfg(test)]
    pub fn params_mut(&mut self) -> &mut Params {
        &mut self.params
    }

    #[cfg(test)]
    pub fn set_all(&mut self, all: Option<AllState>) {
        self.all = all;
    }

    #[cfg(test)]
    pub fn progress_mut(&mut self) -> &mut Board {
        &mut self.progress
    }
}
