"""`to_sql(dialect=...)` run by the databases it is written for: DuckDB, SQLite and Spark SQL
(pyspark on a local[2] session), each against `predict` on data with categories, missing
values, a category unseen at fit, awkward column names and labels that need escaping.

A tree whose missing values take one branch per node (every strategy but C4.5's fractions)
is predicted exactly on every row; a fractional tree on the rows without missing values
(the SQL sends a missing value down the heaviest branch, as the module docs say).
"""

from __future__ import annotations

import datetime
import importlib.util
import shutil
import sqlite3

import numpy as np
import polars as pl
import pytest

import quercus

# Column names and labels that need each dialect's quoting and escaping.
NUMBER, SHADE, SIZE = 'wid"th', "sha`de", "size's"
LABELS = np.array(["it's", "back\\slash", 'say "hi"'])


def frame(n: int, seed: int, unseen: bool = False) -> tuple[pl.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    width = rng.normal(size=n)
    size = rng.uniform(0, 10, n)
    shades = ["dark", "light", "pale", "deep"] + (["neon"] if unseen else [])
    shade = rng.choice(shades, n)
    label = LABELS[(width > 0).astype(int) + (np.isin(shade, ["dark", "deep"]) & (size > 5))]
    width[rng.random(n) < 0.15] = np.nan
    size_missing = rng.random(n) < 0.1
    data = pl.DataFrame(
        {
            NUMBER: width,
            SHADE: pl.Series(shade).scatter(np.flatnonzero(rng.random(n) < 0.1), None),
            SIZE: pl.Series(size).scatter(np.flatnonzero(size_missing), None),
        }
    ).with_columns(pl.col(NUMBER).fill_nan(None))
    return data, label


TRAIN, LABEL = frame(400, 0)
TEST, _ = frame(300, 1, unseen=True)

MODELS = {
    "cart, learned": lambda: quercus.DecisionTreeClassifier(max_depth=5),
    "cart, surrogate": lambda: quercus.DecisionTreeClassifier(max_depth=5, missing="surrogate"),
    "c4.5, separate": lambda: quercus.DecisionTreeClassifier(algorithm="c4.5", missing="separate"),
    "id3, fractional": lambda: quercus.DecisionTreeClassifier(algorithm="id3", max_depth=4),
    "oblique": lambda: quercus.DecisionTreeClassifier(max_depth=3, splits="oblique"),
}


def fitted(name: str) -> quercus.DecisionTreeClassifier:
    return MODELS[name]().fit(TRAIN, LABEL)


def expected(model: quercus.DecisionTreeClassifier, name: str) -> tuple[list, np.ndarray]:
    """`predict` on TEST, and the rows the SQL must match (all, or the complete ones)."""
    rows = np.ones(TEST.height, dtype=bool)
    if "fractional" in name or "oblique" in name:
        complete = TEST.select(pl.all_horizontal(pl.all().is_not_null())).to_series()
        seen = TEST[SHADE].is_in(["dark", "light", "pale", "deep"]).fill_null(False)
        rows = complete.to_numpy() & seen.to_numpy()
    return model.predict(TEST).tolist(), rows


def same(answered: list, predicted: list, rows: np.ndarray) -> None:
    assert len(answered) == len(predicted)
    differ = [i for i in np.flatnonzero(rows) if answered[i] != predicted[i]]
    assert not differ, f"{len(differ)} rows differ, first {differ[:5]}"


@pytest.mark.parametrize("name", list(MODELS))
def test_duckdb_runs_the_sql(name):
    duckdb = pytest.importorskip("duckdb", reason="the DuckDB dialect is run by duckdb")
    model = fitted(name)
    connection = duckdb.connect()
    connection.register("test rows", TEST.to_arrow())
    for dialect in ("ansi", "duckdb", "postgresql"):
        answered = [
            r[0] for r in connection.sql(model.to_sql("test rows", dialect=dialect)).fetchall()
        ]
        same(answered, *expected(model, name))
        rules = model.rules().to_sql("test rows", dialect=dialect)
        same([r[0] for r in connection.sql(rules).fetchall()], *expected(model, name))
    # DuckDB keeps NaN in a float column (above every number): its dialect reads it as
    # missing, as predict does.
    connection.register("nan rows", TEST.with_columns(pl.col(NUMBER, SIZE).fill_null(np.nan)))
    nan_rows = (
        model.to_sql("nan rows", dialect="duckdb"),
        model.rules().to_sql("nan rows", dialect="duckdb"),
    )
    for sql in nan_rows:
        same([r[0] for r in connection.sql(sql).fetchall()], *expected(model, name))


@pytest.mark.parametrize("name", list(MODELS))
def test_sqlite_runs_the_sql(name):
    model = fitted(name)
    connection = sqlite3.connect(":memory:")
    connection.execute('CREATE TABLE "test rows" ("wid""th" REAL, "sha`de" TEXT, "size\'s" REAL)')
    connection.executemany('INSERT INTO "test rows" VALUES (?, ?, ?)', TEST.rows())
    answered = [r[0] for r in connection.execute(model.to_sql("test rows", dialect="sqlite"))]
    same(answered, *expected(model, name))


def test_sqlite_refuses_a_temporal_feature():
    days = pl.DataFrame(
        {"day": pl.date_range(pl.date(2020, 1, 1), pl.date(2020, 3, 1), eager=True)}
    )
    y = (days["day"] > datetime.date(2020, 2, 1)).to_numpy()
    model = quercus.DecisionTreeClassifier().fit(days, y)
    assert "DATE '2020-02-01'" in model.to_sql(dialect="duckdb")
    with pytest.raises(ValueError, match="sqlite has no date"):
        model.to_sql(dialect="sqlite")
    with pytest.raises(ValueError, match="dialect must be one of"):
        model.to_sql(dialect="oracle")


@pytest.fixture(scope="module")
def spark():
    if importlib.util.find_spec("pyspark") is None:
        pytest.skip("the Spark dialect is run by pyspark (pip install pyspark)")
    if shutil.which("java") is None:
        pytest.skip("pyspark needs a Java runtime")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("quercus-sql")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.mark.parametrize("nan", [False, True], ids=["null", "nan"])
def test_spark_runs_the_sql(spark, nan):
    """Spark SQL scores the table without Python; a numeric column may hold NaN where the
    data had a missing value (pandas' NaN kept by Spark), which the SQL reads as missing."""
    from pyspark.sql import types

    schema = types.StructType(
        [
            types.StructField(NUMBER, types.DoubleType()),
            types.StructField(SHADE, types.StringType()),
            types.StructField(SIZE, types.DoubleType()),
        ]
    )
    rows = TEST.fill_null(float("nan")).select(NUMBER, SIZE) if nan else None
    records = [
        (w, s, z)
        for (w, z), s in zip(
            (rows if nan else TEST.select(NUMBER, SIZE)).rows(), TEST[SHADE].to_list(), strict=True
        )
    ]
    spark.createDataFrame(records, schema).createOrReplaceTempView("test_rows")
    for name in MODELS:
        model = fitted(name)
        answered = [r[0] for r in spark.sql(model.to_sql("test_rows", dialect="spark")).collect()]
        same(answered, *expected(model, name))
        rules = model.rules().to_sql("test_rows", dialect="spark")
        same([r[0] for r in spark.sql(rules).collect()], *expected(model, name))
