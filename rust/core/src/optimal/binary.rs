//! Trees over binary features (every column a 0/1 test, as STreeD and MurTree take their
//! input), after MurTree (Demirović et al., JMLR 2022, §4.3–4.5):
//!
//! - a depth-two subproblem is solved whole from *frequency counts*: for every pair of
//!   features (i, j), the statistics of the node's rows holding both. Each row adds itself
//!   to the pairs of the features it holds, O(rows × held²), and inclusion–exclusion gives
//!   the three other cells of every pair (holding i not j, ...), so every tree of depth two
//!   is then scored in O(features²). Each feature is counted by its rarer value over the
//!   training rows, so rows hold as few features as possible;
//! - counts are reused: a new subproblem's counts are those of a recently counted one with
//!   the rows that differ removed and added, when fewer rows differ than it holds (the
//!   children of neighbouring thresholds of one raw feature differ in a few rows);
//! - at depth three and more, the children of roots not yet evaluated are bounded from those
//!   already solved ([`Similar`]: MurTree's similarity bound, taken across different root
//!   features): a tree of a row set costs at least that of a set it shares rows with, less
//!   the move costs of the rows only the other holds. Roots whose children cannot beat the
//!   incumbent are never split.
//!
//! The general counting of few-valued columns ([`super::pairs`]) does one pass over the
//! node's rows per pair of columns; here a row costs only the pairs of the features it
//! holds, and a subproblem close to a counted one only its differing rows.

use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;

use super::columns::{Columns, MissingRank};
use super::loss::Loss;
use super::node::Node;
use super::pairs::{compose, tree, Best, Counted};
use super::search::Ctx;
use super::solution::Test;
use crate::control::Control;

/// Features beyond which the binary path is not taken: its counts grow as features².
const MAX_FEATURES: usize = 4096;

/// Memory the reusable counts may take in all (bytes): fewer slots when the features are
/// many.
const SLOT_BYTES: usize = 256 << 20;

/// Counts kept for reuse at most.
const MAX_SLOTS: usize = 4;

/// Incremental updates after which counts are taken whole again, so that the rounding of
/// weighted sums does not accumulate.
const REFRESH: usize = 256;

/// Roots of depth-two subproblems whose trees are scored on several threads, at least.
const PARALLEL_ROOTS: usize = 64;

/// The test of binary ordering `column`: rank 0 left, rank 1 right.
pub(crate) fn test(column: usize) -> Test {
    Test::Threshold {
        column: column as u32,
        left: 0,
        right: 1,
    }
}

/// Cells of the upper triangle (diagonal included) of `k` features.
fn triangle(k: usize) -> usize {
    k * (k + 1) / 2
}

/// Each cell (i, j) of the upper triangle a row holding the features `held` (ascending)
/// adds to: i and j held, j at or after i, as `visit(start(k, i) + j)`.
#[inline]
fn each_held_cell(k: usize, held: &[u32], mut visit: impl FnMut(usize)) {
    let mut rest = held;
    while let Some((&i, tail)) = rest.split_first() {
        let base = start(k, i as usize);
        for &j in rest {
            visit(base + j as usize);
        }
        rest = tail;
    }
}

/// Where row `i` of the upper triangle starts, less `i` (so that cell (i, j), j ≥ i, is at
/// `start(i) + j`).
#[inline]
fn start(k: usize, i: usize) -> usize {
    i * k - i * (i.saturating_sub(1)) / 2 - i
}

/// The cell of the unordered pair (i, j).
#[inline]
fn cell(k: usize, i: usize, j: usize) -> usize {
    let (lo, hi) = if i <= j { (i, j) } else { (j, i) };
    start(k, lo) + hi
}

/// Off: binary features go to the general counting of few-valued columns, so that tests
/// compare the two.
#[cfg(test)]
pub(crate) static BINARY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// What the search counted, for the tests and the profile.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    /// Depth-two subproblems counted from their rows.
    pub whole: AtomicUsize,
    /// Depth-two subproblems counted from another's counts.
    pub reused: AtomicUsize,
    /// Rows added or removed by those.
    pub moved_rows: AtomicUsize,
    /// Roots of deeper subproblems ruled out by the similarity bound before being split.
    pub pruned: AtomicUsize,
    /// Roots of deeper subproblems split.
    pub split: AtomicUsize,
}

/// The training rows' binary features, when every column is one.
pub(crate) struct Binary {
    k: usize,
    /// Per feature: whether a row holds it at rank 0 (its rarer value in the training rows).
    flip: Vec<bool>,
    /// Row `r` holds the features `held[starts[r]..starts[r + 1]]`, ascending.
    starts: Vec<usize>,
    held: Vec<u32>,
    slots: Mutex<Vec<Counts>>,
    max_slots: usize,
    pub tally: Tally,
}

impl Binary {
    /// The binary features of `columns` over `n_rows` rows; `None` unless every column is an
    /// ordering of two values with no missing ones (and they are not too many), or when the
    /// memory cannot be had (recorded in `control`).
    pub(crate) fn new(columns: &Columns, n_rows: usize, control: &Control) -> Option<Binary> {
        #[cfg(test)]
        if !BINARY.load(AtomicOrdering::Relaxed) {
            return None;
        }
        let k = columns.orderings.len();
        let binary = columns.nominals.is_empty()
            && (1..=MAX_FEATURES).contains(&k)
            && columns
                .orderings
                .iter()
                .all(|o| o.missing_rank == MissingRank::None && o.rank.iter().all(|&r| r <= 1));
        if !binary {
            return None;
        }
        let flip: Vec<bool> = columns
            .orderings
            .iter()
            .map(|o| 2 * o.rank.iter().filter(|&&r| r == 1).count() > n_rows)
            .collect();
        let mut starts = control.vec(n_rows + 1)?;
        starts.push(0);
        let mut held = Vec::new();
        for r in 0..n_rows {
            for (i, (o, &f)) in columns.orderings.iter().zip(&flip).enumerate() {
                if (o.rank.get(r).copied().unwrap_or(0) == 1) != f {
                    // r < n_rows
                    held.try_reserve(1).ok()?;
                    held.push(i as u32);
                }
            }
            starts.push(held.len());
        }
        // Counts of two classes take 16 bytes a cell; wider statistics fewer slots.
        let bytes = triangle(k).saturating_mul(16).max(1);
        let max_slots = (SLOT_BYTES / bytes).clamp(1, MAX_SLOTS);
        Some(Binary {
            k,
            flip,
            starts,
            held,
            slots: Mutex::new(Vec::new()),
            max_slots,
            tally: Tally::default(),
        })
    }

    /// The features row `r` holds (`starts` has each training row's bounds in `held`, made
    /// with it: the empty slices are never read).
    #[inline]
    fn held(&self, r: u32) -> &[u32] {
        let r = r as usize;
        match (self.starts.get(r), self.starts.get(r + 1)) {
            (Some(&a), Some(&b)) => self.held.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Whether the rows of feature `i`'s side `side` (0: rank 0, left) are those holding it
    /// (`flip` has every feature's: the default is never read, nor [`Similar::holds`]').
    #[inline]
    fn holds(&self, i: usize, side: usize) -> bool {
        (side == 1) != self.flip.get(i).copied().unwrap_or(false)
    }

    /// Every tree of depth two (at most `leaves` leaves, 3 or 4) rooted at a split of `node`,
    /// all scored. `None` when the search stopped or the memory cannot be had.
    pub(crate) fn solve<L: Loss>(
        &self,
        ctx: &Ctx<'_, L>,
        node: &Node,
        loss: &L,
        leaves: usize,
    ) -> Option<Counted> {
        // Poisoned only by a panic, which the core does not raise: go on rather than panic too.
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let counts = self.counts_for(&mut slots, ctx, node, loss)?;
        if ctx.control.stopped() {
            return None;
        }
        let best = self.best(ctx, loss, counts, leaves, node.len());
        Some(Counted {
            best,
            floor: f64::INFINITY,
        })
    }

    /// Counts of `node`'s rows: a kept one updated by the rows that differ, or a new one.
    /// The returned slot is the most recently used.
    fn counts_for<'s, L: Loss>(
        &self,
        slots: &'s mut Vec<Counts>,
        ctx: &Ctx<'_, L>,
        node: &Node,
        loss: &L,
    ) -> Option<&'s Counts> {
        // Losses whose statistics depend on the node (regression centres its targets) are
        // counted afresh every time.
        let reusable = loss.shared_stats();
        let nearest = slots
            .iter()
            .enumerate()
            .filter(|(_, c)| reusable && c.width == loss.width() && c.since < REFRESH)
            .map(|(s, c)| (s, differing(&c.rows, &node.rows)))
            .min_by_key(|&(_, d)| d)
            .filter(|&(_, d)| d < node.len());
        let at = match nearest {
            Some((s, d)) => {
                let c = slots.get_mut(s)?;
                c.update(self, loss, &node.rows);
                self.tally.reused.fetch_add(1, AtomicOrdering::Relaxed);
                self.tally.moved_rows.fetch_add(d, AtomicOrdering::Relaxed);
                s
            }
            None => {
                let fresh = if slots.len() < self.max_slots {
                    slots.try_reserve(1).ok()?;
                    slots.push(Counts::new(self.k, loss.width(), ctx.control)?);
                    slots.len() - 1
                } else {
                    // The least recently used.
                    0
                };
                slots
                    .get_mut(fresh)?
                    .count(self, loss, &node.rows, ctx.control)?;
                self.tally.whole.fetch_add(1, AtomicOrdering::Relaxed);
                fresh
            }
        };
        // Most recently used last.
        let c = slots.remove(at);
        slots.push(c);
        slots.last()
    }

    /// The cheapest tree of depth two rooted at a split, from `counts` of a node of `n` rows:
    /// the first of the cheapest, in column order.
    fn best<L: Loss>(
        &self,
        ctx: &Ctx<'_, L>,
        loss: &L,
        counts: &Counts,
        leaves: usize,
        n: usize,
    ) -> Option<(f64, super::solution::Sol)> {
        let w = loss.width();
        let k = self.k;
        // Features that split the node, with the statistics of the rows holding each.
        let active: Vec<usize> = (counts.held_rows.iter().enumerate())
            .filter(|&(_, &held)| held > 0 && (held as usize) < n)
            .map(|(i, _)| i)
            .collect();
        let mut diagonal = vec![0.0; k * w];
        for &i in &active {
            counts.pair(k, i, i, diagonal.get_mut(i * w..(i + 1) * w)?);
        }
        let by_root = |&i: &usize| -> Option<(f64, super::solution::Sol)> {
            let mut scratch = vec![0.0; 4 * w];
            let (held_i, rest) = scratch.split_at_mut(w);
            let (free_i, rest) = rest.split_at_mut(w);
            let (both, only_j) = rest.split_at_mut(w);
            held_i.copy_from_slice(diagonal.get(i * w..(i + 1) * w)?);
            for ((f, &t), &h) in free_i.iter_mut().zip(&counts.total).zip(held_i.iter()) {
                *f = t - h;
            }
            // The best split on any other feature of the rows holding `i` and of the others.
            let (mut best_held, mut best_free): (Best, Best) = (None, None);
            for &j in &active {
                if j == i {
                    continue;
                }
                counts.pair(k, i, j, both);
                let diag_j = diagonal.get(j * w..(j + 1) * w)?;
                for ((o, &d), &b) in only_j.iter_mut().zip(diag_j).zip(both.iter()) {
                    *o = d - b;
                }
                let e_held = loss.err(both) + loss.err_rest(held_i, both);
                if best_held.is_none_or(|(e, _)| e_held < e - ctx.tol) {
                    best_held = Some((e_held, test(j)));
                }
                let e_free = loss.err(only_j) + loss.err_rest(free_i, only_j);
                if best_free.is_none_or(|(e, _)| e_free < e - ctx.tol) {
                    best_free = Some((e_free, test(j)));
                }
            }
            let (leaf_held, leaf_free) = (loss.err(held_i), loss.err(free_i));
            let (leaf, split) = if self.holds(i, 0) {
                ([leaf_held, leaf_free], [best_held, best_free])
            } else {
                ([leaf_free, leaf_held], [best_free, best_held])
            };
            let (cost, tests) = compose(ctx, leaves, leaf, split);
            Some((cost, tree(test(i), tests)))
        };
        let results: Vec<Option<(f64, super::solution::Sol)>> =
            if ctx.parallel && active.len() >= PARALLEL_ROOTS {
                active.par_iter().map(by_root).collect()
            } else {
                active.iter().map(by_root).collect()
            };
        let mut best: Option<(f64, super::solution::Sol)> = None;
        for (cost, sol) in results.into_iter().flatten() {
            if best.as_ref().is_none_or(|(c, _)| cost < c - ctx.tol) {
                best = Some((cost, sol));
            }
        }
        best
    }

    /// The similarity bounds of a node's roots (depth three and more). `None` when the
    /// memory cannot be had.
    pub(crate) fn similar<L: Loss>(
        &self,
        node: &Node,
        loss: &L,
        control: &Control,
    ) -> Option<Similar> {
        let k = self.k;
        let mut moves = control.filled(triangle(k), 0.0)?;
        let mut held_rows = vec![0u32; k];
        let mut total = 0.0;
        for &r in &node.rows {
            let m = loss.move_cost(r);
            total += m;
            let held = self.held(r);
            for &i in held {
                if let Some(c) = held_rows.get_mut(i as usize) {
                    *c += 1;
                }
            }
            each_held_cell(k, held, |at| {
                if let Some(x) = moves.get_mut(at) {
                    *x += m;
                }
            });
        }
        Some(Similar {
            k,
            flip: self.flip.clone(),
            moves,
            held_rows,
            rows: node.len(),
            total,
            solved: Vec::new(),
        })
    }
}

/// The number of rows in one of two ascending lists and not the other.
fn differing(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut d) = (0, 0, 0);
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        if x == y {
            i += 1;
            j += 1;
        } else if x < y {
            d += 1;
            i += 1;
        } else {
            d += 1;
            j += 1;
        }
    }
    d + (a.len() - i.min(a.len())) + (b.len() - j.min(b.len()))
}

/// The frequency counts of a row set: per statistic (`width` of them), a plane of the upper
/// triangle of feature pairs, cell (i, j) summing the rows holding both.
struct Counts {
    rows: Vec<u32>,
    width: usize,
    planes: Vec<f64>,
    /// Statistics of all the rows.
    total: Vec<f64>,
    /// Per feature, the rows holding it.
    held_rows: Vec<u32>,
    /// Incremental updates since counted whole.
    since: usize,
}

impl Counts {
    fn new(k: usize, width: usize, control: &Control) -> Option<Counts> {
        Some(Counts {
            rows: Vec::new(),
            width,
            planes: control.filled(triangle(k).saturating_mul(width), 0.0)?,
            total: vec![0.0; width],
            held_rows: vec![0; k],
            since: 0,
        })
    }

    /// The statistics of the rows holding both `i` and `j` into `out`.
    #[inline]
    fn pair(&self, k: usize, i: usize, j: usize, out: &mut [f64]) {
        // Cell (i, j) of each statistic's plane.
        let planes = self
            .planes
            .iter()
            .skip(cell(k, i, j))
            .step_by(triangle(k).max(1));
        for (o, &x) in out.iter_mut().zip(planes) {
            *o = x;
        }
    }

    /// Adds row `r` (`sign` 1) or takes it away (−1). `stat` is scratch of the width.
    fn apply<L: Loss>(&mut self, bin: &Binary, loss: &L, r: u32, sign: f64, stat: &mut [f64]) {
        let k = bin.k;
        let plane = triangle(k);
        stat.iter_mut().for_each(|x| *x = 0.0);
        loss.add(stat, r);
        let held = bin.held(r);
        for (c, &v) in stat.iter().enumerate() {
            if v == 0.0 {
                continue;
            }
            let v = v * sign;
            let Some(cells) = self.planes.get_mut(c * plane..(c + 1) * plane) else {
                continue;
            };
            each_held_cell(k, held, |at| {
                if let Some(x) = cells.get_mut(at) {
                    *x += v;
                }
            });
        }
        for (t, &s) in self.total.iter_mut().zip(stat.iter()) {
            *t += sign * s;
        }
        for &i in held {
            if let Some(h) = self.held_rows.get_mut(i as usize) {
                if sign > 0.0 {
                    *h += 1;
                } else {
                    *h = h.saturating_sub(1);
                }
            }
        }
    }

    /// Counts `rows` from nothing. `None` when the search stopped.
    fn count<L: Loss>(
        &mut self,
        bin: &Binary,
        loss: &L,
        rows: &[u32],
        control: &Control,
    ) -> Option<()> {
        self.planes.iter_mut().for_each(|x| *x = 0.0);
        self.total.iter_mut().for_each(|x| *x = 0.0);
        self.held_rows.iter_mut().for_each(|x| *x = 0);
        self.rows.clear();
        self.rows.try_reserve(rows.len()).ok()?;
        self.rows.extend_from_slice(rows);
        self.since = 0;
        let mut stat = vec![0.0; self.width];
        for (n, &r) in rows.iter().enumerate() {
            if n % 1024 == 1023 && control.stopped() {
                // Counted in part: never reused.
                self.since = REFRESH;
                return None;
            }
            self.apply(bin, loss, r, 1.0, &mut stat);
        }
        Some(())
    }

    /// These counts become those of `rows`: the rows only they hold removed, the rows only
    /// `rows` holds added.
    fn update<L: Loss>(&mut self, bin: &Binary, loss: &L, rows: &[u32]) {
        let mut stat = vec![0.0; self.width];
        let old = std::mem::take(&mut self.rows);
        let (mut i, mut j) = (0, 0);
        loop {
            match (old.get(i), rows.get(j)) {
                (Some(&x), Some(&y)) if x == y => {
                    i += 1;
                    j += 1;
                }
                (Some(&x), Some(&y)) if x < y => {
                    self.apply(bin, loss, x, -1.0, &mut stat);
                    i += 1;
                }
                (Some(&x), None) => {
                    self.apply(bin, loss, x, -1.0, &mut stat);
                    i += 1;
                }
                (_, Some(&y)) => {
                    self.apply(bin, loss, y, 1.0, &mut stat);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        self.rows = old;
        self.rows.clear();
        self.rows.extend_from_slice(rows);
        self.since += 1;
    }
}

/// MurTree's similarity bound across the roots of one node (depth three and more): the
/// children solved so far, each a feature's side with its leaf budget and proven lower
/// bound, bound the children of the roots not yet split. A child of feature `b` holds every
/// row of a solved child of `a` but those of move cost `moved`, so its optimum is at least
/// the solved one's bound less `moved` (a tree of the larger set, applied to the smaller,
/// costs no more; adding a row costs at most its move cost). The move costs of every pair
/// of the node's features' sides come from one count of the node's rows.
pub(crate) struct Similar {
    k: usize,
    flip: Vec<bool>,
    /// Upper triangle: move costs of the rows holding both features.
    moves: Vec<f64>,
    /// Per feature, the node's rows holding it.
    held_rows: Vec<u32>,
    rows: usize,
    total: f64,
    /// (feature, side, leaves, lower bound) of the children solved.
    solved: Vec<(u32, u8, u32, f64)>,
}

impl Similar {
    /// Whether feature `i` splits the node (both sides hold rows). `held_rows` has every
    /// feature's and `moves` every cell's, so their defaults here and in `mass` are never
    /// read.
    pub(crate) fn splits(&self, i: usize) -> bool {
        let held = self.held_rows.get(i).copied().unwrap_or(0) as usize;
        held > 0 && held < self.rows
    }

    /// Move cost of the rows on feature `i`'s side `u` (as held: 1 holds it) that are on
    /// feature `j`'s side `v` (as held).
    fn mass(&self, i: usize, u: bool, j: usize, v: bool) -> f64 {
        let at = |a: usize, b: usize| self.moves.get(cell(self.k, a, b)).copied().unwrap_or(0.0);
        let both = at(i, j);
        let (di, dj) = (at(i, i), at(j, j));
        match (u, v) {
            (true, true) => both,
            (true, false) => di - both,
            (false, true) => dj - both,
            (false, false) => self.total - di - dj + both,
        }
    }

    /// Whether side `side` (0: rank 0) of feature `i` is the rows holding it.
    fn holds(&self, i: usize, side: usize) -> bool {
        (side == 1) != self.flip.get(i).copied().unwrap_or(false)
    }

    /// A lower bound on the child `side` of feature `b` with `leaves` leaves, from the
    /// children solved (−∞ when none bounds it).
    pub(crate) fn bound(&self, b: usize, side: usize, leaves: usize) -> f64 {
        let (mut out, u_b) = (f64::NEG_INFINITY, self.holds(b, 1 - side));
        for &(a, s, k, lower) in &self.solved {
            if k as usize != leaves || lower <= out {
                continue;
            }
            let a = a as usize;
            // The solved child's rows that are on b's other side.
            let moved = self.mass(a, self.holds(a, usize::from(s)), b, u_b);
            out = out.max(lower - moved);
        }
        out
    }

    /// Records a child's lower bound: feature `i`'s side `side` with `leaves` leaves.
    pub(crate) fn record(&mut self, i: usize, side: usize, leaves: usize, lower: f64) {
        if lower.is_finite() && self.solved.try_reserve(1).is_ok() {
            self.solved
                .push((i as u32, side as u8, leaves as u32, lower));
        }
    }
}
