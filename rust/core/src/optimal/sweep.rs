//! Depth-two subproblems of large nodes solved by one sweep per root column, at a cost that
//! does not depend on how many trees are nearly optimal.
//!
//! A flat subproblem (every root threshold nearly as good as the best, as where the class
//! is one column's test alone) leaves every bin of [`super::boxes`] open, and evaluating
//! its thresholds one sweep at a time costs thousands of sweeps. Here a root column `a` is
//! swept once: its rows move from the right side to the left in rank order, and per side
//! and second column `b` a tree over `b`'s ranks at the node keeps that side's best split
//! on `b`. For classes with per-row costs `c(r, j)` (the row's weight times the cost of
//! predicting class `j`; without a cost matrix, 1 for a wrong class), a split of a side
//! `S` after rank `k` of `b` predicting `p` left and `q` right costs
//! `Σ_S c(r, q) + Σ_{r∈S, rank_b(r) ≤ k} (c(r, p) − c(r, q))`: a constant plus a prefix sum
//! of per-rank values, so the tree holds each rank's sum of `c(r, p) − c(r, q)` and every
//! subtree's least and greatest prefix sum, and its root gives the best threshold for `p`
//! left, `q` right and (negated) for `q` left, `p` right. A row moving costs one point
//! update per side, kept column and pair of classes: O(log n), so every root threshold of
//! `a` gets both sides' best second split in O(f·n·log n) for the column, instead of one
//! O(f·n) sweep per threshold.
//!
//! The boxes make it cheaper still: a second column whose bound in every open box of `a`
//! (bin of root thresholds not ruled out) cannot bring the tree below the incumbent is not
//! kept, its box bound standing in for it; thresholds of ruled-out boxes are not scored,
//! and long stretches of them are moved by rebuilding the trees. Where a stand-in decides a
//! threshold's bound (never, by the rule above, unless a threshold lies in no box) the
//! threshold is evaluated by a sweep ([`super::depth2`]), as is the best threshold found,
//! which gives the tree (the sweep's thresholds and tie-breaking).
//!
//! Classification without nominal features only: other nodes take the threshold-by-threshold
//! search.

use super::boxes::RootBox;
use super::depth2;
use super::intervals::{Hint, Incumbent, Positions};
use super::loss::Loss;
use super::node::Node;
use super::roots::threshold_at;
use super::search::{threshold_positions, Ctx, Sub};

/// Subproblems solved here (tests check that brute force met this path).
#[cfg(test)]
pub(crate) static SWEPT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Most pairs of classes the sweep keeps trees for (4 classes); more take the other path.
const MAX_PAIRS: usize = 6;

/// A tree that will hold rows of fewer than one in this many of its column's ranks gets
/// leaves for their ranks only ([`Tree::slots`]).
const FEW_RANKS: usize = 4;

/// On: every tree gets leaves for its rows' ranks only (tests check that path on tiny data).
#[cfg(test)]
pub(crate) static ALWAYS_SLOTS: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

fn few_ranks(rows: usize, ranks: usize) -> bool {
    #[cfg(test)]
    if ALWAYS_SLOTS.load(std::sync::atomic::Ordering::Relaxed) {
        return true;
    }
    rows.saturating_mul(FEW_RANKS) < ranks
}

/// Whether the sweep solves the depth-two subproblems of this fit's large nodes.
pub(crate) fn applies<L: Loss>(ctx: &Ctx<'_, L>, loss: &L) -> bool {
    let k = loss.classes();
    ctx.columns.nominals.is_empty() && k >= 2 && k * (k - 1) / 2 <= MAX_PAIRS
}

/// Point values over ranks with each subtree's sum and least and greatest prefix sum (the
/// empty prefix included), so that the root holds the extremes over every threshold. The
/// leaves are plain values (their extremes follow from them): a third of the memory of
/// storing them as subtrees, and the leaf an update reads is the sweep's one random access.
struct Prefixes {
    size: usize,
    /// Subtree `k` (1 the root) for `k` below `size`; its children are `2k` and `2k + 1`,
    /// and child `size + i` is leaf `i`.
    nodes: Vec<[f64; 3]>,
    leaves: Vec<f64>,
}

impl Prefixes {
    /// Zero over `m` ranks. `None` when memory runs out.
    fn new<L: Loss>(ctx: &Ctx<'_, L>, m: usize) -> Option<Prefixes> {
        let size = m.max(1).next_power_of_two();
        Some(Prefixes {
            size,
            nodes: ctx.control.filled(size, [0.0; 3])?,
            leaves: ctx.control.filled(size, 0.0)?,
        })
    }

    #[inline]
    fn join(l: [f64; 3], r: [f64; 3]) -> [f64; 3] {
        [l[0] + r[0], l[1].min(l[0] + r[1]), l[2].max(l[0] + r[2])]
    }

    #[inline]
    fn leaf(v: f64) -> [f64; 3] {
        [v, v.min(0.0), v.max(0.0)]
    }

    /// Subtree or leaf `k`, one of the tree's (below `size` plus its leaves): the defaults
    /// are never read.
    #[inline]
    fn at(&self, k: usize) -> [f64; 3] {
        match k.checked_sub(self.size) {
            Some(i) => Self::leaf(self.leaves.get(i).copied().unwrap_or(0.0)),
            None => self.nodes.get(k).copied().unwrap_or([0.0; 3]),
        }
    }

    /// Adds `d` to rank `i`'s value and updates its ancestors.
    #[inline]
    fn add(&mut self, i: usize, d: f64) {
        self.add_leaf(i, d);
        let mut k = (self.size + i) / 2;
        while k >= 1 {
            let joined = Self::join(self.at(2 * k), self.at(2 * k + 1));
            if let Some(x) = self.nodes.get_mut(k) {
                *x = joined;
            }
            k /= 2;
        }
    }

    /// Adds `d` to rank `i`'s value only: [`Self::rebuild`] then updates the rest.
    #[inline]
    fn add_leaf(&mut self, i: usize, d: f64) {
        if let Some(x) = self.leaves.get_mut(i) {
            *x += d;
        }
    }

    fn rebuild(&mut self) {
        for k in (1..self.size).rev() {
            let joined = Self::join(self.at(2 * k), self.at(2 * k + 1));
            if let Some(x) = self.nodes.get_mut(k) {
                *x = joined;
            }
        }
    }

    /// The least and the greatest prefix sum.
    #[inline]
    fn extremes(&self) -> (f64, f64) {
        let root = self.at(1);
        (root[1], root[2])
    }
}

/// The node's rows as the sweeps read them.
struct Prepared {
    /// Each training row's index in the node's rows (only the node's rows are read).
    local: Vec<u32>,
    /// Column-major `orderings × rows`: each row's index among the node's distinct ranks of
    /// each ordering (a sweep reads one column's, which then stays in cache).
    ranks: Vec<u32>,
    /// Distinct ranks at the node per ordering.
    distinct: Vec<usize>,
    /// Row-major `rows × classes`: what each row costs predicted as each class.
    costs: Vec<f64>,
    /// The pairs of classes `p < q`, and per row `c(r, p) − c(r, q)` for each (row-major).
    pairs: Vec<(usize, usize)>,
    deltas: Vec<f64>,
    /// Σ of `costs` over the node's rows, per class.
    total_costs: Vec<f64>,
}

impl Prepared {
    fn new<L: Loss>(ctx: &Ctx<'_, L>, node: &Node, loss: &L) -> Option<Prepared> {
        let control = ctx.control;
        let n = node.len();
        let f = ctx.columns.orderings.len();
        let k = loss.classes();
        let top = node.rows.last().map_or(0, |&r| r as usize + 1); // rows ascend; none: 0
        let mut local = control.filled(top, 0u32)?;
        for (i, &r) in node.rows.iter().enumerate() {
            *local.get_mut(r as usize)? = i as u32;
        }
        let mut ranks = control.filled(n.saturating_mul(f), 0u32)?;
        let mut distinct = Vec::with_capacity(f);
        for b in 0..f {
            let mut index = 0u32;
            let mut last = None;
            for e in node.list(b) {
                if last.is_some_and(|l| l != e.rank) {
                    index += 1;
                }
                last = Some(e.rank);
                let i = *local.get(e.row as usize)? as usize;
                *ranks.get_mut(b * n + i)? = index;
            }
            distinct.push(index as usize + 1);
        }
        let pairs: Vec<(usize, usize)> = (0..k)
            .flat_map(|p| (p + 1..k).map(move |q| (p, q)))
            .collect();
        let mut costs = control.vec(n.saturating_mul(k))?;
        let mut deltas = control.vec(n.saturating_mul(pairs.len()))?;
        let mut total_costs = vec![0.0; k];
        for &r in &node.rows {
            let start = costs.len();
            for (j, t) in total_costs.iter_mut().enumerate() {
                let c = loss.cost_as(r, j);
                costs.push(c);
                *t += c;
            }
            let row = costs.get(start..)?;
            for &(p, q) in &pairs {
                deltas.push(row.get(p)? - row.get(q)?);
            }
        }
        Some(Prepared {
            local,
            ranks,
            distinct,
            costs,
            pairs,
            deltas,
            total_costs,
        })
    }
}

impl Prepared {
    /// Ordering `b`'s rank index of every row, by the row's index in the node's rows.
    fn ranks_of(&self, b: usize) -> Option<&[u32]> {
        let n = self.ranks.len() / self.distinct.len().max(1);
        self.ranks.get(b * n..(b + 1) * n)
    }
}

/// The node's rows in the order of a root column's list, with what the sweeps read of each
/// row gathered in that order: the sweeps then read memory in sequence, where looking rows
/// up by index missed the cache on every row (gathering first took both sides of a column's
/// sweep on a flat 65,000-row node from 72 to 57 ms).
struct Order {
    /// Each row's index in the node's rows.
    local: Vec<u32>,
    /// Row-major, as [`Prepared::deltas`] and [`Prepared::costs`].
    deltas: Vec<f64>,
    costs: Vec<f64>,
}

impl Order {
    /// Root column `a`'s order. `None` when memory runs out.
    fn new<L: Loss>(
        ctx: &Ctx<'_, L>,
        prep: &Prepared,
        list: &[super::node::Entry],
    ) -> Option<Order> {
        let (n_pairs, k) = (prep.pairs.len(), prep.total_costs.len());
        let n = list.len();
        let mut order = Order {
            local: ctx.control.vec(n)?,
            deltas: ctx.control.vec(n.saturating_mul(n_pairs))?,
            costs: ctx.control.vec(n.saturating_mul(k))?,
        };
        for e in list {
            let i = *prep.local.get(e.row as usize)?;
            let i_us = i as usize;
            order.local.push(i);
            order
                .deltas
                .extend_from_slice(prep.deltas.get(i_us * n_pairs..(i_us + 1) * n_pairs)?);
            order
                .costs
                .extend_from_slice(prep.costs.get(i_us * k..(i_us + 1) * k)?);
        }
        Some(order)
    }
}

/// What sweeping one root column found.
struct Swept {
    /// No tree rooted at one of the column's thresholds costs less.
    lower: f64,
    /// The least cost scored exactly below the bound, and the threshold's list position.
    best: Option<(f64, usize)>,
    /// Thresholds below the bound whose score only bounds them (a stand-in decided it):
    /// their bound, list position and box.
    pending: Vec<(f64, usize, Option<usize>)>,
}

/// Per side and second column, the stretch of `a`'s open boxes (first and last index into
/// the boxes) in which the column can matter: its trees are kept from the first box's
/// thresholds to the last's only. A column that can matter only where one side is small
/// (the boxes at either end, where every column splits a few rows well) then costs a tree
/// over those few boxes, not over the whole sweep: on a flat subproblem of 62,500 rows,
/// one column in each interior box, against every column for the whole sweep.
struct KeptTrees {
    spans: [Vec<Option<(usize, usize)>>; 2],
    /// Per box, the least bound of the columns without a tree there.
    stand_in: Vec<[f64; 2]>,
}

impl KeptTrees {
    /// Whether column `b`'s tree on side `s` is kept in box `k`.
    fn in_box(&self, s: usize, b: usize, k: usize) -> bool {
        self.spans
            .get(s)
            .and_then(|v| v.get(b).copied().flatten())
            .is_some_and(|(first, last)| first <= k && k <= last)
    }
}

/// Which second columns can matter in which of `a`'s open boxes (bound `u`).
fn kept<L: Loss>(ctx: &Ctx<'_, L>, boxes: &[RootBox], u: f64) -> KeptTrees {
    let f = ctx.columns.orderings.len();
    let alpha = ctx.alpha;
    let least = |v: &[f64]| v.iter().fold(f64::INFINITY, |m, &x| m.min(x));
    let mut spans: [Vec<Option<(usize, usize)>>; 2] = [vec![None; f], vec![None; f]];
    for (k, b) in boxes.iter().enumerate() {
        if b.lower >= u - ctx.tol {
            continue;
        }
        // Each side costs at least its least column bound and a leaf's penalty.
        let side_lower = b.columns.each_ref().map(|c| least(c) + alpha);
        for s in 0..2 {
            let (Some(floors), Some(other), Some(spans)) =
                (b.columns.get(s), side_lower.get(1 - s), spans.get_mut(s))
            else {
                continue;
            };
            for (c, span) in spans.iter_mut().enumerate() {
                let floor = floors.get(c).copied().unwrap_or(0.0); // nothing known: a cost's 0
                if floor + 2.0 * alpha + other < u - ctx.tol {
                    *span = Some(span.map_or((k, k), |(first, _)| (first, k))); // or opens it
                }
            }
        }
    }
    let mut kept = KeptTrees {
        spans,
        stand_in: Vec::with_capacity(boxes.len()),
    };
    for (k, b) in boxes.iter().enumerate() {
        let mut m = [f64::INFINITY; 2];
        for (s, slot) in m.iter_mut().enumerate() {
            let Some(floors) = b.columns.get(s) else {
                continue;
            };
            for c in (0..f).filter(|&c| !kept.in_box(s, c, k)) {
                *slot = slot.min(floors.get(c).copied().unwrap_or(0.0)); // nothing known: 0
            }
        }
        kept.stand_in.push(m);
    }
    kept
}

/// One column's trees on one side (one per pair of classes), with a leaf per rank the rows
/// it will ever hold have.
struct Tree {
    sums: Vec<Prefixes>,
    /// The first list position it may hold, and per position from there the row's leaf;
    /// `None` when it has a leaf per rank of the column (looked up in
    /// [`Prepared::ranks_of`]). A column kept only where one side is small (at either end
    /// of the sweep) then costs a tree over those few rows' ranks, not over all of them:
    /// zeroing and rebuilding a 65,536-rank tree for each such column was more than half of
    /// a flat 65,000-row subproblem's time (1.8 s, now 0.9 s).
    slots: Option<(usize, Vec<u32>)>,
}

impl Tree {
    /// The leaf of the row at list position `j` (its index `i` in the node's rows).
    #[inline]
    fn leaf(&self, ranks: &[u32], j: usize, i: u32) -> Option<usize> {
        match &self.slots {
            None => ranks.get(i as usize).map(|&r| r as usize),
            Some((from, at)) => at.get(j.checked_sub(*from)?).map(|&r| r as usize),
        }
    }
}

/// One side's trees over the second columns kept at the current threshold.
struct Side {
    /// Per column, its trees while kept.
    trees: Vec<Option<Tree>>,
    /// The columns with trees, in order.
    live: Vec<usize>,
    /// Per column, whether its trees were kept and dropped already.
    done: Vec<bool>,
}

impl Side {
    fn new(f: usize) -> Side {
        Side {
            trees: (0..f).map(|_| None).collect(),
            live: Vec::new(),
            done: vec![false; f],
        }
    }

    /// Starts column `b`'s trees from the rows at `rows` of `order` (those on this side),
    /// to hold only rows at `horizon` (which contains `rows`). `None` when memory runs out.
    fn start<L: Loss>(
        &mut self,
        ctx: &Ctx<'_, L>,
        prep: &Prepared,
        order: &Order,
        b: usize,
        rows: std::ops::Range<usize>,
        horizon: std::ops::Range<usize>,
    ) -> Option<()> {
        let n_pairs = prep.pairs.len();
        let ranks = prep.ranks_of(b)?;
        let distinct = *prep.distinct.get(b)?;
        let (slots, width) = if few_ranks(horizon.len(), distinct) {
            let mut by_rank: Vec<(u32, u32)> = Vec::with_capacity(horizon.len());
            for (j, &i) in horizon.clone().zip(order.local.get(horizon.clone())?) {
                by_rank.push((*ranks.get(i as usize)?, (j - horizon.start) as u32));
            }
            by_rank.sort_unstable();
            let mut at = vec![0u32; horizon.len()];
            let mut slot = 0u32;
            let mut last = None;
            for &(rank, j) in &by_rank {
                if last.is_some_and(|l| l != rank) {
                    slot += 1;
                }
                last = Some(rank);
                *at.get_mut(j as usize)? = slot;
            }
            (Some((horizon.start, at)), slot as usize + 1)
        } else {
            (None, distinct)
        };
        let mut tree = Tree {
            sums: Vec::with_capacity(n_pairs),
            slots,
        };
        for _ in 0..n_pairs {
            tree.sums.push(Prefixes::new(ctx, width)?);
        }
        let deltas = order.deltas.get(rows.start * n_pairs..rows.end * n_pairs)?;
        for ((j, &i), deltas) in rows
            .clone()
            .zip(order.local.get(rows)?)
            .zip(deltas.chunks_exact(n_pairs.max(1)))
        {
            let leaf = tree.leaf(ranks, j, i)?;
            for (t, &d) in tree.sums.iter_mut().zip(deltas) {
                t.add_leaf(leaf, d);
            }
        }
        tree.sums.iter_mut().for_each(Prefixes::rebuild);
        *self.trees.get_mut(b)? = Some(tree);
        self.live.push(b);
        self.live.sort_unstable();
        Some(())
    }

    /// Drops column `b`'s trees.
    fn stop(&mut self, b: usize) {
        if let Some(t) = self.trees.get_mut(b) {
            *t = None;
        }
        if let Some(d) = self.done.get_mut(b) {
            *d = true;
        }
        self.live.retain(|&c| c != b);
    }

    /// The least cost of a split of the side over its kept columns, from its per-class
    /// costs `c`.
    fn best_split(&self, pairs: &[(usize, usize)], c: &[f64]) -> f64 {
        let mut best = f64::INFINITY;
        for tree in self.trees.iter().flatten() {
            for (t, &(p, q)) in tree.sums.iter().zip(pairs) {
                let (lo, hi) = t.extremes();
                // Classes p and q of `c`, a cost per class: the defaults are never read.
                let (cp, cq) = (
                    c.get(p).copied().unwrap_or(0.0),
                    c.get(q).copied().unwrap_or(0.0),
                );
                best = best.min((cq + lo).min(cp - hi));
            }
        }
        best
    }
}

/// Where the sweep of `a`'s thresholds stands: its boxes walked in order, the closed ones
/// skipped. Both sides' walks and the scoring follow the same steps.
struct Walk<'b> {
    boxes: &'b [RootBox],
    u: f64,
    tol: f64,
    at: usize,
}

/// A threshold's place among the boxes.
enum Step {
    /// In a box the bound rules out (its bound).
    Closed(f64),
    /// To be scored (in that box, if any).
    Open(Option<usize>),
}

impl Walk<'_> {
    /// The step of the threshold at list position `p` (positions ascending).
    fn step(&mut self, p: usize) -> Step {
        while self.boxes.get(self.at).is_some_and(|b| b.hi <= p) {
            self.at += 1;
        }
        let in_box = self
            .boxes
            .get(self.at)
            .filter(|b| b.lo <= p)
            .map(|_| self.at);
        match in_box.and_then(|k| self.boxes.get(k).map(|b| (k, b.lower))) {
            Some((_, lower)) if lower >= self.u - self.tol => Step::Closed(lower),
            _ => Step::Open(in_box),
        }
    }
}

/// What both sides of root column `a`'s sweep read: its thresholds `positions`, its boxes
/// (sorted), the columns each box keeps and the bound `u`.
#[derive(Clone, Copy)]
struct Plan<'a> {
    node: &'a Node,
    prep: &'a Prepared,
    order: &'a Order,
    a: usize,
    positions: &'a Positions,
    boxes: &'a [RootBox],
    kept: &'a KeptTrees,
    u: f64,
}

/// Per threshold of `a` the sweep scores, side `s`'s best split over its kept columns and
/// whether some column had no tree there (infinite and false at the others). The two
/// sides' trees never meet, so each side is swept on its own (on its own thread).
fn side_splits<L: Loss>(ctx: &Ctx<'_, L>, plan: Plan<'_>, s: usize) -> Option<Vec<(f64, bool)>> {
    let Plan {
        node,
        prep,
        order,
        a,
        positions,
        boxes,
        kept,
        u,
    } = plan;
    let f = ctx.columns.orderings.len();
    let n_pairs = prep.pairs.len();
    let n_classes = prep.total_costs.len();
    let list = node.list(a);
    let mut out = ctx
        .control
        .filled(positions.at.len(), (f64::INFINITY, false))?;
    // The left side starts empty, the right full; each column's trees start in the first
    // box that keeps them.
    let mut side = Side::new(f);
    let sign = if s == 0 { 1.0 } else { -1.0 };
    let mut costs = if s == 0 {
        vec![0.0; n_classes]
    } else {
        prep.total_costs.clone()
    };
    let mut moved_to = 0usize;
    let mut walk = Walk {
        boxes,
        u,
        tol: ctx.tol,
        at: 0,
    };
    for (ci, &p) in positions.at.iter().enumerate() {
        let p = p as usize;
        let Step::Open(in_box) = walk.step(p) else {
            continue;
        };
        if ci % 256 == 0 && ctx.control.stopped() {
            return None;
        }
        let span_of = |b: usize| kept.spans.get(s).and_then(|v| v.get(b).copied().flatten());
        // Drop the trees kept only before here (before moving rows into them: a tree holds
        // no row past its last box).
        for b in 0..f {
            let has = side.trees.get(b).is_some_and(Option::is_some);
            if has && span_of(b).is_some_and(|(_, last)| last < walk.at) {
                side.stop(b);
            }
        }
        // Move the rows before `p` to the left: one by one, or, for a long stretch, by
        // setting the trees' leaves and rebuilding them.
        let stretch = p - moved_to.min(p);
        let rows = order.local.get(moved_to..p)?;
        let deltas = order.deltas.get(moved_to * n_pairs..p * n_pairs)?;
        let row_costs = order.costs.get(moved_to * n_classes..p * n_classes)?;
        for &b in &side.live {
            let ranks = prep.ranks_of(b)?;
            let Some(tree) = side.trees.get_mut(b).and_then(Option::as_mut) else {
                continue;
            };
            let size = tree.sums.first().map_or(1, |t| t.size); // no pairs: nothing to rebuild
            let rebuild = stretch * size.trailing_zeros() as usize > size;
            for ((j, &i), deltas) in (moved_to..p)
                .zip(rows)
                .zip(deltas.chunks_exact(n_pairs.max(1)))
            {
                let leaf = tree.leaf(ranks, j, i)?;
                for (t, &d) in tree.sums.iter_mut().zip(deltas) {
                    if rebuild {
                        t.add_leaf(leaf, sign * d);
                    } else {
                        t.add(leaf, sign * d);
                    }
                }
            }
            if rebuild {
                tree.sums.iter_mut().for_each(Prefixes::rebuild);
            }
        }
        for row_costs in row_costs.chunks_exact(n_classes.max(1)) {
            for (x, &c) in costs.iter_mut().zip(row_costs) {
                *x += sign * c;
            }
        }
        moved_to = p;
        // Start the trees this box is the first to keep: a left tree holds rows up to its
        // last box's end, a right one from its first box's start.
        if let Some(k) = in_box {
            for b in 0..f {
                let Some((first, last)) = span_of(b) else {
                    continue;
                };
                let has = side.trees.get(b).is_some_and(Option::is_some);
                if !has && first <= k && k <= last && !*side.done.get(b)? {
                    let n = list.len();
                    // `first..=last` are boxes (`span_of`): the defaults are never read.
                    let (rows, horizon) = if s == 0 {
                        (0..p, 0..boxes.get(last).map_or(n, |x| x.hi.clamp(p, n)))
                    } else {
                        (p..n, boxes.get(first).map_or(0, |x| x.lo.min(p))..n)
                    };
                    side.start(ctx, prep, order, b, rows, horizon)?;
                }
            }
        }
        *out.get_mut(ci)? = (side.best_split(&prep.pairs, &costs), side.live.len() < f);
    }
    Some(out)
}

/// Nodes of at least this many rows sweep their two sides on two threads.
const PARALLEL_ROWS: usize = 1 << 14;

/// Sweeps root column `a`'s thresholds `positions` (`boxes`: its boxes, sorted) under bound
/// `u`. `None` when memory runs out or the search stopped.
fn sweep<L: Loss>(
    sub: &Sub<'_, '_, L>,
    prep: &Prepared,
    a: usize,
    positions: &Positions,
    boxes: &[RootBox],
    u: f64,
) -> Option<Swept> {
    let (ctx, node, loss, leaves) = (sub.ctx, sub.node, sub.loss, sub.leaves);
    let tol = ctx.tol;
    let alpha = ctx.alpha;
    let kept = kept(ctx, boxes, u);
    let order = Order::new(ctx, prep, node.list(a))?;
    let plan = Plan {
        node,
        prep,
        order: &order,
        a,
        positions,
        boxes,
        kept: &kept,
        u,
    };
    let splits_of = |s: usize| side_splits(ctx, plan, s);
    let (left, right) = if ctx.parallel && node.len() >= PARALLEL_ROWS {
        rayon::join(|| splits_of(0), || splits_of(1))
    } else {
        (splits_of(0), splits_of(1))
    };
    let splits = [left?, right?];
    let list = node.list(a);
    let total = loss.stats(node.rows.iter().copied());
    let mut stats = vec![0.0; loss.width()];
    let mut out = Swept {
        lower: f64::INFINITY,
        best: None,
        pending: Vec::new(),
    };
    let mut bound = u;
    let mut moved_to = 0usize;
    let mut walk = Walk {
        boxes,
        u,
        tol,
        at: 0,
    };
    for (ci, &p) in positions.at.iter().enumerate() {
        let p = p as usize;
        let in_box = match walk.step(p) {
            Step::Closed(lower) => {
                out.lower = out.lower.min(lower);
                continue;
            }
            Step::Open(in_box) => in_box,
        };
        for e in list.get(moved_to..p)? {
            loss.add(&mut stats, e.row);
        }
        moved_to = p;
        let [(split_l, partial_l), (split_r, partial_r)] =
            [splits[0].get(ci)?, splits[1].get(ci)?].map(|&x| x);
        // Score the threshold: each side a leaf or its best split, where a stand-in (the
        // columns without trees) may only bound it.
        let stand_in = match in_box.and_then(|k| kept.stand_in.get(k)) {
            Some(&m) => m,
            // In no box (never, by the rule above): any column without a tree may split it.
            None => [partial_l, partial_r].map(|partial| if partial { 0.0 } else { f64::INFINITY }),
        };
        let leaf = [loss.err(&stats), loss.err_rest(&total, &stats)];
        let split = [split_l, split_r];
        let mut exact = true;
        let scored = [
            (leaf[0], split[0], stand_in[0]),
            (leaf[1], split[1], stand_in[1]),
        ];
        let stump: [f64; 2] = scored.map(|(leaf, split, stand)| {
            let found = split.min(stand);
            let cost = (leaf + alpha).min(found + 2.0 * alpha);
            if stand < split && cost < leaf + alpha {
                exact = false;
            }
            cost
        });
        let score = if leaves >= 4 {
            stump[0] + stump[1]
        } else {
            (stump[0] + leaf[1] + alpha).min(leaf[0] + alpha + stump[1])
        };
        out.lower = out.lower.min(score);
        if score < bound - tol {
            if exact {
                bound = score;
                out.best = Some((score, p));
            } else {
                out.pending.push((score, p, in_box));
            }
        }
    }
    Some(out)
}

/// A node's rows prepared for sweeping its root columns.
pub(crate) struct Sweeper {
    prep: Prepared,
}

impl Sweeper {
    /// `None` when the sweep does not apply to this fit ([`applies`]) or memory runs out.
    pub(crate) fn new<L: Loss>(ctx: &Ctx<'_, L>, node: &Node, loss: &L) -> Option<Sweeper> {
        if !applies(ctx, loss) {
            return None;
        }
        #[cfg(test)]
        SWEPT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Prepared::new(ctx, node, loss).map(|prep| Sweeper { prep })
    }

    /// Searches every root threshold of ordering `a` (its `boxes`, sorted by position):
    /// the best tree is offered to `inc` and every threshold closed at its bound. `side`
    /// is scratch of one byte per training row.
    pub(crate) fn column<L: Loss>(
        &self,
        sub: &Sub<'_, '_, L>,
        a: usize,
        boxes: &[RootBox],
        inc: &mut Incumbent,
        side: &mut [u8],
    ) {
        let least = boxes.iter().fold(f64::INFINITY, |m, b| m.min(b.lower));
        let positions = threshold_positions(sub.ctx, sub.node, sub.loss, a);
        let u = inc.bound();
        let Some(swept) = sweep(sub, &self.prep, a, &positions, boxes, u) else {
            // Stopped (or out of memory): the boxes bound the column.
            inc.close(least);
            return;
        };
        inc.close(swept.lower);
        let mut evaluate = |p: usize, hint: &Hint, inc: &mut Incumbent| {
            let test = threshold_at(sub.node, a, p);
            depth2::evaluate(sub, test, 0.0, hint, inc, side);
        };
        if let Some((score, p)) = swept.best {
            if !inc.rules_out(score) {
                evaluate(p, &Hint::default(), inc);
            }
        }
        for (score, p, k) in swept.pending {
            if inc.rules_out(score) {
                continue;
            }
            let mut hint = Hint::default();
            if let Some(b) = k.and_then(|k| boxes.get(k)) {
                hint.raise_columns(&b.columns);
            }
            evaluate(p, &hint, inc);
        }
    }
}
