"""Serving a model without quercus: ONNX for onnxruntime and treelite for TL2cgen.

The public path of the serving exports; the code is in `quercus.export` (`servable`: what
one direction per node can express; `onnx`, `treelite`, and `skl2onnx`'s converter).
"""

from __future__ import annotations

from .export.onnx import to_onnx
from .export.servable import NotServableError, onnx_input
from .export.skl2onnx import register_skl2onnx
from .export.treelite import to_treelite

__all__ = ["onnx_input", "register_skl2onnx", "to_onnx", "to_treelite"]
