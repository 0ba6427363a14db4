"""Three fixes to the notebook pages that mkdocs-jupyter 0.26.3 writes.

1. Remove the empty <script src=""> it writes where MathJax would go: a browser would load the
   page itself as a script from it. Math on this site is KaTeX, served from the site itself.
2. Remove the module script that imports mermaid from cdnjs.cloudflare.com when a cell holds a
   diagram: the site requests nothing from outside, and its notebooks have no diagrams.
   tests/test_site_offline.py checks both scripts are gone.
3. Collapse the solutions: a code cell tagged "solution" (the converter gives its <div> the class
   celltag_solution) is wrapped in <details>, so the reader sees "Solution" and opens it after
   trying. In Jupyter the same cells are collapsed by their `jupyter.source_hidden` metadata.
"""

import re

EMPTY_SCRIPT = re.compile(r"""<script\b[^>]*\bsrc=(""|'')[^>]*>\s*</script>""")
MERMAID_LOADER = re.compile(r"""<script type="module">(?:(?!</script>).)*?\.jp-Mermaid.*?</script>""", re.S)
SOLUTION_CELL = re.compile(r"""<div class="[^"]*\bcelltag_solution\b[^"]*">""")
DIV_TAG = re.compile(r"<div\b|</div>")
SUMMARY = '<details class="notebook-solution"><summary>Solution: the code and its output</summary>'


def _end_of_div(html: str, start: int) -> int:
    """Index just past the </div> that closes the <div> opening at start."""
    depth = 0
    for tag in DIV_TAG.finditer(html, start):
        depth += 1 if tag.group() == "<div" else -1
        if depth == 0:
            return tag.end()
    raise ValueError("a solution cell's <div> is never closed")


def collapse_solutions(html: str) -> str:
    out, pos = [], 0
    while match := SOLUTION_CELL.search(html, pos):
        end = _end_of_div(html, match.start())
        out += [html[pos : match.start()], SUMMARY, html[match.start() : end], "</details>"]
        pos = end
    return "".join(out) + html[pos:]


def on_post_page(output: str, page, config) -> str:
    return collapse_solutions(MERMAID_LOADER.sub("", EMPTY_SCRIPT.sub("", output)))
