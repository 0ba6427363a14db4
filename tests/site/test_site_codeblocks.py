"""`pytest --codeblocks` runs every block as the site shows it, fails loudly, and stays out of the way otherwise."""

import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import replace

import page_blocks
import pytest
from pytest_codeblocks import extract_from_file
from sitecheck import ROOT, markdown_pages

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("test_site_codeblocks")]


@pytest.fixture
def project(tmp_path):
    """The test machinery of the repository, and room for pages."""
    for name in ("conftest.py", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    # every helper module of tests/ (not the tests themselves), so that a copied test finds what it imports
    helpers = [p.relative_to(ROOT) for p in (ROOT / "tests").rglob("*.py") if not p.name.startswith("test_")]
    for name in helpers:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "microgpt", tmp_path / "microgpt")
    return tmp_path


def pytest_in(project, *args, env=None):
    env = {k: v for k, v in (env or os.environ).items() if not k.startswith("PYTEST_")}
    env.pop("MICROGPT_BUILT_SITE", None)  # the copied project has no site: its blocks run with this Python
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", *args]
    return subprocess.run(cmd, cwd=project, capture_output=True, text=True, timeout=300, env=env)


def write(project, name, text):
    (project / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


CHAIN = """
    # A page

    ```python
    --8<-- "microgpt/engine.py:topological_order"
    ```

    <!--pytest-codeblocks:cont-->
    ```python
    from microgpt.engine import Value
    a = Value(3.0)
    print([v.data for v in topological_order(a + a)])
    ```

    <!--pytest-codeblocks:expected-output-->
    ```text
    [3.0, 6.0]
    ```
    """


def test_every_page_is_collected_by_pytest_codeblocks_as_the_site_reads_it():
    """`pytest --codeblocks` runs pytest-codeblocks' own chains (their first lines, what they need, their
    checked output) once the site's reader agrees with them; its code is run as it reads it but for an
    embed (its --8<-- line) and an indented block (0.18 drops its blank lines), which run the site's."""
    compared = verbatim = 0
    for page in markdown_pages():
        chains = page_blocks.code_blocks(page, ROOT)
        blocks = [b for b in extract_from_file(page) if (b.syntax or "").split("{")[0].strip() == "python"]
        assert [(c.lineno, c.needs) for c in chains] == [(b.lineno, b.importorskip) for b in blocks], page
        verbatim += sum(c.code == b.code and c.expected == b.expected_output for c, b in zip(chains, blocks))
        compared += len(chains)
    assert compared > 50 and verbatim > compared // 3, (compared, verbatim)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda blocks: [replace(blocks[0], code=blocks[0].code + "x = 1\n")], "this chain's code otherwise"),
        (lambda blocks: [replace(blocks[0], expected_output="[3.0]\n")], "chain's expected output otherwise"),
        (lambda blocks: [replace(blocks[0], importorskip="numpy")], "next chain is not this one"),
        (lambda blocks: [], "next chain is not this one (none)"),
        (lambda blocks: blocks + [replace(blocks[0], lineno=20)], "page.md:20: a python block the site does not run"),
    ],
)
def test_a_chain_pytest_codeblocks_reads_otherwise_than_the_site_is_not_run(tmp_path, monkeypatch, change, words):
    page = tmp_path / "page.md"
    page.write_text(textwrap.dedent(CHAIN).lstrip("\n"), encoding="utf-8")
    assert [c.lineno for c in page_blocks.code_blocks(page, ROOT)] == [3]
    read = page_blocks.extract_from_file
    monkeypatch.setattr(page_blocks, "extract_from_file", lambda path: change(read(path)))
    with pytest.raises(ValueError, match=re.escape(words)):
        page_blocks.code_blocks(page, ROOT)


def test_a_chain_with_an_embed_runs_and_a_wrong_output_fails_at_its_line(project):
    write(project, "right.md", CHAIN)
    write(project, "wrong.md", CHAIN.replace("[3.0, 6.0]", "[3.0, 7.0]"))
    result = pytest_in(project, "--codeblocks", "right.md", "wrong.md")
    assert "right.md::line 3 PASSED" in result.stdout, result.stdout
    assert "wrong.md::line 3 FAILED" in result.stdout and "Expected output" in result.stdout
    assert result.returncode == 1


ENDS_THE_INTERPRETER = [
    "import os; os._exit(0)",
    "import sys; sys.exit()",
    "import sys; sys.exit(0)",
    "import sys; sys.exit(None)",
    "from sys import exit as leave; leave()",
    "raise SystemExit",
    "raise SystemExit(0)",
    "exit()",
    "quit()",
]


def test_a_block_that_ends_the_interpreter_early_fails_and_the_run_goes_on(project):
    # each way of ending a chain early, with a failing block after it in the same chain; then a chain
    # that fails and one that passes: the run must reach them, and end red
    chains = [
        f"```python\n{ending}\n```\n\n<!--pytest-codeblocks:cont-->\n```python\nraise RuntimeError\n```\n"
        for ending in ENDS_THE_INTERPRETER
    ]
    chains += ["```python\nraise RuntimeError('after every exit')\n```\n"]
    last = "```python\nprint('the last block ran')\n```\n\n"
    chains += [last + "<!--pytest-codeblocks:expected-output-->\n```text\nthe last block ran\n```\n"]
    text = "# P\n\n" + "\n".join(chains)
    write(project, "page.md", text)
    heads = [n for n, line in enumerate(text.split("\n"), 1) if line == "```python" and not text.split("\n")[n - 2]]
    result = pytest_in(project, "--codeblocks", "page.md")  # no xdist: one process, as `make test-package` runs
    assert result.returncode == 1, result.stdout + result.stderr
    for line, ending in zip(heads, ENDS_THE_INTERPRETER):
        assert f"page.md::line {line} FAILED" in result.stdout, (ending, result.stdout)
    assert result.stdout.count("ended before its last line") >= len(ENDS_THE_INTERPRETER), result.stdout
    assert f"page.md::line {heads[-2]} FAILED" in result.stdout and "after every exit" in result.stdout
    assert f"page.md::line {heads[-1]} PASSED" in result.stdout


# Each a page with one problem, in a folder of its own; one pytest run collects them all.
PROBLEMS = [
    ("fence/page.md", "# P\n\n```Python\nraise SystemExit\n```\n", "fence/page.md:3: fence language 'Python'"),
    ("marker/README.md", "<!--pytest-codeblocks:skipfile-->\n# R\n", "marker/README.md:1: not a marker"),
    ("unclosed/page.md", "# P\n\n```python\nprint(1)\n", "unclosed/page.md:3: a fence that is never closed"),
]


def test_a_page_with_a_problem_fails_the_run_naming_page_and_line(project):
    """Each page's problem is reported with its own page and line, and the run fails."""
    for name, text, _ in PROBLEMS:
        (project / name).parent.mkdir()
        write(project, name, text)
    result = pytest_in(project, "--codeblocks", *(name for name, _, _ in PROBLEMS))
    assert result.returncode != 0, result.stdout
    missing = [where for _, _, where in PROBLEMS if where not in result.stdout]
    assert missing == [], result.stdout


BLOCK_DOCS = """
import sys
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"mkdocs", "pymdownx", "markdown", "material", "mkdocs_jupyter", "torch"}:
            raise ModuleNotFoundError(f"{name} is blocked: only the test extra is installed")
sys.meta_path.insert(0, Blocked())
"""


def test_the_package_tests_run_with_only_the_test_extra(project):
    """With the docs toolchain and torch unimportable, unit tests run, .md blocks run, a block that needs torch
    skips, and site tests skip; under CI=true the site tests fail, and with MICROGPT_REQUIRE_TORCH=1 the torch
    block is run, not skipped."""
    (project / "sitecustomize.py").write_text(BLOCK_DOCS)
    for name in ("test_optim.py", "test_site_build.py"):  # wherever they are under tests/
        (test,) = (ROOT / "tests").rglob(name)
        shutil.copy(test, project / test.relative_to(ROOT))
    write(project, "page.md", "```python\nprint(1)\n```\n")
    write(project, "torch.md", "<!--pytest-codeblocks:importorskip(torch)-->\n```python\nprint(1)\n```\n")
    env = {**os.environ, "PYTHONPATH": str(project)}
    for name in ("CI", "MICROGPT_REQUIRE_TORCH"):
        env.pop(name, None)
    result = pytest_in(project, "--codeblocks", "tests", "page.md", "torch.md", "-rs", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "page.md::line 1 PASSED" in result.stdout and "docs toolchain is not installed" in result.stdout
    assert "torch.md::line 2 SKIPPED" in result.stdout
    result = pytest_in(project, "tests/site/test_site_build.py", env={**env, "CI": "true"})
    assert result.returncode != 0 and "CI=true: the docs toolchain is not installed" in result.stdout
    # run in a fresh interpreter (where torch is installed, it passes; where not, it fails): never skipped
    result = pytest_in(project, "--codeblocks", "torch.md", env={**env, "MICROGPT_REQUIRE_TORCH": "1"})
    assert "torch.md::line 2 SKIPPED" not in result.stdout and "torch.md::line 2 " in result.stdout


def test_strict_builds_are_never_quiet():
    """--quiet hides the warnings that --strict fails on; make test and CI must show them."""
    for name in ("Makefile", ".ci/run"):
        path = ROOT / name
        lines = path.read_text(encoding="utf-8").split("\n") if path.exists() else []
        loud = [line for line in lines if "--strict" in line and ("--quiet" in line or " -q" in line)]
        assert not loud, f"{name}: {loud}"
