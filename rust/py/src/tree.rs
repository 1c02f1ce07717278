//! The fitted tree as a Python object: prediction and read-only views of the arena.

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use quercus_core::{
    Control, Csr as CsrMatrix, FeatureScore, Matrix, NodeId, Order, PredictRows, Predictor, Real,
    Side, Tree,
};

use crate::control::{watched, Units};
use crate::convert::{dataset, frame, hold_columns, hold_frame, HeldSample};
use crate::errors::{to_py, QuercusError};

/// A fitted tree. Immutable (`frozen`), so one instance may serve many threads at once.
#[pyclass(frozen, name = "Tree", module = "quercus._core")]
pub struct PyTree {
    pub inner: Tree,
}

/// Per-feature scores as a dict of float64 arrays.
pub fn scores_dict<'py>(py: Python<'py>, scores: &[FeatureScore]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let col = |f: fn(&FeatureScore) -> f64| scores.iter().map(f).collect::<Vec<f64>>();
    d.set_item("score", col(|s| s.score).into_pyarray(py))?;
    d.set_item("gain", col(|s| s.gain).into_pyarray(py))?;
    d.set_item("iv", col(|s| s.iv).into_pyarray(py))?;
    d.set_item("threshold", col(|s| s.threshold).into_pyarray(py))?;
    d.set_item("rho", col(|s| s.rho).into_pyarray(py))?;
    Ok(d)
}

/// A CSR matrix's row pointers and column indices.
type Csr<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

fn optional(x: Option<NodeId>) -> i64 {
    x.map_or(-1, |n| i64::from(n.0))
}

/// Rows below which a prediction keeps the GIL: releasing it would cost more than the walk.
const DETACH_ROWS: usize = 256;

/// Rows from which a prediction runs watched ([`watched`]: Ctrl-C stops it, progress is
/// reported): a few milliseconds of work at least, so the helper thread costs nothing
/// noticeable.
const WATCH_ROWS: usize = 1 << 18;

/// A CSR matrix as the facade passes it: `("csr", indptr, indices, values, n_features)`.
type CsrTuple<'py> = (
    String,
    PyReadonlyArray1<'py, u64>,
    PyReadonlyArray1<'py, u32>,
    PyReadonlyArray1<'py, f64>,
    usize,
);

/// Runs `f` on the rows of `rows` (a list of encoded columns, a 2-D float64 or float32
/// NumPy array read in place, a data frame's columns read in place, or a CSR matrix's arrays), without the GIL, with the [`Control`] (if any) it should pass
/// to [`predictor`]; returns the number of rows with the result.
fn predict<T: Send>(
    py: Python<'_>,
    rows: &Bound<'_, PyAny>,
    progress: Option<Py<PyAny>>,
    f: impl Fn(PredictRows<'_>, Option<&Control>) -> quercus_core::Result<T> + Sync,
) -> PyResult<(usize, T)> {
    let control = Control::new();
    let run = |rows: PredictRows<'_>, n: usize| {
        let out = if n < DETACH_ROWS {
            f(rows, None).map_err(to_py)
        } else if n < WATCH_ROWS {
            py.detach(|| f(rows, Some(&control))).map_err(to_py)
        } else {
            let progress = progress.as_ref().map(|p| (p, Units::Rows));
            watched(py, &control, progress, || f(rows, Some(&control)))
        };
        out.map(|out| (n, out))
    };
    if let Ok(columns) = rows.cast::<PyList>() {
        let held = hold_columns(columns)?;
        let data = dataset(&held)?;
        return run(PredictRows::Columns(&data), data.n_rows());
    }
    if let Ok(array) = rows.extract::<PyReadonlyArray2<'_, f64>>() {
        let (m, n) = matrix(&array)?;
        return run(PredictRows::F64(m), n);
    }
    if let Ok(array) = rows.extract::<PyReadonlyArray2<'_, f32>>() {
        let (m, n) = matrix(&array)?;
        return run(PredictRows::F32(m), n);
    }
    if let Ok((kind, columns, _)) = rows.extract::<(String, Bound<'_, PyList>, Bound<'_, PyAny>)>()
    {
        if kind == "frame" {
            let held = hold_frame(&columns)?;
            let data = frame(&held)?;
            return run(PredictRows::Frame(&data), data.n_rows());
        }
    }
    if let Ok((kind, array)) = rows.extract::<(String, PyReadonlyArray2<'_, f64>)>() {
        if kind == "codes" {
            let (m, n) = matrix(&array)?;
            return run(PredictRows::F64(m.coded()), n);
        }
    }
    if let Ok((kind, indptr, indices, values, n_features)) = rows.extract::<CsrTuple<'_>>() {
        if kind == "csr" {
            let not_contiguous = |_| PyValueError::new_err("a CSR array is not contiguous");
            let indptr = indptr.as_slice().map_err(not_contiguous)?;
            let m = CsrMatrix::new(
                indptr,
                indices.as_slice().map_err(not_contiguous)?,
                values.as_slice().map_err(not_contiguous)?,
                n_features,
            )
            .map_err(to_py)?;
            return run(PredictRows::Csr(m), indptr.len().saturating_sub(1));
        }
    }
    Err(PyTypeError::new_err(
        "rows must be a list of encoded columns, a 2-D float64 or float32 array, \
         (\"codes\", array) (a float64 array whose categorical columns hold category codes), \
         (\"frame\", columns, frame) (a data frame's columns read in place), \
         or (\"csr\", indptr, indices, values, n_features)",
    ))
}

/// The tree's predictor on `n_jobs` threads, under `control` when there is one (a small batch
/// has none: it is over before anyone could stop it).
fn predictor<'t>(
    tree: &'t Tree,
    n_jobs: Option<usize>,
    control: Option<&'t Control>,
) -> Predictor<'t> {
    let predictor = tree.predictor(n_jobs);
    match control {
        Some(c) => predictor.controlled(c),
        None => predictor,
    }
}

/// A contiguous NumPy matrix as the core reads it, and its number of rows.
fn matrix<'a, T: Real + numpy::Element>(
    array: &'a PyReadonlyArray2<'_, T>,
) -> PyResult<(Matrix<'a, T>, usize)> {
    let [n_rows, n_features] = array.shape() else {
        return Err(PyValueError::new_err("rows must be a 2-D array"));
    };
    let order = if array.is_c_contiguous() {
        Order::RowMajor
    } else {
        Order::ColumnMajor
    };
    let values = array
        .as_slice()
        .map_err(|_| PyValueError::new_err("the array is not contiguous"))?;
    let m = Matrix::new(values, *n_rows, *n_features, order).map_err(to_py)?;
    Ok((m, *n_rows))
}

impl PyTree {
    /// `flat` (row-major, one item per output) as a 1-D array for a single-output tree, or
    /// `(n, n_outputs)` for a multi-output one.
    fn per_output<'py, T: numpy::Element>(
        &self,
        n: usize,
        flat: Bound<'py, PyArray1<T>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.n_outputs() {
            1 => Ok(flat.into_any()),
            k => Ok(flat.reshape([n, k])?.into_any()),
        }
    }

    /// The tree's model file (docs/model-format.md) with `metadata` stored alongside.
    fn model_file<'py>(&self, py: Python<'py>, metadata: &[u8]) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &quercus_core::model_io::write(&self.inner, metadata))
    }
}

#[pymethods]
impl PyTree {
    #[getter]
    fn n_nodes(&self) -> usize {
        self.inner.n_nodes()
    }

    #[getter]
    fn n_leaves(&self) -> usize {
        self.inner.n_leaves()
    }

    #[getter]
    fn depth(&self) -> usize {
        self.inner.max_depth()
    }

    #[getter]
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }

    /// Classes summed over the outputs; 0 for a regression tree.
    #[getter]
    fn n_classes(&self) -> usize {
        self.inner.n_classes()
    }

    /// Targets predicted at once (columns of a multi-output y).
    #[getter]
    fn n_outputs(&self) -> usize {
        self.inner.n_outputs()
    }

    /// The classes of each output; 0 for a real-valued one.
    #[getter]
    fn output_classes(&self) -> Vec<usize> {
        self.inner.output_classes().to_vec()
    }

    #[getter]
    fn criterion(&self) -> &'static str {
        self.inner.criterion().name()
    }

    /// The missing-value strategy the tree was grown with.
    #[getter]
    fn missing(&self) -> &'static str {
        self.inner.missing_strategy().name()
    }

    /// The threshold search that grew the tree, `"exact"`, `"hist"` or `"random"` (`"auto"`
    /// and `"best"` resolved).
    #[getter]
    fn splitter(&self) -> &'static str {
        self.inner.splitter().0.name()
    }

    /// What the optimal search proved: (objective, lower bound); None for other trees.
    #[getter]
    fn optimality(&self) -> Option<(f64, f64)> {
        self.inner
            .optimality()
            .map(|o| (o.objective, o.lower_bound))
    }

    /// Bins per feature of a histogram tree; 0 for an exact one.
    #[getter]
    fn max_bins(&self) -> u32 {
        self.inner.splitter().1
    }

    /// The conventions the tree was grown with, `"texts"` or `"j48"`.
    #[getter]
    fn conventions(&self) -> &'static str {
        self.inner.conventions().name()
    }

    #[pyo3(signature = (rows, n_jobs=None, progress=None))]
    fn predict_proba<'py>(
        &self,
        py: Python<'py>,
        rows: &Bound<'py, PyAny>,
        n_jobs: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (n, proba) = predict(py, rows, progress, |r, c| {
            predictor(&self.inner, n_jobs, c).proba(r)
        })?;
        proba.into_pyarray(py).reshape([n, self.inner.n_classes()])
    }

    #[pyo3(signature = (rows, n_jobs=None, progress=None))]
    fn predict_class<'py>(
        &self,
        py: Python<'py>,
        rows: &Bound<'py, PyAny>,
        n_jobs: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (n, out) = predict(py, rows, progress, |r, c| {
            predictor(&self.inner, n_jobs, c).class(r)
        })?;
        self.per_output(n, out.into_pyarray(py))
    }

    #[pyo3(signature = (rows, n_jobs=None, progress=None))]
    fn predict_value<'py>(
        &self,
        py: Python<'py>,
        rows: &Bound<'py, PyAny>,
        n_jobs: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (n, out) = predict(py, rows, progress, |r, c| {
            predictor(&self.inner, n_jobs, c).value(r)
        })?;
        self.per_output(n, out.into_pyarray(py))
    }

    #[pyo3(signature = (rows, n_jobs=None, progress=None))]
    fn apply<'py>(
        &self,
        py: Python<'py>,
        rows: &Bound<'py, PyAny>,
        n_jobs: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let (_, out) = predict(py, rows, progress, |r, c| {
            predictor(&self.inner, n_jobs, c).apply(r)
        })?;
        Ok(out
            .into_iter()
            .map(i64::from)
            .collect::<Vec<_>>()
            .into_pyarray(py))
    }

    /// The nodes each row passes through, as CSR arrays (indptr, indices): every node the
    /// row reaches with a positive share, routed as prediction routes it.
    #[pyo3(signature = (rows, n_jobs=None, progress=None))]
    fn decision_path<'py>(
        &self,
        py: Python<'py>,
        rows: &Bound<'py, PyAny>,
        n_jobs: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Csr<'py>> {
        let (_, (indptr, indices)) = predict(py, rows, progress, |r, c| {
            predictor(&self.inner, n_jobs, c).decision_path(r)
        })?;
        let indptr: Vec<i64> = indptr.into_iter().map(|x| x as i64).collect();
        let indices: Vec<i64> = indices.into_iter().map(i64::from).collect();
        Ok((indptr.into_pyarray(py), indices.into_pyarray(py)))
    }

    /// The spread of a regression target over `columns` / `y` / `sample_weight` at every
    /// node: a dict of `weight` and `mean` (one per node) and `quantiles` (n_nodes x
    /// len(probs)), rows routed as prediction routes them (see the core's `spread`).
    #[pyo3(signature = (columns, y, sample_weight, probs, n_jobs=None))]
    fn node_spread<'py>(
        &self,
        py: Python<'py>,
        columns: &Bound<'py, PyList>,
        y: &Bound<'py, PyAny>,
        sample_weight: PyReadonlyArray1<'py, f64>,
        probs: Vec<f64>,
        n_jobs: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let held = HeldSample::hold(columns, y, sample_weight, &[0])?;
        let control = Control::new();
        let spread = held.with(|s| {
            let work = || self.inner.node_spread(s, &probs, n_jobs, &control);
            if s.data.n_rows() < WATCH_ROWS {
                py.detach(work).map_err(to_py)
            } else {
                watched(py, &control, None, work)
            }
        })??;
        let d = PyDict::new(py);
        let n_nodes = spread.weight.len();
        d.set_item("weight", spread.weight.into_pyarray(py))?;
        d.set_item("mean", spread.mean.into_pyarray(py))?;
        d.set_item(
            "quantiles",
            spread
                .quantiles
                .into_pyarray(py)
                .reshape([n_nodes, spread.probs.len()])?,
        )?;
        Ok(d)
    }

    fn node_scores<'py>(&self, py: Python<'py>, node: i64) -> PyResult<Bound<'py, PyDict>> {
        let out_of_range = || {
            QuercusError::new_err(format!(
                "node {node} does not exist: the tree has {} nodes",
                self.inner.n_nodes()
            ))
        };
        let id = u32::try_from(node).map_err(|_| out_of_range())?;
        let id = self.inner.check(NodeId(id)).map_err(|_| out_of_range())?;
        match self.inner.node_scores(id) {
            Some(s) => scores_dict(py, s),
            None => scores_dict(py, &vec![FeatureScore::NONE; self.inner.n_features()]),
        }
    }

    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.inner;
        let ids: Vec<NodeId> = (0..t.n_nodes() as u32).map(NodeId).collect();
        let d = PyDict::new(py);
        let i64s = |f: &dyn Fn(NodeId) -> i64| ids.iter().map(|&n| f(n)).collect::<Vec<i64>>();
        let f64s = |f: &dyn Fn(NodeId) -> f64| ids.iter().map(|&n| f(n)).collect::<Vec<f64>>();
        let kind_feature = |n: NodeId| -> (u8, i64, f64) {
            match t.kind(n) {
                quercus_core::NodeKind::Leaf => (0, -1, f64::NAN),
                quercus_core::NodeKind::Numeric { feature, threshold } => {
                    (1, feature as i64, threshold)
                }
                quercus_core::NodeKind::Multiway { feature } => (2, feature as i64, f64::NAN),
                quercus_core::NodeKind::Subset { feature, .. } => (3, feature as i64, f64::NAN),
                quercus_core::NodeKind::Ordered { feature, threshold } => {
                    (4, feature as i64, f64::from(threshold))
                }
                quercus_core::NodeKind::Oblique { threshold, .. } => (5, -1, threshold),
            }
        };
        d.set_item(
            "kind",
            ids.iter()
                .map(|&n| kind_feature(n).0)
                .collect::<Vec<u8>>()
                .into_pyarray(py),
        )?;
        d.set_item("feature", i64s(&|n| kind_feature(n).1).into_pyarray(py))?;
        d.set_item("threshold", f64s(&|n| kind_feature(n).2).into_pyarray(py))?;
        d.set_item(
            "first_child",
            i64s(&|n| optional(t.children(n).next())).into_pyarray(py),
        )?;
        d.set_item(
            "n_children",
            i64s(&|n| t.children(n).count() as i64).into_pyarray(py),
        )?;
        d.set_item("parent", i64s(&|n| optional(t.parent(n))).into_pyarray(py))?;
        d.set_item("depth", i64s(&|n| t.depth(n) as i64).into_pyarray(py))?;
        d.set_item("weight", f64s(&|n| t.weight(n)).into_pyarray(py))?;
        d.set_item("n_rows", f64s(&|n| t.n_rows(n)).into_pyarray(py))?;
        d.set_item(
            "n_samples",
            i64s(&|n| i64::try_from(t.n_samples(n)).unwrap_or(i64::MAX)).into_pyarray(py),
        )?;
        d.set_item("impurity", f64s(&|n| t.impurity(n)).into_pyarray(py))?;
        let regression = t.is_regression();
        let label: Vec<i64> = ids
            .iter()
            .flat_map(|&n| t.labels(n).iter())
            .map(|&l| if regression { -1 } else { i64::from(l) })
            .collect();
        d.set_item("label", self.per_output(ids.len(), label.into_pyarray(py))?)?;
        d.set_item(
            "branch_fraction",
            f64s(&|n| t.branch_fraction(n)).into_pyarray(py),
        )?;
        let width = t.value_width();
        let value: Vec<f64> = ids
            .iter()
            .flat_map(|&n| t.value(n).iter().copied())
            .collect();
        d.set_item("value", value.into_pyarray(py).reshape([ids.len(), width])?)?;
        d.set_item(
            "subset_offset",
            i64s(&|n| t.subset_offset(n).map_or(-1, |o| o as i64)).into_pyarray(py),
        )?;
        let terms = |n: NodeId| t.linear_terms(n);
        let mut linear_offset = Vec::with_capacity(ids.len());
        let (mut linear_features, mut linear_weights) = (Vec::new(), Vec::new());
        for &n in &ids {
            match terms(n) {
                Some((features, weights)) => {
                    linear_offset.push(linear_features.len() as i64);
                    linear_features.extend(features.iter().map(|&f| i64::from(f)));
                    linear_weights.extend_from_slice(weights);
                }
                None => linear_offset.push(-1),
            }
        }
        d.set_item(
            "linear_len",
            i64s(&|n| terms(n).map_or(0, |(f, _)| f.len() as i64)).into_pyarray(py),
        )?;
        d.set_item("linear_offset", linear_offset.into_pyarray(py))?;
        d.set_item("linear_features", linear_features.into_pyarray(py))?;
        d.set_item("linear_weights", linear_weights.into_pyarray(py))?;
        let mask: Vec<u8> = t.subset_sides().iter().map(|&s| s as u8).collect();
        d.set_item("subset_mask", mask.into_pyarray(py))?;
        // Missing values: the child each split sends them to (index among its children, -1 for
        // C4.5's fractions and for leaves, -2 where a row no surrogate sends stays in the node:
        // rpart's split without a majority side), the weight that arrived missing, and the surrogate
        // splits back to back (each node's at surrogate_offset, surrogate_len of them; a
        // surrogate's child map at surrogate_map in surrogate_children: [<=, >] for a numeric
        // feature, one per category otherwise, -1 for no direction).
        d.set_item(
            "missing_child",
            i64s(&|n| match t.missing_child(n) {
                Some(c) => i64::from(c.0) - t.children(n).next().map_or(0, |f| i64::from(f.0)),
                None if t.keeps_unsent(n) => -2,
                None => -1,
            })
            .into_pyarray(py),
        )?;
        d.set_item(
            "missing_weight",
            f64s(&|n| t.missing_weight(n)).into_pyarray(py),
        )?;
        let mut surrogate_offset = Vec::with_capacity(ids.len());
        let mut surrogate_len = Vec::with_capacity(ids.len());
        let (mut s_feature, mut s_threshold, mut s_agreement, mut s_adjusted) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut s_map, mut s_children) = (Vec::new(), Vec::new());
        for &n in &ids {
            let start = s_feature.len() as i64;
            let mut count = 0i64;
            for s in t.surrogates(n) {
                s_feature.push(s.feature as i64);
                s_threshold.push(s.threshold);
                s_agreement.push(s.agreement);
                s_adjusted.push(s.adjusted);
                s_map.push(s_children.len() as i64);
                s_children.extend(s.children.iter().map(|&c| {
                    if c == u32::MAX {
                        -1
                    } else {
                        i64::from(c)
                    }
                }));
                count += 1;
            }
            surrogate_offset.push(if count > 0 { start } else { -1 });
            surrogate_len.push(count);
        }
        d.set_item("surrogate_offset", surrogate_offset.into_pyarray(py))?;
        d.set_item("surrogate_len", surrogate_len.into_pyarray(py))?;
        d.set_item("surrogate_feature", s_feature.into_pyarray(py))?;
        d.set_item("surrogate_threshold", s_threshold.into_pyarray(py))?;
        d.set_item("surrogate_agreement", s_agreement.into_pyarray(py))?;
        d.set_item("surrogate_adjusted", s_adjusted.into_pyarray(py))?;
        d.set_item("surrogate_map", s_map.into_pyarray(py))?;
        d.set_item("surrogate_children", s_children.into_pyarray(py))?;
        debug_assert_eq!(Side::Left as u8, 1);
        Ok(d)
    }

    /// Each feature as the tree knows it: (kind, n_categories, ordered), kind "numeric" or
    /// "categorical".
    fn feature_kinds(&self) -> Vec<(&'static str, u32, bool)> {
        self.inner
            .feature_kinds()
            .iter()
            .map(|k| match *k {
                quercus_core::FeatureKind::Numeric => ("numeric", 0, false),
                quercus_core::FeatureKind::Categorical {
                    n_categories,
                    ordered,
                } => ("categorical", n_categories, ordered),
            })
            .collect()
    }

    /// J48 -A's copy: each leaf holds one more of every class, so its probabilities are
    /// Laplace's (n_k + 1) / (n + K) (see `quercus_core::Tree::laplace_smoothed`).
    fn laplace_smoothed(&self) -> PyResult<PyTree> {
        self.inner
            .laplace_smoothed()
            .map(|inner| PyTree { inner })
            .ok_or_else(|| PyValueError::new_err("a regression tree has no class counts to smooth"))
    }

    /// The tree in the model format (docs/model-format.md), with `metadata` stored alongside.
    #[pyo3(signature = (metadata=None))]
    fn to_bytes<'py>(&self, py: Python<'py>, metadata: Option<&[u8]>) -> Bound<'py, PyBytes> {
        self.model_file(py, metadata.unwrap_or_default())
    }

    /// Pickling goes through the model format: `tree_from_bytes(self.to_bytes())`.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let load = py.import("quercus._core")?.getattr("tree_from_bytes")?;
        Ok((load, (self.model_file(py, &[]),)))
    }
}
