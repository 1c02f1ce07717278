"""A small Polars frame is encoded value by value into one coded array (categories as their
fit-time codes) instead of column by column: its predictions must equal the column
encoding's bit for bit, and whatever that encoding refuses it must refuse with the same
error. `decision_path` runs on the compact walk and the thread pool: the same paths for
every input form and thread count."""

from __future__ import annotations

import datetime as dt

import numpy as np
import polars as pl
import pytest

from quercus import DecisionTreeClassifier, DecisionTreeRegressor
from quercus.inputs.rows import SMALL_FRAME

COLOURS = ["red", "green", "blue", "teal", "plum"]
SIZES = ["S", "M", "L"]


def frame(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=n), 1)
    x[rng.random(n) < 0.1] = np.nan
    count = pl.Series("count", rng.integers(0, 9, n)).set(pl.Series(rng.random(n) < 0.1), None)
    colour = rng.choice([*COLOURS, "mauve"], n)  # mauve: unseen when fitted without it
    return pl.DataFrame(
        {
            "x": x,
            "count": count,
            "colour": pl.Series(colour).set(pl.Series(rng.random(n) < 0.1), None),
            "size": pl.Series(rng.choice(SIZES, n), dtype=pl.Enum(SIZES)),
            "flag": rng.random(n) < 0.4,
        }
    )


def target(X: pl.DataFrame) -> np.ndarray:
    colour = X["colour"].fill_null("red").is_in(["red", "teal"]).to_numpy()
    return (np.nan_to_num(X["x"].to_numpy()) > 0.2).astype(int) + colour + X["flag"].to_numpy()


@pytest.fixture(scope="module")
def train() -> pl.DataFrame:
    X = frame(3000, seed=0)
    return X.filter(pl.col("colour") != "mauve")


MODELS = [
    ("cart", "learned"),
    ("cart", "surrogate"),
    ("cart", "fractional"),
    ("c4.5", "fractional"),
    ("c4.5", "majority_branch"),
]


@pytest.mark.parametrize(("algorithm", "missing"), MODELS)
def test_small_frames_predict_as_their_columns(train, algorithm: str, missing: str) -> None:
    y = target(train)
    clf = DecisionTreeClassifier(
        algorithm=algorithm, missing=missing, ordinal_features=["size"], max_depth=8
    ).fit(train, y)
    reg = DecisionTreeRegressor(algorithm="cart", missing=missing).fit(train, y * 1.5)
    test = frame(400, seed=1)
    core = clf.tree_.core
    for start in range(0, 400, 7):
        for rows in (1, 2, SMALL_FRAME):
            part = test.slice(start, rows)
            coded = clf._rows(part)
            assert isinstance(coded, tuple) and coded[0] == "codes"
            columns = clf._columns(part)
            np.testing.assert_array_equal(clf.predict_proba(part), core.predict_proba(columns))
            np.testing.assert_array_equal(clf.apply(part), core.apply(columns))
            np.testing.assert_array_equal(reg.predict(part), reg.tree_.core.predict_value(columns))
    # Columns in another order, and one the tree does not read.
    shuffled = test.head(5).select("flag", "size", "x", "colour", "count").with_columns(z=1)
    np.testing.assert_array_equal(clf.predict_proba(shuffled), clf.predict_proba(test.head(5)))
    # Past the small-frame size the columns are read in place (`frame_rows`): same answers.
    big = test.head(SMALL_FRAME + 1)
    assert clf._rows(big)[0] == "frame"
    np.testing.assert_array_equal(
        clf.predict_proba(big)[:SMALL_FRAME], clf.predict_proba(big.head(SMALL_FRAME))
    )


def test_categories_by_label_whatever_the_input_dtype(train) -> None:
    clf = DecisionTreeClassifier(algorithm="cart", missing="learned").fit(train, target(train))
    test = frame(12, seed=3).filter(pl.col("colour") != "mauve")
    expected = clf.predict_proba(test)
    enum = pl.Enum(["plum", "teal", "blue", "green", "red", "other"])  # another order
    for dtype in (pl.Categorical, enum):
        other = test.with_columns(pl.col("colour").cast(dtype))
        np.testing.assert_array_equal(clf.predict_proba(other), expected)


def test_what_the_column_encoding_refuses_is_refused_alike(train) -> None:
    clf = DecisionTreeClassifier(algorithm="cart").fit(train, target(train))
    row = frame(1, seed=4)
    with pytest.raises(TypeError, match="column 'x' was numeric at fit but is categorical"):
        clf.predict(row.with_columns(x=pl.lit("1.5")))
    with pytest.raises(TypeError, match="column 'colour' was categorical at fit but is numeric"):
        clf.predict(row.with_columns(colour=pl.lit(3)))
    # A null says nothing of its type: the column's dtype does.
    with pytest.raises(TypeError, match="column 'x' was numeric at fit but is categorical"):
        clf.predict(row.with_columns(x=pl.lit(None, dtype=pl.String)))
    with pytest.raises(TypeError, match="column 'colour' was categorical at fit but is numeric"):
        clf.predict(row.with_columns(colour=pl.lit(None, dtype=pl.Float64)))
    with pytest.raises(ValueError, match="column 'x' has an infinite value at row 0"):
        clf.predict(row.with_columns(x=pl.lit(float("inf"))))
    with pytest.raises(ValueError, match="lacks the column"):
        clf.predict(row.drop("count"))
    # A temporal column is numeric (its physical value): encoded by columns, as before.
    days = DecisionTreeClassifier().fit(
        pl.DataFrame({"day": [dt.date(2024, 1, d) for d in range(1, 21)]}), [0] * 10 + [1] * 10
    )
    one = pl.DataFrame({"day": [dt.date(2024, 1, 15)]})
    assert isinstance(days._rows(one), list)
    assert days.predict(one).tolist() == [1]


def test_imputed_features_are_encoded_by_columns(train) -> None:
    clf = DecisionTreeClassifier(algorithm="cart", missing="impute_mean").fit(train, target(train))
    row = frame(3, seed=5)
    assert isinstance(clf._rows(row), list)
    np.testing.assert_array_equal(
        clf.predict_proba(row), clf.tree_.core.predict_proba(clf._columns(row))
    )


@pytest.mark.parametrize(("algorithm", "missing"), MODELS)
def test_decision_paths_on_every_input_and_thread_count(train, algorithm, missing) -> None:
    clf = DecisionTreeClassifier(algorithm=algorithm, missing=missing).fit(train, target(train))
    test = frame(20_000, seed=6)
    columns = clf._columns(test)
    expected = clf.tree_.decision_path(columns)
    leaves = clf.apply(test)
    for n_jobs in (None, 1, 3):
        clf.set_params(n_jobs=n_jobs)
        paths = clf.decision_path(test)
        assert (paths != expected).nnz == 0
    if missing != "fractional":  # every row reaches one leaf: its path ends there
        assert (paths.indices[paths.indptr[1:] - 1] == leaves).all()
    small = test.head(SMALL_FRAME)
    assert (clf.decision_path(small) != expected[:SMALL_FRAME]).nnz == 0


def test_decision_paths_of_a_numeric_matrix() -> None:
    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(2000, 4)), 1)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    for missing in ("fractional", "learned", "surrogate"):
        clf = DecisionTreeClassifier(missing=missing).fit(X, y)
        expected = clf.tree_.decision_path(clf._columns(X))
        for rows in (X, np.asfortranarray(X), X.astype(np.float32)):
            assert (clf.decision_path(rows) != expected).nnz == 0
