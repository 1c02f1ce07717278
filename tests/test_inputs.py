"""Input conversion and the estimator conventions of API.md."""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import polars as pl
import pytest
from helpers import LEAF, MULTIWAY, NUMERIC, ORDERED, SUBSET, load_xy, normalize_export, to_pandas

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor

PARAMS = {
    "algorithm": "cart",
    "criterion": None,
    "categorical_split": None,
    "max_depth": None,
    "min_samples_split": 2,
    "min_samples_leaf": 1,
    "max_exhaustive_categories": 12,
    "max_leaf_nodes": None,
    "min_weight_fraction_leaf": 0.0,
    "min_gain": 0.0,
    "min_impurity_decrease": 0.0,
    "max_p_value": None,
    "min_objects": None,
    "numeric_gain_correction": None,
    "conventions": None,
    "prepruning": None,
    "pruning": None,
    "ccp_alpha": 0.0,
    "ccp_risk": "impurity",
    "ccp_sequence": "weakest_link",
    "confidence": 0.25,
    "prune_ties": True,
    "pruning_folds": None,
    "subtree_raising": True,
    "collapse": None,
    "splits": "axis",
    "missing": None,
    "max_surrogates": 5,
    "drop_features_above": None,
    "splitter": "best",
    "max_features": None,
    "random_state": None,
    "monotonic_cst": None,
    "max_bins": 255,
    "max_cat_threshold": None,
    "cat_smooth": 0.0,
    "cat_l2": 0.0,
    "min_data_per_group": 1,
    "n_jobs": None,
    "ordinal_features": None,
    "max_time": None,
    "verbose": 0,
}
# The classifier adds misclassification costs, class weights and rpart's priors.
CLASSIFIER_PARAMS = PARAMS | {
    "cost_matrix": None,
    "class_weight": None,
    "priors": None,
    "altered_priors": False,
    "laplace": False,
}


# --- NumPy and Polars -----------------------------------------------------------------


def test_numpy_and_polars_give_the_same_tree():
    X, y = load_xy("watermelon3alpha")
    labels = np.array(y.cast(pl.String).to_list())
    Xn = X.to_numpy()
    assert Xn.dtype == np.float64
    a = DecisionTreeClassifier(algorithm="id3").fit(Xn, labels)
    b = DecisionTreeClassifier(algorithm="id3").fit(
        X.rename({"density": "x0", "sugar": "x1"}), labels
    )
    assert list(a.feature_names_in_) == ["x0", "x1"]
    assert a.n_features_in_ == 2
    assert a.export_text() == b.export_text()
    na, nb = a.tree_.nodes(), b.tree_.nodes()
    assert na.keys() == nb.keys()
    for k in na:
        np.testing.assert_array_equal(na[k], nb[k], err_msg=k)
    np.testing.assert_array_equal(
        a.predict(Xn), b.predict(X.rename({"density": "x0", "sugar": "x1"}))
    )
    # numeric features keep their names with Polars input
    c = DecisionTreeClassifier(algorithm="id3").fit(X, labels)
    assert list(c.feature_names_in_) == ["density", "sugar"]
    assert c.export_text().replace("density", "x0").replace("sugar", "x1") == a.export_text()


def test_numpy_bool_array_is_numeric():
    X = np.array([[True, False], [False, False], [True, True], [False, True]])
    y = np.array([1, 0, 1, 0])
    m = DecisionTreeClassifier().fit(X, y)
    nd = m.tree_.nodes()
    assert nd["kind"][0] == NUMERIC and nd["feature"][0] == 0
    assert nd["threshold"][0] == pytest.approx(0.5)
    np.testing.assert_array_equal(m.predict(X), y)


def test_polars_prediction_matches_columns_by_name():
    X, y = load_xy("watermelon3")
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    base_p = m.predict_proba(X)
    base = m.predict(X)
    shuffled = X.select(list(reversed(X.columns)))
    extra = shuffled.with_columns(pl.lit(1.0).alias("junk"), pl.lit("z").alias("more"))
    for Z in (shuffled, extra):
        np.testing.assert_array_equal(m.predict(Z), base)
        np.testing.assert_array_equal(m.predict_proba(Z), base_p)
        np.testing.assert_array_equal(m.apply(Z), m.apply(X))


def test_string_labels_stay_strings():
    X, y = load_xy("watermelon3alpha")
    labels = np.array(y.cast(pl.String).to_list())
    m = DecisionTreeClassifier().fit(X, labels)
    assert list(m.classes_) == ["no", "yes"]  # sorted unique
    pred = m.predict(X)
    assert all(isinstance(p, str) for p in pred)
    assert pred.dtype == m.classes_.dtype
    np.testing.assert_array_equal(pred, labels)


def test_integer_and_bool_labels():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    m = DecisionTreeClassifier().fit(X, np.array([7, 7, 3, 3]))
    assert list(m.classes_) == [3, 7]
    assert list(m.predict(X)) == [7, 7, 3, 3]
    assert m.n_classes_ == 2
    mb = DecisionTreeClassifier().fit(X, np.array([True, True, False, False]))
    assert list(mb.classes_) == [False, True]
    assert list(mb.predict(X)) == [True, True, False, False]


def test_enum_target_fixes_class_order():
    X, y = load_xy("watermelon2")
    assert isinstance(y.dtype, pl.Enum)
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    assert list(m.classes_) == ["yes", "no"]  # meta.json order, not sorted
    proba = m.predict_proba(X)
    assert proba.shape == (17, 2)
    truth = np.array(y.cast(pl.String).to_list())
    # the id3 tree separates the training rows: column 0 is "yes"
    np.testing.assert_array_equal(proba[:, 0], (truth == "yes").astype(float))
    # the same target as plain strings: sorted order
    s = DecisionTreeClassifier(algorithm="id3").fit(X, y.cast(pl.String))
    assert list(s.classes_) == ["no", "yes"]
    np.testing.assert_array_equal(s.predict_proba(X)[:, 1], (truth == "yes").astype(float))
    # a custom Enum order
    rev = y.cast(pl.String).cast(pl.Enum(["no", "yes"]))
    r = DecisionTreeClassifier(algorithm="id3").fit(X, rev)
    assert list(r.classes_) == ["no", "yes"]


def test_fit_with_target_column_name():
    df = quercus.datasets.load("watermelon3")
    assert "ripe" in df.columns
    a = DecisionTreeClassifier(algorithm="id3").fit(df, target="ripe")
    X, y = load_xy("watermelon3")
    b = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    assert a.export_text() == b.export_text()
    assert list(a.feature_names_in_) == X.columns
    assert a.n_features_in_ == 8
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    # predicting on the full frame (target column included) ignores the extra column
    np.testing.assert_array_equal(a.predict(df), b.predict(X))


def test_fit_returns_self():
    X, y = load_xy("playtennis")
    m = DecisionTreeClassifier()
    assert m.fit(X, y) is m
    r = DecisionTreeRegressor()
    assert r.fit(np.array([[0.0], [1.0]]), np.array([0.0, 1.0])) is r


def test_datasets():
    names = quercus.datasets.names()
    for n in [
        "watermelon2",
        "watermelon2alpha",
        "watermelon3",
        "watermelon3alpha",
        "playtennis",
        "restaurant",
    ]:
        assert n in names
    df = quercus.datasets.load("watermelon2alpha")
    assert df.shape == (17, 7)
    assert df.null_count().sum_horizontal()[0] == 13
    assert df.schema["color"] == pl.Enum(["green", "dark", "light"])
    assert df.schema["ripe"] == pl.Enum(["yes", "no"])
    w3 = quercus.datasets.load("watermelon3")
    assert w3.schema["density"] == pl.Float64 and w3.schema["sugar"] == pl.Float64
    assert w3["density"][0] == pytest.approx(0.697)
    X, y = quercus.datasets.load("playtennis", return_X_y=True)
    assert isinstance(y, pl.Series) and y.name == "PlayTennis" and X.shape == (14, 4)


# --- column dtypes ---------------------------------------------------------------------


def test_boolean_column():
    X = pl.DataFrame({"flag": [True, True, False, False, True]})
    y = np.array(["t", "t", "f", "f", "t"])
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    nd = m.tree_.nodes()
    assert nd["kind"][0] == MULTIWAY and nd["n_children"][0] == 2
    # categories [false, true]: child 0 holds false
    fc = int(nd["first_child"][0])
    assert m.classes_[int(nd["label"][fc])] == "f"
    assert m.classes_[int(nd["label"][fc + 1])] == "t"
    np.testing.assert_array_equal(m.predict(X), y)
    c = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    np.testing.assert_array_equal(c.predict(X), y)


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical])
def test_string_and_categorical_columns_sorted_lexicographically(dtype):
    # first appearance order c, a, b: categories must still be a, b, c
    X = pl.DataFrame({"s": pl.Series(["c", "a", "b", "c", "a", "b"]).cast(dtype)})
    y = np.array(["n", "y", "n", "n", "y", "n"])
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    lines = normalize_export(m.export_text(show_weights=False)).splitlines()
    assert lines == ["s = a: y", "s = b: n", "s = c: n"]
    # CART subset split: {a} against {b, c}
    c = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    nd = c.tree_.nodes()
    assert nd["kind"][0] == SUBSET
    text = normalize_export(c.export_text(show_weights=False)).splitlines()
    assert text in (
        ["s = a: y", "s not in {a}: n"],
        ["s in {b, c}: n", "s not in {b, c}: y"],
    )
    np.testing.assert_array_equal(c.predict(X), y)


def test_enum_column_multiway_and_ordinal():
    # An Enum is a closed set of categories, nominal unless ordinal_features names it: CART
    # splits it by subset, or by threshold on the Enum's order when it is ordinal.
    size = pl.Enum(["small", "medium", "large"])
    X = pl.DataFrame(
        {"size": pl.Series(["large", "small", "medium", "large", "small"], dtype=size)}
    )
    y = np.array(["big", "ok", "ok", "big", "ok"])
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    lines = normalize_export(m.export_text(show_weights=False)).splitlines()
    assert lines == ["size = small: ok", "size = medium: ok", "size = large: big"]
    nominal = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    assert nominal.tree_.nodes()["kind"][0] == SUBSET
    lines = normalize_export(nominal.export_text(show_weights=False)).splitlines()
    # the shorter side of the subset worded: `not in {large}` is `in {small, medium}`
    assert lines == ["size not in {large}: ok", "size = large: big"]
    c = DecisionTreeClassifier(algorithm="cart", ordinal_features=["size"]).fit(X, y)
    nd = c.tree_.nodes()
    assert nd["kind"][0] == ORDERED
    assert nd["threshold"][0] == 1.0  # code of "medium"
    text = normalize_export(c.export_text(show_weights=False)).splitlines()
    assert text == ["size <= medium: ok", "size >  medium: big"]
    np.testing.assert_array_equal(c.predict(X), y)


def test_mixed_dtypes_in_one_frame():
    X = pl.DataFrame(
        {
            "i": pl.Series([1, 2, 3, 4, 5, 6], dtype=pl.Int32),
            "u": pl.Series([6, 5, 4, 3, 2, 1], dtype=pl.UInt8),
            "f": pl.Series([0.1, None, 0.3, float("nan"), 0.5, 0.6]),
            "b": [True, False, None, True, False, True],
            "s": ["x", "y", None, "x", "z", "y"],
            "c": pl.Series(["p", "q", "p", None, "q", "p"]).cast(pl.Categorical),
            "e": pl.Series(["lo", "hi", "lo", "hi", None, "lo"], dtype=pl.Enum(["lo", "hi"])),
        }
    )
    y = np.array(["a", "b", "a", "b", "b", "a"])
    for algorithm in ("id3", "c4.5", "cart"):
        m = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
        assert m.n_features_in_ == 7
        assert list(m.feature_names_in_) == X.columns
        proba = m.predict_proba(X)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert set(m.predict(X)) <= {"a", "b"}


@pytest.mark.parametrize("fit_dtype", ["string", "enum"])
@pytest.mark.parametrize(
    "row",
    [
        {"texture": "clear", "root": "slightly_curly", "color": "UNSEEN"},
        {"texture": "UNSEEN", "root": "curly", "color": "dark"},
        {"texture": "clear", "root": "UNSEEN", "color": "green"},
    ],
)
@pytest.mark.parametrize("algorithm", ["id3", "cart"])
def test_unseen_category_routed_like_missing(fit_dtype, row, algorithm):
    # id3: multiway nodes; cart: subset nodes (String) or ordered nodes (Enum)
    X, y = load_xy("watermelon2")
    if fit_dtype == "string":
        X = X.with_columns(pl.all().cast(pl.String))
    m = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
    base = {"sound": "muffled", "umbilicus": "hollow", "surface": "hard"} | row
    unseen = pl.DataFrame(
        {k: [base[k]] for k in X.columns}, schema=dict.fromkeys(X.columns, pl.String)
    )
    missing = unseen.with_columns(
        [pl.lit(None, dtype=pl.String).alias(k) for k, v in base.items() if v == "UNSEEN"]
    )
    if fit_dtype == "enum":
        # the missing-value twin keeps the fit-time dtype
        missing = missing.cast(X.schema)
    p_unseen = m.predict_proba(unseen)
    p_missing = m.predict_proba(missing)
    np.testing.assert_allclose(p_unseen, p_missing, atol=1e-12)
    np.testing.assert_allclose(p_unseen.sum(axis=1), 1.0)
    assert m.predict(unseen)[0] == m.predict(missing)[0]


def test_missing_texture_mixes_the_root_children():
    # A row missing the root's attribute follows every child with the stored fractions.
    X, y = load_xy("watermelon2")
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    row = pl.DataFrame(
        {
            "color": ["dark"],
            "root": ["curly"],
            "sound": ["muffled"],
            "texture": [None],
            "umbilicus": ["hollow"],
            "surface": ["hard"],
        },
        schema=dict.fromkeys(X.columns, pl.String),
    ).cast(X.schema)
    # clear (9/17) -> root = curly: yes; slightly_blurry (5/17) -> surface = hard: no;
    # blurry (3/17): no.  P(yes) = 9/17.
    np.testing.assert_allclose(m.predict_proba(row)[0], [9 / 17, 8 / 17], atol=1e-12)
    assert m.predict(row)[0] == "yes"


def test_single_class_is_one_leaf():
    X = pl.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "b": ["x", "y", "x", "y", "z"]})
    y = np.array(["yes"] * 5)
    m = DecisionTreeClassifier().fit(X, y)
    assert m.n_nodes_ == 1 and m.n_leaves_ == 1 and m.depth_ == 0
    assert list(m.classes_) == ["yes"] and m.n_classes_ == 1
    assert list(m.predict(X)) == ["yes"] * 5
    np.testing.assert_allclose(m.predict_proba(X), np.ones((5, 1)))
    assert m.export_text().strip() == "yes (5)"
    assert m.export_text(show_weights=False).strip() == "yes"
    assert m.tree_.nodes()["kind"][0] == LEAF


# --- parameters --------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_get_params_defaults_and_round_trip(cls):
    m = cls()
    defaults = CLASSIFIER_PARAMS if cls is DecisionTreeClassifier else PARAMS
    assert m.get_params() == defaults
    custom = {"algorithm": "c4.5", "max_depth": 3, "min_samples_leaf": 2}
    if cls is DecisionTreeRegressor:
        custom["algorithm"] = "cart"
    m2 = cls(**custom)
    assert m2.get_params() == defaults | custom
    clone = cls(**m2.get_params())
    assert clone.get_params() == m2.get_params()
    assert m.set_params(**custom) is m
    assert m.get_params() == m2.get_params()
    assert m.max_depth == 3 and m.min_samples_leaf == 2
    with pytest.raises(ValueError, match="bogus"):
        m.set_params(bogus=1)


def test_params_stored_unchanged_after_fit():
    X, y = load_xy("watermelon2")
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    # the preset's criterion is resolved at fit, not written back: get_params keeps None,
    # while the attribute reads what the fit used (scikit-learn's exporters print it)
    assert m.categorical_split is None
    assert m.get_params()["criterion"] is None
    assert m.criterion == "entropy"
    m.set_params(algorithm="cart").fit(X, y)
    assert m.criterion == "gini" and m.get_params()["criterion"] is None
    assert DecisionTreeClassifier().criterion is None


def test_sklearn_clone():
    from sklearn.base import clone

    m = DecisionTreeClassifier(algorithm="id3", max_depth=2)
    c = clone(m)
    assert c is not m and c.get_params() == m.get_params()


@pytest.mark.parametrize(
    ("algorithm", "criterion", "kinds"),
    [
        ("id3", "entropy", {MULTIWAY}),
        ("c4.5", "gain_ratio", {MULTIWAY}),
        ("cart", "gini", {SUBSET}),
    ],
)
def test_algorithm_presets(algorithm, criterion, kinds):
    X, y = load_xy("watermelon2")
    X = X.with_columns(pl.all().cast(pl.String))
    m = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
    assert m.tree_.criterion == criterion
    nd = m.tree_.nodes()
    assert set(nd["kind"][nd["kind"] != LEAF].tolist()) == kinds
    if kinds == {SUBSET}:
        assert (nd["n_children"][nd["kind"] != LEAF] == 2).all()


def test_cart_on_enum_columns_splits_by_subset():
    # The bundled data sets hand nominal columns over as Enums: a closed set, not an order.
    X, y = load_xy("watermelon2")
    m = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    nd = m.tree_.nodes()
    assert set(nd["kind"][nd["kind"] != LEAF].tolist()) == {SUBSET}
    assert "<=" not in m.export_text()
    ordinal = DecisionTreeClassifier(algorithm="cart", ordinal_features=list(X.columns))
    nd = ordinal.fit(X, y).tree_.nodes()
    assert set(nd["kind"][nd["kind"] != LEAF].tolist()) == {ORDERED}


def test_regressor_preset_and_overrides():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    r = DecisionTreeRegressor().fit(X, np.array([1.0, 1.0, 5.0, 5.0]))
    assert r.tree_.criterion == "squared_error"
    assert r.tree_.n_classes.tolist() == [1]  # scikit-learn's array for a regressor
    assert r.tree_.core.n_classes == 0
    Xw, y = load_xy("watermelon2")
    Xw = Xw.with_columns(pl.all().cast(pl.String))
    g = DecisionTreeClassifier(algorithm="id3", criterion="gini").fit(Xw, y)
    assert g.tree_.criterion == "gini"
    assert set(g.tree_.nodes()["kind"][g.tree_.nodes()["kind"] != LEAF].tolist()) == {MULTIWAY}
    b = DecisionTreeClassifier(algorithm="id3", categorical_split="binary").fit(Xw, y)
    assert b.tree_.criterion == "entropy"
    assert set(b.tree_.nodes()["kind"][b.tree_.nodes()["kind"] != LEAF].tolist()) == {SUBSET}
    w = DecisionTreeClassifier(algorithm="cart", categorical_split="multiway").fit(Xw, y)
    assert w.tree_.criterion == "gini"
    assert set(w.tree_.nodes()["kind"][w.tree_.nodes()["kind"] != LEAF].tolist()) == {MULTIWAY}


def test_max_depth_and_min_samples():
    X, y = load_xy("watermelon3")
    for d in (1, 2):
        m = DecisionTreeClassifier(algorithm="cart", max_depth=d).fit(X, y)
        assert m.depth_ <= d
    m = DecisionTreeClassifier(algorithm="cart", min_samples_leaf=4).fit(X, y)
    nd = m.tree_.nodes()
    assert (nd["n_rows"][nd["kind"] == LEAF] >= 4).all()
    m = DecisionTreeClassifier(algorithm="cart", min_samples_split=10).fit(X, y)
    nd = m.tree_.nodes()
    assert (nd["n_rows"][nd["kind"] != LEAF] >= 10).all()


# --- score, apply, regression -----------------------------------------------------------


def test_score_and_apply():
    X, y = load_xy("watermelon3")
    m = DecisionTreeClassifier(algorithm="id3", max_depth=1).fit(X, y)
    pred = m.predict(X)
    truth = np.array(y.cast(pl.String).to_list())
    assert m.score(X, y) == pytest.approx(np.mean(pred == truth))
    w = np.arange(1, 18, dtype=float)
    assert m.score(X, y, sample_weight=w) == pytest.approx(np.average(pred == truth, weights=w))
    leaves = m.apply(X)
    assert leaves.dtype == np.int64
    nd = m.tree_.nodes()
    assert (nd["kind"][leaves] == LEAF).all()


def test_regressor_predictions_and_r2():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 3.0, -1.0) + 0.1 * X[:, 1]
    m = DecisionTreeRegressor(max_depth=1).fit(X, y)
    pred = m.predict(X)
    assert pred.dtype == np.float64
    left = X[:, 0] <= m.tree_.nodes()["threshold"][0]
    np.testing.assert_allclose(pred[left], y[left].mean())
    np.testing.assert_allclose(pred[~left], y[~left].mean())
    r2 = 1 - ((y - pred) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    assert m.score(X, y) == pytest.approx(r2)
    full = DecisionTreeRegressor().fit(X, y)
    np.testing.assert_allclose(full.predict(X), y)


# --- export_text and rules ----------------------------------------------------------------


def test_export_text_numeric_format_and_decimals():
    X, y = load_xy("watermelon3")
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    text = normalize_export(m.export_text(decimals=2, show_weights=False)).splitlines()
    assert "    density <= 0.38: no" in text
    assert "    density >  0.38: yes" in text


def test_export_text_numpy_feature_names():
    X, y = load_xy("watermelon3alpha")
    m = DecisionTreeClassifier(algorithm="id3", max_depth=1).fit(
        X.to_numpy(), y.cast(pl.String).to_numpy()
    )
    lines = normalize_export(m.export_text(show_weights=False)).splitlines()
    assert lines == ["x1 <= 0.1260: no", "x1 >  0.1260: yes"]


def test_export_text_regression_leaves():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    m = DecisionTreeRegressor().fit(X, np.array([1.0, 1.0, 5.0, 6.0]))
    lines = normalize_export(m.export_text(decimals=2)).splitlines()
    assert lines == [
        "x0 <= 1.50: 1.00 (2)",
        "x0 >  1.50",
        "    x0 <= 2.50: 5.00 (1)",
        "    x0 >  2.50: 6.00 (1)",
    ]


def test_export_text_fractional_weights():
    X, y = load_xy("watermelon2alpha")
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    nd = m.tree_.nodes()
    leaf_weights = nd["weight"][nd["kind"] == LEAF]
    # Without the `[? → ...]` notes on where missing values go, which end some leaf lines.
    text = m.export_text(show_missing=False)
    found = re.findall(r": \w+ \(([^)]*)\)$", text, flags=re.MULTILINE)
    assert len(found) == len(leaf_weights) == m.n_leaves_
    for s in found:
        # at most 3 decimals, no trailing zeros
        assert re.fullmatch(r"\d+(\.\d{0,2}[1-9])?", s), s
    got = sorted(float(s) for s in found)
    np.testing.assert_allclose(got, sorted(leaf_weights), atol=5e-4)
    assert any("." in s for s in found)


def test_rules():
    df = quercus.datasets.load("watermelon3")
    m = DecisionTreeClassifier(algorithm="id3").fit(df, target="ripe")
    rules = m.rules()
    assert len(rules) == m.n_leaves_ == 5
    lines = [" ".join(line.split()) for line in m.export_rules().strip().splitlines()]
    assert lines == [
        "IF texture = clear AND density <= 0.3815 THEN ripe = no [support 2, confidence 1.00]",
        "IF texture = clear AND density > 0.3815 THEN ripe = yes [support 7, confidence 1.00]",
        "IF texture = slightly_blurry AND surface = hard THEN ripe = no"
        " [support 4, confidence 1.00]",
        "IF texture = slightly_blurry AND surface = soft THEN ripe = yes"
        " [support 1, confidence 1.00]",
        "IF texture = blurry THEN ripe = no [support 3, confidence 1.00]",
        "ELSE ripe = no",
    ]
    assert "density <= 0.38 " in m.export_rules(decimals=2)


def test_rules_numpy_target_name():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    m = DecisionTreeClassifier().fit(X, np.array(["a", "a", "b", "b"]))
    lines = [" ".join(line.split()) for line in m.export_rules().strip().splitlines()]
    assert lines == [
        "IF x0 <= 1.5000 THEN y = a [support 2, confidence 1.00]",
        "IF x0 > 1.5000 THEN y = b [support 2, confidence 1.00]",
        "ELSE y = a",
    ]


def test_no_copy_is_not_observable():
    # fitting must not modify the caller's data
    X, y = load_xy("watermelon3")
    Xn = X.select("density", "sugar").to_numpy().copy()
    before = Xn.copy()
    w = np.ones(17)
    DecisionTreeClassifier().fit(Xn, y.cast(pl.String).to_numpy(), sample_weight=w)
    np.testing.assert_array_equal(Xn, before)
    np.testing.assert_array_equal(w, np.ones(17))


# --- missing values and temporal columns ------------------------------------------------------


def test_nan_and_null_are_both_missing():
    X, y = load_xy("watermelon3alpha")
    labels = np.array(y.cast(pl.String).to_list())
    dens = X["density"].to_numpy().copy()
    dens[[0, 5, 9]] = np.nan
    Xn = np.column_stack([dens, X["sugar"].to_numpy()])
    with_null = pl.DataFrame({"x0": pl.Series(dens).fill_nan(None), "x1": X["sugar"]}, strict=False)
    with_nan = pl.DataFrame({"x0": dens, "x1": X["sugar"].to_numpy()})
    assert with_null["x0"].null_count() == 3 and with_nan["x0"].is_nan().sum() == 3
    trees = [
        DecisionTreeClassifier(algorithm="id3").fit(Z, labels) for Z in (Xn, with_null, with_nan)
    ]
    texts = {t.export_text() for t in trees}
    assert len(texts) == 1
    for t in trees[1:]:
        np.testing.assert_allclose(t.predict_proba(Xn), trees[0].predict_proba(Xn))
    # the rows with a missing density are spread over the branches of a density test
    nd = trees[0].tree_.nodes()
    dens_nodes = np.flatnonzero((nd["kind"] == NUMERIC) & (nd["feature"] == 0))
    assert len(dens_nodes) > 0
    assert (nd["weight"] % 1 != 0).any()


def test_date_columns_split_on_their_physical_value():
    from datetime import date, timedelta

    days = [0, 3, 5, 9, 12, 20, 21, 30]
    d = pl.Series("d", [date(2020, 1, 1) + timedelta(days=k) for k in days])
    y = np.array(["a", "a", "a", "b", "b", "b", "a", "a"])
    m = DecisionTreeClassifier().fit(pl.DataFrame({"d": d}), y)
    phys = pl.DataFrame({"d": d.to_physical().cast(pl.Float64)})
    r = DecisionTreeClassifier().fit(phys, y)
    np.testing.assert_array_equal(m.tree_.nodes()["threshold"], r.tree_.nodes()["threshold"])
    np.testing.assert_array_equal(m.predict(pl.DataFrame({"d": d})), y)
    # the first threshold is a midpoint of two days since 1970-01-01
    epoch = (date(2020, 1, 1) - date(1970, 1, 1)).days
    mids = {epoch + (a + b) / 2 for a, b in itertools.pairwise(days)}
    assert m.tree_.nodes()["threshold"][0] in mids


def test_apply_reports_the_leaf_with_the_largest_share():
    X, y = load_xy("watermelon2")
    m = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    row = X[:1].with_columns(pl.lit(None, dtype=X.schema["texture"]).alias("texture"))
    # row 1 (root = curly): clear 9/17 -> leaf `root = curly`; slightly_blurry 5/17 and
    # blurry 3/17 are smaller shares
    assert m.apply(row)[0] == m.apply(X[:1])[0]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("value", [0.1, 1 / 3, 3.0, 7.7, -250.25])
def test_constant_regression_target_is_one_leaf(value, weighted):
    # A constant target is pure: the tree is one leaf predicting it (the regression
    # counterpart of the single-class case).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    w = rng.uniform(0.1, 2.0, size=20) if weighted else None
    m = DecisionTreeRegressor().fit(X, np.full(20, value), sample_weight=w)
    assert m.n_leaves_ == 1, m.export_text()
    np.testing.assert_allclose(m.predict(X), value, rtol=1e-12)


def test_export_text_prints_no_negative_zero():
    # The left leaf's mean is (-0.1 - 0.2 + 0.3) / 3 = 0 exactly; in floating point it comes
    # out as -1.9e-17 or +1.9e-17 depending on the summation order (row order), so "-0.0000"
    # makes export_text depend on the row order (found by test_properties).
    X = np.array([[0.0], [0.0], [0.0], [1.0]])
    m = DecisionTreeRegressor().fit(X, np.array([-0.1, -0.2, 0.3, 5.0]))
    lines = normalize_export(m.export_text()).splitlines()
    assert lines == ["x0 <= 0.5000: 0.0000 (3)", "x0 >  0.5000: 5.0000 (1)"]
    assert "-0.0000" not in m.export_rules()


@pytest.mark.parametrize("rows", [3, 40])  # the small-frame encoding and the column one
def test_all_null_column_of_null_dtype_predicts_as_missing(rows):
    """Polars gives a column of nulls only the Null dtype; at predict it is that column
    missing on every row, numeric or categorical (it raised "unsupported dtype Null")."""
    rng = np.random.default_rng(1)
    train = pl.DataFrame(
        {"size": rng.normal(size=40), "colour": ["red", "blue", "green", "red"] * 10}
    )
    y = (train["size"] > 0).to_numpy() ^ (train["colour"] == "red").to_numpy()
    m = DecisionTreeClassifier(algorithm="cart").fit(train, y)
    batch = train.head(rows)
    for name, dtype in [("size", pl.Float64), ("colour", pl.String)]:
        nulls = batch.with_columns(pl.lit(None).alias(name))
        typed = batch.with_columns(pl.lit(None, dtype=dtype).alias(name))
        assert nulls.schema[name] == pl.Null
        np.testing.assert_array_equal(m.predict_proba(nulls), m.predict_proba(typed))
        np.testing.assert_array_equal(m.apply(nulls), m.apply(typed))
        assert (m.decision_path(nulls) != m.decision_path(typed)).nnz == 0


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_all_null_column_at_fit_is_a_numeric_column_always_missing(splitter):
    """A column of nulls only (dtype Null; a pandas column of None becomes one) fits as a
    numeric feature missing on every row, as scikit-learn reads it: the tree is the one
    grown without it, and predict takes numbers or nulls there."""
    rng = np.random.default_rng(2)
    train = pl.DataFrame({"size": rng.normal(size=60), "blank": [None] * 60})
    assert train.schema["blank"] == pl.Null
    y = train["size"].to_numpy() > 0.3
    m = DecisionTreeClassifier(splitter=splitter).fit(train, y)
    alone = DecisionTreeClassifier(splitter=splitter).fit(train.select("size"), y)
    assert m.feature_importances_[1] == 0.0
    np.testing.assert_array_equal(m.apply(train), alone.apply(train.select("size")))
    numbers = train.with_columns(pl.Series("blank", rng.normal(size=60)))
    np.testing.assert_array_equal(m.predict(numbers), alone.predict(train.select("size")))
    pandas_fit = DecisionTreeClassifier(splitter=splitter).fit(to_pandas(train), y)
    np.testing.assert_array_equal(pandas_fit.apply(train), m.apply(train))


def test_more_classes_than_half_the_rows_warns_as_scikit_learn_does():
    """An identifier or a numeric column given as y (modeldata's Chicago dates: 5,698
    classes for 5,698 rows) grows about one leaf per row; scikit-learn warns of it over 20
    rows, and so does quercus, at the caller's line."""
    X = np.arange(40.0).reshape(-1, 1)
    with pytest.warns(UserWarning, match="40 classes for 40 rows") as caught:
        DecisionTreeClassifier().fit(X, np.arange(40).astype(str))
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DecisionTreeClassifier().fit(X, np.arange(40) % 20)  # half: no warning
        DecisionTreeClassifier().fit(X[:20], np.arange(20))  # 20 rows: no warning


def test_decimal_columns_are_read_as_their_nearest_floats():
    """A database's NUMERIC column reaches Polars as Decimal: the tree is the one grown on
    its float64 values, from a Polars frame, a small one, or pandas (object Decimals)."""
    import decimal

    values = [decimal.Decimal(f"{v:.2f}") for v in np.linspace(0, 10, 300)]
    frame = pl.DataFrame({"x": pl.Series(values, dtype=pl.Decimal(10, 2))})
    y = np.sin(np.linspace(0, 10, 300))
    model = quercus.DecisionTreeRegressor(max_depth=3).fit(frame, y)
    floats = frame.cast(pl.Float64)
    reference = quercus.DecisionTreeRegressor(max_depth=3).fit(floats, y)
    assert model.export_text() == reference.export_text()
    expected = reference.predict(floats)
    assert (model.predict(frame) == expected).all()
    assert (model.predict(frame[:3]) == expected[:3]).all()
    assert (model.predict(to_pandas(frame)) == expected).all()


def test_a_tree_fit_on_a_matrix_reads_a_frame_by_position_and_warns():
    """scikit-learn's behaviour: a frame of another tree's names, of the matrix's width, is
    read column by column in order (a frame too narrow still names what it lacks)."""
    rng = np.random.default_rng(0)
    frame = pl.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    y = (frame["a"] > 0.3).to_numpy()
    model = DecisionTreeClassifier(max_depth=2).fit(frame.to_numpy(), y)
    expected = model.predict(frame.to_numpy())
    for given in (frame, frame[:2], to_pandas(frame)):
        with pytest.warns(UserWarning, match="fitted without feature names") as caught:
            assert (model.predict(given) == expected[: len(given)]).all()
        assert caught[0].filename == __file__
    loaded = quercus.from_bytes(model.to_bytes())
    with pytest.warns(UserWarning, match="read by position"):
        assert (loaded.predict(frame) == expected).all()
    with pytest.raises(ValueError, match="lacks the column"):
        model.predict(frame.select("a"))
    named = DecisionTreeClassifier(max_depth=2).fit(frame, y)
    with pytest.raises(ValueError, match="lacks the column"):
        named.predict(frame.rename({"a": "c"}))


@pytest.mark.parametrize(
    "y",
    [
        np.array([1, 0, 1, 1, 0]),
        np.array([-100, 100, 5, -100], dtype=np.int8),
        np.array([2**64 - 10, 2**64 - 7, 2**64 - 10], dtype=np.uint64),
        np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max]),
        np.array([-3, 10**12, -3]),
        np.array([300, 7, 300, 65000], dtype=np.uint16),
    ],
    ids=["binary", "int8 wide", "uint64 top", "int64 extremes", "sparse range", "uint16"],
)
def test_integer_labels_are_the_sorted_distinct_values(y: np.ndarray) -> None:
    # Narrow integer ranges are counted, wide ones sorted: both as np.unique gives them.
    X = np.arange(len(y), dtype=float).reshape(-1, 1)
    model = DecisionTreeClassifier().fit(X, y)
    classes, codes = np.unique(y, return_inverse=True)
    assert model.classes_.dtype == y.dtype
    assert np.array_equal(model.classes_, classes)
    assert np.array_equal(model.predict(X), y)
    assert np.array_equal(np.argmax(model.predict_proba(X), axis=1), codes)


def test_dicts_of_columns_rows_and_records_read_as_their_frame():
    """A dict of columns fits as the Polars frame of it; at predict, a dict of one row's
    values and a list of records (keys in any order, a None as missing) are that frame's
    rows; ragged columns are refused with Polars's reason."""
    rng = np.random.default_rng(0)
    columns = {
        "width": rng.normal(size=60).round(2).tolist(),
        "colour": rng.choice(["green", "pale", "dark"], 60).tolist(),
    }
    y = [
        int(w > 0 or c == "dark") for w, c in zip(columns["width"], columns["colour"], strict=True)
    ]
    frame = pl.DataFrame(columns)
    ours = DecisionTreeClassifier(random_state=0).fit(columns, y)
    assert ours.to_bytes() == DecisionTreeClassifier(random_state=0).fit(frame, y).to_bytes()
    np.testing.assert_array_equal(ours.predict(columns), ours.predict(frame))
    records = [
        {"colour": "pale", "width": 0.3},
        {"width": -1.0, "colour": "dark"},
        {"width": None, "colour": "green"},
    ]
    expected = ours.predict(
        pl.DataFrame({"width": [0.3, -1.0, None], "colour": ["pale", "dark", "green"]})
    )
    np.testing.assert_array_equal(ours.predict(records), expected)
    np.testing.assert_array_equal(ours.predict(records[1]), expected[1:2])
    with pytest.raises(ValueError, match="height of column"):
        ours.predict({"width": [0.1, 0.2], "colour": ["pale"]})
