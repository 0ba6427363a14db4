"""Building the site for the site tests: building it, serving it, throwaway copies, the reader's install.

Imported by the tests and by page_blocks.py, so it imports only the standard library and
pytest; mkdocs runs in a subprocess. Without the docs toolchain the site tests skip (CI=true: fail).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import venv
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS_EXTRA = "the docs toolchain is not installed: pip install -e '.[docs,test]'"


def require_docs_toolchain() -> None:
    """Skip the calling test module without mkdocs; fail instead under CI=true, where nothing may skip silently."""
    try:
        import mkdocs  # noqa: F401  (is the docs toolchain installed? a site test skips without it)
        import pymdownx  # noqa: F401  (is the docs toolchain installed? a site test skips without it)

        return
    except ImportError:
        pass
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true: {DOCS_EXTRA}", pytrace=False)
    pytest.skip(DOCS_EXTRA, allow_module_level=True)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without a log line per request."""

    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A browser drops a request it no longer wants when its page navigates away or closes; that
        # is no error of the site, and its traceback in the test output would look like one.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@contextlib.contextmanager
def serving(directory: Path, handler: type[http.server.SimpleHTTPRequestHandler] = QuietHandler) -> Iterator[str]:
    """`directory` over HTTP on 127.0.0.1 while the block runs; yields the base URL (no trailing slash)."""
    server = _Server(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def copy_project(dest: Path, notebooks: bool = False) -> Path:
    """What a build reads, copied to `dest`. Without `notebooks` the mkdocs-jupyter plugin and the
    notebook's nav entry are left out: nothing is executed, and a build takes seconds, not ten."""
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    for name in ("docs", "microgpt", "overrides"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE", "package.json", "package-lock.json"):
        if (ROOT / name).exists():  # the wheel is built from the first three; mgsite.prepare reads the npm files
            shutil.copy2(ROOT / name, dest / name)
    if (ROOT / "node_modules").is_dir():  # Temml, the math font and Pyodide (mgsite/vendor.py)
        (dest / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    if not notebooks:
        config = re.sub(r"\n  - mkdocs-jupyter:\n(?:      .*\n|\s*#.*\n)*", "\n", config)
        config = re.sub(r"\n *- [^\n]*\.ipynb\n", "\n", config)
    (dest / "mkdocs.yml").write_text(config, encoding="utf-8")
    return dest


def build(project: Path, site: Path) -> subprocess.CompletedProcess:
    """What `make build` runs: `python -m mgsite.prepare`, `mkdocs build --strict` (never --quiet: it would
    hide the warnings --strict fails on), `python -m mgsite.finish`; the first step that fails, or the last."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    # the site's own venv (Python 3.12+, the Makefile's SITE_VENV): `make test` names its mkdocs
    mkdocs = os.environ.get("MICROGPT_MKDOCS") or str(ROOT / ".venv-site" / "bin" / "mkdocs")
    python = str(Path(mkdocs).with_name("python"))
    steps = [
        [python, "-m", "mgsite.prepare", str(project)],
        [mkdocs, "build", "--strict", "-f", str(project / "mkdocs.yml"), "-d", str(site)],
        [python, "-m", "mgsite.finish", str(site), str(project)],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            break
    return done


def markdown_pages(root: Path = ROOT) -> list[Path]:
    """Every Markdown page of the site, and README.md."""
    pages = [p for p in sorted((root / "docs").rglob("*.md")) if not {"hooks", "vendor"} & set(p.parts)]
    return pages + [root / "README.md"]


def site_page(site: Path, page: Path, root: Path = ROOT) -> str:
    """The built HTML of docs/<page>.md."""
    rel = page.relative_to(root / "docs").with_suffix("")
    out = site / ("index.html" if rel.name == "index" else rel / "index.html")
    return out.read_text(encoding="utf-8")


def site_url(root: Path = ROOT) -> str:
    """mkdocs.yml's site_url: where the site is hosted, and the path it is served under."""
    m = re.search(
        r"^site_url:\s*(?:&\w+\s+)?(\S+)\s*$", (root / "mkdocs.yml").read_text(encoding="utf-8"), re.MULTILINE
    )
    assert m, "mkdocs.yml has no site_url"
    return m.group(1)


@functools.cache
def reader(site: Path) -> Path:
    """A fresh virtualenv with the wheel `site` serves, installed as a reader installs it; its python.

    The site is served over HTTP on 127.0.0.1 under the path of its site_url, and the install command
    the pages show (mgsite/wheel.py) is run against it. Made once per process, removed at exit.
    """
    from mgsite.wheel import install_command  # here: it loads mkdocs (mgsite.errors), which page_blocks.py needs not

    home = Path(tempfile.mkdtemp(prefix="microgpt-reader-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    mount = home / "www" / urlsplit(site_url()).path.strip("/")
    mount.parent.mkdir(parents=True)
    mount.symlink_to(site.resolve(), target_is_directory=True)
    venv.EnvBuilder(with_pip=False).create(home / "venv")  # this environment's pip installs into it
    python = home / "venv" / "bin" / "python"
    wheel = json.loads((site / "dist" / "latest.json").read_text(encoding="utf-8"))["wheel"]
    with serving(home / "www") as url:
        command = install_command(f"{url}{urlsplit(site_url()).path}", wheel).split()
        assert command[:2] == ["pip", "install"], command
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", str(python), "install"]
        # the wheel has no dependencies, so no index is needed for it: nothing is downloaded
        done = subprocess.run(
            [*pip, "--quiet", "--no-index", *command[2:]], capture_output=True, text=True, timeout=300
        )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return python
