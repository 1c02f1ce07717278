//! Missing values beyond C4.5's fractions: the values the class-majority strategy fills in,
//! rpart's surrogate splits, and the child each strategy sends a missing value to at predict.
//!
//! C4.5's own rule (score on the known rows × ρ, send a missing row to every child with
//! r̃_v) lives in the search and the routing ([`super::send`]); the strategies that place
//! missing rows during the search (learned, separate) live in the scans of `super`.

use super::{round_significant, route, Candidate, MissingRule, NodeRows, Searcher, Values};
use crate::criterion::better;
use crate::data::{CategoricalColumn, Column, Dataset, Target};
use crate::params::MissingStrategy;
use crate::tree::{NodeKind, SurrogateSet, NONE};

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

/// The group a training row's missing cells are filled from: its class, or 0 (regression).
fn group(target: &Target<'_>, row: usize) -> usize {
    match target {
        Target::Classes { codes, .. } => codes.get(row).copied().unwrap_or(0) as usize,
        Target::Values(_) => 0,
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
            Target::Values(_) => 1,
        };
        let features = data
            .columns()
            .iter()
            .enumerate()
            .map(|(f, column)| {
                if !usable.get(f).copied().unwrap_or(false) {
                    return FeatureFill::Unused;
                }
                match column {
                    Column::Numeric(v) => numeric_fill(v, target, node, groups),
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
                .unwrap_or(*node),
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

fn numeric_fill(v: &[f64], target: &Target<'_>, node: &NodeRows, groups: usize) -> FeatureFill {
    let (mut sw, mut swx) = (vec![0.0; groups], vec![0.0; groups]);
    for (r, w) in node.iter() {
        let x = v.get(r).copied().unwrap_or(f64::NAN);
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
    map: Vec<u32>,
    children: Vec<u32>,
}

impl Surrogates {
    pub(crate) fn set(&self) -> SurrogateSet<'_> {
        SurrogateSet {
            feature: &self.feature,
            threshold: &self.threshold,
            agreement: &self.agreement,
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
    let child = match searcher.missing {
        MissingStrategy::Fractional => None,
        MissingStrategy::MajorityBranch | MissingStrategy::Surrogate => heaviest,
        MissingStrategy::Learned | MissingStrategy::Separate => c.placed.or(heaviest),
        MissingStrategy::ClassMajority => fill
            .and_then(|f| route(&kind, &NodeValues(f), 0))
            .filter(|&k| k < n_children)
            .or(heaviest),
    };
    let surrogates = if searcher.missing == MissingStrategy::Surrogate && max_surrogates > 0 {
        let exclude: Vec<usize> = match &c.rule {
            super::SplitRule::Oblique { features, .. } => {
                features.iter().map(|&f| f as usize).collect()
            }
            _ => vec![c.feature],
        };
        surrogates(
            searcher.data,
            &kind,
            n_children,
            node,
            max_surrogates,
            &exclude,
        )
    } else {
        Surrogates::default()
    };
    Plan {
        child,
        surrogates,
        weight,
    }
}

// ---------------------------------------------------------------------------------------------
// Surrogate splits (Breiman et al. 1984, §5.3; rpart's `surrogate.c`).

/// One surrogate found: its agreement (weight), feature, threshold (NaN: categorical) and
/// child map.
struct Found {
    agreement: f64,
    feature: usize,
    threshold: f64,
    children: Vec<u32>,
}

/// Up to `max` surrogate splits of the test `kind` at a node, best first: for every other
/// feature, the test that sends the most training weight where `kind` does, among the rows
/// whose tested value is known (a row missing the surrogate's feature counts as a
/// disagreement, as rpart's default `surrogatestyle = 0`). A numeric feature gives a
/// threshold and a direction (binary splits only); a categorical feature sends each category
/// to the child most of its rows go to (any split). A surrogate is kept only if it agrees more
/// than sending every row to the majority child does (rpart's positive "adj").
fn surrogates(
    data: &Dataset<'_>,
    kind: &NodeKind<'_>,
    n_children: usize,
    node: &NodeRows,
    max: usize,
    exclude: &[usize],
) -> Surrogates {
    let columns = data.columns();
    let primary: Vec<(usize, f64, usize)> = node
        .iter()
        .filter_map(|(r, w)| {
            route(kind, columns, r)
                .filter(|&c| c < n_children)
                .map(|c| (r, w, c))
        })
        .collect();
    let total: f64 = primary.iter().map(|&(_, w, _)| w).sum();
    let mut out = Surrogates::default();
    if total <= 0.0 {
        return out;
    }
    let mut per_child = vec![0.0; n_children];
    for &(_, w, c) in &primary {
        if let Some(p) = per_child.get_mut(c) {
            *p += w;
        }
    }
    let baseline = per_child.iter().copied().fold(0.0, f64::max);
    let mut found: Vec<Found> = Vec::new();
    for (f, column) in columns.iter().enumerate() {
        if exclude.contains(&f) {
            continue;
        }
        let candidate = match column {
            Column::Numeric(v) if n_children == 2 => numeric_surrogate(v, &primary, f),
            Column::Numeric(_) => None,
            Column::Categorical(c) => categorical_surrogate(c, &primary, n_children, f),
        };
        if let Some(s) = candidate.filter(|s| better(s.agreement, baseline, total)) {
            found.push(s);
        }
    }
    // Best agreement first; equal ones (to rounding) by feature index.
    found.sort_by(|a, b| {
        round_significant(b.agreement)
            .total_cmp(&round_significant(a.agreement))
            .then(a.feature.cmp(&b.feature))
    });
    for s in found.into_iter().take(max) {
        out.feature.push(s.feature as u32);
        out.threshold.push(s.threshold);
        out.agreement.push(s.agreement / total);
        out.map.push(out.children.len() as u32);
        out.children.extend_from_slice(&s.children);
    }
    out
}

/// The threshold and direction of numeric feature `v` that agree most with the primary
/// directions `primary` (row, weight, child 0 or 1).
fn numeric_surrogate(v: &[f64], primary: &[(usize, f64, usize)], feature: usize) -> Option<Found> {
    let mut known: Vec<(f64, f64, usize)> = primary
        .iter()
        .filter_map(|&(r, w, c)| {
            let x = v.get(r).copied().unwrap_or(f64::NAN);
            (!x.is_nan()).then_some((x, w, c))
        })
        .collect();
    if known.len() < 2 {
        return None;
    }
    known.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut totals = [0.0; 2];
    for &(_, w, c) in &known {
        if let Some(t) = totals.get_mut(c) {
            *t += w;
        }
    }
    let mut left = [0.0; 2];
    // (agreement, position, orientation): orientation 0 sends `x <= t` to child 0.
    let mut best: Option<(f64, usize, usize)> = None;
    let scale = totals[0] + totals[1];
    for (p, pair) in (1..known.len()).zip(known.windows(2)) {
        let &[(prev, w, c), (x, _, _)] = pair else {
            continue;
        };
        if let Some(l) = left.get_mut(c) {
            *l += w;
        }
        if x <= prev {
            continue;
        }
        let straight = left[0] + (totals[1] - left[1]);
        let crossed = left[1] + (totals[0] - left[0]);
        for (agreement, orientation) in [(straight, 0), (crossed, 1)] {
            if best.is_none_or(|(b, _, _)| better(agreement, b, scale)) {
                best = Some((agreement, p, orientation));
            }
        }
    }
    let (agreement, p, orientation) = best?;
    let (lo, hi) = (known.get(p - 1)?.0, known.get(p)?.0);
    let mut threshold = lo / 2.0 + hi / 2.0;
    if threshold >= hi || !threshold.is_finite() {
        threshold = lo;
    }
    Some(Found {
        agreement,
        feature,
        threshold,
        children: if orientation == 0 {
            vec![0, 1]
        } else {
            vec![1, 0]
        },
    })
}

/// Each category of `c` sent to the child most of its rows go to (rows where both tests are
/// known); a category absent from those rows gives no direction.
fn categorical_surrogate(
    c: &CategoricalColumn<'_>,
    primary: &[(usize, f64, usize)],
    n_children: usize,
    feature: usize,
) -> Option<Found> {
    let k = c.n_categories as usize;
    let mut table = vec![vec![0.0; n_children]; k];
    let mut any = false;
    for &(r, w, child) in primary {
        if let Some(slot) = c
            .code(r)
            .and_then(|code| table.get_mut(code as usize)?.get_mut(child))
        {
            *slot += w;
            any = true;
        }
    }
    if !any {
        return None;
    }
    let mut agreement = 0.0;
    let children = table
        .iter()
        .map(|row| match mode(row) {
            Some(child) => {
                agreement += row.get(child as usize).copied().unwrap_or(0.0);
                child
            }
            None => NONE,
        })
        .collect();
    Some(Found {
        agreement,
        feature,
        threshold: f64::NAN,
        children,
    })
}
