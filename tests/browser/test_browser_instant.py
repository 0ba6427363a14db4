"""Instant navigation (mkdocs.yml: navigation.instant) keeps the page's Python between pages: a reader
who ran a block on one page and follows a link gets the next page without a reload, its Run buttons
mounted again, and a Run there starts from the Python already running (Pyodide is fetched once).

Needs Chromium and playwright (as tests/browser/test_browser.py) and the site built with `npm ci` done.

Material's instant navigation takes over only the links its sitemap.xml lists, matching them by
path and port: the sitemap names the pages at site_url, so the test serves it as the real host
would, with the addresses of the pages where this test serves them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browsing import Watched, open_page
from sitecheck import site_url

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SITE_URL = site_url()
RUN_TIMEOUT_MS = 180_000  # the first run starts Python on a busy machine
MOUNTED = """() => { const els = [...document.querySelectorAll('[data-mg-run]')];
  return els.length > 0 && els.every((el) => el.dataset.mgState); }"""
DONE = "el => el.dataset.mgState === 'done' || el.dataset.mgState === 'error'"
# every text the page's Run status lines take from now on, in order
SAID = """() => {
  window.mgSaid = [];
  new MutationObserver(() => {
    for (const m of document.querySelectorAll('.mg-run__message')) {
      if (m.textContent && m.textContent !== window.mgSaid.at(-1)) window.mgSaid.push(m.textContent);
    }
  }).observe(document.querySelector('article'), { subtree: true, childList: true, characterData: true });
}"""


def _run_first_block(page) -> None:
    page.wait_for_function(MOUNTED)
    block = page.locator("[data-mg-run]:has(.mg-run__run)").first
    block.get_by_role("button", name=re.compile(r"^Run")).click()
    page.wait_for_function(DONE, arg=block.element_handle(), timeout=RUN_TIMEOUT_MS)
    assert block.get_attribute("data-mg-state") == "done", block.locator(".mg-run__stderr").text_content()


def test_a_run_on_the_next_page_starts_from_the_python_already_running(browser, base_url, site_dir):
    w = Watched(browser, base_url)
    sitemap = (Path(site_dir) / "sitemap.xml").read_text(encoding="utf-8").replace(SITE_URL, base_url + "/")
    w.context.route("**/sitemap.xml", lambda route: route.fulfill(body=sitemap, content_type="application/xml"))
    w.page.set_default_timeout(RUN_TIMEOUT_MS)
    runtimes: list[str] = []
    w.page.on("request", lambda r: r.url.endswith("pyodide.asm.wasm") and runtimes.append(r.url))
    try:
        page = w.page
        open_page(page, base_url + "/backward-pass/")
        page.evaluate("window.mgSamePage = true")  # gone if the next page were loaded anew
        _run_first_block(page)
        assert len(runtimes) >= 1

        page.evaluate("document.querySelector('article').setAttribute('data-mg-left', '')")
        page.locator("a.md-footer__link--next").click()  # "Next: Gradients add up"
        page.wait_for_url(re.compile(r"/accumulation/$"))
        assert page.evaluate("window.mgSamePage") is True, "the page was loaded anew, not swapped in"
        page.wait_for_function("() => !document.querySelector('[data-mg-left]')")  # the new page's article is in
        page.wait_for_function(MOUNTED)
        # the Run buttons' stylesheet, added by the first page's script, still styles the new page's Run bars
        # (a link in the head would be gone: instant navigation drops what the next page's head lacks)
        bar = page.locator(".mg-run__bar").first
        assert bar.evaluate("b => getComputedStyle(b).display") == "flex", "run.css no longer applies"
        page.evaluate(SAID)
        _run_first_block(page)
        said = page.evaluate("window.mgSaid")
        assert said and not [s for s in said if "Starting" in s or "Downloading" in s], said
        # the Python of the first page (and a spare, had a run been long enough to offer Stop): no more
        assert len(runtimes) <= 2, f"Python was started again: {runtimes}"
        # scripts of ours that mark the page (scroll boxes, toolbars) ran on the new content too
        page.wait_for_function("() => document.querySelectorAll('nav.md-code__nav:not([role])').length === 0")
        assert w.problems() == []
    finally:
        w.close()
