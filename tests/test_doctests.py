"""The examples of the documentation run: every docstring's Examples section (the API
reference) and the user guide's ``>>>`` blocks, as doctests.

The documentation site renders these same texts, so an example that stops being true fails
here before a reader copies it. Examples that need an optional runtime (onnx, onnxruntime,
treelite, skl2onnx) skip without it, naming it.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
from pathlib import Path

import pytest

import quercus

# The modules whose docstrings the API reference renders.
MODULES = (
    "quercus.tree",
    "quercus.estimators.parameters",
    "quercus.estimators.attributes",
    "quercus.estimators.fitting",
    "quercus.estimators.pruning_methods",
    "quercus.estimators.exports",
    "quercus.estimators.persistence",
    "quercus.estimators.scores",
    "quercus.explain.rules",
    "quercus.explain.conditions",
    "quercus.explain.paths",
    "quercus.explain.wording",
    "quercus.pruning",
    "quercus.export.native",
    "quercus.export.servable",
    "quercus.export.onnx",
    "quercus.serving",
    "quercus.export.treelite",
    "quercus.datasets",
    "quercus.estimators.constraints",
)
USER_GUIDE = Path(__file__).resolve().parent.parent / "docs" / "user_guide"
# Optional packages an example imports, each example skipped without them.
OPTIONAL = ("onnxruntime", "onnx", "treelite", "skl2onnx", "sklearn", "scipy")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _docstring_tests() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = [t for name in MODULES for t in finder.find(importlib.import_module(name))]
    # Defined in the compiled extension, documented in its Rust source.
    tests += finder.find(quercus.QuercusError, "quercus.QuercusError")
    return sorted((t for t in tests if t.examples), key=lambda t: t.name)


DOCSTRINGS = _docstring_tests()


# Calls whose result needs an optional package, though the example does not import it.
CALLS = {"to_onnx()": "onnx", "to_treelite()": "treelite"}


def _run(test: doctest.DocTest) -> None:
    for package in OPTIONAL:
        if any(f"import {package}" in e.source for e in test.examples):
            pytest.importorskip(package, reason=f"{test.name}'s example imports {package}")
    for call, package in CALLS.items():
        if any(f".{call}." in e.source for e in test.examples):
            pytest.importorskip(package, reason=f"{test.name}'s example calls {call}")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    runner.run(test, out=report.append)
    outcome = runner.summarize(verbose=False)
    assert outcome.failed == 0, "".join(report)


@pytest.mark.parametrize("test", DOCSTRINGS, ids=lambda t: t.name)
def test_docstring_examples(test: doctest.DocTest):
    _run(test)


@pytest.mark.parametrize("path", sorted(USER_GUIDE.glob("*.rst")), ids=lambda p: p.name)
def test_user_guide_examples(path: Path):
    text = path.read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(text, {}, path.name, str(path), 0)
    if not test.examples:
        pytest.skip(f"{path.name} has no >>> examples")
    _run(test)


def _public_callables() -> list[tuple[str, object]]:
    """Every public function, class and method the API reference lists."""
    names = [n for n in quercus.__all__ if n not in ("__version__", "datasets")]
    objects = [(f"quercus.{n}", getattr(quercus, n)) for n in names]
    for module in ("rules", "serving", "datasets"):
        loaded = importlib.import_module(f"quercus.{module}")
        objects += [(f"quercus.{module}.{n}", getattr(loaded, n)) for n in loaded.__all__]
    objects.append(("quercus.serving.NotServableError", quercus.serving.NotServableError))
    methods = []
    for name, obj in objects:
        if not inspect.isclass(obj) or issubclass(obj, BaseException):
            continue
        for attribute in sorted(_own_names(obj)):
            member = getattr(obj, attribute)
            # scikit-learn writes set_fit_request & co. into each estimator class it sees
            # (metadata routing); they are its methods, documented by it.
            routing = attribute.startswith("set_") and attribute.endswith("_request")
            if (
                not attribute.startswith("_")
                and not routing
                and (inspect.isfunction(member) or inspect.ismethod(member))
            ):
                methods.append((f"{name}.{attribute}", member))
    return sorted(objects + methods, key=lambda pair: pair[0])


def _own_names(cls: type) -> set[str]:
    """The attributes a quercus class defines or inherits from quercus (not scikit-learn)."""
    return {
        name for base in cls.__mro__ if base.__module__.startswith("quercus") for name in vars(base)
    }


# `rules.Precondition` is a type alias (a union of the precondition classes): no docstring.
PUBLIC = [(n, o) for n, o in _public_callables() if inspect.isclass(o) or inspect.isroutine(o)]


@pytest.mark.parametrize(("name", "obj"), PUBLIC, ids=[n for n, _ in PUBLIC])
def test_every_public_name_has_an_example(name: str, obj: object):
    doc = inspect.getdoc(obj) or ""
    assert "Examples\n--------" in doc and ">>>" in doc, f"{name} has no Examples section"
    tests = doctest.DocTestFinder(recurse=False).find(obj, name)
    assert any(t.examples for t in tests), f"{name}'s examples are not doctests"
