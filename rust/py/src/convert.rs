//! Python column tuples → borrowed core columns (no copy of the NumPy buffers).

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use quercus_core::{CategoricalColumn, Column, Dataset, Sample, Target};

/// A column kept borrowed from NumPy for the duration of a call.
pub enum HeldColumn<'py> {
    Numeric(PyReadonlyArray1<'py, f64>),
    Categorical {
        codes: PyReadonlyArray1<'py, u32>,
        missing: PyReadonlyArray1<'py, bool>,
        n_categories: u32,
        ordered: bool,
    },
}

/// Reads `("numeric", values)` / `("categorical", codes, missing, n_categories, ordered)`.
pub fn hold_columns<'py>(columns: &Bound<'py, PyList>) -> PyResult<Vec<HeldColumn<'py>>> {
    columns
        .iter()
        .enumerate()
        .map(|(j, item)| {
            let t = item
                .cast::<PyTuple>()
                .map_err(|_| PyTypeError::new_err(format!("column {j}: expected a tuple")))?;
            let kind: String = t.get_item(0)?.extract()?;
            match kind.as_str() {
                "numeric" => Ok(HeldColumn::Numeric(t.get_item(1)?.extract()?)),
                "categorical" => Ok(HeldColumn::Categorical {
                    codes: t.get_item(1)?.extract()?,
                    missing: t.get_item(2)?.extract()?,
                    n_categories: t.get_item(3)?.extract()?,
                    ordered: t.get_item(4)?.extract()?,
                }),
                other => Err(PyValueError::new_err(format!(
                    "column {j}: unknown column kind {other:?}"
                ))),
            }
        })
        .collect()
}

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, j: usize) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("column {j}: the array is not contiguous")))
}

/// Borrows the held arrays as a core data set.
pub fn dataset<'a>(held: &'a [HeldColumn<'_>]) -> PyResult<Dataset<'a>> {
    let columns = held
        .iter()
        .enumerate()
        .map(|(j, h)| match h {
            HeldColumn::Numeric(v) => Ok(Column::Numeric(slice(v, j)?)),
            HeldColumn::Categorical {
                codes,
                missing,
                n_categories,
                ordered,
            } => Ok(Column::Categorical(CategoricalColumn {
                codes: slice(codes, j)?,
                missing: Some(slice(missing, j)?),
                n_categories: *n_categories,
                ordered: *ordered,
            })),
        })
        .collect::<PyResult<Vec<_>>>()?;
    Dataset::new(columns).map_err(crate::errors::to_py)
}

/// A target array kept borrowed for the duration of a call.
pub enum HeldTarget<'py> {
    Classes(PyReadonlyArray1<'py, u32>, usize),
    Values(PyReadonlyArray1<'py, f64>),
    /// One column per output, row-major.
    MultiClasses(PyReadonlyArray2<'py, u32>, Vec<usize>),
    MultiValues(PyReadonlyArray2<'py, f64>),
}

/// The classes of a target as the facade passes them: one count for a 1-D y (0 for
/// regression), or one per column of a 2-D class-code y.
#[derive(FromPyObject)]
pub enum ClassCounts {
    One(usize),
    Each(Vec<usize>),
}

impl ClassCounts {
    pub fn to_vec(&self) -> Vec<usize> {
        match self {
            ClassCounts::One(k) => vec![*k],
            ClassCounts::Each(v) => v.clone(),
        }
    }
}

impl<'py> HeldTarget<'py> {
    /// `y` for outputs with `classes` each: a 1-D array with one entry (class codes when it is
    /// positive, regression values when 0), or a C-contiguous 2-D array with one column per
    /// output (class codes with their counts, or regression values when every count is 0;
    /// then the columns say how many outputs there are).
    pub fn hold(y: &Bound<'py, PyAny>, classes: &[usize]) -> PyResult<Self> {
        let real = classes.iter().all(|&k| k == 0);
        if let Ok(array) = y.cast::<numpy::PyUntypedArray>() {
            if array.ndim() == 2 {
                if !array.is_c_contiguous() {
                    return Err(PyValueError::new_err("a 2-D y must be C-contiguous"));
                }
                let columns = array.shape().get(1).copied().unwrap_or(0);
                if real {
                    return Ok(HeldTarget::MultiValues(y.extract()?));
                }
                if columns != classes.len() {
                    return Err(PyValueError::new_err(format!(
                        "y has {columns} columns but {} outputs' classes were given",
                        classes.len()
                    )));
                }
                return Ok(HeldTarget::MultiClasses(y.extract()?, classes.to_vec()));
            }
        }
        match classes {
            [k] if *k > 0 => Ok(HeldTarget::Classes(y.extract()?, *k)),
            [_] | [] if real => Ok(HeldTarget::Values(y.extract()?)),
            _ => Err(PyValueError::new_err(format!(
                "a 1-D y has one output, but {} outputs' classes were given",
                classes.len()
            ))),
        }
    }

    pub fn target(&self) -> PyResult<Target<'_>> {
        let not_contiguous = |_| PyValueError::new_err("y is not contiguous");
        Ok(match self {
            HeldTarget::Classes(codes, n_classes) => Target::Classes {
                codes: codes.as_slice().map_err(not_contiguous)?,
                n_classes: *n_classes,
            },
            HeldTarget::Values(v) => Target::Values(v.as_slice().map_err(not_contiguous)?),
            HeldTarget::MultiClasses(codes, n_classes) => Target::MultiClasses {
                codes: codes.as_slice().map_err(not_contiguous)?,
                n_classes,
            },
            HeldTarget::MultiValues(v) => Target::MultiValues {
                values: v.as_slice().map_err(not_contiguous)?,
                n_outputs: v.shape().get(1).copied().unwrap_or(0),
            },
        })
    }
}

pub fn weights<'a>(w: &'a PyReadonlyArray1<'_, f64>) -> PyResult<&'a [f64]> {
    w.as_slice()
        .map_err(|_| PyValueError::new_err("sample_weight is not contiguous"))
}

/// `(columns, y, sample_weight)`: a labelled data set as the facade passes it.
pub type SampleTuple<'py> = (
    Bound<'py, PyList>,
    Bound<'py, PyAny>,
    PyReadonlyArray1<'py, f64>,
);

/// A labelled data set (training or validation rows) kept borrowed from NumPy.
pub struct HeldSample<'py> {
    columns: Vec<HeldColumn<'py>>,
    y: HeldTarget<'py>,
    weights: PyReadonlyArray1<'py, f64>,
}

impl<'py> HeldSample<'py> {
    pub fn hold(
        columns: &Bound<'py, PyList>,
        y: &Bound<'py, PyAny>,
        weights: PyReadonlyArray1<'py, f64>,
        classes: &[usize],
    ) -> PyResult<Self> {
        Ok(HeldSample {
            columns: hold_columns(columns)?,
            y: HeldTarget::hold(y, classes)?,
            weights,
        })
    }

    pub fn from_tuple(
        (columns, y, weights): SampleTuple<'py>,
        classes: &[usize],
    ) -> PyResult<Self> {
        Self::hold(&columns, &y, weights, classes)
    }

    /// Runs `f` on the rows as a core [`Sample`].
    pub fn with<R>(&self, f: impl FnOnce(&Sample<'_, '_>) -> R) -> PyResult<R> {
        let data = dataset(&self.columns)?;
        let target = self.y.target()?;
        let sample = Sample {
            data: &data,
            target: &target,
            weights: weights(&self.weights)?,
        };
        Ok(f(&sample))
    }
}
