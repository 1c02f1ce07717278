"""Shared helpers of the test suite: an independent reading of fitted trees.

Nothing here calls the library's scoring code: the masks, counts and gains are
recomputed from the data with plain NumPy so that they can serve as expected values.
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest

import quercus

# Node kinds, as documented in _core.pyi (Tree.nodes()["kind"]).
LEAF, NUMERIC, MULTIWAY, SUBSET, ORDERED = 0, 1, 2, 3, 4

# The texts round their intermediate results: README's tolerance.
TEXT_TOL = 0.002


def load_xy(name: str) -> tuple[pl.DataFrame, pl.Series]:
    X, y = quercus.datasets.load(name, return_X_y=True)
    return X, y


def scores_by_feature(table: pl.DataFrame) -> dict[str, dict[str, float]]:
    """split_scores / node_scores table -> {feature: {column: value}}."""
    return {row["feature"]: row for row in table.iter_rows(named=True)}


def categories(col: pl.Series) -> list:
    """Category list in code order, as API.md defines it for each Polars dtype."""
    dtype = col.dtype
    if isinstance(dtype, pl.Enum):
        return dtype.categories.to_list()
    if dtype == pl.Boolean:
        return [False, True]
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Categorical):
        return sorted(v for v in col.cast(pl.String).unique().to_list() if v is not None)
    raise TypeError(f"not a categorical column: {dtype}")


def codes_of(col: pl.Series, cats: list) -> np.ndarray:
    """Category codes of a column (-1 for a missing or unseen value)."""
    index = {c: i for i, c in enumerate(cats)}
    values = col.to_list() if col.dtype == pl.Boolean else col.cast(pl.String).to_list()
    return np.array([index.get(v, -1) if v is not None else -1 for v in values], dtype=np.int64)


def node_masks(model, X: pl.DataFrame) -> list[np.ndarray]:
    """Rows reaching every node, recomputed by walking the split definitions.

    Only for data without missing values (no fractional routing).
    """
    nd = model.tree_.nodes()
    names = [str(n) for n in model.feature_names_in_]
    n = len(nd["kind"])
    masks: list[np.ndarray | None] = [None] * n
    masks[0] = np.ones(X.height, dtype=bool)
    stack = [0]
    while stack:
        i = stack.pop()
        kind = int(nd["kind"][i])
        if kind == LEAF:
            continue
        col = X[names[int(nd["feature"][i])]]
        mask = masks[i]
        fc, nc = int(nd["first_child"][i]), int(nd["n_children"][i])
        if kind == NUMERIC:
            v = col.cast(pl.Float64).to_numpy()
            t = nd["threshold"][i]
            parts = [v <= t, v > t]
        else:
            cats = categories(col)
            codes = codes_of(col, cats)
            if kind == MULTIWAY:
                parts = [codes == k for k in range(nc)]
            elif kind == SUBSET:
                off = int(nd["subset_offset"][i])
                sm = np.asarray(nd["subset_mask"][off : off + len(cats)], dtype=bool)
                inside = sm[codes]
                parts = [inside, ~inside]
            elif kind == ORDERED:
                t = nd["threshold"][i]
                parts = [codes <= t, codes > t]
            else:
                raise AssertionError(f"unknown node kind {kind}")
        assert len(parts) == nc, (i, kind, nc)
        for k in range(nc):
            masks[fc + k] = mask & parts[k]
            stack.append(fc + k)
    assert all(m is not None for m in masks), "some node is unreachable from the root"
    return masks  # type: ignore[return-value]


def class_codes(model, y) -> np.ndarray:
    classes = list(model.classes_)
    index = {c: i for i, c in enumerate(classes)}
    return np.array([index[v] for v in list(y)], dtype=np.int64)


def check_counts(model, X: pl.DataFrame, y) -> list[np.ndarray]:
    """Every node's weight, n_rows and class weights equal the counts of the training rows
    that satisfy its path (unit weights, no missing values); an empty node has weight 0,
    its parent's distribution and its parent's label."""
    nd = model.tree_.nodes()
    masks = node_masks(model, X)
    yc = class_codes(model, y)
    k = len(model.classes_)
    for i, m in enumerate(masks):
        counts = np.bincount(yc[m], minlength=k).astype(float)
        assert nd["weight"][i] == np.float64(m.sum()), (i, nd["weight"][i], m.sum())
        assert nd["n_rows"][i] == np.float64(m.sum()), (i, nd["n_rows"][i], m.sum())
        value = np.asarray(nd["value"][i], dtype=float)
        if m.sum() > 0:
            np.testing.assert_allclose(value, counts, atol=1e-12, err_msg=f"node {i}")
            # the label is a majority class
            assert counts[int(nd["label"][i])] == counts.max(), (i, counts, nd["label"][i])
        else:
            p = int(nd["parent"][i])
            parent_value = np.asarray(nd["value"][p], dtype=float)
            np.testing.assert_allclose(
                value / value.sum(), parent_value / parent_value.sum(), atol=1e-12
            )
            assert nd["label"][i] == nd["label"][p], (i, p)
            assert nd["kind"][i] == LEAF
    return masks


# --- export_text parsing -------------------------------------------------------------

_COMMENT = re.compile(r"\s{2,}\(.*\)\s*$")


def clean_drawing(text: str) -> str:
    """README drawing -> export_text(show_weights=False) text (comments removed)."""
    lines = []
    for line in text.strip("\n").splitlines():
        line = _COMMENT.sub("", line).rstrip()
        if line.strip():
            lines.append(line)
    return "\n".join(lines)


def normalize_export(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines() if line.strip())


def parse_export(text: str):
    """Indented text -> canonical nested structure (siblings sorted), for comparisons that
    do not depend on the order of the children."""
    root: list = []
    stack: list[tuple[int, list]] = [(-1, root)]
    for line in normalize_export(text).splitlines():
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 4 == 0, line
        level = indent // 4
        body = " ".join(line.split())
        cond, sep, label = body.rpartition(": ")
        if not sep:
            cond, label = body, None
        children: list = []
        while stack[-1][0] >= level:
            stack.pop()
        stack[-1][1].append((cond, label, children))
        stack.append((level, children))

    def canon(nodes):
        return tuple(sorted((c, lab, canon(ch)) for c, lab, ch in nodes))

    return canon(root)


# --- independent impurity arithmetic ----------------------------------------------------


def entropy(weights: np.ndarray) -> float:
    w = np.asarray(weights, dtype=float)
    total = w.sum()
    if total <= 0:
        return 0.0
    p = w[w > 0] / total
    return float(-(p * np.log2(p)).sum())


def gini(weights: np.ndarray) -> float:
    w = np.asarray(weights, dtype=float)
    total = w.sum()
    if total <= 0:
        return 0.0
    p = w / total
    return float(1.0 - (p * p).sum())


def class_counts(y: list, classes: list) -> np.ndarray:
    return np.array([sum(1 for v in y if v == c) for c in classes], dtype=float)


def multiway_gain(x: list, y: list, impurity=entropy) -> tuple[float, float, float]:
    """C4.5 (text 000 eq. 4.12): (rho x decrease, rho, weighted child impurity on D~)
    for a categorical attribute with None as missing, unit weights."""
    classes = sorted(set(y))
    known = [(a, b) for a, b in zip(x, y, strict=True) if a is not None]
    rho = len(known) / len(y)
    yk = [b for _, b in known]
    parent = impurity(class_counts(yk, classes))
    children = 0.0
    for v in sorted({a for a, _ in known}):
        yv = [b for a, b in known if a == v]
        children += len(yv) / len(yk) * impurity(class_counts(yv, classes))
    return rho * (parent - children), rho, children


def midpoints(values) -> np.ndarray:
    v = np.unique(np.asarray([a for a in values if a is not None], dtype=float))
    return (v[:-1] + v[1:]) / 2.0


def best_threshold(x, y, impurity=entropy) -> tuple[float, float, float]:
    """Best `x <= t` split over the midpoints: (t, decrease, weighted child impurity)."""
    x = np.asarray(x, dtype=float)
    y = list(y)
    classes = sorted(set(y))
    parent = impurity(class_counts(y, classes))
    best = (np.nan, -np.inf, np.nan)
    for t in midpoints(x):
        left = [b for a, b in zip(x, y, strict=True) if a <= t]
        right = [b for a, b in zip(x, y, strict=True) if a > t]
        child = (len(left) * impurity(class_counts(left, classes))) / len(y) + (
            len(right) * impurity(class_counts(right, classes))
        ) / len(y)
        dec = parent - child
        if dec > best[1] + 1e-12:
            best = (float(t), dec, child)
    return best


def breast_cancer() -> tuple[pl.DataFrame, pl.Series]:
    datasets = pytest.importorskip(
        "sklearn.datasets", reason="scikit-learn comes with the test extras"
    )
    data = datasets.load_breast_cancer()
    X = pl.DataFrame(data.data, schema=list(data.feature_names), orient="row")
    return X, pl.Series("diagnosis", data.target_names[data.target])


def watermelon3() -> tuple[pl.DataFrame, pl.Series]:
    return load_xy("watermelon3")


def watermelon3_strings() -> tuple[pl.DataFrame, pl.Series]:
    """Unordered categories: CART splits them into subsets rather than by threshold."""
    X, y = load_xy("watermelon3")
    return X.with_columns(cs.enum().cast(pl.String)), y


def sklearn_agreement(q, sk) -> dict[str, int]:
    """How much of scikit-learn's tree `sk` quercus's `q` reproduces, walking both from the
    root through their scikit-learn arrays (`tree_`).

    A node is ``same`` when both trees have it with the same weight and value (to 1e-9),
    impurity (to 1e-6: scikit-learn computes the variance as E[y²] − ȳ², which loses digits
    that quercus's two-pass sum keeps) and split (feature, threshold to 1e-6, and the same
    weight in each child: the missing values sent the same way). Where the splits differ, the
    divergence is a ``tie`` when both decrease the weighted impurity equally (scikit-learn
    breaks ties between features by its random feature order, quercus by column, and each
    decides equal directions for missing values by rounding noise), else a ``mismatch``;
    nothing below a divergence is compared. ``nodes`` counts scikit-learn's.
    """
    a, b = q.tree_, sk.tree_
    counts = {"nodes": int(b.node_count), "same": 0, "ties": 0, "mismatch": 0}
    scale = abs(b.value[0, 0, 0]) ** 2 + abs(b.impurity[0])

    def decrease(t, n: int) -> float:
        left, right = t.children_left[n], t.children_right[n]
        if left == -1:
            return 0.0
        w, imp = t.weighted_n_node_samples, t.impurity
        return w[n] * imp[n] - w[left] * imp[left] - w[right] * imp[right]

    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        summary = (
            np.isclose(a.weighted_n_node_samples[i], b.weighted_n_node_samples[j], rtol=1e-9)
            and np.isclose(a.value[i, 0, 0], b.value[j, 0, 0], rtol=1e-9, atol=1e-12)
            and np.isclose(a.impurity[i], b.impurity[j], rtol=1e-6, atol=1e-12 * scale)
        )
        leaf_q, leaf_s = a.children_left[i] == -1, b.children_left[j] == -1
        if leaf_q and leaf_s:
            counts["same" if summary else "mismatch"] += 1
            continue
        w = b.weighted_n_node_samples
        if (
            not leaf_q
            and not leaf_s
            and a.feature[i] == b.feature[j]
            and np.isclose(a.threshold[i], b.threshold[j], rtol=1e-6)
            and np.isclose(a.weighted_n_node_samples[a.children_left[i]], w[b.children_left[j]])
        ):
            counts["same" if summary else "mismatch"] += 1
            stack.append((a.children_left[i], b.children_left[j]))
            stack.append((a.children_right[i], b.children_right[j]))
            continue
        tied = np.isclose(decrease(a, i), decrease(b, j), rtol=1e-6, atol=1e-12 * scale * w[j])
        counts["ties" if tied and summary else "mismatch"] += 1
    return counts


def to_pandas(frame: pl.DataFrame):
    """`frame` as a pandas DataFrame made by pandas from NumPy columns, as a user without
    pyarrow has them (Polars' own `to_pandas` needs pyarrow): nulls of numbers as NaN,
    temporal columns as datetime64, text (Enums included) as object columns."""
    import pandas as pd

    return pd.DataFrame({name: frame.get_column(name).to_numpy() for name in frame.columns})
