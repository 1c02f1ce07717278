//! Lower bounds of a depth-two subproblem over whole intervals of root thresholds, from
//! quantile bins of the node's columns (the relaxation of Quant-BnB — Mazumder, Meng & Wang,
//! ICML 2022 — taken to the counting tables of [`super::pairs`]).
//!
//! Each ordering's rows at the node are cut into at most [`BINS`] bins of about equal size,
//! never splitting a rank. A depth-two tree whose root threshold lies inside bin `i` of a
//! column `a` (or on the edge after it) sends the rows of the bins below `i` left and those
//! above right, whatever the exact threshold; only the rows of bin `i` are uncertain. The
//! same holds of each side's test on a second column `b`. Dropping the uncertain rows never
//! raises a leaf's error ([`Loss`]: the optimum of a subset is no larger), so the errors of
//! the certain rows, each side's test taken at its best bin of `b`, bound every tree of the
//! *box* (a root column and one of its bin interiors or edges) from below. One count of the
//! node's rows per pair of columns (bins of `a` by bins of `b`) bounds every box of every
//! root column.
//!
//! The search then evaluates thresholds only in boxes whose bound beats the incumbent,
//! lowest bound first, and a box's bounds on each side's columns ([`ColumnFloors`]) let the
//! depth-two sweeps skip the columns that cannot matter there. On a large node most boxes
//! are ruled out at once: a subproblem sought under a bound far below its optimum costs one
//! count, and its proven bound (the least box's) is far above the one it was sought under,
//! which rules out wide neighbourhoods of the parent's thresholds.

use rayon::prelude::*;

use super::depth1::ColumnFloors;
use super::loss::Loss;
use super::node::Node;
use super::pairs::{cumulate, Cells, Tables};
use super::search::Ctx;

/// Bins per column at a node. Finer bins bound tighter but cost more per node (pairs of
/// columns hold bins² cells): on the planted 10k x 20 set at depth three, 12 to 16 bins
/// took the least time (14–16 CPU s), 32 bins 22 s, 64 bins 51 s.
const BINS: usize = 16;

/// Nodes with fewer rows are searched threshold by threshold only (their sweeps are cheap).
const MIN_ROWS: usize = 2048;

/// On larger nodes, bins hold at most about this many rows, up to [`MAX_BINS`]: a bin's
/// rows are what a box's bound drops, so the bound's slack grows with them. On the planted
/// 100k x 20 set at depth three, a flat depth-two child of 62,500 rows has its optimum 578
/// errors above its least box with 16 bins.
const ROWS_PER_BIN: usize = 1024;
const MAX_BINS: usize = 64;

/// Test settings: bins per column and the least node size (tiny data then takes this path,
/// so that brute force checks it).
#[cfg(test)]
pub(crate) static TEST_SETTINGS: std::sync::Mutex<Option<(usize, usize)>> =
    std::sync::Mutex::new(None);

fn settings() -> (usize, usize) {
    #[cfg(test)]
    if let Some(s) = *TEST_SETTINGS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        return s;
    }
    (BINS, MIN_ROWS)
}

/// Columns times rows from which the pair tables are counted on several threads.
const PARALLEL_ENTRIES: usize = 1 << 15;

/// A column's bins at the node.
struct Binned {
    /// Index in [`super::columns::Columns`] (orderings first, then nominal features).
    column: usize,
    /// For an ordering, where each bin starts in the node's list (ascending; the first is
    /// 0), and whether it holds more than one rank (so thresholds fall inside it). `None`
    /// for a nominal feature, whose cells are its slots.
    bins: Option<(Vec<usize>, Vec<bool>)>,
    cells: usize,
    index: Vec<u8>,
}

impl Cells for Binned {
    fn cells(&self) -> usize {
        self.cells
    }

    fn index(&self) -> &[u8] {
        &self.index
    }
}

/// A set of root thresholds of one ordering, bounded as a whole.
#[derive(Debug, Clone)]
pub(crate) struct RootBox {
    pub column: usize,
    /// The candidate positions in the node's list of `column` it covers (the left part is
    /// the list before the position): `lo..hi`.
    pub lo: usize,
    pub hi: usize,
    /// No tree rooted at one of its thresholds costs less.
    pub lower: f64,
    /// What it proves of each column's best split of the two parts of every such tree
    /// ([`super::depth2::evaluate`]'s hint). Not the parts' own bounds: a sweep capped by
    /// them proves less of the parts for the neighbouring thresholds than it would uncapped
    /// (measured: more evaluations).
    pub columns: ColumnFloors,
}

/// Every root threshold of the node's orderings in boxes, with their bounds (nominal
/// features' subsets are not boxed). `leaves` is 3 or 4. `side` is scratch of one byte per
/// training row. `None` when the node is too small to gain from it, when a column has too
/// many cells for a byte, or when the search stopped or memory ran out.
pub(crate) fn root_boxes<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    leaves: usize,
    side: &mut [u8],
) -> Option<Vec<RootBox>> {
    let (n_bins, min_rows) = settings();
    if node.len() < min_rows || ctx.columns.orderings.is_empty() {
        return None;
    }
    let n_bins = n_bins.max((node.len() / ROWS_PER_BIN).min(MAX_BINS));
    let locals = bin_columns(ctx, node, n_bins, side)?;
    let parallel = ctx.parallel && node.len() * locals.len() >= PARALLEL_ENTRIES;
    let tables = Tables::new(ctx, node, loss, &locals, parallel)?;
    let w = loss.width();
    let alpha = ctx.alpha;
    let n_columns = ctx.columns.len();
    // Each root column's boxes from the shared tables: independent of the other roots'.
    let by_root = |(ai, a): (usize, &Binned)| -> Option<Vec<RootBox>> {
        let mut out = Vec::new();
        let Some((starts, wide)) = &a.bins else {
            return Some(out);
        };
        let ka = a.cells;
        // Per cut i (the left part holds a's bins below i), the left and the right part's
        // statistics, and per column their least split error.
        let mut below = ctx.control.filled((ka + 1) * w, 0.0)?;
        let by_bin = tables.by_rank(ai, w)?;
        below.get_mut(w..)?.copy_from_slice(&by_bin);
        cumulate(&mut below, ka + 1, w);
        let all = below.get(ka * w..)?.to_vec();
        let mut above = below.clone();
        for (x, t) in above.iter_mut().zip(all.iter().cycle()) {
            *x = t - *x;
        }
        let mut splits = [
            ctx.control.filled((ka + 1) * n_columns, f64::INFINITY)?,
            ctx.control.filled((ka + 1) * n_columns, f64::INFINITY)?,
        ];
        let (mut cells, mut counts) = (Vec::new(), Vec::new());
        let mut least = [vec![0.0; ka + 1], vec![0.0; ka + 1]];
        let mut sums = Vec::new();
        for (bi, b) in locals.iter().enumerate() {
            let kb = b.cells;
            tables.load(ai, bi, w, &mut cells, &mut counts)?;
            // Row i + 1: a's bins up to i, by bin of b.
            let mut cum = ctx.control.filled((ka + 1) * kb * w, 0.0)?;
            cum.get_mut(kb * w..)?.copy_from_slice(&cells);
            cumulate(&mut cum, ka + 1, kb * w);
            let parts = Parts {
                cum: &cum,
                cells: kb,
                totals: [&below, &above],
            };
            match &b.bins {
                Some((_, wide)) => match w {
                    // Two or three classes get their width as a constant, so that the
                    // loops over the statistics unroll.
                    2 => least_splits::<L, 2>(loss, wide, &parts, &mut least, &mut sums),
                    3 => least_splits::<L, 3>(loss, wide, &parts, &mut least, &mut sums),
                    _ => least_splits::<L, 0>(loss, wide, &parts, &mut least, &mut sums),
                }?,
                None => least_subsets(loss, &parts, &mut least)?,
            }
            for (side, least) in splits.iter_mut().zip(&least) {
                for (i, &x) in least.iter().enumerate() {
                    *side.get_mut(i * n_columns + b.column)? = x;
                }
            }
        }
        // The boxes: the interior of each wide bin j (left: bins below j, right: bins above
        // j), and the edge after each bin j but the last (left: bins up to j).
        for j in 0..ka {
            let (start, end) = (
                *starts.get(j)?,
                starts.get(j + 1).copied().unwrap_or(node.len()), // the last: to the end
            );
            let mut parts = Vec::with_capacity(2);
            // `wide` has a flag per bin, made with `starts`: the default is never read.
            if wide.get(j).copied().unwrap_or(false) && end > start + 1 {
                parts.push((j, j + 1, (start + 1, end)));
            }
            if j + 1 < ka {
                parts.push((j + 1, j + 1, (end, end + 1)));
            }
            for (l_cut, r_cut, (lo, hi)) in parts {
                let err_l = loss.err(below.get(l_cut * w..(l_cut + 1) * w)?);
                let err_r = loss.err(above.get(r_cut * w..(r_cut + 1) * w)?);
                let floors_of = |s: usize, cut: usize, err: f64| -> Option<Vec<f64>> {
                    let row = splits.get(s)?.get(cut * n_columns..(cut + 1) * n_columns)?;
                    Some(row.iter().map(|&x| x.min(err)).collect())
                };
                let columns: ColumnFloors =
                    [floors_of(0, l_cut, err_l)?, floors_of(1, r_cut, err_r)?];
                let least = |f: &[f64], err: f64| f.iter().fold(err, |m, &x| m.min(x));
                // A part as a leaf, or split (two leaves' penalties).
                let (leaf_l, leaf_r) = (err_l + alpha, err_r + alpha);
                let stump_l = leaf_l.min(least(&columns[0], err_l) + 2.0 * alpha);
                let stump_r = leaf_r.min(least(&columns[1], err_r) + 2.0 * alpha);
                let lower = if leaves >= 4 {
                    stump_l + stump_r
                } else {
                    // A stump on one side, a leaf on the other.
                    (stump_l + leaf_r).min(leaf_l + stump_r)
                };
                out.push(RootBox {
                    column: a.column,
                    lo,
                    hi,
                    lower,
                    columns,
                });
            }
        }
        Some(out)
    };
    // In column order whatever the threads: the boxes do not depend on them.
    let per_root: Vec<Option<Vec<RootBox>>> = if parallel {
        locals.par_iter().enumerate().map(by_root).collect()
    } else {
        locals.iter().enumerate().map(by_root).collect()
    };
    let mut out = Vec::new();
    for boxes in per_root {
        out.extend(boxes?);
    }
    Some(out)
}

/// Both parts of every cut of a root column, by the cells of a second column `b`: row `i`
/// of `cum` holds the left part's statistics per cell of `b` at cut `i` (the last row, every
/// row's), `totals` each part's statistics per cut.
struct Parts<'a> {
    cum: &'a [f64],
    cells: usize,
    totals: [&'a [f64]; 2],
}

/// Per cut, the least error of a split of each part on the ordering `b` of bins `wide`, into
/// `least` (left, right): over the edges between bins and, inside each bin holding several
/// ranks, with that bin's rows dropped; infinite if `b` cannot split the part. The cuts are
/// walked inside each bin of `b`, so that their running sums (`sums`) are independent chains
/// rather than one long one per cut. `W` is the statistics' width, or 0 for the loss's.
fn least_splits<L: Loss, const W: usize>(
    loss: &L,
    wide: &[bool],
    parts: &Parts<'_>,
    least: &mut [Vec<f64>; 2],
    sums: &mut Vec<f64>,
) -> Option<()> {
    let w = if W == 0 { loss.width() } else { W };
    let (kb, cuts) = (parts.cells, least[0].len());
    let every = parts.cum.get(cuts.checked_sub(1)? * kb * w..)?;
    // Per cut: each part's running sum before the bin, then with it.
    sums.clear();
    sums.resize(4 * cuts * w, 0.0);
    let (before, with) = sums.split_at_mut(2 * cuts * w);
    least.iter_mut().for_each(|l| l.fill(f64::INFINITY));
    let [least_l, least_r] = least;
    for (j, &wide) in wide.iter().enumerate().take(kb) {
        let all = every.get(j * w..(j + 1) * w)?;
        for i in 0..cuts {
            let cell = parts.cum.get((i * kb + j) * w..(i * kb + j + 1) * w)?;
            let at = 2 * i * w;
            let (b_l, b_r) = before.get_mut(at..at + 2 * w)?.split_at_mut(w);
            let (w_l, w_r) = with.get_mut(at..at + 2 * w)?.split_at_mut(w);
            for k in 0..w {
                let (c, t) = (*cell.get(k)?, *all.get(k)?);
                *w_l.get_mut(k)? = b_l.get(k)? + c;
                // The right part's cell: every row's less the left's.
                *w_r.get_mut(k)? = b_r.get(k)? + (t - c);
            }
            let (t_l, t_r) = (
                parts.totals[0].get(i * w..(i + 1) * w)?,
                parts.totals[1].get(i * w..(i + 1) * w)?,
            );
            let (mut l, mut r) = (*least_l.get(i)?, *least_r.get(i)?);
            if wide {
                // Rows before bin j, rows after it; bin j's dropped.
                l = l.min(loss.err(b_l) + loss.err_rest(t_l, w_l));
                r = r.min(loss.err(b_r) + loss.err_rest(t_r, w_r));
            }
            b_l.copy_from_slice(w_l);
            b_r.copy_from_slice(w_r);
            if j + 1 < kb {
                l = l.min(loss.err(w_l) + loss.err_rest(t_l, w_l));
                r = r.min(loss.err(w_r) + loss.err_rest(t_r, w_r));
            }
            *least_l.get_mut(i)? = l;
            *least_r.get_mut(i)? = r;
        }
    }
    Some(())
}

/// [`least_splits`] on a nominal feature `b`: each part's best subset of its slots, in
/// closed form.
fn least_subsets<L: Loss>(loss: &L, parts: &Parts<'_>, least: &mut [Vec<f64>; 2]) -> Option<()> {
    let (w, kb, cuts) = (loss.width(), parts.cells, least[0].len());
    let every = parts.cum.get(cuts.checked_sub(1)? * kb * w..)?;
    let mut rest = Vec::with_capacity(kb * w);
    for i in 0..cuts {
        let cut = parts.cum.get(i * kb * w..(i + 1) * kb * w)?;
        rest.clear();
        rest.extend(every.iter().zip(cut).map(|(t, c)| t - c));
        let sides = [cut, rest.as_slice()]
            .into_iter()
            .zip(parts.totals)
            .zip(least.iter_mut());
        for ((cells, totals), least) in sides {
            let total = totals.get(i * w..(i + 1) * w)?;
            *least.get_mut(i)? = loss
                .best_subset(cells, total)
                .map_or(f64::INFINITY, |(e, _)| e); // fewer than two slots held: no split
        }
    }
    Some(())
}

/// The node's columns that can split it, binned (orderings) or by slot (nominal
/// features). `None` when a nominal feature has more slots than a byte holds, or memory
/// ran out.
fn bin_columns<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    n_bins: usize,
    side: &mut [u8],
) -> Option<Vec<Binned>> {
    let n = node.len();
    let per = n.div_ceil(n_bins.max(1)).max(1);
    let mut out = Vec::new();
    for column in 0..ctx.columns.orderings.len() {
        let list = node.list(column);
        let mut starts = vec![0usize];
        let mut wide = vec![false];
        for (p, pair) in list.windows(2).enumerate() {
            let [prev, e] = pair else {
                continue;
            };
            if e.rank == prev.rank {
                continue;
            }
            let start = *starts.last()?;
            if p + 1 - start >= per && starts.len() < n_bins.min(255) {
                starts.push(p + 1);
                wide.push(false);
            } else if let Some(w) = wide.last_mut() {
                *w = true;
            }
        }
        if starts.len() < 2 && !matches!(wide.as_slice(), [true, ..]) {
            // One rank at the node: no threshold splits it.
            continue;
        }
        let ends = starts.iter().skip(1).copied().chain([n]); // the last bin: to the end
        for (j, (&start, end)) in starts.iter().zip(ends).enumerate() {
            for e in list.get(start..end)? {
                *side.get_mut(e.row as usize)? = j as u8;
            }
        }
        let mut index = ctx.control.vec(n)?;
        index.extend(
            node.rows
                .iter()
                .map(|&r| side.get(r as usize).copied().unwrap_or(0)), // side has every row
        );
        out.push(Binned {
            column,
            cells: starts.len(),
            bins: Some((starts, wide)),
            index,
        });
    }
    let first = ctx.columns.orderings.len();
    for (j, nominal) in ctx.columns.nominals.iter().enumerate() {
        let slots = nominal.slots();
        if slots > 255 {
            return None;
        }
        let mut index = ctx.control.vec(n)?;
        index.extend(
            node.rows
                .iter()
                .map(|&r| nominal.code.get(r as usize).copied().unwrap_or(0) as u8), // a training row
        );
        out.push(Binned {
            column: first + j,
            bins: None,
            cells: slots,
            index,
        });
    }
    Some(out)
}
