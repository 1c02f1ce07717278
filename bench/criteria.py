"""scikit-learn's criteria in quercus: fit times, absolute error's O(n log n) scaling, and
agreement with scikit-learn's trees.

Usage:
    python bench/criteria.py scaling [--rows 50000,100000,200000,400000] [--depth 10]
    python bench/criteria.py agreement
    python bench/criteria.py sums [--rows 500000] [--repeats 5]

* scaling: fit time of one tree per criterion, search and row count on `make_friedman1`
  (10 features, float32), single-threaded (`n_jobs=1`), best of `--repeats`, with
  scikit-learn's time beside it (`--no-sklearn` to skip). A tree of fixed depth costs one
  scan of every feature per level, so with an O(n log n) scan the last column,
  time / (n log2 n), stays flat as n grows; a quadratic scan would make it grow like n.
* agreement: for each criterion and data set of tests/test_criteria_sklearn.py, how much of
  scikit-learn's tree quercus reproduces node for node (`sklearn_agreement` in
  tests/helpers.py: equal nodes, divergences at exact ties, mismatches).
* sums: fit times of the criteria of sums (gini, entropy, squared_error) in both searches,
  single-threaded, best of `--repeats`, in CPU seconds of the process (`time.process_time`),
  which other work on a shared machine disturbs less than the wall clock: run it under two
  builds, alternately, to compare their hot loops.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification, make_friedman1, make_regression
from sklearn.tree import DecisionTreeRegressor as SkRegressor

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor

TESTS = Path(__file__).resolve().parent.parent / "tests"


def best_time(model, X: np.ndarray, y: np.ndarray, repeats: int, clock=time.perf_counter) -> float:
    """The least time of `repeats` fits of `model` on X, y, by `clock`."""
    times = []
    for _ in range(repeats):
        start = clock()
        model.fit(X, y)
        times.append(clock() - start)
    return min(times)


def scaling(args: argparse.Namespace) -> None:
    rows = [int(r) for r in args.rows.split(",")]
    depth = None if args.depth == 0 else args.depth
    print(f"make_friedman1, 10 features, max_depth={depth}, n_jobs=1, best of {args.repeats}")
    print(f"{'criterion':<15} {'search':<8} {'rows':>8} {'fit s':>8} {'ns / (n log2 n)':>16}")
    for criterion in args.criteria.split(","):
        for n in rows:
            X, y = make_friedman1(n_samples=n, n_features=10, random_state=0)
            X = X.astype(np.float32).astype(np.float64)
            searches = ["exact", "hist"] + ([] if args.no_sklearn else ["sklearn"])
            for search in searches:
                if search == "sklearn":
                    model = SkRegressor(criterion=criterion, max_depth=depth, random_state=0)
                else:
                    model = DecisionTreeRegressor(
                        criterion=criterion, max_depth=depth, splitter=search, n_jobs=1
                    )
                seconds = best_time(model, X, y, args.repeats)
                per = seconds * 1e9 / (n * math.log2(n))
                row = f"{criterion:<15} {search:<8} {n:>8} {seconds:>8.2f} {per:>16.1f}"
                print(row, flush=True)


def agreement(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(TESTS))
    from helpers import sklearn_agreement
    from test_criteria_sklearn import DATA

    header = ("data set", "criterion", "depth", "nodes", "same", "ties", "other")
    print("{:<14} {:<15} {:>5} {:>6} {:>6} {:>5} {:>5}".format(*header))
    for name, (X, y, w) in DATA.items():
        for criterion in ("squared_error", "friedman_mse", "absolute_error", "poisson"):
            for depth in (3, 8, None):
                q = DecisionTreeRegressor(criterion=criterion, max_depth=depth, missing="learned")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", FutureWarning)  # friedman_mse in 1.9
                    sk = SkRegressor(criterion=criterion, max_depth=depth, random_state=0)
                a = sklearn_agreement(q.fit(X, y, sample_weight=w), sk.fit(X, y, sample_weight=w))
                print(
                    f"{name:<14} {criterion:<15} {depth or '-':>5} {a['nodes']:>6} "
                    f"{a['same']:>6} {a['ties']:>5} {a['mismatch']:>5}",
                    flush=True,
                )


def sums(args: argparse.Namespace) -> None:
    n = int(args.rows)
    print(f"quercus {quercus.__file__}")
    print(f"{n} rows, 20 features, max_depth={args.depth}, n_jobs=1, best of {args.repeats}")
    Xc, yc = make_classification(n_samples=n, n_features=20, n_informative=10, random_state=0)
    Xr, yr = make_regression(n_samples=n, n_features=20, n_informative=10, random_state=0)
    cases = [
        ("gini", DecisionTreeClassifier, Xc, yc),
        ("entropy", DecisionTreeClassifier, Xc, yc),
        ("squared_error", DecisionTreeRegressor, Xr, yr),
    ]
    for criterion, cls, X, y in cases:
        X = X.astype(np.float32).astype(np.float64)
        for splitter in ("exact", "hist"):
            model = cls(criterion=criterion, splitter=splitter, max_depth=args.depth, n_jobs=1)
            seconds = best_time(model, X, y, args.repeats, clock=time.process_time)
            print(f"{criterion:<15} {splitter:<6} {seconds:8.3f} s (CPU)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    scale = commands.add_parser("scaling")
    scale.add_argument("--rows", default="50000,100000,200000,400000")
    scale.add_argument("--depth", type=int, default=10, help="0: fully grown")
    scale.add_argument("--criteria", default="absolute_error,squared_error,poisson")
    scale.add_argument("--repeats", type=int, default=1)
    scale.add_argument("--no-sklearn", action="store_true")
    commands.add_parser("agreement")
    hot = commands.add_parser("sums")
    hot.add_argument("--rows", default="200000")
    hot.add_argument("--depth", type=int, default=12)
    hot.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    {"scaling": scaling, "agreement": agreement, "sums": sums}[args.command](args)


if __name__ == "__main__":
    main()
