//! Prediction rows from a data frame's columns read in place: numbers as `f32` or `f64`,
//! categories as the frame's own dictionary codes (`u8`, `u16` or `u32`: Polars' and Arrow's
//! physical codes) with a table from those codes to the tree's, and text as Arrow string
//! views looked up among the tree's categories ([`Text`]), each with Arrow's validity bitmap
//! where it holds nulls ([`Validity`]). Nothing is converted up front:
//! the walk stages each chunk of rows into one small column-major block of 64-bit words
//! (numbers' bits, or tree codes), which stays in the L1 cache, so the hot loop reads one
//! layout whatever the columns' types.

use std::ops::Range;

use super::text::{Strings, Text};
use super::{any_special, flag_gaps, rows_of, scan_columns, Read, Real, Source, CHUNK};
use crate::data::FeatureKind;
use crate::error::{CoreError, Result};
use crate::routing::Values;

/// A tree code standing for a missing value: no feature has this many categories.
const MISSING: u32 = u32::MAX;

/// A column of category codes as the frame stores them.
#[derive(Debug, Clone, Copy)]
pub enum Codes<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
}

impl Codes<'_> {
    fn len(&self) -> usize {
        match self {
            Codes::U8(c) => c.len(),
            Codes::U16(c) => c.len(),
            Codes::U32(c) => c.len(),
        }
    }

    #[inline]
    fn get(&self, row: usize) -> Option<u32> {
        match self {
            Codes::U8(c) => c.get(row).map(|&x| u32::from(x)),
            Codes::U16(c) => c.get(row).map(|&x| u32::from(x)),
            Codes::U32(c) => c.get(row).copied(),
        }
    }

    /// The codes of `rows` through `tree_code`, written to `dst` (one per row).
    fn stage(&self, rows: Range<usize>, dst: &mut [u64], tree_code: impl Fn(u32) -> u32) {
        fn each<T: Copy>(src: &[T], dst: &mut [u64], f: impl Fn(T) -> u32) {
            for (d, &x) in dst.iter_mut().zip(src) {
                *d = u64::from(f(x));
            }
        }
        match self {
            Codes::U8(c) => each(rows_of(c, &rows), dst, |x| tree_code(u32::from(x))),
            Codes::U16(c) => each(rows_of(c, &rows), dst, |x| tree_code(u32::from(x))),
            Codes::U32(c) => each(rows_of(c, &rows), dst, tree_code),
        }
    }
}

/// One column of a [`Frame`].
#[derive(Debug, Clone, Copy)]
pub enum FrameColumn<'a> {
    /// Numbers; NaN is missing.
    F32(&'a [f32]),
    F64(&'a [f64]),
    /// Category codes of the frame's own. `map[code]` is the tree's code of frame code
    /// `code`; without a map the codes are the tree's. A tree code of `n_categories` or more
    /// (a code past the map, a category the tree never saw, or the code a caller gives a
    /// missing value) reads as missing.
    Categorical {
        codes: Codes<'a>,
        map: Option<&'a [u32]>,
        n_categories: u32,
    },
    /// Labels, each found among the tree's categories (a null or a label the tree never
    /// saw reads as missing): Arrow string views, or strings by offsets.
    Text(Text<'a>),
    Strings(Strings<'a>),
}

impl FrameColumn<'_> {
    fn len(&self) -> usize {
        match self {
            FrameColumn::F32(v) => v.len(),
            FrameColumn::F64(v) => v.len(),
            FrameColumn::Categorical { codes, .. } => codes.len(),
            FrameColumn::Text(text) => text.len(),
            FrameColumn::Strings(strings) => strings.len(),
        }
    }

    fn is_numeric(&self) -> bool {
        matches!(self, FrameColumn::F32(_) | FrameColumn::F64(_))
    }

    /// A categorical column's tree codes of `rows` into `dst`, [`MISSING`] for a category the
    /// tree never saw (its nulls are the frame's to mask); a numeric column writes nothing.
    fn stage_codes(&self, rows: Range<usize>, dst: &mut [u64]) {
        match *self {
            FrameColumn::F32(_) | FrameColumn::F64(_) => {}
            FrameColumn::Text(text) => text.stage(rows, dst, u64::from(MISSING)),
            FrameColumn::Strings(strings) => strings.stage(rows, dst, u64::from(MISSING)),
            // Split here so that the copy of a frame's own codes has no lookup.
            FrameColumn::Categorical {
                codes,
                map: None,
                n_categories,
            } => codes.stage(rows, dst, |c| tree_code(None, n_categories, c)),
            FrameColumn::Categorical {
                codes,
                map,
                n_categories,
            } => codes.stage(rows, dst, |c| tree_code(map, n_categories, c)),
        }
    }
}

/// The tree's code of frame code `code`, or [`MISSING`].
#[inline]
fn tree_code(map: Option<&[u32]>, n_categories: u32, code: u32) -> u32 {
    let c = match map {
        Some(map) => map.get(code as usize).copied().unwrap_or(MISSING), // past the map
        None => code,
    };
    if c < n_categories {
        c
    } else {
        MISSING
    }
}

/// Arrow's validity bitmap of a column: bit `first + row` (least significant bit first) is
/// clear where row `row` is null, whatever the column holds there. Read beside the values,
/// a column with nulls is not copied to fill them (Polars' `fill_null` of a 1M-row Float64
/// column took about 1 ms a call).
#[derive(Debug, Clone, Copy)]
pub struct Validity<'a> {
    pub bits: &'a [u8],
    pub first: usize,
}

impl Validity<'_> {
    /// Whether row `row` holds a value (a row past the bitmap does not).
    #[inline]
    fn holds(&self, row: usize) -> bool {
        let bit = self.first + row;
        self.bits
            .get(bit / 8)
            .is_some_and(|b| b >> (bit % 8) & 1 == 1)
    }

    /// `missing` over the entries of `dst` (rows `rows`, one each) that are null.
    fn mask(&self, rows: Range<usize>, dst: &mut [u64], missing: u64) {
        for (d, row) in dst.iter_mut().zip(rows) {
            if !self.holds(row) {
                *d = missing;
            }
        }
    }
}

/// A data frame's columns, one per feature in the tree's order, read in place.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    columns: Vec<FrameColumn<'a>>,
    /// Each column's validity bitmap (None: no null).
    nulls: Vec<Option<Validity<'a>>>,
    n_rows: usize,
}

impl<'a> Frame<'a> {
    /// Checks that the columns have as many rows each.
    pub fn new(columns: Vec<FrameColumn<'a>>) -> Result<Self> {
        let nulls = vec![None; columns.len()];
        Frame::with_nulls(columns, nulls)
    }

    /// [`Frame::new`] with each column's validity bitmap (None where it has no null), which
    /// must cover its rows.
    pub fn with_nulls(
        columns: Vec<FrameColumn<'a>>,
        nulls: Vec<Option<Validity<'a>>>,
    ) -> Result<Self> {
        let n_rows = columns.first().map_or(0, FrameColumn::len); // no columns, no rows
        if let Some(c) = columns.iter().find(|c| c.len() != n_rows) {
            return Err(CoreError::ShapeMismatch {
                what: "a column of the frame".into(),
                expected: n_rows,
                got: c.len(),
            });
        }
        if nulls.len() != columns.len() {
            return Err(CoreError::ShapeMismatch {
                what: "the validity bitmaps of the frame".into(),
                expected: columns.len(),
                got: nulls.len(),
            });
        }
        for (j, valid) in nulls.iter().enumerate() {
            if let Some(v) = valid {
                let bits = v.first.saturating_add(n_rows);
                if v.bits.len().saturating_mul(8) < bits {
                    return Err(CoreError::ShapeMismatch {
                        what: format!("the validity bitmap of column {j} (bits)"),
                        expected: bits,
                        got: v.bits.len().saturating_mul(8),
                    });
                }
            }
        }
        Ok(Frame {
            columns,
            nulls,
            n_rows,
        })
    }

    /// Whether row `row` of column `f` holds a value (not a null).
    #[inline]
    fn holds(&self, f: usize, row: usize) -> bool {
        match self.nulls.get(f) {
            Some(Some(valid)) => valid.holds(row),
            _ => true,
        }
    }

    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Each column's kind, as the checks of the walk compare them with the tree's.
    pub(super) fn kind_names(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.columns.iter().map(|c| {
            if c.is_numeric() {
                "numeric"
            } else {
                "categorical"
            }
        })
    }

    /// The frame checked as a data set of its columns would be: column by column, a kind
    /// mismatch or the first infinite value.
    pub(super) fn validate(&self, kinds: &[FeatureKind]) -> Result<()> {
        if self.columns.len() != kinds.len() {
            return Err(CoreError::ShapeMismatch {
                what: "the number of columns".into(),
                expected: kinds.len(),
                got: self.columns.len(),
            });
        }
        for (column, (c, kind)) in self.columns.iter().zip(kinds).enumerate() {
            if c.is_numeric() != (*kind == FeatureKind::Numeric) {
                return Err(CoreError::ColumnKindMismatch {
                    column,
                    expected: kind.name(),
                    got: if c.is_numeric() {
                        "numeric"
                    } else {
                        "categorical"
                    },
                });
            }
            // A null's slot holds whatever the frame left there.
            let infinite = match c {
                FrameColumn::F32(v) => (0..v.len()).position(|row| {
                    v.get(row).is_some_and(|x| x.is_infinite()) && self.holds(column, row)
                }),
                FrameColumn::F64(v) => (0..v.len()).position(|row| {
                    v.get(row).is_some_and(|x| x.is_infinite()) && self.holds(column, row)
                }),
                FrameColumn::Categorical { .. }
                | FrameColumn::Text(_)
                | FrameColumn::Strings(_) => None,
            };
            if let Some(row) = infinite {
                return Err(CoreError::InfiniteFeature { column, row });
            }
        }
        Ok(())
    }
}

impl Values for Frame<'_> {
    /// NaN past the end, as a missing value (as the data set's columns read).
    #[inline]
    fn number(&self, f: usize, row: usize) -> f64 {
        if !self.holds(f, row) {
            return f64::NAN;
        }
        match self.columns.get(f) {
            Some(FrameColumn::F32(v)) => v.get(row).map_or(f64::NAN, |&x| f64::from(x)),
            Some(FrameColumn::F64(v)) => v.get(row).copied().unwrap_or(f64::NAN),
            _ => f64::NAN,
        }
    }

    #[inline]
    fn code(&self, f: usize, row: usize) -> Option<u32> {
        if !self.holds(f, row) {
            return None;
        }
        match *self.columns.get(f)? {
            FrameColumn::Categorical {
                codes,
                map,
                n_categories,
            } => {
                let c = tree_code(map, n_categories, codes.get(row)?);
                (c != MISSING).then_some(c)
            }
            FrameColumn::Text(text) => text.code(row),
            FrameColumn::Strings(strings) => strings.code(row),
            FrameColumn::F32(_) | FrameColumn::F64(_) => None,
        }
    }
}

/// Entries between two columns of a [`Staged`] chunk: a little more than a chunk, so that
/// the same row of every column does not fall in one set of the L1 cache.
const STRIDE: usize = CHUNK + 8;

/// A chunk's rows staged for the walk, column `j` at `values[j * STRIDE..]`: a numeric
/// column's numbers as their bits, a categorical column's tree codes ([`MISSING`] for a
/// missing one). One buffer of 8 bytes a value, so that a chunk of 20 columns (12 KiB) stays
/// in the L1 cache with the nodes, and one load reads a value as a number and as a code (the
/// branch-free step of a tree with subset nodes reads both).
#[derive(Debug, Default)]
pub(super) struct Staged {
    values: Vec<u64>,
}

/// The reader of a staged chunk whose first row is `first`: the values themselves rather
/// than the [`Staged`] that owns them, so a read is one bounds check and one load (no
/// pointer to the vector to follow first).
pub(super) struct StagedRows<'s> {
    values: &'s [u64],
    first: usize,
}

impl StagedRows<'_> {
    /// `None` past the staged values: a spare lane's read ([`Read`]), whose value the walk
    /// ignores, so the readers below make one up.
    #[inline]
    fn at(&self, row: usize, f: usize) -> Option<u64> {
        let at = f * STRIDE + row.wrapping_sub(self.first);
        self.values.get(at).copied()
    }
}

/// A categorical column's value reads as a number (its code's bits, a tiny subnormal), and a
/// numeric column's as a code (the low half of its bits): only where the walk ignores what it
/// reads (the branch-free step of a tree with subset nodes reads both for every node).
impl Read for StagedRows<'_> {
    #[inline]
    fn x(&self, row: usize, f: usize) -> f64 {
        self.at(row, f).map_or(f64::NAN, f64::from_bits)
    }

    #[inline]
    fn code_at(&self, row: usize, f: usize) -> Option<u32> {
        Some(self.code_or_missing(row, f)).filter(|&c| c != MISSING)
    }

    #[inline]
    fn code_or_missing(&self, row: usize, f: usize) -> u32 {
        self.at(row, f).map_or(MISSING, |v| v as u32)
    }
}

impl<'a> Source for Frame<'a> {
    type Staged = Staged;
    type Reader<'s>
        = StagedRows<'s>
    where
        Self: 's;

    fn n_rows(&self) -> usize {
        self.n_rows
    }

    fn scan(&self, rows: Range<usize>, gaps: &mut [bool]) -> Option<bool> {
        let plain = |j: usize| self.nulls.get(j).is_none_or(Option::is_none);
        let part = |(j, c): (usize, &FrameColumn<'a>)| match *c {
            FrameColumn::F32(v) if plain(j) => Some(rows_of(v, &rows)),
            _ => None,
        };
        let narrow = scan_columns(self.columns.iter().enumerate().filter_map(part), gaps)?;
        let part = |(j, c): (usize, &FrameColumn<'a>)| match *c {
            FrameColumn::F64(v) if plain(j) => Some(rows_of(v, &rows)),
            _ => None,
        };
        let wide = scan_columns(self.columns.iter().enumerate().filter_map(part), gaps)?;
        let mut masked = false;
        for (column, valid) in self.columns.iter().zip(&self.nulls) {
            let Some(valid) = valid else { continue };
            masked |= match *column {
                FrameColumn::F32(v) => masked_scan(v, valid, &rows, gaps)?,
                FrameColumn::F64(v) => masked_scan(v, valid, &rows, gaps)?,
                FrameColumn::Categorical { .. }
                | FrameColumn::Text(_)
                | FrameColumn::Strings(_) => false,
            };
        }
        Some(narrow | wide | masked)
    }

    /// A numeric column a compact node tests is checked as it is copied (a fold beside the
    /// copy); one no node tests is scanned, not staged: its entries keep what they held (NaN
    /// from the start), which only a [`flat`](super::flat) node that keeps every row reads.
    fn reader<'s>(
        &'s self,
        rows: Range<usize>,
        tests: &[bool],
        staged: &'s mut Staged,
        gaps: &mut [bool],
    ) -> Option<(StagedRows<'s>, bool)> {
        staged
            .values
            .resize(self.columns.len() * STRIDE, f64::NAN.to_bits());
        let n = rows.len().min(CHUNK);
        let mut nan = false;
        let blocks = staged.values.chunks_mut(STRIDE);
        let columns = self.columns.iter().zip(&self.nulls);
        for (((column, valid), block), &tested) in columns.zip(blocks).zip(tests) {
            let block = block.get_mut(..n).unwrap_or(&mut []); // n ≤ CHUNK < STRIDE
            let rows = rows.clone();
            let special = match (*column, valid) {
                (FrameColumn::F32(v), Some(valid)) => masked_numbers(v, valid, rows, block, gaps)?,
                (FrameColumn::F64(v), Some(valid)) => masked_numbers(v, valid, rows, block, gaps)?,
                (FrameColumn::F32(v), None) => numbers(rows_of(v, &rows), tested, block, gaps)?,
                (FrameColumn::F64(v), None) => numbers(rows_of(v, &rows), tested, block, gaps)?,
                _ if !tested => false,
                (categorical, _) => {
                    categorical.stage_codes(rows.clone(), block);
                    if let Some(v) = valid {
                        v.mask(rows, block, u64::from(MISSING));
                    }
                    false
                }
            };
            nan |= special;
        }
        let reader = StagedRows {
            values: &staged.values,
            first: rows.start,
        };
        Some((reader, nan))
    }
}

/// A numeric column's values of a chunk, copied to `dst` as their bits where a node tests
/// the column (`tested`), and checked either way: `None` for an infinity, else whether one
/// is NaN (flagged in `gaps`).
fn numbers<T: Real>(src: &[T], tested: bool, dst: &mut [u64], gaps: &mut [bool]) -> Option<bool> {
    let special = if tested {
        // One pass: the fold of the check vectorises beside the copy.
        let mut special = false;
        for (d, x) in dst.iter_mut().zip(src) {
            let x = x.to_f64();
            *d = x.to_bits();
            special |= !x.is_finite();
        }
        special
    } else {
        any_special(src)
    };
    if special {
        flag_gaps(src, gaps)?;
    }
    Some(special)
}

/// [`Source::scan`] of a numeric column with nulls over `rows`: a null reads as NaN (missing)
/// whatever its slot holds.
fn masked_scan<T: Real>(
    column: &[T],
    valid: &Validity<'_>,
    rows: &Range<usize>,
    gaps: &mut [bool],
) -> Option<bool> {
    let mut nan = false;
    for (i, row) in rows.clone().enumerate() {
        let x = match column.get(row) {
            Some(x) if valid.holds(row) => x.to_f64(),
            _ => f64::NAN,
        };
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
    Some(nan)
}

/// [`numbers`] of a column with nulls: the chunk's values copied whether a node tests the
/// column or not (a null's slot may hold an infinity, which only the bitmap rules out), each
/// null as NaN, then checked.
fn masked_numbers<T: Real>(
    column: &[T],
    valid: &Validity<'_>,
    rows: Range<usize>,
    dst: &mut [u64],
    gaps: &mut [bool],
) -> Option<bool> {
    for (d, x) in dst.iter_mut().zip(rows_of(column, &rows)) {
        *d = x.to_f64().to_bits();
    }
    valid.mask(rows, dst, f64::NAN.to_bits());
    let (mut infinite, mut nan) = (false, false);
    for &d in dst.iter() {
        let x = f64::from_bits(d);
        infinite |= x.is_infinite();
        nan |= x.is_nan();
    }
    if infinite {
        return None;
    }
    if nan {
        for (gap, &d) in gaps.iter_mut().zip(dst.iter()) {
            *gap |= f64::from_bits(d).is_nan();
        }
    }
    Some(nan)
}
