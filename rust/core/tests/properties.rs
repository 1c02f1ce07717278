//! Invariants of growth and prediction on random small data sets mixing numeric, categorical
//! and ordered features with about 10% missing cells, for 2-3 classes and for regression,
//! under every missing-value strategy and both threshold searches.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{close, dataset, OwnedCol};
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestCaseError};
use quercus_core::{
    grow, CategoricalSplit, Criterion, MissingStrategy, NodeId, NodeKind, Splitter, Target, Tree,
    TreeParams,
};

const TOL: f64 = 1e-9;

#[derive(Debug, Clone)]
enum Feat {
    Num(Vec<Option<f64>>),
    Cat {
        k: u32,
        codes: Vec<Option<u32>>,
        ordered: bool,
    },
}

impl Feat {
    fn owned(&self) -> OwnedCol {
        match self {
            Feat::Num(v) => OwnedCol::Num(v.iter().map(|x| x.unwrap_or(f64::NAN)).collect()),
            Feat::Cat { k, codes, ordered } => OwnedCol::cat_opt(codes, *k, *ordered),
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    feats: Vec<Feat>,
    n_classes: usize,
    classes: Vec<u32>,
    values: Vec<f64>,
    /// `None` for regression (squared error).
    criterion: Option<Criterion>,
    split: CategoricalSplit,
    missing: MissingStrategy,
    splitter: Splitter,
    /// A row to duplicate / probe.
    pick: usize,
    /// Sort keys of a random permutation (the first `n` are used).
    perm_keys: Vec<u64>,
}

impl Case {
    fn n(&self) -> usize {
        self.classes.len()
    }

    fn cols(&self) -> Vec<OwnedCol> {
        self.feats.iter().map(Feat::owned).collect()
    }

    fn params(&self) -> TreeParams {
        TreeParams::new(
            self.criterion.unwrap_or(Criterion::SquaredError),
            self.split,
            None,
            2,
            1,
            12,
        )
        .map(|p| TreeParams {
            missing: self.missing,
            splitter: self.splitter,
            ..p
        })
        .unwrap()
    }

    fn regression(&self) -> bool {
        self.criterion.is_none()
    }

    /// Fits on the rows `rows` (in that order, repeats allowed) with weights `w`.
    fn fit_rows(&self, rows: &[usize], w: &[f64]) -> Tree {
        let cols: Vec<OwnedCol> = self.cols().iter().map(|c| c.select(rows)).collect();
        self.fit_cols(&cols, rows, w)
    }

    fn fit_cols(&self, cols: &[OwnedCol], rows: &[usize], w: &[f64]) -> Tree {
        let data = dataset(cols);
        if self.regression() {
            let y: Vec<f64> = rows.iter().map(|&r| self.values[r]).collect();
            grow(&data, &Target::Values(&y), w, &self.params()).unwrap()
        } else {
            let y: Vec<u32> = rows.iter().map(|&r| self.classes[r]).collect();
            let t = Target::Classes {
                codes: &y,
                n_classes: self.n_classes,
            };
            grow(&data, &t, w, &self.params()).unwrap()
        }
    }

    fn all_rows(&self) -> Vec<usize> {
        (0..self.n()).collect()
    }
}

/// Predictions as one flat vector: probabilities (row-major) or regression values.
fn predict(tree: &Tree, cols: &[OwnedCol]) -> Vec<f64> {
    let data = dataset(cols);
    if tree.is_regression() {
        tree.predict_value(&data).unwrap()
    } else {
        tree.predict_proba(&data).unwrap()
    }
}

fn assert_close_vecs(a: &[f64], b: &[f64], what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        prop_assert!(close(*x, *y, TOL), "{}: entry {}: {} vs {}", what, i, x, y);
    }
    Ok(())
}

fn same_tree(a: &Tree, b: &Tree) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.n_nodes(), b.n_nodes());
    for i in 0..a.n_nodes() as u32 {
        let node = NodeId(i);
        match (a.kind(node), b.kind(node)) {
            // Class-majority fills are weighted means, summed in row order: their last bits,
            // and so thresholds next to them, may move with it.
            (
                NodeKind::Numeric {
                    feature: fa,
                    threshold: ta,
                },
                NodeKind::Numeric {
                    feature: fb,
                    threshold: tb,
                },
            ) => {
                prop_assert_eq!(fa, fb, "feature of node {}", i);
                prop_assert!(
                    ta == tb || close(ta, tb, TOL),
                    "threshold of node {}: {} vs {}",
                    i,
                    ta,
                    tb
                );
            }
            (ka, kb) => prop_assert_eq!(ka, kb, "kind of node {}", i),
        }
        prop_assert!(
            close(a.weight(node), b.weight(node), TOL),
            "weight of {}",
            i
        );
        prop_assert!(
            close(a.branch_fraction(node), b.branch_fraction(node), TOL),
            "fraction of {}",
            i
        );
        assert_close_vecs(a.value(node), b.value(node), &format!("value of node {i}"))?;
        if !a.is_regression() {
            prop_assert_eq!(a.label(node), b.label(node), "label of {}", i);
        }
    }
    Ok(())
}

fn feature(n: usize) -> impl Strategy<Value = Feat> {
    let grid = (0i32..24).prop_map(|v| f64::from(v) * 0.25);
    let real = -10.0f64..10.0;
    prop_oneof![
        prop_oneof![
            prop::collection::vec(prop::option::weighted(0.9, grid), n),
            prop::collection::vec(prop::option::weighted(0.9, real), n),
        ]
        .prop_map(Feat::Num),
        (2u32..=5, any::<bool>()).prop_flat_map(move |(k, ordered)| {
            prop::collection::vec(prop::option::weighted(0.9, 0..k), n)
                .prop_map(move |codes| Feat::Cat { k, codes, ordered })
        }),
    ]
}

/// Classification with any criterion, or regression.
fn case() -> impl Strategy<Value = Case> {
    case_with(prop_oneof![
        Just(Some(Criterion::Entropy)),
        Just(Some(Criterion::GainRatio)),
        Just(Some(Criterion::Gini)),
        Just(Some(Criterion::Misclassification)),
        Just(None),
    ])
}

/// Classification only.
fn class_case() -> impl Strategy<Value = Case> {
    case_with(prop_oneof![
        Just(Some(Criterion::Entropy)),
        Just(Some(Criterion::GainRatio)),
        Just(Some(Criterion::Gini)),
        Just(Some(Criterion::Misclassification)),
    ])
}

fn case_with(criterion: impl Strategy<Value = Option<Criterion>>) -> impl Strategy<Value = Case> {
    // Regression targets: real values, or a few levels so that pure nodes occur.
    let values = |n: usize| {
        prop_oneof![
            prop::collection::vec(-5.0f64..5.0, n),
            prop::collection::vec((0i32..3).prop_map(|v| f64::from(v) * 1.5 - 0.7), n),
        ]
    };
    let split = prop_oneof![
        Just(CategoricalSplit::Multiway),
        Just(CategoricalSplit::Binary)
    ];
    // Class majority fills values per node, so it searches exactly.
    let missing = prop_oneof![
        Just((MissingStrategy::Fractional, Splitter::Exact)),
        Just((MissingStrategy::Fractional, Splitter::Hist)),
        Just((MissingStrategy::MajorityBranch, Splitter::Exact)),
        Just((MissingStrategy::MajorityBranch, Splitter::Hist)),
        Just((MissingStrategy::ClassMajority, Splitter::Exact)),
        Just((MissingStrategy::Separate, Splitter::Exact)),
        Just((MissingStrategy::Separate, Splitter::Hist)),
        Just((MissingStrategy::Learned, Splitter::Exact)),
        Just((MissingStrategy::Learned, Splitter::Hist)),
        Just((MissingStrategy::Surrogate, Splitter::Exact)),
        Just((MissingStrategy::Surrogate, Splitter::Hist)),
    ];
    (
        10usize..=60,
        1usize..=4,
        2usize..=3,
        criterion,
        split,
        missing,
    )
        .prop_flat_map(move |(n, p, c, criterion, split, (missing, splitter))| {
            (
                prop::collection::vec(feature(n), p),
                prop::collection::vec(0..c as u32, n),
                values(n),
                0..n,
                prop::collection::vec(any::<u64>(), n),
            )
                .prop_map(move |(feats, classes, values, pick, perm_keys)| Case {
                    feats,
                    n_classes: c,
                    classes,
                    values,
                    criterion,
                    split,
                    missing,
                    splitter,
                    pick,
                    perm_keys,
                })
        })
}

/// Multiway only, C4.5's fractions: the feature tested at a node is never tested again below
/// it, and a row missing it follows every branch.
fn multiway_case() -> impl Strategy<Value = Case> {
    case().prop_map(|mut c| {
        c.split = CategoricalSplit::Multiway;
        c.missing = MissingStrategy::Fractional;
        c
    })
}

/// 64 cases from a fixed seed, so that a run is reproducible; `PROPTEST_CASES` and
/// `PROPTEST_RNG_SEED` override both.
fn config() -> ProptestConfig {
    let base = ProptestConfig::default();
    ProptestConfig {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            base.cases
        } else {
            64
        },
        rng_seed: match base.rng_seed {
            RngSeed::Random => RngSeed::Fixed(0x0051_ECC5_2025),
            fixed => fixed,
        },
        failure_persistence: None,
        ..base
    }
}

proptest! {
    #![proptest_config(config())]

    /// A row given twice is the same as that row once with weight 2.
    #[test]
    fn duplicated_row_equals_weight_two(case in case()) {
        let n = case.n();
        let mut rows = case.all_rows();
        rows.push(case.pick);
        let dup = case.fit_rows(&rows, &vec![1.0; n + 1]);
        let mut w = vec![1.0; n];
        w[case.pick] = 2.0;
        let weighted = case.fit_rows(&case.all_rows(), &w);
        let cols = case.cols();
        assert_close_vecs(&predict(&dup, &cols), &predict(&weighted, &cols), "predictions")?;
        prop_assert!(close(dup.weight(NodeId::ROOT), weighted.weight(NodeId::ROOT), TOL));
    }

    /// A row of weight 0 is absent: the same tree, byte for byte, as without it.
    #[test]
    fn zero_weight_is_an_absent_row(case in case(), drop in prop::collection::vec(any::<bool>(), 60)) {
        let n = case.n();
        let kept: Vec<usize> = (0..n).filter(|&r| !drop[r]).collect();
        prop_assume!(!kept.is_empty());
        let w: Vec<f64> = (0..n).map(|r| if drop[r] { 0.0 } else { 1.0 + (r % 3) as f64 }).collect();
        let with_zeros = case.fit_rows(&case.all_rows(), &w);
        let kept_w: Vec<f64> = kept.iter().map(|&r| w[r]).collect();
        let without = case.fit_rows(&kept, &kept_w);
        prop_assert_eq!(with_zeros.to_bytes(), without.to_bytes());
    }

    /// The order of the rows does not matter: the same tree, node by node.
    #[test]
    fn permuting_rows_gives_the_same_tree(case in case()) {
        let mut perm = case.all_rows();
        perm.sort_by_key(|&i| (case.perm_keys[i], i));
        let original = case.fit_rows(&case.all_rows(), &vec![1.0; case.n()]);
        let permuted = case.fit_rows(&perm, &vec![1.0; case.n()]);
        same_tree(&original, &permuted)?;
    }

    /// A strictly increasing transform of the numeric columns changes thresholds only.
    #[test]
    fn monotone_transform_of_numeric_columns(case in case(), cube in any::<bool>()) {
        // Class-majority fills are means, which a non-linear transform does not commute with;
        // a surrogate's midpoint threshold routes the rows missing the primary feature whose
        // surrogate value lies between the two values it separates, and a non-linear
        // transform moves the midpoint past some of them.
        prop_assume!(
            case.missing != MissingStrategy::ClassMajority
                && !(cube && case.missing == MissingStrategy::Surrogate)
        );
        let f = |x: f64| if cube { x * x * x } else { 3.0 * x + 1.0 };
        let cols = case.cols();
        let moved: Vec<OwnedCol> = cols
            .iter()
            .map(|c| match c {
                OwnedCol::Num(v) => OwnedCol::Num(v.iter().map(|&x| f(x)).collect()),
                other => other.clone(),
            })
            .collect();
        let w = vec![1.0; case.n()];
        let a = case.fit_cols(&cols, &case.all_rows(), &w);
        let b = case.fit_cols(&moved, &case.all_rows(), &w);
        prop_assert_eq!(a.n_nodes(), b.n_nodes());
        for i in 0..a.n_nodes() as u32 {
            let node = NodeId(i);
            match (a.kind(node), b.kind(node)) {
                (NodeKind::Numeric { feature: fa, .. }, NodeKind::Numeric { feature: fb, .. }) => {
                    prop_assert_eq!(fa, fb)
                }
                (ka, kb) => prop_assert_eq!(ka, kb),
            }
        }
        assert_close_vecs(&predict(&a, &cols), &predict(&b, &moved), "predictions")?;
    }

    /// Class probabilities are a distribution, and the predicted class is a most probable one.
    #[test]
    fn probabilities_sum_to_one(case in class_case()) {
        let tree = case.fit_rows(&case.all_rows(), &vec![1.0; case.n()]);
        let cols = case.cols();
        let data = dataset(&cols);
        let proba = tree.predict_proba(&data).unwrap();
        let class = tree.predict_class(&data).unwrap();
        let leaves = tree.apply(&data).unwrap();
        let k = case.n_classes;
        for (row, p) in proba.chunks(k).enumerate() {
            let total: f64 = p.iter().sum();
            prop_assert!((total - 1.0).abs() < TOL, "row {} sums to {}", row, total);
            prop_assert!(p.iter().all(|&x| (0.0..=1.0 + TOL).contains(&x)));
            let max = p.iter().copied().fold(0.0, f64::max);
            prop_assert!(p[class[row] as usize] >= max - TOL, "row {}: class {} not most probable", row, class[row]);
            // A leaf, or under rpart's surrogates a split that keeps the rows it cannot send.
            let at = NodeId(leaves[row]);
            prop_assert!(tree.kind(at) == NodeKind::Leaf || tree.keeps_unsent(at));
        }
    }

    /// Every split conserves weight: the children's weights add up to the node's (less, under
    /// rpart's surrogates, rows missing the tested value that a split without a direction
    /// kept), and the branch fractions of a node's children add up to 1.
    #[test]
    fn children_weights_add_up(case in case()) {
        let tree = case.fit_rows(&case.all_rows(), &vec![1.0; case.n()]);
        prop_assert!(close(tree.weight(NodeId::ROOT), case.n() as f64, TOL));
        for i in 0..tree.n_nodes() as u32 {
            let node = NodeId(i);
            let kids: Vec<NodeId> = tree.children(node).collect();
            if kids.is_empty() {
                prop_assert_eq!(tree.kind(node), NodeKind::Leaf);
                continue;
            }
            let w: f64 = kids.iter().map(|&k| tree.weight(k)).sum();
            if case.missing == MissingStrategy::Surrogate {
                // The fit keeps a row no surrogate sends where the split has no majority side
                // (predict.rpart may still send it on: `keeps_unsent` is the stored tree's).
                let least = tree.weight(node) - tree.missing_weight(node);
                prop_assert!(w <= tree.weight(node) * (1.0 + TOL), "node {}: {} vs {}", i, w, tree.weight(node));
                prop_assert!(w >= least - TOL * tree.weight(node), "node {}: {} vs {}", i, w, least);
            } else {
                prop_assert!(close(w, tree.weight(node), TOL), "node {}: {} vs {}", i, w, tree.weight(node));
            }
            let f: f64 = kids.iter().map(|&k| tree.branch_fraction(k)).sum();
            prop_assert!(close(f, 1.0, TOL), "node {}: fractions sum to {}", i, f);
            for &k in &kids {
                prop_assert_eq!(tree.parent(k), Some(node));
                prop_assert_eq!(tree.depth(k), tree.depth(node) + 1);
            }
        }
    }

    /// A row missing a multiway-split categorical value is predicted as the branch-fraction
    /// mix of the same row with each category filled in (the feature is tested at most once
    /// on a path, and the row's other values are known, so the walk is otherwise fixed).
    #[test]
    fn missing_value_prediction_is_the_branch_fraction_mix(case in multiway_case()) {
        let cols = case.cols();
        let tree = case.fit_rows(&case.all_rows(), &vec![1.0; case.n()]);
        let row = case.pick;
        for (f, feat) in case.feats.iter().enumerate() {
            let Feat::Cat { k, .. } = feat else { continue };
            let k = *k;
            // The probe row: the picked row with its other missing cells filled (0 / code 0).
            let base: Vec<OwnedCol> = cols
                .iter()
                .map(|c| match c.select(&[row]) {
                    OwnedCol::Num(v) => OwnedCol::Num(vec![if v[0].is_nan() { 0.0 } else { v[0] }]),
                    OwnedCol::Cat { codes, missing, n_categories, ordered } => OwnedCol::Cat {
                        codes: vec![if missing[0] { 0 } else { codes[0] }],
                        missing: vec![false],
                        n_categories,
                        ordered,
                    },
                })
                .collect();
            // Rows: 0 = feature f missing, 1 + c = feature f set to category c.
            let probes: Vec<OwnedCol> = base
                .iter()
                .enumerate()
                .map(|(j, c)| {
                    let mut c = c.select(&vec![0; 1 + k as usize]);
                    if j == f {
                        if let OwnedCol::Cat { codes, missing, .. } = &mut c {
                            missing[0] = true;
                            for (i, code) in codes.iter_mut().enumerate().skip(1) {
                                *code = i as u32 - 1;
                            }
                        }
                    }
                    c
                })
                .collect();
            let pred = predict(&tree, &probes);
            let width = tree.value_width();
            let at = |r: usize| &pred[r * width..(r + 1) * width];

            // Walk the known values to the first node testing f (or a leaf).
            let mut node = NodeId::ROOT;
            let split_at = loop {
                let kids: Vec<NodeId> = tree.children(node).collect();
                match tree.kind(node) {
                    NodeKind::Leaf => break None,
                    NodeKind::Multiway { feature } if feature == f => break Some(kids),
                    NodeKind::Multiway { feature } => {
                        let OwnedCol::Cat { codes, .. } = &base[feature] else { panic!() };
                        node = kids[codes[0] as usize];
                    }
                    NodeKind::Numeric { feature, threshold } => {
                        let OwnedCol::Num(v) = &base[feature] else { panic!() };
                        node = kids[usize::from(v[0] > threshold)];
                    }
                    other => panic!("multiway growth produced {other:?}"),
                }
            };
            let expected: Vec<f64> = match split_at {
                None => at(1).to_vec(),
                Some(kids) => {
                    prop_assert_eq!(kids.len(), k as usize);
                    let mut mix = vec![0.0; width];
                    for (c, &child) in kids.iter().enumerate() {
                        for (m, p) in mix.iter_mut().zip(at(1 + c)) {
                            *m += tree.branch_fraction(child) * p;
                        }
                    }
                    mix
                }
            };
            assert_close_vecs(at(0), &expected, &format!("row {row} missing feature {f}"))?;
        }
    }
}
