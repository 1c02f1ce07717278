"""`variable_importance_`, rpart's `variable.importance`, worked by hand on ten rows (the
comparison with rpart itself is in tests/test_vs_rpart.py, on every case there).

z separates the classes on all ten rows; x does too but misses row 3, so z is the split
(rpart's improvement: 10 rows x Gini 0.5 = 5; x's, on its nine known rows, 9 x 40/81) and x
its surrogate: it sends 9 of the 10 rows where z does (row 3, missing x, disagrees), against
5 of 10 for the majority child, an adjusted agreement of (0.9 - 0.5) / (1 - 0.5) = 0.8."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import quercus

X = pl.DataFrame(
    {
        "x": [1.0, 2.0, 3.0, None, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
        "z": [1.0, 2.0, 3.0, 4.0, 5.0, 9.0, 7.0, 8.0, 6.0, 10.0],
        "noise": [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0],
    }
)
Y = np.array([0] * 5 + [1] * 5)


def _fit(model):
    return model.fit(X, Y)


def _one_surrogate(**params):
    return quercus.DecisionTreeClassifier(
        missing="surrogate", max_surrogates=1, max_depth=1, **params
    )


def test_the_split_gets_its_improvement_and_the_surrogate_its_share():
    model = _fit(_one_surrogate())
    assert model.variable_importance_ == pytest.approx({"z": 5.0, "x": 4.0}, rel=1e-12)
    assert list(model.variable_importance_) == ["z", "x"]  # largest first


def test_entropy_counts_in_nats_as_rpart_information_index():
    model = _fit(_one_surrogate(criterion="entropy"))
    nats = 10 * math.log(2)  # one bit of entropy removed from ten rows
    assert model.variable_importance_ == pytest.approx({"z": nats, "x": 0.8 * nats}, rel=1e-12)


def test_a_regression_credits_the_deviance_removed():
    model = quercus.DecisionTreeRegressor(missing="surrogate", max_surrogates=1, max_depth=1)
    model.fit(X, Y.astype(float))
    # The sum of squares about the mean, 10 x 0.25, all removed.
    assert model.variable_importance_ == pytest.approx({"z": 2.5, "x": 2.0}, rel=1e-12)


def test_a_model_file_keeps_it_and_without_surrogates_only_splits_count():
    model = _fit(quercus.DecisionTreeClassifier(missing="surrogate", max_depth=1))
    again = quercus.from_bytes(model.to_bytes())
    assert again.variable_importance_ == model.variable_importance_
    assert len(model.variable_importance_) == 3  # noise stands in second, for a share
    plain = _fit(quercus.DecisionTreeClassifier(missing="surrogate", max_surrogates=0, max_depth=1))
    assert plain.variable_importance_ == pytest.approx({"z": 5.0}, rel=1e-12)


def test_trees_without_recorded_scores_use_their_impurities():
    # Histogram trees record no per-feature scores: the node's impurity decrease stands in,
    # the same where no row misses the split's feature.
    rows = X.drop("x")
    exact = quercus.DecisionTreeClassifier().fit(rows, Y)
    hist = quercus.DecisionTreeClassifier(splitter="hist").fit(rows, Y)
    assert hist.variable_importance_ == pytest.approx(exact.variable_importance_, rel=1e-12)
    assert exact.variable_importance_ == pytest.approx({"z": 5.0}, rel=1e-12)


def test_oblique_splits_are_credited_to_no_feature():
    # A linear combination is no one feature's split (rpart has none): only the axis
    # splits among them count, each under its own feature's name (x2 here).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = ((X[:, 0] + X[:, 1] > 0) & (X[:, 2] > -0.5)).astype(int)
    model = quercus.DecisionTreeClassifier(splits="oblique", max_depth=3).fit(X, y)
    nodes = model.tree_.nodes()
    split = nodes["n_children"] > 0
    axis = {f"x{f}" for f in nodes["feature"][split] if f >= 0}
    assert (nodes["feature"][split] < 0).any() and axis == {"x2"}
    assert set(model.variable_importance_) == axis


def test_a_multi_output_tree_credits_its_mean_impurity_decrease():
    # The criterion averages the outputs' Gini indices; a split's improvement is the node's
    # weight times that average's decrease (not the outputs' class weights summed).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    Y = np.column_stack([(X[:, 0] > 0).astype(int), (X[:, 1] > 0).astype(int)])
    model = quercus.DecisionTreeClassifier(max_depth=2).fit(X, Y)
    nodes = model.tree_.nodes()

    def mean_gini(value):
        shares = [part / part.sum() for part in (value[:2], value[2:])]
        return np.mean([1 - (p**2).sum() for p in shares])

    expected: dict[str, float] = {}
    weight, value = nodes["weight"], nodes["value"]
    for node in np.flatnonzero(nodes["n_children"] > 0):
        first = nodes["first_child"][node]
        children = (first, first + 1)
        decrease = weight[node] * mean_gini(value[node]) - sum(
            weight[c] * mean_gini(value[c]) for c in children
        )
        name = f"x{nodes['feature'][node]}"
        expected[name] = expected.get(name, 0.0) + decrease
    assert model.variable_importance_ == pytest.approx(expected, rel=1e-12)
