"""Two directives the documentation runs at build time, so that a page cannot go stale.

``.. quercus-tree::`` executes its Python content, shows it as a code block and draws the
model it leaves in ``model`` with ``model.to_svg()``: the user guide's pictures of where
rows go are grown from the code printed beside them, and a renamed parameter fails the build
(warnings are errors).

``.. quercus-cli::`` prints ``quercus --help`` and each subcommand's help from the parser the
command line itself uses, so the CLI reference lists exactly the options it accepts.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


class QuercusTree(SphinxDirective):
    """Run the content, show it, and draw ``model`` (or the variable ``:name:`` names)."""

    has_content = True
    option_spec: ClassVar[dict[str, Any]] = {
        "name": directives.unchanged,
        "width": directives.positive_int,
        "caption": directives.unchanged,
        "hide-code": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        namespace: dict[str, Any] = {}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, self.get_source_info()[0] or "<quercus-tree>", "exec"), namespace)
        name = self.options.get("name", "model")
        if name not in namespace:
            raise self.error(f"quercus-tree: the code leaves no variable {name!r} to draw")
        svg = namespace[name].to_svg(width=self.options.get("width", 720))
        result: list[nodes.Node] = []
        if "hide-code" not in self.options:
            block = nodes.literal_block(code, code, language="python")
            result.append(block)
        if printed.getvalue():
            text = printed.getvalue().rstrip("\n")
            result.append(nodes.literal_block(text, text, classes=["quercus-output"]))
        html = f'<div class="quercus-tree">{svg}</div>'
        if "caption" in self.options:
            html = f'<figure class="quercus-tree">{svg}<figcaption>{self.options["caption"]}'
            html += "</figcaption></figure>"
        result.append(nodes.raw("", html, format="html"))
        return result


class QuercusCli(SphinxDirective):
    """The command line's help texts, one literal block per command."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from quercus.__main__ import _parser

        parser = _parser()
        commands = next(a for a in parser._actions if a.dest == "command")
        result: list[nodes.Node] = []
        for title, command in [("quercus", parser), *commands.choices.items()]:
            heading = title if command is parser else f"quercus {title}"
            result.append(nodes.rubric(heading, heading, ids=[f"cli-{title}"]))
            with _columns(88):  # argparse wraps to the terminal's width; the page's is fixed
                text = command.format_help().rstrip("\n")
            result.append(nodes.literal_block(text, text, language="none"))
        return result


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("quercus-tree", QuercusTree)
    app.add_directive("quercus-cli", QuercusCli)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
