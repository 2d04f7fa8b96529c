//! The review: a removal list (`simtui dedup`'s `OUT.removed.jsonl`, or datatrove's or
//! text-dedup's) paged through with its corpus (`simtui --review LIST INPUT...`). Each
//! row is a removed document beside the one kept in its place (or, where the list names
//! none, the most similar document, chosen here on a worker while the rows are already
//! shown); Enter shows them side by side (n/p page on), x marks the removal wrong. The
//! ids marked are written, as they change, to a keep-list that `simtui dedup
//! --keep-list` honours: the next run keeps them.

use super::diff::DiffView;
use super::loading;
use super::unmatched;
use super::view::{Cursor, Cx, Ui, View, list_page, pair_of};
use crate::input::removal_map::{self, Found};
use crate::input::removals::{self, DocRef, Removed};
use crate::tui::keep_list::{Failed, KeepList};
use crate::tui::keys::{Action, Context, ENTER, KeyTable, b, back, k, list_keys};
use crate::tui::session::Session;
use crate::tui::widgets::fmt;
use crate::tui::widgets::list_table::{self, Cell, ListTable, NOTE_ROWS};
use super::slot::Slot;
use crate::tui::worker::{JobError, Kind, Reply};
use simtui_engine::progress::Progress;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use simtui_engine::search::found::Pair;
use simtui_engine::index::Index;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

/// The review's keys.
#[rustfmt::skip]
pub static KEYS: KeyTable = list_keys!("Review", "removal", [
    b(&[ENTER], "Enter", Action::Open, "diff", "the kept document and the removed one side by side", true),
    b(&[k('x'), k(' ')], "x", Action::MarkWrong, "wrong", "mark the removal wrong, or not (written to the keep-list)", true),
    back("pairs", "leave the review for the pairs list"),
]);

/// The nearest documents' lookup: one at a time, for the results on screen.
const NEAREST: &str = "Nearest";

/// What the explorer was asked to review.
#[derive(Clone, Debug)]
pub struct Review {
    /// The removal list's path, for the title.
    pub list: PathBuf,
    /// Its shape (`simtui`, `datatrove .remove`, `text-dedup`, …), for the title.
    pub format: &'static str,
    pub removed: Arc<Vec<Removed>>,
    /// The number of tasks of datatrove's reader, which `.remove` files count in.
    pub tasks: Option<u32>,
    /// Where the ids marked wrong are written.
    pub keep_list: KeepList,
    /// The ids the keep-list held when the review started: kept as they are, and shown
    /// marked where the list removes them.
    pub kept: BTreeSet<String>,
}

pub struct ReviewView {
    review: Review,
    /// Each removal's documents in the results on screen.
    resolved: Option<Resolved>,
    /// The keep-list's ids: those marked wrong here, and any it held before.
    marked: BTreeSet<String>,
    /// The keep-list's write under way (its job), and the last one's outcome.
    writing: Slot<()>,
    written: Option<Result<usize, Failed>>,
    cursor: Cursor,
}

/// The removals' documents in one index, as one banding finds the nearest: found again
/// for a new index (a new k or a re-read numbers its documents anew) or banding (other
/// candidates).
struct Resolved {
    index: Arc<Index>,
    banding: (usize, usize),
    found: Vec<Found>,
    /// The lookup of the nearest documents, while it runs on a worker: until it ends,
    /// the removals it looks up have no kept document (their rows say they wait).
    looking: Slot<()>,
    /// Why none of the list's ids is in the corpus, when none is.
    unmatched: Option<String>,
}

/// What the review's jobs reply.
enum Replied {
    /// The keep-list written: the number of ids, or why not.
    Written(Result<usize, Failed>),
    /// The nearest documents found, for this index and banding.
    Nearest {
        index: Arc<Index>,
        banding: (usize, usize),
        found: Vec<Found>,
    },
}

impl ReviewView {
    pub fn new(review: Review) -> ReviewView {
        ReviewView {
            marked: review.kept.clone(),
            review,
            resolved: None,
            // A job kind of its own: one write at a time.
            writing: Slot::new("Keep-list"),
            written: None,
            cursor: Cursor::default(),
        }
    }

    #[cfg(test)]
    pub fn marked(&self) -> &BTreeSet<String> {
        &self.marked
    }

    /// The nearest documents' lookup, while it runs: (done, total) removals.
    #[cfg(test)]
    pub fn looking(&self) -> Option<(u64, u64)> {
        let looking = &self.resolved.as_ref()?.looking;
        looking.is_running().then(|| looking.how_far())
    }

    /// Finds the removals' documents in the results on screen (once per index and
    /// banding): by id or place at once, the nearest documents on a worker. A lookup
    /// still running for older results is superseded (cancelled).
    fn resolve(&mut self, cx: &mut Cx) {
        let Some(r) = cx.session.results() else {
            return;
        };
        let banding = (r.bands, r.rows);
        if self
            .resolved
            .as_ref()
            .is_some_and(|x| Arc::ptr_eq(&x.index, &r.index) && x.banding == banding)
        {
            return;
        }
        let index = r.index.clone();
        let found = removal_map::locate(&index, &self.review.removed, self.review.tasks);
        let unmatched = self.unmatched(&index, &found, cx.session.id_field());
        let total = removal_map::to_look_up(&found) as u64;
        let mut looking = Slot::new(NEAREST);
        if total == 0 {
            cx.jobs.cancel(looking.kind());
        } else {
            looking.start(cx, lookup(index.clone(), banding, found.clone()));
            looking.expect(total);
        }
        self.resolved = Some(Resolved {
            index,
            banding,
            found,
            looking,
            unmatched,
        });
    }

    /// Why no removal of the list names a document of the corpus, if none does and the
    /// list names them by id (the corpus read without the `--id-field` of the list).
    fn unmatched(&self, index: &Index, found: &[Found], id_field: Option<&str>) -> Option<String> {
        if found.is_empty() || found.iter().any(|f| f.removed.is_some()) {
            return None;
        }
        let DocRef::Id(example) = &self.review.removed.first()?.id else {
            return None;
        };
        let what = format!("the list's {}", fmt::plural(found.len() as u64, "removal", "removals"));
        Some(unmatched::explain(index, id_field, example, &what))
    }

    /// Removal `i`'s documents, if found.
    fn found(&self, i: usize) -> Option<(&Arc<Index>, Found)> {
        let r = self.resolved.as_ref()?;
        Some((&r.index, *r.found.get(i)?))
    }

    /// Removal `i`'s kept document is still being looked up.
    fn waits(&self, i: usize) -> bool {
        self.resolved.as_ref().is_some_and(|r| {
            r.looking.is_running() && r.found.get(i).is_some_and(|f| f.chosen && f.removed.is_some())
        })
    }

    /// Enter on a removal whose nearest document is still looked up: nothing opens yet
    /// (the user sees the row fill in, and presses Enter again).
    fn say_waiting(&self, cx: &mut Cx) {
        let (done, total) = self.resolved.as_ref().map_or((0, 0), |r| r.looking.how_far());
        cx.say(format!(
            "this removal's nearest document is still being looked up ({} of {} done): \
             Enter again once the row shows it",
            fmt::count(done),
            fmt::count(total)
        ));
    }

    /// The nearest documents arrived: kept if they are for the results on screen (an
    /// older index's or banding's are dropped).
    fn looked_up(&mut self, index: Arc<Index>, banding: (usize, usize), found: Vec<Found>) {
        let Some(r) = &mut self.resolved else { return };
        if Arc::ptr_eq(&r.index, &index) && r.banding == banding && r.looking.is_running() {
            r.found = found;
            r.looking.finish();
        }
    }

    /// Removal `i`'s (kept, removed) documents, if the corpus has both.
    fn docs(&self, i: usize) -> Option<(&Arc<Index>, u32, u32)> {
        let (index, f) = self.found(i)?;
        Some((index, f.kept?, f.removed?))
    }

    /// How many removals name a document the corpus lacks (0 until found).
    fn missing(&self) -> usize {
        let found = self.resolved.as_ref().map_or(&[][..], |r| &r.found[..]);
        found
            .iter()
            .filter(|f| f.removed.is_none() || (!f.chosen && f.kept.is_none()))
            .count()
    }

    /// The id a mark of removal `i` writes to the keep-list: the corpus's id of the
    /// removed document, or the list's own id until the corpus is read.
    fn mark_id(&self, i: usize) -> Option<String> {
        if let Some((index, Found { removed: Some(d), .. })) = self.found(i) {
            return Some(index.docs().at(d as usize).id.clone());
        }
        match &self.review.removed.get(i)?.id {
            DocRef::Id(id) => Some(id.clone()),
            _ => None,
        }
    }

    /// The selected removal's pair of documents, kept first.
    fn pair(&self, i: usize) -> Option<(Arc<Index>, Pair)> {
        let (index, kept, removed) = self.docs(i)?;
        Some((index.clone(), pair_of(index, kept, removed)))
    }

    /// Marks the selected removal wrong, or not, and writes the keep-list.
    fn toggle(&mut self, cx: &mut Cx) {
        let Some(id) = self.mark_id(self.cursor.selected) else {
            return cx.say("this removal's document is not in the corpus: nothing to keep");
        };
        if !self.marked.remove(&id) {
            self.marked.insert(id);
        }
        let keep = self.review.keep_list.clone();
        keep.want(removals::keep_text(&self.marked), self.marked.len());
        self.writing.start(cx, move |_| Ok(Reply::quiet(Replied::Written(keep.save()))));
    }
}

/// The job that looks up the nearest documents of the removals `found` in `index`, by
/// the banding given, reporting each removal looked up.
fn lookup(
    index: Arc<Index>,
    banding: (usize, usize),
    mut found: Vec<Found>,
) -> impl FnOnce(&dyn Progress) -> Result<Reply, JobError> + Send + 'static {
    move |progress| {
        let total = removal_map::to_look_up(&found);
        removal_map::nearest(&index, &mut found, banding.0, banding.1, progress)?;
        let summary = format!("nearest documents of {total} removals");
        let found = Replied::Nearest {
            index,
            banding,
            found,
        };
        Ok(Reply::timed(found, summary))
    }
}

impl View for ReviewView {
    fn keys(&self, session: &Session) -> Context {
        loading::keys_until_loaded(session, &KEYS)
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        self.resolve(cx);
        if cx.session.results().is_none() {
            return;
        }
        if action == Action::Back {
            return cx.close();
        }
        let len = self.review.removed.len();
        // The note of ids matching nothing takes rows above the list.
        let note = self.resolved.as_ref().is_some_and(|r| r.unmatched.is_some());
        let page = list_page(cx.size).saturating_sub(note as usize * NOTE_ROWS);
        if self.cursor.apply(action, len, page.max(1)) {
            return;
        }
        match action {
            Action::Open if self.waits(self.cursor.selected) => self.say_waiting(cx),
            Action::Open if self.resolved.as_ref().is_some_and(|r| r.unmatched.is_some()) => {
                let why = self.resolved.as_ref().and_then(|r| r.unmatched.clone());
                cx.say(why.unwrap_or_default());
            }
            Action::Open => match self.pair(self.cursor.selected) {
                Some((index, pair)) => {
                    let diff = DiffView::open(index, pair, cx).marking();
                    cx.push(diff);
                }
                None => match self.found(self.cursor.selected) {
                    Some((_, f)) if f.chosen && f.removed.is_some() => {
                        cx.say("the list names no kept document, and none similar was found")
                    }
                    _ => cx.say("a document of this removal is not in the corpus given"),
                },
            },
            Action::MarkWrong => self.toggle(cx),
            _ => {}
        }
    }

    fn results_replaced(&mut self, cx: &mut Cx) {
        self.resolve(cx);
    }

    fn waiting(&self) -> Option<(Kind, u64)> {
        self.writing.waiting()
    }

    fn jobs(&self) -> Vec<(Kind, u64)> {
        let looking = self.resolved.as_ref().and_then(|r| r.looking.waiting());
        self.waiting().into_iter().chain(looking).collect()
    }

    fn done(&mut self, reply: Reply, cx: &mut Cx) {
        match reply.take::<Replied>() {
            Some(Replied::Written(written)) => {
                self.writing.finish();
                if let Err(failed) = &written {
                    // The whole story once, where the title has no room for it.
                    cx.log.write(&failed.to_string());
                    cx.say(failed.to_string());
                }
                self.written = Some(written);
            }
            Some(Replied::Nearest {
                index,
                banding,
                found,
            }) => self.looked_up(index, banding, found),
            None => {}
        }
    }

    fn progress(&mut self, job: u64, done: u64, total: u64) {
        if let Some(r) = self.resolved.as_mut() {
            r.looking.progress(job, done, total);
        }
    }

    fn step(&mut self, step: isize, cx: &mut Cx) -> bool {
        let rows = (0, self.review.removed.len());
        self.cursor.step_rows(step, rows, "removal", cx)
    }

    fn position(&self) -> String {
        // The diff's header says whether x has marked the removal it shows.
        let wrong = match self.mark_id(self.cursor.selected) {
            Some(id) if self.marked.contains(&id) => " · marked WRONG (x)",
            _ => "",
        };
        format!(" · removal {}{wrong}", self.cursor.of(self.review.removed.len()))
    }

    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        loading::render_until_loaded(ui, frame, body, |frame| render(self, ui, frame, body));
    }
}

fn render(v: &ReviewView, ui: &Ui, frame: &mut Frame, area: Rect) {
    let t = &ui.theme;
    let w = area.width as usize;
    let removed = &v.review.removed;
    let missing = v.missing();
    let mut title = vec![
        Span::styled(
            format!(
                " Review {} ({})",
                fmt::shorten_middle(&v.review.list.display().to_string(), w / 3),
                v.review.format
            ),
            t.title(),
        ),
        Span::raw(format!(
            " · {} · {} marked wrong → {}",
            fmt::plural(removed.len() as u64, "removal", "removals"),
            fmt::count(v.marked.len() as u64),
            v.review.keep_list.path().display()
        )),
    ];
    if let Some(looking) = v.resolved.as_ref().map(|r| &r.looking).filter(|l| l.is_running()) {
        let (done, total) = looking.how_far();
        title.insert(
            1,
            Span::styled(
                format!(
                    " · finding the nearest documents {}/{}…",
                    fmt::count(done),
                    fmt::count(total)
                ),
                t.warn(),
            ),
        );
    }
    if missing > 0 {
        title.insert(
            1,
            Span::styled(format!(" · {} not in the corpus", fmt::count(missing as u64)), t.warn()),
        );
    }
    if let Some(Err(failed)) = &v.written {
        title.insert(1, Span::styled(format!(" · {}", failed.short()), t.warn()));
    }
    let rank_w = fmt::count(removed.len().max(1) as u64).len();
    let id_w = w.saturating_sub(1 + rank_w + 2 + 5 + 2 + 5 + 2 + 6 + 2) / 2;
    let row = |i: usize| {
        let x = &removed[i];
        let found = v.found(i);
        // A document of the corpus by its id and title; else as the list names it.
        // The kept column is padded to its width; the removed one, last, is not.
        let name = |d: Option<u32>, r: &DocRef, prefix: &str, last: bool| -> Vec<Cell> {
            let room = id_w.saturating_sub(fmt::width(prefix));
            let mut cells = vec![Cell::plain(prefix)];
            match (found, d) {
                (Some((index, _)), Some(d)) => {
                    let doc = &index.docs().at(d as usize);
                    cells.extend(match last {
                        true => list_table::last_doc(&doc.id, doc.title(), room),
                        false => list_table::doc(&doc.id, doc.title(), room),
                    });
                }
                _ => {
                    let named = fmt::shorten_middle(&fmt::clean(&r.to_string()), room);
                    cells.push(Cell::plain(match last {
                        true => named,
                        false => fmt::pad(&named, room),
                    }));
                }
            }
            cells
        };
        let text = |s: &str| vec![Cell::plain(fmt::pad(s, id_w))];
        let f = found.map(|(_, f)| f).unwrap_or_default();
        let (j, est) = match v.docs(i) {
            Some((index, a, b)) => {
                let (j, est) = index.similarity(a, b);
                (format!("{j:.3}"), format!("{est:.3}"))
            }
            None => (
                x.jaccard.map_or_else(|| format!("{:>5}", "—"), |j| format!("{j:.3}")),
                format!("{:>5}", "—"),
            ),
        };
        // A kept document the list does not name is simtui's choice: said so in the row.
        let kept = match (f.chosen, f.kept) {
            _ if v.waits(i) => text("nearest: …"),
            (true, Some(d)) => name(Some(d), &x.kept, "nearest: ", false),
            (true, None) if f.removed.is_some() => text("(none similar found)"),
            _ => name(f.kept, &x.kept, "", false),
        };
        let mark = match v.mark_id(i) {
            Some(id) if v.marked.contains(&id) => "WRONG ",
            _ => "      ",
        };
        let lacking = found.is_some() && (f.removed.is_none() || (!f.chosen && f.kept.is_none()));
        let mut cells = vec![Cell::plain(format!(" {:>rank_w$}  {j}  {est}  {mark}  ", i + 1))];
        cells.extend(kept);
        cells.push(Cell::plain("  "));
        cells.extend(name(f.removed, &x.id, "", true));
        if lacking {
            cells.push(Cell::plain(" (not in the corpus)"));
        }
        cells
    };
    // Nothing of the list found: why, above the rows.
    let note = v.resolved.as_ref().and_then(|r| r.unmatched.clone());
    let view = ListTable {
        title: Line::from(title),
        note,
        header: format!(
            " {:>rank_w$}  {:>5}  {:>5}  {:<6}  {}  removed",
            "#",
            "J",
            "est",
            "",
            fmt::pad("kept", id_w)
        ),
        empty: " The removal list is empty.".to_string(),
        len: removed.len(),
        selected: v.cursor.selected,
        offset: v.cursor.offset,
        row: &row,
    };
    list_table::render(t, frame, area, &view);
}
