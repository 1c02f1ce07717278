//! Tree growth: Algorithm 4.1 of text 000 with an explicit stack (no recursion, so a
//! degenerate 100,000-deep chain cannot overflow the call stack).

use crate::criterion::{stats_weight, Criterion};
use crate::data::{validate_weights, Dataset, Target};
use crate::error::{CoreError, Result};
use crate::params::TreeParams;
use crate::split::{choose, route, NodeRows, Searcher, SplitRule};
use crate::tree::{FeatureScore, NodeId, SplitTag, Tree, NONE};

/// A node waiting to be grown, with the rows that reached it.
struct Pending {
    node: NodeId,
    rows: NodeRows,
    /// Features still allowed here: a multiway-split categorical is not tested again below.
    usable: Vec<bool>,
}

/// Grows a tree on `data` for `target` with per-row `weights`.
///
/// Stops as Algorithm 4.1 does: a pure node, or one where no feature separates its rows,
/// becomes a leaf with its majority class; an empty branch becomes a leaf holding its
/// parent's distribution. A zero gain still splits (text 004's XOR). `params` adds the
/// usual limits (depth, rows per split and per leaf).
pub fn grow(
    data: &Dataset<'_>,
    target: &Target<'_>,
    weights: &[f64],
    params: &TreeParams,
) -> Result<Tree> {
    data.validate_for_fit()?;
    target.validate(data.n_rows())?;
    validate_weights(weights, data.n_rows())?;
    check_criterion(params.criterion, target)?;

    let n_classes = match target {
        Target::Classes { n_classes, .. } => *n_classes,
        Target::Values(_) => 0,
    };
    let mut tree = Tree::empty(params.criterion, data.kinds(), n_classes);
    let searcher = Searcher::new(data, target, params);
    let root = tree.push_node(None, 1.0);
    let mut stack = vec![Pending {
        node: root,
        rows: NodeRows {
            rows: (0..data.n_rows() as u32).collect(),
            weights: weights.to_vec(),
        },
        usable: vec![true; data.n_features()],
    }];
    while let Some(p) = stack.pop() {
        summarise(&mut tree, target, p.node, &p.rows);
        if p.rows.len() == 0 || is_terminal(&tree, params, p.node, &p.rows) {
            continue;
        }
        let (candidates, scale) = searcher.candidates(&p.rows, &p.usable);
        record_scores(&mut tree, p.node, &candidates);
        let Some(best) = choose(params.criterion, &candidates, scale) else {
            continue;
        };
        let children = split_node(&mut tree, p.node, best.feature, &best.rule, &best.fractions);
        let kind = tree.kind(p.node);
        let mut parts: Vec<NodeRows> = vec![NodeRows::default(); children.len()];
        for (r, w) in p.rows.iter() {
            match route(&kind, data.columns(), r) {
                Some(c) => {
                    if let Some(part) = parts.get_mut(c) {
                        part.rows.push(r as u32);
                        part.weights.push(w);
                    }
                }
                // C4.5: a row missing the tested value goes to every child with weight × r̃_v.
                None => {
                    for (part, &f) in parts.iter_mut().zip(&best.fractions) {
                        if f > 0.0 {
                            part.rows.push(r as u32);
                            part.weights.push(w * f);
                        }
                    }
                }
            }
        }
        let mut usable = p.usable;
        if matches!(best.rule, SplitRule::Multiway { .. }) {
            if let Some(u) = usable.get_mut(best.feature) {
                *u = false;
            }
        }
        // Reverse so the first child is grown first (depth-first, in child order).
        for (child, rows) in children.into_iter().zip(parts).rev() {
            stack.push(Pending {
                node: child,
                rows,
                usable: usable.clone(),
            });
        }
    }
    Ok(tree)
}

pub(crate) fn check_criterion(criterion: Criterion, target: &Target<'_>) -> Result<()> {
    match (criterion.is_regression(), target) {
        (true, Target::Classes { .. }) => Err(CoreError::InvalidParameter {
            name: "criterion",
            reason: format!("{:?} is a regression criterion; a classifier needs entropy, gain_ratio, gini or misclassification", criterion.name()),
        }),
        (false, Target::Values(_)) => Err(CoreError::InvalidParameter {
            name: "criterion",
            reason: format!("{:?} is a classification criterion; a regressor needs squared_error", criterion.name()),
        }),
        _ => Ok(()),
    }
}

/// Fills a node's weight, distribution, impurity and label from its rows. An empty node
/// keeps its parent's distribution and label (Algorithm 4.1, line 12).
fn summarise(tree: &mut Tree, target: &Target<'_>, node: NodeId, rows: &NodeRows) {
    let i = node.index();
    let parent = tree.parent(node);
    let width = tree.value_width();
    let regression = tree.is_regression();
    if rows.len() == 0 {
        if let Some(p) = parent {
            let value = tree.value(p).to_vec();
            let (label, impurity) = (tree.label(p), tree.impurity(p));
            set(&mut tree.value, i * width, &value);
            set_one(&mut tree.label, i, label);
            set_one(&mut tree.impurity, i, impurity);
        }
        return;
    }
    let mut stats = vec![0.0; target.stats_width()];
    for (r, w) in rows.iter() {
        target.accumulate(&mut stats, r, w);
    }
    let weight = stats_weight(&stats, regression);
    set_one(&mut tree.weight, i, weight);
    set_one(&mut tree.n_rows, i, rows.len() as f64);
    if let Target::Values(y) = target {
        let mean = stats.get(1).copied().unwrap_or(0.0) / weight;
        set(&mut tree.value, i * width, &[mean]);
        set_one(
            &mut tree.impurity,
            i,
            two_pass_variance(y, rows, mean, weight),
        );
    } else {
        set_one(&mut tree.impurity, i, tree.criterion.impurity(&stats));
        let parent_label = parent.map(|p| tree.label(p));
        set_one(&mut tree.label, i, majority(&stats, parent_label));
        set(&mut tree.value, i * width, &stats);
    }
}

/// Σw(y − ȳ)²/Σw summed around the mean: unlike Σwy²/Σw − ȳ², a node whose targets are all
/// equal gets exactly 0, so it is recognised as pure whatever the magnitude of y.
fn two_pass_variance(y: &[f64], rows: &NodeRows, mean: f64, weight: f64) -> f64 {
    let ss: f64 = rows
        .iter()
        .map(|(r, w)| {
            let d = y.get(r).copied().unwrap_or(mean) - mean;
            w * d * d
        })
        .sum();
    ss / weight
}

/// The heaviest class; ties go to the parent's class if it is among them, else the first.
pub(crate) fn majority(weights: &[f64], parent: Option<u32>) -> u32 {
    let max = weights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tied = |c: usize| {
        weights
            .get(c)
            .is_some_and(|&w| !crate::criterion::better(max, w, 0.0))
    };
    if let Some(p) = parent.filter(|&p| tied(p as usize)) {
        return p;
    }
    (0..weights.len()).find(|&c| tied(c)).unwrap_or(0) as u32
}

fn set(v: &mut [f64], start: usize, src: &[f64]) {
    if let Some(dst) = v.get_mut(start..start + src.len()) {
        dst.copy_from_slice(src);
    }
}

fn set_one<T>(v: &mut [T], i: usize, x: T) {
    if let Some(slot) = v.get_mut(i) {
        *slot = x;
    }
}

/// Stopping rules checked before any search (sklearn's order: depth, rows, purity).
fn is_terminal(tree: &Tree, params: &TreeParams, node: NodeId, rows: &NodeRows) -> bool {
    let n = rows.len();
    params.max_depth.is_some_and(|d| tree.depth(node) >= d)
        || n < params.min_samples_split
        || n < 2 * params.min_samples_leaf
        || tree.impurity(node) <= f64::EPSILON
}

fn record_scores(tree: &mut Tree, node: NodeId, candidates: &[Option<crate::split::Candidate>]) {
    let offset = tree.scores.len() as u32;
    tree.scores.extend(
        candidates
            .iter()
            .map(|c| c.as_ref().map_or(FeatureScore::NONE, |c| c.score)),
    );
    set_one(&mut tree.score_offset, node.index(), offset);
}

/// Turns a leaf into a split and allocates its children, contiguous, each with its r̃_v.
fn split_node(
    tree: &mut Tree,
    node: NodeId,
    feature: usize,
    rule: &SplitRule,
    fractions: &[f64],
) -> Vec<NodeId> {
    let i = node.index();
    let (tag, threshold) = match rule {
        SplitRule::Numeric { threshold } => (SplitTag::Numeric, *threshold),
        SplitRule::Multiway { .. } => (SplitTag::Multiway, f64::NAN),
        SplitRule::Ordered { threshold } => (SplitTag::Ordered, f64::from(*threshold)),
        SplitRule::Subset { sides } => {
            let offset = tree.sides.len() as u32;
            tree.sides.extend_from_slice(sides);
            set_one(&mut tree.subset_offset, i, offset);
            (SplitTag::Subset, f64::NAN)
        }
    };
    set_one(&mut tree.tag, i, tag);
    set_one(&mut tree.feature, i, feature as u32);
    set_one(&mut tree.threshold, i, threshold);
    let children: Vec<NodeId> = fractions
        .iter()
        .map(|&f| tree.push_node(Some(node), f))
        .collect();
    set_one(
        &mut tree.first_child,
        i,
        children.first().map_or(NONE, |c| c.0),
    );
    set_one(&mut tree.n_children, i, children.len() as u32);
    children
}
