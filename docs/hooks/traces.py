"""Build-time step for the interactive graphs: every number they show comes from autograd_trace.

A page asks for a widget with one line of raw HTML on its own, surrounded by blank lines:

    <div class="autograd-widget" data-preset="relu"></div>          step-through widget (any preset)
    <div class="autograd-playground" data-preset="shared"></div>    visit-order playground (diamond if absent)
    <div class="autograd-diagram" data-diagram="shared"></div>      one of DIAGRAMS

and writes a self-check with md_in_html (the question may use KaTeX, links, code):

    <div class="autograd-check" data-answer="6" markdown>           or data-choice="2" with an ordered list
    **Predict first.** With $a = 3$ and $f = a \\cdot a$, what is $\\partial f/\\partial a$?

    <div class="check-hint" markdown>Look at how many edges leave $a$.</div>
    <div class="check-explain" markdown>Two paths each carry 3, and `+=` adds them: 6.</div>
    </div>

data-answer is a plain decimal (optional - or − sign, optional point; PLAIN_DECIMAL); data-tolerance
(same format) is how far a reader's answer may be from it, otherwise 1e-9 of its size. The older
form <div class="autograd-check" data-question="KEY"></div> (QUESTIONS) still works.

After the page is rendered (`on_page_content`) each one is replaced by its HTML, with the traces
embedded as JSON; the scripts in docs/javascripts/widgets/ only draw, look up and animate them.
Diagrams are complete SVG generated here. Anything unknown or malformed fails the build. After the
build, the recorder's source is copied to <site root>/py/autograd_trace.py for the browser's Python.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import autograd_trace as T  # mkdocs puts this folder on sys.path while it loads a hook
from mkdocs.exceptions import PluginError

RECORDER = Path(T.__file__)
SITE_COPY = "py/autograd_trace.py"
MARKER = re.compile(
    r'<div class="autograd-(?P<kind>widget|playground|diagram)"(?P<attrs>(?:\s+data-[a-z-]+="[^"]*")*)\s*>\s*</div>'
)
ATTR = re.compile(r'(?P<k>[a-z-]+)="(?P<v>[^"]*)"')
# A number as a reader or an author writes it: digits, an optional point, an optional - or − sign.
# docs/javascripts/widgets/format.js parses with the same pattern (tests/test_browser_widgets.py).
PLAIN_DECIMAL = re.compile(r"[-−]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")  # [0-9]: in Python \d is any Unicode digit

# geometry, in CSS pixels: the graphs are drawn at their natural size (never scaled down, so text
# stays 12-13 px) inside a container that scrolls sideways on narrow screens
CHAR_W, LINE_H, PAD, PAD_TOP, GAP_X, GAP_Y = 7.9, 17, 12, 26, 58, 28


def fmt(x: float) -> str:
    """A number as the widgets show it (docs/javascripts/widgets/format.js does the same)."""
    if float(x).is_integer():
        return str(int(x))
    s = f"{x:.4f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def parse_decimal(text: str) -> float | None:
    """The number in text if it is a plain decimal (PLAIN_DECIMAL), else None."""
    s = text.strip()
    return float(s.replace("−", "-")) if PLAIN_DECIMAL.fullmatch(s) else None


# ---------------------------------------------------------------------------- layout
def _node_lines(n: dict) -> list[str]:
    """The longest texts a node box must hold (the widgets write data/grad lines of this size)."""
    head = f"{n['label']} (constant)" if n["const"] else n["expr"]
    return [head, f"data {fmt(n['data'])}", f"grad {fmt(n['grad'])}", "grad -0.0000"]


def layout(t: dict, lines=_node_lines, nlines: int = 3) -> dict:
    """Add x, y (centre) to each node, a path and a label point to each edge, and width/height/node_w/node_h.

    Leaves on the left, the root on the right. Where several edges meet a box they attach at
    different heights, so their arrowheads do not pile up; two edges between the same pair bend apart.
    """
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

    def spread(ends: list[dict], other: str) -> dict[int, float]:
        """Attachment heights for the edges meeting one side of a box, ordered by where they come from."""
        ends = sorted(ends, key=lambda e: (nodes[e[other]]["y"], e["index"]))
        step = min(14, (node_h - 16) / max(len(ends) - 1, 1))
        return {id(e): (k - (len(ends) - 1) / 2) * step for k, e in enumerate(ends)}

    dy_in: dict[int, float] = {}
    dy_out: dict[int, float] = {}
    for i in nodes:
        dy_in |= spread([e for e in t["edges"] if e["node"] == i], "child")
        dy_out |= spread([e for e in t["edges"] if e["child"] == i], "node")
    pairs: dict[tuple[str, str], list[dict]] = {}
    for e in t["edges"]:
        pairs.setdefault((e["node"], e["child"]), []).append(e)
    for e in t["edges"]:
        a, b = nodes[e["child"]], nodes[e["node"]]
        x1, y1 = a["x"] + node_w / 2, a["y"] + dy_out[id(e)]
        x2, y2 = b["x"] - node_w / 2, b["y"] + dy_in[id(e)]
        same = pairs[(e["node"], e["child"])]
        bend = (same.index(e) - (len(same) - 1) / 2) * 2 * node_h / 2 if len(same) > 1 else 0
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2 + bend
        e["path"] = f"M{x1:g},{y1:g} Q{cx:g},{cy:g} {x2:g},{y2:g}"
        # the label sits on the curve's midpoint, nudged above it
        e["lx"], e["ly"] = (x1 + 2 * cx + x2) / 4, (y1 + 2 * cy + y2) / 4 - 5
    t["node_w"], t["node_h"] = node_w, node_h
    t["width"] = round(2 * PAD + node_w + (ncol - 1) * (node_w + GAP_X))
    t["height"] = round(PAD_TOP + PAD + node_h + (nrow - 1) * (node_h + GAP_Y))
    return t


def traced(name: str) -> dict:
    return layout(T.trace_preset(name))


def _attr_json(obj) -> str:
    """JSON for a single-quoted attribute (double quotes left alone keeps the page small)."""
    s = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")


def _grads(name: str) -> dict[str, float]:
    return {n["id"]: n["grad"] for n in T.trace_preset(name)["nodes"]}


def _datas(name: str) -> dict[str, float]:
    return {n["id"]: n["data"] for n in T.trace_preset(name)["nodes"]}


# ---------------------------------------------------------------------------- self-checks
def _questions() -> dict[str, dict]:
    """The older keyed checks. Each answer is a grad read from a trace; the explanation comes from the same trace."""
    f, fd = _grads("fab"), _datas("fab")
    o, od = _grads("neuron"), _datas("neuron")
    d, dd = _grads("diamond"), _datas("diamond")
    tx = next(e["local_grad"] for e in T.trace_preset("diamond")["edges"] if (e["node"], e["child"]) == ("t", "x"))
    return {
        "fab-a": dict(
            preset="fab",
            node="a",
            prompt=f"With a = {fmt(fd['a'])}, b = {fmt(fd['b'])}, d = {fmt(fd['d'])} "
            "and f = (a + b) · d, what is ∂f/∂a?",
            hint="Two local rules: · sends each factor the other factor; + copies what it receives.",
            explain=f"f = e · d sends e.grad = d = {fmt(fd['d'])} (multiplication swaps); e = a + b copies "
            f"it to a unchanged (addition distributes): ∂f/∂a = {fmt(f['a'])}.",
        ),
        "fab-b": dict(
            preset="fab",
            node="b",
            prompt="Same graph: what is ∂f/∂b?",
            hint="Look at what the + node gives each of its two children.",
            explain=f"The + node gives b exactly what it gives a, e.grad = {fmt(f['e'])}: ∂f/∂b = {fmt(f['b'])}.",
        ),
        "neuron-w1": dict(
            preset="neuron",
            node="w1",
            prompt="For the tanh neuron, what is ∂o/∂w1?",
            hint="Follow o → n → s → x1w1 → w1: tanh, two additions, then a product whose other factor is x1.",
            explain=f"∂o/∂n = 1 − tanh²(n) = {fmt(o['n'])}; the two + nodes copy it to x1w1; "
            f"x1w1 = x1 · w1 swaps, so w1 gets x1 · {fmt(o['x1w1'])} = {fmt(od['x1'])} · "
            f"{fmt(o['x1w1'])} = {fmt(o['w1'])}.",
        ),
        "diamond-x": dict(
            preset="diamond",
            node="x",
            prompt=f"Diamond x = {fmt(dd['x'])}, s = x + 1, t = 3x, z = s · t: what is ∂z/∂x?",
            hint="Two paths lead from z back to x, one through s and one through t. What does each deliver?",
            explain=f"z = s · t gives s.grad = t = {fmt(dd['t'])} and t.grad = s = {fmt(dd['s'])}. "
            f"Through s, x receives 1 · {fmt(d['s'])}; "
            f"through t it receives {fmt(tx)} · {fmt(d['t'])}. "
            f"The += adds both paths: {fmt(d['s'])} + {fmt(tx * d['t'])} = {fmt(d['x'])}.",
        ),
    }


def _check_form(uid: str, question: str, hint: str, explain: str, answer: str, tolerance: str, options=None) -> str:
    """One self-check: the question, an input (or one radio button per option), Check, Show answer,
    a hint that stays available, a status line, and the explanation (hidden until answered)."""
    buttons = (
        '<button type="submit" class="ag-btn ag-btn--primary">Check</button> '
        '<button type="button" class="ag-btn" data-action="show">Show answer</button>'
    )
    if options is None:
        kind = f'data-answer="{html.escape(answer)}" data-tolerance="{html.escape(tolerance)}"'
        answer_html = (
            f'<div class="autograd-check__answer"><label for="{uid}-in">Your answer</label> '
            f'<input id="{uid}-in" name="answer" type="text" inputmode="decimal" autocomplete="off" '
            f'spellcheck="false" size="9" aria-describedby="{uid}-status"> {buttons}</div>'
        )
    else:
        kind = f'data-choice="{html.escape(answer)}"'
        # "Option k:" names each radio in words; an option written only in math would have no name
        radios = "".join(
            f'<label class="autograd-choice"><input type="radio" name="{uid}" value="{k}"> '
            f'<span class="autograd-choice__num">Option {k}:</span> <span class="autograd-choice__text">{opt}</span>'
            "</label>"
            for k, opt in enumerate(options, start=1)
        )
        answer_html = (
            f'<fieldset class="autograd-check__choices" aria-describedby="{uid}-status">'
            f'<legend>Choose one</legend>{radios}</fieldset><div class="autograd-check__answer">{buttons}</div>'
        )
    return (
        f'<form class="autograd-check" id="{uid}" {kind} novalidate>'  # unnamed: not a landmark
        f'<p class="autograd-check__title" id="{uid}-title">Check yourself</p>'
        f'<div class="autograd-check__question">{question}</div>{answer_html}'
        f'<details class="autograd-check__hint"><summary>Hint</summary><div>{hint}</div></details>'
        f'<p class="autograd-check__status" id="{uid}-status" role="status" aria-live="polite"></p>'
        f'<div class="autograd-check__explain" tabindex="-1" hidden>'
        f'<p class="autograd-check__explain-title">Why</p>{explain}</div></form>'
    )


def render_check(key: str, uid: str = "") -> str:
    """The older keyed check (data-question), in the same form as an authored one."""
    qs = _questions()
    if key not in qs:
        raise PluginError(f"autograd-check: unknown question {key!r}; choose from {', '.join(qs)}")
    q = qs[key]
    answer = _grads(q["preset"])[q["node"]]
    return _check_form(
        uid or f"autograd-check-{key}",
        f"<p>{html.escape(q['prompt'])}</p>",
        f"<p>{html.escape(q['hint'])}</p>",
        f"<p>{html.escape(q['explain'])}</p>",
        repr(answer),
        repr(1e-3 * max(1, abs(answer))),  # the explanations show 4 decimals
    )


DIV = re.compile(r"<div\b|</div>")
CHECK_START = re.compile(r'<div\s[^>]*class="autograd-check"[^>]*>')


def _balanced(text: str, start: int, open_re=DIV, close: str = "</div>") -> int:
    """The index just past the tag closing the element whose start tag begins at `start`."""
    depth = 0
    for m in open_re.finditer(text, start):
        depth += -1 if m.group() == close else 1
        if depth == 0:
            return m.end()
    raise PluginError("autograd-check: a <div> is not closed")


def _take(inner: str, cls: str) -> tuple[str | None, str]:
    """Cut <div class="cls">…</div> out of inner: (its content, inner without it)."""
    m = re.search(rf'<div class="{cls}">', inner)
    if not m:
        return None, inner
    end = _balanced(inner, m.start())
    return inner[m.end() : end - len("</div>")].strip(), inner[: m.start()] + inner[end:]


def authored_check(start_tag: str, inner: str, uid: str) -> str:
    """An md_in_html self-check, validated: exactly one of data-answer / data-choice, a well-formed number
    or an option that exists, a question, a hint and an explanation."""
    attrs = dict((a["k"], html.unescape(a["v"])) for a in ATTR.finditer(start_tag))
    if "data-question" in attrs:
        return render_check(attrs["data-question"], uid)
    hint, inner = _take(inner, "check-hint")
    explain, inner = _take(inner, "check-explain")
    options = None
    if "data-choice" in attrs:
        ol = re.search(r"<ol>(.*?)</ol>", inner, re.S)
        if not ol:
            raise PluginError('autograd-check: data-choice needs an ordered list ("1. …") of the options')
        options = [
            re.sub(r"^<p>(.*)</p>$", r"\1", o.strip(), flags=re.S) for o in re.findall(r"<li>(.*?)</li>", ol[1], re.S)
        ]
        inner = inner[: ol.start()] + inner[ol.end() :]
    question = inner.strip()
    what = f"autograd-check {html.unescape(re.sub(r'<[^>]+>', '', question))[:60]!r}"
    if ("data-answer" in attrs) == ("data-choice" in attrs):
        raise PluginError(f"{what}: give exactly one of data-answer (a number) or data-choice (the right option)")
    if not re.sub(r"<[^>]+>", "", question).strip():
        raise PluginError(f"{what}: the question is missing")
    if hint is None or explain is None:
        raise PluginError(f'{what}: add <div class="check-hint" markdown>…</div> and <div class="check-explain" …>')
    if options is not None:
        choice = attrs["data-choice"]
        if not re.fullmatch(r"[1-9]\d*", choice) or int(choice) > len(options):
            raise PluginError(f"{what}: data-choice={choice!r} must be an option's number, 1 to {len(options)}")
        return _check_form(uid, question, hint, explain, choice, "", options)
    answer = parse_decimal(attrs["data-answer"])
    if answer is None:
        raise PluginError(
            f"{what}: data-answer={attrs['data-answer']!r} is not a plain decimal number such as 6 or -1.5"
        )
    tolerance = attrs.get("data-tolerance")
    if tolerance is not None and (parse_decimal(tolerance) is None or tolerance.strip()[0] in "-−"):
        raise PluginError(f"{what}: data-tolerance={tolerance!r} is not a plain non-negative decimal number")
    tolerance = tolerance or repr(1e-9 * max(1, abs(answer)))
    return _check_form(uid, question, hint, explain, attrs["data-answer"], tolerance)


def render_checks(text: str) -> str:
    out, pos, k = [], 0, 0
    while m := CHECK_START.search(text, pos):
        end = _balanced(text, m.start())
        k += 1
        out += [text[pos : m.start()], authored_check(m.group(), text[m.end() : end - len("</div>")], f"ag-check-{k}")]
        pos = end
    return "".join(out) + text[pos:]


# ---------------------------------------------------------------------------- diagrams (SVG)
def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg class="autograd-svg" width="{width:g}" height="{height:g}" viewBox="0 0 {width:g} {height:g}" '
        f'role="img" aria-label="{html.escape(title, quote=True)}">{"".join(body)}</svg>'
    )


def _text(x, y, s, cls="", anchor="middle") -> str:
    return f'<text x="{x:g}" y="{y:g}" text-anchor="{anchor}" class="{cls}">{html.escape(s)}</text>'


ARROWS = (
    "<defs>"
    + "".join(
        f'<marker id="ag-d-arrow{suffix}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="10" markerHeight="10" '
        f'markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" class="{cls}"/></marker>'
        for suffix, cls in (("", "ag-arrowhead"), ("-back", "ag-arrowhead ag-arrowhead--back"))
    )
    + "</defs>"
)


def _graph(t: dict, lines, backward: bool, labels: bool, dy: float = 0) -> list[str]:
    """A laid-out trace as SVG: boxes with the given text lines, edges pointing the way values flow
    (child → parent for data, parent → child for grad)."""
    out = [f'<g transform="translate(0,{dy:g})">']
    for e in t["edges"]:
        end = 'marker-start="url(#ag-d-arrow-back)"' if backward else 'marker-end="url(#ag-d-arrow)"'
        cls = "ag-edge ag-edge--back" if backward else "ag-edge"
        out.append(f'<path d="{e["path"]}" class="{cls}" {end}/>')
        if labels:
            out.append(_text(e["lx"], e["ly"], fmt(e["local_grad"]), "ag-edge-label"))
    w, h = t["node_w"], t["node_h"]
    for n in t["nodes"]:
        cls = "ag-node" + (" ag-node--const" if n["const"] else "")
        out.append(
            f'<rect x="{n["x"] - w / 2:g}" y="{n["y"] - h / 2:g}" width="{w}" height="{h}" rx="7" class="{cls}"/>'
        )
        for k, (s, c) in enumerate(lines(n)):
            out.append(_text(n["x"], n["y"] - h / 2 + 19 + LINE_H * k, s, c))
    return [*out, "</g>"]


def _head(n: dict) -> tuple[str, str]:
    return (f"{n['label']} (constant)" if n["const"] else n["expr"], "ag-expr")


def _legend(*items: str) -> str:
    lis = "".join(f"<li>{i}</li>" for i in items)
    return f'<figcaption><ul class="autograd-legend" aria-label="Legend">{lis}</ul></figcaption>'


KEY = '<span class="ag-key ag-key--{}" aria-hidden="true">{}</span> '
LEGEND_CONST = KEY.format("const", "") + "dashed box: a constant, a leaf the op made for a plain number"
LEGEND_FORWARD = KEY.format("arrow", "→") + "data flows from the children to the node they make"
LEGEND_BACKWARD = KEY.format("arrow", "←") + "grad flows from a node back to its children"
LEGEND_LOCAL = KEY.format("label", "-3") + "number on an arrow: the local derivative ∂node/∂child"


def diagram_forward_backward() -> tuple[str, str]:
    # two lines per box: the expression, then data (forward panel) or grad (backward panel)
    t = layout(T.trace_preset("linear"), lambda n: [n["expr"], f"data {fmt(n['data'])}", f"grad {fmt(n['grad'])}"], 2)
    head = 24
    body = [
        ARROWS,
        _text(PAD, 17, f"forward pass: data, from the leaves to {t['root']}", "ag-heading", "start"),
        *_graph(t, lambda n: [_head(n), (f"data {fmt(n['data'])}", "ag-data")], False, False, head),
        _text(
            PAD,
            head + t["height"] + 21,
            f"backward pass: grad, from {t['root']} back to the leaves",
            "ag-heading",
            "start",
        ),
        *_graph(t, lambda n: [_head(n), (f"grad {fmt(n['grad'])}", "ag-grad-set")], True, True, 2 * head + t["height"]),
    ]
    title = (
        f"The graph of {t['title']} twice: the forward pass fills data from the leaves to {t['root']}; "
        f"the backward pass fills grad from {t['root']} back to the leaves."
    )
    return _svg(t["width"], 2 * (t["height"] + head), title, body), _legend(
        LEGEND_FORWARD, LEGEND_BACKWARD, LEGEND_LOCAL
    )


def diagram_local_rules() -> tuple[str, str]:
    t = T.trace_preset("linear")
    n = {x["id"]: x for x in t["nodes"]}
    log = {(s["node"], s["child"]): s for s in t["backward"]}
    w_node = round(max(len(x["expr"]) for x in t["nodes"]) * CHAR_W + 18)
    w, h = 2 * PAD + 2 * w_node + 130, 190  # 130: room for an edge label such as "local b = -3"
    body = [ARROWS]
    plus, times = t["root"], next(x["id"] for x in t["nodes"] if x["op"] == "*")
    panels = [(plus, "+ copies: each child gets 1 · G"), (times, "· swaps: each gets the other's data · G")]
    for p, (vid, heading) in enumerate(panels):
        v, oy = n[vid], p * h
        kids = v["children"]
        node = (w - PAD - w_node / 2, oy + h / 2 + 10)
        body.append(_text(PAD, oy + 17, heading, "ag-heading", "start"))
        for k, cid in enumerate(kids):
            s = log[(vid, cid)]
            child = (PAD + w_node / 2, oy + 62 + k * 96)
            x1, y1, x2, y2 = child[0] + w_node / 2, child[1], node[0] - w_node / 2, node[1] + (k - 0.5) * 14
            body.append(
                f'<path d="M{x1:g},{y1:g} L{x2:g},{y2:g}" class="ag-edge ag-edge--back" '
                'marker-start="url(#ag-d-arrow-back)"/>'
            )
            why = "1" if v["op"] == "+" else f"{n[kids[1 - k]]['label']} = {fmt(s['local_grad'])}"
            body.append(_text((x1 + x2) / 2, (y1 + y2) / 2 + (22 if k else -10), f"local {why}", "ag-edge-label"))
            body += _box(
                child,
                w_node,
                [(n[cid]["label"], "ag-expr"), (f"+= {fmt(s['local_grad'] * s['upstream'])}", "ag-grad-set")],
            )
        body += _box(node, w_node, [(v["expr"], "ag-expr"), (f"G = {fmt(v['grad'])}", "ag-grad-set")])
    title = (
        f"The two local rules on {t['title']}: the + node passes its grad G unchanged to both children; "
        "the · node sends each child the other child's data times G."
    )
    return _svg(w, 2 * h, title, body), _legend(LEGEND_BACKWARD)


def _box(centre: tuple[float, float], w: float, lines: list[tuple[str, str]]) -> list[str]:
    x, y, h = centre[0], centre[1], 2 * LINE_H + 14
    out = [f'<rect x="{x - w / 2:g}" y="{y - h / 2:g}" width="{w:g}" height="{h}" rx="7" class="ag-node"/>']
    return out + [_text(x, y - h / 2 + 19 + LINE_H * k, s, c) for k, (s, c) in enumerate(lines)]


def diagram_grad_bars() -> tuple[str, str]:
    t = T.trace_preset("linear")
    rows = t["nodes"]
    big = max(abs(n["grad"]) for n in rows)
    w, bar_h, gap, label_w = 340, 24, 12, 116
    mid = label_w + (w - label_w) / 2
    scale = ((w - label_w) / 2 - 4) / big
    body = [f'<line x1="{mid:g}" y1="0" x2="{mid:g}" y2="{len(rows) * (bar_h + gap):g}" class="ag-axis"/>']
    for k, n in enumerate(rows):
        y = k * (bar_h + gap) + gap / 2
        g = n["grad"]
        x = mid if g >= 0 else mid + g * scale
        body.append(_text(4, y + bar_h * 0.7, f"{n['label']}.grad = {fmt(g)}", "ag-bar-label", "start"))
        body.append(
            f'<rect x="{x:g}" y="{y:g}" width="{abs(g) * scale:g}" height="{bar_h}" rx="3" '
            f'class="ag-bar {"ag-bar--neg" if g < 0 else "ag-bar--pos"}"/>'
        )
    title = (
        f"Bars of each gradient of {t['title']}: left of the axis is negative, right is positive, "
        f"length is the size of the effect on {t['root']}."
    )
    return _svg(w, len(rows) * (bar_h + gap), title, body), ""


def diagram_forward_graph() -> tuple[str, str]:
    t = layout(T.trace_preset("relu"), lambda n: [n["expr"], f"data {fmt(n['data'])}"], nlines=2)
    body = [
        ARROWS,
        _text(PAD, 17, f"forward pass: {t['title']}, each node made from its children", "ag-heading", "start"),
        *_graph(t, lambda n: [_head(n), (f"data {fmt(n['data'])}", "ag-data")], False, False),
    ]
    title = (
        f"The forward graph of f = {t['title']}: leaves "
        + ", ".join(f"{n['label']} = {fmt(n['data'])}" for n in t["nodes"] if n["leaf"])
        + "; then "
        + ", ".join(f"{n['expr']} = {fmt(n['data'])}" for n in t["nodes"] if not n["leaf"])
        + "."
    )
    return _svg(t["width"], t["height"], title, body), _legend(LEGEND_FORWARD)


def diagram_shared() -> tuple[str, str]:
    t = layout(T.trace_preset("shared"))
    body = [
        ARROWS,
        _text(
            PAD,
            17,
            f"backward pass: grad from {t['root']} to {t['forward'][0]}; u collects from s and t",
            "ag-heading",
            "start",
        ),
        *_graph(
            t,
            lambda n: [_head(n), (f"data {fmt(n['data'])}", "ag-data"), (f"grad {fmt(n['grad'])}", "ag-grad-set")],
            True,
            True,
        ),
    ]
    g = {n["id"]: n for n in t["nodes"]}
    title = (
        "The shared-interior-node graph: x = 1, u = 2x, s = u + 1, t = 3u, z = s · t. Grad flows back from z; "
        f"u receives from both s and t (u.grad = {fmt(g['u']['grad'])}) before it passes 2 · u.grad to x "
        f"(x.grad = {fmt(g['x']['grad'])})."
    )
    return _svg(t["width"], t["height"], title, body), _legend(LEGEND_BACKWARD, LEGEND_LOCAL, LEGEND_CONST)


DIAGRAMS = {
    "forward-backward": diagram_forward_backward,
    "local-rules": diagram_local_rules,
    "grad-bars": diagram_grad_bars,
    "forward-graph": diagram_forward_graph,
    "shared": diagram_shared,
}


# ---------------------------------------------------------------------------- widgets
def _without_orders(t: dict) -> dict:
    return {k: v for k, v in t.items() if k != "orders"}  # the step-through widget never looks them up


def render(kind: str, attrs: dict[str, str]) -> str:
    if kind == "widget":
        start = attrs.get("preset", "fab")
        if start not in T.PRESETS:
            raise PluginError(f"autograd-widget: unknown preset {start!r}; choose from {', '.join(T.PRESETS)}")
        traces = {name: _without_orders(traced(name)) for name in T.PRESETS}
        return (
            f'<div class="autograd-widget" data-preset="{start}" data-traces=\'{_attr_json(traces)}\'>'
            '<p class="autograd-fallback">This step-through graph needs JavaScript.</p></div>'
        )
    if kind == "playground":
        name = attrs.get("preset", "diamond")
        if not T.PRESETS.get(name, ("", None, False))[2]:
            choices = ", ".join(n for n, p in T.PRESETS.items() if p[2])
            raise PluginError(f"autograd-playground: unknown preset {name!r}; choose from {choices}")
        return (
            f'<div class="autograd-playground" data-preset="{name}" data-trace=\'{_attr_json(traced(name))}\'>'
            '<p class="autograd-fallback">This playground needs JavaScript.</p></div>'
        )
    if kind == "diagram":
        name = attrs.get("diagram", "")
        if name not in DIAGRAMS:
            raise PluginError(f"autograd-diagram: unknown diagram {name!r}; choose from {', '.join(DIAGRAMS)}")
        svg, legend = DIAGRAMS[name]()
        return (
            f'<figure class="autograd-diagram" data-diagram="{name}">'
            f'<div class="autograd-scroll">{svg}</div>{legend}</figure>'
        )
    raise PluginError(f"unknown marker autograd-{kind}; use widget, playground, check or diagram")


def on_page_content(html_text: str, page, config, files) -> str:
    def sub(m: re.Match) -> str:
        attrs = {a["k"].removeprefix("data-"): html.unescape(a["v"]) for a in ATTR.finditer(m["attrs"])}
        return render(m["kind"], attrs)

    try:
        return MARKER.sub(sub, render_checks(html_text))
    except PluginError as e:
        raise PluginError(f"{page.file.src_uri}: {e}") from None


def on_post_build(config) -> None:
    """One recorder for the build and the browser: the site serves this very file."""
    dest = Path(config["site_dir"]) / SITE_COPY
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(RECORDER, dest)
