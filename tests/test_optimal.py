"""algorithm="optimal": provably optimal shallow trees (issue 17).

The optimum is checked against an exhaustive enumeration written here, independently of the
core: every tree of the depth over every midpoint threshold, every subset of a nominal
feature's categories and both sides for missing values.
"""

from __future__ import annotations

import functools
import pickle
import warnings
from itertools import combinations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor

# --- exhaustive enumeration -----------------------------------------------------------------


class Enumeration:
    """Every tree of depth <= d over `columns` (float arrays, NaN missing; or int code arrays
    for nominal features, -1 missing), with `alpha` (weight units) per leaf."""

    def __init__(self, columns, nominal, y, w, alpha, costs=None, regression=False):
        self.columns, self.nominal = columns, nominal
        self.y, self.w, self.alpha = y, w, alpha
        self.costs, self.regression = costs, regression
        self.best = functools.lru_cache(maxsize=None)(self._best)

    def leaf(self, rows):
        rows = list(rows)
        w, y = self.w[rows], self.y[rows]
        if self.regression:
            mean = np.average(y, weights=w)
            return float(np.sum(w * (y - mean) ** 2)) + self.alpha
        k = int(self.y.max()) + 1 if self.costs is None else len(self.costs)
        counts = np.bincount(y, weights=w, minlength=k)
        if self.costs is None:
            err = counts.sum() - counts.max()
        else:
            err = min(float(counts @ np.asarray(self.costs)[:, j]) for j in range(k))
        return float(err) + self.alpha

    def partitions(self, rows):
        for column, nominal in zip(self.columns, self.nominal, strict=True):
            values = column[list(rows)]
            missing = np.isnan(values) if not nominal else values < 0
            known = sorted(set(values[~missing].tolist()))
            if nominal:
                tests = [set(s) for r in range(1, len(known) + 1) for s in combinations(known, r)]
                goes = [lambda v, s=s: v in s for s in tests]
            else:
                goes = [lambda v, t=t: v <= t for t in known[:-1]]
            goes.append(lambda v: True)  # every known value left: the known-vs-missing test
            for test in goes:
                for missing_left in (False, True) if missing.any() else (False,):
                    left = tuple(
                        r
                        for r, v, m in zip(rows, values, missing, strict=True)
                        if (missing_left if m else test(v))
                    )
                    if 0 < len(left) < len(rows):
                        yield left, tuple(r for r in rows if r not in left)

    def _best(self, rows, depth):
        best = self.leaf(rows)
        if depth > 0:
            for left, right in self.partitions(rows):
                best = min(best, self.best(left, depth - 1) + self.best(right, depth - 1))
        return best


def training_objective(model, X, y, w, alpha, costs=None):
    """The fitted model's objective recomputed from its predictions: training error per unit
    of weight plus alpha per leaf."""
    predicted = model.predict(X)
    if isinstance(model, DecisionTreeRegressor):
        err = np.sum(w * (y - predicted) ** 2)
    elif costs is None:
        err = np.sum(w * (predicted != y))
    else:
        err = np.sum(w * np.asarray(costs)[y, predicted])
    return float(err / w.sum() + alpha * model.n_leaves_)


@st.composite
def small_data(draw, max_rows=14):
    n = draw(st.integers(3, max_rows))
    n_features = draw(st.integers(1, 2))
    with_missing = draw(st.booleans())
    value = st.sampled_from([0.0, 0.5, 1.0, 2.0] + ([np.nan] if with_missing else []))
    X = np.array([[draw(value) for _ in range(n_features)] for _ in range(n)])
    y = np.array([draw(st.integers(0, 2)) for _ in range(n)])
    w = np.array([draw(st.sampled_from([1.0, 1.0, 2.0, 0.5])) for _ in range(n)])
    return X, y, w, with_missing


def enumerate_numeric(X, y, w, alpha_rate, depth, **kw):
    columns = [X[:, j] for j in range(X.shape[1])]
    e = Enumeration(columns, [False] * len(columns), y, w, alpha_rate * w.sum(), **kw)
    return e.best(tuple(range(len(y))), depth) / w.sum()


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(small_data(), st.sampled_from([1, 2]), st.sampled_from([0.0, 0.0, 0.05, 0.2]))
def test_equals_enumeration_of_every_shallow_tree(data, depth, alpha):
    X, y, w, with_missing = data
    model = DecisionTreeClassifier(
        algorithm="optimal",
        max_depth=depth,
        ccp_alpha=alpha,
        missing="learned" if with_missing else "fractional",
    ).fit(X, y, sample_weight=w)
    expected = enumerate_numeric(X, y, w, alpha, depth)
    assert training_objective(model, X, y, w, alpha) == pytest.approx(expected, abs=1e-9)
    assert model.optimality_gap_ == 0.0 and model.proven_optimal_
    assert model.depth_ <= depth


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_data(max_rows=8), st.sampled_from([0.0, 0.1]))
def test_depth_three_equals_enumeration_on_tiny_data(data, alpha):
    X, y, w, _ = data
    model = DecisionTreeClassifier(
        algorithm="optimal", max_depth=3, ccp_alpha=alpha, missing="learned"
    ).fit(X, y, sample_weight=w)
    expected = enumerate_numeric(X, y, w, alpha, 3)
    assert training_objective(model, X, y, w, alpha) == pytest.approx(expected, abs=1e-9)


@FAST
@given(small_data(), st.sampled_from([1, 2]))
def test_regression_equals_enumeration(data, depth):
    X, _, w, with_missing = data
    y = np.round(np.linspace(0.0, 3.0, len(X)) ** 2 * (1 + X[:, 0] * 0), 3)
    y = np.where(np.isnan(y), 1.0, y)
    model = DecisionTreeRegressor(
        algorithm="optimal", max_depth=depth, missing="learned" if with_missing else "fractional"
    ).fit(X, y, sample_weight=w)
    expected = enumerate_numeric(X, y, w, 0.0, depth, regression=True)
    assert training_objective(model, X, y, w, 0.0) == pytest.approx(expected, abs=1e-9)


@FAST
@given(small_data())
def test_cost_matrix_equals_enumeration(data):
    X, y, w, _ = data
    y = np.concatenate([y, [0, 1, 2]])  # every class present, as classes_ are
    X = np.concatenate([X, np.zeros((3, X.shape[1]))])
    w = np.concatenate([w, [1.0, 1.0, 1.0]])
    costs = [[0, 1, 4], [2, 0, 1], [1, 3, 0]]
    model = DecisionTreeClassifier(
        algorithm="optimal", max_depth=2, cost_matrix=costs, missing="learned"
    ).fit(X, y, sample_weight=w)
    expected = enumerate_numeric(X, y, w, 0.0, 2, costs=costs)
    assert training_objective(model, X, y, w, 0.0, costs) == pytest.approx(expected, abs=1e-9)


def test_nominal_subsets_equal_enumeration():
    rng = np.random.default_rng(3)
    for _ in range(15):
        n = 16
        color = rng.choice(["a", "b", "c", "d"], size=n)
        size = rng.choice([0.0, 1.0, 2.0], size=n)
        y = rng.integers(0, 2, size=n)
        X = pl.DataFrame({"color": pl.Series(color, dtype=pl.Categorical), "size": size})
        model = DecisionTreeClassifier(algorithm="optimal", max_depth=2).fit(X, y)
        codes = np.unique(color, return_inverse=True)[1].astype(float)
        e = Enumeration([codes, size], [True, False], y, np.ones(n), 0.0)
        expected = e.best(tuple(range(n)), 2) / n
        assert training_objective(model, X, y, np.ones(n), 0.0) == pytest.approx(expected)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([2, 3]))
def test_never_worse_than_the_greedy_tree_of_the_same_depth(seed, depth):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=120) > 0).astype(int)
    w = np.ones(120)
    optimal = DecisionTreeClassifier(algorithm="optimal", max_depth=depth).fit(X, y)
    for algorithm in ("cart", "id3", "c4.5"):
        greedy = DecisionTreeClassifier(algorithm=algorithm, max_depth=depth, pruning="none")
        greedy.fit(X, y)
        assert training_objective(optimal, X, y, w, 0) <= training_objective(greedy, X, y, w, 0)


def test_leaf_budget():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int) ^ (X[:, 1] > 0.5).astype(int)
    for leaves in (2, 3):
        model = DecisionTreeClassifier(algorithm="optimal", max_depth=3, max_leaf_nodes=leaves)
        model.fit(X, y)
        assert model.n_leaves_ <= leaves
        e = Enumeration([X[:, j] for j in range(3)], [False] * 3, y, np.ones(60), 0.0)
        # Trees of k leaves are at most k - 1 deep: depth k - 1 enumerates them, and with 2 or
        # 3 leaves allowed, the enumeration's best tree of depth leaves - 1 has at most that.
        if leaves == 2:
            expected = e.best(tuple(range(60)), 1) / 60
            assert training_objective(model, X, y, np.ones(60), 0) == pytest.approx(expected)


# --- what greedy misses ------------------------------------------------------------------------


def test_xor_text_004_figure_7():
    """Text 004, Figure 7: on XOR no single attribute gains anything. A distractor that agrees
    with the class 70% of the time wins the greedy root, and depth 2 cannot repair it; the
    optimal depth-2 tree is exact."""
    a = np.tile([0.0, 1.0, 0.0, 1.0], 10)
    b = np.tile([0.0, 0.0, 1.0, 1.0], 10)
    y = (a != b).astype(int)
    distractor = np.where(np.arange(40) % 10 < 7, y, 1 - y).astype(float)
    X = pl.DataFrame({"distractor": distractor, "a": a, "b": b})
    greedy = DecisionTreeClassifier(max_depth=2).fit(X, y)
    optimal = DecisionTreeClassifier(algorithm="optimal", max_depth=2).fit(X, y)
    assert greedy.score(X, y) < 1.0
    assert greedy.tree_.nodes()["feature"][0] == 0  # the distractor at the root
    assert optimal.score(X, y) == 1.0
    assert optimal.features_used_ == {"a", "b"}


def test_watermelon_staircase_figure_4_9():
    """Fig 4.9: ID3 fits watermelon 3.0α with a five-leaf staircase four levels deep, and
    greedy CART needs depth 3 for zero training error; the optimal depth-2 tree has none."""
    df = quercus.datasets.load("watermelon3alpha")
    X, y = df.drop("ripe"), df["ripe"]
    id3 = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    assert (id3.depth_, id3.n_leaves_) == (4, 5)
    assert DecisionTreeClassifier(max_depth=2).fit(X, y).score(X, y) < 1.0
    assert DecisionTreeClassifier(max_depth=3).fit(X, y).score(X, y) == 1.0
    optimal = DecisionTreeClassifier(algorithm="optimal", max_depth=2).fit(X, y)
    assert optimal.score(X, y) == 1.0
    assert (optimal.depth_, optimal.n_leaves_) == (2, 4)
    assert optimal.proven_optimal_
    # A small leaf penalty picks the smallest exact tree at any larger depth.
    simplest = DecisionTreeClassifier(algorithm="optimal", max_depth=4, ccp_alpha=0.01)
    assert simplest.fit(X, y).n_leaves_ == 4


# --- an ordinary quercus model -----------------------------------------------------------------


def test_the_model_is_an_ordinary_tree(tmp_path):
    df = quercus.datasets.load("watermelon3alpha")
    X, y = df.drop("ripe"), df["ripe"]
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=2).fit(X, y)
    assert "density" in model.export_text() and "IF" in model.export_rules()
    assert model.to_svg().startswith("<svg") and "digraph" in model.to_dot()
    assert list(model.rules().predict(X)) == list(model.predict(X))
    path = tmp_path / "optimal.qrc"
    model.save(path)
    loaded = quercus.load(path)
    assert list(loaded.predict(X)) == list(model.predict(X))
    assert loaded.optimality_gap_ == 0.0 and loaded.proven_optimal_
    assert pickle.loads(pickle.dumps(model)).proven_optimal_
    assert loaded.get_params()["algorithm"] == "optimal"
    pruned = model.prune("cost_complexity", ccp_alpha=0.1)
    assert pruned.optimality_gap_ is None  # no longer what the search proved
    cart = DecisionTreeClassifier().fit(X, y)
    assert cart.optimality_gap_ is None and cart.proven_optimal_ is None


def test_missing_values_go_to_the_learned_side():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [np.nan], [np.nan]])
    y = np.array([0, 0, 1, 1, 1, 1])
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=1, missing="learned")
    model.fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.predict(np.array([[np.nan]])).tolist() == [1]


def test_time_limit_returns_the_best_tree_with_its_gap():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 8))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=3000) > 0).astype(int)
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=4, max_time=0.2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    greedy = DecisionTreeClassifier(max_depth=4).fit(X, y)
    assert model.score(X, y) >= greedy.score(X, y)
    assert 0.0 <= model.optimality_gap_ <= 1.0
    if not model.proven_optimal_:
        assert any("max_time" in str(w.message) for w in caught)


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({}, "max_depth"),
        ({"max_depth": 7}, "max_depth"),
        ({"max_depth": 2, "criterion": "gini"}, "criterion"),
        ({"max_depth": 2, "min_samples_leaf": 5}, "min_samples_leaf"),
        ({"max_depth": 2, "pruning": "pessimistic"}, "pruning"),
        ({"max_depth": 2, "splits": "oblique"}, "splits"),
        ({"max_depth": 2, "missing": "surrogate"}, "missing"),
        ({"max_depth": 2, "missing": "fractional"}, "missing"),
        ({"max_depth": 2, "categorical_split": "multiway"}, "categorical_split"),
        ({"max_depth": 2, "splitter": "random"}, "splitter"),
    ],
)
def test_unsupported_settings_name_the_parameter(params, name):
    X = np.array([[0.0], [1.0], [np.nan], [3.0]])
    with pytest.raises(ValueError, match=name):
        DecisionTreeClassifier(algorithm="optimal", **params).fit(X, [0, 1, 0, 1])


def test_too_many_categories_names_the_limit():
    X = pl.DataFrame({"c": pl.Series([str(i) for i in range(30)], dtype=pl.Categorical)})
    with pytest.raises(ValueError, match="max_exhaustive_categories"):
        DecisionTreeClassifier(algorithm="optimal", max_depth=2).fit(X, [0, 1] * 15)


@pytest.mark.parametrize(
    ("n", "depth", "kind"),
    [
        (400, 3, "product"),
        (120, 4, "noisy"),
        (3000, 3, "noisy"),
        (8000, 2, "product"),
        (20000, 2, "flat"),
    ],
)
def test_threads_do_not_change_the_tree(n, depth, kind):
    """Scans of large nodes split their columns among threads, boxes their root columns, the
    sweep of a flat node (class one column's test: every root nearly as good) its two sides,
    and a root of depth three or more its columns in rounds (a noisy class: the incumbent
    moves from round to round; on 3,000 rows, after bounding their runs of thresholds in
    rounds too); the tree is the same."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n, 6))
    if kind == "flat":
        y = ((X[:, 2] > 0.5) ^ (rng.random(n) < 0.05)).astype(int)
    elif kind == "noisy":
        y = ((X[:, 0] * X[:, 3] > 0.1) ^ (rng.random(n) < 0.15)).astype(int)
    else:
        y = (X[:, 0] * X[:, 3] > 0.1).astype(int)
    one = DecisionTreeClassifier(algorithm="optimal", max_depth=depth, n_jobs=1).fit(X, y)
    two = DecisionTreeClassifier(algorithm="optimal", max_depth=depth, n_jobs=2).fit(X, y)
    assert one.to_bytes() == two.set_params(n_jobs=1).to_bytes()


def test_hist_takes_the_histogram_thresholds_and_beats_the_greedy_hist_tree():
    """splitter="hist": the optimum over the histogram splitter's thresholds. With a bin per
    distinct value it is the exact search's tree; with fewer bins every threshold is one the
    greedy histogram tree could take, and the optimum is no worse than that tree."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 12, size=(300, 4)).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = ((X[:, 0] > 5) ^ (X[:, 1] > 3)).astype(int)
    y[rng.random(300) < 0.1] ^= 1
    exact = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(X, y)
    many = DecisionTreeClassifier(
        algorithm="optimal", splitter="hist", max_bins=32, max_depth=3
    ).fit(X, y)
    for name in ("feature", "threshold", "children_left", "children_right", "value"):
        assert np.array_equal(getattr(many.tree_, name), getattr(exact.tree_, name)), name

    few = DecisionTreeClassifier(algorithm="optimal", splitter="hist", max_bins=4, max_depth=3)
    few.fit(X, y)
    assert few.proven_optimal_
    greedy = DecisionTreeClassifier(
        algorithm="cart", criterion="gini", splitter="hist", max_bins=4, max_depth=3
    ).fit(X, y)
    cuts = {
        (f, t) for f, t in zip(greedy.tree_.feature, greedy.tree_.threshold, strict=True) if f >= 0
    }
    errors = lambda m: int((m.predict(X) != y).sum())  # noqa: E731
    assert errors(few) <= errors(greedy)
    # Coarser thresholds cannot fit the training rows better than every threshold.
    assert errors(exact) <= errors(few)
    few_cuts = {
        (f, t) for f, t in zip(few.tree_.feature, few.tree_.threshold, strict=True) if f >= 0
    }
    # 4 bins leave at most 3 thresholds per column, shared by both searches.
    for f in range(X.shape[1]):
        assert len({t for g, t in cuts | few_cuts if g == f}) <= 3


def best_stump_error(X, y, w):
    """The least weighted error of a tree of depth at most one on two classes, every
    threshold of every column tried (by cumulative class weights)."""
    leaf = min(w[y == 0].sum(), w[y == 1].sum())
    best = leaf
    for column in X.T:
        order = np.argsort(column, kind="stable")
        values, ys, ws = column[order], y[order], w[order]
        ones = np.cumsum(ws * ys)
        zeros = np.cumsum(ws * (1 - ys))
        boundary = np.flatnonzero(values[1:] != values[:-1])
        if boundary.size == 0:
            continue
        left = np.minimum(ones[boundary], zeros[boundary])
        right = np.minimum(ones[-1] - ones[boundary], zeros[-1] - zeros[boundary])
        best = min(best, float((left + right).min()))
    return best


def test_depth_two_on_thousands_of_rows_equals_exhaustive_search():
    """Nodes of 2,048 rows and more bound their root thresholds a quantile bin at a time
    (optimal/boxes.rs) before evaluating any: the result is still the exhaustive optimum
    over every root threshold, each side's best stump found by cumulative sums."""
    rng = np.random.default_rng(11)
    n = 3000
    X = rng.integers(0, 40, size=(n, 4)).astype(float)
    y = ((X[:, 0] > 22) & (X[:, 1] > 9) | (X[:, 0] <= 22) & (X[:, 2] > 30)).astype(int)
    y[rng.random(n) < 0.08] ^= 1
    w = rng.integers(1, 4, size=n).astype(float)
    best = min(w[y == 0].sum(), w[y == 1].sum())
    for column in X.T:
        for t in np.unique(column)[:-1]:
            left = column <= t
            best = min(
                best,
                best_stump_error(X[left], y[left], w[left])
                + best_stump_error(X[~left], y[~left], w[~left]),
            )
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=2).fit(X, y, sample_weight=w)
    assert model.proven_optimal_
    assert training_objective(model, X, y, w, 0.0) * w.sum() == pytest.approx(best)
