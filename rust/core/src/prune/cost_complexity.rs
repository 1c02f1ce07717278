//! Minimal cost-complexity (weakest-link) pruning (Breiman et al. 1984, ch. 3) with
//! scikit-learn's semantics (`sklearn/tree/_tree.pyx`: `_cost_complexity_prune`,
//! `ccp_pruning_path`, `_build_pruned_tree_ccp`).
//!
//! R(t) = impurity(t) × weight(t) / weight(root) is the cost of node t as a leaf, R(T_t) the
//! sum over the leaves of its subtree, and g(t) = (R(t) − R(T_t)) / (|leaves(T_t)| − 1) its
//! effective alpha. Weakest-link pruning repeatedly collapses the node of least g (the first in
//! scikit-learn's depth-first preorder among equals) until the root is a leaf.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::{compact, Shape};
use crate::control::Control;
use crate::error::{CoreError, Result};
use crate::tree::{NodeId, Tree};

/// The sequence of subtrees of weakest-link pruning, as scikit-learn's
/// `cost_complexity_pruning_path` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct CostComplexityPath {
    /// 0.0, then the effective alpha of each node collapsed, in order.
    pub ccp_alphas: Vec<f64>,
    /// Σ R over the leaves of each subtree of the sequence (the unpruned tree first).
    pub impurities: Vec<f64>,
}

/// The pruning path, from the unpruned tree to its root alone.
pub fn cost_complexity_path(tree: &Tree) -> CostComplexityPath {
    path(tree, &Control::new())
}

/// [`cost_complexity_path`] under `control`: stops with its error once cancelled or out of
/// time (checked at every collapse).
pub fn cost_complexity_path_controlled(
    tree: &Tree,
    control: &Control,
) -> Result<CostComplexityPath> {
    let path = path(tree, control);
    control.check()?;
    Ok(path)
}

/// The path up to the collapse at which `control` stopped it, if it did.
fn path(tree: &Tree, control: &Control) -> CostComplexityPath {
    let mut path = CostComplexityPath {
        ccp_alphas: Vec::new(),
        impurities: Vec::new(),
    };
    weakest_links(
        tree,
        |_| control.stopped(),
        |alpha, r| {
            control.advance(1);
            path.ccp_alphas.push(alpha);
            path.impurities.push(r);
        },
    );
    path
}

/// The subtree scikit-learn keeps for `ccp_alpha = alpha`: weakest links are collapsed while
/// their effective alpha is ≤ `alpha` (its `_AlphaPruner` stops at the first one above), so the
/// same alpha gives the same tree, up to a relative 1e-9 of rounding noise. `alpha` must be finite and ≥ 0.
pub fn cost_complexity(tree: &Tree, alpha: f64) -> Result<Tree> {
    cost_complexity_controlled(tree, alpha, &Control::new())
}

/// [`cost_complexity`] under `control`: stops with its error once cancelled or out of time
/// (checked at every collapse).
pub fn cost_complexity_controlled(tree: &Tree, alpha: f64, control: &Control) -> Result<Tree> {
    if !(alpha.is_finite() && alpha >= 0.0) {
        return Err(CoreError::InvalidParameter {
            name: "ccp_alpha",
            reason: format!("must be finite and non-negative, got {alpha}"),
        });
    }
    // A relative 1e-9 margin: an alpha read off a pruning path (ours or scikit-learn's,
    // whose sums run in another order) must prune its own link despite last-digit noise.
    let collapse = weakest_links(
        tree,
        |effective| control.stopped() || alpha + 1e-9 * alpha.max(f64::MIN_POSITIVE) < effective,
        |_, _| control.advance(1),
    );
    control.check()?;
    Ok(compact(tree, &collapse))
}

/// A candidate in the heap of weakest links: ordered by effective alpha, then preorder rank
/// (scikit-learn scans nodes in its id order, which is depth-first preorder, and keeps the
/// first strict minimum). `version` discards entries made stale by a later collapse below.
#[derive(Debug, Clone, Copy)]
struct Link {
    alpha: f64,
    rank: u32,
    node: u32,
    version: u32,
}

impl PartialEq for Link {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Link {}

impl PartialOrd for Link {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Link {
    fn cmp(&self, other: &Self) -> Ordering {
        self.alpha
            .total_cmp(&other.alpha)
            .then(self.rank.cmp(&other.rank))
    }
}

/// Weakest-link pruning: `record(alpha, R(T))` for the unpruned tree (alpha 0) and after each
/// collapse, until `stop(effective_alpha)` or the root is a leaf. Returns the nodes collapsed.
///
/// Same decisions as scikit-learn's quadratic scan, found with a heap: a collapse changes the
/// alpha of its ancestors only, which get fresh entries.
fn weakest_links(
    tree: &Tree,
    mut stop: impl FnMut(f64) -> bool,
    mut record: impl FnMut(f64, f64),
) -> Vec<bool> {
    let n = tree.n_nodes();
    let mut collapse = vec![false; n];
    if n == 0 {
        return collapse;
    }
    let shape = Shape::of(tree);
    let total = tree.weight(NodeId::ROOT);
    let r_node: Vec<f64> = (0..n as u32)
        .map(|i| {
            let node = NodeId(i);
            if total > 0.0 {
                tree.weight(node) * tree.impurity(node) / total
            } else {
                0.0
            }
        })
        .collect();
    // R(T_t) and leaf counts, children before parents (reverse index sweep).
    let mut r_branch = vec![0.0; n];
    let mut leaves = vec![0usize; n];
    for i in (0..n).rev() {
        let node = NodeId(i as u32);
        let (r, l) = if shape.is_leaf(node) {
            (r_node.get(i).copied().unwrap_or(0.0), 1)
        } else {
            tree.children(node).fold((0.0, 0), |(r, l), c| {
                (
                    r + r_branch.get(c.index()).copied().unwrap_or(0.0),
                    l + leaves.get(c.index()).copied().unwrap_or(0),
                )
            })
        };
        if let (Some(rb), Some(lb)) = (r_branch.get_mut(i), leaves.get_mut(i)) {
            *rb = r;
            *lb = l;
        }
    }
    let rank = preorder_ranks(tree);
    let alpha_of = |i: usize, r_branch: &[f64], leaves: &[usize]| -> f64 {
        let gain = r_node.get(i).copied().unwrap_or(0.0) - r_branch.get(i).copied().unwrap_or(0.0);
        let extra = leaves.get(i).copied().unwrap_or(1).saturating_sub(1);
        // A node over a single leaf (never grown here) costs nothing to collapse.
        let alpha = if extra == 0 { 0.0 } else { gain / extra as f64 };
        alpha + 0.0 // −0.0 → 0.0, so it does not sort before 0.0
    };

    let mut version = vec![0u32; n];
    let mut in_tree = vec![true; n];
    let mut heap = BinaryHeap::new();
    let push = |heap: &mut BinaryHeap<Reverse<Link>>, i: usize, alpha: f64, version: u32| {
        heap.push(Reverse(Link {
            alpha,
            rank: rank.get(i).copied().unwrap_or(u32::MAX),
            node: i as u32,
            version,
        }));
    };
    for i in 0..n {
        if !shape.is_leaf(NodeId(i as u32)) {
            push(&mut heap, i, alpha_of(i, &r_branch, &leaves), 0);
        }
    }

    record(0.0, r_branch.first().copied().unwrap_or(0.0));
    while let Some(Reverse(link)) = heap.pop() {
        let i = link.node as usize;
        let live = in_tree.get(i).copied().unwrap_or(false)
            && !collapse.get(i).copied().unwrap_or(true)
            && version.get(i).copied() == Some(link.version);
        if !live {
            continue;
        }
        if stop(link.alpha) {
            break;
        }
        // Collapse i: its descendants leave the tree.
        let mut below: Vec<NodeId> = tree.children(NodeId(link.node)).collect();
        while let Some(d) = below.pop() {
            if let Some(t) = in_tree.get_mut(d.index()) {
                if *t {
                    *t = false;
                    below.extend(tree.children(d));
                }
            }
        }
        if let Some(c) = collapse.get_mut(i) {
            *c = true;
        }
        let pruned_leaves = leaves.get(i).copied().unwrap_or(1).saturating_sub(1);
        let r_leaf = r_node.get(i).copied().unwrap_or(0.0);
        let r_diff = r_leaf - r_branch.get(i).copied().unwrap_or(0.0);
        if let (Some(rb), Some(l)) = (r_branch.get_mut(i), leaves.get_mut(i)) {
            *rb = r_leaf;
            *l = 1;
        }
        // Its ancestors lose those leaves and gain the difference in R.
        let mut up = tree.parent(NodeId(link.node));
        while let Some(a) = up {
            let j = a.index();
            if let (Some(rb), Some(l), Some(v)) =
                (r_branch.get_mut(j), leaves.get_mut(j), version.get_mut(j))
            {
                *rb += r_diff;
                *l = l.saturating_sub(pruned_leaves);
                *v += 1;
                let v = *v;
                push(&mut heap, j, alpha_of(j, &r_branch, &leaves), v);
            }
            up = tree.parent(a);
        }
        record(link.alpha, r_branch.first().copied().unwrap_or(0.0));
        if collapse.first().copied().unwrap_or(true) {
            break;
        }
    }
    collapse
}

/// Each node's position in depth-first preorder, first child first: scikit-learn's node ids
/// for the same binary tree.
fn preorder_ranks(tree: &Tree) -> Vec<u32> {
    let mut rank = vec![u32::MAX; tree.n_nodes()];
    let mut next = 0u32;
    let mut stack = vec![NodeId::ROOT];
    while let Some(node) = stack.pop() {
        if let Some(r) = rank.get_mut(node.index()) {
            *r = next;
            next += 1;
        }
        let children: Vec<NodeId> = tree.children(node).collect();
        stack.extend(children.into_iter().rev());
    }
    rank
}
