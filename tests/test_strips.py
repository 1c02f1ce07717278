"""Regression trees as pictures draw them: each node's mean, weight and a strip of its
target's spread (weighted 5/25/50/75/95 % quantiles and the mean) on one axis per picture,
in `to_svg`, `_repr_svg_` and `to_dot`.

The quantiles are checked against NumPy's weighted inverted-CDF quantiles of the rows that
reach each node (C4.5's fractional rows with their shares, routed here by a few lines of
Python), and they are kept out of everything machine-readable: model files, `tree_` arrays,
SQL and Polars exports, which still agree with `predict` on a regression tree.
"""

from __future__ import annotations

import pickle
import re
import shutil
import sqlite3
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor
from quercus._core import LEAF, NUMERIC
from quercus.rules import format_number
from quercus.spread import QUANTILES

SVG = "{http://www.w3.org/2000/svg}"
GOLDEN = Path(__file__).parent / "golden"


def melons() -> pl.DataFrame:
    return quercus.datasets.load("watermelon3").drop("ripe")


def sugar_model() -> DecisionTreeRegressor:
    """Watermelon 3.0's sugar content from the other attributes: a small tree with subset,
    and threshold splits."""
    return DecisionTreeRegressor(max_depth=2).fit(melons(), target="sugar")


def noisy(n: int = 600, missing: float = 0.0, seed: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = 4 * X[:, 0] + np.where(X[:, 1] > 0.3, 3.0, -2.0) + rng.standard_t(3, size=n)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    w = rng.integers(1, 4, size=n).astype(np.float64)
    return X, y, w


def routed_shares(model: DecisionTreeRegressor, X: np.ndarray) -> list[dict[int, float]]:
    """For each row, the share of it that reaches each node, routed as C4.5 does for a tree
    of numeric splits: a missing value follows every branch with the stored fractions."""
    nodes = model.tree_.nodes()
    shares = []
    for row in X:
        reached: dict[int, float] = {}
        stack = [(0, 1.0)]
        while stack:
            node, share = stack.pop()
            reached[node] = reached.get(node, 0.0) + share
            kind = int(nodes["kind"][node])
            if kind == LEAF:
                continue
            assert kind == NUMERIC
            first, count = int(nodes["first_child"][node]), int(nodes["n_children"][node])
            x = row[int(nodes["feature"][node])]
            if np.isnan(x):
                for child in range(first, first + count):
                    fraction = float(nodes["branch_fraction"][child])
                    if fraction > 0:
                        stack.append((child, share * fraction))
            else:
                stack.append((first + (0 if x <= nodes["threshold"][node] else 1), share))
        shares.append(reached)
    return shares


def expected_quantiles(model, X, y, w) -> tuple[np.ndarray, np.ndarray]:
    """Each node's weighted quantiles and weight, from `routed_shares` and NumPy."""
    shares = routed_shares(model, X)
    quantiles = np.full((model.n_nodes_, len(QUANTILES)), np.nan)
    weight = np.zeros(model.n_nodes_)
    for node in range(model.n_nodes_):
        rows = [(r, s[node]) for r, s in enumerate(shares) if node in s]
        index = np.array([r for r, _ in rows])
        weights = w[index] * np.array([s for _, s in rows])
        weight[node] = weights.sum()
        quantiles[node] = np.quantile(y[index], QUANTILES, weights=weights, method="inverted_cdf")
    return quantiles, weight


# --- the quantiles --------------------------------------------------------------------------


def test_fit_records_weighted_quantiles_of_each_node():
    X, y, w = noisy()
    model = DecisionTreeRegressor(max_depth=4).fit(X, y, sample_weight=w)
    quantiles, weight = expected_quantiles(model, X, y, w)
    np.testing.assert_allclose(weight, model.tree_.nodes()["weight"])
    np.testing.assert_array_equal(model._state.quantiles, quantiles)


def test_fractional_rows_count_with_their_shares():
    X, y, w = noisy(missing=0.15)
    model = DecisionTreeRegressor(max_depth=4, missing="fractional").fit(X, y, sample_weight=w)
    quantiles, weight = expected_quantiles(model, X, y, w)
    # The rows reach every node with the weight the fit recorded there, fragments included.
    np.testing.assert_allclose(weight, model.tree_.nodes()["weight"], rtol=1e-12)
    np.testing.assert_array_equal(model._state.quantiles, quantiles)
    assert np.all(np.diff(model._state.quantiles, axis=1) >= 0)


def test_the_histogram_splitter_routes_its_training_rows_back_to_its_nodes():
    X, y, _ = noisy(n=3000)
    model = DecisionTreeRegressor(max_depth=5, splitter="hist", max_bins=16).fit(X, y)
    quantiles, weight = expected_quantiles(model, X, y, np.ones(len(y)))
    np.testing.assert_allclose(weight, model.tree_.nodes()["weight"])
    np.testing.assert_array_equal(model._state.quantiles, quantiles)


def test_pruning_keeps_the_quantiles_of_the_nodes_it_keeps():
    X, y, _ = noisy()
    model = DecisionTreeRegressor(max_depth=5).fit(X, y)
    for alpha in (0.05, 0.5, 1e9):
        pruned = model.prune("cost_complexity", ccp_alpha=alpha)
        refit = DecisionTreeRegressor(max_depth=5, ccp_alpha=alpha).fit(X, y)
        assert pruned.n_nodes_ == refit.n_nodes_
        np.testing.assert_array_equal(pruned._state.quantiles, refit._state.quantiles)


def test_the_quantiles_stay_out_of_the_model_and_its_exports():
    from dataclasses import replace

    model = sugar_model()
    assert model._state.quantiles is not None
    bare = pickle.loads(pickle.dumps(model))
    bare._fitted = replace(model._state, quantiles=None)
    assert model.to_bytes() == bare.to_bytes()
    assert model.to_sql("t") == bare.to_sql("t")
    assert str(model.to_polars_expr()) == str(bare.to_polars_expr())
    for name, array in model.tree_.nodes().items():
        np.testing.assert_array_equal(array, bare.tree_.nodes()[name], err_msg=name)
    assert model.tree_.value.tobytes() == bare.tree_.value.tobytes()
    loaded = quercus.from_bytes(model.to_bytes())
    assert loaded._state.quantiles is None
    assert loaded.to_bytes() == model.to_bytes()


def test_pickle_keeps_them_beside_the_model_bytes():
    model = sugar_model()
    state = model.__getstate__()
    assert state["_quercus_model"] == model.to_bytes()
    np.testing.assert_array_equal(state["_quercus_quantiles"], model._state.quantiles)
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy._state.quantiles, model._state.quantiles)
    assert copy.to_svg() == model.to_svg()
    # A pickle from before (no quantiles) or with a wrong shape: strips of mean ± sd.
    for value in (None, np.zeros((2, 5)), np.zeros((model.n_nodes_, 5), dtype=np.float32)):
        twin = DecisionTreeRegressor.__new__(DecisionTreeRegressor)
        twin.__setstate__({**state, "_quercus_quantiles": value})
        assert twin._state.quantiles is None
        assert twin.predict(melons()).tolist() == model.predict(melons()).tolist()


# --- the machine-readable exports of a regression tree --------------------------------------


def test_regression_sql_and_polars_agree_with_predict():
    frame = melons()
    model = DecisionTreeRegressor(max_depth=4).fit(frame, target="sugar")
    X = frame.drop("sugar")
    predicted = model.predict(X)
    db = sqlite3.connect(":memory:")
    names = X.columns
    db.execute(f"CREATE TABLE t ({', '.join(names)})")
    db.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(names))})", X.rows())
    from_sql = [row[0] for row in db.execute(model.to_sql("t"))]
    np.testing.assert_allclose(from_sql, predicted, rtol=0, atol=1e-12)
    from_polars = X.select(model.to_polars_expr()).to_series().to_numpy()
    np.testing.assert_allclose(from_polars, predicted, rtol=0, atol=1e-12)


# --- pictures -------------------------------------------------------------------------------


def _strips(svg: ET.Element) -> dict[int, ET.Element]:
    """Node id -> the strip group inside its box."""
    strips = {}
    for group in svg.iter(f"{SVG}g"):
        title = group.find(f"{SVG}title")
        inner = [g for g in group.findall(f"{SVG}g") if g.get("class") == "strip"]
        if title is not None and (title.text or "").startswith("node ") and inner:
            strips[int((title.text or "").removeprefix("node "))] = inner[0]
    return strips


def _strip_geometry(strip: ET.Element) -> dict[str, float]:
    """The x positions a strip draws: its axis, whisker ends, box, median and mean."""
    (axis,) = [r for r in strip.findall(f"{SVG}rect") if r.get("class") == "strip-axis"]
    (box,) = [r for r in strip.findall(f"{SVG}rect") if r.get("class") == "quartiles"]
    lines = {line.get("class"): line for line in strip.findall(f"{SVG}line")}
    (mean,) = [p for p in strip.findall(f"{SVG}path") if p.get("class") == "mean"]
    left = float(axis.get("x", 0))
    match = re.match(r"M([-\d.]+) ", mean.get("d", ""))
    assert match
    geometry = {
        "axis_left": left,
        "axis_right": left + float(axis.get("width", 0)),
        "q1": float(box.get("x", 0)),
        "q3": float(box.get("x", 0)) + float(box.get("width", 0)),
        "mean": float(match.group(1)),
    }
    if "whisker" in lines:
        geometry["low"] = float(lines["whisker"].get("x1", 0))
        geometry["high"] = float(lines["whisker"].get("x2", 0))
        geometry["median"] = float(lines["median"].get("x1", 0))
    return geometry


def test_svg_strips_are_wellformed_on_one_axis():
    X, y, w = noisy()
    model = DecisionTreeRegressor(max_depth=3).fit(X, y, sample_weight=w)
    svg = ET.fromstring(model.to_svg())
    strips = _strips(svg)
    assert sorted(strips) == list(range(model.n_nodes_))
    axes = {
        (round(g["axis_left"] - g["axis_right"], 6)) for g in map(_strip_geometry, strips.values())
    }
    assert len(axes) == 1  # every strip is as wide: one scale for all
    quantiles = model._state.quantiles
    means = model.tree_.nodes()["value"][:, 0]
    low = min(quantiles[:, 0].min(), means.min())
    high = max(quantiles[:, -1].max(), means.max())
    for node, strip in strips.items():
        g = _strip_geometry(strip)
        order = [g["axis_left"], g["low"], g["q1"], g["median"], g["q3"], g["high"]]
        assert order == sorted(order), (node, g)  # quantiles in order, inside the axis
        assert g["high"] <= g["axis_right"] + 1e-9
        assert g["axis_left"] <= g["mean"] <= g["axis_right"]
        # Each mark where its value lies on the shared axis (2-decimal coordinates).
        scale = (g["axis_right"] - g["axis_left"]) / (high - low)
        figures = dict(zip(("low", "q1", "median", "q3", "high"), quantiles[node], strict=True))
        for key, value in {**figures, "mean": means[node]}.items():
            assert g[key] == pytest.approx(g["axis_left"] + (value - low) * scale, abs=0.01)
        tip = strip.find(f"{SVG}title")
        assert tip is not None and (tip.text or "").startswith("5 % ")
    legend = " ".join("".join(t.itertext()) for t in svg.iter(f"{SVG}text"))
    assert "whiskers 5-95 %, box 25-75 %, | median, ◆ mean of the training rows" in legend
    assert model._repr_svg_().count('class="strip"') == model.n_nodes_


def test_a_loaded_model_draws_mean_and_sd_unless_given_rows(tmp_path: Path):
    model = sugar_model()
    model.save(tmp_path / "sugar.qrc")
    loaded = quercus.load(tmp_path / "sugar.qrc")
    svg = ET.fromstring(loaded.to_svg())
    legend = " ".join("".join(t.itertext()) for t in svg.iter(f"{SVG}text"))
    assert "box: mean ± 1 sd" in legend and "to_svg(data=(X, y))" in legend
    nodes = loaded.tree_.nodes()
    for node, strip in _strips(svg).items():
        g = _strip_geometry(strip)
        assert "median" not in g  # no whiskers, no median: a box of mean ± sd
        assert g["mean"] == pytest.approx((g["q1"] + g["q3"]) / 2, abs=0.02)
        tip = strip.find(f"{SVG}title").text or ""  # type: ignore[union-attr]
        sd = np.sqrt(nodes["impurity"][node])
        mean = nodes["value"][node, 0]
        assert tip == f"mean {format_number(mean, 3)} ± {format_number(sd, 3)} (1 sd)"
    # The training rows again give exactly the picture the fitted model draws.
    frame = melons()
    given = loaded.to_svg(data=(frame.drop("sugar"), frame["sugar"]))
    assert given.replace("rows given as data", "training rows") == model.to_svg()
    assert loaded.to_dot(data=(frame.drop("sugar"), frame["sugar"])) == model.to_dot()


def test_data_draws_other_rows_and_is_checked():
    model = sugar_model()
    frame = melons()
    test = frame.head(8)
    svg = model.to_svg(data=(test.drop("sugar"), test["sugar"], np.full(8, 2.0)))
    assert "of the rows given as data" in svg
    spread = model._spread(model.tree_.nodes(), (test.drop("sugar"), test["sugar"]))
    # Nodes none of the 8 rows reach draw no strip; the others show those rows only.
    reached = np.isfinite(spread.mean)
    assert len(_strips(ET.fromstring(svg))) == reached.sum() < model.n_nodes_
    assert spread.quantiles is not None
    assert (
        spread.quantiles[0].tolist()
        == np.quantile(test["sugar"].to_numpy(), QUANTILES, method="inverted_cdf").tolist()
    )
    with pytest.raises(ValueError, match="tuple"):
        model.to_svg(data=frame)
    with pytest.raises(ValueError, match="y"):
        model.to_svg(data=(frame.drop("sugar"), frame["sugar"].head(3)))
    with pytest.raises(ValueError, match="classifier"):
        DecisionTreeClassifier().fit(frame, target="texture").to_svg(data=(frame, frame["sugar"]))


def test_regression_dot_golden():
    """The watermelon sugar tree's DOT, labels and strips included (checked by eye as drawn
    by Graphviz: the root's whiskers span 0.042-0.460, its box 0.103-0.267, the mean 0.213
    drawn over the median 0.211; every strip 96 points on one axis)."""
    dot = sugar_model().to_dot()
    assert dot == (GOLDEN / "sugar_dot.txt").read_text(encoding="utf-8")
    if shutil.which("dot"):
        result = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True)
        assert result.returncode == 0, result.stderr.decode()
        assert not result.stderr, result.stderr.decode()  # no warning about a cell's size
