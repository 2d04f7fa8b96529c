//! Files that hold many documents: JSON Lines and Reuters-21578 SGML, maybe compressed,
//! and Parquet (read by row groups, with the `parquet` feature).
//!
//! The walk marks such a file as a [`Container`] (by its extension, or as
//! `--input-format` says); the index build streams it in blocks
//! ([`stream`](super::stream)), splits the blocks into records and extracts the
//! records' texts in parallel, each format through its `RecordFormat`. A document found
//! this way is a [`Part`]: its file and the byte range of its record (in the
//! decompressed stream), so its text can be read again later (the explorer's diff view)
//! without being kept in memory ([`read`](super::read)).

use super::format::{Fields, RecordFormat, SgmlText};
use super::jsonl::Jsonl;
use super::record::Record;
use super::sgml::Sgml;
use super::skip::SkipReason;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How files are read: `--input-format`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputFormat {
    /// By extension, per file: `.jsonl`/`.ndjson` (maybe `.gz`/`.zst`) are JSON Lines,
    /// `.sgm`/`.sgml` SGML, `.parquet` Parquet, anything else plain text.
    #[default]
    Auto,
    /// Every file is one plain-text document.
    Text,
    /// Every file is JSON Lines.
    Jsonl,
    /// Every file is Reuters SGML.
    Sgml,
    /// Every file is Parquet.
    Parquet,
}

/// How documents are found in files: the input format and the fields to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputOptions {
    /// Which files hold many documents, and in which format.
    pub format: InputFormat,
    /// The JSON Lines field (Parquet column) holding the text.
    pub text_field: String,
    /// The JSON Lines field (Parquet column), or the SGML `<REUTERS>` attribute, holding
    /// the id. Without it, JSON Lines records are named `FILE:LINE`, Parquet rows
    /// `FILE:ROW` (from 1) and SGML articles by `NEWID`.
    pub id_field: Option<String>,
    /// The JSON Lines field (Parquet column) holding a record's title. Without it (and for plain files),
    /// a document's title is its first non-empty line; SGML articles have their
    /// `<TITLE>`.
    pub title_field: Option<String>,
    /// Metadata to keep with each document of a file of many: JSON Lines fields, or SGML
    /// elements (`DATE`, `PLACES`, ...) or else attributes of `<REUTERS>`
    /// (`LEWISSPLIT`). Each document's [`Doc::meta`](crate::index::Doc::meta) holds
    /// their values in this order.
    pub meta_fields: Vec<String>,
    /// What an SGML article's text is.
    pub sgml_text: SgmlText,
}

impl Default for InputOptions {
    fn default() -> Self {
        InputOptions {
            format: InputFormat::Auto,
            text_field: "text".to_string(),
            id_field: None,
            title_field: None,
            meta_fields: Vec::new(),
            sgml_text: SgmlText::TitleBody,
        }
    }
}

/// A format of files that hold many documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Jsonl,
    Sgml,
    Parquet,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Jsonl => "JSON Lines",
            Kind::Sgml => "SGML",
            Kind::Parquet => "Parquet",
        }
    }

    /// How records are found in its bytes and read: a new format of records is one
    /// [`RecordFormat`] and a line here. Parquet rows are decoded by row group, never
    /// from bytes (its lines split as JSON Lines would, and never are).
    fn format(self) -> &'static dyn RecordFormat {
        match self {
            Kind::Jsonl | Kind::Parquet => &Jsonl,
            Kind::Sgml => &Sgml,
        }
    }
}

impl InputOptions {
    /// What a file holds, judged by its name: None for one plain-text document.
    pub(crate) fn kind_of(&self, path: &Path) -> Option<Kind> {
        match self.format {
            InputFormat::Text => None,
            InputFormat::Jsonl => Some(Kind::Jsonl),
            InputFormat::Sgml => Some(Kind::Sgml),
            InputFormat::Parquet => Some(Kind::Parquet),
            InputFormat::Auto => {
                let name = path.file_name()?.to_string_lossy().to_lowercase();
                let name = [".gz", ".zst", ".zstd"]
                    .iter()
                    .find_map(|c| name.strip_suffix(c))
                    .unwrap_or(&name);
                let ext = name.rsplit_once('.')?.1;
                match ext {
                    "jsonl" | "ndjson" => Some(Kind::Jsonl),
                    "sgm" | "sgml" => Some(Kind::Sgml),
                    // Parquet compresses inside, by column chunk: never a .gz around it.
                    "parquet" if name.len() == path.file_name()?.len() => Some(Kind::Parquet),
                    _ => None,
                }
            }
        }
    }
}

/// A file of many documents, found by the walk.
#[derive(Debug, PartialEq, Eq)]
pub struct Container {
    pub(crate) path: PathBuf,
    /// The file's id (its path relative to the root): records are named `ID:LINE`.
    pub(crate) id: String,
    pub(crate) kind: Kind,
    pub(crate) text_field: String,
    pub(crate) id_field: Option<String>,
    pub(crate) title_field: Option<String>,
    pub(crate) meta_fields: Vec<String>,
    pub(crate) sgml_text: SgmlText,
}

impl Container {
    pub(crate) fn new(path: PathBuf, id: String, kind: Kind, opts: &InputOptions) -> Container {
        Container {
            path,
            id,
            kind,
            text_field: opts.text_field.clone(),
            id_field: opts.id_field.clone(),
            title_field: opts.title_field.clone(),
            meta_fields: opts.meta_fields.clone(),
            sgml_text: opts.sgml_text,
        }
    }

    /// How the file is read (its format and fields), saved with it in an index: the
    /// same bytes read another way are other documents.
    pub(crate) fn reading(&self) -> String {
        let mut s = format!(
            "{}\t{}\t{}",
            self.kind.name(),
            self.text_field,
            self.id_field.as_deref().unwrap_or("")
        );
        // Version 4 wrote the three above alone: a reading without the newer options
        // keeps that form.
        if self.title_field.is_some()
            || !self.meta_fields.is_empty()
            || self.sgml_text != SgmlText::TitleBody
        {
            s.push_str(&format!(
                "\t{}\t{}\t{}",
                self.title_field.as_deref().unwrap_or(""),
                self.meta_fields.join(","),
                self.sgml_text.name()
            ));
        }
        s
    }

    /// A record's id when it names none itself.
    pub(crate) fn line_id(&self, line: u64) -> String {
        format!("{}:{line}", self.id)
    }

    /// The id and text of a record.
    pub(crate) fn extract(&self, raw: &[u8]) -> Result<Record, (SkipReason, String)> {
        match self.kind {
            // Rows are decoded by row group, never from bytes.
            Kind::Parquet => Err((SkipReason::BadRecord, "a Parquet row".to_string())),
            kind => kind.format().extract(raw, &self.fields()),
        }
    }

    /// The fields a record is read for.
    pub(crate) fn fields(&self) -> Fields<'_> {
        Fields {
            text: &self.text_field,
            id: self.id_field.as_deref(),
            title: self.title_field.as_deref(),
            meta: &self.meta_fields,
            sgml_text: self.sgml_text,
        }
    }

    /// Splits a block of the file into records (see [`RecordFormat::split`]).
    pub(crate) fn split(&self, buf: &[u8], eof: bool) -> (Vec<std::ops::Range<usize>>, usize) {
        self.kind.format().split(buf, eof)
    }

    /// Where a record being passed over (too large) ends in the data that follows.
    pub(crate) fn find_end(&self, buf: &[u8]) -> Option<usize> {
        self.kind.format().find_end(buf)
    }

    /// Records that are not documents and say nothing (blank JSON Lines).
    pub(crate) fn is_blank(&self, raw: &[u8]) -> bool {
        self.kind == Kind::Jsonl && self.kind.format().is_blank(raw)
    }
}

/// One document of a [`Container`]: the byte range of its record in the (decompressed)
/// file, and the line it starts on; for a Parquet row, its row group (`offset`), its row
/// in the group (`len`), and its row in the file from 1 (`line`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub(crate) file: Arc<Container>,
    pub(crate) offset: u64,
    pub(crate) len: u64,
    pub(crate) line: u64,
}

impl Part {
    /// Its line in the file (JSON Lines, SGML), or its row from 1 (Parquet): with the
    /// file, its place in the input, which other tools' removal lists number records by.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// Where the record is, for messages: `PATH:LINE` (`PATH:ROW` for Parquet, from 1).
    pub fn place(&self) -> PathBuf {
        let mut p = self.file.path.clone().into_os_string();
        p.push(format!(":{}", self.line));
        p.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_extension() {
        let auto = InputOptions::default();
        let kind = |n: &str| auto.kind_of(Path::new(n));
        assert_eq!(kind("a/part-1.jsonl"), Some(Kind::Jsonl));
        assert_eq!(kind("x.NDJSON.gz"), Some(Kind::Jsonl));
        assert_eq!(kind("x.jsonl.zst"), Some(Kind::Jsonl));
        assert_eq!(kind("reut2-000.sgm"), Some(Kind::Sgml));
        assert_eq!(kind("notes.txt"), None);
        assert_eq!(kind("data.gz"), None);
        assert_eq!(kind("jsonl"), None);
        assert_eq!(kind("train-00000-of-00002.parquet"), Some(Kind::Parquet));
        assert_eq!(kind("x.parquet.gz"), None);
        let text = InputOptions {
            format: InputFormat::Text,
            ..Default::default()
        };
        assert_eq!(text.kind_of(Path::new("a.jsonl")), None);
        let sgml = InputOptions {
            format: InputFormat::Sgml,
            ..Default::default()
        };
        assert_eq!(sgml.kind_of(Path::new("a.txt")), Some(Kind::Sgml));
    }
}
