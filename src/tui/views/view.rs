//! What a view is: its state, with its key table, its update and its render, on the
//! App's stack; what it may ask of the App while it updates ([`Cx`]); and what it reads
//! to draw ([`Ui`]). A view never reaches into another view: it pushes a view, closes
//! itself, or asks the App to step the view below (n/p in a diff).

use crate::tui::jobs::Jobs;
use crate::tui::keys::{Action, Context};
use crate::tui::log::Logger;
use crate::tui::session::Session;
use crate::tui::widgets::layout;
use crate::tui::widgets::theme::Theme;
use crate::tui::worker::{Kind, Reply};
use ratatui::Frame;
use ratatui::layout::Rect;
use simtui_engine::index::Index;
use simtui_engine::search::found::Pair;
use std::any::Any;

pub trait View: AsAny {
    /// The key table in force while this view is on top (it may change with the
    /// view's mode, or with the session: the list is a loading screen at first).
    fn keys(&self, session: &Session) -> Context;

    /// Drawn over the view below (the help, the export prompt), not instead of it.
    fn is_overlay(&self) -> bool {
        false
    }

    /// An action while this view is on top.
    fn update(&mut self, action: Action, cx: &mut Cx);

    /// Draws the view in the body of the screen. Pure: reads the view and `ui` only.
    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect);

    /// The job this view still waits for, and its kind: its reply comes to `done`.
    fn waiting(&self) -> Option<(Kind, u64)> {
        None
    }

    /// Every job this view waits for: its `waiting` one, and any it runs beside it (the
    /// review looks up nearest documents while a keep-list is written). Their replies
    /// come to `done` and their progress to `progress`; closing the view cancels them.
    fn jobs(&self) -> Vec<(Kind, u64)> {
        self.waiting().into_iter().collect()
    }

    /// The reply of a job it waited for.
    fn done(&mut self, _reply: Reply, _cx: &mut Cx) {}

    /// A job it waits for reports progress: `done` of `total` (in its own units).
    fn progress(&mut self, _job: u64, _done: u64, _total: u64) {}

    /// Starts its job again: a view above it had superseded it (one job of a kind runs
    /// at a time), and is gone.
    fn restart(&mut self, _cx: &mut Cx) {}

    /// New results are on screen (a first load, a new banding or index): the view may
    /// start the jobs that follow from them.
    fn results_replaced(&mut self, _cx: &mut Cx) {}

    /// The terminal's size changed (lists keep their selection on screen).
    fn resized(&mut self, _cx: &mut Cx) {}

    /// n/p in a diff opened from this view: select the next (`step` 1) or previous (-1)
    /// pair. True if it moved (the App then closes the diff and sends `Open`); false,
    /// with a status, if there is none.
    fn step(&mut self, _step: isize, cx: &mut Cx) -> bool {
        cx.say("no next pair here: Esc, then move");
        false
    }

    /// Where a diff opened from this view is, for its header (" · pair 3 of 10").
    fn position(&self) -> String {
        String::new()
    }
}

/// What a view may do while it updates: read and change the session, queue jobs, say
/// something on the status line, write to the log, and ask for views to be opened or
/// itself closed.
pub struct Cx<'a> {
    pub session: &'a mut Session,
    pub jobs: &'a mut Jobs,
    pub log: &'a Logger,
    /// The terminal's size (page sizes and wrapping widths follow from it).
    pub size: (u16, u16),
    pub mouse: bool,
    /// The key table of the view below this one (the one the help documents).
    pub below: Option<Context>,
    status: &'a mut Option<String>,
    commands: Vec<Command>,
}

/// What a view asks of the App, carried out once its update is over.
pub enum Command {
    /// Opens a view on top.
    Push(Box<dyn View>),
    /// Closes the view that asked (cancelling the job it still waits for).
    Close,
    /// n/p in a diff: the view below steps to the next or previous pair and opens it.
    StepPair(isize),
    /// The view below acts (x in a diff opened from the review marks the removal).
    Below(Action),
}

impl<'a> Cx<'a> {
    pub fn new(
        session: &'a mut Session,
        jobs: &'a mut Jobs,
        log: &'a Logger,
        status: &'a mut Option<String>,
        size: (u16, u16),
        mouse: bool,
        below: Option<Context>,
    ) -> Cx<'a> {
        Cx {
            session,
            jobs,
            log,
            size,
            mouse,
            below,
            status,
            commands: Vec::new(),
        }
    }

    /// A short message on the status line, until the next key.
    pub fn say(&mut self, message: impl Into<String>) {
        *self.status = Some(message.into());
    }

    pub fn push(&mut self, view: impl View + 'static) {
        self.commands.push(Command::Push(Box::new(view)));
    }

    pub fn close(&mut self) {
        self.commands.push(Command::Close);
    }

    pub fn step_pair(&mut self, step: isize) {
        self.commands.push(Command::StepPair(step));
    }

    /// Asks the view below this one to act on `action`, as if it were on top.
    pub fn below(&mut self, action: Action) {
        self.commands.push(Command::Below(action));
    }

    /// What the view asked for, in order.
    pub fn into_commands(self) -> Vec<Command> {
        self.commands
    }
}

/// What a view reads to draw, beside its own state.
pub struct Ui<'a> {
    pub theme: Theme,
    pub size: (u16, u16),
    pub mouse: bool,
    pub session: &'a Session,
    /// The view below this one: what the help documents, what a diff was opened from.
    pub below: Option<&'a dyn View>,
}

/// A view as `Any`, so that the tests (and the App, for the help) can tell which view
/// is which.
pub trait AsAny: Any {
    fn as_any(&self) -> &dyn Any;
    #[cfg(test)]
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    #[cfg(test)]
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Rows of a view's list (neighbours, clusters, members) on a screen of this size: the
/// body less a title and a header.
pub fn list_page(size: (u16, u16)) -> usize {
    let s = layout::screen(layout::area(size));
    layout::list_rows(s.body).max(1)
}

/// A selection in a list, and the first row shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    pub offset: usize,
}

impl Cursor {
    /// Where the cursor is among `len` rows, for a diff's header: "3 of 10".
    pub fn of(&self, len: usize) -> String {
        format!(
            "{} of {}",
            crate::tui::widgets::fmt::count(self.selected as u64 + 1),
            crate::tui::widgets::fmt::count(len as u64)
        )
    }

    /// The keys every list view handles alike: Esc closes the view, the moves move in
    /// its `len` rows. False for any other action.
    pub fn leave_or_move(&mut self, action: Action, len: usize, cx: &mut Cx) -> bool {
        if action == Action::Back {
            cx.close();
            return true;
        }
        self.apply(action, len, list_page(cx.size))
    }

    /// Applies a movement key to a list of `len` rows shown `page` at a time. False for
    /// an action that is no movement.
    pub fn apply(&mut self, action: Action, len: usize, page: usize) -> bool {
        let page = page.max(1) as isize;
        let sel = self.selected as isize;
        let to = match action {
            Action::Up => sel - 1,
            Action::Down => sel + 1,
            Action::WheelUp => sel - 3,
            Action::WheelDown => sel + 3,
            Action::PageUp => sel - page,
            Action::PageDown => sel + page,
            Action::Top => 0,
            Action::Bottom => len as isize,
            _ => return false,
        };
        self.select(to, len, page as usize);
        true
    }

    /// The diff's `n`/`p` through a view's rows `first..len`: selects the row `step`
    /// away, or says which end it is at ("last pair", with `what` "pair") and returns
    /// false.
    pub fn step_rows(
        &mut self,
        step: isize,
        (first, len): (usize, usize),
        what: &str,
        cx: &mut Cx,
    ) -> bool {
        let to = self.selected as isize + step;
        if to < first as isize || to >= len as isize {
            cx.say(format!(
                "{} {what}",
                if step > 0 { "last" } else { "first" }
            ));
            return false;
        }
        self.select(to, len, list_page(cx.size));
        true
    }

    /// Selects row `to` (clamped to the list), scrolling so that it is on screen, and
    /// the list fills the page when it can.
    pub fn select(&mut self, to: isize, len: usize, page: usize) {
        self.selected = if len == 0 {
            0
        } else {
            to.clamp(0, len as isize - 1) as usize
        };
        let page = page.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + page {
            self.offset = self.selected + 1 - page;
        }
        self.offset = self.offset.min(len.saturating_sub(page));
    }
}

/// Documents `a` and `b` of an index as a pair, with their exact J and its estimate (what
/// a diff opens on).
pub fn pair_of(index: &Index, a: u32, b: u32) -> Pair {
    let (jaccard, estimate) = index.similarity(a, b);
    Pair {
        a,
        b,
        jaccard,
        estimate,
    }
}
