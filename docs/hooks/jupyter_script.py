"""Remove two scripts that mkdocs-jupyter 0.26.3 writes into notebook pages.

1. The empty <script src=""> where MathJax would go: a browser would load the page itself as a
   script from it. Math on this site is KaTeX, served from the site itself, so it has no use.
2. The module script that imports mermaid from cdnjs.cloudflare.com when a cell holds a diagram:
   the site requests nothing from outside, and its notebooks have no diagrams.
tests/test_site_offline.py checks both are gone.
"""

import re

EMPTY_SCRIPT = re.compile(r"""<script\b[^>]*\bsrc=(""|'')[^>]*>\s*</script>""")
MERMAID_LOADER = re.compile(r"""<script type="module">(?:(?!</script>).)*?\.jp-Mermaid.*?</script>""", re.S)


def on_post_page(output: str, page, config) -> str:
    return MERMAID_LOADER.sub("", EMPTY_SCRIPT.sub("", output))
