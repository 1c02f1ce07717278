"""The estimators' base classes: scikit-learn's own when it is installed.

With scikit-learn importable, quercus's estimators are `sklearn.base.BaseEstimator`s and
classifier / regressor mixins, so every scikit-learn tool (clone, pipelines, the estimator
checks, meta-estimators, HTML display) treats them as its own. Without it they stand alone:
the estimators implement the protocol themselves (`get_params`, `set_params`, `score`,
`__sklearn_tags__`), so the empty fallbacks below are all they need. This is how LightGBM's
scikit-learn interface stays usable without scikit-learn.

The cost is scikit-learn's import time (about a second) on `import quercus` when it is
installed; quercus has no way to become a scikit-learn estimator later.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["SKLEARN", "ClassifierBase", "DataConversionWarning", "EstimatorBase", "RegressorBase"]

if TYPE_CHECKING:

    class EstimatorBase: ...

    class ClassifierBase: ...

    class RegressorBase: ...

    class DataConversionWarning(UserWarning): ...

    SKLEARN: bool

else:
    try:
        from sklearn.base import BaseEstimator as EstimatorBase
        from sklearn.base import ClassifierMixin as ClassifierBase
        from sklearn.base import RegressorMixin as RegressorBase
        from sklearn.exceptions import DataConversionWarning

        SKLEARN = True
    except ImportError:  # scikit-learn is optional

        class EstimatorBase:
            """Stands for scikit-learn's BaseEstimator: the estimators define the protocol."""

        class ClassifierBase:
            """Stands for scikit-learn's ClassifierMixin."""

        class RegressorBase:
            """Stands for scikit-learn's RegressorMixin."""

        class DataConversionWarning(UserWarning):
            """Stands for scikit-learn's warning that input data was reshaped or cast."""

        SKLEARN = False
