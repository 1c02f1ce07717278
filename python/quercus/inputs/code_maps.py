"""Maps from a frame's own category codes to the fit's codes: the labels of an Enum, a
dictionary or a pandas `category` dtype looked up among the fit's categories (made once per
dtype), and a Polars Categorical's physical codes through the process's global categories
(made at each call). A code the fit never saw maps to `UNSEEN`, which the core reads as
missing."""

from __future__ import annotations

import functools

import numpy as np
import polars as pl
from numpy.typing import NDArray

# A code that reads as missing: past every map and every feature's categories.
UNSEEN = int(np.iinfo(np.uint32).max)


@functools.lru_cache(maxsize=256)
def labels_map(categories: tuple[str, ...], given: tuple[str, ...]) -> NDArray[np.uint32] | None:
    """The fit's code of each category of an Enum of categories `given` (a category the fit
    never saw: `UNSEEN`); None when the Enum is the fit's own."""
    if given == categories:
        return None
    index = {label: code for code, label in enumerate(categories)}
    code_map = np.array([index.get(label, UNSEEN) for label in given], dtype=np.uint32)
    code_map.flags.writeable = False  # shared by every call with this dtype
    return code_map


# A Categorical's code map may have this many entries per row of the frame, and this many
# more, before a pass over the rows (a cast through the fit's Enum) costs less than filling
# it.
_MAP_PER_ROW = 8
_MAP_FLOOR = 1 << 16


def categorical_map(
    categories: tuple[str, ...], given: pl.Categories, n_rows: int
) -> NDArray[np.uint32] | None:
    """The fit's code of each physical code of a Categorical of categories `given` (a code
    the fit never saw, or past the map: missing), found by looking each of the fit's
    categories up in `given` (which may hold millions of strings: the global categories
    hold every string any Categorical of the process took); made per call: `given` grows
    as the process goes, and Polars frees a string no Series holds any more and gives its
    code to the next new one (a map kept between calls read rows wrongly). None when the
    map would hold more than `_MAP_PER_ROW` entries a row (the fit's categories came late
    to a large `given`)."""
    physical = np.fromiter(
        (given[label] if label in given else -1 for label in categories),
        dtype=np.int64,
        count=len(categories),
    )
    size = int(physical.max(initial=-1)) + 1
    if size > _MAP_PER_ROW * n_rows + _MAP_FLOOR:
        return None
    code_map = np.full(size, UNSEEN, dtype=np.uint32)
    known = physical >= 0
    code_map[physical[known]] = np.flatnonzero(known)
    return code_map
