//! The model format (docs/model-format.md) for Python: bytes in, trees out, core errors mapped.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use quercus_core::model_io;

use crate::errors::to_py;
use crate::tree::PyTree;

/// A tree from the model format, its metadata ignored. Damaged, hostile or newer-version input
/// raises `QuercusError`.
#[pyfunction]
pub fn tree_from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<PyTree> {
    load_model(py, data).map(|(tree, _)| tree)
}

/// A tree and the metadata blob stored with it.
#[pyfunction]
pub fn load_model<'py>(py: Python<'py>, data: &[u8]) -> PyResult<(PyTree, Bound<'py, PyBytes>)> {
    let model = py.detach(|| model_io::read(data)).map_err(to_py)?;
    Ok((
        PyTree { inner: model.tree },
        PyBytes::new(py, &model.metadata),
    ))
}
