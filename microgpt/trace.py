"""Record a Value graph and its backward pass as plain data, for the site's interactive graphs.

The backward pass recorded here is the engine's own: every node of the graph temporarily becomes a
subclass of Value that logs each read and write of .grad, then Value.backward() runs unchanged.
"""

from .engine import Value, topological_order


def _recording_class(log: list) -> type:
    """A Value subclass with the same memory layout whose .grad logs ("read" | "write", node, before, after)."""
    slot = Value.__dict__["grad"]  # the slot descriptor that really stores the number

    def get(self):
        g = slot.__get__(self)
        log.append(("read", self, g, g))
        return g

    def put(self, g):
        log.append(("write", self, slot.__get__(self), g))
        slot.__set__(self, g)

    return type("RecordingValue", (Value,), {"__slots__": (), "grad": property(get, put)})


def _record_backward(root: Value, nodes: list[Value]) -> tuple[dict, list[tuple]]:
    """Run root.backward() with .grad logged; return the seed and each += as (node, k, node.grad, before, after)."""
    log: list = []
    cls = _recording_class(log)
    for v in nodes:
        v.__class__ = cls
    try:
        root.backward()
    finally:
        for v in nodes:
            v.__class__ = Value
    seed, updates, reads = None, [], []
    visiting, k = None, 0
    for kind, v, before, after in log:
        if kind == "read":
            reads.append((v, before))
            continue
        # in `child.grad += local_grad * v.grad` the last .grad read before the write, other than the child's, is v's
        upstream, g = next(((r, g) for r, g in reversed(reads) if r is not v), (None, None))
        reads = []
        if upstream is None:
            if seed is not None or v is not root:
                raise RuntimeError("unexpected write to .grad outside the chain rule loop")
            seed = {"before": before, "after": after}
            continue
        k = k + 1 if upstream is visiting else 0
        visiting = upstream
        if k >= len(upstream._children) or upstream._children[k] is not v:
            raise RuntimeError("the += log does not follow the order of _children; engine.py changed?")
        updates.append((upstream, k, g, before, after))
    if seed is None:
        raise RuntimeError("backward() never seeded the root")
    return seed, updates


def trace(root: Value, named: list[tuple[str, Value, str, str]], name: str = "", title: str = "") -> dict:
    """Run root.backward() and record the graph as JSON-ready data.

    named lists the computed nodes in the order the forward pass made them, as (id, value, op, expression),
    e.g. ("e", e, "+", "e = a + b"). Leaves not listed (constants such as the 1 in a + 1) get ids k0, k1, ...
    """
    ids: dict[int, str] = {}
    info: dict[str, dict] = {}
    forward: list[str] = []
    constants = 0
    for nid, value, op, expr in named:
        if id(value) in ids:
            raise ValueError(f"{nid} is the same node as {ids[id(value)]}")
        for v in topological_order(value):
            if id(v) in ids:
                continue
            if v is value:
                vid, entry = nid, {"label": nid, "op": op, "expr": expr, "const": False}
            elif v._children:
                raise ValueError(f"a computed node used by {nid} is not named; list it before {nid}")
            else:
                vid = f"k{constants}"
                constants += 1
                entry = {"label": repr(v.data), "op": "const", "expr": f"constant {v.data!r}", "const": True}
            if vid in info:
                raise ValueError(f"duplicate id {vid}")
            ids[id(v)] = vid
            info[vid] = entry
            forward.append(vid)
    topo = topological_order(root)
    if any(id(v) not in ids for v in topo) or ids.get(id(root)) != forward[-1]:
        raise ValueError("named must end with the root and cover the whole graph")

    seed, updates = _record_backward(root, topo)

    nodes = []
    for v in sorted(topo, key=lambda v: forward.index(ids[id(v)])):
        vid = ids[id(v)]
        nodes.append(
            {
                "id": vid,
                **info[vid],
                "data": v.data,
                "grad": v.grad,
                "leaf": not v._children,
                "children": [ids[id(c)] for c in v._children],
            }
        )
    edges = [
        {"node": ids[id(v)], "child": ids[id(c)], "index": k, "local_grad": g}
        for v in topo
        for k, (c, g) in enumerate(zip(v._children, v._local_grads))
    ]
    backward = [
        {
            "node": ids[id(v)],
            "child": ids[id(v._children[k])],
            "index": k,
            "local_grad": v._local_grads[k],
            "upstream": g,
            "before": before,
            "after": after,
        }
        for v, k, g, before, after in updates
    ]
    return {
        "name": name,
        "title": title,
        "root": ids[id(root)],
        "nodes": nodes,
        "edges": edges,
        "forward": forward,
        "topo": [ids[id(v)] for v in topo],
        "seed": {"node": ids[id(root)], **seed},
        "backward": backward,
    }


def replay(t: dict, order: list[str]) -> dict[str, float]:
    """Apply the engine's rule, child.grad += local_grad * node.grad, visiting the nodes of t in the given order."""
    grad: dict[str, float] = {n["id"]: 0 for n in t["nodes"]}
    grad[t["root"]] = 1
    for vid in order:
        for e in t["edges"]:
            if e["node"] == vid:
                grad[e["child"]] += e["local_grad"] * grad[vid]
    return grad


# --8<-- [start:presets]
def _fab() -> dict:
    a, b, c = Value(2), Value(-3), Value(10)
    e = a + b
    f = e * c
    return trace(
        f,
        [
            ("a", a, "leaf", "a"),
            ("b", b, "leaf", "b"),
            ("c", c, "leaf", "c"),
            ("e", e, "+", "e = a + b"),
            ("f", f, "*", "f = e · c"),
        ],
        "fab",
        "(a + b) · c",
    )


def _relu() -> dict:
    a, b, d = Value(2), Value(-3), Value(10)
    c = a * b  # the same names as the Backward Pass page's walkthrough
    e = c + d
    f = e.relu()
    return trace(
        f,
        [
            ("a", a, "leaf", "a"),
            ("b", b, "leaf", "b"),
            ("d", d, "leaf", "d"),
            ("c", c, "*", "c = a · b"),
            ("e", e, "+", "e = c + d"),
            ("f", f, "relu", "f = relu(e)"),
        ],
        "relu",
        "relu(a · b + d)",
    )


def _neuron() -> dict:
    x1, w1, x2, w2, b = Value(2.0), Value(-3.0), Value(0.0), Value(1.0), Value(6.8813735870195432)
    x1w1 = x1 * w1
    x2w2 = x2 * w2
    s = x1w1 + x2w2
    n = s + b
    o = n.tanh()
    return trace(
        o,
        [
            ("x1", x1, "leaf", "x1"),
            ("w1", w1, "leaf", "w1"),
            ("x2", x2, "leaf", "x2"),
            ("w2", w2, "leaf", "w2"),
            ("b", b, "leaf", "b"),
            ("x1w1", x1w1, "*", "x1w1 = x1 · w1"),
            ("x2w2", x2w2, "*", "x2w2 = x2 · w2"),
            ("s", s, "+", "s = x1w1 + x2w2"),
            ("n", n, "+", "n = s + b"),
            ("o", o, "tanh", "o = tanh(n)"),
        ],
        "neuron",
        "tanh neuron",
    )


def _square() -> dict:
    a = Value(3)
    f = a * a
    return trace(f, [("a", a, "leaf", "a"), ("f", f, "*", "f = a · a")], "square", "a · a")


def _diamond() -> dict:
    a = Value(2)
    b = a + 1
    c = a * 3
    d = b * c
    return trace(
        d,
        [("a", a, "leaf", "a"), ("b", b, "+", "b = a + 1"), ("c", c, "*", "c = 3a"), ("d", d, "*", "d = b · c")],
        "diamond",
        "diamond: b = a + 1, c = 3a, d = b · c",
    )


def _linear() -> dict:
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    d = a * b
    L = d + c
    return trace(
        L,
        [
            ("a", a, "leaf", "a"),
            ("b", b, "leaf", "b"),
            ("c", c, "leaf", "c"),
            ("d", d, "*", "d = a · b"),
            ("L", L, "+", "L = d + c"),
        ],
        "linear",
        "L = a · b + c",
    )


# --8<-- [end:presets]


PRESETS = {"fab": _fab, "relu": _relu, "neuron": _neuron, "square": _square, "diamond": _diamond, "linear": _linear}


def preset(name: str) -> dict:
    """A fresh trace of one of the preset graphs (see PRESETS)."""
    if name not in PRESETS:
        raise KeyError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
    return PRESETS[name]()
