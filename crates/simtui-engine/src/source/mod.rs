//! Stage 1, *read*: the documents of a corpus and their texts.
//!
//! [`walk`] finds the files under the paths given (each file once, however it is
//! reached); [`file`](mod@file) reads one file as text; a file of many documents (JSON
//! Lines, SGML, Parquet) is a [`Container`] that [`stream`] splits into records (each
//! format a `RecordFormat`: [`jsonl`], [`sgml`]; Parquet by row groups), each a
//! [`Part`] that [`read`] can read again later by its place. [`skip`] holds why a path
//! or record is not a document.
//!
//! Parquet is read with arrow-rs, behind the crate's `parquet` feature: without it a
//! Parquet file is an error of the walk ([`Corpus::walk`]).

pub mod container;
pub mod entry;
pub mod file;
pub(crate) mod format;
pub mod jsonl;
pub mod object;
pub mod opener;
#[cfg(feature = "parquet")]
pub(crate) mod parquet;
#[cfg(not(feature = "parquet"))]
#[path = "no_parquet.rs"]
pub(crate) mod parquet;
pub mod read;
pub mod record;
pub mod sgml;
pub mod skip;
pub(crate) mod stored;
pub mod stream;
pub mod walk;

pub use container::{
    Container, DEFAULT_RECORD_META, DEFAULT_SGML_META, InputFormat, InputOptions, Part,
};
pub(crate) use entry::Item;
pub use entry::{Entry, Source};
pub use file::{decode, kind_name, read_file, read_file_with};
pub use format::SgmlText;
pub use opener::Opener;
pub use read::{read_text, record_fields};
pub(crate) use record::Labels;
pub use record::{TITLE_MAX, title_of};
pub use skip::{SkipReason, Skipped};
pub(crate) use stream::{Batches, extract_item};
pub use walk::{Corpus, WalkOptions};
