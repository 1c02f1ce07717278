"""Trees as Polars expressions and SQL, and predictions as Polars columns
(`quercus.export.native` holds the code)."""

from __future__ import annotations

from .export.native import (
    Output,
    Predicting,
    check_output,
    class_labels,
    class_names,
    predict_expr,
    prediction_dtype,
    probabilities,
    tree_expr,
    tree_sql,
    values,
)

__all__ = ["predict_expr"]
