//! Python bindings of quercus-core. They convert types, map errors and release the GIL
//! around heavy work; every decision-tree algorithm lives in the core crate.

mod convert;
mod errors;
mod model_io;
mod prune;
mod tree;

use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use quercus_core::{
    grow_with, split_scores as core_scores, CategoricalSplit, Criterion, MissingStrategy, Sample,
    Target, TreeParams,
};

use convert::{dataset, hold_columns};
use errors::{to_py, QuercusError};
use tree::{scores_dict, PyTree};

/// A required key of the parameter dict the facade builds.
fn get<'py, T: pyo3::conversion::FromPyObjectOwned<'py>>(
    d: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<T> {
    d.get_item(key)?
        .ok_or_else(|| PyKeyError::new_err(format!("missing parameter {key:?}")))?
        .extract()
        .map_err(Into::into)
}

/// Growth parameters from the dict of validated values the Python facade passes.
fn params_from(d: &Bound<'_, PyDict>) -> PyResult<TreeParams> {
    let criterion: String = get(d, "criterion")?;
    let split: String = get(d, "categorical_split")?;
    let params = TreeParams {
        criterion: Criterion::parse(&criterion).map_err(to_py)?,
        categorical_split: CategoricalSplit::parse(&split).map_err(to_py)?,
        max_depth: get(d, "max_depth")?,
        min_samples_split: get(d, "min_samples_split")?,
        min_samples_leaf: get(d, "min_samples_leaf")?,
        max_exhaustive_categories: get(d, "max_exhaustive_categories")?,
        max_leaf_nodes: get(d, "max_leaf_nodes")?,
        min_weight_fraction_leaf: get(d, "min_weight_fraction_leaf")?,
        min_gain: get(d, "min_gain")?,
        max_p_value: get(d, "max_p_value")?,
        min_objects: get(d, "min_objects")?,
        numeric_gain_correction: get(d, "numeric_gain_correction")?,
        cost_matrix: get(d, "cost_matrix")?,
        oblique: get(d, "oblique")?,
        missing: MissingStrategy::parse(&get::<String>(d, "missing")?).map_err(to_py)?,
        max_surrogates: get(d, "max_surrogates")?,
    };
    params.validate().map_err(to_py)?;
    Ok(params)
}

/// A target array kept borrowed for the duration of a call.
pub(crate) enum HeldTarget<'py> {
    Classes(PyReadonlyArray1<'py, u32>, usize),
    Values(PyReadonlyArray1<'py, f64>),
}

impl<'py> HeldTarget<'py> {
    /// Class codes when `n_classes > 0`, regression values otherwise.
    pub(crate) fn hold(y: &Bound<'py, PyAny>, n_classes: usize) -> PyResult<Self> {
        Ok(if n_classes > 0 {
            HeldTarget::Classes(y.extract()?, n_classes)
        } else {
            HeldTarget::Values(y.extract()?)
        })
    }

    pub(crate) fn target(&self) -> PyResult<Target<'_>> {
        let not_contiguous = |_| PyValueError::new_err("y is not contiguous");
        Ok(match self {
            HeldTarget::Classes(codes, n_classes) => Target::Classes {
                codes: codes.as_slice().map_err(not_contiguous)?,
                n_classes: *n_classes,
            },
            HeldTarget::Values(v) => Target::Values(v.as_slice().map_err(not_contiguous)?),
        })
    }
}

pub(crate) fn weights<'a>(w: &'a PyReadonlyArray1<'_, f64>) -> PyResult<&'a [f64]> {
    w.as_slice()
        .map_err(|_| PyValueError::new_err("sample_weight is not contiguous"))
}

/// Grows a tree; `validation` = (columns, y, sample_weight) enables validation pre-pruning.
#[pyfunction]
#[pyo3(signature = (columns, y, n_classes, sample_weight, params, validation=None))]
fn fit<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyList>,
    y: &Bound<'py, PyAny>,
    n_classes: usize,
    sample_weight: PyReadonlyArray1<'py, f64>,
    params: &Bound<'py, PyDict>,
    validation: Option<(
        Bound<'py, PyList>,
        Bound<'py, PyAny>,
        PyReadonlyArray1<'py, f64>,
    )>,
) -> PyResult<PyTree> {
    let params = params_from(params)?;
    let held = hold_columns(columns)?;
    let data = dataset(&held)?;
    let y = HeldTarget::hold(y, n_classes)?;
    let target = y.target()?;
    let train = Sample {
        data: &data,
        target: &target,
        weights: weights(&sample_weight)?,
    };
    let inner = match &validation {
        None => py.detach(|| grow_with(&train, &params, None)),
        Some((v_columns, v_y, v_weights)) => {
            let v_held = hold_columns(v_columns)?;
            let v_data = dataset(&v_held)?;
            let v_y = HeldTarget::hold(v_y, n_classes)?;
            let v_target = v_y.target()?;
            let v = Sample {
                data: &v_data,
                target: &v_target,
                weights: weights(v_weights)?,
            };
            py.detach(|| grow_with(&train, &params, Some(&v)))
        }
    }
    .map_err(to_py)?;
    Ok(PyTree { inner })
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
    let y = HeldTarget::hold(y, n_classes)?;
    let target = y.target()?;
    let weights = weights(&sample_weight)?;
    let scores = py
        .detach(|| core_scores(&data, &target, weights, criterion, split))
        .map_err(to_py)?;
    scores_dict(py, &scores)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTree>()?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(prune::prune_reduced_error, m)?)?;
    m.add_function(wrap_pyfunction!(prune::prune_pessimistic, m)?)?;
    m.add_function(wrap_pyfunction!(prune::prune_cost_complexity, m)?)?;
    m.add_function(wrap_pyfunction!(prune::cost_complexity_path, m)?)?;
    m.add_function(wrap_pyfunction!(split_scores, m)?)?;
    m.add_function(wrap_pyfunction!(model_io::tree_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(model_io::load_model, m)?)?;
    m.add("QuercusError", m.py().get_type::<QuercusError>())?;
    m.add("LEAF", 0u8)?;
    m.add("NUMERIC", 1u8)?;
    m.add("MULTIWAY", 2u8)?;
    m.add("SUBSET", 3u8)?;
    m.add("ORDERED", 4u8)?;
    m.add("OBLIQUE", 5u8)?;
    Ok(())
}
