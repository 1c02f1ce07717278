//! The one mapping from core errors to Python exceptions.

use pyo3::create_exception;
use pyo3::exceptions::{
    PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyTimeoutError, PyTypeError, PyValueError,
};
use pyo3::PyErr;
use quercus_core::CoreError;

create_exception!(
    _core,
    QuercusError,
    PyValueError,
    "Raised for every invalid input or parameter the core detects (a ValueError).\n\n\
A damaged or foreign model file, a node that does not exist, data the core cannot use: the\n\
message says what and where.\n\n\
Examples\n\
--------\n\
>>> import quercus\n\
>>> try:\n\
...     quercus.from_bytes(b\"not a model\")\n\
... except quercus.QuercusError as error:\n\
...     print(error)\n\
cannot load the model: not a quercus model: it does not start with the magic bytes 89 51 52 43 0D 0A 1A 0A\n"
);

/// Converts a core error: a column of the wrong kind is a `TypeError`, work stopped early is
/// what Python raises for the reason (`KeyboardInterrupt`, `TimeoutError`, `MemoryError`), a
/// tree that breaks the arena's rules is a bug (`RuntimeError`), everything else a
/// `QuercusError` (a `ValueError`), with the core's message.
pub fn to_py(err: CoreError) -> PyErr {
    match err {
        CoreError::ColumnKindMismatch { .. } => PyTypeError::new_err(err.to_string()),
        CoreError::Cancelled => PyKeyboardInterrupt::new_err(err.to_string()),
        CoreError::TimedOut { .. } => PyTimeoutError::new_err(err.to_string()),
        CoreError::OutOfMemory { .. } => PyMemoryError::new_err(err.to_string()),
        CoreError::BrokenTree { .. } => PyRuntimeError::new_err(err.to_string()),
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
