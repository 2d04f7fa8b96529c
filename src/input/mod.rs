//! What the commands and the explorer read beside the corpus: files the user names
//! (config, keep-lists, `--truth`, `--pairs`, `--review`) and the lists other tools
//! wrote. The writers are in `output`; nothing here writes.

// Removal lists of any shape (simtui's, datatrove's, text-dedup's), told apart by their
// content, for the explorer's review.
pub mod foreign_removals;
// Pairs computed elsewhere (a Parquet or JSON Lines file, or a Spark job's folder), read
// back for the explorer's `--pairs`.
pub mod pairs_file;
// A removal list's documents found in the corpus (by id, row or task), for the review.
pub mod removal_map;
// Simtui's removal list (its shape, read) and the keep-list (read and written).
pub mod removals;
// Files read beside the corpus (config, keep-lists, --pairs, --review): regular files
// only, within a size limit.
pub mod side_input;
