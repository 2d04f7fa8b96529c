//! What of a Parquet file reading its documents reads: `chunk_ranges`, checked against
//! the reader itself on a copy that holds nothing else.

use super::*;
use crate::source::container::{InputOptions, Kind};
use crate::source::entry::Item;
use arrow_array::{ArrayRef, StringArray};
use arrow_schema::{Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::ParquetMetaDataReader;
use parquet::file::properties::WriterProperties;
use std::ops::Range;

/// A file of 120 rows in row groups of 40: `id`, `text`, a large `blob` and a `date`.
fn written() -> Vec<u8> {
    let rows = 0..120;
    let strings = |f: &dyn Fn(usize) -> String| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(rows.clone().map(f)))
    };
    let columns = vec![
        strings(&|i| format!("doc-{i}")),
        strings(&|i| format!("the text of document {} and more words", i % 37)),
        strings(&|i| format!("{i:x}").repeat(300)),
        strings(&|i| format!("2026-11-{:02}", 1 + i % 28)),
    ];
    parquet_of(&["id", "text", "blob", "date"], columns, 40)
}

/// A Parquet file of these string columns, named `names`, in row groups of `group` rows.
fn parquet_of(names: &[&str], columns: Vec<ArrayRef>, group: usize) -> Vec<u8> {
    let schema = Arc::new(Schema::new(
        names
            .iter()
            .map(|n| Field::new(*n, DataType::Utf8, false))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema, Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    out
}

/// The metadata bytes of a file, and where they start.
fn footer(bytes: &[u8]) -> (&[u8], u64) {
    let n = bytes.len();
    let len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    let start = n - 8 - len;
    (&bytes[start..n - 8], start as u64)
}

fn container(path: &Path, opts: &InputOptions) -> Container {
    Container::new(path.to_path_buf(), "f".into(), Kind::Parquet, opts)
}

/// Every record of the Parquet file at `path`, read as `opts` says.
fn records(path: &Path, opts: &InputOptions) -> Vec<Record> {
    let mut stream = ParquetStream::open(Arc::new(container(path, opts))).unwrap();
    let mut items = Vec::new();
    while stream.next_items(&mut items) {}
    items
        .into_iter()
        .map(|item| match item {
            Item::Parsed { record, .. } => record,
            _ => panic!("a row not read"),
        })
        .collect()
}

/// The chunks of column `name` in every row group.
fn chunks_of(bytes: &[u8], name: &str) -> Vec<Range<u64>> {
    let meta = ParquetMetaDataReader::decode_metadata(footer(bytes).0).unwrap();
    let leaf = (0..meta.file_metadata().schema_descr().num_columns())
        .find(|&i| meta.file_metadata().schema_descr().column(i).name() == name)
        .unwrap();
    meta.row_groups()
        .iter()
        .map(|g| {
            let (start, len) = g.column(leaf).byte_range();
            start..start + len
        })
        .collect()
}

#[test]
fn the_chunks_read_are_those_of_the_columns_read_and_reading_needs_nothing_else() {
    let bytes = written();
    let (metadata, data_end) = footer(&bytes);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.parquet");
    for opts in [
        InputOptions::default(),
        InputOptions {
            id_field: Some("id".into()),
            default_meta: false,
            ..InputOptions::default()
        },
    ] {
        let ranges = chunk_ranges(metadata, &container(&path, &opts), data_end).unwrap();
        let mut want = chunks_of(&bytes, "text");
        if opts.id_field.is_some() {
            want.extend(chunks_of(&bytes, "id"));
        }
        if opts.default_meta {
            want.extend(chunks_of(&bytes, "date"));
        }
        want.sort_by_key(|r| r.start);
        assert_eq!(ranges, want, "{opts:?}");
        let read: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        assert!(
            read * 5 < bytes.len() as u64,
            "{read} of {} bytes",
            bytes.len()
        );

        // A copy with zeros everywhere but those chunks and the footer reads as the file.
        std::fs::write(&path, &bytes).unwrap();
        let whole = records(&path, &opts);
        let mut sparse = vec![0u8; bytes.len()];
        for r in ranges.iter().chain([&(data_end..bytes.len() as u64)]) {
            let r = r.start as usize..r.end as usize;
            sparse[r.clone()].copy_from_slice(&bytes[r]);
        }
        std::fs::write(&path, &sparse).unwrap();
        assert_eq!(records(&path, &opts), whole, "{opts:?}");
        assert_eq!(whole.len(), 120);
    }
}

#[test]
fn a_footer_that_does_not_decode_is_no_plan_and_a_file_without_its_text_needs_no_chunk() {
    let bytes = written();
    let (metadata, data_end) = footer(&bytes);
    let c = container(Path::new("rows.parquet"), &InputOptions::default());
    assert_eq!(chunk_ranges(&metadata[1..], &c, data_end), None);
    assert_eq!(chunk_ranges(b"not thrift", &c, data_end), None);
    // Metadata that names bytes past where it starts is not believed.
    assert_eq!(chunk_ranges(metadata, &c, 100), None);
    let other = InputOptions {
        text_field: "body".into(),
        ..InputOptions::default()
    };
    let none = chunk_ranges(metadata, &container(Path::new("x"), &other), data_end);
    assert_eq!(none, Some(Vec::new()));
}

/// A file of `rows` rows of short texts, in row groups of `group` rows.
fn rows_in_groups(rows: usize, group: usize) -> Vec<u8> {
    let text: ArrayRef =
        Arc::new(StringArray::from_iter_values((0..rows).map(|i| {
            format!("row {i} of the file, and the words {}", i % 13)
        })));
    parquet_of(&["text"], vec![text], group)
}

/// The items of each call of a stream of `path` with these limits, as (row group, row
/// in it, row of the file, text).
fn calls(path: &Path, (whole, slice): (u64, usize)) -> Vec<Vec<(u64, u64, u64, String)>> {
    let c = Arc::new(container(path, &InputOptions::default()));
    let mut stream = ParquetStream::open(c).unwrap().with_limits(whole, slice);
    let mut calls = Vec::new();
    loop {
        let mut items = Vec::new();
        let more = stream.next_items(&mut items);
        calls.push(
            items
                .into_iter()
                .map(|item| match item {
                    Item::Parsed { part, record } => {
                        (part.offset, part.len, part.line, record.text)
                    }
                    _ => panic!("a row not read"),
                })
                .collect(),
        );
        if !more {
            return calls;
        }
    }
}

#[test]
fn a_large_row_group_is_read_a_slice_at_a_time_as_the_same_rows() {
    // Two row groups of 2,500 rows and one of 500: batches of 1,024 rows.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.parquet");
    std::fs::write(&path, rows_in_groups(5500, 2500)).unwrap();
    let whole = calls(&path, (u64::MAX, usize::MAX));
    // Every group decoded whole: as many at once as there are threads.
    assert!(whole.len() <= 3, "{} calls", whole.len());
    let sliced = calls(&path, (0, 1));
    // Each group large: a batch a call (one byte of texts is a batch's worth).
    let sizes: Vec<usize> = sliced.iter().map(Vec::len).collect();
    assert_eq!(sizes, [1024, 1024, 452, 1024, 1024, 452, 500]);
    let all = |c: Vec<Vec<_>>| c.into_iter().flatten().collect::<Vec<_>>();
    let (whole, sliced) = (all(whole), all(sliced));
    assert_eq!(sliced, whole);
    assert_eq!(whole.len(), 5500);
    for (i, (g, row, line, text)) in whole.iter().enumerate() {
        assert_eq!(
            (*g, *row, *line),
            ((i / 2500) as u64, (i % 2500) as u64, i as u64 + 1)
        );
        assert!(text.starts_with(&format!("row {i} ")), "{text}");
    }
}
