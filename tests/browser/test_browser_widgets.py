"""The interactive graphs and self-checks in a real browser: they show exactly the numbers the engine
records (microgpt.course.trace), judge visit orders as Python does, parse answers strictly,
stay readable (SVG text, contrast, axe-core) at 390 and 1280 px in both schemes, and keep focus.

Uses the browser fixtures of tests/browser/test_browser.py: skips without Chromium or playwright, except with
CI=true, where it fails. Widgets that no page uses yet (the shared playground, authored checks, the
new diagrams) are rendered by the site's Markdown extension here (mgsite) and mounted on a built page.
"""

from __future__ import annotations

import itertools
import re

import pytest
from browsing import (
    DOCS,
    Watched,
    build_what_waits,
    open_page,
)
from browsing import page_with as _page_with
from mgsite import graphs
from widget_views import mount_extra

from microgpt.course import trace as T
from microgpt.course.diagrams import fmt, sig3  # fmt: the widgets' number format (format.js too)
from microgpt.course.gradient_sizes import gradient_sizes

pytestmark = pytest.mark.browser


def _num(text: str) -> float:
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    assert m, text
    return float(m.group())


def _open(page, base_url: str, path: str, extra: bool = False) -> None:
    """Load a built page; with extra, also mount the widgets no page uses yet, at the end of the article."""
    open_page(page, base_url + path)
    if extra:
        mount_extra(page)
        build_what_waits(page)
    page.wait_for_function("() => !document.querySelector('.autograd-fallback')")


@pytest.fixture(scope="module")
def widget_page(site_dir):
    return _page_with(site_dir, 'class="autograd-widget"')


# A module's own functions are called from its source, docs/javascripts/, which the build bundles as it is
# (the site serves only the bundles, whose chunks name their exports as they please): the shared page imports
# it from SOURCE, answered from the folder.
SOURCE = "/_source/"


def _serve_sources(route) -> None:
    name = route.request.url.split(SOURCE, 1)[1]
    route.fulfill(path=DOCS / "javascripts" / name, content_type="text/javascript")


@pytest.fixture(scope="module")
def shared_load(browser, base_url, widget_page):
    """One load of the widget page, with the widgets no page uses yet, for the checks that only read it or
    call its modules: they need no load of their own."""
    w = Watched(browser, base_url)
    w.page.route(f"**{SOURCE}**", _serve_sources)
    _open(w.page, base_url, widget_page, extra=True)
    yield w
    w.close()


@pytest.fixture
def read_only(shared_load):
    """shared_load's page, failing the test on a console error or an outside request during it (as `watched`)."""
    before = len(shared_load.problems())
    yield shared_load.page
    assert shared_load.problems()[before:] == []


# ---------------------------------------------------------------------------- step-through widget
def _node_texts(widget, nid: str) -> tuple[str, str]:
    g = widget.locator(f"g[data-node='{nid}']")
    return g.locator("text.ag-data").text_content(), g.locator("text.ag-grad").text_content()


def test_widget_steps_show_the_engine_numbers_for_every_preset(watched, base_url, widget_page):
    """Every preset of the menu, chosen in turn on one load, steps through the engine's numbers."""
    page = watched.page
    _open(page, base_url, widget_page)
    widget = page.locator(".autograd-widget").first
    for name in T.PRESETS:
        _steps_show_the_engine_numbers(widget, name)


def _steps_show_the_engine_numbers(widget, name: str) -> None:
    widget.locator("select").select_option(name)
    t = T.trace_preset(name)  # computed here, by the engine, independently of the page
    nodes = {n["id"]: n for n in t["nodes"]}
    step = widget.locator("button[data-action='step']")
    assert widget.get_attribute("data-step") == "0"
    for k, nid in enumerate(t["forward"], start=1):
        step.click()
        assert widget.get_attribute("data-phase") == "forward"
        data, grad = _node_texts(widget, nid)
        assert _num(data) == pytest.approx(nodes[nid]["data"], abs=5e-5), (name, nid, data)
        assert _num(grad) == 0  # Value.grad starts at 0
        assert widget.get_attribute("data-step") == str(k)
    step.click()  # the seed
    assert _num(_node_texts(widget, t["root"])[1]) == t["seed"]["after"]
    sentence = widget.locator("[data-role='sentence']")
    for entry in t["backward"]:
        step.click()
        assert widget.get_attribute("data-phase") == "backward"
        _, grad = _node_texts(widget, entry["child"])
        assert _num(grad) == pytest.approx(entry["after"], abs=5e-5), (name, entry, grad)
        said = sentence.text_content()
        assert f"goes {fmt(entry['before'])} → {fmt(entry['after'])}" in said, said
    assert step.is_disabled()
    for nid, n in nodes.items():
        assert _num(_node_texts(widget, nid)[1]) == pytest.approx(n["grad"], abs=5e-5), (name, nid)
    edge_labels = {
        e.get_attribute("data-edge"): e.locator("text.ag-edge-label").text_content()
        for e in widget.locator("g.ag-edge-group").all()
    }
    for e in t["edges"]:
        assert _num(edge_labels[f"{e['node']}-{e['index']}"]) == pytest.approx(e["local_grad"], abs=5e-5)


def test_arrows_point_the_way_grad_flows_during_the_backward_pass(watched, base_url, widget_page):
    page = watched.page
    _open(page, base_url, widget_page)
    widget = page.locator(".autograd-widget").first
    widget.locator("select").select_option("relu")
    t = T.trace_preset("relu")
    heads = "els => els.map(p => [p.getAttribute('marker-start'), p.getAttribute('marker-end')])"
    paths = widget.locator("path.ag-edge")
    for _ in t["forward"]:  # forward: every arrowhead at the parent end (data flows child → parent)
        widget.locator("button[data-action='step']").click()
        assert all(start is None and end for start, end in paths.evaluate_all(heads))
    widget.locator("button[data-action='step']").click()  # the seed: from here on, grad flows parent → child
    assert all(start and end is None for start, end in paths.evaluate_all(heads))
    # each path runs from the child to the parent, so a head at its start points at the child
    for e in t["edges"]:
        d = widget.locator(f"g[data-edge='{e['node']}-{e['index']}'] path").get_attribute("d")
        x_start, x_end = float(d[1:].split(",")[0]), float(d.split(" ")[-1].split(",")[0])
        assert x_start < x_end  # the child sits left of its parent
    widget.locator("button[data-action='reset']").click()
    assert all(start is None and end for start, end in paths.evaluate_all(heads))


FOCUSED = """() => { const a = document.activeElement;
  return a === document.body ? 'BODY' : a.dataset.action || a.dataset.place || a.tagName; }"""


def _active_is_not_body(page) -> str:
    """What has focus: a button's data-action or data-place, a tag name, or BODY when focus was dropped."""
    return page.evaluate(FOCUSED)


def test_focus_moves_on_when_a_button_disables_itself(watched, base_url, widget_page):
    page = watched.page
    _open(page, base_url, widget_page)
    widget = page.locator(".autograd-widget").first
    t = T.trace_preset(widget.get_attribute("data-current"))
    total = len(t["forward"]) + 1 + len(t["backward"])
    widget.locator("button[data-action='run-all']").focus()
    page.keyboard.press("Enter")
    assert widget.get_attribute("data-step") == str(total)
    assert _active_is_not_body(page) == "back"
    widget.locator("button[data-action='reset']").focus()
    page.keyboard.press("Enter")
    assert widget.get_attribute("data-step") == "0" and _active_is_not_body(page) == "step"
    page.keyboard.press("Enter")  # Step, then Back to step 0
    widget.locator("button[data-action='back']").focus()
    page.keyboard.press("Enter")
    assert widget.get_attribute("data-step") == "0" and _active_is_not_body(page) == "step"
    # keys on the widget itself: → ← End Home
    widget.focus()
    for key, want in [("ArrowRight", "1"), ("ArrowRight", "2"), ("ArrowLeft", "1"), ("End", str(total)), ("Home", "0")]:
        page.keyboard.press(key)
        assert widget.get_attribute("data-step") == want, key
    # the arrow keys move the caret in a leaf input; they do not step the graph
    widget.locator("input[data-leaf]").first.focus()
    page.keyboard.press("ArrowRight")
    assert widget.get_attribute("data-step") == "0"


def test_controls_fit_on_one_line_at_1280(read_only):
    page = read_only
    rows = page.locator(".autograd-controls").all()
    assert rows
    for row in rows:
        tops = row.evaluate(
            "r => [...r.children].filter(c => c.offsetHeight).map(c => Math.round(c.getBoundingClientRect().top))"
        )
        assert max(tops) - min(tops) <= 4, (row.inner_text(), tops)  # one line, not wrapped


def test_legend_under_every_graph(read_only):
    page = read_only
    for el in page.locator(".autograd-widget, .autograd-playground").all():
        text = el.locator("ul.autograd-legend").inner_text()
        assert "dashed box: a constant" in text and "visiting" in text and "arrows point" in text
    for fig in page.locator(
        "figure.autograd-diagram:has(.ag-node--const), figure.autograd-diagram:has(.ag-edge--back)"
    ).all():
        assert fig.locator("figcaption ul.autograd-legend li").count() >= 1


def test_keyboard_hint_shows_with_a_keyboard_and_hides_on_touch(browser, base_url, widget_page):
    for touch, visible in [(False, True), (True, False)]:
        context = browser.new_context(viewport={"width": 390, "height": 800}, has_touch=touch, is_mobile=touch)
        try:
            page = context.new_page()
            _open(page, base_url, widget_page)
            hint = page.locator(".autograd-widget .autograd-keys").first
            assert hint.is_visible() == visible, touch
        finally:
            context.close()


# ---------------------------------------------------------------------------- your own leaf values
def test_apply_dispatches_mg_leaves_with_the_parsed_numbers(watched, base_url, widget_page):
    page = watched.page
    _open(page, base_url, widget_page)
    widget = page.locator(".autograd-widget").first
    widget.locator("select").select_option("relu")
    page.evaluate(
        "() => { window.heard = []; document.addEventListener('mg:leaves',"
        " (e) => heard.push({preset: e.detail.preset, leaves: e.detail.leaves})); }"
    )
    widget.locator("input[data-leaf='a']").fill("1.5")
    widget.locator("input[data-leaf='d']").fill("−20")
    widget.locator("button[data-action='apply']").click()
    assert page.evaluate("() => heard") == [{"preset": "relu", "leaves": {"a": 1.5, "b": -3, "d": -20}}]
    status = widget.locator("[data-role='leaves-status']").text_content()
    assert status.startswith("Computing with Python…") and "old ones" in status
    assert widget.get_attribute("data-stale") is not None  # the old numbers are marked stale at once
    widget.locator("input[data-leaf='b']").fill("1e1")  # strict: refused before anything is sent
    widget.locator("button[data-action='apply']").click()
    status = widget.locator("[data-role='leaves-status']").text_content()
    assert "“1e1” is not a plain decimal number" in status and page.evaluate("() => heard.length") == 1
    assert widget.locator("input[data-leaf='b']").get_attribute("aria-invalid") is not None


# The test stands in for the page's Python: it takes the widget's mg:leaves request before the page's own
# listener does, and keeps its two answers (detail.trace, detail.error) for the test to call.
KEEP_ANSWERS = """() => window.addEventListener('mg:leaves', (e) => {
  e.stopPropagation();
  window.mgAnswer = e.detail;
}, { capture: true })"""


def test_an_answered_leaves_request_shows_pythons_numbers_for_new_leaves(watched, base_url, widget_page):
    page = watched.page
    _open(page, base_url, widget_page)
    widget = page.locator(".autograd-widget").first
    widget.locator("select").select_option("relu")
    leaves = {"a": 1.5, "d": -20.0}
    t = T.trace_preset("relu", leaves)  # what the in-browser Python will send: the engine's numbers
    page.evaluate(KEEP_ANSWERS)
    widget.locator("input[data-leaf='d']").fill("-20")
    widget.locator("input[data-leaf='d']").press("Enter")  # Enter in a box sends the values, and focus stays there
    page.wait_for_function("() => window.mgAnswer !== undefined")
    assert widget.get_attribute("data-stale") is not None
    page.evaluate("(t) => window.mgAnswer.trace(t)", t)
    assert page.evaluate("() => document.activeElement.dataset.leaf") == "d"
    assert widget.get_attribute("data-stale") is None
    # the answer is the new sweep, finished: every node shows its new data and grad without a further press
    assert widget.get_attribute("data-step") == widget.locator("[data-role='phase']").text_content().split()[3]
    for n in t["nodes"]:
        data, grad = _node_texts(widget, n["id"])
        assert (_num(data), _num(grad)) == (pytest.approx(n["data"]), pytest.approx(n["grad"])), n["id"]
    assert _node_texts(widget, "a")[1] == "grad 0"  # e = -24 < 0: relu passes nothing back
    assert "Computed by microgpt's engine in Python with a = 1.5, b = -3, d = -20." in widget.inner_text()
    page.evaluate("() => window.mgAnswer.error('Python could not start: offline')")
    assert "✗ Python could not start: offline" in widget.locator("[data-role='leaves-status']").text_content()
    widget.locator("button[data-action='original']").click()
    assert _node_texts(widget, "a")[1] == f"grad {fmt(T.trace_preset('relu')['nodes'][0]['grad'])}"


# Steps each step-through graph of the page from its start to its end, as the Step button does (one click
# a step), and after each step looks whether the node it changed is inside the graph's box: the step
# numbers at which it is not, and how many steps were taken.


# ---------------------------------------------------------------------------- playground
def _run_order(pg, order: list[str]) -> str:
    clear = pg.locator("button[data-action='clear']")
    if not clear.is_disabled():
        clear.click()
    for nid in order:
        pg.locator(f"button[data-place='{nid}']").click()
    pg.locator("button[data-action='run']").click()
    return pg.locator("[data-role='result']").inner_text()


def _reverse_topological(t: dict, order: list[str]) -> bool:
    pos = {v: i for i, v in enumerate(order)}
    return all(pos[e["node"]] < pos[e["child"]] for e in t["edges"] if e["child"] in pos)


# (preset, order): the engine's order (None), and orders a reader might try
ORDERS = [
    ("shared", None),  # the engine's order
    ("shared", ["z", "s", "t", "x", "u"]),  # x before u: not valid, but x is a leaf, so x.grad is right
    ("shared", ["z", "s", "u", "t", "x"]),  # u before t: u passes on 6 instead of 15
    ("shared", ["x", "u", "s", "t", "z"]),  # forward order
    ("diamond", ["z", "x", "s", "t"]),  # the leaf x early: not valid, x.grad still 15
    ("diamond", ["s", "z", "t", "x"]),
]


def test_playground_judges_each_order_and_shows_pythons_x_grad(watched, base_url, widget_page):
    """Each order of ORDERS, run in turn on one load: the playground's verdict and x.grad are Python's."""
    page = watched.page
    _open(page, base_url, widget_page, extra=True)
    for preset, order in ORDERS:
        _judges_the_order(page, preset, order)


def _judges_the_order(page, preset: str, order: list[str] | None) -> None:
    pg = page.locator(f".autograd-playground[data-preset='{preset}']").first
    t = T.trace_preset(preset)
    order = order or [v for v in reversed(t["topo"]) if v in T.movable(t)]
    said = _run_order(pg, order)
    target, want = t["forward"][0], {n["id"]: n["grad"] for n in t["nodes"]}[t["forward"][0]]
    got = T.replay(t, order)[0][target]  # Python's replay of the engine's rule
    valid = _reverse_topological(t, order)
    assert pg.get_attribute("data-valid") == str(valid).lower()
    assert float(pg.get_attribute("data-grad")) == got
    assert pg.get_attribute("data-result") == ("right" if got == want else "wrong")
    lines = pg.locator("[data-role='result'] .ag-verdict").all()
    assert len(lines) == 2
    order_line, grad_line = (line.inner_text() for line in lines)
    assert order_line.startswith("✓ Valid order" if valid else "✗ Invalid order"), order_line
    assert grad_line.startswith("✓ Right result" if got == want else "✗ Wrong result"), grad_line
    assert f"{target}.grad = {fmt(got)}" in grad_line, said
    assert ("ag-verdict--ok" in lines[1].get_attribute("class")) == (got == want)
    if got != want:
        assert f"backward() gives {fmt(want)}" in grad_line


def test_playground_focus_stays_in_the_widget(watched, base_url, widget_page):
    page = watched.page
    _open(page, base_url, widget_page, extra=True)
    pg = page.locator(".autograd-playground[data-preset='shared']")
    t = T.trace_preset("shared")
    pg.locator("button[data-place]").first.focus()
    for _ in T.movable(t):  # Enter, Enter, ...: each place button hands focus to the next, then to Run
        page.keyboard.press("Enter")
        assert _active_is_not_body(page) != "BODY"
    assert _active_is_not_body(page) == "run"
    page.keyboard.press("Enter")
    assert pg.get_attribute("data-result") == "wrong"  # forward order
    pg.locator("button[data-action='clear']").focus()
    page.keyboard.press("Enter")
    assert _active_is_not_body(page) == "x"  # the first node to place
    page.keyboard.press("Enter")
    pg.locator("button[data-action='undo']").focus()
    page.keyboard.press("Enter")
    assert _active_is_not_body(page) == "x"
    pg.locator("button[data-action='engine-order']").focus()
    page.keyboard.press("Enter")
    assert _active_is_not_body(page) == "engine-order"


def test_every_playground_order_shown_is_pythons(read_only):
    page = read_only
    t = T.trace_preset("shared")
    orders = [list(o) for o in itertools.permutations(T.movable(t))]
    js = page.evaluate(
        """async ([sel, orders, source]) => {
             const m = await import(`${source}widgets/playground.js`);
             const t = JSON.parse(document.querySelector(sel).dataset.trace);
             return orders.map((o) => [m.lookup(t, o).grad, m.judge(t, o).length === 0]);
           }""",
        [".autograd-playground[data-preset='shared']", orders, SOURCE],
    )
    assert js == [[T.replay(t, o)[0], _reverse_topological(t, o)] for o in orders]


# ---------------------------------------------------------------------------- self-checks
STRICT = ["6", "-1.5", "−3", " 2.50 ", ".5", "5.", "", " ", "0x0A", "1e1", "1,0", "+3", "--3", "1.2.3", "inf", "NaN"]


def test_js_and_python_parse_numbers_alike(read_only):
    page = read_only
    js = page.evaluate(
        "async ([xs, source]) => { const m = await import(`${source}widgets/format.js`); "
        "return xs.map(m.parseDecimal); }",
        [STRICT + ["٣", "1_000", "½"], SOURCE],
    )
    assert js == [graphs.parse_decimal(x) for x in STRICT + ["٣", "1_000", "½"]]


def test_self_check_refuses_what_is_not_a_plain_decimal_and_says_why(watched, base_url, widget_page):
    page = watched.page
    _open(page, base_url, widget_page, extra=True)
    form = page.locator("#extra form.autograd-check[data-answer]")
    status = form.locator(".autograd-check__status")
    for bad in ["0x0A", "1e1", "1,0", "", "<img src=x onerror=alert(1)>"]:
        form.locator("input").fill(bad)
        form.locator("button[type='submit']").click()
        assert form.get_attribute("data-result") == "invalid", bad
        assert "plain decimal" in status.text_content(), bad
        if bad:
            assert f"“{bad}”" in status.text_content()  # echoed as typed, as text
        assert form.locator("img").count() == 0
        assert form.locator(".autograd-check__explain").is_hidden()
        assert _active_is_not_body(page) == "INPUT"


def test_self_check_wrong_then_right_shows_the_explanation(watched, base_url, widget_page):
    page = watched.page
    _open(page, base_url, widget_page, extra=True)
    form = page.locator("#extra form.autograd-check[data-answer]")
    explain = form.locator(".autograd-check__explain")
    form.locator("summary").click()  # the hint is there before and after answering
    assert form.locator(".autograd-check__hint").inner_text().endswith("Look at how many users a has.")
    form.locator("input").fill("15")
    form.locator("input").press("Enter")
    assert form.get_attribute("data-result") == "wrong" and explain.is_hidden()
    assert form.locator(".autograd-check__status").inner_text() == "✗ Not 15. Try again, or open the hint."
    form.locator("input").fill("30")
    form.locator("input").press("Enter")
    assert form.get_attribute("data-result") == "right" and explain.is_visible()
    assert form.locator(".autograd-check__status").inner_text() == "✓ Right."
    assert page.evaluate("() => document.activeElement.classList.contains('autograd-check__explain')")
    assert form.locator(".autograd-check__hint").is_visible()


def test_self_check_show_answer_and_choice(watched, base_url, widget_page):
    page = watched.page
    _open(page, base_url, widget_page, extra=True)
    choice = page.locator("#extra form.autograd-check[data-choice]")
    choice.locator("button[type='submit']").click()
    assert choice.get_attribute("data-result") == "invalid"
    choice.locator("input[value='1']").check()
    choice.locator("button[type='submit']").click()
    assert choice.get_attribute("data-result") == "wrong"
    assert choice.locator(".autograd-check__explain").is_hidden()
    choice.locator("input[value='2']").check()
    choice.locator("button[type='submit']").click()
    assert choice.get_attribute("data-result") == "right" and choice.locator(".autograd-check__explain").is_visible()
    number = page.locator("#extra form.autograd-check[data-answer]")
    number.locator("button[data-action='show']").click()
    assert number.locator(".autograd-check__status").inner_text() == "The answer is 30."
    assert number.locator(".autograd-check__explain").is_visible()


def test_a_check_on_a_page_takes_only_its_own_answer(watched, base_url, site_dir):
    page = watched.page
    _open(page, base_url, _page_with(site_dir, '<form class="autograd-check"'))
    form = page.locator("form.autograd-check").first
    right = float(form.get_attribute("data-answer"))
    assert right in {n["grad"] for name in T.PRESETS for n in T.trace_preset(name)["nodes"]}
    form.locator("input").fill(fmt(right + 1))
    form.locator("input").press("Enter")
    assert form.get_attribute("data-result") == "wrong"
    form.locator("input").fill(fmt(right))
    form.locator("input").press("Enter")
    assert form.get_attribute("data-result") == "right"


# ---------------------------------------------------------------------------- diagrams and numbers
def test_diagrams_on_the_pages_show_the_engine_numbers(watched, base_url, site_dir):
    page = watched.page
    _open(page, base_url, _page_with(site_dir, 'class="autograd-diagram"'), extra=True)
    t = T.trace_preset("linear")
    want = {
        "forward-backward": [f"{k} {fmt(n[k])}" for n in t["nodes"] for k in ("grad", "data")],
        "grad-bars": [f"{n['label']}.grad = {fmt(n['grad'])}" for n in t["nodes"]],
        "local-rules": [f"+= {fmt(b['local_grad'] * b['upstream'])}" for b in t["backward"]],
        "forward-graph": [f"data {fmt(n['data'])}" for n in T.trace_preset("relu")["nodes"]],
        "shared": [f"grad {fmt(n['grad'])}" for n in T.trace_preset("shared")["nodes"]],
        "gpt-gradient-flow": [f"{p.label}{sig3(p.norm)}" for p in gradient_sizes()],
    }
    seen = set()
    for fig in page.locator("figure.autograd-diagram").all():
        name = fig.get_attribute("data-diagram")
        text = fig.locator("svg").text_content()
        seen.add(name)
        for s in want[name]:
            assert s in text, (name, s, text)
    assert seen == set(want)


def test_js_number_format_matches_the_hook(read_only):
    page = read_only
    xs = sorted(
        {x for name in T.PRESETS for n in T.trace_preset(name)["nodes"] for x in (n["data"], n["grad"])}
        | {0.5, -0.5, 1e-5, -1e-5, 0.12345, 2.00004, -1.99996}
    )
    js = page.evaluate(
        "async ([xs, source]) => { const m = await import(`${source}widgets/format.js`); "
        "return xs.map((x) => m.fmt(x)); }",
        [xs, SOURCE],
    )
    assert js == [fmt(x) for x in xs]


# ---------------------------------------------------------------------------- readable everywhere


# ---------------------------------------------------------------------------- on each page's one load in each view
# test_every_page_in_every_view (tests/browser/test_browser.py) loads each page once and runs every check of
# each view on that load, switched to it; on a page with graphs or self-checks it also runs these. The
# widgets no page uses yet are mounted beside the page's own, and every graph is put in the state that
# shows all its styles (mid-backward, a result, a wrong answer): SVG text is at least 12 px in light at
# both widths, text contrast is at least 4.5:1 and axe finds nothing in the widgets in both schemes at
# 1280 px; then, in light at both widths, every step of every step-through graph brings the node it
# changed into sight.
