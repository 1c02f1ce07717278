"""Row weights, validated once on the way in, and the class weights folded into them.

`sample_weight` is checked here and nowhere else in Python (`sample_weights`: one finite,
non-negative weight per row, summing to a finite total), once per data set. A classifier's
`class_weight` or `priors` become one factor per class (`class_factors`), which `folded`
multiplies into the row weights the core grows with; a multi-output y takes its class
weights straight into the row weights (`output_weighted`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .frames import as_polars
from .schema import TrainingData
from .values import first_true, in_place


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
        row = first_true(bad)
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


def class_factors(data: TrainingData, class_weight: Any, priors: Any) -> NDArray[np.float64] | None:
    """The factor each class's row weights are multiplied by (a 1-D y): `class_weight` (a dict
    label -> weight, or "balanced": n_rows / (n_classes * class count), as in scikit-learn)
    or `priors` (rpart's: class k's factor is π_k / f_k, f_k its weighted share of the rows,
    so that each class weighs its prior); None for neither."""
    assert data.classes is not None  # a classifier's data
    if priors is not None:
        return prior_factors(priors, data)
    if class_weight is None:
        return None
    return per_class(class_weight, data.classes, data.y)


def folded(data: TrainingData, factors: NDArray[np.float64] | None) -> TrainingData:
    """`data` with each row's weight multiplied by its class's factor (None: as it is)."""
    if factors is None:
        return data
    return replace(data, sample_weight=data.sample_weight * factors[data.y])


def output_weighted(data: TrainingData, class_weight: Any) -> TrainingData:
    """A multi-output y's `class_weight` folded into the row weights: a list of dicts, one
    per output, or "balanced"; a row's weight is multiplied by its class weight in every
    output (scikit-learn's `compute_sample_weight`)."""
    assert data.classes is not None  # a classifier's data
    classes = data.classes if isinstance(data.classes, list) else [data.classes]
    codes = data.y.reshape(len(data.y), -1)
    n_outputs = len(classes)
    if isinstance(class_weight, str):
        per_output: list[Any] = [class_weight] * n_outputs
    elif isinstance(class_weight, Mapping):
        if n_outputs > 1:
            raise ValueError(
                "For multi-output, class_weight should be a list of dicts, or the string "
                "'balanced'."
            )
        per_output = [class_weight]
    else:
        if len(class_weight) != n_outputs:
            raise ValueError(
                "For multi-output, number of elements in class_weight should match number "
                f"of outputs. (got {len(class_weight)}, y has {n_outputs})"
            )
        per_output = list(class_weight)
    factor = np.ones(len(codes))
    for k, (output, labels) in enumerate(zip(per_output, classes, strict=True)):
        if not isinstance(output, str | Mapping):
            raise TypeError(f"class_weight lists dicts (one per output); got {output!r}")
        factor *= per_class(output, labels, codes[:, k])[codes[:, k]]
    return replace(data, sample_weight=data.sample_weight * factor)


def per_class(given: Any, labels: NDArray[Any], codes: NDArray[np.uint32]) -> NDArray[Any]:
    """One output's weight per class (in `labels` order): "balanced" (n_rows / (n_classes *
    class count), as scikit-learn), or a dict label -> weight (1 for a class it omits)."""
    if isinstance(given, str):
        counts = np.bincount(codes, minlength=len(labels))
        return len(codes) / (len(labels) * np.maximum(counts, 1))
    listed = labels.tolist()
    unknown = [k for k in given if k not in listed]
    if unknown:
        raise ValueError(f"class_weight names classes not in y: {unknown!r}")
    weights = np.array([float(given.get(c, 1.0)) for c in listed])
    if not np.all(np.isfinite(weights) & (weights > 0)):
        raise ValueError("class_weight values must be finite and positive")
    return weights


def prior_factors(priors: Any, data: TrainingData) -> NDArray[np.float64]:
    """rpart's priors as class factors π_k / f_k, f_k class k's share of the row weight:
    `priors` is a dict label -> prior or a sequence in `classes_` order, each > 0, summing
    to 1."""
    prior = prior_values(priors, data)
    share = np.bincount(data.y, weights=data.sample_weight, minlength=len(prior))
    return prior / (share / share.sum())


def prior_values(priors: Any, data: TrainingData) -> NDArray[np.float64]:
    """`priors` (as `prior_factors` takes them) in `classes_` order, checked."""
    assert data.classes is not None
    labels = data.classes.tolist()
    if isinstance(priors, dict):
        unknown = [k for k in priors if k not in labels]
        missing = [c for c in labels if c not in priors]
        if unknown or missing:
            raise ValueError(
                f"priors must give every class of y one prior; unknown {unknown!r}, "
                f"missing {missing!r}"
            )
        values = [priors[c] for c in labels]
    else:
        values = list(np.asarray(priors).ravel())
    if len(values) != len(labels):
        raise ValueError(f"priors must hold one value per class ({len(labels)}), got {len(values)}")
    try:
        prior = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"priors must be numbers; got {values!r}") from None
    if not (np.all(np.isfinite(prior) & (prior > 0)) and abs(prior.sum() - 1.0) <= 1e-9):
        raise ValueError(f"priors must be positive and sum to 1; got {prior.tolist()}")
    return prior
