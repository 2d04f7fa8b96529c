//! The heatmap view: exact Jaccard between every two members of a cluster, one shaded
//! cell per pair, with the value under the cursor spelled out.

use super::app::App;
use super::views::HeatmapView;
use super::widgets::fmt;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

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

pub fn render(app: &App, v: &HeatmapView, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let w = area.width as usize;
    let id = |i: usize| v.index.docs[v.docs[i] as usize].id.as_str();
    let n = v.docs.len();
    let mut lines = vec![Line::from(vec![
        Span::styled(format!(" Heatmap of {n} members"), t.title()),
        Span::raw(if v.left_out > 0 {
            format!(" (the first {n}; {} more not shown)", v.left_out)
        } else {
            String::new()
        }),
        Span::styled("  █ ≥0.9 ▓ ≥0.7 ▒ ≥0.5 ░ ≥0.3 · >0", t.dim()),
    ])];
    let Some(m) = &v.matrix else {
        lines.push(Line::from(Span::styled(" Comparing…", t.dim())));
        frame.render_widget(Paragraph::new(lines), area);
        return;
    };
    let (ci, cj) = v.at;
    // The value under the cursor.
    lines.push(Line::from(vec![
        Span::styled(format!(" J = {:.3}", m.get(ci, cj)), t.key()),
        Span::raw(fmt::shorten_middle(
            &format!("  [{}] {}  ×  [{}] {}", ci + 1, id(ci), cj + 1, id(cj)),
            w.saturating_sub(12),
        )),
    ]));
    // Row labels: number and a shortened id; two characters per cell when they fit.
    let num_w = n.to_string().len();
    let label_w = (w / 4).clamp(num_w + 2, 30);
    let cell = if label_w + 2 * n <= w { 2 } else { 1 };
    let cols = ((w.saturating_sub(label_w)) / cell).max(1);
    let rows = (area.height as usize).saturating_sub(3).max(1);
    let (r0, c0) = (window(ci, n, rows), window(cj, n, cols));
    let mut header = fmt::pad("", label_w);
    for j in c0..(c0 + cols).min(n) {
        // Column numbers every fifth column (and the cursor's).
        let mark = if j == cj || (j + 1) % 5 == 0 {
            ((j + 1) % 10).to_string()
        } else {
            " ".into()
        };
        header.push_str(&fmt::pad(&mark, cell));
    }
    lines.push(Line::from(Span::styled(header, t.dim())));
    for i in r0..(r0 + rows).min(n) {
        let label = format!(
            "{:>num_w$} {}",
            i + 1,
            fmt::shorten_middle(&fmt::clean(id(i)), label_w - num_w - 2)
        );
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
