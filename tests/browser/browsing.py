"""What the browser tests share that is not a fixture: the pages, a watched page, waiting for a page
to be ready, axe-core, the colour arithmetic. The fixtures are in tests/browser/conftest.py.

Needs Debian's Chromium (`apt-get install chromium`) and the Python package playwright
(`pip install -e '.[test]'`; never `playwright install`). Without them the importing test file
is skipped, except with CI=true, where it fails. Assertions wait for their condition
(Playwright's `expect`, `wait_for_function`), never for a fixed time.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# `make screenshots` sets MICROGPT_SCREENSHOTS=1: the every-view test then saves a full-page
# screenshot of each page in each view here, to be looked at (a normal run saves none: 56 full-page
# screenshots cost minutes and nobody reads them in CI).
SHOTS = ROOT / "artifacts" / "screenshots"
SAVE_SHOTS = os.environ.get("MICROGPT_SCREENSHOTS") == "1"
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
PHONE, DESKTOP = 390, 1280  # viewport widths (CSS px) every page is checked at


def unavailable(why: str) -> None:
    """Skip the importing test file, or fail it under CI=true, where every test must run."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tests cannot run under CI=true: {why}", pytrace=False)
    pytest.skip(why, allow_module_level=True)


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401  (is it installed? the test files skip without it)
    except ImportError:
        return f"the Python package playwright is not installed; {HOW}"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM}; {HOW}"
    return None


if (_why := _missing()) is not None:
    unavailable(_why)

from playwright.sync_api import Browser, Page  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402


def _pages() -> list[str]:
    """Site path of every page: docs/x.md -> /x/, docs/index.md -> /, notebooks too."""
    out = []
    for p in sorted(DOCS.rglob("*")):
        rel_parts = p.relative_to(DOCS).parts
        if (
            p.suffix not in (".md", ".ipynb")
            or rel_parts[0] in ("hooks", "vendor")
            or ".ipynb_checkpoints" in rel_parts
        ):
            continue
        rel = p.relative_to(DOCS).with_suffix("").as_posix()
        out.append("/" if rel == "index" else f"/{rel.removesuffix('/index')}/")
    return out


PAGES = _pages()


# A page is ready when the theme's bundle has started (its document$ is there), every script the page
# names has arrived, and the page's own scripts say they are done: the article's data-mg-widgets (every
# widget mounted, docs/javascripts/widgets/index.js: STARTED) and data-mg-blocks (every Run button,
# docs/javascripts/run/index.js: BLOCKS_READY). The site's scripts start once the page has been painted
# and has loaded (overrides/main.html); the Run buttons, the step-through graphs and the playgrounds are
# built when the reader comes near them (docs/javascripts/site.js, widgets/index.js). So `open_page` waits
# for the load event and the widgets, then brings the first runnable block a reader can see into view,
# and each graph still waiting (its .autograd-fallback), as a reader scrolling down would, until they are
# built, and goes back to the top of the page. It waits for these, not for a quiet network (which costs
# 500 ms a page and says nothing of our scripts).
STARTED = """() => {
  if (!window.document$) return false;
  const arrived = new Set(performance.getEntriesByType("resource").map((r) => r.name));
  if (![...document.querySelectorAll("script[src]")].every((s) => arrived.has(s.src))) return false;
  const article = document.querySelector("article"); // none on the 404 page, which has neither
  return !article || article.dataset.mgWidgets === "ready";
}"""
# each true once done, else bringing what it waits for into view (a block or graph in a closed note or a tab
# not shown is built once it is opened and near: none waits for it)
BLOCKS_READY = """() => {
  const article = document.querySelector("article");
  if (!article || article.dataset.mgBlocks === "ready") return true;
  const shown = [...document.querySelectorAll("[data-mg-run]")].find((el) => el.checkVisibility());
  shown?.scrollIntoView({ block: "center" });
  return !shown;
}"""
WIDGETS_BUILT = """() => {
  const waiting = [...document.querySelectorAll(".autograd-fallback")].find((el) => el.checkVisibility());
  waiting?.scrollIntoView({ block: "center" });
  return !waiting;
}"""


def build_what_waits(page: Page) -> None:
    """Bring the Run buttons and every graph still waiting for the reader into being (see above), and go back
    to the top of the page if that scrolled it."""
    scrolled = False
    for done in (BLOCKS_READY, WIDGETS_BUILT):
        if not page.evaluate(done):
            page.wait_for_function(done)
            scrolled = True
    if scrolled:
        page.evaluate("window.scrollTo(0, 0)")


def open_page(page: Page, url: str):
    """Load `url` until the page is ready (STARTED, then build_what_waits), at the top of the page; the response."""
    response = page.goto(url, wait_until="load")
    page.wait_for_function(STARTED)
    build_what_waits(page)
    return response


# What scrolls sideways on the site (docs/javascripts/scroll-regions.js and the widgets' graph boxes
# mark these focusable once laid out). A test waits for that before it measures or runs axe: a
# reader's keyboard cannot reach a box before the page has laid it out either.
SCROLL_BOXES = ", ".join(
    [
        "pre > code",
        "div.arithmatex",
        ".md-typeset__scrollwrap",
        ".tabbed-labels",
        "[data-scroll-region]",
        ".autograd-scroll",
    ]
)
# a box the page does not show (in a closed <details>, a hidden tab) is measured once it is shown
REACHABLE = """(boxes) => [...document.querySelectorAll(boxes)].every((el) => !el.checkVisibility() ||
  el.scrollWidth <= el.clientWidth + 1 || el.tabIndex >= 0 || el.querySelector('a[href], button, input, [tabindex]'))"""


# Material gives a code block its toolbar (the copy button) when the block first scrolls into view
# (mkdocs.yml: content.lazy), as a reader scrolling down the page would see it. A check about every
# block's toolbar first brings each shown block into view, then back to the top. A block that continues
# others has none (.no-copy): its Run bar's Copy button copies the whole chain (docs/javascripts/run/copy.js).
TOOLBARED = "() => [...document.querySelectorAll('article pre > code')].filter((c) => !c.closest('.no-copy'))"
SHOW_EVERY_CODE_BLOCK = (
    """async () => {
  const toolbared = """
    + TOOLBARED
    + """;
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const mounted = (code) => code.parentElement.querySelector(':scope > .md-code__nav');
  // shown blocks only: one in a closed <details> or a hidden tab mounts when it is opened
  const waiting = () => toolbared().filter((c) => c.checkVisibility() && !mounted(c));
  // Material's IntersectionObserver reports a block a frame or more after it comes into view (later
  // on a busy machine); a block scrolled away before that is brought back on the next pass
  for (let pass = 0; pass < 5 && waiting().length; pass++) {
    for (const code of waiting()) {
      code.scrollIntoView({block: 'center'});
      for (let t = 0; t < 60 && !mounted(code); t++) await frame();
    }
  }
  window.scrollTo(0, 0);
  await frame();
}"""
)
EVERY_SHOWN_BLOCK_HAS_ITS_TOOLBAR = (
    "() => ("
    + TOOLBARED
    + """)()
  .filter((code) => code.checkVisibility())
  .every((code) => code.parentElement.querySelector(':scope > .md-code__nav'))"""
)


def show_every_code_block(page: Page, timeout_ms: int = 10_000) -> None:
    """Scroll each shown code block into view and wait until Material has given each its toolbar."""
    page.evaluate(SHOW_EVERY_CODE_BLOCK)
    page.wait_for_function(EVERY_SHOWN_BLOCK_HAS_ITS_TOOLBAR, timeout=timeout_ms)


def wait_until_scroll_regions_are_marked(page: Page, timeout_ms: int = 10_000) -> None:
    """Wait until every box that overflows is focusable.

    On time-out it returns: the test's own check then says which box is not.
    """
    try:
        page.wait_for_function(REACHABLE, arg=SCROLL_BOXES, timeout=timeout_ms)
    except PlaywrightTimeout:
        pass


class Watched:
    """A page that records console errors, uncaught exceptions and requests leaving 127.0.0.1 (blocked)."""

    def __init__(
        self, browser: Browser, base_url: str = "", scheme: str = "light", width: int = DESKTOP, clipboard: bool = False
    ):
        self.context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
        if clipboard:  # a test reads what a copy button copied
            self.context.grant_permissions(["clipboard-read", "clipboard-write"])
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

    def problems(self) -> list[str]:
        return [f"console error: {e}" for e in self.errors] + [f"request outside the site: {u}" for u in self.outside]

    def close(self):
        self.context.close()


def page_with(site_dir: Path, marker: str) -> str:
    """Path of the first page (in file order) whose HTML contains `marker`."""
    for html in sorted(site_dir.rglob("index.html")):
        if marker in html.read_text(encoding="utf-8"):
            rel = html.parent.relative_to(site_dir).as_posix()
            return "/" if rel == "." else f"/{rel}/"
    pytest.fail(f"no page of the site has {marker!r}")


# ---------------------------------------------------------------------------- axe-core
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # from npm (package.json pins it): runs offline

# Runs axe on the document as it is now, and returns each violation with the first few elements.
# target-size (WCAG 2.2: a control at least 24 px, or that much room) is off in axe by default and
# on in Lighthouse; it is on here too. With `only`, just those rules run; with `without`, all but those.
RUN_AXE = """async (within, only = null, without = []) => {
  const context = within ? document.querySelectorAll(within) : document;
  const options = { resultTypes: ["violations"], rules: { "target-size": { enabled: true } } };
  if (only) options.runOnly = { type: "rule", values: only };
  for (const rule of without) options.rules[rule] = { enabled: false };
  const result = await axe.run(context, options);
  return result.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    count: v.nodes.length,
    where: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + ": " + (n.failureSummary || "").split("\\n")[1]),
  }));
}"""


# The rules whose verdict depends on colour: the ones of axe's cat.color that run by default
# (color-contrast-enhanced, AAA's 7:1, is off by default). The other scheme of a page is the same
# document laid out the same way in other colours, except for which palette toggle the header shows,
# so these are the only rules it can fail that the first scheme passed; the dark toggle itself gets every
# rule in tests/browser/test_a11y.py (the page with search open, in dark). The other way round, a page
# narrowed to a phone's width is the same document in the same colours laid out anew: every rule but
# these can find something new there (a target too small, a box that now scrolls).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]

# The reader's switch between the schemes, in the header (Material's palette toggle: the label of the
# scheme to switch to), and the scheme the page then has
SCHEME_TOGGLE = {"dark": "label[for='__palette_1']", "light": "label[for='__palette_0']"}
MATERIAL_SCHEME = {"dark": "slate", "light": "default"}


def switch_scheme(page: Page, scheme: str) -> None:
    """Switch the loaded page to `scheme` ("light" or "dark") as a reader does, with the header's toggle."""
    page.locator(SCHEME_TOGGLE[scheme]).click()
    page.wait_for_function(f"() => document.body.dataset.mdColorScheme === '{MATERIAL_SCHEME[scheme]}'")


def axe_violations(
    page: Page, within: str | None = None, only: list[str] | None = None, without: list[str] | None = None
) -> list[str]:
    """axe-core's violations on the page as it is now (or in what `within` selects; with `only`, of
    those rules; with `without`, of all rules but those), one line each.

    Without axe-core the test is skipped, or with CI=true fails."""
    if not AXE.is_file():
        unavailable(f"no {AXE.relative_to(ROOT)}; run `npm ci` (axe-core is a devDependency in package.json)")
    if not page.evaluate("() => Boolean(window.axe)"):  # added once per load: it is 0.5 MB to parse
        page.add_script_tag(path=str(AXE))
    # the page as a reader reads it, settled: no colour caught halfway through a transition (the header's
    # title fades for 0.15 s when a scroll passes the page's heading)
    page.evaluate(
        """() => Promise.all(document.getAnimations()
          .filter((a) => a.playState === "running" && a.effect?.getComputedTiming().iterations !== Infinity)
          .map((a) => a.finished.catch(() => null)))"""
    )
    found = page.evaluate(
        f"([within, only, without]) => ({RUN_AXE})(within, only, without)", [within, only, without or []]
    )
    return [f"{v['rule']} ({v['impact']}, {v['count']} elements): {'; '.join(v['where'])}" for v in found]


# The WCAG colour arithmetic the contrast checks share, as JavaScript to open a page function with:
# rgba("rgb(…)") -> [r, g, b, a]; over(fg, bg) composites fg on an opaque bg; lum(c) is relative luminance.
COLOUR_JS = """  const rgba = (s) => {
    const m = s.match(/[\\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const over = (fg, bg) => [0, 1, 2].map((i) => fg[i] * fg[3] + bg[i] * (1 - fg[3])).concat(1);
  const lum = (c) => {
    const l = c.slice(0, 3).map((v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  };
"""
