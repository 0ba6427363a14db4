"""The site's page logic as one Python-Markdown extension, which MkDocs and Zensical both run.

Listed last under `markdown_extensions` in mkdocs.yml, with its settings:

    - mgsite.extension:
        root: !relative $config_dir   # the repository: docs/, microgpt/, node_modules/
        site_url: https://...         # for {{ install_command }}

Each Markdown instance (one per page, in both generators) gets its own processors, so no state
passes between pages but the Temml process and its cache of typeset formulas (formulas.py).

- `PageSource` (a preprocessor, before pymdownx.snippets): finds the page (pages.py); on a page,
  gives every block its attributes and labels and each embed its true lines (runnable.py); then
  fills in the placeholders (placeholders.py) and puts each graph's HTML for its marker (graphs.py).
- `CheckForms` (a tree processor, after md_in_html and the inline patterns): the self-checks' forms.
- `TypesetMath` (a tree processor, after arithmatex, before the table of contents): the formulas.

An error names the page and line (`docs/page.md:12: ...`) and fails the build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from mgsite import graphs, pages, placeholders, runnable
from mgsite.formulas import TypesetMath
from mgsite.pages import Source


class PageSource(Preprocessor):
    """The Markdown a page's later steps see: its blocks marked, embeds by line, placeholders and graphs filled in."""

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
        markdown = placeholders.fill(markdown, self.extension.getConfig("site_url"), root / docs_dir / "dist")
        return graphs.expand(markdown, self.source).split("\n")


class SiteExtension(Extension):
    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "root": [".", "the repository: where docs/, microgpt/ and node_modules/ are"],
            "docs_dir": ["docs", "the pages' folder, under root"],
            "site_url": ["", "the site's address, for {{ install_command }}"],
            "typeset_math": [True, "typeset the formulas with Temml (off: arithmatex's TeX is left for a script)"],
        }
        super().__init__(**kwargs)

    @property
    def root(self) -> Path:
        return Path(self.getConfig("root")).resolve()

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802  (Python-Markdown's name)
        source = PageSource(md, self)
        # before pymdownx.snippets (32), which then embeds the lines by number; before normalize_whitespace (30)
        md.preprocessors.register(source, "mgsite-page", 35)
        # after the inline patterns (20: arithmatex finds inline formulas there), before the table of
        # contents (5), so that a heading's formula is typeset there too; the checks' forms first
        md.treeprocessors.register(graphs.CheckForms(md, lambda: source.source), "mgsite-checks", 15)
        if self.getConfig("typeset_math"):
            md.treeprocessors.register(TypesetMath(md, self.root, lambda: source.source), "mgsite-math", 15)


def makeExtension(**kwargs: Any) -> SiteExtension:  # noqa: N802  (the name Python-Markdown looks for)
    return SiteExtension(**kwargs)
