"""Serve the site's front-end files from node_modules/, which `npm ci` fills from package-lock.json.

No third-party file is committed: `npm ci` checks every file against its integrity hash, and this
hook adds the files the pages use to the build (`on_files`), so `mkdocs build` and `mkdocs serve`
both publish them. To serve another npm package, add a line to VENDOR (and the package to
package.json). A missing or stale node_modules stops the build with one line that says to run `npm ci`.
"""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]

# site folder: npm package, folder inside it, the files the pages need (glob patterns)
VENDOR = {
    # the Python runtime the in-browser code runner loads on first use
    "vendor/pyodide": ("pyodide", ".", ["pyodide.mjs", "pyodide.asm.*", "python_stdlib.zip", "pyodide-lock.json"]),
    # the charts of the training widget (docs/javascripts/train/), loaded when the reader presses Start
    "vendor/uplot": ("uplot", "dist", ["uPlot.esm.js", "uPlot.min.css"]),
}
# used while the site is built, served as they are by no page: Temml typesets the math
# (docs/hooks/typeset_math.py), STIX Two Math is cut to the characters it uses (docs/hooks/math_font.py)
BUILD_ONLY = ["temml", "@fontsource/stix-two-math"]


def installed(package: str) -> Path:
    """node_modules/<package>, after checking it is there at the version package.json pins."""
    pinned = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]
    try:
        have = json.loads((ROOT / "node_modules" / package / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise PluginError(f"node_modules/{package} is missing: run `npm ci` in {ROOT}") from None
    if have != pinned[package]:
        raise PluginError(f"node_modules/{package} is {have}, package.json pins {pinned[package]}: run `npm ci`")
    return ROOT / "node_modules" / package


def vendored_files() -> dict[str, Path]:
    """Site path -> file in node_modules, for every file in VENDOR (each pattern must match)."""
    out = {}
    for site_dir, (package, folder, patterns) in VENDOR.items():
        base = installed(package) / folder
        for pattern in patterns:
            if not (found := sorted(base.glob(pattern))):
                raise PluginError(f"node_modules/{package}/{folder}/{pattern} is missing: run `npm ci` in {ROOT}")
            out.update({f"{site_dir}/{path.relative_to(base).as_posix()}": path for path in found})
    return out


def on_config(config):
    # fail at once, before the notebook is executed, when node_modules is not there
    for package in BUILD_ONLY:
        installed(package)
    vendored_files()
    return config


def on_files(files: Files, config) -> Files:
    for site_path, source in vendored_files().items():
        files.append(File.generated(config, site_path, abs_src_path=str(source)))
    return files
