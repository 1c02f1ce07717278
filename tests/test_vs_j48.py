"""`algorithm="c4.5"` against Weka's J48 (C4.5 release 8) on the 13 example data sets of
Weka's own distribution (issue 14).

For each data set, J48 -C 0.25 -M 2 and quercus's c4.5 preset are fitted on the whole file,
pruned and unpruned (J48 -U; quercus pruning="none", both still collapse), and their trees
printed the same way (tests/weka_j48.py prints quercus's tree in J48's format: the tests at
every node, thresholds to J48's 6 decimals, leaf classes, weights and errors to its 2): the
texts must be equal. Each numeric test must also be J48's: a training value, partitioning the
column exactly as J48's printed threshold does. Then both run Weka's 10-fold cross-validation
on the same folds (rebuilt from Weka's generator, checked against the classes J48 reports),
and every test row must get the same prediction.

Skipped without `java` or weka.jar (Debian: `apt-get install weka`). J48 runs in a few JVMs
at once (about 0.5 s to start each); the module takes about 30 s.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import weka_j48 as weka
from helpers import NUMERIC

from quercus import DecisionTreeClassifier

pytestmark = pytest.mark.skipif(
    weka.missing_reason() is not None, reason=f"J48 unavailable: {weka.missing_reason()}"
)

PRUNED = ("-C", "0.25", "-M", "2")
UNPRUNED = ("-U", "-M", "2")


@pytest.fixture(scope="module")
def j48() -> dict[tuple[str, str], object]:
    """Every J48 run the module compares with, made once, three JVMs at a time."""
    jobs = {}
    for name in weka.DATASETS:
        path = weka.example_path(name)
        jobs[(name, "pruned")] = (weka.j48_tree, path, PRUNED)
        jobs[(name, "unpruned")] = (weka.j48_tree, path, UNPRUNED)
        jobs[(name, "cv")] = (weka.j48_cv, path)
    with ThreadPoolExecutor(3) as pool:
        futures = {k: pool.submit(f, *args) for k, (f, *args) in jobs.items()}
        return {k: f.result() for k, f in futures.items()}


def check_numeric_tests(model: DecisionTreeClassifier, arff: weka.Arff) -> None:
    """Every numeric test of `model` is J48's: its threshold is a training value (J48 moves
    the cut down to one), and it sends the same training rows left as the threshold J48
    prints (to 6 decimals) does."""
    nodes = model.tree_.nodes()
    features = [n for n in arff.names if n != arff.target]
    for i in np.flatnonzero(nodes["kind"] == NUMERIC):
        x = arff.frame[features[nodes["feature"][i]]].drop_nulls().to_numpy()
        t = nodes["threshold"][i]
        assert t in x, (features[nodes["feature"][i]], t)
        printed = float(weka.java_decimals(t))
        np.testing.assert_array_equal(x <= t, x <= printed)


@pytest.mark.parametrize("name", weka.DATASETS)
def test_same_tree_as_j48(j48, name):
    arff = weka.read_arff(weka.example_path(name))
    X, y = arff.xy()
    pruned = DecisionTreeClassifier(algorithm="c4.5").fit(X, y)
    unpruned = DecisionTreeClassifier(algorithm="c4.5", pruning="none").fit(X, y)
    assert weka.j48_text(pruned, arff) == j48[(name, "pruned")]
    assert weka.j48_text(unpruned, arff) == j48[(name, "unpruned")]
    check_numeric_tests(pruned, arff)
    check_numeric_tests(unpruned, arff)


@pytest.mark.parametrize("name", weka.DATASETS)
def test_same_cross_validated_predictions_as_j48(j48, name):
    arff = weka.read_arff(weka.example_path(name))
    codes = arff.xy()[1].to_physical().to_list()
    theirs = j48[(name, "cv")]
    folds = weka.weka_folds(codes)
    assert len(theirs) == len(folds) == 10
    for f, ((train, test), reported) in enumerate(zip(folds, theirs, strict=True)):
        # Weka's folds, rebuilt: the classes it reports are those of our test rows.
        assert [codes[r] for r in test] == [actual for actual, _ in reported], f
        model = DecisionTreeClassifier(algorithm="c4.5").fit(*arff.xy(train))
        ours = model.predict(arff.xy(test)[0], output="polars").to_physical().to_list()
        assert ours == [predicted for _, predicted in reported], f
