"""Fit time and peak memory of a tree on a large sparse X, quercus against scikit-learn.

Usage: python bench/sparse.py [--rows 1000000] [--features 10000] [--density 0.001]
       [--max-depth 8] [--task classification] [--splitters exact,hist] [--no-sklearn]
       [--seed 0]

The sparse-input issue asks that a fit on a 1,000,000 x 10,000 CSR matrix of 0.1% density
(10 million stored values) read the matrix as it is: nothing proportional to rows x features
(80 GB as dense float64) may be allocated. This script builds such a matrix without ever
making it dense, fits quercus (exact and histogram search) and scikit-learn's
DecisionTreeClassifier / Regressor (its sparse splitter) on it with the same depth limit,
and reports for each the fit's wall and CPU time (every thread's), its peak memory, the
tree's size, held-out accuracy (or R²) and the prediction time of the held-out rows (CSR).

The data look like a bag of words: column j is stored in a share of the rows proportional to
1 / (j + 10) (a few common columns, a long tail of rare ones), at uniformly drawn rows; even
columns hold positive values (log-normal, like TF-IDF weights), odd ones signed (normal), so
both sides of the zeros are searched. The target is a noisy linear score of the 50 most common
columns: two classes split at its median, or the score itself for regression.

Peak memory is the kernel's count (VmHWM), reset to the current resident set just before
each fit (writing 5 to /proc/self/clear_refs), minus the resident set then: what the fit
itself needed, the model included, on top of the input. Each fit runs once (they are long).
Linux only (it reads /proc). The figures in the README came from

    python bench/sparse.py                        # 1M x 10k, 0.1%, depth 8
"""

from __future__ import annotations

import argparse
import gc
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

import quercus

_MIB = 2**20


def memory_kib(field: str) -> int:
    """A /proc/self/status figure in KiB: VmRSS (now) or VmHWM (peak since the last reset)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def reset_peak() -> None:
    """Starts VmHWM afresh from the current resident set (Linux >= 4.0)."""
    Path("/proc/self/clear_refs").write_text("5")


def make_data(
    n_rows: int, n_features: int, density: float, classification: bool, seed: int
) -> tuple[sp.csr_matrix, NDArray[Any]]:
    """The bag-of-words-like CSR matrix and target described in the module's notes, built
    column by column (never dense)."""
    rng = np.random.default_rng(seed)
    share = 1.0 / (np.arange(n_features) + 10.0)
    per_column = np.minimum(
        np.rint(share / share.sum() * n_rows * n_features * density).astype(np.int64), n_rows
    )
    indptr = np.zeros(n_features + 1, dtype=np.int64)
    np.cumsum(per_column, out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int32)
    data = np.empty(indptr[-1], dtype=np.float64)
    for j, n in enumerate(per_column):
        span = slice(indptr[j], indptr[j + 1])
        indices[span] = np.sort(rng.choice(n_rows, size=n, replace=False))
        data[span] = rng.lognormal(size=n) if j % 2 == 0 else rng.standard_normal(n)
    X = sp.csc_matrix((data, indices, indptr), shape=(n_rows, n_features))
    informative = min(50, n_features)
    score = X[:, :informative] @ rng.standard_normal(informative)
    score += 0.3 * rng.standard_normal(n_rows)
    y = (score > np.median(score)).astype(np.int64) if classification else score
    return X.tocsr(), y


def cpu_seconds() -> float:
    """CPU time of the process so far, every thread's, user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def fit_measured(model: Any, X: Any, y: NDArray[Any]) -> tuple[float, float, float]:
    """Fits `model`; returns (wall seconds, CPU seconds, peak MiB above the resident set
    before the fit)."""
    gc.collect()
    reset_peak()
    before = memory_kib("VmRSS")
    start, cpu = time.perf_counter(), cpu_seconds()
    model.fit(X, y)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    return seconds, cpu, (memory_kib("VmHWM") - before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=10_000)
    parser.add_argument("--density", type=float, default=0.001)
    parser.add_argument("--max-depth", default="8", help="an integer or 'none'")
    parser.add_argument(
        "--task", choices=("classification", "regression"), default="classification"
    )
    parser.add_argument("--splitters", default="exact,hist")
    parser.add_argument("--no-sklearn", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    depth = None if args.max_depth == "none" else int(args.max_depth)
    classification = args.task == "classification"

    start = time.perf_counter()
    X, y = make_data(args.rows, args.features, args.density, classification, args.seed)
    n_test = max(1, args.rows // 10)
    X_train, X_test, y_train, y_test = X[n_test:], X[:n_test], y[n_test:], y[:n_test]
    X_train = X_train.tocsc()  # both libraries fit from columns: converted once, outside the timing
    del X
    input_mib = (X_train.data.nbytes + X_train.indices.nbytes + X_train.indptr.nbytes) / _MIB
    dense_gib = X_train.shape[0] * X_train.shape[1] * 8 / 2**30
    print(
        f"{X_train.shape[0]:,} training rows x {X_train.shape[1]:,} features, "
        f"{X_train.nnz:,} stored values ({X_train.nnz / np.prod(X_train.shape):.3%}): "
        f"CSC input {input_mib:.0f} MiB (dense float64 would be {dense_gib:.0f} GiB); "
        f"{n_test:,} held-out rows; made in {time.perf_counter() - start:.0f} s"
    )

    # Each model is made just before its fit, so the previous one is gone by then.
    models: list[tuple[str, Any]] = []
    Tree = quercus.DecisionTreeClassifier if classification else quercus.DecisionTreeRegressor
    for splitter in args.splitters.split(","):
        models.append((f"quercus {splitter}", lambda s=splitter: Tree(max_depth=depth, splitter=s)))
    if not args.no_sklearn:
        import sklearn.tree

        Peer = (
            sklearn.tree.DecisionTreeClassifier
            if classification
            else sklearn.tree.DecisionTreeRegressor
        )
        models.append(("scikit-learn", lambda: Peer(max_depth=depth, random_state=0)))

    metric = "accuracy" if classification else "R²"
    print(f"\n| tool | fit s | fit CPU s | peak fit MiB | leaves | held-out {metric} | predict s |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for name, make in models:
        model = make()
        seconds, cpu, peak = fit_measured(model, X_train, y_train)
        start = time.perf_counter()
        predicted = model.predict(X_test)
        predict_s = time.perf_counter() - start
        if classification:
            quality = float(np.mean(predicted == y_test))
        else:
            quality = 1 - float(
                np.sum((predicted - y_test) ** 2) / np.sum((y_test - y_test.mean()) ** 2)
            )
        leaves = model.get_n_leaves()
        print(
            f"| {name} | {seconds:.2f} | {cpu:.2f} | {peak:.0f} | {leaves} | {quality:.4f} "
            f"| {predict_s:.3f} |",
            flush=True,
        )
        del model
        gc.collect()


if __name__ == "__main__":
    main()
