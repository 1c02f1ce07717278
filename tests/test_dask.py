"""quercus.dask on a LocalCluster of two worker processes: the fit of a Dask collection is,
byte for byte, the in-memory histogram fit of the same rows (classification and regression,
missing values under each streamable strategy, categorical columns, weights, several
partitionings), also when a worker process dies mid-fit; bad partitions are refused by name;
predictions come back as Dask collections."""

from __future__ import annotations

import os
import pickle
import signal
import sys
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip(
    "distributed", reason="quercus.dask needs dask[distributed] (pip install quercus[dask])"
)
pd = pytest.importorskip("pandas", reason="Dask DataFrames hold pandas partitions")
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs dask[dataframe]")

import cloudpickle  # noqa: E402  (installed with distributed)
import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import quercus  # noqa: E402
import quercus.dask  # noqa: E402
from quercus.dask import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402

# The helpers below run on the workers, which cannot import this test module by name.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

MISSING = ["fractional", "learned", "majority_branch", "separate"]


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


def _frame(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = np.round(rng.uniform(0, 100, n), 2)
    b = rng.normal(size=n).astype(np.float32)
    a[rng.random(n) < 0.1] = np.nan
    b[rng.random(n) < 0.1] = np.nan
    colour = rng.choice(["red", "green", "blue", "grey"], n).astype(object)
    colour[rng.random(n) < 0.1] = None
    label = np.where(np.nan_to_num(a) > 40, "yes", "no").astype(object)
    label[(colour == "blue") & (np.nan_to_num(b) > 0.5)] = "maybe"
    noise = rng.random(n) < 0.1
    label[noise] = rng.choice(["yes", "no", "maybe"], noise.sum())
    return pd.DataFrame(
        {
            "a": a,
            "b": b,
            "c": rng.integers(0, 6, n).astype(float),
            "colour": pd.Categorical(colour, categories=["red", "green", "blue", "grey"]),
            "label": label,
            "y": np.nan_to_num(a) / 10 + np.nan_to_num(b) + rng.random(n),
            "w": rng.choice([0.0, 0.5, 1.0, 2.0], n, p=[0.1, 0.2, 0.5, 0.2]),
        }
    )


FRAME = _frame()
# Two cuts of the same rows: even partitions, and uneven ones (one of a single row).
CUTS = [dict(npartitions=3), dict(divisions=[0, 1, 450, 1500, 1999])]


def _ddf(df: pd.DataFrame, cut: dict) -> dd.DataFrame:
    if "divisions" in cut:
        return dd.from_pandas(df, npartitions=1).repartition(divisions=cut["divisions"])
    return dd.from_pandas(df, **cut)


@pytest.mark.parametrize("missing", MISSING)
def test_classifier_is_the_in_memory_model(client, missing):
    params = dict(splitter="hist", missing=missing, max_depth=5)
    data = FRAME.drop(columns=["y", "w"])
    expected = quercus.DecisionTreeClassifier(**params).fit(data, target="label")
    for cut in CUTS:
        got = DecisionTreeClassifier(missing=missing, max_depth=5).fit(
            _ddf(data, cut), target="label"
        )
        assert got.to_bytes() == expected.to_bytes(), cut


@pytest.mark.parametrize("missing", ["fractional", "learned"])
def test_regressor_with_weights_is_the_in_memory_model(client, missing):
    params = dict(splitter="hist", missing=missing, max_depth=4, min_samples_leaf=3)
    data = FRAME.drop(columns=["label"])
    expected = quercus.DecisionTreeRegressor(**params).fit(
        data.drop(columns=["w"]), target="y", sample_weight=data["w"].to_numpy()
    )
    for cut in CUTS:
        got = DecisionTreeRegressor(**params).fit(_ddf(data, cut), target="y", sample_weight="w")
        assert got.to_bytes() == expected.to_bytes(), cut


def test_long_columns_missing_values_in_one_partition(client):
    # More rows than the edge sample holds: each partition sends only its sketch's rows
    # hashing below the sample's threshold, and the rows above it that a column missing
    # values there needs are asked of every partition's kept tail, here of the partitions
    # where that column misses nothing too. Classification (sketches merged by a tree) and
    # weighted regression (added in row order).
    rng = np.random.default_rng(5)
    n = 260_000
    a, b = rng.uniform(0, 100, n), rng.normal(size=n)
    b[200_000:][rng.random(60_000) < 0.3] = np.nan
    y = (a > 40).astype(int) + (np.nan_to_num(b) > 0.3)
    df = pd.DataFrame({"a": a, "b": b, "c": rng.integers(0, 9, n) * 1.0, "y": y})
    df["w"] = rng.choice([0.5, 1.0, 2.0], n)
    ddf = dd.from_pandas(df, npartitions=4)
    expected = quercus.DecisionTreeClassifier(splitter="hist", max_depth=3).fit(
        df.drop(columns="w"), target="y"
    )
    got = DecisionTreeClassifier(max_depth=3).fit(ddf.drop(columns="w"), target="y")
    assert got.to_bytes() == expected.to_bytes()
    expected = quercus.DecisionTreeRegressor(splitter="hist", max_depth=3).fit(
        df.drop(columns="w"), target="y", sample_weight=df["w"].to_numpy()
    )
    got = DecisionTreeRegressor(max_depth=3).fit(ddf, target="y", sample_weight="w")
    assert got.to_bytes() == expected.to_bytes()


def test_fractional_weights_and_series_y(client):
    # Weights of 0.5 make class sums fractional: reduced in row order, not by the tree.
    params = dict(max_depth=4, missing="fractional")
    X, y, w = FRAME[["a", "b", "colour"]], FRAME["label"], FRAME["w"]
    expected = quercus.DecisionTreeClassifier(splitter="hist", **params).fit(X, y, w.to_numpy())
    ddf = dd.from_pandas(FRAME, npartitions=4)
    got = DecisionTreeClassifier(**params).fit(ddf[["a", "b", "colour"]], ddf["label"], ddf["w"])
    assert got.to_bytes() == expected.to_bytes()


def test_arrays_and_best_first(client):
    X = FRAME[["a", "b", "c"]].to_numpy()
    y = (FRAME["label"] == "yes").to_numpy().astype(int)
    expected = quercus.DecisionTreeClassifier(splitter="hist", max_leaf_nodes=7).fit(X, y)
    got = DecisionTreeClassifier(max_leaf_nodes=7).fit(
        da.from_array(X, chunks=(600, 2)), da.from_array(y, chunks=500)
    )
    assert got.to_bytes() == expected.to_bytes()
    proba = got.predict_proba(da.from_array(X, chunks=(700, 3)))
    assert isinstance(proba, da.Array)
    np.testing.assert_array_equal(proba.compute(), expected.predict_proba(X))


def test_predictions_and_an_ordinary_model(client, tmp_path):
    data = FRAME.drop(columns=["y", "w"])
    ddf = dd.from_pandas(data, npartitions=3)
    model = DecisionTreeClassifier(max_depth=3).fit(ddf, target="label")
    X = ddf.drop(columns=["label"])
    predicted = model.predict(X)
    assert isinstance(predicted, dd.Series)
    in_memory = quercus.DecisionTreeClassifier(splitter="hist", max_depth=3)
    in_memory.fit(data, target="label")
    expected = in_memory.predict(data.drop(columns=["label"]))
    np.testing.assert_array_equal(predicted.compute().to_numpy(), expected)
    proba = model.predict_proba(X).compute()
    assert list(proba.columns) == ["maybe", "no", "yes"]
    np.testing.assert_array_equal(proba.to_numpy(), in_memory.predict_proba(data))
    model.save(tmp_path / "m.qtree")
    loaded = quercus.load(tmp_path / "m.qtree")
    assert type(loaded) is quercus.DecisionTreeClassifier
    assert str(loaded.rules()) == str(in_memory.rules())


def test_empty_and_all_missing_partitions(client):
    data = FRAME.drop(columns=["y", "w"]).iloc[:900].copy()
    # Rows 300..599 miss every numeric value: one whole partition of missing values.
    data.loc[300:599, ["a", "b", "c"]] = np.nan
    params = dict(max_depth=4)
    expected = quercus.DecisionTreeClassifier(splitter="hist", **params).fit(data, target="label")
    parts = [data.iloc[:300], data.iloc[300:600], data.iloc[:0], data.iloc[600:]]
    ddf = dd.from_delayed([dask.delayed(p) for p in parts], meta=data.iloc[:0])
    got = DecisionTreeClassifier(**params).fit(ddf, target="label")
    assert got.to_bytes() == expected.to_bytes()
    empty = dd.from_delayed([dask.delayed(data.iloc[:0])] * 2, meta=data.iloc[:0])
    with pytest.raises(ValueError, match="has no rows"):
        DecisionTreeClassifier().fit(empty, target="label")


def _two(first: pd.DataFrame, second: pd.DataFrame, meta: pd.DataFrame) -> dd.DataFrame:
    """Two partitions as given, Dask's own check of them against `meta` off (as when files
    read lazily differ)."""
    parts = [dask.delayed(first), dask.delayed(second)]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def test_partitions_that_differ_are_refused(client):
    data = FRAME.drop(columns=["y", "w"]).iloc[:600]
    meta = data.iloc[:0]
    other_dtype = data.iloc[300:].astype({"c": "int64"})
    ddf = dd.from_delayed(
        [dask.delayed(data.iloc[:300]), dask.delayed(other_dtype)], meta=meta, verify_meta=False
    )
    with pytest.raises(ValueError, match="column 'c' is int64, the meta says float64"):
        DecisionTreeClassifier().fit(ddf, target="label")
    lacking = data.iloc[300:].drop(columns=["b"])
    ddf = dd.from_delayed(
        [dask.delayed(data.iloc[:300]), dask.delayed(lacking)], meta=meta, verify_meta=False
    )
    with pytest.raises(ValueError, match="column 'b' is missing"):
        DecisionTreeClassifier().fit(ddf, target="label")
    wider = data.iloc[300:].copy()
    wider["colour"] = wider["colour"].cat.add_categories(["pink"])
    ddf = dd.from_delayed(
        [dask.delayed(data.iloc[:300]), dask.delayed(wider)], meta=meta, verify_meta=False
    )
    with pytest.raises(ValueError, match=r"column 'colour' is CategoricalDtype.*'pink'"):
        DecisionTreeClassifier().fit(ddf, target="label")
    strings = dd.from_pandas(data.astype({"colour": object}), npartitions=2)
    with pytest.raises(ValueError, match="splitter='hist'"):
        DecisionTreeClassifier(splitter="best").fit(strings, target="label")
    with pytest.raises(ValueError, match="target='nope'"):
        DecisionTreeClassifier().fit(dd.from_pandas(data, npartitions=2), target="nope")
    with pytest.raises(TypeError, match="Dask DataFrame or Array"):
        DecisionTreeClassifier().fit(data, target="label")


def _fragile(part: pd.DataFrame, calls: str, after: int) -> pd.DataFrame:
    """The partition as it is; the call after `after` others (a later pass) kills its worker
    process once, as a lost machine would."""
    Path(calls, f"call-{uuid.uuid4().hex}").touch()
    if len(os.listdir(calls)) > after:
        try:
            os.close(os.open(os.path.join(calls, "killed"), os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return part
        os._exit(1)
    return part


def _classified(params: dict, wrap: Any, *args: Any) -> tuple[Any, dd.DataFrame]:
    """The in-memory classifier of FRAME's label, and FRAME in four Dask partitions each
    passed through `wrap(part, *args)` when read."""
    data = FRAME.drop(columns=["y", "w"])
    expected = quercus.DecisionTreeClassifier(splitter="hist", **params).fit(data, target="label")
    ddf = dd.from_pandas(data, npartitions=4)
    return expected, ddf.map_partitions(wrap, *args, meta=ddf._meta)


def test_a_worker_lost_mid_fit(client, tmp_path):
    params = dict(missing="fractional", max_depth=5)
    # Four calls per pass: the census, the sketch, then the binning pass, where the worker
    # dies.
    expected, fragile = _classified(params, _fragile, str(tmp_path), 9)
    workers_before = set(client.scheduler_info()["workers"])
    got = DecisionTreeClassifier(**params).fit(fragile, target="label")
    assert (tmp_path / "killed").exists()
    client.wait_for_workers(2, timeout=30)
    assert set(client.scheduler_info()["workers"]) != workers_before
    assert got.to_bytes() == expected.to_bytes()


def _counted(part: pd.DataFrame, calls: str) -> pd.DataFrame:
    """The partition as it is, each call recorded as a file in `calls`."""
    Path(calls, f"call-{uuid.uuid4().hex}").touch()
    return part


def test_partitions_are_read_twice_then_kept_binned(client, tmp_path):
    # The census reads each partition, the sketch pass reads it, the first grow pass reads
    # and bins it; every later pass (five more levels here) reads the binned partitions the
    # workers hold.
    params = dict(missing="fractional", max_depth=6)
    expected, counted = _classified(params, _counted, str(tmp_path))
    got = DecisionTreeClassifier(**params).fit(counted, target="label")
    assert got.to_bytes() == expected.to_bytes()
    assert got.get_depth() == 6
    assert len(os.listdir(tmp_path)) == 3 * 4


def test_a_worker_lost_with_binned_partitions(client, tmp_path, monkeypatch):
    # The worker process holding the most binned partitions (held nowhere else) is killed
    # after a few passes: Dask bins them again from the source, and the model is the same.
    # Until the partitions are in memory, or while each is held by both workers (a loaded
    # machine lets Dask copy them), none would be lost: the kill waits for a later pass.
    params = dict(missing="learned", max_depth=5)
    expected, counted = _classified(params, _counted, str(tmp_path))
    sums = quercus.dask._Passes._sums
    calls, lost = [], []

    def kill_then_sum(self, fit, batches):
        calls.append(fit.passes)
        if len(calls) >= 3 and not lost:
            pids = client.run(os.getpid)
            sole = [w[0] for w in client.who_has(batches).values() if len(w) == 1]
            if sole:
                victim = max(set(sole), key=sole.count)
                lost.extend(w for w in sole if w == victim)
                os.kill(pids[victim], signal.SIGKILL)
        return sums(self, fit, batches)

    monkeypatch.setattr(quercus.dask._Passes, "_sums", kill_then_sum)
    got = DecisionTreeClassifier(**params).fit(counted, target="label")
    assert len(calls) > 3 and lost
    assert got.to_bytes() == expected.to_bytes()
    # The lost partitions were read and binned again.
    assert len(os.listdir(tmp_path)) >= 3 * 4 + len(lost)
    client.wait_for_workers(2, timeout=30)


def test_binned_batches_travel_and_belong_to_their_fit():
    # A binned partition pickles as its bytes; a fit refuses one binned by other bin edges.
    data = FRAME.drop(columns=["label"])
    params = dict(max_depth=3)
    a = dd.from_pandas(data, npartitions=2)
    b = dd.from_pandas(data.assign(a=data["a"] * 2), npartitions=2)
    held = {}
    original = quercus.dask._Passes._sums

    def keep(self, fit, batches):
        held.setdefault("fits", []).append((self.setup, fit.frontier(), dask.compute(*batches)))
        return original(self, fit, batches)

    with dask.config.set(scheduler="sync"), pytest.MonkeyPatch.context() as m:
        m.setattr(quercus.dask._Passes, "_sums", keep)
        DecisionTreeRegressor(**params).fit(a, target="y")
        DecisionTreeRegressor(**params).fit(b, target="y")
    (setup, frontier, batches), other = held["fits"][0], held["fits"][-1]
    batch = batches[0]
    assert isinstance(batch, quercus._core.BinnedBatch)
    assert len(batch) == 1000 and batch.nbytes > 0
    again = pickle.loads(pickle.dumps(batch))
    fit = setup.fit(setup.empty, frontier)
    np.testing.assert_array_equal(fit.add_binned(None, again), fit.add_binned(None, batch))
    with pytest.raises(ValueError, match="binned by another fit"):
        other[0].fit(other[0].empty, other[1]).add_binned(None, batch)
    with pytest.raises(ValueError, match="not a binned batch"):
        quercus._core.BinnedBatch.from_bytes(batch.to_bytes()[:-1])


# --- every way a Dask user hands over data ------------------------------------------------------

SMALL = FRAME.drop(columns=["y", "w"]).iloc[:600].reset_index(drop=True)
FEATURES = ["a", "b", "c", "colour"]


def _parquet_parts(folder: Path, n: int) -> dd.DataFrame:
    """SMALL written as `n` Parquet files and read back as Dask reads a folder of them."""
    for i, rows in enumerate(np.array_split(np.arange(len(SMALL)), n)):
        SMALL.iloc[rows].to_parquet(folder / f"part{i:03}.parquet")
    return dd.read_parquet(str(folder / "*.parquet"))


def _csv_parts(folder: Path) -> dd.DataFrame:
    for i, rows in enumerate(np.array_split(np.arange(len(SMALL)), 4)):
        SMALL.iloc[rows].to_csv(folder / f"part{i}.csv", index=False)
    dtypes = {"colour": pd.CategoricalDtype(["red", "green", "blue", "grey"])}
    return dd.read_csv(str(folder / "*.csv"), dtype=dtypes)


HANDED_OVER = {
    # 8 Parquet files: Dask's optimizer combines the one-column projection's partitions
    # otherwise than the frame's (3 against 8 with dask 2026.8)
    "parquet, drop and column": lambda t: (
        (d := _parquet_parts(t, 8)).drop(columns="label"),
        d["label"],
    ),
    "parquet, features and column": lambda t: (
        (d := _parquet_parts(t, 8))[FEATURES],
        d["label"],
    ),
    "parquet, target=": lambda t: (_parquet_parts(t, 8), "label"),
    "read_csv": lambda t: ((d := _csv_parts(t)).drop(columns="label"), d["label"]),
    "from_pandas": lambda t: (
        (d := dd.from_pandas(SMALL, npartitions=5))[FEATURES],
        d["label"],
    ),
    "from_dict": lambda t: (
        (d := dd.from_dict(SMALL.to_dict(orient="list"), npartitions=3))[FEATURES].astype(
            {"colour": SMALL["colour"].dtype}
        ),
        d["label"],
    ),
    "unknown divisions": lambda t: (
        (d := dd.from_pandas(SMALL, npartitions=4).clear_divisions()).drop(columns="label"),
        d["label"],
    ),
    "an empty partition": lambda t: (
        (
            d := dd.from_delayed(
                [dask.delayed(p) for p in (SMALL.iloc[:200], SMALL.iloc[:0], SMALL.iloc[200:])],
                meta=SMALL.iloc[:0],
            )
        ).drop(columns="label"),
        d["label"],
    ),
    "a text column": lambda t: (
        (d := dd.from_pandas(SMALL.astype({"colour": object}), npartitions=3))[FEATURES],
        d["label"],
    ),
    "1 partition": lambda t: ((d := dd.from_pandas(SMALL, npartitions=1))[FEATURES], d["label"]),
    "200 partitions": lambda t: (
        (d := dd.from_pandas(SMALL, npartitions=200))[FEATURES],
        d["label"],
    ),
}


@pytest.mark.parametrize("how", list(HANDED_OVER))
def test_every_way_of_handing_over_data_fits_the_in_memory_model(client, tmp_path, how):
    """The model of the collection is, byte for byte, the in-memory fit of its rows
    (`compute()`), categories read from files or held as text included."""
    X, y = HANDED_OVER[how](tmp_path)
    in_memory = quercus.DecisionTreeClassifier(splitter="hist", max_depth=6)
    model = DecisionTreeClassifier(max_depth=6)
    if isinstance(y, str):
        expected = in_memory.fit(X.compute(), target=y)
        got = model.fit(X, target=y)
    else:
        expected = in_memory.fit(X.compute(), y.compute())
        got = model.fit(X, y)
    assert got.to_bytes() == expected.to_bytes(), how


def test_a_dask_array_with_a_dask_series_y(client):
    X = SMALL[["a", "b", "c"]].to_numpy()
    expected = quercus.DecisionTreeClassifier(splitter="hist", max_depth=5).fit(
        X, SMALL["label"].to_numpy()
    )
    ddf = dd.from_pandas(SMALL, npartitions=3)
    got = DecisionTreeClassifier(max_depth=5).fit(
        da.from_array(X, chunks=(250, 3)), ddf["label"].rename(None)
    )
    assert got.predict(X).tolist() == expected.predict(X).tolist()
    assert got.export_text() == expected.export_text()


def test_x_and_y_of_two_collections_are_aligned_or_refused(client):
    expected = quercus.DecisionTreeClassifier(splitter="hist").fit(SMALL[FEATURES], SMALL["label"])
    # two collections with known divisions: Dask aligns them by index
    X = dd.from_pandas(SMALL[FEATURES], npartitions=3)
    y = dd.from_pandas(SMALL["label"], npartitions=4)
    assert DecisionTreeClassifier().fit(X, y).to_bytes() == expected.to_bytes()
    # without divisions too (Dask matches the rows by index, shuffling them)
    unknown = DecisionTreeClassifier().fit(X.clear_divisions(), y.clear_divisions())
    assert unknown.to_bytes() == expected.to_bytes()
    # a y of other rows leaves X's rows without a target
    other = dd.from_pandas(SMALL["label"].set_axis(SMALL.index + 1000), npartitions=2)
    with pytest.raises(ValueError, match="holds missing values"):
        DecisionTreeClassifier().fit(X, other)


def test_predicting_a_collection_with_empty_partitions(client):
    ddf = dd.from_pandas(SMALL, npartitions=6)
    model = DecisionTreeClassifier(max_depth=4).fit(ddf, target="label")
    kept = ddf.map_partitions(lambda part: part[part.index < 150])  # 4 of 6 partitions empty
    rows = kept.drop(columns="label")
    assert rows.map_partitions(len).compute().tolist().count(0) == 4
    expected = quercus.from_bytes(model.to_bytes())
    in_memory = SMALL.iloc[:150].drop(columns="label")
    assert model.predict(rows).compute().tolist() == expected.predict(in_memory).tolist()
    proba = model.predict_proba(rows).compute()
    np.testing.assert_array_equal(proba.to_numpy(), expected.predict_proba(in_memory))
