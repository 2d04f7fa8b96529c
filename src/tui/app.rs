//! The explorer's state and how it changes. `App::update` applies a user's action and
//! `App::handle` a worker's message; neither draws nor blocks. Work to be done on other
//! threads is queued as commands (`Jobs`), which the event loop (or a test) carries out.

use super::diff::{self, DiffModel};
use super::jobs::{Cmd, Jobs};
use super::keys::{Action, Context};
use super::log::Logger;
use super::options::Settings;
use super::session::Session;
use super::widgets::layout;
use super::widgets::theme::Theme;
use super::worker::{DiffDoc, Kind, Msg, Output, StoreJob, Work};
use simtui::corpus::WalkOptions;
use simtui::index::{Index, Pair, Params};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

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

pub struct App {
    pub theme: Theme,
    pub mouse: bool,
    pub size: (u16, u16),
    /// What is explored and what the engine made of it.
    session: Session,
    jobs: Jobs,
    log: Logger,
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
        let log = Logger::default();
        App {
            theme,
            mouse: false,
            size,
            session: Session::new(roots, walk, params, bands, rows, log.clone()),
            jobs: Jobs::new(log.clone()),
            log,
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
        }
    }

    /// Takes what the explorer's settings say beyond the theme and the keys (which
    /// `tui::run` installs): mouse, log, and the tuning panel's starting similarity.
    pub fn configure(&mut self, settings: &Settings) {
        self.mouse = settings.mouse;
        self.log = Logger::new(settings.log.clone(), settings.verbose);
        self.session.set_log(self.log.clone());
        self.jobs.set_log(self.log.clone());
        if let Some(t) = settings.threshold.filter(|t| t.is_finite()) {
            self.tuning.s_pct = (t.clamp(0.0, 1.0) * 100.0).round() as u32;
        }
    }

    /// Writes a line to the log, if there is one.
    pub fn log(&self, line: &str) {
        self.log.write(line);
    }

    /// The log's first lines: what is explored, and with what.
    pub fn log_start(&self) {
        if !self.log.is_on() {
            return;
        }
        self.log(&format!("explorer: {}", self.session.label()));
        let p = self.session.params();
        let (bands, rows) = self.session.banding();
        self.log(&format!(
            "params: k={} bands={} rows={} hash functions={} seed={} sketch={:?} threshold s={:.2}",
            p.k,
            bands,
            rows,
            p.num_perm,
            p.seed,
            p.sketch,
            self.tuning.s()
        ));
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    #[cfg(test)]
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The clock the views read (set by the event loop): rendering stays a pure function.
    pub fn set_now(&mut self, now: Instant) {
        self.session.set_now(now);
    }

    /// The saved index the first load opens.
    pub fn set_store(&mut self, store: Option<StoreJob>) {
        self.session.set_store(store);
    }

    /// Queues the first job: walk (or generate) and index.
    pub fn start(&mut self) {
        self.session.start(&mut self.jobs);
    }

    /// Some job is running (the event loop then ticks to animate progress).
    pub fn busy(&self) -> bool {
        self.jobs.busy()
    }

    /// One line about background work after the first load (for the title bar), if any.
    pub fn summary(&self) -> Option<String> {
        self.session.summary(&self.jobs)
    }

    /// Drains the queued commands.
    pub fn take_outbox(&mut self) -> Vec<Cmd> {
        self.jobs.take_outbox()
    }

    pub(super) fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    pub(super) fn jobs_mut(&mut self) -> &mut Jobs {
        &mut self.jobs
    }

    #[cfg(test)]
    pub fn outbox(&self) -> &[Cmd] {
        self.jobs.outbox()
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
        } else if self.session.results().is_none() {
            Context::Loading
        } else if self.list.editing {
            Context::Filter
        } else if self.tuning.open {
            Context::Tuning
        } else {
            Context::List
        }
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
                self.jobs.cancel_all();
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
                if let (Some(p), Some(r)) = (self.selected_pair(), self.session.results()) {
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
            Action::SwitchMethod => self.status = Some(self.session.switch_method(&mut self.jobs)),
            Action::ToggleTuning
            | Action::BandsUp
            | Action::BandsDown
            | Action::RowsUp
            | Action::RowsDown
                if self.session.simhash().is_some() =>
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
            Action::BandsUp | Action::BandsDown | Action::RowsUp | Action::RowsDown => {
                let (b, r) = self.session.banding();
                let (b, r) = match action {
                    Action::BandsUp => (b + 1, r),
                    Action::BandsDown => (b.saturating_sub(1), r),
                    Action::RowsUp => (b, r + 1),
                    _ => (b, r.saturating_sub(1)),
                };
                self.set_banding(b, r);
            }
            Action::ShingleUp | Action::ShingleDown => {
                let k = self.session.params().k;
                let k = if action == Action::ShingleUp {
                    k + 1
                } else {
                    k.saturating_sub(1)
                };
                if let Err(why) = self.session.set_k(k, &mut self.jobs) {
                    self.status = Some(why);
                }
            }
            Action::ToggleUnit => {
                if let Some(said) = self.session.toggle_unit(&mut self.jobs) {
                    self.status = Some(said);
                }
            }
            Action::SimUp => self.tuning.s_pct = (self.tuning.s_pct + 5).min(100),
            Action::SimDown => self.tuning.s_pct = self.tuning.s_pct.saturating_sub(5),
            _ => {}
        }
    }

    // ---------------------------------------------------------------------------------
    // Tuning

    fn set_banding(&mut self, bands: usize, rows: usize) {
        let before = self.session.banding();
        match self.session.set_banding(bands, rows, &mut self.jobs) {
            // Keep the first curve of this round of tuning as "before".
            Ok(()) => {
                self.tuning.prev.get_or_insert(before);
            }
            Err(why) => self.status = Some(why),
        }
    }

    /// Real recall at the chosen s: (found, total), when known for the results on screen.
    pub fn real_recall(&self) -> Option<(usize, usize)> {
        self.session.real_recall(self.tuning.s())
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
        self.selected_ids_in(self.session.results()?)
    }

    /// The ids of the pair selected in results `r` (those on screen, or those just
    /// replaced).
    fn selected_ids_in(&self, r: &super::session::Results) -> Option<(String, String)> {
        let i = *self.list.visible.get(self.list.selected)?;
        let p = r.found.pairs.get(i as usize)?;
        let docs = &r.index.docs;
        Some((docs[p.a as usize].id.clone(), docs[p.b as usize].id.clone()))
    }

    fn refresh_keeping(&mut self, keep: Option<(String, String)>) {
        let Some(r) = self.session.results() else {
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
        let r = self.session.results()?;
        let i = *self.list.visible.get(self.list.selected)?;
        r.found.pairs.get(i as usize).copied()
    }

    // ---------------------------------------------------------------------------------
    // The diff

    fn open_diff(&mut self) {
        let (Some(pair), Some(r)) = (self.selected_pair(), self.session.results()) else {
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
        let job = self.jobs.spawn(work);
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
                self.jobs.cancel(Kind::Diff);
            }
            _ => {}
        }
    }

    // ---------------------------------------------------------------------------------
    // Messages from workers

    /// Applies a message. Returns false when nothing changed (an unbound key, a mouse
    /// move), so the event loop can skip a redraw.
    pub fn handle(&mut self, msg: Msg) -> bool {
        if !self.log.is_on() {
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
            } => {
                let Some(kind) = self.jobs.current_kind(id) else {
                    return true;
                };
                if matches!(
                    kind,
                    Kind::Index | Kind::Extend | Kind::Fingerprints | Kind::Band
                ) && self.log.is_on()
                    && done >= total
                    && self.jobs.first_end_of(id, stage)
                {
                    self.log(&format!(
                        "{} done: {total} in {:.3} s",
                        stage.name(),
                        self.jobs.took(id)
                    ));
                }
                self.session.report(kind, stage, done, total);
            }
            Msg::Done { id, out } => {
                if self.jobs.current_kind(id).is_none() {
                    return false; // superseded
                }
                let took = self.jobs.took(id);
                self.jobs.end(id);
                if self.log.is_on() {
                    self.log(&out.log_line(took));
                }
                self.done(id, *out);
            }
            Msg::Cancelled { id } => self.jobs.end(id),
            Msg::Failed { id, error, usage } => {
                let Some(kind) = self.jobs.current_kind(id) else {
                    return false;
                };
                self.log(&format!(
                    "{kind:?} job failed after {:.3} s",
                    self.jobs.took(id)
                ));
                self.jobs.end(id);
                if kind == Kind::Index && self.session.results().is_none() {
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

    fn done(&mut self, id: u64, out: Output) {
        match out {
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
            out => {
                if let Some(replaced) = self.session.done(id, out, &mut self.jobs) {
                    self.show_new_results(replaced.old);
                }
            }
        }
    }

    /// New pairs are on screen: the list refreshes, keeping the selected pair selected.
    fn show_new_results(&mut self, old: Option<super::session::Results>) {
        let keep = old.and_then(|old| self.selected_ids_in(&old));
        let t = std::time::Instant::now();
        self.refresh_keeping(keep);
        self.log(&format!(
            "list refreshed in {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        ));
        self.session.start_recall(&mut self.jobs);
    }
}
