//! Pairs computed elsewhere (`simtui --pairs FILE INPUT...`): a pairs file that `simtui
//! pairs --format parquet|jsonl` or the Spark job (`DIR/pairs`) wrote, listed with the J
//! it stores, over the corpus the documents are read from. Ids are found in each index
//! the session loads; Enter opens the diff (n/p page on). A pair whose ids the corpus
//! lacks stays listed, said so, and opens nothing.

use super::diff::DiffView;
use super::loading;
use super::unmatched;
use super::id_pairs::IdPairs;
use super::view::{Cursor, Cx, Ui, View, list_page};
use crate::input::pairs_file::StoredPair;
use crate::tui::keys::{Action, Context, ENTER, KeyTable, b, back, list_keys};
use crate::tui::session::Session;
use crate::tui::widgets::fmt;
use crate::tui::widgets::list_table::{self, Cell, ListTable, NOTE_ROWS};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use simtui_engine::search::found::Pair;
use simtui_engine::index::Index;
use simtui_engine::natural_cmp;
use std::path::PathBuf;
use std::sync::Arc;

/// The pairs file's keys.
#[rustfmt::skip]
pub static KEYS: KeyTable = list_keys!("Pairs file", "pair", [
    b(&[ENTER], "Enter", Action::Open, "diff", "the pair side by side (n/p in the diff: next / previous pair of the file)", true),
    back("local", "leave the file's pairs for the pairs found here"),
]);

/// The pairs file the explorer was asked to open, read before the terminal was touched.
#[derive(Clone, Debug)]
pub struct PairsFile {
    /// The file's (or folder's) path, for the title.
    pub path: PathBuf,
    pub pairs: Arc<Vec<StoredPair>>,
}

pub struct PairsFileView {
    file: PairsFile,
    /// Each pair's documents in the index on screen.
    resolved: IdPairs,
    /// Why none of the file's ids is in the corpus (for which index), when none is.
    unmatched: Option<(Arc<Index>, String)>,
    cursor: Cursor,
}

impl PairsFileView {
    pub fn new(file: PairsFile) -> PairsFileView {
        PairsFileView {
            file,
            resolved: IdPairs::default(),
            unmatched: None,
            cursor: Cursor::default(),
        }
    }

    /// Finds the pairs' ids in the index on screen (once per index).
    fn resolve(&mut self, session: &Session) {
        let ids = self.file.pairs.iter().map(|p| (p.a.as_str(), p.b.as_str()));
        self.resolved.resolve(session, ids);
        let Some(r) = session.results() else {
            return;
        };
        if self.unmatched.as_ref().is_some_and(|(i, _)| Arc::ptr_eq(i, &r.index)) {
            return;
        }
        // None of the file's pairs found: say why, once per index.
        let pairs = &self.file.pairs;
        self.unmatched = (!pairs.is_empty() && self.resolved.missing() == pairs.len())
            .then(|| {
                let what = format!("the file's {}", fmt::plural(pairs.len() as u64, "pair", "pairs"));
                let why = unmatched::explain(&r.index, session.id_field(), &pairs[0].a, &what);
                (r.index.clone(), why)
            });
    }

    /// Why none of the file's ids is in the corpus, if none is.
    fn unmatched(&self) -> Option<&str> {
        self.unmatched.as_ref().map(|(_, why)| why.as_str())
    }

    /// Pair `i` for the diff: the J (and estimate) the file stores; the index's estimate
    /// where the file has none.
    fn pair(&self, i: usize) -> Option<(Arc<Index>, Pair)> {
        let (index, a, b) = self.resolved.get(i)?;
        let (a, b) = natural_pair(index, a, b);
        let stored = &self.file.pairs[i];
        let estimate = stored
            .estimate
            .unwrap_or_else(|| index.similarity(a, b).1);
        let pair = Pair {
            a,
            b,
            jaccard: stored.jaccard,
            estimate,
        };
        Some((index.clone(), pair))
    }

    #[cfg(test)]
    pub fn selected(&self) -> usize {
        self.cursor.selected
    }
}

impl View for PairsFileView {
    fn keys(&self, session: &Session) -> Context {
        loading::keys_until_loaded(session, &KEYS)
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        self.resolve(cx.session);
        if cx.session.results().is_none() {
            return;
        }
        if action == Action::Back {
            return cx.close();
        }
        let len = self.file.pairs.len();
        // The note of ids matching nothing takes rows above the list.
        let page = list_page(cx.size).saturating_sub(self.unmatched.is_some() as usize * NOTE_ROWS);
        if self.cursor.apply(action, len, page.max(1)) {
            return;
        }
        if action == Action::Open {
            match self.pair(self.cursor.selected) {
                Some((index, pair)) => {
                    let diff = DiffView::open(index, pair, cx);
                    cx.push(diff);
                }
                None if len == 0 => {}
                None => match self.unmatched() {
                    Some(why) => cx.say(why.to_string()),
                    None => cx.say("an id of this pair is not in the corpus given"),
                },
            }
        }
    }

    fn results_replaced(&mut self, cx: &mut Cx) {
        self.resolve(cx.session);
    }

    fn step(&mut self, step: isize, cx: &mut Cx) -> bool {
        let rows = (0, self.file.pairs.len());
        self.cursor.step_rows(step, rows, "pair", cx)
    }

    fn position(&self) -> String {
        format!(" · pair {} in the file", self.cursor.of(self.file.pairs.len()))
    }

    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        loading::render_until_loaded(ui, frame, body, |frame| render(self, ui, frame, body));
    }
}

/// Two documents, the one whose id comes first in natural order first (files keep the
/// engine's byte order: `16` before `4`).
fn natural_pair(index: &Index, a: u32, b: u32) -> (u32, u32) {
    let id = |d: u32| index.docs().id(d as usize);
    match natural_cmp(&id(a), &id(b)) {
        std::cmp::Ordering::Greater => (b, a),
        _ => (a, b),
    }
}

fn render(v: &PairsFileView, ui: &Ui, frame: &mut Frame, area: Rect) {
    let t = &ui.theme;
    let w = area.width as usize;
    let pairs = &v.file.pairs;
    let mut title = vec![
        Span::styled(
            format!(
                " Pairs {}",
                fmt::shorten_middle(&v.file.path.display().to_string(), w / 3)
            ),
            t.title(),
        ),
        Span::raw(format!(
            " · {} · J as stored, here: J of the corpus given",
            fmt::plural(pairs.len() as u64, "pair", "pairs"),
        )),
    ];
    let missing = v.resolved.missing();
    if missing > 0 {
        title.insert(
            1,
            Span::styled(
                format!(" · {} not in the corpus", fmt::count(missing as u64)),
                t.warn(),
            ),
        );
    }
    let rank_w = fmt::count(pairs.len().max(1) as u64).len();
    let id_w = w.saturating_sub(1 + rank_w + 3 * (2 + 5) + 2) / 2;
    let dash = format!("{:>5}", "—");
    let row = |i: usize| {
        let p = &pairs[i];
        let est = p.estimate.map_or_else(|| dash.clone(), |e| format!("{e:.3}"));
        let numbers = |here: String| {
            Cell::plain(format!(" {:>rank_w$}  {:.3}  {est}  {here}  ", i + 1, p.jaccard))
        };
        let Some((index, a, b)) = v.resolved.get(i) else {
            // Ids the corpus lacks: as the file names them.
            let id = |s: &str| fmt::shorten_middle(&fmt::clean(s), id_w);
            let a = fmt::pad(&id(&p.a), id_w);
            let text = format!("{a}  {} (not in the corpus)", id(&p.b));
            return vec![numbers(dash.clone()), Cell::plain(text)];
        };
        // Found: by id and title, the first in natural order on the left.
        let (a, b) = natural_pair(index, a, b);
        let doc = |d: u32| index.docs().at(d as usize);
        let mut cells = vec![numbers(format!("{:.3}", index.similarity(a, b).0))];
        cells.extend(list_table::doc(&doc(a).id, doc(a).title(), id_w));
        cells.push(Cell::plain("  "));
        cells.extend(list_table::last_doc(&doc(b).id, doc(b).title(), id_w));
        cells
    };
    let view = ListTable {
        title: Line::from(title),
        note: v.unmatched().map(String::from),
        header: format!(
            " {:>rank_w$}  {:>5}  {:>5}  {:>5}  {}  b",
            "#",
            "J",
            "est",
            "here",
            fmt::pad("a", id_w)
        ),
        empty: " The pairs file holds no pair.".to_string(),
        len: pairs.len(),
        selected: v.cursor.selected,
        offset: v.cursor.offset,
        row: &row,
    };
    list_table::render(t, frame, area, &view);
}
