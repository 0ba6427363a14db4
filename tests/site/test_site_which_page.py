"""Each page knows itself: the build takes the page it converts from the generator, MkDocs or Zensical.

A small project built with the site's own Markdown extensions (mkdocs.yml's list), by each generator, holds pages
that share their ends: a/x.md and b/x.md, whose paths end alike and whose text does too (b/x.md is the last lines of
a/x.md), and a page holding only an embed that another page ends with. Each must get its own blocks and code,
numbered from its own first block, and the embed its lines.
"""

import os
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from mgsite import blocks as mdblocks
from mgsite.errors import PageError
from site_features import features
from sitecheck import ROOT, require_docs_toolchain

# with --dist loadgroup, the module's builds are made once, on one worker
pytestmark = pytest.mark.xdist_group("test_site_which_page")

require_docs_toolchain()

MKDOCS = Path(os.environ.get("MICROGPT_MKDOCS") or ROOT / ".venv-site" / "bin" / "mkdocs")
ZENSICAL = MKDOCS.with_name("zensical")  # installed beside MkDocs by the Makefile's targets that build with it

EMBED = '```python\n--8<-- "microgpt/engine.py:Value.backward"\n```\n'
TAIL = "## The end\n\n```python\ny = 2\nprint(y)\n```\n\n<!--pytest-codeblocks:expected-output-->\n\n```text\n2\n```\n"
PAGES = {
    "a/x.md": "# Whole\n\n```python\nx = 1\n```\n\nThen:\n\n" + TAIL,
    "b/x.md": TAIL,  # the last lines of a/x.md, under the same name
    "engine.md": "# The engine\n\nIts backward:\n\n" + EMBED,
    "embed.md": EMBED,  # the last lines of engine.md
}


def site_config() -> str:
    """A configuration with the site's Markdown extensions, as mkdocs.yml lists them (and no plugin, no nav)."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    extensions = re.search(r"^markdown_extensions:\n(?:(?:  .*|\s*)\n)+", config, re.MULTILINE)
    assert extensions, "mkdocs.yml lists no markdown_extensions"
    return f"site_name: Pages that share their ends\nsite_url: https://example.org/\n{extensions[0]}"


def make_project(path: Path) -> Path:
    (path / "docs").mkdir(parents=True)
    (path / "microgpt").symlink_to(ROOT / "microgpt", target_is_directory=True)
    if (ROOT / "node_modules").is_dir():
        (path / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    for name, text in PAGES.items():
        (path / "docs" / name).parent.mkdir(exist_ok=True)
        (path / "docs" / name).write_text(text, encoding="utf-8")
    (path / "mkdocs.yml").write_text(site_config(), encoding="utf-8")
    return path


def run(project: Path, command: list[str]) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command[0]} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module", params=["mkdocs", "zensical"])
def built(request, tmp_path_factory) -> Path:
    """The project, built by one generator; the folder of its pages."""
    project = make_project(tmp_path_factory.mktemp(request.param) / "project")
    if request.param == "mkdocs":
        run(project, [str(MKDOCS), "build", "--strict", "-d", str(project / "site")])
    else:
        if not ZENSICAL.is_file():
            why = f"no Zensical beside {MKDOCS}: `make build-zensical` installs it"
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(why, pytrace=False)
            pytest.skip(why)
        (project / "zensical.yml").write_text(site_config() + "site_dir: site\n", encoding="utf-8")
        run(project, [str(ZENSICAL), "build", "--clean", "-f", "zensical.yml"])
    return project / "site"


def expected(name: str) -> list[tuple[str, ...]]:
    """What the blocks reader (the one the tests run pages with) says the page's code blocks are, as
    site_features reads them from a built page: language, run attributes, an embed's title, any other's code."""
    page = mdblocks.parse(PAGES[name], f"docs/{name}", ROOT)
    assert not page.problems, page.problems
    found: list[tuple[str, ...]] = []
    for fence in page.fences:
        if fence.run is not None:
            defines = (f"data-mg-defines={fence.defines}",) if fence.defines else ()
            found.append(("block", "language-python", *defines, f"data-mg-run={fence.run}"))
        else:
            found.append(("block", f"language-{fence.info}", f"data-mg-expected={fence.expected_for}"))
        if fence.embed:  # its title names its lines (site_features reads no code under a title)
            found.append(("title", fence.embed.title))
        else:
            found.append(("code", fence.code))
    return found


def blocks_shown(site: Path, name: str) -> list[tuple[str, ...]]:
    html = (site / Path(name).with_suffix("") / "index.html").read_text(encoding="utf-8")
    return [f for f in features(html) if f[0] in ("block", "title", "code")]


@pytest.mark.parametrize(("page", "whose_end"), [("b/x.md", "a/x.md"), ("embed.md", "engine.md")])
def test_a_page_that_is_another_pages_end_gets_its_own_blocks(built, page, whose_end):
    for name in (page, whose_end):
        want = expected(name)
        assert any(f[0] == "block" and "data-mg-run=0" in f for f in want), f"{name} has no runnable block"
        assert blocks_shown(built, name) == want, name


# ---------------------------------------------------------------------------- when the page is not known
# Python-Markdown alone, as a generator would call it: the page named by the extension's `page` setting, or by a
# stand-in for MkDocs's relative-path tree processor (registered, as MkDocs does, after the extensions).


def convert(tmp_path: Path, text: str, page: str = "", relpath: Path | None = None) -> str:
    import markdown
    from mgsite.extension import SiteExtension

    (tmp_path / "docs").mkdir(exist_ok=True)
    if not (tmp_path / "microgpt").exists():
        (tmp_path / "microgpt").symlink_to(ROOT / "microgpt", target_is_directory=True)
    md = markdown.Markdown(extensions=[SiteExtension(root=str(tmp_path), page=page, typeset_math=False)])
    if relpath is not None:
        file = SimpleNamespace(abs_src_path=str(relpath), src_uri=relpath.name)
        md.treeprocessors.register(SimpleNamespace(file=file, run=lambda root: None), "relpath", 0)
    return md.convert(text)


def test_a_page_named_by_the_generator_gets_its_blocks(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "tail.md").write_text(TAIL, encoding="utf-8")
    assert 'data-mg-run="0"' in convert(tmp_path, TAIL, relpath=tmp_path / "docs" / "tail.md")
    assert 'data-mg-run="0"' in convert(tmp_path, TAIL, page="tail.md")


def test_a_page_with_no_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(
        PageError, match=re.escape("docs/gone.md: the page setting names this page, and there is no such file")
    ):
        convert(tmp_path, TAIL, page="gone.md")


def test_two_generators_naming_two_pages_is_an_error_naming_both(tmp_path):
    (tmp_path / "docs").mkdir()
    for name in ("a.md", "b.md"):
        (tmp_path / "docs" / name).write_text(TAIL, encoding="utf-8")
    with pytest.raises(
        PageError, match=re.escape("which page is this? MkDocs names docs/b.md, the page setting names docs/a.md")
    ):
        convert(tmp_path, TAIL, page="a.md", relpath=tmp_path / "docs" / "b.md")


def test_markdown_that_is_not_the_end_of_its_page_is_an_error_naming_the_cause(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "whole.md").write_text(PAGES["a/x.md"], encoding="utf-8")
    with pytest.raises(
        PageError,
        match=re.escape(
            "docs/whole.md: the Markdown the page setting converts for this page is not the end of its file"
        ),
    ):
        convert(tmp_path, PAGES["a/x.md"] + "\nA line a plugin added.\n", page="whole.md")


@pytest.mark.parametrize(
    ("relpath", "words"),
    [
        (
            Path("docs/notebooks/nb.ipynb"),
            "docs/notebooks/nb.ipynb: is no Markdown page, and only a page's embeds are found by name",
        ),
        (None, "no generator named the page, and only a page's embeds are found by name"),
    ],
)
def test_an_embed_by_name_outside_a_page_is_an_error_naming_why(tmp_path, relpath, words):
    """A notebook's Markdown cells, or text no generator names, get the steps that need no page: an embed by name,
    which only a page's lines can give its numbers, is an error (not pymdownx.snippets' missing snippet)."""
    with pytest.raises(PageError, match=re.escape(words)):
        convert(tmp_path, EMBED, relpath=relpath and tmp_path / relpath)
