"""scikit-learn's growth parameters through the public API: `random_state`, `max_features`,
`splitter` (with "random" and the ExtraTree estimators), `min_impurity_decrease`,
fractional `min_samples_split` / `min_samples_leaf` and `monotonic_cst`.

Where scikit-learn is deterministic (no feature ties, nothing drawn) the trees must equal
its trees node by node; where it draws, the checks are structural and statistical.
"""

from __future__ import annotations

import pickle

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from sklearn.tree import ExtraTreeClassifier as SkExtraClassifier
from sklearn.tree import ExtraTreeRegressor as SkExtraRegressor
from test_vs_sklearn import assert_same_tree, load

import quercus
from quercus import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)


def cancer():
    X, y = load("breast_cancer")
    return np.ascontiguousarray(X[:, :15]), y


def synthetic():
    X, y = make_regression(n_samples=600, n_features=8, noise=20.0, random_state=0)
    return X.astype(np.float32).astype(np.float64), y


def assert_equals_sklearn(ours, theirs, X, y, sample_weight=None, **params):
    """Fits both with `params` and compares them node by node, after checking that
    scikit-learn grows the same tree whatever its seed (no exact ties to break)."""
    trees = {
        (tuple(t.feature), tuple(np.round(t.threshold, 9)))
        for t in (
            theirs(random_state=s, **params).fit(X, y, sample_weight=sample_weight).tree_
            for s in range(6)
        )
    }
    assert len(trees) == 1, "scikit-learn breaks an exact tie differently per seed: bad case"
    sk = theirs(random_state=0, **params).fit(X, y, sample_weight=sample_weight)
    q = ours(**params).fit(X, y, sample_weight=sample_weight)
    assert_same_tree(q, sk, regression=ours is DecisionTreeRegressor)
    assert q.n_leaves_ > 1


CLASSIFIER, REGRESSOR = (DecisionTreeClassifier, SkClassifier), (DecisionTreeRegressor, SkRegressor)


@pytest.mark.parametrize(
    ("estimators", "data", "value"),
    [
        (CLASSIFIER, cancer, 0.005),
        (CLASSIFIER, cancer, 0.01),
        (CLASSIFIER, cancer, 0.05),
        (REGRESSOR, synthetic, 0.005),
        (REGRESSOR, synthetic, 0.01),
        (REGRESSOR, lambda: load("diabetes"), 0.05),
    ],
)
def test_min_impurity_decrease_equals_sklearn(estimators, data, value):
    X, y = data()
    scale = np.var(y) if estimators is REGRESSOR else 1.0
    assert_equals_sklearn(*estimators, X, y, min_impurity_decrease=value * scale)


@pytest.mark.parametrize(("estimators", "data"), [(CLASSIFIER, cancer), (REGRESSOR, synthetic)])
def test_min_impurity_decrease_with_weights_equals_sklearn(estimators, data):
    X, y = data()
    w = np.random.default_rng(0).uniform(0.5, 3.0, len(y))
    value = 0.02 * (np.var(y) if estimators is REGRESSOR else 1.0)
    assert_equals_sklearn(*estimators, X, y, sample_weight=w, min_impurity_decrease=value)


@pytest.mark.parametrize(
    ("estimators", "data", "sizes"),
    [
        (CLASSIFIER, cancer, {"min_samples_split": 0.1}),
        (CLASSIFIER, cancer, {"min_samples_split": 0.25, "min_samples_leaf": 0.02}),
        (CLASSIFIER, cancer, {"min_samples_split": 0.3}),
        (CLASSIFIER, cancer, {"min_samples_split": 1.0}),
        (REGRESSOR, synthetic, {"min_samples_leaf": 0.01}),
        (REGRESSOR, synthetic, {"min_samples_leaf": 0.037}),
        (REGRESSOR, synthetic, {"min_samples_split": 0.1}),
        (REGRESSOR, synthetic, {"min_samples_split": 7, "min_samples_leaf": 0.015}),
    ],
)
def test_fractional_sizes_equal_sklearn(estimators, data, sizes):
    X, y = data()
    assert_equals_sklearn(*estimators, X, y, **sizes)


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("max_leaf_nodes", [None, 40])
@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error"])
def test_monotonic_regression_equals_sklearn(sign, max_leaf_nodes, criterion):
    """One feature (no feature ties): the constrained tree, its clipped node values and its
    predictions are scikit-learn's. Under absolute error the constraint compares the sides'
    medians and the children's bounds are cut at the middle of their medians. (Absolute error
    ties often, two thresholds leaving the same medians and errors; seed 3 meets such a tie,
    which scikit-learn's rounding breaks the other way.)"""
    seed, n = (3, 400) if criterion == "squared_error" else (5, 300)
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 1)
    y = np.sin(6 * X[:, 0]) + 0.5 * sign * X[:, 0] + 0.3 * rng.rand(n)
    X = X.astype(np.float32).astype(np.float64)
    kw = {"monotonic_cst": [sign], "max_leaf_nodes": max_leaf_nodes, "criterion": criterion}
    q = DecisionTreeRegressor(**kw).fit(X, y)
    sk = SkRegressor(random_state=0, **kw).fit(X, y)
    assert_same_tree(q, sk, regression=True)
    grid = np.linspace(-0.1, 1.1, 500).reshape(-1, 1)
    np.testing.assert_allclose(q.predict(grid), sk.predict(grid), rtol=1e-9, atol=1e-12)
    assert np.all(np.diff(q.predict(grid)) * sign >= 0)
    # The constraint binds: the free tree is not monotonic.
    free = DecisionTreeRegressor(criterion=criterion).fit(X, y).predict(grid)
    assert np.any(np.diff(free) * sign < 0)


@pytest.mark.parametrize("splitter", ["exact", "hist", "random"])
def test_monotonic_absolute_error_holds(splitter):
    """Two features, one constrained, missing values placed by the search: every prediction
    moves with the constrained feature as its sign says."""
    rng = np.random.default_rng(4)
    X = rng.random((600, 2))
    y = np.cos(5 * X[:, 0]) + X[:, 1] + 0.2 * rng.random(600)
    X[rng.random(X.shape) < 0.1] = np.nan
    model = DecisionTreeRegressor(
        criterion="absolute_error", monotonic_cst=[-1, 0], splitter=splitter, random_state=0
    ).fit(X, y)
    test = rng.random((200, 2))
    p = model.predict(test)
    for step in (-0.3, 0.3, 2.0):
        moved = test.copy()
        moved[:, 0] += step
        assert np.all((model.predict(moved) - p) * step <= 0)


@pytest.mark.parametrize("signs", [[1, 0], [-1, 1], [0, -1]])
def test_monotonic_binary_classification_equals_sklearn(signs):
    """Two features chosen so that scikit-learn's trees do not depend on its seed."""
    X, y = cancer()
    X = X[:, [0, 7]]
    kw = {"monotonic_cst": signs, "max_depth": 5}
    trees = {tuple(SkClassifier(random_state=s, **kw).fit(X, y).tree_.feature) for s in range(5)}
    assert len(trees) == 1, "scikit-learn ties here: pick other features"
    q = DecisionTreeClassifier(**kw).fit(X, y)
    sk = SkClassifier(random_state=0, **kw).fit(X, y)
    assert_same_tree(q, sk, regression=False)
    np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), rtol=0, atol=1e-12)


# --- monotonic constraints hold, or are refused ---------------------------------------------


@pytest.mark.parametrize("estimator", [DecisionTreeClassifier, ExtraTreeClassifier])
@pytest.mark.parametrize("splitter", ["exact", "hist", "random"])
@pytest.mark.parametrize("missing", ["fractional", "learned", "majority_branch"])
def test_monotonic_classification_holds(estimator, splitter, missing):
    X, y = make_classification(
        n_samples=1000, n_features=5, n_informative=5, n_redundant=0, random_state=1
    )
    X_train, X_test = X[:900].copy(), X[900:]
    X_train[np.random.default_rng(1).random(X_train.shape) < 0.2] = np.nan
    cst = [1, -1, 0, 0, 0]
    model = estimator(monotonic_cst=cst, splitter=splitter, missing=missing, random_state=2).fit(
        X_train, y[:900]
    )
    p = model.predict_proba(X_test)[:, 1]
    for feature, sign in [(0, 1), (1, -1)]:
        for step in (-10.0, -0.5, 0.5, 10.0):
            moved = X_test.copy()
            moved[:, feature] += step
            assert np.all((model.predict_proba(moved)[:, 1] - p) * sign * step >= 0)
    # Predicted labels follow the clipped probabilities.
    decided = np.abs(p - 0.5) > 1e-12
    expected = model.classes_[(p > 0.5).astype(int)]
    assert np.array_equal(model.predict(X_test)[decided], expected[decided])


def test_monotonic_ordinal_feature_holds():
    rng = np.random.default_rng(4)
    size = rng.choice(["S", "M", "L", "XL"], 600)
    x = rng.random(600)
    level = pl.Series(size).replace_strict({"S": 0, "M": 1, "L": 2, "XL": 3}).to_numpy()
    y = np.sin(5 * x) - level + rng.random(600)
    df = pl.DataFrame({"size": size, "x": x, "y": y})
    model = DecisionTreeRegressor(
        monotonic_cst=[-1, 0], ordinal_features={"size": ["S", "M", "L", "XL"]}
    ).fit(df, target="y")
    for xv in np.linspace(0, 1, 11):
        probe = pl.DataFrame({"size": ["S", "M", "L", "XL"], "x": [xv] * 4})
        assert np.all(np.diff(model.predict(probe)) <= 0)


def test_monotonic_cst_refused_with_sklearn_messages():
    X = [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]
    y = [1, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="monotonic_cst has shape 3 but the input data X has 2"):
        DecisionTreeClassifier(monotonic_cst=np.array([-1, 1, 0])).fit(X, y)
    msg = "monotonic_cst must be None or an array-like of -1, 0 or 1"
    with pytest.raises(ValueError, match=msg):
        DecisionTreeClassifier(monotonic_cst=np.array([-2, 2])).fit(X, y)
    with pytest.raises(ValueError, match=msg + "(.*)0.8]"):
        DecisionTreeClassifier(monotonic_cst=np.array([-1, 0.8])).fit(X, y)
    X3, y3 = make_classification(n_samples=100, n_classes=3, n_informative=3, random_state=0)
    with pytest.raises(ValueError, match="not supported with multiclass classification"):
        DecisionTreeClassifier(monotonic_cst=[1] + [0] * 19).fit(X3, y3)


def test_monotonic_cst_refused_where_it_cannot_hold():
    df = pl.DataFrame({"color": ["a", "b", "c", "a"] * 10, "x": np.arange(40.0)})
    y = np.arange(40.0)
    with pytest.raises(ValueError, match=r"monotonic_cst.*nominal categorical"):
        DecisionTreeRegressor(monotonic_cst=[1, 0]).fit(df, y)
    with pytest.raises(ValueError, match=r"monotonic_cst.*surrogate"):
        DecisionTreeRegressor(monotonic_cst=[0, 1], missing="surrogate").fit(df, y)
    with pytest.raises(ValueError, match=r"monotonic_cst.*oblique"):
        DecisionTreeRegressor(monotonic_cst=[0, 1], splits="oblique").fit(df, y)
    with pytest.raises(ValueError, match=r"monotonic_cst.*pessimistic"):
        DecisionTreeClassifier(algorithm="c4.5", monotonic_cst=[0, 1]).fit(df, y > 20)
    # C4.5 with another pruning keeps the constraint.
    model = DecisionTreeClassifier(algorithm="c4.5", pruning="cost_complexity", ccp_alpha=0.01)
    p = model.set_params(monotonic_cst=[0, 1]).fit(df, y > 20).predict_proba(df)[:, 1]
    assert np.all(np.diff(p[np.argsort(df["x"].to_numpy(), kind="stable")]) >= 0)


# --- random_state, max_features and the random splitter -------------------------------------


def core_bytes(model) -> bytes:
    return model.tree_.to_bytes()


@pytest.mark.parametrize("estimator", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_no_randomness_gives_the_same_tree_whatever_the_seed(estimator):
    X, y = make_classification(n_samples=600, n_features=8, random_state=0)
    reference = core_bytes(estimator(splitter="auto").fit(X, y))
    for kw in [
        {"random_state": 0},
        {"random_state": 12345},
        {"random_state": np.random.RandomState(3)},
        {"random_state": np.random.default_rng(5)},
        {"max_features": None, "random_state": 9},
        {"max_features": 8, "random_state": 9},
        {"max_features": 1.0, "random_state": 9},
        {"max_features": 50, "random_state": 9},
        {"splitter": "best"},
    ]:
        assert core_bytes(estimator(**kw).fit(X, y)) == reference, kw


def test_random_state_forms_as_sklearn_reads_them():
    X, y = make_classification(n_samples=500, n_features=10, random_state=0)

    def tree(random_state):
        return core_bytes(ExtraTreeClassifier(random_state=random_state).fit(X, y))

    assert tree(7) == tree(7)
    assert tree(7) != tree(8)
    assert tree(np.random.RandomState(1)) == tree(np.random.RandomState(1))
    assert tree(np.random.default_rng(2)) == tree(np.random.default_rng(2))
    # A generator advances: refitting with it grows another tree, as in scikit-learn.
    shared = np.random.RandomState(0)
    model = ExtraTreeClassifier(random_state=shared)
    assert core_bytes(model.fit(X, y)) != core_bytes(model.fit(X, y))
    for bad in [-1, 2**32, 1.5, "seed", True]:
        with pytest.raises(ValueError, match="random_state"):
            ExtraTreeClassifier(random_state=bad).fit(X, y)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("sqrt", 4), ("log2", 4), (None, 20), (0.5, 10), (0.01, 1), (1.0, 20), (3, 3), (40, 40)],
)
def test_max_features_resolves_as_sklearn(value, expected):
    X, y = make_classification(n_samples=200, n_features=20, random_state=0)
    q = DecisionTreeClassifier(max_features=value, random_state=0).fit(X, y)
    sk = SkClassifier(max_features=value, random_state=0).fit(X, y)
    assert q.max_features_ == sk.max_features_ == expected


@pytest.mark.parametrize("bad", [0, -1, 0.0, 1.5, "auto", True])
def test_bad_max_features_named(bad):
    X, y = make_classification(n_samples=50, random_state=0)
    with pytest.raises(ValueError, match="max_features"):
        DecisionTreeClassifier(max_features=bad).fit(X, y)


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("min_samples_leaf", 1.0),
        ("min_samples_leaf", 0.0),
        ("min_samples_split", 1.5),
        ("min_samples_split", 1),
        ("min_samples_split", 0.0),
        ("min_impurity_decrease", -0.1),
        ("splitter", "fast"),
    ],
)
def test_bad_growth_parameters_named(name, bad):
    X, y = make_classification(n_samples=50, random_state=0)
    with pytest.raises(ValueError, match=name):
        DecisionTreeClassifier(**{name: bad}).fit(X, y)


def test_max_features_draws_a_new_subset_per_node():
    """With one feature per node, the root's feature is each feature about equally often
    across seeds; a deep tree uses many features."""
    X, y = make_regression(n_samples=300, n_features=5, n_informative=5, random_state=0)
    roots = [
        DecisionTreeRegressor(max_features=1, max_depth=1, random_state=s)
        .fit(X, y)
        .tree_.feature[0]
        for s in range(300)
    ]
    counts = np.bincount(roots, minlength=5)
    assert counts.min() > 35, counts  # 60 expected each
    deep = DecisionTreeRegressor(max_features=1, random_state=0).fit(X, y)
    assert len(deep.features_used_) == 5


def test_random_trees_do_not_depend_on_threads():
    X, y = make_classification(n_samples=20_000, n_features=10, random_state=5)
    for estimator in (
        ExtraTreeClassifier(random_state=3),
        DecisionTreeClassifier(max_features="sqrt", random_state=3),
        DecisionTreeClassifier(max_features=4, splitter="hist", random_state=3),
    ):
        one = core_bytes(estimator.set_params(n_jobs=1).fit(X, y))
        every = core_bytes(estimator.set_params(n_jobs=-1).fit(X, y))
        assert one == every


def test_extra_trees_as_sklearn():
    """The ExtraTree estimators: scikit-learn's defaults, random tests, and held-out scores
    in scikit-learn's range (averaged over seeds, both draw differently)."""
    for ours, theirs in [
        (ExtraTreeClassifier(), SkExtraClassifier()),
        (ExtraTreeRegressor(), SkExtraRegressor()),
    ]:
        for name in ("splitter", "max_features", "random_state", "min_impurity_decrease"):
            assert ours.get_params()[name] == theirs.get_params()[name], name
    X, y = make_classification(n_samples=2000, n_features=12, n_informative=6, random_state=0)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
    q = [ExtraTreeClassifier(random_state=s).fit(X_tr, y_tr).score(X_te, y_te) for s in range(20)]
    sk = [SkExtraClassifier(random_state=s).fit(X_tr, y_tr).score(X_te, y_te) for s in range(20)]
    assert abs(np.mean(q) - np.mean(sk)) < 0.03, (np.mean(q), np.mean(sk))
    X, y = make_regression(n_samples=2000, n_features=8, noise=10.0, random_state=0)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
    q = [ExtraTreeRegressor(random_state=s).fit(X_tr, y_tr).score(X_te, y_te) for s in range(20)]
    sk = [SkExtraRegressor(random_state=s).fit(X_tr, y_tr).score(X_te, y_te) for s in range(20)]
    assert abs(np.mean(q) - np.mean(sk)) < 0.05, (np.mean(q), np.mean(sk))
    model = ExtraTreeClassifier(random_state=0).fit(X_tr, y_tr > 0)
    assert model.splitter_ == "random" and model.max_features_ == 2
    assert repr(ExtraTreeClassifier(splitter="best")) == "ExtraTreeClassifier(splitter='best')"


def test_random_thresholds_lie_within_each_node():
    X, y = make_regression(n_samples=500, n_features=3, random_state=1)
    model = ExtraTreeRegressor(random_state=0).fit(X, y)
    t = model.tree_
    leaves = model.apply(X)
    # Rows reaching each split node, from the decision path.
    path = model.decision_path(X).toarray().astype(bool)
    for node in np.flatnonzero(t.children_left >= 0):
        values = X[path[:, node], t.feature[node]]
        assert values.min() <= t.threshold[node] < values.max()
        left = t.children_left[node]
        assert path[:, left].sum() > 0 and path[:, t.children_right[node]].sum() > 0
    assert leaves.max() < t.node_count


def test_random_categorical_subsets_and_multiway():
    rng = np.random.default_rng(0)
    color = rng.choice(list("abcdefgh"), 800)
    x = rng.random(800)
    y = (np.isin(color, list("aceg")) ^ (x > 0.5)).astype(int)
    df = pl.DataFrame({"color": color, "x": x})
    binary = ExtraTreeClassifier(max_features=None, random_state=1).fit(df, y)
    nodes = binary.tree_.nodes()
    assert np.any(nodes["kind"] == 3)  # random subsets
    multi = ExtraTreeClassifier(
        max_features=None, random_state=1, categorical_split="multiway"
    ).fit(df, y)
    nodes = multi.tree_.nodes()
    assert np.any(nodes["kind"] == 2)  # by category, as the best search splits it
    assert binary.score(df, y) > 0.95


def test_bagged_quercus_trees_are_a_random_forest():
    X, y = make_classification(n_samples=1500, n_features=16, n_informative=8, random_state=2)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
    forest = BaggingClassifier(
        estimator=DecisionTreeClassifier(max_features="sqrt"), n_estimators=40, random_state=0
    ).fit(X_tr, y_tr)
    reference = RandomForestClassifier(n_estimators=40, random_state=0).fit(X_tr, y_tr)
    single = DecisionTreeClassifier().fit(X_tr, y_tr).score(X_te, y_te)
    ours, theirs = forest.score(X_te, y_te), reference.score(X_te, y_te)
    assert ours > single + 0.03
    assert abs(ours - theirs) < 0.04, (ours, theirs)
    # Each member drew its own features: the trees differ.
    members = {core_bytes(e) for e in forest.estimators_}
    assert len(members) == 40


def test_random_models_save_and_load():
    X, y = make_classification(n_samples=300, random_state=0)
    model = ExtraTreeClassifier(random_state=np.random.RandomState(0)).fit(X, y)
    back = quercus.from_bytes(model.to_bytes())
    assert type(back) is ExtraTreeClassifier
    assert back.splitter_ == "random" and back.random_state is None
    assert np.array_equal(back.predict_proba(X), model.predict_proba(X))
    again = pickle.loads(pickle.dumps(model))
    assert np.array_equal(again.predict_proba(X), model.predict_proba(X))
    reg = ExtraTreeRegressor(random_state=1).fit(X, y.astype(float))
    assert type(quercus.from_bytes(reg.to_bytes())) is ExtraTreeRegressor


@pytest.mark.parametrize("seed", range(5))
def test_random_splitter_sets_missing_rows_apart_from_one_known_value(seed):
    """All known values equal and some missing: the one partition there is, whatever the
    seed (scikit-learn draws the missing rows' side and finds no split half the time)."""
    X = np.array([[np.nan], [1.0], [np.nan]])
    model = ExtraTreeRegressor(max_depth=1, random_state=seed).fit(X, [0.0, 1.0, 0.0])
    assert model.tree_.node_count == 3 and model.tree_.threshold[0] == 1.0
    np.testing.assert_array_equal(model.predict(X), [0.0, 1.0, 0.0])


def _absolute_error(y):
    """Σ|y − median| by brute force (any median minimises it)."""
    return float(np.abs(y - np.median(y)).sum()) if len(y) else 0.0


@pytest.mark.parametrize("seed", range(4))
def test_random_tests_score_absolute_error_by_medians(seed):
    """A random test under absolute error: each leaf predicts its rows' median, and each
    split's impurity decrease is the brute-force decrease of Σ|y − median| over its sides."""
    X, y = make_regression(n_samples=80, n_features=3, noise=5.0, random_state=seed)
    model = ExtraTreeRegressor(criterion="absolute_error", max_depth=3, random_state=seed)
    model.fit(X, y)
    tree = model.tree_
    assert tree.node_count > 1
    leaf = model.apply(X)
    for node in np.unique(leaf):
        assert tree.value[node, 0, 0] == pytest.approx(np.median(y[leaf == node]))
    paths = model.decision_path(X).toarray().astype(bool)
    for node in range(tree.node_count):
        left, right = tree.children_left[node], tree.children_right[node]
        if left < 0:
            continue
        rows, lrows, rrows = paths[:, node], paths[:, left], paths[:, right]
        assert np.all(X[lrows, tree.feature[node]] <= tree.threshold[node])
        assert tree.impurity[node] == pytest.approx(_absolute_error(y[rows]) / rows.sum())
        assert tree.impurity[left] == pytest.approx(_absolute_error(y[lrows]) / lrows.sum())
        assert tree.impurity[right] == pytest.approx(_absolute_error(y[rrows]) / rrows.sum())


@pytest.mark.parametrize("estimator", [DecisionTreeRegressor, ExtraTreeRegressor])
def test_min_impurity_decrease_under_absolute_error(estimator):
    """scikit-learn's rule holds under absolute error too: every split's weighted decrease of
    the reported impurities reaches min_impurity_decrease (its impurity is no function of
    sums, so the decrease is the one the scan measured)."""
    X, y = make_regression(n_samples=100, n_features=4, noise=10.0, random_state=0)
    y = (y > 0).astype(float)  # many tied targets: splits of zero decrease exist
    for minimum in (0.0001, 0.05):
        model = estimator(criterion="absolute_error", min_impurity_decrease=minimum)
        tree = model.set_params(random_state=0).fit(X, y).tree_
        weighted = tree.impurity * tree.weighted_n_node_samples / len(y)
        inner = np.flatnonzero(tree.children_left >= 0)
        decrease = (
            weighted[inner]
            - weighted[tree.children_left[inner]]
            - weighted[tree.children_right[inner]]
        )
        assert np.all(decrease > minimum - 1e-10)
