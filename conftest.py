"""Loads tests/sitecheck.py into every pytest run, so `pytest --codeblocks docs/page.md` alone
expands embedded code and refuses fences that would be skipped silently, just as `make test` does."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))

pytest_plugins = ["sitecheck"]
