"""Pre-pruning, post-pruning and the C4.5 preset, through the public Python API.

Expected values come from the texts (text 000 §4.3: Figs 4.4-4.6), from hand computations
written out next to them (C4.5's pessimistic estimates with Weka's `addErrs` formula, G² with
SciPy, C4.5 release 8's gain correction with NumPy) or from scikit-learn (cost-complexity path
and trees; pre-pruning limits on data where scikit-learn's tree does not depend on its seed).
The Rust side of the same passes is tested in rust/core/tests/pruning.rs.
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from helpers import (
    LEAF,
    best_threshold,
    check_counts,
    clean_drawing,
    entropy,
    load_xy,
    multiway_gain,
    node_masks,
    normalize_export,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chi2, chi2_contingency, norm
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor
from test_vs_sklearn import assert_same_tree, assert_sklearn_has_no_tie, load
from text_drawings import FIG_4_5, FIG_4_6

from quercus import DecisionTreeClassifier, DecisionTreeRegressor

# --- text 000 §4.3: the Table 4.2 split of watermelon 2.0 -------------------------------

TRAIN = [r - 1 for r in (1, 2, 3, 6, 7, 10, 14, 15, 16, 17)]
VALID = [r - 1 for r in (4, 5, 8, 9, 11, 12, 13)]

TRACE_COLUMNS = [
    "node",
    "depth",
    "pruned",
    "error_as_subtree",
    "error_as_leaf",
    "accuracy_before",
    "accuracy_after",
]


def table_4_2():
    X, y = load_xy("watermelon2")
    # `color` and `umbilicus` tie exactly at the root; umbilicus first reproduces the text
    X = X.select(["umbilicus", "color", "root", "sound", "texture", "surface"])
    return X[TRAIN], y.gather(TRAIN), X[VALID], y.gather(VALID)


def text_nodes(model) -> dict[int, int]:
    """Text 000's node numbers ①②③⑤⑥ of Fig 4.4 -> our node ids, found by the feature each
    node tests (① umbilicus, ② color under ①, ③ root, ⑤ color under ③, ⑥ texture)."""
    nd = model.tree_.nodes()
    names = list(model.feature_names_in_)
    tests = {i: names[f] for i, f in enumerate(nd["feature"]) if nd["kind"][i] != LEAF}

    def only(pick) -> int:
        found = [i for i, feature in tests.items() if pick(i, feature)]
        assert len(found) == 1, found
        return found[0]

    one = only(lambda i, f: f == "umbilicus")
    three = only(lambda i, f: f == "root")
    nodes = {
        1: one,
        2: only(lambda i, f: f == "color" and nd["parent"][i] == one),
        3: three,
        5: only(lambda i, f: f == "color" and nd["parent"][i] == three),
        6: only(lambda i, f: f == "texture"),
    }
    assert nd["parent"][nodes[6]] == nodes[5] and nd["parent"][nodes[3]] == one
    return nodes


def drawing(model) -> str:
    return normalize_export(model.export_text(show_weights=False))


def test_fig_4_4_unpruned_validation_accuracy():
    Xt, yt, Xv, yv = table_4_2()
    model = DecisionTreeClassifier(algorithm="id3").fit(Xt, yt)
    # text 000 §4.3.2: "The validation accuracy of this decision tree is 42.9%"
    assert model.score(Xv, yv) == pytest.approx(3 / 7, abs=1e-12)
    assert model.pruning_trace_ is None
    depth = model.tree_.nodes()["depth"]
    nodes = text_nodes(model)
    assert [depth[nodes[k]] for k in (1, 2, 3, 5, 6)] == [0, 1, 1, 2, 3]


def test_fig_4_5_validation_prepruning_gives_the_stump():
    # Text 000 §4.3.1: the root as a leaf scores 42.9%, the umbilicus stump 71.4% (kept);
    # splitting ② by color drops it to 57.1% and splitting ③ by root leaves it at 71.4%:
    # neither is a strict improvement, so both stay leaves.
    Xt, yt, Xv, yv = table_4_2()
    model = DecisionTreeClassifier(algorithm="id3", prepruning="validation")
    assert model.fit(Xt, yt, validation=(Xv, yv)) is model
    assert drawing(model) == clean_drawing(FIG_4_5)
    assert model.score(Xv, yv) == pytest.approx(5 / 7, abs=1e-12)
    # the leaves' labels are the training majorities: ② rows {1, 2, 3, 14} (3 yes),
    # ③ rows {6, 7, 15, 17} (2:2, the root's class "yes"), ④ rows {10, 16} (no)
    check_counts(model, Xt, yt)
    assert (model.n_leaves_, model.depth_) == (3, 1)


def test_validation_prepruning_only_on_strict_improvement():
    # x = 0 -> a, a; x = 1 -> b, b, b. The root as a leaf says b (3:2); its split says a for
    # x = 0 and b for x = 1, and is made when nothing is held out.
    X = pl.DataFrame({"x": [0.0, 0.0, 1.0, 1.0, 1.0]})
    y = np.array(["a", "a", "b", "b", "b"])
    assert DecisionTreeClassifier().fit(X, y).n_leaves_ == 2

    def leaves(x_val, y_val):
        model = DecisionTreeClassifier(prepruning="validation")
        return model.fit(X, y, validation=(pl.DataFrame({"x": x_val}), y_val)).n_leaves_

    # validation (0, a), (1, b): the leaf errs once, the split never -> split
    assert leaves([0.0, 1.0], ["a", "b"]) == 2
    # validation (0, b), (1, a): the leaf errs once, the split twice -> not split
    assert leaves([0.0, 1.0], ["b", "a"]) == 1
    # validation (1, b): both right, equal error -> not split (only strict improvement)
    assert leaves([1.0], ["b"]) == 1
    # validation (0, b), (1, b): the leaf right twice, the split once -> not split
    assert leaves([0.0, 1.0], ["b", "b"]) == 1


def expected_fig_4_6_steps(nodes):
    # (text node, depth, pruned, validation errors as subtree / as a leaf, accuracy before,
    # accuracy with the node a leaf). Validation rows 4, 5, 8, 9, 11, 12, 13:
    # ⑥ (texture) gets 8 (clear -> no, wrong) and 9 (slightly blurry -> yes, wrong): 2 errors;
    #   as a leaf "yes" (training rows 7 yes, 15 no: the tie goes to ⑤'s "yes") only 9 errs:
    #   57.1% (text) -> pruned.
    # ⑤ (color) now errs on 9 only, and as a leaf "yes" too: 57.1% either way -> kept.
    # ② (color) errs on 5 (light -> no) and 13 (green -> yes); as a leaf "yes" (rows
    #   1, 2, 3, 14) only on 13: 71.4% -> pruned.
    # ③ (root) errs on 9; as a leaf "yes" also on 9 only: 71.4% either way -> kept.
    # ① errs on 13 and 9; as a leaf "yes" on 9, 11, 12, 13: 42.9% -> kept.
    return [
        (nodes[6], 3, True, 2.0, 1.0, 3 / 7, 4 / 7),
        (nodes[5], 2, False, 1.0, 1.0, 4 / 7, 4 / 7),
        (nodes[2], 1, True, 2.0, 1.0, 4 / 7, 5 / 7),
        (nodes[3], 1, False, 1.0, 1.0, 5 / 7, 5 / 7),
        (nodes[1], 0, False, 2.0, 4.0, 5 / 7, 3 / 7),
    ]


def assert_trace(trace: pl.DataFrame, expected) -> None:
    assert trace.columns == TRACE_COLUMNS
    assert trace.height == len(expected)
    for row, want in zip(trace.iter_rows(), expected, strict=True):
        assert row[:3] == want[:3], (row, want)
        np.testing.assert_allclose(row[3:], want[3:], rtol=0, atol=1e-12, err_msg=str(want))


def test_fig_4_6_reduced_error_without_ties():
    Xt, yt, Xv, yv = table_4_2()
    unpruned = DecisionTreeClassifier(algorithm="id3").fit(Xt, yt)
    expected = expected_fig_4_6_steps(text_nodes(unpruned))

    model = DecisionTreeClassifier(algorithm="id3", pruning="reduced_error", prune_ties=False)
    model.fit(Xt, yt, validation=(Xv, yv))
    assert_trace(model.pruning_trace_, expected)
    assert drawing(model) == clean_drawing(FIG_4_6)
    assert model.score(Xv, yv) == pytest.approx(5 / 7, abs=1e-12)
    # the collapsed ② keeps its training rows {1, 2, 3, 14}: 3 yes, 1 no
    assert "umbilicus = hollow: yes (4)" in model.export_text()
    check_counts(model, Xt, yt)

    pruned = unpruned.prune("reduced_error", X_val=Xv, y_val=yv, prune_ties=False)
    assert_trace(pruned.pruning_trace_, expected)
    assert drawing(pruned) == clean_drawing(FIG_4_6)


def test_reduced_error_prunes_ties_by_default():
    # Text 004 prunes when the validation error does not rise (Occam): ⑤ and ③ go too, which
    # leaves the stump of Fig 4.5 (text 000 notes the book prunes only on improvement).
    Xt, yt, Xv, yv = table_4_2()
    unpruned = DecisionTreeClassifier(algorithm="id3").fit(Xt, yt)
    nodes = text_nodes(unpruned)
    pruned = unpruned.prune("reduced_error", X_val=Xv, y_val=yv)
    trace = pruned.pruning_trace_
    assert trace["node"].to_list() == [nodes[k] for k in (6, 5, 2, 3, 1)]
    assert trace["pruned"].to_list() == [True, True, True, True, False]
    assert drawing(pruned) == clean_drawing(FIG_4_5)
    assert pruned.score(Xv, yv) == pytest.approx(5 / 7, abs=1e-12)
    default = DecisionTreeClassifier(algorithm="id3", pruning="reduced_error")
    assert drawing(default.fit(Xt, yt, validation=(Xv, yv))) == clean_drawing(FIG_4_5)


def fingerprint(model, X):
    nd = model.tree_.nodes()
    return (
        model.export_text(),
        model.predict_proba(X).tobytes(),
        {k: np.asarray(v).tobytes() for k, v in nd.items()},
        model.pruning_trace_ is None,
    )


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("reduced_error", {"prune_ties": False}),
        ("reduced_error", {}),
        ("pessimistic", {"confidence": 0.5}),
        ("cost_complexity", {"ccp_alpha": 0.2}),
    ],
)
def test_prune_returns_a_new_model_and_leaves_the_original_untouched(method, kwargs):
    Xt, yt, Xv, yv = table_4_2()
    model = DecisionTreeClassifier(algorithm="id3").fit(Xt, yt)
    before = fingerprint(model, Xv)
    params = model.get_params()
    if method == "reduced_error":
        kwargs = {**kwargs, "X_val": Xv, "y_val": yv}
    pruned = model.prune(method, **kwargs)
    assert pruned is not model and type(pruned) is DecisionTreeClassifier
    assert pruned.tree_ is not model.tree_
    assert fingerprint(model, Xv) == before
    assert model.get_params() == params
    assert pruned.n_leaves_ < model.n_leaves_
    # the pruned model predicts with the fitted classes and the original keeps working
    assert set(pruned.predict(Xv)) <= {"yes", "no"}
    assert model.score(Xv, yv) == pytest.approx(3 / 7, abs=1e-12)


# --- pre-pruning ---------------------------------------------------------------------------


def test_max_depth_cuts_fig_4_3():
    X, y = load_xy("watermelon2")
    # Fig 4.3's root texture: clear (rows 1-6, 8, 10, 15: 7 yes, 2 no), slightly blurry
    # (7, 9, 13, 14, 17: 1 yes), blurry (11, 12, 16: no)
    stump = DecisionTreeClassifier(algorithm="id3", max_depth=1).fit(X, y)
    assert drawing(stump) == clean_drawing(
        """
texture = clear: yes
texture = slightly_blurry: no
texture = blurry: no
"""
    )
    for depth in (1, 2, 3):
        model = DecisionTreeClassifier(algorithm="id3", max_depth=depth).fit(X, y)
        assert model.depth_ == depth
        check_counts(model, X, y)
    assert DecisionTreeClassifier(algorithm="id3", max_depth=4).fit(X, y).depth_ == 4


MAX_LEAVES = {
    # Best first, by weight x gain (Fig 4.3's figures): the root's texture split makes 3
    # leaves; then clear (9 x 0.458 = 4.12; root, umbilicus and surface tie, root comes first
    # and adds 2 leaves) before slightly blurry (5 x Ent(1:4) = 5 x 0.722 = 3.61, surface
    # adds 1); a node whose split would exceed the limit stays a leaf and the next one is
    # tried. Under clear -> slightly_curly (3 rows, 2:1), color's gain 0.252 ranks last.
    4: """
texture = clear: yes
texture = slightly_blurry
    surface = hard: no
    surface = soft: yes
texture = blurry: no
""",
    5: """
texture = clear
    root = curly: yes
    root = slightly_curly: yes
    root = straight: no
texture = slightly_blurry: no
texture = blurry: no
""",
    6: """
texture = clear
    root = curly: yes
    root = slightly_curly: yes
    root = straight: no
texture = slightly_blurry
    surface = hard: no
    surface = soft: yes
texture = blurry: no
""",
}


@pytest.mark.parametrize("max_leaves", sorted(MAX_LEAVES))
def test_max_leaf_nodes_grows_best_first_multiway(max_leaves):
    X, y = load_xy("watermelon2")
    model = DecisionTreeClassifier(algorithm="id3", max_leaf_nodes=max_leaves).fit(X, y)
    assert drawing(model) == clean_drawing(MAX_LEAVES[max_leaves])
    assert model.n_leaves_ == max_leaves


def cols15():
    X, y = load("breast_cancer")
    return np.ascontiguousarray(X[:, :15]), y


@pytest.mark.parametrize(
    "params",
    [
        {"max_leaf_nodes": 5},
        {"max_leaf_nodes": 10},
        {"min_samples_split": 60},
        {"min_weight_fraction_leaf": 0.15},
        {"max_depth": 4, "max_leaf_nodes": 6},
    ],
    ids=str,
)
def test_classifier_prepruning_matches_sklearn(params):
    X, y = cols15()
    assert_sklearn_has_no_tie(SkClassifier, X, y, **params)
    sk = SkClassifier(random_state=0, **params).fit(X, y)
    q = DecisionTreeClassifier(**params).fit(X, y)
    assert_same_tree(q, sk, regression=False)
    np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize(
    "params",
    [
        {"max_leaf_nodes": 8},
        {"min_samples_leaf": 10},
        {"min_weight_fraction_leaf": 0.05},
        {"min_weight_fraction_leaf": 0.1},
    ],
    ids=str,
)
def test_regressor_prepruning_matches_sklearn(params):
    X, y = load("diabetes")
    assert_sklearn_has_no_tie(SkRegressor, X, y, **params)
    sk = SkRegressor(random_state=0, **params).fit(X, y)
    q = DecisionTreeRegressor(**params).fit(X, y)
    assert_same_tree(q, sk, regression=True)
    np.testing.assert_allclose(q.predict(X), sk.predict(X), rtol=1e-9)


@pytest.mark.parametrize(
    "params",
    [{"min_samples_split": 6}, {"min_samples_leaf": 2}, {"min_weight_fraction_leaf": 0.15}],
    ids=str,
)
def test_row_limits_on_multiway_splits(params):
    # Every internal node holds at least min_samples_split rows; every non-empty child at
    # least min_samples_leaf rows and min_weight_fraction_leaf of the 17 (counted from the
    # data along each node's path, not read from the tree).
    X, y = load_xy("watermelon2")
    model = DecisionTreeClassifier(algorithm="id3", **params).fit(X, y)
    masks = check_counts(model, X, y)
    nd = model.tree_.nodes()
    counts = np.array([m.sum() for m in masks])
    internal = nd["kind"] != LEAF
    assert internal[0], "the root splits in every case"
    assert (counts[internal] >= params.get("min_samples_split", 2)).all()
    non_empty = (nd["parent"] >= 0) & (counts > 0)
    assert (counts[non_empty] >= params.get("min_samples_leaf", 1)).all()
    assert (counts[non_empty] >= params.get("min_weight_fraction_leaf", 0) * 17).all()
    # and the limit binds: the unconstrained tree (Fig 4.3) violates it
    full = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    assert model.n_leaves_ < full.n_leaves_


def test_min_gain_on_fig_4_3():
    # Root gains (text 000): texture 0.381 is the best. Under texture = clear the best gain
    # is 0.458 (root, umbilicus, surface); under slightly blurry surface separates 1:4,
    # gain Ent(1:4) = 0.722; under clear / slightly_curly (2:1) color gains 0.252.
    X, y = load_xy("watermelon2")
    assert DecisionTreeClassifier(algorithm="id3", min_gain=0.39).fit(X, y).n_leaves_ == 1
    model = DecisionTreeClassifier(algorithm="id3", min_gain=0.3).fit(X, y)
    assert drawing(model) == clean_drawing(MAX_LEAVES[6])
    # checked independently: every split's gain on its rows >= 0.3, every impure leaf's
    # best gain (features not used above it) < 0.3
    names = list(model.feature_names_in_)
    nd = model.tree_.nodes()
    yl = y.to_list()
    for i, mask in enumerate(node_masks(model, X)):
        rows = np.flatnonzero(mask)
        ys = [yl[r] for r in rows]
        used, p = set(), int(nd["parent"][i])
        while p >= 0:
            used.add(names[int(nd["feature"][p])])
            p = int(nd["parent"][p])

        def gain(name, rows=rows, ys=ys):
            return multiway_gain([X[name][int(r)] for r in rows], ys)[0]

        if nd["kind"][i] != LEAF:
            assert gain(names[int(nd["feature"][i])]) >= 0.3
        elif len(set(ys)) > 1:
            assert max(gain(n) for n in names if n not in used) < 0.3


def g_test(table: np.ndarray) -> tuple[float, float]:
    """(G², p) of the likelihood-ratio test of independence, by SciPy, over the non-empty
    rows and columns of a branch x class table."""
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    stat, p, _, _ = chi2_contingency(table, correction=False, lambda_="log-likelihood")
    return float(stat), float(p)


def test_g2_significance_stop_on_fig_4_3():
    X, y = load_xy("watermelon2")
    yl = np.array(y.to_list())

    def table(feature, rows):
        values = np.array(X[feature].to_list())[rows]
        cats = sorted(set(values))
        return np.array(
            [[np.sum((values == c) & (yl[rows] == k)) for k in ("yes", "no")] for c in cats]
        )

    everything = np.arange(17)
    clear = np.flatnonzero(np.array(X["texture"].to_list()) == "clear")
    blurry = np.flatnonzero(np.array(X["texture"].to_list()) == "slightly_blurry")
    sc = clear[np.array(X["root"].to_list())[clear] == "slightly_curly"]
    g_root, p_root = g_test(table("texture", everything))
    _, p_clear = g_test(table("root", clear))  # root wins the three-way tie under clear
    _, p_blurry = g_test(table("surface", blurry))
    _, p_sc = g_test(table("color", sc))
    # text 002 §3.5: G² = 2 ln 2 |S| InformationGain, df = (branches - 1)(classes - 1)
    assert g_root == pytest.approx(2 * np.log(2) * 17 * 0.3806, abs=2 * np.log(2) * 17 * 0.002)
    assert p_root == pytest.approx(chi2.sf(g_root, 2), rel=1e-12)
    # p-values: root 0.0113, clear 0.0575, slightly blurry 0.0253, slightly curly 0.306
    assert p_root < 0.02 < p_blurry < 0.05 < p_clear < 0.06 < p_sc

    def fit(max_p):
        return DecisionTreeClassifier(algorithm="id3", max_p_value=max_p).fit(X, y)

    assert fit(0.01).n_leaves_ == 1
    assert drawing(fit(0.02)) == clean_drawing(
        """
texture = clear: yes
texture = slightly_blurry: no
texture = blurry: no
"""
    )
    assert drawing(fit(0.05)) == clean_drawing(MAX_LEAVES[4])
    assert drawing(fit(0.06)) == clean_drawing(MAX_LEAVES[6])
    assert fit(1.0).n_leaves_ == DecisionTreeClassifier(algorithm="id3").fit(X, y).n_leaves_


# --- post-pruning: C4.5's pessimistic estimate ---------------------------------------------


def add_errs(n: float, e: float, cf: float) -> float:
    """Weka's `Stats.addErrs` (C4.5's upper confidence limit on the errors of a leaf)."""
    if e < 1:
        base = n * (1 - cf ** (1 / n))
        return base if e == 0 else base + e * (add_errs(n, 1, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = norm.ppf(1 - cf)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (
        1 + z * z / n
    )
    return r * n - e


def leaf_estimate(counts, cf: float) -> float:
    n, e = sum(counts), sum(counts) - max(counts)
    return e + add_errs(n, e, cf)


def confidence_case():
    # g0: 10 x C; g1: h0 holds 2 A, 1 B and h1 1 A, 5 B (nothing else separates them)
    rows = [("g0", "h0", "C")] * 10 + [("g1", "h0", "A")] * 2 + [("g1", "h0", "B")]
    rows += [("g1", "h1", "A")] + [("g1", "h1", "B")] * 5
    X = pl.DataFrame({"g": [r[0] for r in rows], "h": [r[1] for r in rows]})
    return X, np.array([r[2] for r in rows])


GROWN = """
g = g0: C
g = g1
    h = h0: A
    h = h1: B
"""
COLLAPSED = """
g = g0: C
g = g1: B
"""


@pytest.mark.parametrize("raising", [True, False])
def test_pessimistic_confidence(raising):
    X, y = confidence_case()
    grown = DecisionTreeClassifier(algorithm="c4.5", pruning="none").fit(X, y)
    assert drawing(grown) == clean_drawing(GROWN)
    decisions = {}
    for cf in (0.05, 0.1, 0.25, 0.4):
        # J48: a node becomes a leaf when its leaf estimate <= its subtree's + 0.1
        as_leaf = leaf_estimate([3, 6], cf)
        subtree = leaf_estimate([2, 1], cf) + leaf_estimate([1, 5], cf)
        decisions[cf] = as_leaf <= subtree + 0.1
        # the root (10 C, 3 A, 6 B) is kept either way
        root_leaf = leaf_estimate([10, 3, 6], cf)
        assert root_leaf > add_errs(10, 0, cf) + min(as_leaf, subtree) + 0.1
        model = DecisionTreeClassifier(
            algorithm="c4.5", confidence=cf, subtree_raising=raising
        ).fit(X, y)
        assert drawing(model) == clean_drawing(COLLAPSED if decisions[cf] else GROWN), cf
        pruned = grown.prune("pessimistic", confidence=cf, X=X if raising else None, y=y)
        assert drawing(pruned) == drawing(model)
    # g1 as a leaf (3 A, 6 B) against its leaves (2:1) + (1:5): 5.85 vs 6.02 at 0.05 and
    # 5.38 vs 5.46 at 0.1 (collapse), 4.51 vs 4.35 + 0.1 at C4.5's default 0.25 and 3.88 vs
    # 3.50 + 0.1 at 0.4 (kept): a lower confidence prunes more
    assert decisions == {0.05: True, 0.1: True, 0.25: False, 0.4: False}
    assert drawing(DecisionTreeClassifier(algorithm="c4.5").fit(X, y)) == clean_drawing(GROWN)


def xor_case():
    # g = a: 16 rows, y = h1 xor h2 (4 of each combination); g = b: two rows h1 = h2 = 0, y0
    rows = [("a", f"u{p}", f"v{q}", f"y{p ^ q}") for p in (0, 1) for q in (0, 1) for _ in range(4)]
    rows += [("b", "u0", "v0", "y0")] * 2
    X = pl.DataFrame({k: [r[i] for r in rows] for i, k in enumerate(("g", "h1", "h2"))})
    return X, np.array([r[3] for r in rows])


XOR_GROWN = """
g = a
    h1 = u0
        h2 = v0: y0 (4)
        h2 = v1: y1 (4)
    h1 = u1
        h2 = v0: y1 (4)
        h2 = v1: y0 (4)
g = b: y0 (2)
"""
XOR_RAISED = """
h1 = u0
    h2 = v0: y0 (6)
    h2 = v1: y1 (4)
h1 = u1
    h2 = v0: y1 (4)
    h2 = v1: y0 (4)
"""


def test_pessimistic_subtree_raising():
    cf = 0.25
    # Every leaf is pure; the h2 nodes (4:4) and h1 (8:8) cost more as leaves than as
    # subtrees, and so does the root (10:8) against its branches 4 addErrs(4, 0) +
    # addErrs(2, 0): without raising nothing goes.
    root_subtree = 4 * add_errs(4, 0, cf) + add_errs(2, 0, cf)
    assert leaf_estimate([4, 4], cf) > 2 * add_errs(2, 0, cf) + 0.1
    assert leaf_estimate([8, 8], cf) > 4 * add_errs(4, 0, cf) + 0.1
    assert leaf_estimate([10, 8], cf) > root_subtree + 0.1
    # With raising, the largest branch g = a takes all 18 rows: the two g = b rows join the
    # leaf h1 = u0, h2 = v0 (6 rows), which costs less than the root's subtree: raised.
    # The raised h1 = u0 (6:4) is kept: 4 + addErrs(10, 4) > addErrs(6, 0) + addErrs(4, 0).
    raised_cost = add_errs(6, 0, cf) + 3 * add_errs(4, 0, cf)
    assert raised_cost <= root_subtree + 0.1 < leaf_estimate([10, 8], cf)
    assert leaf_estimate([6, 4], cf) > add_errs(6, 0, cf) + add_errs(4, 0, cf) + 0.1

    X, y = xor_case()
    grown = DecisionTreeClassifier(algorithm="id3").fit(X, y)  # ID3 does not prune
    assert normalize_export(grown.export_text()) == clean_drawing(XOR_GROWN)
    assert normalize_export(grown.prune("pessimistic").export_text()) == clean_drawing(XOR_GROWN)
    raised = grown.prune("pessimistic", X=X, y=y)
    assert normalize_export(raised.export_text()) == clean_drawing(XOR_RAISED)
    np.testing.assert_array_equal(raised.predict(X), y)
    # the raised node's branch fractions are its new rows' shares: h1 = u0 10/18, u1 8/18
    nd = raised.tree_.nodes()
    np.testing.assert_allclose(nd["branch_fraction"][[1, 2]], [10 / 18, 8 / 18], rtol=1e-12)
    # C4.5's preset with the texts' conventions does the same (pessimistic, 0.25, subtree
    # raising): a zero gain still splits (text 004's XOR) and nothing collapses
    texts = {"conventions": "texts", "collapse": False}
    c45 = DecisionTreeClassifier(algorithm="c4.5", **texts).fit(X, y)
    assert normalize_export(c45.export_text()) == clean_drawing(XOR_RAISED)
    no_raise = DecisionTreeClassifier(algorithm="c4.5", subtree_raising=False, **texts).fit(X, y)
    assert normalize_export(no_raise.export_text()) == clean_drawing(XOR_GROWN)
    # J48 (the preset's conventions) needs a gain ratio above 1e-6: under g = a, h1 and h2
    # gain nothing, so g's branches are leaves (a: 8/8, b: 2/0) that misclassify as much as
    # the root alone, and collapse() makes one leaf. Weka 3.6's J48 -C 0.25 -M 2 prints
    # ": y0 (18.0/8.0)" on these 18 rows, pruned or not.
    j48 = DecisionTreeClassifier(algorithm="c4.5").fit(X, y)
    assert normalize_export(j48.export_text()) == "y0 (18)"
    assert DecisionTreeClassifier(algorithm="c4.5", pruning="none").fit(X, y).n_leaves_ == 1


# --- C4.5 release 8 / J48 preset -----------------------------------------------------------


def test_c45_preset_is_j48():
    model = DecisionTreeClassifier(algorithm="c4.5")
    assert model.get_params()["pruning"] is None  # preset: resolved at fit
    X, y = confidence_case()
    explicit = DecisionTreeClassifier(
        algorithm="id3",
        criterion="gain_ratio",
        pruning="pessimistic",
        confidence=0.25,
        subtree_raising=True,
        min_objects=2,
        numeric_gain_correction=True,
        conventions="j48",
        collapse=True,
    )
    Xx, yx = xor_case()
    for data in ((X, y), (Xx, yx)):
        assert model.fit(*data).export_text() == explicit.fit(*data).export_text()
    # ID3 neither prunes nor needs two branches of 2 rows
    id3 = DecisionTreeClassifier(algorithm="id3").fit(Xx, yx)
    assert normalize_export(id3.export_text()) == clean_drawing(XOR_GROWN)


def test_min_objects_needs_two_branches_with_enough_rows():
    # c: u -> 5 a; v and w -> b. With v, w holding 1 row each only one branch has 2 rows:
    # C4.5 (MINOBJS = 2) does not split; with v holding 2 rows two branches do.
    def fit(counts, **params):
        values = ["u"] * 5 + ["v"] * counts[0] + ["w"] * counts[1]
        y = ["a"] * 5 + ["b"] * sum(counts)
        X = pl.DataFrame({"c": values})
        return DecisionTreeClassifier(algorithm="c4.5", pruning="none", **params).fit(X, y)

    assert fit((1, 1)).n_leaves_ == 1
    assert fit((1, 1), min_objects=1).n_leaves_ == 3
    assert fit((2, 1)).n_leaves_ == 3
    assert fit((2, 1), min_objects=3).n_leaves_ == 1
    assert (
        DecisionTreeClassifier(algorithm="id3")
        .fit(pl.DataFrame({"c": ["u"] * 5 + ["v", "w"]}), ["a"] * 5 + ["b"] * 2)
        .n_leaves_
        == 3
    )

    # numeric: x = 1..8, one b at x = 8. The pure cut 7.5 leaves one row on a side, so
    # C4.5 takes the best cut with 2 rows a side: 6.5 (child entropy 2/8 x 1 = 0.25, against
    # 3/8 x Ent(1:2) = 0.344 at 5.5)
    x = pl.DataFrame({"x": np.arange(1.0, 9.0)})
    y = ["a"] * 7 + ["b"]

    # (The grown tree misclassifies the one b either way: collapse() would undo the split.)
    def threshold(**params):
        model = DecisionTreeClassifier(
            algorithm="c4.5",
            pruning="none",
            collapse=False,
            numeric_gain_correction=False,
            **params,
        ).fit(x, y)
        return model.tree_.nodes()["threshold"][0]

    # The texts' thresholds are midpoints; J48's (the preset's) the training value below.
    assert threshold(conventions="texts") == 6.5
    assert threshold(conventions="texts", min_objects=1) == 7.5
    assert threshold() == 6.0
    assert threshold(min_objects=1) == 7.0


def c45_numeric_gain(
    x: np.ndarray, y: list, n_node: int, min_objects: int = 2, j48: bool = False
) -> float:
    """Release 8's gain of a numeric feature: the best cut's entropy gain (among cuts that
    leave min_objects rows a side) less log2(cuts)/|D|; NaN when nothing (J48: nothing
    above 1e-6) is left. The texts' reading (Quinlan 1996) counts every cut between distinct
    values; J48's the cuts tried, those leaving MINSPLIT = clamp(0.1 |D| / 2 classes,
    min_objects, 25) rows a side."""
    mids = np.unique(x)
    mids = (mids[:-1] + mids[1:]) / 2
    least = min_objects
    if j48:
        least = min(max(0.1 * len(x) / 2, min_objects), 25)
    ok = [t for t in mids if min((x <= t).sum(), (x > t).sum()) >= least]
    if not ok:
        return np.nan
    parent = entropy(np.unique(y, return_counts=True)[1])
    best = max(
        parent
        - sum(
            side.sum() / len(x) * entropy(np.unique(np.array(y)[side], return_counts=True)[1])
            for side in (x <= t, x > t)
        )
        for t in ok
    )
    cuts = len(ok) if j48 else len(np.unique(x)) - 1
    gain = best - np.log2(cuts) / n_node
    return gain if gain > (1e-6 if j48 else 0) else np.nan


def test_j48_conventions_and_collapse_are_a_classifiers():
    # J48's purity test, MINSPLIT and class ties read class weights: a regressor refuses them
    # by name (its c4.5 preset takes the texts' conventions and no collapse).
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    y = X[:, 0]
    with pytest.raises(ValueError, match=r"conventions.*classifier"):
        DecisionTreeRegressor(conventions="j48").fit(X, y)
    with pytest.raises(ValueError, match=r"collapse.*classification trees only"):
        DecisionTreeRegressor(collapse=True).fit(X, y)
    assert DecisionTreeRegressor(algorithm="c4.5").fit(X, y).n_leaves_ > 1


def test_c45_numeric_gain_correction_at_the_root():
    X, y = load_xy("watermelon3")
    c45 = DecisionTreeClassifier(algorithm="c4.5", conventions="texts").fit(X, y)
    j48 = DecisionTreeClassifier(algorithm="c4.5").fit(X, y)
    plain = DecisionTreeClassifier(algorithm="c4.5", numeric_gain_correction=False).fit(X, y)
    scores = {r["feature"]: r for r in c45.node_scores(0).iter_rows(named=True)}
    j48_scores = {r["feature"]: r for r in j48.node_scores(0).iter_rows(named=True)}
    uncorrected = {r["feature"]: r for r in plain.node_scores(0).iter_rows(named=True)}
    for feature, (t_text, gain_text) in {
        "density": (0.381, 0.262),
        "sugar": (0.126, 0.349),
    }.items():
        values = X[feature].to_numpy()
        t, gain, _ = best_threshold(values, y.to_list())
        assert t == pytest.approx(t_text, abs=0.001) and gain == pytest.approx(gain_text, abs=0.002)
        # 17 distinct values, 16 cuts: log2(16)/17 = 4/17
        assert len(np.unique(values)) == 17
        correction = np.log2(16) / 17
        assert uncorrected[feature]["gain"] == pytest.approx(gain, rel=1e-12)
        assert scores[feature]["gain"] == pytest.approx(gain - correction, rel=1e-12)
        assert uncorrected[feature]["gain"] - scores[feature]["gain"] == pytest.approx(
            4 / 17, rel=1e-12
        )
        assert scores[feature]["score"] == pytest.approx(
            scores[feature]["gain"] / scores[feature]["iv"], rel=1e-12
        )
        # J48 counts the cuts it tried: MINSPLIT = 2 rows a side leaves 14 of the 16
        assert j48_scores[feature]["gain"] == pytest.approx(gain - np.log2(14) / 17, rel=1e-12)
    # categorical gains are not corrected (text 000: texture 0.381, ...)
    for feature in ("color", "root", "sound", "texture", "umbilicus", "surface"):
        assert scores[feature]["gain"] == uncorrected[feature]["gain"]
    assert scores["texture"]["gain"] == pytest.approx(0.381, abs=0.002)


def test_c45_numeric_gain_correction_at_every_node():
    # |D| and N are the node's own: check every searched node of the unpruned C4.5 tree on
    # watermelon3alpha (numeric only, no missing values) against NumPy.
    X, y = load_xy("watermelon3alpha")
    yl = y.to_list()
    for conventions in ("texts", "j48"):
        model = DecisionTreeClassifier(
            algorithm="c4.5", pruning="none", conventions=conventions
        ).fit(X, y)
        nd = model.tree_.nodes()
        checked = 0
        for i, mask in enumerate(node_masks(model, X)):
            ys = [yl[r] for r in np.flatnonzero(mask)]
            if nd["kind"][i] == LEAF and len(set(ys)) < 2:
                continue
            scores = {r["feature"]: r["gain"] for r in model.node_scores(i).iter_rows(named=True)}
            for feature in ("density", "sugar"):
                x = X[feature].to_numpy()[mask]
                want = c45_numeric_gain(x, ys, int(mask.sum()), j48=conventions == "j48")
                if np.isnan(want):
                    assert np.isnan(scores[feature]), (conventions, i, feature)
                else:
                    assert scores[feature] == pytest.approx(want, rel=1e-9, abs=1e-12), (
                        conventions,
                        i,
                        feature,
                    )
                checked += 1
        assert checked >= 4, conventions


# --- post-pruning: CART's cost complexity, scikit-learn's semantics ------------------------


def test_cost_complexity_path_matches_sklearn_classifier():
    # The fully grown tree has exact ties deep down between features that split the rows the
    # same way: the trees differ per seed, not their paths nor their partitions of X.
    X, y = cols15()
    paths = [SkClassifier(random_state=s).cost_complexity_pruning_path(X, y) for s in range(4)]
    for other in paths[1:]:
        np.testing.assert_array_equal(other.ccp_alphas, paths[0].ccp_alphas)
    sk_path = paths[0]
    path = DecisionTreeClassifier().cost_complexity_pruning_path(X, y)
    assert path.ccp_alphas.shape == sk_path.ccp_alphas.shape
    np.testing.assert_allclose(path.ccp_alphas, sk_path.ccp_alphas, rtol=0, atol=1e-12)
    np.testing.assert_allclose(path.impurities, sk_path.impurities, rtol=0, atol=1e-12)
    full = DecisionTreeClassifier().fit(X, y)
    for alpha in sk_path.ccp_alphas:
        sk = SkClassifier(random_state=0, ccp_alpha=alpha).fit(X, y)
        q = DecisionTreeClassifier(ccp_alpha=alpha).fit(X, y)
        assert (q.n_leaves_, q.depth_) == (sk.get_n_leaves(), sk.get_depth())
        np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-12)
        np.testing.assert_array_equal(q.predict(X), sk.predict(X))
        pruned = full.prune("cost_complexity", ccp_alpha=alpha)
        assert pruned.export_text() == q.export_text()
    assert full.n_leaves_ == SkClassifier(random_state=0).fit(X, y).get_n_leaves()


def test_cost_complexity_path_matches_sklearn_regressor():
    X, y = load("diabetes")
    params = {"min_samples_leaf": 5}  # the fully grown diabetes tree has exact ties
    assert_sklearn_has_no_tie(SkRegressor, X, y, **params)
    sk_path = SkRegressor(random_state=0, **params).cost_complexity_pruning_path(X, y)
    path = DecisionTreeRegressor(**params).cost_complexity_pruning_path(X, y)
    # impurities are variances (root: 5929): both libraries sum them in their own order, so
    # compare within 1e-12 of that scale
    scale = sk_path.impurities[-1]
    assert path.ccp_alphas.shape == sk_path.ccp_alphas.shape
    np.testing.assert_allclose(path.ccp_alphas, sk_path.ccp_alphas, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(path.impurities, sk_path.impurities, rtol=0, atol=1e-12 * scale)
    for alpha in sk_path.ccp_alphas:
        sk = SkRegressor(random_state=0, ccp_alpha=alpha, **params).fit(X, y)
        q = DecisionTreeRegressor(ccp_alpha=alpha, **params).fit(X, y)
        assert_same_tree(q, sk, regression=True)
        np.testing.assert_allclose(q.predict(X), sk.predict(X), rtol=1e-12)


def test_weighted_cost_complexity_path_matches_sklearn():
    # sample weights and class weights both enter R(t) = weight share x impurity
    X, y = cols15()
    w = np.random.default_rng(1).integers(1, 4, size=len(y)).astype(float)
    params = {"max_depth": 3, "class_weight": {0: 2.0}}
    trees = {
        tuple(SkClassifier(random_state=s, **params).fit(X, y, sample_weight=w).tree_.feature)
        for s in range(5)
    }
    assert len(trees) == 1
    sk_path = SkClassifier(random_state=0, **params).cost_complexity_pruning_path(
        X, y, sample_weight=w
    )
    path = DecisionTreeClassifier(**params).cost_complexity_pruning_path(X, y, sample_weight=w)
    assert len(sk_path.ccp_alphas) > 3
    np.testing.assert_allclose(path.ccp_alphas, sk_path.ccp_alphas, rtol=0, atol=1e-12)
    np.testing.assert_allclose(path.impurities, sk_path.impurities, rtol=0, atol=1e-12)
    for alpha in sk_path.ccp_alphas:
        sk = SkClassifier(random_state=0, ccp_alpha=alpha, **params).fit(X, y, sample_weight=w)
        q = DecisionTreeClassifier(ccp_alpha=alpha, **params).fit(X, y, sample_weight=w)
        assert_same_tree(q, sk, regression=False)
        np.testing.assert_allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-12)


def test_cost_complexity_pruning_path_ignores_the_estimators_own_pruning():
    # scikit-learn grows the path's tree unpruned whatever ccp_alpha says; so do we
    X, y = cols15()
    sk_path = SkClassifier(random_state=0).cost_complexity_pruning_path(X, y)
    for params in ({"ccp_alpha": 0.02}, {"pruning": "pessimistic"}):
        path = DecisionTreeClassifier(**params).cost_complexity_pruning_path(X, y)
        np.testing.assert_allclose(path.ccp_alphas, sk_path.ccp_alphas, rtol=0, atol=1e-12)
    # the last alpha leaves the root alone; larger alphas too
    last = sk_path.ccp_alphas[-1]
    assert DecisionTreeClassifier(ccp_alpha=last).fit(X, y).n_leaves_ == 1
    assert DecisionTreeClassifier(ccp_alpha=1.0).fit(X, y).n_leaves_ == 1


def as_float32(X):
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def test_grid_search_over_ccp_alpha_in_a_pipeline_matches_sklearn():
    # min_samples_leaf = 10 keeps every fold's diabetes tree free of exact ties, so both
    # libraries grow the same trees and must score the same
    X, y = load("diabetes")
    folds = KFold(n_splits=5, shuffle=True, random_state=0)
    for train, _ in folds.split(X):
        assert_sklearn_has_no_tie(SkRegressor, X[train], y[train], min_samples_leaf=10)
    grid = {"tree__ccp_alpha": [0.0, 5.0, 20.0, 60.0, 150.0, 400.0]}

    def search(tree):
        pipe = Pipeline([("cast", FunctionTransformer(as_float32)), ("tree", tree)])
        return GridSearchCV(pipe, grid, cv=folds).fit(X, y)

    ours = search(DecisionTreeRegressor(min_samples_leaf=10))
    theirs = search(SkRegressor(min_samples_leaf=10, random_state=0))
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], rtol=1e-9
    )
    assert ours.best_params_ == theirs.best_params_
    assert ours.best_params_["tree__ccp_alpha"] > 0
    best = ours.best_estimator_.named_steps["tree"]
    assert best.n_leaves_ == theirs.best_estimator_.named_steps["tree"].get_n_leaves()
    # the scores differ between alphas: the parameter reached every fit
    assert len(set(np.round(ours.cv_results_["mean_test_score"], 9))) > 3


def test_grid_search_over_pruning_methods():
    X, y = cols15()
    folds = KFold(n_splits=4, shuffle=True, random_state=1)
    grid = [
        {"pruning": ["none", "pessimistic"]},
        {"pruning": ["cost_complexity"], "ccp_alpha": [0.01]},
    ]
    search = GridSearchCV(DecisionTreeClassifier(), grid, cv=folds).fit(X, y)
    # each candidate's score, recomputed fold by fold by pruning one unpruned tree
    expected = {"none": [], "pessimistic": [], "cost_complexity": []}
    leaves = {k: [] for k in expected}
    for train, test in folds.split(X):
        grown = DecisionTreeClassifier().fit(X[train], y[train])
        models = {
            "none": grown,
            "pessimistic": grown.prune("pessimistic", X=X[train], y=y[train]),
            "cost_complexity": grown.prune("cost_complexity", ccp_alpha=0.01),
        }
        for k, m in models.items():
            expected[k].append(m.score(X[test], y[test]))
            leaves[k].append(m.n_leaves_)
    got = {
        p["pruning"]: s
        for p, s in zip(
            search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
        )
    }
    for k in expected:
        assert got[k] == pytest.approx(np.mean(expected[k]), abs=1e-12), k
    assert all(a < b for a, b in zip(leaves["pessimistic"], leaves["none"], strict=True))
    assert all(a < b for a, b in zip(leaves["cost_complexity"], leaves["none"], strict=True))
    best = max(got, key=got.get)
    assert search.best_params_["pruning"] == best


# --- bad input: a clear error, and the model as it was -----------------------------------


def _fitted():
    Xt, yt, Xv, yv = table_4_2()
    return DecisionTreeClassifier(algorithm="id3").fit(Xt, yt), Xt, yt, Xv, yv


UNSEEN = pl.Series(["yes", "no", "maybe", "no", "no", "no", "no"])

BAD = [
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune("reduced_error", X_val=Xv.drop("color"), y_val=yv),
        r"color",
        id="prune-validation-missing-column",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune(
            "reduced_error", X_val=Xv.rename({"color": "colour"}), y_val=yv
        ),
        r"color",
        id="prune-validation-renamed-column",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune("reduced_error", X_val=np.zeros((7, 3)), y_val=yv),
        r"\b3\b.*\b6\b",
        id="prune-validation-numpy-wrong-width",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.set_params(prepruning="validation").fit(
            Xt, yt, validation=(Xv.drop("texture"), yv)
        ),
        r"texture",
        id="fit-validation-missing-column",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune("reduced_error", X_val=Xv, y_val=UNSEEN),
        r"(?i)never seen.*maybe|maybe.*never seen",
        id="prune-validation-unseen-class",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.set_params(pruning="reduced_error").fit(
            Xt, yt, validation=(Xv, UNSEEN)
        ),
        r"(?i)never seen.*maybe|maybe.*never seen",
        id="fit-validation-unseen-class",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune("reduced_error", X_val=Xv[:0], y_val=yv[:0]),
        r"(?i)empty|0 rows|no rows",
        id="prune-validation-empty",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.set_params(prepruning="validation").fit(
            Xt, yt, validation=(Xv[:0], yv[:0])
        ),
        r"(?i)empty|0 rows|no rows",
        id="fit-validation-empty",
    ),
    *[
        pytest.param(
            lambda m, Xt, yt, Xv, yv, cf=cf: m.prune("pessimistic", confidence=cf),
            r"confidence",
            id=f"prune-confidence-{cf}",
        )
        for cf in (0, 0.5000001, 0.75, -0.25, float("nan"), "0.25")
    ],
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.set_params(algorithm="c4.5", confidence=1.0).fit(Xt, yt),
        r"confidence",
        id="fit-confidence-1",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune("cost_complexity", ccp_alpha=-0.01),
        r"ccp_alpha",
        id="prune-negative-alpha",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.set_params(ccp_alpha=-1e-9).fit(Xt, yt),
        r"ccp_alpha",
        id="fit-negative-alpha",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.set_params(prepruning="validation").fit(Xt, yt),
        r"validation",
        id="fit-validation-prepruning-without-data",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.set_params(pruning="reduced_error").fit(Xt, yt),
        r"validation",
        id="fit-reduced-error-without-data",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune("reduced_error"),
        r"X_val",
        id="prune-reduced-error-without-data",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune("reduced_error", X_val=Xv, y_val=yv[:3]),
        r"3 values",
        id="prune-validation-length-mismatch",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune("pessimistic", X=Xv, y=yv),
        r"(?i)rows the tree was grown on|training",
        id="prune-raising-with-other-rows",
    ),
    pytest.param(
        lambda m, Xt, yt, Xv, yv: m.prune("none"),
        r"method",
        id="prune-method-none",
    ),
]


@pytest.mark.parametrize(("call", "pattern"), BAD)
def test_bad_pruning_input(call, pattern):
    model, Xt, yt, Xv, yv = _fitted()
    before = (model.export_text(), model.predict_proba(Xv).tobytes(), model.n_nodes_)
    with pytest.raises(BaseException) as info:
        call(model, Xt, yt, Xv, yv)
    err = info.value
    assert type(err).__name__ != "PanicException", repr(err)
    assert isinstance(err, ValueError | TypeError), repr(err)
    assert re.search(pattern, str(err)), str(err)
    assert (model.export_text(), model.predict_proba(Xv).tobytes(), model.n_nodes_) == before


@pytest.mark.parametrize(
    ("params", "pattern"),
    [
        ({"pruning": "pessimistic"}, r"(?i)pessimistic.*classification"),
        ({"max_p_value": 0.05}, r"(?i)max_p_value"),
    ],
    ids=["pessimistic", "g2-stop"],
)
def test_regressor_rejects_classification_only_pruning_and_stays_fitted(params, pattern):
    X = np.arange(10.0)[:, None]
    y = np.arange(10.0) ** 2
    model = DecisionTreeRegressor().fit(X, y)
    before = (model.export_text(), model.predict(X).tobytes())
    with pytest.raises(ValueError, match=pattern) as info:
        model.set_params(**params).fit(X[:5], y[:5])
    assert type(info.value).__name__ != "PanicException"
    # the failed fit leaves the tree grown on all ten rows
    assert (model.export_text(), model.predict(X).tobytes()) == before


# --- properties: small random data sets with missing values ------------------------------

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def split_data(draw, regression: bool = False):
    n_train = draw(st.integers(min_value=3, max_value=14))
    n_valid = draw(st.integers(min_value=1, max_value=8))
    n = n_train + n_valid

    def column(values):
        return draw(st.lists(st.one_of(st.none(), values), min_size=n, max_size=n))

    X = pl.DataFrame(
        {
            "num": pl.Series(column(st.integers(0, 5).map(float)), dtype=pl.Float64),
            "cat": pl.Series(column(st.sampled_from(["a", "b", "c"])), dtype=pl.String),
            "flag": pl.Series(column(st.booleans()), dtype=pl.Boolean),
        }
    )
    if regression:
        y = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=float)
    else:
        train = draw(st.lists(st.sampled_from("pqr"), min_size=n_train, max_size=n_train))
        seen = sorted(set(train))
        valid = draw(st.lists(st.sampled_from(seen), min_size=n_valid, max_size=n_valid))
        y = np.array(train + valid)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def assert_probabilities(model, *frames):
    for X in frames:
        proba = model.predict_proba(X)
        assert np.isfinite(proba).all() and (proba >= -1e-12).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)


@SETTINGS
@given(
    data=split_data(),
    algorithm=st.sampled_from(["id3", "c4.5", "cart"]),
    ties=st.booleans(),
    confidence=st.sampled_from([0.01, 0.1, 0.25, 0.5]),
    alpha=st.sampled_from([0.0, 0.01, 0.05, 0.2]),
)
def test_pruning_never_adds_leaves(data, algorithm, ties, confidence, alpha):
    Xt, yt, Xv, yv = data
    grown = DecisionTreeClassifier(algorithm=algorithm, pruning="none").fit(Xt, yt)
    before = fingerprint(grown, Xv)
    pruned = {
        "reduced_error": grown.prune("reduced_error", X_val=Xv, y_val=yv, prune_ties=ties),
        "pessimistic": grown.prune("pessimistic", confidence=confidence),
        "raising": grown.prune("pessimistic", confidence=confidence, X=Xt, y=yt),
        "cost_complexity": grown.prune("cost_complexity", ccp_alpha=alpha),
        "prepruning": DecisionTreeClassifier(
            algorithm=algorithm, pruning="none", prepruning="validation"
        ).fit(Xt, yt, validation=(Xv, yv)),
    }
    assert fingerprint(grown, Xv) == before
    for name, model in pruned.items():
        assert model.n_leaves_ <= grown.n_leaves_, name
        assert model.depth_ <= grown.depth_, name
        assert_probabilities(model, Xt, Xv)
    # reduced-error pruning: a node goes only if the validation error does not rise (falls,
    # without ties), and each step starts from the accuracy the previous one left
    trace = pruned["reduced_error"].pruning_trace_
    accuracy = None
    for step in trace.iter_rows(named=True):
        if accuracy is not None:
            assert step["accuracy_before"] == pytest.approx(accuracy, abs=1e-9)
        leaf, subtree = step["error_as_leaf"], step["error_as_subtree"]
        assert step["pruned"] == (leaf <= subtree + 1e-9 if ties else leaf < subtree - 1e-9)
        accuracy = step["accuracy_after"] if step["pruned"] else step["accuracy_before"]


@SETTINGS
@given(data=split_data(regression=True), ties=st.booleans(), alpha=st.sampled_from([0.0, 0.1, 1.0]))
def test_regression_pruning_never_adds_leaves(data, ties, alpha):
    Xt, yt, Xv, yv = data
    grown = DecisionTreeRegressor(pruning="none").fit(Xt, yt)
    pruned = [
        grown.prune("reduced_error", X_val=Xv, y_val=yv, prune_ties=ties),
        grown.prune("cost_complexity", ccp_alpha=alpha),
        DecisionTreeRegressor(prepruning="validation").fit(Xt, yt, validation=(Xv, yv)),
    ]
    for model in pruned:
        assert model.n_leaves_ <= grown.n_leaves_
        assert np.isfinite(model.predict(Xv)).all()
