//! The class a node predicts from its class weights, under the texts' conventions (the
//! heaviest class, ties to the parent's, costs as expected costs) or J48's. Growth, the
//! optimal search, pruning and the split search's category orderings all label nodes here.

use crate::criterion::better;
use crate::params::Conventions;
use crate::split::j48;

/// The class a node predicts: the least expected cost with a cost matrix, else the heaviest
/// class. Ties go to the parent's class if it is among them, else the first.
pub(crate) fn class_of(weights: &[f64], parent: Option<u32>, costs: Option<&[f64]>) -> u32 {
    let k = weights.len();
    // Score to maximise: class weight, or minus the expected cost of predicting class j
    // (column j of the k × k cost matrix, which parameter validation sized; k ≥ 1 whenever
    // a class is scored).
    let score = |j: usize, w: f64| -> f64 {
        match costs {
            Some(c) => -weights
                .iter()
                .zip(c.iter().skip(j).step_by(k))
                .map(|(w, c)| w * c)
                .sum::<f64>(),
            None => w,
        }
    };
    let best = weights
        .iter()
        .enumerate()
        .map(|(j, &w)| score(j, w))
        .fold(f64::NEG_INFINITY, f64::max);
    let tied = |j: usize, w: f64| !better(best, score(j, w), 0.0);
    let parent_tied = |&p: &u32| {
        weights
            .get(p as usize)
            .is_some_and(|&w| tied(p as usize, w))
    };
    if let Some(p) = parent.filter(parent_tied) {
        return p;
    }
    // Class 0 when none ties: a node without classes.
    weights
        .iter()
        .enumerate()
        .position(|(j, &w)| tied(j, w))
        .unwrap_or(0) as u32
}

/// The class a node predicts under `conventions`: [`class_of`] (the texts), or J48's
/// `Distribution.maxClass` (the first class to beat the previous by 1e-6; costs, which J48
/// does not know, keep [`class_of`]).
pub(crate) fn label_of(
    weights: &[f64],
    parent: Option<u32>,
    costs: Option<&[f64]>,
    conventions: Conventions,
) -> u32 {
    match (conventions, costs) {
        (Conventions::J48, None) => j48::max_class(weights),
        _ => class_of(weights, parent, costs),
    }
}

/// The heaviest class; ties go to the parent's class if it is among them, else the first.
pub(crate) fn majority(weights: &[f64], parent: Option<u32>) -> u32 {
    class_of(weights, parent, None)
}
