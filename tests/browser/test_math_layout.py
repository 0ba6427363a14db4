"""Every hard formula of the site drawn where it was drawn before Temml: fractions, sums and products with
limits, accents, roots, `aligned`, matrices, labels under a term (\\underset), primes.

tests/golden/math_layout.json holds, for each such formula (keyed by its TeX), where each token was drawn
in the KaTeX-typeset build the site had before (commit e06d25d), measured by tests/math_layout.py in
em from the formula's top left corner. Each formula is typeset now, laid out in a page of the built
site with its stylesheets and math font, measured the same way and compared token by token.
"""

import json

import math_layout
from browsing import ROOT
from sitecheck import require_docs_toolchain

require_docs_toolchain()

from mgsite import formulas as typeset_math  # noqa: E402  (without the docs toolchain this module has been skipped above)

REFERENCE = json.loads((ROOT / "tests" / "golden" / "math_layout.json").read_text(encoding="utf-8"))
TOLERANCE = 0.25  # em
# drawn further from the reference than TOLERANCE: (found in the TeX) -> (why, how far in em tokens may move)
DIFFERENT = {
    # a colon that ends a column of `aligned` keeps the space of a relation on both sides in Temml's MathML
    ":&\\quad": ("the colon ending a column is spaced as a relation", 0.4),
    # \hat's accent is Temml's ˆ (U+02C6), a glyph of its own width, where the reference measured the
    # zero-width combining U+0302: its box's edges differ more than the accent moved
    "\\hat": ("the accent is another character, drawn 0.2 em higher", 0.3),
}


def test_every_hard_formula_is_drawn_where_it_was(browser, base_url, site_dir):
    items = {key: (key.strip("$"), key.startswith("$$")) for key in REFERENCE}
    mathml = typeset_math.typeset(list(items.values()), ROOT, lambda tex: "tests/golden/math_layout.json")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        url = base_url + "/_math_layout.html"
        html = math_layout.harness(site_dir, [(*item, m) for item, m in zip(items.values(), mathml)])
        page.route(url, lambda route: route.fulfill(body=html, content_type="text/html"))
        drawn = math_layout.measure(page, url)
    finally:
        page.close()
    moved = {key: math_layout.compare(REFERENCE[key], drawn[key]) for key in REFERENCE}
    allowed = {
        key: max((b for word, (_, b) in DIFFERENT.items() if word in key), default=TOLERANCE) for key in REFERENCE
    }
    assert {key: found for key, found in moved.items() if found[0] > allowed[key] or found[1]} == {}
    within = sum(worst <= TOLERANCE for worst, _ in moved.values())
    print(f"{within} of {len(moved)} hard formulas within {TOLERANCE} em of the reference")
