//! Float32 columns read in place grow, byte for byte, the trees their float64 copies grow: a
//! float32 converts to float64 exactly, so every sort, bin, threshold and midpoint sees the
//! same numbers. Checked over criteria, splitters, missing-value strategies, weights (zeros
//! among them), J48's conventions, optimal trees and pruning, for contiguous columns and for
//! columns of a row-major matrix read in place (strided).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::Rng;

use quercus_core::{
    grow, grow_optimal, CategoricalColumn, Column, Control, Conventions, Criterion, Dataset,
    MissingStrategy, Numbers, Sample, Splitter, Strided, Target, TreeParams,
};

const ROWS: usize = 600;
const FEATURES: usize = 4;

/// Row-major float32 cells: a smooth feature, a coarse one full of ties, one with −0.0 and
/// +0.0 and one with tiny differences float32 still tells apart; about 8% missing (NaN).
/// Classes and regression targets depend on the first two features, with noise.
struct Data {
    cells: Vec<f32>,
    classes: Vec<u32>,
    values: Vec<f64>,
    codes: Vec<u32>,
}

fn data(seed: u64) -> Data {
    let mut rng = Rng(seed);
    let mut cells = Vec::with_capacity(ROWS * FEATURES);
    let (mut classes, mut values, mut codes) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROWS {
        let a = (rng.unit() * 10.0 - 5.0) as f32;
        let b = (rng.unit() * 8.0).floor() as f32 * 0.25;
        let c = if rng.unit() < 0.5 { -0.0 } else { 0.0 } + (rng.unit() * 3.0).floor() as f32;
        let d = 1.0 + (rng.unit() * 64.0).floor() as f32 * f32::EPSILON;
        let row = [a, b, c, d].map(|x| if rng.unit() < 0.08 { f32::NAN } else { x });
        cells.extend(row);
        let score = f64::from(a) + 2.0 * f64::from(b) + rng.unit() * 3.0;
        classes.push(u32::from(score > 2.0) + u32::from(score > 5.0));
        values.push(score * 1.5 + 10.0); // positive, for the Poisson deviance
        codes.push((rng.next() % 3) as u32);
    }
    Data {
        cells,
        classes,
        values,
        codes,
    }
}

/// The same cells as float64, float32, and both read in place from the row-major matrix.
#[derive(Clone, Copy, Debug)]
enum Layout {
    F64,
    F32,
    F64Strided,
    F32Strided,
}

const LAYOUTS: [Layout; 4] = [
    Layout::F64,
    Layout::F32,
    Layout::F64Strided,
    Layout::F32Strided,
];

/// Grows with `grow_tree` on `d` laid out as `layout` (plus one categorical column), and
/// returns the model's bytes.
fn fit_bytes(
    d: &Data,
    layout: Layout,
    regression: bool,
    weights: &[f64],
    grow_tree: impl Fn(&Sample<'_, '_>) -> quercus_core::Result<quercus_core::Tree>,
) -> Result<Vec<u8>, String> {
    let wide: Vec<f64> = d.cells.iter().map(|&x| f64::from(x)).collect();
    let column_f32: Vec<Vec<f32>> = (0..FEATURES)
        .map(|j| d.cells.iter().skip(j).step_by(FEATURES).copied().collect())
        .collect();
    let column_f64: Vec<Vec<f64>> = column_f32
        .iter()
        .map(|c| c.iter().map(|&x| f64::from(x)).collect())
        .collect();
    let mut columns: Vec<Column<'_>> = (0..FEATURES)
        .map(|j| {
            Column::Numeric(match layout {
                Layout::F64 => Numbers::from(column_f64[j].as_slice()),
                Layout::F32 => Numbers::from(column_f32[j].as_slice()),
                Layout::F64Strided => {
                    Numbers::F64(Strided::new(&wide[j..], FEATURES, ROWS).unwrap())
                }
                Layout::F32Strided => {
                    Numbers::F32(Strided::new(&d.cells[j..], FEATURES, ROWS).unwrap())
                }
            })
        })
        .collect();
    columns.push(Column::Categorical(CategoricalColumn {
        codes: &d.codes,
        missing_mask: None,
        n_categories: 3,
        ordered: false,
    }));
    let data = Dataset::new(columns).unwrap();
    let target = if regression {
        Target::Values(&d.values)
    } else {
        Target::Classes {
            codes: &d.classes,
            n_classes: 3,
        }
    };
    grow_tree(&Sample {
        data: &data,
        target: &target,
        weights,
    })
    .map(|tree| tree.to_bytes())
    .map_err(|e| format!("{e:?}"))
}

/// Asserts that every layout grows the float64 layout's tree (or fails as it does, for a
/// combination of parameters the core refuses); returns whether it grew one.
fn same_trees(what: &str, params: &TreeParams, weights: &[f64], regression: bool) -> bool {
    let d = data(7);
    let grow_tree = |s: &Sample<'_, '_>| grow(s.data, s.target, s.weights, params);
    let reference = fit_bytes(&d, Layout::F64, regression, weights, grow_tree);
    for layout in LAYOUTS {
        let bytes = fit_bytes(&d, layout, regression, weights, grow_tree);
        assert!(bytes == reference, "{what}: {layout:?} grew another tree");
    }
    reference.is_ok()
}

fn weight_sets() -> Vec<(&'static str, Vec<f64>)> {
    let mut rng = Rng(3);
    let random: Vec<f64> = (0..ROWS).map(|_| 0.25 + rng.unit() * 2.0).collect();
    // Weights of 0 drop their rows (a copy of the kept rows, in the column's own type).
    let zeros: Vec<f64> = (0..ROWS).map(|r| f64::from(u8::from(r % 5 != 0))).collect();
    vec![
        ("unit", vec![1.0; ROWS]),
        ("random", random),
        ("zeros", zeros),
    ]
}

#[test]
fn classification_trees_are_the_float64_ones() {
    let criteria = [Criterion::Gini, Criterion::Entropy, Criterion::GainRatio];
    let splitters = [Splitter::Exact, Splitter::Hist, Splitter::Random];
    let missing = [
        MissingStrategy::Fractional,
        MissingStrategy::MajorityBranch,
        MissingStrategy::ClassMajority,
        MissingStrategy::Separate,
        MissingStrategy::Learned,
        MissingStrategy::Surrogate,
    ];
    let mut grown = 0;
    for (name, weights) in weight_sets() {
        for criterion in criteria {
            for splitter in splitters {
                for strategy in missing {
                    let params = TreeParams {
                        criterion,
                        splitter,
                        missing: strategy,
                        max_depth: Some(6),
                        max_bins: 32,
                        ..TreeParams::default()
                    };
                    let what = format!("{name} {criterion:?} {splitter:?} {strategy:?}");
                    grown += usize::from(same_trees(&what, &params, &weights, false));
                }
            }
        }
    }
    // Only class majority's fills refuse the histogram search.
    assert_eq!(grown, 3 * 3 * (3 * 6 - 1));
}

#[test]
fn regression_trees_are_the_float64_ones() {
    let criteria = [
        Criterion::SquaredError,
        Criterion::FriedmanMse,
        Criterion::AbsoluteError,
        Criterion::Poisson,
    ];
    let mut grown = 0;
    for (name, weights) in weight_sets() {
        for criterion in criteria {
            for splitter in [Splitter::Exact, Splitter::Hist, Splitter::Random] {
                for strategy in [
                    MissingStrategy::Fractional,
                    MissingStrategy::Learned,
                    MissingStrategy::Surrogate,
                ] {
                    let params = TreeParams {
                        criterion,
                        splitter,
                        missing: strategy,
                        max_depth: Some(5),
                        ..TreeParams::default()
                    };
                    let what = format!("{name} {criterion:?} {splitter:?} {strategy:?}");
                    grown += usize::from(same_trees(&what, &params, &weights, true));
                }
            }
        }
    }
    assert_eq!(grown, 3 * 4 * 3 * 3);
}

#[test]
fn j48_oblique_and_limited_trees_are_the_float64_ones() {
    let weights = vec![1.0; ROWS];
    let j48 = TreeParams {
        criterion: Criterion::GainRatio,
        conventions: Conventions::J48,
        min_objects: 2.0,
        ..TreeParams::default()
    };
    assert!(same_trees("J48", &j48, &weights, false));
    let oblique = TreeParams {
        oblique: true,
        max_depth: Some(4),
        ..TreeParams::default()
    };
    assert!(same_trees("oblique", &oblique, &weights, false));
    let limited = TreeParams {
        max_leaf_nodes: Some(12),
        max_features: Some(2),
        random_state: 5,
        criterion: Criterion::SquaredError,
        monotonic_cst: Some(vec![1, 0, 0, 0, 0]),
        ..TreeParams::default()
    };
    let what = "best-first, max_features, monotonic";
    assert!(same_trees(what, &limited, &weights, true));
}

#[test]
fn optimal_trees_are_the_float64_ones() {
    let d = data(11);
    let weights = vec![1.0; ROWS];
    let params = TreeParams {
        criterion: Criterion::Misclassification,
        missing: MissingStrategy::Learned,
        max_depth: Some(2),
        max_bins: 8,
        ..TreeParams::default()
    };
    let grow_tree = |s: &Sample<'_, '_>| grow_optimal(s, &params, 0.0, &Control::new());
    let reference = fit_bytes(&d, Layout::F64, false, &weights, grow_tree);
    for layout in LAYOUTS {
        let bytes = fit_bytes(&d, layout, false, &weights, grow_tree);
        assert!(bytes == reference, "optimal: {layout:?} grew another tree");
    }
    assert!(reference.is_ok(), "{:?}", reference.err());
}

#[test]
fn strided_views_check_their_bounds() {
    let cells = [1.0f32, 2.0, 3.0, 4.0, 5.0];
    assert!(Strided::new(&cells[..], 2, 3).is_some());
    assert!(Strided::new(&cells[..], 2, 4).is_none());
    assert!(Strided::new(&cells[..], 0, 2).is_none());
    let view = Strided::new(&cells[1..], 2, 2).unwrap();
    assert_eq!(view.iter().collect::<Vec<_>>(), vec![2.0, 4.0]);
    assert_eq!(view.get(2), None);
}
