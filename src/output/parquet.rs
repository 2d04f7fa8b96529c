//! Results as Apache Parquet (`--format parquet`): typed columns that Spark, DuckDB,
//! pandas and polars read without parsing text. Rows are written in row groups of
//! [`ROW_GROUP`] as they come, so memory stays bounded however many pairs stream through.

use super::pairs::Second;
use arrow_array::builder::{BooleanBuilder, Float64Builder, StringBuilder, UInt32Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder};
use simtui_engine::analysis::cluster::Cluster;
use simtui_engine::index::Index;
use simtui_engine::search::found::Pair;
use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Arc;

/// Rows per row group: a group is built in memory, then written (64 Ki pairs take a few
/// MB), and a reader can split a file at its groups.
pub const ROW_GROUP: usize = 64 * 1024;

/// Where the Parquet writers write: standard output or a temporary file (both `Send`,
/// as the Parquet writer requires).
pub type Out<'a> = &'a mut (dyn Write + Send);

/// The writer's settings: zstd (level 1: fast, and read by every Parquet reader),
/// `created_by` naming simtui, and `metadata` as the file's key-value metadata.
pub fn properties(metadata: &[(String, String)]) -> WriterPropertiesBuilder {
    let kv: Vec<KeyValue> = metadata
        .iter()
        .map(|(k, v)| KeyValue::new(k.clone(), v.clone()))
        .collect();
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_created_by(format!("simtui {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata((!kv.is_empty()).then_some(kv))
}

/// A Parquet error as an I/O error, keeping the kind of an I/O error inside it (a
/// closed pipe stays `BrokenPipe`, which ends standard output quietly).
pub fn io_error(e: ParquetError) -> io::Error {
    match e {
        ParquetError::External(inner) => match inner.downcast::<io::Error>() {
            Ok(io) => *io,
            Err(other) => io::Error::other(other),
        },
        other => io::Error::other(other),
    }
}

/// A Parquet file being written, a row group at a time.
pub struct Table<'a> {
    writer: ArrowWriter<Out<'a>>,
    schema: SchemaRef,
}

impl<'a> Table<'a> {
    pub fn new(out: Out<'a>, schema: Schema, props: WriterPropertiesBuilder) -> io::Result<Self> {
        let schema = Arc::new(schema);
        let writer =
            ArrowWriter::try_new(out, schema.clone(), Some(props.build())).map_err(io_error)?;
        Ok(Table { writer, schema })
    }

    /// Writes the columns as one row group (nothing when they hold no row).
    pub fn write_group(&mut self, columns: Vec<ArrayRef>) -> io::Result<()> {
        let batch =
            RecordBatch::try_new(self.schema.clone(), columns).map_err(|e| io_error(e.into()))?;
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.writer.write(&batch).map_err(io_error)?;
        self.writer.flush().map_err(io_error)
    }

    /// Writes the footer (schema, row groups, key-value metadata): the file is complete.
    pub fn finish(self) -> io::Result<()> {
        self.writer.close().map_err(io_error)?;
        Ok(())
    }
}

/// Writes the pairs `next` gives as Parquet, at most `limit`: columns `a`, `b` (the
/// ids), `jaccard` and `estimate` (float64), or for SimHash `hamming` (uint32), as the
/// JSON Lines output names them. Returns how many were written.
pub fn write_pairs(
    out: Out,
    index: &Index,
    next: &mut dyn FnMut() -> io::Result<Option<Pair>>,
    limit: Option<u64>,
    second: Second,
) -> io::Result<u64> {
    let hamming = matches!(second, Second::Hamming(_));
    let second_type = if hamming {
        DataType::UInt32
    } else {
        DataType::Float64
    };
    let schema = Schema::new(vec![
        Field::new("a", DataType::Utf8, false),
        Field::new("b", DataType::Utf8, false),
        Field::new("jaccard", DataType::Float64, false),
        Field::new(second.name(), second_type, false),
    ]);
    let mut table = Table::new(out, schema, properties(&[]))?;
    let id = |i: u32| index.docs().id(i as usize);
    let mut written = 0u64;
    let mut done = false;
    while !done {
        let (mut a, mut b) = (StringBuilder::new(), StringBuilder::new());
        let mut jaccard = Float64Builder::with_capacity(ROW_GROUP);
        let mut estimate = Float64Builder::new();
        let mut distance = UInt32Builder::new();
        let mut rows = 0;
        while rows < ROW_GROUP {
            let pair = if limit.is_none_or(|l| written < l) {
                next()?
            } else {
                None
            };
            let Some(p) = pair else {
                done = true;
                break;
            };
            a.append_value(id(p.a));
            b.append_value(id(p.b));
            jaccard.append_value(p.jaccard);
            match second {
                Second::Estimate => estimate.append_value(p.estimate),
                Second::Hamming(engine) => distance.append_value(Second::hamming(engine, &p)),
            }
            rows += 1;
            written += 1;
        }
        let second_column: ArrayRef = if hamming {
            Arc::new(distance.finish())
        } else {
            Arc::new(estimate.finish())
        };
        table.write_group(vec![
            Arc::new(a.finish()),
            Arc::new(b.finish()),
            Arc::new(jaccard.finish()),
            second_column,
        ])?;
    }
    table.finish()?;
    Ok(written)
}

/// Writes clusters as Parquet, one row per member, in the clusters' order (members in
/// id order, as `--format csv`): `id`, `cluster` (from 1, as the JSON Lines output
/// numbers them), `kept` (the member `--keep` chose, the JSON Lines `representative`)
/// and `jaccard_to_kept` (the member's exact Jaccard to the kept one: 1 for the kept
/// one and its identical copies; the least of a cluster is its `min_jaccard`).
pub fn write_clusters(out: Out, index: &Index, found: &[Cluster]) -> io::Result<()> {
    let schema = Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("cluster", DataType::UInt32, false),
        Field::new("kept", DataType::Boolean, false),
        Field::new("jaccard_to_kept", DataType::Float64, false),
    ]);
    let mut table = Table::new(out, schema, properties(&[]))?;
    let mut group = Members::default();
    for (i, c) in found.iter().enumerate() {
        // One exact Jaccard per distinct content of the cluster, not per member.
        let mut by_content: HashMap<u32, f64> = HashMap::new();
        for &d in &c.members {
            let content = index.docs().group(d as usize);
            let jaccard = *by_content
                .entry(content)
                .or_insert_with(|| index.similarity(d, c.representative).0);
            group.id.append_value(&*index.docs().id(d as usize));
            group.cluster.append_value(i as u32 + 1);
            group.kept.append_value(d == c.representative);
            group.jaccard.append_value(jaccard);
            group.rows += 1;
            if group.rows == ROW_GROUP {
                table.write_group(std::mem::take(&mut group).columns())?;
            }
        }
    }
    table.write_group(group.columns())?;
    table.finish()
}

/// A row group of `write_clusters` being built.
#[derive(Default)]
struct Members {
    id: StringBuilder,
    cluster: UInt32Builder,
    kept: BooleanBuilder,
    jaccard: Float64Builder,
    rows: usize,
}

impl Members {
    fn columns(mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.id.finish()),
            Arc::new(self.cluster.finish()),
            Arc::new(self.kept.finish()),
            Arc::new(self.jaccard.finish()),
        ]
    }
}
