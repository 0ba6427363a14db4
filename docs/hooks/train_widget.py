"""The training page's Train widget: the placeholder `{{ train_widget }}` becomes its element.

The element carries the form's settings, bounds and defaults as JSON (data-mg-train), read from
microgpt/course/live.py, where they are written once; docs/javascripts/train/ builds the form from them
and runs microgpt.course.live in the reader's browser. Until then, and without JavaScript, the element
shows the command line that runs the same training. The page gets the `mg_train` flag, so that
overrides/main.html adds the widget's styles.
"""

from __future__ import annotations

import html
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from microgpt.course.live import SETTINGS, command_line, form_json

PLACEHOLDER = re.compile(r"^\{\{\s*train_widget\s*\}\}$", re.MULTILINE)


def element() -> str:
    """The widget's element, on one line (raw HTML in Markdown), with the command line as its fallback."""
    default = command_line({name: s.default for name, s in SETTINGS.items()})
    fallback = (
        '<p class="mg-train__fallback">The Train control needs JavaScript. The same run on your machine: '
        f"<code>{html.escape(default)}</code></p>"
    )
    return f'<div class="mg-train" data-mg-train="{html.escape(form_json())}">{fallback}</div>'


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if not PLACEHOLDER.search(markdown):
        return markdown
    page.meta["mg_train"] = True
    return PLACEHOLDER.sub(lambda _: element(), markdown)
