"""The target y: class labels coded in order (their dtype kept for predictions), regression
values checked, one or several outputs, and the labels of held-out rows coded by the fit's
classes.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .encoding import category_codes, column_categories
from .frames import as_polars
from .schema import Schema
from .values import first_true, in_place, unboxed


def check_target_scale(targets: NDArray[np.float64], weights: NDArray[np.float64]) -> None:
    """A regression search adds up w·(y − ȳ)² and squares sums of w·(y − ȳ) (at most Σw ·
    Σw(y − ȳ)², by Cauchy-Schwarz): past the largest float those are infinite, every gain
    is NaN and the tree silently stops growing. Refused instead, naming the output.

    At the other end a node is pure when its variance is at most machine epsilon (an
    absolute bound, as scikit-learn's), so a y varying by less than about 1e-8 gives one
    leaf: warned, the tree being scikit-learn's."""
    total = weights.sum()
    if total <= 0:
        return  # refused later with its own message
    # np.sum, not np.dot: a BLAS dot of one vector can wake its thread pool (milliseconds
    # on a busy machine, for microseconds of work)
    values = targets.reshape(len(targets), -1)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(values.shape[1]):
            y = values[:, k]
            mean = np.sum(weights * (y / total))
            bound = total * np.sum(weights * (y - mean) ** 2)
            if not np.isfinite(bound):
                which = "y" if values.shape[1] == 1 else f"output {k} of y"
                raise ValueError(
                    f"{which} is too large for a regression tree: Σw · Σw(y − ȳ)² "
                    f"overflows float64 (|y| up to {np.abs(y).max():.3g}, Σw = {total:.3g}); "
                    "scale y or sample_weight down"
                )
            # the standard deviation scaled by the largest deviation: (1e-300)² underflows
            spread = np.abs(y - mean).max()
            std = spread * np.sqrt(np.sum(weights * ((y - mean) / spread) ** 2) / total)
            # a constant y is no case: its deviations are the mean's rounding
            if y.max() > y.min() and 0 < std <= np.sqrt(np.finfo(np.float64).eps):
                which = "y" if values.shape[1] == 1 else f"output {k} of y"
                warnings.warn(
                    f"{which} varies too little for a regression tree: its standard "
                    f"deviation {std:.3g} is below √ε (1.5e-08), so its variance is below "
                    "machine epsilon, which the tree (as scikit-learn's) takes for a pure "
                    "node; scale y up",
                    UserWarning,
                    stacklevel=4,
                )


def name_of(y: Any) -> str:
    return y.name if isinstance(y, pl.Series) and y.name else "y"


def single_column(y: Any) -> Any:
    """A one-column frame as its Series (scikit-learn reads a one-column y as a 1-D one)."""
    if isinstance(y, pl.DataFrame) and y.width == 1:
        return y.to_series()
    return y


def named_outputs(y: Any) -> list[tuple[str, Any]] | None:
    """A multi-output y (2-D, at least two columns) as (name, column) pairs, or None for a
    1-D y (a one-column 2-D array counts as 1-D, as in scikit-learn)."""
    if isinstance(y, pl.DataFrame):
        return [(c.name, c) for c in y.iter_columns()] if y.width > 1 else None
    if hasattr(y, "tocsr") or hasattr(y, "todense") or isinstance(y, pl.Series):
        return None  # sparse y: `target_values` says why not
    array = np.asarray(y)
    if array.ndim != 2 or array.shape[1] < 2:
        return None
    return [(f"y{k}", array[:, k]) for k in range(array.shape[1])]


def output_columns(y: Any, n_rows: int, schema: Schema) -> list[Any]:
    """y split into the fitted outputs' columns (a Polars frame's by name when it has them
    all, else by position): one column for a 1-D model, which takes a 1-D y."""
    if not schema.outputs:
        return [y]
    y = as_polars(y)
    if isinstance(y, pl.DataFrame) and all(name in y.columns for name in schema.outputs):
        return [y.get_column(name) for name in schema.outputs]
    columns = named_outputs(y)
    found = 1 if columns is None else len(columns)
    if columns is None or found != len(schema.outputs):
        shape = getattr(y, "shape", None)
        raise ValueError(
            f"y must have one column per output ({len(schema.outputs)}: "
            f"{', '.join(schema.outputs)}), got {found} (shape {shape})"
        )
    return [column for _, column in columns]


def stacked(columns: list[NDArray[Any]]) -> NDArray[Any]:
    """One output's array as it is; several as the C-contiguous (n_rows, n_outputs) matrix the
    core reads row by row."""
    if len(columns) == 1:
        return columns[0]
    return np.ascontiguousarray(np.column_stack(columns))


def class_codes(y: Any, n_rows: int, classes: NDArray[Any]) -> NDArray[np.uint32]:
    """Codes of y's labels among the fitted `classes`; a label never seen in training is an
    error, since no leaf can predict it."""
    values = target_values(y, n_rows)
    if values.dtype == classes.dtype and values.dtype.kind in "biuf":
        # Numbers of the classes' own dtype: looked up by a binary search (a Python loop
        # costs a second per few million rows, a Dask partition's or a stream batch's).
        order = np.argsort(classes, kind="stable")
        at = np.minimum(np.searchsorted(classes[order], values), len(classes) - 1)
        if np.array_equal(classes[order][at], values):
            return order[at].astype(np.uint32)
    values = values.tolist()
    index = {label: code for code, label in enumerate(classes.tolist())}
    unseen = sorted({repr(v) for v in values if v not in index})
    if unseen:
        raise ValueError(f"y holds classes never seen in training: {', '.join(unseen[:5])}")
    return np.fromiter((index[v] for v in values), np.uint32, n_rows)


# Target dtypes predictions can be given back in, by name (a name read from a model file is
# looked up here, never evaluated).
_LABEL_DTYPES: dict[str, Any] = {
    "String": pl.String,
    "Categorical": pl.Categorical,
    "Boolean": pl.Boolean,
    **{
        name: getattr(pl, name)
        for name in (
            *(f"Int{bits}" for bits in (8, 16, 32, 64)),
            *(f"UInt{bits}" for bits in (8, 16, 32, 64)),
            "Float32",
            "Float64",
        )
    },
}


def dtype_name(y: Any) -> str | None:
    """`Schema.target_dtype` for a classifier's y."""
    if not isinstance(y, pl.Series):
        return None
    if isinstance(y.dtype, pl.Enum):
        return "Enum"
    name = type(y.dtype).__name__ if isinstance(y.dtype, pl.Categorical) else str(y.dtype)
    return name if name in _LABEL_DTYPES else None


def label_dtype(name: str | None, classes: NDArray[Any]) -> pl.DataType:
    """The Polars dtype of predicted labels: the target's at fit, by name (`target_dtype`; an
    Enum of the classes for an Enum target), else the one Polars gives the labels."""
    if name == "Enum":
        return pl.Enum([str(label) for label in classes.tolist()])
    if name in _LABEL_DTYPES:
        return _LABEL_DTYPES[name]()
    return pl.Series(classes).dtype


def target_values(y: Any, n_rows: int) -> NDArray[Any]:
    """y as a 1-D NumPy array of n_rows labels, none of them missing or infinite."""
    if hasattr(y, "tocsr") or hasattr(y, "todense"):  # SciPy sparse (or alike): no import
        raise TypeError(
            f"y is a sparse matrix ({type(y).__name__}), but a tree needs a dense 1-D y; "
            "pass y.toarray().ravel()"
        )
    y = single_column(as_polars(y))
    values = y.to_numpy() if isinstance(y, pl.Series | pl.DataFrame) else np.asarray(y)
    if values.ndim == 2 and values.shape[1] == 1:  # a column vector: its one output
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError(
            f"y must be 1-D (or 2-D with one column per output at fit), got shape {values.shape}"
        )
    if len(values) != n_rows:
        raise ValueError(f"y has {len(values)} values but X has {n_rows} rows")
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values)
    elif values.dtype.kind == "O" and isinstance(y, pl.Series) and y.dtype != pl.Object:
        bad = y.is_null().to_numpy()  # labels of text or categories: only nulls are missing
    elif values.dtype.kind == "O":
        bad = np.fromiter((v is None or v != v for v in values), bool, len(values))
    else:
        return values
    if bad.any():
        raise ValueError(f"y is missing or not finite at row {first_true(bad)}")
    return values


def class_targets(y: Any, n_rows: int) -> tuple[NDArray[np.uint32], NDArray[Any]]:
    """Class codes and the labels they index: Enum order, [False, True], or sorted."""
    values = target_values(y, n_rows)
    if isinstance(y, pl.Series) and isinstance(y.dtype, (pl.String, pl.Categorical, pl.Enum)):
        categories = column_categories(y)
        codes, _ = category_codes(y, categories)
        return codes, np.array(categories)
    if values.dtype == np.bool_:
        return values.astype(np.uint32), np.array([False, True])
    fractional = values != np.round(values) if values.dtype.kind == "f" else None
    if fractional is not None and fractional.any():
        # Fractional labels are almost always a regression target given to a classifier.
        raise ValueError(
            "Unknown label type: continuous (y holds non-integer numbers such as "
            f"{values[first_true(fractional)]}); a classifier needs class labels, "
            "use DecisionTreeRegressor for a numeric target"
        )
    if values.dtype.kind in "iu" and len(values):
        # Integer labels of a narrow range (the common 0, 1, ...) are counted rather than
        # sorted: the same sorted classes and codes, several times faster than np.unique.
        low, high = int(values.min()), int(values.max())
        if high - low < max(1 << 16, len(values)):
            # Subtracted where it cannot wrap: uint64 in its own type (every value is at
            # least `low`), any other integer type in int64.
            wide = values.dtype == np.uint64
            shifted = (values - np.uint64(low)) if wide else values.astype(np.int64) - low
            classes = np.flatnonzero(np.bincount(shifted))
            codes_of = np.empty(high - low + 1, dtype=np.uint32)
            codes_of[classes] = np.arange(len(classes), dtype=np.uint32)
            labels = classes.astype(np.uint64) + np.uint64(low) if wide else classes + low
            return codes_of[shifted], labels.astype(values.dtype)
    try:
        classes, codes = np.unique(values, return_inverse=True)
    except TypeError as e:  # an object y mixing kinds: 1 and "a" cannot be ordered
        kinds = sorted({type(v).__name__ for v in values.ravel()})
        raise TypeError(
            f"y mixes labels of types {', '.join(kinds)}, which cannot be sorted into "
            "classes; make the labels all numbers or all strings"
        ) from e
    return codes.astype(np.uint32), classes


def warn_of_many_classes(n_classes: int, n_rows: int) -> None:
    """Warns, as scikit-learn does (same rule: over 20 rows, more classes than half of
    them), of a y that is most likely a numeric or identifying column given to a
    classifier: each class then holds a row or two, and the tree grows about one leaf per
    row, each split scanning every class."""
    if n_rows > 20 and n_classes > round(0.5 * n_rows):
        warnings.warn(
            f"y has {n_classes} classes for {n_rows} rows (more than half): it looks like a "
            "numeric target or an identifier rather than class labels; use "
            "DecisionTreeRegressor for a numeric target",
            UserWarning,
            stacklevel=4,
        )


def regression_targets(y: Any, n_rows: int) -> NDArray[np.float64]:
    values = unboxed(target_values(y, n_rows), "y (a regression target)", "")
    if values.dtype.kind not in "biuf":
        raise TypeError(f"y (a regression target) must be numeric, got dtype {values.dtype}")
    return in_place(np.asarray(values, dtype=np.float64))
