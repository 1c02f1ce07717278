"""Time J48's collapse() and C4.5's pessimistic pruning with and without subtree raising.

Usage: python bench/c45_pruning_speed.py [--rows 100000] [--repeat 3]

Trees:
* "noisy": CART grown fully on `--rows` rows of 10 normal features, the class a noisy
  function of three of them (about 15,000 leaves, depth about 36);
* "chain D×k": one feature x = 0..D, each value k times, the class x mod 2: CART grows a
  chain D levels deep whose leaves hold k rows each. With k = 50 the leaves survive
  pruning, the case where sending each node's rows down its largest branch (as J48 does)
  costs O(rows × depth) per node; with k = 1 they do not.

Each pass is timed on the same grown tree (best of `--repeat`); collapse is skipped where
quercus has none (before issue 14). Also times the c4.5 preset's whole fit on the noisy rows.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from quercus import DecisionTreeClassifier, _core


def best_of(repeat: int, run) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - start)
    return best, out


def noisy(rows: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, 10))
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=rows)) > 0).astype(int)
    return X, y


def chain(depth: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.repeat(np.arange(depth + 1, dtype=float), k)
    return x[:, None], (x % 2).astype(int)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cases = {
        f"noisy {args.rows:,}×10": noisy(args.rows),
        "chain 400×50": chain(400, 50),
        "chain 1000×20": chain(1000, 20),
        "chain 8000×1": chain(8000, 1),
    }
    print(
        "| tree | rows | leaves | depth | grow s | collapse s | pessimistic s "
        "| pessimistic + raising s | leaves after raising |"
    )
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for name, (X, y) in cases.items():
        grow_s, grown = best_of(1, lambda X=X, y=y: DecisionTreeClassifier().fit(X, y))
        tree = grown._state.tree
        collapse = getattr(_core, "prune_collapse", None)
        collapse_s = (
            f"{best_of(args.repeat, lambda c=collapse, t=tree: c(t))[0]:.3f}" if collapse else "—"
        )
        plain_s, _ = best_of(args.repeat, lambda grown=grown: grown.prune("pessimistic"))
        raise_s, raised = best_of(
            args.repeat, lambda grown=grown, X=X, y=y: grown.prune("pessimistic", X=X, y=y)
        )
        print(
            f"| {name} | {len(y):,} | {grown.n_leaves_:,} | {grown.depth_} | {grow_s:.2f} "
            f"| {collapse_s} | {plain_s:.3f} | {raise_s:.3f} | {raised.n_leaves_:,} |"
        )
    X, y = cases[f"noisy {args.rows:,}×10"]
    fit_s, model = best_of(1, lambda: DecisionTreeClassifier(algorithm="c4.5").fit(X, y))
    print(
        f"\nc4.5 preset on the noisy rows (grow, collapse, prune with raising): {fit_s:.2f} s, "
        f"{model.n_leaves_:,} leaves, depth {model.depth_}"
    )


if __name__ == "__main__":
    main()
