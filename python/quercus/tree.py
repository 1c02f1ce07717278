"""The estimators, `split_scores`, and loading saved models.

Parameters are declared once, in each estimator's constraint table, and checked in one place
(`_BaseTree._checked`); inputs are converted in `_validation`; trees are grown in `_core`;
what a fit leaves is a `FittedTree` that the exports and the model format take. This module
stays a thin layer of scikit-learn conventions.
"""

from __future__ import annotations

import copy
import html
import inspect
import os
import warnings
from abc import ABC
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, cast

import numpy as np
import polars as pl
from numpy.typing import NDArray

from . import _core, _growth, _missing, model_io, native, pictures, render, serving
from ._base import ClassifierBase, EstimatorBase, RegressorBase
from ._fitted import FittedTree, is_dense
from ._params import (
    ArrayLike,
    Boolean,
    Constraints,
    Dict,
    Integer,
    Jobs,
    Names,
    Options,
    Real,
    RealNotInt,
    Seed,
    check,
    check_params,
)
from ._progress import Progress
from ._sklearn import TreeView, sklearn_flavoured
from ._validation import (
    LabelledData,
    Ordinals,
    Schema,
    TrainingData,
    labelled_data,
    n_rows_of,
    regression_targets,
    sample_weights,
    target_values,
    training_data,
    transform,
)
from .rules import MAX_CATEGORIES, RuleSet

if TYPE_CHECKING:
    from os import PathLike
    from typing import TypeAlias

    from scipy.sparse import csr_matrix

    # What the core predicts from: a float matrix read in place, or encoded columns.
    Rows: TypeAlias = NDArray[np.floating] | list[_core.Column]

_Estimator = TypeVar("_Estimator", bound="_BaseTree")

# algorithm presets; "optimal" is the branch and bound of rust/core/src/optimal (subsets)
_SPLITS = {"id3": "multiway", "c4.5": "multiway", "cart": "binary", "optimal": "binary"}
# C4.5 release 8 / Weka J48 defaults (Quinlan 1993, 1996); ID3 and CART add no such rules.
_C45 = {"min_objects": 2.0, "numeric_gain_correction": True, "pruning": "pessimistic"}
_NO_C45 = {"min_objects": 0.0, "numeric_gain_correction": False, "pruning": "none"}
# Missing values: C4.5's fractions for the texts' algorithms; CART follows scikit-learn
# (>= 1.3), whose users expect a learned direction per split.
# The optimal search sends missing values to the side it finds best (learned) too.
_MISSING = {"id3": "fractional", "c4.5": "fractional", "cart": "learned", "optimal": "learned"}
# The class criteria of texts 000 and 002 §3 ("log_loss" is scikit-learn's name for
# entropy: the same tree, recorded as "entropy"), and scikit-learn's regression criteria.
_CLASS_CRITERIA = (
    "entropy",
    "log_loss",
    "gain_ratio",
    "gini",
    "misclassification",
    "likelihood_ratio",
    "dkm",
    "distance",
    "twoing",
    "ort",
    "kolmogorov_smirnov",
    "auc",
)
_REGRESSION_CRITERIA = ("squared_error", "friedman_mse", "absolute_error", "poisson")
_CRITERIA = (*_CLASS_CRITERIA, *_REGRESSION_CRITERIA)
_PRUNINGS = ("none", "reduced_error", "pessimistic", "cost_complexity")
# "best" is scikit-learn's name for "auto"; "random" draws one test per feature (ExtraTree).
_SPLITTERS = ("best", "random", "exact", "hist", "auto")
_SCORE_COLUMNS = ("score", "gain", "iv", "threshold", "rho")
_REPR_SVG_WIDTH = 960  # px: a notebook cell's width
# The core's limit on threads (params.rs MAX_JOBS): beyond the cores they only cost memory.
_MAX_JOBS = 1024

# Every parameter both estimators take, with the values it accepts (None: "not set", which
# for `_PRESETS` means the algorithm's choice). Checked together at fit by `_checked`.
_CONSTRAINTS: dict[str, Constraints] = {
    "algorithm": (Options(tuple(_SPLITS)),),
    "criterion": (Options(_CRITERIA), None),  # each estimator narrows it to its own
    "categorical_split": (Options(("multiway", "binary")), None),
    "max_depth": (Integer(1, 2**31 - 1), None),  # depths are stored as 32-bit numbers
    # A count, or scikit-learn's share of the training rows.
    "min_samples_split": (Integer(2), RealNotInt(0.0, 1.0)),
    "min_samples_leaf": (Integer(1), RealNotInt(0.0, 1.0, open_high=True)),
    "max_exhaustive_categories": (Integer(2, 20),),  # 2^(k-1) partitions are enumerated
    "max_leaf_nodes": (Integer(2), None),
    "min_weight_fraction_leaf": (Real(0.0, 0.5),),
    "min_gain": (Real(0.0),),
    "min_impurity_decrease": (Real(0.0),),
    "max_p_value": (Real(0.0, 1.0, open_low=True), None),
    "min_objects": (Real(0.0), None),
    "numeric_gain_correction": (Boolean(), None),
    "prepruning": (Options(("none", "validation")), None),
    "pruning": (Options(_PRUNINGS), None),
    "ccp_alpha": (Real(0.0),),
    "confidence": (Real(0.0, 0.5, open_low=True),),
    "prune_ties": (Boolean(),),
    "subtree_raising": (Boolean(),),
    "splits": (Options(("axis", "oblique")),),
    "missing": (Options(_missing.STRATEGIES), None),
    "max_surrogates": (Integer(0, 64),),
    "drop_features_above": (Real(0.0, 1.0), None),
    "splitter": (Options(_SPLITTERS),),
    "max_features": (Integer(1), RealNotInt(0.0, 1.0), Options(("sqrt", "log2")), None),
    "random_state": (Seed(), None),
    "monotonic_cst": (ArrayLike(), None),  # -1 / 0 / 1 per feature, checked at fit
    "max_bins": (Integer(2, 255),),  # bin codes are bytes, one kept for missing values
    "n_jobs": (Jobs(_MAX_JOBS), None),
    "ordinal_features": (Names(), Dict(), None),
    "max_time": (Real(0.0, open_low=True), None),  # seconds
    "verbose": (Integer(0), Boolean()),
}
# Parameters whose None means the algorithm preset's value.
_PRESETS = (
    "criterion",
    "categorical_split",
    "min_objects",
    "numeric_gain_correction",
    "pruning",
    "missing",
)


def _extended_signature(base: Any, extra: tuple[str, ...]) -> inspect.Signature:
    """`base`'s signature plus keyword-only parameters `extra` defaulting to None."""
    signature = inspect.signature(base)
    added = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None) for n in extra]
    return signature.replace(parameters=[*signature.parameters.values(), *added])


def _post_prune(
    state: FittedTree,
    pruning: _Pruning,
    held_out: LabelledData | None,
    training: LabelledData | None,
) -> FittedTree:
    """`state` with its tree pruned by `pruning.method` (unchanged for "none"); records the
    reduced-error steps as the state's trace."""
    tree, trace = state.tree, None
    if pruning.method == "reduced_error":
        assert held_out is not None  # checked by the callers
        tree, steps = _core.prune_reduced_error(tree, *held_out.as_core(), pruning.prune_ties)
        trace = pl.DataFrame(steps)
    elif pruning.method == "pessimistic":
        raising = training.as_core() if pruning.subtree_raising and training else None
        tree = _core.prune_pessimistic(tree, pruning.confidence, raising)
    elif pruning.method == "cost_complexity":
        tree = _core.prune_cost_complexity(tree, pruning.ccp_alpha)
    return state.replace_tree(tree, trace)


_CONSTRAINED_PESSIMISTIC = (
    "monotonic_cst: a constrained tree holds class probabilities, not the class weights "
    "C4.5's error-based (pessimistic) pruning counts errors in: choose pruning='none', "
    "'cost_complexity' or 'reduced_error'"
)


class NotFittedError(ValueError, AttributeError):
    """Raised when an unfitted estimator is used; catchable like scikit-learn's."""


@dataclass(frozen=True)
class _Params:
    """Validated growth parameters, named exactly as the keys `_core.fit` reads."""

    criterion: str
    categorical_split: str
    max_depth: int | None
    min_samples_split: int
    min_samples_leaf: int
    max_exhaustive_categories: int
    max_leaf_nodes: int | None
    min_weight_fraction_leaf: float
    min_gain: float
    min_impurity_decrease: float
    max_p_value: float | None
    min_objects: float
    numeric_gain_correction: bool
    cost_matrix: list[float] | None
    oblique: bool
    missing: str  # the core's strategy (see `_missing.core_strategy`)
    max_surrogates: int
    splitter: str
    max_bins: int
    n_jobs: int | None
    max_features: int  # features searched per node (all of them: nothing is drawn)
    random_state: int  # the seed of every random choice
    monotonic_cst: list[int] | None
    max_time: float | None  # seconds; the core stops the fit with TimeoutError past it


@dataclass(frozen=True)
class _Pruning:
    """Validated post-pruning settings."""

    method: str
    ccp_alpha: float
    confidence: float
    prune_ties: bool
    subtree_raising: bool


@dataclass(frozen=True)
class PruningPath:
    """The minimal cost-complexity pruning path, as scikit-learn returns it: the effective
    alphas (increasing, from 0) and the total leaf impurity of each pruned subtree. Read by
    attribute or, like scikit-learn's Bunch, by key (`path["ccp_alphas"]`)."""

    ccp_alphas: NDArray[np.float64]
    impurities: NDArray[np.float64]

    def keys(self) -> tuple[str, ...]:
        return ("ccp_alphas", "impurities")

    def __getitem__(self, key: str) -> NDArray[np.float64]:
        if key not in self.keys():
            raise KeyError(key)
        return cast(NDArray[np.float64], getattr(self, key))


class _BaseTree(EstimatorBase, ABC):
    """Parameters, fitting and the rendering shared by both estimators."""

    _estimator_type: ClassVar[Literal["classifier", "regressor"]]
    _default_criteria: ClassVar[dict[str, str]]  # algorithm -> criterion when None
    _constraints: ClassVar[dict[str, Constraints]] = _CONSTRAINTS
    _fitted: FittedTree

    def __init__(
        self,
        *,
        algorithm: str = "cart",
        criterion: str | None = None,
        categorical_split: str | None = None,
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        max_exhaustive_categories: int = 12,
        max_leaf_nodes: int | None = None,
        min_weight_fraction_leaf: float = 0.0,
        min_gain: float = 0.0,
        min_impurity_decrease: float = 0.0,
        max_p_value: float | None = None,
        min_objects: float | None = None,
        numeric_gain_correction: bool | None = None,
        prepruning: str | None = None,
        pruning: str | None = None,
        ccp_alpha: float = 0.0,
        confidence: float = 0.25,
        prune_ties: bool = True,
        subtree_raising: bool = True,
        splits: str = "axis",
        missing: str | None = None,
        max_surrogates: int = 5,
        drop_features_above: float | None = None,
        splitter: str = "best",
        max_features: int | float | str | None = None,
        random_state: Any = None,
        monotonic_cst: Any = None,
        max_bins: int = 255,
        n_jobs: int | None = None,
        ordinal_features: Any = None,
        max_time: float | None = None,
        verbose: int = 0,
    ) -> None:
        self.algorithm = algorithm
        self.criterion = criterion
        self.categorical_split = categorical_split
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_exhaustive_categories = max_exhaustive_categories
        self.max_leaf_nodes = max_leaf_nodes
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_gain = min_gain
        self.min_impurity_decrease = min_impurity_decrease
        self.max_p_value = max_p_value
        self.min_objects = min_objects
        self.numeric_gain_correction = numeric_gain_correction
        self.prepruning = prepruning
        self.pruning = pruning
        self.ccp_alpha = ccp_alpha
        self.confidence = confidence
        self.prune_ties = prune_ties
        self.subtree_raising = subtree_raising
        self.splits = splits
        self.missing = missing
        self.max_surrogates = max_surrogates
        self.drop_features_above = drop_features_above
        self.splitter = splitter
        self.max_features = max_features
        self.random_state = random_state
        self.monotonic_cst = monotonic_cst
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.ordinal_features = ordinal_features
        self.max_time = max_time
        self.verbose = verbose

    @property
    def criterion(self) -> str | None:
        """The `criterion` parameter; once fitted with it None, the criterion the algorithm's
        preset chose (`entropy`, `gain_ratio`, `gini`, `squared_error`), which is what
        scikit-learn's exporters (`export_graphviz`, `plot_tree`) print. `get_params` keeps
        what was given, so `clone` and refits are unchanged."""
        given = self.__dict__.get("_criterion")
        fitted = self.__dict__.get("_fitted")
        return fitted.tree.criterion if given is None and fitted is not None else given

    @criterion.setter
    def criterion(self, value: str | None) -> None:
        self.__dict__["_criterion"] = value

    @classmethod
    def _parameters(cls) -> list[inspect.Parameter]:
        return [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]

    def _given(self, name: str) -> Any:
        """Parameter `name` as the user set it (`criterion` may read resolved otherwise)."""
        return self.__dict__["_criterion"] if name == "criterion" else getattr(self, name)

    def _param(self, name: str) -> Any:
        """One parameter, checked (for the methods that read one, such as `n_jobs`)."""
        return check(name, self._given(name), self._constraints[name])

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters (scikit-learn protocol; `deep` has nothing to recurse)."""
        return {p.name: self._given(p.name) for p in self._parameters()}

    def set_params(self: _Estimator, **params: Any) -> _Estimator:
        valid = {p.name for p in self._parameters()}
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"invalid parameter {name!r} for {type(self).__name__}; "
                    f"valid ones are {', '.join(sorted(valid))}"
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        changed = (
            f"{p.name}={self._given(p.name)!r}"
            for p in self._parameters()
            if self._given(p.name) != p.default
        )
        return f"{type(self).__name__}({', '.join(changed)})"

    def _checked(self) -> dict[str, Any]:
        """Every parameter checked against the class's constraint table, the presets' None
        replaced by the algorithm's choice (C4.5's rules are a classifier's: a regressor
        takes only C4.5's multiway splits)."""
        checked = check_params(self._constraints, {n: self._given(n) for n in self._constraints})
        algorithm = checked["algorithm"]
        c45 = algorithm == "c4.5" and self._estimator_type == "classifier"
        presets = {
            "criterion": self._default_criteria[algorithm],
            "categorical_split": _SPLITS[algorithm],
            "missing": _MISSING[algorithm],
            **(_C45 if c45 else _NO_C45),
        }
        for name in _PRESETS:
            if checked[name] is None:
                checked[name] = presets[name]
        return checked

    def _validated_params(self, checked: dict[str, Any], data: TrainingData) -> _Params:
        """The growth parameters as the core reads them, resolved against the training data
        as scikit-learn resolves them (shares of rows and features, the seed)."""
        return self._params_for(checked, len(data.y), len(data.columns), data.n_classes)

    def _params_for(
        self, checked: dict[str, Any], n_rows: int, n_features: int, n_classes: int
    ) -> _Params:
        """`_validated_params` for data of this shape (a streamed fit has no TrainingData)."""
        return _Params(
            criterion=checked["criterion"],
            categorical_split=checked["categorical_split"],
            max_depth=checked["max_depth"],
            min_samples_split=_growth.sample_count(checked["min_samples_split"], n_rows, least=2),
            min_samples_leaf=_growth.sample_count(checked["min_samples_leaf"], n_rows, least=1),
            max_exhaustive_categories=checked["max_exhaustive_categories"],
            max_leaf_nodes=checked["max_leaf_nodes"],
            min_weight_fraction_leaf=checked["min_weight_fraction_leaf"],
            min_gain=checked["min_gain"],
            min_impurity_decrease=checked["min_impurity_decrease"],
            max_p_value=checked["max_p_value"],
            min_objects=checked["min_objects"],
            numeric_gain_correction=checked["numeric_gain_correction"],
            cost_matrix=self._cost_list(n_classes),
            oblique=checked["splits"] == "oblique",
            missing=_missing.core_strategy(checked["missing"]),
            max_surrogates=checked["max_surrogates"],
            splitter=checked["splitter"],
            max_bins=checked["max_bins"],
            n_jobs=_threads(checked["n_jobs"]),
            max_features=_growth.max_features(checked["max_features"], n_features),
            random_state=_growth.seed(checked["random_state"]),
            monotonic_cst=_growth.monotonic_cst(checked["monotonic_cst"], n_features, n_classes),
            max_time=checked["max_time"],
        )

    def _cost_list(self, n_classes: int) -> list[float] | None:
        """The classifier's cost matrix, row-major; the regressor has none."""
        return None

    @staticmethod
    def _validated_pruning(checked: dict[str, Any]) -> _Pruning:
        method, alpha = checked["pruning"], checked["ccp_alpha"]
        if method == "none" and alpha > 0:
            method = "cost_complexity"  # as in scikit-learn, a positive ccp_alpha prunes
        return _Pruning(
            method=method,
            ccp_alpha=alpha,
            confidence=checked["confidence"],
            prune_ties=checked["prune_ties"],
            subtree_raising=checked["subtree_raising"],
        )

    def fit(
        self: _Estimator,
        X: Any,
        y: Any = None,
        *,
        sample_weight: Any = None,
        target: str | None = None,
        validation: tuple[Any, ...] | None = None,
        memory_budget: int | None = None,
        batch_rows: int | None = None,
    ) -> _Estimator:
        """Grow the tree, then post-prune it as `pruning` says.

        `target` names the column of a Polars X that holds y. `validation` = (X_val, y_val)
        or (X_val, y_val, sample_weight_val) feeds `prepruning="validation"` and
        `pruning="reduced_error"`.

        With `splitter="hist"`, a Polars LazyFrame X (e.g. `pl.scan_parquet(...)`, with
        `target=`) is streamed: read in batches of `batch_rows` rows (default 2**20) once per
        tree level, never collected whole, holding at most `memory_budget` bytes of
        histograms (default 256 MiB); the tree is the one the in-memory fit grows from the
        same rows. `sample_weight` then names a column. Other splitters collect it.
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
            if getattr(self, "class_weight", None) is not None:
                raise ValueError(
                    "class_weight needs the class counts first; a LazyFrame fit "
                    "takes sample_weight= (a column) instead"
                )
            from . import _stream

            _stream.check_streamable(checked, pruning.method)
            tree, schema, classes = _stream.fit(
                X,
                target=target,
                sample_weight=sample_weight,
                classification=self._estimator_type == "classifier",
                ordinal=_ordinals(checked["ordinal_features"]),
                missing=checked["missing"],
                params=lambda n_rows, n_features, n_classes: self._params_for(
                    checked, n_rows, n_features, n_classes
                ),
                memory_budget=memory_budget,
                batch_rows=batch_rows,
            )
            self._fitted = FittedTree(tree, schema, classes)
            return self
        data = self._reweighted(
            training_data(
                X,
                y,
                target=target,
                sample_weight=sample_weight,
                classification=self._estimator_type == "classifier",
                ordinal=_ordinals(checked["ordinal_features"]),
            )
        )
        params = self._validated_params(checked, data)
        if any(params.monotonic_cst or ()) and pruning.method == "pessimistic":
            raise ValueError(_CONSTRAINED_PESSIMISTIC)
        data = _missing.prepare(data, checked["missing"], checked["drop_features_above"])
        prepruning = checked["prepruning"] == "validation"
        if (prepruning or pruning.method == "reduced_error") and validation is None:
            raise ValueError(
                "prepruning='validation' and pruning='reduced_error' need "
                "fit(..., validation=(X_val, y_val))"
            )
        if checked["algorithm"] == "optimal":
            # Assigned only once the search succeeded, as below.
            tree = self._grow_optimal(data, params, checked, validation)
            self._fitted = FittedTree(tree, data.schema, data.classes)
            return self
        held_out = None
        if validation is not None:
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
        # Assigned only once pruning succeeded, so a failed fit leaves the model as it was.
        self._fitted = _post_prune(grown, pruning, held_out, training)
        return self

    def _reweighted(self, data: TrainingData) -> TrainingData:
        """The training data with any class weights folded in (the classifier's)."""
        return data

    def _grow_optimal(
        self,
        data: TrainingData,
        params: _Params,
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
    def _labelled(rows: tuple[Any, ...], schema: Schema, classes: Any) -> LabelledData:
        if not isinstance(rows, tuple) or len(rows) not in (2, 3):
            raise ValueError("validation must be a tuple (X_val, y_val[, sample_weight_val])")
        weight = rows[2] if len(rows) == 3 else None
        return labelled_data(rows[0], rows[1], weight, schema, classes)

    def prune(
        self: _Estimator,
        method: str,
        *,
        X_val: Any = None,
        y_val: Any = None,
        sample_weight_val: Any = None,
        X: Any = None,
        y: Any = None,
        sample_weight: Any = None,
        prune_ties: bool = True,
        confidence: float = 0.25,
        ccp_alpha: float = 0.0,
    ) -> _Estimator:
        """A new, pruned model; this one is left untouched.

        method: "reduced_error" (needs X_val, y_val; `prune_ties` prunes when the validation
        error stays equal, as text 004 does, else only when it drops, as text 000 does),
        "pessimistic" (C4.5's error-based pruning at `confidence`; with the training X, y it
        also raises subtrees as C4.5 does) or "cost_complexity" (CART, at `ccp_alpha`).
        """
        state = self._state
        if method == "pessimistic" and self.monotonic_cst is not None:
            raise ValueError(_CONSTRAINED_PESSIMISTIC)
        pruning = _Pruning(
            method=check("method", method, (Options(_PRUNINGS[1:]),)),
            ccp_alpha=check("ccp_alpha", ccp_alpha, _CONSTRAINTS["ccp_alpha"]),
            confidence=check("confidence", confidence, _CONSTRAINTS["confidence"]),
            prune_ties=check("prune_ties", prune_ties, _CONSTRAINTS["prune_ties"]),
            subtree_raising=X is not None,
        )
        held_out = training = None
        if method == "reduced_error":
            if X_val is None or y_val is None:
                raise ValueError("reduced-error pruning needs X_val and y_val")
            held_out = self._labelled(
                (X_val, y_val, sample_weight_val), state.schema, state.classes
            )
        if X is not None:
            training = self._labelled((X, y, sample_weight), state.schema, state.classes)
        pruned = copy.copy(self)
        pruned._fitted = _post_prune(state, pruning, held_out, training)
        return pruned

    def cost_complexity_pruning_path(
        self, X: Any, y: Any, sample_weight: Any = None
    ) -> PruningPath:
        """Grow a tree on X, y with these parameters (unpruned) and return its minimal
        cost-complexity pruning path, with scikit-learn's semantics: pruning at
        `ccp_alphas[i]` gives the subtree whose total leaf impurity is `impurities[i]`."""
        grower = copy.copy(self).set_params(pruning="none", ccp_alpha=0.0, prepruning=None)
        path = _core.cost_complexity_path(grower.fit(X, y, sample_weight=sample_weight)._state.tree)
        return PruningPath(path["ccp_alphas"], path["impurities"])

    @property
    def optimality_gap_(self) -> float | None:
        """algorithm="optimal": how far the tree's objective (training error per unit of
        weight plus ccp_alpha per leaf) may be above the optimum, relative to it:
        (objective − proven lower bound) / objective; 0.0 when it is proven optimal (always,
        unless max_time ran out). None for the greedy algorithms and pruned copies."""
        optimality = self._state.tree.optimality
        if optimality is None:
            return None
        objective, lower = optimality
        return 0.0 if lower >= objective else (objective - lower) / objective

    @property
    def proven_optimal_(self) -> bool | None:
        """algorithm="optimal": whether the search proved the tree optimal (it did unless
        max_time ran out first). None for the greedy algorithms and pruned copies."""
        optimality = self._state.tree.optimality
        return None if optimality is None else optimality[1] >= optimality[0]

    @property
    def pruning_trace_(self) -> pl.DataFrame | None:
        """Each reduced-error pruning decision in the order taken (node ids of the unpruned
        tree), or None when the tree was not pruned that way."""
        return self._state.trace

    @property
    def features_used_(self) -> frozenset[str]:
        """The names of the features some split tests (text 002 §1's complexity metrics)."""
        nodes = self.tree_.nodes()
        names = self._state.schema.names
        return frozenset(names[j] for j in np.unique(nodes["feature"][nodes["n_children"] > 0]))

    @property
    def fill_values_(self) -> dict[str, float | str]:
        """missing="impute_mean": the value each feature's missing cells are read as (its
        training mean, or most common category), at fit and at every prediction; empty for
        the other strategies."""
        features = self._state.schema.features
        return {f.name: f.fill for f in features if f.fill is not None}

    @property
    def ignored_features_(self) -> list[str]:
        """The features `drop_features_above` ignored (missing in too many training rows)."""
        return [f.name for f in self._state.schema.features if f.ignored]

    @property
    def feature_importances_(self) -> NDArray[np.float64]:
        """Weighted impurity decrease per feature, normalised to sum to 1 (all zeros for a
        single leaf): Σ over the feature's splits of w(t)·I(t) - Σ_children w(c)·I(c)."""
        nodes = self.tree_.nodes()
        importances = np.zeros(self.n_features_in_)
        weighted = nodes["weight"] * nodes["impurity"]
        for node in np.flatnonzero(nodes["n_children"] > 0):
            first = nodes["first_child"][node]
            children = slice(first, first + nodes["n_children"][node])
            importances[nodes["feature"][node]] += weighted[node] - weighted[children].sum()
        total = importances.sum()
        return importances / total if total > 0 else importances

    @property
    def _state(self) -> FittedTree:
        try:
            return self._fitted
        except AttributeError:
            # Also scikit-learn's NotFittedError when it is loaded: its checks catch that.
            raise sklearn_flavoured(NotFittedError)(
                f"this {type(self).__name__} is not fitted yet; call fit first"
            ) from None

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "_fitted")

    def __sklearn_tags__(self) -> Any:
        """What scikit-learn's utilities and checks may expect of us (NaN and categories
        accepted, one target). Only scikit-learn calls it, so it is imported here; the
        classifier and regressor base classes add their own tags over these."""
        from sklearn.utils import ClassifierTags, InputTags, RegressorTags, Tags, TargetTags

        classifier = self._estimator_type == "classifier"
        return Tags(
            estimator_type=self._estimator_type,
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags() if classifier else None,
            regressor_tags=None if classifier else RegressorTags(),
            # Strings (categories) come in DataFrames; a NumPy X must be numeric.
            input_tags=InputTags(allow_nan=True, categorical=True, string=False),
        )

    @property
    def tree_(self) -> TreeView:
        """The fitted tree: the core tree's API plus scikit-learn's `tree_` arrays."""
        return self._state.view

    @property
    def n_features_in_(self) -> int:
        return len(self._state.schema.features)

    @property
    def splitter_(self) -> str:
        """The threshold search the fit used: "exact", "hist" or "random" (what
        `splitter="best"` / `"auto"` chose: histograms from 200,000 training rows on)."""
        return self._state.tree.splitter

    @property
    def max_features_(self) -> int:
        """The number of features searched per node that `max_features` stands for
        (scikit-learn's rules: "sqrt" of the features, at least 1, and so on)."""
        return _growth.max_features(self._param("max_features"), self.n_features_in_)

    @property
    def feature_names_in_(self) -> NDArray[np.object_]:
        return np.array(self._state.schema.names, dtype=object)

    @property
    def n_outputs_(self) -> int:
        """Targets predicted at once: 1 (scikit-learn's attribute)."""
        return 1

    def get_depth(self) -> int:
        """The depth of the tree (scikit-learn's name for `depth_`)."""
        return self.depth_

    def get_n_leaves(self) -> int:
        """The number of leaves (scikit-learn's name for `n_leaves_`)."""
        return self.n_leaves_

    @property
    def n_nodes_(self) -> int:
        return self.tree_.n_nodes

    @property
    def n_leaves_(self) -> int:
        return self.tree_.n_leaves

    @property
    def depth_(self) -> int:
        return self.tree_.depth

    def _columns(self, X: Any) -> list[_core.Column]:
        return transform(X, self._state.schema)

    def _rows(self, X: Any) -> Rows:
        """X as the core reads it: a contiguous float NumPy matrix as it is (no copy) when it
        needs no encoding, else its encoded columns."""
        if type(X) is list:  # nested lists: the array the encoding would make of them
            X = np.asarray(X)
        if is_dense(X, self._state):
            return X
        return self._columns(X)

    def _predicted(self, method: str, rows: Rows) -> Any:
        """The core tree's `method` (predict_class, predict_proba, ...) on `rows` (from
        `_rows`), on `n_jobs` threads."""
        run = getattr(self._state.tree, method)
        n_jobs = None if self.n_jobs is None else _threads(self._param("n_jobs"))
        # `verbose` read before anything else: a one-row call pays one attribute test.
        progress = self._reporter("predict", n_rows_of(rows)) if self.verbose else None
        try:
            return run(rows, n_jobs, progress)
        except _core.QuercusError:
            if isinstance(rows, list):
                raise
            # An infinite value in the matrix: encoding it names the column.
            return run(self._columns(rows), n_jobs, progress)
        finally:
            if progress is not None:
                progress.close()

    def _reporter(self, what: str, total: int | None = None) -> Progress | None:
        """With `verbose`, a progress line on stderr for work longer than a second (close it
        when the work ends); None without."""
        verbose = self._param("verbose")
        return Progress(what, total) if verbose else None

    def apply(self, X: Any) -> NDArray[np.int64]:
        """Id of the leaf each row reaches (the one holding most of its weight)."""
        return self._predicted("apply", self._rows(X))

    def decision_path(self, X: Any) -> csr_matrix:
        """The nodes each row passes through, as scikit-learn returns them: a SciPy CSR
        indicator matrix (n_rows x n_nodes). Rows are routed as prediction routes them, so a
        row that a missing value spreads over several branches marks every node it reaches
        with a positive share."""
        return self.tree_.decision_path(self._columns(X))

    def _labels(self) -> list[Any] | None:
        classes = self._state.classes
        return None if classes is None else classes.tolist()

    def export_text(
        self,
        *,
        decimals: int = 4,
        show_weights: bool = True,
        show_missing: bool | None = None,
        max_depth: int | None = None,
        max_categories: int | None = MAX_CATEGORIES,
    ) -> str:
        """The tree as indented text, one line per node, as the textbooks draw it.

        `max_depth`: levels shown (None: all); a split at the last level shown ends its line
        with the number of leaves below it.

        A category subset is worded by its shorter side (`tailnum not in {...}` when that
        list is shorter), at most `max_categories` of it listed and the rest counted
        (`{N10156, N103US, … 1,809 more}`; None lists all). Machine-readable exports
        (`to_sql`, `to_polars_expr`, `rules()` as data) always hold every category.

        `show_missing`: where each split sends a missing value, after its first branch's line
        (`[missing → left]`, `[? → 7/15 · 5/15 · 3/15]` for C4.5's fractions,
        `[surrogate: density <= 0.4000; missing → left]`); None (default) shows it when some
        split met missing values in training."""
        state = self._state
        return render.export_text(
            state.view.nodes(),
            state.schema.features,
            state.labels,
            decimals=decimals,
            show_weights=show_weights,
            show_missing=show_missing,
            max_depth=check("max_depth", max_depth, _LEVELS),
            max_categories=check("max_categories", max_categories, _LISTED),
        )

    def rules(self) -> RuleSet:
        """The tree as rules, one per leaf (the tests on its path, merged per feature), with
        the root's prediction as default: to read, post-prune, or run as Polars or SQL."""
        state = self._state
        return RuleSet.from_tree(state.tree.nodes(), state.schema, state.labels)

    def export_rules(
        self, *, decimals: int = 4, max_categories: int | None = MAX_CATEGORIES
    ) -> str:
        """`rules()` as text: one `IF ... THEN ...` line per leaf and an `ELSE` default;
        category lists shortened as `export_text` shortens them."""
        return self.rules().to_text(decimals, check("max_categories", max_categories, _LISTED))

    def predict_expr(self, *, proba: bool = False) -> pl.Expr:
        """A Polars expression running this model's predictor on each batch of a query,
        named after the target: `df.with_columns(model.predict_expr())`, eager, lazy or
        `collect(engine="streaming")`. `proba=True` (classifiers): a struct of class
        probabilities. See `quercus.native.predict_expr`."""
        return native.predict_expr(self, proba=proba)

    def to_polars_expr(self) -> pl.Expr:
        """The tree as a pure Polars `when/then` expression named after the target (quercus
        is not needed to run it). Equal to `predict(X, output="polars")` on rows with no
        missing tested value; a missing value (null, NaN, an unseen category) goes down the
        branch with the largest training share, since C4.5's fractions cannot be expressed
        (see `quercus.native`)."""
        state = self._state
        dtype = native.prediction_dtype(state.schema, state.classes)
        return native.tree_expr(state.tree.nodes(), state.schema, state.labels, dtype)

    def to_sql(self, table: str | None = None) -> str:
        """The tree as an SQL `CASE` expression (nested, one per internal node), with
        `to_polars_expr`'s treatment of missing values (NULL); with `table`, a whole
        `SELECT CASE ... END AS "target" FROM "table"`. Columns as for `RuleSet.to_sql`."""
        state = self._state
        return native.tree_sql(state.tree.nodes(), state.schema, state.labels, table)

    def to_onnx(self, *, dtype: Any = np.float64, ml_opset: int = 5) -> Any:
        """The model as an ONNX `ModelProto` (`ai.onnx.ml` TreeEnsemble; `ml_opset=3`: the
        older TreeEnsembleRegressor), for onnxruntime: input `X` as
        `quercus.serving.onnx_input(model, X)` encodes it; see `quercus.serving.to_onnx`.
        Needs the `onnx` package."""
        return serving.to_onnx(self, dtype=dtype, ml_opset=ml_opset)

    def to_treelite(self) -> Any:
        """The model as a `treelite.Model` (for TL2cgen's C code); see
        `quercus.serving.to_treelite`. Needs the `treelite` package."""
        return serving.to_treelite(self)

    def to_dot(
        self, *, decimals: int = 3, max_categories: int | None = pictures.PICTURE_CATEGORIES
    ) -> str:
        """The tree as Graphviz DOT text (boxes coloured by majority class), for `dot`;
        category lists shortened to `max_categories` (None: all), each edge's whole test as
        its tooltip."""
        state = self._state
        return pictures.to_dot(
            state.tree.nodes(),
            state.schema.features,
            state.labels,
            target=state.schema.target,
            decimals=decimals,
            max_categories=check("max_categories", max_categories, _LISTED),
        )

    def to_svg(
        self,
        *,
        decimals: int = 3,
        max_depth: int | None = None,
        width: float | None = pictures.DEFAULT_WIDTH,
        max_categories: int | None = pictures.PICTURE_CATEGORIES,
    ) -> str:
        """The tree as a standalone SVG picture, laid out by quercus (no Graphviz needed).

        It fits `width` px (None: its own size): a wider drawing is scaled down; if its text
        would then be too small to read, fewer levels are drawn, with a caption saying so and
        each cut node stating how many nodes lie below it. `max_depth` draws at most that
        many levels below the root. Category lists show at most `max_categories` (None: all)
        of their shorter side; the whole list is the edge's tooltip and a numbered note under
        the tree."""
        state = self._state
        return pictures.to_svg(
            state.tree.nodes(),
            state.schema.features,
            state.labels,
            target=state.schema.target,
            decimals=decimals,
            max_depth=check("max_depth", max_depth, _LEVELS),
            width=check("width", width, (Real(100.0), None)),
            max_categories=check("max_categories", max_categories, _LISTED),
        )

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of the model: its SVG once fitted (`to_svg`'s rules: it fits a
        notebook's width, cutting levels a large tree could not show legibly). None (Jupyter
        then shows the text repr) before fit."""
        if not self.__sklearn_is_fitted__():
            return None
        return self.to_svg(width=_REPR_SVG_WIDTH)

    def _repr_html_(self) -> str:
        """HTML display (documentation galleries, HTML notebooks): the fitted tree's
        picture, as `_repr_svg_`; before fit, the escaped repr."""
        if not self.__sklearn_is_fitted__():
            return f"<pre>{html.escape(repr(self))}</pre>"
        return f'<div class="quercus-tree">{self.to_svg(width=_REPR_SVG_WIDTH)}</div>'

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        """Jupyter's display: the tree's picture once fitted (scikit-learn's estimator
        diagram, where it offers one, before)."""
        if not self.__sklearn_is_fitted__():
            theirs = getattr(super(), "_repr_mimebundle_", None)
            return theirs(**kwargs) if theirs is not None else {"text/plain": repr(self)}
        return {"text/plain": repr(self), "image/svg+xml": self.to_svg(width=_REPR_SVG_WIDTH)}

    def node_scores(self, node_id: int) -> pl.DataFrame:
        """The candidate score of every feature when `node_id` was grown (as `split_scores`).
        Exact-search trees only: a histogram tree (`splitter_ == "hist"`) keeps no scores."""
        if self.splitter_ == "hist":
            raise ValueError(
                "node_scores are recorded by the exact search only; this tree was grown with "
                'histograms (splitter_ == "hist"): refit with splitter="exact" to see them'
            )
        return _score_frame(self._state.schema.names, self.tree_.node_scores(node_id))

    # The model format (docs/model-format.md); the bytes are made and read in `model_io`.

    def save(self, path: str | PathLike[str]) -> None:
        """Write the fitted model to `path` in the model format; `quercus.load` reads it."""
        model_io.save(self.to_bytes(), path)

    def to_bytes(self) -> bytes:
        """The fitted model in the model format; `from_bytes` reads it."""
        name = type(self).__name__
        return model_io.to_bytes(self._state, name, self._estimator_type, self.get_params())

    @classmethod
    def from_bytes(cls: type[_Estimator], data: bytes) -> _Estimator:
        """The model in `data` (from `to_bytes`), which must be one of this class's kind."""
        stored = model_io.read(data)
        if stored.estimator_type != cls._estimator_type:
            raise _core.QuercusError(
                f"cannot load the model as a {cls.__name__}: it holds a {stored.estimator} "
                f"({stored.estimator_type})"
            )
        return cls._restored(stored)

    @classmethod
    def _restored(cls: type[_Estimator], stored: model_io.Stored) -> _Estimator:
        """An estimator of this class holding `stored`. Parameters of a newer quercus that
        this one does not know are dropped: prediction needs none of them."""
        model = cls()
        known = {p.name for p in cls._parameters()}
        model.set_params(**{k: v for k, v in stored.params.items() if k in known})
        model._fitted = model._checked_state(stored.state)
        return model

    def _checked_state(self, state: FittedTree) -> FittedTree:
        """A loaded state, checked against this estimator's parameters."""
        return state

    def __getstate__(self) -> dict[str, Any]:
        """Pickle stores the parameters and, for a fitted model, its model-format bytes in
        place of the Rust tree."""
        state = {k: v for k, v in self.__dict__.items() if k != "_fitted"}
        if "_fitted" in self.__dict__:
            state["_quercus_model"] = self.to_bytes()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        data = state.pop("_quercus_model", None)
        self.__dict__.update(state)
        if data is not None:
            self._fitted = self._checked_state(model_io.read(data).state)

    def __copy__(self: _Estimator) -> _Estimator:
        """A shallow copy sharing the (immutable) fitted tree, without the pickling route."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin


class DecisionTreeClassifier(ClassifierBase, _BaseTree):
    """A classification tree: ID3, C4.5 or CART by `algorithm`, any criterion by name."""

    _estimator_type = "classifier"
    _default_criteria: ClassVar[dict[str, str]] = {
        "id3": "entropy",
        "c4.5": "gain_ratio",
        "cart": "gini",
        "optimal": "misclassification",
    }
    _constraints: ClassVar[dict[str, Constraints]] = {
        **_CONSTRAINTS,
        "criterion": (Options(_CLASS_CRITERIA), None),
        "cost_matrix": (ArrayLike(), None),  # its shape is checked against the classes
        "class_weight": (Options(("balanced",)), Dict(), None),
    }

    def __init__(self, *, cost_matrix: Any = None, class_weight: Any = None, **params: Any) -> None:
        super().__init__(**params)
        self.cost_matrix = cost_matrix
        self.class_weight = class_weight

    # scikit-learn (and get_params) read the parameters from the signature: show them all.
    __init__.__signature__ = _extended_signature(  # type: ignore[attr-defined]
        _BaseTree.__init__, ("cost_matrix", "class_weight")
    )

    def _reweighted(self, data: TrainingData) -> TrainingData:
        """`class_weight` folded into the row weights: a dict label -> weight, or "balanced"
        (n_rows / (n_classes * class count)) as in scikit-learn."""
        if self.class_weight is None:
            return data
        assert data.classes is not None  # a classifier's data
        counts = np.bincount(data.y, minlength=data.n_classes)
        if isinstance(self.class_weight, str):
            per_class = len(data.y) / (data.n_classes * np.maximum(counts, 1))
        else:
            labels = data.classes.tolist()
            unknown = [k for k in self.class_weight if k not in labels]
            if unknown:
                raise ValueError(f"class_weight names classes not in y: {unknown!r}")
            per_class = np.array([float(self.class_weight.get(c, 1.0)) for c in labels])
            if not np.all(np.isfinite(per_class) & (per_class > 0)):
                raise ValueError("class_weight values must be finite and positive")
        return replace(data, sample_weight=data.sample_weight * per_class[data.y])

    def _checked_state(self, state: FittedTree) -> FittedTree:
        """A loaded state whose cost matrix fits its classes."""
        if self.cost_matrix is not None:
            try:
                self._cost_list(state.tree.n_classes)
            except (TypeError, ValueError) as error:
                raise _core.QuercusError(
                    f"cannot load the model: its metadata is invalid: its cost_matrix is "
                    f"invalid: {error}"
                ) from None
        return state

    def _cost_list(self, n_classes: int) -> list[float] | None:
        if self.cost_matrix is None:
            return None
        costs = np.asarray(self.cost_matrix, dtype=np.float64)
        if costs.shape != (n_classes, n_classes):
            raise ValueError(
                f"cost_matrix must be {n_classes} x {n_classes} (true class rows, predicted "
                f"class columns, in classes_ order), got shape {costs.shape}"
            )
        if not np.all(np.isfinite(costs) & (costs >= 0)):
            raise ValueError("cost_matrix entries must be finite and >= 0")
        return costs.ravel().tolist()

    @property
    def classes_(self) -> NDArray[Any]:
        classes = self._state.classes
        assert classes is not None  # always set by a classifier's fit
        return classes

    @property
    def n_classes_(self) -> int:
        return len(self.classes_)

    def predict(self, X: Any, *, output: str = "numpy") -> Any:
        """The most probable class label of each row (missing values: as `missing=` says, C4.5's
        fractions by default); with a cost matrix, the class of least expected cost.

        X: a NumPy array, or a Polars (or pandas) DataFrame or a LazyFrame (only the fitted
        features are collected). `output="polars"`: a Series named after the target, with
        the target's dtype at fit (an Enum target gives that Enum)."""
        output = native.check_output(output)
        codes = self._predict_codes(self._rows(X))
        return native.class_labels(codes, self.classes_, self._state.schema, output)

    def _predict_codes(self, rows: Rows) -> NDArray[Any]:
        """Class codes: the core's uint32 ones (they index `classes_` as they are), or the
        classes of least expected cost."""
        if self.cost_matrix is None:
            return self._predicted("predict_class", rows)
        costs = np.asarray(self.cost_matrix, dtype=np.float64)
        return np.argmin(self._predicted("predict_proba", rows) @ costs, axis=1)

    def predict_proba(self, X: Any, *, output: str = "numpy") -> Any:
        """Class probabilities, columns in `classes_` order; `output="polars"`: a DataFrame
        with one Float64 column per class, named after its label."""
        output = native.check_output(output)
        proba = self._predicted("predict_proba", self._rows(X))
        return native.probabilities(proba, self.classes_, output)

    def predict_log_proba(self, X: Any) -> NDArray[np.float64]:
        """The natural logarithm of `predict_proba` (-inf where a class has no weight)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy, weighted by `sample_weight`."""
        rows = self._rows(X)
        n_rows = n_rows_of(rows)
        correct = self.classes_[self._predict_codes(rows)] == target_values(y, n_rows)
        return float(np.average(correct, weights=sample_weights(sample_weight, n_rows)))


class DecisionTreeRegressor(RegressorBase, _BaseTree):
    """A regression tree: squared error by default, or scikit-learn's friedman_mse,
    absolute_error (median leaves) and poisson; `algorithm` only picks the categorical
    split."""

    _estimator_type = "regressor"
    _default_criteria: ClassVar[dict[str, str]] = dict.fromkeys(_SPLITS, "squared_error")
    _constraints: ClassVar[dict[str, Constraints]] = {
        **_CONSTRAINTS,
        "criterion": (Options(_REGRESSION_CRITERIA), None),
    }

    def predict(self, X: Any, *, output: str = "numpy") -> Any:
        """The value of the leaves each row reaches (their weighted mean target; the weighted
        median with `criterion="absolute_error"`); `output="polars"`: a
        Float64 Series named after the target. X as for the classifier's `predict`."""
        output = native.check_output(output)
        predictions = self._predicted("predict_value", self._rows(X))
        return native.values(predictions, self._state.schema, output)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Coefficient of determination R^2, weighted by `sample_weight`."""
        rows = self._rows(X)
        n_rows = n_rows_of(rows)
        truth = regression_targets(y, n_rows)
        weights = sample_weights(sample_weight, n_rows)
        residual = np.sum(weights * (truth - self._predicted("predict_value", rows)) ** 2)
        total = np.sum(weights * (truth - np.average(truth, weights=weights)) ** 2)
        if total == 0:  # constant y: perfect or not at all, as scikit-learn reports it
            return 1.0 if residual == 0 else 0.0
        return float(1 - residual / total)


def split_scores(
    X: Any,
    y: Any,
    *,
    criterion: str,
    sample_weight: Any = None,
    categorical_split: str = "multiway",
) -> pl.DataFrame:
    """Each feature's best split of the whole data under `criterion`, one row per feature.

    The textbooks' Gain / Gain_ratio / Gini_index tables; the regression criteria
    ("squared_error", "friedman_mse", "absolute_error", "poisson") take a regression y.
    """
    criterion = check("criterion", criterion, (Options(_CRITERIA),))
    categorical_split = check(
        "categorical_split", categorical_split, (Options(("multiway", "binary")),)
    )
    data = training_data(
        X,
        y,
        target=None,
        sample_weight=sample_weight,
        classification=criterion not in _REGRESSION_CRITERIA,
    )
    scores = _core.split_scores(
        data.columns,
        data.y,
        data.n_classes,
        data.sample_weight,
        criterion=criterion,
        categorical_split=categorical_split,
    )
    return _score_frame(data.schema.names, scores)


def _score_frame(names: list[str], scores: dict[str, NDArray[np.float64]]) -> pl.DataFrame:
    return pl.DataFrame(
        {"feature": names, **{column: scores[column] for column in _SCORE_COLUMNS}},
        schema={"feature": pl.String, **dict.fromkeys(_SCORE_COLUMNS, pl.Float64)},
    )


def _ordinals(value: Any) -> Ordinals:
    """`ordinal_features`: None, a list of column names (each column's own category order:
    an Enum's, or sorted), or a dict of column name to its categories in order (or None)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = ((name, None) for name in value)
    else:
        raise TypeError(
            "ordinal_features must be None, a list of column names, or a dict of column name "
            f"to its categories in order; got {type(value).__name__}"
        )
    ordinals: Ordinals = {}
    for name, order in items:
        if not isinstance(name, str):
            raise TypeError(f"ordinal_features names columns by string; got {name!r}")
        if order is not None and (
            isinstance(order, str) or not isinstance(order, (list, tuple, pl.Series))
        ):
            raise TypeError(
                f"ordinal_features[{name!r}] must list the categories in order; got {order!r}"
            )
        ordinals[name] = None if order is None else tuple(str(c) for c in order)
    return ordinals


def _threads(n_jobs: int | None) -> int | None:
    """A checked `n_jobs` as the core counts threads: None for every core, else a count
    (-2 is all cores but one, and so on)."""
    if n_jobs is None or n_jobs > 0:
        return n_jobs
    cores = os.cpu_count() or 1
    return None if n_jobs == -1 else max(1, cores + 1 + n_jobs)


# Export options: how many levels to show, how many categories to list (None: all).
_LEVELS: Constraints = (Integer(1), None)
_LISTED: Constraints = (Integer(1), None)


def _with_defaults(signature: inspect.Signature, **defaults: Any) -> inspect.Signature:
    """`signature` with the defaults of the parameters named in `defaults` replaced."""
    return signature.replace(
        parameters=[
            p.replace(default=defaults[p.name]) if p.name in defaults else p
            for p in signature.parameters.values()
        ]
    )


class ExtraTreeClassifier(DecisionTreeClassifier):
    """An extremely randomised classification tree (Geurts et al. 2006), as scikit-learn's
    ExtraTreeClassifier: one random test per feature among `max_features` ("sqrt") drawn per
    node, the best of those kept. A `DecisionTreeClassifier` with those two defaults; give
    `random_state` for repeatable trees."""

    def __init__(
        self, *, splitter: str = "random", max_features: Any = "sqrt", **params: Any
    ) -> None:
        super().__init__(splitter=splitter, max_features=max_features, **params)

    __init__.__signature__ = _with_defaults(  # type: ignore[attr-defined]
        inspect.signature(DecisionTreeClassifier.__init__),
        splitter="random",
        max_features="sqrt",
    )


class ExtraTreeRegressor(DecisionTreeRegressor):
    """An extremely randomised regression tree, as scikit-learn's ExtraTreeRegressor: one
    random test per feature, every feature searched (`max_features=1.0`). A
    `DecisionTreeRegressor` with those two defaults."""

    def __init__(self, *, splitter: str = "random", max_features: Any = 1.0, **params: Any) -> None:
        super().__init__(splitter=splitter, max_features=max_features, **params)

    __init__.__signature__ = _with_defaults(  # type: ignore[attr-defined]
        inspect.signature(DecisionTreeRegressor.__init__), splitter="random", max_features=1.0
    )


# The estimators by the class name a model file records.
_ESTIMATORS: dict[str, type[_BaseTree]] = {
    cls.__name__: cls
    for cls in (
        DecisionTreeClassifier,
        DecisionTreeRegressor,
        ExtraTreeClassifier,
        ExtraTreeRegressor,
    )
}


def load(path: str | PathLike[str]) -> _BaseTree:
    """The estimator saved at `path` (by `model.save`)."""
    with open(path, "rb") as file:
        return from_bytes(file.read())


def from_bytes(data: bytes | bytearray | memoryview) -> _BaseTree:
    """The estimator in `data` (from `model.to_bytes()`), of the class that wrote it (a
    class this quercus does not know: the classifier or regressor of its kind)."""
    stored = model_io.read(data)
    cls = _ESTIMATORS.get(stored.estimator)
    if cls is None or cls._estimator_type != stored.estimator_type:
        cls = (
            DecisionTreeClassifier
            if stored.estimator_type == "classifier"
            else DecisionTreeRegressor
        )
    return cls._restored(stored)
