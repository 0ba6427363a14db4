"""Build the microgpt wheel with the site and serve it from the site, so the wheel a reader installs
is always the code the pages show.

`on_pre_build` builds it with the standard front end, `python -m build --wheel --no-isolation`
(setuptools from this environment, no network), from a copy of what the wheel is made of
(`wheel_inputs`), so the working tree gets no `build/` or `.egg-info`; under
`mkdocs serve`, which watches microgpt/, again on every rebuild (a few seconds).
`on_page_markdown` fills in `{{ install_command }}`; `on_post_build` writes the wheel to
`<site>/dist/` with `dist/latest.json` = {"wheel": <file name>, "version": <version>}, which the
in-browser Python reads to find it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"\{\{\s*install_command\s*\}\}")
OUT = Path(tempfile.mkdtemp(prefix="microgpt-wheel-"))  # the wheel of this process's last build
_built = {"wheel": ""}


def wheel_inputs(root: Path) -> list[Path]:
    """The files the wheel is made from: pyproject.toml, its readme and license file, the package."""
    package = (root / "microgpt").rglob("*")
    files = [root / "pyproject.toml", root / "README.md", root / "LICENSE"]
    return files + sorted(p for p in package if p.is_file() and "__pycache__" not in p.parts)


def install_command(site_url: str, wheel: str) -> str:
    """The one line a reader types to install the package the site serves."""
    return f"pip install {site_url if site_url.endswith('/') else site_url + '/'}dist/{wheel}"


def on_config(config):
    if not config.site_url:
        raise PluginError("docs/hooks/wheel.py: site_url is not set in mkdocs.yml; the install command needs it")
    return config


def on_pre_build(config) -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="microgpt-wheel-src-") as tmp:
        for file in wheel_inputs(ROOT):
            (Path(tmp) / file.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, Path(tmp) / file.relative_to(ROOT))
        command = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(OUT), tmp]
        done = subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=300)
    wheels = sorted(OUT.glob("*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise PluginError(f"docs/hooks/wheel.py: building the wheel failed:\n{tail}")
    _built["wheel"] = wheels[0].name


def on_page_markdown(markdown: str, page, config, files) -> str:
    return PLACEHOLDER.sub(lambda _: install_command(config.site_url, _built["wheel"]), markdown)


def on_post_build(config) -> None:
    dist = Path(config.site_dir) / "dist"
    dist.mkdir(parents=True, exist_ok=True)
    shutil.copy2(OUT / _built["wheel"], dist / _built["wheel"])
    # a wheel's file name is {distribution}-{version}-{python}-{abi}-{platform}.whl
    latest = {"wheel": _built["wheel"], "version": _built["wheel"].split("-")[1]}
    (dist / "latest.json").write_text(json.dumps(latest) + "\n", encoding="utf-8")
