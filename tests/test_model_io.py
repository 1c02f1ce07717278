"""The model format (docs/model-format.md) from Python: save / load, to_bytes / from_bytes,
pickling through the format, clear errors for anything that is not a model, the frozen
version-1 files every later version must still load, and byte-identical output for equal fits.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pickle
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor, QuercusError, _core
from quercus.tree import NotFittedError

DATA = Path(__file__).parent / "data"
MAGIC = b"\x89QRC\r\n\x1a\n"


def load_xy(name: str) -> tuple[pl.DataFrame, pl.Series]:
    return quercus.datasets.load(name, return_X_y=True)


def reseal(data: bytes) -> bytes:
    """Rewrite the declared length and the CRC-32 after an edit, as the spec defines them."""
    body = bytearray(data[:-4])
    body[12:20] = struct.pack("<Q", len(body) + 4)
    return bytes(body) + struct.pack("<I", zlib.crc32(body))


def mixed_frame() -> tuple[pl.DataFrame, pl.Series]:
    """Numeric, unordered and ordered categorical columns, with missing values."""
    rng = np.random.default_rng(3)
    n = 200
    x = rng.random(n)
    shape = rng.choice(["round", "oval", "long", "flat"], n)
    size = rng.choice(["S", "M", "L", "XL"], n)
    y = np.where(np.isin(shape, ["round", "flat"]), x > 0.5, np.isin(size, ["S", "M"]))
    frame = pl.DataFrame(
        {
            "x": np.where(rng.random(n) < 0.1, np.nan, x),
            "shape": shape,
            "size": pl.Series(size, dtype=pl.Enum(["S", "M", "L", "XL"])),
        }
    ).with_columns(
        pl.when(pl.int_range(pl.len()) % 9 == 0)
        .then(None)
        .otherwise(pl.col("shape"))
        .alias("shape"),
        pl.when(pl.int_range(pl.len()) % 11 == 0)
        .then(None)
        .otherwise(pl.col("size"))
        .alias("size"),
    )
    labels = pl.Series("label", np.where(y, "good", "bad"))
    return frame, labels


def fitted_models() -> list[tuple[str, Any, Any]]:
    """(name, fitted model, X to predict) for every kind of model the format must hold."""
    wm2a_X, wm2a_y = load_xy("watermelon2alpha")
    wm3_X, wm3_y = load_xy("watermelon3")
    wm3a_X, wm3a_y = load_xy("watermelon3alpha")
    X, y = mixed_frame()
    held_out = (X[100:], y[100:])
    rng = np.random.default_rng(0)
    numeric = rng.normal(size=(120, 3))
    target = numeric[:, 0] * 3 + (numeric[:, 1] > 0) + rng.normal(scale=0.1, size=120)
    int_labels = (numeric[:, 2] > 0).astype(np.int64) * 7 - 2
    return [
        ("c4.5 2.0α", DecisionTreeClassifier(algorithm="c4.5").fit(wm2a_X, wm2a_y), wm2a_X),
        ("id3 3.0", DecisionTreeClassifier(algorithm="id3").fit(wm3_X, wm3_y), wm3_X),
        ("cart mixed", DecisionTreeClassifier(max_depth=5).fit(X, y), X),
        (
            "reduced-error pruned",
            DecisionTreeClassifier(pruning="reduced_error").fit(
                X[:100], y[:100], validation=held_out
            ),
            X,
        ),
        (
            "cost matrix",
            DecisionTreeClassifier(max_depth=3, cost_matrix=[[0, 1], [5, 0]]).fit(X, y),
            X,
        ),
        (
            "class weights keyed by int",
            DecisionTreeClassifier(max_depth=3, class_weight={-2: 1.0, 5: 3.0}).fit(
                numeric, int_labels
            ),
            numeric,
        ),
        (
            "oblique",
            DecisionTreeClassifier(splits="oblique", max_depth=3).fit(wm3a_X, wm3a_y),
            wm3a_X,
        ),
        (
            "surrogates",
            DecisionTreeClassifier(missing="surrogate", max_depth=4).fit(X, y),
            X,
        ),
        (
            "missing as its own branch",
            DecisionTreeClassifier(algorithm="id3", missing="separate", max_depth=3).fit(X, y),
            X,
        ),
        ("regressor numpy", DecisionTreeRegressor(max_depth=4).fit(numeric, target), numeric),
        (
            "regressor polars",
            DecisionTreeRegressor(algorithm="id3", max_depth=3).fit(
                X, pl.Series("score", np.arange(len(X), dtype=float))
            ),
            X,
        ),
    ]


MODELS = fitted_models()
IDS = [name for name, _, _ in MODELS]


def assert_same_model(a: Any, b: Any, X: Any) -> None:
    assert type(a) is type(b)
    assert a.get_params() == b.get_params()
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.predict(X, output="polars").equals(b.predict(X, output="polars"))
    if isinstance(a, DecisionTreeClassifier):
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
        np.testing.assert_array_equal(a.classes_, b.classes_)
        assert a.classes_.dtype == b.classes_.dtype
    assert a.export_text() == b.export_text()
    assert a.export_rules() == b.export_rules()
    assert list(a.feature_names_in_) == list(b.feature_names_in_)
    nodes_a, nodes_b = a.tree_.nodes(), b.tree_.nodes()
    assert nodes_a.keys() == nodes_b.keys()
    for key in nodes_a:
        np.testing.assert_array_equal(nodes_a[key], nodes_b[key], err_msg=key)
    trace_a, trace_b = a.pruning_trace_, b.pruning_trace_
    assert (trace_a is None) == (trace_b is None)
    if trace_a is not None:
        assert trace_a.equals(trace_b)


# --- round trips ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "model", "X"), MODELS, ids=IDS)
def test_save_load_round_trip(name, model, X, tmp_path):
    path = tmp_path / "model.qrc"
    model.save(path)
    assert path.read_bytes().startswith(MAGIC)
    assert_same_model(model, quercus.load(path), X)
    assert [p.name for p in tmp_path.iterdir()] == ["model.qrc"]  # no temporary left behind


@pytest.mark.parametrize(("name", "model", "X"), MODELS, ids=IDS)
def test_bytes_round_trip_and_class_methods(name, model, X):
    data = model.to_bytes()
    assert_same_model(model, quercus.from_bytes(data), X)
    assert_same_model(model, type(model).from_bytes(data), X)
    assert quercus.from_bytes(data).to_bytes() == data  # a fixed point


@pytest.mark.parametrize(("name", "model", "X"), MODELS, ids=IDS)
def test_pickle_round_trip_goes_through_the_format(name, model, X):
    state = model.__getstate__()
    assert state["_quercus_model"] == model.to_bytes()
    assert "_fitted" not in state
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert_same_model(model, pickle.loads(pickle.dumps(model, protocol)), X)
    assert_same_model(model, copy.deepcopy(model), X)
    shallow = copy.copy(model)
    assert shallow._fitted is model._fitted  # a copy shares the immutable tree


def test_unfitted_estimators_pickle_with_their_parameters():
    for model in (
        DecisionTreeClassifier(algorithm="c4.5", max_depth=3, class_weight={0: 2.0}),
        DecisionTreeRegressor(ccp_alpha=0.1),
    ):
        back = pickle.loads(pickle.dumps(model))
        assert type(back) is type(model)
        assert back.get_params() == model.get_params()
        assert "_quercus_model" not in model.__getstate__()
        with pytest.raises(NotFittedError):
            back.predict(np.zeros((1, 1)))
        with pytest.raises(NotFittedError):
            model.to_bytes()
        with pytest.raises(NotFittedError):
            model.save("never-written.qrc")
    assert not Path("never-written.qrc").exists()


def test_core_trees_pickle_through_the_format():
    model = MODELS[0][1]
    tree = model._state.tree
    back = pickle.loads(pickle.dumps(tree))
    assert isinstance(back, _core.Tree)
    assert back.to_bytes() == tree.to_bytes()
    assert _core.tree_from_bytes(tree.to_bytes(b"anything")).to_bytes() == tree.to_bytes()
    loaded, metadata = _core.load_model(tree.to_bytes(b"{}"))
    assert metadata == b"{}" and loaded.n_nodes == tree.n_nodes


def test_a_classifier_file_is_not_a_regressor():
    classifier = MODELS[0][1]
    with pytest.raises(QuercusError, match="holds a DecisionTreeClassifier"):
        DecisionTreeRegressor.from_bytes(classifier.to_bytes())
    regressor = MODELS[-1][1]
    with pytest.raises(QuercusError, match="holds a DecisionTreeRegressor"):
        DecisionTreeClassifier.from_bytes(regressor.to_bytes())
    assert isinstance(quercus.from_bytes(regressor.to_bytes()), DecisionTreeRegressor)


def test_saving_overwrites_and_refuses_unsavable_parameters(tmp_path):
    path = tmp_path / "m.qrc"
    path.write_bytes(b"old")
    model = MODELS[0][1]
    model.save(str(path))
    assert path.read_bytes() == model.to_bytes()
    odd = copy.copy(model).set_params(class_weight={"yes": object()})
    with pytest.raises(TypeError, match="class_weight"):
        odd.to_bytes()


# --- damaged, hostile and foreign input ----------------------------------------------------------


def good_bytes() -> bytes:
    return MODELS[0][1].to_bytes()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"hello, world", "magic"),
        (b"PK\x03\x04" + bytes(100), "magic"),
        (json.dumps({"tree": [1, 2]}).encode(), "magic"),
        (MAGIC, "truncated"),
        (MAGIC + b"\x01\x00\x00\x00" + struct.pack("<Q", 2**62), "truncated"),
        (bytes(range(256)) * 4, "magic"),
    ],
)
def test_garbage_is_not_a_model(tmp_path, data, message):
    path = tmp_path / "garbage.qrc"
    path.write_bytes(data)
    with pytest.raises(QuercusError, match=message):
        quercus.load(path)


def test_every_truncation_raises_a_clear_error():
    data = good_bytes()
    for length in range(len(data)):
        with pytest.raises(QuercusError, match="cannot load the model") as caught:
            quercus.from_bytes(data[:length])
        assert "truncated" in str(caught.value) or length < len(MAGIC)


@pytest.mark.parametrize("version", [0, 3, 99, 2**32 - 1])
def test_other_format_versions_are_named(version):
    data = bytearray(good_bytes())
    data[8:12] = struct.pack("<I", version)
    with pytest.raises(QuercusError, match=f"format version {version}") as caught:
        quercus.from_bytes(reseal(bytes(data)))
    assert "reads versions 1 to 2" in str(caught.value)
    if version > 2:
        assert "newer quercus" in str(caught.value)


def test_damage_is_caught_by_the_checksum_and_the_validator():
    data = bytearray(good_bytes())
    data[60] ^= 0x10
    with pytest.raises(QuercusError, match="checksum"):
        quercus.from_bytes(bytes(data))
    # With the checksum fixed, flipped bits reach the structural checks: every single-bit
    # flip gives an error or a model that predicts (or, if a flip renamed a feature in the
    # metadata, says that X lacks it).
    X = MODELS[0][2]
    base = good_bytes()
    for offset in range(20, len(base) - 4, 3):
        flipped = bytearray(base)
        flipped[offset] ^= 1 << (offset % 8)
        try:
            model = quercus.from_bytes(reseal(bytes(flipped)))
        except QuercusError as error:
            assert str(error).startswith("cannot load the model")
            continue
        try:
            model.predict_proba(X)
        except ValueError as error:
            assert "seen at fit" in str(error)


def test_bad_json_metadata_is_refused():
    tree = MODELS[0][1]._state.tree
    for blob, message in [
        (b"", "not UTF-8 JSON"),
        (b"\xff\xfe", "not UTF-8 JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"format": "other"}', "format"),
        (b'{"format": "quercus-model", "metadata_version": 1, "x": NaN}', "NaN is not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "not UTF-8 JSON"),
    ]:
        with pytest.raises(QuercusError, match=message):
            quercus.from_bytes(tree.to_bytes(blob))


def edited_metadata(model: Any, edit: Any) -> bytes:
    tree, raw = _core.load_model(model.to_bytes())
    metadata = json.loads(raw)
    edit(metadata)
    return tree.to_bytes(json.dumps(metadata).encode())


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m["features"].pop(), "lists 5 features, the tree has 6"),
        (lambda m: m["features"][0].update(kind="numeric"), "feature 'color' is 'numeric'"),
        (lambda m: m["features"][0]["categories"].pop(), "list of 3 category names"),
        (lambda m: m["features"][0].update(categories=[1, 2, 3]), "list of 3 category names"),
        (lambda m: m["features"][0].update(ordered=True), "ordered flag"),
        (lambda m: m["features"][1].update(name="color"), "same name"),
        (lambda m: m["classes"]["values"].append("maybe"), "needs 2 class labels"),
        (lambda m: m["classes"].update(values=["yes", "yes"]), "distinct"),
        (lambda m: m["classes"].update(dtype="<U1000000000"), "unknown dtype"),
        (lambda m: m["classes"].update(dtype="V100000000000"), "unknown dtype"),
        (lambda m: m["classes"].update(dtype="int8", values=[1, 1000]), "int8"),
        (lambda m: m.update(classes=None), "without class labels"),
        (lambda m: m.update(estimator_type="clusterer"), "unknown estimator_type"),
        (lambda m: m.update(estimator_type="regressor"), "cannot hold a classification tree"),
        (lambda m: m["params"].update(cost_matrix=[[0, 1]]), "cost_matrix"),
        (lambda m: m["params"].update(class_weight={"evil": "__import__('os')"}), "unknown"),
        (lambda m: m.update(pruning_trace=[{"name": "n", "dtype": "Object"}]), "malformed"),
        (lambda m: m.update(target=None), "'target'"),
    ],
)
def test_metadata_that_disagrees_with_the_tree_is_refused(edit, message):
    with pytest.raises(QuercusError, match=message):
        quercus.from_bytes(edited_metadata(MODELS[0][1], edit))


def test_unknown_metadata_is_tolerated():
    """Keys and parameters a later quercus may add are ignored; an unknown target dtype falls
    back to the labels' own type."""

    def newer(m: dict[str, Any]) -> None:
        m["metadata_version"] = 7
        m["written_by_the_future"] = {"anything": [1, 2]}
        m["params"]["a_future_parameter"] = 3
        m["target_dtype"] = "Decimal128"

    model = quercus.from_bytes(edited_metadata(MODELS[0][1], newer))
    X = MODELS[0][2]
    np.testing.assert_array_equal(model.predict(X), MODELS[0][1].predict(X))
    assert "a_future_parameter" not in model.get_params()


def test_reading_is_never_a_panic_on_random_input():
    rng = np.random.default_rng(5)
    base = good_bytes()
    for _ in range(500):
        data = bytearray(base)
        for _ in range(int(rng.integers(1, 6))):
            at = int(rng.integers(len(data)))
            data[at] = int(rng.integers(256))
        data = bytearray(reseal(bytes(data))) if rng.random() < 0.8 else data
        try:
            quercus.from_bytes(bytes(data))
        except QuercusError:
            pass


# --- the frozen version-1 files ------------------------------------------------------------------
#
# Written once by quercus 0.1.0 (format version 1) with
#
#     X, y = quercus.datasets.load("watermelon2alpha", return_X_y=True)
#     DecisionTreeClassifier(algorithm="c4.5").fit(X, y).save("model_v1_c45_watermelon2alpha.qrc")
#     frame = pl.DataFrame({"density": [1.0, ..., 8.0], "color": ["red", "blue"] * 4,
#                           "quality": [0.0, 1.0, 0.0, 1.0, 10.0, 11.0, 10.0, 11.0]})
#     DecisionTreeRegressor(max_depth=2).fit(frame, target="quality").save("model_v1_regressor.qrc")
#
# They must never be rewritten: every later version has to load them and give these answers.


def test_frozen_v1_files_are_version_1():
    for name in ("model_v1_c45_watermelon2alpha.qrc", "model_v1_regressor.qrc"):
        data = (DATA / name).read_bytes()
        assert data[:8] == MAGIC
        assert struct.unpack("<I", data[8:12]) == (1,)
        assert struct.unpack("<Q", data[12:20]) == (len(data),)


def test_frozen_c45_watermelon2alpha_model():
    """C4.5 on watermelon 2.0α (text 000, Table 4.4) with its default pessimistic pruning keeps
    the root split on texture, the attribute of largest gain (0.424, §4.4.2). The leaves hold
    the class weights the text derives: texture is known on 15 of 17 rows, so samples 8 (yes)
    and 10 (no) enter every branch with r̃ = 7/15, 5/15, 3/15:
        clear            yes 6 + 7/15 = 97/15,  no 1 + 7/15 = 22/15  -> P(yes) = 97/119
        slightly blurry  yes 1 + 5/15 = 20/15,  no 4 + 5/15 = 65/15  -> P(yes) = 4/17
        blurry           yes     3/15,          no 3 + 3/15 = 48/15  -> P(yes) = 1/17
    A row missing texture mixes them by r̃: 7/15·97/119 + 5/15·4/17 + 3/15·1/17 = 8/17."""
    model = quercus.load(DATA / "model_v1_c45_watermelon2alpha.qrc")
    assert isinstance(model, DecisionTreeClassifier)
    assert model.get_params()["algorithm"] == "c4.5"
    assert list(model.classes_) == ["yes", "no"]
    assert list(model.feature_names_in_) == [
        "color",
        "root",
        "sound",
        "texture",
        "umbilicus",
        "surface",
    ]
    assert model.n_nodes_ == 4 and model.depth_ == 1
    nodes = model.tree_.nodes()
    assert list(nodes["kind"]) == [_core.MULTIWAY, _core.LEAF, _core.LEAF, _core.LEAF]
    assert nodes["feature"][0] == 3  # texture
    np.testing.assert_allclose(nodes["branch_fraction"][1:], [7 / 15, 5 / 15, 3 / 15])
    np.testing.assert_allclose(
        nodes["value"][1:], [[97 / 15, 22 / 15], [20 / 15, 65 / 15], [3 / 15, 48 / 15]]
    )
    rows = pl.DataFrame(
        {
            "color": ["dark", "green", None, "light"],
            "root": ["curly", None, "straight", "curly"],
            "sound": ["dull", "crisp", None, "muffled"],
            "texture": ["clear", "slightly_blurry", "blurry", None],
            "umbilicus": ["hollow", "flat", None, "hollow"],
            "surface": ["hard", "soft", "hard", None],
        }
    )
    expected_yes = [97 / 119, 4 / 17, 1 / 17, 8 / 17]
    proba = model.predict_proba(rows)
    np.testing.assert_allclose(proba[:, 0], expected_yes, rtol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert list(model.predict(rows)) == ["yes", "no", "no", "no"]
    # The text's own rows: its Table 4.4 with the 13 missing cells.
    X, y = load_xy("watermelon2alpha")
    # Misclassified: sample 15 (clear, no), 7 (slightly blurry, yes) and 8 (texture missing,
    # yes, but P(yes) = 8/17 < 1/2).
    wrong = np.flatnonzero(model.predict(X) != y.to_numpy()) + 1
    assert list(wrong) == [7, 8, 15]
    np.testing.assert_allclose(model.predict_proba(X)[7], [8 / 17, 9 / 17], rtol=1e-12)


def test_frozen_regressor_model():
    """density <= 4.5 splits the 8 rows 4 / 4, then colour separates them: leaf means 0, 1,
    10, 11 (y = 10·[density > 4.5] + [blue]). Missing or unseen values follow both branches
    with the training shares, 1/2 each."""
    model = quercus.load(DATA / "model_v1_regressor.qrc")
    assert isinstance(model, DecisionTreeRegressor)
    assert model.get_params()["max_depth"] == 2
    assert list(model.feature_names_in_) == ["density", "color"]
    rows = pl.DataFrame(
        {
            "density": [2.0, 2.0, 7.0, 7.0, None, 2.0, 100.0, None],
            "color": ["red", "blue", "red", "blue", "blue", None, "green", None],
        }
    )
    expected = [0.0, 1.0, 10.0, 11.0, 0.5 * 1 + 0.5 * 11, 0.5 * 0 + 0.5 * 1, 10.5, 5.5]
    np.testing.assert_allclose(model.predict(rows), expected, rtol=1e-12)
    series = model.predict(rows, output="polars")
    assert series.name == "quality"


# --- determinism ---------------------------------------------------------------------------------


def _fit_and_hash() -> str:
    X, y = mixed_frame()
    model = DecisionTreeClassifier(algorithm="c4.5").fit(X, y)
    return hashlib.sha256(model.to_bytes()).hexdigest()


def test_equal_fits_give_identical_bytes():
    X, y = mixed_frame()
    for make in (
        lambda: DecisionTreeClassifier(algorithm="c4.5"),
        lambda: DecisionTreeClassifier(max_depth=6, categorical_split="binary"),
        lambda: DecisionTreeRegressor(max_depth=5),
    ):
        target = y if isinstance(make(), DecisionTreeClassifier) else X["x"].fill_nan(0.5)
        first = make().fit(X, target).to_bytes()
        second = make().fit(X.clone(), target.clone()).to_bytes()
        assert first == second


def test_equal_fits_in_other_processes_give_identical_bytes():
    """Another interpreter, with another string-hash seed, writes the same bytes."""
    here = _fit_and_hash()
    code = "import test_model_io as t; print(t._fit_and_hash())"
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=Path(__file__).parent,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert out.stdout.strip() == here
