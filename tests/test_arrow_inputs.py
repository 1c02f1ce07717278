"""Arrow data in: a pyarrow Table, RecordBatch, RecordBatchReader, Array or ChunkedArray, a
DuckDB relation and any object of the Arrow PyCapsule interface fit and predict as the
Polars frame of the same rows does (Polars imports them without a copy); the SQL `to_sql`
writes runs in DuckDB and gives `predict`'s answers.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import quercus

pa = pytest.importorskip("pyarrow", reason="the Arrow inputs are pyarrow objects")


def melons() -> pl.DataFrame:
    """Watermelon 3.0 with some cells missing, its Enums as plain text (as Arrow tables
    from files usually hold them)."""
    frame = quercus.datasets.load("watermelon3").with_columns(pl.col(pl.Enum).cast(pl.String))
    gaps = pl.int_range(pl.len()) % 5 == 1
    return frame.with_columns(
        pl.when(gaps).then(None).otherwise(pl.col("density")).alias("density"),
        pl.when(gaps).then(None).otherwise(pl.col("color")).alias("color"),
    )


class Capsule:
    """Only the Arrow PyCapsule stream interface, as a library that is not pyarrow offers."""

    def __init__(self, table: object) -> None:
        self._table = table

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self._table.__arrow_c_stream__(requested_schema)


def reader(table: object) -> object:
    return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=5))


def test_arrow_tables_fit_and_predict_as_the_polars_frame():
    frame = melons()
    expected = quercus.DecisionTreeClassifier(algorithm="c4.5").fit(frame, target="ripe")
    X = frame.drop("ripe")
    # an Arrow array has no name: the model calls its target "y", as for a nameless Series
    nameless = quercus.DecisionTreeClassifier(algorithm="c4.5").fit(X, frame["ripe"].rename(""))
    table = frame.to_arrow()
    features = X.to_arrow()
    made = {
        "table target=": (lambda m: m.fit(table, target="ripe"), expected),
        "table, ChunkedArray y": (lambda m: m.fit(features, table["ripe"]), nameless),
        "RecordBatch, Array y": (
            lambda m: m.fit(features.to_batches()[0], table["ripe"].combine_chunks()),
            nameless,
        ),
        "RecordBatchReader target=": (lambda m: m.fit(reader(table), target="ripe"), expected),
        "PyCapsule target=": (lambda m: m.fit(Capsule(table), target="ripe"), expected),
    }
    assert len(features.to_batches()) == 1
    for how, (fit, same) in made.items():
        model = fit(quercus.DecisionTreeClassifier(algorithm="c4.5"))
        assert model.to_bytes() == same.to_bytes(), how
        for rows in (features, reader(features), Capsule(features), features.to_batches()[0]):
            assert model.predict(rows).tolist() == expected.predict(X).tolist(), how
        np.testing.assert_array_equal(model.predict_proba(features), expected.predict_proba(X))


def test_arrow_weights_and_a_regression_target():
    frame = melons()
    weights = np.linspace(0.5, 2.0, frame.height)
    X = frame.drop("ripe", "sugar")
    expected = quercus.DecisionTreeRegressor(max_depth=3).fit(
        X, frame["sugar"].rename(""), sample_weight=weights
    )
    model = quercus.DecisionTreeRegressor(max_depth=3).fit(
        X.to_arrow(), frame["sugar"].to_arrow(), sample_weight=pa.array(weights)
    )
    assert model.to_bytes() == expected.to_bytes()
    np.testing.assert_array_equal(model.predict(X.to_arrow()), expected.predict(X))


def test_an_arrow_error_names_the_column():
    table = pa.table({"when": pa.array([1, 2, 3], pa.duration("s")), "y": ["a", "b", "a"]})
    with pytest.raises((TypeError, ValueError), match="column 'lists'"):
        quercus.DecisionTreeClassifier().fit(
            pa.table({"lists": pa.array([[1], [2], [3]]), "y": ["a", "b", "a"]}), target="y"
        )
    model = quercus.DecisionTreeClassifier().fit(table, target="y")  # durations are numbers
    assert model.feature_names_in_.tolist() == ["when"]


def test_a_duckdb_relation_fits_and_predicts_and_runs_the_sql():
    duckdb = pytest.importorskip("duckdb", reason="the DuckDB relation input needs duckdb")
    frame = melons()
    expected = quercus.DecisionTreeClassifier(algorithm="cart").fit(frame, target="ripe")
    connection = duckdb.connect()
    connection.register("melons", frame.to_arrow())
    relation = connection.sql("SELECT * FROM melons")
    model = quercus.DecisionTreeClassifier(algorithm="cart").fit(relation, target="ripe")
    assert model.to_bytes() == expected.to_bytes()
    features = connection.sql("SELECT * EXCLUDE (ripe) FROM melons")
    assert model.predict(features).tolist() == expected.predict(frame.drop("ripe")).tolist()
    # the round trip: the tree as SQL, run by DuckDB on the same rows
    answered = connection.sql(model.to_sql("melons")).fetchall()
    assert [row[0] for row in answered] == expected.predict(frame.drop("ripe")).tolist()
