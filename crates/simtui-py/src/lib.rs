//! `simtui._simtui`: the engine for Python. The package `simtui` (python/simtui) puts
//! a Python front on it: the signatures, docstrings and the conversion of pandas,
//! polars and `datasets` columns to Arrow. Its commands go through one function,
//! `call`, which takes the command's name, the texts (a list of str, or the chunks of
//! an Arrow string column), the ids, the options as a dict and an optional progress
//! callable, and returns record batches and the warnings to give.

mod batches;
mod calls;
mod options;
mod run;
mod tables;
mod texts;

use pyo3::prelude::*;

#[pymodule]
fn _simtui(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SimtuiError", m.py().get_type::<run::SimtuiError>())?;
    m.add_function(wrap_pyfunction!(calls::call, m)?)?;
    m.add_function(wrap_pyfunction!(calls::defaults, m)?)?;
    m.add_class::<calls::RawIndex>()?;
    m.add_function(wrap_pyfunction!(batches::sketch_batch, m)?)?;
    m.add_function(wrap_pyfunction!(batches::verify_batch, m)?)?;
    m.add_function(wrap_pyfunction!(batches::bucket_pairs, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
