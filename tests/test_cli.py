"""The command line, run as users run it: `python -m quercus ...` in a subprocess, on CSV and
Parquet files written from the bundled data sets. Outputs are checked against the library
called in-process, and every user mistake against the one-line error contract: exit status 2,
`quercus: error: ...` on stderr, never a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import polars as pl
import polars.selectors as cs
import pytest

import quercus
from quercus import DecisionTreeClassifier, DecisionTreeRegressor


def run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, **(env or {})}
    environment.pop("QUERCUS_DEBUG", None)
    environment.setdefault("QUERCUS_PROGRESS_AFTER", "60")  # no timing-dependent stderr
    return subprocess.run(
        [sys.executable, "-m", "quercus", *map(str, args)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


def ok(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    result = run(*args, env=env)
    assert result.returncode == 0, result.stderr
    return result


def fails(*args: str | Path, match: str) -> str:
    """Runs a mistaken command: exit 2 and one line `quercus: error: ...` naming `match`."""
    return check_failure(run(*args), match)


def all_fail(cases: list[tuple[tuple[str | Path, ...], str]]) -> None:
    """`fails` for many commands, run side by side (each is a Python start-up)."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda case: run(*case[0]), cases))
    for (args, match), result in zip(cases, results, strict=True):
        check_failure(result, match, args)


def check_failure(
    result: subprocess.CompletedProcess, match: str, args: tuple[str | Path, ...] = ()
) -> str:
    assert result.returncode == 2, (args, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("quercus: error: "), lines[0]
    assert match in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Watermelon 3.0 as CSV and Parquet (its Enum columns kept), with an id column."""
    folder = tmp_path_factory.mktemp("cli")
    melons = quercus.datasets.load("watermelon3").with_row_index("id")
    paths = {
        "csv": folder / "melons.csv",
        "parquet": folder / "melons.parquet",
        "dir": folder,
    }
    melons.write_csv(paths["csv"])
    melons.write_parquet(paths["parquet"])
    return paths


@pytest.fixture(scope="module")
def c45_model(files: dict[str, Path]) -> Path:
    model = files["dir"] / "c45.qrc"
    ok("fit", files["parquet"], "--target", "ripe", "--algorithm", "c4.5", "-o", model)
    return model


def melons() -> pl.DataFrame:
    return quercus.datasets.load("watermelon3")


# --- fit, predict, show -------------------------------------------------------------------------


def test_fit_writes_a_model_that_predicts_as_the_library(files, c45_model):
    assert c45_model.is_file()
    loaded = quercus.load(c45_model)
    # the id column was a feature to the CLI as to the library: fit the same way in-process
    reference = DecisionTreeClassifier(algorithm="c4.5").fit(
        pl.read_parquet(files["parquet"]), target="ripe"
    )
    assert loaded.export_text() == reference.export_text()
    out = files["dir"] / "predicted.parquet"
    result = ok("predict", c45_model, files["parquet"], "-o", out)
    assert "17 rows" in result.stdout
    predicted = pl.read_parquet(out)
    assert predicted.columns == ["ripe"]
    assert predicted["ripe"].dtype == melons()["ripe"].dtype  # the Enum survives
    frame = pl.read_parquet(files["parquet"])
    assert predicted["ripe"].to_list() == reference.predict(frame).tolist()


def test_fit_on_csv_and_predict_to_csv_with_probabilities_and_kept_columns(files):
    model = files["dir"] / "cart.qrc"
    result = ok("fit", files["csv"], "--target", "ripe", "--max-depth", "2", "-o", model)
    assert result.stdout.startswith(f"wrote {model}: DecisionTreeClassifier(max_depth=2)")
    assert "training accuracy" in result.stdout
    frame = pl.read_csv(files["csv"])
    reference = DecisionTreeClassifier(max_depth=2).fit(frame, target="ripe")
    out = files["dir"] / "labels.csv"
    ok("predict", model, files["csv"], "-o", out, "--keep", "id")
    labels = pl.read_csv(out)
    assert labels.columns == ["id", "ripe"]
    assert labels["id"].to_list() == list(range(17))
    assert labels["ripe"].to_list() == reference.predict(frame).tolist()
    out = files["dir"] / "proba.csv"
    ok("predict", model, files["parquet"], "-o", out, "--proba")
    proba = pl.read_csv(out)
    assert proba.columns == reference.classes_.tolist()  # sorted string labels: no, yes
    np.testing.assert_allclose(proba.to_numpy(), reference.predict_proba(frame))


def test_fit_options_reach_the_estimator(files):
    folder = files["dir"]
    frame = pl.read_parquet(files["parquet"])
    half = frame.filter(pl.col("id") % 2 == 0)
    validation = folder / "validation.parquet"
    frame.filter(pl.col("id") % 2 == 1).write_parquet(validation)
    half_path = folder / "half.parquet"
    half.write_parquet(half_path)
    cases = [
        (["--algorithm", "id3", "--criterion", "gini"], {"algorithm": "id3", "criterion": "gini"}),
        (["--prune", "cost_complexity", "--ccp-alpha", "0.05"], {"ccp_alpha": 0.05}),
        (["--min-samples-leaf", "3", "--prune", "none"], {"min_samples_leaf": 3}),
        (
            ["--algorithm", "c4.5", "--prune", "pessimistic", "--confidence", "0.1"],
            {"algorithm": "c4.5", "pruning": "pessimistic", "confidence": 0.1},
        ),
        (
            ["--algorithm", "c4.5", "--prune", "reduced_error", "--pruning-folds", "2"],
            {"algorithm": "c4.5", "pruning": "reduced_error", "pruning_folds": 2},
        ),
    ]
    for k, (options, params) in enumerate(cases):
        model = folder / f"options{k}.qrc"
        ok("fit", half_path, "--target", "ripe", *options, "-o", model)
        reference = DecisionTreeClassifier(**params).fit(half, target="ripe")
        assert quercus.load(model).export_text() == reference.export_text(), options
    model = folder / "reduced.qrc"
    ok(
        "fit",
        *(half_path, "--target", "ripe", "--prune", "reduced_error"),
        *("--validation", validation, "-o", model),
    )
    held_out = pl.read_parquet(validation)
    reference = DecisionTreeClassifier(pruning="reduced_error").fit(
        half, target="ripe", validation=(held_out.drop("ripe"), held_out["ripe"])
    )
    assert quercus.load(model).export_text() == reference.export_text()


def test_regression_fit_and_predict(files):
    model = files["dir"] / "density.qrc"
    frame = pl.read_parquet(files["parquet"]).drop("ripe")
    result = ok("fit", files["parquet"], "--target", "density", "--regression", "-o", model)
    assert "R^2" in result.stdout
    reference = DecisionTreeRegressor().fit(frame, target="density")
    out = files["dir"] / "density.parquet"
    ok("predict", model, files["csv"], "-o", out)
    predicted = pl.read_parquet(out)
    assert predicted.schema == pl.Schema({"density": pl.Float64})
    features = pl.read_parquet(files["parquet"])
    np.testing.assert_allclose(predicted["density"].to_numpy(), reference.predict(features))
    fails("predict", model, files["csv"], "-o", out, "--proba", match="--proba needs a classifier")


def test_show_text_rules_dot_svg(files, c45_model):
    loaded = quercus.load(c45_model)
    text = ok("show", c45_model).stdout
    header, *tree = text.rstrip("\n").splitlines()
    assert "DecisionTreeClassifier(algorithm='c4.5')" in header and "'ripe'" in header
    assert f"{loaded.n_leaves_} leaves" in header
    assert "\n".join(tree) == loaded.export_text()
    assert ok("show", c45_model, "--rules").stdout.rstrip("\n") == loaded.export_rules()
    assert ok("show", c45_model, "--dot").stdout.rstrip("\n") == loaded.to_dot().rstrip("\n")
    svg = files["dir"] / "tree.svg"
    assert ok("show", c45_model, "--svg", "-o", svg).stdout == ""
    assert svg.read_text(encoding="utf-8") == loaded.to_svg()
    assert "<svg" in svg.read_text(encoding="utf-8")
    fails("show", c45_model, "--svg", "--dot", match="not allowed with")


def _shops(folder: Path) -> Path:
    """300 shops, a third of them (and x > 0.7) "yes": the root splits on ~100 of them."""
    rng = np.random.default_rng(7)
    code = rng.integers(0, 300, 3000)
    x = rng.random(3000)
    frame = pl.DataFrame(
        {
            "shop": [f"c{k:03d}" for k in code],
            "x": x,
            "y": np.where((code % 3 == 0) | (x > 0.7), "yes", "no"),
        }
    )
    path = folder / "shops.parquet"
    frame.write_parquet(path)
    return path


def test_show_shortens_category_lists_and_fits_pictures(files):
    folder = files["dir"]
    model = folder / "shops.qrc"
    ok("fit", _shops(folder), "--target", "y", "--max-depth", "3", "-o", model)
    loaded = quercus.load(model)
    text = ok("show", model).stdout.splitlines()
    assert text[1:] == loaded.export_text().splitlines()
    assert text[1].endswith("… 92 more}")  # 10 of 102 shops shown by default
    two = ok("show", model, "--max-categories", "2").stdout.splitlines()
    assert two[1] == "shop in {c000, c003, … 100 more}"
    assert "more}" not in ok("show", model, "--max-categories", "all").stdout
    shallow = ok("show", model, "--max-depth", "1").stdout.split("\n", 1)[1]
    assert shallow.rstrip("\n") == loaded.export_text(max_depth=1)
    rules = ok("show", model, "--rules", "--max-categories", "2").stdout
    assert rules.rstrip("\n") == loaded.export_rules(max_categories=2)
    dot = ok("show", model, "--dot", "--max-categories", "all").stdout
    assert dot.rstrip("\n") == loaded.to_dot(max_categories=None).rstrip("\n")
    svg = ok("show", model, "--svg", "--width", "200", "--max-depth", "1").stdout
    assert svg.rstrip("\n") == loaded.to_svg(width=200, max_depth=1).rstrip("\n")
    assert 'width="200"' in svg  # scaled down to the page (never up)
    full = ok("show", model, "--svg", "--width", "none", "--max-categories", "5").stdout
    assert full.rstrip("\n") == loaded.to_svg(width=None, max_categories=5).rstrip("\n")
    rounded = ok("show", model, "--decimals", "1").stdout.split("\n", 1)[1]
    assert rounded.rstrip("\n") == loaded.export_text(decimals=1)
    assert rounded.rstrip("\n") != loaded.export_text()  # x's thresholds to one digit
    dot = ok("show", model, "--dot", "--decimals", "0", "--max-categories", "1").stdout
    assert dot.rstrip("\n") == loaded.to_dot(decimals=0, max_categories=1).rstrip("\n")
    all_fail(
        [
            (("show", model, "--rules", "--max-depth", "1"), "--max-depth applies to the text"),
            (("show", model, "--dot", "--width", "500"), "--width applies to --svg, not"),
            (("show", model, "--width", "500"), "--width applies to --svg, not to text"),
            (("show", model, "--svg", "--width", "50"), "at least 100 px"),
            (("show", model, "--svg", "--width", "wide"), "--width"),
            (("show", model, "--max-categories", "0"), "expected a positive integer"),
            (("show", model, "--decimals", "-1"), "expected a whole number >= 0"),
            (("show", model, "--svg", "--data", files["csv"]), "this model is a classifier"),
            (("show", model, "--rules", "--data", files["csv"]), "--data applies to --svg"),
        ]
    )


def test_show_draws_regression_strips_from_data(files):
    """A model file keeps no quantiles: its strips are mean ± sd unless --data gives rows."""
    model = files["dir"] / "sugar.qrc"
    frame = pl.read_parquet(files["parquet"]).drop("ripe", "id")
    frame.write_parquet(files["dir"] / "sugar.parquet")
    ok("fit", files["dir"] / "sugar.parquet", "--target", "sugar", "--regression",
       "--max-depth", "2", "-o", model)  # fmt: skip
    loaded = quercus.load(model)
    plain = ok("show", model, "--svg").stdout
    assert "box: mean ± 1 sd" in plain and plain.rstrip("\n") == loaded.to_svg().rstrip("\n")
    drawn = ok("show", model, "--svg", "--data", files["dir"] / "sugar.parquet").stdout
    expected = loaded.to_svg(data=(frame.drop("sugar"), frame["sugar"]))
    assert drawn.rstrip("\n") == expected.rstrip("\n")
    assert "whiskers 5-95 %" in drawn and "rows given as data" in drawn
    dot = ok("show", model, "--dot", "--data", files["dir"] / "sugar.parquet").stdout
    assert dot.rstrip("\n") == loaded.to_dot(data=(frame.drop("sugar"), frame["sugar"])).rstrip(
        "\n"
    )
    unlabelled = files["dir"] / "unlabelled.parquet"
    frame.drop("sugar").write_parquet(unlabelled)
    fails("show", model, "--svg", "--data", unlabelled, match="no column 'sugar'")


def test_demo_still_prints_the_three_trees():
    out = ok("demo").stdout
    for algorithm in ("id3", "c4.5", "cart"):
        assert f"== {algorithm} tree on watermelon3 ==" in out
    assert "Rules:" in out and "Training accuracy" in out
    fails("demo", "--dataset", "nope", match="unknown data set 'nope'")


def test_progress_goes_to_stderr_only(files, c45_model):
    """Shown after QUERCUS_PROGRESS_AFTER seconds (1 by default); 0 shows it at once."""
    out = files["dir"] / "progress.csv"
    now = {"QUERCUS_PROGRESS_AFTER": "0"}
    result = ok("predict", c45_model, files["csv"], "-o", out, env=now)
    assert "quercus: predicting" in result.stderr and "done in" in result.stderr
    assert result.stdout.startswith("wrote ")
    result = ok("fit", files["csv"], "--target", "ripe", "-o", files["dir"] / "p.qrc", env=now)
    assert "quercus: fitting" in result.stderr
    assert ok("predict", c45_model, files["csv"], "-o", out).stderr == ""  # quick: silent


# --- reading ordinary CSVs ---------------------------------------------------------------------


def numbers_with_gaps(folder: Path) -> Path:
    """A CSV as R, pandas, SQL and Weka write it: a numeric column whose missing cells say
    NA, NaN, null, ? or nothing, an id column and an integer class."""
    rng = np.random.default_rng(3)
    n = 60
    x = rng.normal(size=n).round(3)
    cells = [str(v) for v in x]
    for row, token in zip(range(0, n, 5), ["NA", "NaN", "null", "?", ""] * 3, strict=False):
        cells[row] = token
    y = (x > 0).astype(int)
    lines = ["id,x,y", *(f"{i},{c},{t}" for i, (c, t) in enumerate(zip(cells, y, strict=True)))]
    path = folder / "gaps.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_missing_tokens_read_as_missing_at_fit_and_predict(files):
    folder = files["dir"]
    data, model, out = numbers_with_gaps(folder), folder / "gaps.qrc", folder / "gaps_out.csv"
    fit = ok("fit", data, "--target", "y", "--id", "id", "-o", model)
    assert "2 classes" in fit.stderr  # the task, said in one line
    loaded = quercus.load(model)
    assert loaded.feature_names_in_.tolist() == ["x"]
    assert "x <=" in loaded.export_text()  # a threshold: x stayed numeric, not categories
    reference = pl.read_csv(data, null_values=["NA", "NaN", "null", "?"])
    assert reference["x"].null_count() == 12
    expected = DecisionTreeClassifier().fit(reference.select("x"), reference["y"])
    assert loaded.export_text() == expected.export_text()
    ok("predict", model, data, "-o", out, "--id", "id")
    predicted = pl.read_csv(out)
    assert predicted.columns == ["id", "y"]
    assert predicted["y"].to_list() == expected.predict(reference.select("x")).tolist()
    # --na-values '': only empty cells are missing, so x holds text and is categorical
    ok("fit", data, "--target", "y", "--drop", "id", "--na-values", "", "-o", model)
    (feature,) = quercus.load(model)._state.schema.features
    assert {"NA", "NaN", "null", "?"} <= set(feature.categories)


def test_column_types_come_from_the_whole_file(files):
    path = files["dir"] / "late_fraction.csv"
    rows = [f"{i % 7},{i % 2}" for i in range(12_000)] + ["0.5,1"]
    path.write_text("x,y\n" + "\n".join(rows) + "\n")
    model = files["dir"] / "late.qrc"
    ok("fit", path, "--target", "y", "-o", model)
    assert quercus.load(model)._state.schema.features[0].kind == "numeric"
    ok("predict", model, path, "-o", files["dir"] / "late.csv")


@pytest.mark.parametrize(
    ("values", "forced", "kind", "notice"),
    [
        (list(range(34)) + [0] * 6, None, DecisionTreeRegressor, "34 distinct whole numbers"),
        ([0, 1, 2] * 10, None, DecisionTreeClassifier, "3 classes"),
        ([0.5, 1.25, 2.0] * 10, None, DecisionTreeRegressor, "fractional numbers"),
        (["a", "b"] * 15, None, DecisionTreeClassifier, None),
        (list(range(34)) + [0] * 6, "--classification", DecisionTreeClassifier, None),
        ([0, 1, 2] * 10, "--regression", DecisionTreeRegressor, None),
    ],
)
def test_the_target_chooses_the_task(files, tmp_path, values, forced, kind, notice):
    path = tmp_path / "task.csv"
    x = np.arange(len(values))
    pl.DataFrame({"x": x, "y": values}).write_csv(path)
    model = tmp_path / "task.qrc"
    result = ok("fit", path, "--target", "y", "-o", model, *([forced] if forced else []))
    assert type(quercus.load(model)) is kind
    said = [line for line in result.stderr.splitlines() if "target 'y'" in line]
    if notice is None:
        assert said == []
    else:
        assert len(said) == 1 and notice in said[0] and said[0].startswith("quercus: ")


def test_features_drop_and_id_choose_the_columns(files):
    folder = files["dir"]
    model = folder / "chosen.qrc"
    ok("fit", files["csv"], "--target", "ripe", "--features", "texture,density", "-o", model)
    assert quercus.load(model).feature_names_in_.tolist() == ["texture", "density"]
    ok("fit", files["csv"], "--target", "ripe", "--drop", "id", "--drop", "sugar", "-o", model)
    names = quercus.load(model).feature_names_in_.tolist()
    assert "id" not in names and "sugar" not in names and "texture" in names
    ok("fit", files["csv"], "--target", "ripe", "--id", "id", "-o", model)
    assert "id" not in quercus.load(model).feature_names_in_.tolist()


def test_warnings_are_one_line(files, tmp_path):
    path = tmp_path / "many.csv"
    pl.DataFrame({"x": np.arange(40), "y": np.arange(40) % 34}).write_csv(path)
    result = ok("fit", path, "--target", "y", "--classification", "-o", tmp_path / "m.qrc")
    warned = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warned) == 1 and warned[0].startswith("quercus: warning: y has 34 classes")
    assert ".py" not in result.stderr


# --- mistakes -----------------------------------------------------------------------------------


def test_data_mistakes_are_one_line(files, c45_model):
    folder = files["dir"]
    model = folder / "never.qrc"
    text = folder / "melons.txt"
    text.write_text("a,b\n1,2\n")
    not_parquet = folder / "fake.parquet"
    not_parquet.write_text("hello")
    only_target = folder / "only_target.csv"
    pl.read_csv(files["csv"]).select("ripe").write_csv(only_target)
    lacking = folder / "lacking.csv"
    pl.read_csv(files["csv"]).drop("texture").write_csv(lacking)
    out = folder / "out.csv"
    all_fail(
        [
            (("fit", folder / "absent.csv", "--target", "ripe", "-o", model), "no such file"),
            (("fit", files["csv"], "--target", "sweet", "-o", model), "no column 'sweet'"),
            (("fit", text, "--target", "a", "-o", model), "cannot tell the format"),
            (
                ("fit", files["csv"], "--target", "density", "--classification", "-o", model),
                "--regression",
            ),
            (
                ("fit", files["csv"], "--target", "ripe", "-o", folder / "no/m.qrc"),
                "no such directory",
            ),
            (("fit", files["csv"], "--target", "ripe", "-o", folder), "is a directory"),
            (
                ("fit", files["csv"], "--target", "ripe", "--features", "x", "-o", model),
                "no column 'x' (named by --features)",
            ),
            (
                ("fit", files["csv"], "--target", "ripe", "--drop", "x", "-o", model),
                "no column 'x' (named by --drop)",
            ),
            (
                (
                    "fit",
                    files["csv"],
                    "--target",
                    "ripe",
                    "--features",
                    "id",
                    "--id",
                    "id",
                    "-o",
                    model,
                ),
                "no feature columns",
            ),
            (("fit", not_parquet, "--target", "ripe", "-o", model), "cannot read"),
            (("fit", only_target, "--target", "ripe", "-o", model), "no feature columns"),
            (("predict", c45_model, lacking, "-o", out), "no column 'texture'"),
            (("predict", c45_model, files["csv"], "-o", out, "--keep", "x"), "no column 'x'"),
            (("predict", c45_model, files["csv"], "-o", folder / "out.xlsx"), "format"),
            (("predict", c45_model, files["csv"], "-o", folder / "no/d.csv"), "no such directory"),
        ]
    )
    assert not model.exists() and not out.exists()


def test_option_mistakes_are_one_line(files):
    model = files["dir"] / "never.qrc"
    fit = ("fit", files["csv"], "--target", "ripe", "-o", model)
    all_fail(
        [
            ((*fit, "--max-depth", "deep"), "--max-depth: expected a positive integer"),
            ((*fit, "--max-depth", "0"), "--max-depth"),
            ((*fit, "--prune", "hard"), "--prune: invalid choice: 'hard'"),
            ((*fit, "--algorithm", "c5.0"), "invalid choice: 'c5.0'"),
            ((*fit, "--criterion", "purity"), "'criterion' parameter must be one of"),
            ((*fit, "--ccp-alpha", "-1"), "ccp_alpha"),
            ((*fit, "--prune", "reduced_error"), "--validation VAL_DATA, or --pruning-folds"),
            ((*fit, "--prune", "reduced_error", "--pruning-folds", "1"), "pruning_folds"),
            ((*fit, "--prune", "cost_complexity"), "--ccp-alpha"),
            (("fit", files["csv"], "-o", model), "--target"),
            (("fit", files["csv"], "--target", "ripe"), "--output"),
            (("frobnicate",), "invalid choice: 'frobnicate'"),
            ((), "required"),
        ]
    )
    assert not model.exists()


def test_model_file_mistakes_are_one_line(files, c45_model):
    folder = files["dir"]
    out = folder / "out.csv"
    truncated = folder / "truncated.qrc"
    truncated.write_bytes(c45_model.read_bytes()[:40])
    garbage = folder / "garbage.qrc"
    garbage.write_bytes(bytes(range(256)) * 4)
    unreadable = "not a readable quercus model"
    all_fail(
        [
            (("predict", folder / "absent.qrc", files["csv"], "-o", out), "no such model file"),
            (("show", folder / "absent.qrc"), "no such model file"),
            (("show", folder), "no such model file"),
            (("predict", files["csv"], files["csv"], "-o", out), unreadable),
            (("show", truncated), unreadable),
            (("predict", garbage, files["csv"], "-o", out), unreadable),
        ]
    )
    assert not out.exists()


def test_help_and_version():
    assert "fit" in ok("--help").stdout and "predict" in ok("--help").stdout
    assert ok("--version").stdout.strip() == f"quercus {quercus.__version__}"
    assert "--prune" in ok("fit", "--help").stdout


def test_enum_categories_from_csv_are_strings_and_still_predict(files, c45_model):
    """A model fitted on Parquet (Enum columns) predicts rows read from CSV (strings)."""
    out = files["dir"] / "from_csv.parquet"
    ok("predict", c45_model, files["csv"], "-o", out)
    frame = pl.read_parquet(files["parquet"]).with_columns(cs.enum().cast(pl.String))
    expected = quercus.load(c45_model).predict(frame).tolist()
    assert pl.read_parquet(out)["ripe"].to_list() == expected


def test_fit_streams_a_directory_or_glob_of_parquet_files(files, tmp_path):
    """Many Parquet files are streamed: the model is the in-memory histogram fit's, text
    columns becoming Enums of their sorted values as the in-memory fit sorts them."""
    data = melons()
    text = data.with_columns(cs.by_dtype(pl.Enum).exclude("ripe").cast(pl.String))
    folder = tmp_path / "parts"
    folder.mkdir()
    for k, (start, length) in enumerate(((0, 6), (6, 5), (11, None))):
        text.slice(start, length).write_parquet(folder / f"part{k}.parquet")
    expected = DecisionTreeClassifier(splitter="hist", pruning="none", max_depth=3)
    expected.fit(text, target="ripe")
    for source in (folder, f"{folder}/part*.parquet"):
        model = tmp_path / "streamed.qrc"
        out = ok("fit", source, "--target", "ripe", "--max-depth", "3", "-o", model)
        assert "streamed from" in out.stdout
        assert quercus.load(model).to_bytes() == expected.to_bytes()
    all_fail(
        [
            (("fit", f"{tmp_path}/none*.parquet", "--target", "ripe", "-o", model), "no Parquet"),
            (("fit", folder, "--target", "ripe", "--prune", "pessimistic", "-o", model), "prune"),
            (("fit", folder, "--target", "nope", "-o", model), "nope"),
            (
                ("fit", files["csv"], "--target", "ripe", "--memory-budget", "9", "-o", model),
                "glob",
            ),
        ]
    )
