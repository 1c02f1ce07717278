"""The parameters the estimators declare: their values, their presets and how they are read.

Every parameter both estimators take is declared once, with the values it accepts, in
`CONSTRAINTS` (each estimator narrows or extends it), and checked in one place
(`Parameters._checked`), where the algorithm presets (`id3`, `c4.5`, `cart`, `optimal`) fill
in what was left None. What the core reads comes out as `GrowthParams` and
`PruningSettings`.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from .._choices import (
    CRITERIA,
    PRUNINGS,
    SPLITTERS,
    STRATEGIES,
    Algorithm,
    CategoricalSplit,
    CcpRisk,
    CcpSequence,
    Conventions,
    Criterion,
    FeatureShare,
    Missing,
    Prepruning,
    Pruning,
    Splits,
    Splitter,
)
from ..inputs import missing as _missing
from . import growth as _growth
from .constraints import (
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

if TYPE_CHECKING:
    from ..inputs.schema import TrainingData


# algorithm presets; "optimal" is the branch and bound of rust/core/src/optimal (subsets)
SPLITS = {"id3": "multiway", "c4.5": "multiway", "cart": "binary", "optimal": "binary"}
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
# The core's limit on threads (params.rs MAX_JOBS): beyond the cores they only cost memory.
_MAX_JOBS = 1024

# Every parameter both estimators take, with the values it accepts (None: "not set", which
# for `_PRESETS` means the algorithm's choice). Checked together at fit by `_checked`.
CONSTRAINTS: dict[str, Constraints] = {
    "algorithm": (Options(tuple(SPLITS)),),
    "criterion": (Options(CRITERIA), None),  # each estimator narrows it to its own
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
    "pruning": (Options(PRUNINGS), None),
    "ccp_alpha": (Real(0.0),),
    "ccp_risk": (Options(("impurity",)),),  # the classifier adds "misclassification"
    "ccp_sequence": (Options(("weakest_link", "rpart")),),
    "confidence": (Real(0.0, 0.5, open_low=True),),
    "prune_ties": (Boolean(),),
    "pruning_folds": (Integer(2), None),
    "subtree_raising": (Boolean(),),
    "collapse": (Boolean(), None),
    "splits": (Options(("axis", "oblique")),),
    "missing": (Options(STRATEGIES), None),
    "max_surrogates": (Integer(0, 64),),
    "drop_features_above": (Real(0.0, 1.0), None),
    "splitter": (Options(SPLITTERS),),
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


def extended_signature(base: Any, extra: dict[str, Any]) -> inspect.Signature:
    """`base`'s signature plus keyword-only parameters `extra` (name -> default)."""
    signature = inspect.signature(base)
    kind = inspect.Parameter.KEYWORD_ONLY
    added = [inspect.Parameter(n, kind, default=d) for n, d in extra.items()]
    return signature.replace(parameters=[*signature.parameters.values(), *added])


def with_defaults(signature: inspect.Signature, **defaults: Any) -> inspect.Signature:
    """`signature` with the defaults of the parameters named in `defaults` replaced."""
    return signature.replace(
        parameters=[
            p.replace(default=defaults[p.name]) if p.name in defaults else p
            for p in signature.parameters.values()
        ]
    )


def threads(n_jobs: int | None) -> int | None:
    """A checked `n_jobs` as the core counts threads: None for every core, else a count
    (-2 is all cores but one, and so on)."""
    if n_jobs is None or n_jobs > 0:
        return n_jobs
    cores = os.cpu_count() or 1
    return None if n_jobs == -1 else max(1, cores + 1 + n_jobs)


@dataclass(frozen=True)
class GrowthParams:
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
    # The whole data's row weights, every row, that a cross-validation fold's fit computes
    # rpart's class shares from (as rpart's `xval.c` keeps them); None: the fit's own.
    prior_weights: list[float] | None = None
    # rpart's priors as given, in class order (`_rpart_priors`), for its arithmetic's ties.
    priors: list[float] | None = None
    # The rows of weight 0 are J48 -R's pruning set (`pruning_folds`), which J48's thresholds
    # and its count of instances take (the core's `TreeParams::j48_pruning_set`).
    j48_pruning_set: bool = False


@dataclass(frozen=True)
class PruningSettings:
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


class Parameters:
    """The parameters both estimators take: declared in `__init__` and in the class's
    constraint table, checked together (`_checked`) when a fit or a method needs them, and read
    and set by scikit-learn's protocol (`get_params`, `set_params`, `clone`)."""

    _estimator_type: ClassVar[Literal["classifier", "regressor"]]
    _default_criteria: ClassVar[dict[str, str]]  # algorithm -> criterion when None
    _constraints: ClassVar[dict[str, Constraints]] = CONSTRAINTS

    def __init__(
        self,
        *,
        algorithm: Algorithm = "cart",
        criterion: Criterion | None = None,
        categorical_split: CategoricalSplit | None = None,
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
        conventions: Conventions | None = None,
        prepruning: Prepruning | None = None,
        pruning: Pruning | None = None,
        ccp_alpha: float = 0.0,
        ccp_risk: CcpRisk = "impurity",
        ccp_sequence: CcpSequence = "weakest_link",
        confidence: float = 0.25,
        prune_ties: bool = True,
        pruning_folds: int | None = None,
        subtree_raising: bool = True,
        collapse: bool | None = None,
        splits: Splits = "axis",
        missing: Missing | None = None,
        max_surrogates: int = 5,
        drop_features_above: float | None = None,
        splitter: Splitter = "best",
        max_features: int | float | FeatureShare | None = None,
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
        self.pruning_folds = pruning_folds
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

    def _threads(self) -> int | None:
        """`n_jobs` as the core counts threads, checked only when it is set."""
        n_jobs = self.n_jobs
        if n_jobs is None or (type(n_jobs) is int and n_jobs > 0):
            return n_jobs  # valid as it is: a one-row call pays no check
        return threads(self._param("n_jobs"))

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

    def set_params(self, **params: Any) -> Self:
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
            "categorical_split": SPLITS[algorithm],
            "missing": _MISSING[algorithm],
            **(_C45 if c45 else _NO_C45),
        }
        if checked["pruning"] == "reduced_error":
            # J48 -R grows a `PruneableClassifierTree`, which never collapses.
            presets["collapse"] = False
        for name in _PRESETS:
            if checked[name] is None:
                checked[name] = presets[name]
        # The texts' algorithms are defined by their exact midpoints (and J48's thresholds):
        # they search exactly at every size; only an explicit "hist" bins.
        if algorithm in _EXACT_PRESETS and checked["splitter"] in ("best", "auto"):
            checked["splitter"] = "exact"
        return checked

    def _validated_params(self, checked: dict[str, Any], data: TrainingData) -> GrowthParams:
        """The growth parameters as the core reads them, resolved against the training data
        as scikit-learn resolves them (shares of rows and features, the seed)."""
        return self._params_for(checked, len(data.y), len(data.columns), data.n_classes)

    def _params_for(
        self, checked: dict[str, Any], n_rows: int, n_features: int, n_classes: int | list[int]
    ) -> GrowthParams:
        """`_validated_params` for data of this shape (a streamed fit has no TrainingData)."""
        return GrowthParams(
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
            n_jobs=threads(checked["n_jobs"]),
            max_features=_growth.max_features(checked["max_features"], n_features),
            random_state=_growth.seed(checked["random_state"]),
            monotonic_cst=_growth.monotonic_cst(checked["monotonic_cst"], n_features, n_classes),
            max_time=checked["max_time"],
        )

    def _cost_list(self, n_classes: int | list[int]) -> list[float] | None:
        """The classifier's cost matrix, row-major; the regressor has none."""
        return None

    @staticmethod
    def _validated_pruning(checked: dict[str, Any]) -> PruningSettings:
        method, alpha = checked["pruning"], checked["ccp_alpha"]
        if method == "none" and alpha > 0:
            method = "cost_complexity"  # as in scikit-learn, a positive ccp_alpha prunes
        return PruningSettings(
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
