"""A fitted tree as indented text, a pure function of `Tree.nodes()` and the fit schema.

The branch tests (`quercus.rules.Condition`) and the number formats come from
`quercus.rules`, so a tree and its rules print a test and a figure the same way.
Trees can be 100,000 levels deep, so every walk uses an explicit stack, never recursion.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from numpy.typing import NDArray

from .._core import MULTIWAY
from ..inputs.schema import Feature
from .paths import STAYS, node_conditions, node_predictions
from .wording import MAX_CATEGORIES, bound_text, braced, format_prediction, format_weight


def export_text(
    nodes: dict[str, NDArray[Any]],
    features: Sequence[Feature],
    labels: Sequence[Any] | None,
    *,
    decimals: int = 4,
    show_weights: bool = True,
    show_missing: bool | None = None,
    max_depth: int | None = None,
    max_categories: int | None = MAX_CATEGORIES,
) -> str:
    """The tree as indented lines, one per node below the root (4 spaces per level).

    A category subset is worded by its shorter side, at most `max_categories` of it listed
    and the rest counted (None: every category).

    `max_depth`: nodes deeper than this are left out; a split at that depth ends its line with
    the number of leaves below it (the text of a 100,000-deep chain would take 4·10¹⁰ bytes
    of indentation alone).

    `labels` are the class labels by code, or None for a regression tree. `show_missing`:
    where each split sends a missing value, after its first branch's line (`[missing →
    left]`, `[? → 7/15 · 5/15 · 3/15]` for C4.5's fractions of the known weight,
    `[surrogate: density <= 0.4000; missing → left]`); None shows it when some split met
    missing values in training, so a tree grown on complete data prints as before.
    """
    if show_missing is None:
        show_missing = "missing_weight" in nodes and bool((nodes["missing_weight"] > 0).any())
    notes = missing_notes(nodes, features, decimals, max_categories) if show_missing else {}
    edges = node_conditions(nodes, features)
    predictions = node_predictions(nodes, labels)
    regression = labels is None
    depth = nodes["depth"].tolist()
    n_children = nodes["n_children"].tolist()
    weight = nodes["weight"].tolist()
    below = _leaves_below(nodes) if max_depth is not None else []
    lines = []
    for node in _preorder(nodes, max_depth):
        leaf = n_children[node] == 0
        outcome = format_prediction(predictions[node], regression, decimals)
        if show_weights:
            outcome += f" ({format_weight(weight[node])})"
        if node == 0:
            if leaf:
                lines.append(outcome)
            continue
        line = "    " * (depth[node] - 1) + edges[node][0].format(decimals, max_categories)
        if leaf:
            line = f"{line}: {outcome}"
        elif max_depth is not None and depth[node] >= max_depth:
            line = f"{line}: ... ({below[node]} leaves below, not shown)"
        lines.append(f"{line}  {notes[node]}" if node in notes else line)
    return "\n".join(lines)


def missing_notes(
    nodes: dict[str, NDArray[Any]],
    features: Sequence[Feature],
    decimals: int = 4,
    max_categories: int | None = MAX_CATEGORIES,
) -> dict[int, str]:
    """Where each split sends a row missing its tested value, keyed by the split's first
    child (whose line shows it): its surrogates and missing child, or C4.5's fractions."""
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    missing_child = nodes["missing_child"].tolist()
    weight, missing_weight = nodes["weight"].tolist(), nodes["missing_weight"].tolist()
    fraction = nodes["branch_fraction"].tolist()
    notes = {}
    for node, count in enumerate(n_children):
        if count == 0:
            continue
        first = first_child[node]
        surrogates = surrogate_texts(nodes, node, features, decimals, max_categories)
        if surrogates:
            fallback = (
                "stays here"
                if missing_child[node] == STAYS
                else child_name(nodes, node, missing_child[node], features)
            )
            notes[first] = f"[surrogate: {', then '.join(surrogates)}; missing → {fallback}]"
        elif missing_child[node] >= 0:
            notes[first] = f"[missing → {child_name(nodes, node, missing_child[node], features)}]"
        elif missing_child[node] == STAYS:  # rpart: no majority side to send it to
            notes[first] = "[missing → stays here]"
        else:  # C4.5: every child, with its share of the node's known weight
            known = weight[node] - missing_weight[node]
            total = format_weight(known)
            shares = (format_weight(fraction[c] * known) for c in range(first, first + count))
            notes[first] = f"[? → {' · '.join(f'{s}/{total}' for s in shares)}]"
    return notes


def child_name(
    nodes: dict[str, NDArray[Any]], node: int, k: int, features: Sequence[Feature]
) -> str:
    """Child `k` of `node` in a few characters: its category for a multiway split ("?" for
    the extra child of `missing="separate"`), else left / right."""
    if int(nodes["kind"][node]) != MULTIWAY:
        return "left" if k == 0 else "right"
    categories = features[int(nodes["feature"][node])].categories or ()
    return categories[k] if k < len(categories) else "?"


def surrogate_texts(
    nodes: dict[str, NDArray[Any]],
    node: int,
    features: Sequence[Feature],
    decimals: int = 4,
    max_categories: int | None = MAX_CATEGORIES,
) -> list[str]:
    """The node's surrogate splits, best first, each worded as the test that sends a row to
    the first child (`density <= 0.4000`, `density >  0.4000` when reversed, `root in
    {curly}`); for a multiway split, the child of each category (`root: a → x, b → y`)."""
    start, count = int(nodes["surrogate_offset"][node]), int(nodes["surrogate_len"][node])
    texts = []
    for s in range(start, start + count) if count > 0 else ():
        feature = features[int(nodes["surrogate_feature"][s])]
        at = int(nodes["surrogate_map"][s])
        if feature.categories is None:
            left = int(nodes["surrogate_children"][at]) == 0
            t = bound_text(float(nodes["surrogate_threshold"][s]), feature.time, decimals)
            texts.append(f"{feature.name} {'<=' if left else '> '} {t}")
            continue
        width = len(feature.categories)
        children = nodes["surrogate_children"][at : at + width].tolist()
        if int(nodes["kind"][node]) == MULTIWAY or int(nodes["n_children"][node]) != 2:
            pairs = (
                f"{c} → {child_name(nodes, node, k, features)}"
                for c, k in zip(feature.categories, children, strict=True)
                if k >= 0
            )
            texts.append(f"{feature.name}: {', '.join(pairs)}")
        else:
            left_set = [c for c, k in zip(feature.categories, children, strict=True) if k == 0]
            texts.append(f"{feature.name} in {braced(left_set, max_categories)}")
    return texts


def _preorder(nodes: dict[str, NDArray[Any]], max_depth: int | None = None) -> Iterator[int]:
    """Node ids depth first, children in child order, down to `max_depth` (None: all)."""
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    depth = nodes["depth"].tolist()
    stack = [0]
    while stack:
        node = stack.pop()
        yield node
        if max_depth is not None and depth[node] >= max_depth:
            continue
        first = first_child[node]
        stack.extend(range(first + n_children[node] - 1, first - 1, -1))


def _leaves_below(nodes: dict[str, NDArray[Any]]) -> list[int]:
    """Leaves in each node's subtree; children are numbered after their parent, so one sweep
    from the last node back adds every subtree up before its root is read."""
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    leaves = [1 if k == 0 else 0 for k in n_children]
    for node in range(len(leaves) - 1, -1, -1):
        first = first_child[node]
        if n_children[node]:
            leaves[node] = sum(leaves[first : first + n_children[node]])
    return leaves
