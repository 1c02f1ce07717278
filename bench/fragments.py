"""How far C4.5's fractional missing values let a tree grow: leaves and fit time of each preset
on numeric data with missing cells (issue "Faithful to the last leaf").

Usage:
    python bench/fragments.py [--rows 900] [--rates 0.3,0.5,0.9] [--repeats 5]

The data are `make_classification(n_samples=rows, n_features=5, n_informative=5,
n_redundant=0, random_state=42)` with each cell missing at the given rate (NumPy's generator,
seed 42): the case that once grew 1.1 million leaves from 900 rows when fragments of rows were
counted as whole rows and cut without bound. `id3` spreads missing values with C4.5's
fractions under the texts' conventions, where the size rules bound the splits that cut rows
(a row is cut only into branches holding a row's weight); `c4.5` keeps J48's rules; `cart`
and the regressor send missing values one way (scikit-learn's learned direction);
`cart+fractional` is CART with C4.5's fractions. Times are the best of `--repeats` fits (one
thread); leaves must stay at most the rows.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification

from quercus import DecisionTreeClassifier, DecisionTreeRegressor

PRESETS = {
    "id3": lambda: DecisionTreeClassifier(algorithm="id3", n_jobs=1),
    "c4.5": lambda: DecisionTreeClassifier(algorithm="c4.5", n_jobs=1),
    "cart": lambda: DecisionTreeClassifier(algorithm="cart", n_jobs=1),
    "cart+fractional": lambda: DecisionTreeClassifier(missing="fractional", n_jobs=1),
    "regressor": lambda: DecisionTreeRegressor(n_jobs=1),
}


def masked(rows: int, rate: float) -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(
        n_samples=rows, n_features=5, n_informative=5, n_redundant=0, random_state=42
    )
    X[np.random.default_rng(42).random(X.shape) < rate] = np.nan
    return X, y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=900)
    parser.add_argument("--rates", default="0.3,0.5,0.9")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"| missing | preset | leaves | depth | fit ms (best of {args.repeats}) |")
    print("|--:|---|--:|--:|--:|")
    worst = 0
    for rate in (float(r) for r in args.rates.split(",")):
        X, y = masked(args.rows, rate)
        for name, make in PRESETS.items():
            target = y.astype(float) if name == "regressor" else y
            best = float("inf")
            for _ in range(args.repeats):
                start = time.perf_counter()
                model = make().fit(X, target)
                best = min(best, time.perf_counter() - start)
            worst = max(worst, model.n_leaves_)
            print(
                f"| {rate:.0%} | {name} | {model.n_leaves_:,} | {model.depth_} | {best * 1e3:.1f} |"
            )
    if worst > args.rows:
        raise SystemExit(f"a tree grew {worst} leaves from {args.rows} rows")


if __name__ == "__main__":
    main()
