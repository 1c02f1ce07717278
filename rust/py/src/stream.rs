//! Bindings of the core's batch-by-batch fit (`quercus_core::StreamFit`): the facade reads
//! the batches (Polars, Dask) and hands each to these methods; sums travel as NumPy arrays
//! and sketches as bytes, so that any process can add a batch and any other merge them.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use quercus_core::{BinnedBatch, Control, KeptBatches, Pass, Sketch, StreamFit};

use crate::control::watched;
use crate::convert::{dataset, hold_columns, HeldSample};
use crate::errors::to_py;
use crate::params_from;
use crate::tree::PyTree;

#[pyclass(name = "StreamFit", module = "quercus._core")]
pub struct PyStreamFit {
    inner: StreamFit,
    /// The batches `add(..., keep=True)` kept binned for the later passes.
    kept: Option<KeptBatches>,
    /// The sketch `sketch_batch` adds to (held here: sending it as bytes after each batch
    /// would copy it three times).
    sketch: Option<Sketch>,
    budget: usize,
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
        Ok(PyStreamFit {
            inner,
            kept: None,
            sketch: None,
            budget: memory_budget,
        })
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

    /// A sketch split at `threshold` (`sample_threshold`'s): the head (the pairs at or below
    /// it, and the totals) and the tail (the pairs above it).
    #[staticmethod]
    fn split_sketch<'py>(
        py: Python<'py>,
        sketch: &[u8],
        threshold: u64,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let mut head = Sketch::from_bytes(sketch).map_err(to_py)?;
        let (head, tail) = py.detach(|| {
            let tail = head.split_off(threshold);
            (head.to_bytes(), tail.to_bytes())
        });
        Ok((PyBytes::new(py, &head), PyBytes::new(py, &tail)))
    }

    /// The hash threshold of `split_sketch` for `rows` rows of positive weight, and how
    /// many rows hash at or below it.
    #[staticmethod]
    fn sample_threshold(py: Python<'_>, rows: u64) -> (u64, u64) {
        py.detach(|| StreamFit::sample_threshold(rows))
    }

    /// How many lowest pairs of each partition's tail each column needs, given the merged
    /// heads (`below`: `sample_threshold`'s row count).
    fn tails_wanted(&self, head: &[u8], below: u64) -> PyResult<Vec<u64>> {
        let head = Sketch::from_bytes(head).map_err(to_py)?;
        Ok(self.inner.tails_wanted(&head, below))
    }

    /// A tail's `counts[c]` lowest pairs of each column `c`, as a sketch to merge.
    #[staticmethod]
    fn sketch_lowest<'py>(
        py: Python<'py>,
        tail: &[u8],
        counts: Vec<u64>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let tail = Sketch::from_bytes(tail).map_err(to_py)?;
        let lowest = py.detach(|| tail.lowest(&counts).to_bytes());
        Ok(PyBytes::new(py, &lowest))
    }

    /// Adds a batch, after those added before, to the sketch this fit holds (`start(None)`
    /// ends the pass with it); returns the batch's rows of positive weight.
    fn sketch_batch(
        &mut self,
        py: Python<'_>,
        columns: &Bound<'_, PyList>,
        y: &Bound<'_, PyAny>,
        sample_weight: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<u64> {
        let n_classes = self.n_classes();
        let inner = &self.inner;
        let s = self.sketch.get_or_insert_with(|| inner.sketch());
        let offset = s.rows();
        let held = HeldSample::hold(columns, y, sample_weight, &[n_classes])?;
        held.with(|b| py.detach(|| inner.add_to_sketch(s, b, offset)))?
            .map_err(to_py)
    }

    /// Merges sketches of disjoint rows (at least one).
    #[staticmethod]
    fn merge_sketches<'py>(
        py: Python<'py>,
        sketches: Vec<Bound<'py, PyBytes>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let parts: Vec<&[u8]> = sketches.iter().map(|b| b.as_bytes()).collect();
        let merged = py.detach(|| -> quercus_core::Result<Vec<u8>> {
            let mut parts = parts.into_iter().map(Sketch::from_bytes);
            let Some(mut all) = parts.next().transpose()? else {
                return Err(quercus_core::CoreError::InvalidParameter {
                    name: "sketches",
                    reason: "no sketch to merge".into(),
                });
            };
            for other in parts {
                all.merge(other?);
            }
            Ok(all.to_bytes())
        });
        Ok(PyBytes::new(py, &merged.map_err(to_py)?))
    }

    /// Ends the sketch pass with `sketch`, or with the one `sketch_batch` built (None).
    #[pyo3(signature = (sketch=None))]
    fn start(&mut self, sketch: Option<&[u8]>) -> PyResult<()> {
        let s = match sketch {
            Some(bytes) => Sketch::from_bytes(bytes).map_err(to_py)?,
            None => self.sketch.take().unwrap_or_else(|| self.inner.sketch()),
        };
        self.inner.start(s).map_err(to_py)
    }

    /// Adds a batch to the current pass's sums (an array, or None for new ones); returns the
    /// sums and the batch's rows of positive weight. With `keep`, the batch is also kept
    /// binned (in memory within the memory budget, else in a temporary file) so that the
    /// later passes read it with `add_kept`; every batch of that pass must be kept.
    #[pyo3(signature = (sums, columns, y, sample_weight, offset, keep=false))]
    #[allow(clippy::too_many_arguments)]
    fn add<'py>(
        &mut self,
        py: Python<'py>,
        sums: Option<PyReadonlyArray1<'py, f64>>,
        columns: &Bound<'py, PyList>,
        y: &Bound<'py, PyAny>,
        sample_weight: PyReadonlyArray1<'py, f64>,
        offset: u64,
        keep: bool,
    ) -> PyResult<(Bound<'py, PyArray1<f64>>, u64)> {
        let mut s = match &sums {
            Some(a) => self.inner.sums_from(a.as_slice()?).map_err(to_py)?,
            None => self.inner.sums().map_err(to_py)?,
        };
        let held = HeldSample::hold(columns, y, sample_weight, &[self.n_classes()])?;
        let inner = &self.inner;
        let kept = if keep {
            let store = self
                .kept
                .get_or_insert_with(|| KeptBatches::new(self.budget));
            held.with(|b| py.detach(|| inner.add_keeping(&mut s, b, store)))?
        } else {
            held.with(|b| py.detach(|| inner.add(&mut s, b, offset)))?
        }
        .map_err(to_py)?;
        Ok((s.to_vec().into_pyarray(py), kept))
    }

    /// Whether an earlier pass kept every batch, so that `add_kept` can serve this one.
    #[getter]
    fn has_kept(&self) -> bool {
        self.kept
            .as_ref()
            .and_then(KeptBatches::pass)
            .is_some_and(|p| p < self.inner.passes())
    }

    /// Where the kept batches are ("memory" or "file") and their bytes; None if none is.
    fn kept_storage(&self) -> Option<(&'static str, u64)> {
        let k = self.kept.as_ref()?;
        Some((if k.spilled() { "file" } else { "memory" }, k.bytes()))
    }

    /// The current pass's sums over every kept batch (Ctrl-C stops it).
    fn add_kept<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let mut s = self.inner.sums().map_err(to_py)?;
        let Some(kept) = self.kept.as_mut() else {
            return Err(to_py(quercus_core::CoreError::InvalidParameter {
                name: "add_kept",
                reason: "no pass kept its batches (add with keep=True)".into(),
            }));
        };
        let inner = &self.inner;
        let control = Control::new();
        watched(py, &control, None, || {
            inner.add_kept(&mut s, kept, &control)
        })?;
        Ok(s.to_vec().into_pyarray(py))
    }

    /// Checks a batch and bins it by the fit's cuts (during a grow pass; a replica of the
    /// first one serves): the partition a Dask worker holds for the later passes.
    fn bin(
        &self,
        py: Python<'_>,
        columns: &Bound<'_, PyList>,
        y: &Bound<'_, PyAny>,
        sample_weight: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<PyBinnedBatch> {
        let held = HeldSample::hold(columns, y, sample_weight, &[self.n_classes()])?;
        let inner = &self.inner;
        let batch = held.with(|b| py.detach(|| inner.bin(b)))?.map_err(to_py)?;
        Ok(PyBinnedBatch { inner: batch })
    }

    /// Adds a binned batch to the current pass's sums (an array, or None for new ones),
    /// routing its rows from the root.
    #[pyo3(signature = (sums, batch))]
    fn add_binned<'py>(
        &self,
        py: Python<'py>,
        sums: Option<PyReadonlyArray1<'py, f64>>,
        batch: &PyBinnedBatch,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let mut s = match &sums {
            Some(a) => self.inner.sums_from(a.as_slice()?).map_err(to_py)?,
            None => self.inner.sums().map_err(to_py)?,
        };
        let inner = &self.inner;
        let batch = &batch.inner;
        py.detach(|| inner.add_binned(&mut s, batch))
            .map_err(to_py)?;
        Ok(s.to_vec().into_pyarray(py))
    }

    /// Seconds spent so far in each step the core times, by name.
    fn profile(&self) -> Vec<(&'static str, f64)> {
        self.inner.profile()
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

/// A batch binned by a fit's cuts (`StreamFit.bin`), held where it lies (a Dask worker) and
/// read by every later pass; pickled as its bytes.
#[pyclass(name = "BinnedBatch", module = "quercus._core", frozen)]
pub struct PyBinnedBatch {
    inner: BinnedBatch,
}

#[pymethods]
impl PyBinnedBatch {
    /// Rows held (the batch's rows of positive weight).
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Bytes held: the codes, categories, targets and weights.
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.bytes()
    }

    /// The batch as bytes (`from_bytes` reads them back).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        Ok(PyBinnedBatch {
            inner: BinnedBatch::from_bytes(data).map_err(to_py)?,
        })
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let load = py
            .import("quercus._core")?
            .getattr("BinnedBatch")?
            .getattr("from_bytes")?;
        Ok((load, (self.to_bytes(py),)))
    }
}
