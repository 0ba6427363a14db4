"""The built site in a real browser: every page loads clean and offline with its math typeset, looks
right at phone and desktop widths and in both colour schemes (light at both widths, dark at 1280 px), loads
only what it uses, clips nothing, axe-core finds no violation on it, and search finds a page by the forms
of a word it uses. Each page is loaded once, and switched on that load to each view, where every check of
that view runs (test_every_page_in_every_view); one page of each kind is loaded on a phone as well.
The interactive graphs are tested in tests/browser/test_browser_widgets.py, with the same fixtures.

Fixtures come from tests/browser/conftest.py, the Chromium/playwright requirement from
browsing.py (skipped without them, failing under CI=true). Screenshots of every page go to
artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import PurePosixPath

import pytest
from browsing import (
    COLOUR_JS,
    COLOUR_RULES,
    DESKTOP,
    DOCS,
    MATERIAL_SCHEME,
    PAGES,
    PHONE,
    SAVE_SHOTS,
    SHOTS,
    Watched,
    axe_violations,
    open_page,
    page_with,
    show_every_code_block,
    switch_scheme,
    wait_until_scroll_regions_are_marked,
)
from mgsite import blocks as mdblocks
from mgsite import font as math_font  # where the build writes the font
from mgsite.vendor import SCRIPTS  # where the build writes the site's scripts
from playwright.sync_api import Page, expect
from sitecheck import ROOT
from widget_views import widget_checks, widget_pages

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
# the bundles of the graphs' and self-checks' modules (docs/javascripts/widgets/), named after them (esbuild's
# chunk names: tools/mgsite/mgsite/vendor.py)
WIDGET_MODULES = ["stepper", "playground", "check", "format"]
# the files of ours a page asked for before its first paint: scripts (SCRIPTS) and the features' stylesheets
OURS_BEFORE_THE_FIRST_PAINT = """(scripts) => {
  const painted = performance.getEntriesByName("first-contentful-paint")[0].startTime;
  const ours = (name) => name.includes(`/${scripts}/`) || /\\/stylesheets\\/(run|train)\\.css$/.test(name);
  const early = performance.getEntriesByType("resource").filter((r) => ours(r.name) && r.startTime < painted);
  return early.map((r) => r.name);
}"""


def _has_widget(page: Page) -> bool:
    return page.locator("[class^='autograd-'], [class*=' autograd-']").count() > 0


def test_search_finds_the_accumulation_page_by_each_form_of_the_word_it_uses(browser, base_url):
    w = _open(browser, base_url, "/")
    try:
        page = w.page
        for query in ["accumulate", "accumulated", "accumulation", "accumul"]:
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
# alignment Temml asks for (a class on the cell: tml-right, tml-left, or none for centred), and the
# room left of and right of its content inside the cell's padding.
CELLS = """() => [...document.querySelectorAll('article mtd')].filter((td) => td.checkVisibility()).map((td) => {
  const asked = ['right', 'left'].find((side) => td.classList.contains(`tml-${side}`)) || 'center';
  const box = td.getBoundingClientRect(), cs = getComputedStyle(td);
  const parts = [...td.children].map((c) => c.getBoundingClientRect()).filter((r) => r.width > 0);
  const left = Math.min(...parts.map((r) => r.left)), right = Math.max(...parts.map((r) => r.right));
  return {align: asked, text: td.textContent.slice(0, 30), empty: !parts.length,
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


# ---------------------------------------------------------------------------- every page, in every view, on one load
# Each page is loaded once, in light at 1280 px, and every check of every view runs on that load. First light
# at 1280 px, in an order that keeps each check's conditions: what the page shows as it arrives, then what
# needs the notes closed (formulas, axe), then with every note opened (overflow). Then the reader's toggle
# in the header turns the page dark, and the dark view's checks run; then it is turned light again and the
# window narrowed to a phone's 390 px, and the phone's checks run; last, back at 1280 px, the copy buttons.
#
# What a view switched to on the loaded page covers, and what a fresh load in it would add:
# * dark, on every page: all that depends on colour (the pictures' and the widgets' contrast, axe's colour
#   rules), in the colours a reader who switches sees. A page loaded dark differs only in how it picks its
#   palette (from the system's preference, before its first paint), which
#   test_the_light_dark_toggle_follows_the_system_and_then_the_readers_choice checks.
# * phone, on every page: the page laid out anew at 390 px (the theme's and the site's layout follow CSS media
#   queries and ResizeObservers): nothing clipped, every scroll region reachable, punctuation kept with its
#   formula, the pictures' and the graphs' text at least 12 px, each step of a graph in sight, and axe's
#   rules but the colour ones (the colours are light's, checked at 1280 px). A fresh load on a phone adds
#   what a page sets up as it loads at that width (the widgets mounted into a narrow article, the drawer in
#   place of the sidebar) and the colour rules in the phone's layout: one page of each kind is loaded on a
#   phone as well, with all of these and every axe rule (test_each_kind_of_page_on_a_phone_as_it_loads_there).
LIGHT_DESKTOP, DARK_DESKTOP, LIGHT_PHONE, DARK_PHONE = (
    ("light", DESKTOP),
    ("dark", DESKTOP),
    ("light", PHONE),
    ("dark", PHONE),
)
VIEWS = [LIGHT_DESKTOP, DARK_DESKTOP, LIGHT_PHONE]  # in this order, on one load (`make screenshots`: dark on a phone)
# axe's rules in a view switched to on the loaded page (axe_violations' `only` and `without`): in dark the
# rules that depend on colour; on the phone the others. On a fresh load: its default rules and target-size.
AXE_RULES: dict[tuple[str, int], dict[str, list[str]]] = {
    DARK_DESKTOP: {"only": COLOUR_RULES},
    LIGHT_PHONE: {"without": COLOUR_RULES},
}
CLIP_VIEWS = {LIGHT_DESKTOP, LIGHT_PHONE}  # overflow and scroll regions: the two widths


def _shows_the_page_as_built(page: Page, path: str, scheme: str) -> None:
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate" if scheme == "dark" else "default")
    # math is typeset when the page is built: nothing is left for a script to render
    expect(page.locator(".arithmatex:not(:has(math))")).to_have_count(0)
    # every widget the build placed mounted without an error
    expect(page.locator("[data-mounted='error']")).to_have_count(0)
    expect(page.locator(".autograd-fallback")).to_have_count(0)


def _loads_only_what_it_uses(page: Page, path: str, base_url: str, requested: list[str]) -> None:
    # the page links the theme's stylesheets and the site's one; the Run buttons' and the Train widget's come
    # with their scripts, on a page that has them (uPlot's with the Train widget's first Start)
    sheets = page.eval_on_selector_all("link[rel=stylesheet]", "ls => ls.map(l => l.getAttribute('href'))")
    own = [h.rsplit("/", 1)[1] for h in sheets if "assets/stylesheets/" not in h]
    assert own[0] == "extra.css", (path, own)
    features = {"run.css": page.locator(".mg-run__bar").count() > 0, "train.css": page.locator(".mg-train").count() > 0}
    assert sorted(own[1:]) == sorted(name for name, has in features.items() if has), (path, own)
    # no script of ours in the page's HTML: the entry is imported once the page is painted (overrides/main.html),
    # and every file of ours, script or stylesheet, is asked for after the first paint
    scripts = page.eval_on_selector_all("script[src]", "ss => ss.map(s => s.getAttribute('src'))")
    assert [s for s in scripts if "assets/javascripts/" not in s] == [], (path, scripts)
    assert f"/{SCRIPTS}/site.js" in requested, path
    assert page.evaluate(OURS_BEFORE_THE_FIRST_PAINT, SCRIPTS) == [], path
    assert not any(("katex" in u or "temml" in u) and u.endswith(".js") for u in requested), "math needs no script"
    # the one font is the math font, fetched by the stylesheet's @font-face on a page with formulas and on no
    # other page; nothing preloads it (tools/mgsite/mgsite/font.py: a preloaded font holds the first frame)
    fonts = sorted({u.rsplit("/", 1)[-1] for u in requested if u.endswith(".woff2")})
    has_math = page.locator(".arithmatex math").count() > 0
    assert fonts == ([PurePosixPath(math_font.SITE_PATH).name] if has_math else []), (path, fonts)
    assert page.locator("link[rel=preload]").count() == 0, path
    # a widget's code is fetched only on a page with a widget (the entry is on every page)
    widget_js = [u for u in requested if re.search(f"/{SCRIPTS}/({'|'.join(WIDGET_MODULES)})-", u)]
    assert bool(widget_js) == _has_widget(page), (path, widget_js)
    # no JupyterLab stylesheet (its rules style .jp-* classes). The notebook page keeps the Pygments
    # rules mkdocs-jupyter appends for its own code cells (.highlight-ipynb, 4.8 KB): the site draws
    # code cells as its own code blocks, so they match nothing
    assert page.locator("style:has-text('.jp-')").count() == 0


def _aligned_columns_are_placed_as_their_tables_say(page: Page) -> None:
    # MathML Core browsers ignore a table's columnalign; Temml writes it as a class on each cell,
    # which the stylesheet's math part turns into the text-align Chromium honours (-webkit-right, -webkit-left). The =
    # signs of aligned equations line up, and a matrix's entries are centred, only if this holds.
    # (test_the_site_has_aligned_formulas_and_flat_paragraphs_to_measure: the site has enough of both
    # for these checks to have something to measure.)
    off = {"right": lambda c: c["after"], "left": lambda c: c["before"], "center": lambda c: c["before"] - c["after"]}
    wrong = [c for c in page.evaluate(CELLS) if abs(off[c["align"]](c)) > 1]
    assert wrong == [], wrong[:5]


def _formulas_in_text_keep_the_line_height(page: Page) -> None:
    # in lines: under 1 px off a whole number of 25.6 px lines
    taller = [(text, lines) for text, lines in page.evaluate(FLAT_PARAGRAPHS) if abs(lines - round(lines)) > 0.03]
    assert taller == [], taller[:5]


def _punctuation_stays_with_its_formula(page: Page) -> None:
    assert page.evaluate(PUNCTUATION_CUT_FROM_ITS_FORMULA) == []


def _axe_finds_nothing(page: Page, only: list[str] | None = None, without: list[str] | None = None) -> None:
    show_every_code_block(page)
    # the site's own script has run: it marks wide boxes focusable, code toolbars as plain groups
    # and takes line-number links out of the tab order
    expect(page.locator("nav.md-code__nav:not([role])")).to_have_count(0)
    expect(page.locator(".linenodiv a:not([tabindex])")).to_have_count(0)
    wait_until_scroll_regions_are_marked(page)
    found = axe_violations(page, only=only, without=without)
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


# ---------------------------------------------------------------------------- copy buttons
# What a reader pastes runs: every python block's copy button (the theme's, or for a block that continues
# others the Run bar's own, docs/javascripts/run/copy.js) is pressed, and what it put on the clipboard
# must be the start, up to that block, of the program `pytest --codeblocks` runs for its chain (the whole
# program, for the chain's last block). tests/page_blocks.py runs each chain as a script in a fresh Python
# with the wheel the site serves, from an empty directory, to its last line: a program that runs to its
# end has run each start of itself. The copy holds each part's code as the page reads it, with a comment
# line between parts; its syntax tree must equal that start's, so the paste runs as the tested program
# does, run as a script, line numbers aside. Each chain is run once, there, and not again here.
PYTHON_BLOCKS = "article div.language-python.highlight"
END_OF_PART = re.compile(r"^# ---- end of part (\d+) of (\d+) .*----$", re.M)
# a block in a closed note or a hidden tab is shown first, as a reader opens it before pressing Copy; the
# clipboard is emptied; what comes back: is it a block that continues others, and how many Run-bar copy buttons it has
REVEAL = """async (block) => {
  for (let d = block.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
  const tab = block.closest('.tabbed-block');
  const inputs = tab && tab.closest('.tabbed-set').querySelectorAll(':scope > input');
  if (tab) inputs[[...tab.parentElement.children].indexOf(tab)].click();
  block.scrollIntoView({block: 'center'});
  await navigator.clipboard.writeText('');
  const bars = block.parentElement.querySelectorAll(':scope > .mg-run__bar .mg-run__copy');
  return [block.classList.contains('no-copy'), bars.length];
}"""
COPIED = "async () => (await navigator.clipboard.readText()) || false"


def _every_copy_button_gives_the_program_the_tests_run(page: Page, path: str) -> None:
    """Press every python block's copy button; the clipboard holds its chain up to it, with a marker
    between parts, and parses to the start of the program the tests run for that chain, up to that block.

    The blocks of a Markdown page, which `pytest --codeblocks` runs (the notebook's cells are not blocks)."""
    source = DOCS / ("index.md" if path == "/" else f"{path.strip('/')}.md")
    if not source.is_file():
        return
    read = mdblocks.parse(source.read_text(encoding="utf-8"), str(source), ROOT)
    chains = [c[: k + 1] for c in read.chains() for k in range(len(c))]  # each block's chain up to it, in order
    blocks = page.locator(PYTHON_BLOCKS)
    assert len(chains) == blocks.count(), (path, len(chains), blocks.count())
    for i in range(blocks.count()):
        block, where = blocks.nth(i), f"{path} python block {i + 1}"
        chained, bars = block.evaluate(REVEAL)
        ours = block.locator("xpath=..").locator(":scope > .mg-run__bar .mg-run__copy")
        theirs = block.locator("pre .md-code__nav button[data-md-type='copy']")
        assert bars == int(chained), f"{where}: {bars} Run-bar copy buttons"  # one on a block that continues others
        if chained:
            expect(theirs).to_have_count(0)
            ours.click()
        else:  # the theme gives its button once the block is in view (content.lazy): click waits for exactly one
            theirs.click()
        text = page.wait_for_function(COPIED).json_value() + "\n"
        # exactly the chain the tests run up to this block, with an end marker between its parts
        marks = [(int(k), int(n)) for k, n in END_OF_PART.findall(text)]
        assert marks == [(k, len(chains[i])) for k in range(1, len(chains[i]))], (where, marks)
        parts = [part.strip("\n") for part in END_OF_PART.split(text)[::3]]
        assert parts == [b.code.strip("\n") for b in chains[i]], f"{where} copies other code than its chain"
        tested = "".join(b.code for b in chains[i])  # page_blocks.code_blocks's program, up to this block
        assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(tested)), f"{where}: the paste is another program"


# ---------------------------------------------------------------------------- pictures drawn by hand
# An inline <svg> in a <figure> (such as the data flow on docs/model.md) stays readable: every label is at
# least 12 px at both widths and lies inside the picture, has a contrast of at least 4.5:1 against what is
# drawn behind it in both schemes, and each picture has a name a screen reader announces. The interactive
# graphs (.autograd-svg) are checked by tests/browser/test_browser_widgets.py, in the states their buttons make.
FIGURES = "article figure svg:not(.autograd-svg)"

# For each label of each picture: its text, its rendered size in CSS px, its contrast ratio against
# the shapes painted under it (composited over the page's background), and whether it lies inside
# the picture. Shapes count in document order, which is SVG's paint order.
LABELS = (
    """(selector) => {
"""
    + COLOUR_JS
    + """  const pageBackground = (el) => {
    for (let e = el.parentElement; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0.99) return c;
    }
    return [255, 255, 255, 1];
  };
  const out = [];
  for (const svg of document.querySelectorAll(selector)) {
    const box = svg.getBoundingClientRect();
    const scale = svg.viewBox.baseVal && svg.viewBox.baseVal.width ? box.width / svg.viewBox.baseVal.width : 1;
    const shapes = [...svg.querySelectorAll('rect, circle, ellipse, polygon, path')];
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const cs = getComputedStyle(t);
      const r = t.getBoundingClientRect();
      const [cx, cy] = [r.x + r.width / 2, r.y + r.height / 2];
      let bg = pageBackground(svg);
      for (const s of shapes) {
        if (!(s.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;  // painted after
        const fill = getComputedStyle(s).fill;
        const b = s.getBoundingClientRect();
        if (!fill.startsWith('rgb') || cx < b.left || cx > b.right || cy < b.top || cy > b.bottom) continue;
        const c = rgba(fill);
        c[3] *= parseFloat(getComputedStyle(s).fillOpacity);
        bg = over(c, bg);
      }
      const [a, b] = [lum(over(rgba(cs.fill), bg)), lum(bg)].sort((x, y) => y - x);
      const inside = r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5
        && r.bottom <= box.bottom + 0.5;
      out.push([t.textContent.trim(), parseFloat(cs.fontSize) * scale, (a + 0.05) / (b + 0.05), inside]);
    }
  }
  return out;
}"""
)

NAMES = """(selector) => [...document.querySelectorAll(selector)].map((svg) => {
  const ids = (svg.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean);
  const named = ids.map((id) => document.getElementById(id)).filter((el) => el && svg.contains(el));
  return [svg.getAttribute('role'), named.length === ids.length ? named.map((el) => el.textContent.trim()).join(' ')
    : '', svg.getAttribute('aria-label') || ''];
})"""


def _pictures_are_readable(page: Page) -> None:
    labels = page.evaluate(LABELS, FIGURES)
    small = [(text, round(px, 2)) for text, px, _, _ in labels if px < 12]
    outside = [text for text, _, _, inside in labels if not inside]
    low = [(text, round(ratio, 2)) for text, _, ratio, _ in labels if ratio < 4.5]
    unnamed = [
        (role, labelled_by, label)
        for role, labelled_by, label in page.evaluate(NAMES, FIGURES)
        if role != "img" or not (labelled_by or label)
    ]
    assert (small, outside, low, unnamed) == ([], [], [], []), f"small {small[:5]}, outside {outside[:5]}, " + (
        f"contrast below 4.5 {low[:5]}, unnamed {unnamed}"
    )


def _view_checks(
    view: tuple[str, int], page: Page, path: str, base_url: str, requested: list[str], widgets: bool, first: bool
) -> list[tuple[str, Callable[[], None]]]:
    """The checks of one view, named, in the order to run them on the page as it is; `first` for the view the
    page was loaded in (the widget checks then mount the widgets no page uses yet and set every graph's states)."""
    scheme, width = view
    checks: list[tuple[str, Callable[[], None]]] = [
        ("shows the page as built", lambda: _shows_the_page_as_built(page, path, scheme)),
        ("pictures drawn by hand are readable", lambda: _pictures_are_readable(page)),
    ]
    if view == LIGHT_DESKTOP:
        checks += [
            ("loads only what it uses", lambda: _loads_only_what_it_uses(page, path, base_url, requested)),
            ("aligned columns", lambda: _aligned_columns_are_placed_as_their_tables_say(page)),
            ("line height", lambda: _formulas_in_text_keep_the_line_height(page)),
        ]
    if view == LIGHT_PHONE:
        checks.append(("punctuation", lambda: _punctuation_stays_with_its_formula(page)))
    rules = {} if first else AXE_RULES[view]
    checks.append(("axe", lambda: _axe_finds_nothing(page, **rules)))
    if view in CLIP_VIEWS:
        checks.append(
            ("clipping and scroll regions", lambda: _nothing_is_clipped_and_every_scroll_region_is_reachable(page))
        )
    if widgets:
        checks += widget_checks(page, scheme, width, first)
    return checks


def _screenshot(page: Page, path: str, view: tuple[str, int]) -> None:
    """`make screenshots`: the whole page as it is now, into artifacts/screenshots/."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    name = path.strip("/").replace("/", "-") or "index"
    page.screenshot(path=str(SHOTS / f"{name}-{view[1]}-{view[0]}.png"), full_page=True)


def _switch_to(page: Page, view: tuple[str, int]) -> None:
    """From the view the page is in to `view`: the scheme by the reader's toggle, the width by the window's."""
    scheme, width = view
    if page.evaluate("document.body.dataset.mdColorScheme") != MATERIAL_SCHEME[scheme]:
        switch_scheme(page, scheme)
    if page.viewport_size is None or page.viewport_size["width"] != width:
        page.set_viewport_size({"width": width, "height": 900})


def _check_views(
    w: Watched, path: str, base_url: str, views: list[tuple[str, int]], widgets: bool, copy: bool = False
) -> list[str]:
    """Load `path` in the first of `views`, run each view's checks in turn on that load (switching to it), and
    return every failure, not only the first; console errors and requests outside the site too. With `copy`,
    last, back in light at 1280 px, every copy button is pressed (last: the theme's "Copied" notice, which
    no landmark holds, would stay on the screen for axe in the views after it)."""
    requested: list[str] = []
    w.page.on("request", lambda r: requested.append(r.url.removeprefix(base_url)))
    page, failed = w.page, []
    resp = open_page(page, base_url + path)
    assert resp is not None and resp.ok, f"{path}: HTTP {resp and resp.status}"
    page.evaluate("document.fonts.ready")  # measurements below need the final fonts
    for view in views:
        try:
            _switch_to(page, view)
        except Exception as e:  # the toggle or the window did not switch: the views after it cannot run
            failed.append(f"{view[0]}, {view[1]} px: could not switch to it: {e}")
            break
        if SAVE_SHOTS:
            _screenshot(page, path, view)
        for what, check in _view_checks(view, page, path, base_url, requested, widgets, first=view == views[0]):
            try:
                check()
            except Exception as e:  # an assertion, or a condition that never came: report it, go on
                failed.append(f"{view[0]}, {view[1]} px: {what}: {e}")
    if copy:
        try:
            _switch_to(page, LIGHT_DESKTOP)
            _every_copy_button_gives_the_program_the_tests_run(page, path)
        except Exception as e:
            failed.append(f"light, 1280 px: copy buttons: {e}")
    return failed + w.problems()


@pytest.mark.parametrize("path", PAGES)
def test_every_page_in_every_view(browser, base_url, site_dir, path):
    """Each page, loaded once in light at 1280 px, then switched to dark, then to light on a 390 px phone (see
    above for what each switched view covers), then back. It loads offline with its math typeset, its widgets
    mounted and its hand-drawn pictures readable; in light at 1280 px it loads only what it uses, its formulas
    are laid out right and (last) every copy button gives the program the tests run; on the phone punctuation
    stays with its formula; axe finds nothing (by the rules of each view); at both widths nothing is clipped
    and every scroll region is reachable; its graphs and self-checks pass tests/browser/widget_views.py's
    widget_checks in every state. Every failing check is reported, not only the first."""
    w = Watched(browser, base_url, *LIGHT_DESKTOP, clipboard=True)
    try:
        failed = _check_views(w, path, base_url, VIEWS, path in widget_pages(site_dir), copy=True)
        if SAVE_SHOTS:  # dark on a phone: looked at, not checked (each of its checks is made in another view)
            _switch_to(w.page, DARK_PHONE)
            _screenshot(w.page, path, DARK_PHONE)
    finally:
        w.close()
    assert failed == [], f"{path}:\n" + "\n".join(failed)


# One page of each kind, found in the built site by what it holds, loaded on a phone: what a page sets up as
# it loads (its widgets mounted into a narrow article, the drawer in place of the sidebar) at a phone's width.
KIND_MARKERS = {
    "a step-through graph": 'class="autograd-widget',
    "a playground": 'class="autograd-playground',
    "a diagram": 'class="autograd-diagram',
    "a self-check": '<form class="autograd-check',
    "the Train widget": "data-mg-train",
    "runnable blocks": "data-mg-run",
    "a table": "<table",
}


def test_each_kind_of_page_on_a_phone_as_it_loads_there(browser, base_url, site_dir):
    """The home page, the notebook and the first page with each of KIND_MARKERS, each loaded on a 390 px phone
    in light: every check of the phone's view, with all of axe's rules."""
    notebooks = [p for p in PAGES if (DOCS / p.strip("/")).with_suffix(".ipynb").is_file()]
    assert notebooks, "no notebook page to load on a phone"
    kinds = {"the home page": "/", "a notebook": notebooks[0]}
    kinds |= {kind: page_with(site_dir, marker) for kind, marker in KIND_MARKERS.items()}
    widgets = set(widget_pages(site_dir))
    failed = []
    for path in dict.fromkeys(kinds.values()):  # each page once, in the order of the kinds
        w = Watched(browser, base_url, *LIGHT_PHONE)
        try:
            failed += [f"{path}: {f}" for f in _check_views(w, path, base_url, [LIGHT_PHONE], path in widgets)]
        finally:
            w.close()
    assert failed == [], f"loaded on a phone ({kinds}):\n" + "\n".join(failed)


def test_the_model_page_has_a_picture_drawn_by_hand_to_check(site_dir):
    """The picture check above has something to check: the data flow of gpt() on the model page."""
    text = (site_dir / "model" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<figure\b[^>]*>\s*<svg\b(?![^>]*autograd-svg)[^>]*>.*?<text\b", text, re.S)


def test_the_site_has_aligned_formulas_and_flat_paragraphs_to_measure(site_dir):
    """The formula checks above have something to check: aligned equations (right, then left) and
    paragraphs with formulas no taller than a letter, on the site's pages."""
    pages = [p.read_text(encoding="utf-8") for p in sorted(site_dir.rglob("index.html"))]
    cells = sum(t.count("<mtd") for t in pages)
    aligned = sum(t.count('<mtd class="tml-right"') and t.count('<mtd class="tml-left"') for t in pages)
    tall = "|".join(TALL.split(", "))
    flat = sum(
        1
        for t in pages
        for para in re.findall(r"<p>(.*?)</p>", t, re.S)
        if "<math" in para and not re.search(rf"<({tall})\b", para)
    )
    assert cells > 20 and aligned > 0 and flat > 30, (cells, aligned, flat)


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
        notes = page.locator("article details:not([open])").filter(has=page.locator(BOX)).element_handles()
        boxes = []
        for note in notes:  # each closed note, opened as a reader opens it
            note.query_selector("summary").click()
            wait_until_scroll_regions_are_marked(page)
            boxes += page.evaluate(BOXES_IN, [note, BOX])
        assert max(wider for wider, _ in boxes) > 1, "no box in these notes is wider than a phone: nothing to check"
        assert all(tabindex == 0 for wider, tabindex in boxes if wider > 1), boxes
        assert w.problems() == []
    finally:
        w.close()


def _scheme(page: Page) -> str:
    meta = "document.querySelector('meta[name=color-scheme]').content"
    return page.evaluate(f"document.body.dataset.mdColorScheme + ' ' + {meta}")


def test_the_light_dark_toggle_follows_the_system_and_then_the_readers_choice(browser, base_url):
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


def test_the_copy_check_opens_every_markdown_page_with_python_blocks():
    """The copy check finds a page's Markdown by its path: every page with python blocks is one of PAGES."""
    pages = [p for p in sorted(DOCS.rglob("*.md")) if "hooks" not in p.parts and "```python" in p.read_text("utf-8")]
    paths = {"/" if p.stem == "index" else f"/{p.relative_to(DOCS).with_suffix('').as_posix()}/" for p in pages}
    assert len(paths) >= 10 and paths <= set(PAGES), sorted(paths - set(PAGES))


# Every link of the primary sidebar, at every scroll position of the sidebar, is drawn where it is: at
# points along its left edge, inside the sidebar's visible box, the element the browser finds is the link.
# Material scrolls the sidebar to centre the current page's link, so on a page whose section is open
# (the GPT chapter's) the list starts at an arbitrary offset; its sticky title used to cover half of the
# link under it (at 1280 x 858, "Home" on the GPT pages, when the nav was longer).
SIDEBAR_LINKS_COVERED = """() => {
  const wrap = document.querySelector('.md-sidebar--primary .md-sidebar__scrollwrap');
  const box = wrap.getBoundingClientRect();
  // a collapsed section keeps its links in the box, laid out but hidden (visibility: collapse): not shown
  const links = [...wrap.querySelectorAll('.md-nav__link')]
    .filter((a) => a.checkVisibility({visibilityProperty: true}));
  const covered = [];
  for (let top = 0; top <= wrap.scrollHeight - wrap.clientHeight; top += 2) {
    wrap.scrollTop = top;
    for (const link of links) {
      const r = link.getBoundingClientRect();
      for (let y = r.top + 2; y < r.bottom - 1; y += 4) {
        if (y < box.top || y > box.bottom) continue;  // scrolled out of the sidebar: not shown, not covered
        const found = document.elementFromPoint(r.left + 3, y);
        if (found && !link.contains(found) && !found.contains(link)) {
          covered.push(`scrolled ${top} px: "${link.textContent.trim()}" under ${found.className || found.tagName}`);
          break;
        }
      }
    }
  }
  return [wrap.scrollHeight - wrap.clientHeight, covered];
}"""


# The sidebar's height and its list's, in a window `TALL_WINDOW` px high: every window height below is computed
# from them, so that the sidebar scrolls on any machine, whatever its fonts and whatever the nav holds.
TALL_WINDOW = 2000
SIDEBAR_AND_LIST = """() => {
  const wrap = document.querySelector('.md-sidebar--primary .md-sidebar__scrollwrap');
  return [wrap.clientHeight, wrap.firstElementChild.getBoundingClientRect().height];
}"""


@pytest.mark.parametrize("scrolled", ["one link", "half the list"])
def test_no_link_of_the_sidebar_is_covered_at_any_scroll_position(browser, base_url, scrolled):
    """In a window short enough for the sidebar to scroll by one link's height, or by half its list (the
    window's height computed from the sidebar's, measured first in a tall window), no link is covered."""
    gpt_page = "/gpt-gradient-sizes/"  # the GPT chapter's section is open: the longest sidebar
    w = Watched(browser, base_url, width=DESKTOP)
    try:
        w.page.set_viewport_size({"width": DESKTOP, "height": TALL_WINDOW})
        open_page(w.page, base_url + gpt_page)
        w.page.evaluate("document.fonts.ready")
        sidebar, listed = w.page.evaluate(SIDEBAR_AND_LIST)
        # the sidebar is as tall as the window less the header: shorter by its room to spare and by the
        # overflow wanted, the window makes the list overflow the sidebar by that
        wanted = 40 if scrolled == "one link" else listed / 2
        height = int(TALL_WINDOW - (sidebar - listed) - wanted)
        assert sidebar > listed and height > 0, f"the sidebar's list ({listed} px) overflows a {TALL_WINDOW} px window"
        w.page.set_viewport_size({"width": DESKTOP, "height": height})
        open_page(w.page, base_url + gpt_page)  # Material centres the current page's link as the page loads
        w.page.evaluate("document.fonts.ready")
        scrolls, covered = w.page.evaluate(SIDEBAR_LINKS_COVERED)
        assert scrolls > 0, f"at 1280 x {height} the sidebar does not scroll: the window was not made short enough"
        assert covered == [], f"at 1280 x {height}:\n" + "\n".join(covered[:10])
        assert w.problems() == []
    finally:
        w.close()


def test_no_page_scrolls_sideways_on_a_phone_before_its_math_font_arrives(browser, base_url):
    """The math font is font-display: optional: on a slow phone's first visit a page draws its formulas in the
    device's own math font, whose letters are wider. Every page, every note open, must fit 390 px then too."""
    page = browser.new_page(viewport={"width": PHONE, "height": 844})
    page.route("**/*.woff2", lambda route: route.abort())
    wide = {}
    try:
        for path in PAGES:
            open_page(page, base_url + path)
            page.evaluate("document.querySelectorAll('article details').forEach((d) => (d.open = true))")
            overflow = page.evaluate("document.documentElement.scrollWidth - innerWidth")
            if overflow > 0:
                wide[path] = overflow
    finally:
        page.close()
    assert wide == {}, f"pages that scroll sideways by these px in the fallback math font: {wide}"
