//! Files that hold many documents: JSON Lines and Reuters-21578 SGML, maybe compressed,
//! and Parquet (read by row groups: [`parquet`](super::parquet)).
//!
//! The walk marks such a file as a [`Container`] (by its extension, or as
//! `--input-format` says); [`Index::build`](crate::index::Index::build) streams it in
//! blocks ([`stream`](super::stream)), splits the blocks into records and extracts the
//! records' texts in parallel. A document found this way is a [`Part`]: its file and the byte range of its
//! record (in the decompressed stream), so its text can be read again later (the
//! explorer's diff view) without being kept in memory. An uncompressed record is read
//! back by seeking to it; a compressed one by decompressing the file up to it.

use super::file::open_nonblocking;
use super::record::Record;
use super::skip::SkipReason;
use super::{jsonl, sgml};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
            Kind::Jsonl => jsonl::extract(raw, &self.fields()),
            Kind::Sgml => sgml::extract(raw, &self.fields()),
            // Rows are decoded by row group, never from bytes.
            Kind::Parquet => Err((SkipReason::BadRecord, "a Parquet row".to_string())),
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

    /// Splits a block of the file into records (see [`jsonl::split`], [`sgml::split`]).
    pub(crate) fn split(&self, buf: &[u8], eof: bool) -> (Vec<std::ops::Range<usize>>, usize) {
        match self.kind {
            Kind::Jsonl | Kind::Parquet => jsonl::split(buf, eof),
            Kind::Sgml => sgml::split(buf, eof),
        }
    }

    /// Where a record being passed over (too large) ends in the data that follows.
    pub(crate) fn find_end(&self, buf: &[u8]) -> Option<usize> {
        match self.kind {
            Kind::Jsonl | Kind::Parquet => jsonl::find_end(buf),
            Kind::Sgml => sgml::find_end(buf),
        }
    }

    /// Records that are not documents and say nothing (blank JSON Lines).
    pub(crate) fn is_blank(&self, raw: &[u8]) -> bool {
        self.kind == Kind::Jsonl && jsonl::is_blank(raw)
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

/// How a file is compressed, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1F, 0x8B]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// Whether a file beginning with `head` is compressed (gzip or zstd).
pub(crate) fn is_compressed(head: &[u8]) -> bool {
    Compression::detect(head) != Compression::None
}

/// Counts the bytes read from a file, for progress through a compressed one.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Decodes every frame of a zstd stream (a file may hold several, concatenated).
struct ZstdFrames<R: BufRead> {
    decoder: Option<ruzstd::decoding::StreamingDecoder<R, ruzstd::decoding::FrameDecoder>>,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> io::Result<Self> {
        let decoder = ruzstd::decoding::StreamingDecoder::new(source).map_err(io::Error::other)?;
        Ok(ZstdFrames {
            decoder: Some(decoder),
        })
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(d) = self.decoder.as_mut() else {
                return Ok(0);
            };
            let n = d.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            if !d.decoder.is_finished() {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "zstd stream ends inside a frame",
                ));
            }
            let mut source = self.decoder.take().expect("a decoder").into_inner();
            if source.fill_buf()?.is_empty() {
                return Ok(0);
            }
            self.decoder =
                Some(ruzstd::decoding::StreamingDecoder::new(source).map_err(io::Error::other)?);
        }
    }
}

/// An open container file: its decompressed bytes, and progress through it.
pub(crate) struct Opened {
    pub(crate) reader: Box<dyn Read + Send>,
    pub(crate) compression: Compression,
    /// Bytes of the file on disk.
    pub(crate) size: u64,
    /// Bytes of the file on disk read so far.
    pub(crate) consumed: Arc<AtomicU64>,
}

fn unreadable(e: io::Error) -> (SkipReason, String) {
    (SkipReason::Unreadable, e.to_string())
}

/// Opens a container file for reading, decompressing gzip and zstd (told by their first
/// bytes, whatever the name).
pub(crate) fn open(path: &Path) -> Result<Opened, (SkipReason, String)> {
    let file = open_nonblocking(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err((SkipReason::Special, String::new()));
    }
    let consumed = Arc::new(AtomicU64::new(0));
    let mut buffered = BufReader::with_capacity(
        256 << 10,
        Counting {
            inner: file,
            count: consumed.clone(),
        },
    );
    let compression = Compression::detect(buffered.fill_buf().map_err(unreadable)?);
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(buffered),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
        Compression::Zstd => Box::new(ZstdFrames::new(buffered).map_err(unreadable)?),
    };
    Ok(Opened {
        reader,
        compression,
        size: meta.len(),
        consumed,
    })
}

/// Reads a part's record again and extracts its text (for the diff view, SimHash
/// fingerprints of a loaded index, ...). A file changed since it was indexed gives
/// whatever is at the record's place now, or an error.
pub(crate) fn read_part(part: &Part, max_bytes: u64) -> Result<String, (SkipReason, String)> {
    if part.file.kind == Kind::Parquet {
        let text = super::parquet::read_row(part)?.text;
        if text.len() as u64 > max_bytes {
            return Err((SkipReason::TooLarge, format!("{} bytes", text.len())));
        }
        return Ok(text);
    }
    if part.len > max_bytes {
        return Err((SkipReason::TooLarge, format!("{} bytes", part.len)));
    }
    let mut raw = vec![0; part.len as usize];
    let opened = open(&part.file.path)?;
    let changed = |e: io::Error| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            (
                SkipReason::Unreadable,
                "the file is shorter than when it was indexed".to_string(),
            )
        } else {
            unreadable(e)
        }
    };
    if opened.compression == Compression::None {
        // Seek on the file itself: the reader is a BufReader over it.
        let mut file = open_nonblocking(&part.file.path).map_err(unreadable)?;
        file.seek(SeekFrom::Start(part.offset))
            .map_err(unreadable)?;
        file.read_exact(&mut raw).map_err(changed)?;
    } else {
        let mut reader = opened.reader;
        let skipped =
            io::copy(&mut (&mut reader).take(part.offset), &mut io::sink()).map_err(unreadable)?;
        if skipped < part.offset {
            return Err(changed(io::ErrorKind::UnexpectedEof.into()));
        }
        reader.read_exact(&mut raw).map_err(changed)?;
    }
    part.file.extract(&raw).map(|r| r.text)
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

    #[test]
    fn compression_by_magic() {
        assert_eq!(Compression::detect(&[0x1F, 0x8B, 8]), Compression::Gzip);
        assert_eq!(
            Compression::detect(&[0x28, 0xB5, 0x2F, 0xFD]),
            Compression::Zstd
        );
        assert_eq!(Compression::detect(b"{\"text\""), Compression::None);
        assert_eq!(Compression::detect(b""), Compression::None);
    }
}
