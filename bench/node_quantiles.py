"""What recording a regression tree's node quantiles (the pictures' strips) adds to a fit.

A regressor's fit routes its training rows through the grown tree once more and computes
every node's weighted 5/25/50/75/95 % quantiles (`quercus.spread`, the core's
`node_spread`). This script fits the same 1,000,000-row regression problem with the
recording as shipped and with it switched off (monkeypatched away), best of `--repeat`
runs each (interleaved), and times the recording alone on the fitted tree.

    python bench/node_quantiles.py [--rows 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import numpy as np

import quercus
from quercus import spread
from quercus.inputs.schema import LabelledData

SETTINGS = (
    {"max_depth": 8},
    {"max_depth": 20},
    {"splitter": "exact", "max_depth": 12},
    {},  # grown fully: about one leaf per row
)


def seconds(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.rows, 8))
    y = 3 * X[:, 0] + np.sin(2 * X[:, 1]) + rng.normal(size=args.rows)
    X[rng.random(X.shape) < 0.02] = np.nan  # some missing values: C4.5's fractions at work
    print(f"{args.rows:,} rows x 8 features, 2 % missing; best of {args.repeat} runs")
    print(f"{'parameters':<38} {'nodes':>9} {'fit, s':>8} {'without, s':>10} {'alone, s':>9}")
    for params in SETTINGS:
        model = quercus.DecisionTreeRegressor(**params)
        # Interleaved, so that a machine shared with other work slows both alike.
        with_quantiles, without = [], []
        for _ in range(args.repeat):
            with_quantiles.append(seconds(lambda m=model: m.fit(X, y)))
            with mock.patch.object(spread, "recorded", lambda *a, **k: None):
                without.append(seconds(lambda m=model: m.fit(X, y)))
        model.fit(X, y)
        tree = model._state.tree
        rows = LabelledData(model._columns(X), y, np.ones(args.rows))
        alone = min(
            seconds(lambda t=tree, r=rows: spread.recorded(t, r)) for _ in range(args.repeat)
        )
        with_quantiles, without = min(with_quantiles), min(without)
        name = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "(defaults: grown fully)"
        print(
            f"{name:<38} {tree.n_nodes:>9,} {with_quantiles:>8.2f} {without:>10.2f} {alone:>9.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
