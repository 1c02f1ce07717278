"""quercus: decision trees the way the literature defines them (ID3, C4.5, CART).

The Rust core (`quercus._core`) grows and queries the trees; this package converts inputs,
follows scikit-learn's estimator conventions and renders trees as the textbooks print them.

Names are loaded on first use (PEP 562): the estimators import scikit-learn's base classes
when it is installed, which takes about a second, and `import quercus` alone (the command
line starting up, `quercus.load`-only services) should not pay for it before it needs to.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Each public name and the module that defines it.
_NAMES = {
    "DecisionTreeClassifier": "tree",
    "DecisionTreeRegressor": "tree",
    "ExtraTreeClassifier": "tree",
    "ExtraTreeRegressor": "tree",
    "InvalidParameterError": "estimators.constraints",
    "NotFittedError": "tree",
    "QuercusError": "_core",
    "RuleSet": "rules",
    "datasets": None,
    "from_bytes": "tree",
    "load": "tree",
    "predict_expr": "native",
    "split_scores": "tree",
}

__all__ = [
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreeClassifier",
    "ExtraTreeRegressor",
    "InvalidParameterError",
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

if TYPE_CHECKING:
    from . import datasets
    from ._core import QuercusError
    from .estimators.constraints import InvalidParameterError
    from .native import predict_expr
    from .rules import RuleSet
    from .tree import (
        DecisionTreeClassifier,
        DecisionTreeRegressor,
        ExtraTreeClassifier,
        ExtraTreeRegressor,
        NotFittedError,
        from_bytes,
        load,
        split_scores,
    )


# Public modules reachable as attributes before anything imports them
# (`except quercus.serving.NotServableError` after `import quercus`).
_MODULES = ("model_io", "native", "pictures", "pruning", "render", "rules", "serving", "spread")


def __getattr__(name: str) -> Any:
    if name not in _NAMES and name not in _MODULES:
        raise AttributeError(f"module 'quercus' has no attribute {name!r}")
    module = _NAMES.get(name)
    if module is None:  # a submodule of its own
        value: Any = importlib.import_module(f".{name}", __name__)
    else:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    # The public names only: not this module's own imports (`importlib`, `Any`, ...).
    return sorted(__all__)
