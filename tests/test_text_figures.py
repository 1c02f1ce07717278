"""Every figure the source texts print (shared data README's table), through the public API.

Expected values are the printed figures (tolerance 0.002: the texts round intermediate
results) or are recomputed here from the data with plain arithmetic.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from helpers import (
    MULTIWAY,
    TEXT_TOL,
    best_threshold,
    entropy,
    gini,
    load_xy,
    midpoints,
    multiway_gain,
    scores_by_feature,
)

import quercus

WATERMELON_ATTRS = ["color", "root", "sound", "texture", "umbilicus", "surface"]
# Row numbers of the texts are 1-based; these are 0-based indices.
CLEAR_ROWS = [r - 1 for r in (1, 2, 3, 4, 5, 6, 8, 10, 15)]


def with_id(X: pl.DataFrame) -> pl.DataFrame:
    """Add text 000's `ID` attribute: one distinct string value per row."""
    return X.with_columns(pl.Series("ID", [f"id{i + 1}" for i in range(X.height)]))


def split_scores(X, y, criterion, **kw):
    return scores_by_feature(quercus.split_scores(X, y, criterion=criterion, **kw))


def close(got: float, expected: float, tol: float = TEXT_TOL) -> bool:
    return got is not None and not math.isnan(got) and abs(got - expected) <= tol


# --- watermelon 2.0 -------------------------------------------------------------------


def test_split_scores_table_columns():
    X, y = load_xy("watermelon2")
    table = quercus.split_scores(X, y, criterion="entropy")
    assert isinstance(table, pl.DataFrame)
    assert table.columns == ["feature", "score", "gain", "iv", "threshold", "rho", "reason"]
    assert table["feature"].to_list() == WATERMELON_ATTRS
    for c in ["score", "gain", "iv", "threshold", "rho"]:
        assert table[c].dtype == pl.Float64
    # every attribute separates the 17 melons: no reason to give
    assert table["reason"].dtype == pl.String and table["reason"].null_count() == table.height


def test_watermelon2_entropy_of_d():
    X, y = load_xy("watermelon2")
    # 8 ripe, 9 unripe: Ent(D) = -(8/17 log2 8/17 + 9/17 log2 9/17) = 0.9975 (printed 0.998)
    ent = -(8 / 17 * math.log2(8 / 17) + 9 / 17 * math.log2(9 / 17))
    assert abs(ent - 0.998) <= TEXT_TOL
    s = split_scores(with_id(X), y, "entropy")
    # A perfect ID column leaves pure children: Gain(D, ID) = Ent(D) = 0.998.
    assert close(s["ID"]["gain"], 0.998)
    assert s["ID"]["gain"] == pytest.approx(ent, abs=1e-9)
    assert s["ID"]["score"] == pytest.approx(ent, abs=1e-9)
    assert s["ID"]["rho"] == pytest.approx(1.0)


ROOT_GAINS_2 = {
    "color": 0.109,
    "root": 0.143,
    "sound": 0.141,
    "texture": 0.381,
    "umbilicus": 0.289,
    "surface": 0.006,
}


def test_watermelon2_root_gains_split_scores():
    X, y = load_xy("watermelon2")
    s = split_scores(X, y, "entropy")
    for a, printed in ROOT_GAINS_2.items():
        assert close(s[a]["gain"], printed), (a, s[a]["gain"], printed)
        # information gain: score is the gain itself (rho = 1 without missing values)
        assert s[a]["score"] == pytest.approx(s[a]["gain"], abs=1e-12), a
        assert s[a]["rho"] == pytest.approx(1.0), a
        assert math.isnan(s[a]["threshold"]), a  # no threshold for a multiway split
        # independent recomputation from the data
        g, _, _ = multiway_gain(X[a].cast(pl.String).to_list(), y.cast(pl.String).to_list())
        assert s[a]["gain"] == pytest.approx(g, abs=1e-9), a


def test_watermelon2_root_gains_node_scores():
    X, y = load_xy("watermelon2")
    m = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    s = scores_by_feature(m.node_scores(0))
    for a, printed in ROOT_GAINS_2.items():
        assert close(s[a]["gain"], printed), (a, s[a]["gain"], printed)


CLEAR_GAINS = {"color": 0.043, "root": 0.458, "sound": 0.331, "umbilicus": 0.458, "surface": 0.458}


def test_watermelon2_gains_at_texture_clear_node():
    X, y = load_xy("watermelon2")
    m = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    nd = m.tree_.nodes()
    assert list(m.feature_names_in_)[int(nd["feature"][0])] == "texture"
    assert nd["kind"][0] == MULTIWAY
    # child k holds code k: `clear` is texture's first category
    node = int(nd["first_child"][0])
    assert nd["parent"][node] == 0
    assert nd["weight"][node] == pytest.approx(9.0)
    s = scores_by_feature(m.node_scores(node))
    for a, printed in CLEAR_GAINS.items():
        assert close(s[a]["gain"], printed), (a, s[a]["gain"], printed)


def test_watermelon2_gains_on_texture_clear_rows():
    X, y = load_xy("watermelon2")
    Xc, yc = X[CLEAR_ROWS], y.gather(CLEAR_ROWS)
    assert Xc["texture"].cast(pl.String).unique().to_list() == ["clear"]
    s = split_scores(Xc, yc, "entropy")
    for a, printed in CLEAR_GAINS.items():
        assert close(s[a]["gain"], printed), (a, s[a]["gain"], printed)
    # texture is constant on these rows: it cannot separate them
    assert math.isnan(s["texture"]["gain"])


def test_watermelon2_split_information():
    X, y = load_xy("watermelon2")
    s = split_scores(with_id(X), y, "gain_ratio")
    # IV(surface) = -(12/17 log2 12/17 + 5/17 log2 5/17) = 0.874
    assert close(s["surface"]["iv"], 0.874)
    # IV(color) over 6 green, 6 dark, 5 light = 1.580
    assert close(s["color"]["iv"], 1.580)
    # IV(ID) = log2 17 = 4.088
    assert close(s["ID"]["iv"], 4.088)
    assert s["ID"]["iv"] == pytest.approx(math.log2(17), abs=1e-9)
    for a in [*WATERMELON_ATTRS, "ID"]:
        values = X[a].cast(pl.String).to_list() if a != "ID" else list(range(17))
        counts = np.unique(np.array(values, dtype=str), return_counts=True)[1]
        assert s[a]["iv"] == pytest.approx(entropy(counts), abs=1e-9), a
        # gain ratio = Gain / IV, with the same Gain as for information gain
        assert s[a]["score"] == pytest.approx(s[a]["gain"] / s[a]["iv"], rel=1e-9), a
    for a, printed in ROOT_GAINS_2.items():
        assert close(s[a]["gain"], printed), a


# --- watermelon 3.0: continuous attributes -------------------------------------------

T_DENSITY = [0.244, 0.294, 0.351, 0.381, 0.420, 0.459, 0.518, 0.574]
T_DENSITY += [0.600, 0.621, 0.636, 0.648, 0.661, 0.681, 0.708, 0.746]
T_SUGAR = [0.049, 0.074, 0.095, 0.101, 0.126, 0.155, 0.179, 0.204]
T_SUGAR += [0.213, 0.226, 0.250, 0.265, 0.292, 0.344, 0.373, 0.418]


@pytest.mark.parametrize(("feature", "printed"), [("density", T_DENSITY), ("sugar", T_SUGAR)])
def test_watermelon3_candidate_midpoints(feature, printed):
    X, _ = load_xy("watermelon3")
    mids = midpoints(X[feature].to_list())
    assert len(mids) == 16
    # the texts truncate to 3 decimals
    np.testing.assert_allclose(np.floor(mids * 1000 + 1e-9) / 1000, printed, atol=1e-9)
    # Through the library: on the rows holding two adjacent distinct values (labelled apart),
    # the only candidate is their midpoint, and split_scores reports it.
    v = np.unique(X[feature].to_numpy())
    for a, b, t in zip(v[:-1], v[1:], mids, strict=True):
        rows = X.filter(pl.col(feature).is_in([float(a), float(b)])).select(feature)
        labels = np.where(rows[feature].to_numpy() == a, "lo", "hi")
        s = split_scores(rows, labels, "entropy")
        assert s[feature]["threshold"] == pytest.approx(t, rel=1e-12, abs=1e-15), (a, b)


@pytest.mark.parametrize(
    ("feature", "t_printed", "gain_printed", "t_exact"),
    [("density", 0.381, 0.262, 0.3815), ("sugar", 0.126, 0.349, 0.1260)],
)
def test_watermelon3_best_numeric_split(feature, t_printed, gain_printed, t_exact):
    X, y = load_xy("watermelon3")
    s = split_scores(X, y, "entropy")[feature]
    assert close(s["gain"], gain_printed), s
    assert close(s["threshold"], t_printed), s
    assert s["threshold"] == pytest.approx(t_exact, abs=1e-9)
    # the threshold is one of the 16 candidate midpoints
    assert np.isclose(midpoints(X[feature].to_list()), s["threshold"], rtol=0, atol=1e-12).any()
    # independent recomputation over all midpoints
    t, dec, _ = best_threshold(X[feature].to_list(), y.cast(pl.String).to_list())
    assert s["threshold"] == pytest.approx(t, abs=1e-12)
    assert s["gain"] == pytest.approx(dec, abs=1e-9)
    # a stump on that feature alone splits at the same threshold
    stump = quercus.DecisionTreeClassifier(algorithm="id3", max_depth=1).fit(X.select(feature), y)
    assert stump.tree_.nodes()["threshold"][0] == pytest.approx(t_exact, abs=1e-9)


def test_watermelon3_root_node_scores():
    X, y = load_xy("watermelon3")
    m = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    s = scores_by_feature(m.node_scores(0))
    assert close(s["density"]["gain"], 0.262) and close(s["density"]["threshold"], 0.3815, 1e-9)
    assert close(s["sugar"]["gain"], 0.349) and close(s["sugar"]["threshold"], 0.1260, 1e-9)
    for a, printed in ROOT_GAINS_2.items():
        assert close(s[a]["gain"], printed), a


# --- watermelon 2.0 alpha: missing values --------------------------------------------

ROOT_GAINS_2ALPHA = {
    "color": 0.252,
    "root": 0.171,
    # The English edition of text 000 prints 0.252 for `sound` (a typo that repeats color's
    # value); the data, and the original edition, give 0.145.
    "sound": 0.145,
    "texture": 0.424,
    "umbilicus": 0.289,
    "surface": 0.006,
}


def test_watermelon2alpha_color_known_rows():
    X, y = load_xy("watermelon2alpha")
    s = split_scores(X, y, "entropy")["color"]
    # 14 of the 17 rows have `color`
    assert s["rho"] * 17 == pytest.approx(14.0, abs=1e-9)
    # Gain(D, color) = rho x Gain(D~, color) -> Gain(D~, color) = 0.306
    assert close(s["score"] / s["rho"], 0.306)
    assert close(s["gain"] / s["rho"], 0.306)


def test_watermelon2alpha_entropy_of_known_rows():
    X, y = load_xy("watermelon2alpha")
    known = X["color"].is_not_null().to_numpy()
    idx = np.flatnonzero(known).tolist()
    Xk, yk = with_id(X[idx]), y.gather(idx)
    # D~ (color known): 6 ripe, 8 unripe: Ent(D~) = 0.985
    counts = np.unique(yk.cast(pl.String).to_numpy(), return_counts=True)[1]
    assert sorted(counts.tolist()) == [6, 8]
    assert close(entropy(counts), 0.985)
    s = split_scores(Xk, yk, "entropy")
    assert close(s["ID"]["gain"], 0.985)


def test_watermelon2alpha_root_gains():
    X, y = load_xy("watermelon2alpha")
    s = split_scores(X, y, "entropy")
    for a, printed in ROOT_GAINS_2ALPHA.items():
        assert close(s[a]["gain"], printed), (a, s[a]["gain"], printed)
        assert close(s[a]["score"], printed), (a, s[a]["score"], printed)
        g, rho, _ = multiway_gain(X[a].cast(pl.String).to_list(), y.cast(pl.String).to_list())
        assert s[a]["gain"] == pytest.approx(g, abs=1e-9), a
        assert s[a]["rho"] == pytest.approx(rho, abs=1e-12), a
    # the misprint is not what the data give
    assert abs(s["sound"]["gain"] - 0.252) > 0.1


def test_watermelon2alpha_root_node_scores():
    X, y = load_xy("watermelon2alpha")
    m = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    s = scores_by_feature(m.node_scores(0))
    for a, printed in ROOT_GAINS_2ALPHA.items():
        assert close(s[a]["gain"], printed), (a, s[a]["gain"], printed)


def test_watermelon2alpha_fractional_weights():
    X, y = load_xy("watermelon2alpha")
    m = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    nd = m.tree_.nodes()
    assert list(m.feature_names_in_)[int(nd["feature"][0])] == "texture"
    fc = int(nd["first_child"][0])
    assert nd["n_children"][0] == 3
    kids = list(range(fc, fc + 3))
    # 15 rows know texture: clear 7, slightly_blurry 5, blurry 3; rows 8 and 10 (texture
    # missing) enter each child with weight 7/15, 5/15, 3/15.
    fractions = np.array([7, 5, 3]) / 15
    np.testing.assert_allclose(nd["branch_fraction"][kids], fractions, atol=1e-12)
    for got, printed in zip(nd["branch_fraction"][kids], [0.4667, 0.3333, 0.2000], strict=True):
        assert close(got, printed, 1e-4)
    np.testing.assert_allclose(nd["weight"][kids], [7, 5, 3] + 2 * fractions, atol=1e-12)
    # rows are counted by weight (as C4.5 counts cases): the known rows plus the fractions of
    # rows 8 and 10 that each child received
    np.testing.assert_allclose(nd["n_rows"][kids], [7, 5, 3] + 2 * fractions, atol=1e-12)
    # row 8 is ripe ("yes", class 0), row 10 unripe ("no", class 1):
    # clear: 6 yes + 1 no known; slightly_blurry: 1 yes + 4 no; blurry: 0 yes + 3 no
    known = np.array([[6, 1], [1, 4], [0, 3]], dtype=float)
    assert list(m.classes_) == ["yes", "no"]
    expected = known + fractions[:, None] * np.array([1.0, 1.0])
    np.testing.assert_allclose(nd["value"][kids], expected, atol=1e-12)


# --- PlayTennis and restaurant --------------------------------------------------------


def test_playtennis_gains():
    X, y = load_xy("playtennis")
    s = split_scores(X, y, "entropy")
    printed = {"Outlook": 0.246, "Humidity": 0.151, "Wind": 0.048, "Temperature": 0.029}
    for a, p in printed.items():
        assert close(s[a]["gain"], p), (a, s[a]["gain"], p)


def test_restaurant_gains():
    X, y = load_xy("restaurant")
    s = split_scores(X, y, "entropy")
    printed = {"Alternate": 0.0, "Bar": 0.0, "Patrons": 0.541, "Type": 0.0}
    for a, p in printed.items():
        assert close(s[a]["gain"], p), (a, s[a]["gain"], p)


def test_restaurant_five_way_tie_under_patrons_full():
    X, y = load_xy("restaurant")
    m = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    nd = m.tree_.nodes()
    names = list(m.feature_names_in_)
    assert names[int(nd["feature"][0])] == "Patrons"
    full = int(nd["first_child"][0]) + 2  # Patrons values: None, Some, Full
    s = scores_by_feature(m.node_scores(full))
    assert close(s["Hungry"]["gain"], 0.2516, 1e-4)
    rows = np.flatnonzero(X["Patrons"].cast(pl.String).to_numpy() == "Full").tolist()
    ys = y.gather(rows).cast(pl.String).to_list()
    gains = {}
    for a in names:
        if a == "Patrons":
            continue
        g, _, _ = multiway_gain(X[a].gather(rows).cast(pl.String).to_list(), ys)
        gains[a] = g
        if len(set(X[a].gather(rows).to_list())) > 1:
            assert s[a]["gain"] == pytest.approx(g, abs=1e-9), a
    best = max(gains.values())
    assert best == pytest.approx(0.2516, abs=1e-4)
    tied = [a for a, g in gains.items() if abs(g - best) <= 1e-9]
    assert len(tied) == 5 and "Hungry" in tied, tied
    # lowest column index wins the tie
    chosen = names[int(nd["feature"][full])]
    assert chosen == "Hungry" == min(tied, key=names.index)


# --- Gini index (text 000 eq. 4.5-4.6) and misclassification --------------------------


def test_watermelon2_gini_index_multiway():
    X, y = load_xy("watermelon2")
    s = split_scores(X, y, "gini", categorical_split="multiway")
    ys = y.cast(pl.String).to_list()
    # Gini(D) = 1 - (8/17)^2 - (9/17)^2 = 144/289
    gini_d = 144 / 289
    assert gini(np.array([8, 9])) == pytest.approx(gini_d)
    # Hand arithmetic for texture: clear 9 rows (7 yes, 2 no): 1 - (49 + 4)/81 = 28/81;
    # slightly_blurry 5 rows (1 yes, 4 no): 1 - (1 + 16)/25 = 8/25; blurry 3 rows, all no: 0.
    # Gini_index(D, texture) = 9/17 * 28/81 + 5/17 * 8/25 + 0 = 28/153 + 8/85 = 0.2771
    texture = 9 / 17 * 28 / 81 + 5 / 17 * 8 / 25
    assert s["texture"]["score"] == pytest.approx(texture, abs=1e-9)
    assert s["texture"]["gain"] == pytest.approx(gini_d - texture, abs=1e-9)
    # surface: hard 12 rows (6 yes, 6 no): 1/2; soft 5 rows (2 yes, 3 no): 1 - 13/25 = 12/25
    # Gini_index(D, surface) = 12/17 * 1/2 + 5/17 * 12/25 = 6/17 + 12/85 = 0.4941
    surface = 12 / 17 * 0.5 + 5 / 17 * 12 / 25
    assert s["surface"]["score"] == pytest.approx(surface, abs=1e-9)
    for a in WATERMELON_ATTRS:
        dec, _, child = multiway_gain(X[a].cast(pl.String).to_list(), ys, impurity=gini)
        assert s[a]["score"] == pytest.approx(child, abs=1e-9), a
        assert s[a]["gain"] == pytest.approx(dec, abs=1e-9), a
    # the attribute with the lowest Gini index is texture, the one the text would pick
    assert min(WATERMELON_ATTRS, key=lambda a: s[a]["score"]) == "texture"


def test_watermelon2alpha_gini_gain_with_missing_values():
    X, y = load_xy("watermelon2alpha")
    s = split_scores(X, y, "gini", categorical_split="multiway")
    ys = y.cast(pl.String).to_list()
    for a in WATERMELON_ATTRS:
        # gain = rho x (Gini(D~) - sum_v r~_v Gini(D~_v))
        dec, rho, _ = multiway_gain(X[a].cast(pl.String).to_list(), ys, impurity=gini)
        assert s[a]["gain"] == pytest.approx(dec, abs=1e-9), a
        assert s[a]["rho"] == pytest.approx(rho, abs=1e-12), a


def test_watermelon3_gini_numeric_thresholds():
    X, y = load_xy("watermelon3")
    s = split_scores(X, y, "gini")
    ys = y.cast(pl.String).to_list()
    for a in ["density", "sugar"]:
        t, dec, child = best_threshold(X[a].to_list(), ys, impurity=gini)
        assert s[a]["threshold"] == pytest.approx(t, abs=1e-12), a
        assert s[a]["score"] == pytest.approx(child, abs=1e-9), a
        assert s[a]["gain"] == pytest.approx(dec, abs=1e-9), a


def test_watermelon2_misclassification_multiway():
    X, y = load_xy("watermelon2")
    s = split_scores(X, y, "misclassification", categorical_split="multiway")
    ys = y.cast(pl.String).to_list()

    def error(w):
        w = np.asarray(w, dtype=float)
        return 0.0 if w.sum() == 0 else float(1.0 - w.max() / w.sum())

    # texture: clear 2/9 wrong, slightly_blurry 1/5, blurry 0 -> (2 + 1 + 0) / 17
    assert s["texture"]["score"] == pytest.approx(3 / 17, abs=1e-9)
    for a in WATERMELON_ATTRS:
        dec, _, child = multiway_gain(X[a].cast(pl.String).to_list(), ys, impurity=error)
        assert s[a]["score"] == pytest.approx(child, abs=1e-9), a
        assert s[a]["gain"] == pytest.approx(dec, abs=1e-9), a
