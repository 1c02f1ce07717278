"""The rows `pruning_folds` holds out of the training data for reduced-error pruning (and
validation pre-pruning), as Weka's J48 -R -N holds them out (`_core.j48_pruning_set`): the
other rows grow the tree, weighted 0 in the core's fit so that J48's conventions still see
them as part of its data (`GrowthParams.j48_pruning_set`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .. import _core
from ..inputs.encoding import fill_column
from ..inputs.missing import take_rows
from ..inputs.schema import LabelledData, Schema, TrainingData


def pruning_set(data: TrainingData, folds: int) -> NDArray[np.bool_]:
    """Which rows of `data` J48 -R -N `folds` holds out: grouped by class (a 1-D class
    target) and dealt into the folds as Weka's `stratify` deals them, the last fold held
    out; a regression or multi-output target's last stretch of rows."""
    n_rows = len(data.y)
    one_class_target = data.classes is not None and data.y.ndim == 1
    classes = np.ascontiguousarray(data.y, dtype=np.uint32) if one_class_target else None
    held = _core.j48_pruning_set(classes, n_rows, folds)
    weighed = data.sample_weight > 0
    for rows, what in ((held, "prune with"), (~held, "grow the tree")):
        if not (rows & weighed).any():
            raise ValueError(
                f"pruning_folds={folds} leaves no row of positive weight to {what} among "
                f"{n_rows} training rows"
            )
    return held


def held_rows(data: TrainingData, held: NDArray[np.bool_], schema: Schema) -> LabelledData:
    """The held-out rows of `data` as validation data for the tree grown with `schema`
    (its fills of missing values applied, as to a validation X). Rows of weight 0 are left
    out: they weigh nothing in a pruning error."""
    keep = held & (data.sample_weight > 0)
    columns = [
        fill_column(take_rows(column, keep), feature)
        for column, feature in zip(data.columns, schema.features, strict=True)
    ]
    return LabelledData(columns, data.y[keep], data.sample_weight[keep])
