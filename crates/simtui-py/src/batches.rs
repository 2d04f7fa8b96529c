//! One Arrow batch in, one out: the engine's steps for a distributed job's map functions
//! (Spark's `mapInArrow`), each batch on its own. The 64-bit band keys and shingle
//! hashes go out as int64 (the same bits): Spark and Java have no unsigned 64-bit type.

use crate::options::Options;
use crate::run::run;
use crate::texts::strings;
use arrow_array::builder::{Float64Builder, Int64Builder, ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, ListArray, RecordBatch, make_array};
use arrow_data::ArrayData;
use arrow_pyarrow::{PyArrowType, ToPyArrow};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use simtui_engine::index::Keep;
use simtui_engine::shingle::jaccard;
use simtui_engine::sketch::estimate;
use simtui_engine::{Corpus, Index};
use std::sync::Arc;

type Column = PyArrowType<ArrayData>;

fn to_python(py: Python<'_>, columns: Vec<(&'static str, ArrayRef)>) -> PyResult<Py<PyAny>> {
    let batch: RecordBatch = crate::tables::batch(columns, Vec::new())
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(batch.to_pyarrow(py)?.unbind())
}

/// The sketches of a batch of records, as `simtui sketch --stdin` gives them: id,
/// source (the id: the text came from memory), tokens, bytes, bands (band keys; none
/// for an empty text), signature and shingles (sorted as unsigned, empty when
/// `shingles` is false), 64-bit values as int64. Texts over max_bytes or under
/// min_words have no row (as the command).
#[pyfunction]
#[pyo3(signature = (ids, texts, options=None, shingles=true))]
pub fn sketch_batch(
    py: Python<'_>,
    ids: Column,
    texts: Column,
    options: Option<&Bound<'_, PyDict>>,
    shingles: bool,
) -> PyResult<Py<PyAny>> {
    let options = Options::parse(options)?;
    let ids: Vec<String> = strings(vec![ids], "ids")?;
    let texts: Vec<std::sync::Arc<str>> = strings(vec![texts], "texts")?;
    if ids.len() != texts.len() {
        return Err(PyValueError::new_err(format!(
            "{} ids for {} texts: one id per text",
            ids.len(),
            texts.len()
        )));
    }
    let (b, r) = (options.bands, options.rows);
    let columns = run(py, None, |t| {
        let corpus = Corpus::from_shared(ids.into_iter().zip(texts));
        let index = Index::builder(&options.params)
            .keep(Keep::Everything)
            .build(corpus, t)?;
        sketch_columns(&index, b, r, shingles)
    })?;
    to_python(py, columns)
}

fn sketch_columns(
    index: &Index,
    b: usize,
    r: usize,
    with_shingles: bool,
) -> simtui_engine::Result<Vec<(&'static str, ArrayRef)>> {
    let n = index.docs().len();
    let mut id = StringBuilder::new();
    let (mut tokens, mut bytes) = (
        Int64Builder::with_capacity(n),
        Int64Builder::with_capacity(n),
    );
    let mut bands = ListBuilder::new(Int64Builder::new());
    let mut signature = ListBuilder::new(Int64Builder::new());
    let mut shingles = ListBuilder::new(Int64Builder::new());
    for doc in index.docs() {
        let g = doc.group;
        let set = index.shingles().get(g as usize)?;
        id.append_value(&doc.id);
        tokens.append_value(doc.tokens as i64);
        bytes.append_value(doc.bytes as i64);
        // An empty text pairs with nothing: no band keys (as the command).
        if !set.is_empty() {
            let keys = index.band_keys(g, b, r)?;
            bands.values().extend(keys.iter().map(|&k| Some(k as i64)));
        }
        bands.append(true);
        let sig = index.signatures().row(g as usize)?;
        signature
            .values()
            .extend(sig.iter().map(|&v| Some(v as i64)));
        signature.append(true);
        if with_shingles {
            shingles
                .values()
                .extend(set.iter().map(|&h| Some(h as i64)));
        }
        shingles.append(true);
    }
    let id: ArrayRef = Arc::new(id.finish());
    Ok(vec![
        ("id", id.clone()),
        ("source", id),
        ("tokens", Arc::new(tokens.finish())),
        ("bytes", Arc::new(bytes.finish())),
        ("bands", Arc::new(bands.finish())),
        ("signature", Arc::new(signature.finish())),
        ("shingles", Arc::new(shingles.finish())),
    ])
}

/// A list<int64> column, its nulls refused.
fn int_lists(column: Column, what: &str) -> PyResult<ListArray> {
    let array = make_array(column.0);
    let Some(list) = array.as_list_opt::<i32>() else {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a list<int64> column, not {}",
            array.data_type()
        )));
    };
    if list.values().as_primitive_opt::<Int64Type>().is_none() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a list<int64> column, not {}",
            array.data_type()
        )));
    }
    if let Some(i) = (0..list.len()).find(|&i| list.is_null(i)) {
        return Err(PyValueError::new_err(format!(
            "{what} has a null at row {i}"
        )));
    }
    Ok(list.clone())
}

/// Row `i` of a list<int64> column into `out`, each value through `of`: a shingle
/// hash's unsigned bits, or a signature's uint32 value.
fn row_into<T>(list: &ListArray, i: usize, out: &mut Vec<T>, of: fn(i64) -> T) {
    out.clear();
    let row = list.value(i);
    out.extend(
        row.as_primitive::<Int64Type>()
            .values()
            .iter()
            .map(|&v| of(v)),
    );
}

/// Candidate pairs verified: for each row, the exact Jaccard of the two shingle sets
/// (`sketch_batch`'s shingles) and the estimate of the two signatures. Without
/// shingles (None), the estimate stands for the Jaccard too.
#[pyfunction]
#[pyo3(signature = (signature_a, signature_b, shingles_a=None, shingles_b=None))]
pub fn verify_batch(
    py: Python<'_>,
    signature_a: Column,
    signature_b: Column,
    shingles_a: Option<Column>,
    shingles_b: Option<Column>,
) -> PyResult<Py<PyAny>> {
    let (sa, sb) = (
        int_lists(signature_a, "signature_a")?,
        int_lists(signature_b, "signature_b")?,
    );
    let sets = match (shingles_a, shingles_b) {
        (Some(a), Some(b)) => Some((int_lists(a, "shingles_a")?, int_lists(b, "shingles_b")?)),
        (None, None) => None,
        _ => {
            return Err(PyTypeError::new_err(
                "give both shingles_a and shingles_b, or neither",
            ));
        }
    };
    let n = sa.len();
    let lengths = [
        Some(sb.len()),
        sets.as_ref().map(|s| s.0.len()),
        sets.as_ref().map(|s| s.1.len()),
    ];
    if lengths.iter().flatten().any(|&l| l != n) {
        return Err(PyValueError::new_err(
            "the columns must have the same number of rows",
        ));
    }
    let columns = run(py, None, |_| {
        let (mut jaccards, mut estimates) = (
            Float64Builder::with_capacity(n),
            Float64Builder::with_capacity(n),
        );
        let (mut x, mut y) = (Vec::<u32>::new(), Vec::<u32>::new());
        let (mut p, mut q) = (Vec::<u64>::new(), Vec::<u64>::new());
        for i in 0..n {
            row_into(&sa, i, &mut x, |v| v as u32);
            row_into(&sb, i, &mut y, |v| v as u32);
            let e = if x.len() == y.len() {
                estimate(&x, &y)
            } else {
                0.0
            };
            let j = match &sets {
                Some((a, b)) => {
                    row_into(a, i, &mut p, |v| v as u64);
                    row_into(b, i, &mut q, |v| v as u64);
                    jaccard(&p, &q)
                }
                None => e,
            };
            jaccards.append_value(j);
            estimates.append_value(e);
        }
        let columns: Vec<(&'static str, ArrayRef)> = vec![
            ("jaccard", Arc::new(jaccards.finish())),
            ("estimate", Arc::new(estimates.finish())),
        ];
        Ok(columns)
    })?;
    to_python(py, columns)
}

/// The pairs of each bucket (a list of ids): every two distinct ids, once, the smaller
/// (by bytes) as `a`. A job deduplicates them across buckets.
#[pyfunction]
pub fn bucket_pairs(py: Python<'_>, buckets: Column) -> PyResult<Py<PyAny>> {
    let array = make_array(buckets.0);
    let Some(list) = array.as_list_opt::<i32>() else {
        return Err(PyTypeError::new_err(format!(
            "buckets must be a list<string> column, not {}",
            array.data_type()
        )));
    };
    let (mut a, mut b) = (StringBuilder::new(), StringBuilder::new());
    for i in 0..list.len() {
        if list.is_null(i) {
            continue;
        }
        let ids: Vec<String> = strings(vec![PyArrowType(list.value(i).to_data())], "a bucket")?;
        let mut ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        ids.sort_unstable();
        ids.dedup();
        for (k, x) in ids.iter().enumerate() {
            for y in &ids[k + 1..] {
                a.append_value(x);
                b.append_value(y);
            }
        }
    }
    to_python(
        py,
        vec![("a", Arc::new(a.finish())), ("b", Arc::new(b.finish()))],
    )
}
