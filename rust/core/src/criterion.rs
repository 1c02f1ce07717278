//! Split criteria: node impurities and how candidate splits are compared.
//!
//! A node's statistics are a vector of class weights (classification) or `(w, Σwy, Σwy²)`
//! (regression); see [`crate::data::Target::accumulate`].

use crate::class_sums::{class_sum, sum_over_classes};
use crate::data::Layout;
use crate::error::{CoreError, Result};
use crate::measures::{self, entropy};

/// How a split is scored. A closed set, so an enum: `match` in the hot path is cheaper than a
/// trait object and the compiler checks every criterion is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Criterion {
    /// Information gain (ID3; text 000 eq. 4.2).
    Entropy,
    /// Gain ratio (C4.5; text 000 eq. 4.3), chosen among candidates of at least average gain.
    GainRatio,
    /// Gini index (CART; text 000 eq. 4.5-4.6).
    Gini,
    /// Misclassification error, 1 − max_k p_k.
    Misclassification,
    /// Squared error: variance reduction for regression trees (CART).
    SquaredError,
    /// Likelihood-ratio chi-squared G² = 2 ln 2 · |S| · InformationGain (text 002 §3.5).
    LikelihoodRatio,
    /// DKM impurity 2·sqrt(p1·p2), two classes only (Kearns & Mansour 1999; text 002 §3.6).
    Dkm,
    /// Distance measure: information gain over the joint entropy of branch and class
    /// (López de Mántaras 1991; text 002 §3.9).
    Distance,
    /// Twoing, a binary criterion (Breiman et al. 1984; text 002 §3.11).
    Twoing,
    /// Orthogonal criterion 1 − cos θ(P_left, P_right) (Fayyad & Irani 1992; text 002 §3.12).
    Ort,
    /// Kolmogorov–Smirnov distance between the classes' shares sent left (Friedman 1977;
    /// text 002 §3.13); with more classes, the largest over class pairs (after Utgoff &
    /// Clouse 1996).
    KolmogorovSmirnov,
    /// Area under the convex hull of the split's ROC curve, two classes only (Ferri et al.
    /// 2002; text 002 §3.14).
    Auc,
    /// Squared error with splits scored by Friedman's improvement w_L·w_R/(w_L + w_R)·(ȳ_L −
    /// ȳ_R)² (Friedman 2001, "Greedy function approximation", eq. 35; scikit-learn's
    /// "friedman_mse"). That is the node's weight times its variance reduction, so it ranks a
    /// node's splits exactly as squared error does; only the reported score differs.
    FriedmanMse,
    /// Absolute error: a node predicts its weighted median and its impurity is the mean
    /// absolute deviation from it (scikit-learn's "absolute_error"). No fixed set of sums
    /// gives a median, so its scans read the node's rows ([`crate::split`]'s `absolute`).
    AbsoluteError,
    /// Half Poisson deviance Σw·y·ln(y/ȳ)/Σw of a node predicting its mean ȳ (scikit-learn's
    /// "poisson"), for counts and rates: y ≥ 0, and a child whose targets sum to 0 (a zero
    /// prediction) is not a valid split.
    Poisson,
}

/// scikit-learn's name for the entropy criterion: the same trees, recorded as "entropy".
const ALIASES: [(Criterion, &str); 1] = [(Criterion::Entropy, "log_loss")];

/// Every criterion with its name, in the order the error message lists them.
const NAMES: [(Criterion, &str); 15] = [
    (Criterion::Entropy, "entropy"),
    (Criterion::GainRatio, "gain_ratio"),
    (Criterion::Gini, "gini"),
    (Criterion::Misclassification, "misclassification"),
    (Criterion::SquaredError, "squared_error"),
    (Criterion::LikelihoodRatio, "likelihood_ratio"),
    (Criterion::Dkm, "dkm"),
    (Criterion::Distance, "distance"),
    (Criterion::Twoing, "twoing"),
    (Criterion::Ort, "ort"),
    (Criterion::KolmogorovSmirnov, "kolmogorov_smirnov"),
    (Criterion::Auc, "auc"),
    (Criterion::FriedmanMse, "friedman_mse"),
    (Criterion::AbsoluteError, "absolute_error"),
    (Criterion::Poisson, "poisson"),
];

impl Criterion {
    /// The criterion called `name`, scikit-learn's aliases included.
    pub fn parse(name: &str) -> Result<Self> {
        NAMES
            .iter()
            .chain(&ALIASES)
            .find(|(_, n)| *n == name)
            .map(|(c, _)| *c)
            .ok_or_else(|| {
                let known: Vec<String> = NAMES
                    .iter()
                    .chain(&ALIASES)
                    .map(|(_, n)| format!("{n:?}"))
                    .collect();
                CoreError::InvalidParameter {
                    name: "criterion",
                    reason: format!(
                        "unknown criterion {name:?}; expected one of {}",
                        known.join(", ")
                    ),
                }
            })
    }

    /// The table names every criterion, so "unknown" is never read.
    pub fn name(&self) -> &'static str {
        NAMES
            .iter()
            .find(|(c, _)| c == self)
            .map_or("unknown", |(_, n)| n)
    }

    /// Criteria defined for two classes only.
    pub fn needs_two_classes(&self) -> bool {
        matches!(self, Criterion::Dkm | Criterion::Auc)
    }

    /// Criteria that score a division into exactly two parts (text 002 §3.10), so they cannot
    /// score a multiway split.
    pub fn is_binary_split_criterion(&self) -> bool {
        matches!(
            self,
            Criterion::Twoing | Criterion::Ort | Criterion::KolmogorovSmirnov
        )
    }

    /// Whether the split's quality is the decrease of this criterion's node impurity (the
    /// others score the partition by a formula of their own).
    pub(crate) fn is_impurity_decrease(&self) -> bool {
        matches!(
            self,
            Criterion::Entropy
                | Criterion::GainRatio
                | Criterion::Gini
                | Criterion::Misclassification
                | Criterion::SquaredError
                | Criterion::LikelihoodRatio
                | Criterion::Dkm
                | Criterion::FriedmanMse
                | Criterion::AbsoluteError
                | Criterion::Poisson
        )
    }

    pub fn is_regression(&self) -> bool {
        matches!(
            self,
            Criterion::SquaredError
                | Criterion::FriedmanMse
                | Criterion::AbsoluteError
                | Criterion::Poisson
        )
    }

    /// Whether a node's impurity is a function of its statistics vector. Absolute error's is
    /// not (a median needs the rows): its scans work from the rows, and histograms of sums are
    /// of no use to it.
    pub(crate) fn is_additive(&self) -> bool {
        !matches!(self, Criterion::AbsoluteError)
    }

    /// Whether the search may take regression targets as `y − c` to keep digits (see
    /// [`crate::data::Target::accumulate_around`]): true where the impurity does not move
    /// with a shift of y; the Poisson deviance does (and needs y ≥ 0).
    pub(crate) fn centres_targets(&self) -> bool {
        self.is_regression() && *self != Criterion::Poisson
    }

    /// Criteria whose reported score is the split's weighted child impurity (lower is better)
    /// rather than a gain, as the texts print them (text 000 eq. 4.6 for the Gini index).
    pub(crate) fn reports_child_impurity(&self) -> bool {
        matches!(
            self,
            Criterion::Gini
                | Criterion::Misclassification
                | Criterion::SquaredError
                | Criterion::Dkm
                | Criterion::AbsoluteError
        )
    }

    /// The magnitude that rounding noise in this criterion's scores is relative to, for
    /// [`better`]: E[y²] for squared error (Σwy²/Σw − ȳ² loses digits in proportion to it);
    /// its square root for absolute error (prefix sums of w·y, in y's units); ȳ·(1 + |ln ȳ|)
    /// for the Poisson deviance (sums of S·ln ȳ); 1 for the class impurities (bounded by log2
    /// of the class count).
    pub(crate) fn noise_scale(&self, stats: &[f64]) -> f64 {
        match (self, stats) {
            (Criterion::SquaredError | Criterion::FriedmanMse, [w, _, ss]) if *w > 0.0 => ss / w,
            (Criterion::AbsoluteError, [w, _, ss]) if *w > 0.0 => (ss / w).max(0.0).sqrt(),
            (Criterion::Poisson, [w, s, _]) if *w > 0.0 && *s > 0.0 => {
                let mean = s / w;
                mean * (1.0 + mean.ln().abs())
            }
            _ => 1.0,
        }
    }

    /// Impurity of a node with statistics `stats`. Criteria that are not impurity decreases
    /// keep the impurity their authors grew trees with: entropy for the information-based
    /// ones, Gini for the binary criteria (CART's).
    ///
    /// Two regression criteria are not fully told by `(Σw, Σwy, Σwy²)`: the Poisson deviance
    /// here lacks Σw·y·ln(y)/Σw, a term every partition of the same rows shares, so
    /// decreases are exact (scikit-learn's proxy drops it too) and the node's own impurity
    /// comes from its rows ([`Self::regression_node`]); absolute error is NaN, its scans
    /// computing impurities from rows.
    #[inline]
    pub fn impurity(&self, stats: &[f64]) -> f64 {
        match self {
            Criterion::Entropy
            | Criterion::GainRatio
            | Criterion::LikelihoodRatio
            | Criterion::Distance => entropy(stats),
            Criterion::Gini
            | Criterion::Twoing
            | Criterion::Ort
            | Criterion::KolmogorovSmirnov
            | Criterion::Auc => gini(stats),
            Criterion::Misclassification => misclassification(stats),
            Criterion::SquaredError | Criterion::FriedmanMse => variance(stats),
            Criterion::Dkm => measures::dkm(stats),
            Criterion::Poisson => poisson_less_ylogy(stats, POISSON_ZERO_SUM),
            Criterion::AbsoluteError => f64::NAN,
        }
    }

    /// A regression node's prediction and impurity from its rows' `(y, w)` (`rows()` is
    /// walked once or twice): the mean and the variance (squared error, Friedman), the mean
    /// and the half Poisson deviance, or the weighted median and the mean absolute deviation
    /// from it. Sums run around the mean, so a node whose targets are all equal gets exactly
    /// 0 whatever their magnitude; `None` for a node without weight.
    pub(crate) fn regression_node<I>(&self, rows: impl Fn() -> I) -> Option<(f64, f64)>
    where
        I: Iterator<Item = (f64, f64)>,
    {
        if *self == Criterion::AbsoluteError {
            let mut rows: Vec<(f64, f64)> = rows().collect();
            return crate::median::absolute_error(&mut rows);
        }
        let (w, wy) = rows().fold((0.0, 0.0), |(w, s), (y, wi)| (w + wi, s + wi * y));
        if w <= 0.0 {
            return None;
        }
        let mean = wy / w;
        let loss: f64 = if self.loss_is_zero(mean) {
            0.0
        } else {
            rows()
                .filter_map(|(y, wi)| self.loss_term(mean, y, wi))
                .sum()
        };
        Some((mean, loss / w))
    }

    /// A row's term of a regression node's loss about the node's mean (summed in row order
    /// from -0.0 by [`Self::regression_node`], and batch by batch by `crate::stream`); `None`
    /// for a row that adds nothing. Squared error: w(y − ȳ)². Poisson, scikit-learn's
    /// poisson_loss: w·xlogy(y, y/ȳ), nothing where y = 0.
    pub(crate) fn loss_term(&self, mean: f64, y: f64, w: f64) -> Option<f64> {
        match self {
            Criterion::Poisson => (y != 0.0).then(|| w * y * (y / mean).ln()),
            _ => {
                let d = y - mean;
                Some(w * d * d)
            }
        }
    }

    /// Whether a regression node's loss is 0 whatever its rows: a Poisson node whose targets
    /// are all 0 (ȳ = 0) predicts them exactly.
    pub(crate) fn loss_is_zero(&self, mean: f64) -> bool {
        *self == Criterion::Poisson && mean <= 0.0
    }

    /// The quality of a partition of the known rows into `children` (what the search
    /// maximises, before C4.5's ρ): the impurity decrease `base − child_impurity` for the
    /// impurity criteria, the criterion's own formula for the others.
    pub(crate) fn partition_quality(
        &self,
        known: &[f64],
        children: &[&[f64]],
        base: f64,
        child_impurity: f64,
    ) -> f64 {
        // The binary-split criteria see two children only (`check_criterion` refuses them a
        // multiway split), so their 0.0 is never read.
        match self {
            Criterion::Distance => {
                let joint = measures::joint_entropy(children);
                if joint > 0.0 {
                    (base - child_impurity) / joint
                } else {
                    0.0
                }
            }
            Criterion::Twoing => {
                measures::two_parts(children).map_or(0.0, |(l, r)| measures::twoing(l, r))
            }
            Criterion::Ort => {
                measures::two_parts(children).map_or(0.0, |(l, r)| measures::ort(l, r))
            }
            Criterion::KolmogorovSmirnov => measures::two_parts(children)
                .map_or(0.0, |(l, _)| measures::kolmogorov_smirnov(l, known)),
            Criterion::Auc => measures::auc(children),
            _ => base - child_impurity,
        }
    }
}

/// A criterion with the data it needs beyond node statistics: a cost matrix turns the Gini
/// index into Σ_{k≠k'} L_kk' p_k p_k' (text 004 eq. 8); a node's sum of targets tells the
/// Poisson deviance which of its children's sums are 0 ([`Self::at_node_sum`]); other
/// criteria ignore both. With several outputs, `layout` says where each output's statistics
/// lie: the impurity is the mean of the outputs' impurities (scikit-learn's multi-output
/// criteria).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Measure<'a> {
    pub criterion: Criterion,
    pub costs: Option<&'a [f64]>,
    /// Poisson: the sum of targets at or below which a child predicts 0.
    pub zero_sum: f64,
    pub layout: Layout<'a>,
}

impl<'a> Measure<'a> {
    pub fn new(criterion: Criterion, costs: Option<&'a [f64]>, layout: Layout<'a>) -> Self {
        Measure {
            criterion,
            costs,
            zero_sum: POISSON_ZERO_SUM,
            layout,
        }
    }

    /// This measure at a node whose targets sum to `sum`. A child's sum is the parent's less
    /// its sibling's (in scans and histograms), so a child of zero targets is left with the
    /// rounding of the parent's sum, often above scikit-learn's absolute EPSILON: relative to
    /// the node's sum, 1e-12 of it is no real child's.
    pub fn at_node_sum(self, sum: f64) -> Self {
        Measure {
            zero_sum: POISSON_ZERO_SUM.max(1e-12 * sum.abs()),
            ..self
        }
    }

    #[inline(always)]
    pub fn impurity(&self, stats: &[f64]) -> f64 {
        match (self.criterion, self.costs, self.layout) {
            (Criterion::Gini, Some(costs), Layout::One) => cost_gini(stats, costs),
            // The common criteria spelled out, so that they inline into the threshold scans
            // (`Criterion::impurity` is too large to).
            (Criterion::Gini, None, Layout::One) => gini(stats),
            (Criterion::Entropy | Criterion::GainRatio, None, Layout::One) => entropy(stats),
            (Criterion::SquaredError | Criterion::FriedmanMse, _, Layout::One) => variance(stats),
            (Criterion::Poisson, _, Layout::One) => poisson_less_ylogy(stats, self.zero_sum),
            (criterion, _, Layout::One) => criterion.impurity(stats),
            _ => self.mean_impurity(stats),
        }
    }

    /// Several outputs' impurity, out of line so that the single-output arms stay small
    /// enough to inline into the threshold scans.
    #[inline(never)]
    fn mean_impurity(&self, stats: &[f64]) -> f64 {
        self.layout
            .mean_over_outputs(stats, |s| self.criterion.impurity(s))
    }

    /// Total weight of a statistics vector (every output holds the same weight, so the
    /// first output's).
    #[inline(always)]
    pub fn weight(&self, stats: &[f64]) -> f64 {
        match self.layout {
            Layout::One => stats_weight(stats, self.criterion.is_regression()),
            Layout::Classes(_) => self.layout.first_output(stats).iter().sum(),
            Layout::Values(_) => stats_weight(stats, true),
        }
    }

    /// [`Criterion::noise_scale`], averaged over the outputs as the impurity is.
    pub fn noise_scale(&self, stats: &[f64]) -> f64 {
        self.layout
            .mean_over_outputs(stats, |s| self.criterion.noise_scale(s))
    }
}

/// Cost-weighted Gini Σ_{k≠k'} L_kk' p_k p_k' with `costs` row-major k × k (text 004 eq. 8);
/// with unit costs it equals 1 − Σ p_k².
pub fn cost_gini(counts: &[f64], costs: &[f64]) -> f64 {
    let total: f64 = counts.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    let mut sum = 0.0;
    // Row i of the k × k matrix parameter validation sized.
    for (i, (&ci, row)) in counts
        .iter()
        .zip(costs.chunks_exact(counts.len().max(1)))
        .enumerate()
    {
        for (j, (&cj, &cost)) in counts.iter().zip(row).enumerate() {
            if i != j {
                sum += cost * (ci / total) * (cj / total);
            }
        }
    }
    sum
}

/// Total weight of a statistics vector. A regression vector is (Σw, Σwy, Σwy²) (a
/// [`crate::data::Target`]'s width), so its 0.0 is never read.
#[inline(always)]
pub(crate) fn stats_weight(stats: &[f64], regression: bool) -> f64 {
    if regression {
        stats.first().copied().unwrap_or(0.0)
    } else {
        class_sum(stats)
    }
}

/// Gini(D) = 1 − Σ p_k².
#[inline]
pub fn gini(counts: &[f64]) -> f64 {
    let total = class_sum(counts);
    if total <= 0.0 {
        return 0.0;
    }
    1.0 - sum_over_classes(counts, |c| (c / total) * (c / total))
}

/// Misclassification error 1 − max_k p_k.
pub fn misclassification(counts: &[f64]) -> f64 {
    let total: f64 = counts.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    1.0 - counts.iter().copied().fold(0.0, f64::max) / total
}

/// Weighted variance Σw(y − ȳ)²/Σw from `(w, Σwy, Σwy²)`, clamped at 0 against rounding.
#[inline]
pub fn variance(stats: &[f64]) -> f64 {
    match stats {
        [w, s, ss] if *w > 0.0 => {
            let mean = s / w;
            (ss / w - mean * mean).max(0.0)
        }
        _ => 0.0,
    }
}

/// Below this sum of targets a Poisson node predicts 0, which the deviance cannot take:
/// scikit-learn's EPSILON (`sklearn/tree/_criterion.pyx`), which also absorbs the rounding of
/// a child's sum computed as the parent's minus its sibling's.
const POISSON_ZERO_SUM: f64 = 10.0 * f64::EPSILON;

/// The half Poisson deviance of `(Σw, Σwy, ·)` less Σw·y·ln(y)/Σw: −ȳ·ln ȳ. +∞ when the
/// targets sum to at most `zero_sum` (about 0), so that a split with such a child is never
/// chosen, as in scikit-learn.
pub fn poisson_less_ylogy(stats: &[f64], zero_sum: f64) -> f64 {
    match stats {
        [w, s, ..] if *w > 0.0 && *s > zero_sum => {
            let mean = s / w;
            -mean * mean.ln()
        }
        [w, ..] if *w > 0.0 => f64::INFINITY,
        _ => 0.0,
    }
}

/// Split information −Σ p_v log2 p_v of the weights sent to each outcome (text 000 eq. 4.4).
pub fn split_information(weights: impl IntoIterator<Item = f64>) -> f64 {
    let weights: Vec<f64> = weights.into_iter().filter(|&w| w > 0.0).collect();
    entropy(&weights)
}

/// p-value of the likelihood-ratio test of independence (G², text 002 §3.5) on a table of
/// class weights, one row per branch: G² = 2 Σ O ln(O/E) with E the product of the margins
/// over the total, χ² with (branches − 1)(classes − 1) degrees of freedom over the non-empty
/// rows and columns. 1 when there is nothing to test.
pub fn g_test_p_value(table: &[Vec<f64>]) -> f64 {
    let rows: Vec<f64> = table.iter().map(|r| r.iter().sum()).collect();
    // Each class's total over the branches (a shorter row holds no weight in the rest).
    let mut cols: Vec<f64> = Vec::new();
    for row in table {
        if cols.len() < row.len() {
            cols.resize(row.len(), 0.0);
        }
        cols.iter_mut().zip(row).for_each(|(c, o)| *c += o);
    }
    let n: f64 = rows.iter().sum();
    let mut g2 = 0.0;
    for (row, &rt) in table.iter().zip(&rows) {
        for (&o, &ct) in row.iter().zip(&cols) {
            if o > 0.0 {
                g2 += o * (o * n / (rt * ct)).ln();
            }
        }
    }
    g2 *= 2.0;
    let df = (rows.iter().filter(|&&r| r > 0.0).count().saturating_sub(1))
        * (cols.iter().filter(|&&c| c > 0.0).count().saturating_sub(1));
    if df == 0 || n <= 0.0 {
        return 1.0;
    }
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    // df ≥ 1 here, which the distribution takes: the 1.0 is never read.
    ChiSquared::new(df as f64).map_or(1.0, |d| d.sf(g2.max(0.0)))
}

/// `a` beats `b` only by more than floating-point noise (relative 1e-9 of the larger value or
/// of `scale`): equal scores are ties, broken by the caller's order, never by rounding luck.
#[inline]
pub(crate) fn better(a: f64, b: f64, scale: f64) -> bool {
    a > b + 1e-9 * a.abs().max(b.abs()).max(scale.abs())
}

/// What every score [`better`] than `b` exceeds (its tolerance without the candidate's own
/// magnitude, which only raises it): a bound below which a scan may skip a cut.
#[inline]
pub(crate) fn least_better(b: f64, scale: f64) -> f64 {
    b + 1e-9 * b.abs().max(scale.abs())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn entropy_of_watermelon_root() {
        // 8 ripe, 9 unripe (text 000: Ent(D) = 0.998).
        assert!(close(entropy(&[8.0, 9.0]), 0.9975));
        assert_eq!(entropy(&[5.0, 0.0]), 0.0);
        assert!(close(entropy(&[1.0, 1.0, 1.0, 1.0]), 2.0));
    }

    /// The sums that skip zero class weights (total, Gini, entropy) are the full sums, to
    /// the bit: zeros of both
    /// signs, residues below 0, all-zero and empty vectors, narrow and wide.
    #[test]
    fn sums_over_present_classes_are_the_full_sums() {
        let mut state = 7u64;
        let mut next = |n: u64| {
            state = crate::test_draws::step(state);
            (state >> 33) % n
        };
        let mut cases: Vec<Vec<f64>> = vec![
            vec![],
            vec![0.0; 12],
            vec![-0.0; 12],
            [vec![-0.0; 6], vec![0.0; 6]].concat(),
            [vec![0.0; 10], vec![1e-17, -1e-17]].concat(),
        ];
        for _ in 0..500 {
            let width = 1 + next(40) as usize;
            cases.push(
                (0..width)
                    .map(|_| match next(6) {
                        0 => 0.0,
                        1 => -0.0,
                        2 => -(next(3) as f64) * 1e-17,
                        3 => 1.0,
                        _ => next(1000) as f64 / 37.0,
                    })
                    .collect(),
            );
        }
        for counts in &cases {
            let total: f64 = counts.iter().sum();
            assert_eq!(class_sum(counts).to_bits(), total.to_bits(), "{counts:?}");
            let full = if total <= 0.0 {
                0.0
            } else {
                1.0 - counts
                    .iter()
                    .map(|&c| (c / total) * (c / total))
                    .sum::<f64>()
            };
            assert_eq!(gini(counts).to_bits(), full.to_bits(), "{counts:?}");
            let sum: f64 = counts
                .iter()
                .filter(|&&c| c > 0.0)
                .map(|&c| (c / total) * (c / total).log2())
                .sum();
            let full = if total <= 0.0 { 0.0 } else { (-sum).max(0.0) };
            assert_eq!(entropy(counts).to_bits(), full.to_bits(), "{counts:?}");
        }
    }

    #[test]
    fn gini_and_error_by_hand() {
        // p = (0.25, 0.75): Gini = 1 − 0.0625 − 0.5625 = 0.375; error = 0.25.
        assert!(close(gini(&[1.0, 3.0]), 0.375));
        assert!(close(misclassification(&[1.0, 3.0]), 0.25));
        assert_eq!(gini(&[0.0, 0.0]), 0.0);
    }

    #[test]
    fn cost_gini_by_hand() {
        // Unit costs reproduce Gini: p = (0.25, 0.75) → 2 × 0.25 × 0.75 = 0.375.
        assert!(close(cost_gini(&[1.0, 3.0], &[0.0, 1.0, 1.0, 0.0]), 0.375));
        // Three classes, p = (0.5, 0.25, 0.25), L_12 = 4, others 1:
        // 4·0.5·0.25 + 1·0.5·0.25 + 1·0.25·0.5 + 1·0.25·0.25 + 1·0.25·0.5 + 1·0.25·0.25
        // = 0.5 + 0.125 + 0.125 + 0.0625 + 0.125 + 0.0625 = 1.0.
        let costs = [0.0, 4.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0];
        assert!(close(cost_gini(&[2.0, 1.0, 1.0], &costs), 1.0));
    }

    #[test]
    fn g_test_by_hand() {
        // Perfect association, 10 and 10: E = 5 everywhere, G² = 2·(10 ln 2 + 10 ln 2) = 27.73,
        // df = 1 → p = P(χ²₁ > 27.73) ≈ 1.4e-7.
        let p = g_test_p_value(&[vec![10.0, 0.0], vec![0.0, 10.0]]);
        assert!(p > 1e-7 && p < 2e-7, "{p}");
        // Independence: G² = 0, p = 1.
        assert!(close(
            g_test_p_value(&[vec![5.0, 5.0], vec![5.0, 5.0]]),
            1.0
        ));
        // One branch: nothing to test.
        assert_eq!(g_test_p_value(&[vec![3.0, 4.0]]), 1.0);
    }

    #[test]
    fn variance_by_hand() {
        // y = 1, 2, 3 with unit weights: mean 2, variance 2/3.
        assert!(close(variance(&[3.0, 6.0, 14.0]), 2.0 / 3.0));
        // Weight 2 on y = 3 is the same as duplicating it.
        assert!(close(
            variance(&[4.0, 9.0, 23.0]),
            variance(&[4.0, 1.0 + 2.0 + 3.0 + 3.0, 1.0 + 4.0 + 9.0 + 9.0])
        ));
    }

    /// y = 1, 2, 6 with weights 1, 1, 2: W = 4, ȳ = 15/4 = 3.75.
    const ROWS: [(f64, f64); 3] = [(1.0, 1.0), (2.0, 1.0), (6.0, 2.0)];

    #[test]
    fn regression_nodes_by_hand() {
        let node = |c: Criterion| c.regression_node(|| ROWS.iter().copied()).unwrap();
        // Σw(y − 3.75)² = 7.5625 + 3.0625 + 2·5.0625 = 20.75; / 4.
        let (mean, var) = node(Criterion::SquaredError);
        assert_eq!(mean, 3.75);
        assert!(close(var, 20.75 / 4.0));
        assert_eq!(node(Criterion::FriedmanMse), (mean, var));
        // Σw·y·ln(y/3.75) = ln(1/3.75) + 2 ln(2/3.75) + 12 ln(6/3.75) = 3.06107; / 4.
        let (mean, deviance) = node(Criterion::Poisson);
        assert_eq!(mean, 3.75);
        assert!(close(deviance, 0.765268));
        // Half the weight (2) is reached exactly at y = 2: the median is (2 + 6) / 2 = 4;
        // Σw|y − 4| = 3 + 2 + 2·2 = 9; / 4.
        assert_eq!(node(Criterion::AbsoluteError), (4.0, 2.25));
        // Targets all 0: a Poisson node predicting 0 has no deviance.
        let zeros = [(0.0, 1.0), (0.0, 3.0)];
        assert_eq!(
            Criterion::Poisson.regression_node(|| zeros.iter().copied()),
            Some((0.0, 0.0))
        );
        assert_eq!(
            Criterion::SquaredError.regression_node(std::iter::empty),
            None
        );
    }

    #[test]
    fn poisson_statistics_give_exact_decreases() {
        // The statistics lack Σw·y·ln y / W = (2 ln 2 + 12 ln 6) / 4 = 5.72185: the impurity
        // from them is −ȳ ln ȳ = −4.95658, the node's deviance less that term.
        let stats = [4.0, 15.0, 0.0];
        assert!(close(
            poisson_less_ylogy(&stats, POISSON_ZERO_SUM),
            -4.956584
        ));
        // A child whose targets sum to 0 predicts 0: infinitely bad, never chosen.
        assert_eq!(
            poisson_less_ylogy(&[2.0, 0.0, 0.0], POISSON_ZERO_SUM),
            f64::INFINITY
        );
        assert_eq!(poisson_less_ylogy(&[0.0, 0.0, 0.0], POISSON_ZERO_SUM), 0.0);
        // Splitting {1, 2} from {6, 6}: the decrease from statistics equals the difference of
        // the deviances computed from rows, (A − S ln ȳ)/W each.
        let (left, right) = ([2.0, 3.0, 0.0], [2.0, 12.0, 0.0]);
        let from_stats = poisson_less_ylogy(&stats, POISSON_ZERO_SUM)
            - 0.5 * poisson_less_ylogy(&left, POISSON_ZERO_SUM)
            - 0.5 * poisson_less_ylogy(&right, POISSON_ZERO_SUM);
        let deviance = |rows: &[(f64, f64)]| {
            Criterion::Poisson
                .regression_node(|| rows.iter().copied())
                .unwrap()
                .1
        };
        let from_rows = deviance(&ROWS)
            - 0.5 * deviance(&[(1.0, 1.0), (2.0, 1.0)])
            - 0.5 * deviance(&[(6.0, 2.0)]);
        assert!(close(from_stats, from_rows));
    }

    #[test]
    fn friedman_score_by_hand() {
        // x = 1, 2, 3 → the split {1, 2} | {6, 6}: w_L·w_R/(w_L + w_R)·(ȳ_L − ȳ_R)² =
        // 2·2/4·(1.5 − 6)² = 20.25, the weight 4 times the variance reduction 5.0625.
        let x = [1.0, 2.0, 3.0];
        let y = [1.0, 2.0, 6.0];
        let data = crate::data::Dataset::new(vec![crate::data::Column::numeric(&x)]).unwrap();
        let target = crate::data::Target::Values(&y);
        let weights = [1.0, 1.0, 2.0];
        let score = |c: Criterion| {
            let binary = crate::params::CategoricalSplit::Binary;
            let first = crate::scores::split_scores(&data, &target, &weights, c, binary).unwrap()
                [0]
            .unwrap();
            (first.score, first.gain)
        };
        let (friedman, gain) = score(Criterion::FriedmanMse);
        assert!(close(friedman, 20.25) && close(gain, 5.0625));
        // Squared error reports the weighted child variance: (2/4)·0.25 + 0.
        let (child, same_gain) = score(Criterion::SquaredError);
        assert!(close(child, 0.125) && close(same_gain, gain));
    }

    #[test]
    fn split_information_of_surface() {
        // surface on watermelon 2.0: 12 hard, 5 soft → IV = 0.874 (text 000).
        assert!(close(split_information([12.0, 5.0]), 0.8740));
    }

    #[test]
    fn ties_are_noise_tolerant() {
        assert!(!better(0.458 + 1e-15, 0.458, 0.0));
        assert!(better(0.459, 0.458, 0.0));
        // Nothing at or below `least_better` is better; just above it (relative to the
        // larger tolerance of a large candidate) is.
        for (b, scale) in [(0.458, 0.0), (-3.0, 1.0), (0.0, 1.0), (1e6, 1.0)] {
            let least = least_better(b, scale);
            assert!(!better(least, b, scale));
            assert!(better(least + 2e-9 * least.abs().max(scale), b, scale));
        }
    }

    #[test]
    fn parse_names_round_trip() {
        for name in [
            "entropy",
            "gain_ratio",
            "gini",
            "misclassification",
            "squared_error",
        ] {
            assert_eq!(Criterion::parse(name).map(|c| c.name()), Ok(name));
        }
        assert!(Criterion::parse("bogus").is_err());
        // scikit-learn's name for entropy grows, and records, entropy.
        assert_eq!(Criterion::parse("log_loss"), Ok(Criterion::Entropy));
        for name in ["friedman_mse", "absolute_error", "poisson"] {
            let c = Criterion::parse(name);
            assert_eq!(c.map(|c| (c.name(), c.is_regression())), Ok((name, true)));
        }
    }
}
