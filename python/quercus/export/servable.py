"""What a served model can hold: the fitted tree as binary tests with one direction per node.

ONNX (`export.onnx`) and treelite (`export.treelite`) both serve the tree as binary tests:
a multiway split becomes a chain of them, and a missing value (NaN) goes down one side per
node. What a single direction per node cannot express is refused with `NotServableError`:
C4.5's fractions (`missing="fractional"`, which follow every branch), surrogate splits
(which read other features) and oblique splits (a linear combination of features).

Both take one float matrix `X`, the fitted features in order, a categorical feature as its
category's position in the fit's category list and NaN for a missing or unseen one;
`onnx_input(model, X)` encodes any X quercus accepts that way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._core import LEAF, NUMERIC, OBLIQUE, ORDERED, SUBSET
from ..explain.paths import STAYS
from ..inputs.encoding import dense_column, transform
from ..inputs.values import n_rows_of

if TYPE_CHECKING:
    from ..fitted.state import FittedTree

# A test's mode: ai.onnx.ml's TreeEnsemble node modes, which treelite's builder reads too.
LEQ, EQ, MEMBER = 0, 4, 6


class NotServableError(ValueError):
    """The tree holds a test the serving format cannot express.

    C4.5's fractions (``missing="fractional"``, which follow every branch), surrogate
    splits (which read other features) and oblique splits (a linear combination of
    features); the message names the node and the strategy to refit with.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    >>> try:
    ...     model.to_onnx()
    ... except quercus.serving.NotServableError as error:
    ...     print(error)
    node 0 follows C4.5's fractions for a missing value (every branch, weighted), which one
    direction cannot express; refit with missing="learned" (or "majority_branch" or
    "separate") to serve it
    """


def fitted_state(model: Any) -> FittedTree:
    """The fitted state an export serves: with `laplace=True` (J48 -A) its leaves hold their
    Laplace estimates, the probabilities the classifier predicts (its classes unchanged)."""
    state = model._state  # raises NotFittedError for an unfitted model
    if getattr(model, "laplace", False) is True:
        return replace(state, tree=state.laplace_tree)
    return state


def onnx_input(model: Any, X: Any, dtype: Any = np.float64) -> NDArray[np.floating]:
    """X encoded as the ONNX (and treelite) model reads it.

    One row per sample, the fitted features in order, a category as its position in the
    fit's category list, NaN where a value is missing (or a category was not seen at fit).
    Fill values (``missing="impute_mean"``) are left to the graph.

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        The fitted model.
    X : array-like or DataFrame
        Rows as ``model.predict`` takes them.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        The matrix's type (as the ONNX model's ``dtype``).

    Returns
    -------
    numpy.ndarray of shape (n_rows, n_features)
        The encoded matrix.

    Raises
    ------
    NotFittedError
        An unfitted model.
    ValueError
        X does not match the training features.

    Examples
    --------
    >>> import quercus
    >>> from quercus import serving
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.DecisionTreeClassifier(missing="learned").fit(X, y)
    >>> serving.onnx_input(model, X[:2]).tolist()
    [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.697, 0.46], [1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.774, 0.376]]
    """
    state = fitted_state(model)
    raw = replace(
        state.schema, features=tuple(replace(f, fill=None) for f in state.schema.features)
    )
    columns = transform(X, raw)
    out = np.empty((n_rows_of(columns), len(columns)), dtype=np.float64)
    for j, column in enumerate(map(dense_column, columns)):  # ONNX reads a dense matrix
        if column[0] == "numeric":
            out[:, j] = column[1]
        else:
            out[:, j] = np.where(column[2], np.nan, column[1])
    return out.astype(dtype, copy=False)


# --- the tree as binary tests -----------------------------------------------------------------


@dataclass
class Binary:
    """The tree's internal nodes as binary tests (a multiway split becomes a chain), in the
    layout TreeEnsemble and treelite both read: a test's branches point at another test or
    at a leaf (a position among the tree's leaves)."""

    mode: list[int]
    feature: list[int]
    split: list[float]
    members: list[list[float]]  # per test: the codes that pass a BRANCH_MEMBER test
    true_id: list[int]
    true_leaf: list[bool]
    false_id: list[int]
    false_leaf: list[bool]
    missing_true: list[bool]  # a NaN takes the true branch
    leaves: list[int]  # quercus node id of each leaf position


@dataclass(frozen=True)
class Test:
    """One binary test of a node, its branches naming a child of the node (by index among
    its children) or the node's next test (NEXT)."""

    mode: int
    split: float
    members: tuple[float, ...]
    yes: int
    no: int
    missing_true: bool


NEXT = -1


def check_servable(state: FittedTree, nodes: dict[str, NDArray[Any]]) -> None:
    """NotServableError naming the first node whose test, or whose way with a missing value,
    one direction per node cannot express."""
    features = state.schema.features
    for q, k in enumerate(nodes["kind"].tolist()):
        if k == LEAF:
            continue
        if k == OBLIQUE:
            raise NotServableError(
                f"node {q} is an oblique split (a linear combination of features), which "
                'the serving formats cannot express; refit with splits="axis"'
            )
        if nodes["surrogate_len"][q] > 0:
            raise NotServableError(
                f"node {q} has surrogate splits, which read other features when its own is "
                'missing; refit with missing="learned" (or "majority_branch") to serve it'
            )
        if nodes["missing_child"][q] == STAYS:
            raise NotServableError(
                f"node {q} keeps the rows it cannot send (rpart: its two children hold as "
                "many training rows, so neither takes a missing value), where the serving "
                'formats end every row at a leaf; refit with missing="learned" to serve it'
            )
        # A feature with a fill value (missing="impute_mean") is never missing at a node.
        if nodes["missing_child"][q] < 0 and features[nodes["feature"][q]].fill is None:
            raise NotServableError(
                f"node {q} follows C4.5's fractions for a missing value (every branch, "
                'weighted), which one direction cannot express; refit with missing="learned"'
                ' (or "majority_branch" or "separate") to serve it'
            )


def _node_tests(
    kind: int,
    threshold: float,
    n_children: int,
    n_categories: int,
    sides: list[int],
    missing: int,
    members: bool,
) -> list[Test]:
    """A node's tests, in order. `sides` is a SUBSET node's mask (1: first child, 0: second,
    2: unseen at the node, which goes where its missing values go); without `members`, a
    subset becomes a chain of `code == c` tests (the older operator set has no set test)."""
    if kind in (NUMERIC, ORDERED):  # `x <= t` (an ordered category: its code <= t)
        return [Test(LEQ, threshold, (), 0, 1, missing == 0)]
    if kind == SUBSET:
        passing = [
            float(c) for c, side in enumerate(sides) if side == 1 or (side == 2 and missing == 0)
        ]
        if members:
            return [Test(MEMBER, 0.0, tuple(passing), 0, 1, missing == 0)]
        chain = [Test(EQ, code, (), 0, NEXT, False) for code in passing]
        chain[0] = replace(chain[0], missing_true=missing == 0)
        chain[-1] = replace(chain[-1], no=1)
        return chain
    # MULTIWAY: `code == 0`, `== 1`, ... in a chain; the last category is what is left. A
    # separate child for missing values (one child more than categories) is asked first.
    tests = []
    if n_children > n_categories:
        tests.append(Test(LEQ, np.inf, (), NEXT, n_categories, False))  # known?
    if n_categories == 1:  # nothing to tell apart, but a missing value may go elsewhere
        return [*tests, Test(EQ, 0.0, (), 0, 0, missing == 0)]
    for code in range(n_categories - 1):
        last = code == n_categories - 2
        no = n_categories - 1 if last else NEXT
        tests.append(Test(EQ, float(code), (), code, no, missing == code))
    return tests


def binary(state: FittedTree, members: bool = True) -> Binary:
    """The tree as binary tests, or NotServableError naming the node that cannot be."""
    nodes = state.nodes()
    check_servable(state, nodes)
    kind = nodes["kind"].tolist()
    first = nodes["first_child"].tolist()
    feature = nodes["feature"].tolist()
    mask = nodes["subset_mask"].tolist()
    offset = nodes["subset_offset"].tolist()
    n_categories = [len(f.categories or ()) for f in state.schema.features]
    tests: dict[int, list[Test]] = {}
    leaf_at: dict[int, int] = {}
    leaves: list[int] = []
    for q, k in enumerate(kind):
        if k == LEAF:
            leaf_at[q] = len(leaves)
            leaves.append(q)
            continue
        n = n_categories[feature[q]]
        sides = mask[offset[q] : offset[q] + n] if k == SUBSET else []
        tests[q] = _node_tests(
            k,
            float(nodes["threshold"][q]),
            int(nodes["n_children"][q]),
            n,
            sides,
            int(nodes["missing_child"][q]),
            members,
        )
    out = Binary([], [], [], [], [], [], [], [], [], leaves)
    if not tests:  # a single leaf: one test whose branches both reach it
        out.mode, out.feature, out.split, out.members = [LEQ], [0], [0.0], [[]]
        out.true_id, out.true_leaf, out.false_id, out.false_leaf = [0], [True], [0], [True]
        out.missing_true = [True]
        return out
    start, position = {}, 0
    for q, node_tests in tests.items():
        start[q] = position
        position += len(node_tests)

    for q, node_tests in tests.items():
        for i, test in enumerate(node_tests):
            yes, yes_leaf = _branch(test.yes, q, i, first, start, leaf_at)
            no, no_leaf = _branch(test.no, q, i, first, start, leaf_at)
            out.mode.append(test.mode)
            out.feature.append(feature[q])
            out.split.append(test.split)
            out.members.append(list(test.members))
            out.true_id.append(yes)
            out.true_leaf.append(yes_leaf)
            out.false_id.append(no)
            out.false_leaf.append(no_leaf)
            out.missing_true.append(test.missing_true)
    return out


def _branch(
    to: int, q: int, i: int, first: list[int], start: dict[int, int], leaf_at: dict[int, int]
) -> tuple[int, bool]:
    """Where branch `to` of test `i` of node `q` leads: (test position, False) or (leaf
    position, True)."""
    if to == NEXT:
        return start[q] + i + 1, False
    child = first[q] + to
    return (leaf_at[child], True) if child in leaf_at else (start[child], False)
