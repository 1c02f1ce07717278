"""Weka's J48 (C4.5 release 8) as a reference: its example data, its trees and its folds.

Shared by tests/test_vs_j48.py and bench/vs_j48.py. Nothing here is quercus's own code:
ARFF files are read with a small parser of the format, J48 runs in a subprocess and its
printed tree is compared with quercus's tree printed the same way (`j48_text`), so that the
first differing line names the node where the two part.

Weka 3.6 (Debian's `weka` package) prints thresholds with `Utils.doubleToString(x, 6)` and leaf
weights with `Utils.roundDouble(x, 2)`; `java_decimals` and `java_round2` format numbers the
same way. Its cross-validation folds (`Evaluation.crossValidateModel`: `Instances.randomize`
with `java.util.Random(seed)`, `stratify`, `testCV`) are rebuilt by `weka_folds`, so quercus
trains on exactly the rows J48 trains on; the class sequence J48 reports per fold checks it.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from quercus._core import SUBSET

# The 13 data sets of issue 14, all shipped in the `weka` package's examples folder.
DATASETS = (
    "breast-cancer",
    "contact-lenses",
    "iris",
    "vote",
    "weather.nominal",
    "weather.numeric",
    "diabetes",
    "ionosphere",
    "glass",
    "credit-g",
    "segment-challenge",
    "soybean",
    "labor",
)
EXAMPLE_DIRS = ("/usr/share/doc/weka/examples", "/usr/share/weka/data")
JAR_PATHS = ("/usr/share/java/weka.jar",)


def weka_jar() -> str | None:
    """The weka.jar to run (`WEKA_JAR` overrides the Debian path), or None."""
    candidates = [os.environ.get("WEKA_JAR", ""), *JAR_PATHS]
    return next((p for p in candidates if p and Path(p).is_file()), None)


def missing_reason() -> str | None:
    """Why J48 cannot run here (None when it can)."""
    if shutil.which("java") is None:
        return "java is not installed (apt-get install weka brings default-jre-headless)"
    if weka_jar() is None:
        return "weka.jar not found (apt-get install weka, or set WEKA_JAR)"
    if example_path(DATASETS[0]) is None:
        return "Weka's example ARFF files not found (the weka package's examples folder)"
    return None


def example_path(name: str) -> Path | None:
    for d in EXAMPLE_DIRS:
        p = Path(d) / f"{name}.arff"
        if p.is_file():
            return p
    return None


# ---------------------------------------------------------------------------- ARFF files


@dataclass
class Arff:
    """An ARFF file: attribute names, kinds (nominal ones with their values) and the rows as
    a Polars frame (nominal columns as Enums of the declared values, in declared order)."""

    path: Path
    names: list[str]
    values: list[list[str] | None]  # None: numeric
    frame: pl.DataFrame

    @property
    def target(self) -> str:
        """J48's default class: the last attribute."""
        return self.names[-1]

    def xy(self, rows: np.ndarray | None = None) -> tuple[pl.DataFrame, pl.Series]:
        frame = self.frame if rows is None else self.frame[rows]
        return frame.drop(self.target), frame[self.target]


def _tokens(text: str) -> list[str]:
    """Comma/space-separated ARFF tokens; quotes (' or ") keep commas and spaces."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t,":
            i += 1
        elif c in "'\"":
            j = i + 1
            buf = []
            while j < n and text[j] != c:
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                buf.append(text[j])
                j += 1
            out.append("".join(buf))
            i = j + 1
        else:
            j = i
            while j < n and text[j] not in " \t,":
                j += 1
            out.append(text[i:j])
            i = j
    return out


def read_arff(path: Path) -> Arff:
    names: list[str] = []
    values: list[list[str] | None] = []
    rows: list[list[str]] = []
    in_data = False
    for raw in path.read_text(encoding="latin-1").splitlines():
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if in_data:
            rows.append(_tokens(line))
            continue
        low = line.lower()
        if low.startswith("@data"):
            in_data = True
        elif low.startswith("@attribute"):
            rest = line[len("@attribute") :].strip()
            if rest[0] in "'\"":
                end = rest.index(rest[0], 1)
                name, spec = rest[1:end], rest[end + 1 :].strip()
            else:
                name, spec = re.split(r"\s+", rest, maxsplit=1)
            names.append(name)
            if spec.startswith("{"):
                values.append(_tokens(spec[1 : spec.rindex("}")]))
            elif spec.lower() in ("numeric", "real", "integer"):
                values.append(None)
            else:
                raise ValueError(f"{path}: unsupported attribute type {spec!r}")
    columns = {}
    for j, (name, vals) in enumerate(zip(names, values, strict=True)):
        cells = [r[j] for r in rows]
        if vals is None:
            columns[name] = pl.Series(
                name, [None if c == "?" else float(c) for c in cells], dtype=pl.Float64
            )
        else:
            columns[name] = pl.Series(
                name, [None if c == "?" else c for c in cells], dtype=pl.Enum(vals)
            )
    return Arff(path, names, values, pl.DataFrame(columns))


def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def write_arff(arff: Arff, rows: np.ndarray, path: Path) -> None:
    """The given rows of `arff`, in that order, as an ARFF file (to run J48 on one fold)."""
    lines = ["@relation fold"]
    for name, vals in zip(arff.names, arff.values, strict=True):
        kind = "numeric" if vals is None else "{" + ",".join(_quoted(v) for v in vals) + "}"
        lines.append(f"@attribute {_quoted(name)} {kind}")
    lines.append("@data")
    columns = [arff.frame[n].to_list() for n in arff.names]
    for r in rows:
        cells = []
        for col, vals in zip(columns, arff.values, strict=True):
            v = col[r]
            cells.append("?" if v is None else repr(v) if vals is None else _quoted(v))
        lines.append(",".join(cells))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- Weka's CV folds


class JavaRandom:
    """java.util.Random: the 48-bit linear congruential generator and its nextInt(bound)."""

    def __init__(self, seed: int) -> None:
        self.state = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1)

    def _next(self, bits: int) -> int:
        self.state = (self.state * 0x5DEECE66D + 0xB) & ((1 << 48) - 1)
        value = self.state >> (48 - bits)
        return value - (1 << bits) if value >= 1 << (bits - 1) else value  # signed int

    def next_int(self, bound: int) -> int:
        if bound & -bound == bound:  # a power of two
            return (bound * (self._next(31) & 0x7FFFFFFF)) >> 31
        while True:
            bits = self._next(31) & 0x7FFFFFFF
            value = bits % bound
            if bits - value + (bound - 1) < 1 << 31:
                return value


def weka_folds(
    classes: Sequence[int], k: int = 10, seed: int = 1
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(training rows, test rows) of each fold of Weka 3.6's `Evaluation.crossValidateModel`
    with `new Random(seed)`, as indices into the file's rows in the order J48 receives them:
    the rows shuffled (`Instances.randomize`), grouped by class (`stratify`'s swaps), dealt
    round-robin into k batches (`stratStep`); fold f tests a consecutive stretch (`testCV`)
    and trains on the rest, shuffled again by the same generator (`trainCV`). The training
    order matters: J48 moves a threshold to a training value by walking the rows in order."""
    rng = JavaRandom(seed)

    def shuffle(rows: list[int]) -> list[int]:
        rows = list(rows)
        for j in range(len(rows) - 1, 0, -1):
            i = rng.next_int(j + 1)
            rows[j], rows[i] = rows[i], rows[j]
        return rows

    order = shuffle(list(range(len(classes))))
    index = 1
    while index < len(order):
        first = classes[order[index - 1]]
        for j in range(index, len(order)):
            if classes[order[j]] == first:
                order[index], order[j] = order[j], order[index]
                index += 1
        index += 1
    dealt = [order[j] for start in range(k) for j in range(start, len(order), k)]
    n = len(dealt)
    folds = []
    for f in range(k):
        size = n // k + (1 if f < n % k else 0)
        first = f * (n // k) + (f if f < n % k else n % k)
        train = shuffle(dealt[:first] + dealt[first + size :])
        folds.append(
            (np.array(train, dtype=np.int64), np.array(dealt[first : first + size], dtype=np.int64))
        )
    return folds


# ------------------------------------------------------------------------------ J48 runs

J48 = "weka.classifiers.trees.J48"


def run_weka(args: list[str]) -> str:
    """Runs a Weka command-line class and returns its standard output."""
    jar = weka_jar()
    assert jar is not None
    done = subprocess.run(
        ["java", "-Xmx1g", "-cp", jar, *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"weka failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def j48_tree(path: Path, options: Sequence[str] = ("-C", "0.25", "-M", "2")) -> str:
    """J48's pruned tree on the whole file, as it prints it (the lines between the header
    and "Number of Leaves"; a single leaf prints as ": class (w/e)")."""
    out = run_weka([J48, *options, "-t", str(path), "-no-cv", "-v"])
    body = out.split("------------------\n", 1)[1]
    return body.split("\n\nNumber of Leaves", 1)[0].strip("\n")


def j48_cv(
    path: Path, k: int = 10, seed: int = 1, options: Sequence[str] = ("-C", "0.25", "-M", "2")
) -> list[list[tuple[int, int, list[float]]]]:
    """(actual, predicted, class distribution) of every test row of J48's k-fold
    cross-validation with `options`, fold by fold, in Weka's order (`-p 0 -distribution`;
    the classes as 0-based codes in the ARFF's order, read as codes since Weka truncates the
    names there; the distribution as Weka prints it, to 3 decimals)."""
    out = run_weka(
        [J48, *options, "-t", str(path), "-x", str(k), "-s", str(seed), "-p", "0", "-distribution"]
    )
    folds: list[list[tuple[int, int, list[float]]]] = []
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+(\d+):.*?\s(\d+):", line)
        if not m:
            continue
        if m.group(1) == "1":
            folds.append([])
        distribution = [float(p.lstrip("*")) for p in line.split()[-1].split(",")]
        folds[-1].append((int(m.group(2)) - 1, int(m.group(3)) - 1, distribution))
    return folds


def java_decimals(x: float, digits: int = 6) -> str:
    """`weka.core.Utils.doubleToString(x, digits)`: half away from zero, trailing zeros and
    a trailing point dropped."""
    scaled = abs(x) * 10.0**digits
    units = math.floor(scaled + 0.5)
    if units == 0:
        return "0"
    text = f"{units:0{digits + 1}d}"
    whole, frac = text[:-digits], text[-digits:].rstrip("0")
    sign = "-" if x < 0 else ""
    return f"{sign}{whole}.{frac}" if frac else f"{sign}{whole}"


def java_round2(x: float) -> str:
    """`Double.toString(Utils.roundDouble(x, 2))` for the weights J48 prints (Java's
    Math.round is floor(x + 0.5))."""
    return repr(math.floor(x * 100.0 + 0.5) / 100.0)


def java_double(x: float) -> str:
    """`Double.toString(x)`, as J48 -B prints its thresholds: Python's shortest repr in
    plain notation from 1e-3 to 1e7, else as `1.5E-4`."""
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        return repr(float(x))
    mantissa, exponent = f"{x:.17e}".split("e")
    digits = repr(float(x) / 10.0 ** int(exponent))  # the shortest digits, one before the point
    shortest = digits if "e" not in digits else mantissa
    return f"{shortest}E{int(exponent)}"


def j48_text(model: object, arff: Arff) -> str:
    """`model`'s tree printed as J48 prints its own: `|   ` per level, `attr <= t` /
    `attr = value` per branch, `class (weight/errors)` at leaves (no `/errors` when 0). A
    tree of J48 -B (subset nodes: one value against the others) prints its thresholds as
    that J48 does, in full (`BinC45Split` prints the number itself)."""
    nodes = model.tree_.nodes()  # type: ignore[attr-defined]
    classes = [str(c) for c in model.classes_]  # type: ignore[attr-defined]
    features = [n for n in arff.names if n != arff.target]
    feature, threshold = nodes["feature"], nodes["threshold"]
    first, count = nodes["first_child"], nodes["n_children"]
    weight, value, label = nodes["weight"], nodes["value"], nodes["label"]
    kind, offset, mask = nodes["kind"], nodes["subset_offset"], nodes["subset_mask"]
    binary = model.categorical_split == "binary"  # type: ignore[attr-defined]

    def leaf(i: int) -> str:
        w = float(weight[i])
        errors = w - float(value[i][label[i]]) if w > 0 else 0.0
        text = f"{classes[label[i]]} ({java_round2(w)}"
        if errors > 1e-6:
            text += f"/{java_round2(errors)}"
        return text + ")"

    if count[0] == 0:
        return ": " + leaf(0)
    lines: list[str] = []
    # Items: a printed line, or a node whose branches are still to print.
    stack: list[str | tuple[int, int]] = [(0, 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        i, depth = item
        name = features[feature[i]]
        vals = arff.values[arff.names.index(name)]
        pending: list[str | tuple[int, int]] = []
        for b, c in enumerate(range(first[i], first[i] + count[i])):
            if vals is None:
                t = java_double(threshold[i]) if binary else java_decimals(threshold[i])
                test = f"{name} {'<=' if b == 0 else '>'} {t}"
            elif kind[i] == SUBSET:  # J48 -B: one value against the others
                sides = mask[offset[i] : offset[i] + len(vals)].tolist()
                tested = ", ".join(v for v, side in zip(vals, sides, strict=True) if side == 1)
                test = f"{name} {'=' if b == 0 else '!='} {tested}"
            else:
                test = f"{name} = {vals[b]}"
            test = "|   " * depth + test
            if count[c] == 0:
                pending.append(f"{test}: {leaf(c)}")
            else:
                pending += [test, (c, depth + 1)]
        stack.extend(reversed(pending))
    return "\n".join(lines)
