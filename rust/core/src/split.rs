//! Split search: the best candidate test of each feature at a node, and the choice among them.
//!
//! Missing values follow C4.5 (text 000 §4.4.2): a candidate is scored on the rows whose value
//! is known (D̃), its gain is multiplied by ρ = w(D̃)/w(D), and each child remembers
//! r̃_v = w(D̃_v)/w(D̃), the fraction of a missing row's weight it receives.

use crate::criterion::{better, split_information, stats_weight, Criterion};
use crate::data::{Column, Dataset, Target};
use crate::params::{CategoricalSplit, TreeParams};
use crate::tree::{FeatureScore, Side};

/// The test a candidate applies.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SplitRule {
    Numeric { threshold: f64 },
    Multiway { n_children: usize },
    Subset { sides: Vec<Side> },
    Ordered { threshold: u32 },
}

/// The best split of one feature at one node.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub feature: usize,
    pub rule: SplitRule,
    pub score: FeatureScore,
    /// r̃_v for each child: its share of the known weight.
    pub fractions: Vec<f64>,
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
    pub categorical_split: CategoricalSplit,
    pub min_samples_leaf: usize,
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
    pub fn new(
        data: &'a Dataset<'d>,
        target: &'a Target<'d>,
        params: &TreeParams,
    ) -> Searcher<'a, 'd> {
        Searcher {
            data,
            target,
            criterion: params.criterion,
            categorical_split: params.categorical_split,
            min_samples_leaf: params.min_samples_leaf,
            max_exhaustive_categories: params.max_exhaustive_categories,
            shift: 0.0,
        }
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
            Column::Numeric(values) => self.numeric(feature, values, node, node_weight),
            Column::Categorical(col) => {
                let codes: Vec<Option<u32>> =
                    node.rows.iter().map(|&r| col.code(r as usize)).collect();
                let k = col.n_categories as usize;
                match (self.categorical_split, col.ordered) {
                    (CategoricalSplit::Multiway, _) => {
                        self.multiway(feature, &codes, k, node, node_weight)
                    }
                    (CategoricalSplit::Binary, true) => {
                        self.ordered(feature, &codes, k, node, node_weight)
                    }
                    (CategoricalSplit::Binary, false) => {
                        self.subset(feature, &codes, k, node, node_weight)
                    }
                }
            }
        }
    }

    /// Scores a partition of the known rows: (decrease on D̃, weighted child impurity).
    fn decrease(&self, known: &[f64], part: &Partition<'_>) -> (f64, f64) {
        let known_w = self.weight_of(known);
        let child_imp: f64 = part
            .children
            .iter()
            .map(|c| {
                let w = self.weight_of(c);
                if w > 0.0 {
                    w / known_w * self.criterion.impurity(c)
                } else {
                    0.0
                }
            })
            .sum();
        (self.criterion.impurity(known) - child_imp, child_imp)
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
        // Every child that receives rows (its known ones plus a fragment of each missing row)
        // must hold at least min_samples_leaf of them.
        if part
            .counts
            .iter()
            .any(|&c| c > 0 && c + n_missing < self.min_samples_leaf)
        {
            return None;
        }
        let (decrease, child_imp) = self.decrease(known, part);
        let rho = known_w / node_weight;
        let gain = rho * decrease;
        let weights: Vec<f64> = part.children.iter().map(|c| self.weight_of(c)).collect();
        let missing_w = (node_weight - known_w).max(0.0);
        let iv = split_information(
            weights
                .iter()
                .map(|w| w / node_weight)
                .chain(std::iter::once(missing_w / node_weight)),
        );
        let score = match self.criterion {
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
            SplitRule::Numeric { threshold } => *threshold,
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
        })
    }

    /// `x <= t` at midpoints of adjacent distinct known values (text 000 §4.4.1). The
    /// threshold is chosen by impurity decrease, as C4.5 chooses it by gain before the ratio.
    fn numeric(
        &self,
        feature: usize,
        values: &[f64],
        node: &NodeRows,
        node_weight: f64,
    ) -> Option<Candidate> {
        let mut known: Vec<(f64, usize)> = Vec::with_capacity(node.len());
        let mut n_missing = 0;
        for (i, &r) in node.rows.iter().enumerate() {
            match values.get(r as usize) {
                Some(&x) if !x.is_nan() => known.push((x, i)),
                _ => n_missing += 1,
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
        let base = self.criterion.impurity(&total);
        let scale = self.criterion.noise_scale(&total);
        let mut left = self.zero_stats();
        let mut right = total.clone();
        let mut best: Option<(f64, usize)> = None; // (decrease, split position)
        let n = known.len();
        for p in 1..n {
            let (prev, i) = known[p - 1];
            self.move_left(&mut left, &mut right, node, i);
            let x = known[p].0;
            if x <= prev {
                continue;
            }
            if p + n_missing < self.min_samples_leaf || n - p + n_missing < self.min_samples_leaf {
                continue;
            }
            let (wl, wr) = (self.weight_of(&left), self.weight_of(&right));
            let kw = wl + wr;
            let dec = base
                - wl / kw * self.criterion.impurity(&left)
                - wr / kw * self.criterion.impurity(&right);
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
        self.finish(
            feature,
            SplitRule::Numeric { threshold },
            &total,
            &part,
            node_weight,
            n_missing,
        )
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
    fn per_category(
        &self,
        codes: &[Option<u32>],
        k: usize,
        node: &NodeRows,
    ) -> (Vec<Vec<f64>>, Vec<usize>, usize) {
        let mut stats = vec![self.zero_stats(); k];
        let mut counts = vec![0usize; k];
        let mut n_missing = 0;
        for (i, code) in codes.iter().enumerate() {
            match code.and_then(|c| stats.get_mut(c as usize).map(|s| (c, s))) {
                Some((c, s)) => {
                    if let (Some(&r), Some(&w)) = (node.rows.get(i), node.weights.get(i)) {
                        self.accumulate(s, r as usize, w);
                    }
                    if let Some(n) = counts.get_mut(c as usize) {
                        *n += 1;
                    }
                }
                None => n_missing += 1,
            }
        }
        (stats, counts, n_missing)
    }

    /// One child per category (text 000 Algorithm 4.1); needs two categories present.
    fn multiway(
        &self,
        feature: usize,
        codes: &[Option<u32>],
        k: usize,
        node: &NodeRows,
        node_weight: f64,
    ) -> Option<Candidate> {
        let (stats, counts, n_missing) = self.per_category(codes, k, node);
        if counts.iter().filter(|&&c| c > 0).count() < 2 {
            return None;
        }
        let known = sum_rows(&stats, self.target.stats_width());
        let part = Partition {
            children: &stats,
            counts: &counts,
        };
        self.finish(
            feature,
            SplitRule::Multiway { n_children: k },
            &known,
            &part,
            node_weight,
            n_missing,
        )
    }

    /// Ordered categories: `code <= k` between adjacent present codes, like a numeric feature.
    fn ordered(
        &self,
        feature: usize,
        codes: &[Option<u32>],
        k: usize,
        node: &NodeRows,
        node_weight: f64,
    ) -> Option<Candidate> {
        let (stats, counts, n_missing) = self.per_category(codes, k, node);
        let present: Vec<usize> = (0..k)
            .filter(|&c| counts.get(c).copied().unwrap_or(0) > 0)
            .collect();
        if present.len() < 2 {
            return None;
        }
        self.best_prefix(
            feature,
            &present,
            &stats,
            &counts,
            n_missing,
            node_weight,
            true,
        )
    }

    /// CART subset split of unordered categories. Two classes and regression: categories
    /// sorted by class-1 share or mean give the optimal split among prefixes (Breiman et al.
    /// 1984, §9.4). More classes: every partition up to `max_exhaustive_categories` present
    /// categories; beyond, a heuristic order by the share of the node's majority class.
    fn subset(
        &self,
        feature: usize,
        codes: &[Option<u32>],
        k: usize,
        node: &NodeRows,
        node_weight: f64,
    ) -> Option<Candidate> {
        let (stats, counts, n_missing) = self.per_category(codes, k, node);
        let present: Vec<usize> = (0..k)
            .filter(|&c| counts.get(c).copied().unwrap_or(0) > 0)
            .collect();
        if present.len() < 2 {
            return None;
        }
        let n_classes = if self.regression() {
            0
        } else {
            self.target.stats_width()
        };
        if n_classes > 2 && present.len() <= self.max_exhaustive_categories {
            return self.exhaustive_subset(
                feature,
                &present,
                &stats,
                &counts,
                n_missing,
                node_weight,
            );
        }
        let key = |c: usize| -> f64 {
            let s = stats.get(c).map(Vec::as_slice).unwrap_or(&[]);
            let w = self.weight_of(s);
            if w <= 0.0 {
                return 0.0;
            }
            if self.regression() {
                s.get(1).copied().unwrap_or(0.0) / w
            } else {
                let class = if n_classes == 2 {
                    1
                } else {
                    self.majority_class(&stats)
                };
                s.get(class).copied().unwrap_or(0.0) / w
            }
        };
        // Keys rounded to 12 significant digits: categories whose shares differ only by
        // rounding noise sort by code, so the split does not depend on summation order.
        let mut order = present;
        order.sort_by(|&a, &b| {
            round_significant(key(a))
                .total_cmp(&round_significant(key(b)))
                .then(a.cmp(&b))
        });
        self.best_prefix(
            feature,
            &order,
            &stats,
            &counts,
            n_missing,
            node_weight,
            false,
        )
    }

    fn majority_class(&self, stats: &[Vec<f64>]) -> usize {
        let total = sum_rows(stats, self.target.stats_width());
        let mut best = 0;
        for (c, &w) in total.iter().enumerate() {
            if w > total.get(best).copied().unwrap_or(0.0) {
                best = c;
            }
        }
        best
    }

    /// Best split of `order` into a prefix (child 0) and the rest (child 1).
    #[allow(clippy::too_many_arguments)]
    fn best_prefix(
        &self,
        feature: usize,
        order: &[usize],
        stats: &[Vec<f64>],
        counts: &[usize],
        n_missing: usize,
        node_weight: f64,
        ordered: bool,
    ) -> Option<Candidate> {
        let get = |c: usize| stats.get(c).map(Vec::as_slice).unwrap_or(&[]);
        let known = sum_rows(stats, self.target.stats_width());
        let scale = self.criterion.noise_scale(&known);
        let n_known: usize = counts.iter().sum();
        let mut left = self.zero_stats();
        let mut n_left = 0;
        let mut best: Option<(f64, usize)> = None;
        for p in 1..order.len() {
            let c = order.get(p - 1).copied().unwrap_or(0);
            for (l, x) in left.iter_mut().zip(get(c)) {
                *l += x;
            }
            n_left += counts.get(c).copied().unwrap_or(0);
            let right: Vec<f64> = known.iter().zip(&left).map(|(t, l)| t - l).collect();
            if n_left + n_missing < self.min_samples_leaf
                || n_known - n_left + n_missing < self.min_samples_leaf
            {
                continue;
            }
            let part = Partition {
                children: &[left.clone(), right],
                counts: &[n_left, n_known - n_left],
            };
            let (dec, _) = self.decrease(&known, &part);
            if best.is_none_or(|(b, _)| better(dec, b, scale)) {
                best = Some((dec, p));
            }
        }
        let (_, p) = best?;
        let (head, _) = order.split_at(p);
        let k = stats.len();
        if ordered {
            let threshold = head.last().copied().unwrap_or(0) as u32;
            let in_left = |c: usize| c <= threshold as usize;
            return self.binary_from(
                feature,
                SplitRule::Ordered { threshold },
                in_left,
                stats,
                counts,
                n_missing,
                node_weight,
            );
        }
        let mut sides = vec![Side::Unseen; k];
        for &c in order {
            if let Some(s) = sides.get_mut(c) {
                *s = if head.contains(&c) {
                    Side::Left
                } else {
                    Side::Right
                };
            }
        }
        let in_left = |c: usize| sides.get(c) == Some(&Side::Left);
        let rule = SplitRule::Subset {
            sides: sides.clone(),
        };
        self.binary_from(
            feature,
            rule,
            in_left,
            stats,
            counts,
            n_missing,
            node_weight,
        )
    }

    /// Every two-way partition of the present categories; the first present one stays left.
    fn exhaustive_subset(
        &self,
        feature: usize,
        present: &[usize],
        stats: &[Vec<f64>],
        counts: &[usize],
        n_missing: usize,
        node_weight: f64,
    ) -> Option<Candidate> {
        let known = sum_rows(stats, self.target.stats_width());
        let scale = self.criterion.noise_scale(&known);
        let n_known: usize = counts.iter().sum();
        let rest = present.get(1..).unwrap_or(&[]);
        let mut best: Option<(f64, u64)> = None;
        // Bit i of `mask` sends rest[i] left with present[0]; the all-ones mask leaves the
        // right child empty and is skipped.
        for mask in 0..(1u64 << rest.len()) - 1 {
            let mut left = self.zero_stats();
            let mut n_left = 0;
            let mut add = |c: usize| {
                for (l, x) in left
                    .iter_mut()
                    .zip(stats.get(c).map(Vec::as_slice).unwrap_or(&[]))
                {
                    *l += x;
                }
                n_left += counts.get(c).copied().unwrap_or(0);
            };
            add(present.first().copied().unwrap_or(0));
            for (i, &c) in rest.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    add(c);
                }
            }
            if n_left + n_missing < self.min_samples_leaf
                || n_known - n_left + n_missing < self.min_samples_leaf
            {
                continue;
            }
            let right: Vec<f64> = known.iter().zip(&left).map(|(t, l)| t - l).collect();
            let part = Partition {
                children: &[left, right],
                counts: &[n_left, n_known - n_left],
            };
            let (dec, _) = self.decrease(&known, &part);
            if best.is_none_or(|(b, _)| better(dec, b, scale)) {
                best = Some((dec, mask));
            }
        }
        let (_, mask) = best?;
        let mut sides = vec![Side::Unseen; stats.len()];
        if let Some(s) = present.first().and_then(|&c| sides.get_mut(c)) {
            *s = Side::Left;
        }
        for (i, &c) in rest.iter().enumerate() {
            if let Some(s) = sides.get_mut(c) {
                *s = if mask >> i & 1 == 1 {
                    Side::Left
                } else {
                    Side::Right
                };
            }
        }
        let in_left = |c: usize| sides.get(c) == Some(&Side::Left);
        let rule = SplitRule::Subset {
            sides: sides.clone(),
        };
        self.binary_from(
            feature,
            rule,
            in_left,
            stats,
            counts,
            n_missing,
            node_weight,
        )
    }

    /// Builds a two-child candidate from per-category statistics and a side function.
    #[allow(clippy::too_many_arguments)]
    fn binary_from(
        &self,
        feature: usize,
        rule: SplitRule,
        in_left: impl Fn(usize) -> bool,
        stats: &[Vec<f64>],
        counts: &[usize],
        n_missing: usize,
        node_weight: f64,
    ) -> Option<Candidate> {
        let width = self.target.stats_width();
        let mut children = vec![vec![0.0; width], vec![0.0; width]];
        let mut n = [0usize; 2];
        for (c, s) in stats.iter().enumerate() {
            let side = usize::from(!in_left(c));
            if let Some(child) = children.get_mut(side) {
                for (a, x) in child.iter_mut().zip(s) {
                    *a += x;
                }
            }
            if let Some(slot) = n.get_mut(side) {
                *slot += counts.get(c).copied().unwrap_or(0);
            }
        }
        let known = sum_rows(stats, width);
        let part = Partition {
            children: &children,
            counts: &n,
        };
        self.finish(feature, rule, &known, &part, node_weight, n_missing)
    }
}

/// `x` rounded to 12 significant digits.
fn round_significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(11 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// Element-wise sum of statistics vectors.
fn sum_rows(stats: &[Vec<f64>], width: usize) -> Vec<f64> {
    let mut total = vec![0.0; width];
    for s in stats {
        for (t, x) in total.iter_mut().zip(s) {
            *t += x;
        }
    }
    total
}

/// Picks the winning candidate. Gain ratio follows C4.5: the best ratio among candidates whose
/// gain is at least the average gain (Quinlan 1993). Other criteria maximise ρ × decrease.
/// Ties go to the lowest feature index.
pub(crate) fn choose(
    criterion: Criterion,
    candidates: &[Option<Candidate>],
    scale: f64,
) -> Option<&Candidate> {
    let valid: Vec<&Candidate> = candidates.iter().flatten().collect();
    if valid.is_empty() {
        return None;
    }
    let mut best: Option<&Candidate> = None;
    if criterion == Criterion::GainRatio {
        let average = valid.iter().map(|c| c.score.gain).sum::<f64>() / valid.len() as f64;
        for &c in &valid {
            let eligible = !better(average, c.score.gain, scale);
            if eligible && best.is_none_or(|b| better(c.score.score, b.score.score, 0.0)) {
                best = Some(c);
            }
        }
    } else {
        for &c in &valid {
            if best.is_none_or(|b| better(c.score.gain, b.score.gain, scale)) {
                best = Some(c);
            }
        }
    }
    best
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
