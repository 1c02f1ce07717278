//! The arena's per-node vectors, as the model file stores them.
//!
//! Children of a node are allocated together when it splits, so they are contiguous:
//! `first_child .. first_child + n_children`. The root is node 0 and every child is numbered
//! after its parent, so a reverse index sweep visits children before parents (used for
//! bottom-up passes without recursion).
//!
//! A [`super::Tree`] lends its arena out read-only ([`super::Tree::arena`]) to the model
//! file, which stores it as it is; only [`super::Writer`] changes one, and a model file's
//! arena becomes a tree only through it ([`super::Writer::from_arena`]), checked.

use super::node::{FeatureScore, NodeId, Side, SplitTag};
use crate::control::Control;

/// "No such index": a leaf's feature and children, a node without subset mask, linear terms,
/// missing child, surrogates or recorded scores, the root's parent.
pub(crate) const NONE: u32 = u32::MAX;

/// The nodes of a tree, field by field (one vector per field, indexed by [`NodeId`]), and the
/// variable-length tables some nodes point into (subset masks, linear terms, surrogates,
/// recorded scores).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Arena {
    // Hot: read on every prediction step.
    pub tag: Vec<SplitTag>,
    pub feature: Vec<u32>,
    /// Numeric threshold, or an ordered category's code; NaN where unused.
    pub threshold: Vec<f64>,
    pub first_child: Vec<u32>,
    pub n_children: Vec<u32>,
    /// C4.5's r̃_v: the share of the parent's known weight this child received.
    pub branch_fraction: Vec<f64>,
    /// Index into `sides` where a subset node's mask starts (u32::MAX otherwise).
    pub subset_offset: Vec<u32>,
    pub sides: Vec<Side>,
    /// Where an oblique node's terms start in `linear_features` / `linear_weights`
    /// (u32::MAX otherwise), and how many there are.
    pub linear_offset: Vec<u32>,
    pub linear_len: Vec<u32>,
    pub linear_features: Vec<u32>,
    pub linear_weights: Vec<f64>,
    /// The child a row missing the tested value goes to; u32::MAX: every child, with the
    /// fractions r̃_v (C4.5), and for leaves.
    pub missing_child: Vec<u32>,
    /// Where a node's surrogate splits start in the `surrogate_*` vectors (u32::MAX for
    /// none), and how many it has.
    pub surrogate_offset: Vec<u32>,
    pub surrogate_len: Vec<u32>,
    pub surrogate_feature: Vec<u32>,
    pub surrogate_threshold: Vec<f64>,
    pub surrogate_agreement: Vec<f64>,
    /// rpart's adjusted agreement of each ([`super::Surrogate::adjusted`]).
    pub surrogate_adjusted: Vec<f64>,
    /// Where each surrogate's child map starts in `surrogate_children`.
    pub surrogate_map: Vec<u32>,
    pub surrogate_children: Vec<u32>,

    // Cold: bookkeeping, rendering and pruning.
    pub parent: Vec<u32>,
    pub depth: Vec<u32>,
    pub weight: Vec<f64>,
    pub n_rows: Vec<f64>,
    pub n_samples: Vec<u64>,
    pub impurity: Vec<f64>,
    /// The node's class of each output (ties broken toward the parent's), `n_outputs` per
    /// node; 0 for regression.
    pub label: Vec<u32>,
    /// `value_width` numbers per node: class weights, or the mean target (each output's, one
    /// after the other).
    pub value: Vec<f64>,
    /// `n_features` scores per searched node; `score_offset` is u32::MAX for others.
    pub score_offset: Vec<u32>,
    pub scores: Vec<FeatureScore>,
    /// Training weight at each split whose tested value was missing (0 for leaves).
    pub missing_weight: Vec<f64>,
}

impl Arena {
    /// Room for `k` more nodes in every per-node vector (`outputs` labels and `width` values
    /// each), or `None` when the memory cannot be had (recorded in `control`): a push then
    /// cannot abort the process.
    pub(super) fn reserve(
        &mut self,
        k: usize,
        outputs: usize,
        width: usize,
        control: &Control,
    ) -> Option<()> {
        control.reserve(&mut self.tag, k)?;
        for v in [
            &mut self.feature,
            &mut self.first_child,
            &mut self.n_children,
            &mut self.subset_offset,
            &mut self.linear_offset,
            &mut self.linear_len,
            &mut self.missing_child,
            &mut self.surrogate_offset,
            &mut self.surrogate_len,
            &mut self.parent,
            &mut self.depth,
            &mut self.score_offset,
        ] {
            control.reserve(v, k)?;
        }
        control.reserve(&mut self.n_samples, k)?;
        control.reserve(&mut self.label, k.saturating_mul(outputs))?;
        for v in [
            &mut self.threshold,
            &mut self.branch_fraction,
            &mut self.missing_weight,
            &mut self.weight,
            &mut self.n_rows,
            &mut self.impurity,
        ] {
            control.reserve(v, k)?;
        }
        control.reserve(&mut self.value, k.saturating_mul(width))
    }

    /// Appends a leaf at `depth` under `parent` (`NONE` for a root) with nothing recorded:
    /// no weight, labels 0 and values 0 (`outputs` and `width` of them).
    pub(super) fn push_leaf(
        &mut self,
        parent: u32,
        depth: u32,
        branch_fraction: f64,
        outputs: usize,
        width: usize,
    ) -> NodeId {
        let id = NodeId(self.tag.len() as u32);
        self.tag.push(SplitTag::Leaf);
        self.feature.push(NONE);
        self.threshold.push(f64::NAN);
        self.first_child.push(NONE);
        self.n_children.push(0);
        self.branch_fraction.push(branch_fraction);
        self.subset_offset.push(NONE);
        self.linear_offset.push(NONE);
        self.linear_len.push(0);
        self.missing_child.push(NONE);
        self.surrogate_offset.push(NONE);
        self.surrogate_len.push(0);
        self.missing_weight.push(0.0);
        self.parent.push(parent);
        self.depth.push(depth);
        self.weight.push(0.0);
        self.n_rows.push(0.0);
        self.n_samples.push(0);
        self.impurity.push(0.0);
        self.label.extend(std::iter::repeat_n(0, outputs));
        self.value.extend(std::iter::repeat_n(0.0, width));
        self.score_offset.push(NONE);
        id
    }
}
