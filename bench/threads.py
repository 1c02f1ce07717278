"""Serial vs threaded prediction with one model: the core releases the GIL while it predicts,
so Python threads run on every core; and one large call spreads its row blocks over every core
by itself. Each figure is the fastest of `--repeat` runs.

Usage: python bench/threads.py [--rows 1000000] [--threads 8] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from sklearn.datasets import make_classification

from quercus import DecisionTreeClassifier


def fastest(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Seconds of the fastest of `repeat` calls, and the result of the last one."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    X, y = make_classification(n_samples=args.rows, n_features=20, random_state=0)
    model = DecisionTreeClassifier(max_depth=12).fit(X[:100_000], y[:100_000])
    tree = model.tree_.core
    chunks = np.array_split(X, args.threads)  # C-contiguous row blocks, read in place

    def one_thread_each(chunk: np.ndarray) -> np.ndarray:
        return tree.predict_proba(chunk, 1)  # n_jobs=1: all work on the calling thread

    with ThreadPoolExecutor(max_workers=args.threads) as pool:
        runs = {
            "serial (one thread, n_jobs=1)": lambda: [one_thread_each(c) for c in chunks],
            f"{args.threads} Python threads, n_jobs=1 each": lambda: list(
                pool.map(one_thread_each, chunks)
            ),
            "one call, n_jobs=None (every core)": lambda: [tree.predict_proba(X)],
        }
        results = {name: fastest(run, args.repeat) for name, run in runs.items()}

    expected = np.concatenate(results["serial (one thread, n_jobs=1)"][1])
    for _, result in results.values():
        assert np.array_equal(np.concatenate(result), expected)
    serial = results["serial (one thread, n_jobs=1)"][0]
    print(f"{args.rows} rows, depth-12 tree, {os.cpu_count()} cores, {args.threads} chunks")
    for name, (seconds, _) in results.items():
        rate = args.rows / seconds / 1e6
        print(f"{name:38s} {seconds:6.3f} s {rate:7.2f} M rows/s  {serial / seconds:5.2f}x")


if __name__ == "__main__":
    main()
