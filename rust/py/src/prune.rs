//! Post-pruning entry points: each returns a new tree and leaves its input untouched, and
//! runs watched (Ctrl-C stops it, see [`watched`]).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use quercus_core::{prune, Control};

use crate::control::watched;
use crate::convert::{HeldSample, SampleTuple};
use crate::errors::to_py;
use crate::tree::PyTree;

#[pyfunction]
pub fn prune_reduced_error<'py>(
    py: Python<'py>,
    tree: &PyTree,
    columns: &Bound<'py, PyList>,
    y: &Bound<'py, PyAny>,
    sample_weight: PyReadonlyArray1<'py, f64>,
    prune_ties: bool,
) -> PyResult<(PyTree, Bound<'py, PyDict>)> {
    let held = HeldSample::hold(columns, y, sample_weight, tree.inner.output_classes())?;
    let control = Control::new();
    let (inner, steps) = held.with(|s| {
        watched(py, &control, None, || {
            prune::reduced_error_controlled(
                &tree.inner,
                s.data,
                s.target,
                s.weights,
                prune_ties,
                &control,
            )
        })
    })??;
    let d = PyDict::new(py);
    let col = |f: fn(&prune::PruneStep) -> f64| steps.iter().map(f).collect::<Vec<f64>>();
    d.set_item(
        "node",
        steps
            .iter()
            .map(|s| i64::from(s.node.0))
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "depth",
        steps
            .iter()
            .map(|s| tree.inner.depth(s.node) as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "pruned",
        steps
            .iter()
            .map(|s| s.pruned)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    d.set_item(
        "error_as_subtree",
        col(|s| s.error_as_subtree).into_pyarray(py),
    )?;
    d.set_item("error_as_leaf", col(|s| s.error_as_leaf).into_pyarray(py))?;
    d.set_item(
        "accuracy_before",
        col(|s| s.accuracy_before).into_pyarray(py),
    )?;
    d.set_item("accuracy_after", col(|s| s.accuracy_after).into_pyarray(py))?;
    Ok((PyTree { inner }, d))
}

/// `training` = (columns, y, sample_weight) enables C4.5's subtree raising; `collapse`: J48's
/// collapse() first.
#[pyfunction]
#[pyo3(signature = (tree, confidence, training=None, collapse=false))]
pub fn prune_pessimistic<'py>(
    py: Python<'py>,
    tree: &PyTree,
    confidence: f64,
    training: Option<SampleTuple<'py>>,
    collapse: bool,
) -> PyResult<PyTree> {
    let control = Control::new();
    let inner = match training {
        None => watched(py, &control, None, || {
            prune::pessimistic_controlled(&tree.inner, confidence, None, collapse, &control)
        })?,
        Some(t) => HeldSample::from_tuple(t, tree.inner.output_classes())?.with(|s| {
            watched(py, &control, None, || {
                prune::pessimistic_controlled(&tree.inner, confidence, Some(*s), collapse, &control)
            })
        })??,
    };
    Ok(PyTree { inner })
}

/// The risk cost-complexity pruning charges a leaf: "impurity" (scikit-learn's) or
/// "misclassification" (CART's and rpart's, with the classifier's costs if any).
fn risk<'a>(name: &str, costs: Option<&'a [f64]>) -> PyResult<prune::Risk<'a>> {
    match name {
        "impurity" => Ok(prune::Risk::Impurity),
        "misclassification" => Ok(prune::Risk::Misclassification { costs }),
        other => Err(PyValueError::new_err(format!(
            "ccp_risk must be 'impurity' or 'misclassification'; got {other:?}"
        ))),
    }
}

/// The subtree sequence: "weakest_link" (Breiman's, scikit-learn's) or "rpart" (rpart's
/// complexities, links at or below `floor` collapsed first).
fn sequence(name: &str, floor: f64) -> PyResult<prune::Sequence> {
    match name {
        "weakest_link" => Ok(prune::Sequence::WeakestLink),
        "rpart" => Ok(prune::Sequence::Rpart { floor }),
        other => Err(PyValueError::new_err(format!(
            "ccp_sequence must be 'weakest_link' or 'rpart'; got {other:?}"
        ))),
    }
}

/// Which of `n_rows` rows J48 -R -N `folds` holds out for pruning; `classes`: a 1-D class
/// target's codes (None: the rows are cut in stretches, as Weka does a numeric target).
#[pyfunction]
#[pyo3(signature = (classes, n_rows, folds))]
pub fn j48_pruning_set<'py>(
    py: Python<'py>,
    classes: Option<PyReadonlyArray1<'py, u32>>,
    n_rows: usize,
    folds: usize,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let classes = classes.as_ref().map(|c| c.as_slice()).transpose()?;
    let held = prune::j48_pruning_set(classes, n_rows, folds).map_err(to_py)?;
    Ok(held.into_pyarray(py))
}

#[pyfunction]
pub fn prune_collapse(py: Python<'_>, tree: &PyTree) -> PyResult<PyTree> {
    let control = Control::new();
    let inner = watched(py, &control, None, || {
        prune::collapse_controlled(&tree.inner, &control)
    })?;
    Ok(PyTree { inner })
}

#[pyfunction]
#[pyo3(signature = (tree, ccp_alpha, ccp_risk="impurity", costs=None, ccp_sequence="weakest_link", floor=0.0))]
pub fn prune_cost_complexity(
    py: Python<'_>,
    tree: &PyTree,
    ccp_alpha: f64,
    ccp_risk: &str,
    costs: Option<Vec<f64>>,
    ccp_sequence: &str,
    floor: f64,
) -> PyResult<PyTree> {
    let risk = risk(ccp_risk, costs.as_deref())?;
    let sequence = sequence(ccp_sequence, floor)?;
    let control = Control::new();
    let inner = watched(py, &control, None, || {
        prune::cost_complexity_controlled(&tree.inner, ccp_alpha, risk, sequence, &control)
    })?;
    Ok(PyTree { inner })
}

#[pyfunction]
#[pyo3(signature = (tree, ccp_risk="impurity", costs=None, ccp_sequence="weakest_link", floor=0.0))]
pub fn cost_complexity_path<'py>(
    py: Python<'py>,
    tree: &PyTree,
    ccp_risk: &str,
    costs: Option<Vec<f64>>,
    ccp_sequence: &str,
    floor: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let risk = risk(ccp_risk, costs.as_deref())?;
    let sequence = sequence(ccp_sequence, floor)?;
    let control = Control::new();
    let path = watched(py, &control, None, || {
        prune::cost_complexity_path_controlled(&tree.inner, risk, sequence, &control)
    })?;
    let d = PyDict::new(py);
    d.set_item("ccp_alphas", path.ccp_alphas.into_pyarray(py))?;
    d.set_item("impurities", path.impurities.into_pyarray(py))?;
    let splits: Vec<i64> = path.n_splits.iter().map(|&n| n as i64).collect();
    d.set_item("n_splits", splits.into_pyarray(py))?;
    Ok(d)
}
