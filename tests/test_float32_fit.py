"""Fitting reads float32 (and exactly representable integer) features in place, with no float64
copy, and grows byte for byte the model its float64 copy grows: a float32 converts to float64
exactly. The core's own test (rust/core/tests/float32.rs) covers the search paths; these cover
the facade's layouts (C- and Fortran-ordered, strided slices, Polars), integers, pruning, and
the errors an infinity still raises."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from quercus import DecisionTreeClassifier, DecisionTreeRegressor

ROWS = 400


def float32_data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row-major float32 X (smooth, tied, signed-zero and nearly equal columns, 8% missing),
    three classes and a positive regression target."""
    rng = np.random.default_rng(seed)
    X = np.empty((ROWS, 4), dtype=np.float32)
    X[:, 0] = rng.uniform(-5, 5, ROWS)
    X[:, 1] = np.floor(rng.uniform(0, 8, ROWS)) * 0.25
    X[:, 2] = np.where(rng.random(ROWS) < 0.5, -0.0, 0.0) + np.floor(rng.uniform(0, 3, ROWS))
    X[:, 3] = 1 + np.floor(rng.uniform(0, 64, ROWS)) * np.finfo(np.float32).eps
    X[rng.random(X.shape) < 0.08] = np.nan
    score = np.nan_to_num(X[:, 0]) + 2 * np.nan_to_num(X[:, 1]) + rng.uniform(0, 3, ROWS)
    classes = (score > 2).astype(int) + (score > 5)
    return X, classes, score + 10


def layouts(X: np.ndarray) -> dict[str, np.ndarray]:
    """X as a caller may hold it: rows or columns contiguous, a strided slice of a wider
    matrix, or a non-contiguous view."""
    wide = np.empty((X.shape[0], 2 * X.shape[1]), dtype=X.dtype)
    wide[:, ::2] = X
    return {
        "C": np.ascontiguousarray(X),
        "F": np.asfortranarray(X),
        "every other column": wide[:, ::2],
        "every other row": np.repeat(X, 2, axis=0)[::2],
    }


CASES = [
    (splitter, missing)
    for splitter in ("exact", "hist", "random")
    for missing in ("fractional", "learned", "surrogate", "separate", "impute_mean", "drop_rows")
]


@pytest.mark.parametrize(("splitter", "missing"), CASES)
@pytest.mark.parametrize("weights", ["none", "random", "zeros"])
def test_float32_classifier_is_the_float64_one(splitter: str, missing: str, weights: str) -> None:
    X, y, _ = float32_data()
    rng = np.random.default_rng(1)
    sample_weight = {
        "none": None,
        "random": rng.uniform(0.2, 2, ROWS),
        "zeros": (np.arange(ROWS) % 5 != 0).astype(float),
    }[weights]
    params = {"splitter": splitter, "missing": missing, "max_depth": 6, "random_state": 0}
    reference = DecisionTreeClassifier(**params).fit(
        X.astype(np.float64), y, sample_weight=sample_weight
    )
    for name, held in layouts(X).items():
        model = DecisionTreeClassifier(**params).fit(held, y, sample_weight=sample_weight)
        assert model.to_bytes() == reference.to_bytes(), name


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error", "poisson"])
@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_float32_regressor_is_the_float64_one(criterion: str, splitter: str) -> None:
    X, _, y = float32_data(2)
    params = {"criterion": criterion, "splitter": splitter, "max_depth": 5, "missing": "learned"}
    reference = DecisionTreeRegressor(**params).fit(X.astype(np.float64), y)
    for name, held in layouts(X).items():
        model = DecisionTreeRegressor(**params).fit(held, y)
        assert model.to_bytes() == reference.to_bytes(), name


@pytest.mark.parametrize("algorithm", ["c4.5", "j48", "cart"])
def test_float32_algorithms_and_pruning_are_the_float64_ones(algorithm: str) -> None:
    X, y, _ = float32_data(3)
    params = {"algorithm": algorithm, "ccp_alpha": 0.002} if algorithm == "cart" else {}
    reference = DecisionTreeClassifier(**params).fit(X.astype(np.float64), y)
    model = DecisionTreeClassifier(**params).fit(X, y)
    assert model.to_bytes() == reference.to_bytes()


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.bool_])
def test_integers_grow_the_float64_tree(dtype: type) -> None:
    rng = np.random.default_rng(4)
    high = 2 if dtype is np.bool_ else 100
    X = rng.integers(0, high, size=(ROWS, 3)).astype(dtype)
    if dtype in (np.int32, np.int64):
        X[:, 2] *= 300_000  # beyond float32's exact integers: that column is read as float64
    y = (X[:, 0].astype(float) + rng.uniform(0, 50, ROWS) > 60).astype(int)
    for splitter in ("exact", "hist"):
        reference = DecisionTreeClassifier(splitter=splitter).fit(X.astype(np.float64), y)
        model = DecisionTreeClassifier(splitter=splitter).fit(X, y)
        assert model.to_bytes() == reference.to_bytes(), splitter


def test_int64_beyond_2_53_rounds_as_numpy_casts() -> None:
    """Documented: integers float64 cannot hold are rounded as NumPy's cast rounds them."""
    X = np.array([[2**53], [2**53 + 1], [2**53 + 3], [2**53 + 5]], dtype=np.int64)
    y = np.array([0, 0, 1, 1])
    model = DecisionTreeClassifier().fit(X, y)
    assert model.to_bytes() == DecisionTreeClassifier().fit(X.astype(np.float64), y).to_bytes()


def test_polars_float32_and_integer_columns_are_the_float64_ones() -> None:
    X, y, _ = float32_data(5)
    frame = pl.DataFrame(
        {
            "a": X[:, 0],
            "b": X[:, 1],
            "n": (np.nan_to_num(X[:, 3]) * 1000).astype(np.int32),
            "big": np.arange(ROWS, dtype=np.int64) * 2**40,
        }
    ).with_columns(pl.col("b").fill_nan(None))
    wide = frame.with_columns(pl.all().cast(pl.Float64))
    for splitter in ("exact", "hist"):
        reference = DecisionTreeClassifier(splitter=splitter).fit(wide, y)
        model = DecisionTreeClassifier(splitter=splitter).fit(frame, y)
        assert model.to_bytes() == reference.to_bytes(), splitter


@pytest.mark.parametrize("order", ["C", "F"])
def test_an_infinite_float32_value_is_named(order: str) -> None:
    X, y, _ = float32_data()
    X = np.array(X, order=order)
    X[123, 2] = np.inf
    X[7, 3] = -np.inf  # an earlier row, in a later column: the first column is named
    with pytest.raises(ValueError, match=r"column 'x2' has an infinite value at row 123"):
        DecisionTreeClassifier().fit(X, y)


def test_the_callers_matrix_is_not_copied_or_changed() -> None:
    """The fit reads X where it lies: a C-ordered float32 X is handed over as strided views of
    itself, and left as it was."""
    X, y, _ = float32_data()
    before = X.copy()
    from quercus.inputs.encoding import _matrix_columns
    from quercus.inputs.frames import as_frame

    matrix = as_frame(X)
    assert matrix is X
    columns = _matrix_columns(matrix, ["a", "b", "c", "d"])
    assert all(np.shares_memory(column[1], X) for column in columns)
    DecisionTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(X, before)
