"""Every cell of the site's notebooks runs, and may not raise: nothing in a notebook switches that off.

nbclient (which mkdocs-jupyter and tests/package/test_notebook.py execute with) skips a cell tagged
skip-execution and lets one tagged raises-exception fail; nbval has its own nbval-* tags; a cell
magic such as %%script false never runs the code below it; a ```python fence in a Markdown cell
is shown as code but never run. Only display tags (SAFE_TAGS) are allowed.
"""

import html
import json
import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sitecheck import ROOT

NOTEBOOKS = sorted((ROOT / "docs").rglob("*.ipynb"))
SAFE_TAGS = {"solution"}  # overrides/notebook.html folds these cells; they run like any other
SAFE_METADATA = {"tags", "jupyter", "collapsed", "scrolled", "editable", "deletable", "id"}
SAFE_JUPYTER = {"source_hidden", "outputs_hidden"}


def notebook_problems(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    if set(nb.get("metadata", {})) - {"kernelspec", "language_info"}:
        problems.append(f"{path.name}: notebook metadata beyond kernelspec and language_info")
    for k, cell in enumerate(nb["cells"], 1):
        where = f"{path.name}: cell {k} ({cell.get('id', 'no id')})"
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        meta = cell.get("metadata", {})
        if cell["cell_type"] == "raw":
            problems.append(f"{where}: a raw cell is shown but never run")
        if cell["cell_type"] == "markdown" and re.search(r"^\s*(```|~~~)\s*(py|python|ipython)", source, re.M | re.I):
            problems.append(f"{where}: a Python fence in a Markdown cell is shown as code but never run")
        if cell["cell_type"] != "code":
            continue
        if unknown := set(meta) - SAFE_METADATA:
            problems.append(f"{where}: cell metadata {sorted(unknown)} may change how it runs")
        if unknown := set(meta.get("jupyter", {})) - SAFE_JUPYTER:
            problems.append(f"{where}: jupyter metadata {sorted(unknown)}")
        if tags := set(meta.get("tags", [])) - SAFE_TAGS:
            problems.append(f"{where}: tags {sorted(tags)} (only {sorted(SAFE_TAGS)} are allowed: they change nothing)")
        if re.search(r"^\s*%%", source, re.M):
            problems.append(f"{where}: a cell magic decides whether and how the cell runs")
    return problems


def test_the_site_has_notebooks_and_they_run_every_cell_strictly():
    assert NOTEBOOKS
    problems = [p for nb in NOTEBOOKS for p in notebook_problems(nb)]
    assert not problems, "\n".join(problems)


def test_the_build_executes_every_notebook_and_fails_on_errors():
    yaml = pytest.importorskip("yaml")
    loader = type("Loader", (yaml.SafeLoader,), {})
    loader.add_multi_constructor("", lambda *args: None)  # !relative, !!python/name: not needed here
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=loader)
    jupyter = next(p["mkdocs-jupyter"] for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p)
    assert jupyter.get("execute") is True and jupyter.get("allow_errors") is False
    assert not jupyter.get("execute_ignore") and not jupyter.get("remove_tag_config")
    included = {p for pattern in jupyter["include"] for p in (ROOT / "docs").glob(pattern)}
    assert included == set(NOTEBOOKS)


@pytest.mark.parametrize(
    ("cell", "words"),
    [
        ({"cell_type": "code", "metadata": {"tags": ["raises-exception"]}, "source": "1/0"}, "tags"),
        ({"cell_type": "code", "metadata": {"tags": ["skip-execution"]}, "source": "1/0"}, "tags"),
        ({"cell_type": "code", "metadata": {"tags": ["nbval-skip"]}, "source": "1/0"}, "tags"),
        ({"cell_type": "code", "metadata": {"tags": ["remove-cell"]}, "source": "1"}, "tags"),
        ({"cell_type": "code", "metadata": {"execution": {"allow_errors": True}}, "source": "1/0"}, "metadata"),
        ({"cell_type": "code", "metadata": {}, "source": "%%script false --no-raise-error\n1/0"}, "cell magic"),
        ({"cell_type": "markdown", "metadata": {}, "source": "```python\n1/0\n```"}, "Markdown cell"),
        ({"cell_type": "raw", "metadata": {}, "source": "1/0"}, "raw cell"),
    ],
)
def test_a_cell_that_would_not_run_or_may_fail_is_refused(tmp_path, cell, words):
    nb = {"cells": [{**cell, "id": "c"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "x.ipynb").write_text(json.dumps(nb))
    found = notebook_problems(tmp_path / "x.ipynb")
    assert any("cell 1 (c)" in p and words in p for p in found), found


def test_the_site_shows_each_solution_cell_closed_and_the_rest_open(built_site):
    """overrides/notebook.html wraps the code cells tagged "solution", and only them, in a closed <details>."""
    page = (built_site / "notebooks" / "backprop-by-hand" / "index.html").read_text(encoding="utf-8")
    cells = re.findall(r'<div class="jp-Cell jp-CodeCell">\s*(<details class="notebook-solution">)?', page)
    nb = json.loads(NOTEBOOKS[0].read_text(encoding="utf-8"))
    tagged = ["solution" in c["metadata"].get("tags", []) for c in nb["cells"] if c["cell_type"] == "code"]
    assert [bool(c) for c in cells] == tagged and any(tagged) and not all(tagged)


class ShownText(HTMLParser):
    """The text a reader sees in a piece of a page (what a <style> or <script> holds is not shown), and the
    text of each of its code blocks (a <pre>'s <code>), in order."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.blocks: list[str] = []
        self.open = {"style": 0, "script": 0, "pre": 0, "code": 0}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.open:
            self.open[tag] += 1
        if tag == "code" and self.open["pre"]:
            self.blocks.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            self.open[tag] -= 1

    def handle_data(self, data: str) -> None:
        if not self.open["style"] and not self.open["script"]:
            self.text.append(data)
            if self.open["pre"] and self.open["code"]:
                self.blocks[-1] += data


def test_the_notebook_page_shows_each_cell_as_written_and_nothing_else(built_site):
    """nbconvert parses the notebook template's output as HTML and writes it out again, and mkdocs-jupyter
    appends a <style> to it: text the template left raw came out as `&lt;`, a matrix's `&` as "amp;", and the
    stylesheet as a code block after the last cell. Each code cell is shown as its source, character for
    character, and the page's text holds no escape and no stylesheet."""
    page = (built_site / "notebooks" / "backprop-by-hand" / "index.html").read_text(encoding="utf-8")
    article = page[page.index("<article") : page.index("</article>")]
    cells = article.split('<div class="jp-Cell jp-CodeCell">')[1:]
    nb = json.loads(NOTEBOOKS[0].read_text(encoding="utf-8"))
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    shown = []
    for cell in cells:
        parser = ShownText()
        parser.feed(cell)
        shown.append(parser.blocks[0].rstrip("\n") if parser.blocks else None)
    assert len(shown) == len(sources)
    for k, (source, block) in enumerate(zip(sources, shown, strict=True), 1):
        assert block == source, f"code cell {k} is shown as\n{block}\nnot as its source\n{source}"
    assert any("<" in block for block in shown), "no code cell holds a <: the comparison above proves little"
    parser = ShownText()
    parser.feed(article)
    text = "".join(parser.text)
    printed = [block for block in parser.blocks if block.rstrip("\n") not in sources]
    assert any(re.search(r"^step 1: loss .* -> ", block, re.M) for block in printed), printed
    last = nb["cells"][-1]
    assert last["cell_type"] == "markdown"
    tail = " ".join(text[text.rindex(parser.blocks[-1]) + len(parser.blocks[-1]) :].split())
    assert tail == " ".join("".join(last["source"]).replace("`", "").split()), f"after the last cell: {tail!r}"
    for escape in ("&lt;", "&gt;", "&amp;", "amp;", "<style", "line-height"):
        at = text.find(escape)
        assert at < 0, f"the page shows {escape!r}: {text[max(0, at - 80) : at + 80]!r}"


def test_a_cells_printing_sent_in_pieces_is_shown_as_one_output(tmp_path):
    """The kernel sends what a cell prints in pieces, as it flushes (how many varies from run to run);
    overrides/notebook.html shows consecutive pieces of one stream as one output, as Jupyter does, and
    what goes to stderr between them as an output of its own. Rendered by mkdocs-jupyter's nb2html with
    the site's options, in the site's Python (the Makefile's SITE_VENV, or the one MICROGPT_MKDOCS is in)."""

    def stream(name: str, text: str) -> dict:
        return {"output_type": "stream", "name": name, "text": text}

    outputs = [stream("stdout", "a\n"), stream("stdout", "b\n"), stream("stderr", "careful\n"), stream("stdout", "c\n")]
    cell = {"cell_type": "code", "id": "c", "metadata": {}, "execution_count": 1, "source": "", "outputs": outputs}
    nb = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "x.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    mkdocs = Path(os.environ.get("MICROGPT_MKDOCS") or ROOT / ".venv-site" / "bin" / "mkdocs")
    render = (
        "import sys; from mkdocs_jupyter.nbconvert2 import nb2html; "
        "print(nb2html(sys.argv[1], custom_template=sys.argv[2], markdown_cell_processor='mkdocs', no_prompt=True))"
    )
    template = ROOT / "overrides" / "notebook.html"
    args = [str(mkdocs.with_name("python")), "-c", render, str(tmp_path / "x.ipynb"), str(template)]
    page = subprocess.run(args, capture_output=True, text=True, check=True, timeout=120).stdout
    assert re.findall(r'mg-mark--nb-output">([^<]+)<', page) == ["Output", "Error output", "Output"]
    fences = re.findall(r"````notebook-text\n(.*?)````", page, re.S)
    assert [html.unescape(block.strip("\n")) for block in fences] == ["a\nb", "careful", "c"]
