"""Optimal trees side by side: quercus (algorithm="optimal", raw features) against ConTree
(pycontree, raw continuous features), STreeD (pystreed) and GOSDT (gosdt), the last two on
the binarisation they need, in one run.

    pip install -e ".[optimal-bench]"
    python bench/optimal.py                    # the README table (minutes)
    python bench/optimal.py --tiny             # breast cancer at depth 2, seconds (CI)
    python bench/optimal.py --depths 3 --only "generated 100k x 20" --solvers quercus \
        --time-limit 60 --n-jobs 2             # depth 3 on 100k x 20 raw, on 2 threads
    python bench/optimal.py --solvers quercus,contree --contree-python /tmp/vcontree/bin/python

Data: breast cancer (scikit-learn), the Weka example sets diabetes, ionosphere, credit-g and
segment-challenge (Debian's `weka` package: /usr/share/doc/weka/examples), and two generated
sets of 10,000 and 100,000 rows x 20 standard normal features whose class is a planted
depth-3 tree on features 0-2 with 5% of the labels flipped (seed 0).

Binarisation for STreeD and GOSDT (they search binary features only): each numeric feature
becomes `x <= q` for its `--thresholds` (default 10) quantiles at (1 .. k) / (k + 1) (distinct
values only), each nominal feature one indicator per category (`x = c`). quercus reads the
raw columns: every midpoint threshold, nominal features as categories (subset tests).

Every solver minimises training misclassification at depth d (no leaf penalty: STreeD's
cost_complexity = 0; GOSDT's per-leaf regularisation 1 / (2 n 2^d), less than one error
over the largest tree, so its optimum has the least errors), one thread each, under the same
time limit; and quercus once more on STreeD's own binary features ("quercus binary": the
same search space, so both must prove the same optimum, and the times compare the searches
alone). Reported: training errors (on each solver's own input), whether the solver
proved optimality ("yes"; else its gap or "no"), and the CPU seconds of `fit` (one thread
each: on an idle machine, its wall-clock time).

ConTree (Brița, van der Linden & Demirović, AAAI 2025) searches every threshold of the raw
numeric features, as quercus does, so where both prove an optimum it must be the same; it
takes no nominal features, so it gets the numeric columns only, and so does "quercus
numeric" (on sets without nominal features, the same fit as "quercus raw"). It runs in a
child process of `--contree-python` (default: this interpreter), so it may live in another
environment; the column says "not installed" when that interpreter lacks pycontree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np
import polars as pl
from run_facts import run_facts  # this directory's

from quercus import DecisionTreeClassifier

WEKA = Path("/usr/share/doc/weka/examples")


# --- data -------------------------------------------------------------------------------------


def breast_cancer() -> tuple[pl.DataFrame, np.ndarray]:
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return pl.DataFrame(X, schema=[f"x{i}" for i in range(X.shape[1])]), y


def weka(name: str) -> tuple[pl.DataFrame, np.ndarray] | None:
    """A Weka example set: numeric attributes as floats, nominal ones as categories; the last
    attribute is the class."""
    path = WEKA / f"{name}.arff"
    if not path.exists():
        return None
    from scipy.io import arff

    data, meta = arff.loadarff(path)
    names = meta.names()
    columns = {}
    for name_ in names[:-1]:
        values = data[name_]
        if meta[name_][0] == "numeric":
            columns[name_] = pl.Series(np.asarray(values, dtype=float))
        else:
            text = [v.decode() for v in values]
            text = [None if t == "?" else t for t in text]
            columns[name_] = pl.Series(text, dtype=pl.Categorical)
    labels = np.array([v.decode() for v in data[names[-1]]])
    return pl.DataFrame(columns), np.unique(labels, return_inverse=True)[1]


def planted(n: int, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray]:
    """20 standard normal features; the class is a depth-3 tree on features 0-2, 5% flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 20))
    a, b, c = X[:, 0] > 0.2, X[:, 1] > -0.4, X[:, 2] > 0.5
    y = np.where(a, np.where(b, c, ~c), np.where(c, b, False)).astype(int)
    flip = rng.random(n) < 0.05
    y = np.where(flip, 1 - y, y)
    return pl.DataFrame(X, schema=[f"x{i}" for i in range(20)]), y


def datasets(tiny: bool) -> list[tuple[str, pl.DataFrame, np.ndarray]]:
    sets = [("breast cancer", *breast_cancer())]
    if tiny:
        return sets
    for name in ("diabetes", "ionosphere", "credit-g", "segment-challenge"):
        loaded = weka(name)
        if loaded is None:
            print(f"skipping {name}: {WEKA} not found (Debian package weka)", file=sys.stderr)
        else:
            sets.append((name, *loaded))
    sets.append(("generated 10k x 20", *planted(10_000)))
    sets.append(("generated 100k x 20", *planted(100_000)))
    return sets


def binarise(X: pl.DataFrame, thresholds: int) -> np.ndarray:
    """Binary features: `x <= q` at quantiles of numeric columns, one indicator per category
    (a missing value is in no indicator, and fails every `x <= q`)."""
    out = []
    for column in X.columns:
        s = X[column]
        if s.dtype == pl.Categorical:
            values = s.cast(pl.String).to_numpy()
            for category in sorted({v for v in values if v is not None}):
                out.append(values == category)
        else:
            v = s.to_numpy().astype(float)
            qs = np.unique(np.nanquantile(v, np.arange(1, thresholds + 1) / (thresholds + 1)))
            for q in qs[qs < np.nanmax(v)]:
                out.append(v <= q)
    return np.column_stack(out).astype(np.int32)


# --- solvers ----------------------------------------------------------------------------------


class Clock:
    """The CPU seconds a fit takes (process time; each solver runs on one thread, so on an
    idle machine this is its wall-clock time, and on a busy one it is not inflated by the
    other processes), and its wall-clock seconds."""

    def __enter__(self) -> Clock:
        self.cpu, self.wall = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.process_time() - self.cpu
        self.wall_seconds = time.perf_counter() - self.wall


def run_quercus(X, y, depth, limit, n_jobs=1):
    model = DecisionTreeClassifier(
        algorithm="optimal", max_depth=depth, max_time=limit, n_jobs=n_jobs, missing="learned"
    )
    import warnings

    with warnings.catch_warnings(), Clock() as clock:
        warnings.simplefilter("ignore")
        model.fit(X, y)
    errors = int((model.predict(X) != y).sum())
    return errors, quercus_proof(model, clock, n_jobs), clock.seconds


def quercus_proof(model, clock, n_jobs):
    """'yes' or the gap; with several threads, the wall-clock seconds too (CPU seconds then
    add up the threads')."""
    proof = "yes" if model.proven_optimal_ else f"gap {model.optimality_gap_:.1%}"
    return proof if n_jobs == 1 else f"{proof} (wall {clock.wall_seconds:.2f} s)"


def run_quercus_binary(B, y, depth, limit, n_jobs=1):
    """quercus on STreeD's 0/1 features: each has one threshold, so the search space is
    STreeD's."""
    return run_quercus(B.astype(np.float64), y, depth, limit, n_jobs)


def run_quercus_hist(X, y, depth, limit, bins, n_jobs=1):
    """quercus on the histogram splitter's thresholds: `bins` quantile bins per numeric
    feature (at most as many thresholds as STreeD's binarisation, at quercus's own
    quantiles)."""
    model = DecisionTreeClassifier(
        algorithm="optimal",
        splitter="hist",
        max_bins=bins,
        max_depth=depth,
        max_time=limit,
        n_jobs=n_jobs,
        missing="learned",
    )
    import warnings

    with warnings.catch_warnings(), Clock() as clock:
        warnings.simplefilter("ignore")
        model.fit(X, y)
    errors = int((model.predict(X) != y).sum())
    return errors, quercus_proof(model, clock, n_jobs), clock.seconds


def numeric(X: pl.DataFrame) -> pl.DataFrame:
    """The numeric columns (ConTree's input)."""
    return X.select([c for c in X.columns if X[c].dtype != pl.Categorical])


# ConTree's fit in a child process (its interpreter may be another environment's): reads X and
# y from an .npz file, prints errors, whether it finished within the limit, CPU and wall s.
CONTREE_WORKER = """
import json, sys, time, warnings
import numpy as np
from pycontree import ConTree
data = np.load(sys.argv[1])
X, y = data["X"], data["y"]
model = ConTree(max_depth=int(sys.argv[2]), time_limit=float(sys.argv[3]))
cpu, wall = time.process_time(), time.perf_counter()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model.fit(X, y)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
stopped = any("time limit" in str(w.message) for w in caught)
errors = int((model.predict(X) != y).sum())
print(json.dumps({"errors": errors, "stopped": stopped, "cpu": cpu, "wall": wall}))
"""


def run_contree(X, y, depth, limit, python=None):
    """ConTree on the numeric columns, in a child process of `python`; CPU seconds of the fit
    (it runs on one thread)."""
    python = python or sys.executable
    try:
        probe = subprocess.run([python, "-c", "import pycontree"], capture_output=True)
    except OSError:  # no such interpreter
        probe = None
    if probe is None or probe.returncode != 0:
        return None, f"not installed (pycontree in {python})", float("nan")
    values = numeric(X).to_numpy().astype(np.float64)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.npz"
        np.savez(path, X=values, y=np.asarray(y, dtype=np.int32))
        done = subprocess.run(
            [python, "-c", CONTREE_WORKER, str(path), str(depth), str(limit)],
            capture_output=True,
            text=True,
            check=True,
        )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["errors"], "no" if result["stopped"] else "yes", result["cpu"]


def run_streed(B, y, depth, limit):
    from pystreed import STreeDClassifier

    model = STreeDClassifier(max_depth=depth, time_limit=limit, cost_complexity=0.0)
    with Clock() as clock:
        model.fit(B, y)
    errors = int((model.predict(B) != y).sum())
    return errors, "yes" if model.fit_result.is_optimal() else "no", clock.seconds


def run_gosdt(B, y, depth, limit):
    import gosdt._classifier as gosdt_module
    from gosdt import GOSDTClassifier

    # gosdt 1.0.4's predict passes check_array the keyword scikit-learn 1.8 renamed
    # (force_all_finite -> ensure_all_finite); translate it so that predict runs.
    check = gosdt_module.check_array
    if not getattr(check, "translated", False):

        def translated(*a, force_all_finite=None, **kw):
            if force_all_finite is not None:
                kw["ensure_all_finite"] = force_all_finite
            return check(*a, **kw)

        translated.translated = True
        gosdt_module.check_array = translated

    regularization = 1.0 / (2 * len(y) * 2**depth)
    model = GOSDTClassifier(
        regularization=regularization,
        allow_small_reg=True,
        depth_budget=depth + 1,  # GOSDT counts the root as depth 1
        time_limit=int(np.ceil(limit)),
        worker_limit=1,
    )
    with Clock() as clock:
        model.fit(B, y)
    seconds = clock.seconds
    errors = int((model.predict(B) != y).sum())
    result = getattr(model, "result_", None)
    status = result.get("status") if isinstance(result, dict) else getattr(result, "status", None)
    return errors, "yes" if "CONVERGED" in str(status) else "no", seconds


def cell(solver, *args):
    try:
        return solver(*args)
    except ImportError as error:
        return None, f"not installed ({error.name})", float("nan")
    except Exception as error:  # a peer's failure is a result, not the end of the run
        return None, f"error: {type(error).__name__}: {str(error)[:60]}", float("nan")


# --- main -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="breast cancer, depth 2 only")
    parser.add_argument("--depths", default="2,3,4")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds per fit")
    parser.add_argument("--thresholds", type=int, default=10, help="quantiles per feature")
    parser.add_argument("--only", help="comma-separated data set names")
    parser.add_argument(
        "--solvers",
        default="quercus,quercus-numeric,contree,quercus-hist,quercus-binary,streed,gosdt",
    )
    parser.add_argument(
        "--contree-python",
        help="the Python interpreter whose environment has pycontree (default: this one)",
    )
    parser.add_argument("--out", help="write the rows as JSON here")
    parser.add_argument(
        "--n-jobs",
        type=int,
        default=1,
        help="threads of each quercus fit (the peers run on one); with more than one, the "
        "CPU seconds add up the threads' and the wall-clock seconds follow the proof",
    )
    args = parser.parse_args()
    depths = [2] if args.tiny else [int(d) for d in args.depths.split(",")]
    if args.tiny:
        args.time_limit = min(args.time_limit, 10.0)
    rows = []
    print(f"cpus available: {len(os.sched_getaffinity(0))}, load: {os.getloadavg()[0]:.1f}")
    names = ("quercus raw", "quercus numeric", "ConTree", "quercus hist", "quercus binary")
    cells = " | ".join(f"{s}: errors, proven, s" for s in (*names, "STreeD", "GOSDT"))
    print(f"| data | rows x features (binary) | depth | {cells} |")
    print("|---|---|---|" + "---|" * 7)
    for name, X, y in datasets(args.tiny):
        if args.only and name not in args.only.split(","):
            continue
        B = binarise(X, args.thresholds)
        for depth in depths:
            jobs = args.n_jobs
            hist = partial(run_quercus_hist, bins=args.thresholds + 1, n_jobs=jobs)
            nominal = numeric(X).width < X.width
            solvers = {
                "quercus": (partial(run_quercus, n_jobs=jobs), X),
                "quercus-numeric": (partial(run_quercus, n_jobs=jobs), numeric(X)),
                "contree": (partial(run_contree, python=args.contree_python), X),
                "quercus-hist": (hist, X),
                "quercus-binary": (partial(run_quercus_binary, n_jobs=jobs), B),
                "streed": (run_streed, B),
                "gosdt": (run_gosdt, B),
            }
            chosen = args.solvers.split(",")
            results = {}
            for k, (run, data) in solvers.items():
                if k not in chosen:
                    results[k] = (None, "not run", float("nan"))
                elif k == "quercus-numeric" and not nominal and "quercus" in chosen:
                    results[k] = results["quercus"]  # the same fit
                else:
                    results[k] = cell(run, data, y, depth, args.time_limit)

            def show(r):
                errors, proof, seconds = r
                if errors is None:
                    return proof
                return f"{errors}, {proof}, {seconds:.2f}"

            print(
                f"| {name} | {X.height} x {X.width} ({B.shape[1]}) | {depth} | "
                + " | ".join(show(r) for r in results.values())
                + " |",
                flush=True,
            )
            rows.append(
                {
                    "data": name,
                    "depth": depth,
                    "rows": X.height,
                    "features": X.width,
                    "binary_features": B.shape[1],
                    **{
                        f"{k}_{field}": v
                        for k, r in results.items()
                        for field, v in zip(("errors", "proof", "seconds"), r, strict=True)
                    },
                }
            )
    if args.out:
        report = {**run_facts(), "rows": rows}
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
