//! The explorer (placeholder until the TUI lands).

use simtui::corpus::WalkOptions;
use simtui::index::Params;
use std::path::PathBuf;

/// Everything the explorer needs from the command line.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// Folders and files to explore; empty means the built-in demo corpus.
    pub roots: Vec<PathBuf>,
    pub walk: WalkOptions,
    pub params: Params,
    pub bands: usize,
    pub rows: usize,
    /// Capture the mouse (wheel scrolling); off keeps the terminal's text selection.
    pub mouse: bool,
}

pub fn run(_opts: ExploreOptions) -> anyhow::Result<()> {
    anyhow::bail!("the explorer is not built yet; use `simtui pairs`")
}
