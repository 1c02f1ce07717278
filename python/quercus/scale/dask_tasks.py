"""The pure per-partition pieces of `quercus.dask`: encoding a partition, its census, its
sketch, binning it, its sums for a pass from its binned rows, merging those, predicting it.
Dask runs them on the workers, so this module imports no Dask (importing `dask.dataframe`
costs a worker seconds).

Tasks are module-level functions of their arguments only (Dask pickles them by reference and
recomputes them anywhere when a worker is lost).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import _core
from ..inputs.encoding import encode
from ..inputs.frames import as_polars
from ..inputs.schema import Schema
from ..inputs.targets import class_codes, regression_targets
from ..inputs.weights import sample_weights


@dataclass(frozen=True)
class Layout:
    """Where a partition's features, target and weights are: the columns of one DataFrame
    partition (`target`, `weight` name columns), or a features array and target (and weight)
    arrays of the same rows."""

    frame: bool
    target: str | None
    weight: str | None
    # The features' dtypes as the collection's meta declares them (a frame), or their number.
    dtypes: tuple[tuple[str, Any], ...] | int

    def split(self, part: Any) -> tuple[Any, Any, Any]:
        """A partition as (X, y, sample_weight), its features checked against the meta."""
        if self.frame and self.target is not None:
            X, y = part, part[self.target]
            w = part[self.weight] if self.weight is not None else None
            X = X.drop(columns=[c for c in (self.target, self.weight) if c is not None])
        else:
            X, y, w = part
        if self.frame:
            found = tuple(X.dtypes.items())
            if found != self.dtypes:
                raise ValueError(
                    f"a partition's columns differ from the collection's: "
                    f"{_diff(found, self.dtypes)}"
                )
        elif X.ndim != 2 or X.shape[1] != self.dtypes:
            raise ValueError(
                f"a partition of X has shape {X.shape}, the collection {self.dtypes} columns"
            )
        return X, y, w


def _diff(found: tuple[tuple[str, Any], ...], meta: tuple[tuple[str, Any], ...]) -> str:
    """What differs between a partition's (name, dtype) pairs and the meta's, in words."""
    expected, got = dict(meta), dict(found)
    missing = [n for n in expected if n not in got]
    if missing:
        return f"column {missing[0]!r} is missing"
    extra = [n for n in got if n not in expected]
    if extra:
        return f"column {extra[0]!r} is not in the collection's meta"
    for name, dtype in meta:
        if got[name] != dtype:
            # A categorical's dtype prints as "category" whatever its categories.
            shown = repr if str(got[name]) == str(dtype) else str
            return f"column {name!r} is {shown(got[name])}, the meta says {shown(dtype)}"
    return "the columns come in another order"


@dataclass(frozen=True)
class Setup:
    """Everything a partition's task needs besides its rows and the pass's frontier."""

    layout: Layout
    schema: Schema
    classes: np.ndarray | None
    params: dict[str, Any]
    budget: int
    # The features' columns without rows: what a fit that reads no partition is made of.
    empty: list[Any]

    @property
    def n_classes(self) -> int:
        return 0 if self.classes is None else len(self.classes)

    def encoded(self, part: Any) -> tuple[list[Any], np.ndarray, np.ndarray]:
        """A partition as the core reads it: columns, targets (class codes or values),
        weights."""
        X, y, w = self.layout.split(part)
        X = as_polars(X) if self.layout.frame else np.asarray(X, dtype=np.float64, order="F")
        n = X.shape[0]
        columns = encode(X, self.schema)
        y = as_polars(y)
        if isinstance(y, pl.Series) and y.null_count():
            raise ValueError(f"target {self.schema.target!r} holds missing values")
        codes = (
            regression_targets(y, n) if self.classes is None else class_codes(y, n, self.classes)
        )
        return columns, codes, sample_weights(None if w is None else as_polars(w), n)

    def fit(self, columns: list[Any], frontier: bytes | None = None) -> _core.StreamFit:
        """A fit of this setup; with `frontier`, a replica that adds batches to that pass."""
        fit = _core.StreamFit(columns, self.n_classes, self.params, self.budget)
        if frontier is not None:
            fit.resume(frontier)
        return fit


def census(classification: bool, y: Any, w: Any) -> tuple[int, int, bool, pl.Series | None]:
    """A partition's rows, rows of positive weight, whether its weights are whole numbers,
    and (for a classifier) its distinct target values, from its target and weights alone (a
    Parquet partition is read for those columns only)."""
    y = as_polars(y)
    n = len(y)
    weights = sample_weights(None if w is None else as_polars(w), n)
    whole = bool(np.all(weights == np.round(weights)))
    labels = None
    if classification:
        labels = (y if isinstance(y, pl.Series) else pl.Series("y", np.asarray(y))).unique()
    return n, int(np.count_nonzero(weights > 0)), whole, labels


def partition_sketch(
    setup: Setup, part: Any, offset: int, threshold: int, before: bytes | None = None
) -> tuple[bytes, bytes]:
    """The partition's rows added to the sketch head `before` (None: a new one), split at
    the hash `threshold`: the head to merge, and the partition's tail (its pairs above the
    threshold), kept on the worker until the merged heads tell what is wanted of it."""
    columns, y, w = setup.encoded(part)
    sketch, _ = setup.fit(columns).sketch(before, columns, y, w, offset)
    return _core.StreamFit.split_sketch(sketch, threshold)


def head(parts: tuple[bytes, bytes]) -> bytes:
    return parts[0]


def tail_lowest(parts: tuple[bytes, bytes], counts: list[int]) -> bytes:
    """Each column's `counts` lowest pairs of a partition's sketch tail."""
    return _core.StreamFit.sketch_lowest(parts[1], counts)


def merge_sketches(sketches: list[bytes]) -> bytes:
    return _core.StreamFit.merge_sketches(sketches)


def binned(setup: Setup, frontier: bytes, part: Any) -> _core.BinnedBatch:
    """The partition checked and binned by the fit's cuts (`frontier`: of the first grow
    pass): what its worker holds for every pass, in place of the partition."""
    columns, y, w = setup.encoded(part)
    return setup.fit(columns, frontier).bin(columns, y, w)


def partition_sums(
    setup: Setup, frontier: bytes, batch: _core.BinnedBatch, before: np.ndarray | None = None
) -> tuple[np.ndarray, bool]:
    """The binned partition's rows added to the pass's sums `before` (None: new ones), and
    whether the result adds exactly in any order."""
    fit = setup.fit(setup.empty, frontier)
    added = fit.add_binned(None if before is None else aligned(before), batch)
    return added, fit.exact(added)


def aligned(sums: np.ndarray) -> np.ndarray:
    """Sums as the core reads them: arrays unpickled from the network may be misaligned."""
    return np.require(sums, dtype=np.float64, requirements=["C", "A"])


def merge_sums(setup: Setup, frontier: bytes, parts: Any) -> tuple[np.ndarray, bool]:
    parts = list(parts)
    fit = setup.fit(setup.empty, frontier)
    total, exact = aligned(parts[0][0]), parts[0][1]
    for sums, e in parts[1:]:
        total, exact = fit.merge(total, aligned(sums)), exact and e
    return total, exact and fit.exact(total)


def chained_sums(
    setup: Setup, frontier: bytes, batch: _core.BinnedBatch, before: np.ndarray | None
) -> np.ndarray:
    return partition_sums(setup, frontier, batch, before)[0]


def zipped(*parts: Any) -> tuple[Any, ...]:
    return parts


def predicted(part: Any, model: Any, method: str) -> Any:
    """`model.method` on one partition (`model`: an in-memory estimator): a Series (or a
    frame of probabilities) on the partition's index, or an array for an array's block. An
    empty partition (after a filter) gives an empty piece of output."""
    out = getattr(model, method)(part) if len(part) else _nothing(model, method)
    if hasattr(part, "index"):  # a pandas partition
        import pandas as pd  # the partition's own library

        if out.ndim == 1:
            return pd.Series(out, index=part.index)
        return pd.DataFrame(out, index=part.index, columns=proba_columns(model))
    return out


def _nothing(model: Any, method: str) -> np.ndarray:
    """`model.method`'s answer for no rows: its dtype, its columns."""
    if method == "predict_proba":
        return np.empty((0, len(model.classes_)))
    dtype = model.classes_.dtype if model._estimator_type == "classifier" else np.float64
    outputs = model.n_outputs_
    return np.empty((0, outputs) if outputs > 1 else 0, dtype=dtype)


def proba_columns(model: Any) -> list[str]:
    return [str(c) for c in model.classes_]
