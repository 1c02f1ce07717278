"""Where pickles written before the package's folders find the schema classes.

A pickled `RuleSet` names the classes of its schema by the module that defined them then,
`quercus._validation`; they now live in `quercus.inputs.schema`.
"""

from __future__ import annotations

from .inputs.schema import Feature, Schema

__all__ = ["Feature", "Schema"]
