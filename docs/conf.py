"""Sphinx configuration of quercus's documentation site.

Build it with `python -m sphinx -E -W --keep-going -b html docs docs/_build/html` (the
README's command; `pip install -e ".[docs]"` first): warnings are errors and the gallery
(docs/examples, the source texts' worked examples) is executed, so a broken example or a
stale parameter name fails the build. `python docs/check_site.py` then opens the built pages
in headless Chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path

import quercus

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "quercus"
author = "the quercus developers"
copyright = "2026, the quercus developers"
release = version = quercus.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "quercus_docs",  # docs/_ext: trees drawn from code at build time, the CLI's help
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "examples/README.rst", "check_site.py"]
templates_path = ["_templates"]

# API reference: one page per public name, generated from the docstrings (numpydoc style).
autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Every parameter, return value and example documented (EX01: an Examples section, which
# tests/test_doctests.py runs). Fitted attributes (trailing underscore) are properties whose
# one-line docstrings the class pages list; scikit-learn's metadata-routing methods are its own.
numpydoc_validation_checks = {"PR01", "PR02", "RT01", "EX01", "GL08"}
numpydoc_validation_exclude = {
    r"\._?[a-z0-9_]+_$",
    r"\.criterion$",
    r"\.RuleSet\.(regression|target)$",  # properties, listed in RuleSet's Attributes
    r"\.(get_metadata_routing|set_\w+_request)$",
    r"\.__init__$",
}

myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # every example is run
    "image_scrapers": (),  # pictures are quercus's own SVGs, shown through _repr_html_
    # The default resets matplotlib between examples and so imports it; the docs do not
    # install it (CI failed on a machine without it).
    "reset_modules": (),
    "capture_repr": ("_repr_html_", "__repr__"),
    "remove_config_comments": True,
    "abort_on_example_error": True,
    # Run every example on every build, changed or not (they take about a second together):
    # an example whose file did not change can still break when quercus changes.
    "run_stale_examples": True,
    "download_all_examples": False,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "pydata_sphinx_theme"
html_title = "quercus"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
html_css_files = ["quercus.css"]
