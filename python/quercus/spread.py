"""A regression tree's spread of the target per node, as its pictures draw it
(`quercus.explain.spread` holds the code)."""

from __future__ import annotations

from .explain.spread import (
    QUANTILES,
    Source,
    Spread,
    carried,
    of_rows,
    of_tree,
    recorded,
    unpickled,
)

__all__ = ["QUANTILES", "Spread"]
