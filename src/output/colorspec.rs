//! Colours in the config file (`[explorer.colors]`): the roles of the explorer's theme,
//! and their values (a name, an index 0 to 255 or "#rrggbb", as ratatui reads them).
//! Here rather than in `cli`, so that the commands need not know the explorer's colour
//! type, nor the explorer the config parser.

use ratatui::style::Color;
use std::str::FromStr;

/// The explorer's colour roles (`[explorer.colors]`), after the explorer's theme.
pub const COLOR_ROLES: &[&str] = &[
    "title",
    "key",
    "warn",
    "error",
    "dim",
    "removed",
    "added",
    "curve",
    "prev_curve",
    "threshold",
    "sim_marker",
    "kept",
    "missed",
    "bar_done",
];

/// A colour as the config file writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColorSpec(pub Color);

impl FromStr for ColorSpec {
    type Err = ratatui::style::ParseColorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(ColorSpec)
    }
}
