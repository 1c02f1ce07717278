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
    // Score to maximise: class weight, or minus the expected cost of predicting the class.
    let score = |j: usize| -> f64 {
        match costs {
            Some(c) => -(0..k)
                .map(|i| {
                    weights.get(i).copied().unwrap_or(0.0)
                        * c.get(i * k + j).copied().unwrap_or(0.0)
                })
                .sum::<f64>(),
            None => weights.get(j).copied().unwrap_or(0.0),
        }
    };
    let best = (0..k).map(score).fold(f64::NEG_INFINITY, f64::max);
    let tied = |j: usize| j < k && !better(best, score(j), 0.0);
    if let Some(p) = parent.filter(|&p| tied(p as usize)) {
        return p;
    }
    (0..k).find(|&j| tied(j)).unwrap_or(0) as u32
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
