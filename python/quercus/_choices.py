"""The string choices of the estimators' parameters, as `Literal` types (so that editors
complete them and type checkers catch a misspelt one), and, read from those types, the
tuples the parameter checks accept: each choice is written once.

It imports nothing of quercus: the inputs, the estimators and the extension's stub all read
it.
"""

from __future__ import annotations

from typing import Literal, get_args

Algorithm = Literal["id3", "c4.5", "cart", "optimal"]
# The class criteria of texts 000 and 002 §3 ("log_loss" is scikit-learn's name for entropy:
# the same tree, recorded as "entropy"), and scikit-learn's regression criteria.
ClassCriterion = Literal[
    "entropy",
    "log_loss",
    "gain_ratio",
    "gini",
    "misclassification",
    "likelihood_ratio",
    "dkm",
    "distance",
    "twoing",
    "ort",
    "kolmogorov_smirnov",
    "auc",
]
RegressionCriterion = Literal["squared_error", "friedman_mse", "absolute_error", "poisson"]
Criterion = Literal[ClassCriterion, RegressionCriterion]
CategoricalSplit = Literal["multiway", "binary"]
Conventions = Literal["texts", "j48"]
Prepruning = Literal["none", "validation"]
Pruning = Literal["none", "reduced_error", "pessimistic", "cost_complexity"]
CcpRisk = Literal["impurity", "misclassification"]
CcpSequence = Literal["weakest_link", "rpart"]
Splits = Literal["axis", "oblique"]
# The core's own missing-value strategies, then the two that prepare the rows instead.
CoreMissing = Literal[
    "fractional", "majority_branch", "class_majority", "separate", "learned", "surrogate"
]
Missing = Literal[CoreMissing, "impute_mean", "drop_rows"]
# "best" is scikit-learn's name for "auto"; "random" draws one test per feature (ExtraTree).
Splitter = Literal["best", "random", "exact", "hist", "auto"]
FeatureShare = Literal["sqrt", "log2"]
# The databases `to_sql` writes for ("ansi": standard SQL, which DuckDB and PostgreSQL run).
SqlDialectName = Literal["ansi", "duckdb", "postgresql", "sqlite", "spark"]

ALGORITHMS: tuple[str, ...] = get_args(Algorithm)
CLASS_CRITERIA: tuple[str, ...] = get_args(ClassCriterion)
REGRESSION_CRITERIA: tuple[str, ...] = get_args(RegressionCriterion)
CRITERIA: tuple[str, ...] = get_args(Criterion)
PRUNINGS: tuple[str, ...] = get_args(Pruning)
CORE_STRATEGIES: tuple[str, ...] = get_args(CoreMissing)
STRATEGIES: tuple[str, ...] = get_args(Missing)
SPLITTERS: tuple[str, ...] = get_args(Splitter)
