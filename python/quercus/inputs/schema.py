"""What the inputs are once read: the features and target of a fit (`Feature`, `Schema`), and the
encoded data sets handed to the core (`TrainingData` for a fit, `LabelledData` for held-out or
extra rows).

A `Schema` is made at fit and kept with the model: every later X (predict, score, validation,
pruning rows) is read through it, so its columns are matched, encoded and filled as at fit.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import numpy as np
import polars as pl
from numpy.typing import NDArray

if TYPE_CHECKING:
    from .._core import Column


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
    # A date, time or duration column: the dtype it was fit on (`temporal.time_of`), whose
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
    # The `missing=` strategy of the fit (see `quercus.inputs.missing`).
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
        """`pandas_rows`' code maps of each feature, by pandas categories (`by_categories`):
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
# order it was given (None: the column's own, see `column_categories`).
Ordinals: TypeAlias = dict[str, tuple[str, ...] | None]


@dataclass(frozen=True)
class LabelledData:
    """Rows for a fitted tree (validation or pruning data), encoded as at fit."""

    columns: list[Column]
    y: NDArray[Any]  # uint32 class codes, or float64 regression targets
    sample_weight: NDArray[np.float64]

    def as_core(self) -> tuple[list[Column], NDArray[Any], NDArray[np.float64]]:
        return self.columns, self.y, self.sample_weight


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
