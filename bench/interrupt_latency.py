"""Ctrl-C latency: time from SIGINT to KeyboardInterrupt in a long fit and a long prediction.

Each run is a fresh interpreter that starts a fully grown fit on 2,000,000 x 20 random
float64 rows (about two minutes uninterrupted with the exact search here), sends itself
SIGINT after `--after` seconds, and reports how long the KeyboardInterrupt took to arrive.

    python bench/interrupt_latency.py [--rows 2000000] [--after 3] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    import numpy as np
    from quercus import DecisionTreeClassifier

    rows, after, splitter = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    n_jobs = int(sys.argv[4])
    rng = np.random.default_rng(0)
    X = rng.random((rows, 20))
    y = rng.integers(0, 2, rows)
    sent = []
    def fire():
        time.sleep(after)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=fire, daemon=True).start()
    try:
        DecisionTreeClassifier(splitter=splitter, n_jobs=n_jobs).fit(X, y)
        print("nan")
    except KeyboardInterrupt:
        print(time.perf_counter() - sent[0])
    """
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--after", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"SIGINT {args.after} s into a fit of {args.rows:,} x 20 rows; latency in ms")
    print("| splitter | threads | min | median | max |")
    print("|---|--:|--:|--:|--:|")
    for splitter in ("exact", "hist"):
        for n_jobs in (1, 2):
            latencies = []
            for _ in range(args.repeat):
                out = subprocess.run(
                    [
                        sys.executable,
                        "-c",
                        SCRIPT,
                        str(args.rows),
                        str(args.after),
                        splitter,
                        str(n_jobs),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                latencies.append(float(out) * 1000)
            print(
                f"| {splitter} | {n_jobs} | {min(latencies):.0f} | "
                f"{statistics.median(latencies):.0f} | {max(latencies):.0f} |"
            )


if __name__ == "__main__":
    main()
