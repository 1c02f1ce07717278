"""A small, fast run of bench/sweep_sklearn.py (the differential sweep against
scikit-learn's trees, node by node, and the input-layout invariance checks), so the sweep
and what it knows about documented differences cannot rot. The full sweep (every bundled
set, 200 R data sets) is `python bench/sweep_sklearn.py`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from quercus import DecisionTreeClassifier

pytest.importorskip("sklearn")


def _bench_module(name: str):
    """bench/<name>.py loaded from its file: putting bench/ on sys.path would let its
    scripts shadow packages of the same name (`sparse`, `stream`) in this process and in
    the worker processes it spawns (a Dask LocalCluster's workers then never start)."""
    path = Path(__file__).resolve().parents[1] / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


sweep = _bench_module("sweep_sklearn")


def small_cases():
    cases = {c.name: c for c in sweep.sklearn_cases()}
    out = [cases["iris"], cases["wine"], cases["linnerud"]]
    d = cases["diabetes"]
    out.append(sweep.Case("diabetes[:200]", d.X[:200], d.y[:200], False))
    return out


def test_sweep_subset_agrees_with_sklearn():
    configs = [
        c
        for c in sweep.CONFIGS
        if c[0] in ("full", "depth3", "weights", "zero_weights", "leaves10", "ccp")
    ]
    out = sweep.sweep(small_cases(), nan_frac=0.1, layouts_too=False, configs=configs)
    assert out.problems == []
    assert out.compared >= 40
    assert out.nodes > 1000


def test_layouts_give_the_same_model_and_answers():
    out = sweep.Outcome()
    for case in small_cases()[:2]:
        sweep.check_layouts(case, out)
    assert out.problems == []
    assert out.compared == 22


def test_sweep_reports_a_different_tree():
    """The comparison is not vacuous: a tree grown on other labels is a discrepancy."""
    from sklearn.tree import DecisionTreeClassifier as SkC

    case = small_cases()[0]
    X, y = case.X, case.y
    sk = SkC(random_state=0, max_depth=3).fit(X, y)
    q = DecisionTreeClassifier(algorithm="cart", max_depth=3).fit(X, np.roll(y, 7))
    out = sweep.Outcome()
    ok = sweep.compare_trees(q, sk, X, y, np.ones(len(y)), True, "gini", out, "iris")
    assert not ok and out.problems


def test_class_tie_rule_is_recomputed_not_trusted():
    """A 2/2 leaf under a parent whose class is the second: quercus predicts the parent's
    class, scikit-learn the first; the sweep counts that as the documented difference."""
    from sklearn.tree import DecisionTreeClassifier as SkC

    X = np.arange(8.0).reshape(-1, 1)
    y = np.array([0, 1, 0, 1, 1, 1, 1, 1])
    kw = {"max_depth": 1, "min_samples_leaf": 4}  # one split: x <= 3.5
    q = DecisionTreeClassifier(algorithm="cart", **kw).fit(X, y)
    sk = SkC(random_state=0, **kw).fit(X, y)
    assert sweep.same_tree_exact(q, sk)
    out = sweep.Outcome()
    sweep.check_predictions(q, sk, X, True, out, "tie")
    assert out.problems == []
    assert out.known == {"leaf_class_tie_to_parent": 1}
    assert q.predict([[0.0]])[0] == 1 and sk.predict([[0.0]])[0] == 0
