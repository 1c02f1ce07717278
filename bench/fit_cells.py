"""Fit time of single cells of `bench/compare.py`, quercus (and optionally its peers) only:
the quick before/after check of a fit-side change, and the driver a profiler runs.

Usage:
    python bench/fit_cells.py                       # every cell below, both splitters
    python bench/fit_cells.py --cells 1m,flights --splitters hist --threads 1 --repeats 5
    python bench/fit_cells.py --cells regression --peers lightgbm,sklearn --threads 2
    valgrind --tool=callgrind --toggle-collect='*grow_searching*' \\
        python bench/fit_cells.py --cells flights --splitters exact --threads 1 --repeats 1

The cells are compare.py's data sets (same generator, seeds and peer settings), named:
dense (100k x 20, binary, depth 8), 1m, regression, categorical, flights, unlimited (no depth
limit), depth12, missing, multiclass, wide (100 features). Each fit is timed as compare.py
times it (wall clock of the whole fit from the prepared input); the best of `--repeats`
is printed with the process's CPU time (all threads; less moved by other work on the
machine than the wall clock) and the load average, and the ratio to each peer asked for.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from compare import PEERS, Case, Data, Quercus, make_data

CELLS: dict[str, Case] = {
    "dense": Case(100_000, 20, "binary", 8, "dense"),
    "1m": Case(1_000_000, 20, "binary", 8, "dense"),
    "1m-regression": Case(1_000_000, 20, "regression", 8, "dense"),
    "wide": Case(100_000, 100, "binary", 8, "dense"),
    "multiclass": Case(100_000, 20, "multiclass", 8, "dense"),
    "regression": Case(100_000, 20, "regression", 8, "dense"),
    "depth12": Case(100_000, 20, "binary", 12, "dense"),
    "unlimited": Case(100_000, 20, "binary", None, "dense"),
    "missing": Case(100_000, 20, "binary", 8, "missing"),
    "categorical": Case(100_000, 20, "binary", 8, "categorical"),
    "flights": Case(250_000, 13, "binary", 8, "flights"),
}


def cell_data(case: Case, name: str, cache: Path | None) -> Data:
    """The cell's training rows (one held-out row), from `cache` when it has them."""
    path = None if cache is None else cache / f"{name}.pickle"
    if path is not None and path.exists():
        with path.open("rb") as f:
            return pickle.load(f)
    data = make_data(case, test_rows=1)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            pickle.dump(data, f)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--cells", default=",".join(CELLS), help="comma-separated cell names")
    parser.add_argument("--splitters", default="exact,hist")
    parser.add_argument("--peers", default="", help="also time these (lightgbm,sklearn,xgboost)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--cache", type=Path, help="keep each cell's data here (a profiler skips generating it)"
    )
    args = parser.parse_args()
    tools = [Quercus(args.threads, s) for s in args.splitters.split(",") if s]
    tools += [PEERS[p](args.threads) for p in args.peers.split(",") if p]
    for name in args.cells.split(","):
        case = CELLS[name]
        data = cell_data(case, name, args.cache)
        times = {}
        for tool in tools:
            X = tool.inputs(data.train)
            best, cpu = float("inf"), float("inf")
            for _ in range(args.repeats):
                start, start_cpu = time.perf_counter(), time.process_time()
                tool.fit(X, data.y_train, case)
                best = min(best, time.perf_counter() - start)
                cpu = min(cpu, time.process_time() - start_cpu)
            times[tool.name] = best
            print(
                f"{name:12} {tool.name:14} fit {best:7.3f} s, cpu {cpu:7.3f} s "
                f"(load {os.getloadavg()[0]:.2f})",
                flush=True,
            )
        for ours in (t for t in tools if t.ours):
            for peer in (t for t in tools if not t.ours):
                ratio = times[ours.name] / times[peer.name]
                print(f"{name:12} {ours.name} / {peer.name}: {ratio:.2f}")


if __name__ == "__main__":
    main()
