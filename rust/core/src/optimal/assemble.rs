//! From the search's trees to arena [`Tree`]s and back.
//!
//! [`assemble`] builds the fitted model: an ordinary arena tree (so prediction, pruning,
//! rules, pictures and the model file work unchanged), its statistics filled from the
//! training rows routed by the arena's own tests — so the objective it reports is the one
//! prediction reproduces. [`sol_of_tree`] reads a greedy tree in the search's terms, to start
//! the search from it.

use super::columns::{Columns, Missing, Scale, Threshold};
use super::solution::{Sol, Test};
use crate::control::Control;
use crate::criterion::{misclassification, Criterion};
use crate::data::{Sample, Target};
use crate::labels::class_of;
use crate::params::{MissingStrategy, Splitter};
use crate::routing::route;
use crate::tree::{NodeId, NodeKind, Side, SplitTag, Tree, TreeMeta, NONE};

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
struct Arena {
    tag: SplitTag,
    feature: usize,
    threshold: f64,
    sides: Vec<Side>,
    /// Child of the rows missing the tested value (0 or 1), if the test decides it.
    missing: Option<usize>,
}

fn set<T>(v: &mut [T], i: usize, x: T) {
    if let Some(slot) = v.get_mut(i) {
        *slot = x;
    }
}

/// The arena tree of `sol` over the training `sample`, and its cost: the leaves' errors
/// (misclassification cost or squared error, in weight units) plus `alpha` per leaf. `None`
/// when the memory cannot be had (recorded in `control`).
pub(crate) fn assemble(
    sample: &Sample<'_, '_>,
    columns: &Columns,
    sol: &Sol,
    setting: &Setting<'_>,
    control: &Control,
) -> Option<(Tree, f64)> {
    let (data, target, weights) = (sample.data, sample.target, sample.weights);
    let (criterion, n_classes) = match target {
        Target::Classes { n_classes, .. } => (Criterion::Misclassification, *n_classes),
        Target::Values(_) => (Criterion::SquaredError, 0),
        // Refused at the search's entry (`grow_optimal`).
        Target::MultiClasses { .. } | Target::MultiValues { .. } => return None,
    };
    let mut tree = Tree::empty(TreeMeta {
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
    let root = tree.push_node(None, 1.0);
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
        let arena = arena_test(columns, *test, &rows);
        let kind = match arena.tag {
            SplitTag::Numeric => NodeKind::Numeric {
                feature: arena.feature,
                threshold: arena.threshold,
            },
            SplitTag::Ordered => NodeKind::Ordered {
                feature: arena.feature,
                threshold: arena.threshold as u32,
            },
            _ => NodeKind::Subset {
                feature: arena.feature,
                sides: &arena.sides,
            },
        };
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
        let missing_child = match (missing_rows.is_empty(), arena.missing, setting.missing) {
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
        let i = node.index();
        set(&mut tree.tag, i, arena.tag);
        set(&mut tree.feature, i, arena.feature as u32);
        set(&mut tree.threshold, i, arena.threshold);
        if arena.tag == SplitTag::Subset {
            set(&mut tree.subset_offset, i, tree.sides.len() as u32);
            tree.sides.extend_from_slice(&arena.sides);
        }
        let left = tree.push_node(Some(node), fractions[0]);
        let right = tree.push_node(Some(node), fractions[1]);
        set(&mut tree.first_child, i, left.0);
        set(&mut tree.n_children, i, 2);
        set(
            &mut tree.missing_child,
            i,
            missing_child.map_or(NONE, |c| c as u32),
        );
        set(&mut tree.missing_weight, i, missing_weight);
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
    tree: &mut Tree,
    node: NodeId,
    rows: &[u32],
    sample: &Sample<'_, '_>,
    costs: Option<&[f64]>,
    unit: f64,
) -> f64 {
    let i = node.index();
    let parent_label = tree.parent(node).map(|p| tree.label(p));
    let w_of = |r: u32| sample.weights.get(r as usize).copied().unwrap_or(0.0);
    let weight: f64 = rows.iter().map(|&r| w_of(r)).sum();
    set(&mut tree.weight, i, weight);
    set(&mut tree.n_rows, i, weight / unit);
    match sample.target {
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
            let k = *n_classes;
            let err: f64 = (0..k)
                .map(|y| {
                    let c = counts.get(y).copied().unwrap_or(0.0);
                    match costs {
                        Some(m) => c * m.get(y * k + label as usize).copied().unwrap_or(0.0),
                        None if y == label as usize => 0.0,
                        None => c,
                    }
                })
                .sum();
            set(&mut tree.impurity, i, misclassification(&counts));
            set(&mut tree.label, i, label);
            if let Some(v) = tree.value.get_mut(i * k..(i + 1) * k) {
                v.copy_from_slice(&counts);
            }
            err
        }
        Target::Values(y) => {
            let y_of = |r: u32| y.get(r as usize).copied().unwrap_or(0.0);
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
            set(&mut tree.value, i, mean);
            set(
                &mut tree.impurity,
                i,
                if weight > 0.0 { sse / weight } else { 0.0 },
            );
            sse
        }
        // Refused at the search's entry (`grow_optimal`).
        Target::MultiClasses { .. } | Target::MultiValues { .. } => 0.0,
    }
}

/// The arena form of `test` at a node holding `rows`: thresholds midway between the node's
/// adjacent values, categories absent from the node marked unseen.
fn arena_test(columns: &Columns, test: Test, rows: &[u32]) -> Arena {
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
                .unwrap_or(left + 1);
            let decided = |missing_left: bool| match o.missing {
                Missing::None => None,
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
            Arena {
                tag,
                feature: o.feature,
                threshold,
                sides: Vec::new(),
                missing,
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
            for (slot, &category) in n.categories.iter().enumerate() {
                if held.get(slot).copied().unwrap_or(false) {
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
            Arena {
                tag: SplitTag::Subset,
                feature: n.feature,
                threshold: f64::NAN,
                sides,
                missing,
            }
        }
    }
}

/// Never built: a test naming no column (the search only makes tests of its columns).
fn leaf_like() -> Arena {
    Arena {
        tag: SplitTag::Subset,
        feature: 0,
        threshold: f64::NAN,
        sides: Vec::new(),
        missing: None,
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
                    && match o.missing {
                        Missing::None => true,
                        Missing::First => missing_left,
                        Missing::Last => !missing_left,
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
                let offset = u32::from(o.missing == Missing::First);
                Test::Threshold {
                    column: c as u32,
                    left: below.checked_sub(1)? + offset,
                    right: below + offset,
                }
            }
            NodeKind::Ordered { feature, threshold } => {
                let (c, o) = ordering_of(feature)?;
                let offset = u32::from(o.missing == Missing::First);
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
