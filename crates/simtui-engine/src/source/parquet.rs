//! Parquet: files of rows in row groups, a document per row, its text in one column.
//!
//! Only the columns asked for are read (text, and the id, title and metadata fields when
//! asked for): a dataset's other columns (embeddings, scores) cost nothing. Small row
//! groups are read in parallel, a few at a time, and a large one a slice of rows at a
//! time ([`ParquetStream`]), so memory holds a few megabytes of texts however large the
//! file or its row groups. A row is a [`Part`] whose place is its row
//! group and its row in it (`offset` and `len`), and its row in the file (`line`, from
//! 1): it is read again by those (`read_row`) for the diff and for `query`.

use super::container::{Container, Part};
use super::file::open_nonblocking;
use super::record::Record;
use super::skip::SkipReason;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{ArrowError, DataType, SchemaRef, TimeUnit};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowSelection, RowSelector,
};
use parquet::file::metadata::PageIndexPolicy;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// Rows decoded at a time within a row group.
const BATCH_ROWS: usize = 1024;

fn unreadable(e: impl std::fmt::Display) -> (SkipReason, String) {
    (SkipReason::Unreadable, e.to_string())
}

/// The file read by position (`pread`), never through a shared offset. Row groups are
/// read on several threads at once, and the parquet crate's reader for a `File` seeks a
/// `try_clone` of it, which shares one offset with every other clone: two row groups
/// read together read each other's bytes (zstd pages then fail as "Data corruption
/// detected", seen on a file of five row groups that pyarrow wrote).
#[derive(Clone)]
struct Positional {
    file: Arc<File>,
    len: u64,
}

/// A reader from a position of a [`Positional`] file, advancing its own position.
struct PositionalRead {
    file: Arc<File>,
    pos: u64,
}

/// Reads at `pos` without moving any file offset.
fn read_at(file: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    #[cfg(unix)]
    return std::os::unix::fs::FileExt::read_at(file, buf, pos);
    #[cfg(windows)]
    return std::os::windows::fs::FileExt::seek_read(file, buf, pos);
}

impl std::io::Read for PositionalRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = read_at(&self.file, buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl parquet::file::reader::Length for Positional {
    fn len(&self) -> u64 {
        self.len
    }
}

impl parquet::file::reader::ChunkReader for Positional {
    type T = std::io::BufReader<PositionalRead>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(std::io::BufReader::new(PositionalRead {
            file: self.file.clone(),
            pos: start,
        }))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        let mut buf = vec![0u8; length];
        let mut done = 0;
        while done < length {
            match read_at(&self.file, &mut buf[done..], start + done as u64)? {
                0 => {
                    return Err(parquet::errors::ParquetError::EOF(format!(
                        "expected {length} bytes at {start}, the file ends after {done}"
                    )));
                }
                n => done += n,
            }
        }
        Ok(buf.into())
    }
}

/// A Parquet file open for reading: its metadata (footer) and the columns to read.
pub(crate) struct ParquetFile {
    file: Positional,
    meta: ArrowReaderMetadata,
    projection: ProjectionMask,
}

/// Opens a Parquet file and checks that it has the text column (and the id and title
/// columns, when asked for). Fails with the reason the file is not documents.
pub(crate) fn open(c: &Container) -> Result<ParquetFile, (SkipReason, String)> {
    let file = open_nonblocking(&c.path).map_err(unreadable)?;
    let stat = file.metadata().map_err(unreadable)?;
    if !stat.is_file() {
        return Err((SkipReason::Special, String::new()));
    }
    let file = Positional {
        file: Arc::new(file),
        len: stat.len(),
    };
    let meta = ArrowReaderMetadata::load(&file, options())
        .map_err(|e| (SkipReason::BadRecord, format!("not Parquet: {e}")))?;
    let projection = projection(&meta, c)?;
    Ok(ParquetFile {
        file,
        meta,
        projection,
    })
}

/// How every Parquet file is opened: its page indexes (column and offset indexes) are
/// not read, nor its bloom filters (the arrow reader never reads those). An object
/// store's Parquet object is fetched as its footer and the column chunks
/// [`chunk_ranges`] names, nothing else (`object/ranged.rs`).
fn options() -> ArrowReaderOptions {
    ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Skip)
}

/// The columns a Parquet file is read for: its text column (which must be a string
/// column), and the id, title and metadata columns it has. The one rule of what is read
/// of a file: the readers' projection, and what an object store's copy fetches
/// ([`chunk_ranges`]). Fails with the reason the file is not documents.
fn projection(
    meta: &ArrowReaderMetadata,
    c: &Container,
) -> Result<ProjectionMask, (SkipReason, String)> {
    let schema = meta.schema().clone();
    let fields = c.fields();
    let column = |name: &str| schema.index_of(name).ok();
    let Some(text) = column(fields.text) else {
        return Err((
            SkipReason::BadRecord,
            format!("no {:?} column", fields.text),
        ));
    };
    let text_type = schema.field(text).data_type();
    if !is_text(text_type) {
        return Err((
            SkipReason::BadRecord,
            format!("{:?} is {text_type}, not a string column", fields.text),
        ));
    }
    // The other columns are read when the file has them (a missing id or title is no
    // id or title, as in JSON Lines).
    let mut roots = vec![text];
    roots.extend(fields.id.and_then(column));
    roots.extend(fields.title.and_then(column));
    roots.extend(fields.meta.iter().filter_map(|m| column(m)));
    roots.sort_unstable();
    roots.dedup();
    Ok(ProjectionMask::roots(meta.parquet_schema(), roots))
}

/// The bytes of a Parquet file that reading its documents reads besides its footer,
/// given the footer's metadata (the bytes before the file's last 8) and where that
/// metadata starts (`data_end`): the column chunks of the [`projection`]'s columns in
/// every row group, in file order. None when the metadata cannot be decoded or names
/// bytes past `data_end` (the caller then takes the whole file, and the reader says
/// what is wrong with it); no range at all when the file is not documents (no text
/// column: [`open`] fails after the footer). Only an object store reads by ranges.
#[cfg(any(feature = "object-store", test))]
pub(crate) fn chunk_ranges(
    metadata: &[u8],
    c: &Container,
    data_end: u64,
) -> Option<Vec<std::ops::Range<u64>>> {
    let decoded = parquet::file::metadata::ParquetMetaDataReader::decode_metadata(metadata).ok()?;
    let meta = ArrowReaderMetadata::try_new(Arc::new(decoded), options()).ok()?;
    let Ok(mask) = projection(&meta, c) else {
        return Some(Vec::new());
    };
    let mut ranges = Vec::new();
    for group in meta.metadata().row_groups() {
        for (leaf, chunk) in group.columns().iter().enumerate() {
            if !mask.leaf_included(leaf) {
                continue;
            }
            // `ColumnChunkMetaData::byte_range`, which the readers read, without its
            // panic on a negative offset or size.
            let start = chunk
                .dictionary_page_offset()
                .unwrap_or(chunk.data_page_offset());
            let start = u64::try_from(start).ok()?;
            let len = u64::try_from(chunk.compressed_size()).ok()?;
            let end = start.checked_add(len).filter(|&end| end <= data_end)?;
            ranges.push(start..end);
        }
    }
    ranges.sort_by_key(|r| (r.start, r.end));
    Some(ranges)
}

/// The names of a Parquet file's columns (its top-level fields), in order.
pub(crate) fn columns(c: &Container) -> Result<Vec<String>, (SkipReason, String)> {
    let file = open_nonblocking(&c.path).map_err(unreadable)?;
    let len = file.metadata().map_err(unreadable)?.len();
    let file = Positional {
        file: Arc::new(file),
        len,
    };
    let meta = ArrowReaderMetadata::load(&file, options())
        .map_err(|e| (SkipReason::BadRecord, format!("not Parquet: {e}")))?;
    Ok(meta
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect())
}

/// Whether a column's values can be a document's text.
fn is_text(t: &DataType) -> bool {
    match t {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView => true,
        DataType::Dictionary(_, v) => is_text(v),
        _ => false,
    }
}

impl ParquetFile {
    /// Row groups in the file.
    pub(crate) fn row_groups(&self) -> usize {
        self.meta.metadata().num_row_groups()
    }

    /// Rows of row group `g`.
    pub(crate) fn rows(&self, g: usize) -> u64 {
        self.meta.metadata().row_group(g).num_rows().max(0) as u64
    }

    /// Bytes of row group `g` on disk (compressed), for progress.
    pub(crate) fn stored_bytes(&self, g: usize) -> u64 {
        self.meta.metadata().row_group(g).compressed_size().max(0) as u64
    }

    /// Bytes the columns read of row group `g` take decoded (before compression, as the
    /// footer says): what decoding it whole holds.
    pub(crate) fn decoded_bytes(&self, g: usize) -> u64 {
        let group = self.meta.metadata().row_group(g);
        (0..group.num_columns())
            .filter(|&i| self.projection.leaf_included(i))
            .map(|i| group.column(i).uncompressed_size().max(0) as u64)
            .sum()
    }

    /// A reader of row group `g`'s rows (all of them, or those `selection` selects), a
    /// batch of [`BATCH_ROWS`] at a time: only the pages a batch needs are read.
    pub(crate) fn reader(
        &self,
        g: usize,
        selection: Option<RowSelection>,
    ) -> Result<ParquetRecordBatchReader, String> {
        let mut builder = ParquetRecordBatchReaderBuilder::new_with_metadata(
            self.file.clone(),
            self.meta.clone(),
        )
        .with_projection(self.projection.clone())
        .with_row_groups(vec![g])
        .with_batch_size(BATCH_ROWS);
        if let Some(s) = selection {
            builder = builder.with_row_selection(s);
        }
        builder.build().map_err(|e| e.to_string())
    }
}

/// Where row `row` (from 0) of a file is, for messages: `PATH:ROW` from 1.
fn place(c: &Container, row: u64) -> std::path::PathBuf {
    let mut p = c.path.clone().into_os_string();
    p.push(format!(":{}", row + 1));
    p.into()
}

/// The record of row `i` of a batch: its text, id, title and metadata.
fn record(c: &Container, batch: &RecordBatch, i: usize) -> Result<Record, (SkipReason, String)> {
    let fields = c.fields();
    let cell = |name: &str| {
        batch
            .schema()
            .index_of(name)
            .ok()
            .and_then(|k| cell_text(batch.column(k).as_ref(), i))
    };
    let Some(text) = cell(fields.text) else {
        return Err((SkipReason::BadRecord, format!("{:?} is null", fields.text)));
    };
    let named = |name: Option<&str>| name.and_then(cell).filter(|v| !v.is_empty());
    Ok(Record {
        id: named(fields.id),
        title: named(fields.title),
        text,
        meta: fields
            .meta
            .iter()
            .map(|m| cell(m).unwrap_or_default())
            .collect(),
    })
}

/// A cell as text: strings as they are (bytes as UTF-8, invalid sequences replaced),
/// numbers, booleans, dates (`1987-02-26`) and times (`1987-02-26 15:01:01`) as usually
/// written, lists as their items joined by ", ", dictionaries by their values; None for
/// a null. Other types are named (`(Struct…)`), not decoded.
pub(crate) fn cell_text(col: &dyn Array, row: usize) -> Option<String> {
    if row >= col.len() || col.is_null(row) {
        return None;
    }
    macro_rules! prim {
        ($t:ty) => {
            col.as_primitive::<$t>().value(row).to_string()
        };
    }
    macro_rules! time {
        ($t:ty) => {
            col.as_primitive::<$t>().value_as_datetime(row)?.to_string()
        };
    }
    macro_rules! dict {
        ($k:ty) => {{
            let d = col.as_dictionary::<$k>();
            let key = d.keys().value(row);
            return cell_text(d.values().as_ref(), key.try_into().ok()?);
        }};
    }
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Some(match col.data_type() {
        DataType::Utf8 => col.as_string::<i32>().value(row).to_string(),
        DataType::LargeUtf8 => col.as_string::<i64>().value(row).to_string(),
        DataType::Utf8View => col.as_string_view().value(row).to_string(),
        DataType::Binary => lossy(col.as_binary::<i32>().value(row)),
        DataType::LargeBinary => lossy(col.as_binary::<i64>().value(row)),
        DataType::BinaryView => lossy(col.as_binary_view().value(row)),
        DataType::Boolean => col.as_boolean().value(row).to_string(),
        DataType::Int8 => prim!(Int8Type),
        DataType::Int16 => prim!(Int16Type),
        DataType::Int32 => prim!(Int32Type),
        DataType::Int64 => prim!(Int64Type),
        DataType::UInt8 => prim!(UInt8Type),
        DataType::UInt16 => prim!(UInt16Type),
        DataType::UInt32 => prim!(UInt32Type),
        DataType::UInt64 => prim!(UInt64Type),
        DataType::Float16 => prim!(Float16Type),
        DataType::Float32 => prim!(Float32Type),
        DataType::Float64 => prim!(Float64Type),
        DataType::Date32 => col
            .as_primitive::<Date32Type>()
            .value_as_date(row)?
            .to_string(),
        DataType::Date64 => col
            .as_primitive::<Date64Type>()
            .value_as_date(row)?
            .to_string(),
        DataType::Timestamp(TimeUnit::Second, _) => time!(TimestampSecondType),
        DataType::Timestamp(TimeUnit::Millisecond, _) => time!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => time!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => time!(TimestampNanosecondType),
        DataType::List(_) => list_text(col.as_list::<i32>().value(row).as_ref()),
        DataType::LargeList(_) => list_text(col.as_list::<i64>().value(row).as_ref()),
        DataType::Dictionary(k, _) => match k.as_ref() {
            DataType::Int8 => dict!(Int8Type),
            DataType::Int16 => dict!(Int16Type),
            DataType::Int32 => dict!(Int32Type),
            DataType::Int64 => dict!(Int64Type),
            DataType::UInt8 => dict!(UInt8Type),
            DataType::UInt16 => dict!(UInt16Type),
            DataType::UInt32 => dict!(UInt32Type),
            DataType::UInt64 => dict!(UInt64Type),
            other => format!("({other})"),
        },
        other => format!("({other})"),
    })
}

fn list_text(items: &dyn Array) -> String {
    (0..items.len())
        .filter_map(|i| cell_text(items, i))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads a row again by its place (row group, row in it) and extracts its text (for the
/// diff view, SimHash fingerprints of a loaded index, queries). A file changed since it
/// was indexed gives whatever is at that place now, or an error.
pub(crate) fn read_row(part: &Part) -> Result<Record, (SkipReason, String)> {
    let pf = open(&part.file)?;
    let (g, row) = (part.offset as usize, part.len);
    if g >= pf.row_groups() || row >= pf.rows(g) {
        return Err((
            SkipReason::Unreadable,
            "the file has fewer rows than when it was indexed".to_string(),
        ));
    }
    let selection = RowSelection::from(vec![
        RowSelector::skip(row as usize),
        RowSelector::select(1),
    ]);
    let mut reader = pf.reader(g, Some(selection)).map_err(unreadable)?;
    let batch = reader
        .find(|b| b.as_ref().map_or(true, |b| b.num_rows() > 0))
        .ok_or_else(|| unreadable("the row is not in the file any more"))?
        .map_err(unreadable)?;
    record(&part.file, &batch, 0)
}

/// Writes a Parquet file without the rows `cuts` ((row group, row in it), sorted): every
/// column, the same schema, the codec of the input's first column chunk and its
/// key-value metadata; a row group of the input gives one of the output (fewer rows).
pub(crate) fn write_without(
    input: &Path,
    target: &Path,
    cuts: &[(u64, u64)],
    progress: &dyn crate::progress::Progress,
) -> crate::error::Result<()> {
    let mut cut = cuts.iter().peekable();
    rewrite(input, target, progress, Ok, |g, first, batch, _| {
        let keep: arrow_array::BooleanArray = (0..batch.num_rows() as u64)
            .map(|i| {
                let here = (g, first + i);
                while cut.peek().is_some_and(|&&c| c < here) {
                    cut.next();
                }
                Some(cut.peek() != Some(&&here))
            })
            .collect();
        arrow_select::filter::filter_record_batch(&batch, &keep)
    })
}

/// A row's annotation as `dedup --annotate` adds it: cluster (none for a row alone),
/// cluster size, kept, exact Jaccard to the kept row.
pub(crate) type RowNote = (Option<u32>, u32, bool, f64);

/// Writes a Parquet file with four columns added (named `names`: UInt32 nullable,
/// UInt32, Boolean, Float64), each row's values from `note(row group, row in it)`; the
/// rest as [`write_without`] keeps it. A column of one of those names already is an error.
pub(crate) fn write_annotated(
    input: &Path,
    target: &Path,
    names: &[&str; 4],
    note: &dyn Fn(u64, u64) -> RowNote,
    progress: &dyn crate::progress::Progress,
) -> crate::error::Result<()> {
    use arrow_array::{ArrayRef, BooleanArray, Float64Array, UInt32Array};
    use arrow_schema::{Field, Schema};
    let added = |schema: SchemaRef| -> crate::error::Result<SchemaRef> {
        if let Some(name) = names.iter().find(|n| schema.field_with_name(n).is_ok()) {
            return Err(crate::error::Error::Output(format!(
                "{}: the file has a column \"{name}\" already: --annotate would write it twice",
                input.display()
            )));
        }
        let types = [
            DataType::UInt32,
            DataType::UInt32,
            DataType::Boolean,
            DataType::Float64,
        ];
        let mut fields: Vec<Arc<Field>> = schema.fields().iter().cloned().collect();
        for (i, (name, t)) in names.iter().zip(types).enumerate() {
            fields.push(Arc::new(Field::new(*name, t, i == 0)));
        }
        Ok(Arc::new(Schema::new_with_metadata(
            fields,
            schema.metadata().clone(),
        )))
    };
    let with = |g: u64, first: u64, batch: RecordBatch, schema: &SchemaRef| {
        let notes: Vec<RowNote> = (0..batch.num_rows() as u64)
            .map(|i| note(g, first + i))
            .collect();
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        columns.push(Arc::new(notes.iter().map(|n| n.0).collect::<UInt32Array>()));
        columns.push(Arc::new(
            notes.iter().map(|n| Some(n.1)).collect::<UInt32Array>(),
        ));
        columns.push(Arc::new(
            notes.iter().map(|n| Some(n.2)).collect::<BooleanArray>(),
        ));
        columns.push(Arc::new(
            notes.iter().map(|n| Some(n.3)).collect::<Float64Array>(),
        ));
        RecordBatch::try_new(schema.clone(), columns)
    };
    rewrite(input, target, progress, added, with)
}

/// Writes `target` from the Parquet file `input`, each batch of rows (with its row
/// group and its first row in it) through `batch`, under the schema `schema` makes of
/// the input's: the codec of the input's first column chunk and its key-value metadata
/// kept, a row group of the input giving one of the output.
fn rewrite(
    input: &Path,
    target: &Path,
    progress: &dyn crate::progress::Progress,
    schema: impl FnOnce(SchemaRef) -> crate::error::Result<SchemaRef>,
    mut batch: impl FnMut(u64, u64, RecordBatch, &SchemaRef) -> Result<RecordBatch, ArrowError>,
) -> crate::error::Result<()> {
    use crate::error::Error;
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    let io = |path: &Path, e: std::io::Error| Error::File {
        path: path.to_path_buf(),
        source: e,
    };
    let bad = |e: parquet::errors::ParquetError| Error::File {
        path: input.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let file = File::open(input).map_err(|e| io(input, e))?;
    let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).map_err(bad)?;
    let metadata = meta.metadata().clone();
    let mut props = WriterProperties::builder();
    if metadata.num_row_groups() > 0 && metadata.row_group(0).num_columns() > 0 {
        props = props.set_compression(metadata.row_group(0).column(0).compression());
    }
    // The file's own key-value metadata (a dataset card, pandas' index), but not the
    // arrow schema the writer embeds itself.
    let kv: Vec<_> = metadata
        .file_metadata()
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .filter(|k| k.key != "ARROW:schema")
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if !kv.is_empty() {
        props = props.set_key_value_metadata(Some(kv));
    }
    let out_schema = schema(meta.schema().clone())?;
    let out = File::create(target).map_err(|e| io(target, e))?;
    let mut writer =
        ArrowWriter::try_new(out, out_schema.clone(), Some(props.build())).map_err(bad)?;
    for g in 0..metadata.num_row_groups() {
        crate::progress::check(progress)?;
        let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
            file.try_clone().map_err(|e| io(input, e))?,
            meta.clone(),
        )
        .with_row_groups(vec![g])
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(bad)?;
        let mut row = 0u64;
        for read in reader {
            let read = read.map_err(|e| bad(e.into()))?;
            let n = read.num_rows() as u64;
            let made = batch(g as u64, row, read, &out_schema).map_err(|e| bad(e.into()))?;
            row += n;
            if made.num_rows() > 0 {
                writer.write(&made).map_err(bad)?;
            }
        }
        writer.flush().map_err(bad)?;
    }
    let out = writer.into_inner().map_err(bad)?;
    out.sync_all().map_err(|e| io(target, e))
}

mod stream;
pub(crate) use stream::ParquetStream;

#[cfg(test)]
mod tests;
