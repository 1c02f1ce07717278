"""LightGBM's regularisers of nominal subset splits: `max_cat_threshold`, `cat_smooth`,
`cat_l2`, `min_data_per_group` (the core's `CategoryLimits`). Off by default (CART's exact
subset search); each one shown changing a depth-1 tree on a small table built for it."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from quercus import DecisionTreeClassifier


def table(groups: dict[str, tuple[int, int]]) -> tuple[pl.DataFrame, np.ndarray]:
    """One nominal column: per category, (rows of class 0, rows of class 1)."""
    names = list(groups)
    values: list[str] = []
    y: list[int] = []
    for name, (zeros, ones) in groups.items():
        values += [name] * (zeros + ones)
        y += [0] * zeros + [1] * ones
    return pl.DataFrame({"c": pl.Series(values, dtype=pl.Enum(names))}), np.array(y)


def groups_of(model: DecisionTreeClassifier, names: list[str]) -> list[set[str]]:
    """The categories that reach each leaf of a depth-1 tree."""
    frame = pl.DataFrame({"c": pl.Series(names, dtype=pl.Enum(names))})
    leaves = model.apply(frame)
    found: dict[int, set[str]] = {}
    for name, leaf in zip(names, leaves, strict=True):
        found.setdefault(int(leaf), set()).add(name)
    return sorted(found.values(), key=min)


def stump(**limits: float | int | None) -> DecisionTreeClassifier:
    return DecisionTreeClassifier(max_depth=1, **limits)


# A pure rare category, one mostly positive and one mostly negative big one.
RARE = {"r": (0, 3), "a": (5, 45), "b": (45, 5)}


def test_smoothing_keeps_a_rare_category_off_the_searched_side():
    X, y = table(RARE)
    assert groups_of(stump().fit(X, y), list(RARE)) == [{"a", "r"}, {"b"}]
    # Fewer rows than cat_smooth: r stays with the other side, whatever its share.
    assert groups_of(stump(cat_smooth=10).fit(X, y), list(RARE)) == [{"a"}, {"b", "r"}]


def test_min_data_per_group_needs_that_many_rows_per_step():
    X, y = table(RARE)
    assert stump().fit(X, y).n_leaves_ == 2
    # r (3 rows) then a (50): no step gathers 60 rows while the other side keeps 60.
    assert stump(min_data_per_group=60).fit(X, y).n_leaves_ == 1
    assert stump(min_data_per_group=50).fit(X, y).n_leaves_ == 2


# Six categories whose class-1 shares rise in steps: the best prefix is the first half.
STEPS = {f"k{i}": (50 - 8 * i, 8 * i) for i in range(6)}


def test_max_cat_threshold_caps_the_searched_side():
    X, y = table(STEPS)
    names = list(STEPS)
    plain = groups_of(stump().fit(X, y), names)
    assert [len(g) for g in plain] == [3, 3]
    capped = groups_of(stump(max_cat_threshold=2).fit(X, y), names)
    assert sorted(len(g) for g in capped) == [2, 4]
    # Searched from both ends: the two categories may come from either end of the order.
    assert {"k0", "k1"} in capped or {"k4", "k5"} in capped


def test_cat_l2_pulls_small_groups_toward_the_node():
    # Unregularised, b (40 rows, mostly class 0) is cut off alone; with 5 rows of the node's
    # mix added to each side, the 40-row side's purity counts for less than the 46-row split
    # {p, a} against {m, b}, which then wins.
    groups = {"p": (0, 6), "a": (12, 28), "m": (20, 20), "b": (30, 10)}
    X, y = table(groups)
    names = list(groups)
    assert groups_of(stump().fit(X, y), names) == [{"a", "m", "p"}, {"b"}]
    assert groups_of(stump(cat_l2=5).fit(X, y), names) == [{"a", "p"}, {"b", "m"}]


def test_numeric_columns_ignore_them():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    plain = DecisionTreeClassifier(max_depth=4).fit(X, y)
    limited = DecisionTreeClassifier(
        max_depth=4, max_cat_threshold=2, cat_smooth=10, cat_l2=10, min_data_per_group=50
    ).fit(X, y)
    assert plain.export_text() == limited.export_text()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("max_cat_threshold", 0),
        ("max_cat_threshold", 2.5),
        ("cat_smooth", -1.0),
        ("cat_smooth", float("nan")),
        ("cat_l2", -0.5),
        ("cat_l2", float("inf")),
        ("min_data_per_group", 0),
    ],
)
def test_bad_values_name_the_parameter(name, value):
    X, y = table(RARE)
    with pytest.raises(ValueError, match=name):
        DecisionTreeClassifier(**{name: value}).fit(X, y)
