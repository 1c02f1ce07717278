"""The estimators: `DecisionTreeClassifier`, `DecisionTreeRegressor` and their extremely
randomised twins, with `split_scores` and the readers of saved models.

The estimators are assembled here from the pieces in `quercus.estimators` (parameters,
fitted state, fitting, pruning, exports, persistence); this module adds what differs between
a classifier and a regressor: the criteria, class weights and costs, `predict` and `score`.
It is the public path of the estimator classes, which pickles name.
"""

from __future__ import annotations

import inspect
from abc import ABC
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from . import _core
from ._choices import CLASS_CRITERIA, REGRESSION_CRITERIA, Splitter
from .estimators import docstrings as _docstrings
from .estimators.attributes import NotFittedError as NotFittedError
from .estimators.base import ClassifierBase, EstimatorBase, RegressorBase
from .estimators.constraints import ArrayLike, Boolean, Constraints, Dict, Dicts, Options
from .estimators.exports import Exports
from .estimators.parameters import CONSTRAINTS, SPLITS, extended_signature, with_defaults
from .estimators.persistence import Persistence
from .estimators.pruning_methods import Pruning
from .estimators.pruning_methods import PruningPath as PruningPath
from .estimators.scores import split_scores as split_scores
from .export import model_io, native
from .fitted.state import FittedTree
from .inputs import weights
from .inputs.schema import Classes, TrainingData, class_counts
from .inputs.targets import output_columns, regression_targets, target_values
from .inputs.values import n_rows_of
from .inputs.weights import sample_weights

if TYPE_CHECKING:
    from os import PathLike

    from .estimators.attributes import Rows


class _BaseTree(Persistence, Exports, Pruning, EstimatorBase, ABC):
    """Both estimators' shared behaviour, one concern a base: the parameters
    (`estimators.parameters`), the fitted state (`estimators.attributes`), fitting
    (`estimators.fitting`), pruning (`estimators.pruning_methods`), the exports
    (`estimators.exports`) and the model format and pickling (`estimators.persistence`)."""


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
        **CONSTRAINTS,
        "criterion": (Options(CLASS_CRITERIA), None),
        "cost_matrix": (ArrayLike(), None),  # its shape is checked against the classes
        # a dict, "balanced", or one dict per output of a multi-output y
        "class_weight": (Options(("balanced",)), Dict(), Dicts(), None),
        "priors": (Dict(), ArrayLike(), None),  # checked against the classes at fit
        "altered_priors": (Boolean(),),
        "laplace": (Boolean(),),
        "ccp_risk": (Options(("impurity", "misclassification")),),
    }

    def __init__(
        self,
        *,
        cost_matrix: Any = None,
        class_weight: Any = None,
        priors: Any = None,
        altered_priors: bool = False,
        laplace: bool = False,
        **params: Any,
    ) -> None:
        super().__init__(**params)
        self.cost_matrix = cost_matrix
        self.class_weight = class_weight
        self.priors = priors
        self.altered_priors = altered_priors
        self.laplace = laplace

    # scikit-learn (and get_params) read the parameters from the signature: show them all.
    __init__.__signature__ = extended_signature(  # type: ignore[attr-defined]
        _BaseTree.__init__,
        {
            "cost_matrix": None,
            "class_weight": None,
            "priors": None,
            "altered_priors": False,
            "laplace": False,
        },
    )

    def _reweighted(self, data: TrainingData) -> TrainingData:
        """A multi-output y's data with `class_weight` folded into its row weights
        (`quercus.inputs.weights.output_weighted`)."""
        if self.class_weight is None:
            return data
        return weights.output_weighted(data, self.class_weight)

    def _class_factors(self, data: TrainingData) -> NDArray[np.float64] | None:
        """The factor each class's row weights are multiplied by: `class_weight` or `priors`
        (`quercus.inputs.weights.class_factors`), given alone. They re-weight the criterion
        and the leaves; the size rules still count rows."""
        if self.class_weight is not None and self.priors is not None:
            raise ValueError(
                "class_weight and priors both re-weight the classes; give one of them "
                "(priors π are class_weight π_k / f_k, f_k the class's share of the rows)"
            )
        if self.altered_priors and self.cost_matrix is None:
            raise ValueError("altered_priors=True puts cost_matrix into the split: give one")
        return weights.class_factors(data, self.class_weight, self.priors)

    def _rpart_priors(self, data: TrainingData) -> list[float] | None:
        """`priors` in class order, as given: rpart's arithmetic rebuilds its altered priors
        from them (the factors of `_class_factors` cannot give their bits back)."""
        if self.priors is None:
            return None
        return weights.prior_values(self.priors, data).tolist()

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
    _default_criteria: ClassVar[dict[str, str]] = dict.fromkeys(SPLITS, "squared_error")
    _constraints: ClassVar[dict[str, Constraints]] = {
        **CONSTRAINTS,
        "criterion": (Options(REGRESSION_CRITERIA), None),
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


class ExtraTreeClassifier(DecisionTreeClassifier):
    # The docstring, with every parameter, is assembled below the class (`_docstrings`).

    def __init__(
        self, *, splitter: Splitter = "random", max_features: Any = "sqrt", **params: Any
    ) -> None:
        super().__init__(splitter=splitter, max_features=max_features, **params)

    __init__.__signature__ = with_defaults(  # type: ignore[attr-defined]
        inspect.signature(DecisionTreeClassifier.__init__),
        splitter="random",
        max_features="sqrt",
    )


class ExtraTreeRegressor(DecisionTreeRegressor):
    # The docstring, with every parameter, is assembled below the class (`_docstrings`).

    def __init__(
        self, *, splitter: Splitter = "random", max_features: Any = 1.0, **params: Any
    ) -> None:
        super().__init__(splitter=splitter, max_features=max_features, **params)

    __init__.__signature__ = with_defaults(  # type: ignore[attr-defined]
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
