"""Type stubs of the Rust extension `quercus._core`.

The extension only converts types: every column arrives already encoded by
`quercus._validation`. A column is one of

* ``("numeric", values)`` with ``values`` a 1-D C-contiguous float64 or float32 array (NaN =
  missing), or ``("numeric", values, flat, offset, stride)``: a column of a C-ordered
  matrix read where it lies, ``values`` its (strided) view and ``flat`` the matrix's 1-D
  view, of which the column is every ``stride``-th value from ``offset``; the columns of
  one matrix share ``flat`` (borrowed once);
* ``("categorical", codes, missing, n_categories, ordered)`` with ``codes`` a 1-D uint32
  array of category codes (``< n_categories`` where not missing), ``missing`` a 1-D bool
  array (True = the value is missing; its code is ignored) and ``ordered`` True for an
  ordinal feature (``ordinal_features``, or a pandas ``category`` with ``ordered=True``),
  which binary splits test by threshold on its codes; a nominal one is split by subsets;
* ``("sparse", rows, values, start, stop, n_rows)``: one column of a CSC matrix, whose
  stored values are ``values[start:stop]`` (float64, none NaN or infinite) at the rows
  ``rows[start:stop]`` (uint32, strictly ascending, below ``n_rows``); every other row holds
  0.0. The columns of one matrix share its two arrays (borrowed once, whatever the number
  of columns).
"""

from collections.abc import Callable
from typing import Any, Literal, TypeAlias, final

import numpy as np
from numpy.typing import NDArray

from quercus._choices import CcpRisk as _CcpRisk
from quercus._choices import CcpSequence as _CcpSequence
from quercus._choices import CoreMissing as _MissingStrategy
from quercus._choices import Criterion as _Criterion

NumericColumn: TypeAlias = (
    tuple[Literal["numeric"], NDArray[np.float64] | NDArray[np.float32]]
    | tuple[
        Literal["numeric"],
        NDArray[np.float64] | NDArray[np.float32],
        NDArray[np.float64] | NDArray[np.float32],
        int,
        int,
    ]
)
CategoricalColumn: TypeAlias = tuple[
    Literal["categorical"], NDArray[np.uint32], NDArray[np.bool_], int, bool
]
SparseColumn: TypeAlias = tuple[
    Literal["sparse"], NDArray[np.uint32], NDArray[np.float64], int, int, int
]
Column: TypeAlias = NumericColumn | CategoricalColumn | SparseColumn
# A CSR matrix of numeric features: ("csr", indptr, indices, values, n_features), row i's
# values at indptr[i]:indptr[i + 1] in the columns indices[...] (strictly ascending); every
# other cell is 0.0 and no value may be NaN.
CsrRows: TypeAlias = tuple[
    Literal["csr"], NDArray[np.uint64], NDArray[np.uint32], NDArray[np.float64], int
]
# A contiguous 2-D float64 array of every feature whose categorical columns hold category
# codes as numbers (NaN, or anything but a whole number below the feature's number of
# categories: missing); the facade encodes small frames this way.
CodedRows: TypeAlias = tuple[Literal["codes"], NDArray[np.float64]]
# A data frame's columns read in place: numbers (float32 or float64, NaN missing), or category
# codes (uint8, uint16 or uint32) with a uint32 map to the tree's codes (None: the tree's
# codes) and the feature's number of categories (a code at or past it is missing), or text as
# Arrow string views (16 bytes a row), the data buffers one after another and where each
# starts, and the lookup of the feature's categories, or as Arrow strings (int32 or int64
# offsets, one more than the rows, and the data) with the lookup; each optionally followed by the
# column's Arrow validity bitmap (None: no null) and its first row's bit (a null's slot is
# missing whatever it holds); the frame itself last (unread: the facade's, to word an error).
_Numbers: TypeAlias = tuple[Literal["numeric"], NDArray[np.float32] | NDArray[np.float64]]
_Codes: TypeAlias = tuple[
    Literal["codes"],
    NDArray[np.uint8] | NDArray[np.uint16] | NDArray[np.uint32],
    NDArray[np.uint32] | None,
    int,
]
_Text: TypeAlias = tuple[
    Literal["text"], NDArray[np.uint8], NDArray[np.uint8], NDArray[np.uint64], TextLookup
]
FrameColumn: TypeAlias = (
    _Numbers
    | tuple[Literal["numeric"], NDArray[Any], NDArray[np.uint8] | None, int]
    | _Codes
    | tuple[
        Literal["codes"],
        NDArray[Any],
        NDArray[np.uint32] | None,
        int,
        NDArray[np.uint8] | None,
        int,
    ]
    | _Text
    | tuple[
        Literal["strings"], NDArray[np.int32] | NDArray[np.int64], NDArray[np.uint8], TextLookup
    ]
    | tuple[
        Literal["strings"],
        NDArray[np.int32] | NDArray[np.int64],
        NDArray[np.uint8],
        TextLookup,
        NDArray[np.uint8] | None,
        int,
    ]
    | tuple[
        Literal["text"],
        NDArray[np.uint8],
        NDArray[np.uint8],
        NDArray[np.uint64],
        TextLookup,
        NDArray[np.uint8] | None,
        int,
    ]
)
FrameRows: TypeAlias = tuple[Literal["frame"], list[FrameColumn], Any]
# What prediction reads: encoded columns, a C- or Fortran-contiguous 2-D float64 or float32
# array of numeric features (NaN = missing), read in place, a coded array, or a CSR matrix's
# arrays.
Rows: TypeAlias = (
    list[Column] | NDArray[np.float64] | NDArray[np.float32] | CodedRows | CsrRows | FrameRows
)
# Called with (units done, "nodes" or "rows") about four times a second while long work runs;
# an exception it raises stops the work and is raised in its place.
Progress: TypeAlias = Callable[[int, str], object]

# Node kinds as stored in `Tree.nodes()["kind"]`.
LEAF: int  # 0
NUMERIC: int  # 1: feature <= threshold goes to child 0, > threshold to child 1
MULTIWAY: int  # 2: one child per category; child k holds code k
SUBSET: int  # 3: `subset_mask` per code: 1 -> child 0, 0 -> child 1, 2 -> not seen at this node
#                 while growing, so routed like a missing value (every child, stored fractions)
ORDERED: int  # 4: code <= threshold (an integer code) goes to child 0, the others to child 1
OBLIQUE: int  # 5: sum of linear_weights * x[linear_features] <= threshold goes to child 0

@final
class TextLookup:
    """A feature's categories (code k: the k-th) as the lookup of a text frame column's
    labels (a label not among them reads as missing)."""

    def __new__(cls, categories: list[str]) -> TextLookup: ...

class QuercusError(ValueError):
    """Raised for every invalid input or parameter the core detects (a ValueError)."""

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
        """Number of classes (summed over the outputs of a multi-output tree); 0 for a
        regression tree."""
    @property
    def n_outputs(self) -> int:
        """Targets predicted at once: 1, or the columns of a multi-output y."""
    @property
    def output_classes(self) -> list[int]:
        """The classes of each output (0 for a real-valued one)."""

    @property
    def criterion(self) -> _Criterion: ...
    @property
    def missing(self) -> _MissingStrategy:
        """The missing-value strategy the tree was grown with ("fractional",
        "majority_branch", "class_majority", "separate", "learned" or "surrogate")."""
    @property
    def splitter(self) -> Literal["exact", "hist", "random"]:
        """The threshold search that grew the tree: "exact", "hist" or "random" ("auto" and
        "best" resolved)."""
    @property
    def max_bins(self) -> int:
        """Bins per feature of a histogram tree; 0 for an exact one."""
    @property
    def conventions(self) -> Literal["texts", "j48"]:
        """The conventions the tree was grown with, "texts" or "j48"."""
    @property
    def optimality(self) -> tuple[float, float] | None:
        """What ``fit_optimal`` proved: (objective, lower bound), equal when the tree is proven
        optimal; None for other trees (and pruned copies)."""

    def predict_proba(
        self, rows: Rows, n_jobs: int | None = None, progress: Progress | None = None
    ) -> NDArray[np.float64]:
        """Class probabilities, shape (n_rows, n_classes); a multi-output tree's outputs one
        after the other (``output_classes`` columns each). A row missing a tested value
        takes the node's surrogate splits, then its missing child; at a node with neither
        (C4.5's fractional strategy) it follows every branch with the stored fractions and
        the leaf distributions are summed. ``n_jobs``: threads (None: every core; results
        never depend on it)."""

    def predict_class(
        self, rows: Rows, n_jobs: int | None = None, progress: Progress | None = None
    ) -> NDArray[np.uint32]:
        """Class codes; ties broken toward the label of the leaf the row reached first.
        Shape (n_rows,), or (n_rows, n_outputs) for a multi-output tree."""

    def predict_value(
        self, rows: Rows, n_jobs: int | None = None, progress: Progress | None = None
    ) -> NDArray[np.float64]:
        """Regression predictions (weighted mean over reached leaves). Shape (n_rows,), or
        (n_rows, n_outputs) for a multi-output tree."""

    def apply(
        self, rows: Rows, n_jobs: int | None = None, progress: Progress | None = None
    ) -> NDArray[np.int64]:
        """Id of the leaf each row reaches; rows that follow several branches report the
        leaf that received the largest share of the row's weight."""

    def decision_path(
        self, rows: Rows, n_jobs: int | None = None, progress: Progress | None = None
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """CSR (indptr, indices) of the nodes each row passes through, ascending: every node
        it reaches with a positive share, routed as prediction routes it."""

    def nodes(self) -> dict[str, NDArray[np.generic]]:
        """The arena as parallel arrays, one entry per node:

        ``kind`` (uint8, see LEAF..OBLIQUE), ``feature`` (int64, -1 for leaves and
        oblique nodes),
        ``threshold`` (float64, NaN where not a threshold split), ``first_child`` (int64,
        -1 for leaves; children are contiguous: first_child .. first_child + n_children),
        ``n_children`` (int64), ``parent`` (int64, -1 for the root), ``depth`` (int64),
        ``weight`` (float64, training weight that reached the node, fractions included),
        ``n_rows`` (float64, the size rules' count: the node's weight in units of the
        lightest training row's, a C4.5 fragment counted by its fraction),
        ``n_samples`` (int64, training rows of positive weight that reached the node, each
        counted once: a row split by a missing value counts in every node it reached),
        ``impurity`` (float64, the criterion's impurity: for regression the variance, the
        mean absolute deviation from the median, or the half Poisson deviance),
        ``label`` (int64, the node's class code; -1 for regression; shape (n_nodes,
        n_outputs) for a multi-output tree),
        ``branch_fraction`` (float64, share of the parent's known weight this child
        received: C4.5's r~_v; 1.0 for the root),
        ``value`` (float64, shape (n_nodes, n_classes) class weights, or (n_nodes, 1)
        mean target for regression; a multi-output tree's outputs one after the other, with
        ``output_classes`` columns each or one mean each; an empty node keeps its parent's
        distribution),
        ``subset_offset`` (int64, -1 unless SUBSET: index into ``subset_mask`` where the
        node's mask of length n_categories of its feature starts),
        ``subset_mask`` (uint8, flat, all SUBSET masks back to back: 1 = child 0 ("in" the
        subset), 0 = child 1, 2 = category absent from the node's training rows),
        ``linear_offset`` / ``linear_len`` (int64, -1 / 0 unless OBLIQUE: where the node's
        terms start in ``linear_features`` / ``linear_weights`` and how many there are),
        ``linear_features`` (int64, flat) and ``linear_weights`` (float64, flat),
        ``missing_child`` (int64, the child, as an index among the node's children, a row
        missing the tested value goes to after the surrogates; -1 for leaves and for C4.5's
        fractions; -2 where such a row stays in the node: rpart's split of two equal sides),
        ``missing_weight`` (float64, training weight that reached the split with
        its tested value missing), ``surrogate_offset`` / ``surrogate_len`` (int64, -1 / 0
        without surrogates: where the node's surrogate splits start in the flat
        ``surrogate_*`` arrays, best first, and how many there are), ``surrogate_feature``
        (int64), ``surrogate_threshold`` (float64, ``x <= t`` for a numeric feature, NaN for
        a categorical one), ``surrogate_agreement`` (float64, share of the node's known
        weight the surrogate sends where the split does), ``surrogate_adjusted`` (float64,
        rpart's adjusted agreement (agreement - m) / (1 - m), m the majority child's share of
        that weight; NaN in a model file written before it was kept), ``surrogate_map``
        (int64, where the surrogate's child map starts in ``surrogate_children``: 2 entries
        [<=, >] for a numeric feature, one per category for a categorical one) and
        ``surrogate_children``
        (int64, child indices, -1 for no direction).
        """

    def node_spread(
        self,
        columns: list[Column],
        y: NDArray[np.float64],
        sample_weight: NDArray[np.float64],
        probs: list[float],
        n_jobs: int | None = None,
    ) -> dict[str, NDArray[np.float64]]:
        """A regression target's spread at every node over the given rows, routed as
        prediction routes them (C4.5's fractions count with their shares): ``weight`` and
        ``mean`` (one per node) and ``quantiles`` (n_nodes, len(probs)), the weighted
        inverted-CDF quantiles at ``probs`` (ascending, in [0, 1]); NaN where no row came."""

    def node_scores(self, node: int) -> dict[str, NDArray[np.float64]]:
        """Per-feature candidate scores recorded while the node was grown (see
        `split_scores`); all NaN for a node that was never searched (pure or empty)."""

    def feature_kinds(self) -> list[tuple[Literal["numeric", "categorical"], int, bool]]:
        """Each feature as the tree knows it: (kind, n_categories, ordered); a numeric
        feature is ("numeric", 0, False)."""

    def laplace_smoothed(self) -> Tree:
        """J48 -A's copy: every leaf holds one more of each class (probabilities (n_k + 1) /
        (n + K)); ValueError for a regression tree."""
    def to_bytes(self, metadata: bytes | None = None) -> bytes:
        """The tree in the model format (docs/model-format.md), with the opaque
        ``metadata`` blob stored alongside. Pickling a Tree goes through these bytes."""

    def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...

def tree_from_bytes(data: bytes) -> Tree:
    """A tree from the model format, its metadata ignored. Raises QuercusError for input
    that is not a model, is damaged or truncated, or has a format version this build cannot
    read; never allocates more than a small multiple of ``len(data)``."""

def load_model(data: bytes) -> tuple[Tree, bytes]:
    """A tree and the metadata blob stored with it (see ``tree_from_bytes``)."""

def fit(
    columns: list[Column],
    y: NDArray[np.uint32] | NDArray[np.float64],
    n_classes: int | list[int],
    sample_weight: NDArray[np.float64],
    params: dict[str, Any],
    validation: tuple[list[Column], NDArray[Any], NDArray[np.float64]] | None = None,
    progress: Progress | None = None,
) -> Tree:
    """Grow a tree: a classifier on class codes when ``n_classes > 0``, else a regressor.

    A multi-output tree takes a C-contiguous 2-D ``y``, one column per output: class codes
    with ``n_classes`` a list of each output's classes, or regression values with
    ``n_classes = 0``.

    ``params`` holds every growth parameter by name (criterion, categorical_split, max_depth,
    min_samples_split, min_samples_leaf, max_exhaustive_categories, max_leaf_nodes,
    min_weight_fraction_leaf, min_gain, max_p_value, min_objects, numeric_gain_correction,
    cost_matrix as a row-major list or None, oblique, missing as a strategy name,
    max_surrogates, splitter ("best", "exact", "hist", "auto", "random"), max_bins,
    max_cat_threshold (None: no limit), cat_smooth, cat_l2, min_data_per_group, n_jobs,
    min_impurity_decrease, max_features as a count or None, random_state as a seed in
    [0, 2**64), monotonic_cst as a list of -1/0/1 or None; optional: max_time in seconds).
    ``validation`` = (columns, y, sample_weight) switches on validation pre-pruning: a split
    is kept only if it strictly lowers the validation error of the node's rows.

    Ctrl-C (any Python signal handler that raises) stops the fit within a fraction of a
    second and raises in its place; past ``max_time`` it raises ``TimeoutError``; a buffer the
    machine cannot grant raises ``MemoryError``. Predictions of 2**18 rows or more stop on
    Ctrl-C alike.
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
    collapse: bool = False,
) -> Tree:
    """C4.5's error-based pruning; with the training data, subtree raising too; with
    `collapse`, J48's collapse() first."""

def j48_pruning_set(
    classes: NDArray[np.uint32] | None, n_rows: int, folds: int
) -> NDArray[np.bool_]:
    """Which rows J48 -R -N `folds` holds out for pruning (`classes`: a 1-D class target's
    codes, grouped and dealt as Weka's `stratify` does; None: the last of `folds` stretches)."""

def prune_collapse(tree: Tree) -> Tree:
    """J48's collapse(): subtrees that misclassify no less training weight than their node
    (less 1e-3) become leaves."""

def prune_cost_complexity(
    tree: Tree,
    ccp_alpha: float,
    ccp_risk: _CcpRisk = "impurity",
    costs: list[float] | None = None,
    ccp_sequence: _CcpSequence = "weakest_link",
    floor: float = 0.0,
) -> Tree:
    """CART's minimal cost-complexity pruning at ``ccp_alpha`` (scikit-learn's semantics),
    a leaf charged its impurity or (``ccp_risk="misclassification"``) its misclassification
    cost under ``costs`` (row-major, rows the true class); ``ccp_sequence="rpart"`` prunes
    by rpart's complexities, those at or below ``floor`` collapsed first."""

def cost_complexity_path(
    tree: Tree,
    ccp_risk: _CcpRisk = "impurity",
    costs: list[float] | None = None,
    ccp_sequence: _CcpSequence = "weakest_link",
    floor: float = 0.0,
) -> dict[str, NDArray[Any]]:
    """The pruning path: keys ``ccp_alphas``, ``impurities`` (the risk of each subtree) and
    ``n_splits`` (its internal nodes)."""

def fit_optimal(
    columns: list[Column],
    y: NDArray[np.uint32] | NDArray[np.float64],
    n_classes: int | list[int],
    sample_weight: NDArray[np.float64],
    params: dict[str, Any],
    ccp_alpha: float,
    progress: Progress | None = None,
) -> Tree:
    """Grow the optimal tree within ``params``' max_depth (1 to 6) and max_leaf_nodes: the one
    of least training error (misclassification cost, or squared error) per unit of weight
    plus ``ccp_alpha`` per leaf, over every threshold and category subset. ``params`` as for
    ``fit``; the ones the search does not take are refused by name. Past ``max_time`` the
    best tree found is returned (``Tree.optimality`` says how far from optimal it may be);
    Ctrl-C raises ``KeyboardInterrupt``, a buffer the machine cannot grant ``MemoryError``.
    """

def check_poisson_target(y: NDArray[np.float64]) -> None:
    """Raise QuercusError when y has a negative value or none positive (Poisson deviance)."""

def split_scores(
    columns: list[Column],
    y: NDArray[np.uint32] | NDArray[np.float64],
    n_classes: int | list[int],
    sample_weight: NDArray[np.float64],
    *,
    criterion: _Criterion,
    categorical_split: Literal["multiway", "binary"],
) -> dict[str, Any]:
    """Best candidate split of each feature on the whole data (one entry per feature).

    ``y`` holds class codes when ``n_classes > 0``, regression targets when 0 (2-D: several
    outputs, as ``fit`` takes them). Keys:
    ``score`` (the criterion's figure: information gain rho x Gain(D~, a) for "entropy",
    gain ratio for "gain_ratio", the split's weighted child impurity, lower is better,
    for "gini" / "misclassification" / "squared_error" / "absolute_error", Friedman's
    improvement w_L w_R / (w_L + w_R) (mean_L - mean_R)^2 for "friedman_mse", the deviance
    decrease for "poisson"), ``gain`` (rho x impurity
    decrease, what is maximised), ``iv`` (split information, C4.5's with the missing
    share as its own outcome), ``threshold`` (best midpoint for numeric features; the
    integer code for ordered categories; NaN otherwise), ``rho`` (share of known weight),
    each a float64 array; ``reason`` (a list: why the feature has no split, in words, or
    None where it has one).
    NaN score and gain for a feature that cannot separate the rows.
    """

@final
class StreamFit:
    """A histogram fit over batches (see quercus._stream)."""

    def __new__(
        cls, columns: list[Column], n_classes: int, params: dict[str, Any], memory_budget: int
    ) -> StreamFit: ...
    def next_pass(self) -> str | None: ...
    @property
    def passes(self) -> int: ...
    def sketch(
        self,
        sketch: bytes | None,
        columns: list[Column],
        y: NDArray[Any],
        sample_weight: NDArray[np.float64],
        offset: int,
    ) -> tuple[bytes, int]: ...
    @staticmethod
    def merge_sketches(sketches: list[bytes]) -> bytes: ...
    @staticmethod
    def split_sketch(sketch: bytes, threshold: int) -> tuple[bytes, bytes]: ...
    @staticmethod
    def sample_threshold(rows: int) -> tuple[int, int]: ...
    def tails_wanted(self, head: bytes, below: int) -> list[int]: ...
    @staticmethod
    def sketch_lowest(tail: bytes, counts: list[int]) -> bytes: ...
    def sketch_batch(
        self, columns: list[Column], y: NDArray[Any], sample_weight: NDArray[np.float64]
    ) -> int: ...
    def start(self, sketch: bytes | None = None) -> None: ...
    def add(
        self,
        sums: NDArray[np.float64] | None,
        columns: list[Column],
        y: NDArray[Any],
        sample_weight: NDArray[np.float64],
        offset: int,
        keep: bool = False,
    ) -> tuple[NDArray[np.float64], int]: ...
    @property
    def has_kept(self) -> bool: ...
    def kept_storage(self) -> tuple[str, int] | None: ...
    def add_kept(self) -> NDArray[np.float64]: ...
    def bin(
        self, columns: list[Column], y: NDArray[Any], sample_weight: NDArray[np.float64]
    ) -> BinnedBatch: ...
    def add_binned(
        self, sums: NDArray[np.float64] | None, batch: BinnedBatch
    ) -> NDArray[np.float64]: ...
    def profile(self) -> list[tuple[str, float]]: ...
    def merge(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]: ...
    def exact(self, sums: NDArray[np.float64]) -> bool: ...
    def frontier(self) -> bytes: ...
    def resume(self, frontier: bytes) -> None: ...
    def finish_pass(self, sums: NDArray[np.float64]) -> None: ...
    def tree(self) -> Tree: ...

@final
class BinnedBatch:
    """A batch binned by a fit's cuts (StreamFit.bin), held where it lies."""

    def __len__(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes) -> BinnedBatch: ...
    def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...
