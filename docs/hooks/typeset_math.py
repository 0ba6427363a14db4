"""Typeset every formula with KaTeX while the site is built, at the Markdown stage.

pymdownx.arithmatex (generic mode) leaves each formula of a page in an element with class
"arithmatex" holding `\\(...\\)` or `\\[...\\]`. `TypesetMath`, a Python-Markdown tree processor
added to the site's Markdown by `on_config`, puts KaTeX's rendering in each, through Markdown's
store of raw HTML. KaTeX writes its standard output: spans laid out by its own stylesheet and fonts
(served under vendor/katex/ by docs/hooks/vendor.py; overrides/main.html links them on a page with
math), with the formula as MathML beside them for screen readers. The formulas of a page go to
KaTeX in one batch, to one Node process for the whole build, so a page carries finished math: no
KaTeX script, no layout shift. A formula KaTeX cannot parse fails the build with the page and the
TeX. An inline formula keeps the punctuation that touches it on its line ("$d = 10$, then" must not
break before its comma), and a heading's formula is plain text in the table of contents and its id.
"""

from __future__ import annotations

import atexit
import html
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from markdown import Extension
from markdown.extensions.toc import slugify
from markdown.treeprocessors import Treeprocessor
from mkdocs.exceptions import PluginError

KATEX = Path(__file__).resolve().parents[2] / "node_modules" / "katex"
WRAPPED = re.compile(r"\\\((?P<inline>.*)\\\)|\\\[(?P<display>.*)\\\]", re.S)  # the display TeX HTML-escaped
OPENING, CLOSING = re.compile(r"[(\[“‘]$"), re.compile(r"^[,.;:!?)\]”’]+")  # punctuation before, after
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
# a formula as text (for a table-of-contents entry): its MathML's characters, x^2 as x²
MATHML_TEXT = re.compile(r"<math\b.*?<semantics>(.*?)<annotation\b", re.S)
DIGIT_POWER = re.compile(r"<msup>((?:(?!</?msup).)*?)<mn>(\d+)</mn></msup>", re.S)
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")

# Reads one JSON array [[tex, display], ...] per line, writes one [{"html": ...} or {"error": ...}, ...].
RENDER_JS = """
const katex = require(process.argv[1]);
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const out = JSON.parse(line).map(([tex, displayMode]) => {
    try {
      return { html: katex.renderToString(tex, { displayMode, throwOnError: true, strict: "error" }) };
    } catch (e) {
      return { error: e.message };
    }
  });
  process.stdout.write(JSON.stringify(out) + "\\n");
});
"""
_process: subprocess.Popen[str] | None = None
_done: dict[tuple[str, bool], dict[str, str]] = {}  # (tex, display) -> KaTeX's result, for the whole process


def typeset(items: list[tuple[str, bool]], where: str) -> list[str]:
    """KaTeX's HTML for each (TeX, display?); a formula it cannot typeset fails the build."""
    global _process
    todo = [item for item in dict.fromkeys(items) if item not in _done]
    if todo:
        if _process is None or _process.poll() is not None:
            if (node := shutil.which("node")) is None:
                raise PluginError("KaTeX needs Node.js to typeset the math: install node (the one `npm ci` uses)")
            _process = subprocess.Popen([node, "-e", RENDER_JS, str(KATEX)], stdin=-1, stdout=-1, text=True)
            atexit.register(_process.kill)
        assert _process.stdin is not None and _process.stdout is not None
        _process.stdin.write(json.dumps(todo) + "\n")
        _process.stdin.flush()
        if not (line := _process.stdout.readline()):
            raise PluginError("typeset_math.py: KaTeX stopped (run `npm ci`?)")
        _done.update(zip(todo, json.loads(line)))
    problems = [f"cannot typeset `{tex}`: {_done[tex, d]['error']}" for tex, d in items if "error" in _done[tex, d]]
    if problems:
        raise PluginError(f"typeset_math.py: {where}: " + "; ".join(problems))
    return [_done[item]["html"] for item in items]


def as_text(katex_html: str) -> str:
    mathml = "".join(MATHML_TEXT.findall(katex_html))
    mathml = DIGIT_POWER.sub(lambda m: m[1] + m[2].translate(SUPERSCRIPTS), mathml)
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
    rest, after_text = el.tail or "", after[0] if after else ""
    el.tail, box.tail = after_text or None, rest[len(after_text) :]
    parent.remove(el)
    box.append(el)
    parent.insert(k, box)


class TypesetMath(Treeprocessor):
    page = "?"  # the page being converted (on_page_markdown sets it), for the error messages

    def run(self, root: ET.Element) -> None:
        assert self.md is not None  # registered by MathExtension, with its Markdown
        found = [(parent, el) for parent in root.iter() for el in parent if el.get("class") == "arithmatex"]
        items = []
        for _, el in found:
            if (m := WRAPPED.fullmatch(el.text or "")) is None:
                raise PluginError(
                    f"typeset_math.py: {self.page}: arithmatex wrote {el.text!r}; has its output changed?"
                )
            items.append((m["inline"], False) if m["inline"] is not None else (html.unescape(m["display"]), True))
        typeset_found = typeset(items, self.page)
        for (_, el), katex_html in zip(found, typeset_found):
            el.text = as_text(katex_html)
        for heading in (
            h for h in root.iter() if h.tag in HEADINGS and h.find(".//*[@class='arithmatex']") is not None
        ):
            label = "".join(heading.itertext())  # the formula as text: toc's entry and the heading's id
            heading.set("data-toc-label", label)  # the toc extension reads it, then drops it
            heading.set("id", heading.get("id") or slugify(label, "-"))
        for (parent, el), katex_html in zip(found, typeset_found):
            el.text = self.md.htmlStash.store(katex_html)
            if el.tag == "span":
                keep_punctuation_on_the_line(parent, el)


class MathExtension(Extension):
    def extendMarkdown(self, md) -> None:
        # after the inline patterns (priority 20, where arithmatex finds inline formulas), before the
        # table of contents (5), so that a heading's formula is typeset there too
        md.treeprocessors.register(TypesetMath(md), "mg-typeset-math", 15)


def on_config(config):
    config.markdown_extensions.append(MathExtension())
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    TypesetMath.page = page.file.src_uri
    return markdown
