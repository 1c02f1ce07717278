"""Exact and histogram threshold search, `splitter="auto"`, and thread counts.

The histogram search bins each numeric column once (at most `max_bins` quantile bins) and
tests thresholds at bin edges. With fewer distinct values than bins, every value has a bin of
its own and the edges are the exact search's midpoints, so both grow the same tree.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import make_classification, make_regression

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor
from quercus._core import QuercusError


def coarse_data(seed: int, regression: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Continuous data rounded to a few dozen distinct values per column, with 5% missing."""
    rng = np.random.default_rng(seed)
    if regression:
        X, y = make_regression(n_samples=3000, n_features=6, noise=5.0, random_state=seed)
    else:
        X, y = make_classification(
            n_samples=3000, n_features=6, n_informative=4, n_classes=3, random_state=seed
        )
    X = np.round(X * 4) / 4
    X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


def same_structure(a: quercus.DecisionTreeClassifier, b: quercus.DecisionTreeClassifier) -> None:
    na, nb = a.tree_.nodes(), b.tree_.nodes()
    for key in ("kind", "feature", "n_children", "first_child", "missing_child"):
        np.testing.assert_array_equal(na[key], nb[key], err_msg=key)
    np.testing.assert_allclose(na["threshold"], nb["threshold"], rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("missing", ["fractional", "learned", "surrogate"])
def test_hist_equals_exact_when_values_fit_in_bins(seed: int, missing: str) -> None:
    X, y = coarse_data(seed)
    exact = DecisionTreeClassifier(splitter="exact", missing=missing, max_depth=8).fit(X, y)
    hist = DecisionTreeClassifier(splitter="hist", missing=missing, max_depth=8).fit(X, y)
    assert (exact.splitter_, hist.splitter_) == ("exact", "hist")
    assert hist.tree_.max_bins == 255
    assert exact.node_scores(0).height == X.shape[1]
    with pytest.raises(ValueError, match="exact search only"):
        hist.node_scores(0)
    same_structure(exact, hist)
    np.testing.assert_allclose(exact.predict_proba(X), hist.predict_proba(X), atol=1e-9)


def test_hist_regression_equals_exact_when_values_fit_in_bins() -> None:
    X, y = coarse_data(2, regression=True)
    exact = DecisionTreeRegressor(splitter="exact", max_depth=6).fit(X, y)
    hist = DecisionTreeRegressor(splitter="hist", max_depth=6).fit(X, y)
    same_structure(exact, hist)
    np.testing.assert_allclose(exact.predict(X), hist.predict(X), rtol=1e-9)


def test_hist_thresholds_fall_between_bins_and_accuracy_holds() -> None:
    """Continuous columns (thousands of distinct values): with 2 bins a feature has one
    possible threshold, whatever the node; with 32 bins held-out accuracy stays near the exact
    search's. (A threshold lies midway between the greatest training value of one non-empty
    bin and the least of the next, so it is an exact-search threshold whenever bins hold one
    value each.)"""
    X, y = make_classification(n_samples=20_000, n_features=8, n_informative=5, random_state=3)
    train, test = slice(0, 15_000), slice(15_000, None)
    two = DecisionTreeClassifier(splitter="hist", max_bins=2, max_depth=8).fit(X[train], y[train])
    nodes = two.tree_.nodes()
    split = nodes["n_children"] > 0
    for f in range(X.shape[1]):
        assert len(np.unique(nodes["threshold"][split & (nodes["feature"] == f)])) <= 1
    exact = DecisionTreeClassifier(splitter="exact", max_depth=8).fit(X[train], y[train])
    hist = DecisionTreeClassifier(splitter="hist", max_bins=32, max_depth=8).fit(X[train], y[train])
    exact_acc = (exact.predict(X[test]) == y[test]).mean()
    hist_acc = (hist.predict(X[test]) == y[test]).mean()
    assert hist_acc > exact_acc - 0.02


def test_auto_picks_by_rows() -> None:
    X, y = make_classification(n_samples=1000, n_features=4, random_state=0)
    assert DecisionTreeClassifier(max_depth=3).fit(X, y).splitter_ == "exact"
    rng = np.random.default_rng(0)
    big = rng.normal(size=(200_000, 2))
    labels = (big[:, 0] + big[:, 1] > 0).astype(int)
    assert DecisionTreeClassifier(max_depth=2).fit(big, labels).splitter_ == "hist"
    assert DecisionTreeClassifier(max_depth=2, splitter="exact").fit(big, labels).splitter_ == (
        "exact"
    )


@pytest.mark.parametrize("algorithm", ["id3", "c4.5"])
def test_the_texts_algorithms_search_exactly_at_every_size(algorithm) -> None:
    # From 200,000 rows "best" bins the columns for cart; ID3's and C4.5's thresholds are the
    # texts' midpoints (J48's training values), so their presets keep the exact search.
    rng = np.random.default_rng(1)
    n = 200_000
    X = pl.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.05, np.nan, rng.normal(size=n)),
            "b": rng.normal(size=n),
            "c": rng.choice(["p", "q", "r"], size=n),
        }
    ).with_columns(pl.col("c").cast(pl.Enum(["p", "q", "r"])))
    y = np.where(X["a"].fill_nan(0.0).to_numpy() + X["b"].to_numpy() > 0.3, "yes", "no")
    model = DecisionTreeClassifier(algorithm=algorithm, max_depth=3).fit(X, y)
    assert model.splitter_ == "exact" and model.get_params()["splitter"] == "best"
    exact = DecisionTreeClassifier(algorithm=algorithm, max_depth=3, splitter="exact").fit(X, y)
    ours, theirs = model.tree_.nodes(), exact.tree_.nodes()
    for key, values in ours.items():
        np.testing.assert_array_equal(values, theirs[key], err_msg=key)
    regressor = DecisionTreeRegressor(algorithm=algorithm, max_depth=2).fit(X, X["b"])
    assert regressor.splitter_ == "exact"
    cart = DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert cart.splitter_ == "hist"


def test_class_majority_fills_search_exactly() -> None:
    X, y = coarse_data(0)
    model = DecisionTreeClassifier(missing="class_majority", max_depth=3).fit(X, y)
    assert model.splitter_ == "exact"
    with pytest.raises(QuercusError, match="class_majority"):
        DecisionTreeClassifier(missing="class_majority", splitter="hist").fit(X, y)


def test_hist_with_categorical_columns() -> None:
    rng = np.random.default_rng(4)
    n = 4000
    colour = rng.choice(["red", "green", "blue", "white"], size=n)
    x = rng.normal(size=n)
    y = np.where((colour == "red") | (x > 0.5), "yes", "no")
    frame = pl.DataFrame({"colour": colour, "x": x, "y": y})
    model = DecisionTreeClassifier(splitter="hist", max_bins=32).fit(frame, target="y")
    assert model.splitter_ == "hist"
    assert (model.predict(frame) == frame["y"].to_numpy()).mean() > 0.97


@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_thread_count_changes_nothing(splitter: str) -> None:
    """Features are searched in parallel above a few thousand rows; the tree (to the byte)
    must not depend on how many threads did it."""
    X, y = make_classification(n_samples=20_000, n_features=10, random_state=5)
    X[np.random.default_rng(5).random(X.shape) < 0.02] = np.nan
    one = DecisionTreeClassifier(splitter=splitter, n_jobs=1, max_depth=10).fit(X, y)
    two = DecisionTreeClassifier(splitter=splitter, n_jobs=2, max_depth=10).fit(X, y)
    every = DecisionTreeClassifier(splitter=splitter, max_depth=10).fit(X, y)
    assert one.tree_.to_bytes() == two.tree_.to_bytes() == every.tree_.to_bytes()


def test_hist_model_saves_its_splitter(tmp_path) -> None:
    X, y = coarse_data(1)
    model = DecisionTreeClassifier(splitter="hist", max_bins=64, max_depth=5).fit(X, y)
    path = tmp_path / "hist.qrc"
    model.save(path)
    loaded = quercus.load(path)
    assert (loaded.splitter_, loaded.tree_.max_bins) == ("hist", 64)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"splitter": "fast"}, "splitter"),
        ({"max_bins": 1}, "max_bins"),
        ({"max_bins": 256}, "max_bins"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"n_jobs": 1.5}, "n_jobs"),
        ({"n_jobs": 100_000}, "n_jobs"),
    ],
)
def test_bad_search_parameters(params: dict, message: str) -> None:
    X, y = coarse_data(0)
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(**params).fit(X, y)


def _mixed_frame(n: int, seed: int) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    """Numeric columns with NaN, two nominal columns (one of 40 categories) and a noisy
    class and value: deep trees with every kind of node."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    colour = rng.choice(["red", "green", "blue", "white", "black"], size=n)
    town = rng.choice([f"t{i}" for i in range(40)], size=n)
    y = (np.nan_to_num(X[:, 0]) + (colour == "red") + rng.normal(size=n) > 0.5).astype(int)
    value = np.nan_to_num(X[:, 1]) * 2 + (town < "t2") + rng.normal(size=n)
    frame = pl.DataFrame(
        {f"x{i}": X[:, i] for i in range(4)}
        | {"colour": pl.Series(colour, dtype=pl.Categorical)}
        | {"town": pl.Series(town, dtype=pl.Categorical)}
    )
    return frame, y, value


@pytest.mark.parametrize(
    ("estimator", "params"),
    [
        (DecisionTreeClassifier, {}),
        (DecisionTreeClassifier, {"algorithm": "c4.5", "pruning": "none"}),
        (DecisionTreeClassifier, {"missing": "surrogate"}),
        (DecisionTreeClassifier, {"missing": "learned", "criterion": "entropy"}),
        (DecisionTreeClassifier, {"class_weight": "balanced", "min_samples_leaf": 3}),
        (DecisionTreeClassifier, {"splits": "oblique", "max_depth": 12}),
        (DecisionTreeClassifier, {"cost_matrix": [[0, 1], [5, 0]]}),
        (DecisionTreeRegressor, {}),
        (DecisionTreeRegressor, {"criterion": "absolute_error", "max_depth": 9}),
        (DecisionTreeRegressor, {"monotonic_cst": [0, 1, 0, 0, 0, 0]}),
    ],
)
def test_subtrees_grown_apart_come_back_as_one_thread_grows_them(estimator, params) -> None:
    """On several threads, a deep tree's small nodes grow their subtrees apart and are put
    back in one thread's order (rust/core/src/subtrees.rs): node ids, masks, surrogates,
    linear terms and recorded scores must all be the same, to the byte."""
    X, y, value = _mixed_frame(6000, 11)
    target = value if estimator is DecisionTreeRegressor else y
    one = estimator(n_jobs=1, **params).fit(X, target)
    two = estimator(n_jobs=2, **params).fit(X, target)
    assert one.tree_.node_count > 200
    assert one.tree_.to_bytes() == two.tree_.to_bytes()
