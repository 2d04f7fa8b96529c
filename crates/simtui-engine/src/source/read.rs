//! Reading a document's text again by its place: a file of many documents opened (gzip
//! and zstd decompressed, told by their first bytes), a record read back by seeking to
//! it (uncompressed) or by decompressing the file up to it, a Parquet row by its row
//! group; and any entry's text ([`read_text`]).

use super::container::{Kind, Part};
use super::entry::{Entry, Source};
use super::file::{open_nonblocking, read_file, read_file_with};
use super::opener::Opener;
use super::skip::SkipReason;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
    part.file.extract(&read_raw(part)?).map(|r| r.text)
}

/// The fields a document's record has, by the names the field options take: a JSON
/// Lines object's keys, a Parquet file's columns, the attributes of an SGML article's
/// `<REUTERS>` tag (where `--id-field` finds ids). For telling a user which field to
/// name when ids match nothing.
pub fn record_fields(part: &Part) -> Result<Vec<String>, (SkipReason, String)> {
    match part.file.kind {
        Kind::Parquet => super::parquet::columns(&part.file),
        Kind::Jsonl => super::jsonl::keys(&read_raw(part)?),
        Kind::Sgml => Ok(super::sgml::attribute_names(&read_raw(part)?)),
    }
}

/// A JSON Lines or SGML record's bytes, read again from its place.
fn read_raw(part: &Part) -> Result<Vec<u8>, (SkipReason, String)> {
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
    Ok(raw)
}

/// A text read for one pass over it: owned when it was read from a file (no copy into
/// a shared one), shared when it already was (a text in memory).
pub(crate) enum Text {
    Owned(String),
    Shared(Arc<str>),
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Text::Owned(s) => s,
            Text::Shared(s) => s,
        }
    }
}

/// An entry's text, as [`read_text`] reads it, without copying what it read into a
/// shared text (a tenth of the read stage's time on small files), a file opened by
/// `opener`.
pub(crate) fn read_text_once(
    entry: &Entry,
    max_bytes: u64,
    opener: &mut Opener,
) -> Result<Text, (SkipReason, String)> {
    match &entry.source {
        Source::File(path) => read_file_with(opener, path, max_bytes).map(Text::Owned),
        Source::Part(part) => read_part(part, max_bytes).map(Text::Owned),
        _ => read_text(entry, max_bytes).map(Text::Shared),
    }
}

/// Reads an entry's text (at most `max_bytes` of it). Fails with the reason it is not a
/// document and a detail for messages: binary, larger than `max_bytes`, unreadable, ...;
/// a [`Source::Container`] is not one document either.
pub fn read_text(entry: &Entry, max_bytes: u64) -> Result<Arc<str>, (SkipReason, String)> {
    match &entry.source {
        Source::Memory(text) => Ok(text.clone()),
        Source::File(path) => read_file(path, max_bytes).map(Arc::from),
        Source::Part(part) => read_part(part, max_bytes).map(Arc::from),
        Source::Container(c) => Err((
            SkipReason::BadRecord,
            format!("a {} file holds many documents", c.kind.name()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
