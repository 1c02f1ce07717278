"""Any table or matrix as one of two shapes: a Polars DataFrame (pandas frames and series, Arrow
tables and arrays, dicts of columns) or a float matrix (NumPy and array-likes), with pandas'
categorical orders and labels kept.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .schema import Ordinals
from .sparse import compressed, is_sparse
from .values import check_not_empty, enum_dtype, numeric_matrix, unboxed


def as_polars(obj: Any) -> Any:
    """pandas and Arrow objects as Polars ones; anything else as it is. pandas is never
    imported unless the caller did: a `category` column becomes an Enum of its categories
    (read from its codes, which needs no pyarrow); its `ordered` flag is read at fit by
    `pandas_orders`. An object of the Arrow PyCapsule interface (a pyarrow Table,
    RecordBatch, RecordBatchReader, Array or ChunkedArray, a DuckDB relation, ...) is
    imported by Polars without a copy. A mapping of column names to values, or a list of
    records (mappings), becomes the frame Polars makes of it."""
    if isinstance(obj, pl.DataFrame | pl.Series | pl.LazyFrame):
        return obj
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(obj, pd.DataFrame | pd.Series):
        if isinstance(obj, pd.Series):
            return _pandas_series(obj)
        if obj.shape[1] == 0:
            check_not_empty(obj.shape)  # Polars would see no rows either
        _refuse_duplicate_names([str(name) for name in obj.columns])
        # by position: `obj[name]` of a duplicated name would be a frame, not a column
        return pl.DataFrame([_pandas_series(obj.iloc[:, i]) for i in range(obj.shape[1])])
    if hasattr(obj, "__arrow_c_stream__") or hasattr(obj, "__arrow_c_array__"):
        return _from_arrow(obj)
    if is_records(obj) or (isinstance(obj, Mapping) and not is_sparse(obj)):  # DOK: a dict
        return _from_python(obj)
    return obj


def is_records(obj: Any) -> bool:
    """Whether `obj` is a list of rows as mappings of column to value (a JSON request's)."""
    return type(obj) is list and len(obj) > 0 and isinstance(obj[0], Mapping)


def _from_python(obj: Any) -> pl.DataFrame:
    """A mapping of column names to values (sequences, or one value each: a row) or a list of
    records as a frame, its columns named by their keys."""
    try:
        return pl.DataFrame(obj)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as e:
        # ragged columns, say: Polars's message, under the error the caller catches
        raise ValueError(f"X could not be read as a table of columns: {e}") from e


def _from_arrow(obj: Any) -> pl.DataFrame | pl.Series:
    """An Arrow object as a frame when its items are rows (a struct type: a table, a record
    batch, a relation), else as one column (an array: a y or weights)."""
    try:
        return pl.DataFrame(obj)
    except pl.exceptions.SchemaError:  # "expected `Struct`": the items are values
        return pl.Series(obj)


def _refuse_duplicate_names(names: list[str]) -> None:
    """Columns are matched by name at predict, so two with one name (as text: 1 and "1"
    are one) would be ambiguous."""
    first: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in first:
            raise ValueError(
                f"X has two columns named {name!r} (columns {first[name]} and {i}); "
                "column names must be unique"
            )
        first[name] = i


def _pandas_series(series: Any) -> pl.Series:
    """One pandas Series as a Polars one (a `category` one as an Enum)."""
    import pandas as pd  # only reached with a pandas object in hand

    name = str(series.name) if series.name is not None else ""
    if isinstance(series.dtype, pd.SparseDtype):
        series = series.sparse.to_dense()  # Polars reads no sparse column
    if not isinstance(series.dtype, pd.CategoricalDtype):
        try:
            try:
                return pl.from_pandas(series).rename(name)
            except ImportError:  # Polars reads some pandas dtypes through pyarrow only
                return _pandas_values(series, name)
        except (TypeError, ValueError, pl.exceptions.PolarsError) as e:
            # an object column mixing numbers and strings, say: Polars's message names
            # neither the column nor the cause
            raise TypeError(
                f"column {name!r} (pandas dtype {series.dtype}) could not be read: its "
                f"values must be all numbers or all strings ({type(e).__name__}: {e})"
            ) from e
    # The Enum's categories gathered by the codes (-1, missing, as a null index): vectorised,
    # where a list of the labels cost about a second a million rows.
    codes = pl.Series(series.cat.codes.to_numpy()).cast(pl.Int64)
    index = pl.select(pl.when(codes >= 0).then(codes)).to_series()
    return _pandas_categories(series.dtype).gather(index).rename(name)


def _pandas_values(series: Any, name: str) -> pl.Series:
    """A pandas column Polars would read through pyarrow (object, string, nullable numbers,
    decimals), read without it: its values as Python objects, missing ones (None, NaN,
    pd.NA, NaT) as nulls, one type throughout (strict: mixed numbers and strings raise)."""
    values = series.astype(object).where(series.notna(), None).tolist()
    return pl.Series(name, values, strict=True)


def _pandas_categories(dtype: Any) -> pl.Series:
    """A pandas `category` dtype's categories as an Enum Series of themselves, made once per
    categories (`by_categories`): for thousands of categories, reading them (milliseconds)
    and building the Enum cost far more than encoding a few rows."""

    def made() -> pl.Series:
        categories = pandas_labels(dtype)
        return pl.Series("", categories, dtype=enum_dtype(categories))

    return by_categories(_PANDAS_ENUMS, dtype, made)


def pandas_orders(X: Any) -> Ordinals:
    """The ordered pandas `category` columns of X, with their categories' order."""
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(X, pd.DataFrame):
        return {}
    return {
        str(name): tuple(_label(c) for c in dtype.categories)
        for name, dtype in X.dtypes.items()
        if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered
    }


def as_frame(X: Any) -> pl.DataFrame | NDArray[np.floating] | Any:
    """A Polars DataFrame, a NumPy array the core reads in place (see `numeric_matrix`), or
    a SciPy sparse X as a canonical CSC matrix of float64 (see `compressed`)."""
    X = as_polars(X)
    if isinstance(X, pl.LazyFrame):
        X = X.collect()
    if isinstance(X, pl.DataFrame):
        check_not_empty(X.shape)
        return X
    if is_sparse(X):
        return compressed(X, "csc")
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(
            f"X must be 2-D (rows x features), got shape {array.shape}. Reshape your data: "
            "X.reshape(-1, 1) for a single feature, X.reshape(1, -1) for a single row"
        )
    if array.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: X has dtype {array.dtype}")
    array = unboxed(array, "X", "; pass a Polars DataFrame for categorical data")
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"X has dtype {array.dtype}, but NumPy X must be numeric or bool; "
            "pass a Polars DataFrame for categorical data"
        )
    check_not_empty(array.shape)
    return numeric_matrix(array)


_T = TypeVar("_T")


# Made values kept per cache of `by_categories` before it forgets them all.
_KEPT = 64


_PANDAS_LABELS: dict[int, tuple[Any, tuple[str, ...]]] = {}


_PANDAS_ENUMS: dict[int, tuple[Any, pl.Series]] = {}


def by_categories(cache: dict[int, tuple[Any, _T]], dtype: Any, make: Callable[[], _T]) -> _T:
    """What `make` makes of a pandas `category` dtype, kept in `cache` by the identity of the
    dtype's categories (an immutable Index, which the entry holds so that its id stays its
    own). Not by the dtype: an unordered dtype equals (and hashes as) one of its categories in
    another order, whose codes mean other labels."""
    categories = dtype.categories
    kept = cache.get(id(categories))
    if kept is not None and kept[0] is categories:
        return kept[1]
    if len(cache) >= _KEPT:
        cache.clear()
    value = make()
    cache[id(categories)] = (categories, value)
    return value


def pandas_labels(dtype: Any) -> tuple[str, ...]:
    """A pandas `category` dtype's categories as the fit reads them (each as `str`, a truth
    value as a Boolean column's "false" / "true"), made once per categories: reading thousands
    of them costs milliseconds."""
    return by_categories(
        _PANDAS_LABELS, dtype, lambda: tuple(_label(c) for c in dtype.categories.tolist())
    )


def _label(category: Any) -> str:
    """A category's label: its text, a truth value as a Boolean column's category reads (so
    a `category` column of booleans and a bool column are one feature to a fit)."""
    if isinstance(category, (bool, np.bool_)):
        return "true" if category else "false"
    return str(category)
