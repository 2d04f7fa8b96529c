//! Stage 1, *read*: the documents of a corpus and their texts.
//!
//! [`walk`] finds the files under the paths given (each file once, however it is
//! reached); [`file`](mod@file) reads one file as text; a file of many documents (JSON Lines, SGML)
//! is a [`Container`] that [`stream`] splits into records, each a [`Part`] that can be
//! read again later by its place. [`skip`] holds why a path or record is not a document.

pub mod container;
pub mod entry;
pub mod file;
pub mod jsonl;
pub mod parquet;
pub mod record;
pub mod sgml;
pub mod skip;
pub mod stream;
pub mod walk;

pub(crate) use container::read_part;
pub use container::{
    Container, DEFAULT_RECORD_META, DEFAULT_SGML_META, InputFormat, InputOptions, Part, SgmlText,
    record_fields,
};
pub use entry::{Entry, Source, read_text};
pub use file::{decode, kind_name, read_file};
pub(crate) use record::Labels;
pub use record::{TITLE_MAX, title_of};
pub use skip::{SkipReason, Skipped};
pub(crate) use stream::{Batches, Item, extract_item};
pub use walk::{Corpus, WalkOptions};
