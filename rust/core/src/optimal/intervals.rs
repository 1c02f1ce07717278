//! Which splits of a column to evaluate, and which never (ConTree's interval pruning, with the
//! bounds made rigorous for time limits and leaf budgets).
//!
//! A threshold column's candidate splits are the boundaries of its sorted list, in order.
//! Two facts prune them ([`super::loss`]): moving rows across the threshold changes a
//! split's optimum by at most their move costs (so an evaluated split whose cost lower bound
//! is `d` above the incumbent rules out every split within move cost `d` of it), and a split
//! between two evaluated ones `a < b` has a left part containing `a`'s and a right part
//! containing `b`'s, so it costs at least `a`'s left bound plus `b`'s right bound. Intervals
//! of candidates are bisected breadth-first; what remains when the search stops (a time
//! limit) is bounded from its neighbours, so the node still reports a proven lower bound.
//!
//! Nominal columns have no order: their subsets are visited in Gray-code order, where each
//! step moves one category, and a subset is skipped while the categories moved since the
//! last evaluated one cannot have brought its cost below the incumbent.

use std::collections::VecDeque;

use super::depth1::ColumnFloors;
use super::solution::{Sol, Test};
use crate::control::Control;

/// The best tree of a node so far, and what is proven of the rest.
#[derive(Debug)]
pub(crate) struct Incumbent {
    /// Trees are sought below this cost (the caller's bound).
    ub: f64,
    pub cost: f64,
    pub sol: Sol,
    /// The least lower bound of every candidate ruled out or evaluated so far.
    floor: f64,
    tol: f64,
}

impl Incumbent {
    /// `sol`, of cost `cost`, sought to be bettered below `ub`.
    pub(crate) fn new(ub: f64, cost: f64, sol: Sol, tol: f64) -> Incumbent {
        Incumbent {
            ub,
            cost,
            sol,
            floor: f64::INFINITY,
            tol,
        }
    }

    /// What a candidate must cost less than (by more than the tolerance) to matter.
    #[inline]
    pub(crate) fn bound(&self) -> f64 {
        self.ub.min(self.cost)
    }

    /// Whether a candidate proven to cost at least `lower` cannot matter.
    #[inline]
    pub(crate) fn rules_out(&self, lower: f64) -> bool {
        lower >= self.bound() - self.tol
    }

    /// Takes the tree `make()` of cost `cost` if it is cheaper.
    pub(crate) fn offer(&mut self, cost: f64, make: impl FnOnce() -> Sol) {
        if cost < self.cost - self.tol {
            self.cost = cost;
            self.sol = make();
        }
    }

    /// Records candidates that all cost at least `lower`.
    #[inline]
    pub(crate) fn close(&mut self, lower: f64) {
        self.floor = self.floor.min(lower);
    }

    /// A lower bound on the node's optimum: the incumbent, or a candidate not yet beaten.
    pub(crate) fn lower(&self) -> f64 {
        self.floor.min(self.cost)
    }

    /// The same incumbent, for a search of other candidates to [`join`](Self::join) later.
    pub(crate) fn fork(&self) -> Incumbent {
        Incumbent::new(self.ub, self.cost, self.sol.clone(), self.tol)
    }

    /// Takes what a [`fork`](Self::fork) found and proved; this incumbent wins a tie.
    pub(crate) fn join(&mut self, other: Incumbent) {
        self.offer(other.cost, || other.sol);
        self.close(other.floor);
    }
}

/// What evaluating a split proved: per leaf-budget allocation of the split (left leaves,
/// right leaves), lower bounds of the left and the right part, and a lower bound on the
/// split's cost that is at least min(its optimum, the incumbent bound at the time).
#[derive(Debug, Clone)]
pub(crate) struct Evaluated {
    pub left: Vec<f64>,
    pub right: Vec<f64>,
    pub score: f64,
    /// A depth-two evaluation's bounds on each column's best split of its two parts.
    pub columns: ColumnFloors,
}

/// What the evaluated neighbours of a candidate prove of its two parts before it is
/// evaluated, per allocation (empty: nothing): the left part contains the left neighbour's
/// and is contained in the right neighbour's, less the rows between (and the other way round
/// for the right part).
#[derive(Debug, Clone, Default)]
pub(crate) struct Hint {
    pub left: Vec<f64>,
    pub right: Vec<f64>,
    /// What they prove of each column's best split of the two parts (depth two).
    pub columns: ColumnFloors,
}

impl Hint {
    /// The bound of the left (`right == false`) or right part under allocation `i`, at least
    /// `floor` (just `floor` where the hint has none: an empty hint proves nothing).
    pub(crate) fn part(&self, right: bool, i: usize, floor: f64) -> f64 {
        let v = if right { &self.right } else { &self.left };
        v.get(i).copied().unwrap_or(floor).max(floor)
    }

    /// Takes `floors`, bounds of each column's best split of the same parts, as well.
    pub(crate) fn raise_columns(&mut self, floors: &ColumnFloors) {
        for (mine, theirs) in self.columns.iter_mut().zip(floors) {
            if mine.is_empty() {
                mine.clone_from(theirs);
            } else {
                for (m, t) in mine.iter_mut().zip(theirs) {
                    *m = m.max(*t);
                }
            }
        }
    }

    /// Takes `parts`, bounds of the left and the right part per allocation, as well.
    pub(crate) fn raise_parts(&mut self, parts: &[Vec<f64>; 2]) {
        for (mine, theirs) in [&mut self.left, &mut self.right].into_iter().zip(parts) {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), f64::NEG_INFINITY);
            }
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m = m.max(*t);
            }
        }
    }

    /// The least cost of the split the hint proves (each part at least `floor`).
    pub(crate) fn total(&self, allocations: usize, floor: f64) -> f64 {
        (0..allocations)
            .map(|i| self.part(false, i, floor) + self.part(true, i, floor))
            .fold(f64::INFINITY, f64::min)
    }
}

/// The lower bound of a split whose parts are bounded by `left` and `right` per allocation.
pub(crate) fn combine(left: &[f64], right: &[f64]) -> f64 {
    left.iter()
        .zip(right)
        .map(|(l, r)| l + r)
        .fold(f64::INFINITY, f64::min)
}

/// A threshold column's candidate splits at a node: for each, its position in the sorted
/// list (the left part is the list before it) and the move cost of the rows before it.
#[derive(Debug, Default)]
pub(crate) struct Positions {
    pub at: Vec<u32>,
    pub moved: Vec<f64>,
}

#[derive(Debug, Clone, Copy)]
struct Interval {
    lo: usize,
    hi: usize,
    /// The evaluated candidates just left and right of the interval (record indices).
    left: Option<usize>,
    right: Option<usize>,
}

/// Lower bounds of runs of a column's candidates known before any is evaluated (one per
/// box of [`super::boxes`]): run `k` starts at candidate `starts[k]` and ends where the next
/// starts; no candidate of it costs less than `lower[k]`.
#[derive(Debug, Clone)]
pub(crate) struct Runs {
    pub starts: Vec<usize>,
    pub lower: Vec<f64>,
}

impl Runs {
    /// One run of every candidate, bounded by nothing.
    pub(crate) fn whole() -> Runs {
        Runs {
            starts: vec![0],
            lower: vec![f64::NEG_INFINITY],
        }
    }

    /// The run holding candidate `i`.
    pub(crate) fn of(&self, i: usize) -> usize {
        self.starts.partition_point(|&s| s <= i).saturating_sub(1)
    }

    /// The least bound of candidates `lo..=hi`.
    fn over(&self, lo: usize, hi: usize) -> f64 {
        (self.of(lo)..=self.of(hi))
            .filter_map(|k| self.lower.get(k))
            .fold(f64::INFINITY, |m, &x| m.min(x))
    }
}

/// Evaluates the candidates of one threshold column that can still beat the incumbent,
/// `first` (a candidate index) first. `eval(i, slack, incumbent)` evaluates candidate `i`;
/// its children may be sought up to `slack` above the bound, which, if they cost that
/// much, rules out the whole interval around it at once. `side_floor` bounds any part of a
/// split from below (a leaf's penalty), `runs` runs of candidates.
pub(crate) fn search_positions(
    positions: &Positions,
    first: Option<usize>,
    side_floor: f64,
    runs: &Runs,
    inc: &mut Incumbent,
    control: &Control,
    mut eval: impl FnMut(usize, f64, &Hint, &mut Incumbent) -> Evaluated,
) {
    let m = positions.at.len();
    if m == 0 {
        return;
    }
    // `moved` has an entry per candidate, and the intervals lie within `0..m`: the defaults
    // here and in the shrinking below are never read.
    let moved = |i: usize| positions.moved.get(i).copied().unwrap_or(0.0);
    let mut records: Vec<(usize, Evaluated)> = Vec::new();
    let mut queue = VecDeque::new();
    let start = first.filter(|&f| f < m);
    // Each stretch of runs the incumbent does not rule out is an interval; the others are
    // closed at their bounds.
    let mut open: Option<usize> = None;
    for (&lower, &start) in runs.lower.iter().zip(&runs.starts) {
        let lo = start.min(m);
        if inc.rules_out(lower) {
            inc.close(lower);
            if let Some(from) = open.take() {
                if from < lo {
                    queue.push_back(Interval {
                        lo: from,
                        hi: lo - 1,
                        left: None,
                        right: None,
                    });
                }
            }
        } else if open.is_none() {
            open = Some(lo);
        }
    }
    if let Some(from) = open.filter(|&f| f < m) {
        queue.push_back(Interval {
            lo: from,
            hi: m - 1,
            left: None,
            right: None,
        });
    }
    let bound_of = |iv: &Interval, records: &[(usize, Evaluated)]| -> f64 {
        let left = iv.left.and_then(|a| records.get(a)).map(|(_, r)| &r.left);
        let right = iv.right.and_then(|b| records.get(b)).map(|(_, r)| &r.right);
        let from_neighbours = match (left, right) {
            (Some(l), Some(r)) => combine(l, r),
            (Some(l), None) => l.iter().fold(f64::INFINITY, |a, &x| a.min(x)) + side_floor,
            (None, Some(r)) => r.iter().fold(f64::INFINITY, |a, &x| a.min(x)) + side_floor,
            (None, None) => 2.0 * side_floor,
        };
        from_neighbours.max(runs.over(iv.lo, iv.hi))
    };
    let mut probe = start;
    while let Some(mut iv) = queue.pop_front() {
        if control.stopped() {
            queue.push_front(iv);
            break;
        }
        let sub = bound_of(&iv, &records);
        if inc.rules_out(sub) {
            inc.close(sub);
            continue;
        }
        let u = inc.bound();
        // Shrink from the evaluated neighbours: a candidate within move cost `d` of a split
        // `d` above the bound cannot beat it.
        if let Some((p, r)) = iv.left.and_then(|a| records.get(a)) {
            let d = r.score - u;
            if d >= 0.0 {
                let base = moved(*p);
                let skip = positions
                    .moved
                    .get(iv.lo..=iv.hi)
                    .map_or(0, |s| s.partition_point(|&x| x - base <= d));
                iv.lo += skip;
            }
        }
        if let Some((p, r)) = iv.right.and_then(|b| records.get(b)) {
            let d = r.score - u;
            if d >= 0.0 && iv.lo <= iv.hi {
                let base = moved(*p);
                let keep = positions
                    .moved
                    .get(iv.lo..=iv.hi)
                    .map_or(0, |s| s.partition_point(|&x| base - x > d));
                if keep == 0 {
                    iv.lo = iv.hi + 1;
                } else {
                    iv.hi = iv.lo + keep - 1;
                }
            }
        }
        if iv.lo > iv.hi {
            inc.close(u);
            continue;
        }
        let mid = match probe.take() {
            Some(p) if (iv.lo..=iv.hi).contains(&p) => p,
            _ => iv.lo + (iv.hi - iv.lo) / 2,
        };
        let slack = (moved(iv.hi) - moved(mid)).max(moved(mid) - moved(iv.lo));
        let hint = {
            let a = iv.left.and_then(|a| records.get(a));
            let b = iv.right.and_then(|b| records.get(b));
            let n = a.or(b).map_or(0, |(_, r)| r.left.len()); // no neighbour: nothing
            let mut hint = Hint {
                left: vec![f64::NEG_INFINITY; n],
                right: vec![f64::NEG_INFINITY; n],
                columns: Default::default(),
            };
            // The left part contains the left neighbour's and is contained in the right
            // neighbour's less the rows between (and the other way round for the right part):
            // per part, `gained` is what it holds more than the neighbour's, `lost` less.
            let mut absorb = |r: &Evaluated, lost: [f64; 2]| {
                for (i, (l, rr)) in r.left.iter().zip(&r.right).enumerate() {
                    if let (Some(hl), Some(hr)) = (hint.left.get_mut(i), hint.right.get_mut(i)) {
                        *hl = hl.max(l - lost[0]);
                        *hr = hr.max(rr - lost[1]);
                    }
                }
                for ((mine, theirs), lost) in hint.columns.iter_mut().zip(&r.columns).zip(lost) {
                    if theirs.is_empty() {
                        continue;
                    }
                    if mine.is_empty() {
                        mine.resize(theirs.len(), f64::NEG_INFINITY);
                    }
                    for (m, t) in mine.iter_mut().zip(theirs) {
                        *m = m.max(t - lost);
                    }
                }
            };
            if let Some((p, r)) = a {
                absorb(r, [0.0, moved(mid) - moved(*p)]);
            }
            if let Some((p, r)) = b {
                absorb(r, [moved(*p) - moved(mid), 0.0]);
            }
            hint
        };
        let result = eval(mid, slack, &hint, inc);
        inc.close(result.score);
        records.push((mid, result));
        let rec = records.len() - 1;
        if iv.lo < mid {
            queue.push_back(Interval {
                lo: iv.lo,
                hi: mid - 1,
                left: iv.left,
                right: Some(rec),
            });
        }
        if mid < iv.hi {
            queue.push_back(Interval {
                lo: mid + 1,
                hi: iv.hi,
                left: Some(rec),
                right: iv.right,
            });
        }
    }
    // Stopped: what was not evaluated is bounded by its neighbours.
    for iv in &queue {
        inc.close(bound_of(iv, &records));
    }
}

/// Evaluates the subsets of a nominal column's `slots` (those holding rows at the node,
/// with their move costs) that can still beat the incumbent. The first slot always goes
/// left, so each partition is met once. `eval(test, hint, incumbent)` as for thresholds.
pub(crate) fn search_subsets(
    nominal: u32,
    slots: &[(u32, f64)],
    side_floor: f64,
    inc: &mut Incumbent,
    control: &Control,
    mut eval: impl FnMut(Test, &Hint, &mut Incumbent) -> Evaluated,
) {
    // The heaviest slot stays left; the lightest flips most often (bit 0 of the Gray code),
    // so consecutive subsets differ by few rows and the bound carried between them stays
    // tight.
    let mut order = slots.to_vec();
    order.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    let Some((&(first, _), heavier_first)) = order.split_first() else {
        return;
    };
    let rest: Vec<(u32, f64)> = heavier_first.iter().rev().copied().collect();
    if rest.is_empty() || rest.len() >= 63 {
        return;
    }
    let n = rest.len() as u32;
    let all = (1u64 << n) - 1;
    let moves_of = |mask: u64| -> f64 {
        rest.iter()
            .enumerate()
            .filter(|(k, _)| mask >> k & 1 == 1)
            .map(|(_, s)| s.1)
            .sum()
    };
    // The last evaluated subset's score, less the move cost of the slots moved since.
    let mut reach = 2.0 * side_floor;
    // The subsets evaluated last (their masks over `rest`) and what they proved of their
    // parts: a part contains a part proven before less the rows it lost since, so it costs
    // at least that bound less their moves (MurTree's similarity bound).
    let mut records: VecDeque<(u64, Evaluated)> = VecDeque::new();
    let mut gray = 0u64;
    for i in 0u64..(1u64 << n) {
        if i > 0 {
            let j = i.trailing_zeros();
            gray ^= 1 << j;
            reach -= rest.get(j as usize).map_or(0.0, |s| s.1); // j < n = rest.len()
        }
        if gray == all {
            // Every slot left: not a split.
            continue;
        }
        if control.stopped() {
            // The rest of the subsets is bounded by the last one evaluated, less every move.
            let rest_moves: f64 = rest.iter().map(|s| s.1).sum();
            inc.close((reach - rest_moves).max(2.0 * side_floor));
            return;
        }
        if inc.rules_out(reach) {
            inc.close(reach);
            continue;
        }
        let allocations = records.front().map_or(0, |(_, r)| r.left.len()); // none yet
        let mut hint = Hint {
            left: vec![side_floor; allocations],
            right: vec![side_floor; allocations],
            columns: Default::default(),
        };
        for (mask, r) in &records {
            // The left part lost the slots `mask` had left and `gray` has not.
            let (lost_left, lost_right) = (moves_of(mask & !gray), moves_of(gray & !mask));
            for (h, &l) in hint.left.iter_mut().zip(&r.left) {
                *h = h.max(l - lost_left);
            }
            for (h, &x) in hint.right.iter_mut().zip(&r.right) {
                *h = h.max(x - lost_right);
            }
        }
        let known = combine(&hint.left, &hint.right);
        if allocations > 0 && inc.rules_out(known) {
            inc.close(known);
            continue;
        }
        let mut left = 1u64 << first;
        for (k, (slot, _)) in rest.iter().enumerate() {
            if gray >> k & 1 == 1 {
                left |= 1u64 << slot;
            }
        }
        let result = eval(Test::Subset { nominal, left }, &hint, inc);
        inc.close(result.score);
        reach = result.score;
        if records.len() == RECORDS {
            records.pop_back();
        }
        records.push_front((gray, result));
    }
}

/// Evaluated subsets a nominal column's search bounds the next ones from: the most recent,
/// which the Gray-code order makes the nearest.
const RECORDS: usize = 64;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// A V-shaped cost over 200 positions (one row each): the minimum is found and most
    /// positions are never evaluated.
    #[test]
    fn interval_search_finds_the_minimum_of_a_lipschitz_cost() {
        let cost = |i: usize| (i as f64 - 137.0).abs() + 5.0;
        let positions = Positions {
            at: (1..=200).collect(),
            moved: (1..=200).map(f64::from).collect(),
        };
        let mut inc = Incumbent::new(f64::INFINITY, 1e9, Sol::leaf(), 1e-9);
        let mut evaluated = 0;
        search_positions(
            &positions,
            None,
            0.0,
            &Runs::whole(),
            &mut inc,
            &Control::new(),
            |i, _, _, inc| {
                evaluated += 1;
                let c = cost(i);
                inc.offer(c, Sol::leaf);
                Evaluated {
                    left: vec![0.0],
                    right: vec![0.0],
                    score: c,
                    columns: Default::default(),
                }
            },
        );
        assert_eq!(inc.cost, 5.0);
        assert_eq!(inc.lower(), 5.0);
        assert!(evaluated < 40, "{evaluated} evaluations");
    }

    #[test]
    fn subsets_are_each_partition_once() {
        let slots = [(0u32, 1.0), (2, 1.0), (3, 1.0)];
        let mut seen = Vec::new();
        let mut inc = Incumbent::new(f64::INFINITY, 1e9, Sol::leaf(), 1e-9);
        search_subsets(0, &slots, 0.0, &mut inc, &Control::new(), |t, _, _| {
            if let Test::Subset { left, .. } = t {
                seen.push(left);
            }
            Evaluated {
                left: vec![0.0],
                right: vec![0.0],
                score: 10.0,
                columns: Default::default(),
            }
        });
        seen.sort_unstable();
        assert_eq!(seen, vec![0b0001, 0b0101, 0b1001]);
    }
}
