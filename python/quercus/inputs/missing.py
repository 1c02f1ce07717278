"""Missing values: the `missing=` strategies, and the ones done before the tree sees the data.

Six strategies live in the core, at fit and at predict (`fractional`, `majority_branch`,
`class_majority`, `separate`, `learned`, `surrogate`; see the README's table). Text 004
section 2.6 also lists choices made on the data itself, which are done here:

- `impute_mean`: every missing cell of a feature is filled with the feature's weighted mean
  (a category: its most common category) over the training rows; the fill values are kept in
  the schema (`Feature.fill`) and applied again to every X the model reads (predict, score,
  validation and pruning data), so no missing value ever reaches the tree.
- `drop_rows`: the tree is grown on the complete rows only. A row missing a value at predict
  time still follows C4.5's fractions, the shares of the complete rows.
- `drop_features_above=s` (with any strategy): a feature missing in more than a share `s` of
  the training rows is ignored: it is handed to the core as entirely missing, so no split can
  test it (`Feature.ignored`), while X keeps its columns.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._choices import CORE_STRATEGIES
from .encoding import fill_column, missing_mask
from .schema import Feature, TrainingData

if TYPE_CHECKING:
    from .._core import Column


def core_strategy(strategy: str) -> str:
    """The core strategy a `missing=` value grows the tree with: the preprocessing ones leave
    no missing value in training (impute_mean) or train on complete rows (drop_rows), and
    keep C4.5's fractions for whatever is missing at predict."""
    return strategy if strategy in CORE_STRATEGIES else "fractional"


def prepare(data: TrainingData, strategy: str, drop_above: float | None) -> TrainingData:
    """The training data as `strategy` and `drop_features_above` want it, with the schema
    recording what was done (`Schema.missing`, `Feature.fill`, `Feature.ignored`)."""
    columns = list(data.columns)
    features = list(data.schema.features)
    if drop_above is None and strategy in CORE_STRATEGIES:
        # nothing to drop, fill or filter: no mask needed (a pass over every column saved)
        return replace(data, schema=replace(data.schema, missing=strategy))
    masks = [missing_mask(column) for column in columns]
    if drop_above is not None:
        for j, mask in enumerate(masks):
            if mask is not None and mask.mean() > drop_above:
                features[j] = replace(features[j], ignored=True)
                columns[j] = _all_missing(columns[j])
                masks[j] = np.ones(len(mask), dtype=bool)
    y, weights = data.y, data.sample_weight
    if strategy == "impute_mean":
        for j, mask in enumerate(masks):
            if mask is None or features[j].ignored or not mask.any() or mask.all():
                continue
            fill = _fill_value(columns[j], features[j], mask, weights)
            features[j] = replace(features[j], fill=fill)
            columns[j] = fill_column(columns[j], features[j])
    elif strategy == "drop_rows":
        used = [
            mask
            for mask, f in zip(masks, features, strict=True)
            if mask is not None and not f.ignored
        ]
        keep = ~np.logical_or.reduce(used) if used else np.ones(len(y), dtype=bool)
        if not keep.any():
            raise ValueError(
                "missing='drop_rows' leaves no training row: every row misses some value "
                "(drop_features_above= can ignore the features missing most often)"
            )
        if not keep.all():
            columns = [take_rows(column, keep) for column in columns]
            y, weights = y[keep], weights[keep]
    schema = replace(data.schema, features=tuple(features), missing=strategy)
    return replace(data, columns=columns, schema=schema, y=y, sample_weight=weights)


def _fill_value(
    column: Column, feature: Feature, mask: NDArray[np.bool_], weights: NDArray[np.float64]
) -> float | str:
    """The feature's weighted mean over its known training values, or its most common
    category (the first in fit order on a tie)."""
    known = ~mask
    if column[0] == "numeric":
        return float(np.average(column[1][known], weights=weights[known]))
    _, codes, _, n_categories, _ = column
    totals = np.bincount(codes[known], weights=weights[known], minlength=n_categories)
    assert feature.categories is not None  # a categorical column's feature
    return feature.categories[int(np.argmax(totals))]


def _all_missing(column: Column) -> Column:
    if column[0] == "numeric":
        return ("numeric", np.full(len(column[1]), np.nan))
    _, codes, _, n_categories, ordered = column
    return ("categorical", codes, np.ones(len(codes), dtype=bool), n_categories, ordered)


def take_rows(column: Column, keep: NDArray[Any]) -> Column:
    """The rows of `column` that `keep` selects (a boolean mask or row indices; a sparse
    column's by a boolean mask only)."""
    if column[0] == "numeric":
        return ("numeric", np.ascontiguousarray(column[1][keep]))
    if column[0] == "sparse":
        # The stored values of the rows kept, renumbered, in arrays of their own.
        _, rows, values, start, stop, _n_rows = column
        assert keep.dtype == np.bool_  # indices could reorder the rows
        stored = rows[start:stop]
        kept = keep[stored]
        renumbered = (np.cumsum(keep) - 1)[stored[kept]].astype(np.uint32)
        n_kept = int(np.count_nonzero(keep))
        return ("sparse", renumbered, values[start:stop][kept], 0, len(renumbered), n_kept)
    _, codes, missing, n_categories, ordered = column
    return (
        "categorical",
        np.ascontiguousarray(codes[keep]),
        np.ascontiguousarray(missing[keep]),
        n_categories,
        ordered,
    )
