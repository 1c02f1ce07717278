"""Multi-output y: one tree predicting several targets, as scikit-learn's trees do.

Differential tests against scikit-learn on seeded data with continuous features. As in
test_vs_sklearn.py, X is made float32-exact so both libraries see the same values and
midpoints. Trees are walked together from the root; where the two choose different splits,
the split is an exact tie (scikit-learn breaks ties by a random feature order, quercus by
the lowest column) and the test proves it: both splits' decrease of the mean impurity over
the outputs, recomputed here with plain NumPy from the node's rows, is the same. Settings
shallow enough to have no tie are compared whole, with predictions and probabilities.
"""

from __future__ import annotations

import sqlite3
import warnings

import numpy as np
import polars as pl
import pytest
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor

# scikit-learn's predict_log_proba takes the log of zero probabilities.
pytestmark = pytest.mark.filterwarnings("ignore:divide by zero encountered in log")

N = 400


def make_data(seed: int, n: int = N):
    """Six continuous features; three class outputs (2, 3 and 4 classes) and two real ones,
    each driven by a few features and noise; row weights with two decimals."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6)).astype(np.float32).astype(np.float64)
    noise = rng.normal(size=(n, 3))
    Y = np.c_[
        X[:, 0] + 0.5 * noise[:, 0] > 0,
        np.digitize(X[:, 1] + X[:, 2] + 0.7 * noise[:, 1], [-1.0, 0.3]),
        np.digitize(X[:, 3] - X[:, 4] + X[:, 5] + noise[:, 2], [-1.5, 0.0, 1.5]),
    ].astype(np.int64)
    R = np.c_[
        2 * X[:, 0] + X[:, 1] + 0.3 * noise[:, 0],
        3 * np.sin(X[:, 2]) + X[:, 3] + 0.3 * noise[:, 1],
    ]
    w = rng.uniform(0.5, 2.0, size=n).round(2)
    return X, Y, R, w


# --- an independent reading of both trees ----------------------------------------------------


def mean_impurity(Y: np.ndarray, w: np.ndarray, criterion: str) -> float:
    """scikit-learn's multi-output impurity: the mean over the outputs of each output's
    weighted Gini, entropy (bits), variance, half Poisson deviance or absolute deviation from
    the weighted median."""
    if criterion == "absolute_error":
        total = 0.0
        for k in range(Y.shape[1]):
            order = np.argsort(Y[:, k], kind="stable")
            y, wk = Y[order, k], w[order]
            median = y[np.searchsorted(np.cumsum(wk), wk.sum() / 2)]
            total += np.sum(wk * np.abs(y - median)) / wk.sum()
        return total / Y.shape[1]
    if criterion == "poisson":
        mean = np.average(Y, axis=0, weights=w)
        if np.any(mean <= 0):  # scikit-learn: a child with a zero sum is never chosen
            return np.inf
        terms = np.where(Y > 0, Y * np.log(np.where(Y > 0, Y, 1) / mean), 0.0)
        return float(np.mean(np.average(terms, axis=0, weights=w)))
    if criterion == "squared_error":
        mean = np.average(Y, axis=0, weights=w)
        return float(np.mean(np.average((Y - mean) ** 2, axis=0, weights=w)))
    total = 0.0
    for k in range(Y.shape[1]):
        _, codes = np.unique(Y[:, k], return_inverse=True)
        p = np.bincount(codes, weights=w) / w.sum()
        p = p[p > 0]
        total += 1 - np.sum(p * p) if criterion == "gini" else -np.sum(p * np.log2(p))
    return total / Y.shape[1]


def decrease(X, Y, w, rows, feature, threshold, criterion) -> float:
    """The weighted decrease of the mean impurity that `x[feature] <= threshold` achieves on
    `rows`."""
    left = X[rows, feature] <= threshold
    Yn, wn = Y[rows], w[rows]
    children = sum(
        wn[side].sum() * mean_impurity(Yn[side], wn[side], criterion) for side in (left, ~left)
    )
    return mean_impurity(Yn, wn, criterion) - children / wn.sum()


def compare(q, sk, X, Y, w, criterion):
    """Walks both trees from the root and returns (nodes matched, ties): equal weights,
    impurities and values where they match; where they split differently, an exact tie.

    A pure node is a leaf in quercus (its impurity is exactly 0); scikit-learn computes a
    weighted pure node's impurity as Σw_k²-style rounding noise (6.7e-16 here) and splits it
    when that exceeds machine epsilon, so such a split is also counted as a tie, after
    checking the node is pure in every output."""
    nodes, t = q.tree_.nodes(), sk.tree_
    regression = criterion in ("squared_error", "poisson", "absolute_error")
    matched = ties = 0
    stack = [(0, 0, np.ones(len(X), dtype=bool))]
    while stack:
        k, s, rows = stack.pop()
        where = f"quercus node {k} / scikit-learn node {s}"
        assert nodes["weight"][k] == pytest.approx(t.weighted_n_node_samples[s], rel=1e-12), where
        if np.isinf(t.impurity[s]):  # Poisson, a zero sum in an output: see the test
            assert criterion == "poisson" and (t.value[s] == 0).any(), where
        else:
            assert nodes["impurity"][k] == pytest.approx(t.impurity[s], rel=1e-9, abs=1e-12), where
        np.testing.assert_allclose(q.tree_.value[k], t.value[s], rtol=1e-9, atol=1e-12)
        matched += 1
        q_leaf, sk_leaf = nodes["n_children"][k] == 0, t.children_left[s] == -1
        if q_leaf and not sk_leaf and nodes["impurity"][k] == 0:
            assert (Y[rows] == Y[rows][0]).all() and t.impurity[s] < 1e-12, where
            ties += 1
            continue
        assert q_leaf == sk_leaf, f"{where}: a leaf in one tree only"
        if q_leaf:
            continue
        ours = (int(nodes["feature"][k]), float(nodes["threshold"][k]))
        theirs = (int(t.feature[s]), float(t.threshold[s]))
        if ours != theirs:
            a = decrease(X, Y, w, rows, *ours, criterion)
            b = decrease(X, Y, w, rows, *theirs, criterion)
            assert a == pytest.approx(b, rel=1e-12, abs=1e-15), f"{where}: {ours} vs {theirs}"
            ties += 1
            continue
        left = X[:, ours[0]] <= ours[1]
        first = int(nodes["first_child"][k])
        stack.append((first + 1, int(t.children_right[s]), rows & ~left))
        stack.append((first, int(t.children_left[s]), rows & left))
    assert regression or q.n_classes_.tolist() == sk.n_classes_.tolist()
    return matched, ties


def assert_same_predictions(q, sk, X, regression: bool) -> None:
    if regression:
        np.testing.assert_allclose(q.predict(X), sk.predict(X), rtol=1e-12, atol=1e-12)
        return
    ours, theirs = q.predict_proba(X), sk.predict_proba(X)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    # A class tie in a leaf: quercus takes the parent's class, scikit-learn the first class.
    predicted, expected = q.predict(X), sk.predict(X)
    assert predicted.shape == expected.shape == (len(X), len(ours))
    for k, proba in enumerate(ours):
        unique = (proba >= proba.max(axis=1, keepdims=True) - 1e-9).sum(axis=1) == 1
        assert unique.mean() > 0.8
        np.testing.assert_array_equal(predicted[unique, k], expected[unique, k])
        chosen = np.searchsorted(q.classes_[k], predicted[:, k])
        assert np.all(proba[np.arange(len(X)), chosen] >= proba.max(axis=1) - 1e-9)
    for a, b in zip(q.predict_log_proba(X), sk.predict_log_proba(X), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


# --- equal to scikit-learn --------------------------------------------------------------------

SHALLOW = [{"max_depth": 4}, {"max_leaf_nodes": 12}, {"max_depth": 5, "min_samples_leaf": 8}]


def weights_for(params, w):
    """Row weights, except with `min_samples_leaf`: quercus counts a leaf's rows by weight (in
    units of the lightest row's, README "Controlling overfitting"), scikit-learn by rows, so
    weighted leaf sizes are a documented difference rather than a comparison."""
    return np.ones(N) if w is None or "min_samples_leaf" in params else w


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("params", SHALLOW)
@pytest.mark.parametrize("weighted", [False, True])
def test_classifier_equals_sklearn(criterion, params, weighted):
    X, Y, _, w = make_data(0)
    weights = weights_for(params, w if weighted else None)
    q = DecisionTreeClassifier(criterion=criterion, **params).fit(X, Y, sample_weight=weights)
    sk = SkClassifier(criterion=criterion, random_state=0, **params).fit(X, Y, weights)
    matched, ties = compare(q, sk, X, Y, weights, criterion)
    assert ties == 0 and matched == sk.tree_.node_count
    assert q.n_outputs_ == sk.n_outputs_ == 3
    assert [c.tolist() for c in q.classes_] == [c.tolist() for c in sk.classes_]
    np.testing.assert_array_equal(q.tree_.n_classes, sk.tree_.n_classes)
    assert q.tree_.value.shape == sk.tree_.value.shape
    np.testing.assert_allclose(q.feature_importances_, sk.feature_importances_, rtol=1e-9)
    X_test = make_data(1)[0]
    assert_same_predictions(q, sk, X_test, regression=False)


@pytest.mark.parametrize("params", SHALLOW)
@pytest.mark.parametrize("weighted", [False, True])
def test_regressor_equals_sklearn(params, weighted):
    X, _, R, w = make_data(0)
    weights = weights_for(params, w if weighted else None)
    q = DecisionTreeRegressor(**params).fit(X, R, sample_weight=weights)
    sk = SkRegressor(random_state=0, **params).fit(X, R, weights)
    matched, ties = compare(q, sk, X, R, weights, "squared_error")
    assert ties == 0 and matched == sk.tree_.node_count
    assert q.n_outputs_ == sk.n_outputs_ == 2
    np.testing.assert_array_equal(q.tree_.n_classes, sk.tree_.n_classes)
    assert q.tree_.value.shape == sk.tree_.value.shape == (matched, 2, 1)
    X_test = make_data(1)[0]
    assert_same_predictions(q, sk, X_test, regression=True)
    assert q.score(X_test, make_data(1)[2]) == pytest.approx(
        sk.score(X_test, make_data(1)[2]), rel=1e-12
    )


@pytest.mark.parametrize("params", SHALLOW)
@pytest.mark.parametrize("weighted", [False, True])
def test_absolute_error_regressor_equals_sklearn(params, weighted):
    # The impurity is the mean of the outputs' absolute deviations from their weighted
    # medians, each node's value those medians, as scikit-learn's MAE criterion.
    X, _, R, w = make_data(0)
    weights = weights_for(params, w if weighted else None)
    kw = {"criterion": "absolute_error", **params}
    q = DecisionTreeRegressor(**kw).fit(X, R, sample_weight=weights)
    sk = SkRegressor(random_state=0, **kw).fit(X, R, weights)
    matched, ties = compare(q, sk, X, R, weights, "absolute_error")
    assert ties == 0 and matched == sk.tree_.node_count
    assert q.tree_.value.shape == sk.tree_.value.shape == (matched, 2, 1)
    assert_same_predictions(q, sk, make_data(1)[0], regression=True)


def poisson_counts(R: np.ndarray, seed: int) -> np.ndarray:
    """Counts whose rates follow the two real outputs (about a tenth of them 0)."""
    return np.random.default_rng(seed).poisson(np.exp(R / 3)).astype(np.float64)


@pytest.mark.parametrize("params", SHALLOW)
@pytest.mark.parametrize("weighted", [False, True])
def test_poisson_regressor_equals_sklearn(params, weighted):
    # The node impurity is the mean of the outputs' half Poisson deviances, as scikit-learn's.
    X, _, R, w = make_data(0)
    C = poisson_counts(R, 0)
    weights = weights_for(params, w if weighted else None)
    q = DecisionTreeRegressor(criterion="poisson", **params).fit(X, C, sample_weight=weights)
    sk = SkRegressor(criterion="poisson", random_state=0, **params).fit(X, C, weights)
    matched, ties = compare(q, sk, X, C, weights, "poisson")
    assert ties == 0 and matched == sk.tree_.node_count
    assert q.tree_.value.shape == sk.tree_.value.shape == (matched, 2, 1)
    assert_same_predictions(q, sk, make_data(1)[0], regression=True)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_poisson_with_a_zero_output_child_equals_sklearn(seed):
    # One output is 0 on half the rows, so splits that leave a child with a zero sum in that
    # output are refused (scikit-learn's rule per output), with or without weights. Were a
    # node's sum 0 in an output, scikit-learn would call its impurity infinite (`compare`).
    X, _, R, w = make_data(seed)
    C = poisson_counts(R, seed)
    C[X[:, 0] < 0, 1] = 0.0
    for weights in (np.ones(N), w):
        q = DecisionTreeRegressor(criterion="poisson", max_depth=5).fit(X, C, sample_weight=weights)
        sk = SkRegressor(criterion="poisson", max_depth=5, random_state=0).fit(X, C, weights)
        matched, ties = compare(q, sk, X, C, weights, "poisson")
        assert matched > 3 and ties <= 2  # a tie is proven exact by compare


@pytest.mark.parametrize("weighted", [False, True])
def test_friedman_mse_with_several_outputs_grows_the_squared_error_tree(weighted):
    # Several outputs' Friedman improvement is the mean of theirs, whose best split is the
    # squared error's: scikit-learn (1.9) maps "friedman_mse" to "squared_error" alike.
    X, _, R, w = make_data(0)
    weights = w if weighted else None
    friedman = DecisionTreeRegressor(criterion="friedman_mse", max_depth=6)
    squared = DecisionTreeRegressor(criterion="squared_error", max_depth=6)
    friedman.fit(X, R, sample_weight=weights)
    squared.fit(X, R, sample_weight=weights)
    np.testing.assert_array_equal(friedman.tree_.feature, squared.tree_.feature)
    np.testing.assert_array_equal(friedman.tree_.threshold, squared.tree_.threshold)
    np.testing.assert_array_equal(friedman.predict(X), squared.predict(X))
    q = DecisionTreeRegressor(criterion="friedman_mse", max_depth=4)
    q.fit(X, R, sample_weight=weights)
    sk = SkRegressor(random_state=0, max_depth=4).fit(X, R, weights)
    matched, ties = compare(q, sk, X, R, weights, "squared_error")
    assert ties == 0 and matched == sk.tree_.node_count


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
def test_fully_grown_trees_differ_from_sklearn_only_by_exact_ties(seed, criterion):
    X, Y, R, w = make_data(seed)
    target = R if criterion == "squared_error" else Y
    cls, sk_cls = (
        (DecisionTreeRegressor, SkRegressor)
        if criterion == "squared_error"
        else (DecisionTreeClassifier, SkClassifier)
    )
    q = cls(criterion=criterion).fit(X, target, sample_weight=w)
    sk = sk_cls(criterion=criterion, random_state=0).fit(X, target, w)
    # Small weighted nodes tie often (one row split off by either of two features): about
    # 60 to 110 proven ties among 460 to 800 nodes on these data sets.
    matched, ties = compare(q, sk, X, target, w, criterion)
    assert matched > 250 and ties < matched / 2


def test_class_weight_per_output_equals_sklearn():
    X, Y, _, _ = make_data(3)
    for class_weight in ([{0: 1.0, 1: 3.0}, {0: 2.0, 2: 0.5}, {3: 4.0}], "balanced"):
        q = DecisionTreeClassifier(class_weight=class_weight, max_depth=4).fit(X, Y)
        sk = SkClassifier(class_weight=class_weight, max_depth=4, random_state=0).fit(X, Y)
        from sklearn.utils.class_weight import compute_sample_weight

        weights = compute_sample_weight(class_weight, Y)
        matched, ties = compare(q, sk, X, Y, weights, "gini")
        assert ties == 0 and matched == sk.tree_.node_count


def test_cost_complexity_equals_sklearn():
    X, Y, R, _ = make_data(4)
    for cls, sk_cls, target in (
        (DecisionTreeClassifier, SkClassifier, Y),
        (DecisionTreeRegressor, SkRegressor, R),
    ):
        path = cls(max_depth=5).cost_complexity_pruning_path(X, target)
        theirs = sk_cls(max_depth=5, random_state=0).cost_complexity_pruning_path(X, target)
        np.testing.assert_allclose(path.ccp_alphas, theirs.ccp_alphas, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(path.impurities, theirs.impurities, rtol=1e-9)
        # Midway between two effective alphas: pruned trees equal away from the boundaries,
        # where the comparison `alpha_eff <= ccp_alpha` is decided by rounding.
        middle = len(path.ccp_alphas) // 2
        alpha = float(path.ccp_alphas[middle : middle + 2].mean())
        q = cls(max_depth=5, ccp_alpha=alpha).fit(X, target)
        sk = sk_cls(max_depth=5, ccp_alpha=alpha, random_state=0).fit(X, target)
        criterion = "squared_error" if cls is DecisionTreeRegressor else "gini"
        matched, ties = compare(q, sk, X, target, np.ones(N), criterion)
        assert ties == 0 and matched == sk.tree_.node_count


def test_missing_values_equal_sklearn():
    # CART's default missing="learned" is scikit-learn's rule, for every output at once.
    X, Y, R, _ = make_data(5)
    X[np.random.default_rng(5).random(X.shape) < 0.1] = np.nan
    for cls, sk_cls, target, criterion in (
        (DecisionTreeClassifier, SkClassifier, Y, "gini"),
        (DecisionTreeRegressor, SkRegressor, R, "squared_error"),
    ):
        q = cls(max_depth=4).fit(X, target)
        sk = sk_cls(max_depth=4, random_state=0).fit(X, target)
        nodes, t = q.tree_.nodes(), sk.tree_
        assert nodes["n_children"].sum() + 1 == t.node_count
        np.testing.assert_array_equal(
            np.sort(q.tree_.threshold[q.tree_.feature >= 0]), np.sort(t.threshold[t.feature >= 0])
        )
        assert_same_predictions(q, sk, X, regression=criterion == "squared_error")


def test_sklearn_toy_problem():
    # scikit-learn's own test_multioutput data: two outputs, the second with four classes.
    X = [[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]]
    X += [[-2, 1], [-1, 1], [-1, 2], [2, -1], [1, -1], [1, -2]]
    y = np.array([[-1, 0]] * 3 + [[1, 1]] * 3 + [[-1, 2]] * 3 + [[1, 3]] * 3)
    T = [[-1, -1], [1, 1], [-1, 1], [1, -1]]
    expected = np.array([[-1, 0], [1, 1], [-1, 2], [1, 3]])
    classifier = DecisionTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(classifier.predict(T), expected)
    assert [p.shape for p in classifier.predict_proba(T)] == [(4, 2), (4, 4)]
    np.testing.assert_allclose(DecisionTreeRegressor().fit(X, y).predict(T), expected)


# --- the estimator API --------------------------------------------------------------------


def test_one_column_y_is_the_one_dimensional_fit():
    X, Y, R, _ = make_data(6)
    for cls, y in ((DecisionTreeClassifier, Y[:, 1]), (DecisionTreeRegressor, R[:, 0])):
        flat = cls(max_depth=4).fit(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            column = cls(max_depth=4).fit(X, y[:, np.newaxis])
        assert column.to_bytes() == flat.to_bytes()
        assert column.n_outputs_ == 1
        assert column.predict(X).shape == (N,)
    assert DecisionTreeClassifier().fit(X, Y[:, 1]).to_bytes()[8:12] == b"\x01\x00\x00\x00"


def test_labels_keep_their_types_per_output():
    X, Y, _, _ = make_data(7)
    names = np.array(["low", "mid", "high"])[Y[:, 1]]
    y = np.empty((N, 2), dtype=object)
    y[:, 0], y[:, 1] = Y[:, 0], names
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert model.classes_[0].tolist() == [0, 1]
    assert model.classes_[1].tolist() == ["high", "low", "mid"]
    assert model.n_classes_.tolist() == [2, 3]
    predicted = model.predict(X)
    assert predicted.dtype == object and predicted.shape == (N, 2)
    assert set(predicted[:, 1]) <= {"high", "low", "mid"}
    strings = DecisionTreeClassifier(max_depth=3).fit(X, np.c_[names, names[::-1]])
    assert strings.predict(X).dtype.kind == "U"


def test_polars_targets_and_outputs():
    X, Y, R, _ = make_data(8)
    frame = pl.DataFrame({f"x{j}": X[:, j] for j in range(6)}).with_columns(
        ripe=pl.Series(np.where(Y[:, 0] == 1, "yes", "no")).cast(pl.Enum(["no", "yes"])),
        grade=pl.Series(Y[:, 2]),
        price=pl.Series(R[:, 0]),
        weight=pl.Series(R[:, 1]),
    )
    model = DecisionTreeClassifier(max_depth=4).fit(
        frame.drop("price", "weight"), target=["ripe", "grade"]
    )
    assert model.feature_names_in_.tolist() == [f"x{j}" for j in range(6)]
    out = model.predict(frame, output="polars")
    assert out.columns == ["ripe", "grade"]
    assert out.schema["ripe"] == pl.Enum(["no", "yes"]) and out.schema["grade"] == pl.Int64
    np.testing.assert_array_equal(out["grade"].to_numpy(), model.predict(frame)[:, 1])
    proba = model.predict_proba(frame, output="polars")
    assert [p.columns for p in proba] == [["no", "yes"], ["0", "1", "2", "3"]]
    # The pure expression and the streaming predictor agree with predict (no missing value).
    expr = frame.select(model.to_polars_expr()).to_series()
    assert expr.dtype == pl.Struct({"ripe": pl.Enum(["no", "yes"]), "grade": pl.Int64})
    assert expr.struct.unnest().equals(out)
    lazy = frame.lazy().select(model.predict_expr()).collect(engine="streaming")
    assert lazy.to_series().struct.unnest().equals(out)
    regressor = DecisionTreeRegressor(max_depth=4).fit(
        frame.drop("ripe", "grade"), target=["price", "weight"]
    )
    values = regressor.predict(frame, output="polars")
    assert values.columns == ["price", "weight"] and values.dtypes == [pl.Float64] * 2
    pure = frame.select(regressor.to_polars_expr()).to_series().struct.unnest()
    np.testing.assert_allclose(pure.to_numpy(), values.to_numpy(), rtol=1e-15)


def test_sql_gives_one_case_per_output():
    X, Y, _, _ = make_data(9)
    model = DecisionTreeClassifier(max_depth=3).fit(X, Y[:, :2])
    sql = model.to_sql(table="t")
    assert sql.startswith("SELECT CASE") and 'END AS "y0",' in sql and sql.endswith('FROM "t"')
    with sqlite3.connect(":memory:") as db:
        db.execute(f"CREATE TABLE t ({', '.join(f'x{j} REAL' for j in range(6))})")
        db.executemany(f"INSERT INTO t VALUES ({', '.join('?' * 6)})", X.tolist())
        rows = np.array(db.execute(sql).fetchall())
    np.testing.assert_array_equal(rows, model.predict(X))


def test_export_text_shows_every_output():
    X, Y, R, _ = make_data(10)
    classifier = DecisionTreeClassifier(max_depth=1).fit(X, Y[:, :2])
    lines = classifier.export_text().splitlines()
    assert len(lines) == 2
    root = classifier.tree_
    for line, child in zip(lines, (1, 2), strict=True):
        labels = tuple(classifier.classes_[k][root.nodes()["label"][child, k]] for k in range(2))
        assert line.endswith(f": ({labels[0]}, {labels[1]}) ({root.nodes()['weight'][child]:g})")
    regressor = DecisionTreeRegressor(max_depth=1).fit(X, R)
    means = regressor.tree_.value[1, :, 0]
    assert f"({means[0]:.4f}, {means[1]:.4f})" in regressor.export_text()


def test_score_is_sklearns():
    X, Y, R, w = make_data(11)
    from sklearn.metrics import accuracy_score, r2_score

    regressor = DecisionTreeRegressor(max_depth=3).fit(X, R)
    expected = r2_score(R, regressor.predict(X), sample_weight=w)
    assert regressor.score(X, R, sample_weight=w) == pytest.approx(expected, rel=1e-12)
    binary = Y[:, [0, 0]]
    binary[:, 1] = 1 - binary[:, 1]
    classifier = DecisionTreeClassifier(max_depth=3).fit(X, binary)
    expected = accuracy_score(binary, classifier.predict(X), sample_weight=w)
    assert classifier.score(X, binary, sample_weight=w) == pytest.approx(expected)
    multiclass = DecisionTreeClassifier(max_depth=3).fit(X, Y)
    with pytest.raises(ValueError, match="multiclass-multioutput is not supported"):
        multiclass.score(X, Y)
    with pytest.raises(ValueError, match="multiclass-multioutput is not supported"):
        accuracy_score(Y, multiclass.predict(X))


def test_model_files_round_trip():
    X, Y, R, _ = make_data(12)
    for model in (
        DecisionTreeClassifier(max_depth=5).fit(X, Y),
        DecisionTreeRegressor(max_depth=5, missing="fractional").fit(X, R),
    ):
        data = model.to_bytes()
        assert data[8:12] == b"\x02\x00\x00\x00"  # format version 2: several outputs
        loaded = quercus.from_bytes(data)
        assert type(loaded) is type(model) and loaded.n_outputs_ == model.n_outputs_
        assert loaded.to_bytes() == data
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        assert loaded.export_text() == model.export_text()
        if isinstance(model, DecisionTreeClassifier):
            assert [c.tolist() for c in loaded.classes_] == [c.tolist() for c in model.classes_]
    # Refit in another call: byte-identical.
    assert DecisionTreeClassifier(max_depth=5).fit(X, Y).to_bytes() == (
        DecisionTreeClassifier(max_depth=5).fit(X, Y).to_bytes()
    )


def test_pruning_and_validation_take_every_output():
    X, Y, _, _ = make_data(13)
    X_val, Y_val, _, _ = make_data(14)
    grown = DecisionTreeClassifier().fit(X, Y)
    pruned = grown.prune("reduced_error", X_val=X_val, y_val=Y_val)
    assert pruned.n_leaves_ < grown.n_leaves_
    trace = pruned.pruning_trace_
    # The accuracy reported is the mean of the outputs' accuracies on the validation rows.
    final = trace.filter(trace["pruned"])["accuracy_after"][-1]
    assert final == pytest.approx(np.mean(pruned.predict(X_val) == Y_val), abs=1e-9)
    prepruned = DecisionTreeClassifier(prepruning="validation").fit(X, Y, validation=(X_val, Y_val))
    assert prepruned.n_leaves_ < grown.n_leaves_


def test_unsupported_combinations_say_why():
    X, Y, R, _ = make_data(15)
    with pytest.raises(ValueError, match=r"twoing.*3 outputs"):
        DecisionTreeClassifier(criterion="twoing").fit(X, Y)
    with pytest.raises(ValueError, match=r"pessimistic.*3 outputs"):
        DecisionTreeClassifier(algorithm="c4.5").fit(X, Y)
    with pytest.raises(ValueError, match=r"cost_matrix.*3 outputs"):
        DecisionTreeClassifier(cost_matrix=np.ones((2, 2))).fit(X, Y)
    with pytest.raises(ValueError, match=r"oblique.*2 outputs"):
        DecisionTreeRegressor(splits="oblique").fit(X, R)
    with pytest.raises(ValueError, match=r"class_majority.*2 outputs"):
        DecisionTreeRegressor(missing="class_majority").fit(X, R)
    with pytest.raises(ValueError, match=r"G² test.*3 outputs"):
        DecisionTreeClassifier(max_p_value=0.05).fit(X, Y)
    with pytest.raises(ValueError, match=r"y are negative.*Poisson"):
        DecisionTreeRegressor(criterion="poisson").fit(X, R)
    with pytest.raises(ValueError, match=r"Monotonicity.*multiple outputs.*3 columns"):
        DecisionTreeClassifier(monotonic_cst=[1] + [0] * (X.shape[1] - 1)).fit(X, Y)
    with pytest.raises(ValueError, match=r"optimal.*one output"):
        DecisionTreeClassifier(algorithm="optimal", max_depth=2).fit(X, Y)
    with pytest.raises(ValueError, match="list of dicts, or the string 'balanced'"):
        DecisionTreeClassifier(class_weight={0: 2.0}).fit(X, Y)
    with pytest.raises(ValueError, match="number of elements in class_weight"):
        DecisionTreeClassifier(class_weight=[{0: 2.0}]).fit(X, Y)
    model = DecisionTreeClassifier(max_depth=2).fit(X, Y)
    for export in (model.rules, model.to_svg, model.to_dot, model.export_rules):
        with pytest.raises(ValueError, match="one output; this tree predicts 3"):
            export()
    assert model._repr_svg_() is None and "image/svg+xml" not in model._repr_mimebundle_()
    with pytest.raises(ValueError, match="one output"):
        model.predict_expr(proba=True)
    with pytest.raises(ValueError, match="one column per output"):
        model.score(X, Y[:, :2])
    with pytest.raises(ValueError, match="never seen in training"):
        model.prune("reduced_error", X_val=X, y_val=Y + 7)


@pytest.mark.parametrize(
    "missing",
    [
        "fractional",
        "majority_branch",
        "separate",
        "learned",
        "surrogate",
        "impute_mean",
        "drop_rows",
    ],
)
def test_every_missing_strategy_with_categories(missing):
    X, Y, R, _ = make_data(16)
    X[np.random.default_rng(16).random(X.shape) < 0.15] = np.nan
    letters = np.array(list("abcde"))[np.digitize(X[:, 5], [-1, -0.3, 0.3, 1])]
    frame = pl.DataFrame({f"x{j}": X[:, j] for j in range(5)}).with_columns(
        c=pl.Series(letters).cast(pl.Categorical)
    )
    for algorithm, criteria in (("cart", ["gini"]), ("id3", ["entropy", "gain_ratio"])):
        for criterion in criteria:
            model = DecisionTreeClassifier(
                algorithm=algorithm, criterion=criterion, missing=missing, max_depth=4
            ).fit(frame, Y)
            predicted = model.predict(frame)
            assert predicted.shape == (N, 3)
            proba = model.predict_proba(frame)
            for k, p in enumerate(proba):
                np.testing.assert_allclose(p.sum(axis=1), 1.0)
                best = model.classes_[k][p.argmax(axis=1)]
                unique = (p >= p.max(axis=1, keepdims=True) - 1e-9).sum(axis=1) == 1
                np.testing.assert_array_equal(predicted[unique, k], best[unique])
    regressor = DecisionTreeRegressor(missing=missing, max_depth=4, splitter="hist").fit(frame, R)
    assert regressor.predict(frame).shape == (N, 2)
    assert quercus.from_bytes(regressor.to_bytes()).export_text() == regressor.export_text()


def test_command_line_predicts_every_output(tmp_path):
    import subprocess
    import sys

    X, Y, _, _ = make_data(17)
    frame = pl.DataFrame({f"x{j}": X[:, j] for j in range(6)})
    model = DecisionTreeClassifier(max_depth=3).fit(
        frame.with_columns(a=Y[:, 0], b=Y[:, 1]), target=["a", "b"]
    )
    model.save(tmp_path / "model.qrc")
    frame.write_parquet(tmp_path / "rows.parquet")

    def run(*args):
        command = [sys.executable, "-m", "quercus", *map(str, args)]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    done = run(
        "predict", tmp_path / "model.qrc", tmp_path / "rows.parquet", "-o", tmp_path / "p.csv"
    )
    assert done.returncode == 0, done.stderr
    written = pl.read_csv(tmp_path / "p.csv")
    assert written.columns == ["a", "b"]
    np.testing.assert_array_equal(written.to_numpy(), model.predict(frame))
    refused = run("show", tmp_path / "model.qrc", "--svg")
    assert refused.returncode == 2
    assert "to_svg() is defined for a tree with one output" in refused.stderr
