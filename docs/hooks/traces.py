"""Build-time step for the interactive graphs: every number they show comes from microgpt.trace.

A page asks for a widget with one line of raw HTML on its own, surrounded by blank lines:

    <div class="autograd-widget" data-preset="diamond"></div>      step-through widget (any preset)
    <div class="autograd-playground"></div>                       visit-order playground (diamond)
    <div class="autograd-check" data-question="diamond-a"></div>  self-check (see QUESTIONS)
    <div class="autograd-diagram" data-diagram="local-rules"></div>   forward-backward | local-rules | grad-bars

After the page is rendered (`on_page_content`) each marker is replaced by its HTML, with the traces
embedded as JSON in a data attribute; the scripts in docs/javascripts/widgets/ only draw and animate
them. Diagrams are complete SVG generated here. An unknown widget, preset or question fails the build.
"""

from __future__ import annotations

import html
import json
import re

from mkdocs.exceptions import PluginError

from microgpt import trace as T

MARKER = re.compile(r'<div class="autograd-(?P<kind>[a-z]+)"(?P<attrs>(?:\s+data-[a-z-]+="[^"]*")*)\s*>\s*</div>')
ATTR = re.compile(r'data-(?P<k>[a-z-]+)="(?P<v>[^"]*)"')
STEPPER_PRESETS = ["fab", "relu", "neuron", "square", "diamond", "linear"]
COL, ROW, NODE_W, NODE_H, PAD = 165, 78, 124, 56, 16


def fmt(x: float) -> str:
    """A number as the widgets show it (docs/javascripts/widgets/format.js does the same)."""
    if float(x).is_integer():
        return str(int(x))
    s = f"{x:.4f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def layout(t: dict, col_w: float = COL) -> dict:
    """Add x, y (centre of each node) and width, height: leaves on the left, the root on the right."""
    nodes = {n["id"]: n for n in t["nodes"]}
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
        n["x"] = PAD + NODE_W / 2 + col[i] * col_w
        n["y"] = PAD + NODE_H / 2 + (row[i] - top) * ROW
    t["width"] = 2 * PAD + NODE_W + (ncol - 1) * col_w
    t["height"] = 2 * PAD + NODE_H + (nrow - 1) * ROW
    return t


def traced(name: str) -> dict:
    return layout(T.preset(name))


def _attr_json(obj) -> str:
    return html.escape(json.dumps(obj, separators=(",", ":")), quote=True)


def _grads(name: str) -> dict[str, float]:
    return {n["id"]: n["grad"] for n in T.preset(name)["nodes"]}


def _datas(name: str) -> dict[str, float]:
    return {n["id"]: n["data"] for n in T.preset(name)["nodes"]}


# ---------------------------------------------------------------------------- self-checks
def _questions() -> dict[str, dict]:
    """Each question's answer is a grad read from a trace; the explanation is built from the same trace."""
    f, fd = _grads("fab"), _datas("fab")
    o, od = _grads("neuron"), _datas("neuron")
    d, dd = _grads("diamond"), _datas("diamond")
    ca = next(e["local_grad"] for e in T.preset("diamond")["edges"] if (e["node"], e["child"]) == ("c", "a"))
    return {
        "fab-a": dict(
            preset="fab",
            node="a",
            prompt=f"With a = {fmt(fd['a'])}, b = {fmt(fd['b'])}, c = {fmt(fd['c'])} "
            "and f = (a + b) · c, what is ∂f/∂a?",
            explain=f"f = e · c sends e.grad = c = {fmt(fd['c'])} (multiplication swaps); e = a + b copies "
            f"it to a unchanged (addition distributes): ∂f/∂a = {fmt(f['a'])}.",
        ),
        "fab-b": dict(
            preset="fab",
            node="b",
            prompt="Same graph: what is ∂f/∂b?",
            explain=f"The + node gives b exactly what it gives a, e.grad = {fmt(f['e'])}: ∂f/∂b = {fmt(f['b'])}.",
        ),
        "neuron-w1": dict(
            preset="neuron",
            node="w1",
            prompt="For the tanh neuron, what is ∂o/∂w1?",
            explain=f"∂o/∂n = 1 − tanh²(n) = {fmt(o['n'])}; the two + nodes copy it to x1w1; "
            f"x1w1 = x1 · w1 swaps, so w1 gets x1 · {fmt(o['x1w1'])} = {fmt(od['x1'])} · "
            f"{fmt(o['x1w1'])} = {fmt(o['w1'])}.",
        ),
        "diamond-a": dict(
            preset="diamond",
            node="a",
            prompt=f"Diamond a = {fmt(dd['a'])}, b = a + 1, c = 3a, d = b · c: what is ∂d/∂a?",
            explain=f"d = b · c gives b.grad = c = {fmt(dd['c'])} and c.grad = b = {fmt(dd['b'])}. "
            f"Through b, a receives 1 · {fmt(d['b'])}; "
            f"through c it receives {fmt(ca)} · {fmt(d['c'])}. "
            f"The += adds both paths: {fmt(d['b'])} + {fmt(ca * d['c'])} = {fmt(d['a'])}.",
        ),
    }


def render_check(key: str) -> str:
    qs = _questions()
    if key not in qs:
        raise PluginError(f"autograd-check: unknown question {key!r}; choose from {', '.join(qs)}")
    q = qs[key]
    answer = _grads(q["preset"])[q["node"]]
    uid = f"autograd-check-{key}"
    return (
        f'<form class="autograd-check" data-question="{key}" data-answer="{answer!r}" '
        f'data-explain="{html.escape(q["explain"], quote=True)}" novalidate>'
        f'<p class="autograd-check__title">Check yourself</p>'
        f'<label for="{uid}">{html.escape(q["prompt"])}</label> '
        f'<input id="{uid}" type="text" inputmode="decimal" autocomplete="off" size="8"> '
        f'<button type="submit" class="md-button">Check</button>'
        f'<p class="autograd-check__feedback" role="status" aria-live="polite"></p>'
        f"</form>"
    )


# ---------------------------------------------------------------------------- diagrams (SVG)
def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg class="autograd-svg" viewBox="0 0 {width:g} {height:g}" role="img" '
        f'aria-label="{html.escape(title, quote=True)}"><title>{html.escape(title)}</title>{"".join(body)}</svg>'
    )


def _text(x, y, s, cls="", anchor="middle") -> str:
    return f'<text x="{x:g}" y="{y:g}" text-anchor="{anchor}" class="{cls}">{html.escape(s)}</text>'


def _box(n: dict, lines: list[tuple[str, str]], dx: float = 0, cls: str = "") -> list[str]:
    x, y = n["x"] + dx, n["y"]
    out = [
        f'<rect x="{x - NODE_W / 2:g}" y="{y - NODE_H / 2:g}" width="{NODE_W}" height="{NODE_H}" rx="8" '
        f'class="ag-node {cls}"/>'
    ]
    for k, (s, c) in enumerate(lines):
        out.append(_text(x, y - NODE_H / 2 + 17 + 16 * k, s, c))
    return out


def _edge(a: dict, b: dict, dx: float, label: str, backward: bool) -> list[str]:
    """An arrow between child a and node b; forward points right, backward points left."""
    x1, x2, y1, y2 = a["x"] + NODE_W / 2 + dx, b["x"] - NODE_W / 2 + dx, a["y"], b["y"]
    if backward:
        x1, x2, y1, y2 = x2, x1, y2, y1
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    out = [
        f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" class="ag-edge" '
        f'marker-end="url(#ag-arrow-{"b" if backward else "f"})"/>'
    ]
    if label:
        out.append(_text(mx, my - 5, label, "ag-edge-label"))
    return out


ARROWS = (
    '<defs><marker id="ag-arrow-f" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
    'orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="ag-arrowhead"/></marker>'
    '<marker id="ag-arrow-b" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
    'orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="ag-arrowhead ag-arrowhead--back"/></marker>'
    "</defs>"
)


def diagram_forward_backward() -> str:
    t = layout(T.preset("linear"), col_w=215)
    nodes = {n["id"]: n for n in t["nodes"]}
    gap = 40
    body = [
        ARROWS,
        _text(t["width"] / 2, 16, "forward: data, leaves → root", "ag-heading"),
        _text(t["width"] * 1.5 + gap, 16, "backward: grad, root → leaves", "ag-heading"),
    ]
    for panel, dx in (("f", 0), ("b", t["width"] + gap)):
        for e in t["edges"]:
            a, b = nodes[e["child"]], nodes[e["node"]]
            body += _edge(a, b, dx, "" if panel == "f" else f"local {fmt(e['local_grad'])}", panel == "b")
        for n in t["nodes"]:
            if panel == "f":
                body += _box(n, [(n["expr"], "ag-expr"), (f"data {fmt(n['data'])}", "ag-data")], dx)
            else:
                body += _box(n, [(n["label"], "ag-expr"), (f"grad {fmt(n['grad'])}", "ag-grad")], dx, "ag-node--back")
    return _svg(
        2 * t["width"] + gap,
        t["height"] + 24,
        "The graph of L = a · b + c twice: the forward pass fills data from the leaves to L, "
        "the backward pass fills grad from L back to the leaves.",
        [f'<g transform="translate(0,24)">{"".join(body[3:])}</g>', *body[:3]],
    )


def diagram_local_rules() -> str:
    t = T.preset("linear")
    n = {x["id"]: x for x in t["nodes"]}
    log = {(s["node"], s["child"]): s for s in t["backward"]}
    w, h = 400, 190
    body = [ARROWS]
    panels = [("L", "+ distributes: each child gets 1 · G", 0), ("d", "· swaps: each gets the other's data · G", w)]
    for vid, heading, ox in panels:
        v = n[vid]
        kids = v["children"]
        node = {"x": ox + w - 80, "y": h / 2 + 10}
        body.append(_text(ox + w / 2, 16, heading, "ag-heading"))
        body += _box(node, [(v["expr"], "ag-expr"), (f"G = grad {fmt(v['grad'])}", "ag-grad")])
        for k, cid in enumerate(kids):
            c = n[cid]
            s = log[(vid, cid)]
            child = {"x": ox + 80, "y": 60 + k * 100}
            why = "1" if v["op"] == "+" else f"{n[kids[1 - k]]['label']} = {fmt(s['local_grad'])}"
            body += _edge(child, node, 0, "", True)
            body += _box(child, [(c["label"], "ag-expr"), (f"+= {fmt(s['local_grad'] * s['upstream'])}", "ag-grad")])
            mid_y = (child["y"] + node["y"]) / 2 + (18 if k else -12)
            body.append(_text((child["x"] + node["x"]) / 2, mid_y, f"local = {why}", "ag-edge-label"))
    return _svg(
        2 * w,
        h + 10,
        "The two local rules on L = a · b + c: the + node passes its grad unchanged to both "
        "children; the · node sends each child the other child's data times its grad.",
        body,
    )


def diagram_grad_bars() -> str:
    t = T.preset("linear")
    rows = [n for n in t["nodes"]]
    big = max(abs(n["grad"]) for n in rows)
    w, bar_h, gap, label_w = 560, 26, 12, 150
    mid = label_w + (w - label_w) / 2
    scale = (w - label_w) / 2 / big
    body = [f'<line x1="{mid:g}" y1="0" x2="{mid:g}" y2="{len(rows) * (bar_h + gap):g}" class="ag-axis"/>']
    for k, n in enumerate(rows):
        y = k * (bar_h + gap) + gap / 2
        g = n["grad"]
        x = mid if g >= 0 else mid + g * scale
        body.append(_text(8, y + bar_h * 0.7, f"{n['label']}.grad = {fmt(g)}", "ag-bar-label", "start"))
        body.append(
            f'<rect x="{x:g}" y="{y:g}" width="{abs(g) * scale:g}" height="{bar_h}" rx="3" '
            f'class="ag-bar {"ag-bar--neg" if g < 0 else "ag-bar--pos"}"/>'
        )
    return _svg(
        w,
        len(rows) * (bar_h + gap),
        "Bars of each gradient of L = a · b + c: left of the axis is negative, "
        "right is positive, length is the size of the effect on L.",
        body,
    )


DIAGRAMS = {
    "forward-backward": diagram_forward_backward,
    "local-rules": diagram_local_rules,
    "grad-bars": diagram_grad_bars,
}


# ---------------------------------------------------------------------------- widgets
def render(kind: str, attrs: dict[str, str]) -> str:
    if kind == "widget":
        start = attrs.get("preset", "fab")
        if start not in STEPPER_PRESETS:
            raise PluginError(f"autograd-widget: unknown preset {start!r}; choose from {', '.join(STEPPER_PRESETS)}")
        traces = {name: traced(name) for name in STEPPER_PRESETS}
        return (
            f'<div class="autograd-widget" data-preset="{start}" data-traces="{_attr_json(traces)}">'
            '<p class="autograd-fallback">This step-through graph needs JavaScript.</p></div>'
        )
    if kind == "playground":
        return (
            f'<div class="autograd-playground" data-trace="{_attr_json(traced("diamond"))}">'
            '<p class="autograd-fallback">This playground needs JavaScript.</p></div>'
        )
    if kind == "check":
        return render_check(attrs.get("question", ""))
    if kind == "diagram":
        name = attrs.get("diagram", "")
        if name not in DIAGRAMS:
            raise PluginError(f"autograd-diagram: unknown diagram {name!r}; choose from {', '.join(DIAGRAMS)}")
        return f'<figure class="autograd-diagram" data-diagram="{name}">{DIAGRAMS[name]()}</figure>'
    raise PluginError(f"unknown marker autograd-{kind}; use widget, playground, check or diagram")


def on_page_content(html_text: str, page, config, files) -> str:
    def sub(m: re.Match) -> str:
        attrs = {a["k"]: html.unescape(a["v"]) for a in ATTR.finditer(m["attrs"])}
        try:
            return render(m["kind"], attrs)
        except PluginError as e:
            raise PluginError(f"{page.file.src_uri}: {e}") from None

    return MARKER.sub(sub, html_text)
