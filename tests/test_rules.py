"""Rule sets: rules read from trees, rule post-pruning, and the text / Polars / SQL renderings.

The renderings are checked by running them (SQLite from the standard library, Polars eager and
lazy) against `RuleSet.predict`, and the pruning against an independent re-implementation of
Mitchell's greedy procedure written with Polars filters.
"""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest
from helpers import LEAF, NUMERIC, breast_cancer, load_xy, watermelon3, watermelon3_strings

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor, RuleSet
from quercus.inputs.schema import Feature, Schema
from quercus.rules import Interval, Membership, Rule

# --- running the renderings -------------------------------------------------------------------


def _sqlite(frame: pl.DataFrame) -> sqlite3.Connection:
    """`frame` as table "data" (categories as strings, NaN as NULL, as SQL stores them)."""
    connection = sqlite3.connect(":memory:")
    quoted = ['"' + name.replace('"', '""') + '"' for name in frame.columns]
    connection.execute(f'CREATE TABLE "data" ({", ".join(quoted)})')
    strings = frame.with_columns((cs.enum() | cs.categorical()).cast(pl.String))
    rows = (
        tuple(None if isinstance(v, float) and math.isnan(v) else v for v in row)
        for row in strings.iter_rows()
    )
    marks = ", ".join("?" * frame.width)
    connection.executemany(f'INSERT INTO "data" VALUES ({marks})', rows)
    return connection


def sql_predictions(rules: RuleSet, frame: pl.DataFrame) -> list:
    connection = _sqlite(frame)
    ordered = [
        r[0] for r in connection.execute(f'SELECT {rules.to_sql()} FROM "data" ORDER BY rowid')
    ]
    whole = connection.execute(rules.to_sql(table="data"))
    assert [d[0] for d in whole.description] == [rules.target]
    assert [r[0] for r in whole] == ordered
    return ordered


def check_renderings(rules: RuleSet, X: pl.DataFrame) -> np.ndarray:
    """SQL, eager and lazy Polars all predict as `rules.predict`; returns that prediction."""
    expected = rules.predict(X).tolist()
    eager = X.select(rules.to_polars())
    assert eager.columns == [rules.target]
    assert eager.to_series().to_list() == expected
    lazy = X.lazy().with_columns(rules.to_polars()).select(rules.target).collect()
    assert lazy.to_series().to_list() == expected
    assert sql_predictions(rules, X) == expected
    return np.array(expected)


def with_gaps(X: pl.DataFrame) -> pl.DataFrame:
    """X plus rows with missing values (null, NaN) and an unseen category in each column."""
    rows = []
    for name, dtype in X.schema.items():
        null = X[:1].with_columns(pl.lit(None, dtype=dtype).alias(name))
        rows.append(null)
        if dtype.is_float():
            rows.append(X[1:2].with_columns(pl.lit(float("nan")).alias(name)))
        elif dtype == pl.String:
            rows.append(X[2:3].with_columns(pl.lit("UNSEEN").alias(name)))
    return pl.concat([X, *rows])


TREES = {
    "watermelon3-id3": (watermelon3, {"algorithm": "id3"}),
    "watermelon3-cart": (watermelon3, {"algorithm": "cart"}),
    "watermelon3-cart-strings": (watermelon3_strings, {"algorithm": "cart"}),
    "breast-cancer-cart": (breast_cancer, {"algorithm": "cart", "max_depth": 4}),
}


@pytest.mark.parametrize("name", list(TREES))
def test_rules_predict_as_the_tree_and_every_rendering_agrees(name):
    load, params = TREES[name]
    X, y = load()
    model = DecisionTreeClassifier(**params).fit(X, y)
    rules = model.rules()
    assert len(rules) == model.n_leaves_
    np.testing.assert_array_equal(rules.predict(X), model.predict(X))
    np.testing.assert_array_equal(check_renderings(rules, X), model.predict(X))
    # missing and unseen values match no condition: the three still agree with each other
    gappy = with_gaps(X)
    check_renderings(rules, gappy)
    # and after pruning (overlapping rules, gaps, order) as well
    half = np.arange(X.height) % 2 == 1
    pruned = rules.prune(X.filter(half), y.filter(half))
    check_renderings(pruned, gappy)


def test_breast_cancer_rules_are_one_per_leaf_with_leaf_figures():
    X, y = breast_cancer()
    model = DecisionTreeClassifier(algorithm="cart", max_depth=4).fit(X, y)
    nodes = model.tree_.nodes()
    rules = model.rules()
    leaves = np.flatnonzero(nodes["kind"] == LEAF)
    assert sorted(rule.leaf for rule in rules) == leaves.tolist()
    applied = model.apply(X)
    for rule in rules:
        assert rule.support == nodes["weight"][rule.leaf] == (applied == rule.leaf).sum()
        counts = nodes["value"][rule.leaf]
        assert rule.confidence == pytest.approx(counts.max() / counts.sum())
        assert rule.prediction == model.classes_[nodes["label"][rule.leaf]]
        # every condition is an interval on a distinct feature
        assert all(isinstance(c, Interval) for c in rule.conditions)
        assert len({c.feature for c in rule.conditions}) == len(rule.conditions)
    assert "mean concave points" in rules.to_sql()  # a name with spaces, quoted


# --- structure and text -------------------------------------------------------------------------


def test_watermelon3_id3_rules_as_data_and_text():
    df = quercus.datasets.load("watermelon3")
    model = DecisionTreeClassifier(algorithm="id3").fit(df, target="ripe")
    rules = model.rules()
    assert isinstance(rules, RuleSet) and rules.target == "ripe"
    first = rules[0]
    assert first.conditions == (
        Membership("texture", ("clear",)),
        Interval("density", upper=first.conditions[1].upper),
    )
    assert first.conditions[1].upper == pytest.approx(0.3815)
    assert (first.prediction, first.support, first.confidence) == ("no", 2.0, 1.0)
    assert first.accuracy is None
    assert rules.default == "no"  # 9 of the 17 melons are unripe
    sure = "confidence 1.00]"
    assert str(rules).splitlines() == [
        f"IF texture = clear AND density <= 0.3815 THEN ripe = no  [support 2, {sure}",
        f"IF texture = clear AND density > 0.3815 THEN ripe = yes  [support 7, {sure}",
        f"IF texture = slightly_blurry AND surface = hard THEN ripe = no  [support 4, {sure}",
        f"IF texture = slightly_blurry AND surface = soft THEN ripe = yes  [support 1, {sure}",
        f"IF texture = blurry THEN ripe = no  [support 3, {sure}",
        "ELSE ripe = no",
    ]
    # 0.3815 to 3 decimals: the float just above 0.3815 rounds up, as export_text rounds it
    assert rules.to_text(decimals=3).splitlines()[1] == (
        f"IF texture = clear AND density > 0.382 THEN ripe = yes  [support 7, {sure}"
    )
    assert model.export_rules(decimals=2) == rules.to_text(decimals=2)


def test_numeric_tests_on_one_path_merge_into_one_interval():
    X, y = load_xy("watermelon3alpha")
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    rules = model.rules()
    merged = [r for r in rules if r.prediction == "yes" and len(r.conditions) == 2]
    sugar = [c for r in merged for c in r.conditions if c.feature == "sugar"]
    assert any(c.lower == pytest.approx(0.126) and c.upper == pytest.approx(0.2045) for c in sugar)
    lines = rules.to_text().splitlines()
    assert (
        "IF 0.1260 < sugar <= 0.2045 AND 0.3815 < density <= 0.5600 THEN ripe = yes"
        "  [support 1, confidence 1.00]"
    ) in lines
    # one condition per feature, in the order the path first tests them
    for rule in rules:
        assert len({c.feature for c in rule.conditions}) == len(rule.conditions)
    assert [c.feature for c in rules[2].conditions] == ["sugar", "density"]
    np.testing.assert_array_equal(rules.predict(X), model.predict(X))


def test_categorical_forms_subset_ordered_and_multiway():
    size = pl.Enum(["small", "medium", "large"])
    X = pl.DataFrame(
        {
            "size": pl.Series(["large", "small", "medium", "large", "small", "medium"], dtype=size),
            "s": ["c", "a", "b", "c", "a", "b"],
        }
    )
    y = np.array(["big", "ok", "ok", "big", "ok", "ok"])
    ordered = DecisionTreeClassifier(algorithm="cart").fit(X.select("size"), y).rules()
    # CART's default (scikit-learn's learned rule) sends missing values to the heavier side
    assert [r.conditions for r in ordered] == [
        (Membership("size", ("small", "medium"), missing=True),),
        (Membership("size", ("large",)),),
    ]
    # worded by the shorter side (of the categories known at fit); SQL lists what passes;
    # where missing values go is said only when asked, as none was met in training
    assert ordered.to_text().splitlines()[0].startswith("IF size not in {large} THEN")
    shown = ordered.to_text(show_missing=True).splitlines()[0]
    assert shown.startswith("IF size not in {large} (or missing) THEN")
    assert "\"size\" IN ('small', 'medium')" in ordered.to_sql()
    assert "\"size\" = 'large'" in ordered.to_sql()
    subset = DecisionTreeClassifier(algorithm="cart").fit(X.select("s"), y).rules()
    # the `not in {c}` side is written as the categories it lets through
    assert sorted(r.conditions[0].categories for r in subset) == [("a", "b"), ("c",)]
    assert "\"s\" IN ('a', 'b')" in subset.to_sql()
    multiway = DecisionTreeClassifier(algorithm="id3").fit(X.select("s"), y).rules()
    assert [r.conditions for r in multiway] == [(Membership("s", (c,)),) for c in ("a", "b", "c")]
    for rules, columns in ((ordered, ["size"]), (subset, ["s"]), (multiway, ["s"])):
        check_renderings(rules, with_gaps(X.select(columns)))


def test_boolean_and_date_features_in_polars():
    from datetime import date, timedelta

    X = pl.DataFrame(
        {
            "flag": [True, False, True, False, None, True],
            "day": [date(2020, 1, 1) + timedelta(days=k) for k in (0, 3, 5, 9, 12, 20)],
        }
    )
    y = np.array(["a", "b", "a", "b", "b", "a"])
    for columns in (["flag"], ["day"]):
        model = DecisionTreeClassifier(algorithm="cart").fit(X.select(columns), y)
        rules = model.rules()
        frame = X.select(columns)
        assert (
            frame.select(rules.to_polars()).to_series().to_list() == rules.predict(frame).tolist()
        )
        complete = frame.drop_nulls()
        np.testing.assert_array_equal(rules.predict(complete), model.predict(complete))


def test_sql_and_polars_quote_names_and_values():
    # the category decides but for `plain`, which the number splits
    X = pl.DataFrame(
        {
            'it\'s "odd"': ["o'neil"] * 2 + ['say "hi"'] * 2 + ["plain"] * 4,
            "x; DROP TABLE data": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5],
        }
    )
    y = np.array(["it's", "it's", 'q"', 'q"', "z", "z", "it's", "it's"])
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    rules = model.rules()
    sql = rules.to_sql(table='my "table"')
    for quoted in ('"it\'s ""odd"""', "'o''neil'", "'say \"hi\"'", '"x; DROP TABLE data" <= 6.0'):
        assert quoted in sql
    assert "THEN 'it''s'" in sql and '"my ""table"""' in sql
    np.testing.assert_array_equal(check_renderings(rules, X), model.predict(X))


def test_missing_values_fall_through_to_the_default():
    df = quercus.datasets.load("watermelon3")
    model = DecisionTreeClassifier(algorithm="id3").fit(df, target="ripe")
    rules = model.rules()
    X = df.drop("ripe")
    row = X[:1].with_columns(pl.lit(None, dtype=X.schema["texture"]).alias("texture"))
    assert rules.apply(row).tolist() == [-1]
    assert rules.predict(row).tolist() == [rules.default]
    nodes = model.tree_.nodes()
    assert rules.default == model.classes_[nodes["label"][0]]


def test_regression_rules():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    model = DecisionTreeRegressor().fit(X, np.array([1.0, 1.0, 5.0, 6.0]))
    rules = model.rules()
    assert [r.prediction for r in rules] == [1.0, 5.0, 6.0]
    assert all(r.confidence is None for r in rules)
    assert rules.default == pytest.approx(13 / 4)
    assert rules.to_text(decimals=2).splitlines() == [
        "IF x0 <= 1.50 THEN y = 1.00  [support 2]",
        "IF 1.50 < x0 <= 2.50 THEN y = 5.00  [support 1]",
        "IF x0 > 2.50 THEN y = 6.00  [support 1]",
        "ELSE y = 3.25",
    ]
    np.testing.assert_array_equal(rules.predict(X), model.predict(X))
    frame = pl.DataFrame({"x0": [0.0, 1.7, None, 9.0]})
    check_renderings(rules, frame)
    with pytest.raises(ValueError, match="classifier"):
        rules.prune(X, np.array([1.0, 1.0, 5.0, 6.0]))


def test_one_leaf_tree_is_one_unconditional_rule():
    X = np.array([[0.0], [1.0]])
    rules = DecisionTreeClassifier().fit(X, np.array(["a", "a"])).rules()
    assert len(rules) == 1 and rules[0].conditions == ()
    assert rules.to_text().splitlines()[0] == "IF TRUE THEN y = a  [support 2, confidence 1.00]"
    check_renderings(rules, pl.DataFrame({"x0": [0.0, None]}))


def test_a_100000_deep_path_builds_without_recursion():
    # A chain: node 2k tests x <= k + 0.5 (leaf 2k + 1) / x > k + 0.5 (node 2k + 2); written
    # directly as `Tree.nodes()` arrays, since growing such a tree takes long.
    depth = 100_000
    n = 2 * depth + 1
    internal = np.arange(0, 2 * depth, 2)
    kind = np.full(n, LEAF, dtype=np.uint8)
    kind[internal] = NUMERIC
    first_child = np.full(n, -1, dtype=np.int64)
    first_child[internal] = internal + 1
    n_children = np.zeros(n, dtype=np.int64)
    n_children[internal] = 2
    threshold = np.full(n, np.nan)
    threshold[internal] = internal / 2 + 0.5
    label = np.arange(n) % 2
    value = np.zeros((n, 2))
    value[np.arange(n), label] = 1.0
    nodes = {
        "kind": kind,
        "feature": np.where(kind == NUMERIC, 0, -1),
        "threshold": threshold,
        "first_child": first_child,
        "n_children": n_children,
        "weight": np.ones(n),
        "label": label,
        "value": value,
        "subset_offset": np.full(n, -1, dtype=np.int64),
        "subset_mask": np.zeros(0, dtype=np.uint8),
    }
    rules = RuleSet.from_tree(nodes, Schema((Feature("x"),), "y"), ["even", "odd"])
    assert len(rules) == depth + 1
    assert rules[0].conditions == (Interval("x", upper=0.5),)
    assert rules[7].conditions == (Interval("x", lower=6.5, upper=7.5),)
    assert rules[-1].conditions == (Interval("x", lower=depth - 0.5),)
    assert [r.leaf for r in rules[:3]] == [1, 3, 5] and rules[-1].leaf == n - 1
    X = np.array([[0.0], [7.0], [float(depth)]])
    assert rules.predict(X).tolist() == ["odd", "odd", "even"]


# --- rule post-pruning ------------------------------------------------------------------------

TRAIN_4_2 = [1, 2, 3, 6, 7, 10, 14, 15, 16, 17]  # Table 4.2's split of watermelon 2.0 (1-based)
VALID_4_2 = [4, 5, 8, 9, 11, 12, 13]


def table_4_2() -> tuple[pl.DataFrame, pl.DataFrame]:
    df = quercus.datasets.load("watermelon2")
    df = df.select("umbilicus", pl.exclude("umbilicus"))
    return df[[i - 1 for i in TRAIN_4_2]], df[[i - 1 for i in VALID_4_2]]


def covers(parts: list, frame: pl.DataFrame) -> pl.Series:
    """Rows meeting every precondition, evaluated with Polars filters (nulls match nothing)."""
    mask = pl.repeat(True, frame.height, eager=True)
    for part in parts:
        column = frame[part.feature]
        if isinstance(part, Membership):
            test = column.cast(pl.String).is_in(list(part.categories))
        else:
            test = column.is_not_null() & ~column.is_nan()
            if part.lower is not None:
                test &= column > part.lower
            if part.upper is not None:
                test &= column <= part.upper
        mask &= test.fill_null(False)
    return mask


def validation_accuracy(parts: list, label: str, frame: pl.DataFrame) -> float | None:
    covered = frame.filter(covers(parts, frame))
    return None if covered.height == 0 else (covered["ripe"] == label).mean()


def mitchell(rule: Rule, frame: pl.DataFrame) -> tuple[list, float | None]:
    """Greedy precondition removal, written independently of quercus.rules."""
    parts = [p for c in rule.conditions for p in _bounds(c)]
    current = validation_accuracy(parts, rule.prediction, frame)
    if current is None:
        return parts, None
    while parts:
        scores = [
            validation_accuracy(parts[:k] + parts[k + 1 :], rule.prediction, frame)
            for k in range(len(parts))
        ]
        best = max(range(len(parts)), key=lambda k: (scores[k], -k))
        if scores[best] < current:
            break
        current = scores[best]
        del parts[best]
    return parts, current


def _bounds(condition):
    if isinstance(condition, Interval) and None not in (condition.lower, condition.upper):
        return [
            Interval(condition.feature, lower=condition.lower),
            Interval(condition.feature, upper=condition.upper),
        ]
    return [condition]


def test_rule_post_pruning_on_table_4_2():
    train, valid = table_4_2()
    model = DecisionTreeClassifier(algorithm="id3").fit(train, target="ripe")
    rules = model.rules()
    pruned = rules.prune(valid.drop("ripe"), valid["ripe"])
    assert len(pruned) == len(rules)
    assert pruned.default == rules.default == model.classes_[model.tree_.nodes()["label"][0]]
    by_leaf = {rule.leaf: rule for rule in rules}
    for rule in pruned:
        original = by_leaf[rule.leaf]
        before = validation_accuracy(list(original.conditions), rule.prediction, valid)
        after = validation_accuracy(list(rule.conditions), rule.prediction, valid)
        assert rule.accuracy == pytest.approx(after)
        if before is None:  # covers no validation row: kept as it is
            assert rule.conditions == original.conditions
            continue
        assert after >= before  # never lowered
        # the same result as the independent greedy procedure
        parts, accuracy = mitchell(original, valid)
        assert accuracy == after
        assert covers(parts, valid).to_list() == covers(list(rule.conditions), valid).to_list()
        assert set(rule.conditions) <= set(original.conditions) | {
            p for c in original.conditions for p in _bounds(c)
        }
    # at least one rule got shorter; rules sorted by accuracy, uncovered ones last
    assert any(len(r.conditions) < len(by_leaf[r.leaf].conditions) for r in pruned)
    keys = [(r.accuracy is None, -(r.accuracy or 0.0)) for r in pruned]
    assert keys == sorted(keys)
    assert "accuracy 1.00" in pruned.to_text().splitlines()[0]
    # ties keep the tree's order
    order = [r.leaf for r in rules]
    for a, b in zip(pruned.rules, pruned.rules[1:], strict=False):
        if a.accuracy == b.accuracy:
            assert order.index(a.leaf) < order.index(b.leaf)


def test_predict_after_pruning_uses_the_first_match_and_the_default():
    train, valid = table_4_2()
    model = DecisionTreeClassifier(algorithm="id3").fit(train, target="ripe")
    pruned = model.rules().prune(valid.drop("ripe"), valid["ripe"])
    X = quercus.datasets.load("watermelon2").drop("ripe")
    # the data, a row of nulls (which no rule covers: none lost all its conditions) and a
    # row missing only umbilicus
    assert all(rule.conditions for rule in pruned)
    blank = X[:1].with_columns(pl.lit(None, dtype=X.schema[c]).alias(c) for c in X.columns)
    frame = pl.concat(
        [
            X,
            blank,
            X[5:6].with_columns(pl.lit(None, dtype=X.schema["umbilicus"]).alias("umbilicus")),
        ]
    )
    fired = pruned.apply(frame)
    predicted = pruned.predict(frame)
    for row, position in enumerate(fired.tolist()):
        matching = [
            k
            for k, rule in enumerate(pruned)
            if covers(list(rule.conditions), frame[row : row + 1])[0]
        ]
        assert position == (matching[0] if matching else -1)
        expected = pruned[position].prediction if matching else pruned.default
        assert predicted[row] == expected
    assert fired[X.height] == -1 and predicted[X.height] == pruned.default
    check_renderings(pruned, frame)


def test_rules_covering_no_validation_row_keep_their_conditions_and_go_last():
    train, valid = table_4_2()
    rules = DecisionTreeClassifier(algorithm="id3").fit(train, target="ripe").rules()
    flat = valid.filter(pl.col("umbilicus") == "flat")  # two unripe melons
    pruned = rules.prune(flat.drop("ripe"), flat["ripe"])
    # `umbilicus = flat` loses its only condition (still 2 of 2 right) and comes first ...
    (flat_rule,) = (r for r in rules if r.conditions == (Membership("umbilicus", ("flat",)),))
    assert (pruned[0].leaf, pruned[0].conditions, pruned[0].accuracy) == (flat_rule.leaf, (), 1.0)
    # ... the others cover neither row: unchanged, in the tree's order
    assert list(pruned.rules[1:]) == [r for r in rules if r is not flat_rule]
    # an unconditional first rule decides every row
    assert set(pruned.predict(quercus.datasets.load("watermelon2")).tolist()) == {"no"}


def test_pruning_drops_one_bound_of_an_interval():
    X, y = load_xy("watermelon3alpha")
    rules = DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
    rule = rules[2]  # 0.126 < sugar <= 0.2045 AND 0.3815 < density <= 0.56 -> yes
    sugar, density = rule.conditions
    # row 0 is covered; dropping the upper sugar bound adds row 1 (right), any other bound
    # adds one of rows 2-4 (wrong)
    valid = pl.DataFrame(
        {
            "density": [0.45, 0.45, 0.45, 0.30, 0.70],
            "sugar": [0.15, 0.40, 0.10, 0.15, 0.15],
        }
    )
    pruned = rules.prune(valid, ["yes", "yes", "no", "no", "no"])
    (after,) = (r for r in pruned if r.leaf == rule.leaf)
    assert after.conditions == (Interval("sugar", lower=sugar.lower), density)
    assert after.accuracy == 1.0
    assert after.to_text("ripe").startswith("IF sugar > 0.1260 AND 0.3815 < density <= 0.5600")


def test_prune_weights_and_validation():
    train, valid = table_4_2()
    rules = DecisionTreeClassifier(algorithm="id3").fit(train, target="ripe").rules()
    X, y = valid.drop("ripe"), valid["ripe"]
    assert rules.prune(X, y, sample_weight=np.full(len(y), 2.0)) == rules.prune(X, y)
    with pytest.raises(ValueError, match="rows"):
        rules.prune(X, y[:3])
