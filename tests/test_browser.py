"""The built site in a real browser: every page loads clean and offline with its math typeset, looks
right at phone and desktop widths in both colour schemes, loads only what it uses, clips nothing,
axe-core finds no violation on it, and search finds pages by the forms of a word. Each page is loaded
once in each view, and every check of that view runs on that load (test_every_page_in_every_view).
The interactive graphs are tested in tests/test_browser_widgets.py, with the same fixtures.

Fixtures and the Chromium/playwright requirement come from tests/browser.py (skipped without them,
failing under CI=true). Screenshots of every page go to artifacts/screenshots/ (not committed).
"""

# ruff: noqa: F811  (pytest passes the imported fixtures to the tests by name)
from __future__ import annotations

import re
from collections.abc import Callable

import page_assets  # docs/hooks/page_assets.py, the build hook that writes each page's loader
import pytest
import slim_code  # docs/hooks/slim_code.py: the tokens it writes as plain text
from browser import (  # noqa: F401  (base_url, browser, site_dir and watched are fixtures)
    DESKTOP,
    DOCS,
    PAGES,
    PHONE,
    SAVE_SHOTS,
    SHOTS,
    Watched,
    axe_violations,
    base_url,
    browser,
    open_page,
    page_with,
    show_every_code_block,
    site_dir,
    wait_until_scroll_regions_are_marked,
    watched,
)
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def _num(text: str) -> float:
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    assert m, text
    return float(m.group())


def _open(browser, base_url: str, path: str, scheme: str = "light", width: int = DESKTOP) -> Watched:
    w = Watched(browser, base_url, scheme, width)
    resp = open_page(w.page, base_url + path)
    assert resp is not None and resp.ok, f"{path}: HTTP {resp and resp.status}"
    w.page.evaluate("document.fonts.ready")  # measurements below need the final fonts
    return w


# ---------------------------------------------------------------------------- every page
def _has_widget(page: Page) -> bool:
    return page.locator("[class^='autograd-'], [class*=' autograd-']").count() > 0


# when the parser added the page's last element, the loader (run before the page's own scripts)
PARSED_TO_THE_END = f"""new MutationObserver((_, observer) => {{
  if (!document.getElementById("{page_assets.LOADER_ID}")) return;
  window.parsedToTheEnd = performance.now();
  observer.disconnect();
}}).observe(document, {{ childList: true, subtree: true }});"""

# the scripts the page fetched (in the order they started) and when its first text was painted
SCRIPTS_AND_FIRST_PAINT = """() => ({
  paint: performance.getEntriesByName("first-contentful-paint")[0].startTime,
  scripts: performance.getEntriesByType("resource")
    .filter((r) => /\\.m?js$/.test(new URL(r.name).pathname))
    .map((r) => ({ name: new URL(r.name).pathname, start: r.startTime })),
})"""


def test_search_finds_the_accumulation_page_by_any_form_of_the_word(browser, base_url):
    w = _open(browser, base_url, "/")
    try:
        page = w.page
        for query in ["accumulate", "accumulating", "accumulated"]:
            page.locator(".md-search__input").fill("")
            page.locator(".md-search__input").click()
            page.keyboard.type(query)
            results = page.locator(".md-search-result__link")
            expect(results.first).to_be_visible()
            expect(page.locator(".md-search-result__link[href*='accumulation/']").first).to_be_attached()
        assert w.problems() == []
    finally:
        w.close()


# MEASURE looks at every element of the article once the scroll boxes are marked.
MEASURE = """() => {
  const out = {unreachable: [], clipped: [], covered: []};
  out.pageOverflow = document.documentElement.scrollWidth - innerWidth;
  const focusable = (el) => el.tabIndex >= 0 || el.querySelector('a[href], button, input, select, [tabindex]');
  const name = (el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' in #' +
    (el.closest('[id]') || {id: '?'}).id + ': ' + el.textContent.trim().slice(0, 60);
  // every box in the article that is wider than itself either scrolls, reachable by keyboard, or is a bug
  for (const el of document.querySelectorAll('article *')) {
    if (el.closest('svg, .md-code__nav') || el.scrollWidth <= el.clientWidth + 1) continue;
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


# ---------------------------------------------------------------------------- math
# Every cell of a formula's table (aligned equations, matrices) on screen with something in it: the
# alignment its table's columnalign asks for (MathML's rule: the last value repeats), and the room
# left of and right of its content inside the cell's padding.
CELLS = """() => [...document.querySelectorAll('article mtd')].filter((td) => td.checkVisibility()).map((td) => {
  const asked = (td.closest('mtable').getAttribute('columnalign') || 'center').split(/\\s+/);
  const column = [...td.parentElement.children].indexOf(td);
  const box = td.getBoundingClientRect(), cs = getComputedStyle(td);
  const parts = [...td.children].map((c) => c.getBoundingClientRect()).filter((r) => r.width > 0);
  const left = Math.min(...parts.map((r) => r.left)), right = Math.max(...parts.map((r) => r.right));
  return {align: asked[Math.min(column, asked.length - 1)], text: td.textContent.slice(0, 30), empty: !parts.length,
          before: left - box.left - parseFloat(cs.paddingLeft), after: box.right - parseFloat(cs.paddingRight) - right};
}).filter((cell) => !cell.empty)"""
# Each paragraph with formulas no taller than a letter (no fraction, script, root or table): its
# height in lines of its own line height. A whole number when no line was made taller by a formula.
TALL = "mfrac, msub, msup, msubsup, munder, mover, munderover, msqrt, mroot, mtable"
FLAT_PARAGRAPHS = f"""() => [...document.querySelectorAll('article p')]
  .filter((p) => p.checkVisibility() && p.querySelector('math') && !p.querySelector('{TALL}'))
  .map((p) => [p.textContent.slice(0, 50),
                p.getBoundingClientRect().height / parseFloat(getComputedStyle(p).lineHeight)])"""


# punctuation right after a formula in a line of text, that the browser put at the start of the next line
PUNCTUATION_CUT_FROM_ITS_FORMULA = r"""() => {
  const out = [];
  for (const m of document.querySelectorAll('article span.arithmatex')) {
    const t = m.nextSibling;
    if (!t || t.nodeType !== 3 || !/^[,.;:)!?\]]/.test(t.textContent)) continue;
    const r = document.createRange(); r.setStart(t, 0); r.setEnd(t, 1);
    const p = r.getBoundingClientRect(), f = m.getBoundingClientRect();
    const cut = p.width && f.width && p.top >= f.bottom - 2; // the punctuation starts a line below the formula
    if (cut) out.push(`${m.textContent.slice(0, 30)} | ${t.textContent.slice(0, 12)}`);
  }
  return out;
}"""


# ---------------------------------------------------------------------------- every page, in every view, loaded once
# Each (page, view) is loaded once, and every check of that page in that view runs on that load, in an
# order that keeps each check's conditions: first what the page shows as it arrives, then what needs
# the notes closed (formulas, axe), then with every note opened (overflow), and last opening search.
LIGHT_DESKTOP, DARK_DESKTOP, LIGHT_PHONE, DARK_PHONE = (
    ("light", DESKTOP),
    ("dark", DESKTOP),
    ("light", PHONE),
    ("dark", PHONE),
)
VIEWS = [LIGHT_DESKTOP, DARK_DESKTOP, LIGHT_PHONE, DARK_PHONE]
AXE_VIEWS = {LIGHT_DESKTOP, DARK_DESKTOP, LIGHT_PHONE}  # axe: both schemes at 1280 px, and the phone
CLIP_VIEWS = {LIGHT_DESKTOP, LIGHT_PHONE}  # overflow and scroll regions: the two widths


def _shows_the_page_as_built(page: Page, path: str, scheme: str) -> None:
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate" if scheme == "dark" else "default")
    # math is typeset when the page is built: nothing is left for a script to render
    expect(page.locator(".arithmatex:not(:has(.katex))")).to_have_count(0)
    # every widget the build placed mounted without an error
    expect(page.locator("[data-mounted='error']")).to_have_count(0)
    expect(page.locator(".autograd-fallback")).to_have_count(0)


def _loads_only_what_it_uses(page: Page, path: str, base_url: str, requested: list[str]) -> None:
    # no render-blocking stylesheet but the theme's two; the site's own CSS is inlined per page
    sheets = page.eval_on_selector_all("link[rel=stylesheet]", "ls => ls.map(l => l.getAttribute('href'))")
    assert len(sheets) == 2 and all("assets/stylesheets/" in h for h in sheets), sheets
    styles = page.eval_on_selector_all("style[data-asset]", "ss => ss.map(s => s.dataset.asset)")
    has_math = page.locator(".katex").count() > 0
    assert ("stylesheets/math.css" in styles) == has_math, (path, styles)
    assert not any("katex" in u and u.endswith(".js") for u in requested), "math needs no script"
    # the math font comes from the page's <head> (docs/hooks/math_font.py); a font that layout
    # found later would re-wrap the formulas as it arrived and move the text below them
    preloaded = page.eval_on_selector_all("link[rel=preload][as=font]", "ls => ls.map(l => l.href)")
    fonts = sorted({base_url + u for u in requested if u.endswith(".woff2")})
    assert fonts == sorted(preloaded), path
    # every script, the theme's bundle first, is fetched after the first text is on screen
    # (docs/hooks/after_paint.js); that the bundle still starts, opening search at the end shows
    fetched = page.evaluate(SCRIPTS_AND_FIRST_PAINT)
    assert fetched["scripts"] and fetched["scripts"][0]["name"].endswith(".min.js"), fetched
    early = [s["name"] for s in fetched["scripts"] if s["start"] < fetched["paint"]]
    assert early == [], f"fetched before the first paint at {fetched['paint']:.0f} ms: {early}"
    # ... and that first paint came once the whole page was parsed (docs/hooks/page_assets.py)
    parsed = page.evaluate("window.parsedToTheEnd")
    assert parsed is not None and parsed <= fetched["paint"], (parsed, fetched["paint"])
    widget_js = [u for u in requested if "/javascripts/widgets/" in u]
    assert bool(widget_js) == _has_widget(page), (path, widget_js)
    assert ("stylesheets/widgets.css" in styles) == _has_widget(page), (path, styles)
    # nobody's JupyterLab stylesheet, and Material's search index and search worker only once
    # search is opened (the worker starts when the bundle hands it the index)
    assert page.locator("style:has-text('--jp-')").count() == 0
    assert not any(u.endswith("search_index.json") for u in requested), "the search index loaded before search"
    workers = [u for u in requested if "search-worker.js" in u or "/workers/search." in u]
    assert workers == [], f"the search worker started before search: {workers}"


def _opening_search_fetches_its_index_and_worker(page: Page) -> None:
    index = page.expect_request(re.compile(r"search/search_index\.json$"))
    worker = page.expect_request(re.compile(r"/workers/search\.[0-9a-f]+\.min\.js$"))
    with index, worker:
        page.locator(".md-search__input").focus()


def _aligned_columns_are_placed_as_their_tables_say(page: Page) -> None:
    # MathML Core browsers ignore a table's columnalign; the build writes it into each cell, and
    # Chromium honours only some ways of writing it. The = signs of aligned equations line up, and a
    # matrix's entries are centred, only if this holds. (test_the_site_has_aligned_formulas_and_flat_
    # paragraphs_to_measure: the site has enough of both for these checks to have something to measure.)
    off = {"right": lambda c: c["after"], "left": lambda c: c["before"], "center": lambda c: c["before"] - c["after"]}
    wrong = [c for c in page.evaluate(CELLS) if abs(off[c["align"]](c)) > 1]
    assert wrong == [], wrong[:5]


def _formulas_in_text_keep_the_line_height(page: Page) -> None:
    # in lines: under 1 px off a whole number of 25.6 px lines
    taller = [(text, lines) for text, lines in page.evaluate(FLAT_PARAGRAPHS) if abs(lines - round(lines)) > 0.03]
    assert taller == [], taller[:5]


def _punctuation_stays_with_its_formula(page: Page) -> None:
    assert page.evaluate(PUNCTUATION_CUT_FROM_ITS_FORMULA) == []


def _axe_finds_nothing(page: Page) -> None:
    show_every_code_block(page)
    # the site's own script has run: it marks wide boxes focusable, code toolbars as plain groups
    # and takes line-number links out of the tab order
    expect(page.locator("nav.md-code__nav:not([role])")).to_have_count(0)
    expect(page.locator(".linenodiv a:not([tabindex])")).to_have_count(0)
    wait_until_scroll_regions_are_marked(page)
    found = axe_violations(page)
    assert found == [], "\n".join(found)


def _nothing_is_clipped_and_every_scroll_region_is_reachable(page: Page) -> None:
    # every note opened, as a reader may open it: what is inside must fit or scroll as well
    page.evaluate("document.querySelectorAll('article details').forEach((d) => (d.open = true))")
    # every code block with its copy button; scroll-regions.js marks wide boxes once laid out: wait
    # for both, then measure and say what is wrong
    show_every_code_block(page)
    wait_until_scroll_regions_are_marked(page)
    got = page.evaluate(MEASURE)
    assert got["pageOverflow"] <= 0, f"the page itself scrolls sideways by {got['pageOverflow']} px"
    assert got["clipped"] == [], f"content cut off without a scroll bar: {got['clipped']}"
    assert got["covered"] == [], f"the copy button covers code: {got['covered']}"
    assert got["unreachable"] == [], f"scroll regions a keyboard cannot reach: {got['unreachable']}"
    # a box made focusable for its scrolling tells a screen reader what it is
    unnamed = page.evaluate(
        "() => [...document.querySelectorAll('[data-mg-scroll]')]"
        ".filter((el) => !el.getAttribute('role') || !el.getAttribute('aria-label'))"
        ".map((el) => el.outerHTML.slice(0, 80))"
    )
    assert unnamed == [], f"focusable scroll boxes without a role and a name: {unnamed}"


@pytest.mark.parametrize(("scheme", "width"), VIEWS, ids=[f"{s}-{w}" for s, w in VIEWS])
@pytest.mark.parametrize("path", PAGES)
def test_every_page_in_every_view(browser, base_url, path, scheme, width):
    """Loads offline with its math typeset and its widgets mounted; in light at 1280 px it loads only what
    it uses, scripts after the first paint, and its formulas are laid out right (on a phone: punctuation
    stays with its formula); axe finds nothing (not in dark on a phone); at both widths in light nothing
    is clipped and every scroll region is reachable. Every failing check is reported, not only the first."""
    view = (scheme, width)
    w = Watched(browser, base_url, scheme, width)
    requested: list[str] = []
    w.page.on("request", lambda r: requested.append(r.url.removeprefix(base_url)))
    w.page.add_init_script(PARSED_TO_THE_END)
    page = w.page
    checks: list[tuple[str, Callable[[], None]]] = [
        ("shows the page as built", lambda: _shows_the_page_as_built(page, path, scheme))
    ]
    if view == LIGHT_DESKTOP:
        checks += [
            ("loads only what it uses", lambda: _loads_only_what_it_uses(page, path, base_url, requested)),
            ("aligned columns", lambda: _aligned_columns_are_placed_as_their_tables_say(page)),
            ("line height", lambda: _formulas_in_text_keep_the_line_height(page)),
        ]
    if view == LIGHT_PHONE:
        checks.append(("punctuation", lambda: _punctuation_stays_with_its_formula(page)))
    if view in AXE_VIEWS:
        checks.append(("axe", lambda: _axe_finds_nothing(page)))
    if view in CLIP_VIEWS:
        checks.append(
            ("clipping and scroll regions", lambda: _nothing_is_clipped_and_every_scroll_region_is_reachable(page))
        )
    if view == LIGHT_DESKTOP:
        checks.append(("search", lambda: _opening_search_fetches_its_index_and_worker(page)))
    failed = []
    try:
        resp = open_page(page, base_url + path)
        assert resp is not None and resp.ok, f"{path}: HTTP {resp and resp.status}"
        page.evaluate("document.fonts.ready")  # measurements below need the final fonts
        if SAVE_SHOTS:
            SHOTS.mkdir(parents=True, exist_ok=True)
            name = path.strip("/").replace("/", "-") or "index"
            page.screenshot(path=str(SHOTS / f"{name}-{width}-{scheme}.png"), full_page=True)
        for what, check in checks:
            try:
                check()
            except Exception as e:  # an assertion, or a condition that never came: report it, go on
                failed.append(f"{what}: {e}")
        failed += w.problems()
    finally:
        w.close()
    assert failed == [], f"{path} ({scheme}, {width} px):\n" + "\n".join(failed)


def test_the_site_has_aligned_formulas_and_flat_paragraphs_to_measure(site_dir):
    """The formula checks above have something to check: aligned equations (right, then left) and
    paragraphs with formulas no taller than a letter, on the site's pages."""
    pages = [p.read_text(encoding="utf-8") for p in sorted(site_dir.rglob("index.html"))]
    cells = sum(t.count("<mtd") for t in pages)
    aligned = sum(len(re.findall(r'columnalign="right left', t)) for t in pages)
    tall = "|".join(TALL.split(", "))
    flat = sum(
        1
        for t in pages
        for para in re.findall(r"<p>(.*?)</p>", t, re.S)
        if "<math" in para and not re.search(rf"<({tall})\b", para)
    )
    assert cells > 20 and aligned > 0 and flat > 30, (cells, aligned, flat)


# The build writes some kinds of token as plain text (docs/hooks/slim_code.py): a token of each kind
# put back into a code block, beside the code's own text, must be drawn exactly like that text.
LOOKS = ["color", "backgroundColor", "fontFamily", "fontSize", "fontStyle", "fontWeight", "textDecorationLine"]
TOKEN_AS_TEXT = """([kinds, looks]) => {
  const code = document.querySelector('article .highlight pre > code');
  const span = (kind) => Object.assign(document.createElement('span'), {className: kind, textContent: 'x'});
  const added = kinds.map((kind) => code.appendChild(span(kind)));
  const style = (el) => looks.map((p) => getComputedStyle(el)[p]);
  const text = style(code);
  const drawn = added.map((el) => [el.className, style(el)]);
  added.forEach((el) => el.remove());
  return [text, drawn];
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tokens_the_build_writes_as_text_look_like_the_code_around_them(browser, base_url, scheme):
    w = _open(browser, base_url, "/training/", scheme)
    try:
        text, drawn = w.page.evaluate(TOKEN_AS_TEXT, [list(slim_code.PLAIN), LOOKS])
        transparent = "rgba(0, 0, 0, 0)"  # a span's own background: the code's shows through
        for kind, looks in drawn:
            assert [transparent if p == "backgroundColor" else v for p, v in zip(LOOKS, text)] == looks, kind
        # and a kind the build keeps is told apart by this check: punctuation has a colour of its own
        punctuation = w.page.evaluate(TOKEN_AS_TEXT, [["p"], LOOKS])[1][0][1]
        assert punctuation[0] != text[0]
        assert w.problems() == []
    finally:
        w.close()


BOX = ":is(pre > code, div.arithmatex)"  # what scroll-regions.js marks, that a note holds
# each box in the note: how far it is wider than itself, and whether a keyboard can reach it
BOXES_IN = """([note, box]) => [...note.querySelectorAll(box)]
  .map((el) => [el.scrollWidth - el.clientWidth, el.tabIndex])"""


def test_a_box_in_a_closed_note_is_measured_when_the_note_is_opened(browser, base_url):
    # Measuring a box in a closed <details> would make the browser lay out the hidden note there and
    # then, just after the first paint; scroll-regions.js measures it once the reader opens the note.
    w = _open(browser, base_url, "/gradient-checking/", "light", PHONE)
    try:
        page = w.page
        wait_until_scroll_regions_are_marked(page)
        page.wait_for_timeout(500)  # the observer has had its frames: nothing more will be marked
        closed = page.locator(f"article details:not([open]) {BOX}")
        assert closed.count() >= 2
        assert closed.evaluate_all("els => els.filter((el) => el.tabIndex >= 0).length") == 0
        note = closed.first.evaluate_handle("el => el.closest('details')")
        note.as_element().query_selector("summary").click()
        wait_until_scroll_regions_are_marked(page)
        boxes = page.evaluate(BOXES_IN, [note, BOX])
        assert max(wider for wider, _ in boxes) > 1, "no box in this note is wider than a phone: nothing to check"
        assert all(tabindex == 0 for wider, tabindex in boxes if wider > 1), boxes
        assert w.problems() == []
    finally:
        w.close()


def _scheme(page: Page) -> str:
    meta = "document.querySelector('meta[name=color-scheme]').content"
    return page.evaluate(f"document.body.dataset.mdColorScheme + ' ' + {meta}")


def test_the_light_dark_toggle_follows_the_system_and_then_the_readers_choice(browser, base_url):
    # the page alone (the theme's bundle never arrives) gives a dark system the dark palette
    w = Watched(browser, base_url, scheme="dark")
    try:
        w.page.route(re.compile(r"/bundle\.[0-9a-f]+\.min\.js$"), lambda route: route.abort())
        w.page.goto(base_url + "/chain-rule/")
        assert _scheme(w.page) == "slate dark"
    finally:
        w.close()

    w = Watched(browser, base_url, scheme="dark")
    page = w.page
    try:
        open_page(page, base_url + "/chain-rule/")
        assert _scheme(page) == "slate dark"
        page.locator("label[title='Switch to light mode']").click()
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
        assert _scheme(page) == "default light"
        # the choice is kept: the next page opens light though the system is dark
        open_page(page, base_url + "/accumulation/")
        assert _scheme(page) == "default light"
        # by keyboard: Enter on the toggle switches, and the focus stays on it
        page.get_by_role("radio", name="Switch to dark mode").focus()
        page.keyboard.press("Enter")
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
        expect(page.get_by_role("radio", name="Switch to light mode")).to_be_focused()
        expect(page.locator("label[title='Switch to dark mode']")).to_be_hidden()
        page.keyboard.press("Enter")
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
        page.keyboard.press(" ")  # Space too, as on any button
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
        expect(page.get_by_role("radio", name="Switch to light mode")).to_be_focused()
        assert w.problems() == []
    finally:
        w.close()


# where the focus is; the scheme toggle's radio is drawn by the label beside it, so that is what is measured
FOCUSED = """() => { const e = document.activeElement;
  const r = (e.matches('input.md-option') ? e.form.querySelector('label:not([hidden])') : e).getBoundingClientRect();
  return { inArticle: !!e.closest('article'), inDrawer: !!e.closest('.md-sidebar--primary'),
           onScreen: r.right > 0 && r.left < innerWidth && r.width > 0 && r.height > 0,
           hidden: getComputedStyle(e).visibility !== 'visible' }; }"""


def test_on_a_phone_a_tap_on_search_puts_the_cursor_in_the_search_box(browser, base_url):
    w = Watched(browser, base_url, "light", PHONE)
    try:
        open_page(w.page, base_url + "/chain-rule/")
        w.page.get_by_role("button", name="Search").click()
        expect(w.page.locator(".md-search__input")).to_be_focused()
        assert w.problems() == []
    finally:
        w.close()


@pytest.mark.parametrize("key", ["Enter", " "])
def test_on_a_phone_the_menu_opens_by_keyboard_and_a_closed_one_takes_no_tab_stops(browser, base_url, key):
    w = Watched(browser, base_url, "light", PHONE)
    page = w.page
    try:
        open_page(page, base_url + "/glossary/")  # the page with the most links in its menu
        # from the top of the page, Tab reaches the article after the header's few controls, every
        # stop on the way visible on the screen
        for stop in range(1, 8):
            page.keyboard.press("Tab")
            where = page.evaluate(FOCUSED)
            if where["inArticle"]:
                break
            assert where["onScreen"] and not where["hidden"] and not where["inDrawer"], (stop, where)
        else:
            raise AssertionError("seven Tabs did not reach the article")
        menu = page.get_by_role("button", name="Navigation menu")
        expect(menu).to_have_attribute("aria-expanded", "false")
        menu.focus()
        page.keyboard.press(key)
        expect(menu).to_have_attribute("aria-expanded", "true")
        expect(page.locator(".md-sidebar--primary")).to_be_visible()
        first_link = page.locator(".md-sidebar--primary a.md-nav__link").first
        first_link.focus()
        expect(first_link).to_be_focused()  # the open menu's links are reachable
        search = page.get_by_role("button", name="Search")
        search.focus()
        page.keyboard.press(key)
        expect(page.locator("#__search")).to_be_checked()
        expect(page.locator(".md-search__input")).to_be_focused()  # ready to type, as a tap makes it
        page.keyboard.type("accumulate")
        page.keyboard.press("Escape")  # closes search, and the focus returns to the button
        expect(page.locator("#__search")).not_to_be_checked()
        expect(search).to_be_focused()
        assert w.problems() == []
    finally:
        w.close()
