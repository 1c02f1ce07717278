//! Split search: the best candidate test of each feature at a node, and the choice among them.
//!
//! Missing values follow C4.5 (text 000 §4.4.2): a candidate is scored on the rows whose value
//! is known (D̃), its gain is multiplied by ρ = w(D̃)/w(D), and each child remembers
//! r̃_v = w(D̃_v)/w(D̃), the fraction of a missing row's weight it receives.

use crate::criterion::{better, split_information, stats_weight, Criterion, Measure};
use crate::data::{Column, Dataset, Target};
use crate::params::{CategoricalSplit, TreeParams};
use crate::tree::{FeatureScore, Side};

mod oblique;

/// The test a candidate applies.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SplitRule {
    Numeric {
        threshold: f64,
    },
    /// Σ weights[i] · x[features[i]] <= threshold → child 0 (a multivariate test).
    Oblique {
        features: Vec<u32>,
        weights: Vec<f64>,
        threshold: f64,
    },
    Multiway {
        n_children: usize,
    },
    Subset {
        sides: Vec<Side>,
    },
    Ordered {
        threshold: u32,
    },
}

/// The best split of one feature at one node.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub feature: usize,
    pub rule: SplitRule,
    pub score: FeatureScore,
    /// r̃_v for each child: its share of the known weight.
    pub fractions: Vec<f64>,
    /// Statistics of each child's known rows (for the G² test).
    pub children: Vec<Vec<f64>>,
}

/// The rows that reached a node, each with its (possibly fractional) weight.
#[derive(Debug, Default, Clone)]
pub(crate) struct NodeRows {
    pub rows: Vec<u32>,
    pub weights: Vec<f64>,
}

impl NodeRows {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.rows
            .iter()
            .zip(&self.weights)
            .map(|(&r, &w)| (r as usize, w))
    }
}

/// Everything a search needs besides the node's rows.
#[derive(Clone, Copy)]
pub(crate) struct Searcher<'a, 'd> {
    pub data: &'a Dataset<'d>,
    pub target: &'a Target<'d>,
    pub criterion: Criterion,
    measure: Measure<'a>,
    pub categorical_split: CategoricalSplit,
    pub min_samples_leaf: usize,
    /// Least total weight (missing fractions included) of a non-empty child.
    min_weight_leaf: f64,
    /// C4.5's MINOBJS: known weight of at least two branches (both, for a binary split).
    min_objects: f64,
    numeric_gain_correction: bool,
    pub max_exhaustive_categories: usize,
    /// Regression targets are centred on this value (the node's mean) while searching.
    shift: f64,
}

/// Known-row statistics of each child of a candidate.
struct Partition<'s> {
    children: &'s [Vec<f64>],
    counts: &'s [usize],
}

impl<'a, 'd> Searcher<'a, 'd> {
    /// `total_weight` is the training weight of the whole data set, which
    /// `min_weight_fraction_leaf` refers to.
    pub fn new(
        data: &'a Dataset<'d>,
        target: &'a Target<'d>,
        params: &'a TreeParams,
        total_weight: f64,
    ) -> Searcher<'a, 'd> {
        Searcher {
            data,
            target,
            criterion: params.criterion,
            measure: Measure {
                criterion: params.criterion,
                costs: params.cost_matrix.as_deref(),
            },
            categorical_split: params.categorical_split,
            min_samples_leaf: params.min_samples_leaf,
            min_weight_leaf: params.min_weight_fraction_leaf * total_weight,
            min_objects: params.min_objects,
            numeric_gain_correction: params.numeric_gain_correction,
            max_exhaustive_categories: params.max_exhaustive_categories,
            shift: 0.0,
        }
    }

    /// The node impurity under this search's criterion (and costs).
    pub fn impurity(&self, stats: &[f64]) -> f64 {
        self.measure.impurity(stats)
    }

    /// Whether one side of a binary split may be made: enough rows (its known ones plus a
    /// fragment of each missing row), enough weight (missing fractions included) and, for
    /// C4.5, enough known weight.
    fn side_ok(
        &self,
        n_rows: usize,
        n_missing: usize,
        known_w: f64,
        share: f64,
        node_weight: f64,
    ) -> bool {
        n_rows + n_missing >= self.min_samples_leaf
            && known_w >= self.min_objects
            && share * node_weight >= self.min_weight_leaf
    }

    fn regression(&self) -> bool {
        self.criterion.is_regression()
    }

    #[inline]
    fn accumulate(&self, stats: &mut [f64], row: usize, w: f64) {
        self.target.accumulate_around(stats, row, w, self.shift);
    }

    fn zero_stats(&self) -> Vec<f64> {
        vec![0.0; self.target.stats_width()]
    }

    fn weight_of(&self, stats: &[f64]) -> f64 {
        stats_weight(stats, self.regression())
    }

    /// Best candidate of every feature (`None` where a feature cannot separate the rows or is
    /// excluded by `usable`).
    /// Also returns the node's noise scale for comparing the candidates (see [`choose`]).
    pub fn candidates(&self, node: &NodeRows, usable: &[bool]) -> (Vec<Option<Candidate>>, f64) {
        let mut total = self.zero_stats();
        for (r, w) in node.iter() {
            self.target.accumulate(&mut total, r, w);
        }
        let node_weight = self.weight_of(&total);
        let centred = Searcher {
            shift: if self.regression() {
                total.get(1).copied().unwrap_or(0.0) / node_weight
            } else {
                0.0
            },
            ..*self
        };
        let mut centred_total = self.zero_stats();
        for (r, w) in node.iter() {
            centred.accumulate(&mut centred_total, r, w);
        }
        let candidates = (0..self.data.n_features())
            .map(|f| {
                if !usable.get(f).copied().unwrap_or(false) {
                    return None;
                }
                centred.best_of_feature(f, node, node_weight)
            })
            .collect();
        (candidates, self.criterion.noise_scale(&centred_total))
    }

    fn best_of_feature(
        &self,
        feature: usize,
        node: &NodeRows,
        node_weight: f64,
    ) -> Option<Candidate> {
        match self.data.columns().get(feature)? {
            Column::Numeric(values) => self.numeric(
                feature,
                |r| values.get(r).copied().unwrap_or(f64::NAN),
                node,
                node_weight,
            ),
            Column::Categorical(col) => {
                let codes: Vec<Option<u32>> =
                    node.rows.iter().map(|&r| col.code(r as usize)).collect();
                let cats = self.per_category(&codes, col.n_categories as usize, node);
                match (self.categorical_split, col.ordered) {
                    (CategoricalSplit::Multiway, _) => self.multiway(feature, &cats, node_weight),
                    (CategoricalSplit::Binary, true) => self.ordered(feature, &cats, node_weight),
                    (CategoricalSplit::Binary, false) => self.subset(feature, &cats, node_weight),
                }
            }
        }
    }

    /// Scores a partition of the known rows: (its quality on D̃, the weighted child impurity).
    /// The quality is the impurity decrease, or the criterion's own formula (text 002 §3).
    fn decrease(&self, known: &[f64], part: &Partition<'_>) -> (f64, f64) {
        let children: Vec<&[f64]> = part.children.iter().map(Vec::as_slice).collect();
        self.assess(known, &children)
    }

    fn assess(&self, known: &[f64], children: &[&[f64]]) -> (f64, f64) {
        let known_w = self.weight_of(known);
        let child_imp: f64 = children
            .iter()
            .map(|c| {
                let w = self.weight_of(c);
                if w > 0.0 {
                    w / known_w * self.impurity(c)
                } else {
                    0.0
                }
            })
            .sum();
        let base = self.impurity(known);
        let quality = self
            .criterion
            .partition_quality(known, children, base, child_imp);
        (quality, child_imp)
    }

    /// Completes a candidate's figures once its rule is chosen.
    fn finish(
        &self,
        feature: usize,
        rule: SplitRule,
        known: &[f64],
        part: &Partition<'_>,
        node_weight: f64,
        n_missing: usize,
    ) -> Option<Candidate> {
        let known_w = self.weight_of(known);
        if known_w <= 0.0 || node_weight <= 0.0 {
            return None;
        }
        let weights: Vec<f64> = part.children.iter().map(|c| self.weight_of(c)).collect();
        // Every child that receives rows must hold enough of them and enough weight; at
        // least two must hold min_objects of known weight (C4.5).
        let too_small = part.counts.iter().zip(&weights).any(|(&c, &w)| {
            c > 0
                && (c + n_missing < self.min_samples_leaf
                    || w / known_w * node_weight < self.min_weight_leaf)
        });
        let big_enough = weights
            .iter()
            .filter(|&&w| w > 0.0 && w >= self.min_objects)
            .count();
        if too_small || big_enough < 2 {
            return None;
        }
        let (decrease, child_imp) = self.decrease(known, part);
        let rho = known_w / node_weight;
        let gain = rho * decrease;
        let missing_w = (node_weight - known_w).max(0.0);
        let iv = split_information(
            weights
                .iter()
                .map(|w| w / node_weight)
                .chain(std::iter::once(missing_w / node_weight)),
        );
        let score = match self.criterion {
            // G² = 2 ln 2 · |S| · InformationGain (text 002 §3.5).
            Criterion::LikelihoodRatio => 2.0 * std::f64::consts::LN_2 * node_weight * gain,
            Criterion::Entropy => gain,
            Criterion::GainRatio => {
                if iv > 0.0 {
                    gain / iv
                } else {
                    0.0
                }
            }
            _ if self.criterion.reports_child_impurity() => child_imp,
            _ => gain,
        };
        let threshold = match &rule {
            SplitRule::Numeric { threshold } | SplitRule::Oblique { threshold, .. } => *threshold,
            SplitRule::Ordered { threshold } => f64::from(*threshold),
            _ => f64::NAN,
        };
        Some(Candidate {
            feature,
            rule,
            score: FeatureScore {
                score,
                gain,
                iv,
                threshold,
                rho,
            },
            fractions: weights.iter().map(|w| w / known_w).collect(),
            children: part.children.to_vec(),
        })
    }

    /// C4.5 release 8: a numeric test chosen among `n_distinct − 1` thresholds pays
    /// log2(n_distinct − 1)/|D| of gain; a test left with no positive gain is dropped.
    fn correct_numeric_gain(
        &self,
        mut c: Candidate,
        n_distinct: usize,
        node_weight: f64,
    ) -> Option<Candidate> {
        if !self.numeric_gain_correction {
            return Some(c);
        }
        let thresholds = n_distinct.saturating_sub(1).max(1) as f64;
        c.score.gain -= thresholds.log2() / node_weight;
        if c.score.gain <= 0.0 {
            return None;
        }
        c.score.score = match self.criterion {
            Criterion::Entropy => c.score.gain,
            Criterion::GainRatio if c.score.iv > 0.0 => c.score.gain / c.score.iv,
            _ => c.score.score,
        };
        Some(c)
    }

    /// `x <= t` at midpoints of adjacent distinct known values (text 000 §4.4.1). The
    /// threshold is chosen by impurity decrease, as C4.5 chooses it by gain before the ratio.
    /// `value(row)` reads the feature (NaN = missing); oblique search passes a projection.
    fn numeric(
        &self,
        feature: usize,
        value: impl Fn(usize) -> f64,
        node: &NodeRows,
        node_weight: f64,
    ) -> Option<Candidate> {
        let mut known: Vec<(f64, usize)> = Vec::with_capacity(node.len());
        let mut n_missing = 0;
        for (i, &r) in node.rows.iter().enumerate() {
            let x = value(r as usize);
            if x.is_nan() {
                n_missing += 1;
            } else {
                known.push((x, i));
            }
        }
        if known.len() < 2 {
            return None;
        }
        known.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut total = self.zero_stats();
        for &(_, i) in &known {
            self.add(&mut total, node, i);
        }
        let base = self.impurity(&total);
        let impurity_decrease = self.criterion.is_impurity_decrease();
        let scale = self.criterion.noise_scale(&total);
        let mut left = self.zero_stats();
        let mut right = total.clone();
        let mut best: Option<(f64, usize)> = None; // (decrease, split position)
        let n = known.len();
        let kw = self.weight_of(&total);
        let mut n_distinct = 1;
        for p in 1..n {
            let (prev, i) = known[p - 1];
            self.move_left(&mut left, &mut right, node, i);
            let x = known[p].0;
            if x <= prev {
                continue;
            }
            n_distinct += 1;
            let (wl, wr) = (self.weight_of(&left), self.weight_of(&right));
            if !self.side_ok(p, n_missing, wl, wl / kw, node_weight)
                || !self.side_ok(n - p, n_missing, wr, wr / kw, node_weight)
            {
                continue;
            }
            let dec = if impurity_decrease {
                base - wl / kw * self.impurity(&left) - wr / kw * self.impurity(&right)
            } else {
                self.assess(&total, &[&left, &right]).0
            };
            if best.is_none_or(|(b, _)| better(dec, b, scale)) {
                best = Some((dec, p));
            }
        }
        let (_, p) = best?;
        let (lo, hi) = (known[p - 1].0, known[p].0);
        // Midpoint computed as scikit-learn does (lo/2 + hi/2 cannot overflow); if rounding
        // lands on `hi`, use `lo` so that `x <= t` still separates the two values.
        let mut threshold = lo / 2.0 + hi / 2.0;
        if threshold >= hi || !threshold.is_finite() {
            threshold = lo;
        }
        let mut l = self.zero_stats();
        for &(_, i) in &known[..p] {
            self.add(&mut l, node, i);
        }
        let r: Vec<f64> = total.iter().zip(&l).map(|(t, a)| t - a).collect();
        let children = [l, r];
        let part = Partition {
            children: &children,
            counts: &[p, n - p],
        };
        let candidate = self.finish(
            feature,
            SplitRule::Numeric { threshold },
            &total,
            &part,
            node_weight,
            n_missing,
        )?;
        self.correct_numeric_gain(candidate, n_distinct, node_weight)
    }

    #[inline]
    fn add(&self, stats: &mut [f64], node: &NodeRows, i: usize) {
        if let (Some(&r), Some(&w)) = (node.rows.get(i), node.weights.get(i)) {
            self.accumulate(stats, r as usize, w);
        }
    }

    #[inline]
    fn move_left(&self, left: &mut [f64], right: &mut [f64], node: &NodeRows, i: usize) {
        if let (Some(&r), Some(&w)) = (node.rows.get(i), node.weights.get(i)) {
            self.accumulate(left, r as usize, w);
            self.accumulate(right, r as usize, -w);
        }
    }

    /// Per-category statistics and row counts of the known rows.
    fn per_category(&self, codes: &[Option<u32>], k: usize, node: &NodeRows) -> Categories {
        let mut cats = Categories {
            stats: vec![self.zero_stats(); k],
            counts: vec![0; k],
            n_missing: 0,
        };
        for ((code, &r), &w) in codes.iter().zip(&node.rows).zip(&node.weights) {
            let slot = code.and_then(|c| {
                let c = c as usize;
                Some((cats.stats.get_mut(c)?, cats.counts.get_mut(c)?))
            });
            match slot {
                Some((s, n)) => {
                    self.accumulate(s, r as usize, w);
                    *n += 1;
                }
                None => cats.n_missing += 1,
            }
        }
        cats
    }

    /// One child per category (text 000 Algorithm 4.1); needs two categories present.
    fn multiway(&self, feature: usize, cats: &Categories, node_weight: f64) -> Option<Candidate> {
        if cats.present().len() < 2 {
            return None;
        }
        let part = Partition {
            children: &cats.stats,
            counts: &cats.counts,
        };
        let rule = SplitRule::Multiway {
            n_children: cats.stats.len(),
        };
        self.finish(
            feature,
            rule,
            &cats.known(),
            &part,
            node_weight,
            cats.n_missing,
        )
    }

    /// Ordered categories: `code <= k` between adjacent present codes, like a numeric feature.
    fn ordered(&self, feature: usize, cats: &Categories, node_weight: f64) -> Option<Candidate> {
        let present = cats.present();
        let (best, _) =
            self.best_two_way(cats, node_weight, present.len(), Fill::Grow, |p, add| {
                present.get(p - 1).into_iter().for_each(|&c| add(c));
            })?;
        let threshold = present.get(best - 1).copied().unwrap_or(0);
        let rule = SplitRule::Ordered {
            threshold: threshold as u32,
        };
        self.two_way_candidate(feature, rule, |c| c <= threshold, cats, node_weight)
    }

    /// CART subset split of unordered categories. Two classes and regression: categories
    /// sorted by class-1 share or mean give the optimal split among prefixes (Breiman et al.
    /// 1984, §9.4). More classes: every partition up to `max_exhaustive_categories` present
    /// categories; beyond, a heuristic order by the share of the node's majority class.
    fn subset(&self, feature: usize, cats: &Categories, node_weight: f64) -> Option<Candidate> {
        let present = cats.present();
        let n_classes = if self.regression() {
            0
        } else {
            self.target.stats_width()
        };
        let sides = if n_classes > 2 && present.len() <= self.max_exhaustive_categories {
            // Bit i of a mask sends present[i + 1] left with present[0]; the all-ones mask
            // would leave the right child empty.
            let rest = present.get(1..).unwrap_or(&[]);
            let n_masks = (1usize << rest.len()) - 1;
            let (best, _) =
                self.best_two_way(cats, node_weight, n_masks + 1, Fill::Fresh, |m, add| {
                    let mask = m - 1;
                    present.first().into_iter().for_each(|&c| add(c));
                    for (i, &c) in rest.iter().enumerate() {
                        if mask >> i & 1 == 1 {
                            add(c);
                        }
                    }
                })?;
            let in_left = |i: usize| i == 0 || (best - 1) >> (i - 1) & 1 == 1;
            sides_of(cats.stats.len(), &present, in_left)
        } else {
            let order = self.category_order(cats, present, n_classes);
            let (best, _) =
                self.best_two_way(cats, node_weight, order.len(), Fill::Grow, |p, add| {
                    order.get(p - 1).into_iter().for_each(|&c| add(c));
                })?;
            sides_of(cats.stats.len(), &order, |i| i < best)
        };
        let in_left = |c: usize| sides.get(c) == Some(&Side::Left);
        let rule = SplitRule::Subset {
            sides: sides.clone(),
        };
        self.two_way_candidate(feature, rule, in_left, cats, node_weight)
    }

    /// Present categories sorted by class-1 share (two classes), mean (regression) or share of
    /// the node's majority class (the heuristic beyond exhaustive search).
    fn category_order(
        &self,
        cats: &Categories,
        mut order: Vec<usize>,
        n_classes: usize,
    ) -> Vec<usize> {
        let known = cats.known();
        let class = if n_classes == 2 {
            1
        } else {
            crate::builder::majority(&known, None) as usize
        };
        let key = |c: usize| -> f64 {
            let s = cats.stats.get(c).map(Vec::as_slice).unwrap_or(&[]);
            let w = self.weight_of(s);
            let part = if self.regression() { 1 } else { class };
            s.get(part).copied().unwrap_or(0.0) / w
        };
        // Keys rounded to 12 significant digits: categories whose shares differ only by
        // rounding noise sort by code, so the split does not depend on summation order.
        order.sort_by(|&a, &b| {
            round_significant(key(a))
                .total_cmp(&round_significant(key(b)))
                .then(a.cmp(&b))
        });
        order
    }

    /// The best of `n - 1` two-way candidates `1..n`: `fill(i, add)` calls `add(c)` for each
    /// category `c` that candidate `i` sends left (with [`Fill::Grow`], only those it adds to
    /// candidate `i - 1`'s). Returns the winner and its decrease; the first of equals wins.
    fn best_two_way(
        &self,
        cats: &Categories,
        node_weight: f64,
        n: usize,
        mode: Fill,
        fill: impl Fn(usize, &mut dyn FnMut(usize)),
    ) -> Option<(usize, f64)> {
        let known = cats.known();
        let known_w = self.weight_of(&known);
        let scale = self.criterion.noise_scale(&known);
        let n_known: usize = cats.counts.iter().sum();
        let mut best: Option<(usize, f64)> = None;
        let mut left = self.zero_stats();
        let mut n_left = 0;
        for i in 1..n {
            if mode == Fill::Fresh {
                left.iter_mut().for_each(|l| *l = 0.0);
                n_left = 0;
            }
            fill(i, &mut |c| {
                if let Some(s) = cats.stats.get(c) {
                    left.iter_mut().zip(s).for_each(|(l, x)| *l += x);
                }
                n_left += cats.counts.get(c).copied().unwrap_or(0);
            });
            let n_right = n_known - n_left;
            let right: Vec<f64> = known.iter().zip(&left).map(|(t, l)| t - l).collect();
            let (wl, wr) = (self.weight_of(&left), self.weight_of(&right));
            if !self.side_ok(n_left, cats.n_missing, wl, wl / known_w, node_weight)
                || !self.side_ok(n_right, cats.n_missing, wr, wr / known_w, node_weight)
            {
                continue;
            }
            let part = Partition {
                children: &[left.clone(), right],
                counts: &[n_left, n_right],
            };
            let (dec, _) = self.decrease(&known, &part);
            if best.is_none_or(|(_, b)| better(dec, b, scale)) {
                best = Some((i, dec));
            }
        }
        best
    }

    /// A two-child candidate from per-category statistics and the side of each category.
    fn two_way_candidate(
        &self,
        feature: usize,
        rule: SplitRule,
        in_left: impl Fn(usize) -> bool,
        cats: &Categories,
        node_weight: f64,
    ) -> Option<Candidate> {
        let width = self.target.stats_width();
        let mut children = [vec![0.0; width], vec![0.0; width]];
        let mut counts = [0usize; 2];
        for (c, (s, n)) in cats.stats.iter().zip(&cats.counts).enumerate() {
            let side = usize::from(!in_left(c));
            if let (Some(child), Some(slot)) = (children.get_mut(side), counts.get_mut(side)) {
                child.iter_mut().zip(s).for_each(|(a, x)| *a += x);
                *slot += n;
            }
        }
        let part = Partition {
            children: &children,
            counts: &counts,
        };
        self.finish(
            feature,
            rule,
            &cats.known(),
            &part,
            node_weight,
            cats.n_missing,
        )
    }
}

/// How [`Searcher::best_two_way`] builds each candidate's left side.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// Each candidate extends the previous one (prefixes of an order).
    Grow,
    /// Each candidate is built from nothing (subset masks).
    Fresh,
}

/// Known-row statistics of a categorical feature at a node.
struct Categories {
    /// Statistics of each category's known rows.
    stats: Vec<Vec<f64>>,
    /// Known rows of each category.
    counts: Vec<usize>,
    /// Rows whose value is missing (or an unseen category).
    n_missing: usize,
}

impl Categories {
    fn present(&self) -> Vec<usize> {
        (0..self.counts.len())
            .filter(|&c| self.counts.get(c).is_some_and(|&n| n > 0))
            .collect()
    }

    fn known(&self) -> Vec<f64> {
        let mut total = vec![0.0; self.stats.first().map_or(0, Vec::len)];
        for s in &self.stats {
            total.iter_mut().zip(s).for_each(|(t, x)| *t += x);
        }
        total
    }
}

/// A subset mask: `listed[i]` goes left where `in_left(i)`, right otherwise; categories not
/// listed (absent from the node) are `Unseen`.
fn sides_of(k: usize, listed: &[usize], in_left: impl Fn(usize) -> bool) -> Vec<Side> {
    let mut sides = vec![Side::Unseen; k];
    for (i, &c) in listed.iter().enumerate() {
        if let Some(s) = sides.get_mut(c) {
            *s = if in_left(i) { Side::Left } else { Side::Right };
        }
    }
    sides
}

/// `x` rounded to 12 significant digits.
fn round_significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(11 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// Index of the winning candidate. Gain ratio follows C4.5: the best ratio among candidates
/// whose gain is at least the average gain (Quinlan 1993). Other criteria maximise
/// ρ × decrease. Ties go to the lowest feature index.
pub(crate) fn choose(
    criterion: Criterion,
    candidates: &[Option<Candidate>],
    scale: f64,
) -> Option<usize> {
    let valid: Vec<(usize, &Candidate)> = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.as_ref().map(|c| (i, c)))
        .collect();
    if valid.is_empty() {
        return None;
    }
    let mut best: Option<(usize, &Candidate)> = None;
    if criterion == Criterion::GainRatio {
        let average = valid.iter().map(|(_, c)| c.score.gain).sum::<f64>() / valid.len() as f64;
        for &(i, c) in &valid {
            let eligible = !better(average, c.score.gain, scale);
            if eligible && best.is_none_or(|(_, b)| better(c.score.score, b.score.score, 0.0)) {
                best = Some((i, c));
            }
        }
    } else {
        for &(i, c) in &valid {
            if best.is_none_or(|(_, b)| better(c.score.gain, b.score.gain, scale)) {
                best = Some((i, c));
            }
        }
    }
    best.map(|(i, _)| i)
}

/// Which child a row goes to, or `None` when its value is missing (or the category unseen),
/// in which case it follows every child with the stored fractions.
#[inline]
pub(crate) fn route(
    kind: &crate::tree::NodeKind<'_>,
    columns: &[Column<'_>],
    row: usize,
) -> Option<usize> {
    use crate::tree::NodeKind;
    match *kind {
        NodeKind::Leaf => None,
        NodeKind::Numeric { feature, threshold } => match columns.get(feature)? {
            Column::Numeric(v) => {
                let x = *v.get(row)?;
                if x.is_nan() {
                    None
                } else {
                    Some(usize::from(x > threshold))
                }
            }
            Column::Categorical(_) => None,
        },
        NodeKind::Multiway { feature } => match columns.get(feature)? {
            Column::Categorical(c) => c.code(row).map(|c| c as usize),
            Column::Numeric(_) => None,
        },
        NodeKind::Ordered { feature, threshold } => match columns.get(feature)? {
            Column::Categorical(c) => c.code(row).map(|c| usize::from(c > threshold)),
            Column::Numeric(_) => None,
        },
        NodeKind::Oblique {
            features,
            weights,
            threshold,
        } => linear_value(columns, features, weights, row).map(|z| usize::from(z > threshold)),
        NodeKind::Subset { feature, sides } => match columns.get(feature)? {
            Column::Categorical(c) => match sides.get(c.code(row)? as usize)? {
                Side::Left => Some(0),
                Side::Right => Some(1),
                Side::Unseen => None,
            },
            Column::Numeric(_) => None,
        },
    }
}

/// Σ weights[i] · x[features[i]] of a row, or `None` if any term's value is missing. Search
/// and prediction both evaluate a linear test here, so they agree to the last bit.
#[inline]
pub(crate) fn linear_value(
    columns: &[Column<'_>],
    features: &[u32],
    weights: &[f64],
    row: usize,
) -> Option<f64> {
    let mut z = 0.0;
    for (&f, &w) in features.iter().zip(weights) {
        match columns.get(f as usize)? {
            Column::Numeric(v) => {
                let x = *v.get(row)?;
                if x.is_nan() {
                    return None;
                }
                z += w * x;
            }
            Column::Categorical(_) => return None,
        }
    }
    Some(z)
}
