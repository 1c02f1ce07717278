//! Prediction: a row walks from the root to a leaf; a row missing a tested value takes the
//! node's surrogate splits or missing child if it has them (the strategy the tree was grown
//! with), else follows every branch with the stored fractions r̃_v and the leaf distributions
//! are summed (C4.5, text 000 §4.4.2); under rpart's surrogates it stops at the node
//! instead. The walk uses an explicit `(node, weight)` stack, never recursion, and the
//! fractional path is only taken by rows that need it. Batches first run
//! the compact walk of [`crate::batch`], which hands the rows it cannot finish to this one.

use crate::batch::rows::PredictRows;
use crate::error::Result;
use crate::routing::{send, Values};
use crate::tree::{NodeId, NodeKind, Tree};

/// One reached leaf and the share of the row's weight that arrived there.
pub(crate) type Reached = (NodeId, f64);

impl Tree {
    /// Leaves a row reaches from `start` with their weight shares (summing to 1), in child
    /// order. `stack` and `out` are reused buffers so prediction allocates nothing per row.
    pub(crate) fn reach<V: Values + ?Sized>(
        &self,
        values: &V,
        row: usize,
        start: NodeId,
        stack: &mut Vec<Reached>,
        out: &mut Vec<Reached>,
    ) {
        out.clear();
        // Fast path: no missing value on the way means a single leaf.
        let mut node = start;
        loop {
            let kind = self.kind(node);
            if kind == NodeKind::Leaf {
                out.push((node, 1.0));
                return;
            }
            let rule = || self.missing_rule(node);
            match send(&kind, rule, values, row).and_then(|c| self.children(node).nth(c)) {
                Some(child) => node = child,
                None => break,
            }
        }
        stack.clear();
        stack.push((node, 1.0));
        while let Some((node, w)) = stack.pop() {
            let kind = self.kind(node);
            if kind == NodeKind::Leaf {
                out.push((node, w));
                continue;
            }
            let rule = || self.missing_rule(node);
            match send(&kind, rule, values, row).and_then(|c| self.children(node).nth(c)) {
                Some(child) => stack.push((child, w)),
                // rpart: a row no surrogate sends, at a split without a majority side, stays
                // in the node and takes its prediction.
                None if self.keeps_unsent(node) => out.push((node, w)),
                None => {
                    // Pushed last to first, so the first child is walked first.
                    for child in self.children(node).rev() {
                        let f = self.branch_fraction(child);
                        if f > 0.0 {
                            stack.push((child, w * f));
                        }
                    }
                }
            }
        }
    }

    /// Class probabilities, row-major `n_rows × n_classes`: the reached leaves' class
    /// distributions, normalised and mixed by the row's weight shares. A multi-output tree
    /// gives each output's probabilities in turn ([`Tree::output_ranges`]).
    pub fn predict_proba<'a>(&self, rows: impl Into<PredictRows<'a>>) -> Result<Vec<f64>> {
        self.predictor(None).proba(rows)
    }

    /// Adds the reached leaves' normalised distributions (each output's on its own), times
    /// their shares, to `dst`.
    pub(crate) fn mix(&self, reached: &[Reached], dst: &mut [f64]) {
        for &(leaf, share) in reached {
            let dist = self.value(leaf);
            for (start, len) in self.output_ranges() {
                let range = start..start + len;
                let (Some(dst), Some(dist)) = (dst.get_mut(range.clone()), dist.get(range)) else {
                    continue;
                };
                let total: f64 = dist.iter().sum();
                if total > 0.0 {
                    for (d, &v) in dst.iter_mut().zip(dist) {
                        *d += share * (v / total); // v/total first: subnormal weights must not round the share away
                    }
                }
            }
        }
    }

    /// Class codes, row-major `n_rows × n_outputs`: the most probable class of each output;
    /// ties go to the label of the first reached leaf whose label is among them (so a
    /// single-path row keeps its leaf's tie-broken label).
    pub fn predict_class<'a>(&self, rows: impl Into<PredictRows<'a>>) -> Result<Vec<u32>> {
        self.predictor(None).class(rows)
    }

    /// Writes the class of each output of a row that reached `reached` to `dst`; `proba` is
    /// scratch of `n_classes` numbers. A J48 tree takes the first class whose probability
    /// beats the previous by 1e-6, as J48's `classifyInstance`.
    pub(crate) fn classes_of(&self, reached: &[Reached], proba: &mut [f64], dst: &mut [u32]) {
        proba.iter_mut().for_each(|p| *p = 0.0);
        self.mix(reached, proba);
        let j48 = self.conventions() == crate::params::Conventions::J48;
        for ((k, block), slot) in self.by_output(proba).enumerate().zip(dst) {
            if j48 {
                *slot = crate::split::j48::max_class(block);
                continue;
            }
            let max = block.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let tied = |c: u32| {
                block
                    .get(c as usize)
                    .is_some_and(|&p| !crate::criterion::better(max, p, 0.0))
            };
            *slot = reached
                .iter()
                .filter_map(|&(leaf, _)| self.labels(leaf).get(k).copied())
                .find(|&l| tied(l))
                .or_else(|| (0..block.len() as u32).find(|&c| tied(c)))
                .unwrap_or(0); // none ties: NaN probabilities
        }
    }

    /// Regression predictions, row-major `n_rows × n_outputs`: the reached leaves' means
    /// mixed by weight share.
    pub fn predict_value<'a>(&self, rows: impl Into<PredictRows<'a>>) -> Result<Vec<f64>> {
        self.predictor(None).value(rows)
    }

    /// Writes each output's prediction of a row that reached `reached` to `dst`.
    pub(crate) fn values_of(&self, reached: &[Reached], dst: &mut [f64]) {
        for (k, slot) in dst.iter_mut().enumerate() {
            *slot = reached
                .iter()
                // A regression leaf holds a mean per output ([`Tree::value`]): never the 0.0.
                .map(|&(leaf, share)| share * self.value(leaf).get(k).copied().unwrap_or(0.0))
                .sum();
        }
    }

    /// The nodes each row passes through, as a CSR matrix's row pointers (`n_rows + 1`) and
    /// ascending node ids: every node the row reaches with a positive share, routed as
    /// prediction routes it (scikit-learn's `decision_path`).
    pub fn decision_path<'a>(
        &self,
        rows: impl Into<PredictRows<'a>>,
    ) -> Result<(Vec<u64>, Vec<u32>)> {
        self.predictor(None).decision_path(rows)
    }

    /// Appends to `out` every node `row` reaches with a positive share from the root (in no
    /// particular order); `stack` is a reused buffer.
    pub(crate) fn spread_path<V: Values + ?Sized>(
        &self,
        values: &V,
        row: usize,
        stack: &mut Vec<NodeId>,
        out: &mut Vec<u32>,
    ) {
        stack.clear();
        stack.push(NodeId::ROOT);
        while let Some(node) = stack.pop() {
            out.push(node.0);
            let kind = self.kind(node);
            if kind == NodeKind::Leaf {
                continue;
            }
            let rule = || self.missing_rule(node);
            match send(&kind, rule, values, row).and_then(|c| self.children(node).nth(c)) {
                Some(child) => stack.push(child),
                None if self.keeps_unsent(node) => {}
                None => stack.extend(
                    self.children(node)
                        .filter(|&c| self.branch_fraction(c) > 0.0),
                ),
            }
        }
    }

    /// The leaf each row reaches; for a row split across branches, the leaf with the largest
    /// share (the first such leaf on ties).
    pub fn apply<'a>(&self, rows: impl Into<PredictRows<'a>>) -> Result<Vec<u32>> {
        self.predictor(None).apply(rows)
    }

    /// The leaf holding the largest share of a row (the first on ties).
    pub(crate) fn main_leaf(reached: &[Reached]) -> NodeId {
        let mut best: Option<Reached> = None;
        for &r in reached {
            if best.is_none_or(|b| r.1 > b.1) {
                best = Some(r);
            }
        }
        best.map_or(NodeId::ROOT, |(leaf, _)| leaf) // a row that reached no leaf: the root
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use crate::data::{Column, Dataset};
    use crate::tree::{NodeId, Tree};

    /// A 100,000-deep chain `x <= d` at depth d, built straight into the arena: prediction,
    /// including the fractional path of a missing value, must not recurse.
    #[test]
    fn deep_chain_predicts_without_recursion() {
        let depth = 100_000u32;
        let tree = Tree::chain(depth);
        assert_eq!(tree.max_depth(), depth as usize);
        let x = [3.0, f64::from(depth) + 1.0, f64::NAN];
        let data = Dataset::new(vec![Column::numeric(&x)]).expect("valid data");
        let classes = tree.predict_class(&data).expect("prediction");
        assert_eq!(classes[0], 1);
        assert_eq!(classes[1], 0);
        let proba = tree.predict_proba(&data).expect("prediction");
        // A missing x follows all 100,001 leaves; the shares still sum to 1.
        assert!((proba[4] + proba[5] - 1.0).abs() < 1e-9);
        assert_eq!(
            tree.apply(&data).expect("apply")[1],
            tree.n_nodes() as u32 - 1
        );
        assert_eq!(tree.children(NodeId::ROOT).count(), 2);
    }
}
