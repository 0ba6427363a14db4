"""Every formula typeset by Temml while the site is built (docs/hooks/typeset_math.py says how), and the
math font cut to the characters they draw (docs/hooks/math_font.py).

The Markdown extension goes into the site's Markdown settings (`on_config`); each page tells it its
name, for the error messages (`on_page_markdown`); a page with formulas gets the flag that gives it
the math styles, and through them the font (page.meta.mg_math, read by overrides/main.html).
"""

from __future__ import annotations

from pathlib import Path

import math_font
import typeset_math
from mkdocs.exceptions import PluginError

from microgpt.runtime.files import write_atomically


def on_config(config):
    if not math_font.SOURCE.is_file():
        where = math_font.SOURCE.relative_to(math_font.ROOT)
        raise PluginError(f"{where} is missing: run `npm ci` in {math_font.ROOT}")
    config.markdown_extensions.append(typeset_math.MathExtension())
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    typeset_math.TypesetMath.page, typeset_math.TypesetMath.count = page.file.src_uri, 0
    return markdown


def on_page_content(content: str, page, config, files) -> str:
    page.meta["mg_math"] = page.meta.get("mg_math") or typeset_math.TypesetMath.count > 0
    return content


def on_post_build(config) -> None:
    if typeset_math.USED:
        # written whole or not at all: `mkdocs serve` may be serving the old file meanwhile
        target = Path(config["site_dir"]) / math_font.SITE_PATH
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, math_font.subset(math_font.SOURCE.read_bytes(), typeset_math.USED))
