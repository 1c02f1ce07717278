"""The SVG picture, laid out and drawn by quercus: boxes placed level by level, a page width
that scales the drawing down (cutting levels a reader could no longer read, and saying so),
regression strips on one shared axis with their key, the class legend and numbered notes for
long category lists.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from numpy.typing import NDArray

from ..inputs.schema import Feature
from .conditions import Condition
from .drawing import (
    BORDER,
    EDGE,
    EDGE_SIZE,
    INK,
    MEAN_MARK,
    PICTURE_CATEGORIES,
    SPARE,
    STRIP_BOX,
    Box,
    Strip,
    category_notes,
    clean,
    edge_labels,
    escape,
    legend_entries,
    node_boxes,
    note_text_lines,
    strip_axis,
    text_width,
    wrapped,
)
from .paths import Precondition, node_conditions
from .spread import Spread, of_tree
from .text import _preorder
from .wording import format_number

# Arial's metrics, which Helvetica and Liberation Sans share: the SVG names those fonts first,
# so boxes sized from these widths fit their text wherever one of them is installed.
_FONT = "Arial, Helvetica, 'Liberation Sans', sans-serif"


# SVG geometry, in px.
_TITLE_SIZE = 14.0  # the box's first line, bold: its feature or its prediction


_TEXT_SIZE = 12.0


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


# A regression node's strip: this wide in every box (one axis for all), this tall.
_STRIP_WIDTH, _STRIP_HEIGHT, _STRIP_GAP = 128.0, 14.0, 5.0


_AXIS_LINE = "#AAAAAA"


# The width (px) `to_svg` scales a wider picture down to, and the least it scales text by
# before it draws fewer levels instead (12 px text stays 7 px or more).
DEFAULT_WIDTH = 1920.0


_MIN_SCALE = 0.6


_NOTE_SIZE = 10.0


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
    boxes = node_boxes(nodes, conditions, labels, decimals, spread)
    edges = edge_labels(conditions, decimals, max_categories)
    notes = category_notes(nodes, conditions, decimals, max_categories)
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
        boxes: list[Box],
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
                max(text_width(line, EDGE_SIZE) for line in lines) + 2 * _LABEL_PAD_X,
                _LABEL_HEIGHT + (len(lines) - 1) * _LEADING * EDGE_SIZE,
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
        legend_items = legend_entries(nodes, labels, decimals)
        wrap = max(self.tree_width, _MIN_LEGEND_WRAP)
        legend, legend_width, legend_height = _draw_legend(clean(target), legend_items, wrap)
        axis = strip_axis([self.boxes[node].strip for node in self.order])
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
        note_lines = note_text_lines(notes, conditions, decimals, drawing_width, note_size)
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
            f'viewBox="0 0 {natural_width} {natural_height}" font-family="{escape(_FONT)}" '
            f'fill="{INK}" role="img" aria-label="decision tree">',
            f'<rect class="background" width="{natural_width}" height="{natural_height}" '
            'fill="#FFFFFF"/>',
            f'<g transform="translate({_MARGIN} {_MARGIN})">',
            *legend,
            "</g>",
        ]
        if caption:
            out.append(
                f'<text class="caption" x="{_MARGIN}" y="{top - _LEGEND_HEIGHT + 12:.1f}" '
                f'font-size="{_TEXT_SIZE:g}" font-style="italic">{escape(caption)}</text>'
            )
        out.append(f'<g class="edges" stroke="{EDGE}" stroke-width="1.2">')
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
        out.append(f'<g class="edge-labels" text-anchor="middle" font-size="{EDGE_SIZE:g}">')
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
                length = text_width(line, note_size) / SPARE
                out.append(
                    f'<text x="{_MARGIN}" y="{y:.1f}" textLength="{length:.1f}" '
                    f'lengthAdjust="spacingAndGlyphs">{escape(line)}</text>'
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
        whole = clean(conditions[node][0].format(decimals, None))
        out = [
            f"<g><title>{escape(whole)}</title>",
            f'<rect class="edge-label" x="{x - width / 2:.1f}" y="{bottom - height:.1f}" '
            f'width="{width:.1f}" height="{height:.1f}" rx="3" fill="#FFFFFF" '
            'fill-opacity="0.92"/>',
        ]
        first_baseline = bottom - height + _LABEL_HEIGHT / 2 + 0.36 * EDGE_SIZE
        for k, line in enumerate(lines):
            y = first_baseline + k * _LEADING * EDGE_SIZE
            out.append(f'<text x="{x:.1f}" y="{y:.1f}">{escape(line)}</text>')
        out.append("</g>")
        return out


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


def _box_size(box: Box) -> tuple[float, float]:
    widths = [text_width(box.title, _TITLE_SIZE, bold=True)]
    widths.extend(text_width(line, _TEXT_SIZE) for line in box.lines)
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
    box: Box,
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
        f'height="{height:.1f}" rx="6" fill="{box.fill}" stroke="{BORDER}" stroke-width="1"/>',
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
            f"{escape(text)}</text>"
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
            f'height="{_BAR_HEIGHT:g}" fill="none" stroke="{BORDER}" stroke-width="0.8"/>'
        )
    if box.strip and axis:
        out.extend(_draw_strip(box.strip, axis, centre - _STRIP_WIDTH / 2, line_top + _STRIP_GAP))
    out.append("</g>")
    return out


def _draw_strip(strip: Strip, axis: tuple[float, float], left: float, top: float) -> list[str]:
    """The strip of one node with its left edge at `left`: the axis's whole range is
    `_STRIP_WIDTH` px wide in every box, so equal values line up from box to box."""
    low, high = axis

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * _STRIP_WIDTH

    middle, inset = top + _STRIP_HEIGHT / 2, 2.0
    out = [
        f'<g class="strip"><title>{escape(strip.text)}</title>',
        f'<rect class="strip-axis" x="{left:.1f}" y="{top:.1f}" width="{_STRIP_WIDTH:g}" '
        f'height="{_STRIP_HEIGHT:g}" fill="#FFFFFF" stroke="{_AXIS_LINE}" stroke-width="0.6"/>',
    ]
    if strip.median is not None:
        out.append(
            f'<line class="whisker" x1="{x(strip.low):.2f}" y1="{middle:.1f}" '
            f'x2="{x(strip.high):.2f}" y2="{middle:.1f}" stroke="{INK}" stroke-width="1"/>'
        )
        for end in (strip.low, strip.high):
            out.append(
                f'<line x1="{x(end):.2f}" y1="{middle - 3:.1f}" x2="{x(end):.2f}" '
                f'y2="{middle + 3:.1f}" stroke="{INK}" stroke-width="1"/>'
            )
    dashed = "" if strip.median is not None else ' stroke-dasharray="2 1.5"'
    out.append(
        f'<rect class="quartiles" x="{x(strip.q1):.2f}" y="{top + inset:.1f}" '
        f'width="{x(strip.q3) - x(strip.q1):.2f}" height="{_STRIP_HEIGHT - 2 * inset:g}" '
        f'fill="{STRIP_BOX}" stroke="{INK}" stroke-width="0.8"{dashed}/>'
    )
    if strip.median is not None:
        m = x(strip.median)
        out.append(
            f'<line class="median" x1="{m:.2f}" y1="{top + inset:.1f}" x2="{m:.2f}" '
            f'y2="{top + _STRIP_HEIGHT - inset:.1f}" stroke="{INK}" stroke-width="2"/>'
        )
    out.append(_mean_mark(x(strip.mean), middle))
    out.append("</g>")
    return out


def _mean_mark(x: float, y: float) -> str:
    """The mean's diamond, centred on (x, y)."""
    r = 4.0
    return (
        f'<path class="mean" d="M{x:.2f} {y - r:.1f}L{x + r:.2f} {y:.1f}L{x:.2f} {y + r:.1f}'
        f'L{x - r:.2f} {y:.1f}Z" fill="{MEAN_MARK}" stroke="#FFFFFF" stroke-width="0.6"/>'
    )


def _strip_key(
    axis: tuple[float, float], source: str, decimals: int, wrap: float, top: float
) -> tuple[list[str], float, float]:
    """The legend's line for the strips: the shared axis as an empty strip between its two
    ends, then what a strip marks and whose rows it shows, wrapped at `wrap` px; its SVG
    (placed `top` px down), width and height."""
    low, high = (clean(format_number(v, decimals)) for v in axis)
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
    x = text_width(low, _TEXT_SIZE) + 5
    out.append(f'<text x="0" y="{y + 11:.1f}">{escape(low)}</text>')
    out.append(
        f'<rect class="strip-axis" x="{x:.1f}" y="{y:.1f}" width="{_STRIP_WIDTH:g}" '
        f'height="{_STRIP_HEIGHT:g}" fill="#FFFFFF" stroke="{_AXIS_LINE}" stroke-width="0.6"/>'
    )
    x += _STRIP_WIDTH + 5
    out.append(f'<text x="{x:.1f}" y="{y + 11:.1f}">{escape(high)}</text>')
    x += text_width(high, _TEXT_SIZE) + 14
    lines = wrapped(
        f"strip axis, shared by every node: {meaning}", max(wrap - x, 240.0), _TEXT_SIZE
    )
    for k, line in enumerate(lines):
        out.append(
            f'<text x="{x:.1f}" y="{y + 11 + k * _LEADING * _TEXT_SIZE:.1f}">{escape(line)}</text>'
        )
    width = x + max(text_width(line, _TEXT_SIZE) for line in lines)
    height = max(_STRIP_HEIGHT, len(lines) * _LEADING * _TEXT_SIZE) + _LEGEND_HEIGHT - 12
    out.append("</g>")
    return out, width, height


def _draw_legend(
    target: str, items: list[tuple[str, str]], wrap: float
) -> tuple[list[str], float, float]:
    """The legend's SVG (at the origin), its width and its height including the gap below,
    wrapped onto as many lines as `wrap` px need."""
    out = ['<g class="legend" font-size="12">']
    x = y = 0.0
    widest = 0.0
    if target:
        out.append(f'<text x="0" y="12" font-weight="bold">{escape(target)}</text>')
        x = text_width(target, _TEXT_SIZE, bold=True) + 10
    for colour, text in items:
        step = _SWATCH + 5 + text_width(text, _TEXT_SIZE)
        if x > 0 and x + step > wrap:
            widest, x, y = max(widest, x), 0.0, y + _LEGEND_HEIGHT - 4
        out.append(
            f'<rect class="legend-swatch" x="{x:.1f}" y="{y + 2:.1f}" width="{_SWATCH:g}" '
            f'height="{_SWATCH:g}" rx="2" fill="{colour}" stroke="{BORDER}" stroke-width="0.8"/>'
            f'<text x="{x + _SWATCH + 5:.1f}" y="{y + 12:.1f}">{escape(text)}</text>'
        )
        x += step + 14
    out.append("</g>")
    return out, max(widest, x), y + _LEGEND_HEIGHT
