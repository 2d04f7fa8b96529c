//! Results as Arrow record batches, with the columns of the CLI's Parquet output
//! (doc/formats.md) and the settings in force in the schema's metadata.

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder, UInt32Builder,
    UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, Field, Schema};
use simtui_engine::analysis::eval::Score;
use simtui_engine::{Cluster, Index};
use std::collections::HashMap;
use std::sync::Arc;

/// A batch of `columns`, named and typed by the arrays, non-nullable, with `metadata`.
pub fn batch(
    columns: Vec<(&str, ArrayRef)>,
    metadata: Vec<(String, String)>,
) -> Result<RecordBatch, ArrowError> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, a)| Field::new(*name, a.data_type().clone(), false))
        .collect();
    let schema = Schema::new(fields).with_metadata(metadata.into_iter().collect::<HashMap<_, _>>());
    RecordBatch::try_new(
        Arc::new(schema),
        columns.into_iter().map(|(_, a)| a).collect(),
    )
}

/// The columns of `pairs --format parquet`: a, b (ids), jaccard, estimate.
#[derive(Default)]
pub struct PairColumns {
    a: StringBuilder,
    b: StringBuilder,
    jaccard: Float64Builder,
    estimate: Float64Builder,
}

impl PairColumns {
    pub fn push(&mut self, index: &Index, pair: &simtui_engine::Pair) {
        self.a.append_value(&index.docs().at(pair.a as usize).id);
        self.b.append_value(&index.docs().at(pair.b as usize).id);
        self.jaccard.append_value(pair.jaccard);
        self.estimate.append_value(pair.estimate);
    }

    pub fn finish(mut self) -> Vec<(&'static str, ArrayRef)> {
        vec![
            ("a", Arc::new(self.a.finish())),
            ("b", Arc::new(self.b.finish())),
            ("jaccard", Arc::new(self.jaccard.finish())),
            ("estimate", Arc::new(self.estimate.finish())),
        ]
    }
}

/// The columns of `clusters --format parquet`, one row per member: id, cluster (from
/// 1), kept (the member the keep rule chose), jaccard_to_kept.
pub fn clusters(index: &Index, found: &[Cluster]) -> Vec<(&'static str, ArrayRef)> {
    let (mut id, mut cluster) = (StringBuilder::new(), UInt32Builder::new());
    let (mut kept, mut jaccard) = (BooleanBuilder::new(), Float64Builder::new());
    for (i, c) in found.iter().enumerate() {
        // One exact Jaccard per distinct content of the cluster, not per member.
        let mut by_content: HashMap<u32, f64> = HashMap::new();
        for &d in &c.members {
            let doc = &index.docs().at(d as usize);
            let j = *by_content
                .entry(doc.group)
                .or_insert_with(|| index.similarity(d, c.representative).0);
            id.append_value(&doc.id);
            cluster.append_value(i as u32 + 1);
            kept.append_value(d == c.representative);
            jaccard.append_value(j);
        }
    }
    vec![
        ("id", Arc::new(id.finish())),
        ("cluster", Arc::new(cluster.finish())),
        ("kept", Arc::new(kept.finish())),
        ("jaccard_to_kept", Arc::new(jaccard.finish())),
    ]
}

/// The removal list's columns (`dedup`'s `.removed.jsonl`, without the file a
/// document came from): id (removed), kept (the id kept in its place), jaccard, cluster.
pub fn removals(
    index: &Index,
    list: &[simtui_engine::analysis::dedup::Removal],
) -> Vec<(&'static str, ArrayRef)> {
    let (mut id, mut kept) = (StringBuilder::new(), StringBuilder::new());
    let (mut jaccard, mut cluster) = (Float64Builder::new(), UInt32Builder::new());
    for r in list {
        id.append_value(&index.docs().at(r.removed as usize).id);
        kept.append_value(&index.docs().at(r.kept as usize).id);
        jaccard.append_value(r.jaccard);
        cluster.append_value(r.cluster);
    }
    vec![
        ("id", Arc::new(id.finish())),
        ("kept", Arc::new(kept.finish())),
        ("jaccard", Arc::new(jaccard.finish())),
        ("cluster", Arc::new(cluster.finish())),
    ]
}

/// Rows of the input and their ids: `row` (uint64) and `id`.
pub fn rows(rows: &[(u64, &str)]) -> Vec<(&'static str, ArrayRef)> {
    let mut row = UInt64Builder::with_capacity(rows.len());
    let mut id = StringBuilder::new();
    for &(r, i) in rows {
        row.append_value(r);
        id.append_value(i);
    }
    vec![
        ("row", Arc::new(row.finish())),
        ("id", Arc::new(id.finish())),
    ]
}

/// The sketch command's columns, without `source`: id, tokens, bytes, bands,
/// signature, shingles.
#[derive(Default)]
pub struct SketchColumns {
    id: StringBuilder,
    tokens: Int64Builder,
    bytes: Int64Builder,
    bands: ListBuilder<UInt64Builder>,
    signature: ListBuilder<UInt32Builder>,
    shingles: ListBuilder<UInt64Builder>,
}

impl SketchColumns {
    pub fn push(&mut self, doc: &simtui_engine::Doc, bands: &[u64], sig: &[u32], set: &[u64]) {
        self.id.append_value(&doc.id);
        self.tokens.append_value(doc.tokens as i64);
        self.bytes.append_value(doc.bytes as i64);
        self.bands.append_value(bands.iter().map(|&x| Some(x)));
        self.signature.append_value(sig.iter().map(|&x| Some(x)));
        self.shingles.append_value(set.iter().map(|&x| Some(x)));
    }

    pub fn finish(mut self) -> Vec<(&'static str, ArrayRef)> {
        vec![
            ("id", Arc::new(self.id.finish())),
            ("tokens", Arc::new(self.tokens.finish())),
            ("bytes", Arc::new(self.bytes.finish())),
            ("bands", Arc::new(self.bands.finish())),
            ("signature", Arc::new(self.signature.finish())),
            ("shingles", Arc::new(self.shingles.finish())),
        ]
    }
}

/// `eval`'s scores, one row per threshold.
pub fn scores(scores: &[Score]) -> Vec<(&'static str, ArrayRef)> {
    let f = |get: fn(&Score) -> f64| -> ArrayRef {
        Arc::new(arrow_array::Float64Array::from_iter_values(
            scores.iter().map(get),
        ))
    };
    let u = |get: fn(&Score) -> u64| -> ArrayRef {
        Arc::new(arrow_array::UInt64Array::from_iter_values(
            scores.iter().map(get),
        ))
    };
    vec![
        ("threshold", f(|s| s.threshold)),
        ("truth", u(|s| s.truth)),
        ("found", u(|s| s.found)),
        ("candidates", u(|s| s.candidates)),
        ("recall", f(|s| s.recall)),
        ("precision", f(|s| s.precision)),
        ("predicted", f(|s| s.predicted)),
    ]
}

/// A query's neighbours: query (its row), id, jaccard, estimate.
#[derive(Default)]
pub struct NeighbourColumns {
    query: UInt64Builder,
    id: StringBuilder,
    jaccard: Float64Builder,
    estimate: Float64Builder,
}

impl NeighbourColumns {
    pub fn push(&mut self, query: u64, id: &str, n: &simtui_engine::analysis::query::Neighbour) {
        self.query.append_value(query);
        self.id.append_value(id);
        self.jaccard.append_value(n.jaccard);
        self.estimate.append_value(n.estimate);
    }

    pub fn finish(mut self) -> Vec<(&'static str, ArrayRef)> {
        vec![
            ("query", Arc::new(self.query.finish())),
            ("id", Arc::new(self.id.finish())),
            ("jaccard", Arc::new(self.jaccard.finish())),
            ("estimate", Arc::new(self.estimate.finish())),
        ]
    }
}
