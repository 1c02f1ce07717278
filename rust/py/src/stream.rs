//! Bindings of the core's batch-by-batch fit (`quercus_core::StreamFit`): the facade reads
//! the batches (Polars, Dask) and hands each to these methods; sums travel as NumPy arrays
//! and sketches as bytes, so that any process can add a batch and any other merge them.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use quercus_core::{Control, Pass, Sketch, StreamFit};

use crate::convert::{dataset, hold_columns, HeldSample};
use crate::errors::to_py;
use crate::params_from;
use crate::tree::PyTree;

#[pyclass(name = "StreamFit", module = "quercus._core")]
pub struct PyStreamFit {
    inner: StreamFit,
}

#[pymethods]
impl PyStreamFit {
    /// A fit of features shaped as `columns` (one encoded batch, possibly empty) to
    /// `n_classes` classes (0: regression), holding at most `memory_budget` bytes of
    /// histograms per pass.
    #[new]
    fn new(
        columns: &Bound<'_, PyList>,
        n_classes: usize,
        params: &Bound<'_, PyDict>,
        memory_budget: usize,
    ) -> PyResult<Self> {
        let held = hold_columns(columns)?;
        let kinds = dataset(&held)?.kinds();
        let params = params_from(params)?;
        let inner = StreamFit::new(params, kinds, n_classes, memory_budget).map_err(to_py)?;
        Ok(PyStreamFit { inner })
    }

    /// "sketch", "grow" or "variance": what the next pass computes; None when done.
    fn next_pass(&self) -> Option<&'static str> {
        self.inner.next_pass().map(|p| match p {
            Pass::Sketch => "sketch",
            Pass::Grow => "grow",
            Pass::Variance => "variance",
        })
    }

    /// Passes done so far.
    #[getter]
    fn passes(&self) -> u64 {
        self.inner.passes()
    }

    /// Adds a batch to a sketch (bytes, or None for a new one); returns the new sketch and
    /// the batch's rows of positive weight. `offset`: such rows in the batches before it.
    #[pyo3(signature = (sketch, columns, y, sample_weight, offset))]
    fn sketch<'py>(
        &self,
        py: Python<'py>,
        sketch: Option<&[u8]>,
        columns: &Bound<'py, PyList>,
        y: &Bound<'py, PyAny>,
        sample_weight: PyReadonlyArray1<'py, f64>,
        offset: u64,
    ) -> PyResult<(Bound<'py, PyBytes>, u64)> {
        let mut s = match sketch {
            Some(b) => Sketch::from_bytes(b).map_err(to_py)?,
            None => self.inner.sketch(),
        };
        let n_classes = self.n_classes();
        let held = HeldSample::hold(columns, y, sample_weight, &[n_classes])?;
        let kept = held
            .with(|b| py.detach(|| self.inner.add_to_sketch(&mut s, b, offset)))?
            .map_err(to_py)?;
        Ok((PyBytes::new(py, &s.to_bytes()), kept))
    }

    /// Merges two sketches of disjoint rows.
    #[staticmethod]
    fn merge_sketches<'py>(py: Python<'py>, a: &[u8], b: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let mut a = Sketch::from_bytes(a).map_err(to_py)?;
        a.merge(Sketch::from_bytes(b).map_err(to_py)?);
        Ok(PyBytes::new(py, &a.to_bytes()))
    }

    /// Ends the sketch pass.
    fn start(&mut self, sketch: &[u8]) -> PyResult<()> {
        let s = Sketch::from_bytes(sketch).map_err(to_py)?;
        self.inner.start(s).map_err(to_py)
    }

    /// Adds a batch to the current pass's sums (an array, or None for new ones); returns the
    /// sums and the batch's rows of positive weight.
    #[pyo3(signature = (sums, columns, y, sample_weight, offset))]
    fn add<'py>(
        &self,
        py: Python<'py>,
        sums: Option<PyReadonlyArray1<'py, f64>>,
        columns: &Bound<'py, PyList>,
        y: &Bound<'py, PyAny>,
        sample_weight: PyReadonlyArray1<'py, f64>,
        offset: u64,
    ) -> PyResult<(Bound<'py, PyArray1<f64>>, u64)> {
        let mut s = match &sums {
            Some(a) => self.inner.sums_from(a.as_slice()?).map_err(to_py)?,
            None => self.inner.sums().map_err(to_py)?,
        };
        let held = HeldSample::hold(columns, y, sample_weight, &[self.n_classes()])?;
        let kept = held
            .with(|b| py.detach(|| self.inner.add(&mut s, b, offset)))?
            .map_err(to_py)?;
        Ok((s.to_vec().into_pyarray(py), kept))
    }

    /// Merges the sums of two sets of rows for the current pass.
    fn merge<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray1<'py, f64>,
        b: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let mut a = self.inner.sums_from(a.as_slice()?).map_err(to_py)?;
        let b = self.inner.sums_from(b.as_slice()?).map_err(to_py)?;
        a.merge(&b).map_err(to_py)?;
        Ok(a.to_vec().into_pyarray(py))
    }

    /// Whether the sums add exactly in any order (whole numbers below 2^53), so that a tree
    /// reduction gives the bits of a row-order fit.
    fn exact(&self, sums: PyReadonlyArray1<'_, f64>) -> PyResult<bool> {
        let s = self.inner.sums_from(sums.as_slice()?).map_err(to_py)?;
        Ok(s.is_exact())
    }

    /// What `add` reads of the fit during the current pass, as bytes for `resume`.
    fn frontier<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.inner.frontier().map_err(to_py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Takes another process's `frontier` (a fit made with the same arguments): this fit
    /// then adds batches to that pass's sums, and decides nothing.
    fn resume(&mut self, frontier: &[u8]) -> PyResult<()> {
        self.inner.resume(frontier).map_err(to_py)
    }

    /// Ends a pass with the sums over every row.
    fn finish_pass(&mut self, py: Python<'_>, sums: PyReadonlyArray1<'_, f64>) -> PyResult<()> {
        let s = self.inner.sums_from(sums.as_slice()?).map_err(to_py)?;
        let inner = &mut self.inner;
        py.detach(|| inner.finish_pass(s, &Control::new()))
            .map_err(to_py)
    }

    /// The grown tree.
    fn tree(&self) -> PyResult<PyTree> {
        Ok(PyTree {
            inner: self.inner.tree().map_err(to_py)?,
        })
    }
}

impl PyStreamFit {
    fn n_classes(&self) -> usize {
        self.inner.n_classes()
    }
}
