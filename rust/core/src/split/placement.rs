//! Where the missing-value strategies beyond C4.5's fractions place a missing value: the
//! values the class-majority strategy fills in, rpart's surrogate splits, and the child each
//! strategy sends a missing value to at predict (a split's [`Plan`]).
//!
//! C4.5's own rule (score on the known rows × ρ, send a missing row to every child with
//! r̃_v) lives in the search and the routing ([`crate::routing::send`]); the strategies that place
//! missing rows during the search (learned, separate) live in the scans of `super`.

use super::rpart::class_index_mean;
use super::{round_significant, Candidate, NodeRows, Searcher};
use crate::criterion::better;
use crate::data::{with_numbers, CategoricalColumn, Column, Dataset, Target};
use crate::params::MissingStrategy;
use crate::routing::{route, MissingRule, Values};
use crate::tree::{SurrogateSet, NONE};

// ---------------------------------------------------------------------------------------------
// Class majority: the values a node fills in.

/// What the class-majority strategy reads a missing cell of one feature as, at one node.
#[derive(Debug, Clone)]
enum FeatureFill {
    /// Weighted mean of the known values per group (class), NaN for a group with none; and
    /// over all the node's rows.
    Numeric { by_group: Vec<f64>, node: f64 },
    /// Most common category per group (class), and over all the node's rows (ties: the
    /// lowest code).
    Categorical {
        by_group: Vec<Option<u32>>,
        node: Option<u32>,
    },
    /// Not searched at this node.
    Unused,
}

/// The class-majority fill values of one node (text 001 approach 2, text 004's "class
/// mean"): for each feature, the most common value (numeric: the weighted mean) among the
/// node's rows of each class, and among all its rows (what prediction uses, the class being
/// unknown). A regression target has one group: the node's mean / most common value.
#[derive(Debug, Clone)]
pub(crate) struct Fill {
    features: Vec<FeatureFill>,
}

/// The group a training row's missing cells are filled from: its class, or 0 (regression;
/// several outputs have no one class, and are refused this strategy at fit). Rows are the
/// target's: the class 0 is never read.
fn group(target: &Target<'_>, row: usize) -> usize {
    match target {
        Target::Classes { codes, .. } => codes.get(row).copied().unwrap_or(0) as usize,
        _ => 0,
    }
}

impl Fill {
    /// The fill values of the rows `node` for the features where `usable` is true.
    pub(crate) fn new(
        data: &Dataset<'_>,
        target: &Target<'_>,
        node: &NodeRows,
        usable: &[bool],
    ) -> Fill {
        let groups = match target {
            Target::Classes { n_classes, .. } => (*n_classes).max(1),
            _ => 1,
        };
        let features = data
            .columns()
            .iter()
            .enumerate()
            .map(|(f, column)| {
                // One flag per feature: the default is never read.
                if !usable.get(f).copied().unwrap_or(false) {
                    return FeatureFill::Unused;
                }
                match column {
                    Column::Numeric(v) => {
                        with_numbers!(v, |v| numeric_fill(|r| v.at(r), target, node, groups))
                    }
                    // No value is missing, but the node's mean still routes class majority's
                    // missing values at predict, as for the same column dense.
                    Column::Sparse(c) => numeric_fill(|r| c.value(r), target, node, groups),
                    Column::Categorical(c) => categorical_fill(c, target, node, groups),
                }
            })
            .collect();
        Fill { features }
    }

    /// The node's training rows' values, missing cells filled by their class.
    pub(crate) fn reader<'a, 'd>(
        &'a self,
        columns: &'a [Column<'d>],
        target: &'a Target<'d>,
    ) -> Filled<'a, 'd> {
        Filled {
            columns,
            target,
            fill: self,
        }
    }

    fn number(&self, f: usize, group: Option<usize>) -> f64 {
        match self.features.get(f) {
            Some(FeatureFill::Numeric { by_group, node }) => group
                .and_then(|g| by_group.get(g).copied())
                .filter(|x| !x.is_nan())
                .unwrap_or(*node), // a group with no known value: the node's
            _ => f64::NAN,
        }
    }

    fn code(&self, f: usize, group: Option<usize>) -> Option<u32> {
        match self.features.get(f) {
            Some(FeatureFill::Categorical { by_group, node }) => group
                .and_then(|g| by_group.get(g).copied().flatten())
                .or(*node),
            _ => None,
        }
    }
}

/// `value(row)` reads the feature (NaN = missing).
fn numeric_fill(
    value: impl Fn(usize) -> f64,
    target: &Target<'_>,
    node: &NodeRows,
    groups: usize,
) -> FeatureFill {
    let (mut sw, mut swx) = (vec![0.0; groups], vec![0.0; groups]);
    for (r, w) in node.iter() {
        let x = value(r);
        let g = group(target, r);
        if let (false, Some(a), Some(b)) = (x.is_nan(), sw.get_mut(g), swx.get_mut(g)) {
            *a += w;
            *b += w * x;
        }
    }
    let total: f64 = sw.iter().sum();
    let node_mean = if total > 0.0 {
        swx.iter().sum::<f64>() / total
    } else {
        f64::NAN
    };
    FeatureFill::Numeric {
        by_group: sw
            .iter()
            .zip(&swx)
            .map(|(w, s)| if *w > 0.0 { s / w } else { f64::NAN })
            .collect(),
        node: node_mean,
    }
}

fn categorical_fill(
    c: &CategoricalColumn<'_>,
    target: &Target<'_>,
    node: &NodeRows,
    groups: usize,
) -> FeatureFill {
    let k = c.n_categories as usize;
    let mut counts = vec![vec![0.0; k]; groups];
    for (r, w) in node.iter() {
        if let Some(slot) = c
            .code(r)
            .and_then(|code| counts.get_mut(group(target, r))?.get_mut(code as usize))
        {
            *slot += w;
        }
    }
    let mut all = vec![0.0; k];
    for g in &counts {
        all.iter_mut().zip(g).for_each(|(a, x)| *a += x);
    }
    FeatureFill::Categorical {
        by_group: counts.iter().map(|g| mode(g)).collect(),
        node: mode(&all),
    }
}

/// The heaviest category (the lowest code among equals), `None` if all weigh nothing.
fn mode(weights: &[f64]) -> Option<u32> {
    let mut best: Option<(usize, f64)> = None;
    for (c, &w) in weights.iter().enumerate() {
        if w > 0.0 && best.is_none_or(|(_, b)| better(w, b, 0.0)) {
            best = Some((c, w));
        }
    }
    best.map(|(c, _)| c as u32)
}

/// Training rows read with their missing cells filled by their class's value at the node.
pub(crate) struct Filled<'a, 'd> {
    columns: &'a [Column<'d>],
    target: &'a Target<'d>,
    fill: &'a Fill,
}

impl Values for Filled<'_, '_> {
    fn number(&self, f: usize, row: usize) -> f64 {
        let x = self.columns.number(f, row);
        if x.is_nan() {
            self.fill.number(f, Some(group(self.target, row)))
        } else {
            x
        }
    }

    fn code(&self, f: usize, row: usize) -> Option<u32> {
        self.columns
            .code(f, row)
            .or_else(|| self.fill.code(f, Some(group(self.target, row))))
    }
}

/// A row holding the node's overall fill values: where class majority sends a missing value
/// at predict, the class being unknown.
struct NodeValues<'a>(&'a Fill);

impl Values for NodeValues<'_> {
    fn number(&self, f: usize, _row: usize) -> f64 {
        self.0.number(f, None)
    }

    fn code(&self, f: usize, _row: usize) -> Option<u32> {
        self.0.code(f, None)
    }
}

// ---------------------------------------------------------------------------------------------
// The plan: where a node sends missing values.

/// Surrogate splits owned by the builder until the node is stored (see [`SurrogateSet`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct Surrogates {
    feature: Vec<u32>,
    threshold: Vec<f64>,
    agreement: Vec<f64>,
    adjusted: Vec<f64>,
    map: Vec<u32>,
    children: Vec<u32>,
}

impl Surrogates {
    pub(crate) fn set(&self) -> SurrogateSet<'_> {
        SurrogateSet {
            feature: &self.feature,
            threshold: &self.threshold,
            agreement: &self.agreement,
            adjusted: &self.adjusted,
            map: &self.map,
            children: &self.children,
        }
    }
}

/// How a chosen split routes missing values, at fit (after the search) and at predict.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// The child a missing value goes to after the surrogates; `None`: C4.5's fractions.
    pub child: Option<usize>,
    /// Where the stored tree sends a row that no surrogate sends: `child`, but under rpart's
    /// surrogates (where the fit keeps a training row without a direction in the node)
    /// predict.rpart's child of more observations, or rpart's right son in a fold of its
    /// cross-validation, which `xval.c`'s `branch()` predicts so (`lastsurrogate = 0` is not
    /// LEFT).
    pub stored: Option<usize>,
    pub surrogates: Surrogates,
    /// Training weight at the node with the tested value missing.
    pub weight: f64,
}

impl Plan {
    pub(crate) fn rule(&self) -> MissingRule<'_> {
        MissingRule {
            child: self.child,
            surrogates: self.surrogates.set(),
        }
    }
}

/// The missing-value plan of the split `c` chosen at a node with rows `node` (`fill`: the
/// node's class-majority values).
pub(crate) fn plan(
    searcher: &Searcher<'_, '_>,
    c: &Candidate,
    node: &NodeRows,
    fill: Option<&Fill>,
    max_surrogates: usize,
) -> Plan {
    let kind = c.kind();
    let columns = searcher.data.columns();
    // A fold from +0.0: an empty f64 sum is -0.0.
    let weight = node
        .iter()
        .filter(|&(r, _)| route(&kind, columns, r).is_none())
        .fold(0.0, |total, (_, w)| total + w);
    plan_with(searcher, c, node, fill, max_surrogates, weight)
}

/// [`plan`] given `weight`, the node's weight of rows the split's test cannot route (summed
/// from +0.0 in row order); `node` is read only for surrogate splits and class-majority fills.
pub(crate) fn plan_with(
    searcher: &Searcher<'_, '_>,
    c: &Candidate,
    node: &NodeRows,
    fill: Option<&Fill>,
    max_surrogates: usize,
    weight: f64,
) -> Plan {
    let kind = c.kind();
    let n_children = c.fractions.len();
    // The child with the largest share of the scored weight (the first of equals).
    let heaviest = c
        .fractions
        .iter()
        .enumerate()
        .fold(None, |best: Option<(usize, f64)>, (k, &f)| match best {
            Some((_, b)) if !better(f, b, 0.0) => best,
            _ => Some((k, f)),
        })
        .map(|(k, _)| k);
    if searcher.missing == MissingStrategy::Surrogate {
        let primary = Primary::of(searcher, c, node);
        let surrogates = if max_surrogates > 0 {
            let exclude: Vec<usize> = match &c.rule {
                super::SplitRule::Oblique { features, .. } => {
                    features.iter().map(|&f| f as usize).collect()
                }
                _ => vec![c.feature],
            };
            surrogates(searcher.data, &primary, max_surrogates, &exclude)
        } else {
            Surrogates::default()
        };
        // Without a majority (two sides of equal known weight) a row no surrogate sends
        // stays in the node (see [`Primary::majority`]). rpart finds its majority direction
        // with the surrogates (`surrogate.c`'s `lastsurrogate`): with maxsurrogate = 0 it has
        // none, and every row missing the tested value stays.
        let majority = primary.majority.filter(|_| max_surrogates > 0);
        let child = match majority {
            Some(k) => Some(k),
            None if n_children == 2 && primary.total() > 0.0 => None,
            None => heaviest,
        };
        // The stored tree: a fold's predicts its held-out rows as `xval.c`'s `branch()` does
        // (the fit's direction, else rpart's right son); the whole data's as predict.rpart
        // (`pred_rpart.c`) does, sending a row no surrogate sends to the child of more
        // observations (its `n`: the rows the test, the surrogates and the fit's direction
        // sent), staying in the node on a tie.
        let stored = if searcher.xval_fold || n_children != 2 {
            child.or(searcher.xval_fold.then_some(primary.right))
        } else {
            primary.most_rows(
                &MissingRule {
                    child,
                    surrogates: surrogates.set(),
                },
                searcher.data.columns(),
            )
        };
        return Plan {
            child,
            stored,
            surrogates,
            weight,
        };
    }
    let child = match searcher.missing {
        MissingStrategy::Fractional => None,
        // No training row missed the value: scikit-learn sends a missing one left only when
        // the left child holds more (`missing_go_to_left = n_left > n_right`), so a tie goes
        // right.
        MissingStrategy::Learned => c.placed.or(match c.fractions.as_slice() {
            [left, right] if !better(*left, *right, 0.0) => Some(1),
            _ => heaviest,
        }),
        MissingStrategy::Separate => c.placed.or(heaviest),
        MissingStrategy::ClassMajority => fill
            .and_then(|f| route(&kind, &NodeValues(f), 0))
            .filter(|&k| k < n_children)
            .or(heaviest),
        MissingStrategy::MajorityBranch | MissingStrategy::Surrogate => heaviest,
    };
    Plan {
        child,
        stored: child,
        surrogates: Surrogates::default(),
        weight,
    }
}

// ---------------------------------------------------------------------------------------------
// Surrogate splits (Breiman et al. 1984, §5.3), with rpart's definitions (its `surrogate.c`,
// `choose_surg.c` and `nodesplit.c`, rpart 4.1), which R users compare against.

/// Where the chosen split sends the node's rows, as the surrogates are measured against it.
/// Weights are the rows' own (`Searcher::row_weight`: class weights and priors removed), as
/// rpart counts agreement in case weights.
struct Primary {
    /// (row, weight, child) of each row of the node; child `None` when its tested value is
    /// missing.
    rows: Vec<(usize, f64, Option<usize>)>,
    n_children: usize,
    /// Weight of the known rows per child.
    per_child: Vec<f64>,
    /// The child a row missing every surrogate goes to: the heaviest by weight (rpart's
    /// "majority direction"); `None` on a tie of a binary split, where such a row stays.
    majority: Option<usize>,
    /// The child rpart calls right in a binary split.
    right: usize,
}

impl Primary {
    fn of(searcher: &Searcher<'_, '_>, c: &Candidate, node: &NodeRows) -> Primary {
        let kind = c.kind();
        let n_children = c.fractions.len();
        let columns = searcher.data.columns();
        let rows: Vec<(usize, f64, Option<usize>)> = node
            .iter()
            .map(|(r, w)| {
                let child = route(&kind, columns, r).filter(|&k| k < n_children);
                (r, searcher.row_weight(r, w), child)
            })
            .collect();
        let mut per_child = vec![0.0; n_children];
        for &(_, w, k) in &rows {
            if let Some(p) = k.and_then(|k| per_child.get_mut(k)) {
                *p += w;
            }
        }
        let right = rpart_right(c, searcher.target);
        let max = per_child.iter().copied().fold(0.0, f64::max);
        let heaviest: Vec<usize> = (0..n_children)
            .filter(|&k| per_child.get(k).is_some_and(|&w| w == max))
            .collect();
        let majority = match heaviest.as_slice() {
            [] => None,
            [k] => Some(*k),
            // rpart keeps no direction on a tie of a binary split (`surrogate.c`'s
            // `lastsurrogate = 0`): a row that no surrogate can send stays in the node, at
            // fit (`nodesplit.c`) and at prediction (`pred_rpart.c`).
            _ if n_children == 2 => None,
            [first, ..] => Some(*first),
        };
        Primary {
            rows,
            n_children,
            per_child,
            majority,
            right,
        }
    }

    /// The child of a binary split that receives more rows of positive weight, as rpart
    /// counts a node's observations, the rows missing the tested value sent by `rule` (or
    /// kept in the node); `None` on a tie.
    fn most_rows(&self, rule: &MissingRule<'_>, columns: &[Column<'_>]) -> Option<usize> {
        let mut rows = [0usize; 2];
        for &(r, w, k) in &self.rows {
            let child = k.or_else(|| rule.route(columns, r));
            if let Some(n) = child.and_then(|k| rows.get_mut(k)).filter(|_| w > 0.0) {
                *n += 1;
            }
        }
        match rows[0].cmp(&rows[1]) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// The rows whose tested value is known: (row, weight, child).
    fn known(&self) -> impl Iterator<Item = (usize, f64, usize)> + '_ {
        self.rows
            .iter()
            .filter_map(|&(r, w, k)| k.map(|k| (r, w, k)))
    }

    fn total(&self) -> f64 {
        self.per_child.iter().sum()
    }
}

/// The child of a binary split that rpart calls right: rpart orders the two sides by their
/// mean class index (regression: mean y), lower on the left, the side `x < t` right on a tie
/// (`gini.c`, `anova.c`: `lmean < rmean ? LEFT : RIGHT`). Only ties (a majority of equal weights, a category of equal weight on
/// both sides) depend on it.
fn rpart_right(c: &Candidate, target: &Target<'_>) -> usize {
    let mean = |stats: &[f64]| -> f64 {
        match target {
            Target::Values(_) | Target::MultiValues { .. } => match stats {
                [w, s, ..] if *w > 0.0 => s / w,
                _ => 0.0,
            },
            Target::Classes { .. } | Target::MultiClasses { .. } => class_index_mean(stats),
        }
    };
    match c.children.as_slice() {
        [a, b] if mean(a) >= mean(b) => 0,
        _ => 1,
    }
}

/// One surrogate found: its agreement (weight), feature, threshold (NaN: categorical) and
/// child map.
struct Found {
    agreement: f64,
    feature: usize,
    threshold: f64,
    children: Vec<u32>,
}

/// Up to `max` surrogate splits of the node's split, best first: for every other feature, the
/// test that sends the most weight where the split does, among the rows whose tested value
/// is known (a row missing the surrogate's feature disagrees: rpart's default
/// `surrogatestyle = 0`). A numeric feature gives a threshold and a direction (binary splits
/// only); a categorical one sends each category to the child most of its rows go to (any
/// split). A surrogate is kept only if it agrees more than sending every row to the majority
/// child does (rpart's adjusted agreement above 1e-10); equal agreements keep the lower
/// feature first, and the list is kept as rpart keeps it ([`kept_as_rpart`]).
fn surrogates(data: &Dataset<'_>, primary: &Primary, max: usize, exclude: &[usize]) -> Surrogates {
    let total = primary.total();
    let majority = primary.per_child.iter().copied().fold(0.0, f64::max);
    let mut out = Surrogates::default();
    if total <= 0.0 || majority >= total {
        return out;
    }
    let mut found: Vec<Found> = Vec::new();
    for (f, column) in data.columns().iter().enumerate() {
        if exclude.contains(&f) {
            continue;
        }
        let candidate = match column {
            Column::Numeric(v) if primary.n_children == 2 => {
                with_numbers!(v, |v| numeric_surrogate(|r| v.at(r), primary, f))
            }
            Column::Sparse(c) if primary.n_children == 2 => {
                numeric_surrogate(|r| c.value(r), primary, f)
            }
            Column::Numeric(_) | Column::Sparse(_) => None,
            Column::Categorical(c) if c.ordered && primary.n_children == 2 => {
                ordinal_surrogate(c, primary, f)
            }
            Column::Categorical(c) => categorical_surrogate(c, primary, f),
        };
        let adjusted = |s: &Found| (s.agreement - majority) / (total - majority);
        if let Some(s) = candidate.filter(|s| adjusted(s) > 1e-10) {
            found.push(s);
        }
    }
    // rpart's adjusted agreement, in its arithmetic (`choose_surg.c`): shares of the total.
    let m = majority / total;
    for s in kept_as_rpart(found, max) {
        let agreement = s.agreement / total;
        out.feature.push(s.feature as u32);
        out.threshold.push(s.threshold);
        out.agreement.push(agreement);
        out.adjusted.push((agreement - m) / (1.0 - m));
        out.map.push(out.children.len() as u32);
        out.children.extend_from_slice(&s.children);
    }
    out
}

/// The surrogates of `found` (in feature order) that rpart's list keeps (`insert_split.c`):
/// each goes after those of at least its agreement, and a full list of `max` drops its last.
/// That is the best `max`, but for one case of rpart's relinking: with `max = 2`, a newcomer
/// better than both of a full list's leaves it alone in the list (the head, which is also the
/// next-to-last, is unlinked), so rpart can keep one surrogate, or a weaker second, where two
/// better ones exist (R's `survival::cgd`, `maxsurrogate = 2`). Kept alike, so that the rows
/// missing the split's value are sent where rpart sends them.
fn kept_as_rpart(found: Vec<Found>, max: usize) -> Vec<Found> {
    let mut list: Vec<Found> = Vec::with_capacity(max + 1);
    for s in found {
        let key = round_significant(s.agreement);
        let at = list
            .iter()
            .position(|k| key > round_significant(k.agreement))
            .unwrap_or(list.len());
        if list.len() >= max {
            if at == list.len() {
                continue; // not better than the last
            }
            if max == 2 && at == 0 {
                list.clear();
            } else {
                list.pop();
            }
        }
        list.insert(at, s);
    }
    list
}

/// The threshold and direction of numeric `feature` (read by `value(row)`, NaN = missing)
/// that agree most with a binary split, as rpart's `choose_surg` finds them: thresholds lie
/// midway between adjacent distinct values of the node's rows that have the feature (those
/// missing the split's own value included, so thresholds fall where rpart puts them), each
/// side must hold at least two rows whose split value is known, and the lowest threshold of
/// the best agreement wins.
fn numeric_surrogate(
    value: impl Fn(usize) -> f64,
    primary: &Primary,
    feature: usize,
) -> Option<Found> {
    // (x, weight, child), child 2 for a row whose split value is missing: it places
    // thresholds but weighs nothing.
    let mut rows: Vec<(f64, f64, usize)> = primary
        .rows
        .iter()
        .filter_map(|&(r, w, child)| {
            let x = value(r);
            let row = match child {
                Some(k) => (x, w, k),
                None => (x, 0.0, 2),
            };
            (!x.is_nan()).then_some(row)
        })
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut totals = [0.0; 2];
    let mut counts = [0usize; 2];
    for &(_, w, c) in &rows {
        if let (Some(t), Some(n)) = (totals.get_mut(c), counts.get_mut(c)) {
            *t += w;
            *n += 1;
        }
    }
    let n_known = counts[0] + counts[1];
    let mut left = [0.0; 2];
    let mut below = 0usize;
    // (agreement, position, orientation): orientation 0 sends `x <= t` to child 0.
    let mut best: Option<(f64, usize, usize)> = None;
    for (p, pair) in (1..rows.len()).zip(rows.windows(2)) {
        let &[(prev, w, c), (x, _, _)] = pair else {
            continue;
        };
        if let Some(l) = left.get_mut(c) {
            *l += w;
            below += 1;
        }
        if x <= prev || below < 2 || n_known - below < 2 {
            continue;
        }
        let straight = left[0] + (totals[1] - left[1]);
        let crossed = left[1] + (totals[0] - left[0]);
        for (agreement, orientation) in [(straight, 0), (crossed, 1)] {
            if best.is_none_or(|(b, _, _)| agreement > b) {
                best = Some((agreement, p, orientation));
            }
        }
    }
    let (agreement, p, orientation) = best?;
    let (lo, hi) = (rows.get(p - 1)?.0, rows.get(p)?.0);
    Some(Found {
        agreement,
        feature,
        threshold: super::numeric::rpart_threshold(lo, hi),
        children: if orientation == 0 {
            vec![0, 1]
        } else {
            vec![1, 0]
        },
    })
}

/// An ordered categorical column as rpart takes an ordered factor, by number: the numeric
/// surrogate of its codes ([`numeric_surrogate`]), kept as each category's child, every
/// category on its side of the cut as rpart's R code places them (the codes up to the
/// midpoint's floor on the low side: a level the node lacks at the midpoint itself too).
fn ordinal_surrogate(
    c: &CategoricalColumn<'_>,
    primary: &Primary,
    feature: usize,
) -> Option<Found> {
    let found = numeric_surrogate(|r| c.code(r).map_or(f64::NAN, f64::from), primary, feature)?;
    let (&low, &high) = (found.children.first()?, found.children.get(1)?);
    // The threshold is the float just below the midpoint of two codes.
    let last_low = found.threshold.next_up().floor();
    let children = (0..c.n_categories)
        .map(|k| if f64::from(k) <= last_low { low } else { high })
        .collect();
    Some(Found {
        threshold: f64::NAN,
        children,
        ..found
    })
}

/// Each category of `c` sent to the child most of its weight goes to (rows whose split value
/// is known); a category absent from those rows gives no direction. A category of equal
/// weight on both sides goes where the majority of those rows go (rpart: right on a further
/// tie). As in rpart's `choose_surg`, the surrogate counts only if at least two rows agree with
/// the split and at least two disagree (rpart's test reads "sends at least 2 each way" but
/// counts agreeing and disagreeing rows).
fn categorical_surrogate(
    c: &CategoricalColumn<'_>,
    primary: &Primary,
    feature: usize,
) -> Option<Found> {
    let k = c.n_categories as usize;
    let n_children = primary.n_children;
    let mut weight = vec![vec![0.0; n_children]; k];
    let mut count = vec![vec![0usize; n_children]; k];
    let mut per_child = vec![0.0; n_children];
    for (r, w, child) in primary.known() {
        let Some(code) = c.code(r) else {
            continue;
        };
        if let (Some(slot), Some(n), Some(p)) = (
            weight
                .get_mut(code as usize)
                .and_then(|row| row.get_mut(child)),
            count
                .get_mut(code as usize)
                .and_then(|row| row.get_mut(child)),
            per_child.get_mut(child),
        ) {
            *slot += w;
            *n += 1;
            *p += w;
        }
    }
    // Where a tied category goes: the heavier side of these rows (rpart's "default
    // direction"), right on a tie for a binary split.
    let default = if n_children == 2 {
        match per_child.as_slice() {
            [a, b] if a > b => 0,
            [a, b] if b > a => 1,
            _ => primary.right,
        }
    } else {
        first_heaviest(&per_child, 0, 0.0).0
    };
    let (mut agreement, mut agree, mut disagree) = (0.0, 0usize, 0usize);
    let children = weight
        .iter()
        .zip(&count)
        .map(|(w, n)| {
            if n.iter().sum::<usize>() == 0 {
                return NONE;
            }
            // The default child when it is among the heaviest, else the first heaviest
            // (`w` is not empty: its row has counts).
            let (first, top) = first_heaviest(w, default, f64::NEG_INFINITY);
            let child = if w.get(default) == Some(&top) {
                default
            } else {
                first
            };
            agreement += top;
            let here = n.get(child).copied().unwrap_or(0); // `n` is as wide as `w`: never read
            agree += here;
            disagree += n.iter().sum::<usize>() - here;
            child as u32
        })
        .collect();
    (agree >= 2 && disagree >= 2).then_some(Found {
        agreement,
        feature,
        threshold: f64::NAN,
        children,
    })
}
/// The first of the heaviest weights above `floor`, with its index (`(at, floor)` when none
/// is above it): the index comes with the value, so neither is read back with a default.
fn first_heaviest(weights: &[f64], at: usize, floor: f64) -> (usize, f64) {
    let heavier = |best: (usize, f64), (i, &w): (usize, &f64)| match w > best.1 {
        true => (i, w),
        false => best,
    };
    weights.iter().enumerate().fold((at, floor), heavier)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn kept(agreements: &[f64], max: usize) -> Vec<usize> {
        let found = agreements
            .iter()
            .enumerate()
            .map(|(feature, &agreement)| Found {
                agreement,
                feature,
                threshold: 0.5,
                children: vec![0, 1],
            })
            .collect();
        kept_as_rpart(found, max)
            .iter()
            .map(|s| s.feature)
            .collect()
    }

    #[test]
    fn surrogate_lists_are_kept_as_rpart_keeps_them() {
        // The best `max`, equal agreements in feature order.
        assert_eq!(kept(&[3.0, 5.0, 4.0, 5.0, 1.0], 3), [1, 3, 2]);
        assert_eq!(kept(&[3.0, 5.0, 4.0, 5.0, 1.0], 1), [1]);
        assert_eq!(kept(&[3.0, 5.0, 4.0], 5), [1, 2, 0]);
        // max = 2: a newcomer better than a full list's head is left alone in it...
        assert_eq!(kept(&[3.0, 2.0, 4.0], 2), [2]);
        assert_eq!(kept(&[3.0, 2.0, 4.0, 1.0], 2), [2, 3]);
        // ...and one that goes second replaces the second.
        assert_eq!(kept(&[3.0, 1.0, 2.0], 2), [0, 2]);
        assert!(kept(&[3.0, 1.0], 0).is_empty());
    }
}
