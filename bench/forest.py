"""A random forest made of quercus trees by scikit-learn's BaggingClassifier, side by side with
scikit-learn's RandomForestClassifier: fit time, accuracy and prediction throughput.

Usage: python bench/forest.py [--rows 100000] [--trees 100] [--jobs 2] [--repeats 3]

The same settings for both: `n_estimators=--trees`, bootstrap samples, `max_features="sqrt"`
drawn per node, fully grown trees, `n_jobs=--jobs`, `random_state=0`. Bagging hands each
quercus tree its bootstrap sample as sample weights (a row drawn k times weighs k, a row not
drawn weighs 0 and is absent), which is how a random forest sees its sample. Bagging runs its
trees on joblib's default process pool; "threads" runs it under joblib's threading backend
(quercus releases the GIL while it fits), as the random forest itself does. Data: generated
(`make_classification`, 20 features, 10 informative, 2 classes; 80% train / 20% test) and
scikit-learn's digits (1,797 images, 64 features, 10 classes). Times are the best of
`--repeats`; throughput is test rows per second of one `predict` call.
"""

from __future__ import annotations

import argparse
import time

import joblib
import numpy as np
from sklearn.datasets import load_digits, make_classification
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
from sklearn.model_selection import train_test_split

from quercus import DecisionTreeClassifier


def best_time(f, repeats: int) -> tuple[float, object]:
    best, result = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = f()
        best = min(best, time.perf_counter() - start)
    return best, result


def measure(name: str, label: str, make, split, repeats: int) -> None:
    """Fits `make()` on the training rows `repeats` times, predicts the test rows, prints a
    row of the table."""
    X_train, X_test, y_train, y_test = split
    fit_s, model = best_time(lambda: make().fit(X_train, y_train), repeats)
    predict_s, predicted = best_time(lambda: model.predict(X_test), repeats)
    accuracy = float(np.mean(predicted == y_test))
    rate = len(X_test) / predict_s
    print(f"{name:10} {label:34} {fit_s:8.2f} {accuracy:9.4f} {rate:15,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X, y = make_classification(n_samples=args.rows, n_features=20, n_informative=10, random_state=0)
    digits = load_digits()
    data = {"generated": (X, y), "digits": (digits.data.astype(np.float64), digits.target)}

    def forest():
        return RandomForestClassifier(
            n_estimators=args.trees, max_features="sqrt", n_jobs=args.jobs, random_state=0
        )

    def bagged():
        return BaggingClassifier(
            DecisionTreeClassifier(max_features="sqrt", n_jobs=1),
            n_estimators=args.trees,
            n_jobs=args.jobs,
            random_state=0,
        )

    print(f"{args.trees} trees, n_jobs={args.jobs}, best of {args.repeats}")
    print(f"{'data':10} {'forest':34} {'fit s':>8} {'accuracy':>9} {'predict rows/s':>15}")
    for name, (features, target) in data.items():
        split = train_test_split(features, target, test_size=0.2, random_state=0)
        measure(name, "sklearn RandomForestClassifier", forest, split, args.repeats)
        measure(name, "Bagging(quercus), processes", bagged, split, args.repeats)
        with joblib.parallel_backend("threading", n_jobs=args.jobs):
            measure(name, "Bagging(quercus), threads", bagged, split, args.repeats)


if __name__ == "__main__":
    main()
