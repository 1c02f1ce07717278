"""Dates, times and durations as numeric features.

The core splits a temporal column by its physical integers (days for a Date, the time unit's
ticks for a Datetime or Duration, nanoseconds for a Time), so a fitted feature remembers the
dtype it was fit on (`Feature.time`, e.g. ``"Datetime(us, UTC)"``). Later inputs are put on
that scale: a pandas ``datetime64[ns]`` column given to a tree fit on a Polars Date column is
read in days, not as nanoseconds compared with day thresholds. Thresholds are worded in the
fit's dtype (``2020-02-20``), not as ticks.
"""

from __future__ import annotations

import math
import re

import polars as pl

# Seconds per tick of each time unit; a Date's tick is a day.
_SECONDS = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9}
_DAY = 86_400.0
_UNITS = re.compile(r"(Datetime|Duration)\((ms|us|ns)(?:, (.+))?\)")
_TRAILING_ZEROS = re.compile(r"\.(\d*?)0+(?=$|[+-])")


def time_of(dtype: pl.DataType) -> str | None:
    """`Feature.time` of a column of `dtype`: its name and unit (and time zone), or None for
    a dtype that is no date, time or duration."""
    if isinstance(dtype, pl.Datetime):
        zone = f", {dtype.time_zone}" if dtype.time_zone else ""
        return f"Datetime({dtype.time_unit}{zone})"
    if isinstance(dtype, pl.Duration):
        return f"Duration({dtype.time_unit})"
    if isinstance(dtype, pl.Date):
        return "Date"
    if isinstance(dtype, pl.Time):
        return "Time"
    return None


def dtype_of(time: str) -> pl.DataType:
    """The Polars dtype `time_of` named; ValueError for a text it does not make (a model
    file's field is read back through this)."""
    if time == "Date":
        return pl.Date()
    if time == "Time":
        return pl.Time()
    match = _UNITS.fullmatch(time)
    if match is None:
        raise ValueError(f"{time!r} names no date, time or duration dtype")
    kind, unit, zone = match.groups()
    if kind == "Duration":
        if zone is not None:
            raise ValueError(f"{time!r}: a duration has no time zone")
        return pl.Duration(unit)
    return pl.Datetime(unit, zone)


def on_fit_scale(series: pl.Series, time: str | None) -> pl.Series:
    """`series` as numbers on the scale its feature was fit on (`time`: `Feature.time`).

    A column of the fit's dtype gives its physical integers. A date or time of another unit
    (or a Date for a Datetime, and back) is converted to the fit's ticks, as floats, so a
    value between two ticks keeps its side of a midpoint threshold. Plain numbers are taken
    as ticks already. TypeError names the column when the meaning differs: a date for a
    feature fit on numbers or on durations, a time zone on one side only."""
    dtype = series.dtype
    if not dtype.is_temporal():
        return series
    name = series.name
    if time is None:
        raise TypeError(
            f"column {name!r} was a plain number at fit but holds {dtype} now; pass the "
            "numbers it was fit on"
        )
    fit = dtype_of(time)
    if dtype == fit:
        return series.to_physical()
    if _family(dtype) != _family(fit):
        raise TypeError(f"column {name!r} was {fit} at fit and cannot be read from {dtype}")
    if _zoned(dtype) != _zoned(fit):
        with_zone = "with" if _zoned(fit) else "without"
        raise TypeError(
            f"column {name!r} held times {with_zone} a time zone at fit ({fit}) but is {dtype} now"
        )
    ratio = _tick_seconds(dtype) / _tick_seconds(fit)
    return series.to_physical().cast(pl.Float64) * ratio


def time_text(time: str, value: float) -> str:
    """A threshold of a feature fit on `time` as a date, time or duration of that dtype:
    ticks are whole numbers, so ``x <= 18312.5`` (days) is ``x <= 2020-02-20``."""
    tick = pl.Series([math.floor(value)], dtype=pl.Int64).cast(dtype_of(time))
    if time == "Date":
        text = tick.dt.to_string("%Y-%m-%d")
    elif time == "Time":
        text = tick.dt.to_string("%H:%M:%S%.f")
    elif time.startswith("Duration"):
        text = tick.dt.to_string("polars")
    else:
        zone = "%:z" if _zoned(tick.dtype) else ""
        text = tick.dt.to_string(f"%Y-%m-%d %H:%M:%S%.f{zone}")
    # No zero digits after the second: "13:00:00", "13:00:00.5+01:00".
    return _TRAILING_ZEROS.sub(_fraction, str(text.item()))


def _fraction(match: re.Match[str]) -> str:
    return f".{match.group(1)}" if match.group(1) else ""


def _family(dtype: pl.DataType) -> str:
    """What a value means: a point in time (Date, Datetime), a length, or a time of day."""
    if isinstance(dtype, (pl.Date, pl.Datetime)):
        return "point"
    return "length" if isinstance(dtype, pl.Duration) else "clock"


def _zoned(dtype: pl.DataType) -> bool:
    return isinstance(dtype, pl.Datetime) and dtype.time_zone is not None


def _tick_seconds(dtype: pl.DataType) -> float:
    if isinstance(dtype, (pl.Datetime, pl.Duration)):
        return _SECONDS[dtype.time_unit or "us"]
    return _DAY if isinstance(dtype, pl.Date) else _SECONDS["ns"]


def time_sql(time: str, value: float) -> str:
    """A threshold of a feature fit on `time` as a typed SQL literal, so a database compares
    the column in its own type (`time_text`'s wording)."""
    text = time_text(time, value)
    if time == "Date":
        return f"DATE '{text}'"
    if time == "Time":
        return f"TIME '{text}'"
    if time.startswith("Duration"):
        unit = {"ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}
        return f"INTERVAL '{math.floor(value)} {unit[dtype_of(time).time_unit or 'us']}'"
    kind = "TIMESTAMP WITH TIME ZONE" if _zoned(dtype_of(time)) else "TIMESTAMP"
    return f"{kind} '{text}'"
