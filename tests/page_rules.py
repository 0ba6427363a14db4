"""The rules a Markdown page of the site follows, beyond what tools/mgsite/mgsite/blocks.py needs to read it.

Each rule keeps a block from being shown and not run, run and not shown, or run differently in the
tests, on the site and in the reader's browser. `check()` gives every problem of a page as
"page:line: message": what mdblocks.parse() could not read, then what breaks a rule here. The tests
hold every page and README.md to them (tests/site/test_site_pages.py), and `pytest --codeblocks` refuses
to run a page that breaks one (tests/page_blocks.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from mgsite import blocks as mdblocks

LANGUAGES = {"python", "text", "console", "json", "yaml", "toml", "html", "css", "javascript", "latex", "diff"}
ALLOWED_MARKERS = {"python": {"cont", "needs"}, "text": {"expected-output"}}

# pymdownx.snippets 10.x/13.x, verbatim (tests/site/test_site_pages.py checks they still equal its own):
# any line matching either is taken by snippets, whether it is prose, code or a comment.
SNIPPET_LINE = re.compile(
    r"""(?x)
    ^(?P<space>[ \t]*)
    (?P<escape>;*)
    (?P<all>
        (?P<inline_marker>-{1,}8<-{1,}[ \t]+)
        (?P<snippet>(?:"(?:\\"|[^"\n\r])+?"|'(?:\\'|[^'\n\r])+?'))(?![ \t]) |
        (?P<block_marker>-{1,}8<-{1,})(?![ \t])
    )\r?$
    """
)
SECTION_MARKER = re.compile(
    r"""(?xi)
    ^(?P<pre>.*?)
    (?<!;)(?!(?<=-)-)
    (?P<escape>;*)
    (?P<inline_marker>-{1,}8<-{1,}[ \t]+)
    (?P<section>\[[ \t]*(?P<type>start|end)[ \t]*:[ \t]*(?P<name>[a-z][-_0-9a-z]*)[ \t]*\])
    (?P<post>.*?)$
    """
)


def snippet_notation(line: str) -> bool:
    """Would pymdownx.snippets act on this line (paste a file, or drop it as a section marker)?"""
    if "8<-" not in line:
        return False
    m = SNIPPET_LINE.match(line)
    if m:
        return not m.group("escape")
    m = SECTION_MARKER.match(line)
    return bool(m and not m.group("escape"))


def check(text: str, path: str = "page.md", root: Path | None = None) -> list[str]:
    """Every problem of a page: what the reader could not read, then every rule it breaks."""
    page = mdblocks.parse(text, path, root)
    return page.problems + problems(page)


def problems(page: mdblocks.Page) -> list[str]:
    found: list[str] = []

    def say(n: int, msg: str) -> None:
        found.append(f"{page.path}:{n}: {msg}")

    _fences(page, say)
    _markers(page, say)
    _chains(page, say)
    embeds = {
        fence.line + 1
        for fence in page.fences
        if fence.info == "python" and len(fence.body) == 1 and mdblocks.EMBED.match(fence.body[0].strip())
    } | {  # the install line mgsite.prepare writes, first in a console block
        fence.line + 1
        for fence in page.fences
        if fence.info == "console" and fence.body and fence.body[0].strip() == mdblocks.INSTALL_EMBED
    }
    for n, line in enumerate(page.lines, 1):
        if snippet_notation(line) and n not in embeds:
            say(
                n,
                "snippet notation outside an embed: pymdownx.snippets would paste a file here or drop the "
                "line; in prose write ;--8<-- (the site shows --8<--)",
            )
    return found


def _fences(page: mdblocks.Page, say) -> None:
    """Backtick fences of a known language; no output-looking text that nobody checks."""
    previous = None
    for fence in page.fences:
        if fence.ticks[0] == "~":
            say(fence.line, "a ~~~ fence: write ``` (the tests and the site read only backtick fences here)")
        elif fence.info not in LANGUAGES:
            hint = " — a Python block is written exactly ```python" if "py" in fence.info.lower() else ""
            say(fence.line, f"fence language {fence.info!r} is not one of {sorted(LANGUAGES)}{hint}")
        if fence.info == "text" and fence.expected_for is None and previous is not None and previous.run is not None:
            if not any(line.strip() for line in page.lines[previous.end : fence.line - 1]):
                say(
                    fence.line,
                    "a text fence right under a python block looks like its output but is not "
                    "checked: put <!--pytest-codeblocks:expected-output--> above it",
                )
        previous = fence


def _markers(page: mdblocks.Page, say) -> None:
    """Each marker above a fence it applies to, once, and meaning what the runner will do with it."""
    for fence in page.fences:
        kinds = [m.kind for m in fence.markers]
        for marker in fence.markers:
            if marker.kind not in ALLOWED_MARKERS.get(fence.info, set()):
                say(marker.line, f"marker {marker.kind} cannot stand above a {fence.info or 'plain'} fence")
            if marker.kind == "needs" and marker.arg not in mdblocks.NEEDS:
                say(marker.line, f"importorskip({marker.arg}): a block may need only {sorted(mdblocks.NEEDS)}")
        if len(set(kinds)) != len(kinds):
            say(fence.line, "a marker given twice")
        if fence.run is not None and "cont" in kinds:
            continued = page.blocks[fence.run - 1] if fence.run else None
            if continued is None:
                say(fence.line, "a cont block with no python block before it on the page")
            elif continued.expected is not None:
                say(
                    fence.line,
                    "this block continues a chain whose output was already checked above; "
                    "put the expected output after the chain's last block",
                )
            if "needs" in kinds:
                say(fence.line, "importorskip on a cont block: put it on the first block of the chain")
        if "expected-output" in kinds and fence.info == "text" and fence.expected_for is None:
            say(fence.line, "an expected output must directly follow a python block (no fence between)")


def _chains(page: mdblocks.Page, say) -> None:
    """Each chain parses, says what it needs that the browser lacks, and does not hide under __main__."""
    for chain in page.chains():
        try:
            tree = ast.parse("".join(block.code for block in chain))
        except SyntaxError as error:
            say(chain[0].line, f"the block does not parse as Python: {error.msg} (line {error.lineno} of its code)")
            continue
        imported: set[str] = set()  # top-level packages the chain imports
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module.split(".")[0])
        for module in sorted((imported & mdblocks.NEEDS.keys()) - {chain[0].needs}):
            say(
                chain[0].line,
                f"the block imports {module}, which the Python in a reader's browser does not have: "
                f"put <!--pytest-codeblocks:importorskip({module})--> above the chain's first block",
            )
