//! The optimal search against brute force: every tree of the depth enumerated on small random
//! data (numeric columns with ties and missing values, nominal columns, weights, costs,
//! regression, leaf penalties and leaf budgets).

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use super::*;
use crate::data::CategoricalColumn;

/// A small deterministic generator (the tests need no randomness crate).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = crate::test_draws::step(self.0);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One feature's value at a row, for the brute force.
#[derive(Clone, Copy)]
enum Value {
    Number(f64),
    Code(u32),
    Missing,
}

struct Brute<'a> {
    values: Vec<Vec<Value>>,
    labels: Option<&'a [u32]>,
    n_classes: usize,
    y: Option<&'a [f64]>,
    weights: &'a [f64],
    costs: Option<&'a [f64]>,
    alpha: f64,
}

impl Brute<'_> {
    fn leaf(&self, rows: &[usize]) -> f64 {
        let w = |r: usize| self.weights[r];
        let err = match (self.labels, self.y) {
            (Some(labels), _) => {
                let k = self.n_classes;
                (0..k)
                    .map(|j| {
                        rows.iter()
                            .map(|&r| {
                                let c = labels[r] as usize;
                                w(r) * match self.costs {
                                    Some(m) => m[c * k + j],
                                    None => f64::from(u8::from(c != j)),
                                }
                            })
                            .sum::<f64>()
                    })
                    .fold(f64::INFINITY, f64::min)
            }
            (None, Some(y)) => {
                let sw: f64 = rows.iter().map(|&r| w(r)).sum();
                let mean = rows.iter().map(|&r| w(r) * y[r]).sum::<f64>() / sw;
                rows.iter().map(|&r| w(r) * (y[r] - mean).powi(2)).sum()
            }
            _ => unreachable!(),
        };
        err + self.alpha
    }

    /// Every binary partition of `rows` a test can make (both sides non-empty).
    fn partitions(&self, rows: &[usize]) -> Vec<(Vec<usize>, Vec<usize>)> {
        let mut out = Vec::new();
        for column in &self.values {
            let missing: Vec<usize> = rows
                .iter()
                .copied()
                .filter(|&r| matches!(column[r], Value::Missing))
                .collect();
            let numbers: Vec<f64> = rows
                .iter()
                .filter_map(|&r| match column[r] {
                    Value::Number(x) => Some(x),
                    _ => None,
                })
                .collect();
            let codes: Vec<u32> = rows
                .iter()
                .filter_map(|&r| match column[r] {
                    Value::Code(c) => Some(c),
                    _ => None,
                })
                .collect();
            let mut known_left: Vec<Box<dyn Fn(Value) -> bool>> = Vec::new();
            if !numbers.is_empty() {
                let mut distinct = numbers.clone();
                distinct.sort_by(f64::total_cmp);
                distinct.dedup();
                for &t in &distinct[..distinct.len() - 1] {
                    known_left.push(Box::new(move |v| matches!(v, Value::Number(x) if x <= t)));
                }
                known_left.push(Box::new(|v| matches!(v, Value::Number(_))));
            }
            if !codes.is_empty() {
                let mut distinct = codes.clone();
                distinct.sort_unstable();
                distinct.dedup();
                for mask in 0u64..(1 << distinct.len()) {
                    let set: Vec<u32> = distinct
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| mask >> i & 1 == 1)
                        .map(|(_, &c)| c)
                        .collect();
                    known_left.push(Box::new(
                        move |v| matches!(v, Value::Code(c) if set.contains(&c)),
                    ));
                }
            }
            for test in &known_left {
                for missing_left in [false, true] {
                    if missing.is_empty() && missing_left {
                        continue;
                    }
                    let (l, r): (Vec<usize>, Vec<usize>) =
                        rows.iter().partition(|&&r| match column[r] {
                            Value::Missing => missing_left,
                            v => test(v),
                        });
                    if !l.is_empty() && !r.is_empty() {
                        out.push((l, r));
                    }
                }
            }
        }
        out
    }

    /// The optimum over trees of `rows` of depth ≤ `depth` and ≤ `leaves` leaves.
    fn best(&self, rows: &[usize], depth: usize, leaves: usize) -> f64 {
        let leaves = leaves.min(1 << depth);
        let mut best = self.leaf(rows);
        if depth == 0 || leaves < 2 {
            return best;
        }
        for (l, r) in self.partitions(rows) {
            for kl in 1..leaves {
                let cost = self.best(&l, depth - 1, kl) + self.best(&r, depth - 1, leaves - kl);
                best = best.min(cost);
            }
        }
        best
    }
}

/// A random data set: numeric columns (few distinct values, some missing), maybe a nominal
/// and an ordered one; classes or values.
struct Case {
    numeric: Vec<Vec<f64>>,
    codes: Vec<Vec<u32>>,
    absent: Vec<Vec<bool>>,
    ordered: Vec<bool>,
    n_categories: u32,
    labels: Vec<u32>,
    y: Vec<f64>,
    weights: Vec<f64>,
}

fn case(g: &mut Lcg, n: usize, missing: bool, nominal: bool, weighted: bool) -> Case {
    let n_numeric = 1 + g.below(2) as usize;
    let numeric = (0..n_numeric)
        .map(|_| {
            let distinct = 2 + g.below(6);
            (0..n)
                .map(|_| {
                    if missing && g.below(6) == 0 {
                        f64::NAN
                    } else {
                        g.below(distinct) as f64 * 0.5
                    }
                })
                .collect()
        })
        .collect();
    let n_categories = 2 + g.below(3) as u32;
    let (codes, ordered, absent) = if nominal {
        let ordered = g.below(3) == 0;
        (
            vec![(0..n)
                .map(|_| g.below(u64::from(n_categories)) as u32)
                .collect()],
            vec![ordered],
            vec![(0..n).map(|_| missing && g.below(5) == 0).collect()],
        )
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    Case {
        numeric,
        codes,
        absent,
        ordered,
        n_categories,
        labels: (0..n).map(|_| g.below(3) as u32).collect(),
        y: (0..n).map(|_| g.below(20) as f64 / 4.0).collect(),
        weights: (0..n)
            .map(|_| {
                if weighted {
                    0.5 + g.below(4) as f64
                } else {
                    1.0
                }
            })
            .collect(),
    }
}

impl Case {
    fn dataset(&self) -> Dataset<'_> {
        let mut columns: Vec<Column<'_>> =
            self.numeric.iter().map(|v| Column::numeric(v)).collect();
        for ((codes, &ordered), absent) in self.codes.iter().zip(&self.ordered).zip(&self.absent) {
            columns.push(Column::Categorical(CategoricalColumn {
                codes,
                missing_mask: Some(absent),
                n_categories: self.n_categories,
                ordered,
            }));
        }
        Dataset::new(columns).unwrap()
    }

    fn brute<'a>(&'a self, classes: bool, costs: Option<&'a [f64]>, alpha: f64) -> Brute<'a> {
        let mut values: Vec<Vec<Value>> = self
            .numeric
            .iter()
            .map(|v| {
                v.iter()
                    .map(|&x| {
                        if x.is_nan() {
                            Value::Missing
                        } else {
                            Value::Number(x)
                        }
                    })
                    .collect()
            })
            .collect();
        for ((codes, &ordered), absent) in self.codes.iter().zip(&self.ordered).zip(&self.absent) {
            values.push(
                codes
                    .iter()
                    .zip(absent)
                    .map(|(&c, &a)| {
                        if a {
                            Value::Missing
                        } else if ordered {
                            Value::Number(f64::from(c))
                        } else {
                            Value::Code(c)
                        }
                    })
                    .collect(),
            );
        }
        Brute {
            values,
            labels: classes.then_some(&self.labels[..]),
            n_classes: 3,
            y: (!classes).then_some(&self.y[..]),
            weights: &self.weights,
            costs,
            alpha,
        }
    }
}

fn params(depth: usize, leaves: Option<usize>, regression: bool, missing: bool) -> TreeParams {
    TreeParams {
        criterion: if regression {
            Criterion::SquaredError
        } else {
            Criterion::Misclassification
        },
        max_depth: Some(depth),
        max_leaf_nodes: leaves,
        missing: if missing {
            MissingStrategy::Learned
        } else {
            MissingStrategy::Fractional
        },
        n_jobs: Some(1),
        ..TreeParams::default()
    }
}

/// The objective of a fitted tree recomputed by prediction: every row to its leaf.
fn objective_by_prediction(tree: &Tree, brute: &Brute<'_>, data: &Dataset<'_>) -> f64 {
    let leaves = tree
        .predictor(Some(1))
        .apply(crate::PredictRows::Columns(data))
        .unwrap();
    let mut by_leaf: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (r, &leaf) in leaves.iter().enumerate() {
        by_leaf.entry(leaf).or_default().push(r);
    }
    by_leaf.values().map(|rows| brute.leaf(rows)).sum()
}

fn check_case(seed: u64, depth: usize, n: usize) {
    check_case_with(seed, depth, n, 0);
}

/// [`check_case`] with `extra` more nominal features of up to 7 categories (and missing
/// values when the case has them), so that nominal roots and second tests meet each other.
fn check_case_with(seed: u64, depth: usize, n: usize, extra: usize) {
    let mut g = Lcg(seed * 7919 + 13);
    let missing = g.below(2) == 0;
    let nominal = g.below(2) == 0 || extra > 0;
    let weighted = g.below(3) == 0;
    let mut c = case(&mut g, n, missing, nominal, weighted);
    if extra > 0 {
        c.n_categories = 7;
        for _ in 0..extra {
            let k = 2 + g.below(6);
            c.codes.push((0..n).map(|_| g.below(k) as u32).collect());
            c.ordered.push(false);
            c.absent
                .push((0..n).map(|_| missing && g.below(6) == 0).collect());
        }
    }
    let data = c.dataset();
    let regression = g.below(4) == 0;
    let alpha = [0.0, 0.0, 0.02, 0.1][g.below(4) as usize];
    let leaves = [None, None, Some(2), Some(3), Some(5)][g.below(5) as usize];
    let costs_m = [0.0, 1.0, 4.0, 2.0, 0.0, 1.0, 1.0, 3.0, 0.0];
    let costs = (!regression && g.below(3) == 0).then_some(&costs_m[..]);
    let target = if regression {
        Target::Values(&c.y)
    } else {
        Target::Classes {
            codes: &c.labels,
            n_classes: 3,
        }
    };
    let sample = Sample {
        data: &data,
        target: &target,
        weights: &c.weights,
    };
    let mut p = params(depth, leaves, regression, missing);
    p.cost_matrix = costs.map(<[f64]>::to_vec);
    let tree = grow_optimal(&sample, &p, alpha, &Control::new()).unwrap();
    let w: f64 = c.weights.iter().sum();
    let brute = c.brute(!regression, costs, alpha * w);
    let all: Vec<usize> = (0..n).collect();
    let expected = brute.best(&all, depth, leaves.unwrap_or(usize::MAX));
    let o = tree.optimality().unwrap();
    let what = format!(
        "seed {seed} depth {depth} n {n} missing {missing} nominal {nominal} weighted {weighted} \
         regression {regression} alpha {alpha} leaves {leaves:?} costs {}",
        costs.is_some()
    );
    let tol = 1e-9 * w * 10.0;
    assert!(
        (o.objective * w - expected).abs() <= tol,
        "{what}: {} vs {expected}",
        o.objective * w
    );
    assert!(o.proven(), "{what}");
    assert!(tree.max_depth() <= depth, "{what}");
    if let Some(k) = leaves {
        assert!(tree.n_leaves() <= k, "{what}");
    }
    let by_prediction = objective_by_prediction(&tree, &brute, &data);
    assert!(
        (by_prediction - expected).abs() <= tol,
        "{what}: predicted {by_prediction}"
    );
    // The model file keeps what was proven.
    let loaded = Tree::from_bytes(&tree.to_bytes()).unwrap();
    assert_eq!(loaded.optimality(), tree.optimality());
}

#[test]
fn depth_one_and_two_equal_brute_force() {
    let seeds: u64 = std::env::var("QUERCUS_OPTIMAL_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    for seed in 0..seeds {
        let depth = 1 + (seed % 2) as usize;
        check_case(seed, depth, 6 + (seed % 17) as usize);
    }
}

/// Cases `first..` of `depth` on `rows` to `rows + 4` rows: `QUERCUS_OPTIMAL_CASES` / 5 of
/// them, else `default`.
fn tiny_cases(first: u64, depth: usize, rows: usize, default: u64) {
    let seeds: u64 = std::env::var("QUERCUS_OPTIMAL_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(default, |n: u64| n / 5);
    for seed in 0..seeds {
        check_case(first + seed, depth, rows + (seed % 5) as usize);
    }
}

#[test]
fn depth_three_equals_brute_force_on_tiny_data() {
    tiny_cases(1000, 3, 5, 30);
}

/// Depth four: columns ordered by their best depth-two trees (`search::column_order`).
#[test]
fn depth_four_equals_brute_force_on_tiny_data() {
    tiny_cases(2000, 4, 6, 20);
}

/// Several nominal features: subsets at the root of a depth-two subproblem (counted, the
/// Gray-code walk over slots) and under it, against brute force, with and without counting.
#[test]
fn nominal_roots_equal_brute_force() {
    use std::sync::atomic::Ordering;
    for seed in 0..60 {
        check_case_with(
            4000 + seed,
            2,
            8 + (seed % 13) as usize,
            1 + (seed % 2) as usize,
        );
    }
    for seed in 0..10 {
        check_case_with(5000 + seed, 3, 6 + (seed % 4) as usize, 1);
    }
    super::pairs::COUNTING.store(false, Ordering::Relaxed);
    for seed in 0..20 {
        check_case_with(6000 + seed, 2, 8 + (seed % 13) as usize, 2);
    }
    super::pairs::COUNTING.store(true, Ordering::Relaxed);
}

/// The threshold-by-threshold depth-two search, which the counting of few-valued columns
/// ([`super::pairs`]) otherwise takes over on these data sets, against brute force too.
#[test]
fn threshold_search_equals_brute_force_without_counting() {
    use std::sync::atomic::Ordering;
    super::pairs::COUNTING.store(false, Ordering::Relaxed);
    for seed in 0..60 {
        check_case(2000 + seed, 2, 6 + (seed % 17) as usize);
    }
    for seed in 0..8 {
        check_case(3000 + seed, 3, 5 + (seed % 5) as usize);
    }
    super::pairs::COUNTING.store(true, Ordering::Relaxed);
}

/// The depth-one scans of unweighted classes, which deal a column's rows to their sides and
/// score each side's boundaries from counts ([`super::depth1`]), against the row-by-row
/// sweep of weighted rows: the same trees, node for node, and the same proofs. Columns of
/// many ties and of few, missing values, two to five classes, penalties and leaf budgets.
#[test]
fn counted_scans_give_the_row_by_row_trees() {
    use std::sync::atomic::Ordering;
    for seed in 0..24 {
        let mut g = Lcg(seed * 31 + 7);
        let n = 30 + g.below(300) as usize;
        let n_classes = 2 + g.below(4) as usize;
        let missing = g.below(2) == 0;
        let numeric: Vec<Vec<f64>> = (0..2 + g.below(3))
            .map(|_| {
                let distinct = 2 + g.below(200);
                (0..n)
                    .map(|_| {
                        if missing && g.below(8) == 0 {
                            f64::NAN
                        } else {
                            g.below(distinct) as f64 / 3.0
                        }
                    })
                    .collect()
            })
            .collect();
        let labels: Vec<u32> = (0..n)
            .map(|i| {
                // Mostly the first column's side of a cut, so that splits matter.
                let x = numeric[0][i];
                let base = u32::from(x.is_nan() || x > 10.0);
                if g.below(4) == 0 {
                    g.below(n_classes as u64) as u32
                } else {
                    base
                }
            })
            .collect();
        let data = Dataset::new(numeric.iter().map(|v| Column::numeric(v)).collect()).unwrap();
        let target = Target::Classes {
            codes: &labels,
            n_classes,
        };
        let weights = vec![1.0; n];
        let sample = Sample {
            data: &data,
            target: &target,
            weights: &weights,
        };
        let depth = 2 + (seed % 2) as usize;
        let leaves = [None, Some(3), Some(5)][g.below(3) as usize];
        let alpha = [0.0, 0.0, 0.01][g.below(3) as usize];
        let p = params(depth, leaves, false, missing);
        let fit = |counted: bool| {
            super::depth1::COUNTED.store(counted, Ordering::Relaxed);
            let tree = grow_optimal(&sample, &p, alpha, &Control::new()).unwrap();
            super::depth1::COUNTED.store(true, Ordering::Relaxed);
            tree
        };
        let (counted, by_row) = (fit(true), fit(false));
        assert!(
            counted.to_bytes() == by_row.to_bytes(),
            "seed {seed}: the trees differ"
        );
        assert_eq!(counted.optimality(), by_row.optimality(), "seed {seed}");
    }
}

/// The depth-two search by boxes of root thresholds ([`super::boxes`], otherwise taken only
/// on nodes of thousands of rows), with bins of a few ranks each so that thresholds fall
/// inside bins, against brute force: numeric columns with ties and missing values, nominal
/// features, weights, costs, regression, penalties and leaf budgets.
#[test]
fn boxes_of_root_thresholds_equal_brute_force() {
    use std::sync::atomic::Ordering;
    super::pairs::COUNTING.store(false, Ordering::Relaxed);
    for bins in [2, 3, 5] {
        *super::boxes::TEST_SETTINGS.lock().unwrap() = Some((bins, 2));
        for seed in 0..40 {
            check_case(7000 + 100 * bins as u64 + seed, 2, 6 + (seed % 17) as usize);
        }
        for seed in 0..15 {
            check_case_with(
                8000 + 100 * bins as u64 + seed,
                2,
                8 + (seed % 13) as usize,
                1 + (seed % 2) as usize,
            );
        }
        for seed in 0..8 {
            check_case(9000 + 100 * bins as u64 + seed, 3, 6 + (seed % 5) as usize);
        }
    }
    *super::boxes::TEST_SETTINGS.lock().unwrap() = None;
    super::pairs::COUNTING.store(true, Ordering::Relaxed);
}

/// Depth-two subproblems solved by one sweep per root column ([`super::sweep`], otherwise
/// taken only on nodes of thousands of rows) on tiny nodes, against brute force: three
/// classes (three pairs of trees), weights, costs, penalties, leaf budgets and missing
/// values; with bins of a few ranks, so that boxes rule some thresholds and columns out; and
/// with every tree's leaves for its rows' ranks only.
#[test]
fn sweeps_of_root_columns_equal_brute_force() {
    use std::sync::atomic::Ordering;
    super::pairs::COUNTING.store(false, Ordering::Relaxed);
    let before = super::sweep::SWEPT.load(Ordering::Relaxed);
    for (bins, slots) in [(2, false), (4, false), (2, true), (4, true)] {
        super::sweep::ALWAYS_SLOTS.store(slots, Ordering::Relaxed);
        *super::boxes::TEST_SETTINGS.lock().unwrap() = Some((bins, 2));
        for seed in 0..60 {
            check_case(
                13000 + 100 * bins as u64 + seed,
                2,
                8 + (seed % 23) as usize,
            );
        }
        for seed in 0..10 {
            check_case(14000 + 100 * bins as u64 + seed, 3, 7 + (seed % 6) as usize);
        }
    }
    super::sweep::ALWAYS_SLOTS.store(false, Ordering::Relaxed);
    *super::boxes::TEST_SETTINGS.lock().unwrap() = None;
    super::pairs::COUNTING.store(true, Ordering::Relaxed);
    assert!(super::sweep::SWEPT.load(Ordering::Relaxed) > before);
}

/// Depth-three roots bounded by runs of thresholds ([`super::roots`]) on tiny nodes: with
/// every part solved under the bound that decides, and with every part only bounded (its
/// boxes, tiny here too), the optimum is brute force's.
#[test]
fn runs_of_deep_root_thresholds_equal_brute_force() {
    for (bins, exact_rows) in [(2, usize::MAX), (3, 0), (4, 6)] {
        *super::roots::TEST_SETTINGS.lock().unwrap() = Some((bins, 2, exact_rows));
        *super::boxes::TEST_SETTINGS.lock().unwrap() = Some((2, 2));
        for seed in 0..12 {
            check_case(11000 + 100 * bins as u64 + seed, 3, 8 + (seed % 7) as usize);
        }
        for seed in 0..4 {
            check_case_with(
                12000 + 100 * bins as u64 + seed,
                3,
                9 + (seed % 4) as usize,
                1,
            );
        }
    }
    *super::boxes::TEST_SETTINGS.lock().unwrap() = None;
    *super::roots::TEST_SETTINGS.lock().unwrap() = None;
}

/// With `splitter="hist"` the search takes the histogram splitter's thresholds only: its
/// optimum is the exact search's on the columns replaced by their bins.
#[test]
fn hist_search_equals_the_exact_search_on_binned_columns() {
    use crate::split::hist::Bins;
    for seed in 0..40u64 {
        let mut g = Lcg(seed * 31 + 5);
        let n = 40 + g.below(60) as usize;
        let columns: Vec<Vec<f64>> = (0..2)
            .map(|_| {
                (0..n)
                    .map(|_| {
                        if g.below(10) == 0 {
                            f64::NAN
                        } else {
                            g.below(1000) as f64 / 7.0
                        }
                    })
                    .collect()
            })
            .collect();
        let labels: Vec<u32> = (0..n).map(|_| g.below(3) as u32).collect();
        let weights = vec![1.0; n];
        let target = Target::Classes {
            codes: &labels,
            n_classes: 3,
        };
        let max_bins = 3 + g.below(6) as usize;
        let data = Dataset::new(columns.iter().map(|c| Column::numeric(c)).collect()).unwrap();
        let bins = Bins::new(&data, max_bins, None).unwrap();
        let binned: Vec<Vec<f64>> = (0..2)
            .map(|f| {
                let b = bins.binned(f, None).unwrap();
                (0..n as u32)
                    .map(|r| b.bin(r).map_or(f64::NAN, |k| k as f64))
                    .collect()
            })
            .collect();
        let binned_data =
            Dataset::new(binned.iter().map(|c| Column::numeric(c)).collect()).unwrap();
        let depth = 1 + (seed % 3) as usize;
        let mut p = params(depth, None, false, true);
        let exact = |data: &Dataset<'_>, p: &TreeParams| {
            let sample = Sample {
                data,
                target: &target,
                weights: &weights,
            };
            let tree = grow_optimal(&sample, p, 0.0, &Control::new()).unwrap();
            assert!(tree.optimality().unwrap().proven(), "seed {seed}");
            tree.optimality().unwrap().objective
        };
        let on_bins = exact(&binned_data, &p);
        p.splitter = Splitter::Hist;
        p.max_bins = max_bins;
        let hist = exact(&data, &p);
        assert!(
            (hist - on_bins).abs() < 1e-12,
            "seed {seed} depth {depth} bins {max_bins}: {hist} vs {on_bins}"
        );
    }
}

/// The classic XOR of text 004 (Figure 7): no single split gains anything, so a greedy
/// learner that stops or picks a noisy feature misses the perfect depth-two tree.
#[test]
fn xor_is_solved_at_depth_two() {
    let a: Vec<f64> = (0..40).map(|i| f64::from(i % 2)).collect();
    let b: Vec<f64> = (0..40).map(|i| f64::from((i / 2) % 2)).collect();
    let labels: Vec<u32> = (0..40).map(|i| ((i % 2) ^ ((i / 2) % 2)) as u32).collect();
    // A distractor that agrees with the class on 28 of 40 rows.
    let noise: Vec<f64> = (0..40)
        .map(|i| {
            if i % 10 < 7 {
                f64::from(labels[i])
            } else {
                f64::from(1 - labels[i])
            }
        })
        .collect();
    let data = Dataset::new(vec![
        Column::numeric(&noise),
        Column::numeric(&a),
        Column::numeric(&b),
    ])
    .unwrap();
    let target = Target::Classes {
        codes: &labels,
        n_classes: 2,
    };
    let w = vec![1.0; 40];
    let sample = Sample {
        data: &data,
        target: &target,
        weights: &w,
    };
    let tree = grow_optimal(
        &sample,
        &params(2, None, false, false),
        0.0,
        &Control::new(),
    )
    .unwrap();
    assert_eq!(tree.optimality().unwrap().objective, 0.0);
    let greedy = crate::grow(
        &data,
        &target,
        &w,
        &TreeParams {
            max_depth: Some(2),
            ..TreeParams::default()
        },
    )
    .unwrap();
    let wrong = greedy
        .predictor(Some(1))
        .class(crate::PredictRows::Columns(&data))
        .unwrap()
        .iter()
        .zip(&labels)
        .filter(|(p, y)| p != y)
        .count();
    assert!(wrong > 0, "greedy CART should miss XOR at depth 2");
}

#[test]
fn a_time_limit_returns_a_tree_with_a_proven_gap_and_ctrl_c_an_error() {
    let mut g = Lcg(5);
    let n = 3000;
    let columns: Vec<Vec<f64>> = (0..6)
        .map(|_| (0..n).map(|_| g.below(1000) as f64).collect())
        .collect();
    let labels: Vec<u32> = (0..n)
        .map(|i| u32::from(columns[0][i] + columns[1][i] > 1000.0) ^ u32::from(g.below(5) == 0))
        .collect();
    let data = Dataset::new(columns.iter().map(|c| Column::numeric(c)).collect()).unwrap();
    let target = Target::Classes {
        codes: &labels,
        n_classes: 2,
    };
    let w = vec![1.0; n];
    let sample = Sample {
        data: &data,
        target: &target,
        weights: &w,
    };
    let control = Control::with_time_limit(0.05).unwrap();
    let tree = grow_optimal(&sample, &params(4, None, false, false), 0.0, &control).unwrap();
    let o = tree.optimality().unwrap();
    assert!(o.lower_bound <= o.objective && o.lower_bound >= 0.0);
    assert!(tree.max_depth() <= 4);
    let cancelled = Control::new();
    cancelled.cancel();
    assert_eq!(
        grow_optimal(&sample, &params(3, None, false, false), 0.0, &cancelled).unwrap_err(),
        CoreError::Cancelled
    );
}

#[test]
fn unsupported_settings_are_refused_by_name() {
    let x = [0.0, 1.0, f64::NAN, 3.0];
    let labels = [0, 1, 0, 1];
    let data = Dataset::new(vec![Column::numeric(&x)]).unwrap();
    let target = Target::Classes {
        codes: &labels,
        n_classes: 2,
    };
    let w = [1.0; 4];
    let sample = Sample {
        data: &data,
        target: &target,
        weights: &w,
    };
    let refused = |p: TreeParams, name: &str| match grow_optimal(&sample, &p, 0.0, &Control::new())
    {
        Err(CoreError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
        other => panic!("{name}: {other:?}"),
    };
    refused(params(2, None, false, false), "missing");
    refused(
        TreeParams {
            max_depth: None,
            ..params(2, None, false, true)
        },
        "max_depth",
    );
    refused(
        TreeParams {
            max_depth: Some(7),
            ..params(2, None, false, true)
        },
        "max_depth",
    );
    refused(
        TreeParams {
            criterion: Criterion::Gini,
            ..params(2, None, false, true)
        },
        "criterion",
    );
    refused(
        TreeParams {
            min_samples_leaf: 3,
            ..params(2, None, false, true)
        },
        "min_samples_leaf",
    );
    refused(
        TreeParams {
            missing: MissingStrategy::Surrogate,
            ..params(2, None, false, true)
        },
        "missing",
    );
    assert!(grow_optimal(&sample, &params(2, None, false, true), 0.0, &Control::new()).is_ok());
}

/// A random data set of `k` binary features (0/1 columns, as STreeD takes its input), so
/// that every depth-two subproblem is counted by pairs of features held (`super::binary`).
fn binary_case(g: &mut Lcg, n: usize, k: usize) -> Case {
    let numeric = (0..k)
        .map(|_| {
            let ones = 1 + g.below(9);
            (0..n)
                .map(|_| f64::from(u8::from(g.below(10) < ones)))
                .collect()
        })
        .collect();
    let weighted = g.below(3) == 0;
    Case {
        numeric,
        codes: Vec::new(),
        absent: Vec::new(),
        ordered: Vec::new(),
        n_categories: 2,
        labels: (0..n).map(|_| g.below(3) as u32).collect(),
        y: (0..n).map(|_| g.below(20) as f64 / 4.0).collect(),
        weights: (0..n)
            .map(|_| {
                if weighted {
                    0.5 + g.below(4) as f64
                } else {
                    1.0
                }
            })
            .collect(),
    }
}

/// The objective of the optimal tree of `c` (classes, or values when `regression`).
fn optimum(c: &Case, p: &TreeParams, regression: bool, alpha: f64) -> f64 {
    let data = c.dataset();
    let target = if regression {
        Target::Values(&c.y)
    } else {
        Target::Classes {
            codes: &c.labels,
            n_classes: 3,
        }
    };
    let sample = Sample {
        data: &data,
        target: &target,
        weights: &c.weights,
    };
    let tree = grow_optimal(&sample, p, alpha, &Control::new()).unwrap();
    let o = tree.optimality().unwrap();
    assert!(o.proven());
    assert!(tree.max_depth() <= p.max_depth.unwrap());
    o.objective * c.weights.iter().sum::<f64>()
}

/// Binary features (pair counts, counts updated from another subproblem's, the similarity
/// bound across roots) against brute force on tiny data, with weights, costs, regression,
/// leaf penalties and budgets.
#[test]
fn binary_features_equal_brute_force() {
    let costs_m = [0.0, 1.0, 4.0, 2.0, 0.0, 1.0, 1.0, 3.0, 0.0];
    for seed in 0..120u64 {
        let mut g = Lcg(seed * 104_729 + 7);
        let depth = [2, 2, 3][(seed % 3) as usize];
        let (n, k) = if depth == 2 {
            (6 + g.below(20) as usize, 2 + g.below(5) as usize)
        } else {
            (5 + g.below(6) as usize, 2 + g.below(3) as usize)
        };
        let c = binary_case(&mut g, n, k);
        let regression = g.below(4) == 0;
        let alpha = [0.0, 0.0, 0.02, 0.1][g.below(4) as usize];
        let leaves = [None, None, Some(2), Some(3), Some(5)][g.below(5) as usize];
        let costs = (!regression && g.below(3) == 0).then_some(&costs_m[..]);
        let mut p = params(depth, leaves, regression, false);
        p.cost_matrix = costs.map(<[f64]>::to_vec);
        let found = optimum(&c, &p, regression, alpha);
        let w: f64 = c.weights.iter().sum();
        let all: Vec<usize> = (0..n).collect();
        let expected =
            c.brute(!regression, costs, alpha * w)
                .best(&all, depth, leaves.unwrap_or(usize::MAX));
        assert!(
            (found - expected).abs() <= 1e-8 * w,
            "seed {seed} depth {depth} n {n} k {k} regression {regression} alpha {alpha} \
             leaves {leaves:?} costs {}: {found} vs {expected}",
            costs.is_some()
        );
    }
}

/// On data too large for brute force, where counts are reused many times and most roots
/// are ruled out by the similarity bound, the binary path finds the optimum of the general
/// counting of few-valued columns (itself checked against brute force above).
#[test]
fn binary_features_equal_the_general_search() {
    use std::sync::atomic::Ordering;
    let costs_m = [0.0, 1.0, 4.0, 2.0, 0.0, 1.0, 1.0, 3.0, 0.0];
    for seed in 0..12u64 {
        let mut g = Lcg(seed * 7_727 + 3);
        let n = 150 + g.below(150) as usize;
        let k = 8 + g.below(10) as usize;
        let mut c = binary_case(&mut g, n, k);
        // Thresholds of one hidden feature, as binarisation makes them (nested sets whose
        // neighbours differ in a few rows), and a class that depends on them.
        let hidden: Vec<u64> = (0..n).map(|_| g.below(100)).collect();
        for t in [20, 35, 50, 65, 80] {
            c.numeric
                .push(hidden.iter().map(|&h| f64::from(u8::from(h < t))).collect());
        }
        for (r, label) in c.labels.iter_mut().enumerate() {
            if g.below(3) > 0 {
                *label = u32::from(hidden[r] >= 50) + u32::from(c.numeric[0][r] > 0.5);
            }
        }
        let depth = 3 + (seed % 4 == 0) as usize;
        let regression = seed % 5 == 1;
        let alpha = [0.0, 0.0, 0.01][(seed % 3) as usize];
        let leaves = [None, None, None, Some(5)][(seed % 4) as usize];
        let mut p = params(depth, leaves, regression, false);
        p.cost_matrix = (seed % 6 == 2).then(|| costs_m.to_vec());
        let binary = optimum(&c, &p, regression, alpha);
        super::binary::BINARY.store(false, Ordering::Relaxed);
        let general = optimum(&c, &p, regression, alpha);
        super::binary::BINARY.store(true, Ordering::Relaxed);
        let w: f64 = c.weights.iter().sum();
        assert!(
            (binary - general).abs() <= 1e-8 * w,
            "seed {seed} depth {depth} n {n} k {k}: {binary} vs {general}"
        );
    }
}

/// On thresholds of hidden features (as a binarisation makes them), depth-two counts are
/// mostly updated from another subproblem's, and the similarity bound rules out most roots
/// of the depth-three search before their children are solved.
#[test]
fn binary_counts_are_reused_and_roots_ruled_out() {
    use std::sync::atomic::Ordering;
    let mut g = Lcg(11);
    let n = 400;
    let hidden: Vec<Vec<u64>> = (0..4)
        .map(|_| (0..n).map(|_| g.below(1000)).collect())
        .collect();
    let columns: Vec<Vec<f64>> = hidden
        .iter()
        .flat_map(|h| {
            (1..10).map(move |t| {
                h.iter()
                    .map(|&x| f64::from(u8::from(x < t * 100)))
                    .collect()
            })
        })
        .collect();
    let labels: Vec<u32> = (0..n)
        .map(|r| {
            let parity = (hidden[0][r] < 500) ^ (hidden[1][r] < 300) ^ (hidden[2][r] < 600);
            u32::from(parity) ^ u32::from(g.below(20) == 0)
        })
        .collect();
    let data = Dataset::new(columns.iter().map(|c| Column::numeric(c)).collect()).unwrap();
    let control = Control::new();
    let cols = Columns::new(&data, 20, None, &control).unwrap();
    let weights = vec![1.0; n];
    let worst = ClassLoss::worst_costs(2, None);
    let ctx = Ctx {
        columns: &cols,
        loss: ClassLoss::new(&labels, &weights, 2, None, &worst).unwrap(),
        alpha: 0.0,
        tol: 1e-9 * n as f64,
        keys: RowKeys,
        control: &control,
        cache: Cache::default(),
        parallel: false,
        binary: Binary::new(&cols, n, &control),
    };
    let root = Node::root(&cols, n, &RowKeys, &control).unwrap();
    let out = solve_root(&ctx, &root, 3, 8, None, n).unwrap();
    assert!(out.cost <= out.lower + 1e-9, "proven");
    let tally = &ctx.binary.as_ref().unwrap().tally;
    let [whole, reused, moved, pruned, split] = [
        &tally.whole,
        &tally.reused,
        &tally.moved_rows,
        &tally.pruned,
        &tally.split,
    ]
    .map(|a| a.load(Ordering::Relaxed));
    assert!(reused > whole, "reused {reused} whole {whole}");
    // Updating a reused count moves fewer rows than counting it whole would.
    assert!(moved < reused * n / 2, "moved {moved} over {reused}");
    assert!(pruned > split, "pruned {pruned} split {split}");
}
