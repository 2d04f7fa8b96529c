//! Key names in the config file (`"q"`, `"G"`, `"ctrl-c"`, `"shift-tab"`, `"pgdn"`,
//! `"f5"`) and the crossterm keys they stand for, and the names of the actions they bind
//! (`[explorer.keys]`). Shared by the config parser and the explorer's key tables.
//!
//! The keys follow the explorer's matching rule: a character carries Shift in itself
//! (`"G"`, not `"shift-g"`, though both are accepted and mean the same), and only Ctrl
//! and Alt are modifiers for it; named keys carry Shift as a modifier (`"shift-up"`).

use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use std::fmt;
use std::str::FromStr;

/// The explorer's actions that take keys (`[explorer.keys]`): its `Action` variants in
/// snake_case, less text entry, the wheel and resizing.
pub const ACTIONS: &[&str] = &[
    "quit",
    "toggle_help",
    "up",
    "down",
    "left",
    "right",
    "page_up",
    "page_down",
    "top",
    "bottom",
    "open",
    "back",
    "next_pair",
    "prev_pair",
    "next_change",
    "prev_change",
    "start_filter",
    "cycle_sort",
    "toggle_tuning",
    "bands_up",
    "bands_down",
    "rows_up",
    "rows_down",
    "shingle_up",
    "shingle_down",
    "toggle_unit",
    "sim_up",
    "sim_down",
    "threshold_banding",
    "neighbours",
    "neighbours_other",
    "clusters",
    "heatmap",
    "export",
    "switch_method",
    "switch_sketch",
    "mark_wrong",
    "toggle_lines",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyStroke {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

const NAMED: &[(&str, KeyCode)] = &[
    ("enter", KeyCode::Enter),
    ("return", KeyCode::Enter),
    ("esc", KeyCode::Esc),
    ("escape", KeyCode::Esc),
    ("tab", KeyCode::Tab),
    ("backtab", KeyCode::BackTab),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("del", KeyCode::Delete),
    ("insert", KeyCode::Insert),
    ("ins", KeyCode::Insert),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
    ("pageup", KeyCode::PageUp),
    ("pgup", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown),
    ("pgdn", KeyCode::PageDown),
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
    ("space", KeyCode::Char(' ')),
];

impl FromStr for KeyStroke {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = |why: &str| format!("{s:?} is not a key: {why}");
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = s;
        // "ctrl--" is Ctrl and the minus key: a prefix is stripped only if a key remains.
        loop {
            let lower = rest.to_ascii_lowercase();
            let (m, len) = if lower.starts_with("ctrl-") {
                (KeyModifiers::CONTROL, 5)
            } else if lower.starts_with("alt-") {
                (KeyModifiers::ALT, 4)
            } else if lower.starts_with("shift-") {
                (KeyModifiers::SHIFT, 6)
            } else {
                break;
            };
            if rest.len() == len {
                break;
            }
            modifiers |= m;
            rest = &rest[len..];
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (None, _) => return Err(bad("empty")),
            (Some(c), None) => KeyCode::Char(c),
            _ => {
                let lower = rest.to_ascii_lowercase();
                if let Some((_, code)) = NAMED.iter().find(|(n, _)| *n == lower) {
                    *code
                } else if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse().ok())
                    && (1..=24).contains(&n)
                {
                    KeyCode::F(n)
                } else {
                    return Err(bad(
                        "use one character, or a name such as enter, esc, tab, up, pgdn, f1, \
                         with ctrl-, alt- or shift- in front",
                    ));
                }
            }
        };
        Ok(normalise(code, modifiers))
    }
}

/// One spelling per key, as terminals report it: Shift folded into a character,
/// Shift-Tab as BackTab with Shift (crossterm's report), letters under Ctrl or Alt alone
/// lowercase.
fn normalise(code: KeyCode, mut modifiers: KeyModifiers) -> KeyStroke {
    let shift = modifiers.contains(KeyModifiers::SHIFT);
    let code = match code {
        KeyCode::Char(c) => {
            modifiers.remove(KeyModifiers::SHIFT);
            if shift {
                KeyCode::Char(c.to_uppercase().next().unwrap_or(c))
            } else if !modifiers.is_empty() && c.is_ascii_uppercase() {
                KeyCode::Char(c.to_ascii_lowercase())
            } else {
                KeyCode::Char(c)
            }
        }
        KeyCode::Tab if shift => KeyCode::BackTab,
        KeyCode::BackTab => {
            modifiers |= KeyModifiers::SHIFT;
            KeyCode::BackTab
        }
        c => c,
    };
    KeyStroke { code, modifiers }
}

impl fmt::Display for KeyStroke {
    /// The canonical spelling, which parses back to the same key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (m, name) in [
            (KeyModifiers::CONTROL, "ctrl-"),
            (KeyModifiers::ALT, "alt-"),
            (KeyModifiers::SHIFT, "shift-"),
        ] {
            if self.modifiers.contains(m) && self.code != KeyCode::BackTab {
                f.write_str(name)?;
            }
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::F(n) => write!(f, "f{n}"),
            code => {
                let name = NAMED.iter().find(|(_, c)| *c == code).map(|(n, _)| *n);
                f.write_str(name.unwrap_or("?"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> KeyStroke {
        s.parse().unwrap()
    }

    #[test]
    fn characters_carry_shift() {
        assert_eq!(key("G"), key("shift-g"));
        assert_eq!(key("G").code, KeyCode::Char('G'));
        assert_eq!(key("G").modifiers, KeyModifiers::NONE);
        assert_eq!(key("ctrl-C"), key("ctrl-c"));
        assert_eq!(key("ctrl-c").modifiers, KeyModifiers::CONTROL);
    }

    #[test]
    fn named_keys_and_modifiers() {
        assert_eq!(key("PgDn").code, KeyCode::PageDown);
        assert_eq!(key("space").code, KeyCode::Char(' '));
        assert_eq!(key("f12").code, KeyCode::F(12));
        assert_eq!(key("shift-tab"), key("backtab"));
        assert_eq!(key("shift-tab").modifiers, KeyModifiers::SHIFT);
        let k = key("alt-shift-up");
        assert_eq!(k.code, KeyCode::Up);
        assert_eq!(k.modifiers, KeyModifiers::ALT | KeyModifiers::SHIFT);
        assert_eq!(key("-").code, KeyCode::Char('-'));
        assert_eq!(
            key("ctrl--"),
            KeyStroke {
                code: KeyCode::Char('-'),
                modifiers: KeyModifiers::CONTROL
            }
        );
    }

    #[test]
    fn bad_keys_are_explained() {
        for s in ["", "ctrl-", "pagedwn", "f0", "f25", "hyper-x"] {
            let e = s.parse::<KeyStroke>().unwrap_err();
            assert!(e.contains("is not a key"), "{s}: {e}");
        }
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "q",
            "G",
            "ctrl-c",
            "alt-enter",
            "shift-up",
            "backtab",
            "f5",
            "space",
            "pgdn",
            "-",
        ] {
            assert_eq!(key(&key(s).to_string()), key(s), "{s}");
        }
    }
}
