//! Where each missing-value strategy sends a row missing its tested value: at fit (the
//! children's weights), at predict, in `decision_path`, and through pruning, which routes rows
//! as prediction does. Expected figures are derived in the comments.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{dataset, OwnedCol};
use quercus_core::prune::{compact, pessimistic, reduced_error};
use quercus_core::{
    grow, CategoricalSplit, Criterion, MissingStrategy, NodeId, NodeKind, Sample, Target, Tree,
    TreeParams,
};

const NAN: f64 = f64::NAN;

fn params(missing: MissingStrategy) -> TreeParams {
    TreeParams {
        criterion: Criterion::Gini,
        categorical_split: CategoricalSplit::Binary,
        max_depth: Some(1),
        missing,
        ..TreeParams::default()
    }
}

fn fit(cols: &[OwnedCol], y: &[u32], missing: MissingStrategy) -> Tree {
    fit_with(cols, y, &params(missing))
}

fn fit_with(cols: &[OwnedCol], y: &[u32], params: &TreeParams) -> Tree {
    let data = dataset(cols);
    let target = Target::Classes {
        codes: y,
        n_classes: 2,
    };
    grow(&data, &target, &vec![1.0; y.len()], params).unwrap()
}

fn children(tree: &Tree, node: NodeId) -> Vec<NodeId> {
    tree.children(node).collect()
}

fn weights(tree: &Tree) -> Vec<f64> {
    children(tree, NodeId::ROOT)
        .iter()
        .map(|&c| tree.weight(c))
        .collect()
}

/// P(class 1) of each row of one numeric column `x` (and `z` if given).
fn proba(tree: &Tree, x: &[f64], z: Option<&[f64]>) -> Vec<f64> {
    let mut cols = vec![OwnedCol::Num(x.to_vec())];
    if let Some(z) = z {
        cols.push(OwnedCol::Num(z.to_vec()));
    }
    let p = tree.predict_proba(&dataset(&cols)).unwrap();
    p.chunks(2).map(|c| c[1]).collect()
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
    }
}

// Rows 0-5 split cleanly at x <= 3.5 (classes 0, 0, 0, 1, 1, 1); rows 6 and 7 miss x.
fn x_with_two_missing() -> Vec<f64> {
    vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, NAN, NAN]
}

#[test]
fn fractional_sends_a_missing_row_everywhere() {
    let tree = fit(
        &[OwnedCol::Num(x_with_two_missing())],
        &[0, 0, 0, 1, 1, 1, 0, 1],
        MissingStrategy::Fractional,
    );
    assert_eq!(tree.missing_strategy(), MissingStrategy::Fractional);
    // r~ = 3/6 each: 3 + 2 × 1/2 on both sides
    close(&weights(&tree), &[4.0, 4.0]);
    assert_eq!(tree.missing_child(NodeId::ROOT), None);
    assert_eq!(tree.missing_weight(NodeId::ROOT), 2.0);
    // left leaf: 3 + 1/2 class 0, 1/2 class 1; right the reverse; a missing x mixes them
    // half and half: 1/2 × 1/8 + 1/2 × 7/8 = 1/2
    close(&proba(&tree, &[1.0, NAN], None), &[0.5 / 4.0, 0.5]);
}

#[test]
fn majority_branch_follows_the_heaviest_child() {
    // Known: 3 rows left (x <= 3.5), 4 right: the missing row (class 0) goes right.
    let x = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, NAN];
    let tree = fit(
        &[OwnedCol::Num(x)],
        &[0, 0, 0, 1, 1, 1, 1, 0],
        MissingStrategy::MajorityBranch,
    );
    close(&weights(&tree), &[3.0, 5.0]);
    let right = children(&tree, NodeId::ROOT)[1];
    assert_eq!(tree.missing_child(NodeId::ROOT), Some(right));
    close(tree.value(right), &[1.0, 4.0]);
    // at predict, the right leaf: P(1) = 4/5
    close(&proba(&tree, &[NAN], None), &[0.8]);
    let missing = [OwnedCol::Num(vec![NAN])];
    let data = dataset(&missing);
    assert_eq!(tree.apply(&data).unwrap(), vec![right.0]);
    let (indptr, indices) = tree.decision_path(&data).unwrap();
    assert_eq!((indptr, indices), (vec![0, 2], vec![0, right.0]));
}

#[test]
fn learned_tries_both_sides_during_the_scan() {
    for (missing_class, side) in [(0, 0usize), (1, 1usize)] {
        let y = [0, 0, 0, 1, 1, 1, missing_class, missing_class];
        let tree = fit(
            &[OwnedCol::Num(x_with_two_missing())],
            &y,
            MissingStrategy::Learned,
        );
        // both missing rows join the side of their class: both children pure
        let expected = if side == 0 { [5.0, 3.0] } else { [3.0, 5.0] };
        close(&weights(&tree), &expected);
        let kids = children(&tree, NodeId::ROOT);
        assert_eq!(tree.missing_child(NodeId::ROOT), Some(kids[side]));
        assert_eq!(tree.impurity(kids[0]), 0.0);
        assert_eq!(tree.impurity(kids[1]), 0.0);
        // gain = Gini(3:5 or 5:3) - 0, all 8 rows scored (no ρ)
        let scores = tree.node_scores(NodeId::ROOT).unwrap();
        assert!((scores[0].gain - (1.0 - (9.0 + 25.0) / 64.0)).abs() < 1e-12);
        assert!((scores[0].rho - 6.0 / 8.0).abs() < 1e-12);
        close(&proba(&tree, &[NAN], None), &[missing_class as f64]);
    }
}

#[test]
fn learned_without_missing_rows_sends_them_to_the_heavier_child() {
    let x = vec![1.0, 2.0, 3.0, 4.0, 5.0];
    let tree = fit(
        &[OwnedCol::Num(x)],
        &[0, 0, 1, 1, 1],
        MissingStrategy::Learned,
    );
    let kids = children(&tree, NodeId::ROOT);
    close(&weights(&tree), &[2.0, 3.0]);
    assert_eq!(tree.missing_child(NodeId::ROOT), Some(kids[1]));
    assert_eq!(tree.missing_weight(NodeId::ROOT), 0.0);
}

#[test]
fn separate_gives_missing_a_child_of_its_own_in_a_multiway_split() {
    // a: codes 0, 0, 1, 1 and two missing rows; classes 0, 0, 1, 1 and 0, 1.
    let a = OwnedCol::cat_opt(&[Some(0), Some(0), Some(1), Some(1), None, None], 2, false);
    let params = TreeParams {
        criterion: Criterion::Entropy,
        categorical_split: CategoricalSplit::Multiway,
        missing: MissingStrategy::Separate,
        ..TreeParams::default()
    };
    let tree = fit_with(&[a], &[0, 0, 1, 1, 0, 1], &params);
    assert!(matches!(
        tree.kind(NodeId::ROOT),
        NodeKind::Multiway { feature: 0 }
    ));
    let kids = children(&tree, NodeId::ROOT);
    assert_eq!(kids.len(), 3);
    close(&weights(&tree), &[2.0, 2.0, 2.0]);
    assert_eq!(tree.missing_child(NodeId::ROOT), Some(kids[2]));
    // gain = Ent(3:3) − 2/6 × Ent(1:1) = 1 − 1/3, on all six rows
    let scores = tree.node_scores(NodeId::ROOT).unwrap();
    assert!((scores[0].gain - (1.0 - 2.0 / 6.0)).abs() < 1e-12);
    // a missing (or unseen) category goes to the third child
    let rows = OwnedCol::cat_opt(&[None, Some(0)], 2, false);
    let p = tree.predict_proba(&dataset(&[rows])).unwrap();
    close(&p, &[0.5, 0.5, 1.0, 0.0]);
    // the arena round-trips through the model format, k + 1 children included
    let back = Tree::from_bytes(&tree.to_bytes()).unwrap();
    assert_eq!(back.missing_child(NodeId::ROOT), Some(kids[2]));
}

#[test]
fn separate_on_a_binary_split_is_the_learned_side() {
    let cols = [OwnedCol::Num(x_with_two_missing())];
    let y = [0, 0, 0, 1, 1, 1, 1, 1];
    let separate = fit(&cols, &y, MissingStrategy::Separate);
    let learned = fit(&cols, &y, MissingStrategy::Learned);
    close(&weights(&separate), &[3.0, 5.0]);
    assert_eq!(
        separate.missing_child(NodeId::ROOT),
        learned.missing_child(NodeId::ROOT)
    );
}

#[test]
fn class_majority_fills_by_class_at_fit_and_by_node_at_predict() {
    // Class 0 knows x = 1, 2, 3 (mean 2), class 1 knows 10, 11, 13 (mean 34/3): the
    // missing row of class 0 reads 2, that of class 1 reads 11.33; the split x <= 6.5 then
    // has two pure children of 4 rows. At predict the node's mean, 40/6 = 6.67 > 6.5: right.
    let x = vec![1.0, 2.0, 3.0, 10.0, 11.0, 13.0, NAN, NAN];
    let tree = fit(
        &[OwnedCol::Num(x)],
        &[0, 0, 0, 1, 1, 1, 0, 1],
        MissingStrategy::ClassMajority,
    );
    assert!(matches!(
        tree.kind(NodeId::ROOT),
        NodeKind::Numeric { threshold, .. } if threshold == 6.5
    ));
    close(&weights(&tree), &[4.0, 4.0]);
    let kids = children(&tree, NodeId::ROOT);
    close(tree.value(kids[0]), &[4.0, 0.0]);
    assert_eq!(tree.missing_child(NodeId::ROOT), Some(kids[1]));
    // every row known once filled: ρ = 1
    let scores = tree.node_scores(NodeId::ROOT).unwrap();
    assert!((scores[0].rho - 1.0).abs() < 1e-12);
    close(&proba(&tree, &[NAN], None), &[1.0]);
}

#[test]
fn class_majority_fills_categories_with_the_class_mode() {
    // a: class 0 rows are mostly code 0, class 1 rows code 1; each missing row reads its
    // class's mode, so the split a ∈ {0} | {1} is pure with 3 rows a side.
    let a = OwnedCol::cat_opt(
        &[
            Some(0),
            Some(0),
            Some(1),
            Some(1),
            Some(1),
            None,
            None,
            Some(0),
        ],
        2,
        false,
    );
    let y = [0, 0, 1, 1, 1, 0, 1, 1];
    let tree = fit(&[a], &y, MissingStrategy::ClassMajority);
    // class 0 knows 0, 0 -> 0; class 1 knows 1, 1, 1, 0 -> 1
    close(&weights(&tree), &[4.0, 4.0]);
    let kids = children(&tree, NodeId::ROOT);
    close(tree.value(kids[0]), &[3.0, 1.0]);
    // at predict the node's mode over its known rows: codes 0 (rows 0, 1, 7) and 1 (rows 2,
    // 3, 4) tie at 3 of 6, so the lowest code, 0: left
    assert_eq!(tree.missing_child(NodeId::ROOT), Some(kids[0]));
}

#[test]
fn surrogates_route_a_missing_value_through_another_feature() {
    // z = −x on the rows where x is known: `x <= 3.5` is `z >= −3.5`, so the best surrogate
    // sends z > −3.5 left (its child map is [right, left]) and agrees on all six of them.
    // Row 6 (class 1, z = −1.5) keeps z from being the better split itself: over all eight
    // rows `z <= −3.5` leaves 3 + 1 | 0 + 4, a Gini decrease of 0.5 − 4/8 × 0.375 = 0.3125,
    // while x's is 6/8 × 0.5 = 0.375.
    let x = x_with_two_missing();
    let z = vec![-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -1.5, -7.0];
    let y = [0, 0, 0, 1, 1, 1, 1, 1];
    let tree = fit(
        &[OwnedCol::Num(x), OwnedCol::Num(z)],
        &y,
        MissingStrategy::Surrogate,
    );
    let surrogates: Vec<_> = tree.surrogates(NodeId::ROOT).collect();
    assert_eq!(surrogates.len(), 1);
    let s = surrogates[0];
    assert_eq!(s.feature, 1);
    // rpart's threshold: z < −3.5 is z <= the float just below −3.5.
    assert_eq!(s.threshold, (-3.5f64).next_down());
    assert_eq!(s.agreement, 1.0);
    assert_eq!(s.children, &[1, 0]);
    // at fit: row 6 (z = −1.5) goes left, row 7 (z = −7) right
    close(&weights(&tree), &[4.0, 4.0]);
    let kids = children(&tree, NodeId::ROOT);
    close(tree.value(kids[0]), &[3.0, 1.0]);
    close(tree.value(kids[1]), &[0.0, 4.0]);
    // at predict: x missing, z −1 -> left (P(1) = 1/4); z −9 -> right; both missing: the
    // known rows are 3 a side, a tie, so no majority side: the row stays in the root and
    // takes its distribution, 5 of 8 of class 1 (rpart's `predict.rpart`)
    let p = proba(&tree, &[NAN, NAN, NAN], Some(&[-1.0, -9.0, NAN]));
    close(&p, &[0.25, 1.0, 0.625]);
    assert_eq!(tree.missing_child(NodeId::ROOT), None);
    assert!(tree.keeps_unsent(NodeId::ROOT));
    // no surrogates kept
    let none = fit_with(
        &[
            OwnedCol::Num(x_with_two_missing()),
            OwnedCol::Num(vec![0.0; 8]),
        ],
        &y,
        &TreeParams {
            max_surrogates: 0,
            ..params(MissingStrategy::Surrogate)
        },
    );
    assert_eq!(none.surrogates(NodeId::ROOT).count(), 0);
}

#[test]
fn a_useless_feature_is_no_surrogate() {
    // w agrees with the split only as often as sending everything to one side does: on rows
    // 0-5 (left, left, left, right, right, right) w is 0, 0, 1, 0, 0, 1, so either direction
    // of `w <= 0.5` gets 3 of 6 right.
    let x = x_with_two_missing();
    let w = vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0];
    let tree = fit(
        &[OwnedCol::Num(x), OwnedCol::Num(w)],
        &[0, 0, 0, 1, 1, 1, 0, 1],
        MissingStrategy::Surrogate,
    );
    assert_eq!(tree.surrogates(NodeId::ROOT).count(), 0);
}

#[test]
fn categorical_surrogates_map_each_category() {
    // rpart 4.1 on these rows: `x < 4.5` first, then the surrogate c: a -> left, b -> right, c
    // never seen with x known: no direction; agreement 6/8 (rows 3 and 7 disagree).
    let x = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, NAN, NAN];
    let codes = [0, 0, 0, 1, 1, 1, 1, 0, 1, 0];
    let c = OwnedCol::cat_opt(&codes.map(Some), 3, false);
    let y = [0, 0, 0, 0, 1, 1, 1, 1, 0, 1];
    let tree = fit(
        &[OwnedCol::Num(x.clone()), c],
        &y,
        MissingStrategy::Surrogate,
    );
    let s = tree.surrogates(NodeId::ROOT).next().unwrap();
    assert_eq!(s.feature, 1);
    assert!(s.threshold.is_nan());
    assert_eq!(s.agreement, 0.75);
    assert_eq!(s.children, &[0, 1, u32::MAX]);
    // row 8 (c = b) goes right, row 9 (c = a) left: 4 + 1 each side, as rpart's frame
    close(&weights(&tree), &[5.0, 5.0]);
    // A category that agrees perfectly is no surrogate in rpart: its `choose_surg` also asks
    // for two rows that disagree.
    let perfect = OwnedCol::cat_opt(&[0, 0, 0, 0, 1, 1, 1, 1, 1, 0].map(Some), 2, false);
    let tree = fit(&[OwnedCol::Num(x), perfect], &y, MissingStrategy::Surrogate);
    assert_eq!(tree.surrogates(NodeId::ROOT).count(), 0);
}

#[test]
fn pruning_keeps_and_uses_the_routing() {
    let x = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, NAN];
    let y = [0, 0, 0, 1, 1, 1, 1, 0];
    let cols = [OwnedCol::Num(x)];
    let tree = fit(&cols, &y, MissingStrategy::MajorityBranch);
    let copy = compact(&tree, &[]).unwrap();
    assert_eq!(copy.missing_strategy(), MissingStrategy::MajorityBranch);
    assert_eq!(
        copy.missing_child(NodeId::ROOT),
        tree.missing_child(NodeId::ROOT)
    );
    assert_eq!(copy.missing_weight(NodeId::ROOT), 1.0);
    // Validation rows missing x go right, as at predict (that leaf says class 1). Two class-1
    // rows: the split makes no error, the root as a leaf (4:4, class 0) two: it stays. Two
    // class-0 rows: the split makes two errors, the leaf none: it is pruned.
    let val_cols = [OwnedCol::Num(vec![NAN, NAN])];
    let val = dataset(&val_cols);
    for (labels, pruned) in [([1, 1], false), ([0, 0], true)] {
        let target = Target::Classes {
            codes: &labels,
            n_classes: 2,
        };
        let (out, _) = reduced_error(&tree, &val, &target, &[1.0, 1.0], false).unwrap();
        assert_eq!(out.n_nodes() == 1, pruned, "{labels:?}");
    }
    // subtree raising re-distributes the training rows as growth routed them
    let data = dataset(&cols);
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let raised = pessimistic(
        &tree,
        0.25,
        Some(Sample {
            data: &data,
            target: &target,
            weights: &[1.0; 8],
        }),
        false,
    )
    .unwrap();
    assert_eq!(raised.missing_strategy(), MissingStrategy::MajorityBranch);
}

#[test]
fn strategies_have_names_and_are_validated() {
    for name in [
        "fractional",
        "majority_branch",
        "class_majority",
        "separate",
        "learned",
        "surrogate",
    ] {
        let m = MissingStrategy::parse(name).unwrap();
        assert_eq!(m.name(), name);
        assert_eq!(MissingStrategy::from_code(m.code()), Some(m));
    }
    assert!(MissingStrategy::parse("mean").is_err());
    let too_many = TreeParams {
        max_surrogates: 65,
        ..TreeParams::default()
    };
    assert!(too_many.validate().is_err());
}

/// A small deterministic generator (the tests need no randomness crate).
fn lcg(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

/// C4.5's fragments are counted by weight: fully grown trees on data with many missing cells
/// stay bounded (fragments of rows used to split down to leaves of weight ~1e-11, a million
/// leaves from 900 rows). Every split node holds at least `min_samples_split` rows' weight
/// and every leaf that received rows at least `min_samples_leaf`'s.
#[test]
fn fractional_fragments_are_counted_by_weight() {
    let n = 900;
    for (missing_rate, seed) in [(0.3, 1u64), (0.5, 2), (0.9, 3)] {
        let mut state = seed;
        let cols: Vec<OwnedCol> = (0..5)
            .map(|_| {
                OwnedCol::Num(
                    (0..n)
                        .map(|_| {
                            let x = lcg(&mut state);
                            if lcg(&mut state) < missing_rate {
                                NAN
                            } else {
                                x
                            }
                        })
                        .collect(),
                )
            })
            .collect();
        let y: Vec<u32> = (0..n).map(|_| u32::from(lcg(&mut state) < 0.5)).collect();
        for criterion in [Criterion::Gini, Criterion::Entropy] {
            let params = TreeParams {
                criterion,
                categorical_split: CategoricalSplit::Multiway,
                ..TreeParams::default()
            };
            let tree = fit_with(&cols, &y, &params);
            assert!(
                tree.n_leaves() <= n,
                "{missing_rate}: {} leaves",
                tree.n_leaves()
            );
            for i in 0..tree.n_nodes() as u32 {
                let node = NodeId(i);
                if tree.kind(node) != NodeKind::Leaf {
                    assert!(tree.weight(node) >= 2.0 - 1e-9, "split node {i}");
                } else if tree.n_rows(node) > 0.0 {
                    assert!(tree.weight(node) >= 1.0 - 1e-9, "leaf {i}");
                }
                assert_eq!(tree.n_rows(node), tree.weight(node), "unit weights");
            }
        }
    }
}

/// Learned and separate directions also try "every known value on one side, the missing ones
/// on the other" (scikit-learn and LightGBM do): here it is the only split that separates.
#[test]
fn known_versus_missing_split_is_searched() {
    let cols = [OwnedCol::Num(vec![0.0, 0.0, 0.0, NAN, NAN])];
    let y = [0, 0, 0, 1, 1];
    for missing in [MissingStrategy::Learned, MissingStrategy::Separate] {
        for splitter in [quercus_core::Splitter::Exact, quercus_core::Splitter::Hist] {
            let tree = fit_with(
                &cols,
                &y,
                &TreeParams {
                    splitter,
                    ..params(missing)
                },
            );
            assert_eq!(
                tree.kind(NodeId::ROOT),
                NodeKind::Numeric {
                    feature: 0,
                    threshold: f64::INFINITY
                },
                "{missing:?} {splitter:?}"
            );
            assert_eq!(weights(&tree), vec![3.0, 2.0]);
            assert_eq!(proba(&tree, &[0.0, 5.0, NAN], None), vec![0.0, 0.0, 1.0]);
            // The model file keeps it.
            let back = Tree::from_bytes(&tree.to_bytes()).unwrap();
            assert_eq!(back.to_bytes(), tree.to_bytes());
        }
    }
    // C4.5 scores the known rows only: one known value, nothing to split.
    let tree = fit(&cols, &y, MissingStrategy::Fractional);
    assert_eq!(tree.kind(NodeId::ROOT), NodeKind::Leaf);
}

/// rpart's split without a majority side: x cuts its 20 rows 10 / 10 and the last two rows
/// miss x, while z, known only for them, cannot be a surrogate. Those two stay in the root at
/// fit (the children hold 10 each) and at prediction (the root's distribution, 11 / 22 of
/// class 1 with class 1 for row 21 and class 0 for row 22).
#[test]
fn surrogate_split_without_a_majority_side_keeps_unsent_rows() {
    let mut x: Vec<f64> = (1..=20).map(f64::from).collect();
    x.extend([NAN, NAN]);
    let mut z = vec![NAN; 20];
    z.extend([1.0, 2.0]);
    let mut y: Vec<u32> = (0..20).map(|i| u32::from(i >= 10)).collect();
    y.extend([1, 0]);
    let cols = [OwnedCol::Num(x.clone()), OwnedCol::Num(z.clone())];
    let tree = fit(&cols, &y, MissingStrategy::Surrogate);
    assert_eq!(tree.weight(NodeId::ROOT), 22.0);
    assert_eq!(weights(&tree), vec![10.0, 10.0]);
    assert!(tree.keeps_unsent(NodeId::ROOT));
    let p = proba(&tree, &x, Some(&z));
    assert_eq!(&p[..20], &[[0.0; 10], [1.0; 10]].concat()[..]);
    assert_eq!(&p[20..], &[0.5, 0.5]);
    // One more row on the left makes it the majority side: the unsent rows go there.
    let mut x2 = x.clone();
    x2.push(0.5);
    let mut z2 = z.clone();
    z2.push(NAN);
    let mut y2 = y.clone();
    y2.push(0);
    let tree = fit(
        &[OwnedCol::Num(x2), OwnedCol::Num(z2)],
        &y2,
        MissingStrategy::Surrogate,
    );
    assert_eq!(weights(&tree), vec![13.0, 10.0]);
    assert!(!tree.keeps_unsent(NodeId::ROOT));
}
