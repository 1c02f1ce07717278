//! rpart's conventions under `missing="surrogate"` and the class factors rpart's priors and
//! losses become: thresholds where rpart puts them, label ties for the first class, class
//! weights that the size rules do not count, and altered priors. Expected figures are derived
//! in the comments; tests/test_vs_rpart.py compares whole trees with rpart itself.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{dataset, OwnedCol};
use quercus_core::{
    grow, CategoricalSplit, Criterion, MissingStrategy, NodeId, NodeKind, Target, Tree, TreeParams,
};

fn fit(x: &[f64], y: &[u32], n_classes: usize, weights: &[f64], params: &TreeParams) -> Tree {
    let cols = [OwnedCol::Num(x.to_vec())];
    let target = Target::Classes {
        codes: y,
        n_classes,
    };
    grow(&dataset(&cols), &target, weights, params).unwrap()
}

fn gini(missing: MissingStrategy) -> TreeParams {
    TreeParams {
        criterion: Criterion::Gini,
        categorical_split: CategoricalSplit::Binary,
        missing,
        ..TreeParams::default()
    }
}

fn threshold(tree: &Tree, node: NodeId) -> f64 {
    match tree.kind(node) {
        NodeKind::Numeric { threshold, .. } => threshold,
        other => panic!("not a numeric split: {other:?}"),
    }
}

#[test]
fn a_value_at_rpart_midpoint_goes_right() {
    // 1 2 | 4 5: the split lies between 2 and 4. rpart sends x < 3 left, so x = 3 (unseen in
    // training) goes right; the texts' midpoint test x <= 3 sends it left.
    let (x, y) = ([1.0, 2.0, 4.0, 5.0], [0, 0, 1, 1]);
    let texts = fit(&x, &y, 2, &[1.0; 4], &gini(MissingStrategy::Fractional));
    let rpart = fit(&x, &y, 2, &[1.0; 4], &gini(MissingStrategy::Surrogate));
    assert_eq!(threshold(&texts, NodeId::ROOT), 3.0);
    assert_eq!(threshold(&rpart, NodeId::ROOT), 3.0f64.next_down());
    let at = |t: &Tree| {
        let p = t
            .predict_proba(&dataset(&[OwnedCol::Num(vec![3.0])]))
            .unwrap();
        p[1]
    };
    assert_eq!((at(&texts), at(&rpart)), (0.0, 1.0));
}

#[test]
fn rpart_breaks_a_class_tie_for_the_first_class() {
    // x <= 2.5 holds classes 1, 0 (a tie), x > 2.5 holds 1, 1: the root predicts 1. The tied
    // leaf takes its parent's class 1 in the texts, the first class 0 in rpart (`gini.c`).
    let (x, y) = ([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 1]);
    let params = |missing| TreeParams {
        max_depth: Some(1),
        ..gini(missing)
    };
    let texts = fit(&x, &y, 2, &[1.0; 4], &params(MissingStrategy::Fractional));
    let rpart = fit(&x, &y, 2, &[1.0; 4], &params(MissingStrategy::Surrogate));
    let first = |t: &Tree| t.label(t.children(NodeId::ROOT).next().unwrap());
    assert_eq!((first(&texts), first(&rpart)), (1, 0));
}

#[test]
fn class_weights_reweight_the_criterion_not_the_rows() {
    // Five rows of class 0 (x = 1..5), one of class 1 (x = 6), min_samples_leaf = 2. With
    // class 1 weighted 5 (its weight folded into the rows, `class_weights` saying so), the
    // best split isolates x = 6, a one-row leaf: refused, since rows are counted without the
    // class weights; x <= 4.5 (4 | 2 rows) is taken instead. Counted with them (no
    // `class_weights`), the class-1 row would weigh 5 rows and x <= 5.5 would pass.
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let y = [0, 0, 0, 0, 0, 1];
    let folded = [1.0, 1.0, 1.0, 1.0, 1.0, 5.0];
    let params = TreeParams {
        min_samples_leaf: 2,
        max_depth: Some(1),
        ..gini(MissingStrategy::Fractional)
    };
    let counted = fit(&x, &y, 2, &folded, &params);
    assert_eq!(threshold(&counted, NodeId::ROOT), 5.5);
    let rows = TreeParams {
        class_weights: Some(vec![1.0, 5.0]),
        ..params
    };
    let tree = fit(&x, &y, 2, &folded, &rows);
    assert_eq!(threshold(&tree, NodeId::ROOT), 4.5);
    // The leaves report the weighted classes, and the rows they hold.
    let kids: Vec<NodeId> = tree.children(NodeId::ROOT).collect();
    assert_eq!(tree.value(kids[1]), &[1.0, 5.0]);
    assert_eq!(tree.n_rows(kids[1]), 2.0);
}

#[test]
fn altered_priors_split_as_class_weights_of_the_row_costs() {
    // Altered priors weigh class k by Σ_j L_kj while searching (rpart's `gini.c`), so the
    // splits are those of class weights (3, 1) — the rows counted without them either way —
    // while the leaves keep the rows' weights and predict by least expected cost. (Not
    // under rpart's surrogates, whose ties follow rpart's arithmetic for a loss matrix, not
    // for class weights: x's thresholds tie here.)
    let x: Vec<f64> = (0..12).map(f64::from).collect();
    let y = [1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0];
    let costs = vec![0.0, 3.0, 1.0, 0.0];
    let altered = TreeParams {
        cost_matrix: Some(costs.clone()),
        altered_priors: true,
        min_samples_leaf: 2,
        ..gini(MissingStrategy::Learned)
    };
    let weighted: Vec<f64> = y.iter().map(|&c| if c == 0 { 3.0 } else { 1.0 }).collect();
    let by_weights = TreeParams {
        class_weights: Some(vec![3.0, 1.0]),
        min_samples_leaf: 2,
        ..gini(MissingStrategy::Learned)
    };
    let a = fit(&x, &y, 2, &[1.0; 12], &altered);
    let b = fit(&x, &y, 2, &weighted, &by_weights);
    assert!(a.n_nodes() > 3);
    assert_eq!(a.n_nodes(), b.n_nodes());
    for i in 0..a.n_nodes() as u32 {
        assert_eq!(a.kind(NodeId(i)), b.kind(NodeId(i)), "node {i}");
        assert_eq!(a.n_rows(NodeId(i)), b.n_rows(NodeId(i)), "node {i}");
    }
    // The cost-weighted Gini (without altered priors) is another criterion: with two classes
    // it is Gini itself, (L_01 + L_10)·p0·p1, and its root split is not that of altered
    // priors, where class 0 weighs 3.
    let stump = |altered_priors| TreeParams {
        altered_priors,
        max_depth: Some(1),
        min_samples_leaf: 1,
        missing: MissingStrategy::Surrogate,
        ..altered.clone()
    };
    let root = |t: Tree| threshold(&t, NodeId::ROOT);
    assert_eq!(
        root(fit(&x, &y, 2, &[1.0; 12], &stump(true))),
        0.5f64.next_down()
    );
    assert_eq!(
        root(fit(&x, &y, 2, &[1.0; 12], &stump(false))),
        10.5f64.next_down()
    );
    // Altered priors need each class to cost something when misclassified.
    let zero_row = TreeParams {
        cost_matrix: Some(vec![0.0, 0.0, 1.0, 0.0]),
        ..altered
    };
    let cols = [OwnedCol::Num(x)];
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let error = grow(&dataset(&cols), &target, &[1.0; 12], &zero_row).unwrap_err();
    assert!(error.to_string().contains("cost_matrix"), "{error}");
}
