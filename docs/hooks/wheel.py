"""Build the microgpt wheel with the site and serve it from the site.

Readers install the package from the site itself, so the wheel they get is always the code the
pages show:

1. `on_pre_build` builds the wheel from pyproject.toml with the standard front end, `python -m build
   --wheel --no-isolation` (setuptools from this environment, no network; it names any build
   requirement missing here), in a temporary copy of the files the wheel is made from,
   so the working tree gets no `build/` or `.egg-info`. Under `mkdocs serve` it is rebuilt only
   when one of those files changed.
2. `on_page_markdown` replaces the placeholder `{{ install_command }}` on every page with
   `pip install <site_url>dist/<wheel file>`; no page types a version or a wheel name.
3. `on_post_build` writes the wheel to `<site>/dist/<wheel file>` and
   `<site>/dist/latest.json` = `{"wheel": <wheel file>, "version": <version>}`, which the
   in-browser Python reads to find it.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

PLACEHOLDER = re.compile(r"\{\{\s*install_command\s*\}\}")
DIST = "dist"  # the folder of the site that serves the wheel
LATEST = "latest.json"


@dataclass(frozen=True)
class Wheel:
    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def version(self) -> str:
        # a wheel's file name is {distribution}-{version}-{python}-{abi}-{platform}.whl
        return self.name.split("-")[1]


def install_command(site_url: str, wheel_name: str) -> str:
    """The one line a reader types to install the package the site serves."""
    base = site_url if site_url.endswith("/") else site_url + "/"
    return f"pip install {base}{DIST}/{wheel_name}"


# ---------------------------------------------------------------------------- building


def wheel_inputs(root: Path) -> list[Path]:
    """The files the wheel is built from, read from pyproject.toml (package directories, readme, licenses)."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        raise PluginError(f"docs/hooks/wheel.py: no pyproject.toml next to mkdocs.yml in {root}")
    meta = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    project = meta["project"]
    packages = meta.get("tool", {}).get("setuptools", {}).get("packages")
    if not isinstance(packages, list):
        raise PluginError("docs/hooks/wheel.py expects tool.setuptools.packages to be a list of package names")
    readme = project.get("readme")
    names = [readme["file"] if isinstance(readme, dict) else readme] if readme else []
    files = [pyproject] + [root / name for name in names]
    for pattern in project.get("license-files", []):
        files += sorted(root.glob(pattern))
    for package in packages:
        directory = root / package.replace(".", "/")
        files += sorted(p for p in directory.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return files


def build_wheel(root: Path, inputs: list[Path], out: Path) -> Wheel:
    """Build the wheel from a copy of `inputs` into `out`, with `python -m build` in a subprocess."""
    with tempfile.TemporaryDirectory(prefix="microgpt-wheel-src-") as tmp:
        for file in inputs:
            target = Path(tmp) / file.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, target)
        command = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), tmp]
        result = subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=300)
    wheels = sorted(out.glob("*.whl"))
    if result.returncode != 0 or len(wheels) != 1:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        raise PluginError(f"docs/hooks/wheel.py: building the wheel failed:\n{tail}")
    return Wheel(wheels[0])


class _State:
    """The wheel of this process (one `mkdocs build`, or every rebuild of one `mkdocs serve`)."""

    def __init__(self) -> None:
        self.workdir: Path | None = None  # made on the first build, removed when the process exits
        self.key = ""
        self.wheel: Wheel | None = None

    def wheel_for(self, root: Path) -> Wheel:
        inputs = wheel_inputs(root)
        digest = hashlib.sha256()
        for file in inputs:
            digest.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
        key = digest.hexdigest()
        if self.wheel is None or key != self.key:
            if self.workdir is None:
                self.workdir = Path(tempfile.mkdtemp(prefix="microgpt-wheel-"))
                atexit.register(shutil.rmtree, self.workdir, True)
            out = self.workdir / key[:16]
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            self.wheel, self.key = build_wheel(root, inputs, out), key
        return self.wheel


_state = _State()


def _current() -> Wheel:
    if _state.wheel is None:
        raise PluginError("docs/hooks/wheel.py: the wheel was not built (on_pre_build did not run)")
    return _state.wheel


# ---------------------------------------------------------------------------- mkdocs events


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if not config.site_url:
        raise PluginError("docs/hooks/wheel.py: site_url is not set in mkdocs.yml; the install command needs it")
    return config


def on_pre_build(config: MkDocsConfig) -> None:
    _state.wheel_for(Path(config.config_file_path).resolve().parent)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    command = install_command(config.site_url or "", _current().name)
    return PLACEHOLDER.sub(lambda _: command, markdown)


def on_post_build(config: MkDocsConfig) -> None:
    wheel = _current()
    dist = Path(config.site_dir) / DIST
    dist.mkdir(parents=True, exist_ok=True)
    shutil.copy2(wheel.path, dist / wheel.name)
    latest: dict[str, Any] = {"wheel": wheel.name, "version": wheel.version}
    (dist / LATEST).write_text(json.dumps(latest) + "\n", encoding="utf-8")
