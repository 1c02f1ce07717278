"""Tree size and held-out accuracy of each pruning method on scikit-learn's bundled data.

Usage: python bench/pruning_table.py [--datasets breast_cancer wine] [--seed 0]

Each data set is split once, seeded, into 60% training, 20% validation and 20% test rows
(stratified). Every method grows on the training rows; only reduced-error pruning and
validation pre-pruning see the validation rows; every method is scored on the test rows:

* unpruned CART;
* CART cost-complexity at the alpha chosen by 5-fold cross-validation on the training rows
  (GridSearchCV over the steps of the training tree's pruning path), and scikit-learn's
  DecisionTreeClassifier at that same alpha;
* reduced-error pruning (text 004: ties pruned), C4.5's pessimistic pruning (the c4.5 preset,
  and CART grown then pruned pessimistically), text 000's validation pre-pruning, and the
  G² significance stop (text 002 §3.5) at p = 0.05.

Features go through float32 first so that both libraries see the same values.
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree

from quercus import DecisionTreeClassifier

LOADERS = {"breast_cancer": load_breast_cancer, "wine": load_wine}


def split(X, y, seed: int):
    """60 / 20 / 20, stratified by class."""
    X_train, X_rest, y_train, y_rest = train_test_split(
        X, y, train_size=0.6, stratify=y, random_state=seed
    )
    X_val, X_test, y_val, y_test = train_test_split(
        X_rest, y_rest, train_size=0.5, stratify=y_rest, random_state=seed
    )
    return X_train, y_train, X_val, y_val, X_test, y_test


def cv_alpha(X, y, seed: int) -> float:
    """The ccp_alpha that 5-fold cross-validation prefers among the training tree's path.

    A path's alphas sit exactly where two subtrees tie, so their last digits decide which one
    a library keeps (quercus tolerates that noise, scikit-learn does not); the grid takes the
    midpoint of each step instead, where both libraries keep the same subtree.
    """
    path = DecisionTreeClassifier().cost_complexity_pruning_path(X, y).ccp_alphas
    alphas = (path[:-1] + path[1:]) / 2
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    search = GridSearchCV(DecisionTreeClassifier(), {"ccp_alpha": alphas.tolist()}, cv=folds)
    return float(search.fit(X, y).best_params_["ccp_alpha"])


def rows_for(name: str, seed: int) -> list[tuple[str, int, int, float, float]]:
    X, y = LOADERS[name](return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    X_train, y_train, X_val, y_val, X_test, y_test = split(X, y, seed)
    validation = (X_val, y_val)
    alpha = cv_alpha(X_train, y_train, seed)
    models = {
        "unpruned CART": DecisionTreeClassifier().fit(X_train, y_train),
        f"cost-complexity (CV alpha = {alpha:.5f})": DecisionTreeClassifier(ccp_alpha=alpha).fit(
            X_train, y_train
        ),
        "reduced-error (validation)": DecisionTreeClassifier(pruning="reduced_error").fit(
            X_train, y_train, validation=validation
        ),
        "pessimistic: c4.5 preset": DecisionTreeClassifier(algorithm="c4.5").fit(X_train, y_train),
        "pessimistic: cart + pessimistic": DecisionTreeClassifier(pruning="pessimistic").fit(
            X_train, y_train
        ),
        "validation pre-pruning": DecisionTreeClassifier(prepruning="validation").fit(
            X_train, y_train, validation=validation
        ),
        "G² stop (max_p_value = 0.05)": DecisionTreeClassifier(max_p_value=0.05).fit(
            X_train, y_train
        ),
    }
    rows = [
        (
            label,
            model.n_leaves_,
            model.depth_,
            model.score(X_val, y_val),
            model.score(X_test, y_test),
        )
        for label, model in models.items()
    ]
    sk = SkTree(ccp_alpha=alpha, random_state=0).fit(X_train, y_train)
    rows.append(
        (
            "scikit-learn, same alpha",
            sk.get_n_leaves(),
            sk.get_depth(),
            sk.score(X_val, y_val),
            sk.score(X_test, y_test),
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--datasets", nargs="+", choices=sorted(LOADERS), default=list(LOADERS))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name in args.datasets:
        X, _ = LOADERS[name](return_X_y=True)
        print(
            f"\n{name}: {X.shape[0]} rows, {X.shape[1]} features, 60/20/20 split, seed {args.seed}"
        )
        header = f"| {'method':<42} | leaves | depth | validation acc | test acc |"
        print(header)
        print("|" + "-" * 44 + "|-------:|------:|---------------:|---------:|")
        for label, leaves, depth, val, test in rows_for(name, args.seed):
            print(f"| {label:<42} | {leaves:>6} | {depth:>5} | {val:>14.4f} | {test:>8.4f} |")


if __name__ == "__main__":
    main()
