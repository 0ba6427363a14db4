"""Build step for code blocks: what the tests run is what the site shows, and the site says so.

Every page is read with blocks.parse (the same reading `pytest --codeblocks` uses); what it cannot
read (an embed of something missing, a fence never closed) fails the build with the page and line.
The rules a page must also follow are the tests' (tests/page_rules.py), and so is the check that
the built page shows exactly the blocks that were read. Then `edit` changes these lines of the Markdown
the generator gave (never the file), and keeps every other as it was:

- each python block gets the run metadata the in-browser runner reads: data-mg-run="<n>",
  data-mg-cont="cont", data-mg-needs="torch"; its checked output gets data-mg-expected="<n>";
- an embed (--8<-- "microgpt/file.py:NAME", a definition found by name) becomes the same snippet by
  line numbers (--8<-- "microgpt/file.py:A:B"), with the title "file — lines A–B", a gutter starting
  at A, and the statement its fence's mg-highlight="TEXT" names highlighted;
- each marker is followed by a visible label, so the reader sees what the tests do; a block that needs
  a package the in-browser Python lacks (blocks.NEEDS) also gets a sentence saying why it has no Run
  button and how to run it (the one place those words and the packages' names are written).

A page's unchecked_numbers (front matter) are for the tests and the authors, never shown.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from mgsite import blocks
from mgsite.errors import PageError
from mgsite.pages import Source

LABELS = {  # marker -> (CSS modifier, visible text); docs/stylesheets/extra.css styles .mg-mark--<modifier>
    "cont": ("cont", "Continues the block above"),
    "expected-output": ("output", "Checked output"),
}


def edit(source: Source, lines: list[str], root: Path) -> list[str]:
    """The lines of the page's Markdown the generator gave, each block given its attributes, label and embed by
    line number (see the top of this file); every other line as it was."""
    parsed = blocks.parse(source.text, source.name, root)
    if parsed.problems:
        raise PageError("\n".join(parsed.problems))
    page = source.name.removeprefix("docs/")
    edits: dict[int, list[str]] = {}  # a line of the file (1-based) -> the lines that stand for it
    for fence in parsed.fences:
        if attributes(fence):
            edits[fence.line] = [f"{fence.indent}{fence.ticks} {{{attributes(fence)}}}"]
        if fence.embed:
            edits[fence.line + 1] = [fence.indent + fence.embed.snippet]
        for marker in fence.markers:
            kind, text = LABELS.get(marker.kind, (None, ""))
            note: list[str] = []
            if marker.kind == "needs":
                kind = "torch" if marker.arg == "torch" else "needs"
                text, sentence = needs_label(marker.arg, page)
                note = ["", fence.indent + sentence, fence.indent + "{: .mg-needs }"]
            if text:
                label = f'<span class="mg-mark mg-mark--{kind}" data-mark="{kind}">{text}</span>'
                # a paragraph of its own renders alike at top level, in tabs, admonitions and lists
                paragraph = ["", fence.indent + label, fence.indent + "{: .mg-marks }", ""]
                edits[marker.line] = [parsed.lines[marker.line - 1], *note, *paragraph]
    first = source.start("\n".join(lines)) + 1  # the file's line the generator's first line is (after front matter)
    return [new for n, line in enumerate(lines, first) for new in edits.get(n, [line])]


def needs_label(module: str, page: str) -> tuple[str, str]:
    """The label over a block that needs a package the browser's Python lacks, and the sentence before it."""
    name = blocks.NEEDS[module]
    home = posixpath.relpath("index.md", posixpath.dirname(page) or ".")
    note = f"To run it, copy it into Python on your computer, with {name} and [microgpt]({home}#install) installed."
    return f"Needs {name}: run it on your computer", note


def attributes(fence: blocks.Fence) -> str:
    """The attribute list superfences puts on the block's <div class="highlight">."""
    if fence.expected_for is not None:
        return f'.text data-mg-expected="{fence.expected_for}"'
    if fence.run is None:
        return ""
    # a value, not a bare name: Markdown 3.11.3's attribute lists write a bare name's value as "None".
    # A block that continues others gets no copy button from the theme (.no-copy, Material's documented
    # per-block switch): the Run bar's own Copy button copies its whole chain (docs/javascripts/run/copy.js).
    out = f'.python data-mg-run="{fence.run}"' + (' .no-copy data-mg-cont="cont"' if fence.cont else "")
    out += f' data-mg-needs="{fence.needs}"' if fence.needs else ""
    if fence.embed:
        out += f' title="{fence.embed.title}" linenums="{fence.embed.numbers[0]}"'
        # a run of it defines names and prints nothing: the Run bar says so (docs/javascripts/run/result.js)
        out += f' data-mg-defines="{fence.defines}"' if fence.defines else ""
        out += f' hl_lines="{" ".join(map(str, fence.highlight))}"' if fence.highlight else ""
    return out
