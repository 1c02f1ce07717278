//! Per-class factors between the weights a node's rows carry and the weights a search reads.
//!
//! Two parameters put them there ([`TreeParams::altered_priors`],
//! [`TreeParams::class_weights`]). Rows carry the caller's weights, class weights included
//! (those are what leaves and predictions report). The search multiplies class k's weight by
//! its altered-prior factor Σ_j L_kj (rpart's `gini.c`: splits are scored on altered priors,
//! Breiman et al. 1984 §4.4), and the size rules divide every class factor back out, so that
//! they count rows as rpart and scikit-learn count them: a class weight re-weights the
//! criterion, not the number of rows.

use crate::error::{CoreError, Result};
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
    /// there are none. A cost matrix or class weights not sized for `n_classes` (which
    /// [`TreeParams::validate_for`] refuses) is an error rather than a factor of 1.
    pub(crate) fn of(params: &TreeParams, n_classes: usize) -> Result<Option<ClassScales>> {
        if n_classes == 0 {
            return Ok(None);
        }
        let sized = |what: &str, expected: usize, got: usize| -> Result<()> {
            match got == expected {
                true => Ok(()),
                false => Err(CoreError::ShapeMismatch {
                    what: what.into(),
                    expected,
                    got,
                }),
            }
        };
        let search: Option<Vec<f64>> = match (&params.cost_matrix, params.altered_priors) {
            (Some(costs), true) => {
                sized("cost_matrix", n_classes * n_classes, costs.len())?;
                Some(
                    costs
                        .chunks_exact(n_classes)
                        .map(|row| row.iter().sum::<f64>())
                        .collect(),
                )
            }
            _ => None,
        };
        let class = params.class_weights.as_deref();
        if let Some(w) = class {
            sized("class_weights", n_classes, w.len())?;
        }
        if search.is_none() && class.is_none() {
            return Ok(None);
        }
        // A factor not asked for is 1 (the rule: no altered priors, no class weights).
        let search = search.unwrap_or_else(|| vec![1.0; n_classes]);
        let to_rows = match class {
            Some(class) => search
                .iter()
                .zip(class)
                .map(|(s, c)| 1.0 / (s * c))
                .collect(),
            None => search.iter().map(|s| 1.0 / s).collect(),
        };
        Ok(Some(ClassScales {
            to_weight: search.iter().map(|s| 1.0 / s).collect(),
            to_rows,
            search,
        }))
    }

    /// The weight a row of class `class` with weight `w` has in the search. Class codes are
    /// below the `n_classes` the factors were made for (the data checks them), so the 1.0 is
    /// never read.
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

    /// The row weight of a row of class `class` carrying the caller's weight `w` (a class
    /// code, as in [`Self::search_weight`]: the 1.0 is never read).
    #[inline]
    pub(crate) fn row_weight(&self, class: usize, w: f64) -> f64 {
        self.search_weight(class, w) * self.to_rows.get(class).copied().unwrap_or(1.0)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::ClassScales;
    use crate::error::CoreError;
    use crate::params::TreeParams;

    #[test]
    fn factors_not_sized_for_the_classes_are_an_error_not_a_factor_of_one() {
        let mut params = TreeParams {
            class_weights: Some(vec![2.0, 1.0]),
            ..TreeParams::default()
        };
        let scales = ClassScales::of(&params, 2).ok().flatten();
        assert_eq!(scales.map(|s| s.row_weight(0, 4.0)), Some(2.0));
        // Validation refuses a third class without a weight; read unvalidated, it is an error.
        assert!(matches!(
            ClassScales::of(&params, 3),
            Err(CoreError::ShapeMismatch {
                expected: 3,
                got: 2,
                ..
            })
        ));
        params.class_weights = None;
        params.altered_priors = true;
        params.cost_matrix = Some(vec![0.0, 1.0, 2.0, 0.0]);
        assert!(ClassScales::of(&params, 2).is_ok_and(|s| s.is_some()));
        assert!(matches!(
            ClassScales::of(&params, 3),
            Err(CoreError::ShapeMismatch {
                expected: 9,
                got: 4,
                ..
            })
        ));
    }
}
