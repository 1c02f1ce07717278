//! The target's spread at every node of a regression tree: the weight, mean and weighted
//! quantiles of the rows that reach it, which pictures draw as each node's distribution
//! strip (as dtreeviz does). Nothing here is part of the model: it is computed from rows
//! given, the training rows right after a fit or any labelled rows later.
//!
//! Rows are routed as prediction routes them, so a row that C4.5's fractions spread over
//! several branches counts at each node with the share that reached it. The rows are
//! grouped by leaf, leaves in preorder, so that every node's rows form one contiguous range;
//! each leaf's rows are sorted by target, then, children before parents, a node's range is
//! the merge of its children's sorted ranges. A node's q-quantile is the target at which the
//! running weight of its sorted range first reaches q of its total (the inverted-CDF
//! definition, NumPy's `quantile(..., weights=w, method="inverted_cdf")`). Every step reads
//! memory in order: O(n log n + n·depth) time, with no cache miss per row and level, and
//! O(n) memory besides the nodes.

use rayon::prelude::*;

use crate::batch::SPREAD;
use crate::control::Control;
use crate::data::{validate_weights, Sample, Target};
use crate::error::{CoreError, Result};
use crate::predict::Reached;
use crate::threads::in_pool;
use crate::tree::{NodeId, Tree};

/// Elements merged or scanned between two looks at the control.
const CHECK_EVERY: usize = 1 << 18;
/// Spread rows a worker routes at a time on the general walk.
const BLOCK: usize = 4096;

/// Per node: the weight of the rows that reached it, their weighted mean, and their weighted
/// quantiles at `probs` (row-major, `probs.len()` per node). A node no row reached has
/// weight 0 and NaN for the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSpread {
    pub probs: Vec<f64>,
    pub weight: Vec<f64>,
    pub mean: Vec<f64>,
    pub quantiles: Vec<f64>,
}

/// A row (or a C4.5 fragment of one) as the ranges hold it: its target as a [`key`], and
/// its weight, which is implied when every row weighs 1 (no sample weights, no fragments):
/// that common case moves half the bytes and reads a quantile off its position.
trait Piece: Copy + Default + Send + Sync {
    fn new(key: u64, weight: f64) -> Self;
    fn key(&self) -> u64;
    /// The quantiles at `probs` of a sorted run whose weights sum to `total` (> 0): at
    /// each, the first target where the running weight reaches its share.
    fn read(run: &[Self], total: f64, probs: &[f64], out: &mut [f64]);
}

impl Piece for u64 {
    fn new(key: u64, _: f64) -> Self {
        key
    }

    fn key(&self) -> u64 {
        *self
    }

    /// Every weight is 1, so the running weight at position i is i + 1: the first to
    /// reach q·total is at ⌈q·total⌉ − 1 (the weighted reading below, without the scan).
    fn read(run: &[u64], total: f64, probs: &[f64], out: &mut [f64]) {
        for (&p, q) in probs.iter().zip(out) {
            let at = ((p * total).ceil() as usize).saturating_sub(1);
            if let Some(&key) = run.get(at).or(run.last()) {
                *q = unkey(key);
            }
        }
    }
}

impl Piece for (u64, f64) {
    fn new(key: u64, weight: f64) -> Self {
        (key, weight)
    }

    fn key(&self) -> u64 {
        self.0
    }

    /// One that rounding keeps the running weight from reaching (a share near 1) is the
    /// run's largest target.
    fn read(run: &[Self], total: f64, probs: &[f64], out: &mut [f64]) {
        let mut found = 0;
        let mut seen = 0.0;
        for &(key, w) in run {
            seen += w;
            while let (Some(&p), Some(q)) = (probs.get(found), out.get_mut(found)) {
                if seen < p * total {
                    break;
                }
                *q = unkey(key);
                found += 1;
            }
            if found == probs.len() {
                return;
            }
        }
        if let Some(&(key, _)) = run.last() {
            out.iter_mut().skip(found).for_each(|q| *q = unkey(key));
        }
    }
}

/// A target as a key whose unsigned order is the number's order (IEEE-754 total order).
fn key(y: f64) -> u64 {
    let bits = y.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

fn unkey(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 {
        key & !(1 << 63)
    } else {
        !key
    })
}

/// The routed rows: each row's sole leaf (or [`SPREAD`]), the fragments of the spread
/// ones (row, leaf, share) in row order, the targets and the weights.
struct Pieces<'a> {
    leaf: &'a [u32],
    fragments: &'a [(usize, u32, f64)],
    y: &'a [f64],
    weights: &'a [f64],
}

impl Pieces<'_> {
    /// Calls `f(leaf, weight, target)` for every piece of a row (of positive weight) that
    /// reaches a leaf, in row order.
    fn each(&self, f: &mut dyn FnMut(u32, f64, f64)) {
        let mut next = 0;
        for ((row, &l), (&y, &w)) in self
            .leaf
            .iter()
            .enumerate()
            .zip(self.y.iter().zip(self.weights))
        {
            if w <= 0.0 {
                continue;
            }
            if l != SPREAD {
                f(l, w, y);
                continue;
            }
            while let Some(&(_, l, share)) = self.fragments.get(next).filter(|f| f.0 == row) {
                f(l, w * share, y);
                next += 1;
            }
        }
    }
}

impl Tree {
    /// The spread of `sample`'s target at every node (see the module), on `n_jobs` threads
    /// (`None`: every core; the result does not depend on it), stopping once `control` is
    /// cancelled. `probs` must lie in [0, 1], in ascending order.
    pub fn node_spread(
        &self,
        sample: &Sample<'_, '_>,
        probs: &[f64],
        n_jobs: Option<usize>,
        control: &Control,
    ) -> Result<NodeSpread> {
        let y = self.spread_checks(sample, probs, n_jobs)?;
        let weights = sample.weights;
        let weight = |row: usize| weights.get(row).copied().unwrap_or(0.0); // rows of `sample`

        // Each row's leaf by the batch walk; a row spread over several leaves keeps its
        // (row, leaf, share) fragments aside, sorted by row.
        let leaf = self
            .predictor(n_jobs)
            .controlled(control)
            .sole_leaf(sample.data)?;
        let spread: Vec<usize> = (0..leaf.len())
            .filter(|&row| leaf.get(row) == Some(&SPREAD) && weight(row) > 0.0)
            .collect();
        let fragments = self.fragments(sample, &spread, n_jobs, control)?;
        let pieces = Pieces {
            leaf: &leaf,
            fragments: &fragments,
            y,
            weights,
        };
        if fragments.is_empty() && weights.iter().all(|&w| w == 1.0 || w == 0.0) {
            self.spread_of::<u64>(&pieces, probs, n_jobs, control)
        } else {
            self.spread_of::<(u64, f64)>(&pieces, probs, n_jobs, control)
        }
    }

    /// [`Self::node_spread`] once the rows are routed, with `P` as the pieces' type.
    fn spread_of<P: Piece>(
        &self,
        pieces: &Pieces<'_>,
        probs: &[f64],
        n_jobs: Option<usize>,
        control: &Control,
    ) -> Result<NodeSpread> {
        // A stop no guard explains is a cancellation.
        let stopped = || control.check().err().unwrap_or(CoreError::Cancelled);
        let each_piece = |f: &mut dyn FnMut(u32, f64, f64)| pieces.each(f);

        // Each leaf's range, leaves in preorder; each node's weight and weighted sum. These
        // per-node tables have an entry for every node and are read at this tree's nodes
        // only, so their reads below never take their defaults.
        let n_nodes = self.n_nodes();
        let order = self.preorder();
        let mut total = vec![0.0; n_nodes];
        let mut sum = vec![0.0; n_nodes];
        let mut count = vec![0usize; n_nodes];
        each_piece(&mut |l, w, y| {
            let i = l as usize;
            if let (Some(t), Some(s), Some(c)) =
                (total.get_mut(i), sum.get_mut(i), count.get_mut(i))
            {
                *t += w;
                *s += w * y;
                *c += 1;
            }
        });
        let mut range = vec![(0usize, 0usize); n_nodes];
        let mut at = 0;
        for &node in &order {
            if let (Some(r), Some(&c)) = (range.get_mut(node.index()), count.get(node.index())) {
                *r = (at, at + c);
                at += c;
            }
        }
        let mut elements: Vec<P> = control.filled(at, P::default()).ok_or_else(stopped)?;
        let mut next: Vec<usize> = range.iter().map(|r| r.0).collect();
        each_piece(&mut |l, w, y| {
            if let Some(slot) = next.get_mut(l as usize) {
                if let Some(e) = elements.get_mut(*slot) {
                    *e = P::new(key(y), w);
                }
                *slot += 1;
            }
        });
        drop(next);
        control.check()?;

        // Each leaf's range sorted by target, leaves side by side on the threads.
        let mut rest = elements.as_mut_slice();
        let mut leaves: Vec<&mut [P]> = Vec::new();
        for &node in &order {
            if self.children(node).next().is_none() {
                let n = count.get(node.index()).copied().unwrap_or(0);
                let n = n.min(rest.len());
                let (head, tail) = std::mem::take(&mut rest).split_at_mut(n);
                leaves.push(head);
                rest = tail;
            }
        }
        in_pool(n_jobs, || {
            leaves
                .par_iter_mut()
                .for_each(|run| run.sort_unstable_by_key(P::key));
        });
        drop(leaves);
        control.check()?;

        // Children before parents: a node's range, its children's merged, is sorted; its
        // totals are its children's; its quantiles are read off its range.
        let k = probs.len();
        let mut quantiles = control
            .filled(n_nodes.saturating_mul(k), f64::NAN)
            .ok_or_else(stopped)?;
        let mut scratch: Vec<P> = Vec::new();
        let mut work = 0usize;
        for &node in order.iter().rev() {
            let i = node.index();
            let mut children = self.children(node);
            if let Some(first) = children.next() {
                let (start, mut end) = range.get(first.index()).copied().unwrap_or((0, 0));
                let (mut t, mut s) = (0.0, 0.0);
                for child in std::iter::once(first).chain(children) {
                    let c = child.index();
                    t += total.get(c).copied().unwrap_or(0.0);
                    s += sum.get(c).copied().unwrap_or(0.0);
                    let child_end = range.get(c).map_or(end, |r| r.1);
                    if let Some(run) = elements.get_mut(start..child_end) {
                        merge(run, end - start, &mut scratch, control).ok_or_else(stopped)?;
                    }
                    end = child_end;
                }
                if let (Some(r), Some(nt), Some(ns)) =
                    (range.get_mut(i), total.get_mut(i), sum.get_mut(i))
                {
                    *r = (start, end);
                    (*nt, *ns) = (t, s);
                }
            }
            let (start, end) = range.get(i).copied().unwrap_or((0, 0));
            let t = total.get(i).copied().unwrap_or(0.0);
            if let (Some(run), Some(out), true) = (
                elements.get(start..end),
                quantiles.get_mut(i * k..i * k + k),
                t > 0.0,
            ) {
                P::read(run, t, probs, out);
            }
            work += 2 * (end - start) + 1;
            if work >= CHECK_EVERY {
                work = 0;
                control.check()?;
            }
        }
        let mean = total
            .iter()
            .zip(&sum)
            .map(|(&t, &s)| if t > 0.0 { s / t } else { f64::NAN })
            .collect();
        Ok(NodeSpread {
            probs: probs.to_vec(),
            weight: total,
            mean,
            quantiles,
        })
    }

    /// The nodes in preorder (children in child order), by an explicit stack.
    fn preorder(&self) -> Vec<NodeId> {
        let mut order = Vec::with_capacity(self.n_nodes());
        let mut stack = vec![NodeId::ROOT];
        while let Some(node) = stack.pop() {
            order.push(node);
            // Pushed last to first, first popped first.
            stack.extend(self.children(node).rev());
        }
        order
    }

    /// The (row, leaf, share) fragments of the rows `spread` over several leaves (positive
    /// weight, ascending), by the general walk, in row order.
    fn fragments(
        &self,
        sample: &Sample<'_, '_>,
        spread: &[usize],
        n_jobs: Option<usize>,
        control: &Control,
    ) -> Result<Vec<(usize, u32, f64)>> {
        let columns = sample.data.columns();
        let blocks: Option<Vec<Vec<(usize, u32, f64)>>> = in_pool(n_jobs, || {
            spread
                .par_chunks(BLOCK)
                .map(|rows| {
                    if control.stopped() {
                        return None;
                    }
                    let (mut stack, mut out): (Vec<Reached>, Vec<Reached>) = (vec![], vec![]);
                    let mut found = Vec::new();
                    for &row in rows {
                        self.reach(columns, row, NodeId::ROOT, &mut stack, &mut out);
                        found.extend(out.iter().map(|&(l, s)| (row, l.0, s)));
                    }
                    Some(found)
                })
                .collect()
        });
        match blocks {
            Some(blocks) => Ok(blocks.concat()),
            None => Err(control.check().err().unwrap_or(CoreError::Cancelled)),
        }
    }

    /// The checks of [`Self::node_spread`]; returns the regression targets.
    fn spread_checks<'s>(
        &self,
        sample: &Sample<'_, 's>,
        probs: &[f64],
        n_jobs: Option<usize>,
    ) -> Result<&'s [f64]> {
        let invalid = |name, reason: &str| CoreError::InvalidParameter {
            name,
            reason: reason.into(),
        };
        let &Target::Values(y) = sample.target else {
            return Err(invalid("y", "node spreads are of a regression target"));
        };
        if !self.is_regression() {
            return Err(invalid(
                "y",
                "node spreads are drawn for regression trees only",
            ));
        }
        if n_jobs == Some(0) {
            return Err(invalid(
                "n_jobs",
                "must be at least 1 (or None for every core)",
            ));
        }
        if !probs.iter().all(|p| (0.0..=1.0).contains(p)) {
            return Err(invalid("probs", "quantile levels must lie in [0, 1]"));
        }
        if probs.windows(2).any(|w| matches!(w, [a, b] if a > b)) {
            return Err(invalid(
                "probs",
                "quantile levels must be in ascending order",
            ));
        }
        // The rows themselves are checked by the walk that routes them (their kinds, and
        // infinities as it stages them), not scanned once more here.
        let n = sample.data.n_rows();
        sample.target.validate(n)?;
        validate_weights(sample.weights, n)?;
        Ok(y)
    }
}

/// Merges the sorted runs `run[..mid]` and `run[mid..]` (by key) in place, the left one
/// copied to `scratch` first; `None` when the scratch memory cannot be had.
fn merge<P: Piece>(
    run: &mut [P],
    mid: usize,
    scratch: &mut Vec<P>,
    control: &Control,
) -> Option<()> {
    let (left, right) = run.split_at(mid.min(run.len()));
    match (left.last(), right.first()) {
        (Some(a), Some(b)) if a.key() > b.key() => {}
        _ => return Some(()), // one run is empty, or they are already in order
    }
    scratch.clear();
    control.reserve(scratch, left.len())?;
    scratch.extend_from_slice(left);
    // Branch-free: which run the next element comes from is a coin toss to the CPU.
    let (mut i, mut j, mut out) = (0, mid, 0);
    while let (Some(&a), Some(&b)) = (scratch.get(i), run.get(j)) {
        let right = b.key() < a.key();
        if let Some(slot) = run.get_mut(out) {
            *slot = std::hint::select_unpredictable(right, b, a);
        }
        j += usize::from(right);
        i += usize::from(!right);
        out += 1;
    }
    // What is left of the right run is in place already; the left run's rest goes last.
    let rest = scratch.get(i..).unwrap_or(&[]); // i is at most its length: the loop stops there
    if let Some(slots) = run.get_mut(out..out + rest.len()) {
        slots.copy_from_slice(rest);
    }
    Some(())
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::data::{Column, Dataset};
    use crate::params::{MissingStrategy, TreeParams};
    use crate::Criterion;

    const PROBS: [f64; 5] = [0.05, 0.25, 0.5, 0.75, 0.95];

    /// The inverted-CDF weighted quantile of `values`, straight from its definition.
    fn quantile(values: &[(f64, f64)], p: f64) -> f64 {
        let mut v = values.to_vec();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        let total: f64 = v.iter().map(|x| x.1).sum();
        let mut seen = 0.0;
        for (y, w) in &v {
            seen += w;
            if seen >= p * total {
                return *y;
            }
        }
        v.last().unwrap().0
    }

    fn regression_tree(x: &[f64], y: &[f64], w: &[f64], missing: MissingStrategy) -> Tree {
        let data = Dataset::new(vec![Column::numeric(x)]).unwrap();
        let params = TreeParams {
            criterion: Criterion::SquaredError,
            max_depth: Some(3),
            missing,
            ..TreeParams::default()
        };
        crate::grow(&data, &Target::Values(y), w, &params).expect("a tree")
    }

    #[test]
    fn quantiles_of_every_node_match_their_definition() {
        let n = 500;
        let x: Vec<f64> = (0..n).map(|i| f64::from(i * 37 % 101)).collect();
        let y: Vec<f64> = (0..n)
            .map(|i| f64::from(i * 53 % 97) + x[i as usize])
            .collect();
        // Weights 1 to 3, then all 1 (read by position), then some 0 (rows left out).
        let varied: Vec<f64> = (0..n).map(|i| f64::from(1 + i % 3)).collect();
        let some_zero: Vec<f64> = (0..n).map(|i| f64::from(i % 4 != 0)).collect();
        for w in [varied, vec![1.0; n as usize], some_zero] {
            let tree = regression_tree(&x, &y, &w, MissingStrategy::Fractional);
            let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
            let target = Target::Values(&y);
            let sample = Sample {
                data: &data,
                target: &target,
                weights: &w,
            };
            let control = Control::new();
            let spread = tree
                .node_spread(&sample, &PROBS, Some(2), &control)
                .unwrap();
            let (indptr, indices) = tree.decision_path(&data).unwrap();
            for node in 0..tree.n_nodes() {
                let rows: Vec<(f64, f64)> = (0..n as usize)
                    .filter(|&r| {
                        w[r] > 0.0
                            && indices[indptr[r] as usize..indptr[r + 1] as usize]
                                .contains(&(node as u32))
                    })
                    .map(|r| (y[r], w[r]))
                    .collect();
                let weight: f64 = rows.iter().map(|r| r.1).sum();
                assert_eq!(spread.weight[node], weight);
                assert!((spread.weight[node] - tree.weight(NodeId(node as u32))).abs() < 1e-9);
                let mean = rows.iter().map(|r| r.0 * r.1).sum::<f64>() / weight;
                assert!((spread.mean[node] - mean).abs() < 1e-9);
                for (j, &p) in PROBS.iter().enumerate() {
                    let q = spread.quantiles[node * 5 + j];
                    assert_eq!(q, quantile(&rows, p), "node {node}");
                }
            }
            // The thread count changes nothing.
            assert_eq!(
                tree.node_spread(&sample, &PROBS, Some(1), &control)
                    .unwrap(),
                spread
            );
        }
    }

    #[test]
    fn fractional_rows_count_with_their_shares() {
        // Every fifth x is missing: C4.5 sends those rows down every branch.
        let n = 200;
        let x: Vec<f64> = (0..n)
            .map(|i| {
                if i % 5 == 0 {
                    f64::NAN
                } else {
                    f64::from(i % 40)
                }
            })
            .collect();
        let y: Vec<f64> = (0..n)
            .map(|i| f64::from(i % 40) * 2.0 + f64::from(i % 7))
            .collect();
        let w = vec![1.0; n as usize];
        let tree = regression_tree(&x, &y, &w, MissingStrategy::Fractional);
        assert!(tree.n_nodes() > 1);
        let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
        let target = Target::Values(&y);
        let sample = Sample {
            data: &data,
            target: &target,
            weights: &w,
        };
        let spread = tree
            .node_spread(&sample, &PROBS, None, &Control::new())
            .unwrap();
        for node in 0..tree.n_nodes() {
            let id = NodeId(node as u32);
            // The training rows reach each node with the weight the fit recorded there.
            assert!(
                (spread.weight[node] - tree.weight(id)).abs() < 1e-9,
                "node {node}"
            );
            assert!(
                (spread.mean[node] - tree.value(id)[0]).abs() < 1e-9,
                "node {node}"
            );
            let q = &spread.quantiles[node * 5..node * 5 + 5];
            assert!(q.windows(2).all(|p| p[0] <= p[1]), "{q:?}");
        }
    }

    #[test]
    fn bad_requests_are_errors() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = [1.0, 2.0, 3.0, 4.0];
        let w = [1.0; 4];
        let tree = regression_tree(&x, &y, &w, MissingStrategy::Fractional);
        let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
        let target = Target::Values(&y);
        let sample = Sample {
            data: &data,
            target: &target,
            weights: &w,
        };
        let control = Control::new();
        assert!(tree
            .node_spread(&sample, &[0.5, 0.25], None, &control)
            .is_err());
        assert!(tree.node_spread(&sample, &[1.5], None, &control).is_err());
        assert!(tree
            .node_spread(&sample, &[0.5], Some(0), &control)
            .is_err());
        let bad = [1.0, f64::NAN, 3.0, 4.0];
        let target = Target::Values(&bad);
        let sample = Sample {
            data: &data,
            target: &target,
            weights: &w,
        };
        assert!(matches!(
            tree.node_spread(&sample, &[0.5], None, &control),
            Err(CoreError::NonFiniteTarget { row: 1, .. })
        ));
        // The rows are checked by the walk that routes them: an infinity is named.
        let target = Target::Values(&y);
        let infinite = [1.0, 2.0, f64::INFINITY, 4.0];
        let data_inf = Dataset::new(vec![Column::numeric(&infinite)]).unwrap();
        let sample = Sample {
            data: &data_inf,
            target: &target,
            weights: &w,
        };
        assert_eq!(
            tree.node_spread(&sample, &[0.5], None, &control),
            Err(CoreError::InfiniteFeature { column: 0, row: 2 })
        );
        control.cancel();
        let sample = Sample {
            data: &data,
            target: &target,
            weights: &w,
        };
        assert_eq!(
            tree.node_spread(&sample, &[0.5], None, &control),
            Err(CoreError::Cancelled)
        );
    }
}
