"""`python -m mgsite.prepare [ROOT]`: what a build copies and no page makes, written into docs/ before
MkDocs or Zensical runs (the Makefile runs it before every build and before `make serve`).

- docs/dist/: the microgpt wheel and latest.json (wheel.py);
- .mgsite/install.console: the install line for that wheel at mkdocs.yml's site_url, which
  docs/index.md embeds (wheel.py); a missing site_url stops here, before anything is built;
- docs/vendor/pyodide/, docs/vendor/uplot/: the npm files the pages load (vendor.py);
- docs/assets/microgpt/: the site's scripts, from docs/javascripts/, bundled by esbuild per feature, the editor
  among them (vendor.py);
- docs/vendor/stix-two-math/: the whole math font (font.py); `python -m mgsite.finish` cuts the built
  site's copy down to the characters its formulas draw.

Every path it writes is gitignored. A missing node_modules/ or a failed wheel build is one line and exit 1.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mgsite import font, vendor, wheel
from mgsite.errors import PageError
from microgpt.runtime.files import write_atomically


def prepare(root: Path) -> None:
    docs = root / "docs"
    site_url = wheel.site_url(root)
    vendor.check_installed(root)
    wheel.write_install_line(root, site_url, wheel.build_wheel(root, docs / "dist"))
    vendor.vendor(root, docs)
    target = docs / font.SITE_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, font.subset((root / font.SOURCE).read_bytes(), None))


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else ".").resolve()
    try:
        prepare(root)
    except PageError as error:
        print(f"mgsite.prepare: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
