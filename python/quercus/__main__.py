"""Command line: `python -m quercus demo` (also installed as the `quercus` script)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__, datasets
from .tree import DecisionTreeClassifier


class _Parser(argparse.ArgumentParser):
    """Reports usage errors as one line, like every other error of this command."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _demo(dataset: str) -> None:
    """Fit the three classic algorithms and print their trees, as the textbooks do."""
    features, target = datasets.load(dataset, return_X_y=True)
    for algorithm in ("id3", "c4.5", "cart"):
        model = DecisionTreeClassifier(algorithm=algorithm).fit(features, target)
        print(f"== {algorithm} tree on {dataset} ==")
        print(model.export_text())
        if algorithm == "id3":
            print("\nRules:")
            print(model.export_rules())
        print(f"\nTraining accuracy: {model.score(features, target):.3f}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 on any error)."""
    parser = _Parser(prog="quercus", description="Decision trees as the textbooks define them.")
    parser.add_argument("--version", action="version", version=f"quercus {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="fit ID3, C4.5 and CART on a bundled data set")
    demo.add_argument(
        "--dataset", default="watermelon3", help="one of: " + ", ".join(datasets.names())
    )
    args = parser.parse_args(argv)
    try:
        _demo(args.dataset)
    except Exception as error:  # any failure is reported as one line, never a traceback
        print(f"quercus: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
