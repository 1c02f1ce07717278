#!/usr/bin/env bash
# scikit-learn's own tree tests against quercus (see quercus_sklearn_suite.py); extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The plugin is loaded by its own name from this directory, not as `tests.sklearn_suite...`:
# some PyPI packages install a top-level `tests` package into site-packages, which would
# shadow this repository's `tests` namespace.
export PYTHONPATH="tests/sklearn_suite${PYTHONPATH:+:$PYTHONPATH}"
exec python -m pytest -p quercus_sklearn_suite -p no:cacheprovider -o addopts="" -q \
    --pyargs sklearn.tree.tests.test_tree sklearn.tree.tests.test_split \
    sklearn.tree.tests.test_monotonic_tree sklearn.tree.tests.test_export "$@"
