"""Cross-validated cost-complexity pruning (`cost_complexity_cv`): rpart's cp table, the 1-SE
and least-error rules, misclassification risk and rpart's complexities, priors.

tests/test_vs_rpart.py compares these with rpart itself; here they are checked by their
definitions, without R.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from helpers import load_xy
from sklearn.datasets import load_breast_cancer

from quercus import DecisionTreeClassifier, DecisionTreeRegressor
from quercus.pruning import CostComplexityCV


def breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return np.ascontiguousarray(X[:, :10]), y


def rpart_like(**params) -> DecisionTreeClassifier:
    return DecisionTreeClassifier(
        missing="surrogate",
        min_samples_split=20,
        min_samples_leaf=7,
        ccp_risk="misclassification",
        ccp_sequence="rpart",
        **params,
    )


def table(xerror, xstd) -> CostComplexityCV:
    n = len(xerror)
    frame = pl.DataFrame(
        {
            "cp": np.linspace(0.5, 0.0, n),
            "ccp_alpha": np.linspace(0.2, 0.0, n),
            "n_splits": np.arange(n),
            "rel_error": np.linspace(1.0, 0.3, n),
            "xerror": xerror,
            "xstd": xstd,
        }
    )
    return CostComplexityCV(frame, 0.4, DecisionTreeClassifier(), np.zeros((0, n)))


def test_the_rules_by_hand():
    # The least xerror is row 3 (0.50 ± 0.10): the 1-SE rule takes the first row within 0.60,
    # row 2 (0.58); the least error itself is row 3; equal least errors: the first.
    cv = table([1.0, 0.58, 0.50, 0.52, 0.61], [0.2, 0.1, 0.10, 0.1, 0.1])
    assert (cv.row("1se"), cv.row("min")) == (1, 2)
    assert cv.ccp_alpha("1se") == pytest.approx(0.15)
    assert cv.cp("min") == pytest.approx(0.25)
    assert table([0.9, 0.5, 0.5], [0.0, 0.0, 0.0]).row("min") == 1
    # At the bound counts as within it.
    assert table([1.0, 0.6, 0.5], [0.1, 0.1, 0.1]).row("1se") == 1
    with pytest.raises(ValueError, match="rule must be one of"):
        cv.row("2se")


def test_the_table_reads_the_pruning_sequence():
    X, y = breast_cancer()
    model = rpart_like(ccp_alpha=0.002)
    cv = model.cost_complexity_cv(X, y, folds=5, random_state=0)
    t = cv.table
    assert t.columns == ["cp", "ccp_alpha", "n_splits", "rel_error", "xerror", "xstd"]
    assert t.height >= 4
    # Largest cp first, the root alone; the last row is the estimator's own alpha.
    assert t["cp"].is_sorted(descending=True) and t["n_splits"].is_sorted()
    assert (t["n_splits"][0], t["rel_error"][0]) == (0, 1.0)
    assert t["ccp_alpha"][-1] == pytest.approx(0.002)
    np.testing.assert_allclose(t["cp"] * cv.root_risk, t["ccp_alpha"])
    # R(root): the share of the minority class, 212 of 569 rows.
    assert cv.root_risk == pytest.approx(212 / 569)
    # rel_error is each row's pruned tree's training error over the root's; its n_splits are
    # that tree's splits (the rows hold no missing value: resubstitution error = leaf risks).
    for row in range(t.height):
        pruned = cv.estimator.prune("cost_complexity", ccp_alpha=t["ccp_alpha"][row])
        assert pruned.n_nodes_ - pruned.n_leaves_ == t["n_splits"][row]
        error = 1 - pruned.score(X, y)
        assert error / cv.root_risk == pytest.approx(t["rel_error"][row])
    # The rules' trees.
    for rule in ("1se", "min"):
        row = cv.row(rule)
        pruned = cv.pruned(rule)
        assert pruned.n_nodes_ - pruned.n_leaves_ == t["n_splits"][row]
    assert cv.table["xerror"][cv.row("min")] == t["xerror"].min()


def test_xerror_counts_the_cross_validated_predictions():
    X, y = breast_cancer()
    folds = np.arange(len(y)) % 4
    cv = rpart_like().cost_complexity_cv(X, y, folds=folds)
    assert cv.predictions.shape == (len(y), cv.table.height)
    wrong = (cv.predictions != y[:, None]).astype(float)
    n_root = cv.root_risk * len(y)
    np.testing.assert_allclose(cv.table["xerror"], wrong.sum(axis=0) / n_root)
    spread = np.sqrt((wrong**2).sum(axis=0) - wrong.sum(axis=0) ** 2 / len(y))
    np.testing.assert_allclose(cv.table["xstd"], spread / n_root)
    # Each row is predicted by the tree that did not see its fold: the first column (the root
    # alone) predicts the majority of the other folds.
    for fold in range(4):
        rest = y[folds != fold]
        majority = np.bincount(rest).argmax()
        assert (cv.predictions[folds == fold, 0] == majority).all()


def test_a_tree_without_a_split_has_rparts_one_row():
    # rpart (rpart.c, rpart.R) cross-validates no tree without a split: its cp table is one
    # row of cp 0 (the root's complexity), rel error 1, xerror and xstd 0. The folds' rows are
    # still predicted, by their trees as grown (cp 0 × 10).
    X, y = breast_cancer()
    noise = np.random.default_rng(3).integers(0, 2, len(y))
    folds = np.arange(len(y)) % 4
    model = rpart_like().set_params(min_impurity_decrease=0.2)
    assert model.fit(X, noise).n_leaves_ == 1
    cv = model.cost_complexity_cv(X, noise, folds=folds)
    assert cv.table.rows() == [(0.0, 0.0, 0, 1.0, 0.0, 0.0)]
    for fold in range(4):
        held = folds == fold
        alone = DecisionTreeClassifier(**model.get_params()).fit(X[~held], noise[~held])
        np.testing.assert_array_equal(cv.predictions[held, 0], alone.predict(X[held]))
    assert cv.pruned("1se").n_leaves_ == 1


def test_folds_by_number_or_by_label():
    X, y = breast_cancer()
    model = rpart_like()
    a = model.cost_complexity_cv(X, y, folds=5, random_state=7)
    b = model.cost_complexity_cv(X, y, folds=5, random_state=7)
    assert a.table.equals(b.table)
    # Folds of sizes differing by at most one, as rpart draws them.
    rng = np.random.default_rng(7)
    labels = rng.permutation(np.arange(len(y)) % 5)
    c = model.cost_complexity_cv(X, y, folds=[f"f{k}" for k in labels])
    assert c.table.equals(a.table)
    for folds, message in [
        (1, "folds must be between 2"),
        (len(y) + 1, "folds must be between 2"),
        (np.zeros(len(y)), "at least two different fold labels"),
        (np.arange(5), "one fold label per row"),
    ]:
        with pytest.raises(ValueError, match=message):
            model.cost_complexity_cv(X, y, folds=folds)


def test_a_regressor_cross_validates_its_squared_error():
    X, y = breast_cancer()
    target = X[:, 0]
    model = DecisionTreeRegressor(min_samples_leaf=10, ccp_sequence="rpart")
    cv = model.cost_complexity_cv(X[:, 1:], target, folds=np.arange(len(y)) % 5)
    predicted = cv.predictions
    errors = (predicted - target[:, None]) ** 2
    deviance = ((target - target.mean()) ** 2).sum()
    np.testing.assert_allclose(cv.table["xerror"], errors.sum(axis=0) / deviance)
    assert cv.root_risk == pytest.approx(target.var())
    assert cv.table["rel_error"][0] == 1.0


def test_rpart_sequence_and_weakest_links_share_the_table_format():
    X, y = breast_cancer()
    weakest = DecisionTreeClassifier(min_samples_leaf=7, ccp_risk="misclassification")
    cv = weakest.cost_complexity_cv(X, y, folds=4, random_state=1)
    path = weakest.cost_complexity_pruning_path(X, y)
    # The weakest-link table has one row per distinct alpha of the path above 0 (a zero-gain
    # link's alpha can round to 1e-18), and the unpruned tree's zero-gain links collapsed.
    distinct = np.unique(np.round(path.ccp_alphas[path.ccp_alphas > 1e-12], 12))
    assert cv.table.height == len(distinct) + 1
    np.testing.assert_allclose(np.sort(cv.table["ccp_alpha"][:-1]), distinct)
    estimator = cv.estimator
    assert estimator.n_nodes_ - estimator.n_leaves_ == cv.table["n_splits"][-1]


def test_priors_are_class_weights_of_prior_over_share():
    X, y = load_xy("watermelon3")
    labels = y.to_list()
    share = {c: labels.count(c) / len(labels) for c in set(labels)}
    priors = {"yes": 0.3, "no": 0.7}
    by_priors = DecisionTreeClassifier(algorithm="cart", priors=priors).fit(X, y)
    weights = {c: priors[c] / share[c] for c in priors}
    by_weights = DecisionTreeClassifier(algorithm="cart", class_weight=weights).fit(X, y)
    assert by_priors.export_text() == by_weights.export_text()
    # The root's class weights are the priors (times the rows).
    root = by_priors.tree_.nodes()["value"][0]
    classes = by_priors.classes_.tolist()
    assert root[classes.index("yes")] / root.sum() == pytest.approx(0.3)
    # As a sequence in classes_ order.
    ordered = [priors[c] for c in classes]
    same = DecisionTreeClassifier(algorithm="cart", priors=ordered).fit(X, y)
    assert same.export_text() == by_priors.export_text()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"priors": {"yes": 0.5}}, "every class"),
        ({"priors": [0.2, 0.2]}, "sum to 1"),
        ({"priors": [1.0]}, "one value per class"),
        ({"priors": [0.0, 1.0]}, "positive"),
        ({"priors": "equal"}, "'priors' parameter must be"),
        ({"priors": [0.5, 0.5], "class_weight": "balanced"}, "give one of them"),
        ({"altered_priors": True}, "cost_matrix"),
        ({"altered_priors": "yes", "cost_matrix": [[0, 1], [1, 0]]}, "altered_priors"),
        ({"ccp_risk": "entropy"}, "'ccp_risk' parameter must be"),
        ({"ccp_sequence": "breiman"}, "'ccp_sequence' parameter must be"),
        ({"altered_priors": True, "cost_matrix": [[0, 0], [1, 0]]}, "cost_matrix"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, y = load_xy("watermelon3")
    with pytest.raises((ValueError, TypeError), match=message):
        DecisionTreeClassifier(**params).fit(X, y)


def test_misclassification_risk_needs_classes_and_cv_needs_cost_complexity():
    X, y = breast_cancer()
    with pytest.raises(ValueError, match="ccp_risk"):
        DecisionTreeRegressor(ccp_risk="misclassification").fit(X, X[:, 0])
    with pytest.raises(ValueError, match="cost_complexity_cv cross-validates"):
        DecisionTreeClassifier(pruning="pessimistic").cost_complexity_cv(X, y)
    with pytest.raises(ValueError, match="prepruning"):
        DecisionTreeClassifier(prepruning="validation").cost_complexity_cv(X, y)
