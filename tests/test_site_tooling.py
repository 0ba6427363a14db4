"""The checks catch what they are for: each kind of lie below makes `make test` fail.

Each test works on a throwaway copy of the project in a tmp dir, never on the real pages.
"""

import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
from sitecheck import (
    ROOT,
    _original_extract,
    block_accounting,
    build,
    copy_project,
    embed_problems,
    extract_from_file,
    fence_problems,
    html_blocks,
    site_pages,
)

pytestmark = pytest.mark.slow


def page(text: str) -> str:
    return textwrap.dedent(text).lstrip()


def run_codeblocks(project, *pages):
    """pytest --codeblocks on pages of a project copy, with the project's own conftest.py and plugin."""
    (project / "tests").mkdir(exist_ok=True)
    shutil.copy(ROOT / "conftest.py", project / "conftest.py")
    shutil.copy(ROOT / "tests" / "sitecheck.py", project / "tests" / "sitecheck.py")
    cmd = [sys.executable, "-m", "pytest", "--codeblocks", "-v", "-p", "no:cacheprovider", *pages]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run(cmd, cwd=project, capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return copy_project(tmp_path_factory.mktemp("project"))


def test_wrong_expected_output_fails(project):
    right = """
        ```python
        --8<-- "microgpt/engine.py:value"
        ```

        <!--pytest-codeblocks:cont-->
        ```python
        --8<-- "microgpt/engine.py:topo"
        ```

        <!--pytest-codeblocks:cont-->
        ```python
        a = Value(3.0)
        b = a + a
        b.backward()
        print(a.grad)
        ```

        <!--pytest-codeblocks:expected-output-->
        ```text
        2
        ```
    """
    (project / "docs" / "right.md").write_text(page(right))
    (project / "docs" / "wrong.md").write_text(page(right).replace("```text\n2\n", "```text\n1\n"))
    result = run_codeblocks(project, "docs/right.md", "docs/wrong.md")
    assert "docs/right.md::line 1 PASSED" in result.stdout, result.stdout
    assert "docs/wrong.md::line 1 FAILED" in result.stdout, result.stdout
    assert "Expected output" in result.stdout and result.returncode != 0


def test_missing_section_fails_the_strict_build(tmp_path):
    for fence in ("python", "text"):  # the embed hook, and pymdownx.snippets' check_paths for other fences
        project = copy_project(tmp_path / fence)
        (project / "docs" / "missing.md").write_text(
            page(f"""
                # Missing

                ```{fence}
                --8<-- "microgpt/engine.py:no_such_section"
                ```
            """)
        )
        result = build(project, tmp_path / f"site-{fence}")
        assert result.returncode != 0, f"a {fence} fence with a missing section built:\n{result.stderr}"
        assert "no_such_section" in result.stderr


def test_stale_line_numbers_fail_the_embed_check(built_site, tmp_path):
    blocks = [b for b in html_blocks(site_pages(built_site)["backward-pass.md"]) if b.title]
    block = next(b for b in blocks if "lines" in b.title)
    assert embed_problems(block) == []

    # the file gained two lines after the page was built: the numbers shown are stale
    shutil.copytree(ROOT / "microgpt", tmp_path / "microgpt")
    engine = tmp_path / "microgpt" / "engine.py"
    engine.write_text("# one\n# two\n" + engine.read_text(encoding="utf-8"), encoding="utf-8")
    assert embed_problems(block, root=tmp_path)

    # a gutter off by one, and a title whose range disagrees with the gutter
    first = block.title.split("lines ")[1].split("–")[0]
    shifted = re.sub(rf">\s*{first}</a>", f">{int(first) - 1}</a>", block.html, count=1)
    assert shifted != block.html
    assert embed_problems(type(block)(block.lang, shifted, block.marks, block.title))
    retitled = block.title.replace(f"lines {first}", f"lines {int(first) + 1}")
    assert embed_problems(type(block)(block.lang, block.html, block.marks, retitled))


@pytest.mark.parametrize(
    "fence",
    [
        '```python title="engine.py — lines 1–2"',
        '```python linenums="59"',
        '```python hl_lines="1"',
        "```py",
        "```pycon",
        "```python3",
        "~~~python",
    ],
)
def test_fences_pytest_codeblocks_would_not_collect_are_rejected(tmp_path, fence):
    md = tmp_path / "page.md"
    md.write_text(f"{fence}\nprint(1)\n{fence[:3]}\n")
    assert fence_problems(md)
    with pytest.raises(RuntimeError, match="skip or misread"):
        extract_from_file(md)


def test_titled_python_block_fails_the_run_and_the_block_count(tmp_path):
    project = copy_project(tmp_path / "project")  # its own copy: the build must see no other test's pages
    titled = page("""
        # Titled

        ```python title="looks fine on the site"
        raise SystemExit("never run")
        ```
    """)
    (project / "docs" / "titled.md").write_text(titled)
    with open(project / "mkdocs.yml", "a", encoding="utf-8") as config:  # nav is last; pages outside it fail
        config.write("  - Titled: titled.md\n")
    # pytest --codeblocks refuses to collect the page, so the run fails
    result = run_codeblocks(project, "docs/titled.md")
    assert result.returncode != 0 and "has attributes" in result.stdout + result.stderr
    # and with the plain extractor (no fence check), the block count does not add up
    result = build(project, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "site" / "titled" / "index.html").read_text(encoding="utf-8")
    problems, _ = block_accounting(project / "docs" / "titled.md", html, collect=_original_extract)
    assert any("1 Python blocks on the site" in p or "collects 0" in p for p in problems), problems


def test_misplaced_markers_are_rejected(tmp_path):
    md = tmp_path / "page.md"
    md.write_text(
        page("""
        ```python
        print(1)
        ```

        <!--pytest-codeblocks:expected-output-->
        ```python
        print("this would be read as output and never run")
        ```
    """)
    )
    assert any("never run" in p for p in fence_problems(md))
    md.write_text(
        page("""
        ```python
        x = 1
        ```

        <!--pytest.mark.skip(reason="lands on the next new block, not this one")-->
        <!--pytest-codeblocks:cont-->
        ```python
        print(x)
        ```
    """)
    )
    assert any("cont" in p for p in fence_problems(md))


def test_require_torch_turns_the_skip_into_a_run(tmp_path, monkeypatch):
    md = tmp_path / "page.md"
    md.write_text("<!--pytest-codeblocks:importorskip(no_such_module_xyz)-->\n```python\nprint(1)\n```\n")
    monkeypatch.delenv("MICROGPT_REQUIRE_TORCH", raising=False)  # as on a developer's machine
    assert extract_from_file(md)[0].importorskip == "no_such_module_xyz"
    monkeypatch.setenv("MICROGPT_REQUIRE_TORCH", "1")
    (block,) = extract_from_file(md)
    assert block.importorskip is None and block.code.startswith("import no_such_module_xyz")
