"""Typeset every formula with KaTeX while the site is built, at the Markdown stage.

pymdownx.arithmatex (generic mode) finds the formulas of a page and leaves each in an element with
class "arithmatex" holding `\\(...\\)` or `\\[...\\]`. `TypesetMath`, a Python-Markdown tree
processor that runs after it (docs/hooks/formulas.py adds the extension), puts KaTeX's rendering in
each such element, through Markdown's own store of raw HTML. The formulas of a page go to KaTeX in
one batch, in one Node process for the whole build (`KaTeX`), so a page carries finished math: no
KaTeX script, no layout shift. A formula KaTeX cannot parse fails the build with the page and the
TeX. A formula in a line of text keeps the punctuation that touches it on its line ("$d = 10$, then"
must not break before its comma). docs/hooks/notebook.py typesets a notebook's formulas with
`typeset` too.

KaTeX writes MathML only (`output: "mathml"`), and the browser lays it out (MathML Core; every
current browser lays out MathML, Chromium since version 109). KaTeX's other output draws each
formula a second time, in spans for the eye, with the MathML beside it for screen readers; one copy
is fewer than half the elements, and what a screen reader reads is what the page shows. On
/tensors/ the page went from 4,800 elements to 2,500, and its first style and layout took about 40%
less time.

Each formula keeps only what is drawn: not the TeX KaTeX writes beside it (`without_source`).
MathML Core draws a few things KaTeX writes otherwise than KaTeX means them (`as_katex_meant`):
markup inside a token element (`unwrap_tokens`), the alignment and spacing of a table's columns
and rows (`lay_out_tables`), a prime as a superscript (`primes_on_the_line`), the space around a
sign, `+=`, a named function and a × or ⋅ (`operator_spacing`) and around anything in a script
(`script_spacing`), and the hat accent (`accents`). Anything else outside MathML Core, which the
browser would ignore without a word, and a stretched brace, which it draws badly, fail the build
(`not_in_mathml_core`). The characters the formulas draw are kept in USED: docs/hooks/math_font.py
cuts the math font to them.
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
from dataclasses import dataclass
from pathlib import Path

import math_font
from markdown import Extension
from markdown.treeprocessors import Treeprocessor
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent.parent
KATEX = ROOT / "node_modules" / "katex"
HOOK = Path(__file__).name

# what arithmatex leaves in its element (the display TeX HTML-escaped)
WRAPPED = re.compile(r"\\\((?P<inline>.*)\\\)|\\\[(?P<display>.*)\\\]", re.S)
# the punctuation that touches an inline formula: before it, after it
OPENING = re.compile(r"[(\[“‘]$")
CLOSING = re.compile(r"^[,.;:!?)\]”’]+")

# A heading's formulas in its table-of-contents entry, which is plain text: x^2 as x², not x2
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
DIGIT_SUPERSCRIPT = re.compile(r"<msup>(?P<base>(?:(?!</?msup).)*?)<mn>(?P<power>\d+)</mn></msup>", re.S)
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")

# Reads one JSON array [[tex, display], ...] per line, writes one [{"html": ...} or {"error": ...}, ...].
RENDER_JS = """
const katex = require(process.argv[1]);
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const out = JSON.parse(line).map(([tex, displayMode]) => {
    try {
      const options = { displayMode, output: "mathml", throwOnError: true, strict: "error" };
      return { html: katex.renderToString(tex, options) };
    } catch (e) {
      return { error: e.message };
    }
  });
  process.stdout.write(JSON.stringify(out) + "\\n");
});
"""

# MathML that KaTeX may write and MathML Core (what browsers lay out) does not have, or draws badly:
# the formula would look wrong without any error, so the build stops instead. A stretched brace
# (\underbrace, \overbrace) comes out in Chromium as a dashed line shorter than its term; write the
# label with \underset or \overset, or beside the term.
NOT_IN_CORE = re.compile(
    r"<(?P<element>menclose|mlabeledtr|maction|mfenced)\b"
    r"|(?P<brace><mo\b[^>]*>[⏞⏟]</mo>)"
    r'|\b(?P<variant>mathvariant="(?!normal")[^"]*")'
    r'|<mtable\b[^>]*\b(?P<table>columnlines|rowlines|frame|framespacing|rowalign|width|equalrows|equalcolumns)="'
)
# f' is <msup><mi>f</mi><mo>′</mo></msup> in KaTeX's MathML. The prime character is drawn raised
# already, for use on the line; made a superscript as well it comes out tiny and too high (the font
# served has no script forms for it). With a one-token base, it goes back on the line.
PRIME = r"<mo\b[^>]*>′</mo>"
SUPERSCRIPT_PRIMES = re.compile(
    rf"<msup>(?P<base><(?P<tag>mi|mn|mtext)\b[^>]*>[^<]*</(?P=tag)>)"
    rf"(?:(?P<one>{PRIME})|<mrow>(?P<more>(?:{PRIME})+)</mrow>)</msup>"
)
# An operator after which comes an operand, not another operator: a closing bracket or a prime.
OPERAND_END = ")\\]}⟩|‖′"
# A sign: + or − whose previous sibling is an operator other than those.
SIGN = re.compile(
    rf"(?P<before><mo\b[^>]*>[^<{OPERAND_END}]*</mo>)<mo(?P<attrs>(?![^>]*\blspace=)[^>]*)>(?P<sign>[+−])</mo>"
)
MATHML = "http://www.w3.org/1998/Math/MathML"
ET.register_namespace("", MATHML)  # written back as KaTeX wrote it: <math xmlns=...>, no prefixes
MATH = re.compile(r"<math\b.*</math>", re.S)
# the token elements, which hold text only
TOKENS = {f"{{{MATHML}}}{name}" for name in ("mi", "mo", "mn", "mtext", "ms")}
# the elements whose children after the first are scripts: sub- and superscripts, limits, labels
SCRIPTED = {f"{{{MATHML}}}{name}" for name in ("msub", "msup", "msubsup", "munder", "mover", "munderover")}
COMPOUND_ASSIGNMENT = re.compile(r"<mo>(?P<op>[+−])</mo><mo>=</mo>")
# A binary operator MathML's dictionary spaces by 3/18 em a side (×, ⋅, ∘, ⊙, ∗) where TeX gives
# every binary operator 4/18, as + and −: one between two operands, after anything but another
# operator (OPERAND_END counts as an operand's end) and before something.
THIN_BINARY = re.compile(rf"(?P<before></m(?!o>)\w+>|<mo\b[^>]*>[{OPERAND_END}]</mo>)<mo>(?P<op>[×⋅·∘⊙∗])</mo>(?!</)")
# U+2061, which KaTeX writes after a named function (log, tanh, mean), when no bracket follows it
NAMED_FUNCTION = re.compile(r"<mo>\u2061</mo>(?!<mo\b[^>]*>[(\[{|])")
HAT = re.compile(r'(?P<open><mover accent="true">(?:(?!</?mover).)*<mo\b)(?P<attrs>[^>]*)>\^</mo></mover>', re.S)
# The columnalign values, each as a `text-align`. A cell's content is block-level math, which
# Chromium places by the -webkit- values only (`right` leaves it at the left); Firefox and Safari
# read them too.
ALIGN = ("left", "center", "right")
# TeX's (and KaTeX's) strut for a row of an array: every row at least 1.2em from top to bottom,
# 0.84em of it above the baseline, however short its content.
STRUT = '<mspace height="0.84em" depth="0.36em"></mspace>'
TABLE_TAG = re.compile(r"<(?P<end>/?)(?P<name>mtable|mtr|mtd)\b(?P<attrs>[^>]*)>")
LENGTH = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:em|ex)")


def not_in_mathml_core(mathml: str) -> str | None:
    """The first element or attribute of `mathml` that browsers do not draw as KaTeX means it, or None."""
    found = NOT_IN_CORE.search(mathml)
    return found[found.lastgroup] if found and found.lastgroup else None


def _values(attrs: str, name: str, default: str) -> list[str]:
    found = re.search(rf'\b{name}="([^"]*)"', attrs)
    return (found[1] if found else default).split()


def _nth(values: list[str], k: int) -> str:
    """MathML's rule for lists of column or row values: the last one repeats."""
    return values[min(k, len(values) - 1)]


@dataclass
class _Table:
    """An open <mtable>: what its attributes ask for, and the cell last seen."""

    align: list[str]
    column_spacing: list[str]
    row_spacing: list[str]
    row: int = -1
    column: int = -1

    def cell_style(self) -> str:
        above = _nth(self.row_spacing, self.row - 1) if self.row else "0"
        before = _nth(self.column_spacing, self.column - 1) if self.column else "0"
        align = _nth(self.align, self.column)
        return f"text-align:-webkit-{align};padding:{above} 0 0 {before}"


def lay_out_tables(mathml: str) -> str:
    """Give every cell of every <mtable> the alignment and spacing its table's attributes ask for.

    MathML Core centres every cell and pads it the same; KaTeX's `aligned` asks for columns right and
    left (the = signs line up) with no space between them. Each cell gets that as CSS instead: its
    place from `columnalign` (see ALIGN), a left padding of the `columnspacing` before its column
    and a top padding of the `rowspacing` above its row (none before the first column or row); and
    a strut (see STRUT), or the rows of a matrix would all but touch.
    """
    out: list[str] = []
    tables: list[_Table] = []  # one per open <mtable>: a table in a cell is laid out by its own attributes
    done = 0
    for tag in TABLE_TAG.finditer(mathml):
        name, attrs = tag["name"], tag["attrs"]
        if tag["end"]:
            if name == "mtable":
                tables.pop()
        elif name == "mtable":
            table = _Table(
                align=_values(attrs, "columnalign", "center"),
                column_spacing=_values(attrs, "columnspacing", "0.8em"),
                row_spacing=_values(attrs, "rowspacing", "1.0ex"),
            )
            if unknown := set(table.align) - set(ALIGN):
                raise PluginError(f"{HOOK}: a table's columnalign {sorted(unknown)} is not left, center or right")
            for length in table.column_spacing + table.row_spacing:
                if not LENGTH.fullmatch(length):
                    raise PluginError(f"{HOOK}: a table's spacing {length!r} is not a length in em or ex")
            tables.append(table)
        elif name == "mtr":
            tables[-1].row += 1
            tables[-1].column = -1
        else:  # <mtd>
            if "style=" in attrs:
                raise PluginError(f"{HOOK}: a table cell already has a style: {tag[0]}")
            tables[-1].column += 1
            out.append(mathml[done : tag.start()])
            out.append(f'<mtd{attrs} style="{tables[-1].cell_style()}">{STRUT}')
            done = tag.end()
    return "".join(out) + mathml[done:]


def primes_on_the_line(mathml: str) -> str:
    """f′, f′′: each prime of a one-token base beside it, not in a superscript (see SUPERSCRIPT_PRIMES)."""
    return SUPERSCRIPT_PRIMES.sub(lambda m: f"<mrow>{m['base']}{m['one'] or m['more']}</mrow>", mathml)


def operator_spacing(mathml: str) -> str:
    """The spacing TeX gives an operator by its neighbours, which MathML's operator dictionary does not.

    A + or − right after another operator (=, an opening bracket, a comma) is a sign, not an
    operation: no space on either side (`= −6`, `(−22)`). `+=` is one operator, as in the code.
    A named function before anything but a bracket gets a thin space after it (`log p`, not `logp`;
    `tanh(x)` stays as it is). A × or ⋅ between two operands is spaced as + is, as TeX spaces them.
    """
    mathml = THIN_BINARY.sub(r'\g<before><mo lspace="0.2222em" rspace="0.2222em">\g<op></mo>', mathml)
    mathml = SIGN.sub(lambda m: f'{m["before"]}<mo lspace="0em" rspace="0em"{m["attrs"]}>{m["sign"]}</mo>', mathml)
    mathml = COMPOUND_ASSIGNMENT.sub(r'<mo rspace="0em">\g<op></mo><mo lspace="0em">=</mo>', mathml)
    return NAMED_FUNCTION.sub('<mo rspace="0.1667em">\u2061</mo>', mathml)


def _in_math(*rewrites: Callable[[ET.Element], None]) -> Callable[[str], str]:
    """Rewrites of the <math> tree, applied in turn to each <math> of a string of HTML (parsed once)."""

    def apply(mathml: str) -> str:
        def one(found: re.Match) -> str:
            math = ET.fromstring(found[0])
            for rewrite in rewrites:
                rewrite(math)
            return ET.tostring(math, encoding="unicode")

        return MATH.sub(one, mathml)

    return apply


def _unwrap_tokens(math: ET.Element) -> None:
    while found := next(((p, k, c) for p in math.iter() for k, c in enumerate(p) if c.tag in TOKENS and len(c)), None):
        parent, k, token = found
        if (token.text or "").strip() or any((c.tail or "").strip() for c in token):
            raise ET.ParseError(f"a <{token.tag.split('}')[1]}> holds both text and elements")
        # one element in its place, so that a <munder> keeps its two children: an <mrow> of several
        parent.remove(token)
        if len(token) == 1:
            parent.insert(k, token[0])
        else:
            row = ET.Element(f"{{{MATHML}}}mrow")
            row.extend(token)
            parent.insert(k, row)


def unwrap_tokens(mathml: str) -> str:
    """Markup inside a token element (<mi>, <mo>, <mn>, <mtext>) in its place.

    KaTeX writes \\underset{label}{term} as <mi><munder><mo><mfrac>...: a token holds only text in
    MathML, and the browser draws whatever is inside as a line of letters. Unwrapped, it is the
    <munder> with the fraction over its label, as KaTeX meant.
    """
    return _in_math(_unwrap_tokens)(mathml)


def _without_source(math: ET.Element) -> None:
    for semantics in math.findall(f"{{{MATHML}}}semantics"):
        drawn = [c for c in semantics if c.tag != f"{{{MATHML}}}annotation"]
        # <math> lays out its children as one row: a single <mrow> inside it is one element too many
        if len(drawn) == 1 and drawn[0].tag == f"{{{MATHML}}}mrow":
            drawn = list(drawn[0])
        k = list(math).index(semantics)
        math.remove(semantics)
        math[k:k] = drawn


def without_source(mathml: str) -> str:
    """Each formula without the TeX KaTeX keeps beside it, and without the wrappers that hold it.

    KaTeX writes <math><semantics><mrow>...</mrow><annotation encoding="application/x-tex">...
    The browser draws the <mrow> and nothing else: the TeX is never shown, and a screen reader
    reads the MathML. That is three elements per formula that only cost the page time to style.
    """
    return _in_math(_without_source)(mathml)


def _script_spacing(math: ET.Element) -> None:
    for parent in math.iter():
        if parent.tag in SCRIPTED:
            for script in list(parent)[1:]:
                for mo in script.iter(f"{{{MATHML}}}mo"):
                    if "lspace" not in mo.attrib and "rspace" not in mo.attrib:
                        mo.set("lspace", "0em")
                        mo.set("rspace", "0em")


def script_spacing(mathml: str) -> str:
    """No space around an operator in a script, as TeX sets them: X^{n-1}, p_{t,j}.

    MathML Core spaces an operator the same at every size; TeX drops the space around a sign, a
    relation or a comma in a sub- or superscript. Every <mo> in a script without a spacing of its
    own gets none.
    """
    return _in_math(_script_spacing)(mathml)


def accents(mathml: str) -> str:
    """\\hat's accent as the circumflex accent U+0302, which the math font sizes to the letter.

    KaTeX writes ASCII's ^, a tall caret the font draws at its own height; the spacing circumflex ˆ
    comes out on top of the letter, and U+0302 at its own size has no width, so it lands left of
    the letter. Stretched (the default for an accent), the font gives it the letter's width and the
    browser centres it above the letter.
    """
    return HAT.sub(lambda m: f"{m['open']}{m['attrs']}>\u0302</mo></mover>", mathml)


def as_katex_meant(mathml: str) -> str:
    """KaTeX's MathML, with what MathML Core would draw otherwise than KaTeX means put right."""
    # the rewrites of the tree first, in one parse of the formula; then those of its text
    for step in (
        _in_math(_without_source, _unwrap_tokens, _script_spacing),
        lay_out_tables,
        primes_on_the_line,
        operator_spacing,
        accents,
    ):
        mathml = step(mathml)
    return mathml


class KaTeX:
    """One Node process running KaTeX for the whole build: a batch of formulas is one line of JSON each way.

    Each formula's result (its MathML as the page shows it, or what is wrong with it) is kept, so a
    formula used on several pages, or again by `mkdocs serve`, is typeset once."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.done: dict[tuple[str, bool], tuple[str | None, str | None]] = {}  # -> (mathml, problem)

    def start(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            node = shutil.which("node")
            if node is None:
                raise PluginError("KaTeX needs Node.js to typeset the math: install node (the one `npm ci` uses)")
            command = [node, "-e", RENDER_JS, str(KATEX)]
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            atexit.register(self.process.kill)
        return self.process

    def typeset(self, items: list[tuple[str, bool]]) -> list[tuple[str | None, str | None]]:
        todo = [item for item in dict.fromkeys(items) if item not in self.done]
        if todo:
            process = self.start()
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(todo) + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
            if not line:
                raise PluginError(f"{HOOK}: KaTeX stopped (run `npm ci`?)")
            for item, result in zip(todo, json.loads(line)):
                self.done[item] = checked(item[0], result)
        return [self.done[item] for item in items]


def checked(tex: str, result: dict) -> tuple[str | None, str | None]:
    """(MathML as the page shows it, None), or (None, what is wrong) for one of KaTeX's results."""
    if "error" in result:
        return None, f"cannot typeset `{tex}`: {result['error']}"
    if (piece := not_in_mathml_core(result["html"])) is not None:
        return None, f"`{tex}` needs {piece!r}, which browsers do not draw as KaTeX means it"
    try:
        return as_katex_meant(result["html"]), None
    except ET.ParseError as e:  # KaTeX's MathML is XML; a formula it is not could not be rewritten
        return None, f"`{tex}`: KaTeX's MathML is not well-formed XML ({e})"


KATEX_PROCESS = KaTeX()
USED: set[str] = set()  # every character the site's formulas draw


def typeset(items: list[tuple[str, bool]], where: str) -> list[str]:
    """The MathML of each (TeX, display?); any formula that cannot be shown as written fails the build."""
    results = KATEX_PROCESS.typeset(items)
    problems = [f"{where}: {problem}" for _, problem in results if problem]
    if problems:
        raise PluginError(f"{HOOK}: " + "; ".join(problems))
    out = [mathml for mathml, _ in results if mathml is not None]
    for mathml in out:
        USED.update(math_font.characters(mathml))
    return out


def as_text(mathml: str) -> str:
    """A formula as plain text, for a table-of-contents entry."""
    mathml = DIGIT_SUPERSCRIPT.sub(lambda m: m["base"] + m["power"].translate(SUPERSCRIPTS), mathml)
    return html.unescape(re.sub(r"<[^>]+>", "", mathml))


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

    page = "?"  # the page being converted (docs/hooks/formulas.py sets it), for the error messages
    count = 0  # how many formulas the page last converted has

    def run(self, root: ET.Element) -> None:
        assert self.md is not None  # registered by MathExtension, with its Markdown
        stash = self.md.htmlStash
        found = [(parent, el) for parent in root.iter() for el in parent if el.get("class") == "arithmatex"]
        items = []
        for _, el in found:
            m = WRAPPED.fullmatch(el.text or "")
            if m is None:
                raise PluginError(f"{HOOK}: {self.page}: arithmatex wrote {el.text!r}; has its output changed?")
            items.append((m["inline"], False) if m["inline"] is not None else (html.unescape(m["display"]), True))
        typeset_found = typeset(items, self.page)
        for (_, el), mathml in zip(found, typeset_found):
            el.text = as_text(mathml)
        with_math = (h for h in root.iter() if h.tag in HEADINGS and h.find(".//*[@class='arithmatex']") is not None)
        for heading in with_math:
            heading.set("data-toc-label", "".join(heading.itertext()))  # the toc extension reads it, then drops it
        for (parent, el), mathml in zip(found, typeset_found):
            el.text = stash.store(mathml)
            if el.tag == "span":
                keep_punctuation_on_the_line(parent, el)
        TypesetMath.count = len(found)


class MathExtension(Extension):
    def extendMarkdown(self, md) -> None:
        # after the inline patterns (priority 20, where arithmatex finds inline formulas), before the
        # table of contents (5), so that a heading's formula is typeset there too
        md.treeprocessors.register(TypesetMath(md), "mg-typeset-math", 15)
