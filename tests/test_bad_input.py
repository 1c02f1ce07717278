"""Invalid input: a clear exception class and a message naming the problem, never a panic."""

from __future__ import annotations

import re
import sys
import warnings

import numpy as np
import polars as pl
import pytest
from helpers import to_pandas

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor, NotFittedError

RNG = np.random.default_rng(0)
X10 = RNG.normal(size=(10, 2))
Y10 = np.array(["a", "b"] * 5)
R10 = RNG.normal(size=10)
DF = pl.DataFrame({"density": X10[:, 0], "sugar": X10[:, 1]})


def clf(**kw):
    return DecisionTreeClassifier(**kw)


def reg(**kw):
    return DecisionTreeRegressor(**kw)


def with_value(a: np.ndarray, i: int, v) -> np.ndarray:
    a = a.astype(float).copy()
    a[i] = v
    return a


def weights(i: int, v: float) -> np.ndarray:
    w = np.ones(10)
    w[i] = v
    return w


def object_matrix_with(value, row: int, column: int) -> np.ndarray:
    """X10 as an object array with one cell replaced, and a None (read as NaN) before it."""
    X = X10.astype(object)
    X[0, column] = None
    X[row, column] = value
    return X


def pandas_frame(names):
    import pandas as pd

    return pd.DataFrame(X10, columns=names)


def pandas_with_a_string():
    frame = to_pandas(DF)
    frame["density"] = frame["density"].astype(object)
    frame.loc[3, "density"] = "n/a"
    return frame


def fitted_on_df():
    return clf().fit(DF, Y10)


def fitted_on_numpy():
    return clf().fit(X10, Y10)


ROW = r"\b{}\b"

CASES = [
    # empty data
    pytest.param(
        ValueError,
        [r"(?i)empty|0 rows|no rows|0 samples|no samples|zero"],
        lambda: clf().fit(np.empty((0, 2)), np.empty(0, dtype=str)),
        id="empty-rows-numpy",
    ),
    pytest.param(
        ValueError,
        [r"(?i)empty|0 columns|no columns|0 features|no features|zero"],
        lambda: clf().fit(np.empty((10, 0)), Y10),
        id="empty-columns-numpy",
    ),
    pytest.param(
        ValueError,
        [r"(?i)empty|0 rows|no rows|0 samples|no samples|zero"],
        lambda: clf().fit(DF.head(0), np.empty(0, dtype=str)),
        id="empty-rows-polars",
    ),
    pytest.param(
        ValueError,
        [r"(?i)empty|0 columns|no columns|0 features|no features|zero"],
        lambda: clf().fit(pl.DataFrame({"y": Y10}), target="y"),
        id="empty-columns-polars-target-only",
    ),
    # y of the wrong length: the message gives both lengths
    pytest.param(
        ValueError,
        [r"\b10\b", r"\b9\b"],
        lambda: clf().fit(X10, Y10[:9]),
        id="y-wrong-length",
    ),
    pytest.param(
        ValueError,
        [r"\b10\b", r"\b11\b"],
        lambda: reg().fit(DF, np.ones(11)),
        id="y-wrong-length-regressor",
    ),
    # bad targets: the first bad row is named
    pytest.param(
        ValueError,
        [r"(?i)nan|missing|finite", ROW.format(3)],
        lambda: reg().fit(X10, with_value(R10, 3, np.nan)),
        id="y-nan-regressor",
    ),
    pytest.param(
        ValueError,
        [r"(?i)inf|finite", ROW.format(4)],
        lambda: reg().fit(X10, with_value(R10, 4, np.inf)),
        id="y-inf-regressor",
    ),
    pytest.param(
        ValueError,
        [r"(?i)inf|finite", ROW.format(2)],
        lambda: reg().fit(X10, with_value(with_value(R10, 2, -np.inf), 6, np.nan)),
        id="y-first-bad-row-regressor",
    ),
    pytest.param(
        ValueError,
        [r"(?i)null|missing", ROW.format(1)],
        lambda: clf().fit(DF, pl.Series("y", ["a", None, "b", "a", "b", "a", "b", "a", "b", "a"])),
        id="y-null-polars",
    ),
    pytest.param(
        ValueError,
        [r"(?i)null|missing", ROW.format(5)],
        lambda: reg().fit(DF, pl.Series("y", [1.0, 2, 3, 4, 5, None, 7, 8, 9, 10])),
        id="y-null-polars-regressor",
    ),
    pytest.param(
        ValueError,
        [r"(?i)nan|missing|finite", ROW.format(7)],
        lambda: clf().fit(X10, with_value(np.arange(10) % 2, 7, np.nan)),
        id="y-nan-classifier",
    ),
    pytest.param(
        ValueError,
        [r"(?i)null|missing", ROW.format(2)],
        lambda: clf().fit(
            DF.with_columns(pl.Series("t", ["a", "b", None, "a", "b", "a", "b", "a", "b", "a"])),
            target="t",
        ),
        id="y-null-target-column",
    ),
    # infinite feature values: the column is named
    pytest.param(
        ValueError,
        [r"(?i)inf|finite", r"sugar", ROW.format(4)],
        lambda: clf().fit(
            DF.with_columns(pl.Series("sugar", with_value(X10[:, 1], 4, np.inf))), Y10
        ),
        id="inf-feature-polars",
    ),
    pytest.param(
        ValueError,
        [r"(?i)inf|finite", r"x1|column 1|feature 1"],
        lambda: clf().fit(np.column_stack([X10[:, 0], with_value(X10[:, 1], 6, -np.inf)]), Y10),
        id="neg-inf-feature-numpy",
    ),
    pytest.param(
        ValueError,
        [r"(?i)inf|finite", r"density"],
        lambda: fitted_on_df().predict(
            DF.with_columns(pl.Series("density", with_value(X10[:, 0], 0, np.inf)))
        ),
        id="inf-feature-at-predict",
    ),
    # columns at predict
    pytest.param(
        ValueError,
        [r"sugar"],
        lambda: fitted_on_df().predict(DF.select("density")),
        id="missing-column-at-predict",
    ),
    pytest.param(
        ValueError,
        [r"sugar"],
        lambda: fitted_on_df().predict_proba(DF.rename({"sugar": "sugar2"})),
        id="renamed-column-at-predict",
    ),
    pytest.param(
        ValueError,
        [r"\b2\b", r"\b3\b"],
        lambda: fitted_on_numpy().predict(np.ones((4, 3))),
        id="numpy-wrong-n-features-at-predict",
    ),
    pytest.param(
        TypeError,
        [r"density"],
        lambda: fitted_on_df().predict(DF.with_columns(pl.lit("high").alias("density"))),
        id="column-kind-changed-at-predict",
    ),
    # unsupported dtypes
    pytest.param(
        TypeError,
        [r"object", r"(?i)polars"],
        lambda: clf().fit(np.array([[1, "a"], [2, "b"]], dtype=object), np.array(["a", "b"])),
        id="object-numpy",
    ),
    pytest.param(
        TypeError,
        [r"(?i)<U1|str|unicode", r"(?i)polars"],
        lambda: clf().fit(np.array([["a"], ["b"]]), np.array(["a", "b"])),
        id="str-numpy",
    ),
    pytest.param(
        ValueError,  # scikit-learn's class and wording for complex data
        [r"Complex data not supported"],
        lambda: clf().fit(np.ones((4, 2), dtype=complex), np.array(["a", "b"] * 2)),
        id="complex-numpy",
    ),
    pytest.param(
        TypeError,
        [r"tags", r"(?i)list"],
        lambda: clf().fit(
            pl.DataFrame({"x": [1.0, 2.0], "tags": [[1, 2], [3]]}), np.array(["a", "b"])
        ),
        id="list-column",
    ),
    pytest.param(
        TypeError,
        [r"pt", r"(?i)struct"],
        lambda: clf().fit(
            pl.DataFrame({"x": [1.0, 2.0], "pt": [{"a": 1}, {"a": 2}]}), np.array(["a", "b"])
        ),
        id="struct-column",
    ),
    pytest.param(
        TypeError,
        [r"blob", r"(?i)binary"],
        lambda: clf().fit(pl.DataFrame({"blob": [b"a", b"b"]}), np.array(["a", "b"])),
        id="binary-column",
    ),
    # sample weights: the row is named
    pytest.param(
        ValueError,
        [r"sample_weight", r"(?i)every weight is zero"],
        lambda: clf().fit(X10, Y10, sample_weight=np.zeros(10)),
        id="all-zero-weights",
    ),
    pytest.param(
        ValueError,
        [r"(?i)weight", ROW.format(5)],
        lambda: clf().fit(X10, Y10, sample_weight=weights(5, -1.0)),
        id="negative-weight",
    ),
    pytest.param(
        ValueError,
        [r"(?i)weight", ROW.format(8)],
        lambda: reg().fit(X10, R10, sample_weight=weights(8, np.nan)),
        id="nan-weight",
    ),
    pytest.param(
        ValueError,
        [r"(?i)weight", ROW.format(0)],
        lambda: clf().fit(X10, Y10, sample_weight=weights(0, np.inf)),
        id="inf-weight",
    ),
    pytest.param(
        ValueError,
        [r"(?i)weight", r"\b10\b", r"\b9\b"],
        lambda: clf().fit(X10, Y10, sample_weight=np.ones(9)),
        id="weight-wrong-length",
    ),
    pytest.param(
        ValueError,
        [r"(?i)weight"],
        lambda: quercus.split_scores(X10, Y10, criterion="gini", sample_weight=weights(1, -2.0)),
        id="negative-weight-split-scores",
    ),
    # shape
    pytest.param(
        ValueError,
        [r"(?i)2-?d|1-?d|dimension|reshape|2d"],
        lambda: clf().fit(np.arange(10.0), Y10),
        id="1d-X",
    ),
    pytest.param(
        ValueError,
        [r"(?i)2-?d|1-?d|dimension|reshape|2d"],
        lambda: fitted_on_numpy().predict(np.arange(2.0)),
        id="1d-X-at-predict",
    ),
    # parameters
    pytest.param(
        ValueError,
        [r"criterion", r"bogus"],
        lambda: clf(criterion="bogus").fit(X10, Y10),
        id="criterion-bogus",
    ),
    pytest.param(
        ValueError,
        [r"criterion"],
        lambda: reg(criterion="gini").fit(X10, R10),
        id="regressor-criterion-gini",
    ),
    pytest.param(
        ValueError,
        [r"criterion"],
        lambda: reg(algorithm="id3", criterion="entropy").fit(X10, R10),
        id="regressor-criterion-entropy",
    ),
    pytest.param(
        ValueError,
        [r"criterion"],
        lambda: clf(criterion="squared_error").fit(X10, Y10),
        id="classifier-criterion-squared-error",
    ),
    pytest.param(
        ValueError,
        [r"algorithm", r"c5"],
        lambda: clf(algorithm="c5").fit(X10, Y10),
        id="algorithm-bogus",
    ),
    pytest.param(
        ValueError,
        [r"categorical_split"],
        lambda: clf(categorical_split="ternary").fit(X10, Y10),
        id="categorical-split-bogus",
    ),
    pytest.param(
        ValueError,
        [r"max_depth"],
        lambda: clf(max_depth=0).fit(X10, Y10),
        id="max-depth-0",
    ),
    pytest.param(
        ValueError,
        [r"max_depth"],
        lambda: reg(max_depth=-2).fit(X10, R10),
        id="max-depth-negative",
    ),
    pytest.param(
        ValueError,
        [r"min_samples_leaf"],
        lambda: clf(min_samples_leaf=0).fit(X10, Y10),
        id="min-samples-leaf-0",
    ),
    pytest.param(
        ValueError,
        [r"min_samples_leaf"],
        lambda: reg(min_samples_leaf=-3).fit(X10, R10),
        id="min-samples-leaf-negative",
    ),
    pytest.param(
        ValueError,
        [r"max_depth"],
        lambda: clf(max_depth=2.5).fit(X10, Y10),
        id="max-depth-float",
    ),
    pytest.param(
        ValueError,
        [r"max_depth"],
        lambda: clf(max_depth=True).fit(X10, Y10),
        id="max-depth-bool",
    ),
    pytest.param(
        ValueError,
        [r"algorithm"],
        lambda: clf(algorithm=None).fit(X10, Y10),
        id="algorithm-none",
    ),
    pytest.param(
        ValueError,
        [r"min_samples_split"],
        lambda: clf(min_samples_split=1).fit(X10, Y10),
        id="min-samples-split-1",
    ),
    pytest.param(
        ValueError,
        [r"max_exhaustive_categories"],
        lambda: clf(max_exhaustive_categories=0).fit(X10, Y10),
        id="max-exhaustive-categories-0",
    ),
    # every parameter checked in one place, with one message, bounds included
    *(
        pytest.param(
            ValueError,
            [rf"^The '{name}' parameter must be an int in the range", re.escape(repr(value))],
            lambda name=name, value=value: clf(**{name: value}).fit(X10, Y10),
            id=f"{name}-{value!r}",
        )
        for name, value in [
            ("max_depth", 2**70),
            ("max_depth", np.True_),
            ("max_bins", 10**12),
            ("max_bins", 0),
            ("max_bins", 256),
            ("max_surrogates", 65),
            ("max_exhaustive_categories", 21),
            ("max_features", 0),
            ("random_state", 2**64),
            ("random_state", -1),
            ("max_leaf_nodes", 1),
        ]
    ),
    pytest.param(
        TypeError,
        [r"\by is a sparse matrix", r"toarray"],
        lambda: reg().fit(X10, __import__("scipy.sparse").sparse.csr_matrix(R10[:, None])),
        id="sparse-y",
    ),
    pytest.param(
        ValueError,
        [r"criterion", r"bogus"],
        lambda: quercus.split_scores(X10, Y10, criterion="bogus"),
        id="split-scores-criterion-bogus",
    ),
    pytest.param(
        ValueError,
        [r"categorical_split"],
        lambda: quercus.split_scores(X10, Y10, criterion="gini", categorical_split="ternary"),
        id="split-scores-categorical-split-bogus",
    ),
    pytest.param(
        ValueError,
        [r"bogus"],
        lambda: clf().set_params(bogus=3),
        id="set-params-unknown",
    ),
    pytest.param(
        ValueError,
        [r"\b10\b", r"\b9\b"],
        lambda: quercus.split_scores(X10, Y10[:9], criterion="entropy"),
        id="split-scores-y-wrong-length",
    ),
    # not fitted
    pytest.param(NotFittedError, [r"(?i)fit"], lambda: clf().predict(X10), id="predict-before-fit"),
    pytest.param(
        NotFittedError,
        [r"(?i)fit"],
        lambda: clf().predict_proba(X10),
        id="predict-proba-before-fit",
    ),
    pytest.param(
        NotFittedError, [r"(?i)fit"], lambda: reg().predict(X10), id="regressor-predict-before-fit"
    ),
    pytest.param(NotFittedError, [r"(?i)fit"], lambda: clf().apply(X10), id="apply-before-fit"),
    pytest.param(
        NotFittedError, [r"(?i)fit"], lambda: clf().score(X10, Y10), id="score-before-fit"
    ),
    pytest.param(
        NotFittedError, [r"(?i)fit"], lambda: clf().export_text(), id="export-text-before-fit"
    ),
    pytest.param(NotFittedError, [r"(?i)fit"], lambda: clf().rules(), id="rules-before-fit"),
    pytest.param(
        NotFittedError,
        [r"(?i)fit"],
        lambda: clf().node_scores(0),
        id="node-scores-before-fit",
    ),
    # found by the QA sweep of edge inputs (pandas, weights and targets at the float limits)
    pytest.param(
        ValueError,
        [r"two columns named 'a'", r"columns 0 and 1"],
        lambda: clf().fit(pandas_frame(["a", "a"]), Y10),
        id="duplicated-column-names-pandas",
    ),
    pytest.param(
        ValueError,
        [r"two columns named 'a'"],
        lambda: clf().fit(pandas_frame(["a", "b"]), Y10).predict(pandas_frame(["a", "a"])),
        id="duplicated-column-names-pandas-at-predict",
    ),
    pytest.param(
        ValueError,
        [r"two columns named '1'"],
        lambda: clf().fit(pandas_frame([1, "1"]), Y10),
        id="column-names-equal-as-text-pandas",
    ),
    pytest.param(
        TypeError,
        [r"column 'density'", r"numbers or.*strings"],
        lambda: clf().fit(pandas_with_a_string(), Y10),
        id="string-in-numeric-object-column-pandas",
    ),
    pytest.param(
        TypeError,
        [r"column 'density'", r"numbers or.*strings"],
        lambda: clf().fit(to_pandas(DF), Y10).predict(pandas_with_a_string()),
        id="string-in-numeric-object-column-pandas-at-predict",
    ),
    pytest.param(
        ValueError,
        [r"sample_weight sums to inf", r"scale"],
        lambda: clf().fit(X10, Y10, sample_weight=np.full(10, 1e308)),
        id="weights-sum-overflows",
    ),
    pytest.param(
        ValueError,
        [r"\by is too large", r"overflows"],
        lambda: reg().fit(X10, np.array([1e200, -1e200] * 5)),
        id="regression-y-squares-overflow",
    ),
    pytest.param(
        ValueError,
        [r"\by is too large", r"Σw = 1e\+301"],
        lambda: reg().fit(X10, R10 * 1e5, sample_weight=np.full(10, 1e300)),
        id="regression-weighted-squares-overflow",
    ),
    pytest.param(
        ValueError,
        [r"output 1 of y is too large"],
        lambda: reg().fit(X10, np.c_[R10, R10 * 1e200]),
        id="regression-second-output-overflows",
    ),
    pytest.param(
        TypeError,
        [r"y mixes labels of types int, str", r"all numbers or all strings"],
        lambda: clf().fit(X10, np.array([1, "a"] * 5, dtype=object)),
        id="labels-of-mixed-types",
    ),
    pytest.param(
        TypeError,
        [r"column x1, row 2: 'n/a'"],
        lambda: clf().fit(object_matrix_with("n/a", row=2, column=1), Y10),
        id="object-numpy-names-the-cell",
    ),
    pytest.param(
        TypeError,
        [r"column x1, row 2: 'n/a'"],
        lambda: clf().fit(X10, Y10).predict(object_matrix_with("n/a", row=2, column=1)),
        id="object-numpy-names-the-cell-at-predict",
    ),
    pytest.param(
        TypeError,
        [r"y \(a regression target\).*row 4: 'x'"],
        lambda: reg().fit(X10, np.array([1.0, 5.0, 2.0, 3.0, "x"] * 2, dtype=object)),
        id="object-regression-target-names-the-row",
    ),
    pytest.param(NotFittedError, [r"(?i)fit"], lambda: clf().tree_, id="tree-before-fit"),
    pytest.param(NotFittedError, [r"(?i)fit"], lambda: clf().classes_, id="classes-before-fit"),
]


@pytest.mark.parametrize(("exc", "patterns", "call"), CASES)
def test_bad_input(exc, patterns, call):
    with pytest.raises(BaseException) as info:
        call()
    err = info.value
    assert type(err).__name__ != "PanicException", f"panic: {err!r}"
    assert isinstance(err, exc), f"expected {exc.__name__}, got {type(err).__name__}: {err}"
    message = str(err)
    for p in patterns:
        assert re.search(p, message), f"{p!r} not in message {message!r}"


def test_not_fitted_error_is_value_and_attribute_error():
    assert issubclass(NotFittedError, ValueError)
    assert issubclass(NotFittedError, AttributeError)


def test_node_scores_bad_node_id():
    m = fitted_on_numpy()
    with pytest.raises(BaseException) as info:
        m.node_scores(m.n_nodes_ + 5)
    assert type(info.value).__name__ != "PanicException"
    assert isinstance(info.value, (ValueError, IndexError))


def test_fit_error_leaves_estimator_unfitted_or_consistent():
    m = clf(max_depth=0)
    with pytest.raises(ValueError):
        m.fit(X10, Y10)
    with pytest.raises(NotFittedError):
        m.predict(X10)


def test_numpy_integers_are_integers():
    model = clf(max_depth=np.int64(2), max_bins=np.uint8(16), min_samples_leaf=np.int32(1))
    assert model.fit(X10, Y10).depth_ <= 2


def test_pruning_path_reads_by_attribute_and_by_key():
    path = clf().cost_complexity_pruning_path(X10, Y10)
    np.testing.assert_array_equal(path["ccp_alphas"], path.ccp_alphas)
    np.testing.assert_array_equal(path["impurities"], path.impurities)
    assert set(path.keys()) == {"ccp_alphas", "impurities"}
    with pytest.raises(KeyError):
        path["alphas"]


def test_targets_below_epsilon_warn_and_still_fit():
    """A y varying by ~1e-9 is one pure leaf (scikit-learn's rule too): warned, not silent."""
    y = R10 * 1e-9
    with pytest.warns(UserWarning, match=r"varies too little.*scale y up"):
        m = reg().fit(X10, y)
    assert m.get_n_leaves() == 1
    assert m.predict(X10[:1])[0] == pytest.approx(y.mean(), rel=1e-12)


def test_large_targets_inside_the_overflow_guard_fit_exactly():
    """Just inside the guard a fully grown tree still reproduces its training y, unwarned."""
    y = R10 * 1e140
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = reg().fit(X10, y)
    np.testing.assert_array_equal(m.predict(X10), y)


@pytest.mark.parametrize("frame", [np.array, lambda a: pl.DataFrame({"x0": a.ravel()})])
def test_integers_merged_by_float64_warn(frame):
    """2**53 and 2**53 + 1 are one float64: the tree cannot split them, and says so."""
    big = 2**53
    X = frame(np.array([[big], [big + 1]] * 5, dtype=np.int64))
    with pytest.warns(UserWarning, match=r"column 'x0' holds integers beyond 2\*\*53.*2 distinct"):
        m = clf().fit(X, Y10)
    assert m.get_n_leaves() == 1
    # below the bound, or beyond it with values that stay apart: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf().fit(frame(np.array([[big], [big - 1]] * 5, dtype=np.int64)), Y10)
        clf().fit(frame(np.array([[2**62], [0]] * 5, dtype=np.int64)), Y10)


def test_integers_merged_by_float64_warn_past_nulls():
    """A Polars integer column with nulls (read as floats) is checked on its values."""
    big = 2**53
    X = pl.DataFrame({"x0": [big, big + 1, None, 3, 4] * 2})
    with pytest.warns(UserWarning, match=r"its 4 distinct values are 3"):
        clf().fit(X, Y10)


@pytest.mark.parametrize("name", ["max_leaf_nodes", "min_samples_split", "min_samples_leaf"])
def test_a_count_beyond_the_largest_bounds_as_the_largest(name):
    """No data set holds more than sys.maxsize rows or leaves, so a larger count (2**65, an
    "unbounded" the range [low, inf) promises) fits as the largest would; scikit-learn raises
    OverflowError there, for an allocation quercus never makes."""
    largest = clf(**{name: sys.maxsize}).fit(X10, Y10)
    for value in (2**64, 2**65, np.uint64(2**64 - 1)):
        model = clf(**{name: value}).fit(X10, Y10)
        assert model.get_params()[name] == value
        assert model.to_bytes() == largest.set_params(**{name: value}).to_bytes()
