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
//!
//! A sweep also proves, per side and column, a lower bound on that column's best split
//! ([`ColumnFloors`]), up to a margin above the side's target. The neighbouring splits the
//! interval search evaluates next have nearly the same sides (a side only gains rows, or
//! loses a few), so those bounds carry over, and their sweeps skip every column that cannot
//! beat the target (on planted data, most columns). Skipping a column never changes the
//! result: it could only have offered a split no better than the one held.

use rayon::prelude::*;

use super::columns::Ordering;
use super::loss::Loss;
use super::node::Node;
use super::search::Ctx;
use super::solution::Test;

/// The node's rows split between two sides (or all on side 0), with each side's statistics.
pub(crate) struct Sides<'a> {
    /// Each training row's side in bit 0; `None`: every row is on side 0 and side 1 is
    /// empty.
    pub side: Option<&'a [u8]>,
    /// The bits above the side hold the row's class ([`Loss::counted_classes`]).
    coded: bool,
    pub total: [Vec<f64>; 2],
    /// Σ move costs of each side's rows.
    pub moves: [f64; 2],
}

/// Classes a row's byte holds beside its side.
const CODED_CLASSES: usize = 1 << 7;

impl<'a> Sides<'a> {
    /// Every row of `node` on side 0.
    pub(crate) fn one<L: Loss>(loss: &L, node: &Node) -> Sides<'a> {
        let total = loss.stats(node.rows.iter().copied());
        let moves = node.rows.iter().map(|&r| loss.move_cost(r)).sum();
        Sides {
            side: None,
            coded: false,
            total: [total, vec![0.0; loss.width()]],
            moves: [moves, 0.0],
        }
    }

    /// The rows of `node` on the sides `side` gives them (0 or 1 per row). Where rows are
    /// counted by class, each row's class is stored in its byte above the side: a scan then
    /// reads one byte per row.
    pub(crate) fn two<L: Loss>(loss: &L, node: &Node, side: &'a mut [u8]) -> Sides<'a> {
        let classes = loss
            .counted_classes()
            .filter(|_| loss.width() <= CODED_CLASSES);
        let mut total = [vec![0.0; loss.width()], vec![0.0; loss.width()]];
        let mut moves = [0.0; 2];
        for &r in &node.rows {
            let s = side_of(side, r);
            if let (Some(t), Some(m)) = (total.get_mut(s), moves.get_mut(s)) {
                loss.add(t, r);
                *m += loss.move_cost(r);
            }
            let class = classes.and_then(|c| c.get(r as usize)).copied();
            if let (Some(byte), Some(class)) = (side.get_mut(r as usize), class) {
                *byte |= (class as u8) << 1; // class < CODED_CLASSES
            }
        }
        Sides {
            side: Some(side),
            coded: classes.is_some(),
            total,
            moves,
        }
    }

    #[inline]
    fn of(&self, row: u32) -> usize {
        self.side.map_or(0, |s| side_of(s, row)) // no sides: all on side 0
    }
}

/// Row `row`'s side in a table of each training row's side (the search's rows are training
/// rows: the default is never read).
#[inline]
fn side_of(side: &[u8], row: u32) -> usize {
    usize::from(side.get(row as usize).copied().unwrap_or(0) & 1)
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

/// Per side (0, 1), per column: a lower bound on the error (no leaf penalty) of the side's
/// best split on that column, counting "no split" (the side's leaf error) as a split. It
/// never drops when the side gains rows (restrict the larger side's split), and drops by at
/// most the move cost of rows the side loses ([`Loss::move_cost`]). Empty: nothing known.
pub(crate) type ColumnFloors = [Vec<f64>; 2];

/// The search state of one side.
#[derive(Clone)]
struct Run {
    prefix: Vec<f64>,
    target: f64,
    best: Option<(f64, Test)>,
    leaf: f64,
    moves: f64,
    /// How far above the target a column's own bound is worth proving.
    margin: f64,
    /// Per column, as move costs of the rows added so far (`moved`), so that the sweep's
    /// common step compares one number: boundaries are skipped until `moved` passes
    /// `skip_to` (the last scored boundary's error above the target, in moves), and the
    /// side is finished once it reaches `end` (the leaf's error less what is left to move
    /// cannot beat the target). `trigger` is the smaller, infinite once `done`. Boundaries
    /// are scored until each is known to be at least the `threshold`: the target, or up to
    /// `margin` more to prove the column's own bound, never above `low`, the least error
    /// scored (the leaf's at first). `floor` is the column's bound known beforehand,
    /// `proven` the one known once done.
    last: u32,
    moved: f64,
    skip_to: f64,
    end: f64,
    trigger: f64,
    done: bool,
    low: f64,
    threshold: f64,
    floor: f64,
    proven: f64,
    /// Scratch of [`sweep_counted`]: the side's rows of the column in order, each as its
    /// rank above its class's 8 bits.
    lane: Vec<u64>,
}

const NO_RANK: u32 = u32::MAX;

impl Run {
    fn new(leaf: f64, target: f64, moves: f64, width: usize, margin: f64) -> Run {
        Run {
            prefix: vec![0.0; width],
            target,
            best: None,
            leaf,
            moves,
            margin,
            last: NO_RANK,
            moved: 0.0,
            skip_to: 0.0,
            end: 0.0,
            trigger: f64::INFINITY,
            done: true,
            low: leaf,
            threshold: target,
            floor: 0.0,
            proven: 0.0,
            lane: Vec::new(),
        }
    }

    /// Ready for a new column (`empty`: the side has no rows), known to hold no split below
    /// `floor`.
    fn reset(&mut self, tol: f64, empty: bool, floor: f64) {
        self.prefix.iter_mut().for_each(|x| *x = 0.0);
        self.last = NO_RANK;
        self.moved = 0.0;
        self.low = self.leaf;
        self.floor = floor;
        self.proven = floor;
        self.done = empty || self.target <= tol || floor >= self.target;
        // The boundary before the first row leaves everything on the right: the leaf's error.
        self.skip(self.leaf, tol);
    }

    /// After a boundary of error `err`: skips the boundaries within move cost `err −
    /// threshold` of it, which cannot go below the threshold; finishes the side if that
    /// reaches past its last row.
    #[inline]
    fn skip(&mut self, err: f64, tol: f64) {
        self.low = lesser(self.low, err);
        self.threshold = lesser(self.target + self.margin, self.low);
        self.skip_to = self.moved + (err - self.threshold);
        self.end = self.threshold - tol - self.leaf + self.moves;
        if self.skip_to >= self.moves && !self.done {
            // Every later boundary is at least the threshold.
            self.finish(self.threshold);
        }
        self.trigger = if self.done {
            f64::INFINITY
        } else {
            lesser(self.end, self.skip_to)
        };
    }

    /// Stops the column: every boundary not scored is at least `at_least`.
    fn finish(&mut self, at_least: f64) {
        self.done = true;
        self.trigger = f64::INFINITY;
        self.proven = self.floor.max(at_least.min(self.low));
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

/// The smaller of two numbers that are never NaN: one comparison, where `f64::min` also
/// handles NaN (this runs at every boundary a scan scores).
#[inline]
fn lesser(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// Off: unweighted classes are swept row by row too ([`sweep`]), so that tests check the
/// counted path ([`sweep_counted`]) against it.
#[cfg(test)]
pub(crate) static COUNTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

fn counted() -> bool {
    #[cfg(test)]
    if !COUNTED.load(std::sync::atomic::Ordering::Relaxed) {
        return false;
    }
    true
}

/// Columns times rows from which a scan runs its columns on several threads.
const PARALLEL_ENTRIES: usize = 1 << 15;

/// The best depth-one tree of each side of `sides` over `node`'s rows, with `loss` measured
/// at the node. A side is searched only for splits whose cost (two leaves) is below its
/// `cap`, so each [`Stump::bound`] is at least min(its optimum, its cap). `floors` are what
/// is known of the columns beforehand; the result's are what the sweep proved, each column's
/// up to `margin` above its side's target (0 for columns a stop left unswept).
pub(crate) fn stumps<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    sides: &Sides<'_>,
    caps: [f64; 2],
    floors: &ColumnFloors,
    margin: f64,
) -> ([Stump; 2], ColumnFloors) {
    let runs = initial_runs(ctx, loss, sides, caps, margin);
    let n_columns = ctx.columns.len();
    let columns: Vec<usize> = (0..n_columns).collect();
    let known = |c: usize| {
        floors
            .each_ref()
            .map(|f| f.get(c).copied().unwrap_or(f64::NEG_INFINITY)) // empty: nothing known
    };
    let scan = |cols: &[usize], mut runs: [Run; 2]| {
        let mut proven = Vec::with_capacity(cols.len());
        for &c in cols {
            if ctx.control.stopped() {
                // Stopped: the columns not scanned may hold any split, down to no error.
                for run in &mut runs {
                    run.target = run.target.min(0.0);
                }
                break;
            }
            scan_column(ctx, c, node, loss, sides, &mut runs, known(c));
            proven.push((c, runs.each_ref().map(|r| r.proven)));
        }
        (runs, proven)
    };
    let (runs, proven) = if ctx.parallel && node.len() * n_columns >= PARALLEL_ENTRIES {
        let chunk = n_columns.div_ceil(rayon::current_num_threads()).max(1);
        columns
            .par_chunks(chunk)
            .map(|cols| scan(cols, runs.clone()))
            .collect::<Vec<_>>()
            .into_iter()
            .reduce(|(x, mut px), (y, py)| {
                px.extend(py);
                (merge(x, y, ctx.tol), px)
            })
            .unwrap_or((runs, Vec::new())) // no columns
    } else {
        scan(&columns, runs)
    };
    let mut out = [vec![0.0; n_columns], vec![0.0; n_columns]];
    for (c, bounds) in proven {
        for (o, b) in out.iter_mut().zip(bounds) {
            if let Some(slot) = o.get_mut(c) {
                *slot = b.max(0.0);
            }
        }
    }
    let [a, b] = runs;
    ([a.stump(), b.stump()], out)
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
    let [first, _] = initial_runs(ctx, loss, sides, [cap, cap], 0.0);
    let empty = Run::new(0.0, 0.0, 0.0, loss.width(), 0.0);
    let none = [f64::NEG_INFINITY; 2];
    let one = |c: usize| {
        let mut runs = [first.clone(), empty.clone()];
        scan_column(ctx, c, node, loss, sides, &mut runs, none);
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
        .unwrap_or(first); // no columns
    (best.stump(), by_column)
}

/// Each column's least squared error ([`Loss::squared`]) of a split of `node` (whose
/// statistics are `total`) into two parts; for a nominal feature, of its split into every
/// category it holds (no more than that of any split of them into two sets: the impurity is
/// concave). `INFINITY` where the column does not split the node. The order in which the
/// search tries a node's columns, as ConTree orders them by the Gini index: the best tree
/// tends to start at a column whose parts are already nearly pure, which the error alone,
/// flat over most thresholds, shows less well.
pub(crate) fn squared_by_column<L: Loss>(
    ctx: &Ctx<'_, L>,
    node: &Node,
    loss: &L,
    total: &[f64],
) -> Vec<f64> {
    let one = |c: usize| squared_split(ctx, c, node, loss, total);
    if ctx.parallel && node.len() * ctx.columns.len() >= PARALLEL_ENTRIES {
        (0..ctx.columns.len()).into_par_iter().map(one).collect()
    } else {
        (0..ctx.columns.len()).map(one).collect()
    }
}

/// [`squared_by_column`] of column `c` (orderings first, then nominal features).
fn squared_split<L: Loss>(ctx: &Ctx<'_, L>, c: usize, node: &Node, loss: &L, total: &[f64]) -> f64 {
    let width = loss.width();
    let columns = ctx.columns;
    if let Some(ordering) = columns.orderings.get(c) {
        let (mut left, mut right) = (vec![0.0; width], vec![0.0; width]);
        let mut least = f64::INFINITY;
        let mut previous: Option<u32> = None;
        for e in node.list(c) {
            if let Some(prev) = previous {
                if prev != e.rank && !ordering.is_duplicate(prev) {
                    for ((r, t), l) in right.iter_mut().zip(total).zip(&left) {
                        *r = t - l;
                    }
                    least = least.min(loss.squared(&left) + loss.squared(&right));
                }
            }
            loss.add(&mut left, e.row);
            previous = Some(e.rank);
        }
        least
    } else if let Some(nominal) = columns.nominals.get(c - columns.orderings.len()) {
        let mut slots = vec![0.0; nominal.slots() * width];
        for &r in &node.rows {
            let slot = nominal.code.get(r as usize).copied().unwrap_or(0) as usize; // a training row
            if let Some(stats) = slots.get_mut(slot * width..(slot + 1) * width) {
                loss.add(stats, r);
            }
        }
        let held = slots.chunks(width).filter(|s| s.iter().any(|&x| x != 0.0));
        if held.clone().count() < 2 {
            return f64::INFINITY;
        }
        held.map(|s| loss.squared(s)).sum()
    } else {
        f64::INFINITY
    }
}

/// Each side's run before any column: its target is the error a split must beat, the
/// smaller of what beats the leaf (a split adds a leaf's penalty) and what fits the cap.
fn initial_runs<L: Loss>(
    ctx: &Ctx<'_, L>,
    loss: &L,
    sides: &Sides<'_>,
    caps: [f64; 2],
    margin: f64,
) -> [Run; 2] {
    let run = |total: &[f64], moves: f64, cap: f64| {
        let leaf = loss.err(total);
        let target = (leaf - ctx.alpha).min(cap - 2.0 * ctx.alpha);
        Run::new(leaf, target, moves, loss.width(), margin)
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

/// Scans column `c` (orderings first, then nominal features) for both sides, known to hold
/// no split below `floors` (per side); each run's `proven` is then the column's bound.
fn scan_column<L: Loss>(
    ctx: &Ctx<'_, L>,
    c: usize,
    node: &Node,
    loss: &L,
    sides: &Sides<'_>,
    runs: &mut [Run; 2],
    floors: [f64; 2],
) {
    let tol = ctx.tol;
    for ((s, run), floor) in runs.iter_mut().enumerate().zip(floors) {
        let empty = sides
            .total
            .get(s)
            .is_none_or(|t| t.iter().all(|&x| x == 0.0));
        run.reset(tol, empty, floor);
    }
    if runs.iter().all(|r| r.done) {
        return;
    }
    if let Some(ordering) = ctx.columns.orderings.get(c) {
        match sides.side.filter(|_| sides.coded && counted()) {
            // Each row's byte holds its side and its class: rows are counted.
            Some(code) => sweep_counted(ctx, c, ordering, node, loss, sides, code, runs),
            None => sweep(ctx, c, ordering, node, loss, sides, runs),
        }
    } else if let Some(nominal) = ctx.columns.nominals.get(c - ctx.columns.orderings.len()) {
        let width = loss.width();
        let slots = nominal.slots();
        let mut counts = [vec![0.0; slots * width], vec![0.0; slots * width]];
        for &r in &node.rows {
            let slot = nominal.code.get(r as usize).copied().unwrap_or(0) as usize; // a training row
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
                run.low = run.low.min(err);
                run.offer(
                    err,
                    Test::Subset {
                        nominal: index,
                        left,
                    },
                    tol,
                );
            }
            // The best subset is exact: the column's bound is its error (or the leaf's).
            run.finish(f64::INFINITY);
        }
    }
}

/// [`sweep`] where each row's byte holds its side and class (unit moves, so a side's
/// `moved` is how many of its rows precede the boundary). The column's rows are first
/// dealt to their sides (two lanes, written without a branch), then each side jumps from
/// one boundary its skips allow to the next, counting its classes only at the boundaries
/// it scores. The same boundaries are scored as by [`sweep`], in the same order, with the
/// same counts; the row-by-row loop carried each side's sums through memory from one row
/// to the next (credit-g's numeric columns at depth three: 0.36 -> 0.30 s). Stopping at a
/// finished side's rows did not pay: dealing the rows in chunks of 64 to 4,096 and
/// scoring between them was slower than dealing all of them at once.
#[allow(clippy::too_many_arguments)]
fn sweep_counted<L: Loss>(
    ctx: &Ctx<'_, L>,
    c: usize,
    ordering: &Ordering,
    node: &Node,
    loss: &L,
    sides: &Sides<'_>,
    code: &[u8],
    runs: &mut [Run; 2],
) {
    let list = node.list(c);
    let mut lanes = runs.each_mut().map(|r| std::mem::take(&mut r.lane));
    for lane in &mut lanes {
        if lane.len() <= list.len() {
            lane.resize(list.len() + 1, 0);
        }
    }
    let [l0, l1] = lanes.each_mut().map(Vec::as_mut_slice);
    let (mut i0, mut i1) = (0, 0);
    for e in list {
        let byte = code.get(e.row as usize).copied().unwrap_or(0); // a training row
        let packed = (u64::from(e.rank) << 8) | u64::from(byte >> 1);
        // Both lanes are written; only the row's side moves on (each lane holds one row
        // more than the column, so neither write falls outside).
        if let (Some(a), Some(b)) = (l0.get_mut(i0), l1.get_mut(i1)) {
            *a = packed;
            *b = packed;
        }
        let side = usize::from(byte & 1);
        i0 += 1 - side;
        i1 += side;
    }
    for ((run, lane), (n, total)) in runs
        .iter_mut()
        .zip(lanes)
        .zip([i0, i1].into_iter().zip(&sides.total))
    {
        let rows = lane.get(..n).unwrap_or_default(); // n < the lane's length
        score_lane(ctx, c as u32, ordering, loss, total, run, rows);
        run.lane = lane;
    }
}

/// Adds the classes of `rows` (rank above class) to `prefix`. Two classes are summed in a
/// register: adding to a count in memory row after row waits on the previous row's store.
#[inline]
fn count_classes(rows: &[u64], prefix: &mut [f64]) {
    if let [zeros, ones] = prefix {
        let n1: u64 = rows.iter().map(|&p| p & 1).sum();
        *ones += n1 as f64;
        *zeros += (rows.len() as u64 - n1) as f64;
    } else {
        for &p in rows {
            if let Some(count) = prefix.get_mut((p & 0xff) as usize) {
                *count += 1.0;
            }
        }
    }
}

/// Scores side `run`'s boundaries among all its rows `lane` (rank above class, in column
/// order) as [`sweep`] would, and finishes the side.
#[inline]
fn score_lane<L: Loss>(
    ctx: &Ctx<'_, L>,
    column: u32,
    ordering: &Ordering,
    loss: &L,
    total: &[f64],
    run: &mut Run,
    lane: &[u64],
) {
    let tol = ctx.tol;
    let rank = |j: usize| lane.get(j).map_or(NO_RANK, |&p| (p >> 8) as u32); // j < n
                                                                             // The next row that may start a boundary (the first has none before it), and the rows
                                                                             // counted in the prefix.
    let (mut next, mut counted) = (1, 0);
    while !run.done {
        // The first row at or past the trigger (`moved` counts rows) whose rank differs
        // from the row before it.
        let mut j = next;
        if run.trigger > j as f64 {
            j = run.trigger.ceil() as usize;
        }
        while j < lane.len() && rank(j) == rank(j - 1) {
            j += 1;
        }
        if j >= lane.len() {
            run.finish(run.threshold);
            return;
        }
        run.moved = j as f64;
        run.last = rank(j - 1);
        if run.moved >= run.end {
            // Every later boundary is at least the leaf's error less what is left to move.
            let end = run.leaf - run.moves + run.moved;
            run.finish(run.threshold.min(end));
            return;
        }
        if run.moved > run.skip_to && !ordering.is_duplicate(run.last) {
            count_classes(lane.get(counted..j).unwrap_or_default(), &mut run.prefix);
            counted = j;
            let left = loss.err(&run.prefix);
            let err = left + loss.err_rest(total, &run.prefix);
            let test = Test::Threshold {
                column,
                left: run.last,
                right: rank(j),
            };
            run.offer(err, test, tol);
            run.skip(err, tol);
            if left >= run.threshold && !run.done {
                run.finish(run.threshold);
                return;
            }
        }
        next = j + 1;
    }
}

/// [`scan_column`] on ordering `c`'s sorted list, row by row: each row's statistics are
/// added to its side's prefix, and its move cost to the side's `moved`.
fn sweep<L: Loss>(
    ctx: &Ctx<'_, L>,
    c: usize,
    ordering: &Ordering,
    node: &Node,
    loss: &L,
    sides: &Sides<'_>,
    runs: &mut [Run; 2],
) {
    let unit = loss.unit_moves();
    let tol = ctx.tol;
    let column = c as u32;
    for e in node.list(c) {
        let s = sides.of(e.row);
        let Some(run) = runs.get_mut(s) else {
            continue;
        };
        // The common step is the last three lines: rows of a finished side are added
        // too (their sums are no longer read) rather than branched around.
        if run.moved >= run.trigger && e.rank != run.last && run.last != NO_RANK {
            if run.moved >= run.end {
                // Every later boundary is at least the leaf's error less what is left
                // to move.
                let end = run.leaf - run.moves + run.moved;
                run.finish(run.threshold.min(end));
                if runs.iter().all(|r| r.done) {
                    break;
                }
                continue;
            }
            if let (true, Some(total)) = (
                run.moved > run.skip_to && !ordering.is_duplicate(run.last),
                sides.total.get(s),
            ) {
                let left = loss.err(&run.prefix);
                let err = left + loss.err_rest(total, &run.prefix);
                let test = Test::Threshold {
                    column,
                    left: run.last,
                    right: e.rank,
                };
                run.offer(err, test, tol);
                run.skip(err, tol);
                // Every later boundary's left part holds this one's: its error is at least
                // this left part's (a leaf's error never drops when rows join it).
                if left >= run.threshold && !run.done {
                    run.finish(run.threshold);
                    if runs.iter().all(|r| r.done) {
                        break;
                    }
                    continue;
                }
            }
        }
        loss.add(&mut run.prefix, e.row);
        run.moved += if unit { 1.0 } else { loss.move_cost(e.row) };
        run.last = e.rank;
    }
    for run in runs.iter_mut().filter(|r| !r.done) {
        run.finish(run.threshold);
    }
}
