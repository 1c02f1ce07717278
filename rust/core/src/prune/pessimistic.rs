//! C4.5's error-based (pessimistic) pruning, as in Quinlan's C4.5 release 8 and Weka's J48
//! (`C45PruneableClassifierTree.prune`, `Stats.addErrs`).
//!
//! A leaf holding N training weight with E misclassified is charged E + addErrs(N, E, CF)
//! errors: the upper limit of a binomial confidence interval at level CF, so small leaves pay
//! more. Bottom-up, a node becomes a leaf when that costs no more than its subtree (+0.1),
//! and with subtree raising its largest branch may replace it.

use statrs::distribution::{ContinuousCDF, Normal};

use super::routed::observed_fractions;
use super::{
    check_rows, collapsed, rebuild, Fractions, Redistributed, RoutedRows, RowSet, Seg, Shape, Visit,
};
use crate::control::Control;
use crate::data::{Sample, Target};
use crate::error::{CoreError, Result};
use crate::tree::{NodeId, Tree};

/// Weka's `Utils.SMALL`: its comparisons of error estimates tolerate this much.
const SMALL: f64 = 1e-6;

/// C4.5's error-based (pessimistic) pruning as in Quinlan's C4.5 release 8 / Weka J48
/// (`C45PruneableClassifierTree.prune` and `Stats.addErrs`).
///
/// Bottom-up (children first, as J48 recurses): the estimated errors of a leaf are its
/// training errors plus `addErrs` at `confidence` (the upper confidence limit of the
/// binomial, with the normal quantile of `1 − confidence`); those of a subtree are the sum
/// over its leaves. A node becomes a leaf when errorsLeaf ≤ errorsTree + 0.1 and (with
/// raising) errorsLeaf ≤ errorsLargestBranch + 0.1. Otherwise, with raising, the node is
/// replaced by its largest branch (the child with the most training weight, the last of
/// equals as J48's `maxBag`) when errorsLargestBranch ≤ errorsTree + 0.1, where
/// errorsLargestBranch is estimated with all of the node's training rows sent down that
/// branch; the rows are then re-distributed down the raised subtree (missing values by the
/// shares of the rows at hand, as J48's `resetDistribution`), and the node is pruned again.
/// That re-distribution is why raising needs the training data (`raising`: the sample the
/// tree was grown on, its data, target and weights); with `None`, no subtree raising. J48's `collapse()`, which runs before its pruning, is [`super::collapse`].
///
/// The decisions are J48's, the work is less: J48 sends all of a node's rows down its
/// largest branch, O(rows × depth) per node (cubic in the depth of a chain whose leaves
/// survive). Where no row on their way misses a tested value, only the rows of the other
/// branches are sent, the branch's own rows staying where they are, and after a raise only
/// the nodes those rows reached are re-filled and pruned again (the others would decide as
/// before); where some row does, the shares of the missing rows change and J48's whole walk
/// is made. What remains is handing each node its rows, O(rows) per node.
///
/// Nodes below a raised branch get the statistics of their new rows (label, class weights,
/// fractions r̃_v), and lose their recorded scores; the raised node keeps its own statistics.
///
/// With `collapse`, J48's `collapse()` ([`super::collapse`]) comes first, as J48 runs it
/// before pruning; the collapsed tree is pruned in place of being written out and read back
/// (most of a grown J48 tree's memory is its recorded scores, which writing it copies).
///
/// Errors: classification trees only, `confidence` in (0, 0.5] (J48 ignores higher values),
/// and training rows checked as prediction data with a matching target and weights, whose
/// total weight must be the weight the tree was grown on.
pub fn pessimistic(
    tree: &Tree,
    confidence: f64,
    raising: Option<Sample<'_, '_>>,
    collapse: bool,
) -> Result<Tree> {
    pessimistic_controlled(tree, confidence, raising, collapse, &Control::new())
}

/// [`pessimistic`] under `control`: stops with its error once cancelled or out of time
/// (checked at every node), counting the nodes decided as progress.
pub fn pessimistic_controlled(
    tree: &Tree,
    confidence: f64,
    raising: Option<Sample<'_, '_>>,
    collapse: bool,
    control: &Control,
) -> Result<Tree> {
    if tree.is_regression() {
        return Err(CoreError::InvalidParameter {
            name: "tree",
            reason: "pessimistic (error-based) pruning counts misclassified training weight: \
                     it is defined for classification trees only"
                .into(),
        });
    }
    if tree.n_outputs() > 1 {
        return Err(CoreError::InvalidParameter {
            name: "tree",
            reason: format!(
                "pessimistic (error-based) pruning estimates the error rate of one class \
                 variable; this tree has {} outputs (multi-output y): use cost-complexity or \
                 reduced-error pruning",
                tree.n_outputs()
            ),
        });
    }
    if !(confidence > 0.0 && confidence <= 0.5) {
        return Err(CoreError::InvalidParameter {
            name: "confidence",
            reason: format!("must be in (0, 0.5], got {confidence}"),
        });
    }
    if let Some(t) = &raising {
        check_rows(tree, t.data, t.target, t.weights)?;
        let total: f64 = t.weights.iter().sum();
        let grown = tree.weight(NodeId::ROOT);
        if (total - grown).abs() > 1e-9 * total.max(grown) {
            return Err(CoreError::InvalidParameter {
                name: "training",
                reason: format!(
                    "subtree raising needs the rows the tree was grown on: their total weight \
                     is {total}, the tree's root holds {grown}"
                ),
            });
        }
    }
    if tree.n_nodes() == 0 {
        return Ok(tree.clone());
    }
    let shape = match collapse {
        true => Shape::collapsed(tree, &collapsed(tree, control)?),
        false => Shape::of(tree),
    };
    let estimate = Estimate::new(confidence);
    let mut pruner = Pruner::new(tree, estimate, shape);
    match raising {
        None => pruner.run(None, RowSet::new(), control),
        Some(t) => {
            let (rows, all) =
                RoutedRows::new(t.data, t.weights, control).ok_or_else(|| control.stop_reason())?;
            let raising = Raising {
                rows,
                target: t.target,
            };
            pruner.run(Some(raising), all, control);
        }
    }
    control.check()?;
    let redone = pruner.redone.changed.iter().any(|&c| c);
    rebuild(tree, &pruner.shape, redone.then_some(&pruner.redone))
}

/// The error estimate of a leaf: `Stats.addErrs` of Weka J48, after C4.5 release 8.
#[derive(Debug, Clone, Copy)]
struct Estimate {
    cf: f64,
    /// z with Φ(z) = 1 − CF.
    z: f64,
}

impl Estimate {
    fn new(cf: f64) -> Estimate {
        Estimate {
            cf,
            z: Normal::standard().inverse_cdf(1.0 - cf),
        }
    }

    /// Training errors plus the extra errors, for a leaf with class weights `dist`; a leaf
    /// without weight costs nothing (J48's `getEstimatedErrorsForDistribution`).
    fn of_leaf(&self, dist: &[f64]) -> f64 {
        let total: f64 = dist.iter().sum();
        if total.abs() < SMALL {
            return 0.0;
        }
        let errors = total - dist.iter().copied().fold(0.0, f64::max);
        errors + self.add_errs(total, errors)
    }

    /// Extra errors at the upper confidence limit for `e` errors among `n`.
    fn add_errs(&self, n: f64, e: f64) -> f64 {
        if e < 1.0 {
            // Exact for e = 0: the p with (1 − p)^N = CF; C4.5 interpolates linearly up to e = 1
            // (the normal approximation fails at the low end).
            let base = n * (1.0 - self.cf.powf(1.0 / n));
            if e == 0.0 {
                return base;
            }
            return base + e * (self.at_least_one(n, 1.0) - base);
        }
        self.at_least_one(n, e)
    }

    /// `addErrs` for e ≥ 1: Wilson's upper limit with continuity correction (f = (e + 0.5)/N),
    /// and N − e once e + 0.5 ≥ N.
    fn at_least_one(&self, n: f64, e: f64) -> f64 {
        if e + 0.5 >= n {
            return (n - e).max(0.0);
        }
        let z = self.z;
        let f = (e + 0.5) / n;
        let r = (f + z * z / (2.0 * n) + z * (f / n - f * f / n + z * z / (4.0 * n * n)).sqrt())
            / (1.0 + z * z / n);
        r * n - e
    }
}

/// Weka's `Utils.smOrEq`.
fn sm_or_eq(a: f64, b: f64) -> bool {
    a - b < SMALL || a <= b
}

/// The training rows and target that subtree raising re-distributes.
struct Raising<'a, 'd> {
    rows: RoutedRows<'a, 'd>,
    target: &'a Target<'d>,
}

/// One node of J48's recursive `prune()`, unrolled onto an explicit stack.
struct Frame {
    node: NodeId,
    /// The node's training rows (empty without raising).
    set: RowSet,
    /// Its children's rows, computed when they are first visited (again after a raise).
    kids: Option<Vec<RowSet>>,
    next: usize,
}

impl Frame {
    fn new(node: NodeId, set: RowSet) -> Frame {
        Frame {
            node,
            set,
            kids: None,
            next: 0,
        }
    }
}

/// Every per-node table below is made with an entry for each node of `tree` (`dist`, a
/// block of [`Tree::value_width`] each) and indexed only by its nodes, so their reads never
/// take their defaults (here and in [`Joining`] and [`Refill`], which borrow them).
struct Pruner<'t> {
    tree: &'t Tree,
    estimate: Estimate,
    shape: Shape,
    /// Class weights of each node's training rows (zero for an empty node, whose stored value
    /// is its parent's); updated below a raised branch.
    dist: Vec<f64>,
    /// Training rows that reach each node ([`Tree::n_samples`]); updated with `dist`.
    samples: Vec<u64>,
    /// Estimated errors of each node's subtree once pruned.
    est: Vec<f64>,
    redone: Redistributed,
    /// Weight of each split's training rows that miss the value it tests now (0 for leaves).
    /// Where no row misses a test, the shares of the missing rows do not matter, and a raised
    /// branch needs only the rows that join it ([`Joining`]).
    missing_weight: Vec<f64>,
    /// Nodes whose rows changed since they were last pruned (all, at first). J48 prunes a
    /// raised node's new subtree again; a node whose rows did not change is pruned already,
    /// and pruning it again would decide the same, so only these are visited.
    dirty: Vec<bool>,
}

impl<'t> Pruner<'t> {
    fn new(tree: &'t Tree, estimate: Estimate, shape: Shape) -> Pruner<'t> {
        let n = tree.n_nodes();
        let k = tree.value_width();
        let mut dist = Vec::with_capacity(n * k);
        for i in 0..n as u32 {
            let node = NodeId(i);
            if tree.weight(node) > 0.0 {
                dist.extend_from_slice(tree.value(node));
            } else {
                dist.extend(std::iter::repeat_n(0.0, k));
            }
        }
        Pruner {
            tree,
            estimate,
            shape,
            dist,
            samples: (0..n as u32).map(|i| tree.n_samples(NodeId(i))).collect(),
            est: vec![0.0; n],
            redone: Redistributed {
                changed: vec![false; n],
                dist: Vec::new(),
                n_rows: vec![0.0; n],
                n_samples: vec![0; n],
                fraction: (0..n as u32)
                    .map(|i| tree.branch_fraction(NodeId(i)))
                    .collect(),
            },
            missing_weight: (0..n as u32)
                .map(|i| tree.missing_weight(NodeId(i)))
                .collect(),
            dirty: vec![true; n],
        }
    }

    fn dist(&self, node: NodeId) -> &[f64] {
        let k = self.tree.value_width();
        self.dist
            .get(node.index() * k..(node.index() + 1) * k)
            .unwrap_or(&[])
    }

    fn leaf_estimate(&self, node: NodeId) -> f64 {
        self.estimate.of_leaf(self.dist(node))
    }

    fn est(&self, node: NodeId) -> f64 {
        self.est.get(node.index()).copied().unwrap_or(0.0)
    }

    /// Records a node's estimate once it is pruned (its rows are then current).
    fn settle(&mut self, node: NodeId, value: f64) {
        if let Some(e) = self.est.get_mut(node.index()) {
            *e = value;
        }
        if let Some(d) = self.dirty.get_mut(node.index()) {
            *d = false;
        }
    }

    fn is_dirty(&self, node: NodeId) -> bool {
        self.dirty.get(node.index()).copied().unwrap_or(true)
    }

    /// Rows a unit of weight counts as (the fit's unit, see `Searcher::rows_of`).
    fn rows_per_weight(&self) -> f64 {
        match self.tree.weight(NodeId::ROOT) {
            w if w > 0.0 => self.tree.n_rows(NodeId::ROOT) / w,
            _ => 1.0,
        }
    }

    /// J48's `Distribution.maxBag`: the child with the most training weight, the last of
    /// equals (its `Utils.grOrEq` tolerates 1e-6), with its position among `children`.
    fn largest_branch(&self, children: &[NodeId]) -> Option<(usize, NodeId)> {
        let mut best = None;
        let mut max = 0.0;
        for (i, &c) in children.iter().enumerate() {
            let w: f64 = self.dist(c).iter().sum();
            if max - w < SMALL || w >= max {
                max = w;
                best = Some((i, c));
            }
        }
        best
    }

    /// J48's `prune()` from the root, without recursion. With `raising`, the frames carry
    /// their nodes' training rows so a raised branch can be re-estimated and re-filled.
    fn run(&mut self, mut raising: Option<Raising<'_, '_>>, root_rows: RowSet, control: &Control) {
        let mut stack = vec![Frame::new(NodeId::ROOT, root_rows)];
        while let Some(frame) = stack.last_mut() {
            if control.stopped() {
                return;
            }
            control.advance(1);
            let node = frame.node;
            if self.shape.is_leaf(node) {
                let e = self.leaf_estimate(node);
                self.settle(node, e);
                stack.pop();
                continue;
            }
            let children: Vec<NodeId> = self.shape.children(self.tree, node).collect();
            let kids = frame.kids.get_or_insert_with(|| match raising.as_mut() {
                Some(r) => {
                    r.rows
                        .split(
                            self.tree,
                            &self.shape,
                            node,
                            &children,
                            &frame.set,
                            Fractions::Observed,
                        )
                        .0
                }
                None => vec![Vec::new(); children.len()],
            });
            // Prune all subtrees first (after a raise, those whose rows changed).
            if let Some(&child) = children.get(frame.next) {
                let set = kids.get(frame.next).cloned().unwrap_or_default(); // one per child
                frame.next += 1;
                if self.is_dirty(child) {
                    stack.push(Frame::new(child, set));
                }
                continue;
            }
            let errors_leaf = self.leaf_estimate(node);
            let errors_tree: f64 = children.iter().map(|&c| self.est(c)).sum();
            let largest = self.largest_branch(&children);
            // The largest branch with all the node's rows: the rows of the other branches
            // joining it are routed alone when nothing on their way is missing; else all the
            // node's rows are sent down it, as J48 does.
            let (errors_largest, joined) = match (raising.as_mut(), largest) {
                (Some(r), Some((at, branch))) => {
                    let joining: RowSet = kids
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != at)
                        .flat_map(|(_, set)| set.iter().copied())
                        .collect();
                    match self.joined_estimate(r, branch, joining) {
                        Some((errors, joined)) => (errors, Some(joined)),
                        None => (self.branch_estimate(r, branch, &frame.set), None),
                    }
                }
                _ => (f64::MAX, None),
            };
            if sm_or_eq(errors_leaf, errors_tree + 0.1)
                && sm_or_eq(errors_leaf, errors_largest + 0.1)
            {
                self.shape.collapse(node);
                self.settle(node, errors_leaf);
                stack.pop();
                continue;
            }
            match (raising.as_mut(), largest) {
                (Some(r), Some((_, branch))) if sm_or_eq(errors_largest, errors_tree + 0.1) => {
                    self.shape.raise(node, branch);
                    match joined {
                        Some(reached) => self.refill_joined(node, branch, &reached),
                        None => self.redistribute(r, node, &frame.set),
                    }
                    // J48 calls prune() on the node again: its new sons, with their new rows.
                    frame.kids = None;
                    frame.next = 0;
                }
                _ => {
                    self.settle(node, errors_tree);
                    stack.pop();
                }
            }
        }
    }

    /// J48's `getEstimatedErrorsForBranch` from the rows `joining` `branch` (those of its
    /// parent's other branches), when no row on their way misses a tested value: the branch's
    /// estimate, with each leaf they reach charged for them. `None` when some row does (then
    /// the shares of the missing rows change with the joining rows, and J48's whole walk is
    /// needed). Also returns, for every node reached, the class weights that joined it.
    fn joined_estimate(
        &self,
        raising: &mut Raising<'_, '_>,
        branch: NodeId,
        joining: RowSet,
    ) -> Option<(f64, Joined)> {
        let mut walk = Joining {
            missing_weight: &self.missing_weight,
            target: raising.target,
            k: self.tree.value_width(),
            reached: Vec::new(),
            blocked: false,
        };
        raising.rows.walk(
            self.tree,
            &self.shape,
            branch,
            joining,
            Fractions::Observed,
            &mut walk,
        );
        if walk.blocked {
            return None;
        }
        let mut errors = self.est(branch);
        let mut sum = vec![0.0; self.tree.value_width()];
        for (node, joined, _) in &walk.reached {
            if self.shape.is_leaf(*node) {
                copy_sum(&mut sum, self.dist(*node), joined);
                errors += self.estimate.of_leaf(&sum) - self.leaf_estimate(*node);
            }
        }
        Some((errors, walk.reached))
    }

    /// J48's `getEstimatedErrorsForBranch`: the estimated errors of `branch`'s subtree when all
    /// of `set` (its parent's rows) is sent down it.
    fn branch_estimate(&self, raising: &mut Raising<'_, '_>, branch: NodeId, set: &RowSet) -> f64 {
        let mut sum = LeafSum {
            estimate: self.estimate,
            target: raising.target,
            stats: vec![0.0; self.tree.value_width()],
            total: 0.0,
        };
        raising.rows.walk(
            self.tree,
            &self.shape,
            branch,
            set.clone(),
            Fractions::Observed,
            &mut sum,
        );
        sum.total
    }

    /// J48's `newDistribution` after `node` took `branch`'s place, from what
    /// [`Self::joined_estimate`] found: each node the joining rows reached gains their class
    /// weights, and each split they passed shares its children anew (nothing is missing
    /// there, so by weight). `node` keeps its own statistics, and its new children (the
    /// branch's) are summarised again under their new parent.
    fn refill_joined(&mut self, node: NodeId, branch: NodeId, reached: &Joined) {
        let k = self.tree.value_width();
        let rows_per_weight = self.rows_per_weight();
        for (m, joined, rows) in reached {
            if *m == branch {
                continue;
            }
            if let Some(d) = self.dist.get_mut(m.index() * k..(m.index() + 1) * k) {
                add_into(d, joined);
            }
            if let Some(n) = self.samples.get_mut(m.index()) {
                *n += rows;
            }
            self.mark_redistributed(*m, rows_per_weight);
        }
        let children: Vec<NodeId> = self.shape.children(self.tree, node).collect();
        for &c in &children {
            self.mark_redistributed(c, rows_per_weight);
        }
        for (m, _, _) in reached {
            let parent = if *m == branch { node } else { *m };
            if self.shape.is_leaf(parent) {
                continue;
            }
            let kids: Vec<NodeId> = self.shape.children(self.tree, parent).collect();
            let weights: Vec<f64> = kids.iter().map(|&c| self.dist(c).iter().sum()).collect();
            for (c, f) in kids.iter().zip(observed_fractions(&weights)) {
                if let Some(slot) = self.redone.fraction.get_mut(c.index()) {
                    *slot = f;
                }
            }
            // An empty branch that no joining row reached takes its parent's new class
            // weights and label, as J48's empty leaf reads its parent's distribution
            // (`C45Split.classProb` of an empty bag) after `newDistribution`.
            for (&c, &w) in kids.iter().zip(&weights) {
                if w <= 0.0 {
                    self.mark_redistributed(c, rows_per_weight);
                }
            }
        }
        let branch_missing = self
            .missing_weight
            .get(branch.index())
            .copied()
            .unwrap_or(0.0);
        if let Some(slot) = self.missing_weight.get_mut(node.index()) {
            *slot = branch_missing;
        }
    }

    /// Records that `node`'s rows changed: its statistics are rebuilt from `dist`, and it is
    /// pruned again.
    fn mark_redistributed(&mut self, node: NodeId, rows_per_weight: f64) {
        let k = self.tree.value_width();
        let i = node.index();
        if self.redone.dist.is_empty() {
            self.redone.dist = vec![0.0; self.dist.len()];
        }
        let range = i * k..(i + 1) * k;
        let mut weight = 0.0;
        if let (Some(d), Some(r)) = (
            self.dist.get(range.clone()),
            self.redone.dist.get_mut(range),
        ) {
            r.copy_from_slice(d);
            weight = d.iter().sum();
        }
        if let Some(c) = self.redone.changed.get_mut(i) {
            *c = true;
        }
        if let Some(n) = self.redone.n_rows.get_mut(i) {
            *n = weight * rows_per_weight;
        }
        if let (Some(n), Some(&rows)) = (self.redone.n_samples.get_mut(i), self.samples.get(i)) {
            *n = rows;
        }
        if let Some(d) = self.dirty.get_mut(i) {
            *d = true;
        }
    }

    /// J48's `newDistribution`: re-fills every node below `node` (whose test is now the raised
    /// branch's) from `node`'s training rows.
    fn redistribute(&mut self, raising: &mut Raising<'_, '_>, node: NodeId, set: &RowSet) {
        if self.redone.dist.is_empty() {
            self.redone.dist = vec![0.0; self.dist.len()];
        }
        let mut fill = Refill {
            top: node,
            k: self.tree.value_width(),
            rows_per_weight: self.rows_per_weight(),
            target: raising.target,
            dist: &mut self.dist,
            samples: &mut self.samples,
            redone: &mut self.redone,
            missing_weight: &mut self.missing_weight,
            dirty: &mut self.dirty,
        };
        raising.rows.walk(
            self.tree,
            &self.shape,
            node,
            set.clone(),
            Fractions::Observed,
            &mut fill,
        );
    }
}

/// The class weights and the rows that joined each node a raised branch's new rows reached.
type Joined = Vec<(NodeId, Vec<f64>, u64)>;

/// `dst = a + b`, element by element.
fn copy_sum(dst: &mut [f64], a: &[f64], b: &[f64]) {
    for ((d, x), y) in dst.iter_mut().zip(a).zip(b) {
        *d = x + y;
    }
}

/// `a += b`, element by element.
fn add_into(a: &mut [f64], b: &[f64]) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
}

/// Sums the leaf estimates of the rows reaching each leaf.
struct LeafSum<'a, 'd> {
    estimate: Estimate,
    target: &'a Target<'d>,
    stats: Vec<f64>,
    total: f64,
}

impl Visit for LeafSum<'_, '_> {
    fn node(&mut self, _node: NodeId, is_leaf: bool, rows: &RoutedRows<'_, '_>, set: &[Seg]) {
        if is_leaf {
            self.stats.iter_mut().for_each(|s| *s = 0.0);
            rows.accumulate(set, self.target, 0.0, &mut self.stats);
            self.total += self.estimate.of_leaf(&self.stats);
        }
    }
}

/// The class weights of rows joining a branch at every node they reach, as long as none of
/// them, and none of the branch's own rows at a split they pass, misses the tested value.
struct Joining<'p, 'a, 'd> {
    missing_weight: &'p [f64],
    target: &'a Target<'d>,
    k: usize,
    reached: Joined,
    blocked: bool,
}

impl Visit for Joining<'_, '_, '_> {
    fn node(&mut self, node: NodeId, is_leaf: bool, rows: &RoutedRows<'_, '_>, set: &[Seg]) {
        if !is_leaf
            && self
                .missing_weight
                .get(node.index())
                .copied()
                .unwrap_or(0.0)
                > 0.0
        {
            self.blocked = true;
            return;
        }
        let mut stats = vec![0.0; self.k];
        rows.accumulate(set, self.target, 0.0, &mut stats);
        self.reached.push((node, stats, rows.count(set)));
    }

    fn split(&mut self, _node: NodeId, _children: &[NodeId], _fractions: &[f64], missing: f64) {
        if missing > 0.0 {
            self.blocked = true;
        }
    }

    fn enters_empty(&self) -> bool {
        false
    }

    fn done(&self) -> bool {
        self.blocked
    }
}

/// Records the new class weights, row counts and fractions below a raised node, and the
/// weight missing each split's test there; the nodes it reaches are to be pruned again.
struct Refill<'p, 'a, 'd> {
    top: NodeId,
    k: usize,
    rows_per_weight: f64,
    target: &'a Target<'d>,
    dist: &'p mut Vec<f64>,
    samples: &'p mut Vec<u64>,
    redone: &'p mut Redistributed,
    missing_weight: &'p mut Vec<f64>,
    dirty: &'p mut Vec<bool>,
}

impl Visit for Refill<'_, '_, '_> {
    fn node(&mut self, node: NodeId, _is_leaf: bool, rows: &RoutedRows<'_, '_>, set: &[Seg]) {
        if node == self.top {
            return;
        }
        let i = node.index();
        let range = i * self.k..(i + 1) * self.k;
        let mut weight = 0.0;
        if let Some(d) = self.dist.get_mut(range.clone()) {
            d.iter_mut().for_each(|x| *x = 0.0);
            rows.accumulate(set, self.target, 0.0, d);
            weight = d.iter().sum();
            if let Some(r) = self.redone.dist.get_mut(range) {
                r.copy_from_slice(d);
            }
        }
        if let Some(c) = self.redone.changed.get_mut(i) {
            *c = true;
        }
        if let Some(n) = self.redone.n_rows.get_mut(i) {
            *n = weight * self.rows_per_weight;
        }
        let count = rows.count(set);
        if let (Some(n), Some(r)) = (self.samples.get_mut(i), self.redone.n_samples.get_mut(i)) {
            (*n, *r) = (count, count);
        }
        if let Some(d) = self.dirty.get_mut(i) {
            *d = true;
        }
    }

    fn split(&mut self, node: NodeId, children: &[NodeId], fractions: &[f64], missing: f64) {
        for (c, &f) in children.iter().zip(fractions) {
            if let Some(slot) = self.redone.fraction.get_mut(c.index()) {
                *slot = f;
            }
        }
        if let Some(slot) = self.missing_weight.get_mut(node.index()) {
            *slot = missing;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Estimate;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Figures computed by hand from Weka's `Stats.addErrs` (z = Φ⁻¹(0.75) = 0.6744897501960817
    /// for CF = 0.25).
    #[test]
    fn add_errs_by_hand() {
        let e = Estimate::new(0.25);
        assert!(close(e.z, 0.674_489_750_196_081_7));
        // e = 0: N (1 − CF^(1/N)); N = 6: 6 (1 − 0.25^(1/6)) = 6 (1 − 0.793700526) = 1.237796844.
        assert!(close(
            e.add_errs(6.0, 0.0),
            6.0 * (1.0 - 0.25f64.powf(1.0 / 6.0))
        ));
        assert!((e.add_errs(6.0, 0.0) - 1.237_796_844).abs() < 1e-8);
        // N = 1, e = 0: 1 − 0.25 = 0.75.
        assert!(close(e.add_errs(1.0, 0.0), 0.75));
        // e + 0.5 ≥ N: N − e. N = 2, e = 1.5 → 0.5; N = 1, e = 1 → 0.
        assert!(close(e.add_errs(2.0, 1.5), 0.5));
        assert!(close(e.add_errs(1.0, 1.0), 0.0));
        // Between 0 and 1, linear: N = 2, e = 0.5 → base 2 (1 − 0.5) = 1 and addErrs(2, 1)
        // = 0.791493 (normal branch, 1 + 0.5 < 2), so 1 + 0.5 (0.791493 − 1) = 0.895747.
        assert!((e.add_errs(2.0, 1.0) - 0.791_493_043_237).abs() < 1e-9);
        assert!((e.add_errs(2.0, 0.5) - 0.895_746_521_619).abs() < 1e-9);
    }

    /// N = 7, e = 1: f = 1.5/7, z² = 0.454936423…; r = (f + z²/14 + z √(f/7 − f²/7 + z²/196))
    /// / (1 + z²/7) = 0.334574…, so addErrs = 7r − 1 = 1.342015820 (the same formula
    /// evaluated independently, with Python's `statistics.NormalDist`).
    #[test]
    fn add_errs_normal_branch() {
        let e = Estimate::new(0.25);
        let z2 = e.z * e.z;
        let f = 1.5 / 7.0;
        let r =
            (f + z2 / 14.0 + e.z * (f / 7.0 - f * f / 7.0 + z2 / 196.0).sqrt()) / (1.0 + z2 / 7.0);
        assert!(close(e.add_errs(7.0, 1.0), 7.0 * r - 1.0));
        assert!((e.add_errs(7.0, 1.0) - 1.342_015_819_811).abs() < 1e-9);
    }
}
