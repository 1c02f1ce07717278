"""The package's face: every public name importable, loaded on first use."""

from __future__ import annotations

import subprocess
import sys

import quercus


def test_every_public_name_resolves():
    names = [n for n in quercus.__all__ if n != "__version__"]
    assert sorted(names) == sorted(quercus._NAMES)
    for name in names:
        assert getattr(quercus, name) is not None
    assert set(quercus.__all__) <= set(dir(quercus))


def test_import_is_light_until_an_estimator_is_needed():
    """`import quercus` loads neither the estimators nor scikit-learn; the first estimator
    does (with scikit-learn's base classes when it is installed)."""
    code = (
        "import sys, quercus\n"
        "assert 'quercus.tree' not in sys.modules and 'sklearn' not in sys.modules\n"
        "quercus.DecisionTreeClassifier\n"
        "assert 'quercus.tree' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
