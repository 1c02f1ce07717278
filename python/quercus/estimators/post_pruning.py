"""The pruning a grown tree goes through, at fit and in `prune()`: J48's collapse, then
reduced-error, pessimistic or cost-complexity pruning in the core, with the node quantiles
of a regression tree kept in step with the nodes that remain."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from .. import _core
from ..explain import spread

if TYPE_CHECKING:
    from ..fitted.state import FittedTree
    from ..inputs.schema import LabelledData
    from .parameters import PruningSettings


def post_prune(
    state: FittedTree,
    pruning: PruningSettings,
    held_out: LabelledData | None,
    training: LabelledData | None,
    costs: list[float] | None = None,
    n_jobs: int | None = None,
) -> FittedTree:
    """`state` with its tree collapsed if `pruning.collapse` (J48 does so before pruning),
    then pruned by `pruning.method` (unchanged for "none"); records the reduced-error steps
    as the state's trace, and a one-output regression tree's node quantiles (for the
    pictures' strips) from `training`, or else those of `state` its nodes keep. `costs`: the
    classifier's cost matrix, which a misclassification risk charges."""
    tree, trace = state.tree, None
    # Pessimistic pruning collapses in the same pass (the collapsed tree is never written).
    if pruning.collapse and pruning.method != "pessimistic":
        tree = _core.prune_collapse(tree)
    if pruning.method == "reduced_error":
        assert held_out is not None  # checked by the callers
        tree, steps = _core.prune_reduced_error(tree, *held_out.as_core(), pruning.prune_ties)
        trace = pl.DataFrame(steps)
    elif pruning.method == "pessimistic":
        raising = training.as_core() if pruning.subtree_raising and training else None
        tree = _core.prune_pessimistic(tree, pruning.confidence, raising, pruning.collapse)
    elif pruning.method == "cost_complexity":
        tree = _core.prune_cost_complexity(
            tree, pruning.ccp_alpha, pruning.ccp_risk, costs, pruning.ccp_sequence, pruning.floor
        )
    quantiles = None
    if state.classes is None and state.n_outputs == 1 and training is not None:
        quantiles = spread.recorded(tree, training, n_jobs)
    elif state.quantiles is not None:
        quantiles = spread.carried(state.tree, state.quantiles, tree)
    return state.replace_tree(tree, trace, quantiles)


CONSTRAINED_PESSIMISTIC = (
    "monotonic_cst: a constrained tree holds class probabilities, not the class weights "
    "C4.5's error-based (pessimistic) pruning counts errors in: choose pruning='none', "
    "'cost_complexity' or 'reduced_error'"
)
