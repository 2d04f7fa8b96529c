//! The clusters view: the listed pairs (the filter applies) joined into clusters at a
//! threshold on exact J (union-find, by a job), largest first, each with the member to
//! keep. ←/→ move the threshold; Enter opens a cluster's members, h its heatmap, e
//! exports the clusters.

use super::export::{ExportView, Rows};
use super::heatmap::HeatmapView;
use super::members::MembersView;
use super::view::{Cursor, Cx, Ui, View};
use crate::tui::keys::{Action, Context, ENTER, KeyTable, b, back, code, k, list_keys};
use crate::tui::session::Session;
use crate::tui::widgets::fmt;
use crate::output::order;
use crate::tui::widgets::list_table::{self, Cell, ListTable};
use super::slot::{Slot, waits_in_slot};
use crate::tui::worker::Reply;
use ratatui::Frame;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use simtui_engine::analysis::cluster::{self, Cluster, Keep};
use simtui_engine::search::found::Pair;
use simtui_engine::index::Index;
use std::sync::Arc;

/// The clusters view's keys.
#[rustfmt::skip]
pub static KEYS: KeyTable = list_keys!("Clusters", "cluster", [
    b(&[ENTER], "Enter", Action::Open, "members", "the cluster's members, its representative first", true),
    b(&[k('h')], "h", Action::Heatmap, "heatmap", "the similarity of every pair of members", true),
    b(&[code(KeyCode::Right), k('>')], "←/→", Action::SimUp, "threshold±", "the clusters' threshold on exact J (±0.05)", true),
    b(&[code(KeyCode::Left), k('<')], "", Action::SimDown, "", "", false),
    b(&[k('e')], "e", Action::Export, "export", "write the clusters to a CSV or JSON Lines file", true),
    back("back", "back to the pair list"),
]);

pub struct ClustersView {
    /// The index the view was opened on (see the neighbours view).
    index: Arc<Index>,
    /// Clusters join pairs with exact J at least this (hundredths).
    threshold_pct: u32,
    /// The MinHash banding the listed pairs were found by (none: SimHash).
    banding: Option<(usize, usize)>,
    /// Pairs listed when the view opened (the filter applies), and those at the threshold.
    listed: Vec<Pair>,
    linked: usize,
    clusters: Slot<Arc<Vec<Cluster>>>,
    cursor: Cursor,
}

impl ClustersView {
    /// The clusters of the `listed` pairs at `s_pct` hundredths, joined by a job.
    pub fn open(index: Arc<Index>, listed: Vec<Pair>, s_pct: u32, cx: &mut Cx) -> ClustersView {
        let banding = cx
            .session
            .results()
            .filter(|r| r.simhash.is_none())
            .map(|r| (r.bands, r.rows));
        let mut view = ClustersView {
            index,
            threshold_pct: s_pct.max(1),
            banding,
            listed,
            linked: 0,
            // A job kind of its own: one joining runs at a time.
            clusters: Slot::new("Clusters"),
            cursor: Cursor::default(),
        };
        view.join(cx);
        view
    }

    pub fn threshold(&self) -> f64 {
        self.threshold_pct as f64 / 100.0
    }

    #[cfg(test)]
    pub fn threshold_pct(&self) -> u32 {
        self.threshold_pct
    }

    #[cfg(test)]
    pub fn index(&self) -> &Arc<Index> {
        &self.index
    }

    #[cfg(test)]
    pub fn listed(&self) -> &[Pair] {
        &self.listed
    }

    /// The clusters; none while they are joined.
    #[cfg(test)]
    pub fn clusters(&self) -> Option<&[Cluster]> {
        self.clusters.value().map(|c| &c[..])
    }

    /// Joins the listed pairs at the threshold, on a worker.
    fn join(&mut self, cx: &mut Cx) {
        let t = self.threshold();
        let pairs: Vec<Pair> = self
            .listed
            .iter()
            .filter(|p| p.jaccard >= t)
            .copied()
            .collect();
        let index = self.index.clone();
        self.linked = pairs.len();
        self.clusters.start(cx, move |_| {
            let mut clusters = cluster::clusters(&index, &pairs, Keep::Longest);
            // Members in natural order, for the members view, the heatmap and the
            // export (the clusters keep `simtui clusters`' order and numbers).
            for c in &mut clusters {
                order::sort_members(&index, c);
            }
            let summary = format!("{} clusters", clusters.len());
            Ok(Reply::timed(Arc::new(clusters), summary))
        });
    }
}

impl View for ClustersView {
    fn keys(&self, _: &Session) -> Context {
        &KEYS
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        let len = self.clusters.value().map_or(0, |c| c.len());
        if self.cursor.leave_or_move(action, len, cx) {
            return;
        }
        let step = match action {
            Action::SimUp => 5,
            Action::SimDown => -5,
            _ => 0,
        };
        if step != 0 {
            let to = (self.threshold_pct as i32 + step).clamp(5, 100) as u32;
            if to != self.threshold_pct {
                self.threshold_pct = to;
                self.cursor = Cursor::default();
                self.join(cx);
            }
            return;
        }
        let Some(clusters) = self.clusters.value().cloned() else {
            return;
        };
        let Some(c) = clusters.get(self.cursor.selected) else {
            return;
        };
        let (index, number) = (self.index.clone(), self.cursor.selected + 1);
        match action {
            Action::Open => cx.push(MembersView::new(index, c.clone(), number)),
            Action::Heatmap => {
                let heatmap = HeatmapView::open(index, &c.members, format!("{} members", c.members.len()), cx);
                cx.push(heatmap);
            }
            Action::Export => cx.push(ExportView::new(Rows::Clusters(index, clusters.clone()), cx.session.paths())),
            _ => {}
        }
    }

    waits_in_slot!(clusters, join);

    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        render(self, ui, frame, body);
    }
}

fn render(v: &ClustersView, ui: &Ui, frame: &mut Frame, area: Rect) {
    let t = &ui.theme;
    let doc = |d: u32| v.index.docs().at(d as usize);
    let clusters = v.clusters.value().map_or(&[][..], |c| &c[..]);
    let docs: usize = clusters.iter().map(|c| c.members.len()).sum();
    let mut title = vec![
        Span::styled(
            format!(" Clusters {}", fmt::count(clusters.len() as u64)),
            t.title(),
        ),
        Span::raw(format!(
            " · {} · J ≥ {:.2} · from {} of {}",
            fmt::plural(docs as u64, "document", "documents"),
            v.threshold(),
            fmt::count(v.linked as u64),
            fmt::plural(v.listed.len() as u64, "listed pair", "listed pairs")
        )),
    ];
    // The pairs come from this banding: `simtui clusters -t T` finds the same clusters
    // when it is the one -t T chooses.
    if let Some((b, r)) = v.banding {
        let against = super::tuning::against_threshold((b, r), v.threshold());
        title.push(Span::raw(format!(" · b={b} r={r}{against}")));
    }
    if v.clusters.value().is_none() {
        title.push(Span::styled(" · joining…", t.warn()));
    }
    let w = area.width as usize;
    let rank_w = fmt::count(clusters.len().max(1) as u64).len();
    let id_w = w.saturating_sub(1 + rank_w + 2 + 6 + 2 + 6 + 2);
    let row = |i: usize| {
        let c = &clusters[i];
        let numbers = format!(
            " {:>rank_w$}  {:>6}  {:>6.3}  ",
            i + 1,
            c.members.len(),
            c.mean_jaccard,
        );
        let rep = doc(c.representative);
        let mut cells = vec![Cell::plain(numbers)];
        cells.extend(list_table::doc(&rep.id, rep.title(), id_w));
        cells
    };
    let empty = if v.clusters.value().is_none() {
        " Joining the pairs…".to_string()
    } else {
        format!(
            " No listed pair has J ≥ {:.2}. ← lowers the threshold.",
            v.threshold()
        )
    };
    let view = ListTable {
        title: Line::from(title),
        header: format!(
            " {:>rank_w$}  {:>6}  {:>6}  representative (kept: the longest)",
            "#", "size", "mean J"
        ),
        empty,
        note: None,
        len: clusters.len(),
        selected: v.cursor.selected,
        offset: v.cursor.offset,
        row: &row,
    };
    list_table::render(t, frame, area, &view);
}
