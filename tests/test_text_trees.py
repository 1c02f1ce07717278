"""The complete trees the source texts draw (shared data README), node by node.

Each tree is compared twice: its export_text(show_weights=False) against the README's
drawing, and its arena (tree_.nodes()) against counts recomputed from the data.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from helpers import (
    LEAF,
    MULTIWAY,
    NUMERIC,
    check_counts,
    clean_drawing,
    load_xy,
    node_masks,
    normalize_export,
    parse_export,
)

import quercus

FIG_4_3 = """
texture = clear
    root = curly: yes
    root = slightly_curly
        color = green: yes
        color = dark
            surface = hard: yes
            surface = soft: no
        color = light: yes            (empty branch: parent's majority)
    root = straight: no
texture = slightly_blurry
    surface = hard: no
    surface = soft: yes
texture = blurry: no
"""

FIG_4_7 = """
texture = clear
    density <= 0.3815: no
    density >  0.3815: yes
texture = slightly_blurry
    surface = hard: no
    surface = soft: yes
texture = blurry: no
"""

FIG_4_9 = """
sugar <= 0.1260: no
sugar >  0.1260
    density <= 0.3815: no
    density >  0.3815
        sugar <= 0.2045
            density <= 0.5600: yes
            density >  0.5600: no
        sugar >  0.2045: yes
"""

# Mitchell draws Wind = Strong before Wind = Weak; the children follow the category
# order of the data (playtennis.meta.json: Weak, Strong). MITCHELL is the README's drawing
# (compared without regard to sibling order), MITCHELL_ORDERED the exact export.
MITCHELL = """
Outlook = Sunny
    Humidity = High: No
    Humidity = Normal: Yes
Outlook = Overcast: Yes
Outlook = Rain
    Wind = Strong: No
    Wind = Weak: Yes
"""
MITCHELL_ORDERED = """
Outlook = Sunny
    Humidity = High: No
    Humidity = Normal: Yes
Outlook = Overcast: Yes
Outlook = Rain
    Wind = Weak: Yes
    Wind = Strong: No
"""

AIMA = """
Patrons = None: No
Patrons = Some: Yes
Patrons = Full
    Hungry = Yes
        Type = French: No             (empty branch: parent's 2:2 tie goes to its parent's majority)
        Type = Italian: No
        Type = Thai
            FriSat = Yes: Yes
            FriSat = No: No
        Type = Burger: Yes
    Hungry = No: No
"""

CASES = {
    "fig4.3-watermelon2": ("watermelon2", FIG_4_3, FIG_4_3),
    "fig4.7-watermelon3": ("watermelon3", FIG_4_7, FIG_4_7),
    "fig4.9-watermelon3alpha": ("watermelon3alpha", FIG_4_9, FIG_4_9),
    "mitchell-playtennis": ("playtennis", MITCHELL, MITCHELL_ORDERED),
    "aima-restaurant": ("restaurant", AIMA, AIMA),
}


def fit_id3(name: str):
    X, y = load_xy(name)
    return quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y), X, y


@pytest.mark.parametrize("case", list(CASES))
def test_tree_drawing(case):
    name, drawing, ordered = CASES[case]
    model, _, _ = fit_id3(name)
    text = model.export_text(show_weights=False)
    assert parse_export(text) == parse_export(clean_drawing(drawing))
    assert normalize_export(text) == clean_drawing(ordered)
    leaf_lines = [ln for ln in normalize_export(text).splitlines() if ": " in ln]
    assert model.n_leaves_ == len(leaf_lines)
    assert model.tree_.n_leaves == model.n_leaves_
    assert model.n_nodes_ == model.tree_.n_nodes == len(model.tree_.nodes()["kind"])
    depth = max((len(ln) - len(ln.lstrip())) // 4 + 1 for ln in leaf_lines)
    assert model.depth_ == depth


@pytest.mark.parametrize("case", list(CASES))
def test_tree_structure_counts(case):
    name = CASES[case][0]
    model, X, y = fit_id3(name)
    check_counts(model, X, y)
    nd = model.tree_.nodes()
    n = len(nd["kind"])
    assert nd["parent"][0] == -1 and nd["depth"][0] == 0
    assert nd["branch_fraction"][0] == 1.0
    for i in range(n):
        if nd["kind"][i] == LEAF:
            assert nd["first_child"][i] == -1 and nd["feature"][i] == -1
            assert nd["n_children"][i] == 0
            continue
        fc, nc = int(nd["first_child"][i]), int(nd["n_children"][i])
        for c in range(fc, fc + nc):
            assert nd["parent"][c] == i
            assert nd["depth"][c] == nd["depth"][i] + 1
        # children weights add up to the parent's; fractions are shares of the parent
        assert nd["weight"][fc : fc + nc].sum() == pytest.approx(nd["weight"][i], rel=1e-12)
        np.testing.assert_allclose(
            nd["branch_fraction"][fc : fc + nc], nd["weight"][fc : fc + nc] / nd["weight"][i]
        )
    # training rows land in the leaf that their path defines
    masks = node_masks(model, X)
    leaves = model.apply(X)
    for i in range(n):
        if nd["kind"][i] == LEAF:
            assert (leaves[masks[i]] == i).all(), i
    # every training row is classified correctly (the data are consistent)
    assert (model.predict(X) == np.array(y.cast(pl.String).to_list())).all()


def test_fig_4_3_leaf_weights_and_empty_branch():
    model, X, y = fit_id3("watermelon2")
    nd = model.tree_.nodes()
    masks = check_counts(model, X, y)
    # The empty branch texture = clear / root = slightly_curly / color = light:
    # its parent holds rows 6 (yes), 8 (yes), 15 (no).
    empty = [i for i in range(len(masks)) if masks[i].sum() == 0]
    assert len(empty) == 1
    e = empty[0]
    assert nd["weight"][e] == 0.0 and nd["kind"][e] == LEAF
    parent = int(nd["parent"][e])
    np.testing.assert_allclose(nd["value"][parent], [2.0, 1.0])
    v = np.asarray(nd["value"][e], dtype=float)
    np.testing.assert_allclose(v / v.sum(), [2 / 3, 1 / 3])
    assert model.classes_[int(nd["label"][e])] == "yes"
    row = pl.DataFrame(
        {
            "color": ["light"],
            "root": ["slightly_curly"],
            "sound": ["muffled"],
            "texture": ["clear"],
            "umbilicus": ["hollow"],
            "surface": ["hard"],
        }
    ).cast(X.schema)
    assert model.apply(row)[0] == e
    np.testing.assert_allclose(model.predict_proba(row)[0], [2 / 3, 1 / 3], atol=1e-12)
    assert model.predict(row)[0] == "yes"
    # leaf weights: clear/curly 5, clear/slightly_curly/green 1, dark/hard 1, dark/soft 1,
    # clear/straight 1, slightly_blurry/hard 4, slightly_blurry/soft 1, blurry 3
    leaf_weights = sorted(nd["weight"][nd["kind"] == LEAF].tolist())
    assert leaf_weights == [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, 4.0, 5.0]


def test_fig_4_9_thresholds_are_midpoints_of_the_node_rows():
    model, X, _ = fit_id3("watermelon3alpha")
    nd = model.tree_.nodes()
    masks = node_masks(model, X)
    names = list(model.feature_names_in_)
    for i in range(len(masks)):
        if nd["kind"][i] != NUMERIC:
            continue
        v = np.unique(X[names[int(nd["feature"][i])]].to_numpy()[masks[i]])
        mids = (v[:-1] + v[1:]) / 2
        assert np.isclose(mids, nd["threshold"][i], rtol=0, atol=1e-12).any(), i
    # sugar is reused down the path (numeric attributes can be tested again)
    features = [names[int(f)] for f in nd["feature"][nd["kind"] == NUMERIC]]
    assert features.count("sugar") == 2 and features.count("density") == 2


def test_aima_empty_branch_tie():
    model, X, y = fit_id3("restaurant")
    nd = model.tree_.nodes()
    masks = check_counts(model, X, y)
    assert list(model.classes_) == ["Yes", "No"]
    empty = [i for i in range(len(masks)) if masks[i].sum() == 0]
    assert len(empty) == 1
    e = empty[0]
    parent = int(nd["parent"][e])  # Hungry = Yes under Patrons = Full: 2 Yes, 2 No
    np.testing.assert_allclose(nd["value"][parent], [2.0, 2.0])
    # the 2:2 tie goes to its parent's majority (Patrons = Full: 2 Yes, 4 No)
    assert model.classes_[int(nd["label"][parent])] == "No"
    assert model.classes_[int(nd["label"][e])] == "No"
    assert nd["weight"][e] == 0.0
    row = X.filter(
        (pl.col("Patrons") == "Full") & (pl.col("Hungry") == "Yes") & (pl.col("Type") == "Thai")
    )[:1].with_columns(pl.lit("French").cast(X.schema["Type"]).alias("Type"))
    assert model.apply(row)[0] == e
    np.testing.assert_allclose(model.predict_proba(row)[0], [0.5, 0.5], atol=1e-12)
    assert model.predict(row)[0] == "No"


def test_fig_4_7_with_weights():
    X, y = load_xy("watermelon3")
    model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    # clear: density <= 0.3815 holds rows 10 and 15 (unripe), the 7 others are ripe;
    # slightly_blurry: hard 9, 13, 14, 17 (unripe), soft 7 (ripe); blurry: 11, 12, 16.
    expected = """
texture = clear
    density <= 0.3815: no (2)
    density >  0.3815: yes (7)
texture = slightly_blurry
    surface = hard: no (4)
    surface = soft: yes (1)
texture = blurry: no (3)
"""
    assert normalize_export(model.export_text()) == clean_drawing(expected)


def test_watermelon2alpha_id3_root_and_fractions():
    X, y = load_xy("watermelon2alpha")
    model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    nd = model.tree_.nodes()
    names = list(model.feature_names_in_)
    assert names[int(nd["feature"][0])] == "texture" and nd["kind"][0] == MULTIWAY
    fc = int(nd["first_child"][0])
    kids = [fc, fc + 1, fc + 2]
    assert nd["n_children"][0] == 3
    r = np.array([7, 5, 3]) / 15
    np.testing.assert_allclose(nd["branch_fraction"][kids], r, atol=1e-12)
    np.testing.assert_allclose(nd["weight"][kids], np.array([7, 5, 3]) + 2 * r, atol=1e-12)
    assert nd["weight"][0] == pytest.approx(17.0)
    # rows 8 (ripe) and 10 (unripe) reach every child with that child's share
    known = np.array([[6, 1], [1, 4], [0, 3]], dtype=float)
    np.testing.assert_allclose(nd["value"][kids], known + r[:, None], atol=1e-12)
    first_line = model.export_text(show_weights=False).splitlines()[0]
    assert first_line.startswith("texture = clear")
    # children weights add up everywhere, fractions included
    for i in range(len(nd["kind"])):
        if nd["kind"][i] != LEAF:
            a, b = int(nd["first_child"][i]), int(nd["first_child"][i] + nd["n_children"][i])
            assert nd["weight"][a:b].sum() == pytest.approx(nd["weight"][i], rel=1e-12)
    # a training row whose texture is missing: its class distribution mixes the subtrees
    proba = model.predict_proba(X[[7, 9]])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


# --- text 000 section 4.3 (Table 4.2): the unpruned and pre-pruned trees -------------

TRAIN = [r - 1 for r in (1, 2, 3, 6, 7, 10, 14, 15, 16, 17)]
VALID = [r - 1 for r in (4, 5, 8, 9, 11, 12, 13)]

FIG_4_4 = """
umbilicus = hollow
    color = green: yes
    color = dark: yes
    color = light: no
umbilicus = slightly_hollow
    root = curly: no
    root = slightly_curly
        color = green: yes
        color = dark
            texture = clear: no
            texture = slightly_blurry: yes
            texture = blurry: yes
        color = light: yes
    root = straight: yes
umbilicus = flat: no
"""

FIG_4_5 = """
umbilicus = hollow: yes
umbilicus = slightly_hollow: yes
umbilicus = flat: no
"""


def _table_4_2():
    X, y = load_xy("watermelon2")
    # `color` and `umbilicus` tie exactly at the root: umbilicus first reproduces the text
    cols = ["umbilicus", "color", "root", "sound", "texture", "surface"]
    X = X.select(cols)
    return X[TRAIN], y.gather(TRAIN), X[VALID], y.gather(VALID)


def test_fig_4_4_unpruned():
    Xt, yt, Xv, yv = _table_4_2()
    model = quercus.DecisionTreeClassifier(algorithm="id3").fit(Xt, yt)
    assert normalize_export(model.export_text(show_weights=False)) == clean_drawing(FIG_4_4)
    check_counts(model, Xt, yt)
    assert model.score(Xv, yv) == pytest.approx(3 / 7)


def test_fig_4_5_stump():
    Xt, yt, Xv, yv = _table_4_2()
    model = quercus.DecisionTreeClassifier(algorithm="id3", max_depth=1).fit(Xt, yt)
    assert normalize_export(model.export_text(show_weights=False)) == clean_drawing(FIG_4_5)
    assert model.score(Xv, yv) == pytest.approx(5 / 7)


def test_export_text_max_depth_cuts_levels_and_counts_what_is_hidden() -> None:
    """Fig 4.3's tree (ID3, watermelon 3.0) shown to one level: the two texture branches that
    split further end with the number of leaves below them."""
    df = quercus.datasets.load("watermelon3")
    model = quercus.DecisionTreeClassifier(algorithm="id3").fit(df, target="ripe")
    assert model.export_text(max_depth=1, show_weights=False).splitlines() == [
        "texture = clear: ... (2 leaves below, not shown)",
        "texture = slightly_blurry: ... (2 leaves below, not shown)",
        "texture = blurry: no",
    ]
    assert model.export_text(max_depth=2) == model.export_text()
    with pytest.raises(ValueError, match="max_depth"):
        model.export_text(max_depth=0)
