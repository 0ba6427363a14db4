"""Highlighted code with fewer elements and the same look: names and spaces as plain text, and a
run of tokens of one kind in one element.

Pygments puts every token of a code block in a <span> of its kind. A page with much code is
mostly those spans: on the notebook, 2,600 of its 4,800 elements. The first style and layout of a
page takes time for every element, and on a phone that time is most of what keeps the page from
answering a tap while it loads. Two kinds of span change nothing a reader sees:

- a name (`n`) is drawn in the code's own colour (Material's --md-code-hl-name-color is
  --md-code-fg-color, in both schemes), and whitespace (`w`) has no style at all: their text
  goes in place of the span;
- tokens of one kind side by side, as `)` `,` or `(` `)`, are one span with the text of both.

A page keeps every character of its code, so what a reader copies, searches for or hears is the
same. tests/test_browser.py checks that both kinds look like the code around them in both schemes.
"""

from __future__ import annotations

import re

PLAIN = ("n", "w")  # the kinds of token drawn as plain code
PRE = re.compile(r"<pre\b[^>]*>.*?</pre>", re.S)
PLAIN_TOKEN = re.compile(r'<span class="(?:{})">([^<]*)</span>'.format("|".join(PLAIN)))
# two or more tokens of one kind, nothing between them (not a highlighted line, `hll`: a block of its own)
RUN = re.compile(r'<span class="(?P<kind>(?!hll")[\w-]+)">[^<]*</span>(?:<span class="(?P=kind)">[^<]*</span>)+')
TEXT = re.compile(r">([^<]*)<")


def _one_span(run: re.Match) -> str:
    text = "".join(TEXT.findall(run[0]))
    return f'<span class="{run["kind"]}">{text}</span>'


def slim(code_html: str) -> str:
    """One block's HTML with its plain tokens as text and each run of one kind in one span."""
    return RUN.sub(_one_span, PLAIN_TOKEN.sub(r"\1", code_html))


def on_page_content(html: str, page, config, files) -> str:
    return PRE.sub(lambda m: slim(m[0]), html)
