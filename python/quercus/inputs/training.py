"""The data sets a fit is given, validated and encoded once: the training rows
(`training_data`) and held-out or extra rows read through the fit's schema (`labelled_data`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl
from numpy.typing import NDArray

from .encoding import encode, infer_features, transform
from .frames import as_frame, as_polars, pandas_orders
from .schema import Classes, LabelledData, Ordinals, Schema, TrainingData
from .targets import (
    check_target_scale,
    class_codes,
    class_targets,
    dtype_name,
    name_of,
    named_outputs,
    output_columns,
    regression_targets,
    single_column,
    stacked,
    warn_of_many_classes,
)
from .values import check_not_empty, n_rows_of
from .weights import sample_weights


def training_data(
    X: Any,
    y: Any,
    *,
    target: str | Sequence[str] | None,
    sample_weight: Any,
    classification: bool,
    ordinal: Ordinals | None = None,
) -> TrainingData:
    """Validate and encode a training set; `target` names the column(s) of a Polars X
    holding y (several: a multi-output y).

    y is 1-D, or 2-D with one column per output (a NumPy array, a Polars or pandas frame): a
    multi-output tree, as scikit-learn's. A 2-D y of one column is a 1-D y, as scikit-learn's
    trees read it.

    Categorical columns are nominal (split by category or subset) unless `ordinal` names them
    or they are pandas categoricals with `ordered=True`: those split by threshold on their
    categories' order."""
    ordinal = {**pandas_orders(X), **(ordinal or {})}
    frame = as_frame(X)
    if target is not None:
        if y is not None:
            raise ValueError("pass either y or target=, not both")
        if not isinstance(frame, pl.DataFrame):
            raise TypeError("target= names a column, so X must be a Polars DataFrame")
        names = [target] if isinstance(target, str) else list(target)
        absent = [name for name in names if name not in frame.columns]
        if absent or not names:
            raise ValueError(f"target column(s) {absent or names!r} not found in X")
        y = frame.get_column(target) if isinstance(target, str) else frame.select(names)
        frame = frame.drop(names)
        check_not_empty(frame.shape)
    elif y is None:
        raise ValueError(
            "fit requires y to be passed, but the target y is None "
            "(or name the target column of a Polars X with target=)"
        )
    y = single_column(as_polars(y))
    features = infer_features(frame, ordinal)
    columns_of_y = named_outputs(y)
    if columns_of_y is None:
        name = target if isinstance(target, str) else name_of(y)
        schema = Schema(
            features,
            name,
            dtype_name(y) if classification else None,
            by_position=not isinstance(frame, pl.DataFrame),
        )
        outputs = [y]
    else:
        outputs = [column for _, column in columns_of_y]
        dtypes = tuple(dtype_name(c) if classification else None for c in outputs)
        names = tuple(name for name, _ in columns_of_y)
        schema = Schema(
            features,
            "y",
            outputs=names,
            output_dtypes=dtypes,
            by_position=not isinstance(frame, pl.DataFrame),
        )
    columns = encode(frame, schema)
    n_rows = n_rows_of(columns)
    classes: Classes | None = None
    if classification:
        coded = [class_targets(column, n_rows) for column in outputs]
        targets: NDArray[Any] = stacked([codes for codes, _ in coded])
        labels = [labels for _, labels in coded]
        for output in labels:
            warn_of_many_classes(len(output), n_rows)
        classes = labels[0] if columns_of_y is None else labels
    else:
        targets = stacked([regression_targets(column, n_rows) for column in outputs])
    weights = sample_weights(sample_weight, n_rows)
    if not classification:
        check_target_scale(targets, weights)
    return TrainingData(columns, schema, targets, classes, weights)


def labelled_data(
    X: Any, y: Any, sample_weight: Any, schema: Schema, classes: Classes | None
) -> LabelledData:
    """X by the fit-time schema and y coded by the fit-time classes (None: regression), each
    output's by its own."""
    columns = transform(X, schema)
    n_rows = n_rows_of(columns)
    outputs = output_columns(y, n_rows, schema)
    if classes is None:
        targets = stacked([regression_targets(column, n_rows) for column in outputs])
    else:
        per_output = classes if isinstance(classes, list) else [classes]
        coded = zip(outputs, per_output, strict=True)
        targets = stacked([class_codes(column, n_rows, labels) for column, labels in coded])
    return LabelledData(columns, targets, sample_weights(sample_weight, n_rows))
