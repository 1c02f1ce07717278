"""The complete trees the source texts draw (shared data README), node by node.

Each tree is compared three ways: its export_text(show_weights=False) against the text's
drawing; its arena (tree_.nodes()) against counts recomputed from the data and against every
node of Algorithm 4.1 grown independently (tests/reference_id3.py: weights, class weights
with C4.5's fragments, labels, tests); and its predictions, for every combination of the
attributes' values (missing ones too, for watermelon 2.0α), against the drawing walked by
hand and the reference's C4.5 probabilities. Moving one leaf anywhere fails a test.
"""

from __future__ import annotations

import itertools
import re

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
from reference_id3 import Node, ReferenceID3
from text_drawings import (
    AIMA,
    FIG_4_3,
    FIG_4_4,
    FIG_4_5,
    FIG_4_6,
    FIG_4_7,
    FIG_4_8,
    FIG_4_9,
    MITCHELL,
    MITCHELL_ORDERED,
)

import quercus

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


# --- every node against Algorithm 4.1, every combination of values against the drawing ----

# export_text notes, on a node grown with C4.5's fractions, the shares a missing value is
# spread by ("[? → 7/15 · 5/15 · 3/15]"); the texts draw no such note.
_SHARES = re.compile(r"\s+\[\? → [^\]]*\]")


def drawing_of(model) -> str:
    """export_text(show_weights=False) without the missing-value shares."""
    return _SHARES.sub("", normalize_export(model.export_text(show_weights=False)))


def reference_tree(X: pl.DataFrame, y: pl.Series) -> tuple[ReferenceID3, Node]:
    values = {
        c: list(X.schema[c].categories) for c in X.columns if isinstance(X.schema[c], pl.Enum)
    }
    rows = [
        dict(zip(X.columns, r, strict=True)) | {"_y": t}
        for r, t in zip(X.iter_rows(), y, strict=True)
    ]
    ref = ReferenceID3(X.columns, values, list(y.dtype.categories), "_y")
    return ref, ref.fit(rows)


def assert_same_nodes(model, ref: ReferenceID3, root: Node) -> None:
    """quercus's arena and the reference tree agree node by node: kind, test, weight, class
    weights (an empty branch's as its parent's distribution), label."""
    nd = model.tree_.nodes()
    names = list(model.feature_names_in_)
    stack = [(0, root)]
    seen = 0
    while stack:
        i, node = stack.pop()
        seen += 1
        assert (nd["kind"][i] == LEAF) == (not node.children), i
        assert nd["weight"][i] == pytest.approx(node.weight, abs=1e-12), i
        value = np.asarray(nd["value"][i], dtype=float)
        want = np.asarray(node.value)
        if node.empty:
            np.testing.assert_allclose(value / value.sum(), want / want.sum(), atol=1e-12)
        else:
            np.testing.assert_allclose(value, want, atol=1e-12, err_msg=f"node {i}")
        assert model.classes_[int(nd["label"][i])] == ref.classes[node.label], i
        if not node.children:
            continue
        assert names[int(nd["feature"][i])] == node.attribute, i
        assert int(nd["n_children"][i]) == len(node.children), i
        if node.threshold is not None:
            assert nd["threshold"][i] == pytest.approx(node.threshold, abs=1e-12), i
        first = int(nd["first_child"][i])
        stack.extend((first + k, child) for k, child in enumerate(node.children))
    assert seen == model.n_nodes_


def walk_drawing(drawing: str, row: dict) -> str:
    """The label a complete row gets from a text's drawing, read line by line."""
    lines = clean_drawing(drawing).splitlines()
    depth, at = 0, 0
    while True:
        # The siblings at this depth, from `at` to the first line less indented.
        for k in range(at, len(lines)):
            line = lines[k]
            indent = (len(line) - len(line.lstrip())) // 4
            if indent < depth:
                raise AssertionError(f"no branch of the drawing takes {row}")
            if indent > depth:
                continue
            cond, _, label = line.strip().partition(": ")
            attribute, op, value = cond.split(maxsplit=2)
            x = row[attribute]
            if op == "=":
                taken = x == value
            else:
                taken = x <= float(value) if op == "<=" else x > float(value)
            if taken:
                if label:
                    return label
                depth, at = depth + 1, k + 1
                break


def grid(X: pl.DataFrame, root: Node, missing: bool) -> pl.DataFrame:
    """Every combination of the attributes' values: each category of a nominal attribute, a
    value on each side of every threshold the reference tests on a numeric one (or its
    smallest value), and a missing value too when `missing`."""
    thresholds: dict[str, set[float]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.threshold is not None:
            thresholds.setdefault(node.attribute, set()).add(node.threshold)
        stack.extend(node.children)
    options = []
    for c in X.columns:
        if isinstance(X.schema[c], pl.Enum):
            values: list = list(X.schema[c].categories)
        elif c in thresholds:
            values = sorted({t + d for t in thresholds[c] for d in (-1e-6, 1e-6)})
        else:
            values = [X[c].min()]
        options.append(values + [None] * missing)
    rows = list(itertools.product(*options))
    return pl.DataFrame(rows, schema=X.schema, orient="row")


TEXT_TREES = {
    "fig4.3-watermelon2": ("watermelon2", FIG_4_3),
    "fig4.7-watermelon3": ("watermelon3", FIG_4_7),
    "fig4.8-watermelon2alpha": ("watermelon2alpha", FIG_4_8),
    "fig4.9-watermelon3alpha": ("watermelon3alpha", FIG_4_9),
    "mitchell-playtennis": ("playtennis", MITCHELL),
    "aima-restaurant": ("restaurant", AIMA),
}


@pytest.mark.parametrize("case", list(TEXT_TREES))
def test_every_node_is_algorithm_4_1s(case):
    name, drawing = TEXT_TREES[case]
    model, X, y = fit_id3(name)
    ref, root = reference_tree(X, y)
    # The reference grows the text's tree: it checks the reference as much as quercus.
    assert parse_export(ref.drawing(root)) == parse_export(clean_drawing(drawing))
    assert parse_export(drawing_of(model)) == parse_export(clean_drawing(drawing))
    assert_same_nodes(model, ref, root)


@pytest.mark.parametrize("case", list(TEXT_TREES))
def test_every_combination_of_values_is_predicted_as_drawn(case):
    name, drawing = TEXT_TREES[case]
    model, X, y = fit_id3(name)
    ref, root = reference_tree(X, y)
    missing = X.null_count().sum_horizontal().item() > 0
    rows = grid(X, root, missing)
    labels = model.predict(rows)
    proba = model.predict_proba(rows)
    complete = 0
    for i, row in enumerate(rows.iter_rows(named=True)):
        np.testing.assert_allclose(proba[i], ref.proba(root, row), atol=1e-12, err_msg=str(row))
        if None not in row.values():
            complete += 1
            assert labels[i] == walk_drawing(drawing, row), row
    assert complete == np.prod([len(set(rows[c].drop_nulls())) for c in rows.columns])


def test_fig_4_8_spreads_rows_8_and_10_and_splits_nodes_lighter_than_two_rows():
    # §4.4.2: rows 8 and 10 (texture missing) go down every texture branch with weights 7/15,
    # 5/15, 3/15; under clear / slightly_curly the color = dark node holds row 15 and 7/15 of
    # row 8 (1.47 rows' weight) and still splits on surface, into children of 7/15 and 1.
    model, _, _ = fit_id3("watermelon2alpha")
    assert drawing_of(model) == clean_drawing(FIG_4_8)
    nd = model.tree_.nodes()
    names = list(model.feature_names_in_)
    surface = [
        i
        for i in range(model.n_nodes_)
        if nd["kind"][i] != LEAF and names[int(nd["feature"][i])] == "surface"
    ]
    assert len(surface) == 1
    (i,) = surface
    assert nd["weight"][i] == pytest.approx(1 + 7 / 15, abs=1e-12)
    first = int(nd["first_child"][i])
    np.testing.assert_allclose(nd["weight"][first : first + 2], [7 / 15, 1.0], atol=1e-12)
    # texture = blurry splits on color into children of 3/15 (row 10), 3/15 (row 8) and 3
    blurry = int(nd["first_child"][0]) + 2
    assert names[int(nd["feature"][blurry])] == "color"
    first = int(nd["first_child"][blurry])
    np.testing.assert_allclose(nd["weight"][first : first + 3], [0.2, 0.2, 3.0], atol=1e-12)


def test_the_training_rows_with_missing_values_of_watermelon_2_0_alpha():
    # Each of the 13 rows of Table 4.4 with a missing cell, as C4.5 predicts it over the
    # text's tree: row 8 (texture missing) reaches yes on all three branches, row 10 no.
    model, X, y = fit_id3("watermelon2alpha")
    ref, root = reference_tree(X, y)
    proba = model.predict_proba(X)
    for i, row in enumerate(X.iter_rows(named=True)):
        np.testing.assert_allclose(proba[i], ref.proba(root, row), atol=1e-12)
    np.testing.assert_allclose(proba[[7, 9]], [[1.0, 0.0], [0.0, 1.0]], atol=1e-12)
    # every training row is classified as labelled (the data are consistent)
    assert (model.predict(X) == np.array(y.cast(pl.String).to_list())).all()


def _table_4_2_models():
    Xt, yt, Xv, yv = _table_4_2()
    id3 = quercus.DecisionTreeClassifier(algorithm="id3")
    return {
        "fig4.4-unpruned": (id3.fit(Xt, yt), FIG_4_4),
        "fig4.5-prepruned": (
            quercus.DecisionTreeClassifier(algorithm="id3", prepruning="validation").fit(
                Xt, yt, validation=(Xv, yv)
            ),
            FIG_4_5,
        ),
        "fig4.6-postpruned": (
            quercus.DecisionTreeClassifier(
                algorithm="id3", pruning="reduced_error", prune_ties=False
            ).fit(Xt, yt, validation=(Xv, yv)),
            FIG_4_6,
        ),
    }


@pytest.mark.parametrize("case", ["fig4.4-unpruned", "fig4.5-prepruned", "fig4.6-postpruned"])
def test_section_4_3_trees_predict_every_combination_as_drawn(case):
    model, drawing = _table_4_2_models()[case]
    Xt, yt, _, _ = _table_4_2()
    assert drawing_of(model) == clean_drawing(drawing)
    _, root = reference_tree(Xt, yt)
    rows = grid(Xt, root, missing=False)
    assert rows.height == 3**5 * 2
    labels = model.predict(rows)
    for label, row in zip(labels, rows.iter_rows(named=True), strict=True):
        assert label == walk_drawing(drawing, row), row


def test_fig_4_4_every_node_is_algorithm_4_1s():
    Xt, yt, _, _ = _table_4_2()
    model = quercus.DecisionTreeClassifier(algorithm="id3").fit(Xt, yt)
    ref, root = reference_tree(Xt, yt)
    assert ref.drawing(root) == clean_drawing(FIG_4_4)
    assert_same_nodes(model, ref, root)
