//! Numeric features: `x <= t` at midpoints of adjacent distinct known values, with the
//! missing rows placed on either side when the strategy learns a direction.

use super::*;

/// A known row of a node as the threshold scan reads it: its value, weight and target (class
/// code or y) side by side, so the scan walks memory in order instead of hopping through the
/// row, weight and target arrays (the hops dominated the time on large data).
#[derive(Debug, Clone, Copy)]
pub(super) struct Known {
    pub(super) x: f64,
    pub(super) w: f64,
    pub(super) label: f64,
}

/// Rows in ascending value order as the threshold scan walks them: the known rows one by one
/// (exact search) or the non-empty bins (histogram search, [`super::hist`]).
pub(super) trait Sweep {
    fn len(&self) -> usize;
    /// Adds item `i` to `stats` with its weight times `sign` (±1); returns its rows.
    fn add(&self, searcher: &Searcher<'_, '_>, i: usize, stats: &mut [f64], sign: f64) -> usize;
    /// Whether a threshold may fall between item `i` and the next: their values differ by
    /// more than `gap` (0: distinct values).
    fn cut_after(&self, i: usize, gap: f64) -> bool;
}

impl Sweep for [Known] {
    fn len(&self) -> usize {
        <[Known]>::len(self)
    }

    #[inline]
    fn add(&self, searcher: &Searcher<'_, '_>, i: usize, stats: &mut [f64], sign: f64) -> usize {
        if let Some(k) = self.get(i) {
            let target = searcher.target;
            target.accumulate_label(stats, k.label, sign * k.w, searcher.shift);
        }
        1
    }

    #[inline]
    fn cut_after(&self, i: usize, gap: f64) -> bool {
        match (self.get(i), self.get(i + 1)) {
            (Some(a), Some(b)) => b.x > a.x + gap,
            _ => false,
        }
    }
}

/// Where a scan cuts: `at` items go left (all of them: every known row left, the missing
/// rows right), with the missing rows on `side` when the strategy places them; the figures
/// the candidate is completed from.
pub(super) struct Scan {
    pub(super) at: usize,
    side: Option<usize>,
    cuts: Cuts,
    total: Vec<f64>,
    n: usize,
    n_missing: usize,
}

/// The threshold between adjacent values `lo < hi`, computed as scikit-learn does (`lo/2 +
/// hi/2` cannot overflow); if rounding lands on `hi`, `lo`, so that `x <= t` still separates
/// them.
pub(crate) fn midpoint(lo: f64, hi: f64) -> f64 {
    let t = lo / 2.0 + hi / 2.0;
    if t >= hi || !t.is_finite() {
        lo
    } else {
        t
    }
}

/// rpart's threshold between adjacent values `lo < hi`, as a `x <= t` test: rpart sends
/// `x < (lo + hi) / 2` left (its `gini.c`, `choose_surg.c`, `branch.c`), so a value exactly at
/// the midpoint (integer data, at predict time) goes right; the largest float below that
/// midpoint makes quercus's `x <= t` the same test. `lo` if rounding leaves nothing between.
pub(super) fn rpart_threshold(lo: f64, hi: f64) -> f64 {
    let t = ((lo + hi) / 2.0).next_down();
    if t >= lo && t < hi && t.is_finite() {
        t
    } else {
        lo
    }
}

impl Searcher<'_, '_> {
    /// `x <= t` at midpoints of adjacent distinct known values (text 000 §4.4.1). The
    /// threshold is chosen by impurity decrease, as C4.5 chooses it by gain before the ratio.
    /// `value(row)` reads the feature (NaN = missing); oblique search passes a projection.
    /// `sorted` lists the node's known rows in ascending order when the fit keeps them
    /// ([`super::presort`]); without it the known rows are sorted here. Absolute error scans
    /// its own way ([`super::absolute`]), from the node's `ranks` if given.
    pub(super) fn numeric(
        &self,
        feature: usize,
        value: impl Fn(usize) -> f64,
        node: &NodeRows,
        node_weight: f64,
        sorted: Option<&[u32]>,
        ranks: Option<&Ranks>,
    ) -> Option<Candidate> {
        if !self.criterion.is_additive() {
            return self.absolute_numeric(feature, value, node, node_weight, sorted, ranks);
        }
        let mut n_missing = 0;
        let mut missing = self.zero_stats();
        let mut tally_missing = |i: usize, x: f64| {
            if x.is_nan() {
                n_missing += 1;
                self.add_row(&mut missing, node, i);
            }
        };
        let gather = |i: usize| -> Option<Known> {
            let (&r, &w) = (node.rows.get(i)?, node.weights.get(i)?);
            let r = r as usize;
            Some(Known {
                x: value(r),
                w: self.search_weight(r, w),
                label: self.target.label(r),
            })
        };
        let mut known = self.vec(node.len())?;
        match sorted {
            Some(list) => {
                if list.len() < node.len() {
                    for (i, &r) in node.rows.iter().enumerate() {
                        tally_missing(i, value(r as usize));
                    }
                }
                known.extend(list.iter().filter_map(|&i| gather(i as usize)));
            }
            None => {
                let mut order = self.vec(node.len())?;
                for (i, &r) in node.rows.iter().enumerate() {
                    let x = value(r as usize);
                    tally_missing(i, x);
                    if !x.is_nan() {
                        order.push((x, i));
                    }
                }
                order.sort_unstable_by(|a: &(f64, usize), b| {
                    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
                });
                known.extend(order.into_iter().filter_map(|(_, i)| gather(i)));
            }
        }
        self.numeric_known(feature, &known, missing, n_missing, node_weight)
    }

    /// [`Self::numeric`] once the node's known rows are gathered in ascending order.
    pub(super) fn numeric_known(
        &self,
        feature: usize,
        known: &[Known],
        missing: Vec<f64>,
        n_missing: usize,
        node_weight: f64,
    ) -> Option<Candidate> {
        if known.len() < 2 && n_missing == 0 {
            return None;
        }
        let sign = self.constraint(feature);
        let scan = self.sweep(known, known.len(), &missing, n_missing, node_weight, sign)?;
        let threshold = match known.get(scan.at) {
            Some(hi) => self.threshold(feature, known.get(scan.at.checked_sub(1)?)?.x, hi.x),
            None => KNOWN_VS_MISSING,
        };
        self.numeric_candidate(feature, threshold, known, scan, &missing, node_weight)
    }

    /// The threshold of a cut between adjacent values `lo < hi` of `feature`: their midpoint
    /// (the texts), J48's largest training value not above the midpoint (`usize::MAX`, an
    /// oblique projection, keeps the midpoint: its values are no training values), or
    /// rpart's with `missing="surrogate"` (see [`rpart_threshold`]). J48's comes first: a
    /// training value sends every training value the side the cut does, so rpart's
    /// adjustment (for a value exactly at the midpoint) has nothing left to decide.
    pub(super) fn threshold(&self, feature: usize, lo: f64, hi: f64) -> f64 {
        let cut = midpoint(lo, hi);
        if let (Conventions::J48, Some(values)) = (self.conventions, self.training_values) {
            match self.data.columns().get(feature) {
                Some(Column::Numeric(x)) => {
                    return values.at_or_below(feature, x.iter().copied(), cut, lo)
                }
                Some(Column::Sparse(c)) => {
                    return values.at_or_below(feature, (0..c.n_rows).map(|r| c.value(r)), cut, lo)
                }
                _ => {}
            }
        }
        if self.missing == MissingStrategy::Surrogate {
            rpart_threshold(lo, hi)
        } else {
            cut
        }
    }

    /// The best cut of `items` (in ascending value order, `n` rows in all): C4.5's and
    /// CART's scan with the missing rows left out, or, when the strategy places them, each
    /// cut tried with them on the left and on the right, and every known row left with the
    /// missing ones right (scikit-learn's, LightGBM's and XGBoost's learned direction). The
    /// first of equal cuts wins, the missing rows on the right before the left
    /// ([`prefer_missing_right`]). A cut whose sides break the feature's monotonic constraint
    /// `sign` (0: none) is no candidate ([`Searcher::monotone`]).
    pub(super) fn sweep<S: Sweep + ?Sized>(
        &self,
        items: &S,
        n: usize,
        missing: &[f64],
        n_missing: usize,
        node_weight: f64,
        sign: i8,
    ) -> Option<Scan> {
        let mut total = self.zero_stats();
        for i in 0..items.len() {
            items.add(self, i, &mut total, 1.0);
        }
        let place = self.places_missing() && n_missing > 0;
        let all = if place {
            sum(&total, missing)
        } else {
            total.clone()
        };
        let scale = self.noise_scale(&all);
        let base = self.impurity(&total);
        let impurity_decrease = self.criterion.is_impurity_decrease();
        let kw = self.weight_of(&total);
        let j48 = self.conventions == Conventions::J48;
        // C4.5's MINSPLIT on both sides. (C4.5 also asks the node for 2 × MINSPLIT known
        // rows, counted: with unit weights both sides' weights imply it, and counting rows
        // would make a row given twice differ from the row with weight 2.)
        let min_split = self.min_split(kw);
        let least = self
            .least_side(kw, node_weight)
            .with_weight(self.least_objects(min_split));
        // J48 compares gains, ρ × decrease, with ρ its known share (`1 − unknownRate`).
        let rho = kw / node_weight;
        let mut left = self.zero_stats();
        let mut right = total.clone();
        let mut with = self.zero_stats();
        let mut cuts = Cuts {
            distinct: 1,
            tried: 0,
        };
        let gap = self.conventions.same_value_gap();
        // (decrease, (cut, side)): the missing rows right or not placed, and left.
        let mut best: Option<(f64, (usize, Option<usize>))> = None;
        let mut best_left: Option<(f64, (usize, Option<usize>))> = None;
        let mut offer = |dec: f64, at: usize, side: Option<usize>| {
            let best = if side == Some(0) {
                &mut best_left
            } else {
                &mut best
            };
            // J48: the first cut whose gain beats the best so far (from 0) by 1e-6. The
            // texts: [`improves`].
            let wins = if j48 {
                (dec - best.map_or(0.0, |(b, _)| b)) * rho > j48::SMALL
            } else {
                improves(dec, best.map(|(b, _)| b), scale)
            };
            if wins {
                *best = Some((dec, (at, side)));
            }
        };
        for i in 0..items.len().saturating_sub(1) {
            items.add(self, i, &mut left, 1.0);
            items.add(self, i, &mut right, -1.0);
            if !items.cut_after(i, gap) {
                continue;
            }
            cuts.distinct += 1;
            if place {
                for side in 0..2 {
                    let (l, r) = if side == 0 {
                        copy_sum(&mut with, &left, missing);
                        (&with, &right)
                    } else {
                        copy_sum(&mut with, &right, missing);
                        (&left, &with)
                    };
                    if !self.monotone(sign, l, r) {
                        continue;
                    }
                    if let Some(dec) = self.two_sides(&all, l, r, node_weight) {
                        offer(dec, i + 1, Some(side));
                    }
                }
                continue;
            }
            let (wl, wr) = (self.weight_of(&left), self.weight_of(&right));
            if !self.holds(&left, wl, least)
                || !self.holds(&right, wr, least)
                || !self.monotone(sign, &left, &right)
            {
                continue;
            }
            cuts.tried += 1;
            let dec = if impurity_decrease {
                base - wl / kw * self.impurity(&left) - wr / kw * self.impurity(&right)
            } else {
                self.assess(&total, &[&left, &right]).0
            };
            offer(dec, i + 1, None);
        }
        if place && items.len() > 0 && self.monotone(sign, &total, missing) {
            if let Some(dec) = self.two_sides(&all, &total, missing, node_weight) {
                offer(dec, items.len(), Some(1));
            }
        }
        let (_, (at, side)) = prefer_missing_right(best_left, best, scale)?;
        Some(Scan {
            at,
            side,
            cuts,
            total,
            n,
            n_missing,
        })
    }

    /// The candidate of a numeric `feature` cut as `scan` says, at `threshold`.
    pub(super) fn numeric_candidate<S: Sweep + ?Sized>(
        &self,
        feature: usize,
        threshold: f64,
        items: &S,
        scan: Scan,
        missing: &[f64],
        node_weight: f64,
    ) -> Option<Candidate> {
        let Scan {
            at,
            side,
            cuts,
            total,
            n,
            n_missing,
        } = scan;
        let mut l = self.zero_stats();
        let p: usize = (0..at).map(|i| items.add(self, i, &mut l, 1.0)).sum();
        // Every known row left: the right side is exactly empty, not the rounding residue of
        // `total − left`.
        let r: Vec<f64> = if at == items.len() {
            self.zero_stats()
        } else {
            total.iter().zip(&l).map(|(t, a)| t - a).collect()
        };
        let mut children = [l, r];
        let mut counts = [p, n - p];
        let (scored, rows) = match side {
            Some(side) => {
                if let (Some(c), Some(k)) = (children.get_mut(side), counts.get_mut(side)) {
                    add_into(c, missing);
                    *k += n_missing;
                }
                let known_weight = self.weight_of(&total);
                let all = sum(&total, missing);
                (
                    all,
                    MissingRows::Placed {
                        child: side,
                        known_weight,
                    },
                )
            }
            None => (total, MissingRows::Left),
        };
        let part = Partition {
            children: &children,
            counts: &counts,
            impurities: None,
        };
        let candidate = self.finish(
            feature,
            SplitRule::Numeric { threshold },
            &scored,
            &part,
            node_weight,
            rows,
        )?;
        self.correct_numeric_gain(candidate, cuts, node_weight)
    }

    /// The quality of dividing the rows `all` into `left` and `right`, all of them scored
    /// (the missing ones placed on a side); `None` if a side is too small.
    pub(super) fn two_sides(
        &self,
        all: &[f64],
        left: &[f64],
        right: &[f64],
        node_weight: f64,
    ) -> Option<f64> {
        let aw = self.weight_of(all);
        let (wl, wr) = (self.weight_of(left), self.weight_of(right));
        let least = self.least_side(aw, node_weight);
        if !self.holds(left, wl, least) || !self.holds(right, wr, least) {
            return None;
        }
        Some(if self.criterion.is_impurity_decrease() {
            self.impurity(all) - wl / aw * self.impurity(left) - wr / aw * self.impurity(right)
        } else {
            self.assess(all, &[left, right]).0
        })
    }

    #[inline]
    pub(super) fn add_row(&self, stats: &mut [f64], node: &NodeRows, i: usize) {
        if let (Some(&r), Some(&w)) = (node.rows.get(i), node.weights.get(i)) {
            self.accumulate(stats, r as usize, w);
        }
    }
}

/// The threshold of the split that sends every known value left and the missing ones right:
/// `x <= +∞` holds for every value a tree is given (infinities are refused).
pub(crate) const KNOWN_VS_MISSING: f64 = f64::INFINITY;
