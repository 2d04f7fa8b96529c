//! What a format of files of many documents does: split a block of bytes into
//! records, find where a record ends, read a record's fields ([`RecordFormat`]), and the
//! fields asked for ([`Fields`]). [`jsonl`](super::jsonl) and [`sgml`](super::sgml)
//! implement it; a [`Container`](super::Container) picks the one its kind says.

use super::record::Record;
use super::skip::SkipReason;
use std::ops::Range;

/// A format of records in a file's bytes.
pub(crate) trait RecordFormat: Sync {
    /// Splits a block into records: their byte ranges, and how many bytes they take (the
    /// rest is the start of a record cut by the block's end, unless `eof`).
    fn split(&self, buf: &[u8], eof: bool) -> (Vec<Range<usize>>, usize);
    /// Where a record being passed over (too large) ends in the data that follows.
    fn find_end(&self, buf: &[u8]) -> Option<usize>;
    /// The text, id, title and metadata of a record.
    fn extract(&self, raw: &[u8], fields: &Fields) -> Result<Record, (SkipReason, String)>;
    /// Whether a record is not a document and says nothing (a blank line).
    fn is_blank(&self, _raw: &[u8]) -> bool {
        false
    }
}

/// What an SGML article's text is: `--sgml-text`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SgmlText {
    /// The `<TITLE>`, a blank line, then the `<BODY>`.
    #[default]
    TitleBody,
    /// The `<BODY>` alone (as the Reuters-21578 studies read it): two articles under the
    /// same headline are compared by what they say.
    Body,
}

impl SgmlText {
    /// The name `--sgml-text` takes: `title+body` or `body`.
    pub fn name(self) -> &'static str {
        match self {
            SgmlText::TitleBody => "title+body",
            SgmlText::Body => "body",
        }
    }
}

/// The fields of a record to read: text, id, title and metadata.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fields<'a> {
    pub(crate) text: &'a str,
    pub(crate) id: Option<&'a str>,
    pub(crate) title: Option<&'a str>,
    pub(crate) meta: &'a [String],
    pub(crate) sgml_text: SgmlText,
}

impl Fields<'_> {
    /// Only a text field (and maybe an id): what the tests of one format need.
    #[cfg(test)]
    pub(crate) fn text_id<'a>(text: &'a str, id: Option<&'a str>) -> Fields<'a> {
        Fields {
            text,
            id,
            title: None,
            meta: &[],
            sgml_text: SgmlText::TitleBody,
        }
    }
}
