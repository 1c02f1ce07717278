"""Checks and conversions of plain values shared by every input: arrays read in place when they
can be, the first offending row named in errors, infinities refused, integers beyond float64's
precision and float32 values that merge warned of, empty inputs refused.
"""

from __future__ import annotations

import functools
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

if TYPE_CHECKING:
    from .._core import CodedRows, Column, CsrRows, FrameRows


def n_rows_of(
    rows: list[Column] | NDArray[np.floating] | CodedRows | CsrRows | FrameRows,
) -> int:
    """Rows of encoded columns, of a matrix the core reads in place, of coded rows, of a
    frame's columns or of CSR rows."""
    if isinstance(rows, np.ndarray):
        return len(rows)
    if rows[0] == "codes":
        return len(rows[1])
    if rows[0] == "frame":
        return len(rows[2])  # a Polars or a pandas frame
    if isinstance(rows, tuple):  # ("csr", indptr, ...)
        return len(rows[1]) - 1
    first = rows[0]
    return first[5] if first[0] == "sparse" else len(first[1])


# Integers of at most this magnitude are float32 numbers exactly (a 24-bit significand).
_FLOAT32_EXACT = 2**24


# NumPy dtypes the core reads in place.
_READ_IN_PLACE = (np.dtype(np.float32), np.dtype(np.float64))


def numeric_matrix(array: NDArray[Any]) -> NDArray[np.floating]:
    """A numeric X as the core reads it without a copy: float32 and float64 as they are
    (their rows or their columns contiguous; other layouts are copied column-major). Other
    dtypes are cast to the narrowest float that holds every value exactly: float32 for
    booleans, float16, 8- and 16-bit integers and integers within ±2**24, else float64 (an
    integer beyond ±2**53 is rounded to the nearest float64, as NumPy's cast rounds it). A
    float32 converts to float64 exactly, so the tree is the one the float64 data grow."""
    if array.dtype not in _READ_IN_PLACE:
        cast = array.astype(_exact_float(array))
        if array.dtype.kind in "iu" and array.ndim == 2 and _beyond_float64(array):
            for j in range(array.shape[1]):
                _warn_if_merged(f"x{j}", array[:, j], cast[:, j])
        array = cast
    if not (array.flags.c_contiguous or array.flags.f_contiguous) or not array.flags.aligned:
        array = np.require(array, requirements=["F", "A"])
    return array


def in_place(array: NDArray[Any]) -> NDArray[Any]:
    """`array` as the core reads it in place: contiguous and aligned (a pandas or Dask frame
    unpickled from a buffer can hold unaligned columns; those are copied)."""
    return np.require(array, requirements=["C", "A"])


def _exact_float(array: NDArray[Any]) -> type[np.floating]:
    """float32 when every value of the (boolean, integer or float) array is a float32 number
    exactly, else float64."""
    if (array.dtype.kind in "bf" and array.dtype.itemsize <= 4) or array.dtype.itemsize <= 2:
        return np.float32
    if array.dtype.kind in "iu" and array.size:
        low, high = int(array.min()), int(array.max())
        if -_FLOAT32_EXACT <= low and high <= _FLOAT32_EXACT:
            return np.float32
    return np.float64


def unboxed(values: NDArray[Any], what: str, hint: str) -> NDArray[Any]:
    """Numbers boxed as Python objects (a mixed list, `astype(object)`) as float64, as NumPy
    would read them; arrays of any other dtype are returned unchanged."""
    if values.dtype.kind != "O":
        return values
    try:
        return values.astype(np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{what} has dtype object and a value that is not a number"
            f"{_first_non_number(values)} ({error}){hint}"
        ) from None


def _first_non_number(values: NDArray[Any]) -> str:
    """Where the first value NumPy cannot read as a float lies: " at column x2, row 5: 'n/a'"
    (a 2-D X) or " at row 5: 'n/a'"; only reached on the way to an error. Column by column,
    then value by value in the failing column (None, which NumPy reads as NaN, passes)."""
    columns = values.reshape(len(values), -1)
    for j in range(columns.shape[1]):
        try:
            columns[:, j].astype(np.float64)
            continue
        except (TypeError, ValueError):
            pass
        for i, value in enumerate(columns[:, j]):
            try:
                np.array([value], dtype=object).astype(np.float64)
            except (TypeError, ValueError):
                place = f"column x{j}, row {i}" if values.ndim == 2 else f"row {i}"
                return f" at {place}: {value!r}"
    return ""


def check_not_empty(shape: tuple[int, ...]) -> None:
    if 0 in shape:
        # scikit-learn's wording, which its estimator checks look for.
        what = "sample(s)" if shape[0] == 0 else "feature(s)"
        raise ValueError(
            f"X is empty: 0 {what} (shape=({shape[0]}, {shape[1]})) while a minimum of 1 "
            "is required."
        )


def numeric_column(name: str, values: NDArray[np.floating]) -> Column:
    """A numeric core column; NaN means missing, but an infinity is an error."""
    check_finite(name, values)
    return ("numeric", in_place(values))


def series_numbers(series: pl.Series) -> NDArray[np.floating]:
    """A numeric Polars column as the core reads it: Float32 and Float64 as they are (a null
    as NaN), other numbers (integers, temporal values' ticks from `on_fit_scale`) as the
    narrowest float that holds each exactly, as `numeric_matrix` casts NumPy's; decimals
    (a database's NUMERIC) as the nearest float64."""
    if series.dtype.is_decimal():
        series = series.cast(pl.Float64)
    if series.dtype not in (pl.Float32, pl.Float64):
        low, high = series.min(), series.max()
        exact = low is None or (-_FLOAT32_EXACT <= low and high <= _FLOAT32_EXACT)  # type: ignore[operator]
        cast = series.cast(pl.Float32 if exact else pl.Float64)
        if not exact and series.dtype.is_integer():
            # nulls dropped: an integer column with nulls comes out of Polars as floats
            _warn_if_merged(
                series.name, series.drop_nulls().to_numpy(), cast.drop_nulls().to_numpy()
            )
        series = cast
    return series.to_numpy()


# Integers up to this magnitude are float64 numbers exactly.
_FLOAT64_EXACT = 2**53


def _beyond_float64(ints: NDArray[Any]) -> bool:
    """Whether an integer array holds a value that float64 may round."""
    return bool(ints.size) and not (
        -_FLOAT64_EXACT <= int(ints.min()) and int(ints.max()) <= _FLOAT64_EXACT
    )


def _warn_if_merged(name: str, ints: NDArray[Any], floats: NDArray[Any]) -> None:
    """Warns when rounding a column's integers beyond ±2**53 to float64 made distinct values
    equal (the tree can no longer separate them); checked only past that bound."""
    if not _beyond_float64(ints):
        return
    low, high = ints.min(), ints.max()
    before, after = len(np.unique(ints)), len(np.unique(floats))
    if after < before:
        warnings.warn(
            f"column {name!r} holds integers beyond 2**53 (from {low} to {high}) that "
            f"float64 cannot tell apart: its {before} distinct values are {after} after "
            "rounding, so the tree cannot separate them",
            UserWarning,
            stacklevel=5,
        )


def check_finite(name: str, values: NDArray[np.floating]) -> None:
    """Refuses an infinity in a numeric column (NaN means missing); a block at a time, so
    the check's mask stays small whatever the column's length."""
    for start in range(0, len(values), CHECK_BLOCK):
        infinite = np.isinf(values[start : start + CHECK_BLOCK])
        if infinite.any():
            row = start + first_true(infinite)
            raise ValueError(f"column {name!r} has an infinite value at row {row}")


# Rows checked for infinities at a time.
CHECK_BLOCK = 1 << 16


@functools.lru_cache(maxsize=256)
def enum_dtype(categories: tuple[str, ...]) -> pl.Enum:
    """The Enum dtype of a feature's categories, made once: building it costs more than
    predicting a row (about a millisecond for a thousand categories)."""
    return pl.Enum(categories)


def first_true(mask: NDArray[np.bool_]) -> int:
    return int(np.flatnonzero(mask)[0])
