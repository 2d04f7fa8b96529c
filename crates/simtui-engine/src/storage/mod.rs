//! The bottom layer: where data lives when memory is short.
//!
//! Every stage above keeps its data through this module and never asks where it is:
//! [`Budget`] says how much memory an index and its searches may hold and gives each
//! holder its [`Room`]; [`Rows`] keeps rows of values (shingle sets, signatures) in
//! memory, in a temporary file, or nowhere, made again from where they came from when
//! asked for, and hands them out the same way in every case (`rows(range)`, `pick`),
//! each read a [`Result`](crate::error::Result); [`file`](mod@file) is the anonymous temporary
//! file behind it; [`runs`] sorts more records than memory holds (band keys, candidate
//! pairs, document pairs); [`memory`] asks for large buffers so that a setting too large
//! for the machine is an error, not an abort.
//!
//! Temporary files are anonymous ([`tempfile::tempfile_in`]): the kernel removes them
//! when the process ends, however it ends. [`Spilled`] counts what went to them.

mod budget;
pub mod file;
pub mod memory;
pub mod rows;
pub mod runs;

pub use budget::{Budget, Room, Spilled};
pub use file::Value;
pub use rows::{Kept, Picked, Remake, Rows, RowsBuffer, Slab};
