"""One fitted model serves many Python threads: the core releases the GIL while it predicts
and fits, and a fitted tree is immutable, so concurrent calls agree with serial ones."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.datasets import make_classification

from quercus import DecisionTreeClassifier, DecisionTreeRegressor


def data(n_rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(n_samples=n_rows, n_features=10, random_state=seed)
    X[::17, 3] = np.nan  # some rows take the fractional missing-value path
    return X, y


def test_eight_threads_predict_like_one():
    X, y = data(20_000)
    model = DecisionTreeClassifier().fit(X, y)
    expected = model.predict_proba(X)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: model.predict_proba(X), range(16)))
    for got in results:
        np.testing.assert_array_equal(got, expected)


def test_fitting_in_one_thread_while_another_predicts():
    X, y = data(5_000)
    serving = DecisionTreeClassifier(max_depth=6).fit(X, y)
    expected = serving.predict(X)
    X2, y2 = data(5_000, seed=1)
    fitted: list[DecisionTreeRegressor] = []
    errors: list[BaseException] = []

    def fit() -> None:
        try:
            for _ in range(3):
                fitted.append(DecisionTreeRegressor().fit(X2, y2.astype(float)))
        except BaseException as error:  # surfaced below, in the test's thread
            errors.append(error)

    worker = threading.Thread(target=fit)
    worker.start()
    while worker.is_alive():
        np.testing.assert_array_equal(serving.predict(X), expected)
    worker.join()
    assert not errors
    assert len(fitted) == 3
    reference = DecisionTreeRegressor().fit(X2, y2.astype(float))
    for model in fitted:
        assert model.export_text() == reference.export_text()


def test_predict_releases_the_gil():
    # With the GIL held during prediction, a Python thread counting in a loop would make no
    # progress while predict runs; released, it keeps counting.
    X, y = data(50_000)
    model = DecisionTreeClassifier().fit(X, y)
    columns = model._columns(X)  # encode once: only the Rust part is timed
    done = threading.Event()
    ticks = 0

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.05)
    before = ticks
    start = time.perf_counter()
    while time.perf_counter() - start < 0.3:
        model.tree_.predict_proba(columns)
    progressed = ticks - before
    done.set()
    counter.join()
    assert progressed > 1000
