//! The arena's invariants, checked in one pass linear in the tree: on every model file read
//! (which trusts nothing) and, in debug and test builds, on every tree a producer finishes
//! ([`super::Writer::finish`]), so the rules every reader relies on are written once.

use super::arena::NONE;
use super::node::SplitTag;
use super::Tree;
use crate::data::FeatureKind;

/// Rounding slack allowed in a stored branch fraction (a share of a sum of weights) and in the
/// sum of a split's fractions; a real sum of k shares is off by about k × 1e-16.
const FRACTION_SLACK: f64 = 1e-9;

/// The outcome of a check: what is wrong, in words, for the error of whoever asked (a
/// damaged model file, or a producer's bug).
type Checked<T> = std::result::Result<T, String>;

fn at<T: Copy>(v: &[T], i: usize, what: &str) -> Checked<T> {
    v.get(i)
        .copied()
        .ok_or_else(|| format!("{what} of node {i} is missing"))
}

/// Everything prediction, rendering and pruning rely on, in one pass linear in the arena:
///
/// - the criterion matches the kind of tree (regression ⇔ 0 classes);
/// - node 0 is the root (no parent, depth 0); every other node names a parent numbered before
///   it, lies in that parent's child range, and has the parent's depth + 1;
/// - a leaf has no feature, children, subset mask or linear terms; a split tests a feature
///   that exists and has the right kind (an oblique split: numeric features through its
///   linear terms), its children are numbered after it and inside the arena, and it has as
///   many children as its test has outcomes (2, or the feature's categories for a multiway
///   split); every child slot is claimed by exactly the node whose range holds it, so the
///   nodes form one tree and nothing is shared or cyclic;
/// - numeric and oblique thresholds are finite, ordered thresholds are category codes, subset
///   masks lie inside the mask array, linear terms inside the term arrays (each term checked
///   once: finite coefficient, numeric feature), recorded scores inside the score array;
/// - branch fractions lie in [0, 1] and a split's add up to 1; weights, row counts and class
///   weights are finite and non-negative, impurities and means finite, labels name a class.
pub(super) fn check(t: &Tree) -> Checked<()> {
    let n = t.arena.tag.len();
    let n_features = t.meta.kinds.len();
    let n_outputs = t.n_outputs();
    if t.meta.outputs.contains(&0) && t.n_classes() > 0 {
        return Err(format!(
            "the outputs have {:?} classes: every output is classes or every output real",
            t.meta.outputs
        ));
    }
    match (t.meta.criterion.is_regression(), t.n_classes()) {
        (true, 0) => {}
        (true, k) => {
            return Err(format!(
                "the regression criterion {:?} comes with {k} classes",
                t.meta.criterion.name()
            ))
        }
        (false, 0) => {
            return Err(format!(
                "the classification criterion {:?} comes with no classes",
                t.meta.criterion.name()
            ))
        }
        (false, _) => {}
    }
    // Every linear term, once (node ranges may overlap, so checking them per node could cost
    // n_nodes × n_terms on a hostile file).
    for (k, (&f, &w)) in t
        .arena
        .linear_features
        .iter()
        .zip(&t.arena.linear_weights)
        .enumerate()
    {
        if t.meta.kinds.get(f as usize) != Some(&FeatureKind::Numeric) {
            return Err(format!(
                "linear term {k} uses feature {f}, which is not one of the {n_features} features \
                 or not numeric"
            ));
        }
        if !w.is_finite() {
            return Err(format!("linear term {k} has weight {w}, not finite"));
        }
    }
    // Every surrogate split, once: an existing feature, a finite threshold on a numeric one, a
    // finite agreement, and a child map (2 entries, or one per category) inside the maps.
    let n_maps = t.arena.surrogate_children.len() as u64;
    for k in 0..t.arena.surrogate_feature.len() {
        let f = at(&t.arena.surrogate_feature, k, "the surrogate feature")?;
        let threshold = at(&t.arena.surrogate_threshold, k, "the surrogate threshold")?;
        let agreement = at(&t.arena.surrogate_agreement, k, "the surrogate agreement")?;
        let map = at(&t.arena.surrogate_map, k, "the surrogate child map")?;
        let surrogate = |what: String| format!("surrogate split {k}: {what}");
        let width = match t.meta.kinds.get(f as usize) {
            Some(FeatureKind::Numeric) if threshold.is_finite() => 2,
            Some(FeatureKind::Numeric) => {
                return Err(surrogate(format!(
                    "numeric threshold {threshold} is not finite"
                )))
            }
            // Prediction reads a NaN threshold as "by category code".
            Some(FeatureKind::Categorical { n_categories, .. }) if threshold.is_nan() => {
                u64::from(*n_categories)
            }
            Some(FeatureKind::Categorical { .. }) => {
                return Err(surrogate(format!(
                    "a categorical feature with threshold {threshold} (NaN expected)"
                )))
            }
            None => {
                return Err(surrogate(format!(
                    "feature {f} is not one of the {n_features} features"
                )))
            }
        };
        if !agreement.is_finite() {
            return Err(surrogate(format!("agreement {agreement} is not finite")));
        }
        // NaN: unknown (a file written before it was kept).
        let adjusted = at(&t.arena.surrogate_adjusted, k, "the adjusted agreement")?;
        if adjusted.is_infinite() {
            return Err(surrogate(format!(
                "adjusted agreement {adjusted} is not finite"
            )));
        }
        if u64::from(map) + width > n_maps {
            return Err(surrogate(format!(
                "its child map at {map} with {width} entries lies outside the {n_maps} entries"
            )));
        }
    }
    // Which node owns each surrogate: a node's surrogates are its own, so checking their
    // child maps per node costs the size of the maps once, whatever a hostile file declares.
    let mut owned = vec![false; t.arena.surrogate_feature.len()];
    let width = t.value_width();
    // How many nodes name each node as their parent, and the sum of their branch fractions.
    let mut claimed = vec![0u32; n];
    let mut fractions = vec![0.0f64; n];
    for i in 0..n {
        let tag = at(&t.arena.tag, i, "the tag")?;
        let feature = at(&t.arena.feature, i, "the feature")?;
        let threshold = at(&t.arena.threshold, i, "the threshold")?;
        let first = at(&t.arena.first_child, i, "the first child")?;
        let n_children = at(&t.arena.n_children, i, "the number of children")?;
        let subset = at(&t.arena.subset_offset, i, "the subset offset")?;
        let linear = at(&t.arena.linear_offset, i, "the linear-term offset")?;
        let linear_len = at(&t.arena.linear_len, i, "the linear-term count")?;
        let parent = at(&t.arena.parent, i, "the parent")?;
        let depth = at(&t.arena.depth, i, "the depth")?;
        let missing_child = at(&t.arena.missing_child, i, "the missing-value child")?;
        let surrogates = at(&t.arena.surrogate_offset, i, "the surrogate offset")?;
        let n_surrogates = at(&t.arena.surrogate_len, i, "the surrogate count")?;
        let node = |what: String| format!("node {i}: {what}");

        if i == 0 {
            if parent != NONE || depth != 0 {
                return Err(node(format!(
                    "the root must have no parent and depth 0, has parent {parent} and depth \
                     {depth}"
                )));
            }
        } else {
            let p = parent as usize;
            if parent == NONE || p >= i {
                return Err(node(format!(
                    "its parent {} is not a node numbered before it (a cycle or a dangling index)",
                    if parent == NONE {
                        "(none)".to_string()
                    } else {
                        parent.to_string()
                    }
                )));
            }
            let p_first = at(&t.arena.first_child, p, "the first child")?;
            let p_count = at(&t.arena.n_children, p, "the number of children")?;
            let inside = p_first != NONE
                && u64::from(p_first) <= i as u64
                && (i as u64) < u64::from(p_first) + u64::from(p_count);
            if !inside {
                return Err(node(format!(
                    "it names node {p} as its parent, but is not among that node's children"
                )));
            }
            let p_depth = at(&t.arena.depth, p, "the depth")?;
            if p_depth.checked_add(1) != Some(depth) {
                return Err(node(format!(
                    "its depth is {depth}, but its parent {p} has depth {p_depth}"
                )));
            }
            if let Some(c) = claimed.get_mut(p) {
                *c += 1;
            }
            if let Some(f) = fractions.get_mut(p) {
                *f += at(&t.arena.branch_fraction, i, "the branch fraction")?;
            }
        }

        if tag == SplitTag::Leaf {
            if feature != NONE
                || first != NONE
                || n_children != 0
                || subset != NONE
                || linear != NONE
                || linear_len != 0
                || missing_child != NONE
                || surrogates != NONE
                || n_surrogates != 0
            {
                return Err(node(
                    "a leaf with a feature, children, a subset mask, linear terms or \
                     missing-value routing"
                        .to_string(),
                ));
            }
        } else {
            let kind = if tag == SplitTag::Oblique && feature == NONE {
                FeatureKind::Numeric
            } else {
                t.meta.kinds.get(feature as usize).copied().ok_or_else(|| {
                    node(format!(
                        "it tests feature {feature}, but the model has {n_features} features"
                    ))
                })?
            };
            let expected_children = match (tag, kind) {
                (SplitTag::Oblique, _) => {
                    let end = u64::from(linear) + u64::from(linear_len);
                    if linear == NONE
                        || linear_len == 0
                        || end > t.arena.linear_features.len() as u64
                    {
                        return Err(node(format!(
                            "its {linear_len} linear terms at {linear} lie outside the {} terms",
                            t.arena.linear_features.len()
                        )));
                    }
                    if !threshold.is_finite() {
                        return Err(node(format!("oblique threshold {threshold} is not finite")));
                    }
                    2
                }
                (SplitTag::Numeric, FeatureKind::Numeric) => {
                    // +∞ sends every known value left and the missing ones to child 1.
                    let known_vs_missing = threshold == f64::INFINITY && missing_child == 1;
                    if !(threshold.is_finite() || known_vs_missing) {
                        return Err(node(format!(
                            "numeric threshold {threshold} is neither finite nor +inf with \
                             missing values sent to child 1"
                        )));
                    }
                    2
                }
                // Missing values as a category of their own add a last child for them.
                (SplitTag::Multiway, FeatureKind::Categorical { n_categories, .. })
                    if missing_child == n_categories =>
                {
                    n_categories.saturating_add(1)
                }
                (SplitTag::Multiway, FeatureKind::Categorical { n_categories, .. }) => n_categories,
                (SplitTag::Subset, FeatureKind::Categorical { n_categories, .. }) => {
                    let end = u64::from(subset) + u64::from(n_categories);
                    if subset == NONE || end > t.arena.sides.len() as u64 {
                        return Err(node(format!(
                            "its subset mask at {subset} with {n_categories} entries lies \
                             outside the {} mask entries",
                            t.arena.sides.len()
                        )));
                    }
                    2
                }
                (
                    SplitTag::Ordered,
                    FeatureKind::Categorical {
                        n_categories,
                        ordered: true,
                    },
                ) => {
                    let code_ok = threshold.fract() == 0.0
                        && threshold >= 0.0
                        && threshold < f64::from(n_categories);
                    if !code_ok {
                        return Err(node(format!(
                            "ordered threshold {threshold} is not one of the {n_categories} \
                             category codes"
                        )));
                    }
                    2
                }
                (tag, kind) => {
                    return Err(node(format!(
                        "a {tag:?} test on feature {feature}, which is {kind:?}"
                    )))
                }
            };
            if tag != SplitTag::Subset && subset != NONE {
                return Err(node(format!("a {tag:?} test with a subset mask")));
            }
            if tag != SplitTag::Oblique && (linear != NONE || linear_len != 0) {
                return Err(node(format!("a {tag:?} test with linear terms")));
            }
            if n_children != expected_children || n_children == 0 {
                return Err(node(format!(
                    "a {tag:?} test with {n_children} children; expected {expected_children}"
                )));
            }
            let end = u64::from(first) + u64::from(n_children);
            if first == NONE || (first as usize) <= i || end > n as u64 {
                return Err(node(format!(
                    "its children {first}..{end} are not numbered after it inside the {n} nodes"
                )));
            }
            if missing_child != NONE && missing_child >= n_children {
                return Err(node(format!(
                    "missing values go to child {missing_child} of its {n_children}"
                )));
            }
            if surrogates != NONE || n_surrogates != 0 {
                let start = surrogates as usize;
                let range = owned
                    .get_mut(start..start.saturating_add(n_surrogates as usize))
                    .filter(|_| surrogates != NONE)
                    .ok_or_else(|| {
                        node(format!(
                            "its {n_surrogates} surrogate splits at {surrogates} lie outside \
                             the {} surrogates",
                            t.arena.surrogate_feature.len()
                        ))
                    })?;
                if range.iter().any(|&o| o) {
                    return Err(node("it shares surrogate splits with another node".into()));
                }
                range.iter_mut().for_each(|o| *o = true);
                for k in start..start + n_surrogates as usize {
                    let f = at(&t.arena.surrogate_feature, k, "the surrogate feature")?;
                    let map = at(&t.arena.surrogate_map, k, "the surrogate child map")? as usize;
                    let width = match t.meta.kinds.get(f as usize) {
                        Some(FeatureKind::Categorical { n_categories, .. }) => {
                            *n_categories as usize
                        }
                        _ => 2,
                    };
                    let entries = t
                        .arena
                        .surrogate_children
                        .get(map..map.saturating_add(width))
                        .ok_or_else(|| {
                            node(format!(
                                "surrogate split {k}'s child map lies outside the maps"
                            ))
                        })?;
                    if let Some(c) = entries.iter().find(|&&c| c != NONE && c >= n_children) {
                        return Err(node(format!(
                            "surrogate split {k} sends rows to child {c} of its {n_children}"
                        )));
                    }
                }
            }
        }

        let fraction = at(&t.arena.branch_fraction, i, "the branch fraction")?;
        if !(0.0..=1.0 + FRACTION_SLACK).contains(&fraction) {
            return Err(node(format!("branch fraction {fraction} is not in [0, 1]")));
        }
        for (what, x) in [
            ("weight", at(&t.arena.weight, i, "the weight")?),
            ("row count", at(&t.arena.n_rows, i, "the row count")?),
            (
                "missing weight",
                at(&t.arena.missing_weight, i, "the missing weight")?,
            ),
        ] {
            if !(x.is_finite() && x >= 0.0) {
                return Err(node(format!("{what} {x} is not finite and non-negative")));
            }
        }
        at(&t.arena.n_samples, i, "the sample count")?;
        let impurity = at(&t.arena.impurity, i, "the impurity")?;
        if !impurity.is_finite() {
            return Err(node(format!("impurity {impurity} is not finite")));
        }
        for (k, &classes) in t.meta.outputs.iter().enumerate() {
            let label = at(&t.arena.label, i * n_outputs + k, "the label")?;
            let label_ok = if classes == 0 {
                label == 0
            } else {
                (label as usize) < classes
            };
            if !label_ok {
                let of = if n_outputs > 1 {
                    format!(" of output {k}")
                } else {
                    String::new()
                };
                return Err(node(format!(
                    "label {label}{of} does not name one of the {classes} classes"
                )));
            }
        }
        let values = t
            .arena
            .value
            .get(i * width..(i + 1) * width)
            .ok_or_else(|| node("its values are missing".to_string()))?;
        let classes = t.n_classes() > 0;
        if let Some(v) = values
            .iter()
            .find(|v| !v.is_finite() || (classes && **v < 0.0))
        {
            return Err(node(format!(
                "value {v} is not {}",
                if classes {
                    "a finite non-negative class weight"
                } else {
                    "a finite mean"
                }
            )));
        }
        let scores = at(&t.arena.score_offset, i, "the score offset")?;
        if scores != NONE && u64::from(scores) + n_features as u64 > t.arena.scores.len() as u64 {
            return Err(node(format!(
                "its recorded scores at {scores} lie outside the {} scores",
                t.arena.scores.len()
            )));
        }
    }
    // Each child slot lies in its parent's range (checked above), and a split has exactly as
    // many slots as nodes naming it: so the ranges are disjoint and cover nodes 1..n.
    // A row missing the tested value (without a missing-value child) follows every child
    // with its fraction, so the fractions must add up to 1 or predicted probabilities would
    // not.
    for (i, (((&count, &n_children), &sum), &missing_child)) in claimed
        .iter()
        .zip(&t.arena.n_children)
        .zip(&fractions)
        .zip(&t.arena.missing_child)
        .enumerate()
    {
        if count != n_children {
            return Err(format!(
                "node {i} has {n_children} child slots but {count} nodes name it as their parent"
            ));
        }
        if n_children > 0 && missing_child == NONE && (sum - 1.0).abs() > FRACTION_SLACK {
            return Err(format!(
                "the branch fractions of node {i}'s children add up to {sum}, not 1"
            ));
        }
    }
    Ok(())
}
