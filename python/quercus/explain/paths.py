"""Each node's path as preconditions (`node_conditions`), the tests merged per feature; a split
with surrogates becomes a `Routed` precondition that routes a row it cannot send as the tree
does (its surrogates, then its majority child).

Trees can be 100,000 levels deep, so every walk uses an explicit stack, never recursion.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .._choices import SqlDialectName
from .._core import MULTIWAY, NUMERIC, OBLIQUE, ORDERED, SUBSET
from ..inputs.schema import Feature, Schema
from .conditions import Condition, Interval, Known, Linear, Membership
from .wording import all_of, linear_terms

if TYPE_CHECKING:
    from .._core import Column


# `missing_child` of a split where a row no surrogate sends stays in the node and takes its
# prediction (rpart's split of two sides of equal weight, which leaves no majority side).
STAYS = -2


@dataclass(frozen=True)
class Routed:
    """The precondition into one child of a split with surrogate splits (rpart's routing).

    ``test`` (the split's own test into the child) decides when every ``known`` holds (the
    split can send the row; an oblique split needs each of its features); otherwise the
    first surrogate whose ``Known`` holds decides (its test into the child, or True /
    False: every / no value it can send goes here), and when none does, ``default``. This is
    the tree's own routing (rpart's ``usesurrogate = 2``).

    Parameters
    ----------
    test : Interval, Membership or Linear
        The split's own test into this child.
    known : tuple of Known
        What the split needs to send a row.
    surrogates : tuple of (Known, Interval or Membership or bool)
        The surrogates in rank order, each with what it needs and its test into this child.
    default : bool
        Whether this child is the split's majority child.
    node : int
        The split's node id (two routed preconditions never merge).

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.DecisionTreeClassifier(
    ...     missing="surrogate", max_depth=1, max_surrogates=1
    ... ).fit(X, y)
    >>> routed = model.rules()[0].conditions[0]
    >>> print(routed.to_text())
    texture = clear (if missing: sugar > 0.2045; else yes)
    """

    # None: the split sends no row here itself (the rows that stay at a split, `unsent`).
    test: Interval | Membership | Linear | None
    known: tuple[Known, ...]
    surrogates: tuple[tuple[Known, Interval | Membership | bool], ...]
    default: bool
    node: int  # the split's node id: two routed preconditions never merge

    @property
    def feature(self) -> str:
        """The key rules merge preconditions by: a routed test merges with nothing.

        Returns
        -------
        str
            ``routed:`` and the split's node id.

        Examples
        --------
        >>> from quercus.rules import Known, Membership, Routed
        >>> test = Membership("texture", ("clear",))
        >>> Routed(test, (Known("texture"),), (), default=True, node=0).feature
        'routed:0'
        """
        return f"routed:{self.node}"

    def to_text(self, decimals: int = 4, max_categories: int | None = None) -> str:
        """The precondition as a rule prints it.

        The test, then for a row the split cannot send each surrogate in turn and the
        default (whether the majority child is this one): ``density <= 0.3815 (if missing:
        sugar <= 0.2040; else texture = clear; else no)``.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in numbers.
        max_categories : int, optional
            Category lists longer than this show that many and a count (None: all).

        Returns
        -------
        str
            The wording.

        Examples
        --------
        >>> from quercus.rules import Interval, Known, Routed
        >>> surrogate = (Known("sugar"), Interval("sugar", upper=0.204))
        >>> routed = Routed(Interval("density", upper=0.3815), (Known("density"),),
        ...                 (surrogate,), default=False, node=0)
        >>> routed.to_text()
        'density <= 0.3815 (if missing: sugar <= 0.2040; else no)'
        """
        if self.test is None:
            needed = " and ".join(k.to_text(decimals, max_categories) for k in self.known)
            others = ", ".join(k.feature for k, _ in self.surrogates)
            unknown = f" nor any of {others}" if others else ""
            return f"not ({needed}){unknown}: stays at node {self.node}"
        steps = [_surrogate_text(s, decimals, max_categories) for _, s in self.surrogates]
        steps.append("yes" if self.default else "no")
        test = self.test.to_text(decimals, max_categories)
        return f"{test} (if missing: {'; else '.join(steps)})"

    def to_polars(self) -> pl.Expr:
        """The precondition as a Polars expression, surrogates included.

        Returns
        -------
        polars.Expr
            A boolean expression over the original columns: true where the value passes,
            false where it does not (a missing value passes only when ``missing``).

        Examples
        --------
        >>> import polars as pl
        >>> from quercus.rules import Interval, Known, Routed
        >>> surrogate = (Known("sugar"), Interval("sugar", upper=0.204))
        >>> routed = Routed(Interval("density", upper=0.3815), (Known("density"),),
        ...                 (surrogate,), default=False, node=0)
        >>> frame = pl.DataFrame({"density": [0.3, None, None], "sugar": [0.5, 0.1, None]})
        >>> frame.select(routed.to_polars().alias("here"))["here"].to_list()
        [True, True, False]
        """
        chain: pl.Expr = pl.lit(self.default)
        for surrogate, sends in reversed(self.surrogates):
            here = pl.lit(sends) if isinstance(sends, bool) else sends.to_polars().fill_null(False)
            chain = pl.when(surrogate.to_polars()).then(here).otherwise(chain)
        decided = all_of([k.to_polars() for k in self.known])
        if self.test is None:
            return ~decided & chain
        return self.test.to_polars().fill_null(False) | (~decided & chain)

    def to_sql(self, *, dialect: SqlDialectName = "ansi") -> str:
        """The precondition as an SQL expression, its surrogates as a ``CASE``.

        Parameters
        ----------
        dialect : {"ansi", "duckdb", "postgresql", "sqlite", "spark"}, default="ansi"
            The database's spelling (see :meth:`quercus.RuleSet.to_sql`).

        Returns
        -------
        str
            A boolean SQL expression; identifiers quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Interval, Known, Routed
        >>> surrogate = (Known("sugar"), Interval("sugar", upper=0.204))
        >>> routed = Routed(Interval("density", upper=0.3815), (Known("density"),),
        ...                 (surrogate,), default=False, node=0)
        >>> print(routed.to_sql())
        ("density" <= 0.3815 OR (NOT ("density" IS NOT NULL) AND
            CASE WHEN "sugar" IS NOT NULL THEN ("sugar" <= 0.204) ELSE FALSE END))
        """
        arms = " ".join(
            f"WHEN {known.to_sql(dialect=dialect)} THEN {_sql_bool(sends, dialect)}"
            for known, sends in self.surrogates
        )
        default = _sql_bool(self.default, dialect)
        chain = f"CASE {arms} ELSE {default} END" if arms else default
        known = " AND ".join(k.to_sql(dialect=dialect) for k in self.known)
        if self.test is None:
            return f"(NOT ({known}) AND {chain})"
        return f"({self.test.to_sql(dialect=dialect)} OR (NOT ({known}) AND {chain}))"

    def _parts(self) -> tuple[Routed, ...]:
        return (self,)

    def _mask_rows(self, columns: list[Column], schema: Schema) -> NDArray[np.bool_]:
        def mask(condition: Any) -> NDArray[np.bool_]:
            if isinstance(condition, Linear):
                return condition._mask_rows(columns, schema)
            position = schema.names.index(condition.feature)
            return condition._mask(columns[position], schema.features[position])

        undecided = ~np.logical_and.reduce([mask(k) for k in self.known])
        passed = (
            np.zeros(len(undecided), dtype=bool)
            if self.test is None
            else mask(self.test) & ~undecided
        )
        result = np.full(len(undecided), self.default)
        settled = np.zeros(len(undecided), dtype=bool)
        for known, sends in self.surrogates:
            here = mask(known) & ~settled
            result[here] = sends if isinstance(sends, bool) else mask(sends)[here]
            settled |= here
        return passed | (undecided & result)


Precondition: TypeAlias = Interval | Membership | Linear | Routed


def node_conditions(
    nodes: dict[str, NDArray[Any]], features: Sequence[Feature]
) -> dict[int, tuple[Condition, Precondition]]:
    """For each non-root node, the test that leads into it: as the tree words it and as the
    values it lets through (see `Condition`; the precondition into the child that takes a
    node's missing values lets them through too)."""
    kind = nodes["kind"].tolist()
    feature_index = nodes["feature"].tolist()
    threshold = nodes["threshold"].tolist()
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    subset_offset = nodes["subset_offset"].tolist()
    subset_mask: NDArray[np.uint8] = nodes["subset_mask"]
    # Absent from hand-written arenas: then no split has a missing child.
    missing_child = (
        nodes["missing_child"].tolist() if "missing_child" in nodes else [-1] * len(kind)
    )
    edges: dict[int, tuple[Condition, Precondition]] = {}
    for node, node_kind in enumerate(kind):
        if n_children[node] == 0:
            continue
        first = first_child[node]
        if node_kind == OBLIQUE:
            terms = linear_terms(nodes, node, features)
            t = threshold[node]
            edges[first] = (Condition("", "<=", t, terms), Linear(terms, t))
            edges[first + 1] = (Condition("", ">", t, terms), Linear(terms, t, above=True))
            continue
        feature = features[feature_index[node]]
        name = feature.name
        categories = feature.categories or ()  # only numeric splits test a numeric feature
        if node_kind == MULTIWAY:
            for k in range(n_children[node]):
                if k == len(categories):  # missing="separate": the child of missing values
                    edges[first + k] = (
                        Condition(name, "=", "?"),
                        Membership(name, (), universe=categories),
                    )
                    continue
                category = categories[k]
                edges[first + k] = (
                    Condition(name, "=", category),
                    Membership(name, (category,), universe=categories),
                )
            continue
        if node_kind == NUMERIC:
            t, time = threshold[node], feature.time
            edges[first] = (
                Condition(name, "<=", t, time=time),
                Interval(name, upper=t, time=time),
            )
            edges[first + 1] = (
                Condition(name, ">", t, time=time),
                Interval(name, lower=t, time=time),
            )
        elif node_kind == ORDERED:
            cut = int(threshold[node]) + 1
            at = categories[cut - 1]
            below, above = categories[:cut], categories[cut:]
            edges[first] = (Condition(name, "<=", at), Membership(name, below, universe=categories))
            edges[first + 1] = (
                Condition(name, ">", at),
                Membership(name, above, universe=categories),
            )
        else:  # SUBSET: mask 1 = child 0, 0 = child 1, 2 = unseen at the node (as missing)
            offset = subset_offset[node]
            sides = subset_mask[offset : offset + len(categories)].tolist()
            left, right, unseen = (
                tuple(c for c, s in zip(categories, sides, strict=True) if s == side)
                for side in (1, 0, 2)
            )
            # A category the node never saw goes where its missing values go, if anywhere.
            left_in = left + unseen if missing_child[node] == 0 else left
            right_in = right + unseen if missing_child[node] == 1 else right
            edges[first] = (
                Condition(name, "in", left, other=right),
                Membership(name, left_in, universe=categories),
            )
            edges[first + 1] = (
                Condition(name, "not in", left, other=right),
                Membership(name, right_in, universe=categories),
            )
    surrogates = nodes["surrogate_len"].tolist() if "surrogate_len" in nodes else []
    for node, taken in enumerate(missing_child):
        if taken == -1:  # a leaf, or C4.5's fractions
            continue
        if node < len(surrogates) and surrogates[node] > 0:
            _route(edges, nodes, node, features)
            continue
        if taken == STAYS:  # no child takes a missing value
            continue
        child = first_child[node] + taken
        condition, precondition = edges[child]
        assert not isinstance(precondition, Routed)  # only `_route` makes those
        edges[child] = (condition, replace(precondition, missing=True))
    return edges


def _route(
    edges: dict[int, tuple[Condition, Precondition]],
    nodes: dict[str, NDArray[Any]],
    node: int,
    features: Sequence[Feature],
) -> None:
    """The preconditions into a split's children made `Routed` by its surrogates."""
    first, n_children = int(nodes["first_child"][node]), int(nodes["n_children"][node])
    taken = int(nodes["missing_child"][node])
    known, chain = _routing(nodes, node, features)
    for k in range(n_children):
        condition, precondition = edges[first + k]
        assert not isinstance(precondition, Routed)  # one node's children, routed once
        test = replace(precondition, missing=False)
        if isinstance(test, Membership):  # a subset's unseen categories go by surrogates
            can_send = known[0].categories or ()
            test = replace(test, categories=tuple(c for c in test.categories if c in can_send))
        sends = tuple((surrogate_known, to_child(k)) for surrogate_known, to_child in chain)
        edges[first + k] = (condition, Routed(test, known, sends, k == taken, node))


def _routing(
    nodes: dict[str, NDArray[Any]], node: int, features: Sequence[Feature]
) -> tuple[tuple[Known, ...], list[tuple[Known, Callable[[int], Interval | Membership | bool]]]]:
    """What a split needs to send a row itself, and its surrogates in rank order."""
    if int(nodes["kind"][node]) == OBLIQUE:
        known = tuple(Known(name) for name, _ in linear_terms(nodes, node, features))
    else:
        known = (_known(nodes, node, features[int(nodes["feature"][node])]),)
    if "surrogate_offset" not in nodes or int(nodes["surrogate_len"][node]) == 0:
        return known, []
    start = int(nodes["surrogate_offset"][node])
    chain = [
        _surrogate(nodes, s, features[int(nodes["surrogate_feature"][s])])
        for s in range(start, start + int(nodes["surrogate_len"][node]))
    ]
    return known, chain


def unsent(nodes: dict[str, NDArray[Any]], node: int, features: Sequence[Feature]) -> Routed:
    """The precondition of the rows that stay at a split (`missing_child` -2): neither the
    split nor any surrogate can send them."""
    known, chain = _routing(nodes, node, features)
    surrogates = tuple((surrogate, False) for surrogate, _ in chain)
    return Routed(None, known, surrogates, default=True, node=node)


def _known(nodes: dict[str, NDArray[Any]], node: int, feature: Feature) -> Known:
    """What a split on `feature` can send: any number, or the categories it gives a child
    (a subset split's categories seen at the node, a multiway split's every category)."""
    if feature.categories is None:
        return Known(feature.name)
    if int(nodes["kind"][node]) == SUBSET:
        offset = int(nodes["subset_offset"][node])
        sides = nodes["subset_mask"][offset : offset + len(feature.categories)].tolist()
        seen = tuple(c for c, side in zip(feature.categories, sides, strict=True) if side != 2)
        return Known(feature.name, seen)
    return Known(feature.name, tuple(feature.categories))


def _surrogate(
    nodes: dict[str, NDArray[Any]], s: int, feature: Feature
) -> tuple[Known, Callable[[int], Interval | Membership | bool]]:
    """Surrogate `s`: what it can send, and for a child index the test that sends a row
    there (True / False: all / none of what it can send)."""
    at = int(nodes["surrogate_map"][s])
    name = feature.name
    if feature.categories is None:
        t = float(nodes["surrogate_threshold"][s])
        low, high = (int(c) for c in nodes["surrogate_children"][at : at + 2])

        def numeric(k: int) -> Interval | bool:
            if low == k and high == k:
                return True
            if low == k:
                return Interval(name, upper=t, time=feature.time)
            return Interval(name, lower=t, time=feature.time) if high == k else False

        return Known(name), numeric
    categories = feature.categories
    children = nodes["surrogate_children"][at : at + len(categories)].tolist()
    directed = tuple(c for c, child in zip(categories, children, strict=True) if child >= 0)

    def categorical(k: int) -> Membership | bool:
        here = tuple(c for c, child in zip(categories, children, strict=True) if child == k)
        if not here:
            return False
        return True if len(here) == len(directed) else Membership(name, here, universe=categories)

    return Known(name, directed), categorical


def _surrogate_text(sends: Interval | Membership | bool, decimals: int, limit: int | None) -> str:
    if isinstance(sends, bool):
        return "yes" if sends else "no"
    return sends.to_text(decimals, limit)


def _sql_bool(value: Interval | Membership | bool, dialect: SqlDialectName) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return f"({value.to_sql(dialect=dialect)})"


def node_predictions(nodes: dict[str, NDArray[Any]], labels: Sequence[Any] | None) -> list[Any]:
    """Each node's class label, or its mean target for a regression tree; a multi-output
    tree's as a tuple of its outputs' (`labels` then holds each output's labels)."""
    if nodes["label"].ndim == 2:
        if labels is None:
            return [tuple(row) for row in nodes["value"].tolist()]
        return [tuple(labels[k][c] for k, c in enumerate(row)) for row in nodes["label"].tolist()]
    if labels is None:
        return nodes["value"][:, 0].tolist()
    return [labels[code] for code in nodes["label"].tolist()]
