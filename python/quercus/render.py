"""The tree as indented text (`export_text`); the code is `quercus.explain.text`."""

from __future__ import annotations

from .explain.text import (
    child_name,
    export_text,
    missing_notes,
    surrogate_texts,
)
