"""The install command and the Train widget: what a page shows that is made from the package at build time.

- `{{ install_command }}`, the one placeholder a page may hold, filled in where the page is converted
  (a value inside a code block or a code span, where no block can stand): the one line a reader types
  to install the package the site serves, from site_url (the extension's config) and the wheel
  `python -m mgsite.prepare` built into docs/dist/ (its latest.json names it).
- `train_element()`, the block `/// train` (shortcodes.py): the training page's Train widget. The element carries
  the form's settings, bounds and defaults as JSON (data-mg-train), read from microgpt/course/live.py,
  where they are written once; docs/javascripts/train/ builds the form from them and runs
  microgpt.course.live in the reader's browser. Until then, and without JavaScript, the element shows
  the command line that runs the same training.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from mgsite.errors import PageError
from microgpt.course.live import SETTINGS, command_line, form_json

INSTALL = re.compile(r"\{\{\s*install_command\s*\}\}")


def install_command(site_url: str, wheel: str) -> str:
    """The one line a reader types to install the package the site serves."""
    return f"pip install {site_url if site_url.endswith('/') else site_url + '/'}dist/{wheel}"


def served_wheel(dist: Path) -> str:
    """The file name of the wheel `python -m mgsite.prepare` put into dist/."""
    try:
        return str(json.loads((dist / "latest.json").read_text(encoding="utf-8"))["wheel"])
    except (OSError, ValueError, KeyError):
        raise PageError(f"{dist}/latest.json is missing: run `make build` (or `python -m mgsite.prepare`)") from None


def train_element() -> str:
    """The widget's element, on one line (raw HTML in Markdown), with the command line as its fallback."""
    default = command_line({name: s.default for name, s in SETTINGS.items()})
    fallback = (
        '<p class="mg-train__fallback">The Train control needs JavaScript. The same run on your machine: '
        f"<code>{html.escape(default)}</code></p>"
    )
    return f'<div class="mg-train" data-mg-train="{html.escape(form_json())}">{fallback}</div>'


def fill(markdown: str, site_url: str, dist: Path) -> str:
    """The page's Markdown with each {{ install_command }} filled in."""
    if INSTALL.search(markdown):
        if not site_url:
            raise PageError("{{ install_command }} needs site_url (in mkdocs.yml, or the mgsite extension's site_url)")
        command = install_command(site_url, served_wheel(dist))
        markdown = INSTALL.sub(lambda _: command, markdown)
    return markdown
