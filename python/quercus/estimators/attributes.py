"""The fitted state of an estimator, read: its attributes, and the rows predictions take.

`FittedState` holds what every read of a fitted model shares: the `FittedTree` a fit left
(`_state`, which raises `NotFittedError` before fit), scikit-learn's fitted attributes, and
the conversion of X into what the core predicts from (`_rows`) with the call that runs it
(`_predicted`). The classifier and regressor add their own `predict` on top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .. import _core
from ..fitted.importance import variable_importance
from ..fitted.sklearn_view import TreeView, path_matrix, sklearn_flavoured
from ..fitted.state import FittedTree, is_dense
from ..inputs.arrow import arrow_rows, is_arrow_table
from ..inputs.encoding import transform
from ..inputs.frames import as_polars, is_records
from ..inputs.rows import SMALL_FRAME, frame_rows, is_pandas_frame, pandas_rows, small_frame
from ..inputs.sparse import is_sparse, sparse_rows
from ..inputs.values import n_rows_of
from ..scale.progress import Progress
from . import growth as _growth
from .parameters import Parameters

if TYPE_CHECKING:
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


class FittedState(Parameters):
    """What a fit leaves, read: the fitted attributes (`tree_`, `n_leaves_`,
    `feature_importances_`, ...), scikit-learn's fitted checks, and the rows that
    predictions read (`_rows`, `_predicted`: shared by `predict`, `apply` and the exports)."""

    _fitted: FittedTree

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
        """The names of the features some split tests (text 002 §1's complexity metrics): an
        oblique split's are those of its linear combination."""
        nodes = self.tree_.nodes()
        names = self._state.schema.names
        splits = nodes["n_children"] > 0
        oblique = splits & (nodes["kind"] == _core.OBLIQUE)
        used = set(nodes["feature"][splits & ~oblique].tolist())
        for node in np.flatnonzero(oblique):
            start, length = nodes["linear_offset"][node], nodes["linear_len"][node]
            used.update(nodes["linear_features"][start : start + length].tolist())
        return frozenset(names[j] for j in used)

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
        single leaf): Σ over the feature's splits of w(t)·I(t) - Σ_children w(c)·I(c)
        (`tree_.compute_feature_importances`); an oblique split credits no feature."""
        return self.tree_.compute_feature_importances()

    @property
    def variable_importance_(self) -> dict[str, float]:
        """rpart's ``variable.importance``: per feature, largest first, the improvements of
        the splits on it plus, for every split one of its surrogates stands in for, the
        split's improvement times the surrogate's adjusted agreement; features that never
        split nor stand in are left out. A split's improvement is the decrease of weighted
        impurity among the rows that know its feature (rpart's ``improve``; the deviance it
        removes, for a regression), entropies in nats as rpart's information index, a node
        weighed by altered priors under ``altered_priors=True``; an oblique split credits no
        feature. Unlike ``feature_importances_`` it is not normalised and credits
        surrogates."""
        core = self.tree_.core
        costs = None
        cost_list = getattr(self, "_cost_list", None)
        if getattr(self, "altered_priors", False) and cost_list is not None:
            listed = cost_list(core.n_classes)
            if listed is not None:
                costs = np.asarray(listed, dtype=np.float64).reshape(core.n_classes, -1)
        return variable_importance(core, list(self._state.schema.names), costs)

    def _columns(self, X: Any) -> list[_core.Column]:
        return transform(X, self._state.schema)

    def _rows(self, X: Any) -> Rows:
        """X as the core reads it: a contiguous float NumPy matrix as it is (no copy) when it
        needs no encoding, a sparse X as CSR arrays (never densified), a small Polars frame
        as one coded array (`small_frame`), a larger one as its columns read in place
        (`frame_rows`), a small pandas frame of float features as one matrix, a pandas frame
        or a pyarrow table as its columns read in place (`pandas_rows`, `arrow_rows`), else
        its encoded columns."""
        if type(X) is list and not is_records(X):  # nested lists: the encoding's array
            X = np.asarray(X)
        if type(X) is not pl.DataFrame:  # the commonest frame skips the other kinds' tests
            if is_dense(X, self._state):
                return X
            if is_pandas_frame(X):
                if len(X) <= SMALL_FRAME and X.shape[1] == self._state.dense_width:
                    # A few rows of float columns in fit order: one matrix, made in a few
                    # µs, where reading the frame column by column costs about 10 µs a
                    # column.
                    values = np.ascontiguousarray(X.to_numpy())
                    names = self._state.schema.names
                    if is_dense(values, self._state) and X.columns.tolist() == names:
                        return values
                rows = pandas_rows(X, self._state.schema)
                if rows is not None:
                    return rows
            elif is_arrow_table(X):
                rows = arrow_rows(X, self._state.schema)
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
        tree = self._state.tree
        smooth = getattr(self, "laplace", False)  # the classifier's (a one-row call: no check)
        if method == "predict_proba" and smooth is not False and self._param("laplace"):
            tree = self._state.laplace_tree  # J48 -A: only the probabilities are smoothed
        run = getattr(tree, method)
        n_jobs = self._threads()
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
