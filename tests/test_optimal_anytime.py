"""algorithm="optimal" stopped by max_time (issue 40): the best tree found so far, never worse
than the greedy CART tree of the same depth, with a gap that is proven (the bound it reports
is at most the optimum, which an unlimited search finds)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from quercus import DecisionTreeClassifier, DecisionTreeRegressor


def objective_and_bound(model) -> tuple[float, float]:
    """The fitted tree's objective (training error per unit of weight plus ccp_alpha per leaf)
    and the lower bound the search proved, as the model records them."""
    optimality = model._state.tree.optimality
    assert optimality is not None
    return optimality


def fit(model, X, y, w=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y, sample_weight=w)
    return [str(c.message) for c in caught]


def data(seed: int, n: int = 300, classes: int = 2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    score = X[:, 0] + np.where(X[:, 1] > 0, X[:, 2], -X[:, 3]) + 0.5 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.arange(1, classes) / classes))
    return X, y, score


# Limits from "stopped at once" to "stopped part way"; the last lets the search finish.
LIMITS = [1e-9, 1e-3, 2e-2, None]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("ccp_alpha", [0.0, 0.01])
def test_a_stopped_classifier_is_no_worse_than_greedy_and_its_gap_is_proven(
    seed, classes, ccp_alpha
):
    X, y, _ = data(seed, classes=classes)
    w = np.random.default_rng(seed).choice([1.0, 2.0], size=len(y)) if seed == 2 else None
    depth = 3
    exact = DecisionTreeClassifier(algorithm="optimal", max_depth=depth, ccp_alpha=ccp_alpha)
    fit(exact, X, y, w)
    optimum, proven = objective_and_bound(exact)
    assert exact.proven_optimal_ and proven >= optimum
    greedy = DecisionTreeClassifier(max_depth=depth, pruning="none")
    greedy.fit(X, y, sample_weight=w)
    weights = np.ones(len(y)) if w is None else w
    greedy_objective = float(
        np.sum(weights * (greedy.predict(X) != y)) / weights.sum() + ccp_alpha * greedy.n_leaves_
    )
    for limit in LIMITS:
        model = DecisionTreeClassifier(
            algorithm="optimal", max_depth=depth, ccp_alpha=ccp_alpha, max_time=limit
        )
        messages = fit(model, X, y, w)
        objective, lower = objective_and_bound(model)
        # The returned tree is the one the objective describes, no worse than greedy CART's.
        errors = np.sum(weights * (model.predict(X) != y)) / weights.sum()
        assert objective == pytest.approx(errors + ccp_alpha * model.n_leaves_)
        assert objective <= greedy_objective + 1e-12
        assert model.get_depth() <= depth
        # The proven bound is a bound: no tree does better than it, and the gap says so.
        assert lower <= optimum + 1e-12 <= objective + 2e-12
        assert 0.0 <= model.optimality_gap_ <= 1.0
        if model.proven_optimal_:
            assert objective == pytest.approx(optimum)
            assert model.optimality_gap_ == 0.0
        else:
            assert model.optimality_gap_ == pytest.approx((objective - lower) / objective)
            assert any("max_time" in m for m in messages)
    # At once: nothing searched, so the tree is the greedy seed's or better, and unproven
    # unless the seed is already known optimal (a pure node).
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=depth, max_time=1e-9)
    fit(model, X, y, w)
    assert not model.proven_optimal_


@pytest.mark.parametrize("seed", range(2))
def test_a_stopped_regressor_is_no_worse_than_greedy_and_its_gap_is_proven(seed):
    X, _, y = data(seed, n=200)
    exact = DecisionTreeRegressor(algorithm="optimal", max_depth=2)
    fit(exact, X, y)
    optimum, _ = objective_and_bound(exact)
    greedy = DecisionTreeRegressor(max_depth=2).fit(X, y)
    greedy_objective = float(np.mean((greedy.predict(X) - y) ** 2))
    for limit in LIMITS:
        model = DecisionTreeRegressor(algorithm="optimal", max_depth=2, max_time=limit)
        fit(model, X, y)
        objective, lower = objective_and_bound(model)
        assert objective == pytest.approx(float(np.mean((model.predict(X) - y) ** 2)))
        assert objective <= greedy_objective * (1 + 1e-12)
        assert lower <= optimum * (1 + 1e-12) <= objective * (1 + 1e-9)


def test_the_gap_of_a_stopped_depth_four_search_on_many_rows():
    """A search stopped far from done on a node large enough for the bounds of
    optimal/roots.rs: the tree is still at least greedy's, and its bound is sound (below
    every tree the search can return, in particular below the greedy tree's objective)."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(5000, 8))
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] * X[:, 2] > 0) ^ (rng.random(5000) < 0.1)).astype(int)
    greedy = DecisionTreeClassifier(max_depth=4, pruning="none").fit(X, y)
    greedy_objective = float(np.mean(greedy.predict(X) != y))
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=4, max_time=0.5)
    fit(model, X, y)
    objective, lower = objective_and_bound(model)
    assert objective == pytest.approx(float(np.mean(model.predict(X) != y)))
    assert objective <= greedy_objective + 1e-12
    assert 0.0 <= lower <= objective
