"""The picture as Graphviz DOT text, for `dot`: the same boxes, fills, strips and edge labels as
the SVG, laid out by Graphviz.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from ..inputs.schema import Feature
from .drawing import (
    BORDER,
    EDGE,
    INK,
    MEAN_MARK,
    PICTURE_CATEGORIES,
    STRIP_BOX,
    Strip,
    clean,
    edge_labels,
    escape,
    node_boxes,
    strip_axis,
)
from .paths import node_conditions
from .spread import Spread
from .text import _preorder

_DOT_FONT = "Helvetica,Arial,sans-serif"


# The same strip in DOT, in points, as a three-row table of coloured cells.
_DOT_STRIP_WIDTH = 96


def to_dot(
    nodes: dict[str, NDArray[Any]],
    features: Sequence[Feature],
    labels: Sequence[Any] | None,
    *,
    target: str = "",
    decimals: int = 3,
    max_categories: int | None = PICTURE_CATEGORIES,
    spread: Spread | None = None,
) -> str:
    """The tree as Graphviz DOT: one rounded, filled box per node (named by its node id, as
    `apply` reports it) and one labelled edge per branch, children in their child order.

    `labels` are the class labels by code, or None for a regression tree; `target` titles
    the graph. Labels are Graphviz HTML-like labels, so any feature or category name is safe
    once XML-escaped. Edge labels are worded and wrapped as `to_svg` words them; each edge
    carries its whole test as its tooltip (shown by Graphviz's SVG output). A regression
    node's label is a table whose last row is its strip (`spread`; None: mean ± sd from the
    tree), drawn in coloured cells on the axis all strips share; its figures are its tooltip.
    """
    conditions = node_conditions(nodes, features)
    boxes = node_boxes(nodes, conditions, labels, decimals, spread)
    axis = strip_axis([box.strip for box in boxes])
    edges = edge_labels(conditions, decimals, max_categories)
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    font = f'fontname="{_DOT_FONT}"'
    lines = [
        "digraph tree {",
        f"  graph [ordering=out, ranksep=0.45, nodesep=0.3, {font}, fontsize=14"
        + (f", label=<<b>{escape(clean(target))}</b>>, labelloc=t];" if target else "];"),
        f'  node [shape=box, style="filled,rounded", color="{BORDER}", fontcolor="{INK}", '
        f'{font}, fontsize=12, margin="0.14,0.06"];',
        f'  edge [color="{EDGE}", fontcolor="{INK}", {font}, fontsize=11, arrowsize=0.7];',
    ]
    order = list(_preorder(nodes))
    for node in order:
        box = boxes[node]
        text = "<br/>".join([f"<b>{escape(box.title)}</b>", *map(escape, box.lines)])
        if box.strip is None:
            lines.append(f'  {node} [label=<{text}>, fillcolor="{box.fill}"];')
        else:
            strip = _dot_strip(box.strip, axis)
            lines.append(
                f'  {node} [label=<<table border="0" cellborder="0" cellspacing="0" '
                f'cellpadding="0"><tr><td>{text}</td></tr><tr><td cellpadding="3">{strip}'
                f'</td></tr></table>>, tooltip="{escape(box.strip.text)}", '
                f'fillcolor="{box.fill}"];'
            )
    for node in order:
        first = first_child[node]
        for child in range(first, first + n_children[node]):
            label = "<br/>".join(map(escape, edges[child]))
            whole = escape(clean(conditions[child][0].format(decimals, None)))
            lines.append(f'  {node} -> {child} [label=<{label}>, tooltip="{whole}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_strip(strip: Strip, axis: tuple[float, float]) -> str:
    """The strip as a Graphviz HTML table of three rows of fixed-size cells, each row a run
    of colours: the whiskers in the middle row, the box (the median and the mean as narrow
    cells across it) in all three, on `_DOT_STRIP_WIDTH` points for the axis's range."""
    low, high = axis

    def x(value: float) -> int:
        return round((value - low) / (high - low) * (_DOT_STRIP_WIDTH - 2))

    box = (x(strip.q1), max(x(strip.q3), x(strip.q1) + 1))  # a point at least
    # Narrow marks drawn over the box and whiskers, the later over the earlier.
    marks = [(x(strip.mean), 2, MEAN_MARK)]
    if strip.median is not None:
        marks.insert(0, (x(strip.median), 1, INK))
    cuts = {0, _DOT_STRIP_WIDTH, x(strip.low), x(strip.high), *box}
    cuts |= {at for at, _, _ in marks} | {at + wide for at, wide, _ in marks}
    edges = sorted(c for c in cuts if 0 <= c <= _DOT_STRIP_WIDTH)
    rows = []
    for row, height in enumerate((3, 2, 3)):
        runs: list[list[Any]] = []  # [width, colour], neighbours of one colour merged
        for a, b in itertools.pairwise(edges):
            colour = "#FFFFFF"
            if box[0] <= a < box[1]:
                colour = STRIP_BOX
            elif row == 1 and strip.median is not None and x(strip.low) <= a < x(strip.high):
                colour = INK
            for at, wide, mark in marks:
                if at <= a < at + wide:
                    colour = mark
            if runs and runs[-1][1] == colour:
                runs[-1][0] += b - a
            else:
                runs.append([b - a, colour])
        cells = "".join(
            f'<td width="{w}" height="{height}" fixedsize="true" bgcolor="{c}"></td>'
            for w, c in runs
        )
        rows.append(
            '<tr><td><table border="0" cellborder="0" cellspacing="0" cellpadding="0">'
            f"<tr>{cells}</tr></table></td></tr>"
        )
    return (
        '<table border="1" color="#AAAAAA" cellborder="0" cellspacing="0" cellpadding="0" '
        f'bgcolor="#FFFFFF">{"".join(rows)}</table>'
    )
