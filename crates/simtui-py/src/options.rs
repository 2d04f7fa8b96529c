//! The engine's settings from the keyword arguments of a call: the CLI's flags under
//! the same names, defaulting to the engine's defaults (which are the CLI's), and the
//! banding `-t` chooses when neither bands nor rows is given.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use simtui_engine::analysis::cluster::{Keep, Linkage};
use simtui_engine::search::curve::{
    DEFAULT_FUNCTIONS, WANTED_RECALL, for_threshold, probability, threshold,
};
use simtui_engine::text::Language;
use simtui_engine::{Params, SketchKind, Unit};

/// The default banding (16 × 8).
const DEFAULT_BANDS: usize = 16;
const DEFAULT_ROWS: usize = 8;
/// The most hash functions (b·r) the CLI computes; the same limit here.
const MAX_FUNCTIONS: usize = 4096;

/// What one call asks for.
pub struct Options {
    pub params: Params,
    pub bands: usize,
    pub rows: usize,
    pub threshold: f64,
    pub keep: Keep,
    pub linkage: Linkage,
    pub max_bucket: Option<usize>,
    /// Said as a Python warning: a given banding that may miss pairs at the threshold.
    pub warning: Option<String>,
}

impl Options {
    /// Reads `kwargs` (a dict of the options given; a missing or None one takes the
    /// default). An unknown name is a TypeError, a bad value a ValueError.
    pub fn parse(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
        let mut params = Params::default();
        let (mut bands, mut rows, mut threshold) = (None, None, 0.0);
        let (mut keep, mut linkage, mut max_bucket) = (Keep::Longest, Linkage::Components, None);
        if let Some(kwargs) = kwargs {
            for (key, value) in kwargs.iter() {
                if value.is_none() {
                    continue;
                }
                let key: String = key.extract()?;
                match key.as_str() {
                    "k" => params.k = ranged(&value, "k", 1, 64)? as usize,
                    "unit" => params.text.unit = unit(&value.extract::<String>()?)?,
                    "keep_case" => params.text.keep_case = value.extract()?,
                    "letters_only" => params.text.letters_only = value.extract()?,
                    "stopwords" => {
                        params.text.stopwords = language(&value, "stop-word list", false)?
                    }
                    "stem" => params.text.stem = language(&value, "Snowball stemmer", true)?,
                    "bands" => bands = Some(ranged(&value, "bands", 1, 4096)? as usize),
                    "rows" => rows = Some(ranged(&value, "rows", 1, 256)? as usize),
                    "seed" => params.seed = value.extract()?,
                    "sketch" => params.sketch = sketch(&value.extract::<String>()?)?,
                    "min_words" => params.min_words = value.extract()?,
                    "max_bytes" => params.max_bytes = value.extract()?,
                    "threshold" => threshold = similarity(value.extract()?)?,
                    "keep" => keep = keep_rule(&value.extract::<String>()?)?,
                    "linkage" => linkage = linkage_of(&value.extract::<String>()?)?,
                    "max_bucket" => {
                        max_bucket = Some(ranged(&value, "max_bucket", 2, u64::MAX)? as usize)
                    }
                    _ => return Err(PyTypeError::new_err(format!("unexpected option {key:?}"))),
                }
            }
        }
        let (bands, rows, warning) = banding(bands, rows, threshold);
        let n = bands * rows;
        if n > MAX_FUNCTIONS {
            return Err(PyValueError::new_err(format!(
                "bands × rows = {bands} × {rows} = {n} hash functions; at most {MAX_FUNCTIONS} (fewer rows or bands give the same threshold: see `simtui curve --threshold T`)"
            )));
        }
        params.num_perm = n;
        Ok(Options {
            params,
            bands,
            rows,
            threshold,
            keep,
            linkage,
            max_bucket,
            warning,
        })
    }

    /// The settings in force, as a result table's metadata says them.
    pub fn metadata(&self) -> Vec<(String, String)> {
        let p = &self.params;
        let unit = match p.text.unit {
            Unit::Word => "word",
            Unit::Char => "char",
        };
        let sketch = match p.sketch {
            SketchKind::Oph => "oph",
            SketchKind::MinHash => "minhash",
        };
        [
            ("k", p.k.to_string()),
            ("unit", unit.to_string()),
            ("bands", self.bands.to_string()),
            ("rows", self.rows.to_string()),
            ("seed", p.seed.to_string()),
            ("sketch", sketch.to_string()),
            ("threshold", self.threshold.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The banding in force: as given (the other at its default), or the one the engine
/// chooses for `t` when neither is given, as the CLI's `-t` without `-b/-r`. A given
/// banding whose S-curve at `t` is below the wanted recall gets the CLI's warning.
fn banding(bands: Option<usize>, rows: Option<usize>, t: f64) -> (usize, usize, Option<String>) {
    if bands.is_none() && rows.is_none() && t > 0.0 {
        let chosen = for_threshold(t, DEFAULT_FUNCTIONS).banding;
        return (chosen.bands, chosen.rows, None);
    }
    let (b, r) = (bands.unwrap_or(DEFAULT_BANDS), rows.unwrap_or(DEFAULT_ROWS));
    let p = probability(t, b, r);
    let warning = (t > 0.0 && p < WANTED_RECALL).then(|| {
        format!(
            "bands={b}, rows={r} (threshold {:.3}) may miss pairs with J >= {t}: the S-curve at J = {t} is {p:.3}; leave bands and rows out to have a banding chosen that reaches {WANTED_RECALL}",
            threshold(b, r)
        )
    });
    (b, r, warning)
}

fn ranged(value: &Bound<'_, PyAny>, name: &str, lo: u64, hi: u64) -> PyResult<u64> {
    let v: i128 = value.extract()?;
    if v < lo as i128 || v > hi as i128 {
        return Err(PyValueError::new_err(format!(
            "{name} must be in {lo}..={hi}, got {v}"
        )));
    }
    Ok(v as u64)
}

/// The CLI's check of a similarity.
pub(crate) fn similarity(t: f64) -> PyResult<f64> {
    if (0.0..=1.0).contains(&t) {
        Ok(t)
    } else {
        Err(PyValueError::new_err(format!(
            "threshold must be between 0 and 1, got {t}"
        )))
    }
}

/// `s` as one of `choices` (its name, its value), or a ValueError listing them.
fn choice<T: Copy>(what: &str, s: &str, choices: &[(&str, T)]) -> PyResult<T> {
    if let Some(&(_, value)) = choices.iter().find(|(name, _)| *name == s) {
        return Ok(value);
    }
    let names: Vec<String> = choices.iter().map(|(n, _)| format!("{n:?}")).collect();
    let (last, rest) = names.split_last().expect("at least one choice");
    let listed = if rest.is_empty() {
        last.clone()
    } else {
        format!("{} or {last}", rest.join(", "))
    };
    Err(PyValueError::new_err(format!(
        "{what} must be {listed}, got {s:?}"
    )))
}

fn unit(s: &str) -> PyResult<Unit> {
    choice("unit", s, &[("word", Unit::Word), ("char", Unit::Char)])
}

fn sketch(s: &str) -> PyResult<SketchKind> {
    let kinds = [("oph", SketchKind::Oph), ("minhash", SketchKind::MinHash)];
    choice("sketch", s, &kinds)
}

fn keep_rule(s: &str) -> PyResult<Keep> {
    let rules = [
        ("longest", Keep::Longest),
        ("shortest", Keep::Shortest),
        ("first", Keep::First),
    ];
    choice("keep", s, &rules)
}

fn linkage_of(s: &str) -> PyResult<Linkage> {
    let linkages = [("components", Linkage::Components), ("star", Linkage::Star)];
    choice("linkage", s, &linkages)
}

/// A language for stop words or stems: a name or ISO code, True for English (as a bare
/// `--stopwords`), False or "none" for none.
fn language(value: &Bound<'_, PyAny>, what: &str, stemmed: bool) -> PyResult<Option<Language>> {
    if let Ok(on) = value.extract::<bool>() {
        return Ok(on.then_some(Language::English));
    }
    let s: String = value.extract()?;
    if matches!(s.trim().to_lowercase().as_str(), "none" | "off") {
        return Ok(None);
    }
    let langs: Vec<Language> = if stemmed {
        Language::stemmed().collect()
    } else {
        Language::all().collect()
    };
    match Language::parse(&s).filter(|l| langs.contains(l)) {
        Some(l) => Ok(Some(l)),
        None => {
            let names: Vec<&str> = langs.iter().map(|l| l.name()).collect();
            Err(PyValueError::new_err(format!(
                "no {what} for {s:?}; one of: {}, or none",
                names.join(", ")
            )))
        }
    }
}
