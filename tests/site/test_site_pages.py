"""Every way a page could show a Python block that is not run (or run one it does not show) is refused,
with the page and line. These read pages with tools/mgsite/mgsite/blocks.py, the reader the build hook and
`pytest --codeblocks` share, and hold them to tests/page_rules.py; they need nothing beyond the
standard library."""

import re
import textwrap
from pathlib import Path

import page_rules
import pytest
from mgsite import blocks as mdblocks
from sitecheck import ROOT, markdown_pages


def problems(text: str, root: Path = ROOT) -> list[str]:
    return page_rules.check(textwrap.dedent(text).lstrip("\n"), "docs/page.md", root)


def assert_refused(text: str, line: int, words: str, root: Path = ROOT) -> None:
    found = problems(text, root)
    assert any(p.startswith(f"docs/page.md:{line}: ") and words in p for p in found), found


RUNS = "```python\nprint(1)\n```\n"


def test_the_pages_and_the_readme_have_no_problems():
    found = [p for page in markdown_pages() for p in page_rules.check(page.read_text(), str(page), ROOT)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_line_of_a_page_is_over_240_characters(page):
    long_lines = [n for n, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1) if len(line) > 240]
    assert not long_lines, f"{page.relative_to(ROOT)}: lines {long_lines} are over 240 characters; wrap them"


@pytest.mark.parametrize(
    "fence",
    [
        "```Python",
        "```PYTHON",
        "```py",
        "```python3",
        "```pycon",
        "```py3",
        "```ipython",
        "``` python",
        '```python title="x.py"',
        '```python linenums="1"',
        '```python hl_lines="1"',
        "```{.python}",
        "```",
    ],
)
def test_a_python_block_written_any_other_way_is_refused(fence):
    assert_refused(f"# Page\n\n{fence}\nraise SystemExit('never run')\n```\n", 3, "fence language")


def test_a_tilde_fence_is_refused():
    assert_refused("~~~python\nraise SystemExit\n~~~\n", 1, "~~~ fence")


@pytest.mark.parametrize(
    "code",
    ["import numpy as np", "from torch import tensor", "import os, numpy", "from numpy.linalg import norm"],
)
def test_a_block_that_imports_what_the_browser_lacks_must_say_so(code):
    # without the marker the site would offer Run on a block that cannot run in the reader's browser
    assert_refused(f"# Page\n\n```python\n{code}\n```\n", 3, "importorskip(")
    module = "torch" if "torch" in code else "numpy"
    assert problems(f"<!--pytest-codeblocks:importorskip({module})-->\n```python\n{code}\n```\n") == []


@pytest.mark.parametrize(
    "marker",
    [
        '<!--pytest.mark.skip(reason="shown below")--> see below',
        '<!--pytest.mark.skip(reason="a fragment")-->',
        "<!--pytest.mark.xfail-->",
        '<!--pytest.mark.skipif(True, reason="x")-->',
        "<!--pytest-codeblocks:skip-->",
        "<!--pytest-codeblocks:skipif(True)-->",
        "<!--pytest-codeblocks:expect-exception-->",
        "<!--pytest-codeblocks:expected-output-ignore-whitespace-->",
        "<!-- pytest-codeblocks:cont -->",
        "<!----pytest-codeblocks:cont-->",
        "<!--pytest-codeblocks:cont--> and more text",
        "<!--pytest-codeblocks:skipfile-->",
        "<!--pytest-codeblocks:no-such-marker-->",
        "<!--mg:no-such-thing(x)-->",
        "Some prose <!--pytest-codeblocks:cont-->",
    ],
)
def test_a_marker_that_is_unknown_or_not_alone_on_its_line_is_refused(marker):
    assert_refused(f"{RUNS}\n{marker}\n```python\nprint(2)\n```\n", 5, "not a marker this site knows")


def test_skipfile_on_the_first_line_of_the_readme_is_refused():
    text = "<!--pytest-codeblocks:skipfile-->\n# README\n\n" + RUNS
    found = page_rules.check(text, "README.md", ROOT)
    assert any(p.startswith("README.md:1: ") for p in found), found


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        # an expected-output marker with no fence after it, or before a python fence, or a console fence
        (RUNS + "\n<!--pytest-codeblocks:expected-output-->\n\nThe end.\n", 5, "right above its fence"),
        (RUNS + "\n<!--pytest-codeblocks:expected-output-->\n", 5, "no fence after it"),
        (RUNS + "\n<!--pytest-codeblocks:expected-output-->\n```python\nprint(3)\n```\n", 5, "cannot stand above"),
        (RUNS + "\n<!--pytest-codeblocks:expected-output-->\n```console\n1\n```\n", 5, "cannot stand above"),
        # an expected output with another fence between it and its block
        (
            RUNS + "\n```text\nx\n```\n\n<!--pytest-codeblocks:expected-output-->\n```text\n1\n```\n",
            10,
            "directly follow",
        ),
        # an output fence that looks checked but is not
        (RUNS + "\n```text\n1\n```\n", 5, "looks like its output"),
        # cont before the first block; importorskip on a cont block; a package the tests do not know
        ("<!--pytest-codeblocks:cont-->\n" + RUNS, 2, "no python block before it"),
        (
            RUNS + "\n<!--pytest-codeblocks:importorskip(torch)-->\n<!--pytest-codeblocks:cont-->\n" + RUNS,
            7,
            "cont block",
        ),
        ("<!--pytest-codeblocks:importorskip(pandas)-->\n" + RUNS, 1, "may need only"),
        # an output checked in the middle of a chain
        (
            RUNS
            + "\n<!--pytest-codeblocks:expected-output-->\n```text\n1\n```\n\n<!--pytest-codeblocks:cont-->\n"
            + RUNS,
            11,
            "already checked",
        ),
        # a marker with prose between it and its fence
        ("<!--pytest-codeblocks:importorskip(torch)-->\nSome words.\n\n" + RUNS, 1, "right above its fence"),
        # a block the site would not show: inside an HTML comment
        ("<!--\n" + RUNS + "-->\n", 2, "inside the HTML comment"),
        # a fence never closed; a block that is not Python
        ("```python\nprint(1)\n", 1, "never closed"),
        ("```python\nprint(1\n```\n", 1, "does not parse"),
        # marker given twice
        (
            "<!--pytest-codeblocks:importorskip(torch)-->\n<!--pytest-codeblocks:importorskip(torch)-->\n" + RUNS,
            3,
            "given twice",
        ),
    ],
)
def test_a_misplaced_or_unused_marker_is_refused(text, line, words):
    assert_refused(text, line, words)


def test_blocks_in_tabs_admonitions_and_details_are_run():
    page = mdblocks.parse(
        textwrap.dedent("""
        === "Tab"

            ```python
            print(1)
            ```

        ??? note "Details"

            ```python
            print(2)
            ```

        1. A list item

            ```python
            print(3)
            ```
        """),
        "docs/page.md",
    )
    assert not page.problems and not page_rules.problems(page)
    assert [b.code for b in page.blocks] == ["print(1)\n", "print(2)\n", "print(3)\n"]


# ---------------------------------------------------------------------------- snippets


@pytest.mark.parametrize(
    "line",
    [
        "The marker `# --8<-- [start:seed]` starts a section.",  # the line would vanish from the site
        "--8<-- [end:x]",
        '--8<-- "microgpt/engine.py"',  # a whole file pasted into the prose
        "--8<--",  # block form
    ],
)
def test_snippet_notation_outside_an_embed_is_refused(line):
    assert_refused(f"# Page\n\n{line}\n", 3, "snippet notation outside an embed")


def test_snippet_notation_inside_a_text_fence_is_refused():
    assert_refused(
        '```text\n--8<-- "microgpt/engine.py:topological_order"\n```\n', 2, "snippet notation outside an embed"
    )


def test_escaped_snippet_notation_in_prose_is_kept():
    text = "# Page\n\nThe marker `# ;--8<-- [start:seed]` starts a section.\n"
    page = mdblocks.parse(text, "docs/page.md", ROOT)
    assert not page.problems and not page_rules.problems(page)
    assert (3, "The marker `# ;--8<-- [start:seed]` starts a section.") in page.prose


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("microgpt/no_such_file.py:x", "no such file"),
        ("microgpt/engine.py:no_such_name", "no function, class or name 'no_such_name'"),
        ("microgpt/engine.py:Value.tanh..Value.__pow__", "the first one first"),
        ("microgpt/engine.py:Value.tanh..topological_order", "of one body"),
        ("microgpt/engine.py:Value.backward:while", "no statement of Value.backward"),
    ],
)
def test_an_embed_of_something_missing_is_refused(target, words):
    assert_refused(f'```python\n--8<-- "{target}"\n```\n', 1, words)


def embed(target: str, attrs: str = "") -> mdblocks.Fence:
    page = mdblocks.parse(f'```python{attrs}\n--8<-- "{target}"\n```\n', "docs/page.md", ROOT)
    assert not page.problems, page.problems
    return page.blocks[0]


def test_an_embed_shows_a_definition_found_by_name_with_the_files_line_numbers():
    block = embed("microgpt/engine.py:topological_order")
    assert block.code.startswith("def topological_order(") and block.code.rstrip().endswith("return topo")
    source = (ROOT / "microgpt" / "engine.py").read_text(encoding="utf-8").split("\n")
    first, last = block.embed.numbers[0], block.embed.numbers[-1]
    assert source[first - 1] == 'def topological_order(root: "Value") -> "list[Value]":'
    assert block.embed.title == f"microgpt/engine.py — lines {first}–{last}"
    assert block.embed.snippet == f'--8<-- "microgpt/engine.py:{first}:{last}"'  # what snippets is handed


def test_an_embed_of_a_method_or_a_run_of_them_is_dedented_and_keeps_its_comment(tmp_path):
    file = tmp_path / "microgpt" / "m.py"
    file.parent.mkdir()
    file.write_text(
        "class A:\n    x = 1\n\n    # why b and c need no rule of their own\n    @property\n    def b(self):\n"
        "        return 2\n\n    def c(self):\n        return 3\n\n    def d(self):\n        return 4\n"
    )
    page = mdblocks.parse('```python\n--8<-- "microgpt/m.py:A.b..A.c"\n```\n', "docs/page.md", tmp_path)
    assert not page.problems, page.problems
    section = page.blocks[0].embed
    assert section.numbers == list(range(4, 11))
    assert section.lines[:3] == ["# why b and c need no rule of their own", "@property", "def b(self):"]
    assert section.lines[-1] == "    return 3"


def test_an_embed_of_one_statement_runs_just_that_statement():
    block = embed("microgpt/engine.py:Value.backward:for v in reversed(topo):")
    assert block.code.startswith("for v in reversed(topo):\n    for child, local_grad in zip(")
    assert block.code.rstrip().endswith("child.grad += local_grad * v.grad")
    assert len(block.embed.numbers) == 3


def test_highlight_names_one_statement_of_the_embed():
    target = "microgpt/engine.py:Value.backward"
    assert_refused(f'```python {{mg-highlight="no such line"}}\n--8<-- "{target}"\n```\n', 1, "no statement")
    block = embed(target, ' {mg-highlight="self.grad = 1"}')
    assert [block.embed.lines[k - 1].strip() for k in block.highlight] == ["self.grad = 1"]
    loop = embed(target, ' {mg-highlight="for v in reversed"}')
    assert [block.embed.lines[k - 1].strip()[:9] for k in loop.highlight] == ["for v in ", "for child", "child.gra"]


def test_a_fence_takes_only_the_attributes_the_site_knows_each_once_written_as_superfences_reads_them():
    target = "microgpt/engine.py:Value.backward"
    assert_refused(f'```python {{hl_lines="2"}}\n--8<-- "{target}"\n```\n', 1, "'hl_lines' is not one")
    assert_refused(f'```python {{mg-highlight=self}}\n--8<-- "{target}"\n```\n', 1, 'written {name="value"')
    twice = '{mg-highlight="self.grad = 1" mg-highlight="topo"}'
    assert_refused(f'```python {twice}\n--8<-- "{target}"\n```\n', 1, "each once")
    assert_refused('```python {mg-highlight="print"}\nprint(1)\n```\n', 1, "only an embed has highlights")
    assert_refused("<!--mg:highlight(self.grad = 1)-->\n" + RUNS, 1, "the fence's attribute")


def test_the_taught_modules_carry_no_markers_or_pragmas():
    """Pages embed by name: a marker or formatting pragma in microgpt/ is scaffolding a reader would see."""
    for file in sorted((ROOT / "microgpt").glob("*.py")):
        for n, line in enumerate(file.read_text(encoding="utf-8").split("\n"), 1):
            assert not page_rules.snippet_notation(line), f"{file.name}:{n}: {line.strip()}"
            assert "# fmt:" not in line and "# noqa" not in line, f"{file.name}:{n}: {line.strip()}"


def test_the_snippet_regexes_are_pymdownx_own():
    snippets = pytest.importorskip("pymdownx.snippets")
    pre = snippets.SnippetPreprocessor
    for ours, theirs in [
        (page_rules.SNIPPET_LINE, pre.RE_ALL_SNIPPETS),
        (page_rules.SECTION_MARKER, pre.RE_SNIPPET_SECTION),
    ]:
        assert re.sub(r"\s+", "", ours.pattern) == re.sub(r"\s+", "", theirs.pattern)
        assert ours.flags == theirs.flags
