"""Pictures of a fitted tree: Graphviz DOT text, and an SVG that quercus lays out and draws
itself, so that a picture needs neither the Graphviz binary nor a plotting library.

Both are pure functions of `Tree.nodes()` and the fit schema, as `quercus.render` is. A box per
node holds its test (the feature it splits on) or the leaf's prediction, its training weight
and its class distribution; a regression node holds its mean and a strip of its target's
spread (`quercus.spread`: whiskers at 5 and 95 %, a box from 25 to 75 %, the median and the
mean marked) on one axis shared by every strip of the picture, so that strips compare at a
glance. Each edge carries its branch test
worded exactly as `export_text` and the rules word it (`quercus.rules.Condition`). Boxes are
filled with the colour of their majority class from a colour-blind-safe palette, paler the
less pure the node, so the eye finds the decided regions of the tree before reading a number.

Trees can be 100,000 levels deep, so every walk uses an explicit stack or a loop over a
precomputed order, never recursion.
"""

from __future__ import annotations

import functools
import itertools
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..inputs.schema import Feature
from .conditions import Condition
from .paths import Precondition, node_conditions, node_predictions
from .rules import confidences
from .spread import QUANTILES, Spread, of_tree
from .text import _preorder
from .wording import format_number, format_prediction, format_weight

__all__ = ["DEFAULT_WIDTH", "PALETTE", "PICTURE_CATEGORIES", "to_dot", "to_svg"]

# Paul Tol's "light" qualitative scheme, made to be told apart with every common colour-vision
# deficiency and to carry black text (https://personal.sron.nl/~pault/). Class k gets
# PALETTE[k % 9]; more than nine classes repeat colours, and the text still tells them apart.
PALETTE = (
    "#77AADD",  # light blue
    "#EE8866",  # orange
    "#EEDD88",  # light yellow
    "#FFAABB",  # pink
    "#99DDFF",  # light cyan
    "#44BB99",  # mint
    "#BBCC33",  # pear
    "#AAAA00",  # olive
    "#DDDDDD",  # pale grey
)
_REGRESSION_COLOUR = PALETTE[0]  # one hue, deeper for a larger mean
# A box's fill is its colour at this strength for the least to the most pure node: never the
# full colour, so the distribution bar, drawn at full strength, shows in a pure box too.
_PALEST, _DEEPEST = 0.12, 0.75
_INK = "#222222"
_BORDER = "#4D4D4D"
_EDGE = "#666666"

# Arial's metrics, which Helvetica and Liberation Sans share: the SVG names those fonts first,
# so boxes sized from these widths fit their text wherever one of them is installed.
_FONT = "Arial, Helvetica, 'Liberation Sans', sans-serif"
_DOT_FONT = "Helvetica,Arial,sans-serif"
# Advance widths of the printable ASCII characters (32-126) in 1/1000 em.
# fmt: off
_REGULAR = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722,
    722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722,
    667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556,
    556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500,
    500, 334, 260, 334, 584,
)
_BOLD = (
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722,
    722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722,
    667, 944, 667, 667, 611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611, 556, 333, 611,
    611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556,
    500, 389, 280, 389, 584,
)
# fmt: on
_OTHER = {"·": 278, "…": 1000, "–": 556, "—": 1000, "≤": 549, "≥": 549, "×": 584}
_SPARE = 1.04  # a little room for a fallback font that runs wider than Arial

# SVG geometry, in px.
_TITLE_SIZE = 14.0  # the box's first line, bold: its feature or its prediction
_TEXT_SIZE = 12.0
_EDGE_SIZE = 12.0
_LEADING = 1.3  # line height / font size
_PAD_X, _PAD_Y = 10.0, 6.0  # inside a box
_BAR_HEIGHT, _BAR_GAP = 7.0, 4.0  # the class-distribution bar under the text
_MIN_BOX_WIDTH = 64.0
_GAP_X = 14.0  # between neighbouring boxes or edge labels
_GAP_Y = 58.0  # between a level's tallest box and the next level: room for an edge label
_LABEL_PAD_X, _LABEL_HEIGHT, _LABEL_LIFT = 4.0, 17.0, 6.0  # edge label: padding, height, gap
_MARGIN = 16.0
_LEGEND_HEIGHT, _SWATCH = 24.0, 12.0
_MIN_LEGEND_WRAP = 480.0  # a legend wraps at the tree's width, but never narrower than this
_CLASSES_PER_LINE = 3  # distribution entries per text line in a box
# A regression node's strip: this wide in every box (one axis for all), this tall.
_STRIP_WIDTH, _STRIP_HEIGHT, _STRIP_GAP = 128.0, 14.0, 5.0
_STRIP_BOX = PALETTE[0]  # the 25-75 % box
_MEAN_MARK = "#CC3311"  # Paul Tol's vibrant red: the mean, set off from the blue box
_AXIS_LINE = "#AAAAAA"
# The same strip in DOT, in points, as a three-row table of coloured cells.
_DOT_STRIP_WIDTH = 96

# The width (px) `to_svg` scales a wider picture down to, and the least it scales text by
# before it draws fewer levels instead (12 px text stays 7 px or more).
DEFAULT_WIDTH = 1920.0
_MIN_SCALE = 0.6
# Categories an edge label of a picture lists before it counts the rest; a label wraps
# onto lines of this many px.
PICTURE_CATEGORIES = 3
_LABEL_WRAP = 150.0
_NOTE_SIZE = 10.0


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
    boxes = _boxes(nodes, conditions, labels, decimals, spread)
    axis = _axis([box.strip for box in boxes])
    edges = _edge_labels(conditions, decimals, max_categories)
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    font = f'fontname="{_DOT_FONT}"'
    lines = [
        "digraph tree {",
        f"  graph [ordering=out, ranksep=0.45, nodesep=0.3, {font}, fontsize=14"
        + (f", label=<<b>{_escape(_clean(target))}</b>>, labelloc=t];" if target else "];"),
        f'  node [shape=box, style="filled,rounded", color="{_BORDER}", fontcolor="{_INK}", '
        f'{font}, fontsize=12, margin="0.14,0.06"];',
        f'  edge [color="{_EDGE}", fontcolor="{_INK}", {font}, fontsize=11, arrowsize=0.7];',
    ]
    order = list(_preorder(nodes))
    for node in order:
        box = boxes[node]
        text = "<br/>".join([f"<b>{_escape(box.title)}</b>", *map(_escape, box.lines)])
        if box.strip is None:
            lines.append(f'  {node} [label=<{text}>, fillcolor="{box.fill}"];')
        else:
            strip = _dot_strip(box.strip, axis)
            lines.append(
                f'  {node} [label=<<table border="0" cellborder="0" cellspacing="0" '
                f'cellpadding="0"><tr><td>{text}</td></tr><tr><td cellpadding="3">{strip}'
                f'</td></tr></table>>, tooltip="{_escape(box.strip.text)}", '
                f'fillcolor="{box.fill}"];'
            )
    for node in order:
        first = first_child[node]
        for child in range(first, first + n_children[node]):
            label = "<br/>".join(map(_escape, edges[child]))
            whole = _escape(_clean(conditions[child][0].format(decimals, None)))
            lines.append(f'  {node} -> {child} [label=<{label}>, tooltip="{whole}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_svg(
    nodes: dict[str, NDArray[Any]],
    features: Sequence[Feature],
    labels: Sequence[Any] | None,
    *,
    target: str = "",
    decimals: int = 3,
    max_depth: int | None = None,
    width: float | None = DEFAULT_WIDTH,
    max_categories: int | None = PICTURE_CATEGORIES,
    spread: Spread | None = None,
) -> str:
    """The tree as a standalone SVG document, laid out and drawn here.

    A layered tidy tree: depth gives a box's row; leaves take their places left to right
    and each parent is centred over its first and last child, every subtree kept inside its
    own band so that no two boxes or edge labels overlap. Each edge's label sits just above
    its child, inside the band that child reserved for it. Every box is a
    `<rect class="node">` and carries a tooltip with its node id; styling is in attributes,
    not a `<style>` sheet, so an SVG inlined in a notebook cannot restyle the page around it.

    The picture fits the page: drawn wider than `width` px (None: any width), it is scaled
    down to it (the `viewBox` keeps the drawing's own coordinates); should its text then
    shrink below `_MIN_SCALE` of its size, fewer levels are drawn, a caption says so, and
    a cut node states how many nodes lie below it. `max_depth` draws at most that many
    levels below the root. A category subset is worded by its shorter side with at most
    `max_categories` categories (None: all) and wrapped; an edge whose list was shortened
    carries the whole list as its tooltip and in a numbered note under the tree.

    A regression node draws `spread` (None: mean ± sd from the tree) as a strip on an axis
    shared by the strips drawn; the legend shows the axis and says what the strip marks.
    """
    conditions = node_conditions(nodes, features)
    boxes = _boxes(nodes, conditions, labels, decimals, spread)
    edges = _edge_labels(conditions, decimals, max_categories)
    notes = _notes(nodes, conditions, decimals, max_categories)
    for child, number in notes.items():
        edges[child] = (*edges[child][:-1], f"{edges[child][-1]} [{number}]")
    depth = nodes["depth"].tolist()
    deepest = max(depth)
    drawn = deepest if max_depth is None else min(max_depth, deepest)

    def legible(levels: int) -> bool:
        if width is None:
            return True
        return width / (_Picture(nodes, boxes, edges, levels).tree_width + 2 * _MARGIN) >= (
            _MIN_SCALE
        )

    if not legible(drawn):
        # The most levels that stay legible (a drawing only widens with more of them).
        low, high = 1, drawn - 1
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if legible(middle) else (low, middle - 1)
        drawn = low
    picture = _Picture(nodes, boxes, edges, drawn)
    caption = (
        f"levels 0-{drawn} of 0-{deepest} drawn; pass max_depth= or a larger width= to see more"
        if drawn < deepest
        else ""
    )
    source = (spread or of_tree(nodes, None)).source if labels is None else None
    return picture.svg(target, labels, nodes, decimals, width, caption, notes, conditions, source)


class _Picture:
    """The tree's layout with levels deeper than `drawn` left out, and its SVG."""

    def __init__(
        self,
        nodes: dict[str, NDArray[Any]],
        boxes: list[_Box],
        edges: dict[int, tuple[str, ...]],
        drawn: int,
    ) -> None:
        self.order = list(_preorder(nodes, drawn))
        self.depth = nodes["depth"].tolist()
        self.parent = nodes["parent"].tolist()
        first_child = nodes["first_child"].tolist()
        # Nodes at the last drawn level lay out as leaves; a cut one says what lies below.
        n_children = [
            0 if d >= drawn else k
            for d, k in zip(self.depth, nodes["n_children"].tolist(), strict=True)
        ]
        below = _nodes_below(nodes)
        self.boxes = [
            replace(box, lines=(*box.lines, f"+ {below[node]:,} nodes below"), cut=True)
            if n_children[node] == 0 and below[node]
            else box
            for node, box in enumerate(boxes)
        ]
        self.edges = edges
        self.sizes = [_box_size(box) for box in self.boxes]
        self.label_sizes = {
            child: (
                max(_text_width(line, _EDGE_SIZE) for line in lines) + 2 * _LABEL_PAD_X,
                _LABEL_HEIGHT + (len(lines) - 1) * _LEADING * _EDGE_SIZE,
            )
            for child, lines in edges.items()
        }
        half = [
            (max(width, self.label_sizes.get(node, (0.0, 0.0))[0]) + _GAP_X) / 2
            for node, (width, _) in enumerate(self.sizes)
        ]
        self.centre, self.tree_width = _layout(
            self.order, self.parent, first_child, n_children, half
        )
        # A level: its tallest box, then room for the tallest (wrapped) edge label.
        tallest_label = max((h for _, h in self.label_sizes.values()), default=_LABEL_HEIGHT)
        self.box_height = max(self.sizes[n][1] for n in self.order)
        self.row = self.box_height + _GAP_Y - _LABEL_HEIGHT + tallest_label
        self.levels = max(self.depth[n] for n in self.order)

    def svg(
        self,
        target: str,
        labels: Sequence[Any] | None,
        nodes: dict[str, NDArray[Any]],
        decimals: int,
        width: float | None,
        caption: str,
        notes: dict[int, int],
        conditions: dict[int, tuple[Condition, Precondition]],
        source: str | None,
    ) -> str:
        legend_items = _legend(nodes, labels, decimals)
        wrap = max(self.tree_width, _MIN_LEGEND_WRAP)
        legend, legend_width, legend_height = _draw_legend(_clean(target), legend_items, wrap)
        axis = _axis([self.boxes[node].strip for node in self.order])
        if axis is not None and source is not None:
            key, key_width, key_height = _strip_key(axis, source, decimals, wrap, legend_height)
            legend.extend(key)
            legend_width, legend_height = max(legend_width, key_width), legend_height + key_height
        top = _MARGIN + legend_height
        if caption:
            top += _LEGEND_HEIGHT
        drawing_width = max(self.tree_width, legend_width)
        tree_bottom = top + self.levels * self.row + self.box_height
        natural_width = math.ceil(drawing_width + 2 * _MARGIN)
        scale = 1.0 if width is None else min(1.0, width / natural_width)
        # The notes are as large as they must be to stay _NOTE_SIZE px once scaled, so that
        # a long list stays readable below a tree drawn small (the picture grows taller).
        note_size = _NOTE_SIZE / scale
        note_lines = _note_lines(notes, conditions, decimals, drawing_width, note_size)
        height = tree_bottom + _MARGIN
        if note_lines:
            height += _LEGEND_HEIGHT + len(note_lines) * _LEADING * note_size
        natural_height = math.ceil(height)
        shown_width, shown_height = (
            round(natural_width * scale),
            round(natural_height * scale),
        )
        centre, sizes, row = self.centre, self.sizes, self.row

        def box_left(node: int) -> float:
            return _MARGIN + centre[node] - sizes[node][0] / 2

        def box_top(node: int) -> float:
            return top + self.depth[node] * row

        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{shown_width}" '
            f'height="{shown_height}" '
            f'viewBox="0 0 {natural_width} {natural_height}" font-family="{_escape(_FONT)}" '
            f'fill="{_INK}" role="img" aria-label="decision tree">',
            f'<rect class="background" width="{natural_width}" height="{natural_height}" '
            'fill="#FFFFFF"/>',
            f'<g transform="translate({_MARGIN} {_MARGIN})">',
            *legend,
            "</g>",
        ]
        if caption:
            out.append(
                f'<text class="caption" x="{_MARGIN}" y="{top - _LEGEND_HEIGHT + 12:.1f}" '
                f'font-size="{_TEXT_SIZE:g}" font-style="italic">{_escape(caption)}</text>'
            )
        out.append(f'<g class="edges" stroke="{_EDGE}" stroke-width="1.2">')
        for node in self.order[1:]:
            up = self.parent[node]
            x1, y1 = _MARGIN + centre[up], box_top(up) + sizes[up][1]
            x2, y2 = _MARGIN + centre[node], box_top(node)
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>')
        for node in self.order:
            if self.boxes[node].cut:  # a stub under a box whose subtree is not drawn
                x, y = _MARGIN + centre[node], box_top(node) + sizes[node][1]
                out.append(
                    f'<line class="cut" x1="{x:.1f}" y1="{y:.1f}" x2="{x:.1f}" '
                    f'y2="{y + 14:.1f}" stroke-dasharray="3 2"/>'
                )
        out.append("</g>")
        out.append(f'<g class="edge-labels" text-anchor="middle" font-size="{_EDGE_SIZE:g}">')
        for node in self.order[1:]:
            out.extend(self._edge_label(node, box_top(node), conditions, decimals))
        out.append("</g>")
        out.append('<g class="nodes" text-anchor="middle">')
        for node in self.order:
            out.extend(
                _draw_box(node, self.boxes[node], box_left(node), box_top(node), sizes[node], axis)
            )
        out.append("</g>")
        if note_lines:
            y = tree_bottom + _LEGEND_HEIGHT
            out.append(f'<g class="notes" font-size="{note_size:.2f}">')
            for line in note_lines:
                # Held to the width Arial's metrics give it: a wider fallback font (DejaVu
                # Sans, where no Arial-compatible font is installed) would run off the page.
                length = _text_width(line, note_size) / _SPARE
                out.append(
                    f'<text x="{_MARGIN}" y="{y:.1f}" textLength="{length:.1f}" '
                    f'lengthAdjust="spacingAndGlyphs">{_escape(line)}</text>'
                )
                y += _LEADING * note_size
            out.append("</g>")
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def _edge_label(
        self,
        node: int,
        child_top: float,
        conditions: dict[int, tuple[Condition, Precondition]],
        decimals: int,
    ) -> list[str]:
        """The label above `node`: its test, wrapped, on a white ground; the whole test as
        its tooltip."""
        x = _MARGIN + self.centre[node]
        bottom = child_top - _LABEL_LIFT
        width, height = self.label_sizes[node]
        lines = self.edges[node]
        whole = _clean(conditions[node][0].format(decimals, None))
        out = [
            f"<g><title>{_escape(whole)}</title>",
            f'<rect class="edge-label" x="{x - width / 2:.1f}" y="{bottom - height:.1f}" '
            f'width="{width:.1f}" height="{height:.1f}" rx="3" fill="#FFFFFF" '
            'fill-opacity="0.92"/>',
        ]
        first_baseline = bottom - height + _LABEL_HEIGHT / 2 + 0.36 * _EDGE_SIZE
        for k, line in enumerate(lines):
            y = first_baseline + k * _LEADING * _EDGE_SIZE
            out.append(f'<text x="{x:.1f}" y="{y:.1f}">{_escape(line)}</text>')
        out.append("</g>")
        return out


@dataclass(frozen=True)
class _Box:
    """What one node's box says and how it is coloured, shared by the DOT and SVG output."""

    title: str  # the tested feature, or the leaf's prediction
    lines: tuple[str, ...]  # weight, then the class distribution or the mean
    fill: str  # "#rrggbb"
    bar: tuple[tuple[str, float], ...]  # (colour, share) per class present; () for regression
    cut: bool = False  # a split whose subtree the picture leaves out
    strip: _Strip | None = None  # a regression node's spread


@dataclass(frozen=True)
class _Strip:
    """A regression node's spread in target units: whiskers from `low` to `high`, a box from
    `q1` to `q3` and a line at `median`; with `median` None, a box of mean ± sd alone. The
    `mean` is marked either way; `text` gives the figures (the strip's tooltip)."""

    low: float
    q1: float
    median: float | None
    q3: float
    high: float
    mean: float
    text: str


def _boxes(
    nodes: dict[str, NDArray[Any]],
    conditions: dict[int, tuple[Condition, Precondition]],
    labels: Sequence[Any] | None,
    decimals: int,
    spread: Spread | None = None,
) -> list[_Box]:
    """Each node's box; `conditions` as `node_conditions` gives them, whose tests name the
    feature(s) an inner node splits on; a regression node's strip from `spread` (None: mean
    ± sd from the tree)."""
    predictions = node_predictions(nodes, labels)
    n_children = nodes["n_children"].tolist()
    first_child = nodes["first_child"].tolist()
    weight = nodes["weight"].tolist()
    regression = labels is None
    fills = _fills(nodes, regression)
    strips = _strips(spread or of_tree(nodes, None), decimals) if regression else []
    boxes = []
    for node, fill in enumerate(fills):
        prediction = _clean(format_prediction(predictions[node], regression, decimals))
        test = _tested(conditions[first_child[node]][0]) if n_children[node] else None
        weighed = f"weight {format_weight(weight[node])}"
        if regression:
            # A leaf's title is its mean already; an inner node states it under its test.
            lines = (weighed,) if test is None else (f"mean {prediction}", weighed)
            if weight[node] <= 0:
                lines = (*lines, "no training rows")
            title = prediction if test is None else test
            boxes.append(_Box(title, lines, fill, (), strip=strips[node]))
            continue
        assert labels is not None
        counts = nodes["value"][node].tolist()
        present = [(k, count) for k, count in enumerate(counts) if count > 0]
        if weight[node] > 0:
            entries = [f"{format_weight(count)} {_clean(str(labels[k]))}" for k, count in present]
            chunks = range(0, len(entries), _CLASSES_PER_LINE)
            shares = [" · ".join(entries[i : i + _CLASSES_PER_LINE]) for i in chunks]
            total = sum(counts)
            bar = tuple((_colour(k), count / total) for k, count in present)
        else:
            # An empty node keeps its parent's distribution (and so its label) in `value`;
            # printed as counts it would claim rows that never reached it.
            shares, bar = ["no training rows"], ()
        title = prediction if test is None else test
        boxes.append(_Box(title, (weighed, *shares), fill, bar))
    return boxes


def _strips(spread: Spread, decimals: int) -> list[_Strip | None]:
    """Each node's strip (None where no row reached the node, or its figures are not
    finite)."""
    strips: list[_Strip | None] = []
    number = functools.partial(format_number, decimals=decimals)
    for node, mean in enumerate(spread.mean.tolist()):
        if spread.extent(node) is None:
            strips.append(None)
        elif spread.quantiles is not None:
            low, q1, median, q3, high = spread.quantiles[node].tolist()
            figures = " · ".join(
                f"{round(100 * p)} % {number(q)}"
                for p, q in zip(QUANTILES, spread.quantiles[node].tolist(), strict=True)
            )
            text = f"{figures} · mean {number(mean)}"
            strips.append(_Strip(low, q1, median, q3, high, mean, text))
        else:
            assert spread.sd is not None
            sd = float(spread.sd[node])
            text = f"mean {number(mean)} ± {number(sd)} (1 sd)"
            strips.append(_Strip(mean - sd, mean - sd, None, mean + sd, mean + sd, mean, text))
    return strips


def _axis(strips: Sequence[_Strip | None]) -> tuple[float, float] | None:
    """The axis every strip of a picture is drawn on: from the lowest to the highest value
    any of them reaches (widened a little when they all sit on one value); None without
    strips."""
    ends = [(s.low, s.high, s.mean) for s in strips if s is not None]
    if not ends:
        return None
    low = min(min(e) for e in ends)
    high = max(max(e) for e in ends)
    if high - low <= 1e-12 * max(abs(low), abs(high), 1.0):
        pad = max(abs(low) * 0.05, 0.5)
        low, high = low - pad, high + pad
    return low, high


def _edge_labels(
    conditions: dict[int, tuple[Condition, Precondition]],
    decimals: int,
    max_categories: int | None,
) -> dict[int, tuple[str, ...]]:
    """Each non-root node's branch test as `export_text` words it (category lists shortened
    to `max_categories`), wrapped onto lines of at most `_LABEL_WRAP` px."""
    return {
        node: _wrap(_clean(condition.format(decimals, max_categories)), _LABEL_WRAP, _EDGE_SIZE)
        for node, (condition, _) in conditions.items()
    }


def _notes(
    nodes: dict[str, NDArray[Any]],
    conditions: dict[int, tuple[Condition, Precondition]],
    decimals: int,
    max_categories: int | None,
) -> dict[int, int]:
    """A note number for each edge whose category list was shortened: one per split, shared
    by its children, numbered in drawing order."""
    parent = nodes["parent"].tolist()
    numbers: dict[int, int] = {}
    notes: dict[int, int] = {}
    for child in sorted(conditions):
        condition = conditions[child][0]
        if condition.format(decimals, max_categories) == condition.format(decimals, None):
            continue
        split = parent[child]
        notes[child] = numbers.setdefault(split, len(numbers) + 1)
    return notes


def _note_lines(
    notes: dict[int, int],
    conditions: dict[int, tuple[Condition, Precondition]],
    decimals: int,
    width: float,
    size: float,
) -> list[str]:
    """`[n] feature in {every category}` per note, in `size` px text wrapped at `width` px."""
    lines: list[str] = ["Category lists in full:"] if notes else []
    seen: set[int] = set()
    for child, number in notes.items():
        if number in seen:
            continue
        seen.add(number)
        whole = _clean(conditions[child][0].format(decimals, None))
        lines.extend(_wrap(f"[{number}] {whole}", width, size))
    return lines


def _wrap(text: str, width: float, size: float) -> tuple[str, ...]:
    """`text` on lines no wider than `width` px, broken after commas and at spaces (a single
    word wider than that keeps a line to itself)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if line and _text_width(trial, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    lines.append(line)
    return tuple(lines)


def _nodes_below(nodes: dict[str, NDArray[Any]]) -> list[int]:
    """Nodes in each node's subtree, itself excluded (children are numbered after their
    parent, so one sweep from the last node back sums every subtree before its root)."""
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    below = [0] * len(n_children)
    for node in range(len(below) - 1, -1, -1):
        first = first_child[node]
        for child in range(first, first + n_children[node]):
            below[node] += 1 + below[child]
    return below


def _tested(condition: Condition) -> str:
    """What a node's box names as its test: the feature, or an oblique test's features (its
    weights and threshold are on the edges, which would repeat them)."""
    if condition.terms:
        return _clean(", ".join(name for name, _ in condition.terms))
    return _clean(condition.feature)


def _fills(nodes: dict[str, NDArray[Any]], regression: bool) -> list[str]:
    """Each box's fill: its class colour mixed with white by purity (a node split evenly
    between its classes is almost white), or for regression one hue by the node's mean."""
    if regression:
        mean = np.asarray(nodes["value"], dtype=np.float64)[:, 0]
        low, high = _mean_range(nodes)
        span = high - low
        strength = (mean - low) / span if span > 0 else np.full(len(mean), 0.5)
        ramp = _ramp(np.nan_to_num(strength, nan=0.0))
        return [_tint(_REGRESSION_COLOUR, s) for s in ramp.tolist()]
    n_classes = nodes["value"].shape[1]
    confidence = np.asarray(confidences(nodes, False), dtype=np.float64)
    floor = 1 / n_classes
    purity = (confidence - floor) / (1 - floor) if n_classes > 1 else np.ones_like(confidence)
    ramp = _ramp(np.clip(np.nan_to_num(purity, nan=0.0), 0.0, 1.0))
    return [
        _tint(_colour(k), s) for k, s in zip(nodes["label"].tolist(), ramp.tolist(), strict=True)
    ]


def _ramp(fraction: NDArray[np.float64]) -> NDArray[np.float64]:
    """Fill strengths from _PALEST (fraction 0) to _DEEPEST (fraction 1)."""
    return _PALEST + (_DEEPEST - _PALEST) * fraction


def _mean_range(nodes: dict[str, NDArray[Any]]) -> tuple[float, float]:
    """The smallest and largest node mean of a regression tree (0, 0 if none is finite)."""
    mean = np.asarray(nodes["value"], dtype=np.float64)[:, 0]
    finite = mean[np.isfinite(mean)]
    return (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)


def _colour(code: int) -> str:
    return PALETTE[code % len(PALETTE)]


def _tint(colour: str, strength: float) -> str:
    """`colour` mixed with white: strength 1 is the colour itself, 0 is white."""
    channels = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(255 + (c - 255) * strength):02X}" for c in channels)


def _layout(
    order: list[int],
    parent: list[int],
    first_child: list[int],
    n_children: list[int],
    half: list[float],
) -> tuple[list[float], float]:
    """The horizontal centre of every node and the width of the whole tree.

    Each subtree owns a band: at least its root's slot (`half` on each side), else its
    children's bands side by side. Children first (reverse preorder): a node is centred
    between its first and last child's centres and its band stretched to cover its own slot,
    so bands of siblings never overlap and neither does anything drawn in them. Then top
    down, each node's centre is its parent's plus its offset. Linear in the nodes, no
    recursion.
    """
    n = len(half)
    left, right, offset = [0.0] * n, [0.0] * n, [0.0] * n
    for node in reversed(order):
        first, count = first_child[node], n_children[node]
        if count == 0:
            left[node] = right[node] = half[node]
            continue
        position = 0.0
        centres: list[float] = []
        for child in range(first, first + count):
            position += left[child]
            centres.append(position)
            position += right[child]
        middle = (centres[0] + centres[-1]) / 2
        for child, at in zip(range(first, first + count), centres, strict=True):
            offset[child] = at - middle
        left[node] = max(middle, half[node])
        right[node] = max(position - middle, half[node])
    centre = [0.0] * n
    centre[order[0]] = left[order[0]]
    for node in order[1:]:
        centre[node] = centre[parent[node]] + offset[node]
    return centre, left[order[0]] + right[order[0]]


def _box_size(box: _Box) -> tuple[float, float]:
    widths = [_text_width(box.title, _TITLE_SIZE, bold=True)]
    widths.extend(_text_width(line, _TEXT_SIZE) for line in box.lines)
    width = max(max(widths) + 2 * _PAD_X, _MIN_BOX_WIDTH)
    height = 2 * _PAD_Y + _LEADING * (_TITLE_SIZE + _TEXT_SIZE * len(box.lines))
    if box.bar:
        height += _BAR_GAP + _BAR_HEIGHT
    if box.strip:
        width = max(width, _STRIP_WIDTH + 2 * _PAD_X)
        height += _STRIP_GAP + _STRIP_HEIGHT
    return width, height


def _draw_box(
    node: int,
    box: _Box,
    left: float,
    top: float,
    size: tuple[float, float],
    axis: tuple[float, float] | None,
) -> list[str]:
    width, height = size
    centre = left + width / 2
    out = [
        f"<g><title>node {node}</title>",
        f'<rect class="node" x="{left:.1f}" y="{top:.1f}" width="{width:.1f}" '
        f'height="{height:.1f}" rx="6" fill="{box.fill}" stroke="{_BORDER}" stroke-width="1"/>',
    ]
    line_top = top + _PAD_Y
    for text, size_px, bold in [
        (box.title, _TITLE_SIZE, True),
        *((line, _TEXT_SIZE, False) for line in box.lines),
    ]:
        baseline = line_top + size_px * (_LEADING / 2 + 0.35)  # x-height centred in the line
        weight = ' font-weight="bold"' if bold else ""
        out.append(
            f'<text x="{centre:.1f}" y="{baseline:.1f}" font-size="{size_px:g}"{weight}>'
            f"{_escape(text)}</text>"
        )
        line_top += _LEADING * size_px
    if box.bar:
        x, y = left + _PAD_X, line_top + _BAR_GAP
        inner = width - 2 * _PAD_X
        for colour, share in box.bar:
            out.append(
                f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{inner * share:.2f}" '
                f'height="{_BAR_HEIGHT:g}" fill="{colour}"/>'
            )
            x += inner * share
        out.append(
            f'<rect x="{left + _PAD_X:.1f}" y="{y:.1f}" width="{inner:.1f}" '
            f'height="{_BAR_HEIGHT:g}" fill="none" stroke="{_BORDER}" stroke-width="0.8"/>'
        )
    if box.strip and axis:
        out.extend(_draw_strip(box.strip, axis, centre - _STRIP_WIDTH / 2, line_top + _STRIP_GAP))
    out.append("</g>")
    return out


def _draw_strip(strip: _Strip, axis: tuple[float, float], left: float, top: float) -> list[str]:
    """The strip of one node with its left edge at `left`: the axis's whole range is
    `_STRIP_WIDTH` px wide in every box, so equal values line up from box to box."""
    low, high = axis

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * _STRIP_WIDTH

    middle, inset = top + _STRIP_HEIGHT / 2, 2.0
    out = [
        f'<g class="strip"><title>{_escape(strip.text)}</title>',
        f'<rect class="strip-axis" x="{left:.1f}" y="{top:.1f}" width="{_STRIP_WIDTH:g}" '
        f'height="{_STRIP_HEIGHT:g}" fill="#FFFFFF" stroke="{_AXIS_LINE}" stroke-width="0.6"/>',
    ]
    if strip.median is not None:
        out.append(
            f'<line class="whisker" x1="{x(strip.low):.2f}" y1="{middle:.1f}" '
            f'x2="{x(strip.high):.2f}" y2="{middle:.1f}" stroke="{_INK}" stroke-width="1"/>'
        )
        for end in (strip.low, strip.high):
            out.append(
                f'<line x1="{x(end):.2f}" y1="{middle - 3:.1f}" x2="{x(end):.2f}" '
                f'y2="{middle + 3:.1f}" stroke="{_INK}" stroke-width="1"/>'
            )
    dashed = "" if strip.median is not None else ' stroke-dasharray="2 1.5"'
    out.append(
        f'<rect class="quartiles" x="{x(strip.q1):.2f}" y="{top + inset:.1f}" '
        f'width="{x(strip.q3) - x(strip.q1):.2f}" height="{_STRIP_HEIGHT - 2 * inset:g}" '
        f'fill="{_STRIP_BOX}" stroke="{_INK}" stroke-width="0.8"{dashed}/>'
    )
    if strip.median is not None:
        m = x(strip.median)
        out.append(
            f'<line class="median" x1="{m:.2f}" y1="{top + inset:.1f}" x2="{m:.2f}" '
            f'y2="{top + _STRIP_HEIGHT - inset:.1f}" stroke="{_INK}" stroke-width="2"/>'
        )
    out.append(_mean_mark(x(strip.mean), middle))
    out.append("</g>")
    return out


def _mean_mark(x: float, y: float) -> str:
    """The mean's diamond, centred on (x, y)."""
    r = 4.0
    return (
        f'<path class="mean" d="M{x:.2f} {y - r:.1f}L{x + r:.2f} {y:.1f}L{x:.2f} {y + r:.1f}'
        f'L{x - r:.2f} {y:.1f}Z" fill="{_MEAN_MARK}" stroke="#FFFFFF" stroke-width="0.6"/>'
    )


def _strip_key(
    axis: tuple[float, float], source: str, decimals: int, wrap: float, top: float
) -> tuple[list[str], float, float]:
    """The legend's line for the strips: the shared axis as an empty strip between its two
    ends, then what a strip marks and whose rows it shows, wrapped at `wrap` px; its SVG
    (placed `top` px down), width and height."""
    low, high = (_clean(format_number(v, decimals)) for v in axis)
    if source == "moments":
        meaning = (
            "box: mean ± 1 sd, ◆ mean (this model keeps no quantiles, as a model read from a "
            "file; to_svg(data=(X, y)) draws them)"
        )
    else:
        whose = "training rows" if source == "training" else "rows given as data"
        meaning = f"whiskers 5-95 %, box 25-75 %, | median, ◆ mean of the {whose}"
    out = ['<g class="strip-key" font-size="12">']
    y = top
    x = _text_width(low, _TEXT_SIZE) + 5
    out.append(f'<text x="0" y="{y + 11:.1f}">{_escape(low)}</text>')
    out.append(
        f'<rect class="strip-axis" x="{x:.1f}" y="{y:.1f}" width="{_STRIP_WIDTH:g}" '
        f'height="{_STRIP_HEIGHT:g}" fill="#FFFFFF" stroke="{_AXIS_LINE}" stroke-width="0.6"/>'
    )
    x += _STRIP_WIDTH + 5
    out.append(f'<text x="{x:.1f}" y="{y + 11:.1f}">{_escape(high)}</text>')
    x += _text_width(high, _TEXT_SIZE) + 14
    lines = _wrap(f"strip axis, shared by every node: {meaning}", max(wrap - x, 240.0), _TEXT_SIZE)
    for k, line in enumerate(lines):
        out.append(
            f'<text x="{x:.1f}" y="{y + 11 + k * _LEADING * _TEXT_SIZE:.1f}">{_escape(line)}</text>'
        )
    width = x + max(_text_width(line, _TEXT_SIZE) for line in lines)
    height = max(_STRIP_HEIGHT, len(lines) * _LEADING * _TEXT_SIZE) + _LEGEND_HEIGHT - 12
    out.append("</g>")
    return out, width, height


def _dot_strip(strip: _Strip, axis: tuple[float, float]) -> str:
    """The strip as a Graphviz HTML table of three rows of fixed-size cells, each row a run
    of colours: the whiskers in the middle row, the box (the median and the mean as narrow
    cells across it) in all three, on `_DOT_STRIP_WIDTH` points for the axis's range."""
    low, high = axis

    def x(value: float) -> int:
        return round((value - low) / (high - low) * (_DOT_STRIP_WIDTH - 2))

    box = (x(strip.q1), max(x(strip.q3), x(strip.q1) + 1))  # a point at least
    # Narrow marks drawn over the box and whiskers, the later over the earlier.
    marks = [(x(strip.mean), 2, _MEAN_MARK)]
    if strip.median is not None:
        marks.insert(0, (x(strip.median), 1, _INK))
    cuts = {0, _DOT_STRIP_WIDTH, x(strip.low), x(strip.high), *box}
    cuts |= {at for at, _, _ in marks} | {at + wide for at, wide, _ in marks}
    edges = sorted(c for c in cuts if 0 <= c <= _DOT_STRIP_WIDTH)
    rows = []
    for row, height in enumerate((3, 2, 3)):
        runs: list[list[Any]] = []  # [width, colour], neighbours of one colour merged
        for a, b in itertools.pairwise(edges):
            colour = "#FFFFFF"
            if box[0] <= a < box[1]:
                colour = _STRIP_BOX
            elif row == 1 and strip.median is not None and x(strip.low) <= a < x(strip.high):
                colour = _INK
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


def _legend(
    nodes: dict[str, NDArray[Any]], labels: Sequence[Any] | None, decimals: int
) -> list[tuple[str, str]]:
    """(colour, text) per legend entry: each class, or the ends of the regression ramp."""
    if labels is None:
        low, high = _mean_range(nodes)
        return [
            (_tint(_REGRESSION_COLOUR, _PALEST), f"mean {format_number(low, decimals)}"),
            (_tint(_REGRESSION_COLOUR, _DEEPEST), f"mean {format_number(high, decimals)}"),
        ]
    return [(_colour(k), _clean(str(label))) for k, label in enumerate(labels)]


def _draw_legend(
    target: str, items: list[tuple[str, str]], wrap: float
) -> tuple[list[str], float, float]:
    """The legend's SVG (at the origin), its width and its height including the gap below,
    wrapped onto as many lines as `wrap` px need."""
    out = ['<g class="legend" font-size="12">']
    x = y = 0.0
    widest = 0.0
    if target:
        out.append(f'<text x="0" y="12" font-weight="bold">{_escape(target)}</text>')
        x = _text_width(target, _TEXT_SIZE, bold=True) + 10
    for colour, text in items:
        step = _SWATCH + 5 + _text_width(text, _TEXT_SIZE)
        if x > 0 and x + step > wrap:
            widest, x, y = max(widest, x), 0.0, y + _LEGEND_HEIGHT - 4
        out.append(
            f'<rect class="legend-swatch" x="{x:.1f}" y="{y + 2:.1f}" width="{_SWATCH:g}" '
            f'height="{_SWATCH:g}" rx="2" fill="{colour}" stroke="{_BORDER}" stroke-width="0.8"/>'
            f'<text x="{x + _SWATCH + 5:.1f}" y="{y + 12:.1f}">{_escape(text)}</text>'
        )
        x += step + 14
    out.append("</g>")
    return out, max(widest, x), y + _LEGEND_HEIGHT


def _text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The rendered width of `text` in px, from Arial's metrics (wide East Asian characters
    take a full em, combining marks none, other characters an average letter)."""
    table = _BOLD if bold else _REGULAR
    total = 0
    for char in text:
        code = ord(char)
        if 32 <= code < 127:
            total += table[code - 32]
        elif char in _OTHER:
            total += _OTHER[char]
        elif unicodedata.combining(char):
            continue
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            total += 1000
        else:
            total += 600
    return total * size / 1000 * _SPARE


def _clean(text: str) -> str:
    """`text` on one line, runs of white space as one space (SVG and Graphviz collapse them
    anyway; `export_text` pads `>` to align with `<=`), and characters XML 1.0 cannot carry
    (control characters, lone surrogates) replaced by U+FFFD, so any name gives valid XML."""
    return "".join(char if _xml_char(char) else "\ufffd" for char in " ".join(text.split()))


def _xml_char(char: str) -> bool:
    code = ord(char)
    return (
        code >= 0x20 and not 0xD800 <= code <= 0xDFFF and code not in (0xFFFE, 0xFFFF)
    ) or char in "\t\n\r"


def _escape(text: str) -> str:
    """`text` safe in XML content and double-quoted attributes (and Graphviz HTML labels)."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )
