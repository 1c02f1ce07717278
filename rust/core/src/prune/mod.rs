//! Post-pruning: pure passes over a grown tree that return a new, compact tree.
//!
//! - [`reduced_error`]: text 000 §4.3.2 and text 004's Algorithm 2, with validation data.
//! - [`pessimistic`]: C4.5's error-based pruning with optional subtree raising, as in C4.5
//!   release 8 / Weka J48.
//! - [`cost_complexity`] and [`cost_complexity_path`]: CART's minimal cost-complexity
//!   (weakest-link) pruning with scikit-learn's semantics.
//!
//! Every pass reads its input and never changes it. What they share lives here: [`compact`]
//! (the output arena, numbered the way the builder numbers), `Shape` (the working form of a
//! tree while it is pruned) and `Rows` (data rows routed down a tree with C4.5's fractions,
//! for the validation errors of reduced-error pruning and the re-distribution of subtree
//! raising). Nothing recurses: trees can be 100,000 levels deep.

mod cost_complexity;
mod pessimistic;
mod reduced_error;

pub use cost_complexity::{cost_complexity, cost_complexity_path, CostComplexityPath};
pub use pessimistic::{pessimistic, Training};
pub use reduced_error::{reduced_error, PruneStep};

use crate::builder::majority;
use crate::data::{validate_weights, Column, Dataset, Target};
use crate::error::{CoreError, Result};
use crate::split::route;
use crate::tree::{NodeId, NodeKind, SplitTag, Tree};

/// Collapses every node `i` with `collapse[i] == true` into a leaf (keeping its value, label,
/// weight and impurity), drops the nodes this makes unreachable and renumbers the rest as the
/// builder numbers a tree: root 0, the children of a node allocated together (contiguous, after
/// their parent) when it is reached in depth-first order. Subset masks and recorded scores of
/// kept nodes are copied; depths are recomputed. A `collapse` shorter than the tree leaves the
/// nodes it does not cover as they are; an all-`false` mask returns a copy of the tree.
pub fn compact(tree: &Tree, collapse: &[bool]) -> Tree {
    let mut shape = Shape::of(tree);
    for (i, _) in collapse.iter().enumerate().filter(|(_, &c)| c) {
        shape.collapse(NodeId(i as u32));
    }
    rebuild(tree, &shape, None)
}

/// Checks rows handed to a pruning pass against the tree: the fitted features with their
/// kinds (the rules of prediction, so unknown category codes are routed like missing values),
/// a target of the tree's kind and number of classes, and one finite positive weight per row
/// (as [`crate::grow`] checks them).
pub(crate) fn check_rows(
    tree: &Tree,
    data: &Dataset<'_>,
    target: &Target<'_>,
    weights: &[f64],
) -> Result<()> {
    data.validate_for_predict(tree.feature_kinds())?;
    match target {
        Target::Classes { .. } if tree.is_regression() => {
            return Err(CoreError::InvalidParameter {
                name: "target",
                reason: "the tree is a regression tree: it needs real-valued targets".into(),
            })
        }
        Target::Values(_) if !tree.is_regression() => {
            return Err(CoreError::InvalidParameter {
                name: "target",
                reason: "the tree is a classification tree: it needs class codes".into(),
            })
        }
        Target::Classes { n_classes, .. } if *n_classes != tree.n_classes() => {
            return Err(CoreError::ShapeMismatch {
                what: "the number of classes".into(),
                expected: tree.n_classes(),
                got: *n_classes,
            })
        }
        _ => {}
    }
    target.validate(data.n_rows())?;
    validate_weights(weights, data.n_rows())
}

// ---------------------------------------------------------------------------------------------
// The working form of a tree being pruned.

/// Which nodes are leaves now, and whose test each node applies: its own, or that of the
/// descendant C4.5's subtree raising put in its place. Node ids are the input tree's; a
/// node's statistics stay with its id, its test and children move with the raised branch.
#[derive(Debug, Clone)]
pub(crate) struct Shape {
    occupant: Vec<u32>,
    leaf: Vec<bool>,
}

impl Shape {
    pub(crate) fn of(tree: &Tree) -> Shape {
        Shape {
            occupant: (0..tree.n_nodes() as u32).collect(),
            leaf: tree.tag.iter().map(|t| *t == SplitTag::Leaf).collect(),
        }
    }

    pub(crate) fn is_leaf(&self, node: NodeId) -> bool {
        self.leaf.get(node.index()).copied().unwrap_or(true)
    }

    pub(crate) fn collapse(&mut self, node: NodeId) {
        if let Some(l) = self.leaf.get_mut(node.index()) {
            *l = true;
        }
    }

    /// Puts `branch`'s test and children in `node`'s place (subtree raising).
    pub(crate) fn raise(&mut self, node: NodeId, branch: NodeId) {
        let (occupant, leaf) = (self.occupant(branch), self.is_leaf(branch));
        if let (Some(o), Some(l)) = (
            self.occupant.get_mut(node.index()),
            self.leaf.get_mut(node.index()),
        ) {
            *o = occupant.0;
            *l = leaf;
        }
    }

    fn occupant(&self, node: NodeId) -> NodeId {
        NodeId(self.occupant.get(node.index()).copied().unwrap_or(node.0))
    }

    /// The test `node` applies now.
    pub(crate) fn kind<'t>(&self, tree: &'t Tree, node: NodeId) -> NodeKind<'t> {
        if self.is_leaf(node) {
            NodeKind::Leaf
        } else {
            tree.kind(self.occupant(node))
        }
    }

    /// The children `node` has now.
    pub(crate) fn children(&self, tree: &Tree, node: NodeId) -> impl Iterator<Item = NodeId> {
        let n = if self.is_leaf(node) { 0 } else { usize::MAX };
        tree.children(self.occupant(node)).take(n)
    }
}

/// Statistics that subtree raising re-computed from the training rows, for the nodes below a
/// raised branch (their rows changed). Indexed by input node id.
#[derive(Debug, Clone)]
pub(crate) struct Redistributed {
    pub changed: Vec<bool>,
    /// Class weights, `n_classes` per node.
    pub dist: Vec<f64>,
    pub n_rows: Vec<f64>,
    pub fraction: Vec<f64>,
}

/// Writes the tree `shape` describes into a new arena, numbered as the builder numbers (so an
/// unpruned shape reproduces the input): a node's children are allocated when the node is
/// reached, and the first child is reached first.
pub(crate) fn rebuild(tree: &Tree, shape: &Shape, redone: Option<&Redistributed>) -> Tree {
    let mut out = Tree::empty(tree.criterion, tree.kinds.clone(), tree.n_classes);
    if tree.n_nodes() == 0 {
        return out;
    }
    let root = out.push_node(None, tree.branch_fraction(NodeId::ROOT));
    let mut stack = vec![(NodeId::ROOT, root)];
    while let Some((node, new)) = stack.pop() {
        let changed = redone.filter(|r| r.changed.get(node.index()).copied() == Some(true));
        match changed {
            Some(r) => summarise_redistributed(&mut out, tree, r, node, new),
            None => copy_summary(&mut out, tree, node, new),
        }
        if shape.is_leaf(node) {
            continue;
        }
        let test = shape.occupant(node);
        copy_test(&mut out, tree, test, new);
        let kids: Vec<(NodeId, NodeId)> = shape
            .children(tree, node)
            .map(|child| {
                let fraction = redone
                    .and_then(|r| r.fraction.get(child.index()).copied())
                    .unwrap_or_else(|| tree.branch_fraction(child));
                (child, out.push_node(Some(new), fraction))
            })
            .collect();
        if let (Some(first), Some(slot), Some(n)) = (
            kids.first(),
            out.first_child.get_mut(new.index()),
            out.n_children.get_mut(new.index()),
        ) {
            *slot = first.1 .0;
            *n = kids.len() as u32;
        }
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// Copies a node's statistics and recorded scores unchanged.
fn copy_summary(out: &mut Tree, tree: &Tree, node: NodeId, new: NodeId) {
    let j = new.index();
    set(&mut out.weight, j, tree.weight(node));
    set(&mut out.n_rows, j, tree.n_rows(node));
    set(&mut out.impurity, j, tree.impurity(node));
    set(&mut out.label, j, tree.label(node));
    let w = tree.value_width();
    if let Some(dst) = out.value.get_mut(j * w..(j + 1) * w) {
        dst.copy_from_slice(tree.value(node));
    }
    if let Some(scores) = tree.node_scores(node) {
        set(&mut out.score_offset, j, out.scores.len() as u32);
        out.scores.extend_from_slice(scores);
    }
}

/// Summarises a node from its re-distributed class weights as the builder summarises a node
/// from its rows: an empty node keeps its parent's distribution, label and impurity
/// (Algorithm 4.1, line 12); the label's ties go to the parent's class. Its recorded scores
/// described other rows, so they are dropped.
fn summarise_redistributed(
    out: &mut Tree,
    tree: &Tree,
    redone: &Redistributed,
    node: NodeId,
    new: NodeId,
) {
    let (k, j) = (tree.value_width(), new.index());
    let dist = redone
        .dist
        .get(node.index() * k..(node.index() + 1) * k)
        .unwrap_or(&[]);
    let weight: f64 = dist.iter().sum();
    let parent = out.parent(new);
    if weight > 0.0 {
        set(&mut out.weight, j, weight);
        let n_rows = redone.n_rows.get(node.index()).copied().unwrap_or(0.0);
        set(&mut out.n_rows, j, n_rows);
        set(&mut out.impurity, j, tree.criterion.impurity(dist));
        let label = majority(dist, parent.map(|p| out.label(p)));
        set(&mut out.label, j, label);
        if let Some(dst) = out.value.get_mut(j * k..(j + 1) * k) {
            dst.copy_from_slice(dist);
        }
    } else if let Some(p) = parent {
        let (value, label, impurity) = (out.value(p).to_vec(), out.label(p), out.impurity(p));
        set(&mut out.label, j, label);
        set(&mut out.impurity, j, impurity);
        if let Some(dst) = out.value.get_mut(j * k..(j + 1) * k) {
            dst.copy_from_slice(&value);
        }
    }
}

/// Copies the test of input node `test` (tag, feature, threshold, subset mask) onto `new`.
fn copy_test(out: &mut Tree, tree: &Tree, test: NodeId, new: NodeId) {
    let (i, j) = (test.index(), new.index());
    set(&mut out.tag, j, tree.tag(test));
    if let Some(&f) = tree.feature.get(i) {
        set(&mut out.feature, j, f);
    }
    if let Some(&t) = tree.threshold.get(i) {
        set(&mut out.threshold, j, t);
    }
    if let NodeKind::Subset { sides, .. } = tree.kind(test) {
        set(&mut out.subset_offset, j, out.sides.len() as u32);
        out.sides.extend_from_slice(sides);
    }
}

fn set<T>(v: &mut [T], i: usize, x: T) {
    if let Some(slot) = v.get_mut(i) {
        *slot = x;
    }
}

// ---------------------------------------------------------------------------------------------
// Data rows routed down a tree.

/// How a row missing the tested value is shared among the children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fractions {
    /// The fractions r̃_v stored at growth, as prediction uses them (text 000 §4.4.2).
    Stored,
    /// The shares of the known weight among the rows at hand, or equal shares when none is
    /// known, as C4.5 release 8 / Weka J48 re-distribute rows after subtree raising
    /// (`C45Split.resetDistribution`, `Distribution.addInstWithUnknown`).
    Observed,
}

/// Entries `start..end` of a [`Rows`] buffer, each counting its weight × `scale`: the product
/// of the fractions of the missing-value branches its rows followed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seg {
    start: usize,
    end: usize,
    scale: f64,
}

/// The rows reaching a node: several segments, since a row missing a tested value reaches
/// every child.
pub(crate) type RowSet = Vec<Seg>;

/// What a walk ([`Rows::walk`]) reports.
pub(crate) trait Visit {
    /// Every node reached, parents first, with the rows that reach it.
    fn node(&mut self, node: NodeId, is_leaf: bool, rows: &Rows<'_, '_>, set: &[Seg]);
    /// Every split passed, with the share of a missing row's weight each child received.
    fn fractions(&mut self, _children: &[NodeId], _fractions: &[f64]) {}
}

/// Data rows with their weights, in a buffer that walks reorder in place.
///
/// A node's rows are segments of the buffer; splitting a node reorders each of its segments as
/// [child 0 | child 1 | … | missing], so every child's rows are sub-segments of its parent's
/// (plus the parent's missing part, scaled). Reordering inside a segment leaves every other
/// node's segments describing the same rows, which is what lets a pruning pass keep the rows
/// of a whole root-to-node path for the price of the buffer and a few segments per node.
pub(crate) struct Rows<'a, 'd> {
    columns: &'a [Column<'d>],
    row: Vec<u32>,
    weight: Vec<f64>,
    bucket: Vec<usize>,
    scratch: Vec<(u32, f64)>,
}

impl<'a, 'd> Rows<'a, 'd> {
    /// All rows of `data` with `weights`, and the set holding them all.
    pub(crate) fn new(data: &'a Dataset<'d>, weights: &[f64]) -> (Rows<'a, 'd>, RowSet) {
        let n = data.n_rows().min(weights.len());
        let rows = Rows {
            columns: data.columns(),
            row: (0..n as u32).collect(),
            weight: weights.get(..n).unwrap_or(&[]).to_vec(),
            bucket: Vec::new(),
            scratch: Vec::new(),
        };
        (
            rows,
            vec![Seg {
                start: 0,
                end: n,
                scale: 1.0,
            }],
        )
    }

    /// Each entry of `set` as (row, weight × scale).
    pub(crate) fn entries<'s>(&'s self, set: &'s [Seg]) -> impl Iterator<Item = (usize, f64)> + 's {
        set.iter().flat_map(move |s| {
            let rows = self.row.get(s.start..s.end).unwrap_or(&[]);
            let weights = self.weight.get(s.start..s.end).unwrap_or(&[]);
            rows.iter()
                .zip(weights)
                .map(move |(&r, &w)| (r as usize, w * s.scale))
        })
    }

    /// Number of entries (fragments of rows) in `set`.
    pub(crate) fn count(set: &[Seg]) -> usize {
        set.iter().map(|s| s.end - s.start).sum()
    }

    /// `target`'s statistics of `set` (class weights, or (w, Σw(y−shift), Σw(y−shift)²)) added
    /// to `stats`.
    pub(crate) fn accumulate(
        &self,
        set: &[Seg],
        target: &Target<'_>,
        shift: f64,
        stats: &mut [f64],
    ) {
        for (r, w) in self.entries(set) {
            target.accumulate_around(stats, r, w, shift);
        }
    }

    /// Walks `set` down the tree `shape` describes from `top`, calling `visit` at every node
    /// reached (explicit stack, first child first).
    pub(crate) fn walk(
        &mut self,
        tree: &Tree,
        shape: &Shape,
        top: NodeId,
        set: RowSet,
        fractions: Fractions,
        visit: &mut impl Visit,
    ) {
        let mut stack = vec![(top, set)];
        while let Some((node, set)) = stack.pop() {
            let is_leaf = shape.is_leaf(node);
            visit.node(node, is_leaf, self, &set);
            if is_leaf {
                continue;
            }
            let children: Vec<NodeId> = shape.children(tree, node).collect();
            let (sets, f) = self.split(tree, shape, node, &children, &set, fractions);
            visit.fractions(&children, &f);
            stack.extend(children.into_iter().zip(sets).rev());
        }
    }

    /// The rows of `set` that each child of `node` receives: its known rows, and every row
    /// missing the tested value (or with a category unseen at the node) with its weight times
    /// the child's fraction, if that is positive (as [`crate::grow`] and prediction route them).
    /// Also returns the fractions.
    pub(crate) fn split(
        &mut self,
        tree: &Tree,
        shape: &Shape,
        node: NodeId,
        children: &[NodeId],
        set: &[Seg],
        fractions: Fractions,
    ) -> (Vec<RowSet>, Vec<f64>) {
        let kind = shape.kind(tree, node);
        let n = children.len();
        let mut sets: Vec<RowSet> = vec![Vec::new(); n];
        let mut known = vec![0.0; n];
        let mut missing: RowSet = Vec::new();
        for seg in set {
            let bounds = self.partition(&kind, n, seg);
            for (k, b) in bounds.windows(2).enumerate() {
                let &[start, end] = b else { continue };
                if end <= start {
                    continue;
                }
                let part = Seg {
                    start,
                    end,
                    scale: seg.scale,
                };
                if k < n {
                    if let (Some(s), Some(w)) = (sets.get_mut(k), known.get_mut(k)) {
                        *w += self.entries(&[part]).map(|(_, w)| w).sum::<f64>();
                        s.push(part);
                    }
                } else {
                    missing.push(part);
                }
            }
        }
        let f: Vec<f64> = match fractions {
            Fractions::Stored => children.iter().map(|&c| tree.branch_fraction(c)).collect(),
            Fractions::Observed => observed_fractions(&known),
        };
        for (s, &fk) in sets.iter_mut().zip(&f) {
            if fk > 0.0 {
                s.extend(missing.iter().map(|m| Seg {
                    scale: m.scale * fk,
                    ..*m
                }));
            }
        }
        (sets, f)
    }

    /// Reorders the entries of `seg` by child (a counting sort), missing last; returns the
    /// `n + 2` bounds of the parts.
    fn partition(&mut self, kind: &NodeKind<'_>, n: usize, seg: &Seg) -> Vec<usize> {
        let columns = self.columns;
        let rows = self.row.get(seg.start..seg.end).unwrap_or(&[]);
        self.bucket.clear();
        self.bucket.extend(rows.iter().map(|&r| {
            route(kind, columns, r as usize)
                .filter(|&c| c < n)
                .unwrap_or(n)
        }));
        let mut bounds = vec![0usize; n + 2];
        for &b in &self.bucket {
            if let Some(c) = bounds.get_mut(b + 1) {
                *c += 1;
            }
        }
        bounds[0] = seg.start;
        for k in 1..bounds.len() {
            bounds[k] += bounds[k - 1];
        }
        let mut next: Vec<usize> = bounds.iter().map(|b| b - seg.start).collect();
        self.scratch.clear();
        self.scratch.resize(self.bucket.len(), (0, 0.0));
        let weights = self.weight.get(seg.start..seg.end).unwrap_or(&[]);
        for ((&b, &r), &w) in self.bucket.iter().zip(rows).zip(weights) {
            if let Some(slot) = next.get_mut(b) {
                if let Some(dst) = self.scratch.get_mut(*slot) {
                    *dst = (r, w);
                }
                *slot += 1;
            }
        }
        if let (Some(rows), Some(weights)) = (
            self.row.get_mut(seg.start..seg.end),
            self.weight.get_mut(seg.start..seg.end),
        ) {
            for ((r, w), &(sr, sw)) in rows.iter_mut().zip(weights.iter_mut()).zip(&self.scratch) {
                *r = sr;
                *w = sw;
            }
        }
        bounds
    }
}

/// Each child's share of the known weight; equal shares when (almost) nothing is known, as
/// Weka's `Distribution.addInstWithUnknown` does (its `Utils.eq(total, 0)` tolerance is 1e-6).
fn observed_fractions(known: &[f64]) -> Vec<f64> {
    let total: f64 = known.iter().sum();
    if total.abs() < 1e-6 {
        let n = known.len().max(1) as f64;
        known.iter().map(|_| 1.0 / n).collect()
    } else {
        known.iter().map(|k| k / total).collect()
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::criterion::{gini, Criterion};
    use crate::data::FeatureKind;

    /// A 100,000-deep chain `x <= d + 0.5` built straight into the arena, with the statistics
    /// of rows x = 0..=depth of class x % 2 (each left leaf holds row d): every pass walks it
    /// with explicit stacks. (Subtree raising is left out: like J48's, it sends each node's
    /// rows down its largest branch, O(rows × depth) per node on such a chain.)
    #[test]
    fn deep_chain_is_pruned_without_recursion() {
        let depth = 100_000u32;
        let mut tree = Tree::empty(Criterion::Gini, vec![FeatureKind::Numeric], 2);
        let mut node = tree.push_node(None, 1.0);
        let counts = |from: u32| {
            let n = f64::from(depth - from + 1);
            // Odd x in from..=depth: those in 0..=depth less those below `from`.
            let odd = f64::from(depth.div_ceil(2) - from / 2);
            [n - odd, odd]
        };
        let fill = |tree: &mut Tree, v: NodeId, c: [f64; 2]| {
            let i = v.index();
            tree.weight[i] = c[0] + c[1];
            tree.n_rows[i] = c[0] + c[1];
            tree.impurity[i] = gini(&c);
            tree.label[i] = u32::from(c[1] > c[0]);
            tree.value[2 * i..2 * i + 2].copy_from_slice(&c);
        };
        for d in 0..depth {
            let i = node.index();
            fill(&mut tree, node, counts(d));
            tree.tag[i] = SplitTag::Numeric;
            tree.feature[i] = 0;
            tree.threshold[i] = f64::from(d) + 0.5;
            let n = f64::from(depth - d + 1);
            let left = tree.push_node(Some(node), 1.0 / n);
            let right = tree.push_node(Some(node), (n - 1.0) / n);
            tree.first_child[i] = left.0;
            tree.n_children[i] = 2;
            let one = if d % 2 == 0 { [1.0, 0.0] } else { [0.0, 1.0] };
            fill(&mut tree, left, one);
            node = right;
        }
        fill(&mut tree, node, counts(depth));
        assert_eq!(tree.max_depth(), depth as usize);

        let same = compact(&tree, &[]);
        assert_eq!(same.n_nodes(), tree.n_nodes());
        assert_eq!(same.max_depth(), depth as usize);
        let mut collapse = vec![false; tree.n_nodes()];
        collapse[tree.n_nodes() / 2] = true;
        assert!(compact(&tree, &collapse).max_depth() < depth as usize);

        // Validation: both ends, and a row missing x that follows every branch.
        let x = [0.0, f64::from(depth), f64::NAN];
        let data = Dataset::new(vec![Column::Numeric(&x)]).expect("valid data");
        let y = [0, depth % 2, 1];
        let target = Target::Classes {
            codes: &y,
            n_classes: 2,
        };
        let (pruned, steps) =
            reduced_error(&tree, &data, &target, &[1.0; 3], true).expect("reduced-error pruning");
        assert_eq!(steps.len(), depth as usize);
        assert!(pruned.n_leaves() <= tree.n_leaves());

        let pessimistic = pessimistic(&tree, 0.25, None).expect("pessimistic pruning");
        assert!(pessimistic.n_leaves() < tree.n_leaves());

        let path = cost_complexity_path(&tree);
        assert_eq!(path.ccp_alphas.first(), Some(&0.0));
        let last = *path.ccp_alphas.last().expect("a path");
        assert_eq!(cost_complexity(&tree, last).expect("pruning").n_nodes(), 1);
    }
}
