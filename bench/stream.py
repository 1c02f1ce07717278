"""Fit time, peak memory and held-out accuracy on the same Parquet files (issue 19): quercus's
in-memory histogram fit, its streamed fit (a LazyFrame), quercus.dask on a LocalCluster of
two worker processes, and, when installed, Spark MLlib's DecisionTreeClassifier (pyspark,
local[2], the same depth, 255 bins) and xgboost.dask (one round of one tree, the same depth,
255 bins, the same LocalCluster). Each fit runs in a fresh process so that its peak RSS is
its own (for Dask and Spark, the peak of each of their processes is reported as well), read
before the held-out rows are predicted. The streamed fit also reports where its time goes.

    python bench/stream.py --rows 10000000 --features 20 --depth 8
    python bench/stream.py --rows 200000000 --modes stream     # ~16 GB of Parquet in --dir

The data (float32 features, a binary label that depends on four of them with 5% noise) is
written to --dir (a temporary directory by default, removed at the end unless --keep), with
a held-out set of min(rows, 1M) rows drawn alike.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

# Rows generated and written at a time, and rows per file (a Dask partition each).
_CHUNK = 1_000_000
_FILE_ROWS = 2_000_000


def make(path: Path, rows: int, features: int, seed: int) -> None:
    """Writes `rows` rows to Parquet files in `path`, a chunk at a time (memory stays one
    chunk whatever `rows`): at least 8 files, at most `_FILE_ROWS` rows each."""
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    path.mkdir(parents=True)
    n_files = max(8, -(-rows // _FILE_ROWS)) if rows >= 8 else 1
    per_file = -(-rows // n_files)
    written = 0
    for k in range(n_files):
        file_rows = min(per_file, rows - written)
        if file_rows <= 0:
            break
        writer = None
        for start in range(0, file_rows, _CHUNK):
            n = min(_CHUNK, file_rows - start)
            x = rng.random((n, features), dtype=np.float32)
            score = x[:, 0] + 0.5 * x[:, 1] - 0.7 * x[:, 2] * x[:, 3]
            y = (score > 0.45).astype(np.int8) ^ (rng.random(n) < 0.05)
            frame = pl.DataFrame({f"x{j}": x[:, j] for j in range(features)})
            table = frame.with_columns(pl.Series("y", y.astype(np.int8))).to_arrow()
            if writer is None:
                writer = pq.ParquetWriter(path / f"part{k:04d}.parquet", table.schema)
            writer.write_table(table, row_group_size=250_000)
        if writer is not None:
            writer.close()
        written += file_rows


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB on Linux


def _cpu_seconds() -> float:
    """The process's CPU time (user and system): less sensitive than wall-clock time to
    other processes on the cores."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _held_out(test: str) -> tuple[pl.DataFrame, np.ndarray]:
    frame = pl.read_parquet(f"{test}/*.parquet")
    return frame.drop("y"), frame.get_column("y").to_numpy()


def _cluster() -> Any:
    from distributed import LocalCluster

    return LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)


def _task_seconds(tasks: list[dict[str, Any]]) -> dict[str, float]:
    """The workers' seconds by task name (the key's prefix: `read_parquet`, quercus's
    `census`, `partition_sketch`, `binned`, `partition_sums`, ...) and in transfers."""
    from dask.utils import key_split

    seconds: dict[str, float] = {}
    for task in tasks:
        for span in task["startstops"]:
            name = key_split(task["key"]) if span["action"] == "compute" else span["action"]
            seconds[name] = seconds.get(name, 0.0) + span["stop"] - span["start"]
    return seconds


def run_dask(path: str, test: str, depth: int, budget: int) -> dict[str, Any]:
    import dask.dataframe as dd
    from distributed import Client, get_task_stream

    import quercus
    from quercus.dask import DecisionTreeClassifier
    from quercus.scale import stream as _stream

    with _cluster() as cluster, Client(cluster) as client:
        # Workers import quercus and Dask's collections before the clock starts.
        client.run(lambda: __import__("quercus.dask"))
        start = time.perf_counter()
        model = DecisionTreeClassifier(max_depth=depth)
        with _stream.profiled() as steps, get_task_stream(client) as stream:
            model.fit(dd.read_parquet(path), target="y", memory_budget=budget)
        seconds = time.perf_counter() - start
        workers = client.run(_peak_mib)
        cpu = client.run(_cpu_seconds)
    peak = _peak_mib()
    X, y = _held_out(test)
    plain = quercus.from_bytes(model.to_bytes())
    return {
        "seconds": seconds,
        "peak_mib": peak,
        "worker_peaks_mib": sorted(workers.values()),
        "worker_cpu_seconds": sorted(cpu.values()),
        "leaves": model.get_n_leaves(),
        "accuracy": float(np.mean(plain.predict(X) == y)),
        "digest": hashlib.sha256(model.to_bytes()).hexdigest(),
        "profile": steps,
        "tasks": _task_seconds(stream.data),
    }


def run_xgboost(path: str, test: str, depth: int) -> dict[str, Any]:
    import dask.dataframe as dd
    import xgboost as xgb
    import xgboost.dask
    from distributed import Client

    with _cluster() as cluster, Client(cluster) as client:
        client.run(lambda: __import__("xgboost"))
        start = time.perf_counter()
        # Persisted first: Dask's optimiser may otherwise cut X and y into different
        # partitions, which xgboost.dask refuses.
        frame = client.persist(dd.read_parquet(path))
        X, y = frame.drop(columns="y"), frame["y"]
        model = xgboost.dask.DaskXGBClassifier(
            n_estimators=1, max_depth=depth, max_bin=255, tree_method="hist"
        )
        model.client = client
        model.fit(X, y)
        seconds = time.perf_counter() - start
        workers = client.run(_peak_mib)
    peak = _peak_mib()
    booster = model.get_booster()
    leaves = int((booster.trees_to_dataframe()["Feature"] == "Leaf").sum())
    X_test, y_test = _held_out(test)
    local = xgb.XGBClassifier()
    local.load_model(booster.save_raw())
    accuracy = float(np.mean(local.predict(X_test.to_numpy()) == y_test))
    return {
        "seconds": seconds,
        "peak_mib": peak,
        "worker_peaks_mib": sorted(workers.values()),
        "leaves": leaves,
        "accuracy": accuracy,
        "digest": "",
    }


def run_spark(path: str, test: str, depth: int) -> dict[str, Any]:
    from pyspark.ml.classification import DecisionTreeClassifier
    from pyspark.ml.evaluation import MulticlassClassificationEvaluator
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
    assembler = VectorAssembler(inputCols=features, outputCol="features")
    start = time.perf_counter()
    model = DecisionTreeClassifier(
        labelCol="y", featuresCol="features", maxDepth=depth, maxBins=255
    ).fit(assembler.transform(frame))
    seconds = time.perf_counter() - start
    leaves = model.toDebugString.count("Predict:")
    # The JVM's peak RSS (local mode runs the executors in the driver's JVM).
    pid = spark.sparkContext._gateway.proc.pid
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    jvm = next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
    peak = _peak_mib()
    held = model.transform(assembler.transform(spark.read.parquet(test)))
    evaluator = MulticlassClassificationEvaluator(labelCol="y", metricName="accuracy")
    accuracy = evaluator.evaluate(held)
    spark.stop()
    return {
        "seconds": seconds,
        "leaves": leaves,
        "jvm_peak_mib": jvm,
        "peak_mib": peak,
        "accuracy": accuracy,
        "digest": "",
    }


def run(mode: str, path: str, test: str, args: argparse.Namespace) -> dict[str, Any]:
    import quercus
    from quercus import DecisionTreeClassifier
    from quercus.scale import stream as _stream

    if mode == "spark":
        return run_spark(path, test, args.depth)
    if mode == "xgboost":
        return run_xgboost(path, test, args.depth)
    if mode == "dask":
        return run_dask(path, test, args.depth, args.budget)
    files = f"{path}/*.parquet"
    model = DecisionTreeClassifier(splitter="hist", max_depth=args.depth)
    extra: dict[str, Any] = {}
    start = time.perf_counter()
    if mode == "memory":
        model.fit(pl.read_parquet(files), target="y")
    else:
        lf = pl.scan_parquet(files)
        with _stream.profiled() as steps:
            model.fit(lf, target="y", memory_budget=args.budget, batch_rows=args.batch_rows)
        extra["profile"] = steps
    seconds = time.perf_counter() - start
    peak = _peak_mib()
    X, y = _held_out(test)
    plain = quercus.from_bytes(model.to_bytes())
    return {
        **extra,
        "seconds": seconds,
        "peak_mib": peak,
        "leaves": model.get_n_leaves(),
        "accuracy": float(np.mean(plain.predict(X) == y)),
        "digest": hashlib.sha256(model.to_bytes()).hexdigest(),
    }


_NAMES = {
    "memory": "quercus in memory (`pl.read_parquet`)",
    "stream": "quercus streamed (LazyFrame)",
    "dask": "quercus.dask, LocalCluster of 2 workers",
    "spark": "Spark MLlib, local[2]",
    "xgboost": "xgboost.dask, 1 round, LocalCluster of 2 workers",
}


def _profile_table(steps: dict[str, float], seconds: float) -> list[str]:
    """A fit's steps (or rounds) as shares of its time ("other": the rest)."""
    timed = {k: v for k, v in steps.items() if not k.startswith("kept")}
    rows = [*timed.items(), ("other", max(seconds - sum(timed.values()), 0.0))]
    lines = ["| step | seconds | share |", "|---|--:|--:|"]
    lines += [f"| {k} | {v:.1f} | {100 * v / seconds:.0f}% |" for k, v in rows]
    kept = [f"{k}: {v / 2**20:.0f} MiB" for k, v in steps.items() if k.startswith("kept")]
    return lines + ([f"({', '.join(kept)})"] if kept else [])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--budget", type=int, default=256 << 20)
    parser.add_argument("--batch-rows", type=int, help="rows per batch (quercus's default)")
    parser.add_argument("--modes", default="memory,stream,dask,spark,xgboost")
    parser.add_argument("--dir", help="where the Parquet files go (reused if present)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--child", nargs=3)
    parser.add_argument(
        "--json", help="also write the settings and every fit's measurements as JSON here"
    )
    args = parser.parse_args()
    if args.child:
        # bench/sparse.py would shadow the `sparse` package that dask.array looks for.
        here = Path(__file__).resolve().parent
        sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
        mode, path, test = args.child
        print(json.dumps(run(mode, path, test, args)))
        return
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp())
    path, test = base / "rows", base / "held_out"
    made = not path.exists()
    try:
        if made:
            start = time.perf_counter()
            make(path, args.rows, args.features, seed=0)
            make(test, min(args.rows, 1_000_000), args.features, seed=1)
            print(f"wrote the data in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        size = sum(f.stat().st_size for f in path.iterdir()) / 2**20
        print(
            f"{args.rows:,} rows x {args.features} float32, depth {args.depth}, "
            f"{size:.0f} MiB of Parquet in {len(list(path.iterdir()))} files"
        )
        needs = {"spark": "pyspark", "xgboost": "xgboost"}
        modes = [
            m
            for m in args.modes.split(",")
            if m not in needs or importlib.util.find_spec(needs[m]) is not None
        ]
        results = {}
        load_at_start = os.getloadavg()  # the figures are read with the machine's load
        for mode in modes:
            child = [sys.executable, __file__, "--child", mode, str(path), str(test)]
            for flag in ("depth", "budget", "batch_rows"):
                if getattr(args, flag) is not None:
                    child += [f"--{flag.replace('_', '-')}", str(getattr(args, flag))]
            out = subprocess.run(child, capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{mode} failed:\n{out.stderr[-2000:]}", file=sys.stderr)
                continue
            results[mode] = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{mode}: {results[mode]['seconds']:.1f} s", file=sys.stderr)
        print("| fit | seconds | peak RSS (MiB) | leaves | held-out accuracy |")
        print("|---|--:|--:|--:|--:|")
        for mode, r in results.items():
            peak = f"{r['peak_mib']:.0f}"
            if "worker_peaks_mib" in r:
                peak = f"client {peak}, workers " + ", ".join(
                    f"{w:.0f}" for w in r["worker_peaks_mib"]
                )
            if "jvm_peak_mib" in r:
                peak = f"Python {peak}, JVM {r['jvm_peak_mib']:.0f}"
            print(
                f"| {_NAMES[mode]} | {r['seconds']:.1f} | {peak} | {r['leaves']} "
                f"| {r['accuracy']:.4f} |"
            )
        if args.json:
            report = {
                "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "rows": args.rows,
                "features": args.features,
                "depth": args.depth,
                "budget": args.budget,
                "parquet_mib": size,
                "load_average_at_start": load_at_start,
                "load_average_at_end": os.getloadavg(),
                "results": results,
            }
            Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
        for mode in ("stream", "dask"):
            if "memory" in results and mode in results:
                same = results["memory"]["digest"] == results[mode]["digest"]
                print(f"{mode}: identical model file to the in-memory fit: {same}")
        if "stream" in results:
            print("\nThe streamed fit's time by step:")
            print(
                "\n".join(
                    _profile_table(results["stream"]["profile"], results["stream"]["seconds"])
                )
            )
        if "dask" in results:
            r = results["dask"]
            print("\nThe Dask fit's wall-clock time by round (client side):")
            print("\n".join(_profile_table(r["profile"], r["seconds"])))
            cpu = ", ".join(f"{c:.1f}" for c in r["worker_cpu_seconds"])
            print(f"\nThe Dask workers' CPU seconds (from their start): {cpu}")
            print("\nThe Dask workers' busy seconds by task (both workers added up):")
            print("| task | seconds |\n|---|--:|")
            for name, busy in sorted(r["tasks"].items(), key=lambda kv: -kv[1]):
                print(f"| {name} | {busy:.1f} |")
    finally:
        if made and not args.keep:
            for d in (path, test) if args.dir else (base,):
                shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
