"""scikit-learn's criteria: log_loss, friedman_mse, absolute_error and poisson against
scikit-learn's own trees, and through every part of quercus a criterion reaches.

scikit-learn works in float32: X is converted to float32 then back so that both libraries see
the same values. Where two splits decrease the impurity equally, scikit-learn picks one by its
random feature order (and, for absolute error, often by rounding noise), quercus by column:
`sklearn_agreement` counts those divergences as ties and asserts there is no other.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from helpers import sklearn_agreement
from sklearn.datasets import load_breast_cancer, load_diabetes, make_friedman1, make_regression
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor

REGRESSION = ("squared_error", "friedman_mse", "absolute_error", "poisson")


def float32(X: np.ndarray) -> np.ndarray:
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def datasets() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    """Regression sets with y ≥ 0 (for Poisson): real, generated, ties and weights, NaNs."""
    rng = np.random.default_rng(0)
    X, y = load_diabetes(return_X_y=True)
    cancer = load_breast_cancer().data
    friedman_X, friedman_y = make_friedman1(n_samples=1500, random_state=0)
    ties = np.round(rng.normal(size=(1200, 5)), 1)
    ties_y = np.round(np.abs(3 * ties[:, 0] + ties[:, 1] ** 2 + rng.normal(size=1200)))
    weights = rng.integers(1, 4, size=1200).astype(float)
    holes = friedman_X.copy()
    holes[rng.random(holes.shape) < 0.1] = np.nan
    return {
        "diabetes": (float32(X), y, None),
        # breast cancer's mean area from its other 29 measurements
        "cancer_area": (float32(np.delete(cancer, 3, axis=1)), cancer[:, 3], None),
        "friedman1": (float32(friedman_X), friedman_y, None),
        "ties_weights": (float32(ties), ties_y, weights),
        "friedman1_nan": (float32(holes), friedman_y, None),
    }


DATA = datasets()


def sklearn_regressor(criterion: str, **params) -> SkRegressor:
    with warnings.catch_warnings():
        # scikit-learn 1.9 deprecates friedman_mse as an alias of squared_error.
        warnings.simplefilter("ignore", FutureWarning)
        return SkRegressor(criterion=criterion, random_state=0, **params)


@pytest.mark.parametrize("name", DATA)
@pytest.mark.parametrize("criterion", REGRESSION)
@pytest.mark.parametrize("depth", [3, 8, None])
def test_trees_equal_sklearn(name, criterion, depth):
    X, y, w = DATA[name]
    # scikit-learn's direction for missing values is quercus's "learned" strategy.
    q = DecisionTreeRegressor(criterion=criterion, max_depth=depth, missing="learned")
    sk = sklearn_regressor(criterion, max_depth=depth)
    agreement = sklearn_agreement(q.fit(X, y, sample_weight=w), sk.fit(X, y, sample_weight=w))
    assert agreement["mismatch"] == 0, agreement
    if depth == 3:
        # No ties this shallow: the same tree, node for node, and the same predictions.
        assert agreement["same"] == agreement["nodes"], agreement
        np.testing.assert_allclose(q.predict(X), sk.predict(X), rtol=1e-12)


@pytest.mark.parametrize("criterion", ["absolute_error", "poisson", "friedman_mse"])
def test_pruning_path_and_importances_equal_sklearn(criterion):
    X, y, _ = DATA["diabetes"]
    params = {"min_samples_leaf": 10}  # no ties: one tree for every scikit-learn seed
    sk_path = sklearn_regressor(criterion, **params).cost_complexity_pruning_path(X, y)
    path = DecisionTreeRegressor(criterion=criterion, **params).cost_complexity_pruning_path(X, y)
    scale = sk_path.impurities[-1]
    assert len(sk_path.ccp_alphas) > 20
    np.testing.assert_allclose(path.ccp_alphas, sk_path.ccp_alphas, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(path.impurities, sk_path.impurities, rtol=0, atol=1e-12 * scale)
    for alpha in sk_path.ccp_alphas[::4]:
        sk = sklearn_regressor(criterion, ccp_alpha=alpha, **params).fit(X, y)
        q = DecisionTreeRegressor(criterion=criterion, ccp_alpha=alpha, **params).fit(X, y)
        agreement = sklearn_agreement(q, sk)
        assert agreement["same"] == agreement["nodes"], (alpha, agreement)
        np.testing.assert_allclose(q.feature_importances_, sk.feature_importances_, atol=1e-12)


def test_absolute_error_as_sklearn_test_mae():
    """scikit-learn's test_mae: weighted medians and mean absolute deviations by hand."""
    X = np.array([[3], [5], [3], [8], [5]], dtype=float)
    y = np.array([6, 7, 3, 4, 3], dtype=float)
    model = DecisionTreeRegressor(criterion="absolute_error", max_leaf_nodes=2)
    model.fit(X, y, sample_weight=[0.6, 0.3, 0.1, 1.0, 0.3])
    np.testing.assert_allclose(model.tree_.impurity, [2.5 / 2.3, 0.3 / 0.7, 1.2 / 1.6])
    np.testing.assert_array_equal(model.tree_.value.ravel(), [4.0, 6.0, 4.0])
    # Unit weights: half the weight of the left child (3, 6) is reached exactly at 3, so its
    # median is the midpoint 4.5. Impurities are exact: 7/5, 3/2, 4/3.
    model.fit(X, y)
    np.testing.assert_array_equal(model.tree_.impurity, [1.4, 1.5, 4.0 / 3.0])
    np.testing.assert_array_equal(model.tree_.value.ravel(), [4.0, 4.5, 4.0])
    stump = DecisionTreeRegressor(criterion="absolute_error", max_depth=1)
    stump.fit(np.arange(1.0, 6.0).reshape(-1, 1), [1, 1, 3, 1, 2], sample_weight=[3, 3, 2, 1, 2])
    np.testing.assert_allclose(stump.predict(np.arange(1.0, 6.0).reshape(-1, 1)), [1, 1, 2, 2, 2])
    np.testing.assert_allclose(stump.tree_.impurity, [6 / 11, 0, 3 / 5])


def test_log_loss_is_entropy():
    X, y = load_breast_cancer(return_X_y=True)
    X = float32(X[:, :15])
    log_loss = DecisionTreeClassifier(criterion="log_loss").fit(X, y)
    entropy = DecisionTreeClassifier(criterion="entropy").fit(X, y)
    # The same tree, recorded as entropy; the parameter reads back as given (and the model
    # file's metadata keeps it so).
    a, b = log_loss.tree_.nodes(), entropy.tree_.nodes()
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert log_loss.criterion == "log_loss"
    assert log_loss.get_params()["criterion"] == "log_loss"
    assert quercus.from_bytes(log_loss.to_bytes()).tree_.criterion == "entropy"
    sk = SkClassifier(criterion="log_loss", random_state=0, max_depth=4).fit(X, y)
    q = DecisionTreeClassifier(criterion="log_loss", max_depth=4).fit(X, y)
    np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(q.tree_.impurity[0], sk.tree_.impurity[0], rtol=1e-12)


def test_poisson_rejects_targets_as_sklearn():
    model = DecisionTreeRegressor(criterion="poisson")
    with pytest.raises(ValueError, match=r"y is not positive.*Poisson"):
        model.fit([[0.0, 1.0, 2.0]], [0.0])
    with pytest.raises(ValueError, match=r"Some.*y are negative.*Poisson.*criterion"):
        model.fit(np.array([[0.0], [1.0], [2.0]]), [5, -0.1, 2])
    # Other criteria take negative targets.
    DecisionTreeRegressor(criterion="absolute_error").fit(np.array([[0.0], [1.0]]), [-1, 1])


def test_poisson_target_is_checked_before_its_length():
    # scikit-learn's order (its test_error): y's sign first, then y's length against X.
    model = DecisionTreeRegressor(criterion="poisson")
    with pytest.raises(ValueError, match=r"y is not positive.*Poisson"):
        model.fit([[0, 1, 2]], [0, 0, 0])
    with pytest.raises(ValueError, match=r"Some.*y are negative \(row 1: -0.1\).*Poisson"):
        model.fit([[0, 1, 2]], pl.Series([5.0, -0.1, 2.0]))
    with pytest.raises(ValueError, match="y has 3 values but X has 1 rows"):
        model.fit([[0, 1, 2]], [5, 0.1, 2])


@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_poisson_never_predicts_zero(splitter):
    """scikit-learn's test_poisson_zero_nodes: a child whose targets are all 0 is no split,
    even when its sum is left as the rounding of the parent's less its sibling's."""
    X = np.array([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 2], [1, 2], [1, 3]], float)
    y = np.array([0, 0, 0, 0, 1, 2, 3, 4], float)
    assert DecisionTreeRegressor().fit(X, y).predict(X).min() == 0
    assert DecisionTreeRegressor(criterion="poisson").fit(X, y).predict(X).min() > 0
    for seed in range(8):
        X, y = make_regression(
            effective_rank=6,
            tail_strength=0.6,
            n_samples=1000,
            n_features=10,
            n_informative=6,
            random_state=seed,
        )
        y[(-1 < y) & (y < 0)] = 0
        y = np.abs(y)
        model = DecisionTreeRegressor(criterion="poisson", splitter=splitter).fit(X, y)
        assert np.all(model.predict(X) > 0), seed


@pytest.mark.parametrize("criterion", REGRESSION)
def test_histograms_grow_the_exact_tree_on_few_values(criterion):
    """Fewer distinct values than bins: the histogram search (absolute error: rows by bin)
    finds the exact search's tree, NaNs and weights included."""
    X, y, w = DATA["ties_weights"]
    X = X.copy()
    X[::7, 1] = np.nan
    exact, hist = (
        DecisionTreeRegressor(criterion=criterion, splitter=s, missing="learned", max_depth=7)
        .fit(X, y, sample_weight=w)
        .export_text()
        for s in ("exact", "hist")
    )
    assert exact == hist


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


@pytest.mark.parametrize("criterion", ["friedman_mse", "absolute_error", "poisson"])
@pytest.mark.parametrize("missing", STRATEGIES)
def test_every_missing_strategy_and_split_kind(criterion, missing):
    """Numeric and categorical columns with missing cells, multiway and binary splits: fit,
    predict, export, rules, importances and the model file all work."""
    rng = np.random.default_rng(2)
    n = 600
    x = rng.normal(size=(n, 2))
    x[rng.random(x.shape) < 0.15] = np.nan
    color = rng.choice(["red", "green", "blue", "grey"], size=n).astype(object)
    color[rng.random(n) < 0.1] = None
    y = np.abs(np.nan_to_num(x[:, 0]) + (color == "red") * 2 + rng.normal(size=n)).round(1)
    df = pl.DataFrame({"a": x[:, 0], "b": x[:, 1], "color": color, "y": y})
    for algorithm in ("cart", "c4.5"):
        model = DecisionTreeRegressor(
            criterion=criterion, missing=missing, algorithm=algorithm, max_depth=5
        ).fit(df, target="y")
        predictions = model.predict(df)
        assert np.all(np.isfinite(predictions))
        assert model.n_leaves_ > 2
        assert abs(model.feature_importances_.sum() - 1) < 1e-9
        assert model.export_text() and str(model.rules())
        again = quercus.from_bytes(model.to_bytes())
        assert again.tree_.criterion == criterion
        np.testing.assert_array_equal(again.predict(df), predictions)


def test_split_scores_report_each_criterion_figure():
    x = np.array([[1.0], [2.0], [3.0]])
    y = np.array([1.0, 2.0, 6.0])
    w = np.array([1.0, 1.0, 2.0])

    def score(criterion):
        table = quercus.split_scores(x, y, criterion=criterion, sample_weight=w)
        return table.row(0, named=True)

    # {1, 2} | {6, 6}: variance reduction 5.0625; Friedman's w_L·w_R/(w_L + w_R)·(ȳ_L − ȳ_R)²
    # = 2·2/4·4.5² = 20.25.
    assert score("squared_error")["gain"] == pytest.approx(5.0625)
    assert score("friedman_mse")["score"] == pytest.approx(20.25)
    # Medians 4 (root: half the weight at 2 exactly → (2 + 6)/2), 1.5 and 6: mean absolute
    # deviation 9/4 at the root, children (0.5 + 0.5 + 0)/4.
    mae = score("absolute_error")
    assert mae["score"] == pytest.approx(0.25) and mae["gain"] == pytest.approx(2.25 - 0.25)
    # Half Poisson deviance decrease: root 0.765268, children (1·ln(1/1.5) + 2·ln(2/1.5))/4.
    child = (np.log(1 / 1.5) + 2 * np.log(2 / 1.5)) / 4
    assert score("poisson")["gain"] == pytest.approx(0.7652676 - child)


def test_regressor_names_its_criteria():
    with pytest.raises(ValueError, match="criterion"):
        DecisionTreeRegressor(criterion="gini").fit(np.array([[0.0], [1.0]]), [0.0, 1.0])
    with pytest.raises(ValueError, match="criterion"):
        DecisionTreeClassifier(criterion="poisson").fit(np.array([[0.0], [1.0]]), [0, 1])
