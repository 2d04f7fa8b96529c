//! The explorer: `simtui PATH` (or `simtui` for a demo corpus).
//!
//! Layout of this module: `app` routes the user's actions to the view on top and the
//! workers' messages to the session or the view waiting for them; `views/` holds one
//! file per view (state, key table, update, render); `session` is what is explored and
//! what the engine made of it, `jobs` the jobs asked for, `worker` runs them on threads;
//! `keys` maps keys to actions; `chrome` draws the title bar and the footer, `widgets/`
//! the pieces the views share (the diff's alignment, `output::diff_model`, is shared
//! with `simtui diff`); `recall` measures real
//! recall, `progress` counts the stages; `terminal` enters and restores the terminal;
//! `event_loop` starts the explorer and runs its loop: input, ticks, workers' messages.

mod app;
mod chrome;
mod event_loop;
mod jobs;
mod keep_list;
mod keys;
mod log;
mod options;
mod progress;
mod recall;
mod rows;
mod session;
mod terminal;
mod views;
mod widgets;
mod worker;

#[cfg(test)]
mod tests;

pub use event_loop::run;
pub use keep_list::KeepList;
pub use options::{DEFAULT_S, ExploreOptions, Settings};
pub use rows::MAX_BUCKET;
pub use views::pairs_file::PairsFile;
pub use views::review::Review;
