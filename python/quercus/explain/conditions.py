"""A rule's preconditions as data: a threshold interval (`Interval`), a category set
(`Membership`), an oblique test (`Linear`) and a known-value test (`Known`), each evaluated on
rows and written as text, a Polars expression and SQL. A missing value satisfies none of them
unless the tree sent it that way (`missing=True`).
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .._choices import SqlDialectName
from ..inputs.encoding import dense_column
from ..inputs.schema import Feature, Schema
from ..inputs.temporal import dtype_of, time_sql
from ..inputs.values import n_rows_of
from .wording import (
    OR_MISSING,
    SqlDialect,
    all_of,
    bound_text,
    braced,
    format_number,
    linear_text,
    polars_in,
    sql_dialect,
    sql_number,
    tighter,
)

if TYPE_CHECKING:
    from .._core import Column


Operator = Literal["<=", ">", "=", "in", "not in"]


@dataclass(frozen=True)
class Condition:
    """One test on the way from the root to a node, worded as the tree states it.

    ``density <= 0.3815`` or ``texture not in {clear}``: the lines of ``export_text``. Rules
    use :class:`Interval` and :class:`Membership` instead, which say which values pass; a
    test's wording alone does not (a subset node's ``not in`` side excludes the categories
    the node never saw).

    Parameters
    ----------
    feature : str
        The tested feature.
    operator : {"<=", ">", "=", "in", "not in"}
        The test.
    value : float, str or tuple of str
        The threshold, the category, or the subset.
    terms : tuple of (str, float), optional
        An oblique test's (feature, weight) terms.
    other : tuple of str, optional
        A subset split's other side, so that the shorter list can be printed.
    time : str, optional
        A date, time or duration feature's fit dtype (``"Date"``, ``"Datetime(us)"``, ...):
        the threshold, in its ticks, is worded as a date, time or duration.

    Examples
    --------
    >>> from quercus.rules import Condition
    >>> Condition("density", "<=", 0.3815).format()
    'density <= 0.3815'
    """

    feature: str
    operator: Operator
    value: float | str | tuple[str, ...]  # threshold, category, or the left subset
    terms: tuple[tuple[str, float], ...] = ()  # an oblique test's (feature, weight) terms
    # A subset split's other side (the categories the node sent right), so that a person
    # reads the shorter list: `in {left}` is `not in {right}` over the node's categories.
    other: tuple[str, ...] = ()
    # A date, time or duration feature's fit dtype (`Feature.time`): the threshold is worded
    # in it.
    time: str | None = None

    def format(self, decimals: int = 4, max_categories: int | None = None) -> str:
        """The test as ``export_text`` prints it.

        ``name <= t``, ``name >  t`` (aligned with ``<=``), ``name = v``, ``name in {a,
        b}``, ``-0.80·density + 0.44·sugar <= -0.31``; the known-versus-missing split
        (``<= +inf``, learned by ``missing="learned"`` and ``"separate"``) as ``name is
        known`` / ``name is missing``. A subset is worded by its shorter side (on a tie, the
        side that passes, one category as ``name = v``); the full sets stay in ``value``
        and ``other``.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in numbers.
        max_categories : int, optional
            Category lists longer than this show that many and a count (None: all).

        Returns
        -------
        str
            The wording.

        Examples
        --------
        >>> from quercus.rules import Condition
        >>> Condition("density", ">", 0.3815).format(decimals=2)
        'density >  0.38'
        >>> Condition("texture", "in", ("clear",), other=("slightly_blurry", "blurry")).format()
        'texture = clear'
        """
        if not self.terms and self.value == math.inf:
            return f"{self.feature} is {'known' if self.operator == '<=' else 'missing'}"
        if self.terms:
            operator = "> " if self.operator == ">" else self.operator
            threshold = format_number(float(self.value), decimals)  # type: ignore[arg-type]
            return f"{linear_text(self.terms, decimals)} {operator} {threshold}"
        operator = "> " if self.operator == ">" else self.operator
        if isinstance(self.value, float):
            value = bound_text(self.value, self.time, decimals)
        elif isinstance(self.value, tuple):
            if not self.other:  # the other side unknown: as stored
                return f"{self.feature} {operator} {braced(self.value, max_categories)}"
            inside = self.operator == "in"
            passing, failing = (self.value, self.other) if inside else (self.other, self.value)
            if len(failing) < len(passing):
                return f"{self.feature} not in {braced(failing, max_categories)}"
            if len(passing) == 1:
                return f"{self.feature} = {passing[0]}"
            return f"{self.feature} in {braced(passing, max_categories)}"
        else:
            value = self.value
        return f"{self.feature} {operator} {value}"


@dataclass(frozen=True)
class Interval:
    """A numeric precondition ``lower < feature <= upper``; None leaves that side open.

    Every test of one numeric feature on a path narrows the same interval, so a rule states
    each numeric feature once (``0.126 < sugar <= 0.2045``, not two separate tests).

    Parameters
    ----------
    feature : str
        The numeric feature.
    lower, upper : float, optional
        The bounds (at least one).
    missing : bool, default=False
        A missing value passes too (the child a split sends them to).
    time : str, optional
        A date, time or duration feature's fit dtype (``"Date"``, ``"Datetime(us)"``, ...):
        the bounds, in its ticks, are worded as dates, SQL compares typed literals and Polars
        casts the column to it.

    Raises
    ------
    ValueError
        Neither bound given.

    Examples
    --------
    >>> from quercus.rules import Interval
    >>> Interval("sugar", 0.126, 0.2045).to_text()
    '0.1260 < sugar <= 0.2045'
    """

    feature: str
    lower: float | None = None
    upper: float | None = None
    missing: bool = False  # a missing value passes too (the child that takes them)
    time: str | None = None  # a date, time or duration feature's fit dtype (`Feature.time`)

    def __post_init__(self) -> None:
        if self.lower is None and self.upper is None:
            raise ValueError(f"an Interval on {self.feature!r} needs a lower or an upper bound")

    def to_text(self, decimals: int = 4, max_categories: int | None = None) -> str:
        """The precondition as a rule prints it.

        ``feature <= u``, ``feature > l`` or ``l < feature <= u``; ``feature is known`` for
        the bound +inf of the known-versus-missing split, ``feature is missing`` past it;
        ``(or missing)`` appended when a missing value passes.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in numbers.
        max_categories : int, optional
            Category lists longer than this show that many and a count (None: all).

        Returns
        -------
        str
            The wording.

        Examples
        --------
        >>> from quercus.rules import Interval
        >>> Interval("density", upper=0.3815, missing=True).to_text(decimals=2)
        'density <= 0.38 (or missing)'
        """
        if self.lower == math.inf:
            return f"{self.feature} is missing"
        if self.lower is None and self.upper == math.inf:
            return f"{self.feature} is known"
        lower = None if self.lower is None else bound_text(self.lower, self.time, decimals)
        upper = None if self.upper is None else bound_text(self.upper, self.time, decimals)
        if lower is None:
            text = f"{self.feature} <= {upper}"
        elif upper is None:
            text = f"{self.feature} > {lower}"
        else:
            text = f"{lower} < {self.feature} <= {upper}"
        return text + OR_MISSING if self.missing else text

    def to_polars(self) -> pl.Expr:
        """The precondition as a Polars expression.

        Returns
        -------
        polars.Expr
            A boolean expression over the original columns: true where the value passes,
            false where it does not (a missing value passes only when ``missing``). A date,
            time or duration column is cast to the feature's fit dtype first (Polars's cast: a
            Datetime read for a Date feature loses its time of day).

        Examples
        --------
        >>> import polars as pl
        >>> from quercus.rules import Interval
        >>> frame = pl.DataFrame({"sugar": [0.1, 0.15, None]})
        >>> frame.select(Interval("sugar", 0.126, 0.2045).to_polars())["sugar"].to_list()
        [False, True, None]
        """
        # The value quercus encodes (a date's day count). Polars orders NaN above every
        # number, so `NaN > t` holds there: a lower bound must exclude NaN, a missing value.
        column = pl.col(self.feature)
        value = (column if self.time is None else column.cast(dtype_of(self.time))).to_physical()
        tests = [] if self.lower is None else [value > self.lower, value.is_not_nan()]
        if self.upper is not None:
            tests.append(value <= self.upper)
        if self.missing:
            return all_of(tests) | value.is_null() | value.is_nan()
        return all_of(tests)

    def to_sql(self, *, dialect: SqlDialectName = "ansi") -> str:
        """The precondition as an SQL expression.

        Parameters
        ----------
        dialect : {"ansi", "duckdb", "postgresql", "sqlite", "spark"}, default="ansi"
            The database's spelling (see :meth:`quercus.RuleSet.to_sql`).

        Returns
        -------
        str
            A boolean SQL expression; identifiers quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Interval
        >>> Interval("sugar", 0.126, 0.2045).to_sql()
        '"sugar" > 0.126 AND "sugar" <= 0.2045'
        """
        sql = sql_dialect(dialect)
        column = sql.identifier(self.feature)
        numeric = self.time is None  # NaN is a float's: a date column has none
        if self.lower == math.inf:  # past the known-versus-missing split: no value passes
            return sql.missing(column, numeric) if self.missing else "FALSE"
        tests = []
        if self.lower is not None:
            tests.append(sql.above(column, self._sql(self.lower, sql), numeric))
        if self.upper == math.inf:  # the known side of that split: every value passes
            tests.append(sql.known(column, numeric))
        elif self.upper is not None:
            tests.append(f"{column} <= {self._sql(self.upper, sql)}")
        if self.missing:
            return f"({' AND '.join(tests)} OR {sql.missing(column, numeric)})"
        return " AND ".join(tests)

    def _sql(self, bound: float, sql: SqlDialect) -> str:
        return sql_number(bound) if self.time is None else sql.time(time_sql(self.time, bound))

    def _parts(self) -> tuple[Interval, ...]:
        """Each bound on its own: pruning may drop one and keep the other."""
        if self.lower is None or self.upper is None:
            return (self,)
        return (replace(self, upper=None), replace(self, lower=None))

    def _mask(self, column: Column, feature: Feature) -> NDArray[np.bool_]:
        if column[0] != "numeric":
            raise TypeError(f"{self.feature!r} is categorical; an Interval tests a number")
        values = column[1]
        mask = ~np.isnan(values)
        if self.lower is not None:
            mask &= values > self.lower
        if self.upper is not None:
            mask &= values <= self.upper
        return mask | np.isnan(values) if self.missing else mask

    def _narrow(self, other: Interval) -> Interval:
        lower = tighter(max, self.lower, other.lower)
        upper = tighter(min, self.upper, other.upper)
        return Interval(self.feature, lower, upper, self.missing and other.missing, self.time)


@dataclass(frozen=True)
class Membership:
    """A categorical precondition: the feature's value is one of ``categories``.

    Every kind of categorical test becomes the list of categories that pass it: a multiway
    branch one category, a CART subset side its subset, an ordered threshold the categories
    at or below (above) it. A positive list is what SQL and Polars need to treat a missing
    or unseen value as quercus does: it passes no test.

    Parameters
    ----------
    feature : str
        The categorical feature.
    categories : tuple of str
        The categories that pass, in fit order.
    missing : bool, default=False
        A missing value (and a category unseen at fit) passes too.
    universe : tuple of str, optional
        The feature's categories at fit: a list is worded by the ones that fail when those
        are fewer.

    Examples
    --------
    >>> from quercus.rules import Membership
    >>> Membership("texture", ("clear",)).to_text()
    'texture = clear'
    """

    feature: str
    categories: tuple[str, ...]
    missing: bool = False  # a missing value passes too (the child that takes them)
    # The feature's categories at fit: a long list is worded by the ones that do not pass
    # when those are fewer, and a category outside it (unseen at fit, read as missing)
    # passes with the missing values.
    universe: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def to_text(self, decimals: int = 4, max_categories: int | None = None) -> str:
        """The precondition as a rule prints it.

        ``feature = v`` for one category, else ``feature in {a, b}``, or ``feature not in
        {c}`` when the categories that fail are fewer (of those known at fit); ``feature is
        missing`` for the extra child of ``missing="separate"``.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in numbers.
        max_categories : int, optional
            Category lists longer than this show that many and a count (None: all).

        Returns
        -------
        str
            The wording.

        Examples
        --------
        >>> from quercus.rules import Membership
        >>> universe = ("clear", "slightly_blurry", "blurry")
        >>> Membership("texture", ("clear", "blurry"), universe=universe).to_text()
        'texture not in {slightly_blurry}'
        """
        if not self.categories and self.missing:
            return f"{self.feature} is missing"
        passing = set(self.categories)
        failing = tuple(c for c in self.universe if c not in passing)
        if len(self.categories) == 1:
            text = f"{self.feature} = {self.categories[0]}"
        elif self.universe and len(failing) < len(self.categories):
            text = f"{self.feature} not in {braced(failing, max_categories)}"
        else:
            text = f"{self.feature} in {braced(self.categories, max_categories)}"
        return text + OR_MISSING if self.missing else text

    def to_polars(self) -> pl.Expr:
        """The precondition as a Polars expression (categories compared as strings).

        Returns
        -------
        polars.Expr
            A boolean expression over the original columns: true where the value passes,
            false where it does not (a missing value passes only when ``missing``).

        Examples
        --------
        >>> import polars as pl
        >>> from quercus.rules import Membership
        >>> frame = pl.DataFrame({"texture": ["clear", "blurry", None]})
        >>> frame.select(Membership("texture", ("clear",)).to_polars())["texture"].to_list()
        [True, False, None]
        """
        # As strings, the form `Feature.categories` holds (booleans as "false" / "true").
        value = pl.col(self.feature).cast(pl.String)
        test = polars_in(value, self.categories)
        if not self.missing:
            return test
        # A category unseen at fit is read as missing, so it passes where missing values do.
        unseen = ~polars_in(value, self.universe) if self.universe else pl.lit(False)
        return test | value.is_null() | unseen

    def to_sql(self, *, dialect: SqlDialectName = "ansi") -> str:
        """The precondition as an SQL expression.

        Parameters
        ----------
        dialect : {"ansi", "duckdb", "postgresql", "sqlite", "spark"}, default="ansi"
            The database's spelling (see :meth:`quercus.RuleSet.to_sql`).

        Returns
        -------
        str
            A boolean SQL expression; identifiers quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Membership
        >>> print(Membership("texture", ("clear", "blurry")).to_sql())
        "texture" IN ('clear', 'blurry')
        """
        sql = sql_dialect(dialect)
        column = sql.identifier(self.feature)
        test = sql.among(column, self.categories)
        if not self.missing:
            return test
        # A category unseen at fit is read as missing, so it passes where missing values do.
        tests = [test, sql.missing(column, numeric=False)]
        if self.universe:
            tests.append(f"{column} NOT IN ({', '.join(map(sql.string, self.universe))})")
        return "(" + " OR ".join(t for t in tests if t != "FALSE") + ")"

    def _parts(self) -> tuple[Membership, ...]:
        return (self,)

    def _mask(self, column: Column, feature: Feature) -> NDArray[np.bool_]:
        if column[0] != "categorical":
            raise TypeError(f"{self.feature!r} is numeric; a Membership tests a category")
        _, codes, missing, n_categories, _ = column
        code = {category: k for k, category in enumerate(feature.categories or ())}
        allowed = np.zeros(n_categories, dtype=bool)
        allowed[[code[category] for category in self.categories if category in code]] = True
        passed = allowed[codes] & ~missing
        return passed | missing if self.missing else passed

    def _narrow(self, other: Membership) -> Membership:
        kept = set(other.categories)
        return replace(
            self,
            categories=tuple(c for c in self.categories if c in kept),
            missing=self.missing and other.missing,
        )


@dataclass(frozen=True)
class Linear:
    """A multivariate precondition ``Σ w_i·x_i <= threshold``, from an oblique split.

    A row missing any of its features passes neither side (unless ``missing``).

    Parameters
    ----------
    terms : tuple of (str, float)
        The (feature, weight) terms.
    threshold : float
        The threshold t.
    above : bool, default=False
        The test is ``> threshold`` instead.
    missing : bool, default=False
        A row missing one of the terms' features passes.

    Examples
    --------
    >>> from quercus.rules import Linear
    >>> test = Linear((("density", -0.8), ("sugar", 0.6)), -0.12)
    >>> test.to_text()
    '-0.8000·density + 0.6000·sugar <= -0.1200'
    >>> test.to_sql()
    '(-0.8 * "density" + 0.6 * "sugar") <= -0.12'
    """

    terms: tuple[tuple[str, float], ...]
    threshold: float
    above: bool = False
    missing: bool = False  # a row missing a term passes (the child that takes them)

    @property
    def feature(self) -> str:
        """The key rules merge preconditions by: a linear test only merges with itself.

        Returns
        -------
        str
            ``linear:`` and the test's terms at full precision.

        Examples
        --------
        >>> from quercus.rules import Linear
        >>> Linear((("density", 0.5),), 0.3).feature
        'linear:0.50000000000000000·density'
        """
        return "linear:" + linear_text(self.terms, 17)

    def to_text(self, decimals: int = 4, max_categories: int | None = None) -> str:
        """The precondition as a rule prints it.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in numbers.
        max_categories : int, optional
            Category lists longer than this show that many and a count (None: all).

        Returns
        -------
        str
            ``w1·x1 + w2·x2 <= t`` (or ``>``).

        Examples
        --------
        >>> from quercus.rules import Linear
        >>> Linear((("density", -0.8), ("sugar", 0.6)), -0.12, above=True).to_text(2)
        '-0.80·density + 0.60·sugar > -0.12'
        """
        sign = ">" if self.above else "<="
        threshold = format_number(self.threshold, decimals)
        text = f"{linear_text(self.terms, decimals)} {sign} {threshold}"
        return text + OR_MISSING if self.missing else text

    def to_polars(self) -> pl.Expr:
        """The precondition as a Polars expression.

        Returns
        -------
        polars.Expr
            A boolean expression over the original columns: true where the value passes,
            false where it does not (a missing value passes only when ``missing``).

        Examples
        --------
        >>> import polars as pl
        >>> from quercus.rules import Linear
        >>> frame = pl.DataFrame({"density": [0.2, 0.7], "sugar": [0.1, 0.1]})
        >>> test = Linear((("density", 1.0), ("sugar", 1.0)), 0.5)
        >>> frame.select(test.to_polars().alias("passes"))["passes"].to_list()
        [True, False]
        """
        columns = [pl.col(name).to_physical() for name, _ in self.terms]
        z = functools.reduce(
            operator.add, (w * c for (_, w), c in zip(self.terms, columns, strict=True))
        )
        test = z > self.threshold if self.above else z <= self.threshold
        passed = all_of([test, *(c.is_not_nan() for c in columns)])
        if self.missing:
            return functools.reduce(
                operator.or_, (c.is_null() | c.is_nan() for c in columns), passed
            )
        return passed

    def to_sql(self, *, dialect: SqlDialectName = "ansi") -> str:
        """The precondition as an SQL expression.

        Parameters
        ----------
        dialect : {"ansi", "duckdb", "postgresql", "sqlite", "spark"}, default="ansi"
            The database's spelling (see :meth:`quercus.RuleSet.to_sql`).

        Returns
        -------
        str
            A boolean SQL expression; identifiers quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Linear
        >>> Linear((("density", 1.0), ("sugar", 1.0)), 0.5).to_sql()
        '(1.0 * "density" + 1.0 * "sugar") <= 0.5'
        """
        sql = sql_dialect(dialect)
        z = " + ".join(f"{sql_number(w)} * {sql.identifier(n)}" for n, w in self.terms)
        bound = sql_number(self.threshold)
        test = sql.above(f"({z})", bound, numeric=True) if self.above else f"({z}) <= {bound}"
        if self.missing:
            nulls = " OR ".join(sql.missing(sql.identifier(n), numeric=True) for n, _ in self.terms)
            return f"({test} OR {nulls})"
        return test

    def _parts(self) -> tuple[Linear, ...]:
        return (self,)

    def _mask_rows(self, columns: list[Column], schema: Schema) -> NDArray[np.bool_]:
        """Summed in the order the core sums a linear test, so both agree to the last bit."""
        z = np.zeros(n_rows_of(columns))
        for name, w in self.terms:
            z = z + w * dense_column(columns[schema.names.index(name)])[1]
        with np.errstate(invalid="ignore"):
            passed = z > self.threshold if self.above else z <= self.threshold
        passed &= ~np.isnan(z)
        return passed | np.isnan(z) if self.missing else passed


@dataclass(frozen=True)
class Known:
    """The feature holds a value a split can send (part of a :class:`Routed` precondition).

    Any number (not null, not NaN), or one of ``categories`` (those the split gives a
    direction).

    Parameters
    ----------
    feature : str
        The feature.
    categories : tuple of str, optional
        A categorical feature's categories with a direction; None for a numeric one.

    Examples
    --------
    >>> from quercus.rules import Known
    >>> Known("density").to_sql()
    '"density" IS NOT NULL'
    """

    feature: str
    categories: tuple[str, ...] | None = None  # None: a numeric feature

    def to_text(self, decimals: int = 4, max_categories: int | None = None) -> str:
        """The precondition as a rule prints it.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point in numbers.
        max_categories : int, optional
            Category lists longer than this show that many and a count (None: all).

        Returns
        -------
        str
            ``feature is known``.

        Examples
        --------
        >>> from quercus.rules import Known
        >>> Known("texture", ("clear", "blurry")).to_text()
        'texture is known'
        """
        return f"{self.feature} is known"

    def to_polars(self) -> pl.Expr:
        """The precondition as a Polars expression.

        Returns
        -------
        polars.Expr
            True where the value is known (and one of ``categories``), false elsewhere.

        Examples
        --------
        >>> import polars as pl
        >>> from quercus.rules import Known
        >>> frame = pl.DataFrame({"density": [0.5, None, float("nan")]})
        >>> frame.select(Known("density").to_polars())["density"].to_list()
        [True, False, False]
        """
        if self.categories is None:
            value = pl.col(self.feature).to_physical()
            return value.is_not_null() & value.is_not_nan().fill_null(False)
        value = pl.col(self.feature).cast(pl.String)
        return value.is_in(list(self.categories)).fill_null(False)

    def to_sql(self, *, dialect: SqlDialectName = "ansi") -> str:
        """The precondition as an SQL expression.

        Parameters
        ----------
        dialect : {"ansi", "duckdb", "postgresql", "sqlite", "spark"}, default="ansi"
            The database's spelling (see :meth:`quercus.RuleSet.to_sql`).

        Returns
        -------
        str
            A boolean SQL expression; identifiers quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Known
        >>> print(Known("texture", ("clear", "blurry")).to_sql())
        ("texture" IS NOT NULL AND "texture" IN ('clear', 'blurry'))
        """
        sql = sql_dialect(dialect)
        column = sql.identifier(self.feature)
        if self.categories is None:
            return sql.known(column, numeric=True)
        if not self.categories:
            return "FALSE"
        listed = ", ".join(map(sql.string, self.categories))
        return f"({column} IS NOT NULL AND {column} IN ({listed}))"

    def _mask(self, column: Column, feature: Feature) -> NDArray[np.bool_]:
        if column[0] == "numeric":
            return ~np.isnan(column[1])
        _, codes, missing, n_categories, _ = column
        code = {category: k for k, category in enumerate(feature.categories or ())}
        allowed = np.zeros(n_categories, dtype=bool)
        allowed[[code[c] for c in self.categories or () if c in code]] = True
        return allowed[codes] & ~missing
