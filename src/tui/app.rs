//! The App: the session, the jobs, and the views on a stack above the pairs list. It
//! routes the user's actions to the view on top (`update`) and the workers' messages to
//! the session or to the view that waits for them (`handle`), and carries out what the
//! views ask (open a view, close one, step the view below a diff). Neither draws nor
//! blocks: jobs are queued as commands, which the event loop (or a test) carries out.

use super::chrome;
use super::jobs::{Cmd, Jobs};
use super::keys::{self, Action, Context};
use super::log::Logger;
use super::options::Settings;
use super::session::{Opening, Replaced, Session};
use super::views::help::HelpView;
use super::views::list::ListView;
use super::views::view::{Command, Cx, Ui, View};
use super::widgets::layout;
use super::widgets::theme::Theme;
use super::worker::{Kind, Msg, Output, Reply, StoreJob};
use ratatui::Frame;
use std::time::Instant;

/// A [`Cx`] over the App's fields but its views, for a view's method (a macro, as a
/// method would borrow the whole App, the view included).
macro_rules! cx {
    ($app:ident, $below:expr) => {
        Cx::new(
            &mut $app.session,
            &mut $app.jobs,
            &$app.log,
            &mut $app.status,
            $app.size,
            $app.mouse,
            $below,
        )
    };
}

/// An error that ends the explorer.
#[derive(Clone, Debug)]
pub struct Fatal {
    pub message: String,
    /// The user can fix it (exit code 2).
    pub usage: bool,
}

pub struct App {
    theme: Theme,
    mouse: bool,
    size: (u16, u16),
    /// What is explored and what the engine made of it.
    session: Session,
    jobs: Jobs,
    log: Logger,
    /// The first view, always there.
    list: ListView,
    /// Views opened above the list (the diff, neighbours, clusters, ...), the top shown.
    stack: Vec<Box<dyn View>>,
    /// A short message for the user (a limit reached, an error), until the next key.
    status: Option<String>,
    quit: bool,
    fatal: Option<Fatal>,
}

impl App {
    pub fn new(open: Opening, theme: Theme, size: (u16, u16)) -> App {
        let log = Logger::default();
        App {
            theme,
            mouse: false,
            size,
            session: Session::new(open, log.clone()),
            jobs: Jobs::new(log.clone()),
            log,
            list: ListView::new((super::options::DEFAULT_S * 100.0).round() as u32),
            stack: Vec::new(),
            status: None,
            quit: false,
            fatal: None,
        }
    }

    /// The memory indexes keep within (`--memory`): set before `start`.
    pub fn set_budget(&mut self, budget: simtui_engine::storage::Budget) {
        self.session.set_budget(budget);
    }

    /// The run's inputs and outputs, which the export may not write over or into.
    pub fn set_paths(&mut self, paths: crate::output::guard::Paths) {
        self.session.set_paths(paths);
    }

    /// Opens the review of a removal list over the pairs list (Esc leaves it for them).
    pub fn open_review(&mut self, review: crate::tui::views::review::Review) {
        self.stack
            .push(Box::new(crate::tui::views::review::ReviewView::new(review)));
    }

    /// Opens a pairs file computed elsewhere over the pairs list (Esc leaves it for them).
    pub fn open_pairs_file(&mut self, file: crate::tui::views::pairs_file::PairsFile) {
        self.stack
            .push(Box::new(crate::tui::views::pairs_file::PairsFileView::new(
                file,
            )));
    }

    /// Takes what the explorer's settings say beyond the theme and the keys (which
    /// `tui::run` installs): mouse, log, and the tuning panel's starting similarity.
    pub fn configure(&mut self, settings: &Settings) {
        self.mouse = settings.mouse;
        if let Some(notice) = &settings.notice {
            self.status = Some(notice.clone());
        }
        self.log = Logger::new(settings.log.clone(), settings.verbose);
        self.session.set_log(self.log.clone());
        self.jobs.set_log(self.log.clone());
        self.session.set_max_bucket(settings.max_bucket);
        if let Some(t) = settings.threshold.filter(|t| t.is_finite()) {
            let s_pct = (t.clamp(0.0, 1.0) * 100.0).round() as u32;
            self.list.tuning_mut().set_s_pct(s_pct);
            let s = self.list.tuning().s();
            self.session.want_recall_at(s, &mut self.jobs);
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
            self.list.tuning().s()
        ));
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

    /// The user quit.
    pub fn quitting(&self) -> bool {
        self.quit
    }

    /// The error that ends the explorer, if one came.
    pub fn take_fatal(&mut self) -> Option<Fatal> {
        self.fatal.take()
    }

    /// Drains the queued commands.
    pub fn take_outbox(&mut self) -> Vec<Cmd> {
        self.jobs.take_outbox()
    }

    /// The key table in force: the top view's.
    pub fn context(&self) -> Context {
        self.top().keys(&self.session)
    }

    /// Real recall at the tuning panel's s: (found, true pairs), in document pairs,
    /// when known for the results on screen.
    #[cfg(test)]
    pub fn real_recall(&self) -> Option<(usize, usize)> {
        let score = self.session.real_recall(self.list.tuning().s())?;
        Some((score.found as usize, score.truth as usize))
    }

    /// The view at `depth`: 0 the list, 1 the first view above it, and so on.
    fn at(&self, depth: usize) -> &dyn View {
        match depth {
            0 => &self.list,
            d => self.stack[d - 1].as_ref(),
        }
    }

    fn top(&self) -> &dyn View {
        self.at(self.stack.len())
    }

    /// The list, then the views above it, bottom up.
    fn views(&self) -> Vec<&dyn View> {
        (0..=self.stack.len()).map(|d| self.at(d)).collect()
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
            }
            Action::ToggleHelp if self.top().as_any().is::<HelpView>() => self.close_top(),
            Action::ToggleHelp => self.stack.push(Box::new(HelpView::default())),
            Action::Resize(w, h) => {
                self.size = (w, h);
                self.resized();
            }
            _ => self.update_top(action),
        }
    }

    /// Sends an action to the view on top, then carries out what it asked.
    fn update_top(&mut self, action: Action) {
        // The key table under the top view: what a help on top documents.
        let below = (self.stack.len().checked_sub(1)).map(|d| self.at(d).keys(&self.session));
        let mut cx = cx!(self, below);
        match self.stack.last_mut() {
            Some(top) => top.update(action, &mut cx),
            None => self.list.update(action, &mut cx),
        }
        let commands = cx.into_commands();
        self.carry_out(commands, self.stack.len());
    }

    /// Every view hears of a new terminal size, the list first.
    fn resized(&mut self) {
        let mut cx = cx!(self, None);
        self.list.resized(&mut cx);
        for view in &mut self.stack {
            view.resized(&mut cx);
        }
    }

    /// Carries out the commands of the view at `depth` (0 the list, 1 the first view
    /// above it, ...).
    fn carry_out(&mut self, commands: Vec<Command>, depth: usize) {
        for command in commands {
            match command {
                Command::Push(view) => self.stack.push(view),
                Command::Close => self.close(depth),
                Command::StepPair(step) => self.step_pair(step),
                Command::Below(action) => self.act_below(action, depth),
            }
        }
    }

    /// The view below the one at `depth` acts as if the key were its own (x in a diff
    /// opened from the review marks the removal it shows).
    fn act_below(&mut self, action: Action, depth: usize) {
        let Some(below) = depth.checked_sub(1) else {
            return;
        };
        let mut cx = cx!(self, None);
        match below {
            0 => self.list.update(action, &mut cx),
            d => self.stack[d - 1].update(action, &mut cx),
        }
        let commands = cx.into_commands();
        self.carry_out(commands, below);
    }

    fn close_top(&mut self) {
        self.close(self.stack.len());
    }

    /// Closes the view at `depth` (never the list). Its job, if still running, is of
    /// no use to anyone now; the view it uncovers may have lost its own job to it.
    fn close(&mut self, depth: usize) {
        if depth == 0 || depth > self.stack.len() {
            return;
        }
        let view = self.stack.remove(depth - 1);
        for (kind, job) in view.jobs() {
            if self.jobs.is_current(job) {
                self.jobs.cancel(kind);
            }
        }
        if depth > self.stack.len() {
            self.resume_top();
        }
    }

    /// The view now on top may have lost its job to one above it (one job per kind runs
    /// at a time): start it again.
    fn resume_top(&mut self) {
        let Some(top) = self.stack.last_mut() else {
            return;
        };
        let Some((_, job)) = top.waiting() else {
            return;
        };
        if self.jobs.is_current(job) {
            return;
        }
        let mut cx = cx!(self, None);
        top.restart(&mut cx);
    }

    /// n/p in the diff on top: the view below steps to the next or previous pair; if it
    /// moved, the diff closes and the view opens the new pair's.
    fn step_pair(&mut self, step: isize) {
        // The diff is on top; the view it was opened from is below it.
        let Some(below) = self.stack.len().checked_sub(1) else {
            return;
        };
        let mut cx = cx!(self, None);
        let moved = match below {
            0 => self.list.step(step, &mut cx),
            d => self.stack[d - 1].step(step, &mut cx),
        };
        if moved {
            self.close_top();
            self.update_top(Action::Open);
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
            self.log(&format!("error: {}", e.message));
        } else if self.status != status
            && let Some(s) = &self.status
        {
            self.log(&format!("shown: {s}"));
        }
        changed
    }

    fn handle_msg(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Input(ev) => match keys::map_event(self.context(), &ev, self.mouse) {
                Some(a) => self.update(a),
                None => return false,
            },
            Msg::InputFailed(e) => self.fail(format!("cannot read the terminal: {e}"), false),
            // The event loop acts on a signal before the app sees it.
            Msg::Signal | Msg::Suspend => return false,
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
                match kind {
                    Kind::Task(_) => self.view_progress(id, done, total),
                    _ => self.session.report(kind, stage, done, total),
                }
            }
            Msg::Counting { id, stage, counted } => {
                if let Some(kind) = self.jobs.current_kind(id) {
                    self.session.counting(kind, stage, counted);
                }
            }
            Msg::Done { id, out } => {
                if self.jobs.current_kind(id).is_none() {
                    return false; // superseded
                }
                let took = self.jobs.took(id);
                self.jobs.end(id);
                if let Some(line) = out.log_line(took).filter(|_| self.log.is_on()) {
                    self.log(&line);
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
                    self.fail(error, usage);
                } else {
                    self.status = Some(error);
                }
            }
            Msg::Crashed { what, message } => {
                self.fail(
                    format!("internal error: the {what} panicked: {message}"),
                    false,
                );
            }
        }
        true
    }

    fn fail(&mut self, message: String, usage: bool) {
        self.fatal = Some(Fatal { message, usage });
    }

    fn done(&mut self, id: u64, out: Output) {
        match out {
            Output::Task(reply) => self.view_done(id, reply),
            out => {
                if let Output::Indexed { notice, index, .. } = &out {
                    // Both said, when both are to be said.
                    let over = super::worker::over_memory(index);
                    if let Some(said) = [notice.clone(), over]
                        .into_iter()
                        .flatten()
                        .reduce(|a, b| format!("{a}; {b}"))
                    {
                        self.status = Some(said);
                    }
                }
                if let Some(replaced) = self.session.done(id, out, &mut self.jobs) {
                    self.show_new_results(replaced);
                }
            }
        }
    }

    /// The view (its place in the stack) that waits for job `id`, if one is open.
    fn waiting_for(&self, id: u64) -> Option<usize> {
        self.stack
            .iter()
            .rposition(|v| v.jobs().iter().any(|&(_, job)| job == id))
    }

    /// A view's job reports progress: to the view waiting for it.
    fn view_progress(&mut self, id: u64, done: u64, total: u64) {
        if let Some(i) = self.waiting_for(id) {
            self.stack[i].progress(id, done, total);
        }
    }

    /// A view's job replied: to the view waiting for it, if it is still open.
    fn view_done(&mut self, id: u64, reply: Reply) {
        let Some(i) = self.waiting_for(id) else {
            return;
        };
        let mut cx = cx!(self, None);
        self.stack[i].done(reply, &mut cx);
        let commands = cx.into_commands();
        self.carry_out(commands, i + 1);
    }

    /// New pairs are on screen: the list refreshes, keeping the selected pair selected.
    fn show_new_results(&mut self, replaced: Replaced) {
        let t = Instant::now();
        self.list
            .results_replaced(replaced.old.as_ref(), &self.session, self.size);
        // Each view may start jobs for the new results (and ask for more, carried out
        // top down so that a view closed leaves the places of those below as they are).
        let mut asked = Vec::new();
        for (depth, view) in (1..).zip(self.stack.iter_mut()) {
            let mut cx = cx!(self, None);
            view.results_replaced(&mut cx);
            asked.push((depth, cx.into_commands()));
        }
        for (depth, commands) in asked.into_iter().rev() {
            self.carry_out(commands, depth);
        }
        self.log(&format!(
            "list refreshed in {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        ));
        self.session.start_recall(&mut self.jobs);
    }

    // ---------------------------------------------------------------------------------
    // Drawing

    /// Draws the frame: the title bar, the top view (over the views below it if it is an
    /// overlay), the footer. Pure: reads the App only.
    pub fn render(&self, frame: &mut Frame) {
        let area = frame.area();
        let t = &self.theme;
        if layout::too_small(area) {
            chrome::too_small(t, frame, area);
            return;
        }
        let s = layout::screen(area);
        let busy = self.session.summary(&self.jobs);
        chrome::title_bar(
            t,
            &self.session,
            self.status.as_deref(),
            busy,
            frame,
            s.title,
        );
        let views = self.views();
        // The highest view that is no overlay, then every overlay above it.
        let first = views.iter().rposition(|v| !v.is_overlay()).unwrap_or(0);
        for (i, view) in views.iter().enumerate().skip(first) {
            let ui = Ui {
                theme: self.theme,
                size: self.size,
                mouse: self.mouse,
                session: &self.session,
                below: i.checked_sub(1).map(|b| views[b]),
            };
            view.render(&ui, frame, s.body);
        }
        chrome::footer(t, self.context(), frame, s.footer);
    }

    // ---------------------------------------------------------------------------------
    // For the tests: what they look at, and states awkward to reach by keys.

    #[cfg(test)]
    pub fn session(&self) -> &Session {
        &self.session
    }

    #[cfg(test)]
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    #[cfg(test)]
    pub fn list(&self) -> &ListView {
        &self.list
    }

    #[cfg(test)]
    pub fn list_mut(&mut self) -> &mut ListView {
        &mut self.list
    }

    /// The view on top, if it is a `T`.
    #[cfg(test)]
    pub fn top_as<T: View>(&self) -> Option<&T> {
        self.top().as_any().downcast_ref()
    }

    #[cfg(test)]
    pub fn top_as_mut<T: View>(&mut self) -> Option<&mut T> {
        self.stack.last_mut()?.as_any_mut().downcast_mut()
    }

    /// Views open above the list.
    #[cfg(test)]
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Runs `f` as a view's update would run, and carries out what it asked (for views
    /// the keys cannot reach in the state a test needs).
    #[cfg(test)]
    pub fn with_cx(&mut self, f: impl FnOnce(&mut Cx)) {
        let mut cx = cx!(self, None);
        f(&mut cx);
        let commands = cx.into_commands();
        self.carry_out(commands, self.stack.len());
    }

    /// The title bar's line about work under way.
    #[cfg(test)]
    pub fn summary(&self) -> Option<String> {
        self.session.summary(&self.jobs)
    }

    #[cfg(test)]
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    #[cfg(test)]
    pub fn fatal(&self) -> Option<&Fatal> {
        self.fatal.as_ref()
    }

    #[cfg(test)]
    pub fn size(&self) -> (u16, u16) {
        self.size
    }

    #[cfg(test)]
    pub fn set_theme(&mut self, theme: Theme) {
        self.theme = theme;
    }

    #[cfg(test)]
    pub fn outbox(&self) -> &[Cmd] {
        self.jobs.outbox()
    }
}
