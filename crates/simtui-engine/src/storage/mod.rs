//! The bottom layer: where data lives when memory is short.
//!
//! Every stage above keeps its data through this module and never asks where it is:
//! [`Budget`] says how much memory an index and its searches may hold and gives each
//! holder its [`Room`]; [`file`] is the anonymous temporary file work goes to past it;
//! [`runs`] sorts more records than memory holds; [`memory`] asks for large buffers
//! so that a setting too large for the machine is an error, not an abort.
//!
//! Temporary files are anonymous ([`tempfile::tempfile_in`]): the kernel removes them
//! when the process ends, however it ends. [`Spilled`] counts what went to them.

mod budget;
pub(crate) mod file;
pub mod memory;
pub mod runs;

pub use budget::{Budget, Spilled};
