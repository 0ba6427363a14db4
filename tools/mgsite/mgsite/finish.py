"""`python -m mgsite.finish SITE [ROOT]`: after a build, the math font of SITE cut down to the
characters its pages' formulas draw (font.py says why), from the built pages themselves, which it
only reads. The Makefile runs it after every `make build`; `mkdocs serve` serves the whole font."""

from __future__ import annotations

import sys
from pathlib import Path

from mgsite import font
from microgpt.runtime.files import write_atomically


def finish(site: Path, root: Path) -> int:
    """Cut SITE's math font to its formulas' characters; how many characters they draw."""
    used: set[str] = set()
    for page in sorted(site.rglob("*.html")):
        used |= font.characters_of_page(page.read_text(encoding="utf-8"))
    if used:
        write_atomically(site / font.SITE_PATH, font.subset((root / font.SOURCE).read_bytes(), used))
    else:
        (site / font.SITE_PATH).unlink(missing_ok=True)
    return len(used)


def main(argv: list[str]) -> int:
    if not argv or not Path(argv[0]).is_dir():
        print("usage: python -m mgsite.finish SITE [ROOT]  (SITE: a built site's directory)", file=sys.stderr)
        return 2
    finish(Path(argv[0]), Path(argv[1] if len(argv) > 1 else ".").resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
