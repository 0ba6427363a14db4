"""The built site in a real browser: pages load clean and offline, math renders, and every widget mounts.
The interactive graphs themselves are tested in tests/test_browser_widgets.py, with these fixtures.

Needs Debian's Chromium (`apt-get install chromium`, giving /usr/bin/chromium) and the Python package
playwright (`pip install -e '.[test]'`; never `playwright install`). Without them these tests skip,
except with CI=true, where they fail. Screenshots go to artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

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


_CHROMIUM: dict = {}  # one per test process: two Playwright sync instances cannot run in one thread


@pytest.fixture(scope="session")
def browser(request):
    """Chromium, shared by every module that imports this fixture (tests/test_browser_widgets.py does)."""
    if not _CHROMIUM:
        p = sync_playwright().start()
        _CHROMIUM["browser"] = b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        request.config.add_cleanup(lambda: (b.close(), p.stop()))
    return _CHROMIUM["browser"]


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
