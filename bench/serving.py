"""One-row latency and batch throughput: quercus's own predictor against the same tree exported
to ONNX and run by onnxruntime (and treelite's predictor, where installed).

Usage: python bench/serving.py [--rows 1000000] [--depth 12]

A classification tree of depth `--depth` grown on `make_classification` (20 features); the
batch is `--rows` rows of the same draw, predicted in one call on 1 thread by each (quercus
`n_jobs=1`, onnxruntime `intra_op_num_threads=1`); the one-row latency is the median of 2,000
calls with a (1, 20) float64 array. Every runtime's output is compared with quercus's: labels
must be equal (onnxruntime; its largest probability gap is printed), probabilities equal
(treelite).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.datasets import make_classification

from quercus import DecisionTreeClassifier


def median_call(f, calls: int = 2000) -> float:
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def best(f, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--depth", type=int, default=12)
    args = parser.parse_args()
    X, y = make_classification(
        n_samples=100_000 + args.rows, n_features=20, n_informative=10, random_state=0
    )
    train, batch = slice(0, 100_000), slice(100_000, None)
    model = DecisionTreeClassifier(max_depth=args.depth, n_jobs=1).fit(X[train], y[train])
    rows, one = np.ascontiguousarray(X[batch]), np.ascontiguousarray(X[batch][:1])
    expected = model.predict(rows)
    print(f"tree: depth {model.depth_}, {model.n_leaves_} leaves; batch of {len(rows):,} rows")
    print(f"{'runtime':28} {'one row (µs)':>14} {'batch (M rows/s)':>18}")

    def report(name: str, predict_batch, predict_one, expected=expected) -> None:
        np.testing.assert_array_equal(np.asarray(predict_batch()), expected)
        latency = median_call(predict_one) * 1e6
        rate = len(rows) / best(predict_batch) / 1e6
        print(f"{name:28} {latency:14.2f} {rate:18.2f}")

    report("quercus predict", lambda: model.predict(rows), lambda: model.predict(one))
    try:
        import onnxruntime as ort
    except ImportError:
        print("onnxruntime is not installed: pip install onnxruntime onnx")
    else:
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        for ml_opset in (5, 3):
            model_bytes = model.to_onnx(ml_opset=ml_opset).SerializeToString()
            session = ort.InferenceSession(model_bytes, options)
            report(
                f"onnxruntime (ai.onnx.ml {ml_opset})",
                lambda s=session: s.run(["label"], {"X": rows})[0],
                lambda s=session: s.run(["label"], {"X": one})[0],
            )
            proba = session.run(None, {"X": rows})[1]
            gap = np.abs(np.asarray(proba) - model.predict_proba(rows)).max()
            print(f"{'':28} labels equal on {len(rows):,} rows; largest probability gap {gap:.1e}")
    try:
        import treelite
    except ImportError:
        print("treelite is not installed: pip install treelite")
    else:
        # treelite's leaves hold probabilities: compared with predict_proba (labels would
        # need quercus's rule for tied classes).
        compiled = model.to_treelite()
        report(
            "treelite gtil (probabilities)",
            lambda: treelite.gtil.predict(compiled, rows, nthread=1).reshape(len(rows), -1),
            lambda: treelite.gtil.predict(compiled, one, nthread=1),
            model.predict_proba(rows),
        )


if __name__ == "__main__":
    main()
