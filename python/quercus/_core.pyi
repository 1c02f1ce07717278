"""Type stubs of the Rust extension `quercus._core`.

The extension only converts types: every column arrives already encoded by
`quercus._validation`. A column is one of

* ``("numeric", values)`` with ``values`` a 1-D C-contiguous float64 array (NaN = missing);
* ``("categorical", codes, missing, n_categories, ordered)`` with ``codes`` a 1-D uint32
  array of category codes (``< n_categories`` where not missing), ``missing`` a 1-D bool
  array (True = the value is missing; its code is ignored) and ``ordered`` True for an
  ordered category (Polars ``Enum``), which is split by threshold on its codes.
"""

from typing import Any, Literal, TypeAlias, final

import numpy as np
from numpy.typing import NDArray

NumericColumn: TypeAlias = tuple[Literal["numeric"], NDArray[np.float64]]
CategoricalColumn: TypeAlias = tuple[
    Literal["categorical"], NDArray[np.uint32], NDArray[np.bool_], int, bool
]
Column: TypeAlias = NumericColumn | CategoricalColumn

# Node kinds as stored in `Tree.nodes()["kind"]`.
LEAF: int  # 0
NUMERIC: int  # 1: feature <= threshold goes to child 0, > threshold to child 1
MULTIWAY: int  # 2: one child per category; child k holds code k
SUBSET: int  # 3: `subset_mask` per code: 1 -> child 0, 0 -> child 1, 2 -> not seen at this node
#                 while growing, so routed like a missing value (every child, stored fractions)
ORDERED: int  # 4: code <= threshold (an integer code) goes to child 0, the others to child 1
OBLIQUE: int  # 5: sum of linear_weights * x[linear_features] <= threshold goes to child 0

class QuercusError(ValueError):
    """Raised for every invalid input or parameter the core detects."""

@final
class Tree:
    """A fitted tree: an arena of nodes, node 0 is the root."""

    @property
    def n_nodes(self) -> int: ...
    @property
    def n_leaves(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def n_features(self) -> int: ...
    @property
    def n_classes(self) -> int:
        """Number of classes; 0 for a regression tree."""

    @property
    def criterion(self) -> str: ...
    def predict_proba(self, columns: list[Column]) -> NDArray[np.float64]:
        """Class probabilities, shape (n_rows, n_classes). A row missing a tested value
        follows every branch with the stored fractions (C4.5) and the leaf
        distributions are summed."""

    def predict_class(self, columns: list[Column]) -> NDArray[np.uint32]:
        """Class codes; ties broken toward the label of the leaf the row reached first."""

    def predict_value(self, columns: list[Column]) -> NDArray[np.float64]:
        """Regression predictions (weighted mean over reached leaves)."""

    def apply(self, columns: list[Column]) -> NDArray[np.int64]:
        """Id of the leaf each row reaches; rows that follow several branches report the
        leaf that received the largest share of the row's weight."""

    def nodes(self) -> dict[str, NDArray[np.generic]]:
        """The arena as parallel arrays, one entry per node:

        ``kind`` (uint8, see LEAF..OBLIQUE), ``feature`` (int64, -1 for leaves and
        oblique nodes),
        ``threshold`` (float64, NaN where not a threshold split), ``first_child`` (int64,
        -1 for leaves; children are contiguous: first_child .. first_child + n_children),
        ``n_children`` (int64), ``parent`` (int64, -1 for the root), ``depth`` (int64),
        ``weight`` (float64, training weight that reached the node, fractions included),
        ``n_rows`` (float64, rows that reached the node, each fragment counted once),
        ``impurity`` (float64, the criterion's impurity; variance for regression),
        ``label`` (int64, the node's class code; -1 for regression),
        ``branch_fraction`` (float64, share of the parent's known weight this child
        received: C4.5's r~_v; 1.0 for the root),
        ``value`` (float64, shape (n_nodes, n_classes) class weights, or (n_nodes, 1)
        mean target for regression; an empty node keeps its parent's distribution),
        ``subset_offset`` (int64, -1 unless SUBSET: index into ``subset_mask`` where the
        node's mask of length n_categories of its feature starts),
        ``subset_mask`` (uint8, flat, all SUBSET masks back to back: 1 = child 0 ("in" the
        subset), 0 = child 1, 2 = category absent from the node's training rows),
        ``linear_offset`` / ``linear_len`` (int64, -1 / 0 unless OBLIQUE: where the node's
        terms start in ``linear_features`` / ``linear_weights`` and how many there are),
        ``linear_features`` (int64, flat) and ``linear_weights`` (float64, flat).
        """

    def node_scores(self, node: int) -> dict[str, NDArray[np.float64]]:
        """Per-feature candidate scores recorded while the node was grown (see
        `split_scores`); all NaN for a node that was never searched (pure or empty)."""

def fit(
    columns: list[Column],
    y: NDArray[np.uint32] | NDArray[np.float64],
    n_classes: int,
    sample_weight: NDArray[np.float64],
    params: dict[str, Any],
    validation: tuple[list[Column], NDArray[Any], NDArray[np.float64]] | None = None,
) -> Tree:
    """Grow a tree: a classifier on class codes when ``n_classes > 0``, else a regressor.

    ``params`` holds every growth parameter by name (criterion, categorical_split, max_depth,
    min_samples_split, min_samples_leaf, max_exhaustive_categories, max_leaf_nodes,
    min_weight_fraction_leaf, min_gain, max_p_value, min_objects, numeric_gain_correction,
    cost_matrix as a row-major list or None, oblique). ``validation`` = (columns, y, sample_weight)
    switches on validation pre-pruning: a split is kept only if it strictly lowers the
    validation error of the node's rows.
    """

def prune_reduced_error(
    tree: Tree,
    columns: list[Column],
    y: NDArray[np.uint32] | NDArray[np.float64],
    sample_weight: NDArray[np.float64],
    prune_ties: bool,
) -> tuple[Tree, dict[str, NDArray[Any]]]:
    """Reduced-error pruning on validation data; also returns the decisions in order
    (keys node, depth, pruned, error_as_subtree, error_as_leaf, accuracy_before,
    accuracy_after)."""

def prune_pessimistic(
    tree: Tree,
    confidence: float,
    training: tuple[list[Column], NDArray[np.uint32], NDArray[np.float64]] | None = None,
) -> Tree:
    """C4.5's error-based pruning; with the training data, subtree raising too."""

def prune_cost_complexity(tree: Tree, ccp_alpha: float) -> Tree:
    """CART's minimal cost-complexity pruning at ``ccp_alpha`` (scikit-learn's semantics)."""

def cost_complexity_path(tree: Tree) -> dict[str, NDArray[np.float64]]:
    """The pruning path: keys ``ccp_alphas`` and ``impurities``."""

def split_scores(
    columns: list[Column],
    y: NDArray[np.uint32] | NDArray[np.float64],
    n_classes: int,
    sample_weight: NDArray[np.float64],
    *,
    criterion: str,
    categorical_split: str,
) -> dict[str, NDArray[np.float64]]:
    """Best candidate split of each feature on the whole data (one entry per feature).

    ``y`` holds class codes when ``n_classes > 0``, regression targets when 0. Keys:
    ``score`` (the criterion's figure: information gain rho x Gain(D~, a) for "entropy",
    gain ratio for "gain_ratio", the split's weighted child impurity, lower is better,
    for "gini" / "misclassification" / "squared_error"), ``gain`` (rho x impurity
    decrease, what is maximised), ``iv`` (split information, C4.5's with the missing
    share as its own outcome), ``threshold`` (best midpoint for numeric features; the
    integer code for ordered categories; NaN otherwise), ``rho`` (share of known weight).
    NaN score and gain for a feature that cannot separate the rows.
    """
