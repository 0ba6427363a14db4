"""The traces embedded in the site agree with the engine they were recorded from.

The recorder is microgpt.course.trace: the build draws the site's graphs from it, and the browser's Python
imports it from the wheel the site serves. The build's graphs (tools/mgsite/mgsite/graphs.py) are tested here too.
"""

import ast
import html
import itertools
import json
import math
import re
import sys
from pathlib import Path

import pytest

from microgpt.course import trace as T
from microgpt.course.diagrams import fmt, sig3
from microgpt.engine import Value

ROOT = Path(__file__).resolve().parents[2]
RECORDER = Path(T.__file__)


NAMES = list(T.PRESETS)


def _engine_grads(name: str) -> dict[str, float]:
    """Rebuild a preset with plain Values, run backward(), and read .grad by node id."""
    t = T.trace_preset(name)
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
    t = T.trace_preset(name)
    assert json.loads(json.dumps(t)) == t


@pytest.mark.parametrize("name", NAMES)
def test_grads_equal_value_grad_after_backward(name):
    t = T.trace_preset(name)
    assert {n["id"]: n["grad"] for n in t["nodes"]} == _engine_grads(name)


@pytest.mark.parametrize("name", NAMES)
def test_topo_is_a_valid_topological_order(name):
    t = T.trace_preset(name)
    ids = [n["id"] for n in t["nodes"]]
    assert sorted(t["topo"]) == sorted(ids) and t["topo"][-1] == t["root"]
    pos = {v: i for i, v in enumerate(t["topo"])}
    for e in t["edges"]:
        assert pos[e["child"]] < pos[e["node"]], e


@pytest.mark.parametrize("name", NAMES)
def test_forward_order_computes_children_first(name):
    t = T.trace_preset(name)
    pos = {v: i for i, v in enumerate(t["forward"])}
    for e in t["edges"]:
        assert pos[e["child"]] < pos[e["node"]]


@pytest.mark.parametrize("name", NAMES)
def test_backward_log_follows_reverse_topological_order(name):
    # the log was recorded from Value.backward() itself; its visits must be reversed(topo), skipping leaves
    t = T.trace_preset(name)
    leaves = {n["id"] for n in t["nodes"] if n["leaf"]}
    visits = [e["node"] for i, e in enumerate(t["backward"]) if i == 0 or t["backward"][i - 1]["node"] != e["node"]]
    assert visits == [v for v in reversed(t["topo"]) if v not in leaves]
    assert len(t["backward"]) == len(t["edges"])


@pytest.mark.parametrize("name", NAMES)
def test_plus_equals_log_replays_to_the_final_grads(name):
    t = T.trace_preset(name)
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
    t = T.trace_preset(name)
    assert T.replay(t, list(reversed(t["topo"])))[0] == {n["id"]: n["grad"] for n in t["nodes"]}


def test_diamond_replay_gives_15_only_when_z_comes_before_s_and_t():
    t = T.trace_preset("diamond")
    for order in itertools.permutations(["x", "s", "t", "z"]):
        ok = order.index("z") < order.index("s") and order.index("z") < order.index("t")
        assert (T.replay(t, list(order))[0]["x"] == 15) == ok, order
    assert T.replay(t, ["s", "z", "t", "x"])[0]["x"] == 9  # the path through s lost its 6
    assert T.replay(t, ["z", "x", "s", "t"])[0]["x"] == 15  # x is a leaf: visiting it early pushes nothing


def _is_reverse_topological(t: dict, order: list[str]) -> bool:
    pos = {v: i for i, v in enumerate(order)}
    return all(pos[e["node"]] < pos[e["child"]] for e in t["edges"] if e["child"] in pos)


def test_shared_interior_node_x_grad_is_30_exactly_for_orders_that_visit_u_after_s_and_t():
    t = T.trace_preset("shared")
    assert {n["id"]: n["data"] for n in t["nodes"] if not n["const"]} == {"x": 1, "u": 2, "s": 3, "t": 6, "z": 18}
    assert {n["id"]: n["grad"] for n in t["nodes"]}["x"] == 30
    right = 0
    for order in map(list, itertools.permutations(T.movable(t))):
        x = T.replay(t, order)[0]["x"]
        # u must be visited after both its users, and s, t after z; x's own place does not matter
        complete = all(order.index(a) < order.index(b) for a, b in [("z", "s"), ("z", "t"), ("s", "u"), ("t", "u")])
        assert (x == 30) == complete, (order, x)
        right += complete
        if _is_reverse_topological(t, order):
            assert x == 30, order
    assert right == 10  # x anywhere among 5 places, times z first and u after s and t (2 ways)
    assert T.replay(t, ["z", "s", "u", "t", "x"])[0]["x"] == 12  # u passed on 6 before t added its 9


@pytest.mark.parametrize("name", [n for n, p in T.PRESETS.items() if p[2]])
def test_playground_orders_table_is_the_replay_of_every_order(name):
    t = T.trace_preset(name)
    ids = [n["id"] for n in t["nodes"]]
    orders = [list(o) for o in itertools.permutations(T.movable(t))]
    assert sorted(t["orders"]) == sorted(",".join(o) for o in orders)
    for order in orders:
        grad, seen = T.replay(t, order)
        assert t["orders"][",".join(order)] == [[grad[i] for i in ids], [seen[i] for i in order]]


def test_seed_numbers():
    g = {n: {x["id"]: x["grad"] for x in T.trace_preset(n)["nodes"]} for n in NAMES}
    assert (g["fab"]["a"], g["fab"]["b"], g["fab"]["d"]) == (10, 10, -1)
    assert g["neuron"]["w1"] == pytest.approx(1.0) and g["neuron"]["w2"] == 0
    assert g["square"]["a"] == 6 and g["diamond"]["x"] == 15
    assert (g["linear"]["a"], g["linear"]["b"], g["linear"]["d"]) == (-3, 2, 1)
    assert (g["relu"]["a"], g["relu"]["b"], g["relu"]["d"], g["relu"]["c"], g["relu"]["e"]) == (-3, 2, 1, 1, 1)
    assert g["shared"]["x"] == 30


def test_trace_leaves_the_graph_as_backward_leaves_it():
    a = Value(2.0)
    f = a * a
    T.trace(f, [("a", a), ("f", f, "*", "f = a · a")])
    assert type(a) is Value and type(f) is Value and a.grad == 4.0 and f.grad == 1


def test_trace_refuses_a_graph_that_already_ran_backward():
    a = Value(2.0)
    f = a * a
    f.backward()
    with pytest.raises(ValueError, match="afresh"):
        T.trace(f, [("a", a), ("f", f, "*", "f = a · a")])


def test_a_log_that_disagrees_with_backward_is_refused(monkeypatch):
    # if Value.backward() changed its rule (here: it forgets to accumulate), the log must not pretend
    def assigns(self):
        topo = T.topological_order(self)
        self.grad = 1
        for v in reversed(topo):
            for child, local_grad in zip(v._children, v._local_grads):
                child.grad = local_grad * v.grad

    monkeypatch.setattr(Value, "backward", assigns)
    with pytest.raises(RuntimeError, match="disagrees with Value.backward"):
        T.trace_preset("diamond")


@pytest.mark.parametrize("name", NAMES)
def test_preset_leaf_ids_are_its_parameters(name):
    t = T.trace_preset(name)
    leaves = [n["id"] for n in t["nodes"] if n["leaf"] and not n["const"]]
    assert leaves == list(T.default_leaves(name))
    assert {n["id"]: n["data"] for n in t["nodes"] if n["id"] in leaves} == T.default_leaves(name)


def test_trace_preset_takes_new_leaf_values_and_recomputes_with_the_engine():
    t = T.trace_preset("relu", {"a": 1.5, "d": -20.0})
    a, b, d = Value(1.5), Value(-3), Value(-20.0)
    f = (a * b + d).relu()
    f.backward()
    got = {n["id"]: (n["data"], n["grad"]) for n in t["nodes"]}
    assert got["a"] == (a.data, a.grad) and got["b"] == (b.data, b.grad) and got["d"] == (d.data, d.grad)
    assert got["f"] == (f.data, 1) and got["a"][1] == 0  # e < 0: relu passes nothing back
    assert T.trace_preset("relu", {}) == T.trace_preset("relu")


@pytest.mark.parametrize(
    ("leaves", "message"),
    [
        ({"z": 1.0}, "no leaf 'z'"),
        ({"a": "2"}, "finite number"),
        ({"a": True}, "finite number"),
        ({"a": math.nan}, "finite number"),
        ({"a": math.inf}, "finite number"),
        ({"a": 1e200, "b": 1e200}, "overflow"),
    ],
)
def test_trace_preset_refuses_bad_leaves_with_a_message(leaves, message):
    with pytest.raises(ValueError, match=message):
        T.trace_preset("relu", leaves)


def test_recorder_imports_only_microgpt_and_the_standard_library():
    # the browser's Python has the microgpt wheel and the standard library, nothing else
    tree = ast.parse(RECORDER.read_text(encoding="utf-8"))
    roots = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    roots |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
    assert roots - {"__future__", "microgpt"} <= set(sys.stdlib_module_names), roots


def test_no_taught_module_imports_the_course_tools_or_the_command_line():
    # the recorder watches the engine from outside: the taught files never depend on it, nor on the CLI
    for name in ("engine", "model", "data", "train", "optim", "sample"):
        tree = ast.parse((RECORDER.parents[1] / f"{name}.py").read_text(encoding="utf-8"))
        imported = {a.name for a in ast.walk(tree) if isinstance(a, ast.alias)}
        imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not {m for m in imported if m.startswith(("microgpt.course", "microgpt.cli"))}, name
        assert not {"trace", "course", "cli"} & imported, name


def test_unnamed_computed_node_is_refused():
    a = Value(1.0)
    f = (a + 1) * 2
    with pytest.raises(ValueError, match="not named"):
        T.trace(f, [("a", a), ("f", f, "*", "f")])


def test_unknown_preset_names_the_choices():
    with pytest.raises(ValueError, match="diamond"):
        T.trace_preset("nope")


def _hook():
    """mgsite/graphs.py, the site extension's graphs and self-checks (it needs the docs toolchain)."""
    pytest.importorskip("markdown")
    from mgsite import graphs

    return graphs


@pytest.mark.parametrize(
    ("text", "want"),
    [("6", 6.0), ("-1.5", -1.5), ("−3", -3.0), (" 2.50 ", 2.5), (".5", 0.5), ("5.", 5.0), ("0", 0.0)]
    + [(bad, None) for bad in ["", " ", "0x0A", "1e1", "1,0", "+3", "--3", "1.2.3", "inf", "nan", "½", "3 4", "1_000"]]
    + [("٣", None)],  # an Arabic-Indic 3: Python's \\d would take it
)
def test_plain_decimal_parsing_is_strict(text, want):
    assert _hook().parse_decimal(text) == want


CHECK = """//// check | {attrs}
**Predict first.** With $a = 3$, what is it?

{options}/// hint
Look at `a`.
///

/// explain
Two paths each carry 3: 6.
///
////"""
OPTIONS = "1. d, a, b, c\n2. d, b, c, a\n\n"


def render_checks(markdown_text: str) -> str:
    """A page's Markdown as the site converts its self-checks: its blocks, math, then the extension's forms."""
    markdown = pytest.importorskip("markdown")
    from mgsite.extension import SiteExtension

    extensions = ["md_in_html", "pymdownx.arithmatex", SiteExtension(root=str(ROOT))]
    return markdown.markdown(
        markdown_text, extensions=extensions, extension_configs={"pymdownx.arithmatex": {"generic": True}}
    )


def test_authored_number_check_becomes_a_form_with_its_parts():
    out = render_checks("before\n\n" + CHECK.format(attrs="answer=6", options="") + "\n\nafter")
    assert out.startswith("<p>before</p>\n<form") and out.endswith("</form>\n<p>after</p>")
    assert 'data-answer="6"' in out and 'data-tolerance="6.000000000000001e-09"' in out
    assert '<span class="arithmatex">' in out and "<code>a</code>" in out
    assert re.search(r'<div class="autograd-check__explain"[^>]*hidden[^>]*>.*Two paths', out, re.S)
    assert re.search(r'<details class="autograd-check__hint">\s*<summary>Hint</summary>.*Look at', out, re.S)
    assert 'role="status"' in out and 'aria-live="polite"' in out
    assert 'type="text"' in out and 'inputmode="decimal"' in out


def test_authored_choice_check_gets_one_radio_per_option():
    out = render_checks(CHECK.format(attrs="choice=2", options=OPTIONS))
    assert 'data-choice="2"' in out and "<ol>" not in out
    assert re.findall(r'<input name="[^"]+" type="radio" value="(\d)"', out) == ["1", "2"]
    assert "d, b, c, a</span>" in out


@pytest.mark.parametrize(
    ("attrs", "options", "message"),
    [
        ("", "", "write answer=NUMBER"),
        ("question=fab-a", "", "write answer=NUMBER"),  # the older keyed form is gone
        ("answer=6 choice=1", OPTIONS, "exactly one of answer=NUMBER or choice=N"),
        ("answer=6 answer", "", "write answer=NUMBER"),
        ("answer=0x0A", "", "not a plain decimal"),
        ("answer=1e1", "", "not a plain decimal"),
        ("answer=6 tolerance=a-bit", "", "tolerance=a-bit"),
        ("choice=3", OPTIONS, "1 to 2"),
        ("choice=0", OPTIONS, "1 to 2"),
        ("choice=2", "", "ordered list"),
    ],
)
def test_malformed_self_check_fails_the_build(attrs, options, message):
    from mgsite.errors import PageError

    with pytest.raises(PageError, match=message):
        render_checks(CHECK.format(attrs=attrs, options=options).replace("check | \n", "check\n"))


def test_self_check_without_hint_or_explanation_fails_the_build():
    from mgsite.errors import PageError

    with pytest.raises(PageError, match="/// hint and /// explain"):
        render_checks("//// check | answer=6\nWhat is it?\n////")
    with pytest.raises(PageError, match="question is missing"):
        render_checks(
            CHECK.format(attrs="answer=6", options="").replace("**Predict first.** With $a = 3$, what is it?", "")
        )
    with pytest.raises(PageError, match="only inside a //// check"):
        render_checks("/// hint\nLook at `a`.\n///")


@pytest.mark.parametrize(
    "text",
    [
        '<div class="autograd-widget" data-preset="relu"></div>',
        '<div class="autograd-check" data-answer="6" markdown>\nWhat?\n</div>',
        "{{ train_widget }}",
    ],
)
def test_the_former_html_markers_fail_the_build_and_name_the_block(text):
    from mgsite.errors import PageError

    with pytest.raises(PageError, match="write it as a block"):
        render_checks(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("/// widget | nope\n///", "/// widget: unknown preset 'nope'"),
        ("/// playground | neuron\n///", "/// playground: unknown preset 'neuron'"),
        ("/// diagram | nope\n///", "/// diagram: unknown diagram 'nope'"),
        ("/// widget\n///", "not a block this site reads"),  # no preset
        ("/// gadget | relu\n///", "not a block this site reads"),
        ("/// train | now\n///", "not a block this site reads"),
        ("/// widget | relu\nsome text\n///", "holds nothing"),
    ],
)
def test_a_block_the_site_cannot_make_fails_the_build(text, message):
    from mgsite.errors import PageError

    with pytest.raises(PageError, match=re.escape(message)):
        render_checks(text)


def test_the_blocks_make_the_graphs_html_as_a_raw_block_would():
    hook = _hook()
    for block, kind, key, name in [("widget", "widget", "preset", "relu"), ("diagram", "diagram", "diagram", "shared")]:
        out = render_checks(f"before\n\n/// {block} | {name}\n///\n\nafter")
        assert out == f"<p>before</p>\n{hook.render(kind, {key: name})}\n\n<p>after</p>"


def test_hook_refuses_unknown_markers():
    from mgsite.errors import PageError

    hook = _hook()
    for kind, attrs in [
        ("widget", {"preset": "nope"}),
        ("playground", {"preset": "neuron"}),  # too many orders to tabulate; not a playground preset
        ("diagram", {"diagram": "nope"}),
        ("gadget", {}),
    ]:
        with pytest.raises(PageError):
            hook.render(kind, attrs)


def test_playground_embeds_the_recorders_trace_with_every_order():
    hook = _hook()
    out = hook.render("playground", {"preset": "shared"})
    embedded = json.loads(html.unescape(re.search(r"data-trace='([^']*)'", out)[1]))
    t = T.trace_preset("shared")
    # the same trace, plus the positions the hook adds to it, its nodes and its edges
    same = {k: embedded[k] for k in t}
    for part in ("nodes", "edges"):
        same[part] = [{k: got[k] for k in want} for got, want in zip(same[part], t[part], strict=True)]
    assert same == t
    assert {"width", "height"} <= embedded.keys() and {"x", "y"} <= embedded["nodes"][0].keys()


@pytest.mark.parametrize("name", ["forward-backward", "local-rules", "grad-bars", "forward-graph", "shared"])
def test_diagrams_are_svg_with_the_engine_numbers(name):
    out = _hook().render("diagram", {"diagram": name})
    assert out.startswith(f'<figure class="autograd-diagram" data-diagram="{name}">') and "<svg" in out
    preset = {"forward-graph": "relu", "shared": "shared"}.get(name, "linear")
    t = T.trace_preset(preset)
    shown = [f"data {fmt(n['data'])}" for n in t["nodes"]] if name == "forward-graph" else []
    shown += [f"grad {fmt(n['grad'])}" for n in t["nodes"]] if name in ("forward-backward", "shared") else []
    shown += [f"{n['label']}.grad = {fmt(n['grad'])}" for n in t["nodes"]] if name == "grad-bars" else []
    shown += [f"+= {fmt(b['local_grad'] * b['upstream'])}" for b in t["backward"]] if name == "local-rules" else []
    assert shown
    for s in shown:
        assert html.escape(s) in out, (name, s)


def test_gradient_flow_diagram_shows_every_place_and_its_size_in_words_and_in_the_picture():
    from microgpt.course.gradient_sizes import gradient_sizes

    hook = _hook()
    out = hook.render("diagram", {"diagram": "gpt-gradient-flow"})
    assert out.startswith('<figure class="autograd-diagram" data-diagram="gpt-gradient-flow">')
    label = html.unescape(re.search(r'aria-label="([^"]*)"', out)[1])
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", out)]
    places = gradient_sizes()
    bars = [float(b) for b in re.findall(r'<rect x="[^"]*" y="[^"]*" width="([^"]*)" height="12"', out)]
    assert len(bars) == len(places)
    for place in places:
        assert place.label in texts and sig3(place.norm) in texts
        assert f"{place.label}{' (weight matrix)' if place.kind == 'matrix' else ''}: {sig3(place.norm)}" in label
    # a bar ten times longer on the log scale: each factor of ten adds the same length
    by_name = dict(zip((p.name for p in places), zip(bars, (p.norm for p in places))))
    (b1, n1), (b2, n2) = by_name["wte"], by_name["layer0.attn_wq"]
    (b3, n3), (b4, n4) = by_name["x0"], by_name["attn_in"]
    assert (b1 - b2) / math.log10(n1 / n2) == pytest.approx((b3 - b4) / math.log10(n3 / n4), abs=0.1)


@pytest.mark.parametrize(
    ("block", "where"),
    [
        ("/// widget | nope\n///", "docs/page.md:5: /// widget: unknown preset"),
        ("/// gadget\n///", "docs/page.md:5: '/// gadget' is not a block"),
        ("//// check | answer=3\nWhat is it?\n\n/// hint\nLook.\n///\n////", "docs/page.md:6: check 'What is it?"),
    ],
)
def test_a_blocks_error_names_the_page_and_line(tmp_path, block, where):
    markdown = pytest.importorskip("markdown")
    from mgsite.errors import PageError
    from mgsite.extension import SiteExtension

    text = f"# A page\n\nSome text.\n\n{block}\n"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(text, encoding="utf-8")
    with pytest.raises(PageError, match=re.escape(where)):
        markdown.markdown(text, extensions=[SiteExtension(root=str(tmp_path), page="page.md", typeset_math=False)])
