//! Python bindings of quercus-core. They convert types, map errors and release the GIL
//! around heavy work; every decision-tree algorithm lives in the core crate.

mod convert;
mod errors;
mod tree;

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use quercus_core::{
    grow, split_scores as core_scores, CategoricalSplit, Criterion, Target, TreeParams,
};

use convert::{dataset, hold_columns};
use errors::{to_py, QuercusError};
use tree::{scores_dict, PyTree};

/// Growth parameters as the Python facade passes them.
struct GrowArgs<'a> {
    criterion: &'a str,
    categorical_split: &'a str,
    max_depth: Option<usize>,
    min_samples_split: usize,
    min_samples_leaf: usize,
    max_exhaustive_categories: usize,
}

impl GrowArgs<'_> {
    fn params(&self) -> PyResult<TreeParams> {
        TreeParams::new(
            Criterion::parse(self.criterion).map_err(to_py)?,
            CategoricalSplit::parse(self.categorical_split).map_err(to_py)?,
            self.max_depth,
            self.min_samples_split,
            self.min_samples_leaf,
            self.max_exhaustive_categories,
        )
        .map_err(to_py)
    }
}

fn fit(
    py: Python<'_>,
    columns: &Bound<'_, PyList>,
    target: Target<'_>,
    sample_weight: &PyReadonlyArray1<'_, f64>,
    args: GrowArgs<'_>,
) -> PyResult<PyTree> {
    let params = args.params()?;
    let held = hold_columns(columns)?;
    let data = dataset(&held)?;
    let weights = sample_weight
        .as_slice()
        .map_err(|_| PyValueError::new_err("sample_weight is not contiguous"))?;
    let inner = py
        .detach(|| grow(&data, &target, weights, &params))
        .map_err(to_py)?;
    Ok(PyTree { inner })
}

#[pyfunction]
#[pyo3(signature = (columns, y, n_classes, sample_weight, *, criterion, categorical_split,
    max_depth, min_samples_split, min_samples_leaf, max_exhaustive_categories))]
#[allow(clippy::too_many_arguments)]
fn fit_classifier(
    py: Python<'_>,
    columns: &Bound<'_, PyList>,
    y: PyReadonlyArray1<'_, u32>,
    n_classes: usize,
    sample_weight: PyReadonlyArray1<'_, f64>,
    criterion: &str,
    categorical_split: &str,
    max_depth: Option<usize>,
    min_samples_split: usize,
    min_samples_leaf: usize,
    max_exhaustive_categories: usize,
) -> PyResult<PyTree> {
    let codes = y
        .as_slice()
        .map_err(|_| PyValueError::new_err("y is not contiguous"))?;
    let args = GrowArgs {
        criterion,
        categorical_split,
        max_depth,
        min_samples_split,
        min_samples_leaf,
        max_exhaustive_categories,
    };
    fit(
        py,
        columns,
        Target::Classes { codes, n_classes },
        &sample_weight,
        args,
    )
}

#[pyfunction]
#[pyo3(signature = (columns, y, sample_weight, *, criterion, categorical_split,
    max_depth, min_samples_split, min_samples_leaf, max_exhaustive_categories))]
#[allow(clippy::too_many_arguments)]
fn fit_regressor(
    py: Python<'_>,
    columns: &Bound<'_, PyList>,
    y: PyReadonlyArray1<'_, f64>,
    sample_weight: PyReadonlyArray1<'_, f64>,
    criterion: &str,
    categorical_split: &str,
    max_depth: Option<usize>,
    min_samples_split: usize,
    min_samples_leaf: usize,
    max_exhaustive_categories: usize,
) -> PyResult<PyTree> {
    let values = y
        .as_slice()
        .map_err(|_| PyValueError::new_err("y is not contiguous"))?;
    let args = GrowArgs {
        criterion,
        categorical_split,
        max_depth,
        min_samples_split,
        min_samples_leaf,
        max_exhaustive_categories,
    };
    fit(py, columns, Target::Values(values), &sample_weight, args)
}

#[pyfunction]
#[pyo3(signature = (columns, y, n_classes, sample_weight, *, criterion, categorical_split))]
fn split_scores<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyList>,
    y: &Bound<'py, PyAny>,
    n_classes: usize,
    sample_weight: PyReadonlyArray1<'py, f64>,
    criterion: &str,
    categorical_split: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let criterion = Criterion::parse(criterion).map_err(to_py)?;
    let split = CategoricalSplit::parse(categorical_split).map_err(to_py)?;
    let held = hold_columns(columns)?;
    let data = dataset(&held)?;
    let weights = sample_weight
        .as_slice()
        .map_err(|_| PyValueError::new_err("sample_weight is not contiguous"))?;
    let scores = if n_classes > 0 {
        let y: PyReadonlyArray1<'py, u32> = y.extract()?;
        let codes = y
            .as_slice()
            .map_err(|_| PyValueError::new_err("y is not contiguous"))?;
        let target = Target::Classes { codes, n_classes };
        py.detach(|| core_scores(&data, &target, weights, criterion, split))
    } else {
        let y: PyReadonlyArray1<'py, f64> = y.extract()?;
        let values = y
            .as_slice()
            .map_err(|_| PyValueError::new_err("y is not contiguous"))?;
        let target = Target::Values(values);
        py.detach(|| core_scores(&data, &target, weights, criterion, split))
    }
    .map_err(to_py)?;
    scores_dict(py, &scores)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTree>()?;
    m.add_function(wrap_pyfunction!(fit_classifier, m)?)?;
    m.add_function(wrap_pyfunction!(fit_regressor, m)?)?;
    m.add_function(wrap_pyfunction!(split_scores, m)?)?;
    m.add("QuercusError", m.py().get_type::<QuercusError>())?;
    m.add("LEAF", 0u8)?;
    m.add("NUMERIC", 1u8)?;
    m.add("MULTIWAY", 2u8)?;
    m.add("SUBSET", 3u8)?;
    m.add("ORDERED", 4u8)?;
    Ok(())
}
