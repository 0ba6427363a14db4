"""Every runnable block of the site runs in the reader's browser (Pyodide, served by the site itself) and
prints exactly the checked output the test suite compares; each run gets one verdict that never
contradicts itself, shown and announced in the same words; the editor (CodeMirror, bundled by the build,
fetched on the first Edit) edits by keyboard, marks the lines errors went through and keeps drafts across
reloads; Stop starts a fresh Python at once, and a run left behind on another page is named with its
Stop; the "needs" notes and the editable-leaves handler work. The site is served under a URL path
(/backprop/), as on a real host.

Needs Chromium and playwright (as tests/browser/test_browser.py) and the site built with `npm ci` done (the
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

import pytest
from browsing import COLOUR_RULES, DESKTOP, PHONE, PlaywrightTimeout, Watched, axe_violations, open_page
from mgsite import blocks as mdblocks
from mgsite.vendor import SCRIPTS  # where the build writes the site's scripts (blocks-*.js, editor.js)
from sitecheck import QuietHandler, serving, site_url

from microgpt.course import trace
from microgpt.course.checkers import check_relu_backward

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SITE_URL = site_url()
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
def run_url(site_dir):
    """The built site served under PREFIX; anything else is a 404."""

    class Handler(QuietHandler):
        def translate_path(self, path):
            if not path.startswith(PREFIX):
                return str(Path(site_dir) / "no such file")
            return super().translate_path(path[len(PREFIX) - 1 :])

    with serving(site_dir, Handler) as url:
        yield url


@pytest.fixture
def watched(browser, run_url):
    """A page of its own (a new context: no stored draft or piece, no Python yet) failing the test on console
    errors, requests outside the site, and failed requests; `requested` is every request it made, `runtimes`
    the Pythons it started (pyodide.asm.wasm fetched)."""
    w = Watched(browser, run_url)
    w.page.set_default_timeout(RUN_TIMEOUT_MS)  # starting Python holds the page's main thread for seconds

    w.failed: list[str] = []
    w.requested: list[str] = []
    w.runtimes: list[str] = []
    w.page.on("request", lambda r: w.requested.append(r.url))
    w.page.on("request", lambda r: r.url.endswith("pyodide.asm.wasm") and w.runtimes.append(r.url))
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


MOUNTED = """n => { const els = [...document.querySelectorAll('[data-mg-run]')];
  return els.length === n && els.every((el) => el.dataset.mgState); }"""


def _verdict(block) -> tuple[str, str, str]:
    """The block's verdict: (kind, icon, words), after checking the status region says the same words."""
    verdict = block.locator(".mg-run__verdict")
    if verdict.is_hidden():
        return "", "", ""
    icon = verdict.locator(".mg-run__icon").text_content()
    words = verdict.text_content().removeprefix(icon).strip()
    spoken = block.locator(".mg-run__spoken").text_content().strip()
    assert spoken == words, f"shown {words!r}, said {spoken!r}"
    assert verdict.locator(".mg-run__icon").get_attribute("aria-hidden") == "true"
    return verdict.get_attribute("data-verdict"), icon, words


# ---------------------------------------------------------------------------- every block, every page
# Every page's blocks run on one Python, as a reader's do: the first page is loaded, and each page after it is
# reached by a link that instant navigation (mkdocs.yml: navigation.instant) follows without a reload, so the
# Python the first Run started runs the blocks of every page (each chain in a fresh namespace of its own, as
# on the first page). One test, in page order, on a page of its own: what it finds depends on no other test.
LEFT = "data-mg-left"  # on the article of the page navigated away from: gone once the next page is in
FOLLOW_LINK = """([url, left]) => {
  document.querySelector("article").setAttribute(left, "");
  const a = document.createElement("a");
  a.href = url;
  document.body.append(a);
  a.click();
  a.remove();
}"""


@pytest.fixture
def instant(watched, run_url, site_dir):
    """`watched`, with instant navigation following its links to the site's pages (`_go`)."""
    # instant navigation takes over only the links the sitemap lists, which names the pages at site_url:
    # served with the addresses the pages have here, as their host would serve it
    sitemap = (Path(site_dir) / "sitemap.xml").read_text(encoding="utf-8").replace(SITE_URL, run_url + PREFIX)
    watched.context.route("**/sitemap.xml", lambda route: route.fulfill(body=sitemap, content_type="application/xml"))
    return watched


def _go(page, url: str) -> None:
    """Open url: load it on a new page, else follow a link to it (instant navigation, the Python kept)."""
    if page.url == "about:blank":
        open_page(page, url)
    elif page.url != url:
        page.evaluate(FOLLOW_LINK, [url, LEFT])
        page.wait_for_url(url)
        page.wait_for_function(f"() => !document.querySelector('[{LEFT}]')")


def test_every_runnable_block_prints_its_checked_output_in_the_browser(instant, run_url):
    """Every page with runnable blocks, in turn, by instant navigation: each chain prints its checked output,
    and one Python runs them all (the first page's, and the spare a long run asks for, for the run after a
    Stop: no more). A page that fails is named, and the next page is loaded anew."""
    problems = []
    for path in (p for p, blocks in PAGES.items() if blocks):
        try:
            _runs_every_block(instant.page, run_url, path)
        except (AssertionError, PlaywrightTimeout) as e:
            problems.append(f"{path}: {e}")
            instant.page.goto("about:blank")  # whatever that page left running goes with its document
    assert problems == [], "\n".join(problems)
    assert len(instant.runtimes) <= 2, f"Python was fetched again, not kept from page to page: {instant.runtimes}"


def _runs_every_block(page, run_url: str, path: str) -> None:
    blocks = PAGES[path]
    started = time.monotonic()
    ran, matched, problems = 0, 0, []
    _go(page, run_url + path)
    page.wait_for_function(MOUNTED, arg=len(blocks))
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
        defines = el.get_attribute("data-mg-defines")
        if state != "done":
            problems.append(f"{path} block {b.n}: {el.locator('.mg-run__stderr').text_content()}")
        elif defines and not out:
            # an excerpt that only defines names says what running it did, not a bare "printing nothing"
            said = el.locator(".mg-run__message").text_content()
            if f"it defines {defines}, so there is nothing to print." not in said:
                problems.append(f"{path} block {b.n}: a run that defined {defines} said {said!r}")
        elif b.expected is not None:
            if out == b.expected:
                matched += 1
                # the page's code, unedited: the same output, or a checker's verdict on the page's attempt
                kind, icon, words = _verdict(el)
                assert kind in ("same", "accepted", "not-yet"), f"{path} block {b.n}: {kind} {words}"
                assert (icon == "✗") == (kind == "not-yet"), f"{path} block {b.n}: {icon} {words}"
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


# ---------------------------------------------------------------------------- verdicts, editing, Stop
def _native_stdout(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"__name__": "__main__"})
    return out.getvalue()


def _editor_lines(block) -> list[str]:
    return block.locator(".cm-line").evaluate_all("ls => ls.map((l) => l.textContent)")


def _run_by_keyboard(page, block) -> str:
    """Ctrl+Enter in the editor (it has the focus); the state the run ends in."""
    page.keyboard.press("Control+Enter")
    return _wait_done(page, block)


def _marked(block) -> list[tuple[int, str]]:
    """The editor's marked lines (1-based), each with the message shown under it."""
    return [(line, message) for line, message in _MARKED(block)]


def _MARKED(block) -> list[list]:
    return block.evaluate(
        """el => [...el.querySelectorAll('.cm-line')].flatMap((line, k) => {
          if (!line.classList.contains('mg-cm-error-line')) return [];
          const next = line.nextElementSibling;
          return [[k + 1, next?.classList.contains('mg-cm-error') ? next.textContent : '']];
        })"""
    )


def test_a_plain_block_same_edited_mismatch_error_stop_and_reset(watched, run_url):
    """Home page's first block, unedited then edited, by keyboard: one verdict a run, no ✗ for an edit;
    an error is marked at its line; Stop starts a fresh Python at once; Reset brings the page's code back."""
    page = watched.page
    path, block = next((p, b) for p, bs in PAGES.items() for b in bs if b.expected and not b.needs and b.n == 0)
    _go(page, run_url + path)
    el = page.locator('[data-mg-run="0"]')
    original = el.locator("code").first.text_content()
    run = el.get_by_role("button", name=re.compile(r"^Run"))

    run.click()
    assert _wait_done(page, el) == "done"
    assert _verdict(el) == ("same", "✓", "Same as the checked output below.")
    checked = page.locator('[data-mg-expected="0"] code')
    true_output = checked.evaluate("c => c.textContent")
    checked.evaluate("c => (c.textContent = '4.0 -3.0 2.0 0.5\\n')")  # as if the page showed a wrong output
    run.click()
    assert _wait_done(page, el) == "done"
    assert _verdict(el) == ("mismatch", "✗", "Not the same as the checked output below.")
    checked.evaluate("(c, text) => (c.textContent = text)", true_output)

    edited = original.rstrip("\n") + '\nprint("edited:", 6 * 7)\n'
    el.get_by_role("button", name="Edit").focus()
    page.keyboard.press("Enter")  # the keyboard alone: Edit, type, Ctrl+Enter runs
    editor = el.get_by_role("textbox")
    assert editor.evaluate("e => e === document.activeElement")
    assert _editor_lines(el) == original.rstrip("\n").split("\n")
    editor.fill(edited)
    assert el.get_attribute("data-mg-edited") == "true"
    assert _run_by_keyboard(page, el) == "done"
    assert _stdout(el) == _native_stdout(edited) == block.expected + "edited: 42\n"
    kind, icon, words = _verdict(el)  # differs because the reader changed it: said so, with no ✗ and no red
    assert (kind, icon) == ("edited", "✎")
    assert words == "Differs from the checked output below, because you changed the code."
    colour = el.locator(".mg-run__verdict .mg-run__icon").evaluate("i => getComputedStyle(i).color")
    assert colour == el.locator(".mg-run__verdict").evaluate("v => getComputedStyle(v).color"), colour

    editor.fill("x = 1\nprint(x / 0)")  # the output above is now stale: dimmed, yet still readable
    assert el.locator('.mg-run__output[data-stale="true"]').count() == 1 and el.locator(".mg-run__verdict").is_hidden()
    assert axe_violations(page, "[data-mg-run='0']") == []
    assert _run_by_keyboard(page, el) == "error"
    assert _verdict(el) == ("error", "⚠", "Stopped with an error at line 2: ZeroDivisionError: division by zero")
    assert "ZeroDivisionError" in el.locator(".mg-run__stderr").text_content()
    assert _marked(el) == [(2, "ZeroDivisionError: division by zero")]
    assert axe_violations(page, "[data-mg-run='0']") == []  # the error's red is readable too
    page.keyboard.press("End")
    page.keyboard.type("  # edited")
    assert _marked(el) == [], "the marks belong to the code that ran"

    editor.fill("while True:\n    pass")  # a runaway edit: Stop ends it, and a fresh Python starts at once
    run.click()
    stop = el.get_by_role("button", name="Stop")
    # the spare Python takes over; once it is up, a new spare starts, before any Run is pressed
    stop.wait_for()  # offered once the run has taken a second
    stop.focus()
    with page.expect_request(lambda r: r.url.endswith("pyodide.asm.wasm")):
        page.keyboard.press("Enter")
    page.wait_for_function("el => el.dataset.mgState === 'error'", arg=el.element_handle())
    stopped = el.locator(".mg-run__message").text_content()
    # the spare is ready when it has had its few seconds since the first answer (the whole file's run), else starting
    assert stopped in (
        "Stopped. A fresh Python is ready for the next Run.",
        "Stopped. A fresh Python is starting for the next Run.",
    )
    assert run.evaluate("b => b === document.activeElement"), "the keyboard stays on the bar"

    reset = el.get_by_role("button", name="Reset")
    reset.focus()
    page.keyboard.press("Enter")
    assert editor.is_hidden() and el.locator(".highlight").is_visible()
    assert el.locator(".mg-run__output").is_hidden() and el.get_attribute("data-mg-edited") == "false"
    assert el.get_by_role("button", name="Edit").evaluate("b => b === document.activeElement")
    page.evaluate(SAID)
    run.focus()
    page.keyboard.press("Enter")  # on the spare: nothing to start
    page.wait_for_function("el => el.dataset.mgState === 'done'", arg=el.element_handle())
    assert _stdout(el) == block.expected
    assert _verdict(el)[0] == "same"
    # the Python that took over was up before the next spare started (the request above): nothing to start
    assert not [said for said in page.evaluate("window.mgSaid") if "Starting" in said]


RELU_RIGHT = """from microgpt.course.checkers import check_relu_backward


def relu_backward(h, g):
    return [g[i] if h[i] > 0 else 0.0 for i in range(len(h))]


print(check_relu_backward(relu_backward))"""
RELU_RAISES = RELU_RIGHT.replace("    return [g[i]", "    scale = 1 / (len(h) - len(g))\n    return [g[i]")
RELU_NAME_ERROR = RELU_RIGHT.replace("check_relu_backward(relu_backward)", "check_relu_backward(relu_backwards)")


def _checker_says(source: str) -> str:
    """The first line of what the package's own checker says of this ReLU code, without its mark and full stop."""
    namespace: dict = {}
    exec(source.replace("print(check_relu_backward(relu_backward))", ""), namespace)
    said = str(check_relu_backward(namespace["relu_backward"])).split("\n")[0]
    return said.removeprefix("✓ ").removeprefix("✗ ").rstrip(":.")


PAGE_CODE_SIZE = "() => getComputedStyle(document.querySelector('article > .mg-run .highlight code')).fontSize"


def test_an_exercise_by_keyboard_its_checkers_verdict_and_the_lines_marked(watched, run_url):
    """gpt-block's ReLU exercise: the checker's verdict, never compared with the page's output; the editor
    by keyboard (Python highlighting, line numbers, auto-indent, Tab and its way out, Ctrl+Enter, the page's
    code size, the first column); the reader's error marked at its line; on a phone the verdict and every
    message fit; axe in light and dark."""
    page = watched.page
    _go(page, f"{run_url}{PREFIX}gpt-block/")
    page.wait_for_function(MOUNTED, arg=len(PAGES[f"{PREFIX}gpt-block/"]))
    el = page.locator(".mg-run").filter(has_text="check_relu_backward").first
    _reveal(el)
    checked = el.locator("xpath=following::*[@data-mg-expected][1]//code").text_content()
    el.get_by_role("button", name=re.compile(r"^Run")).click()
    assert _wait_done(page, el) == "done"
    kind, icon, words = _verdict(el)  # the page's blank body: the checker says it is not written yet, and only it
    assert (kind, icon, words) == ("not-yet", "✗", "Not yet: see the output below.")  # the verdict is printed below
    blank = el.locator(".highlight code").first.text_content()
    assert _stdout(el).startswith(f"✗ {_checker_says(blank)}")

    el.get_by_role("button", name="Edit").focus()
    page.keyboard.press("Enter")
    editor = el.get_by_role("textbox")
    editor.wait_for()
    assert editor.evaluate("e => e === document.activeElement && getSelection().anchorOffset === 0")
    assert el.locator(".cm-scroller").evaluate("s => s.scrollLeft") == 0
    assert editor.evaluate("e => getComputedStyle(e).fontSize") == page.evaluate(PAGE_CODE_SIZE) == "13.6px"
    described = editor.evaluate("e => document.getElementById(e.getAttribute('aria-describedby')).textContent")
    assert "press Escape, then Tab" in described and "Ctrl+Enter runs" in described
    lines = len(_editor_lines(el))
    assert el.locator(".cm-lineNumbers .cm-gutterElement").filter(has_text=re.compile(r"^\d+$")).count() >= lines
    assert el.locator(".mg-hl-keyword").filter(has_text="def").count() == 1  # Python's own highlighting
    assert el.locator(".mg-hl-function").filter(has_text="relu_backward").count() == 1

    page.keyboard.press("Control+End")  # auto-indent, and Tab indents
    page.keyboard.press("Enter")
    page.keyboard.type("def helper(x):")
    page.keyboard.press("Enter")
    assert _editor_lines(el)[-1] == "    "
    page.keyboard.press("Tab")
    assert _editor_lines(el)[-1] == "        "
    assert editor.evaluate("e => e === document.activeElement"), "Tab indents: it does not leave the editor"

    editor.fill(RELU_RIGHT)
    assert _run_by_keyboard(page, el) == "done"
    assert _stdout(el) != checked + "\n"  # not compared with the checked output: the checker decides
    assert _verdict(el) == ("accepted", "✓", "Accepted")
    assert _stdout(el).startswith(f"✓ {_checker_says(RELU_RIGHT)}")
    editor.fill(RELU_RAISES)
    assert _run_by_keyboard(page, el) == "done", "the checker caught the reader's error: the block ran to its end"
    kind, icon, words = _verdict(el)  # where the error was raised; the checker names it, and the case, below
    assert (kind, icon) == ("not-yet", "✗")
    assert words == "Not yet: relu_backward raised an error at line 5: see the output below."
    assert "relu_backward raised ZeroDivisionError" in _stdout(el)
    assert _marked(el) == [(5, "ZeroDivisionError: division by zero")]
    editor.fill(RELU_NAME_ERROR)
    assert _run_by_keyboard(page, el) == "error"
    kind, _, words = _verdict(el)
    assert (kind, words) == (
        "error",
        "Stopped with an error at line 8: NameError: name 'relu_backwards' is not defined",
    )
    assert _marked(el) == [(8, "NameError: name 'relu_backwards' is not defined")]

    page.set_viewport_size({"width": 390, "height": 900})  # a phone: nothing of the verdict or a message hidden
    try:
        _reveal(el)
        widths = el.evaluate(
            """el => ['.mg-run__verdict', '.mg-run__output', '.mg-cm-error'].map((s) => {
              const box = el.querySelector(s);
              return [s, box.getBoundingClientRect().right <= innerWidth, box.scrollWidth <= box.clientWidth + 1];
            })"""
        )
        assert all(fits and unclipped for _, fits, unclipped in widths), widths
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})

    assert axe_violations(page, ".mg-run") == []
    page.locator("label[for='__palette_1']").click()  # the reader's switch to dark, in the header
    try:
        page.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'", timeout=10_000)
        assert axe_violations(page, ".mg-run", only=COLOUR_RULES) == []
    finally:
        page.locator("label[for='__palette_0']").click()
        page.wait_for_function("() => document.body.dataset.mdColorScheme === 'default'", timeout=10_000)

    editor.focus()
    page.keyboard.press("Escape")  # CodeMirror's way out, as the editor's description says
    page.keyboard.press("Tab")
    assert el.get_by_role("button", name=re.compile(r"^Run")).evaluate("b => b === document.activeElement")
    el.get_by_role("button", name="Reset").click()  # and its draft goes: the next visit starts from the page
    assert page.evaluate("() => Object.keys(localStorage).filter((k) => k.startsWith('microgpt:draft:'))") == []

    # the solution's chain: an error inside the page's own code of an earlier block is told by its part and
    # by the line number that block shows (the file's: it is embedded from microgpt/course/pieces.py)
    last = page.locator(".mg-run").filter(has_text="the prediction above")
    _reveal(last)
    n = int(last.get_attribute("data-mg-run"))
    embedded = page.locator(f'[data-mg-run="{n - 1}"]')
    shown = [number for number in embedded.locator(".linenos").inner_text().split() if number.isdigit()]
    last.get_by_role("button", name="Edit").click()
    last.get_by_role("textbox").fill("print(relu_backward(None, [1.0]))")
    assert _run_by_keyboard(page, last) == "error"
    kind, _, words = _verdict(last)
    assert kind == "error" and words == (
        f"Stopped with an error at line {shown[2]} of part 2 of 3, a block above that this one continues:"
        " TypeError: 'NoneType' object is not iterable"
    )
    marked = embedded.locator(".mg-run__line--error")
    assert marked.count() == 1 and marked.get_attribute("id").endswith(f"-{shown[2]}")
    last.get_by_role("button", name="Reset").click()


# ---------------------------------------------------------------------------- the exercises, as a learner meets them
EXERCISE = '!!! question "Exercise'  # how a page opens an exercise (CONTRIBUTING.md)
EXERCISES = {
    _site_path(md): md.read_text(encoding="utf-8").count(EXERCISE)
    for md in sorted(DOCS.glob("*.md"))
    if EXERCISE in md.read_text(encoding="utf-8")
}
LABEL = "Checked output"  # the build's label over a checked output (mgsite/runnable.py)
FOLDED = "The page's checked output"  # the button it gives way to (run/checked.js)


def _right_answer(exercise) -> str:
    """The "Write it yourself" template with its function written as the page's solution writes it."""
    blank = exercise.locator(".tabbed-block").first.locator(".mg-run .highlight code").first.text_content()
    name = re.search(r"^def (\w+)\(", blank, re.M).group(1)
    solution = exercise.locator("xpath=following-sibling::details[contains(@class, 'success')][1]")
    written = solution.locator(".mg-run").filter(has_text=f"def {name}(").locator(".highlight code").first
    definition = re.compile(rf"^def {name}\(.*?raise NotImplementedError[^\n]*", re.S | re.M)
    answer, found = definition.subn(lambda _: written.text_content().rstrip("\n"), blank)
    assert found == 1, blank
    return answer


def _shown(exercise_tab) -> str:
    """What the reader sees of a tab: its rendered text, without what is hidden or folded away."""
    return exercise_tab.evaluate("t => t.innerText")


def _checked_and_fold(page, block):
    """A block's checked output, the label over it, and the paragraph with the button that stands for it folded."""
    checked = page.locator(f'[data-mg-expected="{block.get_attribute("data-mg-run")}"]')
    label = checked.locator("xpath=preceding-sibling::p[1]")
    fold = checked.locator("xpath=preceding-sibling::p[contains(@class, 'mg-run__fold')]")
    return checked, label, fold


def _as_built(page, block) -> None:
    checked, label, fold = _checked_and_fold(page, block)
    assert checked.is_visible() and label.is_visible() and label.text_content().strip() == LABEL
    assert fold.count() == 0


def _folded(page, block) -> None:
    checked, label, fold = _checked_and_fold(page, block)
    assert checked.is_hidden() and label.is_hidden()
    button = fold.get_by_role("button", name=FOLDED)
    assert button.get_attribute("aria-expanded") == "false"
    assert button.get_attribute("aria-controls") == checked.get_attribute("id")


@pytest.mark.parametrize("path", sorted(EXERCISES))
def test_after_an_edit_or_a_run_only_the_code_on_screen_has_a_verdict_beside_it(watched, run_url, path):
    """Every exercise: the checked output of the page's template stands as built until the learner edits or runs;
    then it is folded behind a button that says it is the page's code's, so no ✗ of other code stands under a ✓;
    the button opens it, Reset brings it back. A run of the page's slip, unedited, folds it too: the run says it."""
    page = watched.page
    _go(page, run_url + path)
    page.wait_for_function(MOUNTED, arg=len(PAGES[path]))
    exercises = page.locator(".admonition.question").filter(has=page.locator(".tabbed-set .mg-run"))
    assert exercises.count() == EXERCISES[path]
    for exercise in exercises.all():
        write, slip = (tab.locator(".mg-run") for tab in exercise.locator(".tabbed-block").all())
        tab = exercise.locator(".tabbed-block").first
        _reveal(write)
        _as_built(page, write)
        write.get_by_role("button", name="Edit").click()
        write.get_by_role("textbox").fill(_right_answer(exercise))
        _folded(page, write)
        assert "✗" not in _shown(tab) and "not written yet" not in _shown(tab), _shown(tab)
        write.get_by_role("button", name=re.compile(r"^Run")).click()
        assert _wait_done(page, write) == "done"
        assert _verdict(write)[:2] == ("accepted", "✓")
        _folded(page, write)
        assert "✗" not in _shown(tab), _shown(tab)
        checked, label, fold = _checked_and_fold(page, write)
        button = fold.get_by_role("button")
        button.click()  # the reader may still read it, under the button that says whose it is
        assert checked.is_visible() and label.is_hidden() and button.get_attribute("aria-expanded") == "true"
        assert "not written yet" in _shown(tab)
        button.click()
        assert checked.is_hidden()
        write.get_by_role("textbox").fill(_right_answer(exercise) + "\n# edited")  # what it printed is of code before
        said = write.locator(".mg-run__output").evaluate("o => getComputedStyle(o, '::before').content")
        assert said == '"From an earlier run:"' and write.locator(".mg-run__verdict").is_hidden()
        write.get_by_role("button", name="Reset").click()
        _as_built(page, write)

        _reveal(slip)  # the page's attempt with a slip, run as it is: the run says what the checked output said
        _as_built(page, slip)
        slip.get_by_role("button", name=re.compile(r"^Run")).click()
        assert _wait_done(page, slip) == "done" and _verdict(slip)[:2] == ("not-yet", "✗")
        checked, _, fold = _checked_and_fold(page, slip)
        assert _stdout(slip) == checked.evaluate("c => c.querySelector('code').textContent")
        _folded(page, slip)
    assert axe_violations(page, ".admonition.question") == []


# Every control of a block's run bar, each shown for the measure (Stop shows only during a long run, Reset only
# while editing), then hidden again as it was: [text, width, height].
CONTROL_SIZES = """el => [...el.querySelectorAll('.mg-run__bar .md-button')].map((b) => {
  const hidden = b.hidden;
  b.hidden = false;
  const box = b.getBoundingClientRect();
  b.hidden = hidden;
  return [b.textContent.trim(), box.width, box.height];
})"""

# The visual rows of a line of code: the left edge of each (its text's, from the top), and the width of one
# character of its font.
ROWS = """line => {
  const range = document.createRange();
  range.selectNodeContents(line);
  const rows = new Map();
  for (const r of range.getClientRects()) {
    if (r.width === 0) continue;
    const top = Math.round(r.top);
    rows.set(top, Math.min(rows.get(top) ?? Infinity, r.left));
  }
  const canvas = document.createElement('canvas').getContext('2d');
  const style = getComputedStyle(line);  // its font shorthand may be empty: set from its parts
  canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  return { lefts: [...rows.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]),
           ch: canvas.measureText('0000000000').width / 10 };
}"""


def _hangs(line, indent: int) -> bool:
    """The line wraps, and each row after its first starts four columns past the line's own indentation."""
    rows = line.evaluate(ROWS)
    lefts, ch = rows["lefts"], rows["ch"]
    return len(lefts) > 1 and all(abs(left - lefts[0] - (indent + 4) * ch) < 1 for left in lefts[1:])


@pytest.mark.parametrize("path", sorted(EXERCISES))
def test_on_a_phone_the_run_controls_are_a_thumbs_size_and_a_template_reads_without_scrolling_sideways(
    watched, run_url, path
):
    """At 390 px every control of a run bar is at least 44 x 44 px (on a desktop the bar stays compact); an
    exercise's template, shown and in the editor, wraps its lines instead of hiding their ends, the docstring's
    hint among them, each continuation indented under its line."""
    page = watched.page
    page.set_viewport_size({"width": PHONE, "height": 900})
    open_page(page, run_url + path)
    page.wait_for_function(MOUNTED, arg=len(PAGES[path]))
    bars = page.locator(".mg-run:has(.mg-run__bar)")
    small = []
    for block in bars.all():
        _reveal(block)
        small += [(text, w, h) for text, w, h in block.evaluate(CONTROL_SIZES) if w < 44 or h < 44]
    assert small == [], small
    exercises = page.locator(".admonition.question").filter(has=page.locator(".tabbed-set .mg-run"))
    for exercise in exercises.all():
        for block in (tab.locator(".mg-run") for tab in exercise.locator(".tabbed-block").all()):
            _reveal(block)
            code = block.locator(".highlight code").first
            assert code.evaluate("c => c.scrollWidth <= c.clientWidth + 1"), code.text_content()
            docstring = block.locator(".highlight code > span").filter(has_text='"""').first
            assert _hangs(docstring, 4), docstring.text_content()
            block.get_by_role("button", name="Edit").click()
            scroller = block.locator(".cm-scroller")
            assert scroller.evaluate("s => s.scrollWidth <= s.clientWidth + 1")
            wrapped = block.locator(".cm-line").filter(has_text='"""').first
            assert _hangs(wrapped, 4)
            assert wrapped.text_content() == docstring.text_content().rstrip("\n"), "wrapped, it is still one line"
            block.get_by_role("button", name="Reset").click()

    page.set_viewport_size({"width": DESKTOP, "height": 900})
    block = bars.first
    _reveal(block)
    assert all(h < 44 for _, _, h in block.evaluate(CONTROL_SIZES)), "a desktop's bar stays compact"


def test_a_run_left_behind_on_another_page_is_named_there_with_its_stop(instant, run_url):
    page = instant.page
    home = run_url + PREFIX
    _go(page, home)
    el = page.locator('[data-mg-run="0"]')
    el.get_by_role("button", name="Edit").click()
    el.get_by_role("textbox").fill("while True:\n    pass")
    el.get_by_role("button", name=re.compile(r"^Run")).click()
    page.wait_for_function("el => el.dataset.mgState === 'running'", arg=el.element_handle())

    _go(page, f"{run_url}{PREFIX}backward-pass/")  # instant navigation: the document, and the run, stay
    note = page.locator(".mg-run-away")
    assert note.text_content().startswith(
        "Still running: the example at the top of the page on “microgpt — backprop, line by line”, a page you left."
    )
    assert note.get_by_role("link").get_attribute("href") == home
    assert axe_violations(page, ".mg-run-away") == []
    other = page.locator("[data-mg-run]:has(.mg-run__run)").first
    other.get_by_role("button", name=re.compile(r"^Run")).click()
    assert (
        "Waiting for the example at the top of the page on “microgpt"
        in other.locator(".mg-run__message").text_content()
    )
    assert other.get_by_role("button", name="Stop it").is_visible()
    note.get_by_role("button", name="Stop it").click()
    page.wait_for_selector(".mg-run-away", state="detached")
    assert _wait_done(page, other) == "done"
    assert _verdict(other)[0] in ("same", "")

    _go(page, home)  # the edit is still there (a draft), and Reset drops it
    el = page.locator('[data-mg-run="0"]')
    el.get_by_role("textbox").wait_for()
    assert el.get_attribute("data-mg-edited") == "true"
    el.get_by_role("button", name="Reset").click()
    assert page.locator(".mg-run-away").count() == 0


# ---------------------------------------------------------------------------- drafts
def test_edits_survive_a_reload_and_a_changed_page_code_does_not_bring_an_old_one_back(watched, run_url):
    page = watched.page
    url = f"{run_url}{PREFIX}gpt-block/"
    open_page(page, url)
    el = page.locator(".mg-run").filter(has_text="check_relu_backward").first
    assert not [u for u in watched.requested if u.endswith(f"/{SCRIPTS}/editor.js")], "fetched before Edit"
    el.get_by_role("button", name="Edit").click()
    editor = el.get_by_role("textbox")
    editor.fill(RELU_RIGHT)
    assert [u for u in watched.requested if u.endswith(f"/{SCRIPTS}/editor.js")]

    open_page(page, url)  # a reload: the edit is back, in the editor, and said so
    el = page.locator(".mg-run").filter(has_text="check_relu_backward").first
    page.wait_for_selector(".cm-content")
    assert "\n".join(_editor_lines(el)) == RELU_RIGHT and el.get_attribute("data-mg-edited") == "true"
    assert el.locator(".mg-run__message").text_content().startswith("Your edit from before is back.")
    assert not el.locator(".cm-content").evaluate("c => c === document.activeElement"), "a reload takes no focus"

    # the page's code changed since (a new version of the site): its old draft stays out of the way
    page.evaluate(
        """() => { for (const key of Object.keys(localStorage).filter((k) => k.startsWith('microgpt:draft:'))) {
          const draft = JSON.parse(localStorage.getItem(key));
          localStorage.setItem(key, JSON.stringify({ ...draft, of: '0:0' }));
        } }"""
    )
    open_page(page, url)
    el = page.locator(".mg-run").filter(has_text="check_relu_backward").first
    assert el.get_by_role("button", name="Edit").is_visible() and el.locator(".cm-editor").count() == 0

    el.get_by_role("button", name="Edit").click()  # Reset forgets a draft: the next load shows the page's code
    el.get_by_role("textbox").fill(RELU_RAISES)
    el.get_by_role("button", name="Reset").click()
    open_page(page, url)
    el = page.locator(".mg-run").filter(has_text="check_relu_backward").first
    assert el.locator(".cm-editor").count() == 0 and el.get_attribute("data-mg-edited") == "false"


# ---------------------------------------------------------------------------- what cannot run here
@pytest.mark.parametrize("needs", sorted(mdblocks.NEEDS))
def test_blocks_that_need_numpy_or_torch_say_why_and_how_to_run_them(watched, run_url, needs):
    name = mdblocks.NEEDS[needs]
    path, block = next(((p, b) for p, bs in PAGES.items() for b in bs if b.needs == needs), (None, None))
    if path is None:
        pytest.skip(f"no page has a block that needs {needs}")
    page = watched.page
    open_page(page, run_url + path)
    el = page.locator(f'[data-mg-run="{block.n}"]')
    _reveal(el)  # a block in a closed note, or in a tab not shown, is hidden from a reader until opened
    assert el.get_attribute("data-mg-needs") == needs and el.get_attribute("data-mg-state") == "needs"
    assert el.get_by_role("button", name=re.compile(r"^Run")).count() == 0
    # the build says it, right above the block, in plain words: why there is no Run, and what to do
    label = el.locator("xpath=preceding-sibling::p[contains(@class, 'mg-marks')][1]")
    assert label.text_content().strip() == f"Needs {name}: run it on your computer"
    note = el.locator("xpath=preceding-sibling::p[contains(@class, 'mg-needs')][1]")
    text = note.text_content()
    assert f"copy it into Python on your computer, with {name} and microgpt installed" in text
    assert note.get_by_role("link").get_attribute("href") == run_url + PREFIX + "#install"


def test_the_names_of_what_cannot_run_in_the_browser_are_written_once():
    """mdblocks.NEEDS is the one place: no script of the site writes them again."""
    scripts = list((DOCS / "javascripts").rglob("*.js"))
    written = {p.name: n for p in scripts for n in mdblocks.NEEDS.values() if n in p.read_text(encoding="utf-8")}
    assert scripts and written == {}


def test_python_is_fetched_only_when_the_reader_first_runs_a_block_and_nothing_waits_for_nothing(watched, run_url):
    page = watched.page
    path = next(p for p, bs in PAGES.items() if not bs)
    open_page(page, run_url + path)  # a page without runnable blocks
    assert not [u for u in watched.requested if f"/{SCRIPTS}/blocks-" in u]
    path = next(p for p, bs in PAGES.items() if any(not b.needs for b in bs))
    open_page(page, run_url + path)
    page.wait_for_selector(".mg-run__run")
    assert not [u for u in watched.requested if "/vendor/pyodide/" in u or "/dist/" in u]
    page.evaluate(SAID)
    page.locator(".mg-run__run").first.click()
    _wait_done(page, page.locator("[data-mg-run]:has(.mg-run__run)").first)
    fetched = {u.rsplit("/", 1)[1] for u in watched.requested if "/vendor/pyodide/" in u or "/dist/" in u}
    assert {"pyodide.asm.wasm", "python_stdlib.zip", "latest.json"} <= fetched
    said = page.evaluate("window.mgSaid")
    assert said[0].startswith("Starting Python") and not [s for s in said if "Waiting" in s], said
    assert not [u for u in watched.requested if u.endswith(f"/{SCRIPTS}/editor.js")], "the editor waits for Edit"


# every text a status line takes, in order
SAID = """() => {
  window.mgSaid = [];
  new MutationObserver(() => {
    for (const m of document.querySelectorAll('.mg-run__message')) {
      const text = m.textContent;
      if (text && text !== window.mgSaid.at(-1)) window.mgSaid.push(text);
    }
  }).observe(document.querySelector('article'), { subtree: true, childList: true, characterData: true });
}"""


# ---------------------------------------------------------------------------- editable leaves
LEAVES_JS = """async ([preset, leaves]) => {
  const el = document.createElement("div");  // a stand-in widget: the request and its two answers
  document.body.append(el);
  const answer = new Promise((resolve) => {
    const detail = { preset, leaves, trace: (trace) => resolve({ trace }), error: (error) => resolve({ error }) };
    el.dispatchEvent(new CustomEvent("mg:leaves", { bubbles: true, detail }));
  });
  const result = await answer;
  el.remove();
  return result;
}"""


def test_new_leaf_values_come_back_as_the_engines_trace(watched, run_url):
    page = watched.page
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
def test_a_piece_the_reader_wrote_survives_a_reload_and_the_capstone_names_it(watched, run_url):
    page = watched.page
    open_page(page, f"{run_url}{PREFIX}gpt-block/")
    exercise = page.locator(".mg-run").filter(has_text="check_relu_backward").first
    exercise.get_by_role("button", name="Edit").click()
    exercise.get_by_role("textbox").fill(RELU_RIGHT)
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
    # it printed other than the page shows, for a reason the verdict gives: no ✗
    assert _verdict(whose) == (
        "yours",
        "ⓘ",
        "Your own pieces were used: relu_backward. The checked output below is what a fresh Python prints"
        " with the page's solutions.",
    )
