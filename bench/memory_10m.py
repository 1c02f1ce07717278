"""Peak memory and wall time of fitting a large numeric data set.

Usage: python bench/memory_10m.py [--rows 10000000] [--features 10] [--max-depth 12]
       [--splitter auto] [--dtype float32] [--order C] [--seed 0]

The reliability issue asks that 10 million rows x 10 columns fit within the memory of a
24 GiB machine, and that fitting 1 million rows x 20 columns take less than 3x the input's
size on top of it:

    python bench/memory_10m.py                                  # 10M x 10
    python bench/memory_10m.py --rows 1000000 --features 20     # 1M x 20
    python bench/memory_10m.py --max-depth none                 # fully grown

The data are float32 (4 bytes a cell; `--dtype float64` for 8, the same numbers), as a user
would hand them over, row-major (`--order F`: column-major), generated in blocks so that
generating them costs little beyond the array itself; the fit reads either dtype and order
in place. The peak resident set of the process (VmHWM) is reset once the data exist
(writing 5 to /proc/self/clear_refs), so the peak reported for the fit is the fit's own; the
increase over the resident set before the fit is what the fit needed, and its ratio to the
input's bytes (X and y, and X alone) is the figure the issue bounds (issue 19: at most 1.5x
X for a float32 X, exact and histogram search alike). Linux only (it reads /proc).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from quercus import DecisionTreeClassifier

_BLOCK = 1 << 20  # rows generated at a time
_MIB = 2**20


def memory_kib(field: str) -> int:
    """A /proc/self/status figure in KiB: VmRSS (now) or VmHWM (peak since the last reset)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def reset_peak() -> None:
    """Starts VmHWM afresh from the current resident set (Linux ≥ 4.0)."""
    Path("/proc/self/clear_refs").write_text("5")


def make_data(
    n_rows: int, n_features: int, seed: int, dtype: str = "float32", order: str = "C"
) -> tuple[NDArray[np.floating], NDArray[np.int64]]:
    """Standard normal features and two classes: the sign of a linear score of the first half
    of the features plus an interaction of the first two, with 10% of the labels flipped, so
    a tree has structure to find and noise to grow on when it is not limited."""
    rng = np.random.default_rng(seed)
    X = np.empty((n_rows, n_features), dtype=dtype, order=order)  # type: ignore[call-overload]
    y = np.empty(n_rows, dtype=np.int64)
    informative = max(1, n_features // 2)
    weights = rng.standard_normal(informative).astype(np.float32)
    for start in range(0, n_rows, _BLOCK):
        block = X[start : start + _BLOCK]
        block[:] = rng.standard_normal(block.shape, dtype=np.float32)  # the same for float64
        score = block[:, :informative].astype(np.float32) @ weights
        if n_features > 1:
            score += 2 * block[:, 0].astype(np.float32) * block[:, 1]
        flip = rng.random(len(block)) < 0.1
        y[start : start + len(block)] = (score > 0) ^ flip
    return X, y


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument(
        "--max-depth",
        type=lambda text: None if text == "none" else int(text),
        default=12,
        help="an integer, or none to grow the tree fully (default 12)",
    )
    parser.add_argument("--splitter", choices=("auto", "exact", "hist"), default="auto")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--order", choices=("C", "F"), default="C")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    start = time.perf_counter()
    X, y = make_data(args.rows, args.features, args.seed, args.dtype, args.order)
    input_bytes = X.nbytes + y.nbytes
    print(
        f"data: {args.rows:,} x {args.features} {args.dtype} ({args.order}-ordered), "
        f"2 classes, made in "
        f"{time.perf_counter() - start:.1f} s; X {X.nbytes / _MIB:.0f} MiB + "
        f"y {y.nbytes / _MIB:.0f} MiB = {input_bytes / _MIB:.0f} MiB"
    )
    print(f"peak resident while generating: {memory_kib('VmHWM') / 1024:.0f} MiB")

    baseline = memory_kib("VmRSS")
    reset_peak()
    model = DecisionTreeClassifier(max_depth=args.max_depth, splitter=args.splitter)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    peak = memory_kib("VmHWM")
    increase = (peak - baseline) * 1024
    print(
        f"fit (max_depth={args.max_depth}, splitter={args.splitter!r}): {seconds:.1f} s, "
        f"depth {model.depth_}, {model.n_leaves_:,} leaves"
    )
    print(f"resident before fit: {baseline / 1024:.0f} MiB; peak during fit: {peak / 1024:.0f} MiB")
    print(
        f"peak increase during fit: {increase / _MIB:.0f} MiB = "
        f"{increase / input_bytes:.2f} x the input X and y ({input_bytes / _MIB:.0f} MiB), "
        f"{increase / X.nbytes:.2f} x X alone"
    )
    head = min(args.rows, 1_000_000)
    accuracy = model.score(X[:head], y[:head])
    print(f"training accuracy (first {head:,} rows): {accuracy:.4f}")


if __name__ == "__main__":
    main()
