//! Depth-one trees of one or two row sets in one pass (ConTree's depth-two subroutine).
//!
//! Given a side (0 or 1) for each of a node's rows, one sweep over each ordering's sorted
//! list finds, for both sides at once, the best threshold on that ordering: class counts (or
//! Σw, Σwy, Σwy²) are accumulated per side and each side's boundaries between distinct ranks
//! are scored from the prefix and the side's total. Nominal features are counted per
//! category and side and their best subset computed in closed form.
//!
//! Most boundaries are never scored: moving rows across a boundary changes a split's error
//! by at most their move costs ([`Loss::move_cost`]), so after scoring a boundary whose
//! error is `e` above the best so far, the next boundaries are skipped until rows worth `e`
//! have moved; and a side is finished once the rows left to move cannot bring any boundary
//! below its target.

use rayon::prelude::*;

use super::loss::Loss;
use super::node::Node;
use super::search::Ctx;
use super::solution::Test;

/// The node's rows split between two sides (or all on side 0), with each side's statistics.
pub(crate) struct Sides<'a> {
    /// Each training row's side; `None`: every row is on side 0 and side 1 is empty.
    pub side: Option<&'a [u8]>,
    pub total: [Vec<f64>; 2],
    /// Σ move costs of each side's rows.
    pub moves: [f64; 2],
}

impl<'a> Sides<'a> {
    /// Every row of `node` on side 0.
    pub(crate) fn one<L: Loss>(loss: &L, node: &Node) -> Sides<'a> {
        let total = loss.stats(node.rows.iter().copied());
        let moves = node.rows.iter().map(|&r| loss.move_cost(r)).sum();
        Sides {
            side: None,
            total: [total, vec![0.0; loss.width()]],
            moves: [moves, 0.0],
        }
    }

    /// The rows of `node` on the sides `side` gives them.
    pub(crate) fn two<L: Loss>(loss: &L, node: &Node, side: &'a [u8]) -> Sides<'a> {
        let mut total = [vec![0.0; loss.width()], vec![0.0; loss.width()]];
        let mut moves = [0.0; 2];
        for &r in &node.rows {
            let s = usize::from(side.get(r as usize).copied().unwrap_or(0) != 0);
            if let (Some(t), Some(m)) = (total.get_mut(s), moves.get_mut(s)) {
                loss.add(t, r);
                *m += loss.move_cost(r);
            }
        }
        Sides {
            side: Some(side),
            total,
            moves,
        }
    }

    #[inline]
    fn of(&self, row: u32) -> usize {
        self.side.map_or(0, |s| {
            usize::from(s.get(row as usize).copied().unwrap_or(0) != 0)
        })
    }
}

/// The best depth-one tree of one side, as far as it was searched.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stump {
    /// Error of the side as one leaf (no leaf penalty).
    pub leaf: f64,
    /// The best split found, with its error: found only if below the side's target.
    pub split: Option<(f64, Test)>,
    /// No split of the side has a smaller error (up to the search's tolerance).
    pub floor: f64,
}

impl Stump {
    /// A lower bound on the side's optimal depth-one cost (penalty `alpha` per leaf); at
    /// least the smaller of that cost and the cap the side was searched with.
    pub(crate) fn bound(&self, alpha: f64) -> f64 {
        (self.leaf + alpha).min(self.floor + 2.0 * alpha)
    }

    /// The cheapest tree found: its cost and its split (`None`: the leaf).
    pub(crate) fn best(&self, alpha: f64) -> (f64, Option<Test>) {
        match self.split {
            Some((e, t)) if e + 2.0 * alpha < self.leaf + alpha => (e + 2.0 * alpha, Some(t)),
            _ => (self.leaf + alpha, None),
        }
    }
}

/// The search state of one side.
#[derive(Clone)]
struct Run {
    prefix: Vec<f64>,
    target: f64,
    best: Option<(f64, Test)>,
    leaf: f64,
    moves: f64,
    /// Per column: the last rank added, the move cost that must still pass before a boundary
    /// can beat the target, the move cost of the rows not yet added, and whether nothing
    /// later can.
    last: u32,
    budget: f64,
    remaining: f64,
    done: bool,
}

const NO_RANK: u32 = u32::MAX;

impl Run {
    fn new(leaf: f64, target: f64, moves: f64, width: usize) -> Run {
        Run {
            prefix: vec![0.0; width],
            target,
            best: None,
            leaf,
            moves,
            last: NO_RANK,
            budget: 0.0,
            remaining: 0.0,
            done: true,
        }
    }

    /// Ready for a new column (`empty`: the side has no rows).
    fn reset(&mut self, tol: f64, empty: bool) {
        self.prefix.iter_mut().for_each(|x| *x = 0.0);
        self.last = NO_RANK;
        // The boundary before the first row leaves everything on the right: the leaf's error.
        self.budget = self.leaf - self.target;
        self.remaining = self.moves;
        self.done = empty || self.target <= tol;
    }

    /// Records a split of error `err` if it beats the target.
    #[inline]
    fn offer(&mut self, err: f64, test: Test, tol: f64) -> bool {
        if err < self.target - tol {
            self.target = err;
            self.best = Some((err, test));
            true
        } else {
            false
        }
    }

    fn stump(&self) -> Stump {
        Stump {
            leaf: self.leaf,
            split: self.best,
            floor: self.target,
        }
    }
}

/// Columns times rows from which a scan runs its columns on several threads.
const PARALLEL_ENTRIES: usize = 1 << 15;

/// The best depth-one tree of each side of `sides` over `node`'s rows, with `loss` measured
/// at the node. A side is searched only for splits whose cost (two leaves) is below its
/// `cap`, so each [`Stump::bound`] is at least min(its optimum, its cap).
pub(crate) fn stumps<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    sides: &Sides<'_>,
    caps: [f64; 2],
) -> [Stump; 2] {
    let runs = initial_runs(ctx, loss, sides, caps);
    let columns: Vec<usize> = (0..ctx.columns.len()).collect();
    let scan = |cols: &[usize], mut runs: [Run; 2]| {
        for &c in cols {
            if ctx.control.stopped() {
                // Stopped: the columns not scanned may hold any split, down to no error.
                for run in &mut runs {
                    run.target = run.target.min(0.0);
                }
                break;
            }
            scan_column(ctx, c, node, loss, sides, &mut runs);
        }
        runs
    };
    let [a, b] = if ctx.parallel && node.len() * columns.len() >= PARALLEL_ENTRIES {
        let chunk = columns.len().div_ceil(rayon::current_num_threads()).max(1);
        columns
            .par_chunks(chunk)
            .map(|cols| scan(cols, runs.clone()))
            .collect::<Vec<_>>()
            .into_iter()
            .reduce(|x, y| merge(x, y, ctx.tol))
            .unwrap_or(runs)
    } else {
        scan(&columns, runs)
    };
    [a.stump(), b.stump()]
}

/// The best depth-one tree of `node` (all of it, one side), and the best split of each
/// column on its own (`None` where no split beats the leaf and the cap): the search's
/// order of columns and first thresholds at the node.
pub(crate) fn stumps_by_column<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    sides: &Sides<'_>,
    cap: f64,
) -> (Stump, Vec<Option<(f64, Test)>>) {
    let [first, _] = initial_runs(ctx, loss, sides, [cap, cap]);
    let empty = Run::new(0.0, 0.0, 0.0, loss.width());
    let one = |c: usize| {
        let mut runs = [first.clone(), empty.clone()];
        scan_column(ctx, c, node, loss, sides, &mut runs);
        let [run, _] = runs;
        run
    };
    let runs: Vec<Run> = if ctx.parallel && node.len() * ctx.columns.len() >= PARALLEL_ENTRIES {
        (0..ctx.columns.len()).into_par_iter().map(one).collect()
    } else {
        (0..ctx.columns.len()).map(one).collect()
    };
    let by_column = runs.iter().map(|r| r.best).collect();
    let best = runs
        .into_iter()
        .reduce(|x, y| merge_run(x, y, ctx.tol))
        .unwrap_or(first);
    (best.stump(), by_column)
}

/// Each side's run before any column: its target is the error a split must beat, the
/// smaller of what beats the leaf (a split adds a leaf's penalty) and what fits the cap.
fn initial_runs<L: Loss>(
    ctx: &Ctx<'_, L>,
    loss: &L,
    sides: &Sides<'_>,
    caps: [f64; 2],
) -> [Run; 2] {
    let run = |total: &[f64], moves: f64, cap: f64| {
        let leaf = loss.err(total);
        let target = (leaf - ctx.alpha).min(cap - 2.0 * ctx.alpha);
        Run::new(leaf, target, moves, loss.width())
    };
    let [t0, t1] = &sides.total;
    let [m0, m1] = sides.moves;
    let [c0, c1] = caps;
    [run(t0, m0, c0), run(t1, m1, c1)]
}

/// The better of two runs over different columns, side by side: the smaller error, the
/// first run's on a tie (it scanned the earlier columns), so the result does not depend on
/// how columns were shared among threads.
fn merge(a: [Run; 2], b: [Run; 2], tol: f64) -> [Run; 2] {
    let [a0, a1] = a;
    let [b0, b1] = b;
    [merge_run(a0, b0, tol), merge_run(a1, b1, tol)]
}

/// [`merge`] for one side.
fn merge_run(x: Run, y: Run, tol: f64) -> Run {
    let best = match (x.best, y.best) {
        (Some(p), Some(q)) if q.0 < p.0 - tol => Some(q),
        (Some(p), _) => Some(p),
        (None, q) => q,
    };
    Run {
        target: x.target.min(y.target),
        best,
        ..x
    }
}

/// Scans column `c` (orderings first, then nominal features) for both sides.
fn scan_column<L: Loss>(
    ctx: &Ctx<'_, L>,
    c: usize,
    node: &Node,
    loss: &L,
    sides: &Sides<'_>,
    runs: &mut [Run; 2],
) {
    let tol = ctx.tol;
    for (s, run) in runs.iter_mut().enumerate() {
        let empty = sides
            .total
            .get(s)
            .is_none_or(|t| t.iter().all(|&x| x == 0.0));
        run.reset(tol, empty);
    }
    if let Some(ordering) = ctx.columns.orderings.get(c) {
        let column = c as u32;
        let unit = loss.unit_moves();
        for e in node.list(c) {
            let Some(run) = runs.get_mut(sides.of(e.row)) else {
                continue;
            };
            if run.done {
                continue;
            }
            if e.rank != run.last && run.last != NO_RANK {
                if run.leaf - run.remaining >= run.target - tol || run.budget >= run.remaining {
                    // No later boundary can beat the target: from the end (the leaf's error
                    // less what is left to move) or from the last scored boundary.
                    run.done = true;
                    if runs.iter().all(|r| r.done) {
                        break;
                    }
                    continue;
                }
                if run.budget < 0.0 && !ordering.is_duplicate(run.last) {
                    let total = sides.total.get(sides.of(e.row)).map_or(&[][..], |t| t);
                    let err = loss.err(&run.prefix) + loss.err_rest(total, &run.prefix);
                    let test = Test::Threshold {
                        column,
                        left: run.last,
                        right: e.rank,
                    };
                    run.budget = if run.offer(err, test, tol) {
                        0.0
                    } else {
                        err - run.target
                    };
                }
            }
            loss.add(&mut run.prefix, e.row);
            let m = if unit { 1.0 } else { loss.move_cost(e.row) };
            run.budget -= m;
            run.remaining -= m;
            run.last = e.rank;
        }
    } else if let Some(nominal) = ctx.columns.nominals.get(c - ctx.columns.orderings.len()) {
        let width = loss.width();
        let slots = nominal.slots();
        let mut counts = [vec![0.0; slots * width], vec![0.0; slots * width]];
        for &r in &node.rows {
            let slot = nominal.code.get(r as usize).copied().unwrap_or(0) as usize;
            if let Some(stats) = counts
                .get_mut(sides.of(r))
                .and_then(|c| c.get_mut(slot * width..(slot + 1) * width))
            {
                loss.add(stats, r);
            }
        }
        let index = (c - ctx.columns.orderings.len()) as u32;
        for ((run, counts), total) in runs.iter_mut().zip(&counts).zip(&sides.total) {
            if run.done {
                continue;
            }
            if let Some((err, left)) = loss.best_subset(counts, total) {
                run.offer(
                    err,
                    Test::Subset {
                        nominal: index,
                        left,
                    },
                    tol,
                );
            }
        }
    }
}
