"""scikit-learn's ensembles built from quercus trees.

With `max_features`, `random_state` and zero sample weights in place, scikit-learn's
`BaggingClassifier` over `DecisionTreeClassifier(max_features="sqrt")` is a random forest and
`AdaBoostClassifier` boosts quercus stumps; both need nothing but the estimator protocol
(`get_params` / `set_params` / `clone`, `fit(X, y, sample_weight)`, `predict_proba`,
`classes_`). The forests are compared with scikit-learn's own on the same data.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    RandomForestClassifier,
)
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkClassifier

from quercus import DecisionTreeClassifier, DecisionTreeRegressor


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def test_bagged_quercus_trees_are_a_random_forest(digits):
    X_train, X_test, y_train, y_test = digits
    forest = BaggingClassifier(
        estimator=DecisionTreeClassifier(max_features="sqrt"),
        n_estimators=30,
        random_state=0,
    ).fit(X_train, y_train)
    reference = RandomForestClassifier(n_estimators=30, random_state=0).fit(X_train, y_train)
    ours, theirs = forest.score(X_test, y_test), reference.score(X_test, y_test)
    # Different random streams, the same kind of model: within a few points of each other,
    # and far above a single tree (about 0.85 on this split).
    assert ours > 0.93 and abs(ours - theirs) < 0.03, (ours, theirs)
    single = DecisionTreeClassifier(random_state=0).fit(X_train, y_train).score(X_test, y_test)
    assert ours > single + 0.05
    # Each member drew its own features: the trees differ.
    roots = {tree.tree_.feature[0] for tree in forest.estimators_}
    assert len(roots) > 1
    proba = forest.predict_proba(X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_bagging_is_reproducible_with_random_state(digits):
    X_train, X_test, y_train, _ = digits

    def fitted(seed: int) -> np.ndarray:
        model = BaggingClassifier(
            estimator=DecisionTreeClassifier(max_features="sqrt"),
            n_estimators=5,
            random_state=seed,
        ).fit(X_train, y_train)
        return model.predict_proba(X_test)

    np.testing.assert_array_equal(fitted(1), fitted(1))
    assert not np.array_equal(fitted(1), fitted(2))


def test_bagged_regression_trees():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    y = X[:, 0] ** 2 + np.sin(3 * X[:, 1]) + 0.1 * rng.normal(size=600)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    bagged = BaggingRegressor(
        estimator=DecisionTreeRegressor(), n_estimators=25, random_state=0
    ).fit(X_train, y_train)
    single = DecisionTreeRegressor().fit(X_train, y_train)
    # Averaging removes much of a fully grown tree's variance: the unexplained share drops.
    assert 1 - bagged.score(X_test, y_test) < 0.8 * (1 - single.score(X_test, y_test))


def test_adaboost_over_quercus_stumps_matches_sklearn_stumps():
    """AdaBoost re-weights the rows each round; quercus stumps read those weights as
    scikit-learn's do, so the boosted ensembles agree."""
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)
    ours = AdaBoostClassifier(
        estimator=DecisionTreeClassifier(max_depth=1), n_estimators=50, random_state=0
    ).fit(X_train, y_train)
    theirs = AdaBoostClassifier(
        estimator=SkClassifier(max_depth=1), n_estimators=50, random_state=0
    ).fit(X_train, y_train)
    assert ours.score(X_test, y_test) > 0.94
    assert abs(ours.score(X_test, y_test) - theirs.score(X_test, y_test)) < 0.02
    # The first stump is the same test on the same feature.
    assert ours.estimators_[0].tree_.feature[0] == theirs.estimators_[0].tree_.feature[0]
    np.testing.assert_allclose(
        ours.estimators_[0].tree_.threshold[0], theirs.estimators_[0].tree_.threshold[0]
    )
