"""Put each Markdown table in a box of its own, so the theme's start-up does not restyle the whole page.

When its script starts, Material moves every table without a class into a scroll box of its own.
A table that is a child of the article itself is then a child taken out of the article and one put
in, and Chromium restyles every element of the article for that (its built-in MathML rules use
:nth-child, so any change to the article's list of children may change which rule matches which
of them). Measured on /forward-graph/ (one table, 3,644 elements): that restyle was 20 ms of the
50 ms start-up task without throttling; inside a box of its own, only the box's contents are
restyled. The box is a plain <div>: no margin, border or padding, so the page looks the same.
"""

from __future__ import annotations

import re

BOX = "mg-table"
# Python-Markdown writes a table exactly so; a table written as HTML in a page is left as it is
MARKDOWN_TABLE = re.compile(r"<table>\n.*?</table>", re.S)


def on_page_content(html: str, page, config, files) -> str:
    return MARKDOWN_TABLE.sub(lambda m: f'<div class="{BOX}">{m[0]}</div>', html)
