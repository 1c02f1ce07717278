"""A SciPy sparse X (CSR, CSC, COO; matrices and arrays) at fit and at predict.

quercus reads a sparse X as it is (CSC columns at fit, CSR rows at predict), never dense, and
grows byte for byte the tree it grows on `X.toarray()`: every format, both estimators, both
searches, every missing-value strategy, explicit zeros of both signs, weights. A sparse X
cannot hold NaN (scikit-learn refuses it too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from quercus import DecisionTreeClassifier, DecisionTreeRegressor, split_scores

sp = pytest.importorskip("scipy.sparse", reason="SciPy comes with the test extras")

FORMATS: list[Callable[[Any], Any]] = [
    sp.csr_matrix,
    sp.csc_matrix,
    sp.coo_matrix,
    sp.csr_array,
    sp.csc_array,
    sp.coo_array,
]
FORMAT_IDS = [f.__name__ for f in FORMATS]
STRATEGIES = (
    "fractional",
    "majority_branch",
    "class_majority",
    "separate",
    "learned",
    "surrogate",
    "impute_mean",
    "drop_rows",
)


def sparse_data(seed: int, n: int = 150, k: int = 6) -> tuple[Any, np.ndarray, np.ndarray]:
    """A COO matrix with signed values, about 70% zeros, explicit zeros of both signs stored
    among them and one duplicated entry (summed, as SciPy sums them); its dense copy as
    `toarray()` makes it; a class target and a real one that depend on it."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, k)) * 4) / 4
    X[rng.random((n, k)) < 0.7] = 0.0
    rows, cols = np.nonzero(X)
    data = X[rows, cols]
    zero_rows, zero_cols = np.nonzero(X == 0)
    pick = rng.random(len(zero_rows)) < 0.1  # explicit zeros, half of them -0.0
    signs = np.where(rng.random(pick.sum()) < 0.5, -0.0, 0.0)
    rows = np.concatenate([rows, zero_rows[pick], [rows[0]]])
    cols = np.concatenate([cols, zero_cols[pick], [cols[0]]])
    data = np.concatenate([data, signs, [0.5]])
    matrix = sp.coo_matrix((data, (rows, cols)), shape=(n, k))
    dense = matrix.toarray()
    y_class = (dense[:, 0] + dense[:, 1] > 0).astype(int) ^ (rng.random(n) < 0.15)
    y_real = dense[:, 0] * 2 - dense[:, 2] + rng.normal(size=n) * 0.3
    return matrix, y_class, y_real


def assert_same_predictions(model: Any, dense: np.ndarray, sparse: Any) -> None:
    """predict, predict_proba, apply, decision_path and score of a sparse X equal the dense
    X's, to the bit."""
    np.testing.assert_array_equal(model.predict(sparse), model.predict(dense))
    np.testing.assert_array_equal(model.apply(sparse), model.apply(dense))
    np.testing.assert_array_equal(
        model.decision_path(sparse).toarray(), model.decision_path(dense).toarray()
    )
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(model.predict_proba(sparse), model.predict_proba(dense))


@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
@pytest.mark.parametrize("splitter", ["exact", "hist"])
@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_sparse_fit_equals_dense_fit(fmt: Callable[[Any], Any], splitter: str, task: str) -> None:
    matrix, y_class, y_real = sparse_data(seed=len(FORMAT_IDS[FORMATS.index(fmt)]))
    dense, sparse = matrix.toarray(), fmt(matrix)
    Tree, y = (
        (DecisionTreeClassifier, y_class)
        if task == "classifier"
        else (DecisionTreeRegressor, y_real)
    )
    for missing in STRATEGIES:
        if missing == "class_majority" and splitter == "hist":
            continue  # class-majority fills always search exactly
        params = {"missing": missing, "splitter": splitter, "max_bins": 8}
        expected = Tree(**params).fit(dense, y)
        got = Tree(**params).fit(sparse, y)
        assert got.to_bytes() == expected.to_bytes(), missing
        assert got.n_leaves_ > 2
        assert_same_predictions(got, dense, fmt(matrix))


@pytest.mark.parametrize(
    "params",
    [
        {"criterion": "absolute_error"},
        {"criterion": "absolute_error", "splitter": "hist", "max_bins": 8},
        {"criterion": "poisson"},
        {"splitter": "random", "random_state": 3},
        {"max_features": 2, "random_state": 3},
        {"monotonic_cst": [1, 0, -1, 0, 0, 0]},
    ],
    ids=["absolute", "absolute-hist", "poisson", "random", "max-features", "monotonic"],
)
def test_sparse_regression_growth_options_equal_dense(params: dict[str, Any]) -> None:
    """The criteria of medians and the growth options read a sparse column as a dense one."""
    matrix, _, y_real = sparse_data(seed=4, n=200)
    y = np.abs(y_real) if params.get("criterion") == "poisson" else y_real
    dense = matrix.toarray()
    expected = DecisionTreeRegressor(**params).fit(dense, y)
    got = DecisionTreeRegressor(**params).fit(matrix.tocsc(), y)
    assert got.to_bytes() == expected.to_bytes()
    assert got.n_leaves_ > 2
    assert_same_predictions(got, dense, matrix.tocsr())


@pytest.mark.parametrize("algorithm", ["id3", "c4.5", "cart"])
@pytest.mark.parametrize("weights", ["integer", "fractional", "zeros", "balanced"])
def test_algorithms_and_weights(algorithm: str, weights: str) -> None:
    """Whole-number weights take the sparse search's subtraction of the zeros' counts,
    fractional ones its row-by-row path: both give the dense tree. Rows of weight 0 are
    dropped from the sparse columns as from dense ones."""
    matrix, y, _ = sparse_data(seed=5, n=200)
    rng = np.random.default_rng(1)
    sample_weight = {
        "integer": rng.integers(1, 4, size=200).astype(float),
        "fractional": rng.random(200) + 0.1,
        "zeros": rng.integers(0, 3, size=200).astype(float),
        "balanced": None,
    }[weights]
    class_weight = "balanced" if weights == "balanced" else None
    params = {"algorithm": algorithm, "class_weight": class_weight}
    dense = matrix.toarray()
    expected = DecisionTreeClassifier(**params).fit(dense, y, sample_weight=sample_weight)
    got = DecisionTreeClassifier(**params).fit(matrix.tocsr(), y, sample_weight=sample_weight)
    assert got.to_bytes() == expected.to_bytes()
    assert_same_predictions(got, dense, matrix.tocsr())


def test_growth_limits_and_oblique_splits() -> None:
    matrix, y, y_real = sparse_data(seed=9, n=300, k=8)
    dense, sparse = matrix.toarray(), matrix.tocsc()
    for params in (
        {"max_depth": 3},
        {"max_leaf_nodes": 5},
        {"min_samples_leaf": 20},
        {"min_samples_split": 40},
        {"min_weight_fraction_leaf": 0.05},
        {"splits": "oblique", "max_depth": 4},
        {"criterion": "entropy", "categorical_split": "multiway", "max_p_value": 0.05},
    ):
        expected = DecisionTreeClassifier(**params).fit(dense, y)
        assert DecisionTreeClassifier(**params).fit(sparse, y).to_bytes() == expected.to_bytes()
    expected = DecisionTreeRegressor(max_leaf_nodes=6).fit(dense, y_real)
    assert DecisionTreeRegressor(max_leaf_nodes=6).fit(sparse, y_real).to_bytes() == (
        expected.to_bytes()
    )


def test_explicit_zeros_as_in_scikit_learn() -> None:
    """scikit-learn's `test_explicit_sparse_zeros`: columns of -1, 0, 1 with explicit zeros,
    fitted from CSC and predicted from CSR and dense, every way round."""
    rng = np.random.default_rng(0)
    n = 10
    indices, data, indptr = [], [], [0]
    for _ in range(n):
        nonzero = rng.binomial(n, 0.5)
        indices.append(rng.permutation(n)[:nonzero])
        data.append(rng.binomial(3, 0.5, size=nonzero) - 1.0)
        indptr.append(indptr[-1] + nonzero)
    arrays = (np.concatenate(data), np.concatenate(indices).astype(np.int32), np.array(indptr))
    X_fit = sp.csc_matrix(arrays, shape=(n, n))
    X_test = sp.csr_matrix(arrays, shape=(n, n))
    assert (X_fit.data == 0).any()
    assert not X_fit.has_sorted_indices  # permuted rows: sorted on a copy, X_fit left alone
    before = X_fit.indices.copy()
    y = rng.integers(0, 3, size=n)
    dense = DecisionTreeClassifier(max_depth=3).fit(X_fit.toarray(), y)
    sparse = DecisionTreeClassifier(max_depth=3).fit(X_fit, y)
    np.testing.assert_array_equal(X_fit.indices, before)
    assert sparse.to_bytes() == dense.to_bytes()
    for X1 in (X_test, X_test.toarray()):
        for X2 in (X_test, X_test.toarray()):
            np.testing.assert_array_equal(sparse.apply(X1), dense.apply(X2))
            np.testing.assert_array_equal(sparse.predict_proba(X1), dense.predict_proba(X2))
            np.testing.assert_array_equal(
                sparse.decision_path(X1).toarray(), dense.decision_path(X2).toarray()
            )


def test_other_formats_dtypes_and_index_widths() -> None:
    """Any SciPy format is read (converted in O(stored values)); bool, integer and float32
    values; int64 indices."""
    matrix, y, _ = sparse_data(seed=3)
    expected = DecisionTreeClassifier().fit(matrix.toarray(), y).to_bytes()
    for X in (matrix.todok(), matrix.tolil(), matrix.tobsr()):
        assert DecisionTreeClassifier().fit(X, y).to_bytes() == expected
    wide = matrix.tocsr()
    wide.indices, wide.indptr = wide.indices.astype(np.int64), wide.indptr.astype(np.int64)
    assert DecisionTreeClassifier().fit(wide, y).to_bytes() == expected
    for dtype in (np.float32, np.int64, np.bool_):
        X = sp.csr_matrix(matrix.toarray().astype(dtype))
        model = DecisionTreeClassifier().fit(X, y)
        assert model.to_bytes() == DecisionTreeClassifier().fit(X.toarray(), y).to_bytes()
        np.testing.assert_array_equal(model.predict(X), model.predict(X.toarray()))


def test_sparse_and_dense_models_predict_each_others_input() -> None:
    """A model fitted on either predicts either (the features are numeric and named alike)."""
    matrix, y, _ = sparse_data(seed=4)
    dense = DecisionTreeClassifier().fit(matrix.toarray(), y)
    sparse = DecisionTreeClassifier().fit(matrix, y)
    assert (
        list(sparse.feature_names_in_)
        == list(dense.feature_names_in_)
        == [f"x{j}" for j in range(6)]
    )
    np.testing.assert_array_equal(sparse.predict(matrix.toarray()), dense.predict(matrix))
    assert sparse.score(matrix, y) == dense.score(matrix.toarray(), y)


def test_validation_pruning_and_scores() -> None:
    """Validation data, pruning data and `split_scores` may be sparse too."""
    matrix, y, _ = sparse_data(seed=6, n=300)
    dense = matrix.toarray()
    sparse = matrix.tocsr()
    fit, val = slice(0, 200), slice(200, 300)
    for params in ({"prepruning": "validation"}, {"pruning": "reduced_error"}):
        expected = DecisionTreeClassifier(algorithm="id3", **params).fit(
            dense[fit], y[fit], validation=(dense[val], y[val])
        )
        got = DecisionTreeClassifier(algorithm="id3", **params).fit(
            sparse[fit], y[fit], validation=(sparse[val], y[val])
        )
        assert got.to_bytes() == expected.to_bytes()
    grown = DecisionTreeClassifier(algorithm="c4.5", pruning="none").fit(dense, y)
    assert (
        grown.prune("pessimistic", X=sparse, y=y).to_bytes()
        == grown.prune("pessimistic", X=dense, y=y).to_bytes()
    )
    assert (
        grown.prune("reduced_error", X_val=sparse[val], y_val=y[val]).to_bytes()
        == grown.prune("reduced_error", X_val=dense[val], y_val=y[val]).to_bytes()
    )
    path = DecisionTreeClassifier().cost_complexity_pruning_path(sparse, y)
    expected_path = DecisionTreeClassifier().cost_complexity_pruning_path(dense, y)
    np.testing.assert_array_equal(path.ccp_alphas, expected_path.ccp_alphas)
    for criterion in ("gain_ratio", "gini"):
        scores = split_scores(sparse, y, criterion=criterion)
        assert scores.equals(split_scores(dense, y, criterion=criterion))


def test_rules_read_sparse_rows() -> None:
    matrix, y, _ = sparse_data(seed=8)
    model = DecisionTreeClassifier(max_depth=3).fit(matrix, y)
    rules = model.rules()
    np.testing.assert_array_equal(rules.predict(matrix.tocsr()), rules.predict(matrix.toarray()))
    assert rules.prune(matrix, y).rules == rules.prune(matrix.toarray(), y).rules


def test_wide_sparse_data_are_never_dense() -> None:
    """100,000 x 100,000 with 200,000 stored values: dense float64 it would be 80 GB, more
    than any machine running the tests has; sparse it fits in moments."""
    rng = np.random.default_rng(0)
    n = 100_000
    rows, cols = rng.integers(0, n, 200_000), rng.integers(0, n, 200_000)
    X = sp.csr_matrix((rng.random(200_000) + 0.5, (rows, cols)), shape=(n, n))
    y = (np.asarray(X[:, :50].sum(axis=1)).ravel() > 0).astype(int)
    for splitter in ("exact", "hist"):
        model = DecisionTreeClassifier(max_depth=4, splitter=splitter).fit(X, y)
        assert model.n_features_in_ == n
        assert model.score(X[:1000], y[:1000]) > 0.9


def with_value(X: Any, value: float) -> Any:
    """A copy of X with `value` stored in column 2 of row 7."""
    X = X.tolil()
    X[7, 2] = value
    return X.tocsc()


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (
            lambda X: with_value(X, np.nan),
            ValueError,
            r"Input X contains NaN \(column 'x2', row 7\): a sparse X cannot hold missing",
        ),
        (
            lambda X: with_value(X, -np.inf),
            ValueError,
            r"column 'x2' has an infinite value at row 7",
        ),
        (lambda X: X.astype(complex), ValueError, "Complex data not supported"),
        (lambda X: X.tocsr()[:0], ValueError, r"0 sample\(s\)"),
        (lambda X: X.tocsr()[:, :0], ValueError, r"0 feature\(s\)"),
    ],
    ids=["nan", "inf", "complex", "no-rows", "no-columns"],
)
def test_bad_sparse_x_at_fit(make: Callable[[Any], Any], error: type, match: str) -> None:
    matrix, y, _ = sparse_data(seed=1)
    X = make(matrix)
    with pytest.raises(error, match=match):
        DecisionTreeClassifier().fit(X, y[: X.shape[0]])


def test_bad_sparse_x_at_predict() -> None:
    matrix, y, _ = sparse_data(seed=2)
    model = DecisionTreeClassifier().fit(matrix, y)
    X = matrix.tocsr().copy()
    X.data[5] = np.nan
    with pytest.raises(ValueError, match=r"Input X contains NaN \(column 'x\d', row \d\)"):
        model.predict(X)
    X.data[5] = -np.inf
    with pytest.raises(ValueError, match=r"column 'x\d' has an infinite value at row \d"):
        model.predict_proba(X)
    with pytest.raises(ValueError, match="X has 4 features, but quercus is expecting 6"):
        model.predict(matrix.tocsr()[:, :4])
    with pytest.raises(ValueError, match="X has 4 features"):
        model.decision_path(matrix.tocsr()[:, :4])
    with pytest.raises(TypeError, match="y is a sparse matrix"):
        DecisionTreeClassifier().fit(matrix, sp.csr_matrix(y[:, None]))
    with pytest.raises(ValueError, match="ordinal_features names columns"):
        DecisionTreeClassifier(ordinal_features=["x0"]).fit(matrix, y)
    with pytest.raises(TypeError, match="target= names a column"):
        DecisionTreeClassifier().fit(matrix, target="y")


def test_categorical_model_refuses_sparse_rows() -> None:
    import polars as pl

    frame = pl.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "c": ["u", "v", "u", "v"]})
    model = DecisionTreeClassifier().fit(frame, [0, 1, 0, 1])
    with pytest.raises(TypeError, match="column 'c' was categorical at fit"):
        model.predict(sp.csr_matrix(np.ones((2, 2))))
