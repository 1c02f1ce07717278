//! Multivariate (oblique) splits `Σ w_i · x_i <= t` over the numeric features (text 000 §4.5,
//! text 004 §4).
//!
//! The direction starts from Fisher's discriminant between the node's two heaviest classes
//! (ridge regression for a real target), computed on standardised features, and is refined
//! by a coordinate search on the criterion, as OC1 does (Murthy, Kasif & Salzberg 1994). The
//! threshold of every direction tried is the best midpoint of the projected values, found by
//! the same scan as a numeric feature's. A row missing any feature of the test is missing for
//! the test and follows C4.5's fractional rule like any other.

use nalgebra::{DMatrix, DVector};

use super::{better, Candidate, NodeRows, Ranks, Searcher, SplitRule};
use crate::criterion::Criterion;
use crate::data::{Column, Target};
use crate::routing::{linear_value, Values};

/// Coordinate-search steps, as multiples of the largest coefficient (OC1 perturbs one
/// coefficient at a time; zero drops the feature): coarse to find the basin, fine to settle.
const STEPS: [f64; 12] = [
    -1.0, -0.5, -0.25, -0.1, -0.03, -0.01, 0.01, 0.03, 0.1, 0.25, 0.5, 1.0,
];
/// At most this many passes over all coefficients; a pass that improves nothing ends it.
const PASSES: usize = 5;
/// Ridge added to the scatter matrix, relative to its mean diagonal, so that collinear
/// features still give a direction.
const RIDGE: f64 = 1e-3;

impl Searcher<'_, '_> {
    /// The best oblique test over the numeric features at a node, or `None` when fewer than
    /// two numeric features vary over the rows where all are known. `values` reads the
    /// features (the class-majority strategy fills missing cells in).
    pub(crate) fn oblique<V: Values + ?Sized>(
        &self,
        node: &NodeRows,
        node_weight: f64,
        values: &V,
    ) -> Option<Candidate> {
        let columns = self.data.columns();
        let known = |f: usize, r: usize| !values.number(f, r).is_nan();
        let complete: Vec<(usize, f64)> = node
            .iter()
            .filter(|&(r, _)| numeric_features(columns).all(|f| known(f, r)))
            .collect();
        let (features, mean, scale) = standardisation(columns, values, &complete);
        if features.len() < 2 {
            return None;
        }
        // Row `r`'s standardised features, in the order of `features`.
        let standardised = |r: usize| {
            let axes = features.iter().zip(&mean).zip(&scale);
            axes.map(move |((&f, m), s)| (values.number(f as usize, r) - m) / s)
        };
        let point = |r: usize| DVector::from_vec(standardised(r).collect());
        let start = self.initial_direction(&complete, features.len(), &point)?;
        // Absolute error ranks the node's targets once for every direction tried; Poisson
        // tells zero sums relative to the node's.
        let ranks = if self.criterion.is_additive() {
            None
        } else {
            self.ranks(node)
        };
        let mut total = self.zero_stats();
        for (r, w) in node.iter() {
            self.target.accumulate(&mut total, r, w);
        }
        let this = self.with_node_sum(&total);
        // Candidates are compared in standardised space; the winner is re-expressed over the
        // raw features and its threshold re-scanned there, so the stored test routes the
        // training rows exactly as scored.
        let evaluate = |w: &[f64]| -> Option<Candidate> {
            let project = |r: usize| -> f64 {
                if !features.iter().all(|&f| known(f as usize, r)) {
                    return f64::NAN;
                }
                w.iter().zip(standardised(r)).map(|(wk, x)| wk * x).sum()
            };
            // A test that only separates known from missing projections is no linear test:
            // the axis-parallel search offers that split on each feature.
            this.numeric(
                usize::MAX,
                project,
                node,
                node_weight,
                None,
                ranks.as_ref(),
                None,
            )
            .filter(|c| c.score.threshold.is_finite())
        };
        let mut best_w = start;
        let mut best = evaluate(&best_w)?;
        for _ in 0..PASSES {
            let before = self.key(&best);
            for k in 0..best_w.len() {
                let size = best_w.iter().fold(0.0f64, |m, w| m.max(w.abs()));
                let current = best_w.get(k).copied().unwrap_or(0.0); // k < its length: never read
                let trials: Vec<f64> = STEPS
                    .iter()
                    .map(|s| current + s * size)
                    .chain(std::iter::once(0.0))
                    .collect();
                for trial in trials {
                    // Each trial scans the node's rows: a large root's search is long.
                    if self.stopped() {
                        return None;
                    }
                    let mut w = best_w.clone();
                    if let Some(slot) = w.get_mut(k) {
                        *slot = trial;
                    }
                    if let Some(c) = evaluate(&w) {
                        if better(self.key(&c), self.key(&best), 1.0) {
                            best = c;
                            best_w = w;
                        }
                    }
                }
            }
            if !better(self.key(&best), before, 1.0) {
                break;
            }
        }
        this.raw_test(
            &features,
            &scale,
            &best_w,
            node,
            node_weight,
            values,
            ranks.as_ref(),
        )
    }

    /// What oblique and axis candidates are compared by: the gain ratio for C4.5's
    /// criterion, ρ × quality otherwise.
    pub(crate) fn key(&self, c: &Candidate) -> f64 {
        if self.criterion == Criterion::GainRatio {
            c.score.score
        } else {
            c.score.gain
        }
    }

    /// Fisher's discriminant (S_w + λI)⁻¹(μ_a − μ_b) between the two heaviest classes, or the
    /// ridge coefficients (XᵀWX + λI)⁻¹XᵀW(y − ȳ) for a real target, on standardised
    /// features (`x(r)`: row `r`'s, `d` of them).
    fn initial_direction(
        &self,
        rows: &[(usize, f64)],
        d: usize,
        x: &impl Fn(usize) -> DVector<f64>,
    ) -> Option<Vec<f64>> {
        let mut scatter = DMatrix::<f64>::zeros(d, d);
        let target_side = match self.target {
            Target::Classes { codes, n_classes } => {
                let mut weight = vec![0.0; *n_classes];
                let mut sums = vec![DVector::<f64>::zeros(d); *n_classes];
                // Rows are the target's (here and below): the class 0 is never read.
                for &(r, w) in rows {
                    let c = codes.get(r).copied().unwrap_or(0) as usize;
                    if let (Some(wc), Some(s)) = (weight.get_mut(c), sums.get_mut(c)) {
                        *wc += w;
                        *s += x(r) * w;
                    }
                }
                // The classes by weight, heaviest first (equal weights by code).
                let mut order: Vec<(f64, usize)> = weight.iter().copied().zip(0..).collect();
                order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let [(_, a), (wb, b), ..] = order[..] else {
                    return None;
                };
                if wb <= 0.0 {
                    return None;
                }
                let means: Vec<DVector<f64>> = sums
                    .iter()
                    .zip(&weight)
                    .map(|(s, &w)| if w > 0.0 { s / w } else { s.clone() })
                    .collect();
                for &(r, w) in rows {
                    let c = codes.get(r).copied().unwrap_or(0) as usize;
                    let centred = x(r) - means.get(c)?;
                    scatter += &centred * centred.transpose() * w;
                }
                means.get(a)? - means.get(b)?
            }
            Target::Values(y) => {
                // Rows are the target's: the 0.0 is never read.
                let total: f64 = rows.iter().map(|&(_, w)| w).sum();
                let y_mean = rows
                    .iter()
                    .map(|&(r, w)| w * y.get(r).copied().unwrap_or(0.0))
                    .sum::<f64>()
                    / total;
                let mut side = DVector::<f64>::zeros(d);
                for &(r, w) in rows {
                    let xr = x(r);
                    side += &xr * (w * (y.get(r).copied().unwrap_or(0.0) - y_mean));
                    scatter += &xr * xr.transpose() * w;
                }
                side
            }
            // Several outputs have no single direction to start from (refused at fit).
            Target::MultiClasses { .. } | Target::MultiValues { .. } => return None,
        };
        let ridge = RIDGE * (scatter.trace() / d as f64).max(f64::MIN_POSITIVE);
        scatter += DMatrix::<f64>::identity(d, d) * ridge;
        let w = scatter.lu().solve(&target_side)?;
        w.iter()
            .all(|v| v.is_finite())
            .then(|| w.iter().copied().collect())
    }

    /// The standardised direction `w` as a test over the raw features with unit-length
    /// coefficients (zero ones dropped), its threshold scanned on the raw projections.
    #[allow(clippy::too_many_arguments)]
    fn raw_test<V: Values + ?Sized>(
        &self,
        features: &[u32],
        scale: &[f64],
        w: &[f64],
        node: &NodeRows,
        node_weight: f64,
        values: &V,
        ranks: Option<&Ranks>,
    ) -> Option<Candidate> {
        let raw: Vec<(u32, f64)> = features
            .iter()
            .zip(w.iter().zip(scale))
            .map(|(&f, (wk, s))| (f, wk / s))
            .filter(|(_, c)| *c != 0.0)
            .collect();
        let norm = raw.iter().map(|(_, c)| c * c).sum::<f64>().sqrt();
        if raw.is_empty() || !norm.is_finite() || norm <= 0.0 {
            return None;
        }
        let features: Vec<u32> = raw.iter().map(|(f, _)| *f).collect();
        let weights: Vec<f64> = raw.iter().map(|(_, c)| c / norm).collect();
        // A row missing a term's value is a missing projection (NaN), as at prediction.
        let project = |r: usize| linear_value(values, &features, &weights, r).unwrap_or(f64::NAN);
        let mut c = self
            .numeric(usize::MAX, project, node, node_weight, None, ranks, None)
            .filter(|c| c.score.threshold.is_finite())?;
        let threshold = c.score.threshold;
        c.rule = SplitRule::Oblique {
            features,
            weights,
            threshold,
        };
        Some(c)
    }
}

fn numeric_features<'c>(columns: &'c [Column<'_>]) -> impl Iterator<Item = usize> + 'c {
    columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_numeric())
        .map(|(f, _)| f)
}

/// The numeric features that vary over `rows`, with their weighted means and standard
/// deviations.
fn standardisation<V: Values + ?Sized>(
    columns: &[Column<'_>],
    values: &V,
    rows: &[(usize, f64)],
) -> (Vec<u32>, Vec<f64>, Vec<f64>) {
    let total: f64 = rows.iter().map(|&(_, w)| w).sum();
    let (mut features, mut means, mut scales) = (Vec::new(), Vec::new(), Vec::new());
    if total <= 0.0 {
        return (features, means, scales);
    }
    for f in numeric_features(columns) {
        let mean = rows
            .iter()
            .map(|&(r, w)| w * values.number(f, r))
            .sum::<f64>()
            / total;
        let var = rows
            .iter()
            .map(|&(r, w)| w * (values.number(f, r) - mean).powi(2))
            .sum::<f64>()
            / total;
        if var > 0.0 && var.is_finite() {
            features.push(f as u32);
            means.push(mean);
            scales.push(var.sqrt());
        }
    }
    (features, means, scales)
}
