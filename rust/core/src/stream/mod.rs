//! Fitting a histogram tree on data seen batch by batch (out of core, or spread over a
//! cluster), with the tree the in-memory histogram fit grows from the same rows.
//!
//! The pieces are pure and their results additive, so any scheduler can run them where the
//! data lies (Spark MLlib grows its trees the same way: level by level over binned data, with
//! per-partition statistics reduced per level):
//! 1. a **sketch** pass draws each numeric column's sample by a hash of each row's global
//!    index ([`Sketch`]), so the bin edges do not depend on how rows are cut into batches and
//!    equal those of [`crate::grow`]'s histogram search;
//! 2. each further pass routes every batch's rows through the tree grown so far to the open
//!    nodes it serves (C4.5's fractional weights included) and adds their statistics,
//!    histograms and per-category sums ([`StreamFit::add`], [`Sums`]);
//! 3. the split of each open node is chosen from its sums by the in-memory search itself
//!    ([`Searcher::candidates_from`], `choose`, the same stopping rules), and the frontier
//!    grows ([`StreamFit::finish_pass`]).
//!
//! Regression fits take a second pass per level for the nodes' two-pass variances. Nodes
//! are numbered at the end in the in-memory fit's order (depth-first, or best-first with
//! `max_leaf_nodes`), by replaying its growth over the recorded decisions.

mod binned;
mod coded;
mod frontier;
mod kept;
mod profile;
mod replay;
mod sums;
mod turns;

use crate::builder::{
    admits, is_terminal, mean_of, split_node, summarise, NodeFigures, RegressionFigures,
};
use crate::data::{
    validate_weights, with_numbers, CategoricalColumn, Column, Dataset, FeatureKind, Numbers,
    Strided, Target,
};
use crate::error::{CoreError, Result};
use crate::params::{Conventions, MissingStrategy, Splitter, TreeParams};
use crate::routing::{send, Values};
use crate::split::hist::{
    row_hash, sample_threshold, Binned, Bins, Cuts, Histograms, Sketch as ColumnSketch,
};
use crate::split::placement::plan_with;
use crate::split::{choose, Candidate, Categories, NodeRows, Prepared, Searcher, SplitRule};
use crate::tree::{NodeId, Tree, TreeMeta, Writer};
use crate::{Control, Sample};
pub use binned::BinnedBatch;
use coded::{Coded, Labels, NO_CATEGORY};
pub use kept::KeptBatches;
use profile::{Profile, Step};
use rayon::prelude::*;
use std::time::Instant;
pub use sums::Sums;
use sums::{empty_node, NodeSums};
use turns::Turns;

/// The first pass's findings over some rows: each numeric column's sample, and the totals the
/// fit's search is set up with. Sketches of disjoint rows merge ([`Sketch::merge`]).
#[derive(Debug, Clone, Default)]
pub struct Sketch {
    columns: Vec<ColumnSketch>,
    /// Rows of positive weight (the rows a fit learns from).
    rows: u64,
    /// Σw and Σwy, summed from -0.0 in row order (as the in-memory fit sums them).
    weight: f64,
    weighted_y: f64,
    /// The lightest positive weight.
    unit: f64,
}

impl Sketch {
    /// Rows of positive weight seen: the global index of the next batch's first such row.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Moves out each column's pairs hashing above `threshold` (of [`sample_threshold`]):
    /// a column's sample is the rows at or below it when the column misses no value among
    /// them, so a distributed fit sends only this sketch's head and asks for its tail's
    /// lowest pairs ([`Self::lowest`]) only for the columns that miss some
    /// ([`StreamFit::tails_wanted`]). The tail holds no totals.
    pub fn split_off(&mut self, threshold: u64) -> Sketch {
        Sketch {
            columns: self
                .columns
                .iter_mut()
                .map(|c| c.split_off(threshold))
                .collect(),
            ..Sketch::totals_of_none()
        }
    }

    /// Each column's `counts[c]` pairs of lowest hash (none for a column without a
    /// count), with no totals: what a merge needs of a tail.
    pub fn lowest(&self, counts: &[u64]) -> Sketch {
        Sketch {
            columns: self
                .columns
                .iter()
                .enumerate()
                .map(|(c, s)| s.lowest(counts.get(c).map_or(0, |&k| k as usize)))
                .collect(),
            ..Sketch::totals_of_none()
        }
    }

    /// A sketch of no rows: totals that leave others' unchanged when merged.
    fn totals_of_none() -> Sketch {
        Sketch {
            columns: Vec::new(),
            unit: f64::INFINITY,
            weight: -0.0,
            weighted_y: -0.0,
            rows: 0,
        }
    }

    /// Adds the findings over other rows (whose global indexes the caller gave).
    pub fn merge(&mut self, other: Sketch) {
        if self.columns.is_empty() {
            self.columns = vec![ColumnSketch::default(); other.columns.len()];
        }
        for (a, b) in self.columns.iter_mut().zip(other.columns) {
            a.merge(b);
        }
        self.rows += other.rows;
        self.weight += other.weight;
        self.weighted_y += other.weighted_y;
        self.unit = self.unit.min(other.unit);
    }

    /// The sketch as bytes, for sending between processes ([`Sketch::from_bytes`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut put = |x: u64| out.extend_from_slice(&x.to_le_bytes());
        put(self.columns.len() as u64);
        put(self.rows);
        put(self.weight.to_bits());
        put(self.weighted_y.to_bits());
        put(self.unit.to_bits());
        for c in &self.columns {
            put(c.pairs.len() as u64);
            for &(h, x) in &c.pairs {
                put(h);
                put(x.to_bits());
            }
        }
        out
    }

    /// Reads [`Sketch::to_bytes`]'s output.
    pub fn from_bytes(bytes: &[u8]) -> Result<Sketch> {
        let bad = || CoreError::InvalidParameter {
            name: "sketch",
            reason: "the bytes are not a sketch written by this version".into(),
        };
        let mut words = bytes
            .chunks_exact(8)
            .map(|c| c.try_into().map(u64::from_le_bytes));
        let mut next = || words.next().and_then(|w| w.ok()).ok_or_else(bad);
        let n_columns = next()?;
        let rows = next()?;
        let weight = f64::from_bits(next()?);
        let weighted_y = f64::from_bits(next()?);
        let unit = f64::from_bits(next()?);
        let mut columns = Vec::new();
        for _ in 0..n_columns {
            let n = next()?;
            let mut pairs = Vec::new();
            for _ in 0..n {
                pairs.push((next()?, f64::from_bits(next()?)));
            }
            columns.push(ColumnSketch { pairs });
        }
        if !bytes.len().is_multiple_of(8) || next().is_ok() {
            return Err(bad());
        }
        Ok(Sketch {
            columns,
            rows,
            weight,
            weighted_y,
            unit,
        })
    }
}

/// What the next pass over the data computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Samples of the numeric columns ([`StreamFit::sketch`]).
    Sketch,
    /// Statistics and histograms of open nodes.
    Grow,
    /// Σw(y − mean)² of open nodes (regression).
    Variance,
}

/// A node of the tree as grown level by level (numbered in the order created).
#[derive(Debug)]
struct Grown {
    /// The node in the draft tree (same index).
    id: NodeId,
    usable: Vec<bool>,
    /// Statistics of the node's rows; `None` when no row reached it.
    stats: Option<Vec<f64>>,
    squares: f64,
    rows: f64,
    /// The chosen split (set once decided) and the children made by it.
    split: Option<Candidate>,
    children: Vec<usize>,
    /// The node's histograms while its search or its children's subtraction needs them.
    hist: Option<Histograms>,
    /// The node's other sums until its split is decided.
    sums: Option<NodeSums>,
    parent: Option<usize>,
    /// Once a binary split is decided, the node's rows by code of the split's feature (as
    /// its routing table orders them): the children's rows, foreseen before the pass that
    /// counts them (`Turns::foreseen_rows`).
    code_rows: Vec<f64>,
}

impl Grown {
    /// A regression node's value and impurity, as [`Criterion::regression_node`] computes
    /// them from its rows: the same sums, in the same order.
    fn regression(&self, params: &TreeParams) -> (f64, f64) {
        // No statistics: a node no row reached.
        let Some(stats @ &[weight, ..]) = self.stats.as_deref() else {
            return (0.0, 0.0);
        };
        let mean = mean_of(stats);
        let loss = if params.criterion.loss_is_zero(mean) {
            0.0
        } else {
            self.squares
        };
        (mean, loss / weight)
    }

    /// What `summarise` reads besides the node's statistics: no class factors (refused), so
    /// the rows weigh their weight; a regression node's value and impurity.
    fn figures(&self, params: &TreeParams) -> NodeFigures<fn(f64) -> f64, impl RegressionFigures> {
        let (value, impurity) = self.regression(params);
        NodeFigures {
            // A whole count: the batches' row counts, summed.
            samples: self.rows as u64,
            row_weight: std::convert::identity,
            regression: move |_: &[f64]| (vec![value], impurity),
        }
    }

    fn new(id: NodeId, usable: Vec<bool>, parent: Option<usize>) -> Grown {
        Grown {
            id,
            usable,
            stats: None,
            squares: -0.0,
            rows: 0.0,
            split: None,
            children: Vec::new(),
            hist: None,
            sums: None,
            parent,
            code_rows: Vec::new(),
        }
    }
}

/// The state of a fit over batches. Drive it with [`StreamFit::next_pass`]: for each pass,
/// build sums ([`StreamFit::sketch`] or [`StreamFit::sums`]), add every batch in any grouping
/// ([`StreamFit::add`]) and hand them back ([`StreamFit::start`], [`StreamFit::finish_pass`]);
/// then take the tree ([`StreamFit::tree`]).
pub struct StreamFit {
    params: TreeParams,
    kinds: Vec<FeatureKind>,
    n_classes: usize,
    /// Bytes of histograms a pass may hold (open nodes are served in groups within it).
    budget: usize,
    state: Option<Growing>,
    pass: u64,
    /// The features' and target's shape, which the split search reads (no rows).
    shape: Dataset<'static>,
    target: Target<'static>,
    profile: Profile,
}

struct Growing {
    cuts: Vec<Option<Cuts>>,
    bins: Bins,
    total_weight: f64,
    unit: f64,
    shift: f64,
    /// The tree as the passes decide it, never finished: read for the nodes' parents and
    /// weights while they are decided ([`replay`] writes the fitted tree).
    draft: Writer,
    nodes: Vec<Grown>,
    /// Nodes created and not yet decided, in creation order.
    open: Vec<usize>,
    /// The open nodes the current pass serves, and whether it is the variance pass.
    group: Vec<usize>,
    variance: bool,
    /// Per served node, whether its histograms are derived from its parent's and sibling's
    /// (set as the pass begins, from the rows foreseen for it): the pass's sums hold none
    /// for it. Empty: none is.
    derived: Vec<bool>,
    /// Rebuilt from another process's [`StreamFit::frontier`]: adds batches, decides nothing.
    replica: bool,
}

impl StreamFit {
    /// A fit of features of `kinds` to `n_classes` classes (0: regression) with `params`
    /// (`splitter` must be hist). Parameters that need every row at every node (validation
    /// data, oblique tests, surrogate splits, class-majority fills) are refused.
    pub fn new(
        params: TreeParams,
        kinds: Vec<FeatureKind>,
        n_classes: usize,
        memory_budget: usize,
    ) -> Result<StreamFit> {
        params.validate()?;
        let shape = Dataset::new(shape_of(&kinds))?;
        params.validate_for(&shape, n_classes)?;
        let refuse = |name: &'static str, reason: &str| {
            Err(CoreError::InvalidParameter {
                name,
                reason: format!("{reason} cannot be fitted batch by batch"),
            })
        };
        if params.splitter != Splitter::Hist {
            return refuse("splitter", "only \"hist\":");
        }
        if params.conventions == Conventions::J48 {
            return refuse(
                "conventions",
                "\"j48\" places thresholds at training values and averages gains over every \
                 feature's rows, so it",
            );
        }
        if params.oblique {
            return refuse(
                "oblique",
                "an oblique split needs every row at each node, so it",
            );
        }
        if matches!(
            params.missing,
            MissingStrategy::Surrogate | MissingStrategy::ClassMajority
        ) {
            return refuse(
                "missing",
                "\"surrogate\" and \"class_majority\" need every row at each node, so they",
            );
        }
        if !params.criterion.is_additive() {
            return refuse(
                "criterion",
                "\"absolute_error\" scans each node's rows in order, so it",
            );
        }
        let constrained = params
            .monotonic_cst
            .as_ref()
            .is_some_and(|c| c.iter().any(|&m| m != 0));
        if params.draws(kinds.len()) || constrained {
            return refuse(
                "max_features",
                "random feature subsets (drawn in the in-memory fit's node order) and \
                 monotonic constraints",
            );
        }
        if params.class_weights.is_some() || params.altered_priors {
            let name = if params.altered_priors {
                "altered_priors"
            } else {
                "class_weights"
            };
            return refuse(
                name,
                "class factors (class_weight, priors, altered priors) need the class counts \
                 first, so they",
            );
        }
        if kinds.is_empty() {
            return Err(CoreError::EmptyData {
                rows: 0,
                columns: 0,
            });
        }
        let target = match n_classes {
            0 => Target::Values(&[]),
            n_classes => Target::Classes {
                codes: &[],
                n_classes,
            },
        };
        Ok(StreamFit {
            params,
            kinds,
            n_classes,
            budget: memory_budget.max(1),
            state: None,
            pass: 0,
            shape,
            target,
            profile: Profile::default(),
        })
    }

    /// What the next pass computes; `None` once the tree is grown.
    pub fn next_pass(&self) -> Option<Pass> {
        match &self.state {
            None => Some(Pass::Sketch),
            Some(g) if g.group.is_empty() => None,
            Some(g) if g.variance => Some(Pass::Variance),
            Some(_) => Some(Pass::Grow),
        }
    }

    /// Classes of the target (0: regression).
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// The passes done so far.
    pub fn passes(&self) -> u64 {
        self.pass
    }

    /// Seconds spent so far in each step the core times (checking batches, sketching,
    /// binning, routing, histograms, choosing splits, keeping batches), named.
    pub fn profile(&self) -> Vec<(&'static str, f64)> {
        self.profile.seconds()
    }

    /// An empty sketch for the first pass.
    pub fn sketch(&self) -> Sketch {
        Sketch {
            columns: vec![ColumnSketch::default(); self.kinds.len()],
            ..Sketch::totals_of_none()
        }
    }

    /// The hash threshold of [`Sketch::split_off`] for a fit of `rows` rows of positive
    /// weight, and how many rows hash at or below it.
    pub fn sample_threshold(rows: u64) -> (u64, u64) {
        sample_threshold(rows)
    }

    /// Given the merged heads of every partition's sketch, split at the threshold below
    /// which `below` rows hash, how many of its lowest pairs each column needs from each
    /// partition's tail: its missing values among those rows (0 for a column missing none,
    /// and for categorical columns, which are not sampled).
    pub fn tails_wanted(&self, head: &Sketch, below: u64) -> Vec<u64> {
        self.kinds
            .iter()
            .zip(&head.columns)
            .map(|(k, c)| match k {
                FeatureKind::Numeric => below.saturating_sub(c.pairs.len() as u64),
                FeatureKind::Categorical { .. } => 0,
            })
            .collect()
    }

    /// Checks a batch against the fit's schema: the features' kinds and categories, finite
    /// values, valid targets and weights. An empty batch passes (and adds nothing).
    fn check(&self, batch: &Sample<'_, '_>) -> Result<()> {
        let data = batch.data;
        if data.n_rows() == 0 && data.n_features() == self.kinds.len() {
            return Ok(());
        }
        data.validate_for_predict(&self.kinds)?;
        let outputs = batch.target.n_outputs();
        if outputs > 1 {
            return Err(CoreError::InvalidParameter {
                name: "y",
                reason: format!(
                    "the target has {outputs} outputs (multi-output y); a fit batch by batch \
                     grows a tree of one output"
                ),
            });
        }
        if let Some(j) = data
            .columns()
            .iter()
            .position(|c| matches!(c, Column::Sparse(_)))
        {
            return Err(CoreError::InvalidParameter {
                name: "batch",
                reason: format!("column {j} is sparse; a fit batch by batch reads dense columns"),
            });
        }
        for (j, (col, kind)) in data.columns().iter().zip(&self.kinds).enumerate() {
            if let (Column::Categorical(c), FeatureKind::Categorical { n_categories, .. }) =
                (col, kind)
            {
                if c.n_categories != *n_categories {
                    return Err(CoreError::InvalidParameter {
                        name: "batch",
                        reason: format!(
                            "column {j} has {} categories in this batch, {n_categories} in the first",
                            c.n_categories
                        ),
                    });
                }
            }
        }
        data.validate_for_fit()?;
        batch.target.validate(data.n_rows())?;
        if let Target::Classes { n_classes, .. } = batch.target {
            if *n_classes != self.n_classes {
                return Err(CoreError::InvalidParameter {
                    name: "batch",
                    reason: format!(
                        "the target has {n_classes} classes in this batch, {} in the first",
                        self.n_classes
                    ),
                });
            }
        } else if self.n_classes != 0 {
            return Err(CoreError::InvalidParameter {
                name: "batch",
                reason: "the target is real-valued in this batch, classes in the first".into(),
            });
        }
        validate_weights(batch.weights, data.n_rows())
    }

    /// Adds a batch to a sketch. Its rows of positive weight get the global indexes from
    /// `offset` (the rows of positive weight before it, [`Sketch::rows`] in a sequential
    /// fit); returns how many it has.
    pub fn add_to_sketch(
        &self,
        sketch: &mut Sketch,
        batch: &Sample<'_, '_>,
        offset: u64,
    ) -> Result<u64> {
        let start = Instant::now();
        self.check(batch)?;
        self.profile.add(Step::Check, start);
        let start = Instant::now();
        let kept = kept_rows(batch.weights);
        let all_kept = kept.len() == batch.weights.len();
        // Each kept row's hash, worked out once for every column.
        let hashes: Vec<u64> = (0..kept.len() as u64)
            .map(|i| row_hash(offset + i))
            .collect();
        // The rows a column without missing values keeps: the lowest hashes, chosen once
        // (a sketch of row positions prunes them as each column's sketch would).
        let mut chosen = ColumnSketch::default();
        chosen.merge(ColumnSketch {
            pairs: hashes
                .iter()
                .enumerate()
                .map(|(i, &h)| (h, i as f64))
                .collect(),
        });
        // Columns sample independently, so in parallel.
        let add = |(col, s): (&Column<'_>, &mut ColumnSketch)| {
            let Column::Numeric(values) = col else { return };
            let value = |i: usize| {
                let r = if all_kept {
                    Some(i)
                } else {
                    kept.get(i).copied()
                };
                r.and_then(|r| values.get(r)).unwrap_or(f64::NAN)
            };
            let complete = if all_kept {
                !values.has_nan()
            } else {
                (0..kept.len()).all(|i| !value(i).is_nan())
            };
            let pairs = if complete {
                let at = |&(h, i): &(u64, f64)| (h, value(i as usize));
                chosen.pairs.iter().map(at).collect()
            } else if let Some(v) = values.as_f64().filter(|_| all_kept) {
                // The column's own known rows, read in place.
                return s.add(v, offset);
            } else {
                let known = |(i, &h): (usize, &u64)| Some((h, value(i))).filter(|p| !p.1.is_nan());
                hashes.iter().enumerate().filter_map(known).collect()
            };
            s.merge(ColumnSketch { pairs });
        };
        batch
            .data
            .columns()
            .par_iter()
            .zip(sketch.columns.par_iter_mut())
            .for_each(add);
        for &r in &kept {
            let w = batch.weights.get(r).copied().unwrap_or(0.0);
            sketch.weight += w;
            sketch.unit = sketch.unit.min(w);
            if let Target::Values(y) = batch.target {
                sketch.weighted_y += w * y.get(r).copied().unwrap_or(0.0);
            }
        }
        sketch.rows += kept.len() as u64;
        self.profile.add(Step::Sketch, start);
        Ok(kept.len() as u64)
    }

    /// Ends the first pass: the bin edges, the root.
    pub fn start(&mut self, sketch: Sketch) -> Result<()> {
        if self.state.is_some() {
            return Err(order("start", "the fit has started"));
        }
        if sketch.rows == 0 || sketch.weight <= 0.0 {
            return Err(CoreError::InvalidParameter {
                name: "sample_weight",
                reason: "no row has a positive weight, so there is no row to learn from".into(),
            });
        }
        let cuts: Vec<Option<Cuts>> = self
            .kinds
            .iter()
            .zip(sketch.columns)
            .map(|(k, s)| (*k == FeatureKind::Numeric).then(|| s.cuts(self.params.max_bins)))
            .collect();
        let bins = empty_bins(&cuts);
        let shift = if self.n_classes == 0 && self.params.criterion.centres_targets() {
            sketch.weighted_y / sketch.weight
        } else {
            0.0
        };
        let mut draft = Writer::new(TreeMeta::new(
            self.params.criterion,
            self.kinds.clone(),
            vec![self.n_classes],
        ));
        let root = draft.root(1.0);
        self.state = Some(Growing {
            cuts,
            bins,
            total_weight: sketch.weight,
            unit: sketch.unit,
            shift,
            draft,
            nodes: vec![Grown::new(root, vec![true; self.kinds.len()], None)],
            open: Vec::new(),
            group: vec![0],
            variance: false,
            derived: Vec::new(),
            replica: false,
        });
        self.pass += 1;
        Ok(())
    }

    /// Empty sums for the current pass.
    pub fn sums(&self) -> Result<Sums> {
        let g = self.growing("sums")?;
        let searcher = self.searcher(g);
        let slots = searcher.zero_stats().len() + 1;
        let first = self.pass == 1;
        let nodes = g
            .group
            .iter()
            .enumerate()
            .filter_map(|(s, &i)| {
                Some((g.derived.get(s).copied().unwrap_or(false), g.nodes.get(i)?))
            })
            .map(|(derived, n)| {
                if g.variance {
                    return empty_node(0, false, 0, 0, Vec::new());
                }
                let (_, all) = Histograms::layout(&g.bins, &n.usable, slots);
                let len = if derived { 0 } else { all };
                let cats = self
                    .kinds
                    .iter()
                    .zip(&n.usable)
                    .map(|(k, &u)| match k {
                        FeatureKind::Categorical { n_categories, .. } if u => {
                            Some(Categories::empty(&searcher, *n_categories as usize))
                        }
                        _ => None,
                    })
                    .collect();
                empty_node(slots - 1, g.shift != 0.0, self.kinds.len(), len, cats)
            })
            .collect();
        let ranges = |fill: f64| -> Vec<Vec<f64>> {
            g.cuts
                .iter()
                .map(|c| match c {
                    Some(c) if first => vec![fill; c.n_bins()],
                    _ => Vec::new(),
                })
                .collect()
        };
        Ok(Sums {
            nodes,
            lo: ranges(f64::INFINITY),
            hi: ranges(f64::NEG_INFINITY),
            pass: self.pass,
        })
    }

    /// Reads sums sent as [`Sums::to_vec`] for the current pass.
    pub fn sums_from(&self, values: &[f64]) -> Result<Sums> {
        let mut sums = self.sums()?;
        sums.read(values)
            .ok_or_else(|| CoreError::InvalidParameter {
                name: "sums",
                reason: format!("these are not sums of pass {} of this fit", self.pass),
            })?;
        Ok(sums)
    }

    /// Adds a batch to the current pass's sums; `offset` as for [`Self::add_to_sketch`].
    /// Returns the batch's rows of positive weight.
    pub fn add(&self, sums: &mut Sums, batch: &Sample<'_, '_>, offset: u64) -> Result<u64> {
        let _ = offset; // Row indexes matter to the sample only; kept for a uniform call.
        Ok(self.add_batch(sums, batch)?.len() as u64)
    }

    /// [`Self::add`], keeping the batch binned in `kept` so that the passes after this one
    /// read it there ([`Self::add_kept`]) instead of the source.
    pub fn add_keeping(
        &self,
        sums: &mut Sums,
        batch: &Sample<'_, '_>,
        kept: &mut KeptBatches,
    ) -> Result<u64> {
        let coded = self.add_batch(sums, batch)?;
        let n = coded.len() as u64;
        let start = Instant::now();
        kept.push(self.pass, coded)?;
        self.profile.add(Step::Keep, start);
        Ok(n)
    }

    /// Adds every batch `kept` holds (those of an earlier pass, all of them) to the current
    /// pass's sums, in the order they were kept. A pass that grows binary families first
    /// routes the rows to count each node's, so that the larger child of each family, whose
    /// histograms [`Growing::absorb`] derives by subtraction, is not summed (the in-memory
    /// fit sums only the smaller child's too).
    pub fn add_kept(
        &self,
        sums: &mut Sums,
        kept: &mut KeptBatches,
        control: &Control,
    ) -> Result<()> {
        let g = self.growing("add_kept")?;
        if sums.pass != self.pass {
            return Err(order("add_kept", "these sums belong to another pass"));
        }
        if kept.pass().is_none_or(|p| p >= self.pass) {
            return Err(order(
                "add_kept",
                "no earlier pass kept its batches (add_keeping), so they are not all there",
            ));
        }
        let turns = self.turns(g);
        kept.each(g.variance, |coded| {
            control.check()?;
            let mut parts = vec![NodeRows::default(); g.group.len()];
            self.route_kept(g, coded, &turns, |s, i, w| gather(&mut parts, s, i, w));
            self.accumulate(g, sums, coded, &parts, &g.derived);
            Ok(())
        })?;
        self.profile.add_seconds(Step::Keep, kept.take_io_seconds());
        Ok(())
    }

    /// A kept batch's rows routed from their nodes ([`Self::route`]), which move on.
    fn route_kept(
        &self,
        g: &Growing,
        coded: &mut Coded,
        turns: &Turns<'_>,
        add: impl FnMut(usize, usize, f64),
    ) {
        let mut nodes = std::mem::take(&mut coded.nodes);
        let held: &Coded = coded;
        let bound = turns.bind(held);
        let weights = &held.weights;
        self.route(
            g,
            |n, at, i| bound.step(at, n, i),
            weights,
            Some(&mut nodes),
            add,
        );
        coded.nodes = nodes;
    }

    /// The tables [`Self::route_kept`] and [`Self::add_binned`] route binned rows by.
    fn turns<'g>(&self, g: &'g Growing) -> Turns<'g> {
        Turns::new(g, |f| categories_of(&self.kinds, f))
    }

    /// Checks, bins and adds a batch; returns it binned.
    fn add_batch(&self, sums: &mut Sums, batch: &Sample<'_, '_>) -> Result<Coded> {
        let g = self.growing("add")?;
        if sums.pass != self.pass {
            return Err(order("add", "these sums belong to another pass"));
        }
        let start = Instant::now();
        self.check(batch)?;
        let kept = kept_rows(batch.weights);
        self.profile.add(Step::Check, start);
        let mut coded = self.code(g, batch, &kept);
        widen_all(sums, &coded);
        let mut nodes = std::mem::take(&mut coded.nodes);
        let values = batch.data.columns();
        let row = |i: usize| kept.get(i).copied().unwrap_or(usize::MAX);
        let mut parts = vec![NodeRows::default(); g.group.len()];
        self.route(
            g,
            |n, _, i| step(n, values, row(i)),
            &coded.weights,
            Some(&mut nodes),
            |s, i, w| gather(&mut parts, s, i, w),
        );
        coded.nodes = nodes;
        self.accumulate(g, sums, &coded, &parts, &g.derived);
        Ok(coded)
    }

    /// The batch's rows of positive weight (`kept`) binned by the fit's cuts, all at the
    /// root.
    fn code(&self, g: &Growing, batch: &Sample<'_, '_>, kept: &[usize]) -> Coded {
        let start = Instant::now();
        let columns = batch.data.columns();
        let all_kept = kept.len() == batch.weights.len();
        let gather = |v: &Numbers<'_>| -> Vec<f64> {
            kept.iter().map(|&r| v.get(r).unwrap_or(f64::NAN)).collect()
        };
        let bin = |(col, cuts): (&Column<'_>, &Option<Cuts>)| match (col, cuts) {
            (Column::Numeric(v), Some(c)) if all_kept => {
                with_numbers!(v, |v| Binned::with_cuts(v, c, None))
            }
            (Column::Numeric(v), Some(c)) => {
                Binned::with_cuts(&Strided::contiguous(&gather(v)), c, None)
            }
            _ => None,
        };
        let binned: Vec<Option<Binned>> = columns.par_iter().zip(&g.cuts).map(bin).collect();
        let cats: Vec<Option<Vec<u32>>> = columns
            .iter()
            .map(|col| match col {
                Column::Categorical(c) => Some(
                    kept.iter()
                        .map(|&r| c.code(r).unwrap_or(NO_CATEGORY)) // missing
                        .collect(),
                ),
                _ => None,
            })
            .collect();
        let missing = binned
            .iter()
            .zip(&cats)
            .zip(&g.cuts)
            .map(|((b, c), cuts)| match (b, c, cuts) {
                (Some(b), _, Some(cuts)) => b.codes().contains(&(cuts.n_bins() as u8)),
                (_, Some(c), _) => c.contains(&NO_CATEGORY),
                _ => false,
            })
            .collect();
        let labels = match batch.target {
            Target::Values(y) => Labels::Values(
                kept.iter()
                    .map(|&r| y.get(r).copied().unwrap_or(0.0))
                    .collect(),
            ),
            Target::Classes { codes, .. } => Labels::Classes(
                kept.iter()
                    .map(|&r| codes.get(r).copied().unwrap_or(0))
                    .collect(),
            ),
            // Several outputs are refused by `check`.
            Target::MultiClasses { .. } | Target::MultiValues { .. } => Labels::Classes(Vec::new()),
        };
        let weights: Vec<f64> = kept
            .iter()
            .map(|&r| batch.weights.get(r).copied().unwrap_or(0.0))
            .collect();
        let coded = Coded {
            bins: Bins::from_columns(binned),
            cats,
            labels,
            nodes: vec![0; weights.len()],
            weights,
            has_missing: missing,
        };
        self.profile.add(Step::Bin, start);
        coded
    }

    /// Sends each row of a batch (its position among the kept rows, `i`, and weight `w`)
    /// down the splits grown so far to the nodes the pass serves, where `step(node, its
    /// index, row)` sends it (C4.5's fractions where it misses a tested value), and calls
    /// `add(served slot, i, w)` for each node it reaches. Rows start at the root or at their
    /// node in `nodes`, which then moves to the deepest node the row reaches whole.
    fn route(
        &self,
        g: &Growing,
        step: impl for<'n> Fn(&'n Grown, usize, usize) -> Move<'n>,
        weights: &[f64],
        mut nodes: Option<&mut [u32]>,
        mut add: impl FnMut(usize, usize, f64),
    ) {
        let start = Instant::now();
        let mut slot_of = vec![usize::MAX; g.nodes.len()];
        for (s, &i) in g.group.iter().enumerate() {
            if let Some(x) = slot_of.get_mut(i) {
                *x = s;
            }
        }
        let served = |i: usize| slot_of.get(i).copied().filter(|&s| s != usize::MAX);
        let mut stack = Vec::new();
        for (i, &w) in weights.iter().enumerate() {
            let node = nodes.as_deref_mut().and_then(|n| n.get_mut(i));
            let mut at = node.as_deref().map_or(0, |&n| n as usize); // no nodes: the root
            let mut spread = None;
            loop {
                if let Some(s) = served(at) {
                    add(s, i, w);
                    break;
                }
                let Some(n) = g.nodes.get(at) else { break };
                match step(n, at, i) {
                    Move::To(child) => at = child,
                    Move::Spread(children, fractions) => {
                        spread = Some((children, fractions));
                        break;
                    }
                    Move::Stop => break,
                }
            }
            if let Some(node) = node {
                *node = at as u32;
            }
            let Some((children, fractions)) = spread else {
                continue;
            };
            for (&child, &f) in children.iter().zip(fractions) {
                if f > 0.0 {
                    stack.push((child, w * f));
                }
            }
            while let Some((at, w)) = stack.pop() {
                if let Some(s) = served(at) {
                    add(s, i, w);
                    continue;
                }
                let Some(n) = g.nodes.get(at) else { continue };
                match step(n, at, i) {
                    Move::To(child) => stack.push((child, w)),
                    Move::Spread(children, fractions) => {
                        for (&child, &f) in children.iter().zip(fractions) {
                            if f > 0.0 {
                                stack.push((child, w * f));
                            }
                        }
                    }
                    Move::Stop => {}
                }
            }
        }
        self.profile.add(Step::Route, start);
    }

    /// Adds the routed rows of a binned batch to the served nodes' sums: statistics, missing
    /// weights, histograms (but for the nodes `skip` marks, whose histograms are derived) and
    /// per-category sums; on the variance pass, Σw(y − mean)². Each node's rows are added in
    /// row order, as the in-memory fit adds them, so the sums carry its bits.
    fn accumulate(
        &self,
        g: &Growing,
        sums: &mut Sums,
        coded: &Coded,
        parts: &[NodeRows],
        skip: &[bool],
    ) {
        let start = Instant::now();
        let target = coded.target(self.n_classes);
        let searcher = Searcher::new(&self.shape, &target, &self.params, g.total_weight)
            .counting_rows_in(g.unit);
        if g.variance {
            let y = match &coded.labels {
                Labels::Values(y) => y.as_slice(),
                Labels::Classes(_) => &[],
            };
            let criterion = self.params.criterion;
            for ((s, rows), &i) in sums.nodes.iter_mut().zip(parts).zip(&g.group) {
                let mean = g
                    .nodes
                    .get(i)
                    .and_then(|n| n.stats.as_deref())
                    .map_or(0.0, mean_of);
                for (r, w) in rows.iter() {
                    let y = y.get(r).copied().unwrap_or(mean);
                    if let Some(term) = criterion.loss_term(mean, y, w) {
                        s.squares += term;
                    }
                }
            }
            self.profile.add(Step::Histograms, start);
            return;
        }
        let centred = searcher.centred_on(g.shift);
        let slots = searcher.zero_stats().len() + 1;
        let missing_codes: Vec<Option<u8>> = g
            .cuts
            .iter()
            .map(|c| c.as_ref().map(|c| c.n_bins() as u8))
            .collect();
        let add = |((s, rows), (&i, &skip)): ((&mut NodeSums, &NodeRows), (&usize, &bool))| {
            let Some(node) = g.nodes.get(i) else { return };
            for (r, w) in rows.iter() {
                target.accumulate(&mut s.stats, r, w);
                if !s.centred.is_empty() {
                    target.accumulate_around(&mut s.centred, r, w, g.shift);
                }
            }
            s.rows += rows.len() as f64;
            for (f, m) in s.missing_weight.iter_mut().enumerate() {
                if !coded.has_missing.get(f).copied().unwrap_or(false) {
                    continue;
                }
                let code = missing_codes.get(f).copied().flatten();
                for (r, w) in rows.iter() {
                    let missing = match code {
                        Some(code) => coded.code(f, r) == Some(code),
                        None => coded.category(f, r).is_none(),
                    };
                    if missing {
                        *m += w;
                    }
                }
            }
            if !skip {
                let (spans, _) = Histograms::layout(&g.bins, &node.usable, slots);
                centred.add_to_histograms(&coded.bins, &spans, &mut s.hist, rows, None);
            }
            for (f, cats) in s.cats.iter_mut().enumerate() {
                if let Some(cats) = cats {
                    let codes: Vec<Option<u32>> = rows
                        .rows
                        .iter()
                        .map(|&r| coded.category(f, r as usize))
                        .collect();
                    centred.add_to_categories(cats, &codes, rows);
                }
            }
        };
        let no_skip = vec![false; g.group.len()];
        let skip = if skip.is_empty() { &no_skip } else { skip };
        sums.nodes
            .par_iter_mut()
            .zip(parts)
            .zip(g.group.par_iter().zip(skip))
            .for_each(add);
        self.profile.add(Step::Histograms, start);
    }

    /// Ends a pass with the sums of every row: decides the served nodes' splits (after the
    /// variance pass, for regression) and picks the nodes the next pass serves.
    pub fn finish_pass(&mut self, sums: Sums, control: &Control) -> Result<()> {
        control.check()?;
        let start = Instant::now();
        let outcome = self.end_pass(sums);
        self.profile.add(Step::Splits, start);
        outcome
    }

    fn end_pass(&mut self, sums: Sums) -> Result<()> {
        let Some(g) = self.state.as_mut().filter(|g| !g.replica) else {
            return Err(order(
                "finish_pass",
                "the fit has not started, or is a replica (resume) that only adds batches",
            ));
        };
        if sums.pass != self.pass || sums.nodes.len() != g.group.len() {
            return Err(order("finish_pass", "these sums belong to another pass"));
        }
        self.pass += 1;
        if g.variance {
            for (s, &i) in sums.nodes.iter().zip(&g.group) {
                if let Some(n) = g.nodes.get_mut(i) {
                    n.squares = s.squares;
                }
            }
            g.variance = false;
        } else {
            if !sums.lo.iter().all(Vec::is_empty) {
                let columns = g
                    .cuts
                    .iter()
                    .zip(sums.lo.into_iter().zip(sums.hi))
                    .map(|(c, (lo, hi))| c.as_ref().map(|_| Binned::ranges(lo, hi)))
                    .collect();
                g.bins = Bins::from_columns(columns);
            }
            g.absorb(sums.nodes, self.n_classes)?;
            if self.n_classes == 0 {
                g.variance = true;
                return Ok(());
            }
        }
        let searcher = Searcher::new(&self.shape, &self.target, &self.params, g.total_weight)
            .counting_rows_in(g.unit)
            .centred_on(g.shift);
        g.decide(&searcher, &self.params);
        g.pick_group(self.budget, self.n_classes);
        // The larger child of each binary split gets its histograms by subtraction, so the
        // pass need not sum them: which child is larger is foreseen from the parent's rows
        // by code, with no pass over the rows to count them.
        let kinds = &self.kinds;
        let rows = Turns::new(g, |f| categories_of(kinds, f)).foreseen_rows(g);
        g.derived = g.derived(&rows);
        Ok(())
    }

    /// The grown tree, its nodes numbered as the in-memory fit numbers them.
    pub fn tree(&self) -> Result<Tree> {
        let g = self.growing("tree")?;
        if !g.group.is_empty() || g.replica {
            return Err(order("tree", "the tree is still growing"));
        }
        let searcher = self.searcher(g);
        replay::replay(
            &self.params,
            &self.kinds,
            self.n_classes,
            &g.nodes,
            &searcher,
        )
    }

    /// The in-memory fit's searcher: counting rows in units of the lightest weight,
    /// regression histograms centred on the root's mean; its data is only the shape.
    fn searcher<'a>(&'a self, g: &Growing) -> Searcher<'a, 'static> {
        Searcher::new(&self.shape, &self.target, &self.params, g.total_weight)
            .counting_rows_in(g.unit)
            .centred_on(g.shift)
    }

    fn growing(&self, what: &'static str) -> Result<&Growing> {
        self.state
            .as_ref()
            .ok_or_else(|| order(what, "the sketch pass has not ended (call start)"))
    }
}

fn order(what: &'static str, reason: &str) -> CoreError {
    CoreError::InvalidParameter {
        name: what,
        reason: reason.into(),
    }
}

/// Where a split sends a row: to one child, to each child with its fraction (C4.5, the row
/// misses the tested value), or nowhere (the node is not split).
enum Move<'n> {
    To(usize),
    Spread(&'n [usize], &'n [f64]),
    Stop,
}

/// Where node `n`'s split sends row `r` of `values`.
fn step<'n, V: Values + ?Sized>(n: &'n Grown, values: &V, r: usize) -> Move<'n> {
    let Some(split) = n.split.as_ref().filter(|_| !n.children.is_empty()) else {
        return Move::Stop;
    };
    match send(&split.kind(), || split.missing_plan.rule(), values, r) {
        Some(c) => n.children.get(c).map_or(Move::Stop, |&c| Move::To(c)),
        None => Move::Spread(&n.children, &split.fractions),
    }
}

/// Adds row `i` of weight `w` to the rows of served node `slot`.
fn gather(parts: &mut [NodeRows], slot: usize, i: usize, w: f64) {
    if let Some(p) = parts.get_mut(slot) {
        p.push(i as u32, w);
    }
}

/// On the first grow pass, widens the sums' value ranges by a coded batch's.
fn widen_all(sums: &mut Sums, coded: &Coded) {
    for (f, (lo, hi)) in sums.lo.iter_mut().zip(sums.hi.iter_mut()).enumerate() {
        if let (Some(b), false) = (coded.bins.column(f), lo.is_empty()) {
            let (blo, bhi) = b.lo_hi();
            widen(lo, hi, blo, bhi);
        }
    }
}

/// Widens value ranges `lo`, `hi` by another set of rows' (bin by bin).
fn widen(lo: &mut [f64], hi: &mut [f64], other_lo: &[f64], other_hi: &[f64]) {
    lo.iter_mut()
        .zip(other_lo)
        .for_each(|(x, y)| *x = x.min(*y));
    hi.iter_mut()
        .zip(other_hi)
        .for_each(|(x, y)| *x = x.max(*y));
}

/// The rows of positive weight (the rows a fit learns from; see `data::KeptRows`). The batch
/// passed `check` (its columns, target and weights have its rows), so reading a kept row
/// never takes the defaults this module writes for it (NaN, 0.0, class 0).
fn kept_rows(weights: &[f64]) -> Vec<usize> {
    (0..weights.len())
        .filter(|&r| weights.get(r).is_some_and(|&w| w > 0.0))
        .collect()
}

impl Growing {
    /// Stores the served nodes' sums: statistics, and histograms — for the two children of a
    /// binary split that sent each row to one of them, the larger's as the parent's minus the
    /// smaller's, as the in-memory fit derives them (`Grower::hand_down`), so the same
    /// numbers.
    fn absorb(&mut self, sums: Vec<NodeSums>, n_classes: usize) -> Result<()> {
        let mut underived: Vec<usize> = self
            .group
            .iter()
            .zip(&self.derived)
            .filter_map(|(&i, &d)| d.then_some(i))
            .collect();
        let slots = if n_classes == 0 { 4 } else { n_classes + 1 };
        for (mut s, &i) in sums.into_iter().zip(&self.group) {
            let Some(n) = self.nodes.get_mut(i) else {
                continue;
            };
            let (spans, _) = Histograms::layout(&self.bins, &n.usable, slots);
            n.hist = Some(Histograms::from_sums(
                spans,
                std::mem::take(&mut s.hist),
                slots,
            ));
            n.rows = s.rows;
            n.stats = (s.rows > 0.0).then(|| s.stats.clone());
            n.sums = Some(s);
        }
        let mut parents: Vec<usize> = self
            .group
            .iter()
            .filter_map(|&i| self.nodes.get(i)?.parent)
            .collect();
        parents.dedup();
        for p in parents {
            let rows = |k: usize| self.nodes.get(k).map_or(0.0, |n| n.rows);
            let pair = self.subtracted(p, rows);
            // The parent's histograms are of no more use either way.
            let parent_hist = self.nodes.get_mut(p).and_then(|n| n.hist.take());
            let (Some((small, large)), Some(parent_hist)) = (pair, parent_hist) else {
                continue;
            };
            let Some(small_hist) = self.nodes.get(small).and_then(|n| n.hist.as_ref()) else {
                continue;
            };
            let derived = parent_hist.subtract_from(small_hist);
            if let Some(n) = self.nodes.get_mut(large) {
                n.hist = Some(derived);
            }
            underived.retain(|&k| k != large);
        }
        if !underived.is_empty() {
            return Err(order(
                "finish_pass",
                "the rows given to derive are not those the pass's sums count",
            ));
        }
        Ok(())
    }

    /// The smaller and the larger child of node `p` when the larger's histograms are the
    /// parent's minus the smaller's: a binary split whose parent kept its histograms and that
    /// sent each row to one child (`rows` of each node: no fractional row).
    fn subtracted(&self, p: usize, rows: impl Fn(usize) -> f64) -> Option<(usize, usize)> {
        let parent = self.nodes.get(p)?;
        let (true, &[l, r]) = (parent.hist.is_some(), parent.children.as_slice()) else {
            return None;
        };
        if parent.rows != rows(l) + rows(r) {
            return None;
        }
        Some(if rows(l) <= rows(r) { (l, r) } else { (r, l) })
    }

    /// Which served nodes [`Self::absorb`] will give derived histograms, from the rows each
    /// gets this pass (`rows`, per served node): their histograms need not be summed.
    fn derived(&self, rows: &[f64]) -> Vec<bool> {
        let mut slot_of = vec![usize::MAX; self.nodes.len()];
        for (s, &i) in self.group.iter().enumerate() {
            if let Some(x) = slot_of.get_mut(i) {
                *x = s;
            }
        }
        let served_rows = |k: usize| {
            let s = slot_of.get(k).copied().unwrap_or(usize::MAX);
            rows.get(s)
                .copied()
                .unwrap_or_else(|| self.nodes.get(k).map_or(0.0, |n| n.rows))
        };
        let mut derived = vec![false; self.group.len()];
        for &i in &self.group {
            let Some(p) = self.nodes.get(i).and_then(|n| n.parent) else {
                continue;
            };
            if let Some((_, large)) = self.subtracted(p, served_rows) {
                if let Some(d) = slot_of.get(large).and_then(|&s| derived.get_mut(s)) {
                    *d = true;
                }
            }
        }
        derived
    }

    /// Summarises and searches each served node as the in-memory fit's `Grower::create`
    /// does, and makes the children of those that split.
    fn decide(&mut self, searcher: &Searcher<'_, '_>, params: &TreeParams) {
        let none = NodeRows::default();
        for i in std::mem::take(&mut self.group) {
            let first = self.nodes.len();
            let Some(n) = self.nodes.get_mut(i) else {
                continue;
            };
            summarise(
                &mut self.draft,
                n.id,
                n.stats.as_deref(),
                n.figures(params),
                searcher,
                params,
            );
            let sums = n.sums.take();
            let hist = n.hist.take();
            let split = match (sums, &hist) {
                (Some(s), Some(hist))
                    if n.rows > 0.0
                        && !is_terminal(params, self.total_weight, &self.draft, n.id) =>
                {
                    let centred = (!s.centred.is_empty()).then(|| s.centred.clone());
                    let prepared = Prepared::Summed {
                        bins: &self.bins,
                        hist,
                        cats: &s.cats,
                    };
                    let at = searcher.at_node_from(s.stats.clone(), centred, &none, None, prepared);
                    let scale = at.scale;
                    let mut candidates = at.features(&n.usable);
                    choose(params.criterion, &candidates, scale)
                        .and_then(|best| candidates.get_mut(best)?.take())
                        .filter(|c| {
                            let weights = (self.total_weight, self.draft.weight(n.id));
                            admits(params, searcher, weights, c, scale)
                        })
                        .map(|mut c| {
                            let weight = s.missing_weight.get(c.feature).copied().unwrap_or(0.0);
                            c.missing_plan = plan_with(searcher, &c, &none, None, 0, weight);
                            let rows = match s.cats.get(c.feature) {
                                Some(Some(cats)) => cats.rows_by_code(),
                                _ => hist.rows_by_code(c.feature).unwrap_or_default(),
                            };
                            (c, rows)
                        })
                }
                _ => None,
            };
            let Some((split, code_rows)) = split else {
                continue;
            };
            let mut usable = n.usable.clone();
            if matches!(split.rule, SplitRule::Multiway { .. }) {
                if let Some(u) = usable.get_mut(split.feature) {
                    *u = false;
                }
            }
            // Binary splits keep the histograms their larger child subtracts from.
            if split.fractions.len() == 2 {
                n.hist = hist;
                n.code_rows = code_rows;
            }
            let ids = split_node(&mut self.draft, n.id, &split);
            n.split = Some(split);
            n.children = (first..first + ids.len()).collect();
            for id in ids {
                self.nodes.push(Grown::new(id, usable.clone(), Some(i)));
                self.open.push(self.nodes.len() - 1);
            }
        }
    }

    /// The open nodes the next pass serves: whole families of siblings, in creation order,
    /// as many as `budget` bytes of histograms allow (at least one family).
    fn pick_group(&mut self, budget: usize, n_classes: usize) {
        let slots = if n_classes == 0 { 4 } else { n_classes + 1 };
        let mut bytes = 0;
        let mut take = 0;
        while let Some(rest @ &[i, ..]) = self.open.get(take..) {
            let parent = self.nodes.get(i).and_then(|n| n.parent);
            let family = rest
                .iter()
                .take_while(|&&j| self.nodes.get(j).and_then(|n| n.parent) == parent)
                .count()
                .max(1);
            let cost: usize = rest
                .iter()
                .take(family)
                .filter_map(|&j| self.nodes.get(j))
                .map(|n| Histograms::layout(&self.bins, &n.usable, slots).1 * 8)
                .sum();
            if take > 0 && bytes + cost > budget {
                break;
            }
            bytes += cost;
            take += family;
        }
        self.group = self.open.drain(..take).collect();
        self.derived.clear();
    }
}

/// Feature `f`'s number of categories, if it is categorical (the routing tables' codes).
fn categories_of(kinds: &[FeatureKind], f: usize) -> Option<u32> {
    match kinds.get(f) {
        Some(FeatureKind::Categorical { n_categories, .. }) => Some(*n_categories),
        _ => None,
    }
}

/// Bins of each numeric column's cuts, before the first pass found their value ranges.
fn empty_bins(cuts: &[Option<Cuts>]) -> Bins {
    Bins::from_columns(
        cuts.iter()
            .map(|c| {
                c.as_ref().map(|c| {
                    Binned::ranges(
                        vec![f64::INFINITY; c.n_bins()],
                        vec![f64::NEG_INFINITY; c.n_bins()],
                    )
                })
            })
            .collect(),
    )
}

/// Columns of `kinds` without rows: what the split search reads of the data's shape.
fn shape_of(kinds: &[FeatureKind]) -> Vec<Column<'static>> {
    kinds
        .iter()
        .map(|k| match *k {
            FeatureKind::Numeric => Column::numeric(&[]),
            FeatureKind::Categorical {
                n_categories,
                ordered,
            } => Column::Categorical(CategoricalColumn {
                codes: &[],
                missing_mask: None,
                n_categories,
                ordered,
            }),
        })
        .collect()
}
