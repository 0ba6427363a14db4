"""Where each token of a formula is drawn, in em from the formula's top left corner, and how two such
layouts compare: tests/browser/test_math_layout.py holds the site's formulas to a stored reference with it.

`measure` lays out many formulas in one page of the built site (its own stylesheets and math font)
and reads the box of every token (<mi>, <mn>, <mo>, <mtext>, <ms>) from the formula's content box;
`compare` pairs the tokens of two layouts of a formula by their text, in order, and gives the
largest distance of any edge.
"""

from __future__ import annotations

import difflib
import html
import re
from pathlib import Path

# the hard formulas, whose layout the reference holds: fractions, sums and products with limits,
# accents, roots, tables (aligned, matrices), labels under or over a term, primes
HARD = re.compile(r"\\(?:[dt]?frac|sum|prod|hat|bar|tilde|vec|dot|begin|underset|overset|underbrace|sqrt|lim)\b|'")
# what a token's text is compared as: the invisible operators (function application, times) are no token
INVISIBLE = re.compile("[\u2061\u2062\u2063\u200b]")
SAME = str.maketrans({"^": "\u0302", "-": "−", "ˆ": "\u0302", "'": "′", "∣": "|"})

BOXES_JS = """
(formulas) => formulas.map((el) => {
  // the formula's content box: its padding is where the page puts it, not how it is laid out
  const r = el.getBoundingClientRect(), s = getComputedStyle(el), em = parseFloat(s.fontSize);
  const m = { left: r.left + parseFloat(s.paddingLeft), top: r.top + parseFloat(s.paddingTop) };
  return [...el.querySelectorAll("mi, mn, mo, mtext, ms")].filter((t) => !t.querySelector("*")).map((t) => {
    const b = t.getBoundingClientRect();
    const edges = [b.left - m.left, b.top - m.top, b.right - m.left, b.bottom - m.top];
    return [t.textContent, ...edges.map((v) => Math.round((100 * v) / em) / 100)];
  });
})
"""


def key(tex: str, display: bool) -> str:
    return f"$${tex.strip()}$$" if display else f"${tex.strip()}$"


def harness(site: Path, formulas: list[tuple[str, bool, str]]) -> str:
    """A page of the built site that shows each (tex, display, html) as a page of the site shows it
    (tools/mgsite/mgsite/formulas.py: a display formula's <math> in a <span>, an inline one on its own)."""
    sheets = sorted(site.glob("assets/stylesheets/main.*.min.css")) + [
        site / "stylesheets/extra.css",
    ]
    links = "".join(f'<link rel="stylesheet" href="/{s.relative_to(site).as_posix()}">' for s in sheets)
    # The math font is font-display: optional, used only if it is there as the page is first drawn; preloaded,
    # Chromium draws nothing until it is, as a page does whose font is in the cache.
    links += "".join(
        f'<link rel="preload" as="font" type="font/woff2" crossorigin href="/{f.relative_to(site).as_posix()}">'
        for f in sorted(site.glob("vendor/stix-two-math/*.woff2"))
    )
    body = "".join(
        f'<div class="arithmatex" data-key="{html.escape(key(tex, display))}"><span>{mathml}</span></div>'
        if display
        else f'<p>Text <span class="arithmatex" data-key="{html.escape(key(tex, display))}">{mathml}</span> text.</p>'
        for tex, display, mathml in formulas
    )
    article = f'<div class="md-content"><article class="md-content__inner md-typeset">{body}</article></div>'
    return f'<!doctype html><html><head><meta charset="utf-8">{links}</head><body>{article}</body></html>'


def measure(page, url: str) -> dict[str, list]:
    """key -> token boxes of every formula of the harness page at `url` (opened in `page`)."""
    page.goto(url)
    page.evaluate("document.fonts.ready.then(() => document.fonts.load('16px \"STIX Two Math\"'))")
    keys = page.locator("[data-key]").evaluate_all("els => els.map((e) => e.dataset.key)")
    boxes = page.locator("[data-key] math").evaluate_all(BOXES_JS)
    return dict(zip(keys, boxes))


def _text(token: list) -> str:
    return INVISIBLE.sub("", token[0]).translate(SAME).strip()


def compare(reference: list, got: list) -> tuple[float, list[str]]:
    """(largest edge distance in em over the tokens both have, the tokens only one of them has)."""
    ref = [t for t in reference if _text(t)]
    new = [t for t in got if _text(t)]
    matcher = difflib.SequenceMatcher(None, [_text(t) for t in ref], [_text(t) for t in new], autojunk=False)
    worst, unmatched = 0.0, []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            pairs = list(zip(ref[i1:i2], new[j1:j2]))
        elif "".join(map(_text, ref[i1:i2])) == "".join(map(_text, new[j1:j2])):
            pairs = [(_union(ref[i1:i2]), _union(new[j1:j2]))]  # one word drawn as one token or as several
        else:
            pairs = []
            unmatched += [f"-{_text(t)}" for t in ref[i1:i2]] + [f"+{_text(t)}" for t in new[j1:j2]]
        for a, b in pairs:
            worst = max(worst, *(abs(x - y) for x, y in zip(a[1:], b[1:])))
    return worst, unmatched


def _union(tokens: list) -> list:
    return [
        "",
        min(t[1] for t in tokens),
        min(t[2] for t in tokens),
        max(t[3] for t in tokens),
        max(t[4] for t in tokens),
    ]
