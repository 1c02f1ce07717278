"""The target's spread at each node of a regression tree, which pictures draw as a strip:
the weighted 5, 25, 50, 75 and 95 % quantiles of the rows that reached the node, and their
mean (dtreeviz draws the same, to show what a mean alone hides).

The quantiles are not part of the model: its file, `tree_` arrays, SQL and Polars exports
stay as they were. A fit records them from its training rows (the core routes the rows as
prediction does, C4.5's fractional rows counting with their shares) and keeps them with the
fitted state in memory; pruning keeps those of the nodes that survive; pickling keeps them
beside the model bytes. A model read from a file has none, and its strips show the mean ±
one standard deviation stored in the model, unless a picture is given rows (`data=(X, y)`)
to compute them from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from .. import _core

if TYPE_CHECKING:
    from ..inputs.schema import LabelledData

__all__ = ["QUANTILES", "Spread"]

# The quantiles a strip draws: whiskers at the outer two, a box between the inner two, a
# line at the median.
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)

Source = Literal["training", "data", "moments"]


@dataclass(frozen=True)
class Spread:
    """What each node's strip shows. `quantiles` (n_nodes x 5, at QUANTILES) with `source`
    "training" (recorded at fit) or "data" (rows given to the picture, `n_rows` of them);
    None with source "moments": the strip is `mean` ± `sd`. `mean` is the mean of the same
    rows; NaN entries mark nodes no row reached (drawn without a strip)."""

    mean: NDArray[np.float64]
    quantiles: NDArray[np.float64] | None
    sd: NDArray[np.float64] | None
    source: Source
    n_rows: int = 0

    def extent(self, node: int) -> tuple[float, float] | None:
        """The lowest and highest value the node's strip reaches (its whiskers, or mean ±
        sd, and its mean), or None for a node without a strip."""
        mean = float(self.mean[node])
        if self.quantiles is not None:
            ends = [float(self.quantiles[node, 0]), float(self.quantiles[node, -1]), mean]
        else:
            assert self.sd is not None
            ends = [mean - float(self.sd[node]), mean + float(self.sd[node])]
        return (min(ends), max(ends)) if all(np.isfinite(ends)) else None


def recorded(
    tree: _core.Tree, training: LabelledData, n_jobs: int | None = None
) -> NDArray[np.float64]:
    """The quantiles of the training rows at every node of a regression `tree` (n_nodes x 5),
    as a fit records them."""
    columns, y, weight = training.as_core()
    spread = tree.node_spread(columns, y, weight, list(QUANTILES), n_jobs)
    return spread["quantiles"]


def carried(
    old: _core.Tree, quantiles: NDArray[np.float64], new: _core.Tree
) -> NDArray[np.float64] | None:
    """The quantiles of `old` for the nodes of `new`, a pruned copy whose every node is one of
    `old`'s with the same rows (pruning that only turns splits into leaves); None when `new`
    is not such a copy (its nodes' tests or training weights differ).

    Both trees are walked together, root first, children in order; a leaf of `new` ends the
    walk below it. No recursion: a stack of node pairs."""
    was, now = old.nodes(), new.nodes()
    matched = np.empty(new.n_nodes, dtype=np.int64)
    stack = [(0, 0)]
    while stack:
        node, twin = stack.pop()
        count = int(now["n_children"][node])
        split_kept = count == int(was["n_children"][twin]) and (
            was["feature"][twin] == now["feature"][node]
        )
        if was["weight"][twin] != now["weight"][node] or (count and not split_kept):
            return None
        matched[node] = twin
        first, first_twin = int(now["first_child"][node]), int(was["first_child"][twin])
        stack.extend((first + k, first_twin + k) for k in range(count))
    return quantiles[matched]


def of_tree(nodes: dict[str, NDArray[Any]], quantiles: NDArray[np.float64] | None) -> Spread:
    """The spread of the training rows from what the fit kept: its quantiles, or else the
    mean and standard deviation stored in every node (`value`, and `impurity`, which is the
    variance for a regression tree)."""
    weight = nodes["weight"]
    mean = np.where(weight > 0, nodes["value"][:, 0], np.nan)
    if quantiles is not None:
        return Spread(mean, quantiles, None, "training")
    return Spread(mean, None, np.sqrt(np.maximum(nodes["impurity"], 0.0)), "moments")


def of_rows(tree: _core.Tree, rows: LabelledData, n_jobs: int | None = None) -> Spread:
    """The spread of `rows` (encoded as at fit) at every node of a regression `tree`."""
    columns, y, weight = rows.as_core()
    spread = tree.node_spread(columns, y, weight, list(QUANTILES), n_jobs)
    return Spread(spread["mean"], spread["quantiles"], None, "data", len(y))


def unpickled(value: Any, tree: _core.Tree) -> NDArray[np.float64] | None:
    """Pickled quantiles, kept if they fit `tree` (n_nodes x 5 float64), else dropped (a
    pickle written before they were kept, or tampered with: the strips fall back to mean ±
    sd rather than draw wrong figures)."""
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        if value.shape == (tree.n_nodes, len(QUANTILES)) and tree.n_classes == 0:
            return value
    return None
