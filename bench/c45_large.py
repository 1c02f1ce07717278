"""C4.5 at every size: the c4.5 preset on 200,000 rows against Weka's J48 (issue "Faithful to
the last leaf").

Usage: python bench/c45_large.py [--rows 200000] [--no-j48]

The data: 20 features, 10 nominal (3 to 8 values) and 10 numeric with 5% of their cells
missing, a class of three values drawn from a noisy function of six of them (seed 0). It
fits `DecisionTreeClassifier(algorithm="c4.5")` with its default splitter (which, from
200,000 rows, used to turn to histograms), with `splitter="exact"` and with
`splitter="hist"`, and J48 (-C 0.25 -M 2) on the same rows when `java` and weka.jar are
installed; it prints each tree's leaves and fit seconds, and whether quercus's tree prints as
J48's (tests/weka_j48.py's J48 format).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import weka_j48 as weka

from quercus import DecisionTreeClassifier


def data(rows: int) -> weka.Arff:
    rng = np.random.default_rng(0)
    names: list[str] = []
    values: list[list[str] | None] = []
    columns: dict[str, pl.Series] = {}
    for j in range(10):
        levels = [f"v{k}" for k in range(int(rng.integers(3, 9)))]
        codes = rng.integers(0, len(levels), rows)
        name = f"n{j}"
        names.append(name)
        values.append(levels)
        columns[name] = pl.Series(name, [levels[c] for c in codes], dtype=pl.Enum(levels))
    for j in range(10):
        x = rng.normal(size=rows).round(3)
        x[rng.random(rows) < 0.05] = np.nan
        name = f"x{j}"
        names.append(name)
        values.append(None)
        columns[name] = pl.Series(name, x).fill_nan(None)
    score = (
        columns["x0"].fill_null(0.0).to_numpy()
        + 0.8 * columns["x1"].fill_null(0.0).to_numpy() * columns["x2"].fill_null(0.0).to_numpy()
        + 0.6 * (columns["n0"].to_physical().to_numpy() % 2)
        - 0.5 * (columns["n1"].to_physical().to_numpy() == 1)
        + 0.4 * columns["n2"].to_physical().to_numpy() / 8
    )
    noisy = score + rng.normal(scale=0.7, size=rows)
    classes = ["low", "mid", "high"]
    y = np.digitize(noisy, np.quantile(noisy, [1 / 3, 2 / 3]))
    names.append("class")
    values.append(classes)
    columns["class"] = pl.Series("class", [classes[c] for c in y], dtype=pl.Enum(classes))
    return weka.Arff(Path(), names, values, pl.DataFrame(columns))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--no-j48", action="store_true")
    args = parser.parse_args()
    arff = data(args.rows)
    X, y = arff.xy()
    print("| fit | splitter_ | leaves | seconds | prints as J48's |")
    print("|---|---|--:|--:|---|")
    theirs = None
    if not args.no_j48 and weka.missing_reason() is None:
        with tempfile.TemporaryDirectory() as tmp:
            arff.path = Path(tmp) / "large.arff"
            weka.write_arff(arff, np.arange(X.height), arff.path)
            start = time.perf_counter()
            theirs = weka.j48_tree(arff.path)
            seconds = time.perf_counter() - start
        leaves = sum(1 for line in theirs.splitlines() if ": " in line)
        print(f"| J48 -C 0.25 -M 2 (JVM start included) | | {leaves:,} | {seconds:.1f} | |")
    for label, params in (
        ("c4.5 default", {}),
        ('c4.5 splitter="exact"', {"splitter": "exact"}),
        ('c4.5 splitter="hist"', {"splitter": "hist"}),
    ):
        start = time.perf_counter()
        model = DecisionTreeClassifier(algorithm="c4.5", **params).fit(X, y)
        seconds = time.perf_counter() - start
        same = "" if theirs is None else str(weka.j48_text(model, arff) == theirs)
        print(f"| {label} | {model.splitter_} | {model.n_leaves_:,} | {seconds:.1f} | {same} |")


if __name__ == "__main__":
    main()
