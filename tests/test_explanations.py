"""Explanations that stay readable on real data: long category sets abbreviated wherever a
person reads them (text, rules, pictures), pictures that fit the page, and machine-readable
exports (SQL, Polars, rules as data) that keep every category.

The high-cardinality data: 300 shops; a row is "yes" when its shop is one of the 100 whose
number is a multiple of 3, or when x > 0.7. The goldens in tests/golden/ were read line by
line against that rule: the root sends those 100 shops to one side with c047 and c233, whose
14 rows in this sample are mostly "yes" (10 of 14, above the other side's share); the next
split sets those two apart, and the other side splits on x at 0.70.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from quercus import DecisionTreeClassifier

GOLDEN = Path(__file__).parent / "golden"
SHOPS = [f"c{k:03d}" for k in range(300)]


def shops() -> tuple[pl.DataFrame, np.ndarray]:
    rng = np.random.default_rng(7)
    code = rng.integers(0, 300, 3000)
    x = rng.random(3000)
    y = np.where((code % 3 == 0) | (x > 0.7), "yes", "no")
    return pl.DataFrame({"shop": [SHOPS[c] for c in code], "x": x}), y


@pytest.fixture(scope="module")
def model() -> DecisionTreeClassifier:
    X, y = shops()
    return DecisionTreeClassifier(max_depth=3).fit(X, y)


def test_text_golden(model):
    assert model.export_text() + "\n" == (GOLDEN / "shops_text.txt").read_text()


def test_rules_golden(model):
    assert model.export_rules() + "\n" == (GOLDEN / "shops_rules.txt").read_text()


def test_the_shorter_side_is_worded_and_long_lists_are_counted(model):
    root = model.export_text().splitlines()[0]
    # 102 shops go left, 198 right: the left list is shorter, 10 of it shown.
    assert root.startswith("shop in {c000, c003, c006,") and root.endswith("… 92 more}")
    # Below it, 2 of the node's 102 shops go right: "not in" those 2 reads shorter.
    assert model.export_text().splitlines()[1].startswith("    shop not in {c047, c233}")
    everything = model.export_text(max_categories=None).splitlines()[0]
    assert everything.count(", ") == 101 and "more" not in everything
    assert model.export_text(max_categories=2).splitlines()[0] == (
        "shop in {c000, c003, … 100 more}"
    )


def test_machine_readable_exports_keep_every_category(model):
    X, _ = shops()
    first = model.rules().rules[0]
    (membership,) = [c for c in first.conditions if c.feature == "shop"]
    assert len(membership.categories) == 100
    sql = model.to_sql("t")
    assert all(f"'{shop}'" in sql for shop in SHOPS[::3])
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (shop TEXT, x REAL)")
    db.executemany("INSERT INTO t VALUES (?, ?)", X.rows())
    predicted = model.predict(X)
    assert [row[0] for row in db.execute(sql)] == predicted.tolist()
    assert X.select(model.to_polars_expr()).to_series().to_list() == predicted.tolist()
    assert model.rules().predict(X).tolist() == predicted.tolist()


def test_pictures_abbreviate_and_keep_the_whole_list(model):
    import xml.etree.ElementTree as ET

    svg = model.to_svg()
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{ns}text"))
    assert "… 99 more} [1]" in texts  # 3 shown in a picture, and its note number
    titles = ["".join(t.itertext()) for t in root.iter(f"{ns}title")]
    assert any(t.startswith("shop in {c000,") and t.count(", ") == 101 for t in titles)
    assert "[1] shop in {c000, c003," in texts and "c297}" in texts  # the note, in full
    dot = model.to_dot()
    assert "… 99 more}" in dot and 'tooltip="shop in {c000, c003,' in dot
