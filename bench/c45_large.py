"""C4.5 at every size: the c4.5 preset on 200,000 rows against Weka's J48 (issue "Faithful to
the last leaf").

Usage: python bench/c45_large.py [--rows 200000] [--no-j48] [--repeat 1] [--splitters exact]
       [--out bench/results/c45_large.json] [--baseline earlier.json]

The data: 20 features, 10 nominal (3 to 8 values) and 10 numeric with 5% of their cells
missing, a class of three values drawn from a noisy function of six of them (seed 0). It
fits `DecisionTreeClassifier(algorithm="c4.5")` with its default splitter (which, from
200,000 rows, used to turn to histograms), with `splitter="exact"` and with
`splitter="hist"`, and J48 (-C 0.25 -M 2) on the same rows when `java` and weka.jar are
installed; it prints each tree's leaves and fit seconds, and whether quercus's tree prints as
J48's (tests/weka_j48.py's J48 format). `--repeat` fits each configuration that many times
and keeps the fastest; `--out` writes the rows as JSON, with J48's seconds over each fit's
(the ratio) and, from `--baseline`, the rows of an earlier `--out` run (another build's, run
alongside on the same machine) under "baseline".
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import weka_j48 as weka
from run_facts import run_facts  # this directory's

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
    parser.add_argument("--repeat", type=int, default=1, help="fits each (fastest kept)")
    parser.add_argument(
        "--splitters", default="default,exact,hist", help="comma-separated: default, exact, hist"
    )
    parser.add_argument("--out", help="write the rows as JSON here")
    parser.add_argument("--baseline", help="an earlier --out file to keep under 'baseline'")
    args = parser.parse_args()
    arff = data(args.rows)
    X, y = arff.xy()
    print("| fit | splitter_ | leaves | seconds | prints as J48's |")
    print("|---|---|--:|--:|---|")
    theirs = None
    j48_seconds = j48_leaves = None
    rows = []
    if not args.no_j48 and weka.missing_reason() is None:
        with tempfile.TemporaryDirectory() as tmp:
            arff.path = Path(tmp) / "large.arff"
            weka.write_arff(arff, np.arange(X.height), arff.path)
            start = time.perf_counter()
            theirs = weka.j48_tree(arff.path)
            seconds = time.perf_counter() - start
        leaves = sum(1 for line in theirs.splitlines() if ": " in line)
        j48_seconds, j48_leaves = seconds, leaves
        print(f"| J48 -C 0.25 -M 2 (JVM start included) | | {leaves:,} | {seconds:.1f} | |")
    fits = {
        "default": ("c4.5 default", {}),
        "exact": ('c4.5 splitter="exact"', {"splitter": "exact"}),
        "hist": ('c4.5 splitter="hist"', {"splitter": "hist"}),
    }
    for name in args.splitters.split(","):
        label, params = fits[name]
        times = []
        for _ in range(max(args.repeat, 1)):
            start = time.perf_counter()
            model = DecisionTreeClassifier(algorithm="c4.5", **params).fit(X, y)
            times.append(time.perf_counter() - start)
        seconds = min(times)
        same = None if theirs is None else weka.j48_text(model, arff) == theirs
        shown = "" if same is None else str(same)
        print(f"| {label} | {model.splitter_} | {model.n_leaves_:,} | {seconds:.1f} | {shown} |")
        rows.append(
            {
                "fit": label,
                "splitter_": model.splitter_,
                "leaves": model.n_leaves_,
                "seconds": seconds,
                "all_seconds": times,
                "prints_as_j48": same,
                "j48_over_quercus": None if j48_seconds is None else j48_seconds / seconds,
            }
        )
    if args.out:
        report = {
            **run_facts(),
            "rows_of_data": args.rows,
            "j48": {"seconds": j48_seconds, "leaves": j48_leaves},
            "fits": rows,
        }
        if args.baseline:
            report["baseline"] = json.loads(Path(args.baseline).read_text())
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
