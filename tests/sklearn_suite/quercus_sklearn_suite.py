"""Runs scikit-learn's own tree tests against quercus, with nothing but the names swapped.

scikit-learn ships its tests inside the installed package (`sklearn/tree/tests`). This pytest
plugin imports those modules with `sklearn.tree`'s estimator names bound to quercus's
classes, exactly as if their `from sklearn.tree import DecisionTreeClassifier, ...` lines
named quercus, and restores `sklearn.tree` right after, so every other part of scikit-learn
(ensembles, exporters, metrics) stays scikit-learn's own. No scikit-learn code is copied here.

Run it with `python -m pytest -p quercus_sklearn_suite --pyargs`, this directory on
PYTHONPATH, and the module names in `MODULES` (tests/sklearn_suite/run.sh does). Tests of
scikit-learn's private Cython internals are deselected, and the tests quercus still fails
are marked as strict expected failures, both from `expected.toml` where each carries its
one-line reason: an unlisted failure fails the run, and so does a listed one that starts
passing (then delete its line).
"""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

# The four modules of scikit-learn's tree tests that test estimators (the others test the
# private Fenwick tree, the plotting layout and a Cython helper only).
MODULES = ("test_tree", "test_split", "test_monotonic_tree", "test_export")
SWAPPED = (
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreeClassifier",
    "ExtraTreeRegressor",
)
# What the test modules import besides `sklearn.tree`: imported first, with scikit-learn's
# own trees, so that a forest in a test is still scikit-learn's forest.
_DEPENDENCIES = (
    "sklearn.datasets",
    "sklearn.dummy",
    "sklearn.ensemble",
    "sklearn.impute",
    "sklearn.metrics",
    "sklearn.model_selection",
    "sklearn.pipeline",
    "sklearn.random_projection",
)
EXPECTED = Path(__file__).with_name("expected.toml")


def _import_with_quercus_names() -> None:
    for name in _DEPENDENCIES:
        importlib.import_module(name)
    import sklearn.tree

    import quercus

    swapped = {name: getattr(quercus, name) for name in SWAPPED if hasattr(quercus, name)}
    saved = {name: getattr(sklearn.tree, name) for name in swapped}
    try:
        for name, estimator in swapped.items():
            setattr(sklearn.tree, name, estimator)
        for module in MODULES:
            importlib.import_module(f"sklearn.tree.tests.{module}")
    finally:
        for name, estimator in saved.items():
            setattr(sklearn.tree, name, estimator)


def pytest_configure(config: pytest.Config) -> None:
    _import_with_quercus_names()


def _expected() -> tuple[dict[str, str], dict[str, str]]:
    """(deselected, failing): test id prefix -> reason."""
    table = tomllib.loads(EXPECTED.read_text(encoding="utf-8"))
    return table.get("deselected", {}), table.get("failing", {})


def _key(item: pytest.Item) -> str:
    """`module::test[params]`, the form `expected.toml` names tests by."""
    module = getattr(item, "module", None)
    return f"{module.__name__.rsplit('.', 1)[-1] if module else '?'}::{item.name}"


def _match(key: str, table: dict[str, str]) -> str | None:
    """The reason of the longest entry `key` starts with: an entry without `[` names every
    parametrisation of the test, one with `[` but no closing `]` every parametrisation whose
    id starts so (`test[42-absolute_error`), one with both exactly one."""

    def names(entry: str) -> bool:
        if key == entry or not key.startswith(entry):
            return key == entry
        return key[len(entry)] == "[" if "[" not in entry else not entry.endswith("]")

    hits = [k for k in table if names(k)]
    return table[max(hits, key=len)] if hits else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselected, failing = _expected()
    kept, dropped = [], []
    for item in items:
        if _match(_key(item), deselected) is not None:
            dropped.append(item)
            continue
        reason = _match(_key(item), failing)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
        kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


_outcomes: dict[str, dict[str, int]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Counts each test's outcome per module, for the summary table."""
    if report.when != "call" and not (report.when == "setup" and report.outcome != "passed"):
        return
    module = Path(report.location[0]).stem
    if hasattr(report, "wasxfail"):
        outcome = "xfailed" if report.skipped else "xpassed"
    else:
        outcome = report.outcome
    counts = _outcomes.setdefault(module, {})
    counts[outcome] = counts.get(outcome, 0) + 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """A table of outcomes per scikit-learn test module."""
    columns = ("passed", "failed", "xfailed", "xpassed", "skipped")
    write = terminalreporter.write_line
    write("scikit-learn tree tests against quercus (names swapped):")
    write(f"{'module':24}" + "".join(f"{c:>9}" for c in columns))
    for module, counts in sorted(_outcomes.items()):
        write(f"{module:24}" + "".join(f"{counts.get(c, 0):>9}" for c in columns))
