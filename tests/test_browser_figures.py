"""Pictures drawn by hand in a page's Markdown (an inline <svg> in a <figure>, such as the data flow on
docs/model.md) stay readable: every label is at least 12 px on a 390 px phone and at 1280 px, has a
contrast of at least 4.5:1 against what is drawn behind it in the light and the dark scheme, and
lies inside the picture; and each picture has a name a screen reader announces.

The interactive graphs (.autograd-svg) are checked by tests/test_browser_widgets.py, in the states
their buttons put them in; this file checks every other picture of every page. Uses the browser
fixtures of tests/test_browser.py: skips without Chromium or playwright, except with CI=true.
"""

# ruff: noqa: F811  (pytest passes the imported fixtures to the tests by name)
from __future__ import annotations

import pytest
from browser import (  # noqa: F401  (base_url, browser and site_dir are fixtures)
    DESKTOP,
    PAGES,
    PHONE,
    Watched,
    base_url,
    browser,
    open_page,
    site_dir,
)

pytestmark = pytest.mark.browser

FIGURES = "article figure svg:not(.autograd-svg)"

# For each label of each picture: its text, its rendered size in CSS px, its contrast ratio against
# the shapes painted under it (composited over the page's background), and whether it lies inside
# the picture. Shapes count in document order, which is SVG's paint order.
LABELS = """(selector) => {
  const rgba = (s) => {
    const m = s.match(/[\\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const over = (fg, bg) => [0, 1, 2].map((i) => fg[i] * fg[3] + bg[i] * (1 - fg[3])).concat(1);
  const lum = (c) => {
    const l = c.slice(0, 3).map((v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  };
  const pageBackground = (el) => {
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

NAMES = """(selector) => [...document.querySelectorAll(selector)].map((svg) => {
  const ids = (svg.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean);
  const named = ids.map((id) => document.getElementById(id)).filter((el) => el && svg.contains(el));
  return [svg.getAttribute('role'), named.length === ids.length ? named.map((el) => el.textContent.trim()).join(' ')
    : '', svg.getAttribute('aria-label') || ''];
})"""


def _labels(w: Watched, base_url: str) -> dict[str, list]:
    """The labels of every hand-drawn picture, by page (pages without one are left out)."""
    found = {}
    for path in PAGES:
        open_page(w.page, base_url + path)
        w.page.evaluate("document.fonts.ready")
        labels = w.page.evaluate(LABELS, FIGURES)
        if labels:
            found[path] = labels
    return found


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_every_label_of_a_picture_is_at_least_12px_and_inside_it(browser, base_url, width):
    w = Watched(browser, base_url, "light", width)
    try:
        found = _labels(w, base_url)
        assert "/model/" in found  # the data flow of gpt(): the test sees the pictures it is for
        small = [(path, text, round(px, 2)) for path, labels in found.items() for text, px, _, _ in labels if px < 12]
        assert small == [], small[:10]
        outside = [(path, text) for path, labels in found.items() for text, _, _, inside in labels if not inside]
        assert outside == [], outside[:10]
        assert w.problems() == []
    finally:
        w.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_label_of_a_picture_has_a_contrast_of_at_least_4_5(browser, base_url, scheme):
    w = Watched(browser, base_url, scheme, PHONE)
    try:
        found = _labels(w, base_url)
        assert "/model/" in found
        low = [(path, text, round(r, 2)) for path, labels in found.items() for text, _, r, _ in labels if r < 4.5]
        assert low == [], low[:10]
        assert w.problems() == []
    finally:
        w.close()


def test_every_picture_has_a_name_a_screen_reader_announces(browser, base_url):
    w = Watched(browser, base_url)
    try:
        seen = 0
        for path in PAGES:
            open_page(w.page, base_url + path)
            for role, labelled_by, label in w.page.evaluate(NAMES, FIGURES):
                seen += 1
                assert role == "img" and (labelled_by or label), (path, role, labelled_by, label)
        assert seen > 0
        assert w.problems() == []
    finally:
        w.close()
