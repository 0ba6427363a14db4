"""pytest setup for the whole repository.

The package's tests need only the `test` extra. The docs checks add two plugins:
tests/sitecheck.py (the built_site fixture; standard library and pytest only) always, and
tests/page_blocks.py (runs the Python blocks of Markdown pages) only with --codeblocks.
"""

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent

# What microgpt measures and keeps in the user's cache (this machine's speed: microgpt/runtime/speed.py)
# goes to a directory of this test run's own, shared by its workers and the programs they start, not into
# the home directory of whoever runs the tests. Set before xdist starts its workers, which inherit it.
if "MICROGPT_TESTS_CACHE" not in os.environ:
    os.environ["MICROGPT_TESTS_CACHE"] = os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="microgpt-tests-cache-")
sys.path.insert(0, str(ROOT / "tests"))

pytest_plugins = ["sitecheck"]


def pytest_configure(config):
    if config.getoption("codeblocks", default=False):
        import page_blocks

        config.pluginmanager.register(page_blocks, "page_blocks")
