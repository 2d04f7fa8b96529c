//! Parts of objects: a Parquet object is fetched as its footer and the column chunks its
//! reader reads ([`plan`]; which chunks, `parquet::chunk_ranges`, is the reader's own
//! rule), each written at its offset in the sparse local file ([`write_parts`]); the
//! rest of it ([`gaps`]) only when something reads the file whole (dedup's output).

use crate::error::{Error, Result};
use std::io::{Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;
use std::time::SystemTime;

/// The bytes of `ranges` of the object as `meta` listed it. Every GET requires the
/// listed ETag (when the store gives one): an object replaced since it was listed fails
/// ("precondition") instead of giving parts of two versions. Ranges less than
/// [`object_store::OBJECT_STORE_COALESCE_DEFAULT`] apart are fetched together, ten
/// requests at a time.
pub(super) async fn listed_ranges(
    store: &dyn object_store::ObjectStore,
    meta: &object_store::ObjectMeta,
    ranges: &[Range<u64>],
) -> object_store::Result<Vec<bytes::Bytes>> {
    let fetch = |r: Range<u64>| listed_range(store, meta, r);
    object_store::coalesce_ranges(ranges, fetch, object_store::OBJECT_STORE_COALESCE_DEFAULT).await
}

/// One range of the object as `meta` listed it (see [`listed_ranges`]).
async fn listed_range(
    store: &dyn object_store::ObjectStore,
    meta: &object_store::ObjectMeta,
    range: Range<u64>,
) -> object_store::Result<bytes::Bytes> {
    let options = object_store::GetOptions {
        range: Some(range.into()),
        if_match: meta.e_tag.clone(),
        ..object_store::GetOptions::default()
    };
    store.get_opts(&meta.location, options).await?.bytes().await
}

/// Bytes asked for first from the end of a Parquet object: its footer, and its metadata
/// when that is shorter (most files' is a few KiB), in one request.
#[cfg(feature = "parquet")]
const TAIL: u64 = 64 << 10;
/// The 8 bytes that end a Parquet file: the metadata's length, then `PAR1`.
#[cfg(feature = "parquet")]
const FOOTER: u64 = 8;

/// What of a Parquet object to fetch: the end of it already fetched (from `tail_start`:
/// the metadata and the footer), and the byte ranges of the column chunks read, in
/// file order.
#[cfg(feature = "parquet")]
pub(super) struct Plan {
    pub(super) tail_start: u64,
    pub(super) tail: bytes::Bytes,
    pub(super) chunks: Vec<Range<u64>>,
}

#[cfg(feature = "parquet")]
impl Plan {
    /// The ranges of the object the local copy holds once the chunks are in.
    pub(super) fn held(&self) -> Vec<Range<u64>> {
        let end = self.tail_start + self.tail.len() as u64;
        let mut held = self.chunks.clone();
        held.push(self.tail_start..end);
        held
    }
}

/// The plan of the Parquet object `meta`, fetched into `file` and read as `input` says:
/// its footer fetched (one request, or two when the metadata is longer than [`TAIL`]),
/// and the column chunks the reader will read. None to fetch it whole: too short, no
/// Parquet footer, metadata that does not decode (the reader then says what is wrong).
#[cfg(feature = "parquet")]
pub(super) async fn plan(
    store: &dyn object_store::ObjectStore,
    meta: &object_store::ObjectMeta,
    file: &Path,
    input: &crate::source::container::InputOptions,
) -> object_store::Result<Option<Plan>> {
    use crate::source::container::{Container, Kind};
    use parquet::file::metadata::FooterTail;
    let size = meta.size;
    // `PAR1`, then at least the footer: anything shorter is no Parquet (and an empty
    // object has no range to ask for).
    if size < 4 + FOOTER {
        return Ok(None);
    }
    let mut tail_start = size.saturating_sub(TAIL);
    let mut tail = listed_range(store, meta, tail_start..size).await?;
    let footer = tail
        .len()
        .checked_sub(FOOTER as usize)
        .and_then(|at| <&[u8; FOOTER as usize]>::try_from(&tail[at..]).ok());
    let Some(length) = footer.and_then(|f| FooterTail::try_new(f).ok()) else {
        return Ok(None);
    };
    // The file starts with `PAR1`, before any column chunk.
    let Some(meta_start) = size
        .checked_sub(FOOTER + length.metadata_length() as u64)
        .filter(|&start| start >= 4)
    else {
        return Ok(None);
    };
    if meta_start < tail_start {
        let head = listed_range(store, meta, meta_start..tail_start).await?;
        tail = [head, tail].concat().into();
        tail_start = meta_start;
    }
    let metadata = &tail[(meta_start - tail_start) as usize..tail.len() - FOOTER as usize];
    let reader = Container::new(file.to_path_buf(), String::new(), Kind::Parquet, input);
    let Some(chunks) = crate::source::parquet::chunk_ranges(metadata, &reader, meta_start) else {
        return Ok(None);
    };
    // What the tail holds already is not asked for again.
    let chunks = chunks
        .into_iter()
        .map(|r| r.start..r.end.min(tail_start))
        .filter(|r| !r.is_empty())
        .collect();
    Ok(Some(Plan {
        tail_start,
        tail,
        chunks,
    }))
}

/// The ranges of `0..size` that `held` does not cover, in order.
pub(super) fn gaps(held: &[Range<u64>], size: u64) -> Vec<Range<u64>> {
    let mut held = held.to_vec();
    held.sort_by_key(|r| r.start);
    let mut gaps = Vec::new();
    let mut at = 0;
    for r in held {
        if r.start > at {
            gaps.push(at..r.start.min(size));
        }
        at = at.max(r.end);
    }
    if at < size {
        gaps.push(at..size);
    }
    gaps.retain(|r| !r.is_empty());
    gaps
}

/// Writes each part (its offset in the object, its bytes) at its place in the laid-out
/// `file`, then dates the file `modified` again (`--keep oldest|newest` reads a
/// document's date from its file; the writes moved it).
pub(super) fn write_parts<'a>(
    file: &Path,
    parts: impl IntoIterator<Item = (u64, &'a [u8])>,
    modified: SystemTime,
) -> Result<()> {
    let io = io_error(file);
    let mut out = laid_out(file)?;
    for (at, bytes) in parts {
        out.seek(SeekFrom::Start(at)).map_err(io)?;
        out.write_all(bytes).map_err(io)?;
    }
    out.set_modified(modified).map_err(io)
}

/// What an I/O error on `file`, of a local copy, is.
pub(super) fn io_error(file: &Path) -> impl Fn(std::io::Error) -> Error + Copy + '_ {
    move |source| Error::File {
        path: file.to_path_buf(),
        source,
    }
}

/// The laid-out `file` (created at its object's size), open to write the object's
/// bytes into.
pub(super) fn laid_out(file: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .map_err(io_error(file))
}

#[cfg(test)]
mod tests {
    use super::gaps;

    #[test]
    fn the_gaps_are_what_no_range_covers() {
        assert_eq!(gaps(&[], 10), vec![0..10]);
        assert_eq!(gaps(&[6..10, 2..4], 10), vec![0..2, 4..6]);
        assert_eq!(gaps(&[0..5, 3..7], 9), vec![7..9]);
        assert!(gaps(&[0..4, 4..10], 10).is_empty());
    }
}
