"""Many classes (issue 38): a scan's cost follows the rows it moves, not the classes, and the
trees are those of the scan that reads every class at every cut.

Class weights of 1 change no weight, but they send the search through the per-class factors,
where every cut still reads the classes: the two fits must grow the same tree, node for node
and bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkClassifier

from quercus import DecisionTreeClassifier


def pairs(classes: int, layout: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """x = row index, two rows per class: side by side or scattered."""
    y = np.repeat(np.arange(classes), 2)
    if layout == "shuffled":
        y = np.random.default_rng(seed).permutation(y)
    return np.arange(2 * classes, dtype=np.float64).reshape(-1, 1), y


def assert_same_tree(a: DecisionTreeClassifier, b: DecisionTreeClassifier) -> None:
    ta, tb = a.tree_, b.tree_
    for name in ("children_left", "children_right", "feature", "n_node_samples"):
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)
    for name in ("threshold", "impurity", "weighted_n_node_samples", "value"):
        # Bit for bit (NaN thresholds at leaves compare equal).
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)


def uniform_weights(y: np.ndarray) -> dict[int, float]:
    return {int(k): 1.0 for k in np.unique(y)}


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss"])
@pytest.mark.parametrize("layout", ["sorted", "shuffled"])
def test_pairs_grow_the_full_scans_tree(criterion: str, layout: str) -> None:
    X, y = pairs(120, layout)
    fast = DecisionTreeClassifier(criterion=criterion).fit(X, y)
    full = DecisionTreeClassifier(criterion=criterion, class_weight=uniform_weights(y)).fit(X, y)
    assert_same_tree(fast, full)
    assert fast.score(X, y) == 1.0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_weighted_rows_and_ties_grow_the_full_scans_tree(criterion: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, classes = 600, 40
    # Three features: few distinct values (ties in value), a smooth one and a skewed one.
    X = np.column_stack(
        [rng.integers(0, 12, n), rng.normal(size=n), rng.exponential(size=n)]
    ).astype(np.float64)
    y = rng.integers(0, classes, n)
    w = rng.uniform(0.1, 3.0, n) if seed % 2 else rng.integers(1, 4, n).astype(np.float64)
    leaf = 1 + seed
    fast = DecisionTreeClassifier(criterion=criterion, min_samples_leaf=leaf)
    full = DecisionTreeClassifier(
        criterion=criterion, min_samples_leaf=leaf, class_weight=uniform_weights(y)
    )
    assert_same_tree(fast.fit(X, y, sample_weight=w), full.fit(X, y, sample_weight=w))


def test_sorted_pairs_peel_off_as_scikit_learn_does() -> None:
    # Every cut between pairs ties under Gini: both take the first, a chain of end cuts.
    X, y = pairs(60, "sorted")
    q = DecisionTreeClassifier().fit(X, y)
    sk = SkClassifier(random_state=0).fit(X, y)
    assert q.get_n_leaves() == sk.get_n_leaves() == 60
    assert q.get_depth() == sk.get_depth()
