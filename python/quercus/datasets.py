"""The textbooks' small data sets, shipped inside the package.

Nominal attributes and the target load as `pl.Enum` in the order of the `.meta.json` files,
so class and category orders (and thus tie-breaking) match the texts.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Literal, overload

import polars as pl

_DATA = resources.files("quercus") / "data"
_META = ".meta.json"


def names() -> list[str]:
    """The names `load` accepts."""
    return sorted(f.name.removesuffix(_META) for f in _DATA.iterdir() if f.name.endswith(_META))


@overload
def load(name: str, *, return_X_y: Literal[False] = False) -> pl.DataFrame: ...
@overload
def load(name: str, *, return_X_y: Literal[True]) -> tuple[pl.DataFrame, pl.Series]: ...
def load(name: str, *, return_X_y: bool = False) -> pl.DataFrame | tuple[pl.DataFrame, pl.Series]:
    """The data set `name` as a DataFrame, or as (X, y) split at its target column."""
    if name not in names():
        raise ValueError(f"unknown data set {name!r}; choose one of {', '.join(names())}")
    meta = json.loads((_DATA / f"{name}{_META}").read_text(encoding="utf-8"))
    schema = {
        attribute["name"]: pl.Enum(attribute["values"])
        if attribute["type"] == "nominal"
        else pl.Float64
        for attribute in meta["attributes"]
    }
    frame = pl.read_csv((_DATA / f"{name}.csv").read_bytes(), schema=schema)
    if return_X_y:
        return frame.drop(meta["target"]), frame.get_column(meta["target"])
    return frame
