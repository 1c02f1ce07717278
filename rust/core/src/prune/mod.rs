//! Post-pruning: pure passes over a grown tree that return a new, compact tree.
//!
//! - [`collapse`]: J48's `collapse()`, run before its pruning: subtrees that do not lower the
//!   training error become leaves.
//! - [`reduced_error`]: text 000 §4.3.2 and text 004's Algorithm 2, with validation data;
//!   [`j48_pruning_set`]: the rows J48 -R holds out of its data for it.
//! - [`pessimistic`]: C4.5's error-based pruning with optional subtree raising, as in C4.5
//!   release 8 / Weka J48.
//! - [`cost_complexity`] and [`cost_complexity_path`]: CART's minimal cost-complexity
//!   (weakest-link) pruning with scikit-learn's semantics.
//!
//! Every pass reads its input and never changes it. What they share lives here: [`compact`]
//! (the output arena, numbered the way the builder numbers), `Shape` (the working form of a
//! tree while it is pruned) and `RoutedRows` (data rows routed down a tree with C4.5's fractions,
//! for the validation errors of reduced-error pruning and the re-distribution of subtree
//! raising). Nothing recurses: trees can be 100,000 levels deep.

mod collapse;
mod cost_complexity;
mod pessimistic;
mod pruning_set;
mod reduced_error;
mod routed;

use collapse::collapsed;
pub use collapse::{collapse, collapse_controlled};
pub use cost_complexity::{
    cost_complexity, cost_complexity_controlled, cost_complexity_path,
    cost_complexity_path_controlled, CostComplexityPath, Risk, Sequence,
};
pub use pessimistic::{pessimistic, pessimistic_controlled};
pub use pruning_set::j48_pruning_set;
pub use reduced_error::{reduced_error, reduced_error_controlled, PruneStep};
pub(crate) use routed::{Fractions, RoutedRows, RowSet, Seg, Visit};

use crate::control::Control;
use crate::data::{validate_weights, Dataset, Target};
use crate::error::{CoreError, Result};
use crate::labels::label_of;
use crate::tree::{NodeId, NodeKind, SplitTag, Summary, Tree, Writer};

/// Collapses every node `i` with `collapse[i] == true` into a leaf (keeping its value, label,
/// weight and impurity), drops the nodes this makes unreachable and renumbers the rest as the
/// builder numbers a tree: root 0, the children of a node allocated together (contiguous, after
/// their parent) when it is reached in depth-first order. Subset masks and recorded scores of
/// kept nodes are copied; depths are recomputed. A `collapse` shorter than the tree leaves the
/// nodes it does not cover as they are; an all-`false` mask returns a copy of the tree.
pub fn compact(tree: &Tree, collapse: &[bool]) -> Result<Tree> {
    rebuild(tree, &Shape::collapsed(tree, collapse), None)
}

/// Checks rows handed to a pruning pass against the tree: the fitted features with their
/// kinds (the rules of prediction, so unknown category codes are routed like missing values),
/// a target of the tree's kind, outputs and classes, and one finite positive weight per row
/// (as [`crate::grow`] checks them).
pub(crate) fn check_rows(
    tree: &Tree,
    data: &Dataset<'_>,
    target: &Target<'_>,
    weights: &[f64],
) -> Result<()> {
    data.validate_for_predict(tree.feature_kinds())?;
    let classes = target.output_classes();
    let real = matches!(target, Target::Values(_) | Target::MultiValues { .. });
    if real && !tree.is_regression() {
        return Err(CoreError::InvalidParameter {
            name: "target",
            reason: "the tree is a classification tree: it needs class codes".into(),
        });
    }
    if !real && tree.is_regression() {
        return Err(CoreError::InvalidParameter {
            name: "target",
            reason: "the tree is a regression tree: it needs real-valued targets".into(),
        });
    }
    if classes.len() != tree.n_outputs() {
        return Err(CoreError::ShapeMismatch {
            what: "the number of outputs".into(),
            expected: tree.n_outputs(),
            got: classes.len(),
        });
    }
    if let Some((&got, &expected)) = classes
        .iter()
        .zip(tree.output_classes())
        .find(|(a, b)| a != b)
    {
        return Err(CoreError::ShapeMismatch {
            what: "the number of classes".into(),
            expected,
            got,
        });
    }
    target.validate(data.n_rows())?;
    validate_weights(weights, data.n_rows())
}

/// Entry `node` of a pass's per-node table (one entry per node of the tree it prunes); an
/// error if the table does not cover the node, which would be the pass's bug, rather than a
/// figure read as 0.
pub(crate) fn entry<T: Copy>(table: &[T], node: NodeId) -> Result<T> {
    table
        .get(node.index())
        .copied()
        .ok_or_else(|| CoreError::BrokenTree {
            reason: format!(
                "node {} outside a per-node table of {} entries",
                node.0,
                table.len()
            ),
        })
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
            leaf: (0..tree.n_nodes() as u32)
                .map(|i| tree.tag(NodeId(i)) == SplitTag::Leaf)
                .collect(),
        }
    }

    /// `tree` with every node `i` with `collapse[i] == true` a leaf.
    pub(crate) fn collapsed(tree: &Tree, collapse: &[bool]) -> Shape {
        let mut shape = Shape::of(tree);
        for (i, _) in collapse.iter().enumerate().filter(|(_, &c)| c) {
            shape.collapse(NodeId(i as u32));
        }
        shape
    }

    /// A node outside the tree is a leaf that holds itself, as [`Tree`]'s reads have it.
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

    /// The missing-value routing of the test `node` applies now.
    pub(crate) fn missing_rule<'t>(
        &self,
        tree: &'t Tree,
        node: NodeId,
    ) -> crate::routing::MissingRule<'t> {
        if self.is_leaf(node) {
            crate::routing::MissingRule::default()
        } else {
            tree.missing_rule(self.occupant(node))
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
    pub n_samples: Vec<u64>,
    pub fraction: Vec<f64>,
}

impl Redistributed {
    /// The class weights (`k` of them) and rows that reached a changed `node`; an error if
    /// the pass left them out (its bug), rather than a node silently summarised as empty.
    fn of(&self, node: NodeId, k: usize) -> Result<(&[f64], f64, u64)> {
        let i = node.index();
        let dist = self.dist.get(i * k..(i + 1) * k);
        match (dist, self.n_rows.get(i), self.n_samples.get(i)) {
            (Some(dist), Some(&n_rows), Some(&n_samples)) => Ok((dist, n_rows, n_samples)),
            _ => Err(left_out("statistics", node)),
        }
    }

    /// The share of its parent's known weight `node` receives now.
    fn fraction_of(&self, node: NodeId) -> Result<f64> {
        let fraction = self.fraction.get(node.index()).copied();
        fraction.ok_or_else(|| left_out("branch fraction", node))
    }
}

fn left_out(what: &str, node: NodeId) -> CoreError {
    CoreError::BrokenTree {
        reason: format!("subtree raising left node {}'s {what} out", node.0),
    }
}

/// Writes the tree `shape` describes into a new arena, numbered as the builder numbers (so an
/// unpruned shape reproduces the input): a node's children are allocated when the node is
/// reached, and the first child is reached first.
pub(crate) fn rebuild(tree: &Tree, shape: &Shape, redone: Option<&Redistributed>) -> Result<Tree> {
    let mut out = Writer::like(tree);
    if tree.n_nodes() == 0 {
        return out.finish();
    }
    reserve_kept(&mut out, tree, shape);
    let root = out.root(tree.branch_fraction(NodeId::ROOT));
    let mut stack = vec![(NodeId::ROOT, root)];
    while let Some((node, new)) = stack.pop() {
        let changed = redone.filter(|r| r.changed.get(node.index()).copied() == Some(true));
        match changed {
            Some(r) => summarise_redistributed(&mut out, tree, r, node, new)?,
            None => copy_summary(&mut out, tree, node, new),
        }
        if shape.is_leaf(node) {
            continue;
        }
        let test = shape.occupant(node);
        let kids: Vec<NodeId> = shape.children(tree, node).collect();
        let fractions = kids
            .iter()
            .map(|&child| match redone {
                Some(r) => r.fraction_of(child),
                None => Ok(tree.branch_fraction(child)),
            })
            .collect::<Result<Vec<f64>>>()?;
        let new_kids = out.split_like(new, tree, test, fractions);
        let rule = tree.missing_rule(test);
        out.set_missing_rule(new, rule.child, &rule.surrogates, tree.missing_weight(test));
        stack.extend(kids.into_iter().zip(new_kids).rev());
    }
    out.finish()
}

/// Room in `out` for the nodes `shape` keeps and their recorded scores, reserved at once: a
/// grown tree's scores are most of its memory (a feature's five figures per searched node),
/// and vectors doubling as they fill copied them again and again (two thirds of `perf`'s
/// samples of J48's collapse of a 131,000-node tree were in those copies). Without the memory
/// the pushes grow as they go.
fn reserve_kept(out: &mut Writer, tree: &Tree, shape: &Shape) {
    let (mut nodes, mut scores) = (0, 0);
    let mut stack = vec![NodeId::ROOT];
    while let Some(node) = stack.pop() {
        nodes += 1;
        scores += tree.node_scores(node).map_or(0, <[_]>::len);
        stack.extend(shape.children(tree, node));
    }
    let control = Control::new();
    let _ = out
        .reserve_nodes(nodes, &control)
        .and_then(|()| out.reserve_scores(scores, &control));
}

/// Copies a node's statistics and recorded scores unchanged.
fn copy_summary(out: &mut Writer, tree: &Tree, node: NodeId, new: NodeId) {
    out.set_summary(new, &tree.summary(node));
    if let Some(scores) = tree.node_scores(node) {
        out.set_scores(new, scores);
    }
}

/// Summarises a node from its re-distributed class weights as the builder summarises a node
/// from its rows: an empty node keeps its parent's distribution, label and impurity
/// (Algorithm 4.1, line 12); the label's ties break as the tree's conventions say. Its recorded scores
/// described other rows, so they are dropped.
fn summarise_redistributed(
    out: &mut Writer,
    tree: &Tree,
    redone: &Redistributed,
    node: NodeId,
    new: NodeId,
) -> Result<()> {
    let (dist, n_rows, n_samples) = redone.of(node, tree.value_width())?;
    let weight: f64 = dist.iter().sum();
    let parent = out.parent(new);
    if weight > 0.0 {
        let label = label_of(
            dist,
            parent.map(|p| out.label(p)),
            None,
            tree.meta().conventions,
        );
        let summary = Summary {
            weight,
            n_rows,
            n_samples,
            impurity: tree.meta().criterion.impurity(dist),
            value: dist,
            labels: &[label],
        };
        out.set_summary(new, &summary);
    } else if let Some(p) = parent {
        let (value, labels) = (out.value(p).to_vec(), out.labels(p).to_vec());
        let summary = Summary {
            weight: 0.0,
            n_rows: 0.0,
            n_samples: 0,
            impurity: out.impurity(p),
            value: &value,
            labels: &labels,
        };
        out.set_summary(new, &summary);
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::criterion::{gini, Criterion};
    use crate::data::{Column, FeatureKind};
    use crate::tree::TreeMeta;

    /// A 100,000-deep chain `x <= d + 0.5` built straight into the arena, with the statistics
    /// of rows x = 0..=depth of class x % 2 (each left leaf holds row d): every pass walks it
    /// with explicit stacks. (Subtree raising is left out: it hands each node its rows,
    /// O(rows) per node, quadratic on such a chain; tests/pruning.rs raises a 2,000-deep one.)
    #[test]
    fn deep_chain_is_pruned_without_recursion() {
        let depth = 100_000u32;
        let mut tree = Writer::new(TreeMeta::new(
            Criterion::Gini,
            vec![FeatureKind::Numeric],
            vec![2],
        ));
        let mut node = tree.root(1.0);
        let counts = |from: u32| {
            let n = f64::from(depth - from + 1);
            // Odd x in from..=depth: those in 0..=depth less those below `from`.
            let odd = f64::from(depth.div_ceil(2) - from / 2);
            [n - odd, odd]
        };
        let fill = |tree: &mut Writer, v: NodeId, c: [f64; 2]| {
            let summary = Summary {
                weight: c[0] + c[1],
                n_rows: c[0] + c[1],
                n_samples: (c[0] + c[1]) as u64,
                impurity: gini(&c),
                value: &c,
                labels: &[u32::from(c[1] > c[0])],
            };
            tree.set_summary(v, &summary);
        };
        for d in 0..depth {
            fill(&mut tree, node, counts(d));
            let test = NodeKind::Numeric {
                feature: 0,
                threshold: f64::from(d) + 0.5,
            };
            let n = f64::from(depth - d + 1);
            let children = tree.split(node, &test, &[1.0 / n, (n - 1.0) / n]);
            let one = if d % 2 == 0 { [1.0, 0.0] } else { [0.0, 1.0] };
            fill(&mut tree, children[0], one);
            node = children[1];
        }
        fill(&mut tree, node, counts(depth));
        let tree = tree.finish().expect("a valid chain");
        assert_eq!(tree.max_depth(), depth as usize);

        let same = compact(&tree, &[]).expect("a copy");
        assert_eq!(same.n_nodes(), tree.n_nodes());
        assert_eq!(same.max_depth(), depth as usize);
        let mut collapse = vec![false; tree.n_nodes()];
        collapse[tree.n_nodes() / 2] = true;
        let collapsed = compact(&tree, &collapse).expect("a pruned tree");
        assert!(collapsed.max_depth() < depth as usize);

        // Validation: both ends, and a row missing x that follows every branch.
        let x = [0.0, f64::from(depth), f64::NAN];
        let data = Dataset::new(vec![Column::numeric(&x)]).expect("valid data");
        let y = [0, depth % 2, 1];
        let target = Target::Classes {
            codes: &y,
            n_classes: 2,
        };
        let (pruned, steps) =
            reduced_error(&tree, &data, &target, &[1.0; 3], true).expect("reduced-error pruning");
        assert_eq!(steps.len(), depth as usize);
        assert!(pruned.n_leaves() <= tree.n_leaves());

        let pessimistic = pessimistic(&tree, 0.25, None, false).expect("pessimistic pruning");
        assert!(pessimistic.n_leaves() < tree.n_leaves());

        let path = cost_complexity_path(&tree);
        assert_eq!(path.ccp_alphas.first(), Some(&0.0));
        let last = *path.ccp_alphas.last().expect("a path");
        assert_eq!(cost_complexity(&tree, last).expect("pruning").n_nodes(), 1);
    }
}
