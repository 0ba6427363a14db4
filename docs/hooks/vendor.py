"""Serve the site's front-end files from node_modules/, which `npm ci` fills from package-lock.json.

No third-party file is committed: `npm ci` checks every file against its integrity hash, and this
hook adds the files the pages use to the build (`on_files`), so `mkdocs build` and `mkdocs serve`
both publish them. To serve another npm package, add a line to VENDOR (and the package to
package.json). A missing or stale node_modules stops the build with one line that says to run `npm ci`.

A script that imports npm packages by name is bundled: esbuild (pinned in package.json) turns each
entry of BUNDLES into one file, with the packages it imports, into .cache/bundles/ on every build (a
fraction of a second), and the site serves it with the licences of the packages inside it.
"""

from __future__ import annotations

import json
import subprocess
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
# site file: the script it is bundled from (its imports of npm packages resolved from node_modules/)
BUNDLES = {
    # the code editor of the Run buttons (CodeMirror 6), loaded when a reader first presses Edit
    "javascripts/run/editor.js": "docs/javascripts/editor/index.js",
}
# used while the site is built, served as they are by no page: Temml typesets the math
# (docs/hooks/typeset_math.py), STIX Two Math is cut to the characters it uses (docs/hooks/math_font.py),
# esbuild bundles BUNDLES
BUILD_ONLY = ["temml", "@fontsource/stix-two-math", "esbuild"]
BUNDLED = ROOT / ".cache" / "bundles"


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


def bundle(site_path: str, entry: str) -> dict[str, Path]:
    """Bundle entry with esbuild; {site path: file} of the bundle and of the licences of what it holds."""
    out = BUNDLED / site_path
    meta = out.with_name(out.name + ".meta.json")
    command = [
        str(installed("esbuild") / "bin" / "esbuild"),
        entry,
        "--bundle",
        "--format=esm",
        "--minify",
        "--target=es2020",
        "--legal-comments=none",  # the licences go in a file of their own, below
        f"--banner:js=/* {Path(site_path).name}: bundled from {entry}; licences of the packages in it: "
        f"{Path(site_path).name}.LICENSES.txt */",
        f"--outfile={out}",
        f"--metafile={meta}",
        "--log-level=warning",
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise PluginError(f"esbuild could not bundle {entry}:\n{done.stderr.strip()}")
    licences = out.with_name(out.name + ".LICENSES.txt")
    licences.write_text(licence_text(json.loads(meta.read_text(encoding="utf-8"))), encoding="utf-8")
    return {site_path: out, f"{site_path}.LICENSES.txt": licences}


def licence_text(metafile: dict) -> str:
    """Each npm package the bundle holds, with its version and its licence file, in name order."""
    packages = set()
    for path in metafile["inputs"]:
        parts = Path(path).parts
        if "node_modules" in parts:
            at = parts.index("node_modules") + 1
            packages.add("/".join(parts[at : at + 2]) if parts[at].startswith("@") else parts[at])
    out = []
    for name in sorted(packages):
        folder = ROOT / "node_modules" / name
        version = json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"]
        licence = next((p for p in sorted(folder.glob("LICEN[CS]E*"))), None)
        text = licence.read_text(encoding="utf-8").strip() if licence else "(no licence file in the package)"
        out.append(f"{name} {version}\n\n{text}\n")
    return ("\n" + "-" * 72 + "\n\n").join(out)


def bundled_files() -> dict[str, Path]:
    return {path: file for site_path, entry in BUNDLES.items() for path, file in bundle(site_path, entry).items()}


def on_config(config):
    # fail at once, before the notebook is executed, when node_modules is not there
    for package in BUILD_ONLY:
        installed(package)
    vendored_files()
    return config


def on_files(files: Files, config) -> Files:
    for site_path, source in (vendored_files() | bundled_files()).items():
        files.append(File.generated(config, site_path, abs_src_path=str(source)))
    return files
