//! What the explorer takes from the command line and the config file (the `explorer`
//! command resolves them).

use crate::output::colorspec::ColorSpec;
use crate::output::diag::Log;
use crate::output::keyspec::KeyStroke;
use simtui_engine::index::Params;
use simtui_engine::source::WalkOptions;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The similarity the explorer starts at without `[index] threshold`: where the tuning
/// panel shows recall, where clusters are cut, and what its banding is chosen for (as
/// `-t 0.8` chooses it) unless one is given.
pub const DEFAULT_S: f64 = 0.8;

/// Everything the explorer needs from the command line and the config file.
#[derive(Clone)]
pub struct ExploreOptions {
    /// Folders and files to explore; empty means the built-in demo corpus.
    pub roots: Vec<PathBuf>,
    pub walk: WalkOptions,
    pub params: Params,
    pub bands: usize,
    pub rows: usize,
    /// A saved index to open (and update) instead of reading every file.
    pub index_file: Option<PathBuf>,
    /// The memory the index keeps within (`--memory`, `--tmp-dir`).
    pub budget: simtui_engine::storage::Budget,
    /// A removal list to review (`--review`), read before the terminal is touched.
    pub review: Option<crate::tui::views::review::Review>,
    /// Pairs computed elsewhere to list (`--pairs`), read before the terminal is touched.
    pub pairs_file: Option<crate::tui::views::pairs_file::PairsFile>,
    /// Colour, mouse, log, colours, keys and the starting similarity, resolved from the
    /// flags and the config file.
    pub settings: Settings,
    /// The run's inputs and outputs, checked before the terminal is touched: the export
    /// is checked against them too.
    pub paths: crate::output::guard::Paths,
}

/// Everything the explorer takes beyond `ExploreOptions`' engine settings.
#[derive(Clone)]
pub struct Settings {
    /// Use colour: `--color` / `[output] color` resolved with NO_COLOR and the terminal.
    pub color: bool,
    /// Capture the mouse: `--no-mouse` / `--mouse`, else `[explorer] mouse`, else on.
    pub mouse: bool,
    /// `--log FILE`, opened: write diagnostics here, never to the terminal.
    pub log: Option<Arc<Log>>,
    /// `-v` count: how much to log.
    pub verbose: u8,
    /// `[explorer.colors]`: role (one of `COLOR_ROLES`) → colour, over the theme's.
    pub colors: BTreeMap<&'static str, ColorSpec>,
    /// `[explorer.keys]`: action (one of `ACTIONS`, the `Action` variant in snake_case)
    /// → the keys that replace its default keys in every view.
    pub keys: BTreeMap<&'static str, Vec<KeyStroke>>,
    /// `[index] threshold`: a starting similarity for the tuning panel, if set.
    pub threshold: Option<f64>,
    /// Shown on the status line at start: the banding chosen for the threshold, or a
    /// warning that the given one misses pairs at it.
    pub notice: Option<String>,
    /// `--max-bucket`: buckets of more contents are rows of the list, not compared.
    pub max_bucket: Option<usize>,
}
