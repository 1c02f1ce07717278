"""Fit time of scikit-learn's CART vs quercus on the same numeric data.

Usage: python bench/fit_vs_sklearn.py [--rows 100000] [--features 20] [--repeats 3]

Both libraries see the same float32-valued data (scikit-learn converts to float32 itself);
each fit is timed `repeats` times and the best time reported, with the leaf counts and the
training accuracy so a reader can see the trees are comparable.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier as SkTree

from quercus import DecisionTreeClassifier


def best_time(fit, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    X, y = make_classification(
        n_samples=args.rows,
        n_features=args.features,
        n_informative=args.features // 2,
        random_state=0,
    )
    X = X.astype(np.float32).astype(np.float64)
    print(f"data: {args.rows} x {args.features} numeric, 2 classes; best of {args.repeats}")
    print(f"{'max_depth':>9} {'library':>12} {'fit s':>8} {'leaves':>7} {'train acc':>9}")
    for depth in (8, None):
        sk = SkTree(max_depth=depth, random_state=0)
        qt = DecisionTreeClassifier(algorithm="cart", max_depth=depth)
        for name, model in (("scikit-learn", sk), ("quercus", qt)):
            seconds = best_time(lambda m=model: m.fit(X, y), args.repeats)
            leaves = model.get_n_leaves() if name == "scikit-learn" else model.n_leaves_
            acc = model.score(X, y)
            print(f"{depth!s:>9} {name:>12} {seconds:8.2f} {leaves:7d} {acc:9.4f}")


if __name__ == "__main__":
    main()
