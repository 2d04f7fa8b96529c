//! What the commands (`cli`) and the explorer (`tui`) share: the writers of pairs and
//! clusters, colour on stdout, the errors that decide the exit code, diagnostics and the
//! explorer's log, and the config file's names of keys and colours. Nothing here knows
//! a command or a view.

pub mod clusters;
pub mod color;
pub mod colorspec;
pub mod diag;
// The side-by-side diff as data, shared by the explorer's diff view and `simtui diff`.
pub mod diff_model;
pub mod error;
// `-o FILE`: written under a temporary name, renamed when complete.
pub mod file;
// Every output checked against the run's inputs and other outputs before any work.
pub mod format;
pub mod guard;
pub mod keyspec;
// Documents named in the tables: the id, then the title, cut to the terminal.
pub mod label;
// What an index holds past --memory, said the same way everywhere.
pub mod memory;
// The metadata two documents show side by side: the fields asked for, the usual ones.
pub mod meta;
pub mod object;
// Ids for people: numbers as numbers, in the views, the exports and the tables.
pub mod order;
pub mod pairs;
// Hard-wrapped paragraphs joined for the diff's display.
pub mod paragraphs;
// Pairs and clusters as Parquet (`--format parquet`).
pub mod parquet;
pub mod progress;
pub mod width;
pub mod wrap;
