//! A fitted tree, sealed: its nodes live in an [`Arena`] that only [`Writer`] writes, and
//! [`Tree`] gives them out through read methods.
//!
//! Six producers make trees (growth, subtrees grown apart and grafted back, the streamed
//! fit's replay, the optimal search, pruning's rebuild, the model file). Each writes through
//! the one writer, whose `finish` checks the arena's invariants ([`check`]): always for a
//! model file, after every build in debug and test builds. What the readers rely on (indices
//! in range, children after their parents, fractions that add up) is then said and checked
//! in one place rather than assumed by six.
//!
//! - [`node`]: the node's parts the readers and the writer exchange (ids, tests, scores,
//!   surrogates, summaries);
//! - [`meta`]: what the tree was grown with ([`TreeMeta`]) and what the optimal search proved;
//! - [`arena`]: the per-node vectors, as the model file stores them;
//! - [`writer`]: the one way to make or change a tree;
//! - [`check`]: the invariants, one linear pass.

mod arena;
mod check;
mod meta;
mod node;
mod writer;

pub(crate) use arena::{Arena, NONE};
pub use meta::{Optimality, TreeMeta};
pub use node::{FeatureScore, NodeId, NodeKind, Side, SplitTag, Surrogate};
pub(crate) use node::{Summary, SurrogateSet};
pub(crate) use writer::Writer;

use crate::criterion::Criterion;
use crate::data::FeatureKind;
use crate::error::{CoreError, Result};
use crate::params::{Conventions, MissingStrategy, Splitter};

/// A fitted decision tree. Made only by [`Writer`]; read through the methods below.
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    /// What the tree was grown with, carried whole ([`TreeMeta`]).
    meta: TreeMeta,
    arena: Arena,
    /// Set by the optimal search only: what it proved of this tree (a pruned copy is no
    /// longer what it proved, and has none).
    optimality: Option<Optimality>,
}

/// The read methods take node ids from their callers and never panic: an id outside the tree
/// reads as an empty leaf (no test, no children, nothing recorded), the one rule behind their
/// defaults. Inside the tree every per-node vector has the node's slot and every offset its
/// table's entries, which the writer's check ([`check`]) verifies.
impl Tree {
    /// A tree with no nodes, grown as `meta` says (what [`Writer`] starts from).
    fn empty(meta: TreeMeta) -> Self {
        Tree {
            meta,
            arena: Arena::default(),
            optimality: None,
        }
    }

    /// What the tree was grown with.
    pub fn meta(&self) -> &TreeMeta {
        &self.meta
    }

    /// The per-node vectors, read-only: for the model file, which stores them as they are.
    pub(crate) fn arena(&self) -> &Arena {
        &self.arena
    }

    pub fn criterion(&self) -> Criterion {
        self.meta.criterion
    }

    #[inline]
    pub fn n_nodes(&self) -> usize {
        self.arena.tag.len()
    }

    pub fn n_leaves(&self) -> usize {
        self.arena
            .tag
            .iter()
            .filter(|t| **t == SplitTag::Leaf)
            .count()
    }

    /// Depth of the deepest node (a single leaf has depth 0).
    pub fn max_depth(&self) -> usize {
        self.arena.depth.iter().copied().max().unwrap_or(0) as usize
    }

    pub fn n_features(&self) -> usize {
        self.meta.kinds.len()
    }

    pub fn feature_kinds(&self) -> &[FeatureKind] {
        &self.meta.kinds
    }

    /// Number of classes, summed over the outputs (the width of a node's class weights);
    /// 0 for a regression tree.
    #[inline]
    pub fn n_classes(&self) -> usize {
        self.meta.outputs.iter().sum()
    }

    /// Targets the tree predicts at once: 1, or several for a multi-output tree.
    #[inline]
    pub fn n_outputs(&self) -> usize {
        self.meta.outputs.len()
    }

    /// The classes of each output; 0 for a real-valued one.
    pub fn output_classes(&self) -> &[usize] {
        &self.meta.outputs
    }

    #[inline]
    pub fn is_regression(&self) -> bool {
        self.n_classes() == 0
    }

    /// Numbers per node in [`Tree::value`]: class weights, or 1 (the mean) per output for
    /// regression.
    #[inline]
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

    /// `values`, laid out as a node's [`Tree::value`], cut into each output's numbers
    /// ([`crate::data::blocks`]).
    pub fn by_output<'s, 'v>(
        &'s self,
        values: &'v [f64],
    ) -> impl Iterator<Item = &'v [f64]> + use<'s, 'v> {
        crate::data::blocks(values, self.output_ranges().map(|(_, len)| len))
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
    /// arena were inconsistent, which the writer's check rules out.
    #[inline]
    pub fn kind(&self, node: NodeId) -> NodeKind<'_> {
        let i = node.index();
        let feature = self.arena.feature.get(i).copied().unwrap_or(NONE) as usize;
        match self.arena.tag.get(i).copied().unwrap_or(SplitTag::Leaf) {
            SplitTag::Leaf => NodeKind::Leaf,
            SplitTag::Numeric => NodeKind::Numeric {
                feature,
                threshold: self.arena.threshold.get(i).copied().unwrap_or(f64::NAN),
            },
            SplitTag::Multiway => NodeKind::Multiway { feature },
            SplitTag::Oblique => {
                let (features, weights) = self.linear_terms(node).unwrap_or((&[], &[]));
                NodeKind::Oblique {
                    features,
                    weights,
                    threshold: self.arena.threshold.get(i).copied().unwrap_or(f64::NAN),
                }
            }
            SplitTag::Ordered => NodeKind::Ordered {
                feature,
                threshold: self.arena.threshold.get(i).copied().unwrap_or(0.0) as u32,
            },
            SplitTag::Subset => {
                let start = self.arena.subset_offset.get(i).copied().unwrap_or(0) as usize;
                let len = match self.meta.kinds.get(feature) {
                    Some(FeatureKind::Categorical { n_categories, .. }) => *n_categories as usize,
                    _ => 0,
                };
                NodeKind::Subset {
                    feature,
                    sides: self.arena.sides.get(start..start + len).unwrap_or(&[]),
                }
            }
        }
    }

    #[inline]
    pub fn tag(&self, node: NodeId) -> SplitTag {
        self.arena
            .tag
            .get(node.index())
            .copied()
            .unwrap_or(SplitTag::Leaf)
    }

    #[inline]
    pub fn children(
        &self,
        node: NodeId,
    ) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator {
        let i = node.index();
        let first = self.arena.first_child.get(i).copied().unwrap_or(NONE);
        let n = if first == NONE {
            0
        } else {
            self.arena.n_children.get(i).copied().unwrap_or(0)
        };
        (0..n).map(move |k| NodeId(first + k))
    }

    #[inline]
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        self.arena
            .parent
            .get(node.index())
            .copied()
            .filter(|&p| p != NONE)
            .map(NodeId)
    }

    #[inline]
    pub fn depth(&self, node: NodeId) -> usize {
        self.arena.depth.get(node.index()).copied().unwrap_or(0) as usize
    }

    /// Training weight that reached the node, fractional fragments included.
    #[inline]
    pub fn weight(&self, node: NodeId) -> f64 {
        self.arena.weight.get(node.index()).copied().unwrap_or(0.0)
    }

    /// Training rows that reached the node, each counted by how much of a row it is: a C4.5
    /// fragment counts as the fraction r̃ it carries (the product along its path), so this is
    /// the node's weight measured in rows, whatever the sample weights.
    #[inline]
    pub fn n_rows(&self, node: NodeId) -> f64 {
        self.arena.n_rows.get(node.index()).copied().unwrap_or(0.0)
    }

    /// Training rows of positive weight that reached the node, each counted once: a row
    /// split among the children by a missing value counts in every node it reached, whatever
    /// fraction it carries there (scikit-learn's `n_node_samples`; [`Self::n_rows`] is the
    /// weight the size rules count).
    #[inline]
    pub fn n_samples(&self, node: NodeId) -> u64 {
        self.arena.n_samples.get(node.index()).copied().unwrap_or(0)
    }

    #[inline]
    pub fn impurity(&self, node: NodeId) -> f64 {
        self.arena
            .impurity
            .get(node.index())
            .copied()
            .unwrap_or(0.0)
    }

    #[inline]
    pub fn branch_fraction(&self, node: NodeId) -> f64 {
        self.arena
            .branch_fraction
            .get(node.index())
            .copied()
            .unwrap_or(0.0)
    }

    /// The node's class (of the first output, for a multi-output tree).
    #[inline]
    pub fn label(&self, node: NodeId) -> u32 {
        self.labels(node).first().copied().unwrap_or(0)
    }

    /// The node's class of each output.
    #[inline]
    pub fn labels(&self, node: NodeId) -> &[u32] {
        let k = self.n_outputs();
        let start = node.index() * k;
        self.arena.label.get(start..start + k).unwrap_or(&[])
    }

    /// Class weights (classification) or `[mean]` (regression) of the node, each output's in
    /// turn ([`Tree::output_ranges`]). An empty node holds its parent's distribution (text
    /// 000 Algorithm 4.1).
    #[inline]
    pub fn value(&self, node: NodeId) -> &[f64] {
        let w = self.value_width();
        let start = node.index() * w;
        self.arena.value.get(start..start + w).unwrap_or(&[])
    }

    /// J48 -A's leaf estimates (Weka's `Distribution.laplaceProb`): a copy whose leaves hold
    /// one more of each class, so the probabilities it predicts are (n_k + 1) / (n + K), each
    /// output's on its own. An empty leaf holds its parent's distribution, so it gives its
    /// parent's estimate, as J48's `classProbLaplace` of an empty branch does. `None` for a
    /// regression tree, whose values are means.
    pub fn laplace_smoothed(&self) -> Option<Tree> {
        if self.is_regression() {
            return None;
        }
        let mut smoothed = self.clone();
        let w = self.value_width();
        for node in (0..self.n_nodes() as u32).map(NodeId) {
            if matches!(self.kind(node), NodeKind::Leaf) {
                let start = node.index() * w;
                if let Some(value) = smoothed.arena.value.get_mut(start..start + w) {
                    value.iter_mut().for_each(|v| *v += 1.0);
                }
            }
        }
        Some(smoothed)
    }

    /// Per-feature scores recorded when the node was searched; `None` if it never was.
    #[inline]
    pub fn node_scores(&self, node: NodeId) -> Option<&[FeatureScore]> {
        let off = *self.arena.score_offset.get(node.index())?;
        if off == NONE {
            return None;
        }
        let start = off as usize;
        self.arena.scores.get(start..start + self.n_features())
    }

    /// The features and weights of an oblique node's linear test; `None` for other nodes.
    #[inline]
    pub fn linear_terms(&self, node: NodeId) -> Option<(&[u32], &[f64])> {
        let i = node.index();
        let start = *self.arena.linear_offset.get(i).filter(|&&o| o != NONE)? as usize;
        let end = start + *self.arena.linear_len.get(i)? as usize;
        Some((
            self.arena.linear_features.get(start..end)?,
            self.arena.linear_weights.get(start..end)?,
        ))
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
    #[inline]
    pub fn missing_child(&self, node: NodeId) -> Option<NodeId> {
        self.children(node).nth(self.missing_child_index(node)?)
    }

    /// Whether a row this split cannot send stays in the node and takes its prediction:
    /// rpart's rule (`missing="surrogate"`) at a split whose two sides held equal known weight,
    /// which leaves it no majority side, once no surrogate can send the row.
    #[inline]
    pub fn keeps_unsent(&self, node: NodeId) -> bool {
        self.meta.missing == MissingStrategy::Surrogate
            && self.children(node).next().is_some()
            && self.missing_child(node).is_none()
    }

    /// Training weight that reached the node with its tested value missing (0 for a leaf).
    #[inline]
    pub fn missing_weight(&self, node: NodeId) -> f64 {
        self.arena
            .missing_weight
            .get(node.index())
            .copied()
            .unwrap_or(0.0)
    }

    /// The node's surrogate splits, best first (empty unless grown with surrogates).
    pub fn surrogates(&self, node: NodeId) -> impl Iterator<Item = Surrogate<'_>> {
        let set = self.surrogate_set(node);
        (0..set.len()).filter_map(move |i| set.get(i, &self.meta.kinds))
    }

    #[inline]
    pub(crate) fn surrogate_set(&self, node: NodeId) -> SurrogateSet<'_> {
        let i = node.index();
        let range = self
            .arena
            .surrogate_offset
            .get(i)
            .copied()
            .filter(|&o| o != NONE)
            .and_then(|o| {
                let start = o as usize;
                Some(start..start.checked_add(*self.arena.surrogate_len.get(i)? as usize)?)
            });
        let Some(range) = range else {
            return SurrogateSet::default();
        };
        match (
            self.arena.surrogate_feature.get(range.clone()),
            self.arena.surrogate_threshold.get(range.clone()),
            self.arena.surrogate_agreement.get(range.clone()),
            self.arena.surrogate_adjusted.get(range.clone()),
            self.arena.surrogate_map.get(range),
        ) {
            (Some(feature), Some(threshold), Some(agreement), Some(adjusted), Some(map)) => {
                SurrogateSet {
                    feature,
                    threshold,
                    agreement,
                    adjusted,
                    map,
                    children: &self.arena.surrogate_children,
                }
            }
            _ => SurrogateSet::default(),
        }
    }

    /// All subset masks back to back (see [`NodeKind::Subset`]).
    #[inline]
    pub fn subset_sides(&self) -> &[Side] {
        &self.arena.sides
    }

    /// Where a subset node's mask starts in [`Tree::subset_sides`].
    #[inline]
    pub fn subset_offset(&self, node: NodeId) -> Option<usize> {
        self.arena
            .subset_offset
            .get(node.index())
            .copied()
            .filter(|&o| o != NONE)
            .map(|o| o as usize)
    }
    /// What training left in the node, whole (to copy it to another tree).
    pub(crate) fn summary(&self, node: NodeId) -> Summary<'_> {
        Summary {
            weight: self.weight(node),
            n_rows: self.n_rows(node),
            n_samples: self.n_samples(node),
            impurity: self.impurity(node),
            value: self.value(node),
            labels: self.labels(node),
        }
    }

    /// Which of its children a row missing the node's tested value goes to (its index among
    /// them); `None` for a leaf and for C4.5's fractions.
    #[inline]
    pub(crate) fn missing_child_index(&self, node: NodeId) -> Option<usize> {
        self.arena
            .missing_child
            .get(node.index())
            .copied()
            .filter(|&c| c != NONE)
            .map(|c| c as usize)
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::expect_used)]
impl Tree {
    /// A chain `x <= d + 0.5` at depth d, `depth` levels deep (the walks over it must not
    /// recurse); the left leaf at depth d says class d % 2, the last right leaf class 0.
    pub(crate) fn chain(depth: u32) -> Tree {
        let mut tree = Writer::new(TreeMeta::new(
            Criterion::Gini,
            vec![FeatureKind::Numeric],
            vec![2],
        ));
        let leaf = |tree: &mut Writer, node: NodeId, class: u32| {
            let mut value = [0.0; 2];
            value[class as usize] = 1.0;
            let summary = Summary {
                weight: 0.0,
                n_rows: 0.0,
                n_samples: 0,
                impurity: 0.0,
                value: &value,
                labels: &[class],
            };
            tree.set_summary(node, &summary);
        };
        let mut node = tree.root(1.0);
        for d in 0..depth {
            let test = NodeKind::Numeric {
                feature: 0,
                threshold: f64::from(d) + 0.5,
            };
            let children = tree.split(node, &test, &[0.5, 0.5]);
            leaf(&mut tree, children[0], d % 2);
            node = children[1];
        }
        leaf(&mut tree, node, 0);
        tree.finish().expect("a chain keeps the arena's rules")
    }
}
