"""A fitted tree as indented text, a pure function of `Tree.nodes()` and the fit schema.

The branch tests (`quercus.rules.Condition`) and the number formats come from
`quercus.rules`, so a tree and its rules print a test and a figure the same way.
Trees can be 100,000 levels deep, so every walk uses an explicit stack, never recursion.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from numpy.typing import NDArray

from ._validation import Feature
from .rules import format_prediction, format_weight, node_conditions, node_predictions


def export_text(
    nodes: dict[str, NDArray[Any]],
    features: Sequence[Feature],
    labels: Sequence[Any] | None,
    *,
    decimals: int = 4,
    show_weights: bool = True,
) -> str:
    """The tree as indented lines, one per node below the root (4 spaces per level).

    `labels` are the class labels by code, or None for a regression tree.
    """
    edges = node_conditions(nodes, features)
    predictions = node_predictions(nodes, labels)
    regression = labels is None
    depth = nodes["depth"].tolist()
    n_children = nodes["n_children"].tolist()
    weight = nodes["weight"].tolist()
    lines = []
    for node in _preorder(nodes):
        leaf = n_children[node] == 0
        outcome = format_prediction(predictions[node], regression, decimals)
        if show_weights:
            outcome += f" ({format_weight(weight[node])})"
        if node == 0:
            if leaf:
                lines.append(outcome)
            continue
        line = "    " * (depth[node] - 1) + edges[node][0].format(decimals)
        lines.append(f"{line}: {outcome}" if leaf else line)
    return "\n".join(lines)


def _preorder(nodes: dict[str, NDArray[Any]]) -> Iterator[int]:
    """Node ids depth first, children in child order."""
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    stack = [0]
    while stack:
        node = stack.pop()
        yield node
        first = first_child[node]
        stack.extend(range(first + n_children[node] - 1, first - 1, -1))
