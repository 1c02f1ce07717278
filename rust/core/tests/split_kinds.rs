//! Hand-computed checks of every criterion and every kind of split, the growth limits, and
//! every error variant. Expected figures are derived in comments or by brute force here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{check_tree, dataset, leaf, num, OwnedCol};
use quercus_core::{
    grow, split_scores, CategoricalColumn, CategoricalSplit, Column, CoreError, Criterion, Dataset,
    NoSplit, NodeId, NodeKind, Side, Target, Tree, TreeParams,
};

// ---------------------------------------------------------------------------------------------
// Independent impurities.

fn entropy(c: &[f64]) -> f64 {
    let t: f64 = c.iter().sum();
    c.iter()
        .filter(|&&x| x > 0.0)
        .map(|&x| -(x / t) * (x / t).log2())
        .sum()
}

fn gini(c: &[f64]) -> f64 {
    let t: f64 = c.iter().sum();
    1.0 - c.iter().map(|&x| (x / t) * (x / t)).sum::<f64>()
}

fn error_rate(c: &[f64]) -> f64 {
    let t: f64 = c.iter().sum();
    1.0 - c.iter().copied().fold(0.0, f64::max) / t
}

/// Two-pass variance of `ys`.
fn variance(ys: &[f64]) -> f64 {
    let n = ys.len() as f64;
    let m = ys.iter().sum::<f64>() / n;
    ys.iter().map(|y| (y - m) * (y - m)).sum::<f64>() / n
}

fn class_counts(ys: &[u32], n_classes: usize) -> Vec<f64> {
    let mut c = vec![0.0; n_classes];
    for &y in ys {
        c[y as usize] += 1.0;
    }
    c
}

/// Impurity decrease of splitting class labels `ys` into `left` / the rest.
fn class_decrease(imp: fn(&[f64]) -> f64, ys: &[u32], left: &[bool], k: usize) -> f64 {
    let n = ys.len() as f64;
    let l: Vec<u32> = ys.iter().zip(left).filter(|p| *p.1).map(|p| *p.0).collect();
    let r: Vec<u32> = ys
        .iter()
        .zip(left)
        .filter(|p| !*p.1)
        .map(|p| *p.0)
        .collect();
    imp(&class_counts(ys, k))
        - l.len() as f64 / n * imp(&class_counts(&l, k))
        - r.len() as f64 / n * imp(&class_counts(&r, k))
}

fn value_decrease(ys: &[f64], left: &[bool]) -> f64 {
    let n = ys.len() as f64;
    let l: Vec<f64> = ys.iter().zip(left).filter(|p| *p.1).map(|p| *p.0).collect();
    let r: Vec<f64> = ys
        .iter()
        .zip(left)
        .filter(|p| !*p.1)
        .map(|p| *p.0)
        .collect();
    variance(ys) - l.len() as f64 / n * variance(&l) - r.len() as f64 / n * variance(&r)
}

fn near(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

macro_rules! assert_near {
    ($a:expr, $b:expr) => {
        assert_near!($a, $b, 1e-9)
    };
    ($a:expr, $b:expr, $tol:expr) => {{
        let (a, b): (f64, f64) = ($a, $b);
        assert!(near(a, b, $tol), "{} = {a}, expected {b}", stringify!($a));
    }};
}

fn params(criterion: Criterion, split: CategoricalSplit) -> TreeParams {
    TreeParams::new(criterion, split, None, 2, 1, 12).unwrap()
}

fn classes(codes: &[u32], n_classes: usize) -> Target<'_> {
    Target::Classes { codes, n_classes }
}

/// A small deterministic generator (SplitMix64) for the brute-force cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

// ---------------------------------------------------------------------------------------------
// Criteria on one hand-made data set.
//
// 16 rows, classes 8 × 0 then 8 × 1.
// Feature B (column 0): row 0 alone in category 1 → children [1, 0] and [7, 8].
// Feature A (column 1): category 0 = rows 0-5 (class 0) and 8-9 (class 1) → [6, 2];
//                       category 1 = rows 6-7 (class 0) and 10-15 (class 1) → [2, 6].

fn ab_data() -> (Vec<OwnedCol>, Vec<u32>) {
    let b: Vec<u32> = (0..16).map(|i| u32::from(i == 0)).collect();
    let a: Vec<u32> = (0..16)
        .map(|i| u32::from(matches!(i, 6 | 7 | 10..=15)))
        .collect();
    let y: Vec<u32> = (0..16).map(|i| u32::from(i >= 8)).collect();
    (vec![OwnedCol::cat(b, 2), OwnedCol::cat(a, 2)], y)
}

fn ab_scores(criterion: Criterion) -> Vec<quercus_core::FeatureScore> {
    let (cols, y) = ab_data();
    split_scores(
        &dataset(&cols),
        &classes(&y, 2),
        &[1.0; 16],
        criterion,
        CategoricalSplit::Multiway,
    )
    .unwrap()
    .into_iter()
    .map(|s| s.unwrap())
    .collect::<Vec<_>>()
}

#[test]
fn entropy_gain_by_hand() {
    let s = ab_scores(Criterion::Entropy);
    // A: 1 − (8/16·Ent(6/8) + 8/16·Ent(2/8)) = 1 − Ent(1/4) = 1 − 0.811278 = 0.188722.
    assert_near!(s[1].gain, 1.0 - 0.811_278_124_459_132_9, 1e-12);
    assert_near!(s[1].score, s[1].gain, 0.0);
    // B: 1 − 15/16·Ent(7/15) = 1 − 0.9375 · 0.996792 = 0.065508.
    assert_near!(s[0].gain, 1.0 - 15.0 / 16.0 * entropy(&[7.0, 8.0]), 1e-12);
    assert_near!(s[0].gain, 0.065_508, 1e-6);
}

#[test]
fn gain_ratio_requires_at_least_average_gain() {
    let s = ab_scores(Criterion::GainRatio);
    // IV(A) = Ent(8/16) = 1; IV(B) = Ent(1/16) = 0.337290.
    assert_near!(s[1].iv, 1.0, 1e-12);
    assert_near!(s[0].iv, entropy(&[1.0, 15.0]), 1e-12);
    assert_near!(s[0].iv, 0.337_290, 1e-6);
    // Ratios: A 0.188722 / 1 = 0.188722; B 0.065508 / 0.337290 = 0.194219: B has the best
    // ratio, but its gain is below the average gain (0.188722 + 0.065508) / 2 = 0.127115.
    assert_near!(s[1].score, s[1].gain / s[1].iv, 1e-12);
    assert_near!(s[0].score, 0.194_219, 1e-6);
    assert!(s[0].score > s[1].score);
    assert!(s[0].gain < (s[0].gain + s[1].gain) / 2.0);

    // C4.5 picks the best ratio among candidates of at least average gain: A (column 1),
    // although B has the higher ratio and the lower column index.
    let (cols, y) = ab_data();
    let tree = grow(
        &dataset(&cols),
        &classes(&y, 2),
        &[1.0; 16],
        &params(Criterion::GainRatio, CategoricalSplit::Multiway),
    )
    .unwrap();
    assert_eq!(tree.kind(NodeId::ROOT), NodeKind::Multiway { feature: 1 });
}

#[test]
fn gain_ratio_counts_the_missing_share_in_split_information() {
    // 5 rows, codes [0, 0, 1, 1, missing], classes [0, 0, 1, 1, 0].
    // Known rows D̃ = 4 (rho = 4/5), Ent(D̃) = 1, both children pure: gain = 4/5 · 1 = 0.8.
    // IV has the missing share as its own outcome: Ent(2/5, 2/5, 1/5) = 1.521928.
    let col = [OwnedCol::cat_opt(
        &[Some(0), Some(0), Some(1), Some(1), None],
        2,
        false,
    )];
    let y = [0, 0, 1, 1, 0];
    let s = split_scores(
        &dataset(&col),
        &classes(&y, 2),
        &[1.0; 5],
        Criterion::GainRatio,
        CategoricalSplit::Multiway,
    )
    .unwrap()
    .into_iter()
    .map(|s| s.unwrap())
    .collect::<Vec<_>>();
    assert_near!(s[0].rho, 0.8, 1e-12);
    assert_near!(s[0].gain, 0.8, 1e-12);
    assert_near!(s[0].iv, entropy(&[2.0, 2.0, 1.0]), 1e-12);
    assert_near!(s[0].iv, 1.521_928, 1e-6);
    assert_near!(s[0].score, 0.8 / 1.521_928_094_887_362, 1e-9);

    // The missing row goes to both children with weight 1/2.
    let tree = grow(
        &dataset(&col),
        &classes(&y, 2),
        &[1.0; 5],
        &params(Criterion::GainRatio, CategoricalSplit::Multiway),
    )
    .unwrap();
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).collect();
    assert_eq!(kids.len(), 2);
    for &k in &kids {
        assert_near!(tree.branch_fraction(k), 0.5, 1e-12);
        assert_near!(tree.weight(k), 2.5, 1e-12);
    }
    assert_eq!(tree.value(kids[0]), &[2.5, 0.0]);
    assert_eq!(tree.value(kids[1]), &[0.5, 2.0]);
}

#[test]
fn gini_reports_weighted_child_index() {
    let s = ab_scores(Criterion::Gini);
    // A: Gini_index = 8/16·(1 − (6/8)² − (2/8)²) · 2 = 0.375; decrease 0.5 − 0.375 = 0.125.
    assert_near!(s[1].score, 0.375, 1e-12);
    assert_near!(s[1].gain, 0.125, 1e-12);
    // B: 1/16·0 + 15/16·(1 − (7/15)² − (8/15)²) = 15/16 · 112/225 = 7/15; decrease 1/30.
    assert_near!(s[0].score, 7.0 / 15.0, 1e-12);
    assert_near!(s[0].gain, 0.5 - 7.0 / 15.0, 1e-12);
    assert_near!(s[0].score, 15.0 / 16.0 * gini(&[7.0, 8.0]), 1e-12);
}

#[test]
fn misclassification_reports_weighted_child_error() {
    let s = ab_scores(Criterion::Misclassification);
    // A: 8/16·(2/8)·2 = 0.25; decrease 0.5 − 0.25 = 0.25.
    assert_near!(s[1].score, 0.25, 1e-12);
    assert_near!(s[1].gain, 0.25, 1e-12);
    // B: 15/16 · 7/15 = 7/16; decrease 1/2 − 7/16 = 1/16.
    assert_near!(s[0].score, 7.0 / 16.0, 1e-12);
    assert_near!(s[0].gain, 1.0 / 16.0, 1e-12);
    assert_near!(s[0].score, 15.0 / 16.0 * error_rate(&[7.0, 8.0]), 1e-12);
}

#[test]
fn squared_error_by_hand() {
    // x = 1..6, y = 1, 1, 1, 5, 5, 6. Var(y) = 89/6 − (19/6)² = 173/36.
    // x <= 3.5: left var 0, right var(5, 5, 6) = 2/9 → weighted 3/6 · 2/9 = 1/9,
    // decrease 173/36 − 4/36 = 169/36; the best of the five midpoints (checked below).
    let x = [OwnedCol::Num(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])];
    let y = [1.0, 1.0, 1.0, 5.0, 5.0, 6.0];
    let s = split_scores(
        &dataset(&x),
        &Target::Values(&y),
        &[1.0; 6],
        Criterion::SquaredError,
        CategoricalSplit::Binary,
    )
    .unwrap()
    .into_iter()
    .map(|s| s.unwrap())
    .collect::<Vec<_>>();
    assert_near!(s[0].threshold, 3.5, 0.0);
    assert_near!(s[0].score, 1.0 / 9.0, 1e-12);
    assert_near!(s[0].gain, 169.0 / 36.0, 1e-12);
    let best = (1..6)
        .map(|p| {
            let left: Vec<bool> = (0..6).map(|i| i < p).collect();
            (value_decrease(&y, &left), p)
        })
        .fold((f64::NEG_INFINITY, 0), |a, b| if b.0 > a.0 { b } else { a });
    assert_eq!(best.1, 3);
    assert_near!(best.0, 169.0 / 36.0, 1e-12);

    // The grown tree: x <= 3.5 → mean 1; x > 3.5 splits (5, 5 | 6) at 5.5.
    let tree = grow(
        &dataset(&x),
        &Target::Values(&y),
        &[1.0; 6],
        &TreeParams::new(
            Criterion::SquaredError,
            CategoricalSplit::Binary,
            None,
            2,
            1,
            12,
        )
        .unwrap(),
    )
    .unwrap();
    assert!(tree.is_regression());
    assert_eq!(
        tree.kind(NodeId::ROOT),
        NodeKind::Numeric {
            feature: 0,
            threshold: 3.5
        }
    );
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).collect();
    assert_eq!(tree.value(kids[0]), &[1.0]);
    assert_near!(tree.value(kids[1])[0], 16.0 / 3.0, 1e-12);
    assert_eq!(
        tree.kind(kids[1]),
        NodeKind::Numeric {
            feature: 0,
            threshold: 5.5
        }
    );
    assert_eq!(tree.predict_value(&dataset(&x)).unwrap(), y.to_vec());
}

// ---------------------------------------------------------------------------------------------
// Regression trees and floating-point ties. A pure node stops (Algorithm 4.1), and equal
// scores are ties broken by order, never by rounding luck (README tie rules), so neither the
// row order nor writing a row twice instead of weight 2 may change the tree.

fn squared_error() -> TreeParams {
    TreeParams::new(
        Criterion::SquaredError,
        CategoricalSplit::Binary,
        None,
        2,
        1,
        12,
    )
    .unwrap()
}

#[test]
fn squared_error_constant_target_is_a_single_leaf() {
    // Every y is 3.3: the root is pure and must be a leaf predicting 3.3.
    let x = [OwnedCol::Num(vec![0.0, 1.0, 2.0])];
    let y = [3.3, 3.3, 3.3];
    let tree = grow(
        &dataset(&x),
        &Target::Values(&y),
        &[1.0; 3],
        &squared_error(),
    )
    .unwrap();
    assert_eq!(
        tree.n_nodes(),
        1,
        "a pure node was split: {:?}",
        tree.kind(NodeId::ROOT)
    );
    assert_near!(tree.value(NodeId::ROOT)[0], 3.3, 1e-12);
}

#[test]
fn squared_error_tree_does_not_depend_on_row_order() {
    // x = 1, 4, 1, 0, missing; y = 3.3, 1.1, 3.3, 3.3, 3.3. The root isolates x = 4 at
    // (1 + 4) / 2 = 2.5. Its left child (x = 0, 1, 1 and 3/4 of the missing row) has y = 3.3
    // throughout: pure, a leaf. Its right child (x = 4 and 1/4 of the missing row) has a
    // single known x: no split, a leaf. So 3 nodes, whatever the order of the rows.
    let x = [1.0, 4.0, 1.0, 0.0, f64::NAN];
    let y = [3.3, 1.1, 3.3, 3.3, 3.3];
    for order in [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]] {
        let xs = [OwnedCol::Num(order.iter().map(|&i| x[i]).collect())];
        let ys: Vec<f64> = order.iter().map(|&i| y[i]).collect();
        let tree = grow(
            &dataset(&xs),
            &Target::Values(&ys),
            &[1.0; 5],
            &squared_error(),
        )
        .unwrap();
        assert_eq!(
            tree.kind(NodeId::ROOT),
            NodeKind::Numeric {
                feature: 0,
                threshold: 2.5
            },
            "order {order:?}"
        );
        assert_eq!(tree.n_nodes(), 3, "order {order:?}: a pure child was split");
    }
}

#[test]
fn squared_error_weight_two_equals_a_duplicated_row() {
    // Found by the duplicated-row property. Under the root (z <= 2.5) a node's rows with a
    // known x all have y = 0.8, so every x threshold decreases the impurity by exactly 0: a
    // tie, which must not be broken differently when row 7 is written twice instead of once
    // with weight 2 (the threshold decides how the rows missing x are shared out).
    let nan = f64::NAN;
    let x = vec![4.0, 2.0, 0.0, nan, nan, 4.0, nan, 3.0, nan];
    let z = vec![4.0, 0.0, 3.0, 0.0, 2.0, 2.0, nan, nan, 5.0];
    let y = vec![2.3, 0.8, 2.3, -0.7, -0.7, 0.8, -0.7, 0.8, 0.8];
    let cols = [OwnedCol::Num(x), OwnedCol::Num(z)];
    let mut w = vec![1.0; 9];
    w[7] = 2.0;
    let weighted = grow(&dataset(&cols), &Target::Values(&y), &w, &squared_error()).unwrap();
    let rows: Vec<usize> = (0..9).chain([7]).collect();
    let dup_cols: Vec<OwnedCol> = cols.iter().map(|c| c.select(&rows)).collect();
    let dup_y: Vec<f64> = rows.iter().map(|&r| y[r]).collect();
    let dup = grow(
        &dataset(&dup_cols),
        &Target::Values(&dup_y),
        &[1.0; 10],
        &squared_error(),
    )
    .unwrap();
    let a = weighted.predict_value(&dataset(&cols)).unwrap();
    let b = dup.predict_value(&dataset(&cols)).unwrap();
    for (row, (p, q)) in a.iter().zip(&b).enumerate() {
        assert!(
            near(*p, *q, 1e-9),
            "row {row}: weight 2 predicts {p}, duplicate {q}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Numeric splits.

#[test]
fn numeric_threshold_is_the_midpoint_of_adjacent_distinct_values() {
    // Unsorted x = 8, 1, 4, 2 with classes 1, 0, 1, 0: the cut lies between 2 and 4.
    let x = [OwnedCol::Num(vec![8.0, 1.0, 4.0, 2.0])];
    let y = [1, 0, 1, 0];
    let tree = grow(
        &dataset(&x),
        &classes(&y, 2),
        &[1.0; 4],
        &TreeParams::default(),
    )
    .unwrap();
    assert_eq!(
        tree.kind(NodeId::ROOT),
        NodeKind::Numeric {
            feature: 0,
            threshold: 3.0
        }
    );
    // Repeated values: only midpoints between distinct values are candidates.
    let x = [OwnedCol::Num(vec![1.0, 1.0, 1.0, 2.0, 2.0, 3.0])];
    let y = [0, 0, 0, 1, 1, 1];
    let s = split_scores(
        &dataset(&x),
        &classes(&y, 2),
        &[1.0; 6],
        Criterion::Entropy,
        CategoricalSplit::Binary,
    )
    .unwrap()
    .into_iter()
    .map(|s| s.unwrap())
    .collect::<Vec<_>>();
    assert_near!(s[0].threshold, 1.5, 0.0);
    assert_near!(s[0].gain, 1.0, 1e-12);
    // A constant feature cannot separate anything.
    let x = [OwnedCol::Num(vec![2.0; 4])];
    let s = split_scores(
        &dataset(&x),
        &classes(&[0, 1, 0, 1], 2),
        &[1.0; 4],
        Criterion::Gini,
        CategoricalSplit::Binary,
    )
    .unwrap();
    assert_eq!(s[0], Err(NoSplit::OneKnownValue));
}

#[test]
fn numeric_feature_is_reused_down_a_path() {
    // x = 1..7, classes 0, 0, 1, 1, 0, 0, 0 (Gini, parent 1 − (5/7)² − (2/7)² = 20/49).
    //   x <= 2.5: [2, 0] | [3, 2] → 5/7 · 12/25 = 0.342857
    //   x <= 4.5: [2, 2] | [3, 0] → 4/7 · 1/2   = 0.285714 (best; 1.5: 0.380952, 3.5: 0.404762,
    //             5.5: 0.380952, 6.5: 0.380952)
    // then x in 1..4 with classes 0, 0, 1, 1 splits at 2.5: the same feature again.
    let x = [OwnedCol::Num((1..=7).map(f64::from).collect())];
    let y = [0, 0, 1, 1, 0, 0, 0];
    let ys: Vec<u32> = y.to_vec();
    for p in [1usize, 2, 3, 5, 6] {
        let left: Vec<bool> = (0..7).map(|i| i < p).collect();
        let at_4_5: Vec<bool> = (0..7).map(|i| i < 4).collect();
        assert!(class_decrease(gini, &ys, &left, 2) < class_decrease(gini, &ys, &at_4_5, 2));
    }
    let tree = grow(
        &dataset(&x),
        &classes(&y, 2),
        &[1.0; 7],
        &TreeParams::default(),
    )
    .unwrap();
    check_tree(&tree, &num(0, 4.5, num(0, 2.5, leaf(0), leaf(1)), leaf(0)));
}

// ---------------------------------------------------------------------------------------------
// Multiway splits.

#[test]
fn multiway_empty_branch_takes_the_parents_distribution_and_label() {
    // Category 2 of 3 never occurs: its child is empty.
    let col = [OwnedCol::cat(vec![0, 0, 1, 1, 0], 3)];
    let y = [0, 0, 1, 1, 1];
    let tree = grow(
        &dataset(&col),
        &classes(&y, 2),
        &[1.0; 5],
        &params(Criterion::Entropy, CategoricalSplit::Multiway),
    )
    .unwrap();
    assert_eq!(tree.kind(NodeId::ROOT), NodeKind::Multiway { feature: 0 });
    assert_eq!(tree.value(NodeId::ROOT), &[2.0, 3.0]);
    assert_eq!(tree.label(NodeId::ROOT), 1);
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).collect();
    assert_eq!(kids.len(), 3);
    // Category 0: rows 0, 1, 4 → [2, 1]; category 1: rows 2, 3 → [0, 2]; r̃ = 3/5, 2/5, 0.
    assert_eq!(tree.value(kids[0]), &[2.0, 1.0]);
    assert_eq!(tree.value(kids[1]), &[0.0, 2.0]);
    assert_near!(tree.branch_fraction(kids[0]), 0.6, 1e-12);
    assert_near!(tree.branch_fraction(kids[1]), 0.4, 1e-12);
    assert_eq!(tree.branch_fraction(kids[2]), 0.0);
    assert_eq!(tree.weight(kids[2]), 0.0);
    assert_eq!(tree.value(kids[2]), &[2.0, 3.0]);
    assert_eq!(tree.label(kids[2]), 1);
    for &k in &kids {
        assert_eq!(tree.kind(k), NodeKind::Leaf, "the feature is used up");
    }
    // A row of category 2 is classified by the empty leaf: the parent's class.
    let probe = [OwnedCol::cat(vec![2], 3)];
    assert_eq!(tree.predict_class(&dataset(&probe)).unwrap(), vec![1]);
    let p = tree.predict_proba(&dataset(&probe)).unwrap();
    assert_near!(p[0], 0.4, 1e-12);
    assert_near!(p[1], 0.6, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Binary subset splits: optimality by brute force over every subset of present categories.

/// Left-hand membership of each category from a subset node's sides, checking the mask.
fn left_set(tree: &Tree, present: &[bool]) -> Vec<bool> {
    let NodeKind::Subset { feature, sides } = tree.kind(NodeId::ROOT) else {
        panic!("root is not a subset split: {:?}", tree.kind(NodeId::ROOT))
    };
    assert_eq!(feature, 0);
    assert_eq!(sides.len(), present.len());
    for (c, s) in sides.iter().enumerate() {
        if present[c] {
            assert_ne!(*s, Side::Unseen, "present category {c} has a side");
        } else {
            assert_eq!(*s, Side::Unseen, "absent category {c} is unseen");
        }
    }
    let left: Vec<bool> = sides.iter().map(|s| *s == Side::Left).collect();
    assert!(left.iter().any(|&l| l), "the left side is not empty");
    assert!(sides.contains(&Side::Right), "the right side is not empty");
    left
}

/// Best decrease over all two-way partitions of the present categories.
fn brute_force(k: usize, present: &[bool], decrease: impl Fn(&[bool]) -> f64) -> f64 {
    let mut best = f64::NEG_INFINITY;
    for mask in 1..(1u32 << k) - 1 {
        let left: Vec<bool> = (0..k).map(|c| mask >> c & 1 == 1).collect();
        let l_present = (0..k).any(|c| present[c] && left[c]);
        let r_present = (0..k).any(|c| present[c] && !left[c]);
        if l_present && r_present {
            best = best.max(decrease(&left));
        }
    }
    best
}

fn subset_case(
    rng: &mut Rng,
    k: u32,
    n_classes: u32,
    criterion: Criterion,
    max_exhaustive: usize,
) -> bool {
    let n = 20 + rng.below(30) as usize;
    // Leave some categories out now and then; give each category its own class mix.
    let used = 2 + rng.below(u64::from(k) - 1) as u32;
    let bias: Vec<f64> = (0..k).map(|_| rng.unit()).collect();
    let codes: Vec<u32> = (0..n).map(|_| rng.below(u64::from(used)) as u32).collect();
    let y: Vec<u32> = codes
        .iter()
        .map(|&c| {
            let u = rng.unit();
            if n_classes == 2 {
                u32::from(u < bias[c as usize])
            } else if u < bias[c as usize] {
                c % n_classes
            } else {
                rng.below(u64::from(n_classes)) as u32
            }
        })
        .collect();
    let present: Vec<bool> = (0..k).map(|c| codes.contains(&c)).collect();
    if present.iter().filter(|&&p| p).count() < 2 || y.iter().all(|&c| c == y[0]) {
        return false;
    }
    let col = [OwnedCol::cat(codes.clone(), k)];
    let p = TreeParams::new(
        criterion,
        CategoricalSplit::Binary,
        Some(1),
        2,
        1,
        max_exhaustive,
    )
    .unwrap();
    let tree = grow(
        &dataset(&col),
        &classes(&y, n_classes as usize),
        &vec![1.0; n],
        &p,
    )
    .unwrap();
    let imp: fn(&[f64]) -> f64 = match criterion {
        Criterion::Gini => gini,
        Criterion::Entropy | Criterion::GainRatio => entropy,
        _ => error_rate,
    };
    let rows_left =
        |cats: &[bool]| -> Vec<bool> { codes.iter().map(|&c| cats[c as usize]).collect() };
    let chosen = left_set(&tree, &present);
    let got = class_decrease(imp, &y, &rows_left(&chosen), n_classes as usize);
    let best = brute_force(k as usize, &present, |cats| {
        class_decrease(imp, &y, &rows_left(cats), n_classes as usize)
    });
    assert!(
        got >= best - 1e-12,
        "{criterion:?}, {n_classes} classes: codes {codes:?} y {y:?}: chose {chosen:?} with \
         decrease {got}, but the best partition decreases {best}"
    );
    true
}

#[test]
fn subset_split_two_classes_is_optimal() {
    let mut rng = Rng(1);
    let mut checked = 0;
    for criterion in [
        Criterion::Gini,
        Criterion::Entropy,
        Criterion::Misclassification,
    ] {
        for _ in 0..40 {
            checked += usize::from(subset_case(&mut rng, 6, 2, criterion, 12));
        }
    }
    assert!(checked > 100);
}

#[test]
fn subset_split_three_or_more_classes_is_exhaustive() {
    let mut rng = Rng(2);
    let mut checked = 0;
    for criterion in [
        Criterion::Gini,
        Criterion::Entropy,
        Criterion::Misclassification,
    ] {
        for n_classes in [3, 4] {
            for _ in 0..25 {
                checked += usize::from(subset_case(&mut rng, 5, n_classes, criterion, 12));
            }
        }
    }
    assert!(checked > 100);
}

#[test]
fn subset_split_regression_is_optimal() {
    let mut rng = Rng(3);
    let mut checked = 0;
    for _ in 0..60 {
        let k = 6u32;
        let n = 20 + rng.below(30) as usize;
        let used = 2 + rng.below(u64::from(k) - 1) as u32;
        let means: Vec<f64> = (0..k).map(|_| 10.0 * rng.unit()).collect();
        let codes: Vec<u32> = (0..n).map(|_| rng.below(u64::from(used)) as u32).collect();
        let y: Vec<f64> = codes
            .iter()
            .map(|&c| means[c as usize] + 3.0 * rng.unit())
            .collect();
        let present: Vec<bool> = (0..k).map(|c| codes.contains(&c)).collect();
        if present.iter().filter(|&&p| p).count() < 2 {
            continue;
        }
        let col = [OwnedCol::cat(codes.clone(), k)];
        let p = TreeParams::new(
            Criterion::SquaredError,
            CategoricalSplit::Binary,
            Some(1),
            2,
            1,
            12,
        )
        .unwrap();
        let tree = grow(&dataset(&col), &Target::Values(&y), &vec![1.0; n], &p).unwrap();
        let rows_left =
            |cats: &[bool]| -> Vec<bool> { codes.iter().map(|&c| cats[c as usize]).collect() };
        let chosen = left_set(&tree, &present);
        let got = value_decrease(&y, &rows_left(&chosen));
        let best = brute_force(k as usize, &present, |cats| {
            value_decrease(&y, &rows_left(cats))
        });
        assert!(
            got >= best - 1e-9 * best.abs().max(1.0),
            "codes {codes:?} y {y:?}: chose {chosen:?} ({got}), best {best}"
        );
        checked += 1;
    }
    assert!(checked > 40);
}

#[test]
fn subset_split_beyond_exhaustive_limit_is_still_a_valid_partition() {
    // 3 classes, 5 categories, exhaustive search limited to 2 categories: the heuristic order
    // must still give a proper two-sided split of the present categories.
    let mut rng = Rng(4);
    for _ in 0..20 {
        let codes: Vec<u32> = (0..40).map(|_| rng.below(5) as u32).collect();
        let y: Vec<u32> = (0..40).map(|_| rng.below(3) as u32).collect();
        let present: Vec<bool> = (0..5).map(|c| codes.contains(&c)).collect();
        let col = [OwnedCol::cat(codes, 5)];
        let p =
            TreeParams::new(Criterion::Gini, CategoricalSplit::Binary, Some(1), 2, 1, 2).unwrap();
        let tree = grow(&dataset(&col), &classes(&y, 3), &[1.0; 40], &p).unwrap();
        left_set(&tree, &present);
    }
}

#[test]
fn subset_sides_route_left_to_the_first_child() {
    // Codes 0, 1, 2 with classes 0, 1, 0: the pure split isolates category 1.
    let col = [OwnedCol::cat(vec![0, 0, 1, 1, 2, 2], 3)];
    let y = [0, 0, 1, 1, 0, 0];
    let tree = grow(
        &dataset(&col),
        &classes(&y, 2),
        &[1.0; 6],
        &TreeParams::default(),
    )
    .unwrap();
    let NodeKind::Subset { sides, .. } = tree.kind(NodeId::ROOT) else {
        panic!("expected a subset split")
    };
    assert_eq!(sides[0], sides[2]);
    assert_ne!(sides[0], sides[1]);
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).collect();
    let left_child = if sides[1] == Side::Left {
        kids[0]
    } else {
        kids[1]
    };
    assert_eq!(tree.value(left_child), &[0.0, 2.0]);
    assert_eq!(
        tree.predict_class(&dataset(&col)).unwrap(),
        y.to_vec(),
        "pure children"
    );
    // An unknown code at prediction is routed like a missing value: half and half.
    let probe = [OwnedCol::cat(vec![7], 3)];
    let p = tree.predict_proba(&dataset(&probe)).unwrap();
    // r̃: category 1 side 2/6, the other 4/6 → P(class 1) = 2/6.
    assert_near!(p[1], 2.0 / 6.0, 1e-12);
    assert_near!(p[0] + p[1], 1.0, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Ordered categories.

#[test]
fn ordered_categories_split_by_threshold_on_codes() {
    // Codes 0..4 with classes 0, 0, 0, 1, 1: code <= 2 is the pure cut.
    let col = [OwnedCol::cat_opt(
        &[Some(0), Some(1), Some(2), Some(3), Some(4)],
        5,
        true,
    )];
    let y = [0, 0, 0, 1, 1];
    let tree = grow(
        &dataset(&col),
        &classes(&y, 2),
        &[1.0; 5],
        &TreeParams::default(),
    )
    .unwrap();
    assert_eq!(
        tree.kind(NodeId::ROOT),
        NodeKind::Ordered {
            feature: 0,
            threshold: 2
        }
    );
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).collect();
    assert_eq!(tree.value(kids[0]), &[3.0, 0.0]);
    assert_eq!(tree.value(kids[1]), &[0.0, 2.0]);
    let s = split_scores(
        &dataset(&col),
        &classes(&y, 2),
        &[1.0; 5],
        Criterion::Gini,
        CategoricalSplit::Binary,
    )
    .unwrap()
    .into_iter()
    .map(|s| s.unwrap())
    .collect::<Vec<_>>();
    assert_eq!(s[0].threshold, 2.0);

    // Codes 0, 1, 2 with classes 0, 1, 0: the order forbids isolating code 1, so the root's
    // cut is code <= 0 or code <= 1, each with Gini index 4/6 · 1/2 = 1/3; unordered, the
    // subset {1} is pure (index 0).
    let codes = [Some(0), Some(0), Some(1), Some(1), Some(2), Some(2)];
    let y = [0, 0, 1, 1, 0, 0];
    let ordered = [OwnedCol::cat_opt(&codes, 3, true)];
    let s = split_scores(
        &dataset(&ordered),
        &classes(&y, 2),
        &[1.0; 6],
        Criterion::Gini,
        CategoricalSplit::Binary,
    )
    .unwrap()
    .into_iter()
    .map(|s| s.unwrap())
    .collect::<Vec<_>>();
    assert_near!(s[0].score, 1.0 / 3.0, 1e-12);
    assert!(s[0].threshold == 0.0 || s[0].threshold == 1.0);
    let tree = grow(
        &dataset(&ordered),
        &classes(&y, 2),
        &[1.0; 6],
        &TreeParams::default(),
    )
    .unwrap();
    assert!(matches!(
        tree.kind(NodeId::ROOT),
        NodeKind::Ordered { feature: 0, .. }
    ));
    // The ordered feature is tested again below, and the tree ends consistent.
    assert_eq!(tree.predict_class(&dataset(&ordered)).unwrap(), y.to_vec());
    let unordered = [OwnedCol::cat_opt(&codes, 3, false)];
    let s = split_scores(
        &dataset(&unordered),
        &classes(&y, 2),
        &[1.0; 6],
        Criterion::Gini,
        CategoricalSplit::Binary,
    )
    .unwrap()
    .into_iter()
    .map(|s| s.unwrap())
    .collect::<Vec<_>>();
    assert_near!(s[0].score, 0.0, 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Growth limits.

fn chain(n: usize) -> (Vec<OwnedCol>, Vec<u32>) {
    (
        vec![OwnedCol::Num((0..n).map(|i| i as f64).collect())],
        (0..n).map(|i| (i % 2) as u32).collect(),
    )
}

fn all_nodes(tree: &Tree) -> impl Iterator<Item = NodeId> + '_ {
    (0..tree.n_nodes() as u32).map(NodeId)
}

#[test]
fn max_depth_limits_the_tree() {
    let (x, y) = chain(10);
    let p = TreeParams::new(Criterion::Gini, CategoricalSplit::Binary, Some(3), 2, 1, 12).unwrap();
    let tree = grow(&dataset(&x), &classes(&y, 2), &[1.0; 10], &p).unwrap();
    assert_eq!(tree.max_depth(), 3);
    for node in all_nodes(&tree) {
        if tree.depth(node) == 3 {
            assert_eq!(tree.kind(node), NodeKind::Leaf);
        }
    }
    let p = TreeParams::new(Criterion::Gini, CategoricalSplit::Binary, Some(1), 2, 1, 12).unwrap();
    let stump = grow(&dataset(&x), &classes(&y, 2), &[1.0; 10], &p).unwrap();
    assert_eq!(stump.n_nodes(), 3);
}

#[test]
fn min_samples_split_limits_the_tree() {
    let (x, y) = chain(10);
    let p = TreeParams::new(Criterion::Gini, CategoricalSplit::Binary, None, 5, 1, 12).unwrap();
    let tree = grow(&dataset(&x), &classes(&y, 2), &[1.0; 10], &p).unwrap();
    let mut impure_leaf = false;
    for node in all_nodes(&tree) {
        let v = tree.value(node);
        let pure = v.iter().filter(|&&w| w > 0.0).count() <= 1;
        if tree.n_rows(node) < 5.0 {
            assert_eq!(tree.kind(node), NodeKind::Leaf, "{node:?} has < 5 rows");
            impure_leaf |= !pure;
        } else if tree.kind(node) == NodeKind::Leaf {
            assert!(pure, "{node:?}: a leaf of >= 5 rows must be pure");
        }
    }
    assert!(impure_leaf, "the limit stopped an impure node");
    let p = TreeParams::new(Criterion::Gini, CategoricalSplit::Binary, None, 11, 1, 12).unwrap();
    let tree = grow(&dataset(&x), &classes(&y, 2), &[1.0; 10], &p).unwrap();
    assert_eq!(tree.n_nodes(), 1);
}

#[test]
fn min_samples_leaf_limits_the_split() {
    // x = 1..6, classes 0, 1, 1, 1, 1, 1. Unlimited, x <= 1.5 isolates the 0 (pure children).
    // With at least 2 rows per leaf the candidates are 2.5, 3.5, 4.5 with Gini indices
    //   2.5: 2/6 · 1/2 = 1/6;  3.5: 3/6 · 4/9 = 2/9;  4.5: 4/6 · 3/8 = 1/4  → 2.5.
    let x = [OwnedCol::Num((1..=6).map(f64::from).collect())];
    let y = [0, 1, 1, 1, 1, 1];
    let tree = grow(
        &dataset(&x),
        &classes(&y, 2),
        &[1.0; 6],
        &TreeParams::default(),
    )
    .unwrap();
    assert_eq!(
        tree.kind(NodeId::ROOT),
        NodeKind::Numeric {
            feature: 0,
            threshold: 1.5
        }
    );
    let p = TreeParams::new(Criterion::Gini, CategoricalSplit::Binary, None, 2, 2, 12).unwrap();
    let tree = grow(&dataset(&x), &classes(&y, 2), &[1.0; 6], &p).unwrap();
    assert_eq!(
        tree.kind(NodeId::ROOT),
        NodeKind::Numeric {
            feature: 0,
            threshold: 2.5
        }
    );
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).collect();
    assert_eq!(tree.value(kids[0]), &[1.0, 1.0]);
    assert_eq!(tree.kind(kids[0]), NodeKind::Leaf);

    // Random data: every non-empty leaf of a min_samples_leaf = 3 tree holds >= 3 rows.
    let mut rng = Rng(5);
    for _ in 0..20 {
        let n = 30;
        let cols = vec![
            OwnedCol::Num((0..n).map(|_| rng.below(10) as f64).collect()),
            OwnedCol::cat((0..n).map(|_| rng.below(4) as u32).collect(), 4),
        ];
        let y: Vec<u32> = (0..n).map(|_| rng.below(2) as u32).collect();
        for split in [CategoricalSplit::Binary, CategoricalSplit::Multiway] {
            let p = TreeParams::new(Criterion::Entropy, split, None, 2, 3, 12).unwrap();
            let tree = grow(&dataset(&cols), &classes(&y, 2), &[1.0; 30], &p).unwrap();
            for node in all_nodes(&tree) {
                let r = tree.n_rows(node);
                assert!(
                    r == 0.0 || r >= 3.0,
                    "{split:?}: node {node:?} holds {r} rows"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Errors.

fn gini_params() -> TreeParams {
    TreeParams::default()
}

#[test]
fn error_empty_data() {
    let none: Dataset<'_> = Dataset::new(vec![]).unwrap();
    let r = grow(&none, &classes(&[], 2), &[], &gini_params());
    assert!(matches!(
        r,
        Err(CoreError::EmptyData {
            rows: 0,
            columns: 0
        })
    ));
    let empty: [f64; 0] = [];
    let zero_rows = Dataset::new(vec![Column::numeric(&empty)]).unwrap();
    let r = grow(&zero_rows, &classes(&[], 2), &[], &gini_params());
    assert!(matches!(
        r,
        Err(CoreError::EmptyData {
            rows: 0,
            columns: 1
        })
    ));
    let r = split_scores(
        &zero_rows,
        &classes(&[], 2),
        &[],
        Criterion::Gini,
        CategoricalSplit::Binary,
    );
    assert!(matches!(r, Err(CoreError::EmptyData { .. })));
}

#[test]
fn error_shape_mismatch() {
    let a = [1.0, 2.0, 3.0];
    let b = [1.0, 2.0];
    let r = Dataset::new(vec![Column::numeric(&a), Column::numeric(&b)]);
    assert!(matches!(
        r,
        Err(CoreError::ShapeMismatch {
            expected: 3,
            got: 2,
            ..
        })
    ));
    // A missing mask of the wrong length.
    let codes = [0u32, 1, 0];
    let mask = [false, true];
    let r = Dataset::new(vec![Column::Categorical(CategoricalColumn {
        codes: &codes,
        missing_mask: Some(&mask),
        n_categories: 2,
        ordered: false,
    })]);
    assert!(matches!(
        r,
        Err(CoreError::ShapeMismatch {
            expected: 3,
            got: 2,
            ..
        })
    ));
    let data = Dataset::new(vec![Column::numeric(&a)]).unwrap();
    // Target of the wrong length.
    let r = grow(&data, &classes(&[0, 1], 2), &[1.0; 3], &gini_params());
    assert!(matches!(
        r,
        Err(CoreError::ShapeMismatch {
            expected: 3,
            got: 2,
            ..
        })
    ));
    // Weights of the wrong length.
    let r = grow(&data, &classes(&[0, 1, 0], 2), &[1.0; 4], &gini_params());
    assert!(matches!(
        r,
        Err(CoreError::ShapeMismatch {
            expected: 3,
            got: 4,
            ..
        })
    ));
    // Prediction data with the wrong number of columns.
    let tree = grow(&data, &classes(&[0, 1, 0], 2), &[1.0; 3], &gini_params()).unwrap();
    let two = Dataset::new(vec![Column::numeric(&a), Column::numeric(&a)]).unwrap();
    assert!(matches!(
        tree.predict_proba(&two),
        Err(CoreError::ShapeMismatch {
            expected: 1,
            got: 2,
            ..
        })
    ));
}

#[test]
fn error_infinite_feature() {
    let x = [1.0, f64::INFINITY, 3.0];
    let data = Dataset::new(vec![Column::numeric(&[0.0, 1.0, 2.0]), Column::numeric(&x)]).unwrap();
    let r = grow(&data, &classes(&[0, 1, 0], 2), &[1.0; 3], &gini_params());
    assert!(matches!(
        r,
        Err(CoreError::InfiniteFeature { column: 1, row: 1 })
    ));
    let x = [1.0, 2.0, f64::NEG_INFINITY];
    let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
    let r = grow(&data, &classes(&[0, 1, 0], 2), &[1.0; 3], &gini_params());
    assert!(matches!(
        r,
        Err(CoreError::InfiniteFeature { column: 0, row: 2 })
    ));
    // NaN is missing, not an error.
    let x = [1.0, f64::NAN, 3.0];
    let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
    let tree = grow(&data, &classes(&[0, 1, 1], 2), &[1.0; 3], &gini_params()).unwrap();
    // Infinite values are rejected at prediction too.
    let bad = [f64::INFINITY];
    let probe = Dataset::new(vec![Column::numeric(&bad)]).unwrap();
    assert!(matches!(
        tree.predict_class(&probe),
        Err(CoreError::InfiniteFeature { column: 0, row: 0 })
    ));
}

#[test]
fn error_non_finite_target() {
    let x = [1.0, 2.0, 3.0];
    let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
    let p = TreeParams::new(
        Criterion::SquaredError,
        CategoricalSplit::Binary,
        None,
        2,
        1,
        12,
    )
    .unwrap();
    let y = [1.0, f64::NAN, 2.0];
    assert!(matches!(
        grow(&data, &Target::Values(&y), &[1.0; 3], &p),
        Err(CoreError::NonFiniteTarget { row: 1, value }) if value.is_nan()
    ));
    let y = [1.0, 2.0, f64::INFINITY];
    assert!(matches!(
        grow(&data, &Target::Values(&y), &[1.0; 3], &p),
        Err(CoreError::NonFiniteTarget { row: 2, value }) if value == f64::INFINITY
    ));
}

#[test]
fn error_class_and_category_out_of_range() {
    let x = [1.0, 2.0, 3.0];
    let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
    assert!(matches!(
        grow(&data, &classes(&[0, 2, 1], 2), &[1.0; 3], &gini_params()),
        Err(CoreError::ClassOutOfRange {
            row: 1,
            code: 2,
            n_classes: 2
        })
    ));
    assert!(matches!(
        grow(&data, &classes(&[0, 0, 0], 0), &[1.0; 3], &gini_params()),
        Err(CoreError::InvalidParameter {
            name: "n_classes",
            ..
        })
    ));
    let codes = [0u32, 1, 3];
    let cat = Dataset::new(vec![Column::Categorical(CategoricalColumn {
        codes: &codes,
        missing_mask: None,
        n_categories: 3,
        ordered: false,
    })])
    .unwrap();
    assert!(matches!(
        grow(&cat, &classes(&[0, 1, 0], 2), &[1.0; 3], &gini_params()),
        Err(CoreError::CategoryOutOfRange {
            column: 0,
            row: 2,
            code: 3,
            n_categories: 3
        })
    ));
    // A masked (missing) cell's code is ignored.
    let mask = [false, false, true];
    let masked = Dataset::new(vec![Column::Categorical(CategoricalColumn {
        codes: &codes,
        missing_mask: Some(&mask),
        n_categories: 3,
        ordered: false,
    })])
    .unwrap();
    assert!(grow(&masked, &classes(&[0, 1, 0], 2), &[1.0; 3], &gini_params()).is_ok());
}

#[test]
fn error_invalid_weight() {
    let x = [1.0, 2.0, 3.0];
    let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
    let y = [0, 1, 0];
    // A weight of 0 is an absent row; all of them zero leaves nothing to learn from.
    assert!(grow(&data, &classes(&y, 2), &[1.0, 0.0, 1.0], &gini_params()).is_ok());
    assert!(matches!(
        grow(&data, &classes(&y, 2), &[0.0; 3], &gini_params()),
        Err(CoreError::InvalidParameter {
            name: "sample_weight",
            ..
        })
    ));
    assert!(matches!(
        grow(&data, &classes(&y, 2), &[1.0, 1.0, -2.0], &gini_params()),
        Err(CoreError::InvalidWeight { row: 2, value }) if value == -2.0
    ));
    assert!(matches!(
        grow(&data, &classes(&y, 2), &[f64::NAN, 1.0, 1.0], &gini_params()),
        Err(CoreError::InvalidWeight { row: 0, value }) if value.is_nan()
    ));
    assert!(matches!(
        grow(
            &data,
            &classes(&y, 2),
            &[1.0, f64::INFINITY, 1.0],
            &gini_params()
        ),
        Err(CoreError::InvalidWeight { row: 1, .. })
    ));
    assert!(matches!(
        split_scores(
            &data,
            &classes(&y, 2),
            &[1.0, 1.0, -0.5],
            Criterion::Entropy,
            CategoricalSplit::Multiway
        ),
        Err(CoreError::InvalidWeight { row: 2, .. })
    ));
}

#[test]
fn error_invalid_parameters() {
    use CategoricalSplit::Binary;
    use Criterion::Gini;
    assert!(matches!(
        TreeParams::new(Gini, Binary, Some(0), 2, 1, 12),
        Err(CoreError::InvalidParameter {
            name: "max_depth",
            ..
        })
    ));
    assert!(matches!(
        TreeParams::new(Gini, Binary, None, 1, 1, 12),
        Err(CoreError::InvalidParameter {
            name: "min_samples_split",
            ..
        })
    ));
    assert!(matches!(
        TreeParams::new(Gini, Binary, None, 2, 0, 12),
        Err(CoreError::InvalidParameter {
            name: "min_samples_leaf",
            ..
        })
    ));
    for bad in [0, 1, 21] {
        assert!(matches!(
            TreeParams::new(Gini, Binary, None, 2, 1, bad),
            Err(CoreError::InvalidParameter {
                name: "max_exhaustive_categories",
                ..
            })
        ));
    }
    assert!(TreeParams::new(Gini, Binary, Some(1), 2, 1, 2).is_ok());
    assert!(TreeParams::new(Gini, Binary, None, 2, 1, 20).is_ok());
    assert!(matches!(
        Criterion::parse("chi2"),
        Err(CoreError::InvalidParameter {
            name: "criterion",
            ..
        })
    ));
    assert!(matches!(
        CategoricalSplit::parse("ternary"),
        Err(CoreError::InvalidParameter {
            name: "categorical_split",
            ..
        })
    ));

    // A criterion of the wrong task.
    let x = [1.0, 2.0, 3.0];
    let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
    let reg = TreeParams::new(Criterion::SquaredError, Binary, None, 2, 1, 12).unwrap();
    assert!(matches!(
        grow(&data, &classes(&[0, 1, 0], 2), &[1.0; 3], &reg),
        Err(CoreError::InvalidParameter {
            name: "criterion",
            ..
        })
    ));
    for c in [
        Criterion::Entropy,
        Criterion::GainRatio,
        Gini,
        Criterion::Misclassification,
    ] {
        let p = TreeParams::new(c, Binary, None, 2, 1, 12).unwrap();
        assert!(matches!(
            grow(&data, &Target::Values(&x), &[1.0; 3], &p),
            Err(CoreError::InvalidParameter {
                name: "criterion",
                ..
            })
        ));
        assert!(matches!(
            split_scores(&data, &Target::Values(&x), &[1.0; 3], c, Binary),
            Err(CoreError::InvalidParameter {
                name: "criterion",
                ..
            })
        ));
    }
}

#[test]
fn error_kind_mismatch_at_predict() {
    let x = [1.0, 2.0, 3.0, 4.0];
    let codes = [0u32, 1, 0, 1];
    let fit = Dataset::new(vec![
        Column::numeric(&x),
        Column::Categorical(CategoricalColumn {
            codes: &codes,
            missing_mask: None,
            n_categories: 2,
            ordered: false,
        }),
    ])
    .unwrap();
    let tree = grow(&fit, &classes(&[0, 0, 1, 1], 2), &[1.0; 4], &gini_params()).unwrap();
    // Columns swapped: a categorical where a numeric was fitted.
    let swapped = Dataset::new(vec![
        Column::Categorical(CategoricalColumn {
            codes: &codes,
            missing_mask: None,
            n_categories: 2,
            ordered: false,
        }),
        Column::numeric(&x),
    ])
    .unwrap();
    assert!(matches!(
        tree.predict_proba(&swapped),
        Err(CoreError::ColumnKindMismatch {
            column: 0,
            expected: "numeric",
            got: "categorical"
        })
    ));
    assert!(matches!(
        tree.predict_class(&swapped),
        Err(CoreError::ColumnKindMismatch { column: 0, .. })
    ));
    assert!(matches!(
        tree.apply(&swapped),
        Err(CoreError::ColumnKindMismatch { column: 0, .. })
    ));
    let both_numeric = Dataset::new(vec![Column::numeric(&x), Column::numeric(&x)]).unwrap();
    assert!(matches!(
        tree.predict_value(&both_numeric),
        Err(CoreError::ColumnKindMismatch {
            column: 1,
            expected: "categorical",
            got: "numeric"
        })
    ));
    // A node id from outside the tree.
    assert!(matches!(
        tree.check(NodeId(tree.n_nodes() as u32)),
        Err(CoreError::NodeOutOfRange { .. })
    ));
    assert!(tree.check(NodeId::ROOT).is_ok());
}

#[test]
fn squared_error_keeps_small_differences_on_a_large_mean() {
    // y = 1e9 + (0, 0, 1, 1): the spread is 1 on a mean of 1e9. Σwy²/Σw − ȳ² would lose every
    // digit of the variance; centring on the node mean keeps them, so x <= 1.5 is found and
    // both children are pure.
    let x = [OwnedCol::Num(vec![0.0, 1.0, 2.0, 3.0])];
    let y = [1e9, 1e9, 1e9 + 1.0, 1e9 + 1.0];
    let tree = grow(
        &dataset(&x),
        &Target::Values(&y),
        &[1.0; 4],
        &squared_error(),
    )
    .unwrap();
    assert_eq!(tree.n_nodes(), 3);
    assert!(matches!(
        tree.kind(NodeId::ROOT),
        NodeKind::Numeric { threshold, .. } if threshold == 1.5
    ));
}
