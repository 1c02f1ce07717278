//! The core's error type: every way user input can be rejected, as data.

use thiserror::Error;

/// Why the core refused a data set, a parameter or a request.
///
/// Columns and rows are 0-based indices; the Python layer translates column indices into names.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CoreError {
    #[error("the data set is empty: it has {rows} rows and {columns} columns")]
    EmptyData { rows: usize, columns: usize },
    #[error("{what} has length {got}, expected {expected}")]
    ShapeMismatch {
        what: String,
        expected: usize,
        got: usize,
    },
    #[error("column {column} holds an infinite value at row {row}")]
    InfiniteFeature { column: usize, row: usize },
    #[error(
        "column {column} holds NaN at row {row}, but a sparse column cannot hold missing values \
         (as in scikit-learn); pass the data dense, where NaN means missing"
    )]
    SparseMissing { column: usize, row: usize },
    #[error("invalid sparse matrix: {reason}")]
    InvalidSparse { reason: String },
    #[error("the target holds a non-finite value ({value}) at row {row}")]
    NonFiniteTarget { row: usize, value: f64 },
    #[error(
        "the target holds class code {code} at row {row}, but there are only {n_classes} classes"
    )]
    ClassOutOfRange {
        row: usize,
        code: u32,
        n_classes: usize,
    },
    #[error("column {column} holds category code {code} at row {row}, but it has only {n_categories} categories")]
    CategoryOutOfRange {
        column: usize,
        row: usize,
        code: u32,
        n_categories: u32,
    },
    #[error("sample weights must be finite and not negative; row {row} has {value}")]
    InvalidWeight { row: usize, value: f64 },
    #[error("invalid parameter {name}: {reason}")]
    InvalidParameter { name: &'static str, reason: String },
    #[error("column {column} was {expected} when the tree was fitted, but is {got} now")]
    ColumnKindMismatch {
        column: usize,
        expected: &'static str,
        got: &'static str,
    },
    #[error("node {node} does not exist: the tree has {n_nodes} nodes")]
    NodeOutOfRange { node: usize, n_nodes: usize },
    #[error("the data set has {rows} rows, more than the {limit} a tree can index")]
    TooManyRows { rows: usize, limit: usize },
    #[error("cannot load the model: {reason}")]
    CorruptModel { reason: String },
    #[error(
        "cannot load the model: it is in format version {found}, but this quercus reads versions \
         1 to {supported}{}",
        version_hint(*.found, *.supported)
    )]
    UnsupportedVersion { found: u32, supported: u32 },
    #[error(
        "internal error: quercus made a tree that breaks its own rules ({reason}); please report \
         it"
    )]
    BrokenTree { reason: String },
    #[error("the work was cancelled before it finished")]
    Cancelled,
    #[error("the work did not finish within max_time = {seconds} s")]
    TimedOut { seconds: f64 },
    #[error("out of memory: {bytes} bytes could not be allocated")]
    OutOfMemory { bytes: usize },
}

/// What to do about a model file of an unreadable version.
fn version_hint(found: u32, supported: u32) -> &'static str {
    if found > supported {
        "; it was written by a newer quercus, so load it with that version"
    } else {
        "; no quercus writes that version, so the file is damaged"
    }
}

pub type Result<T> = std::result::Result<T, CoreError>;
