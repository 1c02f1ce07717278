//! scikit-learn's growth parameters: `random_state`, `max_features`, `splitter="random"`,
//! `min_impurity_decrease` and `monotonic_cst`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{dataset, OwnedCol};
use quercus_core::{
    grow, CategoricalSplit, Column, CoreError, Criterion, Dataset, MissingStrategy, NodeId,
    NodeKind, Splitter, Target, Tree, TreeParams,
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

    fn unit(&mut self) -> f64 {
        self.next() as f64 / (1u64 << 31) as f64
    }
}

/// Numeric features (some values missing), one nominal and one ordinal categorical feature;
/// three classes and a real target that depend on them.
struct Data {
    cols: Vec<OwnedCol>,
    classes: Vec<u32>,
    binary: Vec<u32>,
    y: Vec<f64>,
}

fn data(seed: u64, n: usize, nan_rate: f64) -> Data {
    let mut g = Lcg(seed);
    let mut cols = Vec::new();
    let mut raw = Vec::new();
    for _ in 0..4 {
        let v: Vec<f64> = (0..n)
            .map(|_| {
                if g.unit() < nan_rate {
                    f64::NAN
                } else {
                    (g.below(50) as f64) / 10.0
                }
            })
            .collect();
        raw.push(v.clone());
        cols.push(OwnedCol::Num(v));
    }
    let nominal: Vec<Option<u32>> = (0..n).map(|_| Some(g.below(5) as u32)).collect();
    let ordinal: Vec<Option<u32>> = (0..n).map(|_| Some(g.below(4) as u32)).collect();
    cols.push(OwnedCol::cat_opt(&nominal, 5, false));
    cols.push(OwnedCol::cat_opt(&ordinal, 4, true));
    let x = |j: usize, i: usize| {
        let v: f64 = raw[j][i];
        if v.is_nan() {
            2.5
        } else {
            v
        }
    };
    let y: Vec<f64> = (0..n)
        .map(|i| {
            x(0, i) * 2.0 - x(1, i)
                + f64::from(nominal[i].unwrap()) * 0.5
                + f64::from(ordinal[i].unwrap())
                + g.unit() * 3.0
        })
        .collect();
    let classes = y
        .iter()
        .map(|&v| u32::from(v > 4.0) + u32::from(v > 8.0))
        .collect();
    let binary = y.iter().map(|&v| u32::from(v > 6.0)).collect();
    Data {
        cols,
        classes,
        binary,
        y,
    }
}

fn fit(cols: &[OwnedCol], target: &Target<'_>, params: &TreeParams) -> Tree {
    let data = dataset(cols);
    grow(&data, target, &vec![1.0; data.n_rows()], params).unwrap()
}

fn targets(d: &Data) -> [(Target<'_>, Criterion); 2] {
    [
        (
            Target::Classes {
                codes: &d.classes,
                n_classes: 3,
            },
            Criterion::Gini,
        ),
        (Target::Values(&d.y), Criterion::SquaredError),
    ]
}

/// With no randomness asked for, the seed is never read: byte-identical trees whatever it
/// is, with `max_features` covering every feature and `"best"` (= `"auto"`).
#[test]
fn no_randomness_no_change() {
    for seed in 1..6 {
        let d = data(seed, 300, 0.1);
        for (target, criterion) in &targets(&d) {
            for splitter in [Splitter::Exact, Splitter::Hist, Splitter::Auto] {
                let base = TreeParams {
                    criterion: *criterion,
                    splitter,
                    missing: MissingStrategy::Learned,
                    max_depth: Some(6),
                    ..TreeParams::default()
                };
                let reference = fit(&d.cols, target, &base).to_bytes();
                for (max_features, random_state) in [(None, 7), (Some(6), 0), (Some(100), 42)] {
                    let params = TreeParams {
                        max_features,
                        random_state,
                        ..base.clone()
                    };
                    assert_eq!(fit(&d.cols, target, &params).to_bytes(), reference);
                }
            }
        }
    }
    assert_eq!(Splitter::parse("best").unwrap(), Splitter::Auto);
}

/// Random choices depend on the seed alone: the same seed gives the same bytes on 1 thread
/// or 4; different seeds give different trees.
#[test]
fn draws_depend_on_the_seed_only() {
    let d = data(11, 5000, 0.05);
    for (target, criterion) in &targets(&d) {
        for (splitter, max_features) in [
            (Splitter::Exact, Some(2)),
            (Splitter::Hist, Some(3)),
            (Splitter::Random, None),
            (Splitter::Random, Some(1)),
        ] {
            let params = |random_state: u64, n_jobs: usize| TreeParams {
                criterion: *criterion,
                splitter,
                max_features,
                random_state,
                n_jobs: Some(n_jobs),
                max_depth: Some(8),
                ..TreeParams::default()
            };
            let one = fit(&d.cols, target, &params(5, 1)).to_bytes();
            assert_eq!(fit(&d.cols, target, &params(5, 4)).to_bytes(), one);
            assert_eq!(fit(&d.cols, target, &params(5, 1)).to_bytes(), one);
            let others = (6..10)
                .filter(|&s| fit(&d.cols, target, &params(s, 2)).to_bytes() != one)
                .count();
            assert_eq!(others, 4, "{splitter:?} {max_features:?}");
        }
    }
}

/// On several threads an exact fit grows its small nodes' subtrees apart and puts them back
/// in one thread's order (`subtrees.rs`): fully grown trees with missing values, nominal
/// (subset) and ordinal columns, classes and values, the same bytes on 1, 2 and 4 threads.
#[test]
fn subtrees_grown_apart_give_the_same_bytes() {
    let d = data(21, 6000, 0.05);
    for (target, criterion) in &targets(&d) {
        for missing in [MissingStrategy::Learned, MissingStrategy::Surrogate] {
            let params = |n_jobs: usize| TreeParams {
                criterion: *criterion,
                splitter: Splitter::Exact,
                missing,
                n_jobs: Some(n_jobs),
                ..TreeParams::default()
            };
            let one = fit(&d.cols, target, &params(1));
            assert!(one.n_nodes() > 500, "{}", one.n_nodes());
            let one = one.to_bytes();
            for n_jobs in [2, 4] {
                assert_eq!(fit(&d.cols, target, &params(n_jobs)).to_bytes(), one);
            }
        }
    }
}

/// scikit-learn's rule: when the drawn features give no valid split (here: constant ones),
/// further features are searched until one does, so one informative feature among constant
/// ones is always found: the tree is the full search's, to the byte.
#[test]
fn max_features_searches_on_past_features_without_a_split() {
    let mut g = Lcg(3);
    let n = 400;
    let informative: Vec<f64> = (0..n).map(|_| g.below(100) as f64).collect();
    let classes: Vec<u32> = informative
        .iter()
        .map(|&x| u32::from(x > 40.0) ^ u32::from(g.below(10) == 0))
        .collect();
    let mut cols: Vec<OwnedCol> = (0..6).map(|_| OwnedCol::Num(vec![1.5; n])).collect();
    cols[4] = OwnedCol::Num(informative);
    let target = Target::Classes {
        codes: &classes,
        n_classes: 2,
    };
    let full = fit(&cols, &target, &TreeParams::default()).to_bytes();
    for seed in 0..20 {
        let params = TreeParams {
            max_features: Some(1),
            random_state: seed,
            ..TreeParams::default()
        };
        assert_eq!(fit(&cols, &target, &params).to_bytes(), full, "seed {seed}");
    }
}

/// With one feature searched per node, the root's feature is drawn uniformly among the
/// features (each of four 25% of the time).
#[test]
fn max_features_draws_features_uniformly() {
    let d = data(5, 200, 0.0);
    let cols = &d.cols[..4];
    let target = Target::Values(&d.y);
    let mut hits = [0usize; 4];
    let seeds = 800;
    for seed in 0..seeds {
        let params = TreeParams {
            criterion: Criterion::SquaredError,
            max_features: Some(1),
            random_state: seed,
            max_depth: Some(1),
            ..TreeParams::default()
        };
        let tree = fit(cols, &target, &params);
        match tree.kind(NodeId(0)) {
            NodeKind::Numeric { feature, .. } => hits[feature] += 1,
            other => panic!("{other:?}"),
        }
    }
    // 200 expected each, standard deviation 12.
    assert!(hits.iter().all(|&h| (150..250).contains(&h)), "{hits:?}");
}

/// Random thresholds: uniform between the node's least and greatest value, so at the root of
/// a one-feature data set on [0, 99] each quarter of the range holds about a quarter of them.
#[test]
fn random_thresholds_are_uniform_over_the_node_range() {
    let mut g = Lcg(9);
    let n = 300;
    let x: Vec<f64> = (0..n).map(|i| (i % 100) as f64).collect();
    let classes: Vec<u32> = (0..n).map(|_| g.below(2) as u32).collect();
    let cols = vec![OwnedCol::Num(x)];
    let target = Target::Classes {
        codes: &classes,
        n_classes: 2,
    };
    let mut quarters = [0usize; 4];
    let seeds = 800;
    for seed in 0..seeds {
        let params = TreeParams {
            splitter: Splitter::Random,
            random_state: seed,
            max_depth: Some(1),
            ..TreeParams::default()
        };
        let tree = fit(&cols, &target, &params);
        let NodeKind::Numeric { threshold, .. } = tree.kind(NodeId(0)) else {
            panic!("the root must split");
        };
        assert!((0.0..99.0).contains(&threshold), "{threshold}");
        quarters[((threshold / 99.0 * 4.0) as usize).min(3)] += 1;
    }
    assert!(
        quarters.iter().all(|&q| (150..250).contains(&q)),
        "{quarters:?}"
    );
}

/// Every node of a random tree is a valid split of its rows: both sides non-empty (every
/// threshold between the node's least and greatest value), categorical subsets non-trivial,
/// multiway splits by category.
#[test]
fn random_trees_split_every_node_validly() {
    let d = data(21, 600, 0.1);
    for split in [CategoricalSplit::Binary, CategoricalSplit::Multiway] {
        for missing in [
            MissingStrategy::Fractional,
            MissingStrategy::Learned,
            MissingStrategy::Separate,
            MissingStrategy::Surrogate,
            MissingStrategy::ClassMajority,
        ] {
            for (target, criterion) in &targets(&d) {
                let params = TreeParams {
                    criterion: *criterion,
                    categorical_split: split,
                    missing,
                    splitter: Splitter::Random,
                    random_state: 4,
                    ..TreeParams::default()
                };
                let tree = fit(&d.cols, target, &params);
                assert_eq!(tree.splitter().0, Splitter::Random);
                assert!(tree.n_leaves() > 10);
                let mut kinds = [0usize; 4];
                for i in 0..tree.n_nodes() as u32 {
                    let node = NodeId(i);
                    match tree.kind(node) {
                        NodeKind::Leaf => continue,
                        NodeKind::Numeric { .. } => kinds[0] += 1,
                        NodeKind::Subset { sides, .. } => {
                            kinds[1] += 1;
                            use quercus_core::Side;
                            assert!(sides.contains(&Side::Left) && sides.contains(&Side::Right));
                        }
                        NodeKind::Ordered { .. } => kinds[2] += 1,
                        NodeKind::Multiway { .. } => kinds[3] += 1,
                        other => panic!("{other:?}"),
                    }
                    // At least two children received training rows.
                    let fed = tree
                        .children(node)
                        .filter(|&c| tree.weight(c) > 0.0)
                        .count();
                    assert!(fed >= 2, "node {i} of {missing:?}");
                }
                assert!(kinds[0] > 0, "{kinds:?}");
                match split {
                    CategoricalSplit::Binary => assert!(kinds[1] > 0 && kinds[2] > 0, "{kinds:?}"),
                    CategoricalSplit::Multiway => assert!(kinds[3] > 0, "{kinds:?}"),
                }
            }
        }
    }
}

/// scikit-learn's `min_impurity_decrease`: every split keeps N_t/N · (I − Σ N_c/N_t · I_c)
/// >= the value, stricter values give fewer leaves, and 0 changes nothing.
#[test]
fn min_impurity_decrease_is_the_weighted_decrease() {
    let d = data(8, 500, 0.0);
    for (target, criterion) in &targets(&d) {
        let base = TreeParams {
            criterion: *criterion,
            ..TreeParams::default()
        };
        let free = fit(&d.cols, target, &base);
        let mut leaves = free.n_leaves();
        let total = free.weight(NodeId(0));
        for value in [0.001, 0.01, 0.05] {
            let params = TreeParams {
                min_impurity_decrease: value * free.impurity(NodeId(0)),
                ..base.clone()
            };
            let tree = fit(&d.cols, target, &params);
            assert!(tree.n_leaves() <= leaves);
            assert!(tree.n_leaves() < free.n_leaves());
            leaves = tree.n_leaves();
            for i in 0..tree.n_nodes() as u32 {
                let node = NodeId(i);
                if tree.kind(node) == NodeKind::Leaf {
                    continue;
                }
                let w = tree.weight(node);
                let children: f64 = tree
                    .children(node)
                    .map(|c| tree.weight(c) / w * tree.impurity(c))
                    .sum();
                let decrease = w / total * (tree.impurity(node) - children);
                assert!(
                    decrease + 1e-9 >= params.min_impurity_decrease,
                    "{decrease} < {}",
                    params.min_impurity_decrease
                );
            }
        }
        let zero = TreeParams {
            min_impurity_decrease: 0.0,
            ..base.clone()
        };
        assert_eq!(fit(&d.cols, target, &zero).to_bytes(), free.to_bytes());
    }
}

/// Predictions along a constrained feature, the other features held at a training row's
/// values: never against the constraint.
fn assert_monotonic(tree: &Tree, cols: &[OwnedCol], cst: &[i8], regression: bool) {
    let n = cols[0].len();
    for (j, &c) in cst.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let grid: Vec<f64> = match &cols[j] {
            OwnedCol::Num(_) => (0..=50).map(|k| k as f64 / 10.0 - 0.05).collect(),
            _ => (0..4).map(f64::from).collect(),
        };
        for row in (0..n).step_by(7) {
            let probe: Vec<OwnedCol> = cols
                .iter()
                .enumerate()
                .map(|(k, col)| {
                    let rows: Vec<usize> = vec![row; grid.len()];
                    let mut picked = col.select(&rows);
                    if k == j {
                        picked = match picked {
                            OwnedCol::Num(_) => OwnedCol::Num(grid.clone()),
                            OwnedCol::Cat { n_categories, .. } => {
                                let codes: Vec<Option<u32>> =
                                    grid.iter().map(|&g| Some(g as u32)).collect();
                                OwnedCol::cat_opt(&codes, n_categories, true)
                            }
                        };
                    }
                    picked
                })
                .collect();
            let data = dataset(&probe);
            let values: Vec<f64> = if regression {
                tree.predict_value(&data).unwrap()
            } else {
                tree.predict_proba(&data)
                    .unwrap()
                    .chunks(2)
                    .map(|p| p[1])
                    .collect()
            };
            for w in values.windows(2) {
                assert!(
                    (w[1] - w[0]) * f64::from(c) >= -1e-12,
                    "feature {j} ({c}) at row {row}: {values:?}"
                );
            }
        }
    }
}

/// Regression and binary classification under every search, depth- and best-first, with
/// missing values in the free features: predictions follow the constraints, and the
/// constraints bind (the free tree breaks them somewhere).
#[test]
fn monotonic_constraints_hold() {
    let d = data(13, 800, 0.0);
    let mut cols = d.cols.clone();
    // Missing values in a free feature.
    if let OwnedCol::Num(v) = &mut cols[3] {
        for x in v.iter_mut().step_by(9) {
            *x = f64::NAN;
        }
    }
    // Features: 0 up, 1 down, 2 and 3 free, nominal free, ordinal up.
    let cst = vec![1i8, -1, 0, 0, 0, 1];
    let binary = Target::Classes {
        codes: &d.binary,
        n_classes: 2,
    };
    let regression = Target::Values(&d.y);
    for (target, criterion, is_regression) in [
        (&regression, Criterion::SquaredError, true),
        (&binary, Criterion::Gini, false),
        (&binary, Criterion::Entropy, false),
    ] {
        for (splitter, max_leaf_nodes, missing) in [
            (Splitter::Exact, None, MissingStrategy::Fractional),
            (Splitter::Hist, None, MissingStrategy::Learned),
            (Splitter::Random, None, MissingStrategy::Learned),
            (Splitter::Exact, Some(30), MissingStrategy::MajorityBranch),
        ] {
            let params = TreeParams {
                criterion,
                splitter,
                max_leaf_nodes,
                missing,
                monotonic_cst: Some(cst.clone()),
                random_state: 1,
                ..TreeParams::default()
            };
            let tree = fit(&cols, target, &params);
            assert!(tree.n_leaves() > 5);
            assert_monotonic(&tree, &cols, &cst, is_regression);
            if splitter == Splitter::Exact && max_leaf_nodes.is_none() {
                let free = fit(
                    &cols,
                    target,
                    &TreeParams {
                        monotonic_cst: None,
                        ..params.clone()
                    },
                );
                let broken = std::panic::catch_unwind(|| {
                    assert_monotonic(&free, &cols, &cst, is_regression)
                });
                assert!(broken.is_err(), "the constraints should bind");
            }
        }
    }
}

/// Where a constraint cannot hold, the fit refuses it, naming the parameter.
#[test]
fn monotonic_constraints_refused_where_they_cannot_hold() {
    let d = data(2, 100, 0.0);
    let three = Target::Classes {
        codes: &d.classes,
        n_classes: 3,
    };
    let two = Target::Classes {
        codes: &d.binary,
        n_classes: 2,
    };
    let try_fit = |target: &Target<'_>, cst: Vec<i8>, tweak: &dyn Fn(&mut TreeParams)| {
        let mut params = TreeParams {
            monotonic_cst: Some(cst),
            ..TreeParams::default()
        };
        tweak(&mut params);
        let data: Dataset<'_> = dataset(&d.cols);
        match grow(&data, target, &[1.0; 100], &params) {
            Err(CoreError::InvalidParameter { name, reason }) => format!("{name}: {reason}"),
            other => panic!("expected an error, got {:?}", other.map(|t| t.n_nodes())),
        }
    };
    let none = |_: &mut TreeParams| {};
    assert!(try_fit(&three, vec![1, 0, 0, 0, 0, 0], &none).contains("3 classes"));
    assert!(try_fit(&two, vec![1, 0], &none).contains("has 2 entries"));
    assert!(try_fit(&two, vec![0, 0, 0, 0, 1, 0], &none).contains("nominal"));
    let multiway = |p: &mut TreeParams| p.categorical_split = CategoricalSplit::Multiway;
    assert!(try_fit(&two, vec![0, 0, 0, 0, 0, 1], &multiway).contains("multiway"));
    let oblique = |p: &mut TreeParams| p.oblique = true;
    assert!(try_fit(&two, vec![1, 0, 0, 0, 0, 0], &oblique).contains("oblique"));
    let surrogate = |p: &mut TreeParams| p.missing = MissingStrategy::Surrogate;
    assert!(try_fit(&two, vec![1, 0, 0, 0, 0, 0], &surrogate).contains("surrogate"));
    let bad = TreeParams {
        monotonic_cst: Some(vec![2, 0, 0, 0, 0, 0]),
        ..TreeParams::default()
    };
    assert!(matches!(
        bad.validate(),
        Err(CoreError::InvalidParameter {
            name: "monotonic_cst",
            ..
        })
    ));
    // Multi-class with no active constraint is fine.
    let zeros = TreeParams {
        monotonic_cst: Some(vec![0; 6]),
        ..TreeParams::default()
    };
    let data = dataset(&d.cols);
    assert!(grow(&data, &three, &[1.0; 100], &zeros).is_ok());
    // Oblique tests cannot be searched feature by feature.
    let oblique_sampled = TreeParams {
        oblique: true,
        max_features: Some(2),
        ..TreeParams::default()
    };
    assert!(matches!(
        grow(&data, &two, &[1.0; 100], &oblique_sampled),
        Err(CoreError::InvalidParameter { name: "splits", .. })
    ));
    let _ = Column::numeric(&[]);
}
