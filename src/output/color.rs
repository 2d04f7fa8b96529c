//! `--color auto|always|never`: whether tables on stdout (and the explorer) use colour.
//!
//! Precedence: `--color` on the command line, then `[output] color` in the config file,
//! then `auto`. `always` and `never` are explicit requests and win over NO_COLOR, as
//! <https://no-color.org> asks of flags and config files; `auto` colours only a terminal,
//! and not when NO_COLOR is set to a non-empty value or TERM is `dumb`.

use clap::ValueEnum;
use std::ffi::OsString;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

// No doc comments on the variants: clap would turn them into a long "Possible values"
// block in --help; the flag's own help says what they mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour a stream, given whether it is a terminal and how to read the
    /// environment (a parameter, so tests need not change the process's environment).
    pub fn enabled(self, is_terminal: bool, env: impl Fn(&str) -> Option<OsString>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let no_color = env("NO_COLOR").is_some_and(|v| !v.is_empty());
                let dumb = env("TERM").is_some_and(|v| v == "dumb");
                is_terminal && !no_color && !dumb
            }
        }
    }

    /// [`enabled`](Self::enabled) for stdout and the process's environment.
    pub fn for_stdout(self) -> bool {
        self.enabled(std::io::stdout().is_terminal(), |k| std::env::var_os(k))
    }
}

/// Whether stdout is coloured, decided once at start-up by [`init`].
static STDOUT: AtomicBool = AtomicBool::new(false);

pub fn init(choice: ColorChoice) {
    STDOUT.store(choice.for_stdout(), Ordering::Relaxed);
}

/// ANSI styling that is a no-op when colour is off, so callers format one way.
#[derive(Clone, Copy, Debug)]
pub struct Paint {
    on: bool,
}

impl Paint {
    /// Styles for stdout, as [`init`] decided.
    pub fn stdout() -> Paint {
        Paint {
            on: STDOUT.load(Ordering::Relaxed),
        }
    }

    /// No styles, whatever `--color` says (for output that is not a table).
    pub fn off() -> Paint {
        Paint { on: false }
    }

    #[cfg(test)]
    pub fn with(on: bool) -> Paint {
        Paint { on }
    }

    fn sgr(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Whether styles are written at all.
    pub fn is_on(&self) -> bool {
        self.on
    }

    pub fn bold(&self, text: &str) -> String {
        self.sgr("1", text)
    }

    /// Faint: what is there for completeness (a matrix's diagonal).
    pub fn dim(&self, text: &str) -> String {
        self.sgr("2", text)
    }

    /// Words only the left side of a diff has.
    pub fn removed(&self, text: &str) -> String {
        self.sgr("31", text)
    }

    /// Words only the right side of a diff has.
    pub fn added(&self, text: &str) -> String {
        self.sgr("32", text)
    }

    /// A similarity, already formatted (and padded) by the caller: green from 0.9,
    /// yellow from 0.5, plain below, so the eye finds the near-duplicates first.
    pub fn similarity(&self, value: f64, text: &str) -> String {
        match value {
            v if v >= 0.9 => self.sgr("32", text),
            v if v >= 0.5 => self.sgr("33", text),
            _ => text.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn auto_needs_a_terminal_and_no_no_color() {
        let a = ColorChoice::Auto;
        assert!(a.enabled(true, env(&[])));
        assert!(!a.enabled(false, env(&[])));
        assert!(!a.enabled(true, env(&[("NO_COLOR", "1")])));
        // An empty NO_COLOR does not count (no-color.org).
        assert!(a.enabled(true, env(&[("NO_COLOR", "")])));
        assert!(!a.enabled(true, env(&[("TERM", "dumb")])));
    }

    #[test]
    fn explicit_choices_win_over_the_environment() {
        assert!(ColorChoice::Always.enabled(false, env(&[("NO_COLOR", "1")])));
        assert!(!ColorChoice::Never.enabled(true, env(&[])));
    }

    #[test]
    fn paint_is_plain_when_off() {
        assert_eq!(Paint::with(false).bold("x"), "x");
        assert_eq!(Paint::with(true).bold("x"), "\x1b[1mx\x1b[0m");
        assert_eq!(Paint::with(true).similarity(0.95, "a"), "\x1b[32ma\x1b[0m");
        assert_eq!(Paint::with(true).similarity(0.6, "a"), "\x1b[33ma\x1b[0m");
        assert_eq!(Paint::with(true).similarity(0.1, "a"), "a");
        assert_eq!(Paint::with(true).dim("a"), "\x1b[2ma\x1b[0m");
        assert_eq!(Paint::with(false).dim("a"), "a");
    }
}
