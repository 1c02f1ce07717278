"""Polars-native prediction: Polars inputs (DataFrame, LazyFrame) and outputs, the batch
expression `predict_expr` (eager, lazy and in the streaming engine), and the tree as a pure
Polars expression (`to_polars_expr`) and as SQL (`to_sql`, run in SQLite), checked against
`predict` and, for missing values, against an independent walk of the tree's arrays.
"""

from __future__ import annotations

import math
import sqlite3
from typing import Any

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest
from helpers import (
    MULTIWAY,
    NUMERIC,
    ORDERED,
    breast_cancer,
    load_xy,
    watermelon3,
    watermelon3_strings,
)

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor, NotFittedError

# --- data -----------------------------------------------------------------------------------


TREES = {
    "watermelon3-id3": (watermelon3, {"algorithm": "id3"}),
    "watermelon3-c4.5": (watermelon3, {"algorithm": "c4.5", "pruning": "none"}),
    "watermelon3-cart": (watermelon3, {"algorithm": "cart"}),
    "watermelon3-cart-strings": (watermelon3_strings, {"algorithm": "cart"}),
    "breast-cancer-cart-5": (breast_cancer, {"algorithm": "cart", "max_depth": 5}),
}


def with_gaps(X: pl.DataFrame) -> pl.DataFrame:
    """Rows of X with one value missing each (null, NaN) or replaced by an unseen category."""
    rows = []
    for k, (name, dtype) in enumerate(X.schema.items()):
        row = X[k % X.height : k % X.height + 1]
        rows.append(row.with_columns(pl.lit(None, dtype=dtype).alias(name)))
        if dtype.is_float():
            rows.append(row.with_columns(pl.lit(float("nan")).alias(name)))
        elif dtype == pl.String:
            rows.append(row.with_columns(pl.lit("UNSEEN").alias(name)))
    return pl.concat(rows)


# --- running SQL ----------------------------------------------------------------------------


def sqlite_predictions(sql: str, frame: pl.DataFrame) -> list[Any]:
    """`sql` (a CASE expression) over `frame` stored as table "data" (categories as strings,
    NaN as NULL, as a database holds them), in row order."""
    connection = sqlite3.connect(":memory:")
    quoted = ['"' + name.replace('"', '""') + '"' for name in frame.columns]
    connection.execute(f'CREATE TABLE "data" ({", ".join(quoted)})')
    strings = frame.with_columns((cs.enum() | cs.categorical()).cast(pl.String))
    rows = (
        tuple(None if isinstance(v, float) and math.isnan(v) else v for v in row)
        for row in strings.iter_rows()
    )
    connection.executemany(f'INSERT INTO "data" VALUES ({", ".join("?" * frame.width)})', rows)
    return [r[0] for r in connection.execute(f'SELECT {sql} FROM "data" ORDER BY rowid')]


def walk_to_largest_branch(model: Any, X: pl.DataFrame) -> list[Any]:
    """An independent reading of the documented semantics of the pure renderings: follow the
    tree's arrays; a missing tested value (null, NaN, unseen category, category unseen at a
    subset node) takes the child with the largest branch fraction (the first on a tie)."""
    nodes = model.tree_.nodes()
    schema = model._state.schema
    labels = None if not hasattr(model, "classes_") else model.classes_.tolist()
    out = []
    for row in X.with_columns(cs.enum().cast(pl.String)).iter_rows(named=True):
        node = 0
        while nodes["n_children"][node] > 0:
            feature = schema.features[nodes["feature"][node]]
            first, count = nodes["first_child"][node], nodes["n_children"][node]
            value = row[feature.name]
            child = None  # None: missing here
            if feature.categories is None:
                if value is not None and not math.isnan(value):
                    child = first if value <= nodes["threshold"][node] else first + 1
            elif value is not None and str(value).lower() in feature.categories:
                code = feature.categories.index(str(value).lower())
                if nodes["kind"][node] == MULTIWAY:
                    child = first + code
                elif nodes["kind"][node] == ORDERED:
                    child = first if code <= nodes["threshold"][node] else first + 1
                else:  # SUBSET: 1 left, 0 right, 2 unseen at the node (missing)
                    side = nodes["subset_mask"][nodes["subset_offset"][node] + code]
                    child = None if side == 2 else first + (0 if side == 1 else 1)
            if child is None:
                child = first + int(np.argmax(nodes["branch_fraction"][first : first + count]))
            node = child
        out.append(nodes["value"][node, 0] if labels is None else labels[nodes["label"][node]])
    return out


# --- outputs and inputs -------------------------------------------------------------------------


def test_polars_outputs_keep_the_target_name_and_enum_dtype():
    df = quercus.datasets.load("watermelon3")
    model = DecisionTreeClassifier(algorithm="c4.5").fit(df, target="ripe")
    predicted = model.predict(df, output="polars")
    assert isinstance(predicted, pl.Series)
    assert predicted.name == "ripe" and predicted.dtype == df["ripe"].dtype  # the same Enum
    assert predicted.to_list() == model.predict(df).tolist()
    proba = model.predict_proba(df, output="polars")
    assert isinstance(proba, pl.DataFrame)
    assert proba.columns == ["yes", "no"] == model.classes_.tolist()
    assert proba.dtypes == [pl.Float64, pl.Float64]
    np.testing.assert_array_equal(proba.to_numpy(), model.predict_proba(df))
    assert isinstance(model.predict(df, output="numpy"), np.ndarray)
    with pytest.raises(ValueError, match="output must be 'numpy' or 'polars'"):
        model.predict(df, output="pandas")
    with pytest.raises(ValueError, match="output must be"):
        model.predict_proba(df, output=None)


@pytest.mark.parametrize(
    ("make_y", "dtype"),
    [
        (lambda t: pl.Series("label", np.array(["b", "m"])[t]), pl.String),
        (
            lambda t: pl.Series("label", np.array(["b", "m"])[t]).cast(pl.Categorical),
            pl.Categorical,
        ),
        (lambda t: pl.Series("label", t.astype(bool)), pl.Boolean),
        (lambda t: pl.Series("label", t).cast(pl.Int16), pl.Int16),
        (lambda t: pl.Series("label", np.array(["b", "m"])[t]).cast(pl.Enum(["m", "b"])), None),
    ],
)
def test_predicted_series_has_the_dtype_of_the_target(make_y, dtype):
    X, y = breast_cancer()
    y = make_y((y == "malignant").to_numpy().astype(np.int64))
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    predicted = model.predict(X, output="polars")
    assert predicted.name == "label"
    assert predicted.dtype == (y.dtype if dtype is None else dtype)
    assert predicted.to_list() == model.predict(X).tolist()
    assert model.predict_proba(X, output="polars").columns == [
        str(c) for c in model.classes_.tolist()
    ]


def test_numpy_fitted_models_name_the_series_y():
    X, y = breast_cancer()
    model = DecisionTreeClassifier(max_depth=3).fit(X.to_numpy(), (y == "malignant").to_numpy())
    predicted = model.predict(X.to_numpy(), output="polars")
    assert predicted.name == "y" and predicted.dtype == pl.Boolean
    regressor = DecisionTreeRegressor(max_depth=3).fit(X.to_numpy(), X["mean area"].to_numpy())
    values = regressor.predict(X.to_numpy(), output="polars")
    assert values.name == "y" and values.dtype == pl.Float64


def test_regressor_output_polars():
    X, _ = breast_cancer()
    target = X["mean area"]
    features = X.drop("mean area")
    model = DecisionTreeRegressor(max_depth=4).fit(features, target)
    predicted = model.predict(features, output="polars")
    assert predicted.name == "mean area" and predicted.dtype == pl.Float64
    np.testing.assert_array_equal(predicted.to_numpy(), model.predict(features))
    assert not hasattr(model, "predict_proba")


def test_lazyframes_are_collected_with_only_the_fitted_columns():
    X, y = load_xy("watermelon3")
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    # a column the tree does not read that cannot be computed: collecting it would fail
    poisoned = X.lazy().with_columns(
        poison=(pl.col("density") * 1000).cast(pl.Int8, strict=True), extra=pl.lit("x")
    )
    with pytest.raises(pl.exceptions.InvalidOperationError):
        poisoned.collect()
    np.testing.assert_array_equal(model.predict(poisoned), model.predict(X))
    assert model.predict(poisoned, output="polars").to_list() == model.predict(X).tolist()
    np.testing.assert_array_equal(model.predict_proba(poisoned), model.predict_proba(X))
    assert model.score(X.lazy(), y) == model.score(X, y)
    with pytest.raises(ValueError, match="lacks the column\\(s\\) 'density'"):
        model.predict(X.lazy().drop("density"))
    # fit takes a LazyFrame too (collected whole)
    lazy_fit = DecisionTreeClassifier(algorithm="id3").fit(
        quercus.datasets.load("watermelon3").lazy(), target="ripe"
    )
    assert lazy_fit.export_text() == model.export_text()


# --- predict_expr -------------------------------------------------------------------------------


class CountingClassifier(DecisionTreeClassifier):
    """Records the number of rows of every predict call (predict_expr calls predict once per
    batch; its snapshot of the model shares this list)."""

    def predict(self, X: Any, *, output: str = "numpy") -> Any:
        self.batches.append(len(X))
        return super().predict(X, output=output)


def test_predict_expr_eager_and_lazy_equal_predict():
    df = quercus.datasets.load("watermelon3")
    model = DecisionTreeClassifier(algorithm="c4.5").fit(df, target="ripe")
    features = df.drop("ripe")
    expected = model.predict(features, output="polars")
    eager = features.with_columns(model.predict_expr())
    assert eager.columns == [*features.columns, "ripe"]
    assert eager["ripe"].dtype == expected.dtype
    assert eager["ripe"].to_list() == expected.to_list()
    lazy = features.lazy().with_columns(quercus.predict_expr(model).alias("p")).collect()
    assert lazy["p"].to_list() == expected.to_list()
    # the true target may sit in the frame: the expression reads only the features
    assert df.select(model.predict_expr().alias("p"))["p"].to_list() == expected.to_list()
    proba = features.select(model.predict_expr(proba=True)).unnest("ripe")
    np.testing.assert_array_equal(proba.to_numpy(), model.predict_proba(features))
    assert proba.columns == ["yes", "no"]


def test_predict_expr_runs_per_batch_in_the_streaming_engine():
    X, y = breast_cancer()
    model = CountingClassifier(algorithm="cart", max_depth=5).fit(X, y)
    model.batches = []
    rng = np.random.default_rng(0)
    big = X.sample(300_000, with_replacement=True, seed=1).with_columns(
        # values off the training grid, so the rows reach every leaf in new ways
        pl.col("mean radius") * pl.Series(rng.uniform(0.8, 1.2, 300_000))
    )
    expected = model.predict(big, output="polars")
    model.batches.clear()
    streamed = (
        big.lazy().with_columns(model.predict_expr().alias("predicted")).collect(engine="streaming")
    )
    assert sum(model.batches) == 300_000
    assert len(model.batches) > 1, model.batches  # several batches, never the whole frame
    assert max(model.batches) < 300_000
    assert streamed.height == 300_000
    assert streamed["predicted"].to_list() == expected.to_list()
    # filters and other columns around it
    filtered = (
        big.lazy()
        .with_row_index()
        .with_columns(model.predict_expr())
        .filter(pl.col("index") % 7 == 0)
        .collect(engine="streaming")
    )
    assert filtered["diagnosis"].to_list() == expected.gather_every(7).to_list()


def test_predict_expr_regression_and_snapshot_and_errors():
    X, _ = breast_cancer()
    target = X["mean area"]
    features = X.drop("mean area")
    model = DecisionTreeRegressor(max_depth=4).fit(features, target)
    expr = model.predict_expr()
    out = features.lazy().select(expr).collect(engine="streaming")["mean area"]
    assert out.dtype == pl.Float64
    np.testing.assert_array_equal(out.to_numpy(), model.predict(features))
    with pytest.raises(ValueError, match="needs a classifier"):
        model.predict_expr(proba=True)
    # the expression keeps the model it was made from
    model.fit(features.head(50), target.head(50))
    np.testing.assert_array_equal(features.select(expr).to_series().to_numpy(), out.to_numpy())
    with pytest.raises(NotFittedError):
        DecisionTreeClassifier().predict_expr()
    with pytest.raises(pl.exceptions.ColumnNotFoundError):
        features.drop("mean radius").select(expr)


def test_predict_expr_on_an_empty_frame():
    df = quercus.datasets.load("watermelon3")
    model = DecisionTreeClassifier().fit(df, target="ripe")
    empty = df.clear().lazy().with_columns(model.predict_expr().alias("p"))
    out = empty.collect(engine="streaming")
    assert out.height == 0 and out["p"].dtype == df["ripe"].dtype


# --- to_polars_expr and to_sql ------------------------------------------------------------------


@pytest.mark.parametrize("name", list(TREES))
def test_pure_renderings_equal_predict_without_missing_values(name):
    load, params = TREES[name]
    X, y = load()
    model = DecisionTreeClassifier(**params).fit(X, y)
    expected = model.predict(X, output="polars")
    eager = X.select(model.to_polars_expr())
    assert eager.columns == [y.name]
    assert eager.to_series().dtype == expected.dtype
    assert eager.to_series().to_list() == expected.to_list()
    lazy = X.lazy().with_columns(model.to_polars_expr().alias("p")).collect(engine="streaming")
    assert lazy["p"].to_list() == expected.to_list()
    assert sqlite_predictions(model.to_sql(), X) == model.predict(X).tolist()
    assert walk_to_largest_branch(model, X) == model.predict(X).tolist()


@pytest.mark.parametrize("name", list(TREES))
def test_pure_renderings_send_missing_values_down_the_largest_branch(name):
    load, params = TREES[name]
    X, y = load()
    model = DecisionTreeClassifier(**params).fit(X, y)
    gappy = with_gaps(X)
    expected = walk_to_largest_branch(model, gappy)
    assert X.height > 0 and len(expected) == gappy.height
    assert gappy.select(model.to_polars_expr()).to_series().to_list() == expected
    assert sqlite_predictions(model.to_sql(), gappy) == expected


def test_missing_texture_takes_the_clear_branch():
    """Watermelon 3.0 under ID3: texture (9 of 17 clear) first, so a melon of unknown
    texture is judged by density, as the clear ones are."""
    X, y = load_xy("watermelon3")
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    melon = X[:1].with_columns(pl.lit(None, dtype=X["texture"].dtype).alias("texture"))
    dense, light = melon, melon.with_columns(density=pl.lit(0.2))
    for row, label in ((dense, "yes"), (light, "no")):
        assert row.select(model.to_polars_expr()).item() == label
        assert sqlite_predictions(model.to_sql(), row) == [label]
    sql = model.to_sql()
    assert sql.startswith("CASE\n    WHEN \"texture\" = 'slightly_blurry' THEN CASE")
    assert "    ELSE CASE\n" in sql  # clear, the largest branch, is the ELSE


def test_regression_renderings_and_whole_select():
    X, _ = breast_cancer()
    target = X["mean area"]
    features = X.drop("mean area")
    model = DecisionTreeRegressor(max_depth=5).fit(features, target)
    expected = model.predict(features)
    rendered = features.select(model.to_polars_expr()).to_series()
    assert rendered.name == "mean area" and rendered.dtype == pl.Float64
    np.testing.assert_array_equal(rendered.to_numpy(), expected)
    np.testing.assert_array_equal(sqlite_predictions(model.to_sql(), features), expected)
    connection = sqlite3.connect(":memory:")
    quoted = ", ".join('"' + c + '"' for c in features.columns)
    connection.execute(f'CREATE TABLE "my ""table""" ({quoted})')
    connection.executemany(
        f'INSERT INTO "my ""table""" VALUES ({", ".join("?" * features.width)})',
        features.iter_rows(),
    )
    cursor = connection.execute(model.to_sql(table='my "table"'))
    assert [d[0] for d in cursor.description] == ["mean area"]
    np.testing.assert_array_equal([r[0] for r in cursor], expected)


def test_a_single_leaf_renders_as_a_constant_column():
    X, y = load_xy("watermelon3")
    model = DecisionTreeClassifier(max_depth=1, min_samples_split=100).fit(X, y)
    assert model.n_leaves_ == 1
    out = X.select(model.to_polars_expr()).to_series()
    assert out.len() == X.height and out.to_list() == model.predict(X).tolist()
    assert model.to_sql() == "'no'"
    assert sqlite_predictions(model.to_sql(), X) == ["no"] * X.height


def test_renderings_need_no_quercus_at_run_time():
    """The expression serialises to JSON and back without quercus code in it."""
    X, y = breast_cancer()
    model = DecisionTreeClassifier(max_depth=5).fit(X, y)
    expr = model.to_polars_expr()
    assert "quercus" not in str(expr)
    restored = pl.Expr.deserialize(expr.meta.serialize(format="json").encode(), format="json")
    assert X.select(restored).to_series().to_list() == model.predict(X).tolist()


def test_numeric_and_categorical_thresholds_are_exact_at_the_boundary():
    """A row exactly at a threshold goes left (<=) in all three, whatever its digits."""
    X, y = breast_cancer()
    model = DecisionTreeClassifier(max_depth=5).fit(X, y)
    nodes = model.tree_.nodes()
    root = nodes["feature"][0]
    assert nodes["kind"][0] == NUMERIC
    name = model.feature_names_in_[root]
    at = X.with_columns(pl.lit(nodes["threshold"][0]).alias(name))
    expected = model.predict(at).tolist()
    assert at.select(model.to_polars_expr()).to_series().to_list() == expected
    assert sqlite_predictions(model.to_sql(), at) == expected
