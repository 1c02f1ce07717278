"""A Polars (or pandas) frame of more than `SMALL_FRAME` rows is read in place by the core:
Float32/Float64 columns as they are, categories as the frame's own physical codes through a
map to the fit's codes (`_validation.frame_rows`). Its predictions must equal the column
encoding's bit for bit whatever the input dtypes (Enum in the fit's order or another, with
unseen or absent categories, with nulls, Categorical, String, Boolean, integers, Float32),
thread count or output, and whatever that encoding refuses it must refuse alike."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from helpers import to_pandas

from quercus import DecisionTreeClassifier, DecisionTreeRegressor
from quercus.inputs.code_maps import labels_map
from quercus.inputs.rows import SMALL_FRAME

COLOURS = ["red", "green", "blue", "teal", "plum"]
SIZES = ["S", "M", "L"]
# Enough categories for 16-bit codes: the first 300 are the fit's.
CITIES = [f"city{k}" for k in range(300)]


def frame(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=n), 1)
    x[rng.random(n) < 0.1] = np.nan
    count = pl.Series("count", rng.integers(0, 9, n)).set(pl.Series(rng.random(n) < 0.1), None)
    colour = rng.choice([*COLOURS, "mauve"], n)  # mauve: unseen when fitted without it
    city = rng.choice(CITIES, n)
    return pl.DataFrame(
        {
            "x": x,
            "count": count,
            "colour": pl.Series(colour).set(pl.Series(rng.random(n) < 0.1), None),
            "size": pl.Series(rng.choice(SIZES, n), dtype=pl.Enum(SIZES)),
            "flag": rng.random(n) < 0.4,
            "city": pl.Series(city, dtype=pl.Enum(CITIES)).set(
                pl.Series(rng.random(n) < 0.05), None
            ),
        }
    )


def target(X: pl.DataFrame) -> np.ndarray:
    colour = X["colour"].fill_null("red").is_in(["red", "teal"]).to_numpy()
    city = X["city"].to_physical().fill_null(0).to_numpy() % 7 < 3
    return (np.nan_to_num(X["x"].to_numpy()) > 0.2).astype(int) + colour + city


@pytest.fixture(scope="module")
def train() -> pl.DataFrame:
    X = frame(4000, seed=0)
    return X.filter(pl.col("colour") != "mauve")


MODELS = [
    ("cart", "learned"),
    ("cart", "surrogate"),
    ("cart", "fractional"),
    ("cart", "majority_branch"),
    ("c4.5", "fractional"),
    ("c4.5", "separate"),
]


def same_as_columns(model, test: pl.DataFrame | pd.DataFrame, reference: pl.DataFrame) -> None:
    """`model` predicts `test` (read in place) as the column encoding of `reference` (the
    same rows) predicts, bit for bit, at every thread count."""
    rows = model._rows(test)
    assert isinstance(rows, tuple) and rows[0] == "frame"
    columns = model._columns(reference)
    core = model.tree_.core
    for n_jobs in (1, 3, None):
        model.set_params(n_jobs=n_jobs)
        if isinstance(model, DecisionTreeClassifier):
            np.testing.assert_array_equal(model.predict_proba(test), core.predict_proba(columns))
        else:
            np.testing.assert_array_equal(model.predict(test), core.predict_value(columns))
        np.testing.assert_array_equal(model.apply(test), core.apply(columns))
        assert (model.decision_path(test) != model.tree_.decision_path(columns)).nnz == 0


@pytest.mark.parametrize(("algorithm", "missing"), MODELS)
def test_frames_predict_as_their_columns(train, algorithm: str, missing: str) -> None:
    y = target(train)
    clf = DecisionTreeClassifier(
        algorithm=algorithm, missing=missing, ordinal_features=["size"], max_depth=10
    ).fit(train, y)
    test = frame(20_000, seed=1)
    same_as_columns(clf, test, test)
    if algorithm == "cart":
        reg = DecisionTreeRegressor(algorithm="cart", missing=missing).fit(train, y * 1.5)
        same_as_columns(reg, test, test)


def test_every_input_dtype_reads_as_its_labels(train) -> None:
    clf = DecisionTreeClassifier(
        algorithm="cart", missing="learned", ordinal_features=["size"]
    ).fit(train, target(train))
    test = frame(5000, seed=2)
    # Another order, and categories the fit never saw.
    colours = pl.Enum(["plum", "mauve", "teal", "blue", "red", "green", "other"])
    sizes = pl.Enum(["L", "M", "S", "XL"])
    variants = [
        test.with_columns(pl.col("colour").cast(colours), pl.col("size").cast(sizes)),
        test.with_columns(pl.col("colour").cast(pl.Categorical), pl.col("city").cast(pl.String)),
        test.with_columns(pl.col("x").cast(pl.Float32), pl.col("count").cast(pl.Int8)),
        test.with_columns(pl.col("x").fill_nan(None)),  # a null where NaN was
        test.select("city", "flag", "size", "x", "colour", "count", z=pl.lit(1)),  # reordered
        pl.concat([test.head(2500), test.tail(2500)], rechunk=False),  # two chunks
        test.slice(1000, 3000),  # an offset into the buffers
    ]
    for variant in variants:
        same_as_columns(clf, variant, variant)
    # An Enum that lacks a category of the fit's ("red").
    without_red = test.filter(pl.col("colour").ne_missing("red"))
    lacking = pl.Enum(["plum", "mauve", "teal", "blue", "green"])
    same_as_columns(clf, without_red.with_columns(pl.col("colour").cast(lacking)), without_red)
    # A pandas frame with `category` columns is an Enum frame.
    pandas = to_pandas(test.with_columns(pl.col("x").fill_nan(None)))
    for name in ("colour", "city"):
        pandas[name] = pandas[name].astype("category")
    same_as_columns(clf, pandas, test)


def test_float32_numbers_and_16_bit_codes_are_read_in_place(train) -> None:
    clf = DecisionTreeClassifier(algorithm="cart").fit(train, target(train))
    test = frame(3000, seed=3).with_columns(pl.col("x").cast(pl.Float32)).drop_nulls("city")
    columns = clf._rows(test)[1]
    x, city = columns[0][1], columns[5][1]
    assert x.dtype == np.float32 and np.shares_memory(x, test["x"].to_numpy())
    assert city.dtype == np.uint16
    assert columns[5][2] is None  # the fit's own Enum: no map


def test_nulls_are_read_through_their_bitmaps_whatever_their_slots_hold(train, monkeypatch) -> None:
    """A column with nulls is passed in place with its validity bitmap (no filled copy); a
    null's slot reads as missing whatever a producer left in it (an infinity, a number; the
    core's tests put seen categories' codes there too), and without pyarrow the filled copy
    predicts the same."""
    pa = pytest.importorskip("pyarrow", reason="Arrow buffers and dtypes are pyarrow objects")
    clf = DecisionTreeClassifier(algorithm="cart", missing="learned", max_depth=10).fit(
        train, target(train)
    )
    test = frame(6000, seed=4).with_columns(pl.col("x").fill_nan(None))
    columns = clf._rows(test)[1]
    x, city = columns[0], columns[5]
    assert len(x) == 4 and x[2] is not None
    assert x[1].ctypes.data == test["x"].to_arrow().buffers()[1].address  # not copied
    assert len(city) == 6 and city[4] is not None

    def dirty(series: pl.Series, slot: object) -> pl.Series:
        """`series` with the slots of its nulls overwritten by `slot`, nulls kept."""
        array = series.to_arrow()
        values = np.array(array.fill_null(slot).to_numpy(zero_copy_only=False))
        validity = array.buffers()[0]
        rebuilt = pa.Array.from_buffers(
            array.type, len(array), [validity, pa.py_buffer(values)], array.null_count
        )
        return pl.Series(series.name, rebuilt)

    dirty_test = test.with_columns(
        dirty(test["x"], np.inf), dirty(test["count"].cast(pl.Float64), 1e300).alias("count")
    )
    assert dirty_test["x"].null_count() == test["x"].null_count() > 0
    slots = np.frombuffer(dirty_test["x"].to_arrow().buffers()[1], dtype=np.float64)
    assert np.isinf(slots).sum() == test["x"].null_count()
    same_as_columns(clf, dirty_test, test)
    same_as_columns(clf, dirty_test.slice(1234, 3000), test.slice(1234, 3000))
    narrow = test.with_columns(pl.col("x").cast(pl.Float32))  # float32 numbers with nulls
    assert clf._rows(narrow)[1][0][1].dtype == np.float32
    same_as_columns(clf, narrow, narrow)
    # Without pyarrow, the nulls are filled in Polars first.
    monkeypatch.setattr(pl.Series, "to_arrow", _no_pyarrow)
    columns = clf._rows(test)[1]
    assert len(columns[0]) == 2 and len(columns[5]) == 4
    same_as_columns(clf, test, test)


def test_text_of_every_layout_reads_as_its_labels(train) -> None:
    """Text columns read in place, whatever holds them: Arrow strings by 32- or 64-bit
    offsets, string views or dictionaries (sliced, in several chunks), pandas `object`
    columns of strings, `string` and pyarrow-backed strings; labels short and longer than a
    view, with nulls and labels the fit never saw."""
    pa = pytest.importorskip("pyarrow", reason="Arrow buffers and dtypes are pyarrow objects")

    def longer(frame: pl.DataFrame) -> pl.DataFrame:
        """`colour`'s labels past a view's 12 bytes (teal's kept short)."""
        label = pl.col("colour")
        return frame.with_columns(
            pl.when(label == "teal").then(label).otherwise(label + " of a longer name")
        )

    fit = longer(train)
    clf = DecisionTreeClassifier(algorithm="cart", missing="learned").fit(fit, target(train))
    test = longer(frame(8000, seed=6))
    table = test.to_arrow()
    as_text = {"colour": pa.string(), "city": pa.large_string()}
    text = table.cast(
        pa.schema([pa.field(f.name, as_text.get(f.name, f.type)) for f in table.schema])
    )
    assert text.column("colour").null_count > 0
    # The same strings with each null's span holding a label of the fit's ("teal").
    colour = text.column("colour").combine_chunks()
    labels = [value or "teal" for value in colour.fill_null("teal").to_pylist()]
    offsets = np.cumsum([0, *(len(label.encode()) for label in labels)], dtype=np.int32)
    buffers = [colour.buffers()[0], pa.py_buffer(offsets), pa.py_buffer("".join(labels).encode())]
    dirty = pa.Array.from_buffers(pa.string(), len(colour), buffers, colour.null_count)
    dirty_text = text.set_column(text.schema.get_field_index("colour"), "colour", dirty)
    views = table.cast(
        pa.schema(
            [
                pa.field(f.name, pa.string_view() if f.name == "colour" else f.type)
                for f in table.schema
            ]
        )
    )
    chunked = pa.concat_tables([text.slice(0, 3000), text.slice(3000)])

    def dictionary(table: object) -> object:
        """`table` with colour dictionary-encoded (its own dictionary per table), the slots of
        its nulls pointing at every entry of the dictionary in turn."""
        encoded = table.column("colour").combine_chunks().dictionary_encode()
        indices = encoded.indices
        slots = np.array(indices.fill_null(0))
        nulls = np.flatnonzero(indices.is_null())
        slots[nulls] = np.arange(len(nulls)) % len(encoded.dictionary)
        dirty = pa.Array.from_buffers(
            indices.type, len(indices), [indices.buffers()[0], pa.py_buffer(slots)], len(nulls)
        )
        column = pa.DictionaryArray.from_arrays(dirty, encoded.dictionary)
        return table.set_column(table.schema.get_field_index("colour"), "colour", column)

    # Each chunk with a dictionary of its own (the second's in another order).
    parts = [
        dictionary(text.slice(0, 2500)),
        dictionary(text.slice(2500).take(pa.array(range(5499, -1, -1)))),
    ]
    two_dictionaries = pa.concat_tables(parts)
    reversed_test = pl.concat([test.slice(0, 2500), test.slice(2500).reverse()])
    for variant, reference in [
        (text, test),
        (dirty_text, test),
        (text.slice(101, 5000), test.slice(101, 5000)),
        (chunked, test),
        (views, test),
        (dictionary(text), test),
        (dictionary(text).slice(77, 4000), test.slice(77, 4000)),
        (two_dictionaries, reversed_test),
    ]:
        rows = clf._rows(variant)
        assert rows[0] == "frame" and rows[2] is variant  # read in place, not through Polars
        same_as_columns(clf, variant, reference)
    pandas = test.to_pandas()
    for dtype in (object, "string", "string[pyarrow]", pd.ArrowDtype(pa.large_string())):
        variant = pandas.astype({"colour": dtype, "city": dtype})
        assert clf._rows(variant)[2] is variant  # the pandas path, not through Polars
        same_as_columns(clf, variant, test)


def _no_pyarrow(*args: object, **kwargs: object) -> None:
    raise ImportError("pyarrow")


def test_code_maps_are_made_once_per_dtype() -> None:
    fit = ("a", "b", "c")
    first = labels_map(fit, ("c", "x", "a"))
    assert first is labels_map(fit, ("c", "x", "a"))
    assert first.tolist() == [2, 2**32 - 1, 0]
    assert labels_map(fit, fit) is None


def test_what_the_column_encoding_refuses_is_refused_alike(train) -> None:
    clf = DecisionTreeClassifier(algorithm="cart").fit(train, target(train))
    rows = frame(SMALL_FRAME + 20, seed=4)
    x = rows["x"].cast(pl.Float32).scatter(30, float("-inf"))
    with pytest.raises(ValueError, match="column 'x' has an infinite value at row 30"):
        clf.predict(rows.with_columns(x))
    count = rows["count"].cast(pl.Float64).scatter(3, float("inf"))
    with pytest.raises(ValueError, match="column 'count' has an infinite value at row 3"):
        clf.predict(rows.with_columns(count))
    with pytest.raises(TypeError, match="column 'colour' was categorical at fit but is numeric"):
        clf.predict(rows.with_columns(colour=pl.lit(3)))
    with pytest.raises(TypeError, match="column 'x' was numeric at fit but is categorical"):
        clf.predict(rows.with_columns(x=pl.lit("1.5")))
    with pytest.raises(ValueError, match="lacks the column"):
        clf.predict(rows.drop("city"))
