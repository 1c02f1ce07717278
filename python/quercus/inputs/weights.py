"""Row weights, validated once on the way in: `sample_weight` is checked here and nowhere else
in Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .frames import as_polars
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
