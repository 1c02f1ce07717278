"""Pruning a fitted estimator: `prune()`'s pruned copies, the minimal cost-complexity path
(`PruningPath`) and its cross-validation (`quercus.pruning`'s cp table)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Self, cast

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._choices import PRUNINGS
from ..pruning import CostComplexityCV, cross_validate
from .constraints import Options, check
from .fitting import Fitting
from .parameters import CONSTRAINTS, PruningSettings
from .post_pruning import CONSTRAINED_PESSIMISTIC, post_prune


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


class Pruning(Fitting):
    """Pruning after fit: a pruned copy (`prune`), the cost-complexity path, and its
    cross-validation (rpart's cp table, `quercus.pruning`)."""

    def prune(
        self,
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
    ) -> Self:
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
            raise ValueError(CONSTRAINED_PESSIMISTIC)
        # The fit's own alpha is the floor of rpart's sequence (`prune.rpart` reads the
        # complexities the fit computed).
        fitted = self._validated_pruning(self._checked())
        pruning = PruningSettings(
            method=check("method", method, (Options(PRUNINGS[1:]),)),
            ccp_alpha=check("ccp_alpha", ccp_alpha, CONSTRAINTS["ccp_alpha"]),
            ccp_risk=fitted.ccp_risk,
            ccp_sequence=fitted.ccp_sequence,
            floor=fitted.floor,
            confidence=check("confidence", confidence, CONSTRAINTS["confidence"]),
            prune_ties=check("prune_ties", prune_ties, CONSTRAINTS["prune_ties"]),
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
        pruned._fitted = post_prune(state, pruning, held_out, training, costs, self._threads())
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

        return cross_validate(self, X, y, folds, sample_weight, target, random_state)
