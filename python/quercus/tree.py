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
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, cast

import numpy as np
import polars as pl
from numpy.typing import NDArray

from . import _core
from .estimators import docstrings as _docstrings
from .estimators import growth as _growth
from .estimators.base import ClassifierBase, DataConversionWarning, EstimatorBase, RegressorBase
from .estimators.constraints import (
    ArrayLike,
    Boolean,
    Constraints,
    Dict,
    Dicts,
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
from .estimators.fitted import FittedTree, is_dense
from .estimators.progress import Progress
from .estimators.sklearn_view import TreeView, path_matrix, sklearn_flavoured
from .explain import pictures, spread
from .explain import text as render
from .explain.rules import MAX_CATEGORIES, RuleSet
from .export import model_io, native, serving
from .inputs import missing as _missing
from .inputs.validation import (
    SMALL_FRAME,
    Classes,
    LabelledData,
    Schema,
    TrainingData,
    as_polars,
    class_counts,
    frame_rows,
    is_pandas_frame,
    is_sparse,
    labelled_data,
    n_rows_of,
    ordinals,
    output_columns,
    pandas_rows,
    regression_targets,
    sample_weights,
    small_frame,
    sparse_rows,
    target_values,
    training_data,
    transform,
)
from .pruning import CostComplexityCV

if TYPE_CHECKING:
    from os import PathLike
    from typing import TypeAlias

    from scipy.sparse import csr_matrix

    # What the core predicts from: a float matrix read in place, encoded columns, or the CSR
    # arrays of a sparse X.
    Rows: TypeAlias = (
        NDArray[np.floating]
        | list[_core.Column]
        | _core.CodedRows
        | _core.CsrRows
        | _core.FrameRows
    )

_Estimator = TypeVar("_Estimator", bound="_BaseTree")

# algorithm presets; "optimal" is the branch and bound of rust/core/src/optimal (subsets)
_SPLITS = {"id3": "multiway", "c4.5": "multiway", "cart": "binary", "optimal": "binary"}
# C4.5 release 8 / Weka J48 defaults (Quinlan 1993, 1996); ID3 and CART add no such rules.
_C45 = {
    "min_objects": 2.0,
    "numeric_gain_correction": True,
    "pruning": "pessimistic",
    "conventions": "j48",
    "collapse": True,
}
_NO_C45 = {
    "min_objects": 0.0,
    "numeric_gain_correction": False,
    "pruning": "none",
    "conventions": "texts",
    "collapse": False,
}
# Missing values: C4.5's fractions for the texts' algorithms; CART follows scikit-learn
# (>= 1.3), whose users expect a learned direction per split.
# The optimal search sends missing values to the side it finds best (learned) too.
_MISSING = {"id3": "fractional", "c4.5": "fractional", "cart": "learned", "optimal": "learned"}
# Presets whose "best" splitter is the exact search at every size (not histograms from 200,000
# rows): a user who asks for ID3 or C4.5 gets their thresholds; splitter="hist" still bins.
_EXACT_PRESETS = ("id3", "c4.5")
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
    "conventions": (Options(("texts", "j48")), None),
    "prepruning": (Options(("none", "validation")), None),
    "pruning": (Options(_PRUNINGS), None),
    "ccp_alpha": (Real(0.0),),
    "ccp_risk": (Options(("impurity",)),),  # the classifier adds "misclassification"
    "ccp_sequence": (Options(("weakest_link", "rpart")),),
    "confidence": (Real(0.0, 0.5, open_low=True),),
    "prune_ties": (Boolean(),),
    "subtree_raising": (Boolean(),),
    "collapse": (Boolean(), None),
    "splits": (Options(("axis", "oblique")),),
    "missing": (Options(_missing.STRATEGIES), None),
    "max_surrogates": (Integer(0, 64),),
    "drop_features_above": (Real(0.0, 1.0), None),
    "splitter": (Options(_SPLITTERS),),
    "max_features": (Integer(1), RealNotInt(0.0, 1.0), Options(("sqrt", "log2")), None),
    "random_state": (Seed(), None),
    "monotonic_cst": (ArrayLike(), None),  # -1 / 0 / 1 per feature, checked at fit
    "max_bins": (Integer(2, 255),),  # bin codes are bytes, one kept for missing values
    # LightGBM's regularisers of nominal subset splits (the core's `CategoryLimits`); off by
    # default, which is CART's exact subset search.
    "max_cat_threshold": (Integer(1), None),
    "cat_smooth": (Real(0.0),),
    "cat_l2": (Real(0.0),),
    "min_data_per_group": (Integer(1),),
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
    "conventions",
    "pruning",
    "collapse",
    "missing",
)


def _extended_signature(base: Any, extra: dict[str, Any]) -> inspect.Signature:
    """`base`'s signature plus keyword-only parameters `extra` (name -> default)."""
    signature = inspect.signature(base)
    kind = inspect.Parameter.KEYWORD_ONLY
    added = [inspect.Parameter(n, kind, default=d) for n, d in extra.items()]
    return signature.replace(parameters=[*signature.parameters.values(), *added])


def _post_prune(
    state: FittedTree,
    pruning: _Pruning,
    held_out: LabelledData | None,
    training: LabelledData | None,
    costs: list[float] | None = None,
    n_jobs: int | None = None,
) -> FittedTree:
    """`state` with its tree collapsed if `pruning.collapse` (J48 does so before pruning),
    then pruned by `pruning.method` (unchanged for "none"); records the reduced-error steps
    as the state's trace, and a one-output regression tree's node quantiles (for the
    pictures' strips) from `training`, or else those of `state` its nodes keep. `costs`: the
    classifier's cost matrix, which a misclassification risk charges."""
    tree, trace = state.tree, None
    if pruning.collapse:
        tree = _core.prune_collapse(tree)
    if pruning.method == "reduced_error":
        assert held_out is not None  # checked by the callers
        tree, steps = _core.prune_reduced_error(tree, *held_out.as_core(), pruning.prune_ties)
        trace = pl.DataFrame(steps)
    elif pruning.method == "pessimistic":
        raising = training.as_core() if pruning.subtree_raising and training else None
        tree = _core.prune_pessimistic(tree, pruning.confidence, raising)
    elif pruning.method == "cost_complexity":
        tree = _core.prune_cost_complexity(
            tree, pruning.ccp_alpha, pruning.ccp_risk, costs, pruning.ccp_sequence, pruning.floor
        )
    quantiles = None
    if state.classes is None and state.n_outputs == 1 and training is not None:
        quantiles = spread.recorded(tree, training, n_jobs)
    elif state.quantiles is not None:
        quantiles = spread.carried(state.tree, state.quantiles, tree)
    return state.replace_tree(tree, trace, quantiles)


_CONSTRAINED_PESSIMISTIC = (
    "monotonic_cst: a constrained tree holds class probabilities, not the class weights "
    "C4.5's error-based (pessimistic) pruning counts errors in: choose pruning='none', "
    "'cost_complexity' or 'reduced_error'"
)


class NotFittedError(ValueError, AttributeError):
    """An estimator was used before ``fit``.

    A ValueError and an AttributeError, as scikit-learn's; when scikit-learn is installed
    the error raised is also a ``sklearn.exceptions.NotFittedError``, so its checks catch it.

    Examples
    --------
    >>> import quercus
    >>> try:
    ...     quercus.DecisionTreeClassifier().predict([[0.0]])
    ... except quercus.NotFittedError as error:
    ...     print(error)
    this DecisionTreeClassifier is not fitted yet; call fit first
    """


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
    conventions: str
    cost_matrix: list[float] | None
    altered_priors: bool
    class_weights: list[float] | None  # per-class factors already in the row weights
    oblique: bool
    missing: str  # the core's strategy (see `_missing.core_strategy`)
    max_surrogates: int
    splitter: str
    max_bins: int
    max_cat_threshold: int | None
    cat_smooth: float
    cat_l2: float
    min_data_per_group: int
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
    ccp_risk: str
    ccp_sequence: str
    floor: float  # rpart's sequence: the alpha the tree was grown at (its cp × R(root))
    confidence: float
    prune_ties: bool
    subtree_raising: bool
    collapse: bool


@dataclass(frozen=True)
class PruningPath:
    """The minimal cost-complexity pruning path, as scikit-learn returns it.

    Returned by :meth:`DecisionTreeClassifier.cost_complexity_pruning_path`. Read by
    attribute or, like scikit-learn's Bunch, by key (``path["ccp_alphas"]``).

    Parameters
    ----------
    ccp_alphas : numpy.ndarray
        The effective alphas, increasing from 0: pruning at ``ccp_alphas[i]`` gives the
        i-th subtree of the sequence.
    impurities : numpy.ndarray
        The total leaf impurity (or misclassification cost) of each of those subtrees.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon2", return_X_y=True)
    >>> path = quercus.DecisionTreeClassifier().cost_complexity_pruning_path(X, y)
    >>> path["ccp_alphas"].round(3).tolist() == path.ccp_alphas.round(3).tolist()
    True
    >>> path.keys()
    ('ccp_alphas', 'impurities')
    """

    ccp_alphas: NDArray[np.float64]
    impurities: NDArray[np.float64]

    def keys(self) -> tuple[str, ...]:
        """The two fields' names, as a mapping's keys.

        Returns
        -------
        tuple of str
            ``("ccp_alphas", "impurities")``.

        Examples
        --------
        >>> from quercus.tree import PruningPath
        >>> PruningPath(ccp_alphas=[0.0], impurities=[0.5]).keys()
        ('ccp_alphas', 'impurities')
        """
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
        conventions: str | None = None,
        prepruning: str | None = None,
        pruning: str | None = None,
        ccp_alpha: float = 0.0,
        ccp_risk: str = "impurity",
        ccp_sequence: str = "weakest_link",
        confidence: float = 0.25,
        prune_ties: bool = True,
        subtree_raising: bool = True,
        collapse: bool | None = None,
        splits: str = "axis",
        missing: str | None = None,
        max_surrogates: int = 5,
        drop_features_above: float | None = None,
        splitter: str = "best",
        max_features: int | float | str | None = None,
        random_state: Any = None,
        monotonic_cst: Any = None,
        max_bins: int = 255,
        max_cat_threshold: int | None = None,
        cat_smooth: float = 0.0,
        cat_l2: float = 0.0,
        min_data_per_group: int = 1,
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
        self.conventions = conventions
        self.prepruning = prepruning
        self.pruning = pruning
        self.ccp_alpha = ccp_alpha
        self.ccp_risk = ccp_risk
        self.ccp_sequence = ccp_sequence
        self.confidence = confidence
        self.prune_ties = prune_ties
        self.subtree_raising = subtree_raising
        self.collapse = collapse
        self.splits = splits
        self.missing = missing
        self.max_surrogates = max_surrogates
        self.drop_features_above = drop_features_above
        self.splitter = splitter
        self.max_features = max_features
        self.random_state = random_state
        self.monotonic_cst = monotonic_cst
        self.max_bins = max_bins
        self.max_cat_threshold = max_cat_threshold
        self.cat_smooth = cat_smooth
        self.cat_l2 = cat_l2
        self.min_data_per_group = min_data_per_group
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
        """The constructor's parameters, as given (scikit-learn's protocol).

        Parameters
        ----------
        deep : bool, default=True
            Accepted for scikit-learn; a tree holds no sub-estimators to recurse into.

        Returns
        -------
        dict
            Parameter name -> value; None where the algorithm's preset decides.

        Examples
        --------
        >>> import quercus
        >>> params = quercus.DecisionTreeClassifier(algorithm="c4.5").get_params()
        >>> params["algorithm"], params["criterion"], params["max_depth"]
        ('c4.5', None, None)
        """
        return {p.name: self._given(p.name) for p in self._parameters()}

    def set_params(self: _Estimator, **params: Any) -> _Estimator:
        """Set parameters by name (scikit-learn's protocol); they are checked at ``fit``.

        Parameters
        ----------
        **params : dict
            Parameter name -> new value.

        Returns
        -------
        self : object
            This estimator.

        Raises
        ------
        ValueError
            A name that is not one of the estimator's parameters.

        Examples
        --------
        >>> import quercus
        >>> quercus.DecisionTreeClassifier().set_params(algorithm="id3", max_depth=3)
        DecisionTreeClassifier(algorithm='id3', max_depth=3)
        """
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
        # The texts' algorithms are defined by their exact midpoints (and J48's thresholds):
        # they search exactly at every size; only an explicit "hist" bins.
        if algorithm in _EXACT_PRESETS and checked["splitter"] in ("best", "auto"):
            checked["splitter"] = "exact"
        return checked

    def _validated_params(self, checked: dict[str, Any], data: TrainingData) -> _Params:
        """The growth parameters as the core reads them, resolved against the training data
        as scikit-learn resolves them (shares of rows and features, the seed)."""
        return self._params_for(checked, len(data.y), len(data.columns), data.n_classes)

    def _params_for(
        self, checked: dict[str, Any], n_rows: int, n_features: int, n_classes: int | list[int]
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
            conventions=checked["conventions"],
            cost_matrix=self._cost_list(n_classes),
            altered_priors=bool(checked.get("altered_priors", False)),
            class_weights=None,  # set by `_grow` from `_class_factors`
            oblique=checked["splits"] == "oblique",
            missing=_missing.core_strategy(checked["missing"]),
            max_surrogates=checked["max_surrogates"],
            splitter=checked["splitter"],
            max_bins=checked["max_bins"],
            max_cat_threshold=checked["max_cat_threshold"],
            cat_smooth=checked["cat_smooth"],
            cat_l2=checked["cat_l2"],
            min_data_per_group=checked["min_data_per_group"],
            n_jobs=_threads(checked["n_jobs"]),
            max_features=_growth.max_features(checked["max_features"], n_features),
            random_state=_growth.seed(checked["random_state"]),
            monotonic_cst=_growth.monotonic_cst(checked["monotonic_cst"], n_features, n_classes),
            max_time=checked["max_time"],
        )

    def _cost_list(self, n_classes: int | list[int]) -> list[float] | None:
        """The classifier's cost matrix, row-major; the regressor has none."""
        return None

    def _class_factors(self, data: TrainingData) -> NDArray[np.float64] | None:
        """The classifier's per-class weight factors (class_weight, priors); None: none."""
        return None

    def _reweighted(self, data: TrainingData) -> TrainingData:
        """A multi-output y's data with the classifier's class weights folded in."""
        return data

    @staticmethod
    def _validated_pruning(checked: dict[str, Any]) -> _Pruning:
        method, alpha = checked["pruning"], checked["ccp_alpha"]
        if method == "none" and alpha > 0:
            method = "cost_complexity"  # as in scikit-learn, a positive ccp_alpha prunes
        return _Pruning(
            method=method,
            ccp_alpha=alpha,
            ccp_risk=checked["ccp_risk"],
            ccp_sequence=checked["ccp_sequence"],
            floor=alpha,
            confidence=checked["confidence"],
            prune_ties=checked["prune_ties"],
            subtree_raising=checked["subtree_raising"],
            collapse=checked["collapse"],
        )

    def fit(
        self: _Estimator,
        X: Any,
        y: Any = None,
        sample_weight: Any = None,
        *,
        target: str | list[str] | None = None,
        validation: tuple[Any, ...] | None = None,
        memory_budget: int | None = None,
        batch_rows: int | None = None,
    ) -> _Estimator:
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
        pruning: _Pruning,
        target: str | list[str] | None,
        sample_weight: Any,
        memory_budget: int | None,
        batch_rows: int | None,
    ) -> FittedTree:
        """The fitted state of a tree grown over a LazyFrame's batches (`quercus._stream`).
        Node quantiles are not recorded: they would need every target again (pictures draw
        mean ± sd, as for a loaded model)."""
        for name in ("class_weight", "priors"):
            if getattr(self, name, None) is not None:
                raise ValueError(
                    f"{name} needs the class counts first; a LazyFrame fit "
                    "takes sample_weight= (a column) instead"
                )
        from .scale import stream as _stream

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

    def _grow(
        self,
        checked: dict[str, Any],
        data: TrainingData,
        factors: NDArray[np.float64] | None,
        pruning: _Pruning,
        validation: tuple[Any, ...] | None = None,
    ) -> FittedTree:
        """The fitted state of a tree grown on `data` with the `checked` parameters and
        per-class weight `factors` (folded into the row weights; the size rules count rows
        without them), then post-pruned."""
        params = self._validated_params(checked, data)
        if any(params.monotonic_cst or ()) and pruning.method == "pessimistic":
            raise ValueError(_CONSTRAINED_PESSIMISTIC)
        if factors is not None:
            data = replace(data, sample_weight=data.sample_weight * factors[data.y])
            params = replace(params, class_weights=factors.tolist())
        data = _missing.prepare(data, checked["missing"], checked["drop_features_above"])
        prepruning = checked["prepruning"] == "validation"
        if (prepruning or pruning.method == "reduced_error") and validation is None:
            raise ValueError(
                "prepruning='validation' and pruning='reduced_error' need "
                "fit(..., validation=(X_val, y_val))"
            )
        if checked["algorithm"] == "optimal":
            tree = self._grow_optimal(data, params, checked, validation)
            return FittedTree(tree, data.schema, data.classes)
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
        costs = self._cost_list(data.n_classes)
        return _post_prune(grown, pruning, held_out, training, costs, params.n_jobs)

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
    def _labelled(rows: tuple[Any, ...], schema: Schema, classes: Classes | None) -> LabelledData:
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
        """A new, pruned copy of the model; this one is left untouched.

        Parameters
        ----------
        method : {"reduced_error", "pessimistic", "cost_complexity"}
            Reduced-error pruning on held-out rows (Zhou §4.3.2; the restaurant notes),
            C4.5's error-based pruning (Quinlan 1993) or minimal cost-complexity pruning
            (Breiman et al. 1984 §3.3).
        X_val, y_val : array-like, optional
            The held-out rows reduced-error pruning measures (required for it).
        sample_weight_val : array-like, optional
            Their weights.
        X, y : array-like, optional
            The training rows: with them, pessimistic pruning also raises subtrees, as C4.5
            does.
        sample_weight : array-like, optional
            The training rows' weights.
        prune_ties : bool, default=True
            Reduced error: prune when the validation error stays equal (the restaurant
            notes), else only when it drops (Zhou).
        confidence : float, default=0.25
            Pessimistic: C4.5's confidence factor CF.
        ccp_alpha : float, default=0.0
            Cost complexity: the complexity parameter.

        Returns
        -------
        DecisionTreeClassifier or DecisionTreeRegressor
            The pruned copy; after reduced-error pruning ``pruning_trace_`` lists every
            decision.

        Raises
        ------
        InvalidParameterError
            An unknown ``method`` or an out-of-range setting.
        ValueError
            Reduced-error pruning without ``X_val`` and ``y_val``.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        Zhou's Figs 4.4 and 4.6: watermelon 2.0 split into Table 4.2's training and
        validation melons (``umbilicus`` first, the column the text picks in a tie), grown by
        ID3, then pruned by reduced error only where validation accuracy rises:

        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon2", return_X_y=True)
        >>> X = X.select("umbilicus", "color", "root", "sound", "texture", "surface")
        >>> train = [0, 1, 2, 5, 6, 9, 13, 14, 15, 16]
        >>> valid = [3, 4, 7, 8, 10, 11, 12]
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X[train], y[train])
        >>> pruned = model.prune(
        ...     "reduced_error", X_val=X[valid], y_val=y[valid], prune_ties=False
        ... )
        >>> model.n_leaves_, pruned.n_leaves_
        (11, 7)
        >>> round(model.score(X[valid], y[valid]), 3), round(pruned.score(X[valid], y[valid]), 3)
        (0.429, 0.714)
        """
        state = self._state
        if method == "pessimistic" and self.monotonic_cst is not None:
            raise ValueError(_CONSTRAINED_PESSIMISTIC)
        # The fit's own alpha is the floor of rpart's sequence (`prune.rpart` reads the
        # complexities the fit computed).
        fitted = self._validated_pruning(self._checked())
        pruning = _Pruning(
            method=check("method", method, (Options(_PRUNINGS[1:]),)),
            ccp_alpha=check("ccp_alpha", ccp_alpha, _CONSTRAINTS["ccp_alpha"]),
            ccp_risk=fitted.ccp_risk,
            ccp_sequence=fitted.ccp_sequence,
            floor=fitted.floor,
            confidence=check("confidence", confidence, _CONSTRAINTS["confidence"]),
            prune_ties=check("prune_ties", prune_ties, _CONSTRAINTS["prune_ties"]),
            subtree_raising=X is not None,
            collapse=False,  # the fit collapsed the tree already, if asked
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
        costs = self._cost_list(len(state.classes)) if state.classes is not None else None
        threads = None if self.n_jobs is None else _threads(self._param("n_jobs"))
        pruned._fitted = _post_prune(state, pruning, held_out, training, costs, threads)
        return pruned

    def cost_complexity_pruning_path(
        self, X: Any, y: Any, sample_weight: Any = None
    ) -> PruningPath:
        """The minimal cost-complexity pruning path of a tree grown on X, y.

        The tree is grown with these parameters, unpruned; pruning it at ``ccp_alphas[i]``
        gives the subtree whose total leaf impurity is ``impurities[i]`` (its
        misclassification cost with ``ccp_risk="misclassification"``), as in scikit-learn.
        To choose an alpha by cross-validation, see :meth:`cost_complexity_cv`.

        Parameters
        ----------
        X : array-like or DataFrame
            The training rows.
        y : array-like
            The target.
        sample_weight : array-like, optional
            Row weights.

        Returns
        -------
        quercus.tree.PruningPath
            ``ccp_alphas`` and ``impurities``.

        Raises
        ------
        InvalidParameterError
            An invalid parameter of the estimator.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon2", return_X_y=True)
        >>> path = quercus.DecisionTreeClassifier().cost_complexity_pruning_path(X, y)
        >>> path.ccp_alphas.round(4).tolist()
        [0.0, 0.0392, 0.0515, 0.1046, 0.2123]
        """
        pruning = self._validated_pruning(self._checked())
        grower = copy.copy(self).set_params(pruning="none", ccp_alpha=0.0, prepruning=None)
        tree = grower.fit(X, y, sample_weight=sample_weight)._state.tree
        path = _core.cost_complexity_path(
            tree,
            pruning.ccp_risk,
            self._cost_list(tree.n_classes),
            pruning.ccp_sequence,
            pruning.floor,
        )
        return PruningPath(path["ccp_alphas"], path["impurities"])

    def cost_complexity_cv(
        self,
        X: Any,
        y: Any,
        *,
        folds: Any = 10,
        sample_weight: Any = None,
        target: str | None = None,
        random_state: int | None = None,
    ) -> CostComplexityCV:
        """Cross-validate the minimal cost-complexity pruning path, as rpart's ``xval`` does.

        The tree is grown with these parameters on all rows and on each fold's complement;
        the rows of a fold are predicted by the fold tree pruned at each row's cp, and their
        error is the misclassification cost (with ``ccp_risk="misclassification"``, rpart's
        ``xerror``) or the squared error. A positive ``ccp_alpha`` ends the table there, as
        rpart's ``cp`` does.

        Parameters
        ----------
        X : array-like or DataFrame
            The rows.
        y : array-like, optional
            The target (or name it with ``target``).
        folds : int or array-like, default=10
            A number of folds (rows assigned at random, the folds of equal size up to one,
            as rpart assigns them) or one fold label per row (rpart's ``xval`` given as a
            vector).
        sample_weight : array-like, optional
            Row weights.
        target : str, optional
            The column of a DataFrame X that holds y.
        random_state : int, optional
            Seeds the random folds.

        Returns
        -------
        quercus.pruning.CostComplexityCV
            rpart's cp table (``cp``, ``ccp_alpha``, ``n_splits``, ``rel_error``,
            ``xerror``, ``xstd``) with the rules that pick an alpha: ``ccp_alpha("1se")``
            (the smallest tree within one standard error of the least cross-validated
            error, Breiman et al. 1984 §3.4.3) or ``ccp_alpha("min")``.

        Raises
        ------
        ValueError
            Fewer than two folds, or fold labels of another length than X.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> estimator = quercus.DecisionTreeClassifier(ccp_risk="misclassification")
        >>> cv = estimator.cost_complexity_cv(X, y, folds=5, random_state=0)
        >>> cv.table.columns
        ['cp', 'ccp_alpha', 'n_splits', 'rel_error', 'xerror', 'xstd']
        >>> cv.pruned("1se").n_leaves_ <= estimator.fit(X, y).n_leaves_
        True
        """
        from .pruning import cross_validate

        return cross_validate(self, X, y, folds, sample_weight, target, random_state)

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
        accepted, multi-output y). Only scikit-learn calls it, so it is imported here; the
        classifier and regressor base classes add their own tags over these."""
        from sklearn.utils import ClassifierTags, InputTags, RegressorTags, Tags, TargetTags

        classifier = self._estimator_type == "classifier"
        return Tags(
            estimator_type=self._estimator_type,
            target_tags=TargetTags(required=True, multi_output=self._fits_outputs()),
            classifier_tags=ClassifierTags() if classifier else None,
            regressor_tags=None if classifier else RegressorTags(),
            # Strings (categories) come in DataFrames; a NumPy X must be numeric.
            # A sparse X is read as it is (CSC at fit, CSR at predict), but cannot hold NaN.
            input_tags=InputTags(allow_nan=True, categorical=True, string=False, sparse=True),
        )

    def _fits_outputs(self) -> bool:
        """Whether this configuration fits a multi-output y: every one but optimal trees
        (one output) and C4.5's pessimistic pruning (the c4.5 preset's default), which
        estimates one class variable's error. Parameters that do not validate say True:
        fit names them."""
        try:
            checked = self._checked()
            pruning = self._validated_pruning(checked)
        except ValueError:
            return True
        return checked["algorithm"] != "optimal" and pruning.method != "pessimistic"

    @property
    def tree_(self) -> TreeView:
        """The fitted tree: the core tree's API plus scikit-learn's `tree_` arrays."""
        return self._state.view

    @property
    def n_features_in_(self) -> int:
        """The number of features seen at fit (scikit-learn's attribute)."""
        return len(self._state.schema.features)

    @property
    def splitter_(self) -> str:
        """The threshold search the fit used: "exact", "hist" or "random" (what
        `splitter="best"` / `"auto"` chose: for cart and optimal, histograms from 200,000
        training rows on; for id3 and c4.5, the exact search at every size)."""
        return self._state.tree.splitter

    @property
    def max_features_(self) -> int:
        """The number of features searched per node that `max_features` stands for
        (scikit-learn's rules: "sqrt" of the features, at least 1, and so on)."""
        return _growth.max_features(self._param("max_features"), self.n_features_in_)

    @property
    def feature_names_in_(self) -> NDArray[np.object_]:
        """The features' names seen at fit (``x0``, ``x1``, ... for a matrix)."""
        return np.array(self._state.schema.names, dtype=object)

    @property
    def n_outputs_(self) -> int:
        """Targets predicted at once: 1, or the columns of a multi-output y (scikit-learn's
        attribute)."""
        return self._state.n_outputs

    def get_depth(self) -> int:
        """The depth of the tree (scikit-learn's name for ``depth_``).

        Returns
        -------
        int
            Levels below the root: 0 for a single leaf.

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.get_depth()
        2
        """
        return self.depth_

    def get_n_leaves(self) -> int:
        """The number of leaves (scikit-learn's name for ``n_leaves_``).

        Returns
        -------
        int
            The leaves of the fitted tree.

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.get_n_leaves()
        5
        """
        return self.n_leaves_

    @property
    def n_nodes_(self) -> int:
        """The number of nodes, leaves included."""
        return self.tree_.n_nodes

    @property
    def n_leaves_(self) -> int:
        """The number of leaves."""
        return self.tree_.n_leaves

    @property
    def depth_(self) -> int:
        """The depth: levels below the root."""
        return self.tree_.depth

    def _columns(self, X: Any) -> list[_core.Column]:
        return transform(X, self._state.schema)

    def _rows(self, X: Any) -> Rows:
        """X as the core reads it: a contiguous float NumPy matrix as it is (no copy) when it
        needs no encoding, a sparse X as CSR arrays (never densified), a small Polars frame
        as one coded array (`small_frame`), a larger one as its columns read in place
        (`frame_rows`), a small pandas frame of float features as one matrix, a pandas frame
        as its columns read in place (`pandas_rows`), else its encoded columns."""
        if type(X) is list:  # nested lists: the array the encoding would make of them
            X = np.asarray(X)
        if is_dense(X, self._state):
            return X
        if is_pandas_frame(X):
            if len(X) <= SMALL_FRAME and X.shape[1] == self._state.dense_width:
                # A few rows of float columns in fit order: one matrix, made in a few µs,
                # where reading the frame column by column costs about 10 µs a column.
                values = np.ascontiguousarray(X.to_numpy())
                if is_dense(values, self._state) and X.columns.tolist() == self._state.schema.names:
                    return values
            rows = pandas_rows(X, self._state.schema)
            if rows is not None:
                return rows
        X = as_polars(X)
        if type(X) is pl.DataFrame:
            rows = (
                small_frame(X, self._state.schema)
                if X.height <= SMALL_FRAME
                else frame_rows(X, self._state.schema)
            )
            if rows is not None:
                return rows
        if is_sparse(X):
            return sparse_rows(X, self._state.schema)
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
            # An infinite value in a matrix or a frame: encoding it names the column.
            if isinstance(rows, np.ndarray):
                return run(self._columns(rows), n_jobs, progress)
            if rows[0] == "frame":
                return run(self._columns(rows[2]), n_jobs, progress)
            raise
        finally:
            if progress is not None:
                progress.close()

    def _reporter(self, what: str, total: int | None = None) -> Progress | None:
        """With `verbose`, a progress line on stderr for work longer than a second (close it
        when the work ends); None without."""
        verbose = self._param("verbose")
        return Progress(what, total) if verbose else None

    def apply(self, X: Any) -> NDArray[np.int64]:
        """The leaf each row reaches, as a node id.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, polars.DataFrame or LazyFrame, pandas.DataFrame
            The rows, one column per feature: a DataFrame is matched to the training columns
            by name (a LazyFrame collects only those), a matrix by position.

        Returns
        -------
        numpy.ndarray of shape (n_rows,)
            Node ids (as ``tree_.nodes()`` and ``export_text`` number them); a row spread
            over several branches by a missing value gets the leaf holding most of its
            weight.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            X lacks a training column or has another number of columns, or holds an
            infinite value (the message names the column).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.apply(X[:3]).tolist()
        [5, 5, 5]
        """
        return self._predicted("apply", self._rows(X))

    def decision_path(self, X: Any) -> csr_matrix:
        """The nodes each row passes through, as scikit-learn returns them.

        Rows are routed as prediction routes them, so a row that a missing value spreads
        over several branches marks every node it reaches with a positive share.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, polars.DataFrame or LazyFrame, pandas.DataFrame
            The rows, one column per feature: a DataFrame is matched to the training columns
            by name (a LazyFrame collects only those), a matrix by position.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_rows, n_nodes)
            1 where the row passes the node. Needs SciPy.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            X lacks a training column or has another number of columns, or holds an
            infinite value (the message names the column).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.decision_path(X[:1]).toarray().tolist()
        [[1, 1, 0, 0, 0, 1, 0, 0]]
        """
        indptr, indices = self._predicted("decision_path", self._rows(X))
        return path_matrix(indptr, indices, self.tree_.n_nodes)

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

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in thresholds and figures.
        show_weights : bool, default=True
            End each leaf's line with its training weight, ``(7)``.
        show_missing : bool, optional
            Say where each split sends a missing value, after its first branch's line
            (``[missing → left]``, ``[? → 7/15 · 5/15 · 3/15]`` for C4.5's fractions,
            ``[surrogate: density <= 0.4000; missing → left]``). None: when some split met
            missing values in training.
        max_depth : int, optional
            Levels shown (None: all); a split at the last level shown ends its line with
            the number of leaves below it.
        max_categories : int, optional
            A category subset is worded by its shorter side and lists at most this many
            categories, counting the rest (``{N10156, N103US, … 1,809 more}``); None lists
            all. ``to_sql``, ``to_polars_expr`` and ``rules()`` always hold every category.

        Returns
        -------
        str
            One line per node below the root.

        Raises
        ------
        InvalidParameterError
            ``max_depth`` or ``max_categories`` below 1.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> print(model.export_text())
        texture = clear
            density <= 0.3815: no (2)
            density >  0.3815: yes (7)
        texture = slightly_blurry
            surface = hard: no (4)
            surface = soft: yes (1)
        texture = blurry: no (3)
        """
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
        """The tree as rules, one per leaf, to read, post-prune, or run as Polars or SQL.

        Each rule holds the tests on its leaf's path, merged per feature (two thresholds on
        one feature become one interval); the default is the root's prediction.

        Returns
        -------
        RuleSet
            The rules in the order ``export_text`` prints the leaves.

        Raises
        ------
        ValueError
            A multi-output tree: a rule set predicts one target.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> rules = model.rules()
        >>> len(rules), rules.default
        (5, 'no')
        >>> print(rules[1].to_text("ripe"))
        IF texture = clear AND density > 0.3815 THEN ripe = yes  [support 7, confidence 1.00]
        """
        state = self._state
        state.single_output("rules()")
        return RuleSet.from_tree(state.tree.nodes(), state.schema, state.labels)

    def export_rules(
        self, *, decimals: int = 4, max_categories: int | None = MAX_CATEGORIES
    ) -> str:
        """The rules of :meth:`rules` as text.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in thresholds and figures.
        max_categories : int, optional
            Category lists longer than this are shortened, as ``export_text`` shortens them
            (None: all).

        Returns
        -------
        str
            One ``IF ... THEN ...`` line per leaf, with its support and confidence, and an
            ``ELSE`` line for the default.

        Raises
        ------
        ValueError
            A multi-output tree.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> print(model.export_rules())
        IF texture = clear AND density <= 0.3815 THEN ripe = no  [support 2, confidence 1.00]
        IF texture = clear AND density > 0.3815 THEN ripe = yes  [support 7, confidence 1.00]
        IF texture = slightly_blurry AND surface = hard THEN ripe = no  [support 4, confidence 1.00]
        IF texture = slightly_blurry AND surface = soft THEN ripe = yes
            [support 1, confidence 1.00]
        IF texture = blurry THEN ripe = no  [support 3, confidence 1.00]
        ELSE ripe = no
        """
        return self.rules().to_text(decimals, check("max_categories", max_categories, _LISTED))

    def predict_expr(self, *, proba: bool = False) -> pl.Expr:
        """A Polars expression that runs this model's predictor on each batch of a query.

        The same as :func:`quercus.predict_expr` with this model.

        Parameters
        ----------
        proba : bool, default=False
            Classifiers: a struct of class probabilities instead of the label.

        Returns
        -------
        polars.Expr
            Named after the target; use it in ``with_columns`` or ``select``, eager, lazy
            or ``collect(engine="streaming")``.

        Raises
        ------
        ValueError
            ``proba=True`` on a regressor or a multi-output tree.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> X.lazy().select(model.predict_expr()).collect()["ripe"].to_list()[:4]
        ['yes', 'yes', 'yes', 'yes']
        """
        return native.predict_expr(self, proba=proba)

    def to_polars_expr(self) -> pl.Expr:
        """The tree as a pure Polars ``when/then`` expression (quercus is not needed to run it).

        Equal to ``predict(X, output="polars")`` on rows with no missing tested value, and
        on every row when the tree sends a missing value to one child (every ``missing=``
        strategy but C4.5's fractions; surrogate splits included). With C4.5's fractions a
        missing value (null, NaN, an unseen category) goes down the branch with the largest
        training share, since the fractions cannot be expressed.

        Returns
        -------
        polars.Expr
            Named after the target; a multi-output tree's is a struct of its outputs'
            predictions.

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> X.select(model.to_polars_expr())["ripe"].to_list() == model.predict(X).tolist()
        True
        """
        state = self._state
        dtype = native.prediction_dtype(state.schema, state.classes)
        return native.tree_expr(state.tree.nodes(), state.schema, state.labels, dtype)

    def to_sql(self, table: str | None = None) -> str:
        """The tree as an SQL ``CASE`` expression, one nested ``CASE`` per internal node.

        Missing values (NULL) are treated as by :meth:`to_polars_expr`; the columns must
        hold what quercus was fitted on, as for :meth:`quercus.RuleSet.to_sql`.

        Parameters
        ----------
        table : str, optional
            With it, a whole ``SELECT CASE ... END AS "target" FROM "table"``.

        Returns
        -------
        str
            The expression; a multi-output tree gives one ``CASE`` per output, named after
            it (a select list).

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> print(model.to_sql())
        CASE
            WHEN "texture" = 'slightly_blurry' THEN CASE
                WHEN "surface" = 'soft' THEN 'yes'
                ELSE 'no'
            END
            WHEN "texture" = 'blurry' THEN 'no'
            ELSE CASE
                WHEN "density" <= 0.3815 THEN 'no'
                ELSE 'yes'
            END
        END
        """
        state = self._state
        return native.tree_sql(state.tree.nodes(), state.schema, state.labels, table)

    def to_onnx(self, *, dtype: Any = np.float64, ml_opset: int = 5) -> Any:
        """The model as an ONNX model for onnxruntime (see :func:`quercus.serving.to_onnx`).

        Parameters
        ----------
        dtype : {numpy.float64, numpy.float32}, default=numpy.float64
            The input matrix's type.
        ml_opset : {5, 3}, default=5
            ``ai.onnx.ml`` TreeEnsemble (5) or the older TreeEnsembleRegressor (3).

        Returns
        -------
        onnx.ModelProto
            Input ``X`` as :func:`quercus.serving.onnx_input` encodes it.

        Raises
        ------
        quercus.serving.NotServableError
            A C4.5-fractions, surrogate or oblique tree, which one direction per node
            cannot express (the message names the strategy to refit with).
        ImportError
            Without the ``onnx`` package (``pip install "quercus[onnx]"``).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(missing="learned").fit(X, y)
        >>> [output.name for output in model.to_onnx().graph.output]
        ['label', 'probabilities']
        """
        return serving.to_onnx(self, dtype=dtype, ml_opset=ml_opset)

    def to_treelite(self) -> Any:
        """The model as a treelite model, for TL2cgen (see :func:`quercus.serving.to_treelite`).

        Returns
        -------
        treelite.Model
            One tree; a classifier's leaves hold class probabilities.

        Raises
        ------
        quercus.serving.NotServableError
            A tree that one direction per node cannot express, as for :meth:`to_onnx`.
        ImportError
            Without the ``treelite`` package (``pip install "quercus[treelite]"``).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(missing="learned").fit(X, y)
        >>> model.to_treelite().num_tree
        1
        """
        return serving.to_treelite(self)

    def to_dot(
        self,
        *,
        decimals: int = 3,
        max_categories: int | None = pictures.PICTURE_CATEGORIES,
        data: tuple[Any, ...] | None = None,
    ) -> str:
        """The tree as Graphviz DOT text, for ``dot``: boxes coloured by majority class.

        Parameters
        ----------
        decimals : int, default=3
            Digits after the point.
        max_categories : int, optional
            Category lists shortened to this many (None: all); each edge's whole test is its
            tooltip.
        data : tuple, optional
            A regressor's ``(X, y)`` or ``(X, y, sample_weight)`` whose quantiles the
            nodes' strips draw, as in :meth:`to_svg`.

        Returns
        -------
        str
            A ``digraph``.

        Raises
        ------
        ValueError
            A multi-output tree (boxes are coloured and counted by one output's classes), or
            ``data`` given to a classifier.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.to_dot().startswith("digraph tree {")
        True
        """
        state = self._state
        state.single_output("to_dot()")
        nodes = state.tree.nodes()
        return pictures.to_dot(
            nodes,
            state.schema.features,
            state.labels,
            target=state.schema.target,
            decimals=decimals,
            max_categories=check("max_categories", max_categories, _LISTED),
            spread=self._spread(nodes, data),
        )

    def to_svg(
        self,
        *,
        decimals: int = 3,
        max_depth: int | None = None,
        width: float | None = pictures.DEFAULT_WIDTH,
        max_categories: int | None = pictures.PICTURE_CATEGORIES,
        data: tuple[Any, ...] | None = None,
    ) -> str:
        """The tree as a standalone SVG picture, laid out by quercus (no Graphviz needed).

        A classifier's node shows its class counts, coloured by its majority class. A
        regression node shows its mean, its weight and a strip of its target's spread
        (whiskers 5-95 %, box 25-75 %, median, mean) on one axis for the whole picture: the
        training rows' quantiles, recorded at fit. A model read from a file keeps none, so
        its strips show mean ± one standard deviation unless given ``data``.

        Parameters
        ----------
        decimals : int, default=3
            Digits after the point.
        max_depth : int, optional
            Draw at most this many levels below the root.
        width : float, optional
            The page width in px (at least 100; None: the drawing's own size). A wider
            drawing is scaled down; if its text would then be too small to read, fewer
            levels are drawn, with a caption saying so and each cut node stating how many
            nodes lie below it.
        max_categories : int, optional
            Category lists show at most this many of their shorter side (None: all); the
            whole list is the edge's tooltip and a numbered note under the tree.
        data : tuple, optional
            A regressor's ``(X, y)`` or ``(X, y, sample_weight)``: draw the quantiles of
            those rows, routed as ``predict`` routes them (for a loaded model, or to see
            test rows).

        Returns
        -------
        str
            An ``<svg>`` element; a notebook shows a fitted model this way by itself.

        Raises
        ------
        ValueError
            A multi-output tree, or ``data`` given to a classifier.
        InvalidParameterError
            ``width`` below 100 or ``max_depth`` below 1.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> svg = model.to_svg(width=600)
        >>> svg.startswith("<svg"), svg.count('<rect class="node')
        (True, 8)
        """
        state = self._state
        state.single_output("to_svg()")
        nodes = state.tree.nodes()
        return pictures.to_svg(
            nodes,
            state.schema.features,
            state.labels,
            target=state.schema.target,
            decimals=decimals,
            max_depth=check("max_depth", max_depth, _LEVELS),
            width=check("width", width, (Real(100.0), None)),
            max_categories=check("max_categories", max_categories, _LISTED),
            spread=self._spread(nodes, data),
        )

    def _spread(
        self, nodes: dict[str, NDArray[Any]], data: tuple[Any, ...] | None
    ) -> spread.Spread | None:
        """What a regression tree's strips show: the quantiles of `data` = (X, y[,
        sample_weight]), else those kept from the fit, else mean ± sd; None for a classifier
        (which takes no `data`)."""
        state = self._state
        if state.classes is not None:
            if data is not None:
                raise ValueError(
                    "data= draws the target's spread in a regression tree's nodes; a "
                    "classifier's boxes show the class counts of its training rows"
                )
            return None
        if data is None:
            return spread.of_tree(nodes, state.quantiles)
        if not isinstance(data, tuple) or len(data) not in (2, 3):
            raise ValueError("data must be a tuple (X, y) or (X, y, sample_weight)")
        rows = labelled_data(
            data[0], data[1], data[2] if len(data) == 3 else None, state.schema, None
        )
        threads = None if self.n_jobs is None else _threads(self._param("n_jobs"))
        return spread.of_rows(state.tree, rows, threads)

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of the model: its SVG once fitted (`to_svg`'s rules: it fits a
        notebook's width, cutting levels a large tree could not show legibly). None (Jupyter
        then shows the text repr) before fit, and for a multi-output tree (no picture)."""
        if not self.__sklearn_is_fitted__() or self._state.n_outputs > 1:
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
        svg = self._repr_svg_()
        return {"text/plain": repr(self), **({} if svg is None else {"image/svg+xml": svg})}

    def node_scores(self, node_id: int) -> pl.DataFrame:
        """Every feature's best split at a node when it was grown, as :func:`split_scores`.

        Parameters
        ----------
        node_id : int
            The node, as ``apply`` and ``tree_.nodes()`` number them (0 is the root).

        Returns
        -------
        polars.DataFrame
            One row per feature: ``feature``, ``score``, ``gain``, ``iv`` (split
            information), ``threshold`` (numeric features) and ``rho`` (the share of weight
            that knows the feature); NaN for a feature not searched there.

        Raises
        ------
        ValueError
            A histogram tree (``splitter_ == "hist"``), which keeps no scores.
        QuercusError
            A node that does not exist.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        Under ``texture = clear`` (node 1) of watermelon 3.0, density's gain is 0.764:

        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> scores = model.node_scores(1)
        >>> scores.filter(feature="density")["gain"].round(3).to_list()
        [0.764]
        """
        if self.splitter_ == "hist":
            raise ValueError(
                "node_scores are recorded by the exact search only; this tree was grown with "
                'histograms (splitter_ == "hist"): refit with splitter="exact" to see them'
            )
        return _score_frame(self._state.schema.names, self.tree_.node_scores(node_id))

    # The model format (docs/model-format.md); the bytes are made and read in `model_io`.

    def save(self, path: str | PathLike[str]) -> None:
        """Write the fitted model to a file in quercus's model format.

        Parameters
        ----------
        path : str or os.PathLike
            The file to write (conventionally ``.qrc``); :func:`quercus.load` reads it.

        Raises
        ------
        OSError
            The file cannot be written.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "melons.qrc"
        >>> model.save(path)
        >>> quercus.load(path).predict(X).tolist() == model.predict(X).tolist()
        True
        """
        model_io.save(self.to_bytes(), path)

    def to_bytes(self) -> bytes:
        """The fitted model in quercus's model format (docs: the model format).

        Returns
        -------
        bytes
            The same data and parameters always give the same bytes; :func:`quercus.from_bytes`
            reads them.

        Raises
        ------
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> data = model.to_bytes()
        >>> data[:4]
        b'\\x89QRC'
        >>> quercus.from_bytes(data).n_leaves_
        5
        """
        name = type(self).__name__
        return model_io.to_bytes(self._state, name, self._estimator_type, self.get_params())

    @classmethod
    def from_bytes(cls: type[_Estimator], data: bytes) -> _Estimator:
        """The model in ``data`` (from ``to_bytes``), as an estimator of this class.

        Parameters
        ----------
        data : bytes
            A model written by ``to_bytes``, ``save`` or the command line.

        Returns
        -------
        object
            An estimator of this class holding the model.

        Raises
        ------
        QuercusError
            ``data`` is not a quercus model, is damaged, or holds the other kind of
            estimator (a regressor read as a classifier).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> data = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).to_bytes()
        >>> quercus.DecisionTreeClassifier.from_bytes(data)
        DecisionTreeClassifier(algorithm='id3')
        """
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
        place of the Rust tree, with a regression tree's node quantiles beside them (the
        pictures' strips: a model file has no place for them, but a pickle is a copy of the
        object, which should not lose them)."""
        state = {k: v for k, v in self.__dict__.items() if k != "_fitted"}
        if "_fitted" in self.__dict__:
            state["_quercus_model"] = self.to_bytes()
            if self._fitted.quantiles is not None:
                state["_quercus_quantiles"] = self._fitted.quantiles
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        data = state.pop("_quercus_model", None)
        quantiles = state.pop("_quercus_quantiles", None)
        self.__dict__.update(state)
        if data is not None:
            fitted = self._checked_state(model_io.read(data).state)
            self._fitted = replace(fitted, quantiles=spread.unpickled(quantiles, fitted.tree))

    def __copy__(self: _Estimator) -> _Estimator:
        """A shallow copy sharing the (immutable) fitted tree, without the pickling route."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin


class DecisionTreeClassifier(ClassifierBase, _BaseTree):
    # The docstring, with every parameter, is assembled below the class (`_docstrings`).

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
        # a dict, "balanced", or one dict per output of a multi-output y
        "class_weight": (Options(("balanced",)), Dict(), Dicts(), None),
        "priors": (Dict(), ArrayLike(), None),  # checked against the classes at fit
        "altered_priors": (Boolean(),),
        "ccp_risk": (Options(("impurity", "misclassification")),),
    }

    def __init__(
        self,
        *,
        cost_matrix: Any = None,
        class_weight: Any = None,
        priors: Any = None,
        altered_priors: bool = False,
        **params: Any,
    ) -> None:
        super().__init__(**params)
        self.cost_matrix = cost_matrix
        self.class_weight = class_weight
        self.priors = priors
        self.altered_priors = altered_priors

    # scikit-learn (and get_params) read the parameters from the signature: show them all.
    __init__.__signature__ = _extended_signature(  # type: ignore[attr-defined]
        _BaseTree.__init__,
        {"cost_matrix": None, "class_weight": None, "priors": None, "altered_priors": False},
    )

    def _reweighted(self, data: TrainingData) -> TrainingData:
        """`class_weight` folded into the row weights: a dict label -> weight, or "balanced"
        (n_rows / (n_classes * class count)) as in scikit-learn. A multi-output y takes a list
        of dicts, one per output, or "balanced"; a row's weight is multiplied by its class
        weight in every output (scikit-learn's `compute_sample_weight`)."""
        if self.class_weight is None:
            return data
        assert data.classes is not None  # a classifier's data
        classes = data.classes if isinstance(data.classes, list) else [data.classes]
        codes = data.y.reshape(len(data.y), -1)
        n_outputs = len(classes)
        given = self.class_weight
        if isinstance(given, str):
            per_output: list[Any] = [given] * n_outputs
        elif isinstance(given, Mapping):
            if n_outputs > 1:
                raise ValueError(
                    "For multi-output, class_weight should be a list of dicts, or the string "
                    "'balanced'."
                )
            per_output = [given]
        else:
            if len(given) != n_outputs:
                raise ValueError(
                    "For multi-output, number of elements in class_weight should match number "
                    f"of outputs. (got {len(given)}, y has {n_outputs})"
                )
            per_output = list(given)
        factor = np.ones(len(codes))
        for k, (weights, labels) in enumerate(zip(per_output, classes, strict=True)):
            factor *= _class_weights(weights, labels, codes[:, k])[codes[:, k]]
        return replace(data, sample_weight=data.sample_weight * factor)

    def _class_factors(self, data: TrainingData) -> NDArray[np.float64] | None:
        """The factor each class's row weights are multiplied by: `class_weight` (a dict
        label -> weight, or "balanced": n_rows / (n_classes * class count), as in
        scikit-learn) or `priors` (rpart's: class k's factor is π_k / f_k, f_k its weighted
        share of the rows, so that each class weighs its prior). They re-weight the criterion
        and the leaves; the size rules still count rows."""
        if self.class_weight is not None and self.priors is not None:
            raise ValueError(
                "class_weight and priors both re-weight the classes; give one of them "
                "(priors π are class_weight π_k / f_k, f_k the class's share of the rows)"
            )
        if self.altered_priors and self.cost_matrix is None:
            raise ValueError("altered_priors=True puts cost_matrix into the split: give one")
        assert data.classes is not None  # a classifier's data
        if self.priors is not None:
            return _prior_factors(self.priors, data)
        if self.class_weight is None:
            return None
        counts = np.bincount(data.y, minlength=data.n_classes)
        if isinstance(self.class_weight, str):
            return len(data.y) / (data.n_classes * np.maximum(counts, 1))
        labels = data.classes.tolist()
        unknown = [k for k in self.class_weight if k not in labels]
        if unknown:
            raise ValueError(f"class_weight names classes not in y: {unknown!r}")
        per_class = np.array([float(self.class_weight.get(c, 1.0)) for c in labels])
        if not np.all(np.isfinite(per_class) & (per_class > 0)):
            raise ValueError("class_weight values must be finite and positive")
        return per_class

    def _checked_state(self, state: FittedTree) -> FittedTree:
        """A loaded state whose cost matrix fits its classes."""
        if self.cost_matrix is not None:
            try:
                self._cost_list(class_counts(state.classes))
            except (TypeError, ValueError) as error:
                raise _core.QuercusError(
                    f"cannot load the model: its metadata is invalid: its cost_matrix is "
                    f"invalid: {error}"
                ) from None
        return state

    def _cost_list(self, n_classes: int | list[int]) -> list[float] | None:
        if self.cost_matrix is None:
            return None
        if isinstance(n_classes, list):
            raise ValueError(
                "cost_matrix prices the classes of one output, but y has "
                f"{len(n_classes)} outputs (a multi-output y)"
            )
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
    def classes_(self) -> Classes:
        """The class labels in code order; for a multi-output y, a list of each output's (as
        scikit-learn's)."""
        classes = self._state.classes
        assert classes is not None  # always set by a classifier's fit
        return classes

    @property
    def n_classes_(self) -> int | NDArray[np.intp]:
        """The number of classes; for a multi-output y, an array of each output's."""
        counts = class_counts(self._state.classes)
        return np.array(counts, dtype=np.intp) if isinstance(counts, list) else counts

    def predict(self, X: Any, *, output: str = "numpy") -> Any:
        """The class of each row.

        The most probable class of the leaf each row reaches (a row that C4.5's fractions
        spread over several leaves: of their summed distributions); with a ``cost_matrix``,
        the class of least expected cost. Missing values go where ``missing=`` says.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, polars.DataFrame or LazyFrame, pandas.DataFrame
            The rows, one column per feature: a DataFrame is matched to the training columns
            by name (a LazyFrame collects only those), a matrix by position.
        output : {"numpy", "polars"}, default="numpy"
            ``"polars"``: a Series named after the target, with the target's dtype at fit
            (an Enum target gives that Enum); a multi-output tree's, a DataFrame with one
            such column per output.

        Returns
        -------
        numpy.ndarray, polars.Series or polars.DataFrame
            The labels, shape (n_rows,), or (n_rows, n_outputs) for a multi-output tree.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            X lacks a training column or has another number of columns, or holds an
            infinite value (the message names the column).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.predict(X[:3]).tolist()
        ['yes', 'yes', 'yes']
        >>> model.predict(X[:3], output="polars").dtype
        Enum(categories=['yes', 'no'])
        """
        output = native.check_output(output)
        codes = self._predict_codes(self._rows(X))
        if output == "numpy" and self._state.codes_are_labels:
            return codes.astype(self.classes_.dtype)
        return native.class_labels(codes, self.classes_, self._state.schema, output)

    def _predict_codes(self, rows: Rows) -> NDArray[Any]:
        """Class codes: the core's uint32 ones (they index `classes_` as they are), or the
        classes of least expected cost."""
        if self.cost_matrix is None:
            return self._predicted("predict_class", rows)
        costs = np.asarray(self.cost_matrix, dtype=np.float64)
        return np.argmin(self._predicted("predict_proba", rows) @ costs, axis=1)

    def predict_proba(self, X: Any, *, output: str = "numpy") -> Any:
        """Class probabilities of each row: the class distribution of the leaf it reaches.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, polars.DataFrame or LazyFrame, pandas.DataFrame
            The rows, one column per feature: a DataFrame is matched to the training columns
            by name (a LazyFrame collects only those), a matrix by position.
        output : {"numpy", "polars"}, default="numpy"
            ``"polars"``: a DataFrame with one Float64 column per class, named after its
            label.

        Returns
        -------
        numpy.ndarray of shape (n_rows, n_classes), polars.DataFrame or list
            Columns in ``classes_`` order; a multi-output tree gives a list with each
            output's, as scikit-learn does.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            X lacks a training column or has another number of columns, or holds an
            infinite value (the message names the column).

        Examples
        --------
        Melon 8 of watermelon 2.0α misses its texture: C4.5's fractions send it down the
        three texture branches of Fig 4.8 with weights 7/15, 5/15 and 3/15, and its
        probabilities are the weighted sum of the class distributions of the leaves it
        reaches. Heard dull rather than muffled, it reaches "no" under slightly blurry
        texture (5/15) and "yes" under the two others:

        >>> import polars as pl
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon2alpha", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.classes_.tolist()
        ['yes', 'no']
        >>> model.predict_proba(X[7]).round(3).tolist()
        [[1.0, 0.0]]
        >>> dull = X[7].with_columns(sound=pl.lit("dull", dtype=X.schema["sound"]))
        >>> model.predict_proba(dull).round(3).tolist()
        [[0.667, 0.333]]
        """
        output = native.check_output(output)
        proba = self._predicted("predict_proba", self._rows(X))
        return native.probabilities(proba, self.classes_, output)

    def predict_log_proba(self, X: Any) -> Any:
        """The natural logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, polars.DataFrame or LazyFrame, pandas.DataFrame
            The rows, one column per feature: a DataFrame is matched to the training columns
            by name (a LazyFrame collects only those), a matrix by position.

        Returns
        -------
        numpy.ndarray of shape (n_rows, n_classes) or list
            -inf where a class has no weight; a list of each output's for a multi-output
            tree.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            X lacks a training column or has another number of columns, or holds an
            infinite value (the message names the column).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.predict_log_proba(X[:1]).tolist()
        [[0.0, -inf]]
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return [np.log(p) for p in proba] if isinstance(proba, list) else np.log(proba)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The accuracy of ``predict(X)`` against y.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, polars.DataFrame or LazyFrame, pandas.DataFrame
            The rows, one column per feature: a DataFrame is matched to the training columns
            by name (a LazyFrame collects only those), a matrix by position.
        y : array-like
            The true labels.
        sample_weight : array-like, optional
            Row weights of the accuracy.

        Returns
        -------
        float
            The (weighted) share of rows predicted right. A multi-output tree is scored as
            scikit-learn's ``accuracy_score`` scores it: subset accuracy (every output
            right) when every label is 0 or 1.

        Raises
        ------
        ValueError
            y of another length than X, or a multi-output target that is not a 0/1
            indicator ("multiclass-multioutput is not supported", as scikit-learn says).
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> model.score(X, y)
        1.0
        """
        rows = self._rows(X)
        n_rows = n_rows_of(rows)
        state = self._state
        truth = [
            target_values(column, n_rows) for column in output_columns(y, n_rows, state.schema)
        ]
        codes = self._predict_codes(rows).reshape(n_rows, -1)
        predicted = [c[codes[:, k]] for k, c in enumerate(state.output_classes())]
        if len(truth) > 1 and not all(_indicator(v) for v in (*truth, *predicted)):
            raise ValueError("multiclass-multioutput is not supported")
        correct = np.logical_and.reduce([p == t for p, t in zip(predicted, truth, strict=True)])
        return float(np.average(correct, weights=sample_weights(sample_weight, n_rows)))


def _class_weights(given: Any, labels: NDArray[Any], codes: NDArray[np.uint32]) -> NDArray[Any]:
    """One output's weight per class (in `labels` order): "balanced" (n_rows / (n_classes *
    class count), as scikit-learn), or a dict label -> weight (1 for a class it omits)."""
    if isinstance(given, str):
        counts = np.bincount(codes, minlength=len(labels))
        return len(codes) / (len(labels) * np.maximum(counts, 1))
    if not isinstance(given, Mapping):
        raise TypeError(f"class_weight lists dicts (one per output); got {given!r}")
    listed = labels.tolist()
    unknown = [k for k in given if k not in listed]
    if unknown:
        raise ValueError(f"class_weight names classes not in y: {unknown!r}")
    weights = np.array([float(given.get(c, 1.0)) for c in listed])
    if not np.all(np.isfinite(weights) & (weights > 0)):
        raise ValueError("class_weight values must be finite and positive")
    return weights


def _indicator(labels: NDArray[Any]) -> bool:
    """Whether every label is 0 or 1 (numbers or booleans): scikit-learn's multilabel
    indicator, whose multi-output accuracy is defined."""
    if labels.dtype.kind not in "biuf" and labels.dtype != object:
        return False
    try:
        return bool(np.isin(labels, [0, 1]).all())
    except TypeError:
        return False


class DecisionTreeRegressor(RegressorBase, _BaseTree):
    # The docstring, with every parameter, is assembled below the class (`_docstrings`).

    _estimator_type = "regressor"
    _default_criteria: ClassVar[dict[str, str]] = dict.fromkeys(_SPLITS, "squared_error")
    _constraints: ClassVar[dict[str, Constraints]] = {
        **_CONSTRAINTS,
        "criterion": (Options(_REGRESSION_CRITERIA), None),
    }

    def predict(self, X: Any, *, output: str = "numpy") -> Any:
        """The predicted value of each row: that of the leaf it reaches.

        A leaf's value is its weighted mean target (the weighted median with
        ``criterion="absolute_error"``); a row spread over several leaves by C4.5's
        fractions gets their weighted mean.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, polars.DataFrame or LazyFrame, pandas.DataFrame
            The rows, one column per feature: a DataFrame is matched to the training columns
            by name (a LazyFrame collects only those), a matrix by position.
        output : {"numpy", "polars"}, default="numpy"
            ``"polars"``: a Float64 Series named after the target (a DataFrame of one per
            output).

        Returns
        -------
        numpy.ndarray, polars.Series or polars.DataFrame
            Shape (n_rows,), or (n_rows, n_outputs) for a multi-output tree.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            X lacks a training column or has another number of columns, or holds an
            infinite value (the message names the column).

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> X, sugar = X.drop("sugar"), X["sugar"]
        >>> model = quercus.DecisionTreeRegressor(max_depth=1).fit(X, sugar)
        >>> model.predict(X[:2]).round(3).tolist()
        [0.302, 0.302]
        """
        output = native.check_output(output)
        predictions = self._predicted("predict_value", self._rows(X))
        return native.values(predictions, self._state.schema, output)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The coefficient of determination R² of ``predict(X)`` against y.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix, polars.DataFrame or LazyFrame, pandas.DataFrame
            The rows, one column per feature: a DataFrame is matched to the training columns
            by name (a LazyFrame collects only those), a matrix by position.
        y : array-like
            The true values.
        sample_weight : array-like, optional
            Row weights.

        Returns
        -------
        float
            R²; for a multi-output tree the mean of the outputs' (scikit-learn's
            ``r2_score`` with ``"uniform_average"``).

        Raises
        ------
        ValueError
            y of another length than X.
        NotFittedError
            Before ``fit``.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> X, sugar = X.drop("sugar"), X["sugar"]
        >>> model = quercus.DecisionTreeRegressor().fit(X, sugar)
        >>> model.score(X, sugar)
        1.0
        """
        rows = self._rows(X)
        n_rows = n_rows_of(rows)
        columns = output_columns(y, n_rows, self._state.schema)
        weights = sample_weights(sample_weight, n_rows)
        predicted = self._predicted("predict_value", rows).reshape(n_rows, -1)
        scores = [
            _r2(regression_targets(column, n_rows), predicted[:, k], weights)
            for k, column in enumerate(columns)
        ]
        return float(np.mean(scores))


def _r2(truth: NDArray[np.float64], predicted: NDArray[np.float64], weights: Any) -> float:
    """One output's weighted coefficient of determination."""
    residual = np.sum(weights * (truth - predicted) ** 2)
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
    return _score_frame(data.schema.names, scores).with_columns(
        reason=pl.Series(scores["reason"], dtype=pl.String)
    )


def _score_frame(names: list[str], scores: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(
        {"feature": names, **{column: scores[column] for column in _SCORE_COLUMNS}},
        schema={"feature": pl.String, **dict.fromkeys(_SCORE_COLUMNS, pl.Float64)},
    )


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


def _prior_factors(priors: Any, data: TrainingData) -> NDArray[np.float64]:
    """rpart's priors as class factors π_k / f_k, f_k class k's share of the row weight:
    `priors` is a dict label -> prior or a sequence in `classes_` order, each > 0, summing
    to 1."""
    assert data.classes is not None
    labels = data.classes.tolist()
    if isinstance(priors, dict):
        unknown = [k for k in priors if k not in labels]
        missing = [c for c in labels if c not in priors]
        if unknown or missing:
            raise ValueError(
                f"priors must give every class of y one prior; unknown {unknown!r}, "
                f"missing {missing!r}"
            )
        values = [priors[c] for c in labels]
    else:
        values = list(np.asarray(priors).ravel())
    if len(values) != len(labels):
        raise ValueError(f"priors must hold one value per class ({len(labels)}), got {len(values)}")
    try:
        prior = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"priors must be numbers; got {values!r}") from None
    if not (np.all(np.isfinite(prior) & (prior > 0)) and abs(prior.sum() - 1.0) <= 1e-9):
        raise ValueError(f"priors must be positive and sum to 1; got {prior.tolist()}")
    share = np.bincount(data.y, weights=data.sample_weight, minlength=len(labels))
    return prior / (share / share.sum())


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
    # The docstring, with every parameter, is assembled below the class (`_docstrings`).

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
    # The docstring, with every parameter, is assembled below the class (`_docstrings`).

    def __init__(self, *, splitter: str = "random", max_features: Any = 1.0, **params: Any) -> None:
        super().__init__(splitter=splitter, max_features=max_features, **params)

    __init__.__signature__ = _with_defaults(  # type: ignore[attr-defined]
        inspect.signature(DecisionTreeRegressor.__init__), splitter="random", max_features=1.0
    )


_docstrings.document(
    DecisionTreeClassifier,
    """A classification tree: ID3, C4.5, CART or a provably optimal tree, any criterion.""",
    """
    See Also
    --------
    DecisionTreeRegressor : the regression tree.
    ExtraTreeClassifier : one random test per feature.

    Notes
    -----
    With scikit-learn installed the estimator is a scikit-learn classifier (pipelines,
    grid searches, ``clone``). Parameters are checked at ``fit``; a bad one raises
    :class:`InvalidParameterError` naming it and its bounds.

    Examples
    --------
    ID3 on watermelon 3.0 grows Zhou's Fig 4.7:

    >>> import quercus
    >>> df = quercus.datasets.load("watermelon3")
    >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(df, target="ripe")
    >>> print(model.export_text(show_weights=False))
    texture = clear
        density <= 0.3815: no
        density >  0.3815: yes
    texture = slightly_blurry
        surface = hard: no
        surface = soft: yes
    texture = blurry: no
    >>> model.predict(df[:2]).tolist()
    ['yes', 'yes']
    """,
    attributes="""
    classes_ : numpy.ndarray or list
        The class labels in code order (the column order of ``predict_proba``); a list of
        each output's for a multi-output y.
    n_classes_ : int or numpy.ndarray
        The number of classes (per output).
    """,
)
_docstrings.document(
    DecisionTreeRegressor,
    """A regression tree: squared error, Friedman's improvement, absolute error or Poisson
    deviance; ``algorithm`` picks how categorical features split.""",
    """
    See Also
    --------
    DecisionTreeClassifier : the classification tree.
    ExtraTreeRegressor : one random test per feature.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.DecisionTreeRegressor(max_depth=1).fit(X.drop("sugar"), X["sugar"])
    >>> print(model.export_text(decimals=3))
    texture = clear: 0.302 (9)
    texture not in {clear}: 0.113 (8)
    """,
)
_docstrings.document(
    ExtraTreeClassifier,
    """An extremely randomised classification tree (Geurts et al. 2006), as scikit-learn's:
    one random test per feature among ``max_features`` drawn per node, the best kept.""",
    """
    See Also
    --------
    DecisionTreeClassifier : the same estimator, whose defaults search exhaustively.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.ExtraTreeClassifier(random_state=0).fit(X, y)
    >>> model.splitter_, model.max_features_
    ('random', 2)
    >>> model.score(X, y)
    1.0
    """,
)
_docstrings.document(
    ExtraTreeRegressor,
    """An extremely randomised regression tree, as scikit-learn's ExtraTreeRegressor: one
    random test per feature, every feature searched.""",
    """
    See Also
    --------
    DecisionTreeRegressor : the same estimator, whose defaults search exhaustively.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.ExtraTreeRegressor(random_state=0).fit(X.drop("sugar"), X["sugar"])
    >>> model.splitter_, model.max_features_
    ('random', 7)
    """,
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
    """The estimator saved in a model file.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by ``model.save`` or ``quercus fit``.

    Returns
    -------
    DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier or ExtraTreeRegressor
        The estimator of the class that wrote it, fitted.

    Raises
    ------
    OSError
        The file cannot be read.
    QuercusError
        It is not a quercus model, or it is damaged (every size and index is checked before
        use).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "melons.qrc"
    >>> quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).save(path)
    >>> quercus.load(path)
    DecisionTreeClassifier(algorithm='id3')
    """
    with open(path, "rb") as file:
        return from_bytes(file.read())


def from_bytes(data: bytes | bytearray | memoryview) -> _BaseTree:
    """The estimator held in bytes written by ``model.to_bytes()``.

    Parameters
    ----------
    data : bytes, bytearray or memoryview
        The model's bytes.

    Returns
    -------
    DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier or ExtraTreeRegressor
        The estimator of the class that wrote it (of a class this quercus does not know:
        the classifier or regressor of its kind), fitted.

    Raises
    ------
    QuercusError
        Not a quercus model, or damaged.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> data = quercus.DecisionTreeRegressor().fit(X.drop("sugar"), X["sugar"]).to_bytes()
    >>> quercus.from_bytes(data)
    DecisionTreeRegressor()
    >>> quercus.from_bytes(b"not a model")
    Traceback (most recent call last):
    ...
    _core.QuercusError: cannot load the model: not a quercus model: it does not start with the
    magic bytes 89 51 52 43 0D 0A 1A 0A
    """
    stored = model_io.read(data)
    cls = _ESTIMATORS.get(stored.estimator)
    if cls is None or cls._estimator_type != stored.estimator_type:
        cls = (
            DecisionTreeClassifier
            if stored.estimator_type == "classifier"
            else DecisionTreeRegressor
        )
    return cls._restored(stored)
