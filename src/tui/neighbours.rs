//! The neighbours view: the documents most similar to one, by exact Jaccard.

use super::app::App;
use super::views::NeighboursView;
use super::widgets::fmt;
use super::widgets::list_table::{self, ListTable};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub fn render(app: &App, v: &NeighboursView, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let id = |d: u32| v.index.docs[d as usize].id.as_str();
    let w = area.width as usize;
    let mut title = vec![
        Span::styled(" Neighbours of ", t.title()),
        Span::styled(fmt::shorten_middle(id(v.doc), w / 2), t.title()),
    ];
    let empty = match &v.answer {
        None => {
            title.push(Span::styled(" · searching…", t.warn()));
            " Searching the LSH buckets…".to_string()
        }
        Some(a) => {
            let scanned = a.neighbours.iter().filter(|n| n.scanned).count();
            title.push(Span::raw(format!(
                " · {} candidates (b={} r={}){}",
                fmt::count(a.candidates as u64),
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
    let neighbours = v.answer.as_ref().map_or(&[][..], |a| &a.neighbours[..]);
    let rank_w = fmt::count(neighbours.len().max(1) as u64).len();
    let id_w = w.saturating_sub(1 + rank_w + 2 + 5 + 2 + 5 + 2 + 4 + 2);
    let row = |i: usize| {
        let n = &neighbours[i];
        format!(
            " {:>rank_w$}  {:.3}  {:.3}  {}  {}",
            i + 1,
            n.jaccard,
            n.estimate,
            // Where it was found: an LSH candidate, or only by the brute-force scan.
            if n.scanned { "scan" } else { "LSH " },
            fmt::shorten_middle(id(n.doc), id_w)
        )
    };
    let view = ListTable {
        title: Line::from(title),
        header: format!(
            " {:>rank_w$}  {:>5}  {:>5}  {:<4}  document",
            "#", "J", "est", "via"
        ),
        empty,
        len: neighbours.len(),
        selected: v.cursor.selected,
        offset: v.cursor.offset,
        row: &row,
    };
    list_table::render(t, frame, area, &view);
}
