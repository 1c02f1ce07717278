//! Minimal cost-complexity (weakest-link) pruning (Breiman et al. 1984, ch. 3) with
//! scikit-learn's semantics (`sklearn/tree/_tree.pyx`: `_cost_complexity_prune`,
//! `ccp_pruning_path`, `_build_pruned_tree_ccp`).
//!
//! R(t) = r(t) / weight(root) is the cost of node t as a leaf, R(T_t) the sum over the leaves
//! of its subtree, and g(t) = (R(t) − R(T_t)) / (|leaves(T_t)| − 1) its effective alpha.
//! Weakest-link pruning repeatedly collapses the node of least g (the first in scikit-learn's
//! depth-first preorder among equals) until the root is a leaf. r(t) is what [`Risk`] says:
//! impurity × weight as scikit-learn takes it, or the misclassification cost that Breiman et
//! al. and rpart prune on (rpart's `cp` is an alpha divided by the root's R).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::{compact, Shape};
use crate::control::Control;
use crate::criterion::better;
use crate::error::{CoreError, Result};
use crate::split::rpart::class_index_mean;
use crate::tree::{NodeId, Tree};

/// What a node costs as a leaf, r(t).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Risk<'a> {
    /// Its impurity × its weight: scikit-learn's `ccp_alpha`.
    #[default]
    Impurity,
    /// Its misclassification cost (classification only): the least expected cost
    /// min_j Σ_i w_i L_ij of its class weights w under the costs L (row-major, rows the true
    /// class), or without costs the weight of the rows outside its majority class. CART's
    /// resubstitution estimate R(t) (Breiman et al. 1984 §3.1), and rpart's node risk.
    Misclassification { costs: Option<&'a [f64]> },
}

impl Risk<'_> {
    /// Checks the risk against the tree: a misclassification cost needs classes, and costs
    /// one per pair of them.
    fn check(&self, tree: &Tree) -> Result<()> {
        let Risk::Misclassification { costs } = self else {
            return Ok(());
        };
        let invalid = |reason: String| {
            Err(CoreError::InvalidParameter {
                name: "ccp_risk",
                reason,
            })
        };
        let k = tree.n_classes();
        if tree.is_regression() {
            return invalid(
                "a regression tree has no misclassification cost; use the impurity (squared error)"
                    .into(),
            );
        }
        if let Some(c) = costs {
            if c.len() != k * k {
                return invalid(format!(
                    "the cost matrix must be {k} x {k}, got {} entries",
                    c.len()
                ));
            }
            if c.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
                return invalid("costs must be finite and >= 0".into());
            }
        }
        Ok(())
    }

    /// r(t) of `node`.
    fn of(&self, tree: &Tree, node: NodeId) -> f64 {
        match self {
            Risk::Impurity => tree.weight(node) * tree.impurity(node),
            Risk::Misclassification { costs } => {
                let value = tree.value(node);
                let k = value.len();
                // Column j of the k × k matrix `validate` sized (k ≥ 1 whenever j is asked).
                let cost_of = |j: usize| -> f64 {
                    match costs {
                        Some(c) => value
                            .iter()
                            .zip(c.iter().skip(j).step_by(k))
                            .map(|(w, c)| w * c)
                            .sum(),
                        None => value
                            .iter()
                            .enumerate()
                            .filter(|&(i, _)| i != j)
                            .map(|(_, w)| w)
                            .sum(),
                    }
                };
                (0..k).map(cost_of).fold(f64::INFINITY, f64::min).max(0.0)
            }
        }
    }
}

/// How the sequence of pruned subtrees is found.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Sequence {
    /// Weakest-link pruning (Breiman et al. 1984 §3.3; scikit-learn): repeatedly collapse
    /// the node of least effective alpha, recomputed after every collapse.
    #[default]
    WeakestLink,
    /// rpart's complexities (its `partition.c`, rpart 4.1): one bottom-up pass gives each node
    /// (R(t) − R(branch)) / (splits of branch) where each child's branch is taken whole, or
    /// collapsed first when its own complexity is below the node's; a node whose complexity
    /// is at most `floor` (the fit's alpha, rpart's `cp` × R(root)) is collapsed on the spot,
    /// and a node's complexity is at most its parent's. This is what rpart's cp table,
    /// `prune.rpart` and cross-validation read; it can differ from the weakest-link alphas
    /// (rpart's ten-percent-larger complexity on car90, for one) because a child's branch
    /// is never taken partly pruned.
    Rpart { floor: f64 },
}

/// The sequence of subtrees of weakest-link pruning, as scikit-learn's
/// `cost_complexity_pruning_path` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct CostComplexityPath {
    /// The first subtree's alpha (0.0 for weakest links, the floor for rpart's, whose first
    /// subtree has its links at or below the floor collapsed), then the alpha of each
    /// collapse in order (rpart's: each distinct complexity once).
    pub ccp_alphas: Vec<f64>,
    /// Σ R over the leaves of each subtree of the sequence.
    pub impurities: Vec<f64>,
    /// The splits (internal nodes) of each subtree of the sequence: rpart's `nsplit`.
    pub n_splits: Vec<usize>,
}

/// The weakest-link pruning path under impurity, from the unpruned tree to its root alone.
pub fn cost_complexity_path(tree: &Tree) -> CostComplexityPath {
    path(tree, Risk::Impurity, Sequence::WeakestLink, &Control::new())
}

/// The pruning path under `risk` and `sequence`, under `control`: stops with its error once
/// cancelled or out of time (checked at every collapse).
pub fn cost_complexity_path_controlled(
    tree: &Tree,
    risk: Risk<'_>,
    sequence: Sequence,
    control: &Control,
) -> Result<CostComplexityPath> {
    risk.check(tree)?;
    sequence.check()?;
    let path = path(tree, risk, sequence, control);
    control.check()?;
    Ok(path)
}

/// The path up to the collapse at which `control` stopped it, if it did.
fn path(tree: &Tree, risk: Risk<'_>, sequence: Sequence, control: &Control) -> CostComplexityPath {
    let mut path = CostComplexityPath {
        ccp_alphas: Vec::new(),
        impurities: Vec::new(),
        n_splits: Vec::new(),
    };
    collapses(
        tree,
        risk,
        sequence,
        |_| control.stopped(),
        |alpha, r, splits| {
            control.advance(1);
            path.ccp_alphas.push(alpha);
            path.impurities.push(r);
            path.n_splits.push(splits);
        },
    );
    path
}

/// The subtree scikit-learn keeps for `ccp_alpha = alpha` under impurity: see
/// [`cost_complexity_controlled`].
pub fn cost_complexity(tree: &Tree, alpha: f64) -> Result<Tree> {
    cost_complexity_controlled(
        tree,
        alpha,
        Risk::Impurity,
        Sequence::WeakestLink,
        &Control::new(),
    )
}

/// The subtree kept for `ccp_alpha = alpha` under `risk` and `sequence`: links are collapsed
/// while their alpha is ≤ `alpha` (scikit-learn's `_AlphaPruner` stops at the first one
/// above; rpart's `prune` snips every node of complexity ≤ cp), so the same alpha gives the
/// same tree, up to a relative 1e-9 of rounding noise. `alpha` must be finite and ≥ 0. Stops
/// with `control`'s error once cancelled or out of time (checked at every collapse).
pub fn cost_complexity_controlled(
    tree: &Tree,
    alpha: f64,
    risk: Risk<'_>,
    sequence: Sequence,
    control: &Control,
) -> Result<Tree> {
    if !(alpha.is_finite() && alpha >= 0.0) {
        return Err(CoreError::InvalidParameter {
            name: "ccp_alpha",
            reason: format!("must be finite and non-negative, got {alpha}"),
        });
    }
    risk.check(tree)?;
    sequence.check()?;
    // A margin of 1e-9 relative to alpha or to R(root): an alpha read off a pruning path
    // (ours or scikit-learn's, whose sums run in another order) must prune its own link
    // despite last-digit noise, and a link of zero gain (whose alpha rounding can leave at
    // 1e-18) goes at alpha 0.
    let total = tree.weight(NodeId::ROOT);
    let scale = if total > 0.0 {
        risk.of(tree, NodeId::ROOT) / total
    } else {
        0.0
    };
    let margin = 1e-9 * alpha.max(scale).max(f64::MIN_POSITIVE);
    let collapse = collapses(
        tree,
        risk,
        sequence,
        |effective| control.stopped() || alpha + margin < effective,
        |_, _, _| control.advance(1),
    );
    control.check()?;
    compact(tree, &collapse)
}

impl Sequence {
    fn check(&self) -> Result<()> {
        match self {
            Sequence::Rpart { floor } if !(floor.is_finite() && *floor >= 0.0) => {
                Err(CoreError::InvalidParameter {
                    name: "ccp_alpha",
                    reason: format!("rpart's floor must be finite and >= 0, got {floor}"),
                })
            }
            _ => Ok(()),
        }
    }
}

/// The collapses of `sequence`: `record(alpha, R(T), splits of T)` for its first subtree and
/// after each collapse (rpart's: after each distinct complexity), until `stop(alpha)` or the
/// root is a leaf. Returns the nodes collapsed.
fn collapses(
    tree: &Tree,
    risk: Risk<'_>,
    sequence: Sequence,
    stop: impl FnMut(f64) -> bool,
    record: impl FnMut(f64, f64, usize),
) -> Vec<bool> {
    let mut branches = Branches::new(tree, risk);
    if tree.n_nodes() > 0 {
        match sequence {
            Sequence::WeakestLink => weakest_links(&mut branches, stop, record),
            Sequence::Rpart { floor } => rpart_links(&mut branches, floor, stop, record),
        }
    }
    branches.collapse
}

/// The tree as pruning changes it.
struct Branches<'t> {
    tree: &'t Tree,
    shape: Shape,
    /// R(t): each node's risk as a leaf, per unit of the root's weight.
    r_node: Vec<f64>,
    /// R(T_t) and the leaves of each node's current branch.
    r_branch: Vec<f64>,
    leaves: Vec<usize>,
    /// Nodes not yet removed by the collapse of an ancestor.
    in_tree: Vec<bool>,
    /// Nodes collapsed into leaves.
    collapse: Vec<bool>,
    /// Internal nodes left.
    splits: usize,
}

impl<'t> Branches<'t> {
    fn new(tree: &'t Tree, risk: Risk<'_>) -> Branches<'t> {
        let n = tree.n_nodes();
        let shape = Shape::of(tree);
        let total = tree.weight(NodeId::ROOT);
        let r_node: Vec<f64> = (0..n as u32)
            .map(|i| {
                if total > 0.0 {
                    risk.of(tree, NodeId(i)) / total
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
                (at(&r_node, i), 1)
            } else {
                tree.children(node).fold((0.0, 0), |(r, l), c| {
                    (r + at(&r_branch, c.index()), l + at(&leaves, c.index()))
                })
            };
            if let (Some(rb), Some(lb)) = (r_branch.get_mut(i), leaves.get_mut(i)) {
                *rb = r;
                *lb = l;
            }
        }
        let splits = (0..n).filter(|&i| !shape.is_leaf(NodeId(i as u32))).count();
        Branches {
            tree,
            shape,
            r_node,
            r_branch,
            leaves,
            in_tree: vec![true; n],
            collapse: vec![false; n],
            splits,
        }
    }

    /// Whether node `i` is still an internal node of the tree.
    fn live(&self, i: usize) -> bool {
        at(&self.in_tree, i) && !at(&self.collapse, i) && !self.shape.is_leaf(NodeId(i as u32))
    }

    fn root_risk(&self) -> f64 {
        at(&self.r_branch, 0)
    }

    fn root_collapsed(&self) -> bool {
        at(&self.collapse, 0)
    }

    /// Collapses node `i` into a leaf; `ancestor(j)` is called for each ancestor j, whose
    /// branch lost the collapsed leaves and gained the difference in R.
    fn collapse(&mut self, i: usize, mut ancestor: impl FnMut(&Self, usize)) {
        let tree = self.tree;
        self.splits = self.splits.saturating_sub(1);
        let mut below: Vec<NodeId> = tree.children(NodeId(i as u32)).collect();
        while let Some(d) = below.pop() {
            if let Some(t) = self.in_tree.get_mut(d.index()) {
                if *t {
                    *t = false;
                    // A node collapsed earlier lost its split then.
                    if !self.shape.is_leaf(d) && !at(&self.collapse, d.index()) {
                        self.splits = self.splits.saturating_sub(1);
                    }
                    below.extend(tree.children(d));
                }
            }
        }
        if let Some(c) = self.collapse.get_mut(i) {
            *c = true;
        }
        let pruned_leaves = at(&self.leaves, i).saturating_sub(1);
        let r_leaf = at(&self.r_node, i);
        let r_diff = r_leaf - at(&self.r_branch, i);
        if let (Some(rb), Some(l)) = (self.r_branch.get_mut(i), self.leaves.get_mut(i)) {
            *rb = r_leaf;
            *l = 1;
        }
        let mut up = tree.parent(NodeId(i as u32));
        while let Some(a) = up {
            let j = a.index();
            if let (Some(rb), Some(l)) = (self.r_branch.get_mut(j), self.leaves.get_mut(j)) {
                *rb += r_diff;
                *l = l.saturating_sub(pruned_leaves);
            }
            ancestor(self, j);
            up = tree.parent(a);
        }
    }

    /// g(t) = (R(t) − R(T_t)) / (|leaves(T_t)| − 1) of node `i`'s current branch.
    fn alpha(&self, i: usize) -> f64 {
        let gain = at(&self.r_node, i) - at(&self.r_branch, i);
        let extra = at(&self.leaves, i).saturating_sub(1);
        // A node over a single leaf (never grown here) costs nothing to collapse.
        let alpha = if extra == 0 { 0.0 } else { gain / extra as f64 };
        alpha + 0.0 // −0.0 → 0.0, so it does not sort before 0.0
    }
}

/// Node `i`'s entry of one of this module's per-node tables. Each is made with one entry per
/// node of the tree being pruned, and each `i` is one of its nodes (children and parents are,
/// by the writer's check), so the default is never read: one statement of the invariant
/// rather than a `Result` through every step of the weakest-link loop.
fn at<T: Copy + Default>(table: &[T], i: usize) -> T {
    table.get(i).copied().unwrap_or_default()
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

/// Weakest-link pruning: `record(alpha, R(T), splits)` for the unpruned tree (alpha 0) and
/// after each collapse, until `stop(effective_alpha)` or the root is a leaf.
///
/// Same decisions as scikit-learn's quadratic scan, found with a heap: a collapse changes the
/// alpha of its ancestors only, which get fresh entries.
fn weakest_links(
    branches: &mut Branches<'_>,
    mut stop: impl FnMut(f64) -> bool,
    mut record: impl FnMut(f64, f64, usize),
) {
    let n = branches.tree.n_nodes();
    let rank = preorder_ranks(branches.tree);
    let mut version = vec![0u32; n];
    let mut heap = BinaryHeap::new();
    let link = |i: usize, alpha: f64, version: u32| {
        Reverse(Link {
            alpha,
            rank: at(&rank, i),
            node: i as u32,
            version,
        })
    };
    for i in 0..n {
        if branches.live(i) {
            heap.push(link(i, branches.alpha(i), 0));
        }
    }
    record(0.0, branches.root_risk(), branches.splits);
    while let Some(Reverse(top)) = heap.pop() {
        let i = top.node as usize;
        if !branches.live(i) || version.get(i).copied() != Some(top.version) {
            continue;
        }
        if stop(top.alpha) {
            break;
        }
        branches.collapse(i, |b, j| {
            if let Some(v) = version.get_mut(j) {
                *v += 1;
                heap.push(link(j, b.alpha(j), *v));
            }
        });
        record(top.alpha, branches.root_risk(), branches.splits);
        if branches.root_collapsed() {
            break;
        }
    }
}

/// rpart's sequence (see [`Sequence::Rpart`]): the nodes at or below `floor` collapsed
/// first, `record(floor, R(T), splits)`, then the other nodes by increasing complexity,
/// `record` after each distinct value, until `stop(complexity)`.
fn rpart_links(
    branches: &mut Branches<'_>,
    floor: f64,
    mut stop: impl FnMut(f64) -> bool,
    mut record: impl FnMut(f64, f64, usize),
) {
    let n = branches.tree.n_nodes();
    let complexity = rpart_complexities(branches, floor);
    let scale = at(&branches.r_node, 0);
    // Children before parents: a branch whose complexity is at the floor goes first.
    for i in (0..n).rev() {
        if branches.live(i) && complexity.get(i).is_some_and(|&c| !better(c, floor, scale)) {
            branches.collapse(i, |_, _| {});
        }
    }
    record(floor, branches.root_risk(), branches.splits);
    let mut order: Vec<usize> = (0..n).filter(|&i| branches.live(i)).collect();
    // Increasing complexity; among equals (NaN is equal to all), descendants (higher ids)
    // first.
    order.sort_by(|&a, &b| {
        at(&complexity, a)
            .partial_cmp(&at(&complexity, b))
            .unwrap_or(Ordering::Equal)
            .then(b.cmp(&a))
    });
    let mut k = 0;
    while let Some(&i) = order.get(k) {
        let value = at(&complexity, i);
        if stop(value) {
            break;
        }
        while let Some(&j) = order.get(k) {
            if complexity.get(j).is_none_or(|&c| better(c, value, scale)) {
                break;
            }
            if branches.live(j) {
                branches.collapse(j, |_, _| {});
            }
            k += 1;
        }
        record(value, branches.root_risk(), branches.splits);
    }
}

/// Each node's complexity as rpart computes it while it grows the tree (`partition.c`, then
/// `make_cp_list.c` caps it by its parent's), in rpart's order: a node's children one after
/// the other, each child's whole branch before the next.
///
/// - A node is grown only while its bound exceeds `floor`: the root's bound is its risk; a
///   child's is min(its risk, B − floor), B the parent's running bound: for the first child
///   min(parent's risk, parent's bound); for the next, the larger of (R(t) − R(branches so
///   far)) / (their splits + 1) and R(t) − R(children so far), at most the parent's bound.
///   rpart does not grow a node below that bound (its early stop at `cp`), so a branch that
///   quercus grew there is not part of the sequence: its node gets complexity `floor`.
/// - A grown node's complexity is (R(t) − Σ R) / (Σ splits + 1) over its children's
///   branches, the children taken in increasing order of complexity (a tie: the later child
///   first) and each collapsed to a leaf while the node's value exceeds the child's
///   complexity; a leaf's complexity is `floor`. A node at or below `floor` is a leaf to its
///   parent ("all was in vain").
///
/// rpart compares these values exactly, on risks that are sums of case weights (integers for
/// unit weights); here risks are per unit of the root's weight, so values equal up to
/// rounding (relative 1e-9 of the root's risk) count as equal.
fn rpart_complexities(branches: &Branches<'_>, floor: f64) -> Vec<f64> {
    /// A node being grown: its bound (min of its risk and the bound its parent gave) and its
    /// children's results so far (child, complexity, branch risk, branch splits).
    struct Frame {
        node: usize,
        bound: f64,
        kids: Vec<(usize, f64, f64, usize)>,
    }
    let tree = branches.tree;
    let n = tree.n_nodes();
    let r_of = |i: usize| at(&branches.r_node, i);
    let scale = r_of(0);
    let above = |a: f64, b: f64| better(a, b, scale);
    let mut own = vec![floor; n];
    let mut stack: Vec<Frame> = Vec::new();
    // The root's bound is its risk (`rpart.c` sets `complexity = risk`).
    let mut pending = Some((0usize, scale));
    loop {
        if let Some((node, bound)) = pending.take() {
            // Entering a node: grown only if its bound exceeds the floor.
            let tempcp = r_of(node).min(bound);
            let leaf = branches.shape.is_leaf(NodeId(node as u32));
            if leaf || !above(tempcp, floor) {
                if let Some(slot) = own.get_mut(node) {
                    *slot = floor;
                }
                // Handed to the parent below.
            } else {
                stack.push(Frame {
                    node,
                    bound: tempcp,
                    kids: Vec::new(),
                });
                let first = rpart_sons(tree, node).first().copied();
                pending = first.map(|c| (c, tempcp - floor));
                continue;
            }
            // A leaf: report to the parent frame.
            let Some(frame) = stack.last_mut() else {
                break;
            };
            frame.kids.push((node, floor, r_of(node), 0));
        }
        let Some(frame) = stack.last_mut() else {
            break;
        };
        let r = r_of(frame.node);
        let children = rpart_sons(tree, frame.node);
        if let Some(&next) = children.get(frame.kids.len()) {
            // The next child's bound: rpart's right son (`partition.c`).
            let (sub, splits, risks) = frame.kids.iter().fold((0.0, 0, 0.0), |(s, k, n), kid| {
                (s + kid.2, k + kid.3, n + r_of(kid.0))
            });
            let tempcp = ((r - sub) / (splits + 1) as f64).max(r - risks);
            // Both candidates are at most R(t), so capping by the entry bound (≤ R(t)) is
            // rpart's cap by the bound the parent gave.
            pending = Some((next, tempcp.min(frame.bound) - floor));
            continue;
        }
        // Every child done: the node's complexity.
        let Some(frame) = stack.pop() else {
            break;
        };
        let mut kids = frame.kids;
        let value = |kids: &[(usize, f64, f64, usize)]| {
            let (sum, count) = kids
                .iter()
                .fold((0.0, 0), |(s, k), &(_, _, r, n)| (s + r, k + n));
            (r - sum) / (count + 1) as f64
        };
        let mut order: Vec<usize> = (0..kids.len()).collect();
        order.sort_by(|&a, &b| {
            let (ca, cb) = (kids.get(a).map(|k| k.1), kids.get(b).map(|k| k.1));
            ca.partial_cmp(&cb)
                .unwrap_or(Ordering::Equal) // NaN is equal to all
                .then(b.cmp(&a))
        });
        let mut current = value(&kids);
        for k in order {
            let Some(&(c, complexity, _, _)) = kids.get(k) else {
                continue;
            };
            if !above(current, complexity) {
                break;
            }
            if let Some(kid) = kids.get_mut(k) {
                kid.2 = r_of(c);
                kid.3 = 0;
            }
            current = value(&kids);
        }
        if let Some(o) = own.get_mut(frame.node) {
            *o = current;
        }
        let handed = if above(current, floor) {
            (
                kids.iter().map(|k| k.2).sum(),
                kids.iter().map(|k| k.3).sum::<usize>() + 1,
            )
        } else {
            (r, 0)
        };
        match stack.last_mut() {
            Some(parent) => parent.kids.push((frame.node, current, handed.0, handed.1)),
            None => break,
        }
    }
    // A node's complexity is at most its parent's (parents before children).
    for i in 1..n {
        let parent = tree.parent(NodeId(i as u32)).map(NodeId::index);
        if let Some(p) = parent.and_then(|p| own.get(p).copied()) {
            if let Some(o) = own.get_mut(i) {
                *o = o.min(p);
            }
        }
    }
    own
}

/// A split node's children in the order rpart grows them: its left son first, the side whose
/// mean is lower (the class index weighted by the class weights, priors included, or the
/// regression mean; `gini.c`, `anova.c`), the side `x <= t` right on a tie. The order sets
/// each son's bound (the right son's depends on the left's branch), so a branch grown in
/// the other order can be cut at another `cp` (warpbreaks with priors, `cp = 0.01`: rpart's
/// left son `breaks >= 37.5` kept its split, grown second it fell below the bound). Read from
/// the children's stored values, which hold the rows surrogates sent there too.
fn rpart_sons(tree: &Tree, node: usize) -> Vec<usize> {
    let mut sons: Vec<usize> = tree
        .children(NodeId(node as u32))
        .map(NodeId::index)
        .collect();
    let mean = |i: usize| -> f64 {
        let value = tree.value(NodeId(i as u32));
        if tree.is_regression() {
            return value.first().copied().unwrap_or(0.0);
        }
        class_index_mean(value)
    };
    if let [first, second] = sons[..] {
        if mean(first) >= mean(second) {
            sons.swap(0, 1);
        }
    }
    sons
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
