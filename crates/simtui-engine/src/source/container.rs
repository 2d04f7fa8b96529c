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
    /// their values in this order, then those of the format's usual fields when
    /// `default_meta` is on ([`Part::meta_names`] names them all).
    pub meta_fields: Vec<String>,
    /// Also keep the fields that usually say when and where a record comes from, those a
    /// record has ([`DEFAULT_SGML_META`], [`DEFAULT_RECORD_META`]): two reports of the
    /// same routine story on different days read alike, and their dates tell them apart.
    pub default_meta: bool,
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
            default_meta: true,
            sgml_text: SgmlText::TitleBody,
        }
    }
}

/// The metadata an SGML article keeps without being asked (see
/// [`InputOptions::default_meta`]): Reuters-21578's date and places.
pub const DEFAULT_SGML_META: &[&str] = &["DATE", "PLACES"];

/// The fields a JSON Lines record or a Parquet row keeps without being asked, when it has
/// them (see [`InputOptions::default_meta`]): those that commonly carry a date or an
/// origin.
pub const DEFAULT_RECORD_META: &[&str] = &[
    "date",
    "timestamp",
    "created_at",
    "published",
    "url",
    "source",
];

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
                // Compared without case in place: lowercasing a copy of every file's name
                // was most of what the walk spent on a plain file. (Only ASCII letters
                // spell these extensions, and no other character lowercases to one.)
                let full = path.file_name()?.as_encoded_bytes();
                let name = [".gz", ".zst", ".zstd"]
                    .iter()
                    .find_map(|c| strip_suffix_ci(full, c.as_bytes()))
                    .unwrap_or(full);
                let dot = name.iter().rposition(|&b| b == b'.')?;
                let ext = &name[dot + 1..];
                let is = |e: &str| ext.eq_ignore_ascii_case(e.as_bytes());
                if is("jsonl") || is("ndjson") {
                    Some(Kind::Jsonl)
                } else if is("sgm") || is("sgml") {
                    Some(Kind::Sgml)
                } else if is("parquet") && name.len() == full.len() {
                    // Parquet compresses inside, by column chunk: never a .gz around it.
                    Some(Kind::Parquet)
                } else {
                    None
                }
            }
        }
    }
}

/// `name` without `suffix`, compared without ASCII case.
fn strip_suffix_ci<'a>(name: &'a [u8], suffix: &[u8]) -> Option<&'a [u8]> {
    let cut = name.len().checked_sub(suffix.len())?;
    name[cut..]
        .eq_ignore_ascii_case(suffix)
        .then_some(&name[..cut])
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
    /// The metadata fields read: those asked for, then the format's usual ones.
    pub(crate) meta_fields: Vec<String>,
    /// How many of `meta_fields` were asked for (the others are kept only when present).
    pub(crate) asked_meta: usize,
    pub(crate) sgml_text: SgmlText,
}

/// The metadata fields a file of `kind` is read for: those asked for, then (with
/// `default_meta`) the format's usual ones not asked for already (SGML's names in any
/// case, as its elements are found).
fn meta_fields(kind: Kind, opts: &InputOptions) -> Vec<String> {
    let mut fields = opts.meta_fields.clone();
    if !opts.default_meta {
        return fields;
    }
    let (defaults, any_case) = match kind {
        Kind::Sgml => (DEFAULT_SGML_META, true),
        Kind::Jsonl | Kind::Parquet => (DEFAULT_RECORD_META, false),
    };
    for name in defaults {
        let asked = opts.meta_fields.iter().any(|m| {
            if any_case {
                m.eq_ignore_ascii_case(name)
            } else {
                m == name
            }
        });
        if !asked {
            fields.push(name.to_string());
        }
    }
    fields
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
            meta_fields: meta_fields(kind, opts),
            asked_meta: opts.meta_fields.len(),
            sgml_text: opts.sgml_text,
        }
    }

    /// A record's metadata values as a document keeps them: every field asked for (an
    /// empty string where it has none), and the usual fields up to the last it has (a
    /// corpus without them pays nothing for them), each of those at most
    /// [`TITLE_MAX`](super::TITLE_MAX) bytes (a `source` may be a whole JSON object).
    pub(crate) fn kept_meta(&self, mut meta: Vec<String>) -> Vec<String> {
        while meta.len() > self.asked_meta && meta.last().is_some_and(String::is_empty) {
            meta.pop();
        }
        for value in meta.iter_mut().skip(self.asked_meta) {
            if value.len() > super::TITLE_MAX {
                let mut cut = super::TITLE_MAX;
                while !value.is_char_boundary(cut) {
                    cut -= 1;
                }
                value.truncate(cut);
                value.shrink_to_fit();
            }
        }
        meta.shrink_to_fit();
        meta
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
            // The usual fields marked '+': kept only when present, unlike those asked for.
            let meta: Vec<String> = (self.meta_fields.iter().enumerate())
                .map(|(i, m)| match i < self.asked_meta {
                    true => m.clone(),
                    false => format!("+{m}"),
                })
                .collect();
            s.push_str(&format!(
                "\t{}\t{}\t{}",
                self.title_field.as_deref().unwrap_or(""),
                meta.join(","),
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
    /// The names of its metadata values ([`Doc::meta`](crate::index::Doc::meta)), in
    /// order: the fields asked for, then the usual ones of its format (a document may
    /// hold fewer values than names: it lacks the others).
    pub fn meta_names(&self) -> &[String] {
        &self.file.meta_fields
    }

    /// Its file's format, for messages: "JSON Lines", "SGML" or "Parquet".
    pub fn format(&self) -> &'static str {
        self.file.kind.name()
    }

    /// How many of [`Part::meta_names`] were asked for (`--meta-field`); the others are
    /// the format's usual fields, shown where a document has them.
    pub fn asked_meta(&self) -> usize {
        self.file.asked_meta
    }

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
        assert_eq!(kind("X.SGML.ZSTD"), Some(Kind::Sgml));
        assert_eq!(kind("a.Jsonl.Gz"), Some(Kind::Jsonl));
        assert_eq!(kind("d/.jsonl"), Some(Kind::Jsonl));
        assert_eq!(kind("x.jsonl.gz.gz"), None);
        assert_eq!(kind("x.PARQUET"), Some(Kind::Parquet));
        assert_eq!(kind("zst"), None);
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = std::ffi::OsStr::from_bytes(b"caf\xe9.sgm");
            assert_eq!(auto.kind_of(Path::new(odd)), Some(Kind::Sgml));
        }
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

    /// A container of `kind` read with `opts`, and a record of it extracted.
    fn read(kind: Kind, opts: &InputOptions, raw: &[u8]) -> (Container, Record) {
        let c = Container::new(PathBuf::from("x"), "x".into(), kind, opts);
        let mut r = c.extract(raw).unwrap();
        r.meta = c.kept_meta(r.meta);
        (c, r)
    }

    #[test]
    fn the_usual_date_and_origin_fields_are_kept_when_present() {
        let opts = InputOptions::default();
        let line = br#"{"text":"t","url":"http://a","date":"1987-04-01","x":1}"#;
        let (c, r) = read(Kind::Jsonl, &opts, line);
        assert_eq!(
            c.meta_fields,
            [
                "date",
                "timestamp",
                "created_at",
                "published",
                "url",
                "source"
            ]
        );
        // Up to the last it has: no source, so nothing after url.
        assert_eq!(r.meta, ["1987-04-01", "", "", "", "http://a"]);
        let (_, r) = read(Kind::Jsonl, &opts, br#"{"text":"t"}"#);
        assert!(r.meta.is_empty(), "a record without them pays nothing");
        let long = format!(r#"{{"text":"t","date":"{}"}}"#, "é".repeat(300));
        let (_, r) = read(Kind::Jsonl, &opts, long.as_bytes());
        assert_eq!(r.meta[0].len(), super::super::TITLE_MAX);
        // Asked for first, always kept (empty where absent); the usual ones after.
        let asked = InputOptions {
            meta_fields: vec!["lang".into(), "url".into()],
            ..Default::default()
        };
        let (c, r) = read(Kind::Jsonl, &asked, br#"{"text":"t"}"#);
        assert_eq!(c.meta_fields[..3], ["lang", "url", "date"]);
        assert_eq!(r.meta, ["", ""]);
        // SGML: DATE and PLACES, whatever the case they are asked in.
        let article = b"<REUTERS NEWID=\"5\"><DATE>26-FEB-1987</DATE><PLACES><D>usa</D></PLACES>\
            <TEXT><TITLE>T</TITLE><BODY>b</BODY></TEXT></REUTERS>";
        let (c, r) = read(Kind::Sgml, &opts, article);
        assert_eq!(c.meta_fields, ["DATE", "PLACES"]);
        assert_eq!(r.meta, ["26-FEB-1987", "usa"]);
        let lower = InputOptions {
            meta_fields: vec!["date".into()],
            ..Default::default()
        };
        let (c, _) = read(Kind::Sgml, &lower, article);
        assert_eq!(c.meta_fields, ["date", "PLACES"]);
        // Turned off: only what is asked for.
        let off = InputOptions {
            default_meta: false,
            ..Default::default()
        };
        let (c, r) = read(Kind::Sgml, &off, article);
        assert!(c.meta_fields.is_empty() && r.meta.is_empty());
        // Read another way, the same bytes are other documents.
        let with = Container::new(PathBuf::from("x"), "x".into(), Kind::Sgml, &opts);
        let without = Container::new(PathBuf::from("x"), "x".into(), Kind::Sgml, &off);
        assert_ne!(with.reading(), without.reading());
        assert!(
            with.reading().ends_with("\t+DATE,+PLACES\ttitle+body"),
            "{}",
            with.reading()
        );
    }
}
