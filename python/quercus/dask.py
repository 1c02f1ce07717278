"""Decision trees fitted on Dask collections, where their partitions live.

`quercus.dask.DecisionTreeClassifier` / `DecisionTreeRegressor` grow, from a Dask DataFrame
(e.g. `dask.dataframe.read_parquet`) or Dask Array, the tree the in-memory histogram fit
(`splitter="hist"`) grows from the same rows, byte for byte. Dask schedules everything;
quercus supplies the pure pieces of `quercus._core.StreamFit`, the same ones the LazyFrame
fit streams batches through:

1. a census of each partition (rows, rows of positive weight, classes, dtypes), which gives
   each partition's global row offset, so that the bin edges, drawn from a sample chosen by
   a hash of each row's global index, do not depend on the partitioning;
2. per pass, a task per partition encodes it and adds its rows to the sums of the open
   nodes (`StreamFit.add` on a replica rebuilt from `StreamFit.frontier()`: the tree grown
   so far, so the task is a pure function of its inputs and Dask recomputes it anywhere if a
   worker is lost);
3. the sums are reduced by Dask (a tree reduction) and the client chooses
   the splits with the in-memory search (`StreamFit.finish_pass`).

Floating-point sums depend on the order they are added in. Class counts under whole weights
add exactly in any order, so those passes use the tree reduction; other sums (regression,
C4.5's fractional weights, fractional sample weights) are added partition after partition,
in row order, as the in-memory fit adds them (a chain of tasks), so the model keeps the same
bits. `reduction="tree"` reduces every pass by the tree (faster with many workers; a
regression tree may then differ from the in-memory one in the last bits of its numbers).

Empty partitions add nothing. A partition whose columns or dtypes differ from the
collection's (its `meta`) is an error naming the column. A categorical column needs its
categories up front, as a category first met in a later partition would change the codes of
earlier ones: where Dask does not know them (text columns, categories read from files) one
pass over those columns finds them, as `compute()` would give them (see `_known_categories`).
X and y may come from one DataFrame however Dask partitions their projections: they are
joined into one collection, aligned as Dask aligns columns.

Dask and distributed are an optional extra: `pip install quercus[dask]`.
"""

from __future__ import annotations

import functools
import inspect
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any, Literal

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import polars as pl

from . import _core
from . import tree as _tree
from .estimators.parameters import with_defaults
from .fitted.state import FittedTree
from .inputs.encoding import encode, infer_features
from .inputs.frames import as_polars, pandas_orders
from .inputs.schema import Schema, ordinals
from .inputs.targets import class_targets, dtype_name
from .scale import stream as _stream
from .scale.dask_tasks import (
    Layout,
    Setup,
    aligned,
    binned,
    census,
    chained_sums,
    head,
    merge_sketches,
    merge_sums,
    partition_sketch,
    partition_sums,
    predicted,
    proba_columns,
    tail_lowest,
    zipped,
)

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor"]

Reduction = Literal["auto", "tree", "ordered"]

# Partitions merged per task of the tree reduction.
_SPLIT_EVERY = 8


# ---------------------------------------------------------------------------------------
# The client's side: the collections' partitions, the passes, the estimators.


@dataclass
class _Partitions:
    """A collection's partitions as delayed (X, y, weight) pieces, and their layout."""

    layout: Layout
    parts: list[Any]
    # Per partition, its target and weights alone (delayed; weights None): what the census
    # reads (a Parquet partition read for those columns only).
    targets: list[tuple[Any, Any]]
    # The features without rows (pandas frame or NumPy array), and the target's name and
    # Polars dtype name (a classifier's, for predictions in its dtype).
    meta: Any
    target: str
    target_dtype: str | None


def _partitions(
    X: Any, y: Any, sample_weight: Any, target: str | None, classification: bool
) -> _Partitions:
    if isinstance(X, dd.DataFrame):
        if target is not None:
            if y is not None:
                raise ValueError("pass either y or target=, not both")
            if not isinstance(target, str) or target not in X._meta.columns:
                raise ValueError(f"target={target!r} is not a column of the Dask DataFrame")
            if sample_weight is not None and (
                not isinstance(sample_weight, str) or sample_weight not in X._meta.columns
            ):
                raise ValueError(
                    "with target=, sample_weight names a column of the Dask DataFrame; "
                    f"{sample_weight!r} is not one"
                )
            return _framed(X, target, sample_weight, target, classification)
        if not isinstance(y, dd.Series):
            raise TypeError(
                "a Dask DataFrame X takes a Dask Series y (or target= naming its column), "
                f"got {type(y).__name__}"
            )
        if sample_weight is not None and not isinstance(sample_weight, dd.Series):
            raise TypeError("sample_weight of a Dask DataFrame X must be a Dask Series")
        joined, target, weight = _joined(X, y, sample_weight)
        name = y.name if isinstance(y.name, str) and y.name else "y"
        return _framed(joined, target, weight, name, classification)
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (rows x features), got shape {X.shape}")
        # A Series (or a one-column frame's) values, by the lengths of its partitions.
        if isinstance(y, dd.Series):
            y = y.to_dask_array(lengths=True)
        if isinstance(sample_weight, dd.Series):
            sample_weight = sample_weight.to_dask_array(lengths=True)
        if not isinstance(y, da.Array) or y.ndim != 1:
            raise TypeError("a Dask Array X takes a 1-D Dask Array (or Dask Series) y")
        if sample_weight is not None and not isinstance(sample_weight, da.Array):
            raise TypeError("sample_weight of a Dask Array X must be a 1-D Dask Array")
        _check_lengths(X, y, sample_weight)
        if target is not None:
            raise ValueError("target= names a column of a Dask DataFrame, not of an array")
        X = X.rechunk({1: -1})
        rows = X.chunks[0]
        pieces = [X.to_delayed()[:, 0].tolist(), y.rechunk((rows,)).to_delayed().tolist()]
        if sample_weight is not None:
            pieces.append(sample_weight.rechunk((rows,)).to_delayed().tolist())
        layout = Layout(False, None, None, X.shape[1])
        parts = _zip_delayed(pieces, sample_weight is None)
        return _Partitions(layout, parts, _targets(pieces), np.empty((0, X.shape[1])), "y", None)
    raise TypeError(
        f"quercus.dask fits a Dask DataFrame or Array, got {type(X).__name__}; "
        "in-memory data takes quercus.DecisionTreeClassifier / Regressor"
    )


def _framed(
    frame: dd.DataFrame, target: str, weight: str | None, name: str, classification: bool
) -> _Partitions:
    """The partitions of one DataFrame holding the features, the target column and (if
    `weight`) the weights column; `name` is the target's name in the model."""
    frame = _known_categories(frame, [c for c in (target, weight) if c is not None])
    meta = frame._meta
    features = meta.drop(columns=[c for c in (target, weight) if c is not None])
    layout = Layout(True, target, weight, tuple(features.dtypes.items()))
    parts = list(frame.to_delayed())
    projected = frame[[c for c in (target, weight) if c is not None]].to_delayed()
    # Dask may combine the partitions of a projection otherwise than the whole frame's
    # (its optimizer merges small ones): then the census reads the whole partitions.
    if len(projected) != len(parts):
        projected = parts
    targets = [(d[target], None if weight is None else d[weight]) for d in projected]
    return _Partitions(
        layout, parts, targets, features, name, _y_dtype(meta[target], classification)
    )


def _known_categories(frame: dd.DataFrame, besides: list[str]) -> dd.DataFrame:
    """`frame` with every categorical feature's categories known up front, which a fit
    needs (a category first met in a later partition would change the codes of earlier
    ones), found in one pass over those columns: a `category` column whose categories Dask
    does not know (read from files) gets the ones `compute()` would give (each partition's,
    in partition order), a text column its sorted distinct values (as the in-memory fit
    sorts text). Either way the tree is the in-memory fit's of `frame.compute()`."""
    meta = frame._meta
    unknown, text = [], []
    for name, dtype in meta.dtypes.items():
        if name in besides:
            continue
        if isinstance(dtype, pd.CategoricalDtype):
            if not frame[name].cat.known:
                unknown.append(name)
        elif pd.api.types.is_string_dtype(dtype):
            text.append(name)
    if not unknown and not text:
        return frame
    found = dask.compute(
        *(frame[n].map_partitions(_categories_of, meta=(n, object)) for n in unknown),
        *(frame[n].dropna().unique() for n in text),
    )
    dtypes = {
        n: pd.CategoricalDtype(pd.unique(np.asarray(c, dtype=object)), ordered=meta[n].cat.ordered)
        for n, c in zip(unknown, found[: len(unknown)], strict=True)
    }
    dtypes |= {
        n: pd.CategoricalDtype(sorted(v)) for n, v in zip(text, found[len(unknown) :], strict=True)
    }
    return frame.astype(dtypes)


def _categories_of(column: pd.Series) -> pd.Series:
    """A partition's categories (its dtype's, used or not), as a column of them."""
    return pd.Series(column.cat.categories, dtype=object)


def _joined(X: dd.DataFrame, y: dd.Series, weight: Any) -> tuple[dd.DataFrame, str, str | None]:
    """X with y (and the weights) as columns of one collection, aligned as Dask aligns
    them (by index: collections of one DataFrame, or known divisions), whose partitions
    then hold the same rows; two collections' `to_delayed()` need not line up even when
    their `npartitions` do (Dask's optimizer combines a projection's partitions its own
    way). Returns the frame and the names given to y's and the weights' columns."""
    taken = {str(c) for c in X._meta.columns}
    target = next(
        f"__quercus_y{i}__" for i in range(len(taken) + 1) if f"__quercus_y{i}__" not in taken
    )
    extra = {target: y}
    weight_name = None
    if weight is not None:
        weight_name = f"{target}w"
        extra[weight_name] = weight
    try:
        joined = X.assign(**extra)
        joined._meta  # noqa: B018  (Dask checks the alignment while building the collection)
    except (ValueError, NotImplementedError, TypeError) as error:
        raise ValueError(
            "X and y (and sample_weight) are not aligned: take them from one Dask DataFrame "
            "(ddf.drop(columns=...), ddf[column]) or give them known, equal divisions, or fit "
            f"with target= naming a column ({type(error).__name__}: {error})"
        ) from error
    return joined, target, weight_name


def _check_lengths(X: Any, y: Any, weight: Any) -> None:
    """Rows of X, y and the weights agree where Dask knows them (else at compute)."""
    for what, other in (("y", y), ("sample_weight", weight)):
        if other is None:
            continue
        n, m = X.shape[0], other.shape[0]
        if not (math.isnan(n) or math.isnan(m)) and n != m:
            raise ValueError(f"X has {n} rows, {what} {m}")


def _zip_delayed(pieces: list[list[Any]], unweighted: bool) -> list[Any]:
    columns = pieces + ([[None] * len(pieces[0])] if unweighted else [])
    return [dask.delayed(zipped)(*row) for row in zip(*columns, strict=True)]


def _targets(pieces: list[list[Any]]) -> list[tuple[Any, Any]]:
    """Per partition, (y, weights or None) from the delayed pieces [X, y(, weights)]."""
    weights = pieces[2] if len(pieces) > 2 else [None] * len(pieces[1])
    return list(zip(pieces[1], weights, strict=True))


def _y_dtype(y_meta: Any, classification: bool) -> str | None:
    return dtype_name(as_polars(y_meta)) if classification else None


def _schema(p: _Partitions, ordinal: dict[str, tuple[str, ...] | None], missing: str) -> Schema:
    """The fit's schema as the in-memory fit of the same rows would infer it (from the
    collection's meta, its categories known: `_known_categories`)."""
    if p.layout.frame:
        meta = as_polars(p.meta)
        ordinal = {**pandas_orders(p.meta), **ordinal}
        features = infer_features(meta, ordinal)
    else:
        features = infer_features(p.meta, ordinal)
    by_position = not p.layout.frame  # a Dask array: features named x0, x1, ...
    return Schema(features, p.target, p.target_dtype, missing=missing, by_position=by_position)


class _Passes:
    """The sketch pass and the sums passes of one fit as Dask computations. The first grow
    pass bins every partition once (`binned`) and persists it where it is computed: the
    workers hold the binned partitions (a byte per numeric value, the targets and weights),
    not the source, and every pass reads them. The tasks are pure (a binned partition is a
    function of the partition and the bin edges; a pass's sums, of the binned partition and
    the frontier), so Dask recomputes what a lost worker held."""

    def __init__(
        self,
        setup: Setup,
        parts: list[Any],
        offsets: list[int],
        n_rows: int,
        reduction: Reduction,
        exact: bool,
    ) -> None:
        self.setup, self.parts, self.offsets, self.n_rows = setup, parts, offsets, n_rows
        self.reduction = reduction
        # Whether sums may be reduced by the tree and keep the row-order fit's bits: whole
        # class counts so far (see the module's docstring).
        self.tree = reduction == "tree" or (reduction == "auto" and exact)
        # The persisted binned partitions, from the first grow pass on.
        self.binned: list[Any] | None = None
        # Wall-clock seconds of each kind of round (`quercus.scale.stream.profiled()` reports them).
        self.seconds: dict[str, float] = {}

    @contextmanager
    def _timed(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    @staticmethod
    def _reduced(tasks: list[Any], aggregate: Callable[[list[Any]], Any]) -> Any:
        """`aggregate` over the tasks' results in a tree of delayed calls, `_SPLIT_EVERY`
        at a time (`Bag.reduction` loses partitions of `dd.from_delayed(...,
        verify_meta=False)` frames in Dask 2026.8)."""
        while True:
            tasks = [
                dask.delayed(aggregate)(tasks[i : i + _SPLIT_EVERY])
                for i in range(0, len(tasks), _SPLIT_EVERY)
            ]
            if len(tasks) == 1:
                return tasks[0].compute()

    def sketch(self) -> bytes | None:
        """The sketch pass. Each partition's sketch is split at the hash below which the
        rows every complete column samples lie (known from the row count): only the heads
        are sent and merged; the tails stay on the workers, and a second round asks them
        for the lowest pairs of the columns that miss values among those rows (none when
        no value is missing), so the merged sample is the one of all rows."""
        if not self.parts:
            return None
        with self._timed("sketch pass (reading, encoding, sampling)"):
            threshold, below = _core.StreamFit.sample_threshold(self.n_rows)
            pieces = zip(self.parts, self.offsets, strict=True)
            if self.tree:
                split = [
                    dask.delayed(partition_sketch)(self.setup, p, o, threshold) for p, o in pieces
                ]
            else:  # the totals added in row order, partition after partition
                split, before = [], None
                for p, o in pieces:
                    task = dask.delayed(partition_sketch)(self.setup, p, o, threshold, before)
                    split.append(task)
                    before = dask.delayed(head)(task)
            split = list(dask.persist(*split))
            heads = [dask.delayed(head)(s) for s in split]
            merged = self._reduced(heads, merge_sketches) if self.tree else heads[-1].compute()
            wanted = self.setup.fit(self.setup.empty).tails_wanted(merged, below)
            if not any(wanted):
                return merged
            tails = [dask.delayed(tail_lowest)(s, wanted) for s in split]
            return merge_sketches([merged, self._reduced(tails, merge_sketches)])

    def sums(self, fit: _core.StreamFit) -> np.ndarray | None:
        if not self.parts:
            return None
        if self.binned is None:
            with self._timed("first grow pass (reading, encoding, binning, the root's sums)"):
                frontier = dask.delayed(fit.frontier(), pure=True)
                tasks = [dask.delayed(binned)(self.setup, frontier, p) for p in self.parts]
                # The source partitions are released once binned.
                self.binned = list(dask.persist(*tasks))
                return self._sums(fit, self.binned)
        with self._timed("later passes (sums from the binned partitions)"):
            return self._sums(fit, self.binned)

    def _sums(self, fit: _core.StreamFit, batches: list[Any]) -> np.ndarray:
        raw = fit.frontier()
        # One key shared by every task of the pass (sent to each worker once).
        frontier = dask.delayed(raw, pure=True)
        if self.tree:
            tasks = [dask.delayed(partition_sums)(self.setup, frontier, b) for b in batches]
            merge = functools.partial(merge_sums, self.setup, raw)
            sums, exact = self._reduced(tasks, merge)
            if exact or self.reduction == "tree":
                return aligned(sums)
            # Fractions appeared (C4.5's weights): from now on, row order.
            self.tree = False
        total = None
        for b in batches:
            total = dask.delayed(chained_sums)(self.setup, frontier, b, total)
        return aligned(total.compute())

    def release(self) -> None:
        """Lets the workers drop the binned partitions."""
        self.binned = None


def _fit(
    model: Any,
    X: Any,
    y: Any,
    sample_weight: Any,
    target: str | None,
    memory_budget: int | None,
    reduction: Reduction,
) -> Any:
    """The fitted state of `model` grown over the collection's partitions."""
    if reduction not in ("auto", "tree", "ordered"):
        raise ValueError(f"reduction must be 'auto', 'tree' or 'ordered', got {reduction!r}")
    checked = model._checked()
    pruning = model._validated_pruning(checked)
    if checked["splitter"] != "hist":
        raise ValueError(
            f"quercus.dask grows histogram trees: splitter='hist' (got {checked['splitter']!r})"
        )
    for name in ("class_weight", "priors"):
        if getattr(model, name, None) is not None:
            raise ValueError(
                f"{name} needs the class counts first; a Dask fit takes sample_weight instead"
            )
    _stream.check_streamable(checked, pruning.method)
    budget = _stream.checked_budget(memory_budget)
    classification = model._estimator_type == "classifier"
    p = _partitions(X, y, sample_weight, target, classification)
    schema = _schema(p, ordinals(checked["ordinal_features"]), checked["missing"])
    start = time.perf_counter()
    tasks = [dask.delayed(census)(classification, y, w) for y, w in p.targets]
    counts = dask.compute(*tasks)
    census_seconds = time.perf_counter() - start
    n_rows = sum(c[0] for c in counts)
    if n_rows == 0:
        raise ValueError("the Dask collection has no rows")
    classes = None
    if classification:
        labels = pl.concat([c[3] for c in counts if c[3] is not None and len(c[3])])
        if labels.null_count():
            raise ValueError(f"target {schema.target!r} holds missing values")
        _, classes = class_targets(labels, len(labels))
    n_classes = 0 if classes is None else len(classes)
    params = asdict(model._params_for(checked, n_rows, len(schema.features), n_classes))
    empty = encode(as_polars(p.meta) if p.layout.frame else np.empty((0, p.layout.dtypes)), schema)
    setup = Setup(p.layout, schema, classes, params, budget, empty)
    fit = setup.fit(empty)
    # Empty partitions add nothing; the others' rows of positive weight are numbered on.
    kept = [(t, c[1]) for t, c in zip(p.parts, counts, strict=True) if c[0] > 0]
    offsets = np.cumsum([0] + [k for _, k in kept])[:-1].tolist()
    n_kept = sum(k for _, k in kept)
    exact = classification and all(c[2] for c in counts)
    passes = _Passes(setup, [t for t, _ in kept], offsets, n_kept, reduction, exact)
    try:
        tree = _stream.run(
            fit,
            passes.sketch,
            lambda: passes.sums(fit),
            "Dask collection",
            model._reporter("fit"),
        )
    finally:
        passes.release()
    steps = _stream._PROFILE.get()
    if steps is not None:
        client = {"splits": "choosing splits (client)"}
        for name, seconds in [
            ("census (target and weights)", census_seconds),
            *passes.seconds.items(),
            *((client[k], v) for k, v in fit.profile() if k in client),
        ]:
            steps[name] = steps.get(name, 0.0) + seconds
    return FittedTree(tree, schema, classes)


def _in_memory(model: Any) -> Any:
    """The fitted model as the in-memory estimator it is (what the workers predict with:
    unpickling this module's classes would import Dask's collections there)."""
    return _tree.from_bytes(model.to_bytes())


def _predict(model: Any, method: str, X: Any) -> Any:
    """`method` over each partition of X, as a Dask collection; None for other X."""
    if isinstance(X, dd.DataFrame):
        if method == "predict":
            dtype = model.classes_.dtype if model._estimator_type == "classifier" else float
            meta: Any = pd.Series(np.array([], dtype=dtype))
        else:
            meta = pd.DataFrame({c: pd.Series([], dtype=float) for c in proba_columns(model)})
        return X.map_partitions(predicted, _in_memory(model), method, meta=meta)
    if isinstance(X, da.Array):
        X = X.rechunk({1: -1})
        if method == "predict":
            dtype = model.classes_.dtype if model._estimator_type == "classifier" else float
            return X.map_blocks(predicted, _in_memory(model), method, drop_axis=1, dtype=dtype)
        n = len(model.classes_)
        return X.map_blocks(
            predicted, _in_memory(model), method, chunks=(X.chunks[0], (n,)), dtype=float
        )
    return None


class DecisionTreeClassifier(_tree.DecisionTreeClassifier):
    """`quercus.DecisionTreeClassifier` fitted on a Dask DataFrame or Array where its
    partitions live (see the module's docstring), `splitter="hist"` by default. The fitted
    model is an ordinary quercus model (save, load, rules, pictures); `predict` and
    `predict_proba` of a Dask collection return one (a Series / DataFrame of probabilities
    per class for a DataFrame, an Array for an Array)."""

    def __init__(self, *, splitter: str = "hist", **params: Any) -> None:
        super().__init__(splitter=splitter, **params)

    __init__.__signature__ = with_defaults(  # type: ignore[attr-defined]
        inspect.signature(_tree.DecisionTreeClassifier.__init__), splitter="hist"
    )

    def fit(  # type: ignore[override]
        self,
        X: Any,
        y: Any = None,
        sample_weight: Any = None,
        *,
        target: str | None = None,
        memory_budget: int | None = None,
        reduction: Reduction = "auto",
    ) -> DecisionTreeClassifier:
        """Grow the tree over the partitions of X (a Dask DataFrame with a Dask Series y or
        `target=` naming its column, or a Dask Array with a Dask Array y). `sample_weight`:
        a column name with `target=`, else a Dask Series / Array partitioned as X.
        `memory_budget`: bytes of histograms a pass holds (default 256 MiB); `reduction`:
        "auto" (exact sums by a tree reduction, others in row order), "tree" or "ordered"."""
        self._fitted = _fit(self, X, y, sample_weight, target, memory_budget, reduction)
        return self

    def predict(self, X: Any, *, output: str = "numpy") -> Any:
        out = _predict(self, "predict", X)
        return super().predict(X, output=output) if out is None else out

    def predict_proba(self, X: Any, *, output: str = "numpy") -> Any:
        out = _predict(self, "predict_proba", X)
        return super().predict_proba(X, output=output) if out is None else out


class DecisionTreeRegressor(_tree.DecisionTreeRegressor):
    """`quercus.DecisionTreeRegressor` fitted on a Dask DataFrame or Array (see
    `DecisionTreeClassifier` of this module)."""

    def __init__(self, *, splitter: str = "hist", **params: Any) -> None:
        super().__init__(splitter=splitter, **params)

    __init__.__signature__ = with_defaults(  # type: ignore[attr-defined]
        inspect.signature(_tree.DecisionTreeRegressor.__init__), splitter="hist"
    )

    def fit(  # type: ignore[override]
        self,
        X: Any,
        y: Any = None,
        sample_weight: Any = None,
        *,
        target: str | None = None,
        memory_budget: int | None = None,
        reduction: Reduction = "auto",
    ) -> DecisionTreeRegressor:
        """As `DecisionTreeClassifier.fit` of this module."""
        self._fitted = _fit(self, X, y, sample_weight, target, memory_budget, reduction)
        return self

    def predict(self, X: Any, *, output: str = "numpy") -> Any:
        out = _predict(self, "predict", X)
        return super().predict(X, output=output) if out is None else out
