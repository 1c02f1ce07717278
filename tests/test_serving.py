"""Serving exports: the ONNX model run by onnxruntime, and the treelite model run by treelite's
own predictor, give quercus's predictions exactly; trees whose missing values need more than
one direction per node are refused with a reason."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor, serving

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is a test extra")
pytest.importorskip("onnx", reason="onnx is an optional extra (quercus[onnx])")


def run(onnx_model, X):
    session = ort.InferenceSession(onnx_model.SerializeToString())
    return session.run(None, {"X": X})


def watermelon_with_gaps() -> tuple[pl.DataFrame, pl.DataFrame, pl.Series]:
    """Watermelon 3.0 (categorical and numeric) and the same rows with every third value of
    its first three columns missing."""
    df = quercus.datasets.load("watermelon3")
    X = df.drop("ripe")
    gaps = X.with_columns(
        pl.when(pl.int_range(pl.len()) % 3 == 0).then(None).otherwise(pl.col(c)).alias(c)
        for c in X.columns[:3]
    )
    return X, gaps, df["ripe"]


@pytest.mark.parametrize("ml_opset", [5, 3])
@pytest.mark.parametrize(
    ("algorithm", "missing"),
    [
        ("cart", "learned"),
        ("cart", "majority_branch"),
        ("cart", "separate"),
        ("cart", "class_majority"),
        ("id3", "separate"),  # multiway with a child for missing values
        ("c4.5", "majority_branch"),  # multiway, pruned
    ],
)
def test_onnx_equals_predict_on_categories_and_missing_values(algorithm, missing, ml_opset):
    X, gaps, y = watermelon_with_gaps()
    model = DecisionTreeClassifier(algorithm=algorithm, missing=missing).fit(gaps, y)
    onnx_model = serving.to_onnx(model, ml_opset=ml_opset)
    for data in (X, gaps, gaps.with_columns(texture=pl.lit("unseen"))):
        labels, proba = run(onnx_model, serving.onnx_input(model, data))
        np.testing.assert_array_equal(labels, model.predict(data))
        np.testing.assert_array_equal(proba, model.predict_proba(data))


@pytest.mark.parametrize("laplace", [False, True])
def test_exports_carry_the_laplace_estimates(laplace):
    # J48 -A: the exported probabilities are the ones predict_proba gives, Laplace's when
    # laplace=True; the labels do not change.
    _, gaps, y = watermelon_with_gaps()
    model = DecisionTreeClassifier(algorithm="cart", missing="learned", laplace=laplace)
    model.fit(gaps, y)
    labels, proba = run(serving.to_onnx(model), serving.onnx_input(model, gaps))
    np.testing.assert_array_equal(labels, model.predict(gaps))
    np.testing.assert_allclose(proba, model.predict_proba(gaps), rtol=0, atol=1e-15)
    plain = model.set_params(laplace=False).predict_proba(gaps)
    assert (proba != plain).any() == laplace


def test_onnx_numeric_classifier_regressor_float32_and_costs():
    X, y = load_breast_cancer(return_X_y=True)
    model = DecisionTreeClassifier(max_depth=6).fit(X, y)
    labels, proba = run(model.to_onnx(), X)
    np.testing.assert_array_equal(labels, model.predict(X))
    np.testing.assert_array_equal(proba, model.predict_proba(X))
    X32 = X.astype(np.float32)
    labels, _ = run(model.to_onnx(dtype=np.float32), X32)
    np.testing.assert_array_equal(labels, model.predict(X32))
    costly = DecisionTreeClassifier(max_depth=4, cost_matrix=[[0, 1], [8, 0]]).fit(X, y)
    assert (costly.predict(X) != DecisionTreeClassifier(max_depth=4).fit(X, y).predict(X)).any()
    np.testing.assert_array_equal(run(costly.to_onnx(), X)[0], costly.predict(X))
    Xr, yr = load_diabetes(return_X_y=True)
    regressor = DecisionTreeRegressor(max_depth=8).fit(Xr, yr)
    (values,) = run(regressor.to_onnx(), Xr)
    np.testing.assert_array_equal(values, regressor.predict(Xr))


def test_onnx_labels_keep_their_type_and_a_leaf_is_a_tree():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    model = DecisionTreeClassifier(max_depth=2).fit(X, names)
    labels, _ = run(model.to_onnx(), X)
    assert labels.tolist() == model.predict(X).tolist()
    stump = DecisionTreeClassifier().fit(X[:5], y[:5])  # one class: a single leaf
    assert stump.n_nodes_ == 1
    labels, proba = run(stump.to_onnx(), X)
    assert (labels == 0).all() and (proba == 1.0).all()


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        ({"algorithm": "c4.5"}, r"C4\.5's fractions.*refit with missing=\"learned\""),
        ({"missing": "surrogate"}, r"surrogate splits.*refit with missing=\"learned\""),
        ({"splits": "oblique"}, r"oblique split.*splits=\"axis\""),
    ],
)
def test_what_one_direction_cannot_express_is_refused(params, reason):
    _, gaps, y = watermelon_with_gaps()
    data = gaps.select(["density", "sugar"]) if "splits" in params else gaps
    model = DecisionTreeClassifier(**params).fit(data, y)
    with pytest.raises(serving.NotServableError, match=reason):
        model.to_onnx()
    with pytest.raises(ValueError, match=reason):  # NotServableError is a ValueError
        model.to_treelite()


def test_treelite_equals_predict():
    treelite = pytest.importorskip("treelite", reason="treelite is an optional extra")
    X, y = load_breast_cancer(return_X_y=True)
    model = DecisionTreeClassifier(max_depth=6).fit(X, y)
    proba = treelite.gtil.predict(model.to_treelite(), X).reshape(len(X), -1)
    np.testing.assert_array_equal(proba, model.predict_proba(X))
    Xr, yr = load_diabetes(return_X_y=True)
    regressor = DecisionTreeRegressor(max_depth=8).fit(Xr, yr)
    values = treelite.gtil.predict(regressor.to_treelite(), Xr).ravel()
    np.testing.assert_array_equal(values, regressor.predict(Xr))
    Xc, gaps, yc = watermelon_with_gaps()
    for algorithm in ("cart", "id3"):
        model = DecisionTreeClassifier(algorithm=algorithm, missing="majority_branch")
        model.fit(gaps, yc)
        for data in (Xc, gaps):
            encoded = serving.onnx_input(model, data)
            proba = treelite.gtil.predict(model.to_treelite(), encoded).reshape(len(data), -1)
            np.testing.assert_array_equal(proba, model.predict_proba(data))


def test_a_scikit_learn_pipeline_ending_in_quercus_converts():
    skl2onnx = pytest.importorskip("skl2onnx", reason="skl2onnx is a test extra")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    serving.register_skl2onnx()
    X, y = load_iris(return_X_y=True)
    pipe = make_pipeline(StandardScaler(), DecisionTreeClassifier(max_depth=3)).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # skl2onnx's notes on opset choices
        plain = skl2onnx.to_onnx(pipe, X[:1], options={"zipmap": False})
        zipped = skl2onnx.to_onnx(pipe, X[:1])
    labels, proba = run(plain, X)
    np.testing.assert_array_equal(labels, pipe.predict(X))
    np.testing.assert_allclose(proba, pipe.predict_proba(X), rtol=1e-6)  # float32 there
    _, dicts = run(zipped, X)
    assert dicts[0] == pytest.approx(dict(enumerate(pipe.predict_proba(X[:1])[0])))
    reg = make_pipeline(StandardScaler(), DecisionTreeRegressor(max_depth=3)).fit(X, y * 1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        converted = skl2onnx.to_onnx(reg, X[:1])
    np.testing.assert_array_equal(run(converted, X)[0].ravel(), reg.predict(X))
