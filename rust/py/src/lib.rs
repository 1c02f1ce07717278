//! Python bindings of quercus-core. They convert types, map errors and release the GIL
//! around heavy work; every decision-tree algorithm lives in the core crate.

mod control;
mod convert;
mod errors;
mod model_io;
mod prune;
mod stream;
mod tree;

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use quercus_core::{
    grow_controlled, grow_optimal, split_scores as core_scores, CategoricalSplit, CategoryLimits,
    Control, Conventions, Criterion, FeatureScore, MissingStrategy, NoSplit, Splitter, TreeParams,
};

use control::{watched, Units};
use convert::{ClassCounts, HeldSample, SampleTuple};
use errors::{to_py, QuercusError};
use tree::{scores_dict, PyTree};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the 16th of mimalloc.h's `mi_option_e`, after
/// `mi_option_deprecated_eager_commit_delay`, the crate's 14): the crate names no constant.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Freed memory goes back to the system after 10 ms instead of mimalloc's 1 s: an exact fit
/// frees and allocates node-sized lists all through its growth, and held for a second they
/// raised its peak by 0.2-0.5x X (2M x 20 float32, depth 12: 1.51x X at 0 ms, 1.52x at
/// 10 ms, 1.77-1.96x at 1 s; bench/fit_memory.py), with no measurable cost in time.
/// `MIMALLOC_PURGE_DELAY` in the environment still decides.
fn return_freed_memory_promptly() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of the allocator's options; mimalloc reads them atomically.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 10) }
    }
}

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
pub(crate) fn params_from(d: &Bound<'_, PyDict>) -> PyResult<TreeParams> {
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
        conventions: Conventions::parse(&get::<String>(d, "conventions")?).map_err(to_py)?,
        cost_matrix: get(d, "cost_matrix")?,
        altered_priors: get(d, "altered_priors")?,
        class_weights: get(d, "class_weights")?,
        oblique: get(d, "oblique")?,
        missing: MissingStrategy::parse(&get::<String>(d, "missing")?).map_err(to_py)?,
        max_surrogates: get(d, "max_surrogates")?,
        splitter: Splitter::parse(&get::<String>(d, "splitter")?).map_err(to_py)?,
        max_bins: get(d, "max_bins")?,
        n_jobs: get(d, "n_jobs")?,
        min_impurity_decrease: get(d, "min_impurity_decrease")?,
        max_features: get(d, "max_features")?,
        random_state: get(d, "random_state")?,
        monotonic_cst: get(d, "monotonic_cst")?,
        category_limits: CategoryLimits {
            max_threshold: get(d, "max_cat_threshold")?,
            smooth: get(d, "cat_smooth")?,
            l2: get(d, "cat_l2")?,
            min_group: get(d, "min_data_per_group")?,
        },
        prior_weights: get(d, "prior_weights")?,
        j48_pruning_set: get(d, "j48_pruning_set")?,
        priors: get(d, "priors")?,
    };
    params.validate().map_err(to_py)?;
    Ok(params)
}

/// Grows a tree; `n_classes` is the class count of a 1-D y (0: regression) or one per column
/// of a 2-D class-code y. `validation` = (columns, y, sample_weight) enables validation
/// pre-pruning.
/// Ctrl-C stops it (`KeyboardInterrupt`), so does `max_time` seconds in `params`
/// (`TimeoutError`); `progress(nodes_grown, "nodes")` is called while it runs.
#[pyfunction]
#[pyo3(signature = (columns, y, n_classes, sample_weight, params, validation=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn fit<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyList>,
    y: &Bound<'py, PyAny>,
    n_classes: ClassCounts,
    sample_weight: PyReadonlyArray1<'py, f64>,
    params: &Bound<'py, PyDict>,
    validation: Option<SampleTuple<'py>>,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyTree> {
    let control = control_of(params)?;
    let params = params_from(params)?;
    let classes = n_classes.to_vec();
    let train = HeldSample::hold(columns, y, sample_weight, &classes)?;
    let validation = validation
        .map(|t| HeldSample::from_tuple(t, &classes))
        .transpose()?;
    let progress = progress.as_ref().map(|p| (p, Units::Nodes));
    let inner = train.with(|t| match &validation {
        None => watched(py, &control, progress, || {
            grow_controlled(t, &params, None, &control)
        }),
        Some(v) => v.with(|v| {
            watched(py, &control, progress, || {
                grow_controlled(t, &params, Some(v), &control)
            })
        })?,
    })??;
    Ok(PyTree { inner })
}

/// The control of a fit: `max_time` seconds from the parameter dict, if any.
fn control_of(params: &Bound<'_, PyDict>) -> PyResult<Control> {
    let max_time: Option<f64> = match params.get_item("max_time")? {
        Some(t) => t.extract()?,
        None => None,
    };
    match max_time {
        Some(seconds) => Control::with_time_limit(seconds).map_err(to_py),
        None => Ok(Control::new()),
    }
}

/// Grows the optimal tree within `max_depth` (and `max_leaf_nodes`) minimising the training
/// error plus `ccp_alpha` per leaf. Past `max_time` the best tree found is returned, its
/// `optimality` telling how far from optimal it may be; Ctrl-C raises `KeyboardInterrupt`;
/// `progress(splits_evaluated, "splits")` is called while it runs.
#[pyfunction]
#[pyo3(signature = (columns, y, n_classes, sample_weight, params, ccp_alpha, progress=None))]
#[allow(clippy::too_many_arguments)]
fn fit_optimal<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyList>,
    y: &Bound<'py, PyAny>,
    n_classes: ClassCounts,
    sample_weight: PyReadonlyArray1<'py, f64>,
    params: &Bound<'py, PyDict>,
    ccp_alpha: f64,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyTree> {
    let control = control_of(params)?;
    let params = params_from(params)?;
    let train = HeldSample::hold(columns, y, sample_weight, &n_classes.to_vec())?;
    let progress = progress.as_ref().map(|p| (p, Units::Splits));
    let inner = train.with(|t| {
        watched(py, &control, progress, || {
            grow_optimal(t, &params, ccp_alpha, &control)
        })
    })??;
    Ok(PyTree { inner })
}

#[pyfunction]
#[pyo3(signature = (columns, y, n_classes, sample_weight, *, criterion, categorical_split))]
fn split_scores<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyList>,
    y: &Bound<'py, PyAny>,
    n_classes: ClassCounts,
    sample_weight: PyReadonlyArray1<'py, f64>,
    criterion: &str,
    categorical_split: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let criterion = Criterion::parse(criterion).map_err(to_py)?;
    let split = CategoricalSplit::parse(categorical_split).map_err(to_py)?;
    let held = HeldSample::hold(columns, y, sample_weight, &n_classes.to_vec())?;
    let scored = held
        .with(|s| py.detach(|| core_scores(s.data, s.target, s.weights, criterion, split)))?
        .map_err(to_py)?;
    let scores: Vec<FeatureScore> = scored
        .iter()
        .map(|s| s.unwrap_or(FeatureScore::NONE))
        .collect();
    let d = scores_dict(py, &scores)?;
    let reasons: Vec<Option<&str>> = scored
        .iter()
        .map(|s| s.err().map(NoSplit::reason))
        .collect();
    d.set_item("reason", reasons)?;
    Ok(d)
}

/// Refuses a target the Poisson deviance cannot score (a negative value, or none positive),
/// so that the regressor says so before it compares y's length with X's, as scikit-learn
/// does.
#[pyfunction]
fn check_poisson_target(y: PyReadonlyArray1<'_, f64>) -> PyResult<()> {
    quercus_core::check_poisson_target(y.as_slice()?).map_err(to_py)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    return_freed_memory_promptly();
    m.add_class::<PyTree>()?;
    m.add_class::<stream::PyStreamFit>()?;
    m.add_class::<stream::PyBinnedBatch>()?;
    m.add_class::<convert::PyTextLookup>()?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(fit_optimal, m)?)?;
    m.add_function(wrap_pyfunction!(prune::prune_reduced_error, m)?)?;
    m.add_function(wrap_pyfunction!(prune::prune_pessimistic, m)?)?;
    m.add_function(wrap_pyfunction!(prune::prune_collapse, m)?)?;
    m.add_function(wrap_pyfunction!(prune::j48_pruning_set, m)?)?;
    m.add_function(wrap_pyfunction!(prune::prune_cost_complexity, m)?)?;
    m.add_function(wrap_pyfunction!(prune::cost_complexity_path, m)?)?;
    m.add_function(wrap_pyfunction!(split_scores, m)?)?;
    m.add_function(wrap_pyfunction!(check_poisson_target, m)?)?;
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
