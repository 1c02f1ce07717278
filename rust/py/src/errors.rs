//! The one mapping from core errors to Python exceptions.

use pyo3::create_exception;
use pyo3::exceptions::{
    PyKeyboardInterrupt, PyMemoryError, PyTimeoutError, PyTypeError, PyValueError,
};
use pyo3::PyErr;
use quercus_core::CoreError;

create_exception!(
    _core,
    QuercusError,
    PyValueError,
    "Raised for every invalid input or parameter the core detects."
);

/// Converts a core error: a column of the wrong kind is a `TypeError`, work stopped early is
/// what Python raises for the reason (`KeyboardInterrupt`, `TimeoutError`, `MemoryError`),
/// everything else a `QuercusError` (a `ValueError`), with the core's message.
pub fn to_py(err: CoreError) -> PyErr {
    match err {
        CoreError::ColumnKindMismatch { .. } => PyTypeError::new_err(err.to_string()),
        CoreError::Cancelled => PyKeyboardInterrupt::new_err(err.to_string()),
        CoreError::TimedOut { .. } => PyTimeoutError::new_err(err.to_string()),
        CoreError::OutOfMemory { .. } => PyMemoryError::new_err(err.to_string()),
        CoreError::EmptyData { .. }
        | CoreError::ShapeMismatch { .. }
        | CoreError::InfiniteFeature { .. }
        | CoreError::SparseMissing { .. }
        | CoreError::InvalidSparse { .. }
        | CoreError::NonFiniteTarget { .. }
        | CoreError::ClassOutOfRange { .. }
        | CoreError::CategoryOutOfRange { .. }
        | CoreError::InvalidWeight { .. }
        | CoreError::InvalidParameter { .. }
        | CoreError::NodeOutOfRange { .. }
        | CoreError::TooManyRows { .. }
        | CoreError::CorruptModel { .. }
        | CoreError::UnsupportedVersion { .. } => QuercusError::new_err(err.to_string()),
    }
}
