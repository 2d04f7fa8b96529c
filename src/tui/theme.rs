//! Styles. Colour is decoration only: everything that matters (the selection, changed
//! words, stale results, focus) also carries a modifier, so the explorer stays usable
//! under NO_COLOR and on monochrome terminals.

use ratatui::style::{Color, Modifier, Style};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless NO_COLOR is set to a non-empty value (https://no-color.org).
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { color: !no_color }
    }

    #[cfg(test)]
    pub fn mono() -> Theme {
        Theme { color: false }
    }

    fn fg(&self, style: Style, color: Color) -> Style {
        if self.color { style.fg(color) } else { style }
    }

    pub fn title(&self) -> Style {
        self.fg(Style::new().add_modifier(Modifier::BOLD), Color::Cyan)
    }

    pub fn header(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// The selected row: reversed and bold, so it never depends on colour.
    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }

    pub fn dim(&self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn key(&self) -> Style {
        self.fg(Style::new().add_modifier(Modifier::BOLD), Color::Yellow)
    }

    pub fn warn(&self) -> Style {
        self.fg(Style::new().add_modifier(Modifier::BOLD), Color::Yellow)
    }

    pub fn error(&self) -> Style {
        self.fg(Style::new().add_modifier(Modifier::BOLD), Color::Red)
    }

    /// Words only in the left document.
    pub fn removed(&self) -> Style {
        if self.color {
            Style::new()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }

    /// Words only in the right document.
    pub fn added(&self) -> Style {
        if self.color {
            Style::new()
                .fg(Color::LightGreen)
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }

    /// Plot styles: current curve, previous curve, threshold, chosen s, kept and missed pairs.
    pub fn curve(&self) -> Style {
        self.fg(Style::new(), Color::Cyan)
    }
    pub fn prev_curve(&self) -> Style {
        self.fg(Style::new(), Color::DarkGray)
    }
    pub fn threshold(&self) -> Style {
        self.fg(Style::new(), Color::Yellow)
    }
    pub fn sim_marker(&self) -> Style {
        self.fg(Style::new(), Color::Magenta)
    }
    pub fn kept(&self) -> Style {
        self.fg(Style::new(), Color::Green)
    }
    pub fn missed(&self) -> Style {
        self.fg(Style::new(), Color::Red)
    }
    pub fn bar_done(&self) -> Style {
        self.fg(Style::new(), Color::Green)
    }
}
