"""Batch prediction from every categorical input kind against scikit-learn on the integer
codes, and the one-row latency from Polars frames against a NumPy row (quercus issue 38).

Usage:
    python bench/categorical_predict.py                     # 1M rows, 2 threads
    python bench/categorical_predict.py --rows 200000 --kinds categorical --repeats 1
    python bench/categorical_predict.py --cache /tmp/catpredict   # keep data and models

The data: compare.py's categorical variant (same generator and seeds) with 10 features, the
first 5 nominal (10, 30, 100, 300 and 1,000 categories), the other 5 numeric; `--train`
training rows and `--rows` held-out rows. One depth-10 CART tree (quercus's defaults
otherwise) is fit on the Polars Enum frame and predicts the held-out rows given as:

* enum: the Polars frame of Enum columns;
* categorical: the same columns cast to `pl.Categorical` (the global categories);
* string: the same columns as `pl.String`;
* pandas: a pandas frame of `category` columns;
* arrow: a pyarrow Table of those columns dictionary-encoded (`pa.Table.from_pandas`);
* pandas-text: the pandas frame with `string[pyarrow]` columns instead (text, not codes);
* arrow-text: a pyarrow Table of those columns as plain `string` arrays.

scikit-learn's depth-10 tree is fit and predicts on the float32 matrix whose categorical
columns hold each category's integer code as a number (ordinal codes, as compare.py gives
them: scikit-learn takes no categorical column). Every kind's labels are checked equal to
the Enum frame's. Each throughput is the best of `--repeats` calls on `--threads` threads,
printed with its ratio to scikit-learn's and the load average.

The one-row latency (median of `--latency-calls` calls, one thread): a 1-row Polars frame of
the 5 numeric columns (a tree fit on them alone), the same row as a (1, 5) float64 NumPy
array (a tree fit on the matrix), and 1-row frames of all 10 columns in each Polars kind.
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

import numpy as np
import polars as pl
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).parent))

from compare import SEED, Case, make_data
from predict_speed import fastest
from sklearn.tree import DecisionTreeClassifier as SkClassifier

import quercus

DEPTH = 10
NOMINAL = ["c0", "c1", "c2", "c3", "c4"]
NUMERIC = ["x5", "x6", "x7", "x8", "x9"]
KINDS = ("enum", "categorical", "string", "pandas", "arrow", "pandas-text", "arrow-text")


def made(train: int, rows: int) -> dict[str, Any]:
    """The held-out rows in every form, the models, and scikit-learn's tree and matrix."""
    data = make_data(Case(train, 10, "binary", DEPTH, "categorical"), rows)
    enum = data.test.polars
    assert enum is not None and data.train.polars is not None
    tree = quercus.DecisionTreeClassifier(max_depth=DEPTH).fit(data.train.polars, data.y_train)
    numeric = data.train.polars.select(NUMERIC)
    return {
        "tree": tree,
        "numeric tree": quercus.DecisionTreeClassifier(max_depth=DEPTH).fit(numeric, data.y_train),
        "matrix tree": quercus.DecisionTreeClassifier(max_depth=DEPTH).fit(
            numeric.to_numpy(), data.y_train
        ),
        "sklearn": SkClassifier(max_depth=DEPTH, random_state=SEED).fit(
            data.train.array, data.y_train
        ),
        "enum": enum,
        "pandas": data.test.pandas,
        "array": data.test.array,
    }


def inputs(kind: str, cell: dict[str, Any]) -> Any:
    """The held-out rows as `kind` gives them."""
    enum: pl.DataFrame = cell["enum"]
    if kind == "enum":
        return enum
    if kind == "categorical":
        return enum.with_columns(pl.col(NOMINAL).cast(pl.String).cast(pl.Categorical))
    if kind == "string":
        return enum.with_columns(pl.col(NOMINAL).cast(pl.String))
    if kind == "pandas":
        return cell["pandas"]
    if kind == "arrow":
        return pa.Table.from_pandas(cell["pandas"], preserve_index=False)
    if kind == "pandas-text":
        return cell["pandas"].astype(dict.fromkeys(NOMINAL, "string[pyarrow]"))
    if kind == "arrow-text":
        text = cell["pandas"].astype(dict.fromkeys(NOMINAL, object))
        return pa.Table.from_pandas(text, preserve_index=False)
    raise ValueError(f"unknown kind {kind!r}; choose from {', '.join(KINDS)}")


def loaded(train: int, rows: int, cache: Path | None) -> dict[str, Any]:
    """`made`'s cell, from `cache` when it has it."""
    path = None if cache is None else cache / f"categorical-{train}-{rows}.pickle"
    if path is not None and path.exists():
        with path.open("rb") as f:
            cell = pickle.load(f)
        cell["enum"] = cell["enum"].rechunk()  # a pickled frame comes back in chunks
        return cell
    cell = made(train, rows)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            pickle.dump(cell, f)
    return cell


def latency_us(model: Any, row: Any, calls: int) -> float:
    """Median microseconds of `calls` one-row predictions, after 10 unmeasured ones."""
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
    parser.add_argument("--rows", type=int, default=1_000_000, help="held-out rows predicted")
    parser.add_argument("--train", type=int, default=200_000, help="training rows")
    parser.add_argument("--threads", type=int, default=2, help="quercus's n_jobs")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--kinds", default=",".join(KINDS), help="input kinds, comma-separated")
    parser.add_argument("--latency-calls", type=int, default=1000, help="0: no latency")
    parser.add_argument("--cache", type=Path, help="keep data and models here")
    args = parser.parse_args()
    cell = loaded(args.train, args.rows, args.cache)
    tree, sk = cell["tree"], cell["sklearn"]
    tree.set_params(n_jobs=args.threads)
    expected = tree.predict(cell["enum"])
    reference = args.rows / fastest(lambda: sk.predict(cell["array"]), args.repeats)
    print(f"scikit-learn (codes)  {reference / 1e6:7.2f} M rows/s")
    for kind in args.kinds.split(","):
        X = inputs(kind, cell)
        got = tree.predict(X)
        assert np.array_equal(np.asarray(got), np.asarray(expected)), kind
        rate = args.rows / fastest(lambda x=X: tree.predict(x), args.repeats)
        print(f"{kind:21} {rate / 1e6:7.2f} M rows/s  {rate / reference:5.2f}x scikit-learn")
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    if not args.latency_calls:
        return
    calls = args.latency_calls
    tree.set_params(n_jobs=1)
    numeric = cell["enum"].select(NUMERIC).head(1)
    rows = {
        "numpy row (5 numbers)": (cell["matrix tree"], numeric.to_numpy()),
        "polars row (5 numbers)": (cell["numeric tree"], numeric),
        **{f"{kind} row (10 columns)": (tree, inputs(kind, cell)[:1]) for kind in KINDS},
    }
    for name, (model, row) in rows.items():
        model.set_params(n_jobs=1)
        print(f"{name:28} one row {latency_us(model, row, calls):7.1f} us", flush=True)


if __name__ == "__main__":
    main()
