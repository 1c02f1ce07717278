//! Histogram split search for numeric features (`splitter = "hist"`, LightGBM's scheme).
//!
//! Each numeric column is binned once per fit into at most `max_bins` bins of known values
//! (one per distinct value when there are few, quantiles otherwise) plus a bin for missing
//! values. A node sums its rows' statistics per bin and seeks a threshold between adjacent
//! non-empty bins by the rules [`Searcher::numeric`] applies between adjacent distinct
//! values: with one distinct value per bin both searches find the same split. The larger
//! child of a binary split gets its histograms by subtraction (parent − smaller child).

use std::ops::Range;

use rayon::prelude::*;

use super::binning::{self, code_rows, Locator, Ranges};
use super::fill::RowStats;
use super::kernel::Kernel;
use super::numeric::{midpoint, KNOWN_VS_MISSING};
use super::presort::{radix_sort, OrderKey, Sorted};
use super::sparse::{entries_at, Entry};
use super::sweep::Sweep;
use super::*;
use crate::control::Control;
use crate::data::{with_numbers, Float, Numbers, SparseColumn, Strided};
use crate::params::MAX_BINS;

/// Rows a column's quantile edges are drawn from; longer columns are sampled.
pub(super) const SAMPLE: usize = 200_000;

/// Columns at least this long are binned in parallel, and nodes with at least this many rows
/// fill their features' histograms in parallel: below it a task costs more than it saves.
pub(super) const PARALLEL_ROWS: usize = 10_000;

/// The most dense columns one pass over a node's rows fills: 8 histograms of 256 bins of
/// a few statistics stay within a core's L1 and L2 caches.
const GROUP_COLUMNS: usize = 8;

/// Seed of the rows sampled from long columns: fits are repeatable.
const SEED: u64 = 0x5155_4552_4355_5321;

/// One numeric column, binned.
#[derive(Debug)]
pub(crate) struct Binned {
    /// A dense column's bin of each row: `0..n_bins` for a value, `n_bins` for a missing
    /// value; a sparse column's bin of each stored value.
    codes: Vec<u8>,
    /// A sparse column's bin of the value 0.0 (its rows without a stored value); `None` for
    /// a dense column.
    zero: Option<u8>,
    /// Least and greatest training value of each bin. A threshold falls midway between the
    /// greatest value of one non-empty bin and the least of the next, as the exact search's
    /// falls between adjacent distinct values (the same threshold with one value per bin).
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// Whether some row may miss the value (`false`: none does).
    may_miss: bool,
}

/// A run of equal values in a sorted column: its first and last value (±0 compare equal but
/// sort apart) and its length.
#[derive(Debug, Clone, Copy)]
struct Run {
    first: f64,
    last: f64,
    count: usize,
}

/// Cuts between runs of sampled values (`total` of them): one bin per run when they are few,
/// quantiles otherwise. The runs are walked lazily (a sample of distinct values has as many
/// runs as values, which need not be held).
fn edges_of(runs: impl Iterator<Item = Run> + Clone, total: usize, max_bins: usize) -> Vec<f64> {
    if runs.clone().nth(max_bins).is_some() {
        return quantile_edges(runs, total, max_bins);
    }
    let few: Vec<Run> = runs.collect();
    few.windows(2)
        .filter_map(|pair| match pair {
            [a, b] => Some(midpoint(a.last, b.first)),
            _ => None,
        })
        .collect()
}

impl Binned {
    /// A dense column's codes with each bin's least and greatest value; `may_miss`: whether
    /// some value is missing.
    pub(super) fn dense(codes: Vec<u8>, lo: Vec<f64>, hi: Vec<f64>, may_miss: bool) -> Binned {
        Binned {
            codes,
            zero: None,
            lo,
            hi,
            may_miss,
        }
    }

    /// `values` coded by `cuts`, with each bin's least and greatest value among them.
    pub(crate) fn with_cuts<T: Float>(
        values: &Strided<'_, T>,
        cuts: &Cuts,
        control: Option<&Control>,
    ) -> Option<Binned> {
        let mut codes = match control {
            Some(c) => c.filled(values.len(), 0u8)?,
            None => vec![0; values.len()],
        };
        let mut ranges = Ranges::empty(cuts.n_bins());
        code_rows(
            values,
            0..values.len(),
            &cuts.locator(),
            &mut codes,
            &mut ranges,
        );
        Some(Binned::dense(
            codes,
            ranges.lo,
            ranges.hi,
            ranges.n_missing > 0,
        ))
    }

    /// A sparse column's bins: the ones [`Self::new`] gives the column dense, from its
    /// stored values (a stored −0.0 read as +0.0, see [`SparseColumn`]) and the count of its
    /// zeros, with a code per stored value.
    fn sparse(
        column: &SparseColumn<'_>,
        max_bins: usize,
        sample: &[u32],
        control: Option<&Control>,
    ) -> Option<Binned> {
        // The sampled values as (value, repeats): every value when all are taken (no value
        // of a sparse column is missing), else the sampled rows' (zeros where none is stored).
        let implicit = column.n_rows.saturating_sub(column.rows.len());
        let values = || column.values.iter().map(|&x| x + 0.0);
        let (mut counted, zeros): (Vec<(f64, usize)>, usize) =
            if column.n_rows <= SAMPLE || sample.is_empty() {
                (values().map(|x| (x, 1)).collect(), implicit)
            } else {
                let counted: Vec<(f64, usize)> = column
                    .rows
                    .iter()
                    .zip(values())
                    .filter(|(r, _)| sample.binary_search(r).is_ok())
                    .map(|(_, x)| (x, 1))
                    .collect();
                let zeros = sample.len().saturating_sub(counted.len());
                (counted, zeros)
            };
        counted.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        if zeros > 0 {
            let at = counted.partition_point(|(x, _)| *x <= 0.0);
            counted.insert(at, (0.0, zeros));
        }
        let total = counted.iter().map(|&(_, m)| m).sum();
        let edges = edges_of(runs(counted.iter().copied()), total, max_bins);
        let mut ranges = Ranges::empty(edges.len() + 1);
        let locate = Locator::new(
            &edges,
            counted.first().map(|(x, _)| x),
            counted.last().map(|(x, _)| x),
        );
        let zero = locate.bin(0.0);
        let mut codes = match control {
            Some(c) => c.vec(column.values.len())?,
            None => Vec::with_capacity(column.values.len()),
        };
        // Ranges widened in row order, a zero wherever rows lie between stored ones, as the
        // dense pass over every row widens them.
        let mut next_row = 0;
        for (&r, x) in column.rows.iter().zip(values()) {
            if r as usize > next_row {
                ranges.widen(zero, 0.0);
            }
            next_row = r as usize + 1;
            let b = locate.bin(x);
            ranges.widen(b, x);
            codes.push(b as u8);
        }
        if column.n_rows > next_row {
            ranges.widen(zero, 0.0);
        }
        Some(Binned {
            codes,
            zero: Some(zero as u8),
            lo: ranges.lo,
            hi: ranges.hi,
            may_miss: false,
        })
    }

    /// Bins with these value ranges and no rows: what split search reads of a column whose
    /// rows were binned batch by batch.
    pub(crate) fn ranges(lo: Vec<f64>, hi: Vec<f64>) -> Binned {
        Binned {
            codes: Vec::new(),
            zero: None,
            lo,
            hi,
            may_miss: true,
        }
    }

    /// A dense column's codes made elsewhere (a batch that a fit batch by batch keeps binned
    /// between passes), without value ranges: what [`Searcher::add_to_histograms`] reads.
    pub(crate) fn coded(codes: Vec<u8>) -> Binned {
        Binned {
            codes,
            zero: None,
            lo: Vec::new(),
            hi: Vec::new(),
            may_miss: true,
        }
    }

    /// A dense column's codes, one per row (`n_bins` for a missing value).
    pub(crate) fn codes(&self) -> &[u8] {
        &self.codes
    }

    /// Each bin's least and greatest value.
    pub(crate) fn lo_hi(&self) -> (&[f64], &[f64]) {
        (&self.lo, &self.hi)
    }

    fn n_bins(&self) -> usize {
        self.lo.len()
    }

    /// Training row `row`'s bin (`n_bins` when it misses the value); `sparse`: the column,
    /// when it is sparse (its codes are of stored values).
    fn code(&self, row: u32, sparse: Option<&SparseColumn<'_>>) -> Option<u8> {
        match (sparse, self.zero) {
            (Some(c), Some(zero)) => match c.rows.binary_search(&row) {
                Ok(at) => self.codes.get(at).copied(),
                Err(_) => Some(zero),
            },
            _ => self.codes.get(row as usize).copied(),
        }
    }
}

/// A numeric column's bin edges, drawn from a sample of its known values, and the sample's
/// range (which [`Locator`] slices).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cuts {
    edges: Vec<f64>,
    min: Option<f64>,
    max: Option<f64>,
}

impl Cuts {
    /// One bin per distinct sampled value when there are at most `max_bins`, quantiles
    /// otherwise.
    pub(crate) fn from_sample(sample: Vec<f64>, max_bins: usize) -> Cuts {
        let max_bins = max_bins.clamp(2, MAX_BINS);
        let known = sorted(sample);
        let edges = edges_of(runs(known.iter().map(|&x| (x, 1))), known.len(), max_bins);
        Cuts {
            edges,
            min: known.first().copied(),
            max: known.last().copied(),
        }
    }

    pub(crate) fn n_bins(&self) -> usize {
        self.edges.len() + 1
    }

    /// The search that places a value in its bin.
    pub(super) fn locator(&self) -> Locator<'_> {
        Locator::new(&self.edges, self.min.as_ref(), self.max.as_ref())
    }

    /// The edges and the sample's range, for sending to another process.
    pub(crate) fn parts(&self) -> (&[f64], Option<f64>, Option<f64>) {
        (&self.edges, self.min, self.max)
    }

    /// Cuts sent as [`Self::parts`].
    pub(crate) fn from_parts(edges: Vec<f64>, min: Option<f64>, max: Option<f64>) -> Cuts {
        Cuts { edges, min, max }
    }
}

/// The values each dense column's quantile edges are drawn from: its known values, or when
/// it has more than `SAMPLE` those of the `SAMPLE` known rows whose index hashes lowest
/// (quantile edges need the distribution, not every value). `sample` is [`sample_rows`]:
/// those rows for a column with no missing value. The sample depends on each row's index
/// and value only (never on how the rows are cut into batches), so a fit that sees the
/// column batch by batch ([`Sketch`]) draws the same one.
fn sampled_values(columns: &[Numbers<'_>], n: usize, sample: &[u32]) -> Vec<Vec<f64>> {
    if n <= SAMPLE || sample.is_empty() {
        return binning::known_values(columns, n, None);
    }
    let known = binning::known_counts(columns, n);
    let complete: Vec<Numbers<'_>> = columns
        .iter()
        .zip(&known)
        .filter(|&(_, &k)| k == n)
        .map(|(c, _)| *c)
        .collect();
    // One list per complete column, in the columns' order.
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); known.len()];
    let complete_slots = values.iter_mut().zip(&known).filter(|&(_, &k)| k == n);
    let lists = binning::known_values(&complete, n, Some(sample));
    for ((slot, _), list) in complete_slots.zip(lists) {
        *slot = list;
    }
    // Columns with missing values sample their own known rows.
    values
        .par_iter_mut()
        .zip(columns)
        .zip(known)
        .filter(|(_, k)| *k != n)
        .for_each(|((values, column), k)| {
            let rows = (k > SAMPLE).then(|| {
                with_numbers!(column, |v| lowest_hashing(k, |r| {
                    v.get(r).is_some_and(|x| !x.is_nan())
                }))
            });
            // One column in, one list out: the empty default is never read.
            *values = binning::known_values(std::slice::from_ref(column), n, rows.as_deref())
                .pop()
                .unwrap_or_default();
        });
    values
}

/// The `SAMPLE` rows of `n_rows` whose index hashes lowest ([`row_hash`]), ascending; none
/// when every row would be taken. One sample serves every column without missing values, so
/// a sparse column finds its sampled values by searching its stored rows in it (LightGBM
/// also samples rows once per data set to find its bins); being a rule on row indices, not a
/// draw, it is also the sample a fit batch by batch keeps ([`Sketch`]).
fn sample_rows(n_rows: usize) -> Vec<u32> {
    if n_rows <= SAMPLE {
        return Vec::new();
    }
    lowest_hashing(n_rows, |_| true)
}

/// The `SAMPLE` rows hashing lowest among those `keep` admits (`n_kept` of them, more than
/// `SAMPLE`), ascending. Rows hashing below a cutoff hold about 1.25 × `SAMPLE` of them; too
/// few (rare) double it. The lowest `SAMPLE` hashes are the same whatever the cutoff.
fn lowest_hashing(n_kept: usize, keep: impl Fn(usize) -> bool) -> Vec<u32> {
    let mut share = 1.25 * SAMPLE as f64 / n_kept.max(1) as f64;
    loop {
        let cutoff = if share >= 1.0 {
            u64::MAX
        } else {
            (share * u64::MAX as f64) as u64
        };
        let mut picked: Vec<(u64, u32)> = Vec::new();
        let (mut r, mut seen) = (0usize, 0usize);
        while seen < n_kept {
            if keep(r) {
                seen += 1;
                let h = row_hash(r as u64);
                if h <= cutoff {
                    picked.push((h, r as u32));
                }
            }
            r += 1;
        }
        if picked.len() >= SAMPLE || cutoff == u64::MAX {
            keep_lowest(&mut picked, SAMPLE);
            let mut rows: Vec<u32> = picked.into_iter().map(|(_, r)| r).collect();
            rows.sort_unstable();
            return rows;
        }
        share *= 2.0;
    }
}

/// A row's hash: SplitMix64 of its index (from the fixed [`SEED`], so fits are repeatable)
/// is one-to-one, so no two rows tie.
pub(crate) fn row_hash(row: u64) -> u64 {
    let mut state = SEED.wrapping_add(row);
    splitmix64(&mut state)
}

/// The greatest hash of the `SAMPLE` rows of `0..rows` that hash lowest, and how many rows
/// hash at or below it: the rows every complete column's sample is drawn from, and those a
/// column with missing values draws from first. Worked out from the row count alone, so
/// each partition of a distributed fit knows which of its rows can be sampled.
pub(crate) fn sample_threshold(rows: u64) -> (u64, u64) {
    /// Rows hashed per task.
    const CHUNK: u64 = 1 << 22;
    if rows <= SAMPLE as u64 {
        return (u64::MAX, rows);
    }
    let lowest = |mut hashes: Vec<u64>| {
        if let Some(last) = SAMPLE.checked_sub(1).filter(|&l| l < hashes.len()) {
            hashes.select_nth_unstable(last);
            hashes.truncate(SAMPLE);
        }
        hashes
    };
    let low: Vec<u64> = (0..rows.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|c| {
            lowest(
                (c * CHUNK..rows.min((c + 1) * CHUNK))
                    .map(row_hash)
                    .collect(),
            )
        })
        .collect();
    let low = lowest(low);
    (
        low.iter().copied().max().unwrap_or(u64::MAX), // more than SAMPLE rows: never empty
        low.len() as u64,
    )
}

/// Keeps the `k` pairs of lowest hash (hashes are distinct), in no particular order.
pub(crate) fn keep_lowest<T>(pairs: &mut Vec<(u64, T)>, k: usize) {
    if pairs.len() > k {
        if let Some(last) = k.checked_sub(1) {
            pairs.select_nth_unstable_by_key(last, |&(h, _)| h);
        }
        pairs.truncate(k);
    }
}

/// A column's sample as batches of rows build it: the known values of the `SAMPLE` rows
/// hashing lowest so far ([`sampled_values`]'s rule). Sketches of disjoint row sets merge
/// exactly.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sketch {
    pub(crate) pairs: Vec<(u64, f64)>,
}

impl Sketch {
    /// Adds the known values of `values`, whose first row has global index `offset`.
    pub(crate) fn add(&mut self, values: &[f64], offset: u64) {
        self.pairs.extend(
            values
                .iter()
                .enumerate()
                .filter(|(_, x)| !x.is_nan())
                .map(|(r, &x)| (row_hash(offset + r as u64), x)),
        );
        if self.pairs.len() >= 2 * SAMPLE {
            keep_lowest(&mut self.pairs, SAMPLE);
        }
    }

    pub(crate) fn merge(&mut self, other: Sketch) {
        self.pairs.extend(other.pairs);
        if self.pairs.len() >= 2 * SAMPLE {
            keep_lowest(&mut self.pairs, SAMPLE);
        }
    }

    /// Moves out the pairs hashing above `threshold` (the `SAMPLE` lowest of them: all that
    /// a merge can need), keeping those at or below it.
    pub(crate) fn split_off(&mut self, threshold: u64) -> Sketch {
        let (low, mut high) = std::mem::take(&mut self.pairs)
            .into_iter()
            .partition(|&(h, _)| h <= threshold);
        self.pairs = low;
        keep_lowest(&mut high, SAMPLE);
        Sketch { pairs: high }
    }

    /// The `k` pairs of lowest hash.
    pub(crate) fn lowest(&self, k: usize) -> Sketch {
        let mut pairs = self.pairs.clone();
        keep_lowest(&mut pairs, k);
        Sketch { pairs }
    }

    /// The column's edges: those [`Bins::new`] draws from the whole column.
    pub(crate) fn cuts(mut self, max_bins: usize) -> Cuts {
        keep_lowest(&mut self.pairs, SAMPLE);
        Cuts::from_sample(self.pairs.into_iter().map(|(_, x)| x).collect(), max_bins)
    }
}

/// Samples at least this long are sorted by radix (a comparison sort below).
const RADIX_SORTED: usize = 4096;

/// `values` in ascending order (`total_cmp`'s), sorted as integers: twice as fast as
/// comparing floats, for the same order; a long sample by radix, faster still. A sample
/// whose every value is a float32 (a float32 column's) sorts 32-bit keys: half the bytes
/// moved, and fewer passes.
fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    let single = |x: &f64| f64::from(*x as f32).to_bits() == x.to_bits();
    if values.len() >= RADIX_SORTED && values.iter().all(single) {
        let mut keys: Vec<u32> = values.iter().map(|&x| (x as f32).order_key()).collect();
        radix_sort(&mut keys, |&k| k.into(), 4, 1, None);
        for (x, &k) in values.iter_mut().zip(&keys) {
            *x = f32::of_key(k).into();
        }
        return values;
    }
    let mut keys: Vec<u64> = values.iter().map(|&x| x.order_key()).collect();
    if keys.len() < RADIX_SORTED {
        keys.sort_unstable();
    } else {
        radix_sort(&mut keys, |&k| k, 8, 1, None);
    }
    for (x, &k) in values.iter_mut().zip(&keys) {
        *x = f64::of_key(k);
    }
    values
}

/// SplitMix64: a tiny, well-mixed generator, enough to pick a sample.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The runs of equal values of a sorted column, given as (value, repeats).
fn runs(sorted: impl Iterator<Item = (f64, usize)> + Clone) -> impl Iterator<Item = Run> + Clone {
    let mut sorted = sorted.peekable();
    std::iter::from_fn(move || {
        let (first, count) = sorted.next()?;
        let mut run = Run {
            first,
            last: first,
            count,
        };
        while let Some((x, count)) = sorted.next_if(|&(x, _)| x <= run.last) {
            run.last = x;
            run.count += count;
        }
        Some(run)
    })
}

/// Edges cutting `runs` (of `total` values) into at most `max_bins` bins of about equal
/// counts. Greedy: a bin closes once it holds its share of the values not yet binned, or
/// before a run that would overshoot that share by more than stopping short of it; so a heavy
/// value gets a bin of its own and the other bins share the rest.
fn quantile_edges(runs: impl Iterator<Item = Run>, total: usize, max_bins: usize) -> Vec<f64> {
    let mut edges = Vec::with_capacity(max_bins.saturating_sub(1));
    let mut rest = total as f64;
    let mut bins_left = max_bins;
    // The share changes only when a bin closes.
    let mut share = rest / bins_left as f64;
    let mut filled = 0.0;
    let mut runs = runs.peekable();
    while let (Some(run), Some(next)) = (runs.next(), runs.peek()) {
        if bins_left <= 1 {
            break;
        }
        filled += run.count as f64;
        let with_next = filled + next.count as f64;
        if filled >= share || with_next - share > share - filled {
            edges.push(midpoint(run.last, next.first));
            rest -= filled;
            filled = 0.0;
            bins_left -= 1;
            share = rest / bins_left as f64;
        }
    }
    edges
}

/// Numeric columns binned once per fit.
#[derive(Debug)]
pub(crate) struct Bins {
    /// Per feature; `None` for categorical features (searched by counting categories).
    columns: Vec<Option<Binned>>,
}

impl Bins {
    /// Bins every numeric column of `data` into at most `max_bins` (2..=255) bins; categorical
    /// columns get none. The same bins for any number of threads. `None` when the memory
    /// cannot be had (recorded in `control`) or `control` stopped.
    pub(crate) fn new(
        data: &Dataset<'_>,
        max_bins: usize,
        control: Option<&Control>,
    ) -> Option<Bins> {
        let max_bins = max_bins.clamp(2, MAX_BINS);
        let n = data.n_rows();
        let sample = sample_rows(n);
        let stopped = || control.is_some_and(Control::stopped);
        let dense: Vec<Numbers<'_>> = data
            .columns()
            .iter()
            .filter_map(|c| match c {
                Column::Numeric(v) => Some(*v),
                _ => None,
            })
            .collect();
        let cuts: Vec<Cuts> = sampled_values(&dense, n, &sample)
            .into_par_iter()
            .map(|values| Cuts::from_sample(values, max_bins))
            .collect();
        if stopped() {
            return None;
        }
        let locators: Vec<Locator<'_>> = cuts.iter().map(Cuts::locator).collect();
        let mut dense = binning::code(&dense, &locators, n, control)?
            .into_iter()
            .map(|(codes, r)| Binned::dense(codes, r.lo, r.hi, r.n_missing > 0));
        let bin_sparse = |column: &Column<'_>| match column {
            Column::Sparse(_) if stopped() => None,
            Column::Sparse(c) => Binned::sparse(c, max_bins, &sample, control).map(Some),
            _ => Some(None),
        };
        let sparse: Vec<Option<Binned>> = if n >= PARALLEL_ROWS {
            data.columns()
                .par_iter()
                .map(bin_sparse)
                .collect::<Option<_>>()?
        } else {
            data.columns()
                .iter()
                .map(bin_sparse)
                .collect::<Option<_>>()?
        };
        let columns = data
            .columns()
            .iter()
            .zip(sparse)
            .map(|(column, sparse)| match column {
                Column::Numeric(_) => dense.next(),
                _ => sparse,
            })
            .collect();
        Some(Bins { columns })
    }

    /// Bins made elsewhere (batch by batch): per feature, `None` for categorical ones.
    pub(crate) fn from_columns(columns: Vec<Option<Binned>>) -> Bins {
        Bins { columns }
    }

    pub(crate) fn column(&self, feature: usize) -> Option<&Binned> {
        self.columns.get(feature)?.as_ref()
    }

    /// The node's rows by bin of numeric `feature`, for scans that read rows rather than
    /// histograms (absolute error): a counting sort, so no comparison sort per node.
    /// `sparse`: the feature's column when it is sparse (its codes are of stored values).
    pub(super) fn node_order(
        &self,
        feature: usize,
        node: &NodeRows,
        sparse: Option<&SparseColumn<'_>>,
    ) -> Option<BinOrder> {
        let column = self.column(feature)?;
        let n_bins = column.n_bins();
        let code = |i: usize| column.code(*node.rows.get(i)?, sparse).map(usize::from);
        // starts[b] = where bin b's rows begin; the missing bin (n_bins) last.
        let mut starts = vec![0usize; n_bins + 2];
        for i in 0..node.len() {
            if let Some(s) = code(i).and_then(|b| starts.get_mut(b + 1)) {
                *s += 1;
            }
        }
        let mut before = 0;
        for s in &mut starts {
            before += *s;
            *s = before;
        }
        // The missing bin's start: the rows in known bins (`starts` has n_bins + 2 entries).
        let &[.., n_known, _] = starts.as_slice() else {
            return None;
        };
        let mut order = vec![0u32; n_known];
        let mut bin = vec![0u8; n_known];
        let mut missing = Vec::with_capacity(node.len() - n_known);
        for i in 0..node.len() {
            match code(i) {
                Some(b) if b < n_bins => {
                    if let Some(at) = starts.get_mut(b) {
                        if let (Some(o), Some(c)) = (order.get_mut(*at), bin.get_mut(*at)) {
                            *o = i as u32;
                            *c = b as u8;
                        }
                        *at += 1;
                    }
                }
                _ => missing.push(i as u32),
            }
        }
        Some(BinOrder {
            order,
            bin,
            missing_positions: missing,
        })
    }

    /// Where the test `x <= threshold` on dense numeric `feature` sends each bin: routing a
    /// node's rows then reads a byte per row rather than its value (but in a bin whose range
    /// holds the threshold, which the search's thresholds, between bins, leave only to bins
    /// empty at the node). `None` for a sparse or categorical feature.
    pub(crate) fn sides(&self, feature: usize, threshold: f64) -> Option<Sides<'_>> {
        let column = self.column(feature).filter(|c| c.zero.is_none())?;
        let mut side = [Side::Missing; 256];
        for ((s, &lo), &hi) in side.iter_mut().zip(&column.lo).zip(&column.hi) {
            *s = if hi <= threshold {
                // Also an empty bin (lo = +inf, hi = -inf): it holds no row to send.
                Side::Left
            } else if lo > threshold {
                Side::Right
            } else {
                Side::Value
            };
        }
        Some(Sides {
            codes: &column.codes,
            side,
            threshold,
        })
    }

    /// The weight of the node's `rows` missing dense numeric `feature`, summed in row order
    /// from +0.0 (as [`super::placement::plan`] sums it), read from the rows' bins; `None`
    /// for a sparse or categorical feature.
    pub(crate) fn missing_weight(&self, feature: usize, rows: &NodeRows) -> Option<f64> {
        let column = self.column(feature).filter(|c| c.zero.is_none())?;
        if !column.may_miss {
            return Some(0.0);
        }
        let missing = column.lo.len();
        Some(
            rows.iter()
                .filter(|&(r, _)| {
                    column
                        .codes
                        .get(r)
                        .is_some_and(|&c| usize::from(c) == missing)
                })
                .fold(0.0, |total, (_, w)| total + w),
        )
    }

    /// Numeric `feature` as its bins, for searches that take only the histogram splitter's
    /// thresholds (the optimal search's). `sparse`: the column, when it is sparse.
    pub(crate) fn binned<'b>(
        &'b self,
        feature: usize,
        sparse: Option<&'b SparseColumn<'b>>,
    ) -> Option<BinnedColumn<'b>> {
        Some(BinnedColumn {
            column: self.column(feature)?,
            sparse,
        })
    }

    /// The threshold between non-empty bins `below` < `above` of `feature`: midway between
    /// the greatest training value of one and the least of the other.
    pub(super) fn threshold(&self, feature: usize, below: u8, above: u8) -> Option<f64> {
        let column = self.column(feature)?;
        Some(midpoint(
            *column.hi.get(below as usize)?,
            *column.lo.get(above as usize)?,
        ))
    }
}

/// Where a numeric test sends the rows of a bin.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    Left,
    Right,
    /// Each row by its value (the threshold lies within the bin's range).
    Value,
    /// The missing bin: by the node's missing-value rule.
    Missing,
}

/// Where a numeric test sends each bin of a dense column ([`Bins::sides`]).
pub(crate) struct Sides<'b> {
    codes: &'b [u8],
    side: [Side; 256],
    threshold: f64,
}

impl Sides<'_> {
    /// The child (0: left, 1: right) training row `row` goes to by its value, `value()`
    /// when its bin does not tell; `None` when the value is missing.
    #[inline]
    pub(crate) fn side(&self, row: usize, value: impl FnOnce() -> f64) -> Option<usize> {
        match self.side.get(usize::from(*self.codes.get(row)?))? {
            Side::Left => Some(0),
            Side::Right => Some(1),
            Side::Value => Some(usize::from(value() > self.threshold)),
            Side::Missing => None,
        }
    }
}

/// One numeric column's bins ([`Bins::binned`]).
pub(crate) struct BinnedColumn<'b> {
    column: &'b Binned,
    sparse: Option<&'b SparseColumn<'b>>,
}

impl BinnedColumn<'_> {
    /// Training row `row`'s bin; `None` when it misses the value.
    pub(crate) fn bin(&self, row: u32) -> Option<usize> {
        let missing = self.column.n_bins();
        self.column
            .code(row, self.sparse)
            .map(usize::from)
            .filter(|&b| b < missing)
    }

    /// Each bin's least and greatest training value (+inf and -inf for an empty bin).
    pub(crate) fn ranges(&self) -> (&[f64], &[f64]) {
        (&self.column.lo, &self.column.hi)
    }
}

/// A node's rows in ascending bin order of one feature ([`Bins::node_order`]).
pub(super) struct BinOrder {
    /// Positions (in the node's rows) of the known rows, bin by bin, each bin in position
    /// order.
    pub order: Vec<u32>,
    /// The bin of each entry of `order`.
    pub bin: Vec<u8>,
    /// Positions of the rows missing the feature.
    pub missing_positions: Vec<u32>,
}

/// Per-node histograms: for each usable numeric feature, per bin (the missing bin last) the
/// searcher's statistics (`stats_width` values) then the row count, in one flat buffer.
#[derive(Debug)]
pub(crate) struct Histograms {
    /// Where each feature's bins lie in `sums`; empty for a feature without a histogram.
    spans: Vec<Range<usize>>,
    sums: Vec<f64>,
    /// Values per bin: `stats_width + 1`.
    slots: usize,
    /// Each categorical feature's sums ([`Searcher::category_counts`]): integer counts, so a
    /// larger child's come by subtraction to the bit; empty or `None` where not counted.
    cats: Vec<Option<Categories>>,
}

impl Histograms {
    /// Where each feature's bins lie in one flat buffer (empty spans for features without a
    /// histogram: categorical or not `usable`), and the buffer's length.
    pub(crate) fn layout(bins: &Bins, usable: &[bool], slots: usize) -> (Vec<Range<usize>>, usize) {
        let mut spans = Vec::with_capacity(bins.columns.len());
        let mut len = 0;
        for (f, column) in bins.columns.iter().enumerate() {
            let size = match column {
                // `usable` has one flag per feature: the default is never read.
                Some(c) if usable.get(f).copied().unwrap_or(false) => (c.n_bins() + 1) * slots,
                _ => 0,
            };
            spans.push(len..len + size);
            len += size;
        }
        (spans, len)
    }

    /// Histograms from sums laid out by [`Self::layout`].
    pub(crate) fn from_sums(spans: Vec<Range<usize>>, sums: Vec<f64>, slots: usize) -> Self {
        Histograms {
            spans,
            sums,
            slots,
            cats: Vec::new(),
        }
    }

    /// `self` (a parent's) minus `child`'s, in place: the sibling's histograms when a binary
    /// split sent every row to exactly one child. Both must come from the same bins and
    /// usable features; a feature whose layouts differ is dropped from the result.
    pub(crate) fn subtract_from(mut self, child: &Histograms) -> Histograms {
        let slots = self.slots;
        let mine = std::mem::take(&mut self.cats).into_iter();
        self.cats = mine
            .zip(child.cats.iter())
            .map(|(parent, child)| parent?.subtract(child.as_ref()?))
            .collect();
        if self.spans == child.spans && slots == child.slots {
            subtract_bins(&mut self.sums, &child.sums, slots);
            return self;
        }
        for (f, span) in self.spans.iter_mut().enumerate() {
            let theirs = child.feature(f).filter(|_| child.slots == slots);
            match (self.sums.get_mut(span.clone()), theirs) {
                (Some(mine), Some(theirs)) if mine.len() == theirs.len() => {
                    subtract_bins(mine, theirs, slots);
                }
                _ => *span = span.start..span.start,
            }
        }
        self
    }

    /// Bytes held (the builder keeps parents' histograms only within a memory budget).
    pub(crate) fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + std::mem::size_of_val(self.sums.as_slice())
            + std::mem::size_of_val(self.spans.as_slice())
            + self
                .cats
                .iter()
                .flatten()
                .map(Categories::bytes)
                .sum::<usize>()
    }

    /// Categorical feature `f`'s sums, if they were counted with the histograms.
    pub(crate) fn categories(&self, f: usize) -> Option<&Categories> {
        self.cats.get(f)?.as_ref()
    }

    /// Feature `f`'s row count of each bin, the missing bin last: the codes a split's routing
    /// table reads (`stream::turns`).
    pub(crate) fn rows_by_code(&self, f: usize) -> Option<Vec<f64>> {
        let bins = self.feature(f)?.chunks_exact(self.slots);
        bins.map(|bin| bin.last().copied()).collect()
    }

    /// Feature `f`'s bins, if it has a histogram here.
    fn feature(&self, f: usize) -> Option<&[f64]> {
        let span = self.spans.get(f)?;
        if span.is_empty() {
            return None;
        }
        self.sums.get(span.clone())
    }
}

/// `parent −= child`, bin by bin; a bin left with no row is set to exact zeros rather than
/// the rounding residue of its sums. The usual bin widths (class counts of two classes, a
/// real target's three sums, each with the row count) have a loop of their own, which the
/// compiler unrolls.
fn subtract_bins(parent: &mut [f64], child: &[f64], slots: usize) {
    match slots {
        3 => subtract_fixed::<3>(parent, child),
        4 => subtract_fixed::<4>(parent, child),
        _ => {
            for (p, c) in parent
                .chunks_exact_mut(slots)
                .zip(child.chunks_exact(slots))
            {
                for (a, b) in p.iter_mut().zip(c) {
                    *a -= b;
                }
                if p.last().is_some_and(|&n| n < 0.5) {
                    p.fill(0.0);
                }
            }
        }
    }
}

/// [`subtract_bins`] with `S` slots a bin.
fn subtract_fixed<const S: usize>(parent: &mut [f64], child: &[f64]) {
    let (parent, _) = parent.as_chunks_mut::<S>();
    let (child, _) = child.as_chunks::<S>();
    for (p, c) in parent.iter_mut().zip(child) {
        for (a, b) in p.iter_mut().zip(c) {
            *a -= b;
        }
        if p.last().is_some_and(|&n| n < 0.5) {
            *p = [0.0; S];
        }
    }
}

/// A sparse feature's rows at a node as [`Searcher::fill_sparse`] counts them.
struct Part<'p> {
    /// The stored values at the node, in position order.
    entries: &'p [Entry],
    /// The bin of 0.0.
    zero: u8,
    /// The node's class weights when sums are exact ([`Searcher::exact_counts`]).
    exact: Option<&'p [f64]>,
}

/// A non-empty bin as the threshold scan sees it: rows that no threshold separates.
struct Group<'h> {
    stats: &'h [f64],
    rows: usize,
}

impl Sweep for [Group<'_>] {
    fn len(&self) -> usize {
        <[Group<'_>]>::len(self)
    }

    fn add<K: Kernel>(&self, _: K, i: usize, stats: &mut [f64], sign: f64) -> usize {
        let Some(g) = self.get(i) else {
            return 0;
        };
        for (s, x) in stats.iter_mut().zip(g.stats) {
            *s += sign * x;
        }
        g.rows
    }

    /// Adjacent non-empty bins always hold different values.
    /// Bins are distinct by construction: J48's 1e-5 does not apply to them.
    fn cut_after(&self, _: usize, _: f64) -> bool {
        true
    }
}

impl Searcher<'_, '_> {
    /// Histograms of the node's rows (with their fractional weights) for the usable numeric
    /// features, statistics accumulated with `self.accumulate` (so around `self.shift`).
    /// `stored` holds the node's sparse features' stored values in position order when the
    /// fit keeps them ([`Sorted`] of [`super::presort::Order::Position`]); without it they
    /// are looked up here.
    pub(crate) fn histograms(
        &self,
        bins: &Bins,
        rows: &NodeRows,
        usable: &[bool],
        stored: Option<&Sorted>,
    ) -> Histograms {
        let slots = self.target.stats_width() + 1;
        // Sums are of no use to absolute error, which scans rows by bin.
        let (spans, len) = if self.criterion.is_additive() {
            Histograms::layout(bins, usable, slots)
        } else {
            (vec![0..0; bins.columns.len()], 0)
        };
        // Out of memory: no histogram (the fit stops at its next check).
        let Some(mut sums) = self.vec(len) else {
            return Histograms {
                spans: vec![0..0; spans.len()],
                sums: Vec::new(),
                slots,
                cats: Vec::new(),
            };
        };
        sums.resize(len, 0.0);
        self.add_rows(bins, &spans, &mut sums, rows, stored, true);
        Histograms {
            spans,
            sums,
            slots,
            cats: self.category_counts(rows, usable),
        }
    }

    /// Adds `rows` to histograms laid out as [`Histograms::layout`] says (`sums`), feature by
    /// feature: a fit that sees its rows batch by batch adds each batch to the same sums, in
    /// the same order, as one that sees them at once. `stored` as [`Self::histograms`] takes.
    pub(crate) fn add_to_histograms(
        &self,
        bins: &Bins,
        spans: &[Range<usize>],
        sums: &mut [f64],
        rows: &NodeRows,
        stored: Option<&Sorted>,
    ) {
        self.add_rows(bins, spans, sums, rows, stored, false);
    }

    /// [`Self::add_to_histograms`]; `fresh`: the sums are all zero.
    fn add_rows(
        &self,
        bins: &Bins,
        spans: &[Range<usize>],
        sums: &mut [f64],
        rows: &NodeRows,
        stored: Option<&Sorted>,
        fresh: bool,
    ) {
        let slots = self.target.stats_width() + 1;
        let mut jobs: Vec<(usize, &Binned, &mut [f64])> = Vec::new();
        let mut rest = sums;
        for (f, (span, column)) in spans.iter().zip(&bins.columns).enumerate() {
            let Some((head, tail)) = std::mem::take(&mut rest).split_at_mut_checked(span.len())
            else {
                break;
            };
            rest = tail;
            if let (Some(column), false) = (column, head.is_empty()) {
                jobs.push((f, column, head));
            }
        }
        let exact = self.exact_counts(rows);
        let dense = jobs.iter().any(|(_, c, _)| c.zero.is_none());
        let stats = dense.then(|| RowStats::of(self, rows, fresh)).flatten();
        if self.stopped() {
            return;
        }
        let sparse = |(f, column, hist): (usize, &Binned, &mut [f64]), zero: u8| {
            let Some(Column::Sparse(c)) = self.data.columns().get(f) else {
                return;
            };
            let found;
            let entries = match stored.and_then(|s| s.stored(f)) {
                Some(entries) => entries,
                None => {
                    // Out of memory: no counts (the fit stops at its next check).
                    found = entries_at(c, rows, self.control).unwrap_or_default();
                    &found
                }
            };
            let part = Part {
                entries,
                zero,
                exact: exact.as_deref(),
            };
            self.fill_sparse(column, &part, hist, rows, slots);
        };
        // Dense columns in groups that one pass over the rows fills together (see
        // [`RowStats::fill`]): enough groups to keep every thread busy, few enough columns
        // in each that their histograms stay in a core's cache.
        let (dense, others): (Vec<_>, Vec<_>) =
            jobs.into_iter().partition(|(_, c, _)| c.zero.is_none());
        let threads = if rows.len() >= PARALLEL_ROWS {
            rayon::current_num_threads()
        } else {
            1
        };
        let size = dense.len().div_ceil(2 * threads).clamp(1, GROUP_COLUMNS);
        let mut groups: Vec<Vec<(usize, &Binned, &mut [f64])>> = Vec::new();
        let mut dense = dense.into_iter().peekable();
        while dense.peek().is_some() {
            groups.push(dense.by_ref().take(size).collect());
        }
        groups.extend(others.into_iter().map(|job| vec![job]));
        let fill = |group: Vec<(usize, &Binned, &mut [f64])>| {
            let mut coded: Vec<(&[u8], &mut [f64])> = Vec::with_capacity(group.len());
            for (f, column, hist) in group {
                match column.zero {
                    None => coded.push((&column.codes, hist)),
                    Some(zero) => sparse((f, column, hist), zero),
                }
            }
            if coded.is_empty()
                || stats
                    .as_ref()
                    .is_some_and(|s| s.fill(&mut coded, rows, slots))
            {
                return;
            }
            for (codes, hist) in coded {
                self.fill(codes, hist, rows, slots);
            }
        };
        if threads > 1 {
            groups.into_par_iter().for_each(fill);
        } else {
            groups.into_iter().for_each(fill);
        }
    }

    /// Adds the node's rows to one feature's bins.
    fn fill(&self, codes: &[u8], hist: &mut [f64], rows: &NodeRows, slots: usize) {
        for (r, w) in rows.iter() {
            let Some(&code) = codes.get(r) else {
                continue;
            };
            let at = code as usize * slots;
            if let Some((n, stats)) = hist
                .get_mut(at..at + slots)
                .and_then(<[f64]>::split_last_mut)
            {
                self.accumulate(stats, r, w);
                *n += 1.0;
            }
        }
    }

    /// Adds the node's rows to one sparse feature's bins: its stored values to theirs, its
    /// other rows to the zero's. With exact sums (see [`super::sparse`]) the zeros are added
    /// at once, as the node's statistics minus the stored values'; otherwise row by row, in
    /// the order the dense pass adds them, so that the sums keep the same bits.
    fn fill_sparse(
        &self,
        column: &Binned,
        part: &Part<'_>,
        hist: &mut [f64],
        rows: &NodeRows,
        slots: usize,
    ) {
        let mut add = |code: u8, r: usize, w: f64| {
            let at = code as usize * slots;
            if let Some((n, stats)) = hist
                .get_mut(at..at + slots)
                .and_then(<[f64]>::split_last_mut)
            {
                self.accumulate(stats, r, w);
                *n += 1.0;
            }
        };
        let code = |e: &Entry| column.codes.get(e.at as usize).copied();
        if let Some(whole) = part.exact {
            let mut rest = whole.to_vec();
            for e in part.entries {
                let i = e.pos as usize;
                if let (Some(&r), Some(w), Some(code)) = (rows.rows.get(i), rows.weight(i), code(e))
                {
                    add(code, r as usize, w);
                    self.accumulate(&mut rest, r as usize, -w);
                }
            }
            let n_zero = rows.len().saturating_sub(part.entries.len());
            let at = part.zero as usize * slots;
            if let (true, Some((n, stats))) = (
                n_zero > 0,
                hist.get_mut(at..at + slots)
                    .and_then(<[f64]>::split_last_mut),
            ) {
                stats.iter_mut().zip(&rest).for_each(|(s, x)| *s += x);
                *n += n_zero as f64;
            }
            return;
        }
        let mut next = part.entries.iter().peekable();
        for (i, (r, w)) in rows.iter().enumerate() {
            let code = match next.next_if(|e| e.pos as usize == i) {
                Some(e) => code(e),
                None => Some(part.zero),
            };
            if let Some(code) = code {
                add(code, r, w);
            }
        }
    }

    /// The best `x <= t` split of numeric `feature` from its histogram, by the rules of
    /// [`Searcher::numeric`] with each non-empty bin in place of a distinct value.
    pub(crate) fn numeric_hist(
        &self,
        feature: usize,
        bins: &Bins,
        hist: &Histograms,
        node_weight: f64,
    ) -> Option<Candidate> {
        let column = bins.column(feature)?;
        let sums = hist.feature(feature)?;
        let slots = hist.slots;
        let (values, missing_bin) = sums.split_at_checked(column.n_bins() * slots)?;
        let (&n_missing, missing) = missing_bin.split_last()?;
        let n_missing = n_missing as usize;
        // At most one entry a bin: no reallocation as they fill.
        let mut groups = Vec::with_capacity(column.n_bins());
        let mut at_bin = Vec::with_capacity(column.n_bins());
        for (b, bin) in values.chunks_exact(slots).enumerate() {
            if let Some((&n, stats)) = bin.split_last().filter(|(&n, _)| n >= 0.5) {
                groups.push(Group {
                    stats,
                    rows: n as usize,
                });
                at_bin.push(b);
            }
        }
        let n: usize = groups.iter().map(|g| g.rows).sum();
        if n < 2 && n_missing == 0 {
            return None;
        }
        let sign = self.constraint(feature);
        let scan = self.sweep(groups.as_slice(), n, missing, n_missing, node_weight, sign)?;
        let threshold = match at_bin.get(scan.at) {
            Some(&hi) => self.threshold(
                feature,
                *column.hi.get(*at_bin.get(scan.at.checked_sub(1)?)?)?,
                *column.lo.get(hi)?,
            ),
            None => KNOWN_VS_MISSING,
        };
        self.numeric_candidate(
            feature,
            threshold,
            groups.as_slice(),
            scan,
            missing,
            node_weight,
        )
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
mod tests {
    use super::*;
    use crate::data::CategoricalColumn;

    struct Rng(u64);

    impl Rng {
        fn unit(&mut self) -> f64 {
            (splitmix64(&mut self.0) >> 11) as f64 / (1u64 << 53) as f64
        }

        fn below(&mut self, n: usize) -> usize {
            ((self.unit() * n as f64) as usize).min(n.saturating_sub(1))
        }

        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len())]
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0) || (a.is_nan() && b.is_nan())
    }

    fn all_close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y))
    }

    /// The exact search of one numeric feature at a node, as `candidates` runs it.
    fn exact(s: &Searcher<'_, '_>, f: usize, node: &NodeRows, w: f64) -> Option<Candidate> {
        let columns = s.data.columns();
        s.numeric(f, |r| columns.number(f, r), node, w, None, None, None)
    }

    /// The searcher centred on the node's mean (as `candidates` centres it), and the node's
    /// weight.
    fn at_node<'a, 'd>(s: &Searcher<'a, 'd>, node: &NodeRows) -> (Searcher<'a, 'd>, f64) {
        let mut total = s.zero_stats();
        for (r, w) in node.iter() {
            s.target.accumulate(&mut total, r, w);
        }
        let weight = s.weight_of(&total);
        (
            s.centred_on(total.get(1).copied().unwrap_or(0.0) / weight),
            weight,
        )
    }

    /// `scale`: the criterion's noise scale at the node (scores are compared to 1e-9 of it).
    fn assert_same(exact: &Option<Candidate>, hist: &Option<Candidate>, scale: f64, context: &str) {
        let near = |a: f64, b: f64| close(a, b) || (a - b).abs() <= 1e-9 * scale;
        match (exact, hist) {
            (None, None) => {}
            // C4.5's correction drops a gain that is not positive: a zero gain, rounded in a
            // different order, may land on either side.
            (Some(c), None) | (None, Some(c)) if c.score.gain.abs() < 1e-12 => {}
            (Some(a), Some(b)) => {
                let ok = a.feature == b.feature
                    && a.rule == b.rule
                    && a.placed == b.placed
                    && near(a.score.score, b.score.score)
                    && near(a.score.gain, b.score.gain)
                    && close(a.score.iv, b.score.iv)
                    && close(a.score.rho, b.score.rho)
                    && a.score.threshold.to_bits() == b.score.threshold.to_bits()
                    && all_close(&a.fractions, &b.fractions)
                    && a.children.len() == b.children.len()
                    && a.children
                        .iter()
                        .zip(&b.children)
                        .all(|(x, y)| all_close(x, y));
                assert!(ok, "{context}\nexact {a:#?}\nhist {b:#?}");
            }
            _ => panic!("{context}\nexact {exact:#?}\nhist {hist:#?}"),
        }
    }

    /// Compares the histogram search with the exact one on every numeric feature at `node`;
    /// returns how many features found a split.
    fn compare(
        data: &Dataset<'_>,
        target: &Target<'_>,
        params: &TreeParams,
        node: &NodeRows,
    ) -> usize {
        let total_weight = node.iter().map(|(_, w)| w).sum::<f64>() * 1.3;
        let searcher = Searcher::new(data, target, params, total_weight);
        let (s, w) = at_node(&searcher, node);
        let bins = Bins::new(data, MAX_BINS, None).unwrap();
        let usable = vec![true; data.n_features()];
        let hist = s.histograms(&bins, node, &usable, None);
        let ranks = s.ranks(node).filter(|_| !params.criterion.is_additive());
        let prepared = Prepared::Hist {
            bins: &bins,
            hist: &hist,
        };
        let mut found = 0;
        for (f, column) in data.columns().iter().enumerate() {
            if let Column::Numeric(_) = column {
                let a = exact(&s, f, node, w);
                let facts = NodeFacts {
                    ranks: ranks.as_ref(),
                    exact: None,
                    facts: None,
                    bytes: None,
                };
                let b = s.best_of_feature(f, node, w, data.columns(), prepared, facts);
                let context = format!(
                    "feature {f}, {:?}, {:?}, min_leaf {}, min_objects {}, correction {}",
                    params.criterion,
                    params.missing,
                    params.min_samples_leaf,
                    params.min_objects,
                    params.numeric_gain_correction
                );
                let mut total = s.zero_stats();
                for (r, w) in node.iter() {
                    s.accumulate(&mut total, r, w);
                }
                assert_same(&a, &b, params.criterion.noise_scale(&total), &context);
                found += usize::from(a.is_some());
            } else {
                assert!(s.numeric_hist(f, &bins, &hist, w).is_none());
            }
        }
        found
    }

    /// A numeric column of few distinct values (both signs of zero among them), with missing
    /// values at `nan_rate`.
    fn few_values(rng: &mut Rng, n: usize, nan_rate: f64) -> Vec<f64> {
        let levels = 1 + rng.below(30);
        let scale = rng.pick(&[1.0, 0.1, 1e3, -7.5, 1e-7]);
        (0..n)
            .map(|_| {
                if rng.unit() < nan_rate {
                    return f64::NAN;
                }
                let x = (rng.below(levels) as f64 - 3.0) * scale;
                if x == 0.0 && rng.unit() < 0.5 {
                    -x
                } else {
                    x
                }
            })
            .collect()
    }

    /// A random node: a subset of the rows, some weights fractional (C4.5's fragments).
    fn random_node(rng: &mut Rng, weights: &[f64]) -> NodeRows {
        let keep = rng.pick(&[1.0, 0.7, 0.3]);
        let mut node = NodeRows::default();
        for (r, &w) in weights.iter().enumerate() {
            if rng.unit() < keep {
                let fragment = if rng.unit() < 0.2 {
                    rng.unit() * 0.9 + 0.05
                } else {
                    1.0
                };
                node.push(r as u32, w * fragment);
            }
        }
        node
    }

    fn random_params(rng: &mut Rng, criterion: Criterion) -> TreeParams {
        TreeParams {
            criterion,
            min_samples_leaf: rng.pick(&[1, 1, 2, 5]),
            // Not a weight a side can have exactly: at a tie the two searches' sums, rounded
            // in different orders, may fall on either side of the bound.
            min_objects: rng.pick(&[0.0, 1.7]),
            numeric_gain_correction: rng.unit() < 0.3,
            min_weight_fraction_leaf: rng.pick(&[0.0, 0.0, 0.03]),
            missing: rng.pick(&[
                MissingStrategy::Fractional,
                MissingStrategy::Learned,
                MissingStrategy::Separate,
                MissingStrategy::MajorityBranch,
            ]),
            ..TreeParams::default()
        }
    }

    #[test]
    fn agrees_with_exact_search_on_random_classification() {
        let mut rng = Rng(1);
        let mut found = 0;
        for case in 0..400 {
            let n = 2 + rng.below(120);
            let nan_rate = rng.pick(&[0.0, 0.0, 0.15, 0.5]);
            let n_classes = rng.pick(&[2, 2, 3]);
            let columns: Vec<Vec<f64>> =
                (0..3).map(|_| few_values(&mut rng, n, nan_rate)).collect();
            let cats: Vec<u32> = (0..n).map(|_| rng.below(3) as u32).collect();
            // Classes follow the first column, with noise, so that splits have a point.
            let classes: Vec<u32> = columns[0]
                .iter()
                .map(|&x| {
                    if rng.unit() < 0.3 {
                        rng.below(n_classes) as u32
                    } else {
                        u32::from(x > 0.0) + u32::from(n_classes == 3 && x > 5.0)
                    }
                })
                .collect();
            let weights: Vec<f64> = if rng.unit() < 0.5 {
                vec![1.0; n]
            } else {
                (0..n).map(|_| 0.1 + rng.unit() * 2.0).collect()
            };
            let mut cols: Vec<Column<'_>> = columns.iter().map(|c| Column::numeric(c)).collect();
            cols.insert(
                1,
                Column::Categorical(CategoricalColumn {
                    codes: &cats,
                    missing_mask: None,
                    n_categories: 3,
                    ordered: false,
                }),
            );
            let data = Dataset::new(cols).unwrap();
            let target = Target::Classes {
                codes: &classes,
                n_classes,
            };
            let mut criteria = vec![
                Criterion::Entropy,
                Criterion::GainRatio,
                Criterion::Gini,
                Criterion::Misclassification,
                Criterion::LikelihoodRatio,
                Criterion::Distance,
                Criterion::Twoing,
                Criterion::Ort,
                Criterion::KolmogorovSmirnov,
            ];
            if n_classes == 2 {
                criteria.extend([Criterion::Auc, Criterion::Dkm]);
            }
            let criterion = rng.pick(&criteria);
            let params = random_params(&mut rng, criterion);
            let node = random_node(&mut rng, &weights);
            if node.len() == 0 {
                continue;
            }
            let _ = case;
            found += compare(&data, &target, &params, &node);
        }
        assert!(found > 300, "only {found} splits compared");
    }

    #[test]
    fn agrees_with_exact_search_on_random_regression() {
        let mut rng = Rng(2);
        let mut found = 0;
        for _ in 0..300 {
            let n = 2 + rng.below(120);
            let nan_rate = rng.pick(&[0.0, 0.0, 0.15, 0.5]);
            let columns: Vec<Vec<f64>> =
                (0..3).map(|_| few_values(&mut rng, n, nan_rate)).collect();
            let criterion = rng.pick(&[
                Criterion::SquaredError,
                Criterion::FriedmanMse,
                Criterion::AbsoluteError,
                Criterion::Poisson,
            ]);
            // Poisson needs y ≥ 0.
            let offset = match criterion {
                Criterion::Poisson => rng.pick(&[4.0, 1e6]),
                _ => rng.pick(&[0.0, 1e6, -3.0]),
            };
            let y: Vec<f64> = columns[0]
                .iter()
                .zip(&columns[2])
                .map(|(&a, &b)| {
                    offset
                        + if a.is_nan() { 1.0 } else { a.signum() * 3.0 }
                        + if b.is_nan() { 0.0 } else { b * 0.01 }
                        + rng.unit()
                })
                .collect();
            let weights: Vec<f64> = if rng.unit() < 0.5 {
                vec![1.0; n]
            } else {
                (0..n).map(|_| 0.1 + rng.unit() * 2.0).collect()
            };
            let data = Dataset::new(columns.iter().map(|c| Column::numeric(c)).collect()).unwrap();
            let target = Target::Values(&y);
            let params = random_params(&mut rng, criterion);
            let node = random_node(&mut rng, &weights);
            if node.len() == 0 {
                continue;
            }
            found += compare(&data, &target, &params, &node);
        }
        assert!(found > 300, "only {found} splits compared");
    }

    /// Watermelon 3.0 (text 000 table 4.3): density, sugar, and a categorical texture.
    const DENSITY: [f64; 17] = [
        0.697, 0.774, 0.634, 0.608, 0.556, 0.403, 0.481, 0.437, 0.666, 0.243, 0.245, 0.343, 0.639,
        0.657, 0.360, 0.593, 0.719,
    ];
    #[allow(clippy::approx_constant)] // 0.318 is a melon's sugar, not 1/π
    const SUGAR: [f64; 17] = [
        0.460, 0.376, 0.264, 0.318, 0.215, 0.237, 0.149, 0.211, 0.091, 0.267, 0.057, 0.099, 0.161,
        0.198, 0.370, 0.042, 0.103,
    ];
    /// clear = 0, slightly blurry = 1, blurry = 2.
    const TEXTURE: [u32; 17] = [0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 2, 2, 1, 1, 0, 2, 1];
    /// Ripe = 1 for the first eight.
    const RIPE: [u32; 17] = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];

    #[test]
    fn watermelon_root_thresholds_as_the_text() {
        let data = Dataset::new(vec![
            Column::numeric(&DENSITY),
            Column::Categorical(CategoricalColumn {
                codes: &TEXTURE,
                missing_mask: None,
                n_categories: 3,
                ordered: false,
            }),
            Column::numeric(&SUGAR),
        ])
        .unwrap();
        let target = Target::Classes {
            codes: &RIPE,
            n_classes: 2,
        };
        let params = TreeParams {
            criterion: Criterion::Entropy,
            ..TreeParams::default()
        };
        let node = NodeRows::each((0..17).collect(), vec![1.0; 17]);
        let s = Searcher::new(&data, &target, &params, 17.0);
        let bins = Bins::new(&data, MAX_BINS, None).unwrap();
        let hist = s.histograms(&bins, &node, &[true; 3], None);
        // Text 000: Gain(D, density) = 0.262 at 0.381, Gain(D, sugar) = 0.349 at 0.126.
        let density = s.numeric_hist(0, &bins, &hist, 17.0).unwrap();
        let sugar = s.numeric_hist(2, &bins, &hist, 17.0).unwrap();
        assert!((density.score.threshold - 0.3815).abs() < 1e-12);
        assert!((density.score.gain - 0.262).abs() < 1e-3);
        assert!((sugar.score.threshold - 0.126).abs() < 1e-12);
        assert!((sugar.score.gain - 0.349).abs() < 1e-3);
        assert!(s.numeric_hist(1, &bins, &hist, 17.0).is_none());
        for criterion in [Criterion::Entropy, Criterion::GainRatio, Criterion::Gini] {
            for missing in [MissingStrategy::Fractional, MissingStrategy::Learned] {
                let params = TreeParams {
                    criterion,
                    missing,
                    numeric_gain_correction: criterion == Criterion::GainRatio,
                    ..TreeParams::default()
                };
                assert_eq!(compare(&data, &target, &params, &node), 2);
            }
        }
    }

    #[test]
    fn watermelon_with_missing_values_at_a_child() {
        let mut density = DENSITY;
        let mut sugar = SUGAR;
        for r in [0, 5, 11] {
            density[r] = f64::NAN;
        }
        for r in [3, 8, 11, 14] {
            sugar[r] = f64::NAN;
        }
        let data = Dataset::new(vec![Column::numeric(&density), Column::numeric(&sugar)]).unwrap();
        let target = Target::Classes {
            codes: &RIPE,
            n_classes: 2,
        };
        // The root, then the clear-texture child with rows of a C4.5 split's fragments.
        let root = NodeRows::each((0..17).collect(), vec![1.0; 17]);
        let mut child = NodeRows::default();
        for r in 0..17u32 {
            let w = match TEXTURE[r as usize] {
                0 => 1.0,
                1 if r % 2 == 0 => 0.4,
                _ => continue,
            };
            child.push(r, w);
        }
        for criterion in [Criterion::Entropy, Criterion::GainRatio, Criterion::Gini] {
            for missing in [
                MissingStrategy::Fractional,
                MissingStrategy::Learned,
                MissingStrategy::Separate,
            ] {
                let params = TreeParams {
                    criterion,
                    missing,
                    numeric_gain_correction: criterion == Criterion::GainRatio,
                    ..TreeParams::default()
                };
                assert!(compare(&data, &target, &params, &root) >= 1);
                compare(&data, &target, &params, &child);
            }
        }
    }

    #[test]
    fn larger_child_by_subtraction() {
        let mut rng = Rng(3);
        for case in 0..60 {
            let n = 50 + rng.below(400);
            let columns: Vec<Vec<f64>> = (0..4)
                .map(|j| {
                    if j == 3 {
                        (0..n)
                            .map(|_| {
                                if rng.unit() < 0.2 {
                                    f64::NAN
                                } else {
                                    rng.unit()
                                }
                            })
                            .collect()
                    } else {
                        few_values(&mut rng, n, 0.1)
                    }
                })
                .collect();
            let classes: Vec<u32> = (0..n).map(|_| rng.below(3) as u32).collect();
            let y: Vec<f64> = (0..n).map(|_| 100.0 + rng.unit()).collect();
            let weights: Vec<f64> = (0..n).map(|_| 0.5 + rng.unit()).collect();
            let data = Dataset::new(columns.iter().map(|c| Column::numeric(c)).collect()).unwrap();
            let target = if case % 2 == 0 {
                Target::Classes {
                    codes: &classes,
                    n_classes: 3,
                }
            } else {
                Target::Values(&y)
            };
            let params = TreeParams {
                criterion: if case % 2 == 0 {
                    Criterion::Entropy
                } else {
                    Criterion::SquaredError
                },
                missing: if case % 3 == 0 {
                    MissingStrategy::Learned
                } else {
                    MissingStrategy::Fractional
                },
                ..TreeParams::default()
            };
            let parent = random_node(&mut rng, &weights);
            // Every row to exactly one child (a split on a value, missing rows placed).
            let (mut left, mut right) = (NodeRows::default(), NodeRows::default());
            for (r, w) in parent.iter() {
                let x = columns[1][r];
                let side = if x.is_nan() {
                    &mut right
                } else if x <= 0.5 {
                    &mut left
                } else {
                    &mut right
                };
                side.push(r as u32, w);
            }
            let searcher = Searcher::new(&data, &target, &params, 1000.0);
            // One shift for the parent and both children, as subtraction requires.
            let (s, _) = at_node(&searcher, &parent);
            let bins = Bins::new(&data, 16 + rng.below(240), None).unwrap();
            let usable = [true; 4];
            let from_parent = s.histograms(&bins, &parent, &usable, None);
            let bytes = from_parent.bytes();
            assert!(bytes >= from_parent.sums.len() * 8);
            let derived = from_parent.subtract_from(&s.histograms(&bins, &left, &usable, None));
            let direct = s.histograms(&bins, &right, &usable, None);
            assert_eq!(derived.spans, direct.spans);
            let scale = direct.sums.iter().fold(1.0f64, |m, x| m.max(x.abs()));
            for (bin_d, bin_r) in derived
                .sums
                .chunks_exact(derived.slots)
                .zip(direct.sums.chunks_exact(direct.slots))
            {
                assert_eq!(bin_d.last(), bin_r.last(), "row counts are exact");
                for (a, b) in bin_d.iter().zip(bin_r) {
                    assert!((a - b).abs() <= 1e-9 * scale, "{a} vs {b}");
                }
            }
            // The derived histograms choose the split the direct ones choose.
            let mut total = s.zero_stats();
            for (r, w) in right.iter() {
                s.target.accumulate(&mut total, r, w);
            }
            let w = s.weight_of(&total);
            for f in 0..4 {
                let a = s.numeric_hist(f, &bins, &direct, w);
                let b = s.numeric_hist(f, &bins, &derived, w);
                assert_eq!(a.is_some(), b.is_some());
                if let (Some(a), Some(b)) = (a, b) {
                    assert_eq!(a.rule, b.rule);
                    assert!(close(a.score.gain, b.score.gain));
                }
            }
        }
    }

    #[test]
    fn larger_childs_category_counts_by_subtraction() {
        let mut rng = Rng(11);
        for case in 0..40 {
            let n = 50 + rng.below(600);
            let k = 1 + rng.below(if case % 2 == 0 { 5 } else { 300 });
            let codes: Vec<u32> = (0..n).map(|_| rng.below(k) as u32).collect();
            let missing: Vec<bool> = (0..n).map(|_| rng.unit() < 0.15).collect();
            let x = few_values(&mut rng, n, 0.1);
            let classes: Vec<u32> = (0..n).map(|_| rng.below(3) as u32).collect();
            let data = Dataset::new(vec![
                Column::numeric(&x),
                Column::Categorical(CategoricalColumn {
                    codes: &codes,
                    missing_mask: Some(&missing),
                    n_categories: k as u32,
                    ordered: case % 3 == 0,
                }),
            ])
            .unwrap();
            let target = Target::Classes {
                codes: &classes,
                n_classes: 3,
            };
            let params = TreeParams {
                criterion: Criterion::Gini,
                missing: MissingStrategy::Learned,
                ..TreeParams::default()
            };
            let s = Searcher::new(&data, &target, &params, n as f64);
            let bins = Bins::new(&data, MAX_BINS, None).unwrap();
            let usable = [true, true];
            let picked = random_node(&mut rng, &vec![1.0; n]);
            let parent = NodeRows::same(picked.rows, 1.0);
            let (mut left, mut right) = (NodeRows::default(), NodeRows::default());
            for (r, w) in parent.iter() {
                let side = if rng.unit() < 0.3 {
                    &mut left
                } else {
                    &mut right
                };
                side.push(r as u32, w);
            }
            let derived = s
                .histograms(&bins, &parent, &usable, None)
                .subtract_from(&s.histograms(&bins, &left, &usable, None));
            let direct = s.histograms(&bins, &right, &usable, None);
            let sums = |h: &Histograms| {
                let mut out = Vec::new();
                h.categories(1).expect("counted").write_to(&mut out);
                out
            };
            // To the bit, as the search would count them itself.
            assert_eq!(sums(&derived), sums(&direct));
            let codes_of = right
                .rows
                .iter()
                .map(|&r| data.columns().code(1, r as usize));
            let mut counted = Vec::new();
            s.per_category(codes_of, k, &right).write_to(&mut counted);
            assert_eq!(sums(&direct), counted);
            assert!(
                derived.categories(0).is_none(),
                "a numeric feature has none"
            );
            // Rows of other weights are summed, not counted: the search sums them itself.
            let weighted = NodeRows::same(right.rows.clone(), 0.5);
            assert!(s
                .histograms(&bins, &weighted, &usable, None)
                .categories(1)
                .is_none());
        }
    }

    #[test]
    fn subtraction_drops_features_whose_layouts_differ() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let z = [4.0, 3.0, 2.0, 1.0];
        let classes = [0, 0, 1, 1];
        let data = Dataset::new(vec![Column::numeric(&x), Column::numeric(&z)]).unwrap();
        let target = Target::Classes {
            codes: &classes,
            n_classes: 2,
        };
        let params = TreeParams::default();
        let s = Searcher::new(&data, &target, &params, 4.0);
        let bins = Bins::new(&data, MAX_BINS, None).unwrap();
        let parent = NodeRows::each(vec![0, 1, 2, 3], vec![1.0; 4]);
        let child = NodeRows::each(vec![0, 1], vec![1.0; 2]);
        let derived = s
            .histograms(&bins, &parent, &[true, true], None)
            .subtract_from(&s.histograms(&bins, &child, &[false, true], None));
        assert!(derived.feature(0).is_none());
        let direct = s.histograms(
            &bins,
            &NodeRows::each(vec![2, 3], vec![1.0; 2]),
            &[true, true],
            None,
        );
        assert_eq!(derived.feature(1), direct.feature(1));
    }

    #[test]
    fn many_values_split_at_bin_edges() {
        let mut rng = Rng(4);
        let n = 5000;
        let max_bins = 32;
        let x: Vec<f64> = (0..n)
            .map(|_| {
                if rng.unit() < 0.1 {
                    f64::NAN
                } else {
                    (rng.unit() * 1e6).round() / 1e3
                }
            })
            .collect();
        let u: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
        let classes: Vec<u32> = x
            .iter()
            .map(|&v| u32::from(v > 377.0) ^ u32::from(rng.unit() < 0.1))
            .collect();
        let data = Dataset::new(vec![Column::numeric(&x), Column::numeric(&u)]).unwrap();
        let target = Target::Classes {
            codes: &classes,
            n_classes: 2,
        };
        let bins = Bins::new(&data, max_bins, None).unwrap();
        let column = bins.column(0).unwrap();
        assert_eq!(column.n_bins(), max_bins);
        // Bins are ordered, disjoint, hold their rows' values and about n/max_bins rows each.
        let mut counts = vec![0usize; max_bins + 1];
        for (&v, &code) in x.iter().zip(&column.codes) {
            counts[code as usize] += 1;
            if v.is_nan() {
                assert_eq!(code as usize, max_bins);
            } else {
                assert!(column.lo[code as usize] <= v && v <= column.hi[code as usize]);
            }
        }
        for b in 1..max_bins {
            assert!(column.hi[b - 1] < column.lo[b]);
        }
        let known = x.iter().filter(|v| !v.is_nan()).count();
        let share = known / max_bins;
        assert!(
            counts[..max_bins]
                .iter()
                .all(|&c| c >= share / 2 && c <= share * 2),
            "{counts:?}"
        );
        // The root sees every bin: its threshold is a bin edge. A child, possibly not.
        let params = TreeParams {
            criterion: Criterion::Entropy,
            ..TreeParams::default()
        };
        let searcher = Searcher::new(&data, &target, &params, n as f64);
        let root = NodeRows::each((0..n as u32).collect(), vec![1.0; n]);
        let child = NodeRows::each(
            (0..n as u32).filter(|&r| u[r as usize] > 0.5).collect(),
            (0..n)
                .filter(|&r| u[r] > 0.5)
                .map(|r| 1.0 + (r % 3) as f64)
                .collect(),
        );
        let edges: Vec<f64> = (1..max_bins)
            .map(|b| midpoint(column.hi[b - 1], column.lo[b]))
            .collect();
        for (node, at_root) in [(&root, true), (&child, false)] {
            let (s, w) = at_node(&searcher, node);
            let hist = s.histograms(&bins, node, &[true, true], None);
            let c = s.numeric_hist(0, &bins, &hist, w).unwrap();
            let t = c.score.threshold;
            if at_root {
                assert!(edges.contains(&t), "{t} is no edge");
            }
            // The raw values route the node's rows as their bins do.
            let b = column.codes[node
                .rows
                .iter()
                .map(|&r| r as usize)
                .find(|&r| x[r] <= t)
                .unwrap()];
            let last_left = node
                .rows
                .iter()
                .map(|&r| r as usize)
                .filter(|&r| x[r] <= t)
                .map(|r| column.codes[r])
                .max()
                .unwrap();
            assert!(b <= last_left);
            for &r in &node.rows {
                let (v, code) = (x[r as usize], column.codes[r as usize]);
                if !v.is_nan() {
                    assert_eq!(v <= t, code <= last_left, "row {r}: {v} vs {t}");
                }
            }
            // The split's children are those the rows make.
            let mut left = s.zero_stats();
            for (r, w) in node.iter() {
                if x[r] <= t {
                    s.accumulate(&mut left, r, w);
                }
            }
            assert!(all_close(&left, &c.children[0]));
        }
    }

    #[test]
    fn locator_counts_the_edges_below() {
        let mut rng = Rng(8);
        for n_edges in [0, 1, 2, 3, 100, 254] {
            for shape in 0..4 {
                let draw = |rng: &mut Rng| match shape {
                    0 => rng.unit(),
                    1 => rng.unit().powi(8) * 1e6,
                    2 => (rng.unit() - 0.5) * 1e300,
                    _ => (rng.below(5) as f64) * 1e-300,
                };
                let mut sample: Vec<f64> = (0..1000).map(|_| draw(&mut rng)).collect();
                sample.sort_by(f64::total_cmp);
                let mut edges: Vec<f64> = (0..n_edges).map(|_| draw(&mut rng)).collect();
                edges.sort_by(f64::total_cmp);
                let locate = Locator::new(&edges, sample.first(), sample.last());
                let probes = edges
                    .iter()
                    .chain(&sample)
                    .copied()
                    .chain([-1e308, 1e308, 0.0, -0.0])
                    .chain(edges.iter().map(|e| e.next_up()));
                for x in probes {
                    let expected = edges.partition_point(|&e| e < x);
                    assert_eq!(
                        locate.bin(x),
                        expected,
                        "{n_edges} edges, shape {shape}, {x}"
                    );
                }
            }
        }
    }

    #[test]
    fn sorts_as_total_cmp() {
        let mut rng = Rng(9);
        let mut values: Vec<f64> = (0..1000)
            .map(|_| (rng.unit() - 0.5) * 10f64.powi(rng.below(600) as i32 - 300))
            .chain([0.0, -0.0, f64::MAX, f64::MIN, 5e-324, -5e-324, 1.0, 1.0])
            .collect();
        let ours = sorted(values.clone());
        values.sort_by(f64::total_cmp);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&ours), bits(&values));
    }

    #[test]
    fn quantiles_give_a_heavy_value_its_own_bin() {
        let mut rng = Rng(5);
        let x: Vec<f64> = (0..4000)
            .map(|i| if i % 2 == 0 { 0.25 } else { rng.unit() })
            .collect();
        let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
        let bins = Bins::new(&data, 20, None).unwrap();
        let column = bins.column(0).unwrap();
        assert!(
            column.n_bins() >= 18 && column.n_bins() <= 20,
            "{}",
            column.n_bins()
        );
        let b = column.codes[0] as usize;
        assert_eq!((column.lo[b], column.hi[b]), (0.25, 0.25));
    }

    #[test]
    fn degenerate_columns() {
        let nan = [f64::NAN; 5];
        let one = [2.0; 5];
        let signed_zeros = [0.0, -0.0, 0.0, -0.0, 1.0];
        let classes = [0, 1, 0, 1, 1];
        let data = Dataset::new(vec![
            Column::numeric(&nan),
            Column::numeric(&one),
            Column::numeric(&signed_zeros),
        ])
        .unwrap();
        let target = Target::Classes {
            codes: &classes,
            n_classes: 2,
        };
        for max_bins in [0, 2, 1000] {
            let bins = Bins::new(&data, max_bins, None).unwrap();
            assert_eq!(bins.column(0).unwrap().codes, vec![1; 5]);
            assert_eq!(bins.column(1).unwrap().n_bins(), 1);
            assert_eq!(bins.column(2).unwrap().codes, vec![0, 0, 0, 0, 1]);
        }
        let node = NodeRows::each((0..5).collect(), vec![1.0; 5]);
        for missing in [MissingStrategy::Fractional, MissingStrategy::Learned] {
            let params = TreeParams {
                missing,
                ..TreeParams::default()
            };
            assert_eq!(compare(&data, &target, &params, &node), 1);
        }
    }

    /// Samples long enough to sort by radix come out as `total_cmp` orders them.
    #[test]
    fn samples_sort_as_total_cmp() {
        let mut rng = Rng(11);
        for n in [0, 1, 2, RADIX_SORTED, 10_000] {
            for shape in 0..4 {
                let values: Vec<f64> = (0..n)
                    .map(|_| {
                        let x = (rng.unit() - 0.3) * 1e3;
                        match shape {
                            0 => x,
                            1 => f64::from(x as f32),
                            2 => (x / 100.0).round() * 0.0,
                            _ => f64::from_bits(splitmix64(&mut rng.0) >> 2),
                        }
                    })
                    .collect();
                let mut expected = values.clone();
                expected.sort_by(f64::total_cmp);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&sorted(values)), bits(&expected));
            }
        }
    }

    #[test]
    fn long_columns_are_sampled_deterministically() {
        let mut rng = Rng(6);
        let n = SAMPLE + 50_000;
        let x: Vec<f64> = (0..n)
            .map(|_| {
                if rng.unit() < 0.1 {
                    f64::NAN
                } else {
                    rng.unit().powi(3)
                }
            })
            .collect();
        let data = Dataset::new(vec![Column::numeric(&x), Column::numeric(&x)]).unwrap();
        let bins = Bins::new(&data, MAX_BINS, None).unwrap();
        let (a, b) = (bins.column(0).unwrap(), bins.column(1).unwrap());
        assert_eq!(a.n_bins(), MAX_BINS);
        assert_eq!(
            a.codes,
            Bins::new(&data, MAX_BINS, None)
                .unwrap()
                .column(0)
                .unwrap()
                .codes
        );
        // One sample of rows serves every column, so equal columns get equal bins.
        assert_eq!(a.lo, b.lo);
        for column in [a, b] {
            for (&v, &code) in x.iter().zip(&column.codes) {
                if v.is_nan() {
                    assert_eq!(code as usize, MAX_BINS);
                } else {
                    assert!(column.lo[code as usize] <= v && v <= column.hi[code as usize]);
                }
            }
        }
    }

    /// `cargo test --release -p quercus-core hist::tests::speed -- --ignored --nocapture`
    /// (each figure the fastest of five runs: the timings of a shared machine vary).
    #[test]
    #[ignore = "a benchmark"]
    fn speed() {
        use std::time::{Duration, Instant};
        fn fastest<T>(mut run: impl FnMut() -> T) -> (Duration, T) {
            let mut best = (Duration::MAX, None);
            for _ in 0..5 {
                let t = Instant::now();
                let out = run();
                let took = t.elapsed();
                if took < best.0 {
                    best = (took, Some(out));
                }
            }
            (best.0, best.1.unwrap())
        }
        let mut rng = Rng(7);
        let (n, d) = (1_000_000, 20);
        let columns: Vec<Vec<f64>> = (0..d)
            .map(|_| (0..n).map(|_| rng.unit()).collect())
            .collect();
        let classes: Vec<u32> = columns[0].iter().map(|&x| u32::from(x > 0.3)).collect();
        let y: Vec<f64> = columns[0].iter().map(|&x| x * 3.0 + 1.0).collect();
        let data = Dataset::new(columns.iter().map(|c| Column::numeric(c)).collect()).unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (took, bins) = fastest(|| Bins::new(&data, MAX_BINS, None).unwrap());
        println!("Bins::new ({n} rows × {d}), all threads: {took:?}");
        let (took, _) = one.install(|| fastest(|| Bins::new(&data, MAX_BINS, None).unwrap()));
        println!("Bins::new, one thread: {took:?}");
        let root = NodeRows::each((0..n as u32).collect(), vec![1.0; n]);
        let half_rows: Vec<u32> = (0..n as u32)
            .filter(|&r| columns[1][r as usize] < 0.5)
            .collect();
        let half = NodeRows::same(half_rows, 1.0);
        let usable = vec![true; d];
        for (name, target, criterion) in [
            (
                "2 classes",
                Target::Classes {
                    codes: &classes,
                    n_classes: 2,
                },
                Criterion::Gini,
            ),
            ("regression", Target::Values(&y), Criterion::SquaredError),
        ] {
            let params = TreeParams {
                criterion,
                ..TreeParams::default()
            };
            let s = Searcher::new(&data, &target, &params, n as f64);
            for (what, node) in [("root", &root), ("a random half", &half)] {
                one.install(|| {
                    let (build, h) = fastest(|| s.histograms(&bins, node, &usable, None));
                    let w = node.len() as f64;
                    let (search, c) = fastest(|| {
                        (0..d)
                            .map(|f| s.numeric_hist(f, &bins, &h, w))
                            .collect::<Vec<_>>()
                    });
                    assert!(c.iter().all(Option::is_some));
                    let bytes = h.bytes();
                    let other = s.histograms(&bins, node, &usable, None);
                    let t = Instant::now();
                    let _ = h.subtract_from(&other);
                    let subtract = t.elapsed();
                    println!(
                        "{name}, {what} ({} rows), one thread: histograms {build:?}, \
                         numeric_hist × {d} {search:?}, subtract {subtract:?}, {} KB",
                        node.len(),
                        bytes / 1024
                    );
                });
            }
            let (took, _) = fastest(|| s.histograms(&bins, &root, &usable, None));
            println!("{name}, root, all threads: histograms {took:?}");
        }
    }
}
