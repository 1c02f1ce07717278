"""Serving a model without quercus: ONNX for onnxruntime and treelite for TL2cgen
(`quercus.export.serving` holds the code)."""

from __future__ import annotations

from .export.serving import (
    NotServableError,
    onnx_input,
    register_skl2onnx,
    to_onnx,
    to_treelite,
)

__all__ = ["onnx_input", "register_skl2onnx", "to_onnx", "to_treelite"]
