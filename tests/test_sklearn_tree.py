"""`tree_` as scikit-learn's tools read it, and `decision_path`: checked against
scikit-learn's own arrays for the same CART tree, and against quercus's predictions where
scikit-learn has nothing to compare (missing values, categorical splits).

Node ids differ: scikit-learn numbers nodes depth first, quercus in arena order. The two
trees are walked together to pair their nodes, and every array is compared through that
pairing (see test_vs_sklearn.py for why these data sets give one and the same tree).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from helpers import LEAF, load_xy
from scipy.sparse import csr_matrix
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from quercus import DecisionTreeClassifier, DecisionTreeRegressor, _core


def breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return np.ascontiguousarray(X[:, :15].astype(np.float32).astype(np.float64)), y


def diabetes() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_diabetes(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), y


def node_pairs(q_tree, sk_tree) -> np.ndarray:
    """quercus node id of each scikit-learn node, found by walking both trees from the root
    (left with left); the trees' shapes must agree."""
    nodes = q_tree.nodes()
    paired = np.full(sk_tree.node_count, -1)
    stack = [(0, 0)]
    while stack:
        s, q = stack.pop()
        paired[s] = q
        if sk_tree.children_left[s] == -1:
            assert nodes["kind"][q] == LEAF
            continue
        first = nodes["first_child"][q]
        stack += [(sk_tree.children_left[s], first), (sk_tree.children_right[s], first + 1)]
    assert sorted(paired) == list(range(q_tree.n_nodes))
    return paired


@pytest.fixture(scope="module")
def classifiers():
    X, y = breast_cancer()
    sk = SkClassifier(max_depth=3, random_state=0).fit(X, y)
    return DecisionTreeClassifier(algorithm="cart", max_depth=3).fit(X, y), sk, X


@pytest.fixture(scope="module")
def regressors():
    X, y = diabetes()
    sk = SkRegressor(max_depth=3, random_state=0).fit(X, y)
    return DecisionTreeRegressor(algorithm="cart", max_depth=3).fit(X, y), sk, X


def assert_same_arrays(q_tree, sk_tree) -> None:
    at = node_pairs(q_tree, sk_tree)  # quercus id of scikit-learn node s: at[s]
    assert q_tree.node_count == sk_tree.node_count
    assert q_tree.max_depth == sk_tree.max_depth
    assert q_tree.n_leaves == sk_tree.n_leaves
    assert q_tree.n_outputs == sk_tree.n_outputs == 1
    for name in ("children_left", "children_right"):
        sk_children = getattr(sk_tree, name)
        expected = np.where(sk_children == -1, -1, at[sk_children])
        np.testing.assert_array_equal(getattr(q_tree, name)[at], expected, err_msg=name)
    np.testing.assert_array_equal(q_tree.feature[at], sk_tree.feature)
    np.testing.assert_allclose(q_tree.threshold[at], sk_tree.threshold, rtol=1e-12)
    np.testing.assert_array_equal(q_tree.n_node_samples[at], sk_tree.n_node_samples)
    np.testing.assert_allclose(
        q_tree.weighted_n_node_samples[at], sk_tree.weighted_n_node_samples, rtol=1e-12
    )
    assert q_tree.value.shape == sk_tree.value.shape
    np.testing.assert_allclose(q_tree.value[at], sk_tree.value, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(q_tree.impurity[at], sk_tree.impurity, rtol=1e-9, atol=1e-12)
    assert q_tree.children_left.dtype == q_tree.feature.dtype == np.int64
    assert q_tree.n_node_samples.dtype == np.int64
    assert q_tree.threshold.dtype == q_tree.value.dtype == np.float64


def test_classifier_arrays_match_sklearn(classifiers):
    q, sk, _ = classifiers
    assert_same_arrays(q.tree_, sk.tree_)
    # class fractions, as scikit-learn >= 1.4 stores them
    np.testing.assert_allclose(q.tree_.value.sum(axis=2), 1.0)


def test_regressor_arrays_match_sklearn(regressors):
    q, sk, _ = regressors
    assert_same_arrays(q.tree_, sk.tree_)


def test_leaves_use_sklearn_markers(classifiers):
    tree = classifiers[0].tree_
    leaves = tree.nodes()["kind"] == LEAF
    assert (tree.children_left[leaves] == -1).all() and (tree.children_right[leaves] == -1).all()
    assert (tree.feature[leaves] == -2).all() and (tree.threshold[leaves] == -2.0).all()
    assert (tree.children_left[~leaves] >= 0).all() and (tree.feature[~leaves] >= 0).all()


def test_arrays_are_cached_and_read_only(classifiers):
    q = classifiers[0]
    assert q.tree_ is q.tree_
    assert q.tree_.value is q.tree_.value
    with pytest.raises(ValueError, match="read-only"):
        q.tree_.children_left[0] = 5


def test_view_forwards_the_core_tree(classifiers):
    q, _, X = classifiers
    tree = q.tree_
    assert isinstance(tree.core, _core.Tree)
    assert tree.n_nodes == tree.core.n_nodes == q.n_nodes_
    assert (tree.depth, tree.n_features, tree.max_n_classes) == (3, 15, 2)
    assert tree.n_classes.tolist() == [2] and tree.n_outputs == 1
    assert tree.criterion == "gini"
    nodes = tree.nodes()
    assert nodes.keys() == tree.core.nodes().keys()
    np.testing.assert_array_equal(tree.apply(q._columns(X)), q.apply(X))
    assert tree.n_leaves == q.n_leaves_


@pytest.mark.parametrize(
    ("algorithm", "dtype", "kind"),
    [
        ("id3", pl.String, "a multiway"),
        ("cart", pl.String, "a category-subset"),
        ("cart", None, "an ordered-category"),  # every column named ordinal
    ],
)
def test_structure_arrays_refuse_other_node_kinds(algorithm, dtype, kind):
    X, y = load_xy("watermelon2")
    ordinal = list(X.columns) if dtype is None else None
    X = X if dtype is None else X.cast(dtype)
    tree = DecisionTreeClassifier(algorithm=algorithm, ordinal_features=ordinal).fit(X, y).tree_
    for name in ("children_left", "children_right", "feature", "threshold"):
        with pytest.raises(ValueError, match=rf"tree_\.{name} .* node 0 is {kind} split"):
            getattr(tree, name)
    # the per-node arrays hold for every tree
    nodes = tree.nodes()
    np.testing.assert_array_equal(tree.weighted_n_node_samples, nodes["weight"])
    np.testing.assert_allclose(tree.value.sum(axis=2), 1.0)


# --- decision_path --------------------------------------------------------------------


@pytest.mark.parametrize("estimators", ["classifiers", "regressors"])
def test_decision_path_matches_sklearn(estimators, request):
    q, sk, X = request.getfixturevalue(estimators)
    at = node_pairs(q.tree_, sk.tree_)
    path = q.decision_path(X)
    assert isinstance(path, csr_matrix)
    assert path.shape == (len(X), q.n_nodes_) and path.dtype == np.int64
    assert path.has_sorted_indices
    np.testing.assert_array_equal(path.toarray()[:, at], sk.decision_path(X).toarray())


def path_shares(nodes: dict, marked: np.ndarray) -> dict[int, float]:
    """Share of the row's weight at each marked leaf, read from the marked nodes: where
    several children are marked the row was spread over them by their branch fractions."""
    shares = {}
    stack = [(0, 1.0)]
    while stack:
        node, share = stack.pop()
        n = nodes["n_children"][node]
        if n == 0:
            shares[node] = share
            continue
        children = [c for c in range(nodes["first_child"][node], nodes["first_child"][node] + n)]
        taken = [c for c in children if marked[c]]
        assert taken, f"node {node} is marked but none of its children"
        for c in taken:
            stack.append((c, share * (nodes["branch_fraction"][c] if len(taken) > 1 else 1.0)))
    return shares


def assert_paths_explain_predictions(model, X) -> None:
    """Each row's marked nodes are a subtree from the root whose leaves, mixed by their
    shares, give exactly the prediction the core computes; single-leaf rows end where
    `apply` says."""
    nodes = model.tree_.nodes()
    paths = model.decision_path(X).toarray().astype(bool)
    leaves = model.apply(X)
    regression = model.tree_.core.n_classes == 0
    predicted = model.predict(X) if regression else model.predict_proba(X)
    value = nodes["value"].astype(float)
    if not regression:
        value = value / value.sum(axis=1, keepdims=True)
    for row, marked in enumerate(paths):
        assert marked[0]
        parents = nodes["parent"][np.flatnonzero(marked)[1:]]
        assert marked[parents].all(), f"row {row}: a marked node's parent is not marked"
        shares = path_shares(nodes, marked)
        assert leaves[row] in shares
        if len(shares) == 1:
            assert marked.sum() == nodes["depth"][leaves[row]] + 1
        mixed = sum(share * value[leaf] for leaf, share in shares.items())
        np.testing.assert_allclose(np.ravel(mixed), np.ravel(predicted[row]), atol=1e-12)


def test_decision_path_spreads_missing_values_numeric():
    X, y = breast_cancer()
    X = X.copy()
    rng = np.random.default_rng(0)
    X[rng.random(X.shape) < 0.2] = np.nan
    model = DecisionTreeClassifier(algorithm="c4.5", max_depth=4).fit(X, y)
    paths = model.decision_path(X)
    assert (np.diff(paths.indptr) > model.depth_ + 1).any(), "no row was spread: weak test"
    assert_paths_explain_predictions(model, X)
    regressor = DecisionTreeRegressor(max_depth=4).fit(X, y.astype(float))
    assert_paths_explain_predictions(regressor, X)


@pytest.mark.parametrize("algorithm", ["id3", "c4.5", "cart"])
def test_decision_path_categorical_missing_and_unseen(algorithm):
    X, y = load_xy("watermelon2alpha")  # categorical, with missing values
    model = DecisionTreeClassifier(algorithm=algorithm, pruning="none").fit(X, y)
    assert model.n_nodes_ > 3
    assert_paths_explain_predictions(model, X)
    unseen = X.with_columns(pl.lit("never_seen").alias(name) for name in X.columns[:3])
    assert_paths_explain_predictions(model, unseen)


def test_decision_path_ordered_categories():
    X, y = load_xy("watermelon2")
    enum = pl.Enum(["clear", "slightly_blurry", "blurry"])
    X = X.with_columns(pl.col("texture").cast(enum))
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    missing = X.with_columns(
        pl.when(pl.int_range(pl.len()) % 3 == 0)
        .then(None)
        .otherwise(pl.col("texture"))
        .alias("texture")
    )
    assert_paths_explain_predictions(model, missing)


def test_oblique_trees():
    X, y = breast_cancer()
    X = X[:, :6].copy()
    model = DecisionTreeClassifier(splits="oblique", max_depth=3).fit(X, y)
    with pytest.raises(ValueError, match="node 0 is an oblique split"):
        _ = model.tree_.threshold
    X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    assert_paths_explain_predictions(model, X)


@pytest.mark.parametrize("fixture", ["classifiers", "regressors"])
def test_tree_methods_match_sklearn(fixture, request):
    """`tree_.predict`, `compute_feature_importances` (normalised or not) and
    `compute_node_depths` give scikit-learn's, node for node (paired by walking both
    trees), on the same trees."""
    q, sk, X = request.getfixturevalue(fixture)
    at = node_pairs(q.tree_, sk.tree_)
    np.testing.assert_array_equal(q.tree_.compute_node_depths()[at], sk.tree_.compute_node_depths())
    for normalize in (True, False):
        np.testing.assert_allclose(
            q.tree_.compute_feature_importances(normalize=normalize),
            sk.tree_.compute_feature_importances(normalize=normalize),
            rtol=1e-9,
            atol=1e-15,
        )
    ours, theirs = q.tree_.predict(X), sk.tree_.predict(X.astype(np.float32))
    assert ours.shape == theirs.shape and ours.dtype == np.float64
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_tree_predict_mixes_spread_rows_and_stacks_outputs():
    """A row C4.5 spreads over several leaves gets the estimator's probabilities from
    `tree_.predict`, not one leaf's value; a multi-output tree's rows are (n_outputs,
    max_n_classes), an output of fewer classes padded with zeros."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    c45 = DecisionTreeClassifier(algorithm="c4.5", min_objects=1).fit(X, y)
    rows = np.array([[np.nan], [0.5]])
    np.testing.assert_array_equal(c45.tree_.predict(rows), c45.predict_proba(rows))
    assert c45.tree_.predict(rows)[0].tolist() == [0.5, 0.5]
    Y = np.c_[y, [0, 1, 2, 0, 1, 2]]
    multi = DecisionTreeClassifier().fit(X, Y)
    stacked = multi.tree_.predict(X)
    assert stacked.shape == (6, 2, 3)
    np.testing.assert_array_equal(stacked[:, 0, 2], 0.0)
    for k, proba in enumerate(multi.predict_proba(X)):
        np.testing.assert_array_equal(stacked[:, k, : proba.shape[1]], proba)


def test_oblique_splits_are_credited_to_no_feature():
    """An oblique split tests a combination of features: `feature_importances_` credits it
    to none and `features_used_` names that combination's (its feature index, -1, had
    credited and named the last feature)."""
    X = np.random.default_rng(0).normal(size=(300, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    model = DecisionTreeClassifier(splits="oblique", max_depth=1).fit(X, y)
    assert model.tree_.nodes()["feature"][0] == -1
    np.testing.assert_array_equal(model.feature_importances_, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(model.tree_.compute_feature_importances(False), [0, 0, 0])
    # The features it uses are those of its combination.
    assert "-0.6996·x0 - 0.7144·x1 - 0.0139·x2 <= " in model.export_text(decimals=4)
    assert model.features_used_ == {"x0", "x1", "x2"}
    X[:, 2] = 0.0  # a constant column takes no weight: the last feature is then unused
    model = DecisionTreeClassifier(splits="oblique", max_depth=1).fit(X, y)
    assert model.features_used_ == {"x0", "x1"}


# --- scikit-learn's exporters read quercus trees -------------------------------------------


def _graph(dot: str) -> list[str]:
    """The node labels of a Graphviz tree in depth-first preorder (node ids dropped: quercus
    numbers its arena level by level, scikit-learn depth first)."""
    import re

    labels = dict(re.findall(r"^(\d+) \[label=(.*?)\] ;$", dot, flags=re.M))
    children: dict[str, list[str]] = {}
    for parent, child in re.findall(r"^(\d+) -> (\d+)", dot, flags=re.M):
        children.setdefault(parent, []).append(child)
    order, stack = [], ["0"]
    while stack:
        node = stack.pop()
        order.append(labels[node])
        stack.extend(reversed(children.get(node, [])))
    return order


@pytest.mark.parametrize("task", ["classifier", "regressor"])
def test_sklearn_export_graphviz_reads_quercus_trees(task):
    from sklearn import tree as sktree

    if task == "classifier":
        # Wine to depth 3: deeper (and on breast cancer) some nodes tie two features, which
        # scikit-learn breaks by its random feature order, quercus by the lower index.
        X, y = load_wine(return_X_y=True)
        ours = DecisionTreeClassifier(max_depth=3).fit(X, y)
        theirs = sktree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    else:
        X, y = load_diabetes(return_X_y=True)
        ours = DecisionTreeRegressor(max_depth=3).fit(X, y)
        theirs = sktree.DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    dot = sktree.export_graphviz(ours, filled=True, proportion=True)
    assert _graph(dot) == _graph(sktree.export_graphviz(theirs, filled=True, proportion=True))
    assert ("gini = " if task == "classifier" else "squared_error = ") in dot


def test_sklearn_accessors(classifiers, regressors):
    q, sk, X = classifiers
    assert (q.get_depth(), q.get_n_leaves()) == (sk.get_depth(), sk.get_n_leaves())
    assert q.n_outputs_ == sk.n_outputs_ == 1
    assert q.tree_.capacity == q.tree_.node_count
    np.testing.assert_allclose(np.exp(q.predict_log_proba(X)), q.predict_proba(X))
    pure = q.predict_proba(X) == 0
    assert pure.any() and np.isneginf(q.predict_log_proba(X)[pure]).all()
    r, sk_r, _ = regressors
    assert (r.get_depth(), r.get_n_leaves()) == (sk_r.get_depth(), sk_r.get_n_leaves())


def test_missing_go_to_left_matches_sklearn_learned_directions():
    """With scikit-learn's rule (missing="learned"), a tree fitted on the same data sends
    missing values the way scikit-learn's does, node for node."""
    X, y = breast_cancer()
    X = X[:, :6].copy()
    rng = np.random.default_rng(0)
    X[rng.random(X.shape) < 0.15] = np.nan
    sk = SkClassifier(max_depth=3, random_state=0).fit(X, y)
    q = DecisionTreeClassifier(algorithm="cart", max_depth=3, missing="learned").fit(X, y)
    at = node_pairs(q.tree_, sk.tree_)
    inner = sk.tree_.children_left != -1
    np.testing.assert_array_equal(
        q.tree_.missing_go_to_left[at][inner], sk.tree_.missing_go_to_left[inner]
    )
    leaves = q.tree_.nodes()["kind"] == LEAF
    assert (q.tree_.missing_go_to_left[leaves] == 0).all()
