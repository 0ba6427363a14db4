"""The notebook page's code cells and outputs, highlighted as the site's own code blocks are.

overrides/notebook.html writes each cell's source and text output as a fence (```` ````notebook-python ````,
```` ````notebook-text ````). nbconvert reads the template's output as HTML and writes it out again
(HTMLExporter parses it with BeautifulSoup), so the template escapes the text it writes, as HTML text is:
raw, a `<` would come out as `&lt;` and `x<y` would be read as a tag. These fences (pymdownx.superfences'
documented custom fences, listed in mkdocs.yml) turn that text back into the cell's own and highlight it
with the same highlighter as every other fence, so the cells keep the site's colours, line spans and copy
button.
"""

from __future__ import annotations

import html
from typing import Any

from markdown import Markdown

PREFIX = "notebook-"


def fence(source: str, language: str, class_name: str, options: dict[str, Any], md: Markdown, **kwargs: Any) -> str:
    """A `notebook-LANG` fence: its text unescaped, highlighted as a `LANG` fence."""
    fences = md.preprocessors["fenced_code_block"]  # pymdownx.superfences' preprocessor
    highlight = fences.highlight  # type: ignore[attr-defined]  # the formatter superfences gives every plain fence
    return str(highlight(html.unescape(source), language.removeprefix(PREFIX), options, md, **kwargs))
