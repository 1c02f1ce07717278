"""The tree as a picture: SVG laid out by quercus, or Graphviz DOT.

The public path of the picture functions; the code is in `quercus.explain` (`pictures`: what
a picture shows of each node; `svg` and `dot`: the two ways of drawing it).
"""

from __future__ import annotations

from .explain.dot import to_dot
from .explain.drawing import PALETTE, PICTURE_CATEGORIES
from .explain.svg import DEFAULT_WIDTH, to_svg

__all__ = ["DEFAULT_WIDTH", "PALETTE", "PICTURE_CATEGORIES", "to_dot", "to_svg"]
