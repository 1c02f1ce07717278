"""Cross-validated cost-complexity pruning: rpart's cp table, and the rules that read an alpha
off it (the least cross-validated error, or the 1-SE rule of Breiman et al. 1984 §3.4.3).

The table follows rpart (its `xval.c`, `make_cp_list.c`, `make_cp_table.c`; rpart 4.1):

- One row per distinct effective alpha of the weakest-link sequence of the tree grown on all
  rows, largest first, each with the subtree that alpha keeps; the last row is the tree kept
  at the estimator's own `ccp_alpha` (rpart's `cp`, 0 by default: the unpruned tree with its
  links of zero gain collapsed). `cp` is alpha divided by the root's risk R(root), which is
  how rpart scales its complexity parameter; `rel_error` the subtree's risk over R(root).
- Each fold's complement grows a tree with the same parameters (class weights and priors
  taken from all rows, as rpart keeps its priors); the fold's rows are predicted by that tree
  pruned at the geometric mean of each row's alpha and the next larger one (10 × the largest
  for the first row), rescaled by the fold's share of the row weight as rpart rescales it.
- `xerror` is Σ w·e over all rows, e the row's misclassification cost (its class's prior
  factor × the cost of the predicted class; squared error for a regressor), over R(root);
  `xstd` is sqrt(Σ w·e² − (Σ w·e)² / Σ w) / R(root), w the rows' own weights.
- A tree grown on all rows without a split has rpart's one row: `cp` 0 (the root's
  complexity), `xerror` and `xstd` 0, as rpart cross-validates no tree without a split
  (`rpart.c`, `rpart.R`); the folds' predictions are still made, at 10 × that cp (their
  trees as grown).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import polars as pl
from numpy.typing import NDArray

from . import _core
from .inputs import missing as _missing
from .inputs.encoding import fill_column
from .inputs.schema import ordinals
from .inputs.training import training_data
from .inputs.weights import folded

if TYPE_CHECKING:
    from .fitted.state import FittedTree
    from .inputs.schema import TrainingData

__all__ = ["CostComplexityCV"]

# Alphas closer than this (relative to the larger, or to R(root)) are one row of the table:
# the sums behind two equal complexities run in different orders.
_SAME_ALPHA = 1e-9
RULES = ("1se", "min")


class Grower(Protocol):
    """What cross-validation asks of an estimator (the estimators' own methods): its checked
    parameters, its class factors and costs, growth on encoded rows, prediction, pruning."""

    _estimator_type: str
    _fitted: FittedTree

    def _checked(self) -> dict[str, Any]: ...

    def _validated_pruning(self, checked: dict[str, Any]) -> Any: ...

    def _class_factors(self, data: TrainingData) -> NDArray[np.float64] | None: ...

    def _cost_list(self, n_classes: int | list[int]) -> list[float] | None: ...

    # `Fitting._grow`: the tree grown on encoded `data`, then pruned as `pruning` says.
    def _grow(
        self,
        checked: dict[str, Any],
        data: TrainingData,
        factors: Any,
        pruning: Any,
        validation: Any = None,
        prior_weights: Any = None,
    ) -> FittedTree: ...

    def _predicted(self, method: str, rows: Any) -> Any: ...

    def prune(self, method: str, *, ccp_alpha: float = 0.0) -> Any: ...


@dataclass(frozen=True)
class CostComplexityCV:
    """The cross-validated cost-complexity table, as rpart's ``printcp`` prints it.

    Returned by :meth:`DecisionTreeClassifier.cost_complexity_cv`, with the rules that pick
    an alpha from it.

    Parameters
    ----------
    table : polars.DataFrame
        One row per subtree, largest cp first: ``cp`` (rpart's complexity parameter, alpha
        over the root's risk), ``ccp_alpha`` (quercus's and scikit-learn's threshold),
        ``n_splits``, ``rel_error``, ``xerror`` (cross-validated risk over the root's) and
        ``xstd``.
    root_risk : float
        The root's risk per unit of row weight (``ccp_alpha = cp × root_risk``).
    estimator : DecisionTreeClassifier or DecisionTreeRegressor
        The model grown on all rows and pruned at its own ``ccp_alpha``.
    predictions : numpy.ndarray
        Each row's cross-validated prediction (by the tree of the fold that left it out)
        under each row of the table, one column per table row: rpart's ``xpred.rpart``.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> estimator = quercus.DecisionTreeClassifier(ccp_risk="misclassification")
    >>> cv = estimator.cost_complexity_cv(X, y, folds=5, random_state=0)
    >>> cv.table["n_splits"].to_list(), cv.table["xerror"].to_list()
    ([0, 1, 2, 4], [1.5, 1.375, 0.875, 0.875])
    """

    table: pl.DataFrame
    root_risk: float
    estimator: Grower
    predictions: NDArray[Any]

    def row(self, rule: str = "1se") -> int:
        """The table row a rule picks.

        Parameters
        ----------
        rule : {"1se", "min"}, default="1se"
            ``"min"``: the least ``xerror`` (the first of equals); ``"1se"``: the first row
            (the smallest tree) whose ``xerror`` is at most the least one plus its ``xstd``
            (Breiman et al. 1984 §3.4.3).

        Returns
        -------
        int
            The row's position in ``table``.

        Raises
        ------
        ValueError
            Another rule.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> estimator = quercus.DecisionTreeClassifier(ccp_risk="misclassification")
        >>> cv = estimator.cost_complexity_cv(X, y, folds=5, random_state=0)
        >>> cv.row("min"), cv.row("1se")
        (2, 2)
        """
        if not isinstance(rule, str) or rule not in RULES:
            raise ValueError(f"rule must be one of {', '.join(map(repr, RULES))}; got {rule!r}")
        xerror = self.table["xerror"].to_numpy()
        best = int(np.argmin(xerror))
        if rule == "min":
            return best
        bound = xerror[best] + self.table["xstd"][best]
        return int(np.flatnonzero(xerror <= bound)[0])

    def ccp_alpha(self, rule: str = "1se") -> float:
        """The ``ccp_alpha`` of the row a rule picks: pruning at it keeps that row's subtree.

        Parameters
        ----------
        rule : {"1se", "min"}, default="1se"
            As for :meth:`row`.

        Returns
        -------
        float
            The alpha, for ``DecisionTreeClassifier(ccp_alpha=...)``.

        Raises
        ------
        ValueError
            Another rule.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> estimator = quercus.DecisionTreeClassifier(ccp_risk="misclassification")
        >>> cv = estimator.cost_complexity_cv(X, y, folds=5, random_state=0)
        >>> round(cv.ccp_alpha("1se"), 4)
        0.0294
        """
        return float(self.table["ccp_alpha"][self.row(rule)])

    def cp(self, rule: str = "1se") -> float:
        """rpart's ``cp`` of the row a rule picks: ``prune(fit, cp = ...)`` in R.

        Parameters
        ----------
        rule : {"1se", "min"}, default="1se"
            As for :meth:`row`.

        Returns
        -------
        float
            The complexity parameter, alpha over the root's risk.

        Raises
        ------
        ValueError
            Another rule.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> estimator = quercus.DecisionTreeClassifier(ccp_risk="misclassification")
        >>> estimator.cost_complexity_cv(X, y, folds=5, random_state=0).cp("1se")
        0.0625
        """
        return float(self.table["cp"][self.row(rule)])

    def pruned(self, rule: str = "1se") -> Grower:
        """The estimator pruned at the alpha a rule picks.

        Parameters
        ----------
        rule : {"1se", "min"}, default="1se"
            As for :meth:`row`.

        Returns
        -------
        DecisionTreeClassifier or DecisionTreeRegressor
            A new model: ``estimator`` pruned at ``ccp_alpha(rule)``.

        Raises
        ------
        ValueError
            Another rule.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> estimator = quercus.DecisionTreeClassifier(ccp_risk="misclassification")
        >>> cv = estimator.cost_complexity_cv(X, y, folds=5, random_state=0)
        >>> cv.pruned("1se").n_leaves_
        3
        """
        return self.estimator.prune("cost_complexity", ccp_alpha=self.ccp_alpha(rule))


def cross_validate(
    model: Grower,
    X: Any,
    y: Any,
    folds: Any,
    sample_weight: Any,
    target: str | None,
    random_state: int | None,
) -> CostComplexityCV:
    """`model.cost_complexity_cv` (see its documentation and this module's)."""
    checked = model._checked()
    if checked["prepruning"] == "validation":
        raise ValueError(
            "cost_complexity_cv grows trees without validation data: set prepruning=None"
        )
    pruning = model._validated_pruning(checked)
    if pruning.method not in ("none", "cost_complexity"):
        raise ValueError(
            f"cost_complexity_cv cross-validates cost-complexity pruning; this estimator "
            f"prunes with {pruning.method!r}: set pruning='cost_complexity' (or None)"
        )
    # The fit on all rows is pruned at the estimator's own alpha, the table's last row.
    pruning = replace(pruning, method="cost_complexity")
    data = training_data(
        X,
        y,
        target=target,
        sample_weight=sample_weight,
        classification=model._estimator_type == "classifier",
        ordinal=ordinals(checked["ordinal_features"]),
    )
    fold_of = _fold_labels(folds, len(data.y), random_state)
    factors = model._class_factors(data)
    grow = replace(pruning, method="none", ccp_alpha=0.0)
    full = model._grow(checked, data, factors, grow)
    costs = model._cost_list(data.n_classes)
    path = _core.cost_complexity_path(
        full.tree, pruning.ccp_risk, costs, pruning.ccp_sequence, pruning.floor
    )
    alphas, splits, risks = _table_rows(path, pruning.ccp_alpha)
    no_split = bool(splits[-1] == 0)
    if no_split:
        alphas = np.zeros(1)  # rpart's one row: its root's complexity, 0 without a split
    root_risk = float(path["impurities"][-1])  # the root alone: per unit of its weight
    # Risks in the rows' absolute units (rpart's), and the folds' weights to rescale alphas.
    weighed = folded(data, factors).sample_weight  # the weights the trees are grown with
    case_total = data.sample_weight.sum()
    # rpart's `xval.c`: each row is predicted at the geometric mean of its alpha and the
    # next larger one, the first row at 10 × its alpha ("close enough to infinity").
    thresholds = np.empty(len(alphas))
    thresholds[0] = 10 * alphas[0]
    thresholds[1:] = np.sqrt(alphas[:-1] * alphas[1:])
    xrisk = np.zeros(len(alphas))
    xrisk2 = np.zeros(len(alphas))
    predictions: NDArray[Any] | None = None
    for fold in np.unique(fold_of):
        held = fold_of == fold
        # rpart's `xval.c` grows each fold's tree on the whole data's sort and class shares:
        # the fold's rows are every row with the held-out ones at weight 0.
        train = replace(data, sample_weight=np.where(held, 0.0, data.sample_weight))
        tree_state = model._grow(checked, train, factors, grow, prior_weights=weighed)
        # rpart rescales its absolute alphas by the fold's share of the case weight; quercus's
        # alphas are per unit of the root's weight, the fold's own.
        scale = weighed.sum() * (train.sample_weight.sum() / case_total) / weighed[~held].sum()
        columns = [_missing.take_rows(c, held) for c in data.columns]
        truth = data.y[held]
        for j, alpha in enumerate(thresholds):
            pruned = _core.prune_cost_complexity(
                tree_state.tree,
                float(alpha * scale),
                pruning.ccp_risk,
                costs,
                pruning.ccp_sequence,
                pruning.floor * scale,
            )
            predicted = _predict(model, tree_state, pruned, columns)
            if predictions is None:
                predictions = np.zeros((len(data.y), len(alphas)), dtype=predicted.dtype)
            predictions[held, j] = predicted
            error = _row_errors(model, predicted, truth, costs, factors, pruned.n_classes)
            w = data.sample_weight[held]
            xrisk[j] += float(np.sum(w * error))
            xrisk2[j] += float(np.sum(w * error**2))
    absolute_root = root_risk * weighed.sum()
    xstd = np.sqrt(np.maximum(xrisk2 - xrisk**2 / case_total, 0.0))
    if no_split:
        xrisk, xstd = np.zeros(1), np.zeros(1)  # rpart cross-validates no tree without a split
    table = pl.DataFrame(
        {
            "cp": alphas / root_risk if root_risk > 0 else np.zeros(len(alphas)),
            "ccp_alpha": alphas,
            "n_splits": splits,
            "rel_error": risks / root_risk if root_risk > 0 else np.zeros(len(alphas)),
            "xerror": xrisk / absolute_root if absolute_root > 0 else xrisk,
            "xstd": xstd / absolute_root if absolute_root > 0 else xstd,
        },
        schema={
            "cp": pl.Float64,
            "ccp_alpha": pl.Float64,
            "n_splits": pl.Int64,
            "rel_error": pl.Float64,
            "xerror": pl.Float64,
            "xstd": pl.Float64,
        },
    )
    estimator = copy.copy(model)
    estimator._fitted = model._grow(checked, data, factors, pruning)
    assert predictions is not None  # at least two folds
    if data.classes is not None:
        predictions = data.classes[predictions]
    return CostComplexityCV(table, root_risk, estimator, predictions)


def _table_rows(
    path: dict[str, NDArray[Any]], floor: float
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.float64]]:
    """rpart's rows from a pruning path: for each distinct alpha above `floor` (largest
    first) the subtree after every collapse at or below it, then `floor`'s own subtree.
    Alphas within 1e-9 of each other (relative to the larger and to R(root), as the core
    prunes) are one."""
    alphas = path["ccp_alphas"]
    risks = path["impurities"]
    splits = path["n_splits"]
    root = float(risks[-1])

    def at_most(a: float, b: float) -> bool:
        return bool(a <= b + _SAME_ALPHA * max(b, root))

    rows: list[tuple[float, int, float]] = []
    last = 0  # the path's state before any collapse above the floor
    for i in range(1, len(alphas)):
        if i + 1 < len(alphas) and at_most(alphas[i + 1], alphas[i]):
            continue  # the next collapse has the same alpha
        if at_most(alphas[i], floor):
            last = i
            continue
        rows.append((float(alphas[i]), int(splits[i]), float(risks[i])))
    rows.reverse()
    rows.append((floor, int(splits[last]), float(risks[last])))
    a, s, r = zip(*rows, strict=True)
    return np.array(a), np.array(s, dtype=np.int64), np.array(r)


def _predict(
    model: Grower, grown: FittedTree, pruned: _core.Tree, columns: list[_core.Column]
) -> NDArray[Any]:
    """The predictions of `pruned` (grown as `grown`) on encoded `columns`, as `predict`
    makes them: class codes, or values."""
    state = grown.replace_tree(pruned)
    predictor = copy.copy(model)
    predictor._fitted = state
    features = state.schema.features
    rows = [fill_column(c, f) for c, f in zip(columns, features, strict=True)]
    if model._estimator_type == "regressor":
        return predictor._predicted("predict_value", rows)
    return predictor._predict_codes(rows)  # type: ignore[attr-defined,no-any-return]


def _row_errors(
    model: Grower,
    predicted: NDArray[Any],
    truth: NDArray[Any],
    costs: list[float] | None,
    factors: NDArray[np.float64] | None,
    n_classes: int,
) -> NDArray[np.float64]:
    """Each held-out row's error: its class's factor × the cost of the class predicted (1
    for a wrong class without costs), or the squared error of a regressor."""
    if model._estimator_type == "regressor":
        return np.asarray((predicted - truth) ** 2, dtype=np.float64)
    if costs is None:
        loss = (predicted != truth).astype(np.float64)
    else:
        loss = np.asarray(costs).reshape(n_classes, n_classes)[truth, predicted]
    return loss if factors is None else loss * factors[truth]


def _fold_labels(folds: Any, n_rows: int, random_state: int | None) -> NDArray[np.int64]:
    """A fold number per row: `folds` folds of sizes differing by at most one, rows assigned
    at random (rpart's `sample(rep(1:xval, length.out = n))`), or the labels given."""
    if isinstance(folds, int | np.integer) and not isinstance(folds, bool):
        k = int(folds)
        if not 2 <= k <= n_rows:
            raise ValueError(f"folds must be between 2 and the number of rows ({n_rows}); got {k}")
        rng = np.random.default_rng(random_state)
        return rng.permutation(np.arange(n_rows) % k)
    try:
        labels = np.asarray(folds)
    except (TypeError, ValueError):
        raise TypeError("folds must be a number of folds or one fold label per row") from None
    if labels.ndim != 1 or len(labels) != n_rows:
        raise ValueError(
            f"folds must be a number of folds or one fold label per row ({n_rows}); "
            f"got shape {labels.shape}"
        )
    _, codes = np.unique(labels, return_inverse=True)
    if codes.max(initial=0) < 1:
        raise ValueError("folds must hold at least two different fold labels")
    return codes.astype(np.int64)
