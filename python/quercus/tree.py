"""The estimators and `split_scores`.

Parameters are checked here, inputs are converted in `_validation` and trees are grown in
`_core`, so this module stays a thin layer of scikit-learn conventions.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np
import polars as pl
from numpy.typing import NDArray

from . import _core, render
from ._validation import (
    Schema,
    TrainingData,
    n_rows_of,
    regression_targets,
    sample_weights,
    target_values,
    training_data,
    transform,
)

_Estimator = TypeVar("_Estimator", bound="_BaseTree")

_SPLITS = {"id3": "multiway", "c4.5": "multiway", "cart": "binary"}  # algorithm presets
_CATEGORICAL_SPLITS = ("multiway", "binary")
_CRITERIA = ("entropy", "gain_ratio", "gini", "misclassification", "squared_error")
_SCORE_COLUMNS = ("score", "gain", "iv", "threshold", "rho")


class NotFittedError(ValueError, AttributeError):
    """Raised when an unfitted estimator is used; catchable like scikit-learn's."""


@dataclass(frozen=True)
class _Params:
    """Validated parameters, named exactly as `_core`'s fit keywords."""

    criterion: str
    categorical_split: str
    max_depth: int | None
    min_samples_split: int
    min_samples_leaf: int
    max_exhaustive_categories: int


@dataclass(frozen=True)
class _Fitted:
    tree: _core.Tree
    schema: Schema
    classes: NDArray[Any] | None


class _BaseTree(ABC):
    """Parameters, fitting and the rendering shared by both estimators."""

    _estimator_type: ClassVar[Literal["classifier", "regressor"]]
    _default_criteria: ClassVar[dict[str, str]]  # algorithm -> criterion when None
    _criteria: ClassVar[tuple[str, ...]]
    _fitted: _Fitted

    def __init__(
        self,
        *,
        algorithm: str = "cart",
        criterion: str | None = None,
        categorical_split: str | None = None,
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        max_exhaustive_categories: int = 12,
    ) -> None:
        self.algorithm = algorithm
        self.criterion = criterion
        self.categorical_split = categorical_split
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_exhaustive_categories = max_exhaustive_categories

    @classmethod
    def _parameters(cls) -> list[inspect.Parameter]:
        return [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters (scikit-learn protocol; `deep` has nothing to recurse)."""
        return {p.name: getattr(self, p.name) for p in self._parameters()}

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
            f"{p.name}={getattr(self, p.name)!r}"
            for p in self._parameters()
            if getattr(self, p.name) != p.default
        )
        return f"{type(self).__name__}({', '.join(changed)})"

    def _validated_params(self) -> _Params:
        algorithm = _choice("algorithm", self.algorithm, tuple(_SPLITS))
        criterion = self._default_criteria[algorithm] if self.criterion is None else self.criterion
        split = _SPLITS[algorithm] if self.categorical_split is None else self.categorical_split
        return _Params(
            criterion=_choice("criterion", criterion, self._criteria),
            categorical_split=_choice("categorical_split", split, _CATEGORICAL_SPLITS),
            max_depth=None if self.max_depth is None else _int("max_depth", self.max_depth, 1),
            min_samples_split=_int("min_samples_split", self.min_samples_split, 2),
            min_samples_leaf=_int("min_samples_leaf", self.min_samples_leaf, 1),
            max_exhaustive_categories=_int(
                "max_exhaustive_categories", self.max_exhaustive_categories, 2
            ),
        )

    def fit(
        self: _Estimator,
        X: Any,
        y: Any = None,
        *,
        sample_weight: Any = None,
        target: str | None = None,
    ) -> _Estimator:
        """Grow the tree; `target` names the column of a Polars X that holds y."""
        params = self._validated_params()
        data = training_data(
            X,
            y,
            target=target,
            sample_weight=sample_weight,
            classification=params.criterion != "squared_error",
        )
        self._fitted = _Fitted(self._grow(data, params), data.schema, data.classes)
        return self

    @abstractmethod
    def _grow(self, data: TrainingData, params: _Params) -> _core.Tree: ...

    @property
    def _state(self) -> _Fitted:
        try:
            return self._fitted
        except AttributeError:
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit first"
            ) from None

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "_fitted")

    def __sklearn_tags__(self) -> Any:
        """Lets scikit-learn's utilities (clone, check_is_fitted, cross_val_score) use us;
        scikit-learn is imported only when it asks, so it stays an optional dependency."""
        from sklearn.utils import ClassifierTags, InputTags, RegressorTags, Tags, TargetTags

        classifier = self._estimator_type == "classifier"
        return Tags(
            estimator_type=self._estimator_type,
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags() if classifier else None,
            regressor_tags=None if classifier else RegressorTags(),
            input_tags=InputTags(allow_nan=True, categorical=True, string=True),
        )

    @property
    def tree_(self) -> _core.Tree:
        return self._state.tree

    @property
    def n_features_in_(self) -> int:
        return len(self._state.schema.features)

    @property
    def feature_names_in_(self) -> NDArray[np.object_]:
        return np.array(self._state.schema.names, dtype=object)

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

    def apply(self, X: Any) -> NDArray[np.int64]:
        """Id of the leaf each row reaches (the one holding most of its weight)."""
        return self.tree_.apply(self._columns(X))

    def _labels(self) -> list[Any] | None:
        classes = self._state.classes
        return None if classes is None else classes.tolist()

    def export_text(self, *, decimals: int = 4, show_weights: bool = True) -> str:
        """The tree as indented text, one line per node, as the textbooks draw it."""
        return render.export_text(
            self.tree_.nodes(),
            self._state.schema.features,
            self._labels(),
            decimals=decimals,
            show_weights=show_weights,
        )

    def rules(self) -> list[render.Rule]:
        """One `Rule` per leaf: the conjunction of tests on its path and its prediction."""
        state = self._state
        return render.rules(
            state.tree.nodes(), state.schema.features, self._labels(), state.schema.target
        )

    def export_rules(self, *, decimals: int = 4) -> str:
        return "\n".join(rule.format(decimals) for rule in self.rules())

    def node_scores(self, node_id: int) -> pl.DataFrame:
        """The candidate score of every feature when `node_id` was grown (as `split_scores`)."""
        return _score_frame(self._state.schema.names, self.tree_.node_scores(node_id))


class DecisionTreeClassifier(_BaseTree):
    """A classification tree: ID3, C4.5 or CART by `algorithm`, any criterion by name."""

    _estimator_type = "classifier"
    _default_criteria: ClassVar[dict[str, str]] = {
        "id3": "entropy",
        "c4.5": "gain_ratio",
        "cart": "gini",
    }
    _criteria: ClassVar[tuple[str, ...]] = _CRITERIA[:4]

    def _grow(self, data: TrainingData, params: _Params) -> _core.Tree:
        return _core.fit_classifier(
            data.columns, data.y, data.n_classes, data.sample_weight, **asdict(params)
        )

    @property
    def classes_(self) -> NDArray[Any]:
        classes = self._state.classes
        assert classes is not None  # always set by a classifier's fit
        return classes

    @property
    def n_classes_(self) -> int:
        return len(self.classes_)

    def predict(self, X: Any) -> NDArray[Any]:
        """The most probable class label of each row (missing values: C4.5 fractions)."""
        return self.classes_[self.tree_.predict_class(self._columns(X))]

    def predict_proba(self, X: Any) -> NDArray[np.float64]:
        """Class probabilities, columns in `classes_` order."""
        return self.tree_.predict_proba(self._columns(X))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy, weighted by `sample_weight`."""
        columns = self._columns(X)
        n_rows = n_rows_of(columns)
        correct = self.classes_[self.tree_.predict_class(columns)] == target_values(y, n_rows)
        return float(np.average(correct, weights=sample_weights(sample_weight, n_rows)))


class DecisionTreeRegressor(_BaseTree):
    """A regression tree (squared error); `algorithm` only picks the categorical split."""

    _estimator_type = "regressor"
    _default_criteria: ClassVar[dict[str, str]] = dict.fromkeys(_SPLITS, "squared_error")
    _criteria: ClassVar[tuple[str, ...]] = ("squared_error",)

    def _grow(self, data: TrainingData, params: _Params) -> _core.Tree:
        return _core.fit_regressor(data.columns, data.y, data.sample_weight, **asdict(params))

    def predict(self, X: Any) -> NDArray[np.float64]:
        """The weighted mean target of the leaves each row reaches."""
        return self.tree_.predict_value(self._columns(X))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Coefficient of determination R^2, weighted by `sample_weight`."""
        columns = self._columns(X)
        n_rows = n_rows_of(columns)
        truth = regression_targets(y, n_rows)
        weights = sample_weights(sample_weight, n_rows)
        residual = np.sum(weights * (truth - self.tree_.predict_value(columns)) ** 2)
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

    The textbooks' Gain / Gain_ratio / Gini_index tables; `criterion="squared_error"` takes a
    regression y.
    """
    criterion = _choice("criterion", criterion, _CRITERIA)
    categorical_split = _choice("categorical_split", categorical_split, _CATEGORICAL_SPLITS)
    data = training_data(
        X,
        y,
        target=None,
        sample_weight=sample_weight,
        classification=criterion != "squared_error",
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


def _choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def _int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)
