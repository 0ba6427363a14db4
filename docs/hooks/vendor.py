"""Serve the site's front-end runtimes from node_modules/, which `npm ci` fills from package-lock.json.

No third-party file is committed: `npm ci` checks every file against the integrity hash in
package-lock.json, and this hook adds the few files the pages use to the build as mkdocs files
(`on_files`), so `mkdocs build` and `mkdocs serve` both publish them under vendor/:

    vendor/pyodide/  the Python runtime the in-browser code runner loads on first use
    vendor/uplot/    the charts of the training widget (docs/javascripts/train/), loaded on Start

Two more packages are used while the site is built and serve nothing as they are: KaTeX, which
typesets the math (docs/hooks/typeset_math.py), and STIX Two Math, which docs/hooks/math_font.py
cuts down to the characters the formulas use. They are checked here too.

A missing or stale node_modules stops the build with one line that says to run `npm ci`.
"""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent.parent
NODE_MODULES = ROOT / "node_modules"

# site folder -> (npm package, folder inside the package, glob patterns of the files it needs)
VENDOR = {
    "vendor/pyodide": (
        "pyodide",
        ".",
        ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"],
    ),
    "vendor/uplot": ("uplot", "dist", ["uPlot.esm.js", "uPlot.min.css"]),
}
BUILD_ONLY = ["katex", "@fontsource/stix-two-math"]


def pinned_versions() -> dict[str, str]:
    """package.json's exact versions: the one place they are written."""
    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    return {**manifest.get("dependencies", {}), **manifest.get("devDependencies", {})}


def check_installed(package: str) -> Path:
    """node_modules/<package>, after checking it is there at the version package.json pins."""
    where = NODE_MODULES / package
    want = pinned_versions().get(package)
    try:
        have = json.loads((where / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise PluginError(f"node_modules/{package} is missing: run `npm ci` in {ROOT}") from None
    if want is not None and have != want:
        raise PluginError(f"node_modules/{package} is {have}, package.json pins {want}: run `npm ci` in {ROOT}")
    return where


def vendored_files() -> dict[str, Path]:
    """Site path -> file in node_modules, for every file in VENDOR (each pattern must match)."""
    out = {}
    for site_dir, (package, folder, patterns) in VENDOR.items():
        base = check_installed(package) / folder
        for pattern in patterns:
            found = sorted(base.glob(pattern))
            if not found:
                raise PluginError(f"node_modules/{package}/{folder}/{pattern} is missing: run `npm ci` in {ROOT}")
            for path in found:
                out[f"{site_dir}/{path.relative_to(base).as_posix()}"] = path
    return out


def on_config(config):
    # fail at once, before the notebook is executed, when node_modules is not there
    for package in BUILD_ONLY:
        check_installed(package)
    vendored_files()
    # Material's search worker (its file name carries a hash), run by docs/javascripts/search-worker.js
    workers = [w for d in config.theme.dirs for w in Path(d).glob("assets/javascripts/workers/search.*.min.js")]
    if len(workers) != 1:
        raise PluginError(f"expected one search worker in the theme's assets, found {len(workers)}")
    config.extra["theme_search_worker"] = workers[0].relative_to(workers[0].parents[3]).as_posix()
    # ... and its script bundle, which overrides/main.html loads with `defer`
    bundles = [b for d in config.theme.dirs for b in Path(d).glob("assets/javascripts/bundle.*.min.js")]
    if len(bundles) != 1:
        raise PluginError(f"expected one script bundle in the theme's assets, found {len(bundles)}")
    config.extra["theme_bundle"] = bundles[0].relative_to(bundles[0].parents[2]).as_posix()
    return config


def on_files(files: Files, config) -> Files:
    for site_path, source in vendored_files().items():
        files.append(File.generated(config, site_path, abs_src_path=str(source)))
    return files
