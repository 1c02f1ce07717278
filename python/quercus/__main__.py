"""Command line: `quercus fit | predict | show | demo` (also `python -m quercus ...`).

    quercus fit DATA --target COL [--algorithm c4.5] [--prune pessimistic] ... -o model.qrc
    quercus fit 'events/*.parquet' --target COL [--memory-budget BYTES] ... -o model.qrc
    quercus predict model.qrc DATA -o out.parquet [--proba] [--keep ID]
    quercus show model.qrc [--rules | --dot | --svg] [--max-categories N|all] [--max-depth N]
                 [--width PX|none] [--decimals N] [--data DATA] [-o FILE]
    quercus demo [--dataset watermelon3]

DATA is a CSV or Parquet file, told apart by its extension and read with Polars; at fit, a
directory or glob of Parquet files is streamed batch by batch (a histogram tree, one pass per
level, the tree the in-memory histogram fit grows; text columns become Enums of their sorted
values, one extra pass). A CSV's column types are read from the whole file, and the tokens
R, pandas and Weka write for a missing value (NA, NaN, null, ?, an empty cell; --na-values
changes them) are missing, at fit and at predict alike. The target's values choose the task
(text: classes; fractional numbers or more than 20 distinct whole numbers: regression), said
in one `quercus:` line; --classification / --regression decide it instead. Every error,
a usage mistake included, is one line `quercus: error: ...` on stderr and exit status 2
(QUERCUS_DEBUG=1 shows the traceback instead); Ctrl-C stops any command within a second with
one line `quercus: interrupted` and exit status 130. On a terminal, or with --progress, a fit
or prediction longer than a second shows its progress on stderr (nodes grown, rows
predicted); elsewhere a command that runs longer than a second says when it starts and ends
(after QUERCUS_PROGRESS_AFTER seconds if set).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

try:
    import polars as pl

    from . import __version__, datasets
except KeyboardInterrupt:  # Ctrl-C while starting up: the same one line as later on
    sys.stderr.write("quercus: interrupted\n")
    raise SystemExit(130) from None

_READERS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
_PRUNINGS = ("none", "reduced_error", "pessimistic", "cost_complexity")
# What R (NA), pandas (NaN, empty), SQL exports (null) and Weka's ARFF (?) write for a
# missing value: read as missing in every CSV column, at fit and at predict alike.
_NA_VALUES = ("NA", "NaN", "null", "?")
# A numeric target of whole numbers is read as class labels up to this many distinct
# values (ratings, codes, counts of a few kinds); beyond it, as a quantity to regress.
_MOST_CLASSES = 20


class UserError(Exception):
    """A mistake on the command line or in its files, reported as one line."""


class _Parser(argparse.ArgumentParser):
    """Reports usage errors as one line, like every other error of this command."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"quercus: error: {message}\n")  # subcommands too: one error form


# --- files --------------------------------------------------------------------------------------


def _format(path: Path, role: str) -> str:
    kind = _READERS.get(path.suffix.lower())
    if kind is None:
        raise UserError(
            f"cannot tell the format of {role} {str(path)!r}: use a .csv or .parquet file"
        )
    return kind


def _scan(
    path_text: str, na_values: Sequence[str], dtypes: dict[str, Any] | None = None
) -> pl.LazyFrame:
    """DATA as a LazyFrame. A CSV's types are inferred from every row (a column whose first
    rows are whole numbers and a later one a fraction is numbers, not text), `na_values`
    read as missing; `dtypes` fixes the types of CSV columns (a model's features, so that a
    column of category codes stays text and an empty one stays numeric)."""
    path = Path(path_text)
    kind = _format(path, "data file")
    if not path.is_file():
        raise UserError(f"no such file: {path_text}")
    if kind == "parquet":
        return pl.scan_parquet(path)
    return pl.scan_csv(
        path, infer_schema_length=None, null_values=list(na_values), schema_overrides=dtypes
    )


def _collect(frame: pl.LazyFrame, path: str, columns: Sequence[str] | None = None) -> pl.DataFrame:
    """The rows of DATA (only `columns` if given); reading errors name the file."""
    try:
        if columns is not None:
            frame = frame.select(columns)
        data = frame.collect()
    except (pl.exceptions.PolarsError, OSError) as error:
        raise UserError(f"cannot read {path}: {_first_line(error)}") from error
    if data.height == 0:
        raise UserError(f"{path} has no rows")
    return data


def _columns_of(frame: pl.LazyFrame, path: str) -> list[str]:
    try:
        return frame.collect_schema().names()
    except (pl.exceptions.PolarsError, OSError) as error:
        raise UserError(f"cannot read {path}: {_first_line(error)}") from error


def _require(columns: Sequence[str], wanted: Sequence[str], path: str, what: str) -> None:
    missing = [name for name in wanted if name not in columns]
    if missing:
        raise UserError(
            f"{path} has no column {', '.join(map(repr, missing))} ({what}); "
            f"its columns are {', '.join(map(repr, columns))}"
        )


def _check_output(path_text: str, role: str, tabular: bool) -> None:
    """Fails before any work when `path_text` cannot be written: its folder is absent or
    read-only, it is a folder, or (`tabular`) its extension is neither CSV nor Parquet."""
    path = Path(path_text)
    if tabular:
        _format(path, role)
    folder = path.parent
    if path.is_dir():
        raise UserError(f"cannot write {role} {path_text}: it is a directory")
    if not folder.is_dir():
        raise UserError(f"cannot write {role} {path_text}: no such directory {str(folder)!r}")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"cannot write {role} {path_text}: permission denied")


def _write(frame: pl.DataFrame, path_text: str) -> None:
    path = Path(path_text)
    kind = _format(path, "output file")
    try:
        if kind == "parquet":
            frame.write_parquet(path)
        else:
            frame.write_csv(path)
    except (pl.exceptions.PolarsError, OSError) as error:
        raise UserError(f"cannot write {path_text}: {_first_line(error)}") from error


def _write_text(text: str, path_text: str | None) -> None:
    if path_text is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        Path(path_text).write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {path_text}: {_first_line(error)}") from error


def _load_model(path_text: str) -> Any:
    from . import load  # the model format's reader

    if not Path(path_text).is_file():
        raise UserError(f"no such model file: {path_text}")
    try:
        return load(path_text)
    except Exception as error:  # any reason a file is not a model is a user's mistake
        message = f"{path_text} is not a readable quercus model: {_first_line(error)}"
        raise UserError(message) from error


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


# --- progress -----------------------------------------------------------------------------------


def _verbose(args: argparse.Namespace) -> int:
    """The estimators' `verbose` for this command: progress lines on a terminal, or asked."""
    return int(args.progress or sys.stderr.isatty())


@contextlib.contextmanager
def _progress(label: str, verbose: int) -> Iterator[None]:
    """Without progress lines (`verbose` 0), one line on stderr once `label` has run for a
    second and one when it is done, so a log shows the long steps; with them, the model's
    own progress says more, and this says nothing."""
    try:
        after = float(os.environ.get("QUERCUS_PROGRESS_AFTER", "1"))
    except ValueError:
        after = 1.0
    if verbose:
        yield
        return
    done = threading.Event()
    shown = threading.Event()
    start = time.monotonic()

    def report() -> None:
        if not done.wait(after):
            shown.set()
            print(f"quercus: {label} ...", file=sys.stderr, flush=True)

    thread = threading.Thread(target=report, name="quercus-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
    if shown.is_set():  # not after an error or an interrupt: it says what happened instead
        elapsed = time.monotonic() - start
        print(f"quercus: {label} done in {elapsed:.1f}s", file=sys.stderr)


# --- commands -----------------------------------------------------------------------------------


def _fit(args: argparse.Namespace) -> None:
    _check_output(args.output, "model file", tabular=False)
    if _is_many(args.data):
        _fit_streamed(args)
        return
    if args.memory_budget is not None:
        raise UserError("--memory-budget applies to a directory or glob of Parquet files")
    params: dict[str, Any] = {"algorithm": args.algorithm, "pruning": args.prune}
    for name in (
        "criterion",
        "max_depth",
        "min_samples_split",
        "min_samples_leaf",
        "confidence",
        "pruning_folds",
    ):
        if getattr(args, name) is not None:
            params[name] = getattr(args, name)
    if args.ccp_alpha is not None:
        params["ccp_alpha"] = args.ccp_alpha
    if args.prune == "reduced_error" and args.validation is None and args.pruning_folds is None:
        raise UserError(
            "--prune reduced_error needs held-out rows: --validation VAL_DATA, or "
            "--pruning-folds N to hold one of N folds of the data out (J48 -R -N)"
        )
    if args.prune == "cost_complexity" and args.ccp_alpha is None:
        raise UserError("--prune cost_complexity needs --ccp-alpha A")
    # Imported once a command needs it (with scikit-learn's base classes, if installed),
    # inside `main`'s handling of Ctrl-C.
    verbose = _verbose(args)
    with _progress("fitting", verbose):
        data = _read_training(args.data, args)
        regression = _is_regression(args, data.lazy())
        model = _estimator(regression)(**params, verbose=verbose)
        validation = None
        if args.validation is not None:
            held_out = _read_training(args.validation, args)
            validation = (held_out.drop(args.target), held_out.get_column(args.target))
        try:
            model.fit(data, target=args.target, validation=validation)
        except ValueError as error:
            raise UserError(_fit_message(error, regression)) from error
        X = data.drop(args.target)
        score = model.score(X, data.get_column(args.target))
        model.set_params(verbose=0).save(args.output)  # the file's model reports nothing
    figure = "R^2" if regression else "accuracy"
    print(
        f"wrote {args.output}: {model!r}, {model.n_leaves_} leaves, depth {model.depth_}; "
        f"training {figure} {score:.4f}"
    )


def _estimator(regression: bool) -> Any:
    # Imported once a command needs it (with scikit-learn's base classes, if installed),
    # inside `main`'s handling of Ctrl-C.
    from .tree import DecisionTreeClassifier, DecisionTreeRegressor

    return DecisionTreeRegressor if regression else DecisionTreeClassifier


def _fit_message(error: Exception, regression: bool) -> str:
    message = _first_line(error)
    if "continuous" in message and not regression:
        message += " (pass --regression)"
    return message


def _is_regression(args: argparse.Namespace, frame: pl.LazyFrame) -> bool:
    """The task: --regression or --classification if given, else read from the target's
    values and said on stderr in one line (a numeric target is ambiguous; text is not)."""
    if args.regression or args.classification:
        return bool(args.regression)
    target = args.target
    dtype = frame.collect_schema()[target]
    if not dtype.is_numeric():
        return False
    column = pl.col(target).drop_nulls()
    if dtype.is_float():
        column = column.filter(column.is_not_nan())
    found = frame.select(
        column.n_unique().alias("distinct"),
        (column != column.round()).any().alias("fractional") if dtype.is_float() else pl.lit(False),
    ).collect(engine="streaming")
    distinct, fractional = found.row(0)
    if fractional:
        reason = "holds fractional numbers: a regression tree"
        regression, other = True, "--classification"
    elif distinct > _MOST_CLASSES:
        reason = (
            f"holds {distinct} distinct whole numbers (more than {_MOST_CLASSES}): "
            "a regression tree"
        )
        regression, other = True, "--classification"
    else:
        reason = f"holds {distinct} distinct whole numbers: {distinct} classes"
        regression, other = False, "--regression"
    print(f"quercus: target {target!r} {reason} ({other} to change)", file=sys.stderr)
    return regression


def _is_many(path_text: str) -> bool:
    """Whether DATA names many Parquet files (a directory or a glob), streamed at fit."""
    return Path(path_text).is_dir() or any(c in path_text for c in "*?[")


def _fit_streamed(args: argparse.Namespace) -> None:
    """`quercus fit` of a directory or glob of Parquet files: a histogram tree grown batch by
    batch (quercus.scale.stream), never holding the rows in memory; the training score is
    counted batch by batch as well."""
    params: dict[str, Any] = {"algorithm": args.algorithm, "splitter": "hist"}
    params["pruning"] = "none" if args.prune is None else args.prune
    for name in ("criterion", "max_depth", "min_samples_split", "min_samples_leaf"):
        if getattr(args, name) is not None:
            params[name] = getattr(args, name)
    if args.validation is not None or params["pruning"] != "none":
        raise UserError(
            "a directory or glob of Parquet files is streamed, which grows without pruning: "
            "drop --prune/--validation (or fit one file)"
        )
    verbose = _verbose(args)
    with _progress("fitting", verbose):
        frame = _scan_many(args.data)
        frame = frame.select(_selected(_columns_of(frame, args.data), args.data, args))
        try:
            regression = _is_regression(args, frame)
            model = _estimator(regression)(**params, verbose=verbose)
            frame = _with_categories(frame, args.target)
            model.fit(frame, target=args.target, memory_budget=args.memory_budget)
        except (pl.exceptions.PolarsError, OSError) as error:
            raise UserError(f"cannot read {args.data}: {_first_line(error)}") from error
        except (ValueError, TypeError) as error:
            raise UserError(_fit_message(error, regression)) from error
        score = _streamed_score(model, frame, args.target, regression)
        model.set_params(verbose=0).save(args.output)
    figure = "R^2" if regression else "accuracy"
    print(
        f"wrote {args.output}: {model!r}, {model.n_leaves_} leaves, depth {model.depth_}; "
        f"training {figure} {score:.4f} (streamed from {args.data})"
    )


def _scan_many(path_text: str) -> pl.LazyFrame:
    path = Path(path_text)
    pattern = str(path / "**" / "*.parquet") if path.is_dir() else path_text
    if not any(Path(p).is_file() for p in _glob(pattern)):
        raise UserError(f"no Parquet file matches {path_text}")
    return pl.scan_parquet(pattern)


def _glob(pattern: str) -> Iterator[str]:
    import glob

    return glob.iglob(pattern, recursive=True)


def _with_categories(frame: pl.LazyFrame, target: str) -> pl.LazyFrame:
    """Text feature columns as Enums of their sorted values (one streaming query), which a
    streamed fit needs up front; the in-memory fit of the same rows sorts them alike."""
    schema = frame.collect_schema()
    text = [n for n, t in schema.items() if n != target and t in (pl.String, pl.Categorical)]
    if not text:
        return frame
    values = frame.select(pl.col(n).drop_nulls().unique().implode() for n in text)
    found = values.collect(engine="streaming")
    return frame.with_columns(
        pl.col(n).cast(pl.Enum(sorted(found.get_column(n).item().to_list()))) for n in text
    )


def _streamed_score(model: Any, frame: pl.LazyFrame, target: str, regression: bool) -> float:
    """Training accuracy (or R^2) counted batch by batch."""
    n = hits = 0
    total = squares = residual = 0.0
    for batch in frame.collect_batches():
        y = batch.get_column(target)
        predicted = model.predict(batch.drop(target))
        n += batch.height
        if regression:
            values = y.cast(pl.Float64).to_numpy()
            total += float(values.sum())
            squares += float((values**2).sum())
            residual += float(((values - predicted) ** 2).sum())
        else:
            hits += int((y.to_numpy() == predicted).sum())
    if not regression:
        return hits / n
    spread = squares - total * total / n
    return 1.0 - residual / spread if spread > 0 else 0.0


def _selected(columns: list[str], path: str, args: argparse.Namespace) -> list[str]:
    """The columns of `path` a fit reads: --features (default: every column) less --drop
    and --id, then the target; every named column must exist."""
    target = args.target
    _require(columns, [target], path, "the --target")
    _require(columns, args.features or [], path, "named by --features")
    _require(columns, args.drop, path, "named by --drop")
    _require(columns, args.id, path, "named by --id")
    left_out = {target, *args.drop, *args.id}
    features = [name for name in args.features or columns if name not in left_out]
    if not features:
        raise UserError(f"{path} has no feature columns besides {target!r}")
    return [*features, target]


def _read_training(path: str, args: argparse.Namespace) -> pl.DataFrame:
    frame = _scan(path, args.na_values)
    return _collect(frame, path, _selected(_columns_of(frame, path), path, args))


def _predict(args: argparse.Namespace) -> None:
    _check_output(args.output, "output file", tabular=True)
    model = _load_model(args.model)
    if args.proba and not hasattr(model, "predict_proba"):
        raise UserError("--proba needs a classifier; this model is a regression tree")
    schema = model._state.schema
    if args.proba and schema.outputs:
        raise UserError(
            f"--proba writes one output's class probabilities; this model predicts "
            f"{len(schema.outputs)} ({', '.join(schema.outputs)})"
        )
    dtypes = {f.name: pl.Float64 if f.kind == "numeric" else pl.String for f in schema.features}
    verbose = _verbose(args)
    model.set_params(verbose=verbose)
    with _progress("predicting", verbose):
        frame = _scan(args.data, args.na_values, dtypes)
        columns = _columns_of(frame, args.data)
        _require(columns, schema.names, args.data, "a feature of the model")
        _require(columns, args.keep, args.data, "asked for by --keep")
        wanted = list(dict.fromkeys([*args.keep, *schema.names]))
        data = _collect(frame, args.data, wanted)
        if args.proba:
            predicted = model.predict_proba(data, output="polars")
        else:  # a Series, or a DataFrame of several outputs
            predicted = pl.DataFrame(model.predict(data, output="polars"))
        clash = [name for name in args.keep if name in predicted.columns]
        if clash:
            raise UserError(f"--keep {clash[0]!r} has the name of an output column")
        output = pl.concat([data.select(args.keep), predicted], how="horizontal")
        _write(output, args.output)
    print(f"wrote {args.output}: {output.height} rows, columns {', '.join(output.columns)}")


def _show(args: argparse.Namespace) -> None:
    form = "--rules" if args.rules else "--dot" if args.dot else "--svg" if args.svg else "text"
    # Which option reaches which rendering: the others would be silently ignored.
    applies = {
        "--max-depth": ("text", "--svg"),
        "--width": ("--svg",),
        "--data": ("--svg", "--dot"),
    }
    given = {"--max-depth": args.max_depth, "--width": args.width, "--data": args.data}
    for option, forms in applies.items():
        if given[option] is not None and form not in forms:
            shown = " and ".join("the text" if f == "text" else f for f in forms)
            raise UserError(f"{option} applies to {shown}, not to {form}")
    model = _load_model(args.model)
    # The options carry the Python API's names and are passed on only when given, so that
    # each rendering keeps its own defaults ("all" is None: every category).
    options: dict[str, Any] = {}
    if args.max_categories is not None:
        options["max_categories"] = args.max_categories[0]
    if args.decimals is not None:
        options["decimals"] = args.decimals
    if args.rules:
        text = model.export_rules(**options)
    elif args.dot:
        text = model.to_dot(**options, data=_strip_rows(model, args.data, args.na_values))
    elif args.svg:
        width = {} if args.width is None else {"width": args.width[0]}
        data = _strip_rows(model, args.data, args.na_values)
        text = model.to_svg(**options, **width, max_depth=args.max_depth, data=data)
    else:
        schema = model._state.schema
        header = (
            f"{model!r} predicting {schema.target!r} from {len(schema.features)} features: "
            f"{model.n_nodes_} nodes, {model.n_leaves_} leaves, depth {model.depth_}"
        )
        text = f"{header}\n{model.export_text(**options, max_depth=args.max_depth)}"
    _write_text(text, args.output)


def _strip_rows(
    model: Any, path: str | None, na_values: Sequence[str]
) -> tuple[pl.DataFrame, pl.Series] | None:
    """`--data`: labelled rows whose target quantiles a regression tree's strips draw (a
    model file keeps none, so without them the strips show mean ± sd)."""
    if path is None:
        return None
    if hasattr(model, "predict_proba"):
        raise UserError("--data draws a regression tree's strips; this model is a classifier")
    schema = model._state.schema
    frame = _scan(path, na_values)
    _require(_columns_of(frame, path), [*schema.names, schema.target], path, "--data")
    data = _collect(frame, path, [*schema.names, schema.target])
    return data.drop(schema.target), data.get_column(schema.target)


def _demo(args: argparse.Namespace) -> None:
    """Fit the three classic algorithms and print their trees, as the textbooks do."""
    if args.dataset not in datasets.names():
        raise UserError(
            f"unknown data set {args.dataset!r}; choose one of {', '.join(datasets.names())}"
        )
    from .tree import DecisionTreeClassifier

    features, target = datasets.load(args.dataset, return_X_y=True)
    for algorithm in ("id3", "c4.5", "cart"):
        model = DecisionTreeClassifier(algorithm=algorithm).fit(features, target)
        print(f"== {algorithm} tree on {args.dataset} ==")
        print(model.export_text())
        if algorithm == "id3":
            print("\nRules:")
            print(model.export_rules())
        print(f"\nTraining accuracy: {model.score(features, target):.3f}\n")


# --- the parser ---------------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _count(text: str) -> int:
    """A count that may be 0."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return int(text)


def _or_none(parse: Any, word: str) -> Any:
    """An option's value: `word` (all, none) for None, else what `parse` reads; wrapped in
    a 1-tuple so that an absent option (None) stays apart from the word."""

    def read(text: str) -> tuple[Any]:
        return (None,) if text == word else (parse(text),)

    read.__name__ = parse.__name__  # argparse names the type in its messages
    return read


def _width(text: str) -> float:
    value = _number(text)
    if not value >= 100:
        raise argparse.ArgumentTypeError(f"expected a width of at least 100 px, got {text!r}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _names(text: str) -> list[str]:
    """A comma-separated list of column names."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected column names separated by commas, got {text!r}")
    return names


def _tokens(text: str) -> list[str]:
    """--na-values: comma-separated tokens ('' for none but the empty cell)."""
    return text.split(",")


def _add_na_values(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--na-values",
        type=_tokens,
        default=list(_NA_VALUES),
        metavar="TOKENS",
        help="comma-separated CSV cells read as missing, besides an empty cell "
        f"(default: {','.join(_NA_VALUES)}; '' for none)",
    )


def _parser() -> _Parser:
    parser = _Parser(prog="quercus", description="Decision trees as the textbooks define them.")
    parser.add_argument("--version", action="version", version=f"quercus {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    fit = commands.add_parser("fit", help="grow (and prune) a tree on a CSV or Parquet file")
    fit.add_argument(
        "data",
        metavar="DATA",
        help="training data, .csv or .parquet; a directory or glob of .parquet files is "
        "streamed (a histogram tree, never read whole)",
    )
    fit.add_argument("--target", required=True, metavar="COL", help="the column to predict")
    fit.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    fit.add_argument("--algorithm", choices=("id3", "c4.5", "cart", "optimal"), default="cart")
    fit.add_argument(
        "--criterion",
        help="entropy (log_loss), gain_ratio, gini, misclassification; regression: "
        "squared_error, friedman_mse, absolute_error, poisson",
    )
    fit.add_argument("--max-depth", type=_positive_int, metavar="N")
    fit.add_argument("--min-samples-split", type=_positive_int, metavar="N")
    fit.add_argument("--min-samples-leaf", type=_positive_int, metavar="N")
    fit.add_argument(
        "--prune",
        choices=_PRUNINGS,
        help="post-pruning (default: pessimistic for c4.5, none otherwise)",
    )
    fit.add_argument("--ccp-alpha", type=_number, metavar="A", help="cost-complexity alpha")
    fit.add_argument("--confidence", type=_number, metavar="CF", help="C4.5's CF (0.25)")
    fit.add_argument(
        "--validation", metavar="VAL_DATA", help="held-out rows for --prune reduced_error"
    )
    fit.add_argument(
        "--pruning-folds",
        type=_positive_int,
        metavar="N",
        help="--prune reduced_error on one of N folds of the data, grown on the others (J48 -R -N)",
    )
    fit.add_argument(
        "--features",
        type=_names,
        action="extend",
        metavar="COLS",
        help="the feature columns, comma-separated (default: every column but the target, "
        "--drop and --id)",
    )
    fit.add_argument(
        "--drop",
        type=_names,
        action="extend",
        default=[],
        metavar="COLS",
        help="columns left out of the features, comma-separated",
    )
    fit.add_argument(
        "--id",
        type=_names,
        action="extend",
        default=[],
        metavar="COLS",
        help="identifier columns: never features (predict --id copies them to the output)",
    )
    task = fit.add_mutually_exclusive_group()
    task.add_argument(
        "--regression", action="store_true", help="a regression tree, whatever the target holds"
    )
    task.add_argument(
        "--classification",
        action="store_true",
        help="a classification tree, whatever the target holds",
    )
    _add_na_values(fit)
    fit.add_argument(
        "--memory-budget",
        type=_positive_int,
        metavar="BYTES",
        help="histogram bytes per pass when DATA is a directory or glob of Parquet files "
        "(streamed, splitter hist; default 256 MiB)",
    )
    fit.add_argument(
        "--progress", action="store_true", help="progress on stderr (the default on a terminal)"
    )
    fit.set_defaults(run=_fit)

    predict = commands.add_parser("predict", help="predict the rows of a CSV or Parquet file")
    predict.add_argument("model", metavar="MODEL", help="a model file written by `quercus fit`")
    predict.add_argument("data", metavar="DATA", help="rows to predict, .csv or .parquet")
    predict.add_argument("-o", "--output", required=True, metavar="OUT", help=".parquet or .csv")
    predict.add_argument("--proba", action="store_true", help="one probability column per class")
    predict.add_argument(
        "--progress", action="store_true", help="progress on stderr (the default on a terminal)"
    )
    predict.add_argument(
        "--keep",
        "--id",
        type=_names,
        action="extend",
        default=[],
        metavar="COLS",
        help="copy these input columns (ids), comma-separated, into the output",
    )
    _add_na_values(predict)
    predict.set_defaults(run=_predict)

    show = commands.add_parser("show", help="print a model as text, rules, DOT or SVG")
    show.add_argument("model", metavar="MODEL")
    picture = show.add_mutually_exclusive_group()
    picture.add_argument("--rules", action="store_true", help="IF ... THEN rules")
    picture.add_argument("--dot", action="store_true", help="Graphviz DOT")
    picture.add_argument("--svg", action="store_true", help="a standalone SVG picture")
    show.add_argument(
        "--max-categories",
        type=_or_none(_positive_int, "all"),
        metavar="N|all",
        help="categories a list shows before it counts the rest (text and rules 10, "
        "pictures 3; all: every one)",
    )
    show.add_argument(
        "--max-depth",
        type=_positive_int,
        metavar="N",
        help="levels shown below the root (text and --svg)",
    )
    show.add_argument(
        "--width",
        type=_or_none(_width, "none"),
        metavar="PX|none",
        help="--svg: the page width a wider picture is scaled to (1920; none: its own size)",
    )
    show.add_argument(
        "--decimals",
        type=_count,
        metavar="N",
        help="digits after the point in thresholds and figures (text and rules 4, pictures 3)",
    )
    show.add_argument(
        "--data",
        metavar="DATA",
        help="--svg, --dot of a regression tree: labelled rows whose quantiles the strips draw",
    )
    _add_na_values(show)
    show.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    show.set_defaults(run=_show)

    demo = commands.add_parser("demo", help="fit ID3, C4.5 and CART on a bundled data set")
    demo.add_argument(
        "--dataset", default="watermelon3", help="one of: " + ", ".join(datasets.names())
    )
    demo.set_defaults(run=_demo)
    return parser


def _show_warning(message: Warning | str, *_: object, **__: object) -> None:
    """A warning as one line, like an error: no file path or source line of quercus's."""
    print(f"quercus: warning: {_first_line(Warning(message))}", file=sys.stderr)


# --- Ctrl-C -------------------------------------------------------------------------------------

# How long an interrupted command may take to unwind before the guard ends it (see
# `_on_interrupt`): with it, within the second the module's docstring promises.
_GRACE = 0.5
_interrupted = threading.Event()  # Ctrl-C was pressed during this run
_said = threading.Event()  # the interrupt's line is out
_saying = threading.Lock()


def _say_interrupted() -> None:
    """The interrupt's one line, once, whichever of `main`, `run` and the guard gets here."""
    with _saying:
        if not _said.is_set():
            print("quercus: interrupted", file=sys.stderr, flush=True)
            _said.set()


def _on_interrupt(signum: int, frame: object) -> NoReturn:
    """Ctrl-C under `run`: KeyboardInterrupt, as Python's own handler raises, and a guard
    that ends the command `_GRACE` later should the exception not get back to `main`. A
    library that runs Python inside its native code can lose it: Polars 2.1 turns it into a
    panic while it starts reading a file, and a fit ran to its end in one CI run."""
    if not _interrupted.is_set():
        _interrupted.set()
        threading.Thread(target=_guard, name="quercus-interrupt", daemon=True).start()
    raise KeyboardInterrupt


def _guard() -> None:
    if _said.wait(_GRACE):  # `main` caught it and is leaving
        return
    _say_interrupted()
    sys.stdout.flush()
    os._exit(130)


# --- entry points -------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 on any error)."""
    _said.clear()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            args = _parser().parse_args(argv)
            args.run(args)
    except KeyboardInterrupt:
        _say_interrupted()
        return 130
    except BrokenPipeError:  # stdout's reader left early (`quercus show m.qrc | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 0
    except Exception as error:  # a user's mistake, or anything else: one line, no traceback
        if os.environ.get("QUERCUS_DEBUG"):
            raise
        print(f"quercus: error: {_first_line(error)}", file=sys.stderr)
        return 2
    return 0


def run() -> NoReturn:
    """The `quercus` command and `python -m quercus`: `main`, then exit with its status."""
    signal.signal(signal.SIGINT, _on_interrupt)
    try:
        status = main()
    except BaseException:  # not one of main's: a library's own form of the interrupt
        if not _interrupted.is_set():
            raise
        _say_interrupted()
        status = 130
    if status == 130:
        # Interrupted half a second after its first line on a loaded machine, the
        # interpreter ended itself with SIGINT at exit in 11 of 24 runs (status -2) though
        # main had returned 130 (CPython marks some interrupts as unhandled even when the
        # caller catches them); leaving without that last step gave 130 in 24 of 24.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    sys.exit(status)


if __name__ == "__main__":
    run()
