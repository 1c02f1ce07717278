//! From the search's trees to arena [`Tree`]s and back.
//!
//! [`assemble`] builds the fitted model: an ordinary arena tree (so prediction, pruning,
//! rules, pictures and the model file work unchanged), its statistics filled from the
//! training rows routed by the arena's own tests — so the objective it reports is the one
//! prediction reproduces. [`sol_of_tree`] reads a greedy tree in the search's terms, to start
//! the search from it.

use super::columns::{Columns, MissingRank, Scale, Threshold};
use super::solution::{Sol, Test};
use crate::control::Control;
use crate::criterion::{misclassification, Criterion};
use crate::data::{Sample, Target};
use crate::labels::class_of;
use crate::params::{MissingStrategy, Splitter};
use crate::routing::route;
use crate::tree::{
    NodeId, NodeKind, Side, SplitTag, Summary, SurrogateSet, Tree, TreeMeta, Writer,
};

/// What the arena tree records beyond its tests.
pub(crate) struct Setting<'a> {
    pub costs: Option<&'a [f64]>,
    pub missing: MissingStrategy,
    /// Where the search's thresholds come from: every midpoint, or the histogram
    /// splitter's `max_bins` bins (as the fitted tree records it).
    pub splitter: Splitter,
    pub max_bins: u32,
    /// Penalty per leaf, in weight units.
    pub alpha: f64,
}

/// A node's test as the arena stores it.
struct NodeTest {
    tag: SplitTag,
    feature: usize,
    threshold: f64,
    sides: Vec<Side>,
    /// Child of the rows missing the tested value (0 or 1), if the test decides it.
    missing_child: Option<usize>,
}

impl NodeTest {
    fn kind(&self) -> NodeKind<'_> {
        match self.tag {
            SplitTag::Numeric => NodeKind::Numeric {
                feature: self.feature,
                threshold: self.threshold,
            },
            SplitTag::Ordered => NodeKind::Ordered {
                feature: self.feature,
                threshold: self.threshold as u32,
            },
            _ => NodeKind::Subset {
                feature: self.feature,
                sides: &self.sides,
            },
        }
    }
}

fn set<T>(v: &mut [T], i: usize, x: T) {
    if let Some(slot) = v.get_mut(i) {
        *slot = x;
    }
}

/// The arena tree of `sol` over the training `sample`, unfinished (the search adds what it
/// proved), and its cost: the leaves' errors (misclassification cost or squared error, in
/// weight units) plus `alpha` per leaf. `None` when the memory cannot be had (recorded in
/// `control`). Rows are the sample's and the weights one per row (the fit's validation), so
/// the weights' 0.0 here and in [`summarise`] is never read.
pub(crate) fn assemble(
    sample: &Sample<'_, '_>,
    columns: &Columns,
    sol: &Sol,
    setting: &Setting<'_>,
    control: &Control,
) -> Option<(Writer, f64)> {
    let (data, target, weights) = (sample.data, sample.target, sample.weights);
    let (criterion, n_classes) = match target {
        Target::Classes { n_classes, .. } => (Criterion::Misclassification, *n_classes),
        Target::Values(_) => (Criterion::SquaredError, 0),
        // Refused at the search's entry (`grow_optimal`).
        Target::MultiClasses { .. } | Target::MultiValues { .. } => return None,
    };
    let mut tree = Writer::new(TreeMeta {
        missing: setting.missing,
        splitter: setting.splitter,
        max_bins: setting.max_bins,
        ..TreeMeta::new(criterion, data.kinds(), vec![n_classes])
    });
    tree.reserve_nodes(sol.nodes.len(), control)?;
    let unit = weights
        .iter()
        .copied()
        .filter(|&w| w > 0.0)
        .fold(f64::INFINITY, f64::min);
    let root = tree.root(1.0);
    let mut all = control.vec(data.n_rows())?;
    all.extend(0..data.n_rows() as u32);
    let mut stack = vec![(root, 0usize, all)];
    let mut cost = 0.0;
    while let Some((node, at, rows)) = stack.pop() {
        let err = summarise(&mut tree, node, &rows, sample, setting.costs, unit);
        let Some(Some(test)) = sol.nodes.get(at) else {
            cost += err + setting.alpha;
            continue;
        };
        let test = node_test(columns, *test, &rows);
        let kind = test.kind();
        let mut parts: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        let mut known = [0.0; 2];
        let mut missing_rows = Vec::new();
        for &r in &rows {
            let w = weights.get(r as usize).copied().unwrap_or(0.0);
            match route(&kind, data.columns(), r as usize) {
                Some(c) => {
                    if let (Some(p), Some(k)) = (parts.get_mut(c), known.get_mut(c)) {
                        p.push(r);
                        *k += w;
                    }
                }
                None => missing_rows.push(r),
            }
        }
        let total_known = known[0] + known[1];
        let fractions = known.map(|k| {
            if total_known > 0.0 {
                k / total_known
            } else {
                0.5
            }
        });
        // The heavier child (the first of equals) takes missing values the search never met.
        let heavier = usize::from(known[1] > known[0]);
        let missing_weight: f64 = missing_rows
            .iter()
            .map(|&r| weights.get(r as usize).copied().unwrap_or(0.0))
            .fold(0.0, |a, w| a + w);
        let missing_child = match (missing_rows.is_empty(), test.missing_child, setting.missing) {
            (false, Some(c), _) => Some(c),
            (false, None, _) => Some(heavier),
            (true, _, MissingStrategy::Fractional) => None,
            (true, _, _) => Some(heavier),
        };
        if let Some(c) = missing_child {
            if let Some(p) = parts.get_mut(c) {
                p.extend_from_slice(&missing_rows);
                p.sort_unstable();
            }
        }
        let [left, right] = tree.split(node, &kind, &fractions)[..] else {
            return None;
        };
        tree.set_missing_rule(
            node,
            missing_child,
            &SurrogateSet::default(),
            missing_weight,
        );
        let right_at = subtree_end(&sol.nodes, at + 1);
        let [l_rows, r_rows] = parts;
        stack.push((right, right_at, r_rows));
        stack.push((left, at + 1, l_rows));
    }
    Some((tree, cost))
}

/// Where the subtree starting at `start` of a preorder ends.
fn subtree_end(nodes: &[Option<Test>], start: usize) -> usize {
    let mut open = 1usize;
    let mut i = start;
    while open > 0 && i < nodes.len() {
        open = match nodes.get(i) {
            Some(Some(_)) => open + 1,
            _ => open - 1,
        };
        i += 1;
    }
    i
}

/// Fills a node's weight, rows, impurity, label and value from its rows, as the builder
/// does; returns its error as a leaf.
fn summarise(
    tree: &mut Writer,
    node: NodeId,
    rows: &[u32],
    sample: &Sample<'_, '_>,
    costs: Option<&[f64]>,
    unit: f64,
) -> f64 {
    let parent_label = tree.parent(node).map(|p| tree.label(p));
    let w_of = |r: u32| sample.weights.get(r as usize).copied().unwrap_or(0.0);
    let weight: f64 = rows.iter().map(|&r| w_of(r)).sum();
    let (value, label, impurity, err) = match sample.target {
        Target::Classes { codes, n_classes } => {
            let mut counts = vec![0.0; *n_classes];
            for &r in rows {
                if let Some(c) = codes
                    .get(r as usize)
                    .and_then(|&c| counts.get_mut(c as usize))
                {
                    *c += w_of(r);
                }
            }
            let label = class_of(&counts, parent_label, costs);
            let label_at = label as usize;
            let err: f64 = match costs {
                // Column `label` of the k × k matrix parameter validation sized.
                Some(m) => counts
                    .iter()
                    .zip(m.iter().skip(label_at).step_by(counts.len().max(1)))
                    .map(|(c, cost)| c * cost)
                    .sum(),
                None => counts
                    .iter()
                    .enumerate()
                    .map(|(y, &c)| if y == label_at { 0.0 } else { c })
                    .sum(),
            };
            let impurity = misclassification(&counts);
            (counts, label, impurity, err)
        }
        Target::Values(y) => {
            let y_of = |r: u32| y.get(r as usize).copied().unwrap_or(0.0); // rows of y
            let mean = if weight > 0.0 {
                rows.iter().map(|&r| w_of(r) * y_of(r)).sum::<f64>() / weight
            } else {
                0.0
            };
            let sse: f64 = rows
                .iter()
                .map(|&r| {
                    let d = y_of(r) - mean;
                    w_of(r) * d * d
                })
                .sum();
            let impurity = if weight > 0.0 { sse / weight } else { 0.0 };
            (vec![mean], 0, impurity, sse)
        }
        // Refused at the search's entry (`grow_optimal`).
        Target::MultiClasses { .. } | Target::MultiValues { .. } => return 0.0,
    };
    let summary = Summary {
        weight,
        n_rows: weight / unit,
        n_samples: rows.iter().filter(|&&r| w_of(r) > 0.0).count() as u64,
        impurity,
        value: &value,
        labels: &[label],
    };
    tree.set_summary(node, &summary);
    err
}

/// The arena's form of `test` at a node holding `rows`: thresholds midway between the node's
/// adjacent values, categories absent from the node marked unseen.
fn node_test(columns: &Columns, test: Test, rows: &[u32]) -> NodeTest {
    match test {
        Test::Threshold { column, left, .. } => {
            let Some(o) = columns.orderings.get(column as usize) else {
                return leaf_like();
            };
            // The next rank present at the node, whatever the search recorded.
            let right = rows
                .iter()
                .filter_map(|&r| o.rank.get(r as usize).copied())
                .filter(|&k| k > left)
                .min()
                .unwrap_or(left + 1); // none held: the next rank
            let decided = |missing_left: bool| match o.missing_rank {
                MissingRank::None => None,
                _ => Some(usize::from(!missing_left)),
            };
            let (tag, threshold, missing) = match o.threshold(left, right) {
                Threshold::Numeric { t, missing_left } => {
                    (SplitTag::Numeric, t, decided(missing_left))
                }
                Threshold::Ordered { code, missing_left } => {
                    (SplitTag::Ordered, f64::from(code), decided(missing_left))
                }
                Threshold::KnownVsMissing => match o.scale {
                    Scale::Values(_) | Scale::Bins { .. } => {
                        (SplitTag::Numeric, f64::INFINITY, Some(1))
                    }
                    Scale::Codes(n) => (SplitTag::Ordered, f64::from(n.saturating_sub(1)), Some(1)),
                },
            };
            NodeTest {
                tag,
                feature: o.feature,
                threshold,
                sides: Vec::new(),
                missing_child: missing,
            }
        }
        Test::Subset { nominal, left } => {
            let Some(n) = columns.nominals.get(nominal as usize) else {
                return leaf_like();
            };
            let mut held = vec![false; n.slots()];
            for &r in rows {
                if let Some(h) = n
                    .code
                    .get(r as usize)
                    .and_then(|&s| held.get_mut(s as usize))
                {
                    *h = true;
                }
            }
            let goes_left = |slot: usize| slot < 64 && (left >> slot) & 1 == 1;
            let mut sides = vec![Side::Unseen; n.n_categories as usize];
            for (slot, (&category, &held)) in n.categories.iter().zip(&held).enumerate() {
                if held {
                    let side = if goes_left(slot) {
                        Side::Left
                    } else {
                        Side::Right
                    };
                    set(&mut sides, category as usize, side);
                }
            }
            let missing = n
                .missing_slot()
                .map(|s| usize::from(!goes_left(s as usize)));
            NodeTest {
                tag: SplitTag::Subset,
                feature: n.feature,
                threshold: f64::NAN,
                sides,
                missing_child: missing,
            }
        }
    }
}

/// Never built: a test naming no column (the search only makes tests of its columns).
fn leaf_like() -> NodeTest {
    NodeTest {
        tag: SplitTag::Subset,
        feature: 0,
        threshold: f64::NAN,
        sides: Vec::new(),
        missing_child: None,
    }
}

/// The search's form of an arena tree with binary numeric, ordered and subset tests (a
/// greedy tree grown with the same missing-value strategy), or `None` if some test has no
/// such form.
pub(crate) fn sol_of_tree(tree: &Tree, columns: &Columns) -> Option<Sol> {
    let mut nodes = Vec::new();
    let mut stack = vec![NodeId::ROOT];
    while let Some(node) = stack.pop() {
        let kind = tree.kind(node);
        if kind == NodeKind::Leaf {
            nodes.push(None);
            continue;
        }
        let missing_left = tree
            .missing_child(node)
            .zip(tree.children(node).next())
            .is_some_and(|(m, first)| m == first);
        let ordering_of = |feature: usize| {
            columns.orderings.iter().enumerate().find(|(_, o)| {
                o.feature == feature
                    && match o.missing_rank {
                        MissingRank::None => true,
                        MissingRank::First => missing_left,
                        MissingRank::Last => !missing_left,
                    }
            })
        };
        let test = match kind {
            NodeKind::Numeric { feature, threshold } => {
                let (c, o) = ordering_of(feature)?;
                let below = match &o.scale {
                    Scale::Values(values) => values.partition_point(|&v| v <= threshold),
                    Scale::Bins { hi, .. } => hi.partition_point(|&v| v <= threshold),
                    Scale::Codes(_) => return None,
                } as u32;
                let offset = u32::from(o.missing_rank == MissingRank::First);
                Test::Threshold {
                    column: c as u32,
                    left: below.checked_sub(1)? + offset,
                    right: below + offset,
                }
            }
            NodeKind::Ordered { feature, threshold } => {
                let (c, o) = ordering_of(feature)?;
                let offset = u32::from(o.missing_rank == MissingRank::First);
                Test::Threshold {
                    column: c as u32,
                    left: threshold + offset,
                    right: threshold + offset + 1,
                }
            }
            NodeKind::Subset { feature, sides } => {
                let (j, n) = columns
                    .nominals
                    .iter()
                    .enumerate()
                    .find(|(_, n)| n.feature == feature)?;
                let mut left = 0u64;
                for (slot, &category) in n.categories.iter().enumerate() {
                    if sides.get(category as usize) == Some(&Side::Left) {
                        left |= 1 << slot;
                    }
                }
                if let (Some(s), true) = (n.missing_slot(), missing_left) {
                    left |= 1 << s;
                }
                Test::Subset {
                    nominal: j as u32,
                    left,
                }
            }
            _ => return None,
        };
        nodes.push(Some(test));
        let mut children = tree.children(node);
        let (left, right) = (children.next()?, children.next()?);
        stack.push(right);
        stack.push(left);
    }
    Some(Sol { nodes })
}
