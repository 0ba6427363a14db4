"""The site's page logic as one Python-Markdown extension, which MkDocs and Zensical both run.

Listed last under `markdown_extensions` in mkdocs.yml, with its settings:

    - mgsite.extension:
        root: .                   # the repository: docs/, microgpt/, node_modules/

Each Markdown instance (one per page, in both generators) gets its own processors, so no state
passes between pages but the Temml process and its cache of typeset formulas (formulas.py). In the
order they run (extendMarkdownBlocks says why each stands where it does):

- `PageContext` (a preprocessor): asks the generator which page this is (pages.py); every later step
  reaches it through `pages.current(md)`.
- `PageBlocks` (a preprocessor, before pymdownx.snippets): on a page, gives every block its attributes
  and labels and each embed its true lines (runnable.py); a marker of the syntax the blocks below
  replaced fails the build (shortcodes.refuse_former).
- the page's blocks (`/// widget | relu`, `//// check | answer=6`, ...: shortcodes.py), registered
  with pymdownx.blocks as its documented BlocksExtension does: graphs, diagrams, the Train widget,
  self-checks with their hints and explanations.
- `Unread` (a tree processor): a block pymdownx.blocks did not take fails the build (shortcodes.py).
- `CheckForms` (a tree processor): the self-checks' forms (graphs.py).
- `TypesetMath` (a tree processor, before the table of contents): the formulas (formulas.py).

An error names the page and line (`docs/page.md:12: ...`) and fails the build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.preprocessors import Preprocessor
from pymdownx.blocks import BlocksExtension, BlocksProcessor

from mgsite import blocks, graphs, pages, runnable, shortcodes
from mgsite.errors import PageError
from mgsite.formulas import TypesetMath


class PageBlocks(Preprocessor):
    """The lines of a page with its blocks marked and its embeds by line number (runnable.edit)."""

    def __init__(self, md: Markdown, root: Path) -> None:
        super().__init__(md)
        self.root = root

    def run(self, lines: list[str]) -> list[str]:
        assert self.md is not None  # registered by SiteExtension, with its Markdown
        source = pages.current(self.md)
        shortcodes.refuse_former(self.md, lines)
        if source is not None and source.is_page:
            return runnable.edit(source, lines, self.root)
        if embed := next((line.strip() for line in lines if blocks.EMBED.match(line.strip())), None):
            named = f"{source.name}: is no Markdown page" if source else "no generator named the page"
            raise PageError(f"{named}, and only a page's embeds are found by name: {embed}")
        return lines


class SiteExtension(BlocksExtension):
    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "root": [".", "the repository: where docs/, microgpt/ and node_modules/ are"],
            "docs_dir": ["docs", "the pages' folder, under root"],
            "page": ["", "the page converted, under docs_dir, when no generator names it (Python-Markdown alone)"],
            "typeset_math": [True, "typeset the formulas with Temml (off: arithmatex's TeX is left for a script)"],
        }
        super().__init__(**kwargs)

    @property
    def root(self) -> Path:
        return Path(self.getConfig("root")).resolve()

    def extendMarkdownBlocks(self, md: Markdown, block_mgr: BlocksProcessor) -> None:  # noqa: N802  (pymdownx's name)
        root = self.root
        # Before pymdownx.snippets (32), which then embeds an embed's lines by number, and before
        # normalize_whitespace (30), so that the lines are the page's own: first which page this is, which
        # every later step asks for (pages.current), then the page's blocks.
        context = pages.PageContext(md, root, self.getConfig("docs_dir"), self.getConfig("page"))
        md.preprocessors.register(context, pages.NAME, 36)
        md.preprocessors.register(PageBlocks(md, root), "mgsite-blocks", 35)
        for block in shortcodes.BLOCKS:
            block_mgr.register(block, {})
        # After the inline patterns (20: arithmatex makes the formulas' elements there, and the blocks' Markdown
        # is parsed) and pymdownx.blocks' last step (19.99); before prettify (10), attr_list (8) and the table
        # of contents (5), which reads the label TypesetMath gives a heading with a formula. In this order:
        # a block pymdownx.blocks did not take, which is then a paragraph of text, fails before anything else
        # is made of the page (16); the self-checks' forms (14), while a check's question still has its words,
        # by which an error finds its line; then the formulas, in the forms too (13).
        md.treeprocessors.register(shortcodes.Unread(md), "mgsite-unread", 16)
        md.treeprocessors.register(graphs.CheckForms(md), "mgsite-checks", 14)
        if self.getConfig("typeset_math"):
            md.treeprocessors.register(TypesetMath(md, root), "mgsite-math", 13)


def makeExtension(**kwargs: Any) -> SiteExtension:  # noqa: N802  (the name Python-Markdown looks for)
    return SiteExtension(**kwargs)
