"""Algorithm 4.1 of text 000, written out plainly and independently of quercus: the texts' ID3
with information gain, multiway nominal splits, numeric splits at midpoints, and the
fractional weights of §4.4.2 for missing values. The tests grow it beside quercus and compare
every node, and predict with it (C4.5's spreading of a row whose tested value is missing).

Tie rules of the shared data's README: scores equal up to a relative 1e-9 are ties; between
features the lowest column wins, between thresholds the lowest; between classes the parent's
majority wins, then the first class in the target's order; an empty branch is a leaf with its
parent's class distribution and label. A node stops only when it is pure or no attribute
separates its rows (a zero gain still splits). There is no size rule.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

TIE = 1e-9


@dataclass
class Node:
    """A node of the reference tree: its class weights (fragments included), its label, and
    its test (attribute, and per child the branch's condition) when it is not a leaf."""

    value: list[float]
    label: int
    attribute: str | None = None
    threshold: float | None = None  # numeric tests: x <= threshold goes to the first child
    branches: list[str] = field(default_factory=list)  # nominal tests: one value per child
    children: list[Node] = field(default_factory=list)
    # An empty branch: no training weight, its parent's distribution (for its probabilities).
    empty: bool = False

    @property
    def weight(self) -> float:
        return 0.0 if self.empty else sum(self.value)


def _entropy(value: list[float]) -> float:
    total = sum(value)
    return -sum(v / total * math.log2(v / total) for v in value if v > 0) if total > 0 else 0.0


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TIE * (1.0 + max(abs(a), abs(b)))


class ReferenceID3:
    """Grows the tree of `rows` (dicts attribute -> value, None when missing) for `target`,
    whose classes are `classes` in the target's order. `values[a]` lists a nominal attribute's
    values in their order; an attribute absent from `values` is numeric."""

    def __init__(self, attributes, values, classes, target):
        self.attributes = list(attributes)
        self.values = values
        self.classes = list(classes)
        self.target = target

    def fit(self, rows: list[dict]) -> Node:
        self.rows = rows
        root = self._leaf([(i, 1.0) for i in range(len(rows))], parent_label=None)
        # Explicit stack: (node, its weighted rows, attributes still usable).
        stack = [(root, [(i, 1.0) for i in range(len(rows))], self.attributes)]
        while stack:
            node, part, usable = stack.pop()
            self._split(node, part, usable, stack)
        return root

    def _dist(self, part) -> list[float]:
        value = [0.0] * len(self.classes)
        for i, w in part:
            value[self.classes.index(self.rows[i][self.target])] += w
        return value

    def _majority(self, value, parent_label) -> int:
        top = max(value)
        tied = [k for k, v in enumerate(value) if _close(v, top)]
        if parent_label in tied:
            return parent_label
        return tied[0]

    def _leaf(self, part, parent_label) -> Node:
        value = self._dist(part)
        return Node(value=value, label=self._majority(value, parent_label))

    def _known(self, part, a):
        return [(i, w) for i, w in part if self.rows[i][a] is not None]

    def _gain(self, part, a):
        """(gain, threshold or None, children's known parts) of the best test on `a`, or None
        when `a` does not separate the rows."""
        known = self._known(part, a)
        total = sum(w for _, w in part)
        known_w = sum(w for _, w in known)
        if known_w <= 0:
            return None
        rho = known_w / total
        base = _entropy(self._dist(known))

        def score(parts):
            rest = sum(sum(w for _, w in p) / known_w * _entropy(self._dist(p)) for p in parts)
            return rho * (base - rest)

        if a in self.values:
            parts = [[(i, w) for i, w in known if self.rows[i][a] == v] for v in self.values[a]]
            if sum(1 for p in parts if p) < 2:
                return None
            return score(parts), None, parts
        xs = sorted({self.rows[i][a] for i, _ in known})
        best = None
        for lo, hi in itertools.pairwise(xs):
            t = (lo + hi) / 2
            parts = [
                [(i, w) for i, w in known if self.rows[i][a] <= t],
                [(i, w) for i, w in known if self.rows[i][a] > t],
            ]
            g = score(parts)
            if best is None or (g > best[0] and not _close(g, best[0])):
                best = (g, t, parts)
        return best

    def _split(self, node, part, usable, stack):
        if sum(1 for v in node.value if v > 0) <= 1:
            return
        best = None
        for a in usable:
            found = self._gain(part, a)
            if found is not None and (
                best is None or (found[0] > best[1][0] and not _close(found[0], best[1][0]))
            ):
                best = (a, found)
        if best is None:
            return
        a, (_, threshold, parts) = best
        known_w = sum(sum(w for _, w in p) for p in parts)
        missing = [(i, w) for i, w in part if self.rows[i][a] is None]
        node.attribute, node.threshold = a, threshold
        node.branches = list(self.values[a]) if threshold is None else ["<=", ">"]
        # A nominal attribute is used once on a path; a numeric one may be tested again.
        below = [b for b in usable if b != a] if threshold is None else usable
        for p in parts:
            share = sum(w for _, w in p) / known_w
            child_part = p + [(i, w * share) for i, w in missing if share > 0]
            if child_part:
                child = self._leaf(child_part, node.label)
                stack.append((child, child_part, below))
            else:  # Algorithm 4.1 line 12: an empty branch, labelled by its parent
                child = Node(value=list(node.value), label=node.label, empty=True)
            node.children.append(child)

    # --- reading the tree ------------------------------------------------------------

    def drawing(self, root: Node) -> str:
        """The tree as export_text(show_weights=False) draws it (no missing-share notes)."""
        return _draw(root, self.classes)

    def proba(self, root: Node, row: dict) -> list[float]:
        """C4.5's class probabilities of `row`: down the tested branch, or over every branch
        by its share of the training weight when the tested value is missing (or unseen)."""
        out = [0.0] * len(self.classes)
        stack = [(root, 1.0)]
        while stack:
            node, share = stack.pop()
            if not node.children:
                total = sum(node.value)
                for k, v in enumerate(node.value):
                    out[k] += share * v / total
                continue
            x = row.get(node.attribute)
            if node.threshold is not None and x is not None:
                stack.append((node.children[0 if x <= node.threshold else 1], share))
            elif node.threshold is None and x in node.branches:
                stack.append((node.children[node.branches.index(x)], share))
            else:
                weights = [c.weight for c in node.children]
                total = sum(weights)
                for child, w in zip(node.children, weights, strict=True):
                    if w > 0:
                        stack.append((child, share * w / total))
        return out


def _draw(root: Node, classes: list[str]) -> str:
    lines: list[str] = []
    stack = [(root, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        node = item
        entries = []
        for k, child in enumerate(node.children):
            if node.threshold is None:
                cond = f"{node.attribute} = {node.branches[k]}"
            else:
                cond = f"{node.attribute} {'<=' if k == 0 else '> '} {node.threshold:.4f}"
            pad = "    " * depth
            if child.children:
                entries.append((f"{pad}{cond}", child))
            else:
                entries.append((f"{pad}{cond}: {classes[child.label]}", None))
        for text, child in reversed(entries):
            if child is not None:
                stack.append((child, depth + 1))
            stack.append((text, depth))
    return "\n".join(lines)
