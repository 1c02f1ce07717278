"""quercus: decision trees the way the literature defines them (ID3, C4.5, CART).

The Rust core (`quercus._core`) grows and queries the trees; this package converts inputs,
follows scikit-learn's estimator conventions and renders trees as the textbooks print them.
"""

from . import datasets
from ._core import QuercusError
from ._validation import DataConversionWarning
from .model_io import from_bytes, load
from .native import predict_expr
from .rules import RuleSet
from .tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
    NotFittedError,
    split_scores,
)

__version__ = "0.1.0"

__all__ = [
    "DataConversionWarning",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreeClassifier",
    "ExtraTreeRegressor",
    "NotFittedError",
    "QuercusError",
    "RuleSet",
    "__version__",
    "datasets",
    "from_bytes",
    "load",
    "predict_expr",
    "split_scores",
]
