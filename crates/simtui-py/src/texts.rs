//! The texts and ids of a call as the engine's corpus: from a list of str, or from the
//! chunks of an Arrow string column (read in place through the Arrow C data interface,
//! never turned into Python strings). Bad input is a clear exception naming the row.

use arrow_array::{Array, LargeStringArray, StringArray, StringViewArray, make_array};
use arrow_data::ArrayData;
use arrow_pyarrow::PyArrowType;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use simtui_engine::Corpus;
use std::collections::HashMap;
use std::sync::Arc;

/// A call's documents: each text and its id, in the order given. The texts are copied
/// once, out of Python, and shared with the engine's corpus from then on.
pub struct Texts {
    pub ids: Vec<String>,
    pub texts: Vec<Arc<str>>,
}

impl Texts {
    /// From `list` (of str) or `chunks` (Arrow string arrays), with `ids` (one per text,
    /// unique) or the row numbers ("0", "1", ...) as ids.
    pub fn read(
        list: Option<&Bound<'_, PyList>>,
        chunks: Option<Vec<PyArrowType<ArrayData>>>,
        ids: Option<Vec<String>>,
    ) -> PyResult<Texts> {
        let texts = match (list, chunks) {
            (Some(list), None) => from_list(list)?,
            (None, Some(chunks)) => strings(chunks, "texts")?,
            _ => return Err(PyTypeError::new_err("give either a list or Arrow chunks")),
        };
        let ids = match ids {
            Some(ids) => {
                if ids.len() != texts.len() {
                    return Err(PyValueError::new_err(format!(
                        "ids has {} values for {} texts: one id per text",
                        ids.len(),
                        texts.len()
                    )));
                }
                check_unique(&ids)?;
                ids
            }
            None => (0..texts.len()).map(|i| i.to_string()).collect(),
        };
        Ok(Texts { ids, texts })
    }

    /// The engine's corpus of these texts (the ids cloned, for the caller keeps them for
    /// the rows; the texts shared, not copied).
    pub fn corpus(&self) -> Corpus {
        Corpus::from_shared(self.ids.iter().cloned().zip(self.texts.iter().cloned()))
    }
}

fn check_unique(ids: &[String]) -> PyResult<()> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        if let Some(first) = seen.insert(id.as_str(), i) {
            return Err(PyValueError::new_err(format!(
                "ids must be unique: {id:?} is at rows {first} and {i}"
            )));
        }
    }
    Ok(())
}

fn from_list(list: &Bound<'_, PyList>) -> PyResult<Vec<Arc<str>>> {
    let mut texts = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let Ok(s) = item.cast::<PyString>() else {
            let what = if item.is_none() {
                "None".to_string()
            } else {
                item.get_type().name()?.to_string()
            };
            return Err(PyTypeError::new_err(format!(
                "texts[{i}] is {what}, not str: every text must be a string"
            )));
        };
        let text = s.to_cow().map_err(|_| {
            PyValueError::new_err(format!(
                "texts[{i}] cannot be encoded as UTF-8 (a lone surrogate)"
            ))
        })?;
        texts.push(Arc::from(&*text));
    }
    Ok(texts)
}

/// The values of the chunks of a string column named `what` (as `String` or shared
/// `Arc<str>`); a null is an error.
pub fn strings<T: for<'a> From<&'a str>>(
    chunks: Vec<PyArrowType<ArrayData>>,
    what: &str,
) -> PyResult<Vec<T>> {
    let total: usize = chunks.iter().map(|c| c.0.len()).sum();
    let mut texts = Vec::with_capacity(total);
    for PyArrowType(data) in chunks {
        let array = make_array(data);
        let start = texts.len();
        let null = |i: usize| {
            PyValueError::new_err(format!(
                "{what} has a null (None) at row {}: every value must be a string",
                start + i
            ))
        };
        if let Some(i) = (0..array.len()).find(|&i| array.is_null(i)) {
            return Err(null(i));
        }
        let any = array.as_any();
        if let Some(a) = any.downcast_ref::<StringArray>() {
            texts.extend(a.iter().map(|s| T::from(s.unwrap_or_default())));
        } else if let Some(a) = any.downcast_ref::<LargeStringArray>() {
            texts.extend(a.iter().map(|s| T::from(s.unwrap_or_default())));
        } else if let Some(a) = any.downcast_ref::<StringViewArray>() {
            texts.extend(a.iter().map(|s| T::from(s.unwrap_or_default())));
        } else {
            return Err(PyTypeError::new_err(format!(
                "{what} must be a column of strings, not {}",
                array.data_type()
            )));
        }
    }
    Ok(texts)
}
