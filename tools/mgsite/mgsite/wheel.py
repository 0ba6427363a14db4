"""Build the microgpt wheel the site serves, so the wheel a reader installs is the code the pages show.

`build_wheel` runs the standard front end, `python -m build --wheel --no-isolation` (setuptools from
this environment, no network), on a copy of what the wheel is made of (`wheel_inputs`), so the
working tree gets no `build/` or `.egg-info`. It writes the wheel into docs/dist/ (gitignored) with
`latest.json` = {"wheel": <file name>, "version": <version>}, which the in-browser Python reads to find
it; the generator publishes both as site/dist/.

`write_install_line` writes the one line a reader types to install that wheel from the hosted site
(`install_command`, from mkdocs.yml's site_url) to INSTALL_LINE (gitignored, not published), which
docs/index.md embeds in its console block with pymdownx.snippets (blocks.INSTALL_EMBED).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mgsite.blocks import INSTALL_LINE
from mgsite.errors import PageError
from microgpt.runtime.files import write_atomically

SITE_URL = re.compile(r"^site_url:\s*(?:&\w+\s+)?(\S+)\s*$", re.MULTILINE)  # mkdocs.yml's, as written


def wheel_inputs(root: Path) -> list[Path]:
    """The files the wheel is made from: pyproject.toml, its readme and license file, the package."""
    package = (root / "microgpt").rglob("*")
    files = [root / "pyproject.toml", root / "README.md", root / "LICENSE"]
    return files + sorted(p for p in package if p.is_file() and "__pycache__" not in p.parts)


def build_wheel(root: Path, dist: Path) -> str:
    """Build the wheel from `root` into dist/ (its only file besides latest.json); its file name."""
    with tempfile.TemporaryDirectory(prefix="microgpt-wheel-") as tmp:
        source, out = Path(tmp) / "src", Path(tmp) / "out"
        for file in wheel_inputs(root):
            (source / file.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, source / file.relative_to(root))
        command = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(source)]
        done = subprocess.run(command, cwd=source, capture_output=True, text=True, timeout=300)
        wheels = sorted(out.glob("*.whl"))
        if done.returncode != 0 or len(wheels) != 1:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            raise PageError(f"building the wheel failed:\n{tail}")
        wheel = wheels[0].name
        shutil.rmtree(dist, ignore_errors=True)
        dist.mkdir(parents=True)
        shutil.copy2(wheels[0], dist / wheel)
    # a wheel's file name is {distribution}-{version}-{python}-{abi}-{platform}.whl
    latest = {"wheel": wheel, "version": wheel.split("-")[1]}
    (dist / "latest.json").write_text(json.dumps(latest) + "\n", encoding="utf-8")
    return wheel


def install_command(site_url: str, wheel: str) -> str:
    """The one line a reader types to install the package the site serves."""
    return f"pip install {site_url if site_url.endswith('/') else site_url + '/'}dist/{wheel}"


def site_url(root: Path) -> str:
    """mkdocs.yml's site_url: where the site, and so the wheel, is hosted."""
    m = SITE_URL.search((root / "mkdocs.yml").read_text(encoding="utf-8"))
    if not m:
        raise PageError(f"mkdocs.yml has no site_url: the install line ({INSTALL_LINE}, on docs/index.md) needs it")
    return m[1]


def write_install_line(root: Path, site_url: str, wheel: str) -> None:
    """The install line as a console session shows it, for the page to embed."""
    target = root / INSTALL_LINE
    target.parent.mkdir(parents=True, exist_ok=True)
    # no newline at the end: snippets would show it as a blank line in the block
    write_atomically(target, f"$ {install_command(site_url, wheel)}".encode())
