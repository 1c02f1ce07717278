//! Data rows routed down a tree with C4.5's fractions: the validation errors of reduced-error
//! pruning and the re-distribution of subtree raising both walk rows this way.

use super::Shape;
use crate::control::Control;
use crate::data::with_numbers;
use crate::data::{Column, Dataset, Target};
use crate::params::MissingStrategy;
use crate::routing::{send, MissingRule, Values};
use crate::split::byte_codes::{code_at, ByteCodes, Coded};
use crate::tree::{NodeId, NodeKind, Tree};

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

/// Entries `start..end` of a [`RoutedRows`] buffer, each counting its weight × `scale`: the product
/// of the fractions of the missing-value branches its rows followed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seg {
    start: usize,
    end: usize,
    scale: f64,
}

impl Seg {
    /// The segment's part of one of the buffers. Segments are made only by [`RoutedRows`]
    /// (`new` and `partition`), inside its buffers, so the range is always there.
    fn of<'b, T>(&self, buffer: &'b [T]) -> &'b [T] {
        buffer.get(self.start..self.end).unwrap_or(&[])
    }
}

/// The rows reaching a node: several segments, since a row missing a tested value reaches
/// every child.
pub(crate) type RowSet = Vec<Seg>;

/// What a walk ([`RoutedRows::walk`]) reports.
pub(crate) trait Visit {
    /// Every node reached, parents first, with the rows that reach it.
    fn node(&mut self, node: NodeId, is_leaf: bool, rows: &RoutedRows<'_, '_>, set: &[Seg]);
    /// Every split passed: its children, the share of a missing row's weight each received,
    /// and the weight of the rows that missed the tested value (left to the fractions).
    fn split(&mut self, _node: NodeId, _children: &[NodeId], _fractions: &[f64], _missing: f64) {}
    /// Whether the walk can stop here (what it was for is settled).
    fn done(&self) -> bool {
        false
    }
    /// Whether the walk enters the nodes no row reaches (to learn that they are empty).
    fn enters_empty(&self) -> bool {
        true
    }
}

/// Data rows with their weights, in a buffer that walks reorder in place.
///
/// A node's rows are segments of the buffer; splitting a node reorders each of its segments as
/// [child 0 | child 1 | … | missing], so every child's rows are sub-segments of its parent's
/// (plus the parent's missing part, scaled). Reordering inside a segment leaves every other
/// node's segments describing the same rows, which is what lets a pruning pass keep the rows
/// of a whole root-to-node path for the price of the buffer and a few segments per node.
pub(crate) struct RoutedRows<'a, 'd> {
    columns: &'a [Column<'d>],
    /// The categorical codes the rows are routed by ([`crate::split::byte_codes`]).
    bytes: ByteCodes,
    row: Vec<u32>,
    weight: Vec<f64>,
    bucket: Vec<usize>,
    scratch: Vec<(u32, f64)>,
}

impl<'a, 'd> RoutedRows<'a, 'd> {
    /// All rows of `data` with `weights`, and the set holding them all (`None` when the
    /// memory cannot be had: `control` then stops).
    pub(crate) fn new(
        data: &'a Dataset<'d>,
        weights: &[f64],
        control: &Control,
    ) -> Option<(RoutedRows<'a, 'd>, RowSet)> {
        let n = data.n_rows().min(weights.len());
        let rows = RoutedRows {
            columns: data.columns(),
            bytes: ByteCodes::of(data, control)?,
            row: (0..n as u32).collect(),
            weight: weights.iter().copied().take(n).collect(),
            bucket: Vec::new(),
            scratch: Vec::new(),
        };
        Some((
            rows,
            vec![Seg {
                start: 0,
                end: n,
                scale: 1.0,
            }],
        ))
    }

    /// Each entry of `set` as (row, weight × scale).
    pub(crate) fn entries<'s>(&'s self, set: &'s [Seg]) -> impl Iterator<Item = (usize, f64)> + 's {
        set.iter().flat_map(move |s| {
            s.of(&self.row)
                .iter()
                .zip(s.of(&self.weight))
                .map(move |(&r, &w)| (r as usize, w * s.scale))
        })
    }

    /// How many rows of `set` carry a positive weight ([`Tree::n_samples`]).
    pub(crate) fn count(&self, set: &[Seg]) -> u64 {
        self.entries(set).filter(|&(_, w)| w > 0.0).count() as u64
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
            if visit.done() {
                return;
            }
            if is_leaf {
                continue;
            }
            let children: Vec<NodeId> = shape.children(tree, node).collect();
            let (sets, f, missing) = self.split(tree, shape, node, &children, &set, fractions);
            visit.split(node, &children, &f, missing);
            let enter = visit.enters_empty();
            stack.extend(
                children
                    .into_iter()
                    .zip(sets)
                    .rev()
                    .filter(|(_, set)| enter || !set.is_empty()),
            );
        }
    }

    /// The rows of `set` that each child of `node` receives: its known rows, and every row
    /// missing the tested value (or with a category unseen at the node) with its weight times
    /// the child's fraction, if that is positive (as [`crate::grow`] and prediction route them).
    /// Also returns the fractions and the weight of the rows left to them.
    pub(crate) fn split(
        &mut self,
        tree: &Tree,
        shape: &Shape,
        node: NodeId,
        children: &[NodeId],
        set: &[Seg],
        fractions: Fractions,
    ) -> (Vec<RowSet>, Vec<f64>, f64) {
        let kind = shape.kind(tree, node);
        let rule = shape.missing_rule(tree, node);
        let n = children.len();
        let mut sets: Vec<RowSet> = vec![Vec::new(); n];
        let mut known = vec![0.0; n];
        let mut missing: RowSet = Vec::new();
        // The weight of the missing rows, summed across the segments in their order.
        let mut missing_weight = 0.0;
        for seg in set {
            let (bounds, sums) = self.partition(&kind, &rule, n, seg, &mut missing_weight);
            for (k, (b, &sum)) in bounds.windows(2).zip(&sums).enumerate() {
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
                        *w += sum;
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
        // Under rpart's surrogates a row the rule cannot send stays in the node.
        let spreads = tree.meta().missing != MissingStrategy::Surrogate;
        for (s, &fk) in sets.iter_mut().zip(&f) {
            if spreads && fk > 0.0 {
                s.extend(missing.iter().map(|m| Seg {
                    scale: m.scale * fk,
                    ..*m
                }));
            }
        }
        (sets, f, missing_weight)
    }

    /// Reorders the entries of `seg` by child (a counting sort; a missing value routed by the
    /// node's rule, as prediction routes it), the rows left to C4.5's fractions last; returns
    /// the `n + 2` bounds of the parts and the `n + 1` parts' weights (each entry's weight ×
    /// scale, summed in the parts' order), the last also added to `missing`, which carries
    /// the sum across segments as one sum over all of them.
    fn partition(
        &mut self,
        kind: &NodeKind<'_>,
        rule: &MissingRule<'_>,
        n: usize,
        seg: &Seg,
        missing: &mut f64,
    ) -> (Vec<usize>, Vec<f64>) {
        let values = Coded {
            columns: self.columns,
            bytes: Some(&self.bytes),
        };
        let rows = seg.of(&self.row);
        self.bucket.clear();
        // No child: C4.5's fractions.
        let unsent = rule.child.filter(|&c| c < n).unwrap_or(n);
        let plain = rule.surrogates.feature.is_empty();
        let generic = |kind: &NodeKind<'_>, r: u32| {
            send(kind, || *rule, &values, r as usize)
                .filter(|&c| c < n)
                .unwrap_or(n)
        };
        // The common tests read their column directly, not through a lookup per row (as
        // `send` routes them: a missing value to the rule's child, a child past the node's to
        // the fractions).
        let sent = |c: usize| if c < n { c } else { n };
        let column = match *kind {
            NodeKind::Numeric { feature, .. } if plain => values.numeric_column(feature),
            _ => None,
        };
        match (*kind, column) {
            (NodeKind::Numeric { threshold, .. }, Some(column)) => {
                with_numbers!(column, |v| self.bucket.extend(rows.iter().map(|&r| {
                    match v.get(r as usize) {
                        Some(x) if !x.is_nan() => sent(usize::from(x > threshold)),
                        _ => unsent,
                    }
                })))
            }
            (NodeKind::Multiway { feature }, _) if plain => {
                let bytes = self.bytes.column(feature);
                self.bucket.extend(rows.iter().map(|&r| {
                    let code = match bytes {
                        Some(bytes) => code_at(bytes, r as usize),
                        None => values.code(feature, r as usize),
                    };
                    code.map_or(unsent, |c| sent(c as usize))
                }));
            }
            _ => self.bucket.extend(rows.iter().map(|&r| generic(kind, r))),
        }
        let mut bounds = vec![0usize; n + 2];
        for &b in &self.bucket {
            if let Some(c) = bounds.get_mut(b + 1) {
                *c += 1;
            }
        }
        // Prefix sums from seg.start: bucket b's rows start at bounds[b].
        let mut running = seg.start;
        for (k, b) in bounds.iter_mut().enumerate() {
            running += if k == 0 { 0 } else { *b };
            *b = running;
        }
        let mut next: Vec<usize> = bounds.iter().map(|b| b - seg.start).collect();
        self.scratch.clear();
        self.scratch.resize(self.bucket.len(), (0, 0.0));
        let weights = seg.of(&self.weight);
        let mut sums = vec![0.0; n + 1];
        for ((&b, &r), &w) in self.bucket.iter().zip(rows).zip(weights) {
            if let (Some(slot), Some(sum)) = (next.get_mut(b), sums.get_mut(b)) {
                if let Some(dst) = self.scratch.get_mut(*slot) {
                    *dst = (r, w);
                }
                *slot += 1;
                *sum += w * seg.scale;
                if b == n {
                    *missing += w * seg.scale;
                }
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
        (bounds, sums)
    }
}

/// Each child's share of the known weight; equal shares when (almost) nothing is known, as
/// Weka's `Distribution.addInstWithUnknown` does (its `Utils.eq(total, 0)` tolerance is 1e-6).
pub(super) fn observed_fractions(known: &[f64]) -> Vec<f64> {
    let total: f64 = known.iter().sum();
    if total.abs() < 1e-6 {
        let n = known.len().max(1) as f64;
        known.iter().map(|_| 1.0 / n).collect()
    } else {
        known.iter().map(|k| k / total).collect()
    }
}
