//! Per-feature split scores of a data set, as a student checks them against the texts.

use crate::control::Control;
use crate::criterion::Criterion;
use crate::data::{validate_training_weights, Dataset, Kept, Sample, Target};
use crate::error::Result;
use crate::params::{CategoricalSplit, TreeParams};
use crate::split::{NodeRows, Prepared, Searcher};
use crate::tree::FeatureScore;

/// The best candidate of each feature on the whole data set (one entry per feature; all-NaN
/// for a feature that cannot separate the rows). See [`FeatureScore`] for the figures.
pub fn split_scores(
    data: &Dataset<'_>,
    target: &Target<'_>,
    weights: &[f64],
    criterion: Criterion,
    categorical_split: CategoricalSplit,
) -> Result<Vec<FeatureScore>> {
    data.validate_for_fit()?;
    target.validate(data.n_rows())?;
    validate_training_weights(weights, data.n_rows())?;
    let sample = Sample {
        data,
        target,
        weights,
    };
    if let Some(kept) = Kept::of(&sample, &Control::new()) {
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
    let rows = NodeRows {
        rows: (0..data.n_rows() as u32).collect(),
        weights: weights.to_vec(),
    };
    let usable = vec![true; data.n_features()];
    let (candidates, _) = searcher.candidates(&rows, &usable, None, Prepared::Unsorted);
    Ok(candidates
        .into_iter()
        .map(|c| c.map_or(FeatureScore::NONE, |c| c.score))
        .collect())
}
