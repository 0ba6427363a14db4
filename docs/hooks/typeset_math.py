"""Typeset every formula with KaTeX while the site is built, so pages carry finished math.

pymdownx.arithmatex (generic mode) leaves `<span class="arithmatex">\\(...\\)</span>` and
`<div class="arithmatex">\\[...\\]</div>` in the HTML. Rendering them in the reader's browser costs
every math page KaTeX's 270 KB script, a long main-thread task and a visible jump when the TeX
turns into formulas. Here they are rendered once, by the KaTeX that `npm ci` installs, in one
Node process for the whole site (`on_env`, after every page is converted and before any is
written), and written into each page (`on_post_page`). A formula KaTeX cannot parse fails the
build with the page and the TeX. Formulas in the table of contents (`\\(...\\)` in headings) are
rendered the same way. The search index keeps the TeX (it is built from the unrendered page).

The stylesheet and fonts come from vendor/katex (docs/hooks/vendor.py); docs/hooks/page_assets.py
adds the stylesheet to the pages that have math.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent.parent
KATEX = ROOT / "node_modules" / "katex"
HOOK = Path(__file__).name

ARITHMATEX = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">(?P<open>\\\(|\\\[)(?P<tex>.*?)(?:\\\)|\\\])</(?P=tag)>', re.S
)
TOC_TEXT = re.compile(r'(?P<open><span class="md-ellipsis">)(?P<text>[^<]*?\\\(.*?)(?P<close></span>)', re.S)
INLINE = re.compile(r"\\\((?P<tex>.*?)\\\)", re.S)

# Reads [[tex, display], ...] as JSON on stdin, writes [{"html": ...} or {"error": ...}, ...].
RENDER_JS = """
const katex = require(process.argv[1]);
let input = "";
process.stdin.on("data", (d) => (input += d)).on("end", () => {
  const out = JSON.parse(input).map(([tex, displayMode]) => {
    try {
      return { html: katex.renderToString(tex, { displayMode, throwOnError: true, strict: "error" }) };
    } catch (e) {
      return { error: e.message };
    }
  });
  process.stdout.write(JSON.stringify(out));
});
"""

_wanted: dict[tuple[str, bool], set[str]] = {}  # (tex, display) -> pages that use it
_rendered: dict[tuple[str, bool], str] = {}


def formulas(content: str, toc) -> list[tuple[str, bool]]:
    """(TeX, display?) of every arithmatex element of a page and every \\(...\\) in its headings' titles."""
    found = [(html.unescape(m["tex"]), m["open"] == "\\[") for m in ARITHMATEX.finditer(content)]
    stack = list(toc)
    while stack:
        item = stack.pop()
        found += [(html.unescape(t["tex"]), False) for t in INLINE.finditer(item.title)]
        stack += item.children
    return found


def render_all(items: list[tuple[str, bool]]) -> list[dict]:
    node = shutil.which("node")
    if node is None:
        raise PluginError("KaTeX needs Node.js to typeset the math: install node (the one `npm ci` uses)")
    done = subprocess.run(
        [node, "-e", RENDER_JS, str(KATEX)],
        input=json.dumps(items),
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise PluginError(f"KaTeX failed: {done.stderr.strip().splitlines()[-1:]} (run `npm ci`?)")
    return json.loads(done.stdout)


def on_pre_build(config) -> None:
    _wanted.clear()
    _rendered.clear()


def on_page_content(content: str, page, config, files) -> str:
    for item in formulas(content, page.toc):
        _wanted.setdefault(item, set()).add(page.file.src_uri)
    return content


def on_env(env, config, files):
    items = sorted(_wanted)
    problems = []
    for item, result in zip(items, render_all(items)):
        if "error" in result:
            pages = ", ".join(sorted(_wanted[item]))
            problems.append(f"{pages}: cannot typeset `{item[0]}`: {result['error']}")
        else:
            _rendered[item] = result["html"]
    if problems:
        raise PluginError(f"{HOOK}: " + "; ".join(problems))
    return env


def _lookup(tex: str, display: bool) -> str:
    try:
        return _rendered[(html.unescape(tex), display)]
    except KeyError:  # a hook after this one added math to the page
        raise PluginError(
            f"{HOOK}: {tex!r} appeared after the pages were converted; list {HOOK} after the hook that adds it"
        ) from None


def _typeset(m: re.Match) -> str:
    display = m["open"] == "\\["
    return f'<{m["tag"]} class="arithmatex">{_lookup(m["tex"], display)}</{m["tag"]}>'


def _typeset_toc(m: re.Match) -> str:
    return m["open"] + INLINE.sub(lambda t: _lookup(t["tex"], False), m["text"]) + m["close"]


def on_post_page(output: str, page, config) -> str:
    output = ARITHMATEX.sub(_typeset, output)
    return TOC_TEXT.sub(_typeset_toc, output)
