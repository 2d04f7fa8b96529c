//! The members view: one cluster's documents, the one kept (the representative) first,
//! then by J with it. Enter shows a member beside the kept one; n its neighbours; h the
//! cluster's heatmap.

use super::diff::DiffView;
use super::heatmap::HeatmapView;
use super::neighbours::NeighboursView;
use super::view::{Cursor, Cx, Ui, View, pair_of};
use crate::tui::keys::{Action, Context, ENTER, KeyTable, b, back, k, list_keys};
use crate::tui::session::Session;
use crate::tui::widgets::fmt;
use crate::tui::widgets::list_table::{self, Cell, ListTable};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use simtui_engine::analysis::cluster::Cluster;
use simtui_engine::index::Index;
use simtui_engine::natural_cmp;
use std::sync::Arc;

/// The members view's keys.
#[rustfmt::skip]
pub static KEYS: KeyTable = list_keys!("Cluster members", "member", [
    b(&[ENTER], "Enter", Action::Open, "diff", "the representative and the member side by side", true),
    b(&[k('n')], "n", Action::Neighbours, "neighbours", "the nearest neighbours of the member", true),
    b(&[k('h')], "h", Action::Heatmap, "heatmap", "the similarity of every pair of members", true),
    back("back", "back to the clusters"),
]);

pub struct MembersView {
    index: Arc<Index>,
    cluster: Cluster,
    /// What the members are, for the title ("Cluster 3").
    name: String,
    /// The members, the representative first, then by J to it (descending).
    order: Vec<u32>,
    /// (exact J, estimate) of each member with the representative.
    sims: Vec<(f64, f64)>,
    cursor: Cursor,
}

impl MembersView {
    /// The members of `cluster`, number `number` of its list.
    pub fn new(index: Arc<Index>, cluster: Cluster, number: usize) -> MembersView {
        MembersView::named(index, cluster, format!("Cluster {number}"))
    }

    /// The members of `cluster`, called `name` in the title.
    pub fn named(index: Arc<Index>, cluster: Cluster, name: String) -> MembersView {
        let rep = cluster.representative;
        let mut order: Vec<(u32, (f64, f64))> = cluster
            .members
            .iter()
            .map(|&d| (d, index.similarity(rep, d)))
            .collect();
        // The representative first, then the most similar to it, ties by id (numbers
        // as numbers: copy_2 before copy_10).
        let id = |d: u32| index.docs().id(d as usize);
        order.sort_by(|x, y| {
            (y.0 == rep)
                .cmp(&(x.0 == rep))
                .then(y.1.0.total_cmp(&x.1.0))
                .then_with(|| natural_cmp(&id(x.0), &id(y.0)))
        });
        MembersView {
            index,
            cluster,
            name,
            sims: order.iter().map(|x| x.1).collect(),
            order: order.into_iter().map(|x| x.0).collect(),
            cursor: Cursor::default(),
        }
    }

    #[cfg(test)]
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// The members in list order.
    #[cfg(test)]
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// (exact J, estimate) of each member with the representative, in list order.
    #[cfg(test)]
    pub fn sims(&self) -> &[(f64, f64)] {
        &self.sims
    }
}

impl View for MembersView {
    fn keys(&self, _: &Session) -> Context {
        &KEYS
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        if self.cursor.leave_or_move(action, self.order.len(), cx) {
            return;
        }
        let index = self.index.clone();
        let d = self.order[self.cursor.selected.min(self.order.len() - 1)];
        let rep = self.cluster.representative;
        match action {
            Action::Open if d != rep => {
                let pair = pair_of(&index, rep, d);
                let diff = DiffView::open(index, pair, cx);
                cx.push(diff);
            }
            Action::Open => cx.say("the representative: choose another member"),
            Action::Neighbours => {
                if let Some(view) = NeighboursView::open(index, d, cx) {
                    cx.push(view);
                }
            }
            Action::Heatmap => {
                let heatmap = HeatmapView::open(index, &self.order, format!("{} members", self.order.len()), cx);
                cx.push(heatmap);
            }
            _ => {}
        }
    }

    fn step(&mut self, step: isize, cx: &mut Cx) -> bool {
        // The representative (row 0) has no pair with itself.
        let rows = (1, self.order.len());
        self.cursor.step_rows(step, rows, "pair", cx)
    }

    fn position(&self) -> String {
        format!(" · member {} (with the kept one)", self.cursor.of(self.order.len()))
    }

    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        render(self, ui, frame, body);
    }
}

fn render(v: &MembersView, ui: &Ui, frame: &mut Frame, area: Rect) {
    let t = &ui.theme;
    let title = Line::from(vec![
        Span::styled(
            format!(
                " {} · {} members",
                v.name,
                fmt::count(v.order.len() as u64)
            ),
            t.title(),
        ),
        Span::raw(format!(" · mean J {:.3}", v.cluster.mean_jaccard)),
    ]);
    let w = area.width as usize;
    let id_w = w.saturating_sub(1 + 4 + 2 + 5 + 2 + 5 + 2 + 8 + 2);
    let row = |i: usize| {
        let d = v.order[i];
        let doc = &v.index.docs().at(d as usize);
        let (j, est) = v.sims[i];
        let kept = d == v.cluster.representative;
        let numbers = format!(
            " {}  {:.3}  {:.3}  {:>8}  ",
            if kept { "kept" } else { "    " },
            j,
            est,
            fmt::count(doc.tokens),
        );
        let mut cells = vec![Cell::plain(numbers)];
        cells.extend(list_table::doc(&doc.id, doc.title(), id_w));
        cells
    };
    let view = ListTable {
        title,
        header: format!(
            " {:<4}  {:>5}  {:>5}  {:>8}  document (J with the kept one)",
            "", "J", "est", "words"
        ),
        empty: String::new(),
        note: None,
        len: v.order.len(),
        selected: v.cursor.selected,
        offset: v.cursor.offset,
        row: &row,
    };
    list_table::render(t, frame, area, &view);
}
