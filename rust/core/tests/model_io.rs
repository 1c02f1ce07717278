//! The model format (`docs/model-format.md`): round trips of every kind of split, every error
//! class on damaged or hostile files, and a structured fuzzer over mutated model files.
//!
//! The fuzzer runs `QUERCUS_FUZZ_CASES` cases (2,000 by default, for CI; the dedicated run
//! sets 100000). Every case must return an error or a tree that predicts, renders its
//! arrays, prunes and saves again without panicking, and reading it must stay within a
//! fixed multiple of the input's size in memory (a counting allocator measures it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;

use common::{dataset, OwnedCol, Table};
use proptest::prelude::*;
use proptest::test_runner::{RngSeed, TestRunner};
use quercus_core::model_io::{self, crc32, FORMAT_VERSION, MAGIC};
use quercus_core::params::{Conventions, MissingStrategy, Splitter};
use quercus_core::prune;
use quercus_core::CategoricalSplit::{Binary, Multiway};
use quercus_core::{
    grow, CategoricalSplit, CoreError, Criterion, Dataset, FeatureKind, NodeId, NodeKind, Target,
    Tree, TreeParams,
};

// ---------------------------------------------------------------------------------------------
// A per-thread counting allocator: the peak bytes live while a closure runs.

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn track(delta: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
            }
        });
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            track(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) };
        track(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            track(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `f()` and the most bytes it had allocated at once (on this thread).
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let out = f();
    let peak = PEAK.with(Cell::get) - start;
    (out, peak.max(0) as usize)
}

/// Reading may use at most this many bytes per input byte, plus a constant.
fn memory_bound(input_len: usize) -> usize {
    8 * input_len + (64 << 10)
}

// ---------------------------------------------------------------------------------------------
// Models of every kind.

/// A small deterministic generator (SplitMix64), so the data sets need no dependency.
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

    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
}

/// 300 rows: a numeric x0, an unordered 5-category c1 and an ordered 6-category c2, each
/// missing on about 10% of the rows; y depends on all three, with a little noise.
struct Mixed {
    cols: Vec<OwnedCol>,
    classes: Vec<u32>,
    values: Vec<f64>,
}

fn mixed() -> Mixed {
    let mut rng = Rng(7);
    let n = 300;
    let mut x0 = Vec::new();
    let mut c1 = Vec::new();
    let mut c2 = Vec::new();
    let mut classes = Vec::new();
    let mut values = Vec::new();
    for _ in 0..n {
        let x = rng.unit();
        let a = rng.below(5);
        let b = rng.below(6);
        let mut class = if a == 0 || a == 3 {
            u32::from(x > 0.5)
        } else if b <= 2 {
            1
        } else {
            2
        };
        if rng.unit() < 0.05 {
            class = rng.below(3);
        }
        classes.push(class);
        values.push(10.0 * x + f64::from(a) - 0.5 * f64::from(b) + rng.unit());
        x0.push(if rng.unit() < 0.1 { f64::NAN } else { x });
        c1.push((rng.unit() >= 0.1).then_some(a));
        c2.push((rng.unit() >= 0.1).then_some(b));
    }
    Mixed {
        cols: vec![
            OwnedCol::Num(x0),
            OwnedCol::cat_opt(&c1, 5, false),
            OwnedCol::cat_opt(&c2, 6, true),
        ],
        classes,
        values,
    }
}

/// Small leaves and depth 4 keep the trees to a few dozen nodes, so every byte offset can be tried.
fn params(criterion: Criterion, split: CategoricalSplit) -> TreeParams {
    TreeParams {
        criterion,
        categorical_split: split,
        min_samples_leaf: 8,
        max_depth: Some(4),
        ..TreeParams::default()
    }
}

fn classify(data: &Dataset<'_>, y: &[u32], n_classes: usize, p: &TreeParams) -> Tree {
    let target = Target::Classes {
        codes: y,
        n_classes,
    };
    grow(data, &target, &vec![1.0; y.len()], p).expect("fit")
}

fn c45(t: &Table, conventions: Conventions) -> Tree {
    let mut p = params(Criterion::GainRatio, CategoricalSplit::Multiway);
    p.min_objects = 2.0;
    p.min_samples_leaf = 1;
    p.max_depth = None;
    p.numeric_gain_correction = true;
    p.conventions = conventions;
    classify(&t.dataset(), &t.y, t.classes.len(), &p)
}

/// A classifier on the mixed data grown with a missing-value strategy other than C4.5's.
fn with_missing(m: &Mixed, missing: MissingStrategy, split: CategoricalSplit) -> Tree {
    let criterion = if split == Multiway {
        Criterion::Entropy
    } else {
        Criterion::Gini
    };
    let p = TreeParams {
        missing,
        max_surrogates: 3,
        ..params(criterion, split)
    };
    classify(&dataset(&m.cols), &m.classes, 3, &p)
}

/// Named fitted trees covering numeric, multiway, subset, ordered and oblique tests, missing
/// values (fractional branches), regression, a pruned tree and a single leaf.
fn models() -> Vec<(&'static str, Tree)> {
    let m = mixed();
    let data = dataset(&m.cols);
    let cart = classify(
        &data,
        &m.classes,
        3,
        &params(Criterion::Gini, CategoricalSplit::Binary),
    );
    let multiway = classify(
        &data,
        &m.classes,
        3,
        &params(Criterion::Entropy, CategoricalSplit::Multiway),
    );
    let pruned = prune::pessimistic(&multiway, 0.25, None, false).expect("prune");
    let regression = grow(
        &data,
        &Target::Values(&m.values),
        &vec![1.0; m.values.len()],
        &params(Criterion::SquaredError, CategoricalSplit::Binary),
    )
    .expect("regression fit");
    let constant = classify(
        &data,
        &vec![1; m.classes.len()],
        2,
        &params(Criterion::Gini, CategoricalSplit::Binary),
    );
    let wm3a = Table::load("watermelon3alpha");
    let oblique = classify(
        &wm3a.dataset(),
        &wm3a.y,
        wm3a.classes.len(),
        &TreeParams {
            oblique: true,
            min_samples_leaf: 1,
            ..params(Criterion::Gini, CategoricalSplit::Binary)
        },
    );
    vec![
        (
            "c4.5 watermelon 2.0α",
            c45(&Table::load("watermelon2alpha"), Conventions::Texts),
        ),
        (
            "c4.5 watermelon 3.0",
            c45(&Table::load("watermelon3"), Conventions::Texts),
        ),
        ("cart mixed", cart),
        ("multiway mixed", multiway),
        ("pessimistic mixed", pruned),
        ("regression mixed", regression),
        ("single leaf", constant),
        ("oblique watermelon 3.0α", oblique),
        (
            "surrogates mixed",
            with_missing(&m, MissingStrategy::Surrogate, Binary),
        ),
        (
            "separate multiway mixed",
            with_missing(&m, MissingStrategy::Separate, Multiway),
        ),
        (
            "learned mixed",
            with_missing(&m, MissingStrategy::Learned, Binary),
        ),
        (
            // Carries the splitter extension record, so the fuzzer mutates that too.
            "histogram cart mixed",
            classify(
                &data,
                &m.classes,
                3,
                &TreeParams {
                    splitter: Splitter::Hist,
                    max_bins: 16,
                    ..params(Criterion::Gini, CategoricalSplit::Binary)
                },
            ),
        ),
        (
            "class majority mixed",
            with_missing(&m, MissingStrategy::ClassMajority, Binary),
        ),
        (
            "majority branch mixed",
            with_missing(&m, MissingStrategy::MajorityBranch, Multiway),
        ),
        (
            // Carries the conventions extension record.
            "j48 watermelon 3.0",
            c45(&Table::load("watermelon3"), Conventions::J48),
        ),
        // Format version 2: several outputs.
        ("multi-output classes mixed", multi_output_classes(&m)),
        ("multi-output regression mixed", multi_output_values(&m)),
    ]
}

/// Two class outputs (3 and 2 classes) on the mixed data, row-major.
fn multi_output_classes(m: &Mixed) -> Tree {
    let codes: Vec<u32> = m
        .classes
        .iter()
        .zip(&m.values)
        .flat_map(|(&c, &v)| [c, u32::from(v > 4.0)])
        .collect();
    let target = Target::MultiClasses {
        codes: &codes,
        n_classes: &[3, 2],
    };
    let p = params(Criterion::Gini, CategoricalSplit::Binary);
    grow(&dataset(&m.cols), &target, &vec![1.0; m.classes.len()], &p).expect("fit")
}

/// Two real outputs on the mixed data, row-major.
fn multi_output_values(m: &Mixed) -> Tree {
    let values: Vec<f64> = m
        .values
        .iter()
        .zip(&m.classes)
        .flat_map(|(&v, &c)| [v, f64::from(c) * 3.0 - v * 0.5])
        .collect();
    let target = Target::MultiValues {
        values: &values,
        n_outputs: 2,
    };
    let p = TreeParams {
        missing: MissingStrategy::Learned,
        ..params(Criterion::SquaredError, CategoricalSplit::Multiway)
    };
    grow(&dataset(&m.cols), &target, &vec![1.0; m.classes.len()], &p).expect("fit")
}

/// 40 rows to predict for a tree's features: ordinary, extreme, missing and unseen values.
fn probe(kinds: &[FeatureKind]) -> Vec<OwnedCol> {
    let n = 40;
    let mut rng = Rng(11);
    kinds
        .iter()
        .map(|kind| match *kind {
            FeatureKind::Numeric => OwnedCol::Num(
                (0..n)
                    .map(|i| match i % 8 {
                        0 => f64::NAN,
                        1 => -1e300,
                        2 => 1e300,
                        3 => 0.0,
                        _ => rng.unit() * 2.0 - 0.5,
                    })
                    .collect(),
            ),
            FeatureKind::Categorical {
                n_categories,
                ordered,
            } => {
                let k = n_categories.min(1 << 20);
                let codes: Vec<Option<u32>> = (0..n)
                    .map(|i| match i % 7 {
                        0 => None,
                        1 => Some(k.saturating_add(1)), // unseen: routed as missing
                        _ => Some(rng.below(k.max(1))),
                    })
                    .collect();
                OwnedCol::cat_opt(&codes, n_categories, ordered)
            }
        })
        .collect()
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn same_all(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(*x, *y))
}

/// Every field the public API shows, node by node.
fn assert_same_tree(a: &Tree, b: &Tree, name: &str) {
    assert_eq!(a.criterion(), b.criterion(), "{name}: criterion");
    assert_eq!(
        a.missing_strategy(),
        b.missing_strategy(),
        "{name}: missing strategy"
    );
    assert_eq!(a.feature_kinds(), b.feature_kinds(), "{name}: kinds");
    assert_eq!(a.n_classes(), b.n_classes(), "{name}: classes");
    assert_eq!(a.splitter(), b.splitter(), "{name}: splitter");
    assert_eq!(a.conventions(), b.conventions(), "{name}: conventions");
    assert_eq!(a.n_nodes(), b.n_nodes(), "{name}: nodes");
    assert_eq!(a.subset_sides(), b.subset_sides(), "{name}: masks");
    for i in 0..a.n_nodes() as u32 {
        let n = NodeId(i);
        let at = format!("{name}: node {i}");
        assert_eq!(a.kind(n), b.kind(n), "{at} kind");
        assert_eq!(a.tag(n), b.tag(n), "{at} tag");
        assert_eq!(
            a.children(n).collect::<Vec<_>>(),
            b.children(n).collect::<Vec<_>>(),
            "{at} children"
        );
        assert_eq!(a.parent(n), b.parent(n), "{at} parent");
        assert_eq!(a.depth(n), b.depth(n), "{at} depth");
        assert!(same(a.weight(n), b.weight(n)), "{at} weight");
        assert!(same(a.n_rows(n), b.n_rows(n)), "{at} n_rows");
        assert!(same(a.impurity(n), b.impurity(n)), "{at} impurity");
        assert!(
            same(a.branch_fraction(n), b.branch_fraction(n)),
            "{at} fraction"
        );
        assert_eq!(a.label(n), b.label(n), "{at} label");
        assert!(same_all(a.value(n), b.value(n)), "{at} value");
        assert_eq!(a.subset_offset(n), b.subset_offset(n), "{at} subset offset");
        assert_eq!(a.linear_terms(n), b.linear_terms(n), "{at} linear terms");
        assert_eq!(a.missing_child(n), b.missing_child(n), "{at} missing child");
        assert!(
            same(a.missing_weight(n), b.missing_weight(n)),
            "{at} missing weight"
        );
        let surrogates = |t: &Tree| {
            t.surrogates(n)
                .map(|s| {
                    (
                        s.feature,
                        s.threshold.to_bits(),
                        s.agreement.to_bits(),
                        s.children.to_vec(),
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(surrogates(a), surrogates(b), "{at} surrogates");
        let flat = |t: &Tree| {
            t.node_scores(n).map(|s| {
                s.iter()
                    .flat_map(|s| [s.score, s.gain, s.iv, s.threshold, s.rho])
                    .collect::<Vec<f64>>()
            })
        };
        match (flat(a), flat(b)) {
            (None, None) => {}
            (Some(x), Some(y)) => assert!(same_all(&x, &y), "{at} scores"),
            other => panic!("{at} scores: {other:?}"),
        }
    }
}

/// The predictions of `tree` on `rows`, all four kinds, as bits.
fn predictions(tree: &Tree, rows: &[OwnedCol]) -> (Vec<u64>, Vec<u32>, Vec<u64>, Vec<u32>) {
    let data = dataset(rows);
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<u64>>();
    if tree.is_regression() {
        (
            Vec::new(),
            Vec::new(),
            bits(tree.predict_value(&data).expect("predict")),
            tree.apply(&data).expect("apply"),
        )
    } else {
        (
            bits(tree.predict_proba(&data).expect("proba")),
            tree.predict_class(&data).expect("class"),
            Vec::new(),
            tree.apply(&data).expect("apply"),
        )
    }
}

fn has(tree: &Tree, pred: impl Fn(NodeKind<'_>) -> bool) -> bool {
    (0..tree.n_nodes() as u32).any(|i| pred(tree.kind(NodeId(i))))
}

#[test]
fn the_models_cover_every_kind_of_split() {
    let all = models();
    let any = |pred: &dyn Fn(NodeKind<'_>) -> bool| all.iter().any(|(_, t)| has(t, pred));
    assert!(any(&|k| matches!(k, NodeKind::Numeric { .. })));
    assert!(any(&|k| matches!(k, NodeKind::Multiway { .. })));
    assert!(any(&|k| matches!(k, NodeKind::Subset { .. })));
    assert!(any(&|k| matches!(k, NodeKind::Ordered { .. })));
    assert!(any(&|k| matches!(k, NodeKind::Oblique { .. })));
    // Every way of routing a missing value: fractions, a missing child, surrogates, and a
    // child of its own under a multiway split.
    let nodes = |t: &Tree| (0..t.n_nodes() as u32).map(NodeId).collect::<Vec<_>>();
    let any_node = |pred: &dyn Fn(&Tree, NodeId) -> bool| {
        all.iter()
            .any(|(_, t)| nodes(t).into_iter().any(|n| pred(t, n)))
    };
    assert!(any_node(&|t, n| t.missing_child(n).is_some()));
    assert!(any_node(&|t, n| t.surrogates(n).count() > 0));
    assert!(any_node(&|t, n| match t.kind(n) {
        NodeKind::Multiway { feature } => match t.feature_kinds()[feature] {
            FeatureKind::Categorical { n_categories, .. } => {
                t.children(n).count() == n_categories as usize + 1
            }
            FeatureKind::Numeric => false,
        },
        _ => false,
    }));
    // Fractional branches: some child received less than the whole of its parent's weight
    // because of missing values, and missing values are in the training data.
    let (_, cart) = &all[2];
    assert!(has(cart, |k| matches!(k, NodeKind::Subset { .. })));
    assert!(has(cart, |k| matches!(k, NodeKind::Ordered { .. })));
    assert!(has(cart, |k| matches!(k, NodeKind::Numeric { .. })));
    assert_eq!(all[6].1.n_nodes(), 1);
}

#[test]
fn round_trip_keeps_every_field_and_every_prediction() {
    for (name, tree) in models() {
        let meta = format!("{{\"name\": \"{name}\"}}");
        let bytes = model_io::write(&tree, meta.as_bytes());
        let model = model_io::read(&bytes).expect("read back");
        assert_eq!(model.metadata, meta.as_bytes(), "{name}: metadata");
        assert_same_tree(&tree, &model.tree, name);
        // Bytes are a fixed point: writing the loaded tree gives the same file.
        assert_eq!(
            model_io::write(&model.tree, meta.as_bytes()),
            bytes,
            "{name}"
        );
        let rows = probe(tree.feature_kinds());
        assert_eq!(
            predictions(&tree, &rows),
            predictions(&model.tree, &rows),
            "{name}: predictions"
        );
        // Tree::to_bytes / from_bytes: the same arena without metadata.
        let bare = Tree::from_bytes(&tree.to_bytes()).expect("bare round trip");
        assert_same_tree(&tree, &bare, name);
    }
}

/// The splitter record (extension tag 1) is a histogram tree's first: tag, length, the name
/// "hist" and the bins (the rows each node holds follow it, this tree's rows being split by
/// missing values). A damaged record is refused by name.
#[test]
fn splitter_record_is_read_and_checked() {
    let (_, tree) = models()
        .into_iter()
        .find(|(name, _)| name.starts_with("histogram"))
        .expect("a histogram model");
    let bytes = model_io::write(&tree, b"{}");
    let model = model_io::read(&bytes).expect("read back");
    assert_eq!(model.tree.splitter(), (Splitter::Hist, 16));
    let body = bytes.len() - 4;
    let damaged = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = bytes[..body].to_vec();
        edit(&mut b);
        let crc = crc32(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        match model_io::read(&b) {
            Err(CoreError::CorruptModel { reason }) => reason,
            other => panic!(
                "accepted a damaged splitter record: {:?}",
                other.map(|_| ())
            ),
        }
    };
    let record = Layout::of(&bytes).extensions + 4;
    assert_eq!(u32_at(&bytes, record), 1);
    let bins = record + 4 + 8 + 1 + 4;
    let end = bins + 4;
    let name = bins - 4;
    assert!(
        damaged(&|b| b[bins..end].copy_from_slice(&999u32.to_le_bytes()))
            .contains("splitter record is malformed")
    );
    assert!(
        damaged(&|b| b[bins..end].copy_from_slice(&1u32.to_le_bytes()))
            .contains("splitter record is malformed")
    );
    assert!(damaged(&|b| b[name..bins].copy_from_slice(b"fast")).contains("unknown splitter"));
    assert!(damaged(&|b| b[name..bins].copy_from_slice(b"auto")).contains("unknown splitter"));
}

/// The conventions record (extension tag 3) ends a J48 tree's file, before the CRC: tag,
/// length and the name "j48". A damaged record is refused by name.
#[test]
fn conventions_record_is_read_and_checked() {
    let (_, tree) = models()
        .into_iter()
        .find(|(name, _)| name.starts_with("j48"))
        .expect("a J48 model");
    let bytes = model_io::write(&tree, b"{}");
    let model = model_io::read(&bytes).expect("read back");
    assert_eq!(model.tree.conventions(), Conventions::J48);
    let body = bytes.len() - 4;
    let name = body - 3;
    assert_eq!(&bytes[name..body], b"j48");
    assert_eq!(
        u32::from_le_bytes(bytes[name - 13..name - 9].try_into().unwrap()),
        3
    );
    let mut b = bytes[..body].to_vec();
    b[name..body].copy_from_slice(b"j49");
    let crc = crc32(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    match model_io::read(&b) {
        Err(CoreError::CorruptModel { reason }) => {
            assert!(reason.contains("unknown conventions"), "{reason}")
        }
        other => panic!(
            "accepted a damaged conventions record: {:?}",
            other.map(|_| ())
        ),
    }
}

#[test]
fn the_same_fit_gives_the_same_bytes() {
    let a: Vec<Vec<u8>> = models().iter().map(|(_, t)| t.to_bytes()).collect();
    let b: Vec<Vec<u8>> = models().iter().map(|(_, t)| t.to_bytes()).collect();
    assert_eq!(a, b);
}

#[test]
fn loaded_trees_prune_like_the_originals() {
    for (name, tree) in models() {
        let loaded = Tree::from_bytes(&tree.to_bytes()).unwrap();
        let a = prune::cost_complexity_path(&tree);
        let b = prune::cost_complexity_path(&loaded);
        assert!(same_all(&a.ccp_alphas, &b.ccp_alphas), "{name}");
        assert!(same_all(&a.impurities, &b.impurities), "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// The layout, read independently of the implementation (from the spec), to target fields.

const HEADER: usize = 20;

/// Byte offsets of a model file's fields, computed from its counts as the spec lays them out.
#[derive(Debug, Clone)]
struct Layout {
    version: u32,
    n_features: usize,
    n_classes: usize,
    /// Version 2's outputs block: each output's classes (one entry, `n_classes`, in version 1).
    outputs: Vec<usize>,
    n_nodes: usize,
    n_sides: usize,
    n_scores: usize,
    n_linear: usize,
    n_surrogates: usize,
    n_surrogate_children: usize,
    /// Offset of the criterion's name and of the missing-value strategy's (length bytes).
    criterion: usize,
    strategy: usize,
    /// Start of the feature records.
    features: usize,
    /// Start of each node column, by name, with its element size.
    columns: Vec<(&'static str, usize, usize)>,
    value: usize,
    sides: usize,
    linear_features: usize,
    linear_weights: usize,
    surrogate_feature: usize,
    surrogate_threshold: usize,
    surrogate_agreement: usize,
    surrogate_map: usize,
    surrogate_children: usize,
    scores: usize,
    metadata_len: usize,
    extensions: usize,
    crc: usize,
}

/// Where the counts start, and how many there are.
const COUNTS: usize = HEADER;
const N_COUNTS: usize = 8;

const NODE_COLUMNS: [(&str, usize); 20] = [
    ("tag", 1),
    ("feature", 4),
    ("threshold", 8),
    ("first_child", 4),
    ("n_children", 4),
    ("branch_fraction", 8),
    ("subset_offset", 4),
    ("linear_offset", 4),
    ("linear_len", 4),
    ("missing_child", 4),
    ("surrogate_offset", 4),
    ("surrogate_len", 4),
    ("missing_weight", 8),
    ("parent", 4),
    ("depth", 4),
    ("weight", 8),
    ("n_rows", 8),
    ("impurity", 8),
    ("label", 4),
    ("score_offset", 4),
];

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

impl Layout {
    fn of(b: &[u8]) -> Layout {
        assert_eq!(&b[..8], &MAGIC);
        let version = u32_at(b, 8);
        assert!((1..=FORMAT_VERSION).contains(&version));
        assert_eq!(u64_at(b, 12) as usize, b.len());
        let count = |k: usize| u32_at(b, COUNTS + 4 * k) as usize;
        let (n_features, n_classes, n_nodes) = (count(0), count(1), count(2));
        let (n_sides, n_scores, n_linear) = (count(3), count(4), count(5));
        let (n_surrogates, n_surrogate_children) = (count(6), count(7));
        let criterion = COUNTS + 4 * N_COUNTS;
        let strategy = criterion + 1 + b[criterion] as usize;
        let features = strategy + 1 + b[strategy] as usize;
        let mut at = features + 5 * n_features;
        // Version 2: the number of outputs, then each output's classes.
        let outputs: Vec<usize> = if version >= 2 {
            let n = u32_at(b, at) as usize;
            at += 4;
            let outputs = (0..n).map(|k| u32_at(b, at + 4 * k) as usize).collect();
            at += 4 * n;
            outputs
        } else {
            vec![n_classes]
        };
        let mut columns = Vec::new();
        for (name, size) in NODE_COLUMNS {
            columns.push((name, at, size));
            // One label per output.
            let per_node = if name == "label" { outputs.len() } else { 1 };
            at += size * n_nodes * per_node;
        }
        let value = at;
        let width = if n_classes == 0 {
            outputs.len()
        } else {
            n_classes
        };
        let sides = value + 8 * n_nodes * width;
        let linear_features = sides + n_sides;
        let linear_weights = linear_features + 4 * n_linear;
        let surrogate_feature = linear_weights + 8 * n_linear;
        let surrogate_threshold = surrogate_feature + 4 * n_surrogates;
        let surrogate_agreement = surrogate_threshold + 8 * n_surrogates;
        let surrogate_map = surrogate_agreement + 8 * n_surrogates;
        let surrogate_children = surrogate_map + 4 * n_surrogates;
        let scores = surrogate_children + 4 * n_surrogate_children;
        let metadata_len = scores + 40 * n_scores;
        let extensions = metadata_len + 8 + u64_at(b, metadata_len) as usize;
        // Each extension record: tag u32, length u64, its bytes.
        let mut crc = extensions + 4;
        for _ in 0..u32_at(b, extensions) {
            crc += 12 + u64_at(b, crc + 4) as usize;
        }
        assert_eq!(
            crc + 4,
            b.len(),
            "the layout of the spec accounts for every byte"
        );
        Layout {
            version,
            n_features,
            n_classes,
            outputs,
            n_nodes,
            n_sides,
            n_scores,
            n_linear,
            n_surrogates,
            n_surrogate_children,
            criterion,
            strategy,
            features,
            columns,
            value,
            sides,
            linear_features,
            linear_weights,
            surrogate_feature,
            surrogate_threshold,
            surrogate_agreement,
            surrogate_map,
            surrogate_children,
            scores,
            metadata_len,
            extensions,
            crc,
        }
    }

    /// Offset of node `i`'s entry in column `name`, and the entry's size.
    fn field(&self, name: &str, i: usize) -> (usize, usize) {
        let (_, start, size) = self
            .columns
            .iter()
            .find(|(n, _, _)| *n == name)
            .copied()
            .unwrap_or_else(|| panic!("no column {name}"));
        (start + size * i, size)
    }

    /// Offsets of every u32 index or size field (counts, node indices, lengths).
    fn index_fields(&self) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = (0..N_COUNTS).map(|k| (COUNTS + 4 * k, 4)).collect();
        out.push((self.criterion, 1));
        out.push((self.strategy, 1));
        out.push((self.metadata_len, 8));
        out.push((self.extensions, 4));
        for j in 0..self.n_features {
            out.push((self.features + 5 * j + 1, 4));
        }
        out.extend((0..self.n_surrogates).map(|k| (self.surrogate_feature + 4 * k, 4)));
        out.extend((0..self.n_surrogates).map(|k| (self.surrogate_map + 4 * k, 4)));
        out.extend((0..self.n_surrogate_children).map(|k| (self.surrogate_children + 4 * k, 4)));
        out.extend((0..self.n_linear).map(|k| (self.linear_features + 4 * k, 4)));
        for (name, start, size) in &self.columns {
            if *size == 4 {
                out.extend((0..self.n_nodes).map(|i| (start + 4 * i, 4)));
            }
            if *name == "tag" {
                out.extend((0..self.n_nodes).map(|i| (start + i, 1)));
            }
        }
        out
    }

    /// Offsets of every f64 field.
    fn float_fields(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for (_, start, size) in &self.columns {
            if *size == 8 {
                out.extend((0..self.n_nodes).map(|i| start + 8 * i));
            }
        }
        let width = if self.n_classes == 0 {
            self.outputs.len()
        } else {
            self.n_classes
        };
        out.extend((0..self.n_nodes * width).map(|k| self.value + 8 * k));
        out.extend((0..self.n_linear).map(|k| self.linear_weights + 8 * k));
        out.extend((0..2 * self.n_surrogates).map(|k| self.surrogate_threshold + 8 * k));
        out.extend((0..self.n_scores * 5).map(|k| self.scores + 8 * k));
        out
    }
}

/// Rewrites the declared length and the checksum after an edit, so the edit reaches the
/// structural checks instead of stopping at the envelope.
fn reseal(b: &mut [u8]) {
    if b.len() < HEADER + 4 || b[..8] != MAGIC {
        return;
    }
    let n = b.len();
    b[12..20].copy_from_slice(&(n as u64).to_le_bytes());
    let crc = crc32(&b[..n - 4]);
    b[n - 4..].copy_from_slice(&crc.to_le_bytes());
}

fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
    b[at..at + bytes.len()].copy_from_slice(bytes);
}

/// The file after `edit`, resealed.
fn edited(bytes: &[u8], edit: impl FnOnce(&mut Vec<u8>, &Layout)) -> Vec<u8> {
    let layout = Layout::of(bytes);
    let mut b = bytes.to_vec();
    edit(&mut b, &layout);
    reseal(&mut b);
    b
}

fn reason(result: quercus_core::Result<model_io::Model>) -> String {
    match result {
        Err(CoreError::CorruptModel { reason }) => reason,
        other => panic!("expected CorruptModel, got {other:?}"),
    }
}

fn cart_bytes() -> Vec<u8> {
    let (_, tree) = models().into_iter().nth(2).unwrap();
    model_io::write(&tree, b"{\"k\": 1}")
}

// ---------------------------------------------------------------------------------------------
// Every error class.

#[test]
fn the_written_file_follows_the_spec_layout() {
    let b = cart_bytes();
    let l = Layout::of(&b);
    assert_eq!(&b[..8], b"\x89QRC\r\n\x1a\n");
    // One output: version 1, as quercus 0.1.0 wrote it.
    assert_eq!((l.version, l.n_features, l.n_classes), (1, 3, 3));
    assert_eq!(l.outputs, [3]);
    assert_eq!(b[l.criterion], 4);
    assert_eq!(&b[l.criterion + 1..l.criterion + 5], b"gini");
    assert_eq!(
        &b[l.strategy + 1..l.strategy + 1 + b[l.strategy] as usize],
        b"fractional"
    );
    assert_eq!(u32_at(&b, l.crc), crc32(&b[..l.crc]));
    // The root: a split, no parent, depth 0.
    assert_ne!(b[l.field("tag", 0).0], 0);
    assert_eq!(u32_at(&b, l.field("parent", 0).0), u32::MAX);
    assert_eq!(u32_at(&b, l.field("depth", 0).0), 0);
    assert!(l.n_sides > 0 && l.n_scores > 0);
}

#[test]
fn bad_magic_is_not_a_model() {
    let mut b = cart_bytes();
    b[1] = b'X';
    assert!(reason(model_io::read(&b)).contains("magic"));
    assert!(reason(model_io::read(b"")).contains("empty"));
    assert!(reason(model_io::read(b"PK\x03\x04 a zip file")).contains("magic"));
    assert!(reason(model_io::read(b"{\"json\": true}")).contains("magic"));
}

#[test]
fn other_versions_are_refused_by_number() {
    for version in [0, FORMAT_VERSION + 1, 7, u32::MAX] {
        let mut b = cart_bytes();
        b[8..12].copy_from_slice(&version.to_le_bytes());
        reseal(&mut b);
        let err = model_io::read(&b).unwrap_err();
        assert_eq!(
            err,
            CoreError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION
            }
        );
        let message = err.to_string();
        assert!(message.contains(&format!("version {version}")), "{message}");
        if version > FORMAT_VERSION {
            assert!(message.contains("newer quercus"), "{message}");
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    // The small models (every kind of split is among them): each cut costs a checksum.
    for (name, tree) in models().into_iter().filter(|(_, t)| t.n_nodes() < 40) {
        let b = model_io::write(&tree, b"{\"meta\": [1, 2, 3]}");
        for len in 0..b.len() {
            // As cut: the header's length (or the magic) gives it away.
            let err = reason(model_io::read(&b[..len]));
            assert!(
                err.contains("truncated") || err.contains("magic") || err.contains("empty"),
                "{name} cut at {len}: {err}"
            );
            // Resealed, so the structure itself is read short.
            let mut cut = b[..len].to_vec();
            reseal(&mut cut);
            assert!(model_io::read(&cut).is_err(), "{name} resealed at {len}");
        }
    }
}

#[test]
fn damage_fails_the_checksum() {
    let b = cart_bytes();
    let l = Layout::of(&b);
    let mut damaged = b.clone();
    damaged[l.field("threshold", 0).0] ^= 0x01; // still a finite threshold
    assert!(reason(model_io::read(&damaged)).contains("checksum"));
    let mut longer = b.clone();
    longer.push(0);
    assert!(reason(model_io::read(&longer)).contains("declares"));
}

#[test]
fn out_of_range_indices_are_named() {
    let b = cart_bytes();
    let l = Layout::of(&b);
    let n = l.n_nodes as u32;
    let first_split_child = {
        let (at, _) = l.field("first_child", 0);
        u32_at(&b, at) as usize
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "feature beyond the features",
            edited(&b, |b, l| {
                put(b, l.field("feature", 0).0, &3u32.to_le_bytes())
            }),
            "features",
        ),
        (
            "children beyond the arena",
            edited(&b, |b, l| {
                put(b, l.field("first_child", 0).0, &(n - 1).to_le_bytes())
            }),
            "",
        ),
        (
            "a child slot that is its own parent",
            edited(&b, |b, l| {
                put(b, l.field("first_child", 0).0, &0u32.to_le_bytes())
            }),
            "",
        ),
        (
            "a parent numbered after the node",
            edited(&b, |b, l| {
                put(b, l.field("parent", 1).0, &(n - 1).to_le_bytes())
            }),
            "parent",
        ),
        (
            "the root with a parent",
            edited(&b, |b, l| {
                put(b, l.field("parent", 0).0, &0u32.to_le_bytes())
            }),
            "root",
        ),
        (
            "a depth that skips a level",
            edited(&b, |b, l| {
                put(b, l.field("depth", 1).0, &5u32.to_le_bytes())
            }),
            "depth",
        ),
        (
            "a label beyond the classes",
            edited(&b, |b, l| {
                put(b, l.field("label", 0).0, &3u32.to_le_bytes())
            }),
            "label",
        ),
        (
            "three children for a binary test",
            edited(&b, |b, l| {
                put(b, l.field("n_children", 0).0, &3u32.to_le_bytes())
            }),
            "children",
        ),
        (
            "an unknown tag",
            edited(&b, |b, l| b[l.field("tag", 0).0] = 9),
            "tag",
        ),
        (
            "a NaN threshold",
            edited(&b, |b, l| {
                let root_numeric = (0..l.n_nodes).find(|&i| b[l.field("tag", i).0] == 1);
                let i = root_numeric.expect("a numeric node");
                put(b, l.field("threshold", i).0, &f64::NAN.to_le_bytes());
            }),
            "threshold",
        ),
        (
            "sibling fractions that add up to more than 1",
            edited(&b, |b, l| {
                let first = u32_at(b, l.field("first_child", 0).0) as usize;
                put(
                    b,
                    l.field("branch_fraction", first).0,
                    &1.0f64.to_le_bytes(),
                )
            }),
            "add up to",
        ),
        (
            "a branch fraction above 1",
            edited(&b, |b, l| {
                put(b, l.field("branch_fraction", 1).0, &1.5f64.to_le_bytes())
            }),
            "fraction",
        ),
        (
            "a negative weight",
            edited(&b, |b, l| {
                put(b, l.field("weight", 1).0, &(-1.0f64).to_le_bytes())
            }),
            "weight",
        ),
        (
            "an infinite class weight",
            edited(&b, |b, l| put(b, l.value, &f64::INFINITY.to_le_bytes())),
            "value",
        ),
        (
            "a subset mask beyond the masks",
            edited(&b, |b, l| {
                let i = (0..l.n_nodes)
                    .find(|&i| b[l.field("tag", i).0] == 3)
                    .expect("a subset node");
                put(
                    b,
                    l.field("subset_offset", i).0,
                    &(l.n_sides as u32).to_le_bytes(),
                );
            }),
            "subset mask",
        ),
        (
            "a mask entry that is no side",
            edited(&b, |b, l| b[l.sides] = 3),
            "mask entry",
        ),
        (
            "scores beyond the scores",
            edited(&b, |b, l| {
                put(
                    b,
                    l.field("score_offset", 0).0,
                    &(l.n_scores as u32).to_le_bytes(),
                )
            }),
            "scores",
        ),
        (
            "an unknown criterion",
            edited(&b, |b, l| b[l.criterion + 1] = b'x'),
            "criterion",
        ),
        (
            "a numeric feature with categories",
            edited(&b, |b, l| put(b, l.features + 1, &4u32.to_le_bytes())),
            "numeric",
        ),
        (
            "an unknown feature kind",
            edited(&b, |b, l| b[l.features] = 7),
            "kind",
        ),
        (
            "a subset test on a numeric feature",
            edited(&b, |b, l| {
                let i = (0..l.n_nodes)
                    .find(|&i| b[l.field("tag", i).0] == 3)
                    .expect("a subset node");
                put(b, l.field("feature", i).0, &0u32.to_le_bytes());
            }),
            "Subset",
        ),
        (
            "a leaf with children",
            edited(&b, |b, l| {
                let i = (0..l.n_nodes)
                    .find(|&i| b[l.field("tag", i).0] == 0)
                    .expect("a leaf");
                put(b, l.field("n_children", i).0, &2u32.to_le_bytes());
            }),
            "leaf",
        ),
        (
            "trailing bytes inside the envelope",
            edited(&b, |b, l| b.insert(l.crc, 0)),
            "unexpected bytes",
        ),
    ];
    assert!(first_split_child > 0);
    for (what, file, needle) in cases {
        let err = reason(model_io::read(&file));
        assert!(err.contains(needle), "{what}: {err}");
    }
}

#[test]
fn a_child_pointing_to_an_ancestor_is_a_cycle() {
    let b = cart_bytes();
    let l = Layout::of(&b);
    // A split below the root whose children range is moved onto the root and its children:
    // following it would loop back up the tree.
    let deep = (1..l.n_nodes)
        .find(|&i| b[l.field("tag", i).0] != 0)
        .expect("a split below the root");
    for target in [0u32, 1, deep as u32] {
        let file = edited(&b, |b, l| {
            put(b, l.field("first_child", deep).0, &target.to_le_bytes())
        });
        let err = reason(model_io::read(&file));
        assert!(!err.is_empty());
    }
    // A node claiming an ancestor as its parent while lying in another node's range.
    let grandchild = (1..l.n_nodes)
        .find(|&i| u32_at(&b, l.field("depth", i).0) == 2)
        .expect("depth 2");
    let file = edited(&b, |b, l| {
        put(b, l.field("parent", grandchild).0, &0u32.to_le_bytes())
    });
    assert!(reason(model_io::read(&file)).contains("parent"));
}

#[test]
fn huge_declared_sizes_fail_without_allocating() {
    let b = cart_bytes();
    let huge: Vec<(&str, Vec<u8>)> = vec![
        (
            "nodes",
            edited(&b, |b, _| put(b, COUNTS + 8, &(u32::MAX - 1).to_le_bytes())),
        ),
        (
            "classes",
            edited(&b, |b, _| put(b, COUNTS + 4, &u32::MAX.to_le_bytes())),
        ),
        (
            "features",
            edited(&b, |b, _| put(b, COUNTS, &u32::MAX.to_le_bytes())),
        ),
        (
            "masks",
            edited(&b, |b, _| put(b, COUNTS + 12, &u32::MAX.to_le_bytes())),
        ),
        (
            "scores",
            edited(&b, |b, _| put(b, COUNTS + 16, &u32::MAX.to_le_bytes())),
        ),
        (
            "linear terms",
            edited(&b, |b, _| put(b, COUNTS + 20, &u32::MAX.to_le_bytes())),
        ),
        (
            "surrogates",
            edited(&b, |b, _| put(b, COUNTS + 24, &u32::MAX.to_le_bytes())),
        ),
        (
            "surrogate child maps",
            edited(&b, |b, _| put(b, COUNTS + 28, &u32::MAX.to_le_bytes())),
        ),
        (
            "metadata",
            edited(&b, |b, l| put(b, l.metadata_len, &u64::MAX.to_le_bytes())),
        ),
        (
            "extensions",
            edited(&b, |b, l| put(b, l.extensions, &u32::MAX.to_le_bytes())),
        ),
        (
            "an extension record",
            edited(&b, |b, l| {
                let at = l.extensions;
                put(b, at, &1u32.to_le_bytes());
                b.splice(at + 4..at + 4, [0u8; 12]);
                put(b, at + 8, &(u64::MAX / 2).to_le_bytes());
            }),
        ),
    ];
    for (what, file) in huge {
        let (result, peak) = peak_during(|| model_io::read(&file));
        let err = reason(result);
        assert!(
            err.contains("truncated") || err.contains("more than") || err.contains("overflow"),
            "{what}: {err}"
        );
        assert!(
            peak <= memory_bound(file.len()),
            "{what}: peak {peak} bytes"
        );
    }
    // A node count of u32::MAX is refused by value: it is the "no node" sentinel.
    let file = edited(&b, |b, _| put(b, COUNTS + 8, &u32::MAX.to_le_bytes()));
    assert!(reason(model_io::read(&file)).contains("more than a tree can index"));
    let file = edited(&b, |b, _| put(b, COUNTS + 8, &0u32.to_le_bytes()));
    assert!(reason(model_io::read(&file)).contains("no nodes"));
}

#[test]
fn unknown_extension_records_are_skipped() {
    let b = cart_bytes();
    let file = edited(&b, |b, l| {
        let at = l.extensions;
        let count = u32_at(b, at) + 2;
        put(b, at, &count.to_le_bytes());
        let mut records = Vec::new();
        for (tag, payload) in [(77u32, &b"future"[..]), (78, &b""[..])] {
            records.extend_from_slice(&tag.to_le_bytes());
            records.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            records.extend_from_slice(payload);
        }
        b.splice(at + 4..at + 4, records);
    });
    let model = model_io::read(&file).expect("extensions are optional");
    assert_eq!(
        model.tree.to_bytes(),
        model_io::read(&b).unwrap().tree.to_bytes()
    );
}

#[test]
fn a_regression_criterion_needs_zero_classes() {
    let (_, tree) = models().into_iter().nth(5).unwrap();
    let b = tree.to_bytes();
    let file = edited(&b, |b, _| put(b, COUNTS + 4, &1u32.to_le_bytes()));
    assert!(model_io::read(&file).is_err());
}

// ---------------------------------------------------------------------------------------------
// The structured fuzzer.

#[derive(Debug, Clone)]
enum Mutation {
    /// Flip one bit anywhere.
    Flip(prop::sample::Index, u8),
    /// Set one byte anywhere.
    Byte(prop::sample::Index, u8),
    /// Cut the file short.
    Truncate(prop::sample::Index),
    /// Remove a run of bytes.
    Delete(prop::sample::Index, u8),
    /// Insert bytes.
    Insert(prop::sample::Index, Vec<u8>),
    /// Overwrite an index or size field with an extreme or random value.
    Index(prop::sample::Index, Extreme),
    /// Overwrite a float field with a special value.
    Float(prop::sample::Index, Special),
}

#[derive(Debug, Clone, Copy)]
enum Extreme {
    Zero,
    One,
    Max,
    MaxMinusOne,
    Half,
    NodeCount(i8),
    Random(u64),
}

#[derive(Debug, Clone, Copy)]
enum Special {
    Nan,
    Inf,
    NegInf,
    NegZero,
    Negative,
    Huge,
    Tiny,
    Two,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let index = any::<prop::sample::Index>();
    let extreme = prop_oneof![
        Just(Extreme::Zero),
        Just(Extreme::One),
        Just(Extreme::Max),
        Just(Extreme::MaxMinusOne),
        Just(Extreme::Half),
        (-2i8..=2).prop_map(Extreme::NodeCount),
        any::<u64>().prop_map(Extreme::Random),
    ];
    let special = prop_oneof![
        Just(Special::Nan),
        Just(Special::Inf),
        Just(Special::NegInf),
        Just(Special::NegZero),
        Just(Special::Negative),
        Just(Special::Huge),
        Just(Special::Tiny),
        Just(Special::Two),
    ];
    prop_oneof![
        3 => (index.clone(), 0u8..8).prop_map(|(i, b)| Mutation::Flip(i, b)),
        2 => (index.clone(), any::<u8>()).prop_map(|(i, b)| Mutation::Byte(i, b)),
        1 => index.clone().prop_map(Mutation::Truncate),
        1 => (index.clone(), 1u8..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        1 => (index.clone(), prop::collection::vec(any::<u8>(), 1..12))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        4 => (index.clone(), extreme).prop_map(|(i, e)| Mutation::Index(i, e)),
        2 => (index, special).prop_map(|(i, s)| Mutation::Float(i, s)),
    ]
}

fn apply(b: &mut Vec<u8>, m: &Mutation, layout: &Layout) {
    if b.is_empty() {
        return;
    }
    match m {
        Mutation::Flip(i, bit) => {
            let at = i.index(b.len());
            b[at] ^= 1 << bit;
        }
        Mutation::Byte(i, v) => {
            let at = i.index(b.len());
            b[at] = *v;
        }
        Mutation::Truncate(i) => b.truncate(i.index(b.len())),
        Mutation::Delete(i, n) => {
            let at = i.index(b.len());
            let end = (at + usize::from(*n)).min(b.len());
            b.drain(at..end);
        }
        Mutation::Insert(i, bytes) => {
            let at = i.index(b.len() + 1);
            b.splice(at..at, bytes.iter().copied());
        }
        Mutation::Index(i, e) => {
            let fields = layout.index_fields();
            let (at, size) = fields[i.index(fields.len())];
            let n = layout.n_nodes as u64;
            let value: u64 = match *e {
                Extreme::Zero => 0,
                Extreme::One => 1,
                Extreme::Max => u64::MAX,
                Extreme::MaxMinusOne => u64::MAX - 1,
                Extreme::Half => 1 << 31,
                Extreme::NodeCount(d) => n.wrapping_add_signed(i64::from(d)),
                Extreme::Random(r) => r,
            };
            let bytes = value.to_le_bytes();
            let bytes = match (size, *e) {
                (4 | 1, Extreme::Max | Extreme::MaxMinusOne) => {
                    let v = if matches!(e, Extreme::Max) {
                        u32::MAX
                    } else {
                        u32::MAX - 1
                    };
                    v.to_le_bytes().to_vec()
                }
                _ => bytes[..size].to_vec(),
            };
            if at + size <= b.len() {
                b[at..at + size].copy_from_slice(&bytes[..size]);
            }
        }
        Mutation::Float(i, s) => {
            let fields = layout.float_fields();
            if fields.is_empty() {
                return;
            }
            let at = fields[i.index(fields.len())];
            let x = match s {
                Special::Nan => f64::NAN,
                Special::Inf => f64::INFINITY,
                Special::NegInf => f64::NEG_INFINITY,
                Special::NegZero => -0.0,
                Special::Negative => -0.25,
                Special::Huge => 1e308,
                Special::Tiny => 5e-324,
                Special::Two => 2.0,
            };
            if at + 8 <= b.len() {
                b[at..at + 8].copy_from_slice(&x.to_le_bytes());
            }
        }
    }
}

/// Uses a loaded tree every way the library does; any panic fails the case.
fn exercise(tree: &Tree) {
    let rows = probe(tree.feature_kinds());
    let data = dataset(&rows);
    let n = 40;
    let k = tree.n_outputs();
    if tree.is_regression() {
        let y = tree.predict_value(&data).expect("predict a valid tree");
        assert_eq!(y.len(), n * k);
    } else {
        let p = tree.predict_proba(&data).expect("predict a valid tree");
        assert_eq!(p.len(), n * tree.n_classes());
        assert!(p
            .iter()
            .all(|x| x.is_finite() && *x >= 0.0 && *x <= 1.0 + 1e-6));
        let c = tree.predict_class(&data).expect("classes");
        assert_eq!(c.len(), n * k);
        let classes = tree.output_classes();
        assert!(c
            .iter()
            .enumerate()
            .all(|(i, &c)| (c as usize) < classes[i % k]));
        if k == 1 {
            prune::pessimistic(tree, 0.25, None, false)
                .expect("pessimistic pruning of a valid tree");
        } else {
            assert!(prune::pessimistic(tree, 0.25, None, false).is_err());
        }
    }
    let leaves = tree.apply(&data).expect("apply");
    assert!(leaves.iter().all(|&l| (l as usize) < tree.n_nodes()));
    let _ = prune::cost_complexity_path(tree);
    let _ = prune::cost_complexity(tree, 0.01).expect("ccp");
    let _ = (tree.n_leaves(), tree.max_depth());
    for i in 0..tree.n_nodes() as u32 {
        let node = NodeId(i);
        let _ = (tree.kind(node), tree.value(node), tree.node_scores(node));
        assert_eq!(
            tree.children(node).count() == 0,
            tree.kind(node) == NodeKind::Leaf
        );
    }
    // A loaded tree saves again, and that file loads to the same tree.
    let again = Tree::from_bytes(&tree.to_bytes()).expect("a loaded tree saves");
    assert_eq!(again.to_bytes(), tree.to_bytes());
}

fn fuzz_cases() -> u32 {
    std::env::var("QUERCUS_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000)
}

fn fuzz_config() -> ProptestConfig {
    let base = ProptestConfig::default();
    ProptestConfig {
        cases: fuzz_cases(),
        rng_seed: match base.rng_seed {
            RngSeed::Random => RngSeed::Fixed(0x0051_ECC5_F022),
            fixed => fixed,
        },
        failure_persistence: None,
        max_shrink_iters: 2_000,
        ..base
    }
}

/// The valid files the fuzzer starts from, each with its layout.
fn seeds() -> &'static [(Vec<u8>, Layout)] {
    static SEEDS: std::sync::OnceLock<Vec<(Vec<u8>, Layout)>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(|| {
        models()
            .into_iter()
            .map(|(name, tree)| {
                let meta = format!("{{\"model\": \"{name}\"}}");
                let bytes = model_io::write(&tree, meta.as_bytes());
                let layout = Layout::of(&bytes);
                (bytes, layout)
            })
            .collect()
    })
}

/// Mutated model files: every case is an error or a usable tree, within bounded memory. The
/// counts are printed for the dedicated run:
/// `QUERCUS_FUZZ_CASES=100000 cargo test --release --test model_io fuzz -- --nocapture`.
#[test]
fn fuzzed_files_load_or_fail_cleanly() {
    let mut runner = TestRunner::new(fuzz_config());
    let strategy = (
        any::<prop::sample::Index>(),
        prop::collection::vec(mutation(), 1..6),
        prop::bool::weighted(0.85),
    );
    let (run, loaded, refused_version) = (Cell::new(0u64), Cell::new(0u64), Cell::new(0u64));
    let bump = |c: &Cell<u64>| c.set(c.get() + 1);
    let result = runner.run(&strategy, |(seed, mutations, reseal_after)| {
        let (base, layout) = &seeds()[seed.index(seeds().len())];
        let mut bytes = base.clone();
        for m in &mutations {
            apply(&mut bytes, m, layout);
        }
        if reseal_after {
            reseal(&mut bytes);
        }
        let (result, peak) = peak_during(|| model_io::read(&bytes));
        prop_assert!(
            peak <= memory_bound(bytes.len()),
            "read allocated {} bytes for a {}-byte input",
            peak,
            bytes.len()
        );
        bump(&run);
        match result {
            Ok(model) => {
                bump(&loaded);
                exercise(&model.tree);
            }
            Err(CoreError::CorruptModel { reason }) => prop_assert!(!reason.is_empty()),
            Err(CoreError::UnsupportedVersion { .. }) => bump(&refused_version),
            Err(other) => prop_assert!(false, "unexpected error kind {:?}", other),
        }
        Ok(())
    });
    let (run, loaded, refused_version) = (run.get(), loaded.get(), refused_version.get());
    eprintln!(
        "model fuzzer: {run} cases, {loaded} loaded as valid trees, {refused_version} refused \
         by version, {} refused as corrupt",
        run - loaded - refused_version
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    assert_eq!(run, u64::from(fuzz_cases()));
}

#[test]
fn oblique_terms_are_checked() {
    let (_, tree) = models()
        .into_iter()
        .find(|(name, _)| name.starts_with("oblique"))
        .unwrap();
    let b = tree.to_bytes();
    let l = Layout::of(&b);
    assert!(l.n_linear >= 2);
    let oblique = (0..l.n_nodes)
        .find(|&i| b[l.field("tag", i).0] == 5)
        .expect("an oblique node");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "a term on a feature that does not exist",
            edited(&b, |b, l| {
                put(b, l.linear_features, &(l.n_features as u32).to_le_bytes())
            }),
            "linear term 0",
        ),
        (
            "an infinite coefficient",
            edited(&b, |b, l| {
                put(b, l.linear_weights, &f64::INFINITY.to_le_bytes())
            }),
            "linear term 0",
        ),
        (
            "no terms",
            edited(&b, |b, l| {
                put(b, l.field("linear_len", oblique).0, &0u32.to_le_bytes())
            }),
            "linear terms",
        ),
        (
            "terms beyond the terms",
            edited(&b, |b, l| {
                put(
                    b,
                    l.field("linear_offset", oblique).0,
                    &(l.n_linear as u32).to_le_bytes(),
                )
            }),
            "linear terms",
        ),
        (
            "terms on an axis-parallel node",
            edited(&b, |b, l| {
                let leaf = (0..l.n_nodes)
                    .find(|&i| b[l.field("tag", i).0] == 0)
                    .unwrap();
                put(b, l.field("linear_offset", leaf).0, &0u32.to_le_bytes());
                put(b, l.field("linear_len", leaf).0, &1u32.to_le_bytes());
            }),
            "linear terms",
        ),
    ];
    for (what, file, needle) in cases {
        let err = reason(model_io::read(&file));
        assert!(err.contains(needle), "{what}: {err}");
    }
}

/// A model file written from the spec alone, not by quercus: a 100,000-deep chain
/// `x <= d + 0.5` whose left children are leaves of class d % 2. It loads, predicts (a missing
/// x follows all 100,001 leaves) and saves back to the same bytes, all without recursion.
#[test]
fn a_file_written_from_the_spec_loads_a_100_000_deep_chain() {
    const DEPTH: u32 = 100_000;
    const NONE: u32 = u32::MAX;
    let n = 2 * DEPTH + 1;
    let split = |i: u32| i.is_multiple_of(2) && i < 2 * DEPTH;
    let mut b = Vec::new();
    b.extend_from_slice(&MAGIC);
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&0u64.to_le_bytes()); // length, sealed below
    for count in [1u32, 2, n, 0, 0, 0, 0, 0] {
        b.extend_from_slice(&count.to_le_bytes());
    }
    b.push(4);
    b.extend_from_slice(b"gini");
    b.push(10);
    b.extend_from_slice(b"fractional");
    b.push(0); // feature 0: numeric
    b.extend_from_slice(&0u32.to_le_bytes());
    let column_u32 = |b: &mut Vec<u8>, f: &dyn Fn(u32) -> u32| {
        (0..n).for_each(|i| b.extend_from_slice(&f(i).to_le_bytes()))
    };
    let column_f64 = |b: &mut Vec<u8>, f: &dyn Fn(u32) -> f64| {
        (0..n).for_each(|i| b.extend_from_slice(&f(i).to_le_bytes()))
    };
    // Node 2d is the split at depth d, 2d + 1 its leaf, 2d + 2 the next split (or the last
    // leaf, node 2·DEPTH).
    (0..n).for_each(|i| b.push(u8::from(split(i))));
    column_u32(&mut b, &|i| if split(i) { 0 } else { NONE });
    column_f64(&mut b, &|i| {
        if split(i) {
            f64::from(i / 2) + 0.5
        } else {
            f64::NAN
        }
    });
    column_u32(&mut b, &|i| if split(i) { i + 1 } else { NONE });
    column_u32(&mut b, &|i| if split(i) { 2 } else { 0 });
    column_f64(&mut b, &|i| if i == 0 { 1.0 } else { 0.5 });
    column_u32(&mut b, &|_| NONE); // subset_offset
    column_u32(&mut b, &|_| NONE); // linear_offset
    column_u32(&mut b, &|_| 0); // linear_len
    column_u32(&mut b, &|_| NONE); // missing_child: every child, by fraction
    column_u32(&mut b, &|_| NONE); // surrogate_offset
    column_u32(&mut b, &|_| 0); // surrogate_len
    column_f64(&mut b, &|_| 0.0); // missing_weight
    column_u32(&mut b, &|i| if i == 0 { NONE } else { (i - 1) / 2 * 2 });
    column_u32(&mut b, &|i| i.div_ceil(2));
    column_f64(&mut b, &|_| 1.0); // weight
    column_f64(&mut b, &|_| 1.0); // n_rows
    column_f64(&mut b, &|_| 0.0); // impurity
    let class = |i: u32| if i % 2 == 1 { (i / 2) % 2 } else { 0 };
    column_u32(&mut b, &class);
    column_u32(&mut b, &|_| NONE); // score_offset
    for i in 0..n {
        let v: [f64; 2] = if split(i) {
            [1.0, 1.0]
        } else if class(i) == 1 {
            [0.0, 1.0]
        } else {
            [1.0, 0.0]
        };
        v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
    }
    b.extend_from_slice(&0u64.to_le_bytes()); // no metadata
    b.extend_from_slice(&0u32.to_le_bytes()); // no extensions
    b.extend_from_slice(&[0; 4]);
    reseal(&mut b);
    let tree = Tree::from_bytes(&b).expect("a spec-conforming file");
    assert_eq!(tree.max_depth(), DEPTH as usize);
    assert_eq!(tree.n_leaves(), DEPTH as usize + 1);
    let x = [3.0, f64::from(DEPTH) + 1.0, f64::NAN];
    let data = Dataset::new(vec![quercus_core::Column::numeric(&x)]).unwrap();
    assert_eq!(tree.predict_class(&data).unwrap()[..2], [1, 0]);
    // A missing x reaches leaf d with weight 2^-(d+1): class 1 gets 1/4 + 1/16 + ... = 1/3.
    let p = tree.predict_proba(&data).unwrap();
    assert!((p[5] - 1.0 / 3.0).abs() < 1e-12 && (p[4] - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(tree.to_bytes(), b);
}

#[test]
fn missing_value_routing_is_checked() {
    let find = |name: &str| {
        models()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.to_bytes())
            .unwrap()
    };
    let b = find("surrogates mixed");
    let l = Layout::of(&b);
    assert!(l.n_surrogates >= 2 && l.n_surrogate_children >= 2);
    let owner = (0..l.n_nodes)
        .find(|&i| u32_at(&b, l.field("surrogate_len", i).0) > 0)
        .expect("a node with surrogates");
    let other_split = (0..l.n_nodes)
        .find(|&i| i != owner && b[l.field("tag", i).0] != 0)
        .expect("another split");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "a missing child beyond the children",
            edited(&b, |b, l| {
                put(b, l.field("missing_child", owner).0, &2u32.to_le_bytes())
            }),
            "missing values go to child 2",
        ),
        (
            "a leaf with a missing child",
            edited(&b, |b, l| {
                let leaf = (0..l.n_nodes)
                    .find(|&i| b[l.field("tag", i).0] == 0)
                    .unwrap();
                put(b, l.field("missing_child", leaf).0, &0u32.to_le_bytes())
            }),
            "missing-value routing",
        ),
        (
            "a surrogate child map entry beyond the children",
            edited(&b, |b, l| put(b, l.surrogate_children, &7u32.to_le_bytes())),
            "sends rows to child 7",
        ),
        (
            "two nodes sharing surrogates",
            edited(&b, |b, l| {
                let (off, len) = (
                    u32_at(b, l.field("surrogate_offset", owner).0),
                    u32_at(b, l.field("surrogate_len", owner).0),
                );
                put(
                    b,
                    l.field("surrogate_offset", other_split).0,
                    &off.to_le_bytes(),
                );
                put(
                    b,
                    l.field("surrogate_len", other_split).0,
                    &len.to_le_bytes(),
                );
            }),
            "",
        ),
        (
            "surrogates beyond the surrogates",
            edited(&b, |b, l| {
                let past = l.n_surrogates as u32;
                put(b, l.field("surrogate_offset", owner).0, &past.to_le_bytes())
            }),
            "lie outside",
        ),
        (
            "a surrogate on a feature that does not exist",
            edited(&b, |b, l| put(b, l.surrogate_feature, &9u32.to_le_bytes())),
            "surrogate split 0",
        ),
        (
            "a surrogate child map beyond the maps",
            edited(&b, |b, l| {
                let past = l.n_surrogate_children as u32;
                put(b, l.surrogate_map, &past.to_le_bytes())
            }),
            "child map",
        ),
        (
            "a NaN agreement",
            edited(&b, |b, l| {
                put(b, l.surrogate_agreement, &f64::NAN.to_le_bytes())
            }),
            "agreement",
        ),
        (
            "an infinite missing weight",
            edited(&b, |b, l| {
                put(
                    b,
                    l.field("missing_weight", owner).0,
                    &f64::INFINITY.to_le_bytes(),
                )
            }),
            "missing weight",
        ),
        (
            "an unknown missing-value strategy",
            edited(&b, |b, l| b[l.strategy + 1] = b'#'),
            "missing-value strategy",
        ),
    ];
    for (what, file, needle) in cases {
        let err = reason(model_io::read(&file));
        assert!(err.contains(needle), "{what}: {err}");
    }

    // Missing values as a category of their own: the extra, last child of a multiway split.
    let b = find("separate multiway mixed");
    let l = Layout::of(&b);
    let node = (0..l.n_nodes)
        .find(|&i| {
            b[l.field("tag", i).0] == 2
                && u32_at(&b, l.field("missing_child", i).0)
                    == u32_at(&b, l.field("n_children", i).0) - 1
        })
        .expect("a multiway split with a child for missing values");
    let file = edited(&b, |b, l| {
        put(b, l.field("missing_child", node).0, &0u32.to_le_bytes())
    });
    assert!(reason(model_io::read(&file)).contains("children; expected"));
}
