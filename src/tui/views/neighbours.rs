//! The neighbours view: the documents most similar to one, by exact Jaccard: LSH
//! candidates first, filled up by a scan. Opened from the list (n/N), from a cluster's
//! members, or from another neighbours view; Enter shows a neighbour beside the document,
//! h the heatmap of the document and its neighbours.

use super::diff::DiffView;
use super::heatmap::HeatmapView;
use super::view::{Cursor, Cx, Ui, View};
use crate::tui::keys::{Action, Context, ENTER, KeyTable, b, back, k, list_keys};
use crate::tui::session::Session;
use crate::tui::widgets::fmt;
use crate::tui::widgets::list_table::{self, Cell, ListTable};
use super::slot::{Slot, waits_in_slot};
use crate::tui::worker::Reply;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use simtui_engine::search::found::Pair;
use simtui_engine::index::Index;
use simtui_engine::analysis::method::{Engine, Method};
use simtui_engine::analysis::query::{Answer, Probe, Searcher};
use std::sync::Arc;

/// The neighbours view's keys.
#[rustfmt::skip]
pub static KEYS: KeyTable = list_keys!("Neighbours", "neighbour", [
    b(&[ENTER], "Enter", Action::Open, "diff", "the document and the neighbour side by side", true),
    b(&[k('n')], "n", Action::Neighbours, "their neighbours", "the neighbours of the selected neighbour", true),
    b(&[k('h')], "h", Action::Heatmap, "heatmap", "the similarity of every pair among the document and its neighbours", true),
    back("back", "back to where you came from"),
]);

/// Neighbours asked for at a time (LSH candidates first, then a scan fills up).
pub const TOP_NEIGHBOURS: usize = 100;

pub struct NeighboursView {
    /// The index the view was opened on: its document numbers stay right while a new
    /// banding or k replaces the results underneath.
    index: Arc<Index>,
    doc: u32,
    /// The banding the candidates come from.
    bands: usize,
    rows: usize,
    answer: Slot<Answer>,
    cursor: Cursor,
}

impl NeighboursView {
    /// The nearest neighbours of document `doc` of an index, searched by a job with the
    /// wanted banding. None, with a status, while the index lacks the hash functions
    /// that banding needs.
    pub fn open(index: Arc<Index>, doc: u32, cx: &mut Cx) -> Option<NeighboursView> {
        let (bands, rows) = cx.session.banding();
        if bands * rows > index.signatures().width() {
            cx.say("more hash functions are being computed; try again");
            return None;
        }
        let mut view = NeighboursView {
            index,
            doc,
            bands,
            rows,
            // A job kind of its own: one search runs at a time.
            answer: Slot::new("Neighbours"),
            cursor: Cursor::default(),
        };
        view.search(cx);
        Some(view)
    }

    #[cfg(test)]
    pub fn doc(&self) -> u32 {
        self.doc
    }

    /// The neighbours found; none while searching.
    #[cfg(test)]
    pub fn answer(&self) -> Option<&Answer> {
        self.answer.value()
    }

    fn search(&mut self, cx: &mut Cx) {
        let (index, bands, rows, doc) = (self.index.clone(), self.bands, self.rows, self.doc);
        self.answer.start(cx, move |progress| {
            let engine = Engine {
                index,
                method: Method::MinHash { bands, rows },
            };
            simtui_engine::progress::check(progress)?;
            let probe = Probe::of_doc(&engine, doc)?;
            let answer = Searcher::new(&engine)?.neighbours(&probe, TOP_NEIGHBOURS, true)?;
            let summary = format!(
                "{} neighbours from {} candidates",
                answer.neighbours.len(),
                answer.candidates
            );
            Ok(Reply::timed(answer, summary))
        });
    }

    /// The heatmap of the document (first) and its neighbours, best first.
    fn heatmap(&self, cx: &mut Cx) {
        let Some(answer) = self.answer.value() else {
            return cx.say("still searching for the neighbours");
        };
        if answer.neighbours.is_empty() {
            return cx.say("no neighbours: nothing to compare");
        }
        let docs: Vec<u32> = std::iter::once(self.doc)
            .chain(answer.neighbours.iter().map(|n| n.doc))
            .collect();
        let id = fmt::shorten_middle(&self.index.docs().at(self.doc as usize).id, 40);
        let caption = format!("{id} and its {} neighbours", docs.len() - 1);
        let heatmap = HeatmapView::open(self.index.clone(), &docs, caption, cx);
        cx.push(heatmap);
    }

    fn len(&self) -> usize {
        self.answer.value().map_or(0, |a| a.neighbours.len())
    }
}

impl View for NeighboursView {
    fn keys(&self, _: &Session) -> Context {
        &KEYS
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        if self.cursor.leave_or_move(action, self.len(), cx) {
            return;
        }
        if action == Action::Heatmap {
            return self.heatmap(cx);
        }
        let Some(n) = self
            .answer
            .value()
            .and_then(|a| a.neighbours.get(self.cursor.selected))
            .copied()
        else {
            return;
        };
        match action {
            Action::Open => {
                let pair = Pair {
                    a: self.doc,
                    b: n.doc,
                    jaccard: n.jaccard,
                    estimate: n.estimate,
                };
                let diff = DiffView::open(self.index.clone(), pair, cx);
                cx.push(diff);
            }
            Action::Neighbours => {
                if let Some(view) = NeighboursView::open(self.index.clone(), n.doc, cx) {
                    cx.push(view);
                }
            }
            _ => {}
        }
    }

    waits_in_slot!(answer, search);

    fn step(&mut self, step: isize, cx: &mut Cx) -> bool {
        let rows = (0, self.len());
        self.cursor.step_rows(step, rows, "pair", cx)
    }

    fn position(&self) -> String {
        format!(" · neighbour {}", self.cursor.of(self.len()))
    }

    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        render(self, ui, frame, body);
    }
}

fn render(v: &NeighboursView, ui: &Ui, frame: &mut Frame, area: Rect) {
    let t = &ui.theme;
    let doc = |d: u32| v.index.docs().at(d as usize);
    let w = area.width as usize;
    let (of, of_title) = fmt::id_and_title(&doc(v.doc).id, doc(v.doc).title(), w / 2);
    let mut title = vec![
        Span::styled(" Neighbours of ", t.title()),
        Span::styled(of, t.title()),
        Span::styled(of_title, t.dim()),
    ];
    let empty = match v.answer.value() {
        None => {
            title.push(Span::styled(" · searching…", t.warn()));
            " Searching the LSH buckets…".to_string()
        }
        Some(a) => {
            let scanned = a.neighbours.iter().filter(|n| n.scanned).count();
            title.push(Span::raw(format!(
                " · {} (b={} r={}){}",
                fmt::plural(a.candidates as u64, "candidate", "candidates"),
                v.bands,
                v.rows,
                if scanned > 0 {
                    format!(" · {scanned} more from a full scan")
                } else {
                    String::new()
                }
            )));
            " No document shares a shingle with this one.".to_string()
        }
    };
    let neighbours = v.answer.value().map_or(&[][..], |a| &a.neighbours[..]);
    let rank_w = fmt::count(neighbours.len().max(1) as u64).len();
    let id_w = w.saturating_sub(1 + rank_w + 2 + 5 + 2 + 5 + 2 + 4 + 2);
    let row = |i: usize| {
        let n = &neighbours[i];
        let numbers = format!(
            " {:>rank_w$}  {:.3}  {:.3}  {}  ",
            i + 1,
            n.jaccard,
            n.estimate,
            // Where it was found: an LSH candidate, or only by the brute-force scan.
            if n.scanned { "scan" } else { "LSH " },
        );
        let mut cells = vec![Cell::plain(numbers)];
        cells.extend(list_table::doc(&doc(n.doc).id, doc(n.doc).title(), id_w));
        cells
    };
    let view = ListTable {
        title: Line::from(title),
        header: format!(
            " {:>rank_w$}  {:>5}  {:>5}  {:<4}  document",
            "#", "J", "est", "via"
        ),
        empty,
        note: None,
        len: neighbours.len(),
        selected: v.cursor.selected,
        offset: v.cursor.offset,
        row: &row,
    };
    list_table::render(t, frame, area, &view);
}
