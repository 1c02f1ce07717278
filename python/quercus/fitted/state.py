"""What a fit leaves behind: the core tree, the input schema and the class labels.

Estimators hold one `FittedTree`; the model format (`model_io`), the Polars and SQL exports
(`native`) and the renderers take it instead of the estimator, so none of them needs to
know the estimator classes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .. import _core
from ..inputs.schema import Classes, Schema
from .sklearn_view import TreeView

__all__ = ["FittedTree"]


@dataclass(frozen=True)
class FittedTree:
    """A fitted model's state; immutable, so copies of an estimator may share it."""

    tree: _core.Tree
    schema: Schema
    # The class labels in code order (a list of them per output for a multi-output y); None
    # for regression.
    classes: Classes | None
    trace: pl.DataFrame | None = None  # reduced-error pruning's decisions, if it ran
    # A regression tree's training quantiles per node (`quercus.spread`), kept in memory only:
    # the pictures' strips, not part of the model.
    quantiles: NDArray[np.float64] | None = None

    @functools.cached_property
    def view(self) -> TreeView:
        """The tree as `tree_` shows it, made once so its arrays are computed once."""
        return TreeView(self.tree)

    @functools.cached_property
    def laplace_tree(self) -> _core.Tree:
        """The tree whose probabilities are Laplace's (n_k + 1) / (n + K) at each leaf (J48
        -A, `laplace=True`), made once."""
        return self.tree.laplace_smoothed()

    @functools.cached_property
    def dense_width(self) -> int:
        """The width of a float NumPy X the core reads as it is, with no encoding: every
        feature numeric and none imputed (else -1: X is encoded column by column)."""
        features = self.schema.features
        plain = all(f.categories is None and f.fill is None for f in features)
        return len(features) if plain else -1

    @functools.cached_property
    def codes_are_labels(self) -> bool:
        """Whether a classifier's labels (one output) are its class codes: the integers 0,
        1, ... (or False, True) in code order. Its codes then become the labels by a cast,
        several times cheaper than looking each one up."""
        classes = self.classes
        return (
            isinstance(classes, np.ndarray)
            and classes.dtype.kind in "biu"
            and np.array_equal(classes, np.arange(len(classes)))
        )

    @property
    def labels(self) -> list[Any] | None:
        """The class labels as a list (what the renderers print; a list of lists, one per
        output, for a multi-output tree), None for regression."""
        if self.classes is None:
            return None
        if isinstance(self.classes, list):
            return [c.tolist() for c in self.classes]
        return self.classes.tolist()

    @property
    def n_outputs(self) -> int:
        """Targets predicted at once: 1, or the columns of a multi-output y."""
        return self.tree.n_outputs

    def output_classes(self) -> list[NDArray[Any]]:
        """A classifier's labels of each output (one entry for a 1-D y)."""
        assert self.classes is not None  # a classifier's state
        return self.classes if isinstance(self.classes, list) else [self.classes]

    def single_output(self, what: str) -> None:
        """Refuses `what` for a multi-output tree, naming the limitation."""
        if self.n_outputs > 1:
            raise ValueError(
                f"{what} is defined for a tree with one output; this tree predicts "
                f"{self.n_outputs} ({', '.join(self.schema.outputs)}: a multi-output y)"
            )

    def nodes(self) -> dict[str, NDArray[Any]]:
        """The whole arena as arrays (see `quercus._core.Tree.nodes`)."""
        return self.tree.nodes()

    def replace_tree(
        self,
        tree: _core.Tree,
        trace: pl.DataFrame | None = None,
        quantiles: NDArray[np.float64] | None = None,
    ) -> FittedTree:
        """The same schema and classes over another tree (a pruned one)."""
        return FittedTree(tree, self.schema, self.classes, trace, quantiles)


def is_dense(X: Any, state: FittedTree) -> bool:
    """Whether the core can read X as it is: a contiguous, aligned (an unpickled buffer can
    be misaligned) float64/float32 NumPy matrix of the fit's width with at least one row,
    for a tree whose features need no encoding."""
    return (
        type(X) is np.ndarray
        and X.ndim == 2
        and X.dtype in _DENSE_DTYPES
        and X.shape[1] == state.dense_width
        and X.shape[0] > 0
        and (X.flags.c_contiguous or X.flags.f_contiguous)
        and X.flags.aligned
    )


# NumPy dtypes the core reads in place (float32 converts to float64 exactly).
_DENSE_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
