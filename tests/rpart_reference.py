"""quercus's CART with surrogates against R's rpart, on rpart's own data sets.

One Rscript run fits every case (rpart with `method = "class"`, its cross-validation given
as a fold vector) and writes the data, the folds and rpart's trees as JSON; quercus then fits
the same rows with the translated parameters and each case is compared on four things:

- splits: node by node, the same variable, threshold (or category sets), rows and class
  weights per node;
- surrogates: each split's surrogate list, in order, with the same variable, direction and
  agreement;
- cp table: CP, nsplit, rel error, xerror, xstd (rpart's `printcp`) with the same folds;
- 1-SE tree: the row the 1-SE rule picks and the tree pruned there (`prune(fit, cp = CP)`).

Used by tests/test_vs_rpart.py and bench/vs_rpart.py. R and rpart are optional: `available()`
says why they cannot be used.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from quercus import DecisionTreeClassifier, DecisionTreeRegressor

# Relative tolerance for numbers both programs compute (rpart sums in another order).
TOL = 1e-9


@dataclass(frozen=True)
class Case:
    """One rpart fit: `data` an R expression for a data frame of rpart's, `target` the class
    column, `features` the predictors; `control` and `parms` as rpart takes them."""

    name: str
    data: str
    target: str
    features: tuple[str, ...]
    control: dict[str, float] = field(default_factory=dict)
    split: str = "gini"  # rpart's parms$split: "gini" or "information"
    prior: tuple[float, ...] | None = None
    loss: tuple[tuple[float, ...], ...] | None = None  # rows: true class, columns: predicted
    seed: int = 1  # set.seed() before rpart draws the folds
    method: str = "class"  # rpart's method: "class" (a classifier) or "anova" (a regressor)
    # Factors kept ordered (rpart splits them as numbers, at thresholds between levels; quercus
    # is given them as `ordinal_features`); the others are made unordered.
    ordered: tuple[str, ...] = ()
    # Case weights: an R expression of the row count `n` after the rows rpart drops (None:
    # unit weights), given to rpart as `weights` and to quercus as `sample_weight`.
    weights: str | None = None

    @property
    def label(self) -> str:
        """`kyphosis-information-cp0-prior-loss`: the case in a word."""
        kind = self.split if self.method == "class" else self.method
        parts = [self.name, self.target, kind, f"cp{self.rpart_control()['cp']:g}"]
        parts += ["prior"] * (self.prior is not None) + ["loss"] * (self.loss is not None)
        parts += ["weighted"] * (self.weights is not None)
        return "-".join(parts)

    def rpart_control(self) -> dict[str, float]:
        """rpart.control's defaults with this case's values."""
        control = {"minsplit": 20, "cp": 0.01, "maxsurrogate": 5, "maxdepth": 30}
        control.update(self.control)
        control.setdefault("minbucket", round(control["minsplit"] / 3))
        return control


CASES = (
    Case("kyphosis", "kyphosis", "Kyphosis", ("Age", "Number", "Start")),
    Case(
        "kyphosis",
        "kyphosis",
        "Kyphosis",
        ("Age", "Number", "Start"),
        {"minsplit": 5, "minbucket": 2, "cp": 0.0},
        split="information",
        seed=2,
    ),
    Case(
        "kyphosis",
        "kyphosis",
        "Kyphosis",
        ("Age", "Number", "Start"),
        {"minsplit": 10, "cp": 0.0},
        prior=(0.5, 0.5),
        loss=((0.0, 1.0), (3.0, 0.0)),
        seed=3,
    ),
    Case(
        "cu.summary",
        "cu.summary",
        "Reliability",
        ("Price", "Country", "Mileage", "Type"),
        {"minsplit": 10, "cp": 0.0},
        seed=4,
    ),
    Case(
        "cu.summary",
        "cu.summary",
        "Reliability",
        ("Price", "Country", "Mileage", "Type"),
        {"maxsurrogate": 2, "cp": 0.005},
        split="information",
        seed=5,
    ),
    Case(
        "car90",
        "car90",
        "Type",
        (
            "Price",
            "Disp",
            "HP",
            "Weight",
            "Mileage",
            "Gear.Ratio",
            "Tank",
            "Width",
            "Country",
            "Rim",
            "Steering",
        ),
        {"minsplit": 10, "cp": 0.0},
        seed=6,
    ),
    Case(
        "solder",
        "solder",
        "Solder",
        ("Opening", "Mask", "PadType", "Panel", "skips"),
        {"cp": 0.001},
        seed=7,
    ),
    Case(
        "solder",
        "solder",
        "Solder",
        ("Opening", "Mask", "PadType", "Panel", "skips"),
        {"minsplit": 30, "cp": 0.001},
        prior=(0.3, 0.7),
        seed=8,
    ),
    Case(
        "stagec",
        "stagec",
        "pgstat",
        ("age", "eet", "g2", "grade", "gleason", "ploidy"),
        {"minsplit": 10, "cp": 0.0},
        seed=9,
    ),
    Case(
        "stagec",
        "stagec",
        "pgstat",
        ("age", "eet", "g2", "grade", "gleason", "ploidy"),
        {"maxsurrogate": 1, "cp": 0.005, "maxdepth": 4},
        split="information",
        loss=((0.0, 2.0), (1.0, 0.0)),
        seed=10,
    ),
)

# Beyond rpart's own data: R's `datasets` and the `survival` package, classification and
# regression, with and without missing values (issue "Faithful to the last leaf").
_LUNG = ("age", "sex", "ph.ecog", "ph.karno", "pat.karno", "meal.cal", "wt.loss")
_PBC = ("age", "sex", "ascites", "hepato", "spiders", "edema", "bili", "chol", "albumin")
_PBC += ("copper", "alk.phos", "ast", "trig", "platelet", "protime", "stage")
_COLON = ("rx", "sex", "age", "obstruct", "perfor", "adhere", "nodes", "differ", "extent", "surg")
_VETERAN = ("trt", "celltype", "karno", "diagtime", "age", "prior")
WIDER_CASES = (
    Case("faithful", "faithful", "eruptions", ("waiting",), method="anova", seed=11),
    Case(
        "CO2",
        "CO2",
        "uptake",
        ("Plant", "Type", "Treatment", "conc"),
        {"minsplit": 10, "cp": 0.0},
        method="anova",
        seed=12,
    ),
    Case(
        "airquality",
        "airquality",
        "Ozone",
        ("Solar.R", "Wind", "Temp", "Month", "Day"),
        {"minsplit": 10, "cp": 0.0},
        method="anova",
        seed=13,
    ),
    Case(
        "mtcars",
        "mtcars",
        "mpg",
        ("cyl", "disp", "hp", "drat", "wt", "qsec"),
        {"minsplit": 6, "cp": 0.0},
        method="anova",
        seed=14,
    ),
    Case(
        "iris",
        "iris",
        "Species",
        ("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"),
        {"cp": 0.0},
        seed=15,
    ),
    Case(
        "warpbreaks",
        "warpbreaks",
        "breaks",
        ("wool", "tension"),
        {"minsplit": 8, "cp": 0.0},
        method="anova",
        seed=16,
    ),
    Case(
        "ToothGrowth",
        "ToothGrowth",
        "len",
        ("supp", "dose"),
        {"minsplit": 8, "cp": 0.0},
        method="anova",
        seed=17,
    ),
    Case(
        "swiss",
        "swiss",
        "Fertility",
        ("Agriculture", "Examination", "Education", "Catholic", "Infant.Mortality"),
        {"minsplit": 8, "cp": 0.0},
        method="anova",
        seed=18,
    ),
    Case(
        "quakes",
        "quakes",
        "mag",
        ("lat", "long", "depth", "stations"),
        {"cp": 0.002},
        method="anova",
        seed=19,
    ),
    Case("lung", "survival::lung", "status", _LUNG, {"minsplit": 10, "cp": 0.0}, seed=20),
    Case(
        "lung",
        "survival::lung",
        "time",
        _LUNG,
        {"minsplit": 10, "cp": 0.0},
        method="anova",
        seed=21,
    ),
    Case(
        "pbc",
        "survival::pbc",
        "status",
        _PBC,
        {"minsplit": 10, "cp": 0.0},
        split="information",
        seed=22,
    ),
    Case("pbc", "survival::pbc", "time", _PBC, {"cp": 0.0}, method="anova", seed=23),
    Case("colon", "survival::colon", "status", _COLON, {"cp": 0.001}, seed=24),
    Case(
        "veteran",
        "survival::veteran",
        "time",
        _VETERAN,
        {"minsplit": 10, "cp": 0.0},
        method="anova",
        seed=25,
    ),
)

# Fully grown trees whose cross-validation folds hold splits of equal score in exact arithmetic
# (iris: Petal.Length < 4.75 and < 4.95 cut one fold's node into mirror-image class counts),
# which rpart tells apart by the bits of the whole data's class shares (`xval.c` keeps them).
_FULL = {"minsplit": 6, "cp": 0.0}
_IRIS = ("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width")
FOLD_TIE_CASES = (
    Case("iris", "iris", "Species", _IRIS, _FULL, split="information", seed=137),
    Case("chickwts", "chickwts", "feed", ("weight",), _FULL, seed=127),
    Case("ChickWeight", "as.data.frame(ChickWeight)", "Diet", ("Time", "weight"), _FULL, seed=135),
    Case("esoph", "esoph", "alcgp", ("agegp", "tobgp", "ncases", "ncontrols"), _FULL, seed=145),
)

# maxsurrogate = 2, where rpart's list insertion (`insert_split.c`) can leave one surrogate,
# or a weaker second, where two better ones exist.
_CGD = ("center", "sex", "age", "height", "weight", "inherit", "steroids", "propylac", "hos.cat")
SURROGATE_LIST_CASES = (
    Case("cgd", "survival::cgd", "treat", _CGD, {"cp": 0.001, "maxsurrogate": 2}, seed=318),
    Case(
        "airquality",
        "airquality",
        "Month",
        ("Ozone", "Solar.R", "Wind", "Temp"),
        {"cp": 0.001, "maxsurrogate": 2},
        split="information",
        seed=315,
    ),
)

# Ordered factors, which rpart splits by their level numbers (thresholds; its printout and
# prediction list the levels on each side) and quercus takes as `ordinal_features`; CO2's
# Plant, Orange's Tree and ChickWeight's Chick are ordered in R's own data.
_FULL6 = {"minsplit": 6, "cp": 0.0}
_ESOPH = ("agegp", "alcgp", "tobgp")
_AIRQ = "transform(airquality, M = factor(Month, ordered = TRUE))"
_CHICKS = "as.data.frame(ChickWeight)"
ORDERED_CASES = (
    Case(
        "esoph", "esoph", "ncases", (*_ESOPH, "ncontrols"), method="anova", seed=501, ordered=_ESOPH
    ),
    Case(
        "esoph",
        "esoph",
        "agegp",
        ("alcgp", "tobgp", "ncases", "ncontrols"),
        _FULL6,
        seed=511,
        ordered=("alcgp", "tobgp"),
    ),
    Case(
        "CO2",
        "CO2",
        "uptake",
        ("Plant", "Type", "Treatment", "conc"),
        _FULL6,
        method="anova",
        seed=512,
        ordered=("Plant",),
    ),
    Case(
        "Orange",
        "as.data.frame(Orange)",
        "circumference",
        ("Tree", "age"),
        _FULL6,
        method="anova",
        seed=513,
        ordered=("Tree",),
    ),
    Case(
        "ChickWeight",
        _CHICKS,
        "weight",
        ("Time", "Chick", "Diet"),
        {"cp": 0.001, "maxsurrogate": 3},
        method="anova",
        seed=523,
        ordered=("Chick",),
    ),
    Case(
        "airquality",
        _AIRQ,
        "Ozone",
        ("Solar.R", "Wind", "Temp", "M"),
        _FULL6,
        method="anova",
        seed=516,
        ordered=("M",),
    ),
)

# Grown to single rows (minsplit 2, minbucket 1), where a fold tree meets held-out rows of a
# category its node's rows lack at a split of two equal sides: rpart's cross-validation sends
# them to its right son (`branch.c`), though its fit and predict.rpart keep such rows in the
# node (npk: row 23, block 6, at a node of blocks 2 and 3 holding one row each).
_SINGLE = {"minsplit": 2, "minbucket": 1}
_ORCHARD = "transform(OrchardSprays, rowf = factor(rowpos), colf = factor(colpos))"
_CAR90 = ("Price", "Type", "Disp", "HP", "Weight", "Mileage", "Reliability")
UNSENT_CASES = (
    Case("npk", "npk", "yield", ("block", "N", "P", "K"), _SINGLE, method="anova", seed=113),
    Case("esoph", "esoph", "alcgp", ("agegp", "tobgp", "ncases", "ncontrols"), _SINGLE, seed=122),
    Case(
        "OrchardSprays",
        _ORCHARD,
        "treatment",
        ("decrease", "rowf", "colf"),
        {"cp": 0.0, "minsplit": 4, "minbucket": 1},
        seed=701,
    ),
    Case("car90", "car90", "Country", _CAR90, {"cp": 0.0, "minsplit": 4, "minbucket": 1}, seed=705),
)

# Case weights (rpart's `weights`, quercus's `sample_weight`), integer and fractional, with
# sizes that bind neither program: rpart counts observations in minsplit and minbucket,
# quercus a row's weight in units of the lightest row's (docs/fidelity.md).
_W = "1 + (seq_len(n) %% 4)"
_FRACTIONS = "0.5 + (seq_len(n) %% 7) / 4"
_LUNG = ("age", "sex", "ph.ecog", "ph.karno", "pat.karno", "meal.cal", "wt.loss", "inst")
WEIGHTED_CASES = (
    Case("chickwts", "chickwts", "feed", ("weight",), {**_SINGLE, "cp": 0.0}, seed=127, weights=_W),
    Case("lung", "survival::lung", "status", _LUNG, _SINGLE, seed=115, weights=_W),
    Case(
        "Orange",
        "as.data.frame(Orange)",
        "circumference",
        ("Tree", "age"),
        {**_SINGLE, "cp": 0.0},
        method="anova",
        seed=133,
        weights=_FRACTIONS,
    ),
    Case(
        "attitude",
        "attitude",
        "rating",
        ("complaints", "privileges", "learning", "raises", "critical", "advance"),
        _SINGLE,
        method="anova",
        seed=120,
        weights=_FRACTIONS,
    ),
    Case("iris", "iris", "Species", _IRIS, _SINGLE, split="information", seed=114, weights=_W),
    Case(
        "mtcars",
        "mtcars",
        "gear",
        ("mpg", "disp", "hp", "wt", "qsec"),
        _SINGLE,
        loss=((0.0, 1.0, 2.0), (1.0, 0.0, 1.0), (3.0, 1.0, 0.0)),
        seed=119,
        weights=_W,
    ),
)

# Given priors and losses, whose ties rpart decides by its altered priors' bits (rebuilt from
# the priors as given, `giniinit`): the data of rpart's own tests/priors.R grown fully (node
# 7's x1 and x2 improve it by 0.4834932 both; rpart takes x2) and mtcars with a loss matrix.
_PDATA = (
    "transform(data.frame(y = factor(rep(1:3, 5)), x1 = 1:15, x2 = c(1:6, 1:6, 1:3), "
    "x3 = (rep(1:3, 5) + c(3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9) / 5) * 10), "
    "x3 = replace(x3, c(1, 5, 10), NA), y = factor(replace(as.character(y), 15, '1')))"
)
PRIOR_CASES = (
    Case(
        "priors.R",
        _PDATA,
        "y",
        ("x1", "x2", "x3"),
        {"cp": 0.0, "minsplit": 5},
        prior=(0.2, 0.3, 0.5),
        loss=((0.0, 2.0, 2.0), (2.0, 0.0, 6.0), (1.0, 1.0, 0.0)),
        seed=11,
    ),
    Case(
        "mtcars",
        "mtcars",
        "gear",
        ("mpg", "disp", "hp", "wt", "qsec"),
        {"minsplit": 6, "cp": 0.0},
        loss=((0.0, 1.0, 2.0), (1.0, 0.0, 1.0), (3.0, 1.0, 0.0)),
        seed=142,
    ),
)

# Every case above, as tests/test_vs_rpart.py and bench/vs_rpart.py run them.
# maxsurrogate = 0: rpart computes no majority direction either (`lastsurrogate` comes with
# the surrogates), so every row missing the tested value stays in the node, at fit and at
# prediction, and goes to rpart's right son in the cross-validation.
NO_SURROGATE_CASES = (
    Case(
        "airquality",
        "airquality",
        "Month",
        ("Ozone", "Solar.R", "Wind", "Temp"),
        {"cp": 0.001, "maxsurrogate": 0},
        seed=901,
    ),
    Case("pbc", "survival::pbc", "status", _PBC, {"cp": 0.0, "maxsurrogate": 0}, seed=902),
    Case(
        "pbc",
        "survival::pbc",
        "time",
        _PBC,
        {"cp": 0.0, "maxsurrogate": 0},
        method="anova",
        seed=903,
    ),
    Case(
        "car90", "car90", "Type", _CAR90[:1] + _CAR90[2:], {"cp": 0.0, "maxsurrogate": 0}, seed=904
    ),
)

ALL_CASES = (
    CASES
    + WIDER_CASES
    + FOLD_TIE_CASES
    + SURROGATE_LIST_CASES
    + ORDERED_CASES
    + UNSENT_CASES
    + WEIGHTED_CASES
    + PRIOR_CASES
    + NO_SURROGATE_CASES
)

# --- R ------------------------------------------------------------------------------------------


def available() -> str | None:
    """None when Rscript, rpart and survival (some cases' data) can run, else why not."""
    if shutil.which("Rscript") is None:
        return "Rscript is not installed (Debian: apt-get install r-base-core r-cran-rpart)"
    probe = subprocess.run(
        ["Rscript", "-e", "library(rpart); library(survival)"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return (
            "R's rpart or survival package is missing (apt-get install r-cran-rpart "
            f"r-cran-survival): {probe.stderr}"
        )
    return None


# A JSON writer (R ships none): numbers with 17 digits, NA as null, data frames and matrices
# by column, then the cases.
_R_PRELUDE = r"""
suppressMessages(library(rpart))
json <- function(x) {
  if (is.null(x)) return("null")
  if (is.factor(x)) x <- as.character(x)
  if (is.matrix(x)) x <- lapply(seq_len(ncol(x)), function(j) unname(x[, j]))
  if (is.data.frame(x)) x <- as.list(x)
  if (is.list(x)) {
    if (length(x) == 0) return(if (is.null(names(x))) "[]" else "{}")
    items <- vapply(x, json, "")
    if (!is.null(names(x)))
      return(paste0("{", paste0(str(names(x)), ":", items, collapse = ","), "}"))
    return(paste0("[", paste(items, collapse = ","), "]"))
  }
  v <- if (is.character(x)) ifelse(is.na(x), "null", str(x))
       else if (is.logical(x)) ifelse(is.na(x), "null", ifelse(x, "true", "false"))
       else ifelse(is.na(x), "null", sprintf("%.17g", as.numeric(x)))
  paste0("[", paste(v, collapse = ","), "]")
}
str <- function(s) paste0('"', gsub('"', '\\"', gsub("\\\\", "\\\\\\\\", s), fixed = TRUE), '"')
tree <- function(fit) {
  s <- fit$splits
  y2 <- fit$frame$yval2
  list(node = as.integer(row.names(fit$frame)), var = as.character(fit$frame$var),
       n = fit$frame$n, wt = fit$frame$wt, yval = fit$frame$yval, dev = fit$frame$dev,
       counts = if (is.null(y2)) NULL else y2[, 1 + seq_len((ncol(y2) - 2) / 2), drop = FALSE],
       ncompete = fit$frame$ncompete, nsurrogate = fit$frame$nsurrogate,
       split_var = if (is.null(s)) character(0) else rownames(s),
       split_ncat = if (is.null(s)) numeric(0) else s[, "ncat"],
       split_index = if (is.null(s)) numeric(0) else s[, "index"],
       split_agree = if (is.null(s)) numeric(0) else s[, "improve"],
       csplit = if (is.null(fit$csplit)) NULL else t(fit$csplit),
       ordered = names(fit$ordered)[fit$ordered],
       importance = if (is.null(fit$variable.importance)) list()
                    else as.list(fit$variable.importance),
       cptable = as.list(as.data.frame(fit$cptable)))
}
run <- function(name, d, target, features, control, parms, seed, method, ordered, weights) {
  d <- as.data.frame(d)[, c(target, features)]
  d <- d[!is.na(d[[target]]), , drop = FALSE]
  d <- d[rowSums(!is.na(d[, features, drop = FALSE])) > 0, , drop = FALSE]
  if (method == "class") {
    d[[target]] <- factor(as.character(d[[target]]), levels = if (is.factor(d[[target]]))
      levels(droplevels(d[[target]])) else sort(unique(as.character(d[[target]]))))
  } else d[[target]] <- as.numeric(d[[target]])
  for (f in features) {
    if (is.factor(d[[f]])) d[[f]] <- factor(d[[f]], ordered = f %in% ordered)
    else if (is.character(d[[f]]) || is.logical(d[[f]])) d[[f]] <- factor(d[[f]])
    else d[[f]] <- as.numeric(d[[f]])
  }
  rownames(d) <- NULL
  w <- if (is.null(weights)) NULL else eval(parse(text = weights), list(n = nrow(d)))
  set.seed(seed)
  folds <- sample(rep(1:10, length.out = nrow(d)))
  control$xval <- folds
  fit <- if (method == "class")
    rpart(reformulate(features, target), data = d, weights = w, method = "class",
          parms = parms, control = do.call(rpart.control, control))
  else rpart(reformulate(features, target), data = d, weights = w, method = "anova",
             control = do.call(rpart.control, control))
  cpt <- fit$cptable
  # The tree of every row (`prune(fit, cp = CP)`), the 1-SE rule picking one of them.
  pruned <- lapply(unname(cpt[, "CP"]), function(cp) tree(prune(fit, cp = cp)))
  # The cross-validated predictions behind xerror, at the cps xval.c uses.
  cps <- cpt[, "CP"]
  xp <- xpred.rpart(fit, xval = folds, cp = c(10 * cps[1], sqrt(cps[-1] * cps[-length(cps)])))
  levels <- lapply(d, function(x) if (is.factor(x)) levels(x) else NULL)
  # predict.rpart on the rows it was grown on (a row no surrogate sends, at a split of two
  # equal sides, stays in the node and takes its prediction).
  # One more row, missing every feature: it takes the default direction at every split.
  nd <- rbind(d, d[1, , drop = FALSE])
  nd[nrow(nd), features] <- NA
  pred <- if (method == "class") as.integer(predict(fit, nd, type = "class"))
          else unname(predict(fit, nd))
  list(name = name, data = d, levels = levels[!vapply(levels, is.null, TRUE)],
       folds = folds, weights = w, fit = tree(fit), pruned = pruned, xpred = xp,
       predict = pred)
}
"""


def _r(value: Any) -> str:
    """A Python value as R code: numbers, strings, tuples (vectors), nested tuples (matrices
    by rows), dicts (named lists)."""
    if isinstance(value, dict):
        return "list(" + ", ".join(f"{k} = {_r(v)}" for k, v in value.items()) + ")"
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        cells = [x for row in value for x in row]
        return f"matrix({_r(tuple(cells))}, nrow = {len(value)}, byrow = TRUE)"
    if isinstance(value, tuple):
        return "c(" + ", ".join(_r(v) for v in value) + ")"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(float(value))


def _r_case(case: Case) -> str:
    parms: dict[str, Any] = {"split": case.split}
    if case.prior is not None:
        parms["prior"] = case.prior
    if case.loss is not None:
        parms["loss"] = case.loss
    return (
        f"run({_r(case.name)}, {case.data}, {_r(case.target)}, {_r(case.features)}, "
        f"{_r(case.rpart_control())}, {_r(parms)}, {case.seed}, {_r(case.method)}, "
        f"{_r(case.ordered) if case.ordered else 'character(0)'}, "
        f"{_r(case.weights) if case.weights else 'NULL'})"
    )


def run_rpart(cases: tuple[Case, ...] = CASES) -> list[dict[str, Any]]:
    """rpart's fits of `cases`, in one Rscript run."""
    script = _R_PRELUDE + "cat(json(list(" + ",\n".join(_r_case(c) for c in cases) + ")))\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.R"
        path.write_text(script)
        done = subprocess.run(["Rscript", str(path)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"Rscript failed:\n{done.stderr}")
    return json.loads(done.stdout)


# --- quercus ------------------------------------------------------------------------------------


def frame(result: dict[str, Any]) -> pl.DataFrame:
    """The case's rows as rpart saw them: factors as Enums in R's level order (quercus's codes
    are then R's), numbers as Float64, missing values as nulls."""
    levels = result["levels"]
    columns = {}
    for name, values in result["data"].items():
        if name in levels:
            columns[name] = pl.Series(name, values, dtype=pl.Enum(levels[name]))
        else:
            columns[name] = pl.Series(name, values, dtype=pl.Float64)
    return pl.DataFrame(columns)


def _weights(y: pl.Series, w: np.ndarray | None) -> np.ndarray:
    return np.ones(len(y)) if w is None else w


def _class_weights(y: pl.Series, w: np.ndarray | None) -> np.ndarray:
    """Each class's total case weight, in the order of the target's levels."""
    classes = y.dtype.categories.to_list()  # type: ignore[attr-defined]
    weights = _weights(y, w)
    return np.array([weights[(y == c).to_numpy()].sum() for c in classes], dtype=float)


def class_factors(case: Case, y: pl.Series, w: np.ndarray | None = None) -> np.ndarray:
    """What quercus multiplies each class's row weights by for the case's priors (π_k / f_k,
    f_k the class's share of the case weights `w`), else ones: a node's class weights are
    quercus's over these (a regression's one value, its mean, is read as it is)."""
    if case.method == "anova":
        return np.ones(1)
    counts = _class_weights(y, w)
    if case.prior is None:
        return np.ones(len(counts))
    return np.array(case.prior) / (counts / counts.sum())


def root_risk(case: Case, y: pl.Series, w: np.ndarray | None = None) -> float:
    """R(root) per unit of weight: min_j Σ_i π_i L_ij, π the priors (else the class shares)
    and L the losses (else 1 off the diagonal); a regression's is the variance of y (its
    deviance per row). rpart's cp × this is quercus's ccp_alpha."""
    if case.method == "anova":
        values, weights = y.to_numpy(), _weights(y, w)
        mean = np.average(values, weights=weights)
        return float(np.average((values - mean) ** 2, weights=weights))
    counts = _class_weights(y, w)
    prior = np.array(case.prior) if case.prior else counts / counts.sum()
    k = len(counts)
    loss = np.array(case.loss) if case.loss else 1.0 - np.eye(k)
    return float((prior @ loss).min())


def model(
    case: Case, y: pl.Series, w: np.ndarray | None = None
) -> DecisionTreeClassifier | DecisionTreeRegressor:
    """quercus's estimator for a case: rpart's parameters translated (README, "Coming from
    rpart")."""
    control = case.rpart_control()
    if case.method == "anova":
        return DecisionTreeRegressor(
            algorithm="cart",
            criterion="squared_error",
            min_samples_split=int(control["minsplit"]),
            min_samples_leaf=int(control["minbucket"]),
            max_depth=int(control["maxdepth"]),
            missing="surrogate",
            max_surrogates=int(control["maxsurrogate"]),
            max_exhaustive_categories=20,
            ordinal_features=list(case.ordered) or None,
            splitter="exact",
            pruning="cost_complexity",
            ccp_sequence="rpart",
            ccp_alpha=control["cp"] * root_risk(case, y, w),
        )
    classes = y.dtype.categories.to_list()  # type: ignore[attr-defined]
    return DecisionTreeClassifier(
        algorithm="cart",
        criterion="gini" if case.split == "gini" else "entropy",
        min_samples_split=int(control["minsplit"]),
        min_samples_leaf=int(control["minbucket"]),
        max_depth=int(control["maxdepth"]),
        missing="surrogate",
        max_surrogates=int(control["maxsurrogate"]),
        max_exhaustive_categories=20,
        ordinal_features=list(case.ordered) or None,
        splitter="exact",
        pruning="cost_complexity",
        ccp_risk="misclassification",
        ccp_sequence="rpart",
        ccp_alpha=control["cp"] * root_risk(case, y, w),
        priors=None if case.prior is None else dict(zip(classes, case.prior, strict=True)),
        cost_matrix=None if case.loss is None else [list(row) for row in case.loss],
        altered_priors=case.loss is not None,
    )


@dataclass
class Comparison:
    """How one case compares: mismatches per aspect (empty lists: the same), and what the
    comparison measured."""

    case: Case
    n_rows: int
    n_missing: int  # missing cells among the features
    nodes: int  # rpart's nodes
    cp_rows: int
    surrogates_checked: int = 0
    one_se_row: int = 0  # the table row the 1-SE rule picks (from 1)
    splits: list[str] = field(default_factory=list)
    surrogates: list[str] = field(default_factory=list)
    cp_table: list[str] = field(default_factory=list)
    xpred: list[str] = field(default_factory=list)
    one_se: list[str] = field(default_factory=list)
    predict: list[str] = field(default_factory=list)  # predict.rpart: training rows, a blank
    importance: list[str] = field(default_factory=list)  # rpart's variable.importance
    max_cp_error: float = 0.0  # largest relative difference over the cp table's numbers
    # rpart's printed xerror with an asymmetric loss: it reads the loss transposed.
    transposed_loss: bool = False

    @property
    def same(self) -> bool:
        return not (
            self.splits
            or self.surrogates
            or self.cp_table
            or self.xpred
            or self.one_se
            or self.predict
            or self.importance
        )


def compare(case: Case, result: dict[str, Any]) -> Comparison:
    """Fit quercus as rpart was fitted and compare (see the module's documentation).

    With an asymmetric loss, rpart's `xerror` and `xstd` read the loss matrix transposed
    (`ginipred` in its `gini.c`; rpart issue #74), which quercus does not copy: the table is
    compared with those columns recomputed from rpart's own cross-validated predictions
    (`xpred.rpart`) with the loss read as rpart's documentation defines it, after checking
    that the transposed reading gives rpart's printed columns."""
    df = frame(result)
    y = df[case.target]
    X = df.select(case.features)
    w = None if result["weights"] is None else np.array(result["weights"], dtype=float)
    cv = model(case, y, w).cost_complexity_cv(
        X, y, folds=np.array(result["folds"]), sample_weight=w
    )
    rpart = result["fit"]
    out = Comparison(
        case,
        n_rows=df.height,
        n_missing=int(X.null_count().sum_horizontal()[0]),
        nodes=len(rpart["node"]),
        cp_rows=len(rpart["cptable"]["CP"]),
    )
    features, levels = list(case.features), result["levels"]
    factors = class_factors(case, y, w)
    out.splits, out.surrogates, out.surrogates_checked = _compare_tree(
        cv.estimator, rpart, features, levels, factors
    )
    # xpred.rpart's matrix, by column (one per cp row): class numbers from 1, or values.
    if case.method == "anova":
        theirs = np.array(result["xpred"], dtype=float).reshape(out.cp_rows, -1)
        ours = np.asarray(cv.predictions, dtype=float).T
        differ = (
            ~np.isclose(ours, theirs, rtol=TOL, atol=TOL) if ours.shape == theirs.shape else None
        )
    else:
        classes = y.dtype.categories.to_list()  # type: ignore[attr-defined]
        theirs = np.array(result["xpred"], dtype=np.int64).reshape(out.cp_rows, -1) - 1
        ours = np.array([[classes.index(c) for c in column] for column in cv.predictions.T])
        differ = ours != theirs if ours.shape == theirs.shape else None
    if differ is None:
        out.xpred.append(f"predictions: quercus {ours.shape}, rpart {theirs.shape}")
    else:
        for j in np.flatnonzero(differ.any(axis=1)).tolist():
            rows = np.flatnonzero(differ[j]).tolist()
            out.xpred.append(f"cp row {j + 1}: predictions differ on rows {rows[:5]}")
    # predict.rpart on the training rows, by the tree grown on all of them, and on one row
    # missing every feature (the default direction at each split).
    blank = pl.DataFrame([pl.Series(c, [None], dtype=X.schema[c]) for c in X.columns])
    predicted = cv.estimator.predict(pl.concat([X, blank]))
    if case.method == "anova":
        theirs_p = np.array(result["predict"], dtype=float)
        wrong = ~np.isclose(np.asarray(predicted, dtype=float), theirs_p, rtol=TOL, atol=TOL)
    else:
        classes = y.dtype.categories.to_list()  # type: ignore[attr-defined]
        ours_p = np.array([classes.index(c) for c in predicted])
        wrong = ours_p != np.array(result["predict"], dtype=np.int64) - 1
    if wrong.any():
        out.predict.append(f"predict: differs on rows {np.flatnonzero(wrong)[:5].tolist()}")
    out.importance = _compare_importance(cv.estimator.variable_importance_, rpart["importance"])
    reference = dict(rpart["cptable"])
    if case.loss is not None and not np.allclose(case.loss, np.transpose(case.loss)):
        out.transposed_loss = True
        classes = y.dtype.categories.to_list()  # type: ignore[attr-defined]
        truth = np.array([classes.index(c) for c in y.to_list()])
        loss = np.array(case.loss)
        root = rpart["dev"][0]
        for name, matrix in (("as printed", loss.T), ("corrected", loss)):
            xerror, xstd = _xerror(theirs, truth, matrix, factors, root, _weights(y, w))
            if name == "as printed":
                if not np.allclose(xerror, reference["xerror"], rtol=TOL):
                    out.cp_table.append("rpart's xerror is not its predictions' transposed loss")
            else:
                reference["xerror"], reference["xstd"] = xerror.tolist(), xstd.tolist()
    out.cp_table, out.max_cp_error = _compare_cp(cv.table, reference)
    xerror = np.array(reference["xerror"])
    best = int(np.argmin(xerror))
    expected = int(np.flatnonzero(xerror <= xerror[best] + reference["xstd"][best])[0])
    out.one_se_row = expected + 1
    row = cv.row("1se")
    if row != expected:
        out.one_se.append(f"1-SE row: quercus {row + 1}, rpart's table {expected + 1}")
    pruned = result["pruned"][expected]
    out.one_se += _compare_tree(cv.pruned("1se"), pruned, features, levels, factors)[0]
    return out


def _xerror(
    predicted: np.ndarray,
    truth: np.ndarray,
    loss: np.ndarray,
    factors: np.ndarray,
    root: float,
    weights: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """xerror and xstd of cross-validated predictions (one row per cp row), rpart's way
    (`xval.c`): e = the row's class factor × loss[true, predicted], Σ w·e and
    sqrt(Σ w·e² − (Σ w·e)² / Σ w) with the case weights w, over the root's risk `root`."""
    errors = factors[truth] * loss[truth, predicted]
    total = errors @ weights
    spread = np.sqrt(np.maximum((errors**2) @ weights - total**2 / weights.sum(), 0.0))
    return total / root, spread / root


def _compare_importance(ours: dict[str, float], rpart: dict[str, list[float]]) -> list[str]:
    """rpart's `variable.importance` (one number per name, largest first) against quercus's
    `variable_importance_`: the same features, in the same order, with the same values."""
    # R writes an empty importance (a tree without a split) as an empty list.
    theirs = {name: v[0] for name, v in rpart.items()} if isinstance(rpart, dict) else {}
    if set(ours) != set(theirs):
        return [f"importance: quercus ranks {sorted(ours)}, rpart {sorted(theirs)}"]
    problems = [
        f"importance of {name}: quercus {ours[name]:.10g}, rpart {value:.10g}"
        for name, value in theirs.items()
        if not _close(ours[name], value)
    ]
    # Ties (within the tolerance) may come in either order.
    ranked = [theirs[name] for name in ours]
    if any(b > a and not _close(a, b) for a, b in itertools.pairwise(ranked)):
        problems.append(f"importance order: quercus {list(ours)}, rpart {list(theirs)}")
    return problems


def _close(a: float, b: float, tol: float = TOL) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def _compare_cp(table: pl.DataFrame, rpart: dict[str, list[float]]) -> tuple[list[str], float]:
    problems: list[str] = []
    if table.height != len(rpart["CP"]):
        problems.append(f"cp table: quercus {table.height} rows, rpart {len(rpart['CP'])}")
        return problems, math.inf
    worst = 0.0
    pairs = [
        ("cp", "CP"),
        ("n_splits", "nsplit"),
        ("rel_error", "rel error"),
        ("xerror", "xerror"),
        ("xstd", "xstd"),
    ]
    for ours, theirs in pairs:
        for i, (a, b) in enumerate(zip(table[ours].to_list(), rpart[theirs], strict=True)):
            worst = max(worst, abs(a - b) / max(1.0, abs(b)))
            if not _close(a, b):
                problems.append(f"cp table row {i + 1} {theirs}: quercus {a:.10g}, rpart {b:.10g}")
    return problems, worst


def _compare_tree(
    fitted: DecisionTreeClassifier,
    rpart: dict[str, Any],
    features: list[str],
    levels: dict[str, list[str]],
    factors: np.ndarray,
) -> tuple[list[str], list[str], int]:
    """Walk rpart's frame and quercus's arena together: splits, class counts per node (the
    class weights over the class factors of priors), and each split's surrogates. Returns
    (split problems, surrogate problems, surrogates compared)."""
    nodes = fitted.tree_.nodes()
    rows = _rpart_rows(rpart)
    node_ids = rpart["node"]
    position = {n: i for i, n in enumerate(node_ids)}
    split_problems: list[str] = []
    surrogate_problems: list[str] = []
    checked = 0
    stack = [(1, 0)]
    while stack:
        number, q = stack.pop()
        i = position[number]
        where = f"node {number}"
        var = rpart["var"][i]
        if rpart["counts"] is None:  # a regression: the node's weight and mean
            counts = [rpart["wt"][i], rpart["yval"][i]]
            ours = [float(nodes["weight"][q]), float(nodes["value"][q][0])]
        else:
            counts = [column[i] for column in rpart["counts"]]
            ours = (nodes["value"][q] / factors).tolist()
        if not all(_close(a, b) for a, b in zip(ours, counts, strict=True)):
            what = "class counts" if rpart["counts"] is not None else "weight and mean"
            split_problems.append(f"{where}: quercus {what} {ours}, rpart {counts}")
        if var == "<leaf>":
            if nodes["n_children"][q] != 0:
                split_problems.append(f"{where}: quercus splits, rpart has a leaf")
            continue
        if nodes["n_children"][q] == 0:
            split_problems.append(f"{where}: quercus has a leaf, rpart splits on {var}")
            continue
        primary = rows[number][0]
        left, problem = _match_primary(nodes, q, primary, features, levels, rpart)
        if problem:
            split_problems.append(f"{where}: {problem}")
            continue
        first = int(nodes["first_child"][q])
        stack.append((2 * number + 1, first + 1 - left))
        stack.append((2 * number, first + left))
        theirs = rows[number][1]
        ours = _quercus_surrogates(nodes, q, features, left, levels)
        for k in range(max(len(theirs), len(ours))):
            checked += 1
            a = ours[k] if k < len(ours) else None
            b = theirs[k] if k < len(theirs) else None
            if a is None or b is None or not _same_surrogate(a, b, rpart):
                surrogate_problems.append(f"{where} surrogate {k + 1}: quercus {a}, rpart {b}")
    return split_problems, surrogate_problems, checked


def _rpart_rows(rpart: dict[str, Any]) -> dict[int, tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each split node's primary split and surrogates, from rpart's `splits` matrix (per node:
    the primary, `ncompete` competitors, `nsurrogate` surrogates)."""
    at = 0
    out = {}
    for i, number in enumerate(rpart["node"]):
        if rpart["var"][i] == "<leaf>":
            continue
        take = lambda j: {  # noqa: E731
            "var": rpart["split_var"][j],
            "ncat": rpart["split_ncat"][j],
            "index": rpart["split_index"][j],
            "agree": rpart["split_agree"][j],
        }
        primary = take(at)
        competitors = int(rpart["ncompete"][i])
        surrogates = [take(at + 1 + competitors + k) for k in range(int(rpart["nsurrogate"][i]))]
        at += 1 + competitors + len(surrogates)
        out[number] = (primary, surrogates)
    return out


def _sides(split: dict[str, Any], rpart: dict[str, Any]) -> list[int]:
    """rpart's direction per level of a categorical split: -1 left, 1 right, 0 none."""
    row = rpart["csplit"][int(split["index"]) - 1]
    return [{1: -1, 3: 1}.get(int(v), 0) for v in row]


def _match_primary(
    nodes: dict[str, Any],
    q: int,
    primary: dict[str, Any],
    features: list[str],
    levels: dict[str, list[str]],
    rpart: dict[str, Any],
) -> tuple[int, str | None]:
    """Which quercus child is rpart's left, and a problem if the splits differ."""
    feature = features[int(nodes["feature"][q])]
    if feature != primary["var"]:
        return 0, f"quercus splits on {feature}, rpart on {primary['var']}"
    if primary["var"] not in levels:
        threshold = float(nodes["threshold"][q])
        if not _close(threshold, primary["index"]):
            return 0, f"{feature}: quercus threshold {threshold!r}, rpart {primary['index']!r}"
        # ncat -1: x < cut goes left; quercus's child 0 is x <= threshold.
        return (0 if primary["ncat"] < 0 else 1), None
    sides = _sides(primary, rpart)[: len(levels[feature])]  # rows padded to the widest factor
    if feature in rpart["ordered"]:
        # rpart prints an ordered factor's cut as the side of each level; quercus's test
        # sends the levels up to its threshold to child 0.
        cut = float(nodes["threshold"][q])
        ours = [0 if k <= cut else 1 for k in range(len(sides))]
        lefts = {ours[k] for k, s in enumerate(sides) if s == -1}
        rights = {ours[k] for k, s in enumerate(sides) if s == 1}
        if len(lefts) != 1 or len(rights) != 1 or lefts == rights:
            return 0, f"{feature}: quercus cut after level {cut:g}, rpart sides {sides}"
        return lefts.pop(), None
    offset = int(nodes["subset_offset"][q])
    mask = nodes["subset_mask"][offset : offset + len(sides)].tolist()
    ours = [{1: 0, 0: 1}.get(m, -1) for m in mask]  # quercus child per level, -1 unseen
    lefts = {ours[k] for k, s in enumerate(sides) if s == -1}
    rights = {ours[k] for k, s in enumerate(sides) if s == 1}
    unseen = [k for k, s in enumerate(sides) if s == 0]
    if len(lefts) != 1 or len(rights) != 1 or lefts == rights or any(ours[k] != -1 for k in unseen):
        return 0, f"{feature}: quercus sides {ours}, rpart {sides}"
    return lefts.pop(), None


def _quercus_surrogates(
    nodes: dict[str, Any], q: int, features: list[str], left: int, levels: dict[str, list[str]]
) -> list[tuple[str, Any, float]]:
    """A node's surrogates as (feature, rule, agreement): rule the cut and rpart's ncat (-1:
    x < cut goes to rpart's left) for a numeric one, the direction per level else."""
    out = []
    start = int(nodes["surrogate_offset"][q])
    for k in range(int(nodes["surrogate_len"][q])):
        s = start + k
        feature = features[int(nodes["surrogate_feature"][s])]
        threshold = float(nodes["surrogate_threshold"][s])
        at = int(nodes["surrogate_map"][s])
        agreement = float(nodes["surrogate_agreement"][s])
        if not math.isnan(threshold):
            low = int(nodes["surrogate_children"][at])
            out.append((feature, (threshold, -1 if low == left else 1), agreement))
        else:
            # rpart's direction per level: -1 its left, 1 its right, 0 none.
            children = nodes["surrogate_children"][at : at + len(levels[feature])].tolist()
            directions = [0 if c < 0 else (-1 if c == left else 1) for c in children]
            out.append((feature, directions, agreement))
    return out


def _same_surrogate(
    ours: tuple[str, Any, float], theirs: dict[str, Any], rpart: dict[str, Any]
) -> bool:
    feature, rule, agreement = ours
    if feature != theirs["var"] or not _close(agreement, theirs["agree"]):
        return False
    if isinstance(rule, tuple):
        cut, direction = rule
        return _close(cut, theirs["index"]) and direction == int(theirs["ncat"])
    sides = _sides(theirs, rpart)[: len(rule)]
    return rule == sides
