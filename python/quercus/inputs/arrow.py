"""A pyarrow Table or RecordBatch read for prediction as `rows.frame_rows` reads a Polars frame,
without making a Polars frame of it (which re-encodes every dictionary column's rows into
Polars' categories): numbers as NumPy views of their buffers, a dictionary column as its
indices with a map from its dictionary (a few hundred labels) to the fit's codes, text
views as a Polars String column's (`rows.text_views`), other text by its offsets
(`rows.text_offsets`), each label looked up by the core as it walks the rows.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .code_maps import UNSEEN, labels_map
from .rows import SMALL_FRAME, arrow_with_nulls, text_offsets, text_views
from .schema import Feature, Schema
from .values import in_place

if TYPE_CHECKING:
    from .._core import FrameColumn, FrameRows


def is_arrow_table(X: Any) -> bool:
    """Whether X is a pyarrow Table or RecordBatch; pyarrow is never imported unless the
    caller did."""
    pa = sys.modules.get("pyarrow")
    return pa is not None and isinstance(X, pa.Table | pa.RecordBatch)


def arrow_rows(table: Any, schema: Schema) -> FrameRows | None:
    """A pyarrow Table or RecordBatch as columns the core reads (`_core.FrameRows`), each
    feature's column found by name: float32 and float64 columns in place (a null or NaN is
    missing; a column with nulls or in several chunks is copied), integers as float64,
    dictionary columns of text as their indices through a map to the fit's codes (a null or
    a label the fit never saw is missing), text views as `rows.text_views` reads them,
    other text as `rows.text_offsets` does, booleans as codes 0 and 1. None when the
    Polars path must read the table (a feature absent or of another type: dates,
    decimals, ...; two columns of one name; imputed features), which also
    words any error, or when it reads it faster: a table of at most `SMALL_FRAME` rows,
    which it encodes value by value (`rows.small_frame`) where reading each column's
    dictionary here costs tens of µs."""
    features = schema.features
    if table.num_rows <= SMALL_FRAME or any(feature.fill is not None for feature in features):
        return None
    names = table.column_names
    where = {name: i for i, name in enumerate(names)}
    if len(where) != len(names):
        return None
    columns: list[FrameColumn] = []
    for feature in features:
        i = where.get(feature.name)
        if i is None:
            return None
        column = _chunks(table.column(i))
        read = _numbers(column, feature) if feature.categories is None else _codes(column, feature)
        if read is None:
            return None
        columns.append(read)
    return ("frame", columns, table)


def _chunks(column: Any) -> list[Any]:
    """A Table's column (a ChunkedArray) or a RecordBatch's (an Array) as its arrays."""
    return column.chunks if hasattr(column, "chunks") else [column]


def _numbers(chunks: list[Any], feature: Feature) -> FrameColumn | None:
    """A numeric column as float32 or float64 (nulls as NaN); None for a type the Polars
    path reads (dates and times, decimals, booleans, text)."""
    import pyarrow as pa

    kind = chunks[0].type
    if feature.time is not None or not (pa.types.is_floating(kind) or pa.types.is_integer(kind)):
        return None
    if pa.types.is_integer(kind) or kind.bit_width == 16:
        chunks = [chunk.cast(pa.float64()) for chunk in chunks]
    # A chunk without nulls is a view of its buffer, and so is one chunk with nulls (read
    # with its validity bitmap); the chunks of a column with nulls, as NaN (a copy).
    if len(chunks) == 1 and chunks[0].null_count:
        return ("numeric", *arrow_with_nulls(chunks[0]))
    parts = [chunk.to_numpy(zero_copy_only=False) for chunk in chunks]
    return ("numeric", in_place(parts[0] if len(parts) == 1 else np.concatenate(parts)))


def _codes(chunks: list[Any], feature: Feature) -> FrameColumn | None:
    """A categorical column as codes and a map to the fit's codes (or as text); None for a
    type the Polars path reads (numbers, a dictionary of numbers)."""
    import pyarrow as pa

    assert feature.categories is not None  # a categorical feature's column
    categories = feature.categories
    kind = chunks[0].type
    if pa.types.is_dictionary(kind) and _is_text(kind.value_type):
        read = []
        for chunk in chunks:
            coded = _dictionary_codes(chunk, categories)
            if coded is None:
                return None
            read.append(coded)
        if len(read) == 1:
            codes, code_map, nulls = read[0]
            return ("codes", codes, code_map, len(categories), *nulls)
        # Chunks may each have a dictionary of their own: each through its map, as one column.
        n = len(categories)
        parts = [_through(codes, code_map, n, nulls) for codes, code_map, nulls in read]
        return ("codes", np.concatenate(parts), None, len(categories))
    if pa.types.is_boolean(kind):  # a Boolean feature's categories: "false", "true"
        flags = (chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks)).cast(pa.uint8())
        code_map = labels_map(categories, ("false", "true"))
        if not flags.null_count:
            return ("codes", in_place(flags.to_numpy()), code_map, len(categories))
        values, bits, first = arrow_with_nulls(flags)
        return ("codes", values, code_map, len(categories), bits, first)
    if kind == pa.string_view():
        return text_views(chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks), categories)
    if _is_text(kind):
        return text_offsets(chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks), categories)
    return None


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


# A column's validity bitmap and the bit of its first row (None, 0: no null).
_Nulls = tuple[NDArray[np.uint8] | None, int]


def _dictionary_codes(
    chunk: Any, categories: tuple[str, ...]
) -> tuple[NDArray[np.unsignedinteger], NDArray[np.uint32] | None, _Nulls] | None:
    """A dictionary array's indices read as unsigned, in place, with the map from its
    dictionary to the fit's codes (`code_maps.labels_map`) and its validity bitmap with the bit of
    its first row (None, 0 without nulls: a null's index is whatever its slot holds); None
    for indices wider than 32 bits that do not fit 32."""
    import pyarrow as pa

    indices = chunk.indices
    if indices.type not in (pa.int8(), pa.int16(), pa.int32()):
        try:
            indices = indices.cast(pa.int32())
        except pa.ArrowInvalid:
            return None
    code_map = labels_map(categories, tuple(chunk.dictionary.to_pylist()))
    if not indices.null_count:
        return _unsigned(indices.to_numpy()), code_map, (None, 0)
    values, bits, first = arrow_with_nulls(indices)
    return _unsigned(values), code_map, (bits, first)


def _unsigned(indices: NDArray[np.signedinteger]) -> NDArray[np.unsignedinteger]:
    """Signed integer indices as the unsigned codes of their width, a view of their buffer."""
    return in_place(indices).view(f"u{indices.itemsize}")


def _through(
    codes: NDArray[np.unsignedinteger],
    code_map: NDArray[np.uint32] | None,
    n_categories: int,
    nulls: _Nulls,
) -> NDArray[np.uint32]:
    """Codes of a chunk as the fit's codes (without a map: they are), a code past the map or
    the categories, and a null, as `UNSEEN`."""
    fit = np.arange(n_categories, dtype=np.uint32) if code_map is None else code_map
    through = np.append(fit, np.uint32(UNSEEN)).take(codes, mode="clip")
    bits, first = nulls
    if bits is not None:
        valid = np.unpackbits(bits, bitorder="little")[first : first + len(codes)]
        through[valid == 0] = UNSEEN
    return through
