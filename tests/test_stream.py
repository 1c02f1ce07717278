"""Fitting a LazyFrame (e.g. pl.scan_parquet) batch by batch gives, byte for byte, the model
of the in-memory histogram fit of the same rows: classification and regression, missing
values under each streamable strategy, Enum columns, weights, any batch size and memory
budget. Bad input gets an error naming the problem."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from quercus import DecisionTreeClassifier, DecisionTreeRegressor


def _frame(n: int = 3000, seed: int = 0, nan_rate: float = 0.1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    a = np.round(rng.uniform(0, 100, n), 2)
    b = rng.normal(size=n)
    c = rng.integers(0, 6, n).astype(float)
    for col in (a, b):
        col[rng.random(n) < nan_rate] = np.nan
    colour = rng.choice(["red", "green", "blue", "grey"], n).astype(object)
    colour[rng.random(n) < nan_rate] = None
    label = np.where(np.nan_to_num(a) > 40, "yes", "no")
    label[(colour == "blue") & (np.nan_to_num(b) > 0.5)] = "maybe"
    noise = rng.random(n) < 0.1
    label[noise] = rng.choice(["yes", "no", "maybe"], noise.sum())
    return pl.DataFrame(
        {
            "a": a,
            "b": pl.Series(b, dtype=pl.Float32),
            "c": c,
            "colour": pl.Series(colour, dtype=pl.Enum(["red", "green", "blue", "grey"])),
            "label": label,
            "y": np.nan_to_num(a) / 10 + np.nan_to_num(b) + rng.random(n),
            "w": rng.choice([0.0, 0.5, 1.0, 2.0], n, p=[0.1, 0.2, 0.5, 0.2]),
        }
    )


def _bytes(model) -> bytes:
    return model.to_bytes()


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("stream") / "rows.parquet"
    _frame().write_parquet(path, row_group_size=700)
    return path


@pytest.mark.parametrize("missing", ["fractional", "learned", "majority_branch", "separate"])
@pytest.mark.parametrize("categorical_split", ["binary", "multiway"])
def test_classifier_from_parquet_is_the_in_memory_model(parquet, missing, categorical_split):
    params = dict(
        splitter="hist", missing=missing, categorical_split=categorical_split, max_depth=6
    )
    df = pl.read_parquet(parquet)
    expected = DecisionTreeClassifier(**params).fit(df.drop("y", "w"), target="label")
    lf = pl.scan_parquet(parquet).drop("y", "w")
    for batch_rows, budget in ((1000, 1 << 30), (357, 1)):
        got = DecisionTreeClassifier(**params).fit(
            lf, target="label", batch_rows=batch_rows, memory_budget=budget
        )
        assert _bytes(got) == _bytes(expected)
    np.testing.assert_array_equal(
        got.predict(df.drop("y", "w", "label")),
        expected.predict(df.drop("y", "w", "label")),
    )


@pytest.mark.parametrize("missing", ["fractional", "learned"])
def test_regressor_with_weights_is_the_in_memory_model(parquet, missing):
    params = dict(splitter="hist", missing=missing, max_depth=5, min_samples_leaf=3)
    df = pl.read_parquet(parquet).drop("label")
    expected = DecisionTreeRegressor(**params).fit(
        df.drop("w"), target="y", sample_weight=df["w"].to_numpy()
    )
    lf = pl.scan_parquet(parquet).drop("label")
    got = DecisionTreeRegressor(**params).fit(lf, target="y", sample_weight="w", batch_rows=500)
    assert _bytes(got) == _bytes(expected)


def test_best_first_growth(parquet):
    params = dict(splitter="hist", max_leaf_nodes=9)
    df = pl.read_parquet(parquet).drop("y", "w")
    expected = DecisionTreeClassifier(**params).fit(df, target="label")
    got = DecisionTreeClassifier(**params).fit(
        pl.scan_parquet(parquet).drop("y", "w"), target="label", batch_rows=800
    )
    assert _bytes(got) == _bytes(expected)
    assert got.get_n_leaves() == 9


def test_all_missing_batches_and_a_lazy_query(tmp_path):
    df = _frame(1200, seed=3)
    # The first rows miss every numeric value: whole batches of missing values.
    df = df.with_columns(
        pl.when(pl.int_range(pl.len()) < 400).then(None).otherwise(pl.col(c)).alias(c)
        for c in ("a", "b", "c")
    )
    params = dict(splitter="hist", max_depth=4)
    expected = DecisionTreeClassifier(**params).fit(df.drop("y", "w"), target="label")
    lf = df.lazy().drop("y", "w").filter(pl.lit(True))
    got = DecisionTreeClassifier(**params).fit(lf, target="label", batch_rows=100)
    assert _bytes(got) == _bytes(expected)


def test_refusals_name_the_problem(parquet):
    lf = pl.scan_parquet(parquet).drop("y", "w")
    with pytest.raises(ValueError, match="splitter='hist'"):
        DecisionTreeClassifier(splitter="exact").fit(lf, target="label", memory_budget=1 << 20)
    with pytest.raises(ValueError, match="target="):
        DecisionTreeClassifier(splitter="hist").fit(lf)
    with pytest.raises(ValueError, match="'nope' is not a column"):
        DecisionTreeClassifier(splitter="hist").fit(lf, target="nope")
    with pytest.raises(ValueError, match="pruning"):
        DecisionTreeClassifier(algorithm="c4.5", splitter="hist").fit(lf, target="label")
    with pytest.raises(ValueError, match="conventions"):
        DecisionTreeClassifier(splitter="hist", conventions="j48").fit(lf, target="label")
    with pytest.raises(ValueError, match="impute_mean"):
        DecisionTreeClassifier(splitter="hist", missing="impute_mean").fit(lf, target="label")
    with pytest.raises(ValueError, match="memory_budget"):
        DecisionTreeClassifier(splitter="hist").fit(lf, target="label", memory_budget=0)
    strings = lf.with_columns(pl.col("colour").cast(pl.String))
    with pytest.raises(TypeError, match=r"pl.Enum"):
        DecisionTreeClassifier(splitter="hist").fit(strings, target="label")
    empty = lf.filter(pl.lit(False))
    with pytest.raises(ValueError, match="no rows"):
        DecisionTreeClassifier(splitter="hist").fit(empty, target="label")


def test_one_output_and_no_class_factors(parquet):
    lf = pl.scan_parquet(parquet).drop("w")
    # A list naming one column is that column; several outputs need the rows in memory.
    one = DecisionTreeClassifier(splitter="hist", max_depth=3)
    expected = DecisionTreeClassifier(splitter="hist", max_depth=3).fit(
        lf.drop("y"), target="label"
    )
    assert _bytes(one.fit(lf.drop("y"), target=["label"])) == _bytes(expected)
    with pytest.raises(ValueError, match="several outputs"):
        DecisionTreeRegressor(splitter="hist").fit(lf.drop("label"), target=["y", "a"])
    for factors in ({"class_weight": "balanced"}, {"priors": [0.2, 0.3, 0.5]}):
        (name,) = factors
        with pytest.raises(ValueError, match=f"{name} needs the class counts"):
            DecisionTreeClassifier(splitter="hist", **factors).fit(lf.drop("y"), target="label")
    costs = [[0, 1, 1], [2, 0, 1], [1, 1, 0]]
    with pytest.raises(ValueError, match="altered_priors"):
        DecisionTreeClassifier(splitter="hist", cost_matrix=costs, altered_priors=True).fit(
            lf.drop("y"), target="label"
        )


def test_schema_drift_between_files(tmp_path):
    df = _frame(500)
    df.slice(0, 250).write_parquet(tmp_path / "a.parquet")
    df.slice(250).with_columns(pl.col("a").cast(pl.String)).write_parquet(tmp_path / "b.parquet")
    lf = pl.scan_parquet(tmp_path / "*.parquet").drop("y", "w")
    # Polars itself refuses the second file's column before any batch reaches quercus.
    with pytest.raises(pl.exceptions.SchemaError, match="column a"):
        DecisionTreeClassifier(splitter="hist").fit(lf, target="label")


def test_progress_counts_passes_when_asked(parquet, monkeypatch, capsys):
    lf = pl.scan_parquet(parquet).drop("y", "w")
    DecisionTreeClassifier(splitter="hist", max_depth=2).fit(lf, target="label")
    assert capsys.readouterr().err == ""  # not asked: silent
    monkeypatch.setattr("quercus.scale.progress._QUIET_SECONDS", 0.0)
    model = DecisionTreeClassifier(splitter="hist", max_depth=2, verbose=1)
    model.fit(lf, target="label")
    lines = capsys.readouterr().err.splitlines()
    # A line per pass (sketch, then one per level), the last after the fit ended.
    assert lines and all(line.startswith("quercus fit: ") for line in lines)
    assert lines[-1].startswith("quercus fit: 4 passes")


def test_later_passes_read_the_batches_kept_binned(parquet, tmp_path, monkeypatch):
    """The first grow pass keeps the batches binned, in memory within the budget and beyond it
    in a temporary file that has no name (nothing is left in TMPDIR); the profile names the
    steps of the fit."""
    from quercus.scale import stream as _stream

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    lf = pl.scan_parquet(parquet).drop("y", "w")
    models = []
    for budget, where in ((1 << 30, "memory"), (1, "file")):
        with _stream.profiled() as steps:
            model = DecisionTreeClassifier(splitter="hist", max_depth=4)
            models.append(model.fit(lf, target="label", memory_budget=budget, batch_rows=500))
        assert steps[f"kept bytes ({where})"] > 0
        assert {"reading", "encoding", "binning", "routing", "histograms", "splits"} <= set(steps)
        assert all(seconds >= 0 for seconds in steps.values())
    assert _bytes(models[0]) == _bytes(models[1])
    assert list(tmp_path.iterdir()) == []


def test_a_spill_that_cannot_be_written_names_the_budget(parquet, monkeypatch):
    monkeypatch.setenv("TMPDIR", "/nonexistent/quercus-spill")
    lf = pl.scan_parquet(parquet).drop("y", "w")
    with pytest.raises(ValueError, match="memory_budget"):
        DecisionTreeClassifier(splitter="hist").fit(lf, target="label", memory_budget=1)
