"""Leaves and accuracy of axis-parallel vs oblique trees on the three data sets of the
oblique-splits issue: watermelon 3.0α (training accuracy, as text 000 §4.5 reports it), a
synthetic set separated by one oblique line, and scikit-learn's breast cancer (held out).

Usage: python bench/oblique_table.py
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import quercus
from quercus import DecisionTreeClassifier


def main() -> None:
    rng = np.random.default_rng(0)
    line_X = rng.uniform(-1, 1, size=(3000, 2))
    line_y = (0.7 * line_X[:, 0] - 0.3 * line_X[:, 1] > 0.1).astype(int)
    melon_X, melon_y = quercus.datasets.load("watermelon3alpha", return_X_y=True)
    cancer_X, cancer_y = load_breast_cancer(return_X_y=True)
    sets = {
        "watermelon 3.0α (train)": (melon_X, melon_X, melon_y, melon_y, "id3"),
        "oblique line (held out)": (*train_test_split(line_X, line_y, random_state=0), "cart"),
        "breast cancer (held out)": (
            *train_test_split(cancer_X, cancer_y, random_state=0),
            "cart",
        ),
    }
    print(f"{'data set':<26} {'splits':<8} {'leaves':>6} {'accuracy':>9} {'fit s':>7}")
    for name, (X_train, X_test, y_train, y_test, algorithm) in sets.items():
        for splits in ("axis", "oblique"):
            start = time.perf_counter()
            model = DecisionTreeClassifier(algorithm=algorithm, splits=splits)
            model.fit(X_train, y_train)
            seconds = time.perf_counter() - start
            accuracy = model.score(X_test, y_test)
            print(f"{name:<26} {splits:<8} {model.n_leaves_:>6} {accuracy:>9.3f} {seconds:>7.2f}")


if __name__ == "__main__":
    main()
