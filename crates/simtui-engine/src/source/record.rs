//! A document as a record of a file of many gives it.

/// A document extracted from a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    /// The id the record gives itself, if any.
    pub(crate) id: Option<String>,
    pub(crate) text: String,
}
