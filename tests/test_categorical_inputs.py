"""Every categorical input kind predicts as the Enum frame of the same rows does, bit for bit
(quercus issue 38): Polars Enum, Categorical (global categories, a named one filled in
another order, one whose categories hold many strings before the fit's), String and Boolean
columns; pandas `category`; pyarrow tables and record batches of dictionary columns (one or
several chunks, dictionaries of their own order, null indices, unsigned indices), of plain
text and of text views. Unseen categories and nulls are missing in all of them. The kinds
with a fast path are read without a per-call cast of their rows (`frame_rows`,
`arrow_rows`, `pandas_rows`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from quercus import DecisionTreeClassifier, DecisionTreeRegressor
from quercus.inputs.code_maps import categorical_map

pa = pytest.importorskip("pyarrow", reason="the Arrow inputs are pyarrow objects")

COLOURS = ["red", "green", "blue", "teal", "plum"]
SEEN = [*COLOURS, "mauve"]  # mauve: unseen at fit
CITIES = [f"city{k}" for k in range(300)]
SIZES = ["S", "M", "L"]


def frame(n: int, seed: int, colours: list[str] = SEEN) -> pl.DataFrame:
    """Enum columns with nulls (colour, city), an ordinal Enum (size), a Boolean and numbers."""
    rng = np.random.default_rng(seed)

    def gaps(share: float) -> pl.Series:
        return pl.Series(rng.random(n) < share)

    return pl.DataFrame(
        {
            "x": rng.normal(size=n).round(1),
            "colour": pl.Series(rng.choice(colours, n), dtype=pl.Enum(SEEN)).set(gaps(0.1), None),
            "city": pl.Series(rng.choice(CITIES, n), dtype=pl.Enum(CITIES)).set(gaps(0.05), None),
            "size": pl.Series(rng.choice(SIZES, n), dtype=pl.Enum(SIZES)),
            "flag": pl.Series(rng.random(n) < 0.4).set(gaps(0.05), None),
        }
    )


def target(X: pl.DataFrame) -> np.ndarray:
    colour = X["colour"].fill_null("red").is_in(["red", "teal"]).to_numpy()
    city = X["city"].to_physical().fill_null(0).to_numpy() % 7 < 3
    flag = X["flag"].fill_null(False).to_numpy()
    return (X["x"].to_numpy() > 0.2).astype(int) + colour + city + flag


NOMINAL = ["colour", "city", "flag"]


@pytest.fixture(scope="module")
def models() -> list:
    train = frame(4000, seed=0, colours=COLOURS)
    y = target(train)
    return [
        DecisionTreeClassifier(missing="learned", ordinal_features=["size"]).fit(train, y),
        DecisionTreeClassifier(algorithm="c4.5", missing="fractional", max_depth=8).fit(train, y),
        DecisionTreeRegressor(missing="surrogate", max_depth=10).fit(train, y * 1.5),
    ]


@pytest.fixture(scope="module")
def test() -> pl.DataFrame:
    return frame(20_000, seed=1)


def predicted(model, X) -> np.ndarray:
    if isinstance(model, DecisionTreeClassifier):
        return model.predict_proba(X)
    return model.predict(X)


def same_as_enum(models: list, X, enum: pl.DataFrame, fast: bool = True) -> None:
    """Every model predicts X as the column encoding of the Enum frame `enum` (the same rows),
    on one thread and on several; with `fast`, X is read in place, not encoded."""
    for model in models:
        if fast:
            assert model._rows(X)[0] == "frame"
        columns = model._columns(enum)
        core = model.tree_.core
        expected = (
            core.predict_proba(columns)
            if isinstance(model, DecisionTreeClassifier)
            else core.predict_value(columns)
        )
        for n_jobs in (1, 3):
            model.set_params(n_jobs=n_jobs)
            np.testing.assert_array_equal(predicted(model, X), expected)
        np.testing.assert_array_equal(model.apply(X), core.apply(columns))


def test_polars_kinds_predict_as_the_enum(models, test) -> None:
    as_text = test.with_columns(pl.col("colour", "city").cast(pl.String))
    # Categories named for this test, filled in an order of their own first.
    named = pl.Categories("quercus-test-reversed")
    keep = pl.Series([*reversed(CITIES), "zzz", *reversed(SEEN)], dtype=pl.Categorical(named))
    variants = [
        test,
        as_text,
        as_text.with_columns(pl.col("colour", "city").cast(pl.Categorical)),
        as_text.with_columns(pl.col("colour", "city").cast(pl.Categorical(named))),
        as_text.with_columns(pl.col("colour", "city", "size").cast(pl.Categorical)),
        # Other Enum orders, with categories the fit never saw.
        test.with_columns(
            pl.col("colour").cast(
                pl.Enum(["plum", "mauve", "other", "teal", "blue", "red", "green"])
            ),
            pl.col("size").cast(pl.Enum(["XL", "L", "M", "S"])),
        ),
        pl.concat([as_text.head(7000), as_text.tail(13_000)], rechunk=False),  # two chunks
        as_text.with_columns(pl.col("colour").cast(pl.Categorical)).slice(1000, 5000),
    ]
    for X in variants:
        same_as_enum(models, X, test if X.height == test.height else test.slice(1000, 5000))
    # A column that has only unseen categories and nulls.
    unseen = test.with_columns(colour=pl.Series(["mauve", None] * 10_000, dtype=pl.Categorical))
    same_as_enum(models, unseen, unseen.with_columns(pl.col("colour").cast(pl.Enum(SEEN))))
    del keep


def test_a_categorical_with_a_huge_categories_predicts_as_the_enum(models, test) -> None:
    """The fit's categories come after 200,000 other strings in the global categories and in
    a named one: a frame of few rows is cast through the fit's Enum (a map of the physical
    codes would be longer than a pass over its rows), a larger one read through the map."""
    named = pl.Categories("quercus-test-huge")
    fillers = [f"filler-{k}" for k in range(200_000)]
    keep = [
        pl.Series(fillers, dtype=pl.Categorical(named)),
        pl.Series(fillers, dtype=pl.Categorical),
    ]
    labels = (*CITIES, "city-unseen")
    given = pl.Series(list(labels), dtype=pl.Categorical(named)).dtype.categories
    assert categorical_map(tuple(CITIES), given, n_rows=1000) is None
    code_map = categorical_map(tuple(CITIES), given, n_rows=50_000)
    # As long as the largest code of the fit's: the unseen label's code is past the map.
    assert code_map is not None and len(code_map) == given["city299"] + 1 > 200_000
    assert code_map[given["city7"]] == 7 and given["city-unseen"] >= len(code_map)
    for categories in (named, None):
        dtype = pl.Categorical if categories is None else pl.Categorical(categories)
        X = test.with_columns(pl.col("colour", "city").cast(pl.String).cast(dtype))
        same_as_enum(models, X, test)
        same_as_enum(models, X.head(1000), test.head(1000))
    del keep


def test_pandas_categories_in_another_order_predict_as_the_enum(models, test) -> None:
    pandas = test.to_pandas()
    pandas["colour"] = pandas["colour"].astype(pd.CategoricalDtype([*reversed(SEEN), "other"]))
    pandas["city"] = pandas["city"].astype(pd.CategoricalDtype(CITIES[::-1]))
    pandas["size"] = pandas["size"].astype(pd.CategoricalDtype(SIZES))
    pandas["flag"] = pandas["flag"].map({False: "false", True: "true"}).astype("category")
    same_as_enum(models, pandas, test)


def dictionary_table(X: pl.DataFrame) -> pa.Table:
    """X's categorical columns as Arrow dictionaries (int16 indices, as pandas makes them)."""
    return pa.Table.from_pandas(X.to_pandas(), preserve_index=False)


def encoded(X: pl.DataFrame) -> pa.Table:
    """X's text columns as Arrow dictionaries of the labels in the order they first occur."""
    table = X.to_arrow()
    for i, field in enumerate(table.schema):
        if pa.types.is_large_string(field.type):
            table = table.set_column(i, field.name, table.column(i).dictionary_encode())
    return table


def test_arrow_dictionaries_predict_as_the_enum(models, test) -> None:
    with_text_flag = test.with_columns(pl.col("flag").cast(pl.String))
    table = dictionary_table(with_text_flag)
    assert pa.types.is_dictionary(table.schema.field("city").type)
    same_as_enum(models, table, test)
    same_as_enum(models, table.to_batches()[0], test)  # a RecordBatch
    # Chunks with dictionaries of their own (in the order of their rows), and null indices.
    text = with_text_flag.with_columns(pl.col("colour", "city", "size").cast(pl.String))
    parts = [encoded(text.slice(start, 5000)) for start in range(0, 20_000, 5000)]
    chunked = pa.concat_tables(parts)
    colour = chunked.column("colour")
    assert colour.num_chunks == 4 and colour.chunk(0).dictionary != colour.chunk(1).dictionary
    same_as_enum(models, chunked, test)
    # Unsigned and 64-bit indices, a dictionary in another order with a null label.
    colour = table.column("colour").combine_chunks()
    order = pa.array(["zzz", None, *reversed(SEEN)])
    position = {label: k for k, label in enumerate(order.to_pylist())}
    where = [position[label] if label else None for label in colour.dictionary.to_pylist()]
    remapped = pa.array(where, pa.int64()).take(colour.indices)
    for index_type in (pa.uint8(), pa.int64()):
        indices = remapped.cast(index_type)
        column = pa.DictionaryArray.from_arrays(indices, order)
        same_as_enum(models, table.set_column(1, "colour", column), test)
    # Plain text (string and large_string).
    text = text.to_arrow()
    same_as_enum(models, text, test)
    narrow = [f.with_type(pa.string()) if f.type == pa.large_string() else f for f in text.schema]
    same_as_enum(models, text.cast(pa.schema(narrow)), test)


def test_arrow_text_views_predict_as_the_enum(models, test) -> None:
    text = test.with_columns(pl.col(pl.Enum).cast(pl.String), pl.col("flag").cast(pl.String))
    views = text.to_arrow(compat_level=pl.CompatLevel.newest())
    assert views.schema.field("colour").type == pa.string_view()
    same_as_enum(models, views, test)
    chunked = pa.concat_tables([views.slice(0, 7000), views.slice(7000)])
    same_as_enum(models, chunked, test)


def test_arrow_tables_the_fast_path_declines_predict_alike(models, test) -> None:
    """A Boolean column goes through Polars."""
    table = dictionary_table(test)
    assert pa.types.is_boolean(table.schema.field("flag").type)
    same_as_enum(models, table, test, fast=False)


def test_string_columns_are_read_as_their_views(models, test) -> None:
    """A String column reaches the core as its Arrow string views: labels of more than 12
    bytes (in the views' data buffers, several of them), the empty label, nulls, an offset
    into the buffers, and a label the fit never saw."""
    long = [f"a category label of more than twelve bytes, number {k}" for k in range(40)]
    labels = ["", "short", *long]
    rng = np.random.default_rng(5)
    n = 30_000
    train = pl.DataFrame(
        {
            "x": rng.normal(size=n),
            "label": pl.Series(rng.choice(labels, n), dtype=pl.Enum(labels)),
        }
    )
    y = (train["label"].to_physical().to_numpy() % 3) + (train["x"].to_numpy() > 0)
    fitted = [
        DecisionTreeClassifier(max_depth=8).fit(train, y),
        DecisionTreeClassifier(algorithm="c4.5", missing="fractional").fit(train, y),
    ]
    values = pl.Series(rng.choice([*labels, "never seen"], n)).set(
        pl.Series(rng.random(n) < 0.05), None
    )
    text = train.with_columns(label=values)
    enum = text.with_columns(pl.col("label").cast(pl.Enum([*labels, "never seen"])))
    column = fitted[0]._rows(text)[1][1]
    assert column[0] == "text" and len(column[3]) > 2  # several data buffers
    same_as_enum(fitted, text, enum)
    same_as_enum(fitted, text.slice(777, 20_000), enum.slice(777, 20_000))
    no_nulls = text.drop_nulls()
    assert fitted[0]._rows(no_nulls)[1][1][5] is None  # no validity bitmap
    same_as_enum(fitted, no_nulls, enum.drop_nulls())
