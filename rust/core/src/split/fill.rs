//! How a node's rows are added to a dense numeric feature's histogram: what each row adds is
//! worked out once per node ([`RowStats`]), not once per feature, so that the pass per
//! feature reads a row's bin and its statistics and adds them, nothing else.

use super::{NodeRows, Searcher};
use crate::data::Target;

/// What each of a node's rows adds to the bin it falls in, in the node's row order.
pub(super) enum RowStats {
    /// Every row's search weight is 1 and the sums start from zero: each bin's sums are
    /// counts, kept as integers (adding ones to an exact integer is exact, so the float
    /// sums are the same to the bit). The rows' class codes.
    Counts { classes: Vec<u32>, n_classes: usize },
    /// Class codes and search weights.
    Classes {
        classes: Vec<u32>,
        weights: Vec<f64>,
    },
    /// (w, w·y, w·y²) of a real-valued target taken around the searcher's shift, each
    /// computed as [`Target::accumulate_around`] computes it.
    Values(Vec<[f64; 3]>),
    /// Several outputs: each row accumulated by the searcher, row by row.
    Rows,
}

impl RowStats {
    /// The statistics of the node's `rows`; `fresh`: the sums they go to are all zero.
    /// `None` when their memory cannot be had (the fit then stops at its next check).
    pub(super) fn of(
        searcher: &Searcher<'_, '_>,
        rows: &NodeRows,
        fresh: bool,
    ) -> Option<RowStats> {
        let weights = || {
            let mut v = searcher.vec(rows.len())?;
            v.extend(rows.iter().map(|(r, w)| searcher.search_weight(r, w)));
            Some(v)
        };
        // The rows are the target's: the defaults below are never read.
        Some(match *searcher.target {
            Target::Classes { codes, n_classes } => {
                let mut classes = searcher.vec(rows.len())?;
                classes.extend(
                    rows.rows
                        .iter()
                        .map(|&r| codes.get(r as usize).copied().unwrap_or(u32::MAX)),
                );
                let weights = weights()?;
                if fresh && weights.iter().all(|&w| w == 1.0) {
                    RowStats::Counts { classes, n_classes }
                } else {
                    RowStats::Classes { classes, weights }
                }
            }
            Target::Values(y) => {
                let mut values = searcher.vec(rows.len())?;
                values.extend(rows.iter().map(|(r, w)| {
                    let y = y.get(r).copied().unwrap_or(f64::NAN) - searcher.shift;
                    [w, w * y, w * y * y]
                }));
                RowStats::Values(values)
            }
            Target::MultiClasses { .. } | Target::MultiValues { .. } => RowStats::Rows,
        })
    }

    /// Adds the node's rows to the histograms of several dense columns, each `(codes, hist)`:
    /// per bin `slots` values, the statistics then the row count. One pass over the rows
    /// serves every column of the group, so a row's statistics are read once, not once per
    /// column (a pass per column was bound by that memory traffic, and barely faster on two
    /// threads than on one); each bin still adds its rows in row order, so the sums are the
    /// same to the bit. `false` for [`RowStats::Rows`], which the caller adds itself.
    pub(super) fn fill(
        &self,
        group: &mut [(&[u8], &mut [f64])],
        rows: &NodeRows,
        slots: usize,
    ) -> bool {
        match self {
            RowStats::Counts { classes, n_classes } => {
                count(group, &rows.rows, classes, *n_classes, slots);
            }
            RowStats::Classes { classes, weights } => {
                for ((&r, &c), &w) in rows.rows.iter().zip(classes).zip(weights) {
                    let (r, c) = (r as usize, c as usize);
                    for (codes, hist) in group.iter_mut() {
                        let Some(&code) = codes.get(r) else {
                            continue;
                        };
                        let at = usize::from(code) * slots;
                        if let Some(s) = hist.get_mut(at + c).filter(|_| c < slots - 1) {
                            *s += w;
                        }
                        if let Some(n) = hist.get_mut(at + slots - 1) {
                            *n += 1.0;
                        }
                    }
                }
            }
            RowStats::Values(stats) => {
                for (&r, &[w, wy, wyy]) in rows.rows.iter().zip(stats) {
                    for (codes, hist) in group.iter_mut() {
                        let Some(&code) = codes.get(r as usize) else {
                            continue;
                        };
                        let at = usize::from(code) * slots;
                        if let Some([sw, swy, swy2, n]) = hist.get_mut(at..at + 4) {
                            *sw += w;
                            *swy += wy;
                            *swy2 += wyy;
                            *n += 1.0;
                        }
                    }
                }
            }
            RowStats::Rows => return false,
        }
        true
    }
}

/// Counts the rows of each class in each bin of every column of `group` as integers, in
/// one pass over the rows, then adds the counts to the histograms (all zero): the class
/// counts and, in each bin's last slot, their sum. A column with fewer rows than bins has
/// its rows added one by one instead, sparing the pass over every bin: whole numbers add
/// exactly, so the sums are the same to the bit.
fn count(
    group: &mut [(&[u8], &mut [f64])],
    rows: &[u32],
    classes: &[u32],
    n_classes: usize,
    slots: usize,
) {
    let mut counted: Vec<(&[u8], &mut [f64], Vec<u32>)> = Vec::with_capacity(group.len());
    for (codes, hist) in group.iter_mut() {
        let n_bins = hist.len() / slots;
        if rows.len() >= n_bins {
            counted.push((codes, hist, vec![0u32; n_bins * n_classes]));
            continue;
        }
        for (&r, &c) in rows.iter().zip(classes) {
            let (Some(&code), true) = (codes.get(r as usize), (c as usize) < n_classes) else {
                continue;
            };
            let at = usize::from(code) * slots;
            if let Some(s) = hist.get_mut(at + c as usize) {
                *s += 1.0;
            }
            if let Some(n) = hist.get_mut(at + slots - 1) {
                *n += 1.0;
            }
        }
    }
    for (&r, &c) in rows.iter().zip(classes) {
        if (c as usize) >= n_classes {
            continue;
        }
        for (codes, _, counts) in counted.iter_mut() {
            let Some(&code) = codes.get(r as usize) else {
                continue;
            };
            if let Some(k) = counts.get_mut(usize::from(code) * n_classes + c as usize) {
                *k += 1;
            }
        }
    }
    for (_, hist, counts) in counted {
        for (bin, counts) in hist
            .chunks_exact_mut(slots)
            .zip(counts.chunks_exact(n_classes))
        {
            if let Some((n, stats)) = bin.split_last_mut() {
                let mut total = 0u64;
                for (s, &k) in stats.iter_mut().zip(counts) {
                    *s += f64::from(k);
                    total += u64::from(k);
                }
                *n += total as f64;
            }
        }
    }
}
