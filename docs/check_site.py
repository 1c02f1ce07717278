"""Open the built documentation in headless Chromium and check what a reader would see.

    python docs/check_site.py [SITE] [--screenshot PNG]

SITE is the built HTML (default docs/_build/html). The pages below are served over HTTP
from a local server and loaded by Chromium inside one checking page, whose script reads each
page's rendered DOM: the text and main column a reader sees (not blank), every image
(loaded and decoded by the browser, not a broken icon), every inline SVG tree (laid out at a
visible size), and every link. Links inside the site are then resolved against the files,
fragments included (`page.html#id` needs an element with that id). `--screenshot` saves the
Fig 4.3 gallery page as a PNG, for a person to look at.

Exit status 0 when every check passes, 1 with each failure listed. Without Chromium it says so
and exits 0: the build itself is still checked (warnings are errors), this only adds a browser.
"""

from __future__ import annotations

import argparse
import functools
import html
import http.server
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

HERE = Path(__file__).resolve().parent
# The home page, one API page, the gallery page of Zhou's Fig 4.3, the gallery's index (its
# thumbnails are images), a user-guide page of trees drawn at build time, the pictures page
# (PNG images), and the pages whose tables are generated from bench/results/ files.
FIG_43 = "auto_examples/plot_01_watermelon2_gains.html"
PAGES = (
    "index.html",
    "generated/quercus.DecisionTreeClassifier.html",
    FIG_43,
    "auto_examples/index.html",
    "user_guide/missing.html",
    "user_guide/pictures.html",
    "benchmarks.html",
    "fidelity.html",
    "optimal.html",
    "scale.html",
)
# Nodes of Fig 4.3 (texture, then root, color and surface below): its picture draws them all.
FIG_43_NODES = 14
CHECKER = "/__check__.html"

# Runs in the checking page: loads each page in an iframe (same origin, so its DOM is
# readable), waits for it to load and settle, and writes what it found as JSON into #result.
SCRIPT = """
const pages = %s;
async function inspect(path) {
  const frame = document.createElement("iframe");
  frame.style.width = "1280px"; frame.style.height = "1000px";
  document.body.appendChild(frame);
  await new Promise((done) => { frame.onload = done; frame.src = "/" + path; });
  await new Promise((done) => setTimeout(done, 1500));  // fonts, MathJax, theme scripts
  const doc = frame.contentDocument;
  const main = doc.querySelector("main") || doc.body;
  const box = main.getBoundingClientRect();
  return {
    path: path,
    title: doc.title,
    text: doc.body.innerText.trim().length,
    main: [box.width, box.height],
    height: doc.documentElement.scrollHeight,
    images: [...doc.images].map((i) => ({
      src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0,
      visible: i.getBoundingClientRect().width > 0 || i.closest("[hidden]") !== null})),
    trees: [...doc.querySelectorAll("div.quercus-tree svg, figure.quercus-tree svg")].map(
      (s) => { const r = s.getBoundingClientRect();
               return {width: r.width, height: r.height,
                       nodes: s.querySelectorAll("rect.node").length}; }),
    links: [...doc.querySelectorAll("a[href]")].map((a) => a.href),
  };
}
(async () => {
  const found = [];
  for (const path of pages) { found.push(await inspect(path)); }
  document.getElementById("result").textContent = JSON.stringify(found);
})();
"""


class _Site(http.server.SimpleHTTPRequestHandler):
    """The built site, plus the checking page at CHECKER."""

    checker = b""

    def do_GET(self) -> None:
        if self.path == CHECKER:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(self.checker)))
            self.end_headers()
            self.wfile.write(self.checker)
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the checks report
        pass


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _browser(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        chromium,
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))


def _check_links(site: Path, origin: str, report: dict[str, Any]) -> list[str]:
    """Internal links whose file (or fragment in it) does not exist."""
    problems = []
    pages = {}
    for link in sorted(set(report["links"])):
        parts = urlsplit(link)
        if f"{parts.scheme}://{parts.netloc}" != origin or parts.path == CHECKER:
            continue  # outside the site
        path = unquote(parts.path).lstrip("/") or "index.html"
        target = site / path
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            problems.append(f"{report['path']}: broken link {link} (no {path})")
            continue
        if parts.fragment and target.suffix == ".html":
            if target not in pages:
                pages[target] = _ids(target)
            if unquote(parts.fragment) not in pages[target]:
                problems.append(f"{report['path']}: broken link {link} (no #{parts.fragment})")
    return problems


def check(site: Path, screenshot: Path | None) -> list[str]:
    """Every failure found in the rendered pages (empty: all good)."""
    chromium = _chromium()
    assert chromium is not None
    _Site.checker = (
        '<!doctype html><meta charset="utf-8"><pre id="result"></pre><script>'
        + SCRIPT % json.dumps(list(PAGES))
        + "</script>"
    ).encode()
    handler = functools.partial(_Site, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    problems: list[str] = []
    try:
        with tempfile.TemporaryDirectory() as profile:
            result = _browser(
                chromium,
                Path(profile),
                "--virtual-time-budget=30000",
                "--run-all-compositor-stages-before-draw",
                "--window-size=1400,1100",
                "--dump-dom",
                origin + CHECKER,
            )
            found = re.search(r'<pre id="result">(.*?)</pre>', result.stdout, re.DOTALL)
            if found is None or not found.group(1).strip():
                return [f"Chromium returned no result: {result.stderr[-2000:]}"]
            reports = json.loads(html.unescape(found.group(1)))
            for report in reports:
                problems += _check_page(report)
                problems += _check_links(site, origin, report)
            if screenshot is not None:
                height = next(r["height"] for r in reports if r["path"] == FIG_43)
                _browser(
                    chromium,
                    Path(profile),
                    f"--screenshot={screenshot}",
                    f"--window-size=1280,{min(max(height, 800), 12000)}",
                    f"{origin}/{FIG_43}",
                )
                if not screenshot.is_file() or screenshot.stat().st_size < 10_000:
                    problems.append(f"no screenshot written to {screenshot}")
    finally:
        server.shutdown()
    return problems


def _check_page(report: dict[str, Any]) -> list[str]:
    """A page that is blank, shows a broken image or (Fig 4.3) lacks its tree."""
    path, problems = report["path"], []
    width, height = report["main"]
    print(
        f"{path}: '{report['title']}', {report['text']} characters, main column "
        f"{width:.0f} x {height:.0f} px, {len(report['images'])} images, "
        f"{len(report['trees'])} trees, {len(report['links'])} links"
    )
    if report["text"] < 200 or width < 300 or height < 300:
        problems.append(f"{path}: blank or nearly (text {report['text']}, main {width}x{height})")
    problems += [f"{path}: image not shown: {i['src']}" for i in report["images"] if not i["ok"]]
    for tree in report["trees"]:
        if tree["width"] < 100 or tree["height"] < 50:
            problems.append(
                f"{path}: a tree picture is laid out at {tree['width']}x{tree['height']}"
            )
    if path == FIG_43:
        nodes = [tree["nodes"] for tree in report["trees"]]
        if FIG_43_NODES not in nodes:
            problems.append(f"{path}: no picture of Fig 4.3's {FIG_43_NODES} nodes ({nodes})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", type=Path, default=HERE / "_build" / "html")
    parser.add_argument("--screenshot", type=Path, help="save the Fig 4.3 gallery page here")
    args = parser.parse_args(argv)
    if _chromium() is None:
        print("check_site: skipped: headless Chromium is not installed (apt-get install chromium)")
        return 0
    missing = [page for page in PAGES if not (args.site / page).is_file()]
    if missing:
        print(f"check_site: {args.site} lacks {', '.join(missing)}: build the site first")
        return 1
    problems = check(args.site, args.screenshot)
    for problem in problems:
        print(f"check_site: {problem}")
    if not problems:
        shot = f"; screenshot {args.screenshot}" if args.screenshot else ""
        print(f"check_site: {len(PAGES)} pages rendered, no blank page, broken image or link{shot}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
