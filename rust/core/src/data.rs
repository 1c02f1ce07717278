//! Borrowed views of the training or prediction data: columns, targets and weights.
//!
//! Nothing here owns data: the bindings hand in slices of NumPy buffers, so a fit never copies
//! the feature matrix.

use crate::blocks;
use crate::control::Control;
use crate::error::{CoreError, Result};

/// A categorical column: one code per row plus an optional missing mask.
///
/// Missing is a state of its own (the mask), never a reserved code.
#[derive(Debug, Clone, Copy)]
pub struct CategoricalColumn<'a> {
    pub codes: &'a [u32],
    /// `true` where the value is missing; the code there is ignored.
    pub missing_mask: Option<&'a [bool]>,
    pub n_categories: u32,
    /// Ordered categories (a Polars `Enum`) may split by threshold on their codes.
    pub ordered: bool,
}

impl CategoricalColumn<'_> {
    /// The row's code, or `None` when missing or outside the known categories (a category
    /// unseen at fit time is routed like a missing value).
    #[inline]
    pub fn code(&self, row: usize) -> Option<u32> {
        if self
            .missing_mask
            .and_then(|m| m.get(row))
            .copied()
            .unwrap_or(false)
        {
            return None;
        }
        self.codes
            .get(row)
            .copied()
            .filter(|&c| c < self.n_categories)
    }
}

/// A numeric column stored sparsely, as one column of a CSC matrix (SciPy's layout, read in
/// place): the rows that hold a stored value, strictly ascending, and those values; every
/// other row holds 0.0. A stored value may itself be zero (an explicit zero); a stored −0.0
/// reads as +0.0, as SciPy's `toarray()` makes it, so that the column equals its dense
/// copy to the bit. A sparse column
/// holds no missing value: scikit-learn refuses NaN in sparse input, and so does quercus
/// ([`Dataset::validate_for_fit`]), so the searches never look for one.
#[derive(Debug, Clone, Copy)]
pub struct SparseColumn<'a> {
    pub rows: &'a [u32],
    pub values: &'a [f64],
    pub n_rows: usize,
}

impl SparseColumn<'_> {
    /// The value of `row`: its stored value, else 0.0 (a binary search of the stored rows).
    #[inline]
    pub fn value(&self, row: usize) -> f64 {
        let Ok(row) = u32::try_from(row) else {
            return f64::NAN;
        };
        match self.rows.binary_search(&row) {
            // + 0.0: a stored −0.0 is +0.0 (the rest unchanged). Rows and values are of
            // equal number (`check`), so the 0.0 is never read.
            Ok(at) => self.values.get(at).map_or(0.0, |x| x + 0.0),
            Err(_) if (row as usize) < self.n_rows => 0.0,
            Err(_) => f64::NAN,
        }
    }

    /// Stored values and rows of equal number, rows strictly ascending and below `n_rows`.
    fn check(&self, column: usize) -> Result<()> {
        let invalid = |reason: String| {
            Err(CoreError::InvalidSparse {
                reason: format!("column {column}: {reason}"),
            })
        };
        if self.rows.len() != self.values.len() {
            return invalid(format!(
                "{} row indices but {} values",
                self.rows.len(),
                self.values.len()
            ));
        }
        if let Some(k) = self.rows.windows(2).position(|w| w.first() >= w.last()) {
            return invalid(format!(
                "its row indices are not strictly ascending at stored value {}",
                k + 1
            ));
        }
        if let Some(&row) = self.rows.last().filter(|&&r| r as usize >= self.n_rows) {
            return invalid(format!(
                "row index {row} is out of range for {} rows",
                self.n_rows
            ));
        }
        Ok(())
    }

    /// The first stored value that is not finite: an infinity, or a NaN (sparse columns
    /// cannot mark missing values).
    fn first_non_finite(&self, column: usize) -> Result<()> {
        let first = self
            .rows
            .iter()
            .zip(self.values.iter())
            .find(|(_, x)| !x.is_finite());
        let Some((&row, x)) = first else {
            return Ok(());
        };
        let row = row as usize;
        if x.is_nan() {
            Err(CoreError::SparseMissing { column, row })
        } else {
            Err(CoreError::InfiniteFeature { column, row })
        }
    }
}

/// A number type a dense column may hold, read in place: float32 and float64 (a float32
/// converts to float64 exactly, so a fit reads the float64 its caller would have cast to, and
/// grows the same tree without the cast's copy).
pub trait Float: Copy + Into<f64> + Send + Sync + std::fmt::Debug + 'static {}
impl Float for f64 {}
impl Float for f32 {}

/// `len` values of type `T`, every `stride`-th of `values` from its first: a contiguous
/// column (stride 1), or a column of a row-major matrix read where it lies (stride = the
/// matrix's width), so a C-ordered NumPy X needs no column-major copy.
#[derive(Debug, Clone, Copy)]
pub struct Strided<'a, T> {
    values: &'a [T],
    stride: usize,
    len: usize,
}

impl<'a, T: Float> Strided<'a, T> {
    /// Every `stride`-th of `values` from the first, `len` of them; `None` when `values`
    /// holds fewer or `stride` is 0.
    pub fn new(values: &'a [T], stride: usize, len: usize) -> Option<Self> {
        let last = len
            .checked_sub(1)
            .map_or(Some(0), |l| l.checked_mul(stride))?;
        (stride > 0 && (len == 0 || last < values.len())).then_some(Strided {
            values,
            stride,
            len,
        })
    }

    /// A contiguous column.
    pub fn contiguous(values: &'a [T]) -> Self {
        Strided {
            values,
            stride: 1,
            len: values.len(),
        }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `row`'s value as a float64; `None` past the end.
    #[inline(always)]
    pub fn get(&self, row: usize) -> Option<f64> {
        self.value(row).map(Into::into)
    }

    /// Row `row`'s value as stored; `None` past the end.
    #[inline(always)]
    pub fn value(&self, row: usize) -> Option<T> {
        if row < self.len {
            self.values.get(row * self.stride).copied()
        } else {
            None
        }
    }

    /// Row `row`'s value, NaN (missing) past the end.
    #[inline(always)]
    pub fn at(&self, row: usize) -> f64 {
        self.get(row).unwrap_or(f64::NAN)
    }

    /// The values in row order, as float64.
    pub fn iter(&self) -> impl Iterator<Item = f64> + 'a {
        self.values
            .iter()
            .step_by(self.stride)
            .take(self.len)
            .map(|&x| x.into())
    }

    /// The values of the rows in `rows` as one slice, when the column is contiguous.
    #[inline]
    pub fn slice(&self, rows: std::ops::Range<usize>) -> Option<&'a [T]> {
        if self.stride == 1 && rows.end <= self.len {
            self.values.get(rows)
        } else {
            None
        }
    }

    /// Runs `f` on the values of the rows in `rows` (those within the column), in row order,
    /// as stored: the loop compiled apart for a contiguous column, which it can vectorise.
    #[inline(always)]
    pub fn for_rows(&self, rows: std::ops::Range<usize>, mut f: impl FnMut(T)) {
        match self.slice(rows.clone()) {
            Some(values) => values.iter().for_each(|&x| f(x)),
            None => self.rows(rows).for_each(f),
        }
    }

    /// The values of the rows in `rows` (those within the column), in row order, as
    /// float64.
    #[inline]
    pub fn numbers(&self, rows: std::ops::Range<usize>) -> impl Iterator<Item = f64> + 'a {
        self.rows(rows).map(Into::into)
    }

    /// The values of the rows in `rows` (those within the column), in row order, as stored.
    #[inline]
    pub fn rows(&self, rows: std::ops::Range<usize>) -> impl Iterator<Item = T> + 'a {
        let end = rows.end.min(self.len);
        let start = rows.start.min(end);
        let from = self.values.get(start * self.stride..).unwrap_or_default();
        from.iter().step_by(self.stride).take(end - start).copied()
    }
}

/// A dense numeric column as its caller stores it; NaN is missing. Hot loops dispatch once
/// per column ([`with_numbers!`]) and run monomorphic on a [`Strided`]; [`Numbers::get`]
/// (one match per value) serves the paths that read a few rows.
#[derive(Debug, Clone, Copy)]
pub enum Numbers<'a> {
    F64(Strided<'a, f64>),
    F32(Strided<'a, f32>),
}

/// Runs `$body` with `$v` bound to the column's [`Strided`] view of its own number type: the
/// body is compiled once per type, so its loops read values without a per-value dispatch.
macro_rules! with_numbers {
    ($numbers:expr, |$v:ident| $body:expr) => {
        match $numbers {
            $crate::data::Numbers::F64($v) => $body,
            $crate::data::Numbers::F32($v) => $body,
        }
    };
}
pub(crate) use with_numbers;

impl<'a> Numbers<'a> {
    pub fn len(&self) -> usize {
        with_numbers!(self, |v| v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `row`'s value as a float64; `None` past the end.
    #[inline]
    pub fn get(&self, row: usize) -> Option<f64> {
        with_numbers!(self, |v| v.get(row))
    }

    /// The first row whose value satisfies `test`.
    pub fn position(&self, test: impl Fn(f64) -> bool) -> Option<usize> {
        with_numbers!(self, |v| v.iter().position(&test))
    }

    /// The values as one contiguous float64 slice, when they are stored so.
    pub fn as_f64(&self) -> Option<&'a [f64]> {
        match self {
            Numbers::F64(v) if v.stride == 1 => v.values.get(..v.len),
            _ => None,
        }
    }

    /// Whether some value is NaN (missing).
    pub fn has_nan(&self) -> bool {
        self.position(f64::is_nan).is_some()
    }
}

impl<'a> From<&'a [f64]> for Numbers<'a> {
    fn from(values: &'a [f64]) -> Self {
        Numbers::F64(Strided::contiguous(values))
    }
}

impl<'a> From<&'a [f32]> for Numbers<'a> {
    fn from(values: &'a [f32]) -> Self {
        Numbers::F32(Strided::contiguous(values))
    }
}

/// One feature column.
#[derive(Debug, Clone, Copy)]
pub enum Column<'a> {
    /// Real values; NaN is missing.
    Numeric(Numbers<'a>),
    Categorical(CategoricalColumn<'a>),
    /// Real values stored sparsely (no missing value); a numeric feature like `Numeric`.
    Sparse(SparseColumn<'a>),
}

impl<'a> Column<'a> {
    /// A contiguous float64 column.
    pub fn numeric(values: &'a [f64]) -> Self {
        Column::Numeric(Numbers::from(values))
    }

    pub fn len(&self) -> usize {
        match self {
            Column::Numeric(v) => v.len(),
            Column::Categorical(c) => c.codes.len(),
            Column::Sparse(c) => c.n_rows,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the column holds numbers (dense or sparse).
    pub fn is_numeric(&self) -> bool {
        !matches!(self, Column::Categorical(_))
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            Column::Numeric(_) | Column::Sparse(_) => "numeric",
            Column::Categorical(c) if c.ordered => "ordered categorical",
            Column::Categorical(_) => "categorical",
        }
    }
}

/// The kind of a feature as the tree remembers it, to check prediction data against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureKind {
    Numeric,
    Categorical { n_categories: u32, ordered: bool },
}

impl FeatureKind {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            FeatureKind::Numeric => "numeric",
            FeatureKind::Categorical { ordered: true, .. } => "ordered categorical",
            FeatureKind::Categorical { .. } => "categorical",
        }
    }
}

/// A set of feature columns of equal length.
#[derive(Debug, Clone)]
pub struct Dataset<'a> {
    columns: Vec<Column<'a>>,
    n_rows: usize,
}

impl<'a> Dataset<'a> {
    /// Checks that every column has the same length and that categorical codes are sane.
    pub fn new(columns: Vec<Column<'a>>) -> Result<Self> {
        let n_rows = columns.first().map_or(0, Column::len);
        for (j, col) in columns.iter().enumerate() {
            if col.len() != n_rows {
                return Err(CoreError::ShapeMismatch {
                    what: format!("column {j}"),
                    expected: n_rows,
                    got: col.len(),
                });
            }
            if let Column::Sparse(c) = col {
                c.check(j)?;
            }
            if let Column::Categorical(c) = col {
                if let Some(m) = c.missing_mask {
                    if m.len() != n_rows {
                        return Err(CoreError::ShapeMismatch {
                            what: format!("missing mask of column {j}"),
                            expected: n_rows,
                            got: m.len(),
                        });
                    }
                }
            }
        }
        if n_rows > u32::MAX as usize {
            return Err(CoreError::TooManyRows {
                rows: n_rows,
                limit: u32::MAX as usize,
            });
        }
        Ok(Dataset { columns, n_rows })
    }

    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    pub fn n_features(&self) -> usize {
        self.columns.len()
    }

    pub fn columns(&self) -> &[Column<'a>] {
        &self.columns
    }

    pub fn kinds(&self) -> Vec<FeatureKind> {
        self.columns
            .iter()
            .map(|c| match c {
                Column::Numeric(_) | Column::Sparse(_) => FeatureKind::Numeric,
                Column::Categorical(c) => FeatureKind::Categorical {
                    n_categories: c.n_categories,
                    ordered: c.ordered,
                },
            })
            .collect()
    }

    /// Whether some numeric column holds an infinity: the columns are scanned together, a
    /// block of rows at a time on the thread pool (a row-major matrix is read once, and a
    /// contiguous column's loop vectorises), so that only a column holding one need be
    /// searched for its first.
    fn any_infinite(&self) -> bool {
        let numbers: Vec<Numbers<'_>> = self
            .columns
            .iter()
            .filter_map(|c| match c {
                Column::Numeric(v) => Some(*v),
                _ => None,
            })
            .collect();
        blocks::each_part(blocks::parts(self.n_rows), |part| {
            blocks::blocks(part).any(|block| {
                numbers.iter().any(|v| {
                    with_numbers!(v, |v| {
                        let mut any = false;
                        v.for_rows(block.clone(), |x| any |= Into::<f64>::into(x).is_infinite());
                        any
                    })
                })
            })
        })
        .contains(&true)
    }

    /// Training data must be non-empty, finite where present, and use known category codes.
    pub(crate) fn validate_for_fit(&self) -> Result<()> {
        if self.n_rows == 0 || self.columns.is_empty() {
            return Err(CoreError::EmptyData {
                rows: self.n_rows,
                columns: self.columns.len(),
            });
        }
        let infinite = self.any_infinite();
        for (j, col) in self.columns.iter().enumerate() {
            match col {
                Column::Numeric(v) if infinite => {
                    if let Some(row) = v.position(f64::is_infinite) {
                        return Err(CoreError::InfiniteFeature { column: j, row });
                    }
                }
                Column::Numeric(_) => {}
                Column::Sparse(c) => c.first_non_finite(j)?,
                Column::Categorical(c) => {
                    for (row, &code) in c.codes.iter().enumerate() {
                        let missing = c
                            .missing_mask
                            .and_then(|m| m.get(row))
                            .copied()
                            .unwrap_or(false);
                        if !missing && code >= c.n_categories {
                            return Err(CoreError::CategoryOutOfRange {
                                column: j,
                                row,
                                code,
                                n_categories: c.n_categories,
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Prediction data must have the fitted features, of the fitted kinds. Infinite values
    /// are rejected; unknown category codes are routed like missing values.
    pub(crate) fn validate_for_predict(&self, kinds: &[FeatureKind]) -> Result<()> {
        if self.columns.len() != kinds.len() {
            return Err(CoreError::ShapeMismatch {
                what: "the number of columns".into(),
                expected: kinds.len(),
                got: self.columns.len(),
            });
        }
        let infinite = self.any_infinite();
        for (j, (col, kind)) in self.columns.iter().zip(kinds).enumerate() {
            let same = matches!(
                (col, kind),
                (Column::Numeric(_) | Column::Sparse(_), FeatureKind::Numeric)
                    | (Column::Categorical(_), FeatureKind::Categorical { .. })
            );
            if !same {
                return Err(CoreError::ColumnKindMismatch {
                    column: j,
                    expected: kind.name(),
                    got: col.kind_name(),
                });
            }
            match col {
                Column::Numeric(v) if infinite => {
                    if let Some(row) = v.position(f64::is_infinite) {
                        return Err(CoreError::InfiniteFeature { column: j, row });
                    }
                }
                Column::Numeric(_) | Column::Categorical(_) => {}
                Column::Sparse(c) => c.first_non_finite(j)?,
            }
        }
        Ok(())
    }
}

/// What the tree learns to predict.
///
/// One output (a 1-D target) or several (scikit-learn's multi-output trees: one tree, one
/// test per node, a prediction per output at each leaf). Several outputs are all classes or
/// all real values, stored row-major: output `k` of row `r` at `r * n_outputs + k`, so a
/// row's targets are read together.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// Class codes `0..n_classes`.
    Classes { codes: &'a [u32], n_classes: usize },
    /// Real-valued responses.
    Values(&'a [f64]),
    /// Class codes of several outputs (at least two), output `k` coded `0..n_classes[k]`.
    MultiClasses {
        codes: &'a [u32],
        n_classes: &'a [usize],
    },
    /// Real values of several outputs (at least two).
    MultiValues { values: &'a [f64], n_outputs: usize },
}

impl<'a> Target<'a> {
    pub fn len(&self) -> usize {
        match self {
            Target::Classes { codes, .. } => codes.len(),
            Target::Values(v) => v.len(),
            Target::MultiClasses { codes, n_classes } => codes.len() / n_classes.len().max(1),
            Target::MultiValues { values, n_outputs } => values.len() / (*n_outputs).max(1),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Targets predicted at once: 1, or the outputs of a multi-output target.
    pub fn n_outputs(&self) -> usize {
        match self {
            Target::Classes { .. } | Target::Values(_) => 1,
            Target::MultiClasses { n_classes, .. } => n_classes.len(),
            Target::MultiValues { n_outputs, .. } => *n_outputs,
        }
    }

    /// The classes of each output, 0 for a real-valued one (what a tree records).
    pub(crate) fn output_classes(&self) -> Vec<usize> {
        match self {
            Target::Classes { n_classes, .. } => vec![*n_classes],
            Target::Values(_) => vec![0],
            Target::MultiClasses { n_classes, .. } => n_classes.to_vec(),
            Target::MultiValues { n_outputs, .. } => vec![0; *n_outputs],
        }
    }

    /// How this target's statistics vectors are laid out (see [`Self::accumulate`]).
    pub(crate) fn layout(&self) -> Layout<'a> {
        match *self {
            Target::Classes { .. } | Target::Values(_) => Layout::One,
            Target::MultiClasses { n_classes, .. } => Layout::Classes(n_classes),
            Target::MultiValues { n_outputs, .. } => Layout::Values(n_outputs),
        }
    }

    /// Width of a node's statistics vector: class weights, or (weight, Σwy, Σwy²); with
    /// several outputs, see [`Layout`].
    pub(crate) fn stats_width(&self) -> usize {
        match self {
            Target::Classes { n_classes, .. } => *n_classes,
            Target::Values(_) => 3,
            Target::MultiClasses { n_classes, .. } => n_classes.iter().sum(),
            Target::MultiValues { n_outputs, .. } => 1 + 2 * n_outputs,
        }
    }

    /// Adds row `row` with weight `w` to a statistics vector of width [`Self::stats_width`].
    #[inline]
    pub(crate) fn accumulate(&self, stats: &mut [f64], row: usize, w: f64) {
        self.accumulate_around(stats, row, w, 0.0);
    }

    /// Row `row`'s target as one word: its class code, y's bits, or with several outputs
    /// the row itself, whose targets [`Self::accumulate_label`] then looks up. With it a
    /// search copies targets next to the values it scans; a word, not an f64, so that a
    /// class code needs no float-to-index conversion per row.
    #[inline]
    pub(crate) fn label(&self, row: usize) -> u64 {
        match self {
            // Rows are the target's: the defaults are never read.
            Target::Classes { codes, .. } => codes.get(row).map_or(u64::MAX, |&c| u64::from(c)),
            Target::Values(v) => v.get(row).copied().unwrap_or(f64::NAN).to_bits(),
            Target::MultiClasses { .. } | Target::MultiValues { .. } => row as u64,
        }
    }

    /// [`Self::accumulate_around`] for a row given by its [`Self::label`].
    #[inline]
    pub(crate) fn accumulate_label(&self, stats: &mut [f64], label: u64, w: f64, shift: f64) {
        match self {
            Target::Classes { .. } => add_class(stats, label, w),
            Target::Values(_) => add_value(stats, label, w, shift),
            Target::MultiClasses { .. } | Target::MultiValues { .. } => {
                self.accumulate_outputs(stats, label as usize, w);
            }
        }
    }

    /// As [`Self::accumulate`], with regression targets taken as `y − shift`. Split search
    /// centres a node's targets on their mean: Σw(y−c)²/Σw − (Σw(y−c)/Σw)² then keeps its
    /// digits however large ȳ is compared with the spread (variance is shift-invariant).
    /// Several outputs have several means, so they are not centred (`shift` is ignored), as
    /// scikit-learn does not centre any.
    #[inline]
    pub(crate) fn accumulate_around(&self, stats: &mut [f64], row: usize, w: f64, shift: f64) {
        match self {
            Target::Classes { codes, .. } => {
                if let Some(s) = codes.get(row).and_then(|&c| stats.get_mut(c as usize)) {
                    *s += w;
                }
            }
            Target::Values(v) => {
                if let (Some(&y), [sw, swy, swy2]) = (v.get(row), stats) {
                    let y = y - shift;
                    *sw += w;
                    *swy += w * y;
                    *swy2 += w * y * y;
                }
            }
            Target::MultiClasses { .. } | Target::MultiValues { .. } => {
                self.accumulate_outputs(stats, row, w);
            }
        }
    }

    /// [`Self::accumulate`] for several outputs: kept out of line, so that the single-output
    /// arms above stay small enough to inline into the searches' inner loops.
    #[inline(never)]
    fn accumulate_outputs(&self, stats: &mut [f64], row: usize, w: f64) {
        match self {
            Target::MultiClasses { codes, n_classes } => {
                let k = n_classes.len();
                let Some(row_codes) = codes.get(row * k..(row + 1) * k) else {
                    return;
                };
                let mut offset = 0;
                for (&c, &n) in row_codes.iter().zip(*n_classes) {
                    if let Some(s) = stats.get_mut(offset + c as usize) {
                        *s += w;
                    }
                    offset += n;
                }
            }
            Target::MultiValues { values, n_outputs } => {
                let k = *n_outputs;
                let (Some(ys), Some((sw, sums))) =
                    (values.get(row * k..(row + 1) * k), stats.split_first_mut())
                else {
                    return;
                };
                *sw += w;
                for (&y, pair) in ys.iter().zip(sums.chunks_exact_mut(2)) {
                    if let [swy, swy2] = pair {
                        *swy += w * y;
                        *swy2 += w * y * y;
                    }
                }
            }
            Target::Classes { .. } | Target::Values(_) => {}
        }
    }

    pub(crate) fn validate(&self, n_rows: usize) -> Result<()> {
        let outputs = self.n_outputs();
        let several = matches!(
            self,
            Target::MultiClasses { .. } | Target::MultiValues { .. }
        );
        if several && outputs < 2 {
            return Err(CoreError::InvalidParameter {
                name: "y",
                reason: format!(
                    "a multi-output target needs at least two outputs, got {outputs}; a single \
                     output is a 1-D target"
                ),
            });
        }
        let cells = match self {
            Target::MultiClasses { codes, .. } => codes.len(),
            Target::MultiValues { values, .. } => values.len(),
            _ => self.len(),
        };
        if self.len() != n_rows || cells != n_rows.saturating_mul(outputs) {
            return Err(CoreError::ShapeMismatch {
                what: "the target".into(),
                expected: n_rows.saturating_mul(outputs),
                got: cells,
            });
        }
        match self {
            Target::Classes { codes, n_classes } => {
                check_classes(codes, std::slice::from_ref(n_classes))?
            }
            Target::MultiClasses { codes, n_classes } => check_classes(codes, n_classes)?,
            Target::Values(v) | Target::MultiValues { values: v, .. } => {
                if let Some((i, &value)) = v.iter().enumerate().find(|(_, y)| !y.is_finite()) {
                    return Err(CoreError::NonFiniteTarget {
                        row: i / outputs,
                        value,
                    });
                }
            }
        }
        Ok(())
    }
}

/// Class codes row-major, one column per entry of `n_classes`: every output has a class, and
/// every code names one of its output's.
fn check_classes(codes: &[u32], n_classes: &[usize]) -> Result<()> {
    if n_classes.contains(&0) {
        return Err(CoreError::InvalidParameter {
            name: "n_classes",
            reason: "a classifier needs at least one class".into(),
        });
    }
    let k = n_classes.len().max(1);
    for (i, &code) in codes.iter().enumerate() {
        let n = n_classes.get(i % k).copied().unwrap_or(0); // no outputs: no code fits
        if code as usize >= n {
            return Err(CoreError::ClassOutOfRange {
                row: i / k,
                code,
                n_classes: n,
            });
        }
    }
    Ok(())
}

/// [`Target::accumulate_label`] for one class variable: the class's weight grows by `w`
/// (a threshold scan calls it directly, its target known once per scan).
#[inline(always)]
pub(crate) fn add_class(stats: &mut [f64], label: u64, w: f64) {
    if let Some(s) = stats.get_mut(label as usize) {
        *s += w;
    }
}

/// [`Target::accumulate_label`] for one real-valued output: (Σw, Σw(y − shift),
/// Σw(y − shift)²) grow by the row of weight `w` whose y's bits are `label`.
#[inline(always)]
pub(crate) fn add_value(stats: &mut [f64], label: u64, w: f64, shift: f64) {
    if let [sw, swy, swy2] = stats {
        let y = f64::from_bits(label) - shift;
        *sw += w;
        *swy += w * y;
        *swy2 += w * y * y;
    }
}

/// How a node's statistics vector is laid out. One output: the criterion's own vector (class
/// weights, or `(w, Σwy, Σwy²)`). Several class outputs: each output's class weights back to
/// back (`classes[k]` numbers for output k). Several real outputs: `(w, Σwy₁, Σwy₁², …,
/// Σwy_K, Σwy_K²)`, the weight once, so one output's triple reads as a single output's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout<'a> {
    One,
    Classes(&'a [usize]),
    Values(usize),
}

impl Layout<'_> {
    /// Applies `f` to each output's statistics as a single output's vector and returns the
    /// mean: a multi-output node's impurity is the mean of its outputs' (scikit-learn's).
    #[inline]
    pub(crate) fn mean_over_outputs(&self, stats: &[f64], f: impl Fn(&[f64]) -> f64) -> f64 {
        match *self {
            Layout::One => f(stats),
            Layout::Classes(classes) => {
                let total = blocks(stats, classes.iter().copied()).fold(0.0, |t, b| t + f(b));
                total / classes.len().max(1) as f64
            }
            Layout::Values(k) => {
                // The weight, then each output's Σwy and Σwy².
                let Some((&w, sums)) = stats.split_first() else {
                    return 0.0;
                };
                let (sums, _) = sums.as_chunks::<2>();
                let total: f64 = sums.iter().map(|&[s, ss]| f(&[w, s, ss])).sum();
                total / k.max(1) as f64
            }
        }
    }

    /// The statistics of the first output as a single output's vector (the categorical
    /// heuristic orders categories by it). `stats` has the layout's width, so the empty
    /// defaults are never read.
    pub(crate) fn first_output<'s>(&self, stats: &'s [f64]) -> &'s [f64] {
        match *self {
            Layout::One => stats,
            Layout::Classes(classes) => {
                let n = classes.first().copied().unwrap_or(0);
                stats.get(..n).unwrap_or(&[])
            }
            Layout::Values(_) => stats.get(..3).unwrap_or(&[]),
        }
    }
}

/// A labelled data set: features, target and per-row weights (training or validation data).
#[derive(Debug, Clone, Copy)]
pub struct Sample<'a, 'd> {
    pub data: &'a Dataset<'d>,
    pub target: &'a Target<'d>,
    pub weights: &'a [f64],
}

/// Checks per-row weights: one per row, finite and not negative. A weight of 0 means the row
/// is absent (scikit-learn's meaning: bootstrap counts, held-out folds).
pub(crate) fn validate_weights(weights: &[f64], n_rows: usize) -> Result<()> {
    if weights.len() != n_rows {
        return Err(CoreError::ShapeMismatch {
            what: "sample_weight".into(),
            expected: n_rows,
            got: weights.len(),
        });
    }
    match weights
        .iter()
        .enumerate()
        .find(|(_, w)| !(w.is_finite() && **w >= 0.0))
    {
        Some((row, &value)) => Err(CoreError::InvalidWeight { row, value }),
        None => Ok(()),
    }
}

/// Checks the weights of a sample to learn from: valid, and not all zero.
pub(crate) fn validate_training_weights(weights: &[f64], n_rows: usize) -> Result<()> {
    validate_weights(weights, n_rows)?;
    if weights.iter().all(|&w| w == 0.0) {
        return Err(CoreError::InvalidParameter {
            name: "sample_weight",
            reason: "every weight is zero, so there is no row to learn from".into(),
        });
    }
    Ok(())
}

/// The rows of a training sample whose weight is positive, copied out: a learner that drops
/// the rows of weight 0 before anything else grows, byte for byte, the tree it grows without
/// them (bins, sorted lists and row masses never see them). The copy costs the kept rows'
/// size once per fit, and only when some weight is 0.
pub(crate) struct KeptRows {
    columns: Vec<KeptColumn>,
    target: KeptTarget,
    weights: Vec<f64>,
}

enum KeptColumn {
    Numeric(Vec<f64>),
    Numeric32(Vec<f32>),
    Sparse {
        rows: Vec<u32>,
        values: Vec<f64>,
        n_rows: usize,
    },
    Categorical {
        codes: Vec<u32>,
        missing_mask: Option<Vec<bool>>,
        n_categories: u32,
        ordered: bool,
    },
}

enum KeptTarget {
    Classes {
        codes: Vec<u32>,
        n_classes: usize,
    },
    Values(Vec<f64>),
    MultiClasses {
        codes: Vec<u32>,
        n_classes: Vec<usize>,
    },
    MultiValues {
        values: Vec<f64>,
        n_outputs: usize,
    },
}

/// `values` at the rows `keep` lists; `None` when the memory cannot be had.
fn pick<T: Copy>(values: &[T], keep: &[usize], control: &Control) -> Option<Vec<T>> {
    pick_rows(values, 1, keep, control)
}

/// The `width` consecutive `values` of each row `keep` lists (row-major rows).
fn pick_rows<T: Copy>(
    values: &[T],
    width: usize,
    keep: &[usize],
    control: &Control,
) -> Option<Vec<T>> {
    let mut out = control.vec(keep.len().saturating_mul(width))?;
    for &r in keep {
        // `keep` holds rows of `values`: never the empty default.
        out.extend_from_slice(values.get(r * width..(r + 1) * width).unwrap_or(&[]));
    }
    Some(out)
}

/// The values of `column` at the rows `keep` lists, in its own number type.
fn pick_strided<T: Float>(
    column: &Strided<'_, T>,
    keep: &[usize],
    control: &Control,
) -> Option<Vec<T>> {
    let mut out = control.vec(keep.len())?;
    for &r in keep {
        out.extend(column.values.get(r * column.stride).copied());
    }
    Some(out)
}

impl KeptRows {
    /// The sample without its rows of weight 0; `None` when it has none, `Some(Err)` when the
    /// copy's memory cannot be had.
    pub(crate) fn of(sample: &Sample<'_, '_>, control: &Control) -> Option<Result<KeptRows>> {
        if sample.weights.iter().all(|&w| w > 0.0) {
            return None;
        }
        Some(KeptRows::copy(sample, control).ok_or_else(|| control.stop_reason()))
    }

    fn copy(sample: &Sample<'_, '_>, control: &Control) -> Option<KeptRows> {
        let positive = |r: &usize| sample.weights.get(*r).is_some_and(|&w| w > 0.0);
        let mut keep = control.vec((0..sample.weights.len()).filter(positive).count())?;
        keep.extend((0..sample.weights.len()).filter(positive));
        // A sparse column keeps its stored values of kept rows, renumbered: each row's new
        // index, or `u32::MAX` for a dropped row (made only when some column is sparse).
        let renumbered = if sample
            .data
            .columns()
            .iter()
            .any(|c| matches!(c, Column::Sparse(_)))
        {
            let mut new = control.filled(sample.weights.len(), u32::MAX)?;
            for (k, &r) in keep.iter().enumerate() {
                if let Some(slot) = new.get_mut(r) {
                    *slot = k as u32;
                }
            }
            new
        } else {
            Vec::new()
        };
        let mut columns = Vec::new();
        for c in sample.data.columns() {
            columns.push(match c {
                Column::Numeric(Numbers::F64(v)) => {
                    KeptColumn::Numeric(pick_strided(v, &keep, control)?)
                }
                Column::Numeric(Numbers::F32(v)) => {
                    KeptColumn::Numeric32(pick_strided(v, &keep, control)?)
                }
                Column::Sparse(c) => {
                    let kept = |(&r, &x): (&u32, &f64)| {
                        let new = renumbered.get(r as usize).copied()?;
                        (new != u32::MAX).then_some((new, x))
                    };
                    let n = c.rows.iter().zip(c.values).filter_map(kept).count();
                    let (mut rows, mut values) = (control.vec(n)?, control.vec(n)?);
                    for (r, x) in c.rows.iter().zip(c.values).filter_map(kept) {
                        rows.push(r);
                        values.push(x);
                    }
                    KeptColumn::Sparse {
                        rows,
                        values,
                        n_rows: keep.len(),
                    }
                }
                Column::Categorical(c) => KeptColumn::Categorical {
                    codes: pick(c.codes, &keep, control)?,
                    missing_mask: match c.missing_mask {
                        Some(m) => Some(pick(m, &keep, control)?),
                        None => None,
                    },
                    n_categories: c.n_categories,
                    ordered: c.ordered,
                },
            });
        }
        let target = match sample.target {
            Target::Classes { codes, n_classes } => KeptTarget::Classes {
                codes: pick(codes, &keep, control)?,
                n_classes: *n_classes,
            },
            Target::Values(y) => KeptTarget::Values(pick(y, &keep, control)?),
            Target::MultiClasses { codes, n_classes } => KeptTarget::MultiClasses {
                codes: pick_rows(codes, n_classes.len(), &keep, control)?,
                n_classes: n_classes.to_vec(),
            },
            Target::MultiValues { values, n_outputs } => KeptTarget::MultiValues {
                values: pick_rows(values, *n_outputs, &keep, control)?,
                n_outputs: *n_outputs,
            },
        };
        Some(KeptRows {
            columns,
            target,
            weights: pick(sample.weights, &keep, control)?,
        })
    }

    /// Runs `f` on the kept rows as a [`Sample`].
    pub(crate) fn with<R>(&self, f: impl FnOnce(&Sample<'_, '_>) -> Result<R>) -> Result<R> {
        let columns = self
            .columns
            .iter()
            .map(|c| match c {
                KeptColumn::Numeric(v) => Column::numeric(v),
                KeptColumn::Numeric32(v) => Column::Numeric(Numbers::from(v.as_slice())),
                KeptColumn::Sparse {
                    rows,
                    values,
                    n_rows,
                } => Column::Sparse(SparseColumn {
                    rows,
                    values,
                    n_rows: *n_rows,
                }),
                KeptColumn::Categorical {
                    codes,
                    missing_mask,
                    n_categories,
                    ordered,
                } => Column::Categorical(CategoricalColumn {
                    codes,
                    missing_mask: missing_mask.as_deref(),
                    n_categories: *n_categories,
                    ordered: *ordered,
                }),
            })
            .collect();
        let data = Dataset::new(columns)?;
        let target = match &self.target {
            KeptTarget::Classes { codes, n_classes } => Target::Classes {
                codes,
                n_classes: *n_classes,
            },
            KeptTarget::Values(y) => Target::Values(y),
            KeptTarget::MultiClasses { codes, n_classes } => {
                Target::MultiClasses { codes, n_classes }
            }
            KeptTarget::MultiValues { values, n_outputs } => Target::MultiValues {
                values,
                n_outputs: *n_outputs,
            },
        };
        f(&Sample {
            data: &data,
            target: &target,
            weights: &self.weights,
        })
    }
}

/// `values` cut into consecutive blocks of the lengths `lens` (each output's numbers, say);
/// it stops at the first block `values` is too short for, rather than make one up.
pub(crate) fn blocks<T>(
    values: &[T],
    lens: impl IntoIterator<Item = usize>,
) -> impl Iterator<Item = &[T]> {
    let mut rest = values;
    lens.into_iter().map_while(move |len| {
        let (block, tail) = rest.split_at_checked(len)?;
        rest = tail;
        Some(block)
    })
}

#[cfg(test)]
mod tests {
    use super::blocks;

    #[test]
    fn blocks_cut_by_length_and_never_make_one_up() {
        let values = [1.0, 2.0, 3.0, 4.0, 5.0];
        let cut: Vec<&[f64]> = blocks(&values, [2, 3]).collect();
        assert_eq!(cut, [&[1.0, 2.0][..], &[3.0, 4.0, 5.0][..]]);
        // Too short for the second block: it stops rather than give an empty one.
        let cut: Vec<&[f64]> = blocks(&values, [4, 2, 1]).collect();
        assert_eq!(cut, [&[1.0, 2.0, 3.0, 4.0][..]]);
    }
}
