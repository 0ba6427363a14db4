"""The widget checks every page with graphs, diagrams or self-checks gets in each view of its one load
(tests/browser/test_browser.py's test_every_page_in_every_view) and of a phone's own load of its kind
(test_each_kind_of_page_on_a_phone_as_it_loads_there), and the widgets no page uses yet, which those loads
and tests/browser/test_browser_widgets.py mount beside a page's own. A helper of the browser tests, not a test.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import markdown
from browsing import (
    COLOUR_JS,
    COLOUR_RULES,
    DESKTOP,
    PHONE,
    axe_violations,
    build_what_waits,
    wait_until_scroll_regions_are_marked,
)
from mgsite import graphs
from mgsite.extension import SiteExtension
from mgsite.vendor import SCRIPTS

from microgpt.course.diagrams import DIAGRAMS

ROOT = Path(__file__).resolve().parents[2]


WIDGETS = ".autograd-widget, .autograd-playground, form.autograd-check, figure.autograd-diagram"


AUTHORED = """//// check | {attrs}
**Predict first.** In the shared graph, what is `x.grad`?

{options}/// hint
Look at how many users `a` has.
///

/// explain
a collects 6 + 9 = 15 and passes 2 · 15 on.
///
////"""


OPTIONS = "1. d, a, b, c, x\n2. d, b, c, a, x\n3. x, a, b, c, d\n\n"


def _checks(text: str) -> str:
    """Self-checks as the site's Markdown makes them (their blocks, then the extension's forms)."""
    return markdown.markdown(text, extensions=["md_in_html", SiteExtension(root=str(ROOT))])


EXTRA = (
    graphs.render("playground", {"preset": "shared"})
    + graphs.render("playground", {"preset": "diamond"})
    + "".join(graphs.render("diagram", {"diagram": d}) for d in DIAGRAMS)
    + _checks(AUTHORED.format(attrs="answer=30", options=""))
    + _checks(AUTHORED.format(attrs="choice=2", options=OPTIONS)).replace("ag-check-1", "ag-check-2")
)


def mount_extra(page) -> None:
    """Mount the widgets no page uses yet at the end of the article of the page loaded, with the page's own
    scripts (the site's entry, bundled: docs/javascripts/site.js)."""
    page.evaluate(
        """async ([html, scripts]) => {
             document.querySelector('article').insertAdjacentHTML('beforeend', `<div id="extra">${html}</div>`);
             (await import(`/${scripts}/site.js`)).mountAll();
           }""",
        [EXTRA, SCRIPTS],
    )


ACTIVE_NODE_IN_SIGHT = """(widget) => {
  const box = widget.querySelector('.autograd-scroll').getBoundingClientRect();
  const node = [...widget.querySelectorAll('g[data-node].ag-active')].at(-1);
  if (!node) return true;
  const r = node.getBoundingClientRect();
  return r.left >= box.left - 1 && r.right <= box.right + 1;
}"""


STEP_THROUGH = (
    """() => {
  const out = [];
  let steps = 0;
  for (const widget of document.querySelectorAll('.autograd-widget')) {
    const reset = widget.querySelector("button[data-action='reset']");
    if (!reset.disabled) reset.click();
    const step = widget.querySelector("button[data-action='step']");
    while (!step.disabled) {
      step.click();
      steps += 1;
      if (!("""
    + ACTIVE_NODE_IN_SIGHT
    + """)(widget)) out.push(widget.dataset.current + ' step ' + widget.dataset.step);
    }
  }
  return [out, steps];
}"""
)


def _each_step_brings_the_node_it_changed_into_sight(page) -> None:
    out_of_sight, steps = page.evaluate(STEP_THROUGH)
    assert steps > 0 or page.locator(".autograd-widget").count() == 0
    assert out_of_sight == [], f"changed node out of sight at {out_of_sight}"


SVG_TEXT_PX = """() => [...document.querySelectorAll('.autograd-svg text')]
  .filter((t) => t.textContent.trim() && getComputedStyle(t).display !== 'none')
  .map((t) => {
    const svg = t.ownerSVGElement;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * scale];
  })"""


def widget_pages(site_dir) -> list[str]:
    """Site path of every page with a graph, a diagram or a self-check."""
    out = []
    for html in sorted(site_dir.rglob("index.html")):
        if re.search(
            r'class="autograd-(widget|playground|diagram)|<form class="autograd-check', html.read_text("utf-8")
        ):
            rel = html.parent.relative_to(site_dir).as_posix()
            out.append("/" if rel == "." else f"/{rel}/")
    return out


TO_BACKWARD_MIDDLE = """() => {
  const click = (root, sel) => root.querySelector(sel).click();
  for (const w of document.querySelectorAll('.autograd-widget')) {
    click(w, "button[data-action='run-all']");
    click(w, "button[data-action='back']");
  }
  for (const pg of document.querySelectorAll('.autograd-playground')) {
    click(pg, 'button[data-place]');
    click(pg, "button[data-action='undo']");
    for (let n = pg.querySelectorAll('button[data-place]').length; n > 0; n--) click(pg, 'button[data-place]');
    click(pg, "button[data-action='run']");
  }
}"""


def _to_backward_middle(page) -> None:
    """Put every graph in a state that shows all its styles: mid-backward, a result, a wrong answer."""
    page.evaluate(TO_BACKWARD_MIDDLE)  # the graphs' buttons clicked in one call, not one round trip a click
    for f in page.locator("form.autograd-check[data-answer]").all():
        f.locator("input").fill("12345")
        f.locator("input").press("Enter")


def _svg_text_is_at_least_12px(page) -> None:
    sizes = page.evaluate(SVG_TEXT_PX)
    assert sizes, "no text in the graphs to measure"
    small = [(s, round(px, 2)) for s, px in sizes if px < 12 - 1e-6]
    assert small == [], small[:5]


CONTRAST = (
    """(root) => {
"""
    + COLOUR_JS
    + """  const background = (el) => {  // the first opaque background behind el (SVG text: its box, else the panel)
    const box = el.closest('g') && el.closest('g').querySelector(':scope > rect');
    if (el instanceof SVGElement && box && el.closest('.ag-node-group, g')) return rgba(getComputedStyle(box).fill);
    for (let e = el instanceof SVGElement ? el.ownerSVGElement.parentElement : el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0.99) return c;
    }
    return [255, 255, 255, 1];
  };
  const out = [];
  const hasText = (e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const els = [...root.querySelectorAll('*')].filter(hasText);
  for (const el of els) {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || el.closest('[hidden], math, option, title')) continue;
    if (el instanceof SVGElement && el.tagName !== 'text' && el.tagName !== 'tspan') continue;
    const bg = background(el);
    const fg = over(rgba(el instanceof SVGElement ? cs.fill : cs.color), bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    out.push([el.textContent.trim().slice(0, 30), (a + 0.05) / (b + 0.05)]);
  }
  return out;
}"""
)


def _widget_text_contrast_is_at_least_4_5(page) -> None:
    ratios = []
    for el in page.locator(WIDGETS).all():
        ratios += el.evaluate(CONTRAST)
    assert len(ratios) > 100
    low = [(s, round(r, 2)) for s, r in ratios if r < 4.5]
    assert low == [], low[:10]


def _axe_finds_nothing_in_the_widgets(page, only: list[str] | None = None) -> None:
    wait_until_scroll_regions_are_marked(page)
    found = axe_violations(page, WIDGETS, only)
    assert found == [], "\n".join(found)


WIDGET_CHECKS = {
    ("light", DESKTOP): ["svg text", "contrast", "axe", "steps in sight"],
    ("dark", DESKTOP): ["contrast", "axe"],
    ("light", PHONE): ["svg text", "steps in sight"],
}


def widget_checks(page, scheme: str, width: int, first: bool = True) -> list[tuple[str, Callable[[], None]]]:
    """The widget checks of this view, named, in the order to run them on the page loaded; `first` for the
    first view of the load, which mounts the widgets no page uses yet and puts every graph in its states
    (a view switched to on the same load finds them so)."""
    wanted = WIDGET_CHECKS.get((scheme, width), [])
    if not wanted:
        return []

    only = COLOUR_RULES if scheme == "dark" else None  # the same elements in other colours

    def states() -> None:
        mount_extra(page)
        build_what_waits(page)
        page.wait_for_function("() => !document.querySelector('.autograd-fallback')")
        _to_backward_middle(page)

    named = {
        "svg text": ("widget SVG text at least 12 px", lambda: _svg_text_is_at_least_12px(page)),
        "contrast": ("widget text contrast", lambda: _widget_text_contrast_is_at_least_4_5(page)),
        "axe": ("axe in the widgets", lambda: _axe_finds_nothing_in_the_widgets(page, only)),
        "steps in sight": (
            "each step brings its node into sight",
            lambda: _each_step_brings_the_node_it_changed_into_sight(page),
        ),
    }
    return [("widgets put in every state", states)] * first + [named[k] for k in wanted]
