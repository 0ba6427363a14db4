"""Which page a Markdown instance is converting: asked of the generator, at one seam.

The extension needs the page's file: its true line numbers (for embeds and for errors). Python-Markdown
has no notion of the file it converts, so each generator says it its own way, and `named()` asks each:

- MkDocs registers its relative-path tree processor (`relpath`) on each page's Markdown before it
  converts it; that processor's `file` is the page's File. Material's own `preview` extension reads it so
  (a "hack", its source says, that it relies on).
- Zensical gives each page's Markdown its context extension, whose preprocessor holds the page
  (`ContextPreprocessor.from_markdown(md).page.path`, a path under docs_dir); Zensical's `preview` reads it so.
- Python-Markdown alone (the tests) names none; the extension's `page` setting does (a path under docs_dir).

Two that name different files are an error naming both. What is then a page, by rule:

- a `.md` file: a page. The Markdown converted must be the end of its file (the generator takes off its
  front matter, nothing else), or the lines the build numbers and names would be wrong: an error names
  the page and the cause, as it does when no such file exists.
- any other file (the notebook, `.ipynb`, whose Markdown cells mkdocs-jupyter converts with the site's
  extensions) is no Markdown page: it gets the steps that need no page (formulas, graphs, self-checks), and
  an error names the file alone.
- no file named (Python-Markdown alone, without the `page` setting): text that is no page's, which gets
  those steps too.

An embed by name in text that is no page's is an error saying so (extension.PageBlocks): only a page's lines
can give it its numbers.

`PageContext`, the extension's first preprocessor, asks once per conversion; every later step of the
extension reaches the page through `current(md)`, as Zensical's own extensions reach its context.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.preprocessors import Preprocessor

from mgsite.errors import PageError

NAME = "mgsite-page"  # the PageContext's name among the Markdown's preprocessors


@dataclass(frozen=True)
class Source:
    """The file a Markdown instance converts: its name (as errors give it), which generator named it, and its
    text when it is a Markdown page ("" otherwise)."""

    name: str  # "docs/index.md"
    named_by: str  # "MkDocs", "Zensical" or "the page setting"
    text: str

    @property
    def is_page(self) -> bool:
        return self.name.endswith(".md")

    def start(self, markdown: str) -> int:
        """The index of the file's line where `markdown`, the Markdown the generator converts, begins."""
        text, given = self.text.rstrip("\n"), markdown.rstrip("\n")
        if not text.endswith(given):
            raise PageError(
                f"{self.name}: the Markdown {self.named_by} converts for this page is not the end of its file"
                " (has a plugin changed it?), so its lines cannot be numbered"
            )
        return text[: len(text) - len(given)].count("\n")

    def where(self, text: str) -> str:
        """The page and the first of its lines that contains text (its first line when none does), for an error;
        a file that is no Markdown page is named alone."""
        if not self.is_page:
            return self.name
        first = text.strip().split("\n")[0]
        line = next((n for n, line in enumerate(self.text.split("\n"), 1) if first and first in line), 1)
        return f"{self.name}:{line}"


def named(md: Markdown, root: Path, docs_dir: str, setting: str) -> dict[str, Path]:
    """The file each generator names for this Markdown instance (see the top of this file), by generator."""
    found: dict[str, Path] = {}
    if "relpath" in md.treeprocessors:
        relpath: Any = md.treeprocessors["relpath"]
        file = relpath.file  # a mkdocs.structure.files.File; a page made by a plugin may have no file on disk
        found["MkDocs"] = Path(file.abs_src_path) if file.abs_src_path else root / docs_dir / file.src_uri
    try:
        from zensical.extensions.context import ContextPreprocessor  # only where Zensical is installed
    except ImportError:
        pass
    else:
        if (context := ContextPreprocessor.from_markdown(md)) is not None:
            found["Zensical"] = root / docs_dir / context.page.path
    if setting:
        found["the page setting"] = root / docs_dir / setting
    return {who: path.resolve() for who, path in found.items()}


def find(md: Markdown, root: Path, docs_dir: str, setting: str) -> Source | None:
    """The file this Markdown instance converts (see the top of this file), or None for text that is no page's."""
    files = named(md, root, docs_dir, setting)
    if not files:
        return None
    names = {
        who: (path.relative_to(root) if path.is_relative_to(root) else path).as_posix() for who, path in files.items()
    }
    if len(set(files.values())) > 1:
        said = ", ".join(f"{who} names {name}" for who, name in names.items())
        raise PageError(f"which page is this? {said}")
    who, path = next(iter(files.items()))
    if path.suffix != ".md":
        return Source(names[who], who, "")
    if not path.is_file():
        raise PageError(f"{names[who]}: {who} names this page, and there is no such file")
    # as MkDocs reads a page: a byte-order mark is no text of it
    return Source(names[who], who, path.read_text(encoding="utf-8-sig"))


class PageContext(Preprocessor):
    """Asks the generator which page this conversion is, once, before any other step of the extension needs it.
    It changes no line."""

    def __init__(self, md: Markdown, root: Path, docs_dir: str, setting: str) -> None:
        super().__init__(md)
        self.root, self.docs_dir, self.setting = root, docs_dir, setting
        self.source: Source | None = None

    def run(self, lines: list[str]) -> list[str]:
        assert self.md is not None  # registered by the extension, with its Markdown
        self.source = find(self.md, self.root, self.docs_dir, self.setting)
        return lines


def current(md: Markdown) -> Source | None:
    """The file this Markdown instance is converting, as PageContext found it; None for text that is no page's."""
    context = md.preprocessors[NAME] if NAME in md.preprocessors else None
    return context.source if isinstance(context, PageContext) else None


def where(md: Markdown, text: str) -> str:
    """The page and line of text, for an error message (Source.where), or "?" for text that is no page's."""
    source = current(md)
    return source.where(text) if source is not None else "?"
