"""The estimators' parameter documentation, written once for all four classes.

The classifier, the regressor and the two extremely randomised trees take the same growth,
pruning and missing-value parameters; their numpydoc Parameters sections are assembled here
from one description per parameter, with each class's own defaults read from its signature,
so a changed default cannot leave a stale docstring behind.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

# name -> (type, description). The description is what the parameter does and where the
# rule comes from; defaults are added from the signature.
PARAMETERS: dict[str, tuple[str, str]] = {
    "algorithm": (
        '{"id3", "c4.5", "cart", "optimal"}',
        "The preset: ID3 (information gain, multiway splits, Quinlan 1986), C4.5 (gain "
        "ratio, multiway splits, C4.5 release 8 / Weka J48's pruning and conventions for the "
        "classifier), CART (Gini or squared error, binary subset splits, Breiman et al. "
        "1984) or the provably optimal tree of depth at most ``max_depth`` (MurTree, "
        "STreeD, ConTree). Every setting a preset chooses can be overridden by its own "
        "parameter.",
    ),
    "criterion": (
        "str or None",
        "The split criterion by name (see the user guide's criteria page for each formula "
        "and its source). None: the preset's (``entropy`` for id3, ``gain_ratio`` for c4.5, "
        "``gini`` for cart, ``misclassification`` for optimal; ``squared_error`` for a "
        "regressor).",
    ),
    "categorical_split": (
        '{"multiway", "binary"} or None',
        "One branch per category (ID3, C4.5) or a binary subset split (CART); under "
        '``conventions="j48"`` a binary split is J48 -B\'s, one category against the others. '
        "None: the preset's.",
    ),
    "max_depth": ("int or None", "Levels below the root at most; None: no limit."),
    "min_samples_split": (
        "int or float",
        "A node with less training weight than this is a leaf. A float f is a share of the "
        "n training rows: ceil(f * n), at least 2. Rows count by weight (C4.5's fractions "
        "of rows by the share they carry).",
    ),
    "min_samples_leaf": (
        "int or float",
        "Each child of a split holds at least this training weight; a float is a share of "
        "the rows, as for ``min_samples_split``.",
    ),
    "max_exhaustive_categories": (
        "int",
        "Binary subset splits with three or more classes try every partition of up to this "
        "many present categories (2 to 20); beyond, categories are ordered by their share of "
        "the majority class and the best prefix is kept.",
    ),
    "max_leaf_nodes": (
        "int or None",
        "Grow best-first (largest weighted gain first) up to this many leaves; None: "
        "depth-first without a limit.",
    ),
    "min_weight_fraction_leaf": (
        "float",
        "Each leaf holds at least this share (0 to 0.5) of the total training weight.",
    ),
    "min_gain": (
        "float",
        "A split is made only if the node's own impurity decrease (C4.5's ρ × gain with "
        "missing values) is at least this.",
    ),
    "min_impurity_decrease": (
        "float",
        "scikit-learn's rule: a split is made only if N_t / N × (its impurity decrease) is "
        "at least this, N_t the node's and N the whole training weight.",
    ),
    "max_p_value": (
        "float or None",
        "Split only where branch and class are dependent at this p-value under the "
        "likelihood-ratio G² test (Rokach & Maimon §3.5); None: no test.",
    ),
    "min_objects": (
        "float or None",
        "C4.5's MINOBJS: at least two branches of a split hold this many rows, and a numeric "
        "test leaves its MINSPLIT on both sides. None: the preset's (2 for the c4.5 "
        "classifier, else 0).",
    ),
    "numeric_gain_correction": (
        "bool or None",
        "Reduce a numeric test's gain by log2(thresholds tried) / ``|D|`` as C4.5 release 8 does "
        "(Quinlan 1996). None: the preset's (on for the c4.5 classifier).",
    ),
    "conventions": (
        '{"texts", "j48"} or None',
        "How ties, thresholds and near-equal values are settled: as the textbooks do "
        "(midpoint thresholds, ties to the first column) or as Weka's J48 does (thresholds at "
        "training values, its 1e-6 and 1e-5 tolerances). None: ``j48`` for the c4.5 "
        "classifier, ``texts`` otherwise.",
    ),
    "prepruning": (
        '{"none", "validation"} or None',
        "``validation`` splits a node only when the split raises the accuracy on "
        "``fit(..., validation=(X_val, y_val))`` (Zhou §4.3.1).",
    ),
    "pruning": (
        '{"none", "reduced_error", "pessimistic", "cost_complexity"} or None',
        "Post-pruning after growth (see :meth:`prune`). None: ``pessimistic`` for the c4.5 "
        "classifier, else ``none`` (a positive ``ccp_alpha`` still prunes, as in "
        "scikit-learn).",
    ),
    "ccp_alpha": (
        "float",
        "Complexity parameter of minimal cost-complexity pruning: the error a leaf must save "
        "per unit of training weight to be kept (Breiman et al. 1984 §3.3).",
    ),
    "ccp_risk": (
        '{"impurity", "misclassification"}',
        "What cost-complexity pruning charges a leaf: impurity × weight (scikit-learn) or "
        "its misclassification cost, the resubstitution risk R(t) of Breiman et al. and "
        "rpart (classifier only).",
    ),
    "ccp_sequence": (
        '{"weakest_link", "rpart"}',
        "The pruning sequence: the weakest link collapsed again and again (Breiman et al., "
        "scikit-learn) or the complexities rpart computes while it grows the tree.",
    ),
    "confidence": (
        "float",
        "C4.5's confidence factor CF for pessimistic pruning, in (0, 0.5].",
    ),
    "prune_ties": (
        "bool",
        "Reduced-error pruning replaces a subtree when validation error does not rise "
        "(True, the restaurant notes' Algorithm 2) or only when it falls (False, Zhou §4.3.2).",
    ),
    "pruning_folds": (
        "int or None",
        "Without ``validation`` rows, reduced-error pruning (and validation pre-pruning) holds "
        "out one of this many folds of the training rows and grows on the others, as Weka's "
        "J48 -R -N does: the rows grouped by class and dealt into the folds as Weka's "
        "``stratify`` deals them (a regression or multi-output target: the last stretch of "
        "rows), the last fold held out. Under ``conventions='j48'`` the thresholds move to "
        "values of the held-out rows too, as J48's do, so ``algorithm='c4.5', "
        "pruning='reduced_error', pruning_folds=3`` grows and prunes J48 -R's tree.",
    ),
    "subtree_raising": (
        "bool",
        "Pessimistic pruning may also replace a node by its largest branch (C4.5, J48).",
    ),
    "collapse": (
        "bool or None",
        "Run J48's ``collapse()`` before pruning: a subtree no better on the training data "
        "than its root alone becomes a leaf. None: on for the c4.5 classifier, but for "
        "reduced-error pruning (J48 -R does not collapse).",
    ),
    "splits": (
        '{"axis", "oblique"}',
        "``oblique`` adds multivariate tests w·x <= t over the numeric features (Fisher's "
        "direction refined by OC1's coordinate search); the best axis-parallel split stays a "
        "candidate.",
    ),
    "missing": (
        '{"fractional", "majority_branch", "class_majority", "separate", "learned", '
        '"surrogate", "impute_mean", "drop_rows"} or None',
        "How missing values are handled at fit and at predict (see the user guide's missing "
        "values page). None: C4.5's ``fractional`` for id3 and c4.5, scikit-learn's "
        "``learned`` for cart and optimal.",
    ),
    "max_surrogates": (
        "int",
        'Surrogate splits kept per node with ``missing="surrogate"`` (rpart\'s maxsurrogate). '
        "With 0, as in rpart, a training row missing the tested value stays in the node, and "
        "a row predicted goes to the child of more training rows.",
    ),
    "drop_features_above": (
        "float or None",
        "Ignore a feature missing in more than this share of the training rows.",
    ),
    "splitter": (
        '{"best", "exact", "hist", "random", "auto"}',
        "How thresholds are searched: every midpoint (``exact``), between the bins of at "
        "most ``max_bins`` quantile bins (``hist``), one random test per feature "
        "(``random``, Geurts et al. 2006); ``best`` and ``auto`` choose exact below 200,000 "
        'rows and hist from there. With ``algorithm="optimal"``, ``hist`` makes the search '
        "take the histogram thresholds only (much faster; ``best``/``auto`` take every "
        "midpoint).",
    ),
    "max_features": (
        'int, float, {"sqrt", "log2"} or None',
        "Features drawn and searched per node, with scikit-learn's rules (a float is a "
        "share); None: all.",
    ),
    "random_state": (
        "int, numpy.random.RandomState, numpy.random.Generator or None",
        "Seeds every random choice (drawn features, random tests, random folds). A fit "
        "that draws nothing reads no seed.",
    ),
    "monotonic_cst": (
        "array-like of int or None",
        "Per feature 1 (predictions only rise with it), -1 (only fall) or 0, with "
        "scikit-learn's semantics.",
    ),
    "max_bins": ("int", "Bins per numeric feature of the histogram search (2 to 255)."),
    "max_cat_threshold": (
        "int or None",
        "LightGBM's cap on a nominal subset split: at most this many categories on the "
        "searched side, tried from both ends of the categories' order. None: no cap (CART).",
    ),
    "cat_smooth": (
        "float",
        "LightGBM's smoothing of the categories' order: each share (or mean) pulled toward "
        "the node's by this many rows; categories of fewer rows stay on the other side. "
        "0: none (CART).",
    ),
    "cat_l2": (
        "float",
        "LightGBM's extra L2 of categorical splits: each side of a subset scored with this "
        "many rows of the node's mix added. 0: none (CART).",
    ),
    "min_data_per_group": (
        "int",
        "LightGBM's least rows per step of a subset scan and on its other side. 1: none (CART).",
    ),
    "n_jobs": (
        "int or None",
        "Threads searching the features of large nodes and predicting large batches; None or "
        "-1: every core, -2: all but one. The tree does not depend on it.",
    ),
    "ordinal_features": (
        "list of str, dict or None",
        "Categorical columns with an order, split by threshold on it: names (keeping the "
        "column's order) or a dict name -> categories in order.",
    ),
    "max_time": (
        "float or None",
        "Seconds a fit may take: past it a greedy fit raises TimeoutError (the estimator "
        "unchanged), the optimal search returns its best tree with a warning.",
    ),
    "verbose": ("int or bool", "Report long fits and predictions on stderr."),
    "cost_matrix": (
        "array-like of shape (n_classes, n_classes) or None",
        "Misclassification costs, rows the true and columns the predicted class in "
        "``classes_`` order: leaves predict the class of least expected cost, and the Gini "
        "index becomes Σ L_kk' p_k p_k' (Breiman et al. 1984 §4.4).",
    ),
    "class_weight": (
        'dict, list of dict, "balanced" or None',
        "Weights per class (one dict per output of a multi-output y), as scikit-learn's.",
    ),
    "priors": (
        "dict, array-like or None",
        "rpart's class priors (label -> prior, or in ``classes_`` order), summing to 1.",
    ),
    "altered_priors": (
        "bool",
        "Put ``cost_matrix`` into the split search as rpart does, as altered class priors.",
    ),
    "laplace": (
        "bool",
        "``predict_proba`` gives each leaf's Laplace estimate, (n_k + 1) / (n + K) for K "
        "classes, as Weka's J48 -A does (an empty leaf its parent's); ``predict`` is "
        "unchanged, as in J48.",
    ),
}


# The fitted attributes every estimator has (the classifier adds `classes_`, `n_classes_`).
ATTRIBUTES = """
Attributes
----------
n_nodes_, n_leaves_, depth_ : int
    The fitted tree's size (``get_depth()`` and ``get_n_leaves()`` are scikit-learn's names).
tree_ : object
    The fitted tree: the core tree's nodes (``tree_.nodes()``) and scikit-learn's ``tree_``
    arrays (``children_left``, ``threshold``, ``value``, ...).
feature_importances_ : numpy.ndarray
    Weighted impurity decrease per feature, normalised to sum to 1.
features_used_ : frozenset of str
    The features some split tests.
n_features_in_ : int
    Features seen at fit; ``feature_names_in_`` holds their names.
n_outputs_ : int
    Targets predicted at once.
splitter_ : str
    The threshold search the fit used: ``"exact"``, ``"hist"`` or ``"random"``.
max_features_ : int
    The features searched per node.
pruning_trace_ : polars.DataFrame or None
    Each reduced-error pruning decision, in order.
optimality_gap_ : float or None
    ``algorithm="optimal"``: how far the tree's objective may be above the optimum (0.0
    when proven optimal; ``proven_optimal_`` says whether it was).
fill_values_ : dict
    ``missing="impute_mean"``: each feature's fill value.
ignored_features_ : list of str
    The features ``drop_features_above`` ignored.
"""


def parameters_section(cls: type) -> str:
    """The numpydoc Parameters section of `cls`, in its signature's order and defaults."""
    lines = ["Parameters", "----------"]
    for parameter in inspect.signature(cls).parameters.values():
        kind, text = PARAMETERS[parameter.name]
        lines.append(f"{parameter.name} : {kind}, default={parameter.default!r}")
        indent = "    "
        lines += textwrap.wrap(
            text, 88, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        )
    return "\n".join(lines)


def document(cls: Any, summary: str, rest: str, attributes: str = "") -> None:
    """Give `cls` the docstring `summary`, its Parameters section, the shared Attributes and
    its own `attributes` (lines of that section), then `rest`: the numpydoc sections that
    follow (See Also, Notes, Examples)."""
    shared = ATTRIBUTES.strip("\n")
    own = textwrap.dedent(attributes).strip("\n")
    sections = [
        inspect.cleandoc(summary),
        parameters_section(cls),
        f"{shared}\n{own}" if own else shared,
        textwrap.dedent(rest).strip("\n"),
    ]
    cls.__doc__ = "\n\n".join(sections) + "\n"
