"""Every runnable block of the site runs in the reader's browser (Pyodide, served by the site itself) and
prints exactly the checked output the test suite compares; editing, reset, the "needs" notes and the
editable-leaves handler work. The site is served under a URL path (/backprop/), as on a real host.

Needs Chromium and playwright (as tests/test_browser.py) and the site built with `npm ci` done (the
build copies Pyodide from node_modules/). Without them these tests skip, except with CI=true.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import mdblocks
import pytest
from browser import Watched, axe_violations, browser, open_page, site_dir  # noqa: F401  (fixtures: the shared browser, the built site)
from sitecheck import QuietHandler, serving

from microgpt.course import trace

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SITE_URL = re.search(r"^site_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE).group(1)
PREFIX = urlparse(SITE_URL).path  # the site is served under its real path, as on its host, not at /
RUN_TIMEOUT_MS = 180_000  # the first run includes starting Python on a busy machine

if not (ROOT / "node_modules" / "pyodide" / "pyodide.mjs").exists():
    why = "node_modules/pyodide is missing: run `npm ci` (the site serves Pyodide from it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"in-browser Python cannot be tested under CI=true: {why}", pytrace=False)
    pytest.skip(why, allow_module_level=True)


# ---------------------------------------------------------------------------- what the pages should show
@dataclass
class Block:
    n: int  # data-mg-run on the page
    expected: str | None  # the checked output the suite compares with the chain's stdout, on its last block
    needs: str | None  # "torch" | "numpy": no Run button in the browser
    last: bool  # the last block of its chain: its Run runs the whole chain


def runnable_blocks(md: Path) -> list[Block]:
    """The page's blocks the test suite runs, in page order, read from the .md file by the site's own reader."""
    page = mdblocks.parse(md.read_text(encoding="utf-8"), str(md.relative_to(ROOT)), ROOT)
    assert page.problems == [], page.problems
    blocks: list[Block] = []
    for chain in page.chains():
        needs = chain[0].needs  # the reader refuses a block that imports torch or numpy without saying so
        for fence in chain:
            expected = "".join(line + "\n" for line in fence.expected.body) if fence.expected else None
            blocks.append(Block(fence.run, expected, needs, fence is chain[-1]))
    return blocks


def _site_path(md: Path) -> str:
    rel = md.relative_to(DOCS).with_suffix("").as_posix()
    return PREFIX if rel == "index" else f"{PREFIX}{rel.removesuffix('/index')}/"


PAGES = {
    _site_path(md): runnable_blocks(md)
    for md in sorted(DOCS.rglob("*.md"))
    if not {"hooks", "vendor"} & set(md.relative_to(DOCS).parts)
}


# ---------------------------------------------------------------------------- serving and watching
@pytest.fixture(scope="session")
def run_url(site_dir):  # noqa: F811
    """The built site served under PREFIX; anything else is a 404."""

    class Handler(QuietHandler):
        def translate_path(self, path):
            if not path.startswith(PREFIX):
                return str(Path(site_dir) / "no such file")
            return super().translate_path(path[len(PREFIX) - 1 :])

    with serving(site_dir, Handler) as url:
        yield url


@pytest.fixture
def watched(browser, run_url):  # noqa: F811
    """A page failing the test on console errors, requests outside the site, and failed requests."""
    w = Watched(browser, run_url)
    w.page.set_default_timeout(RUN_TIMEOUT_MS)  # starting Python holds the page's main thread for seconds

    w.failed: list[str] = []
    w.requested: list[str] = []
    w.page.on("request", lambda r: w.requested.append(r.url))
    w.page.on("response", lambda r: r.status >= 400 and w.failed.append(f"{r.status} {r.url}"))
    w.page.on("requestfailed", lambda r: w.failed.append(f"{r.failure} {r.url}"))
    yield w
    assert w.errors == [], f"console errors: {w.errors}"
    assert w.outside == [], f"requests outside the site: {w.outside}"
    assert w.failed == [], f"failed requests: {w.failed}"
    w.close()


def _wait_done(page, block, timeout=RUN_TIMEOUT_MS) -> str:
    page.wait_for_function(
        "el => el.dataset.mgState === 'done' || el.dataset.mgState === 'error'",
        arg=block.element_handle(),
        timeout=timeout,
    )
    return block.get_attribute("data-mg-state")


REVEAL_JS = """el => {
  // as a reader would: open the collapsed admonitions and select the content tabs the block sits in
  for (let d = el.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
  for (let b = el.closest(".tabbed-block"); b; b = b.parentElement.closest(".tabbed-block")) {
    const set = b.closest(".tabbed-set");
    const i = [...b.parentElement.children].indexOf(b);
    set.querySelectorAll(":scope > input")[i].click();
  }
}"""


def _reveal(block) -> None:
    block.evaluate(REVEAL_JS)


def _stdout(block) -> str:
    return block.locator(".mg-run__stdout").text_content()


# ---------------------------------------------------------------------------- every block, every page
# Every page's blocks run on one Python: the first page is loaded, and each page after it is reached as a
# reader reaches it, by a link that instant navigation (mkdocs.yml: navigation.instant) follows without a
# reload, so the Python the first Run started runs the blocks of every page (each chain in a fresh
# namespace of its own, as on the first page). A test a page, on one worker, in page order; the editing
# and leaf-value tests below run on that Python too.
LEFT = "data-mg-left"  # on the article of the page navigated away from: gone once the next page is in
FOLLOW_LINK = """([url, left]) => {
  document.querySelector("article").setAttribute(left, "");
  const a = document.createElement("a");
  a.href = url;
  document.body.append(a);
  a.click();
  a.remove();
}"""


@pytest.fixture(scope="module")
def one_python(browser, run_url, site_dir):  # noqa: F811
    """One page, kept from page to page by instant navigation, with the checks of `watched`."""
    w = Watched(browser, run_url)
    # instant navigation takes over only the links the sitemap lists, which names the pages at site_url:
    # served with the addresses the pages have here, as their host would serve it
    sitemap = (Path(site_dir) / "sitemap.xml").read_text(encoding="utf-8").replace(SITE_URL, run_url + PREFIX)
    w.context.route("**/sitemap.xml", lambda route: route.fulfill(body=sitemap, content_type="application/xml"))
    w.page.set_default_timeout(RUN_TIMEOUT_MS)
    w.failed: list[str] = []
    w.runtimes: list[str] = []
    w.page.on("request", lambda r: r.url.endswith("pyodide.asm.wasm") and w.runtimes.append(r.url))
    w.page.on("response", lambda r: r.status >= 400 and w.failed.append(f"{r.status} {r.url}"))
    w.page.on("requestfailed", lambda r: w.failed.append(f"{r.failure} {r.url}"))
    yield w
    w.close()


@pytest.fixture
def kept(one_python):
    """The one page of one_python, failing the test on what went wrong during it, as `watched` does."""
    w = one_python
    before = len(w.errors), len(w.outside), len(w.failed)
    yield w
    errors, outside, failed = w.errors[before[0] :], w.outside[before[1] :], w.failed[before[2] :]
    assert errors == [], f"console errors: {errors}"
    assert outside == [], f"requests outside the site: {outside}"
    assert failed == [], f"failed requests: {failed}"


def _go(page, url: str) -> None:
    """Open url: load it on a new page, else follow a link to it (instant navigation, the Python kept)."""
    if page.url == "about:blank":
        open_page(page, url)
    elif page.url != url:
        page.evaluate(FOLLOW_LINK, [url, LEFT])
        page.wait_for_url(url)
        page.wait_for_function(f"() => !document.querySelector('[{LEFT}]')")


@pytest.mark.xdist_group("one_python")
@pytest.mark.parametrize("path", [p for p, blocks in PAGES.items() if blocks])
def test_every_runnable_block_prints_its_checked_output_in_the_browser(kept, run_url, path):
    _runs_every_block(kept.page, run_url, path)
    assert len(kept.runtimes) <= 1, f"{path}: Python was fetched again, not kept from the page before: {kept.runtimes}"


def _runs_every_block(page, run_url: str, path: str) -> None:
    blocks = PAGES[path]
    started = time.monotonic()
    ran, matched, problems = 0, 0, []
    _go(page, run_url + path)
    page.wait_for_function(
        "n => { const els = [...document.querySelectorAll('[data-mg-run]')];"
        " return els.length === n && els.every((el) => el.mgRun); }",
        arg=len(blocks),
    )
    shown = page.locator("[data-mg-run]")
    assert shown.count() == len(blocks), f"{path}: {shown.count()} blocks marked runnable, .md has {len(blocks)}"
    for b in blocks:
        el = page.locator(f'[data-mg-run="{b.n}"]')
        if b.needs:
            assert el.locator(".mg-run__run").count() == 0, f"{path} block {b.n} needs {b.needs} but offers Run"
            continue
        run = el.get_by_role("button", name=re.compile(r"^Run"))
        if not b.last:
            # Run here runs the chain from its first block to this one: a start of the program the chain's
            # last Run runs to its end, which runs each block of the chain once
            assert el.locator(".mg-run__run").count() == 1, f"{path} block {b.n} offers no Run"  # shown or folded
            continue
        _reveal(el)
        run.click()
        state = _wait_done(page, el)
        ran += 1
        out = _stdout(el)
        if state != "done":
            problems.append(f"{path} block {b.n}: {el.locator('.mg-run__stderr').text_content()}")
        elif b.expected is not None:
            if out == b.expected:
                matched += 1
                assert el.locator(".mg-run__verdict").get_attribute("data-verdict") == "match"
            else:
                problems.append(f"{path} block {b.n}: printed {out!r}, the checked output is {b.expected!r}")
    runnable = sum(1 for b in blocks if not b.needs and b.last)
    with_expected = sum(1 for b in blocks if b.expected is not None and not b.needs)
    print(
        f"\n{path}: {ran - len(problems)} of {runnable} runnable chains ran without error;"
        f" {matched} of {with_expected} checked outputs matched; {time.monotonic() - started:.0f} s"
    )
    assert problems == [], "\n".join(problems)
    assert (ran, matched) == (runnable, with_expected)


# ---------------------------------------------------------------------------- editing
def _native_stdout(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"__name__": "__main__"})
    return out.getvalue()


@pytest.mark.xdist_group("one_python")
def test_edit_runs_the_readers_code_and_reset_restores_the_page(kept, run_url):
    page = kept.page
    path, block = next((p, b) for p, bs in PAGES.items() for b in bs if b.expected and not b.needs and b.n == 0)
    _go(page, run_url + path)
    el = page.locator('[data-mg-run="0"]')
    original = el.locator("code").first.text_content()
    edited = original.rstrip("\n") + '\nprint("edited:", 6 * 7)\n'

    el.get_by_role("button", name="Edit").focus()
    page.keyboard.press("Enter")  # the keyboard alone: Edit, type, Ctrl+Enter runs
    editor = el.get_by_role("textbox")
    assert editor.evaluate("e => e === document.activeElement")
    assert editor.input_value() == original.rstrip("\n")
    editor.fill(edited)
    page.keyboard.press("Control+Enter")
    assert _wait_done(page, el) == "done"
    assert _stdout(el) == _native_stdout(edited) == block.expected + "edited: 42\n"
    verdict = el.locator(".mg-run__verdict")
    assert verdict.get_attribute("data-verdict") == "mismatch"
    assert verdict.text_content().strip().startswith("✗ Not the same")

    editor.fill("print(1 / 0)")  # the output above is now stale: dimmed, yet still readable
    assert el.locator('.mg-run__output[data-stale="true"]').count() == 1
    assert axe_violations(page, "[data-mg-run='0']") == []
    el.get_by_role("button", name=re.compile(r"^Run")).click()
    page.wait_for_function("el => el.dataset.mgState === 'error'", arg=el.element_handle())
    assert "ZeroDivisionError" in el.locator(".mg-run__stderr").text_content()
    assert axe_violations(page, "[data-mg-run='0']") == []  # the error's red is readable too

    editor.fill("while True:\n    pass")  # a runaway edit: Stop ends it, and the page is still usable
    el.get_by_role("button", name=re.compile(r"^Run")).click()
    el.get_by_role("button", name="Stop").click()
    page.wait_for_function("el => el.dataset.mgState === 'error'", arg=el.element_handle())
    assert "stopped" in el.locator(".mg-run__status").text_content()

    reset = el.get_by_role("button", name="Reset")
    reset.focus()
    page.keyboard.press("Enter")
    assert editor.is_hidden() and el.locator(".highlight").is_visible()
    assert el.locator(".mg-run__output").is_hidden()
    run = el.get_by_role("button", name=re.compile(r"^Run"))
    run.focus()
    page.keyboard.press("Enter")  # Python starts again after the Stop
    page.wait_for_function("el => el.dataset.mgState === 'done'", arg=el.element_handle())
    assert _stdout(el) == block.expected
    assert verdict.get_attribute("data-verdict") == "match"


# ---------------------------------------------------------------------------- what cannot run here
@pytest.mark.parametrize("needs, name", [("torch", "PyTorch"), ("numpy", "NumPy")])
def test_blocks_that_need_torch_or_numpy_say_so_instead_of_offering_run(watched, run_url, needs, name):
    path, block = next(((p, b) for p, bs in PAGES.items() for b in bs if b.needs == needs), (None, None))
    if path is None:
        pytest.skip(f"no page has a block that needs {needs}")
    page = watched.page
    open_page(page, run_url + path)
    el = page.locator(f'[data-mg-run="{block.n}"]')
    assert el.get_attribute("data-mg-needs") == needs
    page.wait_for_function("el => el.mgRun", arg=el.element_handle())
    assert name in el.locator(".mg-run__needs").text_content()
    # the note says how to run it elsewhere: it links to the home page's install line
    href = el.locator(".mg-run__needs a").get_attribute("href")
    assert href == run_url + PREFIX + "#install", href
    assert el.get_by_role("button", name=re.compile(r"^Run")).count() == 0


def test_python_is_fetched_only_when_the_reader_first_runs_a_block(watched, run_url):
    page = watched.page
    path = next(p for p, bs in PAGES.items() if not bs)
    open_page(page, run_url + path)  # a page without runnable blocks
    assert not [u for u in watched.requested if "/javascripts/run/blocks.js" in u]
    path = next(p for p, bs in PAGES.items() if any(not b.needs for b in bs))
    open_page(page, run_url + path)
    page.wait_for_selector(".mg-run__run")
    assert not [u for u in watched.requested if "/vendor/pyodide/" in u or "/dist/" in u]
    page.locator(".mg-run__run").first.click()
    _wait_done(page, page.locator("[data-mg-run]:has(.mg-run__run)").first)
    fetched = {u.rsplit("/", 1)[1] for u in watched.requested if "/vendor/pyodide/" in u or "/dist/" in u}
    assert {"pyodide.asm.wasm", "python_stdlib.zip", "latest.json"} <= fetched


# ---------------------------------------------------------------------------- editable leaves
LEAVES_JS = """async ([preset, leaves]) => {
  const el = document.createElement("div");  // a stand-in widget: the two methods of the contract
  document.body.append(el);
  const answer = new Promise((resolve) => {
    el.mgSetTrace = (trace) => resolve({ trace });
    el.mgSetError = (error) => resolve({ error });
  });
  el.dispatchEvent(new CustomEvent("mg:leaves", { bubbles: true, detail: { preset, leaves } }));
  const result = await answer;
  el.remove();
  return result;
}"""


@pytest.mark.xdist_group("one_python")
def test_new_leaf_values_come_back_as_the_engines_trace(kept, run_url):
    page = kept.page
    _go(page, run_url + PREFIX)
    leaves = {"a": 1.5, "b": -2.0, "d": 5.0}  # relu(a·b + d) with a·b + d > 0
    got = page.evaluate(LEAVES_JS, ["relu", leaves])
    want = json.loads(json.dumps(trace.trace_preset("relu", leaves)))
    assert got == {"trace": want}
    grads = {n["id"]: n["grad"] for n in got["trace"]["nodes"]}
    # and, by the chain rule, for f = relu(a·b + d) on the positive side: df/da = b, df/db = a, df/dd = 1
    assert (grads["a"], grads["b"], grads["d"]) == (leaves["b"], leaves["a"], 1.0)
    bad = page.evaluate(LEAVES_JS, ["no-such-preset", leaves])
    assert set(bad) == {"error"} and bad["error"]


# ---------------------------------------------------------------------------- the GPT chapter's capstone
MY_RELU = """from microgpt.course.checkers import check_relu_backward


def relu_backward(h, g):
    return [g[i] if h[i] > 0 else 0.0 for i in range(len(h))]


print(check_relu_backward(relu_backward))"""


def test_a_piece_the_reader_wrote_survives_a_reload_and_the_capstone_names_it(watched, run_url):
    page = watched.page
    open_page(page, f"{run_url}{PREFIX}gpt-block/")
    exercise = page.locator(".mg-run").filter(has_text="check_relu_backward").first
    exercise.get_by_role("button", name="Edit").click()
    exercise.get_by_role("textbox").fill(MY_RELU)
    exercise.get_by_role("button", name=re.compile(r"^Run")).click()
    assert _wait_done(page, exercise) == "done"
    assert _stdout(exercise).startswith("✓ relu_backward agrees with the engine")

    open_page(page, f"{run_url}{PREFIX}gpt-capstone/")  # a reload: a new page, a new Python
    whose = page.locator(".mg-run").filter(has_text="capstone.whose()").first
    whose.get_by_role("button", name=re.compile(r"^Run")).click()
    assert _wait_done(page, whose) == "done"
    assert _stdout(whose).startswith(
        "yours: relu_backward\nthe solutions': cross_entropy_backward, linear_backward, rmsnorm"
    )
    assert whose.locator(".mg-run__verdict").get_attribute("data-verdict") == "mismatch"
