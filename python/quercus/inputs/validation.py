"""The one place where user inputs become the arrays `quercus._core` expects.

Every other module hands raw X / y / sample_weight here, so conversion rules and error
messages stay consistent between fit, predict, score and `split_scores`.
"""

from __future__ import annotations

import functools
import itertools
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .temporal import on_fit_scale, time_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._core import CodedRows, Column, CsrRows, FrameColumn, FrameRows

Kind = Literal["numeric", "categorical"]


@dataclass(frozen=True)
class Feature:
    """How one column was encoded at fit, so predict can encode it the same way."""

    name: str
    categories: tuple[str, ...] | None = None  # None: a numeric feature
    ordered: bool = False
    # missing="impute_mean": the value a missing cell is read as (the training mean, or the
    # most common category), at fit and at every later encoding; None: left missing.
    fill: float | str | None = None
    # drop_features_above: missing in too many training rows, so no split tests it.
    ignored: bool = False
    # A date, time or duration column: the dtype it was fit on (`_temporal.time_of`), whose
    # scale later inputs are put on and whose wording thresholds take; None for numbers.
    time: str | None = None

    @property
    def kind(self) -> Kind:
        return "numeric" if self.categories is None else "categorical"


@dataclass(frozen=True)
class Schema:
    """The fitted layout of the training data: its features and the target's name (with a
    multi-output y, each output's name and dtype as well)."""

    features: tuple[Feature, ...]
    target: str
    # A classifier's target dtype by Polars name ("Enum": its categories are the classes), so
    # Polars predictions keep it; None for regression, a NumPy y or a dtype not in
    # `_LABEL_DTYPES` (then the labels' own NumPy type decides).
    target_dtype: str | None = None
    # The `missing=` strategy of the fit (see `quercus._missing`).
    missing: str = "fractional"
    # A multi-output y (2-D, one column per output): each output's name (a frame's column
    # names, else y0, y1, ...) and dtype as `target_dtype` reads; () for a 1-D y.
    outputs: tuple[str, ...] = ()
    output_dtypes: tuple[str | None, ...] = ()
    # Fit on a matrix (features named x0, x1, ...): a frame of other names is then read by
    # position, with scikit-learn's warning, as its trees read one.
    by_position: bool = False

    @functools.cached_property
    def names(self) -> list[str]:
        """The features' names in fit order (made once: a one-row prediction reads them)."""
        return [feature.name for feature in self.features]

    @functools.cached_property
    def encoders(self) -> tuple[dict[str, float] | None, ...] | None:
        """What `small_frame` reads each feature's values with: None for a numeric feature,
        else its categories' codes by label (as floats, the coded rows' type); None for all
        when some feature is imputed (the column encoding applies the fill values)."""
        if any(feature.fill is not None for feature in self.features):
            return None
        return tuple(
            None
            if feature.categories is None
            else {label: float(code) for code, label in enumerate(feature.categories)}
            for feature in self.features
        )

    @functools.cached_property
    def pandas_maps(self) -> list[dict[int, tuple[Any, NDArray[np.uint32] | None]]]:
        """`pandas_rows`' code maps of each feature, by pandas categories (`_by_categories`):
        a cache keyed by the labels would hash thousands of them per call."""
        return [{} for _ in self.features]

    @property
    def n_outputs(self) -> int:
        return max(len(self.outputs), 1)


# A classifier's labels in code order: one array, or a list of one array per output for a
# multi-output y (scikit-learn's `classes_`).
Classes: TypeAlias = "NDArray[Any] | list[NDArray[Any]]"


@dataclass(frozen=True)
class TrainingData:
    """Everything a fit (or `split_scores`) hands to the core, already validated."""

    columns: list[Column]
    schema: Schema
    # uint32 class codes, or float64 regression targets: (n_rows,), or C-contiguous
    # (n_rows, n_outputs) for a multi-output y
    y: NDArray[Any]
    classes: Classes | None  # the original labels; None for regression
    sample_weight: NDArray[np.float64]

    @property
    def n_classes(self) -> int | list[int]:
        """What the core's `n_classes` takes: a 1-D y's class count (0: regression), or each
        output's of a multi-output classifier."""
        return class_counts(self.classes)


def class_counts(classes: Classes | None) -> int | list[int]:
    if classes is None:
        return 0
    if isinstance(classes, list):
        return [len(c) for c in classes]
    return len(classes)


# `ordinal_features`: the categorical features whose categories have an order, each with the
# order it was given (None: the column's own, see `_categories`).
Ordinals: TypeAlias = dict[str, tuple[str, ...] | None]


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
    ordinal = {**_pandas_orders(X), **(ordinal or {})}
    frame = _as_frame(X)
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
        _check_not_empty(frame.shape)
    elif y is None:
        raise ValueError(
            "fit requires y to be passed, but the target y is None "
            "(or name the target column of a Polars X with target=)"
        )
    y = _single_column(as_polars(y))
    features = _infer_features(frame, ordinal)
    columns_of_y = _output_columns(y)
    if columns_of_y is None:
        name = target if isinstance(target, str) else _name_of(y)
        schema = Schema(
            features,
            name,
            _dtype_name(y) if classification else None,
            by_position=not isinstance(frame, pl.DataFrame),
        )
        outputs = [y]
    else:
        outputs = [column for _, column in columns_of_y]
        dtypes = tuple(_dtype_name(c) if classification else None for c in outputs)
        names = tuple(name for name, _ in columns_of_y)
        schema = Schema(
            features,
            "y",
            outputs=names,
            output_dtypes=dtypes,
            by_position=not isinstance(frame, pl.DataFrame),
        )
    columns = _encode(frame, schema)
    n_rows = n_rows_of(columns)
    classes: Classes | None = None
    if classification:
        coded = [_class_targets(column, n_rows) for column in outputs]
        targets: NDArray[Any] = _stacked([codes for codes, _ in coded])
        labels = [labels for _, labels in coded]
        for output in labels:
            _warn_of_many_classes(len(output), n_rows)
        classes = labels[0] if columns_of_y is None else labels
    else:
        targets = _stacked([regression_targets(column, n_rows) for column in outputs])
    weights = sample_weights(sample_weight, n_rows)
    if not classification:
        _check_target_scale(targets, weights)
    return TrainingData(columns, schema, targets, classes, weights)


def _check_target_scale(targets: NDArray[np.float64], weights: NDArray[np.float64]) -> None:
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


def _name_of(y: Any) -> str:
    return y.name if isinstance(y, pl.Series) and y.name else "y"


def _single_column(y: Any) -> Any:
    """A one-column frame as its Series (scikit-learn reads a one-column y as a 1-D one)."""
    if isinstance(y, pl.DataFrame) and y.width == 1:
        return y.to_series()
    return y


def _output_columns(y: Any) -> list[tuple[str, Any]] | None:
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
    columns = _output_columns(y)
    found = 1 if columns is None else len(columns)
    if columns is None or found != len(schema.outputs):
        shape = getattr(y, "shape", None)
        raise ValueError(
            f"y must have one column per output ({len(schema.outputs)}: "
            f"{', '.join(schema.outputs)}), got {found} (shape {shape})"
        )
    return [column for _, column in columns]


def _stacked(columns: list[NDArray[Any]]) -> NDArray[Any]:
    """One output's array as it is; several as the C-contiguous (n_rows, n_outputs) matrix the
    core reads row by row."""
    if len(columns) == 1:
        return columns[0]
    return np.ascontiguousarray(np.column_stack(columns))


@dataclass(frozen=True)
class LabelledData:
    """Rows for a fitted tree (validation or pruning data), encoded as at fit."""

    columns: list[Column]
    y: NDArray[Any]  # uint32 class codes, or float64 regression targets
    sample_weight: NDArray[np.float64]

    def as_core(self) -> tuple[list[Column], NDArray[Any], NDArray[np.float64]]:
        return self.columns, self.y, self.sample_weight


def labelled_data(
    X: Any, y: Any, sample_weight: Any, schema: Schema, classes: Classes | None
) -> LabelledData:
    """X by the fit-time schema and y coded by the fit-time classes (None: regression), each
    output's by its own."""
    columns = transform(X, schema)
    n_rows = n_rows_of(columns)
    outputs = output_columns(y, n_rows, schema)
    if classes is None:
        targets = _stacked([regression_targets(column, n_rows) for column in outputs])
    else:
        per_output = classes if isinstance(classes, list) else [classes]
        coded = zip(outputs, per_output, strict=True)
        targets = _stacked([class_codes(column, n_rows, labels) for column, labels in coded])
    return LabelledData(columns, targets, sample_weights(sample_weight, n_rows))


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


def ordinals(value: Any) -> Ordinals:
    """`ordinal_features`: None, a list of column names (each column's own category order:
    an Enum's, or sorted), or a dict of column name to its categories in order (or None)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = ((name, None) for name in value)
    else:
        raise TypeError(
            "ordinal_features must be None, a list of column names, or a dict of column name "
            f"to its categories in order; got {type(value).__name__}"
        )
    ordinals: Ordinals = {}
    for name, order in items:
        if not isinstance(name, str):
            raise TypeError(f"ordinal_features names columns by string; got {name!r}")
        if order is not None and (
            isinstance(order, str) or not isinstance(order, (list, tuple, pl.Series))
        ):
            raise TypeError(
                f"ordinal_features[{name!r}] must list the categories in order; got {order!r}"
            )
        ordinals[name] = None if order is None else tuple(str(c) for c in order)
    return ordinals


def transform(X: Any, schema: Schema) -> list[Column]:
    """Encode X for a fitted tree: Polars columns by name, categories by the fit-time lists.

    A LazyFrame is collected with only the columns the tree reads."""
    if isinstance(X, pl.LazyFrame):
        _check_present(X.collect_schema().names(), schema)
        X = X.select(schema.names).collect()
    columns = _encode(_as_frame(X), schema)
    if any(feature.fill is not None for feature in schema.features):
        columns = [fill_column(c, f) for c, f in zip(columns, schema.features, strict=True)]
    return columns


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


def _dtype_name(y: Any) -> str | None:
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


def target_values(y: Any, n_rows: int) -> NDArray[Any]:
    """y as a 1-D NumPy array of n_rows labels, none of them missing or infinite."""
    if hasattr(y, "tocsr") or hasattr(y, "todense"):  # SciPy sparse (or alike): no import
        raise TypeError(
            f"y is a sparse matrix ({type(y).__name__}), but a tree needs a dense 1-D y; "
            "pass y.toarray().ravel()"
        )
    y = _single_column(as_polars(y))
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
    elif values.dtype.kind == "O":
        bad = np.fromiter((v is None or v != v for v in values), bool, len(values))
    else:
        return values
    if bad.any():
        raise ValueError(f"y is missing or not finite at row {_first(bad)}")
    return values


def _class_targets(y: Any, n_rows: int) -> tuple[NDArray[np.uint32], NDArray[Any]]:
    """Class codes and the labels they index: Enum order, [False, True], or sorted."""
    values = target_values(y, n_rows)
    if isinstance(y, pl.Series) and isinstance(y.dtype, (pl.String, pl.Categorical, pl.Enum)):
        categories = _categories(y)
        codes, _ = _category_codes(y, categories)
        return codes, np.array(categories)
    if values.dtype == np.bool_:
        return values.astype(np.uint32), np.array([False, True])
    fractional = values != np.round(values) if values.dtype.kind == "f" else None
    if fractional is not None and fractional.any():
        # Fractional labels are almost always a regression target given to a classifier.
        raise ValueError(
            "Unknown label type: continuous (y holds non-integer numbers such as "
            f"{values[_first(fractional)]}); a classifier needs class labels, "
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


def _warn_of_many_classes(n_classes: int, n_rows: int) -> None:
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
    values = _unboxed(target_values(y, n_rows), "regression targets", "")
    if values.dtype.kind not in "biuf":
        raise TypeError(f"regression targets must be numeric, got dtype {values.dtype}")
    return in_place(np.asarray(values, dtype=np.float64))


def sample_weights(sample_weight: Any, n_rows: int) -> NDArray[np.float64]:
    """Finite, non-negative weights, one per row; None means all ones. A weight of 0 makes
    the row absent (scikit-learn's meaning: bootstrap counts, folds left out)."""
    if sample_weight is None:
        return np.ones(n_rows)
    given = as_polars(sample_weight)
    # Converted first: array-likes (scikit-learn's NotAnArray) refuse NumPy's functions.
    weights = np.asarray(given, dtype=np.float64)
    if weights.ndim == 0:  # a scalar would become one weight for every row's share
        # The wording of scikit-learn's check (its tests match it), then what was meant.
        raise TypeError(
            "Input should have at least 1 dimension i.e. satisfy `len(x.shape) > 0`, got "
            f"scalar `{weights!r}` instead. sample_weight must be 1-D, one weight per row"
        )
    weights = in_place(weights)
    if weights.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D, got shape {weights.shape}")
    if len(weights) != n_rows:
        raise ValueError(f"sample_weight has {len(weights)} values but X has {n_rows} rows")
    bad = ~(np.isfinite(weights) & (weights >= 0))
    if bad.any():
        row = _first(bad)
        raise ValueError(
            f"sample_weight must be finite and not negative; row {row} is {weights[row]}"
        )
    with np.errstate(over="ignore"):
        total = weights.sum()
    if not np.isfinite(total):
        # every node's weight is a sum of these: an infinite one makes NaN probabilities
        raise ValueError(
            f"sample_weight sums to {total} (more than the largest float, "
            f"{np.finfo(np.float64).max:.3g}); scale the weights down"
        )
    return weights


def as_polars(obj: Any) -> Any:
    """pandas and Arrow objects as Polars ones; anything else as it is. pandas is never
    imported unless the caller did: a `category` column becomes an Enum of its categories
    (read from its codes, which needs no pyarrow); its `ordered` flag is read at fit by
    `_pandas_orders`. An object of the Arrow PyCapsule interface (a pyarrow Table,
    RecordBatch, RecordBatchReader, Array or ChunkedArray, a DuckDB relation, ...) is
    imported by Polars without a copy."""
    if isinstance(obj, pl.DataFrame | pl.Series | pl.LazyFrame):
        return obj
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(obj, pd.DataFrame | pd.Series):
        if isinstance(obj, pd.Series):
            return _pandas_series(obj)
        _refuse_duplicate_names([str(name) for name in obj.columns])
        # by position: `obj[name]` of a duplicated name would be a frame, not a column
        return pl.DataFrame([_pandas_series(obj.iloc[:, i]) for i in range(obj.shape[1])])
    if hasattr(obj, "__arrow_c_stream__") or hasattr(obj, "__arrow_c_array__"):
        return _from_arrow(obj)
    return obj


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
    categories (`_by_categories`): for thousands of categories, reading them (milliseconds)
    and building the Enum cost far more than encoding a few rows."""

    def made() -> pl.Series:
        categories = pandas_labels(dtype)
        return pl.Series("", categories, dtype=_enum(categories))

    return _by_categories(_PANDAS_ENUMS, dtype, made)


def _pandas_orders(X: Any) -> Ordinals:
    """The ordered pandas `category` columns of X, with their categories' order."""
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(X, pd.DataFrame):
        return {}
    return {
        str(name): tuple(str(c) for c in dtype.categories)
        for name, dtype in X.dtypes.items()
        if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered
    }


def _as_frame(X: Any) -> pl.DataFrame | NDArray[np.floating] | Any:
    """A Polars DataFrame, a NumPy array the core reads in place (see `_numeric_matrix`), or
    a SciPy sparse X as a canonical CSC matrix of float64 (see `_compressed`)."""
    X = as_polars(X)
    if isinstance(X, pl.LazyFrame):
        X = X.collect()
    if isinstance(X, pl.DataFrame):
        _check_not_empty(X.shape)
        return X
    if is_sparse(X):
        return _compressed(X, "csc")
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(
            f"X must be 2-D (rows x features), got shape {array.shape}. Reshape your data: "
            "X.reshape(-1, 1) for a single feature, X.reshape(1, -1) for a single row"
        )
    if array.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: X has dtype {array.dtype}")
    array = _unboxed(array, "X", "; pass a Polars DataFrame for categorical data")
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"X has dtype {array.dtype}, but NumPy X must be numeric or bool; "
            "pass a Polars DataFrame for categorical data"
        )
    _check_not_empty(array.shape)
    return _numeric_matrix(array)


# Integers of at most this magnitude are float32 numbers exactly (a 24-bit significand).
_FLOAT32_EXACT = 2**24
# NumPy dtypes the core reads in place.
_READ_IN_PLACE = (np.dtype(np.float32), np.dtype(np.float64))


def _numeric_matrix(array: NDArray[Any]) -> NDArray[np.floating]:
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


def _unboxed(values: NDArray[Any], what: str, hint: str) -> NDArray[Any]:
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


def _check_not_empty(shape: tuple[int, ...]) -> None:
    if 0 in shape:
        # scikit-learn's wording, which its estimator checks look for.
        what = "sample(s)" if shape[0] == 0 else "feature(s)"
        raise ValueError(
            f"X is empty: 0 {what} (shape=({shape[0]}, {shape[1]})) while a minimum of 1 "
            "is required."
        )


def _kind(series: pl.Series) -> Kind:
    kind = _dtype_kind(series.dtype)
    if kind is None:
        raise TypeError(f"column {series.name!r} has unsupported dtype {series.dtype}")
    return kind


def _dtype_kind(dtype: pl.DataType) -> Kind | None:
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


def _infer_features(
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
        elif _kind(series) == "numeric":
            if name in ordinal:
                raise ValueError(
                    f"ordinal_features names {name!r}, which is numeric (dtype "
                    f"{series.dtype}): numbers are ordered already"
                )
            features.append(Feature(name, time=time_of(series.dtype)))
        elif name in ordinal:
            order = ordinal[name]
            categories = _categories(series) if order is None else _checked_order(series, order)
            features.append(Feature(name, tuple(categories), ordered=True))
        else:
            features.append(Feature(name, tuple(_categories(series))))
    return tuple(features)


def _checked_order(series: pl.Series, order: tuple[str, ...]) -> tuple[str, ...]:
    """An explicit category order for `series`: distinct, and holding every value it has."""
    if len(set(order)) != len(order):
        raise ValueError(f"ordinal_features[{series.name!r}] lists a category twice: {order}")
    seen = set(series.cast(pl.String).drop_nulls().unique().to_list())
    lacking = sorted(seen - set(order))
    if lacking:
        raise ValueError(
            f"ordinal_features[{series.name!r}] lacks categories that column "
            f"{series.name!r} holds: {', '.join(map(repr, lacking[:10]))}"
        )
    return order


def _categories(series: pl.Series) -> list[str]:
    """Fit-time categories: an Enum's order, [false, true], else sorted so row order is moot.
    The order matters only to an ordinal feature; a nominal one splits by subsets."""
    if isinstance(series.dtype, pl.Enum):
        return series.dtype.categories.to_list()
    if series.dtype == pl.Boolean:
        return ["false", "true"]
    return series.cast(pl.String).drop_nulls().unique().sort().to_list()


def _encode(frame: pl.DataFrame | NDArray[np.float64] | Any, schema: Schema) -> list[Column]:
    features = schema.features
    if not isinstance(frame, pl.DataFrame):
        _check_numeric_width(frame.shape[1], schema)
        if is_sparse(frame):
            return _sparse_columns(frame, schema.names)
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
        kind = _kind(series)
        if kind != feature.kind:
            raise TypeError(
                f"column {feature.name!r} was {feature.kind} at fit but is {kind} "
                f"(dtype {series.dtype}) now"
            )
        if feature.categories is None:
            series = on_fit_scale(series, feature.time)
            columns.append(_numeric_column(feature.name, _series_numbers(series)))
        else:
            codes, missing = _category_codes(series, feature.categories)
            columns.append(
                ("categorical", codes, missing, len(feature.categories), feature.ordered)
            )
    return columns


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
                        if _kind(frame.to_series(p)) != feature.kind:
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
    kinds = [_dtype_kind(dtypes.get(f.name, pl.Null())) for f in features]
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
            series = series.cast(pl.String).cast(_enum(feature.categories), strict=False)
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
        code_map = _by_categories(maps[j], dtype, make)
        columns.append(("codes", unsigned, code_map, len(feature.categories)))
    return ("frame", columns, frame)


_T = TypeVar("_T")
# Made values kept per cache of `_by_categories` before it forgets them all.
_KEPT = 64
_PANDAS_LABELS: dict[int, tuple[Any, tuple[str, ...]]] = {}
_PANDAS_ENUMS: dict[int, tuple[Any, pl.Series]] = {}


def _by_categories(cache: dict[int, tuple[Any, _T]], dtype: Any, make: Callable[[], _T]) -> _T:
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


def _pandas_code_map(categories: tuple[str, ...], dtype: Any) -> NDArray[np.uint32] | None:
    """The fit's code of each category of a pandas `category` dtype (see `_code_map`)."""
    return _code_map(categories, pandas_labels(dtype))


def pandas_labels(dtype: Any) -> tuple[str, ...]:
    """A pandas `category` dtype's categories as the fit reads them (each as `str`), made once
    per categories: reading thousands of them costs milliseconds."""
    return _by_categories(
        _PANDAS_LABELS, dtype, lambda: tuple(str(c) for c in dtype.categories.tolist())
    )


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


def _check_numeric_width(width: int, schema: Schema) -> None:
    """A NumPy or sparse X must have the fit's features, all numeric."""
    features = schema.features
    if width != len(features):
        raise ValueError(
            f"X has {width} features, but quercus is expecting {len(features)} "
            "features as input (as many as at fit)"
        )
    for feature in features:
        if feature.kind != "numeric":
            raise TypeError(
                f"column {feature.name!r} was categorical at fit; pass a Polars DataFrame"
            )


def is_sparse(X: Any) -> bool:
    """Whether X is a SciPy sparse matrix or array. SciPy is not imported: a sparse X means
    it was."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(X))


def _compressed(X: Any, layout: Literal["csc", "csr"]) -> Any:
    """A sparse X as a canonical SciPy CSC (fit: the core reads columns) or CSR (predict:
    rows) matrix of float64: indices sorted, duplicates summed as `X.toarray()` sums them.
    Never densified, and the caller's matrix is left as it was (a copy is made when it must
    change). Any SciPy format is taken (COO, DOK, LIL, ... convert in O(stored values))."""
    if len(X.shape) != 2:
        raise ValueError(f"X must be 2-D (rows x features), got shape {X.shape}")
    _check_not_empty(X.shape)
    if X.dtype.kind == "c":  # SciPy's other dtypes are all numbers or bool
        raise ValueError(f"Complex data not supported: X has dtype {X.dtype}")
    matrix = X.tocsc() if layout == "csc" else X.tocsr()
    if matrix.dtype != np.float64:
        matrix = matrix.astype(np.float64)
    if not matrix.has_canonical_format:
        matrix = matrix.copy()
        matrix.sum_duplicates()
    return matrix


def _check_sparse_values(matrix: Any, names: list[str]) -> None:
    """No stored value may be NaN (a sparse X cannot mark missing values: scikit-learn refuses
    them too, with this message) or infinite; the first one is named by column and row."""
    bad = np.flatnonzero(~np.isfinite(matrix.data))
    if not bad.size:
        return
    major = np.searchsorted(matrix.indptr, bad, side="right") - 1
    minor = matrix.indices[bad]
    columns, rows = (major, minor) if matrix.format == "csc" else (minor, major)
    first = np.lexsort((rows, columns))[0]  # the first column with one, at its first row
    column, row = names[columns[first]], int(rows[first])
    if np.isnan(matrix.data[bad[first]]):
        raise ValueError(
            f"Input X contains NaN (column {column!r}, row {row}): a sparse X cannot hold "
            "missing values, as in scikit-learn; pass it dense (X.toarray()), where NaN "
            "means missing"
        )
    raise ValueError(f"column {column!r} has an infinite value at row {row}")


def _indices(indices: NDArray[np.integer]) -> NDArray[np.uint32]:
    """SciPy's int32 (or int64) indices as the core's uint32, viewed in place when int32
    (valid indices are not negative; the core checks their range)."""
    if indices.dtype == np.int32:
        return indices.view(np.uint32)
    return indices.astype(np.uint32)


def _sparse_columns(matrix: Any, names: list[str]) -> list[Column]:
    """A canonical CSC matrix as the core's sparse columns: each names its span of the
    matrix's arrays, which the core borrows once (no copy of int32 indices or float64
    values, and no NumPy view per column)."""
    _check_sparse_values(matrix, names)
    rows, values, n_rows = _indices(matrix.indices), matrix.data, matrix.shape[0]
    bounds = matrix.indptr.tolist()
    return [
        ("sparse", rows, values, start, stop, n_rows) for start, stop in itertools.pairwise(bounds)
    ]


def sparse_rows(X: Any, schema: Schema) -> CsrRows:
    """A sparse X for prediction: CSR arrays the core reads row by row (`_core.CsrRows`)."""
    matrix = _compressed(X, "csr")
    _check_numeric_width(matrix.shape[1], schema)
    return _csr_rows(matrix, schema.names)


def tree_rows(X: Any) -> CsrRows:
    """A sparse X given to a fitted `tree_` (scikit-learn's `Tree.apply` and `decision_path`
    take CSR): its CSR arrays, columns named by position (the core checks the width)."""
    matrix = _compressed(X, "csr")
    return _csr_rows(matrix, [str(j) for j in range(matrix.shape[1])])


def tree_columns(X: Any) -> list[Column]:
    """A NumPy or SciPy sparse X given to a fitted `tree_`'s `decision_path` (scikit-learn's
    `Tree` takes both): its numeric or sparse columns, named by position (never densified)."""
    if is_sparse(X):
        matrix = _compressed(X, "csc")
        return _sparse_columns(matrix, [str(j) for j in range(matrix.shape[1])])
    array = np.asarray(X, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"X must be 2-D (rows x features), got shape {array.shape}")
    return [_numeric_column(str(j), array[:, j]) for j in range(array.shape[1])]


def _csr_rows(matrix: Any, names: list[str]) -> CsrRows:
    _check_sparse_values(matrix, names)
    indptr = matrix.indptr
    indptr = indptr.view(np.uint64) if indptr.dtype == np.int64 else indptr.astype(np.uint64)
    return ("csr", indptr, _indices(matrix.indices), matrix.data, matrix.shape[1])


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
        stacklevel=7,  # predict's caller: predict, _rows, _columns, transform, _encode
    )
    return frame.rename(dict(zip(frame.columns, names, strict=True)))


def _check_present(columns: list[str], schema: Schema) -> None:
    present = set(columns)
    absent = [name for name in schema.names if name not in present]
    if absent:
        raise ValueError(f"X lacks the column(s) {', '.join(map(repr, absent))} seen at fit")


def _numeric_column(name: str, values: NDArray[np.floating]) -> Column:
    """A numeric core column; NaN means missing, but an infinity is an error."""
    _check_finite(name, values)
    return ("numeric", in_place(values))


def _series_numbers(series: pl.Series) -> NDArray[np.floating]:
    """A numeric Polars column as the core reads it: Float32 and Float64 as they are (a null
    as NaN), other numbers (integers, temporal values' ticks from `on_fit_scale`) as the
    narrowest float that holds each exactly, as `_numeric_matrix` casts NumPy's; decimals
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


def _check_finite(name: str, values: NDArray[np.floating]) -> None:
    """Refuses an infinity in a numeric column (NaN means missing); a block at a time, so
    the check's mask stays small whatever the column's length."""
    for start in range(0, len(values), _CHECK_BLOCK):
        infinite = np.isinf(values[start : start + _CHECK_BLOCK])
        if infinite.any():
            row = start + _first(infinite)
            raise ValueError(f"column {name!r} has an infinite value at row {row}")


# Rows checked for infinities at a time.
_CHECK_BLOCK = 1 << 16


def _matrix_columns(matrix: NDArray[np.floating], names: Sequence[str]) -> list[Column]:
    """The columns of a float32 or float64 matrix (`_numeric_matrix`), read in place: a
    column-major one's are contiguous; a row-major one's are strided views, passed with the
    matrix's flat view, the column's start in it and the row length, which the core reads
    as they lie."""
    if matrix.flags.f_contiguous:
        return [_numeric_column(name, matrix[:, j]) for j, name in enumerate(names)]
    flat = matrix.reshape(-1)
    width = matrix.shape[1]
    # A column of a row-major matrix is a strided view, slow to scan alone: the rows are
    # scanned a block at a time, and only a matrix holding an infinity column by column,
    # to name the first column that holds one.
    rows = max(1, _CHECK_BLOCK // max(width, 1))
    if any(np.isinf(matrix[s : s + rows]).any() for s in range(0, len(matrix), rows)):
        for j, name in enumerate(names):
            _check_finite(name, matrix[:, j])
    return [("numeric", matrix[:, j], flat, j, width) for j in range(len(names))]


def _category_codes(
    series: pl.Series, categories: list[str] | tuple[str, ...]
) -> tuple[NDArray[np.uint32], NDArray[np.bool_]]:
    """Codes into the fit-time categories; nulls and unseen values are flagged missing."""
    enum = _enum(tuple(categories))
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


@functools.lru_cache(maxsize=256)
def _enum(categories: tuple[str, ...]) -> pl.Enum:
    """The Enum dtype of a feature's categories, made once: building it costs more than
    predicting a row (about a millisecond for a thousand categories)."""
    return pl.Enum(categories)


def _first(mask: NDArray[np.bool_]) -> int:
    return int(np.flatnonzero(mask)[0])
