"""scikit-learn interoperability: the fitted tree as scikit-learn's `tree_` reads, decision
paths, and exceptions that scikit-learn's own `except` clauses catch.

Tools written for scikit-learn's trees (plotting, explanation, export) read
`estimator.tree_.children_left`, `.value` and the like; `TreeView` serves those arrays from
the quercus arena while still offering everything of the core `Tree` unchanged. Neither
scikit-learn nor SciPy is imported when this module loads: both stay optional and are only
touched when a caller that already uses them asks.
"""

from __future__ import annotations

import functools
import sys
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._core import LEAF, MULTIWAY, NUMERIC, OBLIQUE, ORDERED, SUBSET
from ..explain.paths import STAYS

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

    from .._core import Column

__all__ = ["TREE_LEAF", "TREE_UNDEFINED", "TreeView", "sklearn_flavoured"]

TREE_LEAF: Final = -1  # scikit-learn's children_left / children_right of a leaf
TREE_UNDEFINED: Final = -2  # scikit-learn's feature / threshold of a leaf

# The node kinds scikit-learn's arrays cannot express, as named in the error.
_NON_BINARY = {
    MULTIWAY: "a multiway split (one child per category)",
    SUBSET: "a category-subset split (categories in a subset go left)",
    ORDERED: "an ordered-category split (a threshold on category codes)",
    OBLIQUE: "an oblique split (a threshold on a linear combination of features)",
}

_T = TypeVar("_T", bound=type)


class TreeView:
    """A fitted estimator's `tree_`: the core tree, plus scikit-learn's tree arrays.

    Everything the core `quercus._core.Tree` offers (`nodes()`, `n_nodes`, `depth`,
    `predict_proba(columns)`, ...) is forwarded unchanged; `core` is the core tree itself,
    for the `quercus._core` functions that take one.

    The scikit-learn arrays (`children_left`, `value`, ...) are indexed by quercus node ids,
    the ids `apply`, `decision_path` and `nodes()` use, so their order is quercus's arena
    order, not scikit-learn's depth-first one; the arrays are consistent among themselves,
    which is all readers of `tree_` rely on. They are computed once and read-only.

    `children_left`, `children_right`, `feature` and `threshold` describe binary threshold
    splits on numeric features, the only split scikit-learn's trees have: for a tree with a
    multiway, subset, ordered-category or oblique node they raise ValueError naming that
    node (read `nodes()` instead). The per-node arrays (`value`, `n_node_samples`,
    `weighted_n_node_samples`, `impurity`) hold for every tree.
    """

    def __init__(self, tree: _core.Tree) -> None:
        self.core = tree

    def __getattr__(self, name: str) -> Any:
        """Core members this view does not name itself (only reached for unknown names)."""
        if name == "core":  # not set yet (e.g. while copying): no recursion
            raise AttributeError(name)
        return getattr(self.core, name)

    def __repr__(self) -> str:
        return f"<quercus TreeView: {self.n_nodes} nodes, depth {self.depth}>"

    # --- the core tree, forwarded -----------------------------------------------------

    @property
    def n_nodes(self) -> int:
        return self.core.n_nodes

    @property
    def n_leaves(self) -> int:
        return self.core.n_leaves

    @property
    def depth(self) -> int:
        return self.core.depth

    @property
    def n_features(self) -> int:
        return self.core.n_features

    @property
    def n_outputs(self) -> int:
        """Targets predicted at once: 1, or the columns of a multi-output y."""
        return self.core.n_outputs

    @cached_property
    def n_classes(self) -> NDArray[np.intp]:
        """scikit-learn's array of classes per output: `[n_classes]` for a classifier, `[1]`
        for a regressor (scikit-learn's exporters read `n_classes[0]`); one entry per output
        of a multi-output tree."""
        counts = [max(k, 1) for k in self.core.output_classes]
        return _frozen(np.array(counts, dtype=np.intp))

    @property
    def max_n_classes(self) -> int:
        return max(max(self.core.output_classes), 1)

    @property
    def criterion(self) -> str:
        return self.core.criterion

    def predict_proba(self, columns: list[Column]) -> NDArray[np.float64]:
        return self.core.predict_proba(columns)

    def predict_class(self, columns: list[Column]) -> NDArray[np.uint32]:
        return self.core.predict_class(columns)

    def predict_value(self, columns: list[Column]) -> NDArray[np.float64]:
        return self.core.predict_value(columns)

    def apply(self, columns: list[Column] | Any) -> NDArray[np.int64]:
        """Each row's leaf; `columns` may also be a SciPy sparse X, as scikit-learn's
        `Tree.apply` takes."""
        return self.core.apply(_readable(columns))

    def nodes(self) -> dict[str, NDArray[np.generic]]:
        """The arena as parallel arrays (fresh copies; see `quercus._core.Tree.nodes`)."""
        return self.core.nodes()

    def node_scores(self, node: int) -> dict[str, NDArray[np.float64]]:
        return self.core.node_scores(node)

    # --- scikit-learn's arrays --------------------------------------------------------

    @property
    def node_count(self) -> int:
        return self.core.n_nodes

    @property
    def capacity(self) -> int:
        """scikit-learn's allocated node slots; a quercus arena is exactly as long as its
        nodes."""
        return self.core.n_nodes

    @property
    def max_depth(self) -> int:
        return self.core.depth

    @property
    def children_left(self) -> NDArray[np.int64]:
        """Id of each node's `<= threshold` child; -1 (TREE_LEAF) for a leaf."""
        return self._binary("children_left")

    @property
    def children_right(self) -> NDArray[np.int64]:
        """Id of each node's `> threshold` child; -1 (TREE_LEAF) for a leaf."""
        return self._binary("children_right")

    @property
    def feature(self) -> NDArray[np.int64]:
        """Column index each node tests; -2 (TREE_UNDEFINED) for a leaf."""
        return self._binary("feature")

    @property
    def threshold(self) -> NDArray[np.float64]:
        """Each node's threshold (`x <= t` goes left); -2.0 (TREE_UNDEFINED) for a leaf."""
        return self._binary("threshold")

    @cached_property
    def missing_go_to_left(self) -> NDArray[np.uint8]:
        """1 where a row missing the node's feature goes to the first (`<=`) child: the
        child a learned, majority-branch or separate strategy chose, and for C4.5's
        fractions (which follow every branch) the child with the larger training share, as
        the Polars and SQL exports send them. 0 elsewhere, leaves included, and at a split
        where such a row stays (rpart's split of two equal sides, which scikit-learn's
        arrays cannot say)."""
        nodes = self._arena
        missing = nodes["missing_child"].astype(np.int64)
        share = nodes["branch_fraction"]
        first = nodes["first_child"].astype(np.int64)
        inner = nodes["n_children"] == 2
        heavier_first = np.zeros(len(missing), dtype=bool)
        heavier_first[inner] = share[first[inner]] >= share[first[inner] + 1]
        left = np.where(missing >= 0, missing == 0, heavier_first & (missing != STAYS)) & inner
        return _frozen(left.astype(np.uint8))

    @cached_property
    def value(self) -> NDArray[np.float64]:
        """Shape (n_nodes, n_outputs, max_n_classes): the class fractions of the training
        weight at each node, as scikit-learn >= 1.4 stores them for classifiers (an output
        with fewer classes padded with zeros); (n_nodes, n_outputs, 1) node means for a
        regression tree."""
        value = self._arena["value"].astype(np.float64)
        if self.core.n_classes == 0:
            return _frozen(value[:, :, np.newaxis])
        out = np.zeros((len(value), self.n_outputs, self.max_n_classes))
        start = 0
        for k, width in enumerate(self.core.output_classes):
            block = value[:, start : start + width]
            totals = block.sum(axis=1, keepdims=True)
            np.divide(block, totals, out=out[:, k, :width], where=totals > 0)
            start += width
        return _frozen(out)

    @cached_property
    def n_node_samples(self) -> NDArray[np.int64]:
        """Training rows of positive weight that reached each node, as scikit-learn counts
        them whatever the sample weights (a row split by a missing value counts once in every
        node it reached; `weighted_n_node_samples` holds the weight)."""
        return _frozen(self._arena["n_samples"])

    @cached_property
    def weighted_n_node_samples(self) -> NDArray[np.float64]:
        """Training weight that reached each node, the fractions of split rows included."""
        return _frozen(self._arena["weight"].astype(np.float64))

    @cached_property
    def impurity(self) -> NDArray[np.float64]:
        """Each node's impurity under the tree's criterion (for regression the variance, the
        mean absolute deviation from the median, or the half Poisson deviance)."""
        return _frozen(self._arena["impurity"].astype(np.float64))

    def decision_path(self, columns: list[Column] | Any) -> csr_matrix:
        """Indicator matrix (n_rows x n_nodes, SciPy CSR, int64) of the nodes each row passes
        through, as scikit-learn's `decision_path`. The core routes the rows as prediction
        does (`Tree.decision_path`): a row missing a tested value takes the node's surrogates
        or missing child if it has them, else follows every branch with a positive training
        share (C4.5), so all nodes it reaches with a positive share are marked."""
        if not isinstance(columns, list):  # scikit-learn's X: a NumPy or SciPy sparse matrix
            from ..inputs.sparse import tree_columns  # not at load: it imports Polars

            columns = tree_columns(columns)
        return path_matrix(*self.core.decision_path(columns), self.n_nodes)

    def predict(self, columns: list[Column] | Any) -> NDArray[np.float64]:
        """scikit-learn's `Tree.predict`: each row's `value`, shape (n_rows, max_n_classes)
        for one output (class fractions, or (n_rows, 1) means) and (n_rows, n_outputs,
        max_n_classes) for several. The core's predictions, so a row that C4.5's fractions
        spread over several leaves gets their weighted mix, as the estimator's
        `predict_proba` does."""
        rows = _readable(columns)
        n_outputs, width = self.n_outputs, self.max_n_classes
        if self.core.n_classes == 0:
            means = np.asarray(self.core.predict_value(rows), dtype=np.float64)
            out = means.reshape(len(means), n_outputs, 1)
        else:
            proba = np.asarray(self.core.predict_proba(rows), dtype=np.float64)
            out = np.zeros((len(proba), n_outputs, width))
            start = 0
            for k, classes in enumerate(self.core.output_classes):
                out[:, k, :classes] = proba[:, start : start + classes]
                start += classes
        return out.reshape(len(out), width) if n_outputs == 1 else out

    def compute_feature_importances(self, normalize: bool = True) -> NDArray[np.float64]:
        """scikit-learn's `Tree.compute_feature_importances`: per feature, Σ over the nodes
        that split on it of w(t)·I(t) − Σ_children w(c)·I(c), over the root's weight;
        normalised to sum to 1 with `normalize` (all zeros for a single leaf). An oblique
        split tests several features at once and is credited to none."""
        nodes = self._arena
        importances = np.zeros(self.n_features)
        weighted = nodes["weight"].astype(np.float64) * nodes["impurity"]
        splits = (nodes["n_children"] > 0) & (nodes["kind"] != OBLIQUE)
        for node in np.flatnonzero(splits):
            first = nodes["first_child"][node]
            children = slice(first, first + nodes["n_children"][node])
            importances[nodes["feature"][node]] += weighted[node] - weighted[children].sum()
        root = float(nodes["weight"][0])
        if root > 0:
            importances /= root
        total = importances.sum()
        if normalize and total > 0:
            importances /= total
        return importances

    def compute_node_depths(self) -> NDArray[np.int64]:
        """scikit-learn's `Tree.compute_node_depths`: each node's depth, the root's 1."""
        nodes = self._arena
        depths = np.zeros(self.n_nodes, dtype=np.int64)
        depths[0] = 1
        stack = [0]
        while stack:  # a stack, not recursion: trees can be deeper than Python's limit
            node = stack.pop()
            first = int(nodes["first_child"][node])
            children = range(first, first + int(nodes["n_children"][node]))
            depths[children] = depths[node] + 1
            stack.extend(children)
        return depths

    @cached_property
    def _arena(self) -> dict[str, NDArray[Any]]:
        """`nodes()` read once: every array property is derived from it."""
        return self.core.nodes()

    @cached_property
    def _binary_arrays(self) -> dict[str, NDArray[Any]]:
        nodes = self._arena
        leaf = nodes["kind"] == LEAF
        first = nodes["first_child"]
        return {
            name: _frozen(array)
            for name, array in {
                "children_left": np.where(leaf, TREE_LEAF, first),
                "children_right": np.where(leaf, TREE_LEAF, first + 1),
                "feature": np.where(leaf, TREE_UNDEFINED, nodes["feature"]),
                "threshold": np.where(leaf, float(TREE_UNDEFINED), nodes["threshold"]),
            }.items()
        }

    def _binary(self, name: str) -> NDArray[Any]:
        kinds = self._arena["kind"]
        other = np.flatnonzero((kinds != LEAF) & (kinds != NUMERIC))
        if other.size:
            node = int(other[0])
            raise ValueError(
                f"tree_.{name} describes binary splits of numeric features, the only kind "
                f"scikit-learn's trees have, but node {node} is {_NON_BINARY[int(kinds[node])]}; "
                "read tree_.nodes() for such trees"
            )
        return self._binary_arrays[name]


def _frozen(array: NDArray[Any]) -> NDArray[Any]:
    """The array made read-only: the cached arrays are shared by every reader."""
    array.setflags(write=False)
    return array


def sklearn_flavoured(ours: _T) -> _T:
    """`ours`, or, once scikit-learn is loaded, a subclass of `ours` and of scikit-learn's
    class of the same name in `sklearn.exceptions` (NotFittedError, ...), so that both
    libraries' `except` clauses catch what quercus raises.

    Nothing is imported: code that catches scikit-learn's class has imported it already.
    """
    theirs = getattr(sys.modules.get("sklearn.exceptions"), ours.__name__, None)
    return ours if theirs is None else _joint(ours, theirs)


@functools.cache
def _joint(ours: _T, theirs: type) -> _T:
    # The same name and module, so messages and reprs read as quercus's own class.
    return cast(_T, type(ours.__name__, (ours, theirs), {"__module__": ours.__module__}))


def path_matrix(indptr: NDArray[np.int64], indices: NDArray[np.int64], n_nodes: int) -> csr_matrix:
    """The core's decision paths (CSR arrays) as scikit-learn's indicator matrix."""
    from scipy.sparse import csr_matrix  # SciPy is optional: needed only here

    indicator = np.ones(len(indices), dtype=np.int64)
    return csr_matrix((indicator, indices, indptr), shape=(len(indptr) - 1, n_nodes))


def _readable(rows: Any) -> Any:
    """A SciPy sparse X as the core's CSR arrays (scikit-learn's `Tree.apply` and
    `decision_path` take sparse X); anything else as it is."""
    from ..inputs.sparse import is_sparse, tree_rows  # not at load: it imports Polars

    return tree_rows(rows) if is_sparse(rows) else rows
