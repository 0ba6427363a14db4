"""What a reader installs: the wheel the built site serves, in a fresh virtualenv, runs every page.

The site is served over HTTP on 127.0.0.1 under the path of its site_url (/backprop/), the wheel is
installed with the site's own install command into a new virtualenv, and every Python block of
every page (and of README.md), plus the notebook's code cells, runs with that virtualenv's Python
from an empty temporary directory: no checkout on the path, so `import microgpt` finds the wheel.

Torch is not installed into that virtualenv (the CPU build alone is hundreds of MB). Blocks marked
`importorskip(torch)` borrow it from the test environment instead: its directory goes at the *end*
of the block's sys.path, after the wheel, so microgpt still comes from the wheel. Without torch in
the test environment they skip, and with MICROGPT_REQUIRE_TORCH=1 (CI) they fail. NumPy is
installed, at the version of the test environment, because the tensor page needs it to run at all.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from html import unescape
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sitecheck import ROOT, build, copy_project, markdown_pages, require_docs_toolchain, serving

import microgpt

require_docs_toolchain()  # the blocks are read with the site's own reader, which needs pymdownx

from page_blocks import code_blocks  # noqa: E402  (after the toolchain check, so a missing one skips or fails clearly)

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
VERSION = microgpt.__version__  # written once, in microgpt/__init__.py; pyproject.toml reads it
NOTEBOOKS = sorted((ROOT / "docs").rglob("*.ipynb"))
RUN_BLOCK = "import sys; exec(compile(sys.stdin.read(), sys.argv[1], 'exec'), {'__MODULE__': '__main__'})"


def load_wheel_hook():
    spec = importlib.util.spec_from_file_location("wheel_hook", ROOT / "docs" / "hooks" / "wheel.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


HOOK = load_wheel_hook()


def mkdocs_yml() -> str:
    return (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def site_url() -> str:
    m = re.search(r"^site_url:\s*(\S+)\s*$", mkdocs_yml(), re.MULTILINE)
    assert m, "mkdocs.yml has no site_url"
    return m.group(1)


# ---------------------------------------------------------------------------- the blocks


@contextmanager
def torch_not_required() -> Iterator[None]:
    """Collect blocks with their importorskip intact (MICROGPT_REQUIRE_TORCH would turn it into an import)."""
    saved = os.environ.pop("MICROGPT_REQUIRE_TORCH", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["MICROGPT_REQUIRE_TORCH"] = saved


def page_blocks() -> list:
    """One pytest param per Python chain (a block and the cont blocks after it), as the site's reader sees it."""
    params = []
    with torch_not_required():
        for md in markdown_pages():
            for block in code_blocks(md, ROOT):
                name = f"{md.relative_to(ROOT).as_posix()}::line {block.lineno}"
                params.append(pytest.param(block, id=name))
    return params


def site_pages(site: Path) -> dict[str, str]:
    """Built HTML of every Markdown page under docs/, keyed by its path there (index.md -> index.html)."""
    pages = {}
    for md in markdown_pages()[:-1]:  # the last is README.md, which is not a page of the site
        rel = md.relative_to(ROOT / "docs")
        html = site / ("index.html" if rel.name == "index.md" else rel.with_suffix("") / "index.html")
        # as a reader sees it: the highlighter splits a command into one <span> per token
        pages[rel.as_posix()] = unescape(re.sub(r"<[^>]+>", "", html.read_text(encoding="utf-8")))
    return pages


def notebook_code(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


# ---------------------------------------------------------------------------- the reader's virtualenv


@pytest.fixture(scope="module")
def served_site(built_site: Path, tmp_path_factory) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, at the same path as site_url; yields its base URL."""
    mount = urlsplit(site_url()).path.strip("/")
    root = tmp_path_factory.mktemp("www")
    (root / mount).parent.mkdir(parents=True, exist_ok=True)
    (root / mount).symlink_to(built_site, target_is_directory=True)

    with serving(root) as url:
        yield f"{url}/{mount}/"


@pytest.fixture(scope="module")
def reader(served_site: str, built_site: Path, tmp_path_factory) -> Path:
    """A fresh virtualenv with the wheel installed from the served site; returns its python."""
    env_dir = tmp_path_factory.mktemp("reader") / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    wheel = json.loads((built_site / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    command = HOOK.install_command(served_site, wheel).split()
    assert command[:2] == ["pip", "install"], command
    # the wheel has no dependencies, so no index is needed for it
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
    run(pip + ["--no-index", *command[2:]])
    run(pip + [f"numpy=={version('numpy')}"])
    return python


def run(cmd: list[str], cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run outside the checkout, with nothing from the test environment on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    result = subprocess.run(
        cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, f"{' '.join(cmd)} failed:\n{result.stdout}\n{result.stderr}"
    return result


def has_module(python: Path, name: str, cwd: Path) -> bool:
    check = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({name!r}) is None)"
    return subprocess.run([str(python), "-c", check], cwd=cwd, check=False).returncode == 0


def borrowing(name: str) -> str:
    """A first line that appends the test environment's copy of `name` to sys.path (see the module docstring)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        why = f"{name} is installed neither in the reader's virtualenv nor in the test environment"
        if os.environ.get("MICROGPT_REQUIRE_TORCH") == "1":
            pytest.fail(f"MICROGPT_REQUIRE_TORCH=1: {why}", pytrace=False)
        pytest.skip(why)
    where = str(Path(spec.origin).parent.parent)
    return f"import sys; sys.path.append({where!r})  # {name} from the test environment, after the wheel\n"


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
    # setuptools would add tests/test_*.py without their helpers or the site; MANIFEST.in prunes them
    script = "import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])"
    tree = tmp_path / "tree"
    for file in HOOK.wheel_inputs(ROOT) + [ROOT / "MANIFEST.in", *sorted((ROOT / "tests").glob("test_*.py"))]:
        (tree / file.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        (tree / file.relative_to(ROOT)).write_bytes(file.read_bytes())
    run([sys.executable, "-c", script, str(tmp_path / "out")], cwd=tree)
    (sdist,) = (tmp_path / "out").glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        top = {Path(*Path(n).parts[1:2]).as_posix() for n in tar.getnames() if len(Path(n).parts) > 1}
    expected = {"LICENSE", "MANIFEST.in", "PKG-INFO", "README.md", "pyproject.toml", "setup.cfg"}
    assert top == expected | {"microgpt", "microgpt_backprop.egg-info"}


def test_pages_show_the_install_command_for_the_served_wheel(built_site):
    wheel = json.loads((built_site / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    want = HOOK.install_command(site_url(), wheel)
    pages = site_pages(built_site)
    with_placeholder = [md for md in pages if HOOK.PLACEHOLDER.search((ROOT / "docs" / md).read_text(encoding="utf-8"))]
    assert [md for md in with_placeholder if want not in pages[md] or HOOK.PLACEHOLDER.search(pages[md])] == []
    shown = {c for page in built_site.rglob("*.html") for c in re.findall(r"pip install \S+?\.whl", page.read_text())}
    assert shown <= {want}, f"pages show {shown - {want}}, the site serves {want}"


def test_readme_gives_the_install_command_of_the_hosted_site(built_site):
    wheel = json.loads((built_site / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    want = HOOK.install_command(site_url(), wheel)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"pip install \S+\.whl", readme) == [want], f"README.md should give `{want}`, once"


def test_the_placeholder_becomes_the_install_command(tmp_path):
    project = copy_project(tmp_path / "project")
    page = project / "docs" / "index.md"
    added = "\n```console\n{{ install_command }}\n```\n\nInline: `{{install_command}}`.\n"
    page.write_text(page.read_text(encoding="utf-8") + added, encoding="utf-8")
    result = build(project, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    wheel = json.loads((tmp_path / "site" / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    command = HOOK.install_command(site_url(), wheel)
    assert f"Inline: <code>{command}</code>." in html
    added_block = re.findall(r"<pre\b.*?</pre>", html, re.S)[-1]  # the page's last code block
    assert re.sub(r"<[^>]+>", "", added_block).strip() == command
    assert "install_command" not in html
    assert not (project / "build").exists() and not list(project.glob("*.egg-info"))  # the tree stays clean


def test_a_build_without_site_url_fails_and_says_why(tmp_path):
    project = copy_project(tmp_path / "project")
    config = project / "mkdocs.yml"
    config.write_text(re.sub(r"^site_url:.*$", "", config.read_text(encoding="utf-8"), flags=re.M), encoding="utf-8")
    result = build(project, tmp_path / "site")
    assert result.returncode != 0
    assert "site_url is not set" in result.stdout + result.stderr


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


def test_the_install_is_the_wheel_not_the_checkout(reader, tmp_path):
    code = "import microgpt, sys; print(microgpt.__file__); print(microgpt.__version__); print(sys.prefix)"
    path, installed, prefix = run([str(reader), "-c", code], cwd=tmp_path).stdout.split()
    assert Path(path).is_relative_to(prefix) and not Path(path).is_relative_to(ROOT)
    assert installed == VERSION
    cli = run([str(reader.parent / "microgpt"), "--version"], cwd=tmp_path).stdout
    assert installed in cli


@pytest.mark.parametrize("block", page_blocks())
def test_page_block_runs_against_the_installed_wheel(block, reader, tmp_path):
    code = block.code
    if block.importorskip and not has_module(reader, block.importorskip, tmp_path):
        code = borrowing(block.importorskip) + code
    result = run([str(reader), "-c", RUN_BLOCK, f"block at line {block.lineno}"], cwd=tmp_path, stdin=code)
    if block.expected_output is not None:
        got, want = result.stdout, block.expected_output
        if block.expected_output_ignore_whitespace:
            got, want = re.sub(r"\s+", "", got), re.sub(r"\s+", "", want)
        assert got == want


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_notebook_code_runs_against_the_installed_wheel(notebook, reader, tmp_path):
    run([str(reader), "-c", RUN_BLOCK, notebook.name], cwd=tmp_path, stdin=notebook_code(notebook))
