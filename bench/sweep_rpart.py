"""quercus against R's rpart on data neither project wrote: R's `datasets` and `survival`
packages under several controls, each case compared whole (tests/rpart_reference.py: splits,
surrogate lists, cp table, cross-validated predictions with rpart's folds, the 1-SE tree,
`predict.rpart`, variable importance). Where bench/vs_rpart.py prints the cases the tests
hold, this sweeps wider, to find the differences left; each one it finds is listed, by case,
with what differs.

Usage:
    python bench/sweep_rpart.py                     # every family (about 3 minutes)
    python bench/sweep_rpart.py --families weighted,single

Families (the data sets, then the controls each runs under):
    datasets  23 R data sets, classification and regression, at the defaults and grown fully
    controls  14 more, under maxdepth 3, maxsurrogate 2 and maxcompete 0
    ordered   9 with R's ordered factors (quercus's ordinal_features)
    classes   many classes and many levels (OrchardSprays, car90, ...), minbucket 1
    single    the datasets family grown to single rows (minsplit 2, minbucket 1)
    weighted  the same with case weights 1 + (row mod 4)
Needs Rscript with rpart and survival (Debian: r-base-core r-cran-rpart r-cran-survival).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import rpart_reference as reference
from rpart_reference import Case

_ESOPH = ("agegp", "alcgp", "tobgp")
_PBC = ("age", "sex", "ascites", "hepato", "spiders", "edema", "bili", "chol", "albumin")
_PBC += ("copper", "trig", "platelet")
_LUNG = ("age", "sex", "ph.ecog", "ph.karno", "pat.karno", "meal.cal", "wt.loss", "inst")
_COLON = ("rx", "sex", "age", "obstruct", "perfor", "adhere", "nodes", "extent", "surg")
_CGD = ("center", "sex", "age", "height", "weight", "inherit", "steroids", "propylac", "hos.cat")
_IRIS = ("Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width")
_AIRQ = "transform(airquality, M = factor(Month, ordered = TRUE))"
_ORCHARD = "transform(OrchardSprays, rowf = factor(rowpos), colf = factor(colpos))"
_CAR90 = ("Price", "Type", "Disp", "HP", "Weight", "Mileage", "Reliability")


def _datasets() -> list[tuple]:
    """(name, R data, target, features, options) of the datasets family."""
    return [
        ("esoph", "esoph", "ncases", (*_ESOPH, "ncontrols"), {"method": "anova"}),
        ("infert", "infert", "education", ("age", "parity", "induced", "spontaneous"), {}),
        ("chickwts", "chickwts", "weight", ("feed",), {"method": "anova"}),
        ("chickwts", "chickwts", "feed", ("weight",), {}),
        ("InsectSprays", "InsectSprays", "count", ("spray",), {"method": "anova"}),
        ("InsectSprays", "InsectSprays", "spray", ("count",), {"split": "information"}),
        ("quakes", "quakes", "mag", ("lat", "long", "depth", "stations"), {"method": "anova"}),
        (
            "stackloss",
            "stackloss",
            "stack.loss",
            ("Air.Flow", "Water.Temp", "Acid.Conc."),
            {"method": "anova"},
        ),
        ("USArrests", "USArrests", "Murder", ("Assault", "UrbanPop", "Rape"), {"method": "anova"}),
        (
            "Orange",
            "as.data.frame(Orange)",
            "circumference",
            ("Tree", "age"),
            {"method": "anova"},
        ),
        (
            "ChickWeight",
            "as.data.frame(ChickWeight)",
            "weight",
            ("Time", "Diet"),
            {"method": "anova"},
        ),
        ("ChickWeight", "as.data.frame(ChickWeight)", "Diet", ("Time", "weight"), {}),
        ("npk", "npk", "yield", ("block", "N", "P", "K"), {"method": "anova"}),
        ("iris", "iris", "Species", _IRIS, {"split": "information"}),
        ("lung", "survival::lung", "status", _LUNG, {}),
        ("pbc", "survival::pbc", "stage", _PBC, {"method": "anova"}),
        (
            "veteran",
            "survival::veteran",
            "celltype",
            ("trt", "karno", "diagtime", "age", "prior", "time"),
            {},
        ),
        ("warpbreaks", "warpbreaks", "tension", ("breaks", "wool"), {"prior": (0.2, 0.3, 0.5)}),
        (
            "mtcars",
            "mtcars",
            "gear",
            ("mpg", "disp", "hp", "wt", "qsec"),
            {"loss": ((0.0, 1.0, 2.0), (1.0, 0.0, 1.0), (3.0, 1.0, 0.0))},
        ),
        (
            "attitude",
            "attitude",
            "rating",
            ("complaints", "privileges", "learning", "raises", "critical", "advance"),
            {"method": "anova"},
        ),
        (
            "LifeCycleSavings",
            "LifeCycleSavings",
            "sr",
            ("pop15", "pop75", "dpi", "ddpi"),
            {"method": "anova"},
        ),
        ("esoph", "esoph", "alcgp", ("agegp", "tobgp", "ncases", "ncontrols"), {}),
        ("colon", "survival::colon", "differ", _COLON, {}),
    ]


def _controls() -> list[tuple]:
    return [
        ("airquality", "airquality", "Month", ("Ozone", "Solar.R", "Wind", "Temp"), {}),
        (
            "mgus",
            "survival::mgus",
            "alb",
            ("age", "sex", "creat", "hgb", "mspike", "pcdx"),
            {"method": "anova"},
        ),
        ("cgd", "survival::cgd", "treat", _CGD, {}),
        (
            "kidney",
            "survival::kidney",
            "disease",
            ("time", "status", "age", "sex", "frail"),
            {"split": "information"},
        ),
        ("Titanic", "as.data.frame(Titanic)", "Survived", ("Class", "Sex", "Age", "Freq"), {}),
        ("PlantGrowth", "PlantGrowth", "group", ("weight",), {}),
        ("trees", "trees", "Volume", ("Girth", "Height"), {"method": "anova"}),
        ("rock", "rock", "perm", ("area", "peri", "shape"), {"method": "anova"}),
        (
            "OrchardSprays",
            "OrchardSprays",
            "decrease",
            ("rowpos", "colpos", "treatment"),
            {"method": "anova"},
        ),
        (
            "ovarian",
            "survival::ovarian",
            "rx",
            ("futime", "fustat", "age", "resid.ds", "ecog.ps"),
            {},
        ),
        ("stanford2", "survival::stanford2", "status", ("time", "age", "t5"), {}),
    ]


def _ordered() -> list[tuple]:
    return [
        (
            "esoph",
            "esoph",
            "ncases",
            (*_ESOPH, "ncontrols"),
            {"method": "anova", "ordered": _ESOPH},
        ),
        (
            "esoph",
            "esoph",
            "agegp",
            ("alcgp", "tobgp", "ncases", "ncontrols"),
            {"ordered": ("alcgp", "tobgp")},
        ),
        (
            "CO2",
            "CO2",
            "uptake",
            ("Plant", "Type", "Treatment", "conc"),
            {"method": "anova", "ordered": ("Plant",)},
        ),
        (
            "Orange",
            "as.data.frame(Orange)",
            "circumference",
            ("Tree", "age"),
            {"method": "anova", "ordered": ("Tree",)},
        ),
        (
            "ChickWeight",
            "as.data.frame(ChickWeight)",
            "weight",
            ("Time", "Chick", "Diet"),
            {"method": "anova", "ordered": ("Chick",)},
        ),
        (
            "airq",
            _AIRQ,
            "Ozone",
            ("Solar.R", "Wind", "Temp", "M"),
            {"method": "anova", "ordered": ("M",)},
        ),
    ]


def _classes() -> list[tuple]:
    return [
        ("OrchardSprays", _ORCHARD, "treatment", ("decrease", "rowf", "colf"), {}),
        (
            "OrchardSprays",
            _ORCHARD,
            "decrease",
            ("treatment", "rowf", "colf"),
            {"method": "anova"},
        ),
        ("InsectSprays", "InsectSprays", "spray", ("count",), {}),
        ("car90", "car90", "Country", _CAR90, {}),
        (
            "cu.summary",
            "cu.summary",
            "Type",
            ("Price", "Country", "Mileage", "Reliability"),
            {"split": "information"},
        ),
        (
            "stagec",
            "stagec",
            "grade",
            ("age", "eet", "g2", "gleason", "ploidy", "pgtime"),
            {"method": "anova"},
        ),
        (
            "kyphosis",
            "kyphosis",
            "Number",
            ("Kyphosis", "Age", "Start"),
            {"method": "anova"},
        ),
    ]


_SINGLE = {"minsplit": 2, "minbucket": 1}
FAMILIES = {
    "datasets": (_datasets, ({}, {"minsplit": 6, "cp": 0.0}), None),
    "controls": (
        _controls,
        (
            {"maxdepth": 3, "cp": 0.0, "minsplit": 4, "minbucket": 1},
            {"cp": 0.001, "maxsurrogate": 2},
            {"cp": 0.0, "minsplit": 10, "maxcompete": 0},
        ),
        None,
    ),
    "ordered": (_ordered, ({}, {"minsplit": 6, "cp": 0.0}), None),
    "classes": (_classes, ({"cp": 0.0, "minsplit": 4, "minbucket": 1},), None),
    "single": (_datasets, (_SINGLE, {**_SINGLE, "cp": 0.0}), None),
    "weighted": (_datasets, (_SINGLE, {**_SINGLE, "cp": 0.0}), "1 + (seq_len(n) %% 4)"),
}


def cases(family: str) -> list[Case]:
    """The family's cases, each with its own fold seed."""
    make, controls, weights = FAMILIES[family]
    out = []
    for control in controls:
        for name, data, target, features, options in make():
            seed = 1000 + len(out) + 100 * list(FAMILIES).index(family)
            out.append(
                Case(name, data, target, features, control, seed=seed, weights=weights, **options)
            )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated")
    args = parser.parse_args()
    why = reference.available()
    if why is not None:
        print(f"cannot run rpart: {why}", file=sys.stderr)
        return 1
    start = time.perf_counter()
    differing = total = 0
    for family in args.families.split(","):
        family_cases = cases(family)
        fits = reference.run_rpart(tuple(family_cases))
        same = 0
        for case, fit in zip(family_cases, fits, strict=True):
            result = reference.compare(case, fit)
            if result.same:
                same += 1
                continue
            print(f"{family}: {case.label} {case.control}")
            aspects = ("splits", "surrogates", "cp_table", "xpred", "one_se", "predict")
            for aspect in (*aspects, "importance"):
                problems = getattr(result, aspect)
                if problems:
                    print(f"    {aspect}: {'; '.join(problems[:3])[:300]}")
        print(f"{family}: {same} of {len(family_cases)} cases the same", flush=True)
        differing += len(family_cases) - same
        total += len(family_cases)
    seconds = time.perf_counter() - start
    print(f"{total - differing} of {total} cases the same ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
