"""Fitting on a Polars LazyFrame batch by batch (out of core), with the tree the in-memory
histogram fit grows from the same rows.

The rows are read with `LazyFrame.collect_batches` (Polars' streaming engine) twice: one pass
samples the numeric columns for the bin edges, the next bins every batch, adds up the root's
statistics and histograms and keeps the batch binned (a byte per value, with each row's node)
in the core, within `memory_budget` bytes in memory and beyond it in a temporary file. Each
later pass adds up a group of open nodes from the kept batches (`quercus._core.StreamFit`).
Memory holds one batch, at most `memory_budget` bytes of histograms and at most as many of
kept rows, whatever the number of rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .. import _core
from ..inputs.encoding import encode, infer_features
from ..inputs.schema import Schema
from ..inputs.targets import class_codes, class_targets, dtype_name, regression_targets
from ..inputs.weights import sample_weights
from .progress import Progress

if TYPE_CHECKING:
    from .._core import Column

# Histogram bytes a pass may hold by default (and bytes of binned rows kept in memory), and
# rows per batch: batches of 2**18 rows of 20 float32 columns keep a 2M-row fit's peak at
# 640 MiB, against 970 MiB with 2**20 rows (bench/stream.py), in about the same time.
DEFAULT_MEMORY_BUDGET = 256 << 20
DEFAULT_BATCH_ROWS = 1 << 18

# Missing-value handling that needs every row at once (a fill value, a row filter, surrogate
# agreement at each node) cannot be streamed.
_NOT_STREAMED = ("impute_mean", "drop_rows", "surrogate", "class_majority")

# Where `profiled()` collects the seconds of each step of the fits run inside it.
_PROFILE: ContextVar[dict[str, float] | None] = ContextVar("quercus_stream_profile", default=None)


@contextmanager
def profiled() -> Iterator[dict[str, float]]:
    """Collects, for the LazyFrame fits run inside it, the seconds spent in each step:
    reading the source (Polars), encoding batches for the core, and the core's own steps
    (`StreamFit.profile`: checking, sketching, binning, routing, histograms, splits,
    keeping). bench/stream.py reports them."""
    steps: dict[str, float] = {}
    token = _PROFILE.set(steps)
    try:
        yield steps
    finally:
        _PROFILE.reset(token)


def check_streamable(checked: dict[str, Any], pruning_method: str) -> None:
    """Refuse, naming the parameter, what a fit batch by batch cannot do."""
    if checked["algorithm"] == "optimal":
        raise ValueError("algorithm='optimal' needs the data in memory; collect the LazyFrame")
    if pruning_method != "none":
        raise ValueError(
            f"pruning={pruning_method!r} needs every training row again; fit a LazyFrame "
            "with pruning='none'"
        )
    if checked["missing"] in _NOT_STREAMED or checked["drop_features_above"] is not None:
        raise ValueError(
            f"missing={checked['missing']!r} (or drop_features_above) needs every row at "
            "once; a LazyFrame fit takes 'fractional', 'learned', 'majority_branch' or "
            "'separate'"
        )
    if checked["prepruning"] not in (None, "none") or checked.get("splits") == "oblique":
        raise ValueError("prepruning and oblique splits need every row at once")


def one_target(target: str | list[str] | None) -> str | None:
    """The one target column a LazyFrame fit takes (a list of one is that column): several
    outputs are refused by name, as the streamed sums are those of one target."""
    if isinstance(target, (list, tuple)):
        if len(target) != 1:
            raise ValueError(
                f"target={list(target)!r}: a LazyFrame fit grows a tree of one output; "
                "several outputs (a multi-output y) need the rows in memory: collect it"
            )
        return str(target[0])
    return target


def batch_columns(lf: pl.LazyFrame, target: str, weight: str | None) -> list[str]:
    """The feature columns of `lf`: all but the target and the weight column."""
    names = lf.collect_schema().names()
    for name, what in ((target, "target"), (weight, "sample_weight")):
        if name is not None and name not in names:
            raise ValueError(f"{what} column {name!r} is not a column of the LazyFrame")
    features = [n for n in names if n not in (target, weight)]
    if not features:
        raise ValueError("the LazyFrame has no feature column besides the target")
    return features


def schema_of(
    lf: pl.LazyFrame,
    features: list[str],
    target: str,
    classification: bool,
    ordinal: dict[str, tuple[str, ...] | None],
) -> tuple[Schema, np.ndarray | None]:
    """The fit's schema from the LazyFrame's dtypes, and the classes (one streaming query).

    Categories must be fixed by the dtype (`pl.Enum`, Boolean): a String or Categorical
    column's categories are known only once every batch was read, and a category first met
    in a later batch would change the codes of the earlier ones."""
    empty = lf.select(features).head(0).collect()
    for series in empty.iter_columns():
        if isinstance(series.dtype, (pl.String, pl.Categorical)):
            raise TypeError(
                f"column {series.name!r} is {series.dtype}: a LazyFrame fit needs its "
                "categories up front, cast it to pl.Enum([...])"
            )
    features_ = infer_features(empty, ordinal)
    classes = None
    y_dtype = lf.collect_schema()[target]
    if classification:
        labels = lf.select(pl.col(target).unique()).collect(engine="streaming").to_series()
        if labels.null_count():
            raise ValueError(f"target column {target!r} holds missing values")
        _, classes = class_targets(labels, len(labels))
    name = dtype_name(pl.Series(target, [], dtype=y_dtype)) if classification else None
    return Schema(features_, target, name), classes


class _Batches:
    """The LazyFrame's batches, encoded for the core, read afresh for each pass."""

    def __init__(
        self,
        lf: pl.LazyFrame,
        schema: Schema,
        classes: np.ndarray | None,
        weight: str | None,
        batch_rows: int,
    ) -> None:
        self.lf, self.schema, self.classes = lf, schema, classes
        self.weight, self.batch_rows = weight, batch_rows
        self.columns = schema.names + [schema.target] + ([weight] if weight else [])
        self.seconds = {"reading": 0.0, "encoding": 0.0}

    def encoded(self, frame: pl.DataFrame) -> tuple[list[Column], np.ndarray, np.ndarray]:
        n = frame.height
        columns = encode(frame.select(self.schema.names), self.schema)
        y = frame.get_column(self.schema.target)
        if y.null_count():
            raise ValueError(f"target column {self.schema.target!r} holds missing values")
        codes = (
            regression_targets(y, n) if self.classes is None else class_codes(y, n, self.classes)
        )
        w = frame.get_column(self.weight).cast(pl.Float64).to_numpy() if self.weight else None
        return columns, codes, sample_weights(w, n)

    def each(self, add: Callable[[list[Column], np.ndarray, np.ndarray], None]) -> None:
        """Calls `add(columns, y, w)` on each batch in order. Only one batch is held at a
        time: a batch's arrays are dropped before the next is read (a `for` loop over a
        generator would still hold the last one while reading the next)."""
        query = self.lf.select(self.columns)
        frames = iter(query.collect_batches(chunk_size=self.batch_rows))
        while True:
            start = time.perf_counter()
            frame = next(frames, None)
            read = time.perf_counter()
            self.seconds["reading"] += read - start
            if frame is None:
                return
            encoded = self.encoded(frame)
            del frame
            self.seconds["encoding"] += time.perf_counter() - read
            add(*encoded)
            del encoded

    def empty(self) -> list[Column]:
        return encode(
            pl.DataFrame(schema=self.lf.select(self.schema.names).collect_schema()), self.schema
        )


def checked_budget(memory_budget: int | None) -> int:
    """The bytes of histograms a pass may hold (the default when None)."""
    budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else memory_budget
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        raise ValueError(f"memory_budget must be a positive number of bytes, got {budget!r}")
    return budget


def run(
    fit: _core.StreamFit,
    sketch_pass: Callable[[], bytes | None],
    sums_pass: Callable[[], np.ndarray | None],
    source: str,
    progress: Progress | None = None,
) -> _core.Tree:
    """Drive `fit` through its passes over the data: `sketch_pass()` gives the merged sketch
    of every row (`b""`: the fit holds it, see `StreamFit.sketch_batch`; None: no batch),
    `sums_pass()` the merged sums of the fit's current pass
    (`fit.frontier()` says what a worker needs for it). The same loop serves a LazyFrame's
    batches and a Dask collection's partitions; `source` names the data in errors."""
    try:
        while (step := fit.next_pass()) is not None:
            if step == "sketch":
                sketch = sketch_pass()
                if sketch is None:
                    raise ValueError(f"the {source} has no rows")
                fit.start(sketch or None)
            else:
                sums = sums_pass()
                if sums is None:
                    raise ValueError(f"the {source} returned no batch on a later pass")
                fit.finish_pass(sums)
            if progress is not None:
                progress(fit.passes, "passes")
    finally:
        if progress is not None:
            progress.close()
    return fit.tree()


def fit(
    lf: pl.LazyFrame,
    *,
    target: str | None,
    sample_weight: Any,
    classification: bool,
    ordinal: dict[str, tuple[str, ...] | None],
    missing: str,
    params: Callable[[int, int, int], Any],
    memory_budget: int | None,
    batch_rows: int | None,
    progress: Progress | None = None,
) -> tuple[_core.Tree, Schema, np.ndarray | None]:
    """Grow a histogram tree over the LazyFrame's batches. `params(n_rows, n_features,
    n_classes)` gives the validated growth parameters; `sample_weight` names a column (or is
    None)."""
    if target is None:
        raise ValueError("fitting a LazyFrame needs target= naming its target column")
    if sample_weight is not None and not isinstance(sample_weight, str):
        raise TypeError("with a LazyFrame, sample_weight names a column of it (a str)")
    budget = checked_budget(memory_budget)
    rows = DEFAULT_BATCH_ROWS if batch_rows is None else batch_rows
    if not isinstance(rows, int) or rows <= 0:
        raise ValueError(f"batch_rows must be a positive number of rows, got {rows!r}")
    features = batch_columns(lf, target, sample_weight)
    schema, classes = schema_of(lf, features, target, classification, ordinal)
    # The schema records the missing-value strategy, as the in-memory fit's does.
    schema = replace(schema, missing=missing)
    n_classes = 0 if classes is None else len(classes)
    # Shares of rows (min_samples_split=0.01) count every row, as the in-memory fit does.
    n_rows = lf.select(pl.len()).collect(engine="streaming").item()
    grown_params = params(n_rows, len(features), n_classes)
    batches = _Batches(lf, schema, classes, sample_weight, rows)
    fit = _core.StreamFit(batches.empty(), n_classes, asdict(grown_params), budget)

    # Batches are added in row order into one running sketch or sum, as the in-memory fit
    # adds its rows, so the sums carry the same bits.
    # The fit holds the sketch (no bytes sent back and forth per batch).
    def sketch_pass() -> bytes | None:
        seen = 0

        def add(columns: list[Column], y: np.ndarray, w: np.ndarray) -> None:
            nonlocal seen
            fit.sketch_batch(columns, y, w)
            seen += 1

        batches.each(add)
        return b"" if seen else None

    # The first grow pass keeps the batches binned; the later passes read them there.
    def sums_pass() -> np.ndarray | None:
        if fit.has_kept:
            return fit.add_kept()
        state: dict[str, Any] = {"sums": None, "offset": 0}

        def add(columns: list[Column], y: np.ndarray, w: np.ndarray) -> None:
            state["sums"], kept = fit.add(state["sums"], columns, y, w, state["offset"], True)
            state["offset"] += kept

        batches.each(add)
        return state["sums"]

    tree = run(fit, sketch_pass, sums_pass, "LazyFrame", progress)
    steps = _PROFILE.get()
    if steps is not None:
        for name, seconds in [*batches.seconds.items(), *fit.profile()]:
            steps[name] = steps.get(name, 0.0) + seconds
        storage = fit.kept_storage()
        if storage is not None:
            steps[f"kept bytes ({storage[0]})"] = float(storage[1])
    return tree, schema, classes
