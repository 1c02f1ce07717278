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

/// Validated parameters of tree growth. Build with [`TreeParams::new`].
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
}

impl TreeParams {
    pub fn new(
        criterion: Criterion,
        categorical_split: CategoricalSplit,
        max_depth: Option<usize>,
        min_samples_split: usize,
        min_samples_leaf: usize,
        max_exhaustive_categories: usize,
    ) -> Result<Self> {
        if max_depth == Some(0) {
            return Err(CoreError::InvalidParameter {
                name: "max_depth",
                reason: "must be at least 1 (or None for no limit)".into(),
            });
        }
        if min_samples_split < 2 {
            return Err(CoreError::InvalidParameter {
                name: "min_samples_split",
                reason: format!("must be at least 2, got {min_samples_split}"),
            });
        }
        if min_samples_leaf < 1 {
            return Err(CoreError::InvalidParameter {
                name: "min_samples_leaf",
                reason: format!("must be at least 1, got {min_samples_leaf}"),
            });
        }
        if !(2..=20).contains(&max_exhaustive_categories) {
            return Err(CoreError::InvalidParameter {
                name: "max_exhaustive_categories",
                reason: format!(
                    "must be between 2 and 20 (2^(k-1) partitions are enumerated), got {max_exhaustive_categories}"
                ),
            });
        }
        Ok(TreeParams {
            criterion,
            categorical_split,
            max_depth,
            min_samples_split,
            min_samples_leaf,
            max_exhaustive_categories,
        })
    }
}

impl Default for TreeParams {
    /// CART defaults: Gini, binary splits, grown fully.
    fn default() -> Self {
        TreeParams {
            criterion: Criterion::Gini,
            categorical_split: CategoricalSplit::Binary,
            max_depth: None,
            min_samples_split: 2,
            min_samples_leaf: 1,
            max_exhaustive_categories: 12,
        }
    }
}
