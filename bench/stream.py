"""Fit time and peak memory: the in-memory histogram fit against the streamed fit of the same
Parquet file (issue 19). Each fit runs in a fresh process so that its peak RSS is its own.

    python bench/stream.py --rows 2000000 --features 20 --depth 8

Spark MLlib, Dask and xgboost.dask are not measured yet (see README).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl


def make(path: Path, rows: int, features: int, seed: int = 0) -> None:
    """float32 features, a label that depends on three of them, 5% noise."""
    rng = np.random.default_rng(seed)
    chunk = 1_000_000
    frames = []
    for start in range(0, rows, chunk):
        n = min(chunk, rows - start)
        x = rng.random((n, features), dtype=np.float32)
        score = x[:, 0] + 0.5 * x[:, 1] - 0.7 * x[:, 2] * x[:, 3]
        y = (score > 0.45).astype(np.int8) ^ (rng.random(n) < 0.05)
        frame = pl.DataFrame({f"x{j}": x[:, j] for j in range(features)})
        frames.append(frame.with_columns(pl.Series("y", y.astype(np.int8))))
    pl.concat(frames).write_parquet(path, row_group_size=250_000)


def run(mode: str, path: str, depth: int, budget: int, batch_rows: int) -> dict[str, float]:
    from quercus import DecisionTreeClassifier

    model = DecisionTreeClassifier(splitter="hist", max_depth=depth)
    start = time.perf_counter()
    if mode == "memory":
        model.fit(pl.read_parquet(path), target="y")
    else:
        model.fit(pl.scan_parquet(path), target="y", memory_budget=budget, batch_rows=batch_rows)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB on Linux
    return {
        "seconds": seconds,
        "peak_mib": peak,
        "leaves": model.get_n_leaves(),
        "bytes": len(model.to_bytes()),
        "digest": hashlib.sha256(model.to_bytes()).hexdigest(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--budget", type=int, default=256 << 20)
    parser.add_argument("--batch-rows", type=int, default=1 << 20)
    parser.add_argument("--child", nargs=2)
    args = parser.parse_args()
    if args.child:
        mode, path = args.child
        print(json.dumps(run(mode, path, args.depth, args.budget, args.batch_rows)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.parquet"
        make(path, args.rows, args.features)
        size = path.stat().st_size / 2**20
        print(
            f"{args.rows:,} rows x {args.features} float32, depth {args.depth}, "
            f"{size:.0f} MiB of Parquet"
        )
        results = {}
        for mode in ("memory", "stream"):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    mode,
                    str(path),
                    "--depth",
                    str(args.depth),
                    "--budget",
                    str(args.budget),
                    "--batch-rows",
                    str(args.batch_rows),
                ],
                check=True,
                capture_output=True,
                text=True,
            )
            results[mode] = json.loads(out.stdout.strip().splitlines()[-1])
        print("| fit | seconds | peak RSS (MiB) | leaves |")
        print("|---|--:|--:|--:|")
        for mode, r in results.items():
            print(f"| {mode} | {r['seconds']:.1f} | {r['peak_mib']:.0f} | {r['leaves']} |")
        same = results["memory"]["digest"] == results["stream"]["digest"]
        print(f"identical model files: {same}")


if __name__ == "__main__":
    main()
