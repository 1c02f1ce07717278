//! What a threshold scan walks: rows (or bins) in ascending value order. The exact search's
//! known rows ([`Known`]), its sorted lists, the sparse columns' gaps and the histograms'
//! bins each offer it as a [`Sweep`].

use super::kernel::Kernel;

/// A known row of a node as the threshold scan reads it: its value, weight and target (class
/// code or y) side by side, so the scan walks memory in order instead of hopping through the
/// row, weight and target arrays (the hops dominated the time on large data).
#[derive(Debug, Clone, Copy)]
pub(super) struct Known {
    pub(super) x: f64,
    pub(super) w: f64,
    /// [`crate::data::Target::label`].
    pub(super) label: u64,
}

/// Rows in ascending value order as the threshold scan walks them: the known rows one by one
/// (exact search) or the non-empty bins (histogram search, [`super::hist`]).
pub(super) trait Sweep {
    fn len(&self) -> usize;
    /// Adds item `i` to `stats` with its weight times `sign` (±1), a row as `kernel` adds
    /// it; returns its rows.
    fn add<K: Kernel>(&self, kernel: K, i: usize, stats: &mut [f64], sign: f64) -> usize;
    /// Whether a threshold may fall between item `i` and the next: their values differ by
    /// more than `gap` (0: distinct values).
    fn cut_after(&self, i: usize, gap: f64) -> bool;
    /// Item `i` as one row's label and weight (as `add` adds it), `None` for a block of rows.
    #[inline(always)]
    fn row(&self, _i: usize) -> Option<(u64, f64)> {
        None
    }
    /// Whether the items are rows (but for a few blocks), so that a scan may follow its
    /// sides' figures row by row ([`super::running`]).
    const ROWS: bool = false;
}

impl Sweep for [Known] {
    fn len(&self) -> usize {
        <[Known]>::len(self)
    }

    #[inline(always)]
    fn add<K: Kernel>(&self, kernel: K, i: usize, stats: &mut [f64], sign: f64) -> usize {
        if let Some(k) = self.get(i) {
            kernel.add(stats, k.label, sign * k.w);
        }
        1
    }

    #[inline]
    fn cut_after(&self, i: usize, gap: f64) -> bool {
        match (self.get(i), self.get(i + 1)) {
            (Some(a), Some(b)) => b.x > a.x + gap,
            _ => false,
        }
    }

    #[inline(always)]
    fn row(&self, i: usize) -> Option<(u64, f64)> {
        self.get(i).map(|k| (k.label, k.w))
    }

    const ROWS: bool = true;
}
