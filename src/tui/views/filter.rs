//! The pairs list's filter: a substring of a document's id, source file or title, typed
//! live (capitals make it case-sensitive), then kept, shown on the list's last line. A part of the list view,
//! with a key table of its own while it is typed.

use super::view::Ui;
use crate::tui::keys::{Action, DOWN, ENTER, ESC, KeyTable, UP, b, code};
use crate::tui::widgets::fmt;
use ratatui::Frame;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The keys while the filter is typed: characters are the filter.
#[rustfmt::skip]
pub static KEYS: KeyTable = KeyTable::typing("Filter", &[
    b(&[ENTER], "Enter", Action::FilterKeep, "keep", "keep the filter and go back to the list", true),
    b(&[ESC], "Esc", Action::FilterClear, "clear", "clear the filter", true),
    b(&[code(KeyCode::Backspace)], "⌫", Action::FilterBackspace, "delete", "delete the last character", true),
    b(&[UP], "↑", Action::Up, "up", "select the previous pair", false),
    b(&[DOWN], "↓", Action::Down, "down", "select the next pair", false),
]);

#[derive(Default)]
pub struct Filter {
    text: String,
    /// Being typed (else kept, or empty).
    editing: bool,
}

/// What a key did to the filter being typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// The text changed: the list is filtered again.
    Changed,
    /// Nothing for the list to do.
    Same,
    /// A move in the list: the arrows still move while typing.
    Move,
}

impl Filter {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_editing(&self) -> bool {
        self.editing
    }

    /// The filter line is on screen: being typed, or kept.
    pub fn shown(&self) -> bool {
        self.editing || !self.text.is_empty()
    }

    pub fn start(&mut self) {
        self.editing = true;
    }

    /// Clears a kept filter (Esc in the list). False if there was none.
    pub fn clear(&mut self) -> bool {
        if self.text.is_empty() {
            return false;
        }
        self.text.clear();
        true
    }

    /// A key while the filter is typed.
    pub fn update(&mut self, action: Action) -> Edit {
        match action {
            Action::FilterChar(c) => {
                self.text.push(c);
                Edit::Changed
            }
            Action::FilterBackspace => {
                self.text.pop();
                Edit::Changed
            }
            Action::FilterKeep => {
                self.editing = false;
                Edit::Same
            }
            Action::FilterClear => {
                self.editing = false;
                self.text.clear();
                Edit::Changed
            }
            Action::Up | Action::Down => Edit::Move,
            _ => Edit::Same,
        }
    }

    /// Whether an id matches: smart case, a filter with capitals is case-sensitive.
    /// Returns a test to run on every id (the needle is prepared once).
    pub fn matcher(&self) -> impl Fn(&str) -> bool + '_ {
        let sensitive = self.text.chars().any(char::is_uppercase);
        let needle = if sensitive {
            self.text.clone()
        } else {
            self.text.to_lowercase()
        };
        move |id: &str| {
            if sensitive {
                id.contains(&needle)
            } else {
                id.to_lowercase().contains(&needle)
            }
        }
    }

    pub fn render(&self, ui: &Ui, frame: &mut Frame, area: Rect) {
        let t = &ui.theme;
        let mut spans = vec![
            Span::styled(" Filter id, file, title: ", t.key()),
            Span::raw(fmt::clean(&self.text)),
        ];
        if self.editing {
            spans.push(Span::styled("▏", t.key()));
            spans.push(Span::styled("  Enter keeps · Esc clears", t.dim()));
        } else {
            spans.push(Span::styled("  (/ edits · Esc clears)", t.dim()));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }
}
