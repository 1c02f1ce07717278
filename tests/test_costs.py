"""Misclassification costs, class weights and the complexity metrics of a fitted tree.

Costs: the leaves predict the class of least expected cost and the Gini index becomes text
004's eq. 8, Σ_{k≠k'} L_kk' p_k p_k' (checked on cases computed by hand). Class weights and
feature importances: equal to scikit-learn's on data where its tree does not depend on its
seed. Complexity metrics: counted on the texts' trees by hand and compared with scikit-learn.
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from helpers import LEAF, check_counts, entropy, gini, load_xy, node_masks
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from test_vs_sklearn import assert_same_tree, assert_sklearn_has_no_tie, load

from quercus import DecisionTreeClassifier, DecisionTreeRegressor

# --- costs: the least expected cost ---------------------------------------------------------

# rows = true class, columns = predicted, in classes_ order (a, b, c): calling a "b" is cheap,
# calling a b "a" costs 10
COSTS = np.array([[0.0, 1.0, 1.0], [10.0, 0.0, 1.0], [1.0, 1.0, 0.0]])


def test_single_leaf_predicts_the_least_expected_cost():
    # 5 a, 3 b, 2 c and nothing to split on. Expected cost of predicting
    #   a: 0.3 x 10 + 0.2 x 1 = 3.2,  b: 0.5 x 1 + 0.2 x 1 = 0.7,  c: 0.5 x 1 + 0.3 x 1 = 0.8
    # so "b", although "a" is the majority.
    X = np.zeros((10, 1))
    y = np.array(["a"] * 5 + ["b"] * 3 + ["c"] * 2)
    plain = DecisionTreeClassifier().fit(X, y)
    costly = DecisionTreeClassifier(cost_matrix=COSTS).fit(X, y)
    assert plain.n_leaves_ == costly.n_leaves_ == 1
    assert list(plain.predict(X[:1])) == ["a"]
    assert list(costly.predict(X[:1])) == ["b"]
    assert costly.classes_[costly.tree_.nodes()["label"][0]] == "b"
    # probabilities stay the class frequencies
    np.testing.assert_allclose(costly.predict_proba(X[:1]), [[0.5, 0.3, 0.2]], atol=1e-12)
    assert "b (10)" in costly.export_text()
    # accuracy is still accuracy: 3 of 10 rows are b
    assert costly.score(X, y) == pytest.approx(0.3)


def test_each_leaf_predicts_its_least_expected_cost():
    # x = 0: 5 a, 3 b, 2 c -> b (as above). x = 1: 4 a, 1 b -> a: 0.2 x 10 = 2.0,
    # b: 0.8 x 1 = 0.8, c: 0.8 + 0.2 = 1.0 -> b again, where the majority says a.
    # x = 2: 1 a, 4 c -> a: 0.8, b: 0.2 + 0.8 = 1.0, c: 0.2 -> c.
    y = ["a"] * 5 + ["b"] * 3 + ["c"] * 2 + ["a"] * 4 + ["b"] + ["a"] + ["c"] * 4
    x = [0.0] * 10 + [1.0] * 5 + [2.0] * 5
    X = pl.DataFrame({"x": pl.Series(x).cast(pl.Int64).cast(pl.String)})
    model = DecisionTreeClassifier(algorithm="id3", cost_matrix=COSTS).fit(X, y)
    assert model.n_leaves_ == 3
    queries = pl.DataFrame({"x": ["0", "1", "2"]})
    assert list(model.predict(queries)) == ["b", "b", "c"]
    assert list(DecisionTreeClassifier(algorithm="id3").fit(X, y).predict(queries)) == [
        "a",
        "a",
        "c",
    ]
    nd = model.tree_.nodes()
    leaves = model.apply(queries)
    assert [model.classes_[nd["label"][i]] for i in leaves] == ["b", "b", "c"]


# --- costs: the cost-weighted Gini index (text 004, eq. 8) ----------------------------------


def cost_gini(counts, costs) -> float:
    """Σ_{k≠k'} L_kk' p_k p_k', written as the double sum."""
    p = np.asarray(counts, dtype=float) / np.sum(counts)
    k = len(p)
    return float(sum(costs[i][j] * p[i] * p[j] for i in range(k) for j in range(k) if i != j))


# a, b are expensive to confuse (10 either way), c is cheap to confuse with either
SYMMETRIC = np.array([[0.0, 10.0, 1.0], [10.0, 0.0, 1.0], [1.0, 1.0, 0.0]])


def three_class_case():
    # 3 a, 3 b, 6 c. `sep_c` (column 0) isolates the c rows, `sep_a` (column 1) the a rows.
    y = ["a"] * 3 + ["b"] * 3 + ["c"] * 6
    X = pl.DataFrame(
        {
            "sep_c": [1.0] * 6 + [0.0] * 6,
            "sep_a": [0.0] * 3 + [1.0] * 9,
        }
    )
    return X, y


def test_cost_gini_node_impurities_by_hand():
    X, y = three_class_case()
    # Root p = (1/4, 1/4, 1/2): 2 x 10/16 + 2 x 1/8 + 2 x 1/8 = 1.25 + 0.25 + 0.25 = 1.75.
    assert cost_gini([3, 3, 6], SYMMETRIC) == pytest.approx(1.75, abs=1e-15)
    # sep_a: {3 a} (0) and {3 b, 6 c}: 2 x 1 x 1/3 x 2/3 = 4/9, weighted 9/12 x 4/9 = 1/3.
    # sep_c: {6 c} (0) and {3 a, 3 b}: 2 x 10 x 1/4 = 5, weighted 6/12 x 5 = 2.5.
    # Plain Gini prefers sep_c (6/12 x 0.5 = 0.25 against 9/12 x 4/9 = 1/3).
    model = DecisionTreeClassifier(cost_matrix=SYMMETRIC).fit(X, y)
    plain = DecisionTreeClassifier().fit(X, y)
    names = list(model.feature_names_in_)
    nd = model.tree_.nodes()
    assert names[nd["feature"][0]] == "sep_a"
    assert names[plain.tree_.nodes()["feature"][0]] == "sep_c"
    masks = check_counts(model, X, y)
    codes = np.array([list(model.classes_).index(v) for v in y])
    for i, mask in enumerate(masks):
        counts = np.bincount(codes[mask], minlength=3)
        assert nd["impurity"][i] == pytest.approx(cost_gini(counts, SYMMETRIC), abs=1e-12), i
    assert nd["impurity"][0] == pytest.approx(1.75, abs=1e-12)
    assert sorted(np.round(nd["impurity"], 12)) == [0, 0, 0, round(4 / 9, 12), 1.75]
    # the plain tree's impurities are the usual Gini index
    for i, mask in enumerate(node_masks(plain, X)):
        counts = np.bincount(codes[mask], minlength=3)
        assert plain.tree_.nodes()["impurity"][i] == pytest.approx(gini(counts), abs=1e-12)


def test_asymmetric_cost_gini_by_hand():
    # L_ab = 4, every other confusion 1: p = (1/2, 1/4, 1/4) gives
    # 4 x 1/8 + 1/8 + 1/8 + 1/16 + 1/8 + 1/16 = 0.5 + 0.125 + 0.125 + 0.0625 + 0.125 + 0.0625 = 1
    costs = np.array([[0.0, 4.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    X = np.zeros((8, 1))
    y = ["a"] * 4 + ["b"] * 2 + ["c"] * 2
    model = DecisionTreeClassifier(cost_matrix=costs).fit(X, y)
    assert model.tree_.nodes()["impurity"][0] == pytest.approx(1.0, abs=1e-12)
    assert cost_gini([4, 2, 2], costs) == pytest.approx(1.0, abs=1e-15)


def test_unit_costs_are_the_gini_index():
    # L = 1 - I: Σ_{k≠k'} p_k p_k' = 1 - Σ p_k² (text 004's "homework problem")
    X, y = load("wine")
    unit = np.ones((3, 3)) - np.eye(3)
    plain = DecisionTreeClassifier(max_depth=3).fit(X, y)
    costly = DecisionTreeClassifier(max_depth=3, cost_matrix=unit).fit(X, y)
    assert costly.export_text() == plain.export_text()
    np.testing.assert_allclose(
        costly.tree_.nodes()["impurity"], plain.tree_.nodes()["impurity"], rtol=1e-12, atol=1e-15
    )
    np.testing.assert_array_equal(costly.predict(X), plain.predict(X))


def test_two_class_costs_scale_the_gini_index():
    # With two classes eq. 8 is (L_01 + L_10) p_0 p_1 = (L_01 + L_10)/2 x Gini: the same
    # splits, impurities scaled, only the leaves' labels move toward the cheaper mistake.
    X, y = load("breast_cancer")
    X = np.ascontiguousarray(X[:, :15])
    costs = np.array([[0.0, 5.0], [1.0, 0.0]])
    plain = DecisionTreeClassifier(max_depth=3).fit(X, y)
    costly = DecisionTreeClassifier(max_depth=3, cost_matrix=costs).fit(X, y)
    a, b = plain.tree_.nodes(), costly.tree_.nodes()
    for key in ("kind", "feature", "threshold", "first_child"):
        np.testing.assert_array_equal(a[key], b[key])
    np.testing.assert_allclose(b["impurity"], 3.0 * a["impurity"], rtol=1e-12, atol=1e-15)
    # a leaf predicts 1 only when p_0 x 5 < p_1 x 1, i.e. p_0 < 1/6
    proba = plain.predict_proba(X)
    np.testing.assert_array_equal(costly.predict(X), np.where(5 * proba[:, 0] < proba[:, 1], 1, 0))
    assert (costly.predict(X) != plain.predict(X)).any()


@pytest.mark.parametrize(
    ("params", "pattern"),
    [
        ({"cost_matrix": [[0, 1], [1, 0]]}, r"cost_matrix.*3 x 3"),
        ({"cost_matrix": -SYMMETRIC}, r"cost_matrix.*>= 0"),
        ({"cost_matrix": SYMMETRIC * np.nan}, r"cost_matrix"),
        ({"class_weight": {"d": 2.0}}, r"class_weight.*'d'"),
        ({"class_weight": {"a": 0.0}}, r"class_weight"),
        ({"class_weight": "balance"}, r"class_weight"),
        ({"class_weight": [1.0, 2.0, 3.0]}, r"class_weight"),
    ],
    ids=str,
)
def test_bad_costs_and_weights(params, pattern):
    X, y = three_class_case()
    model = DecisionTreeClassifier().fit(X, y)
    before = model.export_text()
    with pytest.raises(BaseException) as info:
        model.set_params(**params).fit(X, y)
    assert type(info.value).__name__ != "PanicException"
    assert isinstance(info.value, ValueError | TypeError), repr(info.value)
    assert re.search(pattern, str(info.value)), str(info.value)
    assert model.export_text() == before


# --- class weights: scikit-learn's --------------------------------------------------------


def breast_cancer_30():
    X, y = load("breast_cancer")
    return np.ascontiguousarray(X), y


# (class_weight, columns): breast cancer trees of depth 3 without exact ties for that weighting
CLASS_WEIGHT_CASES = [
    ("balanced", 30),
    ({0: 3.0, 1: 1.0}, 30),
    ({1: 0.5}, 30),
    ({1: 2.5}, 15),
]


@pytest.mark.parametrize(("class_weight", "n_columns"), CLASS_WEIGHT_CASES, ids=str)
def test_class_weight_matches_sklearn(class_weight, n_columns):
    X, y = load("breast_cancer")
    X = np.ascontiguousarray(X[:, :n_columns])
    assert_sklearn_has_no_tie(SkClassifier, X, y, max_depth=3, class_weight=class_weight)
    sk = SkClassifier(max_depth=3, class_weight=class_weight, random_state=0).fit(X, y)
    q = DecisionTreeClassifier(max_depth=3, class_weight=class_weight).fit(X, y)
    assert_same_tree(q, sk, regression=False)
    np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(q.predict(X), sk.predict(X))
    np.testing.assert_allclose(q.feature_importances_, sk.feature_importances_, atol=1e-12)
    # the weighting matters: the unweighted tree differs
    plain = DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert not np.allclose(plain.predict_proba(X), q.predict_proba(X))


@pytest.mark.parametrize(
    ("max_depth", "min_samples_leaf", "class_weight"),
    [(2, 8, {0: 4.0}), (2, 40, {0: 4.0}), (3, 25, {0: 2.0})],
)
def test_class_weight_leaves_the_row_counts_to_sklearn(max_depth, min_samples_leaf, class_weight):
    # Class weights re-weight the criterion and the leaves; min_samples_leaf still counts rows,
    # as scikit-learn counts them (and rpart with priors). The same weights given as
    # sample_weight count as rows (a row of weight 4 is four rows), and grow another tree.
    X, y = breast_cancer_30()
    params = {"max_depth": max_depth, "min_samples_leaf": min_samples_leaf}
    assert_sklearn_has_no_tie(SkClassifier, X, y, class_weight=class_weight, **params)
    sk = SkClassifier(random_state=0, class_weight=class_weight, **params).fit(X, y)
    q = DecisionTreeClassifier(class_weight=class_weight, **params).fit(X, y)
    assert_same_tree(q, sk, regression=False)
    nodes = q.tree_.nodes()
    assert nodes["n_rows"][nodes["n_children"] == 0].min() >= min_samples_leaf
    ((label, factor),) = class_weight.items()
    as_rows = DecisionTreeClassifier(**params).fit(
        X, y, sample_weight=np.where(y == label, factor, 1.0)
    )
    assert not np.allclose(as_rows.predict_proba(X), q.predict_proba(X))


def test_balanced_weights_are_n_over_k_counts():
    # "balanced": n_samples / (n_classes x count of the row's class), times any sample weight
    X, y = load_xy("watermelon2")  # 8 yes, 9 no
    labels = np.array(y.to_list())
    w = np.where(labels == "yes", 17 / (2 * 8), 17 / (2 * 9))
    balanced = DecisionTreeClassifier(algorithm="id3", class_weight="balanced").fit(X, y)
    weighted = DecisionTreeClassifier(algorithm="id3").fit(X, y, sample_weight=w)
    assert balanced.export_text() == weighted.export_text()
    np.testing.assert_allclose(balanced.tree_.nodes()["weight"], weighted.tree_.nodes()["weight"])
    assert balanced.tree_.nodes()["weight"][0] == pytest.approx(17.0)
    sample = np.arange(1.0, 18.0)
    both = DecisionTreeClassifier(algorithm="id3", class_weight={"yes": 2.0}).fit(
        X, y, sample_weight=sample
    )
    product = DecisionTreeClassifier(algorithm="id3").fit(
        X, y, sample_weight=sample * np.where(labels == "yes", 2.0, 1.0)
    )
    np.testing.assert_allclose(both.tree_.nodes()["value"], product.tree_.nodes()["value"])
    assert both.export_text() == product.export_text()


def test_class_weight_with_sample_weight_matches_sklearn():
    X, y = breast_cancer_30()
    w = np.random.default_rng(3).integers(1, 4, size=len(y)).astype(float)
    params = {"max_depth": 2, "class_weight": "balanced"}
    trees = {
        tuple(SkClassifier(random_state=s, **params).fit(X, y, sample_weight=w).tree_.feature)
        for s in range(5)
    }
    assert len(trees) == 1
    sk = SkClassifier(random_state=0, **params).fit(X, y, sample_weight=w)
    q = DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
    assert_same_tree(q, sk, regression=False)
    np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-12)


# --- complexity metrics -------------------------------------------------------------------

TRAIN = [r - 1 for r in (1, 2, 3, 6, 7, 10, 14, 15, 16, 17)]
VALID = [r - 1 for r in (4, 5, 8, 9, 11, 12, 13)]


def fig_4_4():
    X, y = load_xy("watermelon2")
    X = X.select(["umbilicus", "color", "root", "sound", "texture", "surface"])
    Xt, yt = X[TRAIN], y.gather(TRAIN)
    return DecisionTreeClassifier(algorithm="id3").fit(Xt, yt), Xt, yt, X[VALID], y.gather(VALID)


def test_complexity_of_figs_4_4_and_4_6():
    model, _, _, Xv, yv = fig_4_4()
    # Fig 4.4: internal ① umbilicus, ② color, ③ root, ⑤ color, ⑥ texture; leaves 3 under ②,
    # curly / straight under ③, green / light under ⑤, 3 under ⑥ and flat: 11
    assert (model.n_nodes_, model.n_leaves_, model.depth_) == (16, 11, 4)
    assert model.features_used_ == frozenset({"umbilicus", "color", "root", "texture"})
    # Fig 4.6: ② and ⑥ became leaves
    pruned = model.prune("reduced_error", X_val=Xv, y_val=yv, prune_ties=False)
    assert (pruned.n_nodes_, pruned.n_leaves_, pruned.depth_) == (10, 7, 3)
    assert pruned.features_used_ == frozenset({"umbilicus", "color", "root"})
    # Fig 4.5: the stump
    stump = model.prune("reduced_error", X_val=Xv, y_val=yv)
    assert (stump.n_nodes_, stump.n_leaves_, stump.depth_) == (4, 3, 1)
    assert stump.features_used_ == frozenset({"umbilicus"})
    np.testing.assert_array_equal(stump.feature_importances_, [1, 0, 0, 0, 0, 0])


def test_feature_importances_of_fig_4_4_by_hand():
    # Σ over a feature's splits of n(t) Ent(t) - Σ_children n(c) Ent(c), from the training
    # rows that reach each node (counted from the data), normalised to sum to 1
    model, Xt, yt, _, _ = fig_4_4()
    nd = model.tree_.nodes()
    codes = np.array([v == "yes" for v in yt.to_list()], dtype=int)

    def weighted_entropy(mask):
        return mask.sum() * entropy(np.bincount(codes[mask], minlength=2))

    masks = node_masks(model, Xt)
    names = list(model.feature_names_in_)
    raw = dict.fromkeys(names, 0.0)
    for i in np.flatnonzero(nd["kind"] != LEAF):
        first, n = nd["first_child"][i], nd["n_children"][i]
        children = sum(weighted_entropy(masks[c]) for c in range(first, first + n))
        raw[names[nd["feature"][i]]] += weighted_entropy(masks[i]) - children
    total = sum(raw.values())
    # root: 10 x Ent(5:5) = 10 minus hollow 4 x Ent(3:1), slightly hollow 4 x 1, flat 0
    assert raw["umbilicus"] == pytest.approx(10 - 4 * entropy([3, 1]) - 4, abs=1e-12)
    expected = np.array([raw[n] / total for n in names])
    np.testing.assert_allclose(model.feature_importances_, expected, rtol=1e-12, atol=1e-15)
    assert expected[names.index("sound")] == 0 and expected[names.index("surface")] == 0


def assert_metrics_match_sklearn(q, sk) -> None:
    assert q.n_nodes_ == sk.tree_.node_count
    assert q.n_leaves_ == sk.get_n_leaves()
    assert q.depth_ == sk.get_depth()
    used = {f"x{j}" for j in sk.tree_.feature[sk.tree_.feature >= 0]}
    assert q.features_used_ == frozenset(used)
    np.testing.assert_allclose(q.feature_importances_, sk.feature_importances_, atol=1e-12)
    assert q.feature_importances_.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_classifier_metrics_match_sklearn(criterion, depth):
    X, y = load("breast_cancer")
    X = np.ascontiguousarray(X[:, :15])
    assert_sklearn_has_no_tie(SkClassifier, X, y, criterion=criterion, max_depth=depth)
    sk = SkClassifier(criterion=criterion, max_depth=depth, random_state=0).fit(X, y)
    q = DecisionTreeClassifier(criterion=criterion, max_depth=depth).fit(X, y)
    assert_metrics_match_sklearn(q, sk)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_regressor_metrics_match_sklearn(depth):
    X, y = load("diabetes")
    assert_sklearn_has_no_tie(SkRegressor, X, y, max_depth=depth)
    sk = SkRegressor(max_depth=depth, random_state=0).fit(X, y)
    q = DecisionTreeRegressor(max_depth=depth).fit(X, y)
    assert_metrics_match_sklearn(q, sk)


def test_metrics_after_cost_complexity_pruning_match_sklearn():
    X, y = load("diabetes")
    params = {"min_samples_leaf": 5}
    assert_sklearn_has_no_tie(SkRegressor, X, y, **params)
    alphas = SkRegressor(random_state=0, **params).cost_complexity_pruning_path(X, y).ccp_alphas
    full = DecisionTreeRegressor(**params).fit(X, y)
    for alpha in alphas[[5, 20, 40, -4, -2]]:
        sk = SkRegressor(random_state=0, ccp_alpha=alpha, **params).fit(X, y)
        assert_metrics_match_sklearn(full.prune("cost_complexity", ccp_alpha=alpha), sk)


def test_single_leaf_metrics():
    X = np.arange(6.0).reshape(3, 2)
    model = DecisionTreeClassifier().fit(X, ["a", "a", "a"])
    assert (model.n_nodes_, model.n_leaves_, model.depth_) == (1, 1, 0)
    assert model.features_used_ == frozenset()
    np.testing.assert_array_equal(model.feature_importances_, [0.0, 0.0])
