"""Fit time with many classes: one numeric feature, two rows per class, a fully grown tree
(quercus issue 38), quercus against scikit-learn fitted alternately in one run.

Usage:
    python bench/many_classes.py [--classes 250 500 1000 2000] [--repeats 1] [--out t.json]
    python bench/many_classes.py --tiny      # 100 and 200 classes (CI: keeps it from rotting)

The data: x = 0, 1, ..., 2C − 1 and each of the C classes on two rows, either at random rows
("shuffled", seed 0: the classes' rows far apart, so that the tree is deep and every node
holds many classes) or side by side ("sorted": a balanced tree). Both estimators use their
defaults (exact search, unlimited depth) with the Gini index and with the entropy; each fit
is timed as the wall clock of `fit` from the NumPy arrays, the best of `--repeats`. The
table gives seconds, quercus's time over scikit-learn's and both trees' leaf counts (the
trees need not be equal: the two break ties between equal cuts differently).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.tree import DecisionTreeClassifier as SkClassifier

from quercus import DecisionTreeClassifier

LAYOUTS = ("shuffled", "sorted")
CRITERIA = ("gini", "entropy")


def data(classes: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """One feature x = row index and two rows per class, laid out as `layout` says."""
    y = np.repeat(np.arange(classes), 2)
    if layout == "shuffled":
        y = np.random.default_rng(0).permutation(y)
    X = np.arange(2 * classes, dtype=np.float64).reshape(-1, 1)
    return X, y


def best_fit(model: Any, X: np.ndarray, y: np.ndarray, repeats: int) -> tuple[float, Any]:
    """The fastest of `repeats` fits (s) and the model."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - start)
    return min(times), model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, nargs="+", default=[250, 500, 1000, 2000])
    parser.add_argument("--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS))
    parser.add_argument("--criteria", nargs="+", choices=CRITERIA, default=list(CRITERIA))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--tiny", action="store_true", help="100 and 200 classes")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args()
    sizes = [100, 200] if args.tiny else args.classes
    print(f"load average {os.getloadavg()[0]:.2f}; best of {args.repeats}")
    print()
    print("| layout | criterion | classes | quercus s | sklearn s | ratio | leaves q / sk |")
    print("|---|---|---:|---:|---:|---:|---|")
    results = []
    for layout in args.layouts:
        for criterion in args.criteria:
            for classes in sizes:
                X, y = data(classes, layout)
                q_time, q = best_fit(
                    DecisionTreeClassifier(criterion=criterion), X, y, args.repeats
                )
                sk_time, sk = best_fit(SkClassifier(criterion=criterion), X, y, args.repeats)
                row = {
                    "layout": layout,
                    "criterion": criterion,
                    "classes": classes,
                    "quercus_s": q_time,
                    "sklearn_s": sk_time,
                    "ratio": q_time / sk_time,
                    "quercus_leaves": int(q.get_n_leaves()),
                    "sklearn_leaves": int(sk.get_n_leaves()),
                }
                results.append(row)
                print(
                    f"| {layout} | {criterion} | {classes:,} | {q_time:.3f} | {sk_time:.3f} |"
                    f" {row['ratio']:.2f} | {row['quercus_leaves']} / {row['sklearn_leaves']} |",
                    flush=True,
                )
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
