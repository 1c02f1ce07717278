//! Absolute error's split search. A median is no function of sums, so instead of statistics
//! vectors these scans keep a side's rows in a Fenwick tree over the ranks of the node's
//! targets (scikit-learn 1.9's method, `sklearn/tree/_criterion.pyx`, class `MAE`): adding a
//! row and reading the absolute error about the weighted median both take O(log n), so one
//! pass forward gives the error of every left side and one pass backward that of every right
//! side — O(n log n) per feature at a node, where re-sorting each side would be O(n²).
//!
//! The scans follow the rules of the scans of sums ([`Searcher::sweep`], the categorical
//! ones): the same sizes, missing-value strategies and ties; their candidates are completed by
//! [`Searcher::finish`] with the impurities computed here.

use std::borrow::Cow;

use super::categorical::{canonical, sides_of};
use super::hist::{BinOrder, Bins};
use super::numeric::KNOWN_VS_MISSING;
use super::presort::position;
use super::*;
use crate::median::Fenwick;

/// A node's targets ranked, each output's apart: the scans activate a row at its rank in a
/// [`Fenwick`] tree per output.
pub(crate) struct Ranks {
    outputs: Vec<Ranked>,
}

/// One output's targets at a node, ranked.
struct Ranked {
    /// The node's targets (less the searcher's shift), ascending.
    sorted: Vec<f64>,
    /// The rank of each row of the node (by position in its [`NodeRows`]).
    rank: Vec<u32>,
}

/// A set of a node's rows held in one [`Fenwick`] tree per output, so that its absolute error
/// (the mean over the outputs, as scikit-learn's `MAE` reports several) and its medians are
/// at hand as rows join it.
struct Sets<'r> {
    trees: Vec<Fenwick>,
    ranks: &'r Ranks,
    node: &'r NodeRows,
}

impl<'r> Sets<'r> {
    fn new((ranks, node): (&'r Ranks, &'r NodeRows)) -> Sets<'r> {
        let trees = ranks.outputs.iter().map(|_| Fenwick::default()).collect();
        let mut sets = Sets { trees, ranks, node };
        sets.clear();
        sets
    }

    /// Empties the set.
    fn clear(&mut self) {
        for (tree, ranked) in self.trees.iter_mut().zip(&self.ranks.outputs) {
            tree.reset(ranked.sorted.len());
        }
    }

    /// Adds the node's row at position `i`.
    #[inline]
    fn add(&mut self, i: u32) {
        let i = i as usize;
        let Some(w) = self.node.weight(i) else {
            return;
        };
        for (tree, ranked) in self.trees.iter_mut().zip(&self.ranks.outputs) {
            if let Some(&k) = ranked.rank.get(i) {
                if let Some(&y) = ranked.sorted.get(k as usize) {
                    tree.add(k as usize, y, w);
                }
            }
        }
    }

    fn add_all(&mut self, rows: &[u32]) {
        for &i in rows {
            self.add(i);
        }
    }

    /// Σw·|y − median| of the set, averaged over the outputs.
    fn error(&self) -> f64 {
        let each = self.trees.iter().zip(&self.ranks.outputs);
        let total: f64 = each.map(|(t, r)| t.absolute_error(&r.sorted)).sum();
        total / self.trees.len().max(1) as f64
    }

    /// The first output's median as a node's value ([`Fenwick::node_median`]): monotonic
    /// constraints, which take one output, compare it.
    fn node_median(&self) -> f64 {
        match (self.trees.first(), self.ranks.outputs.first()) {
            (Some(t), Some(r)) => t.node_median(&r.sorted),
            _ => f64::NAN,
        }
    }

    /// The first output's upper median ([`Fenwick::median`]), which orders categories.
    fn median(&self) -> f64 {
        match (self.trees.first(), self.ranks.outputs.first()) {
            (Some(t), Some(r)) => t.median(&r.sorted),
            _ => f64::NAN,
        }
    }

    fn journal(&mut self) {
        self.trees.iter_mut().for_each(Fenwick::journal);
    }

    fn undo(&mut self) {
        self.trees.iter_mut().for_each(Fenwick::undo);
    }

    /// `read` of the set with the rows at `rows` added, the set left unchanged.
    fn with_rows(&mut self, rows: &[u32], read: impl Fn(&Self) -> f64) -> f64 {
        self.journal();
        self.add_all(rows);
        let figure = read(self);
        self.undo();
        figure
    }

    /// The error of the set with the rows at `rows` added, the set left unchanged.
    fn error_with(&mut self, rows: &[u32]) -> f64 {
        self.with_rows(rows, Self::error)
    }
}

/// Absolute errors of growing (or, reversed, shrinking) sets of rows, by position in a scan
/// order, and their node medians when a monotonic constraint needs them.
#[derive(Default)]
struct Pass {
    errors: Vec<f64>,
    medians: Vec<f64>,
}

/// A pass holds one entry per position of its order and is read at positions of that order
/// only, so the defaults of `error` and `median` are never read; an empty pass (no missing
/// rows to place) has error 0, the rule of `last_error`.
impl Pass {
    fn error(&self, k: usize) -> f64 {
        self.errors.get(k).copied().unwrap_or(0.0)
    }

    fn last_error(&self) -> f64 {
        self.errors.last().copied().unwrap_or(0.0)
    }

    fn median(&self, k: usize) -> f64 {
        self.medians.get(k).copied().unwrap_or(f64::NAN)
    }

    fn reversed(mut self) -> Pass {
        self.errors.reverse();
        self.medians.reverse();
        self
    }
}

/// Where an absolute-error scan cuts its order, and the errors (Σw·|y − median|) it found.
struct Cut {
    /// Items of the order sent left (all of them: every known row left, the missing right).
    at: usize,
    /// The side the missing rows were scored on, when the strategy places them.
    side: Option<usize>,
    /// The values the scan met and the cuts it tried (C4.5's threshold correction counts
    /// them).
    cuts: Cuts,
    /// Error of each side, the missing rows in theirs, and of all the scored rows.
    errors: [f64; 2],
    scored_error: f64,
}

impl Searcher<'_, '_> {
    /// The node's targets ranked, for absolute error; `None` for a class target or when the
    /// memory cannot be had.
    pub(crate) fn ranks(&self, node: &NodeRows) -> Option<Ranks> {
        let (y, width) = match self.target {
            Target::Values(y) => (*y, 1),
            Target::MultiValues { values, n_outputs } => (*values, *n_outputs),
            Target::Classes { .. } | Target::MultiClasses { .. } => return None,
        };
        let mut outputs = Vec::new();
        for k in 0..width {
            let mut order: Vec<(f64, u32)> = self.vec(node.len())?;
            order.extend(node.rows.iter().enumerate().map(|(i, &r)| {
                // Rows are the target's: the 0.0 is never read.
                let target = y.get(r as usize * width + k).copied().unwrap_or(0.0);
                (target - self.shift, i as u32)
            }));
            order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mut rank: Vec<u32> = self.vec(node.len())?;
            rank.resize(node.len(), 0);
            let mut sorted = self.vec(node.len())?;
            for (r, &(target, i)) in order.iter().enumerate() {
                sorted.push(target);
                if let Some(slot) = rank.get_mut(i as usize) {
                    *slot = r as u32;
                }
            }
            outputs.push(Ranked { sorted, rank });
        }
        Some(Ranks { outputs })
    }

    /// A pass over growing sets of rows: the rows at `base` together with the first `k + 1`
    /// positions of `order`, for every `k`; with `medians`, their node medians too (what a
    /// monotonic constraint compares). `None` when the memory cannot be had.
    fn pass(
        &self,
        set: &mut Sets<'_>,
        base: &[u32],
        order: impl ExactSizeIterator<Item = u32>,
        medians: bool,
    ) -> Option<Pass> {
        let n = order.len();
        let mut pass = Pass {
            errors: self.vec(n)?,
            medians: if medians { self.vec(n)? } else { Vec::new() },
        };
        set.clear();
        set.add_all(base);
        for i in order {
            set.add(i);
            pass.errors.push(set.error());
            if medians {
                pass.medians.push(set.node_median() + self.shift);
            }
        }
        Some(pass)
    }

    /// Statistics of the rows at `positions`.
    fn stats_of(&self, node: &NodeRows, positions: &[u32]) -> Vec<f64> {
        let mut stats = self.zero_stats();
        for &i in positions {
            self.add_row(&mut stats, node, i as usize);
        }
        stats
    }

    /// The best cut of `order` (positions of the known rows in scan order; a threshold may
    /// fall after item `k` where `cut_after(k)`), as [`Self::sweep`] finds it: the missing
    /// rows left out of the score, or, when the strategy places them, tried on each side of
    /// every cut, and every known row left with the missing ones right. On a feature
    /// constrained with `sign`, a cut whose sides' medians break the constraint is no cut
    /// (scikit-learn's `check_monotonicity` on `MAE`'s medians).
    fn absolute_sweep(
        &self,
        (ranks, node): (&Ranks, &NodeRows),
        order: &[u32],
        cut_after: impl Fn(usize) -> bool,
        missing_rows: &[u32],
        (node_weight, sign): (f64, i8),
    ) -> Option<Cut> {
        let n = order.len();
        let place = self.places_missing() && !missing_rows.is_empty();
        if n == 0 || (n < 2 && !place) {
            return None;
        }
        let mut set = Sets::new((ranks, node));
        let medians = sign != 0;
        let forward = self.pass(&mut set, &[], order.iter().copied(), medians)?;
        let reversed = order.iter().rev().copied();
        let backward = self.pass(&mut set, &[], reversed, medians)?.reversed();
        let known_error = forward.last_error();
        let known = self.stats_of(node, order);
        let kw = self.weight_of(&known);
        // With the missing rows placed: errors with them on the left, on the right, alone.
        let (mut forward_m, mut backward_m, mut alone) =
            (Pass::default(), Pass::default(), Pass::default());
        let (mut scored, mut scored_error, mut mw) = (known, known_error, 0.0);
        if place {
            forward_m = self.pass(&mut set, missing_rows, order.iter().copied(), medians)?;
            let reversed = order.iter().rev().copied();
            backward_m = self
                .pass(&mut set, missing_rows, reversed, medians)?
                .reversed();
            alone = self.pass(&mut set, &[], missing_rows.iter().copied(), medians)?;
            let missing_stats = self.stats_of(node, missing_rows);
            mw = self.weight_of(&missing_stats);
            scored = sum(&scored, &missing_stats);
            scored_error = forward_m.last_error();
        }
        let missing_error = alone.last_error();
        let sw = self.weight_of(&scored);
        let scale = self.noise_scale(&scored);
        // Absolute error is a regression criterion: no class factors, one least weight.
        let least = self
            .least_side(if place { sw } else { kw }, node_weight)
            .plain();
        let allowed = |l: f64, r: f64| !medians || self.monotone_values(sign, l, r);
        // The best cut by the side of the missing rows (right also without placing them),
        // for the order of preference of [`prefer_missing_right`].
        let mut best: [Option<(f64, Cut)>; 2] = [None, None];
        let mut offer = |errors: [f64; 2], at: usize, side: Option<usize>| {
            let quality = (scored_error - errors[0] - errors[1]) / sw;
            let Some(slot) = best.get_mut(side.unwrap_or(1)) else {
                // (Missing rows not placed: ranked as if right, the rule above.)
                return;
            };
            if improves(quality, slot.as_ref().map(|b| b.0), scale) {
                let cut = Cut {
                    at,
                    side,
                    cuts: Cuts {
                        distinct: 0,
                        tried: 0,
                    },
                    errors,
                    scored_error,
                };
                *slot = Some((quality, cut));
            }
        };
        let mut wl = 0.0;
        let mut cuts = Cuts {
            distinct: 1,
            tried: 0,
        };
        for (k, &i) in order.iter().enumerate().take(n - 1) {
            // `order` holds positions of the node's rows: the 0.0 is never read.
            wl += node.weight(i as usize).unwrap_or(0.0);
            if !cut_after(k) {
                continue;
            }
            cuts.distinct += 1;
            let wr = kw - wl;
            let (left, right) = (forward.error(k), backward.error(k + 1));
            if place {
                if wl + mw >= least
                    && wr >= least
                    && allowed(forward_m.median(k), backward.median(k + 1))
                {
                    offer([forward_m.error(k), right], k + 1, Some(0));
                }
                if wl >= least
                    && wr + mw >= least
                    && allowed(forward.median(k), backward_m.median(k + 1))
                {
                    offer([left, backward_m.error(k + 1)], k + 1, Some(1));
                }
            } else if wl >= least && wr >= least {
                cuts.tried += 1;
                if allowed(forward.median(k), backward.median(k + 1)) {
                    offer([left, right], k + 1, None);
                }
            }
        }
        let known_median = forward.median(n - 1);
        if place
            && kw >= least
            && mw >= least
            && allowed(known_median, alone.median(missing_rows.len() - 1))
        {
            offer([known_error, missing_error], n, Some(1));
        }
        let [left, right] = best;
        let (_, mut cut) = prefer_missing_right(left, right, scale)?;
        cut.cuts = cuts;
        Some(cut)
    }

    /// The candidate that sends `order[..cut.at]` left and the rest right (the missing rows
    /// to `cut.side`, or left out of the score), tested by `rule`.
    #[allow(clippy::too_many_arguments)]
    fn absolute_candidate(
        &self,
        feature: usize,
        rule: SplitRule,
        node: &NodeRows,
        order: &[u32],
        missing_rows: &[u32],
        cut: Cut,
        node_weight: f64,
    ) -> Option<Candidate> {
        let (left, right) = order.split_at(cut.at.min(order.len()));
        let mut children = [self.stats_of(node, left), self.stats_of(node, right)];
        let mut counts = [left.len(), right.len()];
        let known = sum(&children[0], &children[1]);
        let (scored, rows) = match cut.side {
            Some(side) => {
                let missing_stats = self.stats_of(node, missing_rows);
                if let (Some(c), Some(k)) = (children.get_mut(side), counts.get_mut(side)) {
                    add_into(c, &missing_stats);
                    *k += missing_rows.len();
                }
                let rows = MissingRows::Placed {
                    child: side,
                    known_weight: self.weight_of(&known),
                };
                (sum(&known, &missing_stats), rows)
            }
            None => (known, MissingRows::Left),
        };
        let per_weight = |error: f64, stats: &[f64]| {
            let w = self.weight_of(stats);
            if w > 0.0 {
                error / w
            } else {
                0.0
            }
        };
        let impurities = Impurities {
            scored: per_weight(cut.scored_error, &scored),
            children: children
                .iter()
                .zip(cut.errors)
                .map(|(c, e)| per_weight(e, c))
                .collect(),
        };
        let part = Partition {
            children: &children,
            counts: &counts,
            impurities: Some(&impurities),
        };
        let candidate = self.finish(feature, rule, &scored, &part, node_weight, rows)?;
        self.correct_numeric_gain(candidate, cut.cuts, node_weight)
    }

    /// A drawn test ([`Self::random_test`]) scored by absolute error: `left(i)` says where the
    /// node's row at position `i` goes (`None`: missing), `side` where the missing rows go
    /// (`None`: left out of the score). Each error is read from the node's ranks, O(n log n).
    /// On a constrained feature the sides' medians must keep the constraint.
    pub(super) fn absolute_drawn(
        &self,
        feature: usize,
        rule: SplitRule,
        node: &NodeRows,
        left: impl Fn(usize) -> Option<bool>,
        side: Option<usize>,
        (node_weight, ranks): (f64, &Ranks),
    ) -> Option<Candidate> {
        let (mut order, mut right, mut missing) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..node.len() {
            match left(i) {
                Some(true) => order.push(i as u32),
                Some(false) => right.push(i as u32),
                None => missing.push(i as u32),
            }
        }
        let mut set = Sets::new((ranks, node));
        // The error of a union of rows and its node median.
        let mut error = |parts: &[&[u32]]| {
            set.clear();
            for part in parts {
                set.add_all(part);
            }
            (set.error(), set.node_median() + self.shift)
        };
        let placed = |s: usize| if side == Some(s) { &missing[..] } else { &[] };
        let (l, r) = (error(&[&order, placed(0)]), error(&[&right, placed(1)]));
        let sign = self.constraint(feature);
        if sign != 0 && !self.monotone_values(sign, l.1, r.1) {
            return None;
        }
        let errors = [l.0, r.0];
        let all = if side.is_some() { &missing[..] } else { &[] };
        let (scored_error, _) = error(&[&order, &right, all]);
        let cut = Cut {
            at: order.len(),
            side,
            // A drawn threshold is not chosen among others: no C4.5 correction to count for.
            cuts: Cuts {
                distinct: 0,
                tried: 0,
            },
            errors,
            scored_error,
        };
        order.extend(right);
        self.absolute_candidate(feature, rule, node, &order, &missing, cut, node_weight)
    }

    /// [`Self::numeric`] for absolute error: `sorted` (the node's known rows in value order)
    /// or a sort here gives the scan order; `ranks` are computed here when not given.
    pub(super) fn absolute_numeric(
        &self,
        feature: usize,
        value: impl Fn(usize) -> f64,
        node: &NodeRows,
        node_weight: f64,
        sorted: Option<&[u32]>,
        ranks: Option<&Ranks>,
    ) -> Option<Candidate> {
        let own;
        let ranks = match ranks {
            Some(r) => r,
            None => {
                own = self.ranks(node)?;
                &own
            }
        };
        // Positions of the node's rows only: the NaN is never read.
        let x = |i: u32| {
            node.rows
                .get(i as usize)
                .map_or(f64::NAN, |&r| value(r as usize))
        };
        let missing: Vec<u32> = match sorted {
            Some(list) if list.len() == node.len() => Vec::new(),
            _ => (0..node.len() as u32).filter(|&i| x(i).is_nan()).collect(),
        };
        let order: Cow<'_, [u32]> = match sorted {
            // The lists' positions, without their value flags.
            Some(list) => Cow::Owned(list.iter().map(|&e| position(e) as u32).collect()),
            None => {
                let mut known: Vec<(f64, u32)> = self.vec(node.len())?;
                known.extend(
                    (0..node.len() as u32)
                        .map(|i| (x(i), i))
                        .filter(|(v, _)| !v.is_nan()),
                );
                known.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                Cow::Owned(known.into_iter().map(|(_, i)| i).collect())
            }
        };
        let xs: Vec<f64> = order.iter().map(|&i| x(i)).collect();
        let distinct = |k: usize| matches!((xs.get(k), xs.get(k + 1)), (Some(a), Some(b)) if b > a);
        let bounds = (node_weight, self.constraint(feature));
        let cut = self.absolute_sweep((ranks, node), &order, distinct, &missing, bounds)?;
        let threshold = match (
            cut.at.checked_sub(1).and_then(|k| xs.get(k)),
            xs.get(cut.at),
        ) {
            (Some(&lo), Some(&hi)) => self.threshold(feature, lo, hi),
            (_, None) => KNOWN_VS_MISSING,
            _ => return None,
        };
        let rule = SplitRule::Numeric { threshold };
        self.absolute_candidate(feature, rule, node, &order, &missing, cut, node_weight)
    }

    /// [`Self::numeric_hist`] for absolute error: the node's rows in bin order, cut between
    /// bins, at the thresholds the histogram search uses.
    pub(super) fn absolute_hist(
        &self,
        feature: usize,
        bins: &Bins,
        node: &NodeRows,
        node_weight: f64,
        ranks: &Ranks,
    ) -> Option<Candidate> {
        let BinOrder {
            order,
            bin,
            missing_positions: missing,
        } = match self.data.columns().get(feature)? {
            Column::Sparse(c) => bins.node_order(feature, node, Some(c))?,
            _ => bins.node_order(feature, node, None)?,
        };
        let between = |k: usize| bin.get(k) != bin.get(k + 1);
        let bounds = (node_weight, self.constraint(feature));
        let cut = self.absolute_sweep((ranks, node), &order, between, &missing, bounds)?;
        let threshold = match (
            cut.at.checked_sub(1).and_then(|k| bin.get(k)),
            bin.get(cut.at),
        ) {
            (Some(&lo), Some(&hi)) => bins.threshold(feature, lo, hi)?,
            (_, None) => KNOWN_VS_MISSING,
            _ => return None,
        };
        let rule = SplitRule::Numeric { threshold };
        self.absolute_candidate(feature, rule, node, &order, &missing, cut, node_weight)
    }

    /// A categorical feature under absolute error, split as the sums' searches split it:
    /// multiway, by threshold on ordered categories, or by subset. No theorem orders
    /// categories for a subset split of absolute error as means do for squared error (Breiman
    /// et al. 1984, §9.4), so categories are sorted by weighted median and the best prefix is
    /// taken: a heuristic, as for three or more classes beyond exhaustive search.
    pub(super) fn absolute_categorical(
        &self,
        feature: usize,
        codes: &[Option<u32>],
        (n_categories, ordered): (usize, bool),
        node: &NodeRows,
        node_weight: f64,
        ranks: &Ranks,
    ) -> Option<Candidate> {
        let mut by_category: Vec<Vec<u32>> = vec![Vec::new(); n_categories];
        let mut missing = Vec::new();
        for (i, code) in codes.iter().enumerate() {
            match code.and_then(|c| by_category.get_mut(c as usize)) {
                Some(rows) => rows.push(i as u32),
                None => missing.push(i as u32),
            }
        }
        let mut present: Vec<usize> = (0..n_categories)
            .filter(|&c| by_category.get(c).is_some_and(|r| !r.is_empty()))
            .collect();
        let at = (ranks, node);
        match self.categorical_split {
            CategoricalSplit::Multiway => {
                self.absolute_multiway(feature, &by_category, &missing, at, node_weight)
            }
            CategoricalSplit::Binary => {
                if !ordered {
                    // With several outputs, by the first output's median.
                    let mut set = Sets::new(at);
                    let mut keyed: Vec<(f64, usize)> = present
                        .iter()
                        .filter_map(|&c| {
                            let rows = by_category.get(c)?;
                            Some((set.with_rows(rows, Sets::median), c))
                        })
                        .collect();
                    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    present = keyed.into_iter().map(|(_, c)| c).collect();
                }
                let order: Vec<u32> = present
                    .iter()
                    .filter_map(|&c| by_category.get(c))
                    .flatten()
                    .copied()
                    .collect();
                // The group (index in `present`) each item of `order` belongs to.
                let group: Vec<usize> = present
                    .iter()
                    .filter_map(|&c| by_category.get(c))
                    .enumerate()
                    .flat_map(|(g, rows)| std::iter::repeat_n(g, rows.len()))
                    .collect();
                let between = |k: usize| group.get(k) != group.get(k + 1);
                let bounds = (node_weight, self.constraint(feature));
                let cut = self.absolute_sweep(at, &order, between, &missing, bounds)?;
                // Groups sent left: those of the items before the cut.
                let n_left = cut
                    .at
                    .checked_sub(1)
                    .and_then(|k| group.get(k))
                    .map_or(0, |g| g + 1); // no item left: no group
                let (rule, side) = if ordered {
                    let threshold = *present.get(n_left.checked_sub(1)?)? as u32;
                    (SplitRule::Ordered { threshold }, cut.side)
                } else {
                    let sides = sides_of(n_categories, &present, |g| g < n_left);
                    let (sides, side) = canonical(sides, cut.side);
                    (SplitRule::Subset { sides }, side)
                };
                let mirrored = side != cut.side;
                let mut cut = cut;
                if mirrored {
                    // The sides swapped: so do the rows and their errors.
                    let (left, right) = order.split_at(cut.at.min(order.len()));
                    let order: Vec<u32> = right.iter().chain(left).copied().collect();
                    cut.at = right.len();
                    cut.side = side;
                    cut.errors.swap(0, 1);
                    return self.absolute_candidate(
                        feature,
                        rule,
                        node,
                        &order,
                        &missing,
                        cut,
                        node_weight,
                    );
                }
                self.absolute_candidate(feature, rule, node, &order, &missing, cut, node_weight)
            }
        }
    }

    /// One child per category (the missing rows as C4.5 leaves them, in the child they join
    /// best (learned), or in a child of their own (separate)), as [`Self::multiway`].
    fn absolute_multiway(
        &self,
        feature: usize,
        by_category: &[Vec<u32>],
        missing_rows: &[u32],
        (ranks, node): (&Ranks, &NodeRows),
        node_weight: f64,
    ) -> Option<Candidate> {
        if by_category.iter().filter(|r| !r.is_empty()).count() < 2 {
            return None;
        }
        let mut set = Sets::new((ranks, node));
        let mut errors: Vec<f64> = by_category
            .iter()
            .map(|rows| set.error_with(rows))
            .collect();
        let mut children: Vec<Vec<f64>> =
            by_category.iter().map(|r| self.stats_of(node, r)).collect();
        let mut counts: Vec<usize> = by_category.iter().map(Vec::len).collect();
        let all_known: Vec<u32> = by_category.iter().flatten().copied().collect();
        let known = self.stats_of(node, &all_known);
        let known_error = set.error_with(&all_known);
        let place = self.places_missing() && !missing_rows.is_empty();
        let (scored, scored_error, rows) = if place {
            let missing_stats = self.stats_of(node, missing_rows);
            let both: Vec<u32> = all_known.iter().chain(missing_rows).copied().collect();
            let all_error = set.error_with(&both);
            let all = sum(&known, &missing_stats);
            let child = if self.missing == MissingStrategy::Separate {
                errors.push(set.error_with(missing_rows));
                children.push(missing_stats);
                counts.push(missing_rows.len());
                by_category.len()
            } else {
                // The child whose known rows the missing ones join best.
                let total: f64 = errors.iter().sum();
                let scale = self.noise_scale(&all);
                let aw = self.weight_of(&all);
                set.add_all(missing_rows);
                let mut best: Option<(usize, f64, f64)> = None;
                for (c, (rows, &own)) in by_category.iter().zip(&errors).enumerate() {
                    if rows.is_empty() {
                        continue;
                    }
                    let joined = set.error_with(rows);
                    let quality = (all_error - (total - own + joined)) / aw;
                    if improves(quality, best.map(|(_, q, _)| q), scale) {
                        best = Some((c, quality, joined));
                    }
                }
                let (c, _, joined) = best?;
                if let (Some(s), Some(n), Some(e)) =
                    (children.get_mut(c), counts.get_mut(c), errors.get_mut(c))
                {
                    add_into(s, &missing_stats);
                    *n += missing_rows.len();
                    *e = joined;
                }
                c
            };
            let rows = MissingRows::Placed {
                child,
                known_weight: self.weight_of(&known),
            };
            (all, all_error, rows)
        } else {
            (known, known_error, MissingRows::Left)
        };
        let per_weight = |error: f64, stats: &[f64]| {
            let w = self.weight_of(stats);
            if w > 0.0 {
                error / w
            } else {
                0.0
            }
        };
        let impurities = Impurities {
            scored: per_weight(scored_error, &scored),
            children: children
                .iter()
                .zip(&errors)
                .map(|(s, &e)| per_weight(e, s))
                .collect(),
        };
        let part = Partition {
            children: &children,
            counts: &counts,
            impurities: Some(&impurities),
        };
        let rule = SplitRule::Multiway {
            n_children: children.len(),
        };
        self.finish(feature, rule, &scored, &part, node_weight, rows)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use crate::data::CategoricalColumn;
    use crate::params::TreeParams;

    struct Lcg(u64);

    impl Lcg {
        fn unit(&mut self) -> f64 {
            self.0 = crate::test_draws::step(self.0);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        fn below(&mut self, n: usize) -> usize {
            ((self.unit() * n as f64) as usize).min(n - 1)
        }
    }

    /// Σw·|y − median| of the rows at `rows`, by sorting (no Fenwick tree).
    fn direct_error(y: &[f64], node: &NodeRows, rows: &[usize]) -> f64 {
        let mut pairs: Vec<(f64, f64)> = rows
            .iter()
            .map(|&i| (y[node.rows[i] as usize], node.weight(i).unwrap_or(0.0)))
            .collect();
        let w: f64 = pairs.iter().map(|p| p.1).sum();
        crate::median::absolute_error(&mut pairs).map_or(0.0, |(_, mad)| mad * w)
    }

    fn weight(node: &NodeRows, rows: &[usize]) -> f64 {
        rows.iter().filter_map(|&i| node.weight(i)).sum()
    }

    /// The best quality of every two-way division the scan may consider, by brute force:
    /// `divisions` lists (left, right) positions; the missing ones are placed on either side
    /// (and alone on the right) when the strategy places them, else left out.
    fn best_by_brute_force(
        s: &Searcher<'_, '_>,
        y: &[f64],
        node: &NodeRows,
        divisions: &[(Vec<usize>, Vec<usize>)],
        missing_rows: &[usize],
    ) -> Option<f64> {
        let node_weight = weight(node, &(0..node.len()).collect::<Vec<_>>());
        let place = s.places_missing() && !missing_rows.is_empty();
        let known: Vec<usize> = divisions
            .first()
            .map(|(l, r)| l.iter().chain(r).copied().collect())
            .unwrap_or_default();
        let all: Vec<usize> = known.iter().chain(missing_rows).copied().collect();
        let scored: &[usize] = if place { &all } else { &known };
        let (sw, base) = (weight(node, scored), direct_error(y, node, scored));
        let least = s.least_side(sw, node_weight).plain();
        let mut options: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
        for (l, r) in divisions {
            if place {
                options.push((l.iter().chain(missing_rows).copied().collect(), r.clone()));
                options.push((l.clone(), r.iter().chain(missing_rows).copied().collect()));
            } else {
                options.push((l.clone(), r.clone()));
            }
        }
        if place {
            options.push((known.clone(), missing_rows.to_vec()));
        }
        options
            .iter()
            .filter(|(l, r)| weight(node, l) >= least && weight(node, r) >= least)
            .map(|(l, r)| (base - direct_error(y, node, l) - direct_error(y, node, r)) / sw)
            .reduce(f64::max)
    }

    /// The scans' best split of every feature has the best quality a brute-force search over
    /// the same divisions finds (re-sorting every side), for numeric, ordered and multiway
    /// features, with ties, fractional weights, missing values and each way of scoring them.
    #[test]
    fn scans_find_the_brute_force_optimum() {
        let mut g = Lcg(3);
        let mut compared = 0;
        for case in 0..300 {
            let n = 2 + g.below(60);
            let levels = 1 + g.below(12);
            let x: Vec<f64> = (0..n)
                .map(|_| {
                    if g.unit() < 0.15 {
                        f64::NAN
                    } else {
                        g.below(levels) as f64
                    }
                })
                .collect();
            let codes: Vec<u32> = (0..n).map(|_| g.below(4) as u32).collect();
            let absent: Vec<bool> = (0..n).map(|_| g.unit() < 0.1).collect();
            let y: Vec<f64> = (0..n)
                .map(|i| {
                    let base = if x[i].is_nan() { 2.0 } else { x[i] };
                    let noise = g.unit() * 4.0;
                    if case % 2 == 0 {
                        (base + noise).round()
                    } else {
                        base + noise
                    }
                })
                .collect();
            let weights: Vec<f64> = (0..n)
                .map(|_| if case % 3 == 0 { 1.0 } else { 0.2 + g.unit() })
                .collect();
            let ordered = case % 4 < 2;
            let data = Dataset::new(vec![
                Column::numeric(&x),
                Column::Categorical(CategoricalColumn {
                    codes: &codes,
                    missing_mask: Some(&absent),
                    n_categories: 4,
                    ordered,
                }),
            ])
            .unwrap();
            let target = Target::Values(&y);
            let missing = [
                MissingStrategy::Fractional,
                MissingStrategy::Learned,
                MissingStrategy::Separate,
            ][case % 3];
            let split = if case % 5 == 0 {
                CategoricalSplit::Multiway
            } else {
                CategoricalSplit::Binary
            };
            let params = TreeParams {
                criterion: Criterion::AbsoluteError,
                categorical_split: split,
                missing,
                min_samples_leaf: [1, 1, 3][case % 3],
                ..TreeParams::default()
            };
            let node = NodeRows::each((0..n as u32).collect(), weights.clone());
            let node_weight: f64 = weights.iter().sum();
            let mean = y.iter().zip(&weights).map(|(a, w)| a * w).sum::<f64>() / node_weight;
            let s = Searcher::new(&data, &target, &params, node_weight).centred_on(mean);
            let ranks = s.ranks(&node).unwrap();
            let columns = data.columns();
            for feature in 0..2 {
                let found = s.best_of_feature(
                    feature,
                    &node,
                    node_weight,
                    columns,
                    Prepared::Unsorted,
                    NodeFacts {
                        ranks: Some(&ranks),
                        exact: None,
                        facts: None,
                        bytes: None,
                    },
                );
                // The divisions the scan may consider, in its order of groups.
                let (groups, missing_rows): (Vec<Vec<usize>>, Vec<usize>) = if feature == 0 {
                    let mut values: Vec<f64> = x.iter().copied().filter(|v| !v.is_nan()).collect();
                    values.sort_by(f64::total_cmp);
                    values.dedup();
                    (
                        values
                            .iter()
                            .map(|v| (0..n).filter(|&i| x[i] == *v).collect())
                            .collect(),
                        (0..n).filter(|&i| x[i].is_nan()).collect(),
                    )
                } else {
                    (
                        (0..4u32)
                            .map(|c| (0..n).filter(|&i| !absent[i] && codes[i] == c).collect())
                            .filter(|g: &Vec<usize>| !g.is_empty())
                            .collect(),
                        (0..n).filter(|&i| absent[i]).collect(),
                    )
                };
                let context = format!("case {case}, feature {feature}, {missing:?}, {split:?}");
                if feature == 1 && split == CategoricalSplit::Multiway {
                    // One child per category: the quality is determined; check it.
                    // (None: fewer than two categories, or a child below the size rules.)
                    let Some(c) = found else {
                        continue;
                    };
                    let known: Vec<usize> = groups.iter().flatten().copied().collect();
                    if missing != MissingStrategy::Fractional && !missing_rows.is_empty() {
                        assert!(c.placed.is_some(), "{context}");
                        continue;
                    }
                    let kw = weight(&node, &known);
                    let within: f64 = groups.iter().map(|g| direct_error(&y, &node, g)).sum();
                    let quality = (direct_error(&y, &node, &known) - within) / kw;
                    let rho = kw / node_weight;
                    assert!((c.score.gain - rho * quality).abs() < 1e-9, "{context}");
                    compared += 1;
                    continue;
                }
                if feature == 1 && !ordered {
                    // Subsets follow a heuristic order: check the quality of what was chosen.
                    continue;
                }
                let divisions: Vec<(Vec<usize>, Vec<usize>)> = (1..groups.len())
                    .map(|k| {
                        (
                            groups[..k].iter().flatten().copied().collect(),
                            groups[k..].iter().flatten().copied().collect(),
                        )
                    })
                    .collect();
                let all_known: Vec<(Vec<usize>, Vec<usize>)> =
                    vec![(groups.iter().flatten().copied().collect(), Vec::new())];
                let divisions = if divisions.is_empty() {
                    all_known
                } else {
                    divisions
                };
                let brute = if groups.is_empty() {
                    None
                } else {
                    let best = best_by_brute_force(&s, &y, &node, &divisions, &missing_rows);
                    // With one group, only "known vs missing" is a real division.
                    let placed = s.places_missing() && !missing_rows.is_empty();
                    best.filter(|_| groups.len() >= 2 || placed)
                };
                match (found, brute) {
                    (Some(c), Some(q)) => {
                        let known =
                            weight(&node, &groups.iter().flatten().copied().collect::<Vec<_>>());
                        let gain = if c.placed.is_some()
                            || missing_rows.is_empty()
                            || s.places_missing()
                        {
                            q
                        } else {
                            q * known / node_weight
                        };
                        assert!(
                            (c.score.gain - gain).abs() <= 1e-9 * (1.0 + gain.abs()),
                            "{context}: scan {} brute {gain}",
                            c.score.gain
                        );
                        compared += 1;
                    }
                    (None, None) => {}
                    (found, brute) => panic!("{context}: scan {found:?}, brute force {brute:?}"),
                }
            }
        }
        assert!(compared > 300, "only {compared} compared");
    }
}
