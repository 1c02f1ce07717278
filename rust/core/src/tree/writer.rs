//! The one way to make a [`Tree`]: every producer appends nodes and sets their tests,
//! missing-value rules and summaries through a [`Writer`], then [`Writer::finish`]es it, which
//! checks the arena ([`super::check`]) before the tree is let out.
//!
//! A writer reads as the tree it is writing (it dereferences to [`Tree`]), since growth reads
//! a node's parent and depth while it makes the node. Nodes are only ever appended and
//! filled in: a leaf becomes a split once ([`Writer::split`], [`Writer::split_like`]), and a
//! pass that changes a tree's shape (pruning, grafting) writes a new tree from the old one.

use std::ops::Deref;

use super::arena::{Arena, NONE};
use super::check::check;
use super::meta::{Optimality, TreeMeta};
use super::node::{FeatureScore, NodeId, NodeKind, Side, SplitTag, Summary, SurrogateSet};
use super::Tree;
use crate::control::Control;
use crate::error::{CoreError, Result};

/// A tree being written. Dropped unfinished, it is a draft (the streamed fit's working tree,
/// a subtree grown apart before it is grafted back) that never reaches a reader.
#[derive(Debug)]
pub(crate) struct Writer {
    tree: Tree,
    /// The nodes came whole from outside (a model file): they are checked in every build.
    outside: bool,
    /// The first write the arena could not take (a node that does not exist, a summary of
    /// the wrong width, a leaf split twice): a producer's mistake, which `finish` reports
    /// rather than a tree silently missing a figure.
    fault: Option<String>,
}

impl Deref for Writer {
    type Target = Tree;

    #[inline]
    fn deref(&self) -> &Tree {
        &self.tree
    }
}

impl Writer {
    /// A tree without nodes, grown as `meta` says.
    pub(crate) fn new(meta: TreeMeta) -> Writer {
        Writer {
            tree: Tree::empty(meta),
            outside: false,
            fault: None,
        }
    }

    /// A tree without nodes, grown as `tree` was (its whole [`TreeMeta`]).
    pub(crate) fn like(tree: &Tree) -> Writer {
        Writer::new(tree.meta.clone())
    }

    /// The tree of a model file's arena: [`Self::finish`] checks it whatever the build.
    pub(crate) fn from_arena(
        meta: TreeMeta,
        arena: Arena,
        optimality: Option<Optimality>,
    ) -> Writer {
        Writer {
            tree: Tree {
                meta,
                arena,
                optimality,
            },
            outside: true,
            fault: None,
        }
    }

    /// The tree, once its arena is checked: always for a model file; in debug and test
    /// builds for a tree made here, where a failure is a bug of its producer (the check is
    /// linear in the tree, which release builds of a fit do not pay).
    pub(crate) fn finish(self) -> Result<Tree> {
        if let Some(reason) = self.fault {
            return Err(CoreError::BrokenTree { reason });
        }
        if self.outside {
            check(&self.tree).map_err(|reason| CoreError::CorruptModel { reason })?;
        } else if cfg!(debug_assertions) {
            check(&self.tree).map_err(|reason| CoreError::BrokenTree { reason })?;
        }
        Ok(self.tree)
    }

    fn fault(&mut self, what: impl FnOnce() -> String) {
        if self.fault.is_none() {
            self.fault = Some(what());
        }
    }

    /// Room for `k` more nodes, or `None` when the memory cannot be had (recorded in
    /// `control`): the pushes that follow then cannot abort the process.
    pub(crate) fn reserve_nodes(&mut self, k: usize, control: &Control) -> Option<()> {
        let (outputs, width) = (self.tree.n_outputs(), self.tree.value_width());
        self.tree.arena.reserve(k, outputs, width, control)
    }

    /// Room for a copy of `kind`'s subset mask or linear terms ([`Self::split_like`]).
    pub(crate) fn reserve_test(&mut self, kind: &NodeKind<'_>, control: &Control) -> Option<()> {
        let a = &mut self.tree.arena;
        match kind {
            NodeKind::Subset { sides, .. } => control.reserve(&mut a.sides, sides.len()),
            NodeKind::Oblique { features, .. } => {
                control.reserve(&mut a.linear_features, features.len())?;
                control.reserve(&mut a.linear_weights, features.len())
            }
            _ => Some(()),
        }
    }

    /// Room for `k` more recorded scores ([`Self::set_scores`]).
    pub(crate) fn reserve_scores(&mut self, k: usize, control: &Control) -> Option<()> {
        control.reserve(&mut self.tree.arena.scores, k)
    }

    /// Appends the root: a leaf with nothing recorded, and the share `branch_fraction` of
    /// its parent's weight when the tree copies a subtree (1 otherwise).
    pub(crate) fn root(&mut self, branch_fraction: f64) -> NodeId {
        self.detached_root(branch_fraction, 0)
    }

    /// The root of a piece grown apart from a node at `depth` of another tree, its nodes at
    /// their depths in that tree, to be grafted back there ([`crate::subtrees`]); such a piece
    /// is never finished on its own (a tree's root has depth 0).
    pub(crate) fn detached_root(&mut self, branch_fraction: f64, depth: u32) -> NodeId {
        if self.tree.n_nodes() > 0 {
            self.fault(|| "a second root".into());
        }
        let (outputs, width) = (self.tree.n_outputs(), self.tree.value_width());
        self.tree
            .arena
            .push_leaf(NONE, depth, branch_fraction, outputs, width)
    }

    /// Sets what training left in `node` (its weight, rows, impurity, value and labels).
    pub(crate) fn set_summary(&mut self, node: NodeId, summary: &Summary<'_>) {
        let i = node.index();
        let (k, w) = (self.tree.n_outputs(), self.tree.value_width());
        let a = &mut self.tree.arena;
        let slots = (
            a.weight.get_mut(i),
            a.n_rows.get_mut(i),
            a.n_samples.get_mut(i),
            a.impurity.get_mut(i),
            a.label.get_mut(i * k..(i + 1) * k),
            a.value.get_mut(i * w..(i + 1) * w),
        );
        match slots {
            (
                Some(weight),
                Some(n_rows),
                Some(n_samples),
                Some(impurity),
                Some(labels),
                Some(value),
            ) if labels.len() == summary.labels.len() && value.len() == summary.value.len() => {
                *weight = summary.weight;
                *n_rows = summary.n_rows;
                *n_samples = summary.n_samples;
                *impurity = summary.impurity;
                labels.copy_from_slice(summary.labels);
                value.copy_from_slice(summary.value);
            }
            _ => self.fault(|| {
                format!(
                    "node {i}: a summary of {} labels and {} values, for a node of {k} and {w}",
                    summary.labels.len(),
                    summary.value.len()
                )
            }),
        }
    }

    /// Records the per-feature scores `node` was searched with (one per feature).
    pub(crate) fn set_scores(&mut self, node: NodeId, scores: &[FeatureScore]) {
        let a = &mut self.tree.arena;
        let offset = a.scores.len() as u32;
        match a.score_offset.get_mut(node.index()) {
            Some(slot) => {
                *slot = offset;
                a.scores.extend_from_slice(scores);
            }
            None => self.fault(|| format!("scores for node {}, which does not exist", node.0)),
        }
    }

    /// Turns the leaf `node` into a split by `kind` and appends its children, contiguous,
    /// each with its share of the node's known weight (`fractions`, one per outcome).
    /// Returns the children, in order.
    pub(crate) fn split(
        &mut self,
        node: NodeId,
        kind: &NodeKind<'_>,
        fractions: &[f64],
    ) -> Vec<NodeId> {
        let (tag, feature, threshold, sides, linear) = match *kind {
            NodeKind::Leaf => {
                self.fault(|| format!("node {}: a split without a test", node.0));
                return Vec::new();
            }
            NodeKind::Numeric { feature, threshold } => {
                (SplitTag::Numeric, feature as u32, threshold, None, None)
            }
            NodeKind::Multiway { feature } => {
                (SplitTag::Multiway, feature as u32, f64::NAN, None, None)
            }
            NodeKind::Subset { feature, sides } => (
                SplitTag::Subset,
                feature as u32,
                f64::NAN,
                Some(sides),
                None,
            ),
            NodeKind::Ordered { feature, threshold } => (
                SplitTag::Ordered,
                feature as u32,
                f64::from(threshold),
                None,
                None,
            ),
            // An oblique test reads the features of its terms, none of its own.
            NodeKind::Oblique {
                features,
                weights,
                threshold,
            } => (
                SplitTag::Oblique,
                NONE,
                threshold,
                None,
                Some((features, weights)),
            ),
        };
        if !self.set_test(node, tag, feature, threshold, sides, linear) {
            return Vec::new();
        }
        self.add_children(node, fractions.iter().copied())
    }

    /// Splits the leaf `node` as `from` is split in `src`, its test copied as stored, with
    /// children of the given `fractions` (a pruned or grafted copy of `src`). The
    /// missing-value rule is the caller's to copy ([`Self::set_missing_rule`]).
    pub(crate) fn split_like(
        &mut self,
        node: NodeId,
        src: &Tree,
        from: NodeId,
        fractions: impl IntoIterator<Item = f64>,
    ) -> Vec<NodeId> {
        let j = from.index();
        let s = &src.arena;
        let stored = (
            s.tag.get(j).copied(),
            s.feature.get(j).copied(),
            s.threshold.get(j).copied(),
        );
        let (Some(tag), Some(feature), Some(threshold)) = stored else {
            self.fault(|| format!("a copy of node {j}, which does not exist"));
            return Vec::new();
        };
        let sides = match src.kind(from) {
            NodeKind::Subset { sides, .. } => Some(sides),
            _ => None,
        };
        if !self.set_test(node, tag, feature, threshold, sides, src.linear_terms(from)) {
            return Vec::new();
        }
        self.add_children(node, fractions)
    }

    /// Stores a leaf's test; `false` (a fault) when `node` is not a leaf of this tree.
    fn set_test(
        &mut self,
        node: NodeId,
        tag: SplitTag,
        feature: u32,
        threshold: f64,
        sides: Option<&[Side]>,
        linear: Option<(&[u32], &[f64])>,
    ) -> bool {
        let i = node.index();
        if tag == SplitTag::Leaf || i >= self.n_nodes() || self.tree.tag(node) != SplitTag::Leaf {
            self.fault(|| format!("node {i}: a {tag:?} test on a node that is not a leaf"));
            return false;
        }
        let a = &mut self.tree.arena;
        if let Some(sides) = sides {
            let offset = a.sides.len() as u32;
            a.sides.extend_from_slice(sides);
            set(&mut a.subset_offset, i, offset);
        }
        if let Some((features, weights)) = linear {
            set(&mut a.linear_offset, i, a.linear_features.len() as u32);
            set(&mut a.linear_len, i, features.len() as u32);
            a.linear_features.extend_from_slice(features);
            a.linear_weights.extend_from_slice(weights);
        }
        set(&mut a.tag, i, tag);
        set(&mut a.feature, i, feature);
        set(&mut a.threshold, i, threshold);
        true
    }

    /// Appends the children of `node` (one level deeper), contiguous, and points it at them.
    fn add_children(
        &mut self,
        node: NodeId,
        fractions: impl IntoIterator<Item = f64>,
    ) -> Vec<NodeId> {
        let (outputs, width) = (self.tree.n_outputs(), self.tree.value_width());
        let depth = self.tree.depth(node) as u32 + 1;
        let a = &mut self.tree.arena;
        let children: Vec<NodeId> = fractions
            .into_iter()
            .map(|f| a.push_leaf(node.0, depth, f, outputs, width))
            .collect();
        let i = node.index();
        set(
            &mut a.first_child,
            i,
            children.first().map_or(NONE, |c| c.0),
        );
        set(&mut a.n_children, i, children.len() as u32);
        children
    }

    /// Sets a split's missing-value routing: its missing child (index among its children),
    /// the surrogates of `set` (their maps copied) and the missing weight it saw in training.
    pub(crate) fn set_missing_rule(
        &mut self,
        node: NodeId,
        child: Option<usize>,
        surrogates: &SurrogateSet<'_>,
        missing_weight: f64,
    ) {
        let i = node.index();
        if i >= self.n_nodes() {
            self.fault(|| format!("a missing-value rule for node {i}, which does not exist"));
            return;
        }
        let a = &mut self.tree.arena;
        set(&mut a.missing_child, i, child.map_or(NONE, |c| c as u32));
        set(&mut a.missing_weight, i, missing_weight);
        if surrogates.len() == 0 {
            return;
        }
        let offset = a.surrogate_feature.len() as u32;
        let mut n = 0u32;
        for k in 0..surrogates.len() {
            let Some(s) = surrogates.get(k, &self.tree.meta.kinds) else {
                continue;
            };
            a.surrogate_feature.push(s.feature as u32);
            a.surrogate_threshold.push(s.threshold);
            a.surrogate_agreement.push(s.agreement);
            a.surrogate_adjusted.push(s.adjusted);
            a.surrogate_map.push(a.surrogate_children.len() as u32);
            a.surrogate_children.extend_from_slice(s.children);
            n += 1;
        }
        set(&mut a.surrogate_offset, i, offset);
        set(&mut a.surrogate_len, i, n);
    }

    /// Records what the optimal search proved of the tree.
    pub(crate) fn set_optimality(&mut self, optimality: Optimality) {
        self.tree.optimality = Some(optimality);
    }
}

/// Writes slot `i` of a per-node vector; callers check `i` against the arena first.
fn set<T>(v: &mut [T], i: usize, x: T) {
    if let Some(slot) = v.get_mut(i) {
        *slot = x;
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::criterion::Criterion;
    use crate::data::FeatureKind;

    fn stump(fractions: &[f64]) -> Writer {
        let mut tree = Writer::new(TreeMeta::new(
            Criterion::Gini,
            vec![FeatureKind::Numeric],
            vec![2],
        ));
        let root = tree.root(1.0);
        let test = NodeKind::Numeric {
            feature: 0,
            threshold: 0.5,
        };
        tree.split(root, &test, fractions);
        tree
    }

    #[test]
    fn a_sound_tree_is_let_out() {
        let tree = stump(&[0.25, 0.75]).finish();
        assert_eq!(tree.map(|t| t.n_leaves()), Ok(2));
    }

    /// A producer's mistake is the core's error, never a panic nor a tree missing a figure.
    #[test]
    fn a_producers_mistake_is_an_error() {
        let mut twice = stump(&[0.5, 0.5]);
        twice.split(NodeId::ROOT, &NodeKind::Multiway { feature: 0 }, &[1.0]);
        let mut wide = stump(&[0.5, 0.5]);
        let summary = Summary {
            weight: 1.0,
            n_rows: 1.0,
            n_samples: 1,
            impurity: 0.0,
            value: &[1.0, 0.0, 0.0],
            labels: &[0],
        };
        wide.set_summary(NodeId(1), &summary);
        for broken in [twice, wide] {
            assert!(matches!(broken.finish(), Err(CoreError::BrokenTree { .. })));
        }
    }

    /// Debug and test builds check every tree a producer finishes.
    #[test]
    #[cfg(debug_assertions)]
    fn a_built_tree_breaking_the_rules_is_an_error() {
        let broken = stump(&[0.5, 0.25]).finish();
        assert!(matches!(broken, Err(CoreError::BrokenTree { .. })));
    }

    /// The arena of a model file is checked in every build, and named a damaged model.
    #[test]
    fn a_model_files_arena_is_always_checked() {
        let tree = stump(&[0.5, 0.25]).tree;
        let read = Writer::from_arena(tree.meta.clone(), tree.arena.clone(), None);
        assert!(matches!(read.finish(), Err(CoreError::CorruptModel { .. })));
    }
}
