//! Reduced-error pruning with validation data (text 000 §4.3.2; text 004, Algorithm 2).

use super::{check_rows, compact, entry, Fractions, RoutedRows, Seg, Shape, Visit};
use crate::control::Control;
use crate::criterion::better;
use crate::data::{Dataset, Target};
use crate::error::{CoreError, Result};
use crate::tree::{NodeId, Tree};

/// One decision of reduced-error pruning, in the order taken (ids of the input tree).
///
/// Errors are misclassified validation weight (regression: weighted squared error), summed
/// over the outputs of a multi-output tree; the accuracies are those of the whole tree on the
/// whole validation set, as text 000 reports (several outputs: the mean of their accuracies).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PruneStep {
    pub node: NodeId,
    pub pruned: bool,
    /// Validation error of the node's subtree as it stands (its descendants already decided).
    pub error_as_subtree: f64,
    /// Validation error if the node were a leaf predicting its label (or its mean).
    pub error_as_leaf: f64,
    /// Over the whole validation set, of the tree before this step: 1 − error / weight. For a
    /// regression tree, the total weighted squared error instead.
    pub accuracy_before: f64,
    /// The same for the tree with this node made a leaf (text 004's T′), whether or not the
    /// step takes it: text 000 reports this figure for the nodes it keeps too ("replacing them
    /// as leaf nodes gives 71.4% and 42.9%"). When `pruned`, the tree's accuracy from now on.
    pub accuracy_after: f64,
}

/// Reduced-error pruning with validation data.
///
/// Internal nodes are visited by decreasing depth, then increasing id, which reproduces text
/// 000's order (nodes 6, 5, 2, 3, 1 of its Fig 4.4) and decides every node after all its
/// descendants. A node becomes a leaf when its validation error as a leaf is lower than the
/// error of its current subtree (`prune_ties = false`, text 000: "pruning is performed" only
/// when accuracy improves), or not higher (`prune_ties = true`, text 004's `≤`: Occam's razor).
/// Equal means equal up to rounding (relative 1e-9).
///
/// Errors are weighted and additive over leaves: validation rows are routed as prediction
/// routes them, a row missing a tested value following every branch with the stored fractions
/// r̃_v (C4.5); a leaf's error is the validation weight reaching it minus that of its label's
/// class (regression: Σw(y − leaf mean)²). A row split across leaves thus counts the share
/// of it each leaf gets wrong, which is C4.5's own accounting; for rows without missing
/// values it is exactly the error of [`Tree::predict_class`].
///
/// Errors: the validation data must have the tree's features (same kinds), at least one row,
/// a target of the tree's kind (class codes below its number of classes, or finite values)
/// and one finite positive weight per row.
pub fn reduced_error(
    tree: &Tree,
    validation: &Dataset<'_>,
    target: &Target<'_>,
    weights: &[f64],
    prune_ties: bool,
) -> Result<(Tree, Vec<PruneStep>)> {
    reduced_error_controlled(
        tree,
        validation,
        target,
        weights,
        prune_ties,
        &Control::new(),
    )
}

/// [`reduced_error`] under `control`: stops with its error once cancelled or out of time
/// (checked after the validation rows are routed, and at every node decided).
pub fn reduced_error_controlled(
    tree: &Tree,
    validation: &Dataset<'_>,
    target: &Target<'_>,
    weights: &[f64],
    prune_ties: bool,
    control: &Control,
) -> Result<(Tree, Vec<PruneStep>)> {
    check_rows(tree, validation, target, weights)?;
    if validation.n_rows() == 0 {
        return Err(CoreError::EmptyData {
            rows: 0,
            columns: validation.n_features(),
        });
    }
    let n = tree.n_nodes();
    let as_leaf = leaf_errors(tree, validation, target, weights, control)
        .ok_or_else(|| control.stop_reason())?;
    control.check()?;
    // Several outputs: errors add up over the outputs, and the accuracy is their mean.
    let total_weight: f64 = weights.iter().sum::<f64>() * tree.n_outputs() as f64;
    let regression = tree.is_regression();
    let score = |error: f64| {
        if regression {
            error
        } else {
            1.0 - error / total_weight
        }
    };
    // Rounding noise in a sum of weights is relative to the total weight; squared errors have
    // no such bound, so they are compared relative to themselves.
    let noise = if regression { 0.0 } else { total_weight };

    let shape = Shape::of(tree);
    let mut internal: Vec<NodeId> = (0..n as u32)
        .map(NodeId)
        .filter(|&v| !shape.is_leaf(v))
        .collect();
    internal.sort_by_key(|&v| (std::cmp::Reverse(tree.depth(v)), v));

    // `current[v]`: error of v's subtree as it stands. Leaves are final from the start; an
    // internal node's entry is set when it is decided, after its (deeper) descendants.
    let mut current = as_leaf.clone();
    let mut total: f64 = (0..n as u32)
        .map(NodeId)
        .filter(|&v| shape.is_leaf(v))
        .map(|v| entry(&as_leaf, v))
        .sum::<Result<f64>>()?;
    let mut collapse = vec![false; n];
    let mut steps = Vec::with_capacity(internal.len());
    for node in internal {
        control.check()?;
        control.advance(1);
        let subtree = tree
            .children(node)
            .map(|c| entry(&current, c))
            .sum::<Result<f64>>()?;
        let leaf = entry(&as_leaf, node)?;
        let pruned = if prune_ties {
            !better(leaf, subtree, noise)
        } else {
            better(subtree, leaf, noise)
        };
        let total_as_leaf = total - subtree + leaf;
        steps.push(PruneStep {
            node,
            pruned,
            error_as_subtree: subtree,
            error_as_leaf: leaf,
            accuracy_before: score(total),
            accuracy_after: score(total_as_leaf),
        });
        let kept = if pruned {
            total = total_as_leaf;
            if let Some(c) = collapse.get_mut(node.index()) {
                *c = true;
            }
            leaf
        } else {
            subtree
        };
        if let Some(c) = current.get_mut(node.index()) {
            *c = kept;
        }
    }
    Ok((compact(tree, &collapse)?, steps))
}

/// Validation error of every node of `tree` as if it were a leaf (`None` when the memory
/// cannot be had: `control` then stops).
fn leaf_errors(
    tree: &Tree,
    data: &Dataset<'_>,
    target: &Target<'_>,
    weights: &[f64],
    control: &Control,
) -> Option<Vec<f64>> {
    let (mut rows, set) = RoutedRows::new(data, weights, control)?;
    let mut errors = LeafErrors {
        tree,
        target,
        stats: vec![0.0; target.stats_width()],
        out: vec![0.0; tree.n_nodes()],
    };
    if tree.n_nodes() > 0 {
        rows.walk(
            tree,
            &Shape::of(tree),
            NodeId::ROOT,
            set,
            Fractions::Stored,
            &mut errors,
        );
    }
    Some(errors.out)
}

struct LeafErrors<'a, 't, 'd> {
    tree: &'t Tree,
    target: &'a Target<'d>,
    /// Of the target's width ([`Target::stats_width`]), so its reads below never take their
    /// defaults.
    stats: Vec<f64>,
    out: Vec<f64>,
}

impl Visit for LeafErrors<'_, '_, '_> {
    fn node(&mut self, node: NodeId, _is_leaf: bool, rows: &RoutedRows<'_, '_>, set: &[Seg]) {
        self.stats.iter_mut().for_each(|s| *s = 0.0);
        let tree = self.tree;
        let value = tree.value(node);
        let error = match self.target {
            Target::Values(_) => {
                // Centred on the leaf's mean, the third statistic is Σw(y − mean)² itself.
                let mean = value.first().copied().unwrap_or(0.0);
                rows.accumulate(set, self.target, mean, &mut self.stats);
                self.stats.get(2).copied().unwrap_or(0.0)
            }
            Target::MultiValues { .. } => {
                // Each output's Σw(y − m)² = Σwy² − 2m·Σwy + m²·Σw (several outputs are not
                // centred, see `Target::accumulate_around`).
                rows.accumulate(set, self.target, 0.0, &mut self.stats);
                let w = self.stats.first().copied().unwrap_or(0.0);
                let sums = self.stats.get(1..).unwrap_or(&[]).chunks_exact(2);
                sums.zip(value)
                    .map(|(pair, &m)| match pair {
                        [s, ss] => (ss - 2.0 * m * s + m * m * w).max(0.0),
                        _ => 0.0,
                    })
                    .sum()
            }
            Target::Classes { .. } | Target::MultiClasses { .. } => {
                // Each output's reached weight minus that of its label's class.
                rows.accumulate(set, self.target, 0.0, &mut self.stats);
                tree.by_output(&self.stats)
                    .zip(tree.labels(node))
                    .map(|(block, &label)| {
                        // A label names one of its output's classes (the writer's check).
                        let right = block.get(label as usize).copied().unwrap_or(0.0);
                        block.iter().sum::<f64>() - right
                    })
                    .sum()
            }
        };
        if let Some(slot) = self.out.get_mut(node.index()) {
            *slot = error;
        }
    }
}
