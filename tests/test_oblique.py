"""Multivariate (oblique) splits: text 000 §4.5 (watermelon 3.0α, Figs 4.9-4.13), text 004 §4."""

from __future__ import annotations

import sqlite3

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor
from quercus._core import OBLIQUE


def oblique_nodes(model) -> np.ndarray:
    nodes = model.tree_.nodes()
    return np.flatnonzero(nodes["kind"] == OBLIQUE)


def test_watermelon_3_alpha_oblique_tree_is_smaller_at_equal_accuracy():
    X, y = quercus.datasets.load("watermelon3alpha", return_X_y=True)
    axis = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    oblique = DecisionTreeClassifier(algorithm="id3", splits="oblique").fit(X, y)
    # Fig 4.9: the axis-parallel tree has 5 leaves and fits the 17 melons exactly.
    assert axis.n_leaves_ == 5
    assert axis.score(X, y) == 1.0
    assert oblique.score(X, y) == 1.0
    assert oblique.n_leaves_ < axis.n_leaves_
    assert len(oblique_nodes(oblique)) >= 1


def test_one_oblique_line_is_found_by_one_split():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3000, 2))
    y = (0.7 * X[:, 0] - 0.3 * X[:, 1] > 0.1).astype(int)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    oblique = DecisionTreeClassifier(splits="oblique", max_depth=1).fit(X_train, y_train)
    axis = DecisionTreeClassifier().fit(X_train, y_train)
    assert oblique.n_leaves_ == 2
    assert oblique.score(X_test, y_test) >= 0.99
    # The axis-parallel tree staircases the line with many leaves and still does worse.
    assert axis.n_leaves_ > 20
    assert axis.score(X_test, y_test) < oblique.score(X_test, y_test)
    # The learned direction is the true one up to scale: (0.7, -0.3) normalised.
    nodes = oblique.tree_.nodes()
    weights = nodes["linear_weights"][: nodes["linear_len"][0]]
    truth = np.array([0.7, -0.3]) / np.hypot(0.7, 0.3)
    assert abs(abs(weights @ truth) - 1) < 0.01


def test_oblique_never_scores_worse_than_axis_at_the_root():
    X, y = load_breast_cancer(return_X_y=True)
    axis = DecisionTreeClassifier(max_depth=1).fit(X, y)
    oblique = DecisionTreeClassifier(max_depth=1, splits="oblique").fit(X, y)

    # Same criterion (Gini): the root's weighted child impurity can only go down.
    def child_impurity(model):
        n = model.tree_.nodes()
        return (n["weight"][1:] * n["impurity"][1:]).sum() / n["weight"][0]

    assert child_impurity(oblique) <= child_impurity(axis) + 1e-12


def test_breast_cancer_held_out(capsys):
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    report = {}
    for splits in ("axis", "oblique"):
        model = DecisionTreeClassifier(splits=splits).fit(X_train, y_train)
        report[splits] = (model.n_leaves_, model.score(X_test, y_test))
    with capsys.disabled():
        print(f"\nbreast cancer (leaves, held-out accuracy): {report}")
    assert report["oblique"][0] < report["axis"][0]
    assert report["oblique"][1] >= 0.9


def test_missing_value_in_an_oblique_test_follows_the_branch_fractions():
    X, y = quercus.datasets.load("watermelon3alpha", return_X_y=True)
    model = DecisionTreeClassifier(algorithm="id3", splits="oblique", max_depth=1).fit(X, y)
    nodes = model.tree_.nodes()
    assert nodes["kind"][0] == OBLIQUE
    probe = pl.DataFrame({"density": [None], "sugar": [0.3]}, schema=X.schema)
    fractions = nodes["branch_fraction"][1:3]
    leaf_proba = nodes["value"][1:3] / nodes["value"][1:3].sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(probe)[0], fractions @ leaf_proba)


def test_duplicated_row_equals_weight_two():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    y[:5] = 1 - y[:5]
    weights = np.ones(60)
    weights[7] = 2.0
    weighted = DecisionTreeClassifier(splits="oblique", max_depth=3).fit(
        X, y, sample_weight=weights
    )
    doubled = DecisionTreeClassifier(splits="oblique", max_depth=3).fit(
        np.vstack([X, X[7:8]]), np.append(y, y[7])
    )
    np.testing.assert_allclose(weighted.predict_proba(X), doubled.predict_proba(X), atol=1e-9)


def test_regression_tree_with_an_oblique_split():
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(400, 2))
    y = np.where(X[:, 0] + X[:, 1] > 1, 5.0, -5.0)
    model = DecisionTreeRegressor(splits="oblique", max_depth=1).fit(X, y)
    assert model.score(X, y) > 0.99


def test_rendering_rules_sql_and_polars_agree_with_predict():
    X, y = quercus.datasets.load("watermelon3alpha", return_X_y=True)
    model = DecisionTreeClassifier(algorithm="id3", splits="oblique").fit(X, y)
    text = model.export_text()
    assert "·density" in text or "·sugar" in text
    assert "<=" in text
    rules = model.rules()
    expected = model.predict(X)
    np.testing.assert_array_equal(rules.predict(X), expected)
    polars = X.select(rules.to_polars())[model_target := "ripe"].to_numpy()
    np.testing.assert_array_equal(polars, expected)
    with sqlite3.connect(":memory:") as db:
        db.execute("CREATE TABLE t (density REAL, sugar REAL)")
        db.executemany("INSERT INTO t VALUES (?, ?)", X.rows())
        got = [row[0] for row in db.execute(rules.to_sql(table="t"))]
    assert got == expected.tolist()
    assert model_target == rules.target


@pytest.mark.parametrize("splits", ["diagonal", 3])
def test_bad_splits_value(splits):
    X, y = quercus.datasets.load("watermelon3alpha", return_X_y=True)
    with pytest.raises(ValueError, match="splits"):
        DecisionTreeClassifier(splits=splits).fit(X, y)
