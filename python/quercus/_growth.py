"""scikit-learn's growth parameters resolved against the training data, with scikit-learn's
rules and messages (sklearn/tree/_classes.py, `BaseDecisionTree._fit`): `max_features`,
`random_state`, fractional `min_samples_split` / `min_samples_leaf` and `monotonic_cst`."""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any

import numpy as np

# Seeds are u64 in the core; an int random_state is used as it is, as NumPy's RandomState
# takes it (0 to 2**32 - 1).
_SEED_MAX = 2**32 - 1
_DRAW_MAX = 2**63 - 1
# The largest count the core takes (a Rust usize on every platform quercus builds for).
_COUNT_MAX = sys.maxsize


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def _is_fraction(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not _is_int(value) and not isinstance(value, bool)


def max_features(value: Any, n_features: int) -> int:
    """The features searched per node: "sqrt" and "log2" of the count (at least 1), a fraction
    of it (at least 1), a count, or None for all."""
    if value is None:
        return n_features
    if isinstance(value, str):
        if value == "sqrt":
            return max(1, int(math.sqrt(n_features)))
        if value == "log2":
            return max(1, int(math.log2(n_features))) if n_features > 0 else 1
    elif _is_int(value):
        if 1 <= value <= _COUNT_MAX:
            return int(value)
    elif _is_fraction(value) and 0.0 < value <= 1.0:
        return max(1, int(value * n_features))
    raise ValueError(
        "The 'max_features' parameter must be an int in the range [1, inf), a float in the "
        f"range (0.0, 1.0], a str among {{'log2', 'sqrt'}} or None; got {value!r}"
    )


def seed(random_state: Any) -> int:
    """The core's seed from `random_state`, as scikit-learn's `check_random_state` reads it:
    an int is the seed; a NumPy RandomState or Generator (None: NumPy's global RandomState)
    gives one draw, so refitting with the same generator grows another tree."""
    if random_state is None:
        random_state = np.random.mtrand._rand
    if _is_int(random_state):
        if 0 <= random_state <= _SEED_MAX:
            return int(random_state)
    elif isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, _DRAW_MAX, dtype=np.int64))
    elif isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, _DRAW_MAX))
    raise ValueError(
        f"The 'random_state' parameter must be an int in the range [0, {_SEED_MAX}], a "
        f"numpy.random.RandomState, a numpy.random.Generator or None; got {random_state!r}"
    )


def sample_count(name: str, value: Any, n_rows: int, *, leaf: bool) -> int:
    """`min_samples_leaf` (leaf=True: an int >= 1 or a fraction in (0, 1)) or
    `min_samples_split` (an int >= 2 or a fraction in (0, 1]) as a count of rows; a fraction
    f of n rows is ceil(f * n) (at least 2 for a split), as in scikit-learn."""
    least = 1 if leaf else 2
    if _is_int(value) and least <= value <= _COUNT_MAX:
        return int(value)
    if _is_fraction(value) and 0.0 < value and (value < 1.0 if leaf else value <= 1.0):
        return max(least, math.ceil(value * n_rows))
    interval = "(0.0, 1.0)" if leaf else "(0.0, 1.0]"
    raise ValueError(
        f"The {name!r} parameter must be an int in the range [{least}, inf) or a float in the "
        f"range {interval}; got {value!r}"
    )


def monotonic_cst(value: Any, n_features: int, n_classes: int) -> list[int] | None:
    """`monotonic_cst` as a list of -1, 0, 1 per feature (None: no constraint), checked as
    scikit-learn checks it, with its messages."""
    if value is None:
        return None
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
