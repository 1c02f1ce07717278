//! Python column tuples → borrowed core columns (no copy of the NumPy buffers).

use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use quercus_core::{CategoricalColumn, Column, Dataset};

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
