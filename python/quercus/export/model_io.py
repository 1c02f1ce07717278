"""The model format's bytes of a fitted model, and the fitted model read back from them.

A model file is the binary format of `docs/model-format.md`, written and checked by the Rust
core (`_core.Tree.to_bytes`, `_core.load_model`). This module fills the format's metadata blob
with UTF-8 JSON: the estimator's class and parameters, the feature names, kinds, category lists
and ordered flags, the target's name and dtype, the class labels and the reduced-error pruning
trace; each is stored once. The JSON schema is in the same document.

Nothing read from a file is executed, imported or evaluated: the caller looks the estimator
class up in a fixed table (`quercus.tree`), parameters are plain JSON values, class labels are
rebuilt from a fixed list of dtypes, and every field is checked against the tree before a
model is returned. A file that is not a model, is damaged or was written by a newer format
raises `QuercusError`.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from .. import _core
from .._core import QuercusError
from ..fitted.state import FittedTree
from ..inputs.schema import Classes, Feature, Schema
from ..inputs.temporal import dtype_of

FORMAT = "quercus-model"
METADATA_VERSION = 1  # of the JSON below; readers ignore keys they do not know

# Class labels are rebuilt with one of these dtypes (looked up by name, never evaluated).
_NUMERIC_LABELS = {
    name: np.dtype(name)
    for name in (
        "bool",
        *(f"int{bits}" for bits in (8, 16, 32, 64)),
        *(f"uint{bits}" for bits in (8, 16, 32, 64)),
        "float32",
        "float64",
    )
}
_TIME_LABELS = re.compile(r"(datetime64|timedelta64)\[(Y|M|W|D|h|m|s|ms|us|ns)\]")
# Pruning-trace columns, by Polars dtype name.
_TRACE_DTYPES: dict[str, Any] = {
    "Boolean": pl.Boolean,
    "Int32": pl.Int32,
    "Int64": pl.Int64,
    "UInt32": pl.UInt32,
    "UInt64": pl.UInt64,
    "Float64": pl.Float64,
}
_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


# --- writing ------------------------------------------------------------------------------------


def to_bytes(
    state: FittedTree, estimator: str, estimator_type: str, params: dict[str, Any]
) -> bytes:
    """A fitted model in the model format: the core tree's bytes with the JSON metadata of
    the estimator (its class name, kind and parameters) and of `state`."""
    return state.tree.to_bytes(_metadata_json(state, estimator, estimator_type, params))


def save(data: bytes, path: str | os.PathLike[str]) -> None:
    """Write a model's bytes to `path` atomically: a reader never sees a half-written file."""
    target = Path(path)
    # A fresh name beside the target (so the rename stays on one file system), created with
    # the usual permissions, then renamed over the target in one step.
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(8)}.tmp")
    try:
        with open(temporary, "xb") as out:
            out.write(data)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _metadata_json(
    state: FittedTree, estimator: str, estimator_type: str, params: dict[str, Any]
) -> bytes:
    schema = state.schema
    metadata = {
        "format": FORMAT,
        "metadata_version": METADATA_VERSION,
        "quercus_version": _version(),
        "estimator": estimator,
        "estimator_type": estimator_type,
        "params": {name: _encode(name, value) for name, value in params.items()},
        "target": schema.target,
        "target_dtype": schema.target_dtype,
        "features": [
            {
                "name": f.name,
                "kind": f.kind,
                "categories": None if f.categories is None else list(f.categories),
                "ordered": f.ordered,
                # missing="impute_mean" / drop_features_above, only where they apply
                **({} if f.fill is None else {"fill": f.fill}),
                **({"ignored": True} if f.ignored else {}),
                **({} if f.time is None else {"time": f.time}),
            }
            for f in schema.features
        ],
        **({} if schema.missing == "fractional" else {"missing": schema.missing}),
        **({"by_position": True} if schema.by_position else {}),
        # A multi-output model (format version 2): each output's name and dtype.
        **(
            {"outputs": list(schema.outputs), "output_dtypes": list(schema.output_dtypes)}
            if schema.outputs
            else {}
        ),
        "classes": _encode_all_classes(state.classes),
        "pruning_trace": None if state.trace is None else _encode_trace(state.trace),
    }
    text = json.dumps(metadata, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8")


def _version() -> str:
    from .. import __version__

    return __version__


def _encode(name: str, value: Any) -> Any:
    """A parameter value as JSON: scalars as themselves, sequences as lists, a dict as
    {"pairs": [[key, value], ...]} (keys need not be strings), a non-finite float as
    {"float": "nan" | "inf" | "-inf"}."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.random.RandomState | np.random.Generator):
        # A generator only seeds fitting: the file keeps None in its place.
        return None
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return [_encode(name, v) for v in value]
    if isinstance(value, dict):
        return {"pairs": [[_encode(name, k), _encode(name, v)] for k, v in value.items()]}
    raise TypeError(
        f"parameter {name}={value!r} cannot be saved: model files hold numbers, strings, "
        "booleans, None, lists and dicts of them"
    )


def _encode_all_classes(classes: Classes | None) -> Any:
    """None for a regressor, one output's labels, or a list of each output's."""
    if classes is None:
        return None
    if isinstance(classes, list):
        return [_encode_classes(c) for c in classes]
    return _encode_classes(classes)


def _encode_classes(classes: NDArray[Any]) -> dict[str, Any]:
    dtype = classes.dtype
    if dtype.kind == "U":
        return {"dtype": "str", "values": classes.tolist()}
    if dtype.name in _NUMERIC_LABELS:
        return {"dtype": dtype.name, "values": classes.tolist()}
    if _TIME_LABELS.fullmatch(dtype.name):
        return {"dtype": dtype.name, "values": classes.view(np.int64).tolist()}
    if dtype.kind == "O":
        values = [v.item() if isinstance(v, np.generic) else v for v in classes.tolist()]
        if all(isinstance(v, str | int | float) for v in values):  # bool is an int
            return {"dtype": "object", "values": values}
    raise TypeError(
        f"class labels of dtype {dtype} cannot be saved; use strings, numbers or booleans"
    )


def _encode_trace(trace: pl.DataFrame) -> list[dict[str, Any]]:
    columns = []
    for series in trace.iter_columns():
        name = str(series.dtype)
        if name not in _TRACE_DTYPES:
            raise TypeError(f"pruning trace column {series.name!r} has dtype {name}")
        values = series.to_list()
        if series.dtype.is_float():
            values = [v if v is None or math.isfinite(v) else repr(v) for v in values]
        columns.append({"name": series.name, "dtype": name, "values": values})
    return columns


# --- reading ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stored:
    """A model read from its bytes: which estimator wrote it, with what parameters (decoded
    from JSON, not yet checked by the estimator), and its fitted state."""

    estimator: str  # the class name that wrote it
    estimator_type: str  # "classifier" or "regressor"
    params: dict[str, Any]
    state: FittedTree


def read(data: bytes | bytearray | memoryview) -> Stored:
    """The model in `data` (from `to_bytes`), every field checked against the tree."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"a model is read from bytes, not {type(data).__name__}")
    tree, raw = _core.load_model(bytes(data))
    metadata = _parse(raw)
    kind = _field(metadata, "estimator_type", str)
    if kind not in ("classifier", "regressor"):
        raise _corrupt(f"unknown estimator_type {kind!r}")
    if (kind == "classifier") != (tree.n_classes > 0):
        held = "classification" if tree.n_classes > 0 else "regression"
        raise _corrupt(f"a {kind} cannot hold a {held} tree")
    params = _field(metadata, "params", dict)
    state = FittedTree(
        tree,
        _schema(metadata, tree),
        _classes(metadata, tree),
        _trace(metadata.get("pruning_trace")),
    )
    return Stored(
        estimator=_field(metadata, "estimator", str),
        estimator_type=kind,
        params={k: _decode(k, v) for k, v in params.items()},
        state=state,
    )


def _corrupt(reason: str) -> QuercusError:
    return QuercusError(f"cannot load the model: its metadata is invalid: {reason}")


def _parse(raw: bytes) -> dict[str, Any]:
    try:
        metadata = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise _corrupt(f"not UTF-8 JSON ({error})") from None
    if not isinstance(metadata, dict):
        raise _corrupt("not a JSON object")
    if metadata.get("format") != FORMAT:
        raise _corrupt(f"its format is {metadata.get('format')!r}, not {FORMAT!r}")
    version = metadata.get("metadata_version")
    if not isinstance(version, int) or version < 1:
        raise _corrupt(f"metadata_version {version!r} is not a positive integer")
    return metadata


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _field(metadata: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = metadata.get(key)
    if not isinstance(value, kind):
        raise _corrupt(f"{key!r} is {value!r}")
    return value


def _decode(name: str, value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(name, v) for v in value]
    if isinstance(value, dict):
        if set(value) == {"float"} and value["float"] in _NON_FINITE:
            return _NON_FINITE[value["float"]]
        pairs = value.get("pairs")
        if set(value) != {"pairs"} or not isinstance(pairs, list):
            raise _corrupt(f"parameter {name!r} holds an unknown object")
        out = {}
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise _corrupt(f"parameter {name!r} holds a malformed pair")
            key = _decode(name, pair[0])
            if isinstance(key, list | dict):
                raise _corrupt(f"parameter {name!r} has a key that is not a scalar")
            out[key] = _decode(name, pair[1])
        return out
    return value


def _schema(metadata: dict[str, Any], tree: _core.Tree) -> Schema:
    features = _field(metadata, "features", list)
    if len(features) != tree.n_features:
        raise _corrupt(f"it lists {len(features)} features, the tree has {tree.n_features}")
    kinds = tree.feature_kinds()
    parsed = []
    for j, (entry, (kind, n_categories, ordered)) in enumerate(zip(features, kinds, strict=True)):
        if not isinstance(entry, dict):
            raise _corrupt(f"feature {j} is {entry!r}")
        name = _field(entry, "name", str)
        categories = entry.get("categories")
        if entry.get("kind") != kind:
            raise _corrupt(f"feature {name!r} is {entry.get('kind')!r} but the tree has {kind}")
        if kind == "numeric":
            if categories is not None:
                raise _corrupt(f"numeric feature {name!r} has categories")
            fill, ignored = _fill(entry, name, None), _ignored(entry)
            parsed.append(Feature(name, fill=fill, ignored=ignored, time=_time(entry, name)))
            continue
        if not (
            isinstance(categories, list)
            and len(categories) == n_categories
            and all(isinstance(c, str) for c in categories)
        ):
            raise _corrupt(
                f"feature {name!r} needs a list of {n_categories} category names (strings)"
            )
        if len(set(categories)) != len(categories):
            raise _corrupt(f"feature {name!r} lists a category twice")
        if entry.get("ordered") is not ordered:
            raise _corrupt(f"feature {name!r}: the ordered flag disagrees with the tree")
        parsed.append(
            Feature(
                name,
                tuple(categories),
                ordered,
                fill=_fill(entry, name, categories),
                ignored=_ignored(entry),
            )
        )
    names = [f.name for f in parsed]
    if len(set(names)) != len(names):
        raise _corrupt("two features have the same name")
    target_dtype = _known_dtype(metadata.get("target_dtype"))
    missing = metadata.get("missing", "fractional")
    if not isinstance(missing, str):
        raise _corrupt(f"'missing' is {missing!r}")
    outputs: tuple[str, ...] = ()
    output_dtypes: tuple[str | None, ...] = ()
    if tree.n_outputs > 1:
        names = metadata.get("outputs")
        dtypes = metadata.get("output_dtypes")
        if not (
            isinstance(names, list)
            and len(names) == tree.n_outputs
            and all(isinstance(n, str) for n in names)
            and len(set(names)) == len(names)
        ):
            raise _corrupt(f"it needs {tree.n_outputs} distinct output names")
        if not (isinstance(dtypes, list) and len(dtypes) == tree.n_outputs):
            raise _corrupt(f"it needs {tree.n_outputs} output dtypes")
        outputs, output_dtypes = tuple(names), tuple(_known_dtype(d) for d in dtypes)
    return Schema(
        tuple(parsed),
        _field(metadata, "target", str),
        target_dtype,
        missing,
        outputs,
        output_dtypes,
        by_position=metadata.get("by_position") is True,
    )


def _known_dtype(name: Any) -> str | None:
    """A target dtype name this version knows ("Enum" or one of `_LABEL_DTYPES`), else None:
    the labels' own type decides."""
    from ..inputs.targets import _LABEL_DTYPES

    if isinstance(name, str) and (name == "Enum" or name in _LABEL_DTYPES):
        return name
    return None


def _time(entry: dict[str, Any], name: str) -> str | None:
    """A numeric feature's date, time or duration dtype (`Feature.time`), if it had one."""
    time = entry.get("time")
    if time is None:
        return None
    if not isinstance(time, str):
        raise _corrupt(f"feature {name!r}: 'time' is {time!r}")
    try:
        dtype_of(time)
    except ValueError as e:
        raise _corrupt(f"feature {name!r}: {e}") from None
    return time


def _fill(entry: dict[str, Any], name: str, categories: list[str] | None) -> float | str | None:
    """A feature's missing="impute_mean" value: a finite number, or one of its categories."""
    fill = entry.get("fill")
    if fill is None:
        return None
    if categories is None:
        if isinstance(fill, int | float) and not isinstance(fill, bool) and math.isfinite(fill):
            return float(fill)
    elif isinstance(fill, str) and fill in categories:
        return fill
    raise _corrupt(f"feature {name!r} has fill value {fill!r}")


def _ignored(entry: dict[str, Any]) -> bool:
    ignored = entry.get("ignored", False)
    if not isinstance(ignored, bool):
        raise _corrupt(f"feature {entry.get('name')!r} has ignored flag {ignored!r}")
    return ignored


def _classes(metadata: dict[str, Any], tree: _core.Tree) -> Classes | None:
    entry = metadata.get("classes")
    if tree.n_classes == 0:
        if entry is not None:
            raise _corrupt("a regression model with class labels")
        return None
    if tree.n_outputs == 1:
        return _labels(entry, tree.n_classes)
    if not isinstance(entry, list) or len(entry) != tree.n_outputs:
        raise _corrupt(f"it needs the class labels of each of its {tree.n_outputs} outputs")
    return [_labels(e, n) for e, n in zip(entry, tree.output_classes, strict=True)]


def _labels(entry: Any, n_classes: int) -> NDArray[Any]:
    """One output's class labels, `n_classes` of them."""
    if not isinstance(entry, dict):
        raise _corrupt("a classification model without class labels")
    dtype, values = entry.get("dtype"), entry.get("values")
    if not isinstance(values, list) or len(values) != n_classes:
        raise _corrupt(f"it needs {n_classes} class labels")
    scalar = all(isinstance(v, str | int | float) for v in values)
    if not scalar or len({(type(v), v) for v in values}) != len(values):
        raise _corrupt("class labels must be distinct strings, numbers or booleans")
    try:
        if dtype == "str" and all(isinstance(v, str) for v in values):
            return np.array(values, dtype=str)
        if dtype == "object":
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return out
        if isinstance(dtype, str) and dtype in _NUMERIC_LABELS:
            if any(isinstance(v, str) for v in values):
                raise ValueError("a string among numeric labels")
            return np.array(values, dtype=_NUMERIC_LABELS[dtype])
        if isinstance(dtype, str) and _TIME_LABELS.fullmatch(dtype):
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                raise ValueError("time labels are integer ticks")
            return np.array(values, dtype=np.int64).view(np.dtype(dtype))
    except (ValueError, OverflowError, TypeError) as error:
        raise _corrupt(f"class labels of dtype {dtype!r}: {error}") from None
    raise _corrupt(f"class labels of unknown dtype {dtype!r}")


def _trace(entry: Any) -> pl.DataFrame | None:
    if entry is None:
        return None
    if not isinstance(entry, list):
        raise _corrupt("the pruning trace is not a list of columns")
    series = []
    for column in entry:
        if not isinstance(column, dict):
            raise _corrupt("a pruning trace column is not an object")
        name, dtype = column.get("name"), column.get("dtype")
        values = column.get("values")
        if not (isinstance(name, str) and dtype in _TRACE_DTYPES and isinstance(values, list)):
            raise _corrupt(f"pruning trace column {name!r} is malformed")
        values = [_NON_FINITE.get(v, v) if isinstance(v, str) else v for v in values]
        try:
            series.append(pl.Series(name, values, dtype=_TRACE_DTYPES[dtype], strict=True))
        except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError) as error:
            raise _corrupt(f"pruning trace column {name!r}: {error}") from None
    if len({len(s) for s in series}) > 1:
        raise _corrupt("the pruning trace columns have different lengths")
    return pl.DataFrame(series)
