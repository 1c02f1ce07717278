//! Tree growth: Algorithm 4.1 of text 000 with an explicit frontier (no recursion, so a
//! degenerate 100,000-deep chain cannot overflow the call stack).
//!
//! Each node is searched when it is created and waits in the frontier with its chosen split;
//! the frontier is a stack (depth-first, the texts' order) or, with `max_leaf_nodes`, a heap
//! that expands the largest weighted gain first (best-first, as CART and scikit-learn do).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::control::Control;
use crate::criterion::{better, g_test_p_value, Criterion};
use crate::data::{
    validate_training_weights, validate_weights, Column, Dataset, KeptRows, Sample, Target,
};
use crate::draws::Draws;
use crate::error::{CoreError, Result};
use crate::labels::{class_of, label_of};
use crate::params::{CategoricalSplit, Conventions, MissingStrategy, Splitter, TreeParams};
use crate::routing::{send, Values};
use crate::split::byte_codes::{ByteCodes, Coded};
use crate::split::hist::{Bins, Histograms};
use crate::split::j48::{self, TrainingValues};
use crate::split::monotonic::{value_of, Bounds};
use crate::split::placement::{self, Fill};
use crate::split::presort::{presorts, Order, Routes, Sorted};
use crate::split::rpart::{Rpart, RpartOrder};
use crate::split::scales::ClassScales;
use crate::split::{choose, holds_rows, Candidate, NodeRows, Prepared, Searcher, SplitRule};
use crate::subtrees;
use crate::threads::in_pool;
use crate::tree::{FeatureScore, NodeId, NodeKind, Summary, Tree, TreeMeta, Writer};

/// A node waiting to be expanded.
struct Pending {
    node: NodeId,
    rows: NodeRows,
    /// Validation rows that reach the node (validation pre-pruning only).
    validation: NodeRows,
    /// Features still allowed here: a multiway-split categorical is not tested again below.
    usable: Vec<bool>,
    /// What the node's children search from: its sorted rows or its histograms.
    index: Index,
    /// The split the search chose; `None` makes the node a leaf.
    split: Option<Candidate>,
    /// The range the node's value was clipped to (monotonic constraints; unbounded without).
    bounds: Bounds,
}

impl Pending {
    fn hist_bytes(&self) -> usize {
        match &self.index {
            Index::Hist(Some(h), _) => h.bytes(),
            _ => 0,
        }
    }
}

/// What a node hands its children so that they search without sorting their rows.
#[derive(Default)]
enum Index {
    /// Each node sorts (class-majority fills, which change the values at every node).
    #[default]
    Unsorted,
    /// Exact search: the node's rows in value order per numeric feature.
    Sorted(Sorted),
    /// Histogram search: the node's histograms, `None` once over [`HIST_BUDGET`], and its
    /// sparse features' stored values (in position order), from which its children's
    /// histograms are counted.
    Hist(Option<Histograms>, Sorted),
}

impl Index {
    /// Whether a split must record where each row went, to hand lists down.
    fn has_lists(&self) -> bool {
        match self {
            Index::Sorted(_) => true,
            Index::Hist(_, stored) => !stored.is_empty(),
            Index::Unsorted => false,
        }
    }
}

/// Bytes of parents' histograms kept for the subtraction trick; beyond it a waiting node
/// drops its histograms and its children are counted from their rows (LightGBM also bounds
/// its histogram pool).
const HIST_BUDGET: usize = 512 << 20;

/// Best-first order: the largest weighted gain, then the lowest node id.
struct Ranked {
    priority: f64,
    pending: Pending,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority
            .total_cmp(&other.priority)
            .then(other.pending.node.cmp(&self.pending.node))
    }
}

enum Frontier {
    DepthFirst(Vec<Pending>),
    BestFirst(BinaryHeap<Ranked>),
}

impl Frontier {
    fn pop(&mut self) -> Option<Pending> {
        match self {
            Frontier::DepthFirst(stack) => stack.pop(),
            Frontier::BestFirst(heap) => heap.pop().map(|r| r.pending),
        }
    }

    /// Forgets the waiting nodes' histograms (their children will count their own).
    fn drop_histograms(&mut self) {
        let forget = |p: &mut Pending| {
            if let Index::Hist(h, _) = &mut p.index {
                *h = None;
            }
        };
        match self {
            Frontier::DepthFirst(stack) => stack.iter_mut().for_each(forget),
            Frontier::BestFirst(heap) => {
                let mut nodes = std::mem::take(heap).into_vec();
                nodes.iter_mut().for_each(|r| forget(&mut r.pending));
                *heap = nodes.into();
            }
        }
    }

    /// Adds the children of one node; depth-first takes the first child first.
    fn extend(&mut self, tree: &Tree, children: Vec<Pending>) {
        match self {
            Frontier::DepthFirst(stack) => stack.extend(children.into_iter().rev()),
            Frontier::BestFirst(heap) => heap.extend(children.into_iter().map(|p| {
                Ranked {
                    priority: p
                        .split
                        .as_ref()
                        .map_or(f64::NEG_INFINITY, |s| s.score.gain * tree.weight(p.node)), // no split: last
                    pending: p,
                }
            })),
        }
    }
}

/// Grows a tree on `data` for `target` with per-row `weights`; see [`grow_with`].
pub fn grow(
    data: &Dataset<'_>,
    target: &Target<'_>,
    weights: &[f64],
    params: &TreeParams,
) -> Result<Tree> {
    grow_with(
        &Sample {
            data,
            target,
            weights,
        },
        params,
        None,
    )
}

/// Grows a tree on `train`.
///
/// Stops as Algorithm 4.1 does: a pure node, or one where no feature separates its rows,
/// becomes a leaf with its majority class; an empty branch becomes a leaf holding its
/// parent's distribution. A zero gain still splits (text 004's XOR). `params` adds the usual
/// limits. With `validation`, a split is kept only if it strictly lowers the validation
/// error of the node's rows (text 000 §4.3.1's pre-pruning; squared error for regression).
pub fn grow_with(
    train: &Sample<'_, '_>,
    params: &TreeParams,
    validation: Option<&Sample<'_, '_>>,
) -> Result<Tree> {
    grow_controlled(train, params, validation, &Control::new())
}

/// [`grow_with`] under `control`: it stops with [`CoreError::Cancelled`] once cancelled,
/// [`CoreError::TimedOut`] past its time limit and [`CoreError::OutOfMemory`] when a buffer
/// that grows with the data cannot be had, and counts the nodes it grows as its progress.
pub fn grow_controlled(
    train: &Sample<'_, '_>,
    params: &TreeParams,
    validation: Option<&Sample<'_, '_>>,
    control: &Control,
) -> Result<Tree> {
    in_pool(params.n_jobs, || {
        grow_searching(train, params, validation, true, control)
    })
}

/// [`grow_controlled`]; `presort` lets the exact search sort the columns once per fit, which
/// changes nothing but the time (the tests grow both ways to check it).
fn grow_searching(
    train: &Sample<'_, '_>,
    params: &TreeParams,
    validation: Option<&Sample<'_, '_>>,
    presort: bool,
    control: &Control,
) -> Result<Tree> {
    let (data, target) = (train.data, train.target);
    params.validate()?;
    data.validate_for_fit()?;
    target.validate(data.n_rows())?;
    validate_training_weights(train.weights, data.n_rows())?;
    check_criterion(params.criterion, params.categorical_split, target, data)?;
    check_outputs(params, target)?;
    let outputs = target.output_classes();
    params.validate_for(data, outputs.iter().sum())?;
    if let Some(v) = validation {
        v.data.validate_for_predict(&data.kinds())?;
        v.target.validate(v.data.n_rows())?;
        validate_weights(v.weights, v.data.n_rows())?;
        let theirs = v.target.output_classes();
        if theirs != outputs {
            return Err(CoreError::InvalidParameter {
                name: "validation",
                reason: format!(
                    "the validation target has outputs of {theirs:?} classes, the training \
                     target {outputs:?} (0: real-valued)"
                ),
            });
        }
    }

    // rpart's order of each column is the whole data's, rows of weight 0 included, and its
    // class shares those of `prior_weights` where given (its cross-validation keeps both for
    // each fold's rows).
    if let Some(w) = &params.prior_weights {
        validate_training_weights(w, data.n_rows()).map_err(|_| CoreError::InvalidParameter {
            name: "prior_weights",
            reason: format!(
                "one finite weight >= 0 per row ({}), not all zero, is needed; got {} weights",
                data.n_rows(),
                w.len()
            ),
        })?;
    }
    let order = (params.missing == MissingStrategy::Surrogate).then(|| {
        let weights = params.prior_weights.as_deref().unwrap_or(train.weights);
        let factors = params.class_weights.as_deref().unwrap_or_default();
        RpartOrder::of(data, target, weights, factors)
    });
    // J48 -R's pruning rows (weight 0) grow nothing but are in J48's whole data: its
    // thresholds and its count of instances take them, read here before they are dropped.
    let whole = match (params.conventions, params.j48_pruning_set) {
        (Conventions::J48, true) => Some(WholeData {
            values: TrainingValues::whole(data, control).ok_or_else(|| reason(control))?,
            absent: train.weights.iter().filter(|&&w| w == 0.0).count(),
        }),
        _ => None,
    };
    let context = Context {
        presort,
        order,
        whole,
    };
    // Rows of weight 0 are absent: dropped here, after the checks, so that errors name the
    // caller's rows.
    if let Some(kept) = KeptRows::of(train, control) {
        let context = Context {
            order: context.order.map(|o| o.kept(train.weights)),
            ..context
        };
        return kept?.with(|train| grow_checked(train, params, validation, control, context));
    }
    grow_checked(train, params, validation, control, context)
}

/// J48's whole data where it grows on part of it (J48 -R).
struct WholeData {
    /// Its numeric values, which thresholds move down to.
    values: TrainingValues,
    /// Its rows that grow nothing (weight 0), which J48 counts among its instances.
    absent: usize,
}

/// What [`grow_checked`] takes from the whole data before its rows of weight 0 are dropped.
struct Context {
    /// Whether the exact search may sort the columns once per fit (changes nothing but the
    /// time: the tests grow both ways to check it).
    presort: bool,
    /// rpart's order of the columns under `missing="surrogate"`.
    order: Option<RpartOrder>,
    /// J48 -R's whole data.
    whole: Option<WholeData>,
}

/// [`grow_searching`] on checked data of positive weights, with what `context` kept of the
/// whole data.
fn grow_checked(
    train: &Sample<'_, '_>,
    params: &TreeParams,
    validation: Option<&Sample<'_, '_>>,
    control: &Control,
    context: Context,
) -> Result<Tree> {
    let Context {
        presort,
        order,
        whole,
    } = context;
    let absent = whole.as_ref().map_or(0, |w| w.absent);
    let stop = || reason(control);
    let (data, target) = (train.data, train.target);
    let outputs = target.output_classes();
    let total_weight: f64 = train.weights.iter().sum();
    let splitter = match (params.missing, params.splitter) {
        (MissingStrategy::ClassMajority, Splitter::Hist) => {
            return Err(CoreError::InvalidParameter {
                name: "splitter",
                reason: "\"hist\" cannot be combined with missing=\"class_majority\": its fills \
                         change the values at every node, so no bins hold; use \"exact\""
                    .into(),
            })
        }
        (MissingStrategy::ClassMajority, Splitter::Random) => Splitter::Random,
        (MissingStrategy::ClassMajority, _) => Splitter::Exact,
        (_, s) => s.resolve(data.n_rows()),
    };
    let bins = match splitter {
        Splitter::Hist => Some(Bins::new(data, params.max_bins, Some(control)).ok_or_else(stop)?),
        _ => None,
    };
    // Class factors apply to one class variable (`check_outputs` refuses them otherwise).
    let n_classes = match outputs.as_slice() {
        [k] => *k,
        _ => 0,
    };
    let scales = ClassScales::of(params, n_classes)?;
    let plain = Searcher::new(data, target, params, total_weight).scaled(scales.as_ref());
    // The lightest row, its class weight removed (the size rules count rows without them).
    let unit = train
        .weights
        .iter()
        .enumerate()
        .map(|(r, &w)| plain.row_weight(r, w))
        .filter(|&w| w > 0.0)
        .fold(f64::INFINITY, f64::min);
    let j48 = params.conventions == Conventions::J48;
    let training_values = match whole {
        Some(w) => Some(w.values),
        None if j48 => Some(TrainingValues::of(data, control).ok_or_else(stop)?),
        None => None,
    };
    let mut searcher = plain.counting_rows_in(unit).controlled(control);
    if let Some(values) = &training_values {
        searcher = searcher.with_training_values(values);
    }
    // The searches that count categories at each node's rows, and the splits that route
    // those rows, read the codes a byte per row.
    let byte_codes = match bins {
        Some(_) => None,
        None => Some(ByteCodes::of(data, control).ok_or_else(stop)?),
    };
    if let Some(codes) = &byte_codes {
        searcher = searcher.with_byte_codes(codes);
    }
    if let (Some(_), Target::Values(y)) = (&bins, target) {
        // Histogram sums are added and subtracted across nodes, so they share one centre:
        // the root's mean.
        let wy: f64 = y.iter().zip(train.weights).map(|(y, w)| w * y).sum();
        searcher = searcher.centred_on(wy / total_weight);
    }
    let complete = match bins {
        Some(_) => Vec::new(),
        None => data
            .columns()
            .iter()
            .map(|c| matches!(c, Column::Numeric(v) if !v.has_nan()))
            .collect(),
    };
    let rpart = order.and_then(|o| Rpart::new(params, splitter, target, o));
    let grower = Grower {
        searcher,
        rpart,
        params,
        train,
        validation,
        total_weight,
        bins,
        complete,
        left_out_of_average: if j48 {
            j48::many_valued(data, searcher.rows_of(total_weight) + absent as f64)
        } else {
            Vec::new()
        },
        zero_gain: if j48 && params.min_objects <= 0.0 {
            j48::always_valid(data)
        } else {
            Vec::new()
        },
        random: splitter == Splitter::Random,
        draws: params
            .draws(data.n_features())
            .then(|| Draws::new(params.random_state, params.max_features)),
        control,
    };
    let mut tree = Writer::new(TreeMeta {
        missing: params.missing,
        conventions: params.conventions,
        splitter,
        max_bins: if splitter == Splitter::Hist {
            params.max_bins as u32
        } else {
            0
        },
        ..TreeMeta::new(params.criterion, data.kinds(), outputs)
    });
    tree.reserve_nodes(1, control).ok_or_else(stop)?;
    let root = tree.root(1.0);
    let rows = NodeRows::all(train.weights, control).ok_or_else(stop)?;
    let usable = vec![true; data.n_features()];
    // Class-majority fills change a node's values, hence its order and bins: those sort.
    // Random tests read the rows as they are.
    let index = match &grower.bins {
        _ if params.missing == MissingStrategy::ClassMajority || grower.random => Index::Unsorted,
        Some(bins) => {
            let stored = Sorted::root(data, &rows, Order::Position, control).ok_or_else(stop)?;
            let hist = grower
                .searcher
                .histograms(bins, &rows, &usable, Some(&stored));
            Index::Hist(Some(hist), stored)
        }
        None if presort && presorts(data.n_rows()) => {
            Index::Sorted(Sorted::root(data, &rows, Order::Value, control).ok_or_else(stop)?)
        }
        None => Index::Unsorted,
    };
    let validation_rows = match validation {
        Some(v) => NodeRows::all(v.weights, control).ok_or_else(stop)?,
        None => NodeRows::default(),
    };
    let root = grower.create(
        &mut tree,
        vec![NewNode {
            node: root,
            rows,
            validation: validation_rows,
            index,
            bounds: Bounds::NONE,
        }],
        &usable,
    );
    let mut frontier = if params.max_leaf_nodes.is_some() {
        Frontier::BestFirst(BinaryHeap::new())
    } else {
        Frontier::DepthFirst(Vec::new())
    };
    frontier.extend(&tree, root);
    let apart = grower.apart_rows(data.n_rows());
    let deferred = grow_frontier(&grower, &mut tree, frontier, apart)?;
    if deferred.is_empty() {
        return tree.finish();
    }
    // Nodes left to grow apart: each its own tree, side by side, then one tree again.
    let nodes: Vec<NodeId> = deferred.iter().map(|p| p.node).collect();
    let grown: Vec<Writer> = deferred
        .into_par_iter()
        .map(|p| grower.grow_apart(&tree, p))
        .collect::<Result<_>>()?;
    let apart: Vec<(NodeId, Writer)> = nodes.into_iter().zip(grown).collect();
    subtrees::assemble(&tree, &apart, control)
        .ok_or_else(stop)?
        .finish()
}

/// Expands the frontier's nodes, and their children in turn, until none is left. With
/// `apart` (depth-first only), a node of at most that many rows searched from sorted lists is
/// not expanded but returned, to be grown apart ([`Grower::grow_apart`]).
fn grow_frontier(
    grower: &Grower<'_, '_, '_>,
    tree: &mut Writer,
    mut frontier: Frontier,
    apart: Option<usize>,
) -> Result<Vec<Pending>> {
    let (params, control, validation) = (grower.params, grower.control, grower.validation);
    let (data, target) = (grower.train.data, grower.train.target);
    let stop = || reason(control);
    let mut deferred = Vec::new();
    let mut n_leaves = tree.n_leaves();
    let mut hist_held: usize = 0;
    while let Some(p) = frontier.pop() {
        control.check()?;
        hist_held = hist_held.saturating_sub(p.hist_bytes());
        if apart.is_some_and(|rows| p.split.is_some() && p.rows.len() <= rows)
            && matches!(p.index, Index::Sorted(_))
        {
            deferred.push(p);
            continue;
        }
        let Some(split) = p.split else {
            continue;
        };
        let n_children = split.fractions.len();
        if params
            .max_leaf_nodes
            .is_some_and(|max| n_leaves + n_children - 1 > max)
        {
            continue;
        }
        let kind = split.kind();
        let rule = split.missing_plan.rule();
        // Children at the depth limit are leaves, never searched: an exact search hands
        // them no lists (a tenth of the hand-downs of a depth-8 fit on the flights).
        let children_searched = !(matches!(p.index, Index::Sorted(_))
            && params
                .max_depth
                .is_some_and(|d| tree.depth(p.node) + 1 >= d));
        let mut routes = if p.index.has_lists() && children_searched {
            Some(Routes::new(p.rows.len(), n_children))
        } else {
            None
        };
        let sides = match (&kind, &grower.bins) {
            (&NodeKind::Numeric { feature, threshold }, Some(bins)) => {
                bins.sides(feature, threshold).map(|sides| (sides, feature))
            }
            _ => None,
        };
        // Where a row that the rule cannot send goes: C4.5's fractions, or, under rpart's
        // surrogates (a split without a majority side), nowhere: it stays in the node.
        let stays = vec![0.0; n_children];
        let spread: &[f64] = if params.missing == MissingStrategy::Surrogate {
            &stays
        } else {
            &split.fractions
        };
        let stored = Coded {
            columns: data.columns(),
            bytes: grower.searcher.byte_codes,
        };
        let parts = match (grower.fill_for(&split, &p.rows), sides) {
            // Class majority: a training row's missing value is read as its class's at the
            // node; a row left missing (no value to fill) follows the predict-time rule.
            (Some(fill), _) => {
                let filled = fill.reader(data.columns(), target);
                partition(
                    |r| send(&kind, || rule, &filled, r),
                    &p.rows,
                    spread,
                    routes.as_mut(),
                    control,
                )
            }
            // A binned feature's rows go by their bins; the missing ones by the rule.
            (None, Some((sides, f))) => partition(
                |r| {
                    let columns = data.columns();
                    (sides.side(r, || columns.number(f, r))).or_else(|| rule.route(columns, r))
                },
                &p.rows,
                spread,
                routes.as_mut(),
                control,
            ),
            (None, None) => partition(
                |r| send(&kind, || rule, &stored, r),
                &p.rows,
                spread,
                routes.as_mut(),
                control,
            ),
        }
        .ok_or_else(stop)?;
        let val_parts = match validation {
            Some(v) => partition(
                |r| send(&kind, || rule, v.data.columns(), r),
                &p.validation,
                spread,
                None,
                control,
            )
            .ok_or_else(stop)?,
            None => vec![NodeRows::default(); n_children],
        };
        if validation.is_some()
            && !grower.improves_validation(tree, p.node, &parts, &p.validation, &val_parts)
        {
            continue;
        }
        // The children have their rows: the parent's go before its lists are handed down,
        // which is the fit's peak of memory near the root.
        let n_rows = p.rows.len();
        drop(p.rows);
        tree.reserve_nodes(n_children, control).ok_or_else(stop)?;
        let children = split_node(tree, p.node, &split);
        n_leaves += n_children - 1;
        let mut usable = p.usable;
        if matches!(split.rule, SplitRule::Multiway { .. }) {
            if let Some(u) = usable.get_mut(split.feature) {
                *u = false;
            }
        }
        let mut indexes = grower.hand_down(p.index, routes.as_ref(), n_rows, &parts, &usable);
        indexes.resize_with(n_children, Index::default);
        let bounds = grower.child_bounds(&split, &parts, p.bounds);
        let nodes = children
            .into_iter()
            .zip(parts)
            .zip(val_parts)
            .zip(indexes)
            .zip(bounds)
            .map(|((((node, rows), validation), index), bounds)| NewNode {
                node,
                rows,
                validation,
                index,
                bounds,
            })
            .collect();
        let pending = grower.create(tree, nodes, &usable);
        control.advance(n_children as u64);
        hist_held += pending.iter().map(Pending::hist_bytes).sum::<usize>();
        frontier.extend(tree, pending);
        if hist_held > HIST_BUDGET {
            // Over budget: the waiting nodes' children will be counted from their rows.
            frontier.drop_histograms();
            hist_held = 0;
        }
    }
    Ok(deferred)
}

/// A node just added to the tree, before its summary and search ([`Grower::create`]).
struct NewNode {
    node: NodeId,
    rows: NodeRows,
    validation: NodeRows,
    index: Index,
    bounds: Bounds,
}

/// A node's split (`None`: a leaf) and its features' scores to record (`None`: none).
type Found = (Option<Candidate>, Option<Vec<FeatureScore>>);

/// Below this many rows in all, a split's children are searched one after the other: their
/// searches are too short to pay for the tasks.
const PARALLEL_CHILDREN_ROWS: usize = 256;

/// What growing needs besides the tree itself.
struct Grower<'g, 'a, 'd> {
    searcher: Searcher<'a, 'd>,
    /// rpart's arithmetic, to choose among tied splits as rpart does (`missing="surrogate"`).
    rpart: Option<Rpart>,
    params: &'g TreeParams,
    train: &'g Sample<'a, 'd>,
    validation: Option<&'g Sample<'a, 'd>>,
    /// Σ of the training weights, which `min_weight_fraction_leaf` refers to.
    total_weight: f64,
    /// The columns' bins, for the histogram search.
    bins: Option<Bins>,
    /// Per feature, whether it is a dense numeric column with no missing value (without
    /// bins; with them, the bins tell).
    complete: Vec<bool>,
    /// The features J48's average gain leaves out ([`j48::many_valued`]; empty for the texts).
    left_out_of_average: Vec<bool>,
    /// The features J48 counts in its average gain with gain 0 where no candidate was made
    /// ([`j48::always_valid`]; empty unless J48's MINOBJS is 0).
    zero_gain: Vec<bool>,
    /// Random tests (`splitter="random"`) rather than the best thresholds.
    random: bool,
    /// The fit's random choices, when it asks for some (features drawn, random tests).
    draws: Option<Draws>,
    control: &'g Control,
}

impl Grower<'_, '_, '_> {
    /// The rows at most which a node's subtree is grown apart ([`subtrees`]): a quarter of
    /// the rows per thread, on more than one thread, when growth is depth-first and searches
    /// sorted lists without random draws (whose streams follow the node ids); else `None`.
    fn apart_rows(&self, n_rows: usize) -> Option<usize> {
        let threads = rayon::current_num_threads();
        (threads > 1
            && self.params.max_leaf_nodes.is_none()
            && self.draws.is_none()
            && self.bins.is_none())
        .then(|| n_rows / (4 * threads))
    }

    /// Grows the subtree of `p`'s node of `tree` in a tree of its own, whose root is a copy
    /// of that node ([`subtrees::assemble`] puts it back).
    fn grow_apart(&self, tree: &Tree, mut p: Pending) -> Result<Writer> {
        let mut apart =
            subtrees::root_copy(tree, p.node, self.control).ok_or_else(|| reason(self.control))?;
        p.node = NodeId::ROOT;
        let mut frontier = Frontier::DepthFirst(Vec::new());
        frontier.extend(&apart, vec![p]);
        grow_frontier(self, &mut apart, frontier, None)?;
        Ok(apart)
    }

    /// Fills new nodes' statistics and searches their splits, the nodes of a split's
    /// children side by side on the fit's threads (their searches read the tree, and their
    /// feature scores are recorded afterwards in the nodes' order, so the tree is the same
    /// on any number of threads). Each node comes with its rows, validation rows, index and
    /// value bounds (monotonic constraints); `usable` are the features left to split on.
    fn create(&self, tree: &mut Writer, nodes: Vec<NewNode>, usable: &[bool]) -> Vec<Pending> {
        for n in &nodes {
            self.summarise(tree, n.node, &n.rows);
            if self.searcher.is_constrained() {
                self.clip(tree, n.node, n.bounds);
            }
        }
        let search = |n: &NewNode| {
            let prepared = match (&n.index, &self.bins) {
                (Index::Sorted(sorted), _) => Prepared::Sorted(sorted),
                (Index::Hist(Some(hist), _), Some(bins)) => Prepared::Hist { bins, hist },
                _ => Prepared::Unsorted,
            };
            self.search(tree, n.node, &n.rows, usable, prepared, n.bounds)
        };
        let rows: usize = nodes.iter().map(|n| n.rows.len()).sum();
        let found: Vec<Found> = if nodes.len() > 1 && rows >= PARALLEL_CHILDREN_ROWS {
            nodes.par_iter().map(search).collect()
        } else {
            nodes.iter().map(search).collect()
        };
        nodes
            .into_iter()
            .zip(found)
            .map(|(n, (split, scores))| {
                if let Some(scores) = scores {
                    record_scores(tree, n.node, &scores, self.control);
                }
                Pending {
                    node: n.node,
                    // A leaf's index is dropped at once: nothing will search below it.
                    index: if split.is_some() {
                        n.index
                    } else {
                        Index::Unsorted
                    },
                    rows: n.rows,
                    validation: n.validation,
                    usable: usable.to_vec(),
                    split,
                    bounds: n.bounds,
                }
            })
            .collect()
    }

    /// The value bounds of a split's children ([`Bounds::children`]): the node's own, or, on a
    /// constrained feature, cut at the middle of the two children's values (scikit-learn's
    /// `middle_value`). The values are those of the rows each child received (C4.5's
    /// fractions of missing rows included) clipped to the node's bounds, that is the values
    /// the children will hold, so that each child's value lies on its side of the middle
    /// (under absolute error, their medians).
    fn child_bounds(&self, split: &Candidate, parts: &[NodeRows], bounds: Bounds) -> Vec<Bounds> {
        let sign = match split.rule {
            SplitRule::Oblique { .. } => 0,
            _ => self.searcher.constraint(split.feature),
        };
        match parts {
            [left, right] if sign != 0 => {
                let target = self.train.target;
                let value = |rows: &NodeRows| match target {
                    Target::Values(y) if self.params.criterion == Criterion::AbsoluteError => {
                        regression_node(Criterion::AbsoluteError, y, rows).0
                    }
                    _ => value_of(&stats_of(target, rows), target),
                };
                let middle = bounds.clip(value(left)) / 2.0 + bounds.clip(value(right)) / 2.0;
                bounds.children(sign, middle).to_vec()
            }
            _ => vec![bounds; parts.len()],
        }
    }

    /// Clips a node's value to its bounds, as scikit-learn's `clip_node_value` does: the mean
    /// of a regression node; for a binary classification node, the first class's
    /// probability p, the node's value becoming the probabilities (p, 1 − p) as scikit-learn
    /// stores them (rather than class weights): their sum is exactly 1, so every leaf
    /// clipped to one bound predicts bit for bit the same probabilities, which the
    /// constraint's equalities need. The label follows the clipped value.
    fn clip(&self, tree: &mut Writer, node: NodeId, bounds: Bounds) {
        let node_summary = tree.summary(node);
        let (weight, n_rows, n_samples, impurity) = (
            node_summary.weight,
            node_summary.n_rows,
            node_summary.n_samples,
            node_summary.impurity,
        );
        let (value, labels) = match *node_summary.value {
            [mean] => (vec![bounds.clip(mean)], node_summary.labels.to_vec()),
            [first, second] => {
                let w = first + second;
                if w <= 0.0 {
                    return;
                }
                let p = bounds.clip(first / w);
                let value = vec![p, 1.0 - p];
                let parent = tree.parent(node).map(|p| tree.label(p));
                let label = class_of(&value, parent, self.params.cost_matrix.as_deref());
                (value, vec![label])
            }
            _ => return,
        };
        let clipped = Summary {
            weight,
            n_rows,
            n_samples,
            impurity,
            value: &value,
            labels: &labels,
        };
        tree.set_summary(node, &clipped);
    }

    /// The children's indexes: sorted lists handed down, or histograms — for a binary split
    /// that sent each row to one child, the smaller child's counted and the larger's by
    /// subtraction from the parent's (LightGBM's trick: half the counting).
    /// `parent_rows` is how many rows the parent had.
    fn hand_down(
        &self,
        index: Index,
        routes: Option<&Routes>,
        parent_rows: usize,
        parts: &[NodeRows],
        usable: &[bool],
    ) -> Vec<Index> {
        match (index, &self.bins) {
            // No routes (children at the depth limit, never searched) or out of memory (the
            // fit stops at its next check): no lists.
            (Index::Sorted(sorted), _) => routes
                .and_then(|r| sorted.hand_down(r, usable, self.control))
                .map_or_else(Vec::new, |lists| {
                    lists.into_iter().map(Index::Sorted).collect()
                }),
            (Index::Hist(parent, stored), Some(bins)) => {
                let mut stored = if stored.is_empty() {
                    Vec::new()
                } else {
                    // Out of memory: no lists (the fit stops at its next check).
                    match routes.and_then(|r| stored.hand_down(r, usable, self.control)) {
                        Some(lists) => lists,
                        None => return Vec::new(),
                    }
                };
                stored.resize_with(parts.len(), Sorted::default);
                let count = |rows: &NodeRows, stored: &Sorted| {
                    self.searcher.histograms(bins, rows, usable, Some(stored))
                };
                let hists = match (parent, parts, stored.as_slice()) {
                    // Equal counts: no row was spread over both children (C4.5's fractions).
                    (Some(parent), [left, right], [left_stored, right_stored])
                        if parent_rows == left.len() + right.len() =>
                    {
                        let left_smaller = left.len() <= right.len();
                        let small = if left_smaller {
                            count(left, left_stored)
                        } else {
                            count(right, right_stored)
                        };
                        let large = parent.subtract_from(&small);
                        if left_smaller {
                            vec![small, large]
                        } else {
                            vec![large, small]
                        }
                    }
                    _ => parts
                        .iter()
                        .zip(&stored)
                        .map(|(rows, stored)| count(rows, stored))
                        .collect(),
                };
                hists
                    .into_iter()
                    .zip(stored)
                    .map(|(hist, stored)| Index::Hist(Some(hist), stored))
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The split of a node, or `None` for a leaf: the stopping rules, the search (of the
    /// features drawn, with `max_features`; within the node's value `bounds`), and the
    /// pre-pruning tests on the chosen split (minimum gain, minimum weighted impurity
    /// decrease, G² significance).
    fn search(
        &self,
        tree: &Tree,
        node: NodeId,
        rows: &NodeRows,
        usable: &[bool],
        prepared: Prepared<'_>,
        bounds: Bounds,
    ) -> Found {
        if rows.len() == 0 || self.is_terminal(tree, node) {
            return (None, None);
        }
        let fill = (self.params.missing == MissingStrategy::ClassMajority)
            .then(|| Fill::new(self.train.data, self.train.target, rows, usable));
        let mut searcher = self.searcher.bounded(bounds);
        if let (true, Some(draws)) = (self.random, &self.draws) {
            searcher = searcher.randomised(draws, node);
        }
        let at = searcher.at_node(rows, fill.as_ref(), prepared);
        let mut candidates = match &self.draws {
            Some(draws) => {
                let (order, k) = draws.feature_order(node, usable);
                let mut drawn = vec![false; usable.len()];
                for &f in order.iter().take(k) {
                    if let Some(d) = drawn.get_mut(f) {
                        *d = true;
                    }
                }
                let mut found = at.features(&drawn);
                // scikit-learn's rule: no valid split among the drawn features, draw more.
                if found.iter().all(Option::is_none) {
                    for &f in order.iter().skip(k) {
                        if let Some(c) = at.feature(f) {
                            if let Some(slot) = found.get_mut(f) {
                                *slot = Some(c);
                            }
                            break;
                        }
                    }
                }
                found
            }
            None => at.features(usable),
        };
        let scale = at.scale;
        // Histogram trees are the large ones: n_features scores per node would outweigh the
        // tree itself (and its model file) several times, for figures made at bin edges.
        let scores = self.bins.is_none().then(|| {
            candidates
                .iter()
                .map(|c| c.as_ref().map_or(FeatureScore::NONE, |c| c.score)) // not searched
                .collect()
        });
        let chosen = match self.params.conventions {
            Conventions::Texts => choose(self.params.criterion, &candidates, scale),
            Conventions::J48 => j48::choose(
                &candidates,
                &self.left_out_of_average,
                &self.zero_gain,
                self.params.criterion == Criterion::GainRatio,
            ),
        };
        let chosen = match &self.rpart {
            Some(rpart) => {
                let (root, weight) = (tree.depth(node) == 0, tree.weight(node));
                rpart.choose(&searcher, rows, root, weight, &mut candidates, chosen)
            }
            None => chosen,
        };
        let axis = chosen.and_then(|best| candidates.get_mut(best)?.take());
        let oblique = if self.params.oblique {
            let columns = self.train.data.columns();
            match &fill {
                Some(f) => {
                    let filled = f.reader(columns, self.train.target);
                    self.searcher.oblique(rows, tree.weight(node), &filled)
                }
                None => self.searcher.oblique(rows, tree.weight(node), columns),
            }
        } else {
            None
        };
        let mut split = match (axis, oblique) {
            (Some(a), Some(o)) if better(self.searcher.key(&o), self.searcher.key(&a), scale) => o,
            (Some(a), _) => a,
            (None, Some(o)) => o,
            (None, None) => return (None, scores),
        };
        if !admits(
            self.params,
            &self.searcher,
            (self.total_weight, tree.weight(node)),
            &split,
            scale,
        ) {
            return (None, scores);
        }
        let (searcher, surrogates) = (&self.searcher, self.params.max_surrogates);
        split.missing_plan = match self.missing_weight(&split, rows) {
            Some(w) => placement::plan_with(searcher, &split, rows, fill.as_ref(), surrogates, w),
            None => placement::plan(searcher, &split, rows, fill.as_ref(), surrogates),
        };
        (Some(split), scores)
    }

    /// The weight of the node's rows missing the value of a numeric split's feature, as
    /// [`placement::plan`] sums it, when known without routing every row: none is missing in
    /// the column, or the rows' bins tell. `None` otherwise.
    fn missing_weight(&self, split: &Candidate, rows: &NodeRows) -> Option<f64> {
        let NodeKind::Numeric { feature, .. } = split.kind() else {
            return None;
        };
        match &self.bins {
            Some(bins) => bins.missing_weight(feature, rows),
            None => self.complete.get(feature)?.then_some(0.0),
        }
    }

    /// The class-majority fill values of the split's features at a node (`None` for the
    /// other strategies).
    fn fill_for(&self, split: &Candidate, rows: &NodeRows) -> Option<Fill> {
        if self.params.missing != MissingStrategy::ClassMajority {
            return None;
        }
        let mut used = vec![false; self.train.data.n_features()];
        let features: Vec<usize> = match &split.rule {
            SplitRule::Oblique { features, .. } => features.iter().map(|&f| f as usize).collect(),
            _ => vec![split.feature],
        };
        for f in features {
            if let Some(u) = used.get_mut(f) {
                *u = true;
            }
        }
        Some(Fill::new(self.train.data, self.train.target, rows, &used))
    }

    /// Stopping rules checked before any search ([`is_terminal`]).
    fn is_terminal(&self, tree: &Tree, node: NodeId) -> bool {
        is_terminal(self.params, self.total_weight, tree, node)
    }

    /// Fills a node's weight, distribution, impurity and labels from its rows. An empty node
    /// keeps its parent's distribution and labels (Algorithm 4.1, line 12).
    fn summarise(&self, tree: &mut Writer, node: NodeId, rows: &NodeRows) {
        let target = self.train.target;
        let stats = (rows.len() > 0).then(|| stats_of(target, rows));
        let criterion = self.params.criterion;
        // Class weights and altered priors scale the search, not the rows counted.
        let row_weight = |weight: f64| {
            if self.searcher.has_scales() {
                rows.iter()
                    .map(|(r, w)| self.searcher.row_weight(r, w))
                    .sum()
            } else {
                weight
            }
        };
        let regression = |means: &[f64]| match target {
            // The criterion's own value (a median for absolute error) and impurity.
            Target::Values(y) => {
                let (value, impurity) = regression_node(criterion, y, rows);
                (vec![value], impurity)
            }
            Target::MultiValues { values, n_outputs } => {
                let k = *n_outputs;
                let per_output = |o: usize| output_column_node(criterion, values, k, o, rows);
                match criterion {
                    // Each output's median and mean absolute deviation, as for one output.
                    Criterion::AbsoluteError => {
                        let nodes: Vec<(f64, f64)> = (0..k).map(per_output).collect();
                        let impurity = nodes.iter().map(|n| n.1).sum::<f64>() / k as f64;
                        (nodes.iter().map(|n| n.0).collect(), impurity)
                    }
                    _ => {
                        let impurity = (0..k)
                            .map(|o| match criterion {
                                // Each output's half deviance from its rows, as for one output.
                                Criterion::Poisson => per_output(o).1,
                                _ => two_pass_variance(values, k, o, rows, means),
                            })
                            .sum::<f64>()
                            / k as f64;
                        (means.to_vec(), impurity)
                    }
                }
            }
            Target::Classes { .. } | Target::MultiClasses { .. } => (means.to_vec(), 0.0),
        };
        summarise(
            tree,
            node,
            stats.as_deref(),
            NodeFigures {
                samples: rows.len() as u64,
                row_weight,
                regression,
            },
            &self.searcher,
            self.params,
        );
    }
    /// Whether splitting `node` into `parts` strictly lowers the validation error of the
    /// validation rows that reach it (misclassified weight, or squared error; summed over
    /// the outputs of a multi-output tree).
    fn improves_validation(
        &self,
        tree: &Tree,
        node: NodeId,
        parts: &[NodeRows],
        val: &NodeRows,
        val_parts: &[NodeRows],
    ) -> bool {
        let Some(v) = self.validation else {
            return true;
        };
        let target = self.train.target;
        let costs = self.params.cost_matrix.as_deref();
        let (value, labels) = (tree.value(node), tree.labels(node));
        let as_leaf = validation_error(v.target, val, value, labels);
        let as_split: f64 = parts
            .iter()
            .zip(val_parts)
            .map(|(rows, val)| {
                if rows.len() == 0 {
                    return validation_error(v.target, val, value, labels);
                }
                let stats = stats_of(target, rows);
                let (child_value, child_labels) = match target {
                    Target::Values(y) => (
                        vec![regression_node(self.params.criterion, y, rows).0],
                        vec![0],
                    ),
                    _ => prediction(target, &stats, Some(labels), costs, self.params.conventions),
                };
                validation_error(v.target, val, &child_value, &child_labels)
            })
            .sum();
        better(as_leaf, as_split, 1.0)
    }
}

/// Stopping rules checked before any search (scikit-learn's: depth, rows, weight, purity).
/// Rows are counted by weight ([`Searcher::rows_of`]), a C4.5 fragment by its fraction (under
/// J48's conventions as one row), except where the sizes bound only the cuts
/// ([`TreeParams::sizes_bound_cuts_only`]).
pub(crate) fn is_terminal(
    params: &TreeParams,
    total_weight: f64,
    tree: &Tree,
    node: NodeId,
) -> bool {
    let p = params;
    // J48 counts a node's rows, a fragment of a row as one (its only node rule is 2 ×
    // MINOBJS of weight, which the split search keeps).
    let n = match p.conventions {
        Conventions::J48 => tree.n_samples(node) as f64,
        Conventions::Texts => tree.n_rows(node),
    };
    // Where the sizes bound only the cuts, a node's rows are not counted here: an impure node
    // holds two rows or fragments, Algorithm 4.1's least, and the search bounds the cuts.
    let counted = !p.sizes_bound_cuts_only();
    p.max_depth.is_some_and(|d| tree.depth(node) >= d)
        || (counted && !holds_rows(n, p.min_samples_split))
        || (counted && !holds_rows(n, 2 * p.min_samples_leaf))
        || tree.weight(node) < 2.0 * p.min_weight_fraction_leaf * total_weight
        || tree.impurity(node) <= f64::EPSILON
        || (p.conventions == Conventions::J48 && j48::is_pure(tree.value(node)))
}

/// The pre-pruning tests on a node's chosen split: minimum gain (noise-tolerant, so that a
/// zero gain still splits when min_gain is 0: XOR), minimum impurity decrease and G²
/// significance. `weights`: the fit's total weight and the node's.
pub(crate) fn admits(
    params: &TreeParams,
    searcher: &Searcher<'_, '_>,
    (total_weight, node_weight): (f64, f64),
    split: &Candidate,
    scale: f64,
) -> bool {
    if better(params.min_gain, split.score.gain, scale) {
        return false;
    }
    // scikit-learn's test and tolerance (`_tree.pyx`: improvement + EPSILON < value).
    let min_decrease = params.min_impurity_decrease;
    // Absolute error's impurity is no function of the children's sums: its decrease is
    // the one the scan measured on the rows (the gain), weighed by the node's weight.
    // Computed only when asked for: it reads every class of both children.
    let weighted_decrease = || {
        if params.criterion.is_additive() {
            searcher.weighted_decrease(&split.children)
        } else {
            node_weight * split.score.gain
        }
    };
    if min_decrease > 0.0 && weighted_decrease() / total_weight + f64::EPSILON < min_decrease {
        return false;
    }
    !params
        .max_p_value
        .is_some_and(|max_p| g_test_p_value(&split.children) > max_p)
}

/// What [`summarise`] cannot read from a node's statistics: how many rows reached it
/// (`samples`, [`crate::tree::Tree::n_samples`]), the weight of its rows without class
/// factors, given the weighted one (`row_weight`), and a regression target's value row and
/// impurity, given the outputs' means (`regression`: its criterion's, from its rows).
pub(crate) struct NodeFigures<W, R> {
    pub(crate) samples: u64,
    pub(crate) row_weight: W,
    pub(crate) regression: R,
}

/// [`NodeFigures::regression`]: the outputs' means to the node's value row and impurity.
pub(crate) trait RegressionFigures: FnOnce(&[f64]) -> (Vec<f64>, f64) {}
impl<F: FnOnce(&[f64]) -> (Vec<f64>, f64)> RegressionFigures for F {}

/// Fills a node's weight, distribution, impurity and labels from the statistics of its rows
/// (`None`: no row). An empty node keeps its parent's distribution and labels (Algorithm
/// 4.1, line 12).
pub(crate) fn summarise<W, R>(
    tree: &mut Writer,
    node: NodeId,
    stats: Option<&[f64]>,
    figures: NodeFigures<W, R>,
    searcher: &Searcher<'_, '_>,
    params: &TreeParams,
) where
    W: FnOnce(f64) -> f64,
    R: RegressionFigures,
{
    let parent = tree.parent(node);
    // An empty node holds no weight (nor rows) and its parent's prediction.
    let samples = figures.samples;
    let (weight, n_rows, value, labels, impurity) = match (parent, stats) {
        (Some(p), None) => (
            0.0,
            0.0,
            tree.value(p).to_vec(),
            tree.labels(p).to_vec(),
            tree.impurity(p),
        ),
        (None, None) => return,
        (_, Some(stats)) => {
            let target = searcher.target;
            let weight = searcher.weight_of(stats);
            let n_rows = searcher.rows_of((figures.row_weight)(weight));
            // rpart (missing="surrogate") breaks a tie for the first class (`gini.c`), the
            // texts for the parent's.
            let parent_labels = parent
                .filter(|_| params.missing != MissingStrategy::Surrogate)
                .map(|p| tree.labels(p));
            let costs = params.cost_matrix.as_deref();
            let (value, labels) =
                prediction(target, stats, parent_labels, costs, params.conventions);
            match target {
                Target::Values(_) | Target::MultiValues { .. } => {
                    let (value, impurity) = (figures.regression)(&value);
                    (weight, n_rows, value, labels, impurity)
                }
                Target::Classes { .. } | Target::MultiClasses { .. } => {
                    let impurity = searcher.node_impurity(stats);
                    (weight, n_rows, value, labels, impurity)
                }
            }
        }
    };
    let summary = Summary {
        weight,
        n_rows,
        n_samples: samples,
        impurity,
        value: &value,
        labels: &labels,
    };
    tree.set_summary(node, &summary);
}

/// A regression node's mean from its statistics (weight, Σwy, Σwy²: a [`Target`]'s width,
/// so the 0.0 is never read).
pub(crate) fn mean_of(stats: &[f64]) -> f64 {
    stats.get(1).copied().unwrap_or(0.0) / crate::criterion::stats_weight(stats, true)
}

/// What a node holding `stats` predicts: its value row (the class weights, or each output's
/// mean) and each output's class ([`label_of`] under `conventions`), ties going to the
/// parent's class (`parent`, one per output) and then to the first. A regression tree's
/// classes are 0.
fn prediction(
    target: &Target<'_>,
    stats: &[f64],
    parent: Option<&[u32]>,
    costs: Option<&[f64]>,
    conventions: Conventions,
) -> (Vec<f64>, Vec<u32>) {
    let parent_of = |k: usize| parent.and_then(|p| p.get(k).copied());
    match target {
        Target::Values(_) | Target::MultiValues { .. } => {
            // (weight, then Σwy and Σwy² of each output)
            let means: Vec<f64> = match stats.split_first() {
                Some((w, sums)) => sums.iter().step_by(2).map(|s| s / w).collect(),
                None => Vec::new(),
            };
            let n = means.len();
            (means, vec![0; n])
        }
        Target::Classes { .. } => (
            stats.to_vec(),
            vec![label_of(stats, parent_of(0), costs, conventions)],
        ),
        Target::MultiClasses { n_classes, .. } => {
            let labels = crate::data::blocks(stats, n_classes.iter().copied())
                .enumerate()
                .map(|(k, block)| label_of(block, parent_of(k), None, conventions))
                .collect();
            (stats.to_vec(), labels)
        }
    }
}

/// Weighted error of `rows` at a leaf predicting `labels` (classification) or the means
/// `value`, summed over the outputs. The rows are the target's, so its reads never take
/// their defaults.
fn validation_error(target: &Target<'_>, rows: &NodeRows, value: &[f64], labels: &[u32]) -> f64 {
    let squared = |y: f64, mean: f64| (y - mean) * (y - mean);
    rows.iter()
        .map(|(r, w)| match target {
            Target::Classes { codes, .. } => {
                if labels.first().is_some_and(|l| codes.get(r) == Some(l)) {
                    0.0
                } else {
                    w
                }
            }
            Target::MultiClasses { codes, n_classes } => {
                let k = n_classes.len();
                let row = codes.get(r * k..(r + 1) * k).unwrap_or(&[]);
                w * row.iter().zip(labels).filter(|(c, l)| c != l).count() as f64
            }
            Target::Values(y) => {
                let mean = value.first().copied().unwrap_or(0.0);
                w * squared(y.get(r).copied().unwrap_or(0.0), mean)
            }
            Target::MultiValues { values, n_outputs } => {
                let row = values
                    .get(r * n_outputs..(r + 1) * n_outputs)
                    .unwrap_or(&[]);
                w * row
                    .iter()
                    .zip(value)
                    .map(|(&y, &m)| squared(y, m))
                    .sum::<f64>()
            }
        })
        .sum()
}

fn stats_of(target: &Target<'_>, rows: &NodeRows) -> Vec<f64> {
    let mut stats = vec![0.0; target.stats_width()];
    for (r, w) in rows.iter() {
        target.accumulate(&mut stats, r, w);
    }
    stats
}

/// Sends each row to its child (`route`: [`send`], the test, else the node's missing-value
/// rule); a row the rule leaves to C4.5 (`None`) goes to every child with its weight × r̃_v,
/// children with r̃_v = 0 excepted. `routes` records where each row went, for the children's
/// sorted lists. The rows are routed twice, to count and then to send, so that each child's
/// rows are reserved exactly through `control` (`None` when the memory cannot be had); rows
/// that all weigh the same and are none of them spread keep their one weight.
fn partition(
    route: impl Fn(usize) -> Option<usize>,
    rows: &NodeRows,
    fractions: &[f64],
    mut routes: Option<&mut Routes>,
    control: &Control,
) -> Option<Vec<NodeRows>> {
    let mut counts = vec![0usize; fractions.len()];
    let mut spread = false;
    for (r, _) in rows.iter() {
        match route(r) {
            Some(c) => {
                if let Some(n) = counts.get_mut(c) {
                    *n += 1;
                }
            }
            None => {
                spread = true;
                for (n, &f) in counts.iter_mut().zip(fractions) {
                    *n += usize::from(f > 0.0);
                }
            }
        }
    }
    if let Some(routes) = routes.as_deref_mut() {
        routes.prepare(spread, control)?;
    }
    let same = rows.same_weight().filter(|_| !spread);
    let mut parts = Vec::with_capacity(fractions.len());
    for &n in &counts {
        parts.push(NodeRows::with_room(n, same, control)?);
    }
    for (r, w) in rows.iter() {
        match route(r) {
            Some(c) => {
                if let Some(part) = parts.get_mut(c) {
                    part.push(r as u32, w);
                }
                if let Some(routes) = routes.as_deref_mut() {
                    routes.went_to(c);
                }
            }
            None => {
                for (part, &f) in parts.iter_mut().zip(fractions) {
                    if f > 0.0 {
                        part.push(r as u32, w * f);
                    }
                }
                if let Some(routes) = routes.as_deref_mut() {
                    routes.spread_over(|c| fractions.get(c).is_some_and(|&f| f > 0.0));
                }
            }
        }
    }
    Some(parts)
}

/// The error a stopped control reports: a guard that failed stopped it (or, once none
/// fails, a cancellation).
fn reason(control: &Control) -> CoreError {
    control.check().err().unwrap_or(CoreError::Cancelled)
}

/// Counts and rates only: the Poisson deviance needs y ≥ 0 and a positive mean, checked on
/// every row given (weights aside), with scikit-learn's messages (`sklearn/tree/_classes.py`).
pub fn check_poisson_target(y: &[f64]) -> Result<()> {
    let reason = if let Some((row, v)) = y.iter().enumerate().find(|(_, &v)| v < 0.0) {
        format!(
            "Some value(s) of y are negative (row {row}: {v}), which is not allowed for Poisson \
             regression (criterion \"poisson\")"
        )
    } else if y.iter().sum::<f64>() <= 0.0 {
        "Sum of y is not positive which is necessary for Poisson regression (criterion \
         \"poisson\")"
            .into()
    } else {
        return Ok(());
    };
    Err(CoreError::InvalidParameter {
        name: "criterion",
        reason,
    })
}

/// Whether `criterion` applies to this target and these splits: regression criteria to real
/// targets, class criteria to classes, two-class criteria (DKM, AUC) to two classes, and the
/// binary criteria of text 002 §3.10 to binary splits only; Poisson to targets without
/// negative values.
pub(crate) fn check_criterion(
    criterion: Criterion,
    categorical_split: CategoricalSplit,
    target: &Target<'_>,
    data: &Dataset<'_>,
) -> Result<()> {
    let invalid = |reason: String| {
        Err(CoreError::InvalidParameter {
            name: "criterion",
            reason,
        })
    };
    let name = criterion.name();
    match (criterion.is_regression(), target) {
        (true, Target::Classes { .. }) => {
            return invalid(format!("{name:?} is a regression criterion; a classifier needs a class criterion such as entropy or gini"))
        }
        (false, Target::Values(_)) => {
            return invalid(format!("{name:?} is a classification criterion; a regressor needs squared_error, friedman_mse, absolute_error or poisson"))
        }
        (_, Target::Values(y) | Target::MultiValues { values: y, .. })
            if criterion == Criterion::Poisson =>
        {
            check_poisson_target(y)?
        }
        (_, Target::Classes { n_classes, .. }) if criterion.needs_two_classes() && *n_classes != 2 => {
            return invalid(format!("{name:?} is defined for two classes, but the target has {n_classes}"))
        }
        _ => {}
    }
    let categorical = data
        .columns()
        .iter()
        .position(|c| matches!(c, Column::Categorical(_)));
    if let (true, CategoricalSplit::Multiway, Some(j)) = (
        criterion.is_binary_split_criterion(),
        categorical_split,
        categorical,
    ) {
        return invalid(format!(
            "{name:?} scores binary splits, but column {j} is categorical and categorical_split is \"multiway\"; use \"binary\""
        ));
    }
    Ok(())
}

/// A regression node's value and impurity under `criterion`, from its rows
/// ([`Criterion::regression_node`]); `(0, 0)` for rows without weight.
fn regression_node(criterion: Criterion, y: &[f64], rows: &NodeRows) -> (f64, f64) {
    output_column_node(criterion, y, 1, 0, rows)
}

/// [`Criterion::regression_node`] of output `k` of row-major targets `width` wide (`rows`
/// are rows of `y`: the 0.0 is never read).
fn output_column_node(
    criterion: Criterion,
    y: &[f64],
    width: usize,
    k: usize,
    rows: &NodeRows,
) -> (f64, f64) {
    let targets = || {
        rows.iter()
            .map(move |(r, w)| (y.get(r * width + k).copied().unwrap_or(0.0), w))
    };
    criterion.regression_node(targets).unwrap_or((0.0, 0.0)) // a node without weight
}

/// What a multi-output target (several outputs) may be grown with: the impurity criteria
/// whose node impurity is a mean over the outputs as scikit-learn's (entropy, gain ratio,
/// Gini, misclassification, squared error, Friedman's, the Poisson deviance and absolute
/// error), and none of the rules defined for one class
/// variable (a cost matrix, the G² stop, oblique directions from class means, class-majority
/// fills).
pub(crate) fn check_outputs(params: &TreeParams, target: &Target<'_>) -> Result<()> {
    let n = target.n_outputs();
    if n == 1 {
        return Ok(());
    }
    let refuse = |name: &'static str, what: String| {
        Err(CoreError::InvalidParameter {
            name,
            reason: format!("{what}, but the target has {n} outputs (multi-output y)"),
        })
    };
    let criterion = params.criterion;
    if !matches!(
        criterion,
        Criterion::Entropy
            | Criterion::GainRatio
            | Criterion::Gini
            | Criterion::Misclassification
            | Criterion::SquaredError
            | Criterion::FriedmanMse
            | Criterion::Poisson
            | Criterion::AbsoluteError
    ) {
        return refuse(
            "criterion",
            format!(
                "{:?} is defined here for one output; several outputs take \"gini\", \
                 \"entropy\", \"gain_ratio\", \"misclassification\", \"squared_error\", \
                 \"friedman_mse\", \"poisson\" or \"absolute_error\"",
                criterion.name()
            ),
        );
    }
    if params.cost_matrix.is_some() {
        return refuse(
            "cost_matrix",
            "a cost matrix prices the classes of one output".into(),
        );
    }
    if params.max_p_value.is_some() {
        return refuse(
            "max_p_value",
            "the G² test is a test on one class variable".into(),
        );
    }
    if params.oblique {
        return refuse(
            "oblique",
            "oblique directions start from one output's class means".into(),
        );
    }
    if params.missing == MissingStrategy::ClassMajority {
        return refuse(
            "missing",
            "\"class_majority\" fills a missing value from the row's class".into(),
        );
    }
    if params.monotonic_cst.is_some() {
        return refuse(
            "monotonic_cst",
            "monotonic constraints bound one output's prediction".into(),
        );
    }
    if params.class_weights.is_some() || params.altered_priors {
        return refuse(
            "class_weight",
            "class factors in the search weigh one class variable (pass them as sample weights)"
                .into(),
        );
    }
    Ok(())
}

/// Σw(y − ȳ)²/Σw of output `k` of `width` (row-major `y`), summed around its mean in `means`:
/// unlike Σwy²/Σw − ȳ², a node whose targets are all equal gets exactly 0, so it is
/// recognised as pure whatever the magnitude of y. `rows` are rows of `y` and `means` has
/// `width` entries, so the defaults are never read.
fn two_pass_variance(y: &[f64], width: usize, k: usize, rows: &NodeRows, means: &[f64]) -> f64 {
    let mean = means.get(k).copied().unwrap_or(0.0);
    let (mut ss, mut weight) = (0.0, 0.0);
    for (r, w) in rows.iter() {
        let d = y.get(r * width + k).copied().unwrap_or(mean) - mean;
        ss += w * d * d;
        weight += w;
    }
    ss / weight
}

/// Keeps the node's per-feature scores (not when their memory cannot be had: the fit then
/// stops at its next check).
fn record_scores(tree: &mut Writer, node: NodeId, scores: &[FeatureScore], control: &Control) {
    if tree.reserve_scores(scores.len(), control).is_some() {
        tree.set_scores(node, scores);
    }
}

/// Turns a leaf into a split and allocates its children, contiguous, each with its r̃_v.
pub(crate) fn split_node(tree: &mut Writer, node: NodeId, split: &Candidate) -> Vec<NodeId> {
    let children = tree.split(node, &split.kind(), &split.fractions);
    let plan = &split.missing_plan;
    let child = plan.stored;
    tree.set_missing_rule(node, child, &plan.surrogates.set(), plan.weight);
    children
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
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

    /// Presorted and per-node-sorted exact search grow byte-identical trees, and so does the
    /// histogram search when every column has fewer distinct values than bins: numeric columns
    /// with ties and missing values, a categorical column, fractional weights, both targets,
    /// multiway and binary categorical splits, and every missing-value strategy.
    #[test]
    fn presorting_changes_no_tree() {
        let strategies = [
            MissingStrategy::Fractional,
            MissingStrategy::MajorityBranch,
            MissingStrategy::Separate,
            MissingStrategy::Learned,
            MissingStrategy::Surrogate,
        ];
        for seed in 0..40u64 {
            let mut g = Lcg(seed + 1);
            let n = 20 + g.below(300) as usize;
            let distinct = 2 + g.below(40);
            let numeric: Vec<Vec<f64>> = (0..3)
                .map(|_| {
                    (0..n)
                        .map(|_| {
                            if g.below(8) == 0 {
                                f64::NAN
                            } else {
                                g.below(distinct) as f64 / 4.0
                            }
                        })
                        .collect()
                })
                .collect();
            let codes: Vec<u32> = (0..n).map(|_| g.below(4) as u32).collect();
            let missing: Vec<bool> = (0..n).map(|_| g.below(10) == 0).collect();
            let classes: Vec<u32> = (0..n).map(|_| g.below(3) as u32).collect();
            let values: Vec<f64> = (0..n).map(|_| g.below(1000) as f64 / 7.0).collect();
            let weights: Vec<f64> = (0..n).map(|_| 0.5 + g.below(4) as f64).collect();
            let mut columns: Vec<Column<'_>> = numeric.iter().map(|v| Column::numeric(v)).collect();
            columns.push(Column::Categorical(CategoricalColumn {
                codes: &codes,
                missing_mask: Some(&missing),
                n_categories: 4,
                ordered: false,
            }));
            let data = Dataset::new(columns).unwrap();
            let targets = [
                (
                    Target::Classes {
                        codes: &classes,
                        n_classes: 3,
                    },
                    Criterion::Entropy,
                ),
                (Target::Values(&values), Criterion::SquaredError),
                (Target::Values(&values), Criterion::AbsoluteError),
                (Target::Values(&values), Criterion::Poisson),
            ];
            for (target, criterion) in &targets {
                let sample = Sample {
                    data: &data,
                    target,
                    weights: &weights,
                };
                let split = if seed % 2 == 0 {
                    CategoricalSplit::Multiway
                } else {
                    CategoricalSplit::Binary
                };
                let missing = strategies[seed as usize % strategies.len()];
                let params = TreeParams {
                    criterion: *criterion,
                    categorical_split: split,
                    missing,
                    max_leaf_nodes: (seed % 3 == 0).then_some(12),
                    ..TreeParams::default()
                };
                let sorted = grow_searching(&sample, &params, None, true, &Control::new()).unwrap();
                let unsorted =
                    grow_searching(&sample, &params, None, false, &Control::new()).unwrap();
                assert_eq!(
                    sorted.to_bytes(),
                    unsorted.to_bytes(),
                    "seed {seed}, {criterion:?}, {missing:?}"
                );
                // Fewer distinct values than bins: one bin per value, the same thresholds
                // (rpart's own choice among tied splits is the exact search's alone).
                let rpart_ties = missing == MissingStrategy::Surrogate
                    && split == CategoricalSplit::Binary
                    && matches!(
                        criterion,
                        Criterion::Gini | Criterion::Entropy | Criterion::SquaredError
                    );
                if rpart_ties {
                    continue;
                }
                let hist = TreeParams {
                    splitter: Splitter::Hist,
                    ..params.clone()
                };
                let binned = grow_searching(&sample, &hist, None, true, &Control::new()).unwrap();
                assert_eq!(binned.splitter(), (Splitter::Hist, 255));
                // Subtracted histograms differ in the last bits, so the recorded scores may
                // too; the tree must not.
                let what = format!("hist: seed {seed}, {criterion:?}, {missing:?}");
                assert_eq!(binned.arena().tag, sorted.arena().tag, "{what}");
                assert_eq!(binned.arena().feature, sorted.arena().feature, "{what}");
                assert_eq!(
                    binned.arena().n_children,
                    sorted.arena().n_children,
                    "{what}"
                );
                let same = |a: &[f64], b: &[f64]| {
                    a.len() == b.len()
                        && a.iter().zip(b).all(|(x, y)| {
                            x == y
                                || (x.is_nan() && y.is_nan())
                                || (x - y).abs() <= 1e-9 * (1.0 + x.abs())
                        })
                };
                assert!(
                    same(&binned.arena().threshold, &sorted.arena().threshold),
                    "{what}"
                );
                assert!(same(&binned.arena().value, &sorted.arena().value), "{what}");
                assert!(
                    same(
                        &binned.arena().branch_fraction,
                        &sorted.arena().branch_fraction
                    ),
                    "{what}"
                );
            }
        }
    }
}
