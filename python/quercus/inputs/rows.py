"""The rows a prediction reads, made as cheaply as the input allows: a few rows of a Polars frame
as one coded array (`small_frame`), a larger frame's columns read in place (`frame_rows`), a
pandas frame's columns read in place (`pandas_rows`).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .encoding import dtype_kind, feature_kind
from .frames import by_categories, pandas_labels
from .schema import Schema
from .temporal import on_fit_scale
from .values import enum_dtype, in_place

if TYPE_CHECKING:
    from .._core import CodedRows, FrameColumn, FrameRows

# A Polars frame of at most this many rows is encoded value by value (`small_frame`): one
# Polars call reads its rows and each category is a dict lookup, where encoding it column by
# column makes a few Polars calls per column (reading an Enum column's dtype alone costs tens
# of µs), far more than predicting a few rows.
SMALL_FRAME = 16


_NAN = float("nan")


# Tested with `in` (equality): cheaper per value than NumPy's test of the whole array.
_INFINITIES = (float("inf"), float("-inf"))


def small_frame(frame: pl.DataFrame, schema: Schema) -> CodedRows | None:
    """A small frame as the core's coded rows: numbers as they are, categories as their
    fit-time codes (missing or unseen: NaN), every feature in fit order. None when only the
    column-by-column encoding (`transform`) can tell what the frame holds, or word its error:
    a feature absent, a value its feature does not take (a string for a numeric feature, a
    date, ...), an infinity, or imputed features. A null reads as missing once its column's
    dtype is of its feature's kind."""
    encoders = schema.encoders
    if encoders is None or frame.height == 0:
        return None
    names = schema.names
    columns = frame.columns
    if columns == names:
        positions: Sequence[int] = range(len(names))
    else:
        where = {name: i for i, name in enumerate(columns)}
        positions = [where.get(name, -1) for name in names]
        if -1 in positions:
            return None
    values: list[float] = []
    append = values.append
    nan = _NAN
    checked: set[int] = set()
    for row in frame.rows():
        for p, encoder, feature in zip(positions, encoders, schema.features, strict=True):
            value = row[p]
            kind = type(value)
            if encoder is None and kind is float:  # the commonest value first
                if value in _INFINITIES:
                    return None
                append(value)
            elif value is None:
                if p not in checked:
                    try:
                        if feature_kind(frame.to_series(p)) != feature.kind:
                            return None
                    except TypeError:  # an unsupported dtype: `transform` says so
                        return None
                    checked.add(p)
                append(nan)
            elif encoder is None:
                if kind is int:
                    append(float(value))
                else:
                    return None
            elif kind is str:
                append(encoder.get(value, nan))
            elif kind is bool:  # a Boolean column's categories are "false" and "true"
                append(encoder.get("true" if value else "false", nan))
            else:
                return None
    array = np.array(values, dtype=np.float64).reshape(frame.height, len(names))
    return ("codes", array)


# A code that reads as missing: past every map and every feature's categories.
_UNSEEN = int(np.iinfo(np.uint32).max)


def frame_rows(frame: pl.DataFrame, schema: Schema) -> FrameRows | None:
    """A Polars frame as columns the core reads in place (`_core.FrameRows`): Float32 and
    Float64 numbers as they are (a null or NaN is missing), other numbers as float64, and
    categories as the frame's own physical codes with a map to the fit's codes (made once per
    feature and dtype, `_code_map`), so a frame costs no copy of its numbers and no cast of
    its categories. None when only `transform` can encode it (imputed features) or word its
    error (a feature absent, or of another kind or dtype than at fit)."""
    features = schema.features
    if any(feature.fill is not None for feature in features):
        return None
    dtypes = frame.schema
    kinds = [dtype_kind(dtypes.get(f.name, pl.Null())) for f in features]
    if any(kind != feature.kind for kind, feature in zip(kinds, features, strict=True)):
        return None
    # The Enum columns' codes in one query: a `to_physical` per column costs a query each
    # (about 30 us, most of the call's Python time on a frame with a few such columns).
    enums = [f.name for f in features if isinstance(dtypes[f.name], pl.Enum)]
    codes_of = frame.select(pl.col(enums).to_physical()).get_columns() if enums else []
    physical = dict(zip(enums, codes_of, strict=True))
    columns: list[FrameColumn] = []
    for feature in features:
        series = frame.get_column(feature.name)
        dtype = dtypes[feature.name]
        if feature.categories is None:
            if dtype not in (pl.Float32, pl.Float64):
                series = on_fit_scale(series, feature.time).cast(pl.Float64)
            if series.null_count():
                # Filled in Polars: `to_numpy` fills nulls several times slower.
                series = series.fill_null(_NAN)
            columns.append(("numeric", series.to_numpy()))
            continue
        code_map = None
        n_codes = len(feature.categories)
        if isinstance(dtype, pl.Enum):
            code_map = _code_map(feature.categories, tuple(dtype.categories.to_list()))
            if code_map is not None:
                n_codes = len(code_map)
            codes = physical[feature.name]
        else:
            # Through the fit's Enum: an unseen value becomes null.
            series = series.cast(pl.String).cast(enum_dtype(feature.categories), strict=False)
            codes = series.to_physical()
        if codes.null_count():
            codes = _fill_missing_code(codes, n_codes)
        columns.append(("codes", codes.to_numpy(), code_map, len(feature.categories)))
    return ("frame", columns, frame)


def _fill_missing_code(codes: pl.Series, n_codes: int) -> pl.Series:
    """Physical `codes` (of `n_codes` categories) with each null as a code past them, which
    the core reads as missing: the largest code of their own dtype where it is past the
    categories (no copy to a wider type), else `_UNSEEN` as UInt32."""
    largest = _LARGEST_CODE.get(codes.dtype)
    if largest is not None and largest >= n_codes:
        return codes.fill_null(largest)
    return codes.cast(pl.UInt32).fill_null(_UNSEEN)


# The largest value of each unsigned dtype Polars stores categories' codes in.
_LARGEST_CODE = {pl.UInt8: 2**8 - 1, pl.UInt16: 2**16 - 1, pl.UInt32: 2**32 - 1}


def is_pandas_frame(X: Any) -> bool:
    """Whether X is a pandas DataFrame; pandas is never imported unless the caller did."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(X, pd.DataFrame)


def pandas_rows(frame: Any, schema: Schema) -> FrameRows | None:
    """A pandas frame as columns the core reads in place, as `frame_rows` reads a Polars one
    (no Polars frame is built: that cost milliseconds for one row): float32 and float64
    columns as they are (NaN is missing), other NumPy integer columns as float64, and
    `category` columns as their codes with a map from the dtype's categories to the fit's
    (made once per feature and dtype). pandas gives a missing value code -1, which read as
    unsigned (255, 65,535 or 2**32 - 1) is past every category of its dtype: missing. None
    when only `transform` can encode the frame or word its error (a feature absent, of another
    kind or dtype, imputed features)."""
    import pandas as pd  # only reached with a pandas frame in hand

    features = schema.features
    if len(frame) == 0 or any(feature.fill is not None for feature in features):
        return None
    labels = frame.columns.tolist()
    if labels == schema.names:
        series = [s for _, s in frame.items()]
    else:
        by_name = {str(label): s for label, s in frame.items()}
        if len(by_name) != len(labels):
            return None  # two columns of one name: the encoding words it
        series = [by_name.get(name) for name in schema.names]
    columns: list[FrameColumn] = []
    maps = schema.pandas_maps
    for j, (feature, s) in enumerate(zip(features, series, strict=True)):
        if s is None:
            return None
        dtype = s.dtype
        if feature.categories is None:
            if not isinstance(dtype, np.dtype) or dtype.kind not in "fiu":
                return None
            values = s.to_numpy(dtype=None if dtype.kind == "f" else np.float64)
            if values.dtype not in (np.float32, np.float64):
                return None  # float16, longdouble: the encoding reads them
            columns.append(("numeric", in_place(values)))
            continue
        if not isinstance(dtype, pd.CategoricalDtype):
            return None
        codes = s.array.codes
        if codes.itemsize > 4:
            return None
        unsigned = in_place(codes).view(f"u{codes.itemsize}")
        make = functools.partial(_pandas_code_map, feature.categories, dtype)
        code_map = by_categories(maps[j], dtype, make)
        columns.append(("codes", unsigned, code_map, len(feature.categories)))
    return ("frame", columns, frame)


def _pandas_code_map(categories: tuple[str, ...], dtype: Any) -> NDArray[np.uint32] | None:
    """The fit's code of each category of a pandas `category` dtype (see `_code_map`)."""
    return _code_map(categories, pandas_labels(dtype))


@functools.lru_cache(maxsize=256)
def _code_map(categories: tuple[str, ...], given: tuple[str, ...]) -> NDArray[np.uint32] | None:
    """The fit's code of each category of an Enum of categories `given` (a category the fit
    never saw: `_UNSEEN`); None when the Enum is the fit's own."""
    if given == categories:
        return None
    index = {label: code for code, label in enumerate(categories)}
    code_map = np.array([index.get(label, _UNSEEN) for label in given], dtype=np.uint32)
    code_map.flags.writeable = False  # shared by every call with this dtype
    return code_map
