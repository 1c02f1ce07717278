"""Text renderings of a fitted tree, as pure functions of `Tree.nodes()` and the fit schema.

Trees can be 100,000 levels deep, so every walk uses an explicit stack, never recursion.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ._core import MULTIWAY, NUMERIC, ORDERED
from ._validation import Feature

Operator = Literal["<=", ">", "=", "in", "not in"]


@dataclass(frozen=True)
class Condition:
    """One test on the way from the root to a node, e.g. `density <= 0.3815`."""

    feature: str
    operator: Operator
    value: float | str | tuple[str, ...]  # threshold, category, or the left subset

    def format(self, decimals: int = 4) -> str:
        """`name <= t`, `name >  t` (aligned with `<=`), `name = v`, `name in {a, b}`."""
        if isinstance(self.value, float):
            value = _fixed(self.value, decimals)
        elif isinstance(self.value, tuple):
            value = "{" + ", ".join(self.value) + "}"
        else:
            value = self.value
        operator = "> " if self.operator == ">" else self.operator
        return f"{self.feature} {operator} {value}"


@dataclass(frozen=True)
class Rule:
    """The path to one leaf as a conjunction of conditions, and what the leaf predicts."""

    conditions: tuple[Condition, ...]
    target: str
    prediction: Any  # the class label, or the mean target of a regression leaf
    weight: float  # training weight that reached the leaf
    regression: bool = False

    def format(self, decimals: int = 4) -> str:
        """`if a = x and b <= t then target = label (w)`; no `if` for a one-leaf tree."""
        outcome = (
            f"{self.target} = {_prediction_text(self.prediction, self.regression, decimals)}"
            f" ({_weight_text(self.weight)})"
        )
        if not self.conditions:
            return outcome
        tests = " and ".join(condition.format(decimals) for condition in self.conditions)
        return f"if {tests} then {outcome}"


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
    conditions = _conditions(nodes, features)
    predictions = _predictions(nodes, labels)
    regression = labels is None
    depth = nodes["depth"].tolist()
    n_children = nodes["n_children"].tolist()
    weight = nodes["weight"].tolist()
    lines = []
    for node in _preorder(nodes):
        leaf = n_children[node] == 0
        outcome = _prediction_text(predictions[node], regression, decimals)
        if show_weights:
            outcome += f" ({_weight_text(weight[node])})"
        if node == 0:
            if leaf:
                lines.append(outcome)
            continue
        line = "    " * (depth[node] - 1) + conditions[node].format(decimals)
        lines.append(f"{line}: {outcome}" if leaf else line)
    return "\n".join(lines)


def rules(
    nodes: dict[str, NDArray[Any]],
    features: Sequence[Feature],
    labels: Sequence[Any] | None,
    target: str,
) -> list[Rule]:
    """One rule per leaf, in the order `export_text` prints the leaves."""
    conditions = _conditions(nodes, features)
    predictions = _predictions(nodes, labels)
    n_children = nodes["n_children"].tolist()
    parent = nodes["parent"].tolist()
    weight = nodes["weight"].tolist()
    result = []
    for node in _preorder(nodes):
        if n_children[node]:
            continue
        path = []
        ancestor = node
        while parent[ancestor] >= 0:
            path.append(conditions[ancestor])
            ancestor = parent[ancestor]
        result.append(
            Rule(tuple(reversed(path)), target, predictions[node], weight[node], labels is None)
        )
    return result


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


def _conditions(
    nodes: dict[str, NDArray[Any]], features: Sequence[Feature]
) -> dict[int, Condition]:
    """The condition that leads into each non-root node, keyed by node id."""
    kind = nodes["kind"].tolist()
    feature_index = nodes["feature"].tolist()
    threshold = nodes["threshold"].tolist()
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    subset_offset = nodes["subset_offset"].tolist()
    subset_mask: NDArray[np.uint8] = nodes["subset_mask"]
    conditions: dict[int, Condition] = {}
    for node, node_kind in enumerate(kind):
        if n_children[node] == 0:
            continue
        feature = features[feature_index[node]]
        categories = feature.categories or ()  # only numeric splits test a numeric feature
        first = first_child[node]
        if node_kind == MULTIWAY:
            for k in range(n_children[node]):
                conditions[first + k] = Condition(feature.name, "=", categories[k])
            continue
        value: float | str | tuple[str, ...]
        operators: tuple[Operator, Operator] = ("<=", ">")
        if node_kind == NUMERIC:
            value = threshold[node]
        elif node_kind == ORDERED:
            value = categories[int(threshold[node])]
        else:  # SUBSET: mask 1 = child 0, 0 = child 1, 2 = unseen at the node (as missing)
            offset = subset_offset[node]
            sides = subset_mask[offset : offset + len(categories)].tolist()
            value = tuple(
                category for category, side in zip(categories, sides, strict=True) if side == 1
            )
            operators = ("in", "not in")
        conditions[first] = Condition(feature.name, operators[0], value)
        conditions[first + 1] = Condition(feature.name, operators[1], value)
    return conditions


def _predictions(nodes: dict[str, NDArray[Any]], labels: Sequence[Any] | None) -> list[Any]:
    """Each node's class label, or its mean target for a regression tree."""
    if labels is None:
        return nodes["value"][:, 0].tolist()
    return [labels[code] for code in nodes["label"].tolist()]


def _prediction_text(prediction: Any, regression: bool, decimals: int) -> str:
    return _fixed(prediction, decimals) if regression else str(prediction)


def _weight_text(weight: float) -> str:
    """At most 3 decimals and no trailing zeros: `6`, `6.467`."""
    return _fixed(weight, 3).rstrip("0").rstrip(".")


def _fixed(number: float, decimals: int) -> str:
    """`number` with `decimals` decimals, first rounded to 12 significant digits so that
    floating-point noise (a weight summed in another order) never flips the last digit, and
    never printed as `-0.0000`."""
    value = round(float(f"{number:.12g}"), decimals) + 0.0  # + 0.0 turns -0.0 into 0.0
    return f"{value:.{decimals}f}"
