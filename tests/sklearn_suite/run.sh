#!/usr/bin/env bash
# scikit-learn's own tree tests against quercus (see plugin.py); extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python -m pytest -p tests.sklearn_suite.plugin -p no:cacheprovider -o addopts="" -q \
    --pyargs sklearn.tree.tests.test_tree sklearn.tree.tests.test_split \
    sklearn.tree.tests.test_monotonic_tree sklearn.tree.tests.test_export "$@"
