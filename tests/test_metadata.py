"""Every way of building a tree keeps what the fit was grown with: the threshold search and its
bins, the criterion, the missing-value strategy and the conventions (issue "One way to build a
tree"). A pruned histogram tree once reported the exact search, and a c4.5 preset with
histograms did so straight out of fit (its collapse rebuilt the tree without them).
"""

from __future__ import annotations

import importlib.util
import pickle

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes

from quercus import DecisionTreeClassifier, DecisionTreeRegressor


def meta(model) -> tuple[str, int, str, str, str]:
    tree = model._state.tree
    return (tree.splitter, tree.max_bins, tree.criterion, tree.missing, tree.conventions)


def expected(splitter: str, criterion: str, missing: str, conventions: str):
    return (splitter, 32 if splitter == "hist" else 0, criterion, missing, conventions)


@pytest.fixture(scope="module")
def classes() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    return X, y


PRESETS = {
    "cart": ("gini", "learned", "texts"),
    "c4.5": ("gain_ratio", "fractional", "j48"),
    "id3": ("entropy", "fractional", "texts"),
}


def every_copy(model, X, y):
    """The model, its pruned copies (each method) and its round trips."""
    copies = {"fit": model}
    copies["cost_complexity"] = model.prune("cost_complexity", ccp_alpha=0.01)
    copies["reduced_error"] = model.prune("reduced_error", X_val=X[::3], y_val=y[::3])
    if isinstance(model, DecisionTreeClassifier):
        copies["pessimistic"] = model.prune("pessimistic", X=X, y=y)
    copies["pickle"] = pickle.loads(pickle.dumps(model))
    copies["bytes"] = type(model).from_bytes(model.to_bytes())
    return copies


@pytest.mark.parametrize("splitter", ["exact", "hist"])
@pytest.mark.parametrize("algorithm", list(PRESETS))
def test_every_build_path_keeps_the_fit_metadata(classes, algorithm, splitter):
    X, y = classes
    want = expected(splitter, *PRESETS[algorithm])
    for n_jobs in (1, 2):  # two threads grow small nodes' subtrees apart (exact)
        model = DecisionTreeClassifier(
            algorithm=algorithm, splitter=splitter, max_bins=32, n_jobs=n_jobs
        ).fit(X, y)
        for path, copy in every_copy(model, X, y).items():
            assert meta(copy) == want, (path, n_jobs)
        assert model.splitter_ == splitter
    # Pruning at fit time, each method, and J48's collapse (the c4.5 preset's) on any preset.
    for params in (
        {"collapse": True},
        {"pruning": "cost_complexity", "ccp_alpha": 0.01},
        {"pruning": "pessimistic"},
        {"pruning": "reduced_error"},
    ):
        model = DecisionTreeClassifier(
            algorithm=algorithm, splitter=splitter, max_bins=32, **params
        )
        validated = params.get("pruning") == "reduced_error"
        fit_kwargs = {"validation": (X[::3], y[::3])} if validated else {}
        assert meta(model.fit(X, y, **fit_kwargs)) == want, params


@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_regression_and_the_optimal_search_keep_the_fit_metadata(splitter):
    X, y = load_diabetes(return_X_y=True)
    model = DecisionTreeRegressor(splitter=splitter, max_bins=32).fit(X, y)
    want = expected(splitter, "squared_error", "learned", "texts")
    for path, copy in every_copy(model, X, y).items():
        assert meta(copy) == want, path
    optimal = DecisionTreeClassifier(
        algorithm="optimal", max_depth=2, splitter=splitter, max_bins=32
    ).fit(*load_breast_cancer(return_X_y=True))
    assert meta(optimal)[:2] == want[:2]
    assert meta(optimal.prune("cost_complexity", ccp_alpha=0.01))[:2] == want[:2]


def test_a_streamed_fit_keeps_the_fit_metadata(classes):
    X, y = classes
    frame = pl.DataFrame(X, schema=[f"x{j}" for j in range(X.shape[1])]).with_columns(
        target=pl.Series(y)
    )
    model = DecisionTreeClassifier(splitter="hist", max_bins=32, algorithm="id3").fit(
        frame.lazy(), target="target", batch_rows=100
    )
    assert meta(model) == expected("hist", "entropy", "fractional", "texts")
    assert meta(model.prune("cost_complexity", ccp_alpha=0.01)) == meta(model)


@pytest.mark.skipif(
    importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None,
    reason="dask[distributed] is not installed (the [dask] extra)",
)
def test_a_dask_fit_keeps_the_fit_metadata(classes):
    import dask.array as da

    import quercus.dask

    X, y = classes
    model = quercus.dask.DecisionTreeClassifier(max_bins=32).fit(
        da.from_array(X, chunks=200), da.from_array(y, chunks=200)
    )
    assert meta(model) == expected("hist", "gini", "learned", "texts")
