"""SciPy sparse inputs, never densified: CSC columns at fit, CSR rows at predict."""

from __future__ import annotations

import itertools
import sys
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from .schema import Schema
from .values import check_not_empty, numeric_column

if TYPE_CHECKING:
    from .._core import Column, CsrRows


def check_numeric_width(width: int, schema: Schema) -> None:
    """A NumPy or sparse X must have the fit's features, all numeric."""
    features = schema.features
    if width != len(features):
        raise ValueError(
            f"X has {width} features, but quercus is expecting {len(features)} "
            "features as input (as many as at fit)"
        )
    for feature in features:
        if feature.kind != "numeric":
            raise TypeError(
                f"column {feature.name!r} was categorical at fit; pass a Polars DataFrame"
            )


def is_sparse(X: Any) -> bool:
    """Whether X is a SciPy sparse matrix or array. SciPy is not imported: a sparse X means
    it was."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(X))


def compressed(X: Any, layout: Literal["csc", "csr"]) -> Any:
    """A sparse X as a canonical SciPy CSC (fit: the core reads columns) or CSR (predict:
    rows) matrix of float64: indices sorted, duplicates summed as `X.toarray()` sums them.
    Never densified, and the caller's matrix is left as it was (a copy is made when it must
    change). Any SciPy format is taken (COO, DOK, LIL, ... convert in O(stored values))."""
    if len(X.shape) != 2:
        raise ValueError(f"X must be 2-D (rows x features), got shape {X.shape}")
    check_not_empty(X.shape)
    if X.dtype.kind == "c":  # SciPy's other dtypes are all numbers or bool
        raise ValueError(f"Complex data not supported: X has dtype {X.dtype}")
    matrix = X.tocsc() if layout == "csc" else X.tocsr()
    if matrix.dtype != np.float64:
        matrix = matrix.astype(np.float64)
    if not matrix.has_canonical_format:
        matrix = matrix.copy()
        matrix.sum_duplicates()
    return matrix


def _check_sparse_values(matrix: Any, names: list[str]) -> None:
    """No stored value may be NaN (a sparse X cannot mark missing values: scikit-learn refuses
    them too, with this message) or infinite; the first one is named by column and row."""
    bad = np.flatnonzero(~np.isfinite(matrix.data))
    if not bad.size:
        return
    major = np.searchsorted(matrix.indptr, bad, side="right") - 1
    minor = matrix.indices[bad]
    columns, rows = (major, minor) if matrix.format == "csc" else (minor, major)
    first = np.lexsort((rows, columns))[0]  # the first column with one, at its first row
    column, row = names[columns[first]], int(rows[first])
    if np.isnan(matrix.data[bad[first]]):
        raise ValueError(
            f"Input X contains NaN (column {column!r}, row {row}): a sparse X cannot hold "
            "missing values, as in scikit-learn; pass it dense (X.toarray()), where NaN "
            "means missing"
        )
    raise ValueError(f"column {column!r} has an infinite value at row {row}")


def _indices(indices: NDArray[np.integer]) -> NDArray[np.uint32]:
    """SciPy's int32 (or int64) indices as the core's uint32, viewed in place when int32
    (valid indices are not negative; the core checks their range)."""
    if indices.dtype == np.int32:
        return indices.view(np.uint32)
    return indices.astype(np.uint32)


def sparse_columns(matrix: Any, names: list[str]) -> list[Column]:
    """A canonical CSC matrix as the core's sparse columns: each names its span of the
    matrix's arrays, which the core borrows once (no copy of int32 indices or float64
    values, and no NumPy view per column)."""
    _check_sparse_values(matrix, names)
    rows, values, n_rows = _indices(matrix.indices), matrix.data, matrix.shape[0]
    bounds = matrix.indptr.tolist()
    return [
        ("sparse", rows, values, start, stop, n_rows) for start, stop in itertools.pairwise(bounds)
    ]


def sparse_rows(X: Any, schema: Schema) -> CsrRows:
    """A sparse X for prediction: CSR arrays the core reads row by row (`_core.CsrRows`)."""
    matrix = compressed(X, "csr")
    check_numeric_width(matrix.shape[1], schema)
    return _csr_rows(matrix, schema.names)


def tree_rows(X: Any) -> CsrRows:
    """A sparse X given to a fitted `tree_` (scikit-learn's `Tree.apply` and `decision_path`
    take CSR): its CSR arrays, columns named by position (the core checks the width)."""
    matrix = compressed(X, "csr")
    return _csr_rows(matrix, [str(j) for j in range(matrix.shape[1])])


def tree_columns(X: Any) -> list[Column]:
    """A NumPy or SciPy sparse X given to a fitted `tree_`'s `decision_path` (scikit-learn's
    `Tree` takes both): its numeric or sparse columns, named by position (never densified)."""
    if is_sparse(X):
        matrix = compressed(X, "csc")
        return sparse_columns(matrix, [str(j) for j in range(matrix.shape[1])])
    array = np.asarray(X, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"X must be 2-D (rows x features), got shape {array.shape}")
    return [numeric_column(str(j), array[:, j]) for j in range(array.shape[1])]


def _csr_rows(matrix: Any, names: list[str]) -> CsrRows:
    _check_sparse_values(matrix, names)
    indptr = matrix.indptr
    indptr = indptr.view(np.uint64) if indptr.dtype == np.int64 else indptr.astype(np.uint64)
    return ("csr", indptr, _indices(matrix.indices), matrix.data, matrix.shape[1])
