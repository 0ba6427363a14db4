"""axe-core finds no accessibility violation in the search dialog, open with results, in either scheme;
and every formula reaches a screen reader as math. (axe on every page, with its default rules and
target-size in the light scheme at 1280 px, with the rules that depend on colour once switched to dark,
and with the others once narrowed to a 390 px phone, runs on that page's one load:
tests/browser/test_browser.py's test_every_page_in_every_view; a phone's own load of each kind of page gets
every rule.)

axe-core comes from npm (`npm ci`; the version package.json pins) and is injected into each page
from node_modules, so the test runs offline. Without axe-core, Chromium or playwright it is skipped,
except with CI=true, where it fails.
"""

from __future__ import annotations

import pytest
from browsing import (
    AXE,
    COLOUR_RULES,
    DESKTOP,
    PHONE,
    ROOT,
    Watched,
    axe_violations,
    open_page,
    unavailable,
    wait_until_scroll_regions_are_marked,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

if not AXE.is_file():
    unavailable(f"no {AXE.relative_to(ROOT)}; run `npm ci` (axe-core is a devDependency in package.json)")


def violations(w: Watched) -> list[str]:
    return axe_violations(w.page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_in_the_open_search_dialog(browser, base_url, scheme):
    w = Watched(browser, base_url, scheme, DESKTOP)
    try:
        open_page(w.page, base_url + "/")
        w.page.locator(".md-search__input").click()
        w.page.keyboard.type("gradient")
        expect(w.page.locator(".md-search-result__link").first).to_be_visible()
        # the results' code boxes are made focusable as they come near the viewport, a frame or an idle
        # moment later (docs/javascripts/scroll-regions.js): axe reads them once that has happened
        wait_until_scroll_regions_are_marked(w.page)
        found = violations(w)
        assert found == [], f"search dialog ({scheme}):\n" + "\n".join(found)
        assert w.problems() == []
    finally:
        w.close()


# Each formula's subtree in the accessibility tree, as (role, name) of every node a screen reader
# gets (ignored nodes left out), in tree order.
def formulas_as_read(page) -> list[list[tuple[str, str]]]:
    nodes = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    by_id = {n["nodeId"]: n for n in nodes}

    def read(node) -> list[tuple[str, str]]:
        here = [] if node.get("ignored") else [(node["role"]["value"], node.get("name", {}).get("value", ""))]
        return here + [pair for child in node.get("childIds", []) for pair in read(by_id[child])]

    return [read(n) for n in nodes if n.get("role", {}).get("value") == "MathMLMath" and not n.get("ignored")]


def test_every_formula_is_there_for_a_screen_reader_as_math(browser, base_url):
    # Every formula is MathML (tools/mgsite/mgsite/formulas.py), read as math and not as a string of
    # letters. Nothing may take one out of the accessibility tree, not even a formula far below the
    # screen: `content-visibility: auto`, tried to spare the browser laying them out, took every
    # formula it had not laid out yet out of the tree.
    w = Watched(browser, base_url, "light", PHONE)
    try:
        open_page(w.page, base_url + "/chain-rule/")
        # formulas in a closed <details>, a hidden tab or the closed menu (a heading's formula in its
        # contents) are out of the tree until opened, rightly
        shown = w.page.locator(".arithmatex math").evaluate_all(
            "ks => ks.filter((k) => k.checkVisibility({ visibilityProperty: true })).length"
        )
        read = formulas_as_read(w.page)
        assert len(read) == shown > 50
        assert sum(len(f) for f in read) > 5 * len(read)  # each with its parts (roles, text), not just <math>
        # one copy of each formula: what is shown is what is read (no drawing hidden from the reader)
        assert w.page.locator(".arithmatex [aria-hidden]").count() == 0
        assert w.page.locator(".arithmatex math").last.evaluate("k => k.getBoundingClientRect().top") > 10 * PHONE
        assert w.problems() == []
    finally:
        w.close()


def test_axe_finds_no_violation_in_an_open_editor_on_a_phone_in_light_and_dark(browser, base_url):
    # The editor of an exercise (CodeMirror, fetched on Edit) in the page's colours, with its line numbers,
    # highlighting and the description of its keys; then the reader switches to dark (the header's toggle), and
    # the rules that depend on colour run again. The verdicts and error marks a run adds are checked by
    # tests/browser/test_browser_run.py in both schemes.
    w = Watched(browser, base_url, "light", PHONE)
    try:
        open_page(w.page, base_url + "/gpt-block/")
        exercise = w.page.locator(".mg-run").filter(has_text="check_relu_backward").first
        exercise.get_by_role("button", name="Edit").click()
        editor = exercise.get_by_role("textbox")
        expect(editor).to_be_focused()
        w.page.keyboard.press("Control+End")
        w.page.keyboard.type("\nprint('edited')")
        found = axe_violations(w.page, ".mg-run")
        assert found == [], "the open editor (light):\n" + "\n".join(found)
        w.page.locator("label[for='__palette_1']").click()
        w.page.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'")
        found = axe_violations(w.page, ".mg-run", only=COLOUR_RULES)
        assert found == [], "the open editor (dark):\n" + "\n".join(found)
        assert w.problems() == []
    finally:
        w.close()
