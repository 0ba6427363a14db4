"""Serve the one font the formulas are drawn in: STIX Two Math, cut down to what the site uses.

The browser lays out MathML (mgsite/formulas.py) with the font's MATH table: how far a
superscript rises, how thick a fraction bar is, which larger glyphs a stretched bracket is built
from. A reader's own fonts differ from device to device, and many phones have
none with that table, so the site serves one: STIX Two Math from npm (@fontsource/stix-two-math,
pinned in package.json). Whole, it is 400 KB; the site's formulas use a few dozen characters, so
`subset` keeps only those, their italic forms (the browser draws a single-letter variable in
the Mathematical Italic letters of Unicode, not in a slanted font) and the glyphs the MATH table
builds from them: about 30 KB, written into the built site by `python -m mgsite.finish` (before that,
`python -m mgsite.prepare` puts the whole font in docs/vendor/, which `mkdocs serve` serves). One of the
MATH table's constants is changed on the way, so that subscripts sit as TeX sets them (see `subset`).

docs/stylesheets/extra.css's math part holds its @font-face, and
the browser fetches the font when its first layout meets a formula. It is not preloaded: Chromium
(156, traced) draws no frame of a page until the fonts it preloads have arrived, and under
its paint holding (on by default, as PageSpeed Insights runs) a page held that long often waited a
further 1-2 s for its first frame (benchmarks/bench_site.py, "Held first frames"). Its font-display is
optional: no text waits for it, and no formula changes size when it arrives (with block, the formulas
were laid out invisibly in another font and laid out again when it came, moving the text around them:
a layout shift of 0.004 on /chain-rule/ at 412 px). The font is used when it is there as the page is first
drawn (from the cache, or within the browser's 100 ms wait); when it comes later (a slow phone's
first visit), Chromium keeps the device's own math font for that document, instant navigation's pages
included (tried: a font held back 1 s), and the next page load draws in it from the cache.

"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

from fontTools import subset as font_subset
from fontTools.ttLib import TTFont

SOURCE = Path("node_modules") / "@fontsource" / "stix-two-math" / "files" / "stix-two-math-latin-400-normal.woff2"
SITE_PATH = "vendor/stix-two-math/STIXTwoMath-Regular.woff2"

# Where the browser's automatic italic (text-transform: math-auto) takes a single-letter <mi>:
# U+1D434.. Mathematical Italic A-Z a-z (its h is U+210E), U+1D6E2.. Mathematical Italic Greek.
ITALIC = [*range(0x1D434, 0x1D468), 0x210E, *range(0x1D6E2, 0x1D71C)]


def characters(mathml: str) -> set[str]:
    """Every character a formula's text draws, and the radical of a root, which it draws with no character."""
    formula = ET.fromstring(mathml)
    roots = {"√"} if any(el.tag.endswith(("msqrt", "mroot")) for el in formula.iter()) else set()
    return set("".join(formula.itertext())) - {"\n"} | roots


def subset(font: bytes, used: set[str] | None) -> bytes:
    """`font` as woff2 with only the glyphs for `used` and the italic letters (see the top of this file);
    the whole font when `used` is None (what `mkdocs serve` serves)."""
    # the source's date, not the build's: the same font and formulas give the same bytes
    loaded = TTFont(io.BytesIO(font), recalcTimestamp=False)
    if used is not None:
        options = font_subset.Options()
        options.flavor = "woff2"
        options.layout_features = ["*"]  # every OpenType feature the MATH layout may ask for (ssty: script forms)
        cutter = font_subset.Subsetter(options)
        cutter.populate(unicodes=sorted({ord(c) for c in used} | set(ITALIC)))
        cutter.subset(loaded)
    loaded.flavor = "woff2"
    # A subscript goes at least this far below the bottom of its base. TeX does that only for a base
    # built of parts; a letter's subscript sits at the same height whatever the letter, and the
    # browser cannot tell the two apart. With 0 here, p_y sits where x_y does, as in TeX and KaTeX,
    # instead of hanging below the p's tail.
    loaded["MATH"].table.MathConstants.SubscriptBaselineDropMin.Value = 0
    out = io.BytesIO()
    loaded.save(out)
    return out.getvalue()


class _FormulaText(HTMLParser):
    """The characters the <math> elements of an HTML page draw (as `characters` reads one formula)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # how many <math> elements we are in
        self.used: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.depth += tag == "math"
        if self.depth and tag in ("msqrt", "mroot"):
            self.used.add("√")

    def handle_endtag(self, tag: str) -> None:
        self.depth -= tag == "math" and self.depth > 0

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.used.update(set(data) - {"\n"})


def characters_of_page(page_html: str) -> set[str]:
    """Every character the formulas of a built page draw (its <math> elements' text, and √ for a root)."""
    reader = _FormulaText()
    reader.feed(page_html)
    reader.close()
    return reader.used
