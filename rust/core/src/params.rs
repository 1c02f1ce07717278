//! Growth parameters, validated once into a type the builder can trust.

use crate::criterion::Criterion;
use crate::error::{CoreError, Result};

/// How categorical features split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CategoricalSplit {
    /// One child per category; the feature is not tested again below (text 000 Algorithm 4.1).
    Multiway,
    /// Two children by a subset of categories (CART); ordered categories by threshold.
    Binary,
}

impl CategoricalSplit {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "multiway" => Ok(CategoricalSplit::Multiway),
            "binary" => Ok(CategoricalSplit::Binary),
            other => Err(CoreError::InvalidParameter {
                name: "categorical_split",
                reason: format!("unknown value {other:?}; expected \"multiway\" or \"binary\""),
            }),
        }
    }
}

/// Parameters of tree growth. Build with [`TreeParams::new`] (or a struct literal over
/// [`TreeParams::default`]); [`crate::grow`] checks them again with [`TreeParams::validate`].
#[derive(Debug, Clone, PartialEq)]
pub struct TreeParams {
    pub criterion: Criterion,
    pub categorical_split: CategoricalSplit,
    /// The root has depth 0; `None` grows until Algorithm 4.1 stops.
    pub max_depth: Option<usize>,
    /// A node with fewer rows (fractional fragments count as one) is a leaf.
    pub min_samples_split: usize,
    /// Every non-empty child of a split must receive at least this many rows.
    pub min_samples_leaf: usize,
    /// Multi-class subset splits enumerate every partition up to this many present categories,
    /// and order categories by a heuristic beyond it.
    pub max_exhaustive_categories: usize,
    /// Grow best-first (largest weighted impurity decrease first) up to this many leaves.
    pub max_leaf_nodes: Option<usize>,
    /// Every non-empty child must hold at least this share of the total training weight.
    pub min_weight_fraction_leaf: f64,
    /// A split is made only if its gain (ρ × impurity decrease) is at least this.
    pub min_gain: f64,
    /// Likelihood-ratio (G²) stop, text 002 §3.5: a split is made only if the independence of
    /// branch and class is rejected at this p-value. Classification only.
    pub max_p_value: Option<f64>,
    /// C4.5's MINOBJS: at least two branches must receive this much known training weight.
    pub min_objects: f64,
    /// C4.5 release 8: a numeric test's gain is reduced by log2(N − 1)/|D|, N its distinct
    /// values at the node (Quinlan 1996, "Improved use of continuous attributes in C4.5").
    pub numeric_gain_correction: bool,
    /// Misclassification costs, row-major `n_classes × n_classes` (row = true class, column =
    /// predicted): leaves predict the class of least expected cost and the Gini index becomes
    /// Σ_{k≠k'} L_kk' p_k p_k' (text 004 eq. 8).
    pub cost_matrix: Option<Vec<f64>>,
    /// Also search multivariate tests `Σ w_i · x_i <= t` over the numeric features; the best
    /// axis-parallel split stays a candidate, so a node's split never scores worse.
    pub oblique: bool,
}

fn invalid(name: &'static str, reason: String) -> CoreError {
    CoreError::InvalidParameter { name, reason }
}

impl TreeParams {
    /// The common parameters; the others keep their defaults.
    pub fn new(
        criterion: Criterion,
        categorical_split: CategoricalSplit,
        max_depth: Option<usize>,
        min_samples_split: usize,
        min_samples_leaf: usize,
        max_exhaustive_categories: usize,
    ) -> Result<Self> {
        let params = TreeParams {
            criterion,
            categorical_split,
            max_depth,
            min_samples_split,
            min_samples_leaf,
            max_exhaustive_categories,
            ..TreeParams::default()
        };
        params.validate()?;
        Ok(params)
    }

    /// Checks every parameter on its own (see [`Self::validate_for`] for the target-bound ones).
    pub fn validate(&self) -> Result<()> {
        if self.max_depth == Some(0) {
            return Err(invalid(
                "max_depth",
                "must be at least 1 (or None for no limit)".into(),
            ));
        }
        if self.min_samples_split < 2 {
            return Err(invalid(
                "min_samples_split",
                format!("must be at least 2, got {}", self.min_samples_split),
            ));
        }
        if self.min_samples_leaf < 1 {
            return Err(invalid(
                "min_samples_leaf",
                format!("must be at least 1, got {}", self.min_samples_leaf),
            ));
        }
        if !(2..=20).contains(&self.max_exhaustive_categories) {
            return Err(invalid(
                "max_exhaustive_categories",
                format!(
                    "must be between 2 and 20 (2^(k-1) partitions are enumerated), got {}",
                    self.max_exhaustive_categories
                ),
            ));
        }
        if let Some(n) = self.max_leaf_nodes.filter(|&n| n < 2) {
            return Err(invalid(
                "max_leaf_nodes",
                format!("must be at least 2, got {n}"),
            ));
        }
        if !(0.0..=0.5).contains(&self.min_weight_fraction_leaf) {
            return Err(invalid(
                "min_weight_fraction_leaf",
                format!("must be in [0, 0.5], got {}", self.min_weight_fraction_leaf),
            ));
        }
        if !(self.min_gain.is_finite() && self.min_gain >= 0.0) {
            return Err(invalid(
                "min_gain",
                format!("must be finite and >= 0, got {}", self.min_gain),
            ));
        }
        if let Some(p) = self.max_p_value.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
            return Err(invalid(
                "max_p_value",
                format!("must be in (0, 1], got {p}"),
            ));
        }
        if !(self.min_objects.is_finite() && self.min_objects >= 0.0) {
            return Err(invalid(
                "min_objects",
                format!("must be finite and >= 0, got {}", self.min_objects),
            ));
        }
        Ok(())
    }

    /// Checks the parameters that depend on the target: `n_classes` is 0 for regression.
    pub(crate) fn validate_for(&self, n_classes: usize) -> Result<()> {
        if n_classes == 0 && self.max_p_value.is_some() {
            return Err(invalid(
                "max_p_value",
                "the G² test needs class counts; it does not apply to regression".into(),
            ));
        }
        if let Some(costs) = &self.cost_matrix {
            if n_classes == 0 {
                return Err(invalid(
                    "cost_matrix",
                    "regression has no classes to cost".into(),
                ));
            }
            if costs.len() != n_classes * n_classes {
                return Err(invalid(
                    "cost_matrix",
                    format!(
                        "must be {n_classes} x {n_classes} (one row and column per class), got {} entries",
                        costs.len()
                    ),
                ));
            }
            if let Some(c) = costs.iter().find(|c| !(c.is_finite() && **c >= 0.0)) {
                return Err(invalid(
                    "cost_matrix",
                    format!("costs must be finite and >= 0, got {c}"),
                ));
            }
        }
        Ok(())
    }
}

impl Default for TreeParams {
    /// CART defaults: Gini, binary splits, grown fully, no pre-pruning, unit costs.
    fn default() -> Self {
        TreeParams {
            criterion: Criterion::Gini,
            categorical_split: CategoricalSplit::Binary,
            max_depth: None,
            min_samples_split: 2,
            min_samples_leaf: 1,
            max_exhaustive_categories: 12,
            max_leaf_nodes: None,
            min_weight_fraction_leaf: 0.0,
            min_gain: 0.0,
            max_p_value: None,
            min_objects: 0.0,
            numeric_gain_correction: false,
            cost_matrix: None,
            oblique: false,
        }
    }
}
