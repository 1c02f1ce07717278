"""Time to fit a degenerate chain-shaped tree as its depth doubles, then query the deepest.

Usage: python bench/deep_chain.py [--depth 8000] [--start 1000] [--predict-rows 10000]
       [--max-text-mb 2048]

The data (`chain`) is one numeric column x = 0, 1, ..., D with alternating classes. Under Gini
every best split peels the single lowest row off (rust/core/tests/deep.rs gives the argument),
so the fully grown tree is a chain D levels deep with D + 1 one-row leaves. A node at depth d
still holds D + 1 - d rows, so any exact search touches about D²/2 rows over the fit: the
fit time should grow about 4x per doubling, and the printed exponent (of the CPU time, which
other work on the machine disturbs less than the wall time) shows whether it does (2.0) or
something worse is at work.

For the deepest chain the script then times what the reliability issue asks of a 100,000-deep
tree: predict (on `--predict-rows` evenly spaced rows, since every row walks its own path and
all of them would cost D²/2 steps), `export_text`, `to_dot`, the rules, and a to_bytes / save
and load round trip whose predictions must equal the original's. `export_text` indents every
line 4 spaces per level, so its text alone is about 4·D² bytes (40 GB at D = 100,000); it is
skipped, with the size it would have, above `--max-text-mb`.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

import quercus
from quercus import DecisionTreeClassifier

_T = TypeVar("_T")


def chain(depth: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """X = [[0], [1], ..., [depth]] and y alternating 0, 1, ...: a tree `depth` levels deep."""
    n = depth + 1
    return np.arange(n, dtype=np.float64).reshape(n, 1), np.arange(n) % 2


def timed(work: Callable[[], _T]) -> tuple[_T, float]:
    """`work()`'s result and its wall time in seconds."""
    start = time.perf_counter()
    result = work()
    return result, time.perf_counter() - start


def peak_rss_mib() -> float:
    """The process's peak resident set (VmHWM), in MiB; NaN where /proc is not available."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return math.nan
    kib = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM"))
    return kib / 1024


def depths(start: int, last: int) -> list[int]:
    """`start`, doubled while below `last`, then `last` itself."""
    out = []
    depth = start
    while depth < last:
        out.append(depth)
        depth *= 2
    return [*out, last]


def fit_chain(depth: int) -> tuple[DecisionTreeClassifier, float, float]:
    """A fitted chain of `depth` levels, the fit's wall time and its CPU time (all threads;
    on a shared machine the CPU time is the steadier figure); fails if it is not a chain."""
    X, y = chain(depth)
    cpu = time.process_time()
    model, seconds = timed(lambda: DecisionTreeClassifier().fit(X, y))
    cpu = time.process_time() - cpu
    if model.depth_ != depth or model.n_leaves_ != depth + 1:
        raise AssertionError(
            f"expected a chain {depth} deep with {depth + 1} leaves, got depth "
            f"{model.depth_} and {model.n_leaves_} leaves"
        )
    return model, seconds, cpu


def text_bytes(model: DecisionTreeClassifier) -> int:
    """A lower bound on the size of `export_text()`: its indentation, 4 spaces per level
    below the first (the root prints no line)."""
    depth = model.tree_.nodes()["depth"]
    return int(4 * np.maximum(depth[1:].astype(np.int64) - 1, 0).sum())


def query_deepest(model: DecisionTreeClassifier, predict_rows: int, max_text_mb: float) -> None:
    """Times predict, the renderings, the rules and the save / load round trip of `model`."""
    depth = model.depth_
    X, y = chain(depth)
    rows = np.unique(np.linspace(0, depth, min(predict_rows, depth + 1)).astype(np.int64))
    sample = X[rows]
    predicted, seconds = timed(lambda: model.predict(sample))
    steps = int(np.minimum(rows + 1, depth).sum())  # row r's leaf is min(r + 1, D) deep
    ok = bool(np.array_equal(predicted, y[rows]))
    print(
        f"predict {rows.size} rows: {seconds:.3f} s "
        f"({seconds / steps * 1e9:.1f} ns per level descended), all correct: {ok}"
    )

    needed = text_bytes(model)
    if needed > max_text_mb * 2**20:
        print(
            f"export_text: skipped, its indentation alone is {needed / 2**30:.1f} GiB "
            f"(4 spaces per level; raise --max-text-mb to render it)"
        )
    else:
        text, seconds = timed(model.export_text)
        lines = text.count("\n") + 1
        print(f"export_text: {seconds:.3f} s, {len(text) / 2**20:.1f} MiB, {lines} lines")
        del text
    dot, seconds = timed(model.to_dot)
    print(f"to_dot: {seconds:.3f} s, {len(dot) / 2**20:.1f} MiB")
    del dot
    rules, seconds = timed(model.rules)
    print(f"rules: {seconds:.3f} s, {len(rules)} rules")
    text, seconds = timed(rules.to_text)
    print(f"rules as text: {seconds:.3f} s, {len(text) / 2**20:.1f} MiB")

    data, seconds = timed(model.to_bytes)
    print(f"to_bytes: {seconds:.3f} s, {len(data) / 2**20:.1f} MiB")
    loaded, seconds = timed(lambda: DecisionTreeClassifier.from_bytes(data))
    print(f"from_bytes: {seconds:.3f} s")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chain.qrc"
        _, save_s = timed(lambda: model.save(path))
        reloaded, load_s = timed(lambda: quercus.load(path))
    print(f"save: {save_s:.3f} s, load: {load_s:.3f} s")
    if not isinstance(reloaded, DecisionTreeClassifier):
        raise AssertionError(f"load gave a {type(reloaded).__name__}")
    same = all(
        np.array_equal(m.predict(sample), predicted) and m.to_bytes() == data
        for m in (loaded, reloaded)
    )
    print(f"after loading, same predictions and bytes: {same}")
    if not (ok and same):
        raise AssertionError("the deepest chain did not predict or round-trip correctly")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--depth", type=int, default=8000, help="deepest chain (default 8000)")
    parser.add_argument("--start", type=int, default=1000, help="first depth (default 1000)")
    parser.add_argument("--predict-rows", type=int, default=10_000)
    parser.add_argument("--max-text-mb", type=float, default=2048)
    args = parser.parse_args()
    if not 1 <= args.start <= args.depth:
        parser.error("need 1 <= --start <= --depth")

    print(f"{'depth':>8} {'fit s':>9} {'CPU s':>9} {'CPU ns per row·level':>21} {'exponent':>9}")
    previous: tuple[int, float] | None = None
    model = None
    for depth in depths(args.start, args.depth):
        model, seconds, cpu = fit_chain(depth)
        # Rows summed over the nodes searched: depth + 1 at the root, down to 2.
        visits = (depth + 1) * (depth + 2) / 2 - 1
        exponent = (
            f"{math.log(cpu / previous[1]) / math.log(depth / previous[0]):9.2f}"
            if previous and cpu > 0 and previous[1] > 0
            else ""
        )
        line = f"{depth:8d} {seconds:9.3f} {cpu:9.3f} {cpu / visits * 1e9:21.1f} {exponent}"
        print(line, flush=True)
        previous = (depth, cpu)
    assert model is not None  # depths() is never empty
    print(f"\ndeepest chain, {model.depth_} levels ({model.n_nodes_} nodes):")
    query_deepest(model, args.predict_rows, args.max_text_mb)
    print(f"peak resident memory: {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
