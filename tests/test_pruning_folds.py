"""`pruning_folds`: reduced-error pruning (and validation pre-pruning) on rows held out of the
training data as Weka's J48 -R -N holds them out. The trees of J48 -R itself are compared in
tests/test_vs_j48.py; here the held-out rows are rebuilt by hand and the fit compared with
the same tree grown and pruned on explicit `validation=` rows, for every input kind."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_diabetes

from quercus import DecisionTreeClassifier, DecisionTreeRegressor


def weka_held_out(classes: list[int] | None, n: int, folds: int) -> np.ndarray:
    """Weka 3.6's `stratify(folds)` then `testCV(folds, folds - 1)`, step by step: the rows
    grouped by class with its swaps, dealt round-robin, the last batch sliced (a numeric
    class: the last stretch of the rows as they are)."""
    order = list(range(n))
    if classes is not None:
        index = 1
        while index < n:
            first = classes[order[index - 1]]
            for j in range(index, n):
                if classes[order[j]] == first:
                    order[index], order[j] = order[j], order[index]
                    index += 1
            index += 1
        order = [order[j] for start in range(folds) for j in range(start, n, folds)]
    last = folds - 1
    size = n // folds + (1 if last < n % folds else 0)
    start = last * (n // folds) + min(last, n % folds)
    held = np.zeros(n, dtype=bool)
    held[order[start : start + size]] = True
    return held


def same_tree(a, b) -> None:
    x, y = a.tree_.nodes(), b.tree_.nodes()
    assert x.keys() == y.keys()
    for key in x:
        np.testing.assert_array_equal(x[key], y[key], err_msg=key)


def assert_as_explicit(estimator, params: dict, X, y, held: np.ndarray, folds: int):
    """The fit with `pruning_folds=folds` is the tree grown on the other rows and pruned on
    the `held` ones given as `validation=`; returns both fits."""
    ours = estimator(pruning_folds=folds, **params).fit(X, y)
    explicit = estimator(**params).fit(X[~held], y[~held], validation=(X[held], y[held]))
    same_tree(ours, explicit)
    return ours, explicit


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, y


@pytest.mark.parametrize("folds", [2, 3, 5])
@pytest.mark.parametrize("algorithm", ["cart", "c4.5", "id3"])
def test_the_held_out_fold_prunes_as_validation_rows_would(cancer, algorithm, folds):
    X, y = cancer
    held = weka_held_out(y.tolist(), len(y), folds)
    # The c4.5 preset's thresholds also take the held-out rows' values (J48 -R), which a
    # fit on the other rows alone does not see: the texts' midpoints compare exactly.
    texts = {"conventions": "texts"} if algorithm == "c4.5" else {}
    params = dict(algorithm=algorithm, pruning="reduced_error", max_depth=6, **texts)
    ours, explicit = assert_as_explicit(DecisionTreeClassifier, params, X, y, held, folds)
    assert ours.pruning_trace_.equals(explicit.pruning_trace_)
    assert ours.pruning_trace_["pruned"].any()


def test_every_input_kind_holds_out_the_same_rows(cancer):
    X, y = cancer
    names = [f"x{j}" for j in range(X.shape[1])]
    params = dict(algorithm="c4.5", pruning="reduced_error", pruning_folds=3)
    reference = DecisionTreeClassifier(**params).fit(X, y)
    frame = pl.DataFrame(X, schema=names).with_columns(label=pl.Series(y))
    fits = [
        DecisionTreeClassifier(**params).fit(frame, target="label"),
        DecisionTreeClassifier(**params).fit(frame.drop("label"), frame["label"]),
        DecisionTreeClassifier(**params).fit(pd.DataFrame(X, columns=names), pd.Series(y)),
        DecisionTreeClassifier(**params).fit(sp.csr_matrix(X), y),
    ]
    for model in fits:
        same_tree(model, reference)
    # The same tree after a model file round trip.
    same_tree(DecisionTreeClassifier.from_bytes(reference.to_bytes()), reference)


def test_held_out_labels_are_the_class_codes_whatever_they_are(cancer):
    X, y = cancer
    params = dict(algorithm="cart", pruning="reduced_error", pruning_folds=3, max_depth=5)
    names = np.array(["benign", "malignant"])[1 - y]  # codes in the other order
    a = DecisionTreeClassifier(**params).fit(X, y)
    b = DecisionTreeClassifier(**params).fit(X, names)
    held = weka_held_out((1 - y).tolist(), len(y), 3)
    explicit = DecisionTreeClassifier(algorithm="cart", pruning="reduced_error", max_depth=5)
    explicit.fit(X[~held], names[~held], validation=(X[held], names[held]))
    same_tree(b, explicit)
    assert a.n_leaves_ >= 2


def test_a_regression_target_holds_out_the_last_stretch():
    X, y = load_diabetes(return_X_y=True)
    held = weka_held_out(None, len(y), 4)
    # 442 rows in 4 stretches of 111, 111, 110 and 110 rows.
    assert held[332:].all() and not held[:332].any()
    params = dict(pruning="reduced_error", max_depth=6)
    assert_as_explicit(DecisionTreeRegressor, params, X, y, held, 4)


def test_the_held_out_rows_serve_validation_prepruning_too(cancer):
    X, y = cancer
    held = weka_held_out(y.tolist(), len(y), 3)
    params = dict(algorithm="cart", prepruning="validation")
    assert_as_explicit(DecisionTreeClassifier, params, X, y, held, 3)


def test_weights_go_with_their_rows(cancer):
    X, y = cancer
    w = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    held = weka_held_out(y.tolist(), len(y), 3)
    params = dict(algorithm="cart", pruning="reduced_error", max_depth=6)
    ours = DecisionTreeClassifier(pruning_folds=3, **params).fit(X, y, sample_weight=w)
    keep = held & (w > 0)  # a held-out row of weight 0 weighs nothing in an error
    explicit = DecisionTreeClassifier(**params).fit(
        X[~held], y[~held], sample_weight=w[~held], validation=(X[keep], y[keep], w[keep])
    )
    same_tree(ours, explicit)


def test_misuse_is_named():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="pruning_folds=3 holds rows out for"):
        DecisionTreeClassifier(pruning_folds=3).fit(X, y)
    with pytest.raises(ValueError, match="pass it or validation=, not both"):
        DecisionTreeClassifier(pruning="reduced_error", pruning_folds=3).fit(
            X, y, validation=(X, y)
        )
    with pytest.raises(ValueError, match="pruning_folds"):
        DecisionTreeClassifier(pruning="reduced_error", pruning_folds=1).fit(X, y)
    with pytest.raises(ValueError, match="no row of positive weight to prune with among 2 "):
        DecisionTreeClassifier(pruning="reduced_error", pruning_folds=3).fit(X[:2], y[:2])
    # Classes 0, 0, 0, 1, 0, 1 group as rows 0, 1, 2, 4 | 3, 5; the last of 3 folds takes
    # positions 2 and 5, rows 2 and 5, and the rows grown on weigh nothing.
    with pytest.raises(ValueError, match="no row of positive weight to grow the tree among 6"):
        DecisionTreeClassifier(pruning="reduced_error", pruning_folds=3).fit(
            X[:6], [0, 0, 0, 1, 0, 1], sample_weight=[0, 0, 1, 0, 0, 1]
        )
    with pytest.raises(ValueError, match="or pruning_folds= to hold some"):
        DecisionTreeClassifier(pruning="reduced_error").fit(X, y)
    with pytest.raises(ValueError, match="does not apply to algorithm='optimal'"):
        DecisionTreeClassifier(
            algorithm="optimal", max_depth=2, pruning="reduced_error", pruning_folds=3
        ).fit(X, y)
