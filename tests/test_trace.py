"""The traces embedded in the site agree with the engine they were recorded from."""

import itertools
import json

import pytest

from microgpt import trace as T
from microgpt.engine import Value

NAMES = list(T.PRESETS)


def _engine_grads(name: str) -> dict[str, float]:
    """Rebuild a preset with plain Values, run backward(), and read .grad by node id."""
    t = T.preset(name)
    # rebuild the same graph from the trace's forward order and expressions, independently of trace.py
    values: dict[str, Value] = {}
    ops = {"+": lambda x, y: x + y, "*": lambda x, y: x * y}
    for n in t["nodes"]:
        kids = [values[c] for c in n["children"]]
        if n["leaf"]:
            values[n["id"]] = Value(n["data"])
        elif n["op"] in ops:
            values[n["id"]] = ops[n["op"]](*kids)
        else:
            values[n["id"]] = getattr(kids[0], n["op"])()
    values[t["root"]].backward()
    return {k: v.grad for k, v in values.items()}


@pytest.mark.parametrize("name", NAMES)
def test_trace_is_json_and_round_trips(name):
    t = T.preset(name)
    assert json.loads(json.dumps(t)) == t


@pytest.mark.parametrize("name", NAMES)
def test_grads_equal_value_grad_after_backward(name):
    t = T.preset(name)
    assert {n["id"]: n["grad"] for n in t["nodes"]} == _engine_grads(name)


@pytest.mark.parametrize("name", NAMES)
def test_topo_is_a_valid_topological_order(name):
    t = T.preset(name)
    ids = [n["id"] for n in t["nodes"]]
    assert sorted(t["topo"]) == sorted(ids) and t["topo"][-1] == t["root"]
    pos = {v: i for i, v in enumerate(t["topo"])}
    for e in t["edges"]:
        assert pos[e["child"]] < pos[e["node"]], e


@pytest.mark.parametrize("name", NAMES)
def test_forward_order_computes_children_first(name):
    t = T.preset(name)
    pos = {v: i for i, v in enumerate(t["forward"])}
    for e in t["edges"]:
        assert pos[e["child"]] < pos[e["node"]]


@pytest.mark.parametrize("name", NAMES)
def test_backward_log_follows_reverse_topological_order(name):
    # the log was recorded from Value.backward() itself; its visits must be reversed(topo), skipping leaves
    t = T.preset(name)
    leaves = {n["id"] for n in t["nodes"] if n["leaf"]}
    visits = [e["node"] for i, e in enumerate(t["backward"]) if i == 0 or t["backward"][i - 1]["node"] != e["node"]]
    assert visits == [v for v in reversed(t["topo"]) if v not in leaves]
    assert len(t["backward"]) == len(t["edges"])


@pytest.mark.parametrize("name", NAMES)
def test_plus_equals_log_replays_to_the_final_grads(name):
    t = T.preset(name)
    grad = {n["id"]: 0 for n in t["nodes"]}
    assert t["seed"] == {"node": t["root"], "before": 0, "after": 1}
    grad[t["root"]] = t["seed"]["after"]
    for step in t["backward"]:
        assert grad[step["child"]] == step["before"]
        assert grad[step["node"]] == step["upstream"]
        grad[step["child"]] += step["local_grad"] * step["upstream"]
        assert grad[step["child"]] == step["after"]
    assert grad == {n["id"]: n["grad"] for n in t["nodes"]}


@pytest.mark.parametrize("name", NAMES)
def test_replay_in_engine_order_matches_the_engine(name):
    t = T.preset(name)
    assert T.replay(t, list(reversed(t["topo"]))) == {n["id"]: n["grad"] for n in t["nodes"]}


def test_diamond_replay_gives_15_only_when_d_comes_before_b_and_c():
    t = T.preset("diamond")
    for order in itertools.permutations(["a", "b", "c", "d"]):
        ok = order.index("d") < order.index("b") and order.index("d") < order.index("c")
        assert (T.replay(t, list(order))["a"] == 15) == ok, order
    assert T.replay(t, ["b", "d", "c", "a"])["a"] == 9  # the path through b lost its 6


def test_seed_numbers():
    g = {n: {x["id"]: x["grad"] for x in T.preset(n)["nodes"]} for n in NAMES}
    assert (g["fab"]["a"], g["fab"]["b"], g["fab"]["c"]) == (10, 10, -1)
    assert g["neuron"]["w1"] == pytest.approx(1.0) and g["neuron"]["w2"] == 0
    assert g["square"]["a"] == 6 and g["diamond"]["a"] == 15
    assert (g["linear"]["a"], g["linear"]["b"], g["linear"]["c"]) == (-3, 2, 1)


def test_trace_restores_plain_values():
    a = Value(2.0)
    f = a * a
    T.trace(f, [("a", a, "leaf", "a"), ("f", f, "*", "f = a · a")])
    assert type(a) is Value and type(f) is Value and a.grad == 4.0


def test_unnamed_computed_node_is_refused():
    a = Value(1.0)
    f = (a + 1) * 2
    with pytest.raises(ValueError, match="not named"):
        T.trace(f, [("a", a, "leaf", "a"), ("f", f, "*", "f")])


def test_unknown_preset_names_the_choices():
    with pytest.raises(KeyError, match="diamond"):
        T.preset("nope")


def _hook():
    import importlib.util
    from pathlib import Path

    pytest.importorskip("mkdocs")
    path = Path(__file__).resolve().parent.parent / "docs" / "hooks" / "traces.py"
    spec = importlib.util.spec_from_file_location("traces_hook", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_self_check_answers_are_engine_grads():
    hook = _hook()
    for key, q in hook._questions().items():
        html = hook.render_check(key)
        want = {n["id"]: n["grad"] for n in T.preset(q["preset"])["nodes"]}[q["node"]]
        assert f'data-answer="{want!r}"' in html


def test_hook_refuses_unknown_markers():
    from mkdocs.exceptions import PluginError

    hook = _hook()
    for kind, attrs in [
        ("widget", {"preset": "nope"}),
        ("check", {"question": "nope"}),
        ("diagram", {"diagram": "nope"}),
        ("gadget", {}),
    ]:
        with pytest.raises(PluginError):
            hook.render(kind, attrs)
