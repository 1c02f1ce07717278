//! Per-class factors between the weights a node's rows carry and the weights a search reads.
//!
//! Two parameters put them there ([`TreeParams::altered_priors`],
//! [`TreeParams::class_weights`]). Rows carry the caller's weights, class weights included
//! (those are what leaves and predictions report). The search multiplies class k's weight by
//! its altered-prior factor Σ_j L_kj (rpart's `gini.c`: splits are scored on altered priors,
//! Breiman et al. 1984 §4.4), and the size rules divide every class factor back out, so that
//! they count rows as rpart and scikit-learn count them: a class weight re-weights the
//! criterion, not the number of rows.

use crate::params::TreeParams;

/// The factors of one fit; absent (`None` in the searcher) when every factor is 1.
#[derive(Debug, Clone)]
pub(crate) struct ClassScales {
    /// Multiplies a row's weight while searching (altered priors), per class.
    search: Vec<f64>,
    /// Turns a search weight back into the caller's weight: 1 / `search`.
    to_weight: Vec<f64>,
    /// Turns a search weight into the row weight the size rules count: 1 / (`search` × the
    /// class weight).
    to_rows: Vec<f64>,
}

impl ClassScales {
    /// The factors `params` asks for with `n_classes` classes (0: regression), `None` when
    /// there are none.
    pub(crate) fn of(params: &TreeParams, n_classes: usize) -> Option<ClassScales> {
        if n_classes == 0 {
            return None;
        }
        let altered = match (&params.cost_matrix, params.altered_priors) {
            (Some(costs), true) => Some(
                costs
                    .chunks(n_classes)
                    .map(|row| row.iter().sum::<f64>())
                    .collect::<Vec<f64>>(),
            ),
            _ => None,
        };
        if altered.is_none() && params.class_weights.is_none() {
            return None;
        }
        let search = altered.unwrap_or_else(|| vec![1.0; n_classes]);
        let weights = params.class_weights.as_deref();
        let to_rows = (0..n_classes)
            .map(|k| {
                let class = weights.and_then(|w| w.get(k)).copied().unwrap_or(1.0);
                1.0 / (search.get(k).copied().unwrap_or(1.0) * class)
            })
            .collect();
        Some(ClassScales {
            to_weight: search.iter().map(|s| 1.0 / s).collect(),
            to_rows,
            search,
        })
    }

    /// The weight a row of class `class` with weight `w` has in the search.
    #[inline]
    pub(crate) fn search_weight(&self, class: usize, w: f64) -> f64 {
        w * self.search.get(class).copied().unwrap_or(1.0)
    }

    /// Class statistics of the caller's weights as the search weighs them.
    pub(crate) fn searched(&self, stats: &[f64]) -> Vec<f64> {
        stats.iter().zip(&self.search).map(|(x, s)| x * s).collect()
    }

    /// The caller's weight of class statistics gathered in the search.
    #[inline]
    pub(crate) fn weight(&self, stats: &[f64]) -> f64 {
        dot(stats, &self.to_weight)
    }

    /// The row weight (class weights removed) of class statistics gathered in the search.
    #[inline]
    pub(crate) fn rows(&self, stats: &[f64]) -> f64 {
        dot(stats, &self.to_rows)
    }

    /// The row weight of a row of class `class` carrying the caller's weight `w`.
    #[inline]
    pub(crate) fn row_weight(&self, class: usize, w: f64) -> f64 {
        self.search_weight(class, w) * self.to_rows.get(class).copied().unwrap_or(1.0)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
