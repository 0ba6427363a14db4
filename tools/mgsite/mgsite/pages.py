"""Which page a Markdown instance is converting, and its source.

The extension needs the page's file: its true line numbers (for embeds and for errors), its front
matter (unchecked_numbers). Zensical gives every Markdown instance the page through its context
extension (`zensical.extensions.context.ContextPreprocessor.from_markdown(md).page.path`, a path under
docs_dir). MkDocs gives an extension no page; it converts the page's text after its front matter, so
the page is the one file under docs_dir whose text ends with that Markdown. Text that is no page's (a
notebook's Markdown cell, which mkdocs-jupyter converts with the site's extensions) gets the page-free
steps only: formulas and graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from markdown import Markdown


@dataclass(frozen=True)
class Source:
    """A page's file: its name under docs/ (as errors name it), its whole text, and its front matter."""

    name: str  # "docs/index.md"
    text: str
    meta: dict[str, Any]

    def offset(self, markdown: str) -> int:
        """How many lines of the file come before `markdown` (the front matter the generator took off)."""
        return self.text[: len(self.text) - len(markdown)].count("\n")

    def line_of(self, text: str) -> int:
        """The first line of the file that contains text (1 when none does), for an error message."""
        first = text.strip().split("\n")[0]
        return next((n for n, line in enumerate(self.text.split("\n"), 1) if first and first in line), 1)


def front_matter(text: str) -> dict[str, Any]:
    """The YAML front matter of a page (--- ... --- on its first lines), or {}."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return {}
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), 0)
    meta = yaml.safe_load("\n".join(lines[1:end])) if end else None
    return meta if isinstance(meta, dict) else {}


def zensical_page(md: Markdown) -> str | None:
    """The page Zensical's context extension gives this Markdown instance (a path under docs_dir), if any."""
    try:
        from zensical.extensions.context import ContextPreprocessor
    except ImportError:
        return None
    context = ContextPreprocessor.from_markdown(md)
    return str(context.page.path) if context is not None else None


def find(md: Markdown, markdown: str, root: Path, docs_dir: str) -> Source | None:
    """The page `markdown` is (see the top of this file), or None for text that is no page's."""
    docs = root / docs_dir
    named = zensical_page(md)
    candidates = [docs / named] if named else sorted(docs.rglob("*.md"))
    found = []
    for path in candidates:
        if path.suffix != ".md" or not path.is_file() or {"vendor", "dist"} & set(path.relative_to(docs).parts):
            continue
        text = path.read_text(encoding="utf-8")
        if text.endswith(markdown.rstrip("\n")) or text.endswith(markdown) or named:
            found.append(Source(f"{docs_dir}/{path.relative_to(docs).as_posix()}", text, front_matter(text)))
    return found[0] if len(found) == 1 else None
