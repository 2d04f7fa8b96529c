//! The module's functions: each reads its texts and options, runs the engine with the
//! GIL released ([`run`]), and returns a record batch (or two) and the warnings to give.

use crate::options::{Options, similarity};
use crate::run::{Tracker, run};
use crate::tables::{self, PairColumns, SketchColumns};
use crate::texts::Texts;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_data::ArrayData;
use arrow_pyarrow::{PyArrowType, ToPyArrow};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;
use simtui_engine::analysis::cluster::clusters_by;
use simtui_engine::analysis::dedup::removals;
use simtui_engine::analysis::eval::{THRESHOLDS, Truth, score};
use simtui_engine::analysis::exact::{Limits, all_pairs};
use simtui_engine::analysis::query::{Ask, Probe, Rank, Searcher};
use simtui_engine::index::Keep;
use simtui_engine::text::Tokenizer;
use simtui_engine::{Engine, Index, Method, Params};
use std::collections::{BTreeMap, HashSet};

type Chunks = Option<Vec<PyArrowType<ArrayData>>>;
type Columns = Vec<(&'static str, ArrayRef)>;

/// The memory the sort of document pairs may hold before it goes on in sorted runs on
/// disk: the CLI's.
const SORT_BUDGET: u64 = 512 << 20;
/// The largest bucket clusters and dedup take whole: the CLI's `--max-bucket` default.
const MAX_BUCKET: usize = 1000;

/// One call's input: its texts and options, and the warnings so far.
struct Call {
    texts: Texts,
    options: Options,
    warnings: Vec<String>,
}

impl Call {
    fn read(
        list: Option<&Bound<'_, PyList>>,
        chunks: Chunks,
        ids: Option<Vec<String>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Call> {
        let options = Options::parse(options)?;
        let texts = Texts::read(list, chunks, ids)?;
        let warnings = options.warning.iter().cloned().collect();
        Ok(Call {
            texts,
            options,
            warnings,
        })
    }

    /// The engine over the texts, keeping what `keep` says.
    fn build(&self, keep: Keep, t: &Tracker) -> simtui_engine::Result<Engine> {
        let o = &self.options;
        let method = Method::MinHash {
            bands: o.bands,
            rows: o.rows,
        };
        Engine::build(
            Index::builder(&o.params).keep(keep),
            method,
            self.texts.corpus(),
            t,
        )
    }

    /// Runs `work` with the GIL released on the engine over the texts (built keeping what
    /// `keep` says) and gives its table with the warnings, what was left out among them.
    fn table<'py>(
        mut self,
        py: Python<'py>,
        progress: Option<&Bound<'py, PyAny>>,
        keep: Keep,
        work: impl FnOnce(&Engine, &Options, &Tracker) -> simtui_engine::Result<Columns> + Send,
    ) -> PyResult<(Bound<'py, PyAny>, Vec<String>)> {
        let call = &self;
        let (columns, skip) = run(py, progress, |t| {
            let engine = call.build(keep, t)?;
            let columns = work(&engine, &call.options, t)?;
            Ok((columns, skipped(&engine.index)))
        })?;
        self.warnings.extend(skip);
        Ok((self.batch(py, columns)?, self.warnings))
    }

    /// The result: `columns` as a pyarrow RecordBatch with the settings as metadata.
    fn batch<'py>(&self, py: Python<'py>, columns: Columns) -> PyResult<Bound<'py, PyAny>> {
        let batch: RecordBatch = tables::batch(columns, self.options.metadata())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        batch.to_pyarrow(py)
    }
}

/// What was left out of the index (too large, too short), said once.
fn skipped(index: &Index) -> Option<String> {
    let skipped = index.skipped();
    if skipped.is_empty() {
        return None;
    }
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for s in skipped {
        *reasons.entry(s.reason.name()).or_default() += 1;
    }
    let said: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
    Some(format!(
        "{} texts left out ({}; see max_bytes and min_words): they are in no result, and dedup keeps them",
        skipped.len(),
        said.join(", ")
    ))
}

/// The module's one entry for the commands: `command` ("pairs", "clusters", "dedup",
/// "sketch", "eval" or "index") run on the texts with the options. A command's result
/// is its record batches and the warnings to give, as a tuple (an index: the
/// [`RawIndex`]). `threshold` is eval's, which reports at it without choosing the
/// banding by it.
#[pyfunction]
#[pyo3(signature = (command, texts=None, chunks=None, ids=None, options=None, progress=None, threshold=0.8))]
#[allow(clippy::too_many_arguments)] // the keywords of the Python call, as they come
pub fn call<'py>(
    py: Python<'py>,
    command: &str,
    texts: Option<&Bound<'py, PyList>>,
    chunks: Chunks,
    ids: Option<Vec<String>>,
    options: Option<&Bound<'py, PyDict>>,
    progress: Option<&Bound<'py, PyAny>>,
    threshold: f64,
) -> PyResult<Bound<'py, PyAny>> {
    let threshold = similarity(threshold)?;
    let call = Call::read(texts, chunks, ids, options)?;
    let result = match command {
        "pairs" => call.table(py, progress, Keep::ToSearch, pairs)?,
        "clusters" => call.table(py, progress, Keep::AllButSets, clusters)?,
        "sketch" => call.table(py, progress, Keep::Everything, sketch)?,
        "eval" => call.table(py, progress, Keep::Everything, |e, o, t| {
            eval(e, o, threshold, t)
        })?,
        "dedup" => return Ok(dedup(py, call, progress)?.into_pyobject(py)?.into_any()),
        "index" => return Ok(Bound::new(py, index(py, call, progress)?)?.into_any()),
        _ => return Err(PyValueError::new_err(format!("no command {command:?}"))),
    };
    Ok(result.into_pyobject(py)?.into_any())
}

/// Every pair with exact J >= threshold, by J descending then ids (as `simtui pairs`).
fn pairs(engine: &Engine, o: &Options, t: &Tracker) -> simtui_engine::Result<Columns> {
    let search = engine.search(o.threshold, o.max_bucket, t)?;
    let mut stream = engine.index.doc_pairs(&search, SORT_BUDGET, t)?;
    let mut columns = PairColumns::default();
    while let Some(p) = stream.next_pair()? {
        columns.push(&engine.index, &p);
    }
    Ok(columns.finish())
}

/// The clusters of near-duplicates, one row per member (as `clusters --format parquet`).
fn clusters(engine: &Engine, o: &Options, t: &Tracker) -> simtui_engine::Result<Columns> {
    let bucket = Some(o.max_bucket.unwrap_or(MAX_BUCKET));
    let search = engine.search(o.threshold, bucket, t)?;
    let found = clusters_by(&engine.index, &search, o.keep, o.linkage)?;
    Ok(tables::clusters(&engine.index, &found))
}

/// The rows kept (row, id) and the removal list (id, kept, jaccard, cluster), as
/// `simtui dedup` decides them.
fn dedup<'py>(
    py: Python<'py>,
    mut call: Call,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Vec<String>)> {
    let (kept, removed, skip) = run(py, progress, |t| {
        let engine = call.build(Keep::AllButSets, t)?;
        let o = &call.options;
        let bucket = Some(o.max_bucket.unwrap_or(MAX_BUCKET));
        let search = engine.search(o.threshold, bucket, t)?;
        let index = &engine.index;
        let found = clusters_by(index, &search, o.keep, o.linkage)?;
        let removals = removals(index, &found, &HashSet::new());
        index.check()?;
        let gone: HashSet<String> = removals
            .iter()
            .map(|r| index.docs().at(r.removed as usize).into_owned().id)
            .collect();
        let kept: Vec<(u64, &str)> = call
            .texts
            .ids
            .iter()
            .enumerate()
            .filter(|(_, id)| !gone.contains(id.as_str()))
            .map(|(i, id)| (i as u64, id.as_str()))
            .collect();
        Ok((
            tables::rows(&kept),
            tables::removals(index, &removals),
            skipped(index),
        ))
    })?;
    call.warnings.extend(skip);
    let kept = call.batch(py, kept)?;
    Ok((kept, call.batch(py, removed)?, call.warnings))
}

/// Each text's sketch (as `simtui sketch`, without `source`): id, tokens, bytes, band
/// keys, signature, shingles.
fn sketch(engine: &Engine, o: &Options, _: &Tracker) -> simtui_engine::Result<Columns> {
    let index = &engine.index;
    let (b, r) = (o.bands, o.rows);
    let mut columns = SketchColumns::default();
    for doc in index.docs() {
        let g = doc.group;
        let set = index.shingles().get(g as usize)?;
        // An empty text pairs with nothing: it has no band keys (as the CLI).
        let bands = if set.is_empty() {
            Vec::new()
        } else {
            index.band_keys(g, b, r)?
        };
        let signature = index.signatures().row(g as usize)?;
        columns.push(&doc, &bands, &signature, &set);
    }
    Ok(columns.finish())
}

/// Recall and precision of the banding against the exact pairs (as `simtui eval`), at
/// 0.5, 0.6, 0.7, 0.8, 0.9 and `threshold`.
fn eval(
    engine: &Engine,
    o: &Options,
    threshold: f64,
    t: &Tracker,
) -> simtui_engine::Result<Columns> {
    let index = &engine.index;
    let floor = THRESHOLDS[0].min(threshold).max(1e-9);
    let truth = Truth::from_exact(&all_pairs(index, floor, &Limits::default(), t)?);
    let found = engine.find(0.0, t)?;
    let mut thresholds = THRESHOLDS.to_vec();
    if !thresholds.contains(&threshold) {
        thresholds.push(threshold);
        thresholds.sort_by(f64::total_cmp);
    }
    let scores = score(index, &truth, &found, o.bands, o.rows, &thresholds);
    Ok(tables::scores(&scores))
}

/// The engine's defaults, which the Python signatures repeat (a test checks they agree).
#[pyfunction]
pub fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let p = Params::default();
    let d = PyDict::new(py);
    d.set_item("k", p.k)?;
    d.set_item("seed", p.seed)?;
    d.set_item("bands", 16)?;
    d.set_item("rows", 8)?;
    d.set_item("num_perm", p.num_perm)?;
    d.set_item("max_bytes", p.max_bytes)?;
    d.set_item("min_words", p.min_words)?;
    d.set_item("keep_case", p.text.keep_case)?;
    d.set_item("letters_only", p.text.letters_only)?;
    Ok(d)
}

/// The engine over the texts, kept whole to answer queries.
fn index(py: Python<'_>, call: Call, progress: Option<&Bound<'_, PyAny>>) -> PyResult<RawIndex> {
    let engine = run(py, progress, |t| call.build(Keep::Everything, t))?;
    let warnings = call.warnings.into_iter().chain(skipped(&engine.index));
    Ok(RawIndex {
        metadata: call.options.metadata(),
        warnings: warnings.collect(),
        engine,
    })
}

/// An index of texts kept in memory, to query with other texts.
#[pyclass(module = "simtui._simtui", frozen)]
pub struct RawIndex {
    engine: Engine,
    metadata: Vec<(String, String)>,
    /// What building it had to say (a banding's warning, texts left out).
    #[pyo3(get)]
    warnings: Vec<String>,
}

#[pymethods]
impl RawIndex {
    fn __len__(&self) -> usize {
        self.engine.index.docs().len()
    }

    /// The `top` nearest texts of the index to each query text, by exact J: columns
    /// query (the query's row), id, jaccard, estimate.
    #[pyo3(signature = (texts=None, chunks=None, top=10, exhaustive=false, min_jaccard=0.0))]
    fn query<'py>(
        &self,
        py: Python<'py>,
        texts: Option<&Bound<'py, PyList>>,
        chunks: Chunks,
        top: usize,
        exhaustive: bool,
        min_jaccard: f64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let queries = Texts::read(texts, chunks, None)?;
        let ask = Ask {
            top,
            exhaustive,
            min_jaccard,
            rank: Rank::Jaccard,
        };
        let engine = &self.engine;
        let answers = run(py, None, |_| {
            let searcher = Searcher::new(engine)?;
            let text = &engine.index.params().text;
            queries
                .texts
                .par_iter()
                .map_init(
                    || Tokenizer::new(text),
                    |tok, q| searcher.ask(&Probe::of_text(engine, tok, q), &ask),
                )
                .collect::<simtui_engine::Result<Vec<_>>>()
        })?;
        let mut columns = tables::NeighbourColumns::default();
        for (q, answer) in answers.iter().enumerate() {
            for n in &answer.neighbours {
                columns.push(q as u64, &engine.index.docs().at(n.doc as usize).id, n);
            }
        }
        let batch = tables::batch(columns.finish(), self.metadata.clone())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        batch.to_pyarrow(py)
    }
}
