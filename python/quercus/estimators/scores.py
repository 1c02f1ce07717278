"""`split_scores`: each feature's best split of the whole data under a criterion, the tables
the textbooks print; `node_scores` reads the same columns for one node of a fitted tree."""

from __future__ import annotations

from typing import Any

import polars as pl

from .. import _core
from .._choices import CRITERIA, REGRESSION_CRITERIA
from ..inputs.training import training_data
from .constraints import Options, check

_SCORE_COLUMNS = ("score", "gain", "iv", "threshold", "rho")


def split_scores(
    X: Any,
    y: Any,
    *,
    criterion: str,
    sample_weight: Any = None,
    categorical_split: str = "multiway",
) -> pl.DataFrame:
    """Each feature's best split of the whole data under a criterion: the textbooks' tables.

    The Gain, Gain_ratio and Gini_index tables a student computes by hand (Zhou §4.2), one
    row per feature. The regression criteria take a numeric y; a 2-D y scores the splits of
    a multi-output tree (the mean of the outputs' impurities).

    Parameters
    ----------
    X : array-like or DataFrame
        The rows, as :meth:`DecisionTreeClassifier.fit` takes them.
    y : array-like
        The target.
    criterion : str
        Any criterion the estimators take (``"entropy"``, ``"gain_ratio"``, ``"gini"``,
        ``"squared_error"``, ...).
    sample_weight : array-like, optional
        Row weights.
    categorical_split : {"multiway", "binary"}, default="multiway"
        Score categorical features by one branch per category, or by their best subset.

    Returns
    -------
    polars.DataFrame
        One row per feature: ``feature``; ``score`` (the criterion's own figure: the gain,
        the ratio, G², or an impurity index's weighted child impurity); ``gain``; ``iv``
        (the split information); ``threshold`` (the midpoint chosen for a numeric feature,
        else NaN); ``rho`` (the share of the weight that knows the feature, C4.5's ρ);
        ``reason``: why a feature has no split (its figures are then NaN), in words, e.g.
        "one known value: nothing to separate"; null where it has one.

    Raises
    ------
    InvalidParameterError
        An unknown criterion or categorical split.
    ValueError
        A criterion that does not apply to y (a two-class criterion on three classes, a
        binary one with multiway splits).

    Examples
    --------
    Zhou's Table of gains for watermelon 2.0 (§4.2.1): texture wins with 0.381.

    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon2", return_X_y=True)
    >>> scores = quercus.split_scores(X, y, criterion="entropy")
    >>> dict(zip(scores["feature"], scores["gain"].round(3)))
    {'color': 0.108, 'root': 0.143, 'sound': 0.141, 'texture': 0.381, 'umbilicus': 0.289,
     'surface': 0.006}
    """
    criterion = check("criterion", criterion, (Options(CRITERIA),))
    categorical_split = check(
        "categorical_split", categorical_split, (Options(("multiway", "binary")),)
    )
    data = training_data(
        X,
        y,
        target=None,
        sample_weight=sample_weight,
        classification=criterion not in REGRESSION_CRITERIA,
    )
    scores = _core.split_scores(
        data.columns,
        data.y,
        data.n_classes,
        data.sample_weight,
        criterion=criterion,
        categorical_split=categorical_split,
    )
    return score_frame(data.schema.names, scores).with_columns(
        reason=pl.Series(scores["reason"], dtype=pl.String)
    )


def score_frame(names: list[str], scores: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(
        {"feature": names, **{column: scores[column] for column in _SCORE_COLUMNS}},
        schema={"feature": pl.String, **dict.fromkeys(_SCORE_COLUMNS, pl.Float64)},
    )
