//! The rows a prediction reads: a data set's columns, a dense matrix read in place (either
//! order, `f64` or `f32`), a CSR matrix, or a Polars frame's columns.

use std::ops::Range;

use crate::batch::frame::Frame;
use crate::data::{self, Dataset};
use crate::error::{CoreError, Result};

/// Real numbers a [`Matrix`] may hold. Both convert to `f64` exactly, so a `f32` matrix
/// predicts as its `f64` copy would.
pub trait Real: Copy + Send + Sync + 'static {
    /// Whether the values are float32: a walk then compares them with float32 thresholds
    /// (see [`super::flat`]), without widening each one.
    const IS_F32: bool;
    fn to_f64(self) -> f64;
    /// The value as a float32: exact where [`Real::IS_F32`] (the only case read).
    fn to_f32(self) -> f32;
}

impl Real for f64 {
    const IS_F32: bool = false;
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn to_f32(self) -> f32 {
        self as f32
    }
}

impl Real for f32 {
    const IS_F32: bool = true;
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline]
    fn to_f32(self) -> f32 {
        self
    }
}

/// How a [`Matrix`] lays out its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Row after row (C order, NumPy's default).
    RowMajor,
    /// Column after column (Fortran order).
    ColumnMajor,
}

/// A dense matrix of numeric features (NaN is missing), read in place: a NumPy array's
/// buffer needs no copy or transpose.
#[derive(Debug, Clone, Copy)]
pub struct Matrix<'a, T> {
    pub(super) values: &'a [T],
    pub(super) n_rows: usize,
    pub(super) n_features: usize,
    pub(super) order: Order,
    /// Whether the categorical features' columns hold category codes (see [`Matrix::coded`]).
    pub(super) codes: bool,
}

impl<'a, T: Real> Matrix<'a, T> {
    /// Checks that `values` holds `n_rows × n_features` numbers.
    pub fn new(values: &'a [T], n_rows: usize, n_features: usize, order: Order) -> Result<Self> {
        let expected = n_rows.saturating_mul(n_features);
        if values.len() != expected {
            return Err(CoreError::ShapeMismatch {
                what: "the matrix".into(),
                expected,
                got: values.len(),
            });
        }
        Ok(Matrix {
            values,
            n_rows,
            n_features,
            order,
            codes: false,
        })
    }

    /// This matrix with each categorical feature's column holding category codes as numbers
    /// (NaN: missing). A value that is not a whole number below the feature's number of
    /// categories reads as missing, as an unseen category of a data set's column does. The
    /// facade encodes a small frame this way: one array instead of a column per feature.
    pub fn coded(self) -> Self {
        Matrix {
            codes: true,
            ..self
        }
    }

    /// Column `f`'s values, row by row (`n_rows` of them for a column of the matrix).
    pub(super) fn column(&self, f: usize) -> impl Iterator<Item = &'a T> {
        let (start, step) = match self.order {
            Order::RowMajor => (f, self.n_features),
            Order::ColumnMajor => (f.saturating_mul(self.n_rows), 1),
        };
        self.values
            .iter()
            .skip(start)
            .step_by(step.max(1))
            .take(self.n_rows)
    }

    /// A column-major matrix's columns, in order (of a row-major one, its rows).
    pub(super) fn columns(&self) -> impl Iterator<Item = &'a [T]> {
        self.values.chunks_exact(self.n_rows.max(1))
    }
}

/// A CSR matrix of numeric features read in place (SciPy's layout): row `i` holds the values
/// `values[indptr[i]..indptr[i + 1]]` in the columns `indices[..]` of the same range,
/// strictly ascending; every other cell is 0.0 (a stored −0.0 reads as +0.0). No value may
/// be NaN: sparse input cannot mark missing values (see [`crate::data::SparseColumn`]).
/// [`Csr::new`] checks the layout, so the reads of a row below [`Csr::n_rows`] (`span`, `at`)
/// never take their defaults.
#[derive(Debug, Clone, Copy)]
pub struct Csr<'a> {
    pub(super) indptr: &'a [u64],
    pub(super) indices: &'a [u32],
    pub(super) values: &'a [f64],
    pub(super) n_features: usize,
}

impl<'a> Csr<'a> {
    /// Checks the layout: `indptr` from 0 to the number of values, never decreasing, and
    /// each row's column indices strictly ascending below `n_features`.
    pub fn new(
        indptr: &'a [u64],
        indices: &'a [u32],
        values: &'a [f64],
        n_features: usize,
    ) -> Result<Self> {
        let invalid = |reason: String| Err(CoreError::InvalidSparse { reason });
        if indices.len() != values.len() {
            return invalid(format!(
                "{} column indices but {} values",
                indices.len(),
                values.len()
            ));
        }
        if indptr.first() != Some(&0) || indptr.last() != Some(&(values.len() as u64)) {
            return invalid(format!(
                "the row pointers must run from 0 to the number of values ({})",
                values.len()
            ));
        }
        let m = Csr {
            indptr,
            indices,
            values,
            n_features,
        };
        if let Some(row) = indptr.windows(2).position(|w| w.first() > w.last()) {
            return invalid(format!("the row pointers decrease at row {row}"));
        }
        let lens = indptr
            .iter()
            .zip(indptr.iter().skip(1))
            .map(|(a, b)| b.saturating_sub(*a) as usize);
        for (row, columns) in data::blocks(indices, lens).enumerate() {
            if columns.windows(2).any(|w| w.first() >= w.last()) {
                return invalid(format!(
                    "row {row}'s column indices are not strictly ascending"
                ));
            }
            if let Some(&f) = columns.last().filter(|&&f| f as usize >= n_features) {
                return invalid(format!(
                    "row {row} has column index {f}, but the matrix has {n_features} columns"
                ));
            }
        }
        Ok(m)
    }

    pub(super) fn n_rows(&self) -> usize {
        self.indptr.len().saturating_sub(1)
    }

    /// The positions of row `row`'s stored values.
    #[inline]
    pub(super) fn span(&self, row: usize) -> Range<usize> {
        let at = |i: usize| self.indptr.get(i).map_or(0, |&p| p as usize);
        at(row)..at(row + 1)
    }

    /// The value of `row` in column `f` (a binary search of the row's stored columns).
    #[inline]
    pub(super) fn at(&self, row: usize, f: usize) -> f64 {
        let span = self.span(row);
        let start = span.start;
        let columns = self.indices.get(span).unwrap_or(&[]);
        match columns.binary_search(&(f as u32)) {
            Ok(k) => self.values.get(start + k).map_or(f64::NAN, |x| x + 0.0),
            Err(_) => 0.0,
        }
    }
}

/// The rows a prediction reads.
#[derive(Debug, Clone, Copy)]
pub enum PredictRows<'a> {
    Columns(&'a Dataset<'a>),
    F64(Matrix<'a, f64>),
    F32(Matrix<'a, f32>),
    Csr(Csr<'a>),
    Frame(&'a Frame<'a>),
}

impl<'a, 'd: 'a> From<&'a Dataset<'d>> for PredictRows<'a> {
    fn from(data: &'a Dataset<'d>) -> Self {
        PredictRows::Columns(data)
    }
}

impl<'a> From<Matrix<'a, f64>> for PredictRows<'a> {
    fn from(m: Matrix<'a, f64>) -> Self {
        PredictRows::F64(m)
    }
}

impl<'a> From<Matrix<'a, f32>> for PredictRows<'a> {
    fn from(m: Matrix<'a, f32>) -> Self {
        PredictRows::F32(m)
    }
}

impl<'a> From<&'a Frame<'a>> for PredictRows<'a> {
    fn from(m: &'a Frame<'a>) -> Self {
        PredictRows::Frame(m)
    }
}

impl<'a> From<Csr<'a>> for PredictRows<'a> {
    fn from(m: Csr<'a>) -> Self {
        PredictRows::Csr(m)
    }
}
