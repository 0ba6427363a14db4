"""Preload the KaTeX fonts each page's formulas use, so the text does not move when they arrive.

A browser asks for a web font only once it lays out text that needs it. Until the font arrives it
lays the formulas out in a fallback font of other widths, and when the font comes the lines
re-wrap and everything below them moves: Lighthouse measured layout shifts of 0.19 on tensors and
0.11 on chain-rule from this alone. A `<link rel="preload">` in <head> starts each font's download
with the page, before any text is laid out.

Which fonts a page needs is read from KaTeX's own stylesheet, not written down here: every rule
that sets a KaTeX font family names the classes it applies to (`.katex .mathnormal` is
KaTeX_Math, italic), and the page needs that font when one of its elements has all of a rule's
classes. A font in a closed tab or a collapsed block is preloaded too: it is needed as soon as
the reader opens it. tests/test_browser.py checks that no page loads a font it did not preload.

Runs after docs/hooks/typeset_math.py has written the formulas into the page.
"""

from __future__ import annotations

import re

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.utils import get_relative_url

STYLESHEET = "vendor/katex/katex.min.css"
FONTS = "vendor/katex/fonts"
RULE = re.compile(r"(?P<selectors>[^{}@]+)\{(?P<body>[^{}]*)\}")
FAMILY = re.compile(r"\bKaTeX_(?P<family>\w+)")
CLASS_ATTR = re.compile(r'class="(?P<classes>[^"]*)"')

_files: Files | None = None
_rules: list[tuple[frozenset[str], str]] | None = None


def on_files(files: Files, config) -> Files:
    global _files, _rules
    _files, _rules = files, None
    return files


def face_file(body: str) -> str | None:
    """The woff2 file of the face a rule's declarations select: KaTeX_Main + 700 -> KaTeX_Main-Bold."""
    family = FAMILY.search(body)
    if family is None or "font-family" not in body and "font:" not in body:
        return None
    bold = re.search(r"font-weight:\s*(?:700|bold)", body) is not None
    italic = re.search(r"font-style:\s*italic", body) is not None
    style = ("Bold" if bold else "") + ("Italic" if italic else "") or "Regular"
    return f"KaTeX_{family['family']}-{style}.woff2"


def font_rules(css: str) -> list[tuple[frozenset[str], str]]:
    """(classes an element must have, font file) for each selector of each rule that sets a KaTeX font.

    The classes are those of the selector's last compound that has any (`.delimsizing.mult
    .delim-size1>span` -> {delim-size1}): an element with them gets the font, or passes it on."""
    css = re.sub(r"@font-face\{[^}]*\}", "", css)
    out = []
    for rule in RULE.finditer(css):
        font = face_file(rule["body"])
        if font is None:
            continue
        for selector in rule["selectors"].split(","):
            compounds = [re.findall(r"\.([\w-]+)", c) for c in re.split(r"[\s>+~]+", selector.strip())]
            classes = next((c for c in reversed(compounds) if c), None)
            if classes:
                out.append((frozenset(classes), font))
    return out


def fonts_for(html: str, rules: list[tuple[frozenset[str], str]]) -> list[str]:
    """The font files the page's elements call for, in the order of KaTeX's stylesheet, once each."""
    class_sets = {frozenset(m["classes"].split()) for m in CLASS_ATTR.finditer(html)}
    needed = [font for classes, font in rules if any(classes <= have for have in class_sets)]
    return list(dict.fromkeys(needed))


def _rules_of_the_site() -> list[tuple[frozenset[str], str]]:
    global _rules
    if _rules is None:
        file = _files.get_file_from_path(STYLESHEET) if _files is not None else None
        if file is None:
            raise PluginError(f"math_fonts: {STYLESHEET} is not in the site (docs/hooks/vendor.py publishes it)")
        _rules = font_rules(file.content_string)
        if not _rules:
            raise PluginError(f"math_fonts: found no font rules in {STYLESHEET}; has KaTeX's stylesheet changed?")
    return _rules


def on_post_page(output: str, page, config) -> str:
    if 'class="katex' not in output:
        return output
    links = []
    for font in fonts_for(output, _rules_of_the_site()):
        path = f"{FONTS}/{font}"
        if _files is None or _files.get_file_from_path(path) is None:
            raise PluginError(f"{page.file.src_uri}: KaTeX's stylesheet calls for {font}, which is not in {FONTS}/")
        href = get_relative_url(path, page.url)
        links.append(f'<link rel="preload" href="{href}" as="font" type="font/woff2" crossorigin>')
    head, sep, rest = output.partition("</title>")
    if not sep:
        raise PluginError(f"{page.file.src_uri}: no </title> to put the font preloads after")
    return head + sep + "".join(links) + rest
