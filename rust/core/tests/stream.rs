//! Fitting batch by batch (`StreamFit`) gives, byte for byte, the model file of the in-memory
//! histogram fit of the same rows, however the rows are cut into batches: classification and
//! regression, missing values under every strategy that routes rows without seeing them
//! all, categorical columns split both ways, weights (zero and fractional), best-first growth
//! and small memory budgets (many passes per level).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use quercus_core::model_io::write;
use quercus_core::{
    grow, BinnedBatch, CategoricalColumn, CategoricalSplit, Column, Control, Criterion, Dataset,
    FeatureKind, KeptBatches, MissingStrategy, Sample, Splitter, StreamFit, Target, Tree,
    TreeParams,
};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Owned training data: numeric columns (NaN missing), categorical ones (`None` missing).
struct Data {
    numeric: Vec<Vec<f64>>,
    codes: Vec<Vec<u32>>,
    missing: Vec<Vec<bool>>,
    n_categories: u32,
    classes: Vec<u32>,
    y: Vec<f64>,
    weights: Vec<f64>,
}

impl Data {
    fn random(rng: &mut Rng, n: usize, nan_rate: f64, weighted: bool) -> Data {
        let mut numeric: Vec<Vec<f64>> = Vec::new();
        for j in 0..3 {
            numeric.push(
                (0..n)
                    .map(|_| {
                        if rng.unit() < nan_rate {
                            f64::NAN
                        } else if j == 2 {
                            rng.below(7) as f64 // few distinct values
                        } else {
                            (rng.unit() * 1e4).round() / 100.0
                        }
                    })
                    .collect(),
            );
        }
        let n_categories = 5;
        let codes: Vec<Vec<u32>> = vec![(0..n).map(|_| rng.below(5) as u32).collect()];
        let missing = vec![(0..n).map(|_| rng.unit() < nan_rate).collect()];
        let classes: Vec<u32> = (0..n)
            .map(|i| {
                let x = numeric[0][i];
                let c = codes[0][i];
                if rng.unit() < 0.15 {
                    rng.below(3) as u32
                } else {
                    u32::from(x > 40.0) + u32::from(c >= 3 && x > 70.0)
                }
            })
            .collect();
        let y: Vec<f64> = (0..n)
            .map(|i| {
                let x = numeric[1][i];
                let base = if x.is_nan() { 3.0 } else { x / 10.0 };
                base + f64::from(codes[0][i]) * 1.5 + rng.unit()
            })
            .collect();
        let weights = (0..n)
            .map(|_| {
                if !weighted {
                    1.0
                } else if rng.unit() < 0.1 {
                    0.0
                } else {
                    0.5 + rng.below(3) as f64 * 0.25
                }
            })
            .collect();
        Data {
            numeric,
            codes,
            missing,
            n_categories,
            classes,
            y,
            weights,
        }
    }

    fn columns(&self, rows: std::ops::Range<usize>, ordered: bool) -> Vec<Column<'_>> {
        let mut cols: Vec<Column<'_>> = self
            .numeric
            .iter()
            .map(|c| Column::numeric(&c[rows.clone()]))
            .collect();
        for (codes, missing) in self.codes.iter().zip(&self.missing) {
            cols.insert(
                1,
                Column::Categorical(CategoricalColumn {
                    codes: &codes[rows.clone()],
                    missing_mask: Some(&missing[rows.clone()]),
                    n_categories: self.n_categories,
                    ordered,
                }),
            );
        }
        cols
    }

    fn target(&self, rows: std::ops::Range<usize>, regression: bool) -> Target<'_> {
        if regression {
            Target::Values(&self.y[rows])
        } else {
            Target::Classes {
                codes: &self.classes[rows],
                n_classes: 3,
            }
        }
    }
}

fn kinds(data: &Dataset<'_>) -> Vec<FeatureKind> {
    data.kinds()
}

/// The in-memory histogram fit.
fn in_memory(d: &Data, params: &TreeParams, regression: bool, ordered: bool) -> Tree {
    let n = d.weights.len();
    let data = Dataset::new(d.columns(0..n, ordered)).unwrap();
    grow(&data, &d.target(0..n, regression), &d.weights, params).unwrap()
}

/// How the passes after the first grow pass read the rows.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// The batches again, every other one added by a replica (as Dask workers add them).
    Batches,
    /// The batches the first grow pass kept binned, in memory up to this many bytes, then
    /// in a temporary file.
    Kept(usize),
    /// The batches binned once on replicas (as Dask workers hold their partitions binned),
    /// every other one sent as bytes; each pass routes them from the root.
    Binned,
}

/// The fit over batches cut at `cuts` (sorted row indexes), each pass adding the batches in
/// order into one set of sums.
fn streamed(
    d: &Data,
    params: &TreeParams,
    regression: bool,
    ordered: bool,
    cuts: &[usize],
    budget: usize,
    source: Source,
) -> Tree {
    let n = d.weights.len();
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(n);
    let batches: Vec<(Dataset<'_>, Target<'_>, &[f64])> = bounds
        .windows(2)
        .map(|w| {
            let rows = w[0]..w[1];
            (
                Dataset::new(d.columns(rows.clone(), ordered)).unwrap(),
                d.target(rows.clone(), regression),
                &d.weights[rows],
            )
        })
        .collect();
    let all = Dataset::new(d.columns(0..n, ordered)).unwrap();
    let n_classes = if regression { 0 } else { 3 };
    let mut fit = StreamFit::new(params.clone(), kinds(&all), n_classes, budget).unwrap();
    let mut sketch = fit.sketch();
    let mut offset = 0;
    for b in &batches {
        let s = Sample {
            data: &b.0,
            target: &b.1,
            weights: b.2,
        };
        offset += fit.add_to_sketch(&mut sketch, &s, offset).unwrap();
    }
    fit.start(sketch).unwrap();
    let mut kept = match source {
        Source::Kept(bytes) => Some(KeptBatches::new(bytes)),
        Source::Batches | Source::Binned => None,
    };
    let mut binned: Option<Vec<BinnedBatch>> = None;
    while fit.next_pass().is_some() {
        if let Source::Binned = source {
            let mut replica = StreamFit::new(params.clone(), kinds(&all), n_classes, 1).unwrap();
            replica.resume(&fit.frontier().unwrap()).unwrap();
            let held = binned.get_or_insert_with(|| {
                let bin = |(i, b): (usize, &(Dataset<'_>, Target<'_>, &[f64]))| {
                    let s = Sample {
                        data: &b.0,
                        target: &b.1,
                        weights: b.2,
                    };
                    let batch = replica.bin(&s).unwrap();
                    if i % 2 == 0 {
                        return batch;
                    }
                    BinnedBatch::from_bytes(&batch.to_bytes()).unwrap()
                };
                batches.iter().enumerate().map(bin).collect()
            });
            let mut sums = fit.sums().unwrap();
            for (i, b) in held.iter().enumerate() {
                let adder = if i % 2 == 1 { &replica } else { &fit };
                adder.add_binned(&mut sums, b).unwrap();
            }
            let sums = fit.sums_from(&sums.to_vec()).unwrap();
            fit.finish_pass(sums, &Control::new()).unwrap();
            continue;
        }
        if let Some(kept) = kept.as_mut().filter(|k| k.pass().is_some()) {
            let mut sums = fit.sums().unwrap();
            fit.add_kept(&mut sums, kept, &Control::new()).unwrap();
            fit.finish_pass(sums, &Control::new()).unwrap();
            continue;
        }
        // Every other batch is added by a replica rebuilt from the fit's frontier, as a
        // worker process adds its partitions.
        let mut replica = StreamFit::new(params.clone(), kinds(&all), n_classes, budget).unwrap();
        replica.resume(&fit.frontier().unwrap()).unwrap();
        let mut sums = fit.sums().unwrap();
        let mut offset = 0;
        for (i, b) in batches.iter().enumerate() {
            let s = Sample {
                data: &b.0,
                target: &b.1,
                weights: b.2,
            };
            if let Some(kept) = kept.as_mut() {
                offset += fit.add_keeping(&mut sums, &s, kept).unwrap();
                continue;
            }
            let adder = if i % 2 == 1 { &replica } else { &fit };
            offset += adder.add(&mut sums, &s, offset).unwrap();
        }
        // What a process sends another reads back the same.
        let sums = fit.sums_from(&sums.to_vec()).unwrap();
        fit.finish_pass(sums, &Control::new()).unwrap();
    }
    fit.tree().unwrap()
}

fn random_cuts(rng: &mut Rng, n: usize) -> Vec<usize> {
    let k = rng.below(6);
    let mut cuts: Vec<usize> = (0..k).map(|_| rng.below(n + 1)).collect();
    cuts.sort_unstable();
    cuts // repeated cuts make empty batches
}

#[test]
fn any_batching_gives_the_in_memory_model() {
    let mut rng = Rng(11);
    let strategies = [
        MissingStrategy::Fractional,
        MissingStrategy::Learned,
        MissingStrategy::MajorityBranch,
        MissingStrategy::Separate,
    ];
    let mut checked = 0;
    for case in 0..48 {
        let regression = case % 3 == 2;
        let n = 50 + rng.below(600);
        let nan_rate = [0.0, 0.1, 0.3][rng.below(3)];
        let d = Data::random(&mut rng, n, nan_rate, case % 4 == 1);
        let split = if case % 2 == 0 {
            CategoricalSplit::Binary
        } else {
            CategoricalSplit::Multiway
        };
        let criterion = match (regression, case % 5) {
            (true, 0 | 1) => Criterion::Poisson,
            (true, _) => Criterion::SquaredError,
            (false, 0) => Criterion::Entropy,
            (false, 1) => Criterion::GainRatio,
            _ => Criterion::Gini,
        };
        let params = TreeParams {
            criterion,
            categorical_split: split,
            splitter: Splitter::Hist,
            max_bins: [255, 16, 4][rng.below(3)],
            missing: strategies[case % strategies.len()],
            max_depth: [None, Some(3), Some(6)][rng.below(3)],
            max_leaf_nodes: if case % 7 == 3 { Some(6) } else { None },
            min_samples_leaf: 1 + rng.below(3),
            ..TreeParams::default()
        };
        let ordered = case % 6 == 5 && split == CategoricalSplit::Binary;
        let expected = write(&in_memory(&d, &params, regression, ordered), &[]);
        for source in [
            Source::Batches,
            Source::Kept(1 << 30),
            Source::Kept(rng.below(4000)),
            Source::Binned,
        ] {
            let cuts = random_cuts(&mut rng, n);
            let budget = [1 << 30, 1][rng.below(2)];
            let got = write(
                &streamed(&d, &params, regression, ordered, &cuts, budget, source),
                &[],
            );
            assert!(
                got == expected,
                "case {case}: {params:?}, cuts {cuts:?}, budget {budget}, {source:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 192);
}

#[test]
fn long_columns_are_sampled_alike() {
    // More known values than the edge sample holds: the hashed-row sample decides the edges,
    // per column with missing values, shared by all columns without (as sparse ones use it);
    // a batch of more than twice the sample's rows is pruned to it as it is sketched.
    let mut rng = Rng(3);
    let n = 420_000;
    for nan_rate in [0.05, 0.0] {
        let d = Data::random(&mut rng, n, nan_rate, false);
        let params = TreeParams {
            criterion: Criterion::Gini,
            splitter: Splitter::Hist,
            max_depth: Some(3),
            ..TreeParams::default()
        };
        let expected = write(&in_memory(&d, &params, false, false), &[]);
        let sources = if nan_rate > 0.0 {
            vec![Source::Batches, Source::Kept(1 << 20)]
        } else {
            vec![Source::Binned]
        };
        for source in sources {
            let got = write(
                &streamed(&d, &params, false, false, &[1, 9_001], 1 << 30, source),
                &[],
            );
            assert!(got == expected, "nan_rate {nan_rate}, {source:?}");
        }
    }
}

#[test]
fn a_batch_of_another_schema_is_refused() {
    let mut rng = Rng(5);
    let d = Data::random(&mut rng, 100, 0.1, false);
    let all = Dataset::new(d.columns(0..100, false)).unwrap();
    let params = TreeParams {
        splitter: Splitter::Hist,
        ..TreeParams::default()
    };
    let fit = StreamFit::new(params, kinds(&all), 3, 1 << 20).unwrap();
    let mut sketch = fit.sketch();
    let target = d.target(0..100, false);
    // A column fewer.
    let fewer = Dataset::new(d.columns(0..100, false)[..3].to_vec()).unwrap();
    let s = Sample {
        data: &fewer,
        target: &target,
        weights: &d.weights,
    };
    let err = fit.add_to_sketch(&mut sketch, &s, 0).unwrap_err();
    assert!(err.to_string().contains("columns"), "{err}");
    // More categories than the first batch had.
    let mut cols = d.columns(0..100, false);
    if let Column::Categorical(c) = &mut cols[1] {
        c.n_categories = 6;
    }
    let wider = Dataset::new(cols).unwrap();
    let s = Sample {
        data: &wider,
        target: &target,
        weights: &d.weights,
    };
    let err = fit.add_to_sketch(&mut sketch, &s, 0).unwrap_err();
    assert!(err.to_string().contains("categories"), "{err}");
}

/// A depth-3 histogram fit of three classes with one batch `s` sketched: its first grow
/// pass begins.
fn started(s: &Sample<'_, '_>) -> (StreamFit, TreeParams) {
    let params = TreeParams {
        splitter: Splitter::Hist,
        max_depth: Some(3),
        ..TreeParams::default()
    };
    let mut fit = StreamFit::new(params.clone(), kinds(s.data), 3, 1 << 20).unwrap();
    // No frontier before the sketch pass ended.
    assert!(fit.frontier().is_err());
    let mut sketch = fit.sketch();
    fit.add_to_sketch(&mut sketch, s, 0).unwrap();
    fit.start(sketch).unwrap();
    (fit, params)
}

#[test]
fn a_replica_only_adds() {
    let mut rng = Rng(7);
    let d = Data::random(&mut rng, 200, 0.1, false);
    let all = Dataset::new(d.columns(0..200, false)).unwrap();
    let target = d.target(0..200, false);
    let s = Sample {
        data: &all,
        target: &target,
        weights: &d.weights,
    };
    let (mut fit, params) = started(&s);
    // No pass kept its batches: the kept ones cannot serve this pass.
    let mut nothing = KeptBatches::new(1 << 20);
    let mut sums = fit.sums().unwrap();
    let err = fit
        .add_kept(&mut sums, &mut nothing, &Control::new())
        .unwrap_err();
    assert!(err.to_string().contains("kept"), "{err}");
    let frontier = fit.frontier().unwrap();
    let mut replica = StreamFit::new(params.clone(), kinds(&all), 3, 1 << 20).unwrap();
    assert!(replica.resume(&frontier[..frontier.len() - 8]).is_err());
    assert!(replica.resume(&frontier[..frontier.len() - 3]).is_err());
    replica.resume(&frontier).unwrap();
    let mut sums = replica.sums().unwrap();
    replica.add(&mut sums, &s, 0).unwrap();
    assert!(sums.is_exact(), "whole class counts");
    let again = fit.sums_from(&sums.to_vec()).unwrap();
    assert!(replica.finish_pass(again.clone(), &Control::new()).is_err());
    assert!(replica.tree().is_err());
    fit.finish_pass(again, &Control::new()).unwrap();
}

#[test]
fn the_larger_child_is_not_summed() {
    // The root's binary split sends every row to one child (no missing value): the second
    // pass knows from the root's sums which child is larger and holds no histograms for it,
    // without a pass that counts the rows first. Its sums are then smaller than the root
    // pass's (one node's histograms and the value ranges), where two children's histograms
    // would make them larger.
    let mut rng = Rng(11);
    let d = Data::random(&mut rng, 2_000, 0.0, false);
    let all = Dataset::new(d.columns(0..2_000, false)).unwrap();
    let target = d.target(0..2_000, false);
    let s = Sample {
        data: &all,
        target: &target,
        weights: &d.weights,
    };
    let (mut fit, _) = started(&s);
    let mut root = fit.sums().unwrap();
    fit.add(&mut root, &s, 0).unwrap();
    let root_len = root.to_vec().len();
    fit.finish_pass(root, &Control::new()).unwrap();
    let mut children = fit.sums().unwrap();
    let children_len = children.to_vec().len();
    assert!(children_len < root_len, "{children_len} vs {root_len}");
    // The children's sums, the smaller's summed and the larger's derived, end the pass.
    fit.add(&mut children, &s, 0).unwrap();
    fit.finish_pass(children, &Control::new()).unwrap();
}
