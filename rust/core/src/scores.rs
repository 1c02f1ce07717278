//! Per-feature split scores of a data set, as a student checks them against the texts.

use crate::control::Control;
use crate::criterion::Criterion;
use crate::data::{validate_training_weights, Column, Dataset, KeptRows, Sample, Target};
use crate::error::Result;
use crate::params::{CategoricalSplit, TreeParams};
use crate::split::{NodeRows, Prepared, Searcher};
use crate::tree::FeatureScore;

/// Why a feature has no split at a node: the figures of [`split_scores`] are NaN for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoSplit {
    /// Every row misses the feature's value.
    NoKnownValue,
    /// The rows that know the value all hold the same one: nothing to separate.
    OneKnownValue,
    /// Every split would cut the rows missing the value (C4.5's fractions) into a child of
    /// less than one row's weight (see [`TreeParams::sizes_bound_cuts_only`]).
    CutTooFine,
    /// The values differ, but no split of them has a score under the criterion (e.g. a
    /// Poisson child predicting 0, or a criterion that needs two classes on each side).
    NoScore,
}

impl NoSplit {
    /// The reason in words, as `split_scores` reports it.
    pub fn reason(self) -> &'static str {
        match self {
            NoSplit::NoKnownValue => "no row knows its value",
            NoSplit::OneKnownValue => "one known value: nothing to separate",
            NoSplit::CutTooFine => {
                "every split would cut the rows missing its value into a child of less than \
                 one row's weight"
            }
            NoSplit::NoScore => "no split of its values has a score under this criterion",
        }
    }
}

/// The best candidate of each feature on the whole data set (one entry per feature), or why
/// the feature has none. See [`FeatureScore`] for the figures.
pub fn split_scores(
    data: &Dataset<'_>,
    target: &Target<'_>,
    weights: &[f64],
    criterion: Criterion,
    categorical_split: CategoricalSplit,
) -> Result<Vec<std::result::Result<FeatureScore, NoSplit>>> {
    data.validate_for_fit()?;
    target.validate(data.n_rows())?;
    validate_training_weights(weights, data.n_rows())?;
    let sample = Sample {
        data,
        target,
        weights,
    };
    if let Some(kept) = KeptRows::of(&sample, &Control::new()) {
        return kept?
            .with(|s| split_scores(s.data, s.target, s.weights, criterion, categorical_split));
    }
    let params = TreeParams {
        criterion,
        categorical_split,
        ..TreeParams::default()
    };
    crate::builder::check_criterion(criterion, categorical_split, target, data)?;
    crate::builder::check_outputs(&params, target)?;
    let searcher = Searcher::new(data, target, &params, weights.iter().sum());
    let rows = NodeRows::each((0..data.n_rows() as u32).collect(), weights.to_vec());
    let usable = vec![true; data.n_features()];
    let (candidates, _) = searcher.candidates(&rows, &usable, None, Prepared::Unsorted);
    Ok(candidates
        .into_iter()
        .zip(data.columns())
        .enumerate()
        .map(|(f, (c, column))| match c {
            Some(c) => Ok(c.score),
            None => Err(no_split(&searcher, &rows, f, column)),
        })
        .collect())
}

/// Why feature `f` (`column`) has no candidate at the node of `rows`: its known values first,
/// then whether the search finds a split once the size rules are lifted.
fn no_split(
    searcher: &Searcher<'_, '_>,
    rows: &NodeRows,
    f: usize,
    column: &Column<'_>,
) -> NoSplit {
    let mut known = rows
        .iter()
        .filter(|&(_, w)| w > 0.0)
        .filter_map(|(r, _)| known_value(column, r));
    let Some(first) = known.next() else {
        return NoSplit::NoKnownValue;
    };
    if known.all(|v| v == first) {
        return NoSplit::OneKnownValue;
    }
    let mut only = vec![false; searcher.data.n_features()];
    if let Some(u) = only.get_mut(f) {
        *u = true;
    }
    let unbounded = searcher.without_size_rules();
    let (found, _) = unbounded.candidates(rows, &only, None, Prepared::Unsorted);
    match found.get(f) {
        Some(Some(_)) => NoSplit::CutTooFine,
        _ => NoSplit::NoScore,
    }
}

/// Row `row`'s value of `column` as a number to compare (a category by its code); `None`
/// when missing.
fn known_value(column: &Column<'_>, row: usize) -> Option<f64> {
    match column {
        Column::Numeric(v) => v.get(row).filter(|x| !x.is_nan()).map(|x| x + 0.0),
        Column::Categorical(c) => c.code(row).map(f64::from),
        Column::Sparse(c) => Some(c.value(row)),
    }
}
