"""Remove the empty <script src=""> that mkdocs-jupyter 0.26.3 writes where MathJax would go.

A browser would load the page itself as a script from it. Math on this site is KaTeX, served
from docs/vendor/katex, so the tag has no use; tests/test_site_offline.py checks it is gone.
"""

import re

EMPTY_SCRIPT = re.compile(r"""<script\b[^>]*\bsrc=(""|'')[^>]*>\s*</script>""")


def on_post_page(output: str, page, config) -> str:
    return EMPTY_SCRIPT.sub("", output)
