"""Make a notebook page (mkdocs-jupyter) look and behave like the site's other pages.

mkdocs-jupyter inlines JupyterLab's whole stylesheet (about 574 KB), MathJax and mermaid loaders
(mermaid from a CDN), a clipboard widget and a hidden copy of every cell's source into the page,
and marks every cell focusable. Here, for .ipynb pages only (`on_page_content`):

* every <style> and <script> of the notebook HTML goes; docs/stylesheets/notebook.css (a few
  rules, added by docs/hooks/page_assets.py) lays the cells out in the site's column;
* code cells become the site's code blocks (`div.language-python.highlight > pre > code`), so
  they get the theme's syntax colours, copy button and scrolling; text outputs become the
  site's output blocks, labelled as outputs;
* `$...$` and `$$...$$` in Markdown cells are typeset like every other formula, by
  docs/hooks/typeset_math.py's `typeset`;
* code cells tagged "solution" are wrapped in a closed <details> ("Solution"), so the reader
  tries the exercise first (in Jupyter the same cells are collapsed by their metadata);
* heading anchors get the theme's permalink class; cells are no longer tab stops;
* the table of contents shows each heading's whole text (mkdocs-jupyter drops inline code from
  it: "1. A `Value` remembers..." was listed as "1. A remembers...").
"""

from __future__ import annotations

import html
import re

import typeset_math
from mkdocs.exceptions import PluginError

STRIP = [
    re.compile(r"<(style|script)\b[^>]*>.*?</\1>", re.S),
    re.compile(r"<!--(?!\s*jp-Notebook|\s*jupyter-wrapper).*?-->", re.S),  # nbconvert's template comments
    re.compile(r'<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>', re.S),
    re.compile(r'<div class="clipboard-copy-txt"[^>]*>.*?</div>', re.S),
]
CODE = re.compile(
    r'<div class="highlight-ipynb hl-(?P<lang>[\w+-]+)"><pre>(?:<span></span>)?(?P<code>.*?)</pre></div>', re.S
)
TEXT_OUTPUT = re.compile(
    r'<div class="jp-RenderedText jp-OutputArea-output[^"]*" data-mime-type="(?P<mime>[^"]+)"[^>]*>'
    r"\s*<pre>(?P<text>.*?)</pre>\s*</div>",
    re.S,
)
MARKDOWN_CELL = re.compile(r'(<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown[^"]*"[^>]*>)(.*?)(</div>)', re.S)
CODE_SPAN = re.compile(r"(<(code|pre)\b.*?</\2>)", re.S)
DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
# a paragraph that is only a $$...$$ formula becomes a block, the box that scrolls when it is too wide
DISPLAY_PARAGRAPH = re.compile(r"<p>\s*\$\$((?:(?!\$\$|</?p\b).)+)\$\$\s*</p>", re.S)
INLINE_MATH = re.compile(r"(?<![\\$])\$(?=\S)([^$\n]+?)(?<=\S)\$(?!\d)")
TAB_STOP = re.compile(r'(<div class="jp-[^"]*")\s+tabindex="0"')
ANCHOR = re.compile(r'<a class="anchor-link" href="(#[^"]*)">¶</a>')
HEADING = re.compile(r'<h(?P<level>[1-6]) id="(?P<id>[^"]+)">(?P<body>.*?)</h(?P=level)>', re.S)
TAG = re.compile(r"<[^>]+>")
SOLUTION_CELL = re.compile(r"""<div class="[^"]*\bcelltag_solution\b[^"]*">""")
DIV_TAG = re.compile(r"<div\b|</div>")
SUMMARY = '<details class="notebook-solution"><summary>Solution: the code and its output</summary>'


def _code(m: re.Match) -> str:
    return f'<div class="language-{m["lang"]} highlight"><pre><span></span><code>{m["code"]}</code></pre></div>'


def _output(m: re.Match) -> str:
    stderr = m["mime"] == "application/vnd.jupyter.stderr"
    label = "Error output" if stderr else "Output"
    return (
        f'<p class="mg-marks"><span class="mg-mark mg-mark--nb-output">{label}</span></p>'
        f'<div class="language-text highlight"><pre><span></span><code>{m["text"]}</code></pre></div>'
    )


def _formula(tag: str, tex: str, display: bool, where: str) -> str:
    (mathml,) = typeset_math.typeset([(html.unescape(tex), display)], where)
    # a display formula in a block of its width, as docs/hooks/typeset_math.py writes it
    return f'<{tag} class="arithmatex">{f"<span>{mathml}</span>" if display else mathml}</{tag}>'


def _math_outside_code(text: str, where: str) -> str:
    parts = CODE_SPAN.split(text)
    out = []
    for k, part in enumerate(parts):
        if k % 3 == 0:  # prose between <code>/<pre> elements (split also returns the two groups)
            part = DISPLAY_PARAGRAPH.sub(lambda m: _formula("div", m[1], True, where), part)
            part = DISPLAY_MATH.sub(lambda m: _formula("span", m[1], True, where), part)
            part = INLINE_MATH.sub(lambda m: _formula("span", m[1], False, where), part)
            out.append(part)
        elif k % 3 == 1:
            out.append(part)
    return "".join(out)


def _end_of_div(html: str, start: int) -> int:
    """Index just past the </div> that closes the <div> opening at start."""
    depth = 0
    for tag in DIV_TAG.finditer(html, start):
        depth += 1 if tag.group() == "<div" else -1
        if depth == 0:
            return tag.end()
    raise ValueError("a solution cell's <div> is never closed")


def collapse_solutions(html: str) -> str:
    out, pos = [], 0
    while match := SOLUTION_CELL.search(html, pos):
        end = _end_of_div(html, match.start())
        out += [html[pos : match.start()], SUMMARY, html[match.start() : end], "</details>"]
        pos = end
    return "".join(out) + html[pos:]


def restyle(body: str, where: str = "notebook") -> str:
    for pattern in STRIP:
        body = pattern.sub("", body)
    body = CODE.sub(_code, body)
    body = TEXT_OUTPUT.sub(_output, body)
    body = MARKDOWN_CELL.sub(lambda m: m[1] + _math_outside_code(m[2], where) + m[3], body)
    body = TAB_STOP.sub(r"\1", body)
    body = collapse_solutions(body)
    return ANCHOR.sub(r'<a class="headerlink" href="\1" title="Permanent link">&para;</a>', body)


def retitle_toc(toc, body: str) -> None:
    """Give each table-of-contents entry the id and the text of its heading in `body`.

    mkdocs-jupyter makes the entries from the Markdown with its inline code left out ("A remembers
    how it was made" for "A `Value` remembers how it was made"), so an entry's id need not be its
    heading's. Entries and headings come in the same order; if their numbers differ, the build fails.
    """
    headings = []
    for m in HEADING.finditer(body):
        heading = re.sub(r'<a class="(?:anchor-link|headerlink)".*?</a>', "", m["body"], flags=re.S)
        headings.append((m["id"], TAG.sub("", heading).strip()))
    entries, stack = [], list(reversed(list(toc)))
    while stack:  # depth first, in document order
        item = stack.pop()
        entries.append(item)
        stack += reversed(item.children)
    if len(entries) != len(headings):
        raise PluginError(f"the notebook has {len(headings)} headings, its table of contents {len(entries)} entries")
    for item, (heading_id, text) in zip(entries, headings):
        item.id, item.title = heading_id, text


def on_page_content(content: str, page, config, files) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return content
    body = restyle(content, page.file.src_uri)
    retitle_toc(page.toc, body)
    page.meta["mg_math"] = 'class="arithmatex"' in body  # overrides/main.html: the math styles and font
    return body
