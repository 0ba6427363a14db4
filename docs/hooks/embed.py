"""Build step for code blocks: what the tests run is what the site shows, and the site says so.

Every page is read with mdblocks.parse (the same reading `pytest --codeblocks` uses); what it cannot
read (an embed of something missing, a fence never closed) fails the build with the page and line.
The rules a page must also follow are the tests' (tests/page_rules.py), and so is the check that
the built page shows exactly the blocks that were read. Then, in the in-memory Markdown only:

- each python block gets the run metadata the in-browser runner reads: data-mg-run="<n>",
  data-mg-cont="cont", data-mg-needs="torch"; its checked output gets data-mg-expected="<n>";
- an embed (--8<-- "microgpt/file.py:NAME", a definition found by name) becomes the same snippet by
  line numbers (--8<-- "microgpt/file.py:A:B"), with the title "file — lines A–B", a gutter starting
  at A, and the statement each <!--mg:highlight(TEXT)--> names highlighted;
- each marker is followed by a visible label, so the reader sees what the tests do; a block that needs
  a package the in-browser Python lacks (mdblocks.NEEDS) also gets a sentence saying why it has no Run
  button and how to run it (the one place those words and the packages' names are written);
- the page's unchecked_numbers (front matter) are listed at its end, with their reasons.
"""

from __future__ import annotations

import html
import posixpath
from pathlib import Path

import mdblocks
from mkdocs.exceptions import PluginError

LABELS = {  # marker -> (CSS modifier, visible text); docs/stylesheets/extra.css styles .mg-mark--<modifier>
    "cont": ("cont", "Continues the block above"),
    "expected-output": ("output", "Output (checked by the tests)"),
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    if not page.file.src_uri.endswith(".md"):
        return markdown
    source = Path(page.file.abs_src_path).read_text(encoding="utf-8")
    parsed = mdblocks.parse(source, f"docs/{page.file.src_uri}", Path(config["config_file_path"]).parent)
    if parsed.problems:
        raise PluginError("\n".join(parsed.problems))
    if not source.endswith(markdown):
        raise PluginError(f"{page.file.src_uri}: another plugin changed the Markdown before docs/hooks/embed.py")
    # what overrides/main.html gives the page styles for
    page.meta["mg_run"] = bool(parsed.blocks)
    page.meta["mg_widgets"] = 'class="autograd-' in markdown
    lines = parsed.lines[:]
    for fence in parsed.fences:
        if attributes(fence):
            lines[fence.line - 1] = f"{fence.indent}{fence.ticks} {{{attributes(fence)}}}"
        if fence.embed:
            lines[fence.line] = fence.indent + fence.embed.snippet
        for marker in fence.markers:
            kind, text = LABELS.get(marker.kind, (None, ""))
            note = ""
            if marker.kind == "needs":
                kind = "torch" if marker.arg == "torch" else "needs"
                text, note = needs_label(marker.arg, page.file.src_uri)
                note = f"\n\n{fence.indent}{note}\n{fence.indent}{{: .mg-needs }}"
            if text:
                label = f'<span class="mg-mark mg-mark--{kind}" data-mark="{kind}">{text}</span>'
                # a paragraph of its own renders alike at top level, in tabs, admonitions and lists
                lines[marker.line - 1] += f"{note}\n\n{fence.indent}{label}\n{fence.indent}{{: .mg-marks }}\n"
    start = len(lines) - markdown.count("\n") - 1  # mkdocs gave us the page without its front matter
    return "\n".join(lines[start:]) + unchecked_numbers_note(page.meta.get("unchecked_numbers"))


def needs_label(module: str, page: str) -> tuple[str, str]:
    """The label over a block that needs a package the browser's Python lacks, and the sentence before it."""
    name = mdblocks.NEEDS[module]
    home = posixpath.relpath("index.md", posixpath.dirname(page) or ".")
    note = (
        f"The Python that runs in this page has only microgpt and Python's standard library, so the block below"
        f" has no Run button: it needs {name}. Copy it into Python on your computer, with {name} and"
        f" [microgpt]({home}#install) installed; the site's tests run it with {name} on every change."
    )
    return f"Needs {name}: run it on your computer", note


def attributes(fence: mdblocks.Fence) -> str:
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
        out += f' hl_lines="{" ".join(map(str, fence.highlight))}"' if fence.highlight else ""
    return out


def unchecked_numbers_note(exempt) -> str:
    if not exempt:
        return ""
    items = "".join(f"\n    - **{html.escape(str(n))}**: {html.escape(str(why))}" for n, why in exempt.items())
    return f'\n\n??? note "Numbers on this page that no block computes"\n{items}\n'
