"""Peak memory of a fit over the size of X: exact and histogram search, float32 and float64,
NumPy and Polars (issue 38: at most 1.5x X for both searches).

Usage:
    python bench/fit_memory.py [--rows 2000000] [--features 20] [--max-depth 12]
                               [--label after] [--out bench/results/fit_memory.json]

The data are memory_10m.py's (standard normal features, two classes), made as float32 or as
a float64 copy, as an array or a Polars frame (its columns the array's, copied once). Every
fit runs in an interpreter of its own (a fit before it would leave pages the
allocator keeps and reuses, so the rise measured would depend on the cells' order: the
first exact fit of one process rose 1.93x X, the later ones 1.45-1.65x), and is measured
as compare.py measures one: garbage collected, freed memory handed back (`malloc_trim`),
the kernel's peak resident set reset (writing 5 to /proc/self/clear_refs), then the fit;
the rise of VmHWM over VmRSS before it is the fit's peak, the model included. The ratio
divides it by the bytes of X as handed over (float64: twice float32's) and by the bytes of X
in float32 (the same numbers), the figure the issue bounds. A warm-up fit first pays the
thread pool and code pages. Linux only.

The extension allocates through mimalloc, which keeps freed pages for a second before it
hands them back: `MIMALLOC_PURGE_DELAY=0 python bench/fit_memory.py --label ...` measures
the fit with them handed back at once (the run records the setting).

Each run is stored under its `--label` in the JSON file, beside the other labels' runs: run
it on the build before a change with `--label before` and after it with `--label after`.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from memory_10m import make_data, memory_kib, reset_peak

from quercus import DecisionTreeClassifier

_MIB = 2**20
_LIBC = ctypes.CDLL("libc.so.6")
RESULTS = Path(__file__).parent / "results" / "fit_memory.json"


def settle() -> int:
    """Collect garbage, hand freed memory back and reset the peak; the resident KiB now."""
    gc.collect()
    _LIBC.malloc_trim(0)
    reset_peak()
    return memory_kib("VmRSS")


def measure(
    X: Any, y: np.ndarray, splitter: str, max_depth: int
) -> tuple[float, float, float, int]:
    """The fit's peak rise over the resident set before it (MiB), its seconds, the process's
    CPU seconds (user and system: returning memory to the system costs system time) and
    its leaves."""
    model = None
    baseline = settle()
    start, cpu = time.perf_counter(), time.process_time()
    model = DecisionTreeClassifier(max_depth=max_depth, splitter=splitter).fit(X, y)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return (memory_kib("VmHWM") - baseline) / 1024, seconds, cpu, model.n_leaves_


def commit() -> str:
    """The checkout's commit (and whether it has changes), to tell runs apart."""
    here = Path(__file__).parent
    git = ["git", "-C", str(here)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    )
    return head.stdout.strip() + (" (modified)" if dirty.stdout.strip() else "")


def cell(kind: str, dtype: str, splitter: str, rows: int, features: int, depth: int) -> None:
    """One fit in this interpreter; prints its row of the results as JSON."""
    X32, y = make_data(rows, features, seed=0)
    array = X32 if dtype == "float32" else X32.astype(np.float64)
    del X32
    X = array if kind == "numpy" else pl.DataFrame(array, schema=[f"x{j}" for j in range(features)])
    if kind != "numpy":
        del array
    DecisionTreeClassifier(max_depth=3).fit(X[:1000], y[:1000])  # warm-up
    peak, seconds, cpu, leaves = measure(X, y, splitter, depth)
    f32_mib, given_mib = (
        rows * features * 4 / _MIB,
        rows * features * (4 if dtype == "float32" else 8) / _MIB,
    )
    row = {
        "input": kind,
        "dtype": dtype,
        "splitter": splitter,
        "fit_s": round(seconds, 3),
        "cpu_s": round(cpu, 3),
        "peak_rise_mib": round(peak, 1),
        "x_mib": round(given_mib, 1),
        "ratio_to_x": round(peak / given_mib, 3),
        "ratio_to_x_float32": round(peak / f32_mib, 3),
        "leaves": leaves,
    }
    print(json.dumps(row))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--cell":
        kind, dtype, splitter, rows, features, depth = sys.argv[2:8]
        cell(kind, dtype, splitter, int(rows), int(features), int(depth))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--max-depth", type=int, default=12)
    parser.add_argument("--label", default="after")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--commit", help="the build measured, when quercus is not this checkout's (PYTHONPATH)"
    )
    args = parser.parse_args()

    f32_mib = args.rows * args.features * 4 / _MIB
    print(f"{args.rows:,} x {args.features}, depth {args.max_depth}; X float32 {f32_mib:.0f} MiB")
    print(
        "| input | splitter | fit (s) | CPU (s) | peak rise (MiB) | / X as given | / X float32 "
        "| leaves |"
    )
    print("|---|---|---|---|---|---|---|---|")
    results = []
    for dtype in ("float32", "float64"):
        for kind in ("numpy", "polars"):
            for splitter in ("exact", "hist"):
                which = [kind, dtype, splitter, str(args.rows), str(args.features)]
                child = subprocess.run(
                    [sys.executable, __file__, "--cell", *which, str(args.max_depth)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                result = json.loads(child.stdout.splitlines()[-1])
                results.append(result)
                print(
                    f"| {kind} {dtype} | {splitter} | {result['fit_s']:.2f} | "
                    f"{result['cpu_s']:.2f} | {result['peak_rise_mib']:.0f} | "
                    f"{result['ratio_to_x']:.2f} | {result['ratio_to_x_float32']:.2f} | "
                    f"{result['leaves']:,} |",
                    flush=True,
                )

    stored = json.loads(args.out.read_text()) if args.out.exists() else {}
    stored.setdefault("runs", {})[args.label] = {
        "commit": args.commit or commit(),
        "rows": args.rows,
        "features": args.features,
        "max_depth": args.max_depth,
        "cpus": len(os.sched_getaffinity(0)),
        "load_average": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        # mimalloc returns freed pages this many ms after the free (unset: its default, 1 s)
        "mimalloc_purge_delay": os.environ.get("MIMALLOC_PURGE_DELAY"),
        "results": results,
    }
    args.out.write_text(json.dumps(stored, indent=1) + "\n")
    print(f"stored under {args.label!r} in {args.out}")


if __name__ == "__main__":
    main()
