"""Every error the Rust core can raise reaches Python as a clear exception.

The facade validates inputs before they reach the core, so these tests call the extension
directly with the malformed arrays a buggy caller could pass: each core error variant must come
out as `QuercusError` (a `ValueError`) or `TypeError` with its message, never as a panic.
The one variant not triggered here, `TooManyRows`, needs more than 2^32 rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from quercus import QuercusError, _core

PARAMS: dict[str, Any] = {
    "criterion": "gini",
    "categorical_split": "binary",
    "max_depth": None,
    "min_samples_split": 2,
    "min_samples_leaf": 1,
    "max_exhaustive_categories": 12,
    "max_leaf_nodes": None,
    "min_weight_fraction_leaf": 0.0,
    "min_gain": 0.0,
    "max_p_value": None,
    "min_objects": 0.0,
    "numeric_gain_correction": False,
    "conventions": "texts",
    "cost_matrix": None,
    "altered_priors": False,
    "class_weights": None,
    "oblique": False,
    "missing": "fractional",
    "max_surrogates": 5,
    "splitter": "auto",
    "max_bins": 255,
    "max_cat_threshold": None,
    "cat_smooth": 0.0,
    "cat_l2": 0.0,
    "min_data_per_group": 1,
    "n_jobs": None,
    "min_impurity_decrease": 0.0,
    "max_features": None,
    "random_state": 0,
    "monotonic_cst": None,
    "prior_weights": None,
    "priors": None,
    "j48_pruning_set": False,
}


def numeric(values: list[float]) -> tuple[str, np.ndarray]:
    return ("numeric", np.asarray(values, dtype=np.float64))


def categorical(codes: list[int], n_categories: int) -> tuple[Any, ...]:
    codes_array = np.asarray(codes, dtype=np.uint32)
    return ("categorical", codes_array, np.zeros(len(codes), dtype=bool), n_categories, False)


def fit(columns: list[Any], y: list[int], weights: list[float] | None = None, **params: Any):
    n = len(y)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    return _core.fit(columns, np.asarray(y, dtype=np.uint32), 2, w, PARAMS | params)


def good_tree() -> _core.Tree:
    return fit([numeric([0.0, 1.0, 2.0, 3.0])], [0, 0, 1, 1])


CASES = {
    "EmptyData": (lambda: fit([numeric([])], []), QuercusError, "empty"),
    "ShapeMismatch": (
        lambda: fit([numeric([0.0, 1.0]), numeric([0.0])], [0, 1]),
        QuercusError,
        "has length 1, expected 2",
    ),
    "InfiniteFeature": (
        lambda: fit([numeric([0.0, np.inf])], [0, 1]),
        QuercusError,
        "infinite value at row 1",
    ),
    "NonFiniteTarget": (
        lambda: _core.fit([numeric([0.0, 1.0])], np.array([0.0, np.nan]), 0, np.ones(2), PARAMS),
        QuercusError,
        "non-finite value",
    ),
    "ClassOutOfRange": (lambda: fit([numeric([0.0, 1.0])], [0, 7]), QuercusError, "class code 7"),
    "CategoryOutOfRange": (
        lambda: fit([categorical([0, 5], 2)], [0, 1]),
        QuercusError,
        "category code 5",
    ),
    "InvalidWeight": (
        lambda: fit([numeric([0.0, 1.0])], [0, 1], [1.0, -1.0]),
        QuercusError,
        "row 1 has -1",
    ),
    "InvalidParameter": (
        lambda: fit([numeric([0.0, 1.0])], [0, 1], min_samples_leaf=0),
        QuercusError,
        "min_samples_leaf",
    ),
    "ColumnKindMismatch": (
        lambda: good_tree().predict_class([categorical([0, 1], 2)]),
        TypeError,
        "was numeric when the tree was fitted",
    ),
    "NodeOutOfRange": (lambda: good_tree().node_scores(99), QuercusError, "node 99 does not exist"),
    "CorruptModel": (
        lambda: _core.tree_from_bytes(b"\x89QRC\r\n\x1a\n" + b"\x01\x00\x00\x00" + b"\x00" * 4),
        QuercusError,
        "cannot load the model",
    ),
    "UnsupportedVersion": (
        lambda: _core.tree_from_bytes(
            good_tree().to_bytes()[:8] + (99).to_bytes(4, "little") + good_tree().to_bytes()[12:]
        ),
        QuercusError,
        "format version 99",
    ),
}


@pytest.mark.parametrize("variant", sorted(CASES))
def test_every_core_error_variant_is_a_clear_python_exception(variant: str) -> None:
    call, expected, message = CASES[variant]
    with pytest.raises(expected, match=message) as raised:
        call()
    assert type(raised.value).__name__ != "PanicException"
    if expected is QuercusError:
        assert isinstance(raised.value, ValueError)
