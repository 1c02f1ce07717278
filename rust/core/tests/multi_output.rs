//! Multi-output targets (scikit-learn's multi-output trees): one tree, one test per node, a
//! prediction per output at each leaf. A node's impurity is the mean of its outputs'
//! impurities, so a target whose outputs are all the same column grows the single-output
//! tree, and an output that never varies halves every impurity and changes no split.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{dataset, OwnedCol};
use quercus_core::prune::{collapse, cost_complexity_path, pessimistic, reduced_error};
use quercus_core::{
    grow, CategoricalSplit, CoreError, Criterion, MissingStrategy, NodeId, Splitter, Target, Tree,
    TreeParams,
};

/// A small deterministic generator (no randomness crate in the tests).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// 240 rows: two numeric columns (20 distinct values each, 10% missing) and an unordered
/// 5-category column; three class outputs (2, 3 and 4 classes) and two real ones, each
/// driven by some of the features.
struct Data {
    cols: Vec<OwnedCol>,
    classes: [Vec<u32>; 3],
    values: [Vec<f64>; 2],
}

fn data(seed: u64) -> Data {
    let mut g = Lcg(seed);
    let n = 240;
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    let mut classes = [Vec::new(), Vec::new(), Vec::new()];
    let mut values = [Vec::new(), Vec::new()];
    for _ in 0..n {
        let x = g.below(20) as f64 / 4.0;
        let z = g.below(20) as f64 / 2.0;
        let k = g.below(5) as u32;
        let noise = g.below(10) == 0;
        classes[0].push(u32::from(x > 2.0) ^ u32::from(noise));
        classes[1].push(if k < 2 {
            0
        } else if z > 5.0 {
            1
        } else {
            2
        });
        classes[2].push((g.below(4) as u32 + u32::from(x > 3.0) * 2) % 4);
        values[0].push(x * 2.0 + f64::from(k) + g.below(100) as f64 / 100.0);
        values[1].push(z - x + g.below(100) as f64 / 50.0);
        a.push(if g.below(10) == 0 { f64::NAN } else { x });
        b.push(if g.below(10) == 0 { f64::NAN } else { z });
        c.push(Some(k));
    }
    Data {
        cols: vec![
            OwnedCol::Num(a),
            OwnedCol::Num(b),
            OwnedCol::cat_opt(&c, 5, false),
        ],
        classes,
        values,
    }
}

/// Columns side by side, row-major (output `k` of row `r` at `r * columns.len() + k`).
fn rows<T: Copy>(columns: &[&[T]]) -> Vec<T> {
    let n = columns[0].len();
    (0..n)
        .flat_map(|r| columns.iter().map(move |c| c[r]))
        .collect()
}

fn params(criterion: Criterion, split: CategoricalSplit, missing: MissingStrategy) -> TreeParams {
    TreeParams {
        criterion,
        categorical_split: split,
        missing,
        min_samples_leaf: 3,
        ..TreeParams::default()
    }
}

fn fit(target: &Target<'_>, cols: &[OwnedCol], p: &TreeParams) -> Tree {
    let n = target.len();
    grow(&dataset(cols), target, &vec![1.0; n], p).expect("fit")
}

/// Both trees test the same things in the same places, with impurities `scale` times apart.
fn same_shape(a: &Tree, b: &Tree, scale: f64, what: &str) {
    assert_eq!(a.n_nodes(), b.n_nodes(), "{what}: nodes");
    for i in 0..a.n_nodes() as u32 {
        let node = NodeId(i);
        assert_eq!(a.kind(node), b.kind(node), "{what}: node {i}");
        assert_eq!(a.weight(node), b.weight(node), "{what}: node {i} weight");
        let (x, y) = (a.impurity(node), b.impurity(node) * scale);
        assert!(
            (x - y).abs() <= 1e-12 * x.abs().max(1.0),
            "{what}: node {i} {x} {y}"
        );
    }
}

#[test]
fn identical_outputs_grow_the_single_output_tree() {
    let splits = [CategoricalSplit::Binary, CategoricalSplit::Multiway];
    let strategies = [
        MissingStrategy::Fractional,
        MissingStrategy::Learned,
        MissingStrategy::Surrogate,
    ];
    for seed in 1..=6u64 {
        let d = data(seed);
        let y = &d.classes[1];
        let twice = rows(&[y, y]);
        let single = Target::Classes {
            codes: y,
            n_classes: 3,
        };
        let double = Target::MultiClasses {
            codes: &twice,
            n_classes: &[3, 3],
        };
        for criterion in [Criterion::Gini, Criterion::Entropy] {
            let split = splits[seed as usize % 2];
            let missing = strategies[seed as usize % 3];
            let p = params(criterion, split, missing);
            let one = fit(&single, &d.cols, &p);
            let two = fit(&double, &d.cols, &p);
            let what = format!("seed {seed}, {criterion:?}, {split:?}, {missing:?}");
            same_shape(&one, &two, 1.0, &what);
            assert_eq!(two.n_outputs(), 2);
            for i in 0..one.n_nodes() as u32 {
                let node = NodeId(i);
                let v = one.value(node);
                assert_eq!(two.value(node), [v, v].concat(), "{what}: node {i}");
                let l = one.label(node);
                assert_eq!(two.labels(node), [l, l], "{what}: node {i}");
            }
        }
    }
}

#[test]
fn a_constant_output_halves_the_impurities_and_changes_no_split() {
    for seed in 1..=6u64 {
        let d = data(seed);
        let y = &d.classes[2];
        let constant = vec![0u32; y.len()];
        let with_constant = rows(&[y, &constant]);
        let p = params(
            Criterion::Gini,
            CategoricalSplit::Binary,
            MissingStrategy::Learned,
        );
        let one = fit(
            &Target::Classes {
                codes: y,
                n_classes: 4,
            },
            &d.cols,
            &p,
        );
        let two = fit(
            &Target::MultiClasses {
                codes: &with_constant,
                n_classes: &[4, 1],
            },
            &d.cols,
            &p,
        );
        same_shape(&one, &two, 2.0, &format!("seed {seed}"));
    }
}

#[test]
fn every_output_gets_its_prediction() {
    let d = data(3);
    let codes = rows(&[&d.classes[0], &d.classes[1], &d.classes[2]]);
    let classes = Target::MultiClasses {
        codes: &codes,
        n_classes: &[2, 3, 4],
    };
    let p = TreeParams {
        max_depth: Some(4),
        ..params(
            Criterion::Entropy,
            CategoricalSplit::Binary,
            MissingStrategy::Fractional,
        )
    };
    let tree = fit(&classes, &d.cols, &p);
    let data = dataset(&d.cols);
    let n = d.classes[0].len();
    assert_eq!(tree.output_classes(), [2, 3, 4]);
    let proba = tree.predict_proba(&data).unwrap();
    assert_eq!(proba.len(), n * 9);
    let predicted = tree.predict_class(&data).unwrap();
    assert_eq!(predicted.len(), n * 3);
    for (row, p) in proba.chunks(9).enumerate() {
        // Each output's probabilities sum to 1 (rows missing x are spread over leaves), and
        // its class is its most probable one.
        for (k, (start, len)) in [(0, 2), (2, 3), (5, 4)].into_iter().enumerate() {
            let block = &p[start..start + len];
            assert!((block.iter().sum::<f64>() - 1.0).abs() < 1e-12, "row {row}");
            let class = predicted[row * 3 + k] as usize;
            assert!(
                block.iter().all(|&q| q <= block[class] + 1e-12),
                "row {row}"
            );
        }
    }
    // Real outputs: each leaf predicts each output's mean over the rows that reach it.
    let values = rows(&[&d.values[0], &d.values[1]]);
    let target = Target::MultiValues {
        values: &values,
        n_outputs: 2,
    };
    let p = TreeParams {
        max_depth: Some(3),
        ..params(
            Criterion::SquaredError,
            CategoricalSplit::Binary,
            MissingStrategy::Learned,
        )
    };
    let tree = fit(&target, &d.cols, &p);
    let leaves = tree.apply(&data).unwrap();
    let predicted = tree.predict_value(&data).unwrap();
    for leaf in 0..tree.n_nodes() as u32 {
        let at: Vec<usize> = (0..n).filter(|&r| leaves[r] == leaf).collect();
        if at.is_empty() {
            continue;
        }
        for k in 0..2 {
            let mean = at.iter().map(|&r| d.values[k][r]).sum::<f64>() / at.len() as f64;
            assert!((tree.value(NodeId(leaf))[k] - mean).abs() < 1e-9);
            assert!(at
                .iter()
                .all(|&r| predicted[r * 2 + k] == tree.value(NodeId(leaf))[k]));
        }
    }
}

#[test]
fn histograms_grow_the_exact_tree_when_bins_hold_every_value() {
    for seed in 1..=4u64 {
        let d = data(seed);
        let codes = rows(&[&d.classes[0], &d.classes[1]]);
        let values = rows(&[&d.values[0], &d.values[1]]);
        let targets = [
            (
                Target::MultiClasses {
                    codes: &codes,
                    n_classes: &[2, 3],
                },
                Criterion::Gini,
            ),
            (
                Target::MultiValues {
                    values: &values,
                    n_outputs: 2,
                },
                Criterion::SquaredError,
            ),
        ];
        for (target, criterion) in &targets {
            let p = params(
                *criterion,
                CategoricalSplit::Binary,
                MissingStrategy::Learned,
            );
            let exact = fit(target, &d.cols, &p);
            let hist = fit(
                target,
                &d.cols,
                &TreeParams {
                    splitter: Splitter::Hist,
                    ..p
                },
            );
            assert_eq!(exact.n_nodes(), hist.n_nodes(), "seed {seed} {criterion:?}");
            for i in 0..exact.n_nodes() as u32 {
                assert_eq!(exact.kind(NodeId(i)), hist.kind(NodeId(i)), "seed {seed}");
            }
        }
    }
}

#[test]
fn rows_of_weight_zero_are_absent() {
    let d = data(5);
    let codes = rows(&[&d.classes[0], &d.classes[2]]);
    let target = Target::MultiClasses {
        codes: &codes,
        n_classes: &[2, 4],
    };
    let p = params(
        Criterion::Gini,
        CategoricalSplit::Binary,
        MissingStrategy::Fractional,
    );
    let n = d.classes[0].len();
    let weights: Vec<f64> = (0..n).map(|r| f64::from(u8::from(r % 7 != 0))).collect();
    let with_zeros = grow(&dataset(&d.cols), &target, &weights, &p).unwrap();
    let kept: Vec<usize> = (0..n).filter(|r| r % 7 != 0).collect();
    let cols: Vec<OwnedCol> = d.cols.iter().map(|c| c.select(&kept)).collect();
    let kept_codes: Vec<u32> = kept
        .iter()
        .flat_map(|&r| [d.classes[0][r], d.classes[2][r]])
        .collect();
    let without = fit(
        &Target::MultiClasses {
            codes: &kept_codes,
            n_classes: &[2, 4],
        },
        &cols,
        &p,
    );
    assert_eq!(with_zeros.to_bytes(), without.to_bytes());
}

#[test]
fn pruning_several_outputs() {
    let d = data(2);
    let codes = rows(&[&d.classes[0], &d.classes[1]]);
    let target = Target::MultiClasses {
        codes: &codes,
        n_classes: &[2, 3],
    };
    let p = params(
        Criterion::Gini,
        CategoricalSplit::Binary,
        MissingStrategy::Fractional,
    );
    let tree = fit(&target, &d.cols, &p);
    let data = dataset(&d.cols);
    let n = d.classes[0].len();
    // Cost-complexity: the root alone at the largest alpha, whose impurity is the root's.
    let path = cost_complexity_path(&tree);
    let last = *path.impurities.last().unwrap();
    assert!((last - tree.impurity(NodeId::ROOT)).abs() < 1e-12);
    // Reduced error on the training rows: the errors add up over the outputs (the root as a
    // leaf misses every row not of its class, in each output), and the accuracy is their
    // mean.
    let (pruned, steps) = reduced_error(&tree, &data, &target, &vec![1.0; n], true).unwrap();
    assert!(pruned.n_nodes() < tree.n_nodes());
    let root = steps.last().unwrap();
    assert_eq!(root.node, NodeId::ROOT);
    let labels = tree.labels(NodeId::ROOT);
    let missed: usize = (0..2)
        .map(|k| {
            codes
                .iter()
                .skip(k)
                .step_by(2)
                .filter(|&&c| c != labels[k])
                .count()
        })
        .sum();
    assert!((root.error_as_leaf - missed as f64).abs() < 1e-9);
    assert!((root.accuracy_after - (1.0 - missed as f64 / (2 * n) as f64)).abs() < 1e-9);
    // C4.5's error estimate is one class variable's.
    match pessimistic(&tree, 0.25, None, false) {
        Err(CoreError::InvalidParameter {
            name: "tree",
            reason,
        }) => {
            assert!(reason.contains("2 outputs"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn collapse_counts_every_outputs_errors() {
    // x = 0..8; output 0 is x >= 4, output 1 is constant. The root's split corrects the 4
    // errors output 0 makes at the root and none of output 1's (there are none): J48's
    // collapse() keeps it. (Reading the node's value as one distribution, [4, 4, 8, 0],
    // would have found no error at the root and collapsed the split.)
    let cols = vec![OwnedCol::Num((0..8).map(f64::from).collect())];
    let codes = rows(&[&[0, 0, 0, 0, 1, 1, 1, 1], &[0; 8]]);
    let target = Target::MultiClasses {
        codes: &codes,
        n_classes: &[2, 2],
    };
    let p = TreeParams {
        max_depth: Some(1),
        ..params(
            Criterion::Entropy,
            CategoricalSplit::Binary,
            MissingStrategy::Fractional,
        )
    };
    let tree = fit(&target, &cols, &p);
    assert_eq!(tree.n_leaves(), 2);
    assert_eq!(collapse(&tree).unwrap().n_leaves(), 2);
}

#[test]
fn what_several_outputs_refuse() {
    let d = data(1);
    let codes = rows(&[&d.classes[0], &d.classes[1]]);
    let target = Target::MultiClasses {
        codes: &codes,
        n_classes: &[2, 3],
    };
    let base = params(
        Criterion::Gini,
        CategoricalSplit::Binary,
        MissingStrategy::Fractional,
    );
    let refused = |p: TreeParams, name: &str| {
        let n = d.classes[0].len();
        match grow(&dataset(&d.cols), &target, &vec![1.0; n], &p) {
            Err(CoreError::InvalidParameter { name: got, reason }) => {
                assert_eq!(got, name, "{reason}");
                assert!(reason.contains("2 outputs"), "{reason}");
            }
            other => panic!("{name}: {other:?}"),
        }
    };
    for criterion in [
        Criterion::Twoing,
        Criterion::LikelihoodRatio,
        Criterion::Distance,
    ] {
        refused(
            TreeParams {
                criterion,
                ..base.clone()
            },
            "criterion",
        );
    }
    refused(
        TreeParams {
            cost_matrix: Some(vec![0.0, 1.0, 1.0, 0.0]),
            ..base.clone()
        },
        "cost_matrix",
    );
    refused(
        TreeParams {
            max_p_value: Some(0.05),
            ..base.clone()
        },
        "max_p_value",
    );
    refused(
        TreeParams {
            oblique: true,
            ..base.clone()
        },
        "oblique",
    );
    refused(
        TreeParams {
            missing: MissingStrategy::ClassMajority,
            ..base.clone()
        },
        "missing",
    );
    // Targets: one output in a multi-output target, codes beyond an output's classes, cells
    // that do not fill whole rows.
    let data = dataset(&d.cols);
    let n = d.classes[0].len();
    let one = Target::MultiClasses {
        codes: &d.classes[0],
        n_classes: &[2],
    };
    assert!(matches!(
        grow(&data, &one, &vec![1.0; n], &base),
        Err(CoreError::InvalidParameter { name: "y", .. })
    ));
    let mut bad = codes.clone();
    bad[2 * 7 + 1] = 3; // row 7, output 1 has 3 classes
    let out_of_range = Target::MultiClasses {
        codes: &bad,
        n_classes: &[2, 3],
    };
    assert_eq!(
        grow(&data, &out_of_range, &vec![1.0; n], &base).unwrap_err(),
        CoreError::ClassOutOfRange {
            row: 7,
            code: 3,
            n_classes: 3
        }
    );
    let short = Target::MultiValues {
        values: &d.values[0][..n - 1],
        n_outputs: 2,
    };
    assert!(matches!(
        grow(
            &data,
            &short,
            &vec![1.0; n],
            &params(
                Criterion::SquaredError,
                CategoricalSplit::Binary,
                MissingStrategy::Fractional
            )
        ),
        Err(CoreError::ShapeMismatch { .. })
    ));
}
