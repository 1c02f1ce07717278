"""Serial vs threaded prediction with one model: the core releases the GIL while it predicts,
so threads run on every core.

Usage: python bench/threads.py [--rows 1000000] [--threads 8]
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.datasets import make_classification

from quercus import DecisionTreeClassifier


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    X, y = make_classification(n_samples=args.rows, n_features=20, random_state=0)
    model = DecisionTreeClassifier(max_depth=12).fit(X[:100_000], y[:100_000])
    chunks = np.array_split(X, args.threads)
    columns = [model._columns(chunk) for chunk in chunks]  # encode outside the timing

    start = time.perf_counter()
    serial = [model.tree_.predict_proba(c) for c in columns]
    serial_s = time.perf_counter() - start

    with ThreadPoolExecutor(max_workers=args.threads) as pool:
        start = time.perf_counter()
        threaded = list(pool.map(model.tree_.predict_proba, columns))
        threaded_s = time.perf_counter() - start

    assert all(np.array_equal(a, b) for a, b in zip(serial, threaded, strict=True))
    print(f"{args.rows} rows, depth-12 tree, {args.threads} chunks")
    print(f"serial   {serial_s:6.3f} s  {args.rows / serial_s / 1e6:6.2f} M rows/s")
    print(f"threaded {threaded_s:6.3f} s  {args.rows / threaded_s / 1e6:6.2f} M rows/s")
    print(f"speed-up {serial_s / threaded_s:.2f}x")


if __name__ == "__main__":
    main()
