//! A titled list with a header row and a selected row: the frame the neighbours,
//! clusters and members views share with the pairs list's look. A row is a few cells,
//! titles dimmed beside the ids they name (as in the pairs list).

use super::fmt;
use super::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A piece of a row: its text, dimmed or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    pub dim: bool,
}

impl Cell {
    pub fn plain(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            dim: false,
        }
    }

    pub fn dim(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            dim: true,
        }
    }
}

/// A document in a column exactly `width` wide: its id, then its title dimmed where
/// there is room (see [`fmt::id_and_title`]).
pub fn doc(id: &str, title: &str, width: usize) -> Vec<Cell> {
    let mut cells = last_doc(id, title, width);
    let used: usize = cells.iter().map(|c| fmt::width(&c.text)).sum();
    cells.push(Cell::plain(" ".repeat(width.saturating_sub(used))));
    cells
}

/// A document in the last column, at most `width` wide (not padded: what follows it,
/// such as "(not in the corpus)", comes right after).
pub fn last_doc(id: &str, title: &str, width: usize) -> Vec<Cell> {
    let (id, title) = fmt::id_and_title(id, title, width);
    vec![Cell::plain(id), Cell::dim(title)]
}

/// Rows a note above a list takes at most.
pub const NOTE_ROWS: usize = 3;

/// `text` in lines of at most `width` columns, broken between words (a word wider than
/// that is cut).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let w = fmt::width(&line) + usize::from(!line.is_empty()) + fmt::width(word);
        if !line.is_empty() && w > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&fmt::pad(word, width.min(fmt::width(word))));
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

pub struct ListTable<'a> {
    pub title: Line<'static>,
    pub header: String,
    /// Shown instead of rows when there are none.
    pub empty: String,
    /// A warning above the rows (what the user must know about all of them), wrapped
    /// to at most [`NOTE_ROWS`] rows, which the rows give up.
    pub note: Option<String>,
    pub len: usize,
    /// The selected row, and the first row shown.
    pub selected: usize,
    pub offset: usize,
    /// The cells of row `i`.
    pub row: &'a dyn Fn(usize) -> Vec<Cell>,
}

/// A row on screen, `w` columns: one style for the whole selected row (the selection
/// shows without colour), its dimmed cells dimmed otherwise.
fn row_line(cells: Vec<Cell>, selected: bool, w: usize, theme: &Theme) -> Line<'static> {
    let cells: Vec<Cell> = cells
        .into_iter()
        .map(|c| Cell {
            text: fmt::clean(&c.text),
            ..c
        })
        .collect();
    let text: String = cells.iter().map(|c| c.text.as_str()).collect();
    if selected {
        // Reverse video as well as colour: the selection survives NO_COLOR.
        return Line::from(Span::styled(fmt::pad(&text, w), theme.selected()));
    }
    let mut spans = Vec::with_capacity(cells.len() + 1);
    let mut used = 0;
    for c in cells {
        let room = w.saturating_sub(used);
        if room == 0 {
            break;
        }
        let text = if fmt::width(&c.text) > room {
            fmt::pad(&c.text, room)
        } else {
            c.text
        };
        used += fmt::width(&text);
        spans.push(match c.dim {
            true => Span::styled(text, theme.dim()),
            false => Span::raw(text),
        });
    }
    spans.push(Span::raw(" ".repeat(w.saturating_sub(used))));
    Line::from(spans)
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
    let mut rows = super::layout::list_rows(area);
    if let Some(note) = &view.note {
        let wrapped = wrap_words(&fmt::clean(note), w.saturating_sub(2).max(10));
        for line in wrapped.into_iter().take(NOTE_ROWS) {
            lines.push(Line::from(Span::styled(format!(" {line}"), theme.warn())));
            rows = rows.saturating_sub(1);
        }
    }
    let start = view.offset.min(view.len);
    for i in start..(start + rows).min(view.len) {
        lines.push(row_line((view.row)(i), i == view.selected, w, theme));
    }
    frame.render_widget(Paragraph::new(lines), area);
}
