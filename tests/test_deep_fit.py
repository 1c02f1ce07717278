"""A degenerate tree as deep as it has rows: fit, predict, render, save and load.

One numeric column x = 0..D with alternating classes makes every Gini split peel the lowest
row off (the argument is in rust/core/tests/deep.rs), so the tree is a chain D levels deep.
Every walk over it (growth, prediction, rendering, the model format) must be iterative: a
recursive one overflows the call stack long before D = 100,000, and a Rust stack overflow
aborts the interpreter rather than raising.

The 100,000-deep chain is marked slow (about D²/2 = 5·10⁹ row visits to grow it: minutes)
and runs with `python -m pytest -m slow`; the 2,000-deep one runs in the default suite.
`export_text` in full is checked on the small chain only: it indents 4 spaces per level, so
at D = 100,000 its text would be about 4·D² = 40 GB; the deep chain is rendered to a depth.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

import quercus
from quercus import DecisionTreeClassifier

FAST_DEPTH = 2_000
SLOW_DEPTH = 100_000


@dataclass(frozen=True)
class Chain:
    """A chain's data, its fitted model, and the rows the checks predict."""

    X: NDArray[np.float64]
    y: NDArray[np.int64]
    model: DecisionTreeClassifier
    # Both ends and evenly spaced rows between: predicting all D + 1 rows walks D²/2 nodes.
    probe: NDArray[np.int64]

    @property
    def depth(self) -> int:
        return len(self.y) - 1


def fit_chain(depth: int) -> Chain:
    n = depth + 1
    X = np.arange(n, dtype=np.float64).reshape(n, 1)
    y = np.arange(n) % 2
    ends = np.r_[0:100, n - 100 : n]
    probe = np.unique(np.r_[ends, np.linspace(0, n - 1, 1000).astype(np.int64)])
    return Chain(X, y, DecisionTreeClassifier().fit(X, y), probe)


@pytest.fixture(
    scope="module",
    params=[
        pytest.param(FAST_DEPTH, id="2k"),
        pytest.param(SLOW_DEPTH, id="100k", marks=pytest.mark.slow),
    ],
)
def chain(request: pytest.FixtureRequest) -> Chain:
    """Fitted once per depth for all the checks of this module."""
    return fit_chain(request.param)


def test_the_tree_is_a_chain(chain: Chain) -> None:
    model, depth = chain.model, chain.depth
    assert model.depth_ == depth
    assert model.tree_.max_depth == depth
    assert model.n_leaves_ == depth + 1
    assert model.n_nodes_ == 2 * depth + 1
    nodes = model.tree_.nodes()
    leaves = nodes["n_children"] == 0
    # Each split peels one row: every leaf holds one row, every split has a leaf child.
    assert np.all(nodes["n_rows"][leaves] == 1)
    assert np.all(nodes["n_children"][~leaves] == 2)
    assert np.all(leaves[nodes["first_child"][~leaves]])


def test_predicts_its_training_rows(chain: Chain) -> None:
    X, y, probe = chain.X, chain.y, chain.probe
    np.testing.assert_array_equal(chain.model.predict(X[probe]), y[probe])
    proba = chain.model.predict_proba(X[probe])
    np.testing.assert_array_equal(proba[np.arange(len(probe)), y[probe]], 1.0)
    # The deepest leaves hold the last two rows, D levels down.
    leaves = chain.model.apply(X[-2:])
    assert chain.model.tree_.nodes()["depth"][leaves].tolist() == [chain.depth] * 2


def test_renders_as_graph_and_rules(chain: Chain) -> None:
    model, depth = chain.model, chain.depth
    assert model.to_dot().count(" -> ") == 2 * depth  # one edge per non-root node
    rules = model.rules()
    assert len(rules) == depth + 1
    np.testing.assert_array_equal(rules.predict(chain.X[chain.probe]), chain.y[chain.probe])
    shown = model.export_text(max_depth=100).splitlines()
    assert len(shown) == 200  # levels 1..100, two nodes each
    assert shown[-1].endswith(f"... ({depth - 99} leaves below, not shown)")
    text = model.export_rules().splitlines()
    assert len(text) == depth + 2  # one line per rule and the ELSE line
    assert text[-2].startswith(f"IF x0 > {depth - 0.5:.4f} THEN")


def test_export_text_indents_every_level() -> None:
    chain = fit_chain(FAST_DEPTH)
    lines = chain.model.export_text().splitlines()
    assert len(lines) == 2 * FAST_DEPTH  # every node but the root
    deepest = lines[-1]
    assert deepest.startswith(" " * 4 * (FAST_DEPTH - 1) + "x0 > ")


def test_saves_and_loads(chain: Chain, tmp_path: Path) -> None:
    model, X, probe = chain.model, chain.X, chain.probe
    data = model.to_bytes()
    path = tmp_path / "chain.qrc"
    model.save(path)
    for loaded in (DecisionTreeClassifier.from_bytes(data), quercus.load(path)):
        assert isinstance(loaded, DecisionTreeClassifier)
        assert loaded.depth_ == chain.depth
        np.testing.assert_array_equal(loaded.predict(X[probe]), model.predict(X[probe]))
        assert loaded.to_bytes() == data
