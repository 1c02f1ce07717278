"""Fit time and held-out accuracy of scikit-learn's growth parameters: `max_features`
(features drawn per node) and `splitter="random"` (extremely randomised trees), quercus
against scikit-learn on the same data.

Usage:
    python bench/sklearn_growth.py [--rows 100000] [--features 20] [--threads 2] [--repeats 3]
    python bench/sklearn_growth.py --tiny      # toy sizes, seconds (CI: keeps it from rotting)

The data: `make_classification` (2 classes, half the features informative, seed 0) in
float32, 75% to fit and 25% held out. Each configuration is fitted `--repeats` times with
`random_state` 0, 1, ...: the table gives the best fit time (wall clock of `fit` from the
NumPy arrays, quercus on `--threads` threads, scikit-learn single-threaded by design) and
the mean leaves and held-out accuracy over the repeats (the random ones draw differently
per seed). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier as SkClassifier

from quercus import DecisionTreeClassifier

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("exact", {"splitter": "exact"}),
    ("exact", {"splitter": "exact", "max_features": "sqrt"}),
    ("exact", {"splitter": "exact", "max_features": 0.25}),
    ("hist", {"splitter": "hist"}),
    ("hist", {"splitter": "hist", "max_features": "sqrt"}),
    ("random", {"splitter": "random"}),
    ("random", {"splitter": "random", "max_features": "sqrt"}),
]


def run(
    make: Callable[[int], Any], X: np.ndarray, y: np.ndarray, test: slice, repeats: int
) -> tuple[float, float, float]:
    """Best fit time (s), mean leaves and mean held-out accuracy over `repeats` seeds."""
    train = slice(0, test.start)
    times, leaves, scores = [], [], []
    for seed in range(repeats):
        model = make(seed)
        start = time.perf_counter()
        model.fit(X[train], y[train])
        times.append(time.perf_counter() - start)
        leaves.append(model.get_n_leaves() if hasattr(model, "get_n_leaves") else model.n_leaves_)
        scores.append(model.score(X[test], y[test]))
    return min(times), float(np.mean(leaves)), float(np.mean(scores))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tiny", action="store_true", help="2,000 rows, 1 repeat")
    args = parser.parse_args()
    rows, repeats = (2_000, 1) if args.tiny else (args.rows, args.repeats)
    X, y = make_classification(
        n_samples=rows,
        n_features=args.features,
        n_informative=args.features // 2,
        random_state=0,
    )
    X = X.astype(np.float32)
    test = slice(rows * 3 // 4, rows)
    print(
        f"{rows * 3 // 4:,} training rows x {args.features} features, {rows // 4:,} held out;"
        f" quercus on {args.threads} threads; best fit of {repeats}, means over {repeats} seeds"
    )
    print()
    print(
        "| splitter | max_features | quercus fit s | sklearn fit s | leaves q / sk | "
        "accuracy q / sk |"
    )
    print("|---|---|---|---|---|---|")
    for splitter, params in CONFIGS:
        q = run(
            lambda s, p=params: DecisionTreeClassifier(random_state=s, n_jobs=args.threads, **p),
            X,
            y,
            test,
            repeats,
        )
        sk_params = {**params, "splitter": "random" if splitter == "random" else "best"}
        sk = (
            run(lambda s, p=sk_params: SkClassifier(random_state=s, **p), X, y, test, repeats)
            if splitter != "hist"
            else None
        )
        max_features = params.get("max_features", "None")
        sk_cells = (
            ("—", "—", "—") if sk is None else (f"{sk[0]:.3f}", f"{sk[1]:.0f}", f"{sk[2]:.4f}")
        )
        print(
            f"| {splitter} | {max_features} | {q[0]:.3f} | {sk_cells[0]} | "
            f"{q[1]:.0f} / {sk_cells[1]} | {q[2]:.4f} / {sk_cells[2]} |"
        )


if __name__ == "__main__":
    main()
