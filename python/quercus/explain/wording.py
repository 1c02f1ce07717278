"""How rules and trees write values: numbers, bounds, category lists, predictions and weights in
text, and identifiers, strings and values quoted for SQL and Polars.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from ..inputs.schema import Feature
from ..inputs.temporal import time_text

if TYPE_CHECKING:
    pass


# Categories a category list shows before it counts the rest, where a person reads it.
MAX_CATEGORIES = 10


def linear_terms(
    nodes: dict[str, NDArray[Any]], node: int, features: Sequence[Feature]
) -> tuple[tuple[str, float], ...]:
    """An oblique node's (feature name, weight) terms, in the order the core sums them."""
    start, length = int(nodes["linear_offset"][node]), int(nodes["linear_len"][node])
    indices = nodes["linear_features"][start : start + length].tolist()
    weights = nodes["linear_weights"][start : start + length].tolist()
    return tuple((features[j].name, w) for j, w in zip(indices, weights, strict=True))


def linear_text(terms: Sequence[tuple[str, float]], decimals: int) -> str:
    """`-0.80·density + 0.44·sugar`: each weight with `decimals` decimals."""
    text = ""
    for k, (name, weight) in enumerate(terms):
        number = format_number(abs(weight), decimals)
        sign = ("-" if weight < 0 else "") if k == 0 else (" - " if weight < 0 else " + ")
        text += f"{sign}{number}·{name}"
    return text


def format_prediction(prediction: Any, regression: bool, decimals: int) -> str:
    """A node's prediction as text; a multi-output tree's as `(a, b)`."""
    if isinstance(prediction, tuple):
        return f"({', '.join(format_prediction(p, regression, decimals) for p in prediction)})"
    return format_number(prediction, decimals) if regression else str(prediction)


def format_weight(weight: float) -> str:
    """At most 3 decimals and no trailing zeros: `6`, `6.467`."""
    return format_number(weight, 3).rstrip("0").rstrip(".")


def bound_text(value: float, time: str | None, decimals: int) -> str:
    """A numeric test's threshold as worded: a number, or a date, time or duration of the
    feature's fit dtype (an infinite bound, of the known-versus-missing split, stays one)."""
    if time is None or not math.isfinite(value):
        return format_number(value, decimals)
    return time_text(time, value)


def format_number(number: float, decimals: int) -> str:
    """`number` with `decimals` decimals, first rounded to 12 significant digits so that
    floating-point noise (a weight summed in another order) never flips the last digit, and
    never printed as `-0.0000`."""
    value = round(float(f"{number:.12g}"), decimals) + 0.0  # + 0.0 turns -0.0 into 0.0
    return f"{value:.{decimals}f}"


@dataclass(frozen=True)
class SqlDialect:
    """How one database spells what the SQL renderings write. They differ in the quotes of
    an identifier, in strings (Spark reads a backslash as an escape), in whether a float
    column holds NaN where the data had a missing value (Spark keeps pandas' NaN: NaN is
    then missing, as quercus reads it, where other databases hold NULL) and in typed date
    and time literals (SQLite has none)."""

    name: str
    quote: str = '"'
    backslash_escapes: bool = False
    nan_is_missing: bool = False
    typed_times: bool = True

    def identifier(self, name: str) -> str:
        """`name` quoted, inner quotes doubled."""
        return self.quote + name.replace(self.quote, self.quote * 2) + self.quote

    def string(self, text: str) -> str:
        """A string literal in single quotes, inner single quotes doubled."""
        if self.backslash_escapes:
            text = text.replace("\\", "\\\\")
        return "'" + text.replace("'", "''") + "'"

    def value(self, value: Any) -> str:
        """A prediction as a literal: a label string, a boolean or a number."""
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, bool | np.bool_):
            return "TRUE" if value else "FALSE"
        if isinstance(value, int | np.integer):
            return str(int(value))
        if isinstance(value, float | np.floating) and math.isfinite(value):
            return sql_number(value)
        raise TypeError(f"cannot write {value!r} as an SQL literal")

    def among(self, column: str, categories: Sequence[str]) -> str:
        """`column` is one of `categories` (never true for a NULL)."""
        if not categories:
            return "FALSE"
        if len(categories) == 1:
            return f"{column} = {self.string(categories[0])}"
        return f"{column} IN ({', '.join(map(self.string, categories))})"

    def missing(self, column: str, numeric: bool) -> str:
        """`column` holds a missing value."""
        if numeric and self.nan_is_missing:
            return f"({column} IS NULL OR isnan({column}))"
        return f"{column} IS NULL"

    def known(self, column: str, numeric: bool) -> str:
        """`column` holds a value."""
        if numeric and self.nan_is_missing:
            return f"({column} IS NOT NULL AND NOT isnan({column}))"
        return f"{column} IS NOT NULL"

    def above(self, value: str, bound: str, numeric: bool) -> str:
        """`value > bound`, never true for a missing value (NaN is above every number in
        Spark, so where NaN is missing the test says it is not)."""
        if numeric and self.nan_is_missing:
            return f"({value} > {bound} AND NOT isnan({value}))"
        return f"{value} > {bound}"

    def time(self, literal: str) -> str:
        """A typed date, time or duration literal, where the database has such types."""
        if not self.typed_times:
            raise ValueError(
                f"{self.name} has no date, time or duration type to compare a temporal "
                "feature's threshold with; write the SQL for another dialect"
            )
        return literal


# The SQL the renderings write runs as it is in DuckDB and PostgreSQL (standard SQL). DuckDB,
# like Spark, keeps NaN in a float column (from Arrow, Parquet or pandas) and orders it above
# every number, so its dialect reads NaN as missing with its `isnan`.
SQL_DIALECTS = {
    "ansi": SqlDialect("ansi"),
    "duckdb": SqlDialect("duckdb", nan_is_missing=True),
    "postgresql": SqlDialect("postgresql"),
    "sqlite": SqlDialect("sqlite", typed_times=False),
    "spark": SqlDialect("spark", quote="`", backslash_escapes=True, nan_is_missing=True),
}


def sql_dialect(name: str) -> SqlDialect:
    """The dialect called `name`, or ValueError listing the known ones."""
    if not isinstance(name, str) or name not in SQL_DIALECTS:
        raise ValueError(f"dialect must be one of {', '.join(SQL_DIALECTS)}; got {name!r}")
    return SQL_DIALECTS[name]


# Standard SQL's quoting, by the names quercus.rules has always handed on.
quote_identifier = SQL_DIALECTS["ansi"].identifier
quote_string = SQL_DIALECTS["ansi"].string
quote_value = SQL_DIALECTS["ansi"].value


def sql_number(value: float | np.floating[Any]) -> str:
    """The shortest decimal that reads back as the same float, so SQL compares exactly."""
    return repr(float(value))


def tighter(
    pick: Callable[[float, float], float], a: float | None, b: float | None
) -> float | None:
    """`pick(a, b)` where None means no bound."""
    return b if a is None else a if b is None else pick(a, b)


def all_of(tests: list[pl.Expr]) -> pl.Expr:
    """The conjunction of `tests`; for none (a one-leaf tree, a rule pruned to nothing) a
    column of True as long as the frame, since a lone literal makes `select` return one row."""
    return functools.reduce(operator.and_, tests) if tests else pl.repeat(True, pl.len())


OR_MISSING = " (or missing)"


def polars_in(value: pl.Expr, categories: Sequence[str]) -> pl.Expr:
    """`value` is one of `categories` (never true for a null)."""
    if not categories:
        return pl.lit(False)
    if len(categories) == 1:
        return value == categories[0]
    return value.is_in(list(categories))


def braced(categories: Sequence[str], limit: int | None = None) -> str:
    """`{a, b, c}`; with `limit`, at most that many listed and the rest counted:
    `{a, b, … 1,809 more}` (a list one longer than the limit is shown whole: the count
    would take the same room)."""
    if limit is None or len(categories) <= limit + 1:
        return "{" + ", ".join(categories) + "}"
    shown = ", ".join(categories[:limit])
    return "{" + f"{shown}, … {len(categories) - limit:,} more" + "}"
