"""pytest setup for the whole repository.

The package's tests need only the `test` extra. The docs checks add two plugins:
tests/sitecheck.py (the built_site fixture; standard library and pytest only) always, and
tests/page_blocks.py (runs the Python blocks of Markdown pages) only with --codeblocks.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.append(str(ROOT / "docs" / "hooks"))  # mdblocks, the one reader of pages; appended so it shadows nothing

pytest_plugins = ["sitecheck"]


def pytest_configure(config):
    if config.getoption("codeblocks", default=False):
        import page_blocks

        config.pluginmanager.register(page_blocks, "page_blocks")
