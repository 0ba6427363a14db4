"""The course's diagrams, drawn as SVG from the engine's own numbers, and the layout of its graphs.

layout() places a recorded graph (microgpt.course.trace) for drawing: the site's widgets draw it in
the browser, and diagram_graph() draws it here. Each diagram in DIAGRAMS returns its SVG and the
keys of the legend it needs (the build's tools/mgsite/mgsite/graphs.py writes the legend and the figure
around it). The classes (ag-*) are styled by the site's docs/stylesheets/extra.css. Nothing here
is taught on the site.
"""

from __future__ import annotations

import functools
import html
import math
from collections.abc import Callable

from microgpt.course import trace as T
from microgpt.course.gradient_sizes import gradient_sizes

# geometry, in CSS pixels: the graphs are drawn at their natural size (never scaled down, so text
# stays 12-13 px) inside a container that scrolls sideways on narrow screens
CHAR_W, LINE_H, PAD, PAD_TOP, GAP_X, GAP_Y = 7.9, 17, 12, 26, 58, 28


def fmt(x: float) -> str:
    """A number as the widgets show it (docs/javascripts/widgets/format.js does the same)."""
    if float(x).is_integer():
        return str(int(x))
    s = f"{x:.4f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


# ---------------------------------------------------------------------------- layout
def _head(n: dict) -> str:
    return f"{n['label']} (constant)" if n["const"] else n["expr"]


def _widget_lines(n: dict) -> list[str]:  # the longest texts a widget's box must hold (it writes such lines)
    return [_head(n), f"data {fmt(n['data'])}", f"grad {fmt(n['grad'])}", "grad -0.0000"]


def layout(t: dict, lines: Callable[[dict], list[str]] = _widget_lines, nlines: int = 3) -> dict:
    """Add x, y (centre) to each node, a path and a label point to each edge, and width/height/node_w/node_h:
    leaves on the left, the root on the right; edges meeting a box at different heights; two edges
    between the same pair bent apart."""
    nodes = {n["id"]: n for n in t["nodes"]}
    node_w = round(max(len(s) for n in t["nodes"] for s in lines(n)) * CHAR_W + 18)
    node_h = nlines * LINE_H + 12
    users: dict[str, list[str]] = {i: [] for i in nodes}
    for e in t["edges"]:
        users[e["child"]].append(e["node"])
    col: dict[str, int] = {}
    for i in t["forward"]:  # children come first in forward order
        col[i] = 1 + max((col[c] for c in nodes[i]["children"]), default=-1)
    for i in nodes:  # a leaf sits just left of its first user
        if nodes[i]["leaf"] and users[i]:
            col[i] = min(col[u] for u in users[i]) - 1
    ncol = max(col.values()) + 1
    row: dict[str, float] = {}
    for c in range(ncol - 1, -1, -1):  # from the root leftwards, each column ordered under its users
        ids = [i for i in t["forward"] if col[i] == c]
        ids.sort(key=lambda i: sum(row.get(u, 0) for u in users[i]) / max(len(users[i]), 1))
        for k, i in enumerate(ids):
            row[i] = k - (len(ids) - 1) / 2
    top = min(row.values())
    nrow = max(row.values()) - top + 1
    for i, n in nodes.items():
        n["x"] = PAD + node_w / 2 + col[i] * (node_w + GAP_X)
        n["y"] = PAD_TOP + node_h / 2 + (row[i] - top) * (node_h + GAP_Y)

    dy: dict[tuple[int, str], float] = {}  # where each edge meets the box on either side
    for i in nodes:
        for end, other in (("node", "child"), ("child", "node")):
            ends = sorted((e for e in t["edges"] if e[end] == i), key=lambda e: (nodes[e[other]]["y"], e["index"]))
            step = min(14, (node_h - 16) / max(len(ends) - 1, 1))
            dy |= {(id(e), end): (k - (len(ends) - 1) / 2) * step for k, e in enumerate(ends)}
    pairs: dict[tuple[str, str], list[dict]] = {}
    for e in t["edges"]:
        pairs.setdefault((e["node"], e["child"]), []).append(e)
    for e in t["edges"]:
        a, b = nodes[e["child"]], nodes[e["node"]]
        x1, y1 = a["x"] + node_w / 2, a["y"] + dy[(id(e), "child")]
        x2, y2 = b["x"] - node_w / 2, b["y"] + dy[(id(e), "node")]
        same = pairs[(e["node"], e["child"])]
        bend = (same.index(e) - (len(same) - 1) / 2) * node_h if len(same) > 1 else 0
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2 + bend
        e["path"] = f"M{x1:g},{y1:g} Q{cx:g},{cy:g} {x2:g},{y2:g}"
        # the label sits on the curve's midpoint, nudged above it
        e["lx"], e["ly"] = (x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4 - 5
    t["node_w"], t["node_h"] = node_w, node_h
    t["width"] = round(2 * PAD + node_w + (ncol - 1) * (node_w + GAP_X))
    t["height"] = round(PAD_TOP + PAD + node_h + (nrow - 1) * (node_h + GAP_Y))
    return t


# ---------------------------------------------------------------------------- diagrams (SVG)
def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg class="autograd-svg" width="{width:g}" height="{height:g}" viewBox="0 0 {width:g} {height:g}" '
        f'role="img" aria-label="{html.escape(title, quote=True)}">{"".join(body)}</svg>'
    )


def _text(x: float, y: float, s: str, cls: str, anchor: str = "middle") -> str:
    return f'<text x="{x:g}" y="{y:g}" text-anchor="{anchor}" class="{cls}">{html.escape(s)}</text>'


def _box(x: float, y: float, w: float, h: float, lines: list[tuple[str, str]], cls: str = "") -> list[str]:
    """A node: a rounded box centred on x, y, with one (text, class) per line."""
    out = [
        f'<rect x="{x - w / 2:g}" y="{y - h / 2:g}" width="{w:g}" height="{h:g}" rx="7" class="{cls or "ag-node"}"/>'
    ]
    return out + [_text(x, y - h / 2 + 19 + LINE_H * k, s, c) for k, (s, c) in enumerate(lines)]


ARROWS = "<defs>{}</defs>".format(
    "".join(
        f'<marker id="ag-d-arrow{suffix}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="10" markerHeight="10" '
        f'markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="{cls}"/></marker>'
        for suffix, cls in (("", "ag-arrowhead"), ("-back", "ag-arrowhead ag-arrowhead--back"))
    )
)
BACK_EDGE = 'class="ag-edge ag-edge--back" marker-start="url(#ag-d-arrow-back)"'
FORWARD_EDGE = 'class="ag-edge" marker-end="url(#ag-d-arrow)"'
FLOW_EDGE = 'class="ag-edge ag-edge--back" marker-end="url(#ag-d-arrow-back)"'  # a path drawn the way grad flows
SHOWN = {"data": "ag-data", "grad": "ag-grad-set"}  # the class of each number a diagram's box shows
# The graph diagrams: a preset, then per panel its heading and the numbers its boxes show. A panel
# that shows grad draws it flowing back, each arrow labelled with its local gradient.
GRAPHS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "forward-backward": (
        "linear",
        [
            ("forward pass: data, from the leaves to {root}", "data"),
            ("backward pass: grad, from {root} back to the leaves", "grad"),
        ],
    ),
    "forward-graph": ("relu", [("forward pass: {title}, each node made from its children", "data")]),
    "shared": ("shared", [("backward pass: grad from {root} to x; u collects from s and t", "data grad")]),
}


def diagram_graph(name: str) -> tuple[str, list[str]]:
    """A preset's graph in one or more panels, one under the other; its name says every number it shows."""
    preset, panels = GRAPHS[name]
    kinds = " ".join(shown for _, shown in panels).split()

    def lines(n: dict) -> list[str]:  # every text any panel writes in the box: all panels' boxes are as wide
        return [_head(n), *(f"{k} {fmt(n[k])}" for k in kinds)]

    t = layout(T.trace_preset(preset), lines, 1 + max(len(shown.split()) for _, shown in panels))
    body, title, legend = [ARROWS], [f"The graph of {t['title']}"], []
    for p, (heading, shown) in enumerate(panels):
        heading, dy, back = heading.format(**t), 24 + p * (t["height"] + 24), "grad" in shown
        # the key for the arrows' numbers shows one of this graph's own, its first arrow's
        legend += ["backward", f"local {fmt(t['edges'][0]['local_grad'])}"] if back else ["forward"]
        body += [_text(PAD, dy - 7, heading, "ag-heading", "start"), f'<g transform="translate(0,{dy})">']
        for e in t["edges"]:
            body.append(f'<path d="{e["path"]}" {BACK_EDGE if back else FORWARD_EDGE}/>')
            if back:
                body.append(_text(e["lx"], e["ly"], fmt(e["local_grad"]), "ag-edge-label"))
        boxes = []
        for n in t["nodes"]:
            shows = [(_head(n), "ag-expr"), *((f"{k} {fmt(n[k])}", SHOWN[k]) for k in shown.split())]
            body += _box(n["x"], n["y"], t["node_w"], t["node_h"], shows, "ag-node ag-node--const" * n["const"])
            boxes.append(", ".join(s for s, _ in shows))
        body.append("</g>")
        title.append(f"{heading}: {'; '.join(boxes)}")
    legend += ["const"] * any(n["const"] for n in t["nodes"])
    height = len(panels) * (t["height"] + 24)  # each panel: its heading, 24 px high, then its graph
    return _svg(t["width"], height, ". ".join(title) + ".", body), legend


def diagram_local_rules() -> tuple[str, list[str]]:
    """The + node and the · node of a · b + d, each with its children: what each child's grad receives."""
    t = T.trace_preset("linear")
    n = {x["id"]: x for x in t["nodes"]}
    log = {(s["node"], s["child"]): s for s in t["backward"]}
    w_node = round(max(len(x["expr"]) for x in t["nodes"]) * CHAR_W + 18)
    w, h, box_h = 2 * PAD + 2 * w_node + 130, 190, 2 * LINE_H + 14  # 130: room for a label such as "local b = -3"
    body = [ARROWS]
    times = next(x["id"] for x in t["nodes"] if x["op"] == "*")
    panels = [(t["root"], "+ copies: each child gets 1 · grad"), (times, "· swaps: each gets the other's data · grad")]
    w = max(w, 2 * PAD + round(max(len(heading) for _, heading in panels) * CHAR_W))  # room for the longer heading
    x2 = w - PAD - w_node  # where the arrows meet the node on the right
    for p, (vid, heading) in enumerate(panels):
        v, oy = n[vid], p * h
        body.append(_text(PAD, oy + 17, heading, "ag-heading", "start"))
        for k, cid in enumerate(v["children"]):
            s = log[(vid, cid)]
            x1, y1, y2 = PAD + w_node, oy + 62 + k * 96, oy + h / 2 + 10 + (k - 0.5) * 14
            body.append(f'<path d="M{x1:g},{y1:g} L{x2:g},{y2:g}" {BACK_EDGE}/>')
            other = n[v["children"][1 - k]]["label"]
            why = "1" if v["op"] == "+" else f"{other} = {fmt(s['local_grad'])}"
            body.append(_text((x1 + x2) / 2, (y1 + y2) / 2 + (22 if k else -10), f"local {why}", "ag-edge-label"))
            grad = f"+= {fmt(s['local_grad'] * s['upstream'])}"
            body += _box(PAD + w_node / 2, y1, w_node, box_h, [(n[cid]["label"], "ag-expr"), (grad, "ag-grad-set")])
        lines = [(v["expr"], "ag-expr"), (f"grad = {fmt(v['grad'])}", "ag-grad-set")]
        body += _box(x2 + w_node / 2, oy + h / 2 + 10, w_node, box_h, lines)
    title = (
        f"The two local rules on {t['title']}: the + node passes its grad unchanged to both children; "
        "the · node sends each child the other child's data times its grad."
    )
    return _svg(w, 2 * h, title, body), ["backward"]


def diagram_grad_bars() -> tuple[str, list[str]]:
    """One bar per gradient of a · b + d, left of the axis if negative, its length the gradient's size."""
    t = T.trace_preset("linear")
    big = max(abs(n["grad"]) for n in t["nodes"])
    w, bar_h, gap, label_w = 340, 24, 12, 116
    mid, height = label_w + (w - label_w) / 2, len(t["nodes"]) * (bar_h + gap)
    scale = ((w - label_w) / 2 - 4) / big
    body = [f'<line x1="{mid:g}" y1="0" x2="{mid:g}" y2="{height:g}" class="ag-axis"/>']
    for k, n in enumerate(t["nodes"]):
        y, g = k * (bar_h + gap) + gap / 2, n["grad"]
        body.append(_text(4, y + bar_h * 0.7, f"{n['label']}.grad = {fmt(g)}", "ag-bar-label", "start"))
        body.append(
            f'<rect x="{min(mid, mid + g * scale):g}" y="{y:g}" width="{abs(g) * scale:g}" height="{bar_h}" rx="3" '
            f'class="ag-bar {"ag-bar--neg" if g < 0 else "ag-bar--pos"}"/>'
        )
    title = (
        f"Bars of each gradient of {t['title']}: left of the axis is negative, right is positive, "
        f"length is the size of the effect on {t['root']}."
    )
    return _svg(w, height, title, body), []


def sig3(x: float) -> str:
    """A positive size with three significant digits, as the gradient-flow picture shows it."""
    return f"{x:.3g}"


def diagram_gradient_flow() -> tuple[str, list[str]]:
    """The transformer block from the embeddings (top) to the loss (bottom), one row per place, with the size of
    the engine's gradient there after the first training step (gradient_sizes): a number and a log-scale bar.
    The residual stream runs down the left edge; the two branches are indented beside it."""
    places = gradient_sizes()
    w, row_h, top = 364, 22, 40
    bar_x, bar_w, lo, hi = 184, 104, -4, 1  # the bars' axis: 10**lo to 10**hi
    spine, side = 9, 21  # x of the residual stream's line and of a branch's line
    per_decade = bar_w / (hi - lo)
    y = {p.name: top + k * row_h + row_h / 2 for k, p in enumerate(places)}
    height = top + len(places) * row_h + 6
    body = [ARROWS, _text(4, 14, "size of the gradient (log scale)", "ag-heading", "start")]
    for e in range(lo, hi + 1):
        x = bar_x + (e - lo) * per_decade
        body.append(f'<line x1="{x:g}" y1="22" x2="{x:g}" y2="{height - 4:g}" class="ag-grid"/>')
        if e in (-3, -1, 1):
            body.append(_text(x, 34, fmt(10.0**e), "ag-edge-label"))
    # the gradient's way up: the stream's line, and each branch leaving it at its add and rejoining it below
    body.append(f'<path d="M{spine},{y["loss"] - 6:g} L{spine},{y["wte"] - 4:g}" {FLOW_EDGE}/>')
    for first, last, add, into in (("attn_in", "attn_out", "x1", "x0"), ("mlp_in", "mlp_out", "x2", "x1")):
        d = f"M{spine},{y[add]:g} L{side},{y[last] + 4:g} L{side},{y[first] - 4:g} L{spine + 2},{y[into] + 5:g}"
        body.append(f'<path d="{d}" {FLOW_EDGE}/>')
    said = []
    for p in places:
        yy, x0 = y[p.name], (side + 7 if p.branch else spine + 7)
        body.append(_text(x0, yy + 4.5, p.label, "ag-data" if p.kind == "matrix" else "ag-expr", "start"))
        length = max(2.0, (math.log10(max(p.norm, 10.0**lo)) - lo) * per_decade)
        shade = "matrix" if p.kind == "matrix" else "vector"  # the loss, a scalar, is drawn like a vector
        bar = f'class="ag-bar ag-bar--{shade}"'
        body.append(f'<rect x="{bar_x}" y="{yy - 6:g}" width="{length:.1f}" height="12" rx="2" {bar}/>')
        body.append(_text(w - 4, yy + 4.5, sig3(p.norm), "ag-bar-label", "end"))
        said.append(f"{p.label}{' (weight matrix)' if p.kind == 'matrix' else ''}: {sig3(p.norm)}")
    title = (
        "Where the gradient goes in the transformer block, and how large it is, after backward() on the first "
        "training step (the square root of the sum of squares of each .grad, over all positions), from the "
        "embeddings at the top to the loss at the bottom; it flows up, along the residual stream and through "
        "the attention and MLP branches: " + "; ".join(said) + "."
    )
    return _svg(w, height, title, body), ["flow", "vector-bar", "matrix-bar", "log-bar"]


DIAGRAMS: dict[str, Callable[[], tuple[str, list[str]]]] = {
    **{name: functools.partial(diagram_graph, name) for name in GRAPHS},
    "local-rules": diagram_local_rules,
    "grad-bars": diagram_grad_bars,
    "gpt-gradient-flow": diagram_gradient_flow,
}
