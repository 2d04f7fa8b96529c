//! Styles. Colour is decoration only: everything that matters (the selection, changed
//! words, stale results, focus) also carries a modifier, so the explorer stays usable
//! under NO_COLOR and on monochrome terminals.
//!
//! Each coloured style is a role (`title`, `key`, … the method names, see
//! [`Theme::role`]); `[explorer.colors]` in the config file replaces a role's colour. The
//! overrides are installed for the thread that renders ([`install_colors`]), beside the
//! `Theme` value, so `Theme` stays a plain `Copy` flag that views and tests build freely.

use ratatui::style::{Color, Modifier, Style};
use std::cell::RefCell;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

thread_local! {
    /// Role → colour over the defaults, for the rendering thread (each test has its own).
    static OVERRIDES: RefCell<BTreeMap<&'static str, Color>> = const { RefCell::new(BTreeMap::new()) };
}

/// Installs `[explorer.colors]` (role → colour) for this thread's rendering, replacing
/// any installed before. Names are roles of [`Theme::role`] (the config parser checks
/// them against `output::colorspec::COLOR_ROLES`, which a test keeps equal).
pub fn install_colors(colors: &BTreeMap<&'static str, Color>) {
    OVERRIDES.with(|o| {
        *o.borrow_mut() = colors.clone();
    });
}

impl Theme {
    /// The explorer's theme: `color` as resolved from `--color`, the config file,
    /// NO_COLOR and the terminal. With colour off, colour overrides are ignored.
    pub fn new(color: bool) -> Theme {
        Theme { color }
    }

    #[cfg(test)]
    pub fn mono() -> Theme {
        Theme { color: false }
    }

    /// A role's style by name (`output::colorspec::COLOR_ROLES`).
    #[cfg(test)]
    pub fn role(&self, name: &str) -> Option<Style> {
        Some(match name {
            "title" => self.title(),
            "key" => self.key(),
            "warn" => self.warn(),
            "error" => self.error(),
            "dim" => self.dim(),
            "removed" => self.removed(),
            "added" => self.added(),
            "curve" => self.curve(),
            "prev_curve" => self.prev_curve(),
            "threshold" => self.threshold(),
            "sim_marker" => self.sim_marker(),
            "kept" => self.kept(),
            "missed" => self.missed(),
            "bar_done" => self.bar_done(),
            _ => return None,
        })
    }

    /// The colour of `role`: the installed override, else `default`.
    fn colour(role: &str, default: Color) -> Color {
        OVERRIDES
            .with(|o| o.borrow().get(role).copied())
            .unwrap_or(default)
    }

    fn fg(&self, style: Style, role: &str, color: Color) -> Style {
        if self.color {
            style.fg(Self::colour(role, color))
        } else {
            style
        }
    }

    pub fn title(&self) -> Style {
        self.fg(
            Style::new().add_modifier(Modifier::BOLD),
            "title",
            Color::Cyan,
        )
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
            Style::new().fg(Self::colour("dim", Color::DarkGray))
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    pub fn key(&self) -> Style {
        self.fg(
            Style::new().add_modifier(Modifier::BOLD),
            "key",
            Color::Yellow,
        )
    }

    pub fn warn(&self) -> Style {
        self.fg(
            Style::new().add_modifier(Modifier::BOLD),
            "warn",
            Color::Yellow,
        )
    }

    pub fn error(&self) -> Style {
        self.fg(
            Style::new().add_modifier(Modifier::BOLD),
            "error",
            Color::Red,
        )
    }

    /// Words only in the left document.
    pub fn removed(&self) -> Style {
        self.changed("removed", Color::LightRed)
    }

    /// Words only in the right document.
    pub fn added(&self) -> Style {
        self.changed("added", Color::LightGreen)
    }

    /// Words only in one document: the colour of its side (`name`, else `default`), bold
    /// and underlined; without colour, reversed.
    fn changed(&self, name: &str, default: Color) -> Style {
        if self.color {
            Style::new()
                .fg(Self::colour(name, default))
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }

    /// Plot styles: current curve, previous curve, threshold, chosen s, kept and missed pairs.
    pub fn curve(&self) -> Style {
        self.fg(Style::new(), "curve", Color::Cyan)
    }
    pub fn prev_curve(&self) -> Style {
        self.fg(Style::new(), "prev_curve", Color::DarkGray)
    }
    pub fn threshold(&self) -> Style {
        self.fg(Style::new(), "threshold", Color::Yellow)
    }
    pub fn sim_marker(&self) -> Style {
        self.fg(Style::new(), "sim_marker", Color::Magenta)
    }
    pub fn kept(&self) -> Style {
        self.fg(Style::new(), "kept", Color::Green)
    }
    pub fn missed(&self) -> Style {
        self.fg(Style::new(), "missed", Color::Red)
    }
    pub fn bar_done(&self) -> Style {
        self.fg(Style::new(), "bar_done", Color::Green)
    }

    /// A heatmap cell of similarity `v` (0..1): colour from blue to red on top of the
    /// shade character the heatmap draws, which carries the value without colour.
    pub fn heat(&self, v: f64) -> Style {
        if !self.color {
            return Style::new();
        }
        let palette = [
            Color::Blue,
            Color::Cyan,
            Color::Green,
            Color::Yellow,
            Color::Red,
        ];
        let i = ((v.clamp(0.0, 1.0) * 5.0) as usize).min(4);
        Style::new().fg(palette[i])
    }
}
