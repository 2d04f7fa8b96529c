//! The explorer's flags, and what it takes from the config file and the global flags,
//! resolved in one struct for `tui::run` to use.

use super::config::ACTIONS;
use super::diag::{self, Log};
use super::keyspec::KeyStroke;
use super::startup::Startup;
use super::{UsageError, config::COLOR_ROLES};
use clap::Args;
use ratatui::style::Color;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Flags of the explorer only (the root command).
#[derive(Args, Clone, Debug)]
pub struct ExplorerArgs {
    /// Don't capture the mouse: the terminal's own text selection works
    ///
    /// Keeps the terminal's text selection; the wheel no longer scrolls the views.
    #[arg(long, overrides_with = "mouse")]
    pub no_mouse: bool,
    /// Capture the mouse, even if the config file says `mouse = false`
    #[arg(long)]
    pub mouse: bool,
    /// Write the explorer's log to FILE (appending); it never writes to the terminal
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
}

/// Everything the explorer takes beyond `ExploreOptions`' engine settings.
#[derive(Clone)]
pub struct ExplorerSettings {
    /// Use colour: `--color` / `[output] color` resolved with NO_COLOR and the terminal.
    pub color: bool,
    /// Capture the mouse: `--no-mouse` / `--mouse`, else `[explorer] mouse`, else on.
    pub mouse: bool,
    /// `--log FILE`, opened: write diagnostics here, never to the terminal.
    pub log: Option<Arc<Log>>,
    /// `-v` count: how much to log.
    pub verbose: u8,
    /// `[explorer.colors]`: role (one of [`COLOR_ROLES`]) → colour, over the theme's.
    pub colors: BTreeMap<&'static str, Color>,
    /// `[explorer.keys]`: action (one of [`ACTIONS`], the `Action` variant in
    /// snake_case) → the keys that replace its default keys in every view.
    pub keys: BTreeMap<&'static str, Vec<KeyStroke>>,
    /// `[index] threshold`: a starting similarity for the tuning panel, if set.
    pub threshold: Option<f64>,
}

impl ExplorerSettings {
    /// Resolves the settings and opens the log. Errors (an unwritable log) come before
    /// the terminal is touched, as usage errors.
    pub fn resolve(args: &ExplorerArgs, startup: &Startup) -> Result<Self, UsageError> {
        let config = &startup.config;
        let mouse = if args.no_mouse {
            false
        } else {
            args.mouse || config.mouse.unwrap_or(true)
        };
        let log = match &args.log {
            Some(path) => Some(Arc::new(Log::open(path)?)),
            None => None,
        };
        match &log {
            Some(log) => diag::to_log(log.clone()),
            None => diag::discard(),
        }
        // Checked by the config parser already; asserted so the lists stay the contract.
        debug_assert!(config.colors.keys().all(|r| COLOR_ROLES.contains(r)));
        debug_assert!(config.keys.keys().all(|a| ACTIONS.contains(a)));
        Ok(ExplorerSettings {
            color: startup.color.for_stdout(),
            mouse,
            log,
            verbose: startup.verbose,
            colors: config.colors.clone(),
            keys: config.keys.clone(),
            threshold: config.threshold(),
        })
    }
}
