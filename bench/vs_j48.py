"""quercus's c4.5 preset against Weka's J48 on the 13 example data sets of issue 14.

Usage: python bench/vs_j48.py [--no-folds] [--jobs 3] [--diff] [--binary] [--reduced-error]
                             [name ...]

Needs `java` and weka.jar (Debian: `apt-get install weka`). For each data set it prints J48's
and quercus's tree sizes (leaves / nodes) on the whole file, whether the pruned and unpruned
trees print identically (tests/weka_j48.py prints quercus's tree in J48's format: tests,
thresholds to 6 decimals, leaf classes, weights and errors to 2), whether the ten pruned trees
of Weka's 10-fold cross-validation are identical too (J48 run on each fold's training rows,
in Weka's order; `--no-folds` skips these 130 runs), and how many test rows of that
cross-validation get the same prediction, with both accuracies. `--diff` prints the first
lines where the whole-file trees differ. `--binary` runs J48 -B against
`categorical_split="binary"` (one nominal value against the others at each test);
`--reduced-error` prunes as J48 -R -N 3 does (`pruning="reduced_error", pruning_folds=3`)
in the pruned and cross-validated columns.

It calls only `DecisionTreeClassifier(algorithm="c4.5")` (and `pruning="none"`,
`categorical_split`), so any quercus version can be measured (the README's "before" column
ran it on the version before issue 14).
"""

from __future__ import annotations

import argparse
import difflib
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import weka_j48 as weka

from quercus import DecisionTreeClassifier

PRUNED = ("-C", "0.25", "-M", "2")
REDUCED = ("-R", "-N", "3", "-M", "2")
UNPRUNED = ("-U", "-M", "2")


def j48_size(text: str) -> tuple[int, int]:
    """(leaves, nodes) of a tree J48 printed."""
    lines = text.splitlines()
    if len(lines) == 1 and lines[0].startswith(": "):
        return 1, 1
    leaves = sum(": " in line for line in lines)
    # Each branch line is one node below the root; leaves print on their branch line.
    return leaves, len(lines) + 1


def first_difference(j48: str, ours: str) -> str:
    diff = list(difflib.unified_diff(j48.splitlines(), ours.splitlines(), "J48", "quercus", n=1))
    return "\n".join(diff[2:12])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=list(weka.DATASETS))
    parser.add_argument("--no-folds", action="store_true", help="skip the 130 fold trees")
    parser.add_argument("--jobs", type=int, default=3, help="JVMs at once")
    parser.add_argument("--diff", action="store_true", help="print where whole trees differ")
    parser.add_argument("--binary", action="store_true", help="J48 -B: binary nominal splits")
    parser.add_argument("--reduced-error", action="store_true", help="J48 -R -N 3 pruning")
    args = parser.parse_args()
    extra = ("-B",) if args.binary else ()
    split = "binary" if args.binary else "multiway"
    pruned_options = REDUCED if args.reduced_error else PRUNED
    pruning = {"pruning": "reduced_error", "pruning_folds": 3} if args.reduced_error else {}
    reason = weka.missing_reason()
    if reason:
        sys.exit(f"J48 unavailable: {reason}")
    start = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="vs_j48_"))
    arffs = {name: weka.read_arff(weka.example_path(name)) for name in args.names}
    folds = {name: weka.weka_folds(a.xy()[1].to_physical().to_list()) for name, a in arffs.items()}
    jobs = {}
    for name, arff in arffs.items():
        jobs[(name, "pruned")] = (weka.j48_tree, arff.path, (*pruned_options, *extra))
        jobs[(name, "unpruned")] = (weka.j48_tree, arff.path, (*UNPRUNED, *extra))
        jobs[(name, "cv")] = (weka.j48_cv, arff.path, 10, 1, (*pruned_options, *extra))
        if not args.no_folds:
            for f, (train, _) in enumerate(folds[name]):
                path = tmp / f"{name}-{f}.arff"
                weka.write_arff(arff, train, path)
                jobs[(name, f)] = (weka.j48_tree, path, (*pruned_options, *extra))
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {k: pool.submit(fn, *rest) for k, (fn, *rest) in jobs.items()}
        j48 = {k: fut.result() for k, fut in futures.items()}

    header = (
        "| data set | J48 leaves / size | quercus leaves / size | pruned tree | unpruned tree "
        "| fold trees identical | CV predictions agreeing | J48 CV accuracy | quercus CV accuracy |"
    )
    print(header)
    print("|---|---|---|---|---|---|---|--:|--:|")
    diffs = []
    for name, arff in arffs.items():
        X, y = arff.xy()
        codes = y.to_physical().to_list()
        c45 = DecisionTreeClassifier(algorithm="c4.5", categorical_split=split, **pruning)
        pruned = c45.fit(X, y)
        unpruned = DecisionTreeClassifier(**c45.get_params())
        unpruned.set_params(pruning="none", pruning_folds=None).fit(X, y)
        ours, theirs = weka.j48_text(pruned, arff), j48[(name, "pruned")]
        same = ours == theirs
        same_unpruned = weka.j48_text(unpruned, arff) == j48[(name, "unpruned")]
        if not same:
            diffs.append((name, first_difference(theirs, ours)))
        agree = total = right_j48 = right_ours = fold_same = 0
        for f, ((train, test), reported) in enumerate(
            zip(folds[name], j48[(name, "cv")], strict=True)
        ):
            assert [codes[r] for r in test] == [a for a, _, _ in reported], (name, f)
            model = DecisionTreeClassifier(**c45.get_params()).fit(*arff.xy(train))
            predicted = model.predict(arff.xy(test)[0], output="polars").to_physical().to_list()
            for (actual, theirs_p, _), ours_p in zip(reported, predicted, strict=True):
                agree += theirs_p == ours_p
                right_j48 += theirs_p == actual
                right_ours += ours_p == actual
                total += 1
            if not args.no_folds:
                fold_same += weka.j48_text(model, arff) == j48[(name, f)]
        leaves, size = j48_size(theirs)
        folds_cell = "—" if args.no_folds else f"{fold_same}/10"
        print(
            f"| {name} | {leaves} / {size} | {pruned.n_leaves_} / {pruned.n_nodes_} "
            f"| {'same' if same else 'differs'} | {'same' if same_unpruned else 'differs'} "
            f"| {folds_cell} | {agree}/{total} | {right_j48 / total:.4f} "
            f"| {right_ours / total:.4f} |"
        )
    if args.diff:
        for name, text in diffs:
            print(f"\n{name}: first difference (J48 -, quercus +)\n{text}")
    print(f"\n({len(jobs)} J48 runs, {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
