//! C4.5 release 8's numeric and selection rules as Weka's J48 codes them
//! ([`Conventions::J48`]; Weka 3.6 `C45Split.handleNumericAttribute`, `C45Split.setSplitPoint`,
//! `C45ModelSelection.selectModel`, `Distribution.check`, after Quinlan's `contin.c` and
//! `build.c`). Each rule keeps J48's tolerances (`Utils.SMALL` = 1e-6, the 1e-5 of equal
//! values, the 1e-3 of the average gain), since they decide which tree J48 grows.

use rayon::prelude::*;

use super::Candidate;
use crate::control::Control;
use crate::data::{with_numbers, Column, Dataset};
use crate::params::Conventions;

/// Weka's `Utils.SMALL`: `gr`, `grOrEq`, `smOrEq` and `eq` compare with this slack.
pub(crate) const SMALL: f64 = 1e-6;

/// Adjacent sorted values closer than this are one value: no threshold between them
/// (`C45Split`: `x[i - 1] + 1e-5 < x[i]`).
pub(crate) const SAME_VALUE: f64 = 1e-5;

/// The average-gain rule admits gains down to the average less this (C4.5's `Epsilon`).
const AVERAGE_SLACK: f64 = 1e-3;

/// A categorical feature with at least this share of the training rows as categories is left
/// out of the average gain (C4.5's `MaxAttVal[Att] < 0.3 * (MaxItem + 1)`).
const MANY_VALUES: f64 = 0.3;

/// C4.5's MINSPLIT: the known weight each side of a numeric test needs, 10% of the node's
/// known weight per class, at least MINOBJS and at most 25 (`contin.c`, J48's
/// `handleNumericAttribute`).
pub(crate) fn min_split(known_weight: f64, n_classes: usize, min_objects: f64) -> f64 {
    let share = 0.1 * known_weight / n_classes.max(1) as f64;
    if share - min_objects < SMALL {
        min_objects
    } else if share - 25.0 > SMALL {
        25.0
    } else {
        share
    }
}

/// Per numeric feature, its distinct known training values in ascending order: J48 moves a
/// threshold down to the largest of them not above it (`setSplitPoint`, "analogue to C4.5").
#[derive(Debug, Default)]
pub(crate) struct TrainingValues {
    values: Vec<Vec<f64>>,
    /// Per feature, whether its adjacent distinct values are all more than [`SAME_VALUE`]
    /// apart ([`Self::spaced`]).
    spaced: Vec<bool>,
    /// Per numeric feature, the whole data's values in row order, which the walk of
    /// [`Self::at_or_below`] reads in place of the grown rows' (J48 -R, whose pruning rows
    /// grow nothing); empty otherwise.
    walk: Vec<Vec<f64>>,
}

impl TrainingValues {
    /// The sorted distinct values of every numeric column (`None` when the memory cannot be
    /// had: the fit then stops).
    pub(crate) fn of(data: &Dataset<'_>, control: &Control) -> Option<TrainingValues> {
        let distinct = |column: &Column<'_>| -> Option<Vec<f64>> {
            let mut sorted: Vec<f64> = match column {
                Column::Numeric(x) => {
                    let mut v = control.vec(x.len())?;
                    with_numbers!(x, |x| v.extend(x.iter().filter(|x| !x.is_nan())));
                    v
                }
                // The stored values (−0.0 read as +0.0), and 0.0 where a row stores none.
                Column::Sparse(c) => {
                    let mut v = control.vec(c.values.len() + 1)?;
                    v.extend(c.values.iter().map(|&x| x + 0.0));
                    if c.rows.len() < c.n_rows {
                        v.push(0.0);
                    }
                    v
                }
                Column::Categorical(_) => Vec::new(),
            };
            sorted.sort_unstable_by(f64::total_cmp);
            sorted.dedup();
            Some(sorted)
        };
        // The columns sort side by side: the fit waits for them before its root is searched.
        let values: Vec<Vec<f64>> = data
            .columns()
            .par_iter()
            .map(distinct)
            .collect::<Option<_>>()?;
        let spaced = values
            .iter()
            .map(|v| {
                v.windows(2)
                    .all(|w| matches!(w, [a, b] if *b > *a + SAME_VALUE))
            })
            .collect();
        Some(TrainingValues {
            values,
            spaced,
            walk: Vec::new(),
        })
    }

    /// [`Self::of`] the whole data, rows of weight 0 included, walked in its row order:
    /// J48 -R's `allData` ([`crate::params::TreeParams::j48_pruning_set`]).
    pub(crate) fn whole(data: &Dataset<'_>, control: &Control) -> Option<TrainingValues> {
        let mut values = TrainingValues::of(data, control)?;
        values.walk = data
            .columns()
            .iter()
            .map(|column| match column {
                Column::Numeric(x) => {
                    let mut v = control.vec(x.len())?;
                    with_numbers!(x, |x| v.extend(x.iter()));
                    Some(v)
                }
                Column::Sparse(c) => {
                    let mut v = control.vec(c.n_rows)?;
                    v.extend((0..c.n_rows).map(|r| c.value(r)));
                    Some(v)
                }
                Column::Categorical(_) => Some(Vec::new()),
            })
            .collect::<Option<_>>()?;
        Some(values)
    }

    /// Whether J48's cuts of `feature` are at every change of value: its distinct training
    /// values are all more than [`SAME_VALUE`] apart, so two distinct values of any node,
    /// `a < b`, are too (`b` is at least `a`'s successor `v`, and `v > a + 1e-5`). A scan
    /// then finds its cuts in a sorted list's flags without reading the values.
    pub(crate) fn spaced(&self, feature: usize) -> bool {
        self.spaced.get(feature).copied().unwrap_or(false)
    }

    /// The threshold J48 stores for a cut at `cut` of the column whose values, all training
    /// rows in their order, are `x` (the whole data's under J48 -R, kept here): `setSplitPoint` walks the rows and takes a value `v` with `smOrEq(v,
    /// cut)` (v − cut < 1e-6) when it is more than 1e-6 above the one held, so it ends on
    /// the largest such value `m` unless other values lie within 1e-6 below `m`: then the
    /// row order decides, and the walk is made. Never below `lo`, the node's value below the
    /// cut, so the node's rows are partitioned as the cut partitions them.
    pub(crate) fn at_or_below(
        &self,
        feature: usize,
        x: impl Iterator<Item = f64>,
        cut: f64,
        lo: f64,
    ) -> f64 {
        let Some(values) = self.values.get(feature) else {
            return cut;
        };
        let below = |v: f64| v - cut < SMALL || v <= cut;
        let above = values.partition_point(|&v| below(v));
        let Some(&largest) = above.checked_sub(1).and_then(|i| values.get(i)) else {
            return cut;
        };
        let crowded = above
            .checked_sub(2)
            .and_then(|i| values.get(i))
            .is_some_and(|&v| largest - v <= SMALL);
        let last = |held: f64, v: f64| {
            if !v.is_nan() && v - held > SMALL && below(v) {
                v
            } else {
                held
            }
        };
        let chosen = if crowded {
            match self.walk.get(feature) {
                Some(whole) if !whole.is_empty() => whole.iter().copied().fold(-f64::MAX, last),
                _ => x.fold(-f64::MAX, last),
            }
        } else {
            largest
        };
        chosen.max(lo)
    }
}

/// Which features C4.5's average gain leaves out: categorical ones with at least 0.3 × the
/// training rows as categories, unless every feature is one (then none is left out). `rows`
/// counts the training rows by weight (see `Searcher::rows_of`), which with unit weights is
/// J48's count of instances.
pub(crate) fn many_valued(data: &Dataset<'_>, rows: f64) -> Vec<bool> {
    let many: Vec<bool> = data
        .columns()
        .iter()
        .map(|c| match c {
            Column::Categorical(c) => MANY_VALUES * rows - f64::from(c.n_categories) <= SMALL,
            Column::Numeric(_) | Column::Sparse(_) => false,
        })
        .collect();
    if many.iter().all(|&m| m) {
        vec![false; many.len()]
    } else {
        many
    }
}

/// The features J48 with MINOBJS 0 always counts as a split (`Distribution.check(0)` passes
/// any two bags, empty ones too): the unordered nominal ones of at least two values, a split
/// of gain 0 where the node's rows show one value or none (an attribute a multiway split
/// above used up, which quercus no longer searches).
pub(crate) fn always_valid(data: &Dataset<'_>) -> Vec<bool> {
    data.columns()
        .iter()
        .map(|c| matches!(c, Column::Categorical(c) if c.n_categories >= 2 && !c.ordered))
        .collect()
}

/// J48's choice among the candidates (`selectModel`): the average gain over the candidates
/// not `excluded` (and, with gain 0, the `zero_gain` features that have none); then, in
/// feature order, a candidate whose gain is at least the average less 1e-3 replaces the best
/// if its ratio (its gain for other criteria) beats the best by more than 1e-6, the best
/// starting at 0. `ratio` says whether the criterion is the ratio.
pub(crate) fn choose(
    candidates: &[Option<Candidate>],
    excluded: &[bool],
    zero_gain: &[bool],
    ratio: bool,
) -> Option<usize> {
    let included = |f: usize| !excluded.get(f).copied().unwrap_or(false);
    let counted = candidates
        .iter()
        .enumerate()
        .filter_map(|(f, c)| c.as_ref().filter(|_| included(f)));
    let (sum, n) = counted.fold((0.0, 0usize), |(s, n), c| (s + c.score.gain, n + 1));
    let zeros = candidates
        .iter()
        .enumerate()
        .filter(|&(f, c)| c.is_none() && included(f) && zero_gain.get(f) == Some(&true))
        .count();
    let n = n + zeros;
    if n == 0 {
        return None;
    }
    let average = sum / n as f64;
    let mut best: Option<usize> = None;
    let mut best_value = 0.0;
    for (f, c) in candidates.iter().enumerate() {
        let Some(c) = c else { continue };
        let value = if ratio { c.score.score } else { c.score.gain };
        if c.score.gain >= average - AVERAGE_SLACK && value - best_value > SMALL {
            best = Some(f);
            best_value = value;
        }
    }
    best
}

/// The class J48 predicts from class weights (`Distribution.maxClass`): scanning the classes
/// in order, one replaces the current if it beats it by more than 1e-6 (starting from 0).
pub(crate) fn max_class(weights: &[f64]) -> u32 {
    let mut best = 0;
    let mut max = 0.0;
    for (k, &w) in weights.iter().enumerate() {
        if w - max > SMALL {
            best = k;
            max = w;
        }
    }
    best as u32
}

/// Whether a node's class weights are pure by J48's test (`Utils.eq(total, max class)`).
pub(crate) fn is_pure(weights: &[f64]) -> bool {
    let total: f64 = weights.iter().sum();
    let max = weights.iter().copied().fold(0.0, f64::max);
    (total - max).abs() < SMALL
}

impl Conventions {
    /// The least gap between adjacent sorted values for a threshold to fall between them.
    pub(crate) fn same_value_gap(self) -> f64 {
        match self {
            Conventions::Texts => 0.0,
            Conventions::J48 => SAME_VALUE,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A feature is spaced when its distinct known values are all more than 1e-5 apart: −0.0
    /// and +0.0 are one value, missing values are not values, and a single value is spaced.
    #[test]
    fn spaced_features() {
        let nan = f64::NAN;
        for (column, spaced) in [
            (&[0.0, 0.001, nan, -0.0, 0.001, -2.5][..], true),
            (&[1.0, 1.000_005, 3.0][..], false),
            (&[1.0, 1.0 + SAME_VALUE][..], false),
            (&[7.0, 7.0, nan][..], true),
        ] {
            let data = Dataset::new(vec![Column::numeric(column)]).unwrap();
            let values = TrainingValues::of(&data, &Control::new()).unwrap();
            assert_eq!(values.spaced(0), spaced, "{column:?}");
            assert!(!values.spaced(1), "no such feature");
        }
    }
}
