"""The built site in a real browser: every page loads clean and offline with its math typeset, looks
right at phone and desktop widths in both colour schemes, loads only what it uses, clips nothing,
and search finds pages by the forms of a word; the interactive graphs show exactly the numbers
microgpt.trace records from the engine.

Fixtures and the Chromium/playwright requirement come from tests/browser.py (skipped without them,
failing under CI=true). Screenshots of every page go to artifacts/screenshots/ (not committed).
"""

# ruff: noqa: F811  (pytest passes the imported fixtures to the tests by name)
from __future__ import annotations

import importlib.util
import itertools
import re

import pytest
from browser import (  # noqa: F401  (base_url, browser, site_dir and watched are fixtures)
    DESKTOP,
    DOCS,
    PAGES,
    PHONE,
    SHOTS,
    Watched,
    base_url,
    browser,
    page_with,
    site_dir,
    watched,
)
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from microgpt import trace as T

pytestmark = pytest.mark.browser


def _load_hook():
    spec = importlib.util.spec_from_file_location("traces_hook", DOCS / "hooks" / "traces.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


fmt = _load_hook().fmt  # the number format the widgets use (format.js follows the same rule)


def _num(text: str) -> float:
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    assert m, text
    return float(m.group())


def _open(browser, base_url: str, path: str, scheme: str = "light", width: int = DESKTOP) -> Watched:
    w = Watched(browser, base_url, scheme, width)
    resp = w.page.goto(base_url + path, wait_until="networkidle")
    assert resp is not None and resp.ok, f"{path}: HTTP {resp and resp.status}"
    w.page.evaluate("document.fonts.ready")  # measurements below need the final fonts
    return w


# ---------------------------------------------------------------------------- every page
VIEWS = [("light", DESKTOP), ("dark", DESKTOP), ("light", PHONE), ("dark", PHONE)]


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_offline_with_math_typeset_in_every_view(browser, base_url, path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = path.strip("/").replace("/", "-") or "index"
    for scheme, width in VIEWS:
        w = _open(browser, base_url, path, scheme, width)
        try:
            page, view = w.page, f"{path} ({scheme}, {width} px)"
            expect(page.locator("body")).to_have_attribute(
                "data-md-color-scheme", "slate" if scheme == "dark" else "default"
            )
            # math is typeset when the page is built: nothing is left for a script to render
            expect(page.locator(".arithmatex:not(:has(.katex))"), view).to_have_count(0)
            # every widget the build placed mounted without an error
            expect(page.locator("[data-mounted='error']"), view).to_have_count(0)
            expect(page.locator(".autograd-fallback"), view).to_have_count(0)
            page.screenshot(path=str(SHOTS / f"{name}-{width}-{scheme}.png"), full_page=True)
            assert w.problems() == [], view
        finally:
            w.close()


def _has_widget(page: Page) -> bool:
    return page.locator("[class^='autograd-'], [class*=' autograd-']").count() > 0


@pytest.mark.parametrize("path", PAGES)
def test_each_page_loads_only_what_it_uses(browser, base_url, path):
    w = Watched(browser, base_url)
    requested: list[str] = []
    w.page.on("request", lambda r: requested.append(r.url.removeprefix(base_url)))
    try:
        w.page.goto(base_url + path, wait_until="networkidle")
        page = w.page
        # no render-blocking stylesheet but the theme's two; the site's own CSS is inlined per page
        sheets = page.eval_on_selector_all("link[rel=stylesheet]", "ls => ls.map(l => l.getAttribute('href'))")
        assert len(sheets) == 2 and all("assets/stylesheets/" in h for h in sheets), sheets
        styles = page.eval_on_selector_all("style[data-asset]", "ss => ss.map(s => s.dataset.asset)")
        has_math = page.locator(".katex").count() > 0
        assert ("vendor/katex/katex.min.css" in styles) == has_math, (path, styles)
        assert not any("katex" in u and u.endswith(".js") for u in requested), "math needs no script"
        widget_js = [u for u in requested if "/javascripts/widgets/" in u]
        assert bool(widget_js) == _has_widget(page), (path, widget_js)
        assert ("stylesheets/widgets.css" in styles) == _has_widget(page), (path, styles)
        # nobody's JupyterLab stylesheet, and Material's search index only once search is opened
        assert page.locator("style:has-text('--jp-')").count() == 0
        assert not any(u.endswith("search_index.json") for u in requested), "the search index loaded before search"
        with page.expect_request(re.compile(r"search/search_index\.json$")):
            page.locator(".md-search__input").focus()
        assert w.problems() == []
    finally:
        w.close()


@pytest.mark.parametrize("query", ["accumulate", "accumulating", "accumulated"])
def test_search_finds_the_accumulation_page_by_any_form_of_the_word(browser, base_url, query):
    w = _open(browser, base_url, "/")
    try:
        page = w.page
        page.locator(".md-search__input").click()
        page.keyboard.type(query)
        results = page.locator(".md-search-result__link")
        expect(results.first).to_be_visible()
        expect(page.locator(".md-search-result__link[href*='accumulation/']").first).to_be_attached()
        assert w.problems() == []
    finally:
        w.close()


# What scrolls sideways on the site today (scroll-regions.js marks these): waited for, not trusted;
# MEASURE looks at every element of the article.
SCROLL_BOXES = "pre > code, div.arithmatex, .md-typeset__scrollwrap, .tabbed-labels, [data-scroll-region]"
REACHABLE = """(boxes) => [...document.querySelectorAll(boxes)].every((el) =>
  el.scrollWidth <= el.clientWidth + 1 || el.tabIndex >= 0 || el.querySelector('a[href], button, input, [tabindex]'))"""
MEASURE = """() => {
  const out = {unreachable: [], clipped: [], covered: []};
  out.pageOverflow = document.documentElement.scrollWidth - innerWidth;
  const focusable = (el) => el.tabIndex >= 0 || el.querySelector('a[href], button, input, select, [tabindex]');
  const name = (el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' in #' +
    (el.closest('[id]') || {id: '?'}).id + ': ' + el.textContent.trim().slice(0, 60);
  // every box in the article that is wider than itself either scrolls, reachable by keyboard, or is a bug
  for (const el of document.querySelectorAll('article *')) {
    if (el.closest('.katex-mathml, svg, .md-code__nav') || el.scrollWidth <= el.clientWidth + 1) continue;
    const ox = getComputedStyle(el).overflowX;
    if (ox === 'hidden' || ox === 'clip') out.clipped.push(name(el));
    else if ((ox === 'auto' || ox === 'scroll') && !focusable(el)) out.unreachable.push(name(el));
  }
  // the copy button sits beside the code, never over it
  for (const nav of document.querySelectorAll('article .md-code__nav')) {
    const code = nav.parentElement.querySelector(':scope > code');
    if (!code) continue;
    const a = nav.getBoundingClientRect(), b = code.getBoundingClientRect();
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.covered.push(name(code));
  }
  return out;
}"""


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("path", PAGES)
def test_nothing_is_clipped_and_every_scroll_region_is_reachable_by_keyboard(browser, base_url, path, width):
    w = _open(browser, base_url, path, "light", width)
    try:
        # scroll-regions.js marks wide boxes once laid out: wait for that, then measure and say what is wrong
        try:
            w.page.wait_for_function(REACHABLE, arg=SCROLL_BOXES, timeout=5000)
        except PlaywrightTimeout:
            pass
        got = w.page.evaluate(MEASURE)
        where = f"{path} at {width} px"
        assert got["pageOverflow"] <= 0, f"{where}: the page itself scrolls sideways by {got['pageOverflow']} px"
        assert got["clipped"] == [], f"{where}: content cut off without a scroll bar: {got['clipped']}"
        assert got["covered"] == [], f"{where}: the copy button covers code: {got['covered']}"
        assert got["unreachable"] == [], f"{where}: scroll regions a keyboard cannot reach: {got['unreachable']}"
        assert w.problems() == []
    finally:
        w.close()


# ---------------------------------------------------------------------------- step-through widget
def _node_texts(page: Page, widget, nid: str) -> tuple[str, str]:
    g = widget.locator(f"g[data-node='{nid}']")
    return g.locator("text.ag-data").text_content(), g.locator("text.ag-grad").text_content()


@pytest.mark.parametrize("name", ["fab", "relu", "neuron", "square", "diamond"])
def test_widget_steps_show_the_engine_numbers(watched, base_url, site_dir, name):
    page = watched.page
    page.goto(base_url + page_with(site_dir, 'class="autograd-widget"'), wait_until="networkidle")
    widget = page.locator(".autograd-widget").first
    widget.locator("select").select_option(name)
    t = T.preset(name)  # computed here, by the engine, independently of the page
    nodes = {n["id"]: n for n in t["nodes"]}
    step = widget.locator("button[data-action='step']")
    assert widget.get_attribute("data-step") == "0"
    for k, nid in enumerate(t["forward"], start=1):
        step.click()
        assert widget.get_attribute("data-phase") == "forward"
        data, grad = _node_texts(page, widget, nid)
        assert _num(data) == pytest.approx(nodes[nid]["data"], abs=5e-5), (name, nid, data)
        assert _num(grad) == 0  # Value.grad starts at 0
        assert widget.get_attribute("data-step") == str(k)
    step.click()  # the seed
    assert _num(_node_texts(page, widget, t["root"])[1]) == t["seed"]["after"]
    sentence = widget.locator("[data-role='sentence']")
    for entry in t["backward"]:
        step.click()
        assert widget.get_attribute("data-phase") == "backward"
        _, grad = _node_texts(page, widget, entry["child"])
        assert _num(grad) == pytest.approx(entry["after"], abs=5e-5), (name, entry, grad)
        said = sentence.text_content()
        assert f"goes {fmt(entry['before'])} → {fmt(entry['after'])}" in said, said
    assert step.is_disabled()
    for nid, n in nodes.items():
        assert _num(_node_texts(page, widget, nid)[1]) == pytest.approx(n["grad"], abs=5e-5), (name, nid)
    edge_labels = {
        e.get_attribute("data-edge"): e.locator("text.ag-edge-label").text_content()
        for e in widget.locator("g.ag-edge-group").all()
    }
    for e in t["edges"]:
        assert _num(edge_labels[f"{e['node']}-{e['index']}"]) == pytest.approx(e["local_grad"], abs=5e-5)


def test_widget_keyboard_back_reset_and_run_all(watched, base_url, site_dir):
    page = watched.page
    page.goto(base_url + page_with(site_dir, 'class="autograd-widget"'), wait_until="networkidle")
    widget = page.locator(".autograd-widget").first
    widget.locator("select").select_option("diamond")
    t = T.preset("diamond")
    total = len(t["forward"]) + 1 + len(t["backward"])
    widget.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert widget.get_attribute("data-step") == "2"
    page.keyboard.press("ArrowLeft")
    assert widget.get_attribute("data-step") == "1"
    page.keyboard.press("End")
    assert widget.get_attribute("data-step") == str(total)
    assert _num(_node_texts(page, widget, "a")[1]) == 15
    widget.locator("button[data-action='reset']").click()
    assert widget.get_attribute("data-step") == "0"
    widget.locator("button[data-action='run-all']").click()
    assert widget.get_attribute("data-step") == str(total)


# ---------------------------------------------------------------------------- playground
def _run_order(page: Page, pg, order: list[str]) -> str:
    clear = pg.locator("button[data-action='clear']")
    if not clear.is_disabled():
        clear.click()
    for nid in order:
        pg.locator(f"button[data-place='{nid}']").click()
    pg.locator("button[data-action='run']").click()
    return pg.locator("[data-role='result']").text_content()


def test_playground_reports_15_or_the_lost_path(watched, base_url, site_dir):
    page = watched.page
    page.goto(base_url + page_with(site_dir, 'class="autograd-playground"'), wait_until="networkidle")
    pg = page.locator(".autograd-playground").first
    t = T.preset("diamond")
    engine_order = [v for v in reversed(t["topo"]) if not v.startswith("k")]
    said = _run_order(page, pg, engine_order)
    assert pg.get_attribute("data-result") == "15" and said.startswith("a.grad = 15, the right answer"), said
    for order in (["b", "d", "c", "a"], ["c", "d", "b", "a"], ["a", "b", "c", "d"]):
        want = T.replay(t, order)["a"]
        said = _run_order(page, pg, order)
        assert float(pg.get_attribute("data-result")) == want != 15
        assert said.startswith(f"a.grad = {fmt(want)}, not 15"), said
        for via in ("b", "c"):
            lost = order.index(via) < order.index("d")
            assert (f"d → {via} → a delivered" in said) == lost, (order, said)
    page.locator("button[data-action='engine-order']").first.click()
    pg.locator("button[data-action='run']").click()
    assert pg.get_attribute("data-result") == "15"


def test_playground_replay_agrees_with_python_for_every_order(watched, base_url, site_dir):
    page = watched.page
    page.goto(base_url + page_with(site_dir, 'class="autograd-playground"'), wait_until="networkidle")
    t = T.preset("diamond")
    orders = [list(o) for o in itertools.permutations(["a", "b", "c", "d"])]
    js = page.evaluate(
        """async ([t, orders]) => {
             const m = await import('/javascripts/widgets/playground.js');
             return orders.map((o) => m.replay(t, o).grad);
           }""",
        [t, orders],
    )
    assert js == [T.replay(t, o) for o in orders]


# ---------------------------------------------------------------------------- self-checks and diagrams
def test_self_check_accepts_the_right_answer_and_rejects_a_wrong_one(watched, base_url, site_dir):
    page = watched.page
    page.goto(base_url + page_with(site_dir, 'class="autograd-check"'), wait_until="networkidle")
    answers = {
        "fab-a": ("fab", "a"),
        "fab-b": ("fab", "b"),
        "neuron-w1": ("neuron", "w1"),
        "diamond-a": ("diamond", "a"),
    }
    form = page.locator("form.autograd-check").first
    preset, node = answers[form.get_attribute("data-question")]
    right = {n["id"]: n["grad"] for n in T.preset(preset)["nodes"]}[node]
    form.locator("input").fill(str(right + 1))
    form.locator("button").click()
    assert form.get_attribute("data-result") == "wrong"
    form.locator("input").fill(fmt(right))
    form.locator("button").click()
    assert form.get_attribute("data-result") == "right"
    assert form.locator(".autograd-check__feedback").text_content().startswith("Right.")


def test_diagrams_show_the_engine_numbers(watched, base_url, site_dir):
    page = watched.page
    page.goto(base_url + page_with(site_dir, 'class="autograd-diagram"'), wait_until="networkidle")
    t = T.preset("linear")
    want = {
        "forward-backward": [f"{k} {fmt(n[k])}" for n in t["nodes"] for k in ("grad", "data")],
        "grad-bars": [f"{n['label']}.grad = {fmt(n['grad'])}" for n in t["nodes"]],
        "local-rules": [f"+= {fmt(b['local_grad'] * b['upstream'])}" for b in t["backward"]],
    }
    figures = page.locator("figure.autograd-diagram").all()
    assert figures
    for fig in figures:
        text = fig.locator("svg").text_content()
        for s in want[fig.get_attribute("data-diagram")]:
            assert s in text, (fig.get_attribute("data-diagram"), s, text)


def test_js_number_format_matches_the_hook(watched, base_url, site_dir):
    page = watched.page
    page.goto(base_url + page_with(site_dir, 'class="autograd-widget"'), wait_until="networkidle")
    xs = sorted(
        {x for name in T.PRESETS for n in T.preset(name)["nodes"] for x in (n["data"], n["grad"])}
        | {0.5, -0.5, 1e-5, -1e-5, 0.12345, 2.00004, -1.99996}
    )
    js = page.evaluate(
        "async (xs) => { const m = await import('/javascripts/widgets/format.js'); return xs.map((x) => m.fmt(x)); }",
        xs,
    )
    assert js == [fmt(x) for x in xs]
