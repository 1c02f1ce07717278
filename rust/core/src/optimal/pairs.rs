//! Depth-two subproblems of few-valued columns, solved whole by counting (MurTree's frequency
//! counts — Demirović et al., JMLR 2022, §4.3 — taken from binary features to orderings of a
//! few ranks, such as histogram bins or one-hot columns).
//!
//! For a root ordering `a` and a second ordering `b`, the node's statistics per cell (rank of
//! `a`, rank of `b`), summed along `a`, hold for every threshold of `a` both of its sides
//! broken down by the ranks of `b`: one sweep along `b` per side scores every threshold of
//! `b` there. So every depth-two tree is scored in O(m + Ka·Kb) per pair of orderings, where
//! the threshold-by-threshold search ([`super::depth2`]) sweeps all rows for every root
//! threshold it cannot rule out: with few ranks per column, counting wins. A nominal feature
//! is counted per category the same way and tested under the root by its best subset (in
//! closed form); as a root it is left to the threshold-by-threshold search.

use std::ops::AddAssign;

use rayon::prelude::*;

use super::loss::Loss;
use super::node::Node;
use super::search::Ctx;
use super::solution::{Sol, Test};

/// Orderings with more ranks than this at a node leave it to the threshold-by-threshold
/// search: the cells of a pair grow as the product of the two columns' ranks.
pub(crate) const MAX_RANKS: usize = 32;

/// Off: every depth-two subproblem goes to the threshold-by-threshold search, so that tests
/// check that search on the few-valued data brute force can enumerate.
#[cfg(test)]
pub(crate) static COUNTING: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(true);

/// Orderings times rows from which the root orderings are counted on several threads.
const PARALLEL_ENTRIES: usize = 1 << 15;

/// One column at the node: each of the node's rows' cell (in the order of `node.rows`), by
/// what the cells stand for.
struct Local {
    column: usize,
    kind: Kind,
    index: Vec<u8>,
}

enum Kind {
    /// An ordering's distinct ranks at the node, ascending.
    Ranks(Vec<u32>),
    /// A nominal feature's slots (categories, then missing): `n` of them.
    Slots(usize),
}

impl Local {
    fn cells(&self) -> usize {
        match &self.kind {
            Kind::Ranks(ranks) => ranks.len(),
            Kind::Slots(n) => *n,
        }
    }
}

/// The best side tree found: its error (no leaf penalty) and its test.
type Best = Option<(f64, Test)>;

/// The cheapest tree of depth two (at most `leaves` leaves, 3 or 4) rooted at a threshold
/// of an ordering of `node`, with its cost (penalty `alpha` per leaf included), found by
/// counting; `None` when the node's orderings do not suit counting (one has more than
/// [`MAX_RANKS`] ranks here, or a nominal feature more than [`MAX_RANKS`] slots), when no
/// ordering splits the node, or when the search stopped.
pub(crate) fn solve<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    leaves: usize,
) -> Option<(f64, Sol)> {
    #[cfg(test)]
    if !COUNTING.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    let locals = locals(ctx, node)?;
    let total = loss.stats(node.rows.iter().copied());
    let by_root = |a: &Local| match &a.kind {
        Kind::Ranks(ranks) => root(ctx, node, loss, leaves, &total, a, ranks, &locals),
        Kind::Slots(_) => None,
    };
    let results: Vec<Option<(f64, Sol)>> =
        if ctx.parallel && node.len() * locals.len() >= PARALLEL_ENTRIES {
            locals.par_iter().map(by_root).collect()
        } else {
            locals.iter().map(by_root).collect()
        };
    if ctx.control.stopped() {
        return None;
    }
    // The first of the cheapest, in column order: the result does not depend on threads.
    results
        .into_iter()
        .flatten()
        .reduce(|x, y| if y.0 < x.0 - ctx.tol { y } else { x })
}

/// The node's columns that split it, with their cells (orderings first, as in
/// [`super::columns::Columns`]); `None` if one has more than [`MAX_RANKS`] cells.
fn locals<L: Loss>(ctx: &Ctx<'_, L>, node: &Node) -> Option<Vec<Local>> {
    let mut out = Vec::new();
    for (column, ordering) in ctx.columns.orderings.iter().enumerate() {
        let mut ranks: Vec<u32> = Vec::new();
        for e in node.list(column) {
            if ranks.last() != Some(&e.rank) {
                if ranks.len() == MAX_RANKS {
                    return None;
                }
                ranks.push(e.rank);
            }
        }
        if ranks.len() < 2 {
            continue;
        }
        let mut index = ctx.control.vec(node.len())?;
        index.extend(node.rows.iter().map(|&r| {
            let rank = ordering.rank.get(r as usize).copied().unwrap_or(0);
            ranks.binary_search(&rank).unwrap_or(0) as u8
        }));
        out.push(Local {
            column,
            kind: Kind::Ranks(ranks),
            index,
        });
    }
    let first = ctx.columns.orderings.len();
    for (j, nominal) in ctx.columns.nominals.iter().enumerate() {
        let slots = nominal.slots();
        if slots > MAX_RANKS {
            return None;
        }
        let mut index = ctx.control.vec(node.len())?;
        index.extend(
            node.rows
                .iter()
                .map(|&r| nominal.code.get(r as usize).copied().unwrap_or(0) as u8),
        );
        out.push(Local {
            column: first + j,
            kind: Kind::Slots(slots),
            index,
        });
    }
    Some(out)
}

/// The cheapest depth-two tree whose root tests ordering `a` (its local `ranks`).
#[allow(clippy::too_many_arguments)]
fn root<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    leaves: usize,
    total: &[f64],
    a: &Local,
    ranks: &[u32],
    locals: &[Local],
) -> Option<(f64, Sol)> {
    if ctx.control.stopped() {
        return None;
    }
    let w = loss.width();
    let ka = ranks.len();
    let ordering_a = ctx.columns.orderings.get(a.column)?;
    // Per threshold of `a` (after local rank i): each side's best split on any column.
    let mut best_left: Vec<Best> = vec![None; ka];
    let mut best_right: Vec<Best> = vec![None; ka];
    // Statistics of the rows of local rank <= i of `a`.
    let mut below = vec![0.0; ka * w];
    for (&r, &i) in node.rows.iter().zip(&a.index) {
        if let Some(cell) = below.get_mut(usize::from(i) * w..(usize::from(i) + 1) * w) {
            loss.add(cell, r);
        }
    }
    cumulate(&mut below, ka, w);
    let mut above = vec![0.0; ka * w];
    for (x, (&l, &t)) in above.iter_mut().zip(below.iter().zip(total.iter().cycle())) {
        *x = t - l;
    }
    let mut prefix = vec![0.0; w];
    let mut cells = Vec::new();
    let mut counts = Vec::new();
    for b in locals {
        let kb = b.cells();
        cells.clear();
        cells.resize(ka * kb * w, 0.0);
        counts.clear();
        counts.resize(ka * kb, 0u32);
        for ((&r, &i), &j) in node.rows.iter().zip(&a.index).zip(&b.index) {
            let at = usize::from(i) * kb + usize::from(j);
            if let Some(cell) = cells.get_mut(at * w..(at + 1) * w) {
                loss.add(cell, r);
            }
            if let Some(c) = counts.get_mut(at) {
                *c += 1;
            }
        }
        // Summed along `a`: row i holds the rows of rank <= i, by rank of `b`.
        cumulate(&mut cells, ka, kb * w);
        cumulate(&mut counts, ka, kb);
        // The last row: every rank of `a`, so the node's rows by rank of `b`.
        let all_cells = cells.get((ka - 1) * kb * w..)?.to_vec();
        let all_counts = counts.get((ka - 1) * kb..)?.to_vec();
        let mut rest = vec![0.0; kb * w];
        let mut rest_counts = vec![0u32; kb];
        for i in 0..ka - 1 {
            if ordering_a.is_duplicate(*ranks.get(i)?) {
                continue;
            }
            let left = cells.get(i * kb * w..(i + 1) * kb * w)?;
            let left_counts = counts.get(i * kb..(i + 1) * kb)?;
            for ((r, &t), &l) in rest.iter_mut().zip(&all_cells).zip(left) {
                *r = t - l;
            }
            for ((r, &t), &l) in rest_counts.iter_mut().zip(&all_counts).zip(left_counts) {
                *r = t - l;
            }
            let left_total = below.get(i * w..(i + 1) * w)?;
            let right_total = above.get(i * w..(i + 1) * w)?;
            let found = sweep(ctx, loss, b, left, left_counts, left_total, &mut prefix);
            keep(best_left.get_mut(i)?, found, ctx.tol);
            let found = sweep(ctx, loss, b, &rest, &rest_counts, right_total, &mut prefix);
            keep(best_right.get_mut(i)?, found, ctx.tol);
        }
    }
    let alpha = ctx.alpha;
    let mut best: Option<(f64, Sol)> = None;
    for i in 0..ka - 1 {
        let (left_rank, right_rank) = (*ranks.get(i)?, *ranks.get(i + 1)?);
        if ordering_a.is_duplicate(left_rank) {
            continue;
        }
        let left_total = below.get(i * w..(i + 1) * w)?;
        let leaf_left = loss.err(left_total) + alpha;
        let leaf_right = loss.err_rest(total, left_total) + alpha;
        let stump = |found: &Best| found.map(|(e, t)| (e + 2.0 * alpha, t));
        let (sl, sr) = (stump(best_left.get(i)?), stump(best_right.get(i)?));
        let test = Test::Threshold {
            column: a.column as u32,
            left: left_rank,
            right: right_rank,
        };
        let side = |s: Option<(f64, Test)>, leaf: f64| match s {
            Some((c, t)) if c < leaf - ctx.tol => (c, Sol::stump(t)),
            _ => (leaf, Sol::leaf()),
        };
        let candidate = if leaves >= 4 {
            let (cl, l) = side(sl, leaf_left);
            let (cr, r) = side(sr, leaf_right);
            (cl + cr, Sol::split(test, &l, &r))
        } else {
            // Three leaves: a stump on at most one side.
            let (cl, l) = side(sl, leaf_left);
            let (cr, r) = side(sr, leaf_right);
            if cl + leaf_right <= leaf_left + cr {
                (cl + leaf_right, Sol::split(test, &l, &Sol::leaf()))
            } else {
                (leaf_left + cr, Sol::split(test, &Sol::leaf(), &r))
            }
        };
        if best.as_ref().is_none_or(|(c, _)| candidate.0 < c - ctx.tol) {
            best = Some(candidate);
        }
    }
    best
}

/// The best split on column `b` of a side whose statistics per cell of `b` are `cells`
/// (`counts` rows each), `side_total` in all. `prefix` is scratch of the loss's width.
fn sweep<L: Loss>(
    ctx: &Ctx<'_, L>,
    loss: &L,
    b: &Local,
    cells: &[f64],
    counts: &[u32],
    side_total: &[f64],
    prefix: &mut [f64],
) -> Best {
    let ranks = match &b.kind {
        Kind::Ranks(ranks) => ranks,
        Kind::Slots(_) => {
            let index = b.column.checked_sub(ctx.columns.orderings.len())? as u32;
            let (err, left) = loss.best_subset(cells, side_total)?;
            return Some((
                err,
                Test::Subset {
                    nominal: index,
                    left,
                },
            ));
        }
    };
    let w = loss.width();
    let ordering = ctx.columns.orderings.get(b.column)?;
    prefix.iter_mut().for_each(|x| *x = 0.0);
    let mut previous: Option<usize> = None;
    let mut best: Best = None;
    for (j, &n) in counts.iter().enumerate() {
        if n == 0 {
            continue;
        }
        if let Some(p) = previous {
            let left_rank = *ranks.get(p)?;
            if !ordering.is_duplicate(left_rank) {
                let err = loss.err(prefix) + loss.err_rest(side_total, prefix);
                if best.is_none_or(|(e, _)| err < e - ctx.tol) {
                    let test = Test::Threshold {
                        column: b.column as u32,
                        left: left_rank,
                        right: *ranks.get(j)?,
                    };
                    best = Some((err, test));
                }
            }
        }
        for (x, &c) in prefix.iter_mut().zip(cells.get(j * w..(j + 1) * w)?) {
            *x += c;
        }
        previous = Some(j);
    }
    best
}

/// Keeps the better of `held` and `found` (the one held on a tie).
fn keep(held: &mut Best, found: Best, tol: f64) {
    if let Some((e, t)) = found {
        if held.is_none_or(|(h, _)| e < h - tol) {
            *held = Some((e, t));
        }
    }
}

/// Sums `rows` blocks of `width` numbers cumulatively: block i becomes blocks 0..=i.
fn cumulate<T: Copy + AddAssign>(values: &mut [T], rows: usize, width: usize) {
    for i in 1..rows {
        let (done, next) = values.split_at_mut(i * width);
        let previous = done.get((i - 1) * width..).unwrap_or(&[]);
        for (x, &p) in next.iter_mut().take(width).zip(previous) {
            *x += p;
        }
    }
}
