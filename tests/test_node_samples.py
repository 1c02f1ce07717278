"""`tree_.n_node_samples` counts training rows as scikit-learn does, whatever the sample
weights: each row of positive weight once in every node it reached (a row C4.5 splits among
the children by a missing value counts in each child it reached). It once counted weight in
units of the lightest row: weights [1, 1, 1, 1, 1, 0.01] reported [501, 300, 201].

The count of every node is checked against the rows whose path reaches it (`decision_path`,
which routes rows as training did), on every build path: fit, each pruning method at fit and
after, collapse, a LazyFrame and a Dask fit, the optimal search and the model file round trip.
"""

from __future__ import annotations

import importlib.util
import pickle

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from quercus import DecisionTreeClassifier, DecisionTreeRegressor


def reached(model, X, weights=None) -> np.ndarray:
    """How many rows of positive weight of `X` reach each node, as prediction routes them."""
    if weights is not None:
        X = X[weights > 0]
    return np.asarray(model.decision_path(X).sum(axis=0)).ravel()


def assert_counts_follow_paths(model, X, weights=None, where=""):
    counts = model.tree_.n_node_samples
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(counts, reached(model, X, weights), err_msg=where)


@pytest.fixture(scope="module")
def holed():
    """Breast cancer with 5 % of its values missing, and weights of 0 to 3 (a tenth zero)."""
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(3)
    X = X.copy()
    X[rng.random(X.shape) < 0.05] = np.nan
    weights = rng.choice([0.0, 0.25, 1.0, 3.0], size=len(y), p=[0.1, 0.3, 0.3, 0.3])
    return X, y, weights


def test_the_issue_example_counts_rows_not_weight():
    X = np.arange(6.0).reshape(-1, 1)
    y = np.array([0, 0, 0, 1, 1, 1])
    w = np.array([1, 1, 1, 1, 1, 0.01])
    model = DecisionTreeClassifier().fit(X, y, sample_weight=w)
    reference = SkClassifier().fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(model.tree_.n_node_samples, reference.tree_.n_node_samples)
    np.testing.assert_array_equal(model.tree_.n_node_samples, [6, 3, 3])
    np.testing.assert_allclose(model.tree_.weighted_n_node_samples, [5.01, 3, 2.01])


@pytest.mark.parametrize("regression", [False, True])
def test_weighted_trees_count_as_scikit_learn(regression):
    """Same tree as scikit-learn's on weighted rows (zero weights among them): same counts,
    node by node, and the same weighted counts."""
    rng = np.random.default_rng(11)
    n = 3000  # nodes large enough that no two features tie (the libraries break ties apart)
    X = rng.normal(size=(n, 5))
    y = rng.normal(size=n) if regression else (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    w = rng.choice([0.0, 0.5, 1.0, 2.5], size=n)
    ours, theirs = (
        (DecisionTreeRegressor, SkRegressor)
        if regression
        else (DecisionTreeClassifier, SkClassifier)
    )
    model = ours(max_depth=3, random_state=0).fit(X, y, sample_weight=w)
    reference = theirs(max_depth=3, random_state=0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(walked(model.tree_), walked(reference.tree_))


def walked(tree) -> np.ndarray:
    """Every node of a scikit-learn-shaped tree, parents first and left before right (the two
    libraries number nodes differently): its feature, threshold, rows and weight."""
    out, stack = [], [0]
    while stack:
        i = stack.pop()
        left, right = tree.children_left[i], tree.children_right[i]
        threshold = tree.threshold[i] if left >= 0 else -2.0
        rows, weight = tree.n_node_samples[i], tree.weighted_n_node_samples[i]
        out.append((tree.feature[i], threshold, rows, weight))
        if left >= 0:
            stack.extend([right, left])
    return np.array(out, dtype=np.float64)


def every_copy(model, X, y, w):
    copies = {
        "fit": model,
        "cost_complexity": model.prune("cost_complexity", ccp_alpha=0.005),
        "reduced_error": model.prune("reduced_error", X_val=X[::3], y_val=y[::3]),
        "pickle": pickle.loads(pickle.dumps(model)),
        "bytes": type(model).from_bytes(model.to_bytes()),
    }
    if isinstance(model, DecisionTreeClassifier):
        copies["pessimistic"] = model.prune("pessimistic", X=X, y=y, sample_weight=w)
        copies["pessimistic bytes"] = type(model).from_bytes(copies["pessimistic"].to_bytes())
    return copies


@pytest.mark.parametrize("splitter", ["exact", "hist"])
@pytest.mark.parametrize("algorithm", ["cart", "c4.5", "id3"])
def test_every_build_path_counts_the_rows_that_reach_each_node(holed, algorithm, splitter):
    X, y, w = holed
    for n_jobs in (1, 2):  # two threads grow small nodes' subtrees apart (exact)
        model = DecisionTreeClassifier(algorithm=algorithm, splitter=splitter, n_jobs=n_jobs)
        model.fit(X, y, sample_weight=w)
        for path, copy in every_copy(model, X, y, w).items():
            assert_counts_follow_paths(copy, X, w, f"{algorithm} {splitter} {path} {n_jobs}")
    for params in (
        {"collapse": True},
        {"pruning": "pessimistic"},
        {"pruning": "pessimistic", "subtree_raising": False},
        {"pruning": "cost_complexity", "ccp_alpha": 0.005},
    ):
        model = DecisionTreeClassifier(algorithm=algorithm, splitter=splitter, **params)
        model.fit(X, y, sample_weight=w)
        assert_counts_follow_paths(model, X, w, f"{algorithm} {splitter} {params}")


def test_a_fractional_row_counts_in_every_child_it_reached():
    """C4.5 sends a row missing the tested value down every branch: it counts in each."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [np.nan]])
    y = np.array([0, 0, 1, 1, 0])
    model = DecisionTreeClassifier(algorithm="c4.5", min_samples_leaf=1, collapse=False)
    model.fit(X, y)
    counts = model.tree_.n_node_samples
    assert counts[0] == 5
    np.testing.assert_array_equal(counts[1:], [3, 3])
    np.testing.assert_allclose(model.tree_.weighted_n_node_samples, [5, 2.5, 2.5])


@pytest.mark.parametrize("missing", ["surrogate", "learned", "majority_branch", "impute_mean"])
def test_other_missing_strategies_send_a_row_one_way(holed, missing):
    X, y, w = holed
    model = DecisionTreeClassifier(missing=missing, max_depth=6).fit(X, y, sample_weight=w)
    counts = model.tree_.n_node_samples
    internal = model.tree_.children_left >= 0
    left, right = model.tree_.children_left[internal], model.tree_.children_right[internal]
    np.testing.assert_array_equal(counts[internal], counts[left] + counts[right])
    assert_counts_follow_paths(model, X, w, missing)


@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_regression_and_the_optimal_search_count_rows(splitter):
    X, y = load_diabetes(return_X_y=True)
    w = np.random.default_rng(5).choice([0.0, 0.5, 2.0], size=len(y))
    model = DecisionTreeRegressor(splitter=splitter, max_depth=6).fit(X, y, sample_weight=w)
    for path, copy in every_copy(model, X, y, w).items():
        assert_counts_follow_paths(copy, X, w, f"regression {splitter} {path}")
    Xc, yc = load_breast_cancer(return_X_y=True)
    wc = np.random.default_rng(6).choice([0.0, 0.5, 2.0], size=len(yc))
    optimal = DecisionTreeClassifier(algorithm="optimal", max_depth=2, splitter=splitter)
    optimal.fit(Xc, yc, sample_weight=wc)
    assert_counts_follow_paths(optimal, Xc, wc, f"optimal {splitter}")
    round_trip = DecisionTreeClassifier.from_bytes(optimal.to_bytes())
    assert_counts_follow_paths(round_trip, Xc, wc, f"optimal {splitter} bytes")


def test_a_streamed_fit_counts_as_the_in_memory_fit(holed):
    X, y, w = holed
    names = [f"x{j}" for j in range(X.shape[1])]
    frame = pl.DataFrame(X, schema=names).with_columns(target=pl.Series(y), weight=pl.Series(w))
    params = {"splitter": "hist", "algorithm": "id3", "max_depth": 6}
    streamed = DecisionTreeClassifier(**params).fit(
        frame.lazy(), target="target", sample_weight="weight", batch_rows=100
    )
    in_memory = DecisionTreeClassifier(**params).fit(
        frame.drop("weight"), target="target", sample_weight=w
    )
    assert streamed.to_bytes() == in_memory.to_bytes()
    assert_counts_follow_paths(streamed, X, w, "LazyFrame")


@pytest.mark.skipif(
    importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None,
    reason="dask[distributed] is not installed (the [dask] extra)",
)
def test_a_dask_fit_counts_as_the_in_memory_fit(holed):
    import dask.array as da

    import quercus.dask

    X, y, w = holed
    model = quercus.dask.DecisionTreeClassifier(max_depth=6).fit(
        da.from_array(X, chunks=150),
        da.from_array(y, chunks=150),
        sample_weight=da.from_array(w, chunks=150),
    )
    assert_counts_follow_paths(model, X, w, "dask")


def test_an_old_file_without_the_record_reads_its_counts_from_the_row_counts():
    """Files written before the counts were recorded (tests/data/model_v1_*.qrc, unit weights)
    give each node its size-rule count, which is then its rows; saved again, they keep them."""
    from pathlib import Path

    for path in sorted(Path(__file__).parent.glob("data/model_v1_*.qrc")):
        kind = DecisionTreeRegressor if "regressor" in path.name else DecisionTreeClassifier
        model = kind.from_bytes(path.read_bytes())
        counts = model.tree_.n_node_samples
        np.testing.assert_array_equal(counts, model._state.tree.nodes()["n_rows"])
        assert counts[0] > 0, path.name
        again = kind.from_bytes(model.to_bytes())
        np.testing.assert_array_equal(again.tree_.n_node_samples, counts)
        assert again.to_bytes() == model.to_bytes()
