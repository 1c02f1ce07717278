//! Batch prediction. The numeric-threshold tests are copied into one compact node array that
//! [`LANES`] rows walk together (their memory latencies overlap), in blocks of rows spread
//! over a thread pool. A row that meets another test (categorical, oblique) or misses the
//! tested value takes one step by the general routing (the test, surrogates, missing child)
//! and walks on; only a row that C4.5's fractions spread over several branches finishes on
//! the general walk of `predict.rs`. A row that reaches a leaf alone reads the answer that
//! walk computes for that leaf, so every result is bit-identical to the general walk's,
//! whatever the input layout, block or thread count.

use std::ops::Range;

use rayon::prelude::*;

mod flat;
mod frame;
pub(crate) mod rows;
mod text;
use flat::{descend, Flat, NAN_FOLDED, NAN_STOPS, NO_NAN};
pub use frame::{Codes, Frame, FrameColumn, Validity};
pub use rows::{Csr, Matrix, Order, PredictRows, Real};
pub use text::{Offsets, Strings, Text, TextLookup};

use crate::control::Control;
use crate::data::{CategoricalColumn, Column, Dataset, FeatureKind};
use crate::error::{CoreError, Result};
use crate::predict::Reached;
use crate::routing::{send, Values};
use crate::threads::in_pool;
use crate::tree::{NodeId, Tree};

/// Rows walked together: enough independent loads in flight to hide a cache miss.
const LANES: usize = 8;
/// Rows scanned (for infinities, and for missing values) just before they are walked, so the
/// walk reads them from cache (a frame's staged chunk of 20 columns: 12 KiB, in L1).
const CHUNK: usize = 64;
/// Rows a worker takes at a time; a call with no more rows than this stays on its thread.
const BLOCK: usize = 8192;
/// The compact layout costs a pass over the nodes, so a call uses it only with at least
/// one row per this many nodes (fewer rows take the general walk from the root).
const NODES_PER_ROW: usize = 16;

/// Batch prediction with a thread count (see [`Tree::predictor`]).
#[derive(Debug, Clone, Copy)]
pub struct Predictor<'t> {
    tree: &'t Tree,
    n_jobs: Option<usize>,
    control: Option<&'t Control>,
}

impl Tree {
    /// Prediction on `n_jobs` threads: `None` uses every core, 1 stays on the caller's
    /// thread. Results do not depend on it.
    pub fn predictor(&self, n_jobs: Option<usize>) -> Predictor<'_> {
        Predictor {
            tree: self,
            n_jobs,
            control: None,
        }
    }
}

impl<'t> Predictor<'t> {
    /// This predictor under `control`: it stops between blocks of rows once cancelled
    /// ([`CoreError::Cancelled`]), reserves its output through it, and counts rows predicted
    /// as its progress.
    pub fn controlled(self, control: &'t Control) -> Predictor<'t> {
        Predictor {
            control: Some(control),
            ..self
        }
    }

    /// See [`Tree::predict_proba`].
    pub fn proba<'a>(&self, rows: impl Into<PredictRows<'a>>) -> Result<Vec<f64>> {
        self.run(rows.into(), &Proba(self.tree))
    }

    /// See [`Tree::predict_class`].
    pub fn class<'a>(&self, rows: impl Into<PredictRows<'a>>) -> Result<Vec<u32>> {
        self.run(rows.into(), &Class(self.tree))
    }

    /// See [`Tree::predict_value`].
    pub fn value<'a>(&self, rows: impl Into<PredictRows<'a>>) -> Result<Vec<f64>> {
        self.run(rows.into(), &Value(self.tree))
    }

    /// See [`Tree::apply`].
    pub fn apply<'a>(&self, rows: impl Into<PredictRows<'a>>) -> Result<Vec<u32>> {
        self.run(rows.into(), &Leaf)
    }

    /// The leaf each row reaches alone, or [`SPREAD`] for a row that C4.5's fractions spread
    /// over several leaves (the general walk, [`Tree::reach`], finds those).
    pub(crate) fn sole_leaf<'a>(&self, rows: impl Into<PredictRows<'a>>) -> Result<Vec<u32>> {
        self.run(rows.into(), &SoleLeaf)
    }

    /// See [`Tree::decision_path`]. A row that reaches one leaf passes through that leaf's
    /// ancestors, found from the compact walk's leaf; only a row spread over several leaves
    /// is walked again, by the general routing. Blocks of rows share the thread pool.
    pub fn decision_path<'a>(
        &self,
        rows: impl Into<PredictRows<'a>>,
    ) -> Result<(Vec<u64>, Vec<u32>)> {
        let rows = rows.into();
        let leaves = self.sole_leaf(rows)?;
        let tree = self.tree;
        let kinds = tree.feature_kinds();
        let block = |(b, leaves): (usize, &[u32])| {
            with_values(rows, kinds, |values| paths(tree, values, b * BLOCK, leaves))
        };
        let parts: Vec<(Vec<u64>, Vec<u32>)> = if leaves.len() <= BLOCK || self.n_jobs == Some(1) {
            leaves.chunks(BLOCK).enumerate().map(block).collect()
        } else {
            in_pool(self.n_jobs, || {
                leaves.par_chunks(BLOCK).enumerate().map(block).collect()
            })
        };
        let mut indptr = Vec::with_capacity(leaves.len() + 1);
        indptr.push(0u64);
        let mut indices = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
        for (ends, nodes) in parts {
            let base = indices.len() as u64;
            indptr.extend(ends.iter().map(|e| base + e));
            indices.extend(nodes);
        }
        Ok((indptr, indices))
    }

    fn run<O: Output>(&self, rows: PredictRows<'_>, output: &O) -> Result<Vec<O::Item>> {
        if self.n_jobs == Some(0) {
            return Err(CoreError::InvalidParameter {
                name: "n_jobs",
                reason: "must be at least 1 (or None for every core)".into(),
            });
        }
        let kinds = self.tree.feature_kinds();
        match rows {
            PredictRows::Columns(data) => {
                let given = data.columns().iter().map(Column::kind_name);
                self.checked(&ColumnsView::new(data), given, output)
                    .ok_or_else(|| self.explain(data.validate_for_predict(kinds)))
            }
            PredictRows::F64(m) => self.matrix(m, output),
            PredictRows::F32(m) => self.matrix(m, output),
            PredictRows::Csr(m) => {
                let given = std::iter::repeat_n("numeric", m.n_features);
                self.checked(&m, given, output)
                    .ok_or_else(|| self.explain(validate_csr(kinds, &m)))
            }
            PredictRows::Frame(m) => self
                .checked(m, m.kind_names(), output)
                .ok_or_else(|| self.explain(m.validate(kinds))),
        }
    }

    /// Why the predictions are missing: the control's reason when it stopped them, else the
    /// error of rows that failed the checks, as their full validation words it.
    fn explain(&self, validated: Result<()>) -> CoreError {
        if let Some(Err(stopped)) = self.control.map(Control::check) {
            return stopped;
        }
        // Both test the same things, so the validation always fails here.
        validated.err().unwrap_or(CoreError::InvalidParameter {
            name: "rows",
            reason: "they failed a check their validation passes".into(),
        })
    }

    fn matrix<T: Real, O: Output>(&self, m: Matrix<'_, T>, output: &O) -> Result<Vec<O::Item>> {
        let kinds = self.tree.feature_kinds();
        // A coded matrix's columns are of the tree's kinds; any other's are numbers.
        let given = (0..m.n_features).map(|j| match kinds.get(j) {
            Some(FeatureKind::Categorical { .. }) if m.codes => "categorical",
            _ => "numeric",
        });
        let out = match m.order {
            Order::RowMajor => self.checked(&Dense::<T, true>::new(m, kinds), given, output),
            Order::ColumnMajor => self.checked(&Dense::<T, false>::new(m, kinds), given, output),
        };
        out.ok_or_else(|| self.explain(validate_matrix(self.tree.feature_kinds(), &m)))
    }

    /// The predictions, or `None` when the columns do not match the tree's features or hold
    /// an infinity (the caller's full validation then words the error), or the control
    /// stopped the work.
    fn checked<'k, S: Source, O: Output>(
        &self,
        src: &S,
        given: impl ExactSizeIterator<Item = &'k str>,
        output: &O,
    ) -> Option<Vec<O::Item>> {
        let kinds = self.tree.feature_kinds();
        let same = given.len() == kinds.len()
            && given
                .zip(kinds)
                .all(|(g, k)| (g == "numeric") == (*k == FeatureKind::Numeric));
        if !same {
            return None;
        }
        let width = output.width(self.tree);
        let n = src.n_rows();
        let mut out = match self.control {
            Some(c) => c.filled(n.saturating_mul(width), O::Item::default())?,
            None => vec![O::Item::default(); n * width],
        };
        if width == 0 {
            // Nothing to write (class probabilities of a regression tree): only checked.
            return src.scan(0..n, &mut []).map(|_| out);
        }
        let flat = (n >= LANES && n.saturating_mul(NODES_PER_ROW) >= self.tree.n_nodes())
            .then(|| Flat::new(self.tree, output, S::NARROW));
        let walk = Walk {
            tree: self.tree,
            flat: flat.as_ref(),
            src,
            output,
            width,
        };
        let block = |(b, dst): (usize, &mut [O::Item])| match self.control {
            Some(c) if c.stopped() => false,
            Some(c) => {
                let ok = walk.block(b * BLOCK, dst);
                c.advance((dst.len() / width) as u64);
                ok
            }
            None => walk.block(b * BLOCK, dst),
        };
        let ok = if n <= BLOCK || self.n_jobs == Some(1) {
            out.chunks_mut(BLOCK * width).enumerate().all(block)
        } else {
            in_pool(self.n_jobs, || {
                out.par_chunks_mut(BLOCK * width).enumerate().all(block)
            })
        };
        ok.then_some(out)
    }
}

/// A matrix checked as a data set of its columns would be: column by column, a kind
/// mismatch or the first infinite value.
fn validate_matrix<T: Real>(kinds: &[FeatureKind], m: &Matrix<'_, T>) -> Result<()> {
    if m.n_features != kinds.len() {
        return Err(CoreError::ShapeMismatch {
            what: "the number of columns".into(),
            expected: kinds.len(),
            got: m.n_features,
        });
    }
    for (column, kind) in kinds.iter().enumerate() {
        if let (FeatureKind::Categorical { ordered, .. }, false) = (kind, m.codes) {
            return Err(CoreError::ColumnKindMismatch {
                column,
                expected: if *ordered {
                    "ordered categorical"
                } else {
                    "categorical"
                },
                got: "numeric",
            });
        }
        if let Some(row) = m.column(column).position(|x| x.to_f64().is_infinite()) {
            return Err(CoreError::InfiniteFeature { column, row });
        }
    }
    Ok(())
}

/// A CSR matrix checked as a data set of its columns would be: a kind mismatch, or the first
/// value (in column order) that is not finite.
fn validate_csr(kinds: &[FeatureKind], m: &Csr<'_>) -> Result<()> {
    if m.n_features != kinds.len() {
        return Err(CoreError::ShapeMismatch {
            what: "the number of columns".into(),
            expected: kinds.len(),
            got: m.n_features,
        });
    }
    if let Some((column, kind)) = kinds
        .iter()
        .enumerate()
        .find(|(_, k)| **k != FeatureKind::Numeric)
    {
        return Err(CoreError::ColumnKindMismatch {
            column,
            expected: match kind {
                FeatureKind::Categorical { ordered: true, .. } => "ordered categorical",
                _ => "categorical",
            },
            got: "numeric",
        });
    }
    let first = (0..m.n_rows())
        .flat_map(|row| m.span(row).map(move |k| (row, k)))
        .filter_map(|(row, k)| {
            let x = m.values.get(k)?;
            let f = *m.indices.get(k)? as usize;
            (!x.is_finite()).then_some((f, row, x.is_nan()))
        })
        .min();
    match first {
        Some((column, row, true)) => Err(CoreError::SparseMissing { column, row }),
        Some((column, row, false)) => Err(CoreError::InfiniteFeature { column, row }),
        None => Ok(()),
    }
}

impl Values for Csr<'_> {
    #[inline]
    fn number(&self, f: usize, row: usize) -> f64 {
        if f < self.n_features && row < self.n_rows() {
            self.at(row, f)
        } else {
            f64::NAN
        }
    }

    fn code(&self, _f: usize, _row: usize) -> Option<u32> {
        None
    }
}

impl Read for Csr<'_> {
    #[inline]
    fn x(&self, row: usize, f: usize) -> f64 {
        self.at(row, f)
    }

    fn code_at(&self, _row: usize, _f: usize) -> Option<u32> {
        None
    }
}

impl Source for Csr<'_> {
    in_place!();

    fn n_rows(&self) -> usize {
        Csr::n_rows(self)
    }

    /// No value may be missing: a NaN fails the scan, as an infinity does.
    fn scan(&self, rows: Range<usize>, _gaps: &mut [bool]) -> Option<bool> {
        let span = self.span(rows.start).start..self.span(rows.end.saturating_sub(1)).end;
        (!any_special(self.values.get(span)?)).then_some(false)
    }
}

/// The compact walk's reads of a chunk of rows (the hot loop's). A row past the chunk's (a
/// short group's spare lane) may be read: any value comes back, never a panic.
trait Read {
    /// Whether the numeric values are float32, read by [`Read::x32`] and compared with
    /// float32 thresholds.
    const NARROW: bool = false;
    /// Feature `f` of `row`, where `f` is a numeric feature of the tree.
    fn x(&self, row: usize, f: usize) -> f64;
    /// [`Read::x`] as the float32 it is, where [`Read::NARROW`].
    #[inline]
    fn x32(&self, row: usize, f: usize) -> f32 {
        self.x(row, f) as f32
    }
    /// The category code of `row` in feature `f`, where `f` is a categorical feature of the
    /// tree: [`Values::code`], read without a match on the column per call where possible.
    fn code_at(&self, row: usize, f: usize) -> Option<u32>;
    /// [`Read::code_at`] with [`u32::MAX`] for a missing code (and any for a numeric
    /// feature): what a subset node reads, where a reader can do without the `Option`.
    #[inline]
    fn code_or_missing(&self, row: usize, f: usize) -> u32 {
        self.code_at(row, f).unwrap_or(u32::MAX)
    }
}

/// Prediction input as the walks read it: the general routing through [`Values`], the
/// compact walk through a chunk's [`Read`]er.
trait Source: Values + Sync {
    /// Its reader's [`Read::NARROW`], for the layout built before any reader is.
    const NARROW: bool = false;
    /// What a block keeps of a chunk's rows for its reader (nothing for input read in place).
    type Staged: Default;
    type Reader<'s>: Read
    where
        Self: 's;
    fn n_rows(&self) -> usize;
    /// `None` if a numeric value of the rows is infinite, else whether one is NaN (missing;
    /// `true` may also mean that the reader cannot tell); sets `gaps[i]` where row
    /// `rows.start + i` misses a numeric value (and leaves the other flags alone). `gaps` is
    /// empty where the walk needs no flags (no node stops a NaN). Most chunks hold neither
    /// NaN nor infinity, and their scan is one pass of vector folds.
    /// `rows` lie within `0..n_rows()` (the walk cuts them from it): see [`rows_of`].
    fn scan(&self, rows: Range<usize>, gaps: &mut [bool]) -> Option<bool>;
    /// The chunk `rows` (at most [`CHUNK`]) scanned as [`Source::scan`] does (`None`, or
    /// whether a value is NaN, and its `gaps`) with its reader, staged into `staged` where
    /// the input is not read in place (only the features `tests` flags are read): a staged
    /// column is checked as it is copied, not read twice.
    fn reader<'s>(
        &'s self,
        rows: Range<usize>,
        tests: &[bool],
        staged: &'s mut Self::Staged,
        gaps: &mut [bool],
    ) -> Option<(Self::Reader<'s>, bool)>;
}

/// [`Source`]'s staging of input read in place: none, the reader is the input.
macro_rules! in_place {
    () => {
        type Staged = ();
        type Reader<'s>
            = &'s Self
        where
            Self: 's;

        fn reader<'s>(
            &'s self,
            rows: Range<usize>,
            _: &[bool],
            _: &'s mut (),
            gaps: &mut [bool],
        ) -> Option<(&'s Self, bool)> {
            Some((self, self.scan(rows, gaps)?))
        }
    };
}
use in_place;

impl<R: Read> Read for &R {
    const NARROW: bool = R::NARROW;

    #[inline]
    fn x(&self, row: usize, f: usize) -> f64 {
        (**self).x(row, f)
    }

    #[inline]
    fn x32(&self, row: usize, f: usize) -> f32 {
        (**self).x32(row, f)
    }

    #[inline]
    fn code_at(&self, row: usize, f: usize) -> Option<u32> {
        (**self).code_at(row, f)
    }

    #[inline]
    fn code_or_missing(&self, row: usize, f: usize) -> u32 {
        (**self).code_or_missing(row, f)
    }
}

/// Whether `x` is NaN or infinite.
#[inline]
fn special<T: Real>(x: &T) -> bool {
    !x.to_f64().is_finite()
}

/// Whether some value is NaN or infinite: a fold, not `any`, so it vectorises (two vector
/// instructions per pair of values). Most chunks hold neither, and only the others are
/// looked at value by value.
fn any_special<T: Real>(values: &[T]) -> bool {
    values.iter().fold(false, |seen, x| seen | special(x))
}

/// Whether some value is infinite: a fold, as [`any_special`].
fn any_infinite<T: Real>(values: &[T]) -> bool {
    values
        .iter()
        .fold(false, |seen, x| seen | x.to_f64().is_infinite())
}

/// [`Source::scan`] of column slices (each `rows` long).
fn scan_columns<'c, T: Real>(
    columns: impl Iterator<Item = &'c [T]>,
    gaps: &mut [bool],
) -> Option<bool> {
    let mut nan = false;
    for column in columns.filter(|c| any_special(c)) {
        flag_gaps(column, gaps)?;
        nan = true;
    }
    Some(nan)
}

/// The values of `rows` in `column`. A [`Source`]'s rows lie within its columns, so this is
/// empty only for a column with no values of its own ([`ColumnsView`]'s [`indirect`] ones):
/// the one place the scans read that rule.
#[inline]
fn rows_of<'c, T>(column: &'c [T], rows: &Range<usize>) -> &'c [T] {
    column.get(rows.clone()).unwrap_or(&[])
}

/// The flags of a column slice that holds NaN or an infinity: `None` for an infinity, else
/// `gaps[i]` set where value `i` is NaN.
fn flag_gaps<T: Real>(column: &[T], gaps: &mut [bool]) -> Option<()> {
    if any_infinite(column) {
        return None;
    }
    for (gap, x) in gaps.iter_mut().zip(column) {
        *gap |= special(x);
    }
    Some(())
}

/// `f` of `rows` read as the general routing reads them.
fn with_values<R>(
    rows: PredictRows<'_>,
    kinds: &[FeatureKind],
    f: impl FnOnce(&dyn Values) -> R,
) -> R {
    match rows {
        PredictRows::Columns(data) => f(&ColumnsView::new(data)),
        PredictRows::F64(m) => with_dense(m, kinds, f),
        PredictRows::F32(m) => with_dense(m, kinds, f),
        PredictRows::Csr(m) => f(&m),
        PredictRows::Frame(m) => f(m),
    }
}

fn with_dense<T: Real, R>(
    m: Matrix<'_, T>,
    kinds: &[FeatureKind],
    f: impl FnOnce(&dyn Values) -> R,
) -> R {
    match m.order {
        Order::RowMajor => f(&Dense::<T, true>::new(m, kinds)),
        Order::ColumnMajor => f(&Dense::<T, false>::new(m, kinds)),
    }
}

/// The decision paths of the rows from `first` whose sole leaves (or [`SPREAD`]) are
/// `leaves`: each row's end in `nodes`, and the nodes, ascending within each row.
fn paths(tree: &Tree, values: &dyn Values, first: usize, leaves: &[u32]) -> (Vec<u64>, Vec<u32>) {
    let (mut ends, mut nodes) = (Vec::with_capacity(leaves.len()), Vec::new());
    let mut stack = Vec::new();
    for (i, &leaf) in leaves.iter().enumerate() {
        let start = nodes.len();
        if leaf == SPREAD {
            tree.spread_path(values, first + i, &mut stack, &mut nodes);
        } else {
            // The leaf's ancestors: the path of a row that reaches it alone.
            let mut node = Some(NodeId(leaf));
            while let Some(id) = node {
                nodes.push(id.0);
                node = tree.parent(id);
            }
        }
        if let Some(path) = nodes.get_mut(start..) {
            path.sort_unstable();
        }
        ends.push(nodes.len() as u64);
    }
    (ends, nodes)
}

/// A matrix with its order fixed at compile time, so the hot loop's index has no branch.
struct Dense<'a, T, const ROW_MAJOR: bool> {
    m: Matrix<'a, T>,
    /// Each feature's number of categories where the matrix holds codes; 0 for a numeric
    /// feature (empty when it holds none).
    categories: Vec<u32>,
}

impl<'a, T: Real, const ROW_MAJOR: bool> Dense<'a, T, ROW_MAJOR> {
    fn new(m: Matrix<'a, T>, kinds: &[FeatureKind]) -> Self {
        let categories = if m.codes {
            let count = |k: &FeatureKind| match k {
                FeatureKind::Categorical { n_categories, .. } => *n_categories,
                FeatureKind::Numeric => 0,
            };
            kinds.iter().map(count).collect()
        } else {
            Vec::new()
        };
        Dense { m, categories }
    }

    /// Feature `f` of `row`; `None` past the end (read as missing: [`Read`]).
    #[inline]
    fn value(&self, row: usize, f: usize) -> Option<T> {
        let m = &self.m;
        let i = if ROW_MAJOR {
            row * m.n_features + f
        } else {
            f * m.n_rows + row
        };
        m.values.get(i).copied()
    }

    #[inline]
    fn at(&self, row: usize, f: usize) -> f64 {
        self.value(row, f).map_or(f64::NAN, Real::to_f64)
    }
}

impl<T: Real, const ROW_MAJOR: bool> Values for Dense<'_, T, ROW_MAJOR> {
    #[inline]
    fn number(&self, f: usize, row: usize) -> f64 {
        if f < self.m.n_features
            && row < self.m.n_rows
            && self.categories.get(f).is_none_or(|&n| n == 0)
        {
            self.at(row, f)
        } else {
            f64::NAN
        }
    }

    /// A code is a whole number below the feature's number of categories; any other value
    /// (NaN among them) is missing.
    #[inline]
    fn code(&self, f: usize, row: usize) -> Option<u32> {
        let n = *self.categories.get(f).filter(|&&n| n > 0)?;
        let x = if row < self.m.n_rows {
            self.at(row, f)
        } else {
            f64::NAN
        };
        (x >= 0.0 && x < f64::from(n) && x.fract() == 0.0).then_some(x as u32)
    }
}

impl<T: Real, const ROW_MAJOR: bool> Read for Dense<'_, T, ROW_MAJOR> {
    const NARROW: bool = T::IS_F32;

    #[inline]
    fn x(&self, row: usize, f: usize) -> f64 {
        self.at(row, f)
    }

    #[inline]
    fn x32(&self, row: usize, f: usize) -> f32 {
        self.value(row, f).map_or(f32::NAN, Real::to_f32)
    }

    #[inline]
    fn code_at(&self, row: usize, f: usize) -> Option<u32> {
        self.code(f, row)
    }
}

impl<'a, T: Real, const ROW_MAJOR: bool> Source for Dense<'a, T, ROW_MAJOR> {
    const NARROW: bool = T::IS_F32;
    in_place!();

    fn n_rows(&self) -> usize {
        self.m.n_rows
    }

    fn scan(&self, rows: Range<usize>, gaps: &mut [bool]) -> Option<bool> {
        let m = &self.m;
        if ROW_MAJOR {
            let values = m
                .values
                .get(rows.start * m.n_features..rows.end * m.n_features)?;
            if !any_special(values) {
                return Some(false);
            }
            if any_infinite(values) {
                return None;
            }
            for (row, gap) in values.chunks_exact(m.n_features.max(1)).zip(gaps) {
                *gap |= any_special(row);
            }
            Some(true)
        } else {
            scan_columns(m.columns().map(|c| rows_of(c, &rows)), gaps)
        }
    }
}

/// A data set's columns with the dense numeric ones' slices at hand (no match per read).
struct ColumnsView<'a> {
    columns: &'a [Column<'a>],
    numeric: Vec<&'a [f64]>,
    categorical: Vec<Option<CategoricalColumn<'a>>>,
    /// Whether some column is [`indirect`] (read through `columns` instead).
    sparse: bool,
    n_rows: usize,
}

/// Whether [`ColumnsView`] reads a column through [`Values::number`] rather than as a float64
/// slice: a sparse column, or a float32 or strided one (a fit's training data read back).
fn indirect(column: &Column<'_>) -> bool {
    match column {
        Column::Sparse(_) => true,
        Column::Numeric(v) => v.as_f64().is_none(),
        Column::Categorical(_) => false,
    }
}

impl<'a> ColumnsView<'a> {
    fn new(data: &'a Dataset<'a>) -> Self {
        let columns = data.columns();
        let numeric = columns
            .iter()
            .map(|c| match c {
                // An [`indirect`] column has no slice: it is read through `columns`.
                Column::Numeric(v) => v.as_f64().unwrap_or(&[]),
                Column::Categorical(_) | Column::Sparse(_) => &[],
            })
            .collect();
        let categorical = columns
            .iter()
            .map(|c| match c {
                Column::Categorical(c) => Some(*c),
                Column::Numeric(_) | Column::Sparse(_) => None,
            })
            .collect();
        ColumnsView {
            columns,
            numeric,
            categorical,
            sparse: columns.iter().any(indirect),
            n_rows: data.n_rows(),
        }
    }
}

impl Values for ColumnsView<'_> {
    #[inline]
    fn number(&self, f: usize, row: usize) -> f64 {
        self.x(row, f)
    }

    #[inline]
    fn code(&self, f: usize, row: usize) -> Option<u32> {
        self.columns.code(f, row)
    }
}

impl Read for ColumnsView<'_> {
    #[inline]
    fn x(&self, row: usize, f: usize) -> f64 {
        match self.numeric.get(f).and_then(|c| c.get(row)) {
            Some(&x) => x,
            None if self.sparse => self.columns.number(f, row),
            None => f64::NAN,
        }
    }

    #[inline]
    fn code_at(&self, row: usize, f: usize) -> Option<u32> {
        self.categorical.get(f)?.as_ref()?.code(row)
    }
}

impl Source for ColumnsView<'_> {
    in_place!();

    fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// A sparse column's stored values of the rows may not be missing: a NaN there fails the
    /// scan, as an infinity does.
    fn scan(&self, rows: Range<usize>, gaps: &mut [bool]) -> Option<bool> {
        let slices = self.numeric.iter().map(|c| rows_of(c, &rows));
        let mut nan = scan_columns(slices, gaps)?;
        if !self.sparse {
            return Some(nan);
        }
        for column in self.columns {
            match column {
                Column::Sparse(c) => {
                    let from = |r: usize| c.rows.partition_point(|&x| (x as usize) < r);
                    let stored = c.values.get(from(rows.start)..from(rows.end))?;
                    if any_special(stored) {
                        return None;
                    }
                }
                Column::Numeric(v) if v.as_f64().is_none() => {
                    for (i, r) in rows.clone().enumerate() {
                        let x = v.get(r).unwrap_or(f64::NAN); // `rows` are the column's
                        if x.is_infinite() {
                            return None;
                        }
                        if x.is_nan() {
                            nan = true;
                            if let Some(gap) = gaps.get_mut(i) {
                                *gap = true;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Some(nan)
    }
}

/// What a prediction writes for each row, from the leaves it reached.
trait Output: Sync {
    type Item: Copy + Default + Send + Sync;
    /// Items per row.
    fn width(&self, tree: &Tree) -> usize;
    /// Writes the row's items; `scratch` holds `n_classes` numbers.
    fn write(&self, reached: &[Reached], dst: &mut [Self::Item], scratch: &mut [f64]);
}

struct Proba<'t>(&'t Tree);
struct Class<'t>(&'t Tree);
struct Value<'t>(&'t Tree);
struct Leaf;
struct SoleLeaf;

/// What [`Predictor::sole_leaf`] writes for a row that reached several leaves (or none).
pub(crate) const SPREAD: u32 = u32::MAX;

impl Output for Proba<'_> {
    type Item = f64;
    fn width(&self, tree: &Tree) -> usize {
        tree.n_classes()
    }
    fn write(&self, reached: &[Reached], dst: &mut [f64], _: &mut [f64]) {
        dst.fill(0.0);
        self.0.mix(reached, dst);
    }
}

impl Output for Class<'_> {
    type Item = u32;
    fn width(&self, tree: &Tree) -> usize {
        tree.n_outputs()
    }
    fn write(&self, reached: &[Reached], dst: &mut [u32], scratch: &mut [f64]) {
        self.0.classes_of(reached, scratch, dst);
    }
}

impl Output for Value<'_> {
    type Item = f64;
    fn width(&self, tree: &Tree) -> usize {
        tree.n_outputs()
    }
    fn write(&self, reached: &[Reached], dst: &mut [f64], _: &mut [f64]) {
        self.0.values_of(reached, dst);
    }
}

impl Output for Leaf {
    type Item = u32;
    fn width(&self, _: &Tree) -> usize {
        1
    }
    fn write(&self, reached: &[Reached], dst: &mut [u32], _: &mut [f64]) {
        if let Some(slot) = dst.first_mut() {
            *slot = Tree::main_leaf(reached).0;
        }
    }
}

impl Output for SoleLeaf {
    type Item = u32;
    fn width(&self, _: &Tree) -> usize {
        1
    }
    fn write(&self, reached: &[Reached], dst: &mut [u32], _: &mut [f64]) {
        if let Some(slot) = dst.first_mut() {
            *slot = match reached {
                [(leaf, share)] if *share == 1.0 => leaf.0,
                _ => SPREAD,
            };
        }
    }
}

/// One call's walk: what every block shares.
struct Walk<'w, S, O: Output> {
    tree: &'w Tree,
    flat: Option<&'w Flat<O::Item>>,
    src: &'w S,
    output: &'w O,
    width: usize,
}

/// A block's buffers: the rows of a chunk missing some value (empty unless the walk reads
/// them), and the general walk's.
struct Scratch {
    gaps: Vec<bool>,
    stack: Vec<Reached>,
    reached: Vec<Reached>,
    classes: Vec<f64>,
}

impl<S: Source, O: Output> Walk<'_, S, O> {
    /// Predicts the rows from `start` into `out` (`width` items per row) a chunk at a time:
    /// the chunk is scanned (for infinities, and for the rows missing a value) just before
    /// its rows are walked, which then read them from cache. `false` if a row holds an
    /// infinity.
    fn block(&self, start: usize, out: &mut [O::Item]) -> bool {
        let width = self.width;
        // Only a walk with nodes that stop a NaN reads which rows miss a value.
        let flags = if self.flat.is_some_and(|f| f.nan_stops) {
            CHUNK
        } else {
            0
        };
        let mut scratch = Scratch {
            gaps: vec![false; flags],
            stack: Vec::new(),
            reached: Vec::new(),
            classes: vec![0.0; self.tree.n_classes()],
        };
        let mut staged = S::Staged::default();
        for (c, chunk) in out.chunks_mut(CHUNK * width).enumerate() {
            let first = start + c * CHUNK;
            let n = chunk.len() / width;
            let Some(gaps) = scratch.gaps.get_mut(..n.min(flags)) else {
                return false;
            };
            gaps.fill(false);
            match self.flat {
                Some(flat) => {
                    let rows = first..first + n;
                    let Some((rows, nan)) = self.src.reader(rows, &flat.tests, &mut staged, gaps)
                    else {
                        return false;
                    };
                    self.lanes(flat, &rows, first, chunk, nan, &mut scratch);
                }
                None => {
                    if self.src.scan(first..first + n, gaps).is_none() {
                        return false;
                    }
                    for (i, dst) in chunk.chunks_mut(width).enumerate() {
                        self.general(first + i, NodeId::ROOT, dst, &mut scratch);
                    }
                }
            }
        }
        true
    }

    /// The general walk of `row` from `node`, written to `dst`.
    fn general(&self, row: usize, node: NodeId, dst: &mut [O::Item], scratch: &mut Scratch) {
        self.tree.reach(
            self.src,
            row,
            node,
            &mut scratch.stack,
            &mut scratch.reached,
        );
        self.output
            .write(&scratch.reached, dst, &mut scratch.classes);
    }

    /// The compact walk of a chunk's rows from `first` (read by `rows`; `nan`: some numeric
    /// value of them may be NaN) into `out`: groups of [`LANES`] rows step together until
    /// none moves; then each row that stopped short of a leaf is routed on, alone.
    fn lanes<R: Read>(
        &self,
        flat: &Flat<O::Item>,
        rows: &R,
        first: usize,
        out: &mut [O::Item],
        nan: bool,
        scratch: &mut Scratch,
    ) {
        let width = self.width;
        let n = out.len() / width;
        for base in (first..first + n).step_by(LANES) {
            let count = (first + n - base).min(LANES);
            // The flags, where the walk reads them, say which rows miss a value.
            let gaps = scratch.gaps.get(base - first..base - first + count);
            let stops = match (nan, gaps) {
                (false, _) => descend::<_, _, LANES, NO_NAN>(flat, rows, base, [0; LANES]),
                (true, Some(gaps)) if !gaps.contains(&true) => {
                    descend::<_, _, LANES, NO_NAN>(flat, rows, base, [0; LANES])
                }
                _ if flat.nan_stops => {
                    descend::<_, _, LANES, NAN_STOPS>(flat, rows, base, [0; LANES])
                }
                _ => descend::<_, _, LANES, NAN_FOLDED>(flat, rows, base, [0; LANES]),
            };
            for (l, &stop) in stops.iter().enumerate().take(count) {
                let row = base + l;
                // Most rows stop at a leaf whose answer is one item.
                if let (1, Some(answer), Some(dst)) =
                    (width, flat.leaf_answer(stop), out.get_mut(row - first))
                {
                    *dst = answer;
                    continue;
                }
                let mut at = stop;
                while let Some(child) = self.stop(flat, row, at, out, first, scratch) {
                    at = descend::<_, _, 1, NAN_STOPS>(flat, rows, row, [child])[0];
                }
            }
        }
    }

    /// A row stopped at compact node `at`: its answer is written to `out` (whose first row is
    /// `first`), or it goes on from the node returned.
    fn stop(
        &self,
        flat: &Flat<O::Item>,
        row: usize,
        at: u32,
        out: &mut [O::Item],
        first: usize,
        scratch: &mut Scratch,
    ) -> Option<u32> {
        let width = self.width;
        let i = at as usize;
        let dst = out.get_mut((row - first) * width..(row - first + 1) * width)?;
        // `at` is a compact node's position (the flat layout's links), so `leaf` has it.
        if flat.leaf.get(i).copied().unwrap_or(false) {
            match (dst, flat.answers.get(i * width..(i + 1) * width)) {
                ([one], Some([answer])) => *one = *answer,
                (dst, Some(answer)) => dst.copy_from_slice(answer),
                _ => {}
            }
            return None;
        }
        let &id = flat.ids.get(i)?;
        let rule = || self.tree.missing_rule(id);
        match send(&self.tree.kind(id), rule, self.src, row)
            .and_then(|c| self.tree.children(id).nth(c))
            .and_then(|c| flat.position.get(c.index()))
        {
            Some(&child) => Some(child),
            None => {
                self.general(row, id, dst, scratch);
                None
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::criterion::Criterion;
    use crate::data::{CategoricalColumn, Target};
    use crate::params::{CategoricalSplit, MissingStrategy, TreeParams};
    use crate::tree::{NodeKind, Side, SplitTag, Summary, SurrogateSet, TreeMeta, Writer};

    /// SplitMix64: reproducible data with no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Owned columns: numeric ones (NaN is missing), then categorical ones.
    struct Table {
        numeric: Vec<Vec<f64>>,
        codes: Vec<Vec<u32>>,
        missing_masks: Vec<Vec<bool>>,
    }

    const CATEGORIES: u32 = 5;

    impl Table {
        /// Test rows (`unseen`) also hold a category the training rows lack.
        fn random(
            rng: &mut Rng,
            rows: usize,
            numeric: usize,
            categorical: usize,
            unseen: bool,
        ) -> Table {
            let codes = u64::from(CATEGORIES) + u64::from(unseen);
            let maybe = |x: f64, rng: &mut Rng| if rng.below(10) == 0 { f64::NAN } else { x };
            Table {
                numeric: (0..numeric)
                    .map(|j| {
                        (0..rows)
                            .map(|_| {
                                // Few distinct values, so test values equal thresholds' neighbours.
                                let x = (rng.below(40) as f64 - 20.0) * 0.25 + j as f64;
                                maybe(x, rng)
                            })
                            .collect()
                    })
                    .collect(),
                codes: (0..categorical)
                    .map(|_| (0..rows).map(|_| rng.below(codes) as u32).collect())
                    .collect(),
                missing_masks: (0..categorical)
                    .map(|_| (0..rows).map(|_| rng.below(12) == 0).collect())
                    .collect(),
            }
        }

        fn rows(&self) -> usize {
            self.numeric[0].len()
        }

        fn dataset(&self) -> Dataset<'_> {
            self.ordered(false)
        }

        /// The columns, categorical ones first or last.
        fn ordered(&self, categorical_first: bool) -> Dataset<'_> {
            let numeric = self.numeric.iter().map(|c| Column::numeric(c));
            let categorical = self
                .codes
                .iter()
                .zip(&self.missing_masks)
                .map(|(codes, missing)| {
                    Column::Categorical(CategoricalColumn {
                        codes,
                        missing_mask: Some(missing),
                        n_categories: CATEGORIES,
                        ordered: false,
                    })
                });
            let columns = if categorical_first {
                categorical.chain(numeric).collect()
            } else {
                numeric.chain(categorical).collect()
            };
            Dataset::new(columns).expect("valid data")
        }

        /// The numeric columns row after row.
        fn row_major(&self) -> Vec<f64> {
            (0..self.rows())
                .flat_map(|i| self.numeric.iter().map(move |c| c[i]))
                .collect()
        }

        fn classes(&self) -> Vec<u32> {
            (0..self.rows())
                .map(|i| {
                    let x = self.numeric[0][i].max(-1.0) + self.numeric[1][i].min(2.0);
                    let c = self.codes.first().map_or(0, |c| c[i] % 2);
                    u32::from(x > 1.0) + c
                })
                .collect()
        }

        fn values(&self) -> Vec<f64> {
            self.classes()
                .iter()
                .enumerate()
                .map(|(i, &c)| f64::from(c) * 1.5 + (i % 7) as f64 * 0.1)
                .collect()
        }
    }

    /// The general walk of every row from the root.
    fn general<O: Output, V: Values + ?Sized>(
        tree: &Tree,
        values: &V,
        rows: usize,
        output: &O,
    ) -> Vec<O::Item> {
        let width = output.width(tree);
        let mut out = vec![O::Item::default(); rows * width];
        let (mut stack, mut reached) = (Vec::new(), Vec::new());
        let mut scratch = vec![0.0; tree.n_classes()];
        for (row, dst) in out.chunks_mut(width).enumerate() {
            tree.reach(values, row, NodeId::ROOT, &mut stack, &mut reached);
            output.write(&reached, dst, &mut scratch);
        }
        out
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    const JOBS: [Option<usize>; 3] = [None, Some(1), Some(3)];

    /// Every prediction of `rows` equals the general walk's, bit for bit, at any thread count.
    fn agrees<'a, V: Values + ?Sized>(
        tree: &Tree,
        rows: impl Fn() -> PredictRows<'a>,
        values: &V,
        n: usize,
    ) {
        let leaf = general(tree, values, n, &Leaf);
        for jobs in JOBS {
            let p = tree.predictor(jobs);
            if tree.is_regression() {
                let value = general(tree, values, n, &Value(tree));
                assert_eq!(bits(&p.value(rows()).expect("values")), bits(&value));
                assert!(p.proba(rows()).expect("no classes").is_empty());
            } else {
                let proba = general(tree, values, n, &Proba(tree));
                assert_eq!(bits(&p.proba(rows()).expect("proba")), bits(&proba));
                let class = general(tree, values, n, &Class(tree));
                assert_eq!(p.class(rows()).expect("classes"), class);
            }
            assert_eq!(p.apply(rows()).expect("leaves"), leaf);
            assert_eq!(
                p.decision_path(rows()).expect("paths"),
                paths(tree, values, n)
            );
        }
    }

    /// The general routing's decision paths of every row, each sorted.
    fn paths<V: Values + ?Sized>(tree: &Tree, values: &V, rows: usize) -> (Vec<u64>, Vec<u32>) {
        let (mut indptr, mut indices, mut stack) = (vec![0], Vec::new(), Vec::new());
        for row in 0..rows {
            let start = indices.len();
            tree.spread_path(values, row, &mut stack, &mut indices);
            indices[start..].sort_unstable();
            indptr.push(indices.len() as u64);
        }
        (indptr, indices)
    }

    fn grow(table: &Table, regression: bool, params: &TreeParams) -> Tree {
        grow_on(&table.dataset(), table, regression, params)
    }

    fn grow_on(data: &Dataset<'_>, table: &Table, regression: bool, params: &TreeParams) -> Tree {
        let (classes, values) = (table.classes(), table.values());
        let target = if regression {
            Target::Values(&values)
        } else {
            Target::Classes {
                codes: &classes,
                n_classes: 3,
            }
        };
        let weights = vec![1.0; table.rows()];
        crate::grow(data, &target, &weights, params).expect("a tree")
    }

    const STRATEGIES: [MissingStrategy; 6] = [
        MissingStrategy::Fractional,
        MissingStrategy::MajorityBranch,
        MissingStrategy::ClassMajority,
        MissingStrategy::Separate,
        MissingStrategy::Learned,
        MissingStrategy::Surrogate,
    ];

    /// Trees with every node kind and missing-value rule, predicted on more rows than a
    /// block (so in parallel, with a short last block and group).
    #[test]
    fn compact_walk_matches_the_general_walk_on_random_trees() {
        let mut rng = Rng(7);
        let train = Table::random(&mut rng, 600, 4, 2, false);
        let test = Table::random(&mut rng, 2 * BLOCK + 37, 4, 2, true);
        for (k, &missing) in STRATEGIES.iter().enumerate() {
            // Column 0 categorical too: the compact nodes of other kinds read it (as NaN).
            let first = k % 3 == 0;
            let data = test.ordered(first);
            for regression in [false, true] {
                let params = TreeParams {
                    criterion: if regression {
                        Criterion::SquaredError
                    } else {
                        Criterion::Gini
                    },
                    categorical_split: if k % 2 == 0 {
                        CategoricalSplit::Multiway
                    } else {
                        CategoricalSplit::Binary
                    },
                    oblique: k == 1 && !regression,
                    missing,
                    ..TreeParams::default()
                };
                let tree = grow_on(&train.ordered(first), &train, regression, &params);
                let tags = &tree.arena().tag;
                assert!(tags.contains(&SplitTag::Numeric), "{missing:?}");
                assert!(tags
                    .iter()
                    .any(|t| !matches!(t, SplitTag::Numeric | SplitTag::Leaf)));
                agrees(
                    &tree,
                    || PredictRows::Columns(&data),
                    data.columns(),
                    test.rows(),
                );
            }
        }
    }

    /// A numeric tree reads a matrix in either order, or as `f32`, as it reads the columns.
    #[test]
    fn matrices_predict_as_their_columns() {
        let mut rng = Rng(11);
        let train = Table::random(&mut rng, 800, 5, 0, false);
        let mut test = Table::random(&mut rng, BLOCK + 300, 5, 0, true);
        // Values an f32 holds exactly, so the f32 matrix is the same data.
        for c in &mut test.numeric {
            c.iter_mut().for_each(|x| *x = f64::from(*x as f32));
        }
        let n = test.rows();
        let data = test.dataset();
        let by_rows = test.row_major();
        let by_columns: Vec<f64> = test.numeric.concat();
        let narrow: Vec<f32> = by_rows.iter().map(|&x| x as f32).collect();
        for missing in STRATEGIES {
            let params = TreeParams {
                missing,
                ..TreeParams::default()
            };
            let tree = grow(&train, false, &params);
            let rows = Matrix::new(&by_rows, n, 5, Order::RowMajor).expect("a matrix");
            let columns = Matrix::new(&by_columns, n, 5, Order::ColumnMajor).expect("a matrix");
            let small = Matrix::new(&narrow, n, 5, Order::RowMajor).expect("a matrix");
            agrees(&tree, || PredictRows::F64(rows), data.columns(), n);
            agrees(&tree, || PredictRows::F64(columns), data.columns(), n);
            agrees(&tree, || PredictRows::F32(small), data.columns(), n);
        }
    }

    /// Float32 rows are compared with float32 thresholds: a fully grown tree cuts between
    /// adjacent float32s of every magnitude (each threshold a float64 midpoint no float32
    /// holds), and rows of exactly those values, and NaN, predict from a float32 matrix as
    /// their float64 column does, with every missing-value rule.
    #[test]
    fn float32_rows_meet_thresholds_between_adjacent_float32s() {
        let bases = [
            -3.0e38f32,
            -2.5,
            -1e-30,
            0.0,
            1e-38,
            0.1,
            1.0,
            3.7,
            16_777_216.0,
            1e5,
            3.0e38,
        ];
        let mut values: Vec<f64> = bases
            .iter()
            .flat_map(|&b| [b.next_down(), b, b.next_up()])
            .map(f64::from)
            .collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let classes: Vec<u32> = (0..values.len() as u32).map(|i| i % 2).collect();
        let target = Target::Classes {
            codes: &classes,
            n_classes: 2,
        };
        let weights = vec![1.0; values.len()];
        let mut rows = values.clone();
        rows.extend([f64::NAN, 0.0, -0.0]);
        let narrow: Vec<f32> = rows.iter().map(|&x| x as f32).collect();
        let n = rows.len();
        // Enough rows for the compact walk (one per sixteen nodes at the least).
        let rows: Vec<f64> = rows.repeat(8);
        let narrow: Vec<f32> = narrow.repeat(8);
        let test = Dataset::new(vec![Column::numeric(&rows)]).expect("a column");
        for missing in STRATEGIES {
            let params = TreeParams {
                missing,
                ..TreeParams::default()
            };
            let train = Dataset::new(vec![Column::numeric(&values)]).expect("a column");
            let tree = crate::grow(&train, &target, &weights, &params).expect("a tree");
            assert_eq!(tree.n_leaves(), values.len());
            let small = Matrix::new(&narrow, 8 * n, 1, Order::RowMajor).expect("a matrix");
            agrees(&tree, || PredictRows::F32(small), test.columns(), 8 * n);
        }
    }

    /// Numeric and categorical columns in one matrix, the categories as their codes (NaN
    /// for missing, unseen codes as they are), in either order, predict as the columns do,
    /// with every split kind and missing-value rule.
    #[test]
    fn coded_matrices_predict_as_their_columns() {
        let mut rng = Rng(13);
        let train = Table::random(&mut rng, 700, 3, 3, false);
        let test = Table::random(&mut rng, BLOCK + 211, 3, 3, true);
        let n = test.rows();
        let data = test.dataset();
        let cell = |i: usize, j: usize| match test.numeric.get(j) {
            Some(column) => column[i],
            None => {
                let k = j - test.numeric.len();
                if test.missing_masks[k][i] {
                    f64::NAN
                } else {
                    f64::from(test.codes[k][i])
                }
            }
        };
        let width = 6;
        let by_rows: Vec<f64> = (0..n * width).map(|k| cell(k / width, k % width)).collect();
        let by_columns: Vec<f64> = (0..n * width).map(|k| cell(k % n, k / n)).collect();
        for (k, &missing) in STRATEGIES.iter().enumerate() {
            for split in [CategoricalSplit::Multiway, CategoricalSplit::Binary] {
                let regression = k % 2 == 1;
                let params = TreeParams {
                    criterion: if regression {
                        Criterion::SquaredError
                    } else {
                        Criterion::Gini
                    },
                    categorical_split: split,
                    missing,
                    ..TreeParams::default()
                };
                let tree = grow(&train, regression, &params);
                let rows = Matrix::new(&by_rows, n, width, Order::RowMajor).expect("a matrix");
                let columns =
                    Matrix::new(&by_columns, n, width, Order::ColumnMajor).expect("a matrix");
                agrees(&tree, || PredictRows::F64(rows.coded()), data.columns(), n);
                agrees(
                    &tree,
                    || PredictRows::F64(columns.coded()),
                    data.columns(),
                    n,
                );
                // Uncoded, the categorical columns are refused by kind.
                assert!(matches!(
                    tree.predict_class(rows),
                    Err(CoreError::ColumnKindMismatch { column: 3, .. })
                ));
            }
        }
    }

    /// A frame's columns read in place (numbers as `f64` or `f32`, categories as codes of
    /// every width, through a map or as they are, with nulls, unseen categories and codes past
    /// the map) predict as the data set's columns do, with every split kind and missing-value
    /// rule; and fail the checks as the data set does.
    #[test]
    fn frames_predict_as_their_columns() {
        let mut rng = Rng(19);
        let train = Table::random(&mut rng, 700, 3, 2, false);
        let mut test = Table::random(&mut rng, BLOCK + 203, 3, 2, true);
        for c in &mut test.numeric {
            c.iter_mut().for_each(|x| *x = f64::from(*x as f32));
        }
        let n = test.rows();
        let data = test.dataset();
        let narrow: Vec<f32> = test.numeric[1].iter().map(|&x| x as f32).collect();
        // Frame code k + 2 stands for tree code k (unseen, 5, maps past the categories),
        // 9 for a null; frame codes 0 and 1 are categories the tree never saw, and 10 is
        // past the map.
        let mut map = vec![u32::MAX; 10];
        for k in 0..=CATEGORIES {
            map[k as usize + 2] = k;
        }
        map[1] = CATEGORIES + 7;
        let frame_code = |j: usize, i: usize| -> u32 {
            match (test.missing_masks[j][i], i % 17) {
                (true, 0) => 10,
                (true, 1) => 0,
                (true, _) => 9,
                (false, _) => test.codes[j][i] + 2,
            }
        };
        let wide: Vec<u32> = (0..n).map(|i| frame_code(0, i)).collect();
        let small: Vec<u8> = wide.iter().map(|&c| c as u8).collect();
        let medium: Vec<u16> = (0..n).map(|i| frame_code(1, i) as u16).collect();
        // Without a map: the tree's codes, a missing value as a code past the categories.
        let own: Vec<u32> = (0..n)
            .map(|i| {
                if test.missing_masks[1][i] {
                    CATEGORIES + 1
                } else {
                    test.codes[1][i]
                }
            })
            .collect();
        // The second categorical column as text: labels short and long (code 5's one the
        // tree never saw), a missing value as a null (its view left as a seen label's) or as
        // an unseen label.
        let labels: Vec<String> = (0..=CATEGORIES)
            .map(|k| match k % 2 {
                0 => format!("cat {k}"),
                _ => format!("a label longer than a view, {k}"),
            })
            .collect();
        let lookup = TextLookup::new(&labels[..CATEGORIES as usize]);
        let row_labels: Vec<&str> = (0..n)
            .map(|i| match (test.missing_masks[1][i], i % 3) {
                (true, 0) => "a label the tree never saw",
                (true, _) => "cat 3",
                (false, _) => &labels[test.codes[1][i] as usize],
            })
            .collect();
        let (views, bytes, starts) = text::views(&row_labels);
        // Arrow's validity bitmap from bit `first` on: clear for a null.
        let bitmap = |first: usize, null: &dyn Fn(usize) -> bool| {
            let mut bits = vec![0u8; (n + first).div_ceil(8)];
            for i in (0..n).filter(|&i| !null(i)) {
                bits[(first + i) / 8] |= 1 << ((first + i) % 8);
            }
            bits
        };
        let text_nulls = bitmap(3, &|i| test.missing_masks[1][i] && i % 3 == 1);
        let text = Text {
            views: &views,
            data: &bytes,
            starts: &starts,
            lookup: &lookup,
        };
        // The same labels as Arrow strings by offsets (from the third byte of the data on).
        let mut string_data = b"ab".to_vec();
        let mut offsets = vec![2i32];
        for label in &row_labels {
            string_data.extend_from_slice(label.as_bytes());
            offsets.push(string_data.len() as i32);
        }
        let strings = Strings {
            offsets: Offsets::I32(&offsets),
            data: &string_data,
            lookup: &lookup,
        };
        // The same columns with their nulls in bitmaps, their slots holding what a frame may
        // leave there (an infinity, a number, a seen category's code).
        let numeric_nulls = bitmap(5, &|i| test.numeric[0][i].is_nan());
        let slots: Vec<f64> = test.numeric[0]
            .iter()
            .enumerate()
            .map(|(i, &x)| match (x.is_nan(), i % 2) {
                (true, 0) => f64::INFINITY,
                (true, _) => 3.0,
                (false, _) => x,
            })
            .collect();
        let code_nulls = bitmap(0, &|i| medium[i] == 9);
        let code_slots: Vec<u16> = medium.iter().map(|&c| if c == 9 { 2 } else { c }).collect();
        let categorical = |codes, map| FrameColumn::Categorical {
            codes,
            map,
            n_categories: CATEGORIES,
        };
        // The second categorical column through the map, or as the tree's own codes.
        let frames = [
            (Codes::U8(&small), Codes::U16(&medium), Some(map.as_slice())),
            (Codes::U32(&wide), Codes::U32(&own), None),
        ];
        for (k, &missing) in STRATEGIES.iter().enumerate() {
            let regression = k % 2 == 1;
            let params = TreeParams {
                criterion: if regression {
                    Criterion::SquaredError
                } else {
                    Criterion::Gini
                },
                categorical_split: if k % 3 == 0 {
                    CategoricalSplit::Multiway
                } else {
                    CategoricalSplit::Binary
                },
                missing,
                ..TreeParams::default()
            };
            let tree = grow(&train, regression, &params);
            for (first, second, second_map) in frames {
                let frame = Frame::new(vec![
                    FrameColumn::F64(&test.numeric[0]),
                    FrameColumn::F32(&narrow),
                    FrameColumn::F64(&test.numeric[2]),
                    categorical(first, Some(&map)),
                    categorical(second, second_map),
                ])
                .expect("a frame");
                assert_eq!(frame.n_rows(), n);
                agrees(&tree, || PredictRows::Frame(&frame), data.columns(), n);
            }
            // The second categorical column as text, by views and by offsets.
            for labels in [FrameColumn::Text(text), FrameColumn::Strings(strings)] {
                let frame = Frame::with_nulls(
                    vec![
                        FrameColumn::F64(&test.numeric[0]),
                        FrameColumn::F32(&narrow),
                        FrameColumn::F64(&test.numeric[2]),
                        categorical(Codes::U32(&wide), Some(&map)),
                        labels,
                    ],
                    vec![
                        None,
                        None,
                        None,
                        None,
                        Some(Validity {
                            bits: &text_nulls,
                            first: 3,
                        }),
                    ],
                )
                .expect("a frame");
                agrees(&tree, || PredictRows::Frame(&frame), data.columns(), n);
            }
            let frame = Frame::with_nulls(
                vec![
                    FrameColumn::F64(&slots),
                    FrameColumn::F32(&narrow),
                    FrameColumn::F64(&test.numeric[2]),
                    categorical(Codes::U32(&wide), Some(&map)),
                    categorical(Codes::U16(&code_slots), Some(&map)),
                ],
                vec![
                    Some(Validity {
                        bits: &numeric_nulls,
                        first: 5,
                    }),
                    None,
                    None,
                    None,
                    Some(Validity {
                        bits: &code_nulls,
                        first: 0,
                    }),
                ],
            )
            .expect("a frame");
            agrees(&tree, || PredictRows::Frame(&frame), data.columns(), n);
        }
        let tree = grow(&train, false, &TreeParams::default());
        let mut infinite = test.numeric[2].clone();
        infinite[77] = f64::NEG_INFINITY;
        let columns = |third| {
            vec![
                FrameColumn::F64(&test.numeric[0]),
                FrameColumn::F32(&narrow),
                third,
                categorical(Codes::U32(&wide), Some(&map)),
                categorical(Codes::U16(&medium), Some(&map)),
            ]
        };
        let frame = Frame::new(columns(FrameColumn::F64(&infinite))).expect("a frame");
        assert_eq!(
            tree.predict_class(&frame).expect_err("infinite"),
            CoreError::InfiniteFeature { column: 2, row: 77 }
        );
        let frame = Frame::new(columns(categorical(Codes::U8(&small), None))).expect("a frame");
        assert!(matches!(
            tree.predict_class(&frame),
            Err(CoreError::ColumnKindMismatch { column: 2, .. })
        ));
        let short = FrameColumn::F64(&infinite[..5]);
        assert!(Frame::new(columns(short)).is_err());
        // A bitmap short of its rows, or one per column missing, is refused.
        let nulls = |bits| vec![None, None, Some(Validity { bits, first: 0 }), None, None];
        let third = || FrameColumn::F64(&test.numeric[2]);
        assert!(Frame::with_nulls(columns(third()), nulls(&numeric_nulls[..1])).is_err());
        assert!(Frame::with_nulls(columns(third()), vec![None]).is_err());
        // An infinity under a null is no error; one in a row that holds a value is.
        let infinite_null = bitmap(0, &|i| i == 77);
        let frame = Frame::with_nulls(columns(FrameColumn::F64(&infinite)), nulls(&infinite_null))
            .expect("a frame");
        assert!(tree.predict_class(&frame).is_ok());
        let other_null = bitmap(0, &|i| i == 78);
        let frame = Frame::with_nulls(columns(FrameColumn::F64(&infinite)), nulls(&other_null))
            .expect("a frame");
        assert_eq!(
            tree.predict_class(&frame).expect_err("infinite"),
            CoreError::InfiniteFeature { column: 2, row: 77 }
        );
    }

    /// A random tree grown straight into the arena, deep and lopsided (each split is
    /// likelier on a recent leaf), with random fractions: the compact walk, its hand-over to
    /// the fractional walk and its leaf answers agree with the general walk.
    #[test]
    fn deep_random_trees_agree() {
        let mut rng = Rng(3);
        for features in [1usize, 3] {
            let mut tree = Writer::new(TreeMeta::new(
                Criterion::Gini,
                vec![FeatureKind::Numeric; features],
                vec![3],
            ));
            let mut leaves = vec![tree.root(1.0)];
            while tree.n_nodes() < 20_001 {
                let pick = leaves.len() - 1 - (rng.below(4) as usize).min(leaves.len() - 1);
                let node = leaves.swap_remove(pick);
                let test = NodeKind::Numeric {
                    feature: rng.below(features as u64) as usize,
                    threshold: (rng.below(64) as f64 - 32.0) * 0.5,
                };
                let share = rng.unit();
                for child in tree.split(node, &test, &[share, 1.0 - share]) {
                    random_leaf(&mut tree, child, &mut rng);
                    leaves.push(child);
                }
            }
            let tree = tree.finish().expect("a valid tree");
            assert!(tree.max_depth() > 100, "depth {}", tree.max_depth());
            let n = 3000;
            let values: Vec<f64> = (0..n * features)
                .map(|_| match rng.below(20) {
                    0 => f64::NAN,
                    // Exactly a threshold: `x <= t` must hold.
                    1 => (rng.below(64) as f64 - 32.0) * 0.5,
                    _ => rng.unit() * 40.0 - 20.0,
                })
                .collect();
            let m = Matrix::new(&values, n, features, Order::RowMajor).expect("a matrix");
            agrees(
                &tree,
                || PredictRows::F64(m),
                &Dense::<f64, true>::new(m, tree.feature_kinds()),
                n,
            );
        }
    }

    /// Which nodes [`random_tree`] grows.
    #[derive(Clone, Copy, PartialEq)]
    enum Nodes {
        /// Every kind, with random missing children.
        Every,
        /// Numeric and subset nodes, each with a missing child: the layout whose subset
        /// nodes route every code by one bitset ([`flat::TWO_WAY`]).
        TwoWay,
        /// Numeric and subset nodes with random missing children: subsets that stop a row
        /// beside numeric nodes, and no node that needs the kind branch of a mixed layout.
        NumericAndSubsets,
        /// Numeric, ordered and multiway nodes: no subsets ([`flat::NO_SUBSETS`]).
        NumericAndTables,
        /// Numeric nodes only ([`flat::NUMERIC_ONLY`]).
        Numeric,
    }

    /// A random tree grown straight into the arena, of the `nodes` it is asked for: subsets
    /// of 150 categories (bitsets of several words) with unseen ones, ordered and multiway
    /// splits.
    fn random_tree(rng: &mut Rng, nodes: Nodes) -> Tree {
        let kinds = vec![
            FeatureKind::Numeric,
            FeatureKind::Categorical {
                n_categories: 150,
                ordered: false,
            },
            FeatureKind::Categorical {
                n_categories: 3,
                ordered: true,
            },
        ];
        let mut tree = Writer::new(TreeMeta::new(Criterion::Gini, kinds, vec![3]));
        let mut leaves = vec![tree.root(1.0)];
        while tree.n_nodes() < 3001 {
            let pick = leaves.len() - 1 - (rng.below(6) as usize).min(leaves.len() - 1);
            let node = leaves.swap_remove(pick);
            let kind = match nodes {
                Nodes::Every => rng.below(4),
                Nodes::TwoWay | Nodes::NumericAndSubsets => rng.below(2),
                Nodes::NumericAndTables => [0, 2, 3][rng.below(3) as usize],
                Nodes::Numeric => 0,
            };
            let (tag, count) = match kind {
                0 => (SplitTag::Numeric, 2),
                1 => (SplitTag::Subset, 2),
                2 => (SplitTag::Ordered, 2),
                _ => (SplitTag::Multiway, 3),
            };
            let mut sides = Vec::new();
            let test = match tag {
                SplitTag::Numeric => NodeKind::Numeric {
                    feature: 0,
                    threshold: (rng.below(16) as f64 - 8.0) * 0.5,
                },
                SplitTag::Ordered => NodeKind::Ordered {
                    feature: 2,
                    threshold: rng.below(3) as u32,
                },
                SplitTag::Subset => {
                    sides.extend((0..150).map(|_| match rng.below(5) {
                        0 => Side::Unseen,
                        1 | 2 => Side::Left,
                        _ => Side::Right,
                    }));
                    NodeKind::Subset {
                        feature: 1,
                        sides: &sides,
                    }
                }
                _ => NodeKind::Multiway { feature: 2 },
            };
            let missing_child =
                (nodes == Nodes::TwoWay || rng.below(2) == 0).then(|| rng.below(count) as usize);
            let shares: Vec<f64> = (0..count).map(|_| rng.unit() + 0.01).collect();
            let total: f64 = shares.iter().sum();
            let fractions: Vec<f64> = shares.iter().map(|s| s / total).collect();
            for child in tree.split(node, &test, &fractions) {
                random_leaf(&mut tree, child, rng);
                leaves.push(child);
            }
            tree.set_missing_rule(node, missing_child, &SurrogateSet::default(), 0.0);
        }
        tree.finish().expect("a valid tree")
    }

    /// Gives a new leaf of a random three-class tree random class weights and label.
    fn random_leaf(tree: &mut Writer, leaf: NodeId, rng: &mut Rng) {
        let value: Vec<f64> = (0..3).map(|_| rng.below(4) as f64).collect();
        let summary = Summary {
            weight: 0.0,
            n_rows: 0.0,
            n_samples: 0,
            impurity: 0.0,
            value: &value,
            labels: &[rng.below(3) as u32],
        };
        tree.set_summary(leaf, &summary);
    }

    /// Random trees of every node kind ([`random_tree`]), and rows with missing values (or,
    /// for each layout, none: the walk that does not look for NaN), unseen codes and codes
    /// past the categories: the compact walk agrees with the general walk, read from
    /// columns, from a coded matrix or from a frame (codes through a map or as they are, a
    /// missing one past them).
    #[test]
    fn random_trees_of_every_kind_agree() {
        let mut rng = Rng(17);
        let layouts = [
            (Nodes::Every, flat::MIXED),
            (Nodes::TwoWay, flat::TWO_WAY),
            (Nodes::NumericAndSubsets, flat::THREE_WAY),
            (Nodes::NumericAndTables, flat::NO_SUBSETS),
            (Nodes::Numeric, flat::NUMERIC_ONLY),
        ];
        for (nodes, layout) in layouts {
            let tree = random_tree(&mut rng, nodes);
            assert_eq!(Flat::new(&tree, &Leaf, false).subsets(), layout);
            for nan in [true, false] {
                every_reader_agrees(&tree, &mut rng, nan);
            }
        }
    }

    /// The rows of [`random_trees_of_every_kind_agree`] for `tree`; with `nan`, some values
    /// are missing.
    fn every_reader_agrees(tree: &Tree, rng: &mut Rng, nan: bool) {
        let n = 4000;
        let cell = |rng: &mut Rng, j: usize| match (rng.below(12), j) {
            (0, _) if nan => f64::NAN,
            (_, 0) => rng.unit() * 10.0 - 5.0,
            // Codes past the 150 categories read as missing too.
            (_, 1) => rng.below(160) as f64,
            _ => rng.below(3) as f64,
        };
        let values: Vec<f64> = (0..n * 3).map(|k| cell(rng, k % 3)).collect();
        let m = Matrix::new(&values, n, 3, Order::RowMajor)
            .expect("a matrix")
            .coded();
        let coded = Dense::<f64, true>::new(m, tree.feature_kinds());
        agrees(tree, || PredictRows::F64(m), &coded, n);
        let numbers: Vec<f64> = values.iter().step_by(3).copied().collect();
        let codes = |j: usize| -> Vec<u32> {
            values
                .iter()
                .skip(j)
                .step_by(3)
                .map(|&x| if x.is_nan() { 0 } else { x as u32 })
                .collect()
        };
        let missing = |j: usize| -> Vec<bool> {
            values
                .iter()
                .skip(j)
                .step_by(3)
                .map(|x| x.is_nan())
                .collect()
        };
        let (codes1, codes2, missing1, missing2) = (codes(1), codes(2), missing(1), missing(2));
        let data = Dataset::new(vec![
            Column::numeric(&numbers),
            Column::Categorical(CategoricalColumn {
                codes: &codes1,
                missing_mask: Some(&missing1),
                n_categories: 150,
                ordered: false,
            }),
            Column::Categorical(CategoricalColumn {
                codes: &codes2,
                missing_mask: Some(&missing2),
                n_categories: 3,
                ordered: true,
            }),
        ])
        .expect("valid data");
        agrees(tree, || PredictRows::Columns(&data), data.columns(), n);
        // Frame codes: column 1's as they are (255: missing), column 2's through a map that
        // swaps codes 0 and 2 (3: missing, past the map).
        let small: Vec<u8> = (0..n)
            .map(|i| if missing1[i] { 255 } else { codes1[i] as u8 })
            .collect();
        let swapped: Vec<u16> = (0..n)
            .map(|i| if missing2[i] { 3 } else { 2 - codes2[i] as u16 })
            .collect();
        let map = [2, 1, 0];
        let frame = Frame::new(vec![
            FrameColumn::F64(&numbers),
            FrameColumn::Categorical {
                codes: Codes::U8(&small),
                map: None,
                n_categories: 150,
            },
            FrameColumn::Categorical {
                codes: Codes::U16(&swapped),
                map: Some(&map),
                n_categories: 3,
            },
        ])
        .expect("a frame");
        agrees(tree, || PredictRows::Frame(&frame), data.columns(), n);
    }

    /// A 100,000-deep chain in the compact layout: built and walked without recursion.
    #[test]
    fn deep_chain_in_the_compact_layout() {
        let depth = 100_000u32;
        let tree = Tree::chain(depth);
        // Enough rows for the compact layout; most stop at once.
        let n = tree.n_nodes() / NODES_PER_ROW + 1;
        let mut x = vec![-1.0; n];
        x[1] = f64::from(depth) + 1.0;
        x[2] = 77_777.0;
        x[3] = f64::NAN;
        let m = Matrix::new(&x, n, 1, Order::ColumnMajor).expect("a matrix");
        agrees(
            &tree,
            || PredictRows::F64(m),
            &Dense::<f64, false>::new(m, tree.feature_kinds()),
            n,
        );
        assert_eq!(tree.apply(m).expect("leaves")[1], tree.n_nodes() as u32 - 1);
    }

    /// A matrix fails the checks as its columns would, in the same order.
    #[test]
    fn matrix_errors_match_the_data_set_errors() {
        let mut rng = Rng(5);
        let train = Table::random(&mut rng, 300, 3, 0, false);
        let tree = grow(&train, false, &TreeParams::default());
        let mut test = Table::random(&mut rng, 40, 3, 0, true);
        test.numeric[2][4] = f64::INFINITY;
        test.numeric[1][30] = f64::NEG_INFINITY;
        let by_rows = test.row_major();
        let m = Matrix::new(&by_rows, 40, 3, Order::RowMajor).expect("a matrix");
        let expected = tree.predict_class(&test.dataset()).expect_err("infinite");
        assert_eq!(expected, CoreError::InfiniteFeature { column: 1, row: 30 });
        assert_eq!(tree.predict_class(m).expect_err("infinite"), expected);
        assert_eq!(tree.predict_proba(m).expect_err("infinite"), expected);
        let narrow = Matrix::new(&by_rows[..80], 40, 2, Order::RowMajor).expect("a matrix");
        assert!(matches!(
            tree.apply(narrow),
            Err(CoreError::ShapeMismatch {
                expected: 3,
                got: 2,
                ..
            })
        ));
        assert!(Matrix::new(&by_rows, 41, 3, Order::RowMajor).is_err());
        assert!(matches!(
            tree.predictor(Some(0)).class(m),
            Err(CoreError::InvalidParameter { name: "n_jobs", .. })
        ));
        let mixed = Table::random(&mut rng, 300, 2, 1, false);
        let categorical = grow(&mixed, false, &TreeParams::default());
        // The kind of column 2 is wrong, but column 1's infinity comes first.
        let three = Matrix::new(&by_rows, 40, 3, Order::RowMajor).expect("a matrix");
        assert_eq!(
            categorical.predict_class(three).expect_err("infinite"),
            expected
        );
        let finite: Vec<f64> = by_rows.iter().map(|x| x.clamp(-9.0, 9.0)).collect();
        let three = Matrix::new(&finite, 40, 3, Order::RowMajor).expect("a matrix");
        assert!(matches!(
            categorical.predict_class(three),
            Err(CoreError::ColumnKindMismatch { column: 2, .. })
        ));
    }
}
