"""A pandas frame is read in place by the core as a Polars one is (`_validation.pandas_rows`):
float columns as they are, integer columns as float64, and `category` columns as their codes
through a map from the dtype's categories to the fit's (pandas's missing code, -1, read as
unsigned, is past every category). Its predictions must equal the column encoding's (through
Polars) bit for bit, for one row or many, with unseen, absent or reordered categories, nulls,
8-, 16- and 32-bit codes and ordered categoricals; what that encoding refuses is refused alike.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from quercus import DecisionTreeClassifier, DecisionTreeRegressor
from quercus.inputs.rows import pandas_rows

COLOURS = ["red", "green", "blue", "teal", "plum"]
SIZES = ["S", "M", "L", "XL"]
CITIES = [f"city{k}" for k in range(300)]  # 16-bit codes


def frame(n: int, seed: int, colours: list[str] = COLOURS) -> pd.DataFrame:
    """Numbers with NaN, integers, and nominal and ordered categories with missing values."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=n), 1)
    x[rng.random(n) < 0.1] = np.nan
    colour = pd.Categorical(rng.choice(colours, n), categories=colours)
    colour[rng.random(n) < 0.1] = np.nan
    city = pd.Categorical(rng.choice(CITIES, n), categories=CITIES)
    city[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame(
        {
            "x": x,
            "count": rng.integers(0, 9, n),
            "colour": colour,
            "size": pd.Categorical(rng.choice(SIZES[:3], n), categories=SIZES[:3], ordered=True),
            "city": city,
            "w": rng.normal(size=n).astype(np.float32),
        }
    )


def target(X: pd.DataFrame) -> np.ndarray:
    colour = X["colour"].isin(["red", "teal"]).to_numpy()
    city = X["city"].cat.codes.to_numpy() % 7 < 3
    return (np.nan_to_num(X["x"].to_numpy()) > 0.2).astype(int) + colour + city


@pytest.fixture(scope="module")
def models() -> list:
    train = frame(4000, seed=0)
    y = target(train)
    fitted = [
        DecisionTreeClassifier(algorithm=algorithm, missing=missing, max_depth=10).fit(train, y)
        for algorithm, missing in [
            ("cart", "learned"),
            ("cart", "surrogate"),
            ("cart", "fractional"),
            ("c4.5", "separate"),
        ]
    ]
    return [*fitted, DecisionTreeRegressor(algorithm="cart").fit(train, y * 1.5)]


def same_as_encoded(model, test: pd.DataFrame) -> None:
    """`model` predicts `test` read in place as the column encoding of `test` predicts, bit
    for bit, at every thread count."""
    rows = model._rows(test)
    assert rows[0] == "frame" and rows[2] is test  # read in place, not through Polars
    columns = model._columns(test)
    core = model.tree_.core
    for n_jobs in (1, 3, None):
        model.set_params(n_jobs=n_jobs)
        if isinstance(model, DecisionTreeClassifier):
            np.testing.assert_array_equal(model.predict_proba(test), core.predict_proba(columns))
            np.testing.assert_array_equal(
                model.predict(test), model.classes_[core.predict_class(columns)]
            )
        else:
            np.testing.assert_array_equal(model.predict(test), core.predict_value(columns))
        np.testing.assert_array_equal(model.apply(test), core.apply(columns))
        assert (model.decision_path(test) != model.tree_.decision_path(columns)).nnz == 0


@pytest.mark.parametrize("n", [1, 2, 16, 17, 20_000])
def test_pandas_frames_predict_as_their_encoding(models, n: int) -> None:
    test = frame(n, seed=1)
    for model in models:
        same_as_encoded(model, test)


def test_nullable_and_arrow_numbers_are_read_without_polars(models) -> None:
    """pandas's nullable numbers (NA where NaN was) and pyarrow-backed ones (with nulls,
    read through their bitmap) predict as the NumPy columns do, read by the pandas path."""
    test = frame(20_000, seed=5)
    nullable = test.astype({"x": "Float64", "count": "Int64", "w": "Float32"})
    nullable.loc[nullable.index[::11], "count"] = pd.NA
    assert nullable["x"].isna().sum() == test["x"].isna().sum() > 0
    variants = [nullable, nullable.iloc[3:15_000]]
    pa = pytest.importorskip("pyarrow", reason="Arrow buffers and dtypes are pyarrow objects")
    arrow = test.astype({"x": pd.ArrowDtype(pa.float64()), "w": pd.ArrowDtype(pa.float32())})
    arrow["count"] = pd.array(nullable["count"], dtype=pd.ArrowDtype(pa.int16()))
    assert arrow["x"].isna().sum() == test["x"].isna().sum()
    halves = [pa.array(part, from_pandas=True) for part in np.split(test["x"].to_numpy(), [9000])]
    chunked = arrow.assign(x=pd.arrays.ArrowExtensionArray(pa.chunked_array(halves)))
    variants += [arrow, arrow.iloc[7:], chunked]
    for variant in variants:
        reference = variant.astype({"x": np.float64, "count": np.float64, "w": np.float32})
        for model in models:
            same_as_encoded(model, variant)
            np.testing.assert_array_equal(model.predict(variant), model.predict(reference))


def test_unseen_absent_and_reordered_categories(models) -> None:
    test = frame(5000, seed=2, colours=[*COLOURS, "mauve"])  # mauve: unseen at fit
    variants = [
        test,
        # The fit's categories in another order, with one more.
        test.assign(colour=test["colour"].cat.set_categories(["mauve", *COLOURS[::-1]])),
        # A dtype that lacks a category of the fit's (red rows become missing).
        test.assign(colour=test["colour"].cat.remove_categories(["red"])),
        # An ordered column whose categories come in another order, with one unseen.
        test.assign(size=test["size"].cat.set_categories(["XL", "L", "M", "S"], ordered=True)),
        # Integers as categories (read as their text, as at fit).
        test.assign(size=test["size"].cat.rename_categories({"S": 0, "M": 1, "L": 2})),
        test.iloc[1000:4000],  # an offset into the buffers
        test[["w", "city", "size", "x", "colour", "count"]],  # columns in another order
    ]
    for model in models:
        for variant in variants:
            same_as_encoded(model, variant)


def test_code_widths_and_missing_codes() -> None:
    """pandas gives 8-bit codes below 128 categories, 16-bit below 32,768 and 32-bit above;
    each, with -1 for missing, reads as missing and never as a category."""
    rng = np.random.default_rng(5)
    n = 3000
    for count in (5, 300, 40_000):
        labels = [f"k{j}" for j in range(count)]
        codes = rng.integers(-1, count, n)
        X = pd.DataFrame({"k": pd.Categorical.from_codes(codes, categories=labels)})
        y = (codes % 3 == 0).astype(int) + (codes < 0)
        model = DecisionTreeClassifier(algorithm="cart", missing="learned").fit(X, y)
        rows = pandas_rows(X, model._state.schema)
        assert rows is not None
        assert rows[1][0][1].dtype == np.dtype(f"u{X['k'].cat.codes.dtype.itemsize}")
        same_as_encoded(model, X)
        np.testing.assert_array_equal(model.predict(X), y)


def test_code_maps_are_made_once_per_dtype(models) -> None:
    model = models[0]
    reordered = frame(1, seed=3).assign(
        colour=lambda X: X["colour"].cat.reorder_categories(COLOURS[::-1])
    )
    first, again = model._rows(reordered), model._rows(reordered.copy())
    assert first[0] == "frame"
    colour = model._state.schema.names.index("colour")
    code_map = first[1][colour][2]
    assert code_map.tolist() == [4, 3, 2, 1, 0]
    assert again[1][colour][2] is code_map
    assert first[1][model._state.schema.names.index("city")][2] is None  # the fit's own


def test_what_the_encoding_refuses_is_refused_alike(models) -> None:
    model = models[0]
    test = frame(40, seed=4)
    with pytest.raises(ValueError, match="column 'w' has an infinite value at row 30"):
        model.predict(test.assign(w=test["w"].where(test.index != 30, np.inf)))
    with pytest.raises(ValueError, match="lacks the column"):
        model.predict(test.drop(columns="city"))
    with pytest.raises(TypeError, match="column 'x' was numeric at fit but is categorical"):
        model.predict(test.assign(x=test["x"].astype("category")))
    # A column only the encoding reads (float16 numbers) still predicts alike; one it
    # refuses (objects not all strings) is refused with its words.
    variant = test.assign(count=test["count"].astype(np.float16))
    assert pandas_rows(variant, model._state.schema) is None
    np.testing.assert_array_equal(model.predict_proba(variant), model.predict_proba(test))
    mixed = test.assign(colour=test["colour"].astype(object))
    mixed.loc[mixed["colour"] == "red", "colour"] = 7
    assert pandas_rows(mixed, model._state.schema) is None
    with pytest.raises(TypeError, match=r"'colour' .* must be all numbers or all strings"):
        model.predict(mixed)
    as_bytes = test.assign(colour=test["colour"].astype(str).str.encode("ascii"))
    assert pandas_rows(as_bytes, model._state.schema) is None  # bytes are not text
    with pytest.raises(TypeError, match="'colour' has unsupported dtype Binary"):
        model.predict(as_bytes)


def test_categories_in_another_order_keep_their_labels() -> None:
    """An unordered pandas dtype equals (and hashes as) its categories in another order; the
    codes of each must still read as their own labels, at fit and at prediction."""
    ab = pd.DataFrame({"k": pd.Categorical(["a", "b"] * 50, categories=["a", "b"])})
    ba = pd.DataFrame({"k": pd.Categorical(["a", "b"] * 50, categories=["b", "a"])})
    assert ab["k"].dtype == ba["k"].dtype
    y = np.array([0, 1] * 50)
    for first, second in ((ab, ba), (ba, ab)):
        model = DecisionTreeClassifier().fit(first, y)
        np.testing.assert_array_equal(model.predict(second), y)
        np.testing.assert_array_equal(model.predict(second.iloc[:1]), y[:1])
        refit = DecisionTreeClassifier().fit(second, y)
        np.testing.assert_array_equal(refit.predict(first), y)


def _unaligned(values: np.ndarray) -> np.ndarray:
    """A copy of `values` one byte off its dtype's alignment, as a frame unpickled from a
    buffer (Dask's transfers) can hold."""
    raw = np.zeros(values.nbytes + 1, dtype=np.uint8)
    out = raw[1:].view(values.dtype).reshape(values.shape)
    out[...] = values
    assert not out.flags.aligned
    return out


def test_unaligned_arrays_are_read_like_aligned_ones():
    rng = np.random.default_rng(3)
    X = rng.random((300, 3))
    y = (X[:, 0] + X[:, 1] > 1).astype(float)
    w = rng.random(300) + 0.5
    expected = DecisionTreeClassifier(max_depth=4).fit(X, y, sample_weight=w)
    got = DecisionTreeClassifier(max_depth=4).fit(
        _unaligned(X), _unaligned(y), sample_weight=_unaligned(w)
    )
    assert got.to_bytes() == expected.to_bytes()
    frame = pd.DataFrame({f"x{j}": _unaligned(X[:, j].copy()) for j in range(3)}, copy=False)
    aligned = pd.DataFrame({f"x{j}": X[:, j] for j in range(3)})
    model = DecisionTreeClassifier(max_depth=4).fit(aligned, y)
    np.testing.assert_array_equal(model.predict(frame), model.predict(aligned))
    np.testing.assert_array_equal(expected.predict(_unaligned(X)), expected.predict(X))


def test_small_float_frames_read_as_one_matrix() -> None:
    """A few rows of float columns in fit order are read as one matrix: the same answers as
    the NumPy matrix and the Polars frame, whatever the slice, with NaN; reordered columns
    and infinities still go through the column reading (and its messages)."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(400, 5)), columns=list("abcde"))
    X["b"] = X["b"].astype(np.float32)
    X.loc[rng.random(400) < 0.1, "c"] = np.nan
    y = (X["a"] + X["c"].fillna(0) > 0).to_numpy()
    model = DecisionTreeClassifier(max_depth=5).fit(X, y)
    for start in range(0, 400, 37):
        rows = X.iloc[start : start + 16]
        expected = model.predict_proba(rows.to_numpy())
        np.testing.assert_array_equal(model.predict_proba(rows), expected)
        np.testing.assert_array_equal(model.predict_proba(rows[list("edcba")]), expected)
        np.testing.assert_array_equal(model.predict_proba(pl.from_pandas(rows)), expected)
    infinite = X.iloc[:2].copy()
    infinite.iloc[1, 3] = np.inf
    with pytest.raises(ValueError, match="column 'd' has an infinite value"):
        model.predict(infinite)


def test_a_category_column_of_booleans_is_the_boolean_feature():
    """A pandas `category` column of truth values and a bool column are one feature: its
    labels read "false" / "true" either way (they once read "False" / "True" from the
    categories, which a fit on a bool column had never seen: every row then went as missing,
    with no error)."""
    rng = np.random.default_rng(0)
    flag, x = rng.random(300) < 0.5, rng.random(300)
    y = np.where(flag, "a", "b")
    as_category = pd.DataFrame({"flag": pd.Series(flag).astype("category"), "x": x})
    as_bool = pd.DataFrame({"flag": flag, "x": x})
    for fitted_on in (pl.DataFrame({"flag": flag, "x": x}), as_bool, as_category):
        model = DecisionTreeClassifier(max_depth=2).fit(fitted_on, y)
        assert "flag = true" in model.export_text()
        for given in (as_category, as_bool, pl.from_pandas(as_bool)):
            np.testing.assert_array_equal(model.predict(given), y)
        np.testing.assert_array_equal(model.predict(as_category.iloc[:1]), y[:1])


def test_sparse_columns_fit_and_predict_as_their_dense_values() -> None:
    """A pandas column of a `Sparse` dtype (numbers with its fill value, numbers with NaN,
    categories) is read as its dense values, at fit and at predict: the same tree, to the
    byte, as the dense frame's, and the same predictions from either frame."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    x[::3] = 0.0
    b = np.r_[[np.nan] * 5, x[5:]]
    c = pd.Categorical(rng.choice(["u", "v", "w"], 60))
    dense = pd.DataFrame({"a": x, "b": b, "c": c})
    sparse = pd.DataFrame(
        {
            "a": pd.arrays.SparseArray(x, fill_value=0.0),
            "b": pd.arrays.SparseArray(b),
            "c": pd.arrays.SparseArray(c),
        }
    )
    y = (x + (c == "u") > 0.2).astype(int)
    ours = DecisionTreeClassifier(random_state=0).fit(sparse, y)
    theirs = DecisionTreeClassifier(random_state=0).fit(dense, y)
    assert ours.to_bytes() == theirs.to_bytes()
    for frame in (sparse, dense):
        np.testing.assert_array_equal(ours.predict(frame), theirs.predict(dense))
    assert pandas_rows(sparse, ours._state.schema) is None  # the encoding reads it


def test_a_frame_without_columns_is_refused_with_its_shape() -> None:
    """pandas keeps the rows of a frame with no columns (Polars would not): the message
    gives scikit-learn's wording with the frame's own shape."""
    with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(10, 0\)\)"):
        DecisionTreeClassifier().fit(pd.DataFrame(index=range(10)), np.arange(10) % 2)
