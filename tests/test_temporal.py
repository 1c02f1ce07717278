"""Dates, times and durations as features: read on the scale they were fit on, whatever
temporal dtype predict is given, and worded in their own dtype."""

from __future__ import annotations

import datetime as dt
import json
import math
import re

import numpy as np
import polars as pl
import pytest
from helpers import to_pandas

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor, _core

EPOCH = dt.date(1970, 1, 1)


def _frame(n: int = 400, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray]:
    """One column of each temporal dtype; the class depends on the day, the hour, the
    duration and the time of day, so every column gets splits."""
    rng = np.random.default_rng(seed)
    day = rng.integers(0, 365, n)
    seconds = rng.integers(0, 86_400 * 30, n)
    minutes = rng.integers(0, 600, n)
    clock = rng.integers(0, 86_400, n)
    start = dt.datetime(2021, 3, 1)
    frame = pl.DataFrame(
        {
            "day": [EPOCH + dt.timedelta(days=18_000 + int(d)) for d in day],
            "at": [start + dt.timedelta(seconds=int(s)) for s in seconds],
            "at_utc": [
                dt.datetime(2021, 3, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=int(s))
                for s in seconds[::-1]
            ],
            "wait": [dt.timedelta(minutes=int(m)) for m in minutes],
            "clock": [dt.time(int(c) // 3600, int(c) // 60 % 60, int(c) % 60) for c in clock],
        }
    )
    tests = (day > 180, seconds % 86_400 > 43_200, minutes > 300, clock > 30_000)
    score = np.sum(tests, axis=0)
    return frame, np.where(score + rng.integers(0, 2, n) >= 3, "late", "on time")


def test_a_date_feature_reads_other_temporal_dtypes_on_its_own_scale() -> None:
    frame, y = _frame()
    days = frame.select("day")
    model = DecisionTreeClassifier(max_depth=4).fit(days, y)
    expected = model.predict(days)
    for cast in (pl.Datetime("us"), pl.Datetime("ns"), pl.Datetime("ms")):
        other = days.with_columns(pl.col("day").cast(cast))
        assert (model.predict(other) == expected).all()
        assert (model.predict(to_pandas(other)) == expected).all()  # datetime64
        assert (model.predict(other[:3]) == expected[:3]).all()  # a small frame
    # Whole numbers are taken as the fit's ticks (days here).
    ticks = days.with_columns(pl.col("day").to_physical())
    assert (model.predict(ticks) == expected).all()


def test_a_time_between_ticks_keeps_its_side_of_the_threshold() -> None:
    """A Date tree splits at a half day; a Datetime given later falls on the side of its own
    instant (18:00 of the day below the threshold is above it), not of its truncated day."""
    frame, y = _frame()
    model = DecisionTreeRegressor(max_depth=1).fit(frame.select("day"), y == "late")
    threshold = float(model.tree_.nodes()["threshold"][0])
    day = EPOCH + dt.timedelta(days=math.floor(threshold))
    at = pl.DataFrame({"day": [dt.datetime.combine(day, dt.time(h)) for h in (6, 18)]})
    below, above = model.predict(pl.DataFrame({"day": [day, day + dt.timedelta(days=1)]}))
    assert below != above
    assert model.predict(at).tolist() == [below, above]


def test_datetime_units_convert_without_truncation() -> None:
    frame, y = _frame()
    model = DecisionTreeClassifier(max_depth=6).fit(frame.select("at", "wait"), y)
    expected = model.predict(frame)
    finer = frame.with_columns(
        pl.col("at").cast(pl.Datetime("ns")), pl.col("wait").cast(pl.Duration("ns"))
    )
    assert (model.predict(finer) == expected).all()


@pytest.mark.parametrize(
    ("fit_column", "given", "words"),
    [
        ("day", pl.col("wait").alias("day"), "was Date at fit"),
        ("wait", pl.col("day").alias("wait"), "was Duration"),
        ("at", pl.col("at_utc").alias("at"), "without a time zone"),
        ("at_utc", pl.col("at").alias("at_utc"), "with a time zone"),
    ],
)
def test_a_temporal_value_of_another_meaning_is_refused(
    fit_column: str, given: pl.Expr, words: str
) -> None:
    frame, y = _frame()
    model = DecisionTreeClassifier(max_depth=3).fit(frame.select(fit_column), y)
    with pytest.raises(TypeError, match=rf"column '{fit_column}' .*{words}"):
        model.predict(frame.select(given))


def test_a_date_for_a_feature_fit_on_numbers_is_refused() -> None:
    frame, y = _frame()
    numbers = frame.select(pl.col("day").to_physical())
    model = DecisionTreeClassifier(max_depth=3).fit(numbers, y)
    with pytest.raises(TypeError, match="column 'day' was a plain number at fit"):
        model.predict(frame.select("day"))


def _thresholds(model: DecisionTreeClassifier) -> dict[str, list[float]]:
    nodes = model.tree_.nodes()
    names = model.feature_names_in_
    found: dict[str, list[float]] = {}
    for kind, feature, t in zip(nodes["kind"], nodes["feature"], nodes["threshold"], strict=True):
        if kind == _core.NUMERIC:
            found.setdefault(str(names[feature]), []).append(float(t))
    return found


def _worded(instant: dt.datetime) -> str:
    """An instant as a threshold is worded: no zero digits after the second (midpoints of
    whole seconds end in .5), the offset of a UTC one."""
    fraction = f".{instant.microsecond:06d}".rstrip("0") if instant.microsecond else ""
    zone = "" if instant.tzinfo is None else "+00:00"
    return instant.strftime("%Y-%m-%d %H:%M:%S") + fraction + zone


def test_thresholds_are_worded_in_the_fit_dtype() -> None:
    frame, y = _frame()
    model = DecisionTreeClassifier(max_depth=5).fit(frame, y)
    text = model.export_text()
    thresholds = _thresholds(model)
    assert set(thresholds) == set(frame.columns)
    for t in thresholds["day"]:
        assert f"day <= {EPOCH + dt.timedelta(days=math.floor(t))}" in text
    for t in thresholds["at"]:
        instant = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=math.floor(t))
        assert f"at <= {_worded(instant)}" in text
    for t in thresholds["at_utc"]:
        instant = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=math.floor(t))
        assert f"at_utc <= {_worded(instant)}" in text
    assert not re.search(r"\d{8,}", text), "ticks printed as numbers"
    rules = str(model.rules())
    assert not re.search(r"\d{8,}", rules)
    assert "wait <= " in rules and "clock" in rules


def test_sql_and_polars_expressions_compare_in_the_columns_own_type() -> None:
    frame, y = _frame()
    model = DecisionTreeClassifier(max_depth=6, random_state=0).fit(frame, y)
    expected = model.predict(frame)
    by_sql = pl.SQLContext(rows=frame).execute(model.to_sql("rows")).collect().to_series()
    assert (by_sql.to_numpy() == expected).all()
    by_expr = frame.select(model.to_polars_expr()).to_series()
    assert (by_expr.to_numpy() == expected).all()
    assert "DATE '" in model.to_sql("rows")


def test_the_fit_dtype_survives_a_save(tmp_path) -> None:
    frame, y = _frame()
    model = DecisionTreeClassifier(max_depth=4).fit(frame.select("day"), y)
    loaded = quercus.from_bytes(model.to_bytes())
    other = to_pandas(frame.select(pl.col("day").cast(pl.Datetime("ns"))))
    assert (loaded.predict(other) == model.predict(frame.select("day"))).all()
    assert loaded.export_text() == model.export_text()


def test_a_model_file_with_an_unknown_time_dtype_is_refused() -> None:
    frame, y = _frame()
    model = DecisionTreeClassifier(max_depth=2).fit(frame.select("day"), y)
    tree, raw = _core.load_model(model.to_bytes())
    metadata = json.loads(raw)
    assert metadata["features"][0]["time"] == "Date"
    metadata["features"][0]["time"] = "Dote"
    with pytest.raises(ValueError, match=r"'day'.*'Dote' names no date"):
        quercus.from_bytes(tree.to_bytes(json.dumps(metadata).encode()))
