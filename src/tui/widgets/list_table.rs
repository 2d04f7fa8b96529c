//! A titled list with a header row and a selected row: the frame the neighbours,
//! clusters and members views share with the pairs list's look.

use super::fmt;
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub struct ListTable<'a> {
    pub title: Line<'static>,
    pub header: String,
    /// Shown instead of rows when there are none.
    pub empty: String,
    pub len: usize,
    /// The selected row, and the first row shown.
    pub selected: usize,
    pub offset: usize,
    /// The text of row `i`.
    pub row: &'a dyn Fn(usize) -> String,
}

pub fn render(theme: &Theme, frame: &mut Frame, area: Rect, view: &ListTable) {
    let w = area.width as usize;
    let mut lines = vec![
        view.title.clone(),
        Line::from(Span::styled(fmt::pad(&view.header, w), theme.header())),
    ];
    if view.len == 0 {
        lines.push(Line::from(Span::styled(view.empty.clone(), theme.dim())));
    }
    let rows = super::layout::list_rows(area);
    let start = view.offset.min(view.len);
    for i in start..(start + rows).min(view.len) {
        let text = fmt::pad(&fmt::clean(&(view.row)(i)), w);
        // Reverse video as well as colour: the selection survives NO_COLOR.
        lines.push(if i == view.selected {
            Line::from(Span::styled(text, theme.selected()))
        } else {
            Line::from(text)
        });
    }
    frame.render_widget(Paragraph::new(lines), area);
}
