//! Post-pruning: reduced-error pruning on text 000's Figs 4.4–4.6, C4.5's pessimistic pruning
//! (with and without subtree raising) on hand-checked cases, scikit-learn's cost-complexity
//! path by hand and against a transcription of its quadratic algorithm, and invariants on
//! random data.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{check_tree, dataset, descend, leaf, multi, num, OwnedCol, Table};
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestCaseError};
use quercus_core::prune::{
    collapse, compact, cost_complexity, cost_complexity_controlled, cost_complexity_path,
    cost_complexity_path_controlled, pessimistic, reduced_error, PruneStep, Risk, Sequence,
};
use quercus_core::Control;
use quercus_core::{
    grow, CategoricalSplit, CoreError, Criterion, NodeId, NodeKind, Sample, Target, Tree,
    TreeParams,
};

// ---------------------------------------------------------------------------------------------
// Helpers.

fn params(criterion: Criterion, split: CategoricalSplit) -> TreeParams {
    TreeParams::new(criterion, split, None, 2, 1, 12).unwrap()
}

fn id3() -> TreeParams {
    params(Criterion::Entropy, CategoricalSplit::Multiway)
}

fn near(got: f64, expected: f64, what: &str) {
    assert!(
        (got - expected).abs() < 1e-9,
        "{what}: got {got}, expected {expected}"
    );
}

/// Arena invariants: root 0 without parent, children contiguous and numbered after their
/// parent, depths consistent, every node reachable once, leaves exactly the childless nodes.
fn assert_well_formed(t: &Tree) {
    let n = t.n_nodes();
    assert!(n >= 1, "a tree has a root");
    assert_eq!(t.parent(NodeId::ROOT), None);
    assert_eq!(t.depth(NodeId::ROOT), 0);
    let mut reached = vec![false; n];
    reached[0] = true;
    for i in 0..n as u32 {
        let v = NodeId(i);
        let kids: Vec<NodeId> = t.children(v).collect();
        assert_eq!(kids.is_empty(), t.kind(v) == NodeKind::Leaf, "node {i}");
        for (k, c) in kids.iter().enumerate() {
            assert!(c.0 > v.0, "child {c:?} of {i} numbered before it");
            if k > 0 {
                assert_eq!(c.0, kids[k - 1].0 + 1, "children of {i} not contiguous");
            }
            assert_eq!(t.parent(*c), Some(v));
            assert_eq!(t.depth(*c), t.depth(v) + 1);
            assert!(!reached[c.index()], "node {c:?} reached twice");
            reached[c.index()] = true;
        }
    }
    assert!(reached.iter().all(|&r| r), "unreachable nodes");
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// A node's recorded scores, bit for bit (they hold NaN where a figure does not apply).
fn score_bits(t: &Tree, v: NodeId) -> Option<Vec<u64>> {
    t.node_scores(v).map(|s| {
        s.iter()
            .flat_map(|f| bits(&[f.score, f.gain, f.iv, f.threshold, f.rho]))
            .collect()
    })
}

/// Node-by-node identity through the public API (floats compared bit for bit, NaN included).
fn assert_same_tree(a: &Tree, b: &Tree) {
    assert_eq!(a.n_nodes(), b.n_nodes(), "number of nodes");
    assert_eq!(a.criterion(), b.criterion());
    assert_eq!(a.feature_kinds(), b.feature_kinds());
    assert_eq!(a.n_classes(), b.n_classes());
    for i in 0..a.n_nodes() as u32 {
        let v = NodeId(i);
        assert_eq!(a.kind(v), b.kind(v), "kind of {i}");
        assert_eq!(
            a.children(v).collect::<Vec<_>>(),
            b.children(v).collect::<Vec<_>>()
        );
        assert_eq!(a.parent(v), b.parent(v));
        assert_eq!(a.depth(v), b.depth(v));
        assert_eq!(a.label(v), b.label(v));
        assert_eq!(
            bits(&[
                a.weight(v),
                a.n_rows(v),
                a.impurity(v),
                a.branch_fraction(v)
            ]),
            bits(&[
                b.weight(v),
                b.n_rows(v),
                b.impurity(v),
                b.branch_fraction(v)
            ]),
            "statistics of {i}"
        );
        assert_eq!(bits(a.value(v)), bits(b.value(v)), "value of {i}");
        assert_eq!(score_bits(a, v), score_bits(b, v), "scores of {i}");
    }
}

/// Σ weight × impurity over the leaves, over the root's weight: scikit-learn's R(T).
fn leaf_cost(t: &Tree) -> f64 {
    let total = t.weight(NodeId::ROOT);
    (0..t.n_nodes() as u32)
        .map(NodeId)
        .filter(|&v| t.kind(v) == NodeKind::Leaf)
        .map(|v| t.weight(v) * t.impurity(v) / total)
        .sum()
}

// ---------------------------------------------------------------------------------------------
// Text 000 §4.3: Figs 4.4–4.6 on the Table 4.2 split of watermelon 2.0.

const TRAIN: [usize; 10] = [1, 2, 3, 6, 7, 10, 14, 15, 16, 17];
const VALID: [usize; 7] = [4, 5, 8, 9, 11, 12, 13];
// Columns with umbilicus first (it ties with color at the root; the text picks umbilicus).
const UMB: usize = 0;
const COLOR: usize = 1;
const ROOT: usize = 2;
const TEXTURE: usize = 4;
const YES: u32 = 0;
const NO: u32 = 1;

fn watermelon_umbilicus_first() -> Table {
    let t = Table::load("watermelon2");
    let order = ["umbilicus", "color", "root", "sound", "texture", "surface"];
    let idx: Vec<usize> = order.iter().map(|n| t.col(n)).collect();
    Table {
        names: idx.iter().map(|&j| t.names[j].clone()).collect(),
        levels: idx.iter().map(|&j| t.levels[j].clone()).collect(),
        cols: idx.iter().map(|&j| t.cols[j].clone()).collect(),
        y: t.y.clone(),
        classes: t.classes.clone(),
    }
}

/// Fig 4.4 grown on the training rows, with the table it came from.
fn fig_4_4() -> (Table, Tree) {
    let t = watermelon_umbilicus_first();
    assert_eq!((t.class("yes"), t.class("no")), (YES, NO));
    let train = t.samples(&TRAIN);
    let tree = grow(
        &train.dataset(),
        &train.target(),
        &train.unit_weights(),
        &id3(),
    )
    .unwrap();
    (t, tree)
}

fn accuracy(tree: &Tree, t: &Table) -> f64 {
    let predicted = tree.predict_class(&t.dataset()).unwrap();
    let right = predicted.iter().zip(&t.y).filter(|(p, y)| p == y).count();
    right as f64 / t.n_rows() as f64
}

#[test]
fn fig_4_4_unpruned_tree_and_validation_accuracy() {
    let (t, tree) = fig_4_4();
    // Text nodes ①..⑥ are our nodes 0, 1, 2, 3, 8, 11 (children are numbered when their
    // parent splits, depth first).
    check_tree(
        &tree,
        &multi(
            UMB,
            vec![
                multi(COLOR, vec![leaf(YES), leaf(YES), leaf(NO)]),
                multi(
                    ROOT,
                    vec![
                        leaf(NO),
                        multi(
                            COLOR,
                            vec![
                                leaf(YES),
                                multi(TEXTURE, vec![leaf(NO), leaf(YES), leaf(YES)]),
                                leaf(YES),
                            ],
                        ),
                        leaf(YES),
                    ],
                ),
                leaf(NO),
            ],
        ),
    );
    assert_eq!(descend(&tree, &[0]), NodeId(1));
    assert_eq!(descend(&tree, &[1]), NodeId(2));
    assert_eq!(descend(&tree, &[2]), NodeId(3));
    assert_eq!(descend(&tree, &[1, 1]), NodeId(8));
    assert_eq!(descend(&tree, &[1, 1, 1]), NodeId(11));
    near(
        accuracy(&tree, &t.samples(&VALID)),
        3.0 / 7.0,
        "Fig 4.4 accuracy",
    );
}

#[test]
fn fig_4_6_reduced_error_prunes_nodes_6_and_2() {
    let (t, tree) = fig_4_4();
    let before = tree.clone();
    let valid = t.samples(&VALID);
    let (pruned, steps) = reduced_error(
        &tree,
        &valid.dataset(),
        &valid.target(),
        &valid.unit_weights(),
        false,
    )
    .unwrap();
    assert_same_tree(&tree, &before);

    // Text 000: node ⑥ → leaf (57.1%), ⑤ kept (57.1% either way), ② → leaf (71.4%),
    // ③ kept (71.4% either way), ① kept (42.9% as a leaf).
    let expected = [
        // (node, pruned, error as subtree, as leaf, accuracy before, with the node a leaf)
        (11, true, 2.0, 1.0, 3.0, 4.0),
        (8, false, 1.0, 1.0, 4.0, 4.0),
        (1, true, 2.0, 1.0, 4.0, 5.0),
        (2, false, 1.0, 1.0, 5.0, 5.0),
        (0, false, 2.0, 4.0, 5.0, 3.0),
    ];
    assert_eq!(steps.len(), expected.len());
    for (s, &(node, was_pruned, sub, lf, acc_b, acc_a)) in steps.iter().zip(&expected) {
        let want = PruneStep {
            node: NodeId(node),
            pruned: was_pruned,
            error_as_subtree: sub,
            error_as_leaf: lf,
            accuracy_before: acc_b / 7.0,
            accuracy_after: acc_a / 7.0,
        };
        assert_eq!(s.node, want.node);
        assert_eq!(s.pruned, want.pruned, "node {node}");
        near(
            s.error_as_subtree,
            want.error_as_subtree,
            "error as subtree",
        );
        near(s.error_as_leaf, want.error_as_leaf, "error as leaf");
        near(s.accuracy_before, want.accuracy_before, "accuracy before");
        near(s.accuracy_after, want.accuracy_after, "accuracy after");
    }

    // Fig 4.6.
    check_tree(
        &pruned,
        &multi(
            UMB,
            vec![
                leaf(YES),
                multi(
                    ROOT,
                    vec![
                        leaf(NO),
                        multi(COLOR, vec![leaf(YES), leaf(YES), leaf(YES)]),
                        leaf(YES),
                    ],
                ),
                leaf(NO),
            ],
        ),
    );
    assert_well_formed(&pruned);
    near(accuracy(&pruned, &valid), 5.0 / 7.0, "Fig 4.6 accuracy");
    // The collapsed node keeps its training statistics: rows {1, 2, 3, 14}, 3 yes and 1 no.
    let hollow = descend(&pruned, &[0]);
    assert_eq!(pruned.value(hollow), &[3.0, 1.0]);
    near(pruned.weight(hollow), 4.0, "weight of the collapsed node");
}

#[test]
fn reduced_error_with_ties_pruned_gives_the_stump_of_fig_4_5() {
    // Text 004's `≤` (Occam): nodes ⑤ and ③ go too, leaving the stump of Fig 4.5 (71.4%).
    let (t, tree) = fig_4_4();
    let valid = t.samples(&VALID);
    let (pruned, steps) = reduced_error(
        &tree,
        &valid.dataset(),
        &valid.target(),
        &valid.unit_weights(),
        true,
    )
    .unwrap();
    let decided: Vec<(u32, bool)> = steps.iter().map(|s| (s.node.0, s.pruned)).collect();
    assert_eq!(
        decided,
        [(11, true), (8, true), (1, true), (2, true), (0, false)]
    );
    check_tree(&pruned, &multi(UMB, vec![leaf(YES), leaf(YES), leaf(NO)]));
    near(accuracy(&pruned, &valid), 5.0 / 7.0, "Fig 4.5 accuracy");
}

#[test]
fn reduced_error_routes_missing_values_with_the_stored_fractions() {
    // The 7 validation rows plus a "no" row missing everything. Down Fig 4.4 it follows every
    // branch with r̃_v: umbilicus hollow 4/10, slightly hollow 4/10, flat 2/10 (right).
    // Hollow: color green 1/4, dark 2/4 (both "yes": wrong), light 1/4 → error 0.4 × 3/4 = 0.3.
    // Slightly hollow: root curly 1/4 (no: right), slightly curly 3/4 → color green 1/3
    // (wrong), dark 2/3 → texture clear 1/2 (right), slightly blurry 1/2 (wrong), blurry 0;
    // error 0.4 × 3/4 × (1/3 + 2/3 × 1/2) = 0.2. So the tree errs on 4 + 0.5 of 8.
    let (t, tree) = fig_4_4();
    let valid = t.samples(&VALID);
    let mut cols = valid.cols.clone();
    for c in &mut cols {
        *c = match c {
            OwnedCol::Cat {
                codes,
                missing,
                n_categories,
                ordered,
            } => {
                let (mut codes, mut missing) = (codes.clone(), missing.clone());
                codes.push(0);
                missing.push(true);
                OwnedCol::Cat {
                    codes,
                    missing,
                    n_categories: *n_categories,
                    ordered: *ordered,
                }
            }
            OwnedCol::Num(_) => unreachable!("watermelon 2.0 is categorical"),
        };
    }
    let mut y = valid.y.clone();
    y.push(NO);
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let (_, steps) = reduced_error(&tree, &dataset(&cols), &target, &[1.0; 8], false).unwrap();
    near(
        steps[0].accuracy_before,
        1.0 - 4.5 / 8.0,
        "accuracy with fractions",
    );
    // The root as a leaf ("yes") errs on rows 9, 11, 12, 13 and the whole extra row.
    let root = steps.last().unwrap();
    assert_eq!(root.node, NodeId::ROOT);
    near(root.error_as_leaf, 5.0, "root as a leaf");
}

#[test]
fn reduced_error_on_a_regression_tree_reports_squared_errors() {
    // x = 1..4, y = 1, 2, 10, 11: x <= 2.5 splits, then each side splits again (node 1 → 3,
    // 4; node 2 → 5, 6). Validation x = 1..4, y = 1.6, 1.4, 10.5, 10.5.
    // Node 1: leaves 1 and 2 err (0.6² + 0.6²) = 0.72; as a leaf (mean 1.5) 0.1² × 2 = 0.02.
    // Node 2: leaves 10 and 11 err 0.5² × 2 = 0.5; as a leaf (10.5) 0. Root: 0.02 as a
    // subtree; as a leaf (mean 6): 4.4² + 4.6² + 4.5² + 4.5² = 81.02.
    let x = [OwnedCol::Num(vec![1.0, 2.0, 3.0, 4.0])];
    let y = [1.0, 2.0, 10.0, 11.0];
    let p = params(Criterion::SquaredError, CategoricalSplit::Binary);
    let tree = grow(&dataset(&x), &Target::Values(&y), &[1.0; 4], &p).unwrap();
    let yv = [1.6, 1.4, 10.5, 10.5];
    let (pruned, steps) =
        reduced_error(&tree, &dataset(&x), &Target::Values(&yv), &[1.0; 4], false).unwrap();
    let expected = [
        (1, true, 0.72, 0.02, 1.22, 0.52),
        (2, true, 0.5, 0.0, 0.52, 0.02),
        (0, false, 0.02, 81.02, 0.02, 81.02),
    ];
    assert_eq!(steps.len(), 3);
    for (s, &(node, was_pruned, sub, lf, before, after)) in steps.iter().zip(&expected) {
        assert_eq!((s.node, s.pruned), (NodeId(node), was_pruned));
        near(s.error_as_subtree, sub, "SSE as subtree");
        near(s.error_as_leaf, lf, "SSE as leaf");
        near(s.accuracy_before, before, "SSE before");
        near(s.accuracy_after, after, "SSE with the node a leaf");
    }
    assert_eq!(pruned.n_leaves(), 2);
    let prediction = pruned.predict_value(&dataset(&x)).unwrap();
    assert_eq!(prediction, [1.5, 1.5, 10.5, 10.5]);
}

#[test]
fn reduced_error_rejects_bad_validation_data() {
    let (t, tree) = fig_4_4();
    let valid = t.samples(&VALID);
    let w = valid.unit_weights();
    // Wrong number of classes.
    let three = Target::Classes {
        codes: &valid.y,
        n_classes: 3,
    };
    assert!(matches!(
        reduced_error(&tree, &valid.dataset(), &three, &w, false),
        Err(CoreError::ShapeMismatch { .. })
    ));
    // A regression target for a classifier.
    let values = vec![0.0; valid.n_rows()];
    assert!(matches!(
        reduced_error(&tree, &valid.dataset(), &Target::Values(&values), &w, false),
        Err(CoreError::InvalidParameter { .. })
    ));
    // Bad weights, a class out of range, a wrong column kind, no rows.
    let mut bad_w = w.clone();
    bad_w[2] = -1.0;
    assert!(matches!(
        reduced_error(&tree, &valid.dataset(), &valid.target(), &bad_w, false),
        Err(CoreError::InvalidWeight { row: 2, .. })
    ));
    let mut y = valid.y.clone();
    y[0] = 7;
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    assert!(matches!(
        reduced_error(&tree, &valid.dataset(), &target, &w, false),
        Err(CoreError::ClassOutOfRange { row: 0, .. })
    ));
    let mut cols = valid.cols.clone();
    cols[3] = OwnedCol::Num(vec![0.0; valid.n_rows()]);
    assert!(matches!(
        reduced_error(&tree, &dataset(&cols), &valid.target(), &w, false),
        Err(CoreError::ColumnKindMismatch { column: 3, .. })
    ));
    let empty = t.samples(&[]);
    assert!(matches!(
        reduced_error(&tree, &empty.dataset(), &empty.target(), &[], false),
        Err(CoreError::EmptyData { .. })
    ));
    assert!(matches!(
        reduced_error(&tree, &valid.dataset(), &valid.target(), &w[1..], false),
        Err(CoreError::ShapeMismatch { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// compact.

#[test]
fn compact_without_collapse_copies_the_tree() {
    let (_, tree) = fig_4_4();
    assert_same_tree(&compact(&tree, &[]).unwrap(), &tree);
    assert_same_tree(
        &compact(&tree, &vec![false; tree.n_nodes()]).unwrap(),
        &tree,
    );
    // Collapsing leaves changes nothing either.
    let leaves: Vec<bool> = (0..tree.n_nodes() as u32)
        .map(|i| tree.kind(NodeId(i)) == NodeKind::Leaf)
        .collect();
    assert_same_tree(&compact(&tree, &leaves).unwrap(), &tree);
}

#[test]
fn compact_preserves_predictions_outside_the_collapsed_subtree() {
    let (t, tree) = fig_4_4();
    let before = tree.clone();
    let all = t.dataset();
    // Collapse text node ⑤ (our 8): its six descendants go.
    let mut collapse = vec![false; tree.n_nodes()];
    collapse[8] = true;
    let small = compact(&tree, &collapse).unwrap();
    assert_same_tree(&tree, &before);
    assert_well_formed(&small);
    assert_eq!(small.n_nodes(), tree.n_nodes() - 6);
    let node5 = descend(&small, &[1, 1]);
    assert_eq!(small.kind(node5), NodeKind::Leaf);
    assert_eq!(small.label(node5), tree.label(NodeId(8)));
    assert_eq!(small.value(node5), tree.value(NodeId(8)));
    assert_eq!(score_bits(&small, node5), score_bits(&tree, NodeId(8)));

    let under_8 = |mut v: NodeId| loop {
        if v == NodeId(8) {
            break true;
        }
        match tree.parent(v) {
            Some(p) => v = p,
            None => break false,
        }
    };
    let leaves = tree.apply(&all).unwrap();
    let old = tree.predict_class(&all).unwrap();
    let new = small.predict_class(&all).unwrap();
    let old_p = tree.predict_proba(&all).unwrap();
    let new_p = small.predict_proba(&all).unwrap();
    for r in 0..t.n_rows() {
        if under_8(NodeId(leaves[r])) {
            assert_eq!(new[r], tree.label(NodeId(8)), "row {r}");
        } else {
            assert_eq!(new[r], old[r], "row {r}");
            assert_eq!(new_p[2 * r..2 * r + 2], old_p[2 * r..2 * r + 2]);
        }
    }

    // Collapsing the root leaves one leaf with the root's statistics.
    let stump = compact(&tree, &[true]).unwrap();
    assert_eq!(stump.n_nodes(), 1);
    assert_eq!(stump.value(NodeId::ROOT), tree.value(NodeId::ROOT));
    assert_eq!(stump.label(NodeId::ROOT), tree.label(NodeId::ROOT));
    assert_well_formed(&stump);
}

// ---------------------------------------------------------------------------------------------
// Pessimistic pruning (C4.5 release 8 / Weka J48). addErrs(N, e) at CF = 0.25 (z = 0.67449):
//   addErrs(N, 0) = N (1 − 0.25^(1/N)): N = 2 → 1.0, N = 4 → 1.171573, N = 6 → 1.237797,
//   N = 8 → 1.272829; addErrs(2, 1) = 0.791493 (normal branch: f = 0.75, …);
//   addErrs(8, 1) = 1.371210; addErrs(16, 7) = 1.841496.
// (Recomputed independently from Weka's `Stats.addErrs` formula in double precision.)

/// Two categorical columns `g`, `h` (2 categories each) and classes A = 0, B = 1.
fn two_features(rows: &[(u32, u32, u32)]) -> (Vec<OwnedCol>, Vec<u32>) {
    let g = rows.iter().map(|r| r.0).collect();
    let h = rows.iter().map(|r| r.1).collect();
    let y = rows.iter().map(|r| r.2).collect();
    (vec![OwnedCol::cat(g, 2), OwnedCol::cat(h, 2)], y)
}

#[test]
fn pessimistic_collapses_a_node_whose_leaves_are_too_small() {
    // g = 0: 8 × B. g = 1, h = 0: 6 × A; g = 1, h = 1: one A, one B (nothing separates them).
    // Grown: g → [B (8), h → [A (6), A (1:1, the parent's class)]].
    let mut rows = vec![(0, 0, 1); 8];
    rows.extend([(1, 0, 0); 6]);
    rows.extend([(1, 1, 0), (1, 1, 1)]);
    let (cols, y) = two_features(&rows);
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let w = vec![1.0; rows.len()];
    let tree = grow(&dataset(&cols), &target, &w, &id3()).unwrap();
    check_tree(
        &tree,
        &multi(0, vec![leaf(1), multi(1, vec![leaf(0), leaf(0)])]),
    );
    // Node h (7 A, 1 B): as a leaf 1 + addErrs(8, 1) = 2.371210; its subtree
    // addErrs(6, 0) + (1 + addErrs(2, 1)) = 1.237797 + 1.791493 = 3.029290. 2.37 ≤ 3.13:
    // collapse. Root (7 A, 9 B): as a leaf 7 + addErrs(16, 7) = 8.841496; subtree
    // addErrs(8, 0) + 2.371210 = 3.644039: kept.
    let expected = multi(0, vec![leaf(1), leaf(0)]);
    let pruned = pessimistic(&tree, 0.25, None, false).unwrap();
    check_tree(&pruned, &expected);
    assert_eq!(pruned.value(NodeId(2)), &[7.0, 1.0]);
    // With raising: the largest branch of the root is g = 1 (8 rows like g = 0; J48's maxBag
    // takes the last of equals), now a leaf, so errorsLargestBranch is the root's own leaf
    // estimate (8.84): nothing is raised and the result is the same.
    let training = Sample {
        data: &dataset(&cols),
        target: &target,
        weights: &w,
    };
    check_tree(
        &pessimistic(&tree, 0.25, Some(training), false).unwrap(),
        &expected,
    );
    // A confidence of 0.5 (z = 0) still collapses h: 1 + addErrs(8, 1) at z = 0 is
    // 1 + (8 × 1.5/8 − 1) = 1.5 against 6 (1 − 0.5^(1/6)) + 1 + 0.5 = 2.1546.
    check_tree(&pessimistic(&tree, 0.5, None, false).unwrap(), &expected);
}

/// The XOR case where subtree raising wins: g = a holds 16 rows with y = h1 xor h2 (4 of
/// each combination), g = b two rows h1 = h2 = 0, y = 0. Columns g, h1, h2.
fn xor_case() -> (Vec<OwnedCol>, Vec<u32>) {
    let mut g = Vec::new();
    let mut h1 = Vec::new();
    let mut h2 = Vec::new();
    let mut y = Vec::new();
    for (a, b) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        for _ in 0..4 {
            g.push(0);
            h1.push(a);
            h2.push(b);
            y.push(a ^ b);
        }
    }
    for _ in 0..2 {
        g.push(1);
        h1.push(0);
        h2.push(0);
        y.push(0);
    }
    (
        vec![
            OwnedCol::cat(g, 2),
            OwnedCol::cat(h1, 2),
            OwnedCol::cat(h2, 2),
        ],
        y,
    )
}

#[test]
fn pessimistic_raises_the_largest_branch_when_it_explains_the_small_one() {
    let (cols, y) = xor_case();
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let w = vec![1.0; y.len()];
    // Growth: at the root g has gain 0.1022 (h1, h2: 0.0072 each); under g = a, h1 and h2
    // tie at 0 and h1 (first) splits anyway, then h2 separates the classes.
    let tree = grow(&dataset(&cols), &target, &w, &id3()).unwrap();
    let xor = |a: u32, b: u32| {
        multi(
            1,
            vec![
                multi(2, vec![leaf(a), leaf(b)]),
                multi(2, vec![leaf(b), leaf(a)]),
            ],
        )
    };
    check_tree(&tree, &multi(0, vec![xor(0, 1), leaf(0)]));

    // Without raising nothing goes: every leaf is pure and the h2 nodes (4:4) and h1 (8:8)
    // cost far more as leaves (5.39, 9.81) than as subtrees (2.34, 4.69); the root as a leaf
    // (10:8) costs 9.92 against 4 addErrs(4, 0) + addErrs(2, 0) = 4.6863 + 1 = 5.6863.
    let kept = pessimistic(&tree, 0.25, None, false).unwrap();
    assert_same_tree(&kept, &tree);

    // With raising, the root's largest branch (g = a, 16 rows) with all 18 rows sent down it
    // costs addErrs(6, 0) + 3 addErrs(4, 0) = 1.2378 + 3.5147 = 4.7525 ≤ 5.6863 + 0.1 (and
    // the leaf, 9.92, is worse): the h1 subtree replaces the root and the two g = b rows join
    // leaf h1 = 0, h2 = 0. Pruned again, nothing more goes (the new largest branch, h1 = 0
    // with 10 rows, would cost 5.56 + 5.39 = 10.95).
    let training = Sample {
        data: &dataset(&cols),
        target: &target,
        weights: &w,
    };
    let raised = pessimistic(&tree, 0.25, Some(training), false).unwrap();
    assert_same_tree(&tree, &grow(&dataset(&cols), &target, &w, &id3()).unwrap());
    check_tree(&raised, &xor(0, 1));
    assert_well_formed(&raised);
    // The root keeps its own rows and statistics; the nodes below were re-filled.
    assert_eq!(raised.value(NodeId::ROOT), &[10.0, 8.0]);
    assert_eq!(
        score_bits(&raised, NodeId::ROOT),
        score_bits(&tree, NodeId::ROOT)
    );
    assert!(score_bits(&raised, NodeId::ROOT).is_some());
    let h1_0 = descend(&raised, &[0]);
    let h1_1 = descend(&raised, &[1]);
    let cell = descend(&raised, &[0, 0]);
    assert_eq!(raised.value(h1_0), &[6.0, 4.0]);
    assert_eq!(raised.value(h1_1), &[4.0, 4.0]);
    assert_eq!(raised.value(cell), &[6.0, 0.0]);
    near(raised.weight(h1_0), 10.0, "weight of h1 = 0");
    near(raised.n_rows(cell), 6.0, "rows of the raised leaf");
    near(raised.branch_fraction(h1_0), 10.0 / 18.0, "r̃ of h1 = 0");
    near(raised.branch_fraction(h1_1), 8.0 / 18.0, "r̃ of h1 = 1");
    near(raised.branch_fraction(cell), 6.0 / 10.0, "r̃ of h2 = 0");
    assert_eq!(raised.node_scores(h1_0), None);
    // The raised tree still classifies every training row.
    assert_eq!(raised.predict_class(&dataset(&cols)).unwrap(), y);
}

#[test]
fn pessimistic_rejects_bad_parameters() {
    let (cols, y) = xor_case();
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let w = vec![1.0; y.len()];
    let tree = grow(&dataset(&cols), &target, &w, &id3()).unwrap();
    for cf in [0.0, -0.1, 0.51, 1.0, f64::NAN] {
        assert!(
            matches!(
                pessimistic(&tree, cf, None, false),
                Err(CoreError::InvalidParameter {
                    name: "confidence",
                    ..
                })
            ),
            "confidence {cf}"
        );
    }
    // Training data that is not the tree's: other weights, other classes, other columns.
    let data = dataset(&cols);
    let heavier = vec![2.0; y.len()];
    let with = |weights: &[f64], target: &Target<'_>, data| {
        pessimistic(
            &tree,
            0.25,
            Some(Sample {
                data,
                target,
                weights,
            }),
            false,
        )
    };
    assert!(matches!(
        with(&heavier, &target, &data),
        Err(CoreError::InvalidParameter {
            name: "training",
            ..
        })
    ));
    let three = Target::Classes {
        codes: &y,
        n_classes: 3,
    };
    assert!(matches!(
        with(&w, &three, &data),
        Err(CoreError::ShapeMismatch { .. })
    ));
    let two_cols = dataset(&cols[..2]);
    assert!(matches!(
        with(&w, &target, &two_cols),
        Err(CoreError::ShapeMismatch { .. })
    ));
    // Regression trees have no misclassified weight to count.
    let x = [OwnedCol::Num(vec![1.0, 2.0, 3.0])];
    let reg = grow(
        &dataset(&x),
        &Target::Values(&[1.0, 2.0, 3.0]),
        &[1.0; 3],
        &params(Criterion::SquaredError, CategoricalSplit::Binary),
    )
    .unwrap();
    assert!(matches!(
        pessimistic(&reg, 0.25, None, false),
        Err(CoreError::InvalidParameter { name: "tree", .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Cost-complexity pruning (scikit-learn's semantics).

#[test]
fn cost_complexity_path_by_hand() {
    // x = 1..8, y = 0 0 0 1 0 1 1 1, Gini. Root x <= 3.5 (4:4, R = 0.5) → [0 0 0] pure, and
    // node n2 (x > 3.5: 1 0 1 1 1, Gini 0.32, R = 5 × 0.32 / 8 = 0.2) split at 5.5 into n3
    // (x = 4, 5: Gini 0.5, R = 2 × 0.5 / 8 = 0.125) → pure leaves, and [1 1 1] pure.
    // g(n3) = 0.125 / 1 = 0.125, g(n2) = 0.2 / (3 − 1) = 0.1, g(root) = 0.5 / 3 = 0.1667:
    // the weakest link is n2 (taking n3 with it), R(T) = 0.2. Then g(root) = (0.5 − 0.2) / 1
    // = 0.3. scikit-learn 1.9 prints ccp_alphas [0, 0.1, 0.3], impurities [0, 0.2, 0.5].
    let x = [OwnedCol::Num((1..=8).map(f64::from).collect())];
    let y = [0, 0, 0, 1, 0, 1, 1, 1];
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let p = params(Criterion::Gini, CategoricalSplit::Binary);
    let tree = grow(&dataset(&x), &target, &[1.0; 8], &p).unwrap();
    check_tree(
        &tree,
        &num(
            0,
            3.5,
            leaf(0),
            num(0, 5.5, num(0, 4.5, leaf(1), leaf(0)), leaf(1)),
        ),
    );
    let path = cost_complexity_path(&tree);
    assert_eq!(path.ccp_alphas.len(), 3);
    for (got, want) in path.ccp_alphas.iter().zip([0.0, 0.1, 0.3]) {
        near(*got, want, "alpha");
    }
    for (got, want) in path.impurities.iter().zip([0.0, 0.2, 0.5]) {
        near(*got, want, "impurity");
    }
    let leaves = |alpha: f64| cost_complexity(&tree, alpha).unwrap().n_leaves();
    assert_eq!(
        path.ccp_alphas
            .iter()
            .map(|&a| leaves(a))
            .collect::<Vec<_>>(),
        [4, 2, 1]
    );
    // Between the path's alphas: 0.099 keeps everything; 0.12 already took n2, although n3
    // alone (g = 0.125) would not have gone; anything from 0.3 on is the root alone.
    assert_eq!(
        (leaves(0.099), leaves(0.12), leaves(0.29), leaves(7.0)),
        (4, 2, 2, 1)
    );
    check_tree(
        &cost_complexity(&tree, 0.1).unwrap(),
        &num(0, 3.5, leaf(0), leaf(1)),
    );
    for alpha in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            cost_complexity(&tree, alpha),
            Err(CoreError::InvalidParameter {
                name: "ccp_alpha",
                ..
            })
        ));
    }
}

/// scikit-learn's `_cost_complexity_prune` transcribed literally (quadratic scan over nodes in
/// preorder, first strict minimum, leaves bubbled up in preorder) on the public API. Returns
/// the path and the number of leaves after each step.
fn reference_path(t: &Tree) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let n = t.n_nodes();
    let mut order = Vec::new();
    let mut stack = vec![NodeId::ROOT];
    while let Some(v) = stack.pop() {
        order.push(v);
        let kids: Vec<NodeId> = t.children(v).collect();
        stack.extend(kids.into_iter().rev());
    }
    let total = t.weight(NodeId::ROOT);
    let r_node: Vec<f64> = (0..n as u32)
        .map(|i| t.weight(NodeId(i)) * t.impurity(NodeId(i)) / total)
        .collect();
    let is_leaf = |v: NodeId| t.kind(v) == NodeKind::Leaf;
    let mut r_branch = vec![0.0; n];
    let mut n_leaves = vec![0usize; n];
    for &v in order.iter().filter(|&&v| is_leaf(v)) {
        r_branch[v.index()] = r_node[v.index()];
        let mut u = v;
        while let Some(p) = t.parent(u) {
            r_branch[p.index()] += r_node[v.index()];
            n_leaves[p.index()] += 1;
            u = p;
        }
    }
    let mut candidate: Vec<bool> = (0..n as u32).map(|i| !is_leaf(NodeId(i))).collect();
    let mut in_subtree = vec![true; n];
    let mut leaves_now = (0..n as u32).filter(|&i| is_leaf(NodeId(i))).count();
    let (mut alphas, mut impurities, mut leaves) = (vec![0.0], vec![r_branch[0]], vec![leaves_now]);
    while candidate[0] {
        let mut best = f64::MAX;
        let mut pick = NodeId::ROOT;
        for &v in &order {
            let i = v.index();
            if !candidate[i] {
                continue;
            }
            let a = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1) as f64;
            if a < best {
                best = a;
                pick = v;
            }
        }
        let mut below = vec![pick];
        while let Some(v) = below.pop() {
            if !in_subtree[v.index()] {
                continue;
            }
            candidate[v.index()] = false;
            in_subtree[v.index()] = false;
            below.extend(t.children(v));
        }
        in_subtree[pick.index()] = true;
        let pruned = n_leaves[pick.index()] - 1;
        leaves_now -= pruned;
        n_leaves[pick.index()] = 0;
        let diff = r_node[pick.index()] - r_branch[pick.index()];
        r_branch[pick.index()] = r_node[pick.index()];
        let mut u = pick;
        while let Some(p) = t.parent(u) {
            n_leaves[p.index()] -= pruned;
            r_branch[p.index()] += diff;
            u = p;
        }
        alphas.push(best);
        impurities.push(r_branch[0]);
        leaves.push(leaves_now);
    }
    (alphas, impurities, leaves)
}

/// Runs of a path whose alphas are equal up to rounding (within `tol` of the run's first):
/// (largest alpha of the run, index of its last step).
fn runs(alphas: &[f64], tol: f64) -> Vec<(f64, usize)> {
    let mut out: Vec<(f64, usize)> = Vec::new();
    let mut first = f64::NAN;
    for (i, &a) in alphas.iter().enumerate() {
        match out.last_mut() {
            Some(run) if (a - first).abs() <= tol => *run = (run.0.max(a), i),
            _ => {
                first = a;
                out.push((a, i));
            }
        }
    }
    out
}

/// `cost_complexity(alpha_i)` is the subtree after the last step whose alpha (and every
/// earlier one's) is ≤ alpha_i, with that step's leaf cost; and the path agrees with the
/// reference, run by run: alphas equal up to rounding are ties that rounding may break in
/// another order (scikit-learn's own sums differ from both in the last bits).
fn check_cost_complexity(tree: &Tree) -> Result<(), TestCaseError> {
    let path = cost_complexity_path(tree);
    let tol = 1e-9;
    let steps = path.ccp_alphas.len();
    let mut last_leaves = usize::MAX;
    for i in 0..steps {
        let alpha = path.ccp_alphas[i].max(0.0);
        let m = (1..steps)
            .take_while(|&j| path.ccp_alphas[j] <= alpha)
            .last()
            .unwrap_or(0);
        let pruned = cost_complexity(tree, alpha).unwrap();
        assert_well_formed(&pruned);
        prop_assert!((leaf_cost(&pruned) - path.impurities[m]).abs() <= tol);
        prop_assert!(pruned.n_leaves() <= last_leaves);
        last_leaves = pruned.n_leaves();
    }
    let last = *path.ccp_alphas.last().unwrap();
    prop_assert_eq!(cost_complexity(tree, last.max(0.0)).unwrap().n_leaves(), 1);

    let (alphas, impurities, leaves) = reference_path(tree);
    let (ours, theirs) = (runs(&path.ccp_alphas, tol), runs(&alphas, tol));
    prop_assert_eq!(
        ours.len(),
        theirs.len(),
        "{:?} vs {:?}",
        path.ccp_alphas,
        alphas
    );
    for (&(a, i), &(b, j)) in ours.iter().zip(&theirs) {
        prop_assert!((a - b).abs() <= tol, "alpha {} vs {}", a, b);
        prop_assert!((path.impurities[i] - impurities[j]).abs() <= tol);
        let pruned = cost_complexity(tree, a.max(0.0)).unwrap();
        prop_assert_eq!(pruned.n_leaves(), leaves[j], "leaves at alpha {}", a);
    }
    Ok(())
}

#[test]
fn cost_complexity_of_a_single_leaf() {
    let x = [OwnedCol::Num(vec![1.0, 2.0])];
    let target = Target::Classes {
        codes: &[1, 1],
        n_classes: 2,
    };
    let tree = grow(&dataset(&x), &target, &[1.0; 2], &TreeParams::default()).unwrap();
    let path = cost_complexity_path(&tree);
    assert_eq!(path.ccp_alphas, [0.0]);
    assert_eq!(path.impurities, [0.0]);
    assert_same_tree(&cost_complexity(&tree, 1.0).unwrap(), &tree);
}

// ---------------------------------------------------------------------------------------------
// Misclassification risk and rpart's complexities (rpart's `partition.c`).

/// rpart 4.1 on x = these 14 values, y as given (minsplit 2, minbucket 1, cp 0) grows
/// x < 3.5 → pure 3; x >= 3.5 (11 rows, risk 5) → x >= 11.5 pure 3, x < 11.5 (8 rows, risk 3)
/// → x >= 8.5 pure 3 and 5 rows (risk 2) → x < 5.5 pure 2 | pure 3.
fn rpart_example() -> Tree {
    let x = [OwnedCol::Num(
        [5, 8, 4, 7, 6, 14, 9, 3, 11, 1, 2, 13, 12, 10]
            .map(f64::from)
            .to_vec(),
    )];
    let y = [0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0];
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let p = params(Criterion::Gini, CategoricalSplit::Binary);
    let tree = grow(&dataset(&x), &target, &[1.0; 14], &p).unwrap();
    check_tree(
        &tree,
        &num(
            0,
            3.5,
            leaf(1),
            num(
                0,
                11.5,
                num(0, 8.5, num(0, 5.5, leaf(0), leaf(1)), leaf(0)),
                leaf(1),
            ),
        ),
    );
    tree
}

#[test]
fn misclassification_risk_path_by_hand() {
    // Risks (misclassified rows): root 5, x > 3.5: 5, x <= 11.5: 3, its x <= 8.5: 2, leaves 0.
    // Weakest links per unit of the 14 rows: g(x <= 8.5) = 2/1, g(x <= 11.5) = 3/2,
    // g(x > 3.5) = 5/3, g(root) = 5/4: the root goes first, at 1.25/14, taking everything.
    let tree = rpart_example();
    let risk = Risk::Misclassification { costs: None };
    let control = Control::new();
    let path =
        cost_complexity_path_controlled(&tree, risk, Sequence::WeakestLink, &control).unwrap();
    assert_eq!(path.n_splits, [4, 0]);
    near(path.ccp_alphas[1], 1.25 / 14.0, "alpha");
    near(path.impurities[0], 0.0, "R(T)");
    near(path.impurities[1], 5.0 / 14.0, "R(root)");
    // Costs: misclassifying class 0 costs 3. The root predicts 0 (cost 9 × 1 against 5 × 3);
    // its risk is then the 9 rows of class 1 at cost 1.
    let costs = [0.0, 3.0, 1.0, 0.0];
    let costly = Risk::Misclassification {
        costs: Some(&costs),
    };
    let path =
        cost_complexity_path_controlled(&tree, costly, Sequence::WeakestLink, &control).unwrap();
    near(
        *path.impurities.last().unwrap(),
        9.0 / 14.0,
        "R(root) with costs",
    );
    // A regression tree has no misclassification cost; costs must be 2 x 2.
    let bad = Risk::Misclassification {
        costs: Some(&costs[..3]),
    };
    assert!(matches!(
        cost_complexity_path_controlled(&tree, bad, Sequence::WeakestLink, &control),
        Err(CoreError::InvalidParameter {
            name: "ccp_risk",
            ..
        })
    ));
}

#[test]
fn rpart_complexities_by_hand() {
    // rpart's one bottom-up pass (its cp table for these rows: CP 0.2 with 0 splits, then 0
    // with 4): x <= 8.5 (risk 2 over pure leaves) gets 2; x <= 11.5 (risk 3) gets
    // (3 − 0) / 2 = 1.5; x > 3.5 (risk 5): (5 − 0) / 3 = 1.67 exceeds its child's 1.5, so the
    // child is taken collapsed (risk 3, no split): (5 − 3) / 1 = 2; the root (risk 5) sees that
    // branch collapsed as well: (5 − 3) / 2 = 1. Capped by the root, every node goes at 1:
    // where the weakest links keep the whole tree up to 1.25.
    let tree = rpart_example();
    let risk = Risk::Misclassification { costs: None };
    let control = Control::new();
    let rpart = Sequence::Rpart { floor: 0.0 };
    let path = cost_complexity_path_controlled(&tree, risk, rpart, &control).unwrap();
    assert_eq!(path.n_splits, [4, 0]);
    near(path.ccp_alphas[0], 0.0, "the floor");
    near(path.ccp_alphas[1], 1.0 / 14.0, "rpart's root complexity");
    let prune = |alpha: f64, sequence: Sequence| {
        cost_complexity_controlled(&tree, alpha, risk, sequence, &control)
            .unwrap()
            .n_leaves()
    };
    // Between 1 and 1.25 (per 14 rows) the two sequences part.
    assert_eq!(prune(1.1 / 14.0, rpart), 1);
    assert_eq!(prune(1.1 / 14.0, Sequence::WeakestLink), 5);
    assert_eq!(prune(0.9 / 14.0, rpart), 5);
    // A floor of 2 (per 14 rows) collapses everything at or below it, the root with them.
    let high = Sequence::Rpart { floor: 2.0 / 14.0 };
    let path = cost_complexity_path_controlled(&tree, risk, high, &control).unwrap();
    assert_eq!(path.n_splits, [0]);
    // A floor also bounds growth as rpart's cp does: 0.9 / 14 stops nothing here.
    let low = Sequence::Rpart { floor: 0.9 / 14.0 };
    assert_eq!(
        cost_complexity_path_controlled(&tree, risk, low, &control)
            .unwrap()
            .n_splits,
        [4, 0]
    );
    assert!(matches!(
        cost_complexity_controlled(
            &tree,
            0.1,
            risk,
            Sequence::Rpart { floor: f64::NAN },
            &control
        ),
        Err(CoreError::InvalidParameter { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// A degenerate chain (tests/deep.rs): every pass walks it without recursion.

#[test]
fn deep_chain_is_pruned_without_recursion() {
    const N: usize = 2000;
    let cols = [OwnedCol::Num((0..N).map(|i| i as f64).collect())];
    let y: Vec<u32> = (0..N).map(|i| (i % 2) as u32).collect();
    let target = Target::Classes {
        codes: &y,
        n_classes: 2,
    };
    let w = vec![1.0; N];
    let data = dataset(&cols);
    let tree = grow(&data, &target, &w, &TreeParams::default()).unwrap();
    assert_eq!(tree.max_depth(), N - 1);
    assert_same_tree(&compact(&tree, &[]).unwrap(), &tree);

    // Validation: every other row, labels flipped, so deep splits only hurt.
    let vy: Vec<u32> = y.iter().map(|c| 1 - c).collect();
    let vt = Target::Classes {
        codes: &vy,
        n_classes: 2,
    };
    let (pruned, steps) = reduced_error(&tree, &data, &vt, &w, false).unwrap();
    assert_eq!(steps.len(), N - 1);
    assert_well_formed(&pruned);
    assert!(pruned.n_leaves() <= tree.n_leaves());

    for raising in [false, true] {
        let training = Sample {
            data: &data,
            target: &target,
            weights: &w,
        };
        let p = pessimistic(&tree, 0.25, raising.then_some(training), false).unwrap();
        assert_well_formed(&p);
        assert!(p.n_leaves() < tree.n_leaves());
    }
    let path = cost_complexity_path(&tree);
    assert!(path.ccp_alphas.len() >= 2);
    assert_eq!(
        cost_complexity(&tree, *path.ccp_alphas.last().unwrap())
            .unwrap()
            .n_leaves(),
        1
    );
}

// ---------------------------------------------------------------------------------------------
// Weka J48's C45PruneableClassifierTree.prune transcribed literally (recursive, on owned
// nodes holding their training rows), to check the unrolled pass against.

const SMALL: f64 = 1e-6;

#[derive(Debug, Clone)]
struct J48Node {
    /// The input node whose test this node applies (None: a leaf).
    test: Option<NodeId>,
    sons: Vec<J48Node>,
    /// Training rows (row, weight) and their class weights.
    rows: Vec<(usize, f64)>,
    dist: Vec<f64>,
    /// Share of a missing row's weight this node received from its parent.
    fraction: f64,
}

struct J48<'a> {
    tree: &'a Tree,
    cols: &'a [OwnedCol],
    y: &'a [u32],
    cf: f64,
    raising: bool,
}

impl J48<'_> {
    /// The child a row goes to at `test`, or None when missing (or unseen).
    fn route(&self, test: NodeId, row: usize) -> Option<usize> {
        let code = |f: usize| match &self.cols[f] {
            OwnedCol::Cat {
                codes,
                missing,
                n_categories,
                ..
            } => (!missing[row] && codes[row] < *n_categories).then_some(codes[row]),
            OwnedCol::Num(_) => None,
        };
        match self.tree.kind(test) {
            NodeKind::Leaf => None,
            NodeKind::Numeric { feature, threshold } => match &self.cols[feature] {
                OwnedCol::Num(v) if !v[row].is_nan() => Some(usize::from(v[row] > threshold)),
                _ => None,
            },
            NodeKind::Multiway { feature } => code(feature).map(|c| c as usize),
            NodeKind::Ordered { feature, threshold } => {
                code(feature).map(|c| usize::from(c > threshold))
            }
            NodeKind::Subset { feature, sides } => match sides.get(code(feature)? as usize)? {
                quercus_core::Side::Left => Some(0),
                quercus_core::Side::Right => Some(1),
                quercus_core::Side::Unseen => None,
            },
            NodeKind::Oblique {
                features,
                weights,
                threshold,
            } => {
                let mut z = 0.0;
                for (&f, &w) in features.iter().zip(weights) {
                    match &self.cols[f as usize] {
                        OwnedCol::Num(v) if !v[row].is_nan() => z += w * v[row],
                        _ => return None,
                    }
                }
                Some(usize::from(z > threshold))
            }
        }
    }

    fn dist_of(&self, rows: &[(usize, f64)]) -> Vec<f64> {
        let mut d = vec![0.0; self.tree.n_classes()];
        for &(r, w) in rows {
            d[self.y[r] as usize] += w;
        }
        d
    }

    /// `resetDistribution` + `split`: rows per son, missing ones by the known shares.
    fn split(
        &self,
        test: NodeId,
        n: usize,
        rows: &[(usize, f64)],
    ) -> (Vec<Vec<(usize, f64)>>, Vec<f64>) {
        let mut parts = vec![Vec::new(); n];
        let mut known = vec![0.0; n];
        let mut missing = Vec::new();
        for &(r, w) in rows {
            match self.route(test, r).filter(|&c| c < n) {
                Some(c) => {
                    parts[c].push((r, w));
                    known[c] += w;
                }
                None => missing.push((r, w)),
            }
        }
        let total: f64 = known.iter().sum();
        let f: Vec<f64> = if total.abs() < SMALL {
            vec![1.0 / n as f64; n]
        } else {
            known.iter().map(|k| k / total).collect()
        };
        for (part, &fk) in parts.iter_mut().zip(&f) {
            if fk > 0.0 {
                part.extend(missing.iter().map(|&(r, w)| (r, w * fk)));
            }
        }
        (parts, f)
    }

    /// The grown tree with every node's training rows.
    fn build(&self, node: NodeId, rows: Vec<(usize, f64)>, fraction: f64) -> J48Node {
        let dist = self.dist_of(&rows);
        let kids: Vec<NodeId> = self.tree.children(node).collect();
        if kids.is_empty() {
            return J48Node {
                test: None,
                sons: vec![],
                rows,
                dist,
                fraction,
            };
        }
        let (parts, f) = self.split(node, kids.len(), &rows);
        let sons = kids
            .iter()
            .zip(parts)
            .zip(f)
            .map(|((&k, part), fk)| self.build(k, part, fk))
            .collect();
        J48Node {
            test: Some(node),
            sons,
            rows,
            dist,
            fraction,
        }
    }

    fn add_errs(&self, n: f64, e: f64) -> f64 {
        add_errs(n, e, self.cf)
    }

    fn est_dist(&self, d: &[f64]) -> f64 {
        let total: f64 = d.iter().sum();
        if total.abs() < SMALL {
            return 0.0;
        }
        let e = total - d.iter().copied().fold(0.0, f64::max);
        e + self.add_errs(total, e)
    }

    fn est_tree(&self, t: &J48Node) -> f64 {
        if t.test.is_none() {
            self.est_dist(&t.dist)
        } else {
            t.sons.iter().map(|s| self.est_tree(s)).sum()
        }
    }

    fn est_branch(&self, t: &J48Node, rows: &[(usize, f64)]) -> f64 {
        match t.test {
            None => self.est_dist(&self.dist_of(rows)),
            Some(test) => {
                let (parts, _) = self.split(test, t.sons.len(), rows);
                t.sons
                    .iter()
                    .zip(parts)
                    .map(|(s, p)| self.est_branch(s, &p))
                    .sum()
            }
        }
    }

    fn new_distribution(&self, t: &mut J48Node, rows: Vec<(usize, f64)>) {
        t.dist = self.dist_of(&rows);
        if let Some(test) = t.test {
            let (parts, f) = self.split(test, t.sons.len(), &rows);
            for ((s, p), fk) in t.sons.iter_mut().zip(parts).zip(f) {
                s.fraction = fk;
                self.new_distribution(s, p);
            }
        }
        t.rows = rows;
    }

    fn prune(&self, t: &mut J48Node) {
        if t.test.is_none() {
            return;
        }
        for s in &mut t.sons {
            self.prune(s);
        }
        let mut largest = 0;
        let mut max = 0.0;
        for (i, s) in t.sons.iter().enumerate() {
            let w: f64 = s.dist.iter().sum();
            if max - w < SMALL {
                max = w;
                largest = i;
            }
        }
        let errors_largest = if self.raising {
            self.est_branch(&t.sons[largest], &t.rows)
        } else {
            f64::MAX
        };
        let errors_leaf = self.est_dist(&t.dist);
        let errors_tree = self.est_tree(t);
        if errors_leaf - (errors_tree + 0.1) < SMALL && errors_leaf - (errors_largest + 0.1) < SMALL
        {
            t.test = None;
            t.sons.clear();
            return;
        }
        if errors_largest - (errors_tree + 0.1) < SMALL {
            let branch = t.sons.swap_remove(largest);
            t.test = branch.test;
            t.sons = branch.sons;
            let rows = t.rows.clone();
            self.new_distribution(t, rows);
            self.prune(t);
        }
    }
}

/// Weka's `Stats.addErrs`.
fn add_errs(n: f64, e: f64, cf: f64) -> f64 {
    if e < 1.0 {
        let base = n * (1.0 - cf.powf(1.0 / n));
        if e == 0.0 {
            return base;
        }
        return base + e * (add_errs(n, 1.0, cf) - base);
    }
    if e + 0.5 >= n {
        return (n - e).max(0.0);
    }
    let z = normal_quantile(1.0 - cf);
    let f = (e + 0.5) / n;
    let r = (f + z * z / (2.0 * n) + z * (f / n - f * f / n + z * z / (4.0 * n * n)).sqrt())
        / (1.0 + z * z / n);
    r * n - e
}

/// Φ⁻¹(p) by bisection on Φ(x) = (1 + erf(x/√2))/2, independently of statrs.
fn normal_quantile(p: f64) -> f64 {
    let cdf = |x: f64| 0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2));
    let (mut lo, mut hi) = (-10.0, 10.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if cdf(mid) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// erf by its Maclaurin series, accurate in double precision for the |x| ≤ 3 bisection needs
/// near the quantiles used here (|z| ≤ 1.65); ±1 beyond.
fn erf(x: f64) -> f64 {
    if x.abs() > 3.0 {
        return x.signum();
    }
    let mut term = x;
    let mut sum = x;
    for n in 1..200 {
        term *= -x * x / n as f64;
        sum += term / (2 * n + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

/// Our pruned tree against the transcription, node by node.
fn same_as_j48(
    ours: &Tree,
    node: NodeId,
    theirs: &J48Node,
    tree: &Tree,
) -> Result<(), TestCaseError> {
    let tol = 1e-9;
    let kids: Vec<NodeId> = ours.children(node).collect();
    match theirs.test {
        None => prop_assert_eq!(ours.kind(node), NodeKind::Leaf, "node {:?}", node),
        Some(test) => prop_assert_eq!(ours.kind(node), tree.kind(test), "node {:?}", node),
    }
    prop_assert_eq!(kids.len(), theirs.sons.len());
    let total: f64 = theirs.dist.iter().sum();
    prop_assert!((ours.weight(node) - total).abs() <= tol * total.max(1.0));
    if total > 0.0 {
        for (a, b) in ours.value(node).iter().zip(&theirs.dist) {
            prop_assert!((a - b).abs() <= tol * total.max(1.0), "value of {:?}", node);
        }
    }
    if node != NodeId::ROOT {
        prop_assert!((ours.branch_fraction(node) - theirs.fraction).abs() <= tol);
    }
    for (k, s) in kids.iter().zip(&theirs.sons) {
        same_as_j48(ours, *k, s, tree)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Random data: pruning never adds leaves, and its output is a well-formed tree.

#[derive(Debug, Clone)]
struct Case {
    /// Per feature: `None` numeric (code × 0.5), `Some((k, ordered))` categorical.
    kinds: Vec<Option<(u32, bool)>>,
    /// Per feature, per row (training rows first, then validation rows); `None` is missing.
    codes: Vec<Vec<Option<u32>>>,
    n_train: usize,
    /// 0 for regression.
    n_classes: usize,
    classes: Vec<u32>,
    values: Vec<f64>,
    weights: Vec<f64>,
    criterion: Criterion,
    split: CategoricalSplit,
    confidence: f64,
    prune_ties: bool,
}

impl Case {
    fn cols(&self, rows: std::ops::Range<usize>) -> Vec<OwnedCol> {
        self.kinds
            .iter()
            .zip(&self.codes)
            .map(|(kind, codes)| {
                let part = &codes[rows.clone()];
                match kind {
                    None => OwnedCol::Num(
                        part.iter()
                            .map(|c| c.map_or(f64::NAN, |c| f64::from(c) * 0.5))
                            .collect(),
                    ),
                    Some((k, ordered)) => OwnedCol::cat_opt(part, *k, *ordered),
                }
            })
            .collect()
    }

    fn target(&self, rows: std::ops::Range<usize>) -> Target<'_> {
        if self.n_classes == 0 {
            Target::Values(&self.values[rows])
        } else {
            Target::Classes {
                codes: &self.classes[rows],
                n_classes: self.n_classes,
            }
        }
    }
}

fn case() -> impl Strategy<Value = Case> {
    let setup = (
        6usize..=40,
        1usize..=20,
        prop::collection::vec(prop::option::of((2u32..=4, any::<bool>())), 1..=3),
        prop_oneof![Just(0usize), Just(2), Just(3)],
        prop_oneof![
            Just(Criterion::Entropy),
            Just(Criterion::GainRatio),
            Just(Criterion::Gini),
            Just(Criterion::Misclassification),
        ],
        prop_oneof![
            Just(CategoricalSplit::Multiway),
            Just(CategoricalSplit::Binary)
        ],
    );
    setup.prop_flat_map(|(n_train, n_valid, kinds, n_classes, criterion, split)| {
        let n = n_train + n_valid;
        let codes: Vec<_> = kinds
            .iter()
            .map(|k| {
                let levels = k.map_or(8, |(k, _)| k);
                prop::collection::vec(prop::option::weighted(0.85, 0..levels), n)
            })
            .collect();
        (
            codes,
            prop::collection::vec(0..n_classes.max(1) as u32, n),
            prop::collection::vec((0i32..4).prop_map(f64::from), n),
            prop::collection::vec(prop_oneof![Just(1.0), 0.5f64..2.0], n),
            0.05f64..=0.5,
            any::<bool>(),
        )
            .prop_map(
                move |(codes, classes, values, weights, confidence, prune_ties)| Case {
                    kinds: kinds.clone(),
                    codes,
                    n_train,
                    n_classes,
                    classes,
                    values,
                    weights,
                    criterion: if n_classes == 0 {
                        Criterion::SquaredError
                    } else {
                        criterion
                    },
                    split,
                    confidence,
                    prune_ties,
                },
            )
    })
}

fn config() -> ProptestConfig {
    let base = ProptestConfig::default();
    ProptestConfig {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            base.cases
        } else {
            96
        },
        rng_seed: match base.rng_seed {
            RngSeed::Random => RngSeed::Fixed(0x0050_2B4E),
            fixed => fixed,
        },
        failure_persistence: None,
        ..base
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn pruning_never_adds_leaves(case in case()) {
        let n = case.codes[0].len();
        let train = case.cols(0..case.n_train);
        let valid = case.cols(case.n_train..n);
        let data = dataset(&train);
        let target = case.target(0..case.n_train);
        let w = &case.weights[..case.n_train];
        let tree = grow(&data, &target, w, &params(case.criterion, case.split)).unwrap();
        let copy = tree.clone();
        let leaves = tree.n_leaves();
        assert_same_tree(&compact(&tree, &[]).unwrap(), &tree);

        let (pruned, steps) = reduced_error(
            &tree,
            &dataset(&valid),
            &case.target(case.n_train..n),
            &case.weights[case.n_train..],
            case.prune_ties,
        )
        .unwrap();
        assert_well_formed(&pruned);
        prop_assert!(pruned.n_leaves() <= leaves);
        prop_assert_eq!(steps.len(), tree.n_nodes() - leaves);
        prop_assert_eq!(pruned.n_leaves(), leaves - steps
            .iter()
            .filter(|s| s.pruned)
            .map(|s| compact_leaves_removed(&tree, &steps, s.node))
            .sum::<usize>());

        if case.n_classes > 0 {
            for raising in [false, true] {
                let training = Sample { data: &data, target: &target, weights: w };
                let p = pessimistic(&tree, case.confidence, raising.then_some(training), false).unwrap();
                assert_well_formed(&p);
                let j48 = J48 {
                    tree: &tree,
                    cols: &train,
                    y: &case.classes[..case.n_train],
                    cf: case.confidence,
                    raising,
                };
                let rows: Vec<(usize, f64)> = w.iter().copied().enumerate().collect();
                let mut reference = j48.build(NodeId::ROOT, rows, 1.0);
                j48.prune(&mut reference);
                same_as_j48(&p, NodeId::ROOT, &reference, &tree)?;
                prop_assert!(p.n_leaves() <= leaves);
                // J48's collapse() in the same pass: the tree collapse() then pruning give.
                let training = Sample { data: &data, target: &target, weights: w };
                let sample = raising.then_some(training);
                let fused = pessimistic(&tree, case.confidence, sample, true).unwrap();
                let collapsed = collapse(&tree).unwrap();
                assert_same_tree(&fused, &pessimistic(&collapsed, case.confidence, sample, false).unwrap());
                // Predictions are defined everywhere (fractions still sum to one).
                for row in p.predict_proba(&dataset(&valid)).unwrap().chunks(case.n_classes) {
                    prop_assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9);
                }
            }
        }

        check_cost_complexity(&tree)?;
        assert_same_tree(&tree, &copy);
    }
}

/// Leaves a pruned step removes from the final tree: those of its subtree as it stood when it
/// was decided, unless an ancestor pruned later took them (then that ancestor counts them).
fn compact_leaves_removed(tree: &Tree, steps: &[PruneStep], node: NodeId) -> usize {
    let pruned: Vec<NodeId> = steps.iter().filter(|s| s.pruned).map(|s| s.node).collect();
    let is_pruned = |v: NodeId| pruned.contains(&v);
    // Taken by a pruned ancestor: counted there.
    let mut u = node;
    while let Some(p) = tree.parent(u) {
        if is_pruned(p) {
            return 0;
        }
        u = p;
    }
    // Leaves of the original subtree, minus one.
    let mut count = 0;
    let mut stack = vec![node];
    while let Some(v) = stack.pop() {
        let kids: Vec<NodeId> = tree.children(v).collect();
        if kids.is_empty() {
            count += 1;
        }
        stack.extend(kids);
    }
    count - 1
}
