"""Model hashes over a seeded sweep of fit configurations: a guard that a speed-up changes
no tree.

Usage:
    python bench/tree_hashes.py --out hashes.json          # record (e.g. on the base commit)
    python bench/tree_hashes.py --check hashes.json        # compare; exit 1 on a difference

Each configuration draws (from one seed, so every run draws the same ones) a data set — rows,
numeric columns in float64 or float32, row- or column-major or a Polars/pandas frame, missing
values, nominal categorical columns, sample weights — and an estimator's parameters: the
algorithm, every criterion of its kind, every missing strategy, every splitter, J48's
conventions, class weights, priors, costs, monotonic constraints, feature draws, best-first
growth, the category regularisers and thread counts. The model file's SHA-256 is the
configuration's hash, written with the parameters set away from their defaults only (a new
parameter, at its default, changes no hash); a configuration the estimator refuses records
its error's type instead. Some data sets are large enough (10k to 250k rows) that nodes search
their features in parallel and long columns are sampled for their bin edges.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

import quercus
from quercus import _choices, model_io
from quercus._choices import STRATEGIES

SEED = 15
# Every criterion and `missing=` value the package knows ("log_loss" is entropy by another
# name: the same trees).
CLASS_CRITERIA = tuple(c for c in _choices.CLASS_CRITERIA if c != "log_loss")
REGRESSION_CRITERIA = _choices.REGRESSION_CRITERIA
MISSING = STRATEGIES
SIZES = (60, 300, 2_000, 2_000, 12_000, 40_000)
LARGE = 250_000  # beyond the 200,000-row sample of bin edges


def draw_data(rng: np.random.Generator, rows: int) -> dict[str, Any]:
    """A data set: numeric columns of several shapes (smooth, tied, few values, signed zeros,
    skewed), maybe missing values and nominal columns, a class and a positive real target."""
    n_numeric = int(rng.integers(2, 9))
    n_nominal = int(rng.choice([0, 0, 1, 2]))
    missing = float(rng.choice([0.0, 0.0, 0.05, 0.3]))
    columns = []
    for _ in range(n_numeric):
        shape = rng.integers(0, 5)
        if shape == 0:
            x = rng.normal(size=rows)
        elif shape == 1:
            x = np.floor(rng.uniform(0, 12, rows)) * 0.5
        elif shape == 2:
            x = np.where(rng.random(rows) < 0.5, -0.0, 0.0) + rng.integers(0, 3, rows)
        elif shape == 3:
            x = rng.lognormal(0, 2, rows)
        else:
            x = rng.uniform(-1e3, 1e3, rows).round(1)
        columns.append(x)
    X = np.column_stack(columns)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    signal = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) + rng.normal(scale=0.7, size=rows)
    nominal = []
    for j in range(n_nominal):
        k = int(rng.choice([3, 7, 40]))
        codes = rng.integers(0, k, rows)
        signal += (codes % 3 == 0) * 0.8
        labels = [f"v{j}_{c}" for c in range(k)]
        values = np.array(labels, dtype=object)[codes]
        if missing:
            values[rng.random(rows) < missing] = None
        nominal.append((f"c{j}", labels, values))
    n_classes = int(rng.choice([2, 2, 3]))
    cuts = np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1])
    y_class = np.searchsorted(cuts, signal)
    y_real = np.exp(signal / max(1.0, float(np.abs(signal).max())) * 2)
    return {"X": X, "nominal": nominal, "y_class": y_class, "y_real": y_real}


def layout(rng: np.random.Generator, data: dict[str, Any]) -> tuple[Any, str]:
    """The data as a caller may hand it: an array (float64/float32, C or F order) when no
    column is nominal, else (or sometimes) a Polars or pandas frame."""
    X = data["X"]
    forms = ["polars", "pandas"] if data["nominal"] else ["C", "F", "C32", "F32", "polars"]
    form = str(rng.choice(forms))
    if form in ("C", "F", "C32", "F32"):
        dtype = np.float32 if form.endswith("32") else np.float64
        order = form[0]
        return np.asarray(X, dtype=dtype, order=order), form
    names = [f"x{j}" for j in range(X.shape[1])]
    if form == "polars":
        frame = {n: pl.Series(n, X[:, j], nan_to_null=True) for j, n in enumerate(names)}
        for name, labels, values in data["nominal"]:
            frame[name] = pl.Series(name, values.tolist(), dtype=pl.Enum(labels))
        return pl.DataFrame(frame), form
    pframe: dict[str, Any] = {n: X[:, j] for j, n in enumerate(names)}
    for name, labels, values in data["nominal"]:
        pframe[name] = pd.Categorical(values, categories=labels)
    return pd.DataFrame(pframe), form


def draw_params(rng: np.random.Generator, regression: bool, n_classes: int, n_cols: int) -> dict:
    """An estimator's parameters: most left at their defaults, a few drawn."""

    def maybe(p: float) -> bool:
        return bool(rng.random() < p)

    algorithm = str(rng.choice(["cart", "cart", "c4.5", "id3"])) if not regression else "cart"
    params: dict[str, Any] = {"algorithm": algorithm}
    criteria = REGRESSION_CRITERIA if regression else CLASS_CRITERIA
    if maybe(0.7):
        params["criterion"] = str(rng.choice(criteria))
    params["missing"] = str(rng.choice(MISSING))
    params["splitter"] = str(rng.choice(["exact", "hist", "hist", "auto", "random"]))
    if params["splitter"] == "random" or maybe(0.15):
        params["random_state"] = int(rng.integers(0, 1000))
    if maybe(0.2):
        params["max_features"] = str(rng.choice(["sqrt", "log2"]))
        params["random_state"] = int(rng.integers(0, 1000))
    params["max_depth"] = [None, 3, 6, 10][int(rng.integers(0, 4))]
    if maybe(0.3):
        params["min_samples_leaf"] = int(rng.choice([2, 5, 20]))
    if maybe(0.15):
        params["max_leaf_nodes"] = int(rng.choice([8, 40]))
    if maybe(0.15):
        params["max_bins"] = int(rng.choice([2, 16, 64]))
    if maybe(0.1):
        params["min_weight_fraction_leaf"] = 0.01
    if maybe(0.1):
        params["categorical_split"] = str(rng.choice(["binary", "multiway"]))
    if maybe(0.1):
        params.update(max_cat_threshold=4, cat_smooth=10.0, cat_l2=5.0, min_data_per_group=5)
    if algorithm == "c4.5" and maybe(0.4):
        params["conventions"] = "j48"
    if maybe(0.15):
        params["monotonic_cst"] = [int(rng.choice([-1, 0, 1])) for _ in range(n_cols)]
    if not regression:
        extra = rng.integers(0, 4)
        if extra == 1:
            params["class_weight"] = "balanced"
        elif extra == 2:
            costs = np.ones((n_classes, n_classes)) - np.eye(n_classes)
            costs[0, -1] = 3.0
            params["cost_matrix"] = costs.tolist()
        elif extra == 3:
            params["priors"] = (np.arange(1, n_classes + 1) / sum(range(1, n_classes + 1))).tolist()
    params["n_jobs"] = int(rng.choice([1, 2]))
    return params


def configurations(quick: bool) -> list[dict[str, Any]]:
    """Every configuration of the sweep, drawn from `SEED`."""
    rng = np.random.default_rng(SEED)
    configs = []
    sizes = SIZES if not quick else SIZES[:4]
    for d, rows in enumerate([*sizes * 10, *(() if quick else (LARGE,))]):
        data_seed = int(rng.integers(0, 2**31))
        for k in range(6 if rows < 10_000 else 2):
            configs.append(
                {
                    "name": f"d{d}-{rows}-{k}",
                    "rows": rows,
                    "data_seed": data_seed,
                    "seed": int(rng.integers(0, 2**31)),
                }
            )
    return configs


def run(config: dict[str, Any], cache: dict[int, dict[str, Any]]) -> tuple[str, str]:
    """The configuration's hash, and a short description of it."""
    key = config["data_seed"]
    if key not in cache:
        cache.clear()
        cache[key] = draw_data(np.random.default_rng(key), config["rows"])
    data = cache[key]
    rng = np.random.default_rng(config["seed"])
    regression = bool(rng.random() < 0.35)
    X, form = layout(rng, data)
    n_cols = data["X"].shape[1] + len(data["nominal"])
    n_classes = int(data["y_class"].max()) + 1
    params = draw_params(rng, regression, n_classes, n_cols)
    y = data["y_real"] if regression else data["y_class"]
    weights = None
    if rng.random() < 0.3:
        weights = rng.uniform(0.1, 3.0, len(y))
        weights[rng.random(len(y)) < 0.05] = 0.0
    estimator = quercus.DecisionTreeRegressor if regression else quercus.DecisionTreeClassifier
    what = f"{estimator.__name__} {form} weights={weights is not None} {params}"
    try:
        model = estimator(**params).fit(X, y, sample_weight=weights)
    except Exception as error:  # a refused combination: its error's type is the result
        return f"error:{type(error).__name__}", what
    return hashlib.sha256(model_file(model)).hexdigest(), what


def model_file(model: Any) -> bytes:
    """`model.to_bytes()` with only the parameters set away from their defaults."""
    defaults = {name: p.default for name, p in inspect.signature(type(model)).parameters.items()}

    def is_default(name: str, value: Any) -> bool:
        default = defaults.get(name, inspect.Parameter.empty)
        return value is default or (
            not isinstance(value, np.ndarray) and type(value) is type(default) and value == default
        )

    given = {k: v for k, v in model.get_params().items() if not is_default(k, v)}
    return model_io.to_bytes(model._state, type(model).__name__, model._estimator_type, given)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the hashes here (JSON)")
    parser.add_argument("--check", type=Path, help="compare with hashes written by --out")
    parser.add_argument("--quick", action="store_true", help="the small data sets only")
    args = parser.parse_args()
    expected = json.loads(args.check.read_text()) if args.check else None
    hashes: dict[str, str] = {}
    cache: dict[int, dict[str, Any]] = {}
    started = time.perf_counter()
    differ = 0
    for config in configurations(args.quick):
        digest, what = run(config, cache)
        hashes[config["name"]] = digest
        if expected is not None and expected.get(config["name"]) not in (None, digest):
            differ += 1
            print(f"DIFFERS {config['name']}: {what}", file=sys.stderr)
    errors = sum(h.startswith("error:") for h in hashes.values())
    print(
        f"{len(hashes)} configurations ({errors} refused) in "
        f"{time.perf_counter() - started:.0f} s"
        + ("" if expected is None else f"; {differ} differ"),
        file=sys.stderr,
    )
    if args.out:
        args.out.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
