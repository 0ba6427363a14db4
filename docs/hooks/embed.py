"""Build-time step for embedded code and test markers (see CONTRIBUTING.md).

1. Embeds. A fence whose info string is exactly `python` and whose only line is
   `--8<-- "path:section"` gets the title `path — lines A–B` and a gutter with the true line
   number of every shown line. The numbers are computed from the file here, never typed:
   pymdownx.snippets drops the marker lines of nested sections, so the shown lines are not
   always consecutive, and after the page is rendered the gutter and line anchors are
   renumbered line by line (`on_page_content`).
2. Markers. pytest-codeblocks reads HTML comments such as
   `<!--pytest.mark.skip(reason="...")-->` from the .md source; they are invisible on the site.
   Each one is kept and followed by a visible label ("Not run: ...", "Continues the block
   above", ...), so the reader sees what the tests see.

Only the in-memory Markdown is changed; the .md files, which the tests read, are not.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from mkdocs.exceptions import PluginError
from pymdownx.snippets import SnippetPreprocessor

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
SNIPPET = re.compile(r"""^[ \t]*-+8<-+[ \t]+(?P<q>["'])(?P<target>.+?)(?P=q)[ \t]*$""")
NUMERIC_RANGE = re.compile(r":-?\d")
SECTION_TARGET = re.compile(r"^(?P<path>.+?)(?::(?P<section>[a-z][-_0-9a-z]*))?$", re.IGNORECASE)
MARK = re.compile(r"^(?P<indent>[ \t]*)<!--[-\s]*(?P<body>pytest-codeblocks:.*?|pytest\.mark\..*?)-->[ \t]*$")
SECTION_MARKER = SnippetPreprocessor.RE_SNIPPET_SECTION  # the same regex snippets uses
REASON = re.compile(r"""reason\s*=\s*(?P<q>["'])(?P<reason>.*?)(?P=q)""")

# The gutter link of one line, or the id/name/href of a line anchor or line span.
LINE_REF = re.compile(
    r'(?P<gutter><a href="#__codelineno-\d+-)(?P<g>\d+)">[ ]*\d+</a>'
    r"|(?P<ref>__(?:codelineno|span)-\d+-)(?P<n>\d+)"
)


@dataclass
class Embed:
    target: str  # as written on the page, e.g. "microgpt/engine.py:backward"
    path: str
    numbers: list[int]  # the file's line number of every shown line, in order

    @property
    def title(self) -> str:
        first, last = self.numbers[0], self.numbers[-1]
        where = f"line {first}" if first == last else f"lines {first}–{last}"
        return f"{self.path} — {where}"


def shown_line_numbers(file: Path, section: str | None) -> list[int]:
    """The 1-based line numbers of `file` that pymdownx.snippets shows for `section`.

    Mirrors SnippetPreprocessor.extract_section (and its section-marker regex): lines between
    the start and end markers of `section`, without the marker lines of other sections.
    """
    lines = file.read_text(encoding="utf-8").split("\n")

    def marker(line):
        m = SECTION_MARKER.match(line) if "8<-" in line else None
        return m if m and not m.group("escape") else None

    numbers = []
    if section is None:  # whole file: section markers are dropped, the final newline adds no line
        if lines and lines[-1] == "":
            lines.pop()
        return [i for i, line in enumerate(lines, 1) if not marker(line)]
    inside = found = False
    for i, line in enumerate(lines, 1):
        m = marker(line)
        if m:
            if m.group("name") == section:
                if m.group("type") == "start":
                    inside = found = True
                    continue
                break  # its end (or an end before any start, which snippets also stops at)
            if inside:
                continue  # a nested section's marker: snippets drops it
        if inside:
            numbers.append(i)
    if not found:
        raise PluginError(f"{file}: no section '{section}'")
    while numbers and not lines[numbers[-1] - 1].strip():
        numbers.pop()  # the highlighter does not show trailing blank lines
    while numbers and not lines[numbers[0] - 1].strip():
        numbers.pop(0)
    return numbers


def resolve(target: str, config) -> Embed:
    """The Embed for a snippet target such as "microgpt/engine.py:backward"."""
    m = SECTION_TARGET.match(target)
    assert m is not None  # the pattern matches every string
    path, section = m.group("path"), m.group("section")
    if NUMERIC_RANGE.search(path):
        raise PluginError(f'embed "{target}": use a named section, not line numbers (CONTRIBUTING.md)')
    config_dir = Path(config["config_file_path"]).parent
    file = config_dir / path
    if not file.is_file():
        raise PluginError(f'embed "{target}": no file {file}')
    numbers = shown_line_numbers(file, section)
    if not numbers:
        raise PluginError(f'embed "{target}": the section is empty')
    return Embed(target, path, numbers)


def mark_label(body: str) -> tuple[str, str] | None:
    """(kind, visible text) for a pytest-codeblocks marker comment, or None."""
    if body.startswith("pytest.mark."):
        reason_match = REASON.search(body)
        reason = reason_match.group("reason").strip() if reason_match else ""
        if body.startswith("pytest.mark.skipif"):
            return "skipif", f"Skipped on some machines: {reason}" if reason else "Skipped on some machines"
        if body.startswith("pytest.mark.skip"):
            return "skip", f"Not run: {reason}" if reason else "Not run"
        if body.startswith("pytest.mark.xfail"):
            return "xfail", f"Expected to fail: {reason}" if reason else "Expected to fail"
        return None
    keyword = body.split(":", 1)[1].strip("- ")
    if keyword == "cont":
        return "cont", "Continues the block above"
    if keyword.startswith("expected-output"):
        return "output", "Output (checked by the tests)"
    if keyword.startswith("importorskip"):
        module = keyword[len("importorskip") :].strip("() ")
        if module == "torch":
            return "torch", "Needs PyTorch (runs in CI)"
        return "needs", f"Needs {module}"
    return None


def transform(markdown: str, config) -> tuple[str, list[Embed]]:
    """Title and number the embeds, and add a visible label after each marker comment."""
    out: list[str] = []
    embeds: list[Embed] = []
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if fence:
            # find the closing fence; nothing inside a fence is an opener or a marker
            char, width = fence.group("fence")[0], len(fence.group("fence"))
            close = i + 1
            while close < len(lines):
                stripped = lines[close].strip()
                if stripped.startswith(char * width) and not stripped.strip(char):
                    break
                close += 1
            body = lines[i + 1 : close]
            snippet = SNIPPET.match(body[0]) if len(body) == 1 else None
            if fence.group("info") == "python" and snippet and char == "`":
                embed = resolve(snippet.group("target"), config)
                embeds.append(embed)
                title = embed.title.replace('"', "&quot;")
                line = f'{line} title="{title}" linenums="{embed.numbers[0]}"'
            out.append(line)
            out.extend(lines[i + 1 : close + 1])
            i = close + 1
            continue
        mark = MARK.match(line)
        label = mark_label(mark.group("body")) if mark else None
        out.append(line)
        if label and mark:
            kind, text = label
            indent = mark.group("indent")
            # an inline span in a paragraph of its own renders the same at the top level and
            # inside tabs, admonitions and lists (a raw <p> there would be wrapped in another <p>)
            label_html = f'<span class="mg-mark mg-mark--{kind}" data-mark="{kind}">{html.escape(text)}</span>'
            out += ["", indent + label_html, indent + "{: .mg-marks }", ""]
        i += 1
    return "\n".join(out), embeds


_embeds: dict[str, list[Embed]] = {}


def on_page_markdown(markdown: str, page, config, files) -> str:
    text, embeds = transform(markdown, config)
    _embeds[page.file.src_uri] = embeds
    return text


def renumber(block: str, numbers: list[int]) -> str:
    """Replace the consecutive numbers numbers[0], numbers[0]+1, ... in a block's gutter and anchors."""
    first = numbers[0]
    width = len(str(numbers[-1]))
    seen = set()

    def true_number(n: int) -> int:
        k = n - first
        if not 0 <= k < len(numbers):
            raise PluginError(f"line {n} of an embedded block is outside its {len(numbers)} lines")
        return numbers[k]

    def sub(m: re.Match) -> str:
        if m.group("gutter"):
            n = int(m.group("g"))
            seen.add(n)
            t = true_number(n)
            return f'{m.group("gutter")}{t}">{str(t).rjust(width)}</a>'
        return f"{m.group('ref')}{true_number(int(m.group('n')))}"

    block = LINE_REF.sub(sub, block)
    if len(seen) != len(numbers):
        raise PluginError(f"embedded block shows {len(seen)} numbered lines, the file section has {len(numbers)}")
    return block


def on_page_content(html_text: str, page, config, files) -> str:
    embeds = _embeds.pop(page.file.src_uri, [])
    pos = 0
    for embed in embeds:
        head = f'<span class="filename">{html.escape(embed.title, quote=False)}</span>'
        start = html_text.find(head, pos)
        if start < 0:
            raise PluginError(f"{page.file.src_uri}: embedded block {embed.target} not found in the rendered page")
        end = html_text.find("</table>", start)
        if end < 0:
            raise PluginError(f"{page.file.src_uri}: embedded block {embed.target} has no line-number table")
        block = renumber(html_text[start:end], embed.numbers)
        html_text = html_text[:start] + block + html_text[end:]
        pos = start + len(block)
    return html_text
