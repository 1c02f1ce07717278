//! Lower bounds of runs of a deep subproblem's root thresholds, from nested parts (the
//! relaxation of Quant-BnB — Mazumder, Meng & Wang, ICML 2022 — at depths three and more).
//!
//! Every threshold of an ordering between the candidates `a <= b` sends left at least the
//! rows before `a` and right at least the rows from `b` on: its left part contains `a`'s
//! left part, its right part `b`'s right part. A subproblem's optimum never grows when rows
//! are dropped ([`super::loss`]), so the optimum of `a`'s left part plus that of `b`'s right
//! part (each with the children's depth and leaf budget) bounds every root threshold from
//! `a` to `b`. The left parts of a column's candidates are nested prefixes of its list and
//! the right parts suffixes; each is solved as a subproblem only under the bound that
//! decides (its share, by weight, of the incumbent; the right part: the incumbent less the
//! left part's bound), so a part far above its share costs little (on a large node, one
//! count of [`super::boxes`]). Runs the incumbent does not rule out are cut again, finer,
//! down to a few dozen candidates; the interval search then evaluates thresholds only in the
//! runs left, each child solved knowing its run's bounds.

use std::ops::RangeInclusive;

use super::intervals::{Incumbent, Positions};
use super::loss::Loss;
use super::node::Node;
use super::search::{solve, Sub};
use super::solution::Test;

/// Runs a column's thresholds are cut into. On the planted 100k x 20 set at depth three,
/// cutting the 8 runs again (to 64 and 512) raised the least bound of the columns that
/// matter by 1% at 10x the time: their large parts are bounded by boxes, whose slack does
/// not shrink with the runs.
const BINS: usize = 8;

/// Nodes with fewer rows are searched threshold by threshold only (their children are cheap).
const MIN_ROWS: usize = 2048;

/// Parts with fewer rows are solved under the bound that decides; larger ones are only
/// bounded by their boxes (one count): solving them may take long where every threshold of
/// every column is nearly as good (measured: 37 s for a 62,500-row part of the planted set).
const EXACT_ROWS: usize = 4096;

/// Test settings: runs per column, the least node size and the least part only bounded by
/// its boxes (tiny data then takes this path, so that brute force checks it).
#[cfg(test)]
pub(crate) static TEST_SETTINGS: std::sync::Mutex<Option<(usize, usize, usize)>> =
    std::sync::Mutex::new(None);

fn settings() -> (usize, usize, usize) {
    #[cfg(test)]
    if let Some(s) = *TEST_SETTINGS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        return s;
    }
    (BINS, MIN_ROWS, EXACT_ROWS)
}

/// A run of one ordering's root thresholds, bounded as a whole.
#[derive(Debug, Clone)]
pub(crate) struct Span {
    /// Its first candidate (an index into the column's [`Positions`]); it ends where the
    /// next run starts.
    pub lo: usize,
    /// No tree rooted at one of its thresholds costs less.
    pub lower: f64,
    /// Per leaf allocation ([`allocations`]), bounds of the left and of the right part of
    /// every such tree.
    pub parts: [Vec<f64>; 2],
}

/// The test of ordering `c` at position `p` of the node's list (the left part is the list
/// before it).
pub(crate) fn threshold_at(node: &Node, c: usize, p: usize) -> Test {
    let list = node.list(c);
    let rank = |q: usize| list.get(q).map_or(0, |e| e.rank); // `p` is a position of the list
    Test::Threshold {
        column: c as u32,
        left: rank(p.saturating_sub(1)),
        right: rank(p),
    }
}

/// The leaves the left part of a split of a subproblem of `depth` (at least one) and
/// `leaves` may have: each part is at most `depth - 1` deep, and holds at least one leaf.
pub(crate) fn allocations(depth: usize, leaves: usize) -> RangeInclusive<usize> {
    let half = 1usize << depth.saturating_sub(1).min(16);
    leaves.saturating_sub(half).max(1)..=leaves.saturating_sub(1).min(half)
}

/// Whether a subproblem of `rows` rows and `depth` bounds its root thresholds by runs
/// (depth three: its parts are depth-two subproblems, which boxes bound in one count).
pub(crate) fn applies(rows: usize, depth: usize) -> bool {
    depth == 3 && large(rows)
}

/// Whether a node of `rows` rows is one whose depth-two searches bound their root
/// thresholds in bulk (by runs, by boxes) rather than evaluate them one by one.
pub(crate) fn large(rows: usize) -> bool {
    rows >= settings().1
}

/// The runs of candidate thresholds `positions` of ordering `c` at `sub` (a subproblem of
/// depth three), covering them all in order, with their bounds. `None` when
/// the column is too small to gain from it, or memory ran out. `side` is scratch of one byte
/// per training row.
pub(crate) fn root_spans<L: Loss>(
    sub: &Sub<'_, '_, L>,
    c: usize,
    positions: &Positions,
    inc: &Incumbent,
    side: &mut [u8],
) -> Option<Vec<Span>> {
    let (ctx, node, loss, depth, leaves) = (sub.ctx, sub.node, sub.loss, sub.depth, sub.leaves);
    let (bins, _, exact_rows) = settings();
    let bins = bins.max(2);
    let m = positions.at.len();
    if !applies(node.len(), depth) || m < 2 * bins {
        return None;
    }
    let shares: Vec<usize> = allocations(depth, leaves).collect();
    if shares.is_empty() {
        return None;
    }
    // The runs start at candidates `edges`; the first's left part and the last's right part
    // are bounded by a leaf's penalty only.
    let edges: Vec<usize> = (0..bins).map(|j| j * m / bins).collect();
    let moved = |i: usize| positions.moved.get(i).copied().unwrap_or(0.0); // i < m, moved's length
    let total: f64 = node.rows.iter().map(|&r| loss.move_cost(r)).sum();
    let alpha = ctx.alpha;
    let mut lefts = vec![vec![alpha; shares.len()]];
    let mut rights = Vec::with_capacity(bins);
    // The bound a part is sought under: a large part only by its boxes.
    let sought = |part: &Node, ub: f64, floor: f64| {
        if part.len() >= exact_rows {
            ub.min(floor + 4.0 * ctx.tol)
        } else {
            ub.max(floor)
        }
    };
    for j in 1..bins {
        if ctx.control.stopped() {
            return None;
        }
        let e = *edges.get(j)?;
        let test = threshold_at(node, c, *positions.at.get(e)? as usize);
        let (l, r) = node.split(ctx.columns, test, true, side, &ctx.keys, ctx.control)?;
        // The right part at `e` closes run j − 1, whose left part is bounded.
        let before = lefts.get(j - 1)?;
        let mut right = Vec::with_capacity(shares.len());
        // Every run's bounds are one per share.
        for (&k, &b) in shares.iter().zip(before) {
            let ub = sought(&r, inc.bound() - b, alpha);
            right.push(
                solve(ctx, &r, depth - 1, leaves - k, ub, alpha, side)
                    .lower
                    .max(alpha),
            );
        }
        rights.push(right);
        // The left part at `e` opens run j: sought under its share (by weight) of the
        // incumbent. It contains run j − 1's left part.
        let end = edges.get(j + 1).copied().unwrap_or(m - 1); // the last run: to the last
        let (wl, wr) = (moved(e), total - moved(end));
        let share = if wl + wr > 0.0 { wl / (wl + wr) } else { 0.5 };
        let mut left = Vec::with_capacity(shares.len());
        for (&k, &floor) in shares.iter().zip(before) {
            let ub = sought(&l, inc.bound() * share, floor);
            left.push(
                solve(ctx, &l, depth - 1, k, ub, floor, side)
                    .lower
                    .max(floor),
            );
        }
        lefts.push(left);
    }
    rights.push(vec![alpha; shares.len()]);
    let mut out = Vec::with_capacity(bins);
    for (j, (left, right)) in lefts.into_iter().zip(rights).enumerate() {
        let lower = left
            .iter()
            .zip(&right)
            .map(|(l, r)| l + r)
            .fold(f64::INFINITY, f64::min)
            .max(2.0 * alpha);
        out.push(Span {
            lo: *edges.get(j)?,
            lower,
            parts: [left, right],
        });
    }
    Some(out)
}
