"""Serve the site's front-end files from node_modules/, which `npm ci` fills from package-lock.json.

No third-party file is committed: `npm ci` checks every file against its integrity hash, and
`python -m mgsite.prepare` copies the files the pages use into docs/ (gitignored paths), so every
generator publishes them. To serve another npm package, add a line to VENDOR (and the package to
package.json). A missing or stale node_modules stops the build with one line that says to run `npm ci`.

A script that imports npm packages by name is bundled: esbuild (pinned in package.json) turns each
entry of BUNDLES into one file, with the packages it imports (a fraction of a second), and the site
serves it with the licences of the packages inside it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from mgsite.errors import PageError

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
# (mgsite/formulas.py), STIX Two Math is cut to the characters it uses (mgsite/font.py), esbuild bundles BUNDLES
BUILD_ONLY = ["temml", "@fontsource/stix-two-math", "esbuild"]


def installed(root: Path, package: str) -> Path:
    """node_modules/<package>, after checking it is there at the version package.json pins."""
    pinned = json.loads((root / "package.json").read_text(encoding="utf-8"))["dependencies"]
    try:
        have = json.loads((root / "node_modules" / package / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise PageError(f"node_modules/{package} is missing: run `npm ci` in {root}") from None
    if have != pinned[package]:
        raise PageError(f"node_modules/{package} is {have}, package.json pins {pinned[package]}: run `npm ci`")
    return root / "node_modules" / package


def vendored_files(root: Path) -> dict[str, Path]:
    """Site path -> file in node_modules, for every file in VENDOR (each pattern must match)."""
    out = {}
    for site_dir, (package, folder, patterns) in VENDOR.items():
        base = installed(root, package) / folder
        for pattern in patterns:
            if not (found := sorted(base.glob(pattern))):
                raise PageError(f"node_modules/{package}/{folder}/{pattern} is missing: run `npm ci` in {root}")
            out.update({f"{site_dir}/{path.relative_to(base).as_posix()}": path for path in found})
    return out


def bundle(root: Path, site_path: str, entry: str, docs: Path) -> list[Path]:
    """Bundle entry with esbuild into docs/site_path, with the licences of what it holds beside it."""
    out = docs / site_path
    meta = root / ".cache" / "bundles" / (site_path + ".meta.json")  # esbuild's list of inputs, not published
    meta.parent.mkdir(parents=True, exist_ok=True)
    command = [
        str(installed(root, "esbuild") / "bin" / "esbuild"),
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
    done = subprocess.run(command, cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise PageError(f"esbuild could not bundle {entry}:\n{done.stderr.strip()}")
    licences = out.with_name(out.name + ".LICENSES.txt")
    licences.write_text(licence_text(root, json.loads(meta.read_text(encoding="utf-8"))), encoding="utf-8")
    return [out, licences]


def licence_text(root: Path, metafile: dict[str, Any]) -> str:
    """Each npm package the bundle holds, with its version and its licence file, in name order."""
    packages = set()
    for path in metafile["inputs"]:
        parts = Path(path).parts
        if "node_modules" in parts:
            at = parts.index("node_modules") + 1
            packages.add("/".join(parts[at : at + 2]) if parts[at].startswith("@") else parts[at])
    out = []
    for name in sorted(packages):
        folder = root / "node_modules" / name
        version = json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"]
        licence = next((p for p in sorted(folder.glob("LICEN[CS]E*"))), None)
        text = licence.read_text(encoding="utf-8").strip() if licence else "(no licence file in the package)"
        out.append(f"{name} {version}\n\n{text}\n")
    return ("\n" + "-" * 72 + "\n\n").join(out)


def check_installed(root: Path) -> None:
    """Stop at once, with one line, when node_modules/ lacks a package the build uses."""
    for package in BUILD_ONLY:
        installed(root, package)
    vendored_files(root)


def vendor(root: Path, docs: Path) -> list[Path]:
    """Copy VENDOR's files into docs/ and bundle BUNDLES there; the files written."""
    written = []
    for site_dir in VENDOR:
        shutil.rmtree(docs / site_dir, ignore_errors=True)
    for site_path, source in vendored_files(root).items():
        (docs / site_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, docs / site_path)
        written.append(docs / site_path)
    for site_path, entry in BUNDLES.items():
        written += bundle(root, site_path, entry, docs)
    return written
