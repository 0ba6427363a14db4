"""Record a Value graph's forward and backward pass step by step, as plain JSON-ready data.

trace(root, named) runs root.backward() and returns the graph's nodes and edges with their data,
grad and local gradients, plus every `child.grad += local_grad * v.grad` in the order it ran.
trace_preset(name, leaves) does so for one of the course's example graphs (PRESETS) with any leaf
values; replay() and with_orders() redo the backward loop in another visit order. The site's
graphs draw these traces, and its in-browser Python imports this module from the microgpt wheel
to redraw a graph for a reader's own leaf values.

The gradients are the engine's own: trace() runs Value.backward() and reads .grad. The step-by-step
log of `child.grad += local_grad * v.grad` is that same loop run again over a dictionary, in the
engine's order (reversed topological_order), and it must end with exactly the numbers backward()
left in .grad; if engine.py ever changes its loop, trace() says so instead of showing a wrong log.
"""

from __future__ import annotations

import inspect
import itertools
import math
from collections.abc import Callable

from microgpt.engine import Value, topological_order

# (id, value) for a leaf, (id, value, op, expression) for a computed node, in forward order
Named = tuple[str, Value] | tuple[str, Value, str, str]
# one `child.grad += local_grad * v.grad` of the backward pass: (v, k, v.grad, child.grad before, after)
PlusEquals = tuple[Value, int, float, float, float]


def _plus_equals_log(root: Value, topo: list[Value]) -> tuple[dict[str, float], list[PlusEquals]]:
    """Value.backward()'s loop over a dictionary: the seed and each += as (node, k, node's grad, before, after)."""
    grad: dict[Value, float] = {v: 0 for v in topo}
    seed: dict[str, float] = {"before": grad[root], "after": 1}
    grad[root] = 1
    log: list[PlusEquals] = []
    for v in reversed(topo):
        for k, (child, local_grad) in enumerate(zip(v._children, v._local_grads)):
            before = grad[child]
            grad[child] += local_grad * grad[v]
            log.append((v, k, grad[v], before, grad[child]))
    if any(grad[v] != v.grad for v in topo):
        raise RuntimeError("the logged loop disagrees with Value.backward(); did engine.py change its loop?")
    return seed, log


def trace(root: Value, named: list[Named], name: str = "", title: str = "") -> dict:
    """Run root.backward() and record the graph as JSON-ready data.

    named lists the nodes in the order the forward pass made them: ("a", a) for a leaf, and
    ("e", e, "+", "e = c + d") for a computed node. Leaves not listed (constants such as the 1 in
    a + 1) get ids k0, k1, ... The Values must be fresh: every .grad still 0.
    """
    ids: dict[Value, str] = {}
    info: dict[str, dict] = {}
    forward: list[str] = []
    constants = 0
    for entry in named:
        nid, value = entry[0], entry[1]
        op, expr = entry[2:] if len(entry) == 4 else ("leaf", nid)
        if value in ids:
            raise ValueError(f"{nid} is the same node as {ids[value]}")
        for v in topological_order(value):
            if v in ids:
                continue
            if v is value:
                vid, about = nid, {"label": nid, "op": op, "expr": expr, "const": False}
            elif v._children:
                raise ValueError(f"a computed node used by {nid} is not named; list it before {nid}")
            else:
                vid = f"k{constants}"
                constants += 1
                about = {"label": repr(v.data), "op": "const", "expr": f"constant {v.data!r}", "const": True}
            if vid in info:
                raise ValueError(f"duplicate id {vid}")
            ids[v] = vid
            info[vid] = about
            forward.append(vid)
    topo = topological_order(root)
    if any(v not in ids for v in topo) or ids.get(root) != forward[-1]:
        raise ValueError("named must end with the root and cover the whole graph")
    if any(v.grad != 0 for v in topo):
        raise ValueError("the graph has run backward() before; build it afresh")

    root.backward()  # the engine's own backward pass fills every .grad
    seed, log = _plus_equals_log(root, topo)

    nodes = [
        {
            "id": ids[v],
            **info[ids[v]],
            "data": v.data,
            "grad": v.grad,
            "leaf": not v._children,
            "children": [ids[c] for c in v._children],
        }
        for v in sorted(topo, key=lambda v: forward.index(ids[v]))
    ]
    edges = [
        {"node": ids[v], "child": ids[c], "index": k, "local_grad": g}
        for v in topo
        for k, (c, g) in enumerate(zip(v._children, v._local_grads))
    ]
    backward = [
        {
            "node": ids[v],
            "child": ids[v._children[k]],
            "index": k,
            "local_grad": v._local_grads[k],
            "upstream": upstream,
            "before": before,
            "after": after,
        }
        for v, k, upstream, before, after in log
    ]
    return {
        "name": name,
        "title": title,
        "root": ids[root],
        "nodes": nodes,
        "edges": edges,
        "forward": forward,
        "topo": [ids[v] for v in topo],
        "seed": {"node": ids[root], **seed},
        "backward": backward,
    }


def replay(t: dict, order: list[str]) -> tuple[dict[str, float], dict[str, float]]:
    """The engine's rule, child.grad += local_grad * node.grad, visiting the nodes of t in the given order.

    Returns every node's grad at the end, and each visited node's grad at the moment it was visited
    (what it passed on to its children).
    """
    grad: dict[str, float] = {n["id"]: 0 for n in t["nodes"]}
    grad[t["root"]] = 1
    seen: dict[str, float] = {}
    for vid in order:
        seen[vid] = grad[vid]
        for e in t["edges"]:
            if e["node"] == vid:
                grad[e["child"]] += e["local_grad"] * grad[vid]
    return grad, seen


def movable(t: dict) -> list[str]:
    """The nodes a reader places in the visit-order playground: all but the constants, in forward order."""
    const = {n["id"] for n in t["nodes"] if n["const"]}
    return [i for i in t["forward"] if i not in const]


def with_orders(t: dict) -> dict:
    """Add t["orders"]: for every order of the movable nodes, replay()'s grads (in t["nodes"] order) and
    the grad each node held when visited (in the order's own order). The playground only looks them up."""
    ids = [n["id"] for n in t["nodes"]]
    orders = {}
    for order in itertools.permutations(movable(t)):
        grad, seen = replay(t, list(order))
        orders[",".join(order)] = [[grad[i] for i in ids], [seen[i] for i in order]]
    return {**t, "orders": orders}


# ---------------------------------------------------------------------------- presets
# Each preset builds its graph from its leaf values; the defaults are the values the pages use, and
# a reader may replace any of them (trace_preset). The letters follow the site's running example.
# A parameter is a leaf's number, named by the leaf's id; va is the leaf Value made from a.
def _relu(a: float = 2, b: float = -3, d: float = 10) -> list[Named]:
    va, vb, vd = Value(a), Value(b), Value(d)
    c = va * vb
    e = c + vd
    f = e.relu()
    return [
        ("a", va),
        ("b", vb),
        ("d", vd),
        ("c", c, "*", "c = a · b"),
        ("e", e, "+", "e = c + d"),
        ("f", f, "relu", "f = relu(e)"),
    ]


def _linear(a: float = 2, b: float = -3, d: float = 10) -> list[Named]:
    va, vb, vd = Value(a), Value(b), Value(d)
    c = va * vb
    e = c + vd
    return [("a", va), ("b", vb), ("d", vd), ("c", c, "*", "c = a · b"), ("e", e, "+", "e = c + d")]


def _fab(a: float = 2, b: float = -3, d: float = 10) -> list[Named]:
    va, vb, vd = Value(a), Value(b), Value(d)
    e = va + vb
    f = e * vd
    return [("a", va), ("b", vb), ("d", vd), ("e", e, "+", "e = a + b"), ("f", f, "*", "f = e · d")]


def _neuron(x1: float = 2, w1: float = -3, x2: float = 0, w2: float = 1, w0: float = 6.8813735870195432) -> list[Named]:
    vx1, vw1, vx2, vw2, vw0 = Value(x1), Value(w1), Value(x2), Value(w2), Value(w0)  # w0: the bias
    x1w1 = vx1 * vw1
    x2w2 = vx2 * vw2
    sum12 = x1w1 + x2w2
    pre = sum12 + vw0  # the pre-activation, as the notebook calls it
    o = pre.tanh()
    return [
        ("x1", vx1),
        ("w1", vw1),
        ("x2", vx2),
        ("w2", vw2),
        ("w0", vw0),
        ("x1w1", x1w1, "*", "x1w1 = x1 · w1"),
        ("x2w2", x2w2, "*", "x2w2 = x2 · w2"),
        ("sum12", sum12, "+", "sum12 = x1w1 + x2w2"),
        ("pre", pre, "+", "pre = sum12 + w0"),
        ("o", o, "tanh", "o = tanh(pre)"),
    ]


def _square(a: float = 3) -> list[Named]:
    va = Value(a)
    f = va * va
    return [("a", va), ("f", f, "*", "f = a · a")]


# The two graphs with a shared node use letters of their own (x, u, s, t, z), so that no letter means
# one thing here and another in the running example (a, b, d leaves; c = a · b).
def _diamond(x: float = 2) -> list[Named]:
    vx = Value(x)
    s = vx + 1
    t = vx * 3
    z = s * t
    return [("x", vx), ("s", s, "+", "s = x + 1"), ("t", t, "*", "t = 3x"), ("z", z, "*", "z = s · t")]


def _shared(x: float = 1) -> list[Named]:
    vx = Value(x)
    u = 2 * vx
    s = u + 1
    t = u * 3
    z = s * t
    return [
        ("x", vx),
        ("u", u, "*", "u = 2x"),
        ("s", s, "+", "s = u + 1"),
        ("t", t, "*", "t = 3u"),
        ("z", z, "*", "z = s · t"),
    ]


# name: (title, graph builder, whether the visit-order playground can show it). Menu order.
PRESETS: dict[str, tuple[str, Callable[..., list[Named]], bool]] = {
    "relu": ("relu(a · b + d)", _relu, False),
    "linear": ("a · b + d", _linear, False),
    "fab": ("(a + b) · d", _fab, False),
    "neuron": ("tanh neuron", _neuron, False),
    "square": ("a · a", _square, False),
    "diamond": ("diamond, a shared leaf", _diamond, True),
    "shared": ("shared interior node u", _shared, True),
}


def default_leaves(name: str) -> dict[str, float]:
    """The preset's leaf values as the pages show them."""
    params = inspect.signature(PRESETS[name][1]).parameters.values()
    return {p.name: p.default for p in params}


def _number(name: str, x: object) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"leaf {name} must be a finite number, not {x!r}")
    return x


def trace_preset(name: str, leaves: dict[str, float] | None = None) -> dict:
    """A fresh trace of preset `name`, with any of its leaves set to new values (the rest keep the defaults).

    This is what the pages embed (with leaves=None) and what the browser's Python returns when a
    reader applies new leaf values. Bad input raises ValueError with a message for the reader.
    """
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
    title, build, playground = PRESETS[name]
    values = default_leaves(name)
    for leaf, x in (leaves or {}).items():
        if leaf not in values:
            raise ValueError(f"{name} has no leaf {leaf!r}; its leaves are {', '.join(values)}")
        values[leaf] = _number(leaf, x)
    named = build(**values)
    t = trace(named[-1][1], named, name, title)
    numbers = [x for n in t["nodes"] for x in (n["data"], n["grad"])] + [e["local_grad"] for e in t["edges"]]
    if not all(math.isfinite(x) for x in numbers):
        raise ValueError("these leaf values overflow a float; try smaller numbers")
    return with_orders(t) if playground else t
