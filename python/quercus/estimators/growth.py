"""scikit-learn's growth parameters resolved against the training data, with scikit-learn's
rules (sklearn/tree/_classes.py, `BaseDecisionTree._fit`): `max_features`, `random_state`,
fractional `min_samples_split` / `min_samples_leaf` and `monotonic_cst`. The values come
checked against the constraint table; what is left to check needs the data."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

# A seed drawn from a generator: the core takes a u64; NumPy draws int64s.
_DRAW_MAX = 2**63 - 1


def max_features(value: int | float | str | None, n_features: int) -> int:
    """The features searched per node: "sqrt" and "log2" of the count (at least 1), a fraction
    of it (at least 1), a count, or None for all."""
    if value is None:
        return n_features
    if value == "sqrt":
        return max(1, int(math.sqrt(n_features)))
    if value == "log2":
        return max(1, int(math.log2(n_features))) if n_features > 0 else 1
    if isinstance(value, float):
        return max(1, int(value * n_features))
    return int(value)


def seed(random_state: Any) -> int:
    """The core's seed from `random_state`, as scikit-learn's `check_random_state` reads it:
    an int is the seed; a NumPy RandomState or Generator (None: NumPy's global RandomState)
    gives one draw per fit, so refitting with the same generator grows another tree (as in
    scikit-learn, which draws once per fit whether or not the tree needs randomness)."""
    if random_state is None:
        random_state = np.random.mtrand._rand
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, _DRAW_MAX, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, _DRAW_MAX))
    return int(random_state)


def sample_count(value: int | float, n_rows: int, *, least: int) -> int:
    """`min_samples_leaf` (least 1) or `min_samples_split` (least 2) as a count of rows: a
    fraction f of n rows is ceil(f * n), at least `least`, as in scikit-learn."""
    if isinstance(value, float):
        return max(least, math.ceil(value * n_rows))
    return int(value)


def monotonic_cst(value: Any, n_features: int, n_classes: int | list[int]) -> list[int] | None:
    """`monotonic_cst` as a list of -1, 0, 1 per feature (None: no constraint), checked as
    scikit-learn checks it, with its messages; `n_classes` is a list for a multi-output y."""
    if value is None:
        return None
    if isinstance(n_classes, list):
        raise ValueError(
            "Monotonicity constraints are not supported with multiple outputs "
            f"(monotonic_cst; y has {len(n_classes)} columns)"
        )
    cst = np.asarray(value)
    if cst.ndim != 1 or cst.shape[0] != n_features:
        shape = cst.shape[0] if cst.ndim == 1 else cst.shape
        raise ValueError(
            f"monotonic_cst has shape {shape} but the input data X has {n_features} features."
        )
    if cst.dtype.kind not in "biuf" or not np.all(np.isin(cst, (-1, 0, 1))):
        raise ValueError(
            f"monotonic_cst must be None or an array-like of -1, 0 or 1, but got {np.unique(cst)}"
        )
    if n_classes > 2 and np.any(cst != 0):
        raise ValueError(
            "Monotonicity constraints are not supported with multiclass classification "
            f"(monotonic_cst; the target has {n_classes} classes)"
        )
    return [int(c) for c in cst]
