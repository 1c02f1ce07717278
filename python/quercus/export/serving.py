"""Serving a fitted tree where Python is not wanted: ONNX and treelite.

`to_onnx` writes the tree as one `ai.onnx.ml` `TreeEnsemble` operator (opset 5), which
tests numeric thresholds (`BRANCH_LEQ`), category subsets (`BRANCH_MEMBER`) and one category
(`BRANCH_EQ`, a multiway split becoming a chain of them), and sends a missing value (NaN)
down one side per node (`nodes_missing_value_tracks_true`). Its leaves output the leaf's
position; standard operators then look up the leaf's class probabilities and label (or its
mean) in tables, so one tree serves `predict` and `predict_proba` exactly: thresholds,
probabilities and values are float64, and onnxruntime reproduces quercus's predictions
(tested).

The ONNX model takes one float64 (or float32) matrix `X`, the fitted features in order, a
categorical feature as its category's position in the fit's category list and NaN for a
missing or unseen one; `onnx_input(model, X)` encodes any X quercus accepts that way.
Fill values (`missing="impute_mean"`) are applied inside the graph.

What a single direction per node cannot express is refused with a clear error: C4.5's
fractions (`missing="fractional"`, which follow every branch), surrogate splits (which read
other features), and oblique splits (a linear combination of features). `to_treelite` builds
the same tree with treelite's model builder (numeric and categorical tests), for TL2cgen to
compile to C. `register_skl2onnx` lets skl2onnx convert a scikit-learn Pipeline that ends in
a quercus tree.

`onnx` (and `onnxruntime` to run the result), `treelite` and `skl2onnx` are optional
extras (`pip install "quercus[onnx]"`, `"quercus[treelite]"`), imported only here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._core import LEAF, NUMERIC, OBLIQUE, ORDERED, SUBSET
from ..explain.rules import STAYS
from ..inputs.validation import dense_column, n_rows_of, transform

if TYPE_CHECKING:
    from ..estimators.fitted import FittedTree

__all__ = ["onnx_input", "register_skl2onnx", "to_onnx", "to_treelite"]

# ai.onnx.ml's TreeEnsemble node modes.
_LEQ, _EQ, _MEMBER = 0, 4, 6
_ML_OPSET = 5  # the first ai.onnx.ml opset with TreeEnsemble
_ONNX_OPSET = 21
# skl2onnx (1.20) writes ai.onnx.ml up to opset 3: TreeEnsembleRegressor, no set tests.
_SKL2ONNX_ML_OPSET = 3


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


def _state(model: Any) -> FittedTree:
    return model._state  # raises NotFittedError for an unfitted model


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
    state = _state(model)
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
class _Binary:
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
class _Test:
    """One binary test of a node, its branches naming a child of the node (by index among
    its children) or the node's next test (NEXT)."""

    mode: int
    split: float
    members: tuple[float, ...]
    yes: int
    no: int
    missing_true: bool


_NEXT = -1


def _check_servable(state: FittedTree, nodes: dict[str, NDArray[Any]]) -> None:
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
                f"node {q} keeps the rows it cannot send (rpart: its two sides hold equal "
                "weight, so no majority side takes a missing value), where the serving "
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
) -> list[_Test]:
    """A node's tests, in order. `sides` is a SUBSET node's mask (1: first child, 0: second,
    2: unseen at the node, which goes where its missing values go); without `members`, a
    subset becomes a chain of `code == c` tests (the older operator set has no set test)."""
    if kind in (NUMERIC, ORDERED):  # `x <= t` (an ordered category: its code <= t)
        return [_Test(_LEQ, threshold, (), 0, 1, missing == 0)]
    if kind == SUBSET:
        passing = [
            float(c) for c, side in enumerate(sides) if side == 1 or (side == 2 and missing == 0)
        ]
        if members:
            return [_Test(_MEMBER, 0.0, tuple(passing), 0, 1, missing == 0)]
        chain = [_Test(_EQ, code, (), 0, _NEXT, False) for code in passing]
        chain[0] = replace(chain[0], missing_true=missing == 0)
        chain[-1] = replace(chain[-1], no=1)
        return chain
    # MULTIWAY: `code == 0`, `== 1`, ... in a chain; the last category is what is left. A
    # separate child for missing values (one child more than categories) is asked first.
    tests = []
    if n_children > n_categories:
        tests.append(_Test(_LEQ, np.inf, (), _NEXT, n_categories, False))  # known?
    if n_categories == 1:  # nothing to tell apart, but a missing value may go elsewhere
        return [*tests, _Test(_EQ, 0.0, (), 0, 0, missing == 0)]
    for code in range(n_categories - 1):
        last = code == n_categories - 2
        no = n_categories - 1 if last else _NEXT
        tests.append(_Test(_EQ, float(code), (), code, no, missing == code))
    return tests


def _binary(state: FittedTree, members: bool = True) -> _Binary:
    """The tree as binary tests, or NotServableError naming the node that cannot be."""
    nodes = state.nodes()
    _check_servable(state, nodes)
    kind = nodes["kind"].tolist()
    first = nodes["first_child"].tolist()
    feature = nodes["feature"].tolist()
    mask = nodes["subset_mask"].tolist()
    offset = nodes["subset_offset"].tolist()
    n_categories = [len(f.categories or ()) for f in state.schema.features]
    tests: dict[int, list[_Test]] = {}
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
    out = _Binary([], [], [], [], [], [], [], [], [], leaves)
    if not tests:  # a single leaf: one test whose branches both reach it
        out.mode, out.feature, out.split, out.members = [_LEQ], [0], [0.0], [[]]
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
    if to == _NEXT:
        return start[q] + i + 1, False
    child = first[q] + to
    return (leaf_at[child], True) if child in leaf_at else (start[child], False)


# --- ONNX ------------------------------------------------------------------------------------


def to_onnx(
    model: Any, *, dtype: Any = np.float64, ml_opset: int = _ML_OPSET, name: str | None = None
) -> Any:
    """The fitted model as an ONNX model: one ``ai.onnx.ml`` TreeEnsemble operator.

    Numeric tests are ``x <= t`` (``BRANCH_LEQ``), category subsets ``BRANCH_MEMBER``,
    multiway splits chains of ``BRANCH_EQ``; a missing value (NaN) takes one side per node.
    The leaves give the leaf's position, and standard operators look up its probabilities
    and label (or mean) in float64 tables, so onnxruntime predicts exactly what quercus
    predicts.

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        The fitted model.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        The type of the input ``X`` (float32 is cast to float64 inside: every float32 is a
        float64 exactly).
    ml_opset : {5, 3}, default=5
        3 writes the older ``TreeEnsembleRegressor`` (for runtimes and converters that stop
        at ai.onnx.ml 3, such as skl2onnx), category subsets as chains of ``==`` tests.
    name : str, optional
        The graph's name (default ``quercus_<class name>``).

    Returns
    -------
    onnx.ModelProto
        Input ``X`` (n, n_features) as :func:`onnx_input` encodes it. Outputs: a
        classifier's ``label`` (as the class labels' type) and ``probabilities`` (float64,
        columns in ``classes_`` order; with a cost matrix ``label`` is the class of least
        expected cost); a regressor's ``variable`` (float64, shape (n,)).

    Raises
    ------
    NotServableError
        A tree with C4.5's fractions, surrogate splits or oblique splits.
    ValueError
        Another ``dtype`` or ``ml_opset``.
    ImportError
        Without the ``onnx`` package (``pip install "quercus[onnx]"``).

    Examples
    --------
    >>> import onnxruntime
    >>> import quercus
    >>> from quercus import serving
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.DecisionTreeClassifier(missing="learned").fit(X, y)
    >>> session = onnxruntime.InferenceSession(serving.to_onnx(model).SerializeToString())
    >>> labels, proba = session.run(None, {"X": serving.onnx_input(model, X)})
    >>> (labels == model.predict(X)).all(), (proba == model.predict_proba(X)).all()
    (np.True_, np.True_)
    """
    import onnx
    from onnx import TensorProto, helper

    state = _state(model)
    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float64 or float32; got {np.dtype(dtype)}")
    n_features = len(state.schema.features)
    input_type = TensorProto.FLOAT if np.dtype(dtype) == np.float32 else TensorProto.DOUBLE
    inputs = [helper.make_tensor_value_info("X", input_type, [None, n_features])]
    if ml_opset not in (3, _ML_OPSET):
        raise ValueError(f"ml_opset must be 3 or {_ML_OPSET}; got {ml_opset!r}")
    nodes, outputs = _onnx_nodes(
        state, "X", np.dtype(dtype), getattr(model, "cost_matrix", None), ml_opset
    )
    graph_outputs = [
        helper.make_tensor_value_info(out_name, out_type, shape)
        for out_name, out_type, shape in outputs
    ]
    graph = helper.make_graph(
        nodes, name or f"quercus_{type(model).__name__}", inputs, graph_outputs
    )
    onnx_model = helper.make_model(
        graph,
        opset_imports=[
            helper.make_opsetid("", _ONNX_OPSET),
            helper.make_opsetid("ai.onnx.ml", ml_opset),
        ],
        producer_name="quercus",
    )
    onnx.checker.check_model(onnx_model)
    return onnx_model


def _onnx_nodes(
    state: FittedTree,
    source: str,
    dtype: np.dtype[Any],
    cost_matrix: Any,
    ml_opset: int = _ML_OPSET,
    prefix: str = "quercus_",
    outputs: tuple[str, ...] | None = None,
    float32_proba: bool = False,
) -> tuple[list[Any], list[tuple[str, int, list[Any]]]]:
    """The graph nodes computing the model from input `source`, and the outputs they make
    as (name, element type, shape); `outputs` renames them (skl2onnx picks the names).
    `ml_opset` 3 writes the older TreeEnsembleRegressor instead of TreeEnsemble;
    `float32_proba` gives the probabilities as float32, as skl2onnx's ZipMap takes them."""
    from onnx import TensorProto, helper, numpy_helper

    tree = _binary(state, members=ml_opset >= _ML_OPSET)
    nodes = state.nodes()
    made: list[Any] = []

    def name(text: str) -> str:
        return prefix + text

    def constant(label: str, array: NDArray[Any]) -> str:
        made.append(
            helper.make_node(
                "Constant",
                [],
                [name(label)],
                value=numpy_helper.from_array(array, name(label + "_value")),
            )
        )
        return name(label)

    x = source
    if dtype == np.float32:
        made.append(helper.make_node("Cast", [x], [name("X64")], to=TensorProto.DOUBLE))
        x = name("X64")
    fills = [f.fill for f in state.schema.features]
    if any(f is not None for f in fills):
        values = [
            np.nan
            if f is None
            else float(f)
            if feature.categories is None
            else float(feature.categories.index(str(f)))
            for f, feature in zip(fills, state.schema.features, strict=True)
        ]
        fill = constant("fills", np.array([values], dtype=np.float64))
        made.append(helper.make_node("IsNaN", [x], [name("missing")]))
        filled = np.isfinite(np.array(values))
        use = constant("fillable", filled.reshape(1, -1))
        made.append(helper.make_node("And", [name("missing"), use], [name("to_fill")]))
        made.append(helper.make_node("Where", [name("to_fill"), fill, x], [name("X_filled")]))
        x = name("X_filled")

    made.append(_ensemble(tree, x, name("leaf"), ml_opset))
    shape = constant("flat", np.array([-1], dtype=np.int64))
    made.append(helper.make_node("Reshape", [name("leaf"), shape], [name("leaf_flat")]))
    made.append(
        helper.make_node("Cast", [name("leaf_flat")], [name("leaf_id")], to=TensorProto.INT64)
    )
    leaves = np.array(tree.leaves, dtype=np.int64)
    value = nodes["value"][leaves].astype(np.float64)
    if state.classes is None:
        out = outputs[0] if outputs else "variable"
        table = constant("means", value[:, 0])
        made.append(helper.make_node("Gather", [table, name("leaf_id")], [out], axis=0))
        return made, [(out, TensorProto.DOUBLE, [None])]

    label_out, proba_out = outputs if outputs else ("label", "probabilities")
    totals = value.sum(axis=1, keepdims=True)
    proba = np.divide(value, totals, out=np.zeros_like(value), where=totals > 0)
    table = constant("probabilities_table", proba)
    made.append(helper.make_node("Gather", [table, name("leaf_id")], [name("proba")], axis=0))
    proba_type = TensorProto.FLOAT if float32_proba else TensorProto.DOUBLE
    made.append(helper.make_node("Cast", [name("proba")], [proba_out], to=proba_type))
    if cost_matrix is None:
        codes = constant("label_codes", nodes["label"][leaves].astype(np.int64))
        made.append(helper.make_node("Gather", [codes, name("leaf_id")], [name("code")], axis=0))
    else:
        costs = constant("costs", np.asarray(cost_matrix, dtype=np.float64))
        made.append(helper.make_node("MatMul", [name("proba"), costs], [name("expected_cost")]))
        made.append(
            helper.make_node("ArgMin", [name("expected_cost")], [name("code")], axis=1, keepdims=0)
        )
    labels, label_type = _label_table(state.classes)
    made.append(
        helper.make_node("Gather", [constant("labels", labels), name("code")], [label_out], axis=0)
    )
    n_classes = len(state.classes)
    return made, [
        (label_out, label_type, [None]),
        (proba_out, proba_type, [None, n_classes]),
    ]


def _ensemble(tree: _Binary, source: str, output: str, ml_opset: int) -> Any:
    """The tree operator: each row's leaf position, as float64 of shape (n, 1)."""
    from onnx import helper, numpy_helper

    def tensor(values: list[float], label: str, dtype: Any = np.float64) -> Any:
        return numpy_helper.from_array(np.array(values, dtype=dtype), label)

    n_tests, n_leaves = len(tree.mode), len(tree.leaves)
    positions = [float(p) for p in range(n_leaves)]
    if ml_opset >= _ML_OPSET:
        members: list[float] = []
        for mode, passing in zip(tree.mode, tree.members, strict=True):
            if mode == _MEMBER:
                members.extend([*passing, np.nan])  # each set ends with a NaN
        extra = {"membership_values": tensor(members, "membership_values")} if members else {}
        return helper.make_node(
            "TreeEnsemble",
            [source],
            [output],
            domain="ai.onnx.ml",
            n_targets=1,
            aggregate_function=1,  # SUM over the one tree
            post_transform=0,
            tree_roots=[0],
            nodes_modes=tensor(tree.mode, "nodes_modes", np.uint8),
            nodes_featureids=tree.feature,
            nodes_splits=tensor(tree.split, "nodes_splits"),
            nodes_truenodeids=tree.true_id,
            nodes_trueleafs=[int(b) for b in tree.true_leaf],
            nodes_falsenodeids=tree.false_id,
            nodes_falseleafs=[int(b) for b in tree.false_leaf],
            nodes_missing_value_tracks_true=[int(b) for b in tree.missing_true],
            leaf_targetids=[0] * n_leaves,
            leaf_weights=tensor(positions, "leaf_weights"),
            **extra,
        )

    # The older operator lists leaves as nodes of their own, after the tests.
    def node_id(position: int, leaf: bool) -> int:
        return n_tests + position if leaf else position

    names = {_LEQ: "BRANCH_LEQ", _EQ: "BRANCH_EQ"}
    return helper.make_node(
        "TreeEnsembleRegressor",
        [source],
        [output],
        domain="ai.onnx.ml",
        n_targets=1,
        aggregate_function="SUM",
        post_transform="NONE",
        nodes_treeids=[0] * (n_tests + n_leaves),
        nodes_nodeids=list(range(n_tests + n_leaves)),
        nodes_featureids=[*tree.feature, *[0] * n_leaves],
        nodes_modes=[*(names[m] for m in tree.mode), *["LEAF"] * n_leaves],
        nodes_values_as_tensor=tensor([*tree.split, *[0.0] * n_leaves], "nodes_values"),
        nodes_truenodeids=[
            *map(node_id, tree.true_id, tree.true_leaf),
            *[0] * n_leaves,
        ],
        nodes_falsenodeids=[
            *map(node_id, tree.false_id, tree.false_leaf),
            *[0] * n_leaves,
        ],
        nodes_missing_value_tracks_true=[*(int(b) for b in tree.missing_true), *[0] * n_leaves],
        target_treeids=[0] * n_leaves,
        target_nodeids=[n_tests + p for p in range(n_leaves)],
        target_ids=[0] * n_leaves,
        target_weights_as_tensor=tensor(positions, "target_weights"),
    )


def _label_table(classes: NDArray[Any]) -> tuple[NDArray[Any], int]:
    """The class labels as an ONNX tensor and its element type."""
    from onnx import TensorProto

    values = classes.tolist()
    if all(isinstance(v, bool | np.bool_) for v in values):
        return np.array(values, dtype=bool), TensorProto.BOOL
    if all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.int64), TensorProto.INT64
    if all(isinstance(v, float | np.floating) for v in values):
        return np.array(values, dtype=np.float64), TensorProto.DOUBLE
    return np.array([str(v) for v in values], dtype=object), TensorProto.STRING


# --- skl2onnx -------------------------------------------------------------------------------


def register_skl2onnx() -> None:
    """Teach skl2onnx to convert quercus's estimators.

    After it, ``skl2onnx.to_onnx(pipeline, X)`` converts a scikit-learn Pipeline ending in a
    quercus tree. Call it once; the converted classifier outputs ``label`` and
    ``probabilities`` (pass ``options={"zipmap": False}``, or keep skl2onnx's default ZipMap
    of probabilities).

    Raises
    ------
    ImportError
        Without skl2onnx.

    Examples
    --------
    >>> import numpy as np
    >>> import skl2onnx
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> import quercus
    >>> quercus.serving.register_skl2onnx()
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> pipeline = make_pipeline(StandardScaler(), quercus.DecisionTreeClassifier())
    >>> pipeline = pipeline.fit(X, [0, 0, 1, 1])
    >>> onnx_model = skl2onnx.to_onnx(pipeline, X, options={"zipmap": False})
    >>> [output.name for output in onnx_model.graph.output]
    ['label', 'probabilities']
    """
    from skl2onnx import update_registered_converter
    from skl2onnx.common.data_types import DoubleTensorType, FloatTensorType

    from ..tree import DecisionTreeClassifier, DecisionTreeRegressor

    def shape(operator: Any) -> None:
        model = operator.raw_operator
        n = operator.inputs[0].get_first_dimension()
        if model._estimator_type == "classifier":
            from skl2onnx.common.data_types import (
                Int64TensorType,
                StringTensorType,
            )

            labels, _ = _label_table(model.classes_)
            label_type = StringTensorType if labels.dtype == object else Int64TensorType
            operator.outputs[0].type = label_type([n])
            operator.outputs[1].type = FloatTensorType([n, len(model.classes_)])
        else:
            operator.outputs[0].type = DoubleTensorType([n])

    def convert(scope: Any, operator: Any, container: Any) -> None:
        model = operator.raw_operator
        source = operator.inputs[0]
        dtype = np.float32 if isinstance(source.type, FloatTensorType) else np.float64
        made, _ = _onnx_nodes(
            _state(model),
            source.full_name,
            np.dtype(dtype),
            getattr(model, "cost_matrix", None),
            ml_opset=_SKL2ONNX_ML_OPSET,
            prefix=scope.get_unique_variable_name("quercus") + "_",
            outputs=tuple(o.full_name for o in operator.outputs),
            float32_proba=True,  # skl2onnx's convention (its ZipMap reads float32)
        )
        for node in made:
            container.add_node(
                node.op_type,
                list(node.input),
                list(node.output),
                op_domain=node.domain,
                op_version=_SKL2ONNX_ML_OPSET
                if node.domain == "ai.onnx.ml"
                else container.target_opset_any_domain(node.domain),
                name=scope.get_unique_operator_name(node.op_type),
                **{a.name: _attribute(a) for a in node.attribute},
            )

    for cls, alias in (
        (DecisionTreeClassifier, "QuercusDecisionTreeClassifier"),
        (DecisionTreeRegressor, "QuercusDecisionTreeRegressor"),
    ):
        classifier = cls is DecisionTreeClassifier
        # skl2onnx's classifier options: ZipMap of the probabilities, and `nocl` (labels as
        # their positions); quercus writes the labels themselves either way.
        options = {"zipmap": [True, False, "columns"], "nocl": [False]} if classifier else None
        update_registered_converter(cls, alias, shape, convert, options=options)


def _attribute(attribute: Any) -> Any:
    from onnx import helper

    return helper.get_attribute_value(attribute)


# --- treelite ----------------------------------------------------------------------------------


def to_treelite(model: Any) -> Any:
    """The fitted model as a treelite model, for ``treelite.gtil`` or TL2cgen's C code.

    Built with treelite (>= 4)'s model builder. Categorical features take their category's
    position in the fit's list, as for :func:`to_onnx` (use :func:`onnx_input`).

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        The fitted model.

    Returns
    -------
    treelite.Model
        One tree; a classifier predicts its class probabilities (a leaf vector per leaf), a
        regressor its mean.

    Raises
    ------
    NotServableError
        A tree with C4.5's fractions, surrogate splits or oblique splits.
    ImportError
        Without the ``treelite`` package (``pip install "quercus[treelite]"``).

    Examples
    --------
    >>> import treelite
    >>> import quercus
    >>> from quercus import serving
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.DecisionTreeClassifier(missing="learned").fit(X, y)
    >>> proba = treelite.gtil.predict(serving.to_treelite(model), serving.onnx_input(model, X))
    >>> (proba[:, 0, :] == model.predict_proba(X)).all()
    np.True_
    """
    from treelite.model_builder import (
        Metadata,
        ModelBuilder,
        PostProcessorFunc,
        TreeAnnotation,
    )

    state = _state(model)
    tree = _binary(state)
    nodes = state.nodes()
    n_features = len(state.schema.features)
    classifier = state.classes is not None
    n_classes = len(state.classes) if state.classes is not None else 1
    builder = ModelBuilder(
        threshold_type="float64",
        leaf_output_type="float64",
        metadata=Metadata(
            num_feature=n_features,
            task_type="kMultiClf" if classifier else "kRegressor",
            average_tree_output=False,
            num_target=1,
            num_class=[n_classes],
            leaf_vector_shape=(1, n_classes),
        ),
        # A classifier's leaves hold every class's probability (class -1: all of them).
        tree_annotation=TreeAnnotation(
            num_tree=1, target_id=[0], class_id=[-1 if classifier else 0]
        ),
        postprocessor=PostProcessorFunc(name="identity"),
        base_scores=[0.0] * n_classes,
    )
    n_tests = len(tree.mode)
    value = nodes["value"].astype(np.float64)
    builder.start_tree()

    def key(position: int, leaf: bool) -> int:
        return n_tests + position if leaf else position

    single_leaf = all(tree.true_leaf) and len(tree.mode) == 1 and tree.true_id == tree.false_id
    if single_leaf:
        _treelite_leaf(builder, 0, value[tree.leaves[0]], classifier)
    else:
        for t in range(n_tests):
            builder.start_node(t)
            yes = key(tree.true_id[t], tree.true_leaf[t])
            no = key(tree.false_id[t], tree.false_leaf[t])
            if tree.mode[t] == _LEQ:
                builder.numerical_test(
                    feature_id=tree.feature[t],
                    threshold=tree.split[t],
                    default_left=tree.missing_true[t],
                    opname="<=",
                    left_child_key=yes,
                    right_child_key=no,
                )
            else:
                passing = (
                    [int(c) for c in tree.members[t]]
                    if tree.mode[t] == _MEMBER
                    else [int(tree.split[t])]
                )
                builder.categorical_test(
                    feature_id=tree.feature[t],
                    default_left=tree.missing_true[t],
                    category_list=passing,
                    category_list_right_child=False,
                    left_child_key=yes,
                    right_child_key=no,
                )
            builder.end_node()
        for position, q in enumerate(tree.leaves):
            _treelite_leaf(builder, n_tests + position, value[q], classifier)
    builder.end_tree()
    return builder.commit()


def _treelite_leaf(
    builder: Any, node_key: int, value: NDArray[np.float64], classifier: bool
) -> None:
    builder.start_node(node_key)
    if classifier:
        total = value.sum()
        builder.leaf((value / total if total > 0 else value).tolist())
    else:
        builder.leaf(float(value[0]))
    builder.end_node()
