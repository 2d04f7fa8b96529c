//! The clusters view (clusters of the listed pairs, largest first) and the members view
//! (one cluster, its representative first).

use super::app::App;
use super::views::{ClustersView, MembersView};
use super::widgets::fmt;
use super::widgets::list_table::{self, ListTable};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub fn render(app: &App, v: &ClustersView, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let id = |d: u32| v.index.docs[d as usize].id.as_str();
    let clusters = v.clusters.as_deref().map_or(&[][..], |c| &c[..]);
    let docs: usize = clusters.iter().map(|c| c.members.len()).sum();
    let mut title = vec![
        Span::styled(
            format!(" Clusters {}", fmt::count(clusters.len() as u64)),
            t.title(),
        ),
        Span::raw(format!(
            " · {} documents · J ≥ {:.2} · from {} of {} listed pairs",
            fmt::count(docs as u64),
            v.threshold(),
            fmt::count(v.linked as u64),
            fmt::count(v.listed.len() as u64)
        )),
    ];
    if v.clusters.is_none() {
        title.push(Span::styled(" · joining…", t.warn()));
    }
    let w = area.width as usize;
    let rank_w = fmt::count(clusters.len().max(1) as u64).len();
    let id_w = w.saturating_sub(1 + rank_w + 2 + 6 + 2 + 6 + 2);
    let row = |i: usize| {
        let c = &clusters[i];
        format!(
            " {:>rank_w$}  {:>6}  {:>6.3}  {}",
            i + 1,
            c.members.len(),
            c.mean_jaccard,
            fmt::shorten_middle(id(c.representative), id_w)
        )
    };
    let empty = if v.clusters.is_none() {
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
        len: clusters.len(),
        selected: v.cursor.selected,
        offset: v.cursor.offset,
        row: &row,
    };
    list_table::render(t, frame, area, &view);
}

pub fn render_members(app: &App, v: &MembersView, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let id = |d: u32| v.index.docs[d as usize].id.as_str();
    let title = Line::from(vec![
        Span::styled(
            format!(
                " Cluster {} · {} members",
                v.number,
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
        let doc = &v.index.docs[d as usize];
        let (j, est) = v.sims[i];
        let kept = d == v.cluster.representative;
        format!(
            " {}  {:.3}  {:.3}  {:>8}  {}",
            if kept { "kept" } else { "    " },
            j,
            est,
            fmt::count(doc.tokens),
            fmt::shorten_middle(id(d), id_w)
        )
    };
    let view = ListTable {
        title,
        header: format!(
            " {:<4}  {:>5}  {:>5}  {:>8}  document (J with the kept one)",
            "", "J", "est", "words"
        ),
        empty: String::new(),
        len: v.order.len(),
        selected: v.cursor.selected,
        offset: v.cursor.offset,
        row: &row,
    };
    list_table::render(t, frame, area, &view);
}
