"""Parameter constraints, declared once per estimator and checked in one place.

Each estimator class holds a table `name -> constraints` (scikit-learn's
`_parameter_constraints` idea); `check_params` checks every parameter against it at fit, and
each failure reads the same way: `The 'max_depth' parameter must be an int in the range [1,
2147483647] or None; got 0` (scikit-learn's wording of ranges, so that its tests' patterns
match). The error is a `InvalidParameterError`, a ValueError (what quercus has always raised) and a
TypeError (what scikit-learn's own parameter errors also are).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

__all__ = [
    "COUNT_MAX",
    "ArrayLike",
    "Boolean",
    "Dict",
    "Dicts",
    "Integer",
    "InvalidParameterError",
    "Jobs",
    "Names",
    "Options",
    "Real",
    "RealNotInt",
    "Seed",
    "check",
    "check_params",
]

# The largest count the core takes (a Rust usize on every platform quercus builds for).
COUNT_MAX = sys.maxsize


class InvalidParameterError(ValueError, TypeError):
    """A parameter outside its constraints.

    Catchable as ValueError or TypeError, as scikit-learn's error of the same name; the
    message names the parameter, what it accepts and what it got.

    Examples
    --------
    >>> import quercus
    >>> X, y = quercus.datasets.load("watermelon3", return_X_y=True)
    >>> try:
    ...     quercus.DecisionTreeClassifier(max_depth=0).fit(X, y)
    ... except quercus.InvalidParameterError as error:
    ...     print(error)
    The 'max_depth' parameter must be an int in the range [1, 2147483647] or None; got 0
    """


class Constraint(Protocol):
    """One accepted form of a parameter's value."""

    def accepts(self, value: Any) -> bool: ...

    def describe(self) -> str: ...

    def normal(self, value: Any) -> Any:
        """The value as the core takes it (a Python int or float)."""
        ...


def _is_integer(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _is_real(value: Any) -> bool:
    return (
        isinstance(value, int | float | np.integer | np.floating)
        and not isinstance(value, bool | np.bool_)
        and math.isfinite(float(value))
    )


@dataclass(frozen=True)
class Integer:
    """An integer in [low, high] (a Python or NumPy integer, never a bool). A count without
    an upper bound (`high` COUNT_MAX) takes any larger integer too, as the core's largest
    count: no data set holds more rows, nodes or leaves, so the larger bound bounds the
    same (scikit-learn raises OverflowError or MemoryError there instead)."""

    low: int
    high: int = COUNT_MAX

    def accepts(self, value: Any) -> bool:
        unbounded = self.high == COUNT_MAX
        return _is_integer(value) and self.low <= value and (unbounded or value <= self.high)

    def describe(self) -> str:
        high = "inf)" if self.high == COUNT_MAX else f"{self.high}]"
        return f"an int in the range [{self.low}, {high}"

    def normal(self, value: Any) -> int:
        return min(int(value), self.high)


@dataclass(frozen=True)
class Real:
    """A finite real number in [low, high], or (low, high] with `open_low`."""

    low: float
    high: float = math.inf
    open_low: bool = False

    def accepts(self, value: Any) -> bool:
        if not _is_real(value):
            return False
        number = float(value)
        return (number > self.low if self.open_low else number >= self.low) and number <= self.high

    def describe(self) -> str:
        return f"a number in {'(' if self.open_low else '['}{self.low}, {self.high}]"

    def normal(self, value: Any) -> float:
        return float(value)


@dataclass(frozen=True)
class RealNotInt:
    """A fraction: a finite real number that is not an integer type (scikit-learn's
    `RealNotInt`, so `1` and `1.0` mean a count and a share), in (low, high] or, with
    `open_high`, (low, high)."""

    low: float
    high: float
    open_high: bool = False

    def accepts(self, value: Any) -> bool:
        if not _is_real(value) or _is_integer(value):
            return False
        number = float(value)
        return self.low < number and (number < self.high if self.open_high else number <= self.high)

    def describe(self) -> str:
        return f"a float in the range ({self.low}, {self.high}{')' if self.open_high else ']'}"

    def normal(self, value: Any) -> float:
        return float(value)


@dataclass(frozen=True)
class Seed:
    """What scikit-learn's `check_random_state` takes besides None: an int seed in [0, 2**32 -
    1] (NumPy's `RandomState` bounds), a NumPy `RandomState` or a `Generator` (kept as it is:
    a seed is drawn from it at fit)."""

    def accepts(self, value: Any) -> bool:
        if _is_integer(value):
            return 0 <= value <= 2**32 - 1
        return isinstance(value, np.random.RandomState | np.random.Generator)

    def describe(self) -> str:
        return "an int in the range [0, 4294967295], a numpy RandomState or Generator"

    def normal(self, value: Any) -> Any:
        return int(value) if _is_integer(value) else value


@dataclass(frozen=True)
class Options:
    """One of a fixed set of strings."""

    values: tuple[str, ...]

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.values

    def describe(self) -> str:
        return f"one of {', '.join(map(repr, self.values))}"

    def normal(self, value: Any) -> str:
        return str(value)


@dataclass(frozen=True)
class Boolean:
    """True or False (NumPy's too)."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool | np.bool_)

    def describe(self) -> str:
        return "a boolean"

    def normal(self, value: Any) -> bool:
        return bool(value)


@dataclass(frozen=True)
class ArrayLike:
    """A NumPy array, a list or a tuple (its contents are checked where they are used)."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, np.ndarray | list | tuple)

    def describe(self) -> str:
        return "an array-like"

    def normal(self, value: Any) -> Any:
        return value


@dataclass(frozen=True)
class Dict:
    """A mapping (its keys and values are checked where they are used)."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, Mapping)

    def describe(self) -> str:
        return "a dict"

    def normal(self, value: Any) -> Any:
        return value


@dataclass(frozen=True)
class Dicts:
    """A list or tuple of mappings (one per output of a multi-output y)."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, list | tuple) and all(isinstance(v, Mapping) for v in value)

    def describe(self) -> str:
        return "a list of dicts"

    def normal(self, value: Any) -> Any:
        return value


@dataclass(frozen=True)
class Names:
    """A list, tuple or set of column names."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, Sequence | set | frozenset) and not isinstance(value, str)

    def describe(self) -> str:
        return "a list of column names"

    def normal(self, value: Any) -> Any:
        return value


@dataclass(frozen=True)
class Jobs:
    """A thread count as scikit-learn's `n_jobs` counts: k >= 1 threads, or -1 every core,
    -2 all but one, and so on (never 0); at most `high` (beyond the cores threads only cost
    memory)."""

    high: int

    def accepts(self, value: Any) -> bool:
        return _is_integer(value) and value != 0 and value <= self.high

    def describe(self) -> str:
        return f"a non-zero integer <= {self.high} (-1: every core, -2: all but one, ...)"

    def normal(self, value: Any) -> int:
        return int(value)


# None in a constraint list: the parameter may be None.
Constraints = tuple[Constraint | None, ...]


def check(name: str, value: Any, constraints: Constraints) -> Any:
    """`value` in the form the first constraint it meets gives it; else InvalidParameterError
    naming the parameter, what it accepts and what it got."""
    for constraint in constraints:
        if constraint is None:
            if value is None:
                return None
        elif constraint.accepts(value):
            return constraint.normal(value)
    forms = [c.describe() for c in constraints if c is not None]
    if None in constraints:
        forms.append("None")
    accepted = forms[0] if len(forms) == 1 else f"{', '.join(forms[:-1])} or {forms[-1]}"
    raise InvalidParameterError(f"The {name!r} parameter must be {accepted}; got {value!r}")


def check_params(table: Mapping[str, Constraints], given: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter of `table` checked, by name."""
    return {name: check(name, given[name], constraints) for name, constraints in table.items()}
