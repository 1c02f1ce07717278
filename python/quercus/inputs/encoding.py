"""A frame or matrix encoded as the core's columns: the features inferred at fit (numeric,
categorical, ordered) and every later X encoded through the fit's schema (`transform`), with
the fill values of `missing="impute_mean"` applied.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .code_maps import UNSEEN, categorical_map
from .frames import as_frame
from .schema import Feature, Kind, Ordinals, Schema
from .sparse import check_numeric_width, is_sparse, sparse_columns
from .temporal import on_fit_scale, time_of
from .values import CHECK_BLOCK, check_finite, enum_dtype, numeric_column, series_numbers

if TYPE_CHECKING:
    from .._core import Column


def missing_mask(column: Column) -> NDArray[np.bool_] | None:
    """Where a core column is missing (NaN, or the categorical missing flag); None for a
    sparse column, which cannot hold missing values (and would need a mask as long as X)."""
    if column[0] == "numeric":
        return np.isnan(column[1])
    if column[0] == "sparse":
        return None
    return np.asarray(column[2], dtype=bool)


def fill_column(column: Column, feature: Feature) -> Column:
    """`column` with its missing cells set to `feature.fill` (unchanged without a fill)."""
    fill: Any = feature.fill
    if fill is None:
        return column
    mask = missing_mask(column)
    if mask is None or not mask.any():
        return column
    if column[0] == "numeric":
        # A float64 fill (a NumPy scalar), so a float32 column is filled as its float64 copy.
        return ("numeric", np.where(mask, np.float64(fill), column[1]))
    _, codes, _, n_categories, ordered = column
    assert feature.categories is not None  # a categorical column's feature
    code = feature.categories.index(fill)
    filled = np.where(mask, code, codes).astype(np.uint32)
    return ("categorical", filled, np.zeros(len(filled), dtype=bool), n_categories, ordered)


def transform(X: Any, schema: Schema) -> list[Column]:
    """Encode X for a fitted tree: Polars columns by name, categories by the fit-time lists.

    A LazyFrame is collected with only the columns the tree reads."""
    if isinstance(X, pl.LazyFrame):
        _check_present(X.collect_schema().names(), schema)
        X = X.select(schema.names).collect()
    columns = encode(as_frame(X), schema)
    if any(feature.fill is not None for feature in schema.features):
        columns = [fill_column(c, f) for c, f in zip(columns, schema.features, strict=True)]
    return columns


def feature_kind(series: pl.Series) -> Kind:
    kind = dtype_kind(series.dtype)
    if kind is None:
        raise TypeError(f"column {series.name!r} has unsupported dtype {series.dtype}")
    return kind


def dtype_kind(dtype: pl.DataType) -> Kind | None:
    """The kind of feature a column of `dtype` holds; None for a dtype quercus cannot read."""
    if (
        dtype.is_integer()
        or dtype.is_float()
        or dtype.is_decimal()
        or isinstance(dtype, (pl.Date, pl.Datetime, pl.Duration, pl.Time))
    ):
        return "numeric"
    if isinstance(dtype, (pl.String, pl.Categorical, pl.Enum, pl.Boolean)):
        return "categorical"
    return None


def infer_features(
    frame: pl.DataFrame | NDArray[np.float64] | Any, ordinal: Ordinals
) -> tuple[Feature, ...]:
    """Each column's feature: numeric, nominal, or ordinal when `ordinal` names it. A NumPy
    or sparse X has numeric features only, named x0, x1, ..."""
    if not isinstance(frame, pl.DataFrame):
        if ordinal:
            raise ValueError(
                "ordinal_features names columns, but a NumPy or sparse X has only numeric "
                "ones; pass a Polars or pandas DataFrame with the categorical columns"
            )
        return tuple(Feature(f"x{j}") for j in range(frame.shape[1]))
    absent = [name for name in ordinal if name not in frame.columns]
    if absent:
        raise ValueError(
            f"ordinal_features names {', '.join(map(repr, absent))}, which X does not have"
        )
    features = []
    for series in frame.iter_columns():
        name = series.name
        if series.dtype == pl.Null and name not in ordinal:
            # A column of nulls only (Polars's dtype Null): every row missing, as scikit-learn
            # reads a pandas column of None; numeric, since nothing says otherwise.
            features.append(Feature(name))
        elif feature_kind(series) == "numeric":
            if name in ordinal:
                raise ValueError(
                    f"ordinal_features names {name!r}, which is numeric (dtype "
                    f"{series.dtype}): numbers are ordered already"
                )
            features.append(Feature(name, time=time_of(series.dtype)))
        elif name in ordinal:
            order = ordinal[name]
            categories = (
                column_categories(series) if order is None else _checked_order(series, order)
            )
            features.append(Feature(name, tuple(categories), ordered=True))
        else:
            features.append(Feature(name, tuple(column_categories(series))))
    return tuple(features)


def _checked_order(series: pl.Series, order: tuple[str, ...]) -> tuple[str, ...]:
    """An explicit category order for `series`: distinct, and holding every value it has."""
    if len(set(order)) != len(order):
        raise ValueError(f"ordinal_features[{series.name!r}] lists a category twice: {order}")
    seen = set(series.drop_nulls().unique().cast(pl.String).to_list())
    lacking = sorted(seen - set(order))
    if lacking:
        raise ValueError(
            f"ordinal_features[{series.name!r}] lacks categories that column "
            f"{series.name!r} holds: {', '.join(map(repr, lacking[:10]))}"
        )
    return order


def column_categories(series: pl.Series) -> list[str]:
    """Fit-time categories: an Enum's order, [false, true], else sorted so row order is moot.
    The order matters only to an ordinal feature; a nominal one splits by subsets."""
    if isinstance(series.dtype, pl.Enum):
        return series.dtype.categories.to_list()
    if series.dtype == pl.Boolean:
        return ["false", "true"]
    # Distinct values first, then their labels: a Categorical's unique codes cost a third
    # of casting its every row to text (a 1M-row column: 11 against 25 ms).
    return series.drop_nulls().unique().cast(pl.String).sort().to_list()


def encode(frame: pl.DataFrame | NDArray[np.float64] | Any, schema: Schema) -> list[Column]:
    features = schema.features
    if not isinstance(frame, pl.DataFrame):
        check_numeric_width(frame.shape[1], schema)
        if is_sparse(frame):
            return sparse_columns(frame, schema.names)
        return _matrix_columns(frame, schema.names)
    frame = _by_position(frame, schema)
    _check_present(frame.columns, schema)
    columns: list[Column] = []
    for feature in features:
        series = frame.get_column(feature.name)
        if series.dtype == pl.Null:
            # Polars's dtype for a column of nulls only (a batch where a value is never
            # given): every row missing, read as the fit's kind of column
            series = series.cast(pl.Float64 if feature.kind == "numeric" else pl.String)
        kind = feature_kind(series)
        if kind != feature.kind:
            raise TypeError(
                f"column {feature.name!r} was {feature.kind} at fit but is {kind} "
                f"(dtype {series.dtype}) now"
            )
        if feature.categories is None:
            series = on_fit_scale(series, feature.time)
            columns.append(numeric_column(feature.name, series_numbers(series)))
        else:
            codes, missing = category_codes(series, feature.categories)
            columns.append(
                ("categorical", codes, missing, len(feature.categories), feature.ordered)
            )
    return columns


def _mapped(
    physical: pl.Series, through: NDArray[np.uint32]
) -> tuple[NDArray[np.uint32], NDArray[np.bool_]]:
    """`category_codes` of a Categorical's physical codes through `through` (a code past it,
    or one it maps to `UNSEEN`, is missing, as a null is)."""
    nulls = physical.null_count() > 0
    raw = (physical.fill_null(0) if nulls else physical).to_numpy()
    codes = np.append(through, np.uint32(UNSEEN)).take(np.minimum(raw, len(through)))
    missing = codes == UNSEEN
    if nulls:
        missing |= physical.is_null().to_numpy()
    codes[missing] = 0
    return codes, missing


def dense_column(column: Column) -> Column:
    """A sparse column as the numeric column it stands for (one column made dense, for code
    that reads whole columns: rule sets); any other column as it is."""
    if column[0] != "sparse":
        return column
    _, rows, values, start, stop, n_rows = column
    dense = np.zeros(n_rows)
    dense[rows[start:stop]] = values[start:stop]
    return ("numeric", dense)


def _by_position(frame: pl.DataFrame, schema: Schema) -> pl.DataFrame:
    """`frame` with the fit's names when the tree was fit on a matrix and `frame` has the
    matrix's width but not its x0, x1, ... names: read by position, as scikit-learn does,
    which warns in these words."""
    names = schema.names
    if not schema.by_position or frame.width != len(names) or set(names) <= set(frame.columns):
        return frame
    warnings.warn(
        "X has feature names, but the tree was fitted without feature names; its columns "
        "are read by position",
        UserWarning,
        stacklevel=7,  # predict's caller: predict, _rows, _columns, transform, encode
    )
    return frame.rename(dict(zip(frame.columns, names, strict=True)))


def _check_present(columns: list[str], schema: Schema) -> None:
    present = set(columns)
    absent = [name for name in schema.names if name not in present]
    if absent:
        raise ValueError(f"X lacks the column(s) {', '.join(map(repr, absent))} seen at fit")


def _matrix_columns(matrix: NDArray[np.floating], names: Sequence[str]) -> list[Column]:
    """The columns of a float32 or float64 matrix (`numeric_matrix`), read in place: a
    column-major one's are contiguous; a row-major one's are strided views, passed with the
    matrix's flat view, the column's start in it and the row length, which the core reads
    as they lie."""
    if matrix.flags.f_contiguous:
        return [numeric_column(name, matrix[:, j]) for j, name in enumerate(names)]
    flat = matrix.reshape(-1)
    width = matrix.shape[1]
    # A column of a row-major matrix is a strided view, slow to scan alone: the rows are
    # scanned a block at a time, and only a matrix holding an infinity column by column,
    # to name the first column that holds one.
    rows = max(1, CHECK_BLOCK // max(width, 1))
    if any(np.isinf(matrix[s : s + rows]).any() for s in range(0, len(matrix), rows)):
        for j, name in enumerate(names):
            check_finite(name, matrix[:, j])
    return [("numeric", matrix[:, j], flat, j, width) for j in range(len(names))]


def category_codes(
    series: pl.Series, categories: list[str] | tuple[str, ...]
) -> tuple[NDArray[np.uint32], NDArray[np.bool_]]:
    """Codes into the fit-time categories; nulls and unseen values are flagged missing."""
    if isinstance(series.dtype, pl.Categorical):
        # Its physical codes through a map to the fit's: a third of the cast of its every
        # row to text and then to the fit's Enum (a 1M-row column: 27 -> 9 ms).
        through = categorical_map(tuple(categories), series.dtype.categories, len(series))
        if through is not None:
            return _mapped(series.to_physical(), through)
    enum = enum_dtype(tuple(categories))
    if series.dtype != enum:
        # Through the fit's Enum: an unseen value becomes null (3-4x faster than a lookup
        # table of the categories).
        series = series.cast(pl.String).cast(enum, strict=False)
    physical = series.to_physical()
    if series.null_count() == 0:
        # As few Polars calls as possible: each costs tens of µs, most of a one-row predict.
        codes = physical.to_numpy().astype(np.uint32, copy=False)
        return codes, np.zeros(len(codes), dtype=np.bool_)
    return physical.fill_null(0).cast(pl.UInt32).to_numpy(), physical.is_null().to_numpy()
