"""rpart's variable importance (its `importance()`, printed by `summary.rpart`), read from a
fitted tree: each split's improvement credited to its feature, and the improvement times the
adjusted agreement to the feature of each of its surrogate splits."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .. import _core

# The criteria whose impurity is an entropy, which rpart's information index takes in nats.
ENTROPIES = ("entropy", "gain_ratio")


def variable_importance(
    tree: _core.Tree, names: list[str], costs: NDArray[np.float64] | None = None
) -> dict[str, float]:
    """Per feature, largest first (ties by name): the improvements of the splits on it plus,
    for each split one of its surrogates stands in for, the split's improvement times the
    surrogate's adjusted agreement. A split's improvement is rpart's `improve`: the decrease
    of the node's weighted impurity among the rows that know its feature (ρ × decrease, the
    recorded gain, times the node's weight as the criterion weighs it), or, where the search
    recorded no scores (histogram, random and optimal trees), the decrease of the stored
    impurities of the node and its children. `costs` (a K × K cost matrix, rows the true
    class) with altered priors weighs the node as rpart's altered priors do. Features that
    never split nor stand in are left out, as rpart leaves them; an oblique split (a linear
    combination, which rpart has not) is credited to no feature."""
    nodes = tree.nodes()
    regression = tree.n_classes == 0
    value = np.asarray(nodes["value"], dtype=np.float64)
    weight = np.asarray(nodes["weight"], dtype=np.float64)
    if regression or tree.n_outputs > 1:
        # A multi-output tree's criterion averages its outputs over the node's weight.
        weighed = weight
    elif costs is None:
        weighed = value.sum(axis=1)
    else:
        # rpart's altered weight Σ_k aprior_k w_k, aprior_k = π_k L_k / (Σ_j π_j L_j) / f_k
        # with L_k the class's row of losses; the class weights here are (π_k / f_k) w_k.
        losses = costs.sum(axis=1)
        weighed = value @ losses * value[0].sum() / (value[0] @ losses)
    scale = math.log(2) if tree.criterion in ENTROPIES else 1.0
    impurity = np.asarray(nodes["impurity"], dtype=np.float64)
    totals: dict[str, float] = {}
    for node in np.flatnonzero(nodes["n_children"] > 0):
        feature = int(nodes["feature"][node])
        if feature < 0:
            continue  # an oblique split tests several features at once: credited to none
        gain = tree.node_scores(int(node))["gain"][feature]
        if np.isfinite(gain):
            improve = gain * weighed[node] * scale
        else:
            first = int(nodes["first_child"][node])
            children = slice(first, first + int(nodes["n_children"][node]))
            decrease = weight[node] * impurity[node] - weight[children] @ impurity[children]
            improve = decrease * scale
        totals[names[feature]] = totals.get(names[feature], 0.0) + improve
        start = int(nodes["surrogate_offset"][node])
        for k in range(start, start + int(nodes["surrogate_len"][node])):
            adjusted = float(nodes["surrogate_adjusted"][k])
            if math.isnan(adjusted):
                raise ValueError(
                    "variable_importance_ needs each surrogate split's adjusted agreement, "
                    "which this model file, written before quercus kept it, does not hold; "
                    "fit the model again"
                )
            name = names[int(nodes["surrogate_feature"][k])]
            totals[name] = totals.get(name, 0.0) + improve * adjusted
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    return {name: float(total) for name, total in ranked}
