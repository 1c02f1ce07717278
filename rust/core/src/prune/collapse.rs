//! J48's `collapse()` (Weka's `C45PruneableClassifierTree`, run after growth and before
//! pruning; C4.5 release 8 makes the same check as it builds): a subtree whose leaves
//! misclassify at least as much training weight as the node would alone (less 1e-3) is
//! replaced by that node as a leaf. It asks whether the tree fits its training data better,
//! not whether it will generalise: pessimistic pruning asks that next.
//!
//! J48 walks top-down and sums a subtree's leaves at every node it visits, which costs
//! O(nodes × depth); here one bottom-up pass sums every subtree once and one top-down pass
//! decides, O(nodes) with explicit stacks. The decisions are J48's: a node's subtree errors
//! are those of the grown tree below it, since J48 only collapses below nodes it keeps.

use super::{compact, entry};
use crate::control::Control;
use crate::error::{CoreError, Result};
use crate::tree::{NodeId, SplitTag, Tree};

/// J48 keeps a subtree only if it misclassifies less than its node, by more than this.
const MARGIN: f64 = 1e-3;

/// `tree` with J48's `collapse()` applied (see the module documentation).
///
/// Errors: classification trees only (training errors are misclassified weight).
pub fn collapse(tree: &Tree) -> Result<Tree> {
    collapse_controlled(tree, &Control::new())
}

/// [`collapse`] under `control`: stops with its error once cancelled or out of time.
pub fn collapse_controlled(tree: &Tree, control: &Control) -> Result<Tree> {
    compact(tree, &collapsed(tree, control)?)
}

/// The nodes J48's `collapse()` turns into leaves (`true`), for [`compact`], or for
/// [`super::pessimistic`] to prune the collapsed tree without writing it first.
pub(super) fn collapsed(tree: &Tree, control: &Control) -> Result<Vec<bool>> {
    if tree.is_regression() {
        return Err(CoreError::InvalidParameter {
            name: "tree",
            reason: "collapse compares misclassified training weight: it is defined for \
                     classification trees only"
                .into(),
        });
    }
    let n = tree.n_nodes();
    // Children are allocated after their parents, so a reverse sweep of the ids visits every
    // child before its parent: the bottom-up sums need no stack at all.
    let mut subtree = vec![0.0; n];
    for i in (0..n).rev() {
        let node = NodeId(i as u32);
        let errors = if tree.tag(node) == SplitTag::Leaf {
            node_errors(tree, node)
        } else {
            tree.children(node)
                .map(|c| entry(&subtree, c))
                .sum::<Result<f64>>()?
        };
        if let Some(slot) = subtree.get_mut(i) {
            *slot = errors;
        }
        if i % 4096 == 0 {
            control.check()?;
        }
    }
    let mut leaf = vec![false; n];
    let mut stack = if n > 0 {
        vec![NodeId::ROOT]
    } else {
        Vec::new()
    };
    while let Some(node) = stack.pop() {
        if tree.tag(node) == SplitTag::Leaf {
            continue;
        }
        let below = entry(&subtree, node)?;
        if below >= node_errors(tree, node) - MARGIN {
            if let Some(l) = leaf.get_mut(node.index()) {
                *l = true;
            }
        } else {
            stack.extend(tree.children(node));
        }
    }
    control.check()?;
    Ok(leaf)
}

/// The training weight a node misclassifies as a leaf (J48's `numIncorrect`): its weight less
/// its heaviest class's, summed over the outputs of a multi-output tree (as its validation
/// error is); none for an empty node (which stores its parent's distribution).
fn node_errors(tree: &Tree, node: NodeId) -> f64 {
    let weight = tree.weight(node);
    if weight <= 0.0 {
        return 0.0;
    }
    tree.by_output(tree.value(node))
        .map(|block| weight - block.iter().copied().fold(0.0, f64::max))
        .sum()
}
