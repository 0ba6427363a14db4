"""Typeset every formula with Temml while the site is built, at the Markdown stage.

pymdownx.arithmatex (generic mode) finds the formulas of a page and leaves each in an element with
class "arithmatex" holding `\\(...\\)` or `\\[...\\]`. `TypesetMath`, a Python-Markdown tree
processor that runs after it, puts Temml's MathML in each such element, through Markdown's own
store of raw HTML: a page carries finished math, no script, no layout shift. Temml (npm `temml`,
pinned in package.json) writes MathML Core, which every current browser lays out (Chromium since
version 109); the formulas of a page go to it in one batch, in one Node process for the whole build.

A formula Temml cannot parse stops the build with the page and the TeX, and so does one browsers
would draw otherwise than written (`refused`). A formula in a line of text keeps the punctuation
that touches it on its line ("$d = 10$, then" must not break before its comma). The characters
the formulas draw are read from the built pages by `python -m mgsite.finish`, which cuts the math font to them.
"""

from __future__ import annotations

import atexit
import html
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from markdown import Markdown
from markdown.treeprocessors import Treeprocessor

from mgsite import pages
from mgsite.errors import PageError

TEMML = Path("node_modules") / "temml" / "dist" / "temml.cjs"  # under the repository (the extension's root)

# what arithmatex leaves in its element (the display TeX HTML-escaped)
WRAPPED = re.compile(r"\\\((?P<inline>.*)\\\)|\\\[(?P<display>.*)\\\]", re.S)
# the punctuation that touches an inline formula: before it, after it
OPENING = re.compile(r"[(\[“‘]$")
CLOSING = re.compile(r"^[,.;:!?)\]”’]+")

# A heading's formulas in its table-of-contents entry, which is plain text: x^2 as x², not x2
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
# MathML's invisible operators: function application (ln⁡27) is a space in plain text, the others nothing
INVISIBLE = str.maketrans({"\u2061": " ", "\u2062": None, "\u2063": None, "\u2064": None})

# Reads one JSON array [[tex, display], ...] per line, writes one [{"mathml": ...} or {"error": ...}, ...].
# strict: what TeX would reject is an error (a boolean in Temml 0.13), not a warning on the console.
# The macros set these as TeX does: a prime on the line beside its letter (as a superscript it
# comes out tiny: the font served has no script forms for it), and ⋅ × ⊙ spaced as binary
# operators, as + is (MathML's operator dictionary gives them less).
RENDER_JS = """
const temml = require(process.argv[1]);
const macros = {
  "'": "\\\\prime", "\\\\cdot": "\\\\mathbin{⋅}", "\\\\times": "\\\\mathbin{×}", "\\\\odot": "\\\\mathbin{⊙}",
};
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const out = JSON.parse(line).map(([tex, displayMode]) => {
    try {
      const options = { displayMode, strict: true, throwOnError: true, macros: { ...macros } };
      return { mathml: temml.renderToString(tex, options) };
    } catch (e) {
      return { error: e.message };
    }
  });
  process.stdout.write(JSON.stringify(out) + "\\n");
});
"""

# What browsers do not draw as written, so the build stops instead of showing it wrong: a stretched
# brace (\underbrace, \overbrace: in Chromium a dashed line shorter than its term; write the label
# with \underset or \overset), MathML outside MathML Core (\cancel's <menclose>), a mathvariant
# other than normal (MathML Core draws no other; Temml writes \mathbf as bold letters of Unicode),
# and any of Temml's classes that docs/stylesheets/extra.css's math part does not style.
STYLED = {"tml-display", "tml-prime", "tml-jot", "tml-left", "tml-right", "tml-sml-pad", "tml-med-pad", "tml-lrg-pad"}
STYLED_ACCENT = re.compile(r"(?:chr|wbk)-(?:sml|med|lrg)(?:-acc)?|wbk-acc")
NOT_CORE = {"menclose", "mlabeledtr", "mfenced"}
STRETCHED_BRACES = set("⏞⏟")

MATHML = "http://www.w3.org/1998/Math/MathML"
ET.register_namespace("", MATHML)  # written back without prefixes, and without the xmlns Temml leaves out
SCRIPTED = {f"{{{MATHML}}}{name}" for name in ("msub", "msup", "msubsup", "munder", "mover", "munderover")}


def parse(mathml: str) -> ET.Element:
    """Temml's MathML as a tree (Temml leaves out the namespace)."""
    return ET.fromstring(mathml.replace("<math", f'<math xmlns="{MATHML}"', 1))


def refused(math: ET.Element) -> str | None:
    """What in a formula browsers would not draw as written, or None."""
    for el in math.iter():
        name, variant = el.tag.removeprefix(f"{{{MATHML}}}"), el.get("mathvariant", "normal")
        unstyled = sorted(c for c in el.get("class", "").split() if c not in STYLED and not STYLED_ACCENT.fullmatch(c))
        if name in NOT_CORE:
            return f"<{name}>"
        if variant != "normal":
            return f'mathvariant="{variant}"'
        if braces := STRETCHED_BRACES & set(el.text or ""):
            return min(braces)
        if unstyled:
            return f"class {unstyled[0]!r}"
    return None


def no_space_in_scripts(math: ET.Element) -> str:
    """No space around an operator in a script, as TeX sets them: X^{n-1}, \\sum_{i=1}, \\lim_{h \\to 0}.

    MathML Core spaces an operator alike at every size, and Temml leaves it to the browser; TeX drops
    the space around a sign, a relation or an arrow in a sub- or superscript. Every <mo> in a script
    without a spacing of its own gets none (0.2 to 0.4 em per script, measured). Returns the MathML."""
    for parent in math.iter():
        for script in list(parent)[1:] if parent.tag in SCRIPTED else []:
            for mo in script.iter(f"{{{MATHML}}}mo"):
                if "lspace" not in mo.attrib and "rspace" not in mo.attrib:
                    mo.attrib.update(lspace="0em", rspace="0em")
    return ET.tostring(math, encoding="unicode").replace(f' xmlns="{MATHML}"', "", 1)


class Temml:
    """One Node process running Temml for the whole build: a batch of formulas is one line of JSON each way.

    Each formula's result is kept, so a formula used on several pages, or again by `mkdocs serve`,
    is typeset once."""

    def __init__(self, script: Path) -> None:
        self.script = script
        self.process: subprocess.Popen[str] | None = None
        self.done: dict[tuple[str, bool], tuple[str | None, str | None]] = {}  # -> (mathml, problem)

    def typeset(self, items: list[tuple[str, bool]]) -> list[tuple[str | None, str | None]]:
        if todo := [item for item in dict.fromkeys(items) if item not in self.done]:
            if self.process is None or self.process.poll() is not None:
                if (node := shutil.which("node")) is None:
                    raise PageError("Temml needs Node.js to typeset the math: install node (the one `npm ci` uses)")
                self.process = subprocess.Popen(
                    [node, "-e", RENDER_JS, str(self.script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
                )
                atexit.register(self.process.kill)
            assert self.process.stdin is not None and self.process.stdout is not None
            self.process.stdin.write(json.dumps(todo) + "\n")
            self.process.stdin.flush()
            if not (line := self.process.stdout.readline()):
                raise PageError(f"Temml stopped: is {self.script} there? (run `npm ci`)")
            for item, result in zip(todo, json.loads(line)):
                if "error" in result:
                    self.done[item] = None, f"cannot typeset `{item[0]}`: {result['error']}"
                elif piece := refused(math := parse(result["mathml"])):
                    self.done[item] = None, f"`{item[0]}` needs {piece}, which browsers do not draw as written"
                else:
                    self.done[item] = no_space_in_scripts(math), None
        return [self.done[item] for item in items]


PROCESSES: dict[Path, Temml] = {}  # one Node process per Temml script, for the whole build


def temml(root: Path) -> Temml:
    """The Temml process of the repository at root (node_modules/temml), started once."""
    script = root / TEMML
    return PROCESSES.setdefault(script, Temml(script))


def typeset(items: list[tuple[str, bool]], root: Path, where: Callable[[str], str]) -> list[str]:
    """The MathML of each (TeX, display?); any formula that cannot be shown as written fails the build,
    with where(tex) (the page and line) before each problem."""
    results = temml(root).typeset(items)
    if problems := [f"{where(item[0])}: {problem}" for item, (_, problem) in zip(items, results) if problem]:
        raise PageError("; ".join(problems))
    return [mathml for mathml, _ in results if mathml is not None]


def as_text(mathml: str) -> str:
    """A formula as plain text, for a table-of-contents entry."""
    formula = ET.fromstring(mathml)
    for power in (sup[1] for sup in formula.iter("msup") if sup[1].tag == "mn" and (sup[1].text or "").isdecimal()):
        power.text = (power.text or "").translate(SUPERSCRIPTS)
    return "".join(formula.itertext()).translate(INVISIBLE)


def keep_punctuation_on_the_line(parent: ET.Element, el: ET.Element) -> None:
    """Put an inline formula and the punctuation touching it in one <span class="mg-nobreak">."""
    k = list(parent).index(el)
    before_text = (parent[k - 1].tail if k else parent.text) or ""
    before, after = OPENING.search(before_text), CLOSING.match(el.tail or "")
    if not (before or after):
        return
    box = ET.Element("span", {"class": "mg-nobreak"})
    if before:
        box.text = before[0]
        if k:
            parent[k - 1].tail = before_text[:-1]
        else:
            parent.text = before_text[:-1]
    rest = el.tail or ""
    el.tail = after[0] if after else None
    box.tail = rest[len(after[0]) :] if after else rest
    parent.remove(el)
    box.append(el)
    parent.insert(k, box)


class TypesetMath(Treeprocessor):
    """Every arithmatex element of a page, with its formula typeset (see the top of this file)."""

    def __init__(self, md: Markdown, root: Path) -> None:
        super().__init__(md)
        self.root = root  # the repository, where node_modules/ is

    def where(self, tex: str) -> str:
        assert self.md is not None  # registered by the extension, with its Markdown
        return pages.where(self.md, tex)

    def run(self, root: ET.Element) -> None:
        assert self.md is not None  # registered by the extension, with its Markdown
        found = [(parent, el) for parent in root.iter() for el in parent if el.get("class") == "arithmatex"]
        items = []
        for _, el in found:
            if (m := WRAPPED.fullmatch(el.text or "")) is None:
                raise PageError(f"{self.where(el.text or '')}: arithmatex wrote {el.text!r}; has its output changed?")
            items.append((m["inline"], False) if m["inline"] is not None else (html.unescape(m["display"]), True))
        typeset_found = typeset(items, self.root, self.where)
        for (_, el), mathml in zip(found, typeset_found):
            el.text = as_text(mathml)
        with_math = (h for h in root.iter() if h.tag in HEADINGS and h.find(".//*[@class='arithmatex']") is not None)
        for heading in with_math:
            heading.set("data-toc-label", "".join(heading.itertext()))  # the toc extension reads it, then drops it
        for (parent, el), mathml in zip(found, typeset_found):
            if el.tag == "span":
                el.text = self.md.htmlStash.store(mathml)
                keep_punctuation_on_the_line(parent, el)
            else:  # in a block of the formula's width, which div.arithmatex centres and scrolls (extra.css)
                el.text = None
                ET.SubElement(el, "span").text = self.md.htmlStash.store(mathml)
