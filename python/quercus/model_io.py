"""quercus's model format, written and read (`quercus.export.model_io` holds the code; the
layout is docs/model-format.md)."""

from __future__ import annotations

from .export.model_io import (
    FORMAT,
    METADATA_VERSION,
    Stored,
    read,
    save,
    to_bytes,
)
