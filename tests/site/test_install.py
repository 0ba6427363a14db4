"""What a reader installs: the wheel the built site serves, installed with the site's own install command
into a fresh virtualenv (tests/sitecheck.py's `reader`, from the site served over HTTP on 127.0.0.1
under the path of its site_url, /backprop/).

Every Python block of every page (and of README.md) runs against that install in the codeblocks run
(tests/page_blocks.py, when `make test` gives the built site): once, not again here. Here: the install
is the wheel and not the checkout, the command line works, and the notebook's code cells run there,
from an empty directory, without torch (which the reader's virtualenv does not have).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from html import unescape
from pathlib import Path

import pytest
from sitecheck import ROOT, markdown_pages, require_docs_toolchain, site_url

import microgpt

# with --dist loadgroup, this file's module-wide fixtures (a copy of the project, its builds; the
# notebook's run; the reader's virtualenv) are made once, on one worker
pytestmark = pytest.mark.xdist_group("test_install")

require_docs_toolchain()  # the site's build (mgsite) runs with the docs toolchain

from mgsite import blocks, prepare, wheel  # noqa: E402

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
VERSION = microgpt.__version__  # written once, in microgpt/__init__.py; pyproject.toml reads it
NOTEBOOKS = sorted((ROOT / "docs").rglob("*.ipynb"))


def mkdocs_yml() -> str:
    return (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def site_pages(site: Path) -> dict[str, str]:
    """Built HTML of every Markdown page under docs/, keyed by its path there (index.md -> index.html)."""
    pages = {}
    for md in markdown_pages()[:-1]:  # the last is README.md, which is not a page of the site
        rel = md.relative_to(ROOT / "docs")
        html = site / ("index.html" if rel.name == "index.md" else rel.with_suffix("") / "index.html")
        # as a reader sees it: the highlighter splits a command into one <span> per token
        pages[rel.as_posix()] = unescape(re.sub(r"<[^>]+>", "", html.read_text(encoding="utf-8")))
    return pages


# each code cell's stdout follows the line CELL + its id
CELL = "--- cell "


def notebook_program(notebook: Path) -> str:
    """The notebook's code cells as one program, each announcing itself on stdout before it runs."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    return "".join(f"print({CELL + c['id']!r})\n" + "".join(c["source"]) + "\n" for c in code)


def has_module(python: Path, name: str, cwd: Path) -> bool:
    check = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({name!r}) is None)"
    return subprocess.run([str(python), "-c", check], cwd=cwd, check=False).returncode == 0


def run(cmd: list[str], cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run outside the checkout, with nothing from the test environment on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    result = subprocess.run(
        cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, f"{' '.join(cmd)} failed:\n{result.stdout}\n{result.stderr}"
    return result


# ---------------------------------------------------------------------------- what the site serves


def test_the_site_serves_the_wheel_and_names_it_in_latest_json(built_site):
    dist = built_site / "dist"
    latest = json.loads((dist / "latest.json").read_text(encoding="utf-8"))
    project = PYPROJECT["project"]
    name = re.sub(r"[-_.]+", "_", project["name"]).lower()
    assert latest == {"wheel": f"{name}-{VERSION}-py3-none-any.whl", "version": VERSION}
    assert sorted(p.name for p in dist.iterdir()) == sorted([latest["wheel"], "latest.json"])


def test_the_wheel_holds_the_package_source_unchanged(built_site):
    wheel = json.loads((built_site / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    with zipfile.ZipFile(built_site / "dist" / wheel) as z:
        packaged = {n: z.read(n) for n in z.namelist() if n.startswith("microgpt/")}
        metadata = next(z.read(n).decode() for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    source = {
        p.relative_to(ROOT).as_posix(): p.read_bytes()
        for p in (ROOT / "microgpt").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert packaged.keys() == source.keys()
    assert [n for n in source if packaged[n] != source[n]] == []
    assert "License-Expression: MIT" in metadata.splitlines()


def test_the_sdist_holds_the_package_and_leaves_the_tests_out(tmp_path):
    # setuptools would add tests/*/test_*.py without their helpers or the site; MANIFEST.in prunes them
    script = "import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])"
    tree = tmp_path / "tree"
    for file in wheel.wheel_inputs(ROOT) + [ROOT / "MANIFEST.in", *sorted((ROOT / "tests").rglob("test_*.py"))]:
        (tree / file.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        (tree / file.relative_to(ROOT)).write_bytes(file.read_bytes())
    run([sys.executable, "-c", script, str(tmp_path / "out")], cwd=tree)
    (sdist,) = (tmp_path / "out").glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        top = {Path(*Path(n).parts[1:2]).as_posix() for n in tar.getnames() if len(Path(n).parts) > 1}
    expected = {"LICENSE", "MANIFEST.in", "PKG-INFO", "README.md", "pyproject.toml", "setup.cfg"}
    assert top == expected | {"microgpt", "microgpt_backprop.egg-info"}


def test_pages_show_the_install_command_for_the_served_wheel(built_site):
    served = json.loads((built_site / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    want = wheel.install_command(site_url(), served)
    pages = site_pages(built_site)
    embedding = [md for md in pages if blocks.INSTALL_EMBED in (ROOT / "docs" / md).read_text(encoding="utf-8")]
    assert embedding and [md for md in embedding if want not in pages[md] or "--8&lt;--" in pages[md]] == []
    shown = {c for page in built_site.rglob("*.html") for c in re.findall(r"pip install \S+?\.whl", page.read_text())}
    assert shown <= {want}, f"pages show {shown - {want}}, the site serves {want}"


def test_readme_gives_the_install_command_of_the_hosted_site(built_site):
    served = json.loads((built_site / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    want = wheel.install_command(site_url(), served)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"pip install \S+\.whl", readme) == [want], f"README.md should give `{want}`, once"


# tests/site/test_site_build.py: the home page shows the install line, and the former placeholder fails the build


def test_a_build_without_site_url_fails_and_says_why_in_one_line(tmp_path, capsys):
    """mgsite.prepare, which `make build` and `make build-zensical` run first, writes the install line
    from site_url: without one it stops, in one line, before building anything."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(re.sub(r"(?m)^site_url:.*\n", "", config), encoding="utf-8")
    assert prepare.main([str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mkdocs.yml has no site_url" in err, err
    assert not (tmp_path / "docs").exists() and not (tmp_path / blocks.INSTALL_LINE).exists()


# ---------------------------------------------------------------------------- where the code lives


def test_site_url_repository_link_and_package_urls_agree():
    owner, repo = re.fullmatch(r"https://([\w-]+)\.github\.io/([\w.-]+)/", site_url()).groups()
    repository = f"https://github.com/{owner}/{repo}"
    links = re.findall(r"^\s+link:\s*(\S+)\s*$", mkdocs_yml(), re.MULTILINE)
    assert repository in links, f"mkdocs.yml's extra.social should link {repository}"
    assert PYPROJECT["project"]["urls"] == {"Documentation": site_url(), "Source": repository}
    assert not re.search(r"^repo_url:", mkdocs_yml(), re.MULTILINE)  # Material would call the GitHub API


def test_every_page_links_the_repository_in_its_footer(built_site):
    owner, repo = re.fullmatch(r"https://([\w-]+)\.github\.io/([\w.-]+)/", site_url()).groups()
    missing = [
        p.relative_to(built_site).as_posix()
        for p in built_site.rglob("index.html")
        if f'href="https://github.com/{owner}/{repo}"' not in p.read_text(encoding="utf-8")
    ]
    assert missing == []


# ---------------------------------------------------------------------------- the reader's install


def test_the_install_is_the_wheel_not_the_checkout(reader_python, tmp_path):
    code = "import microgpt, sys; print(microgpt.__file__); print(microgpt.__version__); print(sys.prefix)"
    path, installed, prefix = run([str(reader_python), "-c", code], cwd=tmp_path).stdout.split()
    assert Path(path).is_relative_to(prefix) and not Path(path).is_relative_to(ROOT)
    assert installed == VERSION
    cli = run([str(reader_python.parent / "microgpt"), "--version"], cwd=tmp_path).stdout
    assert installed in cli


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_notebook_code_runs_against_the_installed_wheel_without_torch(notebook, reader_python, tmp_path):
    assert not has_module(reader_python, "torch", tmp_path)
    out = run([str(reader_python), "-"], cwd=tmp_path, stdin=notebook_program(notebook)).stdout
    cells = dict(part.split("\n", 1) for part in out.split(CELL)[1:])
    if notebook.name == "backprop-by-hand.ipynb":  # tests/package/test_notebook.py checks the rest
        assert cells["manual-engine"] == "a.grad = -3, b.grad = 2, d.grad = 1\n"
        assert cells["challenge-by-hand"].endswith("microgpt: dL/da = 7, dL/db = 2, dL/dd = -1\n")
