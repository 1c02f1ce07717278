"""The rows a prediction reads, made as cheaply as the input allows: a few rows of a Polars frame
as one coded array (`small_frame`), a larger frame's columns read in place (`frame_rows`), a
pandas frame's columns read in place (`pandas_rows`).
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .._core import TextLookup
from .code_maps import UNSEEN, categorical_map, labels_map
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
    if encoders is None:
        return None
    rows: list[tuple[Any, ...]] = frame.rows()
    if not rows:
        return None
    names = schema.names
    columns = frame.columns
    if columns != names:
        where = {name: i for i, name in enumerate(columns)}
        positions = [where.get(name, -1) for name in names]
        if -1 in positions:
            return None
        rows = [tuple(row[p] for p in positions) for row in rows]
    # One pass of plain tests per value (a one-row prediction's budget is a few µs); the
    # dtypes of columns holding a null are checked after it, which is rare.
    values: list[float] = []
    append = values.append
    nan = _NAN
    nulls = False
    for row in rows:
        for value, encoder in zip(row, encoders, strict=True):
            kind = type(value)
            if encoder is None:
                if kind is float:  # the commonest value first
                    if value in _INFINITIES:
                        return None
                    append(value)
                elif kind is int:
                    append(float(value))
                elif value is None:
                    nulls = True
                    append(nan)
                else:
                    return None
            elif kind is str:
                append(encoder.get(value, nan))
            elif value is None:
                nulls = True
                append(nan)
            elif kind is bool:  # a Boolean column's categories are "false" and "true"
                append(encoder.get("true" if value else "false", nan))
            else:
                return None
    if nulls and not _nulls_of_their_kind(frame, schema, rows):
        return None
    array = np.array(values, dtype=np.float64).reshape(len(rows), len(names))
    return ("codes", array)


def _nulls_of_their_kind(frame: pl.DataFrame, schema: Schema, rows: list[tuple[Any, ...]]) -> bool:
    """Whether every column holding a null in `rows` (in fit order) has a dtype of its
    feature's kind (a null of a Date column for a categorical feature is not a missing
    category: `transform` words it)."""
    for j, feature in enumerate(schema.features):
        if any(row[j] is None for row in rows):
            try:
                if feature_kind(frame.get_column(feature.name)) != feature.kind:
                    return False
            except TypeError:  # an unsupported dtype: `transform` says so
                return False
    return True


def frame_rows(frame: pl.DataFrame, schema: Schema) -> FrameRows | None:
    """A Polars frame as columns the core reads in place (`_core.FrameRows`): Float32 and
    Float64 numbers as they are (a null or NaN is missing), other numbers as float64, and
    categories as codes with a map to the fit's codes (`_coded`): an Enum's or a
    Categorical's own physical codes (no copy; the map made from their few hundred
    categories, not from the rows), a Boolean's as 0 and 1; a String column as its Arrow
    string views, whose labels the core looks up as it walks the rows (`_text`). None when
    only `transform` can encode it (imputed features) or word its error (a feature absent,
    or of another kind or dtype than at fit)."""
    features = schema.features
    if any(feature.fill is not None for feature in features):
        return None
    dtypes = frame.schema
    kinds = [dtype_kind(dtypes.get(f.name, pl.Null())) for f in features]
    if any(kind != feature.kind for kind, feature in zip(kinds, features, strict=True)):
        return None
    texts = {
        f.name: text
        for f in features
        if f.categories is not None
        and dtypes[f.name] == pl.String
        and (text := _text(frame.get_column(f.name), f.categories)) is not None
    }
    coded = {
        f.name: _coded(f.name, f.categories, dtypes[f.name], frame.height)
        for f in features
        if f.categories is not None and f.name not in texts
    }
    # Every categorical column's codes in one query, which Polars runs column by column on
    # its threads: a query per column costs about 30 us, most of the call's Python time on
    # a frame with a few such columns.
    queried = frame.select([query for query, _ in coded.values()]).get_columns() if coded else []
    codes_of = dict(zip(coded, queried, strict=True))
    columns: list[FrameColumn] = []
    for feature in features:
        series = frame.get_column(feature.name)
        if feature.categories is None:
            if dtypes[feature.name] not in (pl.Float32, pl.Float64):
                series = on_fit_scale(series, feature.time).cast(pl.Float64)
            if not series.null_count():
                columns.append(("numeric", series.to_numpy()))
            elif (nulls := _in_place_with_nulls(series)) is not None:
                columns.append(("numeric", *nulls))
            else:  # `to_numpy` fills nulls several times slower than Polars
                columns.append(("numeric", series.fill_null(_NAN).to_numpy()))
            continue
        text = texts.get(feature.name)
        if text is not None:
            columns.append(text)
            continue
        codes, code_map = codes_of[feature.name], coded[feature.name][1]
        n_categories = len(feature.categories)
        if not codes.null_count():
            columns.append(("codes", codes.to_numpy(), code_map, n_categories))
        elif (nulls := _in_place_with_nulls(codes)) is not None:
            values, bits, first = nulls
            columns.append(("codes", values, code_map, n_categories, bits, first))
        else:
            n_codes = n_categories if code_map is None else len(code_map)
            filled = _fill_missing_code(codes, n_codes).to_numpy()
            columns.append(("codes", filled, code_map, n_categories))
    return ("frame", columns, frame)


def _in_place_with_nulls(
    series: pl.Series,
) -> tuple[NDArray[Any], NDArray[np.uint8], int] | None:
    """A numeric Series holding nulls as its values in place, its Arrow validity bitmap and the
    bit of its first row: the core reads a null's slot as missing whatever it holds, so no
    copy fills them (Polars' `fill_null` of a 1M-row Float64 column: about 1 ms). None
    without pyarrow, through which Polars hands its buffers over."""
    try:
        array = series.to_arrow()
    except ImportError:
        return None
    return arrow_with_nulls(array)


def arrow_with_nulls(array: Any) -> tuple[NDArray[Any], NDArray[np.uint8], int]:
    """A pyarrow array of fixed-width numbers holding nulls: its values in place, its validity
    bitmap and the bit of its first row in it."""
    validity, data = array.buffers()[:2]
    first, n = array.offset, len(array)
    values = np.frombuffer(data, dtype=array.type.to_pandas_dtype(), count=first + n)[first:]
    return values, np.frombuffer(validity, dtype=np.uint8), first


def _coded(
    name: str, categories: tuple[str, ...], dtype: pl.DataType, n_rows: int
) -> tuple[pl.Expr, NDArray[np.uint32] | None]:
    """The query of a categorical column's codes (a null where missing), with the map from
    those codes to the fit's (None: they are the fit's)."""
    column = pl.col(name)
    if isinstance(dtype, pl.Enum):
        return column.to_physical(), labels_map(categories, tuple(dtype.categories.to_list()))
    if isinstance(dtype, pl.Categorical):
        code_map = categorical_map(categories, dtype.categories, n_rows)
        if code_map is not None:
            return column.to_physical(), code_map
    elif dtype == pl.Boolean:  # a Boolean column's categories are "false" and "true"
        return column.cast(pl.UInt8), labels_map(categories, ("false", "true"))
    # A String `_text` cannot read (without pyarrow), or a Categorical `categorical_map`
    # declines: through the fit's Enum, where an unseen value becomes null.
    return column.cast(pl.String).cast(enum_dtype(categories), strict=False).to_physical(), None


def _text(series: pl.Series, categories: tuple[str, ...]) -> FrameColumn | None:
    """A String column as the core reads it in place (`text_views`); None without pyarrow,
    through which Polars hands its views over (without a copy)."""
    try:
        array = series.to_arrow(compat_level=pl.CompatLevel.newest())
    except ImportError:
        return None
    return text_views(array, categories)


def text_views(array: Any, categories: tuple[str, ...]) -> FrameColumn:
    """A pyarrow StringViewArray as the core reads it in place: its views (16 bytes a row: a
    label of up to 12 bytes inline, a longer one's place in the data buffers, here one after
    another), the lookup of the fit's categories, and its validity bitmap; the core finds
    each row's label as it walks the rows (a null or an unseen label: missing), on the
    walk's threads."""
    buffers = array.buffers()
    first, n = array.offset, len(array)
    views = np.frombuffer(buffers[1], dtype=np.uint8)[_VIEW * first : _VIEW * (first + n)]
    parts = [np.frombuffer(buffer, dtype=np.uint8) for buffer in buffers[2:]]
    data = parts[0] if len(parts) == 1 else np.concatenate([_NO_BYTES, *parts])
    starts = np.cumsum([0, *map(len, parts)], dtype=np.uint64)
    valid = None if array.null_count == 0 else np.frombuffer(buffers[0], dtype=np.uint8)
    return ("text", views, data, starts, _text_lookup(categories), valid, first)


def text_offsets(array: Any, categories: tuple[str, ...]) -> FrameColumn:
    """A pyarrow `string` or `large_string` array as the core reads it in place: its offsets
    (one more than its rows), its data, the lookup of the fit's categories, and its validity
    bitmap; the core finds each row's label as it walks the rows (a null or an unseen label:
    missing)."""
    import pyarrow as pa

    buffers = array.buffers()
    first, n = array.offset, len(array)
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    offsets = np.frombuffer(buffers[1], dtype=width, count=first + n + 1)[first:]
    data = _NO_BYTES if buffers[2] is None else np.frombuffer(buffers[2], dtype=np.uint8)
    valid = None if array.null_count == 0 else np.frombuffer(buffers[0], dtype=np.uint8)
    return ("strings", offsets, data, _text_lookup(categories), valid, first)


# Bytes of an Arrow string view.
_VIEW = 16


_NO_BYTES = np.empty(0, dtype=np.uint8)


@functools.lru_cache(maxsize=256)
def _text_lookup(categories: tuple[str, ...]) -> TextLookup:
    """The core's lookup of a feature's categories, made once."""
    return TextLookup(list(categories))


def _fill_missing_code(codes: pl.Series, n_codes: int) -> pl.Series:
    """Physical `codes` (of `n_codes` categories) with each null as a code past them, which
    the core reads as missing: the largest code of their own dtype where it is past the
    categories (no copy to a wider type), else `UNSEEN` as UInt32."""
    largest = _LARGEST_CODE.get(codes.dtype)
    if largest is not None and largest >= n_codes:
        return codes.fill_null(largest)
    return codes.cast(pl.UInt32).fill_null(UNSEEN)


# The largest value of each unsigned dtype Polars stores categories' codes in.
_LARGEST_CODE = {pl.UInt8: 2**8 - 1, pl.UInt16: 2**16 - 1, pl.UInt32: 2**32 - 1}


def is_pandas_frame(X: Any) -> bool:
    """Whether X is a pandas DataFrame; pandas is never imported unless the caller did."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(X, pd.DataFrame)


def pandas_rows(frame: Any, schema: Schema) -> FrameRows | None:
    """A pandas frame as columns the core reads in place, as `frame_rows` reads a Polars one
    (no Polars frame is built: that cost milliseconds for one row): numbers as
    `_pandas_numbers` reads them (NumPy floats in place, nullable and pyarrow-backed ones
    too), booleans as codes 0 and 1, text as `_pandas_strings` reads it, and `category`
    columns as their codes with a map from the dtype's categories to the fit's (made once
    per feature and dtype). pandas gives a missing value code -1, which read as unsigned
    (255, 65,535 or 2**32 - 1) is past every category of its dtype: missing. None when only
    `transform` can encode the frame or word its error (a feature absent, of another kind
    or dtype, imputed features, sparse columns)."""
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
        if s is None or isinstance(s.dtype, pd.SparseDtype):
            return None  # a sparse column: the encoding makes it dense
        dtype = s.dtype
        if feature.categories is None:
            numbers = _pandas_numbers(s)
            if numbers is None:
                return None
            columns.append(numbers)
            continue
        if dtype == np.dtype(bool):  # a Boolean feature's categories: "false", "true"
            code_map = labels_map(feature.categories, ("false", "true"))
            codes = in_place(s.to_numpy()).view(np.uint8)
            columns.append(("codes", codes, code_map, len(feature.categories)))
            continue
        if not isinstance(dtype, pd.CategoricalDtype):
            strings = _pandas_strings(s, feature.categories)
            if strings is None:
                return None
            columns.append(strings)
            continue
        codes = s.array.codes
        if codes.itemsize > 4:
            return None
        unsigned = in_place(codes).view(f"u{codes.itemsize}")
        make = functools.partial(_pandas_code_map, feature.categories, dtype)
        code_map = by_categories(maps[j], dtype, make)
        columns.append(("codes", unsigned, code_map, len(feature.categories)))
    return ("frame", columns, frame)


def _pandas_numbers(s: Any) -> FrameColumn | None:
    """A pandas numeric column as the core reads it: NumPy floats in place, other NumPy
    numbers as float64; pandas's nullable numbers (`Float64`, `Int64`, ...) as float64 or
    float32 with NaN for NA (their `to_numpy`, a copy, costs less than their Arrow bitmap);
    pyarrow-backed ones in place with their validity bitmap. None for what the encoding reads
    (float16, booleans, dates, decimals)."""
    dtype = s.dtype
    if getattr(dtype, "kind", None) not in ("f", "i", "u"):
        return None
    if isinstance(dtype, np.dtype):
        values = s.to_numpy(dtype=None if dtype.kind == "f" else np.float64)
    elif type(dtype).__name__ == "ArrowDtype":
        import pyarrow as pa  # an ArrowDtype comes with pyarrow

        array = pa.array(s.array)
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        if array.type in (pa.float32(), pa.float64()) and array.null_count:
            return ("numeric", *arrow_with_nulls(array))
        values = s.to_numpy(dtype=np.float64, na_value=np.nan)
    else:  # a masked (nullable) dtype
        wide = dtype.kind != "f" or dtype.numpy_dtype.itemsize > 4
        values = s.to_numpy(dtype=np.float64 if wide else np.float32, na_value=np.nan)
    if values.dtype not in (np.float32, np.float64):
        return None  # float16, longdouble: the encoding reads them
    return ("numeric", in_place(values))


def _pandas_strings(s: Any, categories: tuple[str, ...]) -> FrameColumn | None:
    """A pandas column of text (`object` holding only strings and missing values, `string`,
    or a pyarrow-backed string dtype) as Arrow strings the core looks up in place
    (`text_offsets`); None for other columns, or without pyarrow."""
    dtype = s.dtype
    is_object = dtype == np.dtype(object)
    if not (is_object or getattr(dtype, "kind", None) in ("O", "U", "T")):
        return None
    try:
        import pyarrow as pa
    except ImportError:
        return None
    try:
        # An object column's type inferred, not imposed: bytes would pass as text, where
        # the encoding refuses them (Binary) at fit and here alike.
        array = pa.array(s.to_numpy(), from_pandas=True) if is_object else pa.array(s.array)
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return None  # not all strings: the encoding reads them, or words the error
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        return None
    return text_offsets(array, categories)


def _pandas_code_map(categories: tuple[str, ...], dtype: Any) -> NDArray[np.uint32] | None:
    """The fit's code of each category of a pandas `category` dtype (see `code_maps.labels_map`)."""
    return labels_map(categories, pandas_labels(dtype))
