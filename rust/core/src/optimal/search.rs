//! The branch-and-bound over subproblems (a node's rows, a depth budget, a leaf budget).
//!
//! A subproblem's candidates are a leaf, then every split of every column: threshold columns
//! by the interval search, nominal ones by their subsets ([`super::intervals`]), columns in
//! order of promise (the best trees tend to start there, so the incumbent drops early:
//! [`column_order`]). Evaluating a split at depth two is one sweep
//! ([`super::depth2`]); deeper, the split's two children are solved as subproblems, the
//! larger first, then the smaller with what the larger left plus a slack, so that its bound
//! also rules out the neighbouring thresholds. Solved subproblems are cached by row set
//! ([`super::cache`]).
//!
//! `solve` calls itself once per depth level through `evaluate`, so the call stack is
//! bounded by the depth budget (at most [`super::MAX_DEPTH`]), whatever the data; everything
//! that grows with the data lives on the heap.

use std::sync::Arc;

use rayon::prelude::*;

use super::binary::{self, Binary, Similar};
use super::boxes::{root_boxes, RootBox};
use super::cache::{Cache, Known, RowKeys};
use super::columns::Columns;
use super::depth1::{squared_by_column, stumps_by_column, ColumnFloors, Sides};
use super::depth2;
use super::intervals::{
    search_positions, search_subsets, Evaluated, Hint, Incumbent, Positions, Runs,
};
use super::loss::Loss;
use super::node::Node;
use super::pairs;
use super::roots::{self, allocations, root_spans, threshold_at, Span};
use super::solution::{Sol, Test};
use super::sweep::Sweeper;
use crate::control::Control;

/// What every subproblem of one fit shares.
pub(crate) struct Ctx<'a, L: Loss> {
    pub columns: &'a Columns,
    pub loss: L,
    /// The penalty of a leaf, in the units of the loss (`ccp_alpha` × total weight).
    pub alpha: f64,
    /// Costs closer than this are equal (rounding of weighted sums).
    pub tol: f64,
    pub keys: RowKeys,
    pub control: &'a Control,
    pub cache: Cache<'a>,
    /// Scans may split their columns among the threads of the current pool.
    pub parallel: bool,
    /// The binary features, when every column is one: counted as such.
    pub binary: Option<Binary>,
}

impl<L: Loss> Ctx<'_, L> {
    /// This context with its cache in a layer of its own ([`Cache::layer`]), for a search
    /// that has no binary features.
    fn layer(&self) -> Ctx<'_, L> {
        Ctx {
            columns: self.columns,
            loss: self.loss,
            alpha: self.alpha,
            tol: self.tol,
            keys: self.keys,
            control: self.control,
            cache: self.cache.layer(),
            parallel: self.parallel,
            binary: None,
        }
    }
}

/// A subproblem under search: its node, the loss at its rows and the budgets its root
/// splits are evaluated for (what every step of its search passes on).
pub(crate) struct Sub<'s, 'a, L: Loss> {
    pub ctx: &'s Ctx<'a, L>,
    pub node: &'s Node,
    pub loss: &'s L,
    pub depth: usize,
    pub leaves: usize,
}

impl<L: Loss> Clone for Sub<'_, '_, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L: Loss> Copy for Sub<'_, '_, L> {}

/// The result of a subproblem.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    /// No tree of the subproblem costs less. Unless the search was stopped, at least the
    /// smaller of the optimum and the bound it was solved under (up to the tolerance): when
    /// below that bound, `cost` equals it and `sol` is optimal.
    pub lower: f64,
    /// The best tree found and its cost.
    pub cost: f64,
    pub sol: Arc<Sol>,
}

/// The best tree of `node` of depth at most `depth` and at most `leaves` leaves, sought
/// below `ub`, knowing that none costs less than `floor`. `side` is scratch of one byte per
/// training row.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    depth: usize,
    leaves: usize,
    ub: f64,
    floor: f64,
    side: &mut [u8],
) -> Outcome {
    solve_from(ctx, node, depth, leaves, ub, floor, None, false, side)
}

/// [`solve`], with `seed` (a tree and its cost) as the first incumbent; `root`: the fit's
/// root, whose columns are searched in rounds ([`in_rounds`]).
#[allow(clippy::too_many_arguments)]
fn solve_from<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    depth: usize,
    leaves: usize,
    ub: f64,
    floor: f64,
    seed: Option<(f64, Sol)>,
    root: bool,
    side: &mut [u8],
) -> Outcome {
    let leaves = leaves.min(1usize << depth.min(16));
    // A tree of k leaves is at most k − 1 deep: one subproblem for both budgets.
    let depth = depth.min(leaves.saturating_sub(1));
    let loss = ctx.loss.at(&node.rows);
    let total = loss.stats(node.rows.iter().copied());
    let leaf = loss.err(&total) + ctx.alpha;
    let mut inc = Incumbent::new(ub, leaf, Sol::leaf(), ctx.tol);
    if let Some((cost, sol)) = seed {
        inc.offer(cost, || sol);
    }
    if depth == 0 || node.len() < 2 {
        return finish(inc, 0.0);
    }
    let cached = if depth >= 2 {
        ctx.cache.get(node.hash, node.len(), depth, leaves)
    } else {
        None
    };
    let mut known = floor.max(0.0);
    if let Some(k) = cached {
        if let Some((cost, sol)) = k.best {
            if cost <= k.lower + ctx.tol {
                return Outcome {
                    lower: k.lower,
                    cost,
                    sol,
                };
            }
            inc.offer(cost, || (*sol).clone());
        }
        known = known.max(k.lower);
    }
    // Any split costs two leaves' penalties, and a tree of `leaves` leaves predicts at most
    // that many classes.
    let split_floor = (2.0 * ctx.alpha + loss.floor(&total, leaves)).max(known);
    if inc.rules_out(split_floor) {
        inc.close(split_floor);
        return store(ctx, node, depth, leaves, inc, known);
    }
    // Depth two: counting scores every tree rooted at a split at once (MurTree's frequency
    // counts) when the node's columns have few values.
    if depth == 2 {
        let counted = match &ctx.binary {
            Some(b) => {
                let counted = b.solve(ctx, node, &loss, leaves);
                if counted.is_none() {
                    // Stopped (the node may hold no lists to sweep): only the floor is known.
                    inc.close(split_floor);
                    return finish(inc, known);
                }
                counted
            }
            None => pairs::solve(ctx, node, &loss, leaves, inc.bound()),
        };
        if let Some(counted) = counted {
            if let Some((cost, sol)) = counted.best {
                inc.offer(cost, || sol);
            }
            inc.close(counted.floor);
            return store(ctx, node, depth, leaves, inc, known);
        }
    }
    // Depth two on a large node: root thresholds bounded box by box. When the boxes rule
    // every threshold out and no nominal feature is left, that is the whole search (a
    // subproblem sought under a bound far below its optimum costs one count).
    let boxes = match (&ctx.binary, depth) {
        (None, 2) => root_boxes(ctx, node, &loss, leaves, side),
        _ => None,
    };
    if let Some(boxes) = &boxes {
        let least = boxes.iter().fold(f64::INFINITY, |m, b| m.min(b.lower));
        if ctx.columns.nominals.is_empty() && inc.rules_out(least) {
            inc.close(least);
            return store(ctx, node, depth, leaves, inc, known);
        }
    }
    let sides = Sides::one(&loss, node);
    // Each column is searched from its best single split. A sweep capped at the incumbent
    // finds none once the incumbent is below every stump, so depth three sweeps uncapped
    // (when the order followed the stumps, diabetes at depth three: 51,615 -> 42,085
    // depth-two evaluations); deeper it cost more than it bought.
    let cap = if depth == 3 {
        f64::INFINITY
    } else {
        inc.bound()
    };
    let (stump, by_column) = stumps_by_column(ctx, node, &loss, &sides, cap);
    if let (cost, Some(test)) = stump.best(ctx.alpha) {
        inc.offer(cost, || Sol::stump(test));
    }
    if depth == 1 {
        inc.close(stump.bound(ctx.alpha));
        return finish(inc, known);
    }
    let sub = Sub {
        ctx,
        node,
        loss: &loss,
        depth,
        leaves,
    };
    let probe = |c: usize| best_test(&by_column, c);
    let order = column_order(&sub, &total, &by_column, &mut inc, side);
    // Nominal roots are searched as before.
    if let Some(boxes) = boxes {
        search_boxes(&sub, boxes, &order, &by_column, &mut inc, side);
        for c in ctx.columns.orderings.len()..ctx.columns.len() {
            if ctx.control.stopped() {
                inc.close(split_floor);
                break;
            }
            search_column(&sub, c, None, &mut inc, side);
        }
        return store(ctx, node, depth, leaves, inc, known);
    }
    let mut similar = ctx
        .binary
        .as_ref()
        .and_then(|b| b.similar(node, &loss, ctx.control));
    // The fit's root searches its columns in rounds ([`in_rounds`]).
    let rounds = root && depth >= 3 && ctx.binary.is_none();
    // A deep subproblem on a large node bounds every ordering's runs of thresholds first
    // ([`super::roots`]), so that the columns a stopped search did not reach keep a bound.
    let mut deep: Vec<Option<Deep>> = Vec::new();
    if similar.is_none() && roots::applies(node.len(), depth) {
        deep = if rounds {
            in_rounds(
                &sub,
                &order,
                &mut inc,
                side.len(),
                |sub, _, c, inc, side| deep_within(sub, c, probe(c), inc, side),
            )
        } else {
            let mut deep = Vec::with_capacity(order.len());
            for &c in &order {
                deep.push(deep_within(&sub, c, probe(c), &mut inc, side));
            }
            deep
        };
    }
    let searched = if rounds {
        in_rounds(
            &sub,
            &order,
            &mut inc,
            side.len(),
            |sub, k, c, inc, side| match deep.get(k).and_then(Option::as_ref) {
                Some(d) => search_thresholds(sub, c, &d.positions, d.first, &d.within, inc, side),
                None => search_column(sub, c, probe(c), inc, side),
            },
        )
        .len()
    } else {
        let mut searched = 0;
        for (k, &c) in order.iter().enumerate() {
            if ctx.control.stopped() {
                break;
            }
            if let Some(d) = deep.get_mut(k).and_then(Option::take) {
                search_thresholds(&sub, c, &d.positions, d.first, &d.within, &mut inc, side);
            } else if let Some(similar) = similar.as_mut() {
                binary_root(&sub, similar, c, &mut inc, side);
            } else {
                search_column(&sub, c, probe(c), &mut inc, side);
            }
            searched += 1;
        }
        searched
    };
    if searched < order.len() {
        // Stopped: the columns not searched are bounded by their runs, else by the floor.
        for k in searched..order.len() {
            let runs = deep.get(k).and_then(Option::as_ref).map(Deep::least);
            inc.close(runs.map_or(split_floor, |least| least.max(split_floor)));
        }
    }
    store(ctx, node, depth, leaves, inc, known)
}

/// The order in which `sub` searches its columns. At depth two, by the error of their best
/// single split (`by_column`; no split beating the leaf: last). Deeper, by their least
/// squared error ([`squared_by_column`]), and from depth four on a node small enough to
/// evaluate thresholds one by one, by the cost of their best depth-two tree first (each
/// column searched at depth two from its best single split, the tree offered to `inc`).
/// Measured on one thread, depth-two evaluations against the order by best single split:
/// at depth three credit-g's numeric part 21,773 -> 17,510, segment 17,564 -> 13,709; at
/// depth four ionosphere 1.92 -> 1.26 M, segment 1.91 -> 1.61 M, diabetes 5.68 -> 5.10 M,
/// breast cancer 23,858 -> 6,479, credit-g's numeric part 1.55 M both. At depth two the
/// squared errors' pass cost more than it saved (generated 100k x 20: 1.03 -> 1.40 s).
fn column_order<L: Loss>(
    sub: &Sub<'_, '_, L>,
    total: &[f64],
    by_column: &[Option<(f64, Test)>],
    inc: &mut Incumbent,
    side: &mut [u8],
) -> Vec<usize> {
    let (ctx, node) = (sub.ctx, sub.node);
    let key = |v: &[f64], c: usize| v.get(c).copied().unwrap_or(f64::INFINITY);
    let mut order: Vec<usize> = (0..ctx.columns.len()).collect();
    let first: Vec<f64> = if sub.depth < 3 {
        (0..ctx.columns.len())
            .map(|c| {
                by_column
                    .get(c)
                    .copied()
                    .flatten()
                    .map_or(f64::INFINITY, |(e, _)| e)
            })
            .collect()
    } else {
        squared_by_column(ctx, node, sub.loss, total)
    };
    order.sort_by(|&a, &b| key(&first, a).total_cmp(&key(&first, b)).then(a.cmp(&b)));
    if sub.depth < 4 || roots::large(node.len()) {
        return order;
    }
    let two = Sub {
        depth: 2,
        leaves: sub.leaves.min(4),
        ..*sub
    };
    let leaf = sub.loss.err(total) + ctx.alpha;
    let mut ahead = vec![f64::INFINITY; ctx.columns.len()];
    for &c in &order {
        if ctx.control.stopped() {
            break;
        }
        let mut best = Incumbent::new(f64::INFINITY, leaf, Sol::leaf(), ctx.tol);
        search_column(&two, c, best_test(by_column, c), &mut best, side);
        if let Some(a) = ahead.get_mut(c) {
            *a = best.cost;
        }
        inc.offer(best.cost, || best.sol);
    }
    // Stable: columns of equal depth-two cost stay in the order of their squared error.
    order.sort_by(|&a, &b| key(&ahead, a).total_cmp(&key(&ahead, b)));
    order
}

/// Column `c`'s best single split in `by_column` ([`stumps_by_column`]), if any: where its
/// search starts.
fn best_test(by_column: &[Option<(f64, Test)>], c: usize) -> Option<Test> {
    by_column.get(c).copied().flatten().map(|(_, t)| t)
}

/// Columns of the fit's root searched side by side, after the first.
const ROUND: usize = 3;

/// Runs `search` (of a subproblem, a column's place `k` in `order` and the column, an
/// incumbent and one byte of scratch per training row) on each column of the fit's root, in
/// the search's `order`: the first alone, then the others in rounds of [`ROUND`]. Each column of a round starts from
/// the incumbent and the cache as they stood when the round began, in a cache layer of its
/// own, and the round's findings are taken in column order, so the columns of a round can be
/// searched on as many threads as there are and the tree is the same on any number. The
/// root's columns take most of a deep search's time (diabetes at depth four: 5 to 15 s each
/// of 72 s on one thread), and the incumbent moves most in the first column (the best single
/// split's, which often holds the optimum: a round of columns under the greedy tree's cost
/// took breast cancer at depth four from 0.8 to 2.9 s). Returns what `search` returned for
/// the columns searched before the fit was stopped (or the memory ran out, recorded in the
/// control). `n_rows`: the training rows.
fn in_rounds<L: Loss, T: Send>(
    sub: &Sub<'_, '_, L>,
    order: &[usize],
    inc: &mut Incumbent,
    n_rows: usize,
    search: impl Fn(&Sub<'_, '_, L>, usize, usize, &mut Incumbent, &mut [u8]) -> T + Sync,
) -> Vec<T> {
    let ctx = sub.ctx;
    let columns = order.len();
    let mut found = Vec::with_capacity(columns);
    let rounds = std::iter::once(0..columns.min(1)).chain(
        (1..columns)
            .step_by(ROUND)
            .map(|k| k..columns.min(k + ROUND)),
    );
    for round in rounds {
        if ctx.control.stopped() {
            break;
        }
        let results: Vec<Option<(T, Incumbent, Cache<'_>)>> = round
            .into_par_iter()
            .map(|k| {
                let c = *order.get(k)?; // k < columns
                let mut side = ctx.control.filled(n_rows, 0u8)?;
                let layer = ctx.layer();
                let mut own = inc.fork();
                let out = search(
                    &Sub {
                        ctx: &layer,
                        ..*sub
                    },
                    k,
                    c,
                    &mut own,
                    &mut side,
                );
                Some((out, own, layer.cache))
            })
            .collect();
        for r in results {
            let Some((out, own, cache)) = r else {
                return found;
            };
            inc.join(own);
            ctx.cache.absorb(cache);
            found.push(out);
        }
    }
    found
}

/// The outcome of a finished search; `known` is a lower bound proven earlier.
fn finish(inc: Incumbent, known: f64) -> Outcome {
    Outcome {
        lower: inc.lower().max(known),
        cost: inc.cost,
        sol: Arc::new(inc.sol),
    }
}

/// [`finish`], remembered in the cache.
fn store<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    depth: usize,
    leaves: usize,
    inc: Incumbent,
    known: f64,
) -> Outcome {
    let out = finish(inc, known);
    ctx.cache.put(
        node.hash,
        node.len(),
        depth,
        leaves,
        Known {
            lower: out.lower,
            best: Some((out.cost, Arc::clone(&out.sol))),
        },
    );
    out
}

/// Searches the splits of column `c` (`probe`: its best single split, evaluated first).
fn search_column<L: Loss>(
    sub: &Sub<'_, '_, L>,
    c: usize,
    probe: Option<Test>,
    inc: &mut Incumbent,
    side: &mut [u8],
) {
    let (ctx, node, loss) = (sub.ctx, sub.node, sub.loss);
    let alpha = ctx.alpha;
    let columns = ctx.columns;
    if c < columns.orderings.len() {
        let positions = threshold_positions(ctx, node, loss, c);
        let first = probe_index(node, &positions, c, probe.map(|t| (0.0, t)));
        let within = Within::default();
        search_thresholds(sub, c, &positions, first, &within, inc, side);
    } else if let Some(nominal) = columns.nominals.get(c - columns.orderings.len()) {
        let mut moves = vec![0.0; nominal.slots()];
        let mut held = vec![false; nominal.slots()];
        for &r in &node.rows {
            let slot = nominal.code.get(r as usize).copied().unwrap_or(0) as usize; // a training row
            if let (Some(m), Some(h)) = (moves.get_mut(slot), held.get_mut(slot)) {
                *m += loss.move_cost(r);
                *h = true;
            }
        }
        let slots: Vec<(u32, f64)> = moves
            .iter()
            .zip(&held)
            .enumerate()
            .filter(|(_, (_, &h))| h)
            .map(|(s, (&m, _))| (s as u32, m))
            .collect();
        let index = (c - columns.orderings.len()) as u32;
        search_subsets(index, &slots, alpha, inc, ctx.control, |test, hint, inc| {
            evaluate(sub, test, 0.0, hint, inc, side)
        });
    }
}

/// The candidate splits of ordering `c` at `node`: the boundaries between distinct ranks of
/// its sorted list, with the move cost of the rows before each.
pub(crate) fn threshold_positions<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    c: usize,
) -> Positions {
    let mut positions = Positions::default();
    let Some(ordering) = ctx.columns.orderings.get(c) else {
        return positions;
    };
    let mut moved = 0.0;
    let mut previous: Option<u32> = None;
    for (p, e) in node.list(c).iter().enumerate() {
        if let Some(prev) = previous {
            if prev != e.rank && !ordering.is_duplicate(prev) {
                positions.at.push(p as u32);
                positions.moved.push(moved);
            }
        }
        moved += loss.move_cost(e.row);
        previous = Some(e.rank);
    }
    positions
}

/// What is known of a column's candidate thresholds before any is evaluated: bounds of runs
/// of them, and per run bounds of each column's best split of their parts (depth two) or of
/// the parts themselves per leaf allocation (deeper; empty: none).
#[derive(Debug)]
struct Within {
    runs: Runs,
    floors: Vec<ColumnFloors>,
    parts: Vec<[Vec<f64>; 2]>,
}

impl Default for Within {
    fn default() -> Within {
        Within {
            runs: Runs::whole(),
            floors: Vec::new(),
            parts: Vec::new(),
        }
    }
}

/// An ordering's candidate thresholds at a deep subproblem, with what its runs prove.
struct Deep {
    positions: Positions,
    /// The candidate to evaluate first (the column's best single split).
    first: Option<usize>,
    within: Within,
}

impl Deep {
    /// No tree rooted at one of the column's thresholds costs less.
    fn least(&self) -> f64 {
        self.within
            .runs
            .lower
            .iter()
            .fold(f64::INFINITY, |m, &x| m.min(x))
    }
}

/// The runs of a deep subproblem's root thresholds on ordering `c` ([`super::roots`]),
/// after evaluating its best single split (`probe`), so that the runs are ruled out against
/// a good incumbent. `None` for a nominal feature.
fn deep_within<L: Loss>(
    sub: &Sub<'_, '_, L>,
    c: usize,
    probe: Option<Test>,
    inc: &mut Incumbent,
    side: &mut [u8],
) -> Option<Deep> {
    let (ctx, node, loss) = (sub.ctx, sub.node, sub.loss);
    if c >= ctx.columns.orderings.len() {
        return None;
    }
    let positions = threshold_positions(ctx, node, loss, c);
    let first = probe_index(node, &positions, c, probe.map(|t| (0.0, t)));
    if let Some(p) = first.and_then(|f| positions.at.get(f)) {
        let test = threshold_at(node, c, *p as usize);
        let hint = Hint::default();
        evaluate(sub, test, 0.0, &hint, inc, side);
    }
    let Some(spans) = root_spans(sub, c, &positions, inc, side) else {
        return Some(Deep {
            positions,
            first,
            within: Within::default(),
        });
    };
    let mut within = Within {
        runs: Runs {
            starts: Vec::with_capacity(spans.len()),
            lower: Vec::with_capacity(spans.len()),
        },
        floors: Vec::new(),
        parts: Vec::with_capacity(spans.len()),
    };
    for Span { lo, lower, parts } in spans {
        within.runs.starts.push(lo);
        within.runs.lower.push(lower);
        within.parts.push(parts);
    }
    Some(Deep {
        positions,
        first,
        within,
    })
}

/// Searches the candidate thresholds `positions` of ordering `c` (`first`: the index of one
/// to evaluate first), as far as `within` bounds them.
fn search_thresholds<L: Loss>(
    sub: &Sub<'_, '_, L>,
    c: usize,
    positions: &Positions,
    first: Option<usize>,
    within: &Within,
    inc: &mut Incumbent,
    side: &mut [u8],
) {
    let (ctx, node) = (sub.ctx, sub.node);
    search_positions(
        positions,
        first,
        ctx.alpha,
        &within.runs,
        inc,
        ctx.control,
        |i, slack, hint, inc| {
            let p = positions.at.get(i).copied().unwrap_or(0) as usize; // i < m, at's length
            let test = threshold_at(node, c, p);
            let run = within.runs.of(i);
            let (floors, parts) = (within.floors.get(run), within.parts.get(run));
            if floors.is_none() && parts.is_none() {
                return evaluate(sub, test, slack, hint, inc, side);
            }
            let mut hint = hint.clone();
            if let Some(known) = floors {
                hint.raise_columns(known);
            }
            if let Some(parts) = parts {
                hint.raise_parts(parts);
            }
            evaluate(sub, test, slack, &hint, inc, side)
        },
    );
}

/// Searches the root thresholds of a depth-two subproblem column by column, in `order`,
/// each from its best single split (`probes`): each column's candidates in runs of its
/// boxes ([`super::boxes`]), those the incumbent rules out closed at their bounds.
fn search_boxes<L: Loss>(
    sub: &Sub<'_, '_, L>,
    boxes: Vec<RootBox>,
    order: &[usize],
    probes: &[Option<(f64, Test)>],
    inc: &mut Incumbent,
    side: &mut [u8],
) {
    let (ctx, node, loss) = (sub.ctx, sub.node, sub.loss);
    let mut by_column: Vec<Vec<RootBox>> = (0..ctx.columns.orderings.len())
        .map(|_| Vec::new())
        .collect();
    for b in boxes {
        if let Some(v) = by_column.get_mut(b.column) {
            v.push(b);
        }
    }
    let least = |v: &[RootBox]| v.iter().fold(f64::INFINITY, |m, b| m.min(b.lower));
    let sweeper = Sweeper::new(ctx, node, loss);
    for &c in order {
        let Some(mut column) = by_column.get_mut(c).map(std::mem::take) else {
            continue;
        };
        let lower = least(&column);
        if inc.rules_out(lower) || ctx.control.stopped() {
            inc.close(lower);
            continue;
        }
        column.sort_by_key(|b| b.lo);
        // A column of a node the sweep applies to is swept whole: on the planted sets at
        // depth three, evaluating its thresholds one by one first (up to the sweep's
        // estimated cost) took 1.3 to 2.6 times as long, and a flat subproblem's
        // near-optimal thresholds cost the most to evaluate.
        if let Some(s) = &sweeper {
            s.column(sub, c, &column, inc, side);
            continue;
        }
        let positions = threshold_positions(ctx, node, loss, c);
        let first = probe_index(node, &positions, c, probes.get(c).copied().flatten());
        let mut within = Within {
            runs: Runs {
                starts: Vec::with_capacity(column.len()),
                lower: Vec::with_capacity(column.len()),
            },
            floors: Vec::with_capacity(column.len()),
            parts: Vec::new(),
        };
        for b in &column {
            let start = positions.at.partition_point(|&p| (p as usize) < b.lo);
            let end = positions.at.partition_point(|&p| (p as usize) < b.hi);
            if start == end {
                // No candidate (a duplicate boundary).
                continue;
            }
            within.runs.starts.push(start);
            within.runs.lower.push(b.lower);
            within.floors.push(b.columns.clone());
        }
        search_thresholds(sub, c, &positions, first, &within, inc, side);
    }
}

/// The index among `positions` of ordering `c` of the threshold `probe` tests, if any.
fn probe_index(
    node: &Node,
    positions: &Positions,
    c: usize,
    probe: Option<(f64, Test)>,
) -> Option<usize> {
    match probe {
        Some((_, Test::Threshold { column, left, .. })) if column as usize == c => {
            let p = node.list(c).partition_point(|e| e.rank <= left) as u32;
            positions.at.binary_search(&p).ok()
        }
        _ => None,
    }
}

/// Evaluates binary feature `c` as the root of `node`'s trees of `depth` (three or more)
/// and `leaves`, unless the similarity bound on its children rules it out; records what it
/// proves of them for the roots after it.
fn binary_root<L: Loss>(
    sub: &Sub<'_, '_, L>,
    similar: &mut Similar,
    c: usize,
    inc: &mut Incumbent,
    side: &mut [u8],
) {
    let (ctx, depth, leaves) = (sub.ctx, sub.depth, sub.leaves);
    if !similar.splits(c) {
        return;
    }
    let alpha = ctx.alpha;
    let allocations: Vec<usize> = allocations(depth, leaves).collect();
    let hint = Hint {
        left: allocations
            .iter()
            .map(|&k| similar.bound(c, 0, k))
            .collect(),
        right: allocations
            .iter()
            .map(|&k| similar.bound(c, 1, leaves - k))
            .collect(),
        columns: Default::default(),
    };
    let known = hint.total(allocations.len(), alpha);
    let tally = ctx.binary.as_ref().map(|b| &b.tally);
    if inc.rules_out(known) {
        if let Some(t) = tally {
            t.pruned.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        inc.close(known);
        return;
    }
    if let Some(t) = tally {
        t.split.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    let result = evaluate(sub, binary::test(c), 0.0, &hint, inc, side);
    inc.close(result.score);
    for (i, &k) in allocations.iter().enumerate() {
        if let (Some(&l), Some(&r)) = (result.left.get(i), result.right.get(i)) {
            similar.record(c, 0, k, l);
            similar.record(c, 1, leaves - k, r);
        }
    }
}

/// Evaluates the split `test` of `node` as the root of a tree of `depth` and `leaves`: its
/// best such tree is offered to `inc`. `hint` bounds its parts from the evaluated
/// neighbours; the second child may be sought up to `slack` above what the bound leaves it
/// (see [`search_positions`]), and at depth two the columns' bounds are proven up to `slack`
/// above the targets (see [`depth2::evaluate`]).
fn evaluate<L: Loss>(
    sub: &Sub<'_, '_, L>,
    test: Test,
    slack: f64,
    hint: &Hint,
    inc: &mut Incumbent,
    side: &mut [u8],
) -> Evaluated {
    let (ctx, node, depth, leaves) = (sub.ctx, sub.node, sub.depth, sub.leaves);
    ctx.control.advance(1);
    if depth <= 2 {
        return depth2::evaluate(sub, test, slack, hint, inc, side);
    }
    let alpha = ctx.alpha;
    let stopped = Evaluated {
        left: vec![alpha],
        right: vec![alpha],
        score: 2.0 * alpha,
        columns: Default::default(),
    };
    // Binary features' depth-two children are counted from their rows alone (with at least
    // 7 leaves, no child gets 2, whose depth-one search sweeps the lists).
    let lists = !(depth == 3 && leaves >= 7 && ctx.binary.is_some());
    let Some((left, right)) = node.split(ctx.columns, test, lists, side, &ctx.keys, ctx.control)
    else {
        // Out of memory: the fit stops at its next check.
        return stopped;
    };
    let mut result = Evaluated {
        left: Vec::new(),
        right: Vec::new(),
        score: f64::INFINITY,
        columns: Default::default(),
    };
    for (i, k_left) in allocations(depth, leaves).enumerate() {
        let k_right = leaves - k_left;
        // The larger child first, as ConTree does: the bound it proves leaves the smaller
        // one a tighter budget (with the second child sought as below, breast cancer at
        // depth three swept 28% fewer rows than smaller first, segment 21%; at depth four
        // the smaller first took 2.6x as long).
        let left_first = left.len() >= right.len();
        let (first, k_first, second, k_second) = if left_first {
            (&left, k_left, &right, k_right)
        } else {
            (&right, k_right, &left, k_left)
        };
        // What the neighbours prove of each child (at least a leaf's penalty).
        let hint_first = hint.part(!left_first, i, alpha);
        let hint_second = hint.part(left_first, i, alpha);
        let (lower_first, lower_second) = if inc.rules_out(hint_first + hint_second) {
            (hint_first, hint_second)
        } else {
            let ub = inc.bound() - hint_second;
            let first_out = solve(ctx, first, depth - 1, k_first, ub, hint_first, side);
            // The second child is sought up to `slack` above what the first leaves it, even
            // when the first alone rules the split out: what it proves then rules out the
            // neighbouring thresholds as well (ConTree's order; breast cancer at depth four:
            // 57,301 -> 28,066 depth-two evaluations, ionosphere at depth four proven).
            let ub = inc.bound() - first_out.lower + slack;
            if hint_second >= ub - ctx.tol || ctx.control.stopped() {
                (first_out.lower, hint_second)
            } else {
                let second_out = solve(ctx, second, depth - 1, k_second, ub, hint_second, side);
                inc.offer(first_out.cost + second_out.cost, || {
                    let (l, r) = if left_first {
                        (&first_out.sol, &second_out.sol)
                    } else {
                        (&second_out.sol, &first_out.sol)
                    };
                    Sol::split(test, l, r)
                });
                (first_out.lower, second_out.lower)
            }
        };
        let (l, r) = if left_first {
            (lower_first, lower_second)
        } else {
            (lower_second, lower_first)
        };
        result.left.push(l);
        result.right.push(r);
        result.score = result.score.min(l + r);
    }
    result
}

/// The optimal tree of the root `node` of `n_rows` training rows within the budgets, `seed`
/// (a tree and its cost, e.g. the greedy tree) as its first incumbent. `None` when the
/// memory cannot be had (recorded in the control).
pub(crate) fn solve_root<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    depth: usize,
    leaves: usize,
    seed: Option<(f64, Sol)>,
    n_rows: usize,
) -> Option<Outcome> {
    let mut side = ctx.control.filled(n_rows, 0u8)?;
    Some(solve_from(
        ctx,
        node,
        depth,
        leaves,
        f64::INFINITY,
        0.0,
        seed,
        true,
        &mut side,
    ))
}
