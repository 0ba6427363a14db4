"""The site's page logic as one Python-Markdown extension, which MkDocs and Zensical both run.

Listed last under `markdown_extensions` in mkdocs.yml, with its settings:

    - mgsite.extension:
        root: !relative $config_dir   # the repository: docs/, microgpt/, node_modules/

Each Markdown instance (one per page, in both generators) gets its own processors, so no state
passes between pages but the Temml process and its cache of typeset formulas (formulas.py).

- `PageSource` (a preprocessor, before pymdownx.snippets): finds the page (pages.py); on a page,
  gives every block its attributes and labels and each embed its true lines (runnable.py); a marker
  of the syntax the blocks below replaced fails the build (shortcodes.refuse_former).
- the page's blocks (`/// widget | relu`, `//// check | answer=6`, ...: shortcodes.py), registered
  with pymdownx.blocks as its documented BlocksExtension does: graphs, diagrams, the Train widget,
  self-checks with their hints and explanations.
- `CheckForms` (a tree processor, after the inline patterns): the self-checks' forms (graphs.py).
- `TypesetMath` (a tree processor, after arithmatex, before the table of contents): the formulas.

An error names the page and line (`docs/page.md:12: ...`) and fails the build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.preprocessors import Preprocessor
from pymdownx.blocks import BlocksExtension, BlocksProcessor

from mgsite import graphs, pages, runnable, shortcodes
from mgsite.formulas import TypesetMath
from mgsite.pages import Source


class PageSource(Preprocessor):
    """The Markdown a page's later steps see: its blocks marked, embeds by line."""

    def __init__(self, md: Markdown, extension: SiteExtension) -> None:
        super().__init__(md)
        self.extension = extension
        self.source: Source | None = None  # the page this Markdown converts, once run() has found it

    def run(self, lines: list[str]) -> list[str]:
        assert self.md is not None  # registered by SiteExtension, with its Markdown
        root, docs_dir = self.extension.root, self.extension.getConfig("docs_dir")
        markdown = "\n".join(lines)
        self.source = pages.find(self.md, markdown, root, docs_dir)
        if self.source is not None:
            markdown = runnable.rewrite(self.source, markdown, root)
        shortcodes.refuse_former(markdown, lambda: self.source)
        return markdown.split("\n")


class SiteExtension(BlocksExtension):
    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "root": [".", "the repository: where docs/, microgpt/ and node_modules/ are"],
            "docs_dir": ["docs", "the pages' folder, under root"],
            "typeset_math": [True, "typeset the formulas with Temml (off: arithmatex's TeX is left for a script)"],
        }
        super().__init__(**kwargs)

    @property
    def root(self) -> Path:
        return Path(self.getConfig("root")).resolve()

    def extendMarkdownBlocks(self, md: Markdown, block_mgr: BlocksProcessor) -> None:  # noqa: N802  (pymdownx's name)
        source = PageSource(md, self)
        # before pymdownx.snippets (32), which then embeds the lines by number; before normalize_whitespace (30)
        md.preprocessors.register(source, "mgsite-page", 35)
        for block in shortcodes.BLOCKS:
            block_mgr.register(block, {"page": lambda: source.source})
        md.treeprocessors.register(shortcodes.Unread(md, lambda: source.source), "mgsite-unread", 16)
        # after the inline patterns (20: arithmatex finds inline formulas there), before the table of
        # contents (5), so that a heading's formula is typeset there too; the checks' forms first
        md.treeprocessors.register(graphs.CheckForms(md, lambda: source.source), "mgsite-checks", 15)
        if self.getConfig("typeset_math"):
            md.treeprocessors.register(TypesetMath(md, self.root, lambda: source.source), "mgsite-math", 15)


def makeExtension(**kwargs: Any) -> SiteExtension:  # noqa: N802  (the name Python-Markdown looks for)
    return SiteExtension(**kwargs)
