"""The figures the README's "Speed and fidelity" table quotes are the ones the benchmark
results files and the documentation's fidelity tables hold, so that neither drifts alone.

The benchmark pages render their tables from the results files in ``bench/results/`` (the
``bench-table`` directive of ``docs/_ext/quercus_docs.py``); this test recomputes each figure
the README quotes from the same file and compares the text. A test whose results file is
absent skips, naming it. After a new run of a script, rerun this test and copy the figures it
reports into the README.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
README = ROOT / "README.md"
FIDELITY = ROOT / "docs" / "fidelity.md"


def _results(name: str) -> Any:
    path = RESULTS / name
    if not path.exists():
        pytest.skip(f"bench/results/{name} is absent (written by its bench/ script)")
    return json.loads(path.read_text(encoding="utf-8"))


def readme_summary() -> dict[str, str]:
    """The README's summary table: first cell -> second cell (the figure)."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Speed and fidelity", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 2 and not set(cells[0]) <= set("-: "):
            rows[cells[0]] = cells[1]
    return rows


def _span(values: list[float]) -> str:
    return f"{min(values):.2f}–{max(values):.2f}"


def compare_figures(report: dict[str, Any]) -> dict[str, str]:
    """bench/compare.py's ratios over every data set of the run, and the base case's latency."""

    def ratios(ours: str, peer: str, key: str) -> list[float]:
        return [
            r[key]
            for case in report["cases"]
            for r in case["ratios"]
            if r["quercus"] == ours and r["peer"] == peer
        ]

    base = {r["tool"]: r for r in report["cases"][0]["results"]}
    cases = len(report["cases"])
    return {
        f"exact fit time ÷ scikit-learn's ({cases} data sets)": _span(
            ratios("quercus exact", "scikit-learn", "fit_time")
        ),
        f"histogram fit time ÷ LightGBM's ({cases} data sets)": _span(
            ratios("quercus hist", "LightGBM", "fit_time")
        ),
        f"batch prediction rate ÷ scikit-learn's ({cases} data sets)": _span(
            ratios("quercus exact", "scikit-learn", "predict_throughput")
        ),
        "one-row prediction, 100k × 20 tree": (
            f"{base['quercus exact']['latency_us']:.0f} µs "
            f"(scikit-learn {base['scikit-learn']['latency_us']:.0f} µs)"
        ),
    }


def optimal_figures(report: dict[str, Any]) -> dict[str, str]:
    """bench/optimal.py's depth-3 cell on the generated 10,000-row set."""
    (row,) = [r for r in report["rows"] if r["data"] == "generated 10k x 20" and r["depth"] == 3]
    proven = "proven optimal" if row["quercus_proof"].startswith("yes") else row["quercus_proof"]
    figure = f"{row['quercus_errors']} errors, {proven}, {row['quercus_seconds']:.2f} CPU s"
    if row.get("streed_errors") is not None:
        figure += f" (STreeD on its binary features: {row['streed_errors']} errors)"
    return {"optimal depth-3 tree, 10,000 rows × 20": figure}


def stream_figures(report: dict[str, Any]) -> dict[str, str]:
    """bench/stream.py's in-memory and streamed fits."""
    memory, stream = report["results"]["memory"], report["results"]["stream"]
    same = "identical" if memory["digest"] == stream["digest"] else "different"
    rows = f"{report['rows'] / 1e6:g}M"
    return {
        f"LazyFrame fit, {rows} rows × {report['features']}": (
            f"model file {same}; peak RSS {stream['peak_mib']:.0f} MiB "
            f"(in memory {memory['peak_mib']:.0f} MiB)"
        )
    }


def _markdown_tables(text: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            tables.append([row for row in current[1:] if not set(row[0]) <= set("-: ")])
            current = []
    return tables


def fidelity_figures() -> dict[str, str]:
    """Counts read from the fidelity page's own tables (moved from the README as printed)."""
    text = FIDELITY.read_text(encoding="utf-8")
    # J48's table, then J48 -B's and J48 -R's.
    variants = {"J48": "Now every tree is J48's", "-B": "**J48 -B**", "-R": "**J48 -R**"}
    tables = {v: _markdown_tables(text.split(marker, 1)[1])[0] for v, marker in variants.items()}
    j48 = tables["J48"]
    j48_same = all(
        r[3] == r[4] == "same" and r[5] == "10/10" and len(set(r[6].split("/"))) == 1
        for table in tables.values()
        for r in table
    ) and all(len(table) == len(j48) for table in tables.values())
    rpart = next(t for t in _markdown_tables(text) if t and t[0][0] == "kyphosis")
    rpart_same = all(all(c.startswith("same") for c in r[5:9]) for r in rpart)
    sweep = re.search(
        r"(\d[\d,]*) data sets, (\d[\d,]*) fits, [\d,]+ nodes,\s+no discrepancy", text
    )
    assert sweep, "the sweep_sklearn sentence moved"
    return {
        f"Weka J48, {len(j48)} example data sets": (
            f"every tree and every 10-fold CV prediction identical ({', '.join(variants)})"
            if j48_same
            else "differs"
        ),
        f"R rpart, {len(rpart)} cases": (
            "same splits, surrogates, cp tables and cross-validated predictions"
            if rpart_same
            else "differs"
        ),
        "scikit-learn CART, node by node": (
            f"{sweep.group(1)} data sets, {sweep.group(2)} fits, no discrepancy"
        ),
    }


def _check(expected: dict[str, str]) -> None:
    quoted = readme_summary()
    for label, figure in expected.items():
        assert label in quoted, f"the README's summary has no row {label!r}"
        assert quoted[label] == figure, f"{label}: README says {quoted[label]!r}, {figure!r}"


def test_compare_figures():
    _check(compare_figures(_results("compare.json")))


def test_optimal_figures():
    _check(optimal_figures(_results("optimal.json")))


def test_stream_figures():
    _check(stream_figures(_results("stream.json")))


def test_fidelity_figures():
    _check(fidelity_figures())


def test_readme_keeps_the_test_command():
    """`.ci/run` runs the README's test command; both must keep the same line."""
    line = 'pip install -e ".[test]" && cargo test && python -m pytest'
    assert f"```\n{line}\n```" in README.read_text(encoding="utf-8")
    assert line in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
