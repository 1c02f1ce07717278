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

use super::columns::MissingRank;
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

/// A column's cells at a node: how many, and each of the node's rows' (in the order of
/// `node.rows`), as pair tables count them.
pub(crate) trait Cells: Sync {
    fn cells(&self) -> usize;
    fn index(&self) -> &[u8];
}

impl Cells for Local {
    fn cells(&self) -> usize {
        match &self.kind {
            Kind::Ranks(ranks) => ranks.len(),
            Kind::Slots(n) => *n,
        }
    }

    fn index(&self) -> &[u8] {
        &self.index
    }
}

impl Local {
    /// Whether this column's best split of a row set is never below that of a subset of it
    /// (or the subset's leaf), as the restriction of the split shows: true unless the column
    /// is a missing-first ordering, whose sweep skips the known-versus-missing boundary (the
    /// missing-last ordering tests it), which a subset can meet at another rank.
    fn monotone<L: Loss>(&self, ctx: &Ctx<'_, L>) -> bool {
        match self.kind {
            Kind::Ranks(_) => ctx
                .columns
                .orderings
                .get(self.column)
                .is_some_and(|o| o.missing_rank != MissingRank::First),
            Kind::Slots(_) => true,
        }
    }
}

/// The node's statistics per cell (rank of `a`, rank of `b`) of every pair of its columns
/// `a <= b`: one pass over the rows per unordered pair, read by both roots.
pub(crate) struct Tables {
    /// `pairs[a][b - a]`: `ka × kb` cells of `w` numbers, and their row counts.
    pairs: Vec<Vec<(Vec<f64>, Vec<u32>)>>,
    cells: Vec<usize>,
}

impl Tables {
    /// `None` when the search stopped.
    pub(crate) fn new<L: Loss, C: Cells>(
        ctx: &Ctx<'_, L>,
        node: &Node,
        loss: &L,
        locals: &[C],
        parallel: bool,
    ) -> Option<Tables> {
        let w = loss.width();
        // Rows that count one each (unit weights, no costs): each row's class in node order,
        // so that a pair's pass counts integers in one table instead of adding weights
        // looked up by row (on the planted 100k x 20 set at depth three, the tables' share of
        // the fit fell from 20% to 8%).
        let classes: Option<Vec<u8>> = loss
            .counted_classes()
            .filter(|_| w <= usize::from(u8::MAX) + 1)
            .map(|labels| {
                node.rows
                    .iter()
                    .map(|&r| labels.get(r as usize).map_or(0, |&c| c as u8)) // a training row
                    .collect()
            });
        let row = |a: usize| {
            if ctx.control.stopped() {
                return None;
            }
            let first = locals.get(a)?;
            let tables = locals
                .get(a..)?
                .iter()
                .map(|b| match &classes {
                    Some(classes) => count_classes(classes, first, b, w),
                    None => add_rows(node, loss, first, b),
                })
                .collect();
            Some(tables)
        };
        let pairs = if parallel {
            (0..locals.len())
                .into_par_iter()
                .map(row)
                .collect::<Option<_>>()
        } else {
            (0..locals.len()).map(row).collect::<Option<_>>()
        }?;
        Some(Tables {
            pairs,
            cells: locals.iter().map(Cells::cells).collect(),
        })
    }

    /// The cells of the pair (`a`, `b`) into `cells` and `counts`, rows by rank of `a`.
    pub(crate) fn load(
        &self,
        a: usize,
        b: usize,
        w: usize,
        cells: &mut Vec<f64>,
        counts: &mut Vec<u32>,
    ) -> Option<()> {
        let (lo, hi) = (a.min(b), a.max(b));
        let (t, c) = self.pairs.get(lo)?.get(hi - lo)?;
        cells.clear();
        counts.clear();
        if a <= b {
            cells.extend_from_slice(t);
            counts.extend_from_slice(c);
            return Some(());
        }
        // Stored by rank of `b`: transposed.
        let (kb, ka) = (*self.cells.get(lo)?, *self.cells.get(hi)?);
        cells.resize(t.len(), 0.0);
        counts.resize(c.len(), 0);
        for j in 0..kb {
            for i in 0..ka {
                let (src, dst) = (j * ka + i, i * kb + j);
                *counts.get_mut(dst)? = *c.get(src)?;
                cells
                    .get_mut(dst * w..(dst + 1) * w)?
                    .copy_from_slice(t.get(src * w..(src + 1) * w)?);
            }
        }
        Some(())
    }

    /// The statistics of column `a`'s cells (ranks or slots) at the node.
    pub(crate) fn by_rank(&self, a: usize, w: usize) -> Option<Vec<f64>> {
        // The pair (a, a) holds them on its diagonal.
        let (t, _) = self.pairs.get(a)?.first()?;
        let k = *self.cells.get(a)?;
        let mut out = vec![0.0; k * w];
        for i in 0..k {
            out.get_mut(i * w..(i + 1) * w)?
                .copy_from_slice(t.get((i * k + i) * w..(i * k + i + 1) * w)?);
        }
        Some(out)
    }
}

/// The pair (`a`, `b`)'s cells and row counts from each row's loss statistics.
fn add_rows<L: Loss>(
    node: &Node,
    loss: &L,
    a: &impl Cells,
    b: &impl Cells,
) -> (Vec<f64>, Vec<u32>) {
    let (w, kb) = (loss.width(), b.cells());
    let mut cells = vec![0.0; a.cells() * kb * w];
    let mut counts = vec![0u32; a.cells() * kb];
    for ((&r, &i), &j) in node.rows.iter().zip(a.index()).zip(b.index()) {
        let at = usize::from(i) * kb + usize::from(j);
        if let Some(cell) = cells.get_mut(at * w..(at + 1) * w) {
            loss.add(cell, r);
        }
        if let Some(c) = counts.get_mut(at) {
            *c += 1;
        }
    }
    (cells, counts)
}

/// [`add_rows`] where each row counts one: the rows of each cell and class (`classes`, in
/// the order of `node.rows`, `w` of them) are counted as integers.
fn count_classes(classes: &[u8], a: &impl Cells, b: &impl Cells, w: usize) -> (Vec<f64>, Vec<u32>) {
    let kb = b.cells();
    let mut by_class = vec![0u32; a.cells() * kb * w];
    for ((&c, &i), &j) in classes.iter().zip(a.index()).zip(b.index()) {
        let at = (usize::from(i) * kb + usize::from(j)) * w + usize::from(c);
        if let Some(x) = by_class.get_mut(at) {
            *x += 1;
        }
    }
    let cells = by_class.iter().map(|&x| f64::from(x)).collect();
    let counts = by_class
        .chunks_exact(w.max(1))
        .map(|c| c.iter().sum())
        .collect();
    (cells, counts)
}

/// Where each column's cells start in a row of cells of every column, and the row's width.
fn offsets(locals: &[Local]) -> (Vec<usize>, usize) {
    let mut at = 0;
    let offsets = locals
        .iter()
        .map(|b| {
            let here = at;
            at += b.cells();
            here
        })
        .collect();
    (offsets, at)
}

/// What bounds each column's best split of the two sides of a root walked through its
/// splits: per column and side, the split's error when last swept (or the side's leaf, if
/// smaller), less the moves of the rows the side lost since. A side that only gains rows
/// keeps the bound (restrict the larger side's split, [`Local::monotone`]); so a column is
/// not swept where it cannot beat the best split already found on another.
struct Bars {
    floors: Vec<[f64; 2]>,
    monotone: Vec<bool>,
    /// Per side, the column that split it best last: swept first, it sets the bar.
    leads: [Option<usize>; 2],
}

impl Bars {
    fn new<L: Loss>(ctx: &Ctx<'_, L>, locals: &[Local]) -> Bars {
        Bars {
            floors: vec![[f64::NEG_INFINITY; 2]; locals.len()],
            monotone: locals.iter().map(|b| b.monotone(ctx)).collect(),
            leads: [None, None],
        }
    }

    /// Side `side` lost rows of move cost `moves`.
    fn lose(&mut self, side: usize, moves: f64) {
        for f in &mut self.floors {
            if let Some(x) = f.get_mut(side) {
                *x -= moves;
            }
        }
    }

    /// The best split of side `side` on any column, from its cells of every column at
    /// `offsets` (statistics and counts) and its statistics `stats`. `None` only on a
    /// malformed layout.
    #[allow(clippy::too_many_arguments)]
    fn best<L: Loss>(
        &mut self,
        ctx: &Ctx<'_, L>,
        loss: &L,
        locals: &[Local],
        offsets: &[usize],
        side: usize,
        (cells, counts): (&[f64], &[u32]),
        stats: &[f64],
    ) -> Option<Best> {
        let w = loss.width();
        let mut prefix = [0.0; 8];
        let mut prefix_vec;
        let prefix: &mut [f64] = if w <= 8 {
            prefix.get_mut(..w)?
        } else {
            prefix_vec = vec![0.0; w];
            &mut prefix_vec
        };
        let mut held: Best = None;
        let lead = self.leads.get(side).copied().flatten();
        let order = lead
            .into_iter()
            .chain((0..locals.len()).filter(|&k| Some(k) != lead));
        for k in order {
            let (b, &off) = (locals.get(k)?, offsets.get(k)?);
            let floor = self.floors.get_mut(k)?.get_mut(side)?;
            if held.is_some_and(|(h, _)| *floor >= h - ctx.tol)
                && self.monotone.get(k) == Some(&true)
            {
                continue;
            }
            let (lo, hi) = (off, off + b.cells());
            let found = sweep(
                ctx,
                loss,
                b,
                cells.get(lo * w..hi * w)?,
                counts.get(lo..hi)?,
                stats,
                prefix,
            );
            *floor = found.map_or(f64::INFINITY, |(e, _)| e).min(loss.err(stats)); // none: no split
            if found.is_some_and(|(e, _)| held.is_none_or(|(h, _)| e < h - ctx.tol)) {
                held = found;
                *self.leads.get_mut(side)? = Some(k);
            }
        }
        Some(held)
    }
}

/// The best side tree found: its error (no leaf penalty) and its test.
pub(crate) type Best = Option<(f64, Test)>;

/// What counting proved of a node's depth-two trees rooted at a split.
pub(crate) struct Counted {
    /// The cheapest such tree found, with its cost (penalty `alpha` per leaf included).
    pub best: Option<(f64, Sol)>,
    /// The trees not scored (ruled out by the bound) cost at least this.
    pub floor: f64,
}

/// Every tree of depth two (at most `leaves` leaves, 3 or 4) rooted at a split of `node`,
/// by counting: thresholds of orderings all scored, subsets of nominal features scored
/// unless they cannot cost less than `bound`. `None` when the node's columns do not suit
/// counting (an ordering has more than [`MAX_RANKS`] ranks here, or a nominal feature more
/// than [`MAX_RANKS`] slots) or when the search stopped.
pub(crate) fn solve<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    leaves: usize,
    bound: f64,
) -> Option<Counted> {
    #[cfg(test)]
    if !COUNTING.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    let locals = locals(ctx, node)?;
    let total = loss.stats(node.rows.iter().copied());
    let parallel = ctx.parallel && node.len() * locals.len() >= PARALLEL_ENTRIES;
    let tables = Tables::new(ctx, node, loss, &locals, parallel)?;
    let by_root = |(ai, a): (usize, &Local)| match &a.kind {
        Kind::Ranks(ranks) => Some(Counted {
            best: root(ctx, loss, leaves, &total, ai, ranks, &locals, &tables),
            floor: f64::INFINITY,
        }),
        Kind::Slots(n) => nominal_root(
            ctx, node, loss, leaves, &total, ai, *n, &locals, &tables, bound,
        ),
    };
    let results: Vec<Option<Counted>> = if parallel {
        locals.par_iter().enumerate().map(by_root).collect()
    } else {
        locals.iter().enumerate().map(by_root).collect()
    };
    if ctx.control.stopped() {
        return None;
    }
    // The first of the cheapest, in column order: the result does not depend on threads.
    let mut out = Counted {
        best: None,
        floor: f64::INFINITY,
    };
    for counted in results {
        let counted = counted?;
        out.floor = out.floor.min(counted.floor);
        if let Some((cost, sol)) = counted.best {
            if out.best.as_ref().is_none_or(|(c, _)| cost < c - ctx.tol) {
                out.best = Some((cost, sol));
            }
        }
    }
    Some(out)
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
            // A training row's rank, one of the node's `ranks`: the defaults are never read.
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
                .map(|&r| nominal.code.get(r as usize).copied().unwrap_or(0) as u8), // a training row
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
    loss: &L,
    leaves: usize,
    total: &[f64],
    ai: usize,
    ranks: &[u32],
    locals: &[Local],
    tables: &Tables,
) -> Option<(f64, Sol)> {
    let a = locals.get(ai)?;
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
    let mut below = tables.by_rank(ai, w)?;
    cumulate(&mut below, ka, w);
    let mut above = vec![0.0; ka * w];
    for (x, (&l, &t)) in above.iter_mut().zip(below.iter().zip(total.iter().cycle())) {
        *x = t - l;
    }
    // Per threshold i of `a`, the rows of rank <= i by cell of every column.
    let (offsets, width) = offsets(locals);
    let mut cum = ctx.control.filled(ka * width * w, 0.0)?;
    let mut cum_counts = ctx.control.filled(ka * width, 0u32)?;
    let (mut cells, mut counts) = (Vec::new(), Vec::new());
    for (bi, (b, &off)) in locals.iter().zip(&offsets).enumerate() {
        let kb = b.cells();
        tables.load(ai, bi, w, &mut cells, &mut counts)?;
        cumulate(&mut cells, ka, kb * w);
        cumulate(&mut counts, ka, kb);
        for i in 0..ka {
            let at = i * width + off;
            cum.get_mut(at * w..(at + kb) * w)?
                .copy_from_slice(cells.get(i * kb * w..(i + 1) * kb * w)?);
            cum_counts
                .get_mut(at..at + kb)?
                .copy_from_slice(counts.get(i * kb..(i + 1) * kb)?);
        }
    }
    // The last threshold row holds every rank of `a`: the node's rows by cell.
    let all = cum.get((ka - 1) * width * w..)?.to_vec();
    let all_counts = cum_counts.get((ka - 1) * width..)?.to_vec();
    // The left side only gains rows as the threshold rises, the right side as it falls.
    let mut bars = Bars::new(ctx, locals);
    for i in 0..ka - 1 {
        if ordering_a.is_duplicate(*ranks.get(i)?) {
            continue;
        }
        let side = (
            cum.get(i * width * w..(i + 1) * width * w)?,
            cum_counts.get(i * width..(i + 1) * width)?,
        );
        let stats = below.get(i * w..(i + 1) * w)?;
        *best_left.get_mut(i)? = bars.best(ctx, loss, locals, &offsets, 0, side, stats)?;
    }
    let mut rest = vec![0.0; width * w];
    let mut rest_counts = vec![0u32; width];
    for i in (0..ka - 1).rev() {
        if ordering_a.is_duplicate(*ranks.get(i)?) {
            continue;
        }
        let left = cum.get(i * width * w..(i + 1) * width * w)?;
        let left_counts = cum_counts.get(i * width..(i + 1) * width)?;
        for ((r, &t), &l) in rest.iter_mut().zip(&all).zip(left) {
            *r = t - l;
        }
        for ((r, &t), &l) in rest_counts.iter_mut().zip(&all_counts).zip(left_counts) {
            *r = t - l;
        }
        let stats = above.get(i * w..(i + 1) * w)?;
        let side = (&rest[..], &rest_counts[..]);
        *best_right.get_mut(i)? = bars.best(ctx, loss, locals, &offsets, 1, side, stats)?;
    }
    let mut best: Option<(f64, Sol)> = None;
    for i in 0..ka - 1 {
        let (left_rank, right_rank) = (*ranks.get(i)?, *ranks.get(i + 1)?);
        if ordering_a.is_duplicate(left_rank) {
            continue;
        }
        let left_total = below.get(i * w..(i + 1) * w)?;
        let leaf = [loss.err(left_total), loss.err_rest(total, left_total)];
        let (cost, tests) = compose(ctx, leaves, leaf, [*best_left.get(i)?, *best_right.get(i)?]);
        if best.as_ref().is_none_or(|(c, _)| cost < c - ctx.tol) {
            let test = Test::Threshold {
                column: a.column as u32,
                left: left_rank,
                right: right_rank,
            };
            best = Some((cost, tree(test, tests)));
        }
    }
    best
}

/// The cheapest tree of depth two (at most `leaves` leaves, 3 or 4) under a root split whose
/// sides are, as leaves, of error `leaf` and whose best splits are `split` (errors without
/// the penalties): its cost and each side's test (`None`: a leaf).
pub(crate) fn compose<L: Loss>(
    ctx: &Ctx<'_, L>,
    leaves: usize,
    leaf: [f64; 2],
    split: [Best; 2],
) -> (f64, [Option<Test>; 2]) {
    let alpha = ctx.alpha;
    let pick = |leaf: f64, split: Best| {
        let leaf = leaf + alpha;
        match split {
            Some((e, t)) if e + 2.0 * alpha < leaf - ctx.tol => (e + 2.0 * alpha, Some(t)),
            _ => (leaf, None),
        }
    };
    let ([leaf_left, leaf_right], [split_left, split_right]) = (leaf, split);
    let (cl, tl) = pick(leaf_left, split_left);
    let (cr, tr) = pick(leaf_right, split_right);
    if leaves >= 4 {
        (cl + cr, [tl, tr])
    } else {
        // Three leaves: a stump on at most one side.
        let (leaf_l, leaf_r) = (leaf_left + alpha, leaf_right + alpha);
        if cl + leaf_r <= leaf_l + cr {
            (cl + leaf_r, [tl, None])
        } else {
            (leaf_l + cr, [None, tr])
        }
    }
}

/// The tree `test` over the sides' `tests` (`None`: a leaf).
pub(crate) fn tree(test: Test, tests: [Option<Test>; 2]) -> Sol {
    let [l, r] = tests.map(|t| t.map_or_else(Sol::leaf, Sol::stump));
    Sol::split(test, &l, &r)
}

/// Subsets scored between two recomputations of the left side's statistics from the
/// slots' (the Gray-code walk adds and removes one slot per step, and its rounding would
/// otherwise accumulate over up to 2^20 steps).
const REFRESH: u64 = 1024;

/// The cheapest depth-two tree whose root tests nominal feature `a` (`n` slots) by a subset
/// of its slots, and a floor on the subsets not scored. Subsets are walked in Gray-code
/// order, each step moving one slot's rows across, which changes the optimum by at most
/// their move cost ([`Loss::move_cost`]): a subset is not scored while the last scored
/// one's cost less the moves since cannot go below `bound` or the best found. Each slot's
/// rows are counted by cell of every column once, so a subset costs one pass over cells,
/// not rows. `None` when the search stopped or memory ran out.
#[allow(clippy::too_many_arguments)]
fn nominal_root<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    leaves: usize,
    total: &[f64],
    ai: usize,
    n: usize,
    locals: &[Local],
    tables: &Tables,
    bound: f64,
) -> Option<Counted> {
    let a = locals.get(ai)?;
    let w = loss.width();
    let nominal = a.column.checked_sub(ctx.columns.orderings.len())? as u32;
    let (offsets, width) = offsets(locals);
    // Per slot: its rows' statistics per cell of every column, their counts, totals, moves.
    let mut table = ctx.control.filled(n * width * w, 0.0)?;
    let mut table_counts = ctx.control.filled(n * width, 0u32)?;
    let (mut cells, mut counts) = (Vec::new(), Vec::new());
    for (bi, (b, &off)) in locals.iter().zip(&offsets).enumerate() {
        let kb = b.cells();
        tables.load(ai, bi, w, &mut cells, &mut counts)?;
        for s in 0..n {
            let at = s * width + off;
            table
                .get_mut(at * w..(at + kb) * w)?
                .copy_from_slice(cells.get(s * kb * w..(s + 1) * kb * w)?);
            table_counts
                .get_mut(at..at + kb)?
                .copy_from_slice(counts.get(s * kb..(s + 1) * kb)?);
        }
    }
    let slot_total = tables.by_rank(ai, w)?;
    let mut slot_rows = vec![0u32; n];
    let mut slot_moves = vec![0.0; n];
    for (&r, &s) in node.rows.iter().zip(&a.index) {
        let s = usize::from(s);
        if let (Some(c), Some(m)) = (slot_rows.get_mut(s), slot_moves.get_mut(s)) {
            *c += 1;
            *m += loss.move_cost(r);
        }
    }
    // The heaviest slot stays left, the lightest flips most often (as `search_subsets`).
    let mut present: Vec<usize> = (0..n)
        .filter(|&s| slot_rows.get(s).is_some_and(|&c| c > 0))
        .collect();
    // Slots below `n`, the width of these tables and of `table`'s, `table_counts`' and
    // `slot_total`'s blocks below: their defaults are never read.
    let moves_of = |s: usize| slot_moves.get(s).copied().unwrap_or(0.0);
    present.sort_by(|&x, &y| moves_of(y).total_cmp(&moves_of(x)).then(x.cmp(&y)));
    if let Some(rest) = present.get_mut(1..) {
        rest.reverse();
    }
    let mut out = Counted {
        best: None,
        floor: f64::INFINITY,
    };
    let Some((&first, rest)) = present.split_first() else {
        return Some(out);
    };
    if rest.is_empty() || rest.len() >= 63 {
        return Some(out);
    }
    // The node's cells, and the left side's (the first present slot always goes left, so
    // each partition is met once).
    let slot_cells = |s: usize| table.get(s * width * w..(s + 1) * width * w).unwrap_or(&[]);
    let slot_counts = |s: usize| table_counts.get(s * width..(s + 1) * width).unwrap_or(&[]);
    let slot_stats = |s: usize| slot_total.get(s * w..(s + 1) * w).unwrap_or(&[]);
    let mut all = vec![0.0; width * w];
    let mut all_counts = vec![0u32; width];
    for &s in &present {
        add_to(&mut all, slot_cells(s), true);
        add_to(&mut all_counts, slot_counts(s), true);
    }
    let (mut left, mut left_counts, mut left_total) =
        (vec![0.0; width * w], vec![0u32; width], vec![0.0; w]);
    let (mut right, mut right_counts) = (vec![0.0; width * w], vec![0u32; width]);
    let mut right_total = vec![0.0; w];
    let mut bars = Bars::new(ctx, locals);
    let m = rest.len() as u32;
    let every = (1u64 << m) - 1;
    let mut gray = 0u64;
    // The last scored subset's cost less the moves since (nothing scored yet: no bound).
    let mut reach = f64::NEG_INFINITY;
    for i in 0u64..(1u64 << m) {
        if i > 0 {
            let j = i.trailing_zeros();
            gray ^= 1 << j;
            let s = *rest.get(j as usize)?;
            let moves = moves_of(s);
            reach -= moves;
            // The side losing the slot's rows may have lost its moves; the other only gained.
            bars.lose(usize::from(gray >> j & 1 == 1), moves);
            if i % REFRESH != 0 {
                let adding = gray >> j & 1 == 1;
                add_to(&mut left, slot_cells(s), adding);
                add_to(&mut left_counts, slot_counts(s), adding);
                add_to(&mut left_total, slot_stats(s), adding);
                if gray == every {
                    continue;
                }
            }
        }
        if i % REFRESH == 0 {
            if ctx.control.stopped() {
                return None;
            }
            left.iter_mut().for_each(|x| *x = 0.0);
            left_counts.iter_mut().for_each(|x| *x = 0);
            left_total.iter_mut().for_each(|x| *x = 0.0);
            let held = std::iter::once(first).chain(
                rest.iter()
                    .enumerate()
                    .filter(|(k, _)| gray >> k & 1 == 1)
                    .map(|(_, &s)| s),
            );
            for s in held {
                add_to(&mut left, slot_cells(s), true);
                add_to(&mut left_counts, slot_counts(s), true);
                add_to(&mut left_total, slot_stats(s), true);
            }
            if gray == every {
                continue;
            }
        }
        let target = out.best.as_ref().map_or(bound, |(c, _)| c.min(bound)); // none yet: the bound
        if reach >= target - ctx.tol {
            out.floor = out.floor.min(reach);
            continue;
        }
        for ((r, &t), &l) in right.iter_mut().zip(&all).zip(&left) {
            *r = t - l;
        }
        for ((r, &t), &l) in right_counts.iter_mut().zip(&all_counts).zip(&left_counts) {
            *r = t - l;
        }
        for ((r, &t), &l) in right_total.iter_mut().zip(total).zip(&left_total) {
            *r = t - l;
        }
        let split = [
            bars.best(
                ctx,
                loss,
                locals,
                &offsets,
                0,
                (&left, &left_counts),
                &left_total,
            )?,
            bars.best(
                ctx,
                loss,
                locals,
                &offsets,
                1,
                (&right, &right_counts),
                &right_total,
            )?,
        ];
        let leaf = [loss.err(&left_total), loss.err(&right_total)];
        let (cost, tests) = compose(ctx, leaves, leaf, split);
        reach = cost;
        if out.best.as_ref().is_none_or(|(c, _)| cost < c - ctx.tol) {
            let mut mask = 1u64 << first;
            for (k, &s) in rest.iter().enumerate() {
                if gray >> k & 1 == 1 {
                    mask |= 1u64 << s;
                }
            }
            let test = Test::Subset {
                nominal,
                left: mask,
            };
            out.best = Some((cost, tree(test, tests)));
        }
    }
    Some(out)
}

/// Adds `part` to `acc` (or takes it away).
fn add_to<T: Copy + AddAssign + std::ops::SubAssign>(acc: &mut [T], part: &[T], adding: bool) {
    for (x, &p) in acc.iter_mut().zip(part) {
        if adding {
            *x += p;
        } else {
            *x -= p;
        }
    }
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

/// Sums `rows` blocks of `width` numbers cumulatively: block i becomes blocks 0..=i.
pub(crate) fn cumulate<T: Copy + AddAssign>(values: &mut [T], rows: usize, width: usize) {
    if width == 0 {
        return;
    }
    let mut blocks = values.chunks_mut(width).take(rows);
    let Some(mut previous) = blocks.next() else {
        return;
    };
    for block in blocks {
        for (x, &p) in block.iter_mut().zip(previous.iter()) {
            *x += p;
        }
        previous = block;
    }
}
