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

import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl
import pytest
import weka_j48 as weka
from helpers import NUMERIC

from quercus import DecisionTreeClassifier

pytestmark = pytest.mark.skipif(
    weka.missing_reason() is not None, reason=f"J48 unavailable: {weka.missing_reason()}"
)

PRUNED = ("-C", "0.25", "-M", "2")
UNPRUNED = ("-U", "-M", "2")
# J48 -B: binary splits, a nominal attribute's one value against the others
# (categorical_split="binary" under J48's conventions).
BINARY = "-B"
# J48 -R: reduced-error pruning on one of -N 3 folds held out (pruning="reduced_error",
# pruning_folds=3).
REDUCED = ("-R", "-N", "3", "-M", "2")


@pytest.fixture(scope="module")
def j48() -> dict[tuple[str, str], object]:
    """Every J48 run the module compares with, made once, three JVMs at a time."""
    jobs = {}
    for name in weka.DATASETS:
        path = weka.example_path(name)
        jobs[(name, "pruned")] = (weka.j48_tree, path, PRUNED)
        jobs[(name, "unpruned")] = (weka.j48_tree, path, UNPRUNED)
        jobs[(name, "cv")] = (weka.j48_cv, path)
        jobs[(name, "pruned -B")] = (weka.j48_tree, path, (*PRUNED, BINARY))
        jobs[(name, "unpruned -B")] = (weka.j48_tree, path, (*UNPRUNED, BINARY))
        jobs[(name, "cv -B")] = (weka.j48_cv, path, 10, 1, (*PRUNED, BINARY))
        jobs[(name, "-R")] = (weka.j48_tree, path, REDUCED)
        jobs[(name, "-R -B")] = (weka.j48_tree, path, (*REDUCED, BINARY))
        jobs[(name, "cv -R")] = (weka.j48_cv, path, 10, 1, REDUCED)
        jobs[(name, "cv -A")] = (weka.j48_cv, path, 10, 1, (*PRUNED, "-A"))
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
def test_same_tree_as_j48_with_binary_splits(j48, name):
    """J48 -B against categorical_split="binary": each nominal test is one value against
    the others (`BinC45Split`), the value chosen by its gain ratio in the attribute's order;
    the thresholds print in full, as that J48 prints them."""
    arff = weka.read_arff(weka.example_path(name))
    X, y = arff.xy()
    pruned = DecisionTreeClassifier(algorithm="c4.5", categorical_split="binary").fit(X, y)
    unpruned = DecisionTreeClassifier(
        algorithm="c4.5", categorical_split="binary", pruning="none"
    ).fit(X, y)
    assert weka.j48_text(pruned, arff) == j48[(name, "pruned -B")]
    assert weka.j48_text(unpruned, arff) == j48[(name, "unpruned -B")]
    check_numeric_tests(pruned, arff)


@pytest.mark.parametrize("name", weka.DATASETS)
def test_same_tree_as_j48_with_reduced_error_pruning(j48, name):
    """J48 -R -N 3 against pruning="reduced_error", pruning_folds=3: the rows grouped by
    class and dealt into 3 folds as Weka's `stratify` deals them, the tree grown on two and
    pruned on the third (a subtree goes when its leaf errs no more on it), with thresholds
    at values of the held-out rows too (J48's model selection keeps the whole data) and no
    collapse; multiway and -B."""
    arff = weka.read_arff(weka.example_path(name))
    X, y = arff.xy()
    for split, key in (("multiway", "-R"), ("binary", "-R -B")):
        model = DecisionTreeClassifier(
            algorithm="c4.5", pruning="reduced_error", pruning_folds=3, categorical_split=split
        ).fit(X, y)
        assert weka.j48_text(model, arff) == j48[(name, key)], split
        check_numeric_tests(model, arff)


MINOBJS = ("0", "1")


@pytest.fixture(scope="module")
def j48_minobjs() -> dict[tuple[str, str, bool, bool], str]:
    """J48's trees with MINOBJS 0 and 1 (-M), pruned and unpruned, multiway and -B."""
    jobs = {
        (name, m, binary, pruned): (
            (("-C", "0.25") if pruned else ("-U",)) + ("-M", m) + (("-B",) if binary else ())
        )
        for name in weka.DATASETS
        for m in MINOBJS
        for binary in (False, True)
        for pruned in (False, True)
    }
    with ThreadPoolExecutor(3) as pool:
        futures = {
            k: pool.submit(weka.j48_tree, weka.example_path(k[0]), options)
            for k, options in jobs.items()
        }
        return {k: f.result() for k, f in futures.items()}


@pytest.mark.parametrize("binary", [False, True], ids=["multiway", "-B"])
@pytest.mark.parametrize("m", MINOBJS)
@pytest.mark.parametrize("name", weka.DATASETS)
def test_same_tree_as_j48_with_small_minobjs(j48_minobjs, name, m, binary):
    """J48 -M 0 and -M 1 (min_objects): MINSPLIT keeps its 10% share per class with MINOBJS
    0; a node's and a child's rows are counted, a fragment of a row as one; and with MINOBJS
    0 every nominal attribute of two values or more counts in the average gain, one that
    shows a single value (or none) at the node with gain 0."""
    arff = weka.read_arff(weka.example_path(name))
    X, y = arff.xy()
    split = "binary" if binary else "multiway"
    for pruned in (False, True):
        model = DecisionTreeClassifier(
            algorithm="c4.5",
            min_objects=float(m),
            categorical_split=split,
            pruning="pessimistic" if pruned else "none",
        ).fit(X, y)
        theirs = j48_minobjs[(name, m, binary, pruned)]
        ours = weka.j48_text(model, arff)
        assert same_printed_tree(ours, theirs), f"ours:\n{ours}\n\nJ48:\n{theirs}"


CV_VARIANTS = {
    "multiway": ("cv", {}),
    "-B": ("cv -B", {"categorical_split": "binary"}),
    "-R": ("cv -R", {"pruning": "reduced_error", "pruning_folds": 3}),
    "-A": ("cv -A", {"laplace": True}),
}


@pytest.mark.parametrize("variant", list(CV_VARIANTS))
@pytest.mark.parametrize("name", weka.DATASETS)
def test_same_cross_validated_predictions_as_j48(j48, name, variant):
    """Every test row of J48's 10-fold cross-validation gets J48's class, and its class
    distribution as J48 prints it (`distributionForInstance`, to 3 decimals; a row missing
    a tested value mixes the branches by their training weights, an empty branch reads its
    parent's distribution). With -R each fold's tree holds its own pruning rows out of the
    fold's training rows, in the order Weka hands them over; -A's distributions are each
    leaf's Laplace estimate (laplace=True), an empty branch's its parent's, the classes
    unchanged."""
    arff = weka.read_arff(weka.example_path(name))
    codes = arff.xy()[1].to_physical().to_list()
    declared = arff.xy()[1].dtype.categories.to_list()
    key, params = CV_VARIANTS[variant]
    theirs = j48[(name, key)]
    folds = weka.weka_folds(codes)
    assert len(theirs) == len(folds) == 10
    for f, ((train, test), reported) in enumerate(zip(folds, theirs, strict=True)):
        # Weka's folds, rebuilt: the classes it reports are those of our test rows.
        assert [codes[r] for r in test] == [actual for actual, _, _ in reported], f
        model = DecisionTreeClassifier(algorithm="c4.5", **params)
        model.fit(*arff.xy(train))
        X = arff.xy(test)[0]
        ours = model.predict(X, output="polars").to_physical().to_list()
        assert ours == [predicted for _, predicted, _ in reported], f
        proba = np.zeros((len(test), len(declared)))
        proba[:, [declared.index(c) for c in model.classes_]] = model.predict_proba(X)
        printed = np.array([distribution for _, _, distribution in reported])
        np.testing.assert_allclose(proba, printed, rtol=0, atol=5e-4 + 1e-12, err_msg=str(f))


# --- generated data: many-valued nominal attributes, values left unseen, subtree raising ---


def generated_arff(seed: int, path) -> weka.Arff:
    """A data set of nominal attributes with 3 to 11 declared values, of which only some
    occur (so multiway splits have empty branches), the class a noisy function of three of
    them (so trees are deep enough for C4.5's subtree raising); each attribute has 10% of its
    cells missing with probability 1/2."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 400))
    n_attributes = int(rng.integers(3, 7))
    names: list[str] = []
    values: list[list[str] | None] = []
    columns = {}
    for a in range(n_attributes):
        declared = [f"v{j}" for j in range(int(rng.integers(3, 12)))]
        codes = rng.integers(0, int(rng.integers(2, len(declared) + 1)), n)
        cells = [declared[c] for c in codes]
        if rng.random() < 0.5:
            cells = [None if rng.random() < 0.1 else v for v in cells]
        names.append(f"a{a}")
        values.append(declared)
        columns[f"a{a}"] = pl.Series(f"a{a}", cells, dtype=pl.Enum(declared))
    n_classes = int(rng.integers(2, 4))
    classes = [f"c{j}" for j in range(n_classes)]
    table = rng.integers(0, n_classes, (12, 12, 12))
    codes = [columns[f"a{j}"].to_physical().fill_null(0).to_numpy() for j in range(3)]
    noisy = rng.random(n) < float(rng.choice([0.05, 0.2, 0.35]))
    y = np.where(noisy, rng.integers(0, n_classes, n), table[codes[0], codes[1], codes[2]])
    names.append("class")
    values.append(classes)
    columns["class"] = pl.Series("class", [classes[c] for c in y], dtype=pl.Enum(classes))
    arff = weka.Arff(path, names, values, pl.DataFrame(columns))
    weka.write_arff(arff, np.arange(n), path)
    return arff


def same_printed_tree(ours: str, theirs: str) -> bool:
    """J48's printed trees equal line by line, the weights and errors in parentheses to
    within J48's own rounding: a fragment sum such as 29.625 prints 29.62 or 29.63 as its
    floating-point sum falls (J48 adds fractions in another order)."""
    number = re.compile(r"\(([\d.]+)(?:/([\d.]+))?\)$")
    a, b = ours.splitlines(), theirs.splitlines()
    if len(a) != len(b):
        return False
    for x, z in zip(a, b, strict=True):
        mx, mz = number.search(x), number.search(z)
        if (mx is None) != (mz is None) or number.sub("", x) != number.sub("", z):
            return False
        if mx is not None and mz is not None:
            for p, q in zip(mx.groups(), mz.groups(), strict=True):
                if (p is None) != (q is None) or (
                    p is not None and abs(float(p) - float(q)) > 0.01 + 1e-9
                ):
                    return False
    return True


GENERATED = range(60)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[int, tuple[weka.Arff, str]]:
    folder = tmp_path_factory.mktemp("generated")
    arffs = {seed: generated_arff(seed, folder / f"g{seed}.arff") for seed in GENERATED}
    options = {"multiway": PRUNED, "-B": (*PRUNED, BINARY), "-R": REDUCED}
    with ThreadPoolExecutor(3) as pool:
        trees = {
            (s, variant): pool.submit(weka.j48_tree, a.path, given)
            for s, a in arffs.items()
            for variant, given in options.items()
        }
        return {key: (arffs[key[0]], tree.result()) for key, tree in trees.items()}


GENERATED_VARIANTS = {
    "multiway": {},
    "-B": {"categorical_split": "binary"},
    "-R": {"pruning": "reduced_error", "pruning_folds": 3},
}


@pytest.mark.parametrize("variant", list(GENERATED_VARIANTS))
@pytest.mark.parametrize("seed", GENERATED)
def test_same_tree_as_j48_on_generated_nominal_data(generated, seed, variant):
    # Seed 16 raises a subtree whose empty branches (values no row has) must read their
    # parent's class weights after the raise, as J48's do. With -B, the values a node never
    # saw go with the others, against the value tested. With -R, pruning rows missing a
    # tested value count in each branch by the training fractions.
    arff, theirs = generated[(seed, variant)]
    model = DecisionTreeClassifier(algorithm="c4.5", **GENERATED_VARIANTS[variant])
    model.fit(*arff.xy())
    ours = weka.j48_text(model, arff)
    assert same_printed_tree(ours, theirs), f"ours:\n{ours}\n\nJ48:\n{theirs}"
