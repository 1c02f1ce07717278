"""What the pictures of a fitted tree show, shared by the SVG that quercus lays out and draws
itself (`svg`, so that a picture needs neither the Graphviz binary nor a plotting library)
and by Graphviz DOT text (`dot`).

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
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .conditions import Condition
from .paths import Precondition, node_predictions
from .rules import confidences
from .spread import QUANTILES, Spread, of_tree
from .wording import format_number, format_prediction, format_weight

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


INK = "#222222"


BORDER = "#4D4D4D"


EDGE = "#666666"


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


SPARE = 1.04  # a little room for a fallback font that runs wider than Arial


EDGE_SIZE = 12.0


_CLASSES_PER_LINE = 3  # distribution entries per text line in a box


STRIP_BOX = PALETTE[0]  # the 25-75 % box


MEAN_MARK = "#CC3311"  # Paul Tol's vibrant red: the mean, set off from the blue box


# Categories an edge label of a picture lists before it counts the rest; a label wraps
# onto lines of this many px.
PICTURE_CATEGORIES = 3


_LABEL_WRAP = 150.0


@dataclass(frozen=True)
class Box:
    """What one node's box says and how it is coloured, shared by the DOT and SVG output."""

    title: str  # the tested feature, or the leaf's prediction
    lines: tuple[str, ...]  # weight, then the class distribution or the mean
    fill: str  # "#rrggbb"
    bar: tuple[tuple[str, float], ...]  # (colour, share) per class present; () for regression
    cut: bool = False  # a split whose subtree the picture leaves out
    strip: Strip | None = None  # a regression node's spread


@dataclass(frozen=True)
class Strip:
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


def node_boxes(
    nodes: dict[str, NDArray[Any]],
    conditions: dict[int, tuple[Condition, Precondition]],
    labels: Sequence[Any] | None,
    decimals: int,
    spread: Spread | None = None,
) -> list[Box]:
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
        prediction = clean(format_prediction(predictions[node], regression, decimals))
        test = _tested(conditions[first_child[node]][0]) if n_children[node] else None
        weighed = f"weight {format_weight(weight[node])}"
        if regression:
            # A leaf's title is its mean already; an inner node states it under its test.
            lines = (weighed,) if test is None else (f"mean {prediction}", weighed)
            if weight[node] <= 0:
                lines = (*lines, "no training rows")
            title = prediction if test is None else test
            boxes.append(Box(title, lines, fill, (), strip=strips[node]))
            continue
        assert labels is not None
        counts = nodes["value"][node].tolist()
        present = [(k, count) for k, count in enumerate(counts) if count > 0]
        if weight[node] > 0:
            entries = [f"{format_weight(count)} {clean(str(labels[k]))}" for k, count in present]
            chunks = range(0, len(entries), _CLASSES_PER_LINE)
            shares = [" · ".join(entries[i : i + _CLASSES_PER_LINE]) for i in chunks]
            total = sum(counts)
            bar = tuple((_colour(k), count / total) for k, count in present)
        else:
            # An empty node keeps its parent's distribution (and so its label) in `value`;
            # printed as counts it would claim rows that never reached it.
            shares, bar = ["no training rows"], ()
        title = prediction if test is None else test
        boxes.append(Box(title, (weighed, *shares), fill, bar))
    return boxes


def _strips(spread: Spread, decimals: int) -> list[Strip | None]:
    """Each node's strip (None where no row reached the node, or its figures are not
    finite)."""
    strips: list[Strip | None] = []
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
            strips.append(Strip(low, q1, median, q3, high, mean, text))
        else:
            assert spread.sd is not None
            sd = float(spread.sd[node])
            text = f"mean {number(mean)} ± {number(sd)} (1 sd)"
            strips.append(Strip(mean - sd, mean - sd, None, mean + sd, mean + sd, mean, text))
    return strips


def strip_axis(strips: Sequence[Strip | None]) -> tuple[float, float] | None:
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


def edge_labels(
    conditions: dict[int, tuple[Condition, Precondition]],
    decimals: int,
    max_categories: int | None,
) -> dict[int, tuple[str, ...]]:
    """Each non-root node's branch test as `export_text` words it (category lists shortened
    to `max_categories`), wrapped onto lines of at most `_LABEL_WRAP` px."""
    return {
        node: wrapped(clean(condition.format(decimals, max_categories)), _LABEL_WRAP, EDGE_SIZE)
        for node, (condition, _) in conditions.items()
    }


def category_notes(
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


def note_text_lines(
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
        whole = clean(conditions[child][0].format(decimals, None))
        lines.extend(wrapped(f"[{number}] {whole}", width, size))
    return lines


def wrapped(text: str, width: float, size: float) -> tuple[str, ...]:
    """`text` on lines no wider than `width` px, broken after commas and at spaces (a single
    word wider than that keeps a line to itself)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if line and text_width(trial, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    lines.append(line)
    return tuple(lines)


def _tested(condition: Condition) -> str:
    """What a node's box names as its test: the feature, or an oblique test's features (its
    weights and threshold are on the edges, which would repeat them)."""
    if condition.terms:
        return clean(", ".join(name for name, _ in condition.terms))
    return clean(condition.feature)


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


def legend_entries(
    nodes: dict[str, NDArray[Any]], labels: Sequence[Any] | None, decimals: int
) -> list[tuple[str, str]]:
    """(colour, text) per legend entry: each class, or the ends of the regression ramp."""
    if labels is None:
        low, high = _mean_range(nodes)
        return [
            (_tint(_REGRESSION_COLOUR, _PALEST), f"mean {format_number(low, decimals)}"),
            (_tint(_REGRESSION_COLOUR, _DEEPEST), f"mean {format_number(high, decimals)}"),
        ]
    return [(_colour(k), clean(str(label))) for k, label in enumerate(labels)]


def text_width(text: str, size: float, *, bold: bool = False) -> float:
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
    return total * size / 1000 * SPARE


def clean(text: str) -> str:
    """`text` on one line, runs of white space as one space (SVG and Graphviz collapse them
    anyway; `export_text` pads `>` to align with `<=`), and characters XML 1.0 cannot carry
    (control characters, lone surrogates) replaced by U+FFFD, so any name gives valid XML."""
    return "".join(char if _xml_char(char) else "\ufffd" for char in " ".join(text.split()))


def _xml_char(char: str) -> bool:
    code = ord(char)
    return (
        code >= 0x20 and not 0xD800 <= code <= 0xDFFF and code not in (0xFFFE, 0xFFFF)
    ) or char in "\t\n\r"


def escape(text: str) -> str:
    """`text` safe in XML content and double-quoted attributes (and Graphviz HTML labels)."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )
