"""The built site in a real browser: pages load clean and offline, math renders, and the interactive
graphs show exactly the numbers microgpt.trace records from the engine.

Needs Debian's Chromium (`apt-get install chromium`, giving /usr/bin/chromium) and the Python package
playwright (`pip install -e '.[test]'`; never `playwright install`). Without them these tests skip,
except with CI=true, where they fail. Screenshots go to artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import itertools
import os
import re
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from microgpt import trace as T

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = os.environ.get("MICROGPT_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
HOW = "install Chromium with `apt-get install chromium` and playwright with `pip install -e '.[test]'`"


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM}"
    return None


if (_why := _missing()) is not None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tests cannot run under CI=true: {_why}; {HOW}", pytrace=False)
    pytest.skip(f"{_why}; {HOW}", allow_module_level=True)

from playwright.sync_api import Page, sync_playwright  # noqa: E402


def _pages() -> list[str]:
    """Site paths of every page: docs/x.md -> /x/, docs/index.md -> /, notebooks too."""
    out = []
    for p in sorted(DOCS.rglob("*")):
        if p.suffix not in (".md", ".ipynb") or "vendor" in p.parts or ".ipynb_checkpoints" in p.parts:
            continue
        rel = p.relative_to(DOCS).with_suffix("").as_posix()
        out.append("/" if rel == "index" else f"/{rel.removesuffix('/index')}/")
    return out


PAGES = _pages()


def _load_hook():
    spec = importlib.util.spec_from_file_location("traces_hook", DOCS / "hooks" / "traces.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


fmt = _load_hook().fmt  # the number format the widgets use (format.js follows the same rule)


# ---------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def site_dir(request) -> Path:
    """The site built once with --strict by conftest's built_site (MICROGPT_SITE_DIR reuses a site built before)."""
    if prebuilt := os.environ.get("MICROGPT_SITE_DIR"):
        return Path(prebuilt)
    return request.getfixturevalue("built_site")


@pytest.fixture(scope="session")
def base_url(site_dir):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


class Watched:
    """A page that records console errors, uncaught exceptions and requests leaving 127.0.0.1 (blocked)."""

    def __init__(self, browser, base_url: str, scheme: str = "light"):
        self.context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.context.route("**/*", self._route)

    def _route(self, route):
        url = route.request.url
        if urlparse(url).hostname == "127.0.0.1" or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def close(self):
        self.context.close()


@pytest.fixture
def watched(browser, base_url):
    w = Watched(browser, base_url)
    yield w
    assert w.errors == [], f"console errors: {w.errors}"
    assert w.outside == [], f"requests outside the site: {w.outside}"
    w.close()


def _page_with(site_dir: Path, marker: str) -> str:
    for html in sorted(site_dir.rglob("index.html")):
        if marker in html.read_text(encoding="utf-8"):
            rel = html.parent.relative_to(site_dir).as_posix()
            return "/" if rel == "." else f"/{rel}/"
    pytest.fail(f"no page of the site has {marker!r}; place the widget marker on a page (docs/hooks/traces.py)")


def _num(text: str) -> float:
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    assert m, text
    return float(m.group())


# ---------------------------------------------------------------------------- every page
@pytest.mark.parametrize("path", PAGES)
def test_page_loads_offline_with_math_rendered_and_screenshots(browser, base_url, path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = path.strip("/").replace("/", "-") or "index"
    for scheme in ("light", "dark"):
        w = Watched(browser, base_url, scheme)
        try:
            resp = w.page.goto(base_url + path, wait_until="networkidle")
            assert resp is not None and resp.ok, f"{path}: HTTP {resp and resp.status}"
            want = "slate" if scheme == "dark" else "default"
            assert w.page.get_attribute("body", "data-md-color-scheme") == want
            math = w.page.locator(".arithmatex").count()
            if math:
                unrendered = w.page.locator(".arithmatex:not(:has(.katex))").count()
                assert unrendered == 0, f"{path}: {unrendered} of {math} math elements not rendered by KaTeX"
            # every widget the build placed mounted without an error
            assert w.page.locator("[data-mounted='error']").count() == 0
            assert w.page.locator(".autograd-fallback").count() == 0, "a widget did not mount"
            w.page.screenshot(path=str(SHOTS / f"{name}-{scheme}.png"), full_page=True)
            assert w.errors == [], f"{path} ({scheme}): console errors {w.errors}"
            assert w.outside == [], f"{path} ({scheme}): requests outside the site {w.outside}"
        finally:
            w.close()


# ---------------------------------------------------------------------------- step-through widget
def _node_texts(page: Page, widget, nid: str) -> tuple[str, str]:
    g = widget.locator(f"g[data-node='{nid}']")
    return g.locator("text.ag-data").text_content(), g.locator("text.ag-grad").text_content()


@pytest.mark.parametrize("name", ["fab", "relu", "neuron", "square", "diamond"])
def test_widget_steps_show_the_engine_numbers(watched, base_url, site_dir, name):
    page = watched.page
    page.goto(base_url + _page_with(site_dir, 'class="autograd-widget"'), wait_until="networkidle")
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
    page.goto(base_url + _page_with(site_dir, 'class="autograd-widget"'), wait_until="networkidle")
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
    page.goto(base_url + _page_with(site_dir, 'class="autograd-playground"'), wait_until="networkidle")
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
    page.goto(base_url + _page_with(site_dir, 'class="autograd-playground"'), wait_until="networkidle")
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
    page.goto(base_url + _page_with(site_dir, 'class="autograd-check"'), wait_until="networkidle")
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
    page.goto(base_url + _page_with(site_dir, 'class="autograd-diagram"'), wait_until="networkidle")
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
    page.goto(base_url + _page_with(site_dir, 'class="autograd-widget"'), wait_until="networkidle")
    xs = sorted(
        {x for name in T.PRESETS for n in T.preset(name)["nodes"] for x in (n["data"], n["grad"])}
        | {0.5, -0.5, 1e-5, -1e-5, 0.12345, 2.00004, -1.99996}
    )
    js = page.evaluate(
        "async (xs) => { const m = await import('/javascripts/widgets/format.js'); return xs.map((x) => m.fmt(x)); }",
        xs,
    )
    assert js == [fmt(x) for x in xs]
