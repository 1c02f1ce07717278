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

__all__ = ["load", "names"]


def names() -> list[str]:
    """The bundled data sets' names.

    Returns
    -------
    list of str
        The names :func:`load` accepts, sorted.

    Examples
    --------
    >>> import quercus
    >>> quercus.datasets.names()
    ['playtennis', 'restaurant', 'watermelon2', 'watermelon2alpha', 'watermelon3',
     'watermelon3alpha']
    """
    return sorted(f.name.removesuffix(_META) for f in _DATA.iterdir() if f.name.endswith(_META))


@overload
def load(name: str, *, return_X_y: Literal[False] = False) -> pl.DataFrame: ...
@overload
def load(name: str, *, return_X_y: Literal[True]) -> tuple[pl.DataFrame, pl.Series]: ...
def load(name: str, *, return_X_y: bool = False) -> pl.DataFrame | tuple[pl.DataFrame, pl.Series]:
    """A bundled data set of the source texts, as a Polars DataFrame.

    Nominal attributes and the target are ``pl.Enum`` columns in the texts' order of values,
    so class and category orders (and so ties) are the texts'; numeric ones Float64; missing
    cells null. The data's README lists each set's source and the figures the texts print.

    Parameters
    ----------
    name : str
        One of :func:`names`: ``watermelon2``, ``watermelon3``, ``watermelon2alpha``,
        ``watermelon3alpha`` (Zhou, Tables 4.1 and 4.3-4.5), ``playtennis`` (Mitchell,
        Table 3.2), ``restaurant`` (Russell & Norvig's WillWait).
    return_X_y : bool, default=False
        Return (X, y) split at the target column instead.

    Returns
    -------
    polars.DataFrame or tuple of (polars.DataFrame, polars.Series)
        The data, or its features and target.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon2", return_X_y=True)
    >>> X.shape, y.name, y.dtype
    ((17, 6), 'ripe', Enum(categories=['yes', 'no']))
    """
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
