//! Provably optimal shallow trees (`algorithm="optimal"`): the tree of depth at most `d` (and
//! at most `max_leaf_nodes` leaves) that minimises the training error plus `ccp_alpha` per
//! leaf, over every axis-parallel tree: every midpoint of every numeric feature (no
//! binarisation; with `splitter="hist"`, every edge between the histogram splitter's bins),
//! every subset of a nominal feature's categories, missing values sent to the side the
//! search finds best (`missing="learned"`).
//!
//! The search is a dynamic program over subproblems (a node's rows and its budgets) with
//! branch and bound, after MurTree (Demirović et al., JMLR 2022), STreeD (van der Linden et
//! al., NeurIPS 2023) and ConTree (Brița, van der Linden & Demirović, AAAI 2025):
//!
//! - `columns`: the features as rank orderings and category codes;
//! - `node`: a subproblem's rows, sorted once per ordering and handed down;
//! - `loss`: the objective of a leaf, and the bound on how much one row can change it;
//! - `depth1`: the best depth-one trees of both sides of a split in one sweep;
//! - `depth2`: depth-two subproblems by that sweep, never materialised;
//! - `pairs`: depth-two subproblems of few-valued columns, solved whole by counting;
//! - `boxes`: on large nodes, depth-two roots bounded a whole bin of thresholds at a time;
//! - `sweep`: large depth-two subproblems solved by one sweep per root column, each side's
//!   best second split kept in trees of prefix sums;
//! - `binary`: binary features counted by pairs of features held, reused across
//!   subproblems, and the similarity bound across roots;
//! - `intervals`: which thresholds (and subsets) to evaluate, which to rule out;
//! - `cache`: solved subproblems by row set;
//! - `search`: the branch and bound itself;
//! - `assemble`: the arena tree of the result, and the greedy tree read as a first solution.
//!
//! The greedy CART tree of the same depth is the first incumbent, so the result is never
//! worse than it. A time limit returns the best tree found with the lower bound proven so
//! far ([`Optimality`]); Ctrl-C and running out of memory stop the fit with an error as
//! everywhere else.

mod assemble;
mod binary;
mod boxes;
mod cache;
mod columns;
mod depth1;
mod depth2;
mod intervals;
mod loss;
mod node;
mod pairs;
mod roots;
mod search;
mod solution;
mod sweep;

use crate::builder::grow_controlled;
use crate::control::Control;
use crate::criterion::Criterion;
use crate::data::{validate_training_weights, Column, Dataset, KeptRows, Sample, Target};
use crate::error::{CoreError, Result};
use crate::params::{CategoricalSplit, MissingStrategy, Splitter, TreeParams};
use crate::split::hist::Bins;
use crate::threads::in_pool;
use crate::tree::{Optimality, Tree};

use assemble::{assemble, sol_of_tree, Setting};
use binary::Binary;
use cache::{Cache, RowKeys};
use columns::Columns;
use loss::{ClassLoss, Loss, SquaredLoss};
use node::Node;
use search::{solve_root, Ctx, Outcome};
use solution::Sol;

/// Deepest tree the optimal search takes: the search is exponential in the depth, and the
/// call stack grows by one `solve` frame per level (so it is bounded here, not by the data).
pub const MAX_DEPTH: usize = 6;

fn invalid(name: &'static str, reason: impl Into<String>) -> CoreError {
    CoreError::InvalidParameter {
        name,
        reason: reason.into(),
    }
}

/// The optimal tree of `train` within `params.max_depth` and `params.max_leaf_nodes`,
/// minimising the training error (misclassification cost with `params.cost_matrix`, squared
/// error for a regression target) per unit of training weight plus `ccp_alpha` per leaf:
/// `ccp_alpha` means what it means in cost-complexity pruning.
///
/// Stops with [`CoreError::Cancelled`] or [`CoreError::OutOfMemory`] as [`crate::grow`] does;
/// past `control`'s time limit it returns the best tree found, whose
/// [`Tree::optimality`] then says how far from optimal it may be.
pub fn grow_optimal(
    train: &Sample<'_, '_>,
    params: &TreeParams,
    ccp_alpha: f64,
    control: &Control,
) -> Result<Tree> {
    let (data, target) = (train.data, train.target);
    params.validate()?;
    data.validate_for_fit()?;
    target.validate(data.n_rows())?;
    validate_training_weights(train.weights, data.n_rows())?;
    let n_classes = match target {
        Target::Classes { n_classes, .. } => *n_classes,
        Target::Values(_) => 0,
        Target::MultiClasses { .. } | Target::MultiValues { .. } => {
            return Err(invalid(
                "y",
                "algorithm=\"optimal\" grows trees of one output; y has several columns",
            ))
        }
    };
    params.validate_for(data, n_classes)?;
    let depth = check(params, target, data, ccp_alpha)?;
    // Rows of weight 0 are absent (as in `grow`).
    if let Some(kept) = KeptRows::of(train, control) {
        return kept?.with(|train| grow_optimal(train, params, ccp_alpha, control));
    }
    in_pool(params.n_jobs, || {
        run(train, params, depth, ccp_alpha, control)
    })
}

/// Refuses what the optimal search does not do, naming the parameter and what to use; else
/// the depth limit it searches within.
fn check(
    params: &TreeParams,
    target: &Target<'_>,
    data: &Dataset<'_>,
    ccp_alpha: f64,
) -> Result<usize> {
    let depth = params.max_depth.ok_or_else(|| {
        invalid(
            "max_depth",
            format!("algorithm=\"optimal\" needs a depth limit (1 to {MAX_DEPTH})"),
        )
    })?;
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(invalid(
            "max_depth",
            format!(
                "algorithm=\"optimal\" searches trees of depth 1 to {MAX_DEPTH} (the search is \
                 exponential in the depth); got {depth}"
            ),
        ));
    }
    let regression = matches!(target, Target::Values(_));
    let wanted = if regression {
        Criterion::SquaredError
    } else {
        Criterion::Misclassification
    };
    if params.criterion != wanted {
        return Err(invalid(
            "criterion",
            format!(
                "algorithm=\"optimal\" minimises the {}; criterion must be {:?} (or None), got {:?}",
                if regression {
                    "squared error"
                } else {
                    "misclassification cost"
                },
                wanted.name(),
                params.criterion.name()
            ),
        ));
    }
    if !(ccp_alpha.is_finite() && ccp_alpha >= 0.0) {
        return Err(invalid(
            "ccp_alpha",
            format!("must be finite and >= 0, got {ccp_alpha}"),
        ));
    }
    let unsupported = |name: &'static str, what: &str| {
        Err(invalid(
            name,
            format!("algorithm=\"optimal\" does not support {what}"),
        ))
    };
    if params.categorical_split != CategoricalSplit::Binary {
        return unsupported(
            "categorical_split",
            "multiway splits; it splits nominal features by subsets of their categories (\"binary\")",
        );
    }
    if params.oblique {
        return unsupported("splits", "oblique splits; use splits=\"axis\"");
    }
    if params.min_samples_split > 2
        || params.min_samples_leaf > 1
        || params.min_weight_fraction_leaf > 0.0
    {
        let name = if params.min_samples_split > 2 {
            "min_samples_split"
        } else if params.min_samples_leaf > 1 {
            "min_samples_leaf"
        } else {
            "min_weight_fraction_leaf"
        };
        return unsupported(
            name,
            "size limits on nodes; penalise leaves with ccp_alpha or bound them with max_leaf_nodes",
        );
    }
    if params.min_gain > 0.0
        || params.min_impurity_decrease > 0.0
        || params.max_p_value.is_some()
        || params.min_objects > 0.0
    {
        let name = if params.min_gain > 0.0 {
            "min_gain"
        } else if params.min_impurity_decrease > 0.0 {
            "min_impurity_decrease"
        } else if params.max_p_value.is_some() {
            "max_p_value"
        } else {
            "min_objects"
        };
        return unsupported(
            name,
            "stopping rules on splits; it compares whole trees (penalise leaves with ccp_alpha)",
        );
    }
    if params.numeric_gain_correction {
        return unsupported("numeric_gain_correction", "C4.5's gain correction");
    }
    if params.splitter == Splitter::Random {
        return unsupported(
            "splitter",
            "random tests: it tries every threshold (\"exact\", \"auto\") or every bin edge \
             (\"hist\")",
        );
    }
    if params.max_features.is_some_and(|k| k < data.n_features()) {
        return unsupported(
            "max_features",
            "drawing features: it searches every feature (leave max_features=None)",
        );
    }
    if params.monotonic_cst.is_some() {
        return unsupported("monotonic_cst", "monotonic constraints");
    }
    let has_missing = data.columns().iter().any(|c| match c {
        Column::Numeric(v) => v.has_nan(),
        Column::Categorical(c) => (0..c.codes.len()).any(|r| c.code(r).is_none()),
        Column::Sparse(_) => false,
    });
    match params.missing {
        MissingStrategy::Learned => {}
        MissingStrategy::Fractional if !has_missing => {}
        other => {
            return Err(invalid(
                "missing",
                format!(
                    "algorithm=\"optimal\" sends the rows missing a tested value to one side, the \
                     one it finds best: use missing=\"learned\" (or fill the values in with \
                     \"impute_mean\", or drop them with \"drop_rows\"); {:?} {}",
                    other.name(),
                    if other == MissingStrategy::Fractional {
                        "spreads them over every branch, which no exact search can bound"
                    } else {
                        "is not searched exactly"
                    }
                ),
            ))
        }
    }
    Ok(depth)
}

/// The search on validated data with no row of weight 0, within `depth` ([`check`]'s).
fn run(
    train: &Sample<'_, '_>,
    params: &TreeParams,
    depth: usize,
    ccp_alpha: f64,
    control: &Control,
) -> Result<Tree> {
    // The columns, the greedy tree and the sorted root must exist for the search to return
    // anything: the time limit waits for them.
    control.hold_deadline(true);
    let prepared = prepare(train, params, ccp_alpha, control);
    control.hold_deadline(false);
    let Start {
        columns,
        seed,
        root,
    } = prepared?;
    let total_weight: f64 = train.weights.iter().sum();
    let alpha = ccp_alpha * total_weight;
    let leaves = params
        .max_leaf_nodes
        .unwrap_or(usize::MAX) // no limit
        .min(1usize << depth);
    let costs = params.cost_matrix.as_deref();
    let setting = Setting {
        costs,
        missing: params.missing,
        splitter: searched_splitter(params),
        max_bins: searched_bins(params),
        alpha,
    };
    let n_rows = train.data.n_rows();
    let outcome = match train.target {
        Target::Classes { codes, n_classes } => {
            let worst = ClassLoss::worst_costs(*n_classes, costs);
            let loss = ClassLoss::new(codes, train.weights, *n_classes, costs, &worst)?;
            let scale = total_weight * worst.iter().copied().fold(1.0, f64::max);
            search(
                &columns, &root, loss, alpha, scale, depth, leaves, seed, n_rows, control,
            )
        }
        Target::Values(y) => {
            let loss = SquaredLoss::new(y, train.weights)?;
            let root_loss = loss.at(&root.rows);
            let scale = root_loss
                .err(&root_loss.stats(root.rows.iter().copied()))
                .max(1e-300);
            search(
                &columns, &root, loss, alpha, scale, depth, leaves, seed, n_rows, control,
            )
        }
        // Refused at the search's entry (`grow_optimal`).
        Target::MultiClasses { .. } | Target::MultiValues { .. } => None,
    }
    .ok_or_else(|| control.stop_reason())?;
    // Past the time limit the best tree found is the result; a cancel or a failed
    // allocation is an error.
    match control.check() {
        Ok(()) | Err(CoreError::TimedOut { .. }) => {}
        Err(e) => return Err(e),
    }
    let (mut tree, cost) = assemble(train, &columns, &outcome.sol, &setting, control)
        .ok_or_else(|| control.stop_reason())?;
    // Every bound stays valid when the search stops early, so a stopped search may still
    // have proven its tree optimal.
    let lower = outcome.lower.min(cost);
    let proven = cost <= lower + 1e-9 * cost.abs().max(total_weight);
    tree.set_optimality(Optimality {
        objective: cost / total_weight,
        lower_bound: if proven { cost } else { lower.max(0.0) } / total_weight,
    });
    tree.finish()
}

/// What the search starts from.
struct Start {
    columns: Columns,
    /// The greedy tree and its cost.
    seed: Option<(f64, Sol)>,
    root: Node,
}

fn prepare(
    train: &Sample<'_, '_>,
    params: &TreeParams,
    ccp_alpha: f64,
    control: &Control,
) -> Result<Start> {
    // splitter="hist": the histogram splitter's bins, so the search takes its thresholds.
    let bins = match params.splitter {
        Splitter::Hist => Some(
            Bins::new(train.data, params.max_bins, Some(control))
                .ok_or_else(|| control.stop_reason())?,
        ),
        _ => None,
    };
    let columns = Columns::new(
        train.data,
        params.max_exhaustive_categories,
        bins.as_ref(),
        control,
    )?;
    let total_weight: f64 = train.weights.iter().sum();
    let setting = Setting {
        costs: params.cost_matrix.as_deref(),
        missing: params.missing,
        splitter: searched_splitter(params),
        max_bins: searched_bins(params),
        alpha: ccp_alpha * total_weight,
    };
    let seed = greedy(train, params, &columns, &setting, control)?;
    let root = Node::root(&columns, train.data.n_rows(), &RowKeys, control)
        .ok_or_else(|| control.stop_reason())?;
    Ok(Start {
        columns,
        seed,
        root,
    })
}

/// The greedy CART tree of the same budgets in the search's terms, with its cost: the
/// search's first incumbent. `None` if it cannot be read so.
fn greedy(
    train: &Sample<'_, '_>,
    params: &TreeParams,
    columns: &Columns,
    setting: &Setting<'_>,
    control: &Control,
) -> Result<Option<(f64, Sol)>> {
    let greedy_params = TreeParams {
        criterion: match train.target {
            Target::Classes { .. } | Target::MultiClasses { .. } => Criterion::Gini,
            Target::Values(_) | Target::MultiValues { .. } => Criterion::SquaredError,
        },
        min_samples_split: 2,
        min_samples_leaf: 1,
        // The search's own thresholds, so that the greedy tree is one of its candidates.
        splitter: searched_splitter(params),
        ..params.clone()
    };
    let tree = grow_controlled(train, &greedy_params, None, control)?;
    let Some(sol) = sol_of_tree(&tree, columns) else {
        return Ok(None);
    };
    Ok(assemble(train, columns, &sol, setting, control).map(|(_, cost)| (cost, sol)))
}

/// The thresholds the search takes: the histogram splitter's bins with `splitter="hist"`,
/// else every midpoint (recorded as the exact search).
fn searched_splitter(params: &TreeParams) -> Splitter {
    match params.splitter {
        Splitter::Hist => Splitter::Hist,
        _ => Splitter::Exact,
    }
}

/// The bins per feature of [`searched_splitter`]'s thresholds (0 for every midpoint).
fn searched_bins(params: &TreeParams) -> u32 {
    match searched_splitter(params) {
        Splitter::Hist => params.max_bins as u32,
        _ => 0,
    }
}

/// Runs the branch and bound from `root` (of `n_rows` training rows), `seed` (a tree and its
/// cost) as its first incumbent; costs within 1e-9 × `scale` are equal. `None` when memory
/// runs out.
#[allow(clippy::too_many_arguments)]
fn search<L: Loss>(
    columns: &Columns,
    root: &Node,
    loss: L,
    alpha: f64,
    scale: f64,
    depth: usize,
    leaves: usize,
    seed: Option<(f64, Sol)>,
    n_rows: usize,
    control: &Control,
) -> Option<Outcome> {
    let ctx = Ctx {
        columns,
        loss,
        alpha,
        tol: 1e-9 * scale,
        keys: RowKeys,
        control,
        cache: Cache::default(),
        parallel: rayon::current_num_threads() > 1,
        binary: Binary::new(columns, n_rows, control),
    };
    solve_root(&ctx, root, depth, leaves, seed, n_rows)
}

#[cfg(test)]
mod tests;
