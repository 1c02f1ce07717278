"""Two directives the documentation runs at build time, so that a page cannot go stale.

``.. quercus-tree::`` executes its Python content, shows it as a code block and draws the
model it leaves in ``model`` with ``model.to_svg()``: the user guide's pictures of where
rows go are grown from the code printed beside them, and a renamed parameter fails the build
(warnings are errors).

``.. quercus-cli::`` prints ``quercus --help`` and each subcommand's help from the parser the
command line itself uses, so the CLI reference lists exactly the options it accepts.

``.. bench-table:: ../bench/results/compare.json`` renders a table from a results file a
benchmark script wrote (``:kind:`` says which table: ``compare``, ``compare-ratios``,
``optimal``, ``stream``, ``stream-profile``, ``dask-profile``, ``dask-tasks``), with the
command and date that produced the file under it, so the figures on a page are the file's.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


class QuercusTree(SphinxDirective):
    """Run the content, show it, and draw ``model`` (or the variable ``:name:`` names)."""

    has_content = True
    option_spec: ClassVar[dict[str, Any]] = {
        "name": directives.unchanged,
        "width": directives.positive_int,
        "caption": directives.unchanged,
        "hide-code": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        namespace: dict[str, Any] = {}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, self.get_source_info()[0] or "<quercus-tree>", "exec"), namespace)
        name = self.options.get("name", "model")
        if name not in namespace:
            raise self.error(f"quercus-tree: the code leaves no variable {name!r} to draw")
        svg = namespace[name].to_svg(width=self.options.get("width", 720))
        result: list[nodes.Node] = []
        if "hide-code" not in self.options:
            block = nodes.literal_block(code, code, language="python")
            result.append(block)
        if printed.getvalue():
            text = printed.getvalue().rstrip("\n")
            result.append(nodes.literal_block(text, text, classes=["quercus-output"]))
        html = f'<div class="quercus-tree">{svg}</div>'
        if "caption" in self.options:
            html = f'<figure class="quercus-tree">{svg}<figcaption>{self.options["caption"]}'
            html += "</figcaption></figure>"
        result.append(nodes.raw("", html, format="html"))
        return result


class QuercusCli(SphinxDirective):
    """The command line's help texts, one literal block per command."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from quercus.__main__ import _parser

        parser = _parser()
        commands = next(a for a in parser._actions if a.dest == "command")
        result: list[nodes.Node] = []
        for title, command in [("quercus", parser), *commands.choices.items()]:
            heading = title if command is parser else f"quercus {title}"
            result.append(nodes.rubric(heading, heading, ids=[f"cli-{title}"]))
            with _columns(88):  # argparse wraps to the terminal's width; the page's is fixed
                text = command.format_help().rstrip("\n")
            result.append(nodes.literal_block(text, text, language="none"))
        return result


Table = tuple[list[str], list[list[str]]]


def _compare_label(case: dict[str, Any]) -> list[str]:
    rows = case["rows"]
    size = f"{rows // 1_000_000}M" if rows % 1_000_000 == 0 else f"{rows / 1000:g}k"
    depth = "none" if case["depth"] is None else str(case["depth"])
    return [f"{size}×{case['features']}", case["task"], depth, case["variant"]]


def _compare(report: dict[str, Any]) -> Table:
    """bench/compare.py's results table (its ``results_table``), from its ``--out`` JSON."""
    head = ["rows×features", "task", "max depth", "data", "tool", "fit s", "peak fit MiB"]
    head += ["leaves", "held-out", "predict Mrows/s", "1-row µs"]
    body = []
    for case in report["cases"]:
        for r in case["results"]:
            trees = f" ({r['trees']} trees)" if r["trees"] > 1 else ""
            name = "acc" if r["score_name"] == "accuracy" else "R²"
            body.append(
                [
                    *_compare_label(case),
                    r["tool"],
                    f"{r['fit_s']:.2f}",
                    f"{r['peak_fit_mib']:.0f}",
                    f"{r['leaves']}{trees}",
                    f"{name} {r['score']:.4f}",
                    f"{r['predict_rows_per_s'] / 1e6:.2f}",
                    f"{r['latency_us']:.0f}",
                ]
            )
    return head, body


def _compare_ratios(report: dict[str, Any]) -> Table:
    """bench/compare.py's ratio table (its ``ratio_table``): quercus / peer."""
    peers = list(dict.fromkeys(r["peer"] for c in report["cases"] for r in c["ratios"]))
    head = ["rows×features", "task", "max depth", "data", "quercus"]
    head += [f"fit time ÷ {p}" for p in peers] + [f"throughput ÷ {p}" for p in peers]
    body = []
    for case in report["cases"]:
        for ours in dict.fromkeys(r["quercus"] for r in case["ratios"]):
            mine = {r["peer"]: r for r in case["ratios"] if r["quercus"] == ours}
            fit = [f"{mine[p]['fit_time']:.2f}" if p in mine else "" for p in peers]
            speed = [f"{mine[p]['predict_throughput']:.2f}" if p in mine else "" for p in peers]
            body.append([*_compare_label(case), ours, *fit, *speed])
    return head, body


_SOLVERS = {
    "quercus": "quercus raw",
    "quercus-numeric": "quercus numeric",
    "contree": "ConTree",
    "quercus-hist": "quercus hist",
    "quercus-binary": "quercus binary",
    "streed": "STreeD",
    "gosdt": "GOSDT",
}


def _optimal(report: dict[str, Any]) -> Table:
    """bench/optimal.py's table (errors, proven, CPU seconds), the solvers that ran."""
    rows = report["rows"]
    ran = [k for k in _SOLVERS if any(r.get(f"{k}_proof", "not run") != "not run" for r in rows)]
    head = ["data", "rows x features (binary)", "depth"]
    head += [f"{_SOLVERS[k]}: errors, proven, s" for k in ran]
    body = []
    for r in rows:
        cells = []
        for k in ran:
            errors, proof, seconds = r[f"{k}_errors"], r[f"{k}_proof"], r[f"{k}_seconds"]
            shown = "" if seconds is None or math.isnan(seconds) else f", {seconds:.2f}"
            cells.append(proof if errors is None else f"{errors}, {proof}{shown}")
        shape = f"{r['rows']} x {r['features']} ({r['binary_features']})"
        body.append([r["data"], shape, str(r["depth"]), *cells])
    return head, body


_STREAM_NAMES = {
    "memory": "quercus in memory (pl.read_parquet)",
    "stream": "quercus streamed (LazyFrame)",
    "dask": "quercus.dask, LocalCluster of 2 workers",
    "spark": "Spark MLlib, local[2]",
    "xgboost": "xgboost.dask, 1 round, LocalCluster of 2 workers",
}


def _stream(report: dict[str, Any]) -> Table:
    """bench/stream.py's fits table, from its ``--json`` file."""
    head = ["fit", "seconds", "peak RSS (MiB)", "leaves", "held-out accuracy"]
    head.append("model file = the in-memory fit's")
    memory = report["results"].get("memory", {}).get("digest")
    body = []
    for mode, r in report["results"].items():
        peak = f"{r['peak_mib']:.0f}"
        if "worker_peaks_mib" in r:
            workers = ", ".join(f"{w:.0f}" for w in r["worker_peaks_mib"])
            peak = f"client {peak}, workers {workers}"
        if "jvm_peak_mib" in r:
            peak = f"Python {peak}, JVM {r['jvm_peak_mib']:.0f}"
        name = _STREAM_NAMES.get(mode, mode)
        same = "" if mode == "memory" or memory is None else str(r.get("digest") == memory).lower()
        body.append(
            [name, f"{r['seconds']:.1f}", peak, str(r["leaves"]), f"{r['accuracy']:.4f}", same]
        )
    return head, body


def _profile(steps: dict[str, float], seconds: float) -> Table:
    """A fit's steps (or rounds) as shares of its time, as bench/stream.py prints them."""
    timed = {k: v for k, v in steps.items() if not k.startswith("kept")}
    rows = [*timed.items(), ("other", max(seconds - sum(timed.values()), 0.0))]
    body = [[k, f"{v:.1f}", f"{100 * v / seconds:.0f}%"] for k, v in rows]
    return ["step", "seconds", "share"], body


def _stream_profile(report: dict[str, Any]) -> Table:
    r = report["results"]["stream"]
    return _profile(r["profile"], r["seconds"])


def _dask_profile(report: dict[str, Any]) -> Table:
    r = report["results"]["dask"]
    head, body = _profile(r["profile"], r["seconds"])
    return ["round", *head[1:]], body


def _dask_tasks(report: dict[str, Any]) -> Table:
    tasks = report["results"]["dask"]["tasks"]
    body = [[k, f"{v:.1f}"] for k, v in sorted(tasks.items(), key=lambda kv: -kv[1])]
    return ["task (workers' busy seconds)", "seconds"], body


BENCH_TABLES = {
    "compare": _compare,
    "compare-ratios": _compare_ratios,
    "optimal": _optimal,
    "stream": _stream,
    "stream-profile": _stream_profile,
    "dask-profile": _dask_profile,
    "dask-tasks": _dask_tasks,
}


def bench_provenance(report: dict[str, Any]) -> tuple[str, str, str]:
    """The command, date and load a results file records (compare.py keeps them in its
    ``environment``; optimal.py and stream.py at the top level)."""
    source = report.get("environment", report)
    loads = []
    for key, when in (("load_average_at_start", "start"), ("load_average_at_end", "end")):
        value = source.get(key, report.get(key))
        if value:
            loads.append(f"{value[0]:.1f} at the {when}")
    load = f", load average {' and '.join(loads)}" if loads else ""
    return source.get("command", "?"), source.get("date", "no date recorded"), load


class BenchTable(SphinxDirective):
    """A table generated from a committed results file of a ``bench/`` script."""

    required_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {
        "kind": lambda value: directives.choice(value, tuple(BENCH_TABLES)),
    }

    def run(self) -> list[nodes.Node]:
        relative, path = self.env.relfn2path(self.arguments[0], self.env.docname)
        self.env.note_dependency(relative)
        try:
            report = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise self.error(f"bench-table: cannot read {self.arguments[0]}: {error}") from error
        kind = self.options.get("kind", "compare")
        head, body = BENCH_TABLES[kind](report)
        command, date, load = bench_provenance(report)
        cpus = report.get("environment", report).get("cpus")
        cores = f" on {cpus} cores" if cpus else ""
        name = Path(self.arguments[0]).name
        note = nodes.paragraph(classes=["bench-source"])
        note += nodes.Text(f"Generated when this page was built from bench/results/{name}, ")
        note += nodes.Text("written by ")
        note += nodes.literal(f"python {command}", f"python {command}")
        note += nodes.Text(f" on {date}{cores}{load}.")
        return [_table_node(head, body), note]


def _table_node(head: list[str], body: list[list[str]]) -> nodes.table:
    table = nodes.table(classes=["bench-table"])
    group = nodes.tgroup(cols=len(head))
    table += group
    for _ in head:
        group += nodes.colspec(colwidth=1)

    def row(cells: list[str]) -> nodes.row:
        line = nodes.row()
        for text in cells:
            entry = nodes.entry()
            entry += nodes.paragraph(text=text)
            line += entry
        return line

    group += nodes.thead("", row(head))
    tbody = nodes.tbody()
    for cells in body:
        tbody += row(cells)
    group += tbody
    return table


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("quercus-tree", QuercusTree)
    app.add_directive("quercus-cli", QuercusCli)
    app.add_directive("bench-table", BenchTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
