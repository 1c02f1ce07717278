"""`laplace=True`: predict_proba gives each leaf's Laplace estimate (n_k + 1) / (n + K), as
Weka's J48 -A does (compared with J48 itself in tests/test_vs_j48.py); predict is unchanged."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from quercus import DecisionTreeClassifier, DecisionTreeRegressor


def test_each_leaf_gives_its_laplace_estimate_and_predict_is_unchanged():
    X = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]})
    y = ["a", "a", "a", "b", "b", "c", "b"]
    plain = DecisionTreeClassifier(max_depth=1).fit(X, y)
    smooth = DecisionTreeClassifier(max_depth=1, laplace=True).fit(X, y)
    # x <= 3.5: a a a (3 of 3 classes: (3+1, 0+1, 0+1) / (3+3)); x > 3.5: b b c b.
    expected = np.array([[4, 1, 1], [1, 4, 2]]) / np.array([[6], [7]])
    np.testing.assert_allclose(smooth.predict_proba([[1.0], [6.0]]), expected, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(smooth.predict(X), plain.predict(X))
    np.testing.assert_allclose(smooth.predict_proba(X).sum(axis=1), np.ones(7), rtol=1e-15)
    # The counts the tree shows are its own.
    np.testing.assert_array_equal(smooth.tree_.value, plain.tree_.value)


def test_a_row_missing_a_value_mixes_the_estimates_by_the_fractions():
    X = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    y = ["a", "a", "b", "b", "b", "b"]
    smooth = DecisionTreeClassifier(algorithm="c4.5", min_objects=1, laplace=True).fit(X, y)
    left, right = smooth.predict_proba([[1.0], [6.0]])
    np.testing.assert_allclose(left, [3 / 4, 1 / 4])
    np.testing.assert_allclose(right, [1 / 6, 5 / 6])
    # C4.5's fractions: 2/6 of the row goes left, 4/6 right.
    mixed = smooth.predict_proba(pl.DataFrame({"x": [None]}, schema={"x": pl.Float64}))
    np.testing.assert_allclose(mixed[0], (2 * left + 4 * right) / 6, rtol=0, atol=1e-15)


def test_every_path_and_a_model_file_keep_it():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + rng.normal(size=400) > 0).astype(int) + (X[:, 1] > 1)
    model = DecisionTreeClassifier(max_depth=4, laplace=True).fit(X, y)
    proba = model.predict_proba(X)
    frame = pl.DataFrame(X, schema=["a", "b", "c"])
    named = DecisionTreeClassifier(max_depth=4, laplace=True).fit(frame, y)
    np.testing.assert_array_equal(named.predict_proba(frame), proba)
    np.testing.assert_array_equal(named.predict_proba(frame[3]), proba[3:4])
    again = DecisionTreeClassifier.from_bytes(model.to_bytes())
    np.testing.assert_array_equal(again.predict_proba(X), proba)
    assert again.laplace is True
    assert not np.array_equal(model.set_params(laplace=False).predict_proba(X), proba)


def test_laplace_is_a_classifiers_and_a_flag():
    with pytest.raises(TypeError):
        DecisionTreeRegressor(laplace=True)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="laplace"):
        DecisionTreeClassifier(laplace="yes").fit([[0.0], [1.0]], [0, 1])
