"""Fit time with many classes: one numeric feature, two rows per class, a fully grown tree
(quercus issue 38), quercus against scikit-learn fitted alternately in one run.

Usage:
    python bench/many_classes.py [--classes 250 500 1000 2000] [--repeats 1] [--out t.json]
    python bench/many_classes.py --tiny      # 100 and 200 classes (CI: keeps it from rotting)
    python bench/many_classes.py --hashes h.json         # record many-class trees' hashes
    python bench/many_classes.py --check h.json          # compare; exit 1 on a difference

The data: x = 0, 1, ..., 2C − 1 and each of the C classes on two rows, either at random rows
("shuffled", seed 0: the classes' rows far apart, so that the tree is deep and every node
holds many classes) or side by side ("sorted": a balanced tree). Both estimators use their
defaults (exact search, unlimited depth) with the Gini index and with the entropy; each fit
is timed as the wall clock of `fit` from the NumPy arrays, the best of `--repeats`. The
table gives seconds, quercus's time over scikit-learn's and both trees' leaf counts (the
trees need not be equal: the two break ties between equal cuts differently).

`--hashes`/`--check` guard that a speed-up changes no many-class tree, as
`bench/tree_hashes.py` does for its sweep (whose targets have 2 or 3 classes): the SHA-256 of
`to_bytes()` over seeded fits of 9 to 600 classes, several features with ties and missing
values, sample and class weights, every class criterion and algorithm, both splitters.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import warnings
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


def hash_configs() -> dict[str, str]:
    """SHA-256 of the model file of each seeded many-class fit (or its error's type)."""
    out = {}
    rng = np.random.default_rng(38)
    criteria = ("gini", "entropy", "gain_ratio", "misclassification", "twoing", "distance")
    for case in range(60):
        n = int(rng.choice([200, 1_000, 3_000]))
        classes = int(rng.choice([9, 12, 40, 150, 600]))
        cols = [
            rng.integers(0, 8, n),
            rng.normal(size=n),
            np.repeat(np.arange(n // 2), 2)[:n],
        ]
        X = np.column_stack(cols).astype(np.float64)
        if case % 4 == 3:
            X[rng.random(X.shape) < 0.1] = np.nan
        y = rng.integers(0, classes, n) if case % 2 else np.sort(rng.integers(0, classes, n))
        w = None if case % 3 == 0 else rng.uniform(0.2, 3.0, n)
        params = {
            "criterion": criteria[case % len(criteria)],
            "min_samples_leaf": int(rng.choice([1, 1, 3])),
            "splitter": "hist" if case % 7 == 6 else "best",
        }
        if case % 5 == 4:
            params["class_weight"] = "balanced"
        if case % 6 == 5:
            params = {"algorithm": "c4.5"}
        try:
            with warnings.catch_warnings():  # "y has N classes for M rows": meant
                warnings.simplefilter("ignore", UserWarning)
                model = DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
            out[f"{case}"] = hashlib.sha256(model.to_bytes()).hexdigest()
        except Exception as error:  # the refusal is the record
            out[f"{case}"] = type(error).__name__
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, nargs="+", default=[250, 500, 1000, 2000])
    parser.add_argument("--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS))
    parser.add_argument("--criteria", nargs="+", choices=CRITERIA, default=list(CRITERIA))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--tiny", action="store_true", help="100 and 200 classes")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    parser.add_argument("--hashes", type=Path, help="record many-class trees' hashes here")
    parser.add_argument("--check", type=Path, help="compare with hashes recorded there")
    args = parser.parse_args()
    if args.hashes is not None or args.check is not None:
        hashes = hash_configs()
        if args.hashes is not None:
            args.hashes.write_text(json.dumps(hashes, indent=1) + "\n")
        if args.check is not None:
            recorded = json.loads(args.check.read_text())
            differ = sorted(k for k in hashes if hashes[k] != recorded.get(k))
            print(f"{len(hashes)} configurations; {len(differ)} differ {differ}")
            sys.exit(1 if differ else 0)
        return
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
