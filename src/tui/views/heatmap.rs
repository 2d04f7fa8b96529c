//! The heatmap view: exact Jaccard between every two documents of a list (a cluster's
//! members, or a document and its nearest neighbours; computed by a job), one shaded cell
//! per pair, with the value under the cursor spelled out; Enter
//! shows the pair under the cursor side by side.

use super::diff::DiffView;
use super::view::{Cx, Ui, View, pair_of};
use crate::tui::keys::{Action, Context, DOWN, ENTER, KeyTable, UP, b, back, code, k};
use crate::tui::session::Session;
use crate::tui::widgets::fmt;
use super::slot::{Slot, waits_in_slot};
use crate::tui::worker::Reply;
use ratatui::Frame;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use simtui_engine::index::Index;
use simtui_engine::analysis::matrix::{self, Matrix, Measure};
use std::sync::Arc;

/// The heatmap's keys.
#[rustfmt::skip]
pub static KEYS: KeyTable = KeyTable::new("Heatmap", &[
    b(&[UP, k('k')], "←↑↓→", Action::Up, "move", "move the cursor (h/j/k/l too)", true),
    b(&[DOWN, k('j')], "", Action::Down, "", "", false),
    b(&[code(KeyCode::Left), k('h')], "", Action::Left, "", "", false),
    b(&[code(KeyCode::Right), k('l')], "", Action::Right, "", "", false),
    b(&[ENTER], "Enter", Action::Open, "diff", "the pair under the cursor side by side", true),
    back("back", "back to where you came from"),
]);

/// The heatmap shows at most this many documents of a list.
pub const MAX_HEATMAP: usize = 64;

pub struct HeatmapView {
    index: Arc<Index>,
    /// What the documents are, for the title: "12 members", "… and its 20 neighbours".
    caption: String,
    docs: Vec<u32>,
    /// Documents left out (beyond [`MAX_HEATMAP`]).
    left_out: usize,
    matrix: Slot<Matrix>,
    /// (row, column) under the cursor.
    at: (usize, usize),
}

impl HeatmapView {
    /// The heatmap of a list of documents (the first [`MAX_HEATMAP`]), computed by a
    /// job; `caption` says what they are (shown after "Heatmap of").
    pub fn open(index: Arc<Index>, members: &[u32], caption: String, cx: &mut Cx) -> HeatmapView {
        let docs: Vec<u32> = members.iter().take(MAX_HEATMAP).copied().collect();
        let mut view = HeatmapView {
            index,
            caption,
            left_out: members.len() - docs.len(),
            docs,
            // A job kind of its own: one matrix is computed at a time.
            matrix: Slot::new("Heatmap"),
            // Off the diagonal, where the values say something.
            at: (usize::from(members.len() > 1), 0),
        };
        view.compute(cx);
        view
    }

    #[cfg(test)]
    pub fn index(&self) -> &Arc<Index> {
        &self.index
    }

    #[cfg(test)]
    pub fn docs(&self) -> &[u32] {
        &self.docs
    }

    /// The similarities; none while they are computed.
    #[cfg(test)]
    pub fn matrix(&self) -> Option<&Matrix> {
        self.matrix.value()
    }

    /// (row, column) under the cursor.
    #[cfg(test)]
    pub fn at(&self) -> (usize, usize) {
        self.at
    }

    fn compute(&mut self, cx: &mut Cx) {
        let (index, docs) = (self.index.clone(), self.docs.clone());
        self.matrix.start(cx, move |_| {
            let m = matrix::compute_docs(&index, &docs, Measure::Jaccard, None);
            let summary = format!("{0}×{0} heatmap", m.n);
            Ok(Reply::timed(m, summary))
        });
    }
}

impl View for HeatmapView {
    fn keys(&self, _: &Session) -> Context {
        &KEYS
    }

    fn update(&mut self, action: Action, cx: &mut Cx) {
        let n = self.docs.len();
        let (i, j) = self.at;
        let clamp = |x: isize| x.clamp(0, n.saturating_sub(1) as isize) as usize;
        match action {
            Action::Back => cx.close(),
            Action::Up => self.at.0 = clamp(i as isize - 1),
            Action::Down => self.at.0 = clamp(i as isize + 1),
            Action::Left => self.at.1 = clamp(j as isize - 1),
            Action::Right => self.at.1 = clamp(j as isize + 1),
            Action::Open if i != j && n > 0 => {
                let (a, b) = (self.docs[i], self.docs[j]);
                let pair = pair_of(&self.index, a, b);
                let diff = DiffView::open(self.index.clone(), pair, cx);
                cx.push(diff);
            }
            Action::Open => cx.say("the diagonal: a document with itself"),
            _ => {}
        }
    }

    waits_in_slot!(matrix, compute);

    fn position(&self) -> String {
        " · from the heatmap".into()
    }

    fn render(&self, ui: &Ui, frame: &mut Frame, body: Rect) {
        render(self, ui, frame, body);
    }
}

/// The shade of a similarity: readable without colour (NO_COLOR, monochrome).
pub fn shade(v: f64) -> char {
    match v {
        v if v >= 0.9 => '█',
        v if v >= 0.7 => '▓',
        v if v >= 0.5 => '▒',
        v if v >= 0.3 => '░',
        v if v > 0.0 => '·',
        _ => ' ',
    }
}

/// The first of `len` items to show in `room` places so that `at` is visible.
fn window(at: usize, len: usize, room: usize) -> usize {
    if len <= room {
        0
    } else {
        at.saturating_sub(room / 2).min(len - room)
    }
}

/// The header over columns `from..to` (numbered from 1), `cell` characters each: the
/// cursor's column number, then every fifth one, each written whole from its column
/// where it fits with a space before the next (10 reads 10, not 0).
fn column_numbers(from: usize, to: usize, cursor: usize, cell: usize) -> String {
    let width = (to - from) * cell;
    let mut text = vec![' '; width];
    let mut taken = vec![false; width];
    let fifths = (from..to).filter(|j| (j + 1) % 5 == 0);
    for j in std::iter::once(cursor).filter(|j| (from..to).contains(j)).chain(fifths) {
        let number: Vec<char> = (j + 1).to_string().chars().collect();
        let at = (j - from) * cell;
        let end = at + number.len();
        let clear = at.saturating_sub(1)..(end + 1).min(width);
        if end <= width && taken[clear].iter().all(|t| !t) {
            text[at..end].copy_from_slice(&number);
            taken[at..end].iter_mut().for_each(|t| *t = true);
        }
    }
    text.into_iter().collect()
}

fn render(v: &HeatmapView, ui: &Ui, frame: &mut Frame, area: Rect) {
    let t = &ui.theme;
    let w = area.width as usize;
    let doc = |i: usize| v.index.docs().at(v.docs[i] as usize);
    // A document by its id and title, in `room` columns.
    let label = |i: usize, room: usize| {
        let (id, title) = fmt::id_and_title(&doc(i).id, doc(i).title(), room);
        id + &title
    };
    let n = v.docs.len();
    let mut lines = vec![Line::from(vec![
        Span::styled(format!(" Heatmap of {}", v.caption), t.title()),
        Span::raw(if v.left_out > 0 {
            format!(" (the first {n}; {} more not shown)", v.left_out)
        } else {
            String::new()
        }),
        Span::styled("  █ ≥0.9 ▓ ≥0.7 ▒ ≥0.5 ░ ≥0.3 · >0", t.dim()),
    ])];
    let Some(m) = v.matrix.value() else {
        lines.push(Line::from(Span::styled(" Comparing…", t.dim())));
        frame.render_widget(Paragraph::new(lines), area);
        return;
    };
    let (ci, cj) = v.at;
    // The value under the cursor, between the two documents.
    let num_w = n.to_string().len();
    let side = w.saturating_sub(12 + 5 + 2 * (num_w + 3)) / 2;
    lines.push(Line::from(vec![
        Span::styled(format!(" J = {:.3}", m.get(ci, cj)), t.key()),
        Span::raw(format!(
            "  [{}] {}  ×  [{}] {}",
            ci + 1,
            label(ci, side),
            cj + 1,
            label(cj, side)
        )),
    ]));
    // Row labels: number, id and title; two characters per cell when they fit.
    let label_w = (w / 3).clamp(num_w + 2, 40);
    let cell = if label_w + 2 * n <= w { 2 } else { 1 };
    let cols = ((w.saturating_sub(label_w)) / cell).max(1);
    let rows = (area.height as usize).saturating_sub(3).max(1);
    let (r0, c0) = (window(ci, n, rows), window(cj, n, cols));
    let header = fmt::pad("", label_w) + &column_numbers(c0, (c0 + cols).min(n), cj, cell);
    lines.push(Line::from(Span::styled(header, t.dim())));
    for i in r0..(r0 + rows).min(n) {
        let label = format!("{:>num_w$} {}", i + 1, label(i, label_w - num_w - 2));
        let mut spans = vec![Span::styled(
            fmt::pad(&label, label_w),
            if i == ci { t.key() } else { t.dim() },
        )];
        for j in c0..(c0 + cols).min(n) {
            let value = m.get(i, j);
            let text: String = std::iter::repeat_n(shade(value), cell).collect();
            let style = if (i, j) == (ci, cj) {
                t.selected()
            } else {
                t.heat(value)
            };
            spans.push(Span::styled(text, style));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

#[cfg(test)]
mod tests {
    use super::column_numbers;

    #[test]
    fn column_numbers_are_written_whole() {
        // Columns 1..=12, one character each, the cursor on column 3.
        assert_eq!(column_numbers(0, 12, 2, 1), "  3 5    10 ");
        // Two characters a cell: 10 starts at its column.
        let two = column_numbers(0, 12, 0, 2);
        assert_eq!(&two[18..20], "10");
        assert!(two.starts_with("1 "));
        // A number that would run into the next one is left out, never cut.
        assert_eq!(column_numbers(98, 106, 99, 1), " 100    ");
    }
}
