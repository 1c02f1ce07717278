//! The passes that bin a fit's dense numeric columns ([`super::hist::Bins::new`]): count
//! their known values, gather the values their bin edges are drawn from, and code every row,
//! each over all the columns a block of rows at a time ([`crate::blocks`]); and the search
//! that places a value in its bin ([`Locator`]), which the histogram search's bins share.

use std::ops::Range;

use crate::blocks::{blocks, each_part, parts};
use crate::control::Control;
use crate::data::{with_numbers, Float, Numbers, Strided};

/// Each column's count of known (not NaN) values among its `n` rows.
pub(super) fn known_counts(columns: &[Numbers<'_>], n: usize) -> Vec<usize> {
    let count = |rows: Range<usize>| -> Vec<usize> {
        let mut known = vec![0; columns.len()];
        for block in blocks(rows) {
            for (k, column) in known.iter_mut().zip(columns) {
                *k += with_numbers!(column, |v| v
                    .numbers(block.clone())
                    .filter(|x| !x.is_nan())
                    .count());
            }
        }
        known
    };
    let mut total = vec![0; columns.len()];
    for part in each_part(parts(n), count) {
        total.iter_mut().zip(part).for_each(|(t, k)| *t += k);
    }
    total
}

/// Each column's known values in row order: among its `n` rows (`rows` = `None`), or among
/// the rows listed, ascending.
pub(super) fn known_values(
    columns: &[Numbers<'_>],
    n: usize,
    rows: Option<&[u32]>,
) -> Vec<Vec<f64>> {
    // Reserved for every row, the usual case of few missing values: the columns grow
    // without reallocating (and copying) as they fill.
    let gather = |range: Range<usize>| -> Vec<Vec<f64>> {
        let mut values: Vec<Vec<f64>> = (0..columns.len())
            .map(|_| Vec::with_capacity(range.len()))
            .collect();
        for block in blocks(range) {
            // Blocks of `range`, a part of the rows listed: the empty default is never read.
            let listed = rows.map(|r| r.get(block.clone()).unwrap_or_default());
            for (out, column) in values.iter_mut().zip(columns) {
                with_numbers!(column, |v| match listed {
                    None => push_known(out, v.numbers(block.clone())),
                    Some(listed) =>
                        push_known(out, listed.iter().filter_map(|&r| v.get(r as usize))),
                });
            }
        }
        values
    };
    let listed = rows.map_or(n, <[u32]>::len); // no list: all `n` rows
    let mut parts_of = each_part(parts(listed), gather);
    if let [only] = parts_of.as_mut_slice() {
        return std::mem::take(only);
    }
    // Each part holds one list per column: joined column by column, each allocated once.
    let mut lens = vec![0; columns.len()];
    for part in &parts_of {
        lens.iter_mut()
            .zip(part)
            .for_each(|(len, p)| *len += p.len());
    }
    let mut all: Vec<Vec<f64>> = lens.into_iter().map(Vec::with_capacity).collect();
    for part in &parts_of {
        all.iter_mut()
            .zip(part)
            .for_each(|(all, p)| all.extend_from_slice(p));
    }
    all
}

fn push_known(out: &mut Vec<f64>, values: impl Iterator<Item = f64>) {
    out.extend(values.filter(|x| !x.is_nan()));
}

/// The `n` rows of `columns` coded by their `locators`, with each bin's least and greatest
/// value. `None` when the codes' memory cannot be had (recorded in `control`).
pub(super) fn code(
    columns: &[Numbers<'_>],
    locators: &[Locator<'_>],
    n: usize,
    control: Option<&Control>,
) -> Option<Vec<(Vec<u8>, Ranges)>> {
    let mut codes: Vec<Vec<u8>> = Vec::with_capacity(columns.len());
    for _ in columns {
        codes.push(match control {
            Some(c) => c.filled(n, 0u8)?,
            None => vec![0; n],
        });
    }
    let ranges = parts(n);
    // Each task's slice of every column's codes.
    let mut slices: Vec<(Range<usize>, Vec<&mut [u8]>)> =
        ranges.iter().map(|r| (r.clone(), Vec::new())).collect();
    for column in &mut codes {
        let mut rest = column.as_mut_slice();
        for (range, mine) in &mut slices {
            let at = range.len().min(rest.len());
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(at);
            mine.push(head);
            rest = tail;
        }
    }
    let code_part = |(range, mut mine): (Range<usize>, Vec<&mut [u8]>)| -> Vec<Ranges> {
        let mut ranges: Vec<Ranges> = locators.iter().map(|l| Ranges::empty(l.n_bins())).collect();
        for block in blocks(range.clone()) {
            let at = block.start - range.start..block.end - range.start;
            let columns = columns.iter().zip(locators).zip(&mut ranges);
            for (((column, locate), r), codes) in columns.zip(&mut mine) {
                let Some(codes) = codes.get_mut(at.clone()) else {
                    continue;
                };
                with_numbers!(column, |v| code_rows(v, block.clone(), locate, codes, r));
            }
        }
        ranges
    };
    let mut merged: Vec<Ranges> = locators.iter().map(|l| Ranges::empty(l.n_bins())).collect();
    for part in each_part(slices, code_part) {
        for (m, p) in merged.iter_mut().zip(part) {
            m.widen_to(&p);
        }
    }
    Some(codes.into_iter().zip(merged).collect())
}

/// Each bin's least and greatest value seen so far (+inf and -inf while empty), and the
/// count of missing values seen.
pub(super) struct Ranges {
    pub(super) lo: Vec<f64>,
    pub(super) hi: Vec<f64>,
    pub(super) n_missing: usize,
}

impl Ranges {
    /// Widens bin `b`'s range to `x` (not NaN). As `f64::min` and `max`, which a ±0 tie
    /// leaves as they are, but a branch that soon goes one way rather than their NaN checks.
    #[inline(always)]
    pub(super) fn widen(&mut self, b: usize, x: f64) {
        if let (Some(l), Some(h)) = (self.lo.get_mut(b), self.hi.get_mut(b)) {
            if x < *l {
                *l = x;
            }
            if x > *h {
                *h = x;
            }
        }
    }

    pub(super) fn empty(n_bins: usize) -> Ranges {
        Ranges {
            lo: vec![f64::INFINITY; n_bins],
            hi: vec![f64::NEG_INFINITY; n_bins],
            n_missing: 0,
        }
    }

    /// Widens these ranges by those of later rows: the same as widening them by the later
    /// rows one by one (the least value's first occurrence is kept either way).
    fn widen_to(&mut self, later: &Ranges) {
        self.lo
            .iter_mut()
            .zip(&later.lo)
            .for_each(|(a, &b)| *a = a.min(b));
        self.hi
            .iter_mut()
            .zip(&later.hi)
            .for_each(|(a, &b)| *a = a.max(b));
        self.n_missing += later.n_missing;
    }
}

/// Codes the values of `rows` of one column into `codes` (`n_bins` for a missing value),
/// widening their bins' ranges.
pub(super) fn code_rows<T: Float>(
    values: &Strided<'_, T>,
    rows: Range<usize>,
    locate: &Locator<'_>,
    codes: &mut [u8],
    ranges: &mut Ranges,
) {
    // At most MAX_BINS value bins, so the missing code still fits a u8.
    let missing = ranges.lo.len() as u8;
    let mut codes = codes.iter_mut();
    values.for_rows(rows, |x| {
        let x: f64 = x.into();
        let code = if x.is_nan() {
            ranges.n_missing += 1;
            missing
        } else {
            let b = locate.bin(x);
            ranges.widen(b, x);
            b as u8
        };
        if let Some(c) = codes.next() {
            *c = code;
        }
    });
}

/// Slices of a column's range that [`Locator`] places values in first.
const BUCKETS: usize = 4096;

/// Finds a value's bin with two comparisons rather than a search over every edge (binning
/// is a search per row): the value's slice of the sampled range, among `BUCKETS` equal ones,
/// holds the only edges that can lie either side of it. Exact: the slice of a value is
/// monotone in it, so an edge in an earlier slice is below the value and one in a later slice
/// is not. Used when no slice holds more than two edges (most columns); a skewed column, with
/// its edges crowded into a few slices, gets a plain binary search.
pub(super) struct Locator<'e> {
    edges: &'e [f64],
    origin: f64,
    /// Slices per unit of value.
    scale: f64,
    /// Edges in the slices before each slice (`BUCKETS + 1` entries; at most 254 edges);
    /// empty for a plain search.
    before: Vec<u8>,
}

impl<'e> Locator<'e> {
    /// `min` and `max` bound the sampled values (the edges lie between them).
    pub(super) fn new(edges: &'e [f64], min: Option<&f64>, max: Option<&f64>) -> Locator<'e> {
        let (origin, scale) = match (min, max) {
            (Some(&min), Some(&max)) => (min, BUCKETS as f64 / (max - min)),
            // No values: no slices (a plain search), as for a single value.
            _ => (0.0, f64::INFINITY),
        };
        let mut locator = Locator {
            edges,
            origin,
            scale,
            before: Vec::new(),
        };
        if !scale.is_finite() {
            return locator;
        }
        let mut before = Vec::with_capacity(BUCKETS + 1);
        let mut below = 0;
        for j in 0..=BUCKETS {
            let start = below;
            while edges.get(below).is_some_and(|&e| locator.slice(e) < j) {
                below += 1;
            }
            if j > 0 && below - start > 2 {
                return locator;
            }
            before.push(below as u8);
        }
        locator.before = before;
        locator
    }

    /// Bins of the column: one more than its edges.
    pub(super) fn n_bins(&self) -> usize {
        self.edges.len() + 1
    }

    /// The slice of `x`: monotone in `x` (a saturating cast of a monotone product).
    #[inline]
    fn slice(&self, x: f64) -> usize {
        (((x - self.origin) * self.scale) as usize).min(BUCKETS - 1)
    }

    /// The number of edges below `x`, i.e. the first bin whose upper edge is >= x, so that
    /// `x <= edges[b]` ⇔ `bin(x) <= b`.
    #[inline]
    pub(super) fn bin(&self, x: f64) -> usize {
        let j = self.slice(x);
        let (Some(&a), Some(&b)) = (self.before.get(j), self.before.get(j + 1)) else {
            return self.edges.partition_point(|&e| e < x);
        };
        let (a, b) = (usize::from(a), usize::from(b));
        let below = |k: usize| usize::from((k < b) & self.edges.get(k).is_some_and(|&e| e < x));
        a + below(a) + below(a + 1)
    }
}
