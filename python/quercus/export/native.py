"""Prediction where the data lives: Polars outputs, a Polars expression that runs the Rust
predictor on each batch of a (streaming) query, and the tree itself as a pure Polars
`when/then` expression or an SQL `CASE` expression.

Missing values in the pure renderings (`tree_expr`, `tree_sql`). A tree grown with
`missing="majority_branch"`, `"class_majority"`, `"separate"` or `"learned"` sends a row whose
tested value is missing to one child of each split (`missing_child`), and so do the
renderings: on such trees they predict exactly what `predict` does. A `"surrogate"` tree
sends it by the first surrogate split whose feature the row has, else to the majority child;
the renderings write that chain into each split's condition (`rules.Routed`), so they predict
what `predict` does too. The fractional tree (C4.5, the default) sends such a row down every branch
with C4.5's fractions and sums the leaves it reaches; one `when/then` (or `CASE`) value cannot
do that, so the renderings send it down the single branch that received the largest share of
the node's training weight (its largest `branch_fraction`, the first such branch on a tie).
"Missing" here is what the tree itself treats as missing at a node: null, NaN in a numeric
column, a category not seen at fit, and a category a CART subset node never saw while growing.
On rows where no tested value is missing the renderings predict exactly what `predict` does.

The renderings nest one `when/then` (`CASE`) per internal node, so their depth is the tree's:
fine for the trees people read, slow for trees thousands of levels deep.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
import polars as pl
from numpy.typing import NDArray

from ..explain.paths import STAYS, node_conditions, node_predictions
from ..explain.wording import SqlDialect
from ..inputs.schema import Classes, Schema
from ..inputs.targets import label_dtype

if TYPE_CHECKING:
    from polars.expr.whenthen import ChainedThen, Then

    from ..fitted.state import FittedTree


class Predicting(Protocol):
    """What `predict_expr` needs of a model: its fitted state and its predictions."""

    @property
    def _state(self) -> FittedTree: ...

    def predict(self, X: Any, *, output: str = ...) -> Any: ...

    def predict_proba(self, X: Any, *, output: str = ...) -> Any: ...


__all__ = ["predict_expr"]

Output = Literal["numpy", "polars"]
_OUTPUTS = ("numpy", "polars")


def check_output(output: Any) -> Output:
    if not isinstance(output, str) or output not in _OUTPUTS:
        raise ValueError(f"output must be 'numpy' or 'polars'; got {output!r}")
    return output  # type: ignore[return-value]


def class_labels(
    codes: NDArray[np.intp], classes: Classes, schema: Schema, output: Output
) -> NDArray[Any] | pl.Series | pl.DataFrame:
    """The labels of class `codes`: a NumPy array, or a Series named after the target with
    the target's dtype at fit (an Enum target stays that Enum). A multi-output tree's codes
    have one column per output: a (n_rows, n_outputs) array of the outputs' common dtype
    (numbers, or strings; object for a mix, so that no label changes type), or a DataFrame
    with one column per output."""
    if not isinstance(classes, list):
        if output == "numpy":
            return classes[codes]
        return _label_series(schema.target, schema.target_dtype, classes).gather(codes)
    per_output = zip(schema.outputs, schema.output_dtypes, classes, strict=True)
    if output == "polars":
        return pl.DataFrame(
            [
                _label_series(name, dtype, labels).gather(codes[:, k])
                for k, (name, dtype, labels) in enumerate(per_output)
            ]
        )
    kinds = {c.dtype.kind for c in classes}
    if kinds <= set("biuf") or kinds == {"U"}:
        common = np.result_type(*classes)
    else:  # no common type (strings and numbers, ...): Python objects, as they are
        common = np.dtype(object)
    labels = np.empty(codes.shape, dtype=common)
    for k, output_classes in enumerate(classes):
        labels[:, k] = output_classes[codes[:, k]]
    return labels


def values(predictions: NDArray[np.float64], schema: Schema, output: Output) -> Any:
    """Regression predictions as they are, or as a Float64 Series named after the target (a
    multi-output tree's: a DataFrame with one Float64 column per output)."""
    if output == "numpy":
        return predictions
    if schema.outputs:
        return pl.DataFrame(
            {name: predictions[:, k] for k, name in enumerate(schema.outputs)},
            schema=dict.fromkeys(schema.outputs, pl.Float64),
        )
    return pl.Series(schema.target, predictions, dtype=pl.Float64)


def probabilities(proba: NDArray[np.float64], classes: Classes, output: Output) -> Any:
    """Class probabilities as they are, or as a DataFrame with one column per class, named
    after the class labels (`str(label)`), in `classes_` order. A multi-output tree's come as
    scikit-learn gives them: a list with each output's."""
    if isinstance(classes, list):
        ends = np.cumsum([len(c) for c in classes])[:-1]
        return [
            probabilities(block, labels, output)
            for block, labels in zip(np.split(proba, ends, axis=1), classes, strict=True)
        ]
    if output == "numpy":
        return proba
    return pl.DataFrame(
        {name: proba[:, k] for k, name in enumerate(class_names(classes))},
        schema=dict.fromkeys(class_names(classes), pl.Float64),
    )


def class_names(classes: NDArray[Any]) -> list[str]:
    return [str(label) for label in classes.tolist()]


def _label_series(name: str, dtype: str | None, classes: NDArray[Any]) -> pl.Series:
    return pl.Series(name, classes.tolist(), dtype=label_dtype(dtype, classes))


def prediction_dtype(schema: Schema, classes: Classes | None) -> pl.DataType:
    """The dtype of `predict(..., output="polars")`; a multi-output tree's predictions as a
    struct of its outputs."""
    if isinstance(classes, list):
        outputs = zip(schema.outputs, schema.output_dtypes, classes, strict=True)
        return pl.Struct({name: label_dtype(dtype, labels) for name, dtype, labels in outputs})
    if schema.outputs:  # a multi-output regressor
        return pl.Struct(dict.fromkeys(schema.outputs, pl.Float64()))
    return pl.Float64() if classes is None else label_dtype(schema.target_dtype, classes)


def predict_expr(model: Predicting, *, proba: bool = False) -> pl.Expr:
    """A Polars expression computing ``model.predict`` on a frame's feature columns.

    It packs the features into a struct and runs quercus's predictor once per batch Polars
    hands it (``map_batches``, elementwise, so the streaming engine runs it on each morsel
    and never materialises the whole frame in Python). The expression holds a snapshot of
    the fitted model: refitting ``model`` later does not change it. It needs quercus
    wherever it runs; ``model.to_polars_expr()`` does not.

    Parameters
    ----------
    model : DecisionTreeClassifier or DecisionTreeRegressor
        The fitted model.
    proba : bool, default=False
        Classifiers: a struct of class probabilities, one Float64 field per class named
        after the label (``.struct.unnest()`` spreads it into columns).

    Returns
    -------
    polars.Expr
        Named after the target: ``df.with_columns(predict_expr(model))``, eager, lazy or
        streaming. A multi-output tree's predictions are a struct of its outputs.

    Raises
    ------
    NotFittedError
        An unfitted model (raised here, not when the query is collected).
    ValueError
        ``proba=True`` for a regressor or a multi-output tree.

    Examples
    --------
    >>> import polars as pl
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    >>> query = X.lazy().filter(pl.col("sugar") > 0.3).select(quercus.predict_expr(model))
    >>> query.collect(engine="streaming")["ripe"].to_list()
    ['yes', 'yes', 'yes', 'no']
    >>> proba = X.head(1).select(quercus.predict_expr(model, proba=True))
    >>> proba.unnest("ripe").row(0)
    (1.0, 0.0)
    """
    frozen = copy.copy(model)  # a refit assigns a new state; the snapshot keeps this one
    state = frozen._state  # an unfitted model fails here, not at collect time
    schema, classes = state.schema, state.classes
    if proba:
        if classes is None:
            raise ValueError("predict_expr(proba=True) needs a classifier")
        state.single_output("predict_expr(proba=True)")
        assert not isinstance(classes, list)
        dtype: pl.DataType = pl.Struct(dict.fromkeys(class_names(classes), pl.Float64))
    else:
        dtype = prediction_dtype(schema, classes)
    predict: Callable[..., Any] = getattr(frozen, "predict_proba" if proba else "predict")

    def run(batch: pl.Series) -> pl.Series:
        if batch.len() == 0:
            return pl.Series(schema.target, [], dtype=dtype)
        predicted = predict(batch.struct.unnest(), output="polars")
        if isinstance(predicted, pl.DataFrame):  # class probabilities, or several outputs
            return predicted.to_struct(schema.target)
        return predicted

    features = pl.struct([pl.col(name) for name in schema.names])
    return features.map_batches(run, return_dtype=dtype, is_elementwise=True).alias(schema.target)


# --- the tree as a pure expression --------------------------------------------------------------


def tree_expr(
    nodes: dict[str, NDArray[Any]], schema: Schema, labels: Sequence[Any] | None, dtype: Any
) -> pl.Expr:
    """The tree as nested `pl.when(...).then(...).otherwise(...)`, one level per internal
    node (the branch missing values take is the `otherwise`), named after the target and
    cast to `dtype` (the dtype `predict(..., output="polars")` returns; a multi-output
    tree's leaves are structs of the outputs' predictions)."""
    edges = node_conditions(nodes, schema.features)
    predictions = node_predictions(nodes, labels)
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    takes_missing = _missing_branches(nodes)

    def literal(prediction: Any) -> pl.Expr:
        if isinstance(prediction, tuple):  # several outputs: a struct, each field cast
            fields = zip(prediction, dtype.fields, strict=True)
            return pl.struct([pl.lit(v).cast(f.dtype).alias(f.name) for v, f in fields])
        return pl.lit(prediction)

    if n_children[0] == 0:  # a lone literal would make `select` return a single row
        return pl.repeat(literal(predictions[0]), pl.len()).cast(dtype).alias(schema.target)
    built: dict[int, pl.Expr] = {}
    stack = [(0, False)]  # post-order, without recursion: children first
    while stack:
        node, expanded = stack.pop()
        first = first_child[node]
        children = range(first, first + n_children[node])
        if not children:
            built[node] = literal(predictions[node])
        elif not expanded:
            stack.append((node, True))
            stack.extend((child, False) for child in children)
        else:
            chain: Then | ChainedThen | None = None
            for child in children:
                if child == takes_missing[node]:
                    continue
                test, then = edges[child][1].to_polars(), built.pop(child)
                chain = pl.when(test).then(then) if chain is None else chain.when(test).then(then)
            # The row no child takes stays here (rpart) or goes to the missing branch.
            stays = takes_missing[node] == node
            default = literal(predictions[node]) if stays else built.pop(takes_missing[node])
            built[node] = default if chain is None else chain.otherwise(default)
    return built[0].cast(dtype).alias(schema.target)


def tree_sql(
    nodes: dict[str, NDArray[Any]],
    schema: Schema,
    labels: Sequence[Any] | None,
    table: str | None,
    sql: SqlDialect,
) -> str:
    """The tree as nested `CASE WHEN ... THEN ... ELSE ... END`, one per internal node (the
    branch missing values take is the `ELSE`); with `table`, a whole
    `SELECT CASE ... END AS "target" FROM "table"`. Quoting and the columns expected are
    those of `RuleSet.to_sql`, in the dialect `sql`.

    A multi-output tree gives one `CASE` per output, each named after its output
    (`CASE ... END AS "a",\nCASE ... END AS "b"`): a select list, whole with `table`."""
    predictions = node_predictions(nodes, labels)
    if schema.outputs:
        cases = [
            f"{_case(nodes, schema, [p[k] for p in predictions], sql)} AS {sql.identifier(name)}"
            for k, name in enumerate(schema.outputs)
        ]
        selected = ",\n".join(cases)
        return selected if table is None else f"SELECT {selected}\nFROM {sql.identifier(table)}"
    case = _case(nodes, schema, predictions, sql)
    if table is None:
        return case
    return f"SELECT {case} AS {sql.identifier(schema.target)}\nFROM {sql.identifier(table)}"


def _case(
    nodes: dict[str, NDArray[Any]], schema: Schema, predictions: list[Any], sql: SqlDialect
) -> str:
    """The nested `CASE` of the tree with `predictions` (one per node) at its leaves."""
    edges = node_conditions(nodes, schema.features)
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    takes_missing = _missing_branches(nodes)
    lines: list[str] = []
    # Pre-order: a node (id, text before it, indent level) or a finished line (a str).
    stack: list[tuple[int, str, int] | str] = [(0, "", 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        node, prefix, level = item
        pad = "    " * level
        if n_children[node] == 0:
            lines.append(f"{pad}{prefix}{sql.value(predictions[node])}")
            continue
        lines.append(f"{pad}{prefix}CASE")
        stack.append(f"{pad}END")
        default = takes_missing[node]
        if default == node:  # a row no child takes stays here (rpart)
            stack.append(f"{pad}    ELSE {sql.value(predictions[node])}")
        else:
            stack.append((default, "ELSE ", level + 1))
        first = first_child[node]
        for child in range(first + n_children[node] - 1, first - 1, -1):
            if child != default:
                test = edges[child][1].to_sql(dialect=sql.name)
                stack.append((child, f"WHEN {test} THEN ", level + 1))
    return "\n".join(lines)


def _missing_branches(nodes: dict[str, NDArray[Any]]) -> list[int]:
    """For each internal node, where the renderings send a missing value: the node's missing
    child if it has one, the node itself where such a row stays there (rpart's split without
    a majority side, `missing_child` -2), else the child with the largest branch fraction
    (the first on a tie). -1 for leaves."""
    first_child = nodes["first_child"]
    n_children = nodes["n_children"]
    fraction = nodes["branch_fraction"]
    missing_child = nodes.get("missing_child", np.full(len(first_child), -1))
    chosen = np.full(len(first_child), -1, dtype=np.int64)
    for node in np.flatnonzero(n_children > 0).tolist():
        first = int(first_child[node])
        if missing_child[node] >= 0:
            chosen[node] = first + int(missing_child[node])
            continue
        if missing_child[node] == STAYS:
            chosen[node] = node
            continue
        chosen[node] = first + int(np.argmax(fraction[first : first + n_children[node]]))
    return chosen.tolist()
