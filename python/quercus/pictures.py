"""The tree as a picture: SVG laid out by quercus, or Graphviz DOT (`quercus.explain.pictures`
holds the code)."""

from __future__ import annotations

from .explain.pictures import (
    DEFAULT_WIDTH,
    PALETTE,
    PICTURE_CATEGORIES,
    to_dot,
    to_svg,
)

__all__ = ["DEFAULT_WIDTH", "PALETTE", "PICTURE_CATEGORIES", "to_dot", "to_svg"]
