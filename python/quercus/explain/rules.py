"""A fitted tree as a list of IF-THEN rules: conditions as data, rule post-pruning, and the
rule list rendered as text, as a Polars expression and as SQL.

Each root-to-leaf path is a conjunction of tests and the tree the disjunction of its paths.
Written out as rules they can be read, pruned one precondition at a time (which a tree cannot:
removing a test from a tree removes it from every path below it; Mitchell 1997, section
3.7.1.2) and evaluated where quercus is not installed, as a query in Polars or a database.

Semantics, shared by `RuleSet.predict`, `RuleSet.to_polars` and `RuleSet.to_sql`: the rules
are tried in order and the first one whose conditions all hold gives the prediction; a row no
rule covers gets the default. A missing value (null, or NaN in a numeric column) satisfies no
condition on its feature, and neither does a category not seen at fit, so such a row falls
through to a later rule or to the default, where the tree would spread it over every branch
(C4.5's fractions). The same holds for a category a CART subset node never saw while growing:
it belongs to neither side of that node.

A tree grown with another `missing=` strategy sends a missing value to one child of each
split (`missing_child`): the precondition into that child also lets a missing value through
(`missing=True`, worded "(or missing)"; the extra child of `missing="separate"` is "feature
is missing"), so the rules predict as the tree does. A split with surrogates
(`missing="surrogate"`) is a `Routed` precondition: its own test, or, for a row it cannot
send (a missing value, a category it never saw), the first surrogate that can send the row,
else the majority child, exactly as the tree routes it. Elsewhere a category never seen at
fit counts as missing in `predict` and `apply` (as in the tree) but matches nothing in
`to_polars` / `to_sql`, which only see null (and NaN) as missing.

Trees can be 100,000 levels deep, so every walk uses an explicit stack, never recursion.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .._core import MULTIWAY, NUMERIC, OBLIQUE, ORDERED, SUBSET
from ..inputs.encoding import dense_column, transform
from ..inputs.schema import Feature, Schema
from ..inputs.targets import class_codes
from ..inputs.temporal import dtype_of, time_sql, time_text
from ..inputs.values import n_rows_of
from ..inputs.weights import sample_weights

# `missing_child` of a split where a row no surrogate sends stays in the node and takes its
# prediction (rpart's split of two sides of equal weight, which leaves no majority side).
STAYS = -2

if TYPE_CHECKING:
    from polars.expr.whenthen import ChainedThen, Then

    from .._core import Column

# Categories a category list shows before it counts the rest, where a person reads it.
MAX_CATEGORIES = 10

__all__ = [
    "Condition",
    "Interval",
    "Known",
    "Linear",
    "Membership",
    "Precondition",
    "Routed",
    "Rule",
    "RuleSet",
]

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
        return text + _OR_MISSING if self.missing else text

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
            return _all(tests) | value.is_null() | value.is_nan()
        return _all(tests)

    def to_sql(self) -> str:
        """The precondition as an SQL expression.

        Returns
        -------
        str
            A boolean SQL expression; identifiers double-quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Interval
        >>> Interval("sugar", 0.126, 0.2045).to_sql()
        '"sugar" > 0.126 AND "sugar" <= 0.2045'
        """
        column = quote_identifier(self.feature)
        if self.lower == math.inf:  # past the known-versus-missing split: no value passes
            return f"{column} IS NULL" if self.missing else "FALSE"
        tests = [] if self.lower is None else [f"{column} > {self._sql(self.lower)}"]
        if self.upper == math.inf:  # the known side of that split: every value passes
            tests.append(f"{column} IS NOT NULL")
        elif self.upper is not None:
            tests.append(f"{column} <= {self._sql(self.upper)}")
        if self.missing:
            return f"({' AND '.join(tests)} OR {column} IS NULL)"
        return " AND ".join(tests)

    def _sql(self, bound: float) -> str:
        return _sql_number(bound) if self.time is None else time_sql(self.time, bound)

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
        lower = _extreme(max, self.lower, other.lower)
        upper = _extreme(min, self.upper, other.upper)
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
        return text + _OR_MISSING if self.missing else text

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
        test = _polars_in(value, self.categories)
        if not self.missing:
            return test
        # A category unseen at fit is read as missing, so it passes where missing values do.
        unseen = ~_polars_in(value, self.universe) if self.universe else pl.lit(False)
        return test | value.is_null() | unseen

    def to_sql(self) -> str:
        """The precondition as an SQL expression.

        Returns
        -------
        str
            A boolean SQL expression; identifiers double-quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Membership
        >>> print(Membership("texture", ("clear", "blurry")).to_sql())
        "texture" IN ('clear', 'blurry')
        """
        column = quote_identifier(self.feature)
        test = _sql_in(column, self.categories)
        if not self.missing:
            return test
        # A category unseen at fit is read as missing, so it passes where missing values do.
        tests = [test, f"{column} IS NULL"]
        if self.universe:
            tests.append(f"{column} NOT IN ({', '.join(map(quote_string, self.universe))})")
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
        return text + _OR_MISSING if self.missing else text

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
        passed = _all([test, *(c.is_not_nan() for c in columns)])
        if self.missing:
            return functools.reduce(
                operator.or_, (c.is_null() | c.is_nan() for c in columns), passed
            )
        return passed

    def to_sql(self) -> str:
        """The precondition as an SQL expression.

        Returns
        -------
        str
            A boolean SQL expression; identifiers double-quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Linear
        >>> Linear((("density", 1.0), ("sugar", 1.0)), 0.5).to_sql()
        '(1.0 * "density" + 1.0 * "sugar") <= 0.5'
        """
        z = " + ".join(f"{_sql_number(w)} * {quote_identifier(n)}" for n, w in self.terms)
        test = f"({z}) {'>' if self.above else '<='} {_sql_number(self.threshold)}"
        if self.missing:
            nulls = " OR ".join(f"{quote_identifier(n)} IS NULL" for n, _ in self.terms)
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

    def to_sql(self) -> str:
        """The precondition as an SQL expression.

        Returns
        -------
        str
            A boolean SQL expression; identifiers double-quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Known
        >>> print(Known("texture", ("clear", "blurry")).to_sql())
        ("texture" IS NOT NULL AND "texture" IN ('clear', 'blurry'))
        """
        column = quote_identifier(self.feature)
        if self.categories is None:
            return f"{column} IS NOT NULL"
        if not self.categories:
            return "FALSE"
        listed = ", ".join(map(quote_string, self.categories))
        return f"({column} IS NOT NULL AND {column} IN ({listed}))"

    def _mask(self, column: Column, feature: Feature) -> NDArray[np.bool_]:
        if column[0] == "numeric":
            return ~np.isnan(column[1])
        _, codes, missing, n_categories, _ = column
        code = {category: k for k, category in enumerate(feature.categories or ())}
        allowed = np.zeros(n_categories, dtype=bool)
        allowed[[code[c] for c in self.categories or () if c in code]] = True
        return allowed[codes] & ~missing


@dataclass(frozen=True)
class Routed:
    """The precondition into one child of a split with surrogate splits (rpart's routing).

    ``test`` (the split's own test into the child) decides when every ``known`` holds (the
    split can send the row; an oblique split needs each of its features); otherwise the
    first surrogate whose ``Known`` holds decides (its test into the child, or True /
    False: every / no value it can send goes here), and when none does, ``default``. This is
    the tree's own routing (rpart's ``usesurrogate = 2``).

    Parameters
    ----------
    test : Interval, Membership or Linear
        The split's own test into this child.
    known : tuple of Known
        What the split needs to send a row.
    surrogates : tuple of (Known, Interval or Membership or bool)
        The surrogates in rank order, each with what it needs and its test into this child.
    default : bool
        Whether this child is the split's majority child.
    node : int
        The split's node id (two routed preconditions never merge).

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> model = quercus.DecisionTreeClassifier(
    ...     missing="surrogate", max_depth=1, max_surrogates=2
    ... ).fit(X, y)
    >>> routed = model.rules()[0].conditions[0]
    >>> print(routed.to_text())
    texture = clear (if missing: sugar > 0.2045; else color not in {light}; else yes)
    """

    # None: the split sends no row here itself (the rows that stay at a split, `unsent`).
    test: Interval | Membership | Linear | None
    known: tuple[Known, ...]
    surrogates: tuple[tuple[Known, Interval | Membership | bool], ...]
    default: bool
    node: int  # the split's node id: two routed preconditions never merge

    @property
    def feature(self) -> str:
        """The key rules merge preconditions by: a routed test merges with nothing.

        Returns
        -------
        str
            ``routed:`` and the split's node id.

        Examples
        --------
        >>> from quercus.rules import Known, Membership, Routed
        >>> test = Membership("texture", ("clear",))
        >>> Routed(test, (Known("texture"),), (), default=True, node=0).feature
        'routed:0'
        """
        return f"routed:{self.node}"

    def to_text(self, decimals: int = 4, max_categories: int | None = None) -> str:
        """The precondition as a rule prints it.

        The test, then for a row the split cannot send each surrogate in turn and the
        default (whether the majority child is this one): ``density <= 0.3815 (if missing:
        sugar <= 0.2040; else texture = clear; else no)``.

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
        >>> from quercus.rules import Interval, Known, Routed
        >>> surrogate = (Known("sugar"), Interval("sugar", upper=0.204))
        >>> routed = Routed(Interval("density", upper=0.3815), (Known("density"),),
        ...                 (surrogate,), default=False, node=0)
        >>> routed.to_text()
        'density <= 0.3815 (if missing: sugar <= 0.2040; else no)'
        """
        if self.test is None:
            needed = " and ".join(k.to_text(decimals, max_categories) for k in self.known)
            others = ", ".join(k.feature for k, _ in self.surrogates)
            unknown = f" nor any of {others}" if others else ""
            return f"not ({needed}){unknown}: stays at node {self.node}"
        steps = [_surrogate_text(s, decimals, max_categories) for _, s in self.surrogates]
        steps.append("yes" if self.default else "no")
        test = self.test.to_text(decimals, max_categories)
        return f"{test} (if missing: {'; else '.join(steps)})"

    def to_polars(self) -> pl.Expr:
        """The precondition as a Polars expression, surrogates included.

        Returns
        -------
        polars.Expr
            A boolean expression over the original columns: true where the value passes,
            false where it does not (a missing value passes only when ``missing``).

        Examples
        --------
        >>> import polars as pl
        >>> from quercus.rules import Interval, Known, Routed
        >>> surrogate = (Known("sugar"), Interval("sugar", upper=0.204))
        >>> routed = Routed(Interval("density", upper=0.3815), (Known("density"),),
        ...                 (surrogate,), default=False, node=0)
        >>> frame = pl.DataFrame({"density": [0.3, None, None], "sugar": [0.5, 0.1, None]})
        >>> frame.select(routed.to_polars().alias("here"))["here"].to_list()
        [True, True, False]
        """
        chain: pl.Expr = pl.lit(self.default)
        for surrogate, sends in reversed(self.surrogates):
            here = pl.lit(sends) if isinstance(sends, bool) else sends.to_polars().fill_null(False)
            chain = pl.when(surrogate.to_polars()).then(here).otherwise(chain)
        decided = _all([k.to_polars() for k in self.known])
        if self.test is None:
            return ~decided & chain
        return self.test.to_polars().fill_null(False) | (~decided & chain)

    def to_sql(self) -> str:
        """The precondition as an SQL expression, its surrogates as a ``CASE``.

        Returns
        -------
        str
            A boolean SQL expression; identifiers double-quoted, NULL for a missing value.

        Examples
        --------
        >>> from quercus.rules import Interval, Known, Routed
        >>> surrogate = (Known("sugar"), Interval("sugar", upper=0.204))
        >>> routed = Routed(Interval("density", upper=0.3815), (Known("density"),),
        ...                 (surrogate,), default=False, node=0)
        >>> print(routed.to_sql())
        ("density" <= 0.3815 OR (NOT ("density" IS NOT NULL) AND
            CASE WHEN "sugar" IS NOT NULL THEN ("sugar" <= 0.204) ELSE FALSE END))
        """
        arms = " ".join(
            f"WHEN {known.to_sql()} THEN {_sql_bool(sends)}" for known, sends in self.surrogates
        )
        chain = (
            f"CASE {arms} ELSE {_sql_bool(self.default)} END" if arms else _sql_bool(self.default)
        )
        known = " AND ".join(k.to_sql() for k in self.known)
        if self.test is None:
            return f"(NOT ({known}) AND {chain})"
        return f"({self.test.to_sql()} OR (NOT ({known}) AND {chain}))"

    def _parts(self) -> tuple[Routed, ...]:
        return (self,)

    def _mask_rows(self, columns: list[Column], schema: Schema) -> NDArray[np.bool_]:
        def mask(condition: Any) -> NDArray[np.bool_]:
            if isinstance(condition, Linear):
                return condition._mask_rows(columns, schema)
            position = schema.names.index(condition.feature)
            return condition._mask(columns[position], schema.features[position])

        undecided = ~np.logical_and.reduce([mask(k) for k in self.known])
        passed = (
            np.zeros(len(undecided), dtype=bool)
            if self.test is None
            else mask(self.test) & ~undecided
        )
        result = np.full(len(undecided), self.default)
        settled = np.zeros(len(undecided), dtype=bool)
        for known, sends in self.surrogates:
            here = mask(known) & ~settled
            result[here] = sends if isinstance(sends, bool) else mask(sends)[here]
            settled |= here
        return passed | (undecided & result)


Precondition: TypeAlias = Interval | Membership | Linear | Routed


@dataclass(frozen=True)
class Rule:
    """One root-to-leaf path: IF every condition holds THEN ``prediction``.

    Parameters
    ----------
    conditions : tuple
        The preconditions (:class:`Interval`, :class:`Membership`, :class:`Linear`,
        :class:`Routed`), at most one per feature, in path order.
    prediction : object
        The leaf's class label, or its mean target for a regression rule.
    support : float
        The training weight of the leaf.
    confidence : float or None
        The share of that weight in the predicted class (None for a regression rule).
        Support and confidence describe the leaf the rule came from: pruning has no training
        data to recount them.
    leaf : int
        That leaf's node id, as ``model.apply`` reports it.
    accuracy : float, optional
        The validation accuracy :meth:`RuleSet.prune` measured (None before pruning and for
        a rule covering no validation row).

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
    >>> rule = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()[0]
    >>> rule.prediction, rule.support, rule.leaf
    ('No', 3.0, 4)
    """

    conditions: tuple[Precondition, ...]  # at most one per feature, in path order
    prediction: Any
    support: float
    confidence: float | None
    leaf: int
    accuracy: float | None = None

    def to_text(
        self,
        target: str,
        decimals: int = 4,
        max_categories: int | None = MAX_CATEGORIES,
        show_missing: bool = True,
    ) -> str:
        """The rule as one line: ``IF a = x AND b > t THEN target = label  [support 7, ...]``.

        Parameters
        ----------
        target : str
            The target's name.
        decimals : int, default=4
            Digits after the point.
        max_categories : int, optional
            Category lists longer than this are shortened (see :meth:`Membership.to_text`;
            None: all).
        show_missing : bool, default=True
            Without it, no test says ``(or missing)``.

        Returns
        -------
        str
            The line, with support, confidence and (once pruned) accuracy.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rule = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()[0]
        >>> rule.to_text("PlayTennis")
        'IF Outlook = Sunny AND Humidity = High THEN PlayTennis = No  [support 3, confidence 1.00]'
        """
        shown = self.conditions if show_missing else tuple(map(_unmarked, self.conditions))
        tests = " AND ".join(c.to_text(decimals, max_categories) for c in shown)
        tests = tests or "TRUE"
        regression = self.confidence is None
        outcome = format_prediction(self.prediction, regression, decimals)
        figures = [f"support {format_weight(self.support)}"]
        if self.confidence is not None:
            figures.append(f"confidence {self.confidence:.2f}")
        if self.accuracy is not None:
            figures.append(f"accuracy {self.accuracy:.2f}")
        return f"IF {tests} THEN {target} = {outcome}  [{', '.join(figures)}]"


@dataclass(frozen=True)
class RuleSet:
    """An ordered rule list with a default, from :meth:`DecisionTreeClassifier.rules`.

    A row takes the prediction of the first rule that covers it, or ``default`` (the tree
    root's prediction: the training majority class or mean) when none does. Read from a
    tree, the rules are exhaustive and mutually exclusive, so the order does not matter and
    :meth:`predict` equals the tree's on rows without missing values (or categories unseen
    where they are tested); after :meth:`prune` the rules overlap and leave gaps, and the
    order and the default decide. A missing value satisfies no condition on its feature
    unless the tree sends missing values to that child (``(or missing)``).

    Parameters
    ----------
    rules : tuple of Rule
        The rules, in order.
    default : object
        The prediction when no rule fires.
    schema : object
        The fit-time features, to encode X as the tree did.
    classes : tuple, optional
        The class labels; None for a regression tree.
    met_missing : bool, default=False
        Whether the tree met missing values in training (then the text marks where they go).

    Attributes
    ----------
    target : str
        The target's name.
    regression : bool
        Whether the rules predict a number.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
    >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
    >>> print(rules)
    IF Outlook = Sunny AND Humidity = High THEN PlayTennis = No  [support 3, confidence 1.00]
    IF Outlook = Sunny AND Humidity = Normal THEN PlayTennis = Yes  [support 2, confidence 1.00]
    IF Outlook = Overcast THEN PlayTennis = Yes  [support 4, confidence 1.00]
    IF Outlook = Rain AND Wind = Weak THEN PlayTennis = Yes  [support 3, confidence 1.00]
    IF Outlook = Rain AND Wind = Strong THEN PlayTennis = No  [support 2, confidence 1.00]
    ELSE PlayTennis = Yes
    """

    rules: tuple[Rule, ...]
    default: Any
    schema: Schema  # the fit-time features, to encode X as the tree did
    classes: tuple[Any, ...] | None = None  # the class labels; None for a regression tree
    # Whether the tree met missing values in training: only then does the text say where
    # they go (`(or missing)`), as `export_text` does; the conditions always know.
    met_missing: bool = False

    @property
    def regression(self) -> bool:
        """Whether the rules predict a number (a regression tree's)."""
        return self.classes is None

    @classmethod
    def from_tree(
        cls, nodes: dict[str, NDArray[Any]], schema: Schema, labels: Sequence[Any] | None
    ) -> RuleSet:
        """One rule per leaf of a tree's node arrays, in the order ``export_text`` prints them.

        Use :meth:`DecisionTreeClassifier.rules`, which passes a fitted model's arrays.

        Parameters
        ----------
        nodes : dict of str to numpy.ndarray
            The tree's arrays (``model.tree_.nodes()``).
        schema : object
            The fit-time features.
        labels : sequence, optional
            The class labels by code; None for a regression tree.

        Returns
        -------
        RuleSet
            The rules, with the root's prediction as default.

        Examples
        --------
        >>> import quercus
        >>> from quercus import RuleSet
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
        >>> state = model._fitted
        >>> len(RuleSet.from_tree(state.tree.nodes(), state.schema, state.labels))
        5
        """
        edges = node_conditions(nodes, schema.features)
        predictions = node_predictions(nodes, labels)
        first_child = nodes["first_child"].tolist()
        n_children = nodes["n_children"].tolist()
        support = nodes["weight"].tolist()
        confidence = _confidences(nodes, labels is None)
        missing_child = nodes["missing_child"].tolist() if "missing_child" in nodes else []
        missing_child += [-1] * (len(n_children) - len(missing_child))
        rules = []
        # The preconditions of the current path, one per feature in first-test order; entering
        # a node narrows its feature's, and an undo entry (-1, feature, previous) pushed under
        # the node's children restores it once the subtree is done, so each leaf costs its
        # number of features rather than its depth.
        path: dict[str, Precondition] = {}
        stack: list[tuple[int, str, Precondition | None]] = [(0, "", None)]
        while stack:
            node, feature, previous = stack.pop()
            if node < 0:
                if previous is None:
                    del path[feature]
                else:
                    path[feature] = previous
                continue
            if node > 0:
                condition = edges[node][1]
                previous = path.get(condition.feature)
                stack.append((-1, condition.feature, previous))
                path[condition.feature] = (
                    condition if previous is None else _narrow(previous, condition)
                )
            if n_children[node] == 0:
                conditions = tuple(path.values())
                rule = Rule(conditions, predictions[node], support[node], confidence[node], node)
                rules.append(rule)
                continue
            first = first_child[node]
            children = range(first + n_children[node] - 1, first - 1, -1)
            stack.extend((child, "", None) for child in children)
            if missing_child[node] == STAYS:  # the rows no child takes keep this prediction
                kept = support[node] - sum(support[c] for c in children)
                conditions = (*path.values(), unsent(nodes, node, schema.features))
                rules.append(Rule(conditions, predictions[node], kept, confidence[node], node))
        classes = None if labels is None else tuple(labels)
        met_missing = "missing_weight" in nodes and bool((nodes["missing_weight"] > 0).any())
        return cls(tuple(rules), predictions[0], schema, classes, met_missing)

    @property
    def target(self) -> str:
        """The target's name, which the rules predict."""
        return self.schema.target

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __getitem__(self, index: int) -> Rule:
        return self.rules[index]

    def __str__(self) -> str:
        return self.to_text()

    def apply(self, X: Any) -> NDArray[np.int64]:
        """The rule that fires for each row: the first that covers it.

        Parameters
        ----------
        X : array-like or DataFrame
            Rows with the training features (a DataFrame matched by name).

        Returns
        -------
        numpy.ndarray of shape (n_rows,)
            The rule's position, -1 where none fires and the default applies.

        Raises
        ------
        ValueError
            X does not match the training features.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> rules.apply(X[:4]).tolist()
        [0, 0, 2, 3]
        """
        columns = transform(X, self.schema)
        fired = np.full(n_rows_of(columns), -1, dtype=np.int64)
        open_rows = np.ones(len(fired), dtype=bool)
        for position, rule in enumerate(self.rules):
            if not open_rows.any():
                break
            covered = self._covers(rule.conditions, columns) & open_rows
            fired[covered] = position
            open_rows &= ~covered
        return fired

    def predict(self, X: Any) -> NDArray[Any]:
        """The prediction of the first rule covering each row, else the default.

        A row whose value is missing for a tested feature matches no condition on it (unless
        the condition lets missing values through), so it falls through to a later rule or
        to the default, where C4.5's fractions would follow every branch.

        Parameters
        ----------
        X : array-like or DataFrame
            Rows with the training features.

        Returns
        -------
        numpy.ndarray of shape (n_rows,)
            The predictions.

        Raises
        ------
        ValueError
            X does not match the training features.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> rules.predict(X[:4]).tolist()
        ['No', 'No', 'Yes', 'Yes']
        """
        outcomes = np.array([rule.prediction for rule in self.rules] + [self.default])
        return outcomes[self.apply(X)]  # -1, no rule, picks the default at the end

    def prune(self, X: Any, y: Any, *, sample_weight: Any = None) -> RuleSet:
        """Rule post-pruning on validation data (Mitchell 1997, section 3.7.1.2).

        Each rule repeatedly drops the precondition whose removal gives it the best
        validation accuracy, as long as that accuracy is not lower than the rule's current
        one (ties go to the earliest precondition in the rule). A precondition is one
        categorical condition or one bound of an interval. A rule's accuracy is the
        (weighted) share of the validation rows it covers that have its class; a rule that
        covers none keeps its conditions. The rules are then sorted by accuracy, highest
        first, keeping the tree's order among equals, and rules that covered no validation
        row last.

        Parameters
        ----------
        X : array-like or DataFrame
            The validation rows.
        y : array-like
            Their classes.
        sample_weight : array-like, optional
            Their weights.

        Returns
        -------
        RuleSet
            A new rule set; this one is unchanged.

        Raises
        ------
        ValueError
            A regression rule set (accuracy needs classes), a class unseen in training, or
            y of another length than X.

        Examples
        --------
        Grown on Mitchell's first ten days and pruned on the last four:

        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X[:10], y[:10])
        >>> print(model.rules().prune(X[10:], y[10:]))
        IF Outlook = Overcast THEN PlayTennis = Yes  [support 2, confidence 1.00, accuracy 1.00]
        IF Outlook = Rain THEN PlayTennis = No  [support 1, confidence 1.00, accuracy 1.00]
        IF Temperature = Mild THEN PlayTennis = No  [support 1, confidence 1.00, accuracy 0.33]
        IF Outlook = Sunny AND Temperature = Hot THEN PlayTennis = No  [support 2, confidence 1.00]
        IF Outlook = Sunny AND Temperature = Cool THEN PlayTennis = Yes
            [support 1, confidence 1.00]
        IF Outlook = Rain AND Wind = Weak THEN PlayTennis = Yes  [support 3, confidence 1.00]
        ELSE PlayTennis = Yes
        """
        if self.regression:
            raise ValueError("rule post-pruning measures accuracy, so it needs a classifier")
        columns = transform(X, self.schema)
        n_rows = n_rows_of(columns)
        assert self.classes is not None  # not a regression rule set
        classes = np.array(self.classes)
        truth = classes[class_codes(y, n_rows, classes)]  # a class unseen in training: error
        weights = sample_weights(sample_weight, n_rows)
        pruned = [self._prune_rule(rule, columns, truth, weights) for rule in self.rules]
        pruned.sort(key=lambda rule: (rule.accuracy is None, -(rule.accuracy or 0.0)))
        return replace(self, rules=tuple(pruned))

    def to_text(
        self,
        decimals: int = 4,
        max_categories: int | None = MAX_CATEGORIES,
        show_missing: bool | None = None,
    ) -> str:
        """The rules as text: one ``IF ... THEN ...`` line per rule and an ``ELSE`` default.

        Parameters
        ----------
        decimals : int, default=4
            Digits after the point.
        max_categories : int, optional
            Longer category lists show that many and a count (None: all);
            ``rules[i].conditions`` keep every category, as do ``to_sql`` and ``to_polars``.
        show_missing : bool, optional
            Mark the tests a missing value passes (``(or missing)``); None: when the tree
            met missing values in training.

        Returns
        -------
        str
            The lines, in order.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> print(rules.to_text(decimals=2))
        IF texture = clear AND density <= 0.38 THEN ripe = no  [support 2, confidence 1.00]
        IF texture = clear AND density > 0.38 THEN ripe = yes  [support 7, confidence 1.00]
        IF texture = slightly_blurry AND surface = hard THEN ripe = no  [support 4, confidence 1.00]
        IF texture = slightly_blurry AND surface = soft THEN ripe = yes
            [support 1, confidence 1.00]
        IF texture = blurry THEN ripe = no  [support 3, confidence 1.00]
        ELSE ripe = no
        """
        show = self.met_missing if show_missing is None else bool(show_missing)
        lines = [rule.to_text(self.target, decimals, max_categories, show) for rule in self.rules]
        lines.append(f"ELSE {self.target} = {self._default_text(decimals)}")
        return "\n".join(lines)

    def to_polars(self) -> pl.Expr:
        """The rules as one Polars ``when/then/otherwise`` expression over the original columns.

        Returns
        -------
        polars.Expr
            Named after the target: ``frame.with_columns(rules.to_polars())``, eager or
            lazy.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> X.lazy().select(rules.to_polars()).collect()["PlayTennis"].to_list()[:4]
        ['No', 'No', 'Yes', 'Yes']
        """
        chain: Then | ChainedThen | None = None
        for rule in self.rules:
            test = _all([condition.to_polars() for condition in rule.conditions])
            outcome = pl.lit(rule.prediction)
            chain = pl.when(test).then(outcome) if chain is None else chain.when(test).then(outcome)
        assert chain is not None  # a tree has at least one leaf
        return chain.otherwise(pl.lit(self.default)).alias(self.target)

    def to_sql(self, table: str | None = None) -> str:
        """The rules as an SQL ``CASE WHEN ... THEN ... ELSE default END`` expression.

        Identifiers are double-quoted and strings single-quoted (each quote doubled), so any
        name is safe. The columns must hold what quercus was fitted on: categories as their
        strings (booleans as 'false' / 'true'), numbers as numbers (dates as their day
        count), missing values as NULL (not NaN).

        Parameters
        ----------
        table : str, optional
            With it, a whole ``SELECT CASE ... END AS "target" FROM "table"`` (the table
            quoted as one identifier).

        Returns
        -------
        str
            The expression or the query.

        Examples
        --------
        >>> import quercus
        >>> X, y = quercus.datasets.load("playtennis", return_X_y=True)
        >>> rules = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y).rules()
        >>> print(rules.to_sql(table="days"))
        SELECT CASE
            WHEN "Outlook" = 'Sunny' AND "Humidity" = 'High' THEN 'No'
            WHEN "Outlook" = 'Sunny' AND "Humidity" = 'Normal' THEN 'Yes'
            WHEN "Outlook" = 'Overcast' THEN 'Yes'
            WHEN "Outlook" = 'Rain' AND "Wind" = 'Weak' THEN 'Yes'
            WHEN "Outlook" = 'Rain' AND "Wind" = 'Strong' THEN 'No'
            ELSE 'Yes'
        END AS "PlayTennis"
        FROM "days"
        """
        lines = ["CASE"]
        for rule in self.rules:
            test = " AND ".join(condition.to_sql() for condition in rule.conditions) or "TRUE"
            lines.append(f"    WHEN {test} THEN {quote_value(rule.prediction)}")
        lines += [f"    ELSE {quote_value(self.default)}", "END"]
        case = "\n".join(lines)
        if table is None:
            return case
        return f"SELECT {case} AS {quote_identifier(self.target)}\nFROM {quote_identifier(table)}"

    def _default_text(self, decimals: int) -> str:
        return format_prediction(self.default, self.regression, decimals)

    def _covers(
        self, conditions: Sequence[Precondition], columns: list[Column]
    ) -> NDArray[np.bool_]:
        covered = np.ones(n_rows_of(columns), dtype=bool)
        for condition in conditions:
            covered &= self._mask(condition, columns)
        return covered

    def _mask(self, condition: Precondition, columns: list[Column]) -> NDArray[np.bool_]:
        if isinstance(condition, Linear | Routed):
            return condition._mask_rows(columns, self.schema)
        position = self.schema.names.index(condition.feature)
        return condition._mask(dense_column(columns[position]), self.schema.features[position])

    def _prune_rule(
        self,
        rule: Rule,
        columns: list[Column],
        truth: NDArray[Any],
        weights: NDArray[np.float64],
    ) -> Rule:
        """Greedy removal of preconditions, each step tried on every remaining one."""
        parts = [part for condition in rule.conditions for part in condition._parts()]
        passes = [self._mask(part, columns) for part in parts]
        # failed[row] = how many kept preconditions the row fails: dropping precondition k
        # covers the rows failing none, plus those failing only k.
        failed = np.zeros(n_rows_of(columns), dtype=np.int64)
        for mask in passes:
            failed += ~mask
        hits = np.asarray(truth == rule.prediction, dtype=bool)

        def accuracy(covered: NDArray[np.bool_]) -> float | None:
            total = weights[covered].sum()
            return None if total == 0 else float(weights[covered & hits].sum() / total)

        current = accuracy(failed == 0)
        if current is None:
            return replace(rule, accuracy=None)
        kept = list(range(len(parts)))
        while kept:
            covered, missed_one = failed == 0, failed == 1
            best: tuple[float, int] | None = None
            for k in kept:
                score = accuracy(covered | (missed_one & ~passes[k]))
                if score is not None and score >= current and (best is None or score > best[0]):
                    best = (score, k)
            if best is None:
                break
            current, dropped = best
            kept.remove(dropped)
            failed -= ~passes[dropped]
        return replace(rule, conditions=_conjoin([parts[k] for k in kept]), accuracy=current)


def node_conditions(
    nodes: dict[str, NDArray[Any]], features: Sequence[Feature]
) -> dict[int, tuple[Condition, Precondition]]:
    """For each non-root node, the test that leads into it: as the tree words it and as the
    values it lets through (see `Condition`; the precondition into the child that takes a
    node's missing values lets them through too)."""
    kind = nodes["kind"].tolist()
    feature_index = nodes["feature"].tolist()
    threshold = nodes["threshold"].tolist()
    first_child = nodes["first_child"].tolist()
    n_children = nodes["n_children"].tolist()
    subset_offset = nodes["subset_offset"].tolist()
    subset_mask: NDArray[np.uint8] = nodes["subset_mask"]
    # Absent from hand-written arenas: then no split has a missing child.
    missing_child = (
        nodes["missing_child"].tolist() if "missing_child" in nodes else [-1] * len(kind)
    )
    edges: dict[int, tuple[Condition, Precondition]] = {}
    for node, node_kind in enumerate(kind):
        if n_children[node] == 0:
            continue
        first = first_child[node]
        if node_kind == OBLIQUE:
            terms = linear_terms(nodes, node, features)
            t = threshold[node]
            edges[first] = (Condition("", "<=", t, terms), Linear(terms, t))
            edges[first + 1] = (Condition("", ">", t, terms), Linear(terms, t, above=True))
            continue
        feature = features[feature_index[node]]
        name = feature.name
        categories = feature.categories or ()  # only numeric splits test a numeric feature
        if node_kind == MULTIWAY:
            for k in range(n_children[node]):
                if k == len(categories):  # missing="separate": the child of missing values
                    edges[first + k] = (Condition(name, "=", "?"), Membership(name, ()))
                    continue
                category = categories[k]
                edges[first + k] = (
                    Condition(name, "=", category),
                    Membership(name, (category,), universe=categories),
                )
            continue
        if node_kind == NUMERIC:
            t, time = threshold[node], feature.time
            edges[first] = (
                Condition(name, "<=", t, time=time),
                Interval(name, upper=t, time=time),
            )
            edges[first + 1] = (
                Condition(name, ">", t, time=time),
                Interval(name, lower=t, time=time),
            )
        elif node_kind == ORDERED:
            cut = int(threshold[node]) + 1
            at = categories[cut - 1]
            below, above = categories[:cut], categories[cut:]
            edges[first] = (Condition(name, "<=", at), Membership(name, below, universe=categories))
            edges[first + 1] = (
                Condition(name, ">", at),
                Membership(name, above, universe=categories),
            )
        else:  # SUBSET: mask 1 = child 0, 0 = child 1, 2 = unseen at the node (as missing)
            offset = subset_offset[node]
            sides = subset_mask[offset : offset + len(categories)].tolist()
            left, right, unseen = (
                tuple(c for c, s in zip(categories, sides, strict=True) if s == side)
                for side in (1, 0, 2)
            )
            # A category the node never saw goes where its missing values go, if anywhere.
            left_in = left + unseen if missing_child[node] == 0 else left
            right_in = right + unseen if missing_child[node] == 1 else right
            edges[first] = (
                Condition(name, "in", left, other=right),
                Membership(name, left_in, universe=categories),
            )
            edges[first + 1] = (
                Condition(name, "not in", left, other=right),
                Membership(name, right_in, universe=categories),
            )
    surrogates = nodes["surrogate_len"].tolist() if "surrogate_len" in nodes else []
    for node, taken in enumerate(missing_child):
        if taken == -1:  # a leaf, or C4.5's fractions
            continue
        if node < len(surrogates) and surrogates[node] > 0:
            _route(edges, nodes, node, features)
            continue
        if taken == STAYS:  # no child takes a missing value
            continue
        child = first_child[node] + taken
        condition, precondition = edges[child]
        assert not isinstance(precondition, Routed)  # only `_route` makes those
        edges[child] = (condition, replace(precondition, missing=True))
    return edges


def _route(
    edges: dict[int, tuple[Condition, Precondition]],
    nodes: dict[str, NDArray[Any]],
    node: int,
    features: Sequence[Feature],
) -> None:
    """The preconditions into a split's children made `Routed` by its surrogates."""
    first, n_children = int(nodes["first_child"][node]), int(nodes["n_children"][node])
    taken = int(nodes["missing_child"][node])
    known, chain = _routing(nodes, node, features)
    for k in range(n_children):
        condition, precondition = edges[first + k]
        assert not isinstance(precondition, Routed)  # one node's children, routed once
        test = replace(precondition, missing=False)
        if isinstance(test, Membership):  # a subset's unseen categories go by surrogates
            can_send = known[0].categories or ()
            test = replace(test, categories=tuple(c for c in test.categories if c in can_send))
        sends = tuple((surrogate_known, to_child(k)) for surrogate_known, to_child in chain)
        edges[first + k] = (condition, Routed(test, known, sends, k == taken, node))


def _routing(
    nodes: dict[str, NDArray[Any]], node: int, features: Sequence[Feature]
) -> tuple[tuple[Known, ...], list[tuple[Known, Callable[[int], Interval | Membership | bool]]]]:
    """What a split needs to send a row itself, and its surrogates in rank order."""
    if int(nodes["kind"][node]) == OBLIQUE:
        known = tuple(Known(name) for name, _ in linear_terms(nodes, node, features))
    else:
        known = (_known(nodes, node, features[int(nodes["feature"][node])]),)
    if "surrogate_offset" not in nodes or int(nodes["surrogate_len"][node]) == 0:
        return known, []
    start = int(nodes["surrogate_offset"][node])
    chain = [
        _surrogate(nodes, s, features[int(nodes["surrogate_feature"][s])])
        for s in range(start, start + int(nodes["surrogate_len"][node]))
    ]
    return known, chain


def unsent(nodes: dict[str, NDArray[Any]], node: int, features: Sequence[Feature]) -> Routed:
    """The precondition of the rows that stay at a split (`missing_child` -2): neither the
    split nor any surrogate can send them."""
    known, chain = _routing(nodes, node, features)
    surrogates = tuple((surrogate, False) for surrogate, _ in chain)
    return Routed(None, known, surrogates, default=True, node=node)


def _known(nodes: dict[str, NDArray[Any]], node: int, feature: Feature) -> Known:
    """What a split on `feature` can send: any number, or the categories it gives a child
    (a subset split's categories seen at the node, a multiway split's every category)."""
    if feature.categories is None:
        return Known(feature.name)
    if int(nodes["kind"][node]) == SUBSET:
        offset = int(nodes["subset_offset"][node])
        sides = nodes["subset_mask"][offset : offset + len(feature.categories)].tolist()
        seen = tuple(c for c, side in zip(feature.categories, sides, strict=True) if side != 2)
        return Known(feature.name, seen)
    return Known(feature.name, tuple(feature.categories))


def _surrogate(
    nodes: dict[str, NDArray[Any]], s: int, feature: Feature
) -> tuple[Known, Callable[[int], Interval | Membership | bool]]:
    """Surrogate `s`: what it can send, and for a child index the test that sends a row
    there (True / False: all / none of what it can send)."""
    at = int(nodes["surrogate_map"][s])
    name = feature.name
    if feature.categories is None:
        t = float(nodes["surrogate_threshold"][s])
        low, high = (int(c) for c in nodes["surrogate_children"][at : at + 2])

        def numeric(k: int) -> Interval | bool:
            if low == k and high == k:
                return True
            if low == k:
                return Interval(name, upper=t, time=feature.time)
            return Interval(name, lower=t, time=feature.time) if high == k else False

        return Known(name), numeric
    categories = feature.categories
    children = nodes["surrogate_children"][at : at + len(categories)].tolist()
    directed = tuple(c for c, child in zip(categories, children, strict=True) if child >= 0)

    def categorical(k: int) -> Membership | bool:
        here = tuple(c for c, child in zip(categories, children, strict=True) if child == k)
        if not here:
            return False
        return True if len(here) == len(directed) else Membership(name, here, universe=categories)

    return Known(name, directed), categorical


def _surrogate_text(sends: Interval | Membership | bool, decimals: int, limit: int | None) -> str:
    if isinstance(sends, bool):
        return "yes" if sends else "no"
    return sends.to_text(decimals, limit)


def _sql_bool(value: Interval | Membership | bool) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return f"({value.to_sql()})"


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


def node_predictions(nodes: dict[str, NDArray[Any]], labels: Sequence[Any] | None) -> list[Any]:
    """Each node's class label, or its mean target for a regression tree; a multi-output
    tree's as a tuple of its outputs' (`labels` then holds each output's labels)."""
    if nodes["label"].ndim == 2:
        if labels is None:
            return [tuple(row) for row in nodes["value"].tolist()]
        return [tuple(labels[k][c] for k, c in enumerate(row)) for row in nodes["label"].tolist()]
    if labels is None:
        return nodes["value"][:, 0].tolist()
    return [labels[code] for code in nodes["label"].tolist()]


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


def quote_identifier(name: str) -> str:
    """An SQL identifier in double quotes, inner double quotes doubled."""
    return '"' + name.replace('"', '""') + '"'


def quote_string(text: str) -> str:
    """An SQL string literal in single quotes, inner single quotes doubled."""
    return "'" + text.replace("'", "''") + "'"


def quote_value(value: Any) -> str:
    """A prediction as an SQL literal: a label string, a boolean or a number."""
    if isinstance(value, str):
        return quote_string(value)
    if isinstance(value, bool | np.bool_):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating) and math.isfinite(value):
        return _sql_number(value)
    raise TypeError(f"cannot write {value!r} as an SQL literal")


def _sql_number(value: float | np.floating[Any]) -> str:
    """The shortest decimal that reads back as the same float, so SQL compares exactly."""
    return repr(float(value))


def _confidences(nodes: dict[str, NDArray[Any]], regression: bool) -> list[float | None]:
    """Each node's share of weight in its own class (from `value`, which an empty node
    inherits from its parent, so it is never 0 / 0)."""
    if regression:
        return [None] * len(nodes["kind"])
    value: NDArray[np.float64] = nodes["value"]
    label = nodes["label"]
    return (value[np.arange(len(label)), label] / value.sum(axis=1)).tolist()


def _narrow(first: Precondition, second: Precondition) -> Precondition:
    """Both preconditions on one feature as one: the interval or category intersection."""
    if isinstance(first, Interval) and isinstance(second, Interval):
        return first._narrow(second)
    if isinstance(first, Membership) and isinstance(second, Membership):
        return first._narrow(second)
    if isinstance(first, Linear) and first == second:
        return first
    raise TypeError(f"{first.feature!r} is tested both as a number and as a category")


def _conjoin(preconditions: Sequence[Precondition]) -> tuple[Precondition, ...]:
    """The preconditions with those on one feature merged, in first-appearance order."""
    merged: dict[str, Precondition] = {}
    for condition in preconditions:
        previous = merged.get(condition.feature)
        merged[condition.feature] = condition if previous is None else _narrow(previous, condition)
    return tuple(merged.values())


def _extreme(
    pick: Callable[[float, float], float], a: float | None, b: float | None
) -> float | None:
    """`pick(a, b)` where None means no bound."""
    return b if a is None else a if b is None else pick(a, b)


def _all(tests: list[pl.Expr]) -> pl.Expr:
    """The conjunction of `tests`; for none (a one-leaf tree, a rule pruned to nothing) a
    column of True as long as the frame, since a lone literal makes `select` return one row."""
    return functools.reduce(operator.and_, tests) if tests else pl.repeat(True, pl.len())


_OR_MISSING = " (or missing)"


def _unmarked(condition: Precondition) -> Precondition:
    """`condition` as read when where missing values go is not shown: without `(or
    missing)`, except a test that passes missing values only (`x is missing`)."""
    if not getattr(condition, "missing", False):
        return condition
    if isinstance(condition, Membership) and not condition.categories:
        return condition
    return replace(condition, missing=False)


def _polars_in(value: pl.Expr, categories: Sequence[str]) -> pl.Expr:
    """`value` is one of `categories` (never true for a null)."""
    if not categories:
        return pl.lit(False)
    if len(categories) == 1:
        return value == categories[0]
    return value.is_in(list(categories))


def _sql_in(column: str, categories: Sequence[str]) -> str:
    """SQL's `column` is one of `categories` (never true for a NULL)."""
    if not categories:
        return "FALSE"
    if len(categories) == 1:
        return f"{column} = {quote_string(categories[0])}"
    return f"{column} IN ({', '.join(map(quote_string, categories))})"


def braced(categories: Sequence[str], limit: int | None = None) -> str:
    """`{a, b, c}`; with `limit`, at most that many listed and the rest counted:
    `{a, b, … 1,809 more}` (a list one longer than the limit is shown whole: the count
    would take the same room)."""
    if limit is None or len(categories) <= limit + 1:
        return "{" + ", ".join(categories) + "}"
    shown = ", ".join(categories[:limit])
    return "{" + f"{shown}, … {len(categories) - limit:,} more" + "}"
