"""The fitted tree as an ONNX model, for onnxruntime, and the converter skl2onnx uses.

`to_onnx` writes the tree as one `ai.onnx.ml` `TreeEnsemble` operator (opset 5), which
tests numeric thresholds (`BRANCH_LEQ`), category subsets (`BRANCH_MEMBER`) and one category
(`BRANCH_EQ`, a multiway split becoming a chain of them), and sends a missing value (NaN)
down one side per node (`nodes_missing_value_tracks_true`). Its leaves output the leaf's
position; standard operators then look up the leaf's class probabilities and label (or its
mean) in tables, so one tree serves `predict` and `predict_proba` exactly: thresholds,
probabilities and values are float64, and onnxruntime reproduces quercus's predictions
(tested). Fill values (`missing="impute_mean"`) are applied inside the graph.

`onnx` (and `onnxruntime` to run the result) is an optional extra (`pip install
"quercus[onnx]"`), imported only when a model is converted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .servable import EQ, LEQ, MEMBER, Binary, binary, check_servable, fitted_state

if TYPE_CHECKING:
    from ..fitted.state import FittedTree

_ML_OPSET = 5  # the first ai.onnx.ml opset with TreeEnsemble
_ONNX_OPSET = 21
# skl2onnx (1.20) writes ai.onnx.ml up to opset 3: TreeEnsembleRegressor, no set tests.
SKL2ONNX_ML_OPSET = 3


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
    state = fitted_state(model)
    check_servable(state, state.nodes())  # said first: with onnx installed or not
    import onnx
    from onnx import TensorProto, helper

    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float64 or float32; got {np.dtype(dtype)}")
    n_features = len(state.schema.features)
    input_type = TensorProto.FLOAT if np.dtype(dtype) == np.float32 else TensorProto.DOUBLE
    inputs = [helper.make_tensor_value_info("X", input_type, [None, n_features])]
    if ml_opset not in (3, _ML_OPSET):
        raise ValueError(f"ml_opset must be 3 or {_ML_OPSET}; got {ml_opset!r}")
    nodes, outputs = onnx_nodes(
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


def onnx_nodes(
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

    tree = binary(state, members=ml_opset >= _ML_OPSET)
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
    labels, label_type = label_table(state.classes)
    made.append(
        helper.make_node("Gather", [constant("labels", labels), name("code")], [label_out], axis=0)
    )
    n_classes = len(state.classes)
    return made, [
        (label_out, label_type, [None]),
        (proba_out, proba_type, [None, n_classes]),
    ]


def _ensemble(tree: Binary, source: str, output: str, ml_opset: int) -> Any:
    """The tree operator: each row's leaf position, as float64 of shape (n, 1)."""
    from onnx import helper, numpy_helper

    def tensor(values: list[float], label: str, dtype: Any = np.float64) -> Any:
        return numpy_helper.from_array(np.array(values, dtype=dtype), label)

    n_tests, n_leaves = len(tree.mode), len(tree.leaves)
    positions = [float(p) for p in range(n_leaves)]
    if ml_opset >= _ML_OPSET:
        members: list[float] = []
        for mode, passing in zip(tree.mode, tree.members, strict=True):
            if mode == MEMBER:
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

    names = {LEQ: "BRANCH_LEQ", EQ: "BRANCH_EQ"}
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


def label_table(classes: NDArray[Any]) -> tuple[NDArray[Any], int]:
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


def attribute_value(attribute: Any) -> Any:
    from onnx import helper

    return helper.get_attribute_value(attribute)
