"""scikit-learn citizenship: scikit-learn's own estimator test suite on both estimators, and
the estimators inside scikit-learn's meta-estimators (Pipeline, GridSearchCV,
cross_val_score, clone).

Every check scikit-learn generates runs; the ones that cannot pass are listed in
`EXPECTED_FAILURES` with the reason, and run in strict xfail mode, so a listed check that
starts passing fails the suite until it is taken off the list.

Skipped by scikit-learn itself: `check_array_api_input` (runs only with SCIPY_ARRAY_API=1
set before SciPy loads; quercus claims no array API support, it reads NumPy, pandas and
Polars), and, where pandas is not installed, `check_sample_weights_pandas_series`,
`check_classifier_data_not_an_array` and `check_regressor_data_not_an_array` (pandas is in
the test extras, so they run in CI).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.exceptions import DataConversionWarning
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import check_is_fitted

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor

EXPECTED_FAILURES: dict[str, str] = {}
OPTIMAL_FAILURES = {
    "check_class_weight_classifiers": (
        "sets min_weight_fraction_leaf=0.01, a size limit the optimal search refuses (it "
        "penalises leaves with ccp_alpha or bounds them with max_leaf_nodes)"
    )
}


def expected_failures(estimator) -> dict[str, str]:
    if estimator.get_params()["algorithm"] == "optimal":
        return {**EXPECTED_FAILURES, **OPTIMAL_FAILURES}
    return dict(EXPECTED_FAILURES)


# The default (CART) estimators, and the presets whose tags differ: C4.5's pessimistic
# pruning and optimal trees fit one output (their tags say so, and a column-vector y warns).
@parametrize_with_checks(
    [
        DecisionTreeClassifier(),
        DecisionTreeRegressor(),
        DecisionTreeClassifier(algorithm="c4.5"),
        DecisionTreeClassifier(algorithm="optimal", max_depth=2),
        DecisionTreeRegressor(algorithm="optimal", max_depth=2),
    ],
    expected_failed_checks=expected_failures,
    xfail_strict=True,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# --- repeated rows and weights ----------------------------------------------------------


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_integer_weights_equal_repeated_rows(cls):
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:200, :6]
    y = y[:200] if cls is DecisionTreeClassifier else X[:, 0] * 3 + y[:200]
    weights = np.random.default_rng(0).integers(1, 4, size=len(y))
    weighted = cls(max_depth=4).fit(X, y, sample_weight=weights)
    repeated = cls(max_depth=4).fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    assert weighted.export_text() == repeated.export_text()
    np.testing.assert_allclose(weighted.predict(X), repeated.predict(X))


# --- scikit-learn's exceptions and warnings ---------------------------------------------


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_not_fitted_error_is_also_sklearns(cls):
    from sklearn.exceptions import NotFittedError as SkNotFittedError

    model = cls()
    with pytest.raises(SkNotFittedError) as info:
        model.predict(np.ones((2, 2)))
    assert isinstance(info.value, quercus.NotFittedError)
    assert type(info.value).__name__ == "NotFittedError"
    with pytest.raises(SkNotFittedError):
        check_is_fitted(model)
    check_is_fitted(model.fit(np.eye(4), np.arange(4)))


@pytest.mark.parametrize(
    "model",
    [DecisionTreeClassifier(algorithm="c4.5"), DecisionTreeClassifier(algorithm="optimal")],
    ids=["c4.5", "optimal"],
)
def test_one_output_configurations_say_so(model):
    X, y = load_breast_cancer(return_X_y=True)
    model.set_params(max_depth=2)
    assert model.__sklearn_tags__().target_tags.multi_output is False
    assert (
        DecisionTreeClassifier(algorithm="c4.5", pruning="none")
        .__sklearn_tags__()
        .target_tags.multi_output
    )
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = clone(model).fit(X, y[:, np.newaxis])
    assert column.to_bytes() == clone(model).fit(X, y).to_bytes()


def test_column_vector_y_is_one_output():
    # scikit-learn's trees read a (n, 1) y as one output, without a warning.
    X, y = load_breast_cancer(return_X_y=True)
    flat = DecisionTreeClassifier(max_depth=3).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        column = DecisionTreeClassifier(max_depth=3).fit(X, y[:, np.newaxis])
    assert column.export_text() == flat.export_text()
    assert column.to_bytes() == flat.to_bytes()
    assert column.n_outputs_ == 1 and column.predict(X).shape == (len(y),)


def test_classifier_rejects_continuous_target():
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        DecisionTreeClassifier().fit(X, y / 7)
    # integer-valued floats are labels, as in scikit-learn
    model = DecisionTreeClassifier(max_depth=2).fit(X, np.round(y / 100))
    assert model.classes_.dtype == np.float64


# --- meta-estimators ------------------------------------------------------------------


def breast_cancer():
    return load_breast_cancer(return_X_y=True)


def diabetes():
    return load_diabetes(return_X_y=True)


@pytest.mark.parametrize(
    ("cls", "data"), [(DecisionTreeClassifier, breast_cancer), (DecisionTreeRegressor, diabetes)]
)
def test_clone(cls, data):
    model = cls(algorithm="c4.5" if cls is DecisionTreeClassifier else "cart", max_depth=3)
    fitted = model.fit(*data())
    copy = clone(fitted)
    assert copy is not fitted and copy.get_params() == fitted.get_params()
    assert not hasattr(copy, "tree_") and hasattr(fitted, "tree_")
    assert is_classifier(copy) == (cls is DecisionTreeClassifier)


@pytest.mark.parametrize(
    ("cls", "data"), [(DecisionTreeClassifier, breast_cancer), (DecisionTreeRegressor, diabetes)]
)
def test_pipeline(cls, data):
    X, y = data()
    pipeline = make_pipeline(StandardScaler(), cls(max_depth=4)).fit(X, y)
    scaled = StandardScaler().fit_transform(X)
    alone = cls(max_depth=4).fit(scaled, y)
    np.testing.assert_array_equal(pipeline.predict(X), alone.predict(scaled))
    assert pipeline.score(X, y) == pytest.approx(alone.score(scaled, y))
    np.testing.assert_array_equal(pipeline[-1].apply(pipeline[0].transform(X)), alone.apply(scaled))


def test_pipeline_passes_polars_frames():
    """A Polars frame with categorical columns flows through a Pipeline untouched."""
    X, y = quercus.datasets.load("watermelon2", return_X_y=True)
    pipeline = make_pipeline(FunctionTransformer(), DecisionTreeClassifier(algorithm="id3"))
    pipeline.fit(X, y)
    direct = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    np.testing.assert_array_equal(pipeline.predict(X), direct.predict(X))


def test_grid_search():
    X, y = breast_cancer()
    folds = KFold(n_splits=3, shuffle=True, random_state=0)
    grid = {"max_depth": [1, 3], "criterion": ["gini", "entropy"], "algorithm": ["cart"]}
    search = GridSearchCV(DecisionTreeClassifier(), grid, cv=folds).fit(X, y)
    assert set(search.best_params_) == set(grid)
    assert search.best_estimator_.get_params()["max_depth"] == search.best_params_["max_depth"]
    best = DecisionTreeClassifier(**search.best_params_)
    manual = cross_val_score(best, X, y, cv=folds).mean()
    assert search.best_score_ == pytest.approx(manual)
    np.testing.assert_array_equal(search.predict(X), search.best_estimator_.predict(X))


def test_grid_search_over_pruning_in_a_pipeline():
    X, y = diabetes()
    pipeline = make_pipeline(StandardScaler(), DecisionTreeRegressor())
    grid = {
        "decisiontreeregressor__ccp_alpha": [0.0, 50.0],
        "decisiontreeregressor__max_depth": [2, 4],
    }
    search = GridSearchCV(pipeline, grid, cv=3, n_jobs=2).fit(X, y)
    assert search.best_estimator_[-1].max_depth in (2, 4)


# n_jobs=2 pickles the estimators to worker processes and the fitted ones back.
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize(
    ("cls", "data"), [(DecisionTreeClassifier, breast_cancer), (DecisionTreeRegressor, diabetes)]
)
def test_cross_val_score(cls, data, n_jobs):
    X, y = data()
    folds = KFold(n_splits=4, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no failed fit is hidden as a NaN score
        scores = cross_val_score(
            cls(max_depth=3), X, y, cv=folds, n_jobs=n_jobs, error_score="raise"
        )
    by_hand = [
        cls(max_depth=3).fit(X[train], y[train]).score(X[test], y[test])
        for train, test in folds.split(X)
    ]
    np.testing.assert_allclose(scores, by_hand)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_fitted_estimators_come_back_from_workers(n_jobs):
    """cross_validate(return_estimator=True) pickles the fitted trees back to this process:
    they predict, and read as `tree_`, exactly like trees fitted here."""
    X, y = breast_cancer()
    folds = KFold(n_splits=3, shuffle=True, random_state=0)
    model = DecisionTreeClassifier(max_depth=3)
    result = cross_validate(model, X, y, cv=folds, n_jobs=n_jobs, return_estimator=True)
    for fitted, (train, _) in zip(result["estimator"], folds.split(X), strict=True):
        here = clone(model).fit(X[train], y[train])
        np.testing.assert_array_equal(fitted.predict_proba(X), here.predict_proba(X))
        np.testing.assert_array_equal(fitted.tree_.children_left, here.tree_.children_left)
        np.testing.assert_array_equal(fitted.tree_.value, here.tree_.value)
        assert (fitted.decision_path(X) != here.decision_path(X)).nnz == 0
