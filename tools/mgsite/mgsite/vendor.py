"""Serve the site's front-end files from node_modules/, which `npm ci` fills from package-lock.json.

No third-party file is committed: `npm ci` checks every file against its integrity hash, and
`python -m mgsite.prepare` copies the files the pages use into docs/ (gitignored paths), so every
generator publishes them. To serve another npm package, add a line to VENDOR (and the package to
package.json). A missing or stale node_modules stops the build with one line that says to run `npm ci`.

The site's own scripts (docs/javascripts/, small modules, one concept each) are not published as they
are: esbuild (pinned in package.json) bundles them, in a fraction of a second, into SCRIPTS (gitignored),
one file for each entry of ENTRIES and one for each feature the entries `import()` (the Run buttons,
each widget, the Train widget), with the modules features share in chunks of their own. A page then
fetches its feature's code in one or two requests, not one per module, and only the features it has.
Every file of SCRIPTS is in one folder, so the URLs the code makes from its own (`import.meta.url`:
run/root.js, run/connection.js's worker, run/editing.js's editor) find each other. The site serves
them with the licences of the npm packages inside them (CodeMirror, in the editor).
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
# the site folder of the bundled scripts: two folders below the site's root, as run/root.js counts
SCRIPTS = "assets/microgpt"
# SCRIPTS/<name>.js: the script it is bundled from (its imports of npm packages resolved from node_modules/)
ENTRIES = {
    # every page's, started after the page's first paint (overrides/main.html); it fetches the rest
    "site": "docs/javascripts/site.js",
    # the page's Python, in a worker (run/connection.js)
    "worker": "docs/javascripts/run/worker.js",
    # the code editor of the Run buttons (CodeMirror 6), loaded when a reader first presses Edit (run/editing.js)
    "editor": "docs/javascripts/editor/index.js",
}
LICENCES = "LICENSES.txt"  # in SCRIPTS: the npm packages each bundled file holds, with their licences
# used while the site is built, served as they are by no page: Temml typesets the math
# (mgsite/formulas.py), STIX Two Math is cut to the characters it uses (mgsite/font.py), esbuild bundles ENTRIES
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


def bundle(root: Path, docs: Path) -> list[Path]:
    """Bundle ENTRIES with esbuild into docs/SCRIPTS (emptied first: no chunk of an earlier build stays), with
    the licences of the npm packages they hold beside them; the files written."""
    out = docs / SCRIPTS
    shutil.rmtree(out, ignore_errors=True)
    meta = root / ".cache" / "bundles" / "scripts.meta.json"  # esbuild's list of inputs, not published
    meta.parent.mkdir(parents=True, exist_ok=True)
    command = [
        str(installed(root, "esbuild") / "bin" / "esbuild"),
        *(f"{name}={entry}" for name, entry in ENTRIES.items()),
        "--bundle",
        "--splitting",  # each import() a file of its own, and what several of them share another
        "--format=esm",
        "--minify",
        "--target=es2020",
        "--chunk-names=[name]-[hash]",  # blocks-XXXX.js: the feature's name, for whoever reads the requests
        "--legal-comments=none",  # the licences go in a file of their own, below
        f"--banner:js=/* bundled by esbuild from docs/javascripts/ (tools/mgsite/mgsite/vendor.py); "
        f"the npm packages in these files and their licences: {LICENCES} */",
        f"--outdir={out}",
        f"--metafile={meta}",
        "--log-level=warning",
    ]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise PageError(f"esbuild could not bundle {', '.join(ENTRIES.values())}:\n{done.stderr.strip()}")
    (out / LICENCES).write_text(licence_text(root, json.loads(meta.read_text(encoding="utf-8"))), encoding="utf-8")
    return sorted(out.iterdir())


def package_of(path: str) -> str | None:
    """The npm package an input of esbuild's metafile comes from (None: one of ours)."""
    parts = Path(path).parts
    if "node_modules" not in parts:
        return None
    at = parts.index("node_modules") + 1
    return "/".join(parts[at : at + 2]) if parts[at].startswith("@") else parts[at]


def licence_text(root: Path, metafile: dict[str, Any]) -> str:
    """Which bundled file holds which npm packages, then each package with its version and its licence file,
    in name order."""
    held: dict[str, set[str]] = {}
    for output, about in sorted(metafile["outputs"].items()):
        for package in filter(None, map(package_of, about["inputs"])):
            held.setdefault(package, set()).add(Path(output).name)
    out = []
    for name in sorted(held):
        folder = root / "node_modules" / name
        version = json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"]
        licence = next((p for p in sorted(folder.glob("LICEN[CS]E*"))), None)
        text = licence.read_text(encoding="utf-8").strip() if licence else "(no licence file in the package)"
        out.append(f"{name} {version} (in {', '.join(sorted(held[name]))})\n\n{text}\n")
    return ("\n" + "-" * 72 + "\n\n").join(out)


def check_installed(root: Path) -> None:
    """Stop at once, with one line, when node_modules/ lacks a package the build uses."""
    for package in BUILD_ONLY:
        installed(root, package)
    vendored_files(root)


def vendor(root: Path, docs: Path) -> list[Path]:
    """Copy VENDOR's files into docs/ and bundle the site's scripts there; the files written."""
    written = []
    for site_dir in VENDOR:
        shutil.rmtree(docs / site_dir, ignore_errors=True)
    for site_path, source in vendored_files(root).items():
        (docs / site_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, docs / site_path)
        written.append(docs / site_path)
    return written + bundle(root, docs)
