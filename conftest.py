"""pytest setup for the whole repository.

The package's tests need only the `test` extra. With --codeblocks,
tests/page_blocks.py runs the Python blocks of Markdown pages. The tests' fixtures are in
tests/conftest.py (the built site) and in the conftest.py of each layer: tests/package/,
tests/site/ and tests/browser/.
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


def pytest_configure(config):
    if config.getoption("codeblocks", default=False):
        import page_blocks

        config.pluginmanager.register(page_blocks, "page_blocks")
