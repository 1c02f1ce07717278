"""Categories are nominal unless the user says they have an order.

A Polars `Enum` is a closed set of categories (Polars' recommended type for a fixed
vocabulary), not an order: like `String`, `Categorical`, `Boolean` and pandas' unordered
`category`, it is nominal, split by category (multiway) or by subset (binary). A feature is
ordinal when `ordinal_features` names it (its categories' order: the Enum's, or sorted, or an
order given explicitly) or when it is a pandas `category` with `ordered=True`; binary splits
then test it by threshold.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from helpers import LEAF, ORDERED, SUBSET, load_xy

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor, _core

SIZES = ["small", "medium", "large", "huge"]


def sizes() -> tuple[pl.DataFrame, np.ndarray]:
    """`size` decides the class by order: small and medium are "ok", large and huge "big"."""
    size = ["large", "small", "medium", "huge", "small", "large", "medium", "huge"]
    X = pl.DataFrame({"size": pl.Series(size, dtype=pl.Enum(SIZES))})
    y = np.where(np.isin(size, ["large", "huge"]), "big", "ok")
    return X, y


def split_kinds(model) -> set[int]:
    kinds = model.tree_.nodes()["kind"]
    return set(kinds[kinds != LEAF].tolist())


def test_the_demo_splits_nominal_columns_by_subset():
    # The CLI demo fits watermelon 3.0, whose nominal columns arrive as Enums: CART states
    # subsets (`texture = clear`, `texture not in {clear}`), never an order (`texture <= clear`).
    out = subprocess.run(
        [sys.executable, "-m", "quercus", "demo"], capture_output=True, text=True, check=True
    ).stdout
    cart = out.split("== cart tree")[1]
    nominal = ["color", "root", "sound", "texture", "umbilicus", "surface"]
    for line in cart.splitlines():
        if any(line.strip().startswith(name) for name in nominal):
            assert "<=" not in line and ">" not in line, line
    assert "texture = clear" in cart and "texture not in {clear}" in cart


@pytest.mark.parametrize("dtype", [pl.Enum(SIZES), pl.String, pl.Categorical])
def test_enum_string_and_categorical_are_nominal(dtype):
    X, y = sizes()
    X = X.with_columns(pl.col("size").cast(pl.String).cast(dtype))
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    assert split_kinds(model) == {SUBSET}
    assert model.export_text().startswith("size in {")
    np.testing.assert_array_equal(model.predict(X), y)


def test_ordinal_features_list_uses_the_enum_order():
    X, y = sizes()
    model = DecisionTreeClassifier(algorithm="cart", ordinal_features=["size"]).fit(X, y)
    assert split_kinds(model) == {ORDERED}
    assert model.export_text().splitlines()[0].startswith("size <= medium")
    np.testing.assert_array_equal(model.predict(X), y)
    assert model.get_params()["ordinal_features"] == ["size"]


def test_ordinal_features_dict_gives_the_order():
    # A String column has no order of its own (sorted would put "huge" first); the dict says it.
    X, y = sizes()
    X = X.with_columns(pl.col("size").cast(pl.String))
    model = DecisionTreeClassifier(ordinal_features={"size": SIZES}).fit(X, y)
    assert split_kinds(model) == {ORDERED}
    assert model.export_text().splitlines()[0].startswith("size <= medium")
    # Sorted order (huge, large, medium, small) also separates the classes, at another cut.
    alphabetical = DecisionTreeClassifier(ordinal_features=["size"]).fit(X, y)
    assert alphabetical.export_text().splitlines()[0].startswith("size <= large")
    # An order may name categories the data lacks; they keep their place.
    wider = DecisionTreeClassifier(ordinal_features={"size": ["tiny", *SIZES]}).fit(X, y)
    np.testing.assert_array_equal(wider.predict(X), y)


def test_multiway_splits_ignore_the_order():
    X, y = sizes()
    for ordinal in (None, ["size"]):
        model = DecisionTreeClassifier(algorithm="id3", ordinal_features=ordinal).fit(X, y)
        assert [line.split(":")[0] for line in model.export_text().splitlines()] == [
            f"size = {s}" for s in SIZES
        ]


def test_the_model_keeps_which_features_were_ordinal():
    X, y = sizes()
    X = X.with_columns(other=pl.Series(["a", "b"] * 4))
    model = DecisionTreeClassifier(ordinal_features=["size"]).fit(X, y)
    _, metadata = _core.load_model(model.to_bytes())
    flags = {f["name"]: f["ordered"] for f in json.loads(metadata)["features"]}
    assert flags == {"size": True, "other": False}
    loaded = quercus.from_bytes(model.to_bytes())
    assert loaded.export_text() == model.export_text()
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert split_kinds(loaded) == {ORDERED}


def test_pandas_category_ordered_flag_decides():
    pd = pytest.importorskip("pandas", reason="pandas comes with the test extras")
    X, y = sizes()
    values = X["size"].cast(pl.String).to_list()
    ordered = pd.DataFrame({"size": pd.Categorical(values, categories=SIZES, ordered=True)})
    model = DecisionTreeClassifier().fit(ordered, y)
    assert split_kinds(model) == {ORDERED}
    assert model.export_text().splitlines()[0].startswith("size <= medium")
    unordered = pd.DataFrame({"size": pd.Categorical(values, categories=SIZES)})
    model = DecisionTreeClassifier().fit(unordered, y)
    assert split_kinds(model) == {SUBSET}
    # Predictions read pandas categories too, a missing value included.
    np.testing.assert_array_equal(model.predict(unordered), y)
    blank = pd.DataFrame({"size": pd.Categorical([None, "huge"], categories=SIZES)})
    assert model.predict(blank).shape == (2,)


def test_bundled_nominal_data_split_by_subset():
    X, y = load_xy("watermelon2")
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    assert split_kinds(model) == {SUBSET}
    assert "<=" not in model.export_text()


@pytest.mark.parametrize(
    ("ordinal", "error", "message"),
    [
        (["colour"], ValueError, r"ordinal_features names 'colour', which X does not have"),
        (["weight"], ValueError, r"'weight', which is numeric"),
        ({"size": ["small", "large"]}, ValueError, r"lacks categories .* 'huge', 'medium'"),
        ({"size": [*SIZES, "small"]}, ValueError, r"lists a category twice"),
        ("size", TypeError, r"must be a list of column names, a dict or None"),
        ({"size": "small"}, TypeError, r"must list the categories in order"),
        ([3], TypeError, r"names columns by string"),
    ],
)
def test_bad_ordinal_features_name_the_column(ordinal, error, message):
    X, y = sizes()
    X = X.with_columns(weight=pl.Series(np.arange(8.0)))
    with pytest.raises(error, match=message):
        DecisionTreeClassifier(ordinal_features=ordinal).fit(X, y)


def test_ordinal_features_need_named_columns():
    with pytest.raises(ValueError, match="X has only numeric"):
        DecisionTreeRegressor(ordinal_features=["x0"]).fit(np.ones((4, 1)), np.arange(4.0))


def test_j48_binary_splits_test_one_value_against_the_others():
    """Under J48's conventions a binary nominal split is J48 -B's (`BinC45Split`): one value
    against the others, the values tried in order, the first kept unless a later one's gain
    ratio beats it by more than 1e-6. Worked by hand: A's values a, b say yes and c, d no
    (6 rows each). At the root every value against the others has gain 1 - 18/24 H(1/3) =
    0.311 and ratio 0.311 / H(1/4) = 0.383: a is kept. In a's rest (b, c, d), b against c and
    d separates the classes (ratio 1), c or d against the others has ratio 0.274: b. The
    texts' convention keeps the best subset of values, {a, b} against {c, d}."""
    A = pl.Series(["a"] * 6 + ["b"] * 6 + ["c"] * 6 + ["d"] * 6).cast(pl.Enum(list("abcde")))
    data = pl.DataFrame({"A": A, "y": ["yes"] * 12 + ["no"] * 12})
    j48 = DecisionTreeClassifier(algorithm="c4.5", categorical_split="binary").fit(data, target="y")
    assert j48.export_text() == (
        "A = a: yes (6)\nA not in {a}\n    A = b: yes (6)\n    A not in {b}: no (12)"
    )
    # A value no training row had (e) goes with the others, not where missing values go.
    rows = pl.DataFrame({"A": pl.Series(["e", "d", "a", "b"]).cast(A.dtype)})
    np.testing.assert_array_equal(j48.predict(rows), ["no", "no", "yes", "yes"])
    np.testing.assert_array_equal(j48.predict_proba(rows)[0], [1.0, 0.0])
    texts = DecisionTreeClassifier(
        algorithm="c4.5", categorical_split="binary", conventions="texts"
    ).fit(data, target="y")
    assert texts.export_text() == "A in {a, b}: yes (12)\nA in {c, d}: no (12)"
