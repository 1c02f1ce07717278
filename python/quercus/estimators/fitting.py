"""Fitting: the way from `fit(X, y, sample_weight)` to a grown, post-pruned tree.

The order is fixed: the parameters are checked (`Parameters._checked`), the data are
validated and converted once (`quercus.inputs.training.training_data`), the classifier's
class weights are folded into the row weights, the `missing=` strategies done on the data
are applied (`quercus.inputs.missing`), the core grows the tree and `post_prune` prunes it.
A fit that fails leaves the estimator as it was.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, replace
from typing import Any, Self

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .. import _core
from ..fitted.state import FittedTree
from ..inputs import missing as _missing
from ..inputs import weights
from ..inputs.schema import Classes, LabelledData, Schema, TrainingData, ordinals
from ..inputs.training import labelled_data, training_data
from ..scale import stream as _stream
from . import holdout
from .attributes import FittedState
from .base import DataConversionWarning
from .parameters import GrowthParams, PruningSettings
from .post_pruning import CONSTRAINED_PESSIMISTIC, post_prune


class Fitting(FittedState):
    """`fit`: the data converted once (`quercus.inputs`), the tree grown by the core (greedy,
    streamed from a LazyFrame, or the optimal search), then post-pruned."""

    def fit(
        self,
        X: Any,
        y: Any = None,
        sample_weight: Any = None,
        *,
        target: str | list[str] | None = None,
        validation: tuple[Any, ...] | None = None,
        memory_budget: int | None = None,
        batch_rows: int | None = None,
    ) -> Self:
        """Grow the tree, then post-prune it as ``pruning`` says.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, polars.DataFrame or LazyFrame, pandas.DataFrame
            The training rows, one column per feature. String, Categorical, Enum and Boolean
            columns (pandas ``category``) are categorical features; null and NaN are missing
            values.
        y : array-like of shape (n_rows,) or (n_rows, n_outputs), optional
            The target. 2-D grows one tree whose leaves predict every output, as
            scikit-learn's multi-output trees. Omit it when ``target`` names a column of X.
        sample_weight : array-like of shape (n_rows,), optional
            Finite, non-negative row weights (a row of weight 0 is absent). May be passed by
            position, as scikit-learn's ``fit(X, y, sample_weight)``.
        target : str or list of str, optional
            The column of a DataFrame X that holds y (a list of names: a multi-output y);
            it is not a feature.
        validation : tuple, optional
            ``(X_val, y_val)`` or ``(X_val, y_val, sample_weight_val)``: the held-out rows
            ``prepruning="validation"`` and ``pruning="reduced_error"`` measure.
        memory_budget : int, optional
            With ``splitter="hist"`` and a LazyFrame X (e.g. ``pl.scan_parquet(...)``, with
            ``target`` naming one column): the bytes of histograms a pass over the batches
            holds, and of binned rows kept in memory between passes (beyond it they go to
            a temporary file in TMPDIR; default 256 MiB). Such an X is streamed, never
            collected whole, and the tree is the one the in-memory fit grows from the same
            rows; ``sample_weight`` then names a column. Other splitters collect it.
        batch_rows : int, optional
            Rows per batch of a streamed LazyFrame (default 2**18); the source is read twice.

        Returns
        -------
        self : object
            This estimator, fitted.

        Raises
        ------
        InvalidParameterError
            A parameter outside its values; the message names it and its bounds.
        ValueError
            Data that cannot be used (an infinite value, y of another length than X, a
            pruning that needs ``validation`` without it), named in the message.
        TimeoutError
            The fit ran longer than ``max_time``; the estimator is left as it was.

        Examples
        --------
        >>> import quercus
        >>> df = quercus.datasets.load("watermelon3")
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(df, target="ripe")
        >>> model.n_leaves_, model.depth_
        (5, 2)
        """
        checked = self._checked()
        pruning = self._validated_pruning(checked)
        streamed = isinstance(X, pl.LazyFrame) and checked["splitter"] == "hist"
        if not streamed and (memory_budget is not None or batch_rows is not None):
            raise ValueError(
                "memory_budget and batch_rows apply to a LazyFrame fit with splitter='hist', "
                "which streams it batch by batch"
            )
        if streamed:
            if y is not None or validation is not None:
                raise ValueError("a LazyFrame fit takes target= (a column), not y or validation")
            self._fitted = self._fit_streamed(
                X, checked, pruning, target, sample_weight, memory_budget, batch_rows
            )
            return self
        if y is not None and checked.get("criterion") == "poisson":
            _check_poisson_first(y)
        if y is not None and not self._fits_outputs() and _is_column_vector(y):
            warnings.warn(
                # The words scikit-learn's estimator checks look for.
                "A column-vector y was passed when a 1d array was expected: this "
                "configuration fits one output, so it is read as a 1-D y (pass y.ravel())",
                DataConversionWarning,
                stacklevel=2,
            )
        data = training_data(
            X,
            y,
            target=target,
            sample_weight=sample_weight,
            classification=self._estimator_type == "classifier",
            ordinal=ordinals(checked["ordinal_features"]),
        )
        if data.y.ndim == 2:
            if pruning.method == "pessimistic":
                raise ValueError(
                    "pruning='pessimistic' (C4.5's error-based pruning, the c4.5 preset's "
                    f"default) estimates the error of one class variable, but y has "
                    f"{data.y.shape[1]} outputs: pass pruning='cost_complexity', "
                    "'reduced_error' or 'none'"
                )
            # Several outputs: class weights multiply the rows' weights (scikit-learn's
            # `compute_sample_weight`), with no per-class factor in the search.
            data, factors = self._reweighted(data), None
        else:
            factors = self._class_factors(data)
        # Assigned only once pruning succeeded, so a failed fit leaves the model as it was.
        self._fitted = self._grow(checked, data, factors, pruning, validation)
        return self

    def _fit_streamed(
        self,
        lf: pl.LazyFrame,
        checked: dict[str, Any],
        pruning: PruningSettings,
        target: str | list[str] | None,
        sample_weight: Any,
        memory_budget: int | None,
        batch_rows: int | None,
    ) -> FittedTree:
        """The fitted state of a tree grown over a LazyFrame's batches (`quercus.scale.stream`).
        Node quantiles are not recorded: they would need every target again (pictures draw
        mean ± sd, as for a loaded model)."""
        for name in ("class_weight", "priors"):
            if getattr(self, name, None) is not None:
                raise ValueError(
                    f"{name} needs the class counts first; a LazyFrame fit "
                    "takes sample_weight= (a column) instead"
                )

        _stream.check_streamable(checked, pruning.method)
        tree, schema, classes = _stream.fit(
            lf,
            target=_stream.one_target(target),
            sample_weight=sample_weight,
            classification=self._estimator_type == "classifier",
            ordinal=ordinals(checked["ordinal_features"]),
            missing=checked["missing"],
            params=lambda n_rows, n_features, n_classes: self._params_for(
                checked, n_rows, n_features, n_classes
            ),
            memory_budget=memory_budget,
            batch_rows=batch_rows,
            progress=self._reporter("fit"),
        )
        return FittedTree(tree, schema, classes)

    def _class_factors(self, data: TrainingData) -> NDArray[np.float64] | None:
        """The classifier's per-class weight factors (class_weight, priors); None: none."""
        return None

    def _rpart_priors(self, data: TrainingData) -> list[float] | None:
        """rpart's priors as given, in class order (the classifier's `priors`); None: none."""
        return None

    def _reweighted(self, data: TrainingData) -> TrainingData:
        """A multi-output y's data with the classifier's class weights folded in."""
        return data

    def _grow(
        self,
        checked: dict[str, Any],
        data: TrainingData,
        factors: NDArray[np.float64] | None,
        pruning: PruningSettings,
        validation: tuple[Any, ...] | None = None,
        prior_weights: NDArray[np.float64] | None = None,
    ) -> FittedTree:
        """The fitted state of a tree grown on `data` with the `checked` parameters and
        per-class weight `factors` (folded into the row weights; the size rules count rows
        without them), then post-pruned. `prior_weights`: a cross-validation fold's whole
        data weights (`GrowthParams.prior_weights`)."""
        prepruning = checked["prepruning"] == "validation"
        held = self._pruning_set(checked, pruning.method, prepruning, data, validation)
        if held is None:
            params = self._validated_params(checked, data)
        else:
            # The held-out rows grow nothing (weight 0), and shares of rows are of the others.
            params = self._params_for(
                checked, int(np.count_nonzero(~held)), len(data.columns), data.n_classes
            )
            params = replace(params, j48_pruning_set=True)
            raw, data = data, replace(data, sample_weight=np.where(held, 0.0, data.sample_weight))
        if prior_weights is not None:
            params = replace(params, prior_weights=prior_weights.tolist())
        if any(params.monotonic_cst or ()) and pruning.method == "pessimistic":
            raise ValueError(CONSTRAINED_PESSIMISTIC)
        if factors is not None:
            params = replace(
                params, class_weights=factors.tolist(), priors=self._rpart_priors(data)
            )
        # The rows as the core grows from them: the class factors folded into their weights,
        # then the `missing=` strategies done on the data.
        data = weights.folded(data, factors)
        data = _missing.prepare(data, checked["missing"], checked["drop_features_above"])
        if checked["algorithm"] == "optimal":
            tree = self._grow_optimal(data, params, checked, validation)
            return FittedTree(tree, data.schema, data.classes)
        held_out = None
        if held is not None:
            held_out = holdout.held_rows(raw, held, data.schema)
        elif validation is not None:
            held_out = self._labelled(validation, data.schema, data.classes)
        progress = self._reporter("fit")
        try:
            tree = _core.fit(
                data.columns,
                data.y,
                data.n_classes,
                data.sample_weight,
                asdict(params),
                held_out.as_core() if held_out and prepruning else None,
                progress,
            )
        finally:
            if progress is not None:
                progress.close()
        grown = FittedTree(tree, data.schema, data.classes)
        training = LabelledData(data.columns, data.y, data.sample_weight)
        costs = self._cost_list(data.n_classes)
        return post_prune(grown, pruning, held_out, training, costs, params.n_jobs)

    def _grow_optimal(
        self,
        data: TrainingData,
        params: GrowthParams,
        checked: dict[str, Any],
        validation: tuple[Any, ...] | None,
    ) -> _core.Tree:
        """algorithm="optimal": the tree of least training error plus `ccp_alpha` per leaf
        within max_depth (and max_leaf_nodes); the core refuses the parameters it does not
        take. Past max_time, the best tree found, with a warning giving its gap."""
        if checked["pruning"] != "none":
            raise ValueError(
                "pruning: an optimal tree is not post-pruned; ccp_alpha is part of the "
                "objective it minimises"
            )
        if checked["prepruning"] not in (None, "none") or validation is not None:
            raise ValueError(
                "prepruning and validation do not apply to algorithm='optimal', which "
                "compares whole trees on the training data"
            )
        progress = self._reporter("fit")
        try:
            tree = _core.fit_optimal(
                data.columns,
                data.y,
                data.n_classes,
                data.sample_weight,
                asdict(params),
                checked["ccp_alpha"],
                progress,
            )
        finally:
            if progress is not None:
                progress.close()
        objective, lower = tree.optimality or (0.0, 0.0)
        if lower < objective:
            warnings.warn(
                f"max_time ran out before the search finished: the tree is the best found, "
                f"its objective at most {(objective - lower) / objective:.2%} above the "
                "optimum (optimality_gap_)",
                UserWarning,
                stacklevel=3,
            )
        return tree

    @staticmethod
    def _pruning_set(
        checked: dict[str, Any],
        method: str,
        prepruning: bool,
        data: TrainingData,
        validation: tuple[Any, ...] | None,
    ) -> NDArray[np.bool_] | None:
        """The rows `pruning_folds` holds out of `data` for pruning (None: not set), after
        checking that the pruning asked for has the held-out rows it needs."""
        folds = checked["pruning_folds"]
        needs = prepruning or method == "reduced_error"
        if folds is None:
            if needs and validation is None:
                raise ValueError(
                    "prepruning='validation' and pruning='reduced_error' need held-out rows: "
                    "fit(..., validation=(X_val, y_val)), or pruning_folds= to hold some of "
                    "the training rows out (J48 -R -N)"
                )
            return None
        if not needs:
            raise ValueError(
                f"pruning_folds={folds} holds rows out for pruning='reduced_error' or "
                f"prepruning='validation'; got pruning={method!r}"
            )
        if validation is not None:
            raise ValueError(
                "pruning_folds holds the pruning rows out of the training data: pass it or "
                "validation=, not both"
            )
        if checked["algorithm"] == "optimal":
            raise ValueError("pruning_folds does not apply to algorithm='optimal'")
        return holdout.pruning_set(data, folds)

    @staticmethod
    def _labelled(rows: tuple[Any, ...], schema: Schema, classes: Classes | None) -> LabelledData:
        if not isinstance(rows, tuple) or len(rows) not in (2, 3):
            raise ValueError("validation must be a tuple (X_val, y_val[, sample_weight_val])")
        weight = rows[2] if len(rows) == 3 else None
        return labelled_data(rows[0], rows[1], weight, schema, classes)


def _check_poisson_first(y: Any) -> None:
    """A 1-D numeric y the Poisson deviance cannot score is refused before y is compared
    with X (scikit-learn's order of checks); any other y is left to the full validation."""
    try:
        values = np.ascontiguousarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        return
    if values.ndim == 1 and np.isfinite(values).all():
        _core.check_poisson_target(values)


def _is_column_vector(y: Any) -> bool:
    """Whether y is 2-D with one column (a NumPy array, a frame or nested lists)."""
    shape = getattr(y, "shape", None)
    if shape is None:  # lists, or objects with only `__array__`
        shape = np.asarray(y).shape
    return len(shape) == 2 and shape[1] == 1
