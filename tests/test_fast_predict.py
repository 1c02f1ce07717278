"""A float NumPy X is read in place by the core (no encoding, no copy) and predicted by the
compact batch walk on several threads: every answer must equal the encoded columns' answer
bit for bit, and every input error must read as before."""

from __future__ import annotations

import copy

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import make_classification

from quercus import DecisionTreeClassifier, DecisionTreeRegressor


def data(n_rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(n_samples=n_rows, n_features=6, n_informative=4, random_state=seed)
    X = np.round(X, 1)  # ties with thresholds
    X[::13, 2] = np.nan
    X[5::29, :] = np.nan  # rows missing every value
    return X, y


@pytest.mark.parametrize("missing", ["fractional", "surrogate", "majority_branch", "learned"])
@pytest.mark.parametrize("n_jobs", [None, 1, 3])
def test_matrix_predicts_as_its_encoded_columns(missing: str, n_jobs: int | None) -> None:
    X, y = data(3000)
    clf = DecisionTreeClassifier(missing=missing, n_jobs=n_jobs).fit(X, y)
    target = y * 1.5 + np.nan_to_num(X[:, 0]) ** 2
    reg = DecisionTreeRegressor(missing=missing, n_jobs=n_jobs).fit(X, target)
    X_test, _ = data(40_000, seed=1)
    columns = clf._columns(X_test)
    core = clf.tree_.core
    for rows in (X_test, np.asfortranarray(X_test)):
        np.testing.assert_array_equal(clf.predict_proba(rows), core.predict_proba(columns))
        np.testing.assert_array_equal(clf.predict(rows), clf.classes_[core.predict_class(columns)])
        np.testing.assert_array_equal(clf.apply(rows), core.apply(columns))
        np.testing.assert_array_equal(reg.predict(rows), reg.tree_.core.predict_value(columns))
    narrow = X_test.astype(np.float32)
    np.testing.assert_array_equal(
        clf.predict_proba(narrow), core.predict_proba(clf._columns(narrow.astype(np.float64)))
    )
    strided = X_test[::2]  # not contiguous: encoded as before
    np.testing.assert_array_equal(clf.predict(strided), clf.predict(strided.copy()))


def test_thread_counts_agree_and_the_core_takes_them() -> None:
    X, y = data(2000)
    model = DecisionTreeClassifier().fit(X, y)
    X_test, _ = data(50_000, seed=2)
    expected = model.predict_proba(X_test)
    for n_jobs in (1, 2, 5, -1):
        other = copy.copy(model).set_params(n_jobs=n_jobs)
        np.testing.assert_array_equal(other.predict_proba(X_test), expected)
    for n_jobs in (None, 1, 4):
        np.testing.assert_array_equal(model.tree_.core.predict_proba(X_test, n_jobs), expected)
    with pytest.raises(ValueError, match="n_jobs"):
        model.tree_.core.predict_proba(X_test, 0)


def test_one_row_as_array_or_nested_list() -> None:
    X, y = data(1000)
    model = DecisionTreeClassifier(max_depth=6).fit(X, y)
    expected = model.predict(X[3:4].copy())
    assert model.predict(X[3:4].tolist()).tolist() == expected.tolist()
    assert model.predict([[float(v) for v in X[3]]]).tolist() == expected.tolist()
    assert model.predict(X[3:4].astype(int)).shape == (1,)  # integers: encoded, as before
    with pytest.raises(ValueError, match="Reshape your data"):
        model.predict(X[3])
    with pytest.raises(ValueError, match="X has 5 features, but quercus is expecting 6"):
        model.predict(X[:2, :5].copy())


def test_an_infinity_is_reported_with_its_column() -> None:
    X, y = data(500)
    model = DecisionTreeRegressor().fit(X, y.astype(float))
    bad = X[:100].copy()
    bad[60, 4] = np.inf
    bad[70, 1] = -np.inf
    for rows in (bad, np.asfortranarray(bad), bad.astype(np.float32)):
        with pytest.raises(ValueError, match=r"column 'x1' has an infinite value at row 70"):
            model.predict(rows)


def test_models_that_encode_numpy_input_keep_doing_so() -> None:
    X, y = data(800)
    imputed = DecisionTreeClassifier(missing="impute_mean").fit(X, y)
    frame = pl.DataFrame(X, schema=[f"x{j}" for j in range(6)])
    np.testing.assert_array_equal(imputed.predict_proba(X), imputed.predict_proba(frame))
    mixed = frame.with_columns(pl.Series("c", ["a", "b"] * 400))
    categorical = DecisionTreeClassifier().fit(mixed, y)
    with pytest.raises(TypeError, match="categorical at fit"):
        categorical.predict(np.c_[X, np.zeros(800)])


def test_score_reads_the_matrix_in_place() -> None:
    X, y = data(1500)
    clf = DecisionTreeClassifier(max_depth=4).fit(X, y)
    assert clf.score(X, y) == pytest.approx(np.mean(clf.predict(X) == y))
    reg = DecisionTreeRegressor(max_depth=4).fit(X, y.astype(float))
    assert reg.score(X, y) == reg.score(pl.DataFrame(X, schema=[f"x{j}" for j in range(6)]), y)
