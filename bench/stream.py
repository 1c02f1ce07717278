"""Fit time and peak memory on the same Parquet files (issue 19): quercus's in-memory
histogram fit, its streamed fit (a LazyFrame), quercus.dask on a LocalCluster of two worker
processes, and, when pyspark is installed, Spark MLlib's DecisionTreeClassifier (local[2],
the same depth, 255 bins). Each fit runs in a fresh process so that its peak RSS is its own
(for Dask and Spark, the peak of each of their processes is reported as well).

    python bench/stream.py --rows 2000000 --features 20 --depth 8

xgboost.dask is not measured yet (see README).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
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
    # Eight files: Dask reads a partition per file.
    path.mkdir()
    rows_all = pl.concat(frames)
    step = -(-rows // 8)
    for k, start in enumerate(range(0, rows, step)):
        part = rows_all.slice(start, step)
        part.write_parquet(path / f"part{k}.parquet", row_group_size=250_000)


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB on Linux


def run_dask(path: str, depth: int, budget: int) -> tuple[object, dict[str, float]]:
    # bench/sparse.py would shadow the `sparse` package that dask.array looks for.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from quercus.dask import DecisionTreeClassifier

    with (
        LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        # Workers import quercus and Dask's collections before the clock starts.
        client.run(lambda: __import__("quercus.dask"))
        start = time.perf_counter()
        model = DecisionTreeClassifier(max_depth=depth)
        model.fit(dd.read_parquet(path), target="y", memory_budget=budget)
        seconds = time.perf_counter() - start
        workers = client.run(_peak_mib)
    return model, {"seconds": seconds, "worker_peaks_mib": sorted(workers.values())}


def run_spark(path: str, depth: int) -> dict[str, float]:
    from pyspark.ml.classification import DecisionTreeClassifier
    from pyspark.ml.feature import VectorAssembler
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.memory", "8g")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    frame = spark.read.parquet(path)
    features = [c for c in frame.columns if c != "y"]
    start = time.perf_counter()
    data = VectorAssembler(inputCols=features, outputCol="features").transform(frame)
    model = DecisionTreeClassifier(
        labelCol="y", featuresCol="features", maxDepth=depth, maxBins=255
    ).fit(data)
    seconds = time.perf_counter() - start
    leaves = model.toDebugString.count("Predict:")
    # The JVM's peak RSS (local mode runs the executors in the driver's JVM).
    pid = spark.sparkContext._gateway.proc.pid
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    jvm = next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
    spark.stop()
    return {"seconds": seconds, "leaves": leaves, "jvm_peak_mib": jvm}


def run(mode: str, path: str, depth: int, budget: int, batch_rows: int) -> dict[str, float]:
    from quercus import DecisionTreeClassifier

    if mode == "spark":
        return {**run_spark(path, depth), "peak_mib": _peak_mib(), "digest": ""}
    files = f"{path}/*.parquet"
    extra = {}
    if mode == "dask":
        model, extra = run_dask(path, depth, budget)
        seconds = extra.pop("seconds")
    else:
        model = DecisionTreeClassifier(splitter="hist", max_depth=depth)
        start = time.perf_counter()
        if mode == "memory":
            model.fit(pl.read_parquet(files), target="y")
        else:
            lf = pl.scan_parquet(files)
            model.fit(lf, target="y", memory_budget=budget, batch_rows=batch_rows)
        seconds = time.perf_counter() - start
    return {
        **extra,
        "seconds": seconds,
        "peak_mib": _peak_mib(),
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
        path = Path(tmp) / "rows"
        make(path, args.rows, args.features)
        size = sum(f.stat().st_size for f in path.iterdir()) / 2**20
        print(
            f"{args.rows:,} rows x {args.features} float32, depth {args.depth}, "
            f"{size:.0f} MiB of Parquet"
        )
        results = {}
        modes = ["memory", "stream", "dask"]
        if importlib.util.find_spec("pyspark") is not None:
            modes.append("spark")
        for mode in modes:
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
            peak = f"{r['peak_mib']:.0f}"
            if "worker_peaks_mib" in r:
                peak += " client, workers " + ", ".join(f"{w:.0f}" for w in r["worker_peaks_mib"])
            if "jvm_peak_mib" in r:
                peak += f" Python, JVM {r['jvm_peak_mib']:.0f}"
            print(f"| {mode} | {r['seconds']:.1f} | {peak} | {r['leaves']} |")
        for mode in ("stream", "dask"):
            same = results["memory"]["digest"] == results[mode]["digest"]
            print(f"{mode}: identical model file to the in-memory fit: {same}")


if __name__ == "__main__":
    main()
