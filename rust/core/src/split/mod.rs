//! Split search: the best candidate test of each feature at a node, and the choice among them.
//!
//! Missing values follow C4.5 (text 000 §4.4.2): a candidate is scored on the rows whose value
//! is known (D̃), its gain is multiplied by ρ = w(D̃)/w(D), and each child remembers
//! r̃_v = w(D̃_v)/w(D̃), the fraction of a missing row's weight it receives.

use crate::criterion::{better, split_information, stats_weight, Criterion, Measure};
use crate::data::{Column, Dataset, Target};
use crate::params::{CategoricalSplit, MissingStrategy, TreeParams};
use crate::tree::{FeatureScore, Side, SurrogateSet};

pub(crate) mod missing;
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
    /// Statistics of each child's known rows (for the G² test); with `placed`, the missing
    /// rows are in their child's.
    pub children: Vec<Vec<f64>>,
    /// The child the search put the node's missing rows in (learned, separate); `None` when
    /// they were left out of the score (C4.5's known rows × ρ) or there were none.
    pub placed: Option<usize>,
    /// Where missing values go, decided once the split is chosen ([`missing::plan`]).
    pub missing: missing::Plan,
}

impl Candidate {
    /// The test the candidate applies, as the arena will store it.
    pub(crate) fn kind(&self) -> crate::tree::NodeKind<'_> {
        use crate::tree::NodeKind;
        let feature = self.feature;
        match &self.rule {
            SplitRule::Numeric { threshold } => NodeKind::Numeric {
                feature,
                threshold: *threshold,
            },
            SplitRule::Multiway { .. } => NodeKind::Multiway { feature },
            SplitRule::Oblique {
                features,
                weights,
                threshold,
            } => NodeKind::Oblique {
                features,
                weights,
                threshold: *threshold,
            },
            SplitRule::Subset { sides } => NodeKind::Subset { feature, sides },
            SplitRule::Ordered { threshold } => NodeKind::Ordered {
                feature,
                threshold: *threshold,
            },
        }
    }
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
    pub missing: MissingStrategy,
}

/// Known-row statistics of each child of a candidate.
struct Partition<'s> {
    children: &'s [Vec<f64>],
    counts: &'s [usize],
}

/// What a candidate's score did with the rows missing its value.
#[derive(Debug, Clone, Copy)]
enum MissingRows {
    /// This many rows were left out of the score: C4.5's known rows × ρ.
    Left(usize),
    /// They were scored in child `child` (learned, separate); the known rows weigh
    /// `known_weight`.
    Placed { child: usize, known_weight: f64 },
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
            missing: params.missing,
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

    /// Missing rows counted toward each side's size: C4.5 sends a fragment of each one to
    /// every side; the other strategies send it to one side, so none is counted in advance.
    fn spread(&self, n_missing: usize) -> usize {
        if self.missing == MissingStrategy::Fractional {
            n_missing
        } else {
            0
        }
    }

    /// Whether the search places the missing rows on a side itself (and scores all rows).
    fn places_missing(&self) -> bool {
        matches!(
            self.missing,
            MissingStrategy::Learned | MissingStrategy::Separate
        )
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
    ///
    /// `fill` (class majority) supplies the values of the node's missing cells.
    pub fn candidates(
        &self,
        node: &NodeRows,
        usable: &[bool],
        fill: Option<&missing::Fill>,
    ) -> (Vec<Option<Candidate>>, f64) {
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
        let columns = self.data.columns();
        let candidates = (0..self.data.n_features())
            .map(|f| {
                if !usable.get(f).copied().unwrap_or(false) {
                    return None;
                }
                match fill {
                    Some(fill) => {
                        let filled = fill.reader(columns, self.target);
                        centred.best_of_feature(f, node, node_weight, &filled)
                    }
                    None => centred.best_of_feature(f, node, node_weight, columns),
                }
            })
            .collect();
        (candidates, self.criterion.noise_scale(&centred_total))
    }

    fn best_of_feature<V: Values + ?Sized>(
        &self,
        feature: usize,
        node: &NodeRows,
        node_weight: f64,
        values: &V,
    ) -> Option<Candidate> {
        match self.data.columns().get(feature)? {
            Column::Numeric(_) => {
                self.numeric(feature, |r| values.number(feature, r), node, node_weight)
            }
            Column::Categorical(col) => {
                let codes: Vec<Option<u32>> = node
                    .rows
                    .iter()
                    .map(|&r| values.code(feature, r as usize))
                    .collect();
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
        missing: MissingRows,
    ) -> Option<Candidate> {
        let (n_missing, placed) = match missing {
            MissingRows::Left(n) => (self.spread(n), None),
            MissingRows::Placed {
                child,
                known_weight,
            } => (0, Some((child, known_weight))),
        };
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
        // Placed missing rows are scored with the known ones: no ρ, and no missing outcome in
        // the split information (it is inside its child's weight).
        let (gain, rho, missing_w) = match placed {
            None => {
                let rho = known_w / node_weight;
                (rho * decrease, rho, (node_weight - known_w).max(0.0))
            }
            Some((_, known_weight)) => (decrease, known_weight / node_weight, 0.0),
        };
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
            placed: placed.map(|(child, _)| child),
            missing: missing::Plan::default(),
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
        let mut missing = self.zero_stats();
        for (i, &r) in node.rows.iter().enumerate() {
            let x = value(r as usize);
            if x.is_nan() {
                n_missing += 1;
                self.add(&mut missing, node, i);
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
        let place = self.places_missing() && n_missing > 0;
        let (p, side, n_distinct) = if place {
            self.numeric_scan_placing(&known, &total, &missing, n_missing, node, node_weight)?
        } else {
            let (p, n_distinct) =
                self.numeric_scan(&known, &total, n_missing, node, node_weight)?;
            (p, None, n_distinct)
        };
        let n = known.len();
        let (lo, hi) = (known.get(p - 1)?.0, known.get(p)?.0);
        // Midpoint computed as scikit-learn does (lo/2 + hi/2 cannot overflow); if rounding
        // lands on `hi`, use `lo` so that `x <= t` still separates the two values.
        let mut threshold = lo / 2.0 + hi / 2.0;
        if threshold >= hi || !threshold.is_finite() {
            threshold = lo;
        }
        let mut l = self.zero_stats();
        for &(_, i) in known.iter().take(p) {
            self.add(&mut l, node, i);
        }
        let r: Vec<f64> = total.iter().zip(&l).map(|(t, a)| t - a).collect();
        let mut children = [l, r];
        let mut counts = [p, n - p];
        let (scored, rows) = match side {
            Some(side) => {
                if let (Some(c), Some(k)) = (children.get_mut(side), counts.get_mut(side)) {
                    add_into(c, &missing);
                    *k += n_missing;
                }
                let known_weight = self.weight_of(&total);
                let all = sum(&total, &missing);
                (
                    all,
                    MissingRows::Placed {
                        child: side,
                        known_weight,
                    },
                )
            }
            None => (total, MissingRows::Left(n_missing)),
        };
        let part = Partition {
            children: &children,
            counts: &counts,
        };
        let candidate = self.finish(
            feature,
            SplitRule::Numeric { threshold },
            &scored,
            &part,
            node_weight,
            rows,
        )?;
        self.correct_numeric_gain(candidate, n_distinct, node_weight)
    }

    /// The best threshold position among the sorted known rows (C4.5, CART): the position
    /// and the number of distinct values.
    fn numeric_scan(
        &self,
        known: &[(f64, usize)],
        total: &[f64],
        n_missing: usize,
        node: &NodeRows,
        node_weight: f64,
    ) -> Option<(usize, usize)> {
        let base = self.impurity(total);
        let impurity_decrease = self.criterion.is_impurity_decrease();
        let scale = self.criterion.noise_scale(total);
        let mut left = self.zero_stats();
        let mut right = total.to_vec();
        let mut best: Option<(f64, usize)> = None; // (decrease, split position)
        let n = known.len();
        let kw = self.weight_of(total);
        let spread = self.spread(n_missing);
        let mut n_distinct = 1;
        for (p, pair) in (1..n).zip(known.windows(2)) {
            let &[(prev, i), (x, _)] = pair else {
                continue;
            };
            self.move_left(&mut left, &mut right, node, i);
            if x <= prev {
                continue;
            }
            n_distinct += 1;
            let (wl, wr) = (self.weight_of(&left), self.weight_of(&right));
            if !self.side_ok(p, spread, wl, wl / kw, node_weight)
                || !self.side_ok(n - p, spread, wr, wr / kw, node_weight)
            {
                continue;
            }
            let dec = if impurity_decrease {
                base - wl / kw * self.impurity(&left) - wr / kw * self.impurity(&right)
            } else {
                self.assess(total, &[&left, &right]).0
            };
            if best.is_none_or(|(b, _)| better(dec, b, scale)) {
                best = Some((dec, p));
            }
        }
        best.map(|(_, p)| (p, n_distinct))
    }

    /// As [`Self::numeric_scan`], each position tried with the missing rows on the left and
    /// on the right (scikit-learn's and XGBoost's learned direction); also returns the side.
    fn numeric_scan_placing(
        &self,
        known: &[(f64, usize)],
        total: &[f64],
        missing: &[f64],
        n_missing: usize,
        node: &NodeRows,
        node_weight: f64,
    ) -> Option<(usize, Option<usize>, usize)> {
        let all = sum(total, missing);
        let mut left = self.zero_stats();
        let mut right = total.to_vec();
        let mut best: Option<(f64, usize, usize)> = None; // (decrease, position, side)
        let n = known.len();
        let mut n_distinct = 1;
        let mut with = self.zero_stats();
        for (p, pair) in (1..n).zip(known.windows(2)) {
            let &[(prev, i), (x, _)] = pair else {
                continue;
            };
            self.move_left(&mut left, &mut right, node, i);
            if x <= prev {
                continue;
            }
            n_distinct += 1;
            for side in 0..2 {
                let (l, r, nl, nr) = if side == 0 {
                    copy_sum(&mut with, &left, missing);
                    (&with, &right, p + n_missing, n - p)
                } else {
                    copy_sum(&mut with, &right, missing);
                    (&left, &with, p, n - p + n_missing)
                };
                if let Some(dec) = self.two_sides(&all, l, r, nl, nr, node_weight) {
                    if best.is_none_or(|(b, _, _)| better(dec, b, self.criterion.noise_scale(&all)))
                    {
                        best = Some((dec, p, side));
                    }
                }
            }
        }
        best.map(|(_, p, side)| (p, Some(side), n_distinct))
    }

    /// The quality of dividing the rows `all` into `left` and `right` (`nl`, `nr` rows), all
    /// of them scored; `None` if a side is too small.
    fn two_sides(
        &self,
        all: &[f64],
        left: &[f64],
        right: &[f64],
        nl: usize,
        nr: usize,
        node_weight: f64,
    ) -> Option<f64> {
        let aw = self.weight_of(all);
        let (wl, wr) = (self.weight_of(left), self.weight_of(right));
        if !self.side_ok(nl, 0, wl, wl / aw, node_weight)
            || !self.side_ok(nr, 0, wr, wr / aw, node_weight)
        {
            return None;
        }
        Some(if self.criterion.is_impurity_decrease() {
            self.impurity(all) - wl / aw * self.impurity(left) - wr / aw * self.impurity(right)
        } else {
            self.assess(all, &[left, right]).0
        })
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
            missing: self.zero_stats(),
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
                None => {
                    cats.n_missing += 1;
                    self.accumulate(&mut cats.missing, r as usize, w);
                }
            }
        }
        cats
    }

    /// One child per category (text 000 Algorithm 4.1); needs two categories present.
    /// Missing rows: left out (C4.5), in the best child (learned) or in a child of their own
    /// after the categories' (separate).
    fn multiway(&self, feature: usize, cats: &Categories, node_weight: f64) -> Option<Candidate> {
        let present = cats.present();
        if present.len() < 2 {
            return None;
        }
        let k = cats.stats.len();
        if !self.places_missing() || cats.n_missing == 0 {
            let part = Partition {
                children: &cats.stats,
                counts: &cats.counts,
            };
            let rule = SplitRule::Multiway { n_children: k };
            let rows = MissingRows::Left(cats.n_missing);
            return self.finish(feature, rule, &cats.known(), &part, node_weight, rows);
        }
        let known = cats.known();
        let all = sum(&known, &cats.missing);
        let mut children = cats.stats.clone();
        let mut counts = cats.counts.clone();
        let child = if self.missing == MissingStrategy::Separate {
            children.push(cats.missing.clone());
            counts.push(cats.n_missing);
            k
        } else {
            // The child whose known rows the missing ones join best.
            let scale = self.criterion.noise_scale(&all);
            let mut best: Option<(usize, f64)> = None;
            for &c in &present {
                let mut trial = cats.stats.clone();
                if let Some(s) = trial.get_mut(c) {
                    add_into(s, &cats.missing);
                }
                let (dec, _) =
                    self.assess(&all, &trial.iter().map(Vec::as_slice).collect::<Vec<_>>());
                if best.is_none_or(|(_, b)| better(dec, b, scale)) {
                    best = Some((c, dec));
                }
            }
            let (c, _) = best?;
            if let (Some(s), Some(n)) = (children.get_mut(c), counts.get_mut(c)) {
                add_into(s, &cats.missing);
                *n += cats.n_missing;
            }
            c
        };
        let part = Partition {
            children: &children,
            counts: &counts,
        };
        let rule = SplitRule::Multiway {
            n_children: children.len(),
        };
        let rows = MissingRows::Placed {
            child,
            known_weight: self.weight_of(&known),
        };
        self.finish(feature, rule, &all, &part, node_weight, rows)
    }

    /// Ordered categories: `code <= k` between adjacent present codes, like a numeric feature.
    fn ordered(&self, feature: usize, cats: &Categories, node_weight: f64) -> Option<Candidate> {
        let present = cats.present();
        let (best, _, side) =
            self.best_two_way(cats, node_weight, present.len(), Fill::Grow, |p, add| {
                present.get(p - 1).into_iter().for_each(|&c| add(c));
            })?;
        let threshold = present.get(best - 1).copied().unwrap_or(0);
        let rule = SplitRule::Ordered {
            threshold: threshold as u32,
        };
        self.two_way_candidate(feature, rule, |c| c <= threshold, cats, node_weight, side)
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
        let (sides, side) = if n_classes > 2 && present.len() <= self.max_exhaustive_categories {
            // Bit i of a mask sends present[i + 1] left with present[0]; the all-ones mask
            // would leave the right child empty.
            let rest = present.get(1..).unwrap_or(&[]);
            let n_masks = (1usize << rest.len()) - 1;
            let (best, _, side) =
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
            (sides_of(cats.stats.len(), &present, in_left), side)
        } else {
            let order = self.category_order(cats, present, n_classes);
            let (best, _, side) =
                self.best_two_way(cats, node_weight, order.len(), Fill::Grow, |p, add| {
                    order.get(p - 1).into_iter().for_each(|&c| add(c));
                })?;
            (sides_of(cats.stats.len(), &order, |i| i < best), side)
        };
        // A subset split and its mirror image are the same test: the side holding the lowest
        // present code is always child 0, so the tree never depends on which one the scan met
        // first (row order, or noise in tied shares).
        let (sides, side) = if sides.iter().find(|s| **s != Side::Unseen) == Some(&Side::Right) {
            let mirrored = sides
                .iter()
                .map(|s| match s {
                    Side::Left => Side::Right,
                    Side::Right => Side::Left,
                    Side::Unseen => Side::Unseen,
                })
                .collect();
            (mirrored, side.map(|s| 1 - s))
        } else {
            (sides, side)
        };
        let in_left = |c: usize| sides.get(c) == Some(&Side::Left);
        let rule = SplitRule::Subset {
            sides: sides.clone(),
        };
        self.two_way_candidate(feature, rule, in_left, cats, node_weight, side)
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
    /// candidate `i - 1`'s). Returns the winner, its decrease and, when the search places the
    /// missing rows (learned, separate), their side; the first of equals wins.
    fn best_two_way(
        &self,
        cats: &Categories,
        node_weight: f64,
        n: usize,
        mode: Fill,
        fill: impl Fn(usize, &mut dyn FnMut(usize)),
    ) -> Option<(usize, f64, Option<usize>)> {
        let known = cats.known();
        let known_w = self.weight_of(&known);
        let place = self.places_missing() && cats.n_missing > 0;
        let all = sum(&known, &cats.missing);
        let scale = self
            .criterion
            .noise_scale(if place { &all } else { &known });
        let n_known: usize = cats.counts.iter().sum();
        let spread = self.spread(cats.n_missing);
        let mut best: Option<(usize, f64, Option<usize>)> = None;
        let mut left = self.zero_stats();
        let mut with = self.zero_stats();
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
            if place {
                let m = cats.n_missing;
                for side in 0..2 {
                    let (l, r, nl, nr) = if side == 0 {
                        copy_sum(&mut with, &left, &cats.missing);
                        (&with, &right, n_left + m, n_right)
                    } else {
                        copy_sum(&mut with, &right, &cats.missing);
                        (&left, &with, n_left, n_right + m)
                    };
                    if let Some(dec) = self.two_sides(&all, l, r, nl, nr, node_weight) {
                        if best.is_none_or(|(_, b, _)| better(dec, b, scale)) {
                            best = Some((i, dec, Some(side)));
                        }
                    }
                }
                continue;
            }
            let (wl, wr) = (self.weight_of(&left), self.weight_of(&right));
            if !self.side_ok(n_left, spread, wl, wl / known_w, node_weight)
                || !self.side_ok(n_right, spread, wr, wr / known_w, node_weight)
            {
                continue;
            }
            let part = Partition {
                children: &[left.clone(), right],
                counts: &[n_left, n_right],
            };
            let (dec, _) = self.decrease(&known, &part);
            if best.is_none_or(|(_, b, _)| better(dec, b, scale)) {
                best = Some((i, dec, None));
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
        side: Option<usize>,
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
        let known = cats.known();
        let (scored, rows) = match side {
            Some(side) => {
                if let (Some(c), Some(n)) = (children.get_mut(side), counts.get_mut(side)) {
                    add_into(c, &cats.missing);
                    *n += cats.n_missing;
                }
                let rows = MissingRows::Placed {
                    child: side,
                    known_weight: self.weight_of(&known),
                };
                (sum(&known, &cats.missing), rows)
            }
            None => (known, MissingRows::Left(cats.n_missing)),
        };
        let part = Partition {
            children: &children,
            counts: &counts,
        };
        self.finish(feature, rule, &scored, &part, node_weight, rows)
    }
}

/// `a + b`, element by element.
fn sum(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

/// `a += b`, element by element.
fn add_into(a: &mut [f64], b: &[f64]) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
}

/// `dst = a + b`, element by element.
fn copy_sum(dst: &mut [f64], a: &[f64], b: &[f64]) {
    for ((d, x), y) in dst.iter_mut().zip(a).zip(b) {
        *d = x + y;
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
    /// Statistics of those rows.
    missing: Vec<f64>,
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

/// Reads feature values for routing and search: the data's own columns, or the values the
/// class-majority strategy fills in at fit ([`missing::Filled`]).
pub(crate) trait Values {
    /// Feature `f` of `row` as a number; NaN when missing or not numeric.
    fn number(&self, f: usize, row: usize) -> f64;
    /// Feature `f` of `row` as a category code; `None` when missing, unseen at fit, or not
    /// categorical.
    fn code(&self, f: usize, row: usize) -> Option<u32>;
}

impl Values for [Column<'_>] {
    #[inline]
    fn number(&self, f: usize, row: usize) -> f64 {
        match self.get(f) {
            Some(Column::Numeric(v)) => v.get(row).copied().unwrap_or(f64::NAN),
            _ => f64::NAN,
        }
    }

    #[inline]
    fn code(&self, f: usize, row: usize) -> Option<u32> {
        match self.get(f)? {
            Column::Categorical(c) => c.code(row),
            Column::Numeric(_) => None,
        }
    }
}

/// Which child a row goes to, or `None` when its value is missing (or the category unseen);
/// see [`send`] for what happens then.
#[inline]
pub(crate) fn route<V: Values + ?Sized>(
    kind: &crate::tree::NodeKind<'_>,
    values: &V,
    row: usize,
) -> Option<usize> {
    use crate::tree::NodeKind;
    match *kind {
        NodeKind::Leaf => None,
        NodeKind::Numeric { feature, threshold } => {
            let x = values.number(feature, row);
            if x.is_nan() {
                None
            } else {
                Some(usize::from(x > threshold))
            }
        }
        NodeKind::Multiway { feature } => values.code(feature, row).map(|c| c as usize),
        NodeKind::Ordered { feature, threshold } => values
            .code(feature, row)
            .map(|c| usize::from(c > threshold)),
        NodeKind::Oblique {
            features,
            weights,
            threshold,
        } => linear_value(values, features, weights, row).map(|z| usize::from(z > threshold)),
        NodeKind::Subset { feature, sides } => {
            match sides.get(values.code(feature, row)? as usize)? {
                Side::Left => Some(0),
                Side::Right => Some(1),
                Side::Unseen => None,
            }
        }
    }
}

/// How a node routes a row whose tested value is missing: its surrogate splits, then its
/// missing child; with neither, the row follows every child with the fractions r̃_v (C4.5).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MissingRule<'t> {
    /// Index of the child among the node's children.
    pub child: Option<usize>,
    pub surrogates: SurrogateSet<'t>,
}

impl MissingRule<'_> {
    /// The child of a row missing the tested value: the first surrogate whose feature the
    /// row has and which gives a direction, else the missing child; `None`: every child.
    #[inline]
    pub(crate) fn route<V: Values + ?Sized>(&self, values: &V, row: usize) -> Option<usize> {
        let s = &self.surrogates;
        for (i, (&f, &t)) in s.feature.iter().zip(s.threshold).enumerate() {
            let f = f as usize;
            let outcome = if t.is_nan() {
                values.code(f, row).map(|c| c as usize)
            } else {
                let x = values.number(f, row);
                (!x.is_nan()).then(|| usize::from(x > t))
            };
            let child = outcome.and_then(|o| {
                let start = *s.map.get(i)? as usize;
                s.children.get(start.checked_add(o)?).copied()
            });
            if let Some(c) = child.filter(|&c| c != crate::tree::NONE) {
                return Some(c as usize);
            }
        }
        self.child
    }
}

/// The one routing rule of prediction, growth and pruning: the child a row takes at a node
/// (its test, else the node's missing-value rule, looked up only then), or `None` when it
/// follows every child with the fractions r̃_v.
#[inline]
pub(crate) fn send<'t, V: Values + ?Sized>(
    kind: &crate::tree::NodeKind<'_>,
    rule: impl FnOnce() -> MissingRule<'t>,
    values: &V,
    row: usize,
) -> Option<usize> {
    route(kind, values, row).or_else(|| rule().route(values, row))
}

/// Σ weights[i] · x[features[i]] of a row, or `None` if any term's value is missing. Search
/// and prediction both evaluate a linear test here, so they agree to the last bit.
#[inline]
pub(crate) fn linear_value<V: Values + ?Sized>(
    values: &V,
    features: &[u32],
    weights: &[f64],
    row: usize,
) -> Option<f64> {
    let mut z = 0.0;
    for (&f, &w) in features.iter().zip(weights) {
        let x = values.number(f as usize, row);
        if x.is_nan() {
            return None;
        }
        z += w * x;
    }
    Some(z)
}
