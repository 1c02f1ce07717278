//! The arena that stores a fitted tree: parallel vectors indexed by [`NodeId`].
//!
//! Children of a node are allocated together when it splits, so they are contiguous:
//! `first_child .. first_child + n_children`. The root is node 0 and every child is numbered
//! after its parent, so a reverse index sweep visits children before parents (used for
//! bottom-up passes without recursion).

use crate::control::Control;
use crate::criterion::Criterion;
use crate::data::FeatureKind;
use crate::error::{CoreError, Result};
use crate::params::{Conventions, MissingStrategy, Splitter};

/// Index of a node in a [`Tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    pub const ROOT: NodeId = NodeId(0);

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a category goes in a subset split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Side {
    /// Child 1.
    Right = 0,
    /// Child 0.
    Left = 1,
    /// Absent from the node's training rows: routed like a missing value.
    Unseen = 2,
}

/// The test a node applies, as stored in the arena's `tag` vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SplitTag {
    Leaf = 0,
    /// `x <= threshold` → child 0.
    Numeric = 1,
    /// Child `k` holds category code `k`.
    Multiway = 2,
    /// Category side from the node's subset mask.
    Subset = 3,
    /// Ordered category `code <= threshold` → child 0.
    Ordered = 4,
    /// Linear test `Σ w_i · x_i <= threshold` → child 0.
    Oblique = 5,
}

/// A borrowed view of one node's test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeKind<'t> {
    Leaf,
    Numeric {
        feature: usize,
        threshold: f64,
    },
    Multiway {
        feature: usize,
    },
    Subset {
        feature: usize,
        sides: &'t [Side],
    },
    Ordered {
        feature: usize,
        threshold: u32,
    },
    /// `Σ weights[i] · x[features[i]] <= threshold` → child 0 (text 000 §4.5).
    Oblique {
        features: &'t [u32],
        weights: &'t [f64],
        threshold: f64,
    },
}

/// Per-feature candidate scores recorded when a node was searched (see [`crate::scores`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeatureScore {
    /// The criterion's own figure (gain, gain ratio, or weighted child impurity).
    pub score: f64,
    /// ρ × impurity decrease: what the search maximises.
    pub gain: f64,
    /// Split information, with the missing share as its own outcome (C4.5).
    pub iv: f64,
    /// Best numeric midpoint, or ordered-category code; NaN otherwise.
    pub threshold: f64,
    /// Share of the node's weight with the feature known.
    pub rho: f64,
}

impl FeatureScore {
    pub const NONE: FeatureScore = FeatureScore {
        score: f64::NAN,
        gain: f64::NAN,
        iv: f64::NAN,
        threshold: f64::NAN,
        rho: f64::NAN,
    };
}

/// One surrogate split of a node (rpart): a test on another feature that mimics the node's
/// own test, used when a row misses the tested value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surrogate<'t> {
    pub feature: usize,
    /// `x <= threshold` for a numeric feature; NaN for a categorical one.
    pub threshold: f64,
    /// Share of the node's training weight with the tested value known that the surrogate
    /// sends where the node's test does (a row missing the surrogate's feature disagrees).
    pub agreement: f64,
    /// The child of each outcome: `[x <= t, x > t]` for a numeric feature, one entry per
    /// category for a categorical one; `u32::MAX` where the surrogate gives no direction (a
    /// category absent from the node's rows).
    pub children: &'t [u32],
}

/// What `algorithm="optimal"` proved of the tree it grew ([`crate::grow_optimal`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Optimality {
    /// The tree's objective: its training error (misclassification cost, or squared error)
    /// per unit of training weight, plus `ccp_alpha` per leaf.
    pub objective: f64,
    /// No tree within the fit's depth and leaf budgets has a smaller objective. Equal to
    /// `objective` when the search finished: the tree is then proven optimal.
    pub lower_bound: f64,
}

impl Optimality {
    pub fn proven(&self) -> bool {
        self.lower_bound >= self.objective
    }

    /// (objective − lower bound) / objective, as MIP solvers report it; 0 when proven.
    pub fn gap(&self) -> f64 {
        if self.proven() || self.objective <= 0.0 {
            0.0
        } else {
            (self.objective - self.lower_bound) / self.objective
        }
    }
}

/// Surrogate splits side by side: `feature[i]`, `threshold[i]`, `agreement[i]` and the child
/// map `children[map[i]..]` (2 entries, or one per category) describe surrogate `i`. The
/// tree's view covers one node's range; the builder's, the splits it is about to store.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SurrogateSet<'t> {
    pub feature: &'t [u32],
    pub threshold: &'t [f64],
    pub agreement: &'t [f64],
    pub map: &'t [u32],
    pub children: &'t [u32],
}

impl<'t> SurrogateSet<'t> {
    pub fn len(&self) -> usize {
        self.feature.len()
    }

    /// Surrogate `i`, its child map `width` entries long (2, or the feature's categories).
    pub fn get(&self, i: usize, kinds: &[FeatureKind]) -> Option<Surrogate<'t>> {
        let feature = *self.feature.get(i)? as usize;
        let width = match kinds.get(feature)? {
            FeatureKind::Numeric => 2,
            FeatureKind::Categorical { n_categories, .. } => *n_categories as usize,
        };
        let start = *self.map.get(i)? as usize;
        Some(Surrogate {
            feature,
            threshold: *self.threshold.get(i)?,
            agreement: *self.agreement.get(i)?,
            children: self.children.get(start..start.checked_add(width)?)?,
        })
    }
}

/// What a tree was grown with: its outputs and features and the rules its nodes were made
/// and are read by. One record, so that every producer of a tree (growth, the subtrees grown
/// apart, the streamed and optimal fits, pruning, model files) carries it whole: a tree is
/// made from one ([`Tree::empty`]) or from another tree ([`Tree::like`]), never field by
/// field, and none of them can drop what another reads (a pruned histogram tree used to
/// report the exact search).
#[derive(Debug, Clone, PartialEq)]
pub struct TreeMeta {
    pub criterion: Criterion,
    pub kinds: Vec<FeatureKind>,
    /// The classes of each output (0 for a real-valued one): one entry for a 1-D target,
    /// several for a multi-output tree, all classes or all real.
    pub outputs: Vec<usize>,
    /// The missing-value strategy the tree was grown with.
    pub missing: MissingStrategy,
    /// The conventions the tree was grown with: how its nodes' labels (and prediction) break
    /// ties between classes ([`Conventions`]).
    pub conventions: Conventions,
    /// The threshold search that grew the tree (`Auto` resolved) and, for `Hist`, its bins
    /// per feature (0 for `Exact`).
    pub splitter: Splitter,
    pub max_bins: u32,
}

impl TreeMeta {
    /// The record of a tree of `outputs` over features `kinds` grown with `criterion`, under
    /// the texts' conventions with C4.5's fractions, searched exactly (the fields a producer
    /// does not set are these defaults).
    pub fn new(criterion: Criterion, kinds: Vec<FeatureKind>, outputs: Vec<usize>) -> TreeMeta {
        TreeMeta {
            criterion,
            kinds,
            outputs,
            missing: MissingStrategy::Fractional,
            conventions: Conventions::Texts,
            splitter: Splitter::Exact,
            max_bins: 0,
        }
    }
}

/// A fitted decision tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    /// What the tree was grown with, carried whole ([`TreeMeta`]).
    pub(crate) meta: TreeMeta,

    // Hot: read on every prediction step.
    pub(crate) tag: Vec<SplitTag>,
    pub(crate) feature: Vec<u32>,
    /// Numeric threshold, or an ordered category's code; NaN where unused.
    pub(crate) threshold: Vec<f64>,
    pub(crate) first_child: Vec<u32>,
    pub(crate) n_children: Vec<u32>,
    /// C4.5's r̃_v: the share of the parent's known weight this child received.
    pub(crate) branch_fraction: Vec<f64>,
    /// Index into `sides` where a subset node's mask starts (u32::MAX otherwise).
    pub(crate) subset_offset: Vec<u32>,
    pub(crate) sides: Vec<Side>,
    /// Where an oblique node's terms start in `linear_features` / `linear_weights`
    /// (u32::MAX otherwise), and how many there are.
    pub(crate) linear_offset: Vec<u32>,
    pub(crate) linear_len: Vec<u32>,
    pub(crate) linear_features: Vec<u32>,
    pub(crate) linear_weights: Vec<f64>,
    /// The child a row missing the tested value goes to; u32::MAX: every child, with the
    /// fractions r̃_v (C4.5), and for leaves.
    pub(crate) missing_child: Vec<u32>,
    /// Where a node's surrogate splits start in the `surrogate_*` vectors (u32::MAX for
    /// none), and how many it has.
    pub(crate) surrogate_offset: Vec<u32>,
    pub(crate) surrogate_len: Vec<u32>,
    pub(crate) surrogate_feature: Vec<u32>,
    pub(crate) surrogate_threshold: Vec<f64>,
    pub(crate) surrogate_agreement: Vec<f64>,
    /// Where each surrogate's child map starts in `surrogate_children`.
    pub(crate) surrogate_map: Vec<u32>,
    pub(crate) surrogate_children: Vec<u32>,

    // Cold: bookkeeping, rendering and pruning.
    pub(crate) parent: Vec<u32>,
    pub(crate) depth: Vec<u32>,
    pub(crate) weight: Vec<f64>,
    pub(crate) n_rows: Vec<f64>,
    pub(crate) impurity: Vec<f64>,
    /// The node's class of each output (ties broken toward the parent's), `n_outputs` per
    /// node; 0 for regression.
    pub(crate) label: Vec<u32>,
    /// `value_width` numbers per node: class weights, or the mean target (each output's, one
    /// after the other).
    pub(crate) value: Vec<f64>,
    /// `n_features` scores per searched node; `score_offset` is u32::MAX for others.
    pub(crate) score_offset: Vec<u32>,
    pub(crate) scores: Vec<FeatureScore>,
    /// Training weight at each split whose tested value was missing (0 for leaves).
    pub(crate) missing_weight: Vec<f64>,
    /// Set by the optimal search only: what it proved of this tree (a pruned copy is no
    /// longer what it proved, and has none).
    pub(crate) optimality: Option<Optimality>,
}

pub(crate) const NONE: u32 = u32::MAX;

impl Tree {
    /// A tree with no nodes, grown as `meta` says.
    pub(crate) fn empty(meta: TreeMeta) -> Self {
        Tree {
            meta,
            tag: Vec::new(),
            feature: Vec::new(),
            threshold: Vec::new(),
            first_child: Vec::new(),
            n_children: Vec::new(),
            branch_fraction: Vec::new(),
            subset_offset: Vec::new(),
            sides: Vec::new(),
            linear_offset: Vec::new(),
            linear_len: Vec::new(),
            linear_features: Vec::new(),
            linear_weights: Vec::new(),
            missing_child: Vec::new(),
            surrogate_offset: Vec::new(),
            surrogate_len: Vec::new(),
            surrogate_feature: Vec::new(),
            surrogate_threshold: Vec::new(),
            surrogate_agreement: Vec::new(),
            surrogate_map: Vec::new(),
            surrogate_children: Vec::new(),
            parent: Vec::new(),
            depth: Vec::new(),
            weight: Vec::new(),
            n_rows: Vec::new(),
            impurity: Vec::new(),
            label: Vec::new(),
            value: Vec::new(),
            score_offset: Vec::new(),
            scores: Vec::new(),
            missing_weight: Vec::new(),
            optimality: None,
        }
    }

    /// A tree without nodes, grown as this one was (its whole [`TreeMeta`]).
    pub(crate) fn like(&self) -> Tree {
        Tree::empty(self.meta.clone())
    }

    /// What the tree was grown with.
    pub fn meta(&self) -> &TreeMeta {
        &self.meta
    }

    /// Room for `k` more nodes in every per-node vector, or `None` when the memory cannot be
    /// had (recorded in `control`): [`Self::push_node`] then cannot abort the process.
    pub(crate) fn reserve_nodes(&mut self, k: usize, control: &Control) -> Option<()> {
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
        let outputs = self.n_outputs();
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
        let width = self.value_width();
        control.reserve(&mut self.value, k.saturating_mul(width))
    }

    /// Appends a leaf and returns its id; the builder turns it into a split later.
    pub(crate) fn push_node(&mut self, parent: Option<NodeId>, branch_fraction: f64) -> NodeId {
        let id = NodeId(self.tag.len() as u32);
        let depth = parent.map_or(0, |p| self.depth.get(p.index()).map_or(0, |d| d + 1));
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
        self.parent.push(parent.map_or(NONE, |p| p.0));
        self.depth.push(depth);
        self.weight.push(0.0);
        self.n_rows.push(0.0);
        self.impurity.push(0.0);
        self.label.extend(std::iter::repeat_n(0, self.n_outputs()));
        self.value
            .extend(std::iter::repeat_n(0.0, self.value_width()));
        self.score_offset.push(NONE);
        id
    }

    pub fn criterion(&self) -> Criterion {
        self.meta.criterion
    }

    pub fn n_nodes(&self) -> usize {
        self.tag.len()
    }

    pub fn n_leaves(&self) -> usize {
        self.tag.iter().filter(|t| **t == SplitTag::Leaf).count()
    }

    /// Depth of the deepest node (a single leaf has depth 0).
    pub fn max_depth(&self) -> usize {
        self.depth.iter().copied().max().unwrap_or(0) as usize
    }

    pub fn n_features(&self) -> usize {
        self.meta.kinds.len()
    }

    pub fn feature_kinds(&self) -> &[FeatureKind] {
        &self.meta.kinds
    }

    /// Number of classes, summed over the outputs (the width of a node's class weights);
    /// 0 for a regression tree.
    pub fn n_classes(&self) -> usize {
        self.meta.outputs.iter().sum()
    }

    /// Targets the tree predicts at once: 1, or several for a multi-output tree.
    pub fn n_outputs(&self) -> usize {
        self.meta.outputs.len()
    }

    /// The classes of each output; 0 for a real-valued one.
    pub fn output_classes(&self) -> &[usize] {
        &self.meta.outputs
    }

    pub fn is_regression(&self) -> bool {
        self.n_classes() == 0
    }

    /// Numbers per node in [`Tree::value`]: class weights, or 1 (the mean) per output for
    /// regression.
    pub fn value_width(&self) -> usize {
        if self.is_regression() {
            self.n_outputs()
        } else {
            self.n_classes()
        }
    }

    /// Where each output's numbers lie in a node's [`Tree::value`]: `(start, len)`.
    pub fn output_ranges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let regression = self.is_regression();
        self.meta.outputs.iter().scan(0, move |start, &n| {
            let len = if regression { 1 } else { n };
            let range = (*start, len);
            *start += len;
            Some(range)
        })
    }

    pub fn check(&self, node: NodeId) -> Result<NodeId> {
        if node.index() < self.n_nodes() {
            Ok(node)
        } else {
            Err(CoreError::NodeOutOfRange {
                node: node.index(),
                n_nodes: self.n_nodes(),
            })
        }
    }

    /// The node's test. Ids come from this tree, so lookups fall back to `Leaf` only if the
    /// arena were inconsistent, which the builder never produces.
    pub fn kind(&self, node: NodeId) -> NodeKind<'_> {
        let i = node.index();
        let feature = self.feature.get(i).copied().unwrap_or(NONE) as usize;
        match self.tag.get(i).copied().unwrap_or(SplitTag::Leaf) {
            SplitTag::Leaf => NodeKind::Leaf,
            SplitTag::Numeric => NodeKind::Numeric {
                feature,
                threshold: self.threshold.get(i).copied().unwrap_or(f64::NAN),
            },
            SplitTag::Multiway => NodeKind::Multiway { feature },
            SplitTag::Oblique => {
                let (features, weights) = self.linear_terms(node).unwrap_or((&[], &[]));
                NodeKind::Oblique {
                    features,
                    weights,
                    threshold: self.threshold.get(i).copied().unwrap_or(f64::NAN),
                }
            }
            SplitTag::Ordered => NodeKind::Ordered {
                feature,
                threshold: self.threshold.get(i).copied().unwrap_or(0.0) as u32,
            },
            SplitTag::Subset => {
                let start = self.subset_offset.get(i).copied().unwrap_or(0) as usize;
                let len = match self.meta.kinds.get(feature) {
                    Some(FeatureKind::Categorical { n_categories, .. }) => *n_categories as usize,
                    _ => 0,
                };
                NodeKind::Subset {
                    feature,
                    sides: self.sides.get(start..start + len).unwrap_or(&[]),
                }
            }
        }
    }

    pub fn tag(&self, node: NodeId) -> SplitTag {
        self.tag
            .get(node.index())
            .copied()
            .unwrap_or(SplitTag::Leaf)
    }

    pub fn children(&self, node: NodeId) -> impl Iterator<Item = NodeId> {
        let i = node.index();
        let first = self.first_child.get(i).copied().unwrap_or(NONE);
        let n = if first == NONE {
            0
        } else {
            self.n_children.get(i).copied().unwrap_or(0)
        };
        (0..n).map(move |k| NodeId(first + k))
    }

    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        self.parent
            .get(node.index())
            .copied()
            .filter(|&p| p != NONE)
            .map(NodeId)
    }

    pub fn depth(&self, node: NodeId) -> usize {
        self.depth.get(node.index()).copied().unwrap_or(0) as usize
    }

    /// Training weight that reached the node, fractional fragments included.
    pub fn weight(&self, node: NodeId) -> f64 {
        self.weight.get(node.index()).copied().unwrap_or(0.0)
    }

    /// Training rows that reached the node, each counted by how much of a row it is: a C4.5
    /// fragment counts as the fraction r̃ it carries (the product along its path), so this is
    /// the node's weight measured in rows, whatever the sample weights.
    pub fn n_rows(&self, node: NodeId) -> f64 {
        self.n_rows.get(node.index()).copied().unwrap_or(0.0)
    }

    pub fn impurity(&self, node: NodeId) -> f64 {
        self.impurity.get(node.index()).copied().unwrap_or(0.0)
    }

    pub fn branch_fraction(&self, node: NodeId) -> f64 {
        self.branch_fraction
            .get(node.index())
            .copied()
            .unwrap_or(0.0)
    }

    /// The node's class (of the first output, for a multi-output tree).
    pub fn label(&self, node: NodeId) -> u32 {
        self.labels(node).first().copied().unwrap_or(0)
    }

    /// The node's class of each output.
    pub fn labels(&self, node: NodeId) -> &[u32] {
        let k = self.n_outputs();
        let start = node.index() * k;
        self.label.get(start..start + k).unwrap_or(&[])
    }

    /// Class weights (classification) or `[mean]` (regression) of the node, each output's in
    /// turn ([`Tree::output_ranges`]). An empty node holds its parent's distribution (text
    /// 000 Algorithm 4.1).
    pub fn value(&self, node: NodeId) -> &[f64] {
        let w = self.value_width();
        let start = node.index() * w;
        self.value.get(start..start + w).unwrap_or(&[])
    }

    /// Per-feature scores recorded when the node was searched; `None` if it never was.
    pub fn node_scores(&self, node: NodeId) -> Option<&[FeatureScore]> {
        let off = *self.score_offset.get(node.index())?;
        if off == NONE {
            return None;
        }
        let start = off as usize;
        self.scores.get(start..start + self.n_features())
    }

    /// The features and weights of an oblique node's linear test; `None` for other nodes.
    pub fn linear_terms(&self, node: NodeId) -> Option<(&[u32], &[f64])> {
        let i = node.index();
        let start = *self.linear_offset.get(i).filter(|&&o| o != NONE)? as usize;
        let end = start + *self.linear_len.get(i)? as usize;
        Some((
            self.linear_features.get(start..end)?,
            self.linear_weights.get(start..end)?,
        ))
    }

    /// Appends a linear test's terms and attaches them to `node`.
    pub(crate) fn set_linear_terms(&mut self, node: NodeId, features: &[u32], weights: &[f64]) {
        let i = node.index();
        if let (Some(o), Some(l)) = (self.linear_offset.get_mut(i), self.linear_len.get_mut(i)) {
            *o = self.linear_features.len() as u32;
            *l = features.len() as u32;
        }
        self.linear_features.extend_from_slice(features);
        self.linear_weights.extend_from_slice(weights);
    }

    /// What the optimal search proved of this tree; `None` for other trees.
    pub fn optimality(&self) -> Option<Optimality> {
        self.optimality
    }

    /// The missing-value strategy the tree was grown with.
    pub fn missing_strategy(&self) -> MissingStrategy {
        self.meta.missing
    }

    /// The threshold search that grew the tree: `Exact` or `Hist` (never `Auto`), with the
    /// histogram's bins per feature (0 for exact).
    pub fn splitter(&self) -> (Splitter, u32) {
        (self.meta.splitter, self.meta.max_bins)
    }

    /// The conventions the tree was grown with ([`Conventions`]).
    pub fn conventions(&self) -> Conventions {
        self.meta.conventions
    }

    /// The child a row missing the node's tested value goes to (after its surrogates, if it
    /// has any); `None` for a leaf and for C4.5's fractions (every child, weight × r̃_v).
    pub fn missing_child(&self, node: NodeId) -> Option<NodeId> {
        let k = *self
            .missing_child
            .get(node.index())
            .filter(|&&c| c != NONE)?;
        self.children(node).nth(k as usize)
    }

    /// Whether a row this split cannot send stays in the node and takes its prediction:
    /// rpart's rule (`missing="surrogate"`) at a split whose two sides held equal known weight,
    /// which leaves it no majority side, once no surrogate can send the row.
    pub fn keeps_unsent(&self, node: NodeId) -> bool {
        self.meta.missing == MissingStrategy::Surrogate
            && self.children(node).next().is_some()
            && self.missing_child(node).is_none()
    }

    /// Training weight that reached the node with its tested value missing (0 for a leaf).
    pub fn missing_weight(&self, node: NodeId) -> f64 {
        self.missing_weight
            .get(node.index())
            .copied()
            .unwrap_or(0.0)
    }

    /// The node's surrogate splits, best first (empty unless grown with surrogates).
    pub fn surrogates(&self, node: NodeId) -> impl Iterator<Item = Surrogate<'_>> {
        let set = self.surrogate_set(node);
        (0..set.len()).filter_map(move |i| set.get(i, &self.meta.kinds))
    }

    pub(crate) fn surrogate_set(&self, node: NodeId) -> SurrogateSet<'_> {
        let i = node.index();
        let range = self
            .surrogate_offset
            .get(i)
            .copied()
            .filter(|&o| o != NONE)
            .and_then(|o| {
                let start = o as usize;
                Some(start..start.checked_add(*self.surrogate_len.get(i)? as usize)?)
            });
        let Some(range) = range else {
            return SurrogateSet::default();
        };
        match (
            self.surrogate_feature.get(range.clone()),
            self.surrogate_threshold.get(range.clone()),
            self.surrogate_agreement.get(range.clone()),
            self.surrogate_map.get(range),
        ) {
            (Some(feature), Some(threshold), Some(agreement), Some(map)) => SurrogateSet {
                feature,
                threshold,
                agreement,
                map,
                children: &self.surrogate_children,
            },
            _ => SurrogateSet::default(),
        }
    }

    /// Sets a node's missing-value routing: its missing child (index among its children),
    /// the surrogates of `set` (their maps copied) and the missing weight it saw in training.
    pub(crate) fn set_missing_rule(
        &mut self,
        node: NodeId,
        child: Option<usize>,
        set: &SurrogateSet<'_>,
        missing_weight: f64,
    ) {
        let i = node.index();
        if let Some(slot) = self.missing_child.get_mut(i) {
            *slot = child.map_or(NONE, |c| c as u32);
        }
        if let Some(slot) = self.missing_weight.get_mut(i) {
            *slot = missing_weight;
        }
        if set.len() == 0 {
            return;
        }
        let offset = self.surrogate_feature.len() as u32;
        let mut n = 0u32;
        for k in 0..set.len() {
            let Some(s) = set.get(k, &self.meta.kinds) else {
                continue;
            };
            self.surrogate_feature.push(s.feature as u32);
            self.surrogate_threshold.push(s.threshold);
            self.surrogate_agreement.push(s.agreement);
            self.surrogate_map
                .push(self.surrogate_children.len() as u32);
            self.surrogate_children.extend_from_slice(s.children);
            n += 1;
        }
        if let (Some(o), Some(l)) = (
            self.surrogate_offset.get_mut(i),
            self.surrogate_len.get_mut(i),
        ) {
            *o = offset;
            *l = n;
        }
    }

    /// All subset masks back to back (see [`NodeKind::Subset`]).
    pub fn subset_sides(&self) -> &[Side] {
        &self.sides
    }

    /// Where a subset node's mask starts in [`Tree::subset_sides`].
    pub fn subset_offset(&self, node: NodeId) -> Option<usize> {
        self.subset_offset
            .get(node.index())
            .copied()
            .filter(|&o| o != NONE)
            .map(|o| o as usize)
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
impl Tree {
    /// A chain `x <= d + 0.5` at depth d, `depth` levels deep, built straight into the arena
    /// (the walks over it must not recurse); the left leaf at depth d says class d % 2, the
    /// last right leaf class 0.
    pub(crate) fn chain(depth: u32) -> Tree {
        let mut tree = Tree::empty(TreeMeta::new(
            Criterion::Gini,
            vec![FeatureKind::Numeric],
            vec![2],
        ));
        let mut node = tree.push_node(None, 1.0);
        for d in 0..depth {
            let i = node.index();
            tree.tag[i] = SplitTag::Numeric;
            tree.feature[i] = 0;
            tree.threshold[i] = f64::from(d) + 0.5;
            let left = tree.push_node(Some(node), 0.5);
            let right = tree.push_node(Some(node), 0.5);
            tree.first_child[i] = left.0;
            tree.n_children[i] = 2;
            tree.value[left.index() * 2 + (d % 2) as usize] = 1.0;
            tree.label[left.index()] = d % 2;
            node = right;
        }
        tree.value[node.index() * 2] = 1.0;
        tree
    }
}
